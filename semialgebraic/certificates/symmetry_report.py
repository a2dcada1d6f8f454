"""Builder of ``symmetry_report`` certificates (schema: :mod:`semialgebraic.verify.symmetry_report`)."""

from __future__ import annotations

from typing import Sequence

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ._json import embed_network

__all__ = ["symmetry_report_certificate"]


def symmetry_report_certificate(net: Network, copies: Sequence[dict], *,
                                identifiability: dict | None = None,
                                orthant: bool = False) -> dict:
    """Certificate that every parameter listed for *net* by ``symmetries`` or ``fiber`` computes
    its function: *copies* are ``symmetry_path`` or ``region_cover`` certificates with ``a`` =
    *net* (on R^d, or on the closed orthant with *orthant*), *identifiability* identify's
    certificate of *net* (or None).

    >>> from semialgebraic.certificates import symmetry_path_certificate
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> c = symmetry_report_certificate(a, [symmetry_path_certificate(a, a, [])])
    >>> c["type"], len(c["copies"]), c["domain"], c["identifiability"]
    ('symmetry_report', 1, None, None)
    """
    return {**header("symmetry_report"), "claim": CLAIMS["symmetry_report"][0],
            "network": embed_network(net), "domain": {"orthant": True} if orthant else None,
            "copies": list(copies), "identifiability": identifiability}
