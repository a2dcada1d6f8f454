"""Builder of ``functional_dimension_sandwich`` certificates (schema:
:mod:`semialgebraic.verify.functional_dimension_sandwich`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network
from algebra.rationals import to_q

from ._json import embed_network, jsonable

__all__ = ["functional_dimension_sandwich_certificate"]


def functional_dimension_sandwich_certificate(net: Network, box, halfspaces, inner: dict | None,
                                              outer: dict | None, regions: tuple | None = None) -> dict:
    """Certificate of bounds of the functional dimension of *net* on the box ``∏ [lo_i, hi_i]``
    (*box*: ``[(lo_i, hi_i)]``) cut by the half-spaces ``a·x <= b`` (*halfspaces*: ``[(a, b)]``):
    the lower bound of *inner*, a ``functional_dimension`` certificate at inputs of that set (or a
    ``one_hidden_layer_dimension`` one on a box inside it), and the certified upper bound of
    *outer* (N when it certifies none), one on a set containing the box (three-layer-fibers
    R37); *regions* ``(value, [region, ...])``: the linear regions of the cut domain itself
    (``region_cover`` format, a complete walk) on which the Jacobian rows have exact rank
    *value*, the upper bound then (``upper_regions``)."""
    upper = (net.n_parameters if outer is None else
             int(outer.get("value", outer.get("upper", net.n_parameters))))
    if regions is not None:
        upper = min(upper, int(regions[0]))
    return {**header("functional_dimension_sandwich"),
            "claim": CLAIMS["functional_dimension_sandwich"][0],
            "network": embed_network(net),
            "domain": {"box": [[jsonable(to_q(lo)), jsonable(to_q(hi))] for lo, hi in box],
                       "halfspaces": [{"a": [jsonable(to_q(v)) for v in a], "b": jsonable(to_q(b))}
                                      for a, b in halfspaces]},
            "lower": 0 if inner is None else int(inner["value"] if "value" in inner else inner["lower"]),
            "upper": upper,
            **({} if inner is None else {"inner": inner}), **({} if outer is None else {"outer": outer}),
            **({} if regions is None else {"upper_regions": regions[1]})}
