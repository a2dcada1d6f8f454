r"""One hidden layer: symmetry paths between two networks with equal canonical forms.

:func:`symmetry_path` builds the ``symmetry_path`` certificate of
:func:`semialgebraic.shallow.equivalent_shallow`: steps of :mod:`algebra.symmetries` (S1
permutations, S2 scalings, ``regroup`` and ``linear_refactor`` moves) carrying *a* to the
canonical representative of :mod:`semialgebraic.shallow.canonical`, then the inverses of *b*'s
steps; the common case of a permuted and rescaled copy gets a direct ``[S2, S1, S2]`` path.
Every path is replayed here (checkpoints, end point) before it is returned; its steps are
checked by the independent checker.
"""

from __future__ import annotations

from algebra.array_replay import array_view, replay_path, view_equals
from algebra.kernel import network_digest
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries import path_to_json
from algebra.symmetries.elementary import Permute, Scale
from algebra.symmetries.moves import LinearRefactor, Regroup
from algebra.symmetries.neurons import hidden_neurons

from ..budget import checkpoint
from ..certificates import symmetry_path_certificate
from ..exceptions import CertificateError
from .canonical import ShallowCanonicalForm, canonical_form, is_switching_on_orthant, raw_keys

__all__ = ["symmetry_path"]


def symmetry_path(a: Network, b: Network, *, orthant: bool = False, forms=None) -> dict:
    """``symmetry_path`` certificate carrying *a* to *b* (their canonical forms must be equal).

    The path is *a* → canonical representative ← *b*: :func:`_path_to_representative` for
    both, then the inverses of *b*'s steps in reverse order.  The path is replayed here (without
    the steps' own checks, which are the independent checker's job; the verdict never depends on
    them) to record its checkpoints and to confirm it ends at *b* (else :class:`CertificateError`:
    a bug).  *forms*: the two canonical forms when the caller has them already.
    """
    fast = _array_certificate(a, b, orthant)
    if fast is not None:
        return fast
    checkpoint()                             # an active budget (equiv --timeout) stops between parts
    steps = _direct_path(a, b, orthant)      # replayed below: a wrong path raises, never passes
    rep = None
    if steps is None:
        ca, cb = forms or (canonical_form(a, orthant=orthant), canonical_form(b, orthant=orthant))
        if ca != cb:
            raise ValueError("the canonical forms differ: no symmetry path exists")
        trail_a, trail_b = [a], [b]       # the networks along each path to the representative
        steps_a, rep = _path_to_representative(a, ca, trail_a)
        steps_b, rep_b = _path_to_representative(b, cb, trail_b)
        if rep != rep_b:  # pragma: no cover
            raise CertificateError("symmetry_path", "representatives differ")
        inverses = [s.inverse(cur) for s, cur in zip(steps_b, trail_b)]
        steps = steps_a + list(reversed(inverses))
        # Replaying a's steps visits trail_a, the inverses then visit trail_b backwards down to b:
        # the checkpoints are their digests (the checker replays and compares them all).
        checkpoints = [network_digest(n) for n in trail_a[1:]] + \
            [network_digest(n) for n in reversed(trail_b[:-1])]
        return symmetry_path_certificate(a, b, path_to_json(steps), orthant=orthant,
                                         checkpoints=checkpoints)
    checkpoints, cur = [], a
    for s in steps:                 # every step's check is the checker's (verify/symmetry_path)
        checkpoint()
        cur = s._apply(cur)
        checkpoints.append(network_digest(cur))
    if cur != b:  # pragma: no cover
        raise CertificateError("symmetry_path", "replaying the path does not give b")
    return symmetry_path_certificate(a, b, path_to_json(steps), orthant=orthant,
                                     checkpoints=checkpoints)



# -- path to the canonical representative ------------------------------------------------------

def _path_to_representative(net: Network, cf: ShallowCanonicalForm, trail=None):
    """Steps carrying *net* to ``cf.representative()``: S2 scaling to ``|lead(w)| = 1``, one
    ``regroup`` of every hyperplane not already holding a single positively oriented neuron into
    (kink neuron, antiparallel pair for the flip remainder), one ``linear_refactor`` of every
    non-kink neuron into the representative's affine neurons (output bias included), and one
    permutation into canonical order.  Returns ``(steps, representative)``; the network after
    each step is appended to *trail* (a list) when given."""
    trail = [] if trail is None else trail
    orthant = cf.domain == "orthant"
    dom = "orthant" if orthant else None
    rep = cf.representative()
    steps = []
    cur = net
    neurons, _ = hidden_neurons(cur, 0)
    m = net.n_outputs

    def is_kinky(w, bb, v):
        if all(x == 0 for x in v) or all(x == 0 for x in w):
            return False
        return is_switching_on_orthant(w, bb) if orthant else True

    kinky = [is_kinky(*nu) for nu in neurons]
    leads = [next((x for x in w if x != 0), None) for w, _, _ in neurons]
    factors = [1 / abs(lam) if k else Q(1) for lam, k in zip(leads, kinky)]
    if any(f != 1 for f in factors):
        s = Scale(0, factors)
        cur = s._apply(cur)
        steps.append(s)
        trail.append(cur)
    neurons, _ = hidden_neurons(cur, 0)
    keys = raw_keys(cur)
    buckets: dict = {}
    groups = []                                          # [(u, beta), [(i, t)]]
    for i, (w, bb, v) in enumerate(neurons):
        if not kinky[i]:
            continue
        lam = leads[i] * factors[i]                      # ±1 after scaling
        key = keys[i] * lam                              # (w·r + b r0)/lead: the hyperplane
        for g in buckets.setdefault(key, []):
            u, beta = g[0]
            if bb == lam * beta and all(x == lam * y for x, y in zip(w, u)):
                g[1].append((i, lam))
                break
        else:
            g = [(tuple(x * lam for x in w), bb * lam), [(i, lam)]]
            buckets[key].append(g)
            groups.append(g)
    labels = ["kink" if k else "other" for k in kinky]
    regroups = []
    for (u, beta), members in groups:
        if len(members) == 1 and members[0][1] > 0:
            continue
        K, M = [Q(0)] * m, [Q(0)] * m
        for i, t in members:
            v = neurons[i][2]
            K = [a + x for a, x in zip(K, v)]
            if t < 0:
                M = [a + x for a, x in zip(M, v)]
        new, lab = [], []
        if any(x != 0 for x in K):
            new.append((Q(1), K))
            lab.append("kink")
        if any(x != 0 for x in M):
            new += [(Q(1), [-x for x in M]), (Q(-1), M)]
            lab += ["other", "other"]
        regroups.append(([i for i, _ in members], u, beta, new, lab))
    if regroups:
        s = Regroup(0, [g[:4] for g in regroups])
        cur = s._apply(cur)
        steps.append(s)
        trail.append(cur)
        drop = {i for g in regroups for i in g[0]}
        labels = [lab for i, lab in enumerate(labels) if i not in drop]
        for g in regroups:
            labels += g[4]
    neurons, c = hidden_neurons(cur, 0)
    others = [i for i, lab in enumerate(labels) if lab != "kink"]
    rep_neurons, rep_c = hidden_neurons(rep, 0)
    n_k = len(cf.kinks)
    new_aff = rep_neurons[n_k:]
    dc = [x - y for x, y in zip(rep_c, c)]
    if others or new_aff or any(x != 0 for x in dc):
        s = LinearRefactor(0, others, new_aff, dc, dom)
        cur = s._apply(cur)
        steps.append(s)
        trail.append(cur)
    neurons, _ = hidden_neurons(cur, 0)
    order = sorted(range(n_k), key=lambda i: (neurons[i][0], neurons[i][1]))
    perm = order + list(range(n_k, len(neurons)))
    if perm != list(range(len(neurons))):
        s = Permute(0, perm)
        cur = s._apply(cur)
        steps.append(s)
        trail.append(cur)
    if cur != rep:  # pragma: no cover
        raise CertificateError("symmetry_path", "path does not reach the representative")
    return steps, rep


def _array_certificate(a: Network, b: Network, orthant: bool):
    """The certificate of :func:`_array_path`, replayed exactly on the integer arrays
    (:func:`algebra.array_replay.replay_path`); None when there is no such path or it does
    not replay to *b* (then the FLINT route decides)."""
    steps = _array_path(a, b)
    if not steps:
        return None
    replay = replay_path(a, steps)
    if replay is None or not all(ok for ok, *_ in replay) or not view_equals(replay[-1][2], b):
        return None
    return symmetry_path_certificate(a, b, path_to_json(steps), orthant=orthant,
                                     checkpoints=[r[3] for r in replay])


def _array_path(a: Network, b: Network):
    """``[S2, S1]`` carrying *a* to *b* for one-hidden-layer nets whose weights are int64
    arrays, found on the arrays: neuron ``i`` of *a* matches neuron ``k`` of *b* when the float
    keys of ``(w/|λ|, b/|λ|, v|λ|)`` agree (``λ = lead(w)``; equal exact values give equal
    correctly rounded keys, so a permuted and rescaled copy always matches); the factor is the
    exact ``|λ_b| / |λ_a|``.  A key collision only gives a wrong candidate, which the exact
    replay rejects.  None when not applicable or unmatched."""
    import numpy as np
    va, vb = array_view(a), array_view(b)
    if va is None or vb is None or a.depth != 2 or a.widths != b.widths \
            or a.biases[1] != b.biases[1]:
        return None
    sides = []
    for v in (va, vb):
        W, V = v.layers
        nz = W.N != 0
        has = nz.any(axis=1)
        lead = np.abs(W.N[np.arange(W.N.shape[0]), nz.argmax(axis=1)])
        lead = np.where(has, lead, 1)
        lf = lead.astype(np.float64)
        scale = [Q(int(x), W.D) if h else Q(1) for x, h in zip(lead.tolist(), has.tolist())]
        lam = np.where(has, lf / W.D, 1.0)                         # |λ| (1 for w = 0)
        keys = np.hstack([W.N / lf[:, None],
                          np.array([float(x / f) for x, f in zip(v.biases[0], scale)])[:, None],
                          (V.N.astype(np.float64) * lam[None, :] / V.D).T]) + 0.0
        raw, width = np.ascontiguousarray(keys).tobytes(), keys.shape[1] * 8
        sides.append(([raw[i * width:(i + 1) * width] for i in range(keys.shape[0])], scale))
    (ka, sa), (kb, sb) = sides
    buckets: dict = {}
    for i, k in enumerate(ka):
        buckets.setdefault(k, []).append(i)
    perm = []
    for k in kb:
        cand = buckets.get(k)
        if not cand:
            return None
        perm.append(cand.pop())
    factors = [Q(0)] * len(perm)
    for k, i in enumerate(perm):
        factors[i] = sb[k] / sa[i]
    steps = []
    if any(f != 1 for f in factors):
        steps.append(Scale(0, factors))
    if perm != list(range(len(perm))):
        steps.append(Permute(0, perm))
    return steps


def _direct_path(a: Network, b: Network, orthant: bool):
    """``[S2, S1, S2]`` carrying *a* to *b* when, after scaling every neuron to ``|lead(w)| = 1``,
    the two nets have the same neurons up to order (the common case of a permuted and rescaled
    copy); None otherwise."""
    if a.widths != b.widths:
        return None
    sides = []
    for net in (a, b):
        checkpoint()
        neurons, _ = hidden_neurons(net, 0)
        checkpoint()
        leads = [next((x for x in w if x != 0), None) for w, _, _ in neurons]
        factors = [1 / abs(l) if l is not None else Q(1) for l in leads]
        keys = [k * f for k, f in zip(raw_keys(net), factors)]
        normal = []
        for t, ((w, bb, v), f) in enumerate(zip(neurons, factors)):
            if t & 255 == 255:
                checkpoint()
            normal.append((tuple(x * f for x in w), bb * f, tuple(x / f for x in v)))
        sides.append((factors, keys, normal))
    (fa, ka, na), (fb, kb, nb) = sides
    buckets: dict = {}
    for i, k in enumerate(ka):
        buckets.setdefault(k, []).append(i)
    perm = []
    for j, k in enumerate(kb):
        cand = buckets.get(k, [])
        hit = next((i for i in cand if na[i] == nb[j]), None)
        if hit is None:
            return None
        cand.remove(hit)
        perm.append(hit)
    if a.biases[1] != b.biases[1]:
        return None
    steps = []
    if any(f != 1 for f in fa):
        steps.append(Scale(0, fa))
    if perm != list(range(len(perm))):
        steps.append(Permute(0, perm))
    if any(f != 1 for f in fb):
        steps.append(Scale(0, [1 / f for f in fb]))
    return steps


