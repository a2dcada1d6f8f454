"""Symmetry generators S6–S8 of three-layer bottleneck networks (three-layer-fibers R13–R15).

Every step acts on a network with two hidden layers,
``f = W3 σ(W2 σ(W1 x + b1) + b2) + b3``.  Indices are 0-based (the math reference counts
from 1).  ``check`` verifies, by exact sign tests, the hypotheses under which the step's
identity holds for **every** input (the identities only use ``σ(u) ≥ 0``, so no rank
condition on ``W1`` is needed for validity):

* :class:`TranslateMasked` (``"S6"``, R13): ``b1[i] += t``, ``b2 -= t · W2[:, i]``, valid iff
  column *i* is masked (every row of ``[W2 | b2]`` that is not all-negative has the masking
  pattern ``(−, …, +_i, …, − | −)``) and ``t`` lies in the closed interval ``[t₋, t₊]``;
* :class:`SignFlip` (``"S7"``, R14): flips of first-layer neurons ``k ∈ S`` with the shear of
  the masked neuron, valid iff exactly one row is not all-negative and it has the masking
  pattern for the masked column;
* :class:`KinkSwap` (``"S8"``, R15): ``n1 = 1``, exactly one row not all-negative, of the form
  ``(−a | b)`` with ``a, b > 0``.

The helper steps used by the bottleneck symmetry paths (``PermuteHidden``, ``RescaleHidden``,
``RescaleLayer``, ``TailRefactor``, ``FreeFirstLayer``) are in
:mod:`algebra.symmetries.bottleneck_paths`.

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
...                         [[0, 0], [-1, -3], [0]])
>>> s = TranslateMasked(0, "1/2")
>>> s.check(net)
(True, 't = 1/2 lies in [-1, 3/2]')
>>> s.apply(net).biases[:2]
((1/2, 0), (-3/2, -2))
>>> TranslateMasked(0, 2).check(net)[0]
False
>>> KinkSwap().apply(Network.from_rows([[[1]], [[-2]], [[1]]], [[0], [3], [0]]))
Network.from_rows([[[-1]], [[-2]], [[-1]]], [[3/2], [3], [3]])
"""

from __future__ import annotations

from typing import Sequence

from ..exceptions import InputError
from ..linalg import QMatrix
from ..network import Network
from ..rationals import Q, q_json, q_str, to_q
from .neurons import _int, _ints
from .step import Step, register_step

__all__ = ["TranslateMasked", "SignFlip", "KinkSwap", "s6_interval", "masked_column",
           "masking_column", "non_dead_rows"]


# -- shared sign tests (pure algebra) ----------------------------------------------------------

def _parts(net: Network):
    if net.depth != 3:
        raise InputError(f"S6-S8 act on networks with two hidden layers, got {net.depth - 1}")
    (W1, b1), (W2, b2), (W3, b3) = net.layer(0), net.layer(1), net.layer(2)
    return W1, b1, W2, b2, W3, b3


def non_dead_rows(net: Network) -> list[int]:
    """0-based rows of ``[W2 | b2]`` that are not all-negative (bias included).

    >>> net = Network.from_rows([[[1]], [[-1], [2]], [[1, 1]]], [[0], [-1, -1], [0]])
    >>> non_dead_rows(net)
    [1]
    """
    _, _, W2, b2, _, _ = _parts(net)
    rows = W2.to_rows()
    return [j for j, r in enumerate(rows) if not (all(x < 0 for x in r) and b2[j] < 0)]


def s7_flippable(rows, masked: int) -> list[int]:
    """First-layer neurons ``k != masked`` that S7 may flip (R14): the ratio
    ``W2[j,k] / W2[j,masked]`` is the same for every row ``(W2_j | b2_j)`` of *rows* (the
    non-dead rows); with one non-dead row, every ``k != masked``.

    >>> s7_flippable([(2, -1, -1, -1), (4, -2, -3, -3)], 0)
    [1]
    """
    n1 = len(rows[0]) - 1
    return [k for k in range(n1) if k != masked and len({r[k] / r[masked] for r in rows}) == 1]


def masked_column(net: Network) -> int | None:
    """The 0-based column ``i`` such that every non-dead row has the masking pattern for ``i``
    (``W2[j,i] > 0``, ``W2[j,k] < 0`` for ``k != i``, ``b2[j] < 0``), or None (R4).

    A network whose rows are all dead has no masked column (R5: it is constant).
    """
    _, _, W2, b2, _, _ = _parts(net)
    return masking_column([tuple(r) + (bj,) for r, bj in zip(W2.to_rows(), b2)])


def masking_column(rows) -> int | None:
    """The masked column of the rows ``(W2_j | b2_j)`` (bias last) of ``[W2 | b2]``: the one
    implementation of the masked-column test (R4), used by :func:`masked_column`, the S6/S7 step
    checks and the bottleneck structure of :mod:`semialgebraic.bottleneck`.

    Every row that is not dead (not all-negative, bias included) must have the masking pattern
    for the same column ``i``: ``W2[j,i] > 0``, ``W2[j,k] < 0`` for ``k != i``, ``b2[j] < 0``.
    Returns ``i``, or None (no such column, or every row dead).

    >>> masking_column([(1, -2, -1), (-1, -1, -3)]), masking_column([(1, -2, 1)])
    (0, None)
    """
    cand = None
    for r in rows:
        if all(x < 0 for x in r):
            continue                                # dead row
        w, b = r[:-1], r[-1]
        pos = [k for k, x in enumerate(w) if x > 0]
        if len(pos) != 1 or b >= 0 or any(x >= 0 for k, x in enumerate(w) if k != pos[0]):
            return None
        if cand is None:
            cand = pos[0]
        elif cand != pos[0]:
            return None
    return cand


def s6_interval(net: Network, i: int) -> tuple[Q | None, Q | None]:
    """``(t₋, t₊)`` of the S6 translation of first-layer neuron *i* (R13); None = infinite.

    Assumes column *i* is masked (see :func:`masked_column`).
    """
    _, _, W2, b2, _, _ = _parts(net)
    col = W2.col_at(i)
    pos = [abs(b2[j]) / col[j] for j in range(len(col)) if col[j] > 0]
    neg = [b2[j] / col[j] for j in range(len(col)) if col[j] < 0]
    lo = -min(pos) if pos else None
    hi = min(neg) if neg else None
    return lo, hi


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


# -- S6 ----------------------------------------------------------------------------------------

@register_step
class TranslateMasked(Step):
    """S6 (R13): translate the masked first-layer neuron *neuron* by *t*.

    ``b1[i] += t``; ``b2 -= t · W2[:, i]`` (all rows, dead ones included).
    """

    name = "S6"
    continuous = True
    __slots__ = ("neuron", "t")

    def __init__(self, neuron: int, t: object):
        if not _is_int(neuron) or neuron < 0:
            raise InputError(f"S6 neuron must be a non-negative integer, got {neuron!r}")
        self.neuron, self.t = neuron, to_q(t)

    def check(self, net: Network) -> tuple[bool, str]:
        try:
            W1, *_ = _parts(net)
        except InputError as exc:
            return False, str(exc)
        i = self.neuron
        if i >= W1.nrows:
            return False, f"first layer has {W1.nrows} neurons, no neuron {i}"
        mc = masked_column(net)
        if mc != i:
            return False, (f"column {i} of [W2 | b2] is not masked (masked column: "
                           f"{'none' if mc is None else mc})")
        lo, hi = s6_interval(net, i)
        t = self.t
        if (lo is not None and t < lo) or (hi is not None and t > hi):
            return False, (f"t = {q_str(t)} lies outside the interval "
                           f"[{_fmt(lo, '-inf')}, {_fmt(hi, 'inf')}]")
        return True, f"t = {q_str(t)} lies in [{_fmt(lo, '-inf')}, {_fmt(hi, 'inf')}]"

    def _apply(self, net: Network) -> Network:
        W1, b1, W2, b2, W3, b3 = _parts(net)
        i, t = self.neuron, self.t
        b1n = list(b1)
        b1n[i] = b1n[i] + t
        col = W2.col_at(i)
        b2n = [b2[j] - t * col[j] for j in range(len(b2))]
        return Network([W1, W2, W3], [b1n, b2n, b3])

    def inverse(self, net: Network) -> "TranslateMasked":
        return TranslateMasked(self.neuron, -self.t)

    def generator(self, net: Network) -> list[tuple]:
        """Tangent ``e_{b1[i]} − Σ_j W2[j,i] e_{b2[j]}`` (flat parameter order)."""
        W1, b1, W2, b2, W3, b3 = _parts(net)
        names = net.parameter_names()
        idx = {n: k for k, n in enumerate(names)}
        v = [Q(0)] * len(names)
        v[idx[f"b1[{self.neuron}]"]] = Q(1)
        for j, w in enumerate(W2.col_at(self.neuron)):
            v[idx[f"b2[{j}]"]] = -w
        return [tuple(v)]

    def to_json(self) -> dict:
        return {"step": "S6", "neuron": self.neuron, "t": q_json(self.t)}

    @classmethod
    def from_json(cls, data: dict) -> "TranslateMasked":
        try:
            return cls(_int(data, "neuron"), data["t"])
        except KeyError as exc:
            raise InputError(f"S6 step lacks {exc.args[0]!r}") from None

    def __eq__(self, other):
        return isinstance(other, TranslateMasked) and (self.neuron, self.t) == (other.neuron, other.t)

    def __hash__(self):
        return hash(("S6", self.neuron, self.t))

    def __repr__(self):
        return f"TranslateMasked({self.neuron}, {q_str(self.t)!r})"


# -- S7 ----------------------------------------------------------------------------------------

@register_step
class SignFlip(Step):
    """S7 (R14): flip first-layer neurons in *flips* and shear the masked neuron *masked*.

    For ``k`` in *flips*: ``(W1_k, b1_k) → −(W1_k, b1_k)``; ``(W1_i, b1_i) += Σ_k (w_k / w_i)
    (W1_k, b1_k)`` with old values on the right, ``w`` a non-dead row of ``W2``: every non-dead
    row has the masking pattern for ``i`` and the same ratio ``w_k / w_i`` for each flipped ``k``
    (one non-dead row: any ``k``).
    """

    name = "S7"
    __slots__ = ("masked", "flips")

    def __init__(self, masked: int, flips: Sequence[int]):
        flips = tuple(sorted(set(flips)))
        if not _is_int(masked) or masked < 0 or any(not _is_int(k) or k < 0 for k in flips):
            raise InputError("S7 needs integer neuron indices")
        if masked in flips:
            raise InputError("S7 cannot flip the masked neuron itself")
        self.masked, self.flips = masked, flips

    def check(self, net: Network) -> tuple[bool, str]:
        try:
            W1, *_ = _parts(net)
        except InputError as exc:
            return False, str(exc)
        n1 = W1.nrows
        if self.masked >= n1 or any(k >= n1 for k in self.flips):
            return False, f"first layer has {n1} neurons"
        nd = non_dead_rows(net)         # three-layer-fibers P8: dead rows allowed
        if not nd:
            return False, "S7 needs a non-dead second-layer neuron, found none"
        mc = masked_column(net)
        if mc != self.masked:
            return False, (f"rows {nd} of [W2 | b2] do not all have the masking pattern for "
                           f"column {self.masked}")
        _, _, W2, b2, _, _ = _parts(net)
        ok = s7_flippable([tuple(W2.row_at(j)) + (b2[j],) for j in nd], mc)
        bad = [k for k in self.flips if k not in ok]
        if bad:
            return False, (f"neuron {bad[0]}: the ratio W2[j,{bad[0]}] / W2[j,{mc}] differs between "
                           f"the non-dead rows {nd} (S7 needs exactly one non-dead second-layer "
                           f"neuron, or equal ratios)")
        return True, f"non-dead rows {nd} with the masking pattern for column {mc}, equal ratios"

    def _apply(self, net: Network) -> Network:
        W1, b1, W2, b2, W3, b3 = _parts(net)
        j0 = non_dead_rows(net)[0]
        w = W2.row_at(j0)
        rows = [list(r) + [b1[k]] for k, r in enumerate(W1.to_rows())]
        i = self.masked
        new = [list(r) for r in rows]
        for k in self.flips:
            c = w[k] / w[i]
            new[i] = [a + c * b for a, b in zip(new[i], rows[k])]
            new[k] = [-x for x in rows[k]]
        W1n = QMatrix.from_rows([r[:-1] for r in new], ncols=W1.ncols)
        return Network([W1n, W2, W3], [[r[-1] for r in new], b2, b3])

    def inverse(self, net: Network) -> "SignFlip":
        return SignFlip(self.masked, self.flips)   # an involution (R14)

    def to_json(self) -> dict:
        return {"step": "S7", "masked": self.masked, "flips": list(self.flips)}

    @classmethod
    def from_json(cls, data: dict) -> "SignFlip":
        try:
            return cls(_int(data, "masked"), _ints(data, "flips"))
        except KeyError as exc:
            raise InputError(f"S7 step lacks {exc.args[0]!r}") from None

    def __eq__(self, other):
        return isinstance(other, SignFlip) and (self.masked, self.flips) == (other.masked, other.flips)

    def __hash__(self):
        return hash(("S7", self.masked, self.flips))

    def __repr__(self):
        return f"SignFlip({self.masked}, {list(self.flips)})"


# -- S8 ----------------------------------------------------------------------------------------

@register_step
class KinkSwap(Step):
    """S8 (R15, n1 = 1): swap the first-layer kink and the last second-layer kink.

    Every non-dead row is ``(−a_j | b_j)``, ``a_j, b_j > 0``; ``β_j = b_j / a_j``, ``β = max β_j``
    at ``j0``, ``v_j = W3[:, j]``: ``(W1, b1) → (−W1, β − b1)``; ``b2_j → a_j β − b_j`` for the
    other non-dead rows (``W2`` and their ``v_j`` kept); ``v_{j0} → −(Σ_j a_j v_j) / a_{j0}``;
    ``b3 → b3 + Σ_j b_j v_j`` (sums over the non-dead rows); dead rows unchanged.  With one
    non-dead row this is ``(W1, b1, v, b3) → (−W1, β − b1, −v, b3 + v b)``.  An involution.
    """

    name = "S8"
    __slots__ = ()

    def check(self, net: Network) -> tuple[bool, str]:
        try:
            W1, b1, W2, b2, W3, b3 = _parts(net)
        except InputError as exc:
            return False, str(exc)
        if W1.nrows != 1:
            return False, f"S8 needs n1 = 1, got n1 = {W1.nrows}"
        nd = non_dead_rows(net)
        if not nd:
            return False, "S8 needs a non-dead second-layer neuron, found none"
        bad = [j for j in nd if not (W2[j, 0] < 0 and b2[j] > 0)]
        if bad:
            return False, f"row {bad[0]} of [W2 | b2] is non-dead and not of the form (- | +)"
        return True, f"every non-dead row ({nd}) of the form (- | +)"

    def _apply(self, net: Network) -> Network:
        W1, b1, W2, b2, W3, b3 = _parts(net)
        nd = non_dead_rows(net)
        w1, c1, b2n, V, b3n = kink_swap([W1[0, k] for k in range(W1.ncols)], b1[0],
                                        {j: (-W2[j, 0], b2[j]) for j in nd},
                                        {j: W3.col_at(j) for j in nd}, list(b3))
        W3rows = W3.to_rows()
        for j, col in V.items():
            for o in range(W3.nrows):
                W3rows[o][j] = col[o]
        b2l = [b2n.get(j, b2[j]) for j in range(len(b2))]
        return Network([QMatrix.from_rows([w1], ncols=W1.ncols), W2,
                        QMatrix.from_rows(W3rows, ncols=W3.ncols)], [[c1], b2l, b3n])

    def inverse(self, net: Network) -> "KinkSwap":
        return KinkSwap()

    def to_json(self) -> dict:
        return {"step": "S8"}

    @classmethod
    def from_json(cls, data: dict) -> "KinkSwap":
        return cls()

    def __eq__(self, other):
        return isinstance(other, KinkSwap)

    def __hash__(self):
        return hash("S8")

    def __repr__(self):
        return "KinkSwap()"


def kink_swap(w1, c1, rows: dict, V: dict, b3):
    """The S8 map (R15) on parts: first-layer row *w1* and bias *c1*; *rows* ``{j: (a_j, b_j)}``
    the non-dead second-layer rows ``(−a_j | b_j)`` (all ``a_j, b_j > 0``); *V* ``{j: v_j}`` their
    output columns; *b3*.  Returns ``(w1', c1', {j: b_j'}, {j: v_j'}, b3')``.

    >>> kink_swap([Q(1)], Q(0), {0: (Q(2), Q(3)), 1: (Q(1), Q(2))}, {0: [Q(1)], 1: [Q(5)]}, [Q(0)])
    ([-1], 2, {0: 1, 1: 2}, {0: [1], 1: [-7]}, [13])
    """
    beta, j0 = max((b / a, j) for j, (a, b) in rows.items())
    b2 = {j: (a * beta - b if j != j0 else b) for j, (a, b) in rows.items()}
    m = len(b3)
    tot = [sum((a * V[j][o] for j, (a, _) in rows.items()), Q(0)) for o in range(m)]
    Vn = {j: (list(V[j]) if j != j0 else [-t / rows[j0][0] for t in tot]) for j in rows}
    b3n = [b3[o] + sum((b * V[j][o] for j, (_, b) in rows.items()), Q(0)) for o in range(m)]
    return [-x for x in w1], beta - c1, b2, Vn, b3n


def _fmt(q, inf: str) -> str:
    return inf if q is None else q_str(q)
