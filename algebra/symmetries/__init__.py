r"""Symmetry generators as exact actions on networks: S1–S5 and the R^d moves of one hidden
layer (three-layer-fibers §5, R8–R12; skip-absorption §6), S6–S8 of bottleneck networks.

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
* ``flip_set`` :class:`FlipSet` — neurons of any hidden layer whose kink matrices cancel,
  ``Σ_S v_j w_jᵀ = 0``, flip together; the next bias gains ``Σ_S v_j b_j``;
* ``composite`` — a list of steps (used by inverses of width-changing moves).

Steps that remove neurons and add new ones put the new ones **after** the remaining neurons
(kept in their order).

Module layout (this package re-exports every step): the step protocol, the registry and paths
in :mod:`algebra.symmetries.step`; S1, S2 and ``composite`` in
:mod:`algebra.symmetries.elementary`; S3–S5 in :mod:`algebra.symmetries.orthant`; the R^d moves
in :mod:`algebra.symmetries.moves`; neuron access (:func:`hidden_neurons`, …) in
:mod:`algebra.symmetries.neurons`; the bottleneck generators S6–S8 in
:mod:`algebra.symmetries.bottleneck` and the steps of the bottleneck symmetry paths in
:mod:`algebra.symmetries.bottleneck_paths`.

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

from .bottleneck import KinkSwap, SignFlip, TranslateMasked, masked_column, non_dead_rows, s6_interval
from .bottleneck_paths import FreeFirstLayer, PermuteHidden, RescaleHidden, RescaleLayer, TailRefactor
from .elementary import Composite, Permute, Scale, random_permute_scale
from .moves import FlipSet, InsertNeuron, LinearRefactor, Regroup, RemoveNeuron
from .neurons import (affine_contribution, hidden_neurons, is_dead_row, is_linear_row,
                      with_hidden_neurons)
from .orthant import DeadNeuron, FlipAbsorbed, LinearBlock
from .step import (STEPS, Step, apply_path, path_from_json, path_to_json, register_step,
                   step_from_json)

__all__ = ["Step", "STEPS", "register_step", "step_from_json", "apply_path", "path_to_json",
           "path_from_json",
           "Permute", "Scale", "Composite", "random_permute_scale",
           "DeadNeuron", "LinearBlock", "FlipAbsorbed",
           "Regroup", "LinearRefactor", "RemoveNeuron", "InsertNeuron", "FlipSet",
           "hidden_neurons", "with_hidden_neurons", "affine_contribution", "is_dead_row",
           "is_linear_row",
           "TranslateMasked", "SignFlip", "KinkSwap", "PermuteHidden", "RescaleHidden",
           "TailRefactor", "FreeFirstLayer", "RescaleLayer", "s6_interval", "masked_column",
           "non_dead_rows"]
