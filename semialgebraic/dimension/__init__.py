"""The functional dimension of a ReLU network (exact, certified) and the decisions behind it.

* :mod:`.functional` — :func:`functional_dimension` (the sandwich of exact lower and upper bounds);
* :mod:`.result` — :class:`FunctionalDimension`;
* :mod:`.certificate` — :func:`functional_dimension_certificate`;
* :mod:`.nongeneric` — θ where no input is a differentiable point, and the values nearby;
* :mod:`.directions` — the proven kernel directions (:func:`symmetry_directions`, upper bound);
* :mod:`.jacobian` — Jacobian rows exact and mod p (:func:`jacobian_rows`, lower bound);
* :mod:`.sampling` — the choice of the inputs of the rows;
* :mod:`.jacobian_columns` — is a parameter's Jacobian column non-zero somewhere
  (:func:`exercise`, :func:`incoming_directions`);
* :mod:`.suspects` — exact decisions for what the samples flag;
* :mod:`.upper` — the decider's side of a certified upper bound.
"""

from .certificate import functional_dimension_certificate
from .directions import symmetry_directions
from .functional import functional_dimension
from .jacobian import exact_jacobian_rows, exact_rank, jacobian_rows
from .jacobian_columns import Exercise, check_exercise_proof, exercise, incoming_directions
from .result import FunctionalDimension
from .upper import checked_directions_bound, directions_bound, entry_vectors, is_regions_rank

__all__ = ["FunctionalDimension", "functional_dimension", "functional_dimension_certificate",
           "jacobian_rows", "exact_jacobian_rows", "exact_rank", "symmetry_directions", "Exercise",
           "exercise", "check_exercise_proof", "incoming_directions", "entry_vectors",
           "directions_bound", "checked_directions_bound", "is_regions_rank"]
