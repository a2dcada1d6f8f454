r"""Merge certificates of a model zoo found on integer weight arrays (issue 19, dedup).

:func:`array_merge_certificate` looks for a ``symmetry_path`` from *a* to *b* made only of steps
that :mod:`algebra.array_replay` replays on int64 arrays, through a *reduced* form of each
network (three-layer-fibers R8, R9 and the one-hidden-layer moves of :mod:`algebra.symmetries`):

1. **reduce** each network, hidden layer by hidden layer: ``remove_neuron`` for every neuron with
   a zero input row or a zero output column, then one ``regroup`` merging each set of neurons
   whose rows ``(w, b)`` are positive multiples of one primitive integer row (a split neuron)
   into one neuron;
2. **align** the reduced *a* with the reduced *b*, hidden layer by hidden layer: neurons match
   when their primitive integer rows are equal and their multipliers have the same sign; one
   S2 scaling (factor ``t_b / t_a > 0``) and one S1 permutation per layer;
3. undo *b*'s reduction (the inverse steps, last first).

The path found is then replayed on the arrays with every step's check
(:func:`algebra.array_replay.replay_path`) to record its checkpoints and to confirm that it
ends exactly at *b*; otherwise the answer is None and the caller decides the pair another way.
Nothing here decides anything: the certificate is accepted only after the independent checker
(:func:`semialgebraic.verify.verify`) has replayed it again.

The same pass gives :func:`fingerprint_shallow`, an exact function invariant of a
one-hidden-layer network on R^d: the SHA-256 of d, m and its kinks, ``{(P, Σ |t_i| v_i)}`` summed
over the neurons on each primitive hyperplane row ``P`` (both orientations: σ(s) − σ(−s) = s),
those with a non-zero sum only (equal functions have equal kinks, three-layer-fibers R9 and
:mod:`semialgebraic.shallow.canonical`).  It does not cover the affine part, so equal
fingerprints only propose a merge; different fingerprints prove different functions.  (Until
session 37 it hashed the reduced widths and one entry per neuron, so that σ(x) − σ(−x) and
σ(x + 1) − σ(−x − 1) − 1, both x, were called different by ``batch dedup``: an outside audit.)

Bottleneck networks (two hidden layers): :func:`bottleneck_canon` is CANON (three-layer-fibers
R20, :mod:`semialgebraic.bottleneck.canon`) of the *reduced* network, computed only when the
reduced network satisfies the genericity conditions G0–G8 (checked exactly by
``canonical_form``; otherwise None and the pair is decided pairwise).  The reduction steps
preserve the function, so different CANONs prove different functions; equal CANONs give the
certificate of :func:`bottleneck_merge_certificate`: *a*'s reduction, the canonical path of
the two reduced networks (S1–S8, through their normal forms) and the inverse of *b*'s
reduction, accepted only after the independent checker has replayed it.
"""

from __future__ import annotations

import hashlib
import math

from algebra.array_replay import (ArrayView, _fold, array_view, replay_path, replay_step,
                                  view_column, view_equals, view_neuron)
from algebra.rationals import Q
from algebra.symmetries import InsertNeuron, Permute, Regroup, RemoveNeuron, Scale

from ..budget import checkpoint
from ..bottleneck.canon import canonical_form as _bottleneck_canonical_form
from ..bottleneck.canon import symmetry_path as _bottleneck_path
from ..certificates import symmetry_path_certificate
from ..exceptions import SemialgebraicError
from ..shallow.integer_exact import _row_gcds

__all__ = ["array_merge_certificate", "checkpointed", "reduce_view", "fingerprint_shallow", "primitive_rows",
           "bottleneck_canon", "bottleneck_merge_certificate"]

_LIMIT = 1 << 62


def primitive_rows(view: ArrayView, layer: int):
    """``(P, t)`` for hidden layer *layer*: ``(w_i, b_i) = t_i P_i`` with ``P_i`` the primitive
    integer row (bias last, first non-zero entry positive; an int64 array) and ``t_i`` an exact
    non-zero rational; None when a row does not fit int64 or is zero."""
    import numpy as np
    L = _fold(view.layers[layer], force=True)
    if L is None or not L.N.shape[0]:
        return None
    bias = view.biases[layer]
    den = math.lcm(L.D, *(int(b.q) for b in bias))
    k = den // L.D
    top = [int(b.p) * (den // int(b.q)) for b in bias]
    mag = max(abs(int(L.N.min())), abs(int(L.N.max())))
    if mag * k >= _LIMIT or any(abs(x) >= _LIMIT for x in top):
        return None
    R = np.empty((L.N.shape[0], L.N.shape[1] + 1), dtype=np.int64)
    R[:, :-1] = L.N * k if k != 1 else L.N
    R[:, -1] = top
    nz = R != 0
    if not nz.any(axis=1).all():
        return None
    g = _row_gcds(np, R)
    lead = R[np.arange(R.shape[0]), nz.argmax(axis=1)]
    sg = np.where(lead < 0, -1, 1)
    P = R // (sg * g)[:, None]
    t = [Q(int(s) * int(x), den) for s, x in zip(sg.tolist(), g.tolist())]
    return P, t


def _keys(P) -> list[bytes]:
    raw, width = P.tobytes(), P.shape[1] * 8
    return [raw[i * width:(i + 1) * width] for i in range(P.shape[0])]


def _advance(view, step, trail):
    trail.append((step, view))
    nxt, (ok, _) = replay_step(view, step)
    return nxt if ok else None


def reduce_view(view: ArrayView):
    """``(steps, reduced view, trail, rows)``: the reduction of step 1 (module docstring) of
    every hidden layer, each step replayed (checked) on the arrays; *trail* holds ``(step, view
    before it)``; ``rows[l]`` the :func:`primitive_rows` of layer *l* of the reduced view (None:
    not kept).  None when a step cannot be represented or does not apply (the caller decides
    another way)."""
    steps, trail, kept = [], [], []
    for layer in range(view.depth - 1):
        L, nxt = view.layers[layer], view.layers[layer + 1]
        dead = ~(L.N != 0).any(axis=1) | ~(nxt.N != 0).any(axis=0)
        for i in reversed(dead.nonzero()[0].tolist()):
            step = RemoveNeuron(layer, i)
            view = _advance(view, step, trail)
            if view is None:
                return None
            steps.append(step)
        rows = primitive_rows(view, layer)
        if rows is None:
            return None
        P, t = rows
        groups: dict = {}
        for i, key in enumerate(_keys(P)):
            # antiparallel neurons (same primitive row, t of opposite signs) are different
            # neurons: only positively parallel ones merge (a split)
            groups.setdefault((key, t[i] > 0), []).append(i)
        merge = []
        for idx in groups.values():
            if len(idx) < 2:
                continue
            signs = {t[i] > 0 for i in idx}
            K = None
            for i in idx:
                v = view_column(view, layer, i)
                K = [abs(t[i]) * x for x in v] if K is None else [y + abs(t[i]) * x for y, x in zip(K, v)]
            u = [Q(int(x)) for x in P[idx[0]].tolist()]
            merge.append((idx, u[:-1], u[-1], [(Q(1) if signs == {True} else Q(-1), K)]))
        kept.append(None if merge else rows)   # removals at later layers keep these rows
        if merge:
            step = Regroup(layer, merge)
            view = _advance(view, step, trail)
            if view is None:
                return None
            steps.append(step)
    return steps, view, trail, kept


def _inverse(step, before: ArrayView) -> list:
    """The steps undoing *step* (a ``remove_neuron`` or a merging ``regroup`` of
    :func:`reduce_view`) applied at the view *before*."""
    layer = step.layer
    if step.name == "remove_neuron":
        return [InsertNeuron(layer, step.neuron, *view_neuron(before, layer, step.neuron))]
    n = before.widths[layer + 1]
    flat = [i for g in step.groups for i in g[0]]
    gone = set(flat)
    kept = [i for i in range(n) if i not in gone]
    added = sum(len(g[3]) for g in step.groups)
    tail = list(range(len(kept), len(kept) + added))
    groups, k = [], 0
    for idx, u, beta, new in step.groups:
        j = next(a for a, x in enumerate(u) if x != 0)
        members = [view_neuron(before, layer, i) for i in idx]
        groups.append((tail[k:k + len(new)], u, beta, [(w[j] / u[j], v) for w, _, v in members]))
        k += len(new)
    pos = {orig: p for p, orig in enumerate(kept + flat)}
    perm = [pos[i] for i in range(n)]
    out = [Regroup(layer, groups)]
    if perm != list(range(n)):
        out.append(Permute(layer, perm))
    return out


def _rows(red, view, layer):
    known = red[3][layer] if red is not None else None
    return known if known is not None else primitive_rows(view, layer)


def _align(reda, redb):
    """S2 and S1 steps carrying the reduced *a* onto the reduced *b* (:func:`reduce_view`
    results), layer by layer, with the view they reach; None when the neurons do not match."""
    va, vb = reda[1], redb[1]
    steps = []
    if va.widths != vb.widths:
        return None
    for layer in range(va.depth - 1):
        ra = _rows(reda if layer == 0 else None, va, layer)   # later layers: columns moved
        rb = _rows(redb, vb, layer)
        if ra is None or rb is None:
            return None
        (Pa, ta), (Pb, tb) = ra, rb
        buckets: dict = {}
        for i, key in enumerate(_keys(Pa)):
            buckets.setdefault(key, []).append(i)
        perm = []
        for key, t in zip(_keys(Pb), tb):
            cand = [i for i in buckets.get(key, ()) if (ta[i] > 0) == (t > 0)]
            if not cand:
                return None
            buckets[key].remove(cand[0])
            perm.append(cand[0])
        factors = [Q(1)] * len(perm)
        for k, i in enumerate(perm):
            factors[i] = tb[k] / ta[i]
        for step in ([Scale(layer, factors)] if any(f != 1 for f in factors) else []) + \
                ([Permute(layer, perm)] if perm != list(range(len(perm))) else []):
            va, (ok, _) = replay_step(va, step)
            if not ok or va is None:
                return None
            steps.append(step)
    return steps, va


def array_merge_certificate(a, b, views=None, reductions=None) -> dict | None:
    """The ``symmetry_path`` certificate carrying *a* to *b* found on the arrays (module
    docstring; the networks are kept in it as objects, for an in-process check and the binary
    sidecar), or None when there is none of this form.  *views*: ``(array_view(a),
    array_view(b))`` when the caller has them; *reductions*: their :func:`reduce_view` results
    (either may be None: computed here).  With *checkpoints* the path is replayed here once more
    to record the digest after each step; without, the certificate has no checkpoints (they
    are optional: every step's check and the exact end point are what prove the claim)."""
    va, vb = views or (array_view(a, convert=True), array_view(b, convert=True))
    if va is None or vb is None or a.signature != b.signature or a.depth != b.depth:
        return None
    ra, rb = reductions or (None, None)
    ra = reduce_view(va) if ra is None else ra
    rb = reduce_view(vb) if rb is None else rb
    if ra is None or rb is None:
        return None
    aligned = _align(ra, rb)
    if aligned is None:
        return None
    back = [s for step, before in reversed(rb[2]) for s in _inverse(step, before)]
    steps = ra[0] + aligned[0] + back
    if not steps:
        return None
    return symmetry_path_certificate(a, b, steps, keep_networks=True)


def checkpointed(cert: dict, view=None) -> dict | None:
    """*cert* (of :func:`array_merge_certificate`) with its checkpoints, replayed on the arrays;
    None when the replay fails or does not end at ``b``."""
    from algebra.symmetries import path_from_json
    a, b = cert["a"], cert["b"]
    replay = replay_path(a, path_from_json(cert["steps"]), view=view)
    if replay is None or not all(ok for ok, *_ in replay) or not view_equals(replay[-1][2], b):
        return None
    return {**cert, "checkpoints": [r[3] for r in replay]}


def fingerprint_shallow(view: ArrayView, red=None) -> str | None:
    """The kink fingerprint of a one-hidden-layer network (module docstring), or None when a
    row does not fit (or the view has another depth).  *red*: the :func:`reduce_view` of
    *view* when the caller has it."""
    if view is None or view.depth != 2:
        return None
    red = reduce_view(view) if red is None else red
    if red is None:
        return None
    rv = red[1]
    rows = _rows(red, rv, 0) if rv.widths[1] else None
    if rv.widths[1] and rows is None:
        return None
    # only d and m: the hidden width is no invariant (σ(x) − σ(−x) = x has two neurons, x none)
    h = hashlib.sha256(f"{rv.widths[0]},{rv.widths[-1]}".encode())
    if rows is None:
        return h.hexdigest()[:16]
    P, t = rows
    kinks: dict = {}
    for i, key in enumerate(_keys(P)):
        if i % 64 == 0:                   # a budget check (768-3072: 9 s a network)
            checkpoint()
        v = view_column(rv, 0, i)
        prev = kinks.get(key)
        kink = [abs(t[i]) * x for x in v]     # both orientations of a hyperplane add (R9)
        kinks[key] = kink if prev is None else [a + b for a, b in zip(prev, kink)]
    for key, K in sorted(kinks.items()):
        if any(x != 0 for x in K):        # kinks that cancel: no hyperplane of the function
            h.update(key + ",".join(map(str, K)).encode() + b";")
    return h.hexdigest()[:16]


BOTTLENECK_MAX_PARAMETERS = 20_000
"""Bottleneck networks above this size get no CANON fingerprint (its exact rank and Γ product
run on FLINT rationals; such networks are decided pairwise)."""


def _reduced_network(net, red):
    """*net* after the reduction steps ``red[0]`` (applied with their checks), or *net*."""
    if red is None:
        return net
    for step in red[0]:
        net = step.apply(net)
    return net


def bottleneck_canon(net, red=None):
    """``(CANON fingerprint, reduced network)`` of a network with two hidden layers whose
    reduction (:func:`reduce_view` result *red*, or None: the network itself) is generic
    (G0–G8, checked exactly); None otherwise (module docstring)."""
    if net.depth != 3 or net.n_parameters > BOTTLENECK_MAX_PARAMETERS:
        return None
    try:
        cur = _reduced_network(net, red)
        return _bottleneck_canonical_form(cur).fingerprint(), cur
    except (SemialgebraicError, ValueError, ZeroDivisionError):   # NonGenericError included
        return None


def bottleneck_merge_certificate(a, b, canons, reductions) -> dict | None:
    """The ``symmetry_path`` certificate carrying *a* to *b* through their reduced networks:
    *canons* the :func:`bottleneck_canon` of both (equal fingerprints), *reductions* their
    :func:`reduce_view` results (None: not reduced).  None when no path is built; the caller
    has the certificate checked before accepting it."""
    (fa, ra_net), (fb, rb_net) = canons
    if fa != fb or a.signature != b.signature:
        return None
    mid = _bottleneck_path(ra_net, rb_net)
    if mid is None:
        return None
    ra, rb = reductions
    back = [s for step, before in reversed(rb[2]) for s in _inverse(step, before)] if rb else []
    steps = (list(ra[0]) if ra else []) + list(mid) + back
    if not steps:
        return None
    return symmetry_path_certificate(a, b, steps, keep_networks=True)
