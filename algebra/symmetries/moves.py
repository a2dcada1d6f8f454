"""Moves of one hidden layer valid on R^d (three-layer-fibers §5, R8, R9; skip-absorption §6).

* ``regroup`` :class:`Regroup` — merge / split / antiparallel compensation on one hyperplane;
* ``linear_refactor`` :class:`LinearRefactor` — a set of neurons whose kinks cancel on every
  hyperplane is affine and may be replaced by any other such set with the same affine map
  (with ``domain = "orthant"``: R3's classification, which generalises S4);
* ``remove_neuron`` / ``insert_neuron`` — a neuron with zero output column, with zero input row,
  or dead on the orthant;
* ``flip_set`` :class:`FlipSet` — neurons whose kink matrices cancel flip together.

They may change the width (function-preserving moves between architectures).  Steps that
remove neurons and add new ones put the new ones after the remaining neurons (shared base
class ``_Replace``).  Overview: :mod:`algebra.symmetries`.
"""

from __future__ import annotations

from ..exceptions import InputError
from ..rationals import q_json, to_q
from .step import Step, register_step
from .elementary import Composite, Permute
from .neurons import (ZERO, _domain, _int, _ints, _km, _layer_ok, _num, _nums, _orthant_ok,
                      _removable, affine_parts, hidden_neurons, same_linear_part,
                      with_hidden_neurons)

__all__ = ["Regroup", "LinearRefactor", "RemoveNeuron", "InsertNeuron", "FlipSet"]


class _Replace(Step):
    """Remove neurons ``indices``, append ``new`` (``(w, b, v)`` triples), add ``dc`` to the
    next layer's bias.  Subclasses define the validity check."""

    def __init__(self, layer, indices, new, dc=None, domain=None):
        self.layer = int(layer)
        self.indices = tuple(int(i) for i in indices)
        self.new = tuple((tuple(to_q(x) for x in w), to_q(b), tuple(to_q(x) for x in v))
                         for w, b, v in new)
        self.dc = None if dc is None else tuple(to_q(x) for x in dc)
        self.domain = domain

    def _common(self, net):
        ok, why = _layer_ok(net, self.layer)
        if not ok:
            return None, why
        neurons, c = hidden_neurons(net, self.layer)
        if len(set(self.indices)) != len(self.indices):
            return None, "repeated neuron index"
        if any(not 0 <= i < len(neurons) for i in self.indices):
            return None, "neuron index out of range"
        d, m = net.widths[self.layer], net.widths[self.layer + 2]
        if any(len(w) != d or len(v) != m for w, _, v in self.new):
            return None, "a new neuron has the wrong shape"
        if self.dc is not None and len(self.dc) != m:
            return None, "bias change has the wrong length"
        return (neurons, c), ""

    def _dc(self, m):
        return self.dc if self.dc is not None else (ZERO,) * m

    def _apply(self, net):
        neurons, c = hidden_neurons(net, self.layer)
        drop = set(self.indices)
        kept = [nu for i, nu in enumerate(neurons) if i not in drop]
        c = tuple(ci + di for ci, di in zip(c, self._dc(len(c))))
        return with_hidden_neurons(net, self.layer, kept + list(self.new), c)

    def _inverse_parts(self, net):
        neurons, c = hidden_neurons(net, self.layer)
        n = len(neurons)
        drop = set(self.indices)
        kept = [i for i in range(n) if i not in drop]
        n_new = n - len(self.indices) + len(self.new)
        tail = list(range(n_new - len(self.new), n_new))
        order = kept + list(self.indices)          # original index at each position after undo
        pos = {orig: k for k, orig in enumerate(order)}
        perm = [pos[k] for k in range(n)]
        originals = [neurons[i] for i in self.indices]
        dc = None if self.dc is None else tuple(-x for x in self.dc)
        return tail, originals, dc, Permute(self.layer, perm)

    def inverse(self, net):
        tail, originals, dc, perm = self._inverse_parts(net)
        return Composite([type(self)(self.layer, tail, originals, dc, self.domain), perm])

    def to_json(self):
        out = {"step": self.name, "layer": self.layer, "indices": list(self.indices),
               "new": [{"weight": [q_json(x) for x in w], "bias": q_json(b),
                        "output": [q_json(x) for x in v]} for w, b, v in self.new]}
        if self.dc is not None:
            out["bias_change"] = [q_json(x) for x in self.dc]
        out["domain"] = self.domain
        return out

    @classmethod
    def from_json(cls, data):
        new = data.get("new")
        if not isinstance(new, list):
            raise InputError(f"step {cls.name}: 'new' must be a list of neurons")
        triples = []
        for k, nu in enumerate(new):
            if not isinstance(nu, dict):
                raise InputError(f"step {cls.name}: new[{k}] must be an object")
            triples.append((_nums(nu, "weight"), _num(nu, "bias"), _nums(nu, "output")))
        dc = _nums(data, "bias_change") if data.get("bias_change") is not None else None
        return cls(_int(data, "layer"), _ints(data, "indices"), triples, dc, _domain(data))


@register_step
class LinearRefactor(_Replace):
    """Replace a set of neurons whose kinks cancel (an affine map on the domain) by another such
    set with the same affine map; ``bias_change`` absorbs the difference of constants.

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, -1]]], [[0, 0], [0]])   # x = σ(x) − σ(−x)
    >>> s = LinearRefactor(0, [0, 1], [((2,), 1, ("1/2",)), ((-2,), -1, ("-1/2",))], ["-1/2"])
    >>> s.check(net)[0], s.apply(net)([3]) == net([3])
    (True, True)
    """

    name = "linear_refactor"

    def check(self, net):
        parts, why = self._common(net)
        if parts is None:
            return False, why
        orthant = self.domain is not None
        if orthant:
            ok, why = _orthant_ok(net, self.layer, self.domain)
            if not ok:
                return ok, why
        neurons, c = parts
        old = affine_parts([neurons[i] for i in self.indices], orthant=orthant)
        if old is None:
            return False, "the removed neurons do not form an affine map (some kink does not cancel)"
        new = affine_parts(list(self.new), orthant=orthant)
        if new is None:
            return False, "the new neurons do not form an affine map (some kink does not cancel)"
        m, d = len(c), net.widths[self.layer]     # not from the neurons: the layer may be empty
        if not same_linear_part(old[0], new[0], d, m):   # (exact, without forming both m x d maps)
            return False, "the linear parts differ"
        c_old, c_new = (_constant(part, m) for part in (old, new))
        if [a - b for a, b in zip(c_old, c_new)] != list(self._dc(m)):
            return False, "bias_change does not equal the difference of the constants"
        return True, "both neuron sets compute the same affine map" + (" on the orthant" if orthant else "")


def _constant(part, m):
    """The constant of an affine map ``(full, c)`` of :func:`affine_parts`: ``c + Σ_full v b``."""
    full, c = part
    c = list(c) if c else [ZERO] * m
    for _, b, v in full:
        c = [ci + vi * b for ci, vi in zip(c, v)]
    return c


@register_step
class Regroup(Step):
    """Merge / split / antiparallel compensation on hyperplanes (R^d, width may change).

    ``groups``: list of ``(indices, u, beta, new)`` with ``new`` a list of ``(t, v)``: new neurons
    ``(t u, t β; v)``.  Valid iff every removed row is ``t_i (u, β)`` with ``t_i ≠ 0``, every new
    ``t ≠ 0``, and ``K = Σ |t| v`` and ``M = Σ_{t<0} |t| v`` agree (then both sets compute
    ``K σ(h) − M h``).  All removed neurons go; all new ones are appended, group by group.

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[-1]], [[1]]], [[0], [0]])                 # σ(−x)
    >>> s = Regroup(0, [([0], [1], 0, [(1, [1]), (1, [-1]), (-1, [1])])])     # σ(x) − x
    >>> s.check(net)[0], s.apply(net)([-2]), s.apply(net)([5])
    (True, (2,), (0,))
    """

    name = "regroup"

    def __init__(self, layer, groups):
        self.layer = int(layer)
        self.groups = tuple((tuple(int(i) for i in idx), tuple(to_q(x) for x in u), to_q(beta),
                             tuple((to_q(t), tuple(to_q(x) for x in v)) for t, v in new))
                            for idx, u, beta, new in groups)

    def _flat_replace(self):
        idx = [i for g in self.groups for i in g[0]]
        new = [(tuple(t * x for x in u), t * beta, v) for _, u, beta, nw in self.groups
               for t, v in nw]
        return _Replace(self.layer, idx, new)

    def check(self, net):
        ok, why = _layer_ok(net, self.layer)
        if not ok:
            return False, why
        neurons, c = hidden_neurons(net, self.layer)
        return self.check_neurons(neurons.__getitem__, len(neurons), net.widths[self.layer], len(c))

    def check_neurons(self, neuron, n: int, d: int, m: int):
        """:meth:`check` with neuron *i* of the layer read as ``neuron(i)`` (``(w, b, v)``) among
        *n* neurons with *d* inputs and *m* outputs: one check for the FLINT replay and the
        integer-array replay (:mod:`algebra.array_replay`), which reads only the named neurons."""
        flat = self._flat_replace()
        if len(set(flat.indices)) != len(flat.indices):
            return False, "repeated neuron index"
        if any(not 0 <= i < n for i in flat.indices):
            return False, "neuron index out of range"
        if any(len(w) != d or len(v) != m for w, _, v in flat.new):
            return False, "a new neuron has the wrong shape"
        for g, (idx, u, beta, new) in enumerate(self.groups):
            if len(u) != d:
                return False, f"group {g}: hyperplane normal has the wrong length"
            j = next((k for k, x in enumerate(u) if x != 0), None)
            if j is None:
                return False, f"group {g}: zero normal"
            K, M = [ZERO] * m, [ZERO] * m
            for i in idx:
                w, b, v = neuron(i)
                t = w[j] / u[j]
                if t == 0 or tuple(t * x for x in u) != w or t * beta != b:
                    return False, f"group {g}: neuron {i} is not on the hyperplane"
                K, M = _km(K, M, t, v)
            K2, M2 = [ZERO] * m, [ZERO] * m
            for k, (t, v) in enumerate(new):
                if t == 0 or len(v) != m:
                    return False, f"group {g}: new neuron {k} has t = 0 or a wrong output length"
                K2, M2 = _km(K2, M2, t, v)
            if K != K2:
                return False, f"group {g}: kink vectors differ"
            if M != M2:
                return False, f"group {g}: linear remainders differ"
        return True, "same kink and same linear remainder on each hyperplane"

    def _apply(self, net):
        return self._flat_replace()._apply(net)

    def inverse(self, net):
        neurons, _ = hidden_neurons(net, self.layer)
        flat = self._flat_replace()
        tail, originals, _, perm = flat._inverse_parts(net)
        groups, k = [], 0
        for idx, u, beta, new in self.groups:
            j = next(a for a, x in enumerate(u) if x != 0)
            pos = tail[k:k + len(new)]
            k += len(new)
            groups.append((pos, u, beta, [(neurons[i][0][j] / u[j], neurons[i][2]) for i in idx]))
        return Composite([Regroup(self.layer, groups), perm])

    def to_json(self):
        return {"step": self.name, "layer": self.layer, "groups": [
            {"indices": list(idx), "normal": [q_json(x) for x in u], "offset": q_json(beta),
             "new": [{"t": q_json(t), "output": [q_json(x) for x in v]} for t, v in new]}
            for idx, u, beta, new in self.groups]}

    @classmethod
    def from_json(cls, data):
        groups = data.get("groups")
        if not isinstance(groups, list):
            raise InputError("step regroup: 'groups' must be a list")
        out = []
        for g in groups:
            if not isinstance(g, dict) or not isinstance(g.get("new"), list):
                raise InputError("step regroup: each group needs indices, normal, offset, new")
            out.append((_ints(g, "indices"), _nums(g, "normal"), _num(g, "offset"),
                        [(_num(nu, "t"), _nums(nu, "output")) for nu in g["new"]]))
        return cls(_int(data, "layer"), out)


@register_step
class RemoveNeuron(Step):
    """Remove neuron *neuron*: valid if its output column is 0, or its row ``w`` is 0 (the
    constant ``v σ(b)`` moves into the next bias), or it is dead on the orthant."""

    name = "remove_neuron"

    def __init__(self, layer, neuron, domain=None):
        self.layer, self.neuron, self.domain = int(layer), int(neuron), domain

    def check(self, net):
        ok, why = _layer_ok(net, self.layer)
        if not ok:
            return ok, why
        neurons, _ = hidden_neurons(net, self.layer)
        return self.check_neuron(net, neurons.__getitem__, len(neurons))

    def check_neuron(self, net, neuron, n: int):
        """:meth:`check` with neuron *i* read as ``neuron(i)`` among *n* (shared with the
        integer-array replay, :mod:`algebra.array_replay`; *net* gives only the depth)."""
        if not 0 <= self.neuron < n:
            return False, f"no neuron {self.neuron}"
        return _removable(net, self.layer, neuron(self.neuron), self.domain)

    def _apply(self, net):
        neurons, c = hidden_neurons(net, self.layer)
        w, b, v = neurons.pop(self.neuron)
        if all(x == 0 for x in w) and b > 0:
            c = tuple(ci + vi * b for ci, vi in zip(c, v))
        return with_hidden_neurons(net, self.layer, neurons, c)

    def inverse(self, net):
        w, b, v = hidden_neurons(net, self.layer)[0][self.neuron]
        return InsertNeuron(self.layer, self.neuron, w, b, v, self.domain)

    def to_json(self):
        return {"step": self.name, "layer": self.layer, "neuron": self.neuron, "domain": self.domain}

    @classmethod
    def from_json(cls, data):
        return cls(_int(data, "layer"), _int(data, "neuron"), _domain(data))


@register_step
class InsertNeuron(Step):
    """Insert neuron ``(weight, bias; output)`` at *position*; valid for a zero output column, a
    zero row (the next bias loses ``v σ(b)``) or a row dead on the orthant."""

    name = "insert_neuron"

    def __init__(self, layer, position, weight, bias, output, domain=None):
        self.layer, self.position = int(layer), int(position)
        self.weight, self.bias = tuple(to_q(x) for x in weight), to_q(bias)
        self.output, self.domain = tuple(to_q(x) for x in output), domain

    def check(self, net):
        ok, why = _layer_ok(net, self.layer)
        if not ok:
            return ok, why
        if not 0 <= self.position <= net.widths[self.layer + 1]:
            return False, "position out of range"
        if len(self.weight) != net.widths[self.layer] or len(self.output) != net.widths[self.layer + 2]:
            return False, "the new neuron has the wrong shape"
        return _removable(net, self.layer, (self.weight, self.bias, self.output), self.domain)

    def _apply(self, net):
        neurons, c = hidden_neurons(net, self.layer)
        neurons.insert(self.position, (self.weight, self.bias, self.output))
        if all(x == 0 for x in self.weight) and self.bias > 0:
            c = tuple(ci - vi * self.bias for ci, vi in zip(c, self.output))
        return with_hidden_neurons(net, self.layer, neurons, c)

    def inverse(self, net=None):
        return RemoveNeuron(self.layer, self.position, self.domain)

    def to_json(self):
        return {"step": self.name, "layer": self.layer, "position": self.position,
                "weight": [q_json(x) for x in self.weight], "bias": q_json(self.bias),
                "output": [q_json(x) for x in self.output], "domain": self.domain}

    @classmethod
    def from_json(cls, data):
        return cls(_int(data, "layer"), _int(data, "position"), _nums(data, "weight"),
                   _num(data, "bias"), _nums(data, "output"), _domain(data))


@register_step
class FlipSet(Step):
    """Flip the neurons *indices* of hidden layer *layer* together: ``(w_j, b_j) → −(w_j, b_j)``
    and the next bias gains ``Σ_{j∈S} v_j b_j``; valid on R^d at any depth when their kink
    matrices cancel, ``Σ_{j∈S} v_j w_jᵀ = 0`` (three-layer-fibers R41's I4 and R18.5, for any
    hidden layer: ``σ(s) = σ(−s) + s``, so the next layer's pre-activation changes by
    ``Σ_S v_j (w_j·h + b_j) = Σ_S v_j b_j``, a constant, whatever the layer's input h).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [2]], [[2, -1]]], [[1, 0], [0]])   # 2·1 − 1·2 = 0
    >>> s = FlipSet(0, [0, 1])
    >>> s.check(net)[0], s.apply(net)([3]) == net([3]), s.apply(net)(["-5/2"]) == net(["-5/2"])
    (True, True, True)
    """

    name = "flip_set"

    def __init__(self, layer, indices):
        self.layer, self.indices = int(layer), tuple(sorted(int(i) for i in indices))

    def check(self, net):
        ok, why = _layer_ok(net, self.layer)
        if not ok:
            return ok, why
        neurons, _ = hidden_neurons(net, self.layer)
        if not self.indices:
            return False, "the flip set is empty"
        if len(set(self.indices)) != len(self.indices):
            return False, "repeated neuron index"
        if any(not 0 <= i < len(neurons) for i in self.indices):
            return False, "neuron index out of range"
        d, m = net.widths[self.layer], net.widths[self.layer + 2]
        for o in range(m):
            for k in range(d):
                if sum((neurons[j][2][o] * neurons[j][0][k] for j in self.indices), ZERO) != 0:
                    return False, (f"the kink matrices do not cancel: entry ({o}, {k}) of "
                                   "Σ_S v_j w_jᵀ is not 0")
        return True, "Σ_S v_j w_jᵀ = 0: σ(s) = σ(−s) + s leaves the constant Σ_S v_j b_j"

    def _apply(self, net):
        neurons, c = hidden_neurons(net, self.layer)
        c = list(c)
        for j in self.indices:
            w, b, v = neurons[j]
            c = [ci + vi * b for ci, vi in zip(c, v)]
            neurons[j] = (tuple(-x for x in w), -b, v)
        return with_hidden_neurons(net, self.layer, neurons, tuple(c))

    def inverse(self, net=None):
        return FlipSet(self.layer, self.indices)

    def to_json(self):
        return {"step": self.name, "layer": self.layer, "indices": list(self.indices)}

    @classmethod
    def from_json(cls, data):
        return cls(_int(data, "layer"), _ints(data, "indices"))
