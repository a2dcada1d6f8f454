r"""Identifiability of the partial compositions f2∘f1 and f3∘f2 (three-layer-fibers R19).

three-layer-fibers R19 in the paper's reading: for f = f3∘f2∘f1 with f1(x) = σ(W1 x + b1),
f2(z) = σ(W2 z + b2), f3(y) = W3 y + b3, the two pairwise compositions f2∘f1 and f3∘f2 can each
be identifiable while f3∘f2∘f1 is not.  (The bundled T1 example,
:func:`semialgebraic.bottleneck._identifiability.non_localizability_example`, follows the other
reading: f1 and f3∘f2.)

**Definition (identifiability of a composition that ends in σ)** [derived].
g = f2∘f1 : ℝ^d → ℝ^{n2}, x ↦ σ(W2 σ(W1 x + b1) + b2), with parameters φ = (W1, b1, W2, b2), is
*identifiable* if every φ' = (W1', b1', W2', b2') of the same widths with g_φ' = g_φ on all of
ℝ^d is obtained from φ by a permutation and positive rescalings of the hidden (first-layer)
neurons: W1' = P Λ W1, b1' = P Λ b1, W2' = W2 Λ⁻¹ Pᵀ, b2' = b2 (P a permutation, Λ positive
diagonal).  The output neurons of g are not hidden: they are neither permuted nor rescaled (a
rescaled output σ(λ v) = λ σ(v) is a different function).

**Sufficient criterion for f2∘f1** [derived]: (i) rank W1 = n1 (G1, so f1 maps ℝ^d onto the
closed orthant); (ii) no two rows of [W1 | b1] are proportional (G4); (iii) some row j0 of
[W2 | b2] has every entry > 0; (iv) every row of [W2 | b2] has an entry > 0.
Proof: output j0 is > 0 everywhere, so a competitor's pre-activation equals it: a
one-hidden-layer function b2_j0 + Σ_i W2[j0,i] σ(W1_i x + b1_i) whose non-differentiability set
is the union of the n1 distinct hyperplanes H_i (each W2[j0,i] ≠ 0).  The competitor's n1
hyperplanes must be these, so (W1'_{π(i)}, b1'_{π(i)}) = λ_i (W1_i, b1_i) with λ_i ≠ 0; the
gradient jumps across H_i give W2'[j0,π(i)] |λ_i| = W2[j0,i]; σ(λu) = |λ|(σ(u) − u) for λ < 0
leaves the remainder −Σ_{λ_i<0} W2[j0,i](W1_i x + b1_i), which must be constant, so
Σ_{λ_i<0} W2[j0,i] W1_i = 0 and, the rows of W1 being independent, every λ_i > 0.  The first
layer is therefore S1 + S2 of φ's, and z = f1(x) ranges over the whole closed orthant; for
every output j, σ(r_j·(z,1)) = σ(r'_j·(z,1)) on the orthant, and (iv) makes {z > 0 :
r_j·(z,1) > 0} a non-empty open set on which the two affine maps agree, so r'_j = r_j.

**Sufficient criterion for f3∘f2 on ℝ^{n1}** [derived] (a one-hidden-layer network, no orthant):
every column V_j of W3 is non-zero, every row W2_j is non-zero, no two rows of [W2 | b2] are
proportional (with either sign), and no non-empty set S of neurons has Σ_{j∈S} V_j W2_j = 0.
Proof: the same argument with vector outputs; a flipped set S leaves the linear remainder
Σ_{j∈S} V_j W2_j z, which must vanish.  The fiber is then the S1 + S2 orbit (dimension n2).

:func:`paper_non_localizability_example` builds the weights of the bundled example
``algebra/examples/r19_paper_reading.json`` (d = n1 = n2 = 2, m = 1; row 0 of [W2 | b2] is
all-positive, row 1 switching), checks the two criteria and decides the composite with R18:
the all-positive row is a *linear* neuron on the orthant, whose bias can be traded with b3 (S4),
so f3∘f2∘f1 is not identifiable, although neither partial composition has that freedom (f2∘f1
has no b3; on all of ℝ² the neuron of f3∘f2 is not linear).  The certificate (type
``non_localizability``) is re-checked by :mod:`semialgebraic.verify.non_localizability`.

>>> r = paper_non_localizability_example()
>>> r["f2_f1_identifiable"], r["f3_f2_identifiable"], r["composite_identifiable"]
(True, True, False)
"""

from __future__ import annotations

from itertools import combinations

from algebra.linalg import QMatrix
from algebra.network import Network

from ..certificates import non_localizability_certificate
from ..exceptions import CertificateError
from ..verify import verify as _verify
from ._identifiability import identifiability

__all__ = ["first_two_identifiable", "last_two_identifiable", "paper_non_localizability_example",
           "PAPER_EXAMPLE"]

# W1 = I, b1 = 0; [W2 | b2] = [[1, 2 | 1], [1, -1 | -1]]; W3 = [[1, 1]], b3 = 0
PAPER_EXAMPLE = Network.from_rows([[[1, 0], [0, 1]], [[1, 2], [1, -1]], [[1, 1]]],
                                  [[0, 0], [1, -1], [0]])


def _rows(W: QMatrix, b) -> list[list]:
    return [list(W.row_at(j)) + [b[j]] for j in range(W.nrows)]


def _proportional(rows: list[list]) -> tuple[int, int] | None:
    for i, k in combinations(range(len(rows)), 2):
        if QMatrix.from_rows([rows[i], rows[k]]).rank() < 2:
            return i, k
    return None


def first_two_identifiable(W1: QMatrix, b1, W2: QMatrix, b2) -> tuple[bool, str]:
    """Does the sufficient criterion of the module docstring show that x ↦ σ(W2 σ(W1 x + b1)
    + b2) is identifiable (three-layer-fibers R19, [derived])?  ``(holds, reason)``; ``False``
    means "the criterion does not apply", not "not identifiable"."""
    n1 = W1.nrows
    if W1.rank() != n1:
        return False, "G1 fails: rank W1 < n1"
    pair = _proportional(_rows(W1, b1))
    if pair:
        return False, f"G4 fails: rows {pair[0]} and {pair[1]} of [W1 | b1] are proportional"
    rows2 = _rows(W2, b2)
    off = [j for j, r in enumerate(rows2) if not any(x > 0 for x in r)]
    if off:
        return False, (f"row {off[0]} of [W2 | b2] has no positive entry: output {off[0]} is "
                       "identically 0 and its row is free (not identifiable)")
    lin = [j for j, r in enumerate(rows2) if all(x > 0 for x in r)]
    if not lin:
        return False, "no all-positive row of [W2 | b2] (an output that is > 0 everywhere)"
    return True, (f"rank W1 = n1, [W1 | b1] without proportional rows, row {lin[0]} of [W2 | b2] "
                  "all-positive, every row with a positive entry: identifiable up to S1 + S2 of "
                  "the first layer (three-layer-fibers R19, derived)")


def last_two_identifiable(W2: QMatrix, b2, W3: QMatrix, b3=None) -> tuple[bool, str]:
    """Does the sufficient criterion of the module docstring show that z ↦ W3 σ(W2 z + b2) + b3
    is identifiable on all of ℝ^{n1} (three-layer-fibers R19, [derived])?"""
    n2 = W2.nrows
    if any(all(x == 0 for x in W3.col_at(j)) for j in range(n2)):
        return False, "a column of W3 is zero"
    if any(all(x == 0 for x in W2.row_at(j)) for j in range(n2)):
        return False, "a row of W2 is zero"
    pair = _proportional(_rows(W2, b2))
    if pair:
        return False, f"rows {pair[0]} and {pair[1]} of [W2 | b2] are proportional"
    terms = [QMatrix.column(W3.col_at(j)) @ QMatrix.row(W2.row_at(j)) for j in range(n2)]
    for size in range(1, n2 + 1):
        for S in combinations(range(n2), size):
            total = terms[S[0]]
            for j in S[1:]:
                total = total + terms[j]
            if total.is_zero():
                return False, f"flip set {list(S)} has sum V_j W2_j = 0"
    return True, ("non-zero V_j and W2_j, non-proportional rows, no flip set with sum V_j W2_j = 0: "
                  "identifiable up to S1 + S2 on all of R^n1 (three-layer-fibers R19, derived)")


def paper_non_localizability_example(net: Network | None = None, *, verify: bool = True) -> dict:
    """R19, the paper's reading: f2∘f1 and f3∘f2 identifiable, f3∘f2∘f1 not (module docstring).

    Returns a dict with the three answers, their reasons and the ``non_localizability``
    certificate (re-checked by the independent checker when *verify*)."""
    net = net or PAPER_EXAMPLE
    (W1, b1), (W2, b2), (W3, b3) = net.layer(0), net.layer(1), net.layer(2)
    ok12, why12 = first_two_identifiable(W1, b1, W2, b2)
    ok23, why23 = last_two_identifiable(W2, b2, W3, b3)
    comp = identifiability(net, verify=verify)
    out = {"network": net.to_dict(), "f2_f1_identifiable": ok12, "f2_f1_reason": why12,
           "f3_f2_identifiable": ok23, "f3_f2_reason": why23,
           "composite_identifiable": comp.answer, "composite_reason": comp.reason,
           "certificate": None}
    if ok12 and ok23 and comp.answer is False and comp.certificate is not None \
            and comp.certificate.get("type") == "symmetry_path":
        cert = non_localizability_certificate(net, comp.certificate)
        if verify:
            ok, why = _verify(cert)
            if not ok:
                raise CertificateError("non_localizability", why)
        out["certificate"] = cert
    return out
