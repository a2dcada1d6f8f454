r"""Checker of ``one_hidden_layer_dimension`` certificates: the functional dimension of a
one-hidden-layer network is N − n1 by three-layer-fibers R38.

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
max) on a hyperplane no other switching neuron shares (rows (w_i, b_i) not proportional: the
key (w_i, b_i) / w_i[k], k the first non-zero entry, is the same for both signs); and ``value``
= N − kernel, kernel = (switching neurons with a non-zero outgoing column) + (d + 1)(switching
neurons with a zero one) + (d + 1 + m)(dead neurons).  A neuron active on the whole domain is
refused (not covered).

Why (R38): a dead neuron's terms vanish at every differentiable input; the kink of a switching
neuron i on H_i (shared by no other) forces the incoming part of a first-order invariance to be
a multiple t_i of (w_i, b_i) when its outgoing column is non-zero (free otherwise); what is left
is a combination of relu(w_i·x + b_i) and constants that vanishes, which forces the outgoing
part to be −t_i V[:, i] and the output biases' part to be 0.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number
from algebra.kernel.certificate_schemas import CLAIMS, check_header

__all__ = ["check"]


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
    seen, scalings, unseen, dead = {}, 0, 0, 0
    for i in range(W.nrows):
        w = [W[i, k] for k in range(d)]
        first = next((v for v in w if v != 0), None)
        if first is None:
            if b[i] < 0:
                dead += 1
                continue
            return False, f"neuron {i} has a zero row and a bias >= 0"
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
            return False, f"neuron {i} is active on the whole domain (not covered by R38)"
        key = tuple(v / first for v in w) + (b[i] / first,)
        if key in seen:
            return False, f"neurons {seen[key]} and {i} switch on one hyperplane (proportional rows)"
        seen[key] = i
        if all(V[o, i] == 0 for o in range(m)):
            unseen += 1
        else:
            scalings += 1
    N = net.n_parameters
    kernel = scalings + (d + 1) * unseen + (d + 1 + m) * dead
    if value != N - kernel:
        return False, (f"value {value} is not N - {kernel} = {N - kernel} ({scalings} scalings, "
                       f"{unseen} unseen and {dead} dead neurons)")
    return True, (f"one hidden layer: {scalings} neurons switching inside the domain on hyperplanes of "
                  f"their own (one scaling each), {unseen} of them with a zero outgoing column (d + 1 "
                  f"free each), {dead} dead (d + 1 + m free each): functional dimension {value} = "
                  f"N - {kernel} (three-layer-fibers R38)")
