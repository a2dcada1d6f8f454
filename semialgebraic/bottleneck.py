r"""Three-layer bottleneck networks: genericity, structure, identifiability, CANON, equivalence.

For ``f = W3 σ(W2 σ(W1 x + b1) + b2) + b3`` with ``n1 ≤ d`` (three-layer-fibers §2–§7).
Every decision is exact over Q and runs only after its hypotheses G1–G6 (§3.1) are checked;
an input that fails one is answered "non-generic" with the failed condition and a witness
(P1, P2, P5, P13), never guessed.  Indices are 0-based (the reference counts from 1).

Public functions
----------------
* :func:`genericity` — the conditions G0 (two hidden layers, ``n1 ≤ d``) and G1–G7 as
  :class:`~semialgebraic.verdict.Hypothesis` values with witnesses;
* :func:`structure` — neuron types (R3), masked neuron (R4, R5), S6 interval (R13), whether
  S7/S8 apply, the linear block Γ, γ, ρ and κ₊ (R6);
* :func:`identifiability` — R18, with a planted symmetric copy as certificate;
* :func:`canonical_form` — CANON (R20, with step 3b);
* :func:`equivalent_bottleneck` — EQUIV with a ``symmetry_path`` or ``counterexample``
  certificate, verified before it is returned;
* :func:`counterexample` — an exact input where two networks differ (exact 1-D restrictions
  along targeted lines; finds differences confined to arbitrarily small regions);
* :func:`dimension_formula` (R17).  The fiber, FIBDIM (R22) and random symmetric copies are in
  :mod:`semialgebraic.bottleneck_fiber`.

Module layout (all re-exported here): genericity, structure and R17 are in
:mod:`semialgebraic.bottleneck_structure`; CANON, the equivalence, the symmetry path and the
counterexample search in :mod:`semialgebraic.bottleneck_canon`; this module holds
identifiability (R18).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
...                         [[0, 0], [-1, -3], [0]])
>>> s = structure(net)
>>> s.types, s.masked, s.s6_interval
(('switching', 'dead'), 0, (-1, 3/2))
>>> dimension_formula(net).value
8
>>> identifiability(net).answer
False
"""

from __future__ import annotations

from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.bottleneck import KinkSwap, TailRefactor, TranslateMasked

from .bottleneck_canon import (Canon, _path_certificate, canonical_form, counterexample,
                               equivalent_bottleneck, symmetry_path)
from .bottleneck_structure import (DEAD, Structure, _Parts, dimension_formula, genericity,
                                   is_bottleneck, is_generic, structure)
from .certificates import identifiability_certificate, jsonable
from .exceptions import CertificateError
from .shallow import positive_factor_rank   # κ₊ (R6) by the exact LP, shared with shallow
from .verdict import Verdict
from .verify import verify as _verify

__all__ = ["Structure", "Canon", "genericity", "is_generic", "structure", "identifiability",
           "canonical_form", "equivalent_bottleneck", "counterexample", "dimension_formula",
           "positive_factor_rank", "symmetry_path", "is_bottleneck"]


# =============================================================================================
# identifiability (R18)
# =============================================================================================

def identifiability(net: Network, *, verify: bool = True) -> Verdict:
    """Is *net* identifiable up to permutations and positive scalings (S1 + S2)? (R18)

    Not identifiable: the reason names the 0-based rows/columns of ``[W2 | b2]`` responsible
    and the certificate is a ``symmetry_path`` to a planted different parameter with the same
    function (an S3/S4/S6/S8 move), verified before it is returned.  Identifiable: the
    certificate holds the network and the fiber dimension ``n1 + n2``; its checker re-derives
    every hypothesis of the criterion — a [derived] claim (R16–R18): the checker checks the
    hypotheses, not the criterion.

    With ``verify=True`` (default) the certificate is re-checked by the independent checker
    before it is returned (:class:`CertificateError` if it fails: a bug); ``verify=False``
    skips that.
    """
    v = _identifiability(net)
    if verify and v.certificate is not None:
        ok, why = _verify(v.certificate)
        if not ok:
            raise CertificateError(v.certificate["type"], why)
    return v


def _identifiability(net: Network) -> Verdict:
    s = structure(net)
    failed = s.failed
    if failed is not None or s.types is None:
        h = failed or s.hypotheses[-1]
        return Verdict(None, "bottleneck-R18", f"non-generic: {h.name} fails at {jsonable(h.witness)}",
                       s.hypotheses)
    d, n1, n2, m = s.widths
    reasons, move = [], None
    dead = [j for j, t in enumerate(s.types) if t == DEAD]
    lin = list(s.linear)
    if dead:
        reasons.append(f"rows {dead} of [W2 | b2] are all-negative (dead, S3)")
        move = ("dead", dead[0])
    if lin:
        reasons.append(f"rows {lin} of [W2 | b2] are all-positive (linear, S4 bias trade)")
        move = move or ("linear", lin[0])
    if s.masked is not None:
        nd = [j for j, t in enumerate(s.types) if t != DEAD]
        reasons.append(f"column {s.masked} of [W2 | b2] is masked: rows {nd} have the masking "
                       f"pattern (S6 translation)")
        move = move or ("masked", s.masked)
    if s.s8_applies:
        reasons.append("n1 = 1 with a single non-dead row (- | +) (S8 kink swap)")
        move = move or ("s8", None)
    if not reasons:
        cert = identifiability_certificate(net)
        return Verdict(True, "bottleneck-R18",
                       "identifiable up to permutation and positive scaling: every row of "
                       "[W2 | b2] has mixed signs and no column is masked", s.hypotheses, cert,
                       {"fiber_dimension": n1 + n2, "derived": True})
    other, steps = _planted_copy(net, s, move)
    cert = _path_certificate(net, other, steps)
    return Verdict(False, "bottleneck-R18", "; ".join(reasons),
                   s.hypotheses, cert, {"planted_copy": other.to_dict(),
                                        "fiber_dimension": dimension_formula(net).value})


# =============================================================================================
# private helpers
# =============================================================================================

def _planted_copy(net: Network, s: Structure, move) -> tuple[Network, list]:
    """A different parameter with the same function, and the steps that produce it."""
    kind, idx = move
    if kind == "masked":
        lo, hi = s.s6_interval
        t = lo / 2 if lo is not None else (hi / 2 if hi is not None else Q(1))
        step = TranslateMasked(idx, t)
        return step.apply(net), [step]
    if kind == "s8":
        step = KinkSwap()
        return step.apply(net), [step]
    P = _Parts.of(net)
    if kind == "dead":        # S3: double the output column of the dead neuron, keep its row
        row, out = P.R2[idx], tuple(2 * v for v in P.V[idx])
        step = TailRefactor({idx: (row, out)}, P.b3)
    else:                     # S4 bias trade: double the bias, compensate with b3
        row = P.R2[idx][:-1] + (2 * P.R2[idx][-1],)
        b3 = tuple(c - v * P.R2[idx][-1] for c, v in zip(P.b3, P.V[idx]))
        step = TailRefactor({idx: (row, P.V[idx])}, b3)
    return step.apply(net), [step]
