r"""``max_o sup_{x in domain} |a_o(x) − b_o(x)|`` by exact branch and bound, with a certificate.

Bounded domains (boxes, balls, box ∩ half-spaces) go to the search (:mod:`.search`); unbounded
ones (the orthant, half-spaces without a box, all of R^d) to :mod:`.recession`, which decides
exactly whether the supremum is finite (three-layer-fibers R28)."""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

from algebra.exceptions import InputError
from algebra.kernel import difference_network, drop_zero_neurons
from algebra.kernel.domains import Domain
from algebra.network import Network, require_network
from algebra.rationals import Q, q_json, q_str, to_q

from ..budget import Budget, BudgetExhausted, Progress, alarm_at, api_boundary
from .align import _WIDE as ALIGN_WIDE, aligned, path_onto
from .primal import float_candidates, many_candidates, region_search, sampled_candidates
from .search import PAUSED, Engine, ObjectiveBound, _output_bound, bound_objective

__all__ = ["BabResult", "diff_bounds", "epsilon_equivalent", "as_domain", "domain_point", "bounded_diff"]

_SEARCH_SHARE = 0.85    # of a timeout, for the search; the rest for re-checking its certificate
_ALARM_AGAIN = 0.25     # s between the repeated alarms that stop the self-check at the budget
# Of a timeout without the self-check (verify=False), for the search; the rest for assembling the
# certificate, which no budget stops: digits 64-32-10 vs its float16 copy at 600 s (23 046 nodes,
# load 2) took 21.4 s after the search (3.6 %); with the whole timeout for the search a run of
# --timeout 600 at load 8.6 took 647 s.
_ASSEMBLY_SHARE = 0.93
_STARTS = 8         # the gradient ascent's best points, each the start of a walk over regions
_PREFETCH = 128         # hidden neurons of a − b from which the root's intervals come first
_TWIN_SPLIT = 24        # near copies: input splits only at nodes with more unstable neurons
_PLAIN_SPLIT = 16       # other pairs: input splits only at nodes with more unstable neurons
_TWIN_SHARE = Q(3, 4)   # near copies: this share of the root's unstable neurons have an unstable twin
# Small near copies (input dimension <= _SMALL_D, at most _SMALL_RELUS hidden neurons per
# network, one shape): no LP tightening of the intermediate bounds, no single-neuron cuts
# (same nodes, 15–30 % less CPU on the three 10-10 pairs), and an input split wherever
# more than d *kinks* cross the node (:func:`_kinks`: a twin pair counts once), neuron splits
# below.  Measured 2026-12-02 (CPU s, load 4–7) on the small pairs of bench_epsilon.py vs their
# float16 copies on [-1, 1]^d, ε = 1.01·max: 2-10-10-1 270 -> 112 nodes, 4.0 -> 0.75 s;
# 3-10-10-2 356 -> 554 nodes, 7.1 -> 4.8 s; 4-10-10-1 338 -> 258, 10.5 -> 3.2 s; 4-20-20-1 1592
# -> 1442, 56.7 -> 15.0 s; exact max 6.1 / 11.3 / 15.8 / >= 54 -> 1.2 / 6.5 / 3.9 / 20.9 s.  The
# tightening LPs cost more than the nodes they save at this size (tightening off alone: 4-10-10-1
# 338 -> 276 nodes, 10.5 -> 3.2 s); the kinks of a tiny box around the maximiser are a twin pair
# or two, which input splits never separate and two neuron splits resolve.
_SMALL_D = 4
_SMALL_RELUS = 40
# With ε, each objective's search plunges (``bound_objective(plunge=True)``: after a split the
# child of larger bound next, while above ε): a "yes" splits the same nodes in any order (every
# node above ε), a "no" ends at the first point above ε, which a dive meets sooner.  Measured
# 2026-12-03 on 4-20-20-1 vs its float16 copy on [-1, 1]^4 (search only, load 6–8): ε = 0.99·max
# 1107 -> 1025 nodes, 14.7 -> 11.4–12.4 CPU s; 1.01·max 1364 nodes either way, 16.9 -> 14.7 CPU s.
_PLUNGE = True
# The primal rounds (:func:`bounded_diff`): an objective whose certified upper bound is above
# _PRIMAL_GAP times the best lower bound gets, at each of its later slices, more float ascents
# (:func:`.primal.many_candidates`, a new seed, chunks of 128 random points of _MORE_STEPS
# sign-gradient steps, while _PRIMAL_SHARE of the slice lasts) and a walk over regions from
# their best points.  Measured 2026-12-02 on ACAS Xu's full box against its float16 copy: 8
# starts of 40 steps (the first search) found |a − b| = 3.1e-3 in 600 s, 4096 ascents of 60
# steps and their walk 1.9e-2 (output 4, exact value): the maximum sits on a small spot near
# the boundary, found by many long ascents, not by a few.
_PRIMAL_GAP = 2
_PRIMAL_SHARE = 0.25
_MORE_STEPS = 60
# Sampling stages (:func:`.primal.sampled_candidates`; input dimension <= _STAGE_D, at least
# _STAGE_HIDDEN hidden neurons in a − b): stage i samples the box with seed i and walks from its
# best samples, for every objective at once; its proposals are evaluated exactly.  Once every
# objective has an upper bound (with a timeout; at 20 s under load the stages before the roots
# left objectives without one) and while one is above _PRIMAL_GAP times the best lower bound (a
# small box that closes at once pays nothing), the first _FIRST_STAGES run at once (whole: the
# time slice of the call is paused, the outer budget stops them), stage
# _FIRST_STAGES + j once the search has made _STAGE_NODES · 2^j nodes (at most one a call).
# They replace the gap rounds there: the stages run are a function of the nodes made, so the
# lower bound never falls when the budget grows (the clocked gap rounds
# gave ACAS Xu's full box 1.8971e-2 at 120 s, 7.0323e-3 at 600 s).  Measured 2026-12-03 on
# ACAS Xu's full box vs its float16 copy (load 5): stages of seeds 0–7 reach 3.6e-3, 4.2e-3,
# 2.02e-2, 5.4e-3, 2.30e-2, 5.4e-3, 2.11e-2, 3.2e-3 (1.2–1.4 CPU s each); 4 096 ascents of 60
# steps and walks from their 20 best per objective (80 CPU s) reach 1.86e-2.
_STAGE_D = 8
_STAGE_HIDDEN = 128
_FIRST_STAGES = 3
_STAGE_NODES = 16
# Near-max primal rounds: the first _NEAR_ROUNDS rounds of an objective whose own lower bound
# is at least _NEAR_MAX times the best lower bound (a candidate for the maximiser; with or
# without the _PRIMAL_GAP rule) walk from its _NEAR_KEEP best ascents with _NEAR_LPS region
# LPs.  Measured 2026-12-03 on digits 64-32-10 vs its float16 copy, where the upper bound is the
# loose side (16 384 float ascents and walks from their 400 best all end at |a_2 − b_2| <=
# 3.6944e-2; certified upper 5.1e-2 at 600 s): the walk from the 8 best of 2 048 ascents with
# 120 LPs stays at the search's 3.6162e-2 (three seeds), from the 20 best with 600 LPs it
# reaches 3.6916e-2 / 3.6931e-2 / 3.6162e-2 (0.3 + 0.3 CPU s): the walk's start points, not the
# ascents, were missing.  Only above 8 inputs (with input splits the boxes' centres and the
# LP points propose well): on ACAS Xu 1/100 boxes 0 and 6 side by side with main (load 7, 60 s,
# 18 CPU s) they cost nodes (box 0: 56 -> 42) for no better lower bound.
_NEAR_MAX = Q(9, 10)
_NEAR_ROUNDS = 3
_NEAR_KEEP = 20
_NEAR_LPS = 600
# Objective scheduling (:func:`_rounds`): after the first round, the objective of largest upper
# bound runs alone until it falls below the next one's (at least _FOCUS_SPLITS splits a call).
# Profiled 2026-12-03 on digits 64-32-10 vs its float16 copy at 60 s: every one of the 20
# objectives ended with its upper bound in [4.4e-2, 6.2e-2], all above the maximum 3.69e-2 (the
# claim is their max; the frontiers are flat, the top three within 1 %), and the rounds gave
# each the same time.  Side by side with the rounds alone (same load): 60 s upper 5.91e-2
# against 6.60e-2 (load 5.8, 11.4 CPU s), 600 s 4.95e-2 against 5.33e-2 (load 6.4-9.2, 65.5 CPU
# s); 64-32-16-10 at 60 s 4.41x against 4.39x (load 5.1).  Only above 8 inputs: ACAS Xu (input
# splits, primal rounds of a quarter of each slice) was not measured with it.
_FOCUS = True
_FOCUS_SPLITS = 4
_FOCUS_CAP = 1 / 4      # of the remaining time: a cap of one such run (a primal round takes a quarter of it)
_ROOT_ONLY = Q(2) ** 200  # pause_at of the first round with focus: each objective stops after its root


class _Share(Budget):
    """A share of an outer budget's remaining time; exhausted also when the outer one is
    (e.g. interrupted by Ctrl-C)."""

    __slots__ = ("outer",)

    def __init__(self, outer: Budget, share: float):
        super().__init__(share * outer.remaining(), outer.max_regions, clock=outer.clock)
        self.outer = outer

    def exhausted(self) -> bool:
        if self.outer.interrupted or (self.outer.reason is not None):
            self.reason = self.reason or self.outer.reason
        return super().exhausted()


@dataclass
class BabResult:
    """Certified ``lower <= max_o sup_x |a_o − b_o| <= upper``; ``point``/``output`` attain lower.

    ``upper`` is None when no upper bound was certified within the budget (JSON ``null``, with
    the reason); ``unbounded`` True when the supremum is proved to be +∞ (JSON ``"inf"`` for
    ``lower`` and ``upper``; ``ray`` holds the certified ray, ``point`` a point on it)."""

    lower: Q
    upper: Q | None
    point: tuple
    output: int
    per_output: list
    nodes: int
    complete: bool
    reason: str
    certificate: dict = field(repr=False)     # (megabytes on a large net: out of the repr)
    checked: bool | None = None      # True: re-checked in-process; None: not (budget / no check)
    unbounded: bool = False
    ray: dict | None = None

    @property
    def exact(self) -> bool:
        """lower = upper (the exact maximum, or +∞ with a certified ray): JSON ``complete``.

        With ε, ``complete`` (the attribute) only says the search closed every node at ε: a
        decided ``equiv --epsilon`` whose interval is still open has ``exact`` False."""
        if self.unbounded:
            return self.complete
        return self.upper is not None and self.lower == self.upper

    def to_json(self) -> dict:
        inf = self.unbounded
        out = {"lower": "inf" if inf else str(self.lower),
               "upper": "inf" if inf else (None if self.upper is None else str(self.upper)),
               "complete": self.exact,
               "max_deviation": "inf" if inf else str(self.lower),
               "point": [q_json(v) for v in self.point], "output": self.output,
               "per_output": [{"lower": _bound_json(lo, inf), "upper": _bound_json(hi, inf)}
                              for lo, hi in self.per_output],
               "nodes": self.nodes, "reason": self.reason,
               "method": "symmetry (S1, S2)" if (self.certificate or {}).get("type") == "symmetry_path"
               else "branch and bound",
               "certificate_checked": bool(self.checked)}
        if self.ray is not None:
            out["ray"] = self.ray
        return out


def _bound_json(v, inf=False):
    """One end of a per-output interval as JSON: exact string, ``"inf"`` (+∞) or null (unknown)."""
    if v == "inf":
        return "inf"
    return None if v is None else str(v)


def as_domain(domain, d: int) -> Domain:
    """*domain* as a :class:`~algebra.kernel.domains.Domain`: any spelling the Python API takes
    (:func:`semialgebraic.sets.api_domain`: a Domain or Polyhedron, a cube ``(lo, hi)``,
    per-coordinate ``(lo, hi)``, None or ``"R^d"``, ``"orthant"``, ``{"box": …}``, a domain JSON;
    the session 39 API audit: ``diff_bounds(a, b, "orthant")`` raised a bare ValueError)."""
    from ..sets import api_domain
    return api_domain(domain, d)


def domain_point(dom: Domain):
    """An exact point of the domain (exact LP); :class:`InputError` when the domain is empty
    (an exact Motzkin certificate proved it)."""
    if not dom.halfspaces:           # sides only: no rows (2d rows of d numbers: 98 M entries
        return tuple(Q(0) if lo is None and hi is None else   # at d = 7000, ~5 s)
                     lo if hi is None else hi if lo is None else (lo + hi) / 2
                     for lo, hi in zip(dom.lo, dom.hi))
    rows = dom.rows()
    from ..lp import feasible
    res = feasible(A_le=[[-v for v in r[:-1]] for r in rows], b_le=[r[-1] for r in rows], n=dom.dim)
    if not res.feasible:
        raise InputError("the domain is empty (its box and half-spaces have no common point)")
    return tuple(res.point)


@api_boundary
def diff_bounds(a: Network, b: Network, box, *, timeout: float | None = None,
                budget: Budget | None = None, epsilon=None, verify: bool = True,
                input_splits: bool | None = None, points=(), copies: bool = False) -> BabResult:
    """Certified interval on ``max_o sup_{x in domain} |a_o(x) − b_o(x)|``.

    *box* is the domain: ``(lo, hi)`` (a cube), a list of per-coordinate ``(lo, hi)`` or a
    :class:`~algebra.kernel.domains.Domain` (box ∩ half-spaces, the orthant, all of R^d, a box
    open on some sides).  A bounded domain goes to branch and bound (half-spaces enter the LP
    relaxation); an unbounded one is first decided bounded or not (:mod:`.recession`).  With
    *epsilon*, the search stops at a point where ``|a − b| > epsilon`` and closes nodes bounded
    by it.  *input_splits* (default: input dimension <= 8) lets the search split input
    coordinates; by default near copies split them only at nodes with more than ``_TWIN_SPLIT``
    unstable neurons (:func:`_twin_split`), other pairs above ``max(d, _PLAIN_SPLIT)``, while
    True splits them wherever more than ``d`` neurons are unstable.  ``b``'s hidden neurons are
    first aligned with ``a``'s (:mod:`.align`: S1/S2 steps, same function, in the certificate).
    With *copies* (the commands), a *b* that alignment brings exactly onto *a* is answered 0 at
    once with a ``symmetry_path`` certificate (:func:`_symmetric_copy`); callers that combine
    ``bab_bound`` certificates (the distributed cover) leave it off.

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    >>> r = diff_bounds(a, b, (-1, 2))
    >>> r.lower, r.upper, r.complete
    (1, 1, True)
    >>> diff_bounds(a, b, Domain.orthant(1)).to_json()["upper"]
    'inf'
    """
    require_network(a, "diff_bounds", "a")
    require_network(b, "diff_bounds", "b")
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures {a.signature} and {b.signature}")
    dom = as_domain(box, a.n_inputs)
    budget = budget or Budget(timeout)
    outer = budget
    if budget.timeout is not None and (verify or budget.max_regions is None):
        # the certificate's assembly and (with verify) its independent check run after the
        # search, in what is left (a budget counting nodes, a distributed task's, is kept whole)
        budget = _Share(outer, _SEARCH_SHARE if verify else _ASSEMBLY_SHARE)
    eps = None if epsilon is None else to_q(epsilon)
    alignment = stopped = None       # b's neurons paired with a's (once: 5 s on a 768-3072 pair)
    if copies:
        try:
            with _preparing(budget):
                alignment = aligned(a, b)
        except KeyboardInterrupt:    # the budget (or Ctrl-C) inside exact conversions that see
            _stopped(budget)         # no checkpoint (the budgets audit, session 43)
            stopped = True
    same = _symmetric_copy(a, b, dom, alignment) if alignment is not None else None
    if same is not None:             # b = a up to S1/S2: a − b = 0 on every domain
        if verify:
            same.checked = _self_check(same.certificate, outer)
        return same
    pruned = pruned_layer(a, b)
    dom = closed_sides(dom, budget)
    if pruned:      # two constants; a − b's arrays would have a layer of width 0 (s50 audit F1)
        r = _pruned_pair(a, b, dom, pruned)
    elif None in dom.lo or None in dom.hi:
        from .recession import unbounded_diff
        r = unbounded_diff(a, b, dom, budget, eps, input_splits)
    elif stopped:
        r = unprepared(a, b, dom, budget, eps)
    else:
        r = bounded_diff(a, b, dom, budget, eps, input_splits, points, alignment=alignment)
    if budget.interrupted:
        outer.interrupt()
    if verify:
        r.checked = _self_check(r.certificate, outer)
        if r.checked is None and outer.interrupted and "interrupted" not in (r.reason or ""):
            r.reason = "; ".join(x for x in (r.reason, "the certificate's self-check "
                                             "interrupted (Ctrl-C)") if x)
    if budget is not outer and budget.reason is not None and budget.reason.startswith("timeout"):
        r.reason = r.reason.replace(f"timeout of {budget.timeout:g} s",
                                    f"timeout of {outer.timeout:g} s")
    return r


def pruned_layer(a: Network, b: Network) -> int | None:
    """The first hidden layer at which both *a* and *b* have width 0 (then each is a constant and
    ``a − b`` has a layer of width 0, which the branch and bound's arrays cannot hold), else None."""
    return next((l for l in range(1, min(a.depth, b.depth)) if a.widths[l] == 0 == b.widths[l]),
                None)


def _pruned_pair(a: Network, b: Network, dom: Domain, layer: int) -> BabResult:
    """Both networks have hidden layer *layer* of width 0 (pruned): each is a constant, and
    ``a − b = c`` everywhere, so ``max |a − b| = max_o |c_o|`` exactly, on any domain.  The
    certificate is a ``bab_recession`` one with ``constant`` (its checker sees the two layers of
    width 0 and evaluates ``a − b`` at the point), whether the domain is bounded or not (the
    branch and bound's arrays have no layer of width 0)."""
    from ..certificates.bab_recession import bab_recession_certificate
    x = domain_point(dom)
    c = [u - v for u, v in zip(a.evaluate(x), b.evaluate(x))]
    devs = [abs(v) for v in c]
    out = max(range(len(devs)), key=devs.__getitem__)
    top = devs[out]
    cert = bab_recession_certificate(a, b, dom, constant=layer, upper=top, lower=top,
                                     point=tuple(x), output=out)
    reason = (f"both networks have hidden layer {layer} of width 0 (pruned): each is a constant "
              f"and a - b = ({', '.join(q_str(v) for v in c)}) everywhere")
    return BabResult(top, top, x, out, [(v, v) for v in devs], 0, True, reason, cert)


def _symmetric_copy(a: Network, b: Network, dom: Domain, alignment=None) -> BabResult | None:
    """Exact 0 when *b* is *a* with its hidden neurons permuted and positively rescaled (S1,
    S2: :func:`.align.aligned` brings it onto *a* exactly), with a ``symmetry_path``
    certificate from a to b (the alignment's steps inverted), whatever the domain; else None.
    An outsider's permuted 16-32-32-4 copy on R^d: ``diff --timeout 5`` ended with [0, 12.2]
    (the recession route bounds the unaligned pair through |W|), exact 0 only at 30 s."""
    path = path_onto(a, b, alignment)
    if path is None:
        return None
    from ..certificates.symmetry_path import symmetry_path_certificate
    cert = symmetry_path_certificate(a, b, path)
    x = domain_point(dom)
    m = a.n_outputs
    return BabResult(_Z0, _Z0, x, 0, [(_Z0, _Z0)] * m, 0, True,
                     "b is a with its hidden neurons permuted and positively rescaled (S1, S2): "
                     "a − b = 0 everywhere", cert)


_Z0 = Q(0)


def closed_sides(dom: Domain, budget: Budget | None = None) -> Domain:
    """*dom* with each open side that its half-spaces bound closed at the exact LP bound of that
    coordinate over the domain (the same set; e.g. ``x_2 >= -1`` open above but cut by
    ``3 x_1 + x_2 <= 3``, ``x_1 >= -1``: then ``x_2 <= 6``).  A bounded polyhedron so becomes a
    box ∩ half-spaces for branch and bound; before, its open side sent it to the recession test,
    which found no apex box for a cone of 0 and left ``equiv`` undecided.  One exact LP per open
    side; a spent *budget* stops them (the sides closed so far are kept: each is implied)."""
    if dom.sides():                    # a proved bounding box (sets.tighten): the same set
        dom = Domain(*zip(*dom.intervals()), dom.halfspaces)
    if not dom.halfspaces or (None not in dom.lo and None not in dom.hi):
        return dom
    from ..lp import optimize
    rows = dom.rows()
    A = [[-v for v in r[:-1]] for r in rows]           # a·x + c >= 0  <=>  −a·x <= c
    rhs = [r[-1] for r in rows]
    lo, hi = list(dom.lo), list(dom.hi)
    for i in range(dom.dim):
        for side, maximize in ((hi, True), (lo, False)):
            if side[i] is not None:
                continue
            if budget is not None and budget.exhausted():
                return Domain(lo, hi, dom.halfspaces)
            e = [Q(0)] * dom.dim
            e[i] = Q(1)
            res = optimize(e, maximize=maximize, A_le=A, b_le=rhs, n=dom.dim)
            if res.status == "optimal":        # checked exactly by optimize (dual certificate)
                side[i] = res.value
    return Domain(lo, hi, dom.halfspaces)


_NO_UPPER = "no upper bound within the budget"


def _stopped(budget: Budget) -> None:
    """Record why the preparation stopped (called in its ``except KeyboardInterrupt``): a
    Ctrl-C, or the deadline (:func:`_preparing`'s alarm, said as the timeout it is, not as the
    alarm's own words)."""
    if not budget.exhausted() and sys.exc_info()[0] is BudgetExhausted and budget.timeout is not None:
        budget.reason = f"timeout of {budget.timeout:g} s reached"
    budget.interrupt()


@contextmanager
def _preparing(budget: Budget):
    """Inside the block, :class:`~semialgebraic.budget.BudgetExhausted` at *budget*'s deadline
    (a wall-clock budget, on the main thread: :func:`~semialgebraic.budget.alarm_at`): the
    exact work before the search (the alignment, ``a − b``, its reduction, its rows) is pure
    Python over every parameter and sees no checkpoint — a 768-3072-768 pair took 15-25 s in it
    whatever ``--timeout`` said (the budgets audit, session 43)."""
    left = budget.remaining()
    if left is None or budget.clock is not time.monotonic:
        with budget.active():        # (a layer's exact matrix too large for what is left is
            yield                    # not begun: budget.conversion_guard)
        return
    with budget.active(), alarm_at(time.monotonic() + left, "the preparation of the bounds",
                                   _ALARM_AGAIN):
        yield


def unprepared(a: Network, b: Network, dom: Domain, budget: Budget, eps=None,
               when: str = "before the bounds were prepared") -> BabResult:
    """The result of a search stopped before its bounds were prepared: ``|a − b|`` evaluated
    exactly at a point of the domain (the certified lower bound, a lower-bound certificate), no
    upper bound; with *eps*, refuted when that value is above it."""
    from ..certificates.bab_bound import bab_bound_certificate
    x = domain_point(dom)
    try:
        devs = [abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))]
    except KeyboardInterrupt:        # a Ctrl-C now: the report needs this one point (bounded
        budget.interrupt()           # work; a second Ctrl-C ends the process), not a lost result
        devs = [abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))]
    out = max(range(len(devs)), key=devs.__getitem__)
    lower = devs[out]
    box = list(zip(dom.lo, dom.hi))
    cert = bab_bound_certificate(a, b, box, [], lower, lower, x, out, epsilon=eps,
                                 complete_cover=False, halfspaces=dom.halfspaces)
    refuted = eps is not None and lower > eps
    reason = f"{budget.reason or 'budget'} {when}"
    if not refuted:
        reason += f"; {_NO_UPPER}"
    return BabResult(lower, None, x, out, [(v, None) for v in devs], 0, False, reason, cert)


def bounded_diff(a: Network, b: Network, dom: Domain, budget: Budget, eps=None,
                 input_splits: bool | None = None, points=(), *, alignment=None) -> BabResult:
    """Branch and bound on a bounded domain (a box, or a box ∩ half-spaces), no self-check.

    Without a timeout the ``2m`` objectives ``± (a_o − b_o)`` run one after another (with ε, in
    rounds of node slices instead, :func:`_node_rounds`: one objective with a point above ε ends
    the search, whichever comes first in the order; so does ε = 0 with a timeout).  With one,
    they share it (:func:`_rounds`): in rounds, each open objective (largest upper bound first)
    gets a slice of the time, doubled every round, until all are closed or the time is spent (a
    cut objective continues from its open nodes: ``bound_objective(state=…)``);
    an objective that finishes gives the same bound as in the sequential order; an objective
    whose upper bound is above ``_PRIMAL_GAP`` times the best lower bound gets a primal round
    at each later slice (more float ascents and a walk, :func:`.primal.many_candidates`, in
    ``_PRIMAL_SHARE`` of the slice: the lower bound grows with the budget), and an objective
    near the best lower bound a wider walk in its first rounds (:func:`primal_round`).  The lower
    bound is the best exact ``|a_o − b_o|`` at an evaluated point of the domain (never < 0)."""
    d, m = a.n_inputs, a.n_outputs
    box = list(zip(dom.lo, dom.hi))
    halfspaces = dom.halfspaces
    given = b                        # b's neurons paired with a's (S1/S2: same function, :mod:`.align`)
    try:
        with _preparing(budget):
            b, b_steps = alignment if alignment is not None else aligned(a, b)
            x0 = domain_point(dom) if halfspaces else None
            D = difference_network(a, b)
            paired = a.widths == b.widths
            reduction = []
            if not paired or max(a.widths[1:-1], default=0) > ALIGN_WIDE:   # no pairing (other
                with budget.active():                                      # widths, or too wide
                    D, reduction = reduced(a, b, box, D, budget)           # to align)
                if budget.exhausted():
                    raise BudgetExhausted(budget.reason)
            paired = paired and not reduction
            Ws = [W.to_rows() for W in D.weights]
            bs = [list(bv) for bv in D.biases]
    except KeyboardInterrupt:        # the budget or Ctrl-C before the search (:func:`_preparing`)
        _stopped(budget)
        return unprepared(a, given, dom, budget, eps)
    runs: dict = {}                  # (o, s) -> the ObjectiveBound of least upper bound
    seeds: dict = {}                 # (o, s) -> the float search's start points
    walked: dict = {}                # (o, s) -> the best points of the walk over regions
    more: dict = {}                  # (o, s) -> (primal rounds done, their latest best points)
    states: dict = {}                # (o, s) -> (open nodes of a cut run, its node count)
    nodes = 0
    reasons = []
    small = input_splits is None and _small_pair(a, b)
    staged = d <= _STAGE_D and not small and sum(len(W) for W in Ws[:-1]) >= _STAGE_HIDDEN
    found: dict = {}                 # (o, s) -> [(exact s·D_o, point)]: the stages' best two
    stages = [0]                     # sampling stages run

    def propose(x):
        """*x* evaluated exactly for every objective (the best two of each are kept)."""
        vals = D.evaluate(x)
        for o in range(m):
            for sg in (1, -1):
                got = found.setdefault((o, sg), [])
                got.append((sg * vals[o], x))
                got.sort(key=lambda t: -t[0])
                del got[2:]

    def stage():
        """Sampling stage ``stages[0]`` (:func:`.primal.sampled_candidates`), its proposals
        evaluated exactly for every objective."""
        for _, _, x in sampled_candidates(Ws, bs, box, stages[0], halfspaces=halfspaces):
            if halfspaces and not dom.contains(x):
                continue
            propose(x)
        stages[0] += 1

    def found_best():
        return max((v[0][0] for v in found.values() if v), default=None)

    for x in points:                 # given candidates (a point outside the domain is no bound)
        if isinstance(x, (str, bytes)) or not hasattr(x, "__iter__"):
            raise InputError(f"points: each point is a sequence of {d} coordinates, got {x!r}")
        x = tuple(to_q(v) for v in x)
        if len(x) != d:              # (one of another length was skipped without a word: s53 F10)
            raise InputError(f"points: a point has {len(x)} coordinates, the networks {d} inputs")
        if dom.contains(x):
            propose(x)

    with budget.active():            # the bounds' inner loops stop at the deadline
        try:
            # the differential bounds pair neuron j of a with neuron j of b: one shape only
            engine = Engine(Ws, bs, paired=paired, halfspaces=halfspaces,
                            **({"tighten": 0, "cuts": False} if small else {}))
        except KeyboardInterrupt:
            budget.interrupt()
            engine = None
        if engine is not None and budget.timeout is not None and sum(len(W) for W in Ws[:-1]) >= _PREFETCH:
            try:                     # a large net's root intervals, shared by every objective
                engine.node(list(box), {})   # (cached): once in the whole budget, not lost to
            except KeyboardInterrupt:        # slices too short for them (5-50x6-5: no upper
                budget.interrupt()           # bound at all in 40 s under load without this)
        split_above = count = None
        if input_splits is None:
            try:
                split_above = near_copy_split(engine if not budget.exhausted() else None, box)
            except KeyboardInterrupt:
                budget.interrupt()
        if engine is not None and small:
            if split_above is not None:  # small near copies: input splits above d kinks
                split_above, count = d, _kinks
            else:                    # not near copies: the default engine (tightened bounds)
                try:
                    engine = Engine(Ws, bs, paired=paired, halfspaces=halfspaces)
                except KeyboardInterrupt:   # (the budget inside its exact set-up: BudgetExhausted
                    budget.interrupt()      # reached the API's caller, s53 API audit F1)
                    engine = None
        if split_above is None and input_splits is None:
            split_above = max(d, _PLAIN_SPLIT)   # not near copies (:func:`split_threshold`)

        def run(key, bud, pause_at=None, pause_after=0, primal=None):
            nonlocal nodes
            o, s = key
            c = [Q(0)] * m
            c[o] = Q(s)
            if key not in seeds and not bud.exhausted():
                try:
                    seeds[key] = float_candidates(Ws, bs, box, o, s, seed=o, keep=_STARTS)
                except KeyboardInterrupt:
                    bud.interrupt()  # (a slice's end is not the outer budget's)
            if key in seeds and key not in walked and (key in runs or budget.timeout is None) \
                    and not bud.exhausted():
                try:                 # after the root's bound (when sliced): a walk over regions
                    walked[key] = region_search(Ws, bs, box, o, s, seeds[key], halfspaces=halfspaces)
                except KeyboardInterrupt:
                    bud.interrupt()
            best_lower = max([r.lower for r in runs.values()] + [v for v in [found_best()] if v is not None],
                             default=None)
            ran = False              # (at most one later stage a call)
            roots = budget.timeout is None or (len(runs) == 2 * m and all(r.upper is not None for r in runs.values()))
            if staged and roots and best_lower is not None and any(
                    r.upper is not None and r.upper > _PRIMAL_GAP * max(best_lower, Q(0)) for r in runs.values()):
                try:                 # sampling stages (work-counted: a function of the nodes made),
                    with bud.paused():   # whole even past a short slice (else a slice of 0.3 CPU s
                        while not budget.exhausted() and (stages[0] < _FIRST_STAGES or (   # stops
                                nodes >= _STAGE_NODES * 2 ** (stages[0] - _FIRST_STAGES) and not ran)):
                            ran = stages[0] >= _FIRST_STAGES   # every stage of 1.3 s, again and again)
                            stage()
                except KeyboardInterrupt:
                    bud.interrupt()
            k, _ = more.get(key, (0, []))
            kind = None
            if key in walked and key in runs and runs[key].upper is not None and best_lower is not None:
                kind = primal_round(runs[key].lower, runs[key].upper, best_lower, k if d > 8 else _NEAR_ROUNDS)
            if staged and kind == "gap":
                kind = None          # the sampling stages instead (not clocked: monotone)
            near = kind == "near"
            if kind is not None and not bud.exhausted():
                left = bud.remaining()      # (*primal*: the focused runs' share, their slice a cap)
                left = left if primal is None or left is None else min(left, primal)
                end = None if left is None else bud.clock() + _PRIMAL_SHARE * left
                keep, lps = (_NEAR_KEEP, _NEAR_LPS) if near else (_STARTS, None)
                try:                 # a primal round: new float ascents and their walk (anytime)
                    pts, _ = many_candidates(Ws, bs, box, o, s, seed=o + 1000 * (k + 1), keep=keep,
                                             steps=_MORE_STEPS,
                                             more=lambda: end is not None and bud.clock() < end)
                    walk = region_search(Ws, bs, box, o, s, pts, halfspaces=halfspaces,
                                         **({} if lps is None else {"lps": lps}))
                    more[key] = (k + 1, pts[:3] + walk)
                except KeyboardInterrupt:
                    bud.interrupt()
            start = (([] if x0 is None else [x0]) + seeds.get(key, [])[:3] + walked.get(key, [])
                     + more.get(key, (0, []))[1] + [x for _, x in found.get(key, [])])
            old = runs.get(key)
            state, done = states.pop(key, (None, 0))
            if state is not None and old is not None and old.tree is state["root"]:
                old.tree = freeze_tree(old.tree)   # the resumed run grows the live tree in place
            # without ε, an objective's nodes are closed at the best lower bound of them all
            # (only max_o matters): objectives below it finish at once
            prune = eps if eps is not None else max([r.lower for r in runs.values()]
                                                    + [v for v in [found_best()] if v is not None], default=None)
            ob = bound_objective(Ws, bs, box, c, _objective(D, o, s, dom, x0), budget=bud,
                                 start=start, stop_above=eps, prune_at=prune, engine=engine,
                                 input_splits=input_splits, state=state, input_split_above=split_above,
                                 split_count=count, plunge=eps is not None and _PLUNGE,
                                 pause_at=pause_at, pause_after=pause_after)
            if ob.upper is None:
                ob = _root_leaf(engine, box, c, ob)
            nodes += ob.nodes - done
            if ob.upper is not None and "state" in ob.extra:
                states[key] = (ob.extra["state"], ob.nodes)   # a cut run continues from here
            if old is not None and ob.upper is None and old.upper is not None:
                ob.upper, ob.tree = old.upper, old.tree      # keep the certified bound
            if old is not None and old.upper is not None and ob.upper is not None and old.upper < ob.upper:
                ob.upper, ob.tree = old.upper, old.tree      # (a restart in a shorter slice)
            if old is not None and old.lower > ob.lower:
                ob.lower, ob.point = old.lower, old.point
            runs[key] = ob
            show()
            return ob

        bar = Progress("branch and bound, nodes")   # on a terminal only (stderr): interval, open nodes

        def show():
            if bar.enabled:
                lows = [r.lower for r in runs.values()] + [v for v in [found_best()] if v is not None]
                ups = [r.upper for r in runs.values()]
                up = max(ups) if len(runs) == 2 * m and None not in ups else None
                bar.update(nodes - bar.done, progress_note(max(lows, default=None), up, sum(
                    len(st["heap"]) for k, (st, _) in states.items() if not runs[k].complete)))

        keys = [(o, s) for o in range(m) for s in (1, -1)]
        if engine is None:
            pass
        elif eps is not None and (budget.timeout is None or eps == 0):
            reasons += _node_rounds(keys, run, runs, budget, eps)
        elif budget.timeout is None:
            for key in keys:
                ob = run(key, budget)
                if ob.reason and not ob.complete:
                    reasons.append(ob.reason)
                if ob.upper is None or (eps is not None and ob.lower > eps):
                    break
        else:
            reasons += _rounds(keys, run, runs, budget, eps, focus=d > 8)
        bar.close()
    best = None                      # the objectives' best in the sequential order, then exact |a − b|
    for key in keys:
        ob = runs.get(key)
        if ob is not None and (best is None or ob.lower > best[0]):
            best = (ob.lower, ob.point, key[0])
    pts = [ob.point for ob in runs.values()] + [v[0][1] for v in found.values() if v]
    pts.append(x0 if x0 is not None else tuple((lo + hi) / 2 for lo, hi in box))
    dev_o = [Q(0)] * m               # per output: the best exact |a_o − b_o| at those points,
    for x in dict.fromkeys(map(tuple, pts)):     # by D = a − b on the box (reduced: one small
        if halfspaces and not dom.contains(x):   # network, where a and b took 3.4 s past the
            continue                             # deadline on a 64-3072-64 pair; the checker
        devs = [abs(v) for v in D.evaluate(x)]   # evaluates a and b at the point it is given)
        o = max(range(m), key=devs.__getitem__)
        dev_o = [max(u, v) for u, v in zip(dev_o, devs)]
        if best is None or devs[o] > best[0]:
            best = (devs[o], tuple(x), o)
    if engine is None:
        reasons.append(f"{budget.reason} before the bounds were prepared")
    refuted = eps is not None and best[0] > eps
    rootless = (engine is None or any(ob.upper is None for ob in runs.values())
                or (len(runs) < len(keys) and not refuted))   # a refutation stops the others
    complete = not rootless and all(ob.complete for ob in runs.values())
    # an output's upper bound needs both signs' objectives bounded (|a_o − b_o| = the larger of
    # a_o − b_o and b_o − a_o), and the overall one every output's: a node budget (or a
    # refutation) that stopped before an objective leaves those ends null, every output still
    # listed with its lower end (the diff audit, session 37: one sign's bound was reported as
    # |a_o − b_o|'s, below the truth and even negative, and later outputs were left out)
    per_output, objectives = [], []
    for o in range(m):
        pair = [runs.get((o, s)) for s in (1, -1)]
        ups = [p.upper if p is not None else None for p in pair]
        per_output.append((max([p.lower for p in pair if p is not None] + [dev_o[o]]),
                           None if None in ups else max(ups)))
        objectives += [{"output": o, "sign": s, "upper": runs[(o, s)].upper, "tree": runs[(o, s)].tree}
                       for s in (1, -1) if (o, s) in runs]
    all_bounded = engine is not None and all(hi is not None for _, hi in per_output)
    complete = complete and all_bounded
    lower, point, out = best
    unbounded = rootless             # no certified upper bound (budget before a root)
    if unbounded and not refuted:
        reasons.append(_NO_UPPER)
    if refuted or unbounded:
        # refuted before every objective was bounded: only the lower bound is known
        upper = max(max(hi for _, hi in per_output), lower) if all_bounded and not unbounded else None
    else:
        upper = max(hi for _, hi in per_output)
    from ..certificates.bab_bound import bab_bound_certificate
    if refuted or unbounded:         # only the lower bound is claimed (and certified)
        cert = bab_bound_certificate(a, given, box, [], upper if upper is not None else lower, lower,
                                     point, out, epsilon=eps, complete_cover=False,
                                     halfspaces=halfspaces)
    else:
        cert = bab_bound_certificate(a, given, box, objectives, upper, lower, point, out,
                                     epsilon=eps, complete_cover=True, halfspaces=halfspaces,
                                     b_steps=b_steps, reduction=reduction)
    if eps is None:
        complete = upper is not None and lower == upper
    reason = ("lower = upper" if complete and eps is None else
              "; ".join(dict.fromkeys(reasons)) or _eps_reason(eps, upper, refuted))
    return BabResult(lower, upper, point, out, per_output, nodes, complete, reason, cert)


REDUCE_FROM = Q(1, 4)
"""Where a and b cannot be paired neuron by neuron (other widths, or a layer too wide to align:
:mod:`.align`), the exact reduction of a − b (:func:`reduced`) is used when it merges at least
this share of its hidden neurons (half of b's into a's: a permuted, rescaled or pruned copy with
a few neurons changed or added); otherwise (near copies: float16, quantised, whose only steps
zero dead neurons) D stays whole.  Where they can, the differential bounds' pairing of neuron j
of a with neuron j of b is kept: it already closes identical pairs (their difference is 0)."""


def reduced(a: Network, b: Network, box, D: Network, budget: Budget) -> tuple[Network, list]:
    """``(D', steps)``: ``D' = a − b`` on the box after exact reduction steps (positively
    parallel neurons merged, silent and dead ones zeroed:
    :func:`~semialgebraic.equivalence.reduction.reduced_difference`, replayed by the checker)
    and without its zero neurons (:func:`~algebra.kernel.drop_zero_neurons`, the checker's
    too), when they merge at least :data:`REDUCE_FROM` of the hidden neurons; else
    ``(D, [])``.  A
    64-3072-64 block against a permuted, rescaled copy with one neuron more, live only on a
    corner of [-1, 1]^64 where it reaches 1e-6: ``diff --timeout 60`` gave [0, 2 189.9] (the
    two widths differ, so no alignment), by the reduction one neuron is left."""
    from ..equivalence.reduction import reduced_difference
    hidden = sum(D.widths[1:-1])
    if not hidden:
        return D, []
    try:
        R, steps = reduced_difference(a, b, domain=Domain([lo for lo, _ in box], [hi for _, hi in box]))
    except KeyboardInterrupt:        # the budget (or Ctrl-C) while reducing: D as it was
        budget.interrupt()
        return D, []
    merged = sum(1 for st in steps if st["step"] == "merge")   # dead ones alone: near copies
    return (drop_zero_neurons(R), steps) if merged >= REDUCE_FROM * hidden else (D, [])


def progress_note(lower, upper, open_nodes: int) -> str:
    """The progress line's text after the node count: the current certified interval (5
    significant digits, for the eye only: the answer is printed exactly; ``?`` before every
    objective has a root bound) and the open nodes.

    >>> progress_note(Q(1, 3), None, 5)
    'open 5, max |a - b| in [0.33333, ?]'
    >>> progress_note(None, Q(10) ** 400, 0)
    'open 0, max |a - b| in [?, 1e+400]'
    """
    def show(v):
        if v is None:
            return "?"
        v = to_q(v)
        p, q = int(v.p), int(v.q)
        try:
            return f"{p / q:.5g}"
        except OverflowError:        # beyond a float's range: the order of magnitude
            return f"{'-' if p < 0 else ''}1e+{len(str(abs(p))) - len(str(q))}"
    return f"open {open_nodes}, max |a - b| in [{show(lower)}, {show(upper)}]"


def _eps_reason(eps, upper, refuted) -> str:
    """The reason of an ε question no budget or objective explained: it holds, it is refuted, or
    the certified upper bound stays above ε (fuzz 2026-12-03: an undecided answer once said "the
    bound holds").

    >>> _eps_reason(None, Q(1), False), _eps_reason(Q(1), Q(1), False), _eps_reason(Q(1), Q(2), True)
    ('', 'the bound holds', 'a point exceeds epsilon')
    >>> _eps_reason(Q(1), Q(2), False)
    'the certified upper bound 2 stays above epsilon'
    """
    if eps is None:
        return ""
    if refuted:
        return "a point exceeds epsilon"
    if upper is not None and upper <= eps:
        return "the bound holds"
    return f"the certified upper bound {upper} stays above epsilon"


def primal_round(lower, upper, best_lower, done: int):
    """The primal round an objective of certified ``[lower, upper]`` gets after *done* rounds,
    *best_lower* the best lower bound of all objectives: ``"near"`` (one of its first
    ``_NEAR_ROUNDS``, its lower at least ``_NEAR_MAX`` times the best and its upper above it:
    the wide walk), ``"gap"`` (upper above ``_PRIMAL_GAP`` times the best: the rounds of
    ACAS Xu's full box) or None (no round)."""
    if best_lower > 0 and done < _NEAR_ROUNDS and lower >= _NEAR_MAX * best_lower and upper > best_lower:
        return "near"
    if upper > _PRIMAL_GAP * max(best_lower, Q(0)):
        return "gap"
    return None


def near_copy_split(engine: Engine | None, box):
    """:func:`_twin_split` of the root of *box* (None: not near copies, or no *engine*); the
    root's bounds come from the engine (cached); ``KeyboardInterrupt`` at the budget."""
    if engine is None or engine.diff is None:
        return None
    root = list(box)
    ivs = engine.node(root, {})[0]
    return _twin_split(ivs, engine._state.get(engine._key(root, {}), (None, None))[1])


def split_threshold(engine: Engine | None, box) -> int:
    """``input_split_above`` of the search on *box*: :func:`near_copy_split` for near copies,
    else ``max(d, _PLAIN_SPLIT)``.  Not near copies: neuron splits too below ``_PLAIN_SPLIT``
    unstable (a few kinks are resolved by neuron splits in few nodes; input splits never
    stabilise a kink that crosses the box: fuzz of 40 small pairs 2026-12-02, 36 exact in 41.8
    CPU s against 35 in 83.1 with input splits above d unstable).  (The serial diff's rule for
    small pairs, ``_small_pair``, is not applied here: the distributed tree keeps this one.)"""
    twin = near_copy_split(engine, box)
    return max(len(box), _PLAIN_SPLIT) if twin is None else twin


def _small_pair(a: Network, b: Network) -> bool:
    """A pair of one shape with input dimension <= ``_SMALL_D`` and at most ``_SMALL_RELUS``
    hidden neurons per network (its search: no LP tightening, input splits above d kinks)."""
    return a.n_inputs <= _SMALL_D and a.widths == b.widths and a.n_hidden <= _SMALL_RELUS


def _kinks(ivs) -> int:
    """The kinks crossing a node of ``a − b`` (hidden layers ``[a's n | b's n]``): the pairs
    ``(a_j, b_j)`` of which at least one neuron is unstable (a twin pair of a near copy counts
    once: an input split never separates its two kinks)."""
    out = 0
    for layer in ivs[:-1]:
        n = len(layer) // 2
        out += sum(1 for j in range(n) if layer[j][0] < 0 < layer[j][1] or layer[n + j][0] < 0 < layer[n + j][1])
    return out


def _twin_split(ivs, state):
    """For near copies, the number of unstable neurons above which a node is split on an input
    coordinate (``_TWIN_SPLIT``), else None (the search's default, the input dimension).

    ``a − b`` pairs neuron ``j`` of ``a`` with neuron ``j`` of ``b`` (:mod:`.differential`); in
    a near copy (float16, quantised) the two kinks nearly coincide, so both are unstable
    together and an input split never separates them (the thin slab between them crosses
    every sub-box), while a neuron split removes a kink at once.  Measured 2026-12-02 on ACAS
    Xu's 1/100 box 3 (14 unstable at the root, 60 splits of objective ``−(a_0 − b_0)``):
    upper/lower − 1 = 5.9e-3 with input splits, 3.5e-5 with neuron splits only; on box 8 (69
    unstable) input splits did better (0.20 against 0.57 after 40 splits), their sub-boxes
    ending with 17–19 unstable: hence neuron splits below ``_TWIN_SPLIT`` unstable only.
    Twins: both neurons of a pair unstable with the pair's δ (*state*, the root's
    differential state) at most a sixteenth of either's width; near copies: at least
    ``_TWIN_SHARE`` of the root's unstable neurons are twins.  *ivs* are the root's
    intervals (None: an empty root)."""
    if ivs is None or state is None:
        return None
    unstable = twins = 0
    for l, layer in enumerate(ivs[:-1]):
        n = len(layer) // 2
        for j in range(n):
            (la, ua), (lb, ub) = layer[j], layer[n + j]
            ta, tb = la < 0 < ua, lb < 0 < ub
            unstable += ta + tb
            dl, du = state[0][l][j]
            if ta and tb and 16 * (du - dl) <= min(ua - la, ub - lb):
                twins += 2
    return _TWIN_SPLIT if unstable and twins >= _TWIN_SHARE * unstable else None


def _root_leaf(engine: Engine, box, c, ob: ObjectiveBound) -> ObjectiveBound:
    """An objective stopped before its root's LP bound (a slice too short under load): the
    root's symbolic or paired differential bound, when the root's intervals are known
    (:meth:`.search.Engine.node`, cached: computed once for every objective), as a one-leaf
    tree with the root's tightened records; else *ob* unchanged (no upper bound)."""
    try:
        ivs, last = engine.node(list(box), {})
    except KeyboardInterrupt:        # not cached and no time left to compute it
        return ob
    if ivs is None:
        return ob
    bnd, by = _output_bound(ivs, c), "symbolic"
    if last is not None and _output_bound([last], c) < bnd:
        bnd, by = _output_bound([last], c), "differential"
    leaf = {"bound": bnd, "by": by}
    recs = engine.tightened(list(box), {})
    if recs:
        leaf["tightened"] = recs
    return ObjectiveBound(ob.lower, max(bnd, ob.lower), ob.point, leaf, max(ob.nodes, 1), False, ob.reason)


def freeze_tree(tree):
    """A copy of a search tree that later growth of *tree* (a resumed search splits its leaves
    in place) does not change: every node dict copied, the multiplier lists shared."""
    if tree is None:
        return None
    out = dict(tree)
    stack = [out]
    while stack:
        node = stack.pop()
        if "children" in node:
            node["children"] = [dict(ch) for ch in node["children"]]
            stack.extend(node["children"])
    return out


class _Slice(Budget):
    """*seconds* (or, without a timeout, *nodes* splits: the slices of :func:`_node_rounds`, a
    function of the work) of an outer budget: exhausted when they are spent or when the outer
    budget is (its reason then copied); its nodes count on the outer budget too."""

    __slots__ = ("outer",)

    def __init__(self, outer: Budget, seconds: float | None, nodes: int | None = None):
        left = outer.remaining()
        super().__init__(None if seconds is None else seconds if left is None else min(seconds, left),
                         nodes, clock=outer.clock)
        self.outer = outer

    def count(self, n: int = 1) -> None:
        super().count(n)
        self.outer.count(n)

    def exhausted(self) -> bool:
        if self.reason is None and self.outer.exhausted():
            self.reason = self.outer.reason
        return super().exhausted()


_FIRST_NODES = 32   # the first slice of :func:`_node_rounds` (doubled every round)


def _node_rounds(keys, run, runs: dict, budget: Budget, eps) -> list:
    """Without a timeout, with a threshold ε: the objectives in rounds of node slices
    (:data:`_FIRST_NODES` splits each, doubled every round), each continuing from its open
    nodes, until a point above ε is found or every objective is closed — the sequential order
    could stay on an objective whose maximum is ≤ ε at a kink its bounds only reach in the
    limit, while another has a point above ε: an outsider's 2-5-4-1 pair on R^d (the biases-free
    pair on the recession cone against ε = 0, a slope of 2e-7) never ended without ``--timeout``,
    and was decided (+∞ with a ray) in 14 s with ``--timeout 60``.  Deterministic: the slices
    count work.  Returns the reasons of a partial result (as :func:`_rounds`).

    With a timeout too when ε = 0 (the sign questions of the unbounded domains: is the bias-free
    difference ever positive on the recession cone, :mod:`.recession`): that pair with
    ``--timeout 60`` took 14.0 s in time slices, 0.4 s in node rounds.  A user's ε with a timeout
    keeps the time slices: side by side on the ten ACAS Xu boxes of width 1/100 at ε = 0.5, 0.99,
    1.01 and 2 times the exact maximum (session 32, a loaded machine), neither was ahead (the
    1.01 rows took 21.8 / 27.8 s, 19.0 / 30.0 s, 1.4 / 13.0 s in time slices / node rounds; the
    2.0 rows 3.0 / 1.6 s, 11.6 / 3.5 s)."""
    open_, n, reasons = list(keys), _FIRST_NODES, []
    while open_ and not budget.exhausted():
        for key in list(open_):
            if budget.exhausted():
                break
            sl = _Slice(budget, None, n)
            with sl.active():
                ob = run(key, sl)
            if sl.interrupted:
                budget.interrupt()
            if sl.reason is None or ob.complete:
                open_.remove(key)    # finished by itself
                if ob.reason and not ob.complete:
                    reasons.append(ob.reason)
            if ob.upper is None and sl.reason is None:
                return reasons + [ob.reason]
            if ob.lower > eps:
                return reasons
        n *= 2
    return reasons + ([str(budget.reason)] if open_ else [])


def _rounds(keys, run, runs: dict, budget: Budget, eps, focus: bool = False) -> list:
    """Share *budget* (with a timeout) among the objectives *keys*: in rounds, each open one,
    largest upper bound first (no bound yet = largest), is run by ``run(key, slice)`` (which
    continues a cut objective from its open nodes) in a slice of the time (the remaining time over twice the open objectives, at least
    twice the last round's; all of it for the last open one); *runs* holds their results.  An
    objective closes when its run ends by itself (not stopped by its slice).  Returns the
    reasons of a partial result.  (Measured 2026-12-03 and not kept: after one round, each slice
    to the objective of largest upper bound — digits 64-32-10 at 60 s: 50 nodes, upper 8.15e-2
    against 292 nodes, 6.41e-2 — the slices shrink and each call pays a primal round; the
    focus below pauses by bound, its slice a cap.)

    With *focus* and without ε (``_FOCUS``; :func:`bounded_diff` asks it above 8 inputs), the
    first round only bounds each objective's root (``pause_at=_ROOT_ONLY``); once every open
    objective has an upper bound, only the objective of largest upper bound runs, ``run(key, slice, pause_at=u2)``, until its
    largest open node is at most ``u2`` (the next open objective's upper bound) after at least
    ``_FOCUS_SPLITS`` splits (:data:`.search.PAUSED`), or its slice ends: the claim is the largest
    upper bound, so the time goes to lowering it (water-filling; the slice, ``_FOCUS_CAP`` of the
    remaining time, is a cap only; a primal round in it takes ``_PRIMAL_SHARE`` of the round-robin
    slice, the remaining time over twice the open objectives: of the cap, three near-max rounds
    took ~17 % of a 600 s budget — at 60 s, side by side, upper 5.76e-2 against 5.94e-2, load
    7.2, 10.8 CPU s)."""
    open_, slice_, reasons, rounds = list(keys), 0.0, [], 0
    while open_ and not budget.exhausted():
        left = budget.remaining()
        if focus and _FOCUS and eps is None and rounds > 0 and len(open_) > 1 and all(
                runs.get(k) is not None and runs[k].upper is not None for k in open_):
            order = sorted(open_, key=lambda k: -runs[k].upper)
            key = order[0]
            sl = _Slice(budget, left * _FOCUS_CAP)
            with sl.active():
                ob = run(key, sl, pause_at=runs[order[1]].upper, pause_after=_FOCUS_SPLITS,
                         primal=left / (2 * len(open_)))
            if sl.interrupted:
                budget.interrupt()
            if (sl.reason is None and ob.reason != PAUSED) or ob.complete:
                open_.remove(key)
                if ob.reason and not ob.complete:
                    reasons.append(ob.reason)
            continue
        slice_ = left if len(open_) == 1 else max(2 * slice_, left / (2 * len(open_)))
        order = sorted(open_, key=lambda k: (0, 0) if runs.get(k) is None or runs[k].upper is None
                       else (1, -runs[k].upper))
        roots = focus and _FOCUS and eps is None and rounds == 0 and len(open_) > 1
        for key in order:
            if budget.exhausted():
                break
            sl = _Slice(budget, slice_)
            with sl.active():
                ob = run(key, sl, **({"pause_at": _ROOT_ONLY} if roots else {}))
            if sl.interrupted:       # Ctrl-C inside the slice
                budget.interrupt()
            if (sl.reason is None and ob.reason != PAUSED) or ob.complete:
                open_.remove(key)    # finished by itself: the answer of the sequential order
                if ob.reason and not ob.complete:
                    reasons.append(ob.reason)
            if eps is not None and ob.lower > eps:
                return reasons
        rounds += 1
    return reasons + ([str(budget.reason)] if open_ else [])


def _objective(D, o, s, dom: Domain, x0):
    """``x -> s·D_o(x)`` exactly; with half-spaces, a point outside the domain is worth less
    than the domain point *x0* (always a candidate), so it never becomes the attained point."""
    if not dom.halfspaces:
        return lambda x: s * D.evaluate(x)[o]
    floor = s * D.evaluate(x0)[o] - 1

    def value(x):
        return s * D.evaluate(x)[o] if dom.contains(x) else floor
    return value


def _self_check(cert, outer: Budget):
    """Re-check *cert* with the independent checker in the time *outer* has left (True, or None:
    not re-checked): :func:`semialgebraic.certificates.valid_within`."""
    from ..certificates import valid_within
    return valid_within(cert, outer, _ALARM_AGAIN)


@api_boundary
def epsilon_equivalent(a: Network, b: Network, box, epsilon, *, timeout: float | None = None,
                       budget: Budget | None = None, verify: bool = True, copies: bool = False):
    """Decide ``max_o max_{x in box} |a_o − b_o| <= epsilon`` exactly.

    Returns ``(answer, result)``: True (the certificate proves the bound), False (``result.point``
    has ``|a − b| > epsilon``) or None (budget).
    """
    r = diff_bounds(a, b, box, timeout=timeout, budget=budget, epsilon=epsilon, verify=verify,
                    copies=copies)
    eps = to_q(epsilon)
    if r.lower > eps:
        return False, r
    if r.upper is not None and r.upper <= eps:
        return True, r
    return None, r
