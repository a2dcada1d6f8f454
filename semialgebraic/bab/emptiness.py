r"""Emptiness of activation constraints by branch and bound: "neuron j is never active", "neurons
i and j are never active together", "i inactive and j active never happen together".

A *target* set ``{(t, j): s}`` (``t`` a 0-based hidden layer, ``s = ±1``; at most two targets, in
two different layers) asks whether some input of the domain has ``s·z_t[j](x) > 0`` for every
target.  The question becomes the sign of ``max g`` over a box for a small auxiliary ReLU
network ``G`` (:func:`emptiness_network`), bounded by :func:`semialgebraic.bab.bound_objective`
(exact: symbolic intervals and LP relaxations made rigorous over Q):

* one target: ``g = s·z_t[j]``;
* two targets (the shallower one ``(t1, j1, s1)``): ``u = relu(s1·z_{t1}[j1])`` is carried
  through the layers above (``relu(u) = u``) and ``g = u − relu(u − s2·z_{t2}[j2]) =
  min(u, s2·z_{t2}[j2])``;
* on a box ``[lo, hi]^d`` the box itself; on R^d (and the orthant) the *homogenised* network:
  input ``(x, τ)`` in ``[−1, 1]^d × [0, 1]`` (``[0, 1]^{d+1}``), every bias moved onto ``τ``,
  carried through each hidden layer, so ``G(x, τ) = τ·g(x/τ)`` for ``τ > 0``; any input x is
  ``(x, 1)/s`` for ``s = max(1, |x|_∞)``, so ``max G <= 0`` on the box shows ``g <= 0`` on the
  whole domain.

``max g <= 0`` (certified upper bound, the tree of the search) proves that no input has every
target sign strictly; when the search leaves a question open, *conditioned bound tightening*
(:func:`decide_conditioned`) may prove it: the closed set ``{s·z_t[j] >= 0 for every target}`` is
empty on every piece (the domain box, or on R^d the faces ``τ = 1``, ``x_k = ±1`` of the
homogenised box, which every ray meets), shown by tightening every unstable interval over the
triangle relaxation *with those constraints* until an interval or the LP is empty, a piece left
open split on its widest unstable neuron into the halves ``z <= 0`` and ``z >= 0`` (a tree per
piece; ``splits`` of :func:`decide_conditioned`, none by default) — each step a dual vector made
exact (Neumaier–Shcherbina), replayed by the checker in order (:func:`decide_shared`: one such
tree, conditioned on the deeper target alone, for every pair sharing it, its leaves empty or with
every shallow target on its other side); before any of it, the float walk
over linear regions of :func:`semialgebraic.bab.signwalk.sign_walk` proposes inputs with every
target sign (checked exactly: a witness ends the question); a point with ``g > 0`` found by the primal side (LP vertices, box points)
(and by a seeded float gradient ascent, :func:`semialgebraic.bab.primal.float_candidates`) is
turned into an exact witness input (:func:`decide_empty`).  The checker of the proofs is
:mod:`semialgebraic.verify.functional_dimension_emptiness` (independent code).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, -1], [0]])
>>> decide_empty(net, None, {(0, 0): 1, (0, 1): 1}).empty     # same layer: not asked
>>> r = decide_empty(net, (-1, 1), {(0, 1): 1})               # -x - 1 > 0 on [-1, 1]?
>>> r.empty, r.upper <= 0
(True, True)
>>> r = decide_empty(net, None, {(0, 1): 1})                   # on R^d: x = -2 does it
>>> r.empty, net.activation_pattern(r.witness)[1]
(False, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

from algebra.network import Network
from algebra.rationals import Q

from ..budget import Budget, BudgetExhausted, checkpoint
from ..sets.domains import in_domain
from .primal import float_candidates
from .relaxation import relaxed_max
from .search import bound_objective
from .signwalk import sign_walk

__all__ = ["Emptiness", "emptiness_network", "decide_empty", "walk_witness", "emptiness_box", "decide_conditioned",
           "decide_shared", "decide_shared_shallow", "shared_reference", "conditioned_pieces", "conditioned_intervals", "relaxed_max", "CONDITIONED_LPS",
           "SHARED_LPS", "SHARED_SPLITS"]

_ZERO, _ONE = Q(0), Q(1)

CONDITIONED_LPS = 1500
"""Float LPs of the conditioned tightening of one question (all pieces, rounds included): a count
of work.  A piece whose float pass does not end empty stops the question (no exact work)."""

CONDITIONED_ROUNDS = 12
"""Rounds of the conditioned tightening per piece (each tightens every unstable neuron once)."""

CONDITIONED_SPLITS = 0
"""Neuron splits of the conditioned tightening of one question (all pieces together): a count of
work (:func:`decide_conditioned`)."""

GAIN = 0.0
"""A tightening step is taken only when it cuts more than this share of the interval's width (or
makes the neuron stable, or empties it): :func:`_gain`.  0: every cut (0.02 was tried on seed
5's pair of ``benchmarks/bench_general.py --dim-split 5``: the same ~6 000 exact LPs, no gain)."""

SPLIT_ROUNDS = 4
"""Rounds of the conditioned tightening at a node below a piece's root."""

STALL = 0.05
"""The float pass of a piece stops when a round makes no neuron stable and cuts the total width
of the unstable intervals by less than this share."""


@dataclass
class Emptiness:
    """The outcome of :func:`decide_empty`: ``empty`` True (``tree`` proves ``max g <= upper <=
    0``), False (``witness``: an exact input of the domain with every target sign) or None
    (undecided: node budget, or the question is not of the supported form; ``upper``, when not
    None, is then the certified bound ``max G <= upper`` the search reached, > 0, over the
    search box: how far the question is from a proof)."""

    empty: bool | None
    upper: Q | None = None
    tree: dict | None = None
    witness: tuple | None = None
    nodes: int = 0
    reason: str = ""
    pieces: list | None = None
    lps: int = 0

    def proof(self, targets: dict) -> dict:
        """The JSON-ready proof (``targets`` and the tree, or the conditioned ``pieces`` of
        :func:`decide_conditioned`; exact numbers as strings) for the checker."""
        from ..certificates import jsonable
        tg = [[t, j, s] for (t, j), s in sorted(targets.items())]
        if self.pieces is not None:
            return {"targets": tg, "conditioned": jsonable(self.pieces)}
        return {"targets": tg, "bab_tree": jsonable(self.tree)}


def emptiness_box(dom, d: int) -> list:
    """The box of the search: the cube of a box domain, else the homogenised box."""
    if isinstance(dom, tuple):
        return [(Q(dom[0]), Q(dom[1]))] * d
    lo = _ZERO if dom == "orthant" else -_ONE
    return [(lo, _ONE)] * d + [(_ZERO, _ONE)]


def emptiness_network(net: Network, dom, targets: dict) -> Network | None:
    """The auxiliary network ``G`` of the module docstring (one output), or None when *targets*
    is not one target or two targets in different layers."""
    tg = sorted((t, j, s) for (t, j), s in targets.items())
    if not 1 <= len(tg) <= 2 or (len(tg) == 2 and tg[0][0] == tg[1][0]):
        return None
    homog = not isinstance(dom, tuple)
    top = tg[-1][0]
    layers = []                               # (rows, biases) of G, bias-free when homogenised
    carry = None                              # index of the carried u in the previous layer
    for t in range(top + 1):
        W, b = net.layer(t)
        rows = [list(r) for r in W.to_rows()]
        bias = list(b)
        n_prev = len(layers[-1][0]) if layers else net.n_inputs + homog
        width_prev = rows and len(rows[0])     # columns of the original layer
        pad = n_prev - width_prev             # extra columns: carries (and τ last)

        def ext(r, rb, pad=pad):
            r = list(r) + [_ZERO] * pad
            if homog:
                r[-1] = rb
                return r, _ZERO
            return r, rb
        if t < top:
            out = [ext(r, rb) for r, rb in zip(rows, bias)]
            if len(tg) == 2 and t == tg[0][0]:          # u = relu(s1 z_{t1}[j1])
                s1 = tg[0][2]
                out.append(ext([s1 * v for v in rows[tg[0][1]]], s1 * bias[tg[0][1]]))
                carry_new = len(out) - 1
            elif carry is not None:
                out.append(([_ZERO] * n_prev, _ZERO))
                out[-1][0][carry] = _ONE
                carry_new = len(out) - 1
            else:
                carry_new = None
            if homog:                                   # τ carried (relu(τ) = τ)
                out.append(([_ZERO] * n_prev, _ZERO))
                out[-1][0][-1] = _ONE
            carry = carry_new
            layers.append(([r for r, _ in out], [c for _, c in out]))
            continue
        _, j2, s2 = tg[-1]
        y, yb = ext([s2 * v for v in rows[j2]], s2 * bias[j2])
        if len(tg) == 1:
            layers.append(([y], [yb]))
            continue
        keep = [_ZERO] * n_prev
        keep[carry] = _ONE
        gap = [-v for v in y]
        gap[carry] += _ONE                              # u − y
        layers.append(([keep, gap], [_ZERO, -yb]))
        layers.append(([[_ONE, -_ONE]], [_ZERO]))
    return Network([r for r, _ in layers], [c for _, c in layers])


def decide_empty(net: Network, dom, targets: dict, *, nodes: int = 200,
                 budget: Budget | None = None, conditioned: int = CONDITIONED_LPS) -> Emptiness:
    """Decide whether no input of *dom* has ``s·z_t[j] > 0`` for every target (module docstring).

    *nodes* caps the branch-and-bound splits (a count of work: the outcome does not depend on
    the clock); an outer *budget* (checked by the engine) may stop it earlier (undecided).  A
    question the branch and bound leaves open (no witness) then gets *conditioned* float LPs of
    :func:`decide_conditioned` (0: none)."""
    r = _decide_bab(net, dom, targets, nodes, budget)
    if r.empty is not None or not conditioned or r.reason.startswith("not one target") or (
            budget is not None and budget.exhausted()):
        return r
    try:
        pieces, used = decide_conditioned(net, dom, targets, lps=conditioned)
    except BudgetExhausted:                 # the outer budget ran out: undecided
        return r
    if pieces is not None:
        return Emptiness(True, nodes=r.nodes, pieces=pieces, lps=used,
                         reason="conditioned bound tightening: every piece empty")
    r.lps = used
    return r


def _decide_bab(net, dom, targets, nodes, budget) -> Emptiness:
    """The branch-and-bound part of :func:`decide_empty`."""
    G = emptiness_network(net, dom, targets)
    if G is None:
        return Emptiness(None, reason="not one target or two targets in different layers")
    found, _ = walk_witness(net, dom, targets)
    if found is not None:
        return found
    d = net.n_inputs
    box = emptiness_box(dom, d)
    Ws = [W.to_rows() for W in G.weights]
    bs = [list(b) for b in G.biases]

    def value(x):
        return G.evaluate(x)[0]

    inner = Budget(None, nodes)
    start = float_candidates(Ws, bs, box, 0, 1, samples=512, steps=60, keep=4, seed=0)
    if len(targets) == 2:
        start += _pair_candidates(net, dom, sorted((t, j, s) for (t, j), s in targets.items()), box)
    ob = bound_objective(Ws, bs, box, [_ONE], value, budget=inner, stop_above=_ZERO, prune_at=_ZERO,
                         input_splits=False, start=start)
    if budget is not None and budget.exhausted():
        return Emptiness(None, nodes=ob.nodes, reason=str(budget.reason))
    if ob.lower > 0:
        w = _witness(net, dom, targets, ob.point)
        if w is not None:
            return Emptiness(False, witness=w, nodes=ob.nodes, reason="a point of the domain")
    if ob.upper is not None and ob.upper <= 0 and ob.tree is not None:
        return Emptiness(True, upper=ob.upper, tree=ob.tree, nodes=ob.nodes,
                         reason="branch and bound: max <= 0")
    return Emptiness(None, upper=ob.upper, nodes=ob.nodes, reason=ob.reason or "undecided")


def walk_witness(net: Network, dom, targets: dict, lps: int | None = None) -> tuple:
    """``(Emptiness(False, witness=x), used)`` when the region walk of
    :func:`semialgebraic.bab.signwalk.sign_walk` (*lps* LPs, default its ``WALK_LPS``) proposes an
    input *x* of *dom* with every target sign, checked exactly; else ``(None, used)``; *used*:
    the walk's LPs."""
    stats: dict = {}
    kw = {} if lps is None else {"lps": lps}
    for x in sign_walk(net, dom, targets, stats=stats, **kw):   # float proposals, checked exactly
        if in_domain(x, dom) and _signs_hold(net, targets, x):
            return Emptiness(False, witness=x, reason="a point of the domain (region walk)"), stats["lps"]
    return None, stats["lps"]


def _pair_candidates(net, dom, tg, box, samples=512, steps=60, keep=4) -> list:
    """Float guesses (seeded, a fixed number of steps) of box points where min(s1·z1, s2·z2) is
    largest: sign-gradient ascent on the smaller of the two forms (the gradient of ``G`` vanishes
    where ``relu(s1·z1) = 0``).  Guesses only: the engine evaluates each exactly."""
    import numpy as np
    from algebra.rationals import from_float
    homog = not isinstance(dom, tuple)
    top = tg[-1][0]
    A = []                                   # [W | b] per layer, floats
    for t in range(top + 1):
        W, b = net.layer(t)
        A.append(np.array([[float(v) for v in r] + [float(c)] for r, c in zip(W.to_rows(), b)]))
    lo = np.array([float(a) for a, _ in box])
    hi = np.array([float(c) for _, c in box])
    X = lo + (hi - lo) * np.random.default_rng(0).random((samples, len(box)))
    step = (hi - lo) / 8

    def forward(X):
        tau = X[:, -1:] if homog else np.ones((len(X), 1))
        h, zs = (X[:, :-1] if homog else X), []
        for t in range(top + 1):
            z = np.hstack([h, tau]) @ A[t].T
            zs.append(z)
            h = np.maximum(z, 0.0)
        return zs

    def grad(zs, t, j):
        g = np.zeros((len(zs[0]), A[t].shape[0]))
        g[:, j] = 1.0
        gtau = np.zeros(len(g))
        for l in range(t, -1, -1):
            full = g @ A[l]
            gtau += full[:, -1]
            g = full[:, :-1]
            if l:
                g = g * (zs[l - 1] > 0)
        return np.hstack([g, gtau[:, None]]) if homog else g

    for _ in range(steps):
        zs = forward(X)
        a = tg[0][2] * zs[tg[0][0]][:, tg[0][1]]
        c = tg[1][2] * zs[tg[1][0]][:, tg[1][1]]
        ga = tg[0][2] * grad(zs, tg[0][0], tg[0][1])
        gc = tg[1][2] * grad(zs, tg[1][0], tg[1][1])
        g = np.where((a < c)[:, None], ga, gc)
        X = np.clip(X + step * np.sign(g), lo, hi)
        step = step * 0.9
    zs = forward(X)
    m = np.minimum(tg[0][2] * zs[tg[0][0]][:, tg[0][1]], tg[1][2] * zs[tg[1][0]][:, tg[1][1]])
    return [tuple(min(max(from_float(float(v)), a), c) for v, (a, c) in zip(X[i], box))
            for i in np.argsort(-m)[:keep]]


def _witness(net, dom, targets, point) -> tuple | None:
    """An exact input of *dom* with every target sign, from a point of the search box where
    ``G > 0`` (homogenised: ``x/τ``; at ``τ = 0``, ``x/τ`` for small ``τ``, checked)."""
    d = net.n_inputs
    if isinstance(dom, tuple):
        cands = [tuple(point)]
    else:
        x, tau = list(point[:d]), point[d]
        taus = [tau] if tau > 0 else [Q(1, 2 ** k) for k in (8, 16, 32, 64)]
        cands = [tuple(v / tv for v in x) for tv in taus]
    for c in cands:
        if _signs_hold(net, targets, c):
            return c
    return None


def _signs_hold(net, targets, x) -> bool:
    """Whether every target sign holds at the exact input *x* (exact activation pattern)."""
    pat = net.activation_pattern(x)
    flat = {}
    k = 0
    for t in range(net.depth - 1):
        for j in range(net.widths[t + 1]):
            flat[(t, j)] = pat[k]
            k += 1
    return all(flat[key] == s for key, s in targets.items())


# -- conditioned bound tightening: {s1·z_a >= 0, s2·z_c >= 0} empty on every piece ------------------


def conditioned_pieces(dom, d: int) -> list:
    """The boxes of :func:`decide_conditioned`: the domain box itself, or (R^d, orthant) the faces
    of the homogenised box that every ray meets: ``τ = 1``, then ``x_k = 1`` and ``x_k = −1``
    (``x_k = 1`` only on the orthant) for each ``k``; the checker builds the same list."""
    if isinstance(dom, tuple):
        return [[(Q(dom[0]), Q(dom[1]))] * d]
    low = _ZERO if dom == "orthant" else -_ONE
    out = [[(low, _ONE)] * d + [(_ONE, _ONE)]]
    for k in range(d):
        for s in ((_ONE,) if dom == "orthant" else (_ONE, -_ONE)):
            b = [(low, _ONE)] * d + [(_ZERO, _ONE)]
            b[k] = (s, s)
            out.append(b)
    return out


def _conditioned_setup(net, dom, targets):
    """``(Ws, bs, first)``: the one-target network of the deeper target (output ``s2·z_c``,
    homogenised on R^d / the orthant) and the shallower target ``(t1, j1, s1)`` or None."""
    tg = sorted((t, j, s) for (t, j), s in targets.items())
    G = emptiness_network(net, dom, {(tg[-1][0], tg[-1][1]): tg[-1][2]})
    return [W.to_rows() for W in G.weights], [list(b) for b in G.biases], (tg[0] if len(tg) == 2 else None)


def conditioned_intervals(Ws, bs, box, first):
    """Exact interval propagation of *box* with the conditioning: the first target's neuron
    clipped to its side (a split) and the output ``s2·z_c`` to ``>= 0``; None when empty."""
    from .relaxation import node_intervals
    splits = {} if first is None else {(first[0], first[1]): 1 if first[2] > 0 else 0}
    ivs = node_intervals(Ws, bs, box, splits)
    if ivs is None:
        return None
    lo, hi = ivs[-1][0]
    if hi < 0:
        return None
    ivs[-1] = [(max(lo, _ZERO), hi)]
    return ivs


def _float_pass(t, box, fiv, first, rounds, lps, done=None):
    """Float conditioned tightening (HiGHS, proposals only) of the float intervals *fiv* (changed
    in place): ``(closed?, LPs used, rounds begun)``; closed: empty, or *done* (``done(fiv)``
    true: every shallow target of :func:`decide_shared` on its other side)."""
    from ..lp.floatlp import new_highs, run_highs
    from .relaxation import build_lp
    used, last, rnd = 0, _spread(fiv), 0
    if done is not None and done(fiv):
        return True, 0, 0
    for rnd in range(rounds):
        lp, _tags = build_lp(t, box, [[tuple(v) for v in layer] for layer in fiv], [_ZERO] * len(fiv[-1]))
        h = new_highs()
        h.passModel(lp)
        changed = False
        for l, j in _order(fiv, first):
            iv = fiv[l][j]
            col = t.zoff[l] + j
            for sgn in (1.0, -1.0):
                if used >= lps:
                    return False, used, rnd + 1
                checkpoint()
                h.changeColCost(col, sgn)
                run_highs(h)
                used += 1
                name = str(h.getModelStatus()).rsplit(".", 1)[-1]
                if name == "kInfeasible":
                    return True, used, rnd + 1
                if name != "kOptimal":
                    continue
                v = sgn * h.getInfo().objective_function_value
                if _gain(v if sgn > 0 else -v, iv, sgn):
                    iv[1 if sgn > 0 else 0] = v
                    changed = True
                if iv[0] > iv[1] + 1e-9 or (done is not None and done(fiv)):
                    return True, used, rnd + 1
                h.changeColBounds(col, iv[0], iv[1])
            h.changeColCost(col, 0.0)
        width = _spread(fiv)
        if not changed or width[1] == last[1] and width[0] > (1 - STALL) * last[0]:
            break                          # stalled: no neuron made stable, width cut < STALL
        last = width
    return False, used, rnd + 1


def _spread(fiv):
    """``(total width of the unstable intervals, number of unstable neurons)`` (floats)."""
    unst = [(a, b) for layer in fiv[:-1] for a, b in layer if a < 0 < b]
    return sum(b - a for a, b in unst), len(unst)


def _order(ivs, first):
    """The neurons one round tightens: the unstable hidden ones (and the first target's), layer
    by layer, then the output."""
    L = len(ivs)
    out = []
    for l in range(L):
        for j, (lo, hi) in enumerate(ivs[l]):
            if l == L - 1 or lo < 0 < hi or (first is not None and (l, j) == (first[0], first[1])):
                out.append((l, j))
    return out


def _gain(v, iv, sgn) -> bool:
    """Whether the float bound ``sgn·z <= v`` is worth a step on the interval *iv* of ``z``: it
    cuts at least :data:`GAIN` of the width, or makes the neuron stable, or empties the interval
    (smaller cuts cost an exact certificate each and rarely matter)."""
    lo, hi = float(iv[0]), float(iv[1])
    new = (lo, min(hi, v)) if sgn > 0 else (max(lo, -v), hi)
    if new[0] > new[1] or (lo < 0 < hi and not new[0] < 0 < new[1]):
        return True
    return (hi - lo) - (new[1] - new[0]) > max(GAIN * (hi - lo), 1e-9)


def _no_gain(h, sgn, iv) -> bool:
    """Whether the solved float LP (max ``sgn·z``) is optimal with a value not worth a step on
    the interval *iv* (:func:`_gain`; a proposal only: the exact pass then skips that LP)."""
    if str(h.getModelStatus()).rsplit(".", 1)[-1] != "kOptimal":
        return False
    return not _gain(h.getInfo().objective_function_value, iv, sgn)


def _exact_pass(Ws, bs, t, box, ivs, first, rounds, lps, done=None):
    """The conditioned tightening made exact: ``(steps, end, LPs, intervals)`` (the intervals
    left by the steps); *end* is ``{"farkas":
    multipliers}`` (a negative bound of the zero objective), ``{"interval": [l, j]}`` (the last
    step empties that interval), ``{"sign": None}`` (``done(intervals)``: every shallow target
    of :func:`decide_shared` on its other side; the caller names the neuron) or None (not
    proven).  Each step ``{"at": [l, j], "side": ±1,
    "bound": v, "mu", "alpha", "beta"}`` proves ``side·z_{l,j} <= v`` over the relaxation of the
    intervals left by the steps before it (rounded outward to the grid of :mod:`.symbolic`)."""
    from ..lp.floatlp import new_highs, run_highs
    from .relaxation import build_lp, candidates, read_duals
    from .symbolic import up
    ivs = [list(layer) for layer in ivs]
    steps, used = [], 0
    if done is not None and done(ivs):
        return steps, {"sign": None}, used, ivs
    for _ in range(rounds):
        lp, tags = build_lp(t, box, ivs, [_ZERO] * len(ivs[-1]))
        h = new_highs()
        h.passModel(lp)
        changed = False
        for l, j in _order(ivs, first):
            col = t.zoff[l] + j
            for sgn in (1, -1):
                if used >= lps:
                    return steps, None, used, ivs
                checkpoint()
                h.changeColCost(col, float(sgn))
                run_highs(h)
                used += 1
                if _no_gain(h, sgn, ivs[l][j]):
                    continue                     # floats see no gain: no exact work, no step
                status, _, duals = read_duals(h, t, tags)
                if duals is None:
                    continue
                obj = {} if status == "infeasible" else {(l, j): Q(sgn)}
                best = None
                near = None if status == "infeasible" else h.getInfo().objective_function_value
                for y in candidates(ivs, duals, dens=(10 ** 6, "cf")):
                    v = relaxed_max(Ws, bs, box, ivs, obj, *y)
                    if best is None or v < best[0]:
                        best = (v, y)
                    if v < 0 if near is None else float(v) <= near + 1e-6 * (1 + abs(near)):
                        break                  # as good as HiGHS's value: no further rounding
                if best is None:
                    continue
                v, (mu, al, be) = best
                mult = {"mu": mu, "alpha": al, "beta": be}
                if status == "infeasible":
                    if v < 0:
                        return steps, {"farkas": mult}, used, ivs
                    continue
                v = up(v)
                lo, hi = ivs[l][j]
                if (sgn > 0 and v < hi) or (sgn < 0 and -v > lo):
                    steps.append({"at": [l, j], "side": sgn, "bound": v, **mult})
                    ivs[l][j] = (lo, v) if sgn > 0 else (-v, hi)
                    changed = True
                    if ivs[l][j][0] > ivs[l][j][1]:
                        return steps, {"interval": [l, j]}, used, ivs
                    if done is not None and done(ivs):
                        return steps, {"sign": None}, used, ivs
                    h.changeColBounds(col, float(ivs[l][j][0]), float(ivs[l][j][1]))
                    if l < len(ivs) - 1:
                        hc = t.hoff[l] + j
                        h.changeColBounds(hc, max(float(ivs[l][j][0]), 0.0), max(float(ivs[l][j][1]), 0.0))
            h.changeColCost(col, 0.0)
        if not changed:
            break
    return steps, None, used, ivs


def _split_choice(fiv):
    """The unstable hidden neuron ``(l, j)`` of the float intervals *fiv* with the largest
    triangle height ``-lo·hi/(hi - lo)`` (the widest relaxation), or None."""
    best, at = 0.0, None
    for l, layer in enumerate(fiv[:-1]):
        for j, (lo, hi) in enumerate(layer):
            if lo < 0 < hi and -lo * hi / (hi - lo) > best:
                best, at = -lo * hi / (hi - lo), (l, j)
    return at


def _clip(ivs, at, side, zero):
    """A copy of the intervals *ivs* with neuron *at* on its *side* (0: ``z <= 0``, 1: ``z >= 0``)."""
    out = [list(layer) for layer in ivs]
    l, j = at
    lo, hi = out[l][j]
    out[l][j] = (lo, min(hi, zero)) if side == 0 else (max(lo, zero), hi)
    return out


def _float_tree(t, box, fiv, first, rounds, work, done=None):
    """Floats only: the split tree that empties the conditioned set of one piece, or None.  Each
    node tightens (:func:`_float_pass`); a node left open splits its widest unstable neuron
    (:func:`_split_choice`) into ``z <= 0`` and ``z >= 0`` (the two halves cover it), each half
    tightened from the parent's intervals.  *work* ``{"lps", "splits"}`` is counted down."""
    ok, n, began = _float_pass(t, box, fiv, first, rounds, work["lps"], done)
    work["lps"] -= n
    if ok:
        return {"rounds": began}
    at = _split_choice(fiv)
    if at is None or work["splits"] <= 0 or work["lps"] <= 0:
        return None
    work["splits"] -= 1
    kids = []
    for side in (0, 1):
        k = _float_tree(t, box, [[list(v) for v in layer] for layer in _clip(fiv, at, side, 0.0)],
                        first, SPLIT_ROUNDS, work, done)
        if k is None:
            return None
        kids.append(k)
    return {"rounds": began, "split": list(at), "children": kids}


def _exact_tree(Ws, bs, t, box, ivs, first, rounds, plan, lps, done=None):
    """The split tree *plan* of :func:`_float_tree` made exact (each node at most one round more
    than its float pass took): ``(node or None, LPs)``; a node is
    a leaf ``{"steps", "end"}`` (:func:`_exact_pass` empties it) or ``{"steps", "split": [l, j],
    "children": [z <= 0 half, z >= 0 half]}``; a half whose clipped interval is empty is
    ``{"steps": [], "end": {"interval": None}}``."""
    steps, end, used, ivs = _exact_pass(Ws, bs, t, box, ivs, first, min(rounds, plan["rounds"] + 1), lps, done)
    if end is not None:
        return {"steps": steps, "end": end}, used
    if "split" not in plan:
        return None, used
    at = tuple(plan["split"])
    kids = []
    for side, sub in zip((0, 1), plan["children"]):
        c = _clip(ivs, at, side, _ZERO)
        if c[at[0]][at[1]][0] > c[at[0]][at[1]][1]:
            kids.append({"steps": [], "end": {"interval": None}})
            continue
        k, n = _exact_tree(Ws, bs, t, box, c, first, SPLIT_ROUNDS, sub, lps - used, done)
        used += n
        if k is None:
            return None, used
        kids.append(k)
    return {"steps": steps, "split": list(at), "children": kids}, used


def decide_conditioned(net: Network, dom, targets: dict, *, lps: int = CONDITIONED_LPS,
                       rounds: int = CONDITIONED_ROUNDS, splits: int = CONDITIONED_SPLITS) -> tuple:
    """Conditioned bound tightening: prove that ``{s·z_t[j] >= 0 for every target}`` is empty on
    every piece of :func:`conditioned_pieces` (then no input has every target sign strictly:
    on R^d a point with both signs strict scales, ``(x, 1)/max(1, |x|_∞)``, onto a face).  On
    each piece the intervals of every unstable neuron up to the deeper target (the shallower
    target's neuron and the output ``s2·z_c`` included) are tightened over the triangle
    relaxation *with the conditioning* (the first target clipped to its side, ``s2·z_c >= 0``),
    round after round, until an interval or the LP is empty; a piece left open is split on its
    widest unstable neuron (``z <= 0`` / ``z >= 0``, the halves tightened again from the
    parent's intervals; at most *splits* splits over all pieces).  HiGHS proposes, first in a
    float pass (a piece that does not end empty in floats stops the question: no exact work),
    then each improving LP's dual vector is made exact (:func:`relaxed_max`, projected signs).

    Returns ``(pieces or None, LPs used)``: one tree per piece (:func:`_exact_tree`; the checker
    is :func:`semialgebraic.verify.functional_dimension_emptiness.check_conditioned`)."""
    from .relaxation import LPTemplate
    tg = sorted((t, j, s) for (t, j), s in targets.items())
    if not 1 <= len(tg) <= 2 or (len(tg) == 2 and tg[0][0] == tg[1][0]):
        return None, 0
    Ws, bs, first = _conditioned_setup(net, dom, targets)
    t = LPTemplate(Ws, bs)
    boxes = conditioned_pieces(dom, net.n_inputs)
    starts, plans = [], []
    work = {"lps": lps, "splits": splits}
    for box in boxes:                            # floats first: every piece must close
        ivs = conditioned_intervals(Ws, bs, box, first)
        starts.append(ivs)
        plans.append(None)
        if ivs is None:
            continue
        plans[-1] = _float_tree(t, box, [[[float(a), float(b)] for a, b in layer] for layer in ivs],
                                first, rounds, work)
        if plans[-1] is None:
            return None, lps - work["lps"]
    return _exact_pieces(Ws, bs, t, boxes, starts, plans, first, rounds, lps, lps - work["lps"])


def _exact_pieces(Ws, bs, t, boxes, starts, plans, first, rounds, lps, used, done=None):
    """Every face's float plan made exact by :func:`_exact_tree` (a face whose intervals are
    empty ends at once): ``(pieces or None, LPs)``, *used* LPs already spent."""
    pieces = []
    for box, ivs, plan in zip(boxes, starts, plans):
        if ivs is None:
            pieces.append({"steps": [], "end": {"interval": None}})
            continue
        node, n = _exact_tree(Ws, bs, t, box, ivs, first, rounds, plan, 2 * lps, done)
        used += n
        if node is None:
            return None, used
        pieces.append(node)
    return pieces, used


# -- shared conditioning: several shallow targets against one deeper target ----------------------

SHARED_LPS = 20000
"""Float LPs of one :func:`decide_shared` call (its float trees, every piece): a count of work."""

SHARED_SPLITS = 48
"""Neuron splits of one :func:`decide_shared` call (all pieces together)."""

SHARED_OPEN_SHARE = 0.125
"""At most this share of the pieces (and at least one) may stay open after their unsplit float
pass: more stops :func:`decide_shared` before any split (seed 5's group: 1 of 17, τ = 1; seed 6's
three pairs with (3, 4): every piece open, 390 LPs each, so it stops after 4 pieces, not 20 000
LPs later).  The faces ``x_k = ±1`` go first, τ = 1 (the widest) last."""


def decide_shared(net: Network, dom, deeper: tuple, shallows: list, *, lps: int = SHARED_LPS,
                  rounds: int = CONDITIONED_ROUNDS, splits: int = SHARED_SPLITS) -> tuple:
    """Prove at once that the deeper target ``deeper = (t2, j2, s2)`` is never on its side
    together with any of the shallow targets ``(t1, j, s1)`` of *shallows* (one layer ``t1 <
    t2``): one conditioned tree per piece of :func:`conditioned_pieces`, conditioned on
    ``s2·z_c >= 0`` *alone* (no shallow target clipped), whose every leaf is empty or has every
    shallow target on its other side (``s1·z_{t1}[j] <= 0`` for each; its end ``{"sign":
    [t1, j]}`` in the proof of the pair of that ``j``).  Splits, rounds and the float pass first,
    as :func:`decide_conditioned`; the pairs sharing a rarely active deeper neuron (seed 5 of
    ``benchmarks/bench_general.py``: ten layer-1 neurons against (2, 29)) cost one tree instead
    of one per pair.

    Returns ``(shared proof, LPs used)``: ``{"deeper": [t2, j2, s2], "shallow": [[t1, j, s1],
    ...], "conditioned": pieces}`` (JSON-ready, its sign ends ``{"sign": None}``: every shallow
    target), stored once in a certificate's ``shared_proofs`` table and referred to by each pair's
    proof (:func:`shared_reference`; the checker is
    :class:`semialgebraic.verify.functional_dimension_emptiness.SharedProofs`), or ``(None, LPs
    used)`` when a piece stays open."""
    from .relaxation import LPTemplate
    t2, j2, s2 = deeper
    layers = {t for t, _, _ in shallows}
    if not shallows or len(layers) != 1 or layers.pop() >= t2:
        return None, 0
    t1 = shallows[0][0]
    Ws, bs, _ = _conditioned_setup(net, dom, {(t2, j2): s2})
    t = LPTemplate(Ws, bs)
    sides = [(j, s) for _, j, s in shallows]

    def done_float(fiv):
        row = fiv[t1]
        return all(row[j][1] <= -1e-7 or row[j][1] == 0.0 if s > 0 else row[j][0] >= 1e-7 or row[j][0] == 0.0
                   for j, s in sides)

    def done_exact(ivs):
        row = ivs[t1]
        return all(row[j][1] <= 0 if s > 0 else row[j][0] >= 0 for j, s in sides)

    boxes = conditioned_pieces(dom, net.n_inputs)
    starts = [conditioned_intervals(Ws, bs, box, None) for box in boxes]
    pieces, used = _shared_pieces(Ws, bs, t, boxes, starts, None, rounds, lps, splits, done_float, done_exact)
    if pieces is None:
        return None, used
    from ..certificates import jsonable
    return {"deeper": [t2, j2, s2], "shallow": [[t1, j, s] for j, s in sides],
            "conditioned": jsonable(pieces)}, used


def _shared_pieces(Ws, bs, t, boxes, starts, first, rounds, lps, splits, done_float, done_exact) -> tuple:
    """A shared tree's pieces: the float plans of :func:`_shared_plans`, then made exact by
    :func:`_exact_pieces` (leaves closed by *done_exact*).  ``(pieces or None, LPs used)``."""
    plans, left = _shared_plans(t, boxes, starts, first, rounds, lps, splits, done_float)
    if plans is None:
        return None, lps - left
    return _exact_pieces(Ws, bs, t, boxes, starts, plans, first, rounds, lps, lps - left, done_exact)


def _shared_plans(t, boxes, starts, first, rounds, lps, splits, done_float) -> tuple:
    """The float plans of a shared tree (:func:`decide_shared`, :func:`decide_shared_shallow`),
    one per piece: root passes first (the faces x_k = ±1, then τ = 1; most pieces must close
    unsplit: more than ``SHARED_OPEN_SHARE`` of them open gives up), then split trees for the few
    left.  Returns ``(plans, LPs left)``, plans None when a piece stays open."""
    plans = [None] * len(boxes)
    work = {"lps": lps, "splits": 0}
    opened = []
    for i in list(range(1, len(boxes))) + [0]:
        if starts[i] is not None:
            plans[i] = _float_tree(t, boxes[i], _floats(starts[i]), first, rounds, work, done_float)
            if plans[i] is None:
                opened.append(i)
                if len(opened) > max(1, SHARED_OPEN_SHARE * len(boxes)):
                    return None, work["lps"]
    work["splits"] = splits
    for i in opened:
        plans[i] = _float_tree(t, boxes[i], _floats(starts[i]), first, rounds, work, done_float)
        if plans[i] is None:
            return None, work["lps"]
    return plans, work["lps"]


def shared_reference(shared: dict, shallow: tuple) -> dict:
    """The proof of the pair (*shallow* ``(t1, j, s1)``, the deeper target of *shared*) by the
    shared proof *shared* of :func:`decide_shared`: ``{"targets", "shared": shared}`` (the same
    object for every pair; a certificate replaces it by its index in ``shared_proofs``).  For a
    proof of :func:`decide_shared_shallow` *shallow* is instead one of its deeper targets, the
    pair's other target its shallow one."""
    other = shared["shallow"] if shared.get("conditioned_on") == "shallow" else shared["deeper"]
    tg = sorted([tuple(shallow), tuple(other)])
    return {"targets": [list(v) for v in tg], "shared": shared}


def decide_shared_shallow(net: Network, dom, shallow: tuple, deepers: list, *, lps: int = SHARED_LPS,
                          rounds: int = CONDITIONED_ROUNDS, splits: int = SHARED_SPLITS) -> tuple:
    """The mirror of :func:`decide_shared`: prove at once that the shallow target ``shallow =
    (t1, j1, s1)`` is never on its side together with any deeper target ``(t2, j, s2)`` of
    *deepers* (one layer ``t2 > t1``).  The auxiliary network is θ's layers up to ``t2``, its
    outputs the rows ``s2·z_{t2}[j]`` of every deeper target (in the order of *deepers*, sorted;
    homogenised on R^d / the orthant); each piece of :func:`conditioned_pieces` is conditioned
    on ``s1·z_{t1}[j1] >= 0`` *alone* (that neuron's interval clipped, no output clipped), and
    every leaf of its tree is empty or has every output ``<= 0`` (end ``{"sign": None}``).  Seed
    5 of ``benchmarks/bench_general.py``: the one rarely active neuron (2, 29) (1-based) against
    ten layer-3 neurons, one tree for the ten pairs.

    Returns ``(shared proof, LPs used)``: ``{"conditioned_on": "shallow", "shallow": [t1, j1,
    s1], "deeper": [[t2, j, s2], ...], "conditioned": pieces}`` (JSON-ready; stored once in a
    certificate's ``shared_proofs``, each pair referring to it by :func:`shared_reference`;
    checker :class:`semialgebraic.verify.functional_dimension_emptiness.SharedProofs`), or
    ``(None, LPs used)`` when a piece stays open."""
    from .relaxation import LPTemplate
    t1, j1, s1 = shallow
    deepers = sorted(tuple(v) for v in deepers)
    layers = {t for t, _, _ in deepers}
    if not deepers or len(layers) != 1 or min(layers) <= t1 or len({j for _, j, _ in deepers}) != len(deepers):
        return None, 0
    Ws, bs = _mirror_network(net, dom, deepers)
    t = LPTemplate(Ws, bs)
    first = (t1, j1, s1)
    m = len(deepers)

    def done_float(fiv):
        return all(hi <= -1e-7 or hi == 0.0 for _, hi in fiv[-1])

    def done_exact(ivs):
        return all(hi <= 0 for _, hi in ivs[-1])

    boxes = conditioned_pieces(dom, net.n_inputs)
    starts = [_mirror_intervals(Ws, bs, box, first) for box in boxes]
    pieces, used = _shared_pieces(Ws, bs, t, boxes, starts, first, rounds, lps, splits, done_float, done_exact)
    if pieces is None or m == 0:
        return None, used
    from ..certificates import jsonable
    return {"conditioned_on": "shallow", "shallow": [t1, j1, s1], "deeper": [list(v) for v in deepers],
            "conditioned": jsonable(pieces)}, used


def _mirror_network(net, dom, deepers) -> tuple[list, list]:
    """``(Ws, bs)`` of :func:`decide_shared_shallow`: the one-target network of the first deeper
    target, its output row replaced by the rows of every deeper target (the layers below do not
    depend on the target)."""
    Ws = bs = None
    outs, obs = [], []
    for t2, j, s in deepers:
        G = emptiness_network(net, dom, {(t2, j): s})
        if Ws is None:
            Ws, bs = [W.to_rows() for W in G.weights], [list(b) for b in G.biases]
        outs.append(list(G.weights[-1].to_rows()[0]))
        obs.append(G.biases[-1][0])
    Ws[-1], bs[-1] = outs, obs
    return Ws, bs


def _mirror_intervals(Ws, bs, box, first):
    """Exact interval propagation of *box* with the shallow target's neuron clipped to its side
    (no output clipped); None when empty."""
    from .relaxation import node_intervals
    return node_intervals(Ws, bs, box, {(first[0], first[1]): 1 if first[2] > 0 else 0})


def _floats(ivs) -> list:
    """Float copies ``[lo, hi]`` of exact intervals, layer by layer."""
    return [[[float(a), float(b)] for a, b in layer] for layer in ivs]
