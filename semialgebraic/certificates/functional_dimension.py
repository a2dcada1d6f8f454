"""Builder of ``functional_dimension`` certificates (schema:
:mod:`semialgebraic.verify.functional_dimension`)."""

from __future__ import annotations

from typing import Any, Sequence

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ._json import jsonable

__all__ = ["dimension_bounds_certificate"]


def dimension_bounds_certificate(net: Network, *, prime: int, inputs: Sequence[Sequence[Any]],
                                 lower: int, domain: Any = None, upper: int | None = None,
                                 upper_directions: Sequence | None = None,
                                 upper_regions: Sequence | None = None,
                                 upper_one_point: bool = False, upper_reason: str | None = None,
                                 uncertified_upper_reason: str | None = None,
                                 shared_proofs: Sequence | None = None,
                                 fiber_moves: Sequence | None = None,
                                 fiber_lower: int | None = None) -> dict:
    """Certificate of ``functional dimension >= lower`` (the Jacobian rows at the exact *inputs*
    have rank >= lower modulo *prime*) and, when one of *upper_directions*, *upper_regions*,
    *upper_one_point* certifies it, of ``<= upper``.  An upper bound that is not certified is
    not put into the certificate (say why in *uncertified_upper_reason*); *domain* is the JSON
    form (None, ``{"box": [lo, hi]}``, ``{"orthant": True}``); *shared_proofs*: the proofs the
    ``upper_directions`` entries refer to by index (JSON-ready, stored as given);
    *fiber_moves* and *fiber_lower*: moves that keep the function and the rank of their vectors,
    a lower bound of the fiber's dimension at θ (three-layer-fibers R40; both or neither).

    >>> net = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> c = dimension_bounds_certificate(net, prime=1000003, inputs=[[1]], lower=2)
    >>> c["claim"], "upper" in c
    ('rank of the Jacobian of theta -> (f_theta(x))_x >= lower', False)
    """
    certified = upper_directions is not None or upper_regions is not None or upper_one_point
    if certified and upper is None:
        raise ValueError("a certified upper bound needs its value")
    cert = {**header("functional_dimension"),
            "claim": CLAIMS["functional_dimension"][1 if certified else 0],
            "network": net.to_dict(), "domain": jsonable(domain), "prime": int(prime),
            "inputs": [jsonable(list(x)) for x in inputs], "lower": int(lower)}
    if certified:
        cert["upper"] = int(upper)
    if upper_reason is not None:
        cert["upper_reason"] = str(upper_reason)
    if upper_one_point:
        cert["upper_one_point"] = True
    if upper_directions is not None:
        cert["upper_directions"] = jsonable(list(upper_directions))
    if shared_proofs:
        cert["shared_proofs"] = list(shared_proofs)
    if upper_regions is not None:
        cert["upper_regions"] = jsonable(list(upper_regions))
    if not certified and uncertified_upper_reason is not None:
        cert["uncertified_upper_reason"] = str(uncertified_upper_reason)
    if (fiber_moves is None) != (fiber_lower is None):
        raise ValueError("fiber_moves and fiber_lower go together")
    if fiber_moves is not None:
        cert["fiber_moves"] = jsonable(list(fiber_moves))
        cert["fiber_lower"] = int(fiber_lower)
    return cert
