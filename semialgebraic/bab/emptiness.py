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
target sign strictly; a point with ``g > 0`` found by the primal side (LP vertices, box points)
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

from ..budget import Budget
from .primal import float_candidates
from .search import bound_objective

__all__ = ["Emptiness", "emptiness_network", "decide_empty", "emptiness_box"]

_ZERO, _ONE = Q(0), Q(1)


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

    def proof(self, targets: dict) -> dict:
        """The JSON-ready proof (``targets`` and the tree, exact numbers as strings) for the checker."""
        from ..certificates import jsonable
        return {"targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
                "bab_tree": jsonable(self.tree)}


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
                 budget: Budget | None = None) -> Emptiness:
    """Decide whether no input of *dom* has ``s·z_t[j] > 0`` for every target (module docstring).

    *nodes* caps the branch-and-bound splits (a count of work: the outcome does not depend on
    the clock); an outer *budget* (checked by the engine) may stop it earlier (undecided)."""
    G = emptiness_network(net, dom, targets)
    if G is None:
        return Emptiness(None, reason="not one target or two targets in different layers")
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
        pat = net.activation_pattern(c)
        flat = {}
        k = 0
        for t in range(net.depth - 1):
            for j in range(net.widths[t + 1]):
                flat[(t, j)] = pat[k]
                k += 1
        if all(flat[key] == s for key, s in targets.items()):
            return c
    return None
