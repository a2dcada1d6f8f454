"""Builder of ``one_hidden_layer_dimension`` certificates (schema:
:mod:`semialgebraic.verify.one_hidden_layer_dimension`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network
from algebra.rationals import to_q

from ._json import embed_network, jsonable

__all__ = ["one_hidden_layer_dimension_certificate"]


def one_hidden_layer_dimension_certificate(net: Network, domain, value: int, halfspaces=(),
                                           evidence: dict | None = None, interior=None) -> dict:
    """Certificate that the functional dimension of the one-hidden-layer *net* on *domain* (None:
    R^d; ``"orthant"``; ``(lo, hi)``: the cube; ``[(lo_k, hi_k)]``: a box) is *value*, by
    three-layer-fibers R38 and R39 (every neuron dead on the domain, active on all of it, or
    switching inside it on a hyperplane of its own); the checker re-classifies the neurons,
    re-ranks the active ones' linear block and recounts the kernel.  With *halfspaces*
    (``[(a, b)]``, the box ``[(lo_k, hi_k)]`` cut by ``a·x <= b``): *interior*, a point strictly
    inside, and *evidence* ``{i: {"dead": y} | {"active": y} | {"switching": [x+, x−]}}`` for the
    neurons the box does not classify (:func:`semialgebraic.dimension.one_layer.classify_on_cut`)."""
    if domain is None:
        dom = None
    elif domain == "orthant":
        dom = {"orthant": True}
    elif isinstance(domain, tuple):
        dom = {"box": [jsonable(to_q(domain[0])), jsonable(to_q(domain[1]))]}
    else:
        dom = {"box": [[jsonable(to_q(lo)), jsonable(to_q(hi))] for lo, hi in domain]}
    out = {**header("one_hidden_layer_dimension"), "claim": CLAIMS["one_hidden_layer_dimension"][0],
           "network": embed_network(net), "domain": dom, "value": int(value)}
    if halfspaces:
        q = lambda v: jsonable(to_q(v))
        dom["halfspaces"] = [{"a": [q(v) for v in a], "b": q(b)} for a, b in halfspaces]
        dom["interior"] = [q(v) for v in interior]
        out["evidence"] = {str(i): {kind: [[q(v) for v in x] for x in got] if kind == "switching"
                                    else [q(v) for v in got]
                                    for kind, got in ev.items()}
                           for i, ev in sorted((evidence or {}).items())}
    return out
