r"""A float lookahead for the neuron to split when the LP multipliers do not tell (issue 15).

The branching score of :func:`.search._ranked` (an unstable neuron's triangle and pair rows'
share of the leaf's LP bound) is 0 for every neuron at some leaves of near copies: the LP's
optimum leans on rows whose multipliers are 0 at HiGHS's vertex (a degenerate optimum), and the
search falls back to the earliest layer's largest triangle, which there rarely moves the bound.
Measured 2026-12-02 on ACAS Xu's 1/100 box 0, objective ``a_1 − b_1``, a leaf at ``2.206e-5``
(the exact maximum is ``1.709e-5``): the score chose ``(5, 88)``, children ``2.205e-5`` /
``2.201e-5``; of its 15 unstable neurons 5 had one child empty (the LP proves them stable) and
``(3, 9)`` gave children ``2.97e-6`` / ``1.82e-5``.

:func:`lookahead` re-solves the leaf's LP (HiGHS, floats) once per side of each candidate with
that neuron fixed: ``z <= 0`` and ``h = 0``, or ``z >= 0`` and ``h = z`` (its column bounds and
its ``z − h`` row's, a hot start from the leaf's optimum), the other intervals the leaf's (a
relaxation of the child, which also recomputes the layers above).  The candidate whose larger
child value is least wins.  Floats only choose the split: every bound of the search stays
exact, nothing enters the certificate.
"""

from __future__ import annotations

import math

from ..lp.floatlp import new_highs, run_highs
from .relaxation import build_lp

__all__ = ["child_values", "lookahead"]


def _value(h):
    """HiGHS's optimum (a maximum), ``-inf`` when infeasible, None when unknown."""
    name = str(h.getModelStatus()).rsplit(".", 1)[-1]
    if name == "kOptimal":
        return h.getInfo().objective_function_value
    if name == "kInfeasible":
        return -math.inf
    return None


def child_values(template, box, ivs, c, cands, pair_lines=None, halfspaces=(), time_limit=None):
    """``(base, {(l, j): (v0, v1)})``: HiGHS's optimum of the leaf's LP and, per candidate of
    *cands*, of its children's (``z <= 0, h = 0`` and ``z >= 0, h = z``; ``-inf`` infeasible; a
    candidate whose child HiGHS does not solve is left out), or None when the leaf's own LP has
    no optimum.  One model, hot-started from one solve to the next (floats)."""
    lp, tags = build_lp(template, box, ivs, c, pair_lines, halfspaces)
    h = new_highs() if time_limit is None else new_highs(time_limit=max(0.05, float(time_limit)))
    h.passModel(lp)
    run_highs(h)
    base = _value(h)
    if base is None or base == -math.inf:
        return None
    row_of, pos = {}, template.n_eq
    for l, ja, ju in tags:
        for k, j in enumerate(ja):
            row_of[(l, int(j))] = pos + k
        pos += len(ja) + len(ju)
    out = {}
    for l, j in cands:
        row = row_of.get((l, j))
        if row is None or not ivs[l][j][0] < 0 < ivs[l][j][1]:
            continue
        zc, hc = template.zoff[l] + j, template.hoff[l] + j
        lo, hi = float(ivs[l][j][0]), float(ivs[l][j][1])
        vals = []
        for side in (0, 1):
            if side == 0:                    # z <= 0, h = 0
                h.changeColBounds(zc, lo, 0.0)
                h.changeColBounds(hc, 0.0, 0.0)
            else:                            # z >= 0, h = z (its z − h row at 0)
                h.changeColBounds(zc, 0.0, hi)
                h.changeRowBounds(row, 0.0, 0.0)
            run_highs(h)
            vals.append(_value(h))
            h.changeColBounds(zc, lo, hi)
            h.changeColBounds(hc, 0.0, max(hi, 0.0))
            h.changeRowBounds(row, -math.inf, 0.0)
        if None not in vals:
            out[(l, j)] = tuple(vals)
    return base, out


def lookahead(template, box, ivs, c, cands, pair_lines=None, halfspaces=(), time_limit=None):
    """The candidate ``(l, j)`` of *cands* (unstable neurons of the leaf) whose two children
    have the least larger float LP value (:func:`child_values`; ties: the lesser smaller one,
    then the first), and its pair ``(v0, v1)``, or None (no LP optimum, or no candidate's
    children both below the leaf's own float value).  *template*, *box*, *ivs*, *c*,
    *pair_lines*, *halfspaces* as :func:`.relaxation.float_duals`."""
    got = child_values(template, box, ivs, c, cands, pair_lines, halfspaces, time_limit)
    if got is None:
        return None
    base, vals = got
    best = None
    for a in cands:
        if a in vals:
            key = (max(vals[a]), min(vals[a]))
            if best is None or key < best[0]:
                best = (key, a)
    if best is None or best[0][0] >= base - 1e-9 * (1 + abs(base)):
        return None
    return best[1], vals[best[1]]
