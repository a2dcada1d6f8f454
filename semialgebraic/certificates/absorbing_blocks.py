"""Builder of ``absorbing_blocks`` certificates (schema: :mod:`semialgebraic.verify.absorbing_blocks`;
skip-absorption R10)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header

__all__ = ["absorbing_blocks_certificate"]


def absorbing_blocks_certificate(block, subsets, blocks) -> dict:
    """Certificate that *blocks* (the flip block of each set in *subsets*) are all the
    residual-free blocks equal to the single *block*, up to permutation and positive scaling
    (skip-absorption R10)."""
    return {**header("absorbing_blocks"), "claim": CLAIMS["absorbing_blocks"][0],
            "block": block.to_dict(), "all_S": [list(s) for s in subsets],
            "absorbing_blocks": [g.to_dict() for g in blocks]}
