r"""Opposite pairs of the first hidden layer traded against affine neurons: a move of the fiber
(three-layer-fibers R40, its ``opposite_trade`` entry; the counts audit of session 37, F3).

For a pair of first-layer neurons with opposite rows, ``(w_q, b_q) = −s (w_p, b_p)``, ``s > 0``,
``relu(z_q) = s (relu(z_p) − z_p)``, so moving outgoing weight ``δ`` onto ``p`` and ``−δ/s``
onto ``q`` adds ``δ z_p``, an affine function of the input.  Neurons always active on the
domain (the *block* B, ``h_B = W_B x + b_B``) make affine functions too: outgoing weights ``X``
on them add ``X (W_B x + b_B)``.  So for every ``(δ, X)`` with ``Σ_g δ_g w_{p_g} + X W_B = 0``
(a left-kernel vector of the stacked rows ``M = [w_{p_1}; …; W_B]``) and every row ``k`` of the
next layer, the straight line

    ``W_1[k, p_g] += t δ_g``, ``W_1[k, q_g] −= t δ_g / s_g``, ``W_1[k, B] += t X``,
    ``b_1[k] −= t (Σ_g δ_g b_{p_g} + X b_B)``

keeps ``z_1[k]`` as a function, hence the network's.  The rows of layer 0 do not move, so the
kernel is the same all along the line.  For the floor the move must also exist at the points
the other moves reach (their rows of layer 0 change only by scalings, the block's own moves,
which keep it active with a margin): when ``rank M = d`` (the input dimension, so ``rank M`` is
the same at every point near θ) the left kernel has one dimension near θ and its vectors are
continuous, so the trades applied after every other move (before the scalings) span their
kernel at θ as tangents of the fiber.  Without it (``rank M < d``) the kernel can shrink under a
small move of the block's rows (two equal block rows moved apart), and no trade is claimed.

The decider lists ``{"pairs": [[p, q], …], "block": [i, …], "moves": [[δ…, X…], …]}``; the
checker (:mod:`semialgebraic.verify.functional_dimension_fiber`) re-derives every fact and
rebuilds the vectors on its own.
"""

from __future__ import annotations

from algebra.kernel import parameter_offsets
from algebra.linalg import QMatrix
from algebra.linalg.gfp import exact_rank
from algebra.network import Network
from algebra.rationals import Q

__all__ = ["opposite_rows", "opposite_trade", "trade_vectors"]

TRADE_ENTRIES = 4 * 10 ** 4
"""At most this many entries in the stacked rows M of a trade (its rank and left kernel are
exact over Q); past it no trade is claimed (the floor is then lower, still a floor)."""


def opposite_rows(net: Network, l: int, excluded) -> list[list[int]]:
    """Pairs ``[p, q]`` of hidden layer *l* with ``(w_q, b_q) = −s (w_p, b_p)``, ``s > 0`` and
    ``w_p != 0``, neither in *excluded*: per hyperplane the first neuron of one orientation with
    every neuron of the other, and the others of the first orientation with the first of the
    other (the remaining combinations differ from these by outgoing trades of parallel
    neurons).

    >>> net = Network.from_rows([[[1], [-2], [3], [0]], [[1, 1, 1, 1]]], [[1, -2, 3, 1], [0]])
    >>> opposite_rows(net, 0, set())
    [[0, 1], [2, 1]]
    """
    W, b = net.layer(l)
    groups: dict = {}
    for i in range(W.nrows):
        if i in excluded:
            continue
        row = list(W.row_at(i))
        lead = next((v for v in row if v != 0), None)
        if lead is None:
            continue
        key = tuple(v / abs(lead) for v in row + [b[i]])
        neg = tuple(-v for v in key)
        if neg in groups:
            groups[neg][1].append(i)
        else:
            groups.setdefault(key, ([], []))[0].append(i)
    out = []
    for pos, opp in groups.values():
        if pos and opp:
            out += [[pos[0], q] for q in opp] + [[p, opp[0]] for p in pos[1:]]
    return out


def opposite_trade(net: Network, l: int, pairs, block) -> dict | None:
    """The ``opposite_trade`` entry's ``{"pairs", "block", "moves"}`` for *pairs* (of
    :func:`opposite_rows`) and the always-active neurons *block* of hidden layer *l* = 0, or
    None: no pair, ``rank M < d``, M past :data:`TRADE_ENTRIES`, or no move (the module
    docstring).  ``moves``: left-kernel vectors of M whose pair parts are independent (a move
    with ``δ = 0`` only moves the block's outgoing weights, left to the block's own moves).

    >>> net = Network.from_rows([[[-3], [1], [3]], [[1, 1, 1]]], [[2, 3, -2], [0]])
    >>> t = opposite_trade(net, 0, [[0, 2]], [1])
    >>> t["pairs"], t["block"], [[str(v) for v in m] for m in t["moves"]]
    ([[0, 2]], [1], [['1', '3']])
    """
    if l != 0 or not pairs:
        return None
    W = net.weights[l]
    d = W.ncols
    rows = [list(W.row_at(p)) for p, _ in pairs] + [list(W.row_at(i)) for i in block]
    if len(rows) * d > TRADE_ENTRIES or len(rows) <= d:
        return None
    M = QMatrix.from_rows(rows, ncols=d)
    if exact_rank(M) != d:
        return None
    kernel = M.T.nullspace()                       # left kernel of M, rows (RREF)
    P = len(pairs)
    moves: list = []
    for r in range(kernel.nrows):
        y = list(kernel.row_at(r))
        if not any(y[:P]):
            continue
        trial = QMatrix.from_rows([m[:P] for m in moves] + [y[:P]], ncols=P)
        if trial.rank() > len(moves):
            moves.append(y)
        if len(moves) == P:
            break
    if not moves:
        return None
    return {"pairs": [list(p) for p in pairs], "block": list(block), "moves": moves}


def trade_vectors(net: Network, l: int, spec: dict, rows) -> list[dict]:
    """The vectors (sparse, flat parameter order) of an ``opposite_trade`` entry *spec* for the
    rows *rows* of layer ``l + 1`` (the module docstring); no fact checked."""
    offs = parameter_offsets(net)
    W, b = net.layer(l)
    V = net.weights[l + 1]
    pairs, block = spec["pairs"], spec["block"]
    ratios = []
    for p, q in pairs:
        c = next(c for c in range(W.ncols) if W[p, c] != 0)
        ratios.append(-W[q, c] / W[p, c])          # s > 0: (w_q, b_q) = −s (w_p, b_p)
    nb = offs[l + 1] + V.nrows * V.ncols
    out = []
    for y in spec["moves"]:
        delta, X = y[:len(pairs)], y[len(pairs):]
        const = sum((dg * b[p] for dg, (p, _) in zip(delta, pairs)), Q(0)) + \
            sum((x * b[i] for x, i in zip(X, block)), Q(0))
        for k in rows:
            v: dict = {}
            for dg, (p, q), s in zip(delta, pairs, ratios):
                v[offs[l + 1] + k * V.ncols + p] = v.get(offs[l + 1] + k * V.ncols + p, Q(0)) + dg
                v[offs[l + 1] + k * V.ncols + q] = v.get(offs[l + 1] + k * V.ncols + q, Q(0)) - dg / s
            for x, i in zip(X, block):
                v[offs[l + 1] + k * V.ncols + i] = v.get(offs[l + 1] + k * V.ncols + i, Q(0)) + x
            v[nb + k] = -const
            out.append(v)
    return out
