"""Session 39: ``dim`` of a 784-512-512-10 net with ``--timeout 60`` sampled no input (the walk's
gradients were full Jacobians, 0.12 s each; 64 walked bases of R^784 asked 50 176 exact patterns
in one flint product per layer) and overran the budget.  The gradient is now one row carried back,
the patterns are taken in chunks between budget checks, and at most SIMPLEX_POINTS extra points
are made per round."""

from __future__ import annotations

import numpy as np

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import sampling


def _full_jacobian_row(Ws, bs, x, layer, k):
    h, J = x, np.eye(len(x))
    for l in range(layer + 1):
        z = Ws[l] @ h + bs[l]
        Jz = Ws[l] @ J
        on = z > 0
        h, J = np.where(on, z, 0.0), Jz * on[:, None]
    return float(z[k]), Jz[k]


def test_pre_and_grad_is_the_jacobian_row():
    rng = np.random.default_rng(39)
    Ws = [rng.normal(size=(7, 5)), rng.normal(size=(6, 7)), rng.normal(size=(4, 6)), rng.normal(size=(2, 4))]
    bs = [rng.normal(size=w.shape[0]) for w in Ws]
    for _ in range(20):
        x = rng.normal(size=5)
        for layer, k in ((0, 3), (1, 5), (2, 0), (3, 1)):
            z, g = sampling._pre_and_grad(Ws, bs, x, layer, k)
            z0, g0 = _full_jacobian_row(Ws, bs, x, layer, k)
            assert abs(z - z0) <= 1e-12 * (1 + abs(z0))
            assert np.allclose(g, g0, rtol=1e-12, atol=1e-12)


def test_patterns_in_chunks_equal_one_product():
    net = Network.from_rows([[[1, -2], [3, 1], [-1, -1]], [[1, 1, -1], [2, -1, 0]], [[1, 1]]],
                            [[0, -1, 1], [1, 0], [0]])
    rng = np.random.default_rng(1)
    pts = [tuple(Q(int(v), 7) for v in rng.integers(-20, 20, size=2)) for _ in range(50)]
    assert sampling._patterns(net, pts, chunk=8) == sampling._patterns(net, pts, chunk=10 ** 6)
    assert sampling._patterns(net, pts)[0] == sampling._patterns(net, pts[:1])[0]


def test_exact_points_caps_the_simplex_points(monkeypatch):
    net = Network.from_rows([[[1, 0, 0], [0, 1, 0]], [[1, 1]]], [[0, 0], [0]])
    U = np.array([[0.5, 0.25, 0.125], [0.75, 0.5, 0.25], [0.25, 0.75, 0.5], [0.5, 0.5, 0.5]])
    monkeypatch.setattr(sampling, "SIMPLEX_POINTS", 6)          # 6 // d = 2 bases expanded
    out = sampling._exact_points(net, None, U, [0, 1, 2, 3], pool=1)
    assert len(out) == 4 + 2 * 3
    monkeypatch.setattr(sampling, "SIMPLEX_POINTS", 4096)
    assert len(sampling._exact_points(net, None, U, [0, 1, 2, 3], pool=1)) == 4 + 3 * 3


def test_no_walk_above_the_first_layer_bound(monkeypatch):
    """Without --max-regions, dim does not walk when the first layer alone may cut the domain
    into more than WALK_SKIP_ABOVE regions (2^512 for a 784-512-512-10 net, whose walk took 30 %
    of the budget and found no region); the answer stays a certified interval around the value."""
    from semialgebraic.dimension import functional as F
    from semialgebraic.dimension import functional_dimension
    net = Network.from_rows([[[1, -2], [3, 1], [-1, -1]], [[1, 1, -1], [2, -1, 1]], [[1, 1]]],
                            [[0, -1, 1], [1, 0], [0]])
    walked = functional_dimension(net, domain=(-1, 1), max_regions=None)   # (as the CLI calls it)
    monkeypatch.setattr(F, "WALK_SKIP_ABOVE", 0)
    skipped = functional_dimension(net, domain=(-1, 1), max_regions=None, timeout=30)
    assert walked.exact and walked.work["regions_walked"] > 0
    assert skipped.work["regions_walked"] == 0
    assert skipped.lower <= walked.value <= skipped.upper
