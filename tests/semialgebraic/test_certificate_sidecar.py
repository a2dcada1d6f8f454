"""Issue 16 part 3: large certificates carry their exact payload in a binary sidecar named in the
JSON with its SHA-256; ``verify CERT`` needs nothing else, ``verify CERT A B`` still compares the
embedded inputs; a missing, truncated or altered sidecar is exit 2, never VALID."""

from __future__ import annotations

import hashlib
import io
import json

import pytest

from semialgebraic.certificates import _json as certjson
from semialgebraic.cli import main

np = pytest.importorskip("numpy")
safetensors_numpy = pytest.importorskip("safetensors.numpy")


def run(capsys, *argv):
    try:
        code = main([str(a) for a in argv])
    except SystemExit as exc:          # fail() exits
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def _pair(tmp_path, n=40, d=8, m=3, seed=0):
    rng = np.random.default_rng(seed)
    W1 = (rng.standard_normal((n, d)) / 4).astype(np.float32)
    b1 = (rng.standard_normal(n) / 8).astype(np.float32)
    W2 = (rng.standard_normal((m, n)) / 4).astype(np.float32)
    b2 = (rng.standard_normal(m) / 8).astype(np.float32)
    perm = rng.permutation(n)
    s = (2.0 ** rng.integers(-2, 3, n)).astype(np.float32)
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    safetensors_numpy.save_file({"0.weight": W1, "0.bias": b1, "2.weight": W2, "2.bias": b2}, str(a))
    permuted = {"0.weight": (W1 * s[:, None])[perm], "0.bias": (b1 * s)[perm],
                "2.weight": (W2 / s[None, :])[:, perm], "2.bias": b2}
    safetensors_numpy.save_file({k: np.ascontiguousarray(v) for k, v in permuted.items()}, str(b))
    return a, b


@pytest.fixture
def large(monkeypatch, tmp_path, capsys):
    """An equivalent pair whose certificate goes to a sidecar (threshold lowered to 100)."""
    monkeypatch.setattr(certjson, "SIDECAR_THRESHOLD", 100)
    a, b = _pair(tmp_path)
    cert = tmp_path / "c.json"
    code, out, err = run(capsys, "equiv", a, b, "--certificate", cert)
    assert code == 0, err
    return a, b, cert, tmp_path / "c.payload.npz"


def test_large_certificate_has_a_sidecar_and_verifies(large, capsys):
    a, b, cert, side = large
    data = json.loads(cert.read_text())
    assert data["sidecar"] == {"file": side.name,
                               "sha256": hashlib.sha256(side.read_bytes()).hexdigest()}
    assert data["a"]["layers"][0]["weight"]["$sidecar"] == "a.0"
    assert int(data["a"]["layers"][0]["weight"]["den"]) & (int(data["a"]["layers"][0]["weight"]["den"]) - 1) == 0
    code, out, err = run(capsys, "verify", cert)
    assert code == 0 and out.startswith("VALID"), (out, err)
    code, out, _ = run(capsys, "verify", cert, a, b)
    assert code == 0 and out.startswith("VALID")
    code, out, err = run(capsys, "verify", cert, b, a)     # a valid certificate, other files:
    assert code == 2 and "not the network the certificate is about" in err   # an input problem
    assert "the certificate itself is valid" in err and out == ""


def test_sidecar_payload_is_exact(large):
    from algebra import load
    from semialgebraic.verify import resolve_sidecar
    a, b, cert, _ = large
    resolved = resolve_sidecar(json.loads(cert.read_text()), cert)
    assert "sidecar" not in resolved
    assert resolved["a"] == load(a) and resolved["b"] == load(b)
    assert resolved["a"].layer(0)[0] == load(a).layer(0)[0]      # rational views, entry by entry


def _exit2(capsys, cert, *words):
    code, out, err = run(capsys, "verify", cert)
    assert code == 2, (code, out, err)
    assert "VALID" not in out and "Traceback" not in err
    for w in words:
        assert w in err, err


def test_missing_sidecar_is_exit_2(large, capsys):
    _, _, cert, side = large
    side.unlink()
    _exit2(capsys, cert, "sidecar", "next to the certificate")


@pytest.mark.parametrize("cut", [0, 1, 100, -1])
def test_truncated_sidecar_is_exit_2(large, capsys, cut):
    _, _, cert, side = large
    raw = side.read_bytes()
    side.write_bytes(raw[:cut] if cut >= 0 else raw[:len(raw) // 2])
    _exit2(capsys, cert, "SHA-256")


@pytest.mark.parametrize("where", [0.1, 0.5, 0.9])
def test_altered_sidecar_byte_is_exit_2(large, capsys, where):
    _, _, cert, side = large
    raw = bytearray(side.read_bytes())
    raw[int(len(raw) * where)] ^= 0x01
    side.write_bytes(bytes(raw))
    _exit2(capsys, cert, "SHA-256")


def test_altered_digest_in_json_is_exit_2(large, capsys):
    _, _, cert, _ = large
    data = json.loads(cert.read_text())
    data["sidecar"]["sha256"] = "0" * 64
    cert.write_text(json.dumps(data))
    _exit2(capsys, cert, "SHA-256")


def _rewrite(cert, side, change):
    """Alter the payload and record the new digest: a consistent but lying certificate."""
    with np.load(side, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    change(arrays)
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    side.write_bytes(buf.getvalue())
    data = json.loads(cert.read_text())
    data["sidecar"]["sha256"] = hashlib.sha256(buf.getvalue()).hexdigest()
    cert.write_text(json.dumps(data))


def test_consistently_altered_weight_is_never_valid(large, capsys):
    _, _, cert, side = large

    def change(arrays):
        arrays["b.0"] = arrays["b.0"].copy()
        arrays["b.0"][3, 2] += 1
    _rewrite(cert, side, change)
    code, out, err = run(capsys, "verify", cert)
    assert code in (1, 2) and not out.startswith("VALID"), (code, out, err)


@pytest.mark.parametrize("change, words", [
    (lambda a: a.update({"a.0": a["a.0"].astype(np.float64)}), ["int64"]),
    (lambda a: a.update({"a.0": a["a.0"][:, :3]}), ["columns"]),
    (lambda a: a.pop("a.1"), ["no array"]),
    (lambda a: a.update({"extra": np.zeros(2, np.int64)}), ["does not use"]),
])
def test_malformed_payload_is_exit_2(large, capsys, change, words):
    _, _, cert, side = large
    _rewrite(cert, side, change)
    _exit2(capsys, cert, *words)


@pytest.mark.parametrize("name", ["../c.payload.npz", "/etc/passwd", "", "sub/x.npz"])
def test_sidecar_name_must_be_bare(large, capsys, name):
    _, _, cert, _ = large
    data = json.loads(cert.read_text())
    data["sidecar"]["file"] = name
    cert.write_text(json.dumps(data))
    _exit2(capsys, cert, "sidecar")


def test_small_certificate_stays_one_json_file(tmp_path, capsys):
    a, b = _pair(tmp_path)                       # 360 weights, below the default threshold
    cert = tmp_path / "c.json"
    code, _, err = run(capsys, "equiv", a, b, "--certificate", cert)
    assert code == 0, err
    assert "sidecar" not in json.loads(cert.read_text())
    assert not (tmp_path / "c.payload.npz").exists()
    code, out, _ = run(capsys, "verify", cert, a, b)
    assert code == 0 and out.startswith("VALID")
