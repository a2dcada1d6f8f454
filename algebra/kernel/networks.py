"""Exact rewrites and fingerprints of ReLU networks shared by deciders and checkers.

Each function is short, exact over Q, and does no search: the difference network ``a − b``,
the contraction of a hidden layer that is affine on a domain, the zero-neuron test and the
removal of zero neurons, the flat
parameter offsets and the checkpoint digest of a network.
"""

from __future__ import annotations

import hashlib

from algebra.array_replay import exact_row_dot
from algebra.linalg import QMatrix
from algebra.network import Network, guard_conversion
from algebra.rationals import Q, q_str

from .intervals import interval_bounds

__all__ = ["difference_network", "contract_layer", "is_zero_neuron", "drop_zero_neurons", "parameter_offsets",
           "network_digest", "box_input_map", "compose_input_map", "compose_slice_map"]


def difference_network(a: Network, b: Network) -> Network:
    """The network ``D = a − b``: *a* and *b* side by side.

    The first layer is ``[W_a1; W_b1]``, hidden layers are block diagonal (a's neurons first,
    then b's), the output layer is ``[W_aL, −W_bL]`` with bias ``b_aL − b_bL``.  Networks of
    different depths: the shallower one is first padded with layers computing
    ``y = σ(y) − σ(−y)`` (exact).  Depth 1 (both affine): ``W_a − W_b``, ``b_a − b_b``.

    Parameters
    ----------
    a, b : Network
        Networks with the same signature.

    Returns
    -------
    Network
        ``D`` with ``D(x) = a(x) − b(x)`` for every x.

    Examples
    --------
    >>> a = Network.from_rows([[[1]], [[2]]], [[0], [1]])
    >>> difference_network(a, a)([3])
    (0,)
    """
    ws, bs = [], []
    L = a.depth
    if b.depth != L:
        depth = max(a.depth, b.depth)
        return difference_network(_pad(a, depth), _pad(b, depth))
    wa, wb = a.widths, b.widths             # (two 1024-4096-1024 blocks: 20 s in one pass, s49)
    guard_conversion(sum((wa[l] + wb[l]) * (wa[l + 1] + wb[l + 1]) for l in range(L)),
                     "a − b's exact matrices")
    for l in range(L):
        Wa, ba = a.layer(l)
        Wb, bb = b.layer(l)
        if l == 0 and L == 1:
            ws.append(Wa - Wb)
            bs.append([u - v for u, v in zip(ba, bb)])
        elif l == 0:
            ws.append(QMatrix.vstack([Wa, Wb]))
            bs.append(list(ba) + list(bb))
        elif l == L - 1:
            ws.append(QMatrix.hstack([Wa, -Wb]))
            bs.append([u - v for u, v in zip(ba, bb)])
        else:
            ws.append(QMatrix.vstack([QMatrix.hstack([Wa, QMatrix.zeros(Wa.nrows, Wb.ncols)]),
                                      QMatrix.hstack([QMatrix.zeros(Wb.nrows, Wa.ncols), Wb])]))
            bs.append(list(ba) + list(bb))
    return Network(ws, bs)


def contract_layer(Ws, bs, l, d, lo_hi, bounds=None):
    """Remove hidden layer *l*, composed into layer ``l + 1``, when it is affine on the domain.

    Every neuron of layer *l* must be always active (interval lower bound ``>= 0``: σ(z) = z) or
    dead (upper bound ``<= 0``: σ(z) = 0) on the domain.  With ``S = diag(1 if active else 0)``
    the next layer becomes ``W_{l+1} S W_l`` with bias ``W_{l+1} S b_l + b_{l+1}``: the same
    function on the domain, one hidden layer less.

    Parameters
    ----------
    Ws, bs : list of lists of rows, list of bias lists
        The layers of the network (rows of exact rationals).
    l : int
        The hidden layer to remove (0-based).
    d : int
        Number of inputs.
    lo_hi : None, "orthant" or (lo, hi)
        The domain: R^d, the closed orthant or the cube ``[lo, hi]^d``.
    bounds : list of (lo, hi), optional
        The interval bounds of layer *l* if the caller has them (else computed with
        :func:`interval_bounds`).

    Returns
    -------
    (Ws', bs')
        The contracted layers (lists, as given).

    Raises
    ------
    ValueError
        Naming the first neuron that is neither provably always active nor provably dead.

    Examples
    --------
    >>> Ws, bs = [[[1]], [[1]], [[2]]], [[0], [1], [-2]]      # 2 relu(relu(x) + 1) - 2
    >>> Ws2, bs2 = contract_layer(Ws, bs, 1, 1, None)
    >>> [[list(map(str, r)) for r in W] for W in Ws2], [list(map(str, c)) for c in bs2]
    ([[['1']], [['2']]], [['0'], ['0']])
    """
    mask = []
    if bounds is None:
        bounds = interval_bounds(Ws[:l + 1], bs[:l + 1], d, lo_hi)[l]
    for i, (lo, hi) in enumerate(bounds):
        if lo is not None and lo >= 0:
            mask.append(1)
        elif hi is not None and hi <= 0:
            mask.append(0)
        else:
            raise ValueError(f"neuron {i} of hidden layer {l} is neither provably always active "
                             "nor provably dead (interval bounds)")
    ncols = len(Ws[l - 1]) if l else d
    W = QMatrix.diagonal(mask) @ QMatrix.from_rows(Ws[l], ncols=ncols)
    c = QMatrix.diagonal(mask) @ QMatrix.column(bs[l])
    Wn = QMatrix.from_rows(Ws[l + 1], ncols=len(Ws[l]))
    new_W = (Wn @ W).to_rows()
    new_b = [u + v for u, v in zip((Wn @ c).col_at(0), bs[l + 1])]
    return Ws[:l] + [new_W] + Ws[l + 2:], bs[:l] + [new_b] + bs[l + 2:]


def is_zero_neuron(net: Network, t: int, j: int) -> bool:
    """True when neuron *j* of hidden layer *t* (0-based) has a zero incoming row and zero bias.

    Its pre-activation is then identically 0; it is taken as inactive and never branched on.

    Examples
    --------
    >>> net = Network.from_rows([[[1], [0]], [[1, 1]]], [[0, 0], [0]])
    >>> is_zero_neuron(net, 0, 0), is_zero_neuron(net, 0, 1)
    (False, True)
    """
    W, b = net.layer(t)
    return b[j] == 0 and all(v == 0 for v in W.row_at(j))


def drop_zero_neurons(net: Network) -> Network:
    """*net* without its hidden neurons of zero row and zero bias (:func:`is_zero_neuron`) and
    their outgoing columns: the same function everywhere (such a neuron outputs relu(0) = 0).
    A layer keeps its first neuron when all of its neurons are zero (no layer of width 0).

    >>> net = Network.from_rows([[[1], [0], [2]], [[1, 5, 1]]], [[0, 0, -1], [3]])
    >>> small = drop_zero_neurons(net)
    >>> small.widths, small([2]) == net([2])
    ((1, 2, 1), True)
    """
    Ws = [W.to_rows() for W in net.weights]
    bs = [list(b) for b in net.biases]
    for t in range(len(Ws) - 1):
        keep = [j for j in range(len(Ws[t])) if bs[t][j] != 0 or any(v != 0 for v in Ws[t][j])] or [0]
        Ws[t], bs[t] = [Ws[t][j] for j in keep], [bs[t][j] for j in keep]
        Ws[t + 1] = [[row[j] for j in keep] for row in Ws[t + 1]]
    return Network([QMatrix.from_rows(W, ncols=(len(Ws[t - 1]) if t else net.n_inputs))
                    for t, W in enumerate(Ws)], bs)


def parameter_offsets(net: Network) -> list[int]:
    """Flat index of the first parameter of each layer (the order of :mod:`algebra.network`:
    per layer, ``W_l`` row by row, then ``b_l``).

    Examples
    --------
    >>> parameter_offsets(Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]]))
    [0, 4]
    """
    offs, k = [], 0
    for w in net.weights:
        offs.append(k)
        k += w.nrows * (w.ncols + 1)
    return offs


def parameter_places(net: Network, indices) -> list[tuple]:
    """``(layer l, row i, column k)`` of each flat parameter index (W_l[i, k]), k None for the
    bias b_l[i] (the order of :func:`parameter_offsets`).

    >>> parameter_places(Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]]), [0, 1, 2, 3, 4, 6])
    [(0, 0, 0), (0, 1, 0), (0, 0, None), (0, 1, None), (1, 0, 0), (1, 0, None)]
    """
    offs, out = parameter_offsets(net), []
    for c in indices:
        l = max(t for t in range(len(offs)) if offs[t] <= c)
        W, q = net.weights[l], c - offs[l]
        out.append((l,) + (divmod(q, W.ncols) if q < W.nrows * W.ncols else (q - W.nrows * W.ncols, None)))
    return out


def network_digest(net: Network) -> str:
    """Checkpoint digest: the first 16 hex digits of a SHA-256 of the network.

    Hashes the widths, every bias and the exact products ``W_l r`` with fixed integer vectors
    ``r`` (one product per layer, so checkpoints stay cheap for large nets).  Digests detect
    mutated symmetry steps; no claim rests on them alone.  A layer kept as exact integer arrays
    (a network read from a float file, :meth:`~algebra.network.Network.integer_weights`) is
    hashed from its arrays (``N r`` in exact integer limbs, over ``D``): the same string as the
    rational route, without building its rational matrix.

    Examples
    --------
    >>> net = Network.from_rows([[[1]], [[2]]], [[0], [1]])
    >>> network_digest(net) == network_digest(Network.from_rows([[[1]], [[2]]], [[0], [1]]))
    True
    >>> network_digest(net) == network_digest(net.with_parameter("b2[0]", 2))
    False
    """
    parts = [",".join(map(str, net.widths))]
    for l, b in enumerate(net.biases):
        ncols = net.widths[l]
        r = [(j * 40503 + 7) % 65521 + 1 for j in range(ncols)]
        hint = net.integer_weights(l)
        if hint is not None:
            N, D = hint
            y = [Q(x, int(D)) for x in exact_row_dot(N, r)]
        else:
            y = net.layer(l)[0].apply(r)
        parts.append(",".join(q_str(x) for x in y))
        parts.append(",".join(q_str(x) for x in b))
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


def box_input_map(lo, hi):
    """``(center, scale)`` of the affine bijection ``u ↦ x = center + scale ⊙ u`` from the cube
    ``[−1, 1]^d`` onto the box ``∏ [lo_i, hi_i]``, or None when some side is infinite or has
    width 0 (no bijection).

    >>> box_input_map([0, -2], [1, 2])
    ([1/2, 0], [1/2, 2])
    """
    if any(v is None for v in list(lo) + list(hi)):
        return None
    lo, hi = [Q(v) for v in lo], [Q(v) for v in hi]
    if any(h <= l for l, h in zip(lo, hi)):
        return None
    return [(l + h) / 2 for l, h in zip(lo, hi)], [(h - l) / 2 for l, h in zip(lo, hi)]


def compose_input_map(net: Network, center, scale) -> Network:
    """The network ``u ↦ net(center + scale ⊙ u)``: first layer ``W1 diag(scale)``, bias
    ``b1 + W1 center``; the other layers unchanged.  With every ``scale_i ≠ 0`` the map of
    parameters ``θ ↦ θ'`` is a linear bijection (three-layer-fibers R36).

    >>> net = Network.from_rows([[[2, 1]], [[1]]], [[1], [0]])
    >>> compose_input_map(net, [1, 0], [3, 1]).weights[0].to_rows(), compose_input_map(net, [1, 0], [3, 1]).biases[0]
    ([[6, 1]], (3,))
    """
    W, b = net.layer(0)
    rows = W.to_rows()
    c, s = [Q(v) for v in center], [Q(v) for v in scale]
    W1 = [[w * sc for w, sc in zip(r, s)] for r in rows]
    b1 = [bi + sum((w * ci for w, ci in zip(r, c)), Q(0)) for r, bi in zip(rows, b)]
    return Network([QMatrix.from_rows(W1)] + list(net.weights[1:]), [b1] + list(net.biases[1:]))


def compose_slice_map(net: Network, lo, hi) -> Network | None:
    """The network ``u ↦ net(x)`` of the free coordinates ``F`` (``lo_i < hi_i``) of a box some
    of whose sides have width 0 (a slice): ``x_F = c_F + s_F ⊙ u`` on ``[−1, 1]^|F|``, ``x_k =
    lo_k`` on the others; first layer ``W1[:, F] diag(s_F)``, bias ``b1 + W1 c``.  None unless
    every side is finite, ``lo <= hi``, and some but not all sides have width 0.  The map of
    parameters is linear and onto (the weights of the fixed columns move the function only as
    the biases do): the functional dimension on the slice is this network's on the cube, its
    fiber dimension that of this network plus ``n1`` per fixed coordinate (three-layer-fibers
    R36 (b)).

    >>> net = Network.from_rows([[[2, 1]], [[1]]], [[1], [0]])
    >>> s = compose_slice_map(net, [0, 3], [2, 3])
    >>> s.weights[0].to_rows(), s.biases[0]
    ([[2]], (6,))
    """
    if any(v is None for v in list(lo) + list(hi)):
        return None
    lo, hi = [Q(v) for v in lo], [Q(v) for v in hi]
    free = [i for i, (l, h) in enumerate(zip(lo, hi)) if l < h]
    if any(h < l for l, h in zip(lo, hi)) or not free or len(free) == len(lo):
        return None
    c = [(l + h) / 2 for l, h in zip(lo, hi)]
    W, b = net.layer(0)
    rows = W.to_rows()
    W1 = [[r[i] * (hi[i] - lo[i]) / 2 for i in free] for r in rows]
    b1 = [bi + sum((w * ci for w, ci in zip(r, c)), Q(0)) for r, bi in zip(rows, b)]
    return Network([QMatrix.from_rows(W1)] + list(net.weights[1:]), [b1] + list(net.biases[1:]))


def _pad(net, depth):
    """Append layers computing ``y = σ(y) − σ(−y)`` after the last hidden layer until *depth*."""
    while net.depth < depth:
        W, bias = net.layer(net.depth - 1)
        m = W.nrows
        ws = list(net.weights[:-1]) + [QMatrix.vstack([W, -W]),
                                       QMatrix.hstack([QMatrix.identity(m), -QMatrix.identity(m)])]
        bs = list(net.biases[:-1]) + [list(bias) + [-v for v in bias], [Q(0)] * m]
        net = Network(ws, bs)
    return net
