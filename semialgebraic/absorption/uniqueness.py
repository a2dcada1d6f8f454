"""Every absorbing block, up to permutation and positive scaling (skip-absorption R10).

skip-absorption R10 [derived]: under (N1)–(N3), for ReLU or GELU without biases (d ≥ 2, k ≥ d),
every residual-free block g of the same width with g(x) = M x + W_down σ(W_up x) is the flip
block of some valid S (W'_up = D_S W_up, W'_down = W_down; R9) up to a permutation of the hidden
units and, for ReLU only, positive rescalings (w'_i, a'_i) ↦ (λ w'_i, a'_i / λ), λ > 0.
Distinct valid sets S give inequivalent blocks: the flipped rows −w_i are, by (N2), no positive
multiple of any unflipped row.  So the absorbing blocks up to these symmetries are in bijection
with the 0/1 solutions S of Σ_{i∈S} a_i w_iᵀ = −M.

:func:`absorbing_blocks` lists them all with FIND-S over Q (complete enumeration only: a
modular or truncated search answers ``None``), and attaches a certificate of type
``absorbing_blocks`` that :mod:`semialgebraic.verify.absorbing_blocks` re-derives: the
hypotheses, the set of every 0/1 solution (by its own elimination) and each listed block.

>>> from algebra.blocks import Block
>>> v = absorbing_blocks(Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]))
>>> v.answer, v.details["all_S"]
(True, [[0, 1]])
"""

from __future__ import annotations

from algebra.blocks import Block
from algebra.exceptions import InputError

from ..budget import Budget
from ..certificates import absorbing_blocks_certificate
from ..exceptions import CertificateError
from ..verdict import Hypothesis, Verdict
from ..verify import verify as _verify
from .decide import flip_block, nondegeneracy
from .find_s import EXACT_LIMIT, find_s

__all__ = ["absorbing_blocks"]


def absorbing_blocks(block: Block, *, max_nullity: int = 16, timeout: float | None = None,
                     verify: bool = True) -> Verdict:
    """All absorbing blocks of *block* up to permutation and positive scaling (module docstring).

    ``answer`` True: the list in ``details["absorbing_blocks"]`` (possibly empty: then the block
    is not absorbable) is complete, with a certificate; None: a hypothesis of R10 fails or the
    enumeration is incomplete (nothing is claimed)."""
    if not isinstance(block, Block):
        raise InputError(f"R10 is about one block, got {type(block).__name__}")
    act = block.activation
    nd = list(nondegeneracy(block))
    hyps = nd + [Hypothesis("ReLU or GELU, ungated", act.name in ("relu", "gelu") and not act.is_gated),
                 Hypothesis("no biases", not block.has_nonzero_biases),
                 Hypothesis("d >= 2", block.d >= 2, {"d": block.d}),
                 Hypothesis("k >= d", block.k >= block.d, {"k": block.k, "d": block.d})]
    if not all(h.holds for h in hyps):
        failed = next(h.name for h in hyps if not h.holds)
        return Verdict(None, "uniqueness (R10)", f"R10 does not apply: {failed} fails", tuple(hyps))
    if block.d * block.d * block.k > EXACT_LIMIT:
        return Verdict(None, "uniqueness (R10)", "too large for the exact enumeration "
                       f"(d²k > {EXACT_LIMIT})", tuple(hyps))
    res = find_s(block.w_up, block.w_down, -block.skip_matrix, max_nullity=max_nullity,
                 budget=Budget(timeout=timeout), exact=True)
    if not res.complete:
        return Verdict(None, "uniqueness (R10)", f"enumeration incomplete: {res.reason}", tuple(hyps))
    subsets = [sorted(s) for s in res.subsets]
    blocks = [flip_block(block, s) for s in subsets]
    cert = absorbing_blocks_certificate(block, subsets, blocks)
    if verify:
        ok, why = _verify(cert)
        if not ok:
            raise CertificateError("absorbing_blocks", why)
    return Verdict(True, "uniqueness (R10, derived)",
                   f"{len(blocks)} absorbing block(s) up to permutation"
                   + (" and positive scaling" if act.name == "relu" else "")
                   + f": one flip block per valid S ({subsets})", tuple(hyps), cert,
                   {"all_S": subsets, "absorbing_blocks": [g.to_dict() for g in blocks],
                    "count": len(blocks)})
