"""Regression tests from the session-38 certificate-forging audit: deep nesting is malformed
(exit 2), not an internal error, and a forged "independent" flip-set proof is refused without an
exact rank over Q."""

from __future__ import annotations

import hashlib
import io
import json
import random
import time

import pytest

from algebra.exceptions import InputError
from semialgebraic.verify import resolve_sidecar, verify

_NET = {"format": "netfibers.network", "version": 1, "activation": "relu",
        "layers": [{"weight": [[1, 2], [-1, 1], [2, -1]], "bias": [0, 1, -1]},
                   {"weight": [[1, -1, 2]], "bias": [0]}]}


def _path_cert(steps):
    from algebra.kernel.certificate_schemas import CLAIMS
    return {"format": "netfibers.certificate", "type": "symmetry_path", "schema_version": 1,
            "netfibers_version": "0.1.0", "claim": CLAIMS["symmetry_path"][0],
            "a": _NET, "b": _NET, "steps": steps}


def _nested(depth):
    step = {"step": "S1", "layer": 0, "perm": [0, 1, 2]}
    for _ in range(depth):
        step = {"step": "composite", "steps": [step]}
    return [step]


def test_nested_composites_are_checked_to_64_levels_then_malformed():
    # forge F1: 330 nested composites of an identity permutation (a true path) raised
    # RecursionError (exit 4) in the reader, `verify` and `apply` alike
    ok, why = verify(_path_cert(_nested(64)))
    assert ok, why
    for depth in (65, 400, 2000):
        with pytest.raises(InputError, match="nested more than 64 deep"):
            verify(_path_cert(_nested(depth)))


def test_apply_refuses_deeply_nested_steps(tmp_path, capsys):
    from semialgebraic.cli import main
    net, steps, out = tmp_path / "a.json", tmp_path / "s.json", tmp_path / "o.json"
    net.write_text(json.dumps(_NET))
    steps.write_text(json.dumps(_nested(400)))
    assert main(["apply", str(steps), str(net), "-o", str(out)]) == 2
    assert "nested more than 64 deep" in capsys.readouterr().err and not out.exists()


def test_a_sidecar_certificate_nested_deeply_is_malformed(tmp_path):
    # forge F2: the sidecar's resolver walked the certificate recursively before any check
    np = pytest.importorskip("numpy")
    buf = io.BytesIO()
    np.savez(buf)
    raw = buf.getvalue()
    (tmp_path / "empty.npz").write_bytes(raw)
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    cert = dict(_path_cert([]), checkpoints=deep,
                sidecar={"file": "empty.npz", "sha256": hashlib.sha256(raw).hexdigest()})
    with pytest.raises(InputError, match="nested too deeply"):
        resolve_sidecar(cert, tmp_path / "c.json")


def test_a_forged_independent_flip_set_proof_is_refused_by_modular_ranks():
    # forge F3: a planted flip pair (w_1 = −w_0, v_1 = v_0) under a forged "independent" claim:
    # the checker fell back to an exact rank over Q (156 s on a 100-900-10 net, past --timeout);
    # two primes now decide that it is not shown
    from algebra.kernel.certificate_schemas import CLAIMS
    rng = random.Random(7)
    d, n, m = 12, 60, 6
    W = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(n)]
    b = [rng.randint(-9, 9) for _ in range(n)]
    V = [[rng.randint(-9, 9) for _ in range(n)] for _ in range(m)]
    W[1], b[1] = [-x for x in W[0]], b[0] + 1
    for r in V:
        r[1] = r[0]
    net = {"format": "netfibers.network", "version": 1, "activation": "relu",
           "layers": [{"weight": W, "bias": b}, {"weight": V, "bias": [0] * m}]}
    cert = {"format": "netfibers.certificate", "type": "identifiability_hypotheses", "schema_version": 1,
            "netfibers_version": "0.1.0", "claim": CLAIMS["identifiability_hypotheses"][1],
            "network": net, "fiber_dimension": n, "flip_sets": {"kind": "independent"}}
    t = time.process_time()
    ok, why = verify(json.loads(json.dumps(cert)))
    assert not ok and "rank below n mod two primes" in why, why
    assert time.process_time() - t < 30          # (generous: a rank mod p, not over Q)


def test_a_huge_declared_input_width_is_named_as_such():
    # forge F4: "inputs": 10^40 with an empty first layer reached FLINT, whose OverflowError
    # was reported as a float overflow with the advice to rescale the network
    from algebra.io.native import network_from_dict
    net = {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": 10 ** 40,
           "layers": [{"weight": [], "bias": []}, {"weight": [[]], "bias": [1]}]}
    with pytest.raises(InputError, match="is not a width this tool can hold"):
        network_from_dict(net)
