"""Issue 16 (second round), item 3: ``Verdict.to_json`` (the ``--json`` output) gives large
networks and blocks as summaries with their digest instead of expanding them into number lists;
small ones stay in full; the certificate written with ``--certificate`` is still complete."""

from __future__ import annotations

import json

import pytest

from algebra.blocks import Block
from algebra.kernel import network_digest
from algebra.network import Network
from semialgebraic.certificates import _json as certjson
from semialgebraic.cli import main
from semialgebraic.verdict import Verdict

np = pytest.importorskip("numpy")


def _net(n=30, d=4, seed=0):
    rng = np.random.default_rng(seed)
    return Network._from_integer_arrays([(rng.integers(-99, 100, (n, d)), 8),
                                         (rng.integers(-99, 100, (2, n)), 1)],
                                        [[0] * n, [1, 2]])


def test_large_network_and_block_are_summarised(monkeypatch):
    net = _net()
    block = Block("relu", [[1, 2]] * 60, [[1] * 60, [2] * 60])
    cert = {"type": "symmetry_path", "a": net, "block": block, "steps": [{"perm": [1, 0]}]}
    small = Verdict(True, "m", "r", certificate={**cert, "a": _net(seed=1)}).to_json()["certificate"]
    assert small["a"] == _net(seed=1).to_dict() and small["block"] == block.to_dict()
    monkeypatch.setattr(certjson, "SIDECAR_THRESHOLD", 100)
    out = Verdict(True, "m", "r", certificate=cert, details={"net": net}).to_json()
    a = out["certificate"]["a"]
    assert a == {"format": "netfibers.network", "summary": True, "widths": [4, 30, 2],
                 "parameters": 30 * 4 + 30 + 2 * 30 + 2, "digest": network_digest(net)}
    assert out["net"] == a
    assert out["certificate"]["block"] == {"format": "netfibers.block", "summary": True, "d": 2,
                                           "k": 60, "activation": "relu", "matrix_entries": 240}
    assert out["certificate"]["steps"] == [{"perm": [1, 0]}]
    json.dumps(out)
    assert all(w is None for w in net._wq)          # the digest came from the arrays


def test_equiv_json_is_small_and_certificate_complete(tmp_path, monkeypatch, capsys):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    monkeypatch.setattr(certjson, "SIDECAR_THRESHOLD", 100)
    rng = np.random.default_rng(2)
    W1 = rng.standard_normal((40, 6)).astype(np.float32)
    b1 = rng.standard_normal(40).astype(np.float32)
    W2 = rng.standard_normal((3, 40)).astype(np.float32)
    b2 = rng.standard_normal(3).astype(np.float32)
    perm = rng.permutation(40)
    a, b = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    safetensors_numpy.save_file({"0.weight": W1, "0.bias": b1, "2.weight": W2, "2.bias": b2}, str(a))
    safetensors_numpy.save_file({"0.weight": np.ascontiguousarray(W1[perm]),
                                 "0.bias": np.ascontiguousarray(b1[perm]),
                                 "2.weight": np.ascontiguousarray(W2[:, perm]), "2.bias": b2}, str(b))
    cert = tmp_path / "c.json"
    code = main(["equiv", str(a), str(b), "--json", "--certificate", str(cert)])
    out = capsys.readouterr().out
    assert code == 0
    data = json.loads(out)
    assert data["certificate"]["a"]["summary"] is True
    assert data["certificate"]["a"]["widths"] == [6, 40, 3]
    assert "layers" not in json.dumps(data["certificate"]["a"])
    assert main(["verify", str(cert), str(a), str(b)]) == 0
    assert capsys.readouterr().out.startswith("VALID")
