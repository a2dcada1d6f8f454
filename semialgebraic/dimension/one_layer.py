r"""The functional dimension of a one-hidden-layer network whose neurons each are dead on the
domain, active on all of it, or switch inside it on a hyperplane of their own: by a theorem
(three-layer-fibers R38, R39) instead of a rank.

For f(x) = V relu(W x + b) + c on an open convex domain D (R^d, the open orthant, the open
box), classify each hidden neuron i:

* *dead*: w_i·x + b_i <= 0 on D (b_i < 0 for a zero row): its d + 1 + m parameters are free;
* *switching*: w_i·x + b_i takes both signs on D, on a hyperplane H_i that no other switching
  neuron shares ((w_i, b_i) proportional to no other, with either sign): one scaling (S2) when
  its outgoing column is non-zero, its d + 1 incoming parameters otherwise; a group G of
  switching neurons on one hyperplane with one orientation (positive multiples of one row: a
  split neuron, S3) counts |G| (d + 1 + m) − (m + d·r_G) (r_G the rank of their outgoing
  columns, R39); with both orientations (relu(z) − relu(−z) = z) it also adds its normal and the
  meet of its two column spaces to the affine part below;
* *active*: w_i·x + b_i >= 0 on D (b_i > 0 for a zero row).  The k active neurons form a
  linear block x ↦ V_A (W_A x + b_A) (S4): its first-order changes δV_A W_A + V_A δW_A span
  m·r_W + d·r_V − r_V·r_W dimensions (r_W = rank W_A, r_V = rank V_A, exact), and the
  constants are the output biases' (R39).

When every neuron is one of these, the Jacobian's kernel is exactly those directions (the proofs
are R38's and R39's), so the functional dimension is N minus their number.  A zero row with
bias 0 (a kink at every input): not decided here (the general method).
Every classification is an exact comparison and the two ranks exact: :func:`one_layer_kernel`
costs O(n1 (d + m)) operations and two ranks, where the rank of the Jacobian rows (ACAS
Xu-size nets and above, ``RANK_ONLY``) costs minutes to hours and a 64-3072-64 transformer MLP
block's (396 352 parameters) cannot be done at all.  The ``one_hidden_layer_dimension``
certificate names the network, the domain and the value; its checker
(:mod:`semialgebraic.verify.one_hidden_layer_dimension`) re-classifies the neurons and re-ranks
the linear block.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.linalg.gfp import rank_lower_bound
from algebra.network import Network
from algebra.rationals import Q

from .result import FunctionalDimension

__all__ = ["one_layer_kernel", "one_layer_hypotheses", "one_layer_value"]


def _sides(lo, hi, w, b):
    """``(min, max)`` of ``w·x + b`` over the box ``∏ [lo_k, hi_k]`` (None: unbounded)."""
    mn = mx = b
    for wk, l, h in zip(w, lo, hi):
        if wk == 0:
            continue
        a, z = (l, h) if wk > 0 else (h, l)          # where w_k x_k is smallest, largest
        mn = None if mn is None or a is None else mn + wk * a
        mx = None if mx is None or z is None else mx + wk * z
    return mn, mx


def one_layer_kernel(net: Network, dom) -> tuple[int, dict] | str:
    """``(dimension of the kernel, counts)`` by R38 and R39 for the one-hidden-layer *net* on
    *dom* (None, ``"orthant"``, ``(lo, hi)`` a cube, or ``[(lo_k, hi_k)]`` a box), or the first
    hypothesis that fails, in words.  Each neuron is *dead* (its pre-activation <= 0 on the
    domain, negative if its row is zero: all its d + 1 + m parameters free), *switching* (it
    takes both signs inside the domain) on a hyperplane no other switching neuron shares: one
    scaling, or its d + 1 incoming parameters when its outgoing column is zero (a group G on one
    hyperplane with one orientation, a split neuron: |G| (d + 1 + m) − (m + d·r_G), counts
    ``split``, ``split_free``); or *active* (its pre-activation >= 0 on the domain, positive if
    its row is zero): the k active neurons' k (d + 1 + m) parameters less the image of the
    linear block (:func:`linear_block_image`, which also takes the hyperplanes shared with both
    orientations).  A zero row with bias 0: not decided here.

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    >>> one_layer_kernel(net, None)[0], one_layer_kernel(net, (Q(2), Q(3)))[0]   # f = 1 there
    (3, 10)
    """
    if net.depth != 2:
        return f"not one hidden layer ({net.depth - 1} hidden layers)"
    d, m = net.n_inputs, net.n_outputs
    W, b = net.layer(0)
    V = net.weights[1]
    if dom is None:
        lo = hi = [None] * d
    elif dom == "orthant":
        lo, hi = [Q(0)] * d, [None] * d
    elif isinstance(dom, tuple):
        lo, hi = [Q(dom[0])] * d, [Q(dom[1])] * d
    else:
        lo, hi = [Q(a) for a, _ in dom], [Q(z) for _, z in dom]
        if len(lo) != d:                     # (zip would drop the coordinates not given)
            raise InputError(f"the box has {len(lo)} sides for {d} inputs")
    if any(a is not None and z is not None and a >= z for a, z in zip(lo, hi)):
        return "the domain has no interior"
    keys: dict = {}
    counts = {"scalings": 0, "unseen": 0, "dead": 0, "active": 0}
    active = []
    for i in range(W.nrows):
        w = W.row_at(i)
        k = next((k for k, v in enumerate(w) if v != 0), None)
        if k is None:
            if b[i] < 0:
                counts["dead"] += 1
                continue
            if b[i] > 0:                     # a constant neuron: part of the linear block
                active.append(i)
                continue
            return f"neuron {i} has a zero row and bias 0 (a kink at every input)"
        mn, mx = _sides(lo, hi, w, b[i])
        if mx is not None and mx <= 0:
            counts["dead"] += 1
            continue
        if mn is not None and mn >= 0:       # active on the open domain: the linear block (R39)
            active.append(i)
            continue
        key = tuple(v / w[k] for v in w) + (b[i] / w[k],)     # the hyperplane, either sign,
        keys.setdefault(key, ([], []))[0 if w[k] > 0 else 1].append(i)     # by orientation
    kernel = (d + 1 + m) * counts["dead"]
    counts.update(split=0, split_free=0, opposite=0)
    normals, meets = [], []                  # of the groups with both orientations
    for key, (pos, neg) in keys.items():
        group = pos + neg
        if len(group) == 1:                  # R38: one scaling, or d + 1 free when unseen
            unseen = all(V[o, group[0]] == 0 for o in range(m))
            counts["unseen" if unseen else "scalings"] += 1
            kernel += d + 1 if unseen else 1
            continue                         # several on one hyperplane (split neurons):
        r = _rank([[V[o, i] for i in group] for o in range(m)], len(group))   # m + d·r (R39)
        free = len(group) * (d + 1 + m) - (m + d * r)
        counts["split"] += len(group)
        counts["split_free"] += free
        kernel += free
        if pos and neg:                      # relu(z) − relu(−z) = z: an affine part that joins
            counts["opposite"] += len(group)     # the linear block's (R39)
            normals.append(list(key[:d]))
            meets += column_meet(V, pos, neg, m)
    for name in ("split", "split_free", "opposite"):
        if not counts[name]:
            del counts[name]
    if active or normals:
        got = linear_block_image(W, V, active, d, m, normals, meets)
        if isinstance(got, str):
            return got
        image, r_w, r_v = got
        counts.update(active=len(active), rank_W=r_w, rank_V=r_v)
        kernel += len(active) * (d + 1 + m) - image
    return kernel, counts


def column_meet(V, pos: list, neg: list, m: int) -> list:
    """A spanning set (vectors of R^m) of col(V[:, pos]) ∩ col(V[:, neg]): V_pos x for each
    (x, y) of a basis of the kernel of [V_pos | −V_neg]."""
    M = QMatrix.from_rows([[V[o, i] for i in pos] + [-V[o, j] for j in neg] for o in range(m)],
                          ncols=len(pos) + len(neg))
    out = []
    for z in M.nullspace().to_rows():
        v = [sum((V[o, i] * z[a] for a, i in enumerate(pos)), Q(0)) for o in range(m)]
        if any(v):
            out.append(v)
    return out


LINEAR_BLOCK_ENTRIES = 10 ** 7
"""The linear block's two matrices (k x d and m x k) are ranked exactly only up to this many
entries (the rank mod p first: exact when full; else FLINT's exact rank, one call)."""


def _rank(rows: list, ncols: int) -> int:
    """The exact rank over Q of *rows*: the rank mod p of the numerators (a lower bound, exact
    when it is full), else the exact rank."""
    if not rows or not ncols:
        return 0
    A = QMatrix.from_rows(rows, ncols=ncols)
    low = rank_lower_bound(A)
    return low if low == min(len(rows), ncols) else A.rank()


def linear_block_image(W, V, active: list, d: int, m: int, normals=(), meets=()) -> tuple[int, int, int] | str:
    """``(dimension, u, c)`` of the affine functions' first-order changes that the network's
    affine part can make (three-layer-fibers R39): the linear block x ↦ V_A W_A x of the neurons
    *active* on the whole domain, δV_A W_A + V_A δW_A, plus, for each hyperplane ℓ that switching
    neurons share with both orientations, R^m ⊗ ℓ + (col V_pos ∩ col V_neg) ⊗ R^d (*normals*: the
    ℓ's linear parts; *meets*: vectors spanning the intersections).  The sum of R^m ⊗ U and
    C ⊗ R^d has dimension m·u + d·c − c·u, u = dim U (W_A's rows and the normals), c = dim C
    (V_A's columns and the meets); or why it is not computed.

    >>> W = QMatrix.from_rows([[1, 0], [2, 0]]); V = QMatrix.from_rows([[1, 1]])
    >>> linear_block_image(W, V, [0, 1], 2, 1)       # u = 1, c = 1: 1 + 2 - 1
    (2, 1, 1)
    """
    k = len(active)
    if (k + len(normals)) * d + (k + len(meets)) * m > LINEAR_BLOCK_ENTRIES:
        return f"the linear block of {k} always-active neurons is too large to rank here"
    r_w = _rank([[W[i, c] for c in range(d)] for i in active] + [list(v) for v in normals], d)
    r_v = _rank([[V[o, i] for o in range(m)] for i in active] + [list(v) for v in meets], m)
    return m * r_w + d * r_v - r_v * r_w, r_w, r_v


def one_layer_hypotheses(net: Network, dom) -> str:
    """"" when R38/R39 decide *net* on *dom* (:func:`one_layer_kernel`), else why not.

    >>> net = Network.from_rows([[[1, 0], [0, 0]], [[1, 1]]], [[0, 0], [0]])
    >>> one_layer_hypotheses(net, None)
    'neuron 1 has a zero row and bias 0 (a kink at every input)'
    """
    got = one_layer_kernel(net, dom)
    return got if isinstance(got, str) else ""


def one_layer_value(net: Network, dom) -> FunctionalDimension | None:
    """The exact functional dimension N − (kernel of :func:`one_layer_kernel`) of *net* on *dom*
    when R38/R39 decide it, else None.  With every neuron switching and seen the kernel is the
    n1 scalings, moves that keep the function: the fiber dimension is n1 too; with dead, unseen
    or active neurons the fiber's lower end is left to :func:`~semialgebraic.dimension.
    directions.fiber_lower` (a dead neuron's row is not free in the fiber on R^d).

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    >>> fd = one_layer_value(net, None)
    >>> fd.value, fd.n_parameters, fd.fiber_dimension.value
    (10, 13, 3)
    >>> one_layer_value(net, (Q(2), Q(3))).value      # all active: f is affine there
    3
    """
    got = one_layer_kernel(net, dom)
    if isinstance(got, str):
        return None
    kernel, counts = got
    N, d, m = net.n_parameters, net.n_inputs, net.n_outputs
    deficits = []
    if counts["scalings"]:
        deficits.append(f"{counts['scalings']} positive scalings (S2), one per switching neuron")
    if counts["unseen"]:
        deficits.append(f"{counts['unseen']} switching neurons with a zero outgoing column: their "
                        f"{d + 1} incoming parameters each free")
    if counts["dead"]:
        deficits.append(f"{counts['dead']} neurons never active on the domain: their {d + 1 + m} "
                        "parameters each free")
    if counts.get("split"):
        deficits.append(f"{counts['split']} neurons switch on hyperplanes they share with multiples "
                        f"of their rows (split neurons, S3): {counts['split_free']} directions free")
    k, opposite = counts["active"], counts.get("opposite", 0)
    if k or opposite:
        u, c = counts["rank_W"], counts["rank_V"]
        image = m * u + d * c - c * u
        what = " and ".join(t for t in (f"{k} neurons active on the whole domain" if k else "",
                                        f"{opposite} switching on hyperplanes shared with the "
                                        "opposite orientation (relu(z) - relu(-z) = z)" if opposite
                                        else "") if t)
        deficits.append(f"{what} form an affine part (rank {u} in the inputs, {c} in the outputs): "
                        f"the active ones' {k * (d + 1 + m)} parameters move the function in "
                        f"{image} dimensions there, {k * (d + 1 + m) - image} free "
                        "(GL moves and bias trades, S4)")
    plain = counts["unseen"] == counts["dead"] == k == 0 and not counts.get("split")
    why = ("one hidden layer, each neuron dead on the domain or switching inside it on a "
           "hyperplane of its own: the kernel is the scalings of the switching neurons seen by the "
           "output, the incoming parameters of those it does not see, and every parameter of the "
           "dead ones (three-layer-fibers R38)")
    if k or counts.get("split"):
        why = ("one hidden layer, each neuron dead on the domain, active on all of it, or "
               "switching inside it: the kernel is the scalings of the switching neurons seen by "
               "the output, the incoming parameters of those it does not see, every parameter of "
               "the dead ones, the moves of neurons split along one hyperplane that keep their "
               "sum, and the moves of the affine part (the active neurons' linear block and the "
               "hyperplanes shared with both orientations) that keep it (three-layer-fibers R38, "
               "R39)")
    return FunctionalDimension(
        N, N - kernel, N - kernel, why,
        deficits=tuple(deficits), details={"theorem": "R38", "kernel": dict(counts)},
        fiber_floor=kernel if plain else None, fiber_exact_by="moves" if plain else "")
