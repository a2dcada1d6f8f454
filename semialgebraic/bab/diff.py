r"""``max_o sup_{x in domain} |a_o(x) − b_o(x)|`` by exact branch and bound, with a certificate.

Bounded domains (boxes, balls, box ∩ half-spaces) go to the search (:mod:`.search`); unbounded
ones (the orthant, half-spaces without a box, all of R^d) to :mod:`.recession`, which decides
exactly whether the supremum is finite (three-layer-fibers R28)."""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass

from algebra.exceptions import InputError
from algebra.kernel import difference_network
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q

from ..budget import Budget, BudgetExhausted
from ..exceptions import CertificateError
from .primal import float_candidates
from .search import Engine, bound_objective

__all__ = ["BabResult", "diff_bounds", "epsilon_equivalent", "as_domain", "domain_point", "bounded_diff"]

_SEARCH_SHARE = 0.85    # of a timeout, for the search; the rest for re-checking its certificate


class _Share(Budget):
    """A share of an outer budget's remaining time; exhausted also when the outer one is
    (e.g. interrupted by Ctrl-C)."""

    __slots__ = ("outer",)

    def __init__(self, outer: Budget, share: float):
        super().__init__(share * outer.remaining(), outer.max_regions)
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
    certificate: dict
    checked: bool | None = None      # True: re-checked in-process; None: not (budget / no check)
    unbounded: bool = False
    ray: dict | None = None

    def to_json(self) -> dict:
        inf = self.unbounded
        out = {"lower": "inf" if inf else str(self.lower),
               "upper": "inf" if inf else (None if self.upper is None else str(self.upper)),
               "complete": self.complete,
               "max_deviation": "inf" if inf else q_json(self.lower),
               "point": [q_json(v) for v in self.point], "output": self.output,
               "per_output": [{"lower": _bound_json(lo, inf), "upper": _bound_json(hi, inf)}
                              for lo, hi in self.per_output],
               "nodes": self.nodes, "reason": self.reason, "method": "branch and bound",
               "certificate_checked": bool(self.checked)}
        if self.ray is not None:
            out["ray"] = self.ray
        return out


def _bound_json(v, inf=False):
    """One end of a per-output interval as JSON: exact string, ``"inf"`` (+∞) or null (unknown)."""
    if v == "inf":
        return "inf"
    return None if v is None else str(v)


def _box(box, d):
    if isinstance(box, tuple) and len(box) == 2 and not isinstance(box[0], (tuple, list)):
        box = [box] * d
    out = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if len(out) != d or any(lo > hi for lo, hi in out):
        raise InputError(f"the box needs {d} intervals lo <= hi")
    return out


def as_domain(domain, d: int) -> Domain:
    """*domain* as a :class:`~algebra.kernel.domains.Domain`: a Domain, a cube ``(lo, hi)`` or a
    list of per-coordinate ``(lo, hi)``."""
    if isinstance(domain, Domain):
        if domain.dim != d:
            raise InputError(f"the domain has dimension {domain.dim}, the networks take {d} inputs")
        return domain
    return Domain.from_box(_box(domain, d))


def domain_point(dom: Domain):
    """An exact point of the domain (exact LP); :class:`InputError` when the domain is empty
    (an exact Motzkin certificate proved it)."""
    rows = dom.rows()
    if not rows:
        return tuple(Q(0) for _ in range(dom.dim))
    if not dom.halfspaces and dom.box is not None:
        return tuple((lo + hi) / 2 for lo, hi in dom.box)
    from ..lp import feasible
    res = feasible(A_le=[[-v for v in r[:-1]] for r in rows], b_le=[r[-1] for r in rows], n=dom.dim)
    if not res.feasible:
        raise InputError("the domain is empty (its box and half-spaces have no common point)")
    return tuple(res.point)


def diff_bounds(a: Network, b: Network, box, *, timeout: float | None = None,
                budget: Budget | None = None, epsilon=None, verify: bool = True,
                input_splits: bool | None = None) -> BabResult:
    """Certified interval on ``max_o sup_{x in domain} |a_o(x) − b_o(x)|``.

    *box* is the domain: ``(lo, hi)`` (a cube), a list of per-coordinate ``(lo, hi)`` or a
    :class:`~algebra.kernel.domains.Domain` (box ∩ half-spaces, the orthant, all of R^d, a box
    open on some sides).  A bounded domain goes to branch and bound (half-spaces enter the LP
    relaxation); an unbounded one is first decided bounded or not (:mod:`.recession`).  With
    *epsilon*, the search stops at a point where ``|a − b| > epsilon`` and closes nodes bounded
    by it.  *input_splits* (default: input dimension <= 8) lets the search split input
    coordinates.

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    >>> r = diff_bounds(a, b, (-1, 2))
    >>> r.lower, r.upper, r.complete
    (1, 1, True)
    >>> diff_bounds(a, b, Domain.orthant(1)).to_json()["upper"]
    'inf'
    """
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures {a.signature} and {b.signature}")
    dom = as_domain(box, a.n_inputs)
    budget = budget or Budget(timeout)
    outer = budget
    if verify and budget.timeout is not None:
        # the independent check of the certificate runs after the search, in what is left
        budget = _Share(outer, _SEARCH_SHARE)
    eps = None if epsilon is None else Q(epsilon)
    if None in dom.lo or None in dom.hi:
        from .recession import unbounded_diff
        r = unbounded_diff(a, b, dom, budget, eps, input_splits)
    else:
        r = bounded_diff(a, b, dom, budget, eps, input_splits)
    if budget.interrupted:
        outer.interrupt()
    if verify:
        r.checked = _self_check(r.certificate, outer)
    if budget is not outer and budget.reason is not None and budget.reason.startswith("timeout"):
        r.reason = r.reason.replace(f"timeout of {budget.timeout:g} s",
                                    f"timeout of {outer.timeout:g} s")
    return r


_NO_UPPER = "no upper bound within the budget"


def bounded_diff(a: Network, b: Network, dom: Domain, budget: Budget, eps=None,
                 input_splits: bool | None = None) -> BabResult:
    """Branch and bound on a bounded domain (a box, or a box ∩ half-spaces), no self-check."""
    d, m = a.n_inputs, a.n_outputs
    box = list(zip(dom.lo, dom.hi))
    halfspaces = dom.halfspaces
    x0 = domain_point(dom) if halfspaces else None
    D = difference_network(a, b)
    Ws = [W.to_rows() for W in D.weights]
    bs = [list(bv) for bv in D.biases]
    objectives, per_output, nodes = [], [], 0
    best = None
    complete, reasons, rootless = True, [], False
    with budget.active():            # the bounds' inner loops stop at the deadline
        try:
            # the differential bounds pair neuron j of a with neuron j of b: one shape only
            engine = Engine(Ws, bs, paired=a.widths == b.widths, halfspaces=halfspaces)
        except KeyboardInterrupt:
            budget.interrupt()
            engine = None
        for o in range(m):
            if engine is None or rootless:
                break
            pair = []
            for s in (1, -1):
                c = [Q(0)] * m
                c[o] = Q(s)
                value = _objective(D, o, s, dom, x0)
                start = [] if x0 is None else [x0]
                if not budget.exhausted():
                    try:
                        start += float_candidates(Ws, bs, box, o, s, seed=o)
                    except KeyboardInterrupt:
                        budget.interrupt()
                ob = bound_objective(Ws, bs, box, c, value, budget=budget, start=start,
                                     stop_above=eps, prune_at=eps, engine=engine,
                                     input_splits=input_splits)
                nodes += ob.nodes
                complete = complete and ob.complete
                if ob.reason and not ob.complete:
                    reasons.append(ob.reason)
                pair.append(ob)
                if ob.upper is None:
                    rootless = True
                objectives.append({"output": o, "sign": s, "upper": ob.upper, "tree": ob.tree})
                if best is None or ob.lower > best[0]:
                    best = (ob.lower, ob.point, o)
                if rootless or (eps is not None and ob.lower > eps):
                    break
            if not rootless:
                per_output.append((max(p.lower for p in pair), max(p.upper for p in pair)))
            if eps is not None and best[0] > eps:
                break
    if best is None:                 # not even the engine was built: a point of the domain
        x = x0 if x0 is not None else tuple((lo + hi) / 2 for lo, hi in box)
        devs = [abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))]
        o = max(range(m), key=devs.__getitem__)
        best = (devs[o], x, o)
        reasons.append(f"{budget.reason} before the bounds were prepared")
    lower, point, out = best
    refuted = eps is not None and lower > eps
    unbounded = engine is None or rootless    # no certified upper bound (budget before a root)
    if unbounded and not refuted:
        reasons.append(_NO_UPPER)
    if refuted or unbounded:
        complete = False if unbounded and not refuted else complete
        upper = None if unbounded else max(max(hi for _, hi in per_output), lower)
    else:
        upper = max(hi for _, hi in per_output)
    from ..certificates.bab_bound import bab_bound_certificate
    if refuted or unbounded:         # only the lower bound is claimed (and certified)
        cert = bab_bound_certificate(a, b, box, [], upper if upper is not None else lower, lower,
                                     point, out, epsilon=eps, complete_cover=False,
                                     halfspaces=halfspaces)
    else:
        cert = bab_bound_certificate(a, b, box, objectives, upper, lower, point, out,
                                     epsilon=eps, complete_cover=True, halfspaces=halfspaces)
    if eps is None:
        complete = upper is not None and lower == upper
    reason = ("lower = upper" if complete and eps is None else
              "; ".join(dict.fromkeys(reasons)) or ("the bound holds" if eps is not None else ""))
    return BabResult(lower, upper, point, out, per_output, nodes, complete, reason, cert)


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
    """Re-check *cert* with the independent checker (through :func:`require_valid`) in the time
    *outer* has left: True (valid), None (not re-checked: no time, Ctrl-C, or the check did not
    finish in time); an invalid certificate raises :class:`CertificateError` (a bug of the
    search)."""
    from ..certificates import require_valid
    from ..verify import verify as _verify
    left = outer.remaining()
    if outer.interrupted:
        return None
    if left is None:
        require_valid(cert, _verify)
        return True
    if left <= 0.05 or threading.current_thread() is not threading.main_thread():
        return None
    fired = []

    def _alarm(signum, frame):
        fired.append(True)
        raise BudgetExhausted("the budget ran out during the certificate's self-check")
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, left)
        try:
            require_valid(cert, _verify)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
    except BudgetExhausted:
        if fired:
            return None
        raise
    except CertificateError:
        if fired:                    # the alarm fired inside the checker: never trust its answer
            return None
        raise
    finally:
        signal.signal(signal.SIGALRM, old)
    return None if fired else True


def epsilon_equivalent(a: Network, b: Network, box, epsilon, *, timeout: float | None = None,
                       budget: Budget | None = None, verify: bool = True):
    """Decide ``max_o max_{x in box} |a_o − b_o| <= epsilon`` exactly.

    Returns ``(answer, result)``: True (the certificate proves the bound), False (``result.point``
    has ``|a − b| > epsilon``) or None (budget).
    """
    r = diff_bounds(a, b, box, timeout=timeout, budget=budget, epsilon=epsilon, verify=verify)
    eps = Q(epsilon)
    if r.lower > eps:
        return False, r
    if r.upper is not None and r.upper <= eps:
        return True, r
    return None, r
