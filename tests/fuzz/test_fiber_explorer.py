"""Bounded sample of the numerical fiber explorer (``tests/fuzz/fiber_explorer.py``): the
numerical local fiber dimension against R17 and no candidate hidden symmetry on two n1 = 2 nets
(three-layer-fibers R15 last paragraph, R17)."""

from fractions import Fraction as F

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("scipy")

from semialgebraic import fiber  # noqa: E402
from tests.fuzz.fiber_explorer import (classify, explore, netfibers_view, normalised,  # noqa: E402
                                       shapes, to_network)

# 2-2-2-1, every row (− − | +): the pattern of S8 (R15) with n1 = 2; netfibers: identifiable
MINUS_PLUS = [([[F(1), F(2)], [F(-1), F(1)]], [F(1), F(-1, 2)]),
              ([[F(-1), F(-2)], [F(-3, 2), F(-1, 2)]], [F(2), F(3)]), ([[F(1), F(-2)]], [F(1)])]
# 3-2-2-1, masked column 0 (rows (+ − | −), ratios −1/2 and −2/3: S6, no S7)
MASKED = [([[F(1), F(2), F(0)], [F(-1), F(1), F(1)]], [F(1), F(-1, 2)]),
          ([[F(2), F(-1)], [F(3), F(-2)]], [F(-1), F(-2)]), ([[F(1), F(-2)]], [F(1)])]


def test_explorer_sample_dimension_and_no_candidate():
    for layers, ident, r17 in ((MINUS_PLUS, True, 4), (MASKED, False, 5)):
        assert netfibers_view(layers) == (True, None, ident, r17)
        fib = fiber(to_network(layers))
        num_dim, out, cands = explore(layers, np.random.default_rng(0), starts=2, flipped=12,
                                      fib=fib)
        assert num_dim == r17
        assert cands == []
        assert sum(v for k, v in out.items() if k != "not converged") >= 1


def test_classify_known_moves():
    """An S1 + S2 image is in the orbit; the S7 flip (R14) of a masked net with one row is
    'known'; a first-layer flip without a masked column is a candidate."""
    shp = shapes(2, 2, 1, 1)
    theta = np.array([1., 2., -1., 1., 1., -.5, 2., -1., -1., 1., 1.])   # row (+ − | −): masked 0
    ref = normalised(theta, shp)
    img = theta.copy()
    img[[0, 1, 4]] *= 3
    img[6] /= 3                                                            # S2 on neuron 0
    assert classify(ref, normalised(img, shp), 2, 1) == "orbit"
    s7 = theta.copy()
    s7[[2, 3, 5]] *= -1                                                    # flip neuron 1 …
    s7[[0, 1, 4]] += (-1 / 2) * theta[[2, 3, 5]]                          # … shear neuron 0
    assert classify(ref, normalised(s7, shp), 2, 1) == "known"
    bad = np.array([1., 2., -1., 1., 1., -.5, -1., 2., 1., 1., 1.])        # row (− + | +)
    flipped = bad.copy()
    flipped[[2, 3, 5]] *= -1
    assert classify(normalised(bad, shp), normalised(flipped, shp), 2, 1).startswith("candidate")
