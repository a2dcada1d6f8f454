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

Helper steps used by the bottleneck symmetry paths (names distinct from the one-hidden-layer
family in :mod:`algebra.symmetries`): :class:`PermuteHidden` (S1,
``"bottleneck_permute"``), :class:`RescaleHidden` (S2, ``"bottleneck_rescale"``), :class:`RescaleLayer` (S2 for a whole
layer, ``"bottleneck_rescale_layer"``),
:class:`TailRefactor` (S3 + S4 + S5 in one checked replacement of second-layer neurons and b3,
``"bottleneck_tail"``) and :class:`FreeFirstLayer` (constant networks, P12,
``"bottleneck_free_first"``).

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
from .step import Step, register_step

__all__ = ["TranslateMasked", "SignFlip", "KinkSwap", "PermuteHidden", "RescaleHidden",
           "TailRefactor", "FreeFirstLayer", "RescaleLayer", "s6_interval", "masked_column",
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
            return cls(data["neuron"], data["t"])
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
    (W1_k, b1_k)`` with old values on the right, ``w`` the only non-dead row of ``W2``.
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
        nd = non_dead_rows(net)
        if len(nd) != 1:
            return False, f"S7 needs exactly one non-dead second-layer neuron, found {len(nd)} ({nd})"
        mc = masked_column(net)
        if mc != self.masked:
            return False, (f"row {nd[0]} of [W2 | b2] does not have the masking pattern for "
                           f"column {self.masked}")
        return True, f"single non-dead neuron {nd[0]} with the masking pattern for column {mc}"

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
            return cls(data["masked"], data["flips"])
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
    """S8 (R15, n1 = 1): swap the first-layer kink and the second-layer kink.

    With the only non-dead row ``(−a | b)``, ``a, b > 0``, ``β = b / a``, ``v = W3[:, j0]``:
    ``(W1, b1, v, b3) → (−W1, β − b1, −v, b3 + v b)``.  An involution.
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
        if len(nd) != 1:
            return False, f"S8 needs exactly one non-dead second-layer neuron, found {len(nd)}"
        j0 = nd[0]
        if not (W2[j0, 0] < 0 and b2[j0] > 0):
            return False, f"row {j0} of [W2 | b2] is not of the form (- | +)"
        return True, f"single non-dead neuron {j0} with row (- | +)"

    def _apply(self, net: Network) -> Network:
        W1, b1, W2, b2, W3, b3 = _parts(net)
        j0 = non_dead_rows(net)[0]
        a, b = -W2[j0, 0], b2[j0]
        beta = b / a
        v = W3.col_at(j0)
        W3rows = W3.to_rows()
        for o in range(W3.nrows):
            W3rows[o][j0] = -W3rows[o][j0]
        b3n = [b3[o] + v[o] * b for o in range(len(b3))]
        return Network([-W1, W2, QMatrix.from_rows(W3rows, ncols=W3.ncols)],
                       [[beta - b1[0]], b2, b3n])

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


def _fmt(q, inf: str) -> str:
    return inf if q is None else q_str(q)


# -- helper steps for symmetry paths of three-layer networks ------------------------------------
# Permutations (S1) and positive rescalings (S2) of hidden neurons of any depth, and one step
# that covers S3, S4 and S5 at once: a replacement of second-layer neurons and b3 that keeps
# the tail's function on the orthant (the image of the first layer).

@register_step
class PermuteHidden(Step):
    """S1 (R8): permute hidden layer *layer* (1-based, as in ``W1``): new neuron k is old
    neuron ``perm[k]``."""

    name = "bottleneck_permute"
    __slots__ = ("layer", "perm")

    def __init__(self, layer: int, perm: Sequence[int]):
        self.layer, self.perm = int(layer), tuple(int(p) for p in perm)

    def check(self, net: Network) -> tuple[bool, str]:
        if not 1 <= self.layer < net.depth:
            return False, f"no hidden layer {self.layer}"
        n = net.widths[self.layer]
        if sorted(self.perm) != list(range(n)):
            return False, f"not a permutation of 0..{n - 1}"
        return True, "permutation of hidden neurons"

    def _apply(self, net: Network) -> Network:
        l = self.layer - 1
        ws, bs = list(net.weights), [list(b) for b in net.biases]
        ws[l] = ws[l].submatrix(rows=self.perm)
        bs[l] = [bs[l][p] for p in self.perm]
        ws[l + 1] = ws[l + 1].submatrix(cols=self.perm)
        return Network(ws, bs)

    def inverse(self, net: Network) -> "PermuteHidden":
        inv = [0] * len(self.perm)
        for k, p in enumerate(self.perm):
            inv[p] = k
        return PermuteHidden(self.layer, inv)

    def to_json(self) -> dict:
        return {"step": self.name, "layer": self.layer, "perm": list(self.perm)}

    @classmethod
    def from_json(cls, data: dict) -> "PermuteHidden":
        try:
            return cls(data["layer"], data["perm"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed {cls.name} step: {exc}") from None


@register_step
class RescaleHidden(Step):
    """S2 (R9): multiply the incoming weights and bias of hidden neuron *neuron* of layer
    *layer* by ``factor > 0`` and divide its outgoing weights by it."""

    name = "bottleneck_rescale"
    continuous = True
    __slots__ = ("layer", "neuron", "factor")

    def __init__(self, layer: int, neuron: int, factor: object):
        self.layer, self.neuron, self.factor = int(layer), int(neuron), to_q(factor)

    def check(self, net: Network) -> tuple[bool, str]:
        if not 1 <= self.layer < net.depth:
            return False, f"no hidden layer {self.layer}"
        if not 0 <= self.neuron < net.widths[self.layer]:
            return False, f"hidden layer {self.layer} has no neuron {self.neuron}"
        if self.factor <= 0:
            return False, f"factor {q_str(self.factor)} is not positive"
        return True, "positive rescaling"

    def _apply(self, net: Network) -> Network:
        l, i, c = self.layer - 1, self.neuron, self.factor
        ws, bs = list(net.weights), [list(b) for b in net.biases]
        rows = ws[l].to_rows()
        rows[i] = [x * c for x in rows[i]]
        ws[l] = QMatrix.from_rows(rows, ncols=ws[l].ncols)
        bs[l][i] = bs[l][i] * c
        nxt = ws[l + 1].to_rows()
        for r in nxt:
            r[i] = r[i] / c
        ws[l + 1] = QMatrix.from_rows(nxt, ncols=ws[l + 1].ncols)
        return Network(ws, bs)

    def inverse(self, net: Network) -> "RescaleHidden":
        return RescaleHidden(self.layer, self.neuron, 1 / self.factor)

    def generator(self, net: Network) -> list[tuple]:
        names = net.parameter_names()
        l, i = self.layer, self.neuron
        v = [Q(0)] * len(names)
        p = net.parameters()
        for k, n in enumerate(names):
            if n.startswith(f"W{l}[{i},") or n == f"b{l}[{i}]":
                v[k] = p[k]
            elif n.startswith(f"W{l + 1}[") and n.endswith(f",{i}]"):
                v[k] = -p[k]
        return [tuple(v)]

    def to_json(self) -> dict:
        return {"step": self.name, "layer": self.layer, "neuron": self.neuron,
                "factor": q_json(self.factor)}

    @classmethod
    def from_json(cls, data: dict) -> "RescaleHidden":
        try:
            return cls(data["layer"], data["neuron"], data["factor"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed {cls.name} step: {exc}") from None


@register_step
class RescaleLayer(Step):
    """S2 (R9) for a whole hidden layer: neuron ``k`` of layer *layer* is rescaled by
    ``factors[k] > 0`` (incoming row and bias times the factor, outgoing column divided)."""

    name = "bottleneck_rescale_layer"
    continuous = True
    __slots__ = ("layer", "factors")

    def __init__(self, layer: int, factors: Sequence[object]):
        self.layer, self.factors = int(layer), tuple(to_q(x) for x in factors)

    def check(self, net: Network) -> tuple[bool, str]:
        if not 1 <= self.layer < net.depth:
            return False, f"no hidden layer {self.layer}"
        if len(self.factors) != net.widths[self.layer]:
            return False, f"hidden layer {self.layer} has {net.widths[self.layer]} neurons"
        bad = next((k for k, c in enumerate(self.factors) if c <= 0), None)
        if bad is not None:
            return False, f"factor {bad} ({q_str(self.factors[bad])}) is not positive"
        return True, "positive rescaling of every neuron of the layer"

    def _apply(self, net: Network) -> Network:
        l, c = self.layer - 1, self.factors
        ws, bs = list(net.weights), [list(b) for b in net.biases]
        rows = ws[l].to_rows()
        ws[l] = QMatrix.from_rows([[x * ck for x in r] for r, ck in zip(rows, c)], ncols=ws[l].ncols)
        bs[l] = [x * ck for x, ck in zip(bs[l], c)]
        inv = [1 / ck for ck in c]
        nxt = ws[l + 1].to_rows()
        ws[l + 1] = QMatrix.from_rows([[x * ik for x, ik in zip(r, inv)] for r in nxt],
                                      ncols=ws[l + 1].ncols)
        return Network(ws, bs)

    def inverse(self, net: Network) -> "RescaleLayer":
        return RescaleLayer(self.layer, [1 / c for c in self.factors])

    def to_json(self) -> dict:
        return {"step": self.name, "layer": self.layer, "factors": [q_json(x) for x in self.factors]}

    @classmethod
    def from_json(cls, data: dict) -> "RescaleLayer":
        try:
            return cls(data["layer"], data["factors"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed {cls.name} step: {exc}") from None


@register_step
class TailRefactor(Step):
    """S3 + S4 + S5 (R10–R12) in one step: replace the rows ``(W2_j | b2_j)`` and output
    columns ``W3[:, j]`` of the second-layer neurons in *replace* and the output bias ``b3``.

    Valid iff every replaced neuron, before and after, is dead (all entries of its row < 0),
    linear (all > 0), has a zero output column, or is flipped (new row = −old row, same output
    column), and the affine part carried on the orthant is unchanged:
    ``b3' + Σ_{new linear} V'_j r'_j = b3 + Σ_{old linear} V_j r_j + Σ_{flipped} V_j r_j``.
    Only ``σ ≥ 0`` of the first layer is used, so the step is valid for every first layer.
    """

    name = "bottleneck_tail"
    __slots__ = ("replace", "b3")

    def __init__(self, replace: dict, b3: Sequence[object]):
        self.replace = {int(j): (tuple(to_q(x) for x in row), tuple(to_q(x) for x in out))
                        for j, (row, out) in replace.items()}
        self.b3 = tuple(to_q(x) for x in b3)

    def check(self, net: Network) -> tuple[bool, str]:
        if net.depth != 3:
            return False, "needs two hidden layers"
        W2, b2 = net.layer(1)
        W3, b3 = net.layer(2)
        m, n1, n2 = W3.nrows, W2.ncols, W2.nrows
        if len(self.b3) != m:
            return False, f"b3 needs {m} entries"
        outs, rows = [], []          # Σ sign · V r, as one exact product
        R2, W3c = W2.to_rows(), W3.T.to_rows() if W3.ncols else []
        for j, (row, out) in self.replace.items():
            if not 0 <= j < n2:
                return False, f"no second-layer neuron {j}"
            if len(row) != n1 + 1 or len(out) != m:
                return False, f"neuron {j}: row needs {n1 + 1} entries and output {m}"
            old = tuple(R2[j]) + (b2[j],)
            vold = tuple(W3c[j])
            if row == tuple(-x for x in old) and out == vold:
                outs.append([-v for v in vold])    # V σ(-r) = V σ(r) - V r
                rows.append(old)
                continue
            for r, v, sgn, what in ((old, vold, -1, "old"), (row, out, 1, "new")):
                if all(x == 0 for x in v) or all(x < 0 for x in r):
                    continue
                if all(x > 0 for x in r):
                    outs.append([sgn * x for x in v])
                    rows.append(r)
                    continue
                return False, (f"neuron {j}: {what} row is neither dead, linear nor of zero output "
                               "(and the change is not a flip)")
        diff = [[Q(0)] * n1 + [self.b3[o] - b3[o]] for o in range(m)]
        if rows:
            prod = QMatrix.from_rows(outs).T @ QMatrix.from_rows(rows)
            diff = (prod + QMatrix.from_rows(diff)).to_rows()
        if any(x != 0 for r in diff for x in r):
            return False, "the affine part carried on the orthant changes"
        return True, "the tail's function on the orthant is unchanged"

    def _apply(self, net: Network) -> Network:
        W1, b1 = net.layer(0)
        W2, b2 = net.layer(1)
        W3, _ = net.layer(2)
        R2, bb2, W3r = W2.to_rows(), list(b2), W3.to_rows()
        for j, (row, out) in self.replace.items():
            R2[j] = list(row[:-1])
            bb2[j] = row[-1]
            for o in range(len(W3r)):
                W3r[o][j] = out[o]
        return Network([W1, QMatrix.from_rows(R2, ncols=W2.ncols),
                        QMatrix.from_rows(W3r, ncols=W3.ncols)], [b1, bb2, self.b3])

    def inverse(self, net: Network) -> "TailRefactor":
        W2, b2 = net.layer(1)
        W3, b3 = net.layer(2)
        return TailRefactor({j: (tuple(W2.row_at(j)) + (b2[j],), W3.col_at(j)) for j in self.replace},
                            b3)

    def to_json(self) -> dict:
        return {"step": self.name,
                "replace": [{"neuron": j, "row": [q_json(x) for x in row],
                             "out": [q_json(x) for x in out]}
                            for j, (row, out) in sorted(self.replace.items())],
                "b3": [q_json(x) for x in self.b3]}

    @classmethod
    def from_json(cls, data: dict) -> "TailRefactor":
        try:
            rep = {e["neuron"]: (e["row"], e["out"]) for e in data["replace"]}
            return cls(rep, data["b3"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed {cls.name} step: {exc}") from None


def _acc(diff, v, r, sgn) -> None:
    for o, vo in enumerate(v):
        if vo != 0:
            for k, x in enumerate(r):
                diff[o][k] += sgn * vo * x


@register_step
class FreeFirstLayer(Step):
    """P12 (R16, constant case): when every second-layer neuron is dead (row all-negative) or
    has a zero output column, the first layer is free: replace ``(W1, b1)``."""

    name = "bottleneck_free_first"
    __slots__ = ("W1", "b1")

    def __init__(self, W1: object, b1: Sequence[object]):
        self.W1 = W1 if isinstance(W1, QMatrix) else QMatrix.from_rows(W1)
        self.b1 = tuple(to_q(x) for x in b1)

    def check(self, net: Network) -> tuple[bool, str]:
        if net.depth != 3:
            return False, "needs two hidden layers"
        W1, _ = net.layer(0)
        if self.W1.shape != W1.shape or len(self.b1) != W1.nrows:
            return False, f"first layer must keep the shape {W1.shape}"
        W2, b2 = net.layer(1)
        W3, _ = net.layer(2)
        for j in range(W2.nrows):
            row = tuple(W2.row_at(j)) + (b2[j],)
            if not (all(x < 0 for x in row) or all(x == 0 for x in W3.col_at(j))):
                return False, f"second-layer neuron {j} is neither dead nor of zero output"
        return True, "every second-layer neuron is dead or silent: the first layer is free"

    def _apply(self, net: Network) -> Network:
        return Network([self.W1, net.layer(1)[0], net.layer(2)[0]],
                       [self.b1, net.layer(1)[1], net.layer(2)[1]])

    def inverse(self, net: Network) -> "FreeFirstLayer":
        return FreeFirstLayer(net.layer(0)[0], net.layer(0)[1])

    def to_json(self) -> dict:
        return {"step": self.name, "W1": self.W1.to_json(), "b1": [q_json(x) for x in self.b1]}

    @classmethod
    def from_json(cls, data: dict) -> "FreeFirstLayer":
        try:
            return cls(data["W1"], data["b1"])
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"malformed {cls.name} step: {exc}") from None
