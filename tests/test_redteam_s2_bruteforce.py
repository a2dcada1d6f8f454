"""Red team (session 2): regions, deviation, absorption and conservation laws against brute-force
exact computations that share no code with the deciding modules (z3 over the reals, a closed
formula for one-dimensional blocks, sympy differentiation)."""

import itertools
import json
import random
from fractions import Fraction

import pytest

from algebra.blocks import Block
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import Polyhedron, absorbable, max_deviation, regions, verify

from test_redteam_s2_oracle import _real, z3, z3_outputs
from test_redteam_s2_equivalence import planted_copy, random_net


def _hidden_preactivations(net, xs):
    h, pre = xs, []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        out = []
        for i in range(W.nrows):
            s = _real(b[i])
            for w, x in zip(W.row_at(i), h):
                if w != 0:
                    s = s + _real(w) * x
            out.append(s)
        pre += out
        h = [z3.If(v > 0, v, z3.RealVal(0)) for v in out]
    return pre


def _uncovered_point(net, rs, domain):
    """z3: a point of the open domain in the closure of no listed region (None: covered)."""
    d = net.n_inputs
    xs = [z3.Real(f"x{i}") for i in range(d)]
    s = z3.Solver()
    if domain == "orthant":
        s.add(*[x > 0 for x in xs])
    elif domain is not None:
        s.add(*[x > _real(domain[0]) for x in xs], *[x < _real(domain[1]) for x in xs])
    for r in rs:
        closed = []
        for a, c in r.inequalities:
            if any(v != 0 for v in a) or c != 0:
                e = _real(c)
                for ai, xi in zip(a, xs):
                    if ai != 0:
                        e = e + _real(ai) * xi
                closed.append(e >= 0)
        s.add(z3.Not(z3.And(closed)) if closed else z3.BoolVal(False))
    return s.check() == z3.sat


@pytest.mark.parametrize("seed", range(12))
def test_regions_are_complete_disjoint_and_exact(seed):
    rng = random.Random(seed)
    d = rng.randint(1, 2)
    widths = [d] + [rng.randint(1, 4) for _ in range(rng.randint(1, 3))] + [rng.randint(1, 2)]
    net = random_net(rng, widths)
    domain = [None, "orthant", (Q(-1), Q(2))][seed % 3]
    poly = {None: None, "orthant": Polyhedron.orthant(d)}.get(domain) if not isinstance(domain, tuple) \
        else Polyhedron.box(d, *domain)
    rs = list(regions(net, domain=poly))
    assert len({r.pattern for r in rs}) == len(rs) >= 1
    for r in rs:
        assert net.activation_pattern(r.point) == r.pattern
        J, c = net.affine_map(r.pattern)
        assert J == r.jacobian and tuple(c) == tuple(r.offset)
        assert poly is None or poly.contains(r.point)
    assert not _uncovered_point(net, rs, domain)
    # a missing region is noticed by the oracle
    if len(rs) > 1:
        assert _uncovered_point(net, rs[1:], domain)


def _z3_max_deviation(a, b, lo, hi):
    xs = [z3.Real(f"x{i}") for i in range(a.n_inputs)]
    o = z3.Optimize()
    o.add(*[x >= _real(lo) for x in xs], *[x <= _real(hi) for x in xs])
    t = z3.Real("t")
    ya, yb = z3_outputs(a, xs), z3_outputs(b, xs)
    o.add(z3.Or([t == p - q for p, q in zip(ya, yb)] + [t == q - p for p, q in zip(ya, yb)]))
    h = o.maximize(t)
    assert o.check() == z3.sat
    return Fraction(str(o.upper(h)))


@pytest.mark.parametrize("seed", range(10))
def test_max_deviation_equals_z3_optimum(seed):
    rng = random.Random(100 + seed)
    d, m = rng.randint(1, 2), rng.randint(1, 2)
    widths = [d] + [rng.randint(1, 3) for _ in range(rng.randint(1, 2))] + [m]
    a = random_net(rng, widths)
    b = random_net(rng, widths) if seed % 2 else planted_copy(rng, a).with_parameter(0, Q(1, 10**6))
    lo = Q(rng.randint(-3, 0))
    hi = lo + Q(rng.randint(1, 4), rng.randint(1, 3))
    dev = max_deviation(a, b, (lo, hi))
    assert dev.complete
    assert Fraction(int(dev.value.p), int(dev.value.q)) == _z3_max_deviation(a, b, lo, hi)
    x = dev.point
    assert all(lo <= t <= hi for t in x)
    assert abs(a(x)[dev.output] - b(x)[dev.output]) == dev.value


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


sympy = pytest.importorskip("sympy")


@pytest.mark.parametrize("widths, seed", [([1, 2, 1], 0), ([2, 2, 1], 1), ([1, 2, 2, 1], 2),
                                          ([2, 1, 2, 1], 3)])
def test_conservation_laws_are_conserved_symbolically(widths, seed):
    """Each returned law h satisfies ∇h · ∇_θ f_p(θ, x) ≡ 0 as a polynomial in θ and x, for
    every region pattern p and output (sympy, independent of algebra.conservation)."""
    from algebra.conservation import conservation_laws
    rng = random.Random(seed)
    net = random_net(rng, widths)
    patterns = [r.pattern for r in regions(net)]
    res = conservation_laws(net, patterns)
    names = net.parameter_names()
    syms = sympy.symbols([f"p{i}" for i in range(len(names))])
    by_name = {sympy.Symbol(n): s for n, s in zip(names, syms)}
    xs = sympy.symbols(f"x0:{net.n_inputs}")
    fields = []
    for pattern in patterns:
        k, h, pi = 0, list(xs), 0
        for l in range(net.depth):
            n_in, n_out = widths[l], widths[l + 1]
            Wl = [[syms[k + i * n_in + j] for j in range(n_in)] for i in range(n_out)]
            k += n_in * n_out
            bl = syms[k:k + n_out]
            k += n_out
            z = [sum(Wl[i][j] * h[j] for j in range(n_in)) + bl[i] for i in range(n_out)]
            if l < net.depth - 1:
                z = [z[i] if pattern[pi + i] > 0 else 0 for i in range(n_out)]
                pi += n_out
            h = z
        fields += [[sympy.diff(fo, s) for s in syms] for fo in h]
    assert res.laws
    for law in res.laws:
        hs = law.polynomial.to_sympy().subs(by_name)
        grad = [sympy.diff(hs, s) for s in syms]
        for g in fields:
            assert sympy.expand(sum(a * b for a, b in zip(grad, g))) == 0, law.name
    theta = {s: sympy.Rational(int(v.p), int(v.q)) for s, v in zip(syms, net.parameters())}
    G = sympy.Matrix([[sympy.diff(law.polynomial.to_sympy().subs(by_name), s).subs(theta)
                       for s in syms] for law in res.laws])
    assert G.rank() == len(res.laws) == res.lower


# -- fibers and identifiability: counts by brute force, consistency between commands -------------
def _nonzero(rng):
    v = Q(rng.randint(1, 6), rng.randint(1, 4))
    return v if rng.random() < 0.5 else -v


@pytest.mark.parametrize("seed", range(16))
def test_shallow_fiber_counts_by_brute_force(seed):
    """Irredundant one-hidden-layer nets: number_of_components = n! · #S and number_of_orbits =
    #S, S ranging over the flip sets with Σ_{i∈S} v_i w_iᵀ = 0 (enumerated here directly), and
    every flipped member is in the fiber (z3)."""
    import math
    from semialgebraic import fiber
    from test_redteam_s2_oracle import z3_equivalent
    rng = random.Random(seed)
    d, m, n = rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 4)
    W = [[_nonzero(rng) for _ in range(d)] for _ in range(n)]
    b = [_nonzero(rng) for _ in range(n)]
    V = [[_nonzero(rng) for _ in range(n)] for _ in range(m)]
    if n >= 2 and seed % 2:                          # plant a cancelling pair on two hyperplanes
        s = Q(rng.randint(1, 3))
        W[1] = [-s * x for x in W[0]]
        b[1] = -s * b[0] + 1
        for o in range(m):
            V[o][1] = V[o][0] / s
    net = Network.from_rows([W, V], [b, [_nonzero(rng) for _ in range(m)]])
    flips = [S for r in range(n + 1) for S in itertools.combinations(range(n), r)
             if all(sum((V[o][i] * W[i][k] for i in S), Q(0)) == 0 for o in range(m) for k in range(d))]
    F = fiber(net)
    lines = {tuple(x / W[i][0] for x in W[i] + [b[i]]) for i in range(n)}   # hyperplanes
    if len(lines) < n:                                # two neurons on one hyperplane: not counted
        assert F.number_of_components is None and F.notes
        return
    assert (F.number_of_components, F.number_of_orbits) == (math.factorial(n) * len(flips), len(flips))
    assert F.dimension.exact and F.dimension.value == n
    for S in flips:
        W2 = [[-x for x in W[i]] if i in S else list(W[i]) for i in range(n)]
        b2 = [-b[i] if i in S else b[i] for i in range(n)]
        c2 = [net.biases[1][o] + sum((V[o][i] * b[i] for i in S), Q(0)) for o in range(m)]
        other = Network.from_rows([W2, V], [b2, c2])
        assert z3_equivalent(net, other) is True and F.contains(other) is True


@pytest.mark.parametrize("seed", range(16))
def test_identify_fiber_dim_agree_on_bottleneck_nets(seed):
    from semialgebraic import fiber, functional_dimension, identifiability
    rng = random.Random(seed)
    d = rng.randint(1, 3)
    n1, n2, m = rng.randint(1, d), rng.randint(1, 3), rng.randint(1, 2)
    W2 = [[_nonzero(rng) for _ in range(n1)] for _ in range(n2)]
    b2 = [_nonzero(rng) for _ in range(n2)]
    for j in range(n2):                               # plant dead / linear / masked rows
        t = rng.random()
        if t < 0.15:
            W2[j], b2[j] = [-abs(x) for x in W2[j]], -abs(b2[j])
        elif t < 0.3:
            W2[j], b2[j] = [abs(x) for x in W2[j]], abs(b2[j])
        elif t < 0.4:
            i = rng.randrange(n1)
            W2[j], b2[j] = [abs(x) if k == i else -abs(x) for k, x in enumerate(W2[j])], -abs(b2[j])
    net = Network.from_rows(
        [[[_nonzero(rng) for _ in range(d)] for _ in range(n1)], W2, [[_nonzero(rng) for _ in range(n2)] for _ in range(m)]],
        [[_nonzero(rng) for _ in range(n1)], b2, [_nonzero(rng) for _ in range(m)]])
    N = net.n_parameters
    v = identifiability(net)
    F = fiber(net)
    fd = functional_dimension(net, timeout=30)
    assert verify(json.loads(json.dumps(v.certificate)))[0] is True
    if F.dimension.exact and fd.exact:
        assert F.dimension.value == N - fd.value
    if v.answer is True:
        assert F.dimension.value == n1 + n2 and fd.value == N - n1 - n2
        assert F.graph.number_of_nodes() == 1
    elif v.answer is False:
        assert F.graph.number_of_nodes() > 1 or F.dimension.value > n1 + n2
