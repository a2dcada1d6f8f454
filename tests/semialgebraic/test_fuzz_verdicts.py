"""A bounded sample of the verdict fuzzer (``tests/fuzz/verdicts.py``): shallow equivalence,
bottleneck CANON / identify under broken hypotheses, fiber members, functional dimension,
conservation laws and skip absorption, each against an oracle written in the fuzzer (no code
shared with the deciders); and the oracles themselves on known answers (so that they can fail).
Longer sweeps: ``nice -n 15 python -m tests.fuzz.verdicts --seed S --count N --kind K``."""

import random
from fractions import Fraction

import pytest

from algebra.network import Network
from tests.cases.certificates import DEEP_A, SHALLOW_A, SHALLOW_B
from tests.fuzz import verdicts as fz

pytest.importorskip("z3")


@pytest.mark.parametrize("kind, count", [("shallow", 40), ("bottleneck", 12), ("absorb", 40),
                                         ("fiber", 10), ("dim", 6), ("conserved", 3)])
def test_fuzz_verdicts_sample(kind, count):
    stats, failures = fz.KINDS[kind](20261202, count, verbose=False)
    assert stats["cases"] == count
    assert failures == []


# -- the oracles on known answers --------------------------------------------------------------
def test_shallow_oracle_known_pairs():
    assert fz.shallow_equivalent_oracle(SHALLOW_A, SHALLOW_B) is True      # permuted, rescaled
    assert fz.shallow_equivalent_oracle(SHALLOW_A, SHALLOW_A.with_parameter("b1[2]", 0)) is False
    # relu(x) - relu(-x) = x = relu(2x)/2 - relu(-x): different neurons, same function
    a = Network.from_rows([[[1], [-1]], [[1, -1]]], [[0, 0], [0]])
    b = Network.from_rows([[[2], [-1]], [["1/2", -1]]], [[0, 0], [0]])
    assert fz.shallow_equivalent_oracle(a, b) is True
    assert fz.shallow_equivalent_oracle(a, b.with_parameter("W2[0,0]", "1/3")) is False


def test_jacobian_rank_known_values():
    # DEEP_A (2-2-2-1): 15 parameters, 4 hidden scalings, functional dimension 11 (dim agrees)
    assert fz.jacobian_rank(DEEP_A, random.Random(0), n_lines=20) == 11
    # a neuron with a zero row and zero bias feeding the output: no differentiable input at all
    zero = Network.from_rows([[[0]], [[3]]], [[0], [5]])
    assert fz.jacobian_rank(zero, random.Random(0)) == 0


def test_block_oracle_and_d1_rule():
    up, down = [[Fraction(1)], [Fraction(-1)]], [[Fraction(-1), Fraction(0)]]
    # x - relu(x) = -relu(-x): absorbable by the one-unit block -relu(-x)
    assert fz.block_decomposition(up, down, True) == \
        fz.block_decomposition([[Fraction(-1)], [Fraction(0)]], [[Fraction(-1), Fraction(0)]], False)
    assert fz.block_decomposition(up, down, True) != fz.block_decomposition(up, down, False)


def test_mutated_certificates_are_judged():
    from semialgebraic import equivalent
    v = equivalent(SHALLOW_A, SHALLOW_B)
    stats, failures = {}, []
    fz.check_certificate(random.Random(1), v, stats, failures, "t", mutations=20)
    assert failures == [] and stats["mutations"] == 20
    # a claim the oracle refutes is reported
    cert = dict(v.certificate, b=SHALLOW_A.with_parameter("b1[2]", 0).to_dict())
    assert fz._claim_holds(cert) is False


def test_s1s2_form_sees_only_permutations_and_scalings():
    from tests.cases.bottleneck import T5a, T5b, T7a, T7b
    from tests.cases.general import planted_copy
    rng = random.Random(0)
    for _ in range(20):
        a = fz.random_bottleneck(rng)
        assert fz.s1s2_form(a) == fz.s1s2_form(planted_copy(rng, a))
        assert fz.s1s2_form(a) != fz.s1s2_form(a.with_parameter("b3[0]", 77))
    assert fz.s1s2_form(T5a) == fz.s1s2_form(T5b)            # permuted and rescaled
    assert fz.s1s2_form(T7a) != fz.s1s2_form(T7b)            # a sign flip, not S1/S2
