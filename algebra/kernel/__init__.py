"""The trusted kernel: the small exact operations that deciders and certificate checkers share.

Rules (checked by ``tests/test_layering.py``):

* short, exact, over Q; no search, no heuristics, no budget, no randomness;
* each function is tested on its own against an independent oracle (``tests/algebra/test_kernel*.py``);
* ``semialgebraic/verify/`` may import this package (and the rest of ``algebra``) only; deciding
  modules may use it too, so decider and checker share only code that is small enough to read.
* this package imports ``algebra`` (and the standard library) only.

Contents
--------
networks
    :func:`difference_network` (``a − b`` as one network), :func:`contract_layer` (remove a
    hidden layer that is affine on the domain), :func:`is_zero_neuron`, :func:`drop_zero_neurons`,
    :func:`parameter_offsets`, :func:`parameter_places`, :func:`network_digest` (checkpoints of symmetry paths),
    :func:`box_input_map` / :func:`compose_input_map` (a box as the image of the cube
    ``[−1, 1]^d``; the network read on the cube: ``dim`` on a box), :func:`compose_slice_map`
    (a box with sides of width 0: the network of its free coordinates on the cube).
intervals
    :func:`interval_bounds` of every pre-activation over a domain (via
    :func:`algebra.linalg.interval_image`).
domains
    :func:`domain_rows` (the domain's rows ``a·x + c``), :func:`domain_json` /
    :func:`domain_from_json` (the domain inside exercise and emptiness proofs).
vectors
    :func:`is_proportional`.
jacobian
    :func:`exercise_spec` (what a parameter's Jacobian column needs to be non-zero),
    :func:`is_delta_zero` (the back-propagated ``δ`` under fixed masks).
limbs
    :class:`~algebra.kernel.limbs.LimbArith`, exact integer arrays on int64 limbs (the products
    of the branch-and-bound bounds; numpy is passed in, so it is imported from its module).
knapsack
    :func:`~algebra.kernel.knapsack.max_over_box_halfspace` (max of a linear function over a box
    cut by one half-space) and :func:`~algebra.kernel.knapsack.relu_cut_rhs` (the least valid
    right-hand side of a single-neuron cut; imported from its module).
"""

from .domains import domain_from_json, domain_json, domain_rows
from .intervals import input_box, interval_bounds, merged_lower, relu_box
from .jacobian import exercise_spec, is_delta_zero
from .networks import (box_input_map, compose_input_map, compose_slice_map, contract_layer, difference_network, drop_zero_neurons,
                       is_zero_neuron, network_digest, parameter_offsets, parameter_places)
from .vectors import is_proportional

__all__ = ["box_input_map", "compose_input_map", "compose_slice_map", "contract_layer", "difference_network", "drop_zero_neurons", "domain_from_json", "domain_json", "domain_rows",
           "exercise_spec", "input_box", "interval_bounds", "is_delta_zero", "merged_lower", "relu_box", "is_proportional", "is_zero_neuron",
           "network_digest", "parameter_offsets", "parameter_places"]
