"""Polynomials over Q in named variables, on ``flint.fmpq_mpoly`` (STYLE C3, C11).

One ring per tuple of variable names, interned: ``Ring.get(names)`` returns the same object for
equal names, and mixing rings raises :class:`~algebra.exceptions.IncompatibleRingError`.  The
parameter ring of a network has the variables ``Network.parameter_names()``.

>>> R = Ring.get(("x", "y"))
>>> x, y = R.gens()
>>> p = (x + y) ** 2 - 2 * x * y
>>> p, p.diff("x"), p({"x": 1, "y": "1/2"})
(x^2 + y^2, 2*x, 5/4)
>>> S = Ring.get(("W1[0,0]", "b1[0]"))
>>> S.parse("W1[0,0]^2 - 3/4*b1[0] + 1")
W1[0,0]^2 - 3/4*b1[0] + 1
>>> jacobian_at([x**2 + y, x * y], {"x": 1, "y": 2})
QMatrix([[2, 1], [2, 1]])
>>> ideal_dimension([x**2 + y**2 - 1]), ideal_dimension([x, x - 1])
(1, -1)
"""

from __future__ import annotations

from typing import Mapping, Sequence

import re

from flint import fmpq, fmpq_mpoly, fmpq_mpoly_ctx, fmpz_mpoly_ctx, fmpz_mpoly_vec

from .exceptions import DimensionMismatchError, IncompatibleRingError, InputError
from .linalg import QMatrix
from .rationals import q_latex, q_str, to_q

__all__ = ["Ring", "Polynomial", "parameter_ring", "jacobian", "jacobian_at", "groebner_basis",
           "ideal_dimension", "latex_name"]


def pairwise_sum(terms: list, zero):
    """Σ *terms* added pairwise, *zero* when empty: a chain ``h = h + t`` copies the growing sum
    at each step (with 18 817 variables, 256 conservation laws of ~200 terms took ~10 s).

    >>> pairwise_sum([1, 2, 3, 4, 5], 0), pairwise_sum([], 0)
    (15, 0)
    """
    while len(terms) > 1:
        terms = [terms[k] + terms[k + 1] if k + 1 < len(terms) else terms[k] for k in range(0, len(terms), 2)]
    return terms[0] if terms else zero


FROM_DICT_VARS = 1024
"""Rings of more variables build :meth:`Ring.from_dict`'s polynomials from their generators
(python-flint's ``from_dict`` crashed on 50 terms in 8 000 variables)."""


class Ring:
    """Q[v_1, …, v_n] with named variables (degrevlex), interned by names."""

    __slots__ = ("_ctx", "names", "_index", "_gen_reps")
    _cache: dict[tuple[str, ...], "Ring"] = {}

    def __init__(self, names: Sequence[str]):  # use Ring.get
        self.names = tuple(names)
        self._ctx = fmpq_mpoly_ctx.get(self.names, "degrevlex")
        self._index = {n: i for i, n in enumerate(self.names)}

    def _generators(self):
        """The context's generators, made once (``ctx.gens()`` makes all N: 6.5 ms a call at N
        = 6 532, once per name that ``parse`` read; s39 forge audit F2)."""
        if not hasattr(self, "_gen_reps"):
            self._gen_reps = self._ctx.gens()
        return self._gen_reps

    @classmethod
    def get(cls, names: Sequence[str]) -> "Ring":
        names = tuple(names)
        ring = cls._cache.get(names)
        if ring is None:
            if len(set(names)) != len(names):
                raise InputError("variable names must be distinct")
            ring = cls._cache[names] = cls(names)
        return ring

    @property
    def nvars(self) -> int:
        return len(self.names)

    def index(self, name: str | int) -> int:
        if isinstance(name, int):
            return name
        try:
            return self._index[name]
        except KeyError:
            raise InputError(f"no variable {name!r} in {self}") from None

    def gens(self) -> tuple["Polynomial", ...]:
        return tuple(Polynomial._from_rep(g, self) for g in self._generators())

    def gen(self, name: str | int) -> "Polynomial":
        return Polynomial._from_rep(self._generators()[self.index(name)], self)

    def constant(self, c: object) -> "Polynomial":
        # (ctx.constant: from_dict with an exponent tuple of nvars zeros took 3 ms at 33 088
        # variables, 2 s of `analyze` on a 64-256-64 net that no budget check could stop)
        return Polynomial._from_rep(self._ctx.constant(to_q(c)), self)

    def zero(self) -> "Polynomial":
        return Polynomial._from_rep(self._ctx.from_dict({}), self)

    def from_dict(self, terms: Mapping[tuple[int, ...], object]) -> "Polynomial":
        """From ``{exponent tuple: coefficient}``.  Above :data:`FROM_DICT_VARS` variables the
        terms are built from the generators and added pairwise: python-flint 0.9's
        ``fmpq_mpoly_ctx.from_dict`` crashed the process (a segmentation fault) on 50 terms in
        8 000 variables (``conserved`` of a 16-128-128-1 net, 2026-12-05)."""
        items = [(tuple(k), to_q(v)) for k, v in terms.items() if to_q(v) != 0]
        if self.nvars <= FROM_DICT_VARS:
            return Polynomial._from_rep(self._ctx.from_dict(dict(items)), self)
        g = self._generators()
        reps = []
        for mon, c in items:
            rep = self._ctx.constant(c)
            for i, e in enumerate(mon):
                if e:
                    rep = rep * g[i] ** e
            reps.append(rep)
        return Polynomial._from_rep(pairwise_sum(reps, self._ctx.from_dict({})), self)

    def linear_form(self, coeffs: Sequence[object], constant: object = 0) -> "Polynomial":
        """Σ c_i v_i + constant."""
        if len(coeffs) != self.nvars:
            raise DimensionMismatchError("linear_form", len(coeffs), self.nvars)
        terms = {}
        for i, c in enumerate(coeffs):
            c = to_q(c)
            if c != 0:
                e = [0] * self.nvars
                e[i] = 1
                terms[tuple(e)] = c
        if to_q(constant) != 0:
            terms[(0,) * self.nvars] = to_q(constant)
        return self.from_dict(terms)

    def parse(self, text: str, max_degree: int | None = None,
              max_terms: int | None = None) -> "Polynomial":
        """Parse a polynomial written with this ring's names, ``+ - * / ^ **``, parentheses and
        exact numbers (``3``, ``3/4``, ``0.125``, ``1e-3``).

        Names are matched literally (longest first), so names such as ``W1[0,2]`` work;
        ``/`` divides by a non-zero constant only; exponents are non-negative integers.
        The output of ``str(p)`` parses back to ``p``.

        >>> R = Ring.get(("x", "y"))
        >>> R.parse("-(x - 2y)^2 / 2 + 0.5")
        -1/2*x^2 + 2*x*y - 2*y^2 + 1/2
        >>> R.parse("x*z")
        Traceback (most recent call last):
            ...
        algebra.exceptions.InputError: cannot parse polynomial 'x*z': unknown symbol at 'z'

        *max_degree*, *max_terms* (a checker reading a certificate): refuse, before computing it, a
        product or power of higher total degree, or whose number of terms could pass *max_terms*
        (``(x + y + …)^400`` was expanded in one FLINT call that no budget stops: session 39).

        >>> R.parse("(x + y)^400", max_degree=8)
        Traceback (most recent call last):
            ...
        algebra.exceptions.InputError: cannot parse polynomial '(x + y)^400': a power of degree 400 (more than 8)
        """
        return _Parser(self, text, max_degree, max_terms).parse()

    def __repr__(self) -> str:
        shown = ", ".join(self.names[:4]) + (", …" if self.nvars > 4 else "")
        return f"Ring(Q[{shown}], nvars={self.nvars})"

    def __reduce__(self):
        return (Ring.get, (self.names,))


def parameter_ring(names: Sequence[str]) -> Ring:
    """The polynomial ring whose variables are the given parameter names (interned).

    Parameters
    ----------
    names : sequence of str
        Variable names, e.g. ``Network.parameter_names()`` (``W1[0,0]``, ``b1[0]``, …).

    Returns
    -------
    Ring
        The ring Q[names]; equal name lists give the same object (rings are never mixed).

    Examples
    --------
    >>> parameter_ring(["a", "b"]) is parameter_ring(["a", "b"])
    True
    """
    return Ring.get(names)


class Polynomial:
    """Immutable polynomial over Q in a :class:`Ring`, backed by ``flint.fmpq_mpoly``."""

    __slots__ = ("_rep", "ring")

    @classmethod
    def _from_rep(cls, rep: fmpq_mpoly, ring: Ring) -> "Polynomial":
        obj = object.__new__(cls)
        obj._rep, obj.ring = rep, ring
        return obj

    def _coerce(self, other: object) -> "Polynomial":
        if isinstance(other, Polynomial):
            if other.ring is not self.ring:
                raise IncompatibleRingError(self.ring, other.ring)
            return other
        return self.ring.constant(other)

    def __add__(self, other):
        return Polynomial._from_rep(self._rep + self._coerce(other)._rep, self.ring)

    __radd__ = __add__

    def __sub__(self, other):
        return Polynomial._from_rep(self._rep - self._coerce(other)._rep, self.ring)

    def __rsub__(self, other):
        return Polynomial._from_rep(self._coerce(other)._rep - self._rep, self.ring)

    def __mul__(self, other):
        return Polynomial._from_rep(self._rep * self._coerce(other)._rep, self.ring)

    __rmul__ = __mul__

    def __neg__(self):
        return Polynomial._from_rep(-self._rep, self.ring)

    def __pow__(self, e: int):
        if int(e) < 0:
            raise InputError(f"negative exponent {e} of a polynomial")
        return Polynomial._from_rep(self._rep ** int(e), self.ring)

    def __truediv__(self, c: object):
        return Polynomial._from_rep(self._rep / to_q(c), self.ring)

    def diff(self, var: str | int) -> "Polynomial":
        """Partial derivative with respect to a variable (name or index)."""
        return Polynomial._from_rep(self._rep.derivative(self.ring.index(var)), self.ring)

    def gradient(self) -> tuple["Polynomial", ...]:
        return tuple(self.diff(i) for i in range(self.ring.nvars))

    def __call__(self, point: Mapping[str, object] | Sequence[object]) -> fmpq:
        """Exact value at a point (a full assignment: mapping by name, or a sequence)."""
        if isinstance(point, Mapping):
            vals = [to_q(point[n]) for n in self.ring.names]
        else:
            vals = [to_q(v) for v in point]
            if len(vals) != self.ring.nvars:
                raise DimensionMismatchError("evaluate", len(vals), self.ring.nvars)
        if self.ring.nvars == 0:
            return self.constant_value()
        return self._rep(*vals)

    evaluate = __call__

    def subs(self, values: Mapping[str, object]) -> "Polynomial":
        """Substitute rational values for some variables (the ring is unchanged)."""
        if not values:
            return self
        return Polynomial._from_rep(self._rep.subs({k: to_q(v) for k, v in values.items()}), self.ring)

    def compose(self, images: Sequence["Polynomial"]) -> "Polynomial":
        """Substitute a polynomial for every variable (all in one target ring)."""
        if len(images) != self.ring.nvars:
            raise DimensionMismatchError("compose", len(images), self.ring.nvars)
        if not images:
            return self
        target = images[0].ring
        return Polynomial._from_rep(self._rep.compose(*[p._rep for p in images], ctx=target._ctx), target)

    def is_zero(self) -> bool:
        return self._rep.is_zero()

    def is_constant(self) -> bool:
        return self._rep.is_constant()

    def constant_value(self) -> fmpq:
        return self._rep.to_dict().get((0,) * self.ring.nvars, fmpq(0))

    def total_degree(self) -> int:
        return -1 if self.is_zero() else int(self._rep.total_degree())

    def terms(self) -> dict[tuple[int, ...], fmpq]:
        return dict(self._rep.to_dict())

    def variables(self) -> tuple[str, ...]:
        """Names of the variables that occur."""
        used = set()
        for mon in self._rep.to_dict():
            used.update(i for i, e in enumerate(mon) if e)
        return tuple(self.ring.names[i] for i in sorted(used))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Polynomial):
            return self.ring is other.ring and self._rep == other._rep
        try:
            return self.is_constant() and self.constant_value() == to_q(other)
        except Exception:
            return NotImplemented

    def __hash__(self) -> int:
        return hash((self.ring.names, tuple(sorted(self.terms().items()))))

    def __str__(self) -> str:
        return _render(self, latex=False)

    __repr__ = __str__

    def to_latex(self) -> str:
        return _render(self, latex=True)

    def _repr_latex_(self) -> str:
        return f"${self.to_latex()}$"

    def to_json(self) -> str:
        return str(self)

    def to_sympy(self):
        """The polynomial as a sympy expression (symbols named like the variables)."""
        import sympy
        syms = [sympy.Symbol(n) for n in self.ring.names]
        expr = sympy.Integer(0)
        for mon, c in self.terms().items():
            term = sympy.Rational(int(c.p), int(c.q))
            for s, e in zip(syms, mon):
                if e:
                    term *= s ** int(e)
            expr += term
        return expr


def latex_name(name: str) -> str:
    """The LaTeX form of a variable name: ``W1[0,2]`` -> ``W^{(1)}_{0,2}``, ``b2[1]`` ->
    ``b^{(2)}_{1}``; other names pass through."""
    import re
    m = re.fullmatch(r"([A-Za-z]+)(\d+)\[([\d,]+)\]", name)
    if m:
        return f"{m.group(1)}^{{({m.group(2)})}}_{{{m.group(3)}}}"
    return name


RENDER_BY_FLINT_ABOVE = 512
"""Rings with more variables than this print a polynomial by FLINT's own writer (its terms in
the ring's degrevlex order, not deglex): each exponent vector read in Python is as long as the
ring (`fiber --json` of a 10-560-3 network, 7 873 polynomials over ~6 000 variables: 35 s to
text, ~1.5 s by FLINT; session 40 fiber audit)."""


def _render(p: Polynomial, latex: bool) -> str:
    if not latex and len(p.ring.names) > RENDER_BY_FLINT_ABOVE:
        return p._rep.str()
    # the monomials restricted to the variables that occur (their max degree is > 0): the same
    # order and factors as the dense exponent vectors, whose other entries are 0 in every term
    # (a fiber's 3 050 equalities over 2 410 variables took 5 s dense, the fiber itself 0.9 s)
    raw = p._rep.to_dict()
    if not raw:
        return "0"
    degrees = p._rep.degrees()
    used = [i for i, e in enumerate(degrees) if e] if len(degrees) <= 64 else \
        _nonzero_positions(degrees)
    names = [p.ring.names[i] for i in used]
    terms = sorted(((tuple(mon[i] for i in used), c) for mon, c in raw.items()),
                   key=lambda t: (-sum(t[0]), [-e for e in t[0]]))
    out = []
    for mon, c in terms:
        factors = []
        for name, e in zip(names, mon):
            if e:
                nm = latex_name(name) if latex else name
                factors.append(nm if e == 1 else (f"{{{nm}}}^{{{e}}}" if latex else f"{nm}^{e}"))
        mag = abs(c)
        if factors:
            coef = "" if mag == 1 else (q_latex(mag) + " " if latex else q_str(mag) + "*")
            body = coef + ((" " if latex else "*").join(factors))
        else:
            body = q_latex(mag) if latex else q_str(mag)
        sign = "-" if c < 0 else "+"
        out.append((sign, body))
    s = ("-" if out[0][0] == "-" else "") + out[0][1]
    for sign, body in out[1:]:
        s += f" {sign} {body}"
    return s


def _nonzero_positions(values) -> list[int]:
    """The indices of the non-zero entries of a long tuple of ints (one numpy pass)."""
    import numpy as np
    return np.flatnonzero(np.fromiter(values, dtype=np.int64, count=len(values))).tolist()


# ------------------------------------------------------------------------------------------------
# parsing
# ------------------------------------------------------------------------------------------------
_NUMBER = re.compile(r"(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


class _Parser:
    """Recursive descent: expr := term (± term)*; term := unary ((*|/) unary | implicit)*;
    unary := ± unary | power; power := atom ((^|**) integer)?; atom := number | name | (expr)."""

    def __init__(self, ring: Ring, text: str, max_degree=None, max_terms=None):
        self.ring, self.text, self.i = ring, text, 0
        self.names = sorted(ring.names, key=len, reverse=True)
        self.max_degree, self.max_terms = max_degree, max_terms

    def _product(self, p: Polynomial, q: Polynomial) -> Polynomial:
        if self.max_degree is not None and p.total_degree() + q.total_degree() > self.max_degree:
            self.fail(f"a product of degree {p.total_degree() + q.total_degree()} (more than "
                      f"{self.max_degree})")
        if self.max_terms is not None and len(p._rep) * len(q._rep) > self.max_terms:
            self.fail(f"a product of up to {len(p._rep) * len(q._rep)} terms (more than "
                      f"{self.max_terms})")
        return p * q

    def _power(self, p: Polynomial, e: int) -> Polynomial:
        if not p.is_constant() and self.max_degree is not None and p.total_degree() * e > self.max_degree:
            self.fail(f"a power of degree {p.total_degree() * e} (more than {self.max_degree})")
        if (not p.is_constant() and self.max_terms is not None and e > 1
                and len(p._rep) ** min(e, 64) > self.max_terms):
            self.fail(f"a power of a {len(p._rep)}-term polynomial (more than {self.max_terms} terms)")
        if p.is_constant() and self.max_degree is not None and e > 4096:
            self.fail(f"a constant to the power {e}")
        return p ** e

    def fail(self, why: str):
        raise InputError(f"cannot parse polynomial {self.text!r}: {why}")

    def peek(self) -> str:
        t = self.text
        while self.i < len(t) and t[self.i].isspace():
            self.i += 1
        return t[self.i] if self.i < len(t) else ""

    def parse(self) -> Polynomial:
        if not self.peek():
            self.fail("empty")
        p = self.expr()
        if self.peek():
            self.fail(f"unexpected {self.text[self.i:]!r}")
        return p

    def expr(self) -> Polynomial:
        p = self.term()
        while self.peek() in ("+", "-"):
            op = self.text[self.i]
            self.i += 1
            q = self.term()
            p = p + q if op == "+" else p - q
        return p

    def term(self) -> Polynomial:
        p = self.unary()
        while True:
            c = self.peek()
            if c == "*" and not self.text.startswith("**", self.i):
                self.i += 1
                p = self._product(p, self.unary())
            elif c == "/":
                self.i += 1
                q = self.unary()
                if not q.is_constant() or q.constant_value() == 0:
                    self.fail("division by a non-constant or zero")
                p = p / q.constant_value()
            elif c == "(" or (c and self._name_here() is not None):
                p = self._product(p, self.power())   # implicit product: 2x, 3(x + 1), x y
            else:
                return p

    def unary(self) -> Polynomial:
        c = self.peek()
        if c in ("+", "-"):
            self.i += 1
            p = self.unary()
            return -p if c == "-" else p
        return self.power()

    def power(self) -> Polynomial:
        p = self.atom()
        c = self.peek()
        if c == "^" or self.text.startswith("**", self.i):
            self.i += 1 if c == "^" else 2
            self.peek()
            m = re.compile(r"\d+").match(self.text, self.i)
            if not m:
                self.fail("exponent must be a non-negative integer")
            self.i = m.end()
            p = self._power(p, int(m.group()))
        return p

    def _name_here(self):
        t = self.text
        for n in self.names:
            if t.startswith(n, self.i):
                end = self.i + len(n)
                if n[-1:].isalnum() or n[-1:] == "_":
                    if end < len(t) and (t[end].isalnum() or t[end] == "_"):
                        continue
                return n
        return None

    def atom(self) -> Polynomial:
        c = self.peek()
        if c == "(":
            self.i += 1
            p = self.expr()
            if self.peek() != ")":
                self.fail("missing ')'")
            self.i += 1
            return p
        n = self._name_here()
        if n is not None:
            self.i += len(n)
            return self.ring.gen(n)
        m = _NUMBER.match(self.text, self.i)
        if m:
            self.i = m.end()
            return self.ring.constant(to_q(m.group()))
        self.fail(f"unknown symbol at {self.text[self.i:self.i + 12]!r}" if c else "unexpected end")


# ------------------------------------------------------------------------------------------------
# Jacobians, Gröbner bases, dimension of an ideal
# ------------------------------------------------------------------------------------------------
def jacobian(polys: Sequence[Polynomial], variables: Sequence[str | int] | None = None
             ) -> list[list[Polynomial]]:
    """Rows ∂p_i/∂v_j (all variables of the ring by default)."""
    polys = list(polys)
    if not polys:
        return []
    ring = polys[0].ring
    idx = range(ring.nvars) if variables is None else [ring.index(v) for v in variables]
    return [[p.diff(j) for j in idx] for p in polys]


def jacobian_at(polys: Sequence[Polynomial], point, variables: Sequence[str | int] | None = None
                ) -> QMatrix:
    """The Jacobian evaluated exactly at *point* (mapping name -> value, or a full sequence)."""
    rows = jacobian(polys, variables)
    if not rows:
        return QMatrix.zeros(0, 0 if not polys else polys[0].ring.nvars)
    return QMatrix.from_rows([[d(point) for d in r] for r in rows])


def groebner_basis(polys: Sequence[Polynomial], *, limits: tuple[int, int, int] | None = None
                   ) -> list[Polynomial] | None:
    """Reduced Gröbner basis (degrevlex, monic) of the ideal generated by *polys*.

    FLINT's naive Buchberger (``fmpz_mpoly_vec.buchberger_naive``) on integer multiples of the
    polynomials, then autoreduction.  It is not interruptible: pass ``limits`` =
    (max basis length, max polynomial length, max coefficient bits) for untrusted sizes; then
    None is returned when a limit is hit.

    >>> R = Ring.get(("x", "y"))
    >>> x, y = R.gens()
    >>> groebner_basis([x**2 - y, x * y - 1])
    [y^2 - x, x*y - 1, x^2 - y]
    """
    polys = [p for p in polys if not p.is_zero()]
    if not polys:
        return []
    ring = polys[0].ring
    for p in polys:
        if p.ring is not ring:
            raise IncompatibleRingError(ring, p.ring)
    if ring.nvars == 0:
        return [ring.constant(1)]
    zctx = fmpz_mpoly_ctx.get(ring.names, "degrevlex")
    zs = [zctx.from_dict(_integer_terms(p)) for p in polys]
    vec = fmpz_mpoly_vec(zs, zctx)
    if limits is not None:
        gb, ok = vec.buchberger_naive(limits=tuple(int(v) for v in limits))
        if not ok:
            return None
    else:
        gb = vec.buchberger_naive()
    gb = gb.autoreduction()
    out = []
    for i in range(len(gb)):
        g = gb[i]
        if g.is_zero():
            continue
        q = ring.from_dict({k: to_q(int(v)) for k, v in g.to_dict().items()})
        out.append(q / q.terms()[_leading_monomial(q)])
    out.sort(key=_lm_key)
    return out


def ideal_dimension(polys: Sequence[Polynomial], *, limits: tuple[int, int, int] | None = None
                    ) -> int | None:
    """Krull dimension of the ideal (= dimension of its complex variety; an upper bound for the
    real dimension of any subset of the real zero set); -1 for the unit ideal (empty variety).

    Computed from the leading monomials of a Gröbner basis: the largest set of variables no
    leading monomial is supported in.  None when *limits* stop the Gröbner computation.
    """
    polys = list(polys)
    if not polys or all(p.is_zero() for p in polys):
        return polys[0].ring.nvars if polys else None
    ring = polys[0].ring
    gb = groebner_basis(polys, limits=limits)
    if gb is None:
        return None
    if any(g.is_constant() for g in gb):
        return -1
    supports = [frozenset(i for i, e in enumerate(_leading_monomial(g)) if e) for g in gb]
    return _max_independent(ring.nvars, supports)


def _integer_terms(p: Polynomial) -> dict:
    terms = p.terms()
    den = 1
    for c in terms.values():
        den = den * int(c.q) // _gcd(den, int(c.q))
    return {k: int(c * den) for k, c in terms.items()}


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _leading_monomial(p: Polynomial) -> tuple:
    """Leading exponent vector in degrevlex order."""
    return max(p.terms(), key=lambda m: (sum(m), tuple(-e for e in reversed(m))))


def _lm_key(p: Polynomial):
    m = _leading_monomial(p)
    return (sum(m), tuple(-e for e in reversed(m)))


def _max_independent(n: int, supports: list) -> int:
    """Largest S ⊆ {0..n-1} containing no support (a set of variables of a leading monomial)."""
    best = -1

    def rec(i, chosen, size):
        nonlocal best
        if size + (n - i) <= best:
            return
        if i == n:
            best = max(best, size)
            return
        new = chosen | {i}
        if not any(s <= new for s in supports):
            rec(i + 1, new, size + 1)
        rec(i + 1, chosen, size)

    rec(0, frozenset(), 0)
    return best


def number_of_terms(p: Polynomial) -> int:
    """Number of monomials of *p* (one FLINT call; used to bound work in hot loops).

    >>> x, y = Ring.get(("x", "y")).gens()
    >>> number_of_terms((x + y) ** 2), number_of_terms(x - x)
    (3, 0)
    """
    return len(p._rep)
