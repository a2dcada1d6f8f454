"""Checker of ``absorbing_blocks`` certificates (skip-absorption R10, uniqueness).

Schema (version 1; built by :func:`semialgebraic.certificates.absorbing_blocks_certificate`)::

    {"format": "netfibers.certificate", "type": "absorbing_blocks",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "these are all absorbing blocks up to permutation and positive scaling
               (skip-absorption R10, derived)",
     "block": <netfibers.block dict, one block>,
     "all_S": [[i, ...], ...],                # every valid flip set, 0-based
     "absorbing_blocks": [<block dict>, ...]}  # the flip block of each, same order

Re-derived here: the hypotheses of R10 (ReLU or GELU without biases, (N1)–(N3), d ≥ 2, k ≥ d);
the set of all 0/1 solutions ξ of Σ_i ξ_i a_i w_iᵀ = −M, by an own exact elimination over Q and
enumeration of the free coordinates (at most 2^16 assignments), equal to ``all_S`` as a set;
and each listed block is the flip D_S of the block (checked by the ``flip`` witness check of
:mod:`semialgebraic.verify.absorption`).  The claim that nothing else absorbs up to the named
symmetries is R10 itself, a [derived] result.
"""

from __future__ import annotations

from algebra.blocks import Block
from algebra.exceptions import InputError
from algebra.io.blocks import block_from_dict
from algebra.linalg import QMatrix
from algebra.kernel.certificate_schemas import check_header
from algebra.rationals import Q

from .absorption import _check_flip
from .absorption_obstructions import _nondegenerate, _nonzero_bias, _skip

__all__ = ["check"]

_MAX_FREE = 16


def _zero_one_solutions(b: Block) -> set:
    """Every S (sorted tuple) with Σ_{i∈S} a_i w_iᵀ = −M, by elimination of the d² × k system."""
    k, d = b.k, b.d
    target = -_skip(b)
    eqs = [[b.w_down[p, i] * b.w_up[i, q] for i in range(k)] + [target[p, q]]
           for p in range(d) for q in range(d)]
    R, piv = QMatrix.from_rows(eqs).rref()
    if k in piv:
        return set()
    free = [j for j in range(k) if j not in piv]
    if len(free) > _MAX_FREE:
        raise InputError(f"{len(free)} free coordinates: more than 2^{_MAX_FREE} assignments")
    found = set()
    for mask in range(2 ** len(free)):
        xi = {f: Q((mask >> t) & 1) for t, f in enumerate(free)}
        ok = True
        for r, p in enumerate(piv):
            v = R[r, k] - sum((R[r, f] * xi[f] for f in free), Q(0))
            if v not in (0, 1):
                ok = False
                break
            xi[p] = v
        if ok:
            found.add(tuple(j for j in range(k) if xi[j] == 1))
    return found


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "absorbing_blocks")
    b = block_from_dict(cert["block"], source="certificate[block]")
    if not isinstance(b, Block):
        raise InputError("R10 is about one block")
    listed, blocks = cert["all_S"], cert["absorbing_blocks"]
    if not isinstance(listed, list) or not isinstance(blocks, list) or len(listed) != len(blocks):
        raise InputError("all_S and absorbing_blocks must be lists of the same length")
    ok, why = _nondegenerate(b)
    if not ok:
        return False, why
    if _nonzero_bias(b):
        return False, "R10 is stated for blocks without biases"
    if b.d < 2 or b.k < b.d:
        return False, "R10 needs d >= 2 and k >= d"
    for S in listed:
        if not isinstance(S, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in S):
            raise InputError("all_S must be a list of lists of unit indices")
        if len(set(S)) != len(S) or any(not 0 <= i < b.k for i in S):
            return False, f"S = {S} has repeated or out-of-range indices"
    keys = [tuple(sorted(S)) for S in listed]
    if len(set(keys)) != len(keys):
        return False, "a flip set is listed twice"
    if set(keys) != _zero_one_solutions(b):
        return False, "all_S is not the set of all 0/1 solutions of sum a_i w_i^T = -M"
    for S, g in zip(listed, blocks):
        ok, why = _check_flip(b, {"S": S, "absorbing_block": g})
        if not ok:
            return False, f"S = {S}: {why}"
    return True, (f"{len(keys)} absorbing block(s), one per 0/1 solution S; by R10 (derived) "
                  "every absorbing block is one of them up to permutation and positive scaling")
