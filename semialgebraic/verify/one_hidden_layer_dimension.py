r"""Checker of ``one_hidden_layer_dimension`` certificates: the functional dimension of a
one-hidden-layer network is N − kernel by three-layer-fibers R38 and R39.

Schema (version 1; built by :func:`semialgebraic.certificates.one_hidden_layer_dimension_certificate`)::

    {"format": "netfibers.certificate", "type": "one_hidden_layer_dimension",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "functional dimension = N - kernel (three-layer-fibers R38)",
     "network": <network>,                         # one hidden layer
     "domain": null | {"orthant": true} | {"box": [lo, hi]} | {"box": [[lo_0, hi_0], ...]},
     "value": v}                                   # JSON integer

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
from algebra.io.native import network_from_dict, parse_number
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.linalg import QMatrix
from algebra.linalg.gfp import rank_lower_bound

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
    if set(dom) != {"box"} or not isinstance(dom["box"], list):
        raise InputError("domain is null, {orthant: true} or {box: ...}")
    box = dom["box"]
    if len(box) == 2 and not isinstance(box[0], list):
        lo, hi = parse_number(box[0], "domain.box"), parse_number(box[1], "domain.box")
        return [lo] * d, [hi] * d
    if len(box) != d or not all(isinstance(s, list) and len(s) == 2 for s in box):
        raise InputError(f"domain.box: {d} intervals [lo, hi]")
    return ([parse_number(s[0], "domain.box") for s in box], [parse_number(s[1], "domain.box") for s in box])


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
        if mx is not None and mx <= 0:
            dead += 1
            continue
        if mn is not None and mn >= 0:
            active.append(i)
            continue
        key = tuple(v / first for v in w) + (b[i] / first,)
        seen.setdefault(key, ([], []))[0 if first > 0 else 1].append(i)
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
                  f"{value} = N - {kernel} (three-layer-fibers R38, R39)")


ENTRIES = 10 ** 7
"""The linear block's matrices are re-ranked up to this many entries (the decider's limit)."""


def _rank(rows: list, ncols: int) -> int:
    """The exact rank over Q: the rank mod p of the numerators when full (a lower bound that
    cannot exceed the full rank), else FLINT's exact rank."""
    A = QMatrix.from_rows(rows, ncols=ncols)
    low = rank_lower_bound(A)
    return low if low == min(len(rows), ncols) else A.rank()
