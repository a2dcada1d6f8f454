"""Issue 18, part 4, skip-absorption side: R4 (singular skip), R10 (uniqueness of the absorbing
block), R19 (ReLU blocks with biases, [derived]) and R20 (stacks of absorbable blocks composed),
each value checked against an independent oracle (exact evaluation, brute force over every S).
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction
from pathlib import Path

from algebra.blocks import Block, BlockStack
from algebra.io.blocks import block_from_dict
from algebra.linalg import QMatrix
from semialgebraic.absorption import absorbable
from semialgebraic.absorption.uniqueness import absorbing_blocks
from semialgebraic.verify import verify

EX = Path(__file__).resolve().parents[2] / "algebra" / "examples"


def _points(d, n=30, seed=1, lo=-4, hi=4):
    rng = random.Random(seed)
    return [[Fraction(rng.randint(lo * 30, hi * 30), 30) for _ in range(d)] for _ in range(n)]


def _block_eq(a, b, d):
    return all(a(x) == b(x) for x in _points(d, n=30))


def test_skip_absorption_R4_singular_skip():
    # M = a_0 w_0ᵀ-style rank-1 skip: S = {0} gives W_down[:,S] W_up[S,:] = -M (R4, derived)
    up = [[1, 2], [1, -1], [2, 1]]
    down = [[-1, 1, 1], [-2, 1, -1]]
    M = QMatrix.from_rows([[1, 2], [2, 4]])
    assert M.det() == 0
    b = Block("relu", up, down, skip=M)
    v = absorbable(b)
    assert v.answer is True and "[derived]" in v.method and v.details["all_S"] == [[0]]
    g = block_from_dict(v.certificate["witness"]["absorbing_block"])
    assert _block_eq(b, g, 2)
    # no flip set for another singular skip: answer no, with a certificate
    v = absorbable(Block("relu", up, down, skip=QMatrix.from_rows([[1, 0], [0, 0]])))
    assert v.answer is False and verify(v.certificate)[0]


def _brute_S(b):
    k, d = b.k, b.d
    M = b.skip_matrix
    return [list(S) for n in range(k + 1) for S in itertools.combinations(range(k), n)
            if (b.w_down.submatrix(cols=list(S)) @ b.w_up.submatrix(rows=list(S)) if S
                else QMatrix.zeros(d, d)) == -M]


def test_skip_absorption_R10_all_absorbing_blocks():
    b = Block("relu", [[1, 0], [0, 1], [1, 1], [1, -1]], [[-1, 0, "-1/2", "-1/2"], [0, -1, "-1/2", "1/2"]])
    v = absorbing_blocks(b)
    assert v.answer is True and v.details["all_S"] == _brute_S(b) == [[0, 1], [2, 3]]
    assert v.details["count"] == 2 and verify(v.certificate)[0]
    blocks = [block_from_dict(g) for g in v.details["absorbing_blocks"]]
    assert all(_block_eq(b, g, 2) for g in blocks)
    # the two are different parameters (not related by permutation and positive scaling)
    assert blocks[0].w_up != blocks[1].w_up
    # none: a nondegenerate block with no flip set has an empty (complete) list
    c = absorbing_blocks(Block("relu", [[1, 0], [0, 1]], [[1, 0], [0, 1]]))
    assert c.answer is True and c.details["count"] == 0 and verify(c.certificate)[0]
    # degenerate (N2 fails): R10 does not apply, nothing claimed
    assert absorbing_blocks(Block("relu", [[1, 0], [-1, 0], [0, 1]], [[1, 3, 0], [2, -1, -1]])).answer is None


def test_skip_absorption_R20_stack_of_absorbable_blocks():
    A = Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]])
    stack = BlockStack([A, A])
    v = absorbable(stack)
    assert v.answer is True and v.certificate["witness"]["kind"] == "per_block"
    gs = [block_from_dict(w["absorbing_block"]) for w in v.certificate["witness"]["blocks"]]
    composed = BlockStack(gs)
    assert _block_eq(stack, composed, 2)
    stack_file = block_from_dict(json.loads((EX / "block_relu_stack_flips.json").read_text()))
    assert absorbable(stack_file).answer is True
    # one block not absorbable: still the open problem (exit 3), nothing claimed
    v = absorbable(BlockStack([A, Block("relu", [[1, 0], [0, 1]], [[1, 0], [0, 1]])]))
    assert v.answer is None and v.method == "open problem (R20)"
    # a per-block witness that does not fit its block is rejected
    yes = json.loads(json.dumps(absorbable(stack).certificate))
    yes["witness"]["blocks"][1]["S"] = [0]
    assert verify(yes)[0] is False


def test_skip_absorption_R19_relu_biases_decided_against_biased_competitor():
    # [derived] (skip-absorption R19): with (w_i, b_i) pairwise non-collinear, w_i != 0, a_i != 0,
    # a ReLU block with biases equals a width-k ReLU block with biases iff some S has
    # W_down[:,S] W_up[S,:] = -M; the constant is matched by b'_down
    up, down = [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]
    b = Block("relu", up, down, b_up=[1, -2, 3], b_down=[1, 1])
    v = absorbable(b)
    assert v.answer is True and "R19" in v.certificate["competitor"]
    g = block_from_dict(v.certificate["witness"]["absorbing_block"])
    assert g.skip == "none" and _block_eq(b, g, 2)
    v = absorbable(Block("relu", [[1, 0], [0, 1]], [[1, 0], [0, 1]], b_up=[1, 2]))
    assert v.answer is False and verify(v.certificate)[0]
