"""``absorbable`` on one-dimensional blocks against a closed formula (breakpoints and slopes of
x ↦ s x + Σ V_i σ(W_i x + b_i) + c), sharing no code with the decision; every certificate
passes ``verify``."""

import itertools
import random

import pytest

from algebra.blocks import Block
from algebra.rationals import Q
from semialgebraic import absorbable, verify


def _absorbable_1d(s, W, V, b, c, biases):
    """d = 1 ReLU block x ↦ s x + Σ V_i σ(W_i x + b_i) + c against width-k residual-free ReLU
    blocks (with biases iff the block has any): decided by the breakpoints and slopes."""
    k = len(W)
    if not biases:
        right = s + sum((V[i] * W[i] for i in range(k) if W[i] > 0), Q(0))
        left = s + sum((V[i] * W[i] for i in range(k) if W[i] < 0), Q(0))
        return k >= (right != 0) + (left != 0)
    kinks = {}
    for i in range(k):
        if W[i] != 0:
            p = -b[i] / W[i]
            kinks[p] = kinks.get(p, Q(0)) + V[i] * abs(W[i])
    jumps = [j for j in kinks.values() if j != 0]
    left = s + sum((V[i] * W[i] for i in range(k) if W[i] < 0), Q(0))
    if len(jumps) > k:
        return False
    if len(jumps) == k and k > 0:       # one neuron per kink: left slope = -Σ_{S} jump
        return any(left == -sum((jumps[j] for j in S), Q(0))
                   for r in range(k + 1) for S in itertools.combinations(range(k), r))
    if jumps:
        return True                       # a spare neuron splits a kink: any left slope
    return left == 0 or k >= 2            # affine: a pair σ(z) - σ(-z) carries the slope


@pytest.mark.parametrize("seed", range(40))
def test_absorbable_one_dimensional_blocks_by_formula(seed):
    rng = random.Random(seed)

    def q():
        t = rng.random()
        return Q(0) if t < 0.25 else Q(rng.randint(-3, 3)) if t < 0.7 else Q(rng.randint(-5, 5), rng.randint(1, 4))
    k = rng.randint(1, 4)
    W, V = [q() for _ in range(k)], [q() for _ in range(k)]
    skip = rng.choice(["identity", "none", "matrix"])
    s = {"identity": Q(1), "none": Q(0), "matrix": q()}[skip]
    biases = seed % 2 == 0
    b = [q() for _ in range(k)] if biases else None
    c = [q()] if biases else None
    if biases and k > 1 and rng.random() < 0.4:          # two units on one kink
        W[1], b[1] = W[0], b[0]
    block = Block("relu", [[w] for w in W], [V], skip=[[s]] if skip == "matrix" else skip,
                  b_up=b, b_down=c)
    v = absorbable(block, timeout=30)
    assert v.answer is _absorbable_1d(s, W, V, b or [Q(0)] * k, (c or [Q(0)])[0], biases)
    assert verify(v.certificate)[0] is True
