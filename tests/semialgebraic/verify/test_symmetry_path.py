"""``symmetry_path`` and shallow ``counterexample`` certificates: accepted when right, rejected
with a reason when any bound field is mutated so that the claim breaks."""

import copy
import random

import pytest

from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries import apply_path
from algebra.symmetries.elementary import Permute, Scale
from algebra.symmetries.moves import Regroup
from semialgebraic.shallow import equivalent_shallow
from semialgebraic.verify import check_inputs_match, verify
from tests.cases.certificates import EXAMPLES, replaced

A = Network.from_rows([[[1, 2], [-1, 1], [2, -3]], [[1, -2, 3]]], [[1, 0, -1], [0]])
# split copy (n0), a flip compensated by an antiparallel partner (n1), then scaled and permuted
_STEPS = [Regroup(0, [([0], [1, 2], 1, [(2, ["1/4"]), (1, ["1/2"])]),
                      ([1], [-1, 1], 0, [(-1, [1]), (1, [-2]), (-1, [-1])])]),
          Scale(0, [3, "1/2", 2, 5, 1, "2/3"]),
          Permute(0, [5, 3, 0, 1, 4, 2])]
B = apply_path(A, _STEPS)


def _cert(a, b, orthant=False):
    v = equivalent_shallow(a, b, orthant=orthant)
    return v


def test_reference_pair_is_equivalent_and_path_verifies():
    v = _cert(A, B)
    assert v.answer is True, v.reason
    ok, why = verify(v.certificate)
    assert ok and "carry a exactly to b" in why


def _paths():
    v = _cert(A, B)
    assert v.answer is True
    return v.certificate


@pytest.mark.parametrize("mutate, reason", [
    (lambda c: c["a"]["layers"][0]["weight"][0].__setitem__(0, 3), ""),
    (lambda c: c["b"]["layers"][1]["bias"].__setitem__(0, "1/7"), "differing from b"),
    (lambda c: c["b"]["layers"][0]["weight"][1].__setitem__(1, 5), ""),
    (lambda c: c["steps"].pop(), "removed"),
    (lambda c: c["checkpoints"].__setitem__(0, "0" * 16), "checkpoint"),
    (lambda c: c["steps"].insert(0, {"step": "S2", "layer": 0, "factors": [2, 1, 1]}), ""),
    (lambda c: (c["steps"].insert(0, {"step": "remove_neuron", "layer": 0, "neuron": 0}),
                c.pop("checkpoints")), "invalid step"),
])
def test_mutated_symmetry_path_is_rejected(mutate, reason):
    cert = copy.deepcopy(_paths())
    mutate(cert)
    ok, why = verify(cert)
    assert not ok and reason in why, why


def test_mutating_each_step_number_breaks_or_is_refused():
    base = _paths()
    rejected = 0
    total = 0
    for k, step in enumerate(base["steps"]):
        for key in ("factors", "bias_change"):
            if step.get(key):
                cert = copy.deepcopy(base)
                vals = cert["steps"][k][key]
                vals[0] = "17/3"
                total += 1
                ok, why = verify(cert)
                rejected += not ok
                assert not ok, (k, key)
                assert why
    assert total >= 1 and rejected == total


def test_orthant_steps_need_an_orthant_claim():
    t = Network.from_rows([[[1, -1], [3, 4]], [[1, 1]]], [[-1, 1], [0]])
    t2 = Network.from_rows([[[-1, 1], [4, 3]], [[1, 1]]], [[1, 1], [-1]])
    v = _cert(t, t2, orthant=True)
    assert v.answer is True and verify(v.certificate)[0]
    cert = copy.deepcopy(v.certificate)
    cert["domain"] = None
    ok, why = verify(cert)
    assert not ok and "orthant only" in why
    cert["domain"] = {"sphere": True}
    with pytest.raises(InputError):
        verify(cert)


@pytest.mark.parametrize("field, value, reason", [
    ("x", None, "claimed a(x)"),
    ("a_x", ["123"], "claimed a(x)"),
    ("b_x", ["123"], "claimed b(x)"),
])
def test_mutated_counterexample_is_rejected(field, value, reason):
    b2 = B.with_parameter("b2[0]", Q(1, 10 ** 6))
    v = _cert(A, b2)
    assert v.answer is False
    cert = copy.deepcopy(v.certificate)
    assert verify(cert)[0]
    if field == "x":
        cert["x"] = [str(Q(cert["x"][0]) + 1) if isinstance(cert["x"][0], int)
                     else cert["x"][0] + "1", cert["x"][1]]
        ok, why = verify(cert)
        # a shifted point is usually no counterexample or the claimed values no longer match
        assert not ok
        return
    cert[field] = value
    ok, why = verify(cert)
    assert not ok and reason in why, why


def test_counterexample_weight_mutation_breaks_claim():
    b2 = B.with_parameter("b2[0]", Q(1, 10 ** 6))
    cert = copy.deepcopy(_cert(A, b2).certificate)
    cert["b"]["layers"][1]["bias"][0] = 0            # b becomes equivalent to a again
    ok, why = verify(cert)
    assert not ok and "b(x)" in why


def test_malformed_certificates_raise_input_error():
    with pytest.raises(InputError):
        verify({"type": "symmetry_path", "a": A.to_dict()})
    cert = copy.deepcopy(_paths())
    cert["steps"] = [{"step": "warp"}]
    with pytest.raises(InputError):
        verify(cert)
    cert["steps"] = "no"
    with pytest.raises(InputError):
        verify(cert)


def test_check_inputs_match():
    cert = _paths()
    assert check_inputs_match(cert, {"a": A, "b": B})[0]
    assert not check_inputs_match(cert, {"a": B, "b": A})[0]


def test_random_certificates_roundtrip_and_break():
    rng = random.Random(5)
    for _ in range(10):
        a = Network([[[Q(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(2)] for _ in range(3)],
                     [[Q(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(3)]]],
                    [[Q(rng.randint(-3, 3)) for _ in range(3)], [Q(0)]])
        perm = [2, 0, 1]
        b = Network([[list(a.weights[0].row_at(p)) for p in perm],
                     [[a.weights[1][0, p] for p in perm]]],
                    [[a.biases[0][p] for p in perm], list(a.biases[1])])
        v = _cert(a, b)
        assert v.answer is True and verify(v.certificate)[0]
        cert = copy.deepcopy(v.certificate)
        cert["b"]["layers"][1]["bias"][0] = 1
        assert not verify(cert)[0]


# -- a step parameter that is not a number -------------------------------------------------------
def test_bad_number_in_a_step_is_input_error():
    """A step parameter that is not a number (ParseError / InexactInputError from the step
    parser) is a malformed certificate."""
    from semialgebraic.bottleneck import identifiability
    from algebra.io import load
    cert = identifiability(load(str(EXAMPLES / "t10_masked.json"))).certificate
    steps = [i for i, s in enumerate(cert.get("steps", [])) if "t" in s]
    assert cert["type"] == "symmetry_path" and steps
    for value in ("x", "1/0", "nan", 0.5, True, None, [1]):
        with pytest.raises(InputError):
            verify(replaced(cert, ("steps", steps[0], "t"), value))
