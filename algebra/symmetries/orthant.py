"""Symmetry steps S3–S5 on the closed orthant (three-layer-fibers §5, R10–R12).

* ``S3`` :class:`DeadNeuron` — a neuron dead on the orthant (``w ≤ 0``, ``b ≤ 0``) may take any
  other dead row and any output column (R10);
* ``S4`` :class:`LinearBlock` — neurons linear on the orthant (``w ≥ 0``, ``b ≥ 0``) may be
  replaced by any other linear neurons with the same ``Σ v wᵀ`` and ``Σ v b + c`` (R11);
* ``S5`` :class:`FlipAbsorbed` — ``(w_j, b_j) → −(w_j, b_j)`` with the remainder ``v_j h_j`` moved
  into the linear block (R12: ``σ(s) = s + σ(−s)``).

Each checks the orthant hypothesis exactly (see :mod:`algebra.symmetries`).
"""

from __future__ import annotations

from ..rationals import Q, q_json, to_q
from .step import Step, register_step
from .elementary import Composite
from .moves import LinearRefactor
from .neurons import (ZERO, _domain, _flat, _int, _num, _nums, _orthant_ok, _sum_affine,
                      hidden_neurons, is_dead_row, is_linear_row, with_hidden_neurons)

__all__ = ["DeadNeuron", "LinearBlock", "FlipAbsorbed"]


@register_step
class DeadNeuron(Step):
    """S3 (R10): a neuron dead on the orthant takes another dead row and any output column."""

    name = "S3"
    continuous = True

    def __init__(self, layer, neuron, weight, bias, output, domain=None):
        self.layer, self.neuron = int(layer), int(neuron)
        self.weight, self.bias = tuple(to_q(x) for x in weight), to_q(bias)
        self.output, self.domain = tuple(to_q(x) for x in output), domain

    def check(self, net):
        ok, why = _orthant_ok(net, self.layer, self.domain)
        if not ok:
            return ok, why
        neurons, _ = hidden_neurons(net, self.layer)
        if not 0 <= self.neuron < len(neurons):
            return False, f"no neuron {self.neuron}"
        w, b, v = neurons[self.neuron]
        if len(self.weight) != len(w) or len(self.output) != len(v):
            return False, "new row or output column has the wrong length"
        if not is_dead_row(w, b):
            return False, f"neuron {self.neuron} is not dead on the orthant (row has a positive entry)"
        if not is_dead_row(self.weight, self.bias):
            return False, "the new row is not dead on the orthant (it has a positive entry)"
        return True, f"dead neurons are free ({why})"

    def _apply(self, net):
        neurons, c = hidden_neurons(net, self.layer)
        neurons[self.neuron] = (self.weight, self.bias, self.output)
        return with_hidden_neurons(net, self.layer, neurons, c)

    def inverse(self, net):
        w, b, v = hidden_neurons(net, self.layer)[0][self.neuron]
        return DeadNeuron(self.layer, self.neuron, w, b, v, self.domain)

    def generator(self, net):
        vecs = []
        neurons, _ = hidden_neurons(net, self.layer)
        w, b, v = neurons[self.neuron]
        idx = [_flat(net, self.layer, "W", self.neuron, j) for j, x in enumerate(w) if x < 0]
        if b < 0:
            idx.append(_flat(net, self.layer, "b", self.neuron))
        idx += [_flat(net, self.layer + 1, "W", o, self.neuron) for o in range(len(v))]
        for i in idx:
            vec = [ZERO] * net.n_parameters
            vec[i] = Q(1)
            vecs.append(tuple(vec))
        return vecs

    def to_json(self):
        return {"step": self.name, "layer": self.layer, "neuron": self.neuron,
                "weight": [q_json(x) for x in self.weight], "bias": q_json(self.bias),
                "output": [q_json(x) for x in self.output], "domain": self.domain}

    @classmethod
    def from_json(cls, data):
        return cls(_int(data, "layer"), _int(data, "neuron"), _nums(data, "weight"),
                   _num(data, "bias"), _nums(data, "output"), _domain(data))


@register_step
class LinearBlock(LinearRefactor):
    """S4 (R11): refactor neurons that are all linear on the orthant into others that are."""

    name = "S4"
    continuous = True

    def check(self, net):
        parts, why = self._common(net)
        if parts is None:
            return False, why
        ok, why = _orthant_ok(net, self.layer, self.domain)
        if not ok:
            return ok, why
        neurons, _ = parts
        for i in self.indices:
            if not is_linear_row(neurons[i][0], neurons[i][1]):
                return False, f"neuron {i} is not linear on the orthant"
        for k, (w, b, _) in enumerate(self.new):
            if not is_linear_row(w, b):
                return False, f"new neuron {k} is not linear on the orthant"
        return LinearRefactor.check(self._as_orthant(), net)

    def generator(self, net):
        """Tangent vectors at *net* of the S4 family through the linear neurons *indices*: the
        GL action ``W̃_p += W̃_q``, ``V_q −= V_p`` (p ≠ q) and the bias trade ``b_p += 1``,
        ``c −= V_p`` (flat parameter order)."""
        neurons, _ = hidden_neurons(net, self.layer)
        L = list(self.indices)
        d, m = net.widths[self.layer], net.widths[self.layer + 2]
        out = []
        for p in L:
            for q in L:
                if p == q:
                    continue
                vec = [ZERO] * net.n_parameters
                wq, bq, vq = neurons[q]
                vp = neurons[p][2]
                for j in range(d):
                    vec[_flat(net, self.layer, "W", p, j)] += wq[j]
                vec[_flat(net, self.layer, "b", p)] += bq
                for o in range(m):
                    vec[_flat(net, self.layer + 1, "W", o, q)] -= vp[o]
                out.append(tuple(vec))
            vec = [ZERO] * net.n_parameters
            vec[_flat(net, self.layer, "b", p)] = Q(1)
            for o in range(m):
                vec[_flat(net, self.layer + 1, "b", o)] -= neurons[p][2][o]
            out.append(tuple(vec))
        return out

    def _as_orthant(self):
        return LinearRefactor(self.layer, self.indices, self.new, self.dc, self.domain or "orthant")


@register_step
class FlipAbsorbed(Step):
    """S5 (R12): flip neuron *neuron* (``(w, b) → −(w, b)``); its remainder ``v h`` is absorbed by
    replacing the linear neurons *indices* with *new* linear neurons (and ``bias_change``)."""

    name = "S5"

    def __init__(self, layer, neuron, indices, new, dc=None, domain=None):
        self.layer, self.neuron = int(layer), int(neuron)
        self.block = LinearBlock(layer, indices, new, dc, domain)
        self.domain = domain

    def check(self, net):
        parts, why = self.block._common(net)
        if parts is None:
            return False, why
        ok, why = _orthant_ok(net, self.layer, self.domain)
        if not ok:
            return ok, why
        neurons, c = parts
        if not 0 <= self.neuron < len(neurons) or self.neuron in self.block.indices:
            return False, "the flipped neuron must exist and not belong to the linear block"
        for i in self.block.indices:
            if not is_linear_row(neurons[i][0], neurons[i][1]):
                return False, f"neuron {i} is not linear on the orthant"
        for k, (w, b, _) in enumerate(self.block.new):   # three-layer-fibers P11: realisable
            if not is_linear_row(w, b):
                return False, f"new neuron {k} is not linear on the orthant"
        w, b, v = neurons[self.neuron]
        old = [neurons[i] for i in self.block.indices] + [(w, b, v)]   # + v h (linear on R^d)
        m = len(c)
        A_old, c_old = _sum_affine(old, len(w), m)
        A_new, c_new = _sum_affine(list(self.block.new), len(w), m)
        if A_old != A_new:
            return False, "the new linear block does not carry Γ + v_j w_jᵀ"
        if [a - bb for a, bb in zip(c_old, c_new)] != list(self.block._dc(m)):
            return False, "bias_change does not carry γ + v_j b_j"
        return True, "σ(s) = s + σ(−s); the remainder is carried by linear neurons"

    def _apply(self, net):
        neurons, c = hidden_neurons(net, self.layer)
        w, b, v = neurons[self.neuron]
        neurons[self.neuron] = (tuple(-x for x in w), -b, v)
        net = with_hidden_neurons(net, self.layer, neurons, c)
        return self.block._apply(net)

    def inverse(self, net):
        tail, originals, dc, perm = self.block._inverse_parts(net)
        # after the flip the neuron sits at its position among the kept ones
        kept = [i for i in range(net.widths[self.layer + 1]) if i not in set(self.block.indices)]
        return Composite([FlipAbsorbed(self.layer, kept.index(self.neuron), tail, originals, dc,
                                       self.domain), perm])

    def to_json(self):
        out = self.block.to_json()
        out["step"], out["neuron"] = self.name, self.neuron
        return out

    @classmethod
    def from_json(cls, data):
        blk = LinearBlock.from_json(data)
        return cls(blk.layer, _int(data, "neuron"), blk.indices, blk.new, blk.dc, blk.domain)
