"""Builder of ``region_cover`` certificates (schema: :mod:`semialgebraic.verify.region_cover`)."""

from __future__ import annotations

from typing import Any, Sequence

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ._json import jsonable

__all__ = ["region_cover_certificate"]


def region_cover_certificate(a: Network, b: Network, *, domain: Any = None,
                             contract: Sequence[dict] | None = None,
                             reduction: Sequence[dict] | None = None,
                             regions: Sequence[Any] = (), bounds: Sequence[dict] = ()) -> dict:
    """Certificate that *a* and *b* agree on *domain* (JSON form: None, ``{"box": [lo, hi]}``
    or ``{"orthant": True}``): the layer contractions *contract*, the reduction steps
    *reduction* of the difference network and its linear *regions* (JSON forms or objects with
    ``to_json``).  ``contract``/``reduction`` are left out when None.  *bounds*: the proved
    sides of a polyhedral domain's bounding box (:meth:`algebra.kernel.domains.Domain.sides`),
    over which the reductions took their interval bounds; left out when empty.

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> c = region_cover_certificate(a, a, domain={"box": [1, 1]})
    >>> c["claim"], c["regions"], "reduction" in c
    ('a(x) == b(x) for all x in the domain', [], False)
    """
    cert = {**header("region_cover"), "claim": CLAIMS["region_cover"][0],
            "a": a.to_dict(), "domain": jsonable(domain)}
    cert["b"] = cert["a"] if b is a else b.to_dict()     # (one network's JSON made once: 5 s
    #                                                     on a 768-3072-768 block, s49)
    if bounds:
        cert["bounds"] = jsonable(list(bounds))
    if contract is not None:
        cert["contract"] = jsonable(list(contract))
    if reduction is not None:
        cert["reduction"] = jsonable(list(reduction))
    cert["regions"] = jsonable([r.to_json() if hasattr(r, "to_json") else r for r in regions])
    return cert
