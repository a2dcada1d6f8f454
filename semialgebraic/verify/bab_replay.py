r"""Replay of the bounds a ``bab_bound`` certificate (schema 2) relies on: the symbolic intervals
of every layer at a node and the paired differential bound, recomputed from the network alone.

Independent of :mod:`semialgebraic.bab` (its own code; the same definitions): the
back-substitution runs on integer rows over one denominator, every grid number converted with a
check that it is one, the weight products on int64 limbs (:mod:`algebra.kernel.limbs`, the
trusted kernel's exact integer products, shared with the search: only that primitive is).  The
definitions (documented in :mod:`semialgebraic.verify.bab_bound`) are exact, so both sides
reach the same grid numbers.

Imports ``algebra`` only.
"""

from __future__ import annotations

from math import gcd

from algebra.kernel.limbs import LimbArith
from algebra.linalg import QMatrix
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


class _Layers:
    """Integer forms of a list of layers (:class:`QMatrix` *mats*, bias lists), made once per
    check: per layer the rows ``N`` (``W = N / d``) as limbs (:mod:`algebra.kernel.limbs`), the
    biases ``c / e`` (each over its own denominator: a bias column over ``d·e`` would need more
    limbs than ``N``), the right operand ``[N | c]`` of a
    substitution step and ``[|N|⁺ᵀ | N⁻ᵀ]`` of an interval image."""

    def __init__(self, mats, biases):
        np = _np()
        ints = [_int_rows(m) for m in mats]
        self.ar = LimbArith(np, max([1] + [max(N.shape) for N, _ in ints]))
        ar = self.ar
        self.rows, self.d, self.c, self.e, self.step, self.image = [], [], [], [], [], []
        for (N, d), bias in zip(ints, biases):
            e = _den(bias)
            c = _obj([_exact_int(v, e) for v in bias])
            self.rows.append(ar.split(N))
            self.d.append(d)
            self.c.append(c)
            self.e.append(e)
            self.step.append(ar.prepare(ar.split(np.hstack([N, c.reshape(-1, 1)]))))
            neg = np.where(N < 0, N, 0)
            self.image.append(ar.prepare(ar.split(np.hstack([(N - neg).T, neg.T]))))

    def bounds(self, l, lo, hi, scale):
        """Exact ``(min, max, den)`` (integer arrays over ``den``) of layer *l*'s
        pre-activations over the box ``[lo / scale, hi / scale]`` (integer lists)."""
        ar = self.ar
        n = len(self.c[l])
        if not len(lo):
            lo_part = up_part = _np().zeros(n, dtype=object)
        else:
            prod = ar.ints(ar.matmul(ar.split(_obj([lo, hi])), self.image[l]))
            lo_part, up_part = prod[0, :n] + prod[1, n:], prod[1, :n] + prod[0, n:]
        e = self.e[l]
        off = self.c[l] * (self.d[l] * scale)
        return lo_part * e + off, up_part * e + off, self.d[l] * scale * e


def _on_grid(num, den):
    """``(⌊num·2^GRID / den⌋, ⌈num·2^GRID / den⌉)`` elementwise (object arrays)."""
    t = num * _SCALE
    return t // den, -((-t) // den)


def _substitute(net, relax, box, top, pick, consts, cden):
    """Upper bounds ``num / den`` of ``± rows_j · h_{top-1} + consts_j / cden`` (``rows_j`` the
    rows *pick* of layer *top* of *net*, a :class:`_Layers`, first with ``+``, then with ``−``)
    over the node, each row going down the relaxations of layers ``top-1 … 0`` to the box;
    ``relax[k]`` is ``(lines, caps)`` of layer ``k`` (lines ``(su, sl, tu, tl)``: the
    post-activation lies between ``sl·z + tl`` and ``su·z + tu``; caps: its largest value).

    Exact, on integers: the rows are ``P / s`` (``P`` limbs, :mod:`algebra.kernel.limbs`: exact
    float64 products and int64 carries), every slope and cap an integer multiple of
    ``2^-GRID`` and every line constant of ``2^-2·GRID``; a layer's weights are ``N / d``.
    Each row is handled alone, so the rows go in blocks."""
    ar = net.ar
    mine = ar.take(net.rows[top], pick)
    P = ar.concat([mine, ar.neg(mine)])
    width = max(len(net.c[k]) for k in range(top + 1))
    block = max(8, (1 << 22) // (width * width))
    parts = [_substitute_block(net, relax, box, top, ar.take(P, slice(r, r + block)))
             for r in range(0, P[0].shape[0], block)]
    den = cden
    for _, d in parts[0]:
        den = den * d // gcd(den, d)
    total = consts * (den // cden)
    for t, (_, d) in enumerate(parts[0]):
        column = _np().concatenate([part[t][0] for part in parts])
        total = total + column * (den // d)
    return total, den


def _substitute_block(net, relax, box, top, P):
    """:func:`_substitute` of a block of rows: ``[(integers, denominator)]`` summing to the
    bounds."""
    np = _np()
    ar = net.ar
    G = _SCALE
    s = net.d[top]
    out = []
    for k in range(top - 1, -1, -1):
        up_s, lo_s, up_c, lo_c = _as_limbs(relax[k], ar)[:4]
        plus, minus = ar.signs(P)
        shift = ar.matmul(ar.keep(P, plus), up_c)
        if lo_c is not None:
            shift = ar.add(shift, ar.matmul(ar.keep(P, minus), lo_c))
        out.append((_col(ar, shift), s * G * G))
        relaxed = ar.mul(P, [np.where(plus, a, b) for a, b in zip(up_s, lo_s)])      # over s·G
        both = ar.matmul(relaxed, net.step[k])                                       # [flat | bias]
        m = both[0].shape[1] - 1
        out.append((_col(ar, [h[:, m:] for h in both]), s * G * net.e[k]))
        flat = [h[:, :m] for h in both]                                              # over s·G·d
        if k == 0:
            P, s = flat, s * G * net.d[k]
            break
        P, spare = ar.floor_div(flat, s * net.d[k])                                  # to the grid
        out.append((_col(ar, ar.matmul(spare, _as_limbs(relax[k - 1], ar)[4])), s * G * net.d[k] * G))
        s = G
    bden = 1
    for lo, hi in box:
        bden = bden * int(lo.q) // gcd(bden, int(lo.q))
        bden = bden * int(hi.q) // gcd(bden, int(hi.q))
    corner = [_obj([_exact_int(v[side], bden) for v in box]).reshape(-1, 1) for side in (0, 1)]
    plus, minus = ar.signs(P)
    best = ar.add(ar.matmul(ar.keep(P, plus), ar.prepare(ar.split(corner[1]))),
                  ar.matmul(ar.keep(P, minus), ar.prepare(ar.split(corner[0]))))
    out.append((_col(ar, best), s * bden))
    return out


def _col(ar, x):
    return ar.ints(x)[:, 0]


def _as_limbs(entry, ar):
    """The limb forms of a layer's relaxation ``[lines, caps]`` (slopes times ``2^GRID`` as one
    row each, padded to one number of limbs; the constants times ``2^(2·GRID)`` and the caps
    times ``2^GRID`` as prepared columns, the lower constants None when all zero), converted
    once and kept as its third item."""
    if len(entry) == 2:
        lines, caps = entry
        G = _SCALE
        ints = [_obj([_exact_int(t[i], G if i < 2 else G * G) for t in lines]) for i in range(4)]
        slopes = [ar.split(v.reshape(1, -1)) for v in ints[:2]]
        top = max(len(x) for x in slopes)
        column = lambda v: ar.prepare(ar.split(v.reshape(-1, 1)))  # noqa: E731
        entry.append((ar.pad(slopes[0], top), ar.pad(slopes[1], top), column(ints[2]),
                      column(ints[3]) if ints[3].any() else None, column(_obj([_exact_int(c, G) for c in caps]))))
    return entry[2]


def _den(values):
    out = 1
    for v in values:
        out = out * int(v.q) // gcd(out, int(v.q))
    return out


def layer_intervals(mats, weights, biases, box, neuron_sides, adjust=None):  # pylint: disable=unused-argument
    """Grid intervals of every layer's pre-activations at a node (None: a split empties one).

    *mats* are the layers as :class:`QMatrix`, *weights* the same as lists of rows (not read
    any more: the integer forms come from *mats*), *neuron_sides* maps ``(l, j)`` to 0
    (``z <= 0``) or 1 (``z >= 0``); *adjust* (optional,
    :mod:`semialgebraic.verify.bab_intermediate`) maps ``(l, hidden layer l, layers below)`` to
    the hidden layer's certified (tightened) intervals, after the splits (grid numbers).  The
    interval image of each layer and the substitutions are exact integer products
    (:class:`_Layers`); the endpoints are kept as integers times ``2^GRID`` until each layer is
    done.
    """
    net = _cached(mats, lambda m: _Layers(m, biases))
    depth = len(mats)
    ivs, relax = [], []
    bden = _den([v for pair in box for v in pair])
    src = ([_exact_int(lo, bden) for lo, _ in box], [_exact_int(hi, bden) for _, hi in box], bden)
    for l in range(depth):
        lo_n, hi_n, den = net.bounds(l, *src)
        low, high = _on_grid(lo_n, den)[0].tolist(), _on_grid(hi_n, den)[1].tolist()
        if l >= 1:
            pick = [j for j in range(len(low)) if l == depth - 1 or low[j] < 0 < high[j]]
            if pick:
                mine = net.c[l][pick]
                num, den = _substitute(net, relax, box, l, pick, _np().concatenate([mine, -mine]), net.e[l])
                ub = _on_grid(num, den)[1].tolist()
                half = len(pick)
                for t, j in enumerate(pick):
                    low[j], high[j] = max(low[j], -ub[half + t]), min(high[j], ub[t])
        if l == depth - 1 and any(a > b for a, b in zip(low, high)):
            return None     # an output's two valid bounds cross: no point of the box is in the node
        if l < depth - 1:
            for j in range(len(low)):
                side = neuron_sides.get((l, j))
                if side == 0:
                    high[j] = min(high[j], 0)
                elif side == 1:
                    low[j] = max(low[j], 0)
                if low[j] > high[j]:
                    return None
        cur = [(Q(a, _SCALE), Q(b, _SCALE)) for a, b in zip(low, high)]
        if l < depth - 1:
            if adjust is not None:
                cur = adjust(l, cur, ivs)
                if any(lo > hi for lo, hi in cur):
                    return None
                # the adjusted endpoints are grid numbers (checked: _exact_int refuses others)
                low = [_exact_int(lo, _SCALE) for lo, _ in cur]
                high = [_exact_int(hi, _SCALE) for _, hi in cur]
            relax.append(_lines(cur))
        ivs.append(cur)
        src = ([max(a, 0) for a in low], [max(b, 0) for b in high], _SCALE)
    return ivs


def _intersect(iv, lo, hi):
    a, b = max(iv[0], lo), min(iv[1], hi)
    if a > b:
        return iv
    return (a, b)


def _meets(iv, other):
    return max(iv[0], other[0]) <= min(iv[1], other[1])


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


def paired_deltas(weights, biases, box, ivs, symbolic=False, every_layer=False, adjust=None):
    """The last layer's δ intervals (bounds of ``a − b``) of the paired differential bound;
    with *symbolic* (``"differential": "neurodiff"``) every layer's δ intervals are also
    intersected with the back-substitution of ``± δ`` through the δ network's relaxations.
    Each symbolic δ is kept inside the plain one (``symbolic=False``), replaced by it when
    the two are disjoint (then no point of the node exists).
    *adjust* (optional, :mod:`semialgebraic.verify.bab_intermediate`) maps ``(l, δ of hidden
    layer l, δ of the layers below)`` to layer *l*'s certified (tightened) δ, before its
    lines are made.
    The interval rule's sum ``A_l Δh + (A_l − B_l) relu(z_b) + (α_l − β_l)`` is the exact
    interval image of the δ rows of the δ network (:func:`_delta_network`) over ``(Δh, h_b)``."""
    depth = len(weights)
    plain = paired_deltas(weights, biases, box, ivs, every_layer=True) if symbolic else None
    delta = None
    width_prev = None
    layers = []
    _, t_bias, t_mats = _cached(weights, lambda w: _delta_mats(w, biases))
    net = _cached(t_mats, lambda m: _Layers(m, t_bias))
    t_relax = []
    bden = _den([v for pair in box for v in pair])
    for l in range(depth):
        last = l == depth - 1
        if l == 0:
            src = ([_exact_int(lo, bden) for lo, _ in box], [_exact_int(hi, bden) for _, hi in box], bden)
        else:
            prev = ivs[l - 1]
            dh = [_pair(prev[j], prev[width_prev + j], delta[j]) for j in range(width_prev)]
            both = dh + [(_pos(lo), _pos(hi)) for lo, hi in prev[width_prev:]]
            src = ([_exact_int(lo, _SCALE) for lo, _ in both], [_exact_int(hi, _SCALE) for _, hi in both], _SCALE)
        count = len(weights[l]) if last else len(weights[l]) // 2
        lo_n, hi_n, den = net.bounds(l, *src)
        delta = [(Q(int(a), den), Q(int(b), den)) for a, b in zip(lo_n[:count], hi_n[:count])]
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
            mine = net.c[l][:count]
            num, den = _substitute(net, t_relax, box, l, list(range(count)), _np().concatenate([mine, -mine]),
                                   net.e[l])
            ub = [Q(v, _SCALE) for v in _on_grid(num, den)[1].tolist()]
            delta = [_intersect(delta[j], -ub[count + j], ub[j]) for j in range(count)]
            # kept inside the plain δ (interval rules alone), or that one when disjoint: the
            # node is then empty, as both enclose δ on the node
            delta = [_intersect(dj, *pj) if _meets(dj, pj) else pj for dj, pj in zip(delta, plain[l])]
        if adjust is not None and not last:
            delta = adjust(l, delta, layers)
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
