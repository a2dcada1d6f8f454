"""The identifiability certificate (three-layer-fibers R18) is re-checked independently."""

import copy

import pytest

from algebra import load
from semialgebraic import identifiability, verify

EX = "algebra/examples/"


def _cert(path):
    v = identifiability(load(EX + path))
    assert v.answer is True
    return v.certificate


def test_identifiable_certificate_verifies():
    ok, why = verify(_cert("t5_perm_scale_a.json"))
    assert ok and "R18" in why


@pytest.mark.parametrize("mutation, expected", [
    (lambda c: (c["network"]["layers"][1]["bias"].__setitem__(0, -5),
                c["network"]["layers"][1]["weight"].__setitem__(0, [-1, -2])), "all-negative"),
    (lambda c: c["network"]["layers"][1]["weight"][0].__setitem__(0, 0), "G2"),
    (lambda c: c.__setitem__("fiber_dimension", 5), "fiber dimension"),
    (lambda c: c["network"]["layers"][0].__setitem__("weight", [[1, 2], [2, 4]]), "G1"),
    (lambda c: c["network"]["layers"][2]["weight"][0].__setitem__(1, 0), "G3"),
])
def test_mutated_identifiability_certificate_is_rejected(mutation, expected):
    cert = copy.deepcopy(_cert("t5_perm_scale_a.json"))
    mutation(cert)
    ok, why = verify(cert)
    assert not ok and expected in why


def test_not_identifiable_network_certificate_is_a_verified_path():
    v = identifiability(load(EX + "masked_bottleneck.json"))
    assert v.answer is False
    assert verify(v.certificate)[0]
    # the planted copy is a different parameter (with the same function, by the verified path)
    from algebra.io.native import network_from_dict
    assert network_from_dict(v.details["planted_copy"]) != load(EX + "masked_bottleneck.json")
