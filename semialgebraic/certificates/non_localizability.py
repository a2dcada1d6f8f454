"""Builder of ``non_localizability`` certificates (schema:
:mod:`semialgebraic.verify.non_localizability`; three-layer-fibers R19)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

__all__ = ["non_localizability_certificate"]


def non_localizability_certificate(net: Network, composite: dict) -> dict:
    """Certificate that f2∘f1 and f3∘f2 of the two-hidden-layer *net* are identifiable (their
    [derived] sufficient criteria, re-derived by the checker) while f3∘f2∘f1 is not: *composite*
    is a ``symmetry_path`` certificate from *net* to a parameter with the same function and a
    different output bias b3 (which S1 + S2 never change).
    """
    if net.depth != 3:
        raise ValueError("R19 is about networks with two hidden layers")
    return {**header("non_localizability"), "claim": CLAIMS["non_localizability"][0],
            "network": net.to_dict(), "composite": composite}
