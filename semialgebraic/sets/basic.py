r"""Semi-algebraic sets over Q: polynomial equalities and sign conditions.

A :class:`BasicSet` is ``{x ∈ R^n : p_i(x) = 0, q_j(x) > 0, r_k(x) >= 0, s_l(x) ≠ 0}`` with
polynomials in one :class:`~algebra.polynomials.Ring`; a :class:`SemialgebraicSet` is a finite
union of them.  Membership is exact.  Dimensions are returned as :class:`Dimension` values that
say whether they are exact or bounds, and why:

* *Regular points* (exact, certified).  At a point p of the set where the Jacobian of the m
  equalities has rank m (independent gradients), the zero set is a manifold of dimension
  ``n - m`` near p (implicit function theorem); strict conditions stay strict near p, and a
  tight ``r_k >= 0`` is handled by an exact LP for a tangent direction v (``J v = 0``,
  ``∇r_k·v > 0``).  Then the local dimension at p is ``n - m``, a lower bound for the dimension.
* *Upper bounds.*  Local: ``n - rank J(p)`` (the Zariski tangent space contains the tangent
  cone).  Global: ``n - rank A`` for linear equalities, else the Krull dimension of the ideal of
  the equalities (reduced Gröbner basis, FLINT), which bounds the real dimension from above.
  ``-1`` denotes the empty set (1 in the ideal, or an exact Farkas/Motzkin certificate).
* The dimension is exact when the bounds meet; otherwise :meth:`Dimension.between` is returned
  with the reason (e.g. the apex of a cone, where the Jacobian vanishes).

>>> from algebra.polynomials import Ring
>>> R = Ring.get(("x", "y"))
>>> x, y = R.gens()
>>> arc = BasicSet(R, equalities=[x**2 + y**2 - 1], positive=[y])
>>> arc
{x^2 + y^2 - 1 = 0, y > 0}
>>> arc.contains({"x": 0, "y": 1}), arc.contains([0, -1])
(True, False)
>>> arc.dimension()
Dimension(1: regular point (0, 1): n - rank J = 2 - 1; upper bound: Krull dimension of the ideal = 1)
>>> BasicSet.from_json(arc.to_json()) == arc
True
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Iterable, Mapping

from algebra.exceptions import DimensionMismatchError, IncompatibleRingError, InputError
from algebra.linalg import QMatrix
from algebra.polynomials import Polynomial, Ring, ideal_dimension, jacobian_at, latex_name
from algebra.rationals import Q, q_json, q_str, to_q

from ..lp import feasible

__all__ = ["Dimension", "BasicSet", "SemialgebraicSet", "fiber_repr"]

GROEBNER_LIMITS = (200, 2000, 4096)
"""(basis length, polynomial length, coefficient bits) limits of the Gröbner upper bound; beyond
them the bound falls back to ``n - 1`` (FLINT's Buchberger cannot be interrupted)."""

_KINDS = ("equalities", "positive", "nonnegative", "nonzero")
_SYMBOL = {"equalities": "=", "positive": ">", "nonnegative": ">=", "nonzero": "!="}
_LATEX = {"equalities": "=", "positive": ">", "nonnegative": r"\geq", "nonzero": r"\neq"}


@dataclass(frozen=True)
class Dimension:
    """A dimension that says whether it is exact.

    ``exact`` True: ``value`` is certified (``lower == upper == value``). Otherwise ``lower`` and
    ``upper`` bound it (either may be None when unknown) and ``value`` is None.  ``reason`` says how
    it was obtained (e.g. "n - rank of the Jacobian at a regular point").  ``-1`` is the
    dimension of the empty set.

    >>> Dimension.of(3, "regular point").to_json()
    {'dimension': 3, 'exact': True, 'lower': 3, 'upper': 3, 'reason': 'regular point'}
    >>> Dimension.between(2, 4, "sandwich did not close")
    Dimension(between 2 and 4: sandwich did not close)
    """

    lower: int | None
    upper: int | None
    reason: str = ""

    @classmethod
    def of(cls, value: int, reason: str = "") -> "Dimension":
        return cls(int(value), int(value), reason)

    @classmethod
    def between(cls, lower: int | None, upper: int | None, reason: str = "") -> "Dimension":
        if lower is not None and upper is not None and lower > upper:
            raise ValueError(f"lower bound {lower} exceeds upper bound {upper}")
        return cls(lower, upper, reason)

    @property
    def exact(self) -> bool:
        return self.lower is not None and self.lower == self.upper

    @property
    def value(self) -> int | None:
        return self.lower if self.exact else None

    def to_json(self) -> dict:
        return {"dimension": self.value, "exact": self.exact, "lower": self.lower,
                "upper": self.upper, "reason": self.reason}

    def words(self) -> str:
        """``"4"``, ``"at least 4"``, ``"at most 5"``, ``"between 4 and 5"`` or ``"not known"``.

        >>> Dimension.between(4, None).words(), Dimension.of(3).words()
        ('at least 4', '3')
        """
        if self.exact:
            return str(self.value)
        if self.lower is not None and self.upper is not None:
            return f"between {self.lower} and {self.upper}"
        if self.lower is not None:
            return f"at least {self.lower}"
        return f"at most {self.upper}" if self.upper is not None else "not known"

    def __repr__(self) -> str:
        if self.exact:
            return f"Dimension({self.value}{': ' + self.reason if self.reason else ''})"
        return f"Dimension(between {self.lower} and {self.upper}: {self.reason})"


class BasicSet:
    """``{p_i = 0, q_j > 0, r_k >= 0, s_l ≠ 0}`` over one ring.

    Parameters
    ----------
    ring : Ring
    equalities, positive, nonnegative, nonzero : iterables of Polynomial (or str, parsed)
    points : iterable of points, optional
        Known points of the set (hints for :meth:`sample`; each is checked before use).

    Points are mappings ``name -> value`` (every variable) or sequences in ring order.
    """

    __slots__ = ("ring", "equalities", "positive", "nonnegative", "nonzero", "points")

    def __init__(self, ring: Ring, equalities: Iterable = (), positive: Iterable = (),
                 nonnegative: Iterable = (), nonzero: Iterable = (), *, points: Iterable = ()):
        if not isinstance(ring, Ring):
            raise InputError(f"BasicSet needs a Ring, got {type(ring).__name__}")
        self.ring = ring
        for kind, polys in zip(_KINDS, (equalities, positive, nonnegative, nonzero)):
            setattr(self, kind, tuple(self._poly(p) for p in polys))
        self.points = tuple(self._point(p) for p in points)

    def _poly(self, p) -> Polynomial:
        if isinstance(p, Polynomial):
            if p.ring is not self.ring:
                raise IncompatibleRingError(self.ring, p.ring)
            return p
        if isinstance(p, str):
            return self.ring.parse(p)
        return self.ring.constant(p)

    def _point(self, point) -> tuple:
        n = self.ring.nvars
        if isinstance(point, Mapping):
            try:
                vals = tuple(to_q(point[name]) for name in self.ring.names)
            except KeyError as exc:
                raise InputError(f"point misses the variable {exc.args[0]!r}") from None
        else:
            vals = tuple(to_q(v) for v in point)
        if len(vals) != n:
            raise DimensionMismatchError("point", len(vals), n)
        return vals

    # -- basic queries ------------------------------------------------------------------------
    @property
    def nvars(self) -> int:
        return self.ring.nvars

    def conditions(self):
        """``(kind, polynomial)`` pairs, kinds in ``equalities, positive, nonnegative, nonzero``."""
        for kind in _KINDS:
            for p in getattr(self, kind):
                yield kind, p

    def contains(self, point) -> bool:
        """Exact membership."""
        x = self._point(point)
        return (all(p(x) == 0 for p in self.equalities) and all(p(x) > 0 for p in self.positive)
                and all(p(x) >= 0 for p in self.nonnegative) and all(p(x) != 0 for p in self.nonzero))

    def closure_may_contain(self, point) -> bool:
        """False only if *point* is certainly not in the closure (strict relaxed to ``>=``)."""
        x = self._point(point)
        return (all(p(x) == 0 for p in self.equalities) and all(p(x) >= 0 for p in self.positive)
                and all(p(x) >= 0 for p in self.nonnegative))

    def intersect(self, other: "BasicSet | SemialgebraicSet"):
        if isinstance(other, SemialgebraicSet):
            return other.intersect(self)
        if other.ring is not self.ring:
            raise IncompatibleRingError(self.ring, other.ring)
        return BasicSet(self.ring, *(getattr(self, k) + getattr(other, k) for k in _KINDS),
                        points=[p for p in self.points + other.points])

    def subs(self, values: Mapping[str, object]) -> "BasicSet":
        """Substitute values for some variables: a set in the ring of the remaining ones."""
        values = {k: to_q(v) for k, v in values.items()}
        for k in values:
            self.ring.index(k)
        rest = tuple(n for n in self.ring.names if n not in values)
        target = Ring.get(rest)
        images = [target.constant(values[n]) if n in values else target.gen(n)
                  for n in self.ring.names]

        def move(p):
            return p.compose(images) if self.ring.nvars else target.constant(p.constant_value())

        pts = [tuple(v for n, v in zip(self.ring.names, pt) if n not in values)
               for pt in self.points
               if all(pt[self.ring.index(n)] == v for n, v in values.items())]
        return BasicSet(target, *([move(p) for p in getattr(self, k)] for k in _KINDS), points=pts)

    # -- samples --------------------------------------------------------------------------------
    def sample(self) -> tuple | None:
        """A point of the set (ring order), or None when none was found (not a proof of
        emptiness: see :meth:`dimension`, which reports proven emptiness as -1)."""
        for p in self.points:
            if self.contains(p):
                return p
        found = self._linear_sample()
        if found is not None:
            return found[0] if found[0] is not None else None
        for p in self._candidates():
            if self.contains(p):
                return p
        return None

    def _all_linear(self) -> bool:
        return all(p.total_degree() <= 1 for _, p in self.conditions())

    def _linear_rows(self, polys):
        rows, rhs = [], []
        n = self.nvars
        for p in polys:
            terms = p.terms()
            row = [Q(0)] * n
            for mon, c in terms.items():
                for i, e in enumerate(mon):
                    if e:
                        row[i] = c
            rows.append(row)
            rhs.append(-p.constant_value())
        return rows, rhs

    def _linear_sample(self):
        """For linear data: (point, None) or (None, 'empty' proof); None if not linear."""
        if not self._all_linear():
            return None
        n = self.nvars
        A_eq, b_eq = self._linear_rows(self.equalities)
        P, bp = self._linear_rows(self.positive)
        N, bn = self._linear_rows(self.nonnegative)
        Z, bz = self._linear_rows(self.nonzero)
        if len(Z) > 8:
            return None
        for signs in itertools.product((1, -1), repeat=len(Z)):
            A_lt = [[-v for v in r] for r in P] + [[-s * v for v in r] for s, r in zip(signs, Z)]
            b_lt = [-b for b in bp] + [-s * b for s, b in zip(signs, bz)]
            A_le = [[-v for v in r] for r in N]
            b_le = [-b for b in bn]
            res = feasible(A_eq or None, b_eq or None, A_lt or None, b_lt or None, A_le or None,
                           b_le or None, n=n)
            if res.feasible:
                return res.point, None
        return None, "empty: exact Motzkin certificates for every sign choice of the ≠ conditions"

    def _candidates(self):
        """Deterministic small candidate points (grid, then seeded random rationals)."""
        n = self.nvars
        if n <= 6:
            for p in itertools.product((0, 1, -1), repeat=n):
                yield tuple(Q(v) for v in p)
        rng = random.Random(0)
        for _ in range(64):
            yield tuple(Q(rng.randint(-8, 8), rng.randint(1, 4)) for _ in range(n))

    # -- dimension ------------------------------------------------------------------------------
    def _equalities(self):
        return [p for p in self.equalities if not p.is_zero()]

    def local_dimension(self, point) -> Dimension:
        """Dimension of the set near *point* (which must lie in the set)."""
        x = self._point(point)
        if not self.contains(x):
            raise InputError("local_dimension: the point is not in the set")
        n = self.nvars
        eqs = self._equalities()
        J = jacobian_at(eqs, x) if eqs else QMatrix.zeros(0, n)
        r = J.rank() if eqs else 0
        tight = [p for p in self.nonnegative if p(x) == 0]
        shown = "(" + ", ".join(q_str(v) for v in x) + ")"
        regular = r == len(eqs)
        if regular:
            if tight:
                G = jacobian_at(tight, x)
                res = feasible(A_eq=J if eqs else None, b_eq=[0] * r if eqs else None,
                               A_lt=-G, b_lt=[0] * len(tight), n=n)
                if not res.feasible:
                    return Dimension.between(0, n - r, f"regular point {shown} with tight "
                                             "conditions r >= 0 and no tangent direction into "
                                             "them: upper bound n - rank J")
            return Dimension.of(n - r, f"regular point {shown}: n - rank J = {n} - {r}")
        upper = n - r
        why = f"singular point {shown} (rank J = {r} < {len(eqs)} equalities): upper bound n - rank J"
        dimI = self._ideal_dimension(eqs)
        if dimI is not None and dimI < upper:
            upper, why = dimI, why + f", Krull dimension of the ideal = {dimI}"
        return Dimension.between(0, upper, why)

    def _ideal_dimension(self, eqs):
        if not eqs:
            return self.nvars
        if all(p.total_degree() <= 1 for p in eqs):
            A, b = self._linear_rows(eqs)
            M = QMatrix.from_rows(A, ncols=self.nvars)
            if M.solve_general(b) is None:
                return -1
            return self.nvars - M.rank()
        return ideal_dimension(eqs, limits=GROEBNER_LIMITS)

    def dimension(self) -> Dimension:
        """Dimension of the set, exact when certified (see the module docstring), else bounds."""
        n = self.nvars
        eqs = self._equalities()
        if any(p.is_constant() and p.constant_value() != 0 for p in eqs):
            return Dimension.of(-1, "empty: a non-zero constant equality")
        dimI = self._ideal_dimension(eqs)
        if dimI == -1:
            return Dimension.of(-1, "empty: the equalities generate the unit ideal")
        if dimI is None:
            upper, up_why = (n - 1 if eqs else n), "upper bound n - 1 (Gröbner limits reached)"
        else:
            upper = dimI
            up_why = ("upper bound: Krull dimension of the ideal" if eqs and not self._all_linear_eqs()
                      else "upper bound: n - rank of the linear equalities" if eqs else "upper bound n")
            up_why += f" = {upper}"
        lin = self._linear_sample()
        if lin is not None and lin[0] is None:
            return Dimension.of(-1, lin[1])
        def candidates():
            if lin is not None:
                yield lin[0]
            yield from (p for p in self.points if self.contains(p))
            if lin is None:
                tried = 0
                for p in self._candidates():
                    if self.contains(p):
                        tried += 1
                        yield p
                        if tried >= 32:
                            return

        best = None
        for p in candidates():
            ld = self.local_dimension(p)
            if best is None or (ld.lower or 0) > (best.lower or 0) or (ld.exact and not best.exact
                                                                    and ld.lower == best.lower):
                best = ld
            if ld.exact and ld.value == upper:
                break
        if best is None:
            return Dimension.between(None, upper, f"no point of the set found; {up_why}")
        lower = best.lower if best.exact else 0
        if lower == upper:
            return Dimension.of(upper, f"{best.reason}; {up_why}")
        return Dimension.between(lower, upper, f"lower bound: {best.reason}; {up_why}")

    def _all_linear_eqs(self) -> bool:
        return all(p.total_degree() <= 1 for p in self.equalities)

    # -- output ---------------------------------------------------------------------------------
    def __str__(self) -> str:
        parts = [f"{p} {_SYMBOL[k]} 0" for k, p in self.conditions()]
        return "{" + ", ".join(parts) + "}" if parts else "{all of R^" + str(self.nvars) + "}"

    __repr__ = __str__

    def to_latex(self) -> str:
        var = ", ".join(latex_name(v) for v in self.ring.names)
        conds = [f"{p.to_latex()} {_LATEX[k]} 0" for k, p in self.conditions()]
        body = r",\ ".join(conds) if conds else r"\text{no conditions}"
        return rf"\left\{{ ({var}) \in \mathbb{{R}}^{{{self.nvars}}} : {body} \right\}}"

    def _repr_latex_(self) -> str:
        return f"${self.to_latex()}$"

    def _repr_html_(self) -> str:  # notebooks: semialgebraic/plot/notebook.py
        from ..plot import notebook
        return notebook.set_html(self)

    def to_json(self) -> dict:
        out = {"type": "basic_set", "variables": list(self.ring.names)}
        for k in _KINDS:
            out[k] = [str(p) for p in getattr(self, k)]
        if self.points:
            out["points"] = [[q_json(v) for v in p] for p in self.points]
        return out

    @classmethod
    def from_json(cls, data: Mapping) -> "BasicSet":
        if not isinstance(data, Mapping) or data.get("type", "basic_set") != "basic_set":
            raise InputError("expected a basic_set JSON object")
        try:
            ring = Ring.get(tuple(data["variables"]))
        except (KeyError, TypeError):
            raise InputError("basic_set JSON needs 'variables'") from None
        return cls(ring, *([ring.parse(s) for s in data.get(k, [])] for k in _KINDS),
                   points=data.get("points", ()))

    def to_sympy(self):
        """A sympy Boolean (``And`` of ``Eq``/``>``/``>=``/``Ne``) in symbols named like the ring."""
        import sympy
        parts = []
        for k, p in self.conditions():
            e = p.to_sympy()
            parts.append({"equalities": sympy.Eq, "positive": sympy.StrictGreaterThan,
                          "nonnegative": sympy.GreaterThan, "nonzero": sympy.Ne}[k](e, 0))
        return sympy.And(*parts)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BasicSet):
            return NotImplemented
        return self.ring is other.ring and all(getattr(self, k) == getattr(other, k) for k in _KINDS)

    def __hash__(self) -> int:
        return hash((self.ring.names,) + tuple(getattr(self, k) for k in _KINDS))


class SemialgebraicSet:
    """A finite union of :class:`BasicSet` components over one ring.

    Parameters
    ----------
    components : iterable of BasicSet or SemialgebraicSet
        Unions are flattened into their components.
    ring : Ring, optional
        Needed only for the empty union; otherwise the ring of the components.

    Raises
    ------
    IncompatibleRingError
        If the components live in different rings.

    Examples
    --------
    >>> from algebra.polynomials import Ring
    >>> R = Ring.get(("x",))
    >>> x, = R.gens()
    >>> S = SemialgebraicSet([BasicSet(R, positive=[x - 1]), BasicSet(R, equalities=[x])])
    >>> S.contains([0]), S.contains(["1/2"]), S.dimension().value
    (True, False, 1)
    """

    __slots__ = ("components", "ring")

    def __init__(self, components: Iterable[BasicSet], ring: Ring | None = None):
        comps = []
        for c in components:
            comps.extend(c.components if isinstance(c, SemialgebraicSet) else [c])
        self.components = tuple(comps)
        self.ring = ring if ring is not None else (comps[0].ring if comps else None)
        for c in comps:
            if c.ring is not self.ring:
                raise IncompatibleRingError(self.ring, c.ring)

    @property
    def number_of_components(self) -> int:
        return len(self.components)

    def contains(self, point) -> bool:
        return any(c.contains(point) for c in self.components)

    def intersect(self, other) -> "SemialgebraicSet":
        others = other.components if isinstance(other, SemialgebraicSet) else (other,)
        return SemialgebraicSet([a.intersect(b) for a in self.components for b in others], self.ring)

    def union(self, other) -> "SemialgebraicSet":
        others = other.components if isinstance(other, SemialgebraicSet) else (other,)
        return SemialgebraicSet(self.components + tuple(others), self.ring)

    def subs(self, values: Mapping[str, object]) -> "SemialgebraicSet":
        comps = [c.subs(values) for c in self.components]
        ring = comps[0].ring if comps else None
        return SemialgebraicSet(comps, ring)

    def sample(self) -> tuple | None:
        for c in self.components:
            p = c.sample()
            if p is not None:
                return p
        return None

    def dimension(self) -> Dimension:
        """Max over the components (exact when the bounds meet)."""
        if not self.components:
            return Dimension.of(-1, "empty union")
        dims = [c.dimension() for c in self.components]
        lowers = [d.lower for d in dims if d.lower is not None]
        lower = max(lowers) if lowers else None
        upper = None if any(d.upper is None for d in dims) else max(d.upper for d in dims)
        why = "max over components: " + "; ".join(f"[{i}] {d!r}" for i, d in enumerate(dims))
        if lower is not None and lower == upper:
            return Dimension.of(lower, why)
        return Dimension.between(lower, upper, why)

    def local_dimension(self, point) -> Dimension:
        """Dimension near *point* (in the set): max over the components containing it; components
        whose closure might reach the point widen the upper bound."""
        inside = [c for c in self.components if c.contains(point)]
        if not inside:
            raise InputError("local_dimension: the point is not in the set")
        dims = [c.local_dimension(point) for c in inside]
        lower = max(d.lower if d.exact else 0 for d in dims)
        upper = max(d.upper for d in dims)
        why = "max over components containing the point"
        for c in self.components:
            if c not in inside and c.closure_may_contain(point):
                d = c.dimension()
                up = d.upper if d.upper is not None else c.nvars
                if up > lower:
                    upper = max(upper, up)
                    why += "; a component not containing the point may reach it (closure)"
        if lower == upper:
            return Dimension.of(lower, why + ": " + "; ".join(map(repr, dims)))
        return Dimension.between(lower, upper, why + ": " + "; ".join(map(repr, dims)))

    def __str__(self) -> str:
        return " ∪ ".join(str(c) for c in self.components) if self.components else "∅"

    __repr__ = __str__

    def to_latex(self) -> str:
        return r" \cup ".join(c.to_latex() for c in self.components) if self.components else r"\emptyset"

    def _repr_latex_(self) -> str:
        return f"${self.to_latex()}$"

    def _repr_html_(self) -> str:  # notebooks: semialgebraic/plot/notebook.py
        from ..plot import notebook
        return notebook.set_html(self)

    def to_json(self) -> dict:
        return {"type": "semialgebraic_set",
                "variables": list(self.ring.names) if self.ring is not None else [],
                "components": [c.to_json() for c in self.components]}

    @classmethod
    def from_json(cls, data: Mapping) -> "SemialgebraicSet":
        if not isinstance(data, Mapping) or data.get("type") != "semialgebraic_set":
            raise InputError("expected a semialgebraic_set JSON object")
        ring = Ring.get(tuple(data.get("variables", ())))
        return cls([BasicSet.from_json(c) for c in data.get("components", [])], ring)

    def to_sympy(self):
        import sympy
        return sympy.Or(*[c.to_sympy() for c in self.components])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SemialgebraicSet):
            return NotImplemented
        return self.ring is other.ring and self.components == other.components

    def __hash__(self) -> int:
        return hash(self.components)


def fiber_repr(kind: str, fib) -> str:
    """A fiber's repr: its kind, the network's widths, the domain, dimension, components and
    orbits (the fibers printed as ``<… object at 0x…>``; session 39 API audit)."""
    num = fib.number_of_components
    num = "not determined" if num is None else (str(num) if num < 10 ** 12 else f"a {len(str(num))}-digit number")
    orbits = "not determined" if fib.number_of_orbits is None else fib.number_of_orbits
    dom = getattr(fib, "domain", None) or "R^d"
    dom = "the closed orthant" if dom == "orthant" else dom
    return (f"<{kind} of a {'-'.join(map(str, fib.net.widths))} network on {dom}: dimension "
            f"{fib.dimension.words()}, components {num}, orbits {orbits}>")
