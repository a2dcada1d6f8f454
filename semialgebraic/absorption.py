"""Skip absorption: can x ↦ M x + W_down σ(W_up x) equal a residual-free block of the same width?

Implements the dispatcher of skip-absorption.md §7.1 with exact arithmetic and a certificate for
every yes/no answer (checked by :mod:`semialgebraic.verify.absorption`, which shares no code with
this module):

* M = 0: the block already is residual-free.
* bounded activations (tanh, sigmoid), M ≠ 0: never (R18; biases allowed, also for stacks with
  M_L ⋯ M_1 ≠ 0) — witness an entry of M.
* positively homogeneous blocks of degree p ≠ 1 (ReLU^p, ReGLU, bilinear), M ≠ 0: never (R5);
  witness f(2e_j) − 2^p f(e_j) = (2 − 2^p) M e_j ≠ 0, exact values.
* gates with g(0) = 0, g = O(|z|) (SwiGLU, GeGLU; ReGLU, bilinear too): never (R6); witness
  J_f(0) = M ≠ 0.  Stacks of such blocks (and of p > 1 blocks): R7 with M_L ⋯ M_1 ≠ 0.
* sigmoid gate (GLU): not covered (exit 3).
* ReLU / GELU, one block: (N1)–(N3) checked exactly; nondegenerate → FIND-S (R16; Theorems
  8/10, R4 for singular M: every S is listed); degenerate, d = 1 or k < d → ABSORB-GENERAL (R15).
* ReLU with biases: the canonical-form search of §6 on *affine* hyperplanes {w·x + b = 0}
  (normalised by |lead(w)|; units with w = 0 are constants), against the competitor class
  "width-k ReLU block with biases b'_up, b'_down" (R19); nondegenerate (augmented rows (w_i, b_i)
  pairwise non-collinear) → FIND-S again, since the constant is matched by b'_down.
* GELU with biases, SiLU, tanh-GELU: yes with a flip certificate (R9/R19) when some S exists,
  otherwise "outside the theory" (exit 3).
* stacks of L ≥ 2 ReLU/GELU blocks: open problem (R20, exit 3) with the per-block verdicts as
  partial evidence.

FIND-S solves A ξ = vec(−M), A's column i = vec(a_i w_iᵀ), exactly over Q for small systems
(d²·k ≤ :data:`EXACT_LIMIT`); for large ones it works modulo a prime on k + 8 selected rows of
A (a superset of the 0/1 solutions), checks every candidate S exactly over Q, and certifies a "no"
by a vector Y (mod p) with a_iᵀ Y w_i ≡ 0 for all i and ⟨Y, −M⟩ ≢ 0: any 0/1 solution would
reduce mod p to a contradiction, so the certificate is an exact proof.

>>> from algebra.blocks import Block
>>> v = absorbable(Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]))
>>> v.answer, v.details["all_S"]
(True, [[0, 1]])
"""

from __future__ import annotations

import itertools
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction

from algebra.blocks import Block, BlockStack, HyperConnectionBlock
from algebra.exceptions import InputError
from algebra.matrices import QMatrix, nmod_rref, residues
from algebra.rationals import Q, lead, q_json, sign

from .budget import Budget
from .certificates import CERTIFICATE_FORMAT, jsonable
from .verdict import Hypothesis, Verdict

__all__ = ["absorbable", "canonical_form", "Canon", "find_s", "FindS", "absorb_general",
           "nondegeneracy", "flip_block", "random_block", "random_experiment", "wilson_interval",
           "analysis_block", "EXACT_LIMIT", "PRIMES", "MAX_BRUTE_SIGNS"]

EXACT_LIMIT = 1_000
"""FIND-S works over Q when d²·k is at most this, modulo a prime otherwise (rational elimination
of float-derived weights is ~1000x slower than the modular route already at d = 24, k = 96)."""

MAX_BRUTE_SIGNS = 16
"""Largest number of signs tried by brute force (2^16) in a "not absorbable" answer of
ABSORB-GENERAL; sign searches with no free pair left are linear and decided by FIND-S instead,
with their witnesses recorded in the certificate."""

PRIMES = (16777213, 16777199, 16777183, 16777153, 16777141, 16777139)
"""Primes below 2^24 (products of two residues fit int64 sums of 2^15 terms)."""

COMPETITOR = "residual-free block of the same width k and activation, without biases (R1)"
COMPETITOR_BIASES = ("residual-free block of the same width k and activation, with biases "
                     "b'_up and b'_down (R19)")


# ----------------------------------------------------------------------------------------------
# public API
# ----------------------------------------------------------------------------------------------
def absorbable(block, *, activation: str | None = None, timeout: float | None = None,
               max_nullity: int = 16, budget: Budget | None = None) -> Verdict:
    """Decide whether *block* equals a residual-free block of the same width (skip-absorption R1).

    Parameters
    ----------
    block : Block, BlockStack or HyperConnectionBlock
    activation : str, optional
        Replace the block's activation (e.g. to ask the same weights with GELU).
    timeout : float, optional
        Seconds; a search cut short answers None (exit 3) with the reason.
    max_nullity : int
        Largest nullity r of FIND-S's system whose 2^r assignments are enumerated.

    Returns
    -------
    Verdict
        ``answer`` True / False / None; ``certificate`` (type ``absorption``) for True/False;
        ``details["all_S"]`` lists every valid index set (0-based) when FIND-S ran.

    Examples
    --------
    >>> from algebra.blocks import Block
    >>> absorbable(Block("relu", [[1, 0], [0, 1]], [[1, 0], [0, 1]])).answer     # example C
    False
    >>> absorbable(Block("relu^2", [[1]], [[1]])).certificate["witness"]["kind"]   # P5a
    'degree'
    """
    budget = budget or Budget(timeout=timeout)
    if activation is not None:
        block = _with_activation(block, activation)
    if isinstance(block, HyperConnectionBlock):
        return _decide_hc(block, budget, max_nullity)
    if isinstance(block, BlockStack):
        if block.depth == 1:
            v = _decide_single(block.blocks[0], budget, max_nullity)
            return _rewrap(v, block)
        return _decide_stack(block, budget, max_nullity)
    if not isinstance(block, Block):
        raise InputError(f"expected a block, got {type(block).__name__}")
    return _decide_single(block, budget, max_nullity)


@dataclass(frozen=True)
class Canon:
    """Canonical form (R14) of a ReLU/GELU block: ``2 f(x) = Λ x + κ + Σ_q v_q e_q(x)``.

    ``linear`` is Λ = 2M + W_down W_up, ``constant`` κ (ReLU with biases, else None), ``classes``
    a sorted tuple of (u, β, v): ReLU — hyperplane {u·x + β = 0} with lead(u) = 1 and
    e_q = |u·x + β|; GELU — u = ±w with lead(u) > 0, β = 0, e_q = 2 e(u·x).
    """

    activation: str
    linear: QMatrix
    constant: tuple | None
    classes: tuple

    def to_json(self) -> dict:
        return {"activation": self.activation, "linear": self.linear.to_json(),
                "constant": None if self.constant is None else [q_json(x) for x in self.constant],
                "classes": [{"u": [q_json(x) for x in u], "beta": q_json(b), "v": [q_json(x) for x in v]}
                            for u, b, v in self.classes]}


def canonical_form(block: Block) -> Canon:
    """Canonical form R14 (ReLU, also with biases: affine hyperplanes; GELU without biases).

    >>> from algebra.blocks import Block
    >>> c = canonical_form(Block("relu", [[1], [2]], [[1, 1]]))          # example D
    >>> c.linear, [(u, v) for u, b, v in c.classes]
    (QMatrix([[5]]), [((1,), (3,))])
    """
    act = block.activation.name
    if act not in ("relu", "gelu") or block.activation.is_gated:
        raise InputError(f"canonical forms exist for relu and gelu blocks, not {act!r}")
    biased = block.has_nonzero_biases
    if biased and act == "gelu":
        raise InputError("no canonical form for GELU blocks with biases (outside the theory)")
    d, k = block.d, block.k
    lin = block.skip_matrix.scale(2) + block.w_down @ block.w_up
    up, down = block.w_up.to_rows(), block.w_down.T.to_rows()
    b_up = block.b_up or (Q(0),) * k
    const = [Q(0)] * d
    if biased:
        c = block.b_down or (Q(0),) * d
        const = [2 * x for x in c]
    classes: dict = {}
    for i in range(k):
        w, a, b = up[i], down[i], b_up[i]
        if all(x == 0 for x in a):
            continue
        lam = lead(w)
        if lam is None:
            if biased and b > 0:
                const = [x + 2 * ai * b for x, ai in zip(const, a)]
            continue
        if biased:
            const = [x + ai * b for x, ai in zip(const, a)]
        if act == "relu":
            u, beta, s = tuple(x / lam for x in w), b / lam, abs(lam)
        else:
            sg = sign(lam)
            u, beta, s = tuple(sg * x for x in w), Q(0), Q(1)
        key = (u, beta)
        acc = classes.get(key)
        classes[key] = [s * x for x in a] if acc is None else [y + s * x for y, x in zip(acc, a)]
    items = tuple(sorted(((u, beta, tuple(v)) for (u, beta), v in classes.items()
                          if any(x != 0 for x in v)),
                         key=lambda t: (tuple(map(Fraction, map(str, t[0]))), Fraction(str(t[1])))))
    return Canon(act, lin, tuple(const) if biased else None, items)


@dataclass
class FindS:
    """Result of :func:`find_s`: every valid S (0-based), completeness and the NO witness."""

    subsets: list
    complete: bool
    witness: dict | None
    rank: int | None = None
    nullity: int | None = None
    modulus: int | None = None
    reason: str = ""
    candidates: int = 0
    details: dict = field(default_factory=dict)


def find_s(w_up: QMatrix, w_down: QMatrix, target: QMatrix, *, max_nullity: int = 16,
           budget: Budget | None = None, exact: bool | None = None, seed: int = 0) -> FindS:
    """All S ⊆ {0..k−1} with W_down[:,S] W_up[S,:] = target (R16, FIND-S).

    Exact over Q when d²·k ≤ :data:`EXACT_LIMIT` (or *exact* is True); otherwise modulo a prime
    on selected rows, every candidate re-checked over Q.  When no S exists and the search is
    complete, ``witness`` is a ``left_null`` (Y) or ``linear_system`` record.

    >>> r = find_s(QMatrix.from_rows([[1, 0], [0, 1], [1, 1], [1, -1], [1, 2]]),
    ...            QMatrix.from_rows([[-1, 0, 1, 0, 1], [0, -1, 0, 1, 1]]), -QMatrix.identity(2))
    >>> r.subsets, r.rank, r.nullity                                            # example H
    ([(0, 1)], 4, 1)
    """
    budget = budget or Budget()
    k, d = w_up.shape
    if exact is None:
        exact = target.nrows * target.ncols * k <= EXACT_LIMIT
    if exact:
        return _find_s_exact(w_up, w_down, target, max_nullity, budget)
    return _find_s_modular(w_up, w_down, target, max_nullity, budget, seed)


def absorb_general(block: Block, *, budget: Budget | None = None):
    """ABSORB-GENERAL (R15) on the canonical form, also with ReLU biases (affine classes).

    Returns ``(True, absorbing_block)``, ``(False, {"canon": Canon, "per_T": [...]})`` (exhausted
    search; ``per_T`` holds the FIND-S witnesses of the linear sign searches) or
    ``(None, reason)`` when the budget ran out.

    >>> from algebra.blocks import Block
    >>> ok, g = absorb_general(Block("relu", [[1], [2]], [[1, 1]]))         # example D
    >>> ok, canonical_form(g) == canonical_form(Block("relu", [[1], [2]], [[1, 1]]))
    (True, True)
    >>> absorb_general(Block("gelu", [[1], [2]], [[1, 1]]))[0]
    False
    """
    budget = budget or Budget()
    canon = canonical_form(block)
    record: list = []
    found = _search_tau(canon, block.k, block.d, budget, record=record)
    if found is None:
        return None, f"search stopped ({budget.reason or 'budget'})"
    if found is False:
        if any("unchecked" in r for r in record):
            return None, (f"no assignment fits, but some sign search has more than 2^{MAX_BRUTE_SIGNS} "
                          "cases: too large for a checkable certificate")
        return False, {"canon": canon, "per_T": record}
    return True, _build_general_block(block, canon, *found)


def nondegeneracy(block: Block) -> tuple[Hypothesis, Hypothesis, Hypothesis]:
    """(N1) no zero row of W_up, (N2) rows pairwise non-collinear (negative multiples included;
    for ReLU with biases the augmented rows (w_i, b_i)), (N3) no zero column of W_down.

    >>> from algebra.blocks import Block
    >>> [h.holds for h in nondegeneracy(Block("relu", [[1, 0], [-1, 0], [0, 1]], [[1, 3, 0], [2, -1, -1]]))]
    [True, False, True]
    """
    augmented = block.has_nonzero_biases and block.b_up is not None
    mat = block.w_up
    if augmented:
        mat = QMatrix.from_rows([list(r) + [b] for r, b in zip(block.w_up.to_rows(), block.b_up)])
    ints = _int_rows(mat)
    dcols = block.d
    zero_row = next((i for i, r in enumerate(ints) if not any(r[:dcols])), None)
    seen: dict = {}
    pair = None
    for i, r in enumerate(ints):
        if not any(r[:dcols]):
            continue
        key = _primitive(r, dcols)
        if key in seen:
            pair = (seen[key], i)
            break
        seen[key] = i
    zero_col = next((i for i, c in enumerate(_int_rows(block.w_down.T)) if not any(c)), None)
    n2 = "(N2) rows of W_up pairwise non-collinear" + (" (augmented by b_up)" if augmented else "")
    return (Hypothesis("(N1) no zero row of W_up", zero_row is None,
                       None if zero_row is None else {"row": zero_row}),
            Hypothesis(n2, pair is None, None if pair is None else {"rows": list(pair)}),
            Hypothesis("(N3) no zero column of W_down", zero_col is None,
                       None if zero_col is None else {"column": zero_col}))


def flip_block(block: Block, S) -> Block:
    """The flip block of R9/R19: W'_up = D_S W_up, b'_up = D_S b_up, W'_down = W_down,
    b'_down = b_down + W_down[:,S] b_up[S], no skip.

    >>> from algebra.blocks import Block
    >>> g = flip_block(Block("relu", [[1, 0], [0, 1]], [[-1, 0], [0, -1]], b_up=[1, -2]), [0, 1])
    >>> g.w_up, g.b_up, g.b_down                                            # example A-bias
    (QMatrix([[-1, 0], [0, -1]]), (-1, 2), (-1, 2))
    """
    S = sorted(set(S))
    signs = [Q(-1) if i in set(S) else Q(1) for i in range(block.k)]
    w_up = QMatrix.diagonal(signs) @ block.w_up
    b_up = b_down = None
    if block.b_up is not None:
        b_up = tuple(s * b for s, b in zip(signs, block.b_up))
        corr = block.w_down.submatrix(cols=S).apply([block.b_up[i] for i in S]) if S else (Q(0),) * block.d
        base = block.b_down or (Q(0),) * block.d
        b_down = tuple(x + y for x, y in zip(base, corr))
    elif block.b_down is not None:
        b_down = block.b_down
    return Block(block.activation, w_up, block.w_down, skip="none", b_up=b_up, b_down=b_down)


def random_block(d: int, k: int, activation: str = "relu", rng: random.Random | None = None,
                 *, numerator: int = 10 ** 6, denominator: int = 10 ** 6) -> Block:
    """A block with identity skip and wide-range rational weights p/q, |p| ≤ 10^6, 1 ≤ q ≤ 10^6
    (continuous-like: pitfall 12 of skip-absorption.md)."""
    rng = rng or random.Random()

    def num():
        return Q(rng.randint(-numerator, numerator), rng.randint(1, denominator))

    return Block(activation, [[num() for _ in range(d)] for _ in range(k)],
                 [[num() for _ in range(k)] for _ in range(d)])


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson score interval for a binomial proportion (reporting only, never a decision).

    >>> [round(x, 4) for x in wilson_interval(0, 100)]
    [0.0, 0.037]
    """
    if trials <= 0:
        return 0.0, 1.0
    ph = successes / trials
    den = 1 + z * z / trials
    centre = (ph + z * z / (2 * trials)) / den
    half = z * math.sqrt(ph * (1 - ph) / trials + z * z / (4 * trials * trials)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


def random_experiment(d: int, k: int, trials: int, seed: int = 0, activation: str = "relu",
                      timeout: float | None = None) -> dict:
    """Measure-zero experiment (Cor. 11): fraction of random wide-range blocks that absorb.

    >>> r = random_experiment(2, 3, 5, seed=1)
    >>> r["absorbable"], r["not_absorbable"], r["undecided"]
    (0, 5, 0)
    """
    rng = random.Random(seed)
    counts = {True: 0, False: 0, None: 0}
    for _ in range(trials):
        v = absorbable(random_block(d, k, activation, rng), timeout=timeout)
        counts[v.answer] += 1
    decided = counts[True] + counts[False]
    lo, hi = wilson_interval(counts[True], decided)
    return {"d": d, "k": k, "activation": activation, "trials": trials, "seed": seed,
            "absorbable": counts[True], "not_absorbable": counts[False], "undecided": counts[None],
            "fraction": Fraction(counts[True], decided) if decided else None,
            "wilson_95": [f"{lo:.6f}", f"{hi:.6f}"],
            "distribution": "entries p/q, p uniform in [-10^6, 10^6], q uniform in [1, 10^6]"}


def analysis_block(block) -> dict:
    """Summary of a block for ``netfibers analyze BLOCK`` (shape, activation, absorption)."""
    v = absorbable(block)
    out: dict = {"kind": type(block).__name__}
    if isinstance(block, BlockStack):
        out.update(depth=block.depth, d=block.d, activations=[b.activation.name for b in block.blocks])
    elif isinstance(block, HyperConnectionBlock):
        out.update(streams=block.streams, d=block.d, k=block.k, activation=block.mlp.activation.name)
    else:
        out.update(d=block.d, k=block.k, activation=block.activation.name,
                   skip=block.skip if isinstance(block.skip, str) else "matrix",
                   biases=block.has_nonzero_biases)
        if block.activation.name in ("relu", "gelu") and not block.activation.is_gated:
            out["nondegeneracy"] = [h.to_json() for h in nondegeneracy(block)]
    out["absorption"] = {"answer": v.answer, "method": v.method, "reason": v.reason,
                         "all_S": v.details.get("all_S"), "exit_code": v.exit_code()}
    return out


# ----------------------------------------------------------------------------------------------
# dispatcher
# ----------------------------------------------------------------------------------------------
def _with_activation(block, activation):
    if isinstance(block, Block):
        return block.replace(activation=activation)
    if isinstance(block, BlockStack):
        return BlockStack([b.replace(activation=activation) for b in block.blocks])
    return HyperConnectionBlock(block.mlp.replace(activation=activation), block.streams,
                                block.mix_residual, block.mix_read, block.mix_write)


def _cert(block, claim: str, witness: dict, competitor: str = COMPETITOR) -> dict:
    return {"format": CERTIFICATE_FORMAT, "type": "absorption", "claim": claim,
            "competitor": competitor, "block": block.to_dict(), "witness": jsonable(witness)}


def _first_nonzero(m: QMatrix):
    for i, row in enumerate(m.to_rows()):
        for j, x in enumerate(row):
            if x != 0:
                return i, j, x
    return None


def _decide_single(block: Block, budget: Budget, max_nullity: int, *, embed=None) -> Verdict:
    embed = embed or block
    act = block.activation
    M = block.skip_matrix
    biased = block.has_nonzero_biases
    hyps = [Hypothesis("no biases", not biased,
                       None if not biased else [n for n in ("b_up", "b_down", "b_gate")
                                                if getattr(block, n) is not None and any(getattr(block, n))])]
    nz = _first_nonzero(M)
    hyps.append(Hypothesis("skip M != 0", nz is not None, None if nz is None else {"entry": [nz[0], nz[1]]}))
    competitor = COMPETITOR_BIASES if biased else COMPETITOR
    if nz is None:
        return Verdict(True, "residual-free", "the skip is zero: the block is already residual-free",
                       tuple(hyps), _cert(embed, "absorbable", {"kind": "skip_zero"}, competitor),
                       {"all_S": None})
    if act.is_bounded:
        return Verdict(False, "bounded (R18)",
                       f"{act.name} is bounded, so every residual-free block is bounded, while M x "
                       "grows along a ray (M != 0) [derived]", tuple(hyps),
                       _cert(embed, "not absorbable", {"kind": "bounded", "entry": [nz[0], nz[1]],
                                                       "value": nz[2]}, competitor))
    if act.is_gated or act.homogeneity not in (None, 1):
        if biased:
            return Verdict(None, "outside the theory",
                           "the obstructions R5-R7 need B(0) = 0 and homogeneity; with biases "
                           "absorption is not known (R19)", tuple(hyps))
        if act.homogeneity not in (None, 1):
            return _degree_verdict(block, embed, act.homogeneity, hyps)
        if act.is_gate_flat:
            return Verdict(False, "linearization (Prop. 6, R6)",
                           f"gate of {act.name} has g(0) = 0 and g = O(|z|): every residual-free "
                           "block has Jacobian 0 at 0, this one has M != 0", tuple(hyps),
                           _cert(embed, "not absorbable", {"kind": "jacobian", "entry": [nz[0], nz[1]],
                                                           "value": nz[2]}))
        return Verdict(None, "not covered", f"{act.name}: the gate has g(0) != 0 (sigmoid GLU), "
                       "not covered by the theory", tuple(hyps))
    # ungated, odd identity (relu, gelu, silu, gelu_tanh)
    if act.name == "relu" or (act.name == "gelu" and not biased):
        return _decide_relu_gelu(block, embed, budget, max_nullity, hyps)
    return _flip_only(block, embed, budget, max_nullity, hyps,
                      "GELU with biases" if act.name == "gelu" else f"{act.name} (necessity unknown)")


def _degree_verdict(block, embed, p, hyps):
    M = block.skip_matrix
    j = next(j for j in range(block.d) if any(x != 0 for x in M.col_at(j)))
    e = [Q(1) if i == j else Q(0) for i in range(block.d)]
    fe, f2e = block(e), block([2 * x for x in e])
    diff = [b - (2 ** p) * a for a, b in zip(fe, f2e)]
    assert any(x != 0 for x in diff)
    return Verdict(False, "degree (Prop. 5, R5)",
                   f"f(2e_{j}) - 2^{p} f(e_{j}) = {[q_json(x) for x in diff]} != 0, while every "
                   f"residual-free block of degree {p} gives 0", tuple(hyps),
                   _cert(embed, "not absorbable", {"kind": "degree", "p": p, "j": j,
                                                   "f_e": list(fe), "f_2e": list(f2e)}))


def _flip_only(block, embed, budget, max_nullity, hyps, what):
    res = find_s(block.w_up, block.w_down, -block.skip_matrix, max_nullity=max_nullity, budget=budget)
    if res.subsets:
        S = res.subsets[0]
        comp = COMPETITOR_BIASES if block.has_nonzero_biases else COMPETITOR
        return Verdict(True, "flip (R9/R19)", f"W_down[:,S] W_up[S,:] = -M for S = {list(S)}",
                       tuple(hyps), _flip_cert(block, embed, S, res, comp),
                       {"all_S": [list(s) for s in res.subsets], "complete": res.complete})
    note = "no flip set S exists" if res.complete else "flip search incomplete"
    return Verdict(None, "outside the theory",
                   f"{what}: {note}; only the flip certificate (sufficiency) is known here",
                   tuple(hyps), None, {"all_S": [], "complete": res.complete, "flip_search": res.reason})


def _flip_cert(block, embed, S, res, competitor):
    g = flip_block(block, S)
    return _cert(embed, "absorbable", {"kind": "flip", "S": list(S), "absorbing_block": g.to_dict(),
                                       "all_S": [list(s) for s in res.subsets]}, competitor)


def _decide_relu_gelu(block, embed, budget, max_nullity, hyps):
    d, k = block.d, block.k
    biased = block.has_nonzero_biases
    competitor = COMPETITOR_BIASES if biased else COMPETITOR
    nd = nondegeneracy(block)
    hyps = hyps + list(nd) + [Hypothesis("d >= 2", d >= 2, {"d": d}), Hypothesis("k >= d", k >= d, {"k": k, "d": d})]
    theorem = all(h.holds for h in nd) and d >= 2 and k >= d and not biased
    if theorem:
        inv = block.skip == "identity" or block.skip_matrix.det() != 0
        hyps.append(Hypothesis("M invertible (Lemma 4)", inv))
        theorem = inv
    if all(h.holds for h in nd):
        tag = ("Theorem 8" if block.activation.name == "relu" else "Theorem 10") if theorem else \
            ("R4/R15 with affine classes [derived]" if biased else "R4/R15 [derived]")
        res = find_s(block.w_up, block.w_down, -block.skip_matrix, max_nullity=max_nullity, budget=budget)
        details = {"all_S": [list(s) for s in res.subsets], "complete": res.complete,
                   "rank": res.rank, "nullity": res.nullity, "modulus": res.modulus}
        if res.subsets:
            S = res.subsets[0]
            return Verdict(True, f"find-s ({tag})",
                           f"W_down[:,S] W_up[S,:] = -M for S = {list(S)}"
                           + ("" if res.complete else " (enumeration incomplete: more S may exist)"),
                           tuple(hyps), _flip_cert(block, embed, S, res, competitor), details)
        if not res.complete:
            return Verdict(None, f"find-s ({tag})", f"undecided: {res.reason}", tuple(hyps), None, details)
        return Verdict(False, f"find-s ({tag})", f"no S with W_down[:,S] W_up[S,:] = -M: {res.reason}",
                       tuple(hyps), _cert(embed, "not absorbable", res.witness, competitor), details)
    ok, data = absorb_general(block, budget=budget)
    if ok is None:
        return Verdict(None, "absorb-general (R15)", f"undecided: {data}", tuple(hyps))
    if ok:
        return Verdict(True, "absorb-general (R15, derived)",
                       "degenerate block: a residual-free block with the same canonical form exists",
                       tuple(hyps), _cert(embed, "absorbable", {"kind": "general", "absorbing_block": data.to_dict()},
                                          competitor), {"all_S": None})
    canon = data["canon"]
    return Verdict(False, "absorb-general (R15, derived)",
                   f"degenerate block: no sign/pair assignment of the {len(canon.classes)} classes fits "
                   f"width {k} (exhausted search)", tuple(hyps),
                   _cert(embed, "not absorbable", {"kind": "exhausted_search", "canonical_form": canon.to_json(),
                                                   "per_T": data["per_T"]}, competitor), {"all_S": None})


def _decide_hc(block: HyperConnectionBlock, budget, max_nullity) -> Verdict:
    vec = block.vectorized()
    v = _decide_single(vec, budget, max_nullity, embed=block)
    extra = (Hypothesis("A_r invertible", block.mix_residual.det() != 0),
             Hypothesis("A_m != 0", any(x != 0 for x in block.mix_read)),
             Hypothesis("B != 0", any(x != 0 for x in block.mix_write)))
    return Verdict(v.answer, f"hyper-connections (R17) via {v.method}",
                   f"vectorized on R^{block.streams * block.d}: {v.reason}", extra + v.hypotheses,
                   v.certificate, v.details)


def _rewrap(v: Verdict, stack: BlockStack) -> Verdict:
    cert = v.certificate
    if cert is not None:
        cert = dict(cert, block=stack.to_dict())
    return Verdict(v.answer, v.method, v.reason, v.hypotheses, cert, v.details)


def _decide_stack(stack: BlockStack, budget, max_nullity) -> Verdict:
    blocks = stack.blocks
    P = QMatrix.identity(stack.d)
    for b in blocks:
        P = b.skip_matrix @ P
    biased = [i for i, b in enumerate(blocks) if b.has_nonzero_biases]
    hyps = [Hypothesis("no biases", not biased, biased or None)]
    if all(b.skip == "none" or b.skip_matrix.is_zero() for b in blocks):
        return Verdict(True, "residual-free", "every skip is zero", tuple(hyps),
                       _cert(stack, "absorbable", {"kind": "skip_zero"}))
    nz = _first_nonzero(P)
    hyps.append(Hypothesis("M_L ... M_1 != 0", nz is not None, None if nz is None else {"entry": [nz[0], nz[1]]}))
    acts = [b.activation for b in blocks]
    if nz is not None and all(a.is_bounded for a in acts):
        return Verdict(False, "bounded (R18, stack)", "each block is M_l y + bounded, so the stack is "
                       "P x + O(1) with P = M_L ... M_1 != 0, while a residual-free stack is bounded [derived]",
                       tuple(hyps), _cert(stack, "not absorbable", {"kind": "bounded", "entry": [nz[0], nz[1]],
                                                                   "value": nz[2]}, COMPETITOR_BIASES))
    flat = all((a.homogeneity not in (None, 1) and a.homogeneity > 1) or a.is_gate_flat for a in acts)
    if nz is not None and flat and not biased:
        return Verdict(False, "linearization (Cor. 7, R7)",
                       "every block fixes 0 with Jacobian M_l there; the stack has Jacobian "
                       "M_L ... M_1 != 0 at 0, every residual-free stack has 0", tuple(hyps),
                       _cert(stack, "not absorbable", {"kind": "jacobian", "entry": [nz[0], nz[1]], "value": nz[2]}))
    partial = []
    for i, b in enumerate(blocks):
        vb = _decide_single(b, budget, max_nullity)
        partial.append({"block": i, "answer": vb.answer, "method": vb.method})
    if any(a.name in ("relu", "gelu") for a in acts):
        return Verdict(None, "open problem (R20)",
                       f"compositions of {stack.depth} ReLU/GELU blocks: whether they can equal a "
                       "residual-free stack is open; per-block verdicts do not settle it",
                       tuple(hyps), None, {"per_block": partial})
    return Verdict(None, "not covered", "no result of the theory applies to this stack", tuple(hyps),
                   None, {"per_block": partial})


# ----------------------------------------------------------------------------------------------
# FIND-S
# ----------------------------------------------------------------------------------------------
def _find_s_exact(w_up, w_down, target, max_nullity, budget) -> FindS:
    k = w_up.nrows
    do, di = target.shape                      # d x d for a block; d x dim in ABSORB-GENERAL
    U, V, Z = w_up.to_rows(), w_down.to_rows(), target.to_rows()
    A = [[V[p][i] * U[i][q] for i in range(k)] for p in range(do) for q in range(di)]
    b = [Z[p][q] for p in range(do) for q in range(di)]
    R, piv = QMatrix.from_rows([row + [bb] for row, bb in zip(A, b)], ncols=k + 1).rref()
    if k in piv:  # inconsistent: Y with Aᵀ y = 0, bᵀ y = 1 (a particular, sparse solution)
        n = do * di
        rows = [[A[r][i] for r in range(n)] + [Q(0)] for i in range(k)] + [b + [Q(1)]]
        R2, piv2 = QMatrix.from_rows(rows, ncols=n + 1).rref()
        y = [Q(0)] * n
        for j, p in enumerate(piv2):
            y[p] = R2[j, n]
        Y = [[r // di, r % di, y[r]] for r in range(n) if y[r] != 0]
        return FindS([], True, {"kind": "left_null", "modulus": None, "Y": Y}, len(piv) - 1, None, None,
                     "the linear system A xi = vec(-M) is inconsistent (left-null vector Y)")
    rank = len(piv)
    free = [j for j in range(k) if j not in set(piv)]
    x0 = [Q(0)] * k
    for j, p in enumerate(piv):
        x0[p] = R[j, k]
    basis = []
    for f in free:
        v = [Q(0)] * k
        v[f] = Q(1)
        for j, p in enumerate(piv):
            v[p] = -R[j, f]
        basis.append(v)
    if len(free) > max_nullity:
        return FindS([], False, None, rank, len(free), None,
                     f"nullity {len(free)} > max_nullity {max_nullity}: 2^{len(free)} assignments not enumerated")
    coef = [[R[j, f] for f in free] for j in range(rank)]
    rhs = [R[j, k] for j in range(rank)]
    subsets, complete = [], True
    for z in itertools.product((0, 1), repeat=len(free)):
        if budget.exhausted():
            complete = False
            break
        vals = []
        for j in range(rank):
            val = rhs[j] - sum((c for c, zz in zip(coef[j], z) if zz), Q(0))
            if val != 0 and val != 1:
                break
            vals.append(val)
        else:
            xi = [0] * k
            for f, zz in zip(free, z):
                xi[f] = zz
            for p, val in zip(piv, vals):
                xi[p] = int(val)
            subsets.append(tuple(i for i in range(k) if xi[i] == 1))
    subsets.sort(key=lambda s: (len(s), s))
    witness = None
    if not subsets and complete:
        witness = {"kind": "linear_system", "modulus": None, "rows": None, "rank": rank, "free": free,
                   "x0": x0, "basis": basis, "rejected": []}
    why = ("unique solution" if not free else f"{2 ** len(free)} assignments of {len(free)} free variables")
    return FindS(subsets, complete, witness, rank, len(free), None,
                 f"rank A = {rank}, {why}: {'no' if not subsets else len(subsets)} 0/1 solution(s)")


def _find_s_modular(w_up, w_down, target, max_nullity, budget, seed) -> FindS:
    import numpy as np  # optional dependency, only for large blocks
    k = w_up.nrows
    do, di = target.shape
    n = do * di
    last = "no prime with invertible denominators"
    for p in PRIMES:
        try:
            V = np.array(residues(w_down, p), dtype=np.int64).reshape(do, k)
            U = np.array(residues(w_up, p), dtype=np.int64).reshape(k, di)
            Z = np.array(residues(target, p), dtype=np.int64).reshape(do, di)
        except ZeroDivisionError:
            continue
        rng = random.Random(seed)
        extra = 8
        for attempt in range(3):
            m = min(n, k + extra)
            support = [int(r) for r in np.flatnonzero(Z.ravel())][: max(1, m // 2)]
            chosen = set(support)
            rest = [r for r in rng.sample(range(n), min(n, m + len(chosen))) if r not in chosen]
            rows = support + rest[: m - len(support)]
            pi = np.array([r // di for r in rows], dtype=np.int64)
            qi = np.array([r % di for r in rows], dtype=np.int64)
            AE = (V[pi, :] * U[:, qi].T) % p           # m × k
            bE = Z[pi, qi]
            # Y-system: A_Eᵀ y = 0, b_Eᵀ y = 1
            top = np.concatenate([AE.T, np.zeros((k, 1), dtype=np.int64)], axis=1)
            bottom = np.concatenate([bE, np.ones(1, dtype=np.int64)])[None, :]
            piv, col = nmod_rref(k + 1, m + 1, np.concatenate([top, bottom]).ravel().tolist(), p, columns=[m])
            if m not in piv:
                y = [0] * m
                for j, pc in enumerate(piv):
                    y[pc] = col[j][0]
                Y = [[rows[r] // di, rows[r] % di, y[r]] for r in range(m) if y[r]]
                return FindS([], True, {"kind": "left_null", "modulus": p, "Y": Y}, None, None, p,
                             f"A xi = vec(-M) has no solution mod {p} on {m} selected rows "
                             "(left-null vector Y mod p)")
            aug = np.concatenate([AE, bE[:, None]], axis=1)
            piv, coef = nmod_rref(m, k + 1, aug.ravel().tolist(), p, columns="nonpivot")
            free = [j for j in range(k) if j not in set(piv)]
            if len(free) <= max_nullity or attempt == 2:
                break
            extra += k
        rank = len(piv)
        if len(free) > max_nullity:
            return FindS([], False, None, rank, len(free), p,
                         f"nullity mod {p} is {len(free)} > max_nullity {max_nullity}")
        C = np.array(coef, dtype=np.int64).reshape(rank, len(free) + 1)
        Cf, x0 = C[:, :-1], C[:, -1]
        subsets, rejected, complete = [], [], True
        r = len(free)
        total = 1 << r
        chunk = 1024
        for start in range(0, total, chunk):
            if budget.exhausted():
                complete = False
                break
            ns = np.arange(start, min(total, start + chunk), dtype=np.int64)
            zs = (ns[:, None] >> np.arange(r, dtype=np.int64)[None, :]) & 1
            vals = (x0[None, :] - zs @ Cf.T) % p
            okmask = np.all((vals == 0) | (vals == 1), axis=1)
            for idx in np.flatnonzero(okmask):
                xi = np.zeros(k, dtype=np.int64)
                xi[free] = zs[idx]
                xi[list(piv)] = vals[idx]
                S = tuple(int(i) for i in np.flatnonzero(xi))
                if _flip_product(w_up, w_down, S) == target:
                    subsets.append(S)
                else:
                    rejected.append(list(S))
        subsets.sort(key=lambda s: (len(s), s))
        witness = None
        if not subsets and complete:
            basis = []
            for fi, f in enumerate(free):
                v = [0] * k
                v[f] = 1
                for j, pc in enumerate(piv):
                    v[pc] = int(-Cf[j, fi] % p)
                basis.append(v)
            xfull = [0] * k
            for j, pc in enumerate(piv):
                xfull[pc] = int(x0[j])
            witness = {"kind": "linear_system", "modulus": p, "rows": [[rr // di, rr % di] for rr in rows],
                       "rank": rank, "free": free, "x0": xfull, "basis": basis, "rejected": rejected}
        return FindS(subsets, complete, witness, rank, r, p,
                     f"rank mod {p} = {rank}, nullity {r}: {len(subsets)} valid S "
                     f"({len(rejected)} modular candidate(s) rejected over Q)")
    return FindS([], False, None, None, None, None, last)


def _int_rows(m: QMatrix) -> list:
    """Rows of the integer matrix N with m = N / D (collinearity and zero tests only)."""
    num, _ = m.numer_denom()
    ints = [int(x) for x in num.entries()]
    c = m.ncols
    return [ints[i * c:(i + 1) * c] for i in range(m.nrows)]


def _primitive(row: list, dcols: int) -> tuple:
    """The row divided by its gcd, signed so that its first non-zero entry (among the first
    *dcols*) is positive: equal for two rows iff they are collinear."""
    g = math.gcd(*row)
    lead_entry = next(x for x in row[:dcols] if x)
    if lead_entry < 0:
        g = -g
    return tuple(x // g for x in row)


def _flip_product(w_up: QMatrix, w_down: QMatrix, S) -> QMatrix:
    if not S:
        return QMatrix.zeros(w_down.nrows, w_up.ncols)
    return w_down.submatrix(cols=list(S)) @ w_up.submatrix(rows=list(S))


# ----------------------------------------------------------------------------------------------
# ABSORB-GENERAL
# ----------------------------------------------------------------------------------------------
def _search_tau(canon: Canon, k: int, d: int, budget: Budget, max_tests: int = 50_000,
                record: list | None = None):
    """Find (T, signs) of R15, False when none exists, None when the budget ran out.

    For each set T of paired classes: when no free pair is left (Fp = 0) the sign condition is
    linear, Σ_{q∈S} v_q u_qᵀ N_T = (Σ_q v_q u_qᵀ N_T − Λ N_T)/2 with S = {q : τ_q = −1}, and
    FIND-S lists its 0/1 solutions; otherwise the 2^(c−|T|) signs are tried in Gray-code order.
    """
    cls = canon.classes
    c = len(cls)
    if c > k:
        return False
    lam = canon.linear
    tests = 0
    for t in range(0, min(c, k - c) + 1):
        fp = (k - c - t) // 2
        for T in itertools.combinations(range(c), t):
            if budget.exhausted():
                return None
            if T:
                NT = QMatrix.from_rows([list(cls[q][0]) for q in T]).nullspace().T
            else:
                NT = QMatrix.identity(d)
            rest = [q for q in range(c) if q not in T]
            if NT.ncols == 0 or fp >= min(d, NT.ncols):
                return T, {q: 1 for q in rest}
            base = lam @ NT
            if rest:   # R N_T = 0 is linear in the signs: FIND-S (decides when Fp = 0)
                ups = QMatrix.from_rows([list(cls[q][0]) for q in rest]) @ NT        # |rest| × dim
                downs = QMatrix.from_rows([list(cls[q][2]) for q in rest]).T          # d × |rest|
                target = ((downs @ ups) - base).scale(Q(1, 2))
                res = find_s(ups, downs, target, budget=budget)
                if res.subsets:
                    neg = {rest[i] for i in res.subsets[0]}
                    return T, {q: (-1 if q in neg else 1) for q in rest}
                if res.complete and fp == 0:
                    if record is not None:
                        record.append({"T": [list(cls[q][0]) + [cls[q][1]] for q in T],
                                       "order": [list(cls[q][0]) + [cls[q][1]] for q in rest],
                                       "witness": res.witness})
                    continue
            if record is not None and len(rest) > MAX_BRUTE_SIGNS:
                record.append({"unchecked": len(rest)})
            P = {q: QMatrix.column(cls[q][2]) @ (QMatrix.row(cls[q][0]) @ NT) for q in rest}
            start = base
            for q in rest:
                start = start - P[q]
            mod = _ModRank.of(start, [P[q] for q in rest])   # rank mod p <= rank over Q: a filter
            signs = {q: 1 for q in rest}
            for step in range(1 << len(rest)):
                if step:
                    bit = (step & -step).bit_length() - 1   # Gray code: flip one sign
                    q = rest[bit]
                    if mod is not None:
                        mod.flip(bit, signs[q])
                    signs[q] = -signs[q]
                tests += 1
                if tests > max_tests:
                    budget.reason = budget.reason or f"more than {max_tests} rank tests"
                    return None
                if step % 256 == 0 and budget.exhausted():
                    return None
                if mod is not None and mod.rank() > fp:
                    continue
                cur = base
                for q in rest:
                    cur = cur - P[q].scale(signs[q])
                if cur.rank() <= fp:
                    return T, dict(signs)
    return False


class _ModRank:
    """cur = start + 2 Σ (flipped) P_q maintained mod a prime, with a small rank routine."""

    __slots__ = ("p", "cur", "parts")

    @classmethod
    def of(cls, start: QMatrix, parts: list):
        obj = cls()
        obj.p = PRIMES[0]
        try:
            obj.cur = [residues(start, obj.p)]
            obj.parts = [residues(m, obj.p) for m in parts]
        except ZeroDivisionError:
            return None
        obj.cur = (obj.cur[0], start.nrows, start.ncols)
        return obj

    def flip(self, i: int, old_sign: int) -> None:
        vals, r, c = self.cur
        f = 2 * old_sign
        self.cur = ([(a + f * b) % self.p for a, b in zip(vals, self.parts[i])], r, c)

    def rank(self) -> int:
        vals, nr, nc = self.cur
        p = self.p
        rows = [vals[i * nc:(i + 1) * nc] for i in range(nr)]
        rank = 0
        for col in range(nc):
            piv = next((i for i in range(rank, nr) if rows[i][col]), None)
            if piv is None:
                continue
            rows[rank], rows[piv] = rows[piv], rows[rank]
            inv = pow(rows[rank][col], -1, p)
            prow = [x * inv % p for x in rows[rank]]
            for i in range(rank + 1, nr):
                f = rows[i][col]
                if f:
                    rows[i] = [(x - f * y) % p for x, y in zip(rows[i], prow)]
            rank += 1
        return rank


def _build_general_block(block: Block, canon: Canon, T, signs) -> Block:
    d, k = block.d, block.k
    cls = canon.classes
    units = []  # (w', b', a')
    R = canon.linear
    for q, s in signs.items():
        u, beta, v = cls[q]
        units.append(([s * x for x in u], s * beta, list(v)))
        R = R - QMatrix.column(v) @ QMatrix.row(u).scale(s)
    if T:
        indep = []
        for q in T:
            cand = indep + [q]
            if QMatrix.from_rows([list(cls[i][0]) for i in cand]).rank() == len(cand):
                indep = cand
        Pm = QMatrix.from_rows([list(cls[q][0]) for q in indep]).T       # d × |P|
        H = (R @ Pm) @ (Pm.T @ Pm).inverse()
        h = {q: H.col_at(i) for i, q in enumerate(indep)}
        for q in T:
            u, beta, v = cls[q]
            hq = h.get(q, (Q(0),) * d)
            units.append((list(u), beta, [(a + b) / 2 for a, b in zip(v, hq)]))
            units.append(([-x for x in u], -beta, [(a - b) / 2 for a, b in zip(v, hq)]))
            R = R - QMatrix.column(hq) @ QMatrix.row(u)
    Rr, piv = R.rref()
    for f, pc in enumerate(piv):
        hf, uf = R.col_at(pc), Rr.row_at(f)
        units.append((list(uf), Q(0), [x / 2 for x in hf]))
        units.append(([-x for x in uf], Q(0), [-x / 2 for x in hf]))
    if len(units) > k:
        raise AssertionError("ABSORB-GENERAL built too many units")  # pragma: no cover
    while len(units) < k:
        units.append(([Q(0)] * d, Q(0), [Q(0)] * d))
    w_up = [u[0] for u in units]
    w_down = QMatrix.from_rows([u[2] for u in units]).T
    if canon.constant is None:
        return Block(block.activation, w_up, w_down, skip="none")
    b_up = [u[1] for u in units]
    kappa = list(canon.constant)
    for w, b, a in units:
        if any(x != 0 for x in w):
            kappa = [x - ai * b for x, ai in zip(kappa, a)]
    return Block(block.activation, w_up, w_down, skip="none", b_up=b_up, b_down=[x / 2 for x in kappa])
