"""Fibers with one first-layer neuron: every stratum of three-layer-fibers R16a, planted nets with
hand-derived strata, dimensions and glued component counts (R16a g1-g3)."""

import itertools
from fractions import Fraction

import pytest

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import fiber
from semialgebraic.bottleneck.fibdim import jacobian_dimension

# F(t) = min(relu(t), 1): switching row + linear row; the (visible | clipped, dead) stratum has
# dimension 5 > 4, the local dimension at this net (its linear part Γ vanishes: no linear row)
RAMP = Network.from_rows([[[1]], [[1], [1]], [[-1, 1]]], [[0], [-1, 1], [-1]])
# two outputs, d = 2: three kink rows or two and a linear row (S5 types), no dead row
MULTI = Network.from_rows([[[1, 2]], [[1], [-1], [2]], [[-1, 1, 3], [2, 1, 1]]],
                          [[Q(1, 2)], [-1, 3, 1], [-1, 2]])
# switching, linear and dead rows: g1, g2 and g3 glue all 42 labelled strata into one component
G3NET = Network.from_rows([[[1]], [[1], [1], [-1]], [[1, 1, 1]]], [[0], [-1, 1, -2], [0]])


def _rows(net):
    return [(net.layer(k)[0].to_rows(), list(net.layer(k)[1])) for k in range(3)]


def _eval(layers, x):
    """Plain-fractions evaluation (shares nothing with the engine's Network.__call__)."""
    h = [Fraction(int(v.numerator), int(v.denominator)) for v in x]
    for k, (W, b) in enumerate(layers):
        z = [sum((Fraction(str(w)) * v for w, v in zip(row, h)), Fraction(0)) + Fraction(str(bi))
             for row, bi in zip(W, b)]
        h = z if k == 2 else [max(v, Fraction(0)) for v in z]
    return tuple(h)


def _in_some_component(F, net):
    (W1, b1), (W2, b2), (W3, b3) = _rows(net)
    for p in itertools.permutations(range(len(b2))):
        q = Network.from_rows([W1, [W2[j] for j in p], [[r[j] for j in p] for r in W3]],
                              [b1, [b2[j] for j in p], b3])
        if any(c.contains(q.parameters()) for c in F.components):
            return True
    return False


def _strata(F):
    return sorted((c.label["stratum"]["orientation"], c.label["stratum"]["first_layer_kink"],
                   tuple(c.label["stratum"]["kink_rows"]), c.label["stratum"]["linear"],
                   c.label["stratum"]["dead"], c.dimension.value) for c in F.components)


@pytest.mark.parametrize("net, dim, comps, strata, orbits, n_strata", [
    (RAMP, 5, 8, 16, 2, 8),
    (MULTI, 5, 24, 30, 1, 5),
    (G3NET, 7, 1, 42, 1, 8),
])
def test_planted_strata_counts(net, dim, comps, strata, orbits, n_strata):
    F = fiber(net)
    j = F.to_json()
    assert (j["dimension"], j["number_of_components"], j["number_of_strata"],
            j["number_of_orbits"], len(j["components"])) == (dim, comps, strata, orbits, n_strata)
    assert j["listing"] == "complete" and F.notes == []
    assert _in_some_component(F, net)
    d = net.widths[0]
    pts = [[Q(a, 3) + k * Q(b, 5) for k, (a, b) in enumerate([(v, 2 * v - 1)] * d)]
           for v in range(-9, 10)]
    for c in F.components:
        rep = c.representative
        assert c.contains(rep)
        assert c.generator_rank in (None, c.dimension.value)
        assert (c.generator_rank is None) == (c.label["stratum"]["first_layer_kink"] == "masked"
                                              and "clipped" in c.label["stratum"]["kink_rows"])
        assert all(_eval(_rows(rep), x) == _eval(_rows(net), x) for x in pts)


def test_planted_strata_lists():
    assert _strata(fiber(G3NET)) == [
        (1, "masked", ("clipped", "clipped"), 1, 0, 6), (1, "masked", ("clipped", "switching"), 1, 0, 6),
        (1, "masked", ("switching", "clipped"), 1, 0, 6), (1, "masked", ("switching", "switching"), 0, 1, 7),
        (1, "visible", ("clipped",), 1, 1, 7), (1, "visible", ("clipped",), 2, 0, 7),
        (1, "visible", ("switching",), 1, 1, 7), (1, "visible", ("switching",), 2, 0, 7)]
    ramp = _strata(fiber(RAMP))
    assert ramp[:4] == [
        (-1, "masked", ("clipped", "clipped"), 0, 0, 4), (-1, "masked", ("switching", "switching"), 0, 0, 4),
        (-1, "visible", ("clipped",), 0, 1, 5), (-1, "visible", ("switching",), 1, 0, 4)]
    assert [s[1:] for s in ramp[4:]] == [s[1:] for s in ramp[:4]]


@pytest.mark.slow
def test_every_stratum_dimension_is_fibdim_at_its_representative():
    """R16a's dimension formula against FIBDIM at each representative, including the masked
    strata where a linear row cancels a clipped row's slope (the row-type formula fails there)."""
    for net in (RAMP, MULTI, G3NET):
        for c in fiber(net).components:
            assert jacobian_dimension(c.representative) == c.dimension.value


def test_glued_count_by_stabilisers_equals_brute_force():
    """glue (Schreier stabilisers, n2! / |Stab| per piece) against the enumeration of every
    labelled stratum, on the planted nets and 40 random 1-1-n2-m nets (n2 ≤ 4)."""
    import random
    from semialgebraic.bottleneck._structure import Parts
    from semialgebraic.bottleneck.one_neuron import glue, glue_brute, one_neuron_strata
    rng = random.Random(11)
    nets = [RAMP, MULTI, G3NET]
    for _ in range(40):
        n2, m = rng.choice((2, 3, 4)), rng.choice((1, 2))
        nets.append(Network.from_rows(
            [[[1]], [[Q(rng.choice((1, 2, 3, -1, -2)))] for _ in range(n2)],
             [[Q(rng.choice((-3, -1, 1, 2, 4))) for _ in range(n2)] for _ in range(m)]],
            [[Q(1, 3)], [Q(rng.choice((-7, -5, -3, -1, 1, 2, 3, 5)), rng.choice((1, 2, 3)))
                         for _ in range(n2)], [0] * m]))
    checked = 0
    for net in nets:
        res = one_neuron_strata(net, Parts.of(net))
        if res is None:
            continue
        strata, n2 = res[0], net.widths[2]
        assert glue(strata, n2)[0] == glue_brute(strata, n2)
        checked += 1
    assert checked >= 30


def test_fiber_text_names_the_strata():
    from semialgebraic.commands.bottleneck import fiber_text
    text = fiber_text(fiber(G3NET))
    assert "number of components: 1\n" in text
    assert "number of strata (rows labelled): 42, glued into the components" in text
    assert fiber(G3NET).to_json()["number_of_components_exact"] is True      # 1 is exact
    F = fiber(RAMP)                 # 8 classes under g1-g3: only an upper bound (R16a)
    assert F.to_json()["number_of_components_exact"] is False
    assert "number of components: at most 8 (strata glued along three-layer-fibers R16a" \
        in fiber_text(F)
    assert "stratum 5 (orientation +1, visible first-layer kink, kink rows ['switching'], " \
           "2 linear, 0 dead): dimension 7" in text


def test_the_representative_check_is_a_proof_not_a_sample():
    # three-layer-fibers R16a: a stratum's representative must realise the same function
    # check_same_function (lead, session 16 review): the first-layer rows must be parallel, and
    # the functions are compared at the union of both kink sets and beyond both ends
    from semialgebraic.bottleneck._structure import Parts
    from semialgebraic.bottleneck.one_neuron import check_same_function, kinks_and_slopes
    P = Parts.of(MULTI)
    K = kinks_and_slopes(P)[0]
    assert check_same_function(MULTI, MULTI, P, K)
    W = [MULTI.layer(k) for k in range(3)]
    rows = [w.to_rows() for w, _ in W]
    biases = [list(bb) for _, bb in W]
    tilted = Network.from_rows([[[1, 3]]] + rows[1:], biases)          # not parallel: refused
    assert not check_same_function(MULTI, tilted, P, K)
    # RAMP rescaled (W1 and b1 times 2, W2 times 1/2: lambda = 2) is the same function; moving
    # the first-layer kink to t = -50 (b1 = 50, rows shifted by -50) is not (-1 at t = -1/2)
    PR = Parts.of(RAMP)
    KR = kinks_and_slopes(PR)[0]
    scaled = Network.from_rows([[[2]], [[Q(1, 2)], [Q(1, 2)]], [[-1, 1]]], [[0], [-1, 1], [-1]])
    assert check_same_function(RAMP, scaled, PR, KR)
    moved = Network.from_rows([[[1]], [[1], [1]], [[-1, 1]]], [[50], [-51, -49], [-1]])
    assert RAMP([Q(-1, 2)]) != moved([Q(-1, 2)])
    assert not check_same_function(RAMP, moved, PR, KR)
