r"""Checker of ``bab_recession`` certificates: ``sup |a − b|`` on an unbounded domain is +∞, or
at most ``upper`` (three-layer-fibers R28).

Schema (version 1; built by :func:`semialgebraic.certificates.bab_recession_certificate`)::

    {"format": "netfibers.certificate", "type": "bab_recession", "schema_version": 1,
     "netfibers_version": "<str>", "claim": <one of the three below>,
     "a": <network>, "b": <network>,
     "domain": {"lo": [lo_i | null], "hi": [hi_i | null], "halfspaces": [{"a": [...], "b": b}]},
     "ray": {"x0": [...], "direction": [...], "t1": t1, "output": o},        # claim +inf
     "cone": <bab_bound certificate>, "decomposition": [[lo, hi], ...],     # claim <= upper
     "upper": u,
     "lower": l, "point": [...], "output": o}                              # optional (all claims)

Claims and checks (exact over Q, ``D = a − b`` by :func:`algebra.kernel.difference_network`):

* ``"sup_x |a_o(x) - b_o(x)| = +inf on the domain ..."``: ``x0`` lies in the domain and ``r`` in
  its recession cone ``C`` (``r_i >= 0`` where ``lo_i`` is finite, ``r_i <= 0`` where ``hi_i`` is,
  ``a_k·r <= 0``); along ``x0 + t r`` each layer's pre-activation is ``u + t v`` (layer 0:
  ``W x0 + b``, ``W r``), each hidden neuron taken active when ``v > 0`` or (``v = 0`` and
  ``u >= 0``), and ``u + t1 v`` must have the sign of ``v`` (or be 0) where ``v != 0``: then the
  pattern is the same for every ``t >= t1`` and ``D_o(x0 + t r) = u_o + t v_o``; the claim needs
  ``v_o != 0``.
* ``"max_o sup_x |a_o(x) - b_o(x)| <= upper on the domain ..."``: ``cone`` is a valid
  ``bab_bound`` certificate (checked by :mod:`.bab_bound`) of ``max |a_0 − b_0| <= u0`` with
  ``u0 <= 0`` for the networks ``a``, ``b`` with every bias 0, on the box ``C ∩ [−1, 1]^d`` (lo
  0 where the domain's lo is finite, else −1; hi 0 where its hi is finite, else 1) and the
  half-spaces ``a_k·r <= 0``: so the biases-free ``a − b`` is 0 on ``C`` (positive homogeneity).
  ``decomposition`` is a box ``B_q`` with ``domain ⊆ B_q + C``: without half-spaces, per
  coordinate ``B_q,i ⊇ [lo_i, hi_i]`` when both are finite, ``min B_q,i <= lo_i`` when only lo is,
  ``max B_q,i >= hi_i`` when only hi is; with half-spaces, ``B_q`` is one point ``p`` with
  ``a·p + c <= 0`` for every row ``a·x + c >= 0`` of the domain.  Then ``upper >= E_L,o`` for
  every output, ``E_0 = max_{q in B_q} |q|``, ``E_l = |W_l| E_{l−1} + |b_l|`` (the weights and
  biases of ``D``).
* ``"max_o sup_x |a_o(x) - b_o(x)| >= lower on the domain"``: only the point.

With ``point``: it lies in the domain and ``max_o |a_o − b_o| >= lower`` there.

Imports ``algebra`` and :mod:`.bab_bound` only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel import difference_network
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.kernel.domains import Domain
from algebra.rationals import Q

from . import bab_bound

__all__ = ["check"]

_Z = Q(0)
_q = bab_bound._q              # one parser of exact numbers for both checkers
_vec = bab_bound._qlist


def _domain(data, d):
    if not isinstance(data, dict) or set(data) - {"halfspaces"} != {"lo", "hi"}:
        raise InputError("domain must be {lo, hi, halfspaces}")
    if not isinstance(data["lo"], list) or not isinstance(data["hi"], list) or \
            len(data["lo"]) != d or len(data["hi"]) != d:
        raise InputError(f"domain lo and hi need {d} entries")
    for v in data["lo"] + data["hi"]:
        if v is not None:
            _q(v, "domain bound")
    hs = data.get("halfspaces", [])
    if not isinstance(hs, list) or not all(isinstance(h, dict) and set(h) == {"a", "b"} for h in hs):
        raise InputError("domain halfspaces must be a list of {'a': [...], 'b': b}")
    for h in hs:
        _vec(h["a"], d, "domain halfspaces a")
        _q(h["b"], "domain halfspaces b")
    return Domain.from_json(data)


def _in_cone(dom: Domain, r) -> bool:
    return all(sum((row[i] * r[i] for i in range(dom.dim)), _Z) >= 0 for row in dom.rows())


def _check_ray(D, dom: Domain, ray, m):
    if not isinstance(ray, dict) or set(ray) != {"x0", "direction", "t1", "output"}:
        raise InputError("ray holds x0, direction, t1, output")
    d = dom.dim
    x0, r = _vec(ray["x0"], d, "ray x0"), _vec(ray["direction"], d, "ray direction")
    t1, o = _q(ray["t1"], "ray t1"), ray["output"]
    if type(o) is not int or not 0 <= o < m:
        raise InputError("ray output out of range")
    if not dom.contains(x0):
        return False, "x0 is outside the domain"
    if not _in_cone(dom, r):
        return False, "the direction is not in the recession cone of the domain"
    u, v = x0, r
    L = D.depth
    for l, (W, b) in enumerate(zip(D.weights, D.biases)):
        rows = W.to_rows()
        u = [sum((w * x for w, x in zip(row, u)), _Z) + bj for row, bj in zip(rows, b)]
        v = [sum((w * x for w, x in zip(row, v)), _Z) for row in rows]
        if l == L - 1:
            break
        on = []
        for j, (uj, vj) in enumerate(zip(u, v)):
            at = uj + t1 * vj
            if (vj > 0 and at < 0) or (vj < 0 and at > 0):
                return False, f"the pattern of neuron ({l}, {j}) changes after t1"
            on.append(vj > 0 or (vj == 0 and uj >= 0))
        u = [uj if a else _Z for uj, a in zip(u, on)]
        v = [vj if a else _Z for vj, a in zip(v, on)]
    if v[o] == 0:
        return False, f"a_{o} - b_{o} has slope 0 along the ray"
    return True, f"sup |a_{o} - b_{o}| = +inf: it equals {u[o]} + t·{v[o]} for t >= {t1}"


def _check_bounded(cert, a, b, D, dom: Domain):
    d = dom.dim
    for key in ("cone", "decomposition", "upper"):
        if key not in cert:
            raise InputError(f"a bounded claim needs {key!r}")
    cone = cert["cone"]
    if not isinstance(cone, dict) or cone.get("type") != "bab_bound":
        raise InputError("cone must be a bab_bound certificate")
    a0, b0 = network_from_dict(cone.get("a"), "cone.a"), network_from_dict(cone.get("b"), "cone.b")
    for net, net0, name in ((a, a0, "a"), (b, b0, "b")):
        if net0.widths != net.widths or list(net0.weights) != list(net.weights) or \
                any(v != 0 for bias in net0.biases for v in bias):
            return False, f"the cone certificate's {name} is not {name} without biases"
    want_box = [[0 if lo is not None else -1, 0 if hi is not None else 1] for lo, hi in zip(dom.lo, dom.hi)]
    box = cone.get("box")
    if not isinstance(box, list) or len(box) != d or \
            not all(isinstance(p, list) and len(p) == 2 for p in box):
        raise InputError(f"the cone certificate's box must be {d} pairs [lo, hi]")
    if [[_q(p, "cone box"), _q(q, "cone box")] for p, q in box] != want_box:
        return False, "the cone certificate's box is not C ∩ [-1, 1]^d"
    want_hs = [(list(a_), _Z) for a_, _ in dom.halfspaces]
    got_hs = bab_bound._halfspaces(cone.get("halfspaces", []), d)
    if got_hs != want_hs:
        return False, "the cone certificate's half-spaces are not a_k·r <= 0"
    if cone.get("claim") != CLAIMS["bab_bound"][0] or _q(cone.get("upper"), "cone upper") > 0:
        return False, "the cone certificate does not bound max |a_0 - b_0| by 0"
    ok, why = bab_bound.check(cone)
    if not ok:
        return False, f"cone certificate: {why}"
    qbox = cert["decomposition"]
    if not isinstance(qbox, list) or len(qbox) != d or not all(isinstance(p, list) and len(p) == 2 for p in qbox):
        raise InputError(f"decomposition must be {d} pairs [lo, hi]")
    qbox = [(_q(p, "decomposition"), _q(q, "decomposition")) for p, q in qbox]
    if any(p > q for p, q in qbox):
        return False, "an empty decomposition interval"
    if dom.halfspaces:
        if any(p != q for p, q in qbox):
            return False, "with half-spaces the decomposition is one point"
        p = [lo for lo, _ in qbox]
        if any(sum((row[i] * p[i] for i in range(d)), _Z) + row[-1] > 0 for row in dom.rows()):
            return False, "the point p of the decomposition has a row a·p + c > 0"
    else:
        for i, ((lo, hi), (p, q)) in enumerate(zip(zip(dom.lo, dom.hi), qbox)):
            if (lo is not None and p > lo) or (hi is not None and q < hi):
                return False, f"the decomposition box misses coordinate {i} of the domain"
    e = [max(abs(p), abs(q)) for p, q in qbox]
    for W, bias in zip(D.weights, D.biases):
        e = [sum((abs(w) * v for w, v in zip(row, e)), _Z) + abs(bj) for row, bj in zip(W.to_rows(), bias)]
    upper = _q(cert["upper"], "upper")
    if max(e) > upper:
        return False, f"the bias bound {max(e)} exceeds the claimed upper bound {upper}"
    return True, f"max_o sup |a_o - b_o| <= {upper} on the domain (R28)"


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "bab_recession")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        return False, "a and b have different signatures"
    d, m = a.n_inputs, a.n_outputs
    dom = _domain(cert["domain"], d)
    claims = CLAIMS["bab_recession"]
    lower = None
    if "lower" in cert or "point" in cert:
        if "lower" not in cert or "point" not in cert:
            raise InputError("'lower' and 'point' come together")
        lower = _q(cert["lower"], "lower")
        x = _vec(cert["point"], d, "point")
        if not dom.contains(x):
            return False, "the point is outside the domain"
        dev = max(abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x)))
        if dev < lower:
            return False, f"|a - b| at the point is {dev}, below the claimed lower bound {lower}"
    D = difference_network(a, b)
    if cert["claim"] == claims[0]:
        if "ray" not in cert or "cone" in cert:
            raise InputError("an unbounded claim holds a ray (and no cone)")
        return _check_ray(D, dom, cert["ray"], m)
    if "ray" in cert:
        raise InputError("only the unbounded claim holds a ray")
    if cert["claim"] == claims[2]:
        if lower is None or "cone" in cert:
            raise InputError("a lower-bound claim holds lower and point (and no cone)")
        return True, f"max |a - b| >= {lower} (attained at the point)"
    if lower is not None and lower > _q(cert.get("upper", 0), "upper"):
        return False, "the point's deviation exceeds the claimed upper bound"
    return _check_bounded(cert, a, b, D, dom)
