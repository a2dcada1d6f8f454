r"""Symmetry generators S1–S5 and the R^d moves of one hidden layer (three-layer-fibers §5,
R8–R12; skip-absorption §6).

Every step acts on hidden layer ``layer`` (0-based) of a ReLU network with ≥ 1 hidden layer: on
the rows of ``W_layer``/``b_layer`` (incoming) and the columns of ``W_{layer+1}`` plus the bias
``b_{layer+1}`` (outgoing).  A step that preserves the one-hidden-layer map
``z ↦ W_{ℓ+1} σ(W_ℓ z + b_ℓ) + b_{ℓ+1}`` on every input ``z`` the layer can receive preserves the
whole network.  Neuron ``i`` is written ``(w_i, b_i; v_i)`` (incoming row, bias, outgoing column).

Discrete and continuous symmetries of a fixed architecture:

* ``S1`` :class:`Permute` — ``new[k] = old[perm[k]]``;
* ``S2`` :class:`Scale` — ``(w_k, b_k; v_k) → (λ_k w_k, λ_k b_k; v_k / λ_k)``, ``λ_k > 0``;
* ``S3`` :class:`DeadNeuron` — a neuron dead on the orthant (``w ≤ 0``, ``b ≤ 0``) may take any
  other dead row and any output column (R10);
* ``S4`` :class:`LinearBlock` — neurons linear on the orthant (``w ≥ 0``, ``b ≥ 0``) may be
  replaced by any other linear neurons with the same ``Σ v wᵀ`` and ``Σ v b + c`` (R11);
* ``S5`` :class:`FlipAbsorbed` — ``(w_j, b_j) → −(w_j, b_j)`` with the remainder ``v_j h_j`` moved
  into the linear block (R12: ``σ(s) = s + σ(−s)``).

**Orthant hypothesis** (S3–S5, dead-neuron removal): the layer's input must lie in the closed
orthant.  ``check`` verifies it exactly: either ``layer ≥ 1`` (the input is the output of a ReLU
layer, hence ``≥ 0``: always true, whatever the rank of the previous weights — full row rank
(R2) is what makes these moves *complete*, not what makes them *valid*), or ``layer = 0`` and the
step declares ``domain = "orthant"``: then it preserves the function **on the orthant only**, and
a certificate using it must claim that domain (the path checker enforces it).

Moves on R^d (valid for every input; they may change the width — a width-changing move is a
function-preserving move between architectures, not a fiber symmetry of a fixed one):

* ``regroup`` :class:`Regroup` — merge / split / antiparallel compensation on one hyperplane:
  neurons with rows ``t_i (u, β)`` (``t_i ≠ 0``) contribute ``K σ(h) − M h`` with
  ``K = Σ |t_i| v_i`` and ``M = Σ_{t_i<0} |t_i| v_i``; any set with the same ``(K, M)`` may
  replace them;
* ``linear_refactor`` :class:`LinearRefactor` — a set of neurons whose kinks cancel on every
  hyperplane is affine; it may be replaced by any other such set with the same affine map (the
  output bias absorbs the constant); with ``domain = "orthant"`` the classification of R3 is used
  (dead → 0, linear → affine), which generalises S4;
* ``remove_neuron`` / ``insert_neuron`` — a neuron with zero output column, with zero input row
  (its constant ``v σ(b)`` goes to the output bias), or dead on the orthant.
* ``composite`` — a list of steps (used by inverses of width-changing moves).

Steps that remove neurons and add new ones put the new ones **after** the remaining neurons
(kept in their order).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
>>> s = Scale(0, [2, "1/3"])
>>> s.apply(net)
Network.from_rows([[[2], [-1/3]], [[1/2, 3]]], [[0, 1/3], [0]])
>>> s.inverse(net).apply(s.apply(net)) == net
True
>>> Permute(0, [1, 0]).apply(net)
Network.from_rows([[[-1], [1]], [[1, 1]]], [[1, 0], [0]])
"""

from __future__ import annotations

from typing import Sequence

from ..exceptions import InputError
from ..io.native import parse_number
from ..matrices import QMatrix
from ..network import Network
from ..rationals import Q, q_json, to_q
from . import Step, register_step, step_from_json

__all__ = ["Permute", "Scale", "DeadNeuron", "LinearBlock", "FlipAbsorbed", "Regroup",
           "LinearRefactor", "RemoveNeuron", "InsertNeuron", "Composite", "hidden_neurons",
           "with_hidden_neurons", "affine_contribution", "is_dead_row", "is_linear_row"]

ZERO = Q(0)


# -- neuron access -----------------------------------------------------------------------------

def hidden_neurons(net: Network, layer: int):
    """``([(w, b, v), …], c)`` for hidden layer *layer*: rows, biases, outgoing columns, and
    the next layer's bias ``c`` (a fresh list; the last few results are cached by identity of
    the immutable network, since a path checks and applies each step on the same network)."""
    hit = _CACHE.get((id(net), layer))
    if hit is not None and hit[0] is net:
        return list(hit[1]), hit[2]
    neurons, c = _hidden_neurons(net, layer)
    if net.n_parameters <= _CACHE_MAX_PARAMETERS:     # large nets: memory over speed
        if len(_CACHE) >= 4:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[(id(net), layer)] = (net, neurons, c)
    return list(neurons), c


_CACHE: dict = {}
_CACHE_MAX_PARAMETERS = 500_000


def _hidden_neurons(net: Network, layer: int):
    _check_layer(net, layer)
    W, b = net.layer(layer)
    V, c = net.layer(layer + 1)
    rows = [tuple(r) for r in W.to_rows()]
    cols = [tuple(r) for r in V.T.to_rows()] if V.ncols else []
    return [(w, bi, v) for w, bi, v in zip(rows, b, cols)], tuple(c)


def with_hidden_neurons(net: Network, layer: int, neurons, c) -> Network:
    """A copy of *net* whose hidden layer *layer* is *neurons* (``(w, b, v)`` triples) and whose
    next bias is *c* (the width may change)."""
    W, _ = net.layer(layer)
    V, _ = net.layer(layer + 1)
    d, m = W.ncols, V.nrows
    Wn = QMatrix.from_rows([list(w) for w, _, _ in neurons], ncols=d)
    Vn = QMatrix.from_rows([list(v) for _, _, v in neurons], ncols=m).T if neurons \
        else QMatrix.from_rows([[]] * m)
    ws, bs = list(net.weights), list(net.biases)
    ws[layer], bs[layer] = Wn, tuple(bb for _, bb, _ in neurons)
    ws[layer + 1], bs[layer + 1] = Vn, tuple(c)
    return Network(ws, bs)


def is_dead_row(w, b) -> bool:
    """``w·z + b ≤ 0`` on the closed orthant: ``w ≤ 0`` and ``b ≤ 0`` entrywise."""
    return b <= 0 and all(x <= 0 for x in w)


def is_linear_row(w, b) -> bool:
    """``w·z + b ≥ 0`` on the closed orthant: ``w ≥ 0`` and ``b ≥ 0`` entrywise."""
    return b >= 0 and all(x >= 0 for x in w)


def affine_contribution(neurons, *, orthant: bool = False):
    """``(A, c)`` with ``Σ v σ(w·z + b) = A z + c`` when the neurons' kinks cancel on every
    hyperplane (on R^d, or on the orthant with R3's classification), else None.

    >>> affine_contribution([((1,), 0, (1,)), ((-1,), 0, (-1,))])        # σ(x) − σ(−x) = x
    (((1,),), (0,))
    >>> affine_contribution([((1,), 0, (1,))]) is None
    True
    >>> affine_contribution([((1,), 0, (1,))], orthant=True)
    (((1,),), (0,))
    """
    if not neurons:
        return (), ()
    d, m = len(neurons[0][0]), len(neurons[0][2])
    probe = [Q((j * 2654435761 + 12345) % 1000003 + 1) for j in range(d + 1)]
    c = [ZERO] * m
    full = []                                       # neurons whose whole affine map counts
    buckets: dict = {}                              # key -> [[u, beta, K], ...]
    for w, b, v in neurons:
        if all(x == 0 for x in v):
            continue
        if orthant and not _switching(w, b):
            if is_linear_row(w, b):
                full.append((w, b, v))
            continue
        lead = next((x for x in w if x != 0), None)
        if lead is None:
            if b > 0:
                c = [ci + vi * b for ci, vi in zip(c, v)]
            continue
        inv = Q(1) / lead
        key = (sum((x * r for x, r in zip(w, probe)), ZERO) + b * probe[d]) * inv
        beta, s = b * inv, abs(lead)
        bucket = buckets.setdefault(key, [])
        for entry in bucket:                        # exact check inside a bucket
            if entry[1] == beta and all(x == y * lead for x, y in zip(w, entry[0])):
                entry[2] = [a + vi * s for a, vi in zip(entry[2], v)]
                break
        else:
            bucket.append([tuple(x * inv for x in w), beta, [vi * s for vi in v]])
        if lead < 0:
            full.append((w, b, v))
    if any(x != 0 for bucket in buckets.values() for e in bucket for x in e[2]):
        return None
    if full:
        Vt = QMatrix.from_rows([v for _, _, v in full], ncols=m)
        A = (Vt.T @ QMatrix.from_rows([w for w, _, _ in full], ncols=d)).to_tuples()
        c = [ci + x for ci, x in zip(c, Vt.T.apply([b for _, b, _ in full]))]
    else:
        A = tuple((ZERO,) * d for _ in range(m))
    return A, tuple(c)


# -- S1, S2 ------------------------------------------------------------------------------------

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


# -- S3, S4, S5 (orthant) ----------------------------------------------------------------------

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
        old = affine_contribution([neurons[i] for i in self.indices], orthant=orthant)
        if old is None:
            return False, "the removed neurons do not form an affine map (some kink does not cancel)"
        new = affine_contribution(list(self.new), orthant=orthant)
        if new is None:
            return False, "the new neurons do not form an affine map (some kink does not cancel)"
        m, d = len(c), net.widths[self.layer]     # not from the neurons: the layer may be empty
        A_old, c_old = _dense(old, d, m)
        A_new, c_new = _dense(new, d, m)
        if A_old != A_new:
            return False, "the linear parts differ"
        if [a - b for a, b in zip(c_old, c_new)] != list(self._dc(m)):
            return False, "bias_change does not equal the difference of the constants"
        return True, "both neuron sets compute the same affine map" + (" on the orthant" if orthant else "")


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
        for k, (w, b, _) in enumerate(self.block.new):
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


# -- R^d moves ---------------------------------------------------------------------------------

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
        parts, why = self._flat_replace()._common(net)
        if parts is None:
            return False, why
        neurons, c = parts
        d, m = net.widths[self.layer], len(c)
        for g, (idx, u, beta, new) in enumerate(self.groups):
            if len(u) != d:
                return False, f"group {g}: hyperplane normal has the wrong length"
            j = next((k for k, x in enumerate(u) if x != 0), None)
            if j is None:
                return False, f"group {g}: zero normal"
            K, M = [ZERO] * m, [ZERO] * m
            for i in idx:
                w, b, v = neurons[i]
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
        if not 0 <= self.neuron < len(neurons):
            return False, f"no neuron {self.neuron}"
        return _removable(net, self.layer, neurons[self.neuron], self.domain)

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
        return cls([step_from_json(s) for s in steps])


# -- private helpers ---------------------------------------------------------------------------

def _check_layer(net, layer):
    if not 0 <= layer < net.depth - 1:
        raise InputError(f"hidden layer {layer} does not exist (the network has "
                         f"{net.depth - 1} hidden layers)")


def _layer_ok(net, layer):
    if not 0 <= layer < net.depth - 1:
        return False, f"hidden layer {layer} does not exist ({net.depth - 1} hidden layers)"
    return True, ""


def _orthant_ok(net, layer, domain):
    ok, why = _layer_ok(net, layer)
    if not ok:
        return ok, why
    if layer >= 1:
        return True, "the layer's input is a ReLU output, hence in the closed orthant"
    if domain == "orthant":
        return True, "domain declared: the closed orthant"
    return False, ("orthant hypothesis fails: layer 0 sees all of R^d (declare domain 'orthant' "
                   "to claim equality on the orthant only)")


def _removable(net, layer, neuron, domain):
    w, b, v = neuron
    if all(x == 0 for x in v):
        return True, "zero output column"
    if all(x == 0 for x in w):
        return True, "zero input row: the constant v σ(b) moves into the next bias"
    if is_dead_row(w, b):
        ok, why = _orthant_ok(net, layer, domain)
        if ok:
            return True, f"dead on the orthant ({why})"
        return False, f"the neuron is dead on the orthant only, but {why}"
    return False, "the neuron has a non-zero output, a non-zero row and is not dead"


def _switching(w, b):
    return (b > 0 or any(x > 0 for x in w)) and (b < 0 or any(x < 0 for x in w))


def _sum_affine(neurons, d, m):
    if not neurons:
        return [[ZERO] * d for _ in range(m)], [ZERO] * m
    Vt = QMatrix.from_rows([v for _, _, v in neurons], ncols=m)
    A = (Vt.T @ QMatrix.from_rows([w for w, _, _ in neurons], ncols=d)).to_rows()
    return A, list(Vt.T.apply([b for _, b, _ in neurons]))


def _dense(contrib, d, m):
    A, c = contrib
    if not A:
        return [[ZERO] * d for _ in range(m)], [ZERO] * m
    return [list(r) for r in A], list(c)


def _km(K, M, t, v):
    s = abs(t)
    K = [a + s * x for a, x in zip(K, v)]
    if t < 0:
        M = [a + s * x for a, x in zip(M, v)]
    return K, M


def _flat(net, l, kind, i, j=None):
    off = 0
    for k in range(l):
        W = net.weights[k]
        off += W.nrows * (W.ncols + 1)
    W = net.weights[l]
    if kind == "W":
        return off + i * W.ncols + j
    return off + W.nrows * W.ncols + i


def _int(data, key):
    if not isinstance(data, dict) or key not in data:
        raise InputError(f"step lacks {key!r}")
    x = data[key]
    if isinstance(x, bool) or not isinstance(x, int):
        raise InputError(f"step field {key!r} must be an integer")
    return x


def _ints(data, key):
    x = data.get(key) if isinstance(data, dict) else None
    if not isinstance(x, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in x):
        raise InputError(f"step field {key!r} must be a list of integers")
    return x


def _num(data, key):
    if not isinstance(data, dict) or key not in data:
        raise InputError(f"step lacks {key!r}")
    return parse_number(data[key], f"step field {key}")


def _nums(data, key):
    x = data.get(key) if isinstance(data, dict) else None
    if not isinstance(x, list):
        raise InputError(f"step field {key!r} must be a list of numbers")
    return [parse_number(v, f"step field {key}") for v in x]


def _domain(data):
    dom = data.get("domain")
    if dom not in (None, "orthant"):
        raise InputError(f"step domain must be null or 'orthant', got {dom!r}")
    return dom
