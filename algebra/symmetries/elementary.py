"""Elementary symmetry steps, valid on every network without hypothesis (three-layer-fibers
§5, S1, S2): :class:`Permute` (S1, ``new[k] = old[perm[k]]``), :class:`Scale` (S2,
``(w_k, b_k; v_k) → (λ_k w_k, λ_k b_k; v_k / λ_k)``, ``λ_k > 0``), and :class:`Composite` (a list
of steps, used by the inverses of width-changing moves).  Overview of all steps:
:mod:`algebra.symmetries`.
"""

from __future__ import annotations

from typing import Sequence

from ..exceptions import InputError
from ..network import Network
from ..rationals import q_json, to_q
from .step import Step, register_step, step_from_json
from .neurons import ZERO, _flat, _int, _ints, _layer_ok, _nums

__all__ = ["Permute", "Scale", "Composite", "random_permute_scale"]


@register_step
class Permute(Step):
    """S1 (R8): ``new[k] = old[perm[k]]`` at hidden layer *layer*."""

    name = "S1"

    def __init__(self, layer: int, perm: Sequence[int]):
        self.layer, self.perm = int(layer), tuple(int(p) for p in perm)

    def check(self, net):
        ok, why = _layer_ok(net, self.layer)
        if not ok:
            return ok, why
        n = net.widths[self.layer + 1]
        if sorted(self.perm) != list(range(n)):
            return False, f"perm is not a permutation of 0..{n - 1}"
        return True, "permutations of hidden neurons preserve the function"

    def _apply(self, net):
        l = self.layer
        W, b = net.layer(l)
        V, c = net.layer(l + 1)
        ws, bs = list(net.weights), list(net.biases)
        ws[l], bs[l] = W.take_rows(self.perm), tuple(b[p] for p in self.perm)
        ws[l + 1] = V.T.take_rows(self.perm).T
        return Network(ws, bs)

    def inverse(self, net=None):
        inv = [0] * len(self.perm)
        for k, p in enumerate(self.perm):
            inv[p] = k
        return Permute(self.layer, inv)

    def to_json(self):
        return {"step": self.name, "layer": self.layer, "perm": list(self.perm)}

    @classmethod
    def from_json(cls, data):
        return cls(_int(data, "layer"), _ints(data, "perm"))


@register_step
class Scale(Step):
    """S2 (R9): ``(w_k, b_k; v_k) → (λ_k w_k, λ_k b_k; v_k / λ_k)`` with every ``λ_k > 0``."""

    name = "S2"
    continuous = True

    def __init__(self, layer: int, factors: Sequence[object]):
        self.layer, self.factors = int(layer), tuple(to_q(x) for x in factors)

    def check(self, net):
        ok, why = _layer_ok(net, self.layer)
        if not ok:
            return ok, why
        if len(self.factors) != net.widths[self.layer + 1]:
            return False, f"{len(self.factors)} factors for {net.widths[self.layer + 1]} neurons"
        bad = [k for k, x in enumerate(self.factors) if not x > 0]
        if bad:
            return False, f"factor of neuron {bad[0]} is {self.factors[bad[0]]}, not > 0"
        return True, "positive rescaling (ReLU is positively homogeneous)"

    def _apply(self, net):
        l = self.layer
        W, b = net.layer(l)
        V, _ = net.layer(l + 1)
        ws, bs = list(net.weights), list(net.biases)
        ws[l] = W.scale_rows(self.factors)
        bs[l] = tuple(x * f for x, f in zip(b, self.factors))
        ws[l + 1] = V.T.scale_rows([1 / f for f in self.factors]).T
        return Network(ws, bs)

    def inverse(self, net=None):
        return Scale(self.layer, [1 / x for x in self.factors])

    def generator(self, net):
        """One tangent vector per neuron (d/dλ_k at λ = 1), flat parameter order."""
        out = []
        n = net.widths[self.layer + 1]
        for k in range(n):
            vec = [ZERO] * net.n_parameters
            W, b = net.layer(self.layer)
            V, _ = net.layer(self.layer + 1)
            for j in range(W.ncols):
                vec[_flat(net, self.layer, "W", k, j)] = W[k, j]
            vec[_flat(net, self.layer, "b", k)] = b[k]
            for o in range(V.nrows):
                vec[_flat(net, self.layer + 1, "W", o, k)] = -V[o, k]
            out.append(tuple(vec))
        return out

    def to_json(self):
        return {"step": self.name, "layer": self.layer, "factors": [q_json(x) for x in self.factors]}

    @classmethod
    def from_json(cls, data):
        return cls(_int(data, "layer"), _nums(data, "factors"))


@register_step
class Composite(Step):
    """A list of steps applied in order (each checked at its own intermediate network)."""

    name = "composite"

    def __init__(self, steps):
        self.steps = tuple(steps)

    def check(self, net):
        for k, s in enumerate(self.steps):
            ok, why = s.check(net)
            if not ok:
                return False, f"sub-step {k} ({s.name}): {why}"
            net = s._apply(net)
        return True, "every sub-step is valid"

    def _apply(self, net):
        for s in self.steps:
            net = s._apply(net)
        return net

    def inverse(self, net):
        invs, cur = [], net
        for s in self.steps:
            invs.append(s.inverse(cur))
            cur = s._apply(cur)
        return Composite(list(reversed(invs)))

    def to_json(self):
        return {"step": self.name, "steps": [s.to_json() for s in self.steps]}

    @classmethod
    def from_json(cls, data):
        steps = data.get("steps")
        if not isinstance(steps, list):
            raise InputError("step composite: 'steps' must be a list")
        depth = composite_depth(data)
        if depth > MAX_COMPOSITE_DEPTH:     # (each level costs Python frames: a path 330 deep
            raise InputError(               # was a RecursionError, exit 4; session-38 forge F1)
                f"step composite: composites nested more than {MAX_COMPOSITE_DEPTH} deep (list the "
                "steps flat instead)")
        return cls([step_from_json(s) for s in steps])


MAX_COMPOSITE_DEPTH = 64
"""Composite steps nested deeper than this are refused as malformed (a flat list of the same
steps is the same path)."""


def composite_depth(data) -> int:
    """How deep composite steps nest in the JSON step *data* (1 for a composite of plain steps),
    found without recursion.

    >>> composite_depth({"step": "composite", "steps": [{"step": "composite", "steps": []}]})
    2
    """
    best, stack = 0, [(data, 1)]
    while stack:
        node, d = stack.pop()
        if isinstance(node, dict) and node.get("step") == "composite" and isinstance(node.get("steps"), list):
            best = max(best, d)
            if best > MAX_COMPOSITE_DEPTH:
                return best
            stack.extend((s, d + 1) for s in node["steps"])
    return best


def random_permute_scale(net: Network, rng, *, max_factor: int = 5) -> Network:
    """A planted symmetric copy: every hidden layer permuted (S1) and rescaled (S2) with factors
    ``p/q``, ``1 <= p, q <= max_factor``, drawn from *rng* (a ``random.Random``); the copy computes
    the same function.  Used to build equivalent test and benchmark pairs.

    >>> import random
    >>> net = Network.from_rows([[[1, 2], [3, -1]], [[1, -2]]], [[0, 1], [5]])
    >>> copy = random_permute_scale(net, random.Random(0))
    >>> copy([2, -3]) == net([2, -3]), copy == net
    (True, False)
    """
    for l in range(net.depth - 1):
        n = net.widths[l + 1]
        perm = list(range(n))
        rng.shuffle(perm)
        lam = [to_q(f"{rng.randint(1, max_factor)}/{rng.randint(1, max_factor)}") for _ in range(n)]
        net = Scale(l, lam).apply(Permute(l, perm).apply(net))
    return net
