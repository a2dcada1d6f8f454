"""Issue 16 part 3: a permuted and rescaled float32 pair gets an ``[S2, S1]`` path found and
replayed on integer arrays; the checker's array replay agrees with the FLINT replay and rejects
every mutated step (with and without checkpoints)."""

from __future__ import annotations

import copy
import json

import pytest

from algebra.kernel import network_digest
from algebra.network import Network
from algebra.symmetries import path_from_json
from semialgebraic.certificates import _json as certjson
from semialgebraic.verify import resolve_sidecar
from semialgebraic.verify.symmetry_path import check

from .test_certificate_sidecar import _pair, run

np = pytest.importorskip("numpy")


@pytest.fixture
def cert(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(certjson, "SIDECAR_THRESHOLD", 100)
    a, b = _pair(tmp_path, n=30, d=6, m=2, seed=3)
    path = tmp_path / "c.json"
    code, out, err = run(capsys, "equiv", a, b, "--certificate", path)
    assert code == 0, err
    return resolve_sidecar(json.loads(path.read_text()), path)


def _flint(c):
    """The same certificate with networks that have no integer arrays (the FLINT replay)."""
    c = dict(c)
    for k in ("a", "b"):
        c[k] = Network(c[k].weights, c[k].biases)
    return c


def test_path_is_scale_then_permute_and_checkpoints_are_flint_digests(cert):
    assert [s["step"] for s in cert["steps"]] == ["S2", "S1"]
    cur = cert["a"]
    for step, digest in zip(path_from_json(cert["steps"]), cert["checkpoints"]):
        cur = step.apply(cur)
        assert network_digest(cur) == digest
    assert cur == cert["b"]
    assert check(cert)[0] is True and check(_flint(cert))[0] is True


def _mutations():
    def factor(c):
        f = c["steps"][0]["factors"]
        f[1] = f"{f[1]}/3" if "/" not in str(f[1]) else str(f[1]) + "1"
    def swap(c):
        p = c["steps"][1]["perm"]
        p[0], p[1] = p[1], p[0]
    def drop(c):
        del c["steps"][0]
        del c["checkpoints"][0]
    def negative(c):
        c["steps"][0]["factors"][0] = "-1"
    def short(c):
        c["steps"][1]["perm"] = c["steps"][1]["perm"][:-1]
    def repeat(c):
        c["steps"][1]["perm"][0] = c["steps"][1]["perm"][1]
    return [factor, swap, drop, negative, short, repeat]


@pytest.mark.parametrize("mutate", _mutations())
@pytest.mark.parametrize("checkpoints", [True, False])
def test_mutated_step_is_rejected_by_both_replays(cert, mutate, checkpoints):
    c = copy.deepcopy({k: v for k, v in cert.items() if k not in ("a", "b")})
    c["a"], c["b"] = cert["a"], cert["b"]
    mutate(c)
    if not checkpoints:
        c.pop("checkpoints")
    for variant in (c, _flint(c)):
        ok, why = check(variant)
        assert ok is False, why


def test_b_differing_in_one_weight_is_rejected(cert):
    b = cert["b"]
    name = "W1[2,3]"
    x = dict(zip(b.parameter_names(), b.parameters()))[name]
    other = b.with_parameter(name, x + 1)                 # no arrays: converted for the check
    c = dict(cert, b=other)
    c.pop("checkpoints")
    assert check(c)[0] is False
    assert check(_flint(c))[0] is False
