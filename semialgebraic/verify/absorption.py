"""Checker of ``absorption`` certificates (skip-absorption.md §7), independent of the deciding code.

Schema (version 1; built by :func:`semialgebraic.certificates.absorption_certificate`)::

    {"format": "netfibers.certificate", "type": "absorption",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "absorbable" | "not absorbable",
     "competitor": COMPETITOR | COMPETITOR_BIASES,
     "block": <netfibers.block dict: Block, stack ("blocks") or Hyper-Connection ("streams")>,
     "witness": {"kind": ..., ...}}

``competitor`` is one of the two texts of :mod:`algebra.kernel.certificate_schemas`: the class
the claim is about, residual-free blocks of the same width and activation without biases (R1)
or with biases ``b'_up``, ``b'_down`` (R19).  It is checked: "absorbable" without biases needs a
bias-free residual-free block (the absorbing block, or the block itself for ``skip_zero``);
"not absorbable" with biases needs an obstruction that holds against biased competitors
(``bounded``, R18; FIND-S and the exhaustive search on the affine classes of a block with
biases, R19); the other obstructions (``degree``, ``jacobian``, the bias-free FIND-S) are about
bias-free competitors only.

Witness kinds and what is re-checked here (imports ``algebra`` only):

``skip_zero``        (yes) every skip is zero: the block is residual-free already.
``flip``             (yes) ``S``, ``absorbing_block``: the block is exactly the flip D_S of R9/R19
                     (W'_up = D_S W_up, W'_down = W_down, b'_up = D_S b_up, b'_down = b_down +
                     W_down[:,S] b_up[S]), the activation has σ(z) − σ(−z) = z, and
                     W_down[:,S] W_up[S,:] = −M exactly; ReLU/GELU: canonical forms equal (small
                     blocks); ReLU: exact values agree at a few points.  Optional ``all_S``: the
                     flip sets the decider found (FIND-S lists every one when its enumeration is
                     complete; completeness is not part of the claim and is reported, not
                     certified); each listed set is re-checked here like ``S`` (distinct indices
                     in range, W_down[:,S'] W_up[S',:] = −M), no set is listed twice and ``S`` is
                     one of them.
``general``          (yes) ``absorbing_block`` (ReLU, GELU without biases): canonical forms (R14,
                     recomputed here; ReLU with biases: affine classes) are equal.
``degree``           (no) p, j, f(e_j), f(2e_j): exact values, f(2e_j) − 2^p f(e_j) ≠ 0 (R5).
``jacobian``         (no) an entry of M (stack: of M_L ⋯ M_1) ≠ 0, every gate flat or p > 1 (R6/R7).
``bounded``          (no) an entry of M (or of the product) ≠ 0, bounded activations (R18).
``left_null``        (no, nondegenerate ReLU/GELU) Y (sparse ``[i, j, value]``, over Q or mod
                     ``modulus``) with a_iᵀ Y w_i = 0 for all i and ⟨Y, −M⟩ ≠ 0.  Mod p this rules
                     out every p-integral solution, in particular every 0/1 vector.
``linear_system``    (no, nondegenerate) the solution space x0 + span(basis) of A ξ = vec(−M)
                     (over Q, or mod p on the listed ``rows``), its rank re-computed, and every
                     0/1 assignment of the ``free`` coordinates failing (``rejected`` candidates
                     fail exactly over Q).
``exhausted_search`` (no, ReLU/GELU) the canonical form is recomputed and the R15 search over
                     {+1, −1, pair}^c re-run.
``per_block``        (yes, stack) ``blocks``: one yes-witness (``skip_zero``, ``flip`` or
                     ``general``) per block of the stack, each re-checked against its block as
                     above (and against the competitor class); equal blocks compose to equal
                     stacks (skip-absorption R20, the composition of per-block absorptions).
"""

from __future__ import annotations

from algebra.blocks import Block, BlockStack, HyperConnectionBlock, IntegerArray
from algebra.io.blocks import block_from_dict as _block_from_dict
from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.kernel.certificate_schemas import COMPETITOR, COMPETITOR_BIASES, check_header
from algebra.rationals import Q

from .absorption_obstructions import (_canon, _check_bounded, _check_degree, _check_exhausted,
                                      _check_jacobian, _check_left_null, _check_linear_system,
                                      _entry, _nonzero_bias, _skip)

__all__ = ["check"]


def block_from_dict(data, source: str):
    """The block of a certificate field: its JSON dict parsed, or (a large block, rebuilt from
    the binary sidecar by ``resolve_sidecar`` or kept in-process) the block object itself."""
    if isinstance(data, (Block, BlockStack, HyperConnectionBlock)):
        return data
    return _block_from_dict(data, source=source)


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "absorption")
    claim = cert["claim"]
    if cert["competitor"] not in (COMPETITOR, COMPETITOR_BIASES):
        raise InputError(f"unknown competitor class {cert['competitor']!r}")
    biased_competitor = cert["competitor"] == COMPETITOR_BIASES
    obj = block_from_dict(cert["block"], source="certificate[block]")
    w = cert["witness"]
    if not isinstance(w, dict) or "kind" not in w:
        raise InputError("witness must be an object with a 'kind'")
    kind = w["kind"]
    if not isinstance(kind, str):
        raise InputError(f"witness kind must be a string, got {type(kind).__name__}")
    if isinstance(obj, BlockStack) and obj.depth == 1:
        obj = obj.blocks[0]
    if isinstance(obj, HyperConnectionBlock):
        obj = obj.vectorized()
    yes = {"skip_zero", "flip", "general", "per_block"}
    no = {"degree", "jacobian", "bounded", "left_null", "linear_system", "exhausted_search"}
    if kind not in yes | no:
        raise InputError(f"unknown witness kind {kind!r}")
    if (kind in yes) != (claim == "absorbable"):
        return False, f"witness kind {kind!r} cannot support the claim {claim!r}"
    why = _competitor_mismatch(obj, kind, w, biased_competitor)
    if why:
        return False, why
    try:
        if isinstance(obj, BlockStack) and kind == "per_block":
            return _check_per_block(obj, w, biased_competitor)
        if isinstance(obj, BlockStack):
            return _check_stack(obj, kind, w)
        return _CHECKS[kind](obj, w)
    except (TypeError, KeyError, IndexError) as exc:
        # a witness field of the wrong JSON type or shape (the checks above validate the
        # common ones): the certificate is malformed; this never turns a rejection into "valid"
        what = f"missing key {exc}" if isinstance(exc, KeyError) else f"{type(exc).__name__}: {exc}"
        raise InputError(f"malformed {kind} witness: {what}") from None


# -- helpers ------------------------------------------------------------------------------------
def _competitor_mismatch(obj, kind: str, w: dict, biased: bool) -> str:
    """"" when the witness kind speaks about the claimed competitor class, else why not."""
    blocks = obj.blocks if isinstance(obj, BlockStack) else [obj]
    if not biased:
        if kind == "skip_zero" and any(_nonzero_bias(b) for b in blocks):
            return "the block has biases: it is not a residual-free block without biases"
        if kind in ("flip", "general"):
            g = w.get("absorbing_block")
            try:
                g = block_from_dict(g, source="certificate[witness.absorbing_block]")
            except InputError:
                return ""                     # malformed: reported by the witness check
            if isinstance(g, Block) and _nonzero_bias(g):
                return "the absorbing block has biases: the competitor class has none"
        return ""
    if kind in ("skip_zero", "flip", "general", "per_block", "bounded"):
        return ""                             # yes: a larger class (per_block: each member's
        #                                       witness is checked alike); bounded: R18 allows
        #                                       biases (a stack of blocks with biases was an
        #                                       internal error: the absorb audit, session 37)
    if kind in ("left_null", "linear_system", "exhausted_search") and \
            all(_nonzero_bias(b) for b in blocks):
        return ""                             # R19: the affine classes of a block with biases
    return f"a {kind} witness does not rule out competitors with biases"


def _points(d: int):
    pts = [[Q(1) if i == j else Q(0) for i in range(d)] for j in range(d)]
    pts += [[-x for x in p] for p in pts]
    pts.append([Q(i + 1, 3) * (-1) ** i for i in range(d)])
    pts.append([Q(2 * i - 5, 7) for i in range(d)])
    return pts


# -- yes ----------------------------------------------------------------------------------------
def _check_skip_zero(b: Block, w) -> tuple[bool, str]:
    if not _skip(b).is_zero():
        return False, "the skip is not zero"
    return True, "the skip is zero: the block is residual-free"


def _check_flip(b: Block, w) -> tuple[bool, str]:
    if b.activation.is_gated or not b.activation.is_odd_identity:
        return False, f"{b.activation.name} lacks sigma(z) - sigma(-z) = z: the flip does not apply"
    S = w.get("S")
    if not isinstance(S, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in S):
        raise InputError("witness 'S' must be a list of unit indices")
    if len(set(S)) != len(S) or any(not 0 <= i < b.k for i in S):
        return False, "S has repeated or out-of-range indices"
    if "all_S" in w:
        ok, why = _check_all_s(b, S, w["all_S"])
        if not ok:
            return False, why
    g = block_from_dict(w.get("absorbing_block"), source="certificate[witness.absorbing_block]")
    if not isinstance(g, Block):
        raise InputError("absorbing_block must be a single block")
    if g.activation.name != b.activation.name or g.k != b.k or g.d != b.d:
        return False, "absorbing block differs in activation or shape"
    if not _skip(g).is_zero():
        return False, "absorbing block has a skip"
    d, k = b.d, b.k
    sgn = [Q(-1) if i in set(S) else Q(1) for i in range(k)]
    if not _is_flip_of(b, g, S, sgn):
        return False, "absorbing block is not the flip D_S of the block"
    bu = list(b.b_up) if b.b_up is not None else [Q(0)] * k
    gbu = list(g.b_up) if g.b_up is not None else [Q(0)] * k
    if gbu != [s * x for s, x in zip(sgn, bu)]:
        return False, "b'_up is not D_S b_up"
    bd = list(b.b_down) if b.b_down is not None else [Q(0)] * d
    corr = [Q(0)] * d
    if any(bu[i] != 0 for i in S):
        corr = [sum((b.w_down[r, i] * bu[i] for i in S), Q(0)) for r in range(d)]
    gbd = list(g.b_down) if g.b_down is not None else [Q(0)] * d
    if gbd != [x + y for x, y in zip(bd, corr)]:
        return False, "b'_down is not b_down + W_down[:,S] b_up[S]"
    prod = (b.w_down.submatrix(cols=S) @ b.w_up.submatrix(rows=S)) if S else QMatrix.zeros(d, d)
    if prod != -_skip(b):
        return False, "W_down[:,S] W_up[S,:] != -M"
    if b.activation.name in ("relu", "gelu") and d * k <= 20000 and not (b.activation.name == "gelu" and _nonzero_bias(b)):
        aff = _nonzero_bias(b) or _nonzero_bias(g)
        if _canon(b, aff) != _canon(g, aff):
            return False, "canonical forms differ"  # cannot happen when the identity holds
    if b.activation.name == "relu" and d * k <= 20000:
        for x in _points(d):
            if b(x) != g(x):
                return False, f"values differ at {x}"
    shown = (str(S) if len(S) <= 12 else     # (230 indices were printed: s48 hostile audit)
             f"[{', '.join(map(str, S[:6]))}, …, {S[-1]}] ({len(S)} indices, in the certificate)")
    return True, f"flip of S = {shown}: W_down[:,S] W_up[S,:] = -M (R9)"


def _is_flip_of(b: Block, g: Block, S: list, sgn: list) -> bool:
    """g.W_up = D_S b.W_up and g.W_down = b.W_down: on the integer views when both blocks have
    them (rows of S negated, compared over the least common denominators), else over Q."""
    views = [x.integer_matrix(n) for x in (b, g) for n in ("w_up", "w_down")]
    if all(v is not None for v in views):
        import numpy as np
        bu, bd, gu, gd = views
        if not (bu.N[S] == np.iinfo(np.int64).min).any():
            N = bu.N.copy()
            N[S] *= -1
            return gu == IntegerArray(N, bu.den) and gd == bd
    return g.w_up == QMatrix.diagonal(sgn) @ b.w_up and g.w_down == b.w_down


def _check_all_s(b: Block, S: list, all_s) -> tuple[bool, str]:
    """Every listed flip set S' satisfies W_down[:,S'] W_up[S',:] = -M; none twice; S listed
    (S itself is checked by the caller)."""
    if not isinstance(all_s, list) or not all(
            isinstance(t, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in t)
            for t in all_s):
        raise InputError("witness 'all_S' must be a list of lists of unit indices")
    seen = set()
    target = -_skip(b)
    for n, T in enumerate(all_s):
        key = tuple(sorted(T))
        if len(set(T)) != len(T) or any(not 0 <= i < b.k for i in T):
            return False, f"all_S[{n}] has repeated or out-of-range indices"
        if key in seen:
            return False, f"all_S[{n}] = {T} is listed twice"
        seen.add(key)
        if key == tuple(sorted(S)):
            continue
        prod = (b.w_down.submatrix(cols=T) @ b.w_up.submatrix(rows=T)) if T else QMatrix.zeros(b.d, b.d)
        if prod != target:
            return False, f"all_S[{n}] = {T} is not a flip set: W_down[:,S] W_up[S,:] != -M"
    if tuple(sorted(S)) not in seen:
        return False, "S is not one of the listed all_S"
    return True, ""


def _check_general(b: Block, w) -> tuple[bool, str]:
    g = block_from_dict(w.get("absorbing_block"), source="certificate[witness.absorbing_block]")
    if not isinstance(g, Block):
        raise InputError("absorbing_block must be a single block")
    if g.activation.name != b.activation.name or g.k != b.k or g.d != b.d or g.activation.is_gated:
        return False, "absorbing block differs in activation or shape"
    if not _skip(g).is_zero():
        return False, "absorbing block has a skip"
    name = b.activation.name
    odd = name in ("gelu", "silu", "gelu_tanh")     # σ(z) − σ(−z) = z, no biases
    if odd and _b_down_only(b) and _b_down_only(g):  # a constant b_down on both sides: it must be
        bd, gd = _bias(b.b_down, b.d), _bias(g.b_down, g.d)   # the same, the rest compared bare
        if bd != gd:
            return False, "b_down differs (GELU, SiLU, tanh-GELU: b_down is compared, not formed)"
        b, g = b.replace(b_down=None), g.replace(b_down=None)
    if name != "relu" and not (odd and not _nonzero_bias(b) and not _nonzero_bias(g)):
        return False, ("canonical forms compare only ReLU blocks and GELU, SiLU and tanh-GELU "
                       "blocks without b_up")
    aff = _nonzero_bias(b) or _nonzero_bias(g)
    if _canon(b, aff) != _canon(g, aff):
        return False, "canonical forms differ"
    if name == "relu":
        for x in _points(b.d):
            if b(x) != g(x):
                return False, f"values differ at {x}"
    if name in ("silu", "gelu_tanh"):           # equal forms: equal functions (sufficiency only)
        return True, (f"canonical forms are equal: {name} has σ(z) = z/2 + an even function, so "
                      "2 f(x) = (2M + W_down W_up) x + Σ_classes 2 a ψ(w·x) for both (R2's identity)")
    return True, "canonical forms (R14) are equal"


def _b_down_only(b: Block) -> bool:
    return not any(v is not None and any(x != 0 for x in v) for v in (b.b_up, b.b_gate))


def _bias(v, n: int) -> list:
    return [Q(0)] * n if v is None else list(v)


def _check_per_block(s: BlockStack, w, biased: bool) -> tuple[bool, str]:
    parts = w.get("blocks")
    if not isinstance(parts, list) or len(parts) != s.depth:
        raise InputError(f"witness 'blocks' must list one witness per block ({s.depth})")
    for i, (b, wi) in enumerate(zip(s.blocks, parts)):
        if not isinstance(wi, dict) or wi.get("kind") not in ("skip_zero", "flip", "general"):
            return False, f"block {i}: its witness is not a yes-witness of a single block"
        why = _competitor_mismatch(b, wi["kind"], wi, biased)
        if why:
            return False, f"block {i}: {why}"
        ok, why = _CHECKS[wi["kind"]](b, wi)
        if not ok:
            return False, f"block {i}: {why}"
    return True, (f"each of the {s.depth} blocks equals a residual-free block; their composition "
                  "is a residual-free stack (R20, composition)")


def _check_stack(s: BlockStack, kind, w) -> tuple[bool, str]:
    if kind == "skip_zero":
        if all(_skip(b).is_zero() for b in s.blocks):
            return True, "every skip is zero"
        return False, "a skip is not zero"
    if kind not in ("jacobian", "bounded"):
        return False, f"witness kind {kind!r} does not apply to a stack of {s.depth} blocks"
    P = QMatrix.identity(s.d)
    for b in s.blocks:
        P = _skip(b) @ P
    acts = [b.activation for b in s.blocks]
    if kind == "bounded":
        if not all(a.is_bounded for a in acts):
            return False, "not every activation is bounded"
    else:
        if any(_nonzero_bias(b) for b in s.blocks):
            return False, "the linearization obstruction needs blocks without biases"
        if not all(a.is_gate_flat or (a.homogeneity is not None and a.homogeneity > 1) for a in acts):
            return False, "some block's Jacobian at 0 need not vanish"
    ok, why = _entry(w, P)
    return (ok, why) if not ok else (True, f"M_L ... M_1 != 0 ({kind}, R7/R18)")


_CHECKS = {"skip_zero": _check_skip_zero, "flip": _check_flip, "general": _check_general,
           "degree": _check_degree, "jacobian": _check_jacobian, "bounded": _check_bounded,
           "left_null": _check_left_null, "linear_system": _check_linear_system,
           "exhausted_search": _check_exhausted}
