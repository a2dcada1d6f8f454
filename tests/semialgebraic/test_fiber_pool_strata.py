"""Three-layer-fibers R16c: for n1 ≥ 2 the fiber lists the strata where dead and linear rows
exchange type under S5 (known gap (iv) after R17).  Random generic n1 = 2 nets with planted
dead, linear and one-sign switching rows: every listed stratum's representative computes the
same function (exact, verified certificate), its stated dimension is FIBDIM (R22) there, and for
m = 1 the listed labels (F, n_L') are those of an independent count (κ₊ of a 1×2 matrix is 1 if
its entries have one strict sign, 2 if mixed, 0 if it is 0)."""

from itertools import combinations

import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import equivalent, fiber, verify
from semialgebraic.bottleneck import dimension_formula, jacobian_dimension
from semialgebraic.bottleneck._structure import is_generic, structure
from semialgebraic.exceptions import NonGenericError

SIGNS = {"minus": (-1, -1, 1), "plus": (1, 1, -1), "mixed": (1, -1, -1), "dead": (-1, -1, -1),
         "linear": (1, 1, 1)}


@st.composite
def planted(draw, m_values=(1, 2)):
    """d = n1 = 2; rows of the given types with small rational entries of the planted signs."""
    val = st.builds(lambda a, b: Q(a, b), st.integers(1, 8), st.integers(1, 4))
    m = draw(st.sampled_from(m_values))
    kinds = draw(st.lists(st.sampled_from(sorted(SIGNS)), min_size=2, max_size=4))
    W1 = [[draw(st.integers(-3, 3)) for _ in range(2)] for _ in range(2)]
    b1 = [draw(st.integers(-3, 3)) for _ in range(2)]
    rows = [[s * draw(val) for s in SIGNS[k]] for k in kinds]
    W3 = [[draw(val) * draw(st.sampled_from((-1, 1))) for _ in kinds] for _ in range(m)]
    b3 = [draw(st.integers(-2, 2)) for _ in range(m)]
    return Network.from_rows([W1, [r[:2] for r in rows], W3], [b1, [r[2] for r in rows], b3])


def _oracle_labels(net):
    """m = 1: the pairs (F, n_L') of R16c, computed here from the rows directly."""
    s = structure(net)
    W2, b2 = net.layer(1)
    V = net.layer(2)[0].to_rows()[0]
    A = [j for j, t in enumerate(s.types) if t == "switching"]
    L = [j for j, t in enumerate(s.types) if t == "linear"]
    pool = len(s.types) - len(A)
    out = set()
    for k in range(len(A) + 1):
        for F in combinations(A, k):
            g = [sum((V[j] * W2[j, i] for j in L + list(F)), Q(0)) for i in range(2)]
            if g == [0, 0]:
                out.add((F, 0))
                continue
            kappa = 1 if (g[0] > 0 and g[1] > 0) or (g[0] < 0 and g[1] < 0) else 2
            out |= {(F, nl) for nl in range(kappa, pool + 1)}
    return out


def _check(net, oracle):
    try:
        F = fiber(net)
    except NonGenericError:        # e.g. R17 != FIBDIM at θ: three bent lines through one point
        assume(False)
    if F.partial:           # only when a first-layer hyperplane shows no kink where tested
        assert all("no visible kink" in n or "known gap (iv)" in n for n in F.notes)
        oracle = False
    else:
        assert F.notes == []
    nL = len(structure(net).linear)
    for c in F.components:
        rep = c.representative if c.representative is not None else net
        assert c.contains(rep.parameters())
        assert dimension_formula(rep).value == jacobian_dimension(rep) == c.dimension.value
        assert c.generator_rank == c.dimension.value
        v = equivalent(net, rep)
        assert v.answer is True and verify(v.certificate)[0]
    assert F.dimension.value == max(c.dimension.value for c in F.components)
    if oracle:
        got = {(tuple(c.label["flips"]), c.label.get("linear", nL)) for c in F.components}
        assert got == _oracle_labels(net)
    return F


def _usable(net):
    s = structure(net)
    return (is_generic(net) and s.masked is None and "dead" in s.types
            and any(t != "dead" for t in s.types))


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(planted(m_values=(1,)))
def test_planted_dead_rows_every_stratum_checked(net):
    assume(_usable(net))
    _check(net, oracle=True)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(planted())
def test_planted_dead_rows_every_stratum_checked_more(net):
    assume(_usable(net))
    _check(net, oracle=net.layer(2)[0].nrows == 1)


def test_linear_rows_only_one_can_die():
    """Three linear rows, m = 1, Γ = (−1, 2) (κ₊ = 2, R6): R16c lists n_L' = 3 (the net) and
    n_L' = 2 with one dead row, both of dimension 12 (R11: same dimension), each checked."""
    net = Network.from_rows([[[1, 2], [-1, 1]], [[1, 2], [2, 1], [1, 1]], [[1, -2, 2]]],
                            [[1, -1], [1, 2, 3], [0]])
    F = _check(net, oracle=True)
    assert not F.partial
    assert sorted((c.label["linear"], c.label["dead"], c.dimension.value) for c in F.components) \
        == [(2, 1, 12), (3, 0, 12)]
    assert F.number_of_strata == 2 * 6 // 2 + 2 * 6 // 6 == 8
