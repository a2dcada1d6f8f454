"""Builder of ``absorption`` certificates (schema: :mod:`semialgebraic.verify.absorption`)."""

from __future__ import annotations

from typing import Any

from algebra.kernel.certificate_schemas import CLAIMS, COMPETITOR, COMPETITOR_BIASES, header

from ._json import embed_block, jsonable

__all__ = ["absorption_certificate"]


def absorption_certificate(block: Any, claim: str, witness: dict, *, biases: bool = False) -> dict:
    """Certificate that *block* (a Block, BlockStack or HyperConnectionBlock, or its dict) is
    (``claim="absorbable"``) or is not (``"not absorbable"``) equal to a residual-free block of
    the same width, with the *witness* of its kind.  A large block (and a large
    ``absorbing_block``) is kept as the object: its matrices go to the binary sidecar
    (:func:`~semialgebraic.certificates._json.embed_block`).  *biases*: the competitor blocks may have
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
            "block": embed_block(block),
            "witness": _witness(witness)}


def _witness(witness: dict) -> dict:
    """The witness as JSON data, a large ``absorbing_block`` kept as the object (sidecar)."""
    g = witness.get("absorbing_block")
    out = jsonable({k: v for k, v in witness.items() if k != "absorbing_block"})
    if g is not None:
        out["absorbing_block"] = embed_block(g)
    return out
