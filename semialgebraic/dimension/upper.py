r"""The decider's side of a certified upper bound of the functional dimension.

:func:`semialgebraic.dimension.functional_dimension_certificate` keeps an ``upper_directions``
entry (or an ``upper_regions`` list) only when the independent checker
(:mod:`semialgebraic.verify.functional_dimension`) accepts it.  It asks the checker through
:func:`semialgebraic.verify.verify` alone, on a *minimal* certificate (one differentiable input, ``lower`` 0,
a prime dividing no parameter denominator) whose ``upper`` is the value the decider computes
itself: :func:`entry_vectors` builds the vectors an entry names with code of its own (the
checker builds them again, after checking the facts), so a kept entry means "the checker
accepts every fact and its N − rank equals ours".

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
>>> checked_directions_bound(net, [["scale", 0, 0], ["scale", 0, 1]], None, [(2,)])
5
>>> checked_directions_bound(net, [["dead", 0, 0]], None, [(2,)])
'neuron (0, 0) is not dead on the domain by interval bounds'
"""

from __future__ import annotations

from algebra.kernel import parameter_offsets
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from ..certificates import dimension_bounds_certificate, jsonable
from ..sets import domain_spec
from .jacobian import network_prime
from .jacobian_columns import active_span_perp
from .trades import trade_vectors
from ..verify import verify

__all__ = ["entry_vectors", "sparse_entry_vectors", "fixed_successor_vectors", "duplicate_groups",
           "duplicate_vectors", "opposite_pairs", "opposite_vector", "constant_neurons", "constant_vectors",
           "same_mask_vectors", "cancel_ratios", "cancel_vectors", "inputs_dead_entries", "unseen_vectors", "masked_pairs", "directions_bound", "checked_directions_bound", "is_regions_rank", "intern_shared"]


def entry_vectors(net: Network, entries) -> list[list[Q]]:
    """:func:`sparse_entry_vectors` as dense lists (flat parameter order).

    >>> net = Network.from_rows([[[2]], [[3]]], [[1], [0]])
    >>> [list(map(str, v)) for v in entry_vectors(net, [["scale", 0, 0], ["free", 3, {}]])]
    [['2', '1', '-3', '0'], ['0', '0', '0', '1']]
    """
    N = net.n_parameters
    out = []
    for v in sparse_entry_vectors(net, entries):
        dense = [Q(0)] * N
        for k, w in v.items():
            dense[k] = w
        out.append(dense)
    return out


def sparse_entry_vectors(net: Network, entries) -> list[dict]:
    """The vectors (flat parameter order) named by ``upper_directions`` *entries* (the format of
    :mod:`semialgebraic.verify.functional_dimension`), built from θ without checking any fact.

    >>> net = Network.from_rows([[[2]], [[3]]], [[1], [0]])
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in sparse_entry_vectors(net, [["free", 3, {}]])]
    [[(3, '1')]]
    """
    N = net.n_parameters
    offs = parameter_offsets(net)
    out: list[dict] = []
    for e in entries:
        kind = e[0]
        if kind == "free":
            out.append(_unit(N, e[1]))
            continue
        l = e[1]
        W, b = net.layer(l)
        V = net.weights[l + 1]
        n_in = W.ncols
        if kind == "duplicate":
            out.extend(duplicate_vectors(net, l, e[2]))
            continue
        if kind == "split_out":         # R34 (a) alone: the fiber's moves (directions.fiber_moves)
            out.extend(split_vectors(net, l, e[2]))
            continue
        if kind == "cancel":            # the fiber's moves only (directions.fiber_moves)
            out.extend(cancel_vectors(net, l, e[2], e[3] if len(e) > 3 else ()))
            continue
        if kind == "opposite":
            out.append(opposite_vector(net, l, *e[2]))
            continue
        if kind == "opposite_trade":     # the fiber's moves only (directions.fiber_moves)
            skip = set(e[2].get("skip_rows", ()))
            out.extend(trade_vectors(net, l, e[2], [k for k in range(V.nrows) if k not in skip]))
            continue
        if kind == "constant":
            out.extend(constant_vectors(net, l, e[2]))
            continue
        if kind == "block_kernel":
            out.extend(same_mask_vectors(net, l, e[2]))
            continue
        if kind in ("block", "masked_pair"):
            for i in e[2]:
                for i2 in e[2]:
                    if i != i2 and (kind == "block" or i == e[2][0]):
                        v = {}
                        for c in range(n_in):
                            v[offs[l] + i * n_in + c] = W[i2, c]
                        v[offs[l] + W.nrows * n_in + i] = b[i2]
                        for o in range(V.nrows):
                            v[offs[l + 1] + o * V.ncols + i2] = -V[o, i]
                        out.append(v)
            continue
        i = e[2]
        win = [offs[l] + i * n_in + c for c in range(n_in)]
        bias = offs[l] + W.nrows * n_in + i
        wout = [offs[l + 1] + o * V.ncols + i for o in range(V.nrows)]
        if kind == "scale":
            v = {}
            for c in range(n_in):
                v[win[c]] = W[i, c]
            v[bias] = b[i]
            for o in range(V.nrows):
                v[wout[o]] = -V[o, i]
            out.append(v)
        elif kind in ("dead", "dead_proof", "dead_inputs"):
            out.extend(_unit(N, k) for k in win + [bias] + wout)
        elif kind == "unseen":
            out.extend(unseen_vectors(net, l, i, e[3]))
        elif kind in ("active", "active_proof", "masked"):
            v = {}
            v[bias] = Q(1)
            for o in range(V.nrows):
                v[offs[l + 1] + V.nrows * V.ncols + o] = -V[o, i]
            out.append(v)
        elif kind == "silent":
            out.extend(_unit(N, k) for k in win + [bias])
        elif kind == "fixed_successors":
            out.extend(fixed_successor_vectors(net, l, i, e[3]))
        elif kind == "incoming":
            for c in active_span_perp(net, l, e[3].get("leaves") or []):
                v = {}
                for k, w in zip(win + [bias], c):
                    v[k] = w
                out.append(v)
        else:
            raise ValueError(f"unknown upper_directions entry {kind!r}")
    return out


def fixed_successor_vectors(net: Network, l: int, i: int, signs) -> list[dict]:
    """The directions of a ``fixed_successors`` entry (sparse, flat parameter order): for a basis
    t of the kernel of ``W_{l+2}[:, F]·diag([s_j > 0])`` (F: the successors j with ``signs[j] !=
    0``), ``Σ_j t_j e(W_{l+1}[j, i])``.  Where neuron (l, i) is active every successor j of F
    has the fixed sign ``signs[j]``, so the columns of those weights are ``h_l[i]`` times fixed
    combinations of ``δ_{l+2}`` (the checker's docstring,
    :mod:`semialgebraic.verify.functional_dimension`, has the argument).

    >>> net = Network.from_rows([[[1]], [[1], [2]], [[3, 5]]], [[0], [0, 0], [0]])
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in fixed_successor_vectors(net, 0, 0, [1, 1])]
    [[(2, '1'), (3, '-3/5')]]
    """
    offs = parameter_offsets(net)
    W1, V = net.weights[l + 1], net.weights[l + 2]
    F = [j for j, s in enumerate(signs) if s]
    C = QMatrix.from_rows([[V[k, j] if signs[j] > 0 else Q(0) for j in F] for k in range(V.nrows)], ncols=len(F))
    return [{offs[l + 1] + j * W1.ncols + i: w for j, w in zip(F, row) if w != 0}
            for row in C.nullspace().to_rows()]


def proportional_groups(rows, positive: bool = False) -> list[list[int]]:
    """Groups (sorted, each of >= 2 indices) of the non-zero *rows* (sequences of rationals)
    that are multiples of one another: by a positive factor when *positive*, else by any
    non-zero factor.  Exact; rows are first bucketed by the place of their first two non-zero
    entries and the ratio of those (two divisions a row), and only rows sharing a bucket are
    normalised whole (a 384-1536-384 block: 0.3 s, where normalising every row and hashing
    the rational tuples took 3 s).

    >>> proportional_groups([[1, 2], [-2, -4], [2, 4], [0, 0]], positive=True)
    [[0, 2]]
    >>> proportional_groups([[1, 2], [-2, -4], [2, 4], [0, 0]])
    [[0, 1, 2]]
    """
    buckets: dict = {}
    for i, row in enumerate(rows):
        nz = [k for k, v in enumerate(row) if v != 0][:2]
        if not nz:
            continue
        lead = nz[0]
        r = Q(row[nz[1]]) / Q(row[lead]) if len(nz) > 1 else None
        sig = (tuple(nz), None if r is None else (int(r.p), int(r.q)),
               (row[lead] > 0) if positive else None)
        buckets.setdefault(sig, []).append(i)
    out = []
    for idx in buckets.values():
        if len(idx) < 2:
            continue
        sub: dict = {}
        for i in idx:
            row = rows[i]
            lead = Q(next(v for v in row if v != 0))
            key = tuple((int(w.p), int(w.q)) for w in (Q(v) / lead for v in row))
            sub.setdefault(key, []).append(i)
        out += [sorted(g) for g in sub.values() if len(g) > 1]
    return sorted(out)


def duplicate_groups(net: Network) -> list[tuple[int, list[int]]]:
    """``(l, group)`` for every set of >= 2 neurons of hidden layer l whose rows ``(W_l[i, ·],
    b_l[i])`` are positive multiples of one another, exactly (rows with a zero ``W_l[i, ·]``
    left out: constant or zero neurons have their own rules); each group sorted, its first
    neuron the representative (three-layer-fibers R34).

    >>> net = Network.from_rows([[[1, 2], [-1, 0], [2, 4], [-1, -2]], [[1, 1, 1, 1]]], [[1, 0, 2, -1], [0]])
    >>> duplicate_groups(net)
    [(0, [0, 2])]
    """
    out = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        rows = [r + [b[i]] if any(v != 0 for v in r) else [] for i, r in enumerate(W.to_rows())]
        out += [(l, g) for g in proportional_groups(rows, positive=True)]
    return out


def duplicate_vectors(net: Network, l: int, group) -> list[dict]:
    """The directions of a group of positively parallel neurons of hidden layer *l* (sparse, flat
    parameter order; three-layer-fibers R34): with r = ``group[0]`` and ``h_l[m] = c_m h_l[r]``,
    ``c_m e(W_{l+1}[k, r]) − e(W_{l+1}[k, m])`` for every m != r and every row k, and, for a basis
    t of the kernel of ``W_{l+1}[:, group]``, ``Σ_m t_m e(θ)`` for θ each incoming weight
    ``W_l[m, c]`` (one c at a time) and each bias ``b_l[m]``.  No fact is checked here.

    >>> net = Network.from_rows([[[1], [2]], [[3, 5]]], [[1, 2], [0]])
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in duplicate_vectors(net, 0, [0, 1])]
    [[(4, '2'), (5, '-1')], [(0, '1'), (1, '-3/5')], [(2, '1'), (3, '-3/5')]]
    """
    return split_vectors(net, l, group) + same_mask_vectors(net, l, group)


def split_vectors(net: Network, l: int, group) -> list[dict]:
    """R34 (a) of a group of positively parallel neurons of hidden layer *l*: with r =
    ``group[0]`` and ``h_l[m] = c_m h_l[r]``, ``c_m e(W_{l+1}[k, r]) − e(W_{l+1}[k, m])`` for every
    m != r and every row k (sparse, flat parameter order; moves of the fiber: the outgoing weight
    moved between them).  No fact is checked here.

    >>> net = Network.from_rows([[[1], [2]], [[3, 5]]], [[1, 2], [0]])
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in split_vectors(net, 0, [0, 1])]
    [[(4, '2'), (5, '-1')]]
    """
    offs = parameter_offsets(net)
    W, _ = net.layer(l)
    V = net.weights[l + 1]
    r, n_in = group[0], W.ncols
    lead = next((c for c in range(n_in) if W[r, c] != 0), None)
    if lead is None:
        raise ValueError(f"neuron ({l}, {r}) has a zero row")
    out = []
    for m in group[1:]:
        cm = W[m, lead] / W[r, lead]
        for k in range(V.nrows):
            out.append({offs[l + 1] + k * V.ncols + r: cm, offs[l + 1] + k * V.ncols + m: Q(-1)})
    return out


def cancel_ratios(net: Network, l: int, group) -> list | None:
    """The factors ``c_m`` of a group of positively parallel neurons of hidden layer *l* (rows and
    biases ``(W_l[m, ·], b_l[m]) = c_m (W_l[r, ·], b_l[r])``, r = ``group[0]``, ``c_r = 1``) when
    their outgoing contributions cancel, ``Σ_m c_m W_{l+1}[:, m] = 0`` (the group's output
    ``Σ_m W_{l+1}[:, m] relu(c_m z_r)`` is then 0 whatever z_r is), else None.  The rows' being
    parallel is not checked here.

    >>> net = Network.from_rows([[[1], [2]], [[2, -1]]], [[1, 2], [0]])
    >>> [str(c) for c in cancel_ratios(net, 0, [0, 1])]
    ['1', '2']
    """
    W, _ = net.layer(l)
    V = net.weights[l + 1]
    r = group[0]
    lead = next((c for c in range(W.ncols) if W[r, c] != 0), None)
    if lead is None:
        return None
    cs = [W[m, lead] / W[r, lead] for m in group]
    if all(sum((c * V[k, m] for c, m in zip(cs, group)), Q(0)) == 0 for k in range(V.nrows)):
        return cs
    return None


def cancel_vectors(net: Network, l: int, group, skip=()) -> list[dict]:
    """The moves of a cancelling group of positively parallel neurons of hidden layer *l*
    (:func:`cancel_ratios` not None): their common row moves, ``Σ_m c_m e(W_l[m, c])`` for every
    input c of the layer not in *skip* and ``Σ_m c_m e(b_l[m])`` (sparse, flat parameter order):
    the rows stay ``c_m`` times one row and their contributions keep cancelling, so every point
    of the line computes the same function (an exact move, not only a tangent).  No fact is
    checked here.

    >>> net = Network.from_rows([[[1], [2]], [[2, -1]]], [[1, 2], [0]])
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in cancel_vectors(net, 0, [0, 1])]
    [[(0, '1'), (1, '2')], [(2, '1'), (3, '2')]]
    """
    offs = parameter_offsets(net)
    W = net.weights[l]
    n_in = W.ncols
    r = group[0]
    lead = next(c for c in range(n_in) if W[r, c] != 0)
    cs = [W[m, lead] / W[r, lead] for m in group]
    out = []
    for c in range(n_in + 1):
        if c in skip:
            continue
        out.append({offs[l] + (m * n_in + c if c < n_in else W.nrows * n_in + m): cm
                    for m, cm in zip(group, cs)})
    return out


def same_mask_vectors(net: Network, l: int, group) -> list[dict]:
    """For neurons of hidden layer *l* with one mask at every differentiable input (a duplicate
    group, or always-active neurons): ``Σ_m t_m e(W_l[m, c])`` for every input c and
    ``Σ_m t_m e(b_l[m])``, for a basis t of the kernel of ``W_{l+1}[:, group]`` (sparse, flat
    parameter order; three-layer-fibers R34 (b), (f)).  No fact is checked here.

    >>> net = Network.from_rows([[[0], [0]], [[2, 1]]], [[1, 1], [0]])     # two constants
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in same_mask_vectors(net, 0, [0, 1])]
    [[(0, '1'), (1, '-2')], [(2, '1'), (3, '-2')]]
    """
    offs = parameter_offsets(net)
    W = net.weights[l]
    V = net.weights[l + 1]
    n_in, out = W.ncols, []
    C = QMatrix.from_rows([[V[k, m] for m in group] for k in range(V.nrows)], ncols=len(group))
    for t in C.nullspace().to_rows():
        for c in range(n_in + 1):
            ks = [offs[l] + (m * n_in + c if c < n_in else W.nrows * n_in + m) for m in group]
            out.append({k: w for k, w in zip(ks, t) if w != 0})
    return out


def opposite_pairs(net: Network) -> list[tuple[int, list[int]]]:
    """``(l, [r, m])`` for the pairs of neurons of hidden layer l with negatively parallel rows,
    ``(W_l[m, ·], b_l[m]) = −c (W_l[r, ·], b_l[r])``, c > 0, ``W_l[r, ·] != 0``, whose outgoing
    columns are parallel and non-zero, ``W_{l+1}[:, m] = μ W_{l+1}[:, r]``, μ != 0 (always
    with one output); r < m (three-layer-fibers R34 (d)).

    >>> net = Network.from_rows([[[1, 2], [-2, -4], [1, 0]], [[1, 3, 1]]], [[1, -2, 0], [0]])
    >>> opposite_pairs(net)
    [(0, [0, 1])]
    """
    out = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        V = net.weights[l + 1]
        Wr = W.to_rows()
        rows = [r + [b[i]] for i, r in enumerate(Wr)]
        cols = None
        pairs = []                       # W_l[i, ·] up to a non-zero factor (grouped in one pass,
        for group in proportional_groups(Wr):   # not all pairs: 6 000 neurons were 18 M pairs, 57 s)
            if cols is None:
                cols = list(zip(*V.to_rows()))
            for a, r in enumerate(group):
                for m in group[a + 1:]:
                    c, mu = _ratio(rows[r], rows[m]), _ratio(cols[r], cols[m])
                    if c is not None and c < 0 and mu is not None and mu != 0:
                        pairs.append((r, m))
        out += [(l, [r, m]) for r, m in sorted(pairs)]
    return out


def opposite_vector(net: Network, l: int, r: int, m: int) -> dict:
    """The direction of a pair of :func:`opposite_pairs` (sparse, flat parameter order):
    ``e(b_l[r]) + (1/μ) e(b_l[m]) − Σ_k W_{l+1}[k, r] e(b_{l+1}[k])``.  Only μ is checked here
    (ValueError when there is none, or it is 0).

    >>> net = Network.from_rows([[[1], [-2]], [[1, 3]]], [[1, -2], [0]])
    >>> sorted((k, str(w)) for k, w in opposite_vector(net, 0, 0, 1).items())
    [(2, '1'), (3, '1/3'), (6, '-1')]
    """
    offs = parameter_offsets(net)
    W = net.weights[l]
    V = net.weights[l + 1]
    mu = _ratio([V[k, r] for k in range(V.nrows)], [V[k, m] for k in range(V.nrows)])
    if not mu:
        raise ValueError(f"the outgoing columns of neurons ({l}, {r}), ({l}, {m}) are not non-zero multiples")
    bias = offs[l] + W.nrows * W.ncols
    v = {bias + r: Q(1), bias + m: 1 / mu}
    for k in range(V.nrows):
        if V[k, r] != 0:
            v[offs[l + 1] + V.nrows * V.ncols + k] = -V[k, r]
    return v


def constant_neurons(net: Network, dead) -> list[tuple[int, int]]:
    """``(l, i)`` of the hidden neurons with a positive bias whose non-zero incoming weights all
    come from *dead* neurons (a set of ``(layer, neuron)``; none for the first layer): z = b > 0
    at every input, h = b (three-layer-fibers R34 (e)).

    >>> net = Network.from_rows([[[1], [0]], [[1, 1]]], [[0, 2], [0]])
    >>> constant_neurons(net, set())
    [(0, 1)]
    """
    out = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        for i in range(W.nrows):
            if b[i] > 0 and all(W[i, c] == 0 or l and (l - 1, c) in dead for c in range(W.ncols)):
                out.append((l, i))
    return out


def constant_vectors(net: Network, l: int, i: int) -> list[dict]:
    """``e(W_{l+1}[k, i]) − b_l[i] e(b_{l+1}[k])`` for every row k (sparse, flat parameter order):
    the directions of a constant neuron (:func:`constant_neurons`; no fact is checked here).

    >>> net = Network.from_rows([[[1], [0]], [[1, 1]]], [[0, 2], [0]])
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in constant_vectors(net, 0, 1)]
    [[(5, '1'), (6, '-2')]]
    """
    offs = parameter_offsets(net)
    _, b = net.layer(l)
    V = net.weights[l + 1]
    return [{offs[l + 1] + k * V.ncols + i: Q(1), offs[l + 1] + V.nrows * V.ncols + k: -b[i]}
            for k in range(V.nrows)]


def inputs_dead_entries(net: Network, dead, exclude=frozenset()) -> tuple[list, set]:
    """``(entries, dead')``: the ``dead_inputs`` / ``unseen`` entries (the format of
    :mod:`semialgebraic.verify.functional_dimension`) that the neurons *dead* (a set of
    ``(layer, neuron)``, dead at every differentiable input) give, in an order the checker
    accepts, and the grown set (three-layer-fibers R35):

    * a hidden neuron with b <= 0 whose non-zero incoming weights all come from dead neurons
      (none for the first layer) is dead: z = b <= 0 at every differentiable input;
    * with b = 0 and a hidden layer above it, z = 0 there: a kink, which the network above
      does not see (the differentiability rule), so e_l[i] = Σ_j W_{l+1}[j,i] δ_{l+1}[j] = 0:
      :func:`unseen_vectors`; when layer l+1 is the last hidden one and an output o sees every
      successor j with one sign (c_j = W_{l+1}[j,i]·W_L[o,j]), those successors are inactive at
      every differentiable input: dead too (listed in the entry; those in *exclude* are not
      claimed).

    >>> net = Network.from_rows([[[1], [0]], [[1, 2], [3, 1]], [[1, 1]]], [[-2, 0], [0, 0], [0]])
    >>> inputs_dead_entries(net, {(0, 0)})[0]
    [['unseen', 0, 1, [0, 1]]]
    """
    L = net.depth
    dead, out, done = set(dead), [], set()
    changed = True
    while changed:
        changed = False
        for l in range(L - 1):
            W, b = net.layer(l)
            for i in range(W.nrows):
                if (l, i) in done or b[i] > 0 or any(w != 0 and not (l and (l - 1, c) in dead)
                                                     for c, w in enumerate(W.row_at(i))):
                    continue
                done.add((l, i))
                if b[i] == 0 and l + 1 < L - 1:
                    js = [j for j in _one_sign_successors(net, l, i)
                          if (l + 1, j) not in dead and (l + 1, j) not in exclude]
                    if js or any(w != 0 for w in net.weights[l + 1].col_at(i)):
                        out.append(["unseen", l, i, js])
                        dead.update((l + 1, j) for j in js)
                    elif (l, i) not in dead:
                        out.append(["dead_inputs", l, i])
                elif (l, i) not in dead:
                    out.append(["dead_inputs", l, i])
                changed |= (l, i) not in dead
                dead.add((l, i))
        changed = changed and len(done) < sum(net.widths[1:-1])
    return out, dead


def masked_pairs(net: Network, l: int, active, masked, dead) -> list[list[int]]:
    """``[i, i2]`` for the ordered pairs of distinct neurons of hidden layer *l* that are always
    active or masked (*active*, *masked*, *dead*: sets of ``(layer, neuron)``), at least one
    masked, with i2 always active or every live successor of i (non-zero weight, not dead) a live
    successor of i2: the GL direction row i += row i2, column i2 −= column i is in the kernel
    (three-layer-fibers R35 (e); the ``masked_pair`` entry).

    >>> net = Network.from_rows([[[1], [2]], [[1, 1]], [[1]]], [[0, 1], [-1], [0]])
    >>> masked_pairs(net, 0, {(0, 1)}, {(0, 0)}, set())
    [[0, 1], [1, 0]]
    """
    V = net.weights[l + 1]
    B = [i for i in range(net.widths[l + 1]) if (l, i) not in dead and ((l, i) in active or (l, i) in masked)]

    def live(m):
        return {k for k in range(V.nrows) if V[k, m] != 0 and (l + 1, k) not in dead}
    return [[i, i2] for i in B for i2 in B if i != i2 and ((l, i) in masked or (l, i2) in masked)
            and ((l, i2) in active or live(i) <= live(i2))]


def _one_sign_successors(net: Network, l: int, i: int) -> list[int]:
    """The successors j (layer l+1, the last hidden one) of neuron (l, i) that some output o
    sees with c_j = W_{l+1}[j,i]·W_L[o,j] != 0 while every non-zero c_k has the sign of c_j."""
    if l + 2 != net.depth - 1:
        return []
    V, U = net.weights[l + 1], net.weights[l + 2]
    out = set()
    for o in range(U.nrows):
        c = [V[j, i] * U[o, j] for j in range(V.nrows)]
        if all(x >= 0 for x in c) or all(x <= 0 for x in c):
            out.update(j for j, x in enumerate(c) if x != 0)
    return sorted(out)


def unseen_vectors(net: Network, l: int, i: int, js=()) -> list[dict]:
    """The directions of an ``unseen`` entry (sparse, flat parameter order; no fact checked):
    ``Σ_j W_{l+1}[j,i] e(W_{l+1}[j,c])`` for every input c of layer l+1, ``Σ_j W_{l+1}[j,i]
    e(b_{l+1}[j])`` (the column of each is h_l[c]·e_l[i] = 0, resp. e_l[i] = 0), and the unit
    vectors of the incoming row, bias and outgoing column of each successor j in *js*.

    >>> net = Network.from_rows([[[1], [0]], [[1, 2]], [[1]]], [[-2, 0], [0], [0]])
    >>> [sorted((k, str(w)) for k, w in v.items()) for v in unseen_vectors(net, 0, 1)]
    [[(4, '2')], [(5, '2')], [(6, '2')]]
    """
    offs = parameter_offsets(net)
    V, U = net.weights[l + 1], net.weights[l + 2]
    out = []
    for c in range(V.ncols + 1):
        v = {offs[l + 1] + (j * V.ncols + c if c < V.ncols else V.nrows * V.ncols + j): V[j, i]
             for j in range(V.nrows) if V[j, i] != 0}
        if v:
            out.append(v)
    for j in js:
        ks = [offs[l + 1] + j * V.ncols + c for c in range(V.ncols)] + [offs[l + 1] + V.nrows * V.ncols + j]
        ks += [offs[l + 2] + o * U.ncols + j for o in range(U.nrows)]
        out.extend({k: Q(1)} for k in ks)
    return out


def _ratio(u, v):
    """The λ with v = λ·u when u != 0 and there is one, else None."""
    piv = next((k for k, x in enumerate(u) if x != 0), None)
    if piv is None:
        return None
    lam = v[piv] / u[piv]
    return lam if all(y == lam * x for x, y in zip(u, v)) else None


def directions_bound(net: Network, entries, budget=None) -> int:
    """N − rank of :func:`entry_vectors` (no fact checked): N − their rank mod the certificate's
    prime (:func:`network_prime`; at most the rank over Q, so the bound stays valid, and the same
    rank the sandwich's upper bound uses), the exact rank over Q when a residue does not exist,
    by ``ProvenSpan.rank``: peeled first, then the sparse echelon form, then the dense routes;
    with a *budget* that has a timeout, stopped at it with the rank of a subset (a lower bound:
    N − it stays valid).  On a 384-1536-384 block on a small ball (332 206 vectors) the sparse
    rank alone took 4.8 s before giving up, past ``dim --timeout 2``; on 16-60-60-8 on a ball of
    radius 1/100 (6 254 vectors) the unpeeled sparse try took 2 s before giving up (1.1 s
    peeled, all of it)."""
    N = net.n_parameters
    vecs = sparse_entry_vectors(net, entries)
    if not vecs:
        return N
    if any(k >= N or k < 0 for v in vecs for k in v):
        raise IndexError("a direction names a parameter out of range")
    from .jacobian import ProvenSpan
    return N - ProvenSpan(vecs, N, network_prime(net)).rank(budget)


def checked_directions_bound(net: Network, entries, dom, inputs) -> int | str:
    """:func:`directions_bound` of *entries* when the checker accepts them with exactly that
    bound (:func:`semialgebraic.verify.verify` on a minimal certificate), else the checker's
    reason.  Raises InputError (from the checker) on a malformed entry."""
    try:
        b = directions_bound(net, entries)
    except (ValueError, TypeError, KeyError, IndexError, AttributeError):
        b = None                # malformed: the checker raises InputError or says why
    entries, table = intern_shared(entries)
    ok, why = verify(_minimal_certificate(net, dom, -1 if b is None else b, "upper_directions",
                                          jsonable(entries), inputs, table))
    return b if ok and b is not None else why


def intern_shared(entries) -> tuple[list, list]:
    """``(entries, table)``: *entries* whose proofs refer to a shared proof object (``{"shared":
    <dict>}``, :func:`semialgebraic.bab.emptiness.shared_reference`) refer instead to its index
    in *table*, each object stored once, in order of first reference (the certificate's
    ``shared_proofs``).

    >>> tree = {"deeper": [1, 0, 1], "shallow": [[0, 0, 1], [0, 1, 1]], "conditioned": []}
    >>> es, table = intern_shared([["free", 7, {"parameter": 7, "shared": tree}], ["scale", 0, 0],
    ...                            ["free", 9, {"parameter": 9, "shared": tree}]])
    >>> [e[2]["shared"] for e in es if e[0] == "free"], len(table)
    ([0, 0], 1)
    """
    table: list = []
    index: dict = {}

    def ref(P):
        if isinstance(P, dict) and isinstance(P.get("shared"), dict):
            key = id(P["shared"])
            if key not in index:
                index[key] = len(table)
                table.append(P["shared"])
            return {**P, "shared": index[key]}
        return P
    out = []
    for e in entries:
        if e[0] == "free":
            e = [e[0], e[1], ref(e[2])]
        elif e[0] in ("dead_proof", "active_proof"):
            e = [*e[:3], ref(e[3])]
        elif e[0] == "masked":
            e = [*e[:3], [ref(P) for P in e[3]]]
        elif e[0] == "fixed_successors":
            e = [*e[:4], ref(e[4])]
        out.append(e)
    return out, table


def is_regions_rank(net: Network, regions, dom, upper: int, inputs, directions=None) -> bool:
    """True when the checker accepts *regions* (``upper_regions``: a cover of the domain) and the
    exact rank of the Jacobian rows on them is *upper*; *directions* (``upper_directions``
    entries, optional) beside them spare the checker the columns of their pivots."""
    cert = _minimal_certificate(net, dom, int(upper), "upper_regions", regions, inputs)
    if directions:
        entries, table = intern_shared(directions)
        cert["upper_directions"] = jsonable(entries)
        if table:
            cert["shared_proofs"] = jsonable(table)
    return verify(cert)[0]


def _minimal_certificate(net, dom, upper, key, value, inputs, shared=None) -> dict:
    """A certificate of ``0 <= fd <= upper`` by *key*; *inputs*: differentiable inputs of the
    domain (the checker wants at least one: it shows that fd is defined at θ); *shared*: the
    table of shared proofs the entries refer to."""
    return dimension_bounds_certificate(net, prime=network_prime(net), inputs=list(inputs), lower=0,
                                        domain=domain_spec(dom), upper=int(upper), shared_proofs=shared or None,
                                        **{key: value})


def _unit(N, k) -> dict:
    return {k: Q(1)} if 0 <= k < N else {N: Q(1)}         # (an index out of range is caught)
