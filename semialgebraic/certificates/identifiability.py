"""Builder of ``identifiability_hypotheses`` certificates (schema:
:mod:`semialgebraic.verify.identifiability`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

__all__ = ["identifiability_certificate", "affine_identifiability_certificate"]


def identifiability_certificate(net: Network, flip_sets: dict) -> dict:
    """Certificate that the two-hidden-layer bottleneck *net* meets every hypothesis of the
    identifiability criterion three-layer-fibers R18 (re-derived by the checker from the network
    alone; R18.5, no flip set of the second layer, shown as *flip_sets* says: the proof of
    :func:`semialgebraic.shallow.identifiability.flip_sets`), with the fiber dimension
    ``n1 + n2`` it implies.

    >>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-1, 2]], [[1, 1]]],
    ...                         [[0, 0], [1, -1], [0]])
    >>> identifiability_certificate(net, {"kind": "independent"})["fiber_dimension"]
    4
    """
    if net.depth != 3:
        raise ValueError("R18 is about networks with two hidden layers")
    _, n1, n2, _ = net.widths
    return {**header("identifiability_hypotheses"), "claim": CLAIMS["identifiability_hypotheses"][0],
            "network": net.to_dict(), "fiber_dimension": n1 + n2, "flip_sets": flip_sets}


def affine_identifiability_certificate(net: Network) -> dict:
    """Certificate that a network without hidden layers is identifiable: x -> W x + b determines
    W (its values at the unit vectors minus b) and b (its value at 0), so the fiber is the point
    itself (fiber dimension 0; no S1 or S2 step exists)."""
    if net.depth != 1:
        raise ValueError("the network has hidden layers")
    return {**header("identifiability_hypotheses"), "claim": CLAIMS["identifiability_hypotheses"][3],
            "network": net.to_dict(), "fiber_dimension": 0}
