r"""``sup |a − b|`` on an unbounded domain: finite or +∞, decided exactly (three-layer-fibers R28).

The domain ``P = {x : lo <= x <= hi (sides may be open), a_k·x <= b_k}`` has the recession cone
``C = {r : r_i >= 0 where lo_i is finite, r_i <= 0 where hi_i is finite, a_k·r <= 0}``.  The
bias-free difference ``f_0`` (every bias of ``D = a − b`` set to 0) is the recession function
of ``f = a − b``: ``sup_P |f| < ∞`` iff ``f_0 = 0`` on ``C`` (R28).  ``f_0`` is positively
homogeneous, so ``f_0 = 0`` on ``C`` iff ``max |f_0| = 0`` on the bounded ``C ∩ [−1, 1]^d``: one
branch-and-bound run (:func:`.diff.bounded_diff`, threshold 0) decides it, with a ``bab_bound``
certificate either way.

* ``f_0 = 0`` on C: finite.  Upper bound: ``P ⊆ B_q + C`` for a box ``B_q`` (the bounded sides of
  the box, one point per open side; or one point ``p`` with ``a·p + c <= 0`` for every row
  ``a·x + c >= 0`` of P when P has half-spaces), and ``|f(q + r)| <= E_L`` per output with
  ``E_0 = max_{q in B_q} |q|``, ``E_l = |W_l| E_{l−1} + |b_l|`` (relu is 1-Lipschitz, ``f_0(r) = 0``).
  Lower bound: exact values at points of P.
* ``|f_0(r)| > 0`` at ``r in C``: +∞, with a ray ``x0 + t r`` (``x0 in P``) and the exact ``t1`` from
  which the activation pattern of ``D`` along the ray is fixed; ``D_o`` is then ``u + t v`` with
  slope ``v = f_{0,o}(r) != 0``.

The certificate is a ``bab_recession`` (:mod:`semialgebraic.verify.bab_recession`).
"""

from __future__ import annotations

from algebra.kernel import difference_network
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q

from ..budget import Budget
from .diff import BabResult, bounded_diff, domain_point

__all__ = ["cone_domain", "bias_free", "apex_box", "deviation_bound", "ray_start", "unbounded_diff"]

_Z = Q(0)


def cone_domain(dom: Domain) -> Domain:
    """``C ∩ [−1, 1]^d`` for the recession cone ``C`` of *dom*.

    >>> cone_domain(Domain.orthant(2)).to_json()["lo"], cone_domain(Domain.orthant(2)).to_json()["hi"]
    (['0', '0'], ['1', '1'])
    """
    lo = [_Z if v is not None else Q(-1) for v in dom.lo]
    hi = [_Z if v is not None else Q(1) for v in dom.hi]
    return Domain(lo, hi, [(a, _Z) for a, _ in dom.halfspaces])


def bias_free(net: Network) -> Network:
    """*net* with every bias 0 (its recession function)."""
    return Network(list(net.weights), [[_Z] * len(b) for b in net.biases])


def apex_box(dom: Domain):
    """A box ``B_q`` (list of ``(lo, hi)``) with ``dom ⊆ B_q + C``, or None when none is found
    (half-spaces together with coordinates bounded on both sides)."""
    if not dom.halfspaces:
        out = []
        for lo, hi in zip(dom.lo, dom.hi):
            if lo is not None and hi is not None:
                out.append((lo, hi))
            else:
                v = lo if lo is not None else hi if hi is not None else _Z
                out.append((v, v))
        return out
    from ..lp import feasible
    rows = dom.rows()
    res = feasible(A_le=[list(r[:-1]) for r in rows], b_le=[-r[-1] for r in rows], n=dom.dim)
    if not res.feasible:
        return None
    return [(v, v) for v in res.point]


def deviation_bound(D: Network, qbox) -> list:
    """``E_L`` per output: ``|D(q + r) − D_0(r)| <= E_L`` for ``q in qbox`` and every ``r``."""
    e = [max(abs(lo), abs(hi)) for lo, hi in qbox]
    for W, b in zip(D.weights, D.biases):
        e = [sum((abs(w) * v for w, v in zip(row, e) if w != 0), _Z) + abs(bj)
             for row, bj in zip(W.to_rows(), b)]
    return e


def ray_start(D: Network, x0, r):
    """``(t1, u, v)``: from ``t = t1`` on, the activation pattern of ``D`` along ``x0 + t r`` is
    fixed and ``D(x0 + t r) = u + t v`` (exact; the rule the checker redoes)."""
    u, v = list(x0), list(r)
    t1 = _Z
    L = D.depth
    for l, (W, b) in enumerate(zip(D.weights, D.biases)):
        rows = W.to_rows()
        u = [sum((w * x for w, x in zip(row, u) if w != 0), _Z) + bj for row, bj in zip(rows, b)]
        v = [sum((w * x for w, x in zip(row, v) if w != 0), _Z) for row in rows]
        if l == L - 1:
            break
        for uj, vj in zip(u, v):
            if vj != 0:
                t1 = max(t1, -uj / vj)
        on = [vj > 0 or (vj == 0 and uj >= 0) for uj, vj in zip(u, v)]
        u = [uj if o else _Z for uj, o in zip(u, on)]
        v = [vj if o else _Z for vj, o in zip(v, on)]
    return t1, u, v


def _devs(a, b, x):
    return [abs(p - q) for p, q in zip(a.evaluate(x), b.evaluate(x))]


def _primal(a, b, dom: Domain, x0, cone: Domain):
    """The best exact value of ``max_o |a_o − b_o|`` at a few points of the domain: *x0* and
    ``x0 + t r`` for the corners ``r`` of ``C ∩ [−1, 1]^d`` (when in C), ``t = 1, 10, 100``."""
    cands = [tuple(x0)]
    d = dom.dim
    corners = [tuple(cone.hi[i] if (k >> i) & 1 else cone.lo[i] for i in range(d))
               for k in range(2 ** min(d, 6))]
    for r in corners:
        if cone.contains(r):
            cands += [tuple(x + t * ri for x, ri in zip(x0, r)) for t in (1, 10, 100)]
    best = None
    for x in cands:
        if dom.contains(x):
            devs = _devs(a, b, x)
            o = max(range(len(devs)), key=devs.__getitem__)
            if best is None or devs[o] > best[0]:
                best = (devs[o], x, o, devs)
    return best


def unbounded_diff(a: Network, b: Network, dom: Domain, budget: Budget, eps=None,
                   input_splits: bool | None = None) -> BabResult:
    """:class:`BabResult` on an unbounded domain (no self-check): +∞ with a certified ray, a
    certified finite interval, or (budget) the lower bound with ``upper`` None."""
    from ..certificates.bab_recession import bab_recession_certificate
    x0 = domain_point(dom)
    cone = cone_domain(dom)
    D = difference_network(a, b)
    sub = bounded_diff(bias_free(a), bias_free(b), cone, budget, Q(0), input_splits)
    lower, point, out, devs = _primal(a, b, dom, x0, cone)
    if sub.lower > 0:                                       # f_0 != 0 on C: unbounded
        r = sub.point
        t1, u, v = ray_start(D, x0, r)
        o = max(range(len(v)), key=lambda k: abs(v[k]))
        t = t1 if eps is None else max(t1, (eps + abs(u[o])) / abs(v[o]) + 1)
        t = max(t, (abs(u[o]) + 1) / abs(v[o]))             # a point where |a_o - b_o| >= 1
        point = tuple(x + t * ri for x, ri in zip(x0, r))
        devs = _devs(a, b, point)
        ray = {"x0": list(x0), "direction": list(r), "t1": t1, "output": o}
        cert = bab_recession_certificate(a, b, dom, ray=ray, lower=devs[o], point=point, output=o)
        from ..certificates._json import jsonable
        return BabResult(devs[o], None, point, o, [("inf", "inf") if k == o else (dk, None)
                                                   for k, dk in enumerate(devs)],
                         sub.nodes, True,
                         f"|a_{o} - b_{o}| grows without bound along the ray x0 + t·r, t >= t1 "
                         f"(the biases-free a - b is not 0 on the recession cone, R28)",
                         cert, unbounded=True,
                         ray={**jsonable(ray), "slope": str(v[o]), "constant": str(u[o])})
    if sub.upper is not None and sub.upper <= 0 and sub.lower <= 0:   # f_0 = 0 on C: bounded
        qbox = apex_box(dom)
        if qbox is not None:
            E = deviation_bound(D, qbox)
            upper = max(max(E), lower)
            cert = bab_recession_certificate(a, b, dom, cone=sub.certificate, decomposition=qbox,
                                             upper=upper, lower=lower, point=point, output=out)
            return BabResult(lower, upper, point, out, list(zip(devs, E)), sub.nodes,
                             lower == upper,
                             "lower = upper" if lower == upper else
                             "bounded (the biases-free a - b is 0 on the recession cone, R28); "
                             "upper bound from the biases propagated through |W|",
                             cert)
        reason = ("bounded (the biases-free a - b is 0 on the recession cone, R28), but no finite "
                  "bound for a domain mixing half-spaces and coordinates bounded on both sides")
    else:
        reason = f"boundedness not decided ({sub.reason}); no upper bound within the budget"
    cert = bab_recession_certificate(a, b, dom, lower=lower, point=point, output=out)
    return BabResult(lower, None, point, out, [(dk, None) for dk in devs], sub.nodes, False,
                     reason, cert)
