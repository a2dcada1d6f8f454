"""netfibers.semialgebraic — sets and decisions: semi-algebraic sets, exact LP, linear regions,
fibers, the symmetry graph, equivalence, identifiability, absorption, dimension, certificates
and the ``netfibers`` command.

The public API (ARCHITECTURE.md) is re-exported here with explicit names, so "where is X
defined?" has a one-hop answer.
"""

from .exceptions import (BudgetExceededError, CertificateError, InfeasibleError, NonGenericError,
                         NotApplicableError, SemialgebraicError, UnboundedError, UndecidedError)
from .verdict import Hypothesis, Verdict
from .budget import Budget
from .sets import BasicSet, Dimension, Polyhedron, SemialgebraicSet
from .lp import feasible, is_feasible, optimize
from .regions import Region, number_of_regions, regions
from .shallow import canonical_form, equivalent_shallow
from .bottleneck import equivalent_bottleneck, structure
from ._fiber import Fiber, fiber
from .equivalence import could_be_equivalent, equivalent, is_equivalent, max_deviation
from .dimension import functional_dimension, functional_dimension_certificate
from .absorption import absorbable
from .bab import diff_bounds, epsilon_equivalent
from .verify import verify
from .deep import identifiability    # any network: R41/R42, R18, planted copies

__all__ = [
    "BudgetExceededError", "CertificateError", "InfeasibleError", "NonGenericError",
    "NotApplicableError", "SemialgebraicError", "UnboundedError", "UndecidedError",
    "Hypothesis", "Verdict", "Budget", "BasicSet", "Dimension", "SemialgebraicSet", "Polyhedron",
    "feasible", "is_feasible", "optimize", "Region", "number_of_regions", "regions",
    "canonical_form", "equivalent_shallow", "equivalent_bottleneck", "identifiability",
    "structure", "Fiber", "fiber", "could_be_equivalent", "equivalent", "is_equivalent",
    "max_deviation", "functional_dimension", "functional_dimension_certificate", "absorbable",
    "verify", "diff_bounds", "epsilon_equivalent",
]
