r"""Three-layer bottleneck networks: identifiability (three-layer-fibers R18, R19).

:func:`identifiability` decides whether a generic network ``f = W3 σ(W2 σ(W1 x + b1) + b2) +
b3`` with ``n1 ≤ d`` is identifiable up to permutations and positive scalings, with a
certificate: a ``symmetry_path`` to a planted different parameter with the same function (an
S3/S4/S6/S8 move), or the hypotheses of the criterion, re-derived by the checker.
:func:`non_localizability_example` is the example of R19 (blockwise identifiability does not
give identifiability of the composite).  Indices are 0-based (the reference counts from 1).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
...                         [[0, 0], [-1, -3], [0]])
>>> identifiability(net).answer
False
"""

from __future__ import annotations

from dataclasses import replace

from algebra.exceptions import InputError
from algebra.kernel.certificate_schemas import CLAIMS
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.bottleneck import KinkSwap, TranslateMasked
from algebra.symmetries.bottleneck_paths import TailRefactor

from ..certificates import identifiability_certificate, require_valid
from ..shallow import fiber_shallow
from ..shallow.identifiability import flip_sets
from ..verdict import Hypothesis, Verdict, reader_hypotheses, witness_text
from ..verify import verify as _verify
from .canon import path_certificate
from ._structure import (Parts, Structure, Trace, dimension_formula, proportional_pair,
                         r18_reasons, structure)

__all__ = ["identifiability", "non_localizability_example"]


# =============================================================================================
# identifiability (R18)
# =============================================================================================

def identifiability(net: Network, *, verify: bool = True, trace: Trace | None = None) -> Verdict:
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

    Parameters
    ----------
    net : Network
        A network with two hidden layers and ``n1 ≤ d``.
    verify : bool
        Re-check the certificate with the independent checker before returning (default).
    trace : Trace, optional
        Records what is established on the way (:class:`~._structure.Trace`: the conditions
        G0–G8 and R18 decided, the symmetry directions found, the phase), so that a caller
        stopped by a budget or Ctrl-C can report it; ``trace.verdict`` is set once the verdict
        and its certificate's check are done.

    Returns
    -------
    Verdict
        ``answer`` True / False, or None (non-generic: the failed hypothesis and its witness);
        ``certificate`` of type ``identifiability_hypotheses`` or ``symmetry_path``.

    Raises
    ------
    CertificateError
        If *verify* and the certificate fails its check (a bug in netfibers).
    InputError
        If the second hidden layer has width 0 (the network is constant).

    Examples
    --------
    >>> from algebra.network import Network
    >>> v = identifiability(Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
    ...                                       [[0, 0], [-1, -3], [0]]))
    >>> v.answer, v.certificate["type"]
    (False, 'symmetry_path')
    """
    if net.depth == 3 and net.widths[2] == 0:     # as the CLI (commands.common.refuse_empty_layers)
        raise InputError("hidden layer 2 has width 0 (fully pruned): the network is the constant "
                         "output bias and layer 1 is never read; remove them")
    trace = Trace() if trace is None else trace
    v = _identifiability(net, trace)
    if verify and v.certificate is not None:
        trace.phase = "check"
        require_valid(v.certificate, _verify)
    rounded = reader_hypotheses(net)       # a folded BatchNorm's float32 scale, when read so
    trace.verdict = replace(v, hypotheses=rounded + tuple(v.hypotheses)) if rounded else v
    return trace.verdict


R18_CONDITIONS = ("R18.1 no dead row of [W2 | b2]", "R18.2 no linear row of [W2 | b2]",
                  "R18.3 no masked column", "R18.4 not (n1 = 1 and every row (- | +))")
"""The sign conditions of three-layer-fibers R18, in the order of :func:`r18_reasons`."""

R18_FACET = ("R18.6 no facet u_i = 0 that the tail maps to a constant while a column k of W2 has "
             "every W2[j, k] < 0")
"""The sixth condition (session 36, two outside audits' counterexamples, [derived]): when the tail
is constant on the facet ``u_i = 0`` of the orthant (f constant where ``u_i ≤ 0``) and every row
has ``W2[j, k] < 0`` for some k (f constant for large ``u_k``), f along ``u_k`` is a (− | +) net
of one first-layer neuron (S8, R15) and a first-layer hyperplane can trade roles with a
second-layer bend: [W2 | b2] = [[−1, −1 | 1], [−3, −2 | 2]], W3 = [2, −1] (k = i) and
[[−1, −1 | 1], [1, −3 | 3]], W3 = [3, −1] (k ≠ i; the copy in a stratum of dimension 5) have
copies outside the orbit.  No construction of the copy is known in general, so a net where it
fails is undecided, never identifiable."""

R18_FLIP = "R18.5 no flip set of the second layer (no non-empty S with sum_{j in S} V_j W2_j = 0)"
"""The fifth condition (session 35, an outside audit's counterexample): rows of [W2 | b2] whose
kink matrices ``V_j W2_j`` sum to 0 flip together, ``σ(r·(h, 1)) = σ(−r·(h, 1)) + r·(h, 1)``."""


def _identifiability(net: Network, trace: Trace) -> Verdict:
    s = structure(net, trace)
    failed = s.failed
    if failed is not None or s.types is None:
        h = failed or s.hypotheses[-1]
        return Verdict(None, "bottleneck-R18", f"non-generic: {h.name} fails at {witness_text(h.witness)}",
                       s.hypotheses)
    d, n1, n2, m = s.widths
    found = r18_reasons(s.types, s.masked, s.s8_applies)
    kinds = {mv[0] for _, mv in found}
    trace.r18 = [Hypothesis(name, kind not in kinds)
                 for name, kind in zip(R18_CONDITIONS, ("dead", "linear", "masked", "s8"))]
    trace.phase = "certificate"
    reasons = [r for r, _ in found]
    move = found[0][1] if found else None
    if not reasons:
        (W2, _), (W3, _) = net.layer(1), net.layer(2)
        outcome, proof = flip_sets(W2, W3)      # R18.5, decided as R41's I4
        trace.r18.append(Hypothesis(R18_FLIP, {"none": True, "found": False}.get(outcome),
                                    proof if outcome == "found" else None))
        if outcome == "undecided":
            return Verdict(None, "bottleneck-R18", f"undecided: second-layer flip sets not "
                           f"excluded ({proof})", tuple(s.hypotheses) + tuple(trace.r18))
        if outcome == "found":
            other, steps = _flip_copy(net, proof)
            cert = path_certificate(net, other, steps)
            if cert is None:      # never a verdict without its certificate
                return Verdict(None, "bottleneck-R18", f"undecided: the flip of rows {proof} "
                               "(R18.5) was not certified", tuple(s.hypotheses) + tuple(trace.r18))
            cert["claim"] = CLAIMS["symmetry_path"][2]
            return Verdict(False, "bottleneck-R18",
                           f"second-layer flip set {proof}: the kink matrices V_j W2_j of those rows "
                           "of [W2 | b2] sum to 0, so flipping them (and moving their constants "
                           "to b3) keeps the function (R18.5)", s.hypotheses, cert,
                           {"planted_copy": other.to_dict(), "flip_set": proof})
        facet = constant_facet(net)          # R18.6
        trace.r18.append(Hypothesis(R18_FACET, facet is None, facet))
        if facet is not None:
            return Verdict(None, "bottleneck-R18", f"undecided: the tail is constant on the facet "
                           f"u_{facet} = 0 and a column of W2 is all negative: a kink swap may give "
                           "another parameter (R18.6)", tuple(s.hypotheses) + tuple(trace.r18))
        cert = identifiability_certificate(net, proof)
        return Verdict(True, "bottleneck-R18",
                       "identifiable up to permutation and positive scaling: every row of "
                       "[W2 | b2] has mixed signs, no column is masked, and no set of rows flips "
                       "together", s.hypotheses, cert, {"fiber_dimension": n1 + n2, "derived": True})
    other, steps = _planted_copy(net, s, move)
    cert = path_certificate(net, other, steps)
    if cert is not None:          # the claim of non-identifiability: b outside a's S1 + S2 orbit
        cert["claim"] = CLAIMS["symmetry_path"][2]
    return Verdict(False, "bottleneck-R18", "; ".join(reasons),
                   s.hypotheses, cert, {"planted_copy": other.to_dict(),
                                        "fiber_dimension":
                                            dimension_formula(net, s.hypotheses).value})


# =============================================================================================
# private helpers
# =============================================================================================

def constant_facet(net: Network) -> int | None:
    """The first first-layer neuron ``i`` (n1 ≥ 2) whose facet ``u_i = 0`` of the orthant the
    tail maps to a constant (its restriction, a one-hidden-layer net on the closed orthant of
    R^{n1−1}, has no kink and no linear part: its canonical form, three-layer-fibers R2/R3)
    while some row is not dead there, when some column k of W2 (k = i or another) has every
    ``W2[j, k] < 0``; or None (R18.6 holds).  (Every row dead on the facet is the masking
    pattern of column i: R18.3 and S6, the fiber of the paper's T1.)"""
    from ..shallow.canonical import canonical_form
    (W2, b2), (W3, b3) = net.layer(1), net.layer(2)
    n1 = W2.ncols
    if n1 < 2:
        return None                     # (n1 = 1: R18.4, the S8 kink swap)
    rows = W2.to_rows()
    if not any(all(r[k] < 0 for r in rows) for k in range(n1)):
        return None
    for i in range(n1):
        if all(all(x <= 0 for k, x in enumerate(r) if k != i) and c <= 0 for r, c in zip(rows, b2)):
            continue                    # every row dead on the facet: masked (R18.3, S6), not a swap
        facet = Network.from_rows([[[x for k, x in enumerate(r) if k != i] for r in rows],
                                   W3.to_rows()], [list(b2), list(b3)])
        form = canonical_form(facet, orthant=True)
        if not form.kinks and form.linear.is_zero():
            return i
    return None


def _flip_copy(net: Network, S) -> tuple[Network, list]:
    """The rows *S* of ``[W2 | b2]`` negated, ``b3 += Σ_{j∈S} V_j b2_j`` (R18.5), as one
    :class:`TailRefactor` step (valid because ``Σ_{j∈S} V_j W2_j = 0``)."""
    P = Parts.of(net)
    b3 = tuple(c + sum((P.V[j][o] * P.R2[j][-1] for j in S), Q(0)) for o, c in enumerate(P.b3))
    step = TailRefactor({j: (tuple(-x for x in P.R2[j]), P.V[j]) for j in S}, b3)
    return step.apply(net), [step]


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
    P = Parts.of(net)
    if kind == "dead":        # S3: double the output column of the dead neuron, keep its row
        row, out = P.R2[idx], tuple(2 * v for v in P.V[idx])
        step = TailRefactor({idx: (row, out)}, P.b3)
    else:                     # S4 bias trade: double the bias, compensate with b3
        row = P.R2[idx][:-1] + (2 * P.R2[idx][-1],)
        b3 = tuple(c - v * P.R2[idx][-1] for c, v in zip(P.b3, P.V[idx]))
        step = TailRefactor({idx: (row, P.V[idx])}, b3)
    return step.apply(net), [step]


# =============================================================================================
# non-localizability (R19)
# =============================================================================================

def non_localizability_example() -> dict:
    """R19: blockwise identifiability does not give identifiability of f3∘f2∘f1.

    Builds the T1 weights, checks the blocks (f3∘f2 as a one-hidden-layer network on R²: two
    switching neurons with non-proportional rows; f1 alone: full-rank layer) and the composite
    (not identifiable: dead row 1, masked column 0), and explains the difference.
    """
    net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
                            [[0, 0], [-1, -3], [0]])
    W2, b2 = net.layer(1)
    rows = [tuple(W2.row_at(j)) + (b2[j],) for j in range(2)]
    tail_ok = proportional_pair(rows) is None and all(any(x != 0 for x in r[:-1]) for r in rows)
    tail = Network([W2, net.layer(2)[0]], [b2, net.layer(2)[1]])
    tail_dim = fiber_shallow(tail).dimension.value
    f1_ok = net.layer(0)[0].rank() == 2
    comp = identifiability(net)
    return {"network": net.to_dict(),
            "tail_identifiable_on_R2": tail_ok,
            "tail_reason": "on all of R^2 both second-layer neurons have non-zero weights and "
                           "non-proportional rows: two visible ridges, identifiable up to S1 + S2 "
                           "[derived]",
            "tail_fiber_dimension_on_R2": tail_dim,
            "first_layer_identifiable": f1_ok,
            "first_layer_reason": "W1 = I has full rank; a single ReLU layer is identifiable up to "
                                  "S1 + S2 [derived, not checked]",
            "composite_identifiable": comp.answer,
            "composite_reason": comp.reason,
            "explanation": "f1 maps R^2 onto the closed orthant; on the orthant row 1 is dead (S3 "
                           "freedom) and column 0 is masked (S6 translation, t in [-1, 3/2]): the "
                           "image of f1 hides structure that neither block shows alone",
            "certificate": comp.certificate}
