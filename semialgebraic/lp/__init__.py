"""Exact linear programming over Q, with certificates.

* :mod:`.exact` — :func:`feasible` (an exact point, or a Motzkin/Farkas certificate of
  infeasibility) and :func:`optimize` (an exact optimum with its dual certificate, or an
  unbounded direction);
* :mod:`.certificates` — the systems, the result types and their exact checks;
* :mod:`.floatlp` — HiGHS guesses turned into exact points and certificates (never a decision);
* :mod:`.simplex` — the exact simplex over Q (Bland's rule) that decides when a guess fails.
"""

from .certificates import LPOptimum, LPResult, LPSystem, check_infeasibility_certificate, dot
from .exact import METHODS, feasible, is_feasible, optimize
from .floatlp import FloatLP

__all__ = ["LPResult", "LPOptimum", "LPSystem", "feasible", "is_feasible", "optimize",
           "check_infeasibility_certificate", "FloatLP", "METHODS", "dot"]
