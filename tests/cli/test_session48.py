"""Session 48: ``conserved`` exits 0 when its count is exact although the region walk was cut
(s48 fibers audit F1: exit 3 beside "12 independent conservation laws (certified ...)").  With
an incomplete set of patterns the lower bound counts only the global rescaling laws
(three-layer-fibers R23: conserved on every pattern), and more patterns can only lower the
fields' upper bound, so lower = upper is the count on every region."""

from __future__ import annotations

import json
from pathlib import Path

NET = Path(__file__).resolve().parents[1] / "cases" / "conserved_bottleneck_4_4_8_2.json"


def test_an_exact_count_from_a_cut_walk_exits_0(run):
    code, out, _ = run("conserved", NET, "--max-regions", "40", "--json")
    got = json.loads(out)
    assert code == 0, out
    assert got["exact"] is True and got["number_of_laws"] == 12
    assert got["complete"] is False and got["exact_with_incomplete_patterns"] is True
    code, out, _ = run("conserved", NET, "--max-regions", "40")
    assert code == 0 and "exact although the region walk was cut" in out


def test_bounds_from_a_cut_walk_still_exit_3(run):
    code, out, _ = run("conserved", NET, "--max-regions", "5", "--json")
    got = json.loads(out)
    assert code == 3 and got["exact"] is False
    assert got["lower"] == 12 and got["upper"] > 12
    assert "exact_with_incomplete_patterns" not in got


def test_the_whole_walk_agrees(run):
    code, out, _ = run("conserved", NET, "--json")
    got = json.loads(out)
    assert code == 0 and got["complete"] is True and got["number_of_laws"] == 12


def test_verify_epsilon_prints_two_different_numbers(run, tmp_path):
    # (s48 realuse audit: "max |a - b| >= ≈5.0542e-5 > ≈5.0542e-5", the two sides alike)
    a = {"layers": [{"weight": [[1]], "bias": [0]}, {"weight": [[1]], "bias": [0]}]}
    b = {"layers": [{"weight": [[1]], "bias": [0]}, {"weight": [["999998999/1000000000"]], "bias": [0]}]}
    pa, pb, cert = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    code, out, _ = run("diff", pa, pb, "--box", "-1,1", "--certificate", cert, "--method", "bab")
    assert code == 0 and " 1 nodes" not in out
    code, out, _ = run("verify", cert, pa, pb, "--epsilon", "1.0009999e-6")
    assert code == 1, out
    line = next(t for t in out.splitlines() if t.startswith("it proves"))
    assert line.startswith("it proves max |a - b| > 1.0009999e-6: ")
    left, right = line.split(">= ")[1].split(" (attained")[0].split(" > ")
    assert left != right, line


def test_a_long_run_of_digits_is_read_in_linear_time():
    # (s48 hostile audit F1: the exponent scan split a run of digits every way, quadratic in C
    # where no budget reaches: 60 000 digits took 20-30 s, a 1 MB file hours)
    import time
    from algebra.io.native import _exponent_digits
    start = time.monotonic()
    assert _exponent_digits("[" + "7" * 1_000_000 + "]") == 0
    assert time.monotonic() - start < 20            # ~0.07 s; hours before
    assert _exponent_digits('[1e9999, "2.5E-3", 7, 1.e5, .5e3, 12.34e2]') == 10012


def test_a_huge_value_in_a_certificate_header_is_not_echoed_whole(run, tmp_path):
    cert = tmp_path / "c.json"
    cert.write_text('{"format": "netfibers.certificate", "type": "symmetry_path", "schema_version": '
                    + "1" * 100_000 + ', "netfibers_version": "0"}')
    code, out, err = run("verify", cert, "--timeout", "30")
    assert code == 2 and "schema_version" in err and len(err) < 500, err[:300]


def nf_q(p, q):
    from algebra.rationals import Q
    return Q(p, q)


def _sidecar_cert(tmp_path, arrays: dict, den: str, compressed=False):
    import hashlib
    import numpy as np
    side = tmp_path / "c.npz"
    (np.savez_compressed if compressed else np.savez)(side, **arrays)
    key = next(iter(arrays))
    cert = {"sidecar": {"file": "c.npz", "sha256": hashlib.sha256(side.read_bytes()).hexdigest()},
            "network": {"format": "netfibers.network", "layers": [
                {"weight": {"$sidecar": key, "den": den}, "bias": [0]}, {"weight": [[1]], "bias": [0]}]}}
    return cert, tmp_path / "c.json"


def test_sidecars_hostile_to_the_reader_are_input_errors(tmp_path):
    # (s48 hostile audit F3-F6: "²" as a denominator an exit 4, a FIFO blocked past --timeout,
    # /dev/zero or a zip bomb read whole before any check)
    import os
    import numpy as np
    import pytest
    from algebra.exceptions import InputError
    from semialgebraic.verify import resolve_sidecar
    cert, path = _sidecar_cert(tmp_path, {"w": np.array([[3]], dtype=np.int64)}, "2")
    from algebra.network import Network
    net = resolve_sidecar(cert, path)["network"]          # the genuine reference: read exactly
    assert isinstance(net, Network) and net([1]) == (nf_q(3, 2),)
    for den in ("²", "٣", "1" * 5000, ""):
        c, p = _sidecar_cert(tmp_path, {"w": np.array([[3]], dtype=np.int64)}, den)
        with pytest.raises(InputError, match="malformed sidecar reference"):
            resolve_sidecar(c, p)
    fifo = tmp_path / "f.npz"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        resolve_sidecar({"sidecar": {"file": "f.npz", "sha256": "0" * 64}}, tmp_path / "c.json")
    c, p = _sidecar_cert(tmp_path, {"w": np.zeros((2000, 2000), dtype=np.int64)}, "1", compressed=True)
    with pytest.raises(InputError, match="expands to"):
        resolve_sidecar(c, p)


def test_a_huge_exponent_in_a_weight_is_refused_at_once(tmp_path):
    # (s48 hostile audit F7: 1e999999 was built whole, ~26 s, before int64 refused it)
    import time
    import pytest
    from algebra.exceptions import InputError
    import netfibers as nf
    p = tmp_path / "n.json"
    p.write_text('{"layers": [{"weight": [[1e999999, 1]]}, {"weight": [[1]]}]}')
    start = time.monotonic()
    with pytest.raises(InputError, match="exponent larger than"):
        nf.load(p)
    assert time.monotonic() - start < 10


def test_a_negative_lower_bound_is_malformed(run, tmp_path):
    a = {"layers": [{"weight": [[1]], "bias": [0]}, {"weight": [[1]], "bias": [0]}]}
    b = {"layers": [{"weight": [[1]], "bias": [0]}, {"weight": [[2]], "bias": [0]}]}
    pa, pb, cert = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    assert run("diff", pa, pb, "--box", "-1,1", "--certificate", cert, "--method", "bab")[0] == 0
    data = json.loads(cert.read_text())
    data["lower"] = "-1"
    cert.write_text(json.dumps(data))
    code, _, err = run("verify", cert)
    assert code == 2 and "must be >= 0" in err


def test_batch_refuses_hostile_manifests_and_outputs(run, tmp_path):
    # (s48 hostile audit B1-B3: a CSV field over 131 072 characters or 100 000 '[' were exit 4;
    # an --out that is a directory was exit 4, a FIFO blocked the resume read)
    import os
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"layers": [{"weight": [[1]]}, {"weight": [[1]]}]}))
    big = tmp_path / "big.csv"
    big.write_text("model\n" + "x" * 200_000 + "\n")
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    good = tmp_path / "good.csv"
    good.write_text(f"model\n{net}\n")
    (tmp_path / "outdir").mkdir()
    os.mkfifo(tmp_path / "fifo.jsonl")
    for manifest, out, what in ((big, tmp_path / "o1.jsonl", "not a readable CSV"),
                                (deep, tmp_path / "o2.jsonl", "nested too deeply"),
                                (good, tmp_path / "outdir", "regular file"),
                                (good, tmp_path / "fifo.jsonl", "regular file"),
                                (tmp_path / "fifo.jsonl", tmp_path / "o3.jsonl", "not a regular file")):
        code, _, err = run("batch", "dim", manifest, "--out", out, "--workers", "0", "--timeout", "10")
        assert code == 2 and what in err, err


def test_search_checkpoints_must_be_regular_files(run, tmp_path):
    # (s48 hostile audit S1: a FIFO blocked the resume, a directory was exit 4)
    import os
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"layers": [{"weight": [[1], [-1]], "bias": [0, 1]}, {"weight": [[1, 1]]}]}))
    (tmp_path / "ck_dir").mkdir()
    os.mkfifo(tmp_path / "ck_fifo")
    for ck in ("ck_dir", "ck_fifo"):
        code, _, err = run("search", "regions", net, "--box", "-1,1", "--workers", "0",
                           "--timeout", "10", "--checkpoint", tmp_path / ck)
        assert code == 2 and "regular file" in err, err
