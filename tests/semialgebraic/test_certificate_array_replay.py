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


# -- issue 19: split and dead-neuron steps on arrays ------------------------------------------
# Oracle: the FLINT replay (every step's own check on Network objects, network_digest after each
# step, exact comparison with b), on planted variants (permutations, positive scalings, a split
# neuron, a dead neuron) of integer-array networks; mutated paths must fail in both replays.

from fractions import Fraction  # noqa: E402

from hypothesis import HealthCheck, assume, example, given, settings, strategies as st  # noqa: E402

from algebra.array_replay import array_view, replay_path  # noqa: E402
from algebra.rationals import Q  # noqa: E402
from algebra.symmetries import Regroup  # noqa: E402
from semialgebraic.distributed.merge import checkpointed, fingerprint_shallow  # noqa: E402
from semialgebraic.distributed.merge import array_merge_certificate as _found  # noqa: E402


def array_merge_certificate(a, b):
    return checkpointed(_found(a, b))



def _arrays_net(rng, widths, den=4):
    layers, biases = [], []
    for a, b in zip(widths, widths[1:]):
        N = np.array([[rng.choice([-1, 1]) * rng.randint(1, 6) for _ in range(a)] for _ in range(b)],
                     dtype=np.int64)
        layers.append((N, den))
        biases.append([Q(rng.choice([-1, 1]) * rng.randint(1, 6), den) for _ in range(b)])
    return Network._from_integer_arrays(layers, biases)


def _planted(net, rng, split, dead):
    """A copy of *net* computing the same function (Fraction arithmetic, no replay code)."""
    Ws = [[[Fraction(int(x.p), int(x.q)) for x in row] for row in W.to_rows()] for W in net.weights]
    bs = [[Fraction(int(x.p), int(x.q)) for x in b] for b in net.biases]
    for l in range(len(Ws) - 1):
        n = len(Ws[l])
        perm = list(range(n))
        rng.shuffle(perm)
        s = [Fraction(rng.choice([1, 2, 3, 4]), rng.choice([1, 2, 3])) for _ in range(n)]
        Ws[l] = [[x * s[i] for x in Ws[l][i]] for i in perm]
        bs[l] = [bs[l][i] * s[i] for i in perm]
        Ws[l + 1] = [[row[i] / s[i] for i in perm] for row in Ws[l + 1]]
    if split:
        Ws[0].append([x * 3 for x in Ws[0][0]])
        bs[0].append(bs[0][0] * 3)
        for row in Ws[1]:
            row.append(row[0] / 6)
            row[0] = row[0] / 2
    if dead:
        Ws[0].insert(1, [Fraction(0)] * len(Ws[0][0]))
        bs[0].insert(1, Fraction(-1))
        for row in Ws[1]:
            row.insert(1, Fraction(1, 2))
    return Network.from_rows([[[str(x) for x in r] for r in W] for W in Ws], [[str(x) for x in b] for b in bs])


def _with_arrays(net):
    v = array_view(net, convert=True)
    return Network._from_integer_arrays([(L.N, L.D) for L in v.layers], v.biases)


def _flint_path_digests(a, steps):
    cur, out = a, []
    for s in steps:
        ok, why = s.check(cur)
        assert ok, why
        cur = s._apply(cur)
        out.append(network_digest(cur))
    return cur, out


_cases = st.tuples(st.integers(0, 10 ** 6), st.sampled_from([(3, 4, 2), (2, 3, 1), (3, 3, 3, 2)]),
                   st.booleans(), st.booleans())


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_cases)
@example((90, (2, 3, 1), False, False))   # antiparallel neurons (w, b) and −(w, b): kept apart
def test_split_and_dead_paths_replay_on_arrays_as_on_flint(case):
    import random
    seed, widths, split, dead = case
    rng = random.Random(seed)
    a = _arrays_net(rng, widths)
    b = _planted(a, rng, split, dead)
    assume(network_digest(a) != network_digest(b))      # an identity plant has no path (seed 43)
    c = array_merge_certificate(a, b)
    assert c is not None
    steps = path_from_json(c["steps"])
    names = {s.name for s in steps}
    assert names <= {"S1", "S2", "regroup", "remove_neuron", "insert_neuron"}
    assert ("insert_neuron" in names) == dead and ("regroup" in names) == split
    end, digests = _flint_path_digests(a, steps)
    assert end == b and digests == c["checkpoints"]               # FLINT replay agrees
    replay = replay_path(a, steps)
    assert [r[3] for r in replay] == digests                      # array replay, step by step
    assert check(c)[0] is True and check(_flint(c))[0] is True
    bare = _found(a, b)                                           # as dedup writes it
    assert "checkpoints" not in bare and check(bare)[0] is True and check(_flint(bare))[0] is True
    if len(widths) == 3:
        assert fingerprint_shallow(array_view(a)) == fingerprint_shallow(array_view(b, convert=True))


def _leaf_mutations():
    def regroup_output(c):
        s = next(s for s in c["steps"] if s["step"] == "regroup")
        s["groups"][0]["new"][0]["output"][0] = str(Q(s["groups"][0]["new"][0]["output"][0]) + 1)
    def regroup_offset(c):
        s = next(s for s in c["steps"] if s["step"] == "regroup")
        s["groups"][0]["offset"] = str(Q(s["groups"][0]["offset"]) + 1)
    def regroup_t(c):
        s = next(s for s in c["steps"] if s["step"] == "regroup")
        s["groups"][0]["new"][0]["t"] = str(Q(s["groups"][0]["new"][0]["t"]) * 2)
    def insert_weight(c):
        s = next(s for s in c["steps"] if s["step"] == "insert_neuron")
        s["weight"][0] = 1
    def insert_bias(c):
        s = next(s for s in c["steps"] if s["step"] == "insert_neuron")
        s["bias"] = 1                                   # a live constant neuron: the bias moves
    def remove_index(c):
        s = next(s for s in c["steps"] if s["step"] == "remove_neuron")
        s["neuron"] = 0                                 # a live neuron
    return [regroup_output, regroup_offset, regroup_t, insert_weight, insert_bias, remove_index]


@pytest.mark.parametrize("mutate", _leaf_mutations())
@pytest.mark.parametrize("checkpoints", [True, False])
def test_mutated_split_and_dead_steps_fail_in_both_replays(mutate, checkpoints):
    import random
    rng = random.Random(11)
    a = _arrays_net(rng, (3, 4, 2))
    b = _with_arrays(_planted(a, rng, True, True))
    if mutate.__name__ == "remove_index":
        a, b = b, a                                     # the dead neuron is removed from a
    c = array_merge_certificate(a, b)
    assert check(c)[0] is True
    c = copy.deepcopy({k: v for k, v in c.items() if k not in ("a", "b")}) | {"a": a, "b": b}
    mutate(c)
    if not checkpoints:
        c.pop("checkpoints")
    for variant in (c, _flint(c)):
        ok, why = check(variant)
        assert ok is False, why


def test_composite_inverse_of_a_regroup_replays_on_arrays():
    import random
    a = _arrays_net(random.Random(5), (2, 3, 2))
    start = a.with_parameter("W2[0,0]", 1).with_parameter("W2[1,0]", 2)
    u, beta = a.weights[0].to_rows()[0], a.biases[0][0]
    split = Regroup(0, [([0], u, beta, [(Q(1, 3), [Q(1), Q(2)]), (Q(2, 3), [Q(1), Q(2)])])])
    mid = split.apply(start)
    inv = split.inverse(start)                     # composite: regroup then permute
    assert inv.name == "composite"
    arrays = replay_path(mid, [inv], view=array_view(mid, convert=True))
    _, digests = _flint_path_digests(mid, [inv])
    assert arrays[0][0] and arrays[0][3] == digests[0] == network_digest(start)
