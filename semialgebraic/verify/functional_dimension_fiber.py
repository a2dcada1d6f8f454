"""The fiber floor of a ``functional_dimension`` certificate (three-layer-fibers R40): the
optional ``fiber_moves`` (entries ``["scale", l, i]``, ``["split_out", l, [r, m, …]]``,
``["cancelling", l, [r, m, …]]`` (a split_out group whose contributions cancel: its common row
moves, :func:`_cancelling`),
``["dead", l, i]``, ``["unread", l, i]``, ``["unseen", l, i]`` (every non-zero outgoing weight
into a neuron listed unread or unseen), ``["active_block", l, [i, …]]``: on a cube always
active by interval bounds, on the orthant or R^d a bias and incoming weights > 0 on inputs >= 0;
``["bias_trade", l, i]``: ``z >= 0`` on the domain, its bias trade alone for ``t >= 0``
(:func:`_bias_trade`);
``["opposite_trade", 0, {"pairs", "block", "moves"}]``: :func:`_trade`)
and the claim ``fiber_lower`` (the fiber's local
dimension at θ is at least it).  Each entry's fact is re-checked from θ, the vectors are
rebuilt here, and their rank mod the certificate's prime (at most the rank over Q) must reach
the claim.  Why the moves compose (so that the rank bounds the fiber's dimension):
:mod:`semialgebraic.dimension.fiber_floor`, whose vectors this module rebuilds on its own.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import parse_vector
from algebra.kernel import input_box, interval_bounds, merged_lower, relu_box
from algebra.linalg import QMatrix
from algebra.linalg.gfp import exact_rank
from algebra.rationals import Q

from .functional_dimension_upper import _gl_direction, _one_mask_vectors, _param_offsets

__all__: list[str] = []

KINDS = ("scale", "split_out", "cancelling", "dead", "unread", "unseen", "active_block", "bias_trade",
         "opposite_trade")
GROUPS = ("split_out", "cancelling", "active_block")
SINGLE = ("scale", "dead", "unread", "unseen", "bias_trade")


def _index(v, n, what) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v < n:
        raise InputError(f"fiber_moves: {what} {v!r} is not an index below {n}")
    return v


def fiber_vectors(net, moves, lo_hi) -> list | str:
    """The vectors of *moves* (sparse dicts ``{parameter index: value}``), or the reason an
    entry is rejected.  *lo_hi*: None (R^d), ``"orthant"`` or a cube ``(lo, hi)``."""
    if not isinstance(moves, list):
        raise InputError("fiber_moves must be a list")
    L = net.depth - 1
    for e in moves:
        if not isinstance(e, list) or len(e) != 3 or e[0] not in KINDS:
            raise InputError(f"fiber_moves: malformed entry {e!r} (one of {KINDS} with a layer "
                             "and a neuron or a group)")
        l = _index(e[1], L, "layer")
        n = net.widths[l + 1]
        if e[0] == "opposite_trade":
            if l != 0:
                return "an opposite_trade is a move of the first hidden layer (layer 0) only"
            continue
        if e[0] in GROUPS:
            least = 1 if e[0] == "active_block" else 2
            if not isinstance(e[2], list) or len(e[2]) < least:
                raise InputError(f"fiber_moves: a {e[0]} group is a list of >= {least} neurons: {e!r}")
            for i in e[2]:
                _index(i, n, "neuron")
            if len(set(e[2])) != len(e[2]):
                raise InputError(f"fiber_moves: a {e[0]} group repeats a neuron: {e!r}")
        else:
            _index(e[2], n, "neuron")
    if len({tuple(e[:2]) + (e[2],) for e in moves if e[0] in SINGLE}) != \
            sum(1 for e in moves if e[0] in SINGLE) or sum(e[0] == "opposite_trade" for e in moves) > 1:
        raise InputError("fiber_moves: an entry is listed twice")
    offsets = _param_offsets(net)
    bounds = interval_bounds([w.to_rows() for w in net.weights], [list(c) for c in net.biases],
                             net.n_inputs, lo_hi)
    moved = {(e[1], e[2]) for e in moves if e[0] in ("dead", "unread", "unseen")}
    both = {(e[1], e[2]) for e in moves if e[0] == "dead"} & {(e[1], e[2]) for e in moves if e[0] in ("unread", "unseen")}
    if len({(e[1], e[2]) for e in moves if e[0] in ("unread", "unseen")}) < \
            sum(e[0] in ("unread", "unseen") for e in moves):
        raise InputError("fiber_moves: a neuron is listed both unread and unseen")
    nobody = {(e[1], e[2]) for e in moves if e[0] in ("unread", "unseen")}   # rows free
    if both:                              # (on R^d a first-layer dead neuron keeps w = 0, which
        l, i = min(both)                  # unread's moves would free: their union is no fiber)
        return (f"neuron ({l}, {i}) is listed both dead and unread: the two kinds' moves do not "
                "compose (a dead first-layer neuron on R^d keeps w = 0)")
    split: dict = {}                      # layer -> neurons in its split groups
    for e in moves:
        if e[0] == "split_out":
            for i in e[2]:
                if (e[1], i) in moved:
                    return (f"neuron ({e[1]}, {i}) is in a split_out group and dead or unread: "
                            "its own moves would break the group's proportional rows")
                if i in split.get(e[1], ()):
                    return f"neuron ({e[1]}, {i}) is in two split_out groups"
                split.setdefault(e[1], set()).add(i)
    blocks: dict = {}                     # layer -> its active block
    for e in moves:
        if e[0] == "active_block":
            l = e[1]
            if l in blocks:
                return f"layer {l} has two active blocks"
            V = net.weights[l + 1]
            W, b = net.layer(l)
            for i in e[2]:
                if not isinstance(lo_hi, tuple):     # unbounded: rows that stay positive
                    if l == 0 and lo_hi != "orthant":
                        return (f"neuron ({l}, {i}) of the active block is in the first layer on R^d: "
                                "a small move of its row turns it off far away")
                    if b[i] <= 0 or any(W[i, c] <= 0 for c in range(W.ncols)):
                        return (f"neuron ({l}, {i}) of the active block on an unbounded domain needs a "
                                "bias and incoming weights > 0 (its inputs are >= 0)")
                    continue
                lo, hi = bounds[l][i]
                if lo is None or lo < 0 or hi is None or hi <= 0:
                    return f"neuron ({l}, {i}) of the active block is not always active (and not 0) by interval bounds"
            for i in e[2]:
                if (l, i) in moved or i in split.get(l, ()):
                    return (f"neuron ({l}, {i}) of the active block is dead, unread or split: its own "
                            "moves would undo the block's")
                if all(V[k, i] == 0 for k in range(V.nrows)):
                    return f"neuron ({l}, {i}) of the active block is unread"
            blocks[l] = e[2]
    cancelling = _cancelling(net, moves, L)
    if isinstance(cancelling, str):
        return cancelling
    out = []
    for e in moves:
        kind, l = e[0], e[1]
        W, b = net.layer(l)
        V = net.weights[l + 1]
        n_in = W.ncols
        rows = [k for k in range(V.nrows) if k not in split.get(l + 1, ())]
        if kind == "opposite_trade":
            got = _trade(net, e[2], lo_hi, bounds, moved, split, blocks, offsets, rows)
            if isinstance(got, str):
                return got
            out += got
            continue
        if kind == "split_out":
            r = e[2][0]
            cs = _multiples(W, b, l, e[2])
            if isinstance(cs, str):
                return cs
            for m, c in zip(e[2][1:], cs[1:]):
                for k in rows:
                    out.append({offsets[l + 1] + k * V.ncols + r: c,
                                offsets[l + 1] + k * V.ncols + m: Q(-1)})
            continue
        if kind == "cancelling":          # the common row moves, not over the neurons of layer
            cs = cancelling[id(e)]        # l − 1 in its active block, unread or unseen
            skip = set(blocks.get(l - 1, ())) | {i for (t, i) in nobody if t == l - 1}
            for c in range(n_in + 1):
                if c in skip:
                    continue
                out.append({(offsets[l] + m * n_in + c if c < n_in else offsets[l] + W.nrows * n_in + m): cm
                            for m, cm in zip(e[2], cs)})
            continue
        if kind == "active_block":
            B = e[2]
            nb = offsets[l + 1] + V.nrows * V.ncols          # the next layer's biases
            for i in B:                                       # bias trades
                v = {offsets[l] + W.nrows * n_in + i: Q(1)}
                v.update({nb + k: -V[k, i] for k in range(V.nrows)})
                out.append(v)
            for i in B:                                       # GL (S4)
                for i2 in B:
                    if i != i2:
                        out.append(_gl_direction(net.n_parameters, offsets, l, W, b, V, i, i2))
            out.extend(_one_mask_vectors(net, offsets, l, B))  # rows along ker W_{l+1}[:, B]
            continue
        i = e[2]
        win = [offsets[l] + i * n_in + c for c in range(n_in)]
        bias = offsets[l] + W.nrows * n_in + i
        if kind == "bias_trade":
            why = _bias_trade(net, moves, l, i, lo_hi, bounds, moved, split, blocks)
            if why:
                return why
            v = {bias: Q(1)}
            v.update({offsets[l + 1] + V.nrows * V.ncols + k: -V[k, i] for k in range(V.nrows)})
            out.append(v)
        elif kind == "scale":
            v = {p: w for p, w in zip(win, W.row_at(i))}
            v[bias] = b[i]
            for k in range(V.nrows):
                v[offsets[l + 1] + k * V.ncols + i] = -V[k, i]
            out.append(v)
        elif kind == "dead":
            hi = bounds[l][i][1]
            if hi is None or hi > 0:
                return f"neuron ({l}, {i}) is not dead on the domain by interval bounds"
            # on R^d a first-layer dead neuron has w = 0, and w stays 0: its bias moves (b <= 0)
            out += [{p: Q(1)} for p in (win if l or lo_hi is not None else []) + [bias]]
            out += [{offsets[l + 1] + k * V.ncols + i: Q(1)} for k in rows]
        elif kind == "unseen":             # every outgoing weight into unread / unseen ones
            seen = [k for k in range(V.nrows) if V[k, i] != 0 and (l + 1 == L or (l + 1, k) not in nobody)]
            if seen:
                return (f"neuron ({l}, {i}) is seen: its outgoing weight reaches neuron ({l + 1}, {seen[0]}), "
                        "listed neither unread nor unseen" if l + 1 < L else "an output")
            out += [{p: Q(1)} for p in win + [bias]]
        else:                              # unread
            if any(V[k, i] != 0 for k in range(V.nrows)):
                return f"neuron ({l}, {i}) is read (a non-zero outgoing weight): not unread"
            out += [{p: Q(1)} for p in win + [bias]]
    return [{p: w for p, w in v.items() if w != 0} for v in out]


def _cancelling(net, moves, L) -> dict | str:
    """``{id(entry): factors}`` of the ``cancelling`` entries, or the reason one is rejected.
    Facts: the group is a ``split_out`` group of its layer (the same neurons, listed once as
    cancelling), its rows and biases are ``c_m`` times the first's, ``c_m > 0``, and ``Σ_m c_m
    W_{l+1}[:, m] = 0``; no neuron of layer l + 1 reading the group is listed dead, layer l + 1
    has no active block entry, and on layer 0 no member is in the opposite trade's pairs (the
    moves of those would break the cancelling: :mod:`semialgebraic.dimension.fiber_floor`)."""
    out: dict = {}
    seen = set()
    for e in moves:
        if e[0] != "cancelling":
            continue
        l, g = e[1], e[2]
        key = (l, frozenset(g))
        if key in seen:
            return f"the cancelling group {g} of layer {l} is listed twice"
        seen.add(key)
        if not any(f[0] == "split_out" and f[1] == l and set(f[2]) == set(g) for f in moves):
            return f"the cancelling group {g} of layer {l} is not a split_out group of its layer"
        W, b = net.layer(l)
        V = net.weights[l + 1]
        if all(W[g[0], c] == 0 for c in range(W.ncols)):
            return f"neuron ({l}, {g[0]}) has a zero row: no cancelling group"
        cs = _multiples(W, b, l, g)
        if isinstance(cs, str):
            return cs
        if any(sum((c * V[k, m] for c, m in zip(cs, g)), Q(0)) != 0 for k in range(V.nrows)):
            return (f"the group {g} of layer {l} does not cancel: Σ c_m W_{{l+1}}[:, m] != 0 "
                    "(its common row would change the function)")
        readers = {k for k in range(V.nrows) if any(V[k, m] != 0 for m in g)}
        if l + 1 < L:
            if any(f[0] == "active_block" and f[1] == l + 1 for f in moves):
                return (f"layer {l + 1} has an active block entry: its moves would break the "
                        f"cancelling of the group {g} of layer {l}")
            dead = sorted(k for f in moves if f[0] == "dead" and f[1] == l + 1
                          for k in [f[2]] if k in readers)
            if dead:
                return (f"neuron ({l + 1}, {dead[0]}) reads the cancelling group {g} and is listed "
                        "dead: its moves would break the cancelling")
        if l == 0:
            pairs = {i for f in moves if f[0] == "opposite_trade" and isinstance(f[2], dict)
                     for p in f[2].get("pairs", []) if isinstance(p, list) for i in p}
            if pairs & set(g):
                return (f"a member of the cancelling group {g} is in the opposite trade's pairs: "
                        "the trade would move one member's outgoing weight alone")
        out[id(e)] = cs
    return out


def _multiples(W, b, l, g) -> list | str:
    """The factors ``c_m > 0`` with ``(w_m, b_m) = c_m (w_r, b_r)`` for the group g (r its first
    neuron) of layer l, or why it is no ``split_out`` group."""
    ref = list(W.row_at(g[0])) + [b[g[0]]]
    piv = next((c for c in range(len(ref)) if ref[c] != 0), None)
    if piv is None:
        return f"neuron ({l}, {g[0]}) has a zero row and bias: no split_out group"
    cs = []
    for m in g:
        row = list(W.row_at(m)) + [b[m]]
        c = row[piv] / ref[piv]
        if c <= 0 or any(x != c * y for x, y in zip(row, ref)):
            return (f"neuron ({l}, {m}) is not a positive multiple of neuron ({l}, {g[0]}) "
                    "(row and bias): no split_out group")
        cs.append(c)
    return cs


def _bias_trade(net, moves, l, i, lo_hi, bounds, moved, split, blocks) -> str | None:
    """Why the ``bias_trade`` entry of neuron (l, i) is rejected, or None.  Its move, ``b_l[i] +
    t`` and the next biases ``− t W_{l+1}[:, i]`` for ``t >= 0``, keeps the function while z >= 0
    on the domain (then ``h = z + t``): shown at θ by interval bounds in which each listed
    ``split_out`` group of layer l − 1 (rows ``c_m`` times the first's, ``c_m > 0``) reads as one
    neuron with the weight ``Σ_m c_m W_l[i, m]``; no other entry changes z as a function (so it
    stays >= 0 wherever they lead) when the neuron is not dead, unread, unseen, split or in an
    active block, and not in the opposite trade."""
    if (l, i) in moved or i in split.get(l, ()) or i in blocks.get(l, ()):
        return (f"neuron ({l}, {i}) of a bias_trade is dead, unread, unseen, split or in the "
                "active block: other moves change its row")
    if l == 0:
        for f in moves:
            if f[0] == "opposite_trade" and isinstance(f[2], dict):
                inside = set(f[2].get("block") or ()) | {
                    j for p in f[2].get("pairs") or () if isinstance(p, list) for j in p}
                if i in inside:
                    return f"neuron (0, {i}) of a bias_trade is in the opposite trade"
    W, b = net.layer(l)
    if l == 0:
        box, groups = input_box(lo_hi, W.ncols), []
    else:
        box, groups = relu_box(bounds[l - 1]), []
        Wp, bp = net.layer(l - 1)
        for f in moves:
            if f[0] == "split_out" and f[1] == l - 1:
                cs = _multiples(Wp, bp, l - 1, f[2])
                if isinstance(cs, str):
                    return cs
                groups.append((f[2], cs))
    low = merged_lower(list(W.row_at(i)), b[i], box, groups)
    if low is None or low < 0:
        return (f"neuron ({l}, {i}) of a bias_trade is not shown active on the domain (z >= 0 by "
                "interval bounds, split groups merged)")
    return None


def _trade(net, spec, lo_hi, bounds, moved, split, blocks, offsets, rows) -> list | str:
    """The vectors of an ``opposite_trade`` entry of layer 0 (three-layer-fibers R40, the
    decider's :mod:`semialgebraic.dimension.trades`), or the reason it is rejected.  Facts:
    every pair ``[p, q]`` has ``(w_q, b_q) = −s (w_p, b_p)`` with ``s > 0``, ``w_p != 0``, and
    neither is dead, unread, in the trade's block or in the layer's active block entry; every
    block neuron is active on the domain (a cube: ``z >= 0`` by interval bounds, with ``z > 0``
    unless it is in the layer's ``active_block`` entry; the orthant: bias and weights > 0; not
    on R^d), not dead, unread or split; the stacked rows ``[w_p…; W_B]`` have rank d; every move
    ``(δ, X)`` has ``Σ δ_g w_{p_g} + X W_B = 0``.  Per move and row k (in no split group of
    layer 1): ``δ_g`` onto ``W_1[k, p_g]``, ``−δ_g / s_g`` onto ``W_1[k, q_g]``, ``X`` onto
    ``W_1[k, B]``, ``−(Σ δ_g b_{p_g} + X b_B)`` onto ``b_1[k]``."""
    if not isinstance(spec, dict) or set(spec) - {"pairs", "block", "moves"} or \
            not all(isinstance(spec.get(k), list) for k in ("pairs", "block", "moves")):
        raise InputError("fiber_moves: an opposite_trade holds a dict of lists pairs, block, moves")
    W, b = net.layer(0)
    V = net.weights[1]
    n, d = W.nrows, W.ncols
    pairs, block = spec["pairs"], spec["block"]
    for pq in pairs:
        if not isinstance(pq, list) or len(pq) != 2 or pq[0] == pq[1]:
            raise InputError(f"fiber_moves: an opposite_trade pair is two neurons: {pq!r}")
        for i in pq:
            _index(i, n, "neuron")
    for i in block:
        _index(i, n, "neuron")
    if len(set(block)) != len(block) or not pairs:
        raise InputError("fiber_moves: an opposite_trade has pairs and a block without repeats")
    listed = set(blocks.get(0, ()))
    for i in block:
        if (0, i) in moved or i in split.get(0, ()):
            return f"neuron (0, {i}) of the trade's block is dead, unread or split"
        if isinstance(lo_hi, tuple):
            lo = bounds[0][i][0]
            if lo is None or lo < 0 or (lo == 0 and i not in listed):
                return (f"neuron (0, {i}) of the trade's block is not active on the cube with a margin "
                        "(z > 0 by interval bounds) nor in the layer's active_block entry")
        elif lo_hi == "orthant":
            if b[i] <= 0 or any(W[i, c] <= 0 for c in range(d)):
                return f"neuron (0, {i}) of the trade's block on the orthant needs a bias and weights > 0"
        else:
            return f"neuron (0, {i}) of the trade's block is in the first layer on R^d: it turns off far away"
    ratios = []
    for p, q in pairs:
        for i in (p, q):
            if (0, i) in moved or i in block or i in listed:
                return f"neuron (0, {i}) of an opposite pair is dead, unread or always active: its row moves"
        rp, rq = list(W.row_at(p)) + [b[p]], list(W.row_at(q)) + [b[q]]
        c = next((c for c in range(d) if rp[c] != 0), None)
        if c is None:
            return f"neuron (0, {p}) has w = 0: no opposite pair"
        s = -rq[c] / rp[c]
        if s <= 0 or any(y != -s * x for x, y in zip(rp, rq)):
            return f"neurons (0, {p}), (0, {q}) do not have opposite rows and biases"
        ratios.append(s)
    M = QMatrix.from_rows([list(W.row_at(p)) for p, _ in pairs] + [list(W.row_at(i)) for i in block], ncols=d)
    if exact_rank(M) != d:
        return (f"the trade's stacked rows have rank below the input dimension {d}: its kernel can "
                "shrink under the block's moves")
    P, nb = len(pairs), offsets[1] + V.nrows * V.ncols
    out = []
    for y in spec["moves"]:
        y = parse_vector(y, "an opposite_trade move")
        if len(y) != P + len(block):
            raise InputError(f"fiber_moves: an opposite_trade move has {P + len(block)} entries")
        if any(v != 0 for v in M.T.apply(y)):
            return "an opposite_trade move leaves an affine part: Σ δ w_p + X W_B != 0"
        const = sum((v * b[i] for v, i in zip(y, [p for p, _ in pairs] + list(block))), Q(0))
        for k in rows:
            v: dict = {nb + k: -const}
            for j, (i, w) in enumerate(zip([p for p, _ in pairs] + list(block), y)):
                at = offsets[1] + k * V.ncols + i
                v[at] = v.get(at, Q(0)) + w
                if j < P:
                    at = offsets[1] + k * V.ncols + pairs[j][1]
                    v[at] = v.get(at, Q(0)) - w / ratios[j]
            out.append(v)
    return out
