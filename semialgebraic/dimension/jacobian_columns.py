r"""Exact exercise decisions: is a parameter's Jacobian column non-zero at some input?

For a parameter never exercised by the sampled inputs of :func:`semialgebraic.dimension.functional_dimension`
(three-layer-fibers R22 FIBDIM, generalised to depth L), an exact depth-first search over
activation phases (exact strict LPs) either finds an exact input where its Jacobian column δ·h
is non-zero (added to the rows) or proves that no differentiable input does (Motzkin multipliers
of every refuted partial pattern, or δ = 0 at a full pattern), re-checked by
:func:`check_exercise_proof` (the independent checker :mod:`semialgebraic.verify.exercise`, through
:func:`semialgebraic.verify.verify`); the
unit vector then joins the upper bound.  Once every positive-weight input of a target neuron is
decided, the affine upper bound Σ_{on} w_k z_k + b of its pre-activation must be positive too:
that row prunes the tree (recorded, re-derived by the checker).  :func:`incoming_directions`
enumerates the regions of a neuron's active set the same way: the kernel directions on its
incoming parameters (its inputs span a proper subspace there) join the upper bound and the
region points the rows.  :func:`_prove_empty` decides whether a sign condition on neurons (never
active, never inactive) is empty, by an exhaustive exact-LP search of the activation-pattern
tree.  Complete but exponential, hence budgeted (*max_lps*, *deadline*).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from algebra.kernel import (domain_from_json, domain_json, domain_rows, exercise_spec, is_delta_zero,
                            is_zero_neuron, parameter_offsets)
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from .sampling import _np
from ..domains import normalize_domain
from ..lp import feasible
from ..certificates import exercise_certificate
from ..verify import verify

__all__ = ["Exercise", "exercise", "check_exercise_proof", "incoming_directions"]


@dataclass(frozen=True)
class Exercise:
    """Result of :func:`exercise`.  ``exercised``: True (``witness``: an exact input, every
    pre-activation non-zero, where ∂f/∂θ_p != 0), False (``proof``: the column of the Jacobian is
    zero at every differentiable input; re-checked by :func:`check_exercise_proof`) or None
    (budget)."""

    parameter: int
    exercised: bool | None
    witness: tuple | None = None
    proof: dict | None = None
    lps: int = 0


def exercise(net: Network, parameter: int, *, domain: Any = None, max_lps: int = 2000,
             deadline: float | None = None, record: bool = True) -> Exercise:
    """Decide exactly whether parameter *parameter* (flat index) is exercised somewhere.

    ∂f_o/∂W_l[i,k] = δ_l[i] h_{l-1}[k] and ∂f_o/∂b_l[i] = δ_l[i], with δ constant on each
    linear region (δ_{L} = e_o, δ_l = D_l W_{l+1}ᵀ δ_{l+1}).  So W_l[i,k] is exercised iff some
    region of the domain has neuron (l-1, k) active and δ_l[i] != 0 (for l = 1: δ_1[i] != 0, the
    input coordinate being non-zero on an open set); b_l[i] iff δ_l[i] != 0 somewhere.  Decided by
    a depth-first search over activation phases (layer order, the fixed target signs first), each
    partial pattern checked by an exact strict LP: a feasible full pattern with δ_l[i] != 0 gives
    an exact witness; otherwise every branch is refuted by a Motzkin certificate or, at a full
    pattern, by δ_l[i] = 0 -- the proof lists them (:func:`check_exercise_proof`).

    Examples
    --------
    >>> net = Network.from_rows([[[1], [-1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    >>> e = exercise(net, net.parameter_names().index("W2[0,0]"))
    >>> e.exercised, check_exercise_proof(net, e.proof)
    (False, True)
    >>> exercise(net, net.parameter_names().index("W2[1,0]")).exercised
    True
    """
    dom = normalize_domain(domain, net.n_inputs)
    spec = exercise_spec(net, parameter)
    targets, delta_of, last, full_last = spec
    if delta_of == "never":
        proof = {"parameter": parameter, "targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
                 "trivial": "zero outgoing weights" if last >= 0 else "identically zero neuron",
                 "order": [], "refuted": []}
        return Exercise(parameter, False, None, proof if record else None, 0)
    res = _phase_search(net, dom, targets, delta_of, max_lps, deadline, record)
    found, witness, refuted, order, lps = res
    if found is None:
        return Exercise(parameter, None, None, None, lps)
    if found:
        return Exercise(parameter, True, witness, None, lps)
    proof = {"parameter": parameter, "domain": domain_json(dom),
             "targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
             "delta_of": list(delta_of) if delta_of else None,
             "order": [[t, j] for t, j in order], "refuted": refuted}
    return Exercise(parameter, False, None, proof if record else None, lps)


def check_exercise_proof(net: Network, proof: dict, domain: Any = "any") -> bool:
    """Re-check a proof of :func:`exercise` that a parameter is never exercised: the independent
    checker, through :func:`semialgebraic.verify.verify` on a full ``exercise`` certificate.
    With *domain*, the proof must also be about that domain (the claim is always "on the
    proof's domain").  False for a proof whose parameter is not a parameter index of *net*.

    Raises
    ------
    InputError
        If a refutation's multipliers are not exact numbers (a malformed proof).
    """
    dom = domain if domain == "any" else normalize_domain(domain, net.n_inputs)
    if not isinstance(proof, dict):
        return False
    p_ = proof.get("parameter")
    if not isinstance(p_, int) or isinstance(p_, bool) or not 0 <= p_ < net.n_parameters:
        return False
    if dom != "any":
        try:
            if domain_from_json(proof.get("domain"), net.n_inputs) != dom:
                return False
        except (KeyError, TypeError, ValueError, IndexError):
            return False
    return verify(exercise_certificate(net, proof))[0]


def incoming_directions(net: Network, t: int, i: int, *, domain: Any = None, max_lps: int = 2000,
                        deadline: float | None = None):
    """Kernel directions of the Jacobian supported on the incoming parameters (W_t[i, :], b_t[i])
    of hidden neuron (t, i) (0-based layer t >= 1), from an exact enumeration of its active set.

    ∂f/∂W_t[i,k] = δ_t[i] h_{t-1}[k] and ∂f/∂b_t[i] = δ_t[i], with δ_t[i] = 0 where z_t[i] < 0.
    Every region of the layers below t meeting {z_t[i] > 0} is enumerated (exact phase search:
    full patterns of layers < t with z_t[i] > 0, each with an exact interior point); on region P,
    (h_{t-1}(x), 1) = [[M_P, m_P], [0, 1]] (x, 1), so (h_{t-1}, 1) stays in the span V of those
    matrices' columns, and every c ⊥ V gives J(x)·c = δ_t[i](x) c·(h_{t-1}(x), 1) = 0 at every
    differentiable input.  Returns (directions as full parameter vectors, region points) or None
    when the budget ends first.

    >>> net = Network.from_rows([[[1], [-1], [1]], [[1, 0, 1]], [[1]]], [[0, 0, -1], [-3], [0]])
    >>> dirs, pts = incoming_directions(net, 1, 0)
    >>> len(dirs), len(pts)        # only x > 2 activates (2, 0): h1_1 = 0 there, h1_0 - h1_2 = 1
    (2, 1)
    """
    dom = normalize_domain(domain, net.n_inputs)
    if t < 1 or is_zero_neuron(net, t, i):
        return None
    leaves: list = []
    found, _, _, _, _ = _phase_search(net, dom, {(t, i): 1}, None, max_lps, deadline, False,
                                      upto=t, leaves=leaves)
    if found is None:
        return None
    d, n_in = net.n_inputs, net.widths[t]
    cols = []
    for path, _ in leaves:
        masks: dict = {}
        for u, j, sg in path:
            masks.setdefault(u, {})[j] = 1 if sg > 0 else 0
        M, m = _layer_map(net, masks, t - 1)
        for c in range(d):
            cols.append([M[q, c] for q in range(n_in)] + [Q(0)])
        cols.append(list(m) + [Q(1)])
    V = QMatrix.from_rows(cols, ncols=n_in + 1) if cols else QMatrix.from_rows([], ncols=n_in + 1)
    perp = V.nullspace() if cols else QMatrix.identity(n_in + 1)
    offs = parameter_offsets(net)
    W = net.weights[t]
    out = []
    for c in perp.to_rows():
        v = [Q(0)] * net.n_parameters
        for k in range(n_in):
            v[offs[t] + i * n_in + k] = c[k]
        v[offs[t] + W.nrows * n_in + i] = c[n_in]
        out.append(v)
    return out, [x for _, x in leaves]


# ------------------------------------------------------------------------------------------------
# private helpers
# ------------------------------------------------------------------------------------------------
def _prove_empty(net, dom, targets: dict, max_lps: int = 400, deadline: float | None = None):
    """Decide exactly whether no input of the domain with every pre-activation non-zero has
    sign(z_t[j]) = s for every ((t, j), s) in *targets*: True (proven empty: every branch of the
    activation-pattern tree is cut by an infeasible exact LP with a verified Farkas certificate),
    False (an exact witness exists) or None (budget: *max_lps* LPs or the *deadline*).

    Depth-first over the neurons of the layers up to the deepest target (on that layer only the
    targets); a child that agrees with the parent's exact witness point is feasible without an LP.
    """
    d = net.n_inputs
    last = max(t for t, _ in targets)
    A0, c0 = [], []                                 # open constraints a·x + c > 0
    if dom == "orthant":
        for k in range(d):
            A0.append([Q(1) if c == k else Q(0) for c in range(d)])
            c0.append(Q(0))
    elif isinstance(dom, tuple):
        lo, hi = dom
        if lo == hi:
            return None
        for k in range(d):
            A0.append([Q(1) if c == k else Q(0) for c in range(d)])
            c0.append(-lo)
            A0.append([Q(-1) if c == k else Q(0) for c in range(d)])
            c0.append(hi)
    count = [0]

    def lp(A, c):
        if count[0] >= max_lps or (deadline is not None and time.monotonic() > deadline):
            raise _Budget()
        count[0] += 1
        if not A:
            return tuple([Q(0)] * d)
        res = feasible(A_lt=[[-v for v in a] for a in A], b_lt=list(c), n=d)
        return res.point if res.feasible else None

    def rec(t, M, m, A, c, x):
        # M, m: h_{t-1} = M x + m on the current partial pattern (QMatrix d-columns, vector)
        W, b = net.layer(t)
        Z = W @ M
        zc = [sum((W[j, q] * m[q] for q in range(len(m))), Q(0)) + b[j] for j in range(W.nrows)]
        js = sorted((j for j in range(W.nrows) if t < last or (t, j) in targets),
                    key=lambda j: (t, j) not in targets)          # targets first: early cuts
        return branch(t, js, 0, Z, zc, [], A, c, x, M, m)

    def branch(t, js, pos, Z, zc, signs, A, c, x, M, m):
        if pos == len(js):
            if t == last:
                return False                         # x is an exact witness
            on = set(j for j, s in signs if s > 0)
            W = net.weights[t]
            rows = [Z.row_at(j) if j in on else tuple([Q(0)] * d) for j in range(W.nrows)]
            M2 = QMatrix.from_rows(rows, ncols=d)
            m2 = [zc[j] if j in on else Q(0) for j in range(W.nrows)]
            return rec(t + 1, M2, m2, A, c, x)
        j = js[pos]
        a = Z.row_at(j)
        val = sum((ai * xi for ai, xi in zip(a, x)), Q(0)) + zc[j]
        want = [targets[(t, j)]] if (t, j) in targets else [1, -1]
        if val != 0 and (val > 0) in [s > 0 for s in want]:
            want.sort(key=lambda s: (s > 0) != (val > 0))     # the witness's side first
        for s in want:
            A2 = A + [[s * v for v in a]]
            c2 = c + [s * zc[j]]
            if val != 0 and (val > 0) == (s > 0):
                y = x
            else:
                y = lp(A2, c2)
                if y is None:
                    continue
            r = branch(t, js, pos + 1, Z, zc, signs + [(j, s)], A2, c2, y, M, m)
            if r is not True:
                return r
        return True

    try:
        x0 = lp(A0, c0)
        if x0 is None:
            return True
        ident = QMatrix.identity(d)
        return rec(0, ident, [Q(0)] * d, A0, c0, x0)
    except _Budget:
        return None


def _prove_suspects(net, dom, evidence, budget, gap, seconds: float = 3.0):
    """Exact decisions (within *seconds* and the budget) for what the sampled inputs flag:
    neurons never seen active / inactive (:func:`_prove_empty`), and parameters never exercised
    or alone in a missing kernel direction (:func:`exercise`).  Returns (proven facts for
    :func:`symmetry_directions`, exact witness inputs of exercised suspects, exercise proofs)."""
    import time
    np = _np()
    starts, names = [], []
    for l, w in enumerate(net.widths[1:-1]):
        starts.append(len(names))
        names += [(l, i) for i in range(w)]
    left = budget.remaining() if hasattr(budget, "remaining") else None
    # default: a few seconds; with an explicit timeout, up to half of what is left of it
    stop = time.monotonic() + (seconds if left is None else max(0.0, left) / 2)
    proven: dict = {"dead": set(), "active": set(), "free": set()}
    offs = parameter_offsets(net)
    # order: parameters alone in a missing kernel direction (exactly the gap), other weights
    # never exercised, neurons never seen on / off, then directions inside one neuron's incoming
    params = [sup[0] for sup in evidence.get("missing") or [] if len(sup) == 1]
    for l, i, k in evidence.get("unexercised") or []:
        n_in = net.widths[l]
        params.append(offs[l] + (i * n_in + k if k < n_in else net.widths[l + 1] * n_in + i))
    tasks = [("free", p_, None) for p_ in dict.fromkeys(params)]
    for g in np.flatnonzero(evidence.get("never_on", [])):
        tasks.append(("dead", int(g), {names[g]: 1}))
    for g in np.flatnonzero(evidence.get("never_off", [])):
        tasks.append(("active", int(g), {names[g]: -1}))
    L = net.depth
    for sup in evidence.get("missing") or []:        # directions inside one neuron's incoming
        ls = {max(u for u in range(L) if offs[u] <= p_) for p_ in sup}
        l = ls.pop()
        if ls or not 1 <= l <= L - 2:
            continue
        n_in, n_out = net.widths[l], net.widths[l + 1]
        ii = {(p_ - offs[l]) // n_in if p_ - offs[l] < n_out * n_in else p_ - offs[l] - n_out * n_in
              for p_ in sup}
        task = ("incoming", (l, ii.pop()), None)
        if not ii and task not in tasks:
            tasks.append(task)
    witnesses, proofs = [], []
    proven["incoming"] = {}
    open_tasks = tasks[:128]
    for max_lps in (300, 10**6):          # cheap decisions first, then the rest with the time left
        undecided = []
        for task in open_tasks:
            kind, key, targets = task
            if time.monotonic() > stop:
                break
            if kind == "incoming":
                res = incoming_directions(net, key[0], key[1], domain=dom, max_lps=max_lps, deadline=stop)
                if res is None:
                    undecided.append(task)
                    continue
                dirs, pts = res
                if dirs:
                    proven["incoming"][key] = dirs
                witnesses += list(pts)
            elif kind != "free":
                r = _prove_empty(net, dom, targets, max_lps=max_lps, deadline=stop)
                if r is True:
                    proven[kind].add(key)
                elif r is None:
                    undecided.append(task)
            else:
                e = exercise(net, key, domain=dom, max_lps=max_lps, deadline=stop)
                if e.exercised is False:
                    proven["free"].add(key)
                    proofs.append(e.proof)
                elif e.exercised:
                    witnesses.append(e.witness)
                else:
                    undecided.append(task)
        open_tasks = undecided
    return (proven if any(proven.values()) else {}), witnesses, proofs


class _Budget(Exception):
    pass


def _layer_map(net, masks, t):
    """(M, m) with h_t = M x + m on the region of the 0/1 *masks* of layers 0..t."""
    d = net.n_inputs
    M, m = QMatrix.identity(d), [Q(0)] * d
    for u in range(t + 1):
        W, b = net.layer(u)
        Z = W @ M
        zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
        on = masks.get(u, {})
        M = QMatrix.from_rows([Z.row_at(q) if on.get(q) else tuple([Q(0)] * d) for q in range(W.nrows)], ncols=d)
        m = [zc[q] if on.get(q) else Q(0) for q in range(W.nrows)]
    return M, m


def _phase_search(net, dom, targets, delta_of, max_lps, deadline, record, upto=None, leaves=None):
    """Depth-first search of :func:`exercise` over every hidden neuron (layer order, targets
    first in their layer; a leaf is a full activation pattern, so a witness has every
    pre-activation non-zero): (found, witness, refuted, order, lps).  With a list *leaves*,
    every feasible leaf (path, exact point) is collected instead of stopping at the first, and
    *upto* = t restricts the order to the layers below t and the targets of layer t."""
    d = net.n_inputs
    # bound pruning: for the first target (t, i) with sign +1 and t >= 1,
    # once every neuron k of layer t-1 with W_t[i,k] > 0 is decided (they come first in their
    # layer), z_t[i] <= Σ_{k decided on} W_t[i,k] z_{t-1,k}(x) + b_t[i] on the node (undecided
    # neurons have W_t[i,k] <= 0, decided-off ones contribute 0), so that affine bound must be > 0
    bound = None
    if True:
        pos_t = [(t, i) for (t, i), sg in targets.items() if sg > 0 and t >= 1]
        if pos_t:
            t_b, i_b = min(pos_t)
            Wt, bt = net.layer(t_b)
            bound = (t_b, i_b, {k for k in range(Wt.ncols) if Wt[i_b, k] > 0}, Wt, bt[i_b])
    order = []
    for t in range(net.depth - 1 if upto is None else upto + 1):
        js = [j for j in range(net.widths[t + 1]) if not is_zero_neuron(net, t, j)
              and (upto is None or t < upto or (t, j) in targets)]
        first = bound[2] if bound is not None and t == bound[0] - 1 else set()
        order += sorted(((t, j) for j in js), key=lambda tj: (tj not in targets, tj[1] not in first))
    drows = domain_rows(d, dom)
    A0, c0 = [r[:-1] for r in drows], [r[-1] for r in drows]
    count = [0]
    refuted = []

    def lp(rows):
        if count[0] >= max_lps or (deadline is not None and time.monotonic() > deadline):
            raise _Budget()
        count[0] += 1
        allrows = list(zip(A0, c0)) + rows
        if not allrows:
            return tuple([Q(0)] * d), None
        res = feasible(A_lt=[[-v for v in a] for a, _ in allrows], b_lt=[c for _, c in allrows], n=d)
        return (res.point, None) if res.feasible else (None, res.certificate)

    # incremental affine forms along the path (the checker's _path_rows, kept per layer on the stack)
    def forms(t, M, m):
        W, b = net.layer(t)
        Z = W @ M
        zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
        return Z, zc

    def dfs(pos, path, rows, x, t, Z, zc, M, m, on):
        if pos == len(order):
            if delta_of is not None:
                masks = {}
                for tt, j, s in path:
                    masks.setdefault(tt, {})[j] = 1 if s > 0 else 0
                if is_delta_zero(net, masks, delta_of[0], delta_of[1]):
                    if record:
                        refuted.append({"path": [list(v) for v in path], "delta_zero": True})
                    return None
            if leaves is not None:
                leaves.append((tuple(path), tuple(x)))
                return None
            return x
        tt, j = order[pos]
        while t < tt:                                 # layer t complete: advance the affine map
            if t >= 0:                                # (layers without branched neurons: all off)
                W = net.weights[t]
                M = QMatrix.from_rows([Z.row_at(q) if q in on else tuple([Q(0)] * d)
                                       for q in range(W.nrows)], ncols=d)
                m = [zc[q] if q in on else Q(0) for q in range(W.nrows)]
            t += 1
            Z, zc = forms(t, M, m)
            on = set()
        a = Z.row_at(j)
        val = sum((ai * xi for ai, xi in zip(a, x)), Q(0)) + zc[j]
        signs = [targets[(tt, j)]] if (tt, j) in targets else [1, -1]
        if val != 0 and len(signs) == 2 and val < 0:
            signs = [-1, 1]                           # the witness's side first
        for s in signs:
            row = (tuple(s * v for v in a), s * zc[j])
            rows2 = rows + [row]
            path2 = path + [(tt, j, s)]
            brow = None
            if bound is not None and tt == bound[0] - 1:
                on2 = on | {j} if s > 0 else on
                decided = {jj for (t3, jj, _) in path2 if t3 == tt}
                if bound[2] <= decided:
                    Wt, i_b = bound[3], bound[1]
                    coef = [sum((Wt[i_b, k] * Z[k, c] for k in on2), Q(0)) for c in range(d)]
                    brow = (tuple(coef), sum((Wt[i_b, k] * zc[k] for k in on2), Q(0)) + bound[4])
            if val != 0 and (val > 0) == (s > 0) and (
                    brow is None or sum((ai * xi for ai, xi in zip(brow[0], x)), Q(0)) + brow[1] > 0):
                y = x
            else:
                y, cert = lp(rows2 + ([brow] if brow is not None else []))
                if y is None:
                    if record:
                        refuted.append({"path": [list(v) for v in path2],
                                        "certificate": [str(v) for v in cert["y_lt"]]})
                        if brow is not None:
                            refuted[-1]["bound"] = True
                    continue
            on2 = on | {j} if s > 0 else on
            r = dfs(pos + 1, path2, rows2, y, t, Z, zc, M, m, on2)
            if r is not None:
                return r
        return None

    import sys
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * len(order) + 200))
    try:
        x0, cert = lp([])
        if x0 is None:
            if record:
                refuted.append({"path": [], "certificate": [str(v) for v in cert["y_lt"]]})
            return False, None, refuted, order, count[0]
        w = dfs(0, [], [], x0, -1, None, None, QMatrix.identity(d), [Q(0)] * d, set())
    except _Budget:
        return None, None, refuted, order, count[0]
    finally:
        sys.setrecursionlimit(old)
    if w is not None:
        return True, tuple(w), refuted, order, count[0]
    return False, None, refuted, order, count[0]
