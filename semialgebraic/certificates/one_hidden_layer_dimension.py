"""Builder of ``one_hidden_layer_dimension`` certificates (schema:
:mod:`semialgebraic.verify.one_hidden_layer_dimension`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network
from algebra.rationals import to_q

from ._json import embed_network, jsonable

__all__ = ["one_hidden_layer_dimension_certificate"]


def one_hidden_layer_dimension_certificate(net: Network, domain, value: int) -> dict:
    """Certificate that the functional dimension of the one-hidden-layer *net* on *domain* (None:
    R^d; ``"orthant"``; ``(lo, hi)``: the cube; ``[(lo_k, hi_k)]``: a box) is *value*, by
    three-layer-fibers R38 and R39 (every neuron dead on the domain, active on all of it, or
    switching inside it on a hyperplane of its own); the checker re-classifies the neurons,
    re-ranks the active ones' linear block and recounts the kernel."""
    if domain is None:
        dom = None
    elif domain == "orthant":
        dom = {"orthant": True}
    elif isinstance(domain, tuple):
        dom = {"box": [jsonable(to_q(domain[0])), jsonable(to_q(domain[1]))]}
    else:
        dom = {"box": [[jsonable(to_q(lo)), jsonable(to_q(hi))] for lo, hi in domain]}
    return {**header("one_hidden_layer_dimension"), "claim": CLAIMS["one_hidden_layer_dimension"][0],
            "network": embed_network(net), "domain": dom, "value": int(value)}
