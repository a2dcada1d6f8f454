"""Issue 16 (second round), item 1: a large absorption certificate keeps the block's exact
matrices (and the absorbing block's) in the binary sidecar: the JSON holds references and the
SHA-256; ``verify CERT`` needs nothing else and rebuilds the block exactly; a missing,
truncated or altered sidecar is exit 2, never VALID; a consistently altered payload (digest
recomputed) is judged on its content (BROKEN for a broken flip identity)."""

from __future__ import annotations

import hashlib
import io
import json

import pytest

from algebra.blocks import Block
from algebra.io.arrays import matrix_from_array
from semialgebraic.absorption import absorbable
from semialgebraic.certificates import _json as certjson
from semialgebraic.certificates import write_certificate
from semialgebraic.cli import main
from semialgebraic.verify import resolve_sidecar, verify

np = pytest.importorskip("numpy")


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _generic(d=6, k=24, seed=0):
    rng = np.random.default_rng(seed)
    up = rng.standard_normal((k, d)).astype(np.float32).astype(float)
    down = rng.standard_normal((d, k)).astype(np.float32).astype(float)
    return Block("relu", matrix_from_array(up), matrix_from_array(down))


def _planted(d=6, k=24, seed=1):
    """W_down[:, :d] W_up[:d, :] = -I with W_up[:d] = I, W_down[:, :d] = -I: S = {0..d-1}."""
    rng = np.random.default_rng(seed)
    up = rng.integers(-5, 6, (k, d)).astype(float) / 4
    down = rng.integers(-5, 6, (d, k)).astype(float) / 8
    up[:d] = np.eye(d)
    down[:, :d] = -np.eye(d)
    return Block("relu", matrix_from_array(up), matrix_from_array(down)), list(range(d))


@pytest.fixture
def small_threshold(monkeypatch):
    monkeypatch.setattr(certjson, "SIDECAR_THRESHOLD", 100)


def _write(tmp_path, block, name="c.json"):
    v = absorbable(block, verify=False)
    path = tmp_path / name
    write_certificate(v.certificate, path)
    return v, path, tmp_path / (path.stem + ".payload.npz")


@pytest.mark.parametrize("make, answer, kind", [(_generic, False, "left_null"),
                                                (lambda: _planted()[0], True, "flip")])
def test_block_goes_to_the_sidecar_and_is_rebuilt_exactly(tmp_path, small_threshold, make,
                                                          answer, kind):
    block = make()
    v, path, side = _write(tmp_path, block)
    assert v.answer is answer
    data = json.loads(path.read_text())
    assert data["witness"]["kind"] == kind
    assert data["block"]["w_up"] == {"$sidecar": "block.w_up", "den": data["block"]["w_up"]["den"]}
    assert data["sidecar"]["sha256"] == hashlib.sha256(side.read_bytes()).hexdigest()
    with np.load(side) as npz:
        N, den = npz["block.w_up"], int(data["block"]["w_up"]["den"])
        # the payload is the exact matrix: N / den == W_up entry by entry (Fraction oracle)
        from fractions import Fraction
        assert [[Fraction(int(x), den) for x in r] for r in N.tolist()] == \
            [[Fraction(int(x.p), int(x.q)) for x in r] for r in block.w_up.to_rows()]
    if kind == "flip":
        g = data["witness"]["absorbing_block"]
        assert g["w_up"]["$sidecar"] == "witness.absorbing_block.w_up"
    cert = resolve_sidecar(data, path)
    assert cert["block"] == block
    assert verify(cert)[0] is True


def test_verify_cli_on_a_block_sidecar(tmp_path, small_threshold, capsys):
    block, _ = _planted()
    bpath = tmp_path / "b.json"
    bpath.write_text(json.dumps(block.to_dict()))
    cert = tmp_path / "c.json"
    code, out, err = run(capsys, "absorb", bpath, "--certificate", cert)
    assert code == 0, (out, err)
    assert (tmp_path / "c.payload.npz").exists()
    code, out, err = run(capsys, "verify", cert)
    assert code == 0 and out.startswith("VALID"), (out, err)
    code, out, err = run(capsys, "verify", cert, bpath)
    assert code == 0 and out.startswith("VALID"), (out, err)
    other = tmp_path / "o.json"
    other.write_text(json.dumps(block.replace(w_down=(block.w_down * 2)).to_dict()))
    code, out, err = run(capsys, "verify", cert, other)
    assert code != 0 and not out.startswith("VALID")


def _resave(side, data, path, arrays):
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    side.write_bytes(buf.getvalue())
    data["sidecar"]["sha256"] = hashlib.sha256(buf.getvalue()).hexdigest()
    path.write_text(json.dumps(data))


def test_missing_truncated_altered_block_sidecar_exit_2(tmp_path, small_threshold, capsys):
    _, path, side = _write(tmp_path, _planted()[0])
    raw = side.read_bytes()
    side.write_bytes(raw[: len(raw) // 2])                    # truncated
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and "SHA-256" in err and not out.startswith("VALID")
    side.write_bytes(raw[:-1] + bytes([raw[-1] ^ 1]))        # one bit flipped
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and not out.startswith("VALID")
    side.unlink()                                             # missing
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and "cannot be read" in err and not out.startswith("VALID")


def test_consistently_altered_payload_is_judged_on_content(tmp_path, small_threshold, capsys):
    _, path, side = _write(tmp_path, _planted()[0])
    data = json.loads(path.read_text())
    with np.load(side) as npz:
        arrays = {k: npz[k].copy() for k in npz.files}
    arrays["block.w_up"][0, 0] += 1                           # the absorbing block is no flip
    _resave(side, data, path, arrays)
    code, out, err = run(capsys, "verify", path)
    assert code == 1 and out.startswith("BROKEN") and "not the flip D_S" in out, (out, err)
    arrays["witness.absorbing_block.w_up"][0, 0] -= 1         # a flip again (0 in S), but
    _resave(side, data, path, arrays)                         # W_down[:,S] W_up[S,:] != -I
    code, out, err = run(capsys, "verify", path)
    assert code == 1 and out.startswith("BROKEN") and "!= -M" in out, (out, err)
    arrays["block.w_up"] = arrays["block.w_up"].astype(np.float64)   # wrong dtype: malformed
    _resave(side, data, path, arrays)
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and "int64" in err
    arrays["block.w_up"] = arrays["block.w_up"].astype(np.int64)[:, :3]   # wrong shape
    _resave(side, data, path, arrays)
    code, out, err = run(capsys, "verify", path)
    assert code == 2 and not out.startswith("VALID")


def test_small_block_certificate_stays_one_json(tmp_path):
    _, path, side = _write(tmp_path, _planted()[0])
    assert not side.exists()
    data = json.loads(path.read_text())
    assert isinstance(data["block"]["w_up"], list) and "sidecar" not in data
