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
from algebra.linalg.gfp import exact_rank
from algebra.network import Network
from algebra.rationals import Q

from algebra.symmetries.neurons import probe_vector

from ..budget import checkpoint
from .result import FunctionalDimension

__all__ = ["one_layer_kernel", "one_layer_hypotheses", "one_layer_value", "classify_on_cut"]


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


def one_layer_kernel(net: Network, dom, kinds: dict | None = None) -> tuple[int, dict] | str:
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
    orientations).  A zero row with bias 0: not decided here.  *kinds* (``{i: "dead" |
    "active" | "switching"}`` for every neuron with a non-zero row, :func:`classify_on_cut`)
    replaces the box's classification: the domain is then the box (*dom*) cut by half-spaces.

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
    counts = {"scalings": 0, "unseen": 0, "dead": 0, "active": 0}
    active = []
    # switching neurons grouped by hyperplane: first by one probe key each, (w·r + b r0) /
    # lead(w), then exactly inside a bucket of several (4000-4000-1: the exact key of every
    # row, 16 M rationals hashed, took 50 s)
    probe, p0 = probe_vector(d)
    proj = W.apply(probe) if W.nrows and d else [Q(0)] * W.nrows
    whole = all(a is None for a in lo) and all(z is None for z in hi)     # R^d: no side
    buckets: dict = {}
    for i in range(W.nrows):
        if i % 64 == 0:
            checkpoint()                     # (an active budget: the caller's)
        k = next((k for k in range(d) if W[i, k] != 0), None)
        if k is None:
            if b[i] < 0:
                counts["dead"] += 1
                continue
            if b[i] > 0:                     # a constant neuron: part of the linear block
                active.append(i)
                continue
            return f"neuron {i} has a zero row and bias 0 (a kink at every input)"
        if kinds is not None:
            kind = kinds[i]
        elif whole:                          # a non-zero row switches on R^d
            kind = "switching"
        else:
            mn, mx = _sides(lo, hi, W.row_at(i), b[i])
            kind = ("dead" if mx is not None and mx <= 0 else
                    "active" if mn is not None and mn >= 0 else "switching")
        if kind == "dead":
            counts["dead"] += 1
            continue
        if kind == "active":                 # active on the open domain: the linear block (R39)
            active.append(i)
            continue
        buckets.setdefault((proj[i] + b[i] * p0) / W[i, k], []).append((i, k))
    keys: dict = {}
    for members in buckets.values():
        for t, (i, k) in enumerate(members):
            if t % 64 == 0:
                checkpoint()
            w = W.row_at(i) if len(members) > 1 else None
            key = (tuple(v / w[k] for v in w) + (b[i] / w[k],) if w is not None   # the
                   else ("single", i))       # hyperplane, either sign, by orientation
            keys.setdefault(key, ([], []))[0 if W[i, k] > 0 else 1].append(i)
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


def classify_on_cut(net: Network, lo, hi, halfspaces, center, deadline: float | None = None
                    ) -> tuple[dict, dict] | None:
    """``(kinds, evidence)``: each hidden neuron with a non-zero row of the one-hidden-layer *net*
    classified on the interior of P = ∏ [lo_k, hi_k] ∩ {a·x <= b} (*halfspaces* ``[(a, b)]``),
    for :func:`one_layer_kernel`'s *kinds*, and the evidence for those the box alone does not
    decide (``{i: {"dead": y} | {"active": y} | {"switching": [x_plus, x_minus]}}``); None when
    *deadline* (``time.monotonic()``) passes first.

    *center*: ``(c, r)``, a point of P with the cube of radius r > 0 around it inside P (the
    inscribed cube, :func:`~semialgebraic.dimension.sandwich.inscribed_cube`).  A neuron is
    dead (active) on the box, hence on P, when the maximum (minimum) of ℓ_i over the box is
    <= 0 (>= 0).  Otherwise, in this order, each step exact (floats only choose):

    1. points strictly inside P (c ± (r/2) e_k, and c + t (u − c) for random vertices u of the
       box, t half the step to P's boundary): the two where the float pass finds ℓ_i largest and
       smallest, both signs checked exactly, make it switching;
    2. HiGHS's optimum of max ±ℓ_i over P: its point pulled towards c (x* + t (c − x*),
       :meth:`_Cut.pulled`: strictly inside P with ℓ_i of that sign) shows the sign; its
       half-space duals, made >= 0, prove max ±ℓ_i <= 0 when b_i + y·β + Σ_k max(r_k lo_k,
       r_k hi_k) <= 0, r = w_i − Σ_j y_j a_j (a bound of ℓ_i on P for any y >= 0, which the
       checker recomputes);
    3. the exact simplex (:func:`~semialgebraic.lp.simplex.simplex_free_le`, the box's sides
       as rows): its duals, or its optimum pulled towards c.

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 0, Q(-3, 2)], [0]])
    >>> kinds, ev = classify_on_cut(net, [Q(-1)] * 2, [Q(1)] * 2, [([1, 1], 1)], ([Q(-1, 3)] * 2, Q(1, 3)))
    >>> kinds, sorted(ev[2])                       # x + y <= 1 < 3/2: neuron 2 dead on the cut
    ({0: 'switching', 1: 'switching', 2: 'dead'}, ['dead'])
    """
    import time
    d = net.n_inputs
    W, b = net.layer(0)
    cuts = [([Q(v) for v in a], Q(bb)) for a, bb in halfspaces]
    kinds, evidence, open_ = {}, {}, []
    for i in range(W.nrows):
        w = W.row_at(i)
        if not any(w):
            continue
        mn, mx = _sides(lo, hi, w, b[i])
        if mx <= 0 or mn >= 0:
            kinds[i] = "dead" if mx <= 0 else "active"
        else:
            open_.append(i)
    if not open_:
        return kinds, evidence
    cut = _Cut(lo, hi, cuts, center)
    left = []
    for i, (plus, minus) in zip(open_, cut.screened(W, b, open_)):
        if plus is not None and minus is not None:
            kinds[i], evidence[i] = "switching", {"switching": [plus, minus]}
        else:
            left.append((i, plus, minus))
    for i, plus, minus in left:
        w, bi = W.row_at(i), b[i]
        for sgn in (1, -1):                  # max of sgn · ℓ_i over P where no point shows sgn
            if (plus if sgn == 1 else minus) is not None:
                continue
            if deadline is not None and time.monotonic() > deadline:
                return None
            got = cut.side(w, bi, sgn)
            if got is None:                  # (P bounded with interior: never; refuse)
                return None
            if got[0] == "bound":
                kinds[i] = "dead" if sgn == 1 else "active"
                evidence[i] = {kinds[i]: got[1]}
                break
            if sgn == 1:
                plus = got[1]
            else:
                minus = got[1]
        if i not in kinds:
            kinds[i], evidence[i] = "switching", {"switching": [plus, minus]}
    return kinds, evidence


SCREEN_POINTS = 4
"""Random points strictly inside the cut per input dimension (and one more) that
:func:`classify_on_cut` screens every neuron at (floats choose, the two kept are checked
exactly)."""


class _Cut:
    """P = box ∩ half-spaces, with a point c and a cube of radius r > 0 around it inside P: the
    exact tests and the searches of :func:`classify_on_cut`."""

    def __init__(self, lo, hi, cuts, center):
        self.lo, self.hi, self.cuts = lo, hi, cuts
        self.c, self.r = list(center[0]), center[1]
        self.d = len(lo)

    def inside(self, x) -> bool:
        """x strictly inside every side and half-space."""
        return (all(a < v < z for v, a, z in zip(x, self.lo, self.hi))
                and all(sum((ak * v for ak, v in zip(a, x)), Q(0)) < bb for a, bb in self.cuts))

    def bound(self, w, bi, y):
        """b_i + y·β + Σ_k max(r_k lo_k, r_k hi_k), r = w − Σ_j y_j a_j: max of w·x + b_i on P
        is at most this for any y >= 0."""
        r, top = list(w), bi
        for yj, (a, bb) in zip(y, self.cuts):
            top += yj * bb
            r = [rk - yj * ak for rk, ak in zip(r, a)]
        return top + sum((max(rk * a, rk * z) for rk, a, z in zip(r, self.lo, self.hi)), Q(0))

    def points(self) -> list:
        """Exact points strictly inside P: c ± (r/2) e_k, and c + t (u − c) for random dyadic
        vertices u of the box with t half of min(1, the step to the half-spaces)."""
        import random
        rng = random.Random(0)
        c, out = self.c, [list(self.c)]
        for k in range(self.d):
            for sgn in (1, -1):
                x = list(c)
                x[k] += sgn * self.r / 2
                out.append(x)
        for _ in range(SCREEN_POINTS * (self.d + 1)):
            u = [a if rng.random() < 0.5 else z for a, z in zip(self.lo, self.hi)]
            t = Q(1)
            for a, bb in self.cuts:
                du = sum((ak * (uk - ck) for ak, uk, ck in zip(a, u, c)), Q(0))
                if du > 0:
                    t = min(t, (bb - sum((ak * ck for ak, ck in zip(a, c)), Q(0))) / du)
            out.append([ck + t / 2 * (uk - ck) for ck, uk in zip(c, u)])
        return out

    def screened(self, W, b, rows) -> list:
        """Per neuron of *rows*: (a point strictly inside P with ℓ_i > 0 or None, one with
        ℓ_i < 0 or None), the two candidates the float pass ranks first, checked exactly."""
        import numpy as np
        X = self.points()
        Xf = np.array([[float(v) for v in x] for x in X])
        Wf = np.array([[float(W[i, k]) for k in range(self.d)] for i in rows])
        Z = Xf @ Wf.T + np.array([float(b[i]) for i in rows])
        out = []
        for col, i in enumerate(rows):
            w = W.row_at(i)
            val = lambda x: sum((wk * xk for wk, xk in zip(w, x)), b[i])
            hi_x, lo_x = X[int(np.argmax(Z[:, col]))], X[int(np.argmin(Z[:, col]))]
            out.append((hi_x if val(hi_x) > 0 else None, lo_x if val(lo_x) < 0 else None))
        return out

    def pulled(self, x, w, bi, sgn):
        """x + t (c − x) strictly inside P with sgn · ℓ_i > 0, or None: with sgn · ℓ_i(x) > 0,
        the sign holds for t < t_s (t_s = 1 when c has it too, else where ℓ_i turns 0), and a
        point x of P is pulled inside by any t > 0 (one slightly outside, from a float optimum,
        by t large enough): t = t_s (1 − 2^-k), then t_s 2^-k."""
        val = lambda y: sum((wk * yk for wk, yk in zip(w, y)), bi)
        zx, zc = val(x), val(self.c)
        if not sgn * zx > 0:
            return None
        ts = Q(1) if sgn * zc > 0 else zx / (zx - zc)
        for t in [ts * (1 - Q(1, 2 ** k)) for k in range(1, 12)] + [ts / 2 ** k for k in range(2, 40)]:
            y = [xk + t * (ck - xk) for xk, ck in zip(x, self.c)]
            if self.inside(y) and sgn * val(y) > 0:
                return y
        return None

    def side(self, w, bi, sgn):
        """``("bound", y)`` (y >= 0 proves sgn · ℓ_i <= 0 on P), ``("point", x)`` (x strictly inside
        P with sgn · ℓ_i(x) > 0), or None: HiGHS's optimum and duals first, the exact simplex
        when they prove nothing."""
        got = self._highs(w, bi, sgn)
        return got if got is not None else self._exact(w, bi, sgn)

    def _rows(self):
        rows = [list(a) for a, _ in self.cuts]
        rhs = [bb for _, bb in self.cuts]
        for k in range(self.d):
            e = [Q(0)] * self.d
            e[k] = Q(1)
            rows += [e, [-v for v in e]]
            rhs += [self.hi[k], -self.lo[k]]
        return rows, rhs

    def _highs(self, w, bi, sgn):
        import numpy as np
        from ..lp.floatlp import _highs_solve
        rows, rhs = self._rows()
        try:
            status, x, dual, _ = _highs_solve(np.array([[float(v) for v in r] for r in rows]),
                                              np.array([float(v) for v in rhs]), 0, None,
                                              np.array([sgn * float(v) for v in w]), None)
        except Exception:                    # HiGHS missing or failing: the exact simplex
            return None
        if status != "optimal":
            return None
        top = sgn * (float(np.dot([float(v) for v in w], x)) + float(bi))
        h = len(self.cuts)
        if top > 0:
            y = self.pulled([Q(*float(v).as_integer_ratio()) for v in x], w, bi, sgn)
            if y is not None:
                return "point", y
        sw, sb = [sgn * v for v in w], sgn * bi
        for flip in (1, -1):                 # HiGHS's sign convention for the row duals
            y = [max(Q(0), Q(*float(flip * v).as_integer_ratio())) for v in dual[:h]]
            if self.bound(sw, sb, y) <= 0:
                return "bound", y
        return None

    def _exact(self, w, bi, sgn):
        from ..lp.simplex import simplex_free_le
        rows, rhs = self._rows()
        status, xs, y = simplex_free_le(rows, rhs, [sgn * v for v in w])
        if status != "optimal":
            return None
        top = sgn * sum((wk * xk for wk, xk in zip(w, xs)), bi)
        if top <= 0:
            return "bound", list(y[:len(self.cuts)])
        y = self.pulled(xs, w, bi, sgn)
        return None if y is None else ("point", y)


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
entries (:func:`~algebra.linalg.gfp.exact_rank`: the rank mod p first, exact when full)."""


def _rank(rows: list, ncols: int) -> int:
    """The exact rank over Q of *rows* (:func:`~algebra.linalg.gfp.exact_rank`: the rank mod p
    of the numerators, exact when it is full; else a maximal minor found mod p with its Schur
    complement checked exactly, or FLINT's exact rank)."""
    if not rows or not ncols:
        return 0
    return exact_rank(QMatrix.from_rows(rows, ncols=ncols))


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


def one_layer_value(net: Network, dom, kinds: dict | None = None) -> FunctionalDimension | None:
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
    got = one_layer_kernel(net, dom, kinds)
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
