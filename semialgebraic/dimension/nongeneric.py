r"""The functional dimension where it is not defined: non-generic θ, and the values nearby.

Which inputs are differentiable points of θ ↦ f_θ(x) is decided by the rule of
:mod:`algebra.kernel.differentiability` (a neuron with a zero pre-activation, a zero row with a
zero bias included, must be unseen by the network above it).  When no input of the domain is,
θ is *non-generic*: no value (:func:`non_generic`), but the values at explicit nearby
parameters, each certified (:func:`nearby_values`), and their maximum (``local_upper``).  A
one-point domain has its own exact answer (:func:`one_point`).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Callable

from algebra.kernel import parameter_offsets
from algebra.kernel.differentiability import kink_witness
from algebra.network import Network
from algebra.rationals import Q, q_json

from ..budget import Budget
from ..verify import verify
from .jacobian import exact_rank, network_prime
from .result import FunctionalDimension
from .sampling import exact_masks

__all__ = ["zero_neurons", "one_point", "non_generic", "seen_zero_neurons", "neuron_list", "with_nearby",
           "nearby_values"]


def one_point(net: Network, v) -> FunctionalDimension:
    """The domain is the single input x0 = (v, …, v): when θ ↦ f_θ(x0) is differentiable there
    (:mod:`algebra.kernel.differentiability`), the functional dimension is the exact rank of its
    m Jacobian rows; otherwise θ is non-generic (the functional dimension is not defined)."""
    x0 = [Q(v)] * net.n_inputs
    kink = kink_witness(net, net.activation_pattern(x0))
    if kink is not None:
        why = (f"the domain is one point x0 and theta -> f_theta(x0) is not differentiable there: "
               f"neuron {neuron_list([kink])} has a zero pre-activation and the network above it "
               "depends on its output; the functional dimension is not defined at this theta")
        return non_generic(net, why, [kink])
    X, _ = exact_masks(net, [x0])
    rank = exact_rank(net, X)
    return FunctionalDimension(net.n_parameters, rank, rank,
                               "the domain is one point x0: the functional dimension is the exact "
                               "rank of the Jacobian of theta -> f_theta(x0)", (), True, 1,
                               {"symmetry_rank": None, "regions_walked": 1, "rounds": 0,
                                "exercise_proofs": [], "prime": network_prime(net), "proven": {},
                                "patterns": None}, tuple(tuple(x) for x in X))


def neuron_list(named) -> str:
    """Up to six neurons ``(layer, neuron)`` (layers 1-based, as the deficit lines) and a count."""
    shown = ", ".join(f"({t + 1}, {j})" for t, j in named[:6])
    return shown + (f" and {len(named) - 6} more" if len(named) > 6 else "")


def non_generic(net: Network, why: str, kinks: list) -> FunctionalDimension:
    """The answer at a θ where no input of the domain is a differentiable point (no value)."""
    return FunctionalDimension(net.n_parameters, 0, net.n_parameters, "non-generic: " + why, (),
                               True, 0, {"symmetry_rank": None, "regions_walked": 0, "rounds": 0,
                                         "exercise_proofs": [], "prime": network_prime(net),
                                         "proven": {}, "patterns": None, "kinks": list(kinks)},
                               (), why)


def seen_zero_neurons(net: Network) -> list:
    """Neurons (t, j) of the last hidden layer with a zero row, a zero bias and a non-zero output
    column: a kink at every input that the output sees (e = the output column, whatever the
    pattern), so no input is a differentiable point (:mod:`algebra.kernel.differentiability`)."""
    if net.depth < 2:
        return []
    t = net.depth - 2
    W, b = net.layer(t)
    V = net.weights[t + 1]
    return [(t, j) for j in range(W.nrows)
            if b[j] == 0 and not any(W.row_at(j)) and any(v != 0 for v in V.col_at(j))]


def zero_neurons(net: Network) -> list:
    """Hidden neurons (t, j) of any layer with a zero row, a zero bias and a non-zero outgoing
    column: a kink at every input; the candidates to move when θ is found non-generic without
    the walk's regions (their kink witnesses).

    >>> from algebra.network import Network
    >>> zero_neurons(Network.from_rows([[[1], [0]], [[1, 2], [0, 0]], [[1, 0]]], [[0, 0], [1, 0], [0]]))
    [(0, 1)]
    """
    out = []
    for t in range(net.depth - 1):
        W, b = net.layer(t)
        V = net.weights[t + 1]
        out += [(t, j) for j in range(W.nrows)
                if b[j] == 0 and not any(W.row_at(j)) and any(v != 0 for v in V.col_at(j))]
    return out


def with_nearby(net: Network, dom, fd: FunctionalDimension, kinks: list, budget: Budget,
                solve: Callable, certify: Callable) -> FunctionalDimension:
    """*fd* (non-generic) with the values at explicit nearby parameters and their maximum
    (:func:`nearby_values`; *solve* and *certify* as there)."""
    near, top = nearby_values(net, dom, kinks, budget, solve, certify)
    tail = ("; nearby: " + ", ".join(f"{e['change']}: " + (str(e["dimension"]) if e["certified"] else
                                                           "not certified")
                                     for e in near)
            + (f"; local upper value {top}" if top is not None else "")) if near else ""
    return replace(fd, nearby=tuple(near), local_upper=top, reason=fd.reason + tail)


def nearby_values(net: Network, dom, kinks: list, budget: Budget, solve: Callable,
                  certify: Callable) -> tuple[list, int | None]:
    """The functional dimension at explicit parameters θ + Δ near a non-generic θ, each with its
    certificate re-checked, and the largest certified value (None if none).

    Δ moves the bias of each offending kink neuron (:func:`kink_witness` of the regions) by
    ±δ, every sign combination for at most two such neurons (else all + and all −), with δ a
    power of 2 at most 1/64 of the smallest non-zero |parameter| (and of 1).  For δ small enough
    these parameters lie in the open sets of parameters that touch θ where the kink neurons have
    a fixed sign; that smallness is *not* proven: what is reported is the value at the explicit
    θ + Δ, computed by ``solve(net, dom, timeout)`` (the functional dimension without nearby
    values) and certified by ``certify(net, fd, dom)`` (its certificate, re-checked here:
    ``certified`` when the checker accepts it and it closes the value), or the reason it is not
    (interval, non-generic too, or an unchecked upper bound)."""
    out, top = [], None
    for theta, change in _nearby_parameters(net, kinks):
        if budget.exhausted():
            break
        near = Network.from_parameters(net.widths, theta)
        left = budget.remaining()
        sub = solve(near, dom, None if left is None else max(0.5, left / 2))
        entry = {"change": change, "parameters": [q_json(v) for v in theta],
                 "dimension": sub.value, "lower": sub.lower, "upper": sub.upper,
                 "non_generic": bool(sub.non_generic), "certified": False}
        if sub.non_generic:
            entry["why"] = "this parameter is non-generic too: " + sub.non_generic
        else:
            cert = certify(near, sub, dom)
            ok, why = verify(cert)
            closed = ok and (cert.get("type") == "one_hidden_layer_dimension" or   # exact (R38)
                             ("uncertified_upper_reason" not in cert and cert["lower"] == cert.get("upper")))
            entry["certified"] = bool(closed and sub.exact)
            entry["why"] = why if ok else "the certificate does not check: " + why
            if entry["certified"]:
                top = sub.value if top is None else max(top, sub.value)
        out.append(entry)
    return out, top


def _nearby_parameters(net, kinks) -> list:
    """(θ + Δ, its description) for each sign combination of :func:`nearby_values`."""
    kinks = sorted(kinks)
    nz = [abs(v) for v in net.parameters() if v != 0]
    delta = Q(1, 64)
    while nz and delta * 64 > min(nz):
        delta /= 2
    if len(kinks) <= 2:
        signs = list(itertools.product((1, -1), repeat=len(kinks)))
    else:
        signs = [(1,) * len(kinks), (-1,) * len(kinks)]
    names = net.parameter_names()
    offs = parameter_offsets(net)
    out = []
    for sg in signs:
        theta = list(net.parameters())
        change = []
        for (t, j), s in zip(kinks, sg):
            k = offs[t] + net.widths[t + 1] * net.widths[t] + j
            theta[k] += s * delta
            change.append(f"{names[k]} {'+' if s > 0 else '-'}= {delta}")
        out.append((theta, ", ".join(change)))
    return out
