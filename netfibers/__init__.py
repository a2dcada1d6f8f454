"""netfibers — one import for the public API of :mod:`algebra` and :mod:`semialgebraic`.

A thin package: every name of ``__all__`` is the very object defined in ``algebra`` (exact
objects) or ``semialgebraic`` (decisions and certificates), re-exported with explicit names
(``_FROM`` says which package defines each); nothing is defined here.  ``algebra`` and
``semialgebraic`` stay the importable top-level packages.  The names are loaded on first use
(PEP 562 ``__getattr__``): ``import netfibers`` alone is instant, so that the console script's
entry point, :func:`netfibers.cli.main`, handles Ctrl-C before the heavy imports (flint, HiGHS,
networkx) start.

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

import importlib as _importlib

_ALGEBRA = ("AlgebraError", "DimensionMismatchError", "IncompatibleRingError",
            "InexactInputError", "InputError", "MissingDependencyError", "ParseError",
            "SingularMatrixError", "Q", "from_float", "q_json", "q_str", "to_fraction", "to_q",
            "QMatrix", "Polynomial", "Ring", "parameter_ring", "Network", "Domain", "Block", "load", "save",
            "Laws", "conservation_laws", "__version__")
_SEMIALGEBRAIC = (
    "BudgetExceededError", "CertificateError", "InfeasibleError", "NonGenericError",
    "NotApplicableError", "SemialgebraicError", "UnboundedError", "UndecidedError",
    "Hypothesis", "Verdict", "Budget", "BasicSet", "Dimension", "SemialgebraicSet", "Polyhedron",
    "feasible", "is_feasible", "optimize", "Region", "number_of_regions", "regions",
    "canonical_form", "equivalent_shallow", "equivalent_bottleneck", "identifiability",
    "structure", "Fiber", "fiber", "could_be_equivalent", "equivalent", "is_equivalent",
    "max_deviation", "functional_dimension", "functional_dimension_certificate", "absorbable",
    "verify", "diff_bounds", "epsilon_equivalent")
_FROM = {**dict.fromkeys(_ALGEBRA, "algebra"), **dict.fromkeys(_SEMIALGEBRAIC, "semialgebraic")}

__all__ = [name for name in _FROM if name != "__version__"] + ["__version__"]


def __getattr__(name: str):
    """The re-exported object *name*, imported from its package on first use."""
    if name not in _FROM:
        raise AttributeError(f"module 'netfibers' has no attribute {name!r}")
    value = getattr(_importlib.import_module(_FROM[name]), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
