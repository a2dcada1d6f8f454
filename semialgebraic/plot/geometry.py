"""Exact plane geometry for the scenes: the vertices of a bounded 2-D region given by
inequalities ``a·x + c >= 0``, in counter-clockwise order (exact comparisons only)."""

from __future__ import annotations

from functools import cmp_to_key

__all__ = ["polygon_vertices", "on_line"]


def _meet(f, g):
    (a1, b1), c1 = f
    (a2, b2), c2 = g
    det = a1 * b2 - a2 * b1
    if det == 0:
        return None
    return ((-c1 * b2 + c2 * b1) / det, (-a1 * c2 + a2 * c1) / det)


def on_line(form, p) -> bool:
    (a, b), c = form
    return a * p[0] + b * p[1] + c == 0


def polygon_vertices(forms, inside) -> tuple:
    """Vertices of ``{x : a·x + c >= 0 for (a, c) in forms}`` (bounded, 2-D), counter-clockwise
    around the interior point *inside*.

    >>> from algebra.rationals import Q
    >>> square = [((1, 0), 1), ((-1, 0), 1), ((0, 1), 1), ((0, -1), 1), ((1, 1), 3)]
    >>> polygon_vertices([((Q(a), Q(b)), Q(c)) for (a, b), c in square], (Q(0), Q(0)))
    ((1, 1), (-1, 1), (-1, -1), (1, -1))
    """
    forms = [f for f in forms if f[0][0] != 0 or f[0][1] != 0]
    pts = set()
    for i in range(len(forms)):
        for j in range(i + 1, len(forms)):
            p = _meet(forms[i], forms[j])
            if p is not None and all(a * p[0] + b * p[1] + c >= 0 for (a, b), c in forms):
                pts.add(p)
    cx, cy = inside

    def half(p):          # 0: angle in [0, π), 1: [π, 2π) around the interior point
        dx, dy = p[0] - cx, p[1] - cy
        return 0 if dy > 0 or (dy == 0 and dx > 0) else 1

    def cmp(p, q):
        hp, hq = half(p), half(q)
        if hp != hq:
            return hp - hq
        cross = (p[0] - cx) * (q[1] - cy) - (p[1] - cy) * (q[0] - cx)
        return -1 if cross > 0 else (1 if cross < 0 else 0)
    return tuple(sorted(pts, key=cmp_to_key(cmp)))
