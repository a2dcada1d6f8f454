"""``bab_bound`` certificates of large networks (issue 15): the two networks go to the binary
sidecar (threshold ``SIDECAR_THRESHOLD_BY_TYPE["bab_bound"]``, lowered here), the JSON stays
small; ``verify`` rebuilds them exactly; a missing, altered or consistently rewritten sidecar is
never VALID."""

from __future__ import annotations

import hashlib
import io
import json

import pytest

from semialgebraic.certificates import _json as certjson
from semialgebraic.cli import main

np = pytest.importorskip("numpy")

A = {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": 1,
     "layers": [{"weight": [[1], [-1], [1], [-1]], "bias": [0, 0, -1, 1]},
                {"weight": [[1, 1, 1, 1]], "bias": [0]}]}
B = {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": 1,
     "layers": [{"weight": [[1], [-1], [2], [-1]], "bias": [0, "1/3", -1, 1]},
                {"weight": [["1/2", 1, 1, "3/2"]], "bias": [0]}]}


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def cert(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(certjson.SIDECAR_THRESHOLD_BY_TYPE, "bab_bound", 1)
    paths = []
    for name, net in (("a", A), ("b", B)):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(net))
        paths.append(p)
    c = tmp_path / "c.json"
    code, out, err = run(capsys, "diff", *paths, "--box=-1:2", "--method", "bab", "--json",
                         "--certificate", c)
    assert code == 0, err
    data = json.loads(out)
    return c, tmp_path / "c.payload.npz", data


def test_networks_go_to_the_sidecar_and_verify(cert, capsys):
    c, side, result = cert
    data = json.loads(c.read_text())
    assert data["type"] == "bab_bound" and data["bounds"]["differential"] == "neurodiff"
    assert data["sidecar"] == {"file": side.name, "sha256": hashlib.sha256(side.read_bytes()).hexdigest()}
    assert data["a"]["layers"][0]["weight"]["$sidecar"] == "a.0"
    assert data["b"]["layers"][1]["weight"]["$sidecar"] == "b.1"
    code, out, err = run(capsys, "verify", c)
    assert code == 0 and out.startswith("VALID"), (out, err)
    assert result["upper"] == data["upper"]


def _never_valid(capsys, c):
    code, out, err = run(capsys, "verify", c)
    assert code == 2 and "VALID" not in out and "Traceback" not in err, (code, out, err)


def test_missing_sidecar_is_exit_2(cert, capsys):
    c, side, _ = cert
    side.unlink()
    _never_valid(capsys, c)


def test_altered_sidecar_byte_is_exit_2(cert, capsys):
    c, side, _ = cert
    raw = bytearray(side.read_bytes())
    raw[len(raw) // 2] ^= 0x01
    side.write_bytes(bytes(raw))
    _never_valid(capsys, c)


def test_consistently_rewritten_weight_is_never_valid(cert, capsys):
    """b's second layer made larger, digest recomputed: the trees no longer prove the bound."""
    c, side, _ = cert
    with np.load(side, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["b.1"] = arrays["b.1"] * 4
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    side.write_bytes(buf.getvalue())
    data = json.loads(c.read_text())
    data["sidecar"]["sha256"] = hashlib.sha256(buf.getvalue()).hexdigest()
    c.write_text(json.dumps(data))
    code, out, err = run(capsys, "verify", c)
    assert code != 0 and not out.startswith("VALID") and "Traceback" not in err, (code, out, err)
