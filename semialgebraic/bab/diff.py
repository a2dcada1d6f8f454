r"""``max_o max_{x in box} |a_o(x) − b_o(x)|`` by exact branch and bound, with a certificate."""

from __future__ import annotations

from dataclasses import dataclass

from algebra.exceptions import InputError
from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q

from ..budget import Budget
from ..exceptions import CertificateError
from .primal import float_candidates
from .search import Engine, bound_objective

__all__ = ["BabResult", "diff_bounds", "epsilon_equivalent"]

_SEARCH_SHARE = 0.5     # of a timeout, for the search; the rest for re-checking its certificate


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
    """Certified ``lower <= max_o max_x |a_o − b_o| <= upper``; ``point``/``output`` attain lower."""

    lower: Q
    upper: Q
    point: tuple
    output: int
    per_output: list
    nodes: int
    complete: bool
    reason: str
    certificate: dict

    def to_json(self) -> dict:
        return {"lower": str(self.lower), "upper": str(self.upper), "complete": self.complete,
                "max_deviation": q_json(self.lower), "point": [q_json(v) for v in self.point],
                "output": self.output,
                "per_output": [{"lower": str(lo), "upper": str(hi)} for lo, hi in self.per_output],
                "nodes": self.nodes, "reason": self.reason, "method": "branch and bound"}


def _box(box, d):
    if isinstance(box, tuple) and len(box) == 2 and not isinstance(box[0], (tuple, list)):
        box = [box] * d
    out = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if len(out) != d or any(lo > hi for lo, hi in out):
        raise InputError(f"the box needs {d} intervals lo <= hi")
    return out


def diff_bounds(a: Network, b: Network, box, *, timeout: float | None = None,
                budget: Budget | None = None, epsilon=None, verify: bool = True,
                input_splits: bool | None = None) -> BabResult:
    """Certified interval on ``max_o max_{x in box} |a_o(x) − b_o(x)|``.

    *box* is ``(lo, hi)`` (a cube) or a list of per-coordinate ``(lo, hi)``.  With *epsilon*,
    the search stops at a point where ``|a − b| > epsilon`` and closes nodes bounded by it.
    *input_splits* (default: input dimension <= 8) lets the search split input coordinates.

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    >>> r = diff_bounds(a, b, (-1, 2))
    >>> r.lower, r.upper, r.complete
    (1, 1, True)
    """
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures {a.signature} and {b.signature}")
    d, m = a.n_inputs, a.n_outputs
    box = _box(box, d)
    budget = budget or Budget(timeout)
    outer = budget
    if verify and budget.timeout is not None:
        # the independent check of the certificate runs after the search, inside the same budget
        budget = _Share(outer, _SEARCH_SHARE)
    D = difference_network(a, b)
    Ws = [W.to_rows() for W in D.weights]
    bs = [list(bv) for bv in D.biases]
    eps = None if epsilon is None else Q(epsilon)
    engine = Engine(Ws, bs, paired=True)
    objectives, per_output, nodes = [], [], 0
    best = None
    complete, reasons = True, []
    for o in range(m):
        pair = []
        for s in (1, -1):
            c = [Q(0)] * m
            c[o] = Q(s)

            def value(x, o=o, s=s):
                return s * D.evaluate(x)[o]
            start = float_candidates(Ws, bs, box, o, s, seed=o)
            ob = bound_objective(Ws, bs, box, c, value, budget=budget, start=start,
                                 stop_above=eps, prune_at=eps, engine=engine,
                                 input_splits=input_splits)
            nodes += ob.nodes
            complete = complete and ob.complete
            if ob.reason and not ob.complete:
                reasons.append(ob.reason)
            pair.append(ob)
            objectives.append({"output": o, "sign": s, "upper": ob.upper, "tree": ob.tree})
            if best is None or ob.lower > best[0]:
                best = (ob.lower, ob.point, o)
            if eps is not None and ob.lower > eps:
                break
        per_output.append((max(p.lower for p in pair), max(p.upper for p in pair)))
        if eps is not None and best[0] > eps:
            break
    lower, point, out = best
    refuted = eps is not None and lower > eps
    upper = None if refuted else max(hi for _, hi in per_output)
    if refuted:
        upper = max(max(hi for _, hi in per_output), lower)
    from ..certificates.bab_bound import bab_bound_certificate
    cert = bab_bound_certificate(a, b, box, objectives, upper, lower, point, out,
                                 epsilon=eps, complete_cover=not refuted)
    if verify and not refuted:
        from ..verify import verify as _verify
        ok, why = _verify(cert)
        if not ok:
            raise CertificateError("bab_bound", why)
    if budget is not outer and budget.reason is not None and budget.reason.startswith("timeout"):
        reasons = [f"timeout of {outer.timeout:g} s reached" if r.startswith("timeout") else r
                   for r in reasons]
    if eps is None:
        complete = lower == upper
    reason = ("lower = upper" if complete and eps is None else
              "; ".join(dict.fromkeys(reasons)) or ("the bound holds" if eps is not None else ""))
    return BabResult(lower, upper, point, out, per_output, nodes, complete, reason, cert)


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
    if r.upper <= eps:
        return True, r
    return None, r
