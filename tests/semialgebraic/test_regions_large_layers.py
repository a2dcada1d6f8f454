"""The region walk's set-up on wide layers runs under its budget (input audit, session 35: a
4000-4000-1 float64 net in an .npz ran `regions --timeout 5` for minutes — 27 s converting its
layers to integers entry by entry, then one int64 product of 6.4e10 multiply-adds for the first
region's forms; now 7 s, most of it reading the file)."""

from __future__ import annotations

import numpy as np
import pytest

from algebra.network import Network
from semialgebraic.budget import Budget, BudgetExhausted
from semialgebraic.regions import walk as walk_module
from semialgebraic.regions import regions


def test_int64_products_by_blocks_check_the_budget(monkeypatch):
    rng = np.random.default_rng(1)
    W, F = rng.integers(-9, 9, (7, 5)), rng.integers(-9, 9, (5, 6))
    monkeypatch.setattr(walk_module, "_CHUNK_WORK", 40)       # blocks of one row
    assert walk_module._int64_product(W, F).tolist() == (W @ F).tolist()
    with Budget(timeout=0).active():
        with pytest.raises(BudgetExhausted):
            walk_module._int64_product(W, F)


def test_the_engine_is_built_under_the_walks_budget(monkeypatch):
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])

    def slow(*a, **k):
        walk_module.checkpoint()
        raise AssertionError("the budget was not active")
    monkeypatch.setattr(walk_module, "_Engine", slow)
    walk = regions(net, timeout=0)
    assert list(walk) == [] and not walk.complete
    assert walk.budget.reason == "timeout of 0 s reached"


def test_float_layers_give_the_same_integer_layers_as_the_rationals():
    """The reader's int64 arrays over a power of two, reduced, are QMatrix.numer_denom's."""
    from algebra.linalg import QMatrix
    from algebra.rationals import Q
    rng = np.random.default_rng(0)
    for _ in range(100):
        n, m = (int(v) for v in rng.integers(1, 6, 2))
        N = rng.integers(-2 ** 30, 2 ** 30, (n, m)) * 2 ** int(rng.integers(0, 5))
        D = 2 ** int(rng.integers(0, 20))
        bias = [Q(int(rng.integers(-50, 50)), int(rng.choice([1, 2, 3, 8, 1024]))) for _ in range(n)]
        W = QMatrix.from_rows([[Q(int(x), D) for x in r] for r in N])
        a, b = walk_module._int_layer((N, D), bias), walk_module._int_layer(W, bias)
        assert a[2] == b[2] and a[0].tolist() == b[0].tolist() and a[1].tolist() == b[1].tolist()


def test_one_layer_classification_and_the_float32_comparison_check_the_budget(monkeypatch):
    """dim --timeout 5 of a 4000-4000-1 net (every row on one hyperplane) took 46-63 s: the
    one-hidden-layer classification hashed 16 M exact keys, then the sandwich's set-up walked
    every parameter; equiv of it with itself 27 s in the float32 comparison's exact groups.
    Now the classification checks the budget (probe keys, exact ones only inside a bucket), a
    spent budget above SPENT_AT_ONCE parameters returns [0, N] at once, and the exact groups
    check it too."""
    from semialgebraic.dimension import functional as F
    from semialgebraic.dimension.one_layer import one_layer_kernel
    net = Network.from_rows([[[1, 2], [2, 4], [-1, -2], [1, 0]], [[1, 1, 1, 1]]],
                            [[1, 2, -1, 0], [0]])
    kernel, counts = one_layer_kernel(net, None)
    assert counts["split"] == 3 and counts["opposite"] == 3 and counts["scalings"] == 1
    with Budget(timeout=0).active():
        with pytest.raises(BudgetExhausted):
            one_layer_kernel(net, None)
    monkeypatch.setattr(F, "SPENT_AT_ONCE", 1)
    monkeypatch.setattr(F, "ONE_LAYER_FROM", 1)
    fd = F.functional_dimension(net, timeout=0)
    assert (fd.lower, fd.upper) == (0, net.n_parameters)
    assert fd.reason.startswith("not closed: timeout of 0 s reached while R38/R39 classified")
