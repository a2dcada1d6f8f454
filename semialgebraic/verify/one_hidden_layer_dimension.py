r"""Checker of ``one_hidden_layer_dimension`` certificates: the functional dimension of a
one-hidden-layer network is N − n1 by three-layer-fibers R38.

Schema (version 1; built by :func:`semialgebraic.certificates.one_hidden_layer_dimension_certificate`)::

    {"format": "netfibers.certificate", "type": "one_hidden_layer_dimension",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "functional dimension = N - n1 (three-layer-fibers R38)",
     "network": <network>,                         # one hidden layer
     "domain": null | {"orthant": true} | {"box": [lo, hi]} | {"box": [[lo_0, hi_0], ...]},
     "value": v}                                   # JSON integer

What is checked (exact; imports ``algebra`` only): the network has one hidden layer; every
hidden neuron i has a non-zero row w_i, a non-zero outgoing column, and a pre-activation
w_i·x + b_i that takes both signs on the open domain (its minimum and maximum over the box, at
a vertex, or ±∞ along an open side, are < 0 and > 0); no two rows (w_i, b_i) are proportional
(the key (w_i, b_i) / w_i[k], k the first non-zero entry, is the same for both signs); and
``value`` = N − n1.

Why (R38): the kink of neuron i on H_i (met by the domain, shared by no other neuron) forces
the incoming part of a first-order invariance to be a multiple t_i of (w_i, b_i); what is left
is a combination of relu(w_i·x + b_i) and constants that vanishes, which forces the outgoing
part to be −t_i V[:, i] and the output biases' part to be 0.  The kernel is the n1 scalings.
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
    seen = {}
    for i in range(W.nrows):
        w = [W[i, k] for k in range(d)]
        first = next((v for v in w if v != 0), None)
        if first is None:
            return False, f"neuron {i} has a zero row"
        if all(V[o, i] == 0 for o in range(V.nrows)):
            return False, f"neuron {i} has a zero outgoing column"
        mn = mx = b[i]
        for wk, a, z in zip(w, lo, hi):
            if wk == 0:
                continue
            small, large = (a, z) if wk > 0 else (z, a)
            mn = None if mn is None or small is None else mn + wk * small
            mx = None if mx is None or large is None else mx + wk * large
        if (mn is not None and mn >= 0) or (mx is not None and mx <= 0):
            return False, f"neuron {i} does not switch inside the domain"
        key = tuple(v / first for v in w) + (b[i] / first,)
        if key in seen:
            return False, f"neurons {seen[key]} and {i} lie on one hyperplane (proportional rows)"
        seen[key] = i
    N, n1 = net.n_parameters, W.nrows
    if value != N - n1:
        return False, f"value {value} is not N - n1 = {N - n1}"
    return True, (f"one hidden layer, each of its {n1} neurons switching inside the domain on a "
                  f"hyperplane of its own with a non-zero row and outgoing column: functional "
                  f"dimension {value} = N - n1 (three-layer-fibers R38)")
