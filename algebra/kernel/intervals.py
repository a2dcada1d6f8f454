"""Exact interval bounds of every pre-activation of a ReLU network over a domain.

Layer by layer with :func:`algebra.linalg.interval_image` (exact, two matrix products per
layer): sound, not tight in general, never a search.
"""

from __future__ import annotations

from algebra.linalg import interval_image
from algebra.network import guard_conversion
from algebra.rationals import Q

from .domains import Domain

__all__ = ["interval_bounds", "input_box", "merged_lower", "relu_box"]


def interval_bounds(Ws, bs, d, lo_hi, start=None, check=None):
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
    check : callable, optional
        Called between layers and between blocks of rows (a caller's budget; a layer of
        10^5-bit rationals is seconds of FLINT work that no signal stops).

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
    box = relu_box(start) if start is not None else input_box(lo_hi, d)
    out = []
    for l in range(len(Ws)):
        guard_conversion(_entries(Ws[l]), f"layer {l + 1}'s exact interval bounds")   # (a
        if check is not None:                          # (a caller's budget, between blocks
            check()                                    # of rows: :func:`interval_image`)
        layer = interval_image(Ws[l], box, bs[l], check)   # 4096 x 4096 layer: 25 s, no check: s49)
        out.append(layer)
        box = relu_box(layer)
    return out


def _entries(W) -> int:
    if hasattr(W, "nrows"):
        return W.nrows * W.ncols
    return len(W) * (len(W[0]) if len(W) else 0)


def input_box(lo_hi, d):
    """The per-coordinate bounds ``(lo, hi)`` (``None`` = unbounded) of the inputs of the domain
    *lo_hi* (as :func:`interval_bounds`'s) in R^d.

    >>> input_box("orthant", 2)
    [(0, None), (0, None)]
    """
    if lo_hi is None:
        return [(None, None)] * d
    if isinstance(lo_hi, Domain):
        return lo_hi.intervals()
    if lo_hi == "orthant":
        return [(Q(0), None)] * d
    return [tuple(lo_hi)] * d


def relu_box(bounds):
    """The bounds of ``relu(z)`` from the bounds ``(lo, hi)`` of the pre-activations z.

    >>> relu_box([(Q(-1), Q(2)), (None, Q(-3)), (Q(1), None)])
    [(0, 2), (0, 0), (1, None)]
    """
    return [(Q(0) if lo is None or lo < 0 else lo, None if hi is None else max(hi, Q(0)))
            for lo, hi in bounds]


def merged_lower(row, bias, box, groups=()):
    """A lower bound of ``row · h + bias`` over the h with ``h_c`` in ``box[c]`` (``(lo, hi)``,
    ``None`` = unbounded), or None when none is shown (unbounded below), where for each group
    ``(members, ratios)`` of *groups* ``h_m = c_m h_{members[0]}`` exactly (``c_m > 0``, the
    first ratio 1): the group's weights merge into one coefficient ``Σ_m c_m row[m]`` on its
    first member, so that weights which cancel on a group count 0 (three-layer-fibers R40, a
    neuron reading a neuron split in two with weights 1 and −1).

    >>> merged_lower([1, -1, 2], Q(1, 5), [(Q(0), None)] * 3, [([0, 1], [Q(1), Q(1)])])
    1/5
    >>> merged_lower([1, -1, 2], Q(1, 5), [(Q(0), None)] * 3) is None
    True
    """
    coef = list(row)
    for g, cs in groups:
        a = sum((c * coef[m] for c, m in zip(cs, g)), Q(0))
        for m in g:
            coef[m] = Q(0)
        coef[g[0]] = a
    total = Q(bias)
    for a, (lo, hi) in zip(coef, box):
        if a == 0:
            continue
        end = lo if a > 0 else hi
        if end is None:
            return None
        total += a * end
    return total
