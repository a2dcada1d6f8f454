r"""Checker of ``bab_recession`` certificates: ``sup |a − b|`` on an unbounded domain is +∞, or
at most ``upper`` (three-layer-fibers R28, R29, R33).

Schema (version 1; built by :func:`semialgebraic.certificates.bab_recession_certificate`)::

    {"format": "netfibers.certificate", "type": "bab_recession", "schema_version": 1,
     "netfibers_version": "<str>", "claim": <one of the three below>,
     "a": <network>, "b": <network>,
     "domain": {"lo": [lo_i | null], "hi": [hi_i | null], "halfspaces": [{"a": [...], "b": b}]},
     "ray": {"x0": [...], "direction": [...], "t1": t1, "output": o},        # claim +inf
     "cone": <bab_bound certificate>, "decomposition": [[lo, hi], ...],     # claim <= upper (R28)
     "body": <bab_bound certificate>, "tail": {"radius": R, "faces": [...],
                                                "bound": t},                # or (R29)
     "constant": {"layer": l},                                              # or (pruned)
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
  ``max B_q,i >= hi_i`` when only hi is; with half-spaces, ``B_q,i ⊇ [lo_i, hi_i]`` on the
  coordinates ``I`` bounded on both sides and one point ``p_j`` on the others ``J``, with
  ``g_J·p_J + max_{x_I in B_q,I} g_I·x_I + c <= 0`` for every row ``g·x + c >= 0`` of the
  domain with ``g_J != 0`` (for ``I`` empty: ``g·p + c <= 0``).  Then ``upper >= E_L,o`` for
  every output, ``E_0 = max_{q in B_q} |q|``, ``E_l = |W_l| E_{l−1} + |b_l|`` (the weights and
  biases of ``D``).
* the same claim by three-layer-fibers R29 with ``body`` and ``tail`` instead of ``cone`` and
  ``decomposition``: ``body`` is a valid ``bab_bound`` certificate (upper-bound claim) for these
  same ``a`` and ``b`` on the box ``[lo_i or −R, hi_i or R]`` (an open side closed at ``∓R``)
  with the domain's half-spaces, its ``upper <= upper``; ``tail`` covers every point with
  ``‖x‖∞ >= R``: ``faces`` has ``2d`` entries, ``(i, +1), (i, −1)`` for ``i = 0..d−1``, each null
  exactly when ``±1`` lies outside ``[max(−1, min(0, lo_i/R)), min(1, max(0, hi_i/R))]`` (``−1``
  or ``1`` for an open side), else a tree over the box of directions ``u`` with ``u_i = ±1`` and
  every other ``u_j`` in that range: ``{"split": [k, mid], "children": [u_k <= mid, u_k >=
  mid]}`` (``mid`` inside the cell), ``{"empty": k}`` (the domain's half-space ``k``, ``g·x <=
  c``, written ``−g·x + c >= 0``: ``max_cell (−g)·u + max(0, c/R) < 0``) or ``{"bound": t_c}``:
  with the homogenised intervals (``u`` in the cell, biases times ``s in [0, 1/R]``) of ``a``
  and ``b``, the difference ``ρ = z_a − z_b`` runs as ``ρ_0 = Δbias_0``, ``ρ_l = W_l g + Δbias_l``
  with ``g_j = ρ_j`` when both neurons j are active (interval lo >= 0), ``0`` when both are
  inactive (hi <= 0), else the hull of ``0`` and ``ρ_j``, when ``a`` and ``b`` have the same
  widths and weights (only biases differ); and for any weights by R29's stable cells: with
  ``M^a_0 = W^a_0``, ``c^a_0 = β^a_0`` and, under the pattern so far, ``M^a_l = W^a_l M^a_{l−1}``,
  ``c^a_l = W^a_l c^a_{l−1} + β^a_l``, every hidden neuron's range of ``M^a_l u + c^a_l s``
  over the cell and ``s in [0, 1/R]`` must have lo >= 0 (active: its rows kept) or hi <= 0
  (inactive: its rows 0), likewise for ``b``; then ``(M^a_L − M^b_L) u`` must be 0 on the cell
  and the cell's bound is ``max_o |c^a_L − c^b_L|``; the smaller of the rules that apply (a cell
  where neither applies is refused); ``t_c <= t <= upper``.
* the same claim by three-layer-fibers R33 with ``tail`` ``{"kind": "homogenised", "radius":
  R, "faces": [...], "bound": t}``: ``faces`` has ``2d`` entries ``(i, +1), (i, −1)``, null
  exactly where R29's root cell is (no such face), else ``{"i": i, "sign": ±1, "M": M,
  "certificate": <bab_bound>}`` with ``M <= t``: the checker rebuilds the face network ``A``
  (a and b of different depths first made of one depth: the shallower one's output layer
  ``(W, β)`` becomes ``[W; −W]``, ``[β; −β]`` then ``[I, −I]``, until the depths agree;
  inputs ``(u_{−i}, s)``; hidden layer ``l``: a's neurons, b's, then ``relu(s)``; every bias
  times ``s``, ``u_i = ±1`` in the first layer's constant; then ``X_o − M s`` and ``−X_o − M s``,
  ``X = `` a's output row − b's; output ``relu(X_o − M s) + relu(−X_o − M s)``) and the zero
  ``B`` (one zero neuron per hidden layer) from a, b, i, sign, M, and the face's box (R29's root
  cell without coordinate ``i``, then ``s in [0, 1/R]``) and half-spaces (every domain row
  ``g·x + c >= 0`` as ``−(g_{−i}·u + c s) <= g_i·sign`` unless the box implies it) from the
  domain and R, and requires the certificate's networks, box and half-spaces to be exactly
  these, its claim an upper bound ``<= 0`` that :mod:`.bab_bound` accepts; the body as above.
* the same claim with ``constant`` (and ``upper``, ``lower``, ``point``; no cone, body, tail or
  decomposition): a and b both have hidden layer ``l`` (``1 <= l <`` either depth) of width 0,
  so the layer after it sees its biases alone and each network is a constant on R^d; then
  ``a − b`` is the constant ``c = a(point) − b(point)`` and ``upper >= max_o |c_o|`` (any
  domain, bounded or not; the point must lie in it as always).
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
from algebra.network import Network
from algebra.rationals import Q

from . import bab_bound
from .bab_bound import point_reason

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
    return True, (f"sup |a_{o} - b_{o}| = +inf: along x0 + t·direction, a_{o} - b_{o} = "
                  f"{u[o]} + t·{v[o]} for t >= {t1}")      # (the signed difference: s51 F5)


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
        fixed = [lo is not None and hi is not None for lo, hi in zip(dom.lo, dom.hi)]
        for i, t in enumerate(fixed):
            (p, q), lo, hi = qbox[i], dom.lo[i], dom.hi[i]
            if t and (p > lo or q < hi):
                return False, f"the decomposition box misses coordinate {i} of the domain"
            if not t and p != q:
                return False, f"the decomposition is one point on coordinate {i} (not bounded on both sides)"
        for row in dom.rows():
            # x = (x_I, p_J) + r with r in C needs g_J·p_J <= −c − max over the box of g_I·x_I
            on_j = sum((row[i] * qbox[i][0] for i in range(d) if not fixed[i]), _Z)
            worst = sum((max(row[i] * qbox[i][0], row[i] * qbox[i][1]) for i in range(d) if fixed[i]), _Z)
            if any(row[i] != 0 for i in range(d) if not fixed[i]) and on_j + worst + row[-1] > 0:
                return False, "the point p of the decomposition has a row g_J·p + max g_I·x_I + c > 0"
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


def _dot(row, ivs, const=_Z):
    """The exact interval of ``row · v + const`` for ``v`` in the boxes *ivs*."""
    lo = hi = const
    for w, (p, q) in zip(row, ivs):
        if w != 0:
            lo += w * (p if w > 0 else q)
            hi += w * (q if w > 0 else p)
    return lo, hi


def _cell_bound(a, b, box, sigma):
    """``max_o |a_o − b_o|`` on the tail of one cell of directions *box* (``s in [0, sigma]``):
    the smaller of R29's ρ rule (same weights) and its stable-cell rule (any weights); None
    when neither applies."""
    got = _stable_cell(a, b, box, sigma)
    if a.widths == b.widths and all(Wa == Wb for Wa, Wb in zip(a.weights, b.weights)):
        t = _rho_cell(a, b, _hom_signs(a, box, sigma), _hom_signs(b, box, sigma),
                      _hom_caps(a, box, sigma), _hom_caps(b, box, sigma))
        got = t if got is None else min(got, t)
    return got


def _hom_signs(net, box, sigma):
    """The homogenised pre-activation intervals of *net*'s hidden layers (``u`` in *box*, each
    bias times ``s in [0, sigma]``)."""
    h, out = list(box), []
    for W, bias in list(zip(net.weights, net.biases))[:-1]:
        z = []
        for row, c in zip(W.to_rows(), bias):
            p, q = _dot(row, h)
            z.append((p + min(_Z, c * sigma), q + max(_Z, c * sigma)))
        out.append(z)
        h = [(max(p, _Z), max(q, _Z)) for p, q in z]
    return out


def _hom_caps(net, box, sigma):
    """Per hidden layer, a bound of each neuron's ``relu(z)`` at every point ``u/s`` of the
    cell's tail, or None.  The homogenised pre-activation lies in ``[p_lo + s q_lo, p_hi + s
    q_hi]`` (``p`` the part of the directions, ``q`` of the biases); a neuron of both signs is
    replaced by ``[0, max(p_hi, 0)]``, ``[0, max(q_hi, 0)]``, one always off by 0; then
    ``relu(z) = relu(z_h)/s <= max(q_hi, 0)`` whenever ``p_hi <= 0``."""
    p_iv, q_iv, caps = list(box), [(_Z, _Z) for _ in box], []
    for W, bias in list(zip(net.weights, net.biases))[:-1]:
        layer, np_, nq = [], [], []
        for row, c in zip(W.to_rows(), bias):
            p, q = _dot(row, p_iv), _dot(row, q_iv, c)
            if p[0] + min(_Z, q[0] * sigma) >= 0:
                pass
            elif p[1] + max(_Z, q[1] * sigma) <= 0:
                p, q = (_Z, _Z), (_Z, _Z)
            else:
                p, q = (_Z, max(p[1], _Z)), (_Z, max(q[1], _Z))
            np_.append(p)
            nq.append(q)
            layer.append(max(q[1], _Z) if p[1] <= 0 else None)
        caps.append(layer)
        p_iv, q_iv = np_, nq
    return caps


def _rho_cell(a, b, za, zb, ca, cb):
    """R29's ρ rule (a and b of the same weights); after a layer's relu, ``relu(z_a) −
    relu(z_b)`` is also kept within ``[−cap_b, cap_a]`` (:func:`_hom_caps`)."""
    rho = None
    n_layers = a.depth
    for l in range(n_layers):
        rows = a.weights[l].to_rows()
        ba, bb = a.biases[l], b.biases[l]
        if rho is None:
            rho = [(ca - cb, ca - cb) for ca, cb in zip(ba, bb)]
        else:
            rho = [_dot(r, rho, ca - cb) for r, ca, cb in zip(rows, ba, bb)]
        if l == n_layers - 1:
            return max(max(-p, q) for p, q in rho)
        nxt = []
        for (pa, qa), (pb, qb), (p, q), ua, ub in zip(za[l], zb[l], rho, ca[l], cb[l]):
            both_on, both_off = min(pa, pb) >= 0, max(qa, qb) <= 0
            if both_off:
                nxt.append((_Z, _Z))
                continue
            if not both_on:
                p, q = min(p, _Z), max(q, _Z)
            nxt.append((p if ub is None else max(p, -ub), q if ua is None else min(q, ua)))
        rho = nxt
    raise InputError("a network without layers")


def _pattern_map(net, box, sigma):
    """``(M, c)``: *net* is ``x -> M x + c`` on the tail of the cell *box*, each hidden neuron's
    sign read from the exact range of its homogenised pre-activation ``M_l u + c_l s`` (``u`` in
    *box*, ``s in [0, sigma]``) under the pattern of the layers before it (lo >= 0 on, hi <= 0
    off); None when a range holds both signs."""
    d = net.n_inputs
    M = [[Q(int(i == k)) for i in range(d)] for k in range(d)]     # rows: the current units
    c = [_Z] * d
    n_layers = net.depth
    for l, (W, bias) in enumerate(zip(net.weights, net.biases)):
        rows = W.to_rows()
        M = [[sum((w * M[k][i] for k, w in enumerate(row)), _Z) for i in range(d)] for row in rows]
        c = [sum((w * ck for w, ck in zip(row, c)), _Z) + bj for row, bj in zip(rows, bias)]
        if l == n_layers - 1:
            return M, c
        keep = []
        for row, cj in zip(M, c):
            p, q = _dot(row, box)
            p, q = p + min(_Z, cj * sigma), q + max(_Z, cj * sigma)
            if p < 0 < q:
                return None
            keep.append(p >= 0)
        M = [row if on else [_Z] * d for row, on in zip(M, keep)]
        c = [v if on else _Z for v, on in zip(c, keep)]
    raise InputError("a network without layers")


def _stable_cell(a, b, box, sigma):
    """R29's stable-cell rule: both patterns fixed on the cell and ``a − b = M x + c`` with
    ``M u = 0`` for every ``u`` of *box*: then ``|a − b| = |c|`` on the cell's tail."""
    fa, fb = _pattern_map(a, box, sigma), _pattern_map(b, box, sigma)
    if fa is None or fb is None:
        return None
    for ra, rb in zip(fa[0], fb[0]):
        if _dot([p - q for p, q in zip(ra, rb)], box) != (_Z, _Z):
            return None
    return max(abs(p - q) for p, q in zip(fa[1], fb[1]))


def _tail_roots(dom: Domain, sigma):
    d = dom.dim
    span = []
    for i in range(d):
        lo, hi = dom.lo[i], dom.hi[i]
        span.append((max(Q(-1), min(_Z, lo * sigma)) if lo is not None else Q(-1),
                     min(Q(1), max(_Z, hi * sigma)) if hi is not None else Q(1)))
    for i in range(d):
        for v in (Q(1), Q(-1)):
            yield (None if not span[i][0] <= v <= span[i][1] else
                   [span[k] if k != i else (v, v) for k in range(d)])


def _check_tail(a, b, dom: Domain, tail):
    """``(ok, why, R, bound)``: the tail's cover replayed (R29)."""
    if not isinstance(tail, dict) or set(tail) != {"radius", "faces", "bound"}:
        raise InputError("tail holds radius, faces, bound")
    R, t = _q(tail["radius"], "tail radius"), _q(tail["bound"], "tail bound")
    if R <= 0:
        return False, "the tail's radius must be > 0", R, t
    sigma = 1 / R
    faces = tail["faces"]
    roots = list(_tail_roots(dom, sigma))
    if not isinstance(faces, list) or len(faces) != len(roots):
        raise InputError(f"tail faces must be {len(roots)} entries (two per coordinate)")
    hs = [(row[:-1], row[-1]) for row in dom.rows()[len(dom.rows()) - len(dom.halfspaces):]]
    todo = []
    for k, (face, root) in enumerate(zip(faces, roots)):
        if root is None and face is not None:
            return False, f"tail face {k} is not a face of the domain's directions", R, t
        if root is None:
            continue
        if not isinstance(face, dict):
            return False, f"tail face {k} has no cover", R, t
        todo.append((face, root))
    while todo:
        node, box = todo.pop()
        if not isinstance(node, dict):
            raise InputError("a tail node must be an object")
        if "split" in node:
            sp, kids = node.get("split"), node.get("children")
            if not (isinstance(sp, list) and len(sp) == 2 and type(sp[0]) is int and 0 <= sp[0] < dom.dim
                    and isinstance(kids, list) and len(kids) == 2):
                raise InputError("a tail split is {split: [k, mid], children: [left, right]}")
            k, mid = sp[0], _q(sp[1], "tail split")
            lo, hi = box[k]
            if not lo <= mid <= hi:
                return False, "a tail split point lies outside its cell", R, t
            todo.append((kids[0], box[:k] + [(lo, mid)] + box[k + 1:]))
            todo.append((kids[1], box[:k] + [(mid, hi)] + box[k + 1:]))
        elif "empty" in node:
            j = node["empty"]
            if type(j) is not int or not 0 <= j < len(hs):
                raise InputError("a tail 'empty' leaf names a half-space of the domain")
            g, c = hs[j]
            top = _dot(g, box)[1]
            if top + max(_Z, c * sigma) >= 0:
                return False, f"a tail cell claimed outside half-space {j} is not", R, t
        elif "bound" in node:
            claimed = _q(node["bound"], "tail leaf bound")
            got = _cell_bound(a, b, box, sigma)
            if got is None:
                return False, "a tail cell is neither of the same weights nor stable (R29)", R, t
            if got > claimed or claimed > t:
                return (False, f"a tail cell's bound {got} exceeds its claim {claimed} or the tail's bound",
                        R, t)
        else:
            raise InputError("a tail node is a split, an empty leaf or a bound leaf")
    return True, "", R, t


def _deepened(net, depth):
    """*net* as a network of *depth* affine layers computing the same function: while shallower,
    its output layer ``(W, β)`` becomes ``[W; −W]``, ``[β; −β]`` followed by ``[I, −I]`` (no
    bias), since ``relu(y) − relu(−y) = y`` (R33 for networks of different depths).  Written
    here, not taken from the deciders."""
    rows = [net.weights[0]] + [W.to_rows() for W in net.weights[1:]]   # (W1 as the matrix:
    bias = [list(v) for v in net.biases]          # it keeps d when a first layer of width 0
    while len(rows) < depth:                      # has no rows; s50 audit F1)
        W, c = rows.pop(), bias.pop()
        W = W.to_rows() if hasattr(W, "to_rows") else W
        m = len(W)
        rows += [[list(r) for r in W] + [[-v for v in r] for r in W],
                 [[Q(1) if k == o else Q(-1) if k == m + o else _Z for k in range(2 * m)]
                  for o in range(m)]]
        bias += [list(c) + [-v for v in c], [_Z] * m]
    return Network.from_rows(rows, bias) if len(rows) != net.depth else net


def _homogenised(a, b, i, sign, M):
    """The face network of R33, rebuilt here from *a*, *b*: inputs ``(u_{−i}, s)``; hidden
    layer ``l`` holds a's neurons, b's, then ``relu(s)``; a neuron's homogenised pre-activation is
    its row on the layer below plus its bias times ``s`` (layer 0: plus ``sign`` times its
    column ``i``); then ``X_o ∓ M s`` per output (``X = `` a's last row − b's) and the output
    ``relu(X_o − M s) + relu(−X_o − M s)``.  The zero network ``B`` has one zero neuron per
    hidden layer.  Networks of different depths are first made of one depth by
    :func:`_deepened`.  ``(A, B)`` as lists of (weight rows, biases) per layer."""
    depth = max(a.depth, b.depth)
    a, b = _deepened(a, depth), _deepened(b, depth)
    d, m = a.n_inputs, a.n_outputs
    cols = [k for k in range(d) if k != i]
    layers = []
    prev_a = prev_b = None                      # widths of the layer below (None: the input)
    for l in range(depth):
        wa, wb = a.weights[l].to_rows(), b.weights[l].to_rows()
        rows, consts = [], []
        for side, (w, beta) in enumerate(((wa, a.biases[l]), (wb, b.biases[l]))):
            for row, c in zip(w, beta):
                if prev_a is None:
                    coef = [row[k] for k in cols]
                    const = row[i] * sign
                else:
                    coef = ([*row, *([_Z] * prev_b)] if side == 0 else [*([_Z] * prev_a), *row])
                    const = _Z
                rows.append(coef + [c])
                consts.append(const)
        na = len(wa)
        if l < depth - 1:
            rows.append([_Z] * (len(rows[0]) - 1) + [Q(1)])
            consts.append(_Z)
            layers.append((rows, consts))
            prev_a, prev_b = na, len(wb)
            continue
        last, lastc = [], []
        for o in range(m):
            x = [p - q for p, q in zip(rows[o], rows[na + o])]
            k = consts[o] - consts[na + o]
            for sg in (1, -1):
                last.append([sg * v for v in x[:-1]] + [sg * x[-1] - M])
                lastc.append(sg * k)
        layers.append((last, lastc))
    layers.append(([[Q(1) if 2 * o <= k <= 2 * o + 1 else _Z for k in range(2 * m)] for o in range(m)],
                   [_Z] * m))
    zero = [([[_Z] * d], [_Z])] + [([[_Z]], [_Z]) for _ in range(depth - 1)] + [([[_Z]] * m, [_Z] * m)]
    return layers, zero


def _same_net(net, layers) -> bool:
    return net.depth == len(layers) and all(
        W.to_rows() == rows and list(bias) == list(c)
        for W, bias, (rows, c) in zip(net.weights, net.biases, layers))


def _face_box(dom: Domain, root, i, sign, sigma):
    """The face's box over ``(u_{−i}, s)`` and the half-spaces ``−(g_{−i}·u + c s) <= g_i
    sign`` of the domain's rows ``g·x + c >= 0`` that the box does not imply (R33)."""
    box = [root[k] for k in range(dom.dim) if k != i] + [(_Z, sigma)]
    hs = []
    for row in dom.rows():
        g = [row[k] for k in range(dom.dim) if k != i] + [row[-1]]
        if _dot(g, box, row[i] * sign)[0] < 0:
            hs.append(([-v for v in g], row[i] * sign))
    return box, hs


def _empty_face(y, box, hs) -> str:
    """"" when the multipliers *y* (one per half-space ``a·v <= b`` of *hs*) prove that no
    point of *box* satisfies them all — ``y >= 0`` and ``y·b < min_{v in box} (Σ_j y_j a_j)·v``
    (every point of the box would give ``Σ y_j a_j·v <= y·b``) —, else what fails."""
    if not isinstance(y, list) or len(y) != len(hs):
        raise InputError(f"an empty face's multipliers are {len(hs)} numbers, one per half-space")
    y = [_q(v, "empty face multiplier") for v in y]
    if any(v < 0 for v in y):
        return "a multiplier of its emptiness proof is negative"
    g = [sum((w * a[k] for w, (a, _) in zip(y, hs)), _Z) for k in range(len(box))]
    low = sum((gk * (lo if gk > 0 else hi) for gk, (lo, hi) in zip(g, box)), _Z)
    if sum((w * c for w, (_, c) in zip(y, hs)), _Z) >= low:
        return "its emptiness proof fails (a point of the face's box may satisfy its half-spaces)"
    return ""


def _check_homogenised(a, b, dom: Domain, tail):
    """``(ok, why, R, bound)``: the tail by branch and bound on the homogenised network (R33):
    per face ``(i, ±1)`` of :func:`_tail_roots`, a ``bab_bound`` certificate of ``max |A − B|
    <= 0`` for the face network of :func:`_homogenised` (rebuilt here from a, b, i, sign, M) on
    the face's box and half-spaces (:func:`_face_box`), with ``M <=`` the tail's bound."""
    if set(tail) != {"kind", "radius", "faces", "bound"}:
        raise InputError("a homogenised tail holds kind, radius, faces, bound")
    R, t = _q(tail["radius"], "tail radius"), _q(tail["bound"], "tail bound")
    if R <= 0:
        return False, "the tail's radius must be > 0", R, t
    roots = list(_tail_roots(dom, 1 / R))
    faces = tail["faces"]
    if not isinstance(faces, list) or len(faces) != len(roots):
        raise InputError(f"tail faces must be {len(roots)} entries (two per coordinate)")
    for k, (face, root) in enumerate(zip(faces, roots)):
        i, sign = k // 2, (Q(1) if k % 2 == 0 else Q(-1))
        if root is None:
            if face is not None:
                return False, f"tail face {k} is not a face of the domain's directions", R, t
            continue
        if isinstance(face, dict) and set(face) == {"i", "sign", "empty"}:
            if face["i"] != i or _q(face["sign"], "face sign") != sign:
                return False, f"tail face {k} is not the face ({i}, {sign})", R, t
            why = _empty_face(face["empty"], *_face_box(dom, root, i, sign, 1 / R))
            if why:
                return False, f"tail face {k}: {why}", R, t
            continue
        if not isinstance(face, dict) or set(face) != {"i", "sign", "M", "certificate"}:
            return False, f"tail face {k} has no proof (i, sign, M, certificate, or empty)", R, t
        if face["i"] != i or _q(face["sign"], "face sign") != sign:
            return False, f"tail face {k} is not the face ({i}, {sign})", R, t
        M = _q(face["M"], "face M")
        if M > t:
            return False, f"tail face {k}'s M {M} exceeds the tail's bound {t}", R, t
        fc = face["certificate"]
        if not isinstance(fc, dict) or fc.get("type") != "bab_bound":
            raise InputError("a face's certificate must be a bab_bound certificate")
        A, B = _homogenised(a, b, i, sign, M)
        if not _same_net(network_from_dict(fc.get("a"), "face.a"), A) or \
                not _same_net(network_from_dict(fc.get("b"), "face.b"), B):
            return False, f"tail face {k}'s networks are not the homogenised face network of a, b, M", R, t
        box, hs = _face_box(dom, root, i, sign, 1 / R)
        got = fc.get("box")
        if not isinstance(got, list) or len(got) != len(box) or \
                not all(isinstance(p, list) and len(p) == 2 for p in got):
            raise InputError(f"a face certificate's box must be {len(box)} pairs [lo, hi]")
        if [(_q(p, "face box"), _q(q, "face box")) for p, q in got] != box:
            return False, f"tail face {k}'s box is not the face (u_-i, s in [0, 1/R])", R, t
        if bab_bound._halfspaces(fc.get("halfspaces", []), len(box)) != hs:
            return False, f"tail face {k}'s half-spaces are not the domain's rows homogenised", R, t
        if fc.get("claim") != CLAIMS["bab_bound"][0] or _q(fc.get("upper"), "face upper") > 0:
            return False, f"tail face {k}'s certificate does not bound max |A - B| by 0", R, t
        ok, why = bab_bound.check(fc)
        if not ok:
            return False, f"tail face {k}: {why}", R, t
    return True, "", R, t


def _check_body_tail(cert, a, b, dom: Domain):
    """The bounded claim of R29: same weights, a body certificate and a tail cover."""
    if "tail" not in cert or "upper" not in cert or "cone" in cert or "decomposition" in cert:
        raise InputError("a body claim holds body, tail and upper (no cone, no decomposition)")
    tail = cert["tail"]
    if isinstance(tail, dict) and tail.get("kind") == "homogenised":
        ok, why, R, t = _check_homogenised(a, b, dom, tail)
    else:
        ok, why, R, t = _check_tail(a, b, dom, tail)
    if not ok:
        return False, f"tail: {why}"
    body = cert["body"]
    if not isinstance(body, dict) or body.get("type") != "bab_bound":
        raise InputError("body must be a bab_bound certificate")
    for net, name in ((a, "a"), (b, "b")):
        net0 = network_from_dict(body.get(name), f"body.{name}")
        if net0.widths != net.widths or list(net0.weights) != list(net.weights) or \
                [list(v) for v in net0.biases] != [list(v) for v in net.biases]:
            return False, f"the body certificate's {name} is not {name}"
    want = [[lo if lo is not None else -R, hi if hi is not None else R] for lo, hi in zip(dom.lo, dom.hi)]
    box = body.get("box")
    if not isinstance(box, list) or len(box) != dom.dim or \
            not all(isinstance(p, list) and len(p) == 2 for p in box):
        raise InputError(f"the body certificate's box must be {dom.dim} pairs [lo, hi]")
    if [[_q(p, "body box"), _q(q, "body box")] for p, q in box] != want:
        return False, "the body certificate's box is not the domain's box closed at the radius"
    want_hs = [(list(a_), b_) for a_, b_ in dom.halfspaces]
    if bab_bound._halfspaces(body.get("halfspaces", []), dom.dim) != want_hs:
        return False, "the body certificate's half-spaces are not the domain's"
    if body.get("claim") != CLAIMS["bab_bound"][0]:
        return False, "the body certificate does not bound max |a - b|"
    upper = _q(cert["upper"], "upper")
    if _q(body.get("upper"), "body upper") > upper or t > upper:
        return False, "the body's or the tail's bound exceeds the claimed upper bound"
    ok, why = bab_bound.check(body)
    if not ok:
        return False, f"body certificate: {why}"
    which = "R33" if isinstance(tail, dict) and tail.get("kind") == "homogenised" else "R29"
    return True, f"max_o sup |a_o - b_o| <= {upper} on the domain ({which}: body ‖x‖∞ <= {R}, tail {t})"


def _check_constant(cert, a, b, x) -> tuple[bool, str]:
    """The bounded claim for two networks pruned at one hidden layer: two constants."""
    if any(k in cert for k in ("cone", "decomposition", "body", "tail")) or "upper" not in cert:
        raise InputError("a constant claim holds constant, upper, lower and point (no cone, body "
                         "or tail)")
    spec = cert["constant"]
    if not isinstance(spec, dict) or set(spec) != {"layer"} or type(spec["layer"]) is not int:
        raise InputError("constant must be {'layer': <int>}")
    l = spec["layer"]
    if not 1 <= l < min(a.depth, b.depth):
        raise InputError(f"constant layer {l} is not a hidden layer of both networks")
    for net, name in ((a, "a"), (b, "b")):
        if net.widths[l] != 0:
            return False, f"{name}'s hidden layer {l} has {net.widths[l]} neurons, not 0"
    c = [u - v for u, v in zip(a.evaluate(x), b.evaluate(x))]
    top = max((abs(v) for v in c), default=_Z)
    upper = _q(cert["upper"], "upper")
    if top > upper:
        return False, f"a - b is the constant ({', '.join(map(str, c))}): max |a - b| = {top} > upper"
    return True, (f"max_o sup |a_o - b_o| = {top} <= {upper} on the domain (a and b have hidden "
                  f"layer {l} of width 0: a - b is the constant ({', '.join(map(str, c))}))")


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
        bad = point_reason(cert, a, b, x, lower)
        if bad:
            return False, bad
    elif "output" in cert:
        raise InputError("'output' comes with 'lower' and 'point'")
    if "constant" in cert:
        if cert["claim"] != claims[1] or "ray" in cert:
            raise InputError("only the upper-bound claim holds a constant (and no ray)")
        if lower is None:
            raise InputError("a constant claim holds lower and point")
        if "upper" in cert and lower > _q(cert["upper"], "upper"):
            return False, "the point's deviation exceeds the claimed upper bound"
        return _check_constant(cert, a, b, x)
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
    if "tail" in cert and "body" not in cert:
        raise InputError("a tail comes with a body")
    ok, why = _check_body_tail(cert, a, b, dom) if "body" in cert else _check_bounded(cert, a, b, D, dom)
    if ok and lower is not None:     # (checked above: what an `equiv --epsilon` refutation rests
        why += f"; max |a - b| >= {lower} (attained at the point)"   # on; s53 deep audit F2)
    return ok, why
