"""Helper steps of the symmetry paths of three-layer bottleneck networks (three-layer-fibers
R8–R12, P12), registered beside the generators S6–S8 of :mod:`algebra.symmetries.bottleneck`.

Names are distinct from the one-hidden-layer family in :mod:`algebra.symmetries`:
:class:`PermuteHidden` (S1, ``"bottleneck_permute"``), :class:`RescaleHidden` (S2,
``"bottleneck_rescale"``), :class:`RescaleLayer` (S2 for a whole layer,
``"bottleneck_rescale_layer"``), :class:`TailRefactor` (S3 + S4 + S5 in one checked replacement
of second-layer neurons and b3, ``"bottleneck_tail"``) and :class:`FreeFirstLayer` (constant
networks, P12, ``"bottleneck_free_first"``).
"""

from __future__ import annotations

from typing import Sequence

from ..exceptions import InputError
from ..linalg import QMatrix
from ..network import Network
from ..rationals import Q, q_json, q_str, to_q
from .neurons import _int, _ints
from .step import Step, register_step

__all__ = ["PermuteHidden", "RescaleHidden", "RescaleLayer", "TailRefactor", "FreeFirstLayer"]


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
            return cls(_int(data, "layer"), _ints(data, "perm"))
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
            return cls(_int(data, "layer"), _int(data, "neuron"), data["factor"])
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
            return cls(_int(data, "layer"), data["factors"])
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
            rep = {_int(e, "neuron"): (e["row"], e["out"]) for e in data["replace"]}
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
