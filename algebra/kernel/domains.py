"""Input domains in the form deciders and checkers share: strict rows and the proof JSON form.

A domain is ``None`` (all of R^d), ``"orthant"`` (the closed non-negative orthant), a pair
``(lo, hi)`` of rationals (the cube ``[lo, hi]^d``) or, for :func:`domain_rows` and
:func:`algebra.kernel.interval_bounds` (the region walk on a polyhedron and its
``region_cover`` checker), a :class:`Domain`.  :class:`Domain` (imported from this module) is the one exact object for
every domain the commands accept (per-coordinate boxes, L∞ balls, the orthant, box ∩
half-spaces); :meth:`Domain.legacy` gives the older form where a computation takes only that.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import parse_number
from algebra.rationals import Q, to_q

__all__ = ["domain_rows", "domain_json", "domain_from_json", "side_bound", "Domain"]


def domain_rows(d: int, lo_hi) -> list[tuple[Q, ...]]:
    """Rows ``(a_0, …, a_{d-1}, c)`` with ``a·x + c >= 0`` (``> 0`` inside) cutting out the domain.

    Box: ``x_i − lo`` then ``hi − x_i`` for each i; orthant: ``x_i``; R^d: no row; a
    :class:`Domain` (a box with its own, possibly open, sides ∩ half-spaces): :meth:`Domain.rows`
    (the box's sides, then ``b − a·x`` per half-space).

    Examples
    --------
    >>> [tuple(map(str, r)) for r in domain_rows(1, (Q(-1), Q(2)))]
    [('1', '1'), ('-1', '2')]
    >>> domain_rows(2, None)
    []
    """
    rows = []
    if lo_hi is None:
        return rows
    if isinstance(lo_hi, Domain):
        if lo_hi.dim != d:
            raise InputError(f"the domain has {lo_hi.dim} coordinates, expected {d}")
        return lo_hi.rows()
    z = Q(0)
    for i in range(d):
        e = [z] * d
        e[i] = Q(1)
        if lo_hi == "orthant":
            rows.append(tuple(e) + (z,))
        else:
            rows.append(tuple(e) + (-lo_hi[0],))
            rows.append(tuple(-v for v in e) + (lo_hi[1],))
    return rows


def domain_json(dom):
    """The JSON form of a domain inside proofs: ``None``, ``"orthant"`` or ``["lo", "hi"]``.

    Examples
    --------
    >>> domain_json((Q(-1, 2), Q(3))), domain_json("orthant"), domain_json(None)
    (['-1/2', '3'], 'orthant', None)
    """
    if dom is None or dom == "orthant":
        return dom
    return [str(dom[0]), str(dom[1])]


def domain_from_json(data, d: int | None = None):
    """The domain of its proof JSON form (inverse of :func:`domain_json`); *d* is not used.

    Raises
    ------
    InputError
        If a bound is a string that is not an exact number (e.g. ``"1/0"``).
    TypeError, KeyError, IndexError
        If *data* has the wrong shape.

    Examples
    --------
    >>> domain_from_json(["-1/2", 3]) == (Q(-1, 2), Q(3))
    True
    """
    if data is None or data == "orthant":
        return data
    return (Q(data[0]) if not isinstance(data[0], str) else parse_number(data[0], "proof.domain"),
            Q(data[1]) if not isinstance(data[1], str) else parse_number(data[1], "proof.domain"))


def side_bound(rows, k: int, side: str, y) -> Q:
    """The bound on ``x_k`` that the multipliers *y* prove over the rows *rows*, exactly.

    *rows* are ``(a_0, …, a_{d-1}, c)`` with ``a·x + c >= 0`` (:meth:`Domain.rows`); *y* has one
    entry per row, every entry ``>= 0``, and ``Σ y_i a_i = e_k`` (side ``"lo"``) or ``-e_k``
    (side ``"hi"``).  Then ``0 <= Σ y_i (a_i·x + c_i) = ±x_k + Σ y_i c_i`` on the set, so
    ``x_k >= -Σ y_i c_i`` (lo) or ``x_k <= Σ y_i c_i`` (hi): that number is returned.

    Raises
    ------
    ValueError
        Naming the first condition that fails (a multiplier < 0, a wrong count, Σ y_i a_i ≠ ±e_k).

    Examples
    --------
    >>> rows = Domain([0, 0], [None, None], [([1, 1], 1)]).rows()      # the simplex x, y >= 0, x + y <= 1
    >>> side_bound(rows, 0, "hi", [0, 1, 1])                            # y + (1 - x - y) >= 0
    1
    >>> side_bound(rows, 0, "hi", [1, 1, 1])
    Traceback (most recent call last):
        ...
    ValueError: the multipliers give (0, 0) · x, not -x_0
    """
    if side not in ("lo", "hi"):
        raise ValueError(f"side must be 'lo' or 'hi', not {side!r}")
    y = [to_q(v) for v in y]
    if len(y) != len(rows):
        raise ValueError(f"{len(y)} multipliers for {len(rows)} domain rows")
    if any(v < 0 for v in y):
        raise ValueError("a multiplier is negative")
    d = len(rows[0]) - 1 if rows else 0
    if not 0 <= k < d:
        raise ValueError(f"coordinate {k} is not one of the {d} inputs")
    z = Q(0)
    comb = tuple(sum((v * r[j] for v, r in zip(y, rows) if v), z) for j in range(d))
    sign = 1 if side == "lo" else -1
    if comb != tuple(Q(sign) if j == k else z for j in range(d)):
        raise ValueError(f"the multipliers give ({', '.join(map(str, comb))}) · x, not "
                         f"{'' if sign > 0 else '-'}x_{k}")
    c = sum((v * r[-1] for v, r in zip(y, rows) if v), z)
    return -c if side == "lo" else c


class Domain:
    """One exact input domain: per-coordinate bounds (a box, some sides possibly open to ±∞)
    intersected with half-spaces ``a·x <= b``.  Covers R^d, the orthant, a cube, a box with
    per-coordinate bounds, an L∞ ball and box ∩ half-spaces.  Immutable; every number is a
    rational.

    Examples
    --------
    >>> D = Domain.ball([Q(0), Q(1)], Q(1, 2))
    >>> D.box, D.as_cube, D.contains([Q(1, 2), Q(1)]), D.contains([Q(1), Q(1)])
    ([(-1/2, 1/2), (1/2, 3/2)], None, True, False)
    >>> Domain.cube(2, Q(-1), Q(1)).legacy(), Domain.orthant(3).legacy(), Domain.whole(1).legacy()
    ((-1, 1), 'orthant', None)
    >>> H = Domain.cube(2, Q(0), Q(1)).with_halfspaces([([Q(1), Q(1)], Q(1))])    # x + y <= 1
    >>> H.contains([Q(1, 2), Q(1, 2)]), H.contains([Q(1), Q(1, 2)]), H.box
    (True, False, None)
    >>> Domain.from_json(H.to_json()) == H
    True

    A proved bounding box (:meth:`tightened`): the simplex ``x, y >= 0``, ``x + y <= 1`` has no
    upper side of its own, but ``x <= 1`` follows from the rows with multipliers ``(0, 1, 1)``:

    >>> S = Domain([0, 0], [None, None], [([1, 1], 1)])
    >>> T = S.tightened([(0, "hi", 1, [0, 1, 1]), (1, "hi", 1, [1, 0, 1])])
    >>> [tuple(map(str, b)) for b in T.intervals()], T == S, T.to_json() == S.to_json()
    ([('0', '1'), ('0', '1')], True, True)
    """

    __slots__ = ("lo", "hi", "halfspaces", "_bounds", "_sides")

    def __init__(self, lo, hi, halfspaces=()):
        lo = tuple(None if v is None else to_q(v) for v in lo)
        hi = tuple(None if v is None else to_q(v) for v in hi)
        if len(lo) != len(hi):
            raise InputError(f"domain: {len(lo)} lower and {len(hi)} upper bounds")
        for i, (a, b) in enumerate(zip(lo, hi)):
            if a is not None and b is not None and a > b:
                raise InputError(f"domain: coordinate {i}: lower bound {a} exceeds upper bound {b}")
        hs = []
        for a, b in halfspaces:
            a = tuple(to_q(v) for v in a)
            if len(a) != len(lo):
                raise InputError(f"domain: a half-space has {len(a)} coefficients, expected {len(lo)}")
            if all(v == 0 for v in a) and to_q(b) >= 0:
                continue        # 0·x <= b, b >= 0: all of R^d, no side (a strict row 0 < 0 read
            hs.append((a, to_q(b)))     # as an empty interior: s48 re-run audit N1)
        self.lo, self.hi = lo, hi
        self.halfspaces = tuple(hs)
        self._bounds = None                 # a proved bounding box (:meth:`tightened`), or None
        self._sides = ()                    # its proofs: (k, side, value, multipliers)

    # -- constructors ------------------------------------------------------------------------
    @classmethod
    def whole(cls, d: int) -> "Domain":
        return cls([None] * d, [None] * d)

    @classmethod
    def orthant(cls, d: int) -> "Domain":
        return cls([Q(0)] * d, [None] * d)

    @classmethod
    def cube(cls, d: int, lo, hi) -> "Domain":
        return cls([lo] * d, [hi] * d)

    @classmethod
    def from_box(cls, box) -> "Domain":
        """From ``[(lo_i, hi_i), …]``."""
        return cls([b[0] for b in box], [b[1] for b in box])

    @classmethod
    def ball(cls, center, radius) -> "Domain":
        """The L∞ ball of *radius* (>= 0) around *center*."""
        if radius < 0:
            raise InputError("domain: the radius of a ball must be >= 0")
        return cls([c - radius for c in center], [c + radius for c in center])

    def with_halfspaces(self, halfspaces) -> "Domain":
        """This domain ∩ {a·x <= b for each (a, b)}."""
        return Domain(self.lo, self.hi, self.halfspaces + tuple(halfspaces))

    # -- views -------------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return len(self.lo)

    @property
    def box(self) -> list | None:
        """``[(lo_i, hi_i)]`` when every side is finite and there is no half-space, else None."""
        if self.halfspaces or None in self.lo or None in self.hi:
            return None
        return list(zip(self.lo, self.hi))

    @property
    def as_cube(self):
        """``(lo, hi)`` when the domain is a cube ``[lo, hi]^d``, else None."""
        b = self.box
        return b[0] if b and len(set(b)) == 1 else None

    def intervals(self) -> list:
        """``[(lo_i, hi_i)]`` of the box part (None for an open side; the half-spaces left out),
        or of the proved bounding box when the domain was :meth:`tightened`: a superset of the
        domain either way, so interval bounds over it are sound on the domain."""
        if self._bounds is not None:
            return list(self._bounds)
        return list(zip(self.lo, self.hi))

    def tightened(self, sides) -> "Domain":
        """The same domain whose :meth:`intervals` are its box part tightened by *sides*.

        Each side is ``(k, "lo" | "hi", value, y)``: multipliers ``y >= 0`` over :meth:`rows`
        that prove ``x_k >= value`` or ``x_k <= value`` on the domain (:func:`side_bound`; the
        bound they prove must be at least as tight as *value*).  Every side is checked here,
        exactly, so the tightened box always contains the domain.  Equality, hashing and
        :meth:`to_json` ignore the tightening (the set is the same); :meth:`sides` lists it.

        Raises
        ------
        ValueError
            If a side's multipliers do not prove its value.
        """
        rows = self.rows()
        box = [list(b) for b in zip(self.lo, self.hi)]
        kept = []
        for k, side, value, y in sides:
            value = to_q(value)
            if not isinstance(k, int) or isinstance(k, bool):
                raise ValueError(f"coordinate {k!r} is not an integer")
            try:
                proved = side_bound(rows, k, side, y)
            except ValueError as exc:
                raise ValueError(f"side {side} of x_{k}: {exc}") from None
            if (side == "hi" and proved > value) or (side == "lo" and proved < value):
                raise ValueError(f"side {side} of x_{k}: the multipliers prove {proved}, not {value}")
            j = 0 if side == "lo" else 1
            cur = box[k][j]
            if cur is None or (value > cur if j == 0 else value < cur):
                box[k][j] = value
            kept.append((k, side, value, tuple(to_q(v) for v in y)))
        out = Domain(self.lo, self.hi, self.halfspaces)
        out._bounds = tuple(tuple(b) for b in box)
        out._sides = tuple(kept)
        return out

    def sides(self) -> list[dict]:
        """The proofs of :meth:`tightened` in JSON form (exact strings):
        ``[{"coordinate": k, "side": "lo" | "hi", "value": v, "multipliers": [y_i, …]}]``
        (one multiplier per row of :meth:`rows`); ``[]`` when not tightened."""
        return [{"coordinate": k, "side": side, "value": str(v), "multipliers": [str(u) for u in y]}
                for k, side, v, y in self._sides]

    def tightened_from_certificate(self, data) -> "Domain":
        """:meth:`tightened` by the JSON form of :meth:`sides`, read strictly (:class:`InputError`
        for a wrong shape, ValueError for multipliers that do not prove a side)."""
        if not isinstance(data, list):
            raise InputError("bounds must be a list of tightened sides")
        sides = []
        for t, e in enumerate(data):
            if not isinstance(e, dict) or set(e) != {"coordinate", "side", "value", "multipliers"}:
                raise InputError(f"bounds[{t}] has exactly the keys coordinate, side, value and "
                                 "multipliers")
            k, side, y = e["coordinate"], e["side"], e["multipliers"]
            if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < self.dim:
                raise InputError(f"bounds[{t}].coordinate must be an input index 0..{self.dim - 1}")
            if side not in ("lo", "hi"):
                raise InputError(f"bounds[{t}].side must be 'lo' or 'hi'")
            if not isinstance(y, list):
                raise InputError(f"bounds[{t}].multipliers must be a list")
            sides.append((k, side, parse_number(e["value"], f"bounds[{t}].value"),
                          [parse_number(v, f"bounds[{t}].multipliers") for v in y]))
        return self.tightened(sides)

    def legacy(self):
        """The older form the deciders take: None (R^d), ``"orthant"`` or ``(lo, hi)`` (a cube);
        raises :class:`InputError` for any other domain."""
        if self.halfspaces:
            raise InputError("this computation takes R^d, the orthant or a cube [lo, hi]^d, not "
                             "half-spaces")
        if all(v is None for v in self.lo + self.hi):
            return None
        if all(v == 0 for v in self.lo) and all(v is None for v in self.hi):
            return "orthant"
        c = self.as_cube
        if c is None:
            raise InputError("this computation takes R^d, the orthant or a cube [lo, hi]^d, not "
                             "a box with different bounds per coordinate")
        return c

    def describe(self) -> str:
        """The domain in words (a checker's reason names what it proved over):

        >>> Domain.whole(2).describe(), Domain.orthant(2).describe(), Domain.cube(2, -1, 1).describe()
        ('R^2', 'the orthant x >= 0 of R^2', 'the cube [-1, 1]^2')
        >>> Domain([0, None], [1, 2], [([1, 1], 1)]).describe()
        'the box [0, 1] x (-inf, 2] cut by 1 half-space'
        """
        d = self.dim
        if all(v is None for v in self.lo + self.hi):
            text = f"R^{d}"
        elif all(v == 0 for v in self.lo) and all(v is None for v in self.hi):
            text = f"the orthant x >= 0 of R^{d}"
        elif len(set(zip(self.lo, self.hi))) == 1 and None not in self.lo + self.hi:
            text = f"the cube [{self.lo[0]}, {self.hi[0]}]^{d}"
        else:
            text = "the box " + " x ".join(("(-inf" if a is None else f"[{a}") + ", " +
                                           ("inf)" if b is None else f"{b}]") for a, b in zip(self.lo, self.hi))
        k = len(self.halfspaces)
        return text + (f" cut by {k} half-space{'s' * (k != 1)}" if k else "")

    def legacy_or_none(self):
        """:meth:`legacy`, or ``"other"`` for a domain that has no older form."""
        try:
            return self.legacy()
        except InputError:
            return "other"

    def rows(self) -> list[tuple[Q, ...]]:
        """Rows ``(a_0, …, a_{d-1}, c)`` with ``a·x + c >= 0`` cutting out the domain (the form of
        :func:`domain_rows`): ``x_i − lo_i``, ``hi_i − x_i`` per coordinate, then ``b − a·x``."""
        d, z = self.dim, Q(0)
        out = []
        for i in range(d):
            e = [z] * d
            e[i] = Q(1)
            if self.lo[i] is not None:
                out.append(tuple(e) + (-self.lo[i],))
            if self.hi[i] is not None:
                out.append(tuple(-v for v in e) + (self.hi[i],))
        for a, b in self.halfspaces:
            out.append(tuple(-v for v in a) + (b,))
        return out

    def contains(self, x) -> bool:
        """Whether the point *x* lies in the (closed) domain, exactly: its sides coordinate by
        coordinate, then each half-space (the inequalities of :meth:`rows`, without forming
        them: 2d dense rows of d numbers per call cost 0.13 s at d = 784, 257 calls in a
        recession search)."""
        x = [to_q(v) for v in x]
        if len(x) != self.dim:
            return False
        for v, lo, hi in zip(x, self.lo, self.hi):
            if (lo is not None and v < lo) or (hi is not None and v > hi):
                return False
        return all(sum((c * v for c, v in zip(a, x)), Q(0)) <= b for a, b in self.halfspaces)

    def to_json(self) -> dict:
        """``{"lo": [...], "hi": [...], "halfspaces": [{"a": [...], "b": ...}]}``, exact strings
        (null for an open side)."""
        return {"lo": [None if v is None else str(v) for v in self.lo],
                "hi": [None if v is None else str(v) for v in self.hi],
                "halfspaces": [{"a": [str(v) for v in a], "b": str(b)} for a, b in self.halfspaces]}

    @classmethod
    def from_json(cls, data) -> "Domain":
        def num(v):
            return None if v is None else parse_number(v, "domain")
        return cls([num(v) for v in data["lo"]], [num(v) for v in data["hi"]],
                   [([parse_number(v, "domain.halfspaces") for v in h["a"]],
                     parse_number(h["b"], "domain.halfspaces")) for h in data.get("halfspaces", ())])

    @classmethod
    def from_certificate(cls, data, d: int) -> "Domain":
        """The form of :meth:`to_json` as certificates hold it, read strictly: exactly the keys
        ``lo``, ``hi`` (*d* bounds each, null for an open side) and ``halfspaces`` (a list of
        ``{"a": [d numbers], "b": b}``); :class:`InputError` for any other shape.

        >>> Domain.from_certificate({"lo": [0, None], "hi": ["1/2", 1], "halfspaces": []}, 2).lo
        (0, None)
        """
        if not isinstance(data, dict) or set(data) != {"lo", "hi", "halfspaces"}:
            raise InputError("a polyhedral domain has exactly the keys lo, hi and halfspaces")
        lo, hi, hs = data["lo"], data["hi"], data["halfspaces"]
        if not isinstance(lo, list) or not isinstance(hi, list) or len(lo) != d or len(hi) != d:
            raise InputError(f"domain.lo and domain.hi must list {d} bounds (null: an open side)")
        if not isinstance(hs, list) or any(not isinstance(h, dict) or set(h) != {"a", "b"} or
                                           not isinstance(h["a"], list) or len(h["a"]) != d for h in hs):
            raise InputError(f"domain.halfspaces must be a list of {{'a': [{d} numbers], 'b': b}}")
        side = [[None if v is None else parse_number(v, f"domain.{k}") for v in vs]
                for k, vs in (("lo", lo), ("hi", hi))]
        cuts = [([parse_number(v, "domain.halfspaces.a") for v in h["a"]],
                 parse_number(h["b"], "domain.halfspaces.b")) for h in hs]
        return cls(side[0], side[1], cuts)            # InputError for lo_i > hi_i

    def __eq__(self, other) -> bool:
        return isinstance(other, Domain) and (self.lo, self.hi, self.halfspaces) == \
            (other.lo, other.hi, other.halfspaces)

    def __hash__(self) -> int:
        return hash((self.lo, self.hi, self.halfspaces))

    def __repr__(self) -> str:
        return f"Domain(lo={list(map(str, self.lo))}, hi={list(map(str, self.hi))}, " \
               f"halfspaces={len(self.halfspaces)})"
