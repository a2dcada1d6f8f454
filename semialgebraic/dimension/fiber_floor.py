"""The certified floor of the fiber's dimension (three-layer-fibers R40): moves that keep the
function near θ, listed in a ``functional_dimension`` certificate (``fiber_moves``, claim
``fiber_lower``) and re-checked by :mod:`semialgebraic.verify.functional_dimension_fiber`.

The moves, each valid at every point the others reach (so the fiber holds a family with all
of them as tangents at θ, or at points of the fiber as near θ as one likes, and the rank of
their vectors bounds the fiber's local dimension from below):

* ``["scale", l, i]``: every hidden neuron's positive scaling (S2);
* ``["split_out", l, group]``: neurons whose rows and biases are positive multiples of the
  first's, ``h_m = c_m h_r``: outgoing weight moved between them, ``c_m e(W_{l+1}[k, r]) −
  e(W_{l+1}[k, m])`` for every row k of layer l + 1 that is in no split group of its own layer
  (a trade there would break that group's proportional rows);
* ``["dead", l, i]``: z_l[i] <= 0 on the domain by interval bounds; its incoming weights, bias
  and outgoing weights (those to rows in no split group) move: {(w, b) : w·h + b <= 0 on the
  range of its inputs} is convex with an interior when that range is bounded (a box) or lies in
  the orthant (the orthant's first layer, any later layer: w < 0, b < 0 are inside), so it has
  full dimension at θ; a first-layer neuron on R^d has w = 0, which stays: its bias (b <= 0) and
  outgoing weights move;
* ``["unread", l, i]``: W_{l+1}[:, i] = 0: its incoming weights and bias move (nobody reads it);
* ``["unseen", l, i]``: not dead, and every non-zero outgoing weight goes to an unread or unseen
  neuron of the next layer (:func:`unseen_neurons`): its incoming weights and bias move (the
  change reaches only such neurons, whose outputs reach nobody); like unread neurons, in no
  split group, active block or trade (whose moves could give it an outgoing weight to others);
* ``["active_block", l, B]``: on a cube, the neurons B of hidden layer l always active on it
  (z >= 0 by interval bounds, not identically 0); on the orthant or R^d, neurons whose bias and
  incoming weights are all > 0 and whose inputs are >= 0 (post-ReLU from layer 1 on, the
  orthant's at layer 0), so that z >= b/2 > 0 at every input and every parameter near θ
  (:func:`positive_row`); read, in no split group: their bias trades
  ``e(b_l[i]) − Σ_k W_{l+1}[k, i] e(b_{l+1}[k])``, GL moves (rows ``M (W_B, b_B)``, columns
  ``W_{l+1}[:, B] M^{-1}``: row i += row i2, column i2 −= column i) and rows moved along the
  kernel of ``W_{l+1}[:, B]`` (R34 (f)): a bias trade raises every z_i by ε without changing the
  function (h_i = z_i there), and on a bounded domain the neurons then keep z_i >= ε/2 under
  small moves (positive rows keep z_i >= b_i/2 without it).

* ``["cancelling", l, g]``: a ``split_out`` group g (listed just before it) whose contributions
  cancel, ``Σ_m c_m W_{l+1}[:, m] = 0``: the group's output is 0 whatever its common row is, and
  that row moves, ``Σ_m c_m e(W_l[m, c])`` for every input c of the layer (its bias too) but the
  neurons of layer l − 1's active block (whose (f) directions need ``W_l[:, B]``) and its unread
  and unseen ones (whose outputs must reach nobody) (:func:`cancel_skip`): an exact line in the
  fiber.  The other moves keep the group's rows parallel (the trades of layer l − 1 skip
  the rows of split groups; a block's bias trades and GL moves act on the columns) and its
  contributions cancelling (its own trades move ``c_m`` times a weight onto r against one off m;
  scalings rescale ``c_m`` and the column together); so that no move of layer l + 1 breaks the
  cancelling, none of its neurons reading the group is dead and it has no active block entry,
  and on layer 0 no member is in the trade's pairs.  (A 3-4-1 net with 2 relu(z) − 4 relu(z/2):
  fiber 8, 5 without these moves.)
* ``["opposite_trade", 0, {"pairs", "block", "moves"}]``: first-layer neurons of opposite rows,
  ``(w_q, b_q) = −s (w_p, b_p)``, traded against the always-active neurons ``block`` of the first
  layer (the ones of its ``active_block`` entry, or on a cube with a margin ``z > 0``, and not
  in a split group): per left-kernel vector ``(δ, X)`` of the stacked rows ``[w_p…; W_B]`` of
  rank d (the input dimension) and per row k of layer 1 in no split group, outgoing weight
  ``δ`` onto p, ``−δ/s`` onto q, ``X`` onto the block and the constant onto ``b_1[k]``
  (:mod:`.trades`).  Listed last: these moves are applied after every other one but the
  scalings (they change ``W_1[:, B]``, whose kernel the block's (f) directions need; their own
  facts, the first layer's rows and rank d, hold at every point the others reach).  Pair
  members are not dead, unread, in the block or in the active block's entry.

Neither a dead nor an unread neuron may be in a split group (its moves would break the group's
proportional rows), nor a member of an active block.  The claim is the rank of the vectors mod the network's prime, at most
their rank over Q.  With the certified lower bound L of the functional dimension, the fiber's
dimension is at most N − L (the rank is lower semicontinuous: R40), so ``fiber_lower = N − L``
makes the fiber's dimension exact.
"""

from __future__ import annotations

from algebra.kernel import input_box, interval_bounds, merged_lower, parameter_offsets, relu_box
from algebra.network import Network
from algebra.rationals import Q

from ..budget import checkpoint
from .trades import opposite_rows, opposite_trade, trade_vectors
from .upper import cancel_vectors, proportional_groups, same_mask_vectors

__all__ = ["fiber_floor_moves", "fiber_floor_vectors", "certified_fiber_floor", "unseen_neurons"]


BLOCK_ENTRIES = 3 * 10 ** 4
"""At most this many entries in the active blocks' vectors (their GL directions grow as |B|²:
a 16-64-64-1 net on a small cube, two blocks of 64, made 387 224 entries whose rank took 22 s;
one block of 31 (63 000) 6.3 s; 16-32-32-1, blocks of 32 and 15 (57 000 entries) 2.3 s, and as
long again in the checker).  A block past it is left out: the floor is then lower, still a
floor."""

SECONDS_PER_ENTRY = 1e-4
"""The seconds a vector entry costs the floor's rank (measured on the nets above), for the
certificate's budget (:func:`semialgebraic.dimension.certificate._certificate`)."""


def fiber_floor_moves(net: Network, dom, max_block_entries: int = BLOCK_ENTRIES) -> list:
    """The entries of the module docstring for *net* on *dom* (None: R^d, ``"orthant"``, or a
    cube ``(lo, hi)``); the active blocks only while their vectors' entries stay within
    *max_block_entries* (:data:`BLOCK_ENTRIES`).

    >>> net = Network.from_rows([[[1], [2], [-1]], [[1, 1, 0]]], [[0, 0, -5], [0]])
    >>> fiber_floor_moves(net, (Q(-1), Q(1)))
    [['scale', 0, 0], ['scale', 0, 1], ['scale', 0, 2], ['split_out', 0, [0, 1]], ['dead', 0, 2]]
    """
    Ws = [w.to_rows() for w in net.weights]
    bounds = interval_bounds(Ws, [list(c) for c in net.biases], net.n_inputs, dom, check=checkpoint)
    entries: list = []
    last = None                             # the opposite pairs' trade (module docstring)
    room = max_block_entries
    for l in range(net.depth - 1):
        entries += [["scale", l, i] for i in range(net.widths[l + 1])]
    dead_at = [[i for i, (_, hi) in enumerate(bounds[l]) if hi is not None and hi <= 0]
               for l in range(net.depth - 1)]
    unseen_at = unseen_neurons(net, dead_at)
    for l in range(net.depth - 1):
        W, b, V = Ws[l], net.biases[l], net.weights[l + 1]
        dead = dead_at[l]
        unread = [i for i in range(len(W)) if all(V[k, i] == 0 for k in range(V.nrows))
                  and i not in dead]
        unseen = [i for i in unseen_at[l] if i not in unread]
        unread = unread + unseen            # (moved alike: their rows are free)
        if isinstance(dom, tuple):
            block = [i for i, (lo, hi) in enumerate(bounds[l]) if lo is not None
                     and lo >= 0 and (hi is None or hi > 0) and i not in unread]
        else:                               # unbounded: rows that stay positive (docstring)
            block = [i for i in range(len(W)) if i not in unread and positive_row(W[i], b[i], l, dom)]
        moved = set(dead) | set(unread) | set(block)
        rows = [list(W[i]) + [b[i]] for i in range(len(W))]
        for g in proportional_groups(rows, positive=True):
            g = [i for i in g if i not in moved]
            if len(g) >= 2:
                entries.append(["split_out", l, g])
        entries += [["dead", l, i] for i in dead] + [["unread", l, i] for i in unread if i not in unseen] + \
            [["unseen", l, i] for i in unseen]
        cost = len(block) ** 2 * (len(W[0]) + 1 + V.nrows) if block else 0
        if block and cost <= room:
            room -= cost
            entries.append(["active_block", l, block])
        if l == 0:                          # applied after every other move (module docstring)
            listed = block if entries[-1][0] == "active_block" and entries[-1][1] == 0 else []
            if isinstance(dom, tuple):      # a member off the block's entry needs a margin
                block = [i for i in block if i in listed or bounds[0][i][0] > 0]
            splits = {i for e in entries if e[0] == "split_out" and e[1] == 0 for i in e[2]}
            block = [i for i in block if i not in splits]
            trade = opposite_trade(net, 0, opposite_rows(net, 0, set(dead) | set(unread) | set(block)
                                                         | set(listed)), block)
            if trade is not None:
                last = ["opposite_trade", 0, trade]
    entries = _with_cancelling(net, entries, dead_at, last)
    entries += _bias_trades(net, entries, bounds, dom, last)
    return entries + ([last] if last is not None else [])


def _bias_trades(net: Network, entries: list, bounds, dom, trade) -> list:
    """``["bias_trade", l, i]`` for the neurons shown active on *dom* (z >= 0 by interval bounds
    in which each listed ``split_out`` group of layer l − 1 reads as one neuron,
    :func:`~algebra.kernel.merged_lower`) that no other entry moves: not dead, unread, unseen,
    split, in the layer's active block entry or in the trade (module docstring)."""
    taken = {(e[1], i) for e in entries if e[0] in ("split_out", "active_block") for i in e[2]}
    taken |= {(e[1], e[2]) for e in entries if e[0] in ("dead", "unread", "unseen")}
    if trade is not None:
        taken |= {(0, i) for i in trade[2]["block"]} | {(0, i) for p in trade[2]["pairs"] for i in p}
    out = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        if l == 0:
            box, groups = input_box(dom, W.ncols), []
        else:
            box = relu_box(bounds[l - 1])
            Wp, bp = net.layer(l - 1)
            groups = [(e[2], _group_ratios(Wp, bp, e[2])) for e in entries
                      if e[0] == "split_out" and e[1] == l - 1]
        for i in range(W.nrows):
            if (l, i) in taken:
                continue
            low = merged_lower(list(W.row_at(i)), b[i], box, groups)
            if low is not None and low >= 0:
                out.append(["bias_trade", l, i])
    return out


def _with_cancelling(net: Network, entries: list, dead_at, trade) -> list:
    """*entries* with ``["cancelling", l, g]`` after each ``split_out`` group g whose
    contributions cancel (:func:`~.upper.cancel_ratios`), when no neuron of layer l + 1 that
    reads the group is dead, layer l + 1 has no active block entry, and (layer 0) no member is in
    the trade's pairs (module docstring)."""
    from .upper import cancel_ratios
    L = net.depth - 1
    blocks = {e[1] for e in entries if e[0] == "active_block"}
    pairs = {i for p in (trade[2]["pairs"] if trade is not None else []) for i in p}
    out = []
    for e in entries:
        out.append(e)
        if e[0] != "split_out":
            continue
        l, g = e[1], e[2]
        V = net.weights[l + 1]
        readers = {k for k in range(V.nrows) if any(V[k, m] != 0 for m in g)}
        if l + 1 < L and (l + 1 in blocks or readers & set(dead_at[l + 1])):
            continue
        if l == 0 and pairs & set(g):
            continue
        if cancel_ratios(net, l, g) is not None:
            out.append(["cancelling", l, g])
    return out


def unseen_neurons(net: Network, dead) -> list[list[int]]:
    """Per hidden layer, the neurons not in *dead* (per layer) whose output reaches nobody: from
    the last hidden layer down, a zero outgoing column (unread), or every non-zero outgoing
    weight into such a neuron of the next layer.  Their rows and biases move freely: a change
    reaches only neurons of the set, whose outputs reach nobody.  (A dead neuron is never in
    it: its own moves free its outgoing weights, and its successor's would then see it.)

    >>> net = Network.from_rows([[[1], [1]], [[1, 0], [0, 1]], [[0, 1]]], [[0, 0], [0, 0], [0]])
    >>> unseen_neurons(net, [[], []])
    [[0], [0]]
    """
    L = net.depth - 1
    out: list = [[] for _ in range(L)]
    for l in range(L - 1, -1, -1):
        V = net.weights[l + 1]
        nxt = set(out[l + 1]) if l + 1 < L else set()
        out[l] = [i for i in range(net.widths[l + 1]) if i not in set(dead[l])
                  and all(V[k, i] == 0 or k in nxt for k in range(V.nrows))]
    return out


def positive_row(w, b, l: int, dom) -> bool:
    """Whether a neuron of hidden layer *l* stays active at every input and every parameter near
    θ on an unbounded *dom*: its bias and every incoming weight > 0, and its inputs >= 0 (post-ReLU
    from layer 1 on; the orthant's inputs at layer 0; never on R^d at layer 0)."""
    return (l > 0 or dom == "orthant") and b > 0 and all(x > 0 for x in w)


def fiber_floor_vectors(net: Network, entries, dom) -> list[dict]:
    """The vectors of *entries* (sparse dicts, flat parameter order) on *dom* (None: R^d, where a
    first-layer dead neuron's incoming weights stay 0), no fact checked."""
    offs = parameter_offsets(net)
    split_rows: dict = {}                 # layer -> neurons in a split group of that layer
    for e in entries:
        if e[0] == "split_out":
            split_rows.setdefault(e[1], set()).update(e[2])
    out = []
    for e in entries:
        kind, l = e[0], e[1]
        W, b = net.layer(l)
        V = net.weights[l + 1]
        n_in = W.ncols
        free_rows = [k for k in range(V.nrows) if k not in split_rows.get(l + 1, ())]
        if kind == "split_out":
            g = e[2]
            r = g[0]
            for m, cm in zip(g[1:], _group_ratios(W, b, g)[1:]):
                for k in free_rows:
                    out.append({offs[l + 1] + k * V.ncols + r: cm, offs[l + 1] + k * V.ncols + m: Q(-1)})
            continue
        if kind == "opposite_trade":
            out += trade_vectors(net, l, e[2], free_rows)
            continue
        if kind == "cancelling":
            out += cancel_vectors(net, l, e[2], cancel_skip(entries, l))
            continue
        if kind == "active_block":
            B = e[2]
            nb = offs[l + 1] + V.nrows * V.ncols            # the next layer's biases
            for i in B:                                     # bias trades
                v = {offs[l] + W.nrows * n_in + i: Q(1)}
                for k in range(V.nrows):
                    v[nb + k] = -V[k, i]
                out.append(v)
            for i in B:                                     # GL: row i += row i2, column i2 -= column i
                for i2 in B:
                    if i != i2:
                        v = {offs[l] + i * n_in + c: W[i2, c] for c in range(n_in)}
                        v[offs[l] + W.nrows * n_in + i] = b[i2]
                        for k in range(V.nrows):
                            v[offs[l + 1] + k * V.ncols + i2] = -V[k, i]
                        out.append(v)
            out += same_mask_vectors(net, l, B)            # rows along the kernel of W_{l+1}[:, B]
            continue
        i = e[2]
        win = [offs[l] + i * n_in + c for c in range(n_in)]
        bias = offs[l] + W.nrows * n_in + i
        if kind == "scale":
            v = {k: W[i, c] for c, k in enumerate(win)}
            v[bias] = b[i]
            for k in range(V.nrows):
                v[offs[l + 1] + k * V.ncols + i] = -V[k, i]
            out.append(v)
        elif kind == "dead":                  # (on R^d a first-layer one keeps w = 0)
            out += [{k: Q(1)} for k in (win if l or dom is not None else []) + [bias]]
            out += [{offs[l + 1] + k * V.ncols + i: Q(1)} for k in free_rows]
        elif kind in ("unread", "unseen"):
            out += [{k: Q(1)} for k in win + [bias]]
        elif kind == "bias_trade":            # (t >= 0: z + t >= 0)
            v = {bias: Q(1)}
            v.update({offs[l + 1] + V.nrows * V.ncols + k: -V[k, i] for k in range(V.nrows)})
            out.append(v)
        else:
            raise ValueError(f"unknown fiber move {kind!r}")
    return [{k: w for k, w in v.items() if w != 0} for v in out if any(w != 0 for w in v.values())]


def _group_ratios(W, b, g) -> list:
    """The factors ``c_m`` of a split group g, ``(w_m, b_m) = c_m (w_r, b_r)`` (r = g[0]; not
    checked here)."""
    r, n_in = g[0], W.ncols
    lead = next(c for c in range(n_in + 1) if (W[r, c] if c < n_in else b[r]) != 0)
    ref = W[r, lead] if lead < n_in else b[r]
    return [(W[m, lead] if lead < n_in else b[m]) / ref for m in g]


def cancel_skip(entries, l: int) -> set:
    """The columns of layer l − 1 (neurons) over which a ``cancelling`` group of layer *l* does
    not move its row: those of its active block entry (whose (f) directions need ``W_l[:, B]``)
    and its unread and unseen neurons (whose outputs must reach nobody)."""
    return {i for f in entries if f[1] == l - 1 for i in
            (f[2] if f[0] == "active_block" else [f[2]] if f[0] in ("unread", "unseen") else [])}


def floor_entries(net: Network) -> int:
    """The entries of the floor's vectors without active blocks (about two per weight: a
    neuron's scaling holds its row and its outgoing column), for the certificate's budget."""
    return 2 * net.n_parameters


def certified_fiber_floor(net: Network, dom, p: int | None = None,
                          max_block_entries: int = BLOCK_ENTRIES) -> tuple[list, int]:
    """``(entries, rank)``: :func:`fiber_floor_moves` and the rank of their vectors mod *p*
    (default the network's prime; at most the rank over Q, hence a lower bound of the fiber's
    dimension).

    >>> net = Network.from_rows([[[1], [2], [-1]], [[1, 1, 0]]], [[0, 0, -5], [0]])
    >>> certified_fiber_floor(net, (Q(-1), Q(1)))[1]   # 2 scalings, 1 trade, 3 of the dead one
    6
    """
    from .jacobian import ProvenSpan, network_prime
    entries = fiber_floor_moves(net, dom, max_block_entries)
    vecs = fiber_floor_vectors(net, entries, dom)
    if not vecs:
        return entries, 0
    return entries, ProvenSpan(vecs, net.n_parameters, p or network_prime(net)).rank()
