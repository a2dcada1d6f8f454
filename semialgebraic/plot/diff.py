"""The picture of ``|a − b|`` over a 2-D slice: exact values on a grid as a heat map, the grid's
argmax marked, and the certified argmax of ``netfibers diff`` when one is given.  For more than
two inputs the slice is the plane of the first two coordinates through the certified point (or
the box's centre)."""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q, q_str, to_q

from .scene import HeatMap, Marker, Scene
from .slicing import Slice, coordinate_slice, slice_coordinates

__all__ = ["diff_scene", "deviation"]


def deviation(a: Network, b: Network, x) -> object:
    """``max_o |a_o(x) − b_o(x)|`` (exact)."""
    return max(abs(u - v) for u, v in zip(a(x), b(x)))


def diff_scene(a: Network, b: Network, box, *, slice: Slice | None = None, grid: int = 41,
               certified=None) -> Scene:
    """Heat map of ``|a − b|`` on a ``grid × grid`` lattice of the slice.

    *box*: one ``(lo, hi)`` per input (the first two give the window when *slice* is None), or
    the window ``[(s_lo, s_hi), (t_lo, t_hi)]`` in slice coordinates when *slice* is given.
    *certified*: ``(point, value)`` of a certified maximum, marked when it lies in the slice.
    """
    if a.signature != b.signature:
        raise InputError(f"the networks have (inputs, outputs) {a.signature} and {b.signature}")
    if grid < 2:
        raise InputError("--grid must be at least 2")
    d = a.n_inputs
    box = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if slice is None:
        if d < 2:
            raise InputError("a 2-D picture needs at least two inputs")
        if len(box) != d:
            raise InputError(f"--box: expected {d} intervals, got {len(box)}")
        centre = (list(certified[0]) if certified is not None
                  else [(lo + hi) / 2 for lo, hi in box])
        base = [Q(0), Q(0), *(to_q(v) for v in centre[2:])]
        slice = coordinate_slice(d, base)
        window = box[:2]
        plane = None if d == 2 else (
            f"the plane of x0, x1 with {'x2' if d == 3 else f'x2..x{d - 1}'} fixed at the "
            f"{'certified maximiser' if certified is not None else 'centre of the box'} "
            f"({', '.join(q_str(v) for v in base[2:6])}{', …' if d > 6 else ''}); --slice draws another")
    else:
        window = box[:2]
        plane = None
    (x0, x1), (y0, y1) = window
    if x0 >= x1 or y0 >= y1:
        raise InputError("--box: the window must have positive width and height")
    xs = tuple(x0 + (x1 - x0) * Q(i, grid - 1) for i in range(grid))
    ys = tuple(y0 + (y1 - y0) * Q(i, grid - 1) for i in range(grid))
    vals = tuple(tuple(deviation(a, b, slice.lift((x, y))) for x in xs) for y in ys)
    best = max(((vals[i][j], (xs[j], ys[i])) for i in range(grid) for j in range(grid)),
               key=lambda t: t[0])
    auto = plane is not None or d == 2
    scene = Scene("diff", title="|a − b|" + (f" on {plane}" if plane else ""), xlabel="x0" if auto else "s",
                  ylabel="x1" if auto else "t", heatmap=HeatMap(xs, ys, vals),
                  window=(tuple(window[0]), tuple(window[1])))
    scene.markers.append(Marker(best[1], f"grid max {q_str(best[0])}", "grid_max"))
    scene.data = {"grid_max": best[0], "grid_argmax": best[1], "certified": None}
    if certified is not None:
        point, value = tuple(to_q(v) for v in certified[0]), to_q(certified[1])
        st = slice_coordinates(slice, point)
        if st is not None:
            scene.markers.append(Marker(st, f"certified max {q_str(value)}", "certified_max"))
            scene.data["certified"] = (st, value)
    return scene

