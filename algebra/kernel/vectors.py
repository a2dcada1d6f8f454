"""Exact tests on rational vectors."""

from __future__ import annotations

from typing import Sequence

from algebra.rationals import Q

__all__ = ["is_proportional"]


def is_proportional(u: Sequence[Q], g: Sequence[Q]) -> Q | None:
    """The factor μ with ``u = μ g`` (g non-zero), or None when there is none.

    μ may be 0 (u = 0) or negative.

    Raises
    ------
    ValueError
        If *g* is the zero vector.

    Examples
    --------
    >>> is_proportional([Q(2), Q(-4)], [Q(1), Q(-2)]), is_proportional([Q(1), Q(1)], [Q(1), Q(2)])
    (2, None)
    """
    for gi, ui in zip(g, u):
        if gi != 0:
            mu = ui / gi
            break
    else:
        raise ValueError("zero facet row")
    if all(ui == mu * gi for ui, gi in zip(u, g)):
        return mu
    return None
