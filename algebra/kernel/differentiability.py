r"""Where θ ↦ f_θ(x) is differentiable: the one rule shared by ``dim`` and its certificate checker.

Notation: hidden layers t = 0..L-2, pre-activations z_t = W_t h_{t-1} + b_t, h_t = σ(z_t) with
σ = ReLU, output f = W_{L-1} h_{L-2} + b_{L-1} (m outputs).  A *kink neuron* at an input x is a
hidden neuron with z_t[j](x) = 0 — whatever the reason: a hyperplane through x, a pre-activation
vanishing on a whole region, or a zero incoming row with a zero bias (z ≡ 0).

**The rule.**  Give every kink neuron the mask 0 and every other neuron its sign's mask, and
back-propagate δ_{L-1} = e_o, e_t = W_{t+1}ᵀ δ_{t+1} (= ∂f_o/∂h_t, the derivative of the rest of the
network with respect to the outputs of layer t), δ_t = D_t e_t.  Then θ ↦ f_θ(x) is
differentiable at θ **if and only if e_t[j] = 0 for every kink neuron (t, j) and every output o**.

So a kink neuron is harmless exactly when the network above it does not see it at this input:
its outgoing weights are all zero, or every path from it meets a neuron that is inactive
(z < 0) or itself a harmless kink, or the paths cancel (Σ_k W_{t+1}[k, j] δ_{t+1}[k] = 0).  A
neuron with a zero row and a zero bias is no exception: it is a kink at every input.

Proof.  Let K be the kink neurons at (θ, x).  Every other neuron keeps its strict sign for θ' near
θ.  For a sign choice σ ∈ {+, −}^K let Θ_σ be the θ' near θ where each z_k (k ∈ K) has sign σ_k
or is 0; the Θ_σ cover a neighbourhood of θ, and on Θ_σ, f_{θ'}(x) = P_σ(θ') for the polynomial
P_σ of the network with the masks of σ fixed (a kink neuron has h = 0 under either mask).  The
gradient of P_σ at θ is the closed-form Jacobian row with those masks: ∂f/∂W_t[i,k] =
δ_t[i] h_{t-1}[k], ∂f/∂b_t[i] = δ_t[i].  The forward values h do not depend on the masks of
kink neurons (h = 0 under both), so the rows of two choices differ exactly where δ does.

* If every kink neuron has e = 0: by induction from the top layer, δ_{t+1} does not depend on
  the masks of kinks above t, hence neither does e_t, and δ_t[j] = D_t[j] e_t[j] = 0 for the
  kinks of layer t whatever their masks: all P_σ have the same gradient g at θ, and
  |f_{θ'} − f_θ − g·(θ' − θ)| = |P_σ(θ') − P_σ(θ) − ∇P_σ(θ)(θ' − θ)| = O(|θ' − θ|²) on each of
  the finitely many Θ_σ: f is differentiable at θ with gradient g.
* Otherwise take the top-most layer t holding a kink j with e_t[j] ≠ 0 for some output; above t
  every kink has e = 0, so e_t is the same for every choice.  The ∂/∂b_t[j] entries of the rows
  with D_t[j] = 1 and D_t[j] = 0 are e_t[j] ≠ 0 and 0.  Each Θ_σ contains an open cone at θ
  (push the biases of the kinks of layer 1 by σ·ε₁, of layer 2 by σ·ε₂ with ε₂ ≫ ε₁, …: to first
  order along that ray each kink's pre-activation has sign σ, an open condition on the
  direction); a function differentiable at θ has on each such cone the directional derivatives
  of P_σ, so all ∇P_σ(θ) would agree.  They do not: f is not differentiable at θ.

Consequences used by the callers: at a differentiable input a kink neuron has h = 0 and
δ = 0 under either mask — it behaves as dead and as active at once — so the Jacobian row is the
closed form with kink masks 0, and every argument that holds for a chosen mask of each neuron
holds there.  On a linear region (sign pattern constant, 0 for the neurons vanishing on the
whole region) δ and e depend on the pattern only, so the rule is decided once per region.
Exact, small, no search.

>>> from algebra.network import Network
>>> zero = Network.from_rows([[[0]], [[3]]], [[0], [5]])   # 3·relu(0·x + 0) + 5
>>> kink_witness(zero, (0,)), is_differentiable_at(zero, (7,))
((0, 0), False)
>>> silent = Network.from_rows([[[0]], [[0]]], [[0], [5]])   # the zero neuron is not seen
>>> kink_witness(silent, (0,)), is_differentiable_at(silent, (7,))
(None, True)
"""

from __future__ import annotations

from typing import Sequence

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

__all__ = ["kink_witness", "is_differentiable_at", "differentiability_witness", "vanishing_on_path",
           "layer_forms"]


def kink_witness(net: Network, pattern: Sequence[int]) -> tuple[int, int] | None:
    """The top-most kink neuron ``(layer, neuron)`` (0-based hidden layer) of *pattern* that the
    network above it sees (e_t[j] ≠ 0 for some output), or None when θ ↦ f_θ(x) is
    differentiable at every input x with this activation *pattern* (signs -1/0/1 of every hidden
    pre-activation, layer order; 0 = kink).  The rule and its proof: the module docstring.

    >>> from algebra.network import Network
    >>> deep = Network.from_rows([[[1]], [[0]], [[3]]], [[0], [0], [5]])
    >>> kink_witness(deep, (1, 0)), kink_witness(deep, (-1, 0))
    ((1, 0), (1, 0))
    >>> cancel = Network.from_rows([[[1], [1]], [[1, -1]], [[3]]], [[0, 0], [0], [5]])
    >>> kink_witness(cancel, (1, 1, 0))        # relu(x) - relu(x): neuron (1, 0) vanishes, seen
    (1, 0)
    >>> kink_witness(cancel, (-1, -1, 0))      # x < 0: (1, 0) vanishes, seen by the output
    (1, 0)
    >>> off = Network.from_rows([[[0], [1]], [[1, 1]], [[3]]], [[0, 0], [-9], [5]])
    >>> kink_witness(off, (0, 1, -1))          # the successor of the zero neuron is inactive
    """
    widths, L = net.widths, net.depth
    if len(pattern) != sum(widths[1:-1]):
        raise ValueError(f"pattern has {len(pattern)} signs, the network {sum(widths[1:-1])} hidden neurons")
    starts = [sum(widths[1:1 + t]) for t in range(L - 1)]
    delta = QMatrix.identity(net.n_outputs)               # rows: outputs; columns: neurons
    for t in range(L - 2, -1, -1):
        e = (delta @ net.weights[t + 1]).to_rows()        # e[o][j] = ∂f_o/∂h_t[j]
        signs = pattern[starts[t]:starts[t] + widths[t + 1]]
        for j, s in enumerate(signs):
            if s == 0 and any(row[j] != 0 for row in e):
                return (t, j)
        delta = QMatrix.from_rows([[v if s > 0 else 0 for v, s in zip(row, signs)] for row in e],
                                  ncols=widths[t + 1])
    return None


def differentiability_witness(net: Network, x: Sequence[object]) -> tuple[int, int] | None:
    """:func:`kink_witness` of the activation pattern of *x* (None: differentiable at x)."""
    return kink_witness(net, net.activation_pattern(x))


def is_differentiable_at(net: Network, x: Sequence[object]) -> bool:
    """Whether θ ↦ f_θ(x) is differentiable at the parameters of *net* (the module's rule)."""
    return differentiability_witness(net, x) is None


def vanishing_on_path(net, path, cache: dict) -> tuple | None:
    """A neuron (t, j), t >= 1, on the layer-ordered sign *path* whose pre-activation is
    identically zero under the masks the path fixes for the layers below t (its affine form in x
    is 0), unless it is in the last hidden layer with a non-zero output column; else None.

    Why the proofs need this (the *density* argument): a proof refutes strict sign systems, so it
    speaks of the inputs where every branched neuron is non-zero.  Its facts (never active, never
    inactive, never exercised, the span on an active set) are open conditions, so they extend to
    every differentiable input x of the domain if such inputs are dense near x: choose, layer by
    layer inside a small open set near x, the side of each branched neuron's zero set.  That fails
    only where a neuron's affine form is 0 on a whole open set, i.e. on a branch of the tree with
    this neuron's form identically zero (both signs then refuted, or unrefuted leaves, for a
    reason that is no geometry): such a branch makes the proof say nothing on an open set that
    may hold differentiable inputs (:mod:`algebra.kernel.differentiability`: a vanishing neuron
    that the network above does not see).  In the last hidden layer a vanishing neuron with a
    non-zero output column is seen at every input, so inputs where it vanishes are not
    differentiable and the branch is harmless."""
    L = net.depth
    on: dict = {}
    for t, j, s in path:
        if t >= 1:
            key = (t, tuple(tuple(sorted(on.get(u, ()))) for u in range(t)))
            if key not in cache:
                cache[key] = layer_forms(net, t, on)
            Z, zc = cache[key]
            if zc[j] == 0 and all(v == 0 for v in Z.row_at(j)):
                if not (t == L - 2 and any(w != 0 for w in net.weights[L - 1].col_at(j))):
                    return (t, j)
        if s > 0:
            on.setdefault(t, set()).add(j)
    return None


def layer_forms(net, t, on) -> tuple:
    """(Z, zc): z_t = Z x + zc on the inputs where the active neurons of layers < t are *on*."""
    d = net.n_inputs
    M, m = QMatrix.identity(d), [Q(0)] * d
    for u in range(t + 1):
        W, b = net.layer(u)
        Z = W @ M
        zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
        if u == t:
            return Z, zc
        act = on.get(u, set())
        zero = tuple([Q(0)] * d)
        M = QMatrix.from_rows([Z.row_at(q) if q in act else zero for q in range(W.nrows)], ncols=d)
        m = [zc[q] if q in act else Q(0) for q in range(W.nrows)]
    raise AssertionError("unreachable")
