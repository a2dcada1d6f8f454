r"""Exact functional equivalence of ReLU networks of any depth, and exact deviation.

``equivalent(a, b)`` decides whether two ReLU networks with the same input and output
dimensions compute the same function on a domain (R^d, the closed orthant or a box), over Q.

Methods (``method=``)
---------------------
``"auto"``
    One hidden layer each (domain R^d): the shallow canonical form
    (:func:`semialgebraic.shallow.equivalent_shallow`); two hidden layers with n1 <= d each
    (domain R^d): CANON for generic bottleneck networks
    (:func:`semialgebraic.bottleneck.equivalent_bottleneck`, three-layer-fibers R20).  A fast path
    whose hypotheses fail returns answer None and the general method decides.
``"general"``
    Exact for any depths and widths.  Deciding equivalence is coNP-hard in general
    (three-layer-fibers R27), so it is smart before it is exhaustive:

    1. cheap refutation: exact evaluation at rational points (random ones, and points just
       on both sides of every first-layer hyperplane of either network);
    2. the difference network D = a − b (a and b side by side, output W_a − W_b) is reduced
       by exact steps that keep its function: positively parallel neurons are merged, neurons
       without output and provably dead neurons (exact interval bounds over the domain) are
       zeroed (:func:`reduced_difference`).  Planted symmetries (permutations, positive
       scalings, dead or duplicated neurons, cancelling pairs) make D collapse to a network
       with no live neuron: one region, no search.
    3. a walk over the linear regions of the reduced D: starting from one region it crosses
       every facet (the pattern across a facet is computed exactly,
       :func:`semialgebraic.verify.region_cover.neighbour_pattern`) and checks that the affine
       map of D is zero on each region.  A region where it is not gives an exact
       counterexample (a point of the region where a and b differ).  Facets are decided by
       exact LP (:mod:`semialgebraic.lp`; HiGHS only guesses): an exact point beyond the facet
       proves it, Farkas multipliers over the facets prove that an inequality is redundant.
    4. When the walk closes, the answer is "equivalent" with a ``region_cover`` certificate
       (the reduction steps and the regions; format and the covering argument:
       :mod:`semialgebraic.verify.region_cover`).

    Budgets (``timeout`` seconds, ``max_regions``) and Ctrl-C stop the walk; the verdict is
    then undecided (answer None) with the number of regions checked, never a guess.
``"shallow"`` / ``"bottleneck"``
    Only that fast path (answer None when it does not apply).

Exact simplification (:func:`simplify`) removes neurons that are provably dead on the
reachable set (exact interval bounds over the domain), folds constant neurons into the next
bias, drops neurons with a zero outgoing column and merges positively parallel neurons; the
result computes exactly the same function on the domain.  Its report is part of the verdict's
details; the certificate is always about the networks as given.

>>> from algebra.network import Network
>>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])          # |x|
>>> b = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])  # permuted, rescaled
>>> v = equivalent(a, b, method="general")
>>> v.answer, v.method, len(v.certificate["reduction"]), len(v.certificate["regions"])
(True, 'general', 6, 1)
>>> c = Network.from_rows([[[1], [-1]], [[1, 2]]], [[0, 0], [0]])
>>> w = equivalent(a, c, method="general")
>>> w.answer, w.certificate["type"]
(False, 'counterexample')
"""

from __future__ import annotations

import random
from collections import deque
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Sequence

from algebra.exceptions import AlgebraError, InputError
from algebra.matrices import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_str, to_q

from . import lp
from .bottleneck import equivalent_bottleneck
from .budget import Budget, Progress
from .certificates import CERTIFICATE_FORMAT, counterexample_certificate, jsonable
from .exceptions import CertificateError, SemialgebraicError, UndecidedError
from .shallow import equivalent_shallow
from .verdict import Hypothesis, Verdict
from .verify import verify
from .verify.region_cover import (apply_reduction, difference_network, domain_rows, interval_bounds,
                                  is_proportional, neighbour_pattern, neuron_rows)


__all__ = ["METHODS", "equivalent", "is_equivalent", "could_be_equivalent", "refutation_points",
           "simplify", "JointRegion", "joint_regions", "Deviation", "max_deviation",
           "normalize_domain", "preactivation_bounds", "reduced_difference"]

METHODS = ("auto", "general", "shallow", "bottleneck")


def equivalent(a: Network, b: Network, *, method: str = "auto", domain: Any = None,
               timeout: float | None = None, max_regions: int | None = None,
               budget: Budget | None = None, progress: bool | None = None,
               refutation_samples: int = 32) -> Verdict:
    """Decide whether *a* and *b* compute the same function on *domain*, exactly.

    Parameters
    ----------
    a, b : Network
        ReLU networks with the same input and output dimensions.
    method : {"auto", "general", "shallow", "bottleneck"}
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]} or {"orthant": True}
        R^d (default), the closed orthant, or the box [lo, hi]^d.
    timeout, max_regions : optional budgets of the general method (or pass *budget*).
    progress : bool, optional
        Progress line on stderr (default: when stderr is a terminal).
    refutation_samples : int
        Random points of the cheap refutation (0 skips the cheap refutation entirely; the
        region walk alone then decides).

    Returns
    -------
    Verdict
        ``answer`` True (certificate ``region_cover`` or the fast path's), False (certificate
        ``counterexample``) or None (budget, interrupt, or a fast path that does not apply with
        ``method="shallow"/"bottleneck"``); ``details["regions_checked"]``.

    Raises
    ------
    InputError
        If the signatures differ, the method or the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> equivalent(a, a, method="general", domain=(0, 1)).answer
    True
    """
    if method not in METHODS:
        raise InputError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures (inputs, outputs) {a.signature} "
                         f"and {b.signature}")
    dom = normalize_domain(domain, a.n_inputs)
    budget = budget or Budget(timeout, max_regions)
    return _decide(a, b, dom, method, budget, progress, refutation_samples)


def is_equivalent(a: Network, b: Network, **kw) -> bool:
    """``equivalent(a, b, **kw).answer``; raises :class:`UndecidedError` when undecided.

    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> is_equivalent(a, a.with_parameter("b2[0]", 1))
    False
    """
    v = equivalent(a, b, **kw)
    if v.answer is None:
        raise UndecidedError(v.reason)
    return v.answer


def could_be_equivalent(a: Network, b: Network, *, domain: Any = None, samples: int = 32,
                        seed: int = 0) -> bool:
    """False if *a* and *b* provably differ (exact evaluation at rational points); True is
    inconclusive.

    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> could_be_equivalent(a, a), could_be_equivalent(a, a.with_parameter("W2[0,0]", 2))
    (True, False)
    """
    if a.signature != b.signature:
        return False
    dom = normalize_domain(domain, a.n_inputs)
    return _refute(a, b, dom, samples, seed) is None


def refutation_points(nets: Sequence[Network], domain: Any = None, *, samples: int = 32,
                      seed: int = 0) -> list[tuple[Q, ...]]:
    """Rational points for cheap refutation: random points of the domain, and for each
    first-layer hyperplane of each network points on both sides of it (at distances 1/10 and
    10^-9 along its normal) near the foot of a random point.

    >>> from algebra.network import Network
    >>> len(refutation_points([Network.from_rows([[[1]], [[1]]], [[0], [0]])], samples=4))
    8
    """
    d = nets[0].n_inputs
    dom = normalize_domain(domain, d)
    rng = random.Random(seed)
    pts = [_random_point(rng, d, dom) for _ in range(samples)]
    for net in nets:
        W, b = net.layer(0)
        for i in range(W.nrows):
            w = W.row_at(i)
            ww = sum((v * v for v in w), Q(0))
            if ww == 0:
                continue
            x = _random_point(rng, d, dom)
            t = (sum((wi * xi for wi, xi in zip(w, x)), Q(0)) + b[i]) / ww
            foot = [xi - t * wi for xi, wi in zip(x, w)]
            for eps in (Q(1, 10), Q(1, 10**9)):
                for s in (1, -1):
                    pts.append(tuple(fi + s * eps * wi / ww for fi, wi in zip(foot, w)))
    return [p for p in pts if _in_domain(p, dom)]


def normalize_domain(domain: Any, d: int):
    """None (R^d), ``"orthant"`` or ``(lo, hi)`` with lo <= hi (exact)."""
    if domain is None or domain == "whole":
        return None
    if domain == "orthant" or (isinstance(domain, dict) and domain.get("orthant") is True):
        return "orthant"
    if isinstance(domain, dict) and "box" in domain:
        domain = domain["box"]
    if isinstance(domain, (tuple, list)) and len(domain) == 2:
        lo, hi = to_q(domain[0]), to_q(domain[1])
        if lo > hi:
            raise InputError(f"box lower bound {q_str(lo)} exceeds upper bound {q_str(hi)}")
        return (lo, hi)
    raise InputError(f"unknown domain {domain!r}: use None, 'orthant' or (lo, hi)")


def simplify(net: Network, *, domain: Any = None) -> tuple[Network, dict]:
    """An exactly equivalent (on *domain*) network without provably dead, constant,
    output-less or parallel hidden neurons, and a report of what was removed.

    Dead: the exact interval of the pre-activation over the domain (intervals propagated layer
    by layer, sound) is <= 0.  Parallel: rows (w, b) that are positive multiples of each other
    (merged, outgoing columns added with the factor).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [2], [0]], [[1, 1, 5]]], [[1, 2, -1], [0]])
    >>> s, report = simplify(net)
    >>> s.widths, report["merged"], report["dead"]
    ((1, 1, 1), 1, 1)
    """
    dom = normalize_domain(domain, net.n_inputs)
    Ws = [[list(r) for r in w.to_rows()] for w in net.weights]
    bs = [list(b) for b in net.biases]
    report = {"dead": 0, "constant": 0, "no_output": 0, "merged": 0}
    changed = True
    while changed:
        changed = False
        bounds = _interval_bounds(Ws, bs, net.n_inputs, dom)
        for l in range(len(Ws) - 1):
            drop = []
            for i in range(len(Ws[l])):
                lo, hi = bounds[l][i]
                row = Ws[l][i]
                if hi is not None and hi <= 0:
                    report["dead"] += 1
                    drop.append(i)
                elif all(v == 0 for v in row):
                    c = bs[l][i]
                    for r in range(len(Ws[l + 1])):
                        bs[l + 1][r] += Ws[l + 1][r][i] * c
                    report["constant"] += 1
                    drop.append(i)
                elif all(Ws[l + 1][r][i] == 0 for r in range(len(Ws[l + 1]))):
                    report["no_output"] += 1
                    drop.append(i)
            if not drop:
                seen: list[int] = []
                for i in range(len(Ws[l])):
                    full_i = Ws[l][i] + [bs[l][i]]
                    for j in seen:
                        mu = _positive_multiple(full_i, Ws[l][j] + [bs[l][j]])
                        if mu is not None:
                            for r in range(len(Ws[l + 1])):
                                Ws[l + 1][r][j] += mu * Ws[l + 1][r][i]
                            report["merged"] += 1
                            drop.append(i)
                            break
                    else:
                        seen.append(i)
            if drop:
                keep = [i for i in range(len(Ws[l])) if i not in set(drop)]
                Ws[l] = [Ws[l][i] for i in keep]
                bs[l] = [bs[l][i] for i in keep]
                Ws[l + 1] = [[row[i] for i in keep] for row in Ws[l + 1]]
                changed = True
                break
    return _rebuild(Ws, bs, net.n_inputs), report


def preactivation_bounds(net: Network, *, domain: Any = None) -> list:
    """Sound exact bounds ``(lo, hi)`` (None = unbounded) of every pre-activation over the
    domain, layer by layer (exact interval arithmetic; ReLU outputs in ``[max(lo,0), max(hi,0)]``).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> [[(str(lo), str(hi)) for lo, hi in layer] for layer in preactivation_bounds(net, domain=(0, 1))]
    [[('0', '1'), ('0', '1')], [('0', '2')]]
    """
    dom = normalize_domain(domain, net.n_inputs)
    return _interval_bounds([w.to_rows() for w in net.weights], [list(b) for b in net.biases],
                            net.n_inputs, dom)


def reduced_difference(a: Network, b: Network, *, domain: Any = None) -> tuple[Network, list]:
    """The difference network D = a − b (a and b side by side, output W_a − W_b) after exact
    reduction steps (merge positively parallel neurons, zero neurons without output, zero
    provably dead neurons), and the steps (the ``reduction`` of a ``region_cover``
    certificate, replayed by :func:`semialgebraic.verify.region_cover.apply_reduction`).

    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
    >>> b = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])
    >>> D, steps = reduced_difference(a, b)
    >>> [st["step"] for st in steps], D.weights[0].is_zero()
    (['merge', 'merge', 'zero', 'zero', 'zero', 'zero'], True)
    """
    dom = normalize_domain(domain, a.n_inputs)
    D0 = difference_network(a, b)
    Ws = [w.to_rows() for w in D0.weights]
    bs = [list(v) for v in D0.biases]
    steps: list[dict] = []
    zero = Q(0)

    def is_zero_row(l, i):
        return bs[l][i] == 0 and all(v == 0 for v in Ws[l][i])

    def kill(l, i):
        Ws[l][i] = [zero] * len(Ws[l][i])
        bs[l][i] = zero

    changed = True
    while changed:
        changed = False
        for l in range(len(Ws) - 1):
            live = [i for i in range(len(Ws[l])) if not is_zero_row(l, i)]
            for pos, i in enumerate(live):
                if is_zero_row(l, i):
                    continue
                for j in live[pos + 1:]:
                    if is_zero_row(l, j):
                        continue
                    mu = _positive_multiple(Ws[l][j] + [bs[l][j]], Ws[l][i] + [bs[l][i]])
                    if mu is not None:
                        for row in Ws[l + 1]:
                            row[i] += mu * row[j]
                            row[j] = zero
                        steps.append({"step": "merge", "layer": l, "keep": i, "drop": j, "factor": mu})
                        changed = True
            bounds = interval_bounds(Ws, bs, a.n_inputs, dom)
            for i in range(len(Ws[l])):
                if is_zero_row(l, i):
                    continue
                if all(row[i] == 0 for row in Ws[l + 1]):
                    steps.append({"step": "zero", "layer": l, "neuron": i})
                    kill(l, i)
                    changed = True
                elif bounds[l][i][1] is not None and bounds[l][i][1] <= 0:
                    steps.append({"step": "dead", "layer": l, "neuron": i})
                    for row in Ws[l + 1]:
                        row[i] = zero
                    kill(l, i)
                    changed = True
                    bounds = interval_bounds(Ws, bs, a.n_inputs, dom)
    steps = jsonable(steps)
    return apply_reduction(D0, steps, dom), steps


# ------------------------------------------------------------------------------------------------
# regions of a tuple of networks
# ------------------------------------------------------------------------------------------------
@dataclass
class JointRegion:
    """One linear region of the networks *nets* taken together (the regions of a − b).

    ``pattern``: -1/0/1 per hidden neuron of every network (0: pre-activation identically zero
    on the region); ``point``: exact interior point; ``rows``: unoriented affine pre-activations
    ``(a, c)`` per neuron; ``inequalities``: oriented rows (> 0 on the region), then the
    domain's; ``facets``, ``neighbours`` (region index or None), ``redundant`` (Farkas
    multipliers ``(l0, [l_f])`` per other inequality) are filled when the walk moves on.
    """

    index: int
    pattern: tuple[int, ...]
    point: tuple[Q, ...]
    rows: list
    inequalities: list
    facets: list = field(default_factory=list)
    neighbours: list = field(default_factory=list)
    redundant: dict = field(default_factory=dict)
    witnesses: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"pattern": list(self.pattern), "point": list(self.point),
                "inequalities": [list(g) for g in self.inequalities],
                "facets": list(self.facets), "neighbours": list(self.neighbours),
                "redundant": {str(k): [l0, list(ls)] for k, (l0, ls) in sorted(self.redundant.items())}}


def joint_regions(nets: Sequence[Network], *, domain: Any = None, budget: Budget | None = None,
                  seed: int = 0, state: dict | None = None) -> Iterator[JointRegion]:
    """Walk the linear regions of the networks *nets* (same input dimension) on *domain*.

    Lazy: each region is yielded as soon as its interior point is known; its facets,
    neighbours and redundancy multipliers are filled in before the next one is yielded.  When
    *budget* stops the walk or an interior point across a facet cannot be constructed, the
    iterator ends early and ``state["complete"]`` is False (with ``state["reason"]``).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> sorted(r.pattern for r in joint_regions([net]))
    [(-1, 1), (1, -1), (1, 1)]
    """
    d = nets[0].n_inputs
    dom = normalize_domain(domain, d)
    budget = budget or Budget()
    state = state if state is not None else {}
    state.update(complete=False, reason=None, regions=0)
    drows = domain_rows(d, dom)
    rng = random.Random(seed)
    start = None
    for _ in range(200):
        x = _random_point(rng, d, dom, strict=True)
        found = _region_at(nets, x, drows)
        if found is not None:
            start = found
            break
    if start is None:
        state["reason"] = "no interior starting point found"
        return
    index = {start[0]: 0}
    queue = deque([(0, start)])
    while queue:
        if budget.exhausted():
            state["reason"] = budget.reason
            return
        idx, (pat, x, rows, ineq) = queue.popleft()
        reg = JointRegion(idx, pat, x, rows, ineq)
        budget.count()
        state["regions"] += 1
        yield reg
        try:
            _classify(reg, d)
        except _WalkError as exc:
            state["reason"] = str(exc)
            return
        for f in reg.facets:
            if f >= len(pat):
                reg.neighbours.append(None)
                continue
            across = neighbour_pattern(nets, pat, ineq[f], rows)
            if across not in index:
                found = _cross(nets, reg, f, across, drows)
                if found is None:
                    state["reason"] = f"could not construct a point across facet {f} of region {idx}"
                    return
                index[across] = len(index)
                queue.append((index[across], found))
            reg.neighbours.append(index[across])
    state["complete"] = True


# ------------------------------------------------------------------------------------------------
# exact deviation
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Deviation:
    """Exact ``max_{x in box} max_o |a_o(x) − b_o(x)|`` with a point and output attaining it.

    ``complete`` is False when a budget stopped the walk (then ``value`` is a lower bound).
    """

    value: Q
    point: tuple
    output: int
    complete: bool
    regions: int
    reason: str = ""

    def to_json(self) -> dict:
        return {"max_deviation": self.value, "point": list(self.point), "output": self.output,
                "complete": self.complete, "regions": self.regions, "reason": self.reason}


def max_deviation(a: Network, b: Network, box: Any, *, timeout: float | None = None,
                  max_regions: int | None = None, budget: Budget | None = None,
                  progress: bool | None = None) -> Deviation:
    """Exact maximum over the box ``[lo, hi]^d`` of ``max_o |a_o(x) − b_o(x)|`` and a point.

    One exact LP per region of a − b and output (maximise ± the difference on the closed region;
    the optimum is a rational vertex, proven optimal by its dual certificate).

    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    >>> dev = max_deviation(a, b, (-1, 2))
    >>> dev.value, dev.point, dev.complete
    (1, (2,), True)
    """
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures {a.signature} and {b.signature}")
    dom = normalize_domain(box, a.n_inputs)
    if not isinstance(dom, tuple):
        raise InputError("max_deviation needs a box (lo, hi)")
    budget = budget or Budget(timeout, max_regions)
    d = a.n_inputs
    if dom[0] == dom[1]:
        p = tuple([dom[0]] * d)
        diffs = [abs(u - v) for u, v in zip(a(p), b(p))]
        o = max(range(len(diffs)), key=lambda i: diffs[i])
        return Deviation(diffs[o], p, o, True, 0, "the box is one point")
    best = (Q(-1), None, 0)
    state: dict = {}
    bar = Progress("regions", enabled=progress)
    D, _ = reduced_difference(a, b, domain=dom)
    walk = joint_regions((D,), domain=dom, budget=budget, state=state)
    regs = []
    try:
        for reg in walk:
            regs.append(reg)
            bar.update(1)
    except KeyboardInterrupt:
        budget.interrupt()
        state["reason"] = budget.reason
    finally:
        bar.close()
    for reg in regs:
        if not reg.facets:
            _classify(reg, d)  # the last region is unclassified when the walk stopped early
        J, c = D.affine_map(reg.pattern)
        A_le = [[-v for v in reg.inequalities[f][:d]] for f in reg.facets]
        b_le = [reg.inequalities[f][d] for f in reg.facets]
        for o in range(a.n_outputs):
            row = J.row_at(o)
            for s in (1, -1):
                if all(v == 0 for v in row):
                    val, pt = s * c[o], reg.point
                else:
                    opt = lp.optimize([s * v for v in row], A_le=A_le or None, b_le=b_le or None, n=d)
                    if opt.status != "optimal":
                        raise CertificateError("deviation LP", f"status {opt.status} on a bounded region")
                    val, pt = opt.value + s * c[o], opt.point
                if val > best[0]:
                    best = (val, tuple(pt), o)
    complete = bool(state.get("complete"))
    return Deviation(best[0], best[1], best[2], complete, len(regs),
                     "all regions of a - b in the box" if complete else str(state.get("reason")))


# ------------------------------------------------------------------------------------------------
# private: the decision
# ------------------------------------------------------------------------------------------------
def _decide(a, b, dom, method, budget, progress, samples=32) -> Verdict:
    hyps: list[Hypothesis] = []
    if method in ("auto", "shallow", "bottleneck"):
        fast = _fast_path(a, b, dom, method, hyps)
        if fast is not None:
            return fast
        if method != "auto":
            return Verdict(None, method, f"the {method} method does not apply", tuple(hyps))
    return _general(a, b, dom, budget, progress, tuple(hyps), samples)


def _fast_path(a, b, dom, method, hyps) -> Verdict | None:
    shallow_ok = a.depth == 2 and b.depth == 2
    bott_ok = (a.depth == 3 and b.depth == 3 and a.widths[1] <= a.n_inputs
               and b.widths[1] <= b.n_inputs)
    hyps.append(Hypothesis("domain is R^d (fast paths)", dom is None, None if dom is None else jsonable(_dom_json(dom))))
    if method in ("auto", "shallow"):
        hyps.append(Hypothesis("one hidden layer each", shallow_ok, [a.depth - 1, b.depth - 1]))
        if shallow_ok and dom is None:
            v = _run_fast(equivalent_shallow, a, b, "shallow", hyps)
            if v is not None:
                return v
    if method in ("auto", "bottleneck"):
        hyps.append(Hypothesis("two hidden layers with n1 <= d each", bott_ok,
                               [list(a.widths), list(b.widths)]))
        if bott_ok and dom is None:
            v = _run_fast(equivalent_bottleneck, a, b, "bottleneck", hyps)
            if v is not None:
                return v
    return None


def _run_fast(fn, a, b, name, hyps) -> Verdict | None:
    """Run a fast path; its verdict if it decided (certificate verified), else None."""
    try:
        v = fn(a, b)
    except (SemialgebraicError, AlgebraError) as exc:   # the fast path could not decide
        hyps.append(Hypothesis(f"{name} fast path applies", False, str(exc)))
        return None
    hyps.extend(v.hypotheses)
    if v.answer is None:
        return None
    if v.certificate is not None:
        ok, why = verify(jsonable(v.certificate))
        if not ok:
            raise CertificateError(v.certificate.get("type", name), why)
    return replace(v, hypotheses=tuple(hyps))


def _general(a, b, dom, budget, progress, hyps, samples=32) -> Verdict:
    d = a.n_inputs
    domj = _dom_json(dom)
    _, rep_a = simplify(a, domain=dom)
    _, rep_b = simplify(b, domain=dom)
    details = {"simplification": {"a": rep_a, "b": rep_b}, "regions_checked": 0}
    x = _refute(a, b, dom, samples, 0) if samples > 0 else None
    if x is not None:
        cert = counterexample_certificate(a, b, x, domain=domj)
        return _checked(Verdict(False, "general", "the networks differ at an exact point (cheap "
                                "refutation)", hyps, cert, {**details, "point": list(x)}))
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        cert = {"format": CERTIFICATE_FORMAT, "type": "region_cover",
                "claim": "a(x) == b(x) for all x in the domain", "a": a.to_dict(), "b": b.to_dict(),
                "domain": domj, "regions": []}
        return _checked(Verdict(True, "general", "the box is one point and a, b agree there", hyps,
                                cert, details))
    D, steps = reduced_difference(a, b, domain=dom)
    details["reduction_steps"] = len(steps)
    details["live_neurons"] = sum(1 for w, b_ in zip(D.weights[:-1], D.biases[:-1])
                                  for i in range(w.nrows) if b_[i] != 0 or any(v != 0 for v in w.row_at(i)))
    state: dict = {}
    regs: list[JointRegion] = []
    bar = Progress("regions of a - b", enabled=progress)
    counter = None
    try:
        for reg in joint_regions((D,), domain=dom, budget=budget, state=state):
            regs.append(reg)
            bar.update(1)
            J, c = D.affine_map(reg.pattern)
            if not J.is_zero() or any(v != 0 for v in c):
                counter = _point_where_differ(a, b, D, reg)
                break
    except KeyboardInterrupt:
        budget.interrupt()
        state["reason"] = budget.reason
    finally:
        bar.close()
    details["regions_checked"] = len(regs)
    if counter is not None:
        cert = counterexample_certificate(a, b, counter, domain=domj)
        return _checked(Verdict(False, "general", f"a - b is not zero on linear region "
                                f"{len(regs) - 1} of the walk", hyps, cert,
                                {**details, "point": list(counter)}))
    if not state.get("complete"):
        return Verdict(None, "general", f"undecided: {state.get('reason')}; {len(regs)} regions "
                       "checked, no counterexample found", hyps, None,
                       {**details, "complete": False})
    cert = {"format": CERTIFICATE_FORMAT, "type": "region_cover",
            "claim": "a(x) == b(x) for all x in the domain", "a": a.to_dict(), "b": b.to_dict(),
            "domain": domj, "reduction": steps, "regions": [r.to_json() for r in regs]}
    return _checked(Verdict(True, "general", f"a - b is zero on all {len(regs)} linear regions "
                            f"of the reduced difference network ({len(steps)} exact reduction "
                            "steps), which cover the domain", hyps, jsonable(cert), details))


def _checked(v: Verdict) -> Verdict:
    cert = jsonable(v.certificate)
    ok, why = verify(cert)
    if not ok:
        raise CertificateError(cert["type"], why)
    return replace(v, certificate=cert)


def _refute(a, b, dom, samples, seed):
    pts = refutation_points([a, b], dom, samples=samples, seed=seed)
    if not pts:
        return None
    X = QMatrix.from_rows(pts, ncols=a.n_inputs)
    A, B = a.evaluate_batch(X), b.evaluate_batch(X)
    for i in range(len(pts)):
        if A.row_at(i) != B.row_at(i):
            return pts[i]
    return None


def _point_where_differ(a, b, D, reg):
    """An exact point of the region where a and b differ (D = a - b is not zero there)."""
    x = reg.point
    if a(x) != b(x):
        return x
    J, _ = D.affine_map(reg.pattern)
    o = next(i for i in range(J.nrows) if any(v != 0 for v in J.row_at(i)))
    v = J.row_at(o)
    t = Q(1)
    for _ in range(200):
        y = tuple(xi + t * vi for xi, vi in zip(x, v))
        if all(_val(g, y) > 0 for g in reg.inequalities if any(c != 0 for c in g)) and a(y) != b(y):
            return y
        t /= 2
    raise CertificateError("counterexample", "no point of the region separates a and b")


def _region_at(nets, x, drows):
    """(pattern, point, rows, inequalities) if x is interior to a region, else None."""
    pat = tuple(s for net in nets for s in net.activation_pattern(x))
    return _region_with(nets, pat, x, drows)


def _region_with(nets, pat, x, drows):
    rows, off = [], 0
    for net in nets:
        rows += neuron_rows(net, pat[off:off + net.n_hidden])
        off += net.n_hidden
    ineq = []
    for s, row in zip(pat, rows):
        if s == 0:
            if any(v != 0 for v in row):
                return None
            ineq.append(tuple(Q(0) for _ in row))
        else:
            ineq.append(tuple(s * v for v in row))
    ineq += drows
    if any(_val(g, x) <= 0 for g in ineq if any(v != 0 for v in g)):
        return None
    if tuple(s for net in nets for s in net.activation_pattern(x)) != pat:
        return None
    return pat, tuple(x), rows, ineq


def _classify(reg: JointRegion, d: int) -> None:
    """Facets (each with an exact witness point just beyond it) and Farkas multipliers over the
    facets for every other inequality.  Float LPs (HiGHS) only guess; every claim is verified
    exactly and, when verification fails, :func:`semialgebraic.lp.feasible` decides exactly."""
    ineq, n, x = reg.inequalities, len(reg.pattern), reg.point
    live = [k for k, g in enumerate(ineq) if any(v != 0 for v in g)]
    live = [k for k in live if k >= n] + [k for k in live if k < n]   # domain rows represent first
    reps: list[int] = []
    member: dict[int, tuple[int, Q]] = {}
    for k in live:
        if all(v == 0 for v in ineq[k][:d]):
            member[k] = (-1, Q(0))          # positive constant: l0 = c
            continue
        for r in reps:
            mu = _positive_multiple(ineq[k], ineq[r])
            if mu is not None:
                member[k] = (r, mu)
                break
        else:
            reps.append(k)
    facets, red_rep = [], []
    model = _FloatPolyhedron([ineq[k] for k in reps], d) if reps else None
    for i, k in enumerate(reps):
        others = [ineq[r] for r in reps if r != k]
        w = _projection_witness(x, ineq[k], others, d)
        if w is None:
            status, y, _ = model.minimize(ineq[k][:d], drop=i)
            if status == "unbounded" or (status == "optimal" and model.value(ineq[k], y) < -1e-9):
                w = _blend_witness(x, y, ineq[k], others, d) if y is not None else None
                if w is None:
                    w = _exact_witness(ineq[k], others, d)
        if w is not None:
            facets.append(k)
            reg.witnesses[k] = w
        else:
            red_rep.append(k)
    mult = _multipliers(ineq, facets, red_rep, d)
    if mult is None:                       # a float guess was wrong: decide every candidate exactly
        for k in list(red_rep):
            w = _exact_witness(ineq[k], [ineq[r] for r in reps if r != k], d)
            if w is not None:
                red_rep.remove(k)
                facets.append(k)
                reg.witnesses[k] = w
        mult = _multipliers(ineq, facets, red_rep, d)
        if mult is None:
            raise _WalkError("an inequality is neither a facet nor implied by the facets")
    reg.facets = facets
    zero = [Q(0)] * len(facets)
    for k in live:
        if k in facets or k in mult:
            continue
        r, mu = member[k]
        if r == -1:
            mult[k] = (ineq[k][d], list(zero))
        elif r in mult:
            l0, ls = mult[r]
            mult[k] = (mu * l0, [mu * v for v in ls])
        else:
            ls = list(zero)
            ls[facets.index(r)] = mu
            mult[k] = (Q(0), ls)
    reg.redundant = mult


def _multipliers(ineq, facets, red_rep, d):
    mult: dict[int, tuple[Q, list]] = {}
    F = [ineq[f] for f in facets]
    fmodel = _FloatPolyhedron(F, d) if F else None
    for k in red_rep:
        got = None
        if fmodel is not None:
            status, y, dual = fmodel.minimize(ineq[k][:d])
            if status == "optimal":
                got = _farkas_from_support(ineq[k], F, dual, d)
        if got is None:
            got = _exact_farkas(ineq[k], F, d)
        if got is None:
            return None
        mult[k] = got
    return mult


class _WalkError(Exception):
    """The exact checks of the walk could not confirm a float guess (the walk stops)."""


class _FloatPolyhedron:
    """HiGHS model of ``{x : a_i x + c_i >= 0}`` (rows scaled), for guesses only."""

    def __init__(self, rows, d):
        import numpy as np
        from highspy import _core as hc
        self.np, self.hc, self.d = np, hc, d
        A = np.array([[float(v) for v in g[:d]] for g in rows], dtype=float).reshape(len(rows), d)
        c = np.array([float(g[d]) for g in rows], dtype=float)
        scale = np.abs(A).max(axis=1) if d else np.ones(len(rows))
        scale[scale == 0] = 1.0
        self.A, self.c, self.scale = A / scale[:, None], c / scale, scale
        m = len(rows)
        h = hc._Highs()
        h.setOptionValue("output_flag", False)
        lp_ = hc.HighsLp()
        lp_.num_col_, lp_.num_row_ = d, m
        inf = hc.kHighsInf
        lp_.col_cost_ = np.zeros(d)
        lp_.col_lower_ = np.full(d, -inf)
        lp_.col_upper_ = np.full(d, inf)
        lp_.row_lower_ = -self.c
        lp_.row_upper_ = np.full(m, inf)
        lp_.a_matrix_.format_ = hc.MatrixFormat.kRowwise
        lp_.a_matrix_.start_ = np.arange(0, m * d + 1, d, dtype=np.int32)
        lp_.a_matrix_.index_ = np.tile(np.arange(d, dtype=np.int32), m)
        lp_.a_matrix_.value_ = self.A.ravel()
        h.passModel(lp_)
        self.h = h

    def minimize(self, obj, drop=None):
        np, hc, h = self.np, self.hc, self.h
        o = np.array([float(v) for v in obj])
        o = o / max(np.abs(o).max(), 1e-300)
        h.changeColsCost(self.d, np.arange(self.d, dtype=np.int32), o)
        if drop is not None:
            h.changeRowBounds(drop, -hc.kHighsInf, hc.kHighsInf)
        h.run()
        name = str(h.getModelStatus()).rsplit(".", 1)[-1]
        sol = h.getSolution()
        if drop is not None:
            h.changeRowBounds(drop, -self.c[drop], hc.kHighsInf)
        if name == "kOptimal":
            return "optimal", np.array(sol.col_value), np.array(sol.row_dual)
        if name in ("kUnbounded", "kUnboundedOrInfeasible"):
            return "unbounded", None, None
        return "unknown", None, None

    @staticmethod
    def value(g, y) -> float:
        return sum(float(gi) * yi for gi, yi in zip(g[:-1], y)) + float(g[-1])


def _projection_witness(x, g, others, d):
    """x pushed just beyond the hyperplane g = 0 along its normal, if that proves g a facet."""
    a = g[:d]
    aa = sum((v * v for v in a), Q(0))
    t = _val(g, x) / aa * Q(65, 64)
    y = tuple(xi - t * ai for xi, ai in zip(x, a))
    if all(_val(h, y) > 0 for h in others):
        return y
    return None


def _blend_witness(x, yf, g, others, d):
    """An exact point on the segment from x to the float minimiser yf beyond g = 0."""
    y = tuple(Q(*float(v).as_integer_ratio()) for v in yf)
    gx, gy = _val(g, x), _val(g, y)
    if gy >= 0:
        return None
    s0 = gx / (gx - gy)
    for s in (s0 + (1 - s0) / 2, s0 + (1 - s0) / 64, s0 + (1 - s0) / 4096):
        p = tuple(xi + s * (yi - xi) for xi, yi in zip(x, y))
        if _val(g, p) < 0 and all(_val(h, p) > 0 for h in others):
            return p
    return None


def _exact_witness(g, others, d):
    res = lp.feasible(A_lt=[[-v for v in h[:d]] for h in others] + [list(g[:d])],
                      b_lt=[h[d] for h in others] + [-g[d]], n=d)
    return res.point if res.feasible else None


def _farkas_from_support(g, F, dual, d):
    """Exact (l0, [l_f]) with g = l0 + sum l_f g_f, l >= 0, on the support of a float dual."""
    S = [i for i, v in enumerate(dual) if abs(v) > 1e-9]
    if not S:
        return None if any(v != 0 for v in g[:d]) else (g[d], [Q(0)] * len(F))
    M = QMatrix.from_rows([[F[i][j] for i in S] for j in range(d)], ncols=len(S))
    sol = M.solve_general(g[:d])
    if sol is None:
        return None
    lam = sol[0]
    if any(v < 0 for v in lam):
        return None
    ls = [Q(0)] * len(F)
    for i, v in zip(S, lam):
        ls[i] = v
    l0 = g[d] - sum((l * f[d] for l, f in zip(ls, F)), Q(0))
    return (l0, ls) if l0 >= 0 else None


def _exact_farkas(g, F, d):
    res = lp.feasible(A_lt=[[-v for v in h[:d]] for h in F] + [list(g[:d])],
                      b_lt=[h[d] for h in F] + [-g[d]], n=d)
    if res.feasible:
        return None
    y = res.certificate["y_lt"]
    yk = y[-1]
    if yk <= 0:
        return None
    ls = [v / yk for v in y[:-1]]
    l0 = g[d] - sum((l * f[d] for l, f in zip(ls, F)), Q(0))
    return (l0, ls) if l0 >= 0 else None


def _cross(nets, reg, f, across, drows):
    """An exact interior point of the region *across* facet f: from the interior point towards
    the witness beyond the facet, to the facet, then a small step further."""
    g, x, w = reg.inequalities[f], reg.point, reg.witnesses[f]
    gx, gw = _val(g, x), _val(g, w)
    tau = gx / (gx - gw)
    z = tuple(xi + tau * (wi - xi) for xi, wi in zip(x, w))
    t = Q(1, 2)
    for _ in range(400):
        y = tuple(zi + t * (wi - zi) for zi, wi in zip(z, w))
        found = _region_with(nets, across, y, drows)
        if found is not None:
            return found
        t /= 2
    return None


def _interval_bounds(Ws, bs, d, dom):
    """Sound bounds (None = infinite) of every pre-activation over the domain."""
    if dom is None:
        box = [(None, None)] * d
    elif dom == "orthant":
        box = [(Q(0), None)] * d
    else:
        box = [dom] * d
    out = []
    for l in range(len(Ws)):
        layer = []
        for row, c in zip(Ws[l], bs[l]):
            lo, hi = c, c
            for w, (xl, xh) in zip(row, box):
                if w == 0:
                    continue
                a1, a2 = (xl, xh) if w > 0 else (xh, xl)
                lo = None if lo is None or a1 is None else lo + w * a1
                hi = None if hi is None or a2 is None else hi + w * a2
            layer.append((lo, hi))
        out.append(layer)
        box = [(Q(0) if lo is None or lo < 0 else lo, None if hi is None else max(hi, Q(0)))
               for lo, hi in layer]
    return out


def _rebuild(Ws, bs, d) -> Network:
    if any(len(W) == 0 for W in Ws[:-1]):          # constant network
        widths = [d] + [1] * (len(Ws) - 1)
        x = [Q(0)] * d
        const = _eval_lists(Ws, bs, x)
        weights, biases = [], []
        for l in range(len(Ws) - 1):
            weights.append([[0] * widths[l]])
            biases.append([-1])
        weights.append([[0] for _ in const])
        biases.append(const)
        return Network(weights, biases)
    return Network([QMatrix.from_rows(W, ncols=(len(Ws[l - 1]) if l else d)) for l, W in enumerate(Ws)], bs)


def _eval_lists(Ws, bs, x):
    h = list(x)
    for l, (W, b) in enumerate(zip(Ws, bs)):
        z = [sum((w * v for w, v in zip(row, h)), Q(0)) + c for row, c in zip(W, b)]
        h = z if l == len(Ws) - 1 else [max(v, Q(0)) for v in z]
    return h


def _positive_multiple(u, g):
    """μ > 0 with u = μ g, else None."""
    if all(v == 0 for v in g):
        return None
    mu = is_proportional(u, g)
    return mu if mu is not None and mu > 0 else None


def _val(g, x) -> Q:
    return sum((gi * xi for gi, xi in zip(g, x)), Q(0)) + g[-1]


def _random_point(rng, d, dom, strict=False):
    if isinstance(dom, tuple):
        lo, hi = dom
        return tuple(lo + (hi - lo) * Q(rng.randint(1, 999), 1000) for _ in range(d))
    lo = 0 if dom == "orthant" else -2000
    return tuple(Q(rng.randint(lo, 2000) * 2 + 1, rng.choice((200, 300, 700))) for _ in range(d))


def _in_domain(p, dom) -> bool:
    if dom is None:
        return True
    if dom == "orthant":
        return all(v >= 0 for v in p)
    return all(dom[0] <= v <= dom[1] for v in p)


def _dom_json(dom):
    if dom is None:
        return None
    if dom == "orthant":
        return {"orthant": True}
    return {"box": [dom[0], dom[1]]}
