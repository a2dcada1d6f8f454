"""Builder of ``absorption`` certificates (schema: :mod:`semialgebraic.verify.absorption`)."""

from __future__ import annotations

from typing import Any

from algebra.kernel.certificate_schemas import CLAIMS, COMPETITOR, COMPETITOR_BIASES, header

from ._json import jsonable

__all__ = ["absorption_certificate"]


def absorption_certificate(block: Any, claim: str, witness: dict, *, biases: bool = False) -> dict:
    """Certificate that *block* (a Block, BlockStack or HyperConnectionBlock, or its dict) is
    (``claim="absorbable"``) or is not (``"not absorbable"``) equal to a residual-free block of
    the same width, with the *witness* of its kind.  *biases*: the competitor blocks may have
    biases (R19) rather than none (R1).

    >>> from algebra.blocks import Block
    >>> c = absorption_certificate(Block("relu", [[1]], [[1]], skip="none"), "absorbable",
    ...                            {"kind": "skip_zero"})
    >>> c["claim"], c["witness"], c["competitor"].endswith("(R1)")
    ('absorbable', {'kind': 'skip_zero'}, True)
    """
    if claim not in CLAIMS["absorption"]:
        raise ValueError(f"claim must be one of {CLAIMS['absorption']}, not {claim!r}")
    if not isinstance(witness, dict) or "kind" not in witness:
        raise ValueError("the witness is a dict with a 'kind'")
    return {**header("absorption"), "claim": claim,
            "competitor": COMPETITOR_BIASES if biases else COMPETITOR,
            "block": block if isinstance(block, dict) else block.to_dict(),
            "witness": jsonable(witness)}
