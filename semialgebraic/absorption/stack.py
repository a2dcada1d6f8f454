"""Stacks whose every block is absorbable: compose the per-block certificates (skip-absorption R20).

skip-absorption R20 leaves open whether a stack of ReLU/GELU residual blocks can equal a
residual-free stack when some block is *not* absorbable.  When *every* block is absorbable the
answer is yes, by composition [derived]: if f_l = g_l as functions for each l (g_l residual-free
of the same width and activation, e.g. the flip block D_S of R9), then
f_L ∘ ⋯ ∘ f_1 = g_L ∘ ⋯ ∘ g_1, a residual-free stack of the same widths.  The certificate
(type ``absorption``, witness kind ``per_block``) lists one yes-witness per block (``flip``,
``general`` or ``skip_zero``); :mod:`semialgebraic.verify.absorption` re-checks each of them
against its block.  When some block is not absorbable (or undecided) nothing is claimed here.
"""

from __future__ import annotations

from algebra.blocks import BlockStack
from algebra.kernel.certificate_schemas import COMPETITOR, COMPETITOR_BIASES

from ..certificates import absorption_certificate
from ..verdict import Hypothesis, Verdict

__all__ = ["compose_block_certificates"]

_YES = ("flip", "general", "skip_zero")


def compose_block_certificates(stack: BlockStack, verdicts, hyps=()) -> Verdict | None:
    """A yes-verdict for *stack* when every per-block verdict in *verdicts* is yes with a
    certificate, the composed ``per_block`` certificate attached; ``None`` otherwise."""
    if len(verdicts) != stack.depth or not all(
            v.answer is True and v.certificate is not None
            and v.certificate["witness"].get("kind") in _YES for v in verdicts):
        return None
    biased = any(v.certificate["competitor"] == COMPETITOR_BIASES for v in verdicts)
    witness = {"kind": "per_block", "blocks": [v.certificate["witness"] for v in verdicts]}
    cert = absorption_certificate(stack, "absorbable", witness, biases=biased)
    methods = ", ".join(f"block {i}: {v.method}" for i, v in enumerate(verdicts))
    return Verdict(True, "composition of per-block absorptions (R20, derived)",
                   f"every one of the {stack.depth} blocks equals a residual-free block ({methods}); "
                   "composing them gives a residual-free stack equal to this one [derived]",
                   tuple(hyps) + (Hypothesis("every block absorbable", True),), cert,
                   {"per_block": [{"block": i, "answer": True, "method": v.method}
                                  for i, v in enumerate(verdicts)],
                    "competitor": COMPETITOR_BIASES if biased else COMPETITOR})
