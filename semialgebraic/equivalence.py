r"""Exact functional equivalence of ReLU networks of any depth.

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
       (:func:`semialgebraic.reduction.contract_affine_layers`): an extra always-active layer, a layer split into
       two, an inserted σ(h) − σ(−h) identity disappear;
    3. the difference network D = a − b (a and b side by side, output W_a − W_b) is reduced
       by exact steps that keep its function: positively parallel neurons are merged, neurons
       without output and provably dead neurons (exact interval bounds over the domain) are
       zeroed (:func:`semialgebraic.reduction.reduced_difference`); deeper neurons never active at sample points are
       proved dead on the domain by a small walk over the regions of the layers below them
       (an exact Farkas bound per region: ``dead_cover`` steps), then the reduction resumes.
       Planted symmetries (permutations, positive scalings, dead or duplicated neurons,
       cancelling pairs, weights of neurons that never fire) make D collapse to a network
       with no live neuron, the constant map x ↦ (its output bias): zero means equivalent
       (``region_cover`` certificate with ``"regions": []``), no walk.
    4. a walk over the linear regions of the reduced D (:func:`semialgebraic.regions.regions`,
       the one region walk of the package, with ``multipliers=True``; :func:`semialgebraic.regions.joint_regions`
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

Exact simplification (:func:`semialgebraic.reduction.simplify`) removes neurons that are provably dead on the
reachable set (exact interval bounds over the domain), folds constant neurons into the next
bias, drops neurons with a zero outgoing column and merges positively parallel neurons; the
result computes exactly the same function on the domain.  The general method reports instead
the contractions and reduction steps of its certificate (``details["contractions"]``,
``details["reduction"]``: counts per step kind); the certificate is always about the
networks as given.

Module layout: the domains are normalised in :mod:`semialgebraic.domains`, the reductions
(contractions, merges, dead and ``dead_cover`` proofs) are in :mod:`semialgebraic.reduction`,
the regions of a − b in certificate form in :mod:`semialgebraic.regions.stacked`, and the exact maximum
deviation on a box (:func:`semialgebraic.deviation.max_deviation`, re-exported here) in
:mod:`semialgebraic.deviation`.  This module decides: refutation, fast paths, the walk.

>>> from algebra.network import Network
>>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])          # |x|
>>> b = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])  # permuted, rescaled
>>> v = equivalent(a, b, method="general")
>>> v.answer, v.method, len(v.certificate["reduction"]), len(v.certificate["regions"])
(True, 'general', 6, 0)
>>> c = Network.from_rows([[[1], [-1]], [[1, 2]]], [[0, 0], [0]])
>>> w = equivalent(a, c, method="general")
>>> w.answer, w.certificate["type"]
(False, 'counterexample')
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import partial
from typing import Any, Sequence

from algebra.exceptions import AlgebraError, InputError
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from .bottleneck_canon import equivalent_bottleneck
from .budget import Budget, Progress
from .certificates import counterexample_certificate, jsonable, region_cover_certificate
from .deviation import Deviation, max_deviation
from .sets import domain_spec, in_domain, normalize_domain, random_batch, random_point
from .exceptions import CertificateError, SemialgebraicError, UndecidedError
from .regions import JointRegion, joint_regions
from .reduction import contract_affine_layers, preactivation_bounds, reduced_difference, simplify
from .shallow import equivalent_shallow
from .verdict import Hypothesis, Verdict
from .verify import verify


__all__ = ["METHODS", "equivalent", "is_equivalent", "could_be_equivalent", "refutation_points",
           "simplify", "JointRegion", "joint_regions", "Deviation", "max_deviation",
           "normalize_domain", "preactivation_bounds", "reduced_difference", "contract_affine_layers"]

METHODS = ("auto", "general", "shallow", "bottleneck")


def equivalent(a: Network, b: Network, *, method: str = "auto", domain: Any = None,
               timeout: float | None = None, max_regions: int | None = None,
               budget: Budget | None = None, progress: bool | None = None,
               refutation_samples: int = 32, verify: bool = True) -> Verdict:
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
    verify : bool
        Re-check the certificate with the independent checker (:func:`semialgebraic.verify.verify`)
        before returning (default).  ``False`` skips it (benchmarks that time the decision alone).

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
    CertificateError
        If *verify* and the certificate fails its check (a bug in netfibers).

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
    return _decide(a, b, dom, method, budget, progress, refutation_samples, verify)


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
    pts = [random_point(rng, d, dom) for _ in range(samples)]
    for net in nets:
        W, b = net.layer(0)
        pts += _hyperplane_points(W.to_rows(), b, d, dom, rng)
    return [p for p in pts if in_domain(p, dom)]


# ------------------------------------------------------------------------------------------------
# private: the decision
# ------------------------------------------------------------------------------------------------
def _decide(a, b, dom, method, budget, progress, samples=32, check=True) -> Verdict:
    hyps: list[Hypothesis] = []
    if method in ("auto", "shallow", "bottleneck"):
        fast = _fast_path(a, b, dom, method, hyps, check)
        if fast is not None:
            return fast
        if method != "auto":
            return Verdict(None, method, f"the {method} method does not apply", tuple(hyps))
    return _general(a, b, dom, budget, progress, tuple(hyps), samples, check)


def _fast_path(a, b, dom, method, hyps, check=True) -> Verdict | None:
    shallow_ok = a.depth == 2 and b.depth == 2
    bott_ok = (a.depth == 3 and b.depth == 3 and a.widths[1] <= a.n_inputs
               and b.widths[1] <= b.n_inputs)
    witness = None if dom is None else jsonable(domain_spec(dom))
    if method in ("auto", "shallow"):
        hyps.append(Hypothesis("one hidden layer each", shallow_ok, [a.depth - 1, b.depth - 1]))
        hyps.append(Hypothesis("domain is R^d or the closed orthant (shallow canonical form)",
                               dom is None or dom == "orthant", witness))
        if shallow_ok and (dom is None or dom == "orthant"):
            v = _run_fast(partial(equivalent_shallow, orthant=dom == "orthant"), a, b, "shallow", hyps,
                          check)
            if v is not None:
                return v
    if method in ("auto", "bottleneck"):
        hyps.append(Hypothesis("domain is R^d (bottleneck fast path)", dom is None, witness))
        hyps.append(Hypothesis("two hidden layers with n1 <= d each", bott_ok,
                               [list(a.widths), list(b.widths)]))
        if bott_ok and dom is None:
            v = _run_fast(equivalent_bottleneck, a, b, "bottleneck", hyps, check)
            if v is not None:
                return v
    return None


def _run_fast(fn, a, b, name, hyps, check=True) -> Verdict | None:
    """Run a fast path; its verdict if it decided (certificate verified here with *check*), else
    None."""
    try:
        v = fn(a, b, verify=False)
    except (SemialgebraicError, AlgebraError) as exc:   # the fast path could not decide
        hyps.append(Hypothesis(f"{name} fast path applies", False, str(exc)))
        return None
    hyps.extend(v.hypotheses)
    if v.answer is None:
        return None
    if v.certificate is not None and check:
        ok, why = verify(jsonable(v.certificate))
        if not ok:
            raise CertificateError(v.certificate.get("type", name), why)
    return replace(v, hypotheses=tuple(hyps))


def _general(a, b, dom, budget, progress, hyps, samples=32, check=True) -> Verdict:
    _checked = partial(_checked_if, check=check)
    domj = domain_spec(dom)
    details: dict = {"regions_checked": 0}
    x = None
    if samples > 0:                    # first, before any simplification: refuted pairs are cheap
        x = _refute_random(a, b, dom, samples, 0, suspects=True)
    if x is not None:
        cert = counterexample_certificate(a, b, x, domain=domj)
        return _checked(Verdict(False, "general", "the networks differ at an exact point (cheap "
                                "refutation)", hyps, cert, {**details, "point": list(x)}), json_ready=True)
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        p = tuple([dom[0]] * a.n_inputs)
        if a(p) != b(p):               # (refutation_samples=0 skips the random points)
            return _checked(Verdict(False, "general", "the box is one point and a, b differ there", hyps,
                                    counterexample_certificate(a, b, p, domain=domj),
                                    {**details, "point": list(p)}))
        cert = region_cover_certificate(a, b, domain=domj)
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
    if not details["live_neurons"] and (D.depth > 1 or D.weights[0].is_zero()):
        # D is the constant map x -> its output bias: no walk (no hidden layer: x -> W x + b)
        if all(v == 0 for v in D.biases[-1]):
            cert = region_cover_certificate(a, b, domain=domj, contract=contract, reduction=steps)
            how = f"{len(contract)} layer contractions and " if contract else ""
            return _checked(Verdict(True, "general", f"{how}{len(steps)} exact reduction steps reduce "
                                    "a - b to the zero map (no hidden neuron left)", hyps, cert, details),
                            json_ready=True)
        x = tuple(random_batch(random.Random(0), 1, a.n_inputs, dom).row_at(0))
        cert = counterexample_certificate(a, b, x, domain=domj)
        return _checked(Verdict(False, "general", "a - b reduces to a non-zero constant", hyps, cert,
                                {**details, "point": list(x)}), json_ready=True)
    x = _refute_hyperplanes(a, b, dom, 0) if samples > 0 else None
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
    cert = region_cover_certificate(a, b, domain=domj, contract=contract, reduction=steps,
                                    regions=regs)
    how = f"{len(contract)} layer contractions, " if contract else ""
    return _checked(Verdict(True, "general", f"a - b is zero on all {len(regs)} linear regions "
                            f"of the reduced difference network ({how}{len(steps)} exact reduction "
                            "steps), which cover the domain", hyps, cert, details), json_ready=True)


def _checked_if(v: Verdict, json_ready: bool = False, check: bool = True) -> Verdict:
    """Verify the verdict's certificate with the independent checker (raises
    :class:`CertificateError` on failure); with ``check=False`` only put it in JSON form."""
    cert = v.certificate if json_ready else jsonable(v.certificate)
    if not check:
        return replace(v, certificate=cert)
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
        x = _first_difference(a, b, random_batch(rng, min(size, samples), d, dom))
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
                                         a.n_inputs, dom, rng) if in_domain(p, dom)]
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
        x = list(random_point(rng, d, dom, small=True))
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
    """The first of the points *pts* (a list of points or the rows of a QMatrix) where a and b
    differ, or None."""
    X = pts if isinstance(pts, QMatrix) else QMatrix.from_rows(pts, ncols=a.n_inputs)
    if X.nrows == 0:
        return None
    diff = (a.evaluate_batch(X) - b.evaluate_batch(X)).entries()
    m = a.n_outputs
    k = next((k for k, v in enumerate(diff) if v), None)
    return None if k is None else X.row_at(k // m)


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


def _val(g, x) -> Q:
    return sum((gi * xi for gi, xi in zip(g, x)), Q(0)) + g[-1]
