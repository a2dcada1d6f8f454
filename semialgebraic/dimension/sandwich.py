r"""The functional dimension on a box cut by half-spaces: between its values on a cube inside
and on the box (three-layer-fibers R37).

The functional dimension on a domain D is the largest rank of the Jacobian rows of
θ ↦ (f_θ(x))_{x ∈ X} over finite sets X of differentiable inputs in D, so it can only grow
with D.  For P = B ∩ {a_j·x <= b_j} (B a box with finite sides) and a cube C ⊆ P:

    fd(C) <= fd(P) <= fd(B).

:func:`inscribed_cube` finds the largest cube ``[c − r, c + r]^d`` inside P (one exact LP:
max r subject to ``lo_i <= c_i − r``, ``c_i + r <= hi_i``, ``a_j·c + ‖a_j‖₁ r <= b_j``);
:func:`functional_dimension_on_cut` runs :func:`~semialgebraic.dimension.functional.
functional_dimension` on C (its certified lower bound holds on P) and on B (its certified upper
bound holds on P), half of the budget each, and :func:`sandwich_certificate` joins their two
certificates (the ``functional_dimension_sandwich`` type, checked by
:mod:`semialgebraic.verify.functional_dimension_sandwich`).  Exact when the two meet: a
half-space that does not change which neurons can switch leaves the generic value, and the
interval says how far apart the two domains' values are when it does.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algebra.kernel import compose_input_map
from algebra.network import Network
from algebra.rationals import Q, to_q

from ..budget import Budget, BudgetExhausted
from ..lp.simplex import simplex_free_le
from .functional import functional_dimension
from .result import FunctionalDimension

__all__ = ["inscribed_cube", "functional_dimension_on_cut", "CutDimension", "sandwich_certificate"]


def inscribed_cube(lo, hi, halfspaces) -> tuple[list, Q] | None:
    """``(c, r)``: the largest cube ``[c − r, c + r]^d`` (exact, r > 0) inside the box
    ``∏ [lo_i, hi_i]`` cut by the half-spaces ``a·x <= b`` (*halfspaces*: ``[(a, b)]``), or None
    when that set has no interior (r = 0) or is empty.

    >>> c, r = inscribed_cube([0, 0], [1, 1], [([1, 1], 1)])     # the triangle x, y >= 0, x + y <= 1
    >>> [str(v) for v in c], str(r)
    (['1/4', '1/4'], '1/4')
    """
    d = len(lo)
    rows, rhs = [], []
    for i in range(d):
        e = [Q(0)] * (d + 1)
        e[i], e[d] = Q(-1), Q(1)
        rows.append(e)
        rhs.append(-to_q(lo[i]))                   # -c_i + r <= -lo_i
        e = [Q(0)] * (d + 1)
        e[i], e[d] = Q(1), Q(1)
        rows.append(e)
        rhs.append(to_q(hi[i]))                    # c_i + r <= hi_i
    for a, b in halfspaces:
        a = [to_q(v) for v in a]
        rows.append(a + [sum((abs(v) for v in a), Q(0))])
        rhs.append(to_q(b))                        # a.c + |a|_1 r <= b
    status, w, _ = simplex_free_le(rows, rhs, [Q(0)] * d + [Q(1)])
    if status != "optimal" or w[d] <= 0:
        return None
    return list(w[:d]), w[d]


@dataclass
class CutDimension:
    """The functional dimension on P = box ∩ half-spaces: ``lower`` certified on the cube
    ``inner_box`` ⊆ P, ``upper`` on the box ⊇ P (three-layer-fibers R37)."""

    inner: FunctionalDimension | None       # on the cube inside (None: P has no interior)
    outer: FunctionalDimension              # on the box
    inner_box: list                          # [(lo_i, hi_i)] of the cube, or []
    box: list                                # [(lo_i, hi_i)] of the box
    halfspaces: list                         # [(a, b)]
    n_parameters: int
    pooled: tuple = ()                       # (inputs in the box's reading, all in the domain, p, rank)
    theorem: tuple = ()                      # (value by R38/R39 on the cut itself, evidence, interior)
    regions: tuple = ()                      # (value on the cut itself, regions): a complete walk
    walked: int = 0                          # regions of the cut itself walked (their inputs pooled)

    @property
    def lower(self) -> int:
        if self.theorem:
            return self.theorem[0].value
        best = self.pooled[3] if self.pooled else 0
        if self.inner is not None and not self.inner.non_generic:
            best = max(best, self.inner.lower)
        return best

    @property
    def upper(self) -> int:
        if self.theorem:
            return self.theorem[0].value
        if self.outer.non_generic:
            return self.n_parameters
        return min(self.outer.upper, self.regions[0]) if self.regions else self.outer.upper

    @property
    def by_regions(self) -> bool:
        """The upper bound is the value on the cut's own regions (a complete walk), below the
        box's."""
        return bool(self.regions) and not self.theorem and not self.outer.non_generic and \
            self.regions[0] < self.outer.upper

    @property
    def exact(self) -> bool:
        return bool(self.theorem) or self.lower == self.upper and not self.outer.non_generic

    @property
    def value(self) -> int | None:
        return self.lower if self.exact else None

    @property
    def reason(self) -> str:
        if self.theorem:
            fd, evidence, _ = self.theorem
            return (f"{fd.reason}; on the box cut by the half-spaces itself: the neurons the box "
                    f"does not classify ({len(evidence)}) classified on the cut by points strictly "
                    "inside it and exact LP duals")
        pooled = self.pooled[3] if self.pooled else -1
        if self.inner is None:
            inner = "the domain has no interior (no cube fits inside it)"
        elif pooled >= self.lower:
            own = f", and d + 1 in each of {self.walked} regions of the domain" if self.walked else ""
            inner = (f"lower {self.lower}: the Jacobian rows at {len(self.pooled[0])} inputs in the "
                     f"domain (those of the runs on the cube {_box_text(self.inner_box)} inside it "
                     f"and on the box that lie in it{own})")
        else:                          # the pooled rank stopped by the budget, or below the cube's
            inner = (f"lower {self.lower} from the cube {_box_text(self.inner_box)} inside the domain"
                     + (f" (where {self.inner.reason})" if self.inner.reason else ""))
        if self.by_regions:
            return (f"{inner}; upper {self.upper}: the exact rational rank of the Jacobian rows at "
                    f"d + 1 inputs in each of the {self.regions[1]} linear regions of the domain "
                    "itself (a complete walk; on the box around it the value is "
                    f"{_bounds_text(self.outer)})")
        outer = (f"upper {self.upper} from the box {_box_text(self.box)} around it"
                 + (f" (where {self.outer.reason})" if self.outer.reason else ""))
        return (f"{inner}; {outer}: the functional dimension only grows with the domain "
                "(three-layer-fibers R37)")

    def to_json(self) -> dict:
        out = {"functional_dimension": self.value, "exact": self.exact,
               "n_parameters": self.n_parameters, "reason": self.reason,
               "lower": self.lower, "upper": self.upper,
               "inner_box": [[_num(lo), _num(hi)] for lo, hi in self.inner_box],
               "inner": None if self.inner is None else self.inner.to_json(),
               "outer": self.outer.to_json(),
               "work": {"inner": None if self.inner is None else self.inner.work,
                        "outer": self.outer.work}}
        if self.theorem:
            out["theorem"] = "R39"
            out["deficits"] = list(self.theorem[0].deficits)
        if self.outer.non_generic:
            out["non_generic"] = self.outer.non_generic
        if self.regions:                         # a complete walk of the cut domain itself
            out["cut_regions"] = {"value": self.regions[0], "regions": self.regions[1]}
        return out


def _bounds_text(fd) -> str:
    return str(fd.upper) if fd.lower == fd.upper else f"between {fd.lower} and {fd.upper}"


def _num(v) -> str:
    return str(Q(v))


def _box_text(box) -> str:
    if box and all(b == box[0] for b in box):
        return f"[{box[0][0]}, {box[0][1]}]^{len(box)}"
    return " x ".join(f"[{lo}, {hi}]" for lo, hi in box)


def functional_dimension_on_cut(net: Network, lo, hi, halfspaces, *, timeout: float | None = None,
                                seed: int = 0, reserve_for_certificate: bool = False,
                                max_regions: int | None = 400, theorem: bool = True) -> CutDimension:
    """The functional dimension of *net* on ``∏ [lo_i, hi_i] ∩ {a·x <= b}`` between its certified
    values on the largest inscribed cube and on the box (three-layer-fibers R37); *timeout*
    split in halves (the cube first; what it leaves goes to the box).  A one-hidden-layer net
    is decided exactly on the cut itself by R38/R39 (*theorem*; its neurons classified there by
    :func:`~semialgebraic.dimension.one_layer.classify_on_cut` within :data:`THEOREM_SHARE` of
    the timeout), the sandwich being the fallback.

    >>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    >>> cut = functional_dimension_on_cut(net, [-1, -1], [1, 1], [([1, 1], 1)])
    >>> cut.lower, cut.upper, cut.exact
    (7, 7, True)
    """
    import time
    lo, hi = [to_q(v) for v in lo], [to_q(v) for v in hi]
    halfspaces = [([to_q(v) for v in a], to_q(b)) for a, b in halfspaces]
    start = time.monotonic()
    cube = inscribed_cube(lo, hi, halfspaces)
    if cube is not None and net.depth == 2 and theorem:     # R38/R39 on the cut itself: exact
        decided = _one_layer_on_cut(net, lo, hi, halfspaces, cube,
                                    None if timeout is None else start + THEOREM_SHARE * timeout)
        if decided is not None:
            c, r = cube
            return CutDimension(decided[0], decided[0], [(v - r, v + r) for v in c], list(zip(lo, hi)),
                                list(halfspaces), net.n_parameters, theorem=decided)
    kw = {"seed": seed, "reserve_for_certificate": reserve_for_certificate, "max_regions": max_regions}
    inner, inner_box = None, []
    if cube is not None:
        c, r = cube
        inner_box = [(v - r, v + r) for v in c]
        share = None if timeout is None else SHARES[0] * timeout
        inner = functional_dimension(compose_input_map(net, c, [r] * len(c)), domain=(Q(-1), Q(1)),
                                     budget=Budget(share), **kw)
    left = None if timeout is None else max(0.0, SHARES[1] * timeout - (time.monotonic() - start))
    on_cube, dom = _on_cube(net, lo, hi)
    outer = functional_dimension(on_cube, domain=dom, budget=Budget(left), **kw)
    cut = CutDimension(inner, outer, inner_box, list(zip(lo, hi)), list(halfspaces), net.n_parameters)
    if inner is not None:
        deadline = None if timeout is None else start + timeout
        walk = _region_points(net, lo, hi, halfspaces, max_regions, deadline)
        cut.pooled = _pooled(net, on_cube, lo, hi, halfspaces, cube, inner, outer, deadline, walk.points)
        cut.walked = walk.regions if walk.points else 0
        if walk.complete and not walk.missing and not outer.non_generic:
            cut.regions = _regions_value(net, walk, deadline)
    return cut


THEOREM_SHARE = 0.5
"""Of the timeout, the share the classification of a one-hidden-layer net's neurons on the cut
(its exact LPs, :func:`~semialgebraic.dimension.one_layer.classify_on_cut`) may take before the
sandwich takes over."""


def _one_layer_on_cut(net, lo, hi, halfspaces, cube, deadline) -> tuple | None:
    """``(value, evidence, interior point)`` of the one-hidden-layer *net* on the box cut by the
    half-spaces by three-layer-fibers R38/R39 read on the cut's interior (every neuron dead,
    active or switching there, classified by :func:`~semialgebraic.dimension.one_layer.
    classify_on_cut`), or None (a zero row with bias 0, or the deadline)."""
    from .one_layer import classify_on_cut, one_layer_value
    got = classify_on_cut(net, lo, hi, halfspaces, cube, deadline)
    if got is None:
        return None
    kinds, evidence = got
    fd = one_layer_value(net, list(zip(lo, hi)), kinds)
    return None if fd is None else (fd, evidence, list(cube[0]))


REGION_SHARE = 0.5
"""Of the time left after the two runs, the share the walk over the regions of the cut domain
itself may take (:func:`_region_points`); the pooled rank has the rest."""


@dataclass
class _CutWalk:
    """The walk over the linear regions of the cut domain P itself (:func:`_region_points`)."""

    points: list = field(default_factory=list)   # d + 1 inputs a region (batch_simplex), in P
    complete: bool = False                       # every region of P walked
    missing: list = field(default_factory=list)  # regions with fewer than d + 1 of the points
    regions: int = 0                             # regions walked


def _region_points(net, lo, hi, halfspaces, max_regions, deadline) -> _CutWalk:
    """Inputs of the cut domain P itself, d + 1 in each of its linear regions (a walk over the
    regions of P, at most *max_regions*, each region's point and d points of its region close
    by, in P: :func:`~semialgebraic.dimension.sampling.batch_simplex`), on nets of at most
    ``RANK_ONLY`` parameters; none past them or when the time share is spent first.  The cube
    inside P misses the regions P reaches only outside it, and the box's inputs fall in P by
    chance: on small random nets the lower end stayed at 1, 3, 4 where the value was 4, 6, 7
    (session-26 audit); with every region of P holding d + 1 of these inputs, their rows span
    every region's.  A complete walk (every region with its d + 1 inputs) gives the value on P
    itself (:func:`_regions_value`)."""
    import time
    from algebra.kernel.domains import Domain
    from ..regions.stacked import joint_regions
    from .functional import RANK_ONLY
    from .sampling import batch_simplex
    if net.n_parameters > RANK_ONLY:
        return _CutWalk()
    left = None if deadline is None else REGION_SHARE * (deadline - time.monotonic())
    if left is not None and left <= 0:
        return _CutWalk()
    dom, bases, state = Domain(lo, hi, halfspaces), [], {}
    try:
        for r in joint_regions([net], domain=dom, budget=Budget(left, max_regions), state=state,
                               multipliers=False):
            bases.append(list(r.point))
    except BudgetExhausted:            # an outer budget's stop; a Ctrl-C goes up as before
        state["complete"] = False
    missing: list = []
    points = [list(x) for x in batch_simplex(net, bases, dom, missing)]
    return _CutWalk(points, bool(state.get("complete")), missing, len(bases))


REGIONS_RANK_LIMIT = 2e8
"""Largest rows · columns · min(rows, columns) of the exact rank of a complete walk's rows on
the cut domain (:func:`_regions_value`, one FLINT call no budget stops): about 0.4 s."""


def _regions_value(net, walk: _CutWalk, deadline) -> tuple:
    """``(value, regions)``: the exact rational rank of the Jacobian rows at the d + 1 inputs of
    every linear region of P (a complete walk, none short), the functional dimension on P
    itself: on a region the rows are affine in x, so the rows at d + 1 affinely independent
    inputs of it span every row there, and a differentiable input on no open region has the
    rows of a region it borders (the argument of the ``upper_regions`` of a box,
    :mod:`semialgebraic.verify.functional_dimension`); () past :data:`REGIONS_RANK_LIMIT` or
    the deadline."""
    import time
    from .jacobian import exact_rank
    from .sampling import exact_masks
    rows = len(walk.points) * max(1, net.n_outputs)
    N = net.n_parameters
    if not walk.points or rows * N * min(rows, N) > REGIONS_RANK_LIMIT or \
            (deadline is not None and time.monotonic() > deadline):
        return ()
    X, _ = exact_masks(net, walk.points)       # the differentiable ones
    if not X:
        return ()
    return (exact_rank(net, X), walk.regions)


SHARES = (0.4, 0.8)
"""The run on the cube ends by this share of the timeout, the run on the box by the second; the
rank of the pooled inputs has the rest (stopped there: the cube's lower bound stands).  With
halves and an unstopped pooled rank, ACAS Xu cut by x0 + x1 <= 0 with --timeout 30 took 47 s
(the pooled rank of 718 inputs, 3 590 rows of 13 305, 16 s)."""

POOL_CHUNK = 64
"""Inputs whose masks and rows the pooled rank computes between two checks of the deadline."""


def _pooled(net, on_cube, lo, hi, halfspaces, cube, inner, outer, deadline=None, extra=()) -> tuple:
    """The inputs of both runs and the *extra* ones (user coordinates) that lie in the domain,
    in the box's reading (u of the cube when the box is read on it), a prime and the rank mod p
    of their Jacobian rows: a lower bound of the functional dimension on the domain (the cube's
    inputs alone give the inner run's); () when *deadline* (``time.monotonic()``) passes first,
    checked between chunks and panels."""
    import time
    from ..budget import BudgetExhausted

    def check():
        if deadline is not None and time.monotonic() > deadline:
            raise BudgetExhausted("timeout")
    try:
        return _pooled_rank(net, on_cube, lo, hi, halfspaces, cube, inner, outer, check, extra)
    except BudgetExhausted:
        return ()


def _pooled_rank(net, on_cube, lo, hi, halfspaces, cube, inner, outer, check, extra=()) -> tuple:
    """:func:`_pooled`'s work; *check* raises BudgetExhausted at the deadline."""
    import numpy as np
    from algebra.linalg.gfp import rref_mod_p
    from .jacobian import jacobian_rows, network_prime
    from .sampling import exact_masks
    cubic = on_cube is net
    c_b = [(a + b) / 2 for a, b in zip(lo, hi)]
    s_b = [(b - a) / 2 for a, b in zip(lo, hi)]
    c, r = cube
    users = [[ci + r * ui for ci, ui in zip(c, u)] for u in inner.inputs]
    users += [list(u) if cubic else [ci + si * ui for ci, si, ui in zip(c_b, s_b, u)] for u in outer.inputs]
    users += [list(x) for x in extra]
    seen, X = set(), []
    for x in users:
        key = tuple(x)
        if key in seen or any(v < a or v > b for v, a, b in zip(x, lo, hi)) or \
                any(sum((ai * v for ai, v in zip(a_, x)), Q(0)) > b_ for a_, b_ in halfspaces):
            continue
        seen.add(key)
        X.append(list(x) if cubic else [(v - ci) / si for v, ci, si in zip(x, c_b, s_b)])
    p = network_prime(on_cube)
    kept, blocks = [], []
    for a in range(0, len(X), POOL_CHUNK):
        check()
        Xc, masks = exact_masks(on_cube, X[a:a + POOL_CHUNK])
        if not Xc:
            continue
        try:
            blocks.append(jacobian_rows(on_cube, Xc, masks, p))
        except ZeroDivisionError:      # p divides an input's denominator: the cube's run alone
            return ()
        kept += Xc
    X = kept
    if not X:
        return ([], None, p, 0)
    check()
    R = np.vstack(blocks)
    # the inputs owning a pivot of the rows' echelon form mod p (columns of the transpose) reach
    # the same rank: only those go into the certificate (its checker re-ranks their rows)
    pivots = rref_mod_p(np.ascontiguousarray(R.T), p, check=check)[0]
    m = on_cube.n_outputs
    keep = sorted({int(k) // m for k in pivots})
    return ([X[i] for i in keep], None, p, len(pivots))


def _on_cube(net, lo, hi):
    """``(net read on the cube, (−1, 1))`` for the box (R36), or ``(net, (lo, hi))`` for a cube."""
    if len(set(lo)) == 1 and len(set(hi)) == 1:
        return net, (lo[0], hi[0])
    c = [(a + b) / 2 for a, b in zip(lo, hi)]
    s = [(b - a) / 2 for a, b in zip(lo, hi)]
    return compose_input_map(net, c, s), (Q(-1), Q(1))


def sandwich_certificate(net: Network, cut: CutDimension, *, seconds: float | None = None) -> dict:
    """A ``functional_dimension_sandwich`` certificate of *cut*'s bounds: a ``functional_dimension``
    certificate at inputs of the domain (the pooled ones, or the cube's run's) for the lower
    bound, the box's for the upper, each left out when it lists no input (checked by
    :mod:`semialgebraic.verify.functional_dimension_sandwich`, once: the parts are built
    unchecked)."""
    from ..certificates import (functional_dimension_sandwich_certificate, one_hidden_layer_dimension_certificate,
                                require_valid)
    from .certificate import box_certificate, functional_dimension_certificate
    if cut.theorem:                    # R38/R39 on the cut: the neurons' evidence, no parts
        fd, evidence, interior = cut.theorem
        return require_valid(one_hidden_layer_dimension_certificate(
            net, cut.box, fd.value, halfspaces=cut.halfspaces, evidence=evidence, interior=interior))
    if cut.inner is None:
        raise ValueError("sandwich_certificate: the domain has no interior")
    part = None if seconds is None else seconds / 2
    lo, hi = [a for a, _ in cut.box], [b for _, b in cut.box]
    if cut.pooled and cut.pooled[0] and (cut.inner.non_generic or cut.pooled[3] >= cut.inner.lower):
        X, _, p, rank = cut.pooled
        inner = _pooled_certificate(net, lo, hi, X, p, rank)
    elif not cut.inner.non_generic:
        inner = box_certificate(net, [a for a, _ in cut.inner_box], [b for _, b in cut.inner_box],
                                cut.inner, seconds=part, verify=False)
    else:
        inner = None
    regions = _cut_cover(net, cut, part) if cut.by_regions else None
    if regions is not None:            # the cut's own regions give the upper bound: no box part
        outer = None
    elif len(set(lo)) == 1 and len(set(hi)) == 1:
        outer = functional_dimension_certificate(net, cut.outer, domain=(lo[0], hi[0]), seconds=part,
                                                 verify=False)
    else:
        outer = box_certificate(net, lo, hi, cut.outer, seconds=part, verify=False)
    # a part that lists no input shows nothing (a budget spent before the first one): left out,
    # the bound it would give is then the trivial one (0, N); the parts are checked once, below
    if inner is not None and inner.get("type") == "functional_dimension" and not inner["inputs"]:
        inner = None
    if outer is not None and outer.get("type") == "functional_dimension" and not outer["inputs"]:
        outer = None
    if inner is None and outer is None and regions is None:
        raise ValueError("sandwich_certificate: no differentiable input in the domain was found")
    return require_valid(functional_dimension_sandwich_certificate(
        net, cut.box, cut.halfspaces, inner, outer,
        None if regions is None else (int(cut.regions[0]), regions)))


def _cut_cover(net, cut: CutDimension, seconds) -> list | None:
    """The linear regions of the cut domain in the ``region_cover`` format (with Farkas
    multipliers), when the walk again completes (at most one region more than the one that gave
    ``cut.regions``: a count, not the clock; *seconds*, when given, only stops it); else None."""
    from algebra.kernel.domains import Domain
    from ..certificates import jsonable
    from ..regions.stacked import joint_regions
    lo, hi = [a for a, _ in cut.box], [b for _, b in cut.box]
    state: dict = {}
    try:
        regs = [r.to_json() for r in joint_regions([net], domain=Domain(lo, hi, cut.halfspaces),
                                                   budget=Budget(seconds, cut.regions[1] + 1),
                                                   state=state, multipliers=True)]
    except BudgetExhausted:
        return None
    return jsonable(regs) if state.get("complete") else None


def _pooled_certificate(net, lo, hi, X, p, rank) -> dict:
    """The ``functional_dimension`` certificate of the pooled inputs' rank, on the box (read on
    the cube unless it is one): lower bound only."""
    from algebra.rationals import q_json
    from ..certificates import dimension_bounds_certificate
    if len(set(lo)) == 1 and len(set(hi)) == 1:
        return dimension_bounds_certificate(net, prime=int(p), inputs=[[q_json(v) for v in x] for x in X],
                                            lower=int(rank), domain={"box": [q_json(lo[0]), q_json(hi[0])]})
    c = [(a + b) / 2 for a, b in zip(lo, hi)]
    s = [(b - a) / 2 for a, b in zip(lo, hi)]
    cert = dimension_bounds_certificate(compose_input_map(net, c, s), prime=int(p),
                                        inputs=[[q_json(v) for v in x] for x in X], lower=int(rank),
                                        domain={"box": [-1, 1]})
    cert["network"] = net.to_dict()
    cert["domain"] = {"box": [-1, 1], "input_map": {"lo": [q_json(Q(v)) for v in lo],
                                                   "hi": [q_json(Q(v)) for v in hi]}}
    return cert
