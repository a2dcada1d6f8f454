"""Regression tests of session 42's findings (each names its finding)."""

from semialgebraic.cli import main
from tests.semialgebraic.test_adversarial_regressions import _nnet


def test_verify_names_the_nnet_file_that_differs(tmp_path, capsys):
    """s42 nearcopy audit: ``verify CERT A.nnet B.nnet`` with a wrong B blamed A ("embedded
    input 'a' differs": the mismatch of the last .nnet reading tried, not of the files as read)."""
    W1, W2 = [["1"], ["-1"]], [["1", "0.5"]]
    a = _nnet(tmp_path / "a.nnet", W1, ["0", "0"], W2, ["0"], ["0", "0"], ["1", "10"])
    b = _nnet(tmp_path / "b.nnet", W1, ["0", "0"], W2, ["0.001"], ["0", "0"], ["1", "10"])
    cert = str(tmp_path / "aa.json")
    assert main(["equiv", a, a, "--certificate", cert]) == 0
    capsys.readouterr()
    assert main(["verify", cert, a, a]) == 0
    assert main(["verify", cert, a, b]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: error: {b}: not the network") and "input 'b' differs" in err


def test_a_slice_certificate_with_fiber_moves_is_refused(tmp_path, capsys):
    """s42 forge5 audit: fiber moves added to a slice certificate were checked on the network of
    the free coordinates and printed its fiber as the user's ("fiber dimension = 4" where N − 6
    = 13).  Refused (dim writes none there).  And a malformed number is said once."""
    import json
    net = {"format": "netfibers.network", "layers": [
        {"weight": [[1, -1, 2], [2, 1, -1], [1, 1, 1]], "bias": [0, 1, -1]},
        {"weight": [[1, 1, -1]], "bias": [0]}]}
    p, c, full = tmp_path / "n.json", tmp_path / "c.json", tmp_path / "full.json"
    p.write_text(json.dumps(net))
    assert main(["dim", str(p), "--box", "0:1,1/2:1/2,-1:1", "--certificate", str(c)]) in (0, 3)
    assert main(["dim", str(p), "--box", "0:1,0:1,-1:1", "--certificate", str(full)]) in (0, 3)
    capsys.readouterr()
    cert, other = json.loads(c.read_text()), json.loads(full.read_text())
    assert "fiber_moves" not in cert and main(["verify", str(c), str(p)]) == 0
    if "fiber_moves" in other:
        cert["fiber_moves"], cert["fiber_lower"] = other["fiber_moves"], other["fiber_lower"]
    else:
        cert["fiber_lower"] = 1
    c.write_text(json.dumps(cert))
    capsys.readouterr()
    assert main(["verify", str(c), str(p)]) == 2
    err = capsys.readouterr().err
    assert "on a slice carries no fiber_moves" in err and err.count("malformed certificate") == 1
    d, q = tmp_path / "d.json", tmp_path / "q.json"
    net["layers"][1]["bias"] = ["1/1000"]
    q.write_text(json.dumps(net))
    assert main(["diff", str(p), str(q), "--box", "0,1", "--certificate", str(d)]) == 0
    bad = json.loads(d.read_text())
    assert bad["type"] == "bab_bound"
    bad["upper"] = "inf"
    d.write_text(json.dumps(bad))
    capsys.readouterr()
    assert main(["verify", str(d)]) == 2
    assert capsys.readouterr().err.count("malformed certificate") == 1
