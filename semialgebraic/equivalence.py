r"""Exact functional equivalence of ReLU networks of any depth, and exact deviation.

``equivalent(a, b)`` decides whether two ReLU networks with the same input and output
dimensions compute the same function on a domain (R^d, the closed orthant or a box), over Q.

Methods (``method=``)
---------------------
``"auto"``
    One hidden layer each (domain R^d or the closed orthant): the shallow canonical form
    (:func:`semialgebraic.shallow.equivalent_shallow`); two hidden layers with n1 <= d each
    (domain R^d): CANON for generic bottleneck networks
    (:func:`semialgebraic.bottleneck.equivalent_bottleneck`, three-layer-fibers R20).  A fast path
    whose hypotheses fail returns answer None and the general method decides.
``"general"``
    Exact for any depths and widths.  Deciding equivalence is coNP-hard in general
    (three-layer-fibers R27), so it is smart before it is exhaustive:

    1. cheap refutation, first and before any simplification: exact evaluation at small
       batches of random rational points with short denominators, then at points just on both
       sides of the first-layer hyperplanes of one network that the other lacks (a difference
       confined to a thin slab); when the reduction below does not collapse D, at points next
       to every first-layer hyperplane;
    2. hidden layers that are affine on the domain (every neuron provably always active or
       dead by exact interval bounds) are contracted into the next layer, in a and in b
       (:func:`contract_affine_layers`): an extra always-active layer, a layer split into
       two, an inserted σ(h) − σ(−h) identity disappear;
    3. the difference network D = a − b (a and b side by side, output W_a − W_b) is reduced
       by exact steps that keep its function: positively parallel neurons are merged, neurons
       without output and provably dead neurons (exact interval bounds over the domain) are
       zeroed (:func:`reduced_difference`); deeper neurons never active at sample points are
       proved dead on the domain by a small walk over the regions of the layers below them
       (an exact Farkas bound per region: ``dead_cover`` steps), then the reduction resumes.
       Planted symmetries (permutations, positive scalings, dead or duplicated neurons,
       cancelling pairs, weights of neurons that never fire) make D collapse to a network
       with no live neuron: one region, no search.
    4. a walk over the linear regions of the reduced D (:func:`semialgebraic.regions.regions`,
       the one region walk of the package, with ``multipliers=True``; :func:`joint_regions`
       puts its regions in certificate form): starting from one region it crosses every facet
       (the pattern across a facet is proved exactly) and checks that the affine map of D is
       zero on each region.  A region where it is not gives an exact counterexample (a point
       of the region where a and b differ).  Facets are decided by exact LP
       (:mod:`semialgebraic.lp`; HiGHS only guesses): an exact point in the facet proves it,
       Farkas multipliers over the facets prove that an inequality is redundant.
    5. When the walk closes, the answer is "equivalent" with a ``region_cover`` certificate
       (the contractions, the reduction steps and the regions; format and the covering argument:
       :mod:`semialgebraic.verify.region_cover`).

    Budgets (``timeout`` seconds, ``max_regions``) and Ctrl-C stop the walk; the verdict is
    then undecided (answer None) with the number of regions checked, never a guess.
``"shallow"`` / ``"bottleneck"``
    Only that fast path (answer None when it does not apply).

Exact simplification (:func:`simplify`) removes neurons that are provably dead on the
reachable set (exact interval bounds over the domain), folds constant neurons into the next
bias, drops neurons with a zero outgoing column and merges positively parallel neurons; the
result computes exactly the same function on the domain.  The general method reports instead
the contractions and reduction steps of its certificate (``details["contractions"]``,
``details["reduction"]``: counts per step kind); the certificate is always about the
networks as given.

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
from functools import partial
from dataclasses import dataclass, field, replace
from typing import Any, Iterator, Sequence

from algebra.exceptions import AlgebraError, InputError
from algebra.matrices import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json, q_str, to_q

from . import lp
from .bottleneck import equivalent_bottleneck
from .budget import Budget, Progress
from .certificates import CERTIFICATE_FORMAT, counterexample_certificate, jsonable
from .exceptions import CertificateError, SemialgebraicError, UndecidedError
from .shallow import equivalent_shallow
from .verdict import Hypothesis, Verdict
from .verify import verify
from .polyhedra import Polyhedron
from .regions import Region, regions
from .verify.region_cover import (contract_layer, difference_network, domain_rows, interval_bounds,
                                  is_proportional)


__all__ = ["METHODS", "equivalent", "is_equivalent", "could_be_equivalent", "refutation_points",
           "simplify", "JointRegion", "joint_regions", "Deviation", "max_deviation",
           "normalize_domain", "preactivation_bounds", "reduced_difference", "contract_affine_layers"]

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
    first-layer hyperplane ``w·x + b = 0`` of each network, points where ``w·x + b`` is exactly
    ±1/10 and ±10^-9: from a random point, move along the coordinate axis j of the largest
    ``|w_j|`` onto the hyperplane, then off it (short denominators: the exact batch evaluation
    stays cheap).

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
        pts += _hyperplane_points(W.to_rows(), b, d, dom, rng)
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
        bounds = interval_bounds(Ws, bs, net.n_inputs, dom)
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
    return interval_bounds([w.to_rows() for w in net.weights], [list(b) for b in net.biases],
                            net.n_inputs, dom)


def reduced_difference(a: Network, b: Network, *, domain: Any = None,
                       dead_cover: int = 0, budget: Budget | None = None) -> tuple[Network, list]:
    """The difference network D = a − b (a and b side by side, output W_a − W_b) after exact
    reduction steps (merge positively parallel neurons, zero neurons without output, zero
    provably dead neurons), and the steps (the ``reduction`` of a ``region_cover``
    certificate, replayed by :func:`semialgebraic.verify.region_cover.apply_reduction`).

    With ``dead_cover > 0``, neurons of the deeper hidden layers that are never active at
    sample points are then proved dead on the domain by a walk over the regions of the
    network below them (at most *dead_cover* regions per layer; an exact Farkas bound of the
    pre-activation per region), and the reduction starts again (``dead_cover`` steps).

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

    zeroed = [{i for i in range(len(W)) if bs[l][i] == 0 and all(v == 0 for v in W[i])}
              for l, W in enumerate(Ws)]

    def kill(l, i):
        Ws[l][i] = [zero] * len(Ws[l][i])
        bs[l][i] = zero
        zeroed[l].add(i)

    tried: set = set()                 # dead_cover attempts that failed (not repeated)
    changed = True
    while changed:
        changed = False
        for l in range(len(Ws) - 1):
            nxt = Ws[l + 1]
            silent = {j for j in range(len(Ws[l])) if all(row[j] == 0 for row in nxt)}
            first: dict = {}          # rows up to a positive factor -> (first neuron, its scale)
            for j in range(len(Ws[l])):
                if j in zeroed[l] or j in silent:
                    continue
                full = Ws[l][j] + [bs[l][j]]
                sc = next((v for v in full if v != 0), None)
                if sc is None:                     # cancelled to zero by earlier merges
                    zeroed[l].add(j)
                    continue
                sc = abs(sc)
                key = tuple((int(u.p), int(u.q)) for u in (v / sc for v in full))
                if key not in first:
                    first[key] = (j, sc)
                    continue
                i, si = first[key]
                mu = sc / si                                  # row_j = mu * row_i, mu > 0
                for row in nxt:
                    row[i] += mu * row[j]
                    row[j] = zero
                silent.add(j)
                steps.append({"step": "merge", "layer": l, "keep": i, "drop": j, "factor": mu})
                changed = True
            for i in sorted(silent - zeroed[l]):
                steps.append({"step": "zero", "layer": l, "neuron": i})
                kill(l, i)
                changed = True
            bounds = interval_bounds(Ws[:l + 1], bs[:l + 1], a.n_inputs, dom)   # layers <= l
            for i in range(len(Ws[l])):
                if i in zeroed[l]:
                    continue
                if bounds[l][i][1] is not None and bounds[l][i][1] <= 0:
                    steps.append({"step": "dead", "layer": l, "neuron": i})
                    for row in nxt:
                        row[i] = zero
                    kill(l, i)          # (the bounds of layer l's other neurons do not change)
                    changed = True
        if not changed and dead_cover:
            for l in range(1, len(Ws) - 1):
                st = _dead_cover(Ws, bs, l, zeroed[l], a.n_inputs, dom, dead_cover, budget, tried)
                if st is not None:
                    steps.append(st)
                    for i in st["neurons"]:
                        for row in Ws[l + 1]:
                            row[i] = zero
                        kill(l, i)
                    changed = True
                    break
    return _rebuild_exact(Ws, bs, a.n_inputs), jsonable(steps)


def contract_affine_layers(net: Network, *, domain: Any = None) -> tuple[Network, list[int]]:
    """Remove every hidden layer that is affine on the domain: each of its neurons is provably
    always active (exact interval lower bound >= 0: σ(z) = z) or dead (upper bound <= 0), so
    the layer is composed into the next one (same function on the domain).  Repeated until no
    layer qualifies (a contraction can tighten the bounds of later layers).

    Returns the contracted network and the contracted layer indices in order (each relative
    to the network after the earlier contractions; the ``contract`` steps of a
    ``region_cover`` certificate, checked by
    :func:`semialgebraic.verify.region_cover.apply_contractions`).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1], [-1, 0]], [[2, 5]]], [[0, 0], [1, 0], [0]])
    >>> c, layers = contract_affine_layers(net)    # layer 2: relu(|x| + 1) active, relu(-relu(x)) dead
    >>> layers, c.widths, [c([v])[0] == net([v])[0] for v in (-3, 0, "5/2")]
    ([1], (1, 2, 1), [True, True, True])
    """
    dom = normalize_domain(domain, net.n_inputs)
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(v) for v in net.biases]
    done: list[int] = []
    while len(Ws) > 1:
        bounds = interval_bounds(Ws, bs, net.n_inputs, dom)
        for l in range(len(Ws) - 1):
            if all((lo is not None and lo >= 0) or (hi is not None and hi <= 0) for lo, hi in bounds[l]):
                Ws, bs = contract_layer(Ws, bs, l, net.n_inputs, dom)
                done.append(l)
                break
        else:
            break
    if not done:
        return net, done
    return _rebuild_exact(Ws, bs, net.n_inputs), done


# ------------------------------------------------------------------------------------------------
# regions of a tuple of networks
# ------------------------------------------------------------------------------------------------
@dataclass
class JointRegion:
    """One linear region of the networks *nets* taken together (the regions of a − b), in the
    form of a ``region_cover`` certificate region; a view of a
    :class:`semialgebraic.regions.Region` of the networks side by side.

    ``pattern``: -1/0/1 per hidden neuron (0: pre-activation identically zero on the region);
    ``point``: exact interior point; ``rows``: unoriented affine pre-activations ``(a, c)`` per
    neuron; ``inequalities``: oriented rows ``(a..., c)`` (> 0 on the region), then the
    domain's; ``facets`` (one inequality per facet hyperplane, a domain row when the hyperplane
    is the domain's), ``neighbours`` (aligned with ``facets``: index of the region across it
    in the walk order, None for a domain facet), ``redundant`` (exact Farkas multipliers
    ``(l0, [l_f for f in facets])`` of every other non-zero inequality; empty when the walk ran
    with ``multipliers=False``), ``witnesses`` (facet → exact point in its relative interior),
    ``region`` (the underlying Region, with its affine map).
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
    region: Region | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {"pattern": list(self.pattern), "point": list(self.point),
                "inequalities": [list(g) for g in self.inequalities],
                "facets": list(self.facets), "neighbours": list(self.neighbours),
                "redundant": {str(k): [l0, list(ls)] for k, (l0, ls) in sorted(self.redundant.items())}}


def joint_regions(nets: Sequence[Network], *, domain: Any = None, budget: Budget | None = None,
                  seed: int = 0, state: dict | None = None,
                  multipliers: bool = True) -> Iterator[JointRegion]:
    """Walk the linear regions of the networks *nets* (same input dimension and depth) on
    *domain*, with :func:`semialgebraic.regions.regions` (the one region walk).

    Several networks are put side by side (one network: first layers stacked, hidden layers
    block diagonal); the pattern then lists the hidden neurons layer by layer.  The walk starts
    at a random point of the domain (*seed*).  Lazy: each region is yielded with its facets,
    neighbours and (*multipliers*) redundancy multipliers.  When *budget* stops the walk or a
    step of the walk cannot be proved exactly, the iterator ends early and
    ``state["complete"]`` is False (with ``state["reason"]``).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> sorted(r.pattern for r in joint_regions([net]))
    [(-1, 1), (1, -1), (1, 1)]
    """
    net = _side_by_side(nets)
    d = net.n_inputs
    dom = normalize_domain(domain, d)
    budget = budget or Budget()
    state = state if state is not None else {}
    state.update(complete=False, reason=None, regions=0)
    drows = domain_rows(d, dom)
    poly = Polyhedron([[-v for v in g[:d]] for g in drows], [g[d] for g in drows], d) if drows else None
    start = _random_point(random.Random(seed), d, dom)
    walk = regions(net, domain=poly, budget=budget, progress=False, start=start,
                   multipliers=multipliers)
    index: dict = {}
    n = net.n_hidden
    try:
        for reg in walk:
            index.setdefault(reg.pattern, len(index))
            for _, q in reg.neighbours:
                if q is not None:
                    index.setdefault(q, len(index))
            state["regions"] += 1
            yield _joint(reg, index, n, d)
    except CertificateError as exc:
        state["reason"] = str(exc)
        return
    if walk.complete:
        state["complete"] = True
    else:
        state["reason"] = budget.reason or "the walk stopped early"


def _joint(reg: Region, index: dict, n: int, d: int) -> JointRegion:
    """The certificate view of a Region: a facet hyperplane shared with the domain is listed by
    its domain row (whose neighbour is null), multipliers rescaled accordingly."""
    ineq = [tuple(a) + (c,) for a, c in reg.inequalities]
    rows = [tuple(s * v for v in g) if s else g for s, g in zip(reg.pattern, ineq)]
    facets, neighbours, witnesses, scale = [], [], {}, []
    for p, (cls, (_, q), y) in enumerate(zip(reg.facet_classes, reg.neighbours, reg.facet_points)):
        f = next((j for j in cls if j >= n), cls[0])
        nu = Q(1)
        if f != cls[0]:                   # ℓ_rep = ν ℓ_f, ν > 0
            nu = next(u / v for u, v in zip(ineq[cls[0]][:d], ineq[f][:d]) if v != 0)
        scale.append(nu)
        facets.append(f)
        neighbours.append(None if q is None else index[q])
        witnesses[f] = y
    redundant = {}
    if reg.redundant is not None:
        listed = set(facets)
        for k, (l0, ls) in reg.redundant.items():
            if k not in listed:
                redundant[k] = (l0, [v * s for v, s in zip(ls, scale)])
        for p, (cls, f) in enumerate(zip(reg.facet_classes, facets)):
            if f != cls[0]:
                redundant[cls[0]] = (Q(0), [scale[p] if t == p else Q(0) for t in range(len(facets))])
    return JointRegion(index[reg.pattern], reg.pattern, reg.point, rows, ineq, facets, neighbours,
                       redundant, witnesses, reg)


def _side_by_side(nets: Sequence[Network]) -> Network:
    """One network whose hidden neurons are those of *nets* (same depth), layer by layer."""
    if len(nets) == 1:
        return nets[0]
    if len({net.depth for net in nets}) != 1 or len({net.n_inputs for net in nets}) != 1:
        raise InputError("joint_regions: the networks must have the same depth and inputs")
    ws, bs = [], []
    for l in range(nets[0].depth):
        layers = [net.layer(l) for net in nets]
        if l == 0:
            ws.append(QMatrix.vstack([W for W, _ in layers]))
        else:
            cols = [W.ncols for W, _ in layers]
            ws.append(QMatrix.vstack([QMatrix.hstack([QMatrix.zeros(W.nrows, cols[j]) if j != i else W
                                                      for j in range(len(layers))])
                                      for i, (W, _) in enumerate(layers)]))
        bs.append([v for _, b in layers for v in b])
    return Network(ws, bs)


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
        return {"max_deviation": q_json(self.value), "point": [q_json(v) for v in self.point],
                "output": self.output, "complete": self.complete, "regions": self.regions,
                "reason": self.reason}


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
    p = tuple([dom[0]] * d)                # the corner x = lo: an exact lower bound already
    diffs = [abs(u - v) for u, v in zip(a(p), b(p))]
    o = max(range(len(diffs)), key=lambda i: diffs[i])
    best = (diffs[o], p, o)
    state: dict = {}
    bar = Progress("regions", enabled=progress)
    a2, _ = contract_affine_layers(a, domain=dom)      # same functions on the box
    b2, _ = contract_affine_layers(b, domain=dom)
    D, _ = reduced_difference(a2, b2, domain=dom)
    walk = joint_regions((D,), domain=dom, budget=budget, state=state, multipliers=False)
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
        J, c = reg.region.jacobian, reg.region.offset
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
    witness = None if dom is None else jsonable(_dom_json(dom))
    if method in ("auto", "shallow"):
        hyps.append(Hypothesis("one hidden layer each", shallow_ok, [a.depth - 1, b.depth - 1]))
        hyps.append(Hypothesis("domain is R^d or the closed orthant (shallow canonical form)",
                               dom is None or dom == "orthant", witness))
        if shallow_ok and (dom is None or dom == "orthant"):
            v = _run_fast(partial(equivalent_shallow, orthant=dom == "orthant"), a, b, "shallow", hyps)
            if v is not None:
                return v
    if method in ("auto", "bottleneck"):
        hyps.append(Hypothesis("domain is R^d (bottleneck fast path)", dom is None, witness))
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
    domj = _dom_json(dom)
    details: dict = {"regions_checked": 0}
    x = None
    if samples > 0:                    # first, before any simplification: refuted pairs are cheap
        x = _refute_random(a, b, dom, samples, 0, suspects=True)
    if x is not None:
        cert = counterexample_certificate(a, b, x, domain=domj)
        return _checked(Verdict(False, "general", "the networks differ at an exact point (cheap "
                                "refutation)", hyps, cert, {**details, "point": list(x)}), json_ready=True)
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        cert = {"format": CERTIFICATE_FORMAT, "type": "region_cover",
                "claim": "a(x) == b(x) for all x in the domain", "a": a.to_dict(), "b": b.to_dict(),
                "domain": domj, "regions": []}
        return _checked(Verdict(True, "general", "the box is one point and a, b agree there", hyps,
                                cert, details))
    a2, con_a = contract_affine_layers(a, domain=dom)
    b2, con_b = contract_affine_layers(b, domain=dom)
    contract = [{"net": "a", "layer": l} for l in con_a] + [{"net": "b", "layer": l} for l in con_b]
    D, steps = reduced_difference(a2, b2, domain=dom, dead_cover=_DEAD_COVER_REGIONS, budget=budget)
    details["contractions"] = len(contract)
    details["reduction_steps"] = len(steps)
    details["reduction"] = {k: sum(1 for st in steps if st["step"] == k)
                            for k in ("merge", "zero", "dead", "dead_cover")}
    details["live_neurons"] = sum(1 for w, b_ in zip(D.weights[:-1], D.biases[:-1])
                                  for i in range(w.nrows) if b_[i] != 0 or any(v != 0 for v in w.row_at(i)))
    x = _refute_hyperplanes(a, b, dom, 0) if samples > 0 and details["live_neurons"] else None
    if x is not None:                  # D did not collapse: points next to all hyperplanes
        cert = counterexample_certificate(a, b, x, domain=domj)
        return _checked(Verdict(False, "general", "the networks differ at an exact point (cheap "
                                "refutation next to a first-layer hyperplane)", hyps, cert,
                                {**details, "point": list(x)}), json_ready=True)
    state: dict = {}
    regs: list[JointRegion] = []
    bar = Progress("regions of a - b", enabled=progress)
    counter = None
    try:
        for reg in joint_regions((D,), domain=dom, budget=budget, state=state, multipliers=True):
            regs.append(reg)
            bar.update(1)
            J, c = reg.region.jacobian, reg.region.offset
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
                                {**details, "point": list(counter)}), json_ready=True)
    if not state.get("complete"):
        return Verdict(None, "general", f"undecided: {state.get('reason')}; {len(regs)} regions "
                       "checked, no counterexample found", hyps, None,
                       {**details, "complete": False})
    cert = {"format": CERTIFICATE_FORMAT, "type": "region_cover",
            "claim": "a(x) == b(x) for all x in the domain", "a": a.to_dict(), "b": b.to_dict(),
            "domain": jsonable(domj), "contract": contract, "reduction": steps,
            "regions": jsonable([r.to_json() for r in regs])}      # (the rest is JSON already)
    how = f"{len(contract)} layer contractions, " if contract else ""
    return _checked(Verdict(True, "general", f"a - b is zero on all {len(regs)} linear regions "
                            f"of the reduced difference network ({how}{len(steps)} exact reduction "
                            "steps), which cover the domain", hyps, cert, details), json_ready=True)


def _checked(v: Verdict, json_ready: bool = False) -> Verdict:
    """Verify the verdict's certificate with the independent checker (raises on failure)."""
    cert = v.certificate if json_ready else jsonable(v.certificate)
    ok, why = verify(cert)
    if not ok:
        raise CertificateError(cert["type"], why)
    return replace(v, certificate=cert)


def _refute(a, b, dom, samples, seed):
    """A point of the domain where a and b differ (exact evaluation), or None.

    Cheapest first: small batches of random points with short denominators (a perturbed pair
    differs on a large set; one common short denominator keeps the exact batch products
    small), then the points of :func:`refutation_points` next to every first-layer hyperplane
    (for differences confined to a thin slab) in one batch."""
    x = _refute_random(a, b, dom, samples, seed)
    return x if x is not None else _refute_targeted(a, b, dom, seed)


def _refute_random(a, b, dom, samples, seed, suspects=False):
    """Small batches of random points with short denominators (with *suspects*: the points
    of :func:`_refute_suspects` between the first and the second batch)."""
    rng = random.Random(seed + 7919)
    d = a.n_inputs
    for k, size in enumerate(_FIRST_POINTS):
        pts = [_random_point(rng, d, dom, small=True) for _ in range(min(size, samples))]
        x = _first_difference(a, b, pts)
        if x is None and suspects and k == 0:
            x = _refute_suspects(a, b, dom, seed)
        if x is not None:
            return x
    return None


def _refute_targeted(a, b, dom, seed):
    """Points next to first-layer hyperplanes: first those of one network without a
    positively parallel one in the other, then all."""
    x = _refute_suspects(a, b, dom, seed)
    return x if x is not None else _refute_hyperplanes(a, b, dom, seed)


def _refute_suspects(a, b, dom, seed):
    """Points next to the first-layer hyperplanes of one network without a positively parallel
    one in the other: the suspects of a difference confined to a thin slab."""
    rng = random.Random(seed + 104729)
    keys = [{_ray_key(r, c) for r, c in zip(net.weights[0].to_rows(), net.biases[0])} for net in (a, b)]
    suspects = [(r, c) for k, net in enumerate((a, b))
                for r, c in zip(net.weights[0].to_rows(), net.biases[0]) if _ray_key(r, c) not in keys[1 - k]]
    if not suspects:
        return None
    pts = [p for p in _hyperplane_points([r for r, _ in suspects], [c for _, c in suspects],
                                         a.n_inputs, dom, rng) if _in_domain(p, dom)]
    return _first_difference(a, b, pts)


def _refute_hyperplanes(a, b, dom, seed):
    """Points next to every first-layer hyperplane of both networks."""
    return _first_difference(a, b, refutation_points([a, b], dom, samples=0, seed=seed))


def _hyperplane_points(rows, bias, d, dom, rng) -> list:
    """Four points per hyperplane ``w·x + b = 0`` (see :func:`refutation_points`)."""
    pts = []
    for w, c in zip(rows, bias):
        j = max(range(d), key=lambda t: abs(w[t]))
        if w[j] == 0:
            continue
        x = list(_random_point(rng, d, dom, small=True))
        val = sum((wi * xi for wi, xi in zip(w, x)), Q(0)) + c
        x[j] -= val / w[j]                                # now w·x + c = 0
        for eps in (Q(1, 10), Q(1, 10**9)):
            for s in (1, -1):
                y = list(x)
                y[j] += s * eps / w[j]
                pts.append(tuple(y))
    return pts


def _ray_key(row, c):
    """The row (w, c) up to a positive factor, hashable (None for a zero row)."""
    full = list(row) + [c]
    sc = next((abs(v) for v in full if v != 0), None)
    return None if sc is None else tuple((int(u.p), int(u.q)) for u in (v / sc for v in full))


def _first_difference(a, b, pts):
    if not pts:
        return None
    X = QMatrix.from_rows(pts, ncols=a.n_inputs)
    A, B = a.evaluate_batch(X), b.evaluate_batch(X)
    for i in range(len(pts)):
        if A.row_at(i) != B.row_at(i):
            return pts[i]
    return None


_DEAD_COVER_REGIONS = 256   # at most this many regions per dead_cover attempt
_FIRST_POINTS = (4, 32)    # sizes of the cheap batches of short-denominator points


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


def _dead_cover(Ws, bs, l, zeroed, d, dom, cap, budget, tried) -> dict | None:
    """A ``dead_cover`` step for the live neurons of hidden layer *l* that are never active at
    sample points and provably dead on the domain, or None.

    The prefix network (hidden layers < l, outputs = the candidates' pre-activations) is
    walked (at most *cap* regions); on each region an exact LP either finds a point of the
    closed region where a candidate is positive (it is alive: dropped) or Motzkin multipliers
    that give ``-p = μ_0 + Σ_f μ_f g_f`` with μ >= 0."""
    live = [i for i in range(len(Ws[l])) if i not in zeroed]
    if not live or (budget is not None and budget.exhausted()):
        return None

    def prefix(neurons):
        return Network([QMatrix.from_rows(W, ncols=(len(Ws[t - 1]) if t else d)) for t, W in enumerate(Ws[:l])]
                       + [QMatrix.from_rows([Ws[l][i] for i in neurons], ncols=len(Ws[l - 1]))],
                       bs[:l] + [[bs[l][i] for i in neurons]])

    rng = random.Random(l)
    X = QMatrix.from_rows([_random_point(rng, d, dom, small=True) for _ in range(64)], ncols=d)
    Z = prefix(live).evaluate_batch(X)
    cands = [i for k, i in enumerate(live) if all(v <= 0 for v in Z.col_at(k))]
    if not cands:
        return None
    P = prefix(cands)
    key = (l, tuple(cands), tuple(map(tuple, P.weights[-1].to_rows())), tuple(P.biases[-1]),
           tuple(tuple(map(tuple, w.to_rows())) for w in P.weights[:-1]))
    if key in tried:
        return None
    tried.add(key)
    state: dict = {}
    regs, bounds = [], []
    alive: set = set()
    local = Budget(timeout=None if budget is None else budget.remaining(),
                   max_regions=cap if budget is None or budget.max_regions is None else min(cap, budget.max_regions))
    for reg in joint_regions((P,), domain=dom, budget=local, state=state, multipliers=True):
        J, c = reg.region.jacobian, reg.region.offset
        F = [reg.inequalities[f] for f in reg.facets]
        bnd = {}
        for k, i in enumerate(cands):
            if i in alive:
                continue
            mu = _nonpositive_on_closure(J.row_at(k), c[k], F, d)
            if mu is None:
                alive.add(i)
            else:
                bnd[i] = mu
        if len(alive) == len(cands):
            return None
        regs.append(reg)
        bounds.append(bnd)
    if not state.get("complete"):
        if local.interrupted and budget is not None:
            budget.interrupt()                  # Ctrl-C: the main walk stops at once
        return None
    dead = [i for i in cands if i not in alive]
    regions = []
    for reg, bnd in zip(regs, bounds):
        js = reg.to_json()
        js["bounds"] = {str(i): [bnd[i][0], list(bnd[i][1])] for i in dead}
        regions.append(js)
    return {"step": "dead_cover", "layer": l, "neurons": dead, "regions": regions}


def _nonpositive_on_closure(Jk, ck, F, d):
    """``(μ_0, μ)`` >= 0 with ``-(Jk·x + ck) = μ_0 + Σ_f μ_f g_f(x)`` (g_f the rows *F*), or None
    when ``Jk·x + ck > 0`` somewhere on the closed region {g_f >= 0}."""
    zero = Q(0)
    if all(v == 0 for v in Jk):
        return (-ck, tuple(zero for _ in F)) if ck <= 0 else None
    res = lp.feasible(A_le=[[-v for v in g[:d]] for g in F] or None, b_le=[g[d] for g in F] or None,
                      A_lt=[[-v for v in Jk]], b_lt=[ck], n=d)
    if res.feasible:
        return None
    y_le, y_lt = res.certificate["y_le"], res.certificate["y_lt"]
    if not y_lt or y_lt[0] <= 0:
        return None
    mu = tuple(v / y_lt[0] for v in y_le) if F else ()
    mu0 = -(ck + sum((m * g[d] for m, g in zip(mu, F)), zero))
    return (mu0, mu) if mu0 >= 0 and all(m >= 0 for m in mu) else None


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


def _rebuild_exact(Ws, bs, d) -> Network:
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


def _random_point(rng, d, dom, small=False):
    """A random rational point of the domain (*small*: short denominators, cheap to evaluate)."""
    if isinstance(dom, tuple):
        lo, hi = dom
        if small:
            return tuple(lo + (hi - lo) * Q(rng.randint(1, 63), 64) for _ in range(d))
        return tuple(lo + (hi - lo) * Q(rng.randint(1, 999), 1000) for _ in range(d))
    lo = 0 if dom == "orthant" else -2000
    if small:
        return tuple(Q(rng.randint(lo // 8, 250) * 2 + 1, 16) for _ in range(d))
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
