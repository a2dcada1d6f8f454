r"""Exact functional equivalence of ReLU networks of any depth: the entry points.

``equivalent(a, b)`` decides whether two ReLU networks with the same input and output
dimensions compute the same function on a domain (R^d, the closed orthant, a box, or a convex
polyhedron: a box with open sides or ∩ half-spaces), over Q.

Methods (``method=``)
---------------------
``"auto"``
    One hidden layer each (domain R^d or the closed orthant): the shallow canonical form
    (:func:`semialgebraic.shallow.equivalent_shallow`); two hidden layers with n1 <= d each
    (domain R^d): CANON for generic bottleneck networks
    (:func:`semialgebraic.bottleneck.equivalent_bottleneck`, three-layer-fibers R20).  A fast path
    whose hypotheses fail returns answer None and the general method decides.  Before it, where
    no fast path decided, two hidden layers or more of the same widths: when aligning b's hidden
    neurons with a's (S1, S2 steps, :mod:`semialgebraic.bab.align`) gives a exactly, the answer
    is "equivalent" (``method`` "symmetry", a ``symmetry_path`` certificate).
``"general"``
    Exact for any depths and widths: cheap refutation, exact contraction and reduction of
    a − b, then a walk over the linear regions of the reduced difference
    (:mod:`semialgebraic.equivalence.general`).  Budgets and Ctrl-C make the verdict undecided
    (answer None), never a guess.
``"shallow"`` / ``"bottleneck"``
    Only that fast path (answer None when it does not apply).

A box with its own sides per coordinate (``[(lo_1, hi_1), ...]``, ``{"box": [[lo, hi], ...]}``
or an :class:`algebra.kernel.Domain` box) is decided on the cube: with ``φ(u) = c + s ⊙ u``
(c the centre, s the half-widths) onto the box, ``a ≡ b`` on the box iff ``a∘φ ≡ b∘φ`` on
``[-1, 1]^d`` (three-layer-fibers R36; φ is onto the box, also when a side has width 0).  The
composed pair goes through the same dispatch with the cube as its domain, so every fast path's
domain hypothesis is checked on the cube (where none applies: the general method decides).  An
"equivalent" comes with an ``on_box`` certificate (the user's networks and box, the inner
certificate of the pair read on the cube); a "not equivalent" with an ordinary
``counterexample`` on the user's networks at ``x = φ(u)``, its domain the user's box.

A :class:`algebra.kernel.Domain` with half-spaces or open sides (a convex polyhedron, not a box)
is decided by the general method on the polyhedron itself (the region walk of a − b inside it; a
``region_cover`` certificate whose domain is the polyhedron, or a counterexample at a point of
it), then, when the walk does not finish in its share of the budget or the domain has no
interior, by exact branch and bound (:func:`_on_cut`; ``details["decided_by"]``).

Exact simplification (:func:`semialgebraic.equivalence.reduction.simplify`) removes neurons
that are provably dead on the reachable set (exact interval bounds over the domain), folds
constant neurons into the next bias, drops neurons with a zero outgoing column and merges
positively parallel neurons; the result computes exactly the same function on the domain.

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

import time

import numbers
from dataclasses import replace
from functools import partial
from typing import Any

from algebra.exceptions import AlgebraError, InputError
from algebra.kernel import compose_input_map
from algebra.kernel.domains import Domain
from algebra.network import Network, require_network
from algebra.rationals import Q, q_str, to_q

from ..bottleneck import equivalent_bottleneck
from ..budget import Budget, BudgetExhausted, api_boundary, phase
from ..certificates import (counterexample_certificate, jsonable, on_box_certificate, require_valid,
                            shorter_point, valid_within)
from ..exceptions import SemialgebraicError, UndecidedError
from ..sets import api_domain, domain_spec, interior_point, normalize_domain, tighten
from ..shallow import equivalent_shallow
from ..verdict import Hypothesis, Verdict, reader_hypotheses
from ..verify import verify
from .general import NOT_RECHECKED, general_method
from .refutation import refute

__all__ = ["METHODS", "equivalent", "is_equivalent", "could_be_equivalent"]

METHODS = ("auto", "general", "shallow", "bottleneck")


@api_boundary
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
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]}, {"orthant": True}, [(lo_1, hi_1), ...], {"box": [[lo_1, hi_1], ...]}, a Domain, a Polyhedron, or any other form of :func:`~semialgebraic.sets.api_domain`
        R^d (default), the closed orthant, the box [lo, hi]^d, or a box with its own sides per
        coordinate (decided on the cube, module docstring; an ``on_box`` certificate).
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
    for name, net in (("a", a), ("b", b)):
        if not isinstance(net, Network):     # (a path gave an AttributeError: API audit)
            raise InputError(f"{name} must be a Network, got {type(net).__name__}"
                             + (" (netfibers.load reads a file)" if isinstance(net, str) else ""))
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real)):
        raise InputError(f"timeout must be a number of seconds, got {timeout!r}")
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures (inputs, outputs) {a.signature} "
                         f"and {b.signature}")
    domain = api_domain(domain, a.n_inputs)       # every spelling the API takes (s48 API audit)
    budget = budget or Budget(timeout, max_regions)
    if isinstance(domain, Domain) and domain.dim == a.n_inputs and domain.box is None and (
            domain.halfspaces or domain.legacy_or_none() not in (None, "orthant")):
        if method != "auto":
            raise InputError(f"method {method!r} decides on a box, the orthant or R^d; on "
                             "half-spaces or open sides exact equality is decided by method "
                             "'auto' (the region walk on the domain, then branch and bound)")
        return _on_cut(a, b, domain, budget, progress, refutation_samples, verify)
    domain, box = _own_sides(domain, a.n_inputs)
    if box is not None:
        return _on_box(a, b, box, method, budget, progress, refutation_samples, verify)
    dom = normalize_domain(domain, a.n_inputs)
    return _decide(a, b, dom, method, budget, progress, refutation_samples, verify)


def equal_first(a: Network, b: Network, dom, budget: Budget) -> Verdict | None:
    """``equiv``'s exact equality on a third of the budget left (10 s without one), before the
    branch and bound of ``--epsilon``: a pair equal on the domain has max |a − b| = 0, which the
    reductions of a − b prove at once where branch and bound ran to the timeout (a deep-net audit,
    session 36: equal pairs proved in 2 s, [0, 3.6e28] after 30 s).  The verdict when it is
    "equivalent" with a certificate, else None (then branch and bound on the budget left).  Only
    that certificate is re-checked (in what *budget* has left: ``details["certificate_checked"]``
    says whether it was), not a refutation's, which the caller does not use."""
    left = budget.remaining() if budget.timeout is not None else None
    share = Budget(timeout=10.0 if left is None else left / 3)
    from ..budget import alarm_at
    try:                             # (an alarm too: a large pair's exact matrices, made by the
        with share.active(), alarm_at(time.monotonic() + share.timeout,     # refutation, see no
                                      "the exact equality tried first"):    # checkpoint: s43)
            v = equivalent(a, b, domain=dom, budget=share, progress=False, verify=False)
    except (BudgetExhausted, AlgebraError, SemialgebraicError):
        return None
    if v.answer is not True or v.certificate is None:
        return None             # (a refutation's certificate is not checked: it is not used)
    from ..certificates import valid_within
    # re-checked in what the caller's budget has left (a Ctrl-C there stops the caller too)
    checked = valid_within(v.certificate, budget) is True       # (invalid: CertificateError)
    return replace(v, details={**v.details, "certificate_checked": checked})


@api_boundary
def is_equivalent(a: Network, b: Network, **kw) -> bool:
    """Whether *a* and *b* compute the same function: ``equivalent(a, b, **kw).answer``.

    Parameters
    ----------
    a, b : Network
    **kw
        The keyword arguments of :func:`equivalent`.

    Returns
    -------
    bool
        The proved answer (its certificate is in ``equivalent(a, b, **kw)``).

    Raises
    ------
    UndecidedError
        If :func:`equivalent` does not decide (budget, interrupt, a fast path that does not
        apply).
    InputError
        As :func:`equivalent`.

    Examples
    --------
    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> is_equivalent(a, a.with_parameter("b2[0]", 1))
    False
    """
    v = equivalent(a, b, **kw)
    if v.answer is None:
        raise UndecidedError(v.reason)
    return v.answer


@api_boundary
def could_be_equivalent(a: Network, b: Network, *, domain: Any = None, samples: int = 32,
                        seed: int = 0, timeout: float | None = None) -> bool:
    """False if *a* and *b* provably differ (exact evaluation at rational points); True is
    inconclusive.

    Parameters
    ----------
    a, b : Network
    domain : any form of :func:`~semialgebraic.sets.api_domain`
        R^d (default), the closed orthant, a box, or box ∩ half-spaces.
    samples : int
        Random points tried (then the points next to the first-layer hyperplanes).
    seed : int
        Seed of the random points.
    timeout : float, optional
        Seconds (main thread): past them the search stops and True (inconclusive) is returned.
        Its points next to every first-layer hyperplane are ~4 per neuron of both networks,
        evaluated exactly: ~50 s for two 32-1024-4 nets, where :func:`equivalent` decides a
        permuted copy in 0.1 s.

    Returns
    -------
    bool
        False when an exact point where they differ was found (or the signatures differ).

    Raises
    ------
    InputError
        If the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> could_be_equivalent(a, a), could_be_equivalent(a, a.with_parameter("W2[0,0]", 2))
    (True, False)
    """
    require_network(a, "could_be_equivalent", "a")
    require_network(b, "could_be_equivalent", "b")
    for name, v in (("samples", samples), ("seed", seed)):
        if isinstance(v, bool) or not isinstance(v, numbers.Integral) or (name == "samples" and v < 0):
            raise InputError(f"{name} must be a count >= 0, got {v!r}" if name == "samples"
                             else f"seed must be an integer, got {v!r}")   # (s53 API audit F10)
    if a.signature != b.signature:
        return False
    dom = normalize_domain(api_domain(domain, a.n_inputs), a.n_inputs, polyhedral=True)
    if timeout is None:
        return _aligned_onto(a, b) or refute(a, b, dom, samples, seed) is None
    import time
    from ..budget import BudgetExhausted, alarm_at
    budget = Budget(timeout)                  # (s48 API audit F9: it took no budget)
    try:
        with budget.active(), alarm_at(time.monotonic() + max(0.0, float(timeout)),
                                       "could_be_equivalent"):
            return _aligned_onto(a, b) or refute(a, b, dom, samples, seed) is None
    except BudgetExhausted:
        return True


def _aligned_onto(a: Network, b: Network) -> bool:
    """Whether aligning b's hidden neurons with a's (S1, S2 steps, each keeping the function:
    :func:`semialgebraic.bab.align.aligned`) gives a exactly: then a and b are equal everywhere.
    A permuted 32-1024-4 copy took ~50 s of random points that could find nothing (s48 note)."""
    if a.depth < 2:
        return False
    from ..bab.align import path_onto
    return path_onto(a, b) is not None


# ------------------------------------------------------------------------------------------------
# private: a box ∩ half-spaces or a box with open sides
# ------------------------------------------------------------------------------------------------
CUT_SHARE = 0.5
"""On box ∩ half-spaces or open sides: the share of the budget's timeout the region walk on the
domain itself may take before branch and bound decides with the rest."""


TIGHTEN_SHARE = 0.1
"""The share of the budget's timeout the exact LPs of the domain's bounding box may take
(:func:`semialgebraic.sets.tighten`; the sides proved by then are kept)."""


def _on_cut(a, b, dom: Domain, budget: Budget, progress, samples, check) -> Verdict:
    """``a ≡ b`` on a box ∩ half-spaces or a box with open sides (a convex polyhedron).  First the
    general method on the polyhedron itself (its region walk: cheap refutation at points of the
    domain, exact reductions by interval bounds over the domain's exact bounding box
    (:func:`semialgebraic.sets.tighten`: each side an exact LP, proved by its multipliers in the
    certificate's ``bounds``), the regions of the
    reduced a − b inside the polyhedron), in ``CUT_SHARE`` of the budget: a ``region_cover``
    certificate naming the polyhedral domain, or a counterexample at a point of the domain
    (``details["decided_by"] = "region walk"``).  When the walk does not finish (the share
    spent, a domain with an empty interior: the walk needs a full-dimensional domain), max
    |a − b| <= 0 on the domain by exact branch and bound with the rest of the budget (a
    ``bab_bound`` / ``bab_recession`` certificate or a point; method "branch and bound",
    ``decided_by`` "branch and bound").
    A 3-4-4-1 pair equal on a cut box but not just outside it (a neuron active only beyond
    the half-space, dropped in b): the walk 0.3 s (test_equiv_polytope_walk)."""
    from ..bab import epsilon_equivalent
    # the exact bounding box, for every interval bound below (in a tenth of the budget at most)
    dom = tighten(dom, Budget(None if budget.timeout is None else TIGHTEN_SHARE * budget.remaining()))
    share = Budget(None if budget.timeout is None else CUT_SHARE * budget.remaining(),
                   budget.max_regions)
    v = None
    if interior_point(dom) is not None:       # (the walk's covering argument: full-dimensional)
        try:
            with share.active():
                v = _decide(a, b, dom, "general", share, progress, samples, check)
        except BudgetExhausted:
            pass
        if share.interrupted:
            budget.interrupt()
    if v is not None and v.answer is not None:
        return replace(_rechecked(v, budget, check), details={**v.details, "decided_by": "region walk"})
    walked = 0 if v is None else v.details.get("regions_checked", 0)
    if budget.interrupted:
        return Verdict(None, "branch and bound", "undecided: interrupted (Ctrl-C)", (), None,
                       {"regions_checked": walked, "complete": False})
    answer, r = epsilon_equivalent(a, b, dom, Q(0), budget=budget, verify=check)
    if answer is True:
        reason = "max |a - b| = 0 on the domain (certified upper bound 0)"
    elif answer is False:
        reason = f"a_{r.output}(x) != b_{r.output}(x) at a point x of the domain"
        if r.unbounded:
            reason += f" ({r.reason})"
    else:
        reason = f"undecided: {r.reason}"
    details = {**r.to_json(), "epsilon": "0", "regions_checked": walked,
               "decided_by": "branch and bound", "walk": (
                   "the domain has an empty interior" if v is None else v.reason)}
    return Verdict(answer, "branch and bound", reason, (), r.certificate, details)


def _rechecked(v: Verdict, budget: Budget, check) -> Verdict:
    """*v* decided by the region walk on the domain within ``CUT_SHARE`` of *budget*: when its certificate's
    in-process re-check was cut by that share, the check again in what *budget* has left (the
    verdict is the same; only whether it was re-checked here changes)."""
    if not check or v.details.get("certificate_checked") is not False or not v.certificate:
        return v
    if valid_within(v.certificate, budget) is None:
        return v
    details = {k: w for k, w in v.details.items() if k != "certificate_checked"}
    return replace(v, reason=v.reason.replace(NOT_RECHECKED, ""), details=details)


# ------------------------------------------------------------------------------------------------
# private: a box with its own sides, read on the cube (three-layer-fibers R36)
# ------------------------------------------------------------------------------------------------
def _own_sides(domain, d):
    """``(domain, None)`` for the domains :func:`normalize_domain` takes (a Domain given in its
    older form, a box of equal sides as the cube), or ``(None, [(lo_i, hi_i)])`` for a box with
    its own sides per coordinate (exact; :class:`InputError` for lo > hi or a wrong count)."""
    if isinstance(domain, Domain):
        if domain.dim != d:
            raise InputError(f"the domain has {domain.dim} coordinates, the networks {d} inputs")
        box = domain.box
        if box is None:
            return domain.legacy(), None      # R^d, the orthant; InputError for the others
    else:
        box = domain.get("box") if isinstance(domain, dict) and set(domain) == {"box"} else domain
        if not (isinstance(box, (list, tuple)) and box and
                all(isinstance(p, (list, tuple)) for p in box)):
            return domain, None
        if len(box) != d or not all(len(p) == 2 for p in box):
            raise InputError(f"a box with its own sides is {d} intervals (lo, hi), one per input")
        box = [(to_q(lo), to_q(hi)) for lo, hi in box]
    for i, (lo, hi) in enumerate(box):
        if lo > hi:
            raise InputError(f"box: coordinate {i}: lower bound {q_str(lo)} exceeds upper bound "
                             f"{q_str(hi)}")
    if len(set(box)) == 1:                    # a cube: decided as one
        return box[0], None
    return None, box


def _on_box(a, b, box, method, budget, progress, samples, check) -> Verdict:
    """Decide ``a ≡ b`` on the box ``∏ [lo_i, hi_i]`` as ``a∘φ ≡ b∘φ`` on ``[-1, 1]^d``,
    ``φ(u) = c + s ⊙ u``; the verdict speaks of the user's networks and box (hypotheses' domain
    witnesses, the point, the certificates)."""
    center = [(lo + hi) / 2 for lo, hi in box]
    scale = [(hi - lo) / 2 for lo, hi in box]
    a_u, b_u = compose_input_map(a, center, scale), compose_input_map(b, center, scale)
    cube = (Q(-1), Q(1))
    v = _decide(a_u, b_u, cube, method, budget, progress, samples, False)
    spec = {"box": [[lo, hi] for lo, hi in box]}
    cube_spec = jsonable(domain_spec(cube))
    hyps = list(reader_hypotheses(a, b))          # the composed networks carry no reader notes
    for h in v.hypotheses:
        hyps.append(replace(h, witness=spec) if jsonable(h.witness) == cube_spec else h)
    details = dict(v.details)
    details["box"] = spec["box"]
    cert = v.certificate
    if v.answer is False and cert is not None and cert.get("type") == "counterexample":
        x = [c + s * to_q(u) for c, s, u in zip(center, scale, cert["x"])]
        short = shorter_point(a, b, x, None)       # c, s lengthen u's short coordinates
        if all(lo <= t <= hi for t, (lo, hi) in zip(short, box)):
            x = list(short)
        cert = counterexample_certificate(a, b, x, domain=spec)
        details["point"] = x
    elif v.answer is True and cert is not None:
        cert = on_box_certificate(a, b, box, jsonable(cert, keep_networks=True))
    elif v.answer is not None:                  # (no other certificate is built on a cube)
        raise SemialgebraicError(f"no certificate on the box for a {cert and cert.get('type')} "
                                 "certificate of the pair read on the cube")
    if cert is not None and check:
        require_valid(jsonable(cert, keep_networks=True), verify, "on_box")
    return replace(v, hypotheses=tuple(hyps), certificate=cert, details=details)


# ------------------------------------------------------------------------------------------------
# private: the fast paths, then the general method
# ------------------------------------------------------------------------------------------------
PRE_REFUTE_PARAMETERS = 20_000
"""``auto`` on a pair with more parameters than this tries the general method's random points
before the fast paths (exact canonical forms cost seconds per 10^5 parameters; an exact point
far less)."""


def _decide(a, b, dom, method, budget, progress, samples=32, check=True) -> Verdict:
    hyps: list[Hypothesis] = list(reader_hypotheses(a, b))     # BatchNorm roundings of the readers
    random_done = False
    if method == "auto" and samples > 0 and max(a.n_parameters, b.n_parameters) > PRE_REFUTE_PARAMETERS:
        # large pairs: the random points first, before a fast path's exact canonical forms (a
        # 768-3072-768 block against its float16 copy: refuted in ~3 s, the shallow path
        # needed ~40 s; session 39)
        v = general_method(a, b, dom, budget, progress, tuple(hyps), samples, check,
                           refute_only=True)
        if v.answer is False or budget.exhausted():
            return v
        random_done = True          # (the general method below does not draw them again)
    if method in ("auto", "shallow", "bottleneck"):
        fast = _fast_path(a, b, dom, method, hyps, check, budget, search=not random_done)
        if fast is not None:
            return fast
        if method != "auto":
            return Verdict(None, method, f"the {method} method does not apply", tuple(hyps))
    if method == "auto" and a.depth >= 3 and a.widths == b.widths and \
            not (budget is not None and budget.exhausted()):
        same = _symmetric_copy(a, b, hyps, check, budget)     # (where no theorem's fast path
        if same is not None:                                  # decided: deeper nets, boxes)
            return same
    return general_method(a, b, dom, budget, progress, tuple(hyps), samples, check,
                          random_done=random_done)


SYMMETRIC_COPY = ("b is a with its hidden neurons permuted and positively rescaled (S1, S2): "
                  "the same function on every domain")


def _symmetric_copy(a, b, hyps, check=True, budget=None) -> Verdict | None:
    """"equivalent" with a ``symmetry_path`` certificate when *b*'s hidden neurons, permuted and
    positively rescaled layer by layer (:func:`semialgebraic.bab.align.aligned`: S1, S2 steps,
    each keeping the function), give *a* exactly; else None.  A deep permuted copy was decided
    by "72 exact reduction steps reduce a − b to the zero map", true but not what a user
    recognises (s48 note); ``diff`` said it this way already."""
    from ..bab.align import path_onto
    from ..certificates.symmetry_path import symmetry_path_certificate
    try:
        with phase("aligning b's neurons with a's"):
            steps = path_onto(a, b)
    except BudgetExhausted:              # (the general method reports the spent budget)
        return None
    if steps is None:
        return None
    cert = symmetry_path_certificate(a, b, steps)
    hyps.append(Hypothesis("b is a up to S1 and S2 (exact alignment)", True, len(steps)))
    v = Verdict(True, "symmetry", SYMMETRIC_COPY if steps else "b has the same weights as a",
                tuple(hyps), cert,
                {"regions_checked": 0, "complete": True, "steps": len(steps)})
    if check:
        c = jsonable(cert, keep_networks=True)
        with phase("re-checking the symmetry path"):
            if budget is None or budget.timeout is None:
                require_valid(c, verify, "symmetry")
            elif valid_within(c, budget, checker=verify) is None:
                v = replace(v, reason=v.reason + NOT_RECHECKED,
                            details={**v.details, "certificate_checked": False})
    return v


def _fast_path(a, b, dom, method, hyps, check=True, budget=None,
               search: bool = True) -> Verdict | None:
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
                          check, budget)
            if v is not None:
                return v
    if method in ("auto", "bottleneck"):
        hyps.append(Hypothesis("domain is R^d (bottleneck fast path)", dom is None, witness))
        hyps.append(Hypothesis("two hidden layers with n1 <= d each", bott_ok,
                               [list(a.widths), list(b.widths)]))
        if bott_ok and dom is None:
            v = _run_fast(partial(equivalent_bottleneck, search=search), a, b, "bottleneck",
                          hyps, check, budget)
            if v is not None:
                return v
    return None


def _run_fast(fn, a, b, name, hyps, check=True, budget=None) -> Verdict | None:
    """Run a fast path; its verdict if it decided (certificate verified here with *check*; with
    a *budget* that has a timeout, in the time it has left: a check that does not finish is said
    in the reason, as the general method's), else None."""
    try:
        with phase(f"the {name} path"):
            v = fn(a, b, verify=False)
    except (SemialgebraicError, AlgebraError) as exc:   # the fast path could not decide
        hyps.append(Hypothesis(f"{name} fast path applies", False, str(exc)))
        return None
    hyps.extend(v.hypotheses)
    if v.answer is None:                    # (decided, but the budget stopped its certificate)
        return replace(v, hypotheses=tuple(hyps)) if v.details.get("uncertified") else None
    if v.certificate is not None and check:
        cert = jsonable(v.certificate, keep_networks=True)
        with phase(f"re-checking the {name} path's certificate"):
            if budget is None or budget.timeout is None:
                require_valid(cert, verify, name)
            elif valid_within(cert, budget, checker=verify) is None:   # (an invalid one raises)
                v = replace(v, reason=v.reason + NOT_RECHECKED,
                            details={**v.details, "certificate_checked": False})
    return replace(v, hypotheses=tuple(hyps))
