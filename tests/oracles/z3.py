"""The independent exact oracle of the tests: z3 over exact reals (ReLU as ``If``), sharing no
code with the netfibers decisions.  Its own sanity tests are in ``tests/oracles/test_z3.py``.

Import it as ``from tests.oracles.z3 import z3_equivalent`` (see ``tests/README.md``); importing
skips the calling test module when z3 is not installed."""

import time
from fractions import Fraction

import pytest

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
    elif hasattr(domain, "rows"):       # a Domain: rows (a, c) with a·x + c >= 0
        for r in domain.rows():
            s.add(sum((_real(v) * x for v, x in zip(r, xs) if v != 0), _real(r[-1])) >= 0)
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


def z3_feasible(A_eq, b_eq, A_lt, b_lt, A_le, b_le, n):
    """Independent exact decision of a linear system (equalities, strict and non-strict
    inequalities) by z3's linear real arithmetic (rational models)."""
    s = z3.Solver()
    s.set("timeout", 20000)
    x = [z3.Real(f"x{i}") for i in range(n)]

    def lhs(row):
        return z3.Sum([z3.RealVal(str(v)) * x[i] for i, v in enumerate(row)]) if n else z3.RealVal(0)

    for r, b in zip(A_eq, b_eq):
        s.add(lhs(r) == z3.RealVal(str(b)))
    for r, b in zip(A_lt, b_lt):
        s.add(lhs(r) < z3.RealVal(str(b)))
    for r, b in zip(A_le, b_le):
        s.add(lhs(r) <= z3.RealVal(str(b)))
    out = s.check()
    assert out != z3.unknown
    return out == z3.sat


def z3_equivalent_timed(a, b, timeout_s, box=None):
    """True / False / None (unknown or timeout) and the time of ``s.check()`` alone (formula
    construction excluded), from a fresh solver with a timeout of *timeout_s* seconds, on the
    box ``[box[0], box[1]]^d`` or R^d (used by ``benchmarks/bench_general.py``)."""
    xs = [z3.Real(f"x{i}") for i in range(a.n_inputs)]
    s = z3.Solver()
    s.set("timeout", int(timeout_s * 1000))
    s.add(z3.Or([p != q for p, q in zip(z3_outputs(a, xs), z3_outputs(b, xs))]))
    if box is not None:
        s.add(z3.And([z3.And(x >= _real(box[0]), x <= _real(box[1])) for x in xs]))
    t = time.perf_counter()
    r = s.check()
    dt = time.perf_counter() - t
    return (False if r == z3.sat else True if r == z3.unsat else None), dt


def z3_uncovered_point(net, rs, domain):
    """True when z3 finds a point of the open domain in the closure of no listed region of
    *rs* (False: the regions cover the domain)."""
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


def z3_max_deviation(a, b, lo, hi):
    """max over the box [lo, hi]^d of |a_o(x) - b_o(x)| (every output o), by z3's optimizer."""
    xs = [z3.Real(f"x{i}") for i in range(a.n_inputs)]
    o = z3.Optimize()
    o.add(*[x >= _real(lo) for x in xs], *[x <= _real(hi) for x in xs])
    t = z3.Real("t")
    ya, yb = z3_outputs(a, xs), z3_outputs(b, xs)
    o.add(z3.Or([t == p - q for p, q in zip(ya, yb)] + [t == q - p for p, q in zip(ya, yb)]))
    h = o.maximize(t)
    assert o.check() == z3.sat
    return Fraction(str(o.upper(h)))
