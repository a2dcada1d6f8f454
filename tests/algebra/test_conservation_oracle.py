"""Conservation laws against sympy: each law h returned by ``conservation_laws`` satisfies
∇h · ∇_θ f_p(θ, x) ≡ 0 symbolically, independent of ``algebra.conservation``."""

import random

import pytest

from semialgebraic import regions
from tests.cases.general import hostile_net

sympy = pytest.importorskip("sympy")


@pytest.mark.parametrize("widths, seed", [([1, 2, 1], 0), ([2, 2, 1], 1), ([1, 2, 2, 1], 2),
                                          ([2, 1, 2, 1], 3)])
def test_conservation_laws_are_conserved_symbolically(widths, seed):
    """Each returned law h satisfies ∇h · ∇_θ f_p(θ, x) ≡ 0 as a polynomial in θ and x, for
    every region pattern p and output (sympy, independent of algebra.conservation)."""
    from algebra.conservation import conservation_laws
    rng = random.Random(seed)
    net = hostile_net(rng, widths)
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
