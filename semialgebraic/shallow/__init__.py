"""One hidden layer, ``f(x) = V σ(W x + b) + c``: canonical form, equivalence, fiber.

Modules: :mod:`~semialgebraic.shallow.canonical` (the canonical form on R^d and on the orthant,
with its proof), :mod:`~semialgebraic.shallow.equivalence` (:func:`equivalent_shallow` with
certificates, separating points), :mod:`~semialgebraic.shallow.paths` (symmetry paths of the
certificates), :mod:`~semialgebraic.shallow.float32_exact` (the proven-exact float64 path for
float32 weights), :mod:`~semialgebraic.shallow.fiber` (:func:`fiber_shallow`, κ₊ by exact LP),
:mod:`~semialgebraic.shallow.dimension_bounds` (the two exact bounds of the fiber dimension) and
:mod:`~semialgebraic.shallow.analysis` (the ``netfibers analyze`` report).  This ``__init__`` is
the one place that re-exports their public names.
"""

from .analysis import analysis_shallow
from .canonical import (ShallowCanonicalForm, canonical_form, hyperplane_key,
                        is_switching_on_orthant, neuron_types)
from .dimension_bounds import jacobian_rank_bound, symmetry_tangent_rank
from .equivalence import equivalent_shallow, point_on_hyperplane, separating_point
from .fiber import (ShallowFiber, ShallowFiberComponent, fiber_shallow, positive_factor_rank,
                    positive_in_row_space)
from .float32_exact import Float32Comparison, compare_float32
from .paths import symmetry_path

__all__ = ["ShallowCanonicalForm", "canonical_form", "equivalent_shallow", "symmetry_path",
           "separating_point", "point_on_hyperplane", "neuron_types", "is_switching_on_orthant",
           "hyperplane_key", "compare_float32", "Float32Comparison", "ShallowFiber",
           "ShallowFiberComponent", "fiber_shallow", "analysis_shallow", "positive_factor_rank",
           "positive_in_row_space", "symmetry_tangent_rank", "jacobian_rank_bound"]
