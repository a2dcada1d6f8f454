"""The trusted kernel, each function against an independent oracle.

The oracle is written here with :class:`fractions.Fraction` only: networks are evaluated by
hand-written loops (never ``Network.__call__``), bounds by vertex enumeration and crude
absolute-value bounds, Jacobian columns by exact differences of the mask-frozen network (which
is affine in every single parameter, so the difference *is* the derivative).
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest
from hypothesis import given, settings, strategies as st

from algebra.kernel import (contract_layer, difference_network, domain_from_json, domain_json,
                            domain_rows, exercise_spec, interval_bounds, is_delta_zero,
                            is_proportional, is_zero_neuron, network_digest, parameter_offsets)
from algebra.network import Network
from algebra.rationals import Q, to_q as q

import algebra.kernel as kernel


# -- the oracle -------------------------------------------------------------------------------
def frac(q) -> F:
    return F(str(q))


def layers(net: Network):
    """The network as plain Fraction lists: [(W rows, b)]."""
    return [([[frac(v) for v in row] for row in W.to_rows()], [frac(v) for v in b])
            for W, b in zip(net.weights, net.biases)]


def preacts(lay, x):
    """Every pre-activation (layer by layer) of the Fraction network *lay* at *x*."""
    h, out = [F(v) for v in x], []
    for l, (W, b) in enumerate(lay):
        z = [sum((w * v for w, v in zip(row, h)), F(0)) + c for row, c in zip(W, b)]
        out.append(z)
        h = [max(v, F(0)) for v in z]
    return out


def value(lay, x):
    return preacts(lay, x)[-1]


def masked_value(lay, masks, x):
    """The network with the hidden 0/1 masks frozen (``masks[t][j]``, missing = 0)."""
    h = [F(v) for v in x]
    for l, (W, b) in enumerate(lay):
        z = [sum((w * v for w, v in zip(row, h)), F(0)) + c for row, c in zip(W, b)]
        if l == len(lay) - 1:
            return z
        h = [v if masks.get(l, {}).get(j) else F(0) for j, v in enumerate(z)]


def bump(lay, p):
    """*lay* with flat parameter *p* (order: W_l row by row, then b_l) increased by 1."""
    lay = [([list(r) for r in W], list(b)) for W, b in lay]
    for W, b in lay:
        n = sum(len(r) for r in W)
        if p < n:
            W[p // len(W[0])][p % len(W[0])] += 1
            return lay
        p -= n
        if p < len(b):
            b[p] += 1
            return lay
        p -= len(b)
    raise IndexError(p)


def random_net(rng, widths, zero_neurons=0.0, den=4):
    def num():
        return F(rng.randint(-6, 6), rng.randint(1, den))
    ws, bs = [], []
    for l in range(len(widths) - 1):
        W = [[num() for _ in range(widths[l])] for _ in range(widths[l + 1])]
        b = [num() for _ in range(widths[l + 1])]
        if l < len(widths) - 2:
            for j in range(widths[l + 1]):
                if rng.random() < zero_neurons:
                    W[j] = [F(0)] * widths[l]
                    b[j] = F(0)
        ws.append([[str(v) for v in r] for r in W])
        bs.append([str(v) for v in b])
    return Network.from_rows(ws, bs)


def random_point(rng, d, lo=-3, hi=3):
    return [F(rng.randint(lo * 8, hi * 8), 8) for _ in range(d)]


WIDTHS = [(1, 2, 1), (2, 3, 1), (2, 2, 2, 1), (3, 2, 3, 2), (2, 3, 2, 2, 1)]


def test_kernel_exports():
    assert sorted(kernel.__all__) == sorted(
        ["box_input_map", "compose_input_map", "compose_slice_map", "contract_layer", "difference_network", "domain_from_json", "domain_json", "domain_rows",
         "drop_zero_neurons", "exercise_spec", "input_box", "interval_bounds", "is_delta_zero", "is_proportional",
         "is_zero_neuron", "merged_lower", "network_digest", "parameter_offsets", "parameter_places", "relu_box"])
    for name in kernel.__all__:
        assert getattr(kernel, name).__doc__, name


# -- box_input_map, compose_input_map (three-layer-fibers R36) ----------------------------------
@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10 ** 6), wa=st.sampled_from(WIDTHS))
def test_compose_input_map_evaluates_the_network_at_the_mapped_point(seed, wa):
    """Oracle: plain Fraction evaluation of the original network at x = c + s ⊙ u."""
    import random
    from fractions import Fraction as F
    rng = random.Random(seed)
    d = wa[0]
    net = Network.from_rows(
        [[[Q(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(wa[l])] for _ in range(wa[l + 1])]
         for l in range(len(wa) - 1)],
        [[Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(wa[l + 1])] for l in range(len(wa) - 1)])
    lo = [F(rng.randint(-6, 3), rng.randint(1, 3)) for _ in range(d)]
    hi = [a + F(rng.randint(1, 9), rng.randint(1, 5)) for a in lo]
    c, s = kernel.box_input_map([Q(a.numerator, a.denominator) for a in lo],
                                [Q(b.numerator, b.denominator) for b in hi])
    assert [F(int(v.p), int(v.q)) for v in c] == [(a + b) / 2 for a, b in zip(lo, hi)]
    assert [F(int(v.p), int(v.q)) for v in s] == [(b - a) / 2 for a, b in zip(lo, hi)]
    mapped = kernel.compose_input_map(net, c, s)
    for _ in range(4):
        u = [Q(rng.randint(-8, 8), 8) for _ in range(d)]
        x = [ci + si * ui for ci, si, ui in zip(c, s, u)]
        assert mapped(u) == net(x)
    assert kernel.box_input_map([Q(0)] * d, [Q(0)] + [Q(1)] * (d - 1)) is None   # a side of width 0
    assert kernel.box_input_map([None] * d, [Q(1)] * d) is None


# -- difference_network -------------------------------------------------------------------------
@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), wa=st.sampled_from(WIDTHS), extra=st.sampled_from([(), (2,), (1, 3)]))
def test_difference_network_is_a_minus_b(seed, wa, extra):
    rng = random.Random(seed)
    a = random_net(rng, wa)
    wb = (wa[0],) + tuple(rng.randint(1, 3) for _ in wa[1:-1]) + extra + (wa[-1],)
    b = random_net(rng, wb)                                   # possibly deeper: padding
    D = difference_network(a, b)
    La, Lb, LD = layers(a), layers(b), layers(D)
    assert D.depth == max(a.depth, b.depth) and D.signature == a.signature
    for _ in range(6):
        x = random_point(rng, a.n_inputs)
        assert value(LD, x) == [u - v for u, v in zip(value(La, x), value(Lb, x))]


def test_difference_network_depth_one():
    a = Network.from_rows([[[1, 2]]], [[3]])
    b = Network.from_rows([[[1, -2]]], [[1]])
    D = difference_network(a, b)
    assert D.depth == 1 and layers(D) == [([[F(0), F(4)]], [F(2)])]


# -- interval_bounds ------------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("widths", WIDTHS, ids=str)
def test_interval_bounds_contain_every_sampled_preactivation(seed, widths):
    rng = random.Random(seed)
    net = random_net(rng, widths)
    lo, hi = F(rng.randint(-3, 0)), F(rng.randint(1, 3))
    for dom in ((q(lo), q(hi)), "orthant", None):
        B = interval_bounds([W.to_rows() for W in net.weights], [list(b) for b in net.biases],
                            net.n_inputs, dom)
        assert [len(layer) for layer in B] == list(widths[1:])
        for _ in range(25):
            x = [lo + (hi - lo) * F(rng.randint(0, 16), 16) for _ in range(net.n_inputs)]
            if dom == "orthant":
                x = [abs(v) * 3 for v in x]
            elif dom is None:
                x = [v * 5 for v in x]
            for layer, zs in zip(B, preacts(layers(net), x)):
                for (l_, h_), z in zip(layer, zs):
                    assert l_ is None or frac(l_) <= z
                    assert h_ is None or z <= frac(h_)


@pytest.mark.parametrize("seed", range(15))
def test_interval_bounds_one_layer_are_attained_at_vertices(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 3)
    net = random_net(rng, (d, 3, 1))
    lo, hi = F(rng.randint(-4, 0), 3), F(rng.randint(1, 4), 2)
    (W, b), = layers(net)[:1]
    [B] = interval_bounds([net.weights[0].to_rows()], [list(net.biases[0])], d, (q(lo), q(hi)))
    for i, (l_, h_) in enumerate(B):
        vals = [sum((w * v for w, v in zip(W[i], x)), F(0)) + b[i]
                for x in itertools.product((lo, hi), repeat=d)]
        assert (frac(l_), frac(h_)) == (min(vals), max(vals))


def test_interval_bounds_unbounded_sides():
    # R^1: x + 1 unbounded both ways, 0x + 2 is exactly 2; orthant: x + 1 >= 1, -x <= 0
    W, b = [[Q(1)], [Q(0)], [Q(-1)]], [Q(1), Q(2), Q(0)]
    assert interval_bounds([W], [b], 1, None)[0] == [(None, None), (2, 2), (None, None)]
    assert interval_bounds([W], [b], 1, "orthant")[0] == [(1, None), (2, 2), (None, 0)]


def test_interval_bounds_start_continues_a_network():
    rng = random.Random(7)
    net = random_net(rng, (2, 3, 2, 1))
    Ws, bs = [W.to_rows() for W in net.weights], [list(b) for b in net.biases]
    full = interval_bounds(Ws, bs, 2, (Q(-1), Q(1)))
    assert full[1:] == interval_bounds(Ws[1:], bs[1:], 2, None, start=full[0])


# -- contract_layer -------------------------------------------------------------------------------
def _crude_abs(lay, l, lo, hi):
    """A crude bound M >= |z| of every pre-activation of layer *l* on [lo, hi]^d (oracle)."""
    H = max(abs(lo), abs(hi))
    for t in range(l + 1):
        W, b = lay[t]
        M = max(sum(abs(w) for w in row) * H + abs(c) for row, c in zip(W, b))
        H = M
    return M


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("layer", [0, 1])
def test_contract_layer_keeps_the_function_on_the_box(seed, layer):
    rng = random.Random(seed)
    net = random_net(rng, (2, 3, 3, 1))
    lo, hi = F(-2), F(3)
    lay = layers(net)
    M = _crude_abs(lay, layer, lo, hi)
    W, b = lay[layer]
    signs = [rng.choice((1, -1)) for _ in b]
    lay[layer] = (W, [c + s * (2 * M + 1) for c, s in zip(b, signs)])     # now affine on the box
    Ws = [[[q(str(v)) for v in r] for r in W_] for W_, _ in lay]
    bs = [[q(str(v)) for v in b_] for _, b_ in lay]
    Ws2, bs2 = contract_layer(Ws, bs, layer, 2, (q(lo), q(hi)))
    assert len(Ws2) == len(Ws) - 1
    small = [([[frac(v) for v in r] for r in W_], [frac(v) for v in b_]) for W_, b_ in zip(Ws2, bs2)]
    for _ in range(30):
        x = [lo + (hi - lo) * F(rng.randint(0, 20), 20) for _ in range(2)]
        assert value(small, x) == value(lay, x)


def test_contract_layer_refuses_a_straddling_neuron():
    Ws, bs = [[[Q(1)]], [[Q(1)]]], [[Q(0)], [Q(0)]]          # relu(x) on [-1, 1]: not affine
    with pytest.raises(ValueError, match="neuron 0 of hidden layer 0"):
        contract_layer(Ws, bs, 0, 1, (Q(-1), Q(1)))
    Ws2, bs2 = contract_layer(Ws, bs, 0, 1, (Q(0), Q(1)))   # on [0, 1] it is x
    assert (Ws2, bs2) == ([[[Q(1)]]], [[Q(0)]])
    Ws3, bs3 = contract_layer(Ws, bs, 0, 1, (Q(-2), Q(0)))  # on [-2, 0] it is 0
    assert (Ws3, bs3) == ([[[Q(0)]]], [[Q(0)]])


# -- networks: zero neurons, offsets, digest ------------------------------------------------------
@pytest.mark.parametrize("seed", range(8))
def test_is_zero_neuron(seed):
    rng = random.Random(seed)
    net = random_net(rng, (2, 4, 3, 1), zero_neurons=0.4)
    lay = layers(net)
    for t in range(net.depth - 1):
        W, b = lay[t]
        for j in range(len(b)):
            assert is_zero_neuron(net, t, j) == (b[j] == 0 and all(w == 0 for w in W[j]))


def test_is_zero_neuron_needs_the_bias_zero_too():
    net = Network.from_rows([[[0], [0], [1]], [[1, 1, 1]]], [[0, 1, 0], [0]])
    assert [is_zero_neuron(net, 0, j) for j in range(3)] == [True, False, False]


@pytest.mark.parametrize("widths", WIDTHS, ids=str)
def test_parameter_offsets(widths):
    net = random_net(random.Random(1), widths)
    expected, k = [], 0
    for l in range(len(widths) - 1):
        expected.append(k)
        k += widths[l + 1] * widths[l] + widths[l + 1]
    assert parameter_offsets(net) == expected
    names = net.parameter_names()
    assert [names[o] for o in expected] == [f"W{l + 1}[0,0]" for l in range(len(expected))]


@pytest.mark.parametrize("seed", range(4))
def test_network_digest_changes_with_every_parameter_and_only_then(seed):
    rng = random.Random(seed)
    net = random_net(rng, (2, 3, 2))
    digest = network_digest(net)
    assert len(digest) == 16 and all(c in "0123456789abcdef" for c in digest)
    same = Network.from_rows([[[F(str(v)) for v in r] for r in W.to_rows()] for W in net.weights],
                             [[F(str(v)) for v in b] for b in net.biases])
    assert network_digest(same) == digest
    for p in range(net.n_parameters):
        delta = F(1, rng.randint(1, 9)) * rng.choice((1, -1))
        changed = net.with_parameter(p, net.parameters()[p] + q(delta))
        assert network_digest(changed) != digest, p
    wider = Network.from_rows([W.to_rows() + [[0] * W.ncols] if l == 0 else
                               [r + [0] for r in W.to_rows()] for l, W in enumerate(net.weights)],
                              [list(net.biases[0]) + [0], list(net.biases[1])])
    assert network_digest(wider) != digest                  # same function, other widths


# -- domains --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dom", [None, "orthant", (F(-1, 2), F(3))], ids=str)
def test_domain_rows_cut_out_the_domain(dom):
    rng = random.Random(3)
    d = 3
    qdom = dom if not isinstance(dom, tuple) else (q(dom[0]), q(dom[1]))
    rows = domain_rows(d, qdom)
    assert len(rows) == {None: 0, "orthant": d}.get(dom, 2 * d) and all(len(r) == d + 1 for r in rows)
    for _ in range(200):
        x = [F(rng.randint(-40, 40), 10) for _ in range(d)]
        inside = (dom is None or (dom == "orthant" and all(v > 0 for v in x))
                  or (isinstance(dom, tuple) and all(dom[0] < v < dom[1] for v in x)))
        strict = all(sum((frac(a) * v for a, v in zip(r[:-1], x)), F(0)) + frac(r[-1]) > 0 for r in rows)
        assert strict == inside


@settings(max_examples=60, deadline=None)
@given(st.fractions(max_denominator=50), st.fractions(max_denominator=50))
def test_domain_json_round_trip(a, b):
    lo, hi = Q(a.numerator, a.denominator), Q(b.numerator, b.denominator)
    data = domain_json((lo, hi))
    assert all(isinstance(v, str) for v in data)
    assert domain_from_json(data, 2) == (lo, hi)
    assert domain_from_json([a.numerator, str(b)], 1) == (Q(a.numerator), hi)


def test_domain_json_special_values_and_errors():
    for dom in (None, "orthant"):
        assert domain_json(dom) == dom and domain_from_json(dom, 3) == dom
    from algebra.exceptions import InputError
    with pytest.raises(InputError):
        domain_from_json(["1/0", "1"], 1)
    with pytest.raises((TypeError, KeyError)):
        domain_from_json({"box": [0, 1]}, 1)


# -- vectors --------------------------------------------------------------------------------------
fr = st.fractions(min_value=-20, max_value=20, max_denominator=12)


@settings(max_examples=80, deadline=None)
@given(st.lists(fr, min_size=1, max_size=5), fr)
def test_is_proportional_finds_the_factor(g, mu):
    if all(v == 0 for v in g):
        with pytest.raises(ValueError):
            is_proportional([Q(0)] * len(g), [Q(0)] * len(g))
        return
    qg = [Q(v.numerator, v.denominator) for v in g]
    u = [Q((mu * v).numerator, (mu * v).denominator) for v in g]
    assert frac(is_proportional(u, qg)) == mu


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(fr, fr), min_size=2, max_size=5))
def test_is_proportional_agrees_with_cross_products(pairs):
    u = [a for a, _ in pairs]
    g = [b for _, b in pairs]
    if all(v == 0 for v in g):
        return
    oracle = all(u[i] * g[j] == u[j] * g[i] for i in range(len(g)) for j in range(len(g)))
    got = is_proportional([Q(v.numerator, v.denominator) for v in u], [Q(v.numerator, v.denominator) for v in g])
    assert (got is not None) == oracle
    if got is not None:
        assert all(frac(got) * gv == uv for gv, uv in zip(g, u))


# -- jacobian: is_delta_zero, exercise_spec ---------------------------------------------------------
def _bias_index(net, t, i):
    offs = parameter_offsets(net)
    return offs[t] + net.widths[t + 1] * net.widths[t] + i


@pytest.mark.parametrize("seed", range(10))
def test_is_delta_zero_is_the_bias_derivative(seed):
    rng = random.Random(seed)
    net = random_net(rng, rng.choice([(2, 3, 2, 1), (2, 2, 3, 2, 2), (1, 2, 2, 2, 1)]))
    lay = layers(net)
    x = [F(0)] * net.n_inputs
    for _ in range(12):
        masks = {t: {j: rng.randint(0, 1) for j in range(net.widths[t + 1])} for t in range(net.depth - 1)}
        for t0 in range(net.depth - 1):
            for i in range(net.widths[t0 + 1]):
                col = [u - v for u, v in zip(masked_value(bump(lay, _bias_index(net, t0, i)), masks, x),
                                             masked_value(lay, masks, x))]
                assert is_delta_zero(net, masks, t0, i) == all(c == 0 for c in col)


def _column(lay, p, x):
    """The exact Jacobian column ∂f/∂θ_p at *x* (masks frozen at x; affine in θ_p)."""
    pre = preacts(lay, x)
    if any(v == 0 for layer in pre[:-1] for v in layer):
        return None                                   # not a differentiable input
    masks = {t: {j: int(v > 0) for j, v in enumerate(layer)} for t, layer in enumerate(pre[:-1])}
    return [u - v for u, v in zip(masked_value(bump(lay, p), masks, x), masked_value(lay, masks, x))], masks


@pytest.mark.parametrize("seed", range(8))
def test_exercise_spec_targets_and_never_agree_with_the_jacobian(seed):
    rng = random.Random(seed)
    net = random_net(rng, rng.choice([(2, 3, 2, 1), (2, 2, 2, 2, 1), (1, 3, 3, 2)]), zero_neurons=0.25)
    lay = layers(net)
    points = [[F(rng.randint(-30, 30), 7) for _ in range(net.n_inputs)] for _ in range(40)]
    for p in range(net.n_parameters):
        targets, delta_of, last, full_last = exercise_spec(net, p)
        assert all(s == 1 for s in targets.values())
        for x in points:
            res = _column(lay, p, x)
            if res is None:
                continue
            col, masks = res
            if any(c != 0 for c in col):
                assert delta_of != "never", (p, x)
                assert all(masks[t][j] == 1 for t, j in targets), (p, x)     # targets active
            elif delta_of is None and all(masks[t][j] == 1 for t, j in targets):
                # δ constant (last two layers): active targets force a non-zero column unless the
                # outgoing weights vanish, which exercise_spec reports as "never"
                assert False, (p, x, "column zero with every target active and δ constant")


def test_exercise_spec_table():
    # x -> relu(x), relu(-x) -> [1, 0]·h: b1[1] feeds a neuron with zero outgoing weight
    net = Network.from_rows([[[1], [-1]], [[1, 0]]], [[0, 0], [0]])
    names = net.parameter_names()
    spec = {n: exercise_spec(net, names.index(n)) for n in names}
    assert spec["W1[0,0]"] == ({(0, 0): 1}, None, 0, False)
    assert spec["b1[1]"][1] == "never" and spec["W1[1,0]"][1] == "never"
    assert spec["W2[0,1]"] == ({(0, 1): 1}, None, 0, False)
    assert spec["b2[0]"] == ({}, None, -1, False)
    deep = Network.from_rows([[[1]], [[1]], [[1]]], [[0], [0], [0]])
    assert exercise_spec(deep, deep.parameter_names().index("W1[0,0]")) == ({(0, 0): 1}, (0, 0), 1, True)
    zero = Network.from_rows([[[0]], [[1]], [[1]]], [[0], [0], [0]])
    assert exercise_spec(zero, zero.parameter_names().index("W2[0,0]"))[1] == "never"
