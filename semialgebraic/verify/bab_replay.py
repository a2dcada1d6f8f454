r"""Replay of the bounds a ``bab_bound`` certificate (schema 2) relies on: the symbolic intervals
of every layer at a node and the paired differential bound, recomputed from the network alone.

Independent of :mod:`semialgebraic.bab` (its own code; the same definitions): the
back-substitution runs on integer rows over one denominator, every grid number converted with a
check that it is one, the weight products through :class:`algebra.linalg.IntMatrix`.  The definitions (documented in
:mod:`semialgebraic.verify.bab_bound`) are exact, so both sides reach the same grid numbers.

Imports ``algebra`` only.
"""

from __future__ import annotations

from math import gcd

from algebra.linalg import IntMatrix, QMatrix, interval_image
from algebra.rationals import Q

__all__ = ["GRID", "layer_intervals", "paired_deltas", "pair_rows"]

GRID = 40
_SCALE = 2 ** GRID
_Z = Q(0)


def _lo_grid(v):
    return Q(int((v * _SCALE).floor()), _SCALE)


def _hi_grid(v):
    return Q(int((v * _SCALE).ceil()), _SCALE)


def _pos(v):
    return v if v > _Z else _Z


def _lines(layer):
    """Per neuron (upper slope, lower slope, upper constant, lower constant) of its DeepPoly
    relaxation, and per neuron the largest value of its post-activation."""
    out = []
    for lo, hi in layer:
        if lo >= _Z:
            out.append((Q(1), Q(1), _Z, _Z))
        elif hi <= _Z:
            out.append((_Z, _Z, _Z, _Z))
        else:
            up_slope = _hi_grid(hi / (hi - lo))
            out.append((up_slope, Q(1) if hi > -lo else _Z, -up_slope * lo, _Z))
    return [out, [_pos(hi) for _, hi in layer]]


def _exact_int(v, scale):
    """``v · scale`` as an int; the value must be an integer (the replay never rounds here)."""
    w = v * scale
    if w.q != 1:
        raise ValueError(f"{v} is not a multiple of 1/{scale}")
    return int(w.p)


def _np():
    import numpy  # a dependency of netfibers, imported lazily as in the other checkers
    return numpy


def _obj(values):
    return _np().array(values, dtype=object)


_CACHE: dict = {}


def _cached(obj, make):
    """``make(obj)``, remembered for the object *obj* (kept alive with the value, so its id is
    not reused) — integer forms of the certificate's matrices, made once per check."""
    hit = _CACHE.get(id(obj))
    if hit is None or hit[0] is not obj:
        if len(_CACHE) > 256:
            _CACHE.clear()
        hit = _CACHE[id(obj)] = (obj, make(obj))
    return hit[1]


def _int_rows(mat):
    N, d = mat.numer_denom()
    return _obj([int(e) for e in N.entries()]).reshape(mat.nrows, mat.ncols), int(d)


def _substitute(mats, biases, relax, box, top, pick, consts):
    """Upper bounds of ``± rows_j · h_{top-1} + consts`` (``rows_j`` the rows *pick* of layer
    *top*, first with ``+``, then with ``−``) over the node, each row going down
    the relaxations of layers ``top-1 … 0`` to the box; ``relax[k]`` is ``(lines, caps)`` of
    layer ``k`` (lines ``(su, sl, tu, tl)``: the post-activation lies between ``sl·z + tl`` and
    ``su·z + tu``; caps: its largest value).

    Exact, on integers: the rows are ``P / s`` (``P`` a numpy object array), every slope and
    cap an integer multiple of ``2^-GRID`` and every line constant of ``2^-2·GRID``; a layer's
    weights are ``N / d`` (FLINT integer matrix product through :class:`IntMatrix`)."""
    np = _np()
    num, s = _cached(mats[top], _int_rows)
    P = np.concatenate([num[pick], -num[pick]])
    rows = P
    acc = [Q(0)] * len(rows)
    for i, v in enumerate(consts):
        acc[i] += v
    G = _SCALE
    for k in range(top - 1, -1, -1):
        up_s, lo_s, up_c, lo_c, _ = _as_ints(relax[k])
        plus = P > 0
        shift = np.where(plus, P, 0).dot(up_c) + np.where(plus, 0, P).dot(lo_c)
        relaxed = np.where(plus, P * up_s, P * lo_s)            # rows over s·G
        N, d = mats[k].numer_denom()
        d = int(d)
        bias_den = d * _den(biases[k])
        bias_num = [_exact_int(v, bias_den) for v in biases[k]]
        prod = IntMatrix.from_rows(relaxed.tolist()) * N          # rows over s·G·d
        flat = _obj([int(e) for e in prod.entries()]).reshape(len(rows), -1)
        bterm = relaxed.dot(_obj(bias_num))
        for i in range(len(rows)):
            acc[i] += Q(int(shift[i]), s * G * G) + Q(int(bterm[i]), s * G * bias_den)
        if k == 0:
            P, s = flat, s * G * d
            break
        step = s * d                                               # to the grid: floor(flat / step)
        P = flat // step
        spare = (flat - P * step).dot(_as_ints(relax[k - 1])[4])
        for i in range(len(rows)):
            acc[i] += Q(int(spare[i]), s * G * d * G)
        s = G
    bden = 1
    for lo, hi in box:
        bden = bden * int(lo.q) // gcd(bden, int(lo.q))
        bden = bden * int(hi.q) // gcd(bden, int(hi.q))
    lo_v = _obj([_exact_int(lo, bden) for lo, _ in box])
    hi_v = _obj([_exact_int(hi, bden) for _, hi in box])
    best = np.where(P > 0, P * hi_v, P * lo_v)
    return [acc[i] + Q(int(sum(best[i])), s * bden) for i in range(len(rows))]


def _as_ints(entry):
    """The integer forms (slopes and caps times ``2^GRID``, constants times ``2^(2·GRID)``) of a
    layer's relaxation ``[lines, caps]``, converted once and kept as its third item."""
    if len(entry) == 2:
        lines, caps = entry
        G = _SCALE
        entry.append(tuple(_obj([_exact_int(t[i], G if i < 2 else G * G) for t in lines]) for i in range(4))
                     + (_obj([_exact_int(c, G) for c in caps]),))
    return entry[2]


def _den(values):
    out = 1
    for v in values:
        out = out * int(v.q) // gcd(out, int(v.q))
    return out


def layer_intervals(mats, weights, biases, box, neuron_sides, adjust=None):
    """Grid intervals of every layer's pre-activations at a node (None: a split empties one).

    *mats* are the layers as :class:`QMatrix`, *weights* the same as lists of rows,
    *neuron_sides* maps ``(l, j)`` to 0 (``z <= 0``) or 1 (``z >= 0``); *adjust* (optional,
    :mod:`semialgebraic.verify.bab_intermediate`) maps ``(l, hidden layer l, layers below)`` to
    the hidden layer's certified (tightened) intervals, after the splits.
    """
    depth = len(mats)
    ivs, relax = [], []
    for l in range(depth):
        src = box if l == 0 else [(_pos(lo), _pos(hi)) for lo, hi in ivs[l - 1]]
        cur = [(_lo_grid(lo), _hi_grid(hi)) for lo, hi in interval_image(weights[l], src, biases[l])]
        if l >= 1:
            pick = [j for j in range(len(cur)) if l == depth - 1 or cur[j][0] < _Z < cur[j][1]]
            if pick:
                consts = [biases[l][j] for j in pick] + [-biases[l][j] for j in pick]
                ub = _substitute(mats, biases, relax, box, l, pick, consts)
                half = len(pick)
                for t, j in enumerate(pick):
                    lo, hi = cur[j]
                    cur[j] = (max(lo, _lo_grid(-ub[half + t])), min(hi, _hi_grid(ub[t])))
        if l < depth - 1:
            for j in range(len(cur)):
                side = neuron_sides.get((l, j))
                lo, hi = cur[j]
                if side == 0:
                    hi = min(hi, _Z)
                elif side == 1:
                    lo = max(lo, _Z)
                if lo > hi:
                    return None
                cur[j] = (lo, hi)
            if adjust is not None:
                cur = adjust(l, cur, ivs)
                if any(lo > hi for lo, hi in cur):
                    return None
            relax.append(_lines(cur))
        ivs.append(cur)
    return ivs


def _intersect(iv, lo, hi):
    a, b = max(iv[0], lo), min(iv[1], hi)
    if a > b:
        return iv
    return (a, b)


def _pair(za, zb, dd):
    la, ua = za
    lb, ub = zb
    res = (min(_Z, dd[0]), max(_Z, dd[1]))
    res = _intersect(res, _pos(la) - _pos(ub), _pos(ua) - _pos(lb))
    if la >= _Z:
        res = _intersect(res, min(dd[0], la), min(dd[1], ua))
    if lb >= _Z:
        res = _intersect(res, max(dd[0], -ub), max(dd[1], -lb))
    return res


def _delta_network(weights, biases):
    """The layers of ``(δ_l, z_{b,l})`` (rows as lists, biases) from the difference network's:
    ``δ_0 = (A_0 − B_0) x + (α_0 − β_0)``, ``z_{b,0} = B_0 x + β_0``; then ``δ_l = A_l Δh +
    (A_l − B_l) h_b + (α_l − β_l)``, ``z_{b,l} = B_l h_b + β_l`` on ``(Δh, h_b)``."""
    rows_out, bias_out = [], []
    depth = len(weights)
    width_prev = None
    for l in range(depth):
        W, bvec = weights[l], biases[l]
        if l == 0:
            half = len(W) // 2
            rows = [[u - v for u, v in zip(W[j], W[half + j])] for j in range(half)] + [list(r) for r in W[half:]]
            off = [bvec[j] - bvec[half + j] for j in range(half)] + list(bvec[half:])
        elif l < depth - 1:
            half = len(W) // 2
            own = [list(W[j][:width_prev]) for j in range(half)]
            other = [list(W[half + j][width_prev:]) for j in range(half)]
            rows = ([ra + [u - v for u, v in zip(ra, rb)] for ra, rb in zip(own, other)]
                    + [[_Z] * width_prev + rb for rb in other])
            off = [bvec[j] - bvec[half + j] for j in range(half)] + list(bvec[half:])
        else:
            half = len(W)
            own = [list(r[:width_prev]) for r in W]
            rows = [ra + [u + v for u, v in zip(ra, r[width_prev:])] for ra, r in zip(own, W)]
            off = list(bvec)
        rows_out.append(rows)
        bias_out.append(off)
        width_prev = half
    return rows_out, bias_out


def _delta_mats(weights, biases):
    rows, offs = _delta_network(weights, biases)
    return rows, offs, [QMatrix.from_rows(r) for r in rows]


def _pair_lines(za, zb, dd):
    """The NeuroDiff lines of ``Δh = relu(z_a) − relu(z_b)`` in ``δ`` (rules in
    :mod:`semialgebraic.verify.bab_bound`; the intervals first narrowed by each other, ``z_a ∈
    z_b + δ``, ``z_b ∈ z_a − δ``, unless that empties one): ``(su, sl, tu, tl)`` and the
    largest ``Δh``."""
    dl, du = dd
    za2 = (max(za[0], zb[0] + dl), min(za[1], zb[1] + du))
    zb2 = (max(zb[0], za[0] - du), min(zb[1], za[1] - dl))
    if za2[0] <= za2[1] and zb2[0] <= zb2[1]:
        za, zb = za2, zb2
    low, high = _pair(za, zb, dd)
    one = Q(1)
    uppers, lowers = [(_Z, high)], [(_Z, low)]
    if za[0] >= _Z:
        uppers.append((one, _Z))
        lowers.append((one, zb[0] if zb[0] < _Z else _Z))
    if zb[0] >= _Z:
        uppers.append((one, -za[0] if za[0] < _Z else _Z))
        lowers.append((one, _Z))
    if dl >= _Z:
        uppers.append((one, _Z))
        lowers.append((_Z, _Z))
    elif du <= _Z:
        uppers.append((_Z, _Z))
        lowers.append((one, _Z))
    else:
        su = _hi_grid(du / (du - dl))
        uppers.append((su, -su * dl))
        sl = _hi_grid(-dl / (du - dl))
        lowers.append((sl, -sl * du))
    centre = (dl + du) / 2
    pick_u, pick_l = uppers[0], lowers[0]
    for cand in uppers[1:]:
        if cand[0] * centre + cand[1] < pick_u[0] * centre + pick_u[1]:
            pick_u = cand
    for cand in lowers[1:]:
        if cand[0] * centre + cand[1] > pick_l[0] * centre + pick_l[1]:
            pick_l = cand
    return (pick_u[0], pick_l[0], pick_u[1], pick_l[1]), high


def paired_deltas(weights, biases, box, ivs, symbolic=False, every_layer=False):
    """The last layer's δ intervals (bounds of ``a − b``) of the paired differential bound;
    with *symbolic* (``"differential": "neurodiff"``) every layer's δ intervals are also
    intersected with the back-substitution of ``± δ`` through the δ network's relaxations."""
    depth = len(weights)
    delta = None
    width_prev = None
    layers = []
    if symbolic:
        t_rows, t_bias, t_mats = _cached(weights, lambda w: _delta_mats(w, biases))
        t_relax = []
    for l in range(depth):
        W, bvec = weights[l], biases[l]
        last = l == depth - 1
        if l == 0:
            half = len(W) // 2
            diff_rows = [[u - v for u, v in zip(W[j], W[half + j])] for j in range(half)]
            delta = interval_image(diff_rows, box, [bvec[j] - bvec[half + j] for j in range(half)])
        else:
            prev = ivs[l - 1]
            dh = [_pair(prev[j], prev[width_prev + j], delta[j]) for j in range(width_prev)]
            hb = [(_pos(lo), _pos(hi)) for lo, hi in prev[width_prev:]]
            if last:
                own = [list(r[:width_prev]) for r in W]
                other = [[-v for v in r[width_prev:]] for r in W]
                off = list(bvec)
            else:
                half = len(W) // 2
                own = [list(W[j][:width_prev]) for j in range(half)]
                other = [list(W[half + j][width_prev:]) for j in range(half)]
                off = [bvec[j] - bvec[half + j] for j in range(half)]
            gap = [[u - v for u, v in zip(ra, rb)] for ra, rb in zip(own, other)]
            first = interval_image(own, dh, [_Z] * len(own))
            second = interval_image(gap, hb, off)
            delta = [(p[0] + q[0], p[1] + q[1]) for p, q in zip(first, second)]
        here = ivs[l]
        if last:
            delta = [_intersect(dj, lo, hi) for dj, (lo, hi) in zip(delta, here)]
        else:
            half = len(here) // 2
            delta = [_intersect(delta[j], here[j][0] - here[half + j][1], here[j][1] - here[half + j][0])
                     for j in range(half)]
            width_prev = half
        delta = [(_lo_grid(lo), _hi_grid(hi)) for lo, hi in delta]
        if symbolic and l > 0:
            count = len(delta)
            consts = [t_bias[l][j] for j in range(count)] + [-t_bias[l][j] for j in range(count)]
            ub = _substitute(t_mats, t_bias, t_relax, box, l, list(range(count)), consts)
            delta = [_intersect(delta[j], _lo_grid(-ub[count + j]), _hi_grid(ub[j])) for j in range(count)]
        if symbolic and not last:
            pairs = [_pair_lines(here[j], here[half + j], delta[j]) for j in range(half)]
            own_lines, own_caps = _lines(here[half:])
            t_relax.append([[p[0] for p in pairs] + own_lines, [p[1] for p in pairs] + own_caps])
        layers.append(delta)
    return layers if every_layer else delta


def pair_rows(weights, ivs, deltas):
    """Per hidden layer and pair the lines ``(su, tu, sl, tl)`` of ``Δh = h_a − h_b`` in ``δ``
    (the rules of :func:`_pair_lines`, from the symbolic δ of every layer, *deltas*: see
    :func:`paired_deltas`) that a leaf's pair multipliers ``gamma``, ``eta`` refer to."""
    out = []
    for l in range(len(weights) - 1):
        half = len(ivs[l]) // 2
        row = []
        for j in range(half):
            (su, sl, tu, tl), _ = _pair_lines(ivs[l][j], ivs[l][half + j], deltas[l][j])
            row.append((su, tu, sl, tl))
        out.append(row)
    return out
