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
* :func:`dimension_formula` (R17) and :func:`jacobian_dimension` (FIBDIM, R22).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
...                         [[0, 0], [-1, -3], [0]])
>>> s = structure(net)
>>> s.types, s.masked, s.s6_interval
(('switching', 'dead'), 0, (-1, 3/2))
>>> dimension_formula(net).value, jacobian_dimension(net)
(8, 8)
>>> identifiability(net).answer
False
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations
from typing import Any, Sequence

from algebra.matrices import QMatrix
from algebra.network import Network
from algebra.rationals import Q, lead, q_str, to_q
from algebra.symmetries import path_to_json
from algebra.symmetries.bottleneck import (KinkSwap, PermuteHidden, RescaleHidden, SignFlip,
                                         TailRefactor, TranslateMasked, FreeFirstLayer, RescaleLayer)

from algebra.polynomials import Ring

from .certificates import CERTIFICATE_FORMAT, counterexample_certificate, jsonable
from .exceptions import NonGenericError
from .sets import Dimension
from .symmetry_graph import count_components, symmetry_graph
from .verdict import Hypothesis, Verdict
from .verify import verify

from .shallow_fiber import positive_factor_rank   # κ₊ (R6) by the exact LP, shared with shallow
from .regions import regions as _regions      # one interior point per region, for FIBDIM
from .sets import BasicSet
from .shallow_fiber import fiber_shallow

__all__ = ["Structure", "Canon", "genericity", "is_generic", "structure", "identifiability",
           "canonical_form", "equivalent_bottleneck", "counterexample", "dimension_formula",
           "jacobian_dimension", "positive_factor_rank", "symmetry_path", "non_localizability_example",
           "is_bottleneck", "fiber_bottleneck", "BottleneckFiber", "random_symmetric_copy", "FiberComponent"]

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


def jacobian_dimension(net: Network, *, points_per_pattern: int | None = None,
                       samples: int = 2000, seed: int = 0) -> int:
    """FIBDIM (R22): ``N − rank`` of the exact Jacobian of θ ↦ (f_θ(x))_x.

    Inputs: one interior point per activation pattern (from ``semialgebraic.regions`` when
    available, else sampled in the first layer's pre-activation space), completed to d + 1
    affinely independent points of the same pattern (exact pattern checks).  Missing a region
    can only make the result too large (P10).
    """
    rng = random.Random(seed)
    if not is_bottleneck(net) or net.layer(0)[0].rank() != net.widths[1]:
        raise NonGenericError("G0/G1 (FIBDIM samples through a surjective first layer)",
                              {"widths": list(net.widths)})
    P = _Parts.of(net)
    pts = _pattern_points(net, P, rng, samples)
    rows = []
    for x in pts:
        rows += _jacobian_rows(P, x)
    if not rows:
        return net.n_parameters
    return net.n_parameters - QMatrix.from_rows(rows).rank()


# =============================================================================================
# explicit fiber (R16, R17)
# =============================================================================================

class FiberComponent:
    """One component of the fiber up to permutations (R16): a basic semi-algebraic set
    ``{θ' : p(θ') = 0 for p in equalities, q(θ') > 0 for q in positive}`` in the parameter ring
    (polynomials over Q in the names ``W1[0,0]``, …), with its discrete label (S5 flips, S7
    flips, S8 choice), the continuous generators at its representative and their span's rank.
    """

    def __init__(self, ring, equalities, positive, label, dimension, representative=None,
                 generators=None, generator_rank=None):
        self.ring, self._eqs, self._pos = ring, list(equalities), list(positive)
        self.label, self.representative = label, representative
        self._dim = dimension
        self.generators = generators or {}
        self.generator_rank = generator_rank
        self._polys = None

    def _materialise(self):
        if self._polys is None:
            self._polys = ([p.to_polynomial(self.ring) for p in self._eqs],
                           [q.to_polynomial(self.ring) for q in self._pos])
        return self._polys

    @property
    def equalities(self) -> list:
        """The equalities as :class:`~algebra.polynomials.Polynomial` (built on first use)."""
        return self._materialise()[0]

    @property
    def positive(self) -> list:
        return self._materialise()[1]

    @property
    def number_of_equalities(self) -> int:
        return len(self._eqs)

    @property
    def number_of_inequalities(self) -> int:
        return len(self._pos)

    @property
    def basic_set(self):
        """The sets helper's ``BasicSet`` of this component (None when unavailable)."""
        return _basic_set(self.ring, self.equalities, self.positive)

    @property
    def dimension(self) -> Dimension:
        return self._dim

    def contains(self, point) -> bool:
        """Exact membership of a parameter vector or a Network (no permutation applied)."""
        if isinstance(point, Network):
            point = point.parameters()
        vals = dict(zip(self.ring.names, (to_q(x) for x in point)))
        return all(p(vals) == 0 for p in self._eqs) and all(q(vals) > 0 for q in self._pos)

    def sample(self):
        return None if self.representative is None else self.representative.parameters()

    def to_json(self) -> dict:
        return jsonable({"label": self.label, "dimension": self._dim.value,
                         "equalities": [str(p) for p in self._eqs],
                         "inequalities": [f"{q} > 0" for q in self._pos],
                         "sample": None if self.representative is None else list(self.sample()),
                         "generators": {k: len(v) for k, v in self.generators.items()},
                         "generator_rank": self.generator_rank})

    def to_latex(self) -> str:
        eqs = [p.to_latex() + " = 0" for p in self.equalities]
        ins = [q.to_latex() + " > 0" for q in self.positive]
        return r"\left\{\theta : " + r",\ ".join(eqs + ins) + r"\right\}"


class BottleneckFiber:
    """The fiber of a generic three-layer bottleneck network (R16, R17); the interface of
    ``semialgebraic.fiber.Fiber``: components (up to permutations), dimension (R17, checked
    against FIBDIM where computed), numbers of components and orbits, symmetry graph,
    ``contains`` (CANON), JSON and LaTeX."""

    def __init__(self, net, components, dimension, number_of_components, number_of_orbits,
                 graph=None, fibdim=None, notes=(), membership=None):
        self.net, self.components, self.dimension = net, components, dimension
        self.membership = membership
        self.number_of_components, self.number_of_orbits = number_of_components, number_of_orbits
        self.graph, self.fibdim, self.notes = graph, fibdim, list(notes)

    def contains(self, theta: Network) -> bool:
        """Does *theta* realise the same function?  Generic θ': CANON equality (R20, with a
        verified certificate); otherwise ``membership`` (the exact equivalence dispatcher, given
        by :func:`semialgebraic.fiber.fiber`), else NonGenericError."""
        v = equivalent_bottleneck(self.net, theta)
        if v.answer is None and self.membership is not None:
            v = self.membership(self.net, theta)
        if v.answer is None:
            raise NonGenericError("fiber membership undecided", v.reason)
        return v.answer

    def to_json(self) -> dict:
        return jsonable({"network": self.net.to_dict(), "dimension": self.dimension.value,
                         "dimension_detail": self.dimension.to_json(),
                         "jacobian_dimension": self.fibdim,
                         "number_of_components": self.number_of_components,
                         "number_of_orbits": self.number_of_orbits,
                         "components": [c.to_json() for c in self.components],
                         "symmetries": _symmetry_names(self), "notes": self.notes})

    def to_latex(self) -> str:
        parts = [c.to_latex() for c in self.components]
        return (r"\mathrm{Fib}(\theta) = \bigcup_{\pi \in S} \pi\cdot\left(" + r" \cup ".join(parts)
                + r"\right)")


def fiber_bottleneck(net: Network, *, jacobian: bool | None = None,
                     max_enumerated_flips: int = 8,
                     generators: bool | None = None, membership=None) -> BottleneckFiber:
    """Explicit fiber of a generic three-layer bottleneck network (R16, R17).

    Components up to permutations are indexed by the discrete choices (S5 flip sets that the
    linear neurons can absorb, n_L ≥ κ₊(Γ'); S7 flip sets; S8).  Each is a basic semi-algebraic
    set given by polynomial equalities (first-layer directions, ridge directions and output
    weights up to S2, the linear block carrying (Γ', γ')) and strict sign conditions (positive
    scalings, dead cones, masking pattern = S6 interval, positive linear rows).  The dimension
    is R17; *jacobian* (default: when N ≤ 60) also computes FIBDIM (R22) and the two must agree,
    else NonGenericError (P5).  The rank of the span of the continuous generators (S2, S3, S4,
    S6) at the representative is computed exactly and must agree as well.
    """
    bad = next((h for h in genericity(net) if not h.holds), None)
    if bad is not None:
        raise NonGenericError(bad.name, jsonable(bad.witness))
    dim = dimension_formula(net)
    fd = None
    if jacobian is None:
        jacobian = net.n_parameters <= 60
    if jacobian:
        fd = jacobian_dimension(net)
        if fd != dim.value:
            raise NonGenericError("R17 formula = FIBDIM", {"formula": dim.value, "jacobian": fd})
    P = _Parts.of(net)
    types = _types(P)
    ring = _ring(net)
    labels, notes = _discrete_labels(net, P, types, max_enumerated_flips)
    comps = []
    for lab in labels:
        rep = _representative(net, lab)
        if rep is None and (lab["flips"] or lab["s7"] or lab["s8"]):
            notes.append(f"component {lab}: no explicit point constructed; left out")
            continue
        eqs, pos = _component_system(ring, rep if rep is not None else net, lab, P, types)
        if generators is None:
            generators = net.n_parameters <= 4000
        gens, grank = _generators(rep if rep is not None else net) if generators else ({}, None)
        if grank is not None and grank != dim.value:
            notes.append(f"component {lab}: generator span rank {grank} != {dim.value}")
        comps.append(FiberComponent(ring, eqs, pos, lab, dim, rep, gens, grank))
    F = BottleneckFiber(net, comps, dim, 0, 0, None, fd, notes, membership)
    F.structure = structure(net)
    F.graph = symmetry_graph(F)
    F.number_of_components, F.number_of_orbits = count_components(F)
    return F


def _ring(net: Network):
    return Ring.get(net.parameter_names())


def _basic_set(ring, equalities, positive):
    return BasicSet(ring, equalities=tuple(equalities), positive=tuple(positive))


def _symmetry_names(F) -> list:
    s = structure(F.net)
    out = ["S1", "S2"]
    if s.count(DEAD):
        out.append("S3")
    if s.linear:
        out.append("S4")
    if any(c.label.get("flips") for c in F.components):
        out.append("S5")
    if s.masked is not None:
        out.append("S6")
    if s.s7_applies:
        out.append("S7")
    if s.s8_applies:
        out.append("S8")
    return out


def _discrete_labels(net, P, types, cap) -> tuple[list, list]:
    """Labels {flips: S5 set, s7: S7 set, s8: bool} of the components up to permutation."""
    s = structure(net)
    notes = []
    A = [j for j, t in enumerate(types) if t == SWITCHING]
    L = list(s.linear)
    flip_sets = [()]
    if L and A:
        if len(A) <= cap:
            flip_sets = []
            for k in range(len(A) + 1):
                for S in combinations(A, k):
                    G = _flipped_gamma(P, L, S)[0]
                    if len(L) >= positive_factor_rank(G)[0]:
                        flip_sets.append(S)
        else:
            notes.append(f"{len(A)} switching neurons: S5 flip sets not enumerated")
    s7_sets = [()]
    if s.s7_applies:
        others = [k for k in range(P.n1) if k != s.masked]
        s7_sets = [S for k in range(len(others) + 1) for S in combinations(others, k)]
        if len(s7_sets) > 2 ** cap:
            s7_sets = [()]
            notes.append("S7 flip sets not enumerated")
    s8 = [False, True] if s.s8_applies else [False]
    labels = [{"flips": list(f), "s7": list(g), "s8": h} for f in flip_sets for g in s7_sets for h in s8]
    return labels, notes


def _flipped_gamma(P, L, S):
    rows = list(L) + list(S)
    if not rows:
        return QMatrix.zeros(P.m, P.n1), tuple(P.b3)
    VL = QMatrix.from_rows([P.V[j] for j in rows]).T
    WL = QMatrix.from_rows([P.R2[j] for j in rows])
    prod = VL @ WL
    return prod.submatrix(cols=range(P.n1)), tuple(P.b3[o] + prod[o, P.n1] for o in range(P.m))


def _representative(net: Network, lab: dict) -> Network | None:
    """A parameter in the component *lab* (S7/S8 moves, S5 flips with an explicit positive
    factorisation of the new linear block); None when no explicit point is constructed."""
    out = _discrete_move(net, lab)
    return None if out is None else out[0]


def _discrete_move(net: Network, lab: dict):
    """(network, steps) reaching the component *lab* from *net*, or None."""
    cur, steps = net, []
    s = structure(net)
    if lab["s7"]:
        steps.append(SignFlip(s.masked, lab["s7"]))
        cur = steps[-1].apply(cur)
    if lab["s8"]:
        steps.append(KinkSwap())
        cur = steps[-1].apply(cur)
    if lab["flips"]:
        P = _Parts.of(cur)
        L = list(s.linear)
        G, g = _flipped_gamma(P, L, lab["flips"])
        fac = _positive_factorization(G, len(L))
        if fac is None:
            return None
        Vn, Wn = fac
        rep = {j: (tuple(-x for x in P.R2[j]), P.V[j]) for j in lab["flips"]}
        for k, j in enumerate(L):
            row = tuple(Wn[k]) + (Q(1),)
            rep[j] = (row, tuple(Vn[o][k] for o in range(P.m)))
        b3 = tuple(g[o] - sum((Vn[o][k] for k in range(len(L))), Q(0)) for o in range(P.m))
        try:
            steps.append(TailRefactor(rep, b3))
            cur = steps[-1].apply(cur)
        except ValueError:
            return None
    return cur, steps


def random_symmetric_copy(net: Network, *, seed: int = 0, number_of_steps: int = 6,
                          first: Sequence[str] = ()):
    """A random composition of valid S1–S8 steps applied to a generic bottleneck *net*.

    Returns ``(copy, steps)``; every step is checked when applied.  Moves: permutations and
    positive rescalings of both hidden layers, S3 (new dead row and output column), S4 bias
    trade, S5 flip (when the linear neurons can absorb it), S6 (t strictly inside the
    interval), S7, S8.  *first*: moves to make first when they apply (names ``"s6"``,
    ``"s7"``, ``"s8"``, ``"s5"``, ``"dead"``, ``"linear"``, ``"perm1"``, …).
    """
    rng = random.Random(seed)
    cur, path = net, []
    forced = list(first)
    for _ in range(number_of_steps + len(forced)):
        s = structure(cur)
        if not s.is_generic:
            break
        d, n1, n2, m = s.widths
        P = _Parts.of(cur)
        moves = ["perm1", "perm2", "scale1", "scale2"]
        dead = [j for j, t in enumerate(s.types) if t == DEAD]
        sw = [j for j, t in enumerate(s.types) if t == SWITCHING]
        moves += ["dead"] * bool(dead) + ["linear"] * bool(s.linear) + ["s6"] * (s.masked is not None)
        moves += ["s7"] * s.s7_applies + ["s8"] * s.s8_applies + ["s5"] * bool(s.linear and sw)
        mv = rng.choice(moves)
        while forced:
            f = forced.pop(0)
            if f in moves:
                mv = f
                break
        if mv in ("perm1", "perm2"):
            n = n1 if mv == "perm1" else n2
            perm = list(range(n))
            rng.shuffle(perm)
            st = [PermuteHidden(1 if mv == "perm1" else 2, perm)]
        elif mv in ("scale1", "scale2"):
            n = n1 if mv == "scale1" else n2
            st = [RescaleHidden(1 if mv == "scale1" else 2, rng.randrange(n),
                                Q(rng.randint(1, 9), rng.randint(1, 9)))]
        elif mv == "dead":
            j = rng.choice(dead)
            row = tuple(-Q(rng.randint(1, 9), rng.randint(1, 5)) for _ in range(n1 + 1))
            out = tuple(Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(m))
            st = [TailRefactor({j: (row, out)}, P.b3)]
        elif mv == "linear":
            j = rng.choice(list(s.linear))
            c = Q(rng.randint(1, 9), rng.randint(1, 9))
            row = P.R2[j][:-1] + (c * P.R2[j][-1],)
            b3 = tuple(x - v * (c - 1) * P.R2[j][-1] for x, v in zip(P.b3, P.V[j]))
            st = [TailRefactor({j: (row, P.V[j])}, b3)]
        elif mv == "s6":
            lo, hi = s.s6_interval
            u = Q(rng.randint(1, 99), 100)
            if hi is None:
                t = lo + u * (1 + abs(lo))
            else:
                t = lo + u * (hi - lo)
            st = [TranslateMasked(s.masked, t)]
        elif mv == "s7":
            others = [k for k in range(n1) if k != s.masked]
            st = [SignFlip(s.masked, rng.sample(others, rng.randint(1, len(others))))]
        elif mv == "s8":
            st = [KinkSwap()]
        else:
            mvd = _discrete_move(cur, {"flips": [rng.choice(sw)], "s7": [], "s8": False})
            if mvd is None:
                continue
            st = mvd[1]
        nxt = cur
        for step in st:
            nxt = step.apply(nxt)
        if is_generic(nxt):            # keep the copy inside the theory (e.g. no zero column)
            cur = nxt
            path += st
    return cur, path


def _positive_factorization(G: QMatrix, nL: int):
    """Γ = V W with W > 0 entrywise and nL rows (R6 construction), or None."""
    m, n1 = G.shape
    rho = G.rank()
    basis = G.row_space()
    p = None
    if rho:
        # a positive vector in the row space (exact, z3) or outside it (κ₊ = ρ + 1)
        p = _positive_in_rowspace(basis)
    rows = [list(basis.row_at(t)) for t in range(rho)]
    extra = []
    if p is None:
        p = [Q(1)] * n1
        extra = [p]
    need = len(rows) + len(extra)
    if need > nL:
        return None
    W = []
    for r in rows:
        lam = max([Q(0)] + [(-x) / pi + 1 for x, pi in zip(r, p) if x <= 0])
        W.append([x + lam * pi for x, pi in zip(r, p)])
    W += extra
    while len(W) < nL:
        W.append([Q(1)] * n1)
    # solve V Wm = G for V (least structure: use the first `need` rows, others get 0)
    sub = QMatrix.from_rows(W[:need]) if need else None
    V = [[Q(0)] * nL for _ in range(m)]
    if need:
        for o in range(m):
            sol = sub.T.solve_general(list(G.row_at(o)))
            if sol is None:
                return None
            for k, x in enumerate(sol[0]):
                V[o][k] = x
    # extra rows: positive combinations of the used rows with small non-zero outputs,
    # compensated on the used rows (keeps V W = Γ, avoids zero output columns, P13)
    for e in range(need, nL):
        cs = [Q(k + 2, k + 3 + e) for k in range(need)]
        if not need:
            break
        W[e] = [sum((c * W[k][i] for k, c in enumerate(cs)), Q(0)) for i in range(n1)]
        ve = [Q(1, 7 + e + o) for o in range(m)]
        for o in range(m):
            V[o][e] = ve[o]
            for k, c in enumerate(cs):
                V[o][k] -= c * ve[o]
    if [[sum((V[o][k] * W[k][i] for k in range(nL)), Q(0)) for i in range(n1)] for o in range(m)] \
            != G.to_rows():
        return None
    return V, W


def _positive_in_rowspace(B: QMatrix):
    import z3
    n = B.ncols
    cs = [z3.Real(f"c{t}") for t in range(B.nrows)]
    s = z3.Solver()
    s.set("timeout", 20000)
    for i in range(n):
        s.add(z3.Sum([z3.RatVal(int(B[t, i].p), int(B[t, i].q)) * cs[t] for t in range(B.nrows)]) >= 1)
    if s.check() != z3.sat:
        return None
    mod = s.model()
    c = []
    for v in cs:
        val = mod.eval(v, model_completion=True)
        c.append(Q(val.numerator_as_long(), val.denominator_as_long()))
    p = [sum((c[t] * B[t, i] for t in range(B.nrows)), Q(0)) for i in range(n)]
    return p if all(x > 0 for x in p) else None


class _Poly:
    """Sparse polynomial over Q in named parameters: {sorted tuple of names: coefficient}.

    Used to build fiber systems in huge parameter rings (N ~ 10^5) where a dense-exponent
    ``fmpq_mpoly`` per equation would not fit; converted to :class:`Polynomial` on demand."""

    __slots__ = ("t",)

    def __init__(self, t=None):
        self.t = t or {}

    @staticmethod
    def var(name):
        return _Poly({(name,): Q(1)})

    def _c(self, o):
        return o if isinstance(o, _Poly) else _Poly({(): to_q(o)} if o != 0 else {})

    def __add__(self, o):
        o = self._c(o)
        t = dict(self.t)
        for k, v in o.t.items():
            x = t.get(k, 0) + v
            if x == 0:
                t.pop(k, None)
            else:
                t[k] = x
        return _Poly(t)

    __radd__ = __add__

    def __neg__(self):
        return _Poly({k: -v for k, v in self.t.items()})

    def __sub__(self, o):
        return self + (-self._c(o))

    def __rsub__(self, o):
        return self._c(o) - self

    def __mul__(self, o):
        o = self._c(o)
        t = {}
        for k1, v1 in self.t.items():
            for k2, v2 in o.t.items():
                k = tuple(sorted(k1 + k2))
                x = t.get(k, 0) + v1 * v2
                if x == 0:
                    t.pop(k, None)
                else:
                    t[k] = x
        return _Poly(t)

    __rmul__ = __mul__

    def __truediv__(self, c):
        c = to_q(c)
        return _Poly({k: v / c for k, v in self.t.items()})

    def is_zero(self):
        return not self.t

    def __call__(self, values: dict):
        tot = Q(0)
        for k, v in self.t.items():
            x = v
            for n in k:
                x = x * values[n]
            tot += x
        return tot

    def to_polynomial(self, ring):
        out = ring.zero()
        g = {}
        for k, v in self.t.items():
            term = ring.constant(v)
            for n in k:
                if n not in g:
                    g[n] = ring.gen(n)
                term = term * g[n]
            out = out + term
        return out

    def __str__(self):
        if not self.t:
            return "0"
        parts = []
        for k, v in sorted(self.t.items()):
            mon = "*".join(k)
            if not k:
                parts.append(q_str(v))
            elif v == 1:
                parts.append(mon)
            elif v == -1:
                parts.append("-" + mon)
            else:
                parts.append(f"{q_str(v)}*{mon}")
        return " + ".join(parts).replace("+ -", "- ")


def _component_system(ring, rep: Network, lab, P0, types):
    """Polynomial equalities and strict inequalities of one component around *rep*."""
    P = _Parts.of(rep)
    g = {n: _Poly.var(n) for n in ring.names}
    zero = _Poly()
    n1, n2, m, d = P.n1, P.n2, P.m, P.d
    W1 = lambda i, c: g[f"W1[{i},{c}]"] if c < d else g[f"b1[{i}]"]
    W2 = lambda j, i: g[f"W2[{j},{i}]"] if i < n1 else g[f"b2[{j}]"]
    W3 = lambda o, j: g[f"W3[{o},{j}]"]
    b3 = lambda o: g[f"b3[{o}]"]
    eqs, pos = [], []
    istar = _masked(P0, types)
    if all(t == DEAD for t in types):
        for j in range(n2):
            pos += [-W2(j, i) for i in range(n1 + 1)]
        eqs += [b3(o) - P.b3[o] for o in range(m)]
        return eqs, pos
    piv = []
    for i in range(n1):
        r = P.R1[i]
        p = next(c for c in range(d) if r[c] != 0)
        piv.append(p)
        cols = [c for c in range(d + 1) if c != p and (i != istar or c < d)]
        eqs += [W1(i, c) * r[p] - W1(i, p) * r[c] for c in cols]
        pos.append(W1(i, p) * (1 if r[p] > 0 else -1))
    lam = lambda i: W1(i, piv[i]) / P.R1[i][piv[i]]       # λ_i as a polynomial
    for j, t in enumerate(types):
        r, V = P.R2[j], P.V[j]
        if t == DEAD:
            pos += [-W2(j, i) for i in range(n1 + 1)]
        elif t == SWITCHING and istar is None:
            # μ_j = b2'_j / r_b ; W2'[j,i] λ_i = μ_j r_i ; V'_j μ_j = V_j
            eqs += [W2(j, i) * lam(i) * r[-1] - W2(j, n1) * r[i] for i in range(n1)]
            eqs += [W3(o, j) * W2(j, n1) - V[o] * r[-1] for o in range(m)]
            pos.append(W2(j, n1) * (1 if r[-1] > 0 else -1))
        elif t == SWITCHING:
            bt = r[-1] + r[istar] * P.R1[istar][-1]             # b̃2_j (invariant)
            mu = W2(j, istar) * lam(istar)                       # = μ_j r[istar]
            eqs += [W2(j, i) * lam(i) * r[istar] - mu * r[i] for i in range(n1) if i != istar]
            eqs.append((W2(j, n1) + W2(j, istar) * W1(istar, d)) * r[istar] - mu * bt)
            eqs += [W3(o, j) * mu - V[o] * r[istar] for o in range(m)]
            pos.append(W2(j, istar))
            pos.append(-W2(j, n1))
        else:
            pos += [W2(j, i) for i in range(n1 + 1)]
    L = [j for j, t in enumerate(types) if t == LINEAR]
    if istar is None:
        G, gm = _flipped_gamma(P, L, ())
        for o in range(m):
            for i in range(n1):
                e = sum((W3(o, j) * W2(j, i) for j in L), zero) * lam(i) - G[o, i]
                if L or G[o, i] != 0:
                    eqs.append(e)
            eqs.append(sum((W3(o, j) * W2(j, n1) for j in L), zero) + b3(o) - gm[o])
    else:
        eqs += [b3(o) - P.b3[o] for o in range(m)]
    return [e for e in eqs if not e.is_zero()], pos


def _generators(net: Network) -> tuple[dict, int]:
    """Tangent vectors of S2, S3, S4, S6 at *net* (flat order) and the exact rank of their span."""
    P = _Parts.of(net)
    types = _types(P)
    names = net.parameter_names()
    idx = {n: k for k, n in enumerate(names)}
    N = len(names)
    gens = {"S2": [], "S3": [], "S4": [], "S6": []}
    if all(t == DEAD for t in types):        # P12: constant function, the first layer is free
        for c in names:
            if c.startswith("W1[") or c.startswith("b1["):
                v = [Q(0)] * N
                v[idx[c]] = Q(1)
                gens["S3"].append(tuple(v))
    else:
        for i in range(P.n1):
            gens["S2"] += RescaleHidden(1, i, 2).generator(net)
    for j, t in enumerate(types):
        if t == SWITCHING:
            gens["S2"] += RescaleHidden(2, j, 2).generator(net)
        elif t == DEAD:
            for c in [f"W2[{j},{i}]" for i in range(P.n1)] + [f"b2[{j}]"] + \
                    [f"W3[{o},{j}]" for o in range(P.m)]:
                v = [Q(0)] * N
                v[idx[c]] = Q(1)
                gens["S3"].append(tuple(v))
    L = [j for j, t in enumerate(types) if t == LINEAR]
    if L:
        coords = [f"W2[{j},{i}]" for j in L for i in range(P.n1)] + [f"b2[{j}]" for j in L] + \
                 [f"W3[{o},{j}]" for o in range(P.m) for j in L] + [f"b3[{o}]" for o in range(P.m)]
        ring = _ring(net)
        g = {n: ring.gen(n) for n in coords}
        eqs = []
        for o in range(P.m):
            for i in range(P.n1):
                eqs.append(sum((g[f"W3[{o},{j}]"] * g[f"W2[{j},{i}]"] for j in L), ring.zero()))
            eqs.append(sum((g[f"W3[{o},{j}]"] * g[f"b2[{j}]"] for j in L), ring.zero()) + g[f"b3[{o}]"])
        pt = net.parameters()
        J = QMatrix.from_rows([[e.diff(c)(pt) for c in coords] for e in eqs])
        K = J.nullspace()
        for t in range(K.nrows):
            v = [Q(0)] * N
            for c, x in zip(coords, K.row_at(t)):
                v[idx[c]] = x
            gens["S4"].append(tuple(v))
    istar = _masked(P, types)
    if istar is not None:
        gens["S6"] += TranslateMasked(istar, 0).generator(net)
    allv = [v for vs in gens.values() for v in vs]
    rank = QMatrix.from_rows(allv).rank() if allv else 0
    return gens, rank


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
    tail_ok = _proportional_pair(rows) is None and all(any(x != 0 for x in r[:-1]) for r in rows)
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


def _pattern_points(net: Network, P: _Parts, rng: random.Random, samples: int) -> list:
    """d + 1 affinely independent exact inputs per activation pattern found."""
    seeds = {}
    for reg in _regions(net):
        seeds.setdefault(tuple(reg.pattern), tuple(reg.point))
    if not seeds:
        x_of, _ = _pinv_map(P)
        W1 = P.W1
        kern = W1.nullspace()
        for t in range(samples):
            u = [Q(rng.choice((-1, 1)) * rng.randint(1, 64) * 2 ** rng.randint(0, 8), 16)
                 for _ in range(P.n1)]
            x = list(x_of(u))
            for kr in range(kern.nrows):
                c = Q(rng.randint(-8, 8), rng.randint(1, 4))
                x = [xi + c * ki for xi, ki in zip(x, kern.row_at(kr))]
            pat = net.activation_pattern(x)
            if 0 in pat:
                continue
            seeds.setdefault(pat, tuple(x))
    out = []
    d = net.n_inputs
    for pat, p in seeds.items():
        out.append(p)
        for k in range(d):
            eps = Q(1)
            for _ in range(80):
                q = list(p)
                q[k] = q[k] + eps
                if net.activation_pattern(q) == pat:
                    out.append(tuple(q))
                    break
                eps = eps / 4
    return out


def _jacobian_rows(P: _Parts, x) -> list:
    """Rows ∂f_o/∂θ at x (R22), flat parameter order."""
    n1, n2, m, d = P.n1, P.n2, P.m, P.d
    u = [sum((r[k] * x[k] for k in range(d)), r[-1]) for r in P.R1]
    z = [ui if ui > 0 else Q(0) for ui in u]
    a1 = [1 if ui > 0 else 0 for ui in u]
    v = [sum((r[k] * z[k] for k in range(n1)), r[-1]) for r in P.R2]
    y = [vi if vi > 0 else Q(0) for vi in v]
    a2 = [1 if vi > 0 else 0 for vi in v]
    rows = []
    for o in range(m):
        g = [a1[i] * sum((P.V[j][o] * a2[j] * P.R2[j][i] for j in range(n2)), Q(0)) for i in range(n1)]
        row = []
        for i in range(n1):
            row += [g[i] * x[k] for k in range(d)]
        row += g
        for j in range(n2):
            c = P.V[j][o] * a2[j]
            row += [c * z[i] for i in range(n1)]
        row += [P.V[j][o] * a2[j] for j in range(n2)]
        for oo in range(m):
            row += [y[j] if oo == o else Q(0) for j in range(n2)]
        row += [Q(1) if oo == o else Q(0) for oo in range(m)]
        rows.append(row)
    return rows
