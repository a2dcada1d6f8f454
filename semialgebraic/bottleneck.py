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

import random
from dataclasses import dataclass
from typing import Any

from algebra.matrices import QMatrix
from algebra.network import Network
from algebra.rationals import Q, lead, q_str, to_q
from algebra.symmetries import path_to_json
from algebra.symmetries.bottleneck import (KinkSwap, PermuteHidden, RescaleHidden, SignFlip,
                                         TailRefactor, TranslateMasked, FreeFirstLayer, RescaleLayer)


from .certificates import CERTIFICATE_FORMAT, counterexample_certificate, jsonable
from .exceptions import NonGenericError
from .sets import Dimension
from .verdict import Hypothesis, Verdict
from .verify import verify

from .shallow_fiber import positive_factor_rank   # κ₊ (R6) by the exact LP, shared with shallow

__all__ = ["Structure", "Canon", "genericity", "is_generic", "structure", "identifiability",
           "canonical_form", "equivalent_bottleneck", "counterexample", "dimension_formula",
           "positive_factor_rank", "symmetry_path", "is_bottleneck"]

DEAD, LINEAR, SWITCHING = "dead", "linear", "switching"


# =============================================================================================
# genericity and structure
# =============================================================================================

def is_bottleneck(net: Network) -> bool:
    """True when *net* has two hidden layers and ``n1 ≤ d``."""
    return net.depth == 3 and net.widths[1] <= net.widths[0]


def genericity(net: Network) -> tuple[Hypothesis, ...]:
    """The genericity conditions of three-layer-fibers §3.1, checked exactly.

    G0 two hidden layers and ``n1 ≤ d``; G1 ``rank W1 = n1``; G2 no zero entry in
    ``[W2 | b2]``; G3 no zero column of ``W3``; G4 no two proportional rows of ``[W1 | b1]``;
    G5 no two proportional rows of ``[W2 | b2]`` (any non-zero factor); G6
    ``rank Γ = min(n_L, n1, m)``; G7 (project addition) when there is no switching neuron,
    every column of Γ is non-zero (else a first-layer neuron is invisible).  Conditions after
    the first failing one of G0–G3 are reported with ``holds=None``.

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1, 2]], [[0]], [[1]]], [[0], [1], [0]])
    >>> [ (h.name, h.holds, h.witness) for h in genericity(net)][:3]
    [('G0 two hidden layers, n1 <= d', True, None), ('G1 rank W1 = n1', True, None), ('G2 no zero entry in [W2 | b2]', False, {'row': 0, 'column': 0})]
    """
    out: list[Hypothesis] = []
    names = ["G0 two hidden layers, n1 <= d", "G1 rank W1 = n1", "G2 no zero entry in [W2 | b2]",
             "G3 no zero column of W3", "G4 rows of [W1 | b1] pairwise non-proportional",
             "G5 rows of [W2 | b2] pairwise non-proportional", "G6 rank Gamma = min(n_L, n1, m)",
             "G7 every first-layer neuron visible"]
    if net.depth != 3:
        return (Hypothesis(names[0], False, {"hidden_layers": net.depth - 1}),)
    d, n1, n2, m = net.widths
    if n1 > d:
        return (Hypothesis(names[0], False, {"n1": n1, "d": d}),)
    out.append(Hypothesis(names[0], True))
    P = _Parts.of(net)
    r = n1 if _full_row_rank_mod_p(P.W1) else P.W1.rank()
    if r != n1:
        null = P.W1.T.nullspace()
        out.append(Hypothesis(names[1], False, {"rank": r, "n1": n1,
                                                "row_dependency": list(null.row_at(0))}))
        return tuple(out + [Hypothesis(n, None) for n in names[2:]])
    out.append(Hypothesis(names[1], True))
    zero = next(((j, k) for j, row in enumerate(P.R2) for k, x in enumerate(row) if x == 0), None)
    out.append(Hypothesis(names[2], zero is None,
                          None if zero is None else {"row": zero[0], "column": zero[1]}))
    zc = next((j for j, v in enumerate(P.V) if all(x == 0 for x in v)), None)
    out.append(Hypothesis(names[3], zc is None, None if zc is None else {"column": zc}))
    if zero is not None or zc is not None:
        return tuple(out + [Hypothesis(n, None) for n in names[4:]])
    out.append(Hypothesis(names[4], True, None))     # implied by G1: rows of W1 independent
    p2 = _proportional_pair(P.R2)
    out.append(Hypothesis(names[5], p2 is None, None if p2 is None else {"rows": list(p2)}))
    types = _types(P)
    L = [j for j, t in enumerate(types) if t == LINEAR]
    G, _ = _linear_block(P, L)
    rho, want = G.rank(), min(len(L), n1, m)
    out.append(Hypothesis(names[6], rho == want,
                          None if rho == want else {"rank": rho, "expected": want, "linear_rows": L}))
    holds, wit = True, None
    if L and SWITCHING not in types:
        zc = next((k for k in range(n1) if all(G[o, k] == 0 for o in range(m))), None)
        if zc is not None:
            holds, wit = False, {"column": zc, "reason": "column of Gamma is zero"}
    out.append(Hypothesis(names[7], holds, wit))
    return tuple(out)


def is_generic(net: Network) -> bool:
    """True when every condition of :func:`genericity` holds."""
    return all(h.holds for h in genericity(net))


@dataclass(frozen=True)
class Structure:
    """Structure report of a three-layer bottleneck network (see :func:`structure`)."""

    widths: tuple[int, ...]
    hypotheses: tuple[Hypothesis, ...]
    types: tuple[str, ...] | None = None
    masked: int | None = None
    s6_interval: tuple[Any, Any] | None = None
    s7_applies: bool = False
    s8_applies: bool = False
    linear: tuple[int, ...] = ()
    Gamma: QMatrix | None = None
    gamma: tuple = ()
    rho: int | None = None
    kappa_plus: int | None = None
    kappa_witness: dict | None = None

    @property
    def is_generic(self) -> bool:
        return all(h.holds for h in self.hypotheses)

    @property
    def failed(self) -> Hypothesis | None:
        return next((h for h in self.hypotheses if h.holds is False), None)

    def count(self, kind: str) -> int:
        return sum(t == kind for t in (self.types or ()))

    def to_json(self) -> dict:
        lo, hi = self.s6_interval if self.s6_interval else (None, None)
        return jsonable({
            "widths": list(self.widths), "generic": self.is_generic,
            "hypotheses": [h.to_json() for h in self.hypotheses],
            "types": list(self.types) if self.types else None,
            "number_of_dead": self.count(DEAD), "number_of_linear": self.count(LINEAR),
            "number_of_switching": self.count(SWITCHING),
            "masked": self.masked,
            "s6_interval": None if self.s6_interval is None else
            [("-inf" if lo is None else lo), ("inf" if hi is None else hi)],
            "s7_applies": self.s7_applies, "s8_applies": self.s8_applies,
            "linear": list(self.linear), "Gamma": self.Gamma, "gamma": list(self.gamma),
            "rho": self.rho, "kappa_plus": self.kappa_plus, "kappa_witness": self.kappa_witness})

    def to_text(self) -> str:
        lines = [f"widths {'-'.join(map(str, self.widths))}; generic: {self.is_generic}"]
        for h in self.hypotheses:
            w = "" if h.holds or h.witness is None else f" at {jsonable(h.witness)}"
            lines.append(f"  {h.name}: {h.holds}{w}")
        if self.types is None:
            return "\n".join(lines)
        lines.append("second-layer neurons: " + ", ".join(f"{j}:{t}" for j, t in enumerate(self.types)))
        if self.masked is not None:
            lo, hi = self.s6_interval
            lines.append(f"masked first-layer neuron: {self.masked}; S6 interval "
                         f"[{'-inf' if lo is None else q_str(lo)}, {'inf' if hi is None else q_str(hi)}]")
        else:
            lines.append("masked first-layer neuron: none")
        lines.append(f"S7 applies: {self.s7_applies}; S8 applies: {self.s8_applies}")
        if self.linear:
            lines.append(f"linear block rows {list(self.linear)}: Gamma = {self.Gamma}, gamma = "
                         f"({', '.join(q_str(x) for x in self.gamma)}), rank {self.rho}, "
                         f"kappa_plus {self.kappa_plus}")
        return "\n".join(lines)


def structure(net: Network) -> Structure:
    """Structure report (three-layer-fibers R3–R6, R13–R15).

    Types need G0–G3 (P1, P2); when they fail, only the hypotheses are reported.
    """
    hyps = genericity(net)
    widths = net.widths
    if not all(h.holds for h in hyps[:4]) or len(hyps) < 4:
        return Structure(widths, hyps)
    P = _Parts.of(net)
    types = _types(P)
    L = tuple(j for j, t in enumerate(types) if t == LINEAR)
    G, g = _linear_block(P, L)
    nd = [j for j, t in enumerate(types) if t != DEAD]
    masked = _masked(P, types)
    interval = None
    if masked is not None:
        col = [row[masked] for row in P.R2]
        pos = [abs(P.b2[j]) / col[j] for j in range(P.n2) if col[j] > 0]
        neg = [P.b2[j] / col[j] for j in range(P.n2) if col[j] < 0]
        interval = (-min(pos) if pos else None, min(neg) if neg else None)
    s7 = masked is not None and len(nd) == 1 and P.n1 >= 2
    s8 = P.n1 == 1 and len(nd) == 1 and P.R2[nd[0]][0] < 0 and P.b2[nd[0]] > 0
    kappa, wit = positive_factor_rank(G)
    return Structure(widths, hyps, types, masked, interval, s7, s8, L, G, g, G.rank(), kappa, wit)


# =============================================================================================
# identifiability (R18)
# =============================================================================================

def identifiability(net: Network) -> Verdict:
    """Is *net* identifiable up to permutations and positive scalings (S1 + S2)? (R18)

    Not identifiable: the reason names the 0-based rows/columns of ``[W2 | b2]`` responsible
    and the certificate is a ``symmetry_path`` to a planted different parameter with the same
    function (an S3/S4/S6/S8 move), verified before it is returned.  Identifiable: the
    certificate lists the checked hypotheses and the fiber dimension ``n1 + n2`` — a [derived]
    claim (R16–R18), not machine-checkable.
    """
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
        cert = {"format": CERTIFICATE_FORMAT, "type": "identifiability_hypotheses",
                "network": net.to_dict(), "hypotheses": [h.to_json() for h in s.hypotheses],
                "fiber_dimension": n1 + n2,
                "status": "[derived] three-layer-fibers R16-R18: every row of [W2 | b2] has mixed "
                          "signs, no masked column, no S8; dimension n1 + n2 is a derived claim"}
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
# CANON (R20)
# =============================================================================================

@dataclass(frozen=True)
class Canon:
    """CANON of three-layer-fibers R20: an invariant of the realised function (not always a
    parameter of the fiber, P16).  ``kind`` is ``"const"`` or ``"net"``."""

    kind: str
    first: tuple = ()          # rows (W1_i | b1_i), normalised, sorted; masked last (bias 0)
    masked: bool = False
    visible: tuple = ()        # sorted pairs (r_j / s, s V_j)
    Gamma: tuple = ()          # rows of Γ (m x n1), columns in FIRST order
    gamma: tuple = ()

    def to_json(self) -> dict:
        return jsonable({"kind": self.kind, "first": self.first, "masked": self.masked,
                         "visible": [{"row": r, "out": v} for r, v in self.visible],
                         "Gamma": self.Gamma, "gamma": self.gamma})


def canonical_form(net: Network) -> Canon:
    """CANON(θ) (three-layer-fibers R20, with step 3b for S8).

    Raises :class:`~semialgebraic.exceptions.NonGenericError` when a condition of
    :func:`genericity` fails.  One deliberate difference from the reference's step 8: when a
    masked neuron exists, every non-dead row has the masking pattern, no linear neuron exists
    (R4) and S5 cannot act, so the ridges are normalised by their (positive) masked-column
    entry and never flipped; this avoids the case ``b̃2_j = 0`` that the reference leaves open.  Complexity: G1 is one exact rank (O(n1² d)); the rest is
    O(n2 n1 + n1 d) sign tests and scalings, one O(n2 n1 m) product for Γ and sorting —
    polynomial in the bit size (measured in ``benchmarks/bench_bottleneck.py``).

    >>> a = Network.from_rows([[[1]], [[-2]], [[1]]], [[0], [3], [0]])
    >>> b = Network.from_rows([[[-1]], [[-2]], [[-1]]], [["3/2"], [3], [3]])
    >>> canonical_form(a) == canonical_form(b)
    True
    """
    hyps = genericity(net)
    bad = next((h for h in hyps if not h.holds), None)
    if bad is not None:
        raise NonGenericError(bad.name, jsonable(bad.witness))
    return _canon(_Parts.of(net))[0]


def _canon(P: "_Parts") -> tuple[Canon, dict]:
    """CANON on parts; also returns bookkeeping (order of first-layer neurons, scalings)."""
    types = _types(P)
    ND = [j for j, t in enumerate(types) if t != DEAD]
    if not ND:
        return Canon("const", gamma=tuple(P.b3)), {"types": types}
    R1 = [list(r) for r in P.R1]
    R2 = [list(r) for r in P.R2]
    V = [list(v) for v in P.V]
    b3 = list(P.b3)
    n1 = P.n1
    istar = _masked(P, types)
    # 3b: S8
    if n1 == 1 and len(ND) == 1 and R2[ND[0]][0] < 0 and R2[ND[0]][1] > 0 and lead(R1[0][:-1]) < 0:
        j0 = ND[0]
        a, b = -R2[j0][0], R2[j0][1]
        R1[0] = [-x for x in R1[0][:-1]] + [b / a - R1[0][-1]]
        b3 = [c + v * b for c, v in zip(b3, V[j0])]
        V[j0] = [-v for v in V[j0]]
    # 4: normalise the first layer
    for i in range(n1):
        lam = abs(lead(R1[i][:-1]))
        R1[i] = [x / lam for x in R1[i]]
        for row in R2:
            row[i] = row[i] * lam
    # 5: S7
    if istar is not None and len(ND) == 1:
        w = R2[ND[0]]
        for k in range(n1):
            if k != istar and lead(R1[k][:-1]) < 0:
                c = w[k] / w[istar]
                R1[istar] = [x + c * y for x, y in zip(R1[istar], R1[k])]
                R1[k] = [-x for x in R1[k]]
        lam = abs(lead(R1[istar][:-1]))
        R1[istar] = [x / lam for x in R1[istar]]
        for row in R2:
            row[istar] = row[istar] * lam
    # 6: S6
    if istar is not None:
        t = R1[istar][-1]
        for row in R2:
            row[-1] = row[-1] + row[istar] * t
        R1[istar][-1] = Q(0)
    # 7: order
    order = sorted((i for i in range(n1) if i != istar), key=lambda i: tuple(R1[i]))
    if istar is not None:
        order.append(istar)
    first = tuple(tuple(R1[i]) for i in order)
    R2 = [[row[i] for i in order] + [row[-1]] for row in R2]
    # 8: affine part and ridges
    m = P.m
    absorbed = []
    vis = []
    for j in ND:
        if types[j] == LINEAR:
            absorbed.append(j)
            continue
        r = R2[j]
        if istar is None:
            if r[-1] > 0:
                absorbed.append(j)
                r = [-x for x in r]
            s = abs(r[-1])
        else:
            s = r[n1 - 1]          # the masked column is last; positive (masking pattern)
        vis.append((tuple(x / s for x in r), tuple(s * v for v in V[j])))
    vis.sort()
    if absorbed:                   # (Γ | γ - b3) = Σ_absorbed V_j r_j: one exact product
        prod = QMatrix.from_rows([V[j] for j in absorbed]).T @ QMatrix.from_rows([R2[j] for j in absorbed])
        rows = prod.to_rows()
        G = tuple(tuple(r[:n1]) for r in rows)
        g = tuple(b3[o] + rows[o][n1] for o in range(m))
    else:
        G = tuple(tuple(Q(0) for _ in range(n1)) for _ in range(m))
        g = tuple(b3)
    return (Canon("net", first, istar is not None, tuple(vis), G, g),
            {"types": types, "order": order})


# =============================================================================================
# equivalence
# =============================================================================================

def equivalent_bottleneck(a: Network, b: Network, *, certify: bool = True) -> Verdict:
    """Decide ``f_a = f_b`` on R^d for generic three-layer bottleneck networks (R20).

    Answer None (with the failed hypothesis) when *a* or *b* is outside the theory, so that
    :func:`semialgebraic.equivalence.equivalent` falls back to the general method; a cheap exact
    search for a counterexample is still tried then (a verified difference is an answer).
    Equivalent: certificate ``symmetry_path`` (steps S1–S8 carrying a to b, replayed by
    ``semialgebraic.verify``); when no path can be built the answer is None (CANON equal,
    ``details["canon_equal"]``) and the dispatcher certifies with the general method: never
    "equivalent" without a verified certificate.  Not equivalent: an exact
    ``counterexample`` input, checked before it is returned.

    Complexity: CANON is O(n1² d + n2 n1 m + (n1 + n2) log(n1 + n2) (d + n1)) exact operations
    (R20); the counterexample search restricts both networks exactly to O(n1 + n2) lines,
    each in O(n1 n2 (n1 + n2)) operations.  Measured (``python benchmarks/bench_bottleneck.py``,
    d=512, n1=256, n2=1024, m=10, N=404 746, shared 2-core machine under load): CANON equality
    of a transformed pair 4.3 s exact vs 2.1 s for the same algorithm in float64 numpy (2.0×);
    this function with the verified symmetry-path certificate 43 s (path construction, JSON
    certificate and its exact replay); G1 is certified by a rank modulo 2^31 − 1 (full row
    rank mod p implies full row rank over Q), the exact FLINT rank took 54 s.
    """
    ha, hb = genericity(a), genericity(b)
    hyps = tuple(Hypothesis("a: " + h.name, h.holds, h.witness) for h in ha) + \
        tuple(Hypothesis("b: " + h.name, h.holds, h.witness) for h in hb)
    if a.signature != b.signature:
        return Verdict(False, "bottleneck-canon",
                       f"different signatures {a.signature} and {b.signature}", hyps,
                       {"format": CERTIFICATE_FORMAT, "type": "counterexample", "a": a.to_dict(),
                        "b": b.to_dict(), "x": [], "a_x": [], "b_x": []})
    bad = next((h for h in hyps if not h.holds), None)
    if bad is not None:
        x = counterexample(a, b, effort="cheap")
        if x is not None:
            return _differ(a, b, x, hyps, f"outside the bottleneck theory ({bad.name}), but the "
                                          "networks differ at an exact input")
        return Verdict(None, "bottleneck-canon",
                       f"non-generic: {bad.name} fails at {jsonable(bad.witness)}", hyps,
                       details={"failed_hypothesis": bad.to_json()})
    if a.widths[1] != b.widths[1]:
        x = counterexample(a, b)
        if x is not None:
            return _differ(a, b, x, hyps, "different first-layer widths; the networks differ")
        return Verdict(None, "bottleneck-canon", "different first-layer widths n1: CANON does not "
                       "compare them", hyps)
    ca, _ = _canon(_Parts.of(a))
    cb, _ = _canon(_Parts.of(b))
    if ca != cb:
        x = counterexample(a, b)
        if x is None:
            return Verdict(None, "bottleneck-canon", "canonical forms differ but no exact "
                           "counterexample was found (suspect a non-generic input)", hyps,
                           details={"canon_a": ca.to_json(), "canon_b": cb.to_json()})
        return _differ(a, b, x, hyps, f"canonical forms differ ({_first_difference(ca, cb)})")
    if not certify:
        return Verdict(True, "bottleneck-canon", "canonical forms are equal (uncertified)", hyps)
    steps = symmetry_path(a, b)
    if steps is not None:
        cert = _path_certificate(a, b, steps)
        if cert is not None:
            return Verdict(True, "bottleneck-canon", "canonical forms are equal; symmetry path "
                           f"of {len(steps)} steps verified", hyps, cert)
    return Verdict(None, "bottleneck-canon", "canonical forms are equal (three-layer-fibers R20, "
                   "derived), but no symmetry path could be built: the dispatcher "
                   "(semialgebraic.equivalence) certifies with the general method", hyps,
                   details={"canon_equal": True})


def counterexample(a: Network, b: Network, *, effort: str = "full", seed: int = 0) -> tuple | None:
    """An exact input x with ``a(x) != b(x)``, or None when none was found.

    Both networks are restricted exactly to lines ``x0 + s dx``; a restriction is piecewise
    linear in s with computable breakpoints, so ``a = b`` on a line is decided exactly by
    evaluating at every breakpoint and one point beyond each end.  Lines are chosen to cross
    every kink of either network (first-layer hyperplanes at points where they are visible,
    second-layer bent hyperplanes inside the open orthant), then at random.  A difference
    confined to a tiny region is found as long as a line crosses it.
    """
    rng = random.Random(seed)
    lines = []
    for net in (a, b):
        if net.depth == 3 and net.widths[1] <= net.widths[0]:
            lines += _targeted_lines(net, rng)
    n_random = 4 if effort == "cheap" else 12
    d = a.n_inputs
    for _ in range(n_random):
        lines.append((tuple(_rq(rng, 8) for _ in range(d)), tuple(_rq(rng, 8) for _ in range(d))))
    for x0, dx in lines:
        x = _line_difference(a, b, x0, dx)
        if x is not None:
            return x
    return None


def symmetry_path(a: Network, b: Network) -> list | None:
    """Steps (S1–S8, as registered :mod:`algebra.symmetries` steps) carrying *a* to *b*.

    Both networks must be generic with equal CANON and equal widths.  Construction: each is
    brought to a normal form (S8, first-layer S2, S7, S1), then the normal forms are bridged
    (second-layer S1 and S2, one tail step for S3/S4/S5, S6 for the masked neuron); the path is
    ``a → N(a) → N(b) → b``.  Returns None when no path is built (e.g. different n2).  Each
    step is checked when applied; :func:`equivalent_bottleneck` returns the path only after
    ``semialgebraic.verify`` has replayed it exactly from a to b.
    """
    if a.widths != b.widths:
        return None
    try:
        na, sa = _normalize(a)
        nb, sb = _normalize(b)
        bridge = _bridge(na, nb)
    except (ValueError, ZeroDivisionError):
        return None
    if bridge is None:
        return None
    nets = [b]
    for st in sb:
        nets.append(st.apply(nets[-1]))
    back = [sb[k].inverse(nets[k]) for k in reversed(range(len(sb)))]
    return sa + bridge + back        # replayed exactly by the certificate checker


def _normalize(net: Network) -> tuple[Network, list]:
    P = _Parts.of(net)
    types = _types(P)
    ND = [j for j, t in enumerate(types) if t != DEAD]
    istar = _masked(P, types)
    steps, cur = [], net

    def do(st):
        nonlocal cur
        cur = st.apply(cur)
        steps.append(st)

    if not ND:
        return cur, steps
    n1 = P.n1
    if (n1 == 1 and len(ND) == 1 and P.R2[ND[0]][0] < 0 and P.R2[ND[0]][1] > 0
            and lead(P.R1[0][:-1]) < 0):
        do(KinkSwap())
    lams = [1 / abs(lead(P.R1[i][:-1])) for i in range(n1)]
    if any(x != 1 for x in lams):
        do(RescaleLayer(1, lams))
    if istar is not None and len(ND) == 1 and n1 >= 2:
        R1 = _Parts.of(cur).R1
        flips = [k for k in range(n1) if k != istar and lead(R1[k][:-1]) < 0]
        if flips:
            do(SignFlip(istar, flips))
            lam = abs(lead(_Parts.of(cur).R1[istar][:-1]))
            if lam != 1:
                do(RescaleHidden(1, istar, 1 / lam))
    R1 = _Parts.of(cur).R1
    order = sorted((i for i in range(n1) if i != istar), key=lambda i: R1[i])
    if istar is not None:
        order.append(istar)
    if order != list(range(n1)):
        do(PermuteHidden(1, order))
    return cur, steps


def _bridge(na: Network, nb: Network) -> list | None:
    A, B = _Parts.of(na), _Parts.of(nb)
    ta, tb = _types(A), _types(B)
    steps, cur = [], na

    def do(st):
        nonlocal cur
        cur = st.apply(cur)
        steps.append(st)

    if all(t == DEAD for t in ta) and all(t == DEAD for t in tb):
        if A.b3 != B.b3:
            return None
        do(TailRefactor({j: (B.R2[j], B.V[j]) for j in range(B.n2)}, B.b3))
        if cur.layer(0) != nb.layer(0):
            do(FreeFirstLayer(*nb.layer(0)))
        return steps
    ia, ib = _masked(A, ta), _masked(B, tb)
    if (ia is None) != (ib is None):
        return None
    n1 = A.n1
    istar = ia
    if istar is not None and ia != ib:
        return None
    for i in range(n1):
        ra, rb = A.R1[i], B.R1[i]
        if (ra if i != istar else ra[:-1]) != (rb if i != istar else rb[:-1]):
            return None

    def key(P, types, j):
        r = list(P.R2[j])
        if istar is not None:
            r[-1] = r[-1] + r[istar] * P.R1[istar][-1]
            s = r[istar]
            return tuple(x / s for x in r) + tuple(s * v for v in P.V[j]), s, 1
        sg = -1 if r[-1] > 0 else 1
        s = abs(r[-1])
        return tuple(sg * x / s for x in r) + tuple(s * v for v in P.V[j]), s, sg

    kb = {}
    for j, t in enumerate(tb):
        if t == SWITCHING:
            kb[key(B, tb, j)[0]] = j
    slot = {}
    for j, t in enumerate(ta):
        if t == SWITCHING:
            k = key(A, ta, j)[0]
            if k not in kb:
                return None
            slot[j] = kb.pop(k)
    if kb:
        return None
    free_b = [j for j, t in enumerate(tb) if t != SWITCHING]
    rest_a = [j for j, t in enumerate(ta) if t != SWITCHING]
    if len(free_b) != len(rest_a):
        return None
    slot.update(zip(rest_a, free_b))
    perm = [0] * A.n2
    for j, k in slot.items():
        perm[k] = j
    if perm != list(range(A.n2)):
        do(PermuteHidden(2, perm))
    # second-layer scalings and flips of the switching neurons
    flips = []
    C = _Parts.of(cur)
    tc = _types(C)
    lams = [Q(1)] * A.n2
    for k in range(A.n2):
        if tc[k] != SWITCHING:
            continue
        _, sa_, ga = key(C, tc, k)
        _, sb_, gb = key(B, tb, k)
        lams[k] = sb_ / sa_
        if ga != gb:
            flips.append(k)
    if any(x != 1 for x in lams):
        do(RescaleLayer(2, lams))
    C = _Parts.of(cur)
    if istar is None:
        rep = {k: (B.R2[k], B.V[k]) for k in free_b}
        rep.update({k: (tuple(-x for x in C.R2[k]), C.V[k]) for k in flips})
        if rep or C.b3 != B.b3:
            do(TailRefactor(rep, B.b3))
    else:
        t = B.R1[istar][-1] - C.R1[istar][-1]
        if t != 0:
            if free_b:
                safe = {k: (tuple([Q(-1)] * n1) + (-1 - abs(t),), B.V[k]) for k in free_b}
                do(TailRefactor(safe, C.b3))
            do(TranslateMasked(istar, t))
        C = _Parts.of(cur)
        if free_b or C.b3 != B.b3:
            do(TailRefactor({k: (B.R2[k], B.V[k]) for k in free_b}, B.b3))
    return steps


# =============================================================================================
# fiber dimension
# =============================================================================================

def dimension_formula(net: Network) -> Dimension:
    """Fiber dimension by three-layer-fibers R17 (constant f: N − m), exact under G0–G7.

    Not applicable (rank Γ below ``min(n_L, n1, m)``, P5) → an inexact Dimension with the reason.
    """
    hyps = genericity(net)
    bad = next((h for h in hyps if not h.holds), None)
    if bad is not None:
        return Dimension.between(None, None, f"R17 not applicable: {bad.name} fails")
    P = _Parts.of(net)
    types = _types(P)
    n1, m, N = P.n1, P.m, net.n_parameters
    nA, nD, nL = (sum(t == k for t in types) for k in (SWITCHING, DEAD, LINEAR))
    if nA + nL == 0:
        return Dimension.of(N - m, "R17: constant function, N - m")
    nM = int(_masked(P, types) is not None)
    rho = min(nL, n1, m)
    val = n1 + nM + nA + nD * (n1 + 1 + m) + nL * (n1 + m + 1) - rho * (n1 + m - rho)
    return Dimension.of(val, "three-layer-fibers R17")


# =============================================================================================
# private helpers
# =============================================================================================

@dataclass
class _Parts:
    W1: QMatrix
    R1: list        # rows (W1_i | b1_i)
    R2: list        # rows (W2_j | b2_j)
    b2: list
    V: list         # columns of W3
    b3: list
    n1: int
    n2: int
    m: int
    d: int

    @classmethod
    def of(cls, net: Network) -> "_Parts":
        (W1, b1), (W2, b2), (W3, b3) = net.layer(0), net.layer(1), net.layer(2)
        R1 = [tuple(r) + (b1[i],) for i, r in enumerate(W1.to_rows())]
        R2 = [tuple(r) + (b2[j],) for j, r in enumerate(W2.to_rows())]
        V = [tuple(c) for c in W3.T.to_rows()] if W3.ncols else []
        return cls(W1, R1, R2, list(b2), V, list(b3), W1.nrows, W2.nrows, W3.nrows, W1.ncols)


_PRIME = 2147483647   # 2^31 - 1: products of two residues fit in int64


def _full_row_rank_mod_p(A: QMatrix) -> bool:
    """True only if A has full row rank over Q, certified by its rank modulo a prime.

    With ``A = N / D`` (N integer), ``rank_Q(A) = rank_Q(N) ≥ rank_p(N)``: full row rank modulo
    p proves full row rank over Q.  False means "not certified" (the caller then computes the
    exact rank).  Gaussian elimination modulo p on int64 numpy arrays (exact, no floats).
    """
    n, c = A.shape
    if n == 0:
        return True
    if n > c:
        return False
    try:
        import numpy as np                      # optional (heavy) dependency
    except ImportError:                         # pragma: no cover
        return False
    num, _ = A.numer_denom()
    p = _PRIME
    M = np.array([int(x) % p for x in num.entries()], dtype=np.int64).reshape(n, c)
    row = 0
    for col in range(c):
        if row == n:
            break
        piv = np.nonzero(M[row:, col])[0]
        if piv.size == 0:
            continue
        k = row + int(piv[0])
        if k != row:
            M[[row, k]] = M[[k, row]]
        inv = pow(int(M[row, col]), p - 2, p)
        M[row] = (M[row] * inv) % p
        f = M[row + 1:, col].copy()
        if f.size:
            M[row + 1:] = (M[row + 1:] - (f[:, None] * M[row][None, :]) % p) % p
        row += 1
    return row == n


def _types(P: _Parts) -> tuple[str, ...]:
    out = []
    for r in P.R2:
        if all(x < 0 for x in r):
            out.append(DEAD)
        elif all(x > 0 for x in r):
            out.append(LINEAR)
        else:
            out.append(SWITCHING)
    return tuple(out)


def _masked(P: _Parts, types) -> int | None:
    cand = None
    for j, t in enumerate(types):
        if t == DEAD:
            continue
        r = P.R2[j]
        pos = [k for k in range(P.n1) if r[k] > 0]
        if len(pos) != 1 or r[-1] >= 0:
            return None
        if cand is None:
            cand = pos[0]
        elif cand != pos[0]:
            return None
    return cand


def _linear_block(P: _Parts, L) -> tuple[QMatrix, tuple]:
    if not L:
        return QMatrix.zeros(P.m, P.n1), tuple(P.b3)
    VL = QMatrix.from_rows([P.V[j] for j in L]).T          # m x nL
    WL = QMatrix.from_rows([P.R2[j] for j in L])            # nL x (n1+1)
    prod = VL @ WL
    G = prod.submatrix(cols=range(P.n1))
    g = tuple(P.b3[o] + prod[o, P.n1] for o in range(P.m))
    return G, g


def _proportional_pair(rows) -> tuple[int, int] | None:
    """First pair of rows proportional by a non-zero factor (bucketed by a cheap ratio key,
    full exact comparison inside a bucket)."""
    buckets: dict = {}
    for i, r in enumerate(rows):
        k0 = next((k for k, x in enumerate(r) if x != 0), None)
        if k0 is None:
            continue
        k1 = next((k for k in range(k0 + 1, len(r)) if r[k] != 0), None)
        ratio = None if k1 is None else r[k1] / r[k0]
        key = (k0, k1, None if ratio is None else (int(ratio.p), int(ratio.q)))
        for j in buckets.get(key, ()):
            rj = rows[j]
            c = r[k0] / rj[k0]
            if all(x == c * y for x, y in zip(r, rj)):
                return (j, i)
        buckets.setdefault(key, []).append(i)
    return None


def _first_difference(ca: Canon, cb: Canon) -> str:
    if ca.kind != cb.kind:
        return f"one function is constant ({ca.kind} vs {cb.kind})"
    for name in ("first", "masked", "visible", "Gamma", "gamma"):
        if getattr(ca, name) != getattr(cb, name):
            return {"first": "first-layer hyperplanes", "masked": "masking",
                    "visible": "second-layer ridges", "Gamma": "linear part Gamma",
                    "gamma": "affine part gamma"}[name] + " differ"
    return "equal"


def _differ(a, b, x, hyps, reason) -> Verdict:
    cert = counterexample_certificate(a, b, x)
    ok, why = verify(cert)
    if not ok:   # pragma: no cover - a bug
        raise AssertionError(f"counterexample failed verification: {why}")
    return Verdict(False, "bottleneck-canon", reason + f"; a(x) != b(x) at x = "
                   f"({', '.join(q_str(v) for v in x)})", hyps, cert)


def _path_certificate(a: Network, b: Network, steps) -> dict | None:
    cert = {"format": CERTIFICATE_FORMAT, "type": "symmetry_path", "claim": "f_a = f_b",
            "a": a.to_dict(), "b": b.to_dict(), "steps": path_to_json(steps)}
    try:
        ok, _ = verify(cert)
    except Exception:    # checker missing or a step type unknown to it
        return None
    return cert if ok else None


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


def _rq(rng: random.Random, scale: int) -> Q:
    return Q(rng.randint(-scale * 16, scale * 16), rng.randint(1, 16))


def _pinv_map(P: _Parts):
    """x(u) = X (u - b1) with W1 x + b1 = u (G1)."""
    W1 = P.W1
    M = W1 @ W1.T
    X = W1.T @ M.solve(QMatrix.identity(P.n1))
    b1 = [r[-1] for r in P.R1]

    def x_of(u):
        return X.apply([ui - bi for ui, bi in zip(u, b1)])

    def dx_of(du):
        return X.apply(du)
    return x_of, dx_of


def _targeted_lines(net: Network, rng: random.Random) -> list:
    """Lines crossing each kink of *net* (first-layer hyperplanes where visible, second-layer
    bent hyperplanes inside the open orthant)."""
    P = _Parts.of(net)
    if P.W1.rank() != P.n1:
        return []
    x_of, dx_of = _pinv_map(P)
    n1 = P.n1
    out = []
    # second-layer kinks: z0 > 0 on r_j . (z, 1) = 0, crossing along the normal
    for j, r in enumerate(P.R2):
        z0 = _positive_point_on(r, n1, rng)
        if z0 is None:
            continue
        du = list(r[:-1])
        out.append((x_of(z0), dx_of(du)))
    # first-layer kinks: u_i crosses 0 while the other coordinates are set to several choices
    for i in range(n1):
        for trial in range(3):
            u0 = []
            for k in range(n1):
                if k == i:
                    u0.append(Q(0))
                elif trial == 0:
                    u0.append(Q(-1))
                else:
                    u0.append(Q(rng.randint(-4, 8), rng.randint(1, 4)))
            du = [Q(1) if k == i else Q(0) for k in range(n1)]
            out.append((x_of(u0), dx_of(du)))
    return out


def _positive_point_on(r, n1, rng) -> list | None:
    w, b = r[:-1], r[-1]
    tot = sum(abs(x) for x in w) or Q(1)
    eps = [Q(1, 1) * abs(b) / (2 * tot) * Q(rng.randint(1, 9), 10) if b != 0 else Q(rng.randint(1, 9), 10)
           for _ in range(n1)]
    rest = [k for k in range(n1) if (w[k] != 0 and (w[k] > 0) == (b <= 0))]
    if not rest:
        return None
    p = rest[rng.randrange(len(rest))]
    z = list(eps)
    s = b + sum(w[k] * z[k] for k in range(n1) if k != p)
    z[p] = -s / w[p]
    if z[p] <= 0:
        return None
    return z


def _breakpoints(net: Network, x0, dx) -> set:
    """Exact parameters s where some hidden pre-activation of *net* changes sign on x0 + s dx."""
    pts = set()
    h0, h1 = [to_q(v) for v in x0], [to_q(v) for v in dx]
    # affine images: (constant, slope) vectors, layer by layer, piecewise
    W1, b1 = net.layer(0)
    U0 = [a + c for a, c in zip(W1.apply(h0), b1)]
    U1 = list(W1.apply(h1))
    s_first = sorted({-u0 / u1 for u0, u1 in zip(U0, U1) if u1 != 0})
    pts.update(s_first)
    if net.depth < 3:
        return pts
    W2, b2 = net.layer(1)
    # segments between first-layer breakpoints
    cuts = [None] + s_first + [None]
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        if lo is None and hi is None:
            mid = Q(0)
        elif lo is None:
            mid = hi - 1
        elif hi is None:
            mid = lo + 1
        else:
            mid = (lo + hi) / 2
        act = [u0 + mid * u1 > 0 for u0, u1 in zip(U0, U1)]
        Z0 = [u0 if a else Q(0) for u0, a in zip(U0, act)]
        Z1 = [u1 if a else Q(0) for u1, a in zip(U1, act)]
        V0 = [x + c for x, c in zip(W2.apply(Z0), b2)]
        V1 = list(W2.apply(Z1))
        for v0, v1 in zip(V0, V1):
            if v1 != 0:
                s = -v0 / v1
                if (lo is None or s > lo) and (hi is None or s < hi):
                    pts.add(s)
    return pts


def _line_difference(a: Network, b: Network, x0, dx) -> tuple | None:
    if all(v == 0 for v in dx):
        return None
    pts = _breakpoints(a, x0, dx) | _breakpoints(b, x0, dx)
    ss = sorted(pts)
    cand = ([ss[0] - 1] + ss + [ss[-1] + 1]) if ss else [Q(0), Q(1)]
    # check the (cheap) kinks first, then all
    for s in cand:
        x = tuple(p + s * q for p, q in zip(x0, dx))
        if a(x) != b(x):
            return x
    return None
