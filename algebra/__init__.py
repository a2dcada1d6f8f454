"""netfibers.algebra — exact objects: rationals, matrices and polynomials over Q, ReLU networks
with rational parameters, blocks, symmetry actions and conservation laws.

This package never imports ``semialgebraic``.
"""

from .exceptions import (AlgebraError, DimensionMismatchError, IncompatibleRingError,
                         InexactInputError, InputError, MissingDependencyError, ParseError,
                         SingularMatrixError)
from .rationals import Q, from_float, q_json, q_str, to_fraction, to_q
from .linalg import QMatrix
from .polynomials import Polynomial, Ring, parameter_ring
from .network import Network
from .kernel.domains import Domain
from .blocks import Block
from .io import load, save
from .conservation import Laws, conservation_laws

__version__ = "0.1.0"

__all__ = [
    "AlgebraError", "DimensionMismatchError", "IncompatibleRingError", "InexactInputError",
    "InputError", "MissingDependencyError", "ParseError", "SingularMatrixError",
    "Q", "from_float", "q_json", "q_str", "to_fraction", "to_q",
    "QMatrix", "Polynomial", "Ring", "parameter_ring", "Network", "Domain", "Block", "load", "save",
    "Laws", "conservation_laws",
    "__version__",
]
