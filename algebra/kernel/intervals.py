"""Exact interval bounds of every pre-activation of a ReLU network over a domain.

Layer by layer with :func:`algebra.linalg.interval_image` (exact, two matrix products per
layer): sound, not tight in general, never a search.
"""

from __future__ import annotations

from algebra.linalg import interval_image
from algebra.rationals import Q

from .domains import Domain

__all__ = ["interval_bounds"]


def interval_bounds(Ws, bs, d, lo_hi, start=None):
    """Exact bounds ``(lo, hi)`` (``None`` = unbounded) of every pre-activation over the domain.

    Parameters
    ----------
    Ws, bs : lists of rows, lists of bias vectors
        Layers ``W_l``, ``b_l`` (exact rationals); ReLU is applied between consecutive layers.
    d : int
        Number of inputs.
    lo_hi : None, "orthant", (lo, hi) or Domain
        The domain: R^d, the closed orthant, the cube ``[lo, hi]^d``, or a
        :class:`~algebra.kernel.domains.Domain` (box ∩ half-spaces), bounded over its box part
        or its proved bounding box (:meth:`~algebra.kernel.domains.Domain.intervals`: a superset,
        so the bounds are sound).
    start : list of (lo, hi), optional
        The bounds of the pre-activations of the layer before ``Ws[0]``: the layers continue a
        network whose earlier bounds are known (*d* and *lo_hi* are then not used).

    Returns
    -------
    list of lists of (lo, hi)
        One list per layer of *Ws*: ``lo <= W_l h + b_l <= hi`` for every input of the domain.

    Examples
    --------
    >>> out = interval_bounds([[[1], [-1]], [[1, 1]]], [[0, 1], [-3]], 1, (Q(-1), Q(2)))
    >>> [[(str(lo), str(hi)) for lo, hi in layer] for layer in out]
    [[('-1', '2'), ('-1', '2')], [('-3', '1')]]
    """
    if start is not None:
        box = [(Q(0) if lo is None or lo < 0 else lo, None if hi is None else max(hi, Q(0)))
               for lo, hi in start]
    elif lo_hi is None:
        box = [(None, None)] * d
    elif isinstance(lo_hi, Domain):
        box = lo_hi.intervals()
    elif lo_hi == "orthant":
        box = [(Q(0), None)] * d
    else:
        box = [lo_hi] * d
    out = []
    for l in range(len(Ws)):
        layer = interval_image(Ws[l], box, bs[l])
        out.append(layer)
        box = [(Q(0) if lo is None or lo < 0 else lo, None if hi is None else max(hi, Q(0)))
               for lo, hi in layer]
    return out
