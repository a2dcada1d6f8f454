r"""Checker of ``bab_cover`` certificates: a bound on ``max_o max_{x in box} |a_o − b_o|`` assembled
from per-cell ``bab_bound`` certificates whose boxes cover the box (a distributed branch and bound).

Schema (version 1; built by :func:`semialgebraic.certificates.bab_cover_certificate`)::

    {"format": "netfibers.certificate", "type": "bab_cover",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "max_o max_x |a_o(x) - b_o(x)| <= upper on the box",
     "a": <network>, "b": <network>,
     "box": [[lo, hi], ...],                 # one exact interval per input
     "upper": u,                             # exact: the claimed bound
     "cells": [<bab_bound certificate>, ...],   # each with the same a and b, its own box
     "lower": l, "point": [x...], "output": o}  # optional: a point of the box attaining l

The claim holds when (1) every cell is a valid ``bab_bound`` certificate claiming ``<= u_k`` on its
own box with ``u_k <= upper`` and the same networks ``a``, ``b`` (identical JSON), and (2) the cell
boxes cover the box: each lies in the box, their interiors are pairwise disjoint and their volumes
(over the coordinates where the box is not a point) sum exactly to the volume of the box — a finite
union of closed boxes with these properties is closed and of full measure in the box, so it is the
whole box.  Every closed cell covers its own boundary, so the max over the box is the max over the
cells.  The optional point must lie in the box with ``max_o |a_o − b_o| >= lower`` there.

The parts are independent: :func:`check_geometry` (the cover and the point) and one
:func:`check_cell` per cell, which a distributed run checks on the workers; :func:`check` runs all.
Imports ``algebra`` and the ``bab_bound`` checker only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.rationals import Q

from .bab_bound import _q, _qlist, attaining_output
from .bab_bound import check as _check_bab_bound

__all__ = ["check", "check_geometry", "check_cell"]

_ONE = Q(1)


def _boxes(cert, d):
    box = cert.get("box")
    if not isinstance(box, list) or len(box) != d or not all(isinstance(p, list) and len(p) == 2
                                                             for p in box):
        raise InputError(f"box must be {d} pairs [lo, hi]")
    return [(_q(lo, "box"), _q(hi, "box")) for lo, hi in box]


def _volume(box, free):
    v = _ONE
    for i in free:
        v *= box[i][1] - box[i][0]
    return v


def check_geometry(cert: dict) -> tuple[bool, str]:
    """The header, the networks, the cover of the box by the cell boxes and the optional point."""
    check_header(cert, "bab_cover")
    if cert["claim"] != CLAIMS["bab_cover"][0]:
        raise InputError(f"unknown claim {cert['claim']!r}")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        return False, "a and b have different signatures"
    d = a.n_inputs
    box = _boxes(cert, d)
    if any(lo > hi for lo, hi in box):
        return False, "an empty box interval"
    upper = _q(cert["upper"], "upper")
    cells = cert["cells"]
    if not isinstance(cells, list) or not cells:
        raise InputError("cells must be a non-empty list of bab_bound certificates")
    cboxes = []
    for k, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise InputError(f"cell {k} is not a certificate")
        cb = _boxes(cell, d)
        if any(lo > hi for lo, hi in cb):
            return False, f"cell {k} has an empty interval"
        if any(clo < lo or chi > hi for (clo, chi), (lo, hi) in zip(cb, box)):
            return False, f"cell {k} is not inside the box"
        cboxes.append(cb)
    free = [i for i, (lo, hi) in enumerate(box) if lo < hi]
    for j, bj in enumerate(cboxes):
        if any(bj[i][0] == bj[i][1] for i in free):
            return False, f"cell {j} is flat (no interior) in a free coordinate"
        for k in range(j):
            bk = cboxes[k]
            if all(max(bj[i][0], bk[i][0]) < min(bj[i][1], bk[i][1]) for i in free):
                return False, f"the interiors of cells {k} and {j} overlap"
    total = sum((_volume(cb, free) for cb in cboxes), Q(0))
    if total != _volume(box, free):
        return False, f"the cells' volume {total} differs from the box's {_volume(box, free)}"
    if "lower" in cert or "point" in cert or "output" in cert:
        return _point(cert, a, b, box, upper, len(cells))
    return True, f"{len(cells)} cells cover the box"


def _point(cert, a, b, box, upper, n) -> tuple[bool, str]:
    """The optional point: in the box, with ``lower <= max_o |a_o − b_o|`` there, ``lower <= upper``."""
    if not ("lower" in cert and "point" in cert):
        raise InputError("'lower' and 'point' come together (and 'output' with them)")
    lower, x = _q(cert["lower"], "lower"), _qlist(cert["point"], len(box), "point")
    inside = all(lo <= v <= hi for v, (lo, hi) in zip(x, box))
    gaps = [abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))] if inside else None
    gap = max(gaps) if inside else None
    for bad, why in ((not inside, "the point is outside the box"),
                     (inside and gap < lower, f"|a - b| at the point is {gap}, below lower {lower}"),
                     (lower > upper, f"the lower bound {lower} exceeds the upper bound {upper}")):
        if bad:
            return False, why
    why = attaining_output(cert, gaps, lower)
    if why:
        return False, why
    return True, f"{n} cells cover the box"


def check_cell(cert: dict, k: int) -> tuple[bool, str]:
    """Cell *k*: a valid ``bab_bound`` upper-bound certificate for the same networks whose bound
    is at most the cover's ``upper`` (independent of the other cells and of the geometry)."""
    cells = cert.get("cells")
    if not isinstance(cells, list) or not 0 <= k < len(cells) or not isinstance(cells[k], dict):
        raise InputError(f"no cell {k}")
    cell = cells[k]
    if cell.get("type") != "bab_bound" or cell.get("claim") != CLAIMS["bab_bound"][0]:
        return False, f"cell {k} is not a bab_bound certificate of an upper bound"
    if cell.get("halfspaces"):         # its bound holds on a part of its box only: no cover
        return False, f"cell {k} bounds |a - b| on its box cut by half-spaces, not on the whole box"
    if cell.get("a") != cert.get("a") or cell.get("b") != cert.get("b"):
        return False, f"cell {k} bounds other networks than a and b"
    if _q(cell.get("upper"), "cell upper") > _q(cert.get("upper"), "upper"):
        return False, f"cell {k} bound {cell.get('upper')} exceeds the claimed upper bound"
    ok, why = _check_bab_bound(cell)
    return ok, why if ok else f"cell {k}: {why}"


def check(cert: dict) -> tuple[bool, str]:
    ok, why = check_geometry(cert)
    if not ok:
        return False, why
    for k in range(len(cert["cells"])):
        ok, reason = check_cell(cert, k)
        if not ok:
            return False, reason
    return True, (f"max_o max_x |a_o - b_o| <= {cert['upper']} on the box ({why})"
                  + (f", and >= {cert['lower']} (attained)" if "lower" in cert else ""))
