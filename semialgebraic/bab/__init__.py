"""Exact branch and bound (issue 15): certified intervals on ``max |a − b|`` over a box.

:func:`diff_bounds` bounds ``max_o max_{x in box} |a_o(x) − b_o(x)|`` (two objectives ``± (a_o −
b_o)`` per output, :func:`.search.bound_objective` on the difference network) and returns a
``bab_bound`` certificate re-checked by :mod:`semialgebraic.verify.bab_bound`;
:func:`epsilon_equivalent` decides ``max |a − b| <= ε``.
"""

from .diff import BabResult, diff_bounds, epsilon_equivalent
from .search import ObjectiveBound, bound_objective

__all__ = ["BabResult", "diff_bounds", "epsilon_equivalent", "ObjectiveBound", "bound_objective"]
