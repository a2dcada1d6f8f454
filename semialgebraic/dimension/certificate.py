r"""The ``functional_dimension`` certificate of a result of :func:`functional_dimension`.

The lower bound is certified by the Jacobian rows at the listed exact inputs: their rank mod a
prime is at least ``lower``, hence over Q (three-layer-fibers R22 FIBDIM).  The upper bound is
certified when it can be: by ``upper_directions`` entries the checker re-derives from θ (found
by :class:`_UpperEntries`, every entry validated by the checker before it is kept), or by the
complete list of linear regions with Farkas multipliers (``upper_regions``); otherwise
``uncertified_upper_reason`` names what is missing.
"""

from __future__ import annotations

import time
from typing import Any

from algebra.kernel import box_input_map, compose_input_map, compose_slice_map, domain_json
from algebra.linalg.gfp import PRIME, pivot_columns, rank_mod_p
from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q, q_json

from ..budget import Budget
from ..certificates import dimension_bounds_certificate, jsonable, one_hidden_layer_dimension_certificate, require_valid
from ..sets import api_domain, domain_spec, normalize_domain
from ..regions import joint_regions
from ..equivalence import preactivation_bounds
from ..verify import verify as _verify
from .directions import is_masked, silent_set
from .fiber_floor import BLOCK_ENTRIES, SECONDS_PER_ENTRY, certified_fiber_floor, floor_entries
from .jacobian import jacobian_rows
from .jacobian_columns import exercise, phase_search
from .result import FunctionalDimension
from .sampling import exact_masks
from .upper import (checked_directions_bound, constant_neurons, duplicate_groups, inputs_dead_entries, intern_shared,
                    is_regions_rank, masked_pairs, opposite_pairs, sparse_entry_vectors)

__all__ = ["functional_dimension_certificate", "CERTIFICATE_LPS"]

CERTIFICATE_LPS = 6000
"""Exact LPs of all the proof searches of one certificate (phase searches that record the
proofs of the upper bound): a count of work, so that the certificate never depends on the clock."""


def functional_dimension_certificate(net: Network, fd: FunctionalDimension, *, domain: Any = None,
                                     seconds: float | None = None, lps: int = CERTIFICATE_LPS,
                                     verify: bool = True, report: dict | None = None) -> dict:
    """A ``functional_dimension`` certificate of the bounds of *fd* (checked by
    :mod:`semialgebraic.verify.functional_dimension`).

    The lower bound: the Jacobian rows at the listed inputs have rank >= lower mod a prime,
    hence over Q; the inputs are thinned to a prefix that already reaches the rank when one
    does.  The upper bound is certified too (claim "lower <= functional dimension <= upper")
    when N − rank of the directions the checker can re-derive from θ equals ``fd.upper``
    exactly: scalings, dead / silent / always-active neurons by interval bounds, GL blocks,
    groups of positively parallel neurons (three-layer-fibers R34),
    never-exercised parameters with their proofs, and, searched again here with proofs recorded
    (at most *lps* exact LPs), neurons proven dead / always active / masked and the incoming
    directions of :func:`incoming_directions`.  When they do not reach ``fd.upper`` and the
    regions were walked completely (then ``fd.upper`` is the exact rank over every region), the
    regions are walked again with Farkas multipliers and listed (``upper_regions``: the checker
    re-checks that they cover the domain and recomputes the exact rank of the rows on them).
    Otherwise ``uncertified_upper_reason`` names what is missing.

    Parameters
    ----------
    net : Network
    fd : FunctionalDimension
        The result of :func:`functional_dimension` on *net* and *domain*.
    domain : None, "orthant", (lo, hi), per-coordinate [(lo_1, hi_1), ...] or any other box form of :func:`~semialgebraic.sets.api_domain`
        The domain *fd* was computed on; by default *fd*'s own (R^d for a result that does not
        record it).
    seconds : float, optional
        A hard time limit of the searches that record the proofs of the upper bound (a timeout
        only stops them; default none: the certificate depends only on *fd* and the work).
    lps : int
        Exact LPs of those searches in all (default :data:`CERTIFICATE_LPS`).
    verify : bool
        Re-check the certificate with the independent checker before returning it.  A
        certificate without a differentiable input (θ non-generic, or none found) shows nothing
        and is returned unchecked (the checker rejects it: the functional dimension is not
        shown to be defined).  With *seconds*, the re-check is skipped when its estimate does
        not fit the time left, and the upper bound left uncertified when ranking the proven
        directions does not (:data:`DIRECTIONS_CHECKS`): those are calls no budget stops.
    report : dict, optional
        Gets ``"check"`` (the re-check's estimated seconds), when it was skipped ``"unchecked"``
        (why, for the user: ``netfibers verify`` checks the file), and ``"upper"`` when the
        certificate proves an upper bound below ``fd.upper`` (the run's rank of the proven
        directions stopped by its budget, or facts proven by the certificate's own searches).

    Returns
    -------
    dict
        The certificate (JSON-ready).

    Raises
    ------
    CertificateError
        With ``verify=True``, if the checker rejects the certificate (a bug in netfibers).

    Examples
    --------
    >>> from algebra.network import Network
    >>> from semialgebraic.dimension import functional_dimension
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> fd = functional_dimension(net)
    >>> cert = functional_dimension_certificate(net, fd)
    >>> from semialgebraic.verify import verify
    >>> fd.value, cert["lower"], verify(cert)[0]
    (5, 5, True)
    """
    own = getattr(fd, "domain", None)             # the Domain fd is about (None: not recorded)
    dom = own if domain is None and own is not None else api_domain(domain, net.n_inputs)
    if own is not None and own != dom:            # (an internal error before: s48 API audit)
        raise InputError(f"fd is the functional dimension on {own.describe()}, the certificate "
                         f"was asked for on {dom.describe()}: pass the domain functional_dimension "
                         "was given, or none (then fd's own)")
    if dom.box is not None and dom.as_cube is None:   # a box with its own sides: read on the cube
        if box_input_map(dom.lo, dom.hi) is None:
            raise InputError("a box with a side of width 0 (a slice): its certificate is built "
                             "by `netfibers dim --box ... --certificate FILE`")
        return box_certificate(net, dom.lo, dom.hi, fd, seconds=seconds, lps=lps, verify=verify,
                               report=report)
    domain = dom.legacy()          # R^d, the orthant or a cube (InputError for half-spaces)
    start, cost = time.monotonic(), {}
    if fd.details.get("theorem") == "R38":        # N - n1 by the theorem: its own certificate
        cert = one_hidden_layer_dimension_certificate(net, normalize_domain(domain, net.n_inputs), fd.value)
        if not verify:
            return cert
        if seconds is None:
            return require_valid(cert, _verify)
        # its re-check is a loop over the neurons (10.8 s on a 768-3072-768 block, the answer
        # known at 1.5 s: dim --timeout 2 --certificate took 12 s; s43 budgets audit F3): stopped
        # at the deadline, or by Ctrl-C, the certificate is written unchecked and said so
        from ..budget import alarm_at
        try:
            with alarm_at(start + seconds + CHECK_GRACE, "the certificate's re-check"):
                return require_valid(cert, _verify)
        except KeyboardInterrupt as exc:
            if report is not None:
                report["unchecked"] = ("its re-check (a loop over the neurons) was stopped at the "
                                       "timeout" if str(exc) else "its re-check was interrupted (Ctrl-C)")
            return cert
    cert = _certificate(net, fd, normalize_domain(domain, net.n_inputs), seconds, lps, cost)
    if report is not None:
        report["check"] = cost["check"]
        if "upper" in cost:               # a tighter upper bound than fd's, certified
            report["upper"] = cost["upper"]
    if verify and cert["inputs"] and _check_fits(start, seconds, cost, report):
        require_valid(cert, _verify)
    return cert


def box_certificate(net: Network, lo, hi, fd: FunctionalDimension, *, seconds: float | None = None,
                    lps: int = CERTIFICATE_LPS, verify: bool = True, report: dict | None = None) -> dict:
    """The certificate of *fd* computed on the cube for the box ``∏ [lo_i, hi_i]`` (three-layer-fibers
    R36): *fd* is the result of :func:`functional_dimension` on ``compose_input_map(net, c, s)``
    and ``[−1, 1]^d``; the certificate embeds *net* itself and names the box in
    ``domain.input_map``, the checker recomposing the network on the cube.  A box with some sides
    of width 0 (a slice): *fd* is the result on ``compose_slice_map(net, lo, hi)`` (R36 (b),
    before :func:`~semialgebraic.dimension.functional.on_slice`), and the certificate carries no
    fiber moves (they would be that network's)."""
    cs = box_input_map(lo, hi)
    sliced = None if cs is not None else compose_slice_map(net, lo, hi)
    if cs is None and sliced is None:
        raise ValueError("box_certificate: a box with finite sides, lo <= hi, some lo < hi")
    if fd.details.get("theorem") == "R38" and sliced is not None:
        raise ValueError("box_certificate: R38's certificate (one_hidden_layer_dimension) takes a "
                         "box whose every side has width > 0, not a slice")
    if fd.details.get("theorem") == "R38":        # the hypotheses hold on the box itself (R36)
        cert = one_hidden_layer_dimension_certificate(net, list(zip(lo, hi)), fd.value)
        return require_valid(cert, _verify) if verify else cert
    start, cost = time.monotonic(), {}
    import dataclasses      # fd is about the box; its certificate is built on the cube (R36)
    cert = functional_dimension_certificate(compose_input_map(net, *cs) if cs is not None else sliced,
                                            dataclasses.replace(fd, domain=None),
                                            domain=(Q(-1), Q(1)), seconds=seconds, lps=lps,
                                            verify=False, report=cost)
    if report is not None and "upper" in cost:
        report["upper"] = cost["upper"]
    if sliced is not None:          # its fiber moves are the free coordinates' network's (R36 (b))
        cert.pop("fiber_moves", None)
        cert.pop("fiber_lower", None)
    cert["network"] = net.to_dict()
    cert["domain"] = {**cert["domain"], "input_map": {"lo": [q_json(Q(v)) for v in lo],
                                                      "hi": [q_json(Q(v)) for v in hi]}}
    if verify and cert["inputs"] and _check_fits(start, seconds, cost, report):
        require_valid(cert, _verify)
    return cert


CHECK_RATE = 1e10
"""Float64 operations per second assumed by the estimate of the checker's rank of the Jacobian
rows at the certificate's inputs (rows · N · min(rows, N) / 2 for the blocked elimination) when
the builder ranked none of them itself."""


CHECK_GRACE = 1.0
"""Seconds past the certificate's time the re-check may end (half the 2 s a timeout's result
may take past 1.05 times the timeout)."""


def _check_fits(start: float, seconds, cost: dict, report) -> bool:
    """Whether the certificate's re-check (``cost["check"]`` seconds, an estimate from the
    builder's own rank and checker calls) fits the time left of *seconds* from *start* (always,
    without a timeout).  When it does not, *report* (a dict, optional) gets ``"unchecked"``:
    the reason, for the user, who can run ``netfibers verify``; the re-check only guards against
    a bug of the builder, the checker's verdict is the user's to take."""
    if seconds is None or time.monotonic() + cost.get("check", 0.0) <= start + seconds + CHECK_GRACE:
        return True
    if report is not None:
        report["unchecked"] = (f"its re-check (about {cost.get('check', 0.0):.1f} s, a call no budget "
                               "stops) did not fit the timeout")
    return False


DIRECTIONS_CHECKS = 2
"""Under a timeout the proven directions' rank is taken twice more for the certificate (the
builder's bound and the checker's re-check of it) after the run's own: the upper bound is left
uncertified, with the reason, when the time left is below this many times the run's longest rank
of them (``details["directions_seconds"]``; 16-60-60-8 on a ball of radius 1/100 with
``--timeout 5``: 1.1 s each, the certificate had taken 4.4 s past the 1 s left)."""


def _certificate(net, fd, dom, seconds, lps, cost: dict) -> dict:
    """The certificate of :func:`functional_dimension_certificate`; *cost* gets ``"check"``: an
    estimate of the seconds of its re-check."""
    deadline = None if seconds is None else time.monotonic() + seconds   # (before the inputs are
    p = fd.details.get("prime", PRIME)                                  # thinned: 7.9 s on a 16-60-
    X, cost["check"] = _thinned_inputs(net, fd, p)                      # 60-8 ball, once past it)
    inputs = [[q_json(v) for v in x] for x in X]

    fiber = {}                      # the fiber's floor (R40), within the budget: its rank (and
    left = None if deadline is None else deadline - time.monotonic()   # the checker's) no budget stops
    if left is None or 3 * SECONDS_PER_ENTRY * floor_entries(net) < left:
        room = BLOCK_ENTRIES if left is None else min(
            BLOCK_ENTRIES, int(left / (3 * SECONDS_PER_ENTRY)) - floor_entries(net))
        moves, floor = certified_fiber_floor(net, dom, int(p), max(0, room))
        fiber = {"fiber_moves": moves, "fiber_lower": int(floor)}
        blocks = sum(len(e[2]) ** 2 * (net.widths[e[1]] + 1 + net.widths[e[1] + 2])
                     for e in moves if e[0] == "active_block")
        cost["check"] += SECONDS_PER_ENTRY * (floor_entries(net) + blocks)   # the checker's rank

    def certificate(**upper) -> dict:
        if "upper_directions" in upper:            # shared proofs stored once, referred to by index
            upper["upper_directions"], table = intern_shared(upper["upper_directions"])
            upper["shared_proofs"] = table or None
        return dimension_bounds_certificate(net, prime=int(p), inputs=inputs, lower=int(fd.lower),
                                            domain=domain_spec(dom), upper_reason=fd.reason,
                                            **fiber, **upper)

    if isinstance(dom, tuple) and dom[0] == dom[1] and fd.upper == fd.lower and len(X) == 1:
        return certificate(upper=int(fd.upper), upper_one_point=True)   # the rank at the input
    if fd.complete_regions and fd.exact and fd.details.get("rank_beside"):   # the value is the rank
        # on every region, ranked on the columns the proven directions leave: the regions,
        quick = _UpperEntries(net, fd, dom, deadline, lps).entries   # with the directions that
        regions = cover_regions(net, fd, dom, seconds, quick,        # need no search beside them
                                check=False)    # (checked once, in the whole certificate)
        if regions is not None:             # (the checker ranks the columns off their pivots)
            cost["check"] += _regions_check_seconds(net, regions, quick, p)
            return certificate(upper=int(fd.upper), upper_regions=regions, upper_directions=quick)
    need = DIRECTIONS_CHECKS * fd.details.get("directions_seconds", 0.0)
    if deadline is not None and time.monotonic() + need > deadline:     # the ranks cannot be stopped
        return certificate(uncertified_upper_reason=(
            f"the time left for the certificate ({max(0.0, deadline - time.monotonic()):.1f} s of the "
            f"timeout) is below what ranking the proven directions needs (about {need:.1f} s: the "
            "run's rank and the checker's, each a call no budget stops); a larger --timeout "
            "certifies the upper bound"))
    entries = _UpperEntries(net, fd, dom, deadline, lps)
    dirs, bound, missing = entries.run()
    cost["check"] += entries.check_seconds
    if bound <= fd.upper:       # re-checkable; lower than fd.upper when the run's rank of the
        # directions was cut by its budget or the searches here proved more facts: the claim is
        # the bound the checker re-derives (the caller prints it: ``cost["upper"]``)
        claim = int(bound) if fd.lower <= bound < fd.upper else int(fd.upper)
        if claim < fd.upper:
            cost["upper"] = claim
        return certificate(upper=claim, upper_directions=dirs)
    regions = None
    if fd.complete_regions:        # the upper bound is the exact rank over every region
        rank_seconds = _regions_check_seconds(net, fd.details.get("patterns") or (), [], p)
        if deadline is not None and time.monotonic() + 2 * rank_seconds > deadline:
            missing.append(f"the upper bound {fd.upper} is the exact rank at every linear region of a "
                           f"complete walk; its exact re-check on the regions (about {rank_seconds:.0f} s "
                           "twice, calls no budget stops) does not fit the time left")
        else:
            regions = cover_regions(net, fd, dom, None if deadline is None else
                                    max(1.0, deadline - time.monotonic()))
            if regions is None:
                missing.append(f"the upper bound {fd.upper} is the exact rank at every linear region "
                               "of a complete walk; the walk with Farkas multipliers (its cover "
                               "certificate) did not finish within the budget")
            else:
                cost["check"] += rank_seconds
    if regions is not None:
        return certificate(upper=int(fd.upper), upper_regions=regions)
    return certificate(uncertified_upper_reason="; ".join(
        [f"N - rank of the certifiable directions is {bound}, not the reported upper {fd.upper}"]
        + missing))


EXACT_CHECK_RATE = 5e8
"""Operations per second assumed by the estimate of the checker's exact rank of the rows on
listed regions (rows · columns · min(rows, columns); 16-60-60-8 on a ball of radius 1/100: 3 128
rows on 1 948 columns, 8.4 s by ``gfp.exact_rank``, the estimate 24 s)."""


_PATTERN_FACTS_LATE = ("the facts of the complete list of activation patterns: their check does "
                       "not fit the time left")


def _regions_check_seconds(net, regions, quick, p) -> float:
    """An estimate of the seconds of the checker's exact rank of the rows on *regions* (d + 1
    inputs each), on the columns off the pivots of the *quick* directions' vectors."""
    rows = len(regions) * (net.n_inputs + 1) * max(1, net.n_outputs)
    piv = pivot_columns(sparse_entry_vectors(net, quick), p) if quick else None
    cols = net.n_parameters - (len(piv) if piv is not None else 0)
    return rows * cols * min(rows, cols) / EXACT_CHECK_RATE


def _thinned_inputs(net, fd, p) -> tuple[list, float]:
    """The inputs of *fd*, or the shortest tried prefix whose rows reach ``fd.lower`` mod p, and
    an estimate of the seconds of the checker's rank of their rows (from the last rank taken
    here, scaled by the rows; else :data:`CHECK_RATE`)."""
    from .functional import RANK_ONLY       # (functional imports this module)
    X = [list(x) for x in fd.inputs]
    N, m = net.n_parameters, max(1, net.n_outputs)
    rows = len(X) * m
    estimate = rows * N * min(rows, N) / 2 / CHECK_RATE
    if fd.lower > 0 and X and N <= RANK_ONLY:   # (above: rows far from saturated)
        k = min(len(X), -(-fd.lower // m) + 16)
        while 2 * k <= len(X):         # (a prefix of more than half: not worth its rank)
            t0 = time.monotonic()
            Xk, masks = exact_masks(net, X[:k])
            if len(Xk) == k and rank_mod_p(jacobian_rows(net, Xk, masks, p), p) >= fd.lower:
                return X[:k], time.monotonic() - t0
            estimate = (time.monotonic() - t0) * len(X) / k
            k *= 2
    return X, estimate


def cover_regions(net: Network, fd: FunctionalDimension, dom, seconds: float | None,
                  directions=None, check: bool = True) -> list | None:
    """The linear regions of *net* on *dom* in the ``region_cover`` format (with Farkas
    multipliers), when the walk completes (at most one region more than the complete walk of
    *fd* found: a count, not the clock; *seconds*, when given, only stops it) and the checker's
    exact rank of the Jacobian rows on them is ``fd.upper``; else None."""
    state: dict = {}
    cap = len(fd.details.get("patterns") or ()) + 1
    regs = [r.to_json() for r in joint_regions([net], domain=dom, budget=Budget(seconds, cap),
                                               state=state, multipliers=True)]
    if not state.get("complete"):
        return None
    regs = jsonable(regs)
    if not check:
        return regs
    return regs if is_regions_rank(net, regs, dom, fd.upper, fd.inputs[:1], directions) else None


class _UpperEntries:
    """``upper_directions`` entries the checker re-derives from θ, N − rank of their vectors, and
    the facts behind ``fd.upper`` left without a certificate (one line each).

    Interval facts and exercise proofs first; then the facts of ``fd.details["proven"]`` (dead,
    always active, incoming) with emptiness / enumeration proofs searched again (recorded); then,
    when the complete activation-pattern list is known and the bound is still above
    ``fd.upper``, the pattern facts (dead, always active, masked) the same way.  Every entry is
    validated by the checker's own code before it is kept."""

    def __init__(self, net, fd, dom, deadline, lps):
        self.net, self.fd, self.dom = net, fd, dom
        self.deadline, self.lps_left = deadline, lps     # the deadline (a timeout) only stops
        L = net.depth
        self.names = [(l, i) for l in range(L - 1) for i in range(net.widths[l + 1])]
        bounds = preactivation_bounds(net, domain=dom)
        self.dead = {(l, i) for l, i in self.names if bounds[l][i][1] is not None and bounds[l][i][1] <= 0}
        self.active = {(l, i) for l, i in self.names
                       if bounds[l][i][0] is not None and bounds[l][i][0] >= 0} - self.dead
        self.entries = [["scale", l, i] for l, i in self.names]
        self.entries += [["dead", l, i] for l, i in sorted(self.dead)]
        self.entries += [["active", l, i] for l, i in sorted(self.active)]
        self.entries += [["duplicate", l, group] for l, group in duplicate_groups(net)]   # R34
        self.entries += [["opposite", l, pair] for l, pair in opposite_pairs(net)]
        self.missing: list = []
        self.masked: set = set()                   # neurons of the masked entries kept
        self.recorded: list = []                   # the run's proofs kept unchecked (add_recorded)
        self.point = isinstance(dom, tuple) and dom[0] == dom[1]   # proofs (open box) say nothing there
        self.check_seconds = 0.0                   # the last bound's checker call (seconds)
        self.last_bound = net.n_parameters         # the last bound (:meth:`bound`)

    def run(self) -> tuple[list, int, list]:
        fd = self.fd
        groups: dict = {}                          # the pairs of one shared proof: checked together
        for p_ in fd.details.get("exercise_proofs") or ():
            if isinstance(p_.get("shared"), dict):
                groups.setdefault(id(p_["shared"]), []).append(p_)
                continue
            p_ = self.phase_first(p_)
            self.add_free([p_])
        for group in groups.values():
            self.add_free(group)
        proven = fd.details.get("proven") or {}
        bab = proven.get("emptiness") or {}
        if self.deadline is not None:  # under a timeout: the run's proofs as they are, checked at once
            self.add_recorded(proven, bab)
        for g in sorted(proven.get("dead", ())):
            self.prove_neuron(*self.names[g], 1, "an exact phase search", bab.get(("dead", g)))
        for g in sorted(proven.get("active", ())):
            self.prove_neuron(*self.names[g], -1, "an exact phase search", bab.get(("active", g)))
        for (t, i), _ in sorted((proven.get("incoming") or {}).items()):
            proof = self.search({(t, i): 1}, leaves=True)
            if proof is None or not self.add(["incoming", t, i, proof]):
                self.missing.append(f"incoming directions of neuron ({t}, {i}): the enumeration of its "
                                    "active set was not recorded within the budget")
        for (t, i), fact in sorted((proven.get("fixed_successors") or {}).items()):
            if not self.add(["fixed_successors", t, i, list(fact["signs"]), {"shared": fact["proof"]}]):
                self.missing.append(f"the fixed signs of the successors of neuron ({t}, {i}): its proof "
                                    "does not check")
        for (t, i), proofs in sorted((proven.get("masked") or {}).items()):
            if self.add(["masked", t, i, list(proofs)]):
                self.masked.add((t, i))
            else:
                self.missing.append(f"neuron ({t}, {i}) is masked (an emptiness proof per successor), but "
                                    "the proofs do not check")
        b = self.bound()
        patterns = fd.details.get("patterns")
        if b > fd.upper and patterns:
            if self.fits():
                b = self.pattern_facts(patterns)
            else:
                self.missing.append(_PATTERN_FACTS_LATE)
        return self.entries + self.derived(), b, self.missing

    def fits(self) -> bool:
        """Under a deadline, whether one more check of all the directions (:meth:`bound`, one
        checker call no budget stops), as long as the last one, fits the time left (a 16-60-60-8
        net on a ball, ``--timeout 70 --certificate``: the pattern facts' two checks took 24 s
        past the deadline)."""
        return self.deadline is None or time.monotonic() + self.check_seconds <= self.deadline

    def search(self, targets, leaves=False):
        """An emptiness (or, with *leaves*, enumeration) proof for *targets*, or None."""
        if self.point or self.stopped():
            return None
        lv: list | None = [] if leaves else None
        found, _, refuted, order, used = phase_search(self.net, self.dom, targets, None,
                                                      max_lps=self.lps_left, deadline=self.deadline,
                                                      record=True, upto=max(t for t, _ in targets),
                                                      leaves=lv)
        self.lps_left -= used
        if found is not False:
            return None
        proof = {"targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
                 "domain": domain_json(self.dom), "order": [[t, j] for t, j in order], "refuted": refuted}
        if leaves:
            proof["leaves"] = [[list(v) for v in path] for path, _ in lv]
        return proof

    def phase_first(self, proof: dict) -> dict:
        """For a branch-and-bound proof that a parameter is never exercised: the phase-search
        proof when :func:`exercise` finds one within the budget (often shorter), else *proof*."""
        if "bab_tree" not in proof or self.point or self.stopped():
            return proof
        e = exercise(self.net, int(proof["parameter"]), domain=self.dom, max_lps=self.lps_left,
                     deadline=self.deadline, record=True)
        self.lps_left -= e.lps
        return e.proof if e.exercised is False and e.proof else proof

    def stopped(self) -> bool:
        """The LPs are spent (or the hard time limit, when one was given, has passed)."""
        return self.lps_left <= 0 or (self.deadline is not None and time.monotonic() > self.deadline)

    def add_free(self, proofs) -> None:
        """The ``free`` entries of *proofs* (one proof, or the pairs of one shared proof, checked
        together: the shared tree replayed once), kept when the checker accepts them all."""
        entries = [["free", int(p_["parameter"]), p_] for p_ in proofs]
        if isinstance(checked_directions_bound(self.net, entries, self.dom, self.fd.inputs[:1]), str):
            self.missing.extend(f"the proof that parameter {e[1]} is never exercised does not check"
                                + (" (a one-point box)" if self.point else "") for e in entries)
            return
        self.entries.extend(entries)

    def add(self, entry) -> bool:
        """Keep *entry* when the checker accepts it (with the dead-neuron proofs it may rely on)."""
        context = [e for e in self.entries if e[0] == "dead_proof"] if entry[0] == "masked" else []
        if isinstance(checked_directions_bound(self.net, context + [entry], self.dom, self.fd.inputs[:1]), str):
            return False
        self.entries.append(entry)
        return True

    def add_recorded(self, proven, bab) -> None:
        """The dead / always-active facts of *proven* with the decider's recorded proofs, kept
        unchecked: the checker replays them in :meth:`bound` with everything else (each replay of
        ACAS Xu's seven trees costs ~3 s, and the final check replays them again); if it rejects
        the directions then, :meth:`bound` leaves these out and says so."""
        facts = [(g, s) for s, key in ((1, "dead"), (-1, "active")) for g in sorted(proven.get(key, ()))
                 if bab.get((key, g)) is not None and self.names[g] not in self.dead | self.active]
        self.recorded = [["dead_proof" if s > 0 else "active_proof", *self.names[g],
                          bab[("dead" if s > 0 else "active", g)]] for g, s in facts]
        self.entries.extend(self.recorded)
        for g, s in facts:
            (self.dead if s > 0 else self.active).add(self.names[g])

    def prove_neuron(self, l, i, s, why, proof=None):
        """Add the dead (*s* = 1) / always-active (-1) fact of neuron (l, i) with a phase-search
        proof found here or else *proof* (the decider's branch-and-bound emptiness proof)."""
        if (l, i) in self.dead or (l, i) in self.active:   # (zero neurons are dead: interval [0, 0])
            return                  # (dead and active: z = 0 everywhere, no differentiable input)
        kind = "dead_proof" if s > 0 else "active_proof"
        found = self.search({(l, i): s})       # the phase-search proof first (often shorter)
        if found is not None and self.add([kind, l, i, found]):
            (self.dead if s > 0 else self.active).add((l, i))
            return
        if proof is not None and self.add([kind, l, i, proof]):
            (self.dead if s > 0 else self.active).add((l, i))
        else:
            self.missing.append(f"neuron ({l}, {i}) is {'dead' if s > 0 else 'always active'} by {why}, "
                                "but no proof was recorded within the budget")

    def derived(self) -> list:
        """Neurons dead by their inputs and unseen zero neurons (R35), silent and constant neurons
        (from the dead ones) and the GL blocks of the always-active ones."""
        out, dead = inputs_dead_entries(self.net, self.dead, self.active)                 # R35
        out += [["silent", l, i] for l, i in sorted(silent_set(self.net, dead) - dead)]
        out += [["constant", l, i] for l, i in constant_neurons(self.net, dead)]          # R34 (e)
        for l in range(self.net.depth - 1):
            block = sorted(i for t, i in self.active if t == l)
            if len(block) > 1:
                out.append(["block", l, block])
                out.append(["block_kernel", l, block])       # R34 (f)
            if any(t == l for t, _ in self.masked):          # R35 (e)
                out += [["masked_pair", l, pair] for pair in masked_pairs(self.net, l, self.active - dead,
                                                                          self.masked, dead)]
        return out

    def bound(self) -> int:
        self.last_bound = self._bound()
        return self.last_bound

    def _bound(self) -> int:
        t0 = time.monotonic()
        b = checked_directions_bound(self.net, self.entries + self.derived(), self.dom, self.fd.inputs[:1])
        self.check_seconds = time.monotonic() - t0
        if isinstance(b, str) and self.recorded:   # a recorded proof rejected (a decider bug): without them
            ids = {id(e) for e in self.recorded}
            self.entries = [e for e in self.entries if id(e) not in ids]
            for e in self.recorded:
                (self.dead if e[0] == "dead_proof" else self.active).discard((e[1], e[2]))
            self.recorded = []
            self.missing.append(f"internal: the run's recorded neuron proofs do not check ({b}); left out")
            return self.bound()
        if isinstance(b, str):          # not expected (every entry was validated): certify nothing
            self.missing.append(f"internal: the checker rejects the directions ({b})")
            return self.net.n_parameters
        return b

    def pattern_facts(self, patterns) -> int:
        """Dead / always-active / masked facts of the complete pattern list, with proofs."""
        net, L = self.net, self.net.depth
        flat = list(zip(*patterns))
        for g, (l, i) in enumerate(self.names):
            if not any(s > 0 for s in flat[g]):
                self.prove_neuron(l, i, 1, "the complete list of activation patterns")
            elif all(s > 0 for s in flat[g]):
                self.prove_neuron(l, i, -1, "the complete list of activation patterns")
        if not self.fits():             # (the entries added are each checked, and the final check
            self.missing.append(_PATTERN_FACTS_LATE)     # replays them; the bound claimed
            return self.last_bound                       # stays the last one checked)
        b = self.bound()
        k = 0
        for l in range(L - 1):
            for i in range(net.widths[l + 1]):
                if (b > self.fd.upper and (l, i) not in self.dead | self.active and l + 1 < L - 1
                        and is_masked(net, patterns, l, k, i)):
                    if not self.fits():
                        self.missing.append(f"neuron ({l}, {i}) is masked by the complete list of "
                                            "activation patterns, but its check does not fit the time left")
                        continue
                    V = net.weights[l + 1]
                    proofs = [self.search({(l, i): -1, (l + 1, j): 1}) for j in range(V.nrows)
                              if V[j, i] != 0 and (l + 1, j) not in self.dead]
                    if None in proofs or not self.add(["masked", l, i, proofs]):
                        self.missing.append(f"neuron ({l}, {i}) is masked by the complete list of "
                                            "activation patterns, but no proof was recorded within the budget")
                    else:
                        self.masked.add((l, i))
                        b = self.bound()
            k += net.widths[l + 1]
        return b
