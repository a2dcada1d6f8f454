r"""The general equivalence method: exact for any depths and widths.

Deciding equivalence is coNP-hard in general (three-layer-fibers R27), so the method is smart
before it is exhaustive:

1. cheap refutation, first and before any simplification: exact evaluation at small batches of
   random rational points with short denominators, then at points just on both sides of the
   first-layer hyperplanes of one network that the other lacks (a difference confined to a thin
   slab); when the reduction below does not collapse D, at points next to every first-layer
   hyperplane (:mod:`semialgebraic.equivalence.refutation`);
2. hidden layers that are affine on the domain (every neuron provably always active or dead by
   exact interval bounds) are contracted into the next layer, in a and in b
   (:func:`semialgebraic.equivalence.reduction.contract_affine_layers`): an extra always-active
   layer, a layer split into two, an inserted σ(h) − σ(−h) identity disappear;
3. the difference network D = a − b (a and b side by side, output W_a − W_b) is reduced by exact
   steps that keep its function: positively parallel neurons are merged, neurons without output
   and provably dead neurons (exact interval bounds over the domain) are zeroed
   (:func:`semialgebraic.equivalence.reduction.reduced_difference`); deeper neurons never active
   at sample points are proved dead on the domain by a small walk over the regions of the
   layers below them (an exact Farkas bound per region: ``dead_cover`` steps; on box ∩
   half-spaces first-layer neurons too, e.g. one active only beyond a half-space), then the
   reduction resumes.  Planted symmetries (permutations, positive scalings, dead or duplicated
   neurons, cancelling pairs, weights of neurons that never fire) make D collapse to a network
   with no live neuron, the constant map x ↦ (its output bias): zero means equivalent
   (``region_cover`` certificate with ``"regions": []``), no walk.
4. a walk over the linear regions of the reduced D (:func:`semialgebraic.regions.regions`, the
   one region walk of the package, with ``multipliers=True``;
   :func:`semialgebraic.regions.joint_regions` puts its regions in certificate form): starting
   from one region it crosses every facet (the pattern across a facet is proved exactly) and
   checks that the affine map of D is zero on each region.  A region where it is not gives an
   exact counterexample (a point of the region where a and b differ).  Facets are decided by
   exact LP (:mod:`semialgebraic.lp`; HiGHS only guesses): an exact point in the facet proves
   it, Farkas multipliers over the facets prove that an inequality is redundant.
5. When the walk closes, the answer is "equivalent" with a ``region_cover`` certificate (the
   contractions, the reduction steps and the regions; format and the covering argument:
   :mod:`semialgebraic.verify.region_cover`).

Budgets (``timeout`` seconds, ``max_regions``) and Ctrl-C stop the walk; the verdict is then
undecided (answer None) with the number of regions checked, never a guess.  The verdict reports
the contractions and reduction steps of its certificate (``details["contractions"]``,
``details["reduction"]``: counts per step kind); the certificate is always about the networks
as given.
"""

from __future__ import annotations

import random
from dataclasses import replace
from functools import partial

from algebra.kernel.domains import Domain
from algebra.rationals import Q

from ..budget import Budget, BudgetExhausted, Progress, phase
from ..certificates import (counterexample_certificate, jsonable, region_cover_certificate,
                            shorter_point, valid_within)
from ..exceptions import CertificateError
from ..regions import JointRegion, joint_regions
from ..sets import domain_spec, random_batch
from ..verdict import Verdict
from ..verify import verify
from .reduction import contract_affine_layers, reduced_difference
from .refutation import refute_hyperplanes, refute_random

__all__ = ["general_method"]

_DEAD_COVER_REGIONS = 256   # at most this many regions per dead_cover attempt


def general_method(a, b, dom, budget, progress, hyps, samples=32, check=True,
                   refute_only: bool = False, random_done: bool = False) -> Verdict:
    """The general method on the normalised domain *dom* (steps 1-5 of the module docstring).

    *hyps*: the hypotheses recorded so far (fast paths tried); *samples*: random points of the
    cheap refutation (0 skips it); *check*: verify the certificate with the independent
    checker.  The verdict's answer is None when *budget* or Ctrl-C stopped the walk, or when
    the budget ran out in the steps before it (refutation, reduction: their loops stop at
    :func:`checkpoint` while the budget's timeout is active; its region count is the walk's).
    Ctrl-C before the walk propagates (``batch`` stops on it rather than record an item).
    *refute_only*: the random points alone, a verdict with answer None when they do not separate
    the networks (the dispatcher's first step on large pairs); *random_done*: those points were
    tried already (by that first step), so they are not drawn again.
    """
    try:
        with budget.timer().active(), phase("the general method: refutation, reduction, regions"):
            return _general(a, b, dom, budget, progress, hyps, samples, check, refute_only,
                            random_done)
    except BudgetExhausted:
        budget.interrupt()
        return Verdict(None, "general", f"undecided: {budget.reason} before the walk; 0 regions "
                       "checked, no counterexample found", hyps, None,
                       {"regions_checked": 0, "complete": False})


def _general(a, b, dom, budget, progress, hyps, samples, check, refute_only=False,
             random_done=False) -> Verdict:
    _checked = partial(_checked_if, check=check, budget=budget)
    domj = domain_spec(dom)
    bounds = dom.sides() if isinstance(dom, Domain) else []     # a proved bounding box (sets.tighten)
    details: dict = {"regions_checked": 0}
    x = None
    if samples > 0 and not random_done:   # first, before any simplification: refuted pairs are cheap
        x = refute_random(a, b, dom, samples, 0, suspects=True)
    if x is not None:
        x = shorter_point(a, b, x, dom)
        cert = counterexample_certificate(a, b, x, domain=domj)
        return _checked(Verdict(False, "general", "the networks differ at an exact point (cheap "
                                "refutation)", hyps, cert, {**details, "point": list(x)}), json_ready=True)
    if refute_only:
        return Verdict(None, "general", "no random point separates the networks", hyps, None,
                       {**details, "complete": False})
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
                            for k in ("merge", "zero", "constant", "dead", "dead_cover")}
    details["live_neurons"] = sum(1 for w, b_ in zip(D.weights[:-1], D.biases[:-1])
                                  for i in range(w.nrows) if b_[i] != 0 or any(v != 0 for v in w.row_at(i)))
    if not details["live_neurons"] and (D.depth > 1 or D.weights[0].is_zero()):
        # D is the constant map x -> its output bias: no walk (no hidden layer: x -> W x + b)
        if all(v == 0 for v in D.biases[-1]):
            cert = region_cover_certificate(a, b, domain=domj, bounds=bounds, contract=contract, reduction=steps)
            how = f"{len(contract)} layer contractions and " if contract else ""
            return _checked(Verdict(True, "general", f"{how}{len(steps)} exact reduction steps reduce "
                                    "a - b to the zero map (no hidden neuron left)", hyps, cert, details),
                            json_ready=True)
        x = tuple(random_batch(random.Random(0), 1, a.n_inputs, dom).row_at(0))
        x = shorter_point(a, b, x, dom)
        cert = counterexample_certificate(a, b, x, domain=domj)
        return _checked(Verdict(False, "general", "a - b reduces to a non-zero constant", hyps, cert,
                                {**details, "point": list(x)}), json_ready=True)
    x = refute_hyperplanes(a, b, dom, 0) if samples > 0 else None
    if x is not None:                  # D did not collapse: points next to all hyperplanes
        x = shorter_point(a, b, x, dom)
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
        counter = shorter_point(a, b, counter, dom)
        cert = counterexample_certificate(a, b, counter, domain=domj)
        return _checked(Verdict(False, "general", f"a - b is not zero on linear region "
                                f"{len(regs) - 1} of the walk", hyps, cert,
                                {**details, "point": list(counter)}), json_ready=True)
    if not state.get("complete"):
        return Verdict(None, "general", f"undecided: {state.get('reason')}; {len(regs)} regions "
                       "checked, no counterexample found", hyps, None,
                       {**details, "complete": False})
    cert = region_cover_certificate(a, b, domain=domj, bounds=bounds, contract=contract, reduction=steps,
                                    regions=regs)
    how = f"{len(contract)} layer contractions, " if contract else ""
    return _checked(Verdict(True, "general", f"a - b is zero on all {len(regs)} linear regions "
                            f"of the reduced difference network ({how}{len(steps)} exact reduction "
                            "steps), which cover the domain", hyps, cert, details), json_ready=True)


NOT_RECHECKED = "; the certificate was not re-checked in-process (budget): run `netfibers verify` on it"
"""What :func:`_checked_if` adds to a verdict's reason when the budget cut its certificate's check."""


def _checked_if(v: Verdict, json_ready: bool = False, check: bool = True, budget=None) -> Verdict:
    """Verify the verdict's certificate with the independent checker (raises
    :class:`CertificateError` on failure); with ``check=False`` only put it in JSON form.  With
    a *budget* that has a timeout, the check gets what it has left (a large region cover's check
    is stopped by an alarm, never trusted then): a check that did not finish is said in the
    reason and ``details["certificate_checked"]`` is False; the verdict keeps its certificate."""
    cert = v.certificate if json_ready else jsonable(v.certificate)
    if not check:
        return replace(v, certificate=cert)
    left = budget if budget is not None and budget.timeout is not None else Budget()
    if valid_within(cert, left, checker=verify) is None:     # (no timeout: None only by Ctrl-C)
        why = NOT_RECHECKED if not left.interrupted else NOT_RECHECKED.replace("(budget)", "(Ctrl-C)")
        return replace(v, certificate=cert, reason=v.reason + why,
                       details={**v.details, "certificate_checked": False})
    return replace(v, certificate=cert)



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
