"""Red team (session 2): the independent oracle used by the ``test_redteam_s2_*`` files — z3 over
exact reals (ReLU as ``If``), with no netfibers decision code — and sanity tests of it."""

from fractions import Fraction

import pytest

from algebra.network import Network
from algebra.rationals import Q

z3 = pytest.importorskip("z3")


def _real(q):
    q = Fraction(str(q))
    return z3.RealVal(f"{q.numerator}/{q.denominator}")


def z3_outputs(net, xs):
    """The network's outputs as z3 terms of the inputs *xs*."""
    h = xs
    for l in range(net.depth):
        W, b = net.layer(l)
        out = []
        for i in range(W.nrows):
            s = _real(b[i])
            for w, x in zip(W.row_at(i), h):
                if w != 0:
                    s = s + _real(w) * x
            out.append(s)
        h = out if l == net.depth - 1 else [z3.If(v > 0, v, z3.RealVal(0)) for v in out]
    return h


def _solver(net, domain):
    xs = [z3.Real(f"x{i}") for i in range(net.n_inputs)]
    s = z3.Solver()
    s.set("timeout", 120000)
    if domain == "orthant":
        s.add(*[x >= 0 for x in xs])
    elif domain is not None:
        lo, hi = domain
        s.add(*[x >= _real(lo) for x in xs], *[x <= _real(hi) for x in xs])
    return s, xs


def z3_equivalent(a, b, domain=None):
    """True / False (a(x) != b(x) somewhere on the domain) / None (z3 unknown)."""
    s, xs = _solver(a, domain)
    s.add(z3.Or([p != q for p, q in zip(z3_outputs(a, xs), z3_outputs(b, xs))]))
    r = s.check()
    return True if r == z3.unsat else False if r == z3.sat else None


def z3_witness(a, b, domain=None):
    """An exact point where a and b differ, or None."""
    s, xs = _solver(a, domain)
    s.add(z3.Or([p != q for p, q in zip(z3_outputs(a, xs), z3_outputs(b, xs))]))
    if s.check() != z3.sat:
        return None
    m = s.model()
    vals = [m.eval(x, model_completion=True) for x in xs]
    return tuple(Q(v.numerator_as_long(), v.denominator_as_long()) for v in vals)


def test_oracle_on_known_pairs():
    absx = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
    same = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])
    assert z3_equivalent(absx, same) is True
    bump = Network.from_rows([[[1], [1], [1]], [[1, -2, 1]]],
                             [[Q(-1, 10**6), Q(-2, 10**6), Q(-3, 10**6)], [0]])
    zero = Network.from_rows([[[1]], [[0]]], [[0], [0]])
    assert z3_equivalent(bump, zero) is False
    x = z3_witness(bump, zero)
    assert bump(x) != zero(x)
    assert z3_equivalent(bump, zero, domain=(1, 2)) is True
    assert z3_equivalent(absx, Network.from_rows([[[1]], [[1]]], [[0], [0]]), "orthant") is True
