"""The functional dimension family (placeholder, filled below)."""

from .functional import (FunctionalDimension, functional_dimension, functional_dimension_certificate,
                         jacobian_rows, symmetry_directions)
from .jacobian_columns import Exercise, check_exercise_proof, exercise, incoming_directions

__all__ = ["FunctionalDimension", "functional_dimension", "functional_dimension_certificate",
           "jacobian_rows", "symmetry_directions", "Exercise", "exercise", "check_exercise_proof",
           "incoming_directions"]
