"""netfibers — one import for the public API of :mod:`algebra` and :mod:`semialgebraic`.

A thin package: every name below is the very object defined in ``algebra`` (exact objects) or
``semialgebraic`` (decisions and certificates), re-exported with explicit names; nothing is
defined here.  ``algebra`` and ``semialgebraic`` stay the importable top-level packages.

``__version__`` has one source of truth, ``algebra.__version__``: ``pyproject.toml`` reads it
(``[tool.setuptools.dynamic] version = {attr = "algebra.__version__"}``), so the installed
distribution, ``netfibers --version`` and ``netfibers.__version__`` agree.

Importing netfibers imports neither sympy nor any optional package (torch, onnx).

>>> import netfibers
>>> a = netfibers.Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
>>> b = netfibers.Network.from_rows([[[-1], [2]], [[1, "1/2"]]], [[1, 0], [0]])   # rows swapped, scaled
>>> netfibers.equivalent(a, b).answer
True
"""

from algebra import (AlgebraError, DimensionMismatchError, IncompatibleRingError,
                     InexactInputError, InputError, Laws, MissingDependencyError, Network,
                     ParseError, Polynomial, Q, QMatrix, Ring, SingularMatrixError,
                     __version__, conservation_laws, from_float, load, parameter_ring, q_json,
                     q_str, save, to_q)
from semialgebraic import (BasicSet, BudgetExceededError, CertificateError, Dimension, Fiber,
                           Hypothesis, InfeasibleError, NonGenericError, NotApplicableError,
                           Polyhedron, Region, SemialgebraicError, SemialgebraicSet,
                           UnboundedError, UndecidedError, Verdict, absorbable, canonical_form,
                           could_be_equivalent, equivalent, equivalent_bottleneck,
                           equivalent_shallow, feasible, fiber, functional_dimension,
                           functional_dimension_certificate, identifiability, is_equivalent,
                           is_feasible, max_deviation, number_of_regions, optimize, regions,
                           structure, verify)

__all__ = [
    # algebra
    "AlgebraError", "DimensionMismatchError", "IncompatibleRingError", "InexactInputError",
    "InputError", "MissingDependencyError", "ParseError", "SingularMatrixError",
    "Q", "from_float", "q_json", "q_str", "to_q",
    "QMatrix", "Polynomial", "Ring", "parameter_ring", "Network", "load", "save",
    "Laws", "conservation_laws",
    # semialgebraic
    "BudgetExceededError", "CertificateError", "InfeasibleError", "NonGenericError",
    "NotApplicableError", "SemialgebraicError", "UnboundedError", "UndecidedError",
    "Hypothesis", "Verdict", "BasicSet", "Dimension", "SemialgebraicSet", "Polyhedron",
    "feasible", "is_feasible", "optimize", "Region", "number_of_regions", "regions",
    "canonical_form", "equivalent_shallow", "equivalent_bottleneck", "identifiability",
    "structure", "Fiber", "fiber", "could_be_equivalent", "equivalent", "is_equivalent",
    "max_deviation", "functional_dimension", "functional_dimension_certificate", "absorbable",
    "verify",
    "__version__",
]
