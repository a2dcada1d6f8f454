r"""Three-layer bottleneck networks: genericity, structure and the dimension formula.

For ``f = W3 σ(W2 σ(W1 x + b1) + b2) + b3`` with ``n1 ≤ d`` (three-layer-fibers §2–§4):
the genericity conditions G0–G8 (§3.1) as exact :class:`~semialgebraic.verdict.Hypothesis`
values with witnesses (:func:`genericity`), the structure report (:func:`structure`: neuron
types R3, masked neuron R4/R5, S6 interval R13, S7/S8, the linear block Γ, γ, ρ and κ₊ R6)
and the fiber dimension formula R17 (:func:`dimension_formula`).  The helpers (the parts of a
network :class:`Parts`, the second-layer neuron types, the linear block, proportional rows, the
preimage map of the first layer) are shared by the other modules of the family
(:mod:`~semialgebraic.bottleneck._identifiability`, :mod:`~semialgebraic.bottleneck.canon`,
:mod:`~semialgebraic.bottleneck.fiber`, :mod:`~semialgebraic.bottleneck.fibdim`); the masked
column is :func:`algebra.symmetries.bottleneck.masking_column`, the test the S6/S7 steps check.
Indices are 0-based.

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
...                         [[0, 0], [-1, -3], [0]])
>>> structure(net).types, dimension_formula(net).value
(('switching', 'dead'), 8)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from algebra.linalg import QMatrix
from algebra.linalg.gfp import PRIME_31, exact_rank, rank_lower_bound
from algebra.network import Network, require_network
from algebra.rationals import q_str
from algebra.symmetries.bottleneck import masking_column, s7_flippable

from ..budget import checkpoint
from ..certificates import jsonable
from ..sets import Dimension
from ..shallow import positive_factor_rank   # κ₊ (R6) by the exact LP, shared with shallow
from ..verdict import Hypothesis

__all__ = ["Structure", "genericity", "is_generic", "structure", "dimension_formula",
           "is_bottleneck", "DEAD", "LINEAR", "SWITCHING", "Parts", "second_layer_types",
           "linear_block", "proportional_pair", "preimage_map", "facet_jumps", "Trace",
           "r18_reasons"]

DEAD, LINEAR, SWITCHING = "dead", "linear", "switching"


def is_bottleneck(net: Network) -> bool:
    """True when *net* has two hidden layers and ``n1 ≤ d``."""
    return net.depth == 3 and net.widths[1] <= net.widths[0]


class Trace:
    """What a bottleneck decision has established so far, read when a budget or Ctrl-C stops it
    (``identify --timeout``, ``plot fiber --timeout``): every entry is a fact checked exactly,
    never a guess.

    ``phase``: where the work is (``hypotheses``, then for a verdict ``structure``,
    ``certificate``, ``check``; for a fiber ``dimension``, ``components``, ``graph``);
    ``hypotheses``: the conditions G0–G8 decided so far, in order; ``g8_columns`` /
    ``n1``: first-layer columns of G8 decided so far (each bends on its facet) out of ``n1``;
    ``found``: the symmetry directions read off the signs of ``[W2 | b2]`` (R18's reasons, an
    established fact about the weights; a verdict needs G0–G8 too); ``r18``: the R18 sign
    conditions once evaluated; ``dimension``: a fiber's dimension once R17 (and FIBDIM R22,
    when computed) gave it; ``components``: ``(built, total)`` components of a fiber (R16);
    ``verdict``: the verdict once decided and its certificate re-checked.

    >>> from algebra.network import Network
    >>> t = Trace()
    >>> _ = genericity(Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
    ...                                  [[0, 0], [-1, -3], [0]]), t)
    >>> len(t.hypotheses), t.g8_columns, t.found
    (9, 2, ['rows [1] of [W2 | b2] are all-negative (dead, S3)', 'column 0 of [W2 | b2] is masked: rows [0] have the masking pattern (S6 translation)'])
    """

    def __init__(self):
        self.phase = "hypotheses"
        self.hypotheses: list[Hypothesis] = []
        self.g8_columns, self.n1 = 0, None
        self.found: list[str] = []
        self.r18: list[Hypothesis] = []
        self.components: tuple[int, int] | None = None
        self.dimension: int | None = None
        self.verdict = None

    def checked(self) -> list[Hypothesis]:
        """The conditions decided so far: G0–G8 (as far as they got), then R18's."""
        return self.hypotheses + self.r18

    def progress(self) -> str:
        """Where the work stopped inside its phase (G8's columns, the fiber's components), or
        ''."""
        if self.phase == "components" and self.components is not None:
            return f"{self.components[0]} of {self.components[1]} components built"
        if self.phase != "hypotheses" or self.n1 is None or len(self.hypotheses) != 8:
            return ""
        if self.g8_columns == 0:
            return f"G8: none of the {self.n1} first-layer columns decided yet"
        return (f"G8: {self.g8_columns} of {self.n1} first-layer columns checked, each bends "
                "on its facet")


def r18_reasons(types, masked, s8) -> list[tuple[str, tuple]]:
    """The symmetry directions that the signs of ``[W2 | b2]`` give (three-layer-fibers R18:
    dead rows S3, linear rows S4, a masked column S6, S8), each ``(reason, move)``; empty when
    every R18 condition holds."""
    out = []
    dead = [j for j, t in enumerate(types) if t == DEAD]
    lin = [j for j, t in enumerate(types) if t == LINEAR]
    if dead:
        out.append((f"rows {dead} of [W2 | b2] are all-negative (dead, S3)", ("dead", dead[0])))
    if lin:
        out.append((f"rows {lin} of [W2 | b2] are all-positive (linear, S4 bias trade)",
                    ("linear", lin[0])))
    if masked is not None:
        nd = [j for j, t in enumerate(types) if t != DEAD]
        out.append((f"column {masked} of [W2 | b2] is masked: rows {nd} have the masking "
                    f"pattern (S6 translation)", ("masked", masked)))
    if s8:
        out.append(("n1 = 1 and every non-dead row is (- | +) (S8 kink swap)", ("s8", None)))
    return out


def s8_applies(P: "Parts", types) -> bool:
    """S8 (three-layer-fibers R15): n1 = 1 and every non-dead row is ``(− | +)``."""
    nd = [j for j, t in enumerate(types) if t != DEAD]
    return P.n1 == 1 and bool(nd) and all(P.R2[j][0] < 0 and P.b2[j] > 0 for j in nd)


def genericity(net: Network, trace: Trace | None = None) -> tuple[Hypothesis, ...]:
    """The genericity conditions of three-layer-fibers §3.1, checked exactly.

    G0 two hidden layers and ``n1 ≤ d``; G1 ``rank W1 = n1``; G2 no zero entry in
    ``[W2 | b2]``; G3 no zero column of ``W3``; G4 no two proportional rows of ``[W1 | b1]``;
    G5 no two proportional rows of ``[W2 | b2]`` (any non-zero factor); G6
    ``rank Γ = min(n_L, n1, m)``; G7 (project addition) when there is no switching neuron,
    every column of Γ is non-zero (else a first-layer neuron is invisible); G8 (project addition,
    :func:`cancelled_facet`) every unmasked first-layer neuron bends on some open cell of its
    facet (else R17 misses a dimension).  Conditions after
    the first failing one of G0–G3 are reported with ``holds=None``.  A *trace*
    (:class:`Trace`) records each condition as it is decided, G8 column by column, and the
    symmetry directions of R18 as soon as the types are known (a trace that holds them already
    is left as it is).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1, 2]], [[0]], [[1]]], [[0], [1], [0]])
    >>> [ (h.name, h.holds, h.witness) for h in genericity(net)][:3]
    [('G0 two hidden layers, n1 <= d', True, None), ('G1 rank W1 = n1', True, None), ('G2 no zero entry in [W2 | b2]', False, {'row': 0, 'column': 0})]
    """
    if trace is not None and trace.hypotheses:      # checked before on this trace: kept as is
        trace.phase = "hypotheses"                  # (checked again: the same answer)
        return _genericity(net, None)
    return _genericity(net, trace)


def full_row_rank(W) -> bool:
    """Whether W has full row rank, exactly: a zero row says no; rank mod p = rows says yes;
    else the exact rank through a minor found mod p (one exact FLINT rank of a 514 x 784 W1 held
    a 784-512-512-10 pair past its --timeout: session 40 equivbig audit F3)."""
    if any(all(x == 0 for x in W.row_at(i)) for i in range(W.nrows)):
        return False
    return rank_lower_bound(W, PRIME_31) == W.nrows or exact_rank(W) == W.nrows


def _rank_deficiency(W1):
    """``(rank of W1, a row dependency or None)`` once W1's rank mod p fell short of its rows.
    Zero rows (dead neurons with no incoming weight) first: the rank is that of the other rows,
    full when their rank mod p is, and the dependency a unit vector — a 514 x 784 W1 with two
    zero rows went to one exact FLINT rank over Q that no --timeout stops (s40 equivbig audit
    F3, a 784-512-512-10 pair); otherwise the exact rank and a null vector over Q."""
    rows = W1.to_rows()
    zero = [i for i, row in enumerate(rows) if all(x == 0 for x in row)]
    rest = [row for row in rows if any(x != 0 for x in row)]
    if zero:
        sub = QMatrix.from_rows(rest, ncols=W1.ncols) if rest else None
        r = 0 if sub is None else (len(rest) if rank_lower_bound(sub, PRIME_31) == len(rest)
                                   else exact_rank(sub))
        return r, [1 if i == zero[0] else 0 for i in range(W1.nrows)]
    r = exact_rank(W1)
    return r, (list(W1.T.nullspace().row_at(0)) if r < W1.nrows else None)


_G_NAMES = ("G0 two hidden layers, n1 <= d", "G1 rank W1 = n1", "G2 no zero entry in [W2 | b2]",
            "G3 no zero column of W3", "G4 rows of [W1 | b1] pairwise non-proportional",
            "G5 rows of [W2 | b2] pairwise non-proportional", "G6 rank Gamma = min(n_L, n1, m)",
            "G7 every first-layer neuron visible",
            "G8 every unmasked first-layer neuron bends on its facet")
"""The names of G0–G8, in the order they are checked."""


def _genericity(net: Network, trace: Trace | None) -> tuple[Hypothesis, ...]:
    names = _G_NAMES
    out: list[Hypothesis] = trace.hypotheses if trace is not None else []
    if net.depth != 3:
        return (Hypothesis(names[0], False, {"hidden_layers": net.depth - 1}),)
    d, n1, n2, m = net.widths
    if n1 > d:
        return (Hypothesis(names[0], False, {"n1": n1, "d": d}),)
    out.append(Hypothesis(names[0], True))
    P = Parts.of(net)
    if trace is not None:
        trace.n1 = n1
    r, dependency = n1, None
    if rank_lower_bound(P.W1, PRIME_31) != n1:
        r, dependency = _rank_deficiency(P.W1)
    if r != n1:
        out.append(Hypothesis(names[1], False, {"rank": r, "n1": n1,
                                                "row_dependency": dependency}))
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
    p2 = proportional_pair(P.R2)
    out.append(Hypothesis(names[5], p2 is None, None if p2 is None else {"rows": list(p2)}))
    types = second_layer_types(P)
    if trace is not None:
        trace.found = [r for r, _ in r18_reasons(types, masking_column(P.R2), s8_applies(P, types))]
    L = [j for j, t in enumerate(types) if t == LINEAR]
    G, _ = linear_block(P, L)
    rho, want = G.rank(), min(len(L), n1, m)
    out.append(Hypothesis(names[6], rho == want,
                          None if rho == want else {"rank": rho, "expected": want, "linear_rows": L}))
    holds, wit = True, None
    if L and SWITCHING not in types:
        zc = next((k for k in range(n1) if all(G[o, k] == 0 for o in range(m))), None)
        if zc is not None:
            holds, wit = False, {"column": zc, "reason": "column of Gamma is zero"}
    out.append(Hypothesis(names[7], holds, wit))
    wit = cancelled_facet(P, types, trace)
    out.append(Hypothesis(names[8], wit is None, wit))
    return tuple(out)


def cancelled_facet(P: Parts, types, trace: Trace | None = None) -> dict | None:
    """G8 (three-layer-fibers §3.1): None when every first-layer neuron that is not masked (R4)
    shows a kink on some relatively open cell of its facet ``F_i`` of the orthant, i.e. the
    active non-dead rows ``S`` there have ``Σ_{j∈S} V_j W2[j,i] ≠ 0``; else a witness
    ``{"column", "cells"}`` (each cell: a point and its active rows, all with slope 0 across
    ``F_i``).  Such a neuron is hidden everywhere without the masking pattern, so R17's
    ``n_M`` misses it (the hunt net of §3.1: R17 12, FIBDIM 13).  A cancellation on only part
    of ``F_i`` is harmless (R4: a hyperplane is fixed by any open piece).  Cells are enumerated
    exactly for n1 ≤ 2 (``F_i`` is a point or a ray); for n1 ≥ 3 the cells are not walked:
    :func:`facet_jumps` decides by the jump rule of §3.1 (polynomial, exact, no budget needed).
    A *trace* counts the columns decided (``g8_columns``).
    """
    n1 = P.n1
    live = [j for j, t in enumerate(types) if t != DEAD]
    if not live:
        return None                                   # constant f: R17 uses N - m
    masked = masking_column(P.R2)
    zero = 0 * P.R2[0][0]

    def active(z):
        vals = [(j, sum((P.R2[j][c] * z[c] for c in range(n1)), P.R2[j][n1])) for j in live]
        if any(v == 0 for _, v in vals):
            return None                               # on a hyperplane: not an open cell
        return [j for j, v in vals if v > 0]

    def visible(S, i):
        return any(sum((P.V[j][o] * P.R2[j][i] for j in S), zero) != 0 for o in range(P.m))

    ratios = _row_ratios(P, live) if n1 >= 3 else None
    for i in range(n1):
        if len(live) > 256:           # a large tail only: the polynomial check of a small net
            checkpoint()              # runs whole, whatever the budget (test_user_tour)
        if trace is not None:
            trace.g8_columns = i
        if i == masked:
            continue
        if n1 >= 3:
            wit = facet_jumps(P, live, i, ratios)
            if wit is not None:
                return wit
            continue
        others = [c for c in range(n1) if c != i]
        if n1 == 1:
            pts = [[zero]]
        else:
            k = others[0]
            br = sorted({-P.R2[j][n1] / P.R2[j][k] for j in live
                         if -P.R2[j][n1] / P.R2[j][k] > 0})
            ss = ([br[0] / 2] + [(a + b) / 2 for a, b in zip(br, br[1:])] + [br[-1] + 1]
                  if br else [zero + 1])
            pts = [[s if c == k else zero for c in range(2)] for s in ss]
        cells, seen = [], False
        for z in pts:
            S = active(z)
            if S is None:
                continue
            if visible(S, i):
                seen = True
                break
            cells.append({"point": list(z), "active_rows": S})
        if not seen:
            return {"column": i, "cells": cells[:4]}
    if trace is not None:
        trace.g8_columns = n1
    return None


def _row_ratios(P: Parts, live) -> dict:
    """``{j: ((p, q) of W2[j, c] / b2_j for each column c)}``: the exact ratios as pairs of
    Python ints, so that :func:`facet_jumps` compares restricted rows by hashing ints (hashing
    ``fmpq`` goes through ``fractions.Fraction``: 27 of the 32 s of G8 on a 24-1200-2 net)."""
    out = {}
    for j in live:
        b = P.R2[j][P.n1]
        out[j] = tuple((int(x.numerator), int(x.denominator))
                       for x in (P.R2[j][c] / b for c in range(P.n1)))
    return out


def facet_jumps(P: Parts, live, i, ratios: dict | None = None) -> dict | None:
    """G8 for column *i* (n1 ≥ 2) by the jump rule (three-layer-fibers §3.1): None when the
    kink of first-layer neuron *i* is visible on some open cell of ``F_i``, else the witness.

    On the open facet ``F_i° = {z_i = 0, z_c > 0 (c ≠ i)}`` put ``g(z) = Σ_{j active at z} a_j``,
    ``a_j = V_j W2[j,i]`` (piecewise constant).  Rows whose restriction ``(W2_j without column
    i | b2_j)`` is proportional (any non-zero factor) cut ``F_i°`` along one hyperplane ``H``;
    ``H`` meets ``F_i°`` iff some restricted weight has the sign opposite to ``b2_j`` (G2: no
    zero entry).  Crossing ``H`` at a point on no other hyperplane, ``g`` jumps by
    ``J_H = Σ_{b2_j>0} a_j − Σ_{b2_j<0} a_j`` (rows of ``H``).  If some ``J_H ≠ 0``, ``g`` is
    non-zero on one side: visible.  If every ``J_H = 0``, ``g`` is constant on ``F_i°`` minus a
    set of codimension 2 (connected), so ``g ≡ g(z₀)`` at one point ``z₀`` off every
    hyperplane; visible iff ``g(z₀) ≠ 0``.  Witness of a failure: ``{"column", "cells":
    [{"point": z₀, "active_rows"}], "hyperplanes": [rows of each H meeting F_i°], "reason"}``.
    *ratios* (:func:`_row_ratios`, computed when omitted) are the live rows' exact ratios to
    their biases.
    """
    n1, zero = P.n1, 0 * P.R2[0][0]
    others = [c for c in range(n1) if c != i]

    def a(j):
        return [P.V[j][o] * P.R2[j][i] for o in range(P.m)]

    if ratios is None:
        ratios = _row_ratios(P, live)
    classes: dict = {}
    for j in live:
        if j & 255 == 255:
            checkpoint()
        r, b = P.R2[j], P.R2[j][n1]
        if not any(r[c] * b < 0 for c in others):
            continue                                  # constant sign on F_i°: no hyperplane there
        key = ratios[j][:i] + ratios[j][i + 1:]       # (W2_j without column i) / b2_j, exactly
        classes.setdefault(key, []).append(j)
    for rows in classes.values():
        jump = [zero] * P.m
        for j in rows:
            sign = 1 if P.R2[j][n1] > 0 else -1
            jump = [x + sign * y for x, y in zip(jump, a(j))]
        if any(x != 0 for x in jump):
            return None
    for t in range(1, len(live) * (n1 - 1) + 2):      # each row vanishes at ≤ n1 − 1 of them
        if t & 63 == 63:
            checkpoint()
        z = [zero] * n1
        for k, c in enumerate(others):
            z[c] = zero + t ** (k + 1)
        vals = [(j, sum((P.R2[j][c] * z[c] for c in others), P.R2[j][n1])) for j in live]
        if all(v != 0 for _, v in vals):
            break
    S = [j for j, v in vals if v > 0]
    if any(sum((a(j)[o] for j in S), zero) != 0 for o in range(P.m)):
        return None
    return {"column": i, "cells": [{"point": list(z), "active_rows": S}],
            "hyperplanes": [rows for rows in classes.values()],
            "reason": "every hyperplane of F_i has jump 0 and the slope at one cell is 0"}


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

    def to_text(self, number=q_str) -> str:
        """The report for a person; *number* prints one rational (exactly by default; the CLI
        passes its decimal formatting)."""
        lines = [f"widths {'-'.join(map(str, self.widths))}; generic: {self.is_generic}"]
        for h in self.hypotheses:
            w = "" if h.holds or h.witness is None else f" at {jsonable(h.witness)}"
            lines.append(f"  {h.name}: {h.holds}{w}")
        if self.types is None:
            return "\n".join(lines)
        lines.append("second-layer neurons: " + _grouped(self.types))
        if self.masked is not None:
            lo, hi = self.s6_interval
            lines.append(f"masked first-layer neuron: {self.masked}; S6 interval "
                         f"[{'-inf' if lo is None else number(lo)}, {'inf' if hi is None else number(hi)}]")
        else:
            lines.append("masked first-layer neuron: none")
        lines.append(f"S7 applies: {self.s7_applies}; S8 applies: {self.s8_applies}")
        if self.linear:
            rows = "; ".join(", ".join(number(x) for x in r) for r in self.Gamma.to_rows())
            lines.append(f"linear block rows {list(self.linear)}: Gamma = [{rows}], gamma = "
                         f"({', '.join(number(x) for x in self.gamma)}), rank {self.rho}, "
                         f"kappa_plus {self.kappa_plus}")
        return "\n".join(lines)


def _grouped(types) -> str:
    """``0:switching, 1:dead`` for a few neurons; ``all 16 switching`` or ``switching [0, 1, …],
    dead [5]`` for many."""
    if len(types) <= 4:
        return ", ".join(f"{j}:{t}" for j, t in enumerate(types))
    kinds = list(dict.fromkeys(types))
    if len(kinds) == 1:
        return f"all {len(types)} {kinds[0]}"
    return ", ".join(f"{k} {[j for j, t in enumerate(types) if t == k]}" for k in kinds)


def structure(net: Network, trace: Trace | None = None) -> Structure:
    """Structure report (three-layer-fibers R3–R6, R13–R15).

    Types need G0–G3 (P1, P2); when they fail, only the hypotheses are reported.

    Parameters
    ----------
    net : Network
        A network with two hidden layers and ``n1 ≤ d``.
    trace : Trace, optional
        Records what is established on the way (phases ``hypotheses`` then ``structure``).

    Returns
    -------
    Structure
        The hypotheses G0–G8 (:func:`genericity`), and when G0–G3 hold: second-layer neuron
        types, the masked neuron and its S6 interval, whether S7/S8 apply, the linear block Γ,
        γ, ρ = rank Γ and κ₊ with its witness.

    Examples
    --------
    >>> from algebra.network import Network
    >>> s = structure(Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
    ...                                 [[0, 0], [-1, -3], [0]]))
    >>> s.types, s.masked, s.kappa_plus
    (('switching', 'dead'), 0, 0)
    """
    require_network(net, "structure")
    hyps = genericity(net, trace)
    widths = net.widths
    if not all(h.holds for h in hyps[:4]) or len(hyps) < 4:
        return Structure(widths, hyps)
    if trace is not None:
        trace.phase = "structure"
    P = Parts.of(net)
    types = second_layer_types(P)
    L = tuple(j for j, t in enumerate(types) if t == LINEAR)
    G, g = linear_block(P, L)
    nd = [j for j, t in enumerate(types) if t != DEAD]
    masked = masking_column(P.R2)       # at most one column (three-layer-fibers R5, P6)
    interval = None
    if masked is not None:
        col = [row[masked] for row in P.R2]
        pos = [abs(P.b2[j]) / col[j] for j in range(P.n2) if col[j] > 0]
        neg = [P.b2[j] / col[j] for j in range(P.n2) if col[j] < 0]
        interval = (-min(pos) if pos else None, min(neg) if neg else None)
    s7 = (masked is not None and P.n1 >= 2                        # R14, equal ratios
          and bool(s7_flippable([P.R2[j] for j in nd], masked)))
    s8 = s8_applies(P, types)                                     # R15
    kappa, wit = positive_factor_rank(G)
    return Structure(widths, hyps, types, masked, interval, s7, s8, L, G, g, G.rank(), kappa, wit)


def dimension_formula(net: Network, hypotheses=None) -> Dimension:
    """Fiber dimension by three-layer-fibers R17 (constant f: N − m), exact under G0–G8.

    Not applicable (rank Γ below ``min(n_L, n1, m)``, P5) → an inexact Dimension with the reason.
    *hypotheses*: :func:`genericity` of *net* when the caller has it already (G8 is the costly
    one: 7 s on a 24-1200-2 net).
    """
    hyps = genericity(net) if hypotheses is None else hypotheses
    bad = next((h for h in hyps if not h.holds), None)
    if bad is not None:
        return Dimension.between(None, None, f"R17 not applicable: {bad.name} fails")
    P = Parts.of(net)
    types = second_layer_types(P)
    n1, m, N = P.n1, P.m, net.n_parameters
    nA, nD, nL = (sum(t == k for t in types) for k in (SWITCHING, DEAD, LINEAR))
    if nA + nL == 0:
        return Dimension.of(N - m, "R17: constant function, N - m")
    nM = int(masking_column(P.R2) is not None)
    rho = min(nL, n1, m)
    val = n1 + nM + nA + nD * (n1 + 1 + m) + nL * (n1 + m + 1) - rho * (n1 + m - rho)
    return Dimension.of(val, "three-layer-fibers R17")


# =============================================================================================
# helpers shared by the family
# =============================================================================================

@dataclass
class Parts:
    """The rows and columns of a two-hidden-layer network that the family works on."""

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
    def of(cls, net: Network) -> "Parts":
        (W1, b1), (W2, b2), (W3, b3) = net.layer(0), net.layer(1), net.layer(2)
        R1 = [tuple(r) + (b1[i],) for i, r in enumerate(W1.to_rows())]
        R2 = [tuple(r) + (b2[j],) for j, r in enumerate(W2.to_rows())]
        V = [tuple(c) for c in W3.T.to_rows()] if W3.ncols else []
        return cls(W1, R1, R2, list(b2), V, list(b3), W1.nrows, W2.nrows, W3.nrows, W1.ncols)


def second_layer_types(P: Parts) -> tuple[str, ...]:
    """Type of every second-layer neuron (R3): dead (row of ``[W2 | b2]`` all < 0), linear (all
    > 0) or switching."""
    out = []
    for r in P.R2:      # three-layer-fibers P3 (strict signs, bias included), P4 (handled, not refused)
        if all(x < 0 for x in r):
            out.append(DEAD)
        elif all(x > 0 for x in r):
            out.append(LINEAR)
        else:
            out.append(SWITCHING)
    return tuple(out)


def linear_block(P: Parts, L) -> tuple[QMatrix, tuple]:
    """``(Γ, γ)``: the linear part ``Γ`` (m×n1) and the constant ``γ`` of the linear neurons *L*
    with the output bias (``Σ_{j∈L} V_j (W2_j | b2_j)`` plus ``b3``)."""
    if not L:
        return QMatrix.zeros(P.m, P.n1), tuple(P.b3)
    VL = QMatrix.from_rows([P.V[j] for j in L]).T          # m x nL
    WL = QMatrix.from_rows([P.R2[j] for j in L])            # nL x (n1+1)
    prod = VL @ WL
    G = prod.submatrix(cols=range(P.n1))
    g = tuple(P.b3[o] + prod[o, P.n1] for o in range(P.m))
    return G, g


def proportional_pair(rows) -> tuple[int, int] | None:
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


def preimage_map(P: Parts):
    """``(x_of, dx_of)``: ``x(u) = X (u − b1)`` with ``W1 x + b1 = u`` (exists under G1) and its
    linear part ``dx(du) = X du``."""
    W1 = P.W1
    M = W1 @ W1.T
    X = W1.T @ M.solve(QMatrix.identity(P.n1))
    b1 = [r[-1] for r in P.R1]

    def x_of(u):
        return X.apply([ui - bi for ui, bi in zip(u, b1)])

    def dx_of(du):
        return X.apply(du)
    return x_of, dx_of
