"""Exact functional equivalence of ReLU networks of any depth.

* :mod:`.dispatch` — :func:`equivalent`, :func:`is_equivalent`, :func:`could_be_equivalent`:
  the fast paths (shallow, bottleneck) when their hypotheses hold, else the general method;
* :mod:`.general` — the general method (refute, contract, reduce a − b, walk its regions);
* :mod:`.refutation` — cheap exact refutation at well-chosen rational points;
* :mod:`.reduction` — exact function-preserving reductions (:func:`simplify`, the reduction of
  a − b, contraction of affine layers, interval bounds of pre-activations);
* :mod:`.deviation` — the exact maximum deviation of two networks on a box.
"""

from .deviation import Deviation, max_deviation
from .dispatch import METHODS, could_be_equivalent, equal_first, equivalent, is_equivalent
from .reduction import contract_affine_layers, preactivation_bounds, reduced_difference, simplify
from .refutation import refutation_points

__all__ = ["METHODS", "equal_first", "equivalent", "is_equivalent", "could_be_equivalent",
           "refutation_points", "simplify", "preactivation_bounds", "reduced_difference",
           "contract_affine_layers", "Deviation", "max_deviation"]
