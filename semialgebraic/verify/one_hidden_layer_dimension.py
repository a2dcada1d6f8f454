r"""Checker of ``one_hidden_layer_dimension`` certificates: the functional dimension of a
one-hidden-layer network is N − kernel by three-layer-fibers R38 and R39.

Schema (version 1; built by :func:`semialgebraic.certificates.one_hidden_layer_dimension_certificate`)::

    {"format": "netfibers.certificate", "type": "one_hidden_layer_dimension",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "functional dimension = N - kernel (three-layer-fibers R38)",
     "network": <network>,                         # one hidden layer
     "domain": null | {"orthant": true} | {"box": [lo, hi]} | {"box": [[lo_0, hi_0], ...]}
               | {"box": [[lo_0, hi_0], ...],      # a box cut by half-spaces a.x <= b
                  "halfspaces": [{"a": [...], "b": b}, ...], "interior": [x_0, ...]},
     "value": v,                                   # JSON integer
     "evidence": {"<i>": {"dead": [y_j, ...]} | {"active": [y_j, ...]}
                       | {"switching": [[x+...], [x-...]]}, ...}}   # with half-spaces only

What is checked (exact; imports ``algebra`` only): the network has one hidden layer; every
hidden neuron i is either *dead* (max of w_i·x + b_i over the domain <= 0: the maximum over the
box at a vertex, +∞ along an open side; a zero row needs b_i < 0) or *switching* (min < 0 <
max) on a hyperplane (the key (w_i, b_i) / w_i[k], k the first non-zero entry, the same for both
signs) that the other switching neurons share only with the same orientation, or *active*
(min >= 0; a zero row needs b_i > 0); and ``value`` = N − kernel, kernel = (switching neurons
with a non-zero outgoing column) + (d + 1)(switching neurons with a zero one) + (d + 1 + m)(dead
neurons) + k (d + 1 + m) − (m r_W + d r_V − r_V r_W) for the k active neurons (R39: r_W, r_V
the exact ranks of their rows W_A and their outgoing columns V_A), where a group G of two or
more switching neurons on one hyperplane, one orientation (a split neuron), counts
|G| (d + 1 + m) − (m + d r_G) in place of its scalings (r_G the rank of its outgoing columns).

On a box cut by half-spaces P = box ∩ {a_j·x <= b_j}, the point ``interior`` lies strictly
inside every side and half-space (P has interior, and R38/R39 are read on it), and a neuron
whose minimum and maximum over the box have opposite signs is classified by its evidence (one
entry per such neuron, none for the others): *dead* when y >= 0 (one per half-space) gives
b_i + Σ_j y_j b_j + Σ_k max(r_k lo_k, r_k hi_k) <= 0, r = w_i − Σ_j y_j a_j (an upper bound of
ℓ_i on P for any y >= 0, since ℓ_i(x) = Σ_j y_j a_j·x + r·x + b_i), *active* when the same bound
of −ℓ_i is <= 0, *switching* when ℓ_i(x+) > 0 > ℓ_i(x−) at two points strictly inside P.

Why (R38): a dead neuron's terms vanish at every differentiable input; the kink of a switching
neuron i on H_i (shared by no other) forces the incoming part of a first-order invariance to be
a multiple t_i of (w_i, b_i) when its outgoing column is non-zero (free otherwise); what is left
is a combination of relu(w_i·x + b_i) and constants that vanishes, which forces the outgoing
part to be −t_i V[:, i]; the active neurons' terms are affine, and an affine function that
vanishes on the open domain is 0: its linear part δV_A W_A + V_A δW_A = 0 (a map of rank
m r_W + d r_V − r_V r_W) and its constant fixes the output biases' part (R39).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.linalg import QMatrix
from algebra.linalg.gfp import rank_lower_bound

from .on_box import read_halfspaces

__all__ = ["check"]

_ZERO = parse_number(0, "0")


def _box(dom, d):
    """``(lo, hi)`` per coordinate, None for an open side."""
    if dom is None:
        return [None] * d, [None] * d
    if not isinstance(dom, dict):
        raise InputError("domain must be null or an object")
    if set(dom) == {"orthant"} and dom["orthant"] is True:
        return [parse_number(0, "0")] * d, [None] * d
    if set(dom) not in ({"box"}, {"box", "halfspaces", "interior"}) or not isinstance(dom["box"], list):
        raise InputError("domain is null, {orthant: true}, {box: ...} or {box, halfspaces, interior}")
    box = dom["box"]
    if len(box) == 2 and not isinstance(box[0], list):
        lo, hi = parse_number(box[0], "domain.box"), parse_number(box[1], "domain.box")
        return [lo] * d, [hi] * d
    if len(box) != d or not all(isinstance(s, list) and len(s) == 2 for s in box):
        raise InputError(f"domain.box: {d} intervals [lo, hi]")
    return ([parse_number(s[0], "domain.box") for s in box], [parse_number(s[1], "domain.box") for s in box])


def _cuts(dom, d, lo, hi):
    """``(cuts, interior)`` of a domain with half-spaces (``([], None)`` without): the
    half-spaces ``[(a, b)]`` and the interior point, after checking that the point lies strictly
    inside every side and half-space (an InputError for a malformed one)."""
    if not isinstance(dom, dict) or "halfspaces" not in dom:
        return [], None
    if not dom["halfspaces"]:
        raise InputError("domain.halfspaces must be a non-empty list")
    if any(a is None or z is None for a, z in zip(lo, hi)):
        raise InputError("a box cut by half-spaces has finite sides")
    cuts = read_halfspaces(dom["halfspaces"], d)
    x = parse_vector(dom["interior"], "domain.interior", length=d)
    return cuts, x


def _strictly_inside(x, lo, hi, cuts) -> bool:
    return (all(a < v < z for v, a, z in zip(x, lo, hi))
            and all(sum((ak * v for ak, v in zip(a, x)), _ZERO) < b for a, b in cuts))


def _bound(w, b, y, lo, hi, cuts):
    """b + Σ_j y_j b_j + Σ_k max(r_k lo_k, r_k hi_k), r = w − Σ_j y_j a_j: an upper bound of
    w·x + b over the box cut by the half-spaces, for any y >= 0."""
    r = list(w)
    top = b
    for yj, (a, bj) in zip(y, cuts):
        top += yj * bj
        r = [rk - yj * ak for rk, ak in zip(r, a)]
    return top + sum((max(rk * a, rk * z) for rk, a, z in zip(r, lo, hi)), _ZERO)


def _classified(i, w, bi, ev, lo, hi, cuts, d) -> str:
    """The kind its evidence proves for neuron *i* on the cut ("dead", "active", "switching"),
    or "" when the evidence does not prove it."""
    if not isinstance(ev, dict) or len(ev) != 1:
        raise InputError(f"evidence[{i}] is one of {{dead}}, {{active}}, {{switching}}")
    (kind, got), = ev.items()
    if kind in ("dead", "active"):
        y = parse_vector(got, f"evidence[{i}].{kind}", length=len(cuts))
        if any(v < 0 for v in y):
            return ""
        sgn = 1 if kind == "dead" else -1
        return kind if _bound([sgn * v for v in w], sgn * bi, y, lo, hi, cuts) <= 0 else ""
    if kind == "switching":
        if not isinstance(got, list) or len(got) != 2:
            raise InputError(f"evidence[{i}].switching is two points")
        xp, xm = (parse_vector(x, f"evidence[{i}].switching", length=d) for x in got)
        val = lambda x: sum((wk * v for wk, v in zip(w, x)), bi)
        ok = _strictly_inside(xp, lo, hi, cuts) and _strictly_inside(xm, lo, hi, cuts)
        return kind if ok and val(xp) > 0 > val(xm) else ""
    raise InputError(f"evidence[{i}]: unknown kind {kind!r}")


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "one_hidden_layer_dimension")
    if cert["claim"] != CLAIMS["one_hidden_layer_dimension"][0]:
        return False, f"the claim {cert['claim']!r} is not this certificate's"
    net = network_from_dict(cert["network"], source="certificate[network]")
    value = cert["value"]
    if not isinstance(value, int) or isinstance(value, bool):
        raise InputError("value must be an integer")
    if net.depth != 2:
        return False, f"the network has {net.depth - 1} hidden layers, not one"
    d = net.n_inputs
    lo, hi = _box(cert.get("domain"), d)
    for k, (a, z) in enumerate(zip(lo, hi)):
        if a is not None and z is not None and not a < z:
            return False, f"the domain has no interior (coordinate {k})"
    cuts, interior = _cuts(cert.get("domain"), d, lo, hi)
    evidence = cert.get("evidence")
    if (evidence is not None) != bool(cuts) or (evidence is not None and not isinstance(evidence, dict)):
        raise InputError("evidence (an object) comes with half-spaces, and only with them")
    if cuts and not _strictly_inside(interior, lo, hi, cuts):
        return False, "domain.interior is not strictly inside the box and every half-space"
    evidence = dict(evidence or {})
    W, b, V = net.weights[0], net.biases[0], net.weights[1]
    m = V.nrows
    seen, scalings, unseen, dead, active = {}, 0, 0, 0, []
    for i in range(W.nrows):
        w = [W[i, k] for k in range(d)]
        first = next((v for v in w if v != 0), None)
        if first is None:
            if b[i] < 0:
                dead += 1
            elif b[i] > 0:
                active.append(i)
            else:
                return False, f"neuron {i} has a zero row and a zero bias"
            continue
        mn = mx = b[i]
        for wk, a, z in zip(w, lo, hi):
            if wk == 0:
                continue
            small, large = (a, z) if wk > 0 else (z, a)
            mn = None if mn is None or small is None else mn + wk * small
            mx = None if mx is None or large is None else mx + wk * large
        kind = ("dead" if mx is not None and mx <= 0 else "active" if mn is not None and mn >= 0
                else "switching")
        if cuts and kind == "switching":         # the box does not decide: the evidence on P
            if str(i) not in evidence:
                return False, f"neuron {i} takes both signs on the box and has no evidence on the cut"
            kind = _classified(i, w, b[i], evidence.pop(str(i)), lo, hi, cuts, d)
            if not kind:
                return False, f"the evidence of neuron {i} does not prove what it claims"
        if kind == "dead":
            dead += 1
            continue
        if kind == "active":
            active.append(i)
            continue
        key = tuple(v / first for v in w) + (b[i] / first,)
        seen.setdefault(key, ([], []))[0 if first > 0 else 1].append(i)
    if evidence:
        raise InputError(f"evidence for neurons the box classifies or that do not exist: "
                         f"{', '.join(sorted(evidence))}")
    N, k = net.n_parameters, len(active)
    kernel, split, split_free, opposite, normals, meets = (d + 1 + m) * dead, 0, 0, 0, [], []
    for key, (pos, neg) in seen.items():
        group = pos + neg
        if len(group) == 1:
            if all(V[o, group[0]] == 0 for o in range(m)):
                unseen += 1
                kernel += d + 1
            else:
                scalings += 1
                kernel += 1
            continue
        r = _rank([[V[o, i] for i in group] for o in range(m)], len(group))
        split += len(group)
        split_free += len(group) * (d + 1 + m) - (m + d * r)
        if pos and neg:                  # the intersection of the two column spaces joins C
            opposite += len(group)
            normals.append(list(key[:d]))
            K = QMatrix.from_rows([[V[o, i] for i in pos] + [-V[o, j] for j in neg] for o in range(m)],
                                  ncols=len(group)).nullspace()
            meets += [[sum((V[o, i] * z[a] for a, i in enumerate(pos)), _ZERO) for o in range(m)]
                      for z in K.to_rows()]
    kernel += split_free
    block = ""
    if active or normals:
        if (k + len(normals)) * d + (k + len(meets)) * m > ENTRIES:
            return False, f"the linear block of {k} active neurons is too large to re-rank here"
        u = _rank([[W[i, c] for c in range(d)] for i in active] + normals, d)
        c = _rank([[V[o, i] for o in range(m)] for i in active] + meets, m)
        image = m * u + d * c - c * u
        kernel += k * (d + 1 + m) - image
        block = (f", {k} active on the whole domain and {opposite} switching on hyperplanes shared "
                 f"with the opposite orientation (an affine part of rank {u} in x, {c} in the "
                 f"outputs: {k * (d + 1 + m) - image} free, R39)")
    if split:
        block += (f", {split} switching on hyperplanes they share with multiples of their rows "
                  f"(split neurons: {split_free} free, R39)")
    if value != N - kernel:
        return False, (f"value {value} is not N - {kernel} = {N - kernel} ({scalings} scalings, "
                       f"{unseen} unseen, {dead} dead, {k} active and {split} split neurons)")
    return True, (f"one hidden layer: {scalings} neurons switching inside the domain on hyperplanes of "
                  f"their own (one scaling each), {unseen} of them with a zero outgoing column (d + 1 "
                  f"free each), {dead} dead (d + 1 + m free each){block}: functional dimension "
                  f"{value} = N - {kernel} (three-layer-fibers R38, R39)"
                  + (f"; on the box cut by {len(cuts)} half-spaces, the neurons the box does not "
                     "classify classified there by their evidence" if cuts else ""))


ENTRIES = 10 ** 7
"""The linear block's matrices are re-ranked up to this many entries (the decider's limit)."""


def _rank(rows: list, ncols: int) -> int:
    """The exact rank over Q: the rank mod p of the numerators when full (a lower bound that
    cannot exceed the full rank), else FLINT's exact rank."""
    A = QMatrix.from_rows(rows, ncols=ncols)
    low = rank_lower_bound(A)
    return low if low == min(len(rows), ncols) else A.rank()
