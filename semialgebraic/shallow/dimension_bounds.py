r"""One hidden layer: exact lower and upper bounds of the local fiber dimension at θ.

* :func:`symmetry_tangent_rank` — the rank of the tangent vectors of explicit continuous
  symmetries at θ (a lower bound: their flows stay in the fiber);
* :func:`jacobian_rank_bound` — ``N − rank J`` with J the exact Jacobian of θ ↦ (f_θ(x))_x over
  inputs sampled on both sides of every hyperplane of θ (an upper bound; three-layer-fibers R22,
  P10).

:func:`semialgebraic.shallow.fiber_shallow` reports the dimension as exact when the two meet.
"""

from __future__ import annotations

import random

from algebra.linalg import QMatrix
from algebra.linalg.gfp import exact_rank
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.neurons import hidden_neurons, is_dead_row, is_linear_row

from ..budget import checkpoint
from .canonical import hyperplane_key, is_switching_on_orthant
from .equivalence import point_on_hyperplane

__all__ = ["symmetry_tangent_rank", "jacobian_rank_bound", "block_rank"]


def symmetry_tangent_rank(net: Network, *, orthant: bool = False) -> int:
    """Exact rank of tangent vectors of explicit continuous symmetries at θ (a lower bound for
    the local fiber dimension): S2 scalings; free rows of zero-output neurons; constant neurons
    (``b`` free when ``b < 0``, traded with the output bias when ``b > 0``; outputs traded with the
    output bias); output transfers between same-orientation neurons on one hyperplane; on the
    orthant, dead neurons (row and outputs free) and the tangent space of the linear block
    ``{V_L W̃_L, c}`` when its weights are strictly positive (biases ≥ 0) and ``V_L``, ``W_L``
    have maximal rank."""
    d, n, m = net.widths
    N = net.n_parameters
    neurons, c = hidden_neurons(net, 0)
    iW = lambda i, j: i * d + j                          # noqa: E731
    ib = lambda i: n * d + i                             # noqa: E731
    iV = lambda o, i: n * (d + 1) + o * n + i            # noqa: E731
    ic = lambda o: n * (d + 1) + m * n + o               # noqa: E731
    vecs: list[dict] = []              # sparse: {parameter index: entry}

    def unit(*pairs):
        v: dict = {}
        for k, x in pairs:
            v[k] = v.get(k, Q(0)) + x
        vecs.append(v)

    groups: dict = {}
    for i, (w, b, v) in enumerate(neurons):
        unit(*[(iW(i, j), w[j]) for j in range(d)], (ib(i), b), *[(iV(o, i), -v[o]) for o in range(m)])
        zero_out = all(x == 0 for x in v)
        if zero_out:
            for j in range(d):
                unit((iW(i, j), Q(1)))
            unit((ib(i), Q(1)))
            continue
        if all(x == 0 for x in w):
            if b < 0 or (orthant and b <= 0):
                unit((ib(i), Q(1)))
            elif b > 0:
                unit((ib(i), Q(1)), *[(ic(o), -v[o]) for o in range(m)])
            for o in range(m):
                unit((iV(o, i), Q(1)), (ic(o), -b if b > 0 else Q(0)))
            continue
        if orthant and not is_switching_on_orthant(w, b):
            if is_dead_row(w, b):
                for j in range(d):
                    unit((iW(i, j), Q(1)))
                unit((ib(i), Q(1)))
                for o in range(m):
                    unit((iV(o, i), Q(1)))
            continue
        u, beta, lam = hyperplane_key(w, b)
        groups.setdefault((u, beta, lam > 0), []).append((i, abs(lam)))
    for members in groups.values():
        i0, s0 = members[0]
        for i, s in members[1:]:
            for o in range(m):
                unit((iV(o, i0), 1 / s0), (iV(o, i), -1 / s))
    if orthant:
        vecs += [{k: x for k, x in enumerate(v) if x != 0}
                 for v in _linear_block_tangents(net, neurons, iW, ib, iV, ic)]
    return block_rank(vecs)


def block_rank(vecs: list[dict]) -> int:
    """Exact rank of the sparse vectors *vecs* ({index: entry}) as the sum of the ranks of the
    blocks that their supports split them into (rows sharing no column with the other blocks'
    rows: after permuting rows and columns, a block-diagonal matrix).  One FLINT rank of the
    whole n x N matrix took seconds for 64-256-64 (n = 256 rescalings, N = 33088) and no budget
    can stop a FLINT call; each block here is one neuron's few vectors, and
    :func:`~semialgebraic.budget.checkpoint` runs between the blocks.

    >>> block_rank([{0: Q(1), 1: Q(2)}, {1: Q(4), 0: Q(2)}, {5: Q(1)}, {}])
    2
    """
    parent: dict = {}

    def find(k):
        while parent.setdefault(k, k) != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k
    for v in vecs:
        ks = [k for k, x in v.items() if x != 0]
        for k in ks[1:]:
            a, b = find(ks[0]), find(k)
            if a != b:
                parent[a] = b
    blocks: dict = {}
    for v in vecs:
        ks = [k for k, x in v.items() if x != 0]
        if ks:
            blocks.setdefault(find(ks[0]), []).append(v)
    total = 0
    for rows in blocks.values():
        checkpoint()
        cols = sorted({k for v in rows for k, x in v.items() if x != 0})
        where = {k: j for j, k in enumerate(cols)}
        dense = [[Q(0)] * len(cols) for _ in rows]
        for r, v in zip(dense, rows):
            for k, x in v.items():
                if x != 0:
                    r[where[k]] = x
        total += QMatrix.from_rows(dense).rank()
    return total


def jacobian_rank_bound(net: Network, *, orthant: bool = False, max_parameters: int = 400,
                        seed: int = 0) -> int | None:
    """``N − rank J``: an upper bound of the local fiber dimension at θ (module docstring), or
    None when N exceeds *max_parameters*."""
    d, n, m = net.widths
    N = net.n_parameters
    if N > max_parameters:
        return None
    neurons, _ = hidden_neurons(net, 0)
    rng = random.Random(seed)
    hyper = [(w, b) for w, b, _ in neurons if any(x != 0 for x in w)]
    walls = list(hyper)
    if orthant:
        walls += [(tuple(Q(1) if k == j else Q(0) for k in range(d)), Q(0)) for j in range(d)]
    pts = []
    for w, b in hyper:
        x0 = _generic_point_on(w, b, walls, orthant, rng)
        if x0 is None:
            continue
        j = next(k for k, x in enumerate(w) if x != 0)
        for sgn in (1, -1):
            p = list(x0)
            eps = _margin(p, walls, exclude=(w, b)) / (abs(w[j]) + 1)
            p[j] += sgn * eps / 2
            pts += _simplex_around(p, walls)
    for _ in range(2 * (d + 1)):
        p = [Q(rng.randint(1 if orthant else -50, 50), rng.randint(1, 7)) for _ in range(d)]
        if all(_h(w, b, p) != 0 for w, b in walls):
            pts += _simplex_around(p, walls)
    rows = []
    for x in pts:
        for o in range(m):
            row = [Q(0)] * N
            for i, (w, b, v) in enumerate(neurons):
                h = _h(w, b, x)
                if h > 0:
                    for j in range(d):
                        row[i * d + j] = v[o] * x[j]
                    row[n * d + i] = v[o]
                    row[n * (d + 1) + o * n + i] = h
            row[n * (d + 1) + m * n + o] = Q(1)
            rows.append(row)
    return N - exact_rank(QMatrix.from_rows(rows), check=checkpoint)   # (blocks of rows between
    # budget checks: one FLINT rank of 1 000-digit rows ran 95 s past `fiber --timeout 3`, s54)



# -- private helpers ---------------------------------------------------------------------------

def _h(w, b, x):
    return sum((p * q for p, q in zip(w, x)), Q(0)) + b


def _margin(p, walls, exclude=None):
    """Half the smallest |h(p)| / (|w|_1 + 1) over walls (a ball that crosses none)."""
    vals = [abs(_h(w, b, p)) / (sum(abs(x) for x in w) + 1) for w, b in walls
            if (w, b) != exclude and _h(w, b, p) != 0]
    return min(vals + [Q(1)]) / 2


def _simplex_around(p, walls):
    """p and p + δ e_j (j < d): d + 1 affinely independent points in p's open region."""
    delta = _margin(p, walls)
    out = [tuple(p)]
    for j in range(len(p)):
        q = list(p)
        q[j] += delta
        out.append(tuple(q))
    return [x for x in out if all(_h(w, b, x) != 0 for w, b in walls)]


def _generic_point_on(w, b, walls, orthant, rng):
    """A point on ``w·x + b = 0`` (in the open orthant if asked) off every other wall."""
    if orthant and not is_switching_on_orthant(w, b):
        return None
    u, beta, _ = hyperplane_key(w, b)
    others = []
    for uw, cw in walls:
        key = hyperplane_key(uw, cw)
        if key is not None and key[:2] != (u, beta):
            others.append(key[:2])
    return list(point_on_hyperplane(u, beta, others, orthant, seed=rng.randint(0, 10 ** 6)))


def _linear_block_tangents(net, neurons, iW, ib, iV, ic):
    d, n, m = net.widths
    L = [i for i, (w, b, v) in enumerate(neurons)
         if any(x != 0 for x in v) and not is_switching_on_orthant(w, b) and is_linear_row(w, b)
         and not is_dead_row(w, b)]
    if not L:
        return []
    # weights strictly positive; a zero bias is fine: the bias trade (b_p += t, c -= t V_p) moves
    # into the open cone, so the solution manifold meets the interior arbitrarily close to θ
    if not all(all(x > 0 for x in neurons[i][0]) for i in L):
        return []
    VL = QMatrix.from_rows([[neurons[i][2][o] for i in L] for o in range(m)])
    WL = QMatrix.from_rows([list(neurons[i][0]) for i in L])
    nL = len(L)
    if VL.rank() != min(m, nL) or WL.rank() != min(nL, d):
        return []
    # variables: V_L (m × nL), W̃_L (nL × (d+1)), c (m); constraint G = (V_L W_L, V_L b_L + c)
    var = [("V", o, a) for o in range(m) for a in range(nL)] + \
          [("W", a, j) for a in range(nL) for j in range(d + 1)] + [("c", o, 0) for o in range(m)]
    rows = []
    for o in range(m):
        for k in range(d + 1):
            row = []
            for kind, p, q in var:
                if kind == "V":
                    i = L[q]
                    val = (neurons[i][0][k] if k < d else neurons[i][1]) if p == o else Q(0)
                elif kind == "W":
                    val = neurons[L[p]][2][o] if q == k else Q(0)
                else:
                    val = Q(1) if (k == d and p == o) else Q(0)
                row.append(val)
            rows.append(row)
    K = QMatrix.from_rows(rows).nullspace()
    out = []
    N = net.n_parameters
    for r in K.to_rows():
        v = [Q(0)] * N
        for (kind, p, q), x in zip(var, r):
            if kind == "V":
                v[iV(p, L[q])] += x
            elif kind == "W":
                v[iW(L[p], q) if q < d else ib(L[p])] += x
            else:
                v[ic(p)] += x
        out.append(v)
    return out


