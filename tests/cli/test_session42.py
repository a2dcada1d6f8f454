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
