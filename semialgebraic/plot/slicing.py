"""2-D affine slices ``x = P + s·D1 + t·D2`` of an input space, exactly.

A network restricted to a slice is again a network (its first layer composed with the affine
map), so the exact region walk runs on the slice unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q, to_q

__all__ = ["Slice", "parse_slice", "slice_network", "coordinate_slice", "slice_coordinates"]


@dataclass(frozen=True)
class Slice:
    """The plane ``P + s·D1 + t·D2`` (D1, D2 linearly independent, exact)."""

    point: tuple
    d1: tuple
    d2: tuple

    def lift(self, st) -> tuple:
        """The input at slice coordinates ``(s, t)``."""
        s, t = (to_q(v) for v in st)
        return tuple(p + s * u + t * v for p, u, v in zip(self.point, self.d1, self.d2))


def coordinate_slice(d: int, point=None) -> Slice:
    """The plane of the first two coordinates through *point* (default 0)."""
    p = tuple(to_q(v) for v in point) if point is not None else (Q(0),) * d
    e = lambda i: tuple(Q(1) if k == i else Q(0) for k in range(d))
    return Slice(p, e(0), e(1))


def parse_slice(text: str, d: int) -> Slice:
    """``"P;D1;D2"`` or ``"p1,…,pd,u1,…,ud,v1,…,vd"`` (3d numbers) -> :class:`Slice`.

    >>> parse_slice("0,0,1/2;1,0,0;0,1,1", 3).lift((2, 3))
    (2, 3, 7/2)
    """
    try:
        parts = [t for t in text.replace(";", ",").split(",") if t.strip()]
        vals = [to_q(t.strip()) for t in parts]
    except (ValueError, TypeError) as exc:
        raise InputError(f"--slice: {exc}") from None
    if len(vals) != 3 * d:
        raise InputError(f"--slice: expected POINT,DIR1,DIR2 = {3 * d} numbers for {d} inputs, "
                         f"got {len(vals)}")
    sl = Slice(tuple(vals[:d]), tuple(vals[d:2 * d]), tuple(vals[2 * d:]))
    if QMatrix.from_rows([list(sl.d1), list(sl.d2)]).rank() < 2:
        raise InputError("--slice: DIR1 and DIR2 are linearly dependent")
    return sl


def slice_network(net: Network, sl: Slice) -> Network:
    """The network ``(s, t) ↦ net(P + s·D1 + t·D2)`` (exact)."""
    if len(sl.point) != net.n_inputs:
        raise InputError(f"--slice: the network has {net.n_inputs} inputs, the slice "
                         f"{len(sl.point)} coordinates")
    W, b = net.layer(0)
    M = QMatrix.from_rows([[u, v] for u, v in zip(sl.d1, sl.d2)])
    W1 = W @ M
    b1 = [x + y for x, y in zip(b, W.apply(sl.point))]
    layers = [net.layer(l) for l in range(1, net.depth)]
    return Network([W1, *(w for w, _ in layers)], [b1, *(c for _, c in layers)])


def slice_coordinates(sl: Slice, x) -> tuple | None:
    """``(s, t)`` with ``sl.lift((s, t)) == x``, or None when *x* is off the plane (exact)."""
    x = tuple(to_q(v) for v in x)
    if len(x) != len(sl.point):
        return None
    M = QMatrix.from_rows([[u, v] for u, v in zip(sl.d1, sl.d2)])
    sol = M.solve_general([a - p for a, p in zip(x, sl.point)])
    if sol is None:
        return None
    st = tuple(sol[0])
    return st if sl.lift(st) == x else None
