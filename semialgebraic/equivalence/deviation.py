r"""Exact maximum deviation of two ReLU networks on a box.

``max_o max_{x in [lo, hi]^d} |a_o(x) − b_o(x)|`` with a point and an output attaining it: the
difference network a − b is contracted and reduced exactly
(:mod:`semialgebraic.equivalence.reduction`), its linear regions in the box are walked
(:func:`semialgebraic.regions.joint_regions`) and one exact LP per region and output maximises
± the difference on the closed region (the optimum is a rational vertex, proven optimal by its
dual certificate).  Each region's LPs run as the walk yields it, so a timeout or Ctrl-C bounds the
walk and the LPs together; the partial result is then a certified lower bound, the best value
found so far with a point attaining it (the walk gives no upper bound).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from algebra.exceptions import InputError
from algebra.kernel.domains import Domain
from algebra.network import Network, require_network
from algebra.rationals import Q, q_json

from .. import lp
from ..budget import Budget, BudgetExhausted, Progress, api_boundary
from ..exceptions import CertificateError
from ..regions import joint_regions
from ..sets import api_domain, interior_point, normalize_domain, tighten
from .reduction import contract_affine_layers, reduced_difference

__all__ = ["Deviation", "max_deviation"]


@dataclass(frozen=True)
class Deviation:
    """Exact ``max_{x in box} max_o |a_o(x) − b_o(x)|`` with a point and output attaining it.

    ``complete`` is False when a budget stopped the walk (then ``value`` is a lower bound).
    ``per_output[o]`` is the largest ``|a_o − b_o|`` found on the walked regions (exact when
    ``complete``, else a lower bound); ``value`` is their maximum.  ``regions`` counts the
    regions whose LPs all ran (a region the budget stopped in the middle of is not counted).
    """

    value: Q
    point: tuple
    output: int
    complete: bool
    regions: int
    reason: str = ""
    per_output: tuple = ()

    def to_json(self) -> dict:
        """The keys of ``netfibers diff --json`` (and of the branch-and-bound result's
        ``to_json``): ``lower``, ``upper`` (exact strings; ``upper`` None when a budget stopped
        the walk), ``complete``, ``max_deviation`` (the same string as ``lower``), ``point``,
        ``output``, ``per_output``, ``nodes`` (regions walked), ``reason``, ``method``."""
        up = (lambda v: str(v) if self.complete else None)
        return {"lower": str(self.value), "upper": up(self.value), "complete": self.complete,
                "max_deviation": str(self.value), "point": [q_json(v) for v in self.point],
                "output": self.output,
                "per_output": [{"lower": str(v), "upper": up(v)} for v in self.per_output] or None,
                "nodes": self.regions, "regions": self.regions, "reason": self.reason,
                "method": "region walk"}


@api_boundary
def max_deviation(a: Network, b: Network, box: Any, *, timeout: float | None = None,
                  max_regions: int | None = None, budget: Budget | None = None,
                  progress: bool | None = None) -> Deviation:
    """Exact maximum over the box ``[lo, hi]^d`` (or a bounded polyhedron) of
    ``max_o |a_o(x) − b_o(x)|`` and a point.

    One exact LP per region of a − b and output (maximise ± the difference on the closed region;
    the optimum is a rational vertex, proven optimal by its dual certificate).

    Parameters
    ----------
    a, b : Network
        Same signature.
    box : (lo, hi), {"box": [lo, hi]}, [(lo_1, hi_1), ...], Domain or Polyhedron
        The box ``[lo, hi]^d`` (exact bounds; ``lo = hi`` is the one point), or any bounded
        domain :func:`~semialgebraic.sets.api_domain` takes (a box with its own sides ∩
        half-spaces, a bounded Polyhedron), walked as a polyhedron.
    timeout, max_regions : optional
        Budget of the region walk (or pass *budget*).
    progress : bool, optional
        Progress line on stderr (default: when stderr is a terminal).

    Returns
    -------
    Deviation
        The value, a point and an output attaining it; ``complete`` False when a budget or
        Ctrl-C stopped the walk (then ``value`` is a lower bound).

    Raises
    ------
    InputError
        If the signatures differ, *box* is not a bounded domain, or is a domain other than a
        cube with an empty interior (a box with a side of width 0, half-spaces meeting in a
        face).
    CertificateError
        If an LP on a bounded region is not optimal (a bug in netfibers).

    Examples
    --------
    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    >>> dev = max_deviation(a, b, (-1, 2))
    >>> dev.value, dev.point, dev.complete
    (1, (2,), True)
    """
    require_network(a, "max_deviation", "a")
    require_network(b, "max_deviation", "b")
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures {a.signature} and {b.signature}")
    dom = normalize_domain(api_domain(box, a.n_inputs), a.n_inputs, polyhedral=True)
    if isinstance(dom, Domain):
        if None in dom.lo + dom.hi:
            raise InputError("max_deviation needs a bounded domain (every side of its box finite)")
        p = interior_point(dom)            # a point of the domain: an exact lower bound already
        if p is None:
            raise InputError("max_deviation: the domain has an empty interior")
    elif not isinstance(dom, tuple):
        raise InputError("max_deviation needs a box (lo, hi)")
    budget = budget or Budget(timeout, max_regions)
    if isinstance(dom, Domain):        # interval reductions over its exact bounding box
        dom = tighten(dom, Budget(None if budget.timeout is None else budget.remaining() / 10))
    d = a.n_inputs
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        p = tuple([dom[0]] * d)
        diffs = [abs(u - v) for u, v in zip(a(p), b(p))]
        o = max(range(len(diffs)), key=lambda i: diffs[i])
        return Deviation(diffs[o], p, o, True, 0, "the box is one point", tuple(diffs))
    if isinstance(dom, tuple):
        p = tuple([dom[0]] * d)            # the corner x = lo: an exact lower bound already
    diffs = [abs(u - v) for u, v in zip(a(p), b(p))]
    o = max(range(len(diffs)), key=lambda i: diffs[i])
    best = (diffs[o], p, o)
    per_output = list(diffs)
    state: dict = {}
    bar = Progress("regions", enabled=progress)
    done = 0                  # regions whose LPs all ran (the walk yields them one at a time)
    timer = budget.timer()    # the timeout alone: the walk counts the regions of *budget*
    try:
        # each region's LPs run as the walk yields it (not after the whole walk, which overran
        # `diff --method walk --timeout 20` to 34-42 s): the timeout bounds the reduction, the walk
        # and the LPs together; the exact simplex inside an LP stops at its next checkpoint()
        with timer.active():
            a2, _ = contract_affine_layers(a, domain=dom)      # same functions on the box
            b2, _ = contract_affine_layers(b, domain=dom)
            D, _ = reduced_difference(a2, b2, domain=dom)
            walk = joint_regions((D,), domain=dom, budget=budget, state=state, multipliers=False)
            for reg in walk:
                for val, pt, o in _region_maxima(reg, d, a.n_outputs, timer):
                    per_output[o] = max(per_output[o], val)
                    if val > best[0]:
                        best = (val, tuple(pt), o)
                done += 1
                bar.update(1)
    except KeyboardInterrupt:          # Ctrl-C, or BudgetExhausted raised by checkpoint()
        budget.interrupt()
        state["complete"], state["reason"] = False, budget.reason
    finally:
        bar.close()
    complete = bool(state.get("complete"))
    return Deviation(best[0], best[1], best[2], complete, done,
                     f"all regions of a - b in the {'domain' if isinstance(dom, Domain) else 'box'}"
                     if complete else str(state.get("reason")),
                     tuple(per_output))


# ------------------------------------------------------------------------------------------------
# private
# ------------------------------------------------------------------------------------------------
def _region_maxima(reg, d: int, n_outputs: int, timer: Budget):
    """``(value, point, output)`` per output and sign: the exact maximum of ``± (a_o − b_o)``
    on the closed region *reg* (an LP; the optimum is a rational vertex with its dual
    certificate), lazily; *timer* is checked before each LP (raising
    :class:`~semialgebraic.budget.BudgetExhausted` once spent)."""
    J, c = reg.region.jacobian, reg.region.offset
    A_le = [[-v for v in reg.inequalities[f][:d]] for f in reg.facets]
    b_le = [reg.inequalities[f][d] for f in reg.facets]
    for o in range(n_outputs):
        row = J.row_at(o)
        for s in (1, -1):
            if all(v == 0 for v in row):
                yield s * c[o], reg.point, o
                continue
            if timer.exhausted():
                raise BudgetExhausted(timer.reason)
            opt = lp.optimize([s * v for v in row], A_le=A_le or None, b_le=b_le or None, n=d)
            if opt.status != "optimal":
                raise CertificateError("deviation LP", f"status {opt.status} on a bounded region")
            yield opt.value + s * c[o], opt.point, o
