"""Polynomials over Q in named variables, on ``flint.fmpq_mpoly`` (STYLE C3, C11).

One ring per tuple of variable names, interned: ``Ring.get(names)`` returns the same object for
equal names, and mixing rings raises :class:`~algebra.exceptions.IncompatibleRingError`.  The
parameter ring of a network has the variables ``Network.parameter_names()``.

>>> R = Ring.get(("x", "y"))
>>> x, y = R.gens()
>>> p = (x + y) ** 2 - 2 * x * y
>>> p, p.diff("x"), p({"x": 1, "y": "1/2"})
(x^2 + y^2, 2*x, 5/4)
"""

from __future__ import annotations

from typing import Mapping, Sequence

from flint import fmpq, fmpq_mpoly, fmpq_mpoly_ctx

from .exceptions import DimensionMismatchError, IncompatibleRingError, InputError
from .rationals import q_latex, q_str, to_q

__all__ = ["Ring", "Polynomial", "parameter_ring"]


class Ring:
    """Q[v_1, …, v_n] with named variables (degrevlex), interned by names."""

    __slots__ = ("_ctx", "names", "_index")
    _cache: dict[tuple[str, ...], "Ring"] = {}

    def __init__(self, names: Sequence[str]):  # use Ring.get
        self.names = tuple(names)
        self._ctx = fmpq_mpoly_ctx.get(self.names, "degrevlex")
        self._index = {n: i for i, n in enumerate(self.names)}

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
        return tuple(Polynomial._from_rep(g, self) for g in self._ctx.gens())

    def gen(self, name: str | int) -> "Polynomial":
        return Polynomial._from_rep(self._ctx.gens()[self.index(name)], self)

    def constant(self, c: object) -> "Polynomial":
        return Polynomial._from_rep(self._ctx.from_dict({(0,) * self.nvars: to_q(c)}) if to_q(c) != 0
                                    else self._ctx.from_dict({}), self)

    def zero(self) -> "Polynomial":
        return Polynomial._from_rep(self._ctx.from_dict({}), self)

    def from_dict(self, terms: Mapping[tuple[int, ...], object]) -> "Polynomial":
        """From ``{exponent tuple: coefficient}``."""
        return Polynomial._from_rep(self._ctx.from_dict({tuple(k): to_q(v) for k, v in terms.items()
                                                         if to_q(v) != 0}), self)

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

    def parse(self, text: str) -> "Polynomial":
        """Parse a polynomial written with this ring's names, ``+ - * ^ **`` and rationals."""
        import sympy  # heavy, imported only here
        syms = {n: sympy.Symbol(n) for n in self.names}
        try:
            expr = sympy.parse_expr(text.replace("^", "**"), local_dict=_sympy_locals(self.names, syms))
            poly = sympy.Poly(expr, *[syms[n] for n in self.names], domain="QQ")
        except Exception as exc:  # sympy raises many kinds
            raise InputError(f"cannot parse polynomial {text!r}: {exc}") from None
        return self.from_dict({k: to_q(f"{v.p}/{v.q}") for k, v in poly.as_dict().items()})

    def __repr__(self) -> str:
        shown = ", ".join(self.names[:4]) + (", …" if self.nvars > 4 else "")
        return f"Ring(Q[{shown}], nvars={self.nvars})"

    def __reduce__(self):
        return (Ring.get, (self.names,))


def _sympy_locals(names, syms):
    # names like W1[0,2] are not identifiers: map them through placeholders
    return {n: syms[n] for n in names if n.isidentifier()}


def parameter_ring(names: Sequence[str]) -> Ring:
    """The polynomial ring whose variables are the given parameter names (interned)."""
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
                    term *= s ** e
            expr += term
        return expr


def _latex_name(name: str) -> str:
    # W1[0,2] -> W^{(1)}_{0,2}; b2[1] -> b^{(2)}_{1}; other names pass through
    import re
    m = re.fullmatch(r"([A-Za-z]+)(\d+)\[([\d,]+)\]", name)
    if m:
        return f"{m.group(1)}^{{({m.group(2)})}}_{{{m.group(3)}}}"
    return name


def _render(p: Polynomial, latex: bool) -> str:
    terms = sorted(p.terms().items(), key=lambda t: (-sum(t[0]), [-e for e in t[0]]))
    if not terms:
        return "0"
    out = []
    for mon, c in terms:
        factors = []
        for name, e in zip(p.ring.names, mon):
            if e:
                nm = _latex_name(name) if latex else name
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
