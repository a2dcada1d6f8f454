r"""Choice of the inputs whose exact Jacobian rows give the lower bound of the functional dimension.

Floats only *choose* inputs (three-layer-fibers R22 FIBDIM, generalised to depth L): from a large
float pool (random directions at scales 2^-12 … 2^12 times the first-layer kink distance), at most
d + 1 per guessed activation pattern, distinct patterns first; then inputs that exercise every
weight W_l[i,k] (δ_l[i] and h_{l-1}[k] non-zero together) several times; weights never exercised
in the pool get Gauss–Newton walks across the two kinks involved, and kernel directions still
missing get walks to the sign conditions that would exercise them.  Every chosen input is an
exact dyadic rational whose masks are recomputed exactly (:func:`exact_masks`: inputs where
θ ↦ f_θ(x) is not differentiable are dropped, :mod:`algebra.kernel.differentiability`), and
every region reached contributes d + 1 affinely independent exact inputs (:func:`batch_simplex`; the rows are affine in x on a region).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 0], [0]])
>>> X, masks = exact_masks(net, [(1, -1), (0, 1), (2, 3)])
>>> X, masks[0].tolist()            # (0, 1): a zero pre-activation the output sees: dropped
([(1, -1), (2, 3)], [[1.0, 0.0], [1.0, 1.0]])
"""

from __future__ import annotations

import logging

from algebra.kernel import parameter_places
from algebra.kernel.differentiability import kink_witness
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from ..budget import checkpoint
from ..sets.domains import in_domain

__all__ = ["chosen_inputs", "exact_masks", "batch_simplex", "simplex_points", "spread_points", "COVER",
           "WALK_STEPS", "SPREAD"]

COVER = 6
"""Inputs wanted per weight (coverage) by :func:`chosen_inputs`."""

WALK_STEPS = 3000
"""Gauss–Newton steps of the float walks towards never-exercised weights (and towards missing
directions), per round: a count of work, not seconds, so that the inputs chosen depend only on the
seed and the rounds done, never on the clock (the budget stops sampling between whole rounds)."""

_log = logging.getLogger(__name__)


SPREAD = 16
"""Inputs per exact witness of a rarely met sign condition (:func:`spread_points`)."""

_SPREAD_TRIES = 14              # step lengths tried per move (halving)


def _np():
    import numpy
    return numpy


def chosen_inputs(net: Network, dom, nrng, want: int, pool: int, evidence: dict, round_no: int, *,
                  cover: int = COVER) -> list:
    """About *want* exact inputs picked from *pool* float candidates: random ones, then for every
    weight (i, k) of layer l exercised fewer than *cover* times (∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k]
    needs δ_l[i] != 0 and h_{l-1}[k] != 0 together), candidates that exercise it.

    The float forward pass only *guesses* patterns; the returned points are exact dyadic
    rationals whose masks are recomputed exactly by :func:`exact_masks`, so the choice affects
    only how fast the certified lower bound grows, never its soundness.  *evidence* collects the
    neurons never seen active / inactive and the weights never exercised (hints for the reason
    and suspects for :mod:`semialgebraic.dimension.suspects`).
    """
    np = _np()
    Ws = [np.array([[float(v) for v in r] for r in w.to_rows()]).reshape(w.nrows, w.ncols) for w in net.weights]
    bs = [np.array([float(v) for v in b]) for b in net.biases]
    U, Xf = _float_pool(net, dom, nrng, pool, round_no, Ws, bs)
    U, Xf = _first_layer_corners(dom, nrng, U, Xf, Ws, bs)
    U, Xf = _rare_sides(dom, nrng, U, Xf, Ws, bs)
    pool = len(U)
    A, hs, nz = _float_passes(Ws, bs, Xf, net.n_outputs)
    flat = np.hstack(A) if A else np.zeros((pool, 0), dtype=bool)
    on_any, off_any = flat.any(axis=0), (~flat).any(axis=0)
    evidence["never_on"] = evidence.get("never_on", ~on_any) & ~on_any
    evidence["never_off"] = evidence.get("never_off", ~off_any) & ~off_any
    _successor_signs(A, evidence)
    chosen = _distinct_patterns(flat, nrng, pool, net.n_inputs, want)
    unexercised = _cover_weights(nz, hs, chosen, pool, cover)
    if unexercised:
        extra, unexercised = _walk_to_pairs(Ws, bs, Xf, A, nz, unexercised, dom, max_steps=WALK_STEPS)
        if extra:
            U = np.vstack([U, _pool_coordinates(np, extra, dom)])
            chosen += list(range(pool, pool + len(extra)))
    evidence["unexercised"] = unexercised
    if evidence.get("missing"):
        sign_targets = [T for sup in evidence["missing"][:24] for T in _direction_targets(net, sup)]
        extra = _walk_to_signs(Ws, bs, Xf, sign_targets, dom, WALK_STEPS)
        _log.debug("sign walks: %d targets, %d inputs", len(sign_targets), len(extra))
        if extra:
            U = np.vstack([U, _pool_coordinates(np, extra, dom)])
            chosen += list(range(len(U) - len(extra), len(U)))
    return _exact_points(net, dom, U, chosen, pool)


def _pool_coordinates(np, X, dom):
    """The walks' float inputs *X* in the pool's coordinates: themselves, or on a cube
    ``(lo, hi)`` their unit-cube coordinates (inside it by 2^-13, as the pool's, on a grid of
    2^-40: exact dyadic floats)."""
    X = np.array(X)
    if not isinstance(dom, tuple):
        return X
    lo, hi = float(dom[0]), float(dom[1])
    U = np.clip((X - lo) / (hi - lo), 2.0 ** -13, 1 - 2.0 ** -13)
    return np.round(U * 2.0 ** 40) / 2.0 ** 40


def _float_pool(net, dom, nrng, pool, round_no, Ws, bs) -> tuple:
    """(U, Xf): *pool* random float inputs (dyadic), as unit-box coordinates U (box domains) or
    points, and the float points Xf: random directions at scales 2^-12 … 2^12 (2^-20 … 2^20
    after the first round) times the typical first-layer kink distance."""
    np = _np()
    d = net.n_inputs
    # rows with a zero weight row have no kink: left out (a constant neuron's |b| / 0 would put
    # the whole pool near 1e300, dim_campaign seed 2105: not one input where it is differentiable)
    norms = np.linalg.norm(Ws[0], axis=1) if net.depth > 1 else np.zeros(0)
    typ = np.median(np.abs(bs[0][norms > 0]) / norms[norms > 0]) if (norms > 0).any() else 1.0
    typ = float(typ) if 0 < typ < float("inf") else 1.0
    lo_e, hi_e = (-12, 12) if round_no == 0 else (-20, 20)
    if isinstance(dom, tuple):
        U = nrng.random((pool, d))
        edge = nrng.random((pool, d)) < 0.1                # some coordinates pinned near the faces
        U = np.where(edge, np.round(U), U) * (1 - 2 ** -12) + 2 ** -13
        U = np.round(U * 2 ** 24) / 2 ** 24
        return U, float(dom[0]) + (float(dom[1]) - float(dom[0])) * U
    X = nrng.standard_normal((pool, d)) * (typ * 2.0 ** nrng.uniform(lo_e, hi_e, size=(pool, 1)))
    if dom == "orthant":
        X = np.abs(X)
    e = np.floor(np.log2(np.abs(X).max(axis=1, keepdims=True).clip(2.0 ** -900)))
    q = 2.0 ** (30 - e)
    X = np.round(X * q) / q                              # dyadic: exact in float and in Q
    return X, X


CORNER_INPUTS = 4
"""Pool candidates per input dimension (and one more) added in each rarely met side of a
first-layer neuron on a cube (:func:`_first_layer_corners`)."""


def _first_layer_corners(dom, nrng, U, Xf, Ws, bs) -> tuple:
    """On a cube ``(lo, hi)``: (U, Xf) with more candidates where a first-layer neuron is active
    (inactive) when fewer than d + 1 of the pool's are.  The side {s · z_i > 0} of the cube is a
    polytope holding the vertex that maximises s · z_i (the sign pattern of s · w_i) when that
    maximum is positive, and it is star-shaped from that vertex: the candidates are the points
    v + t (u − v), u from the pool, t uniform in (0, t_max) with t_max where s · z_i turns 0 on
    the segment (a 16-60-60-8 net on a ball of radius 1/100: three first-layer neurons active
    only in corners no uniform candidate reached).  Floats choose only; the same margins and
    grid as the pool's."""
    np = _np()
    if not isinstance(dom, tuple) or len(Ws) < 2 or not len(U):
        return U, Xf
    lo, hi = float(dom[0]), float(dom[1])
    d = U.shape[1]
    W = Ws[0] * (hi - lo)                       # z = W u + c on the unit cube
    c = bs[0] + Ws[0].sum(axis=1) * lo
    on = ((U @ W.T + c) > 0).sum(axis=0)
    per, extra = CORNER_INPUTS * (d + 1), []
    for i in range(W.shape[0]):
        for s, count in ((1.0, on[i]), (-1.0, len(U) - on[i])):
            w, ci = s * W[i], s * c[i]
            v = (w > 0).astype(np.float64)
            zv = float(v @ w + ci)
            if count > d or not zv > 0 or not w.any():
                continue
            base = U[nrng.integers(0, len(U), size=per)]
            zu = base @ w + ci
            tmax = np.where(zu < 0, zv / np.maximum(zv - zu, 1e-300), 1.0)
            t = nrng.random(per) * tmax
            extra.append(v + t[:, None] * (base - v))
        if sum(map(len, extra)) >= len(U):
            break
    if not extra:
        return U, Xf
    E = np.vstack(extra) * (1 - 2 ** -12) + 2 ** -13
    E = np.round(E * 2 ** 24) / 2 ** 24
    U = np.vstack([U, E])
    return U, lo + (hi - lo) * U


RARE_STARTS = 2
"""Pool candidates of a rarely met side that :func:`_rare_sides` spreads from."""

RARE_SHARE = 8
""":func:`_rare_sides` adds at most the pool's size over this many candidates: the uniform pool
stays the bulk."""


def _rare_sides(dom, nrng, U, Xf, Ws, bs) -> tuple:
    """(U, Xf) with more candidates on the rarely met side of each hidden neuron: where between
    1 and d of the pool's are active (inactive), from each of its first :data:`RARE_STARTS`
    such candidates x0, points x0 + t (u − x0) towards random pool candidates u, t = 2^-s with
    s uniform in [0, 16], kept where the float pass gives the neuron that sign (a deeper neuron
    live on a sliver the pool met once: its incoming weights need inputs across the sliver's
    regions; 16-60-60-8 on a ball of radius 1/100: 322 -> 330 at --timeout 60).  On cubes
    only (convex combinations stay in them): on R^d and the orthant the pool spans 2^±12 times
    the kink distance and the walks run, and there the extra candidates made 8-32-32-32-1 normal
    seed 5's sampling stall a round earlier (2296 -> 2286).  At most the pool's size over
    :data:`RARE_SHARE` candidates; floats choose only."""
    np = _np()
    if not isinstance(dom, tuple) or len(Ws) < 2 or not len(U):
        return U, Xf
    n, d = U.shape
    zs = _pre_all(Ws, bs, Xf, len(Ws) - 2)
    per = CORNER_INPUTS * (d + 1)
    starts, owners = [], []
    for l, z in enumerate(zs):
        on = z > 0
        for i in range(z.shape[1]):
            for s, side in ((1.0, on[:, i]), (-1.0, ~on[:, i])):
                c = int(side.sum())
                if 1 <= c <= d:
                    for t0 in np.flatnonzero(side)[:RARE_STARTS]:
                        starts.append(int(t0))
                        owners.append((l, i, s))
        if len(starts) * per >= n // RARE_SHARE:
            break
    if not starts:
        return U, Xf
    starts, owners = starts[: max(1, n // RARE_SHARE // per)], owners[: max(1, n // RARE_SHARE // per)]
    base = np.repeat(np.array(starts), per)
    towards = nrng.integers(0, n, size=base.size)
    t = 2.0 ** -nrng.uniform(0, 16, size=(base.size, 1))
    E = U[base] + t * (U[towards] - U[base])
    E = np.round(E * 2 ** 24) / 2 ** 24
    lo, hi = float(dom[0]), float(dom[1])
    XE = lo + (hi - lo) * E
    zE = _pre_all(Ws, bs, XE, max(l for l, _, _ in owners))
    keep = np.zeros(base.size, dtype=bool)
    for k, (l, i, s) in enumerate(owners):
        rows = slice(k * per, (k + 1) * per)
        keep[rows] = s * zE[l][rows, i] > 0
    if not keep.any():
        return U, Xf
    return np.vstack([U, E[keep]]), np.vstack([Xf, XE[keep]])


def _successor_signs(A, evidence) -> None:
    """``evidence["successors"][(l, i)] = [active count, always on, never on]``: per neuron of
    a hidden layer l followed by a hidden layer, over the float inputs where it is active (all
    rounds together), how often, and which successors (layer l + 1) were always / never active
    there: candidates of :func:`semialgebraic.dimension.suspects.fixed_successor_candidates`
    (guesses only); ``evidence["off_successors"][(l, i)] = [inactive count, ever on]``: the
    successors ever seen active where (l, i) was inactive (a neuron with none among its
    successors of non-zero weight is a masked suspect,
    :func:`semialgebraic.dimension.suspects.masked_candidates`)."""
    np = _np()
    seen = evidence.setdefault("successors", {})
    masked = evidence.setdefault("off_successors", {})
    for l in range(len(A) - 1):
        for i in np.flatnonzero(A[l].any(axis=0)):
            nxt = A[l + 1][A[l][:, i]]
            n, on, off = seen.get((l, int(i)), (0, True, True))
            seen[(l, int(i))] = [n + len(nxt), on & nxt.all(axis=0), off & ~nxt.any(axis=0)]
        for i in range(A[l].shape[1]):          # masked suspects: successors seen on where i is off
            nxt = A[l + 1][~A[l][:, i]]
            n, ever = masked.get((l, i), (0, False))
            masked[(l, i)] = [n + len(nxt), ever | nxt.any(axis=0)]


def _float_passes(Ws, bs, Xf, n_outputs) -> tuple:
    """Float forward / structural backward pass (guesses): activation masks A per hidden layer,
    the non-zero inputs hs of each layer (with a constant 1 column) and the structurally
    non-zero δ (nz) per layer."""
    np = _np()
    pool, L = len(Xf), len(Ws)
    A = []
    h = Xf
    hs = [np.hstack([np.abs(Xf) > 0, np.ones((pool, 1), dtype=bool)])]
    for l in range(L - 1):
        z = h @ Ws[l].T + bs[l]
        on = z > 0
        A.append(on)
        h = np.where(on, z, 0.0)
        hs.append(np.hstack([on, np.ones((pool, 1), dtype=bool)]))
    nz = [None] * L
    nz[L - 1] = np.ones((pool, n_outputs), dtype=bool)
    for l in range(L - 2, -1, -1):
        nz[l] = A[l] & ((nz[l + 1].astype(np.float64) @ (np.abs(Ws[l + 1]) > 0)) > 0)
    return A, hs, nz


def _distinct_patterns(flat, nrng, pool, d, want) -> list:
    """At most d + 1 inputs per (guessed) activation pattern: on one region the rows are affine
    in x, so more cannot raise the rank; distinct patterns first, in random order."""
    np = _np()
    keys = np.packbits(flat, axis=1) if flat.shape[1] else np.zeros((pool, 1), dtype=np.uint8)
    keys = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).ravel()
    order = nrng.permutation(pool)
    _, inv = np.unique(keys[order], return_inverse=True)
    occ = np.zeros(pool, dtype=np.int64)
    seen: dict = {}
    for t, g in enumerate(inv.tolist()):
        occ[t] = seen.get(g, 0)
        seen[g] = occ[t] + 1
    ranked = order[np.argsort(occ, kind="stable")]
    ranked = ranked[np.sort(occ)[: len(ranked)] <= d]
    return list(ranked[:want])


def _cover_weights(nz, hs, chosen, pool, cover) -> list:
    """Add to *chosen* (in place) pool inputs until every weight is exercised *cover* times when
    the pool allows; returns the weights (l, i, k) the pool never exercises."""
    np = _np()
    taken = np.zeros(pool, dtype=bool)
    taken[chosen] = True
    unexercised = []
    free = ~taken
    for l in range(len(nz)):
        aT = np.ascontiguousarray(nz[l].T)
        bT = np.ascontiguousarray(hs[l].T)
        cnt = aT[:, taken].astype(np.float32) @ bT[:, taken].T.astype(np.float32)
        for i, k in zip(*np.nonzero(cnt < cover)):
            if cnt[i, k] >= cover:
                continue
            cand = np.flatnonzero(aT[i] & bT[k] & free)
            if cand.size:
                pick = cand[: cover - int(cnt[i, k])]
                free[pick] = False
                chosen += list(pick)
                for t in pick:
                    cnt += np.outer(aT[:, t], bT[:, t])
            elif cnt[i, k] == 0 and not (aT[i] & bT[k]).any():
                unexercised.append((l, int(i), int(k)))
    return unexercised


def _exact_points(net, dom, U, chosen, pool) -> list:
    """The exact rationals the chosen float inputs denote (and d more inputs in each region a
    walk reached: the rows are affine in x on a region)."""
    if isinstance(dom, tuple):
        lo, hi = dom
        out = [tuple(lo + (hi - lo) * Q(*float(u).as_integer_ratio()) for u in U[t]) for t in chosen]
    else:
        out = [tuple(Q(*float(v).as_integer_ratio()) for v in U[t]) for t in chosen]
    walked = [out[c] for c, t in enumerate(chosen) if t >= pool]
    # each walked base gets d more points of its region, for at most SIMPLEX_POINTS in all (64
    # bases of R^784: 50 176 exact patterns, 40 of dim --timeout 60's seconds and no row at all;
    # session 39); the others count as their base point alone
    walked = walked[:max(1, SIMPLEX_POINTS // max(1, net.n_inputs))]
    if walked:
        out += batch_simplex(net, walked, dom)[len(walked):]
    return out


SIMPLEX_POINTS = 4096
"""At most this many extra points (d per walked base) in one round of :func:`_exact_points`."""


def _walk_to_pairs(Ws, bs, Xf, A, nz, pairs, dom, starts=32, steps=10, max_steps=WALK_STEPS):
    """Float guesses of inputs exercising weights (l, i, k) never exercised in the pool
    (δ_l[i] != 0 needs z_l[i] > 0, h_{l-1}[k] != 0 needs z_{l-1}[k] > 0): from the pool inputs
    with the largest min(z_{l-1}[k], z_l[i]), Gauss–Newton steps on the two linearised
    pre-activations (least-norm step to slightly positive values, overshoot growing); kept when
    the float pass says the pair is exercised.  Returns (dyadic float inputs, pairs not reached)."""
    np = _np()
    out, missing = [], []
    done = 0                                   # Gauss–Newton steps so far (the work cap)
    # the pairs of two neurons each seen active in the pool (a neuron never seen active is a
    # question for the branch and bound of the suspects: dead ones would take every walk)
    seen = [a.any(axis=0) for a in A]
    walkable = [(l, i, k) for l, i, k in pairs
                if 1 <= l and k < Ws[l].shape[1] and seen[l - 1][k] and (l >= len(A) or seen[l][i])]
    kept = set(walkable)
    missing = [t for t in pairs if t not in kept]
    pairs = walkable
    zs = None                                  # the pool's pre-activations, once (session 39)
    for l, i, k in pairs[:64]:
        if done >= max_steps:
            missing.append((l, i, k))
            continue
        checkpoint()                           # an exhausted active budget stops here (a stop only)
        if zs is None:
            zs = _pre_all(Ws, bs, Xf, max(t[0] for t in pairs[:64]))
        scale = 1.0 + np.abs(Xf).max(axis=1)
        score = np.minimum(zs[l - 1][:, k], zs[l][:, i]) / scale
        found = False
        for t in np.argsort(-score)[:starts]:
            x = Xf[t].copy()
            for it in range(steps):
                done += 1
                (zk, gk), (zi, gi) = _pre_and_grad(Ws, bs, x, l - 1, k), _pre_and_grad(Ws, bs, x, l, i)
                G = np.vstack([gk, gi])
                tgt = np.array([max(0.0, -zk), max(0.0, -zi)]) * (1.0 + 0.5 * it) \
                    + 1e-3 * (1.0 + np.abs(x).max())
                x = _newton_step(np, x, G, tgt, dom)
                if x is None:
                    break
                if _exercises(Ws, bs, x, l, i, k):
                    out.append(x)
                    found = True
                    break
            if found:
                break
        if not found:
            missing.append((l, i, k))
    return out, missing + pairs[64:]


def _direction_targets(net, sup) -> list:
    """Sign targets [(hidden layer, neuron, ±1), ...] of inputs that could exercise a kernel
    direction mod p supported on the parameters *sup* (a guide for the float walks only):
    W_l[i,k] alone -> (l-1,k) and (l,i) active; several W_l[·,k] -> (l-1,k) active with two of
    the entered neurons in different phases (both ways); otherwise the first entered neuron."""
    L, dec = net.depth, parameter_places(net, sup)
    l, i, k = dec[0]
    if l == L - 1:
        return [[(l - 1, k, 1)]] if k is not None else []
    if k is not None and l >= 1 and all(e[0] == l and e[2] == k for e in dec):
        if len(dec) == 1:
            return [[(l - 1, k, 1), (l, i, 1)]]
        i2 = dec[1][1]
        return [[(l - 1, k, 1), (l, i, 1), (l, i2, -1)], [(l - 1, k, 1), (l, i, -1), (l, i2, 1)]]
    if l < L - 1 and all(e[0] == l and e[1] == i for e in dec):   # incoming of one neuron
        ks = [e[2] for e in dec if e[2] is not None]
        ks = ks[:2] + ks[2::max(1, (len(ks) - 2) // 3)][:3]         # a few spread over the support
        if l >= 1:
            return [[(l, i, 1), (l - 1, k2, s2)] for k2 in ks for s2 in (1, -1)] or [[(l, i, 1)]]
    return [[(l, i, 1)]] if l < L - 1 else []


def _walk_to_signs(Ws, bs, Xf, target_sets, dom, max_steps, starts=8, steps=12) -> list:
    """Float guesses (dyadic) of inputs with sign(z_t[j]) = s for every (t, j, s) of a target
    set: Gauss–Newton steps on the linearised pre-activations from the pool inputs that come
    closest (the same walk as :func:`_walk_to_pairs`, with signs).  Guesses only: the caller
    recomputes every pattern exactly."""
    np = _np()
    out, done = [], 0
    zs = None                                  # the pool's pre-activations, once (session 39)
    for T in target_sets:
        if done >= max_steps:                  # a count of work, never the clock
            break
        checkpoint()                           # an exhausted active budget stops here (a stop only)
        if zs is None:
            zs = _pre_all(Ws, bs, Xf, max(t for S in target_sets for t, _, _ in S))
        scale = 1.0 + np.abs(Xf).max(axis=1)
        score = np.min(np.vstack([s * zs[t][:, j] for t, j, s in T]), axis=0) / scale
        for t0 in np.argsort(-score)[:starts]:
            x = Xf[t0].copy()
            hit = False
            for it in range(steps):
                done += 1
                vals = [_pre_and_grad(Ws, bs, x, t, j) for t, j, _ in T]
                sz = np.array([s * z for (_, _, s), (z, _) in zip(T, vals)])
                if (sz > 0).all():
                    hit = True
                    break
                G = np.vstack([s * g for (_, _, s), (_, g) in zip(T, vals)])
                tgt = np.maximum(0.0, -sz) * (1.0 + 0.5 * it) + 1e-3 * (1.0 + np.abs(x).max())
                x = _newton_step(np, x, G, tgt, dom)
                if x is None:
                    break
            if hit:
                out.append(x)
                break
    return out


def _newton_step(np, x, G, tgt, dom):
    """One minimum-norm Gauss–Newton step x + Gᵀ (G Gᵀ)⁻¹ tgt (float guess; kept in the orthant
    or projected onto the cube when the domain is one), rounded to 30 significant bits so that the exact rational it denotes is
    short; None when the step fails or leaves a sane range."""
    try:
        x = x + G.T @ np.linalg.lstsq(G @ G.T, tgt, rcond=None)[0]
    except np.linalg.LinAlgError:
        return None
    if dom == "orthant":
        x = np.abs(x)
    elif isinstance(dom, tuple):               # a cube: projected onto it (inside by 2^-13)
        lo, hi = float(dom[0]), float(dom[1])
        x = np.clip(x, lo + (hi - lo) * 2.0 ** -13, hi - (hi - lo) * 2.0 ** -13)
    if not np.isfinite(x).all() or not 2.0 ** -900 < np.abs(x).max() < 2.0 ** 900:
        return None
    e = np.floor(np.log2(np.abs(x).max()))
    return np.round(x * 2.0 ** (30 - e)) / 2.0 ** (30 - e)


def _pre_all(Ws, bs, X, layer):
    np = _np()
    h, zs = X, []
    for l in range(layer + 1):
        z = h @ Ws[l].T + bs[l]
        zs.append(z)
        h = np.maximum(z, 0.0)
    return zs


def _pre_and_grad(Ws, bs, x, layer, k):
    """``(z_layer[k](x), its gradient in x)`` (floats: a walk's guide): the forward pass to
    layer *layer*, then one row carried back through the masks — not the full Jacobian, which
    made each call 0.12 s on a 784-512-512-10 net and a ``dim --timeout 20`` sample nothing
    (session 39)."""
    np = _np()
    h, ons = x, []
    for l in range(layer):
        z = Ws[l] @ h + bs[l]
        on = z > 0
        ons.append(on)
        h = np.where(on, z, 0.0)
    g = Ws[layer][k]
    zk = float(g @ h + bs[layer][k])
    for l in range(layer - 1, -1, -1):
        g = (g * ons[l]) @ Ws[l]
    return zk, g


def _exercises(Ws, bs, x, l, i, k) -> bool:
    np = _np()
    h, masks = x, []
    for t in range(len(Ws) - 1):
        z = Ws[t] @ h + bs[t]
        masks.append(z > 0)
        h = np.where(z > 0, z, 0.0)
    if not masks[l - 1][k]:
        return False
    nzv = np.ones(Ws[-1].shape[0], dtype=bool)
    for t in range(len(Ws) - 2, l - 1, -1):
        nzv = masks[t] & ((np.abs(Ws[t + 1]) > 0).T.astype(float) @ nzv.astype(float) > 0)
    return bool(nzv[i])


def spread_points(net: Network, dom, witness, targets: dict, count: int | None = None, seed: int = 0) -> list:
    """*count* (default :data:`SPREAD`) inputs spread over the set where every target sign holds (``s·z_t[j] > 0`` for
    ``((t, j), s)`` in *targets*), from an exact *witness* of it: a seeded float hit-and-run walk
    (random directions; the longest of a halving sequence of steps that keeps every target sign
    with a margin and stays in the domain).

    A witness of a rarely active neuron (or pair) is one region; the parameters it alone
    exercises (its incoming and outgoing weights) need rows at many inputs of its active set,
    in several regions, to reach their rank.  Floats only choose: the returned inputs are
    exact dyadic rationals whose masks :func:`exact_masks` recomputes (an input that left the
    set still gives a correct row).  Deterministic given *seed* (no clock).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    >>> pts = spread_points(net, None, (1, 1), {(0, 0): 1, (0, 1): 1}, count=5)
    >>> len(pts), all(net.activation_pattern(x)[:2] == (1, 1) for x in pts)
    (5, True)
    """
    np = _np()
    count = SPREAD if count is None else count
    if not targets or count <= 0:
        return []
    Ws = [np.array([[float(v) for v in r] for r in w.to_rows()]).reshape(w.nrows, w.ncols) for w in net.weights]
    bs = [np.array([float(v) for v in b]) for b in net.biases]
    top = max(t for t, _ in targets)
    keys = sorted(targets.items())
    rng = np.random.default_rng([seed] + [v for (t, j), s in keys for v in (t, j, s + 1)])
    x = np.array([float(v) for v in witness])
    d = len(x)
    lo = hi = None
    if isinstance(dom, tuple):
        lo, hi = float(dom[0]), float(dom[1])
    elif dom == "orthant":
        lo = 0.0

    def margins(X):
        zs = _pre_all(Ws, bs, X, top)
        return np.min(np.stack([s * zs[t][:, j] for (t, j), s in keys]), axis=0)

    base = margins(x[None, :])[0]
    if not base > 0:
        return []
    out = []
    halving = 2.0 ** -np.arange(_SPREAD_TRIES)
    for _ in range(count * 4):
        if len(out) >= count:
            break
        u = rng.standard_normal(d)
        u /= np.linalg.norm(u)
        scale = (hi - lo) / 2 if hi is not None else max(float(np.abs(x).max()), 1e-3)
        C = x + (rng.choice([-1.0, 1.0]) * scale * rng.uniform(0.5, 1.0)) * halving[:, None] * u
        ok = margins(C) > 1e-9 * max(1.0, float(np.abs(C).max()))
        if lo is not None:
            ok &= (C >= lo).all(axis=1)
        if hi is not None:
            ok &= (C <= hi).all(axis=1)
        if not ok.any():
            continue
        y = C[int(np.argmax(ok))]
        e = np.floor(np.log2(np.abs(y).max().clip(2.0 ** -900)))
        q = 2.0 ** (30 - e)
        y = np.round(y * q) / q                        # dyadic: exact in float and in Q
        if lo is not None:
            y = np.maximum(y, lo)
        if hi is not None:
            y = np.minimum(y, hi)
        x = y
        out.append(tuple(Q(*float(v).as_integer_ratio()) for v in y))
    return out


def batch_simplex(net: Network, bases, dom=None, missing: list | None = None) -> list:
    """Each base point and d points x ± t e_k of its region (patterns checked exactly, in batch;
    t = 2^-20, then 2^-40, …, 2^-160; the step is −t where +t leaves the domain *dom*, a smaller
    t where both do; points whose region cannot be matched inside the domain are dropped, and
    the indices of their bases are appended to *missing*: those regions hold fewer than d + 1 of
    the points, so their Jacobian rows need not span the region's — dim campaign seed 7008, a
    region 1e-21 thin; a domain narrower than 2^-20, session 41)."""
    if not bases:
        return []
    d = net.n_inputs
    pats = _patterns(net, bases)
    out = list(map(tuple, bases))
    todo = [(i, k) for i in range(len(bases)) for k in range(d)]
    t = Q(1, 2**20)
    w = _narrowest(dom)
    while w is not None and 0 < w < 4 * t:    # a domain narrower than 4 t: start below it (a
        t /= 2                                 # cube of width 1e-60 was an interval, s41 audit)
    for _ in range(8):
        if not todo:
            break
        cand, kept, rest = [], [], []
        for c, (i, k) in enumerate(todo):
            if c % 256 == 0:
                checkpoint()                   # d points per base: 64 bases of R^784 are 50 176
            for step in (t, -t):
                y = list(bases[i])
                y[k] += step
                if in_domain(y, dom):
                    cand.append(tuple(y))
                    kept.append((i, k))
                    break
            else:                 # both steps leave the domain: a smaller t next round (they
                rest.append((i, k))   # were dropped, the region counted as holding d + 1 points:
                                      # dim exact 1 on [0, 1e-6] where the value is 2; s41 audit)
        got = _patterns(net, cand) if cand else []
        for (i, k), y, p in zip(kept, cand, got):
            if p == pats[i]:
                out.append(y)
            else:
                rest.append((i, k))
        todo, t = rest, t / 2**20
    if missing is not None:
        missing.extend(sorted({i for i, _ in todo}))
    return out


def _narrowest(dom):
    """The narrowest side of a cube or of a Domain's box part (None when no side is bounded)."""
    if isinstance(dom, tuple):
        return dom[1] - dom[0]
    sides = [hi - lo for lo, hi in zip(getattr(dom, "lo", ()), getattr(dom, "hi", ()))
             if lo is not None and hi is not None]
    return min(sides) if sides else None


def _patterns(net, pts, chunk: int = 128) -> list:
    """Exact activation patterns (-1/0/1) of many inputs: one FLINT product per layer and chunk
    of *chunk* inputs (a budget check between chunks: one product of 50 000 points of R^784 ran
    past ``dim --timeout 20`` by minutes, session 39)."""
    if len(pts) > chunk:
        out = []
        for s in range(0, len(pts), chunk):
            checkpoint()
            out += _patterns(net, pts[s:s + chunk], chunk)
        return out
    H = QMatrix.from_rows(pts, ncols=net.n_inputs)
    cols = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        Z = _rows_times(H, W.T).add_to_rows(b)
        cols.append([tuple((v > 0) - (v < 0) for v in r) for r in Z.to_rows()])
        H = Z.relu()
    return [sum((layer[i] for layer in cols), ()) for i in range(len(pts))]


def simplex_points(net: Network, x, pat, dom=None) -> list:
    """x and d points x ± t e_k in the same region and the domain *dom* (t quartered until the
    pattern is unchanged; −t where +t leaves the domain)."""
    pts = [tuple(x)]
    d = net.n_inputs
    for c in range(d):
        t = Q(1, 8)
        for _ in range(80):
            y = list(x)
            y[c] += t
            if not in_domain(y, dom):
                y[c] -= 2 * t
            if in_domain(y, dom) and net.activation_pattern(y) == tuple(pat):
                pts.append(tuple(y))
                break
            t /= 4
    return pts


def _rows_times(H: QMatrix, M: QMatrix) -> QMatrix:
    """``H @ M`` in blocks of rows, the budget checked between them (:func:`checkpoint`): one
    FLINT product is never stopped, and the points' values grow by a layer's digits at each
    layer (12-digit weights times 10^±25: seconds a layer for 16 points, ``dim --timeout 5`` at
    9 s, s54).  The blocks double from 4 rows while each takes under 0.02 s."""
    import time
    n = H.nrows
    if n <= 4:
        checkpoint()
        return H @ M
    out, start, size = [], 0, 4
    while start < n:
        checkpoint()
        t = time.perf_counter()
        out.append(H.take_rows(range(start, min(n, start + size))) @ M)
        start += size
        if time.perf_counter() - t < 0.02:
            size *= 2
    return out[0] if len(out) == 1 else QMatrix.vstack(out)


def exact_masks(net: Network, points) -> tuple[list, list]:
    """(X, masks): the *points* where θ ↦ f_θ(x) is differentiable, and their exact 0/1
    activation masks (one float64 array (n, n_l) per hidden layer; a kink neuron the network
    above does not see gets the mask 0, its row is the same under either mask)."""
    import numpy as np
    if not points:
        return [], [np.zeros((0, w)) for w in net.widths[1:-1]]
    H = QMatrix.from_rows(points, ncols=net.n_inputs)
    raw, widths = [], []
    signs: list = [[] for _ in points]
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        Z = _rows_times(H, W.T).add_to_rows(b)
        rows = Z.to_rows()
        raw.append([[1.0 if v > 0 else 0.0 for v in r] for r in rows])
        widths.append(W.nrows)
        for t, r in enumerate(rows):
            signs[t] += [(v > 0) - (v < 0) for v in r]
        H = Z.relu()
    # an input with a zero pre-activation is kept only when theta -> f_theta(x) is differentiable
    # there (algebra.kernel.differentiability: no kink neuron the network above sees); its kink
    # neurons get the mask 0 (the row is the same under either mask)
    seen: dict = {}
    keep = []
    for pat in map(tuple, signs):
        if 0 in pat and pat not in seen:
            seen[pat] = kink_witness(net, pat) is None
        keep.append(seen[pat] if 0 in pat else True)
    X = [p for p, k in zip(points, keep) if k]
    masks = [np.array([r for r, k in zip(layer, keep) if k], dtype=np.float64).reshape(len(X), w)
             for layer, w in zip(raw, widths)]
    return X, masks
