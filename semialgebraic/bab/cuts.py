r"""Valid inequalities of single ReLU neurons (cuts) that tighten the triangle LP of a node.

The triangle relaxation of :mod:`.relaxation` relaxes each unstable neuron ``y = relu(w·x +
b)`` on its own pre-activation interval; its LP optimum sits at the triangles' tops.  The
convex hull of the graph of one neuron over the *box* of its inputs ``x`` (the input box for
layer 0, the post-activation box ``[max(lo, 0), max(hi, 0)]`` of the layer below otherwise) is
much smaller: Anderson, Huchette, Ma, Tjandraatmadja and Vielma, "Strong mixed-integer
programming formulations for trained neural networks", Math. Prog. 183 (2020), their main result for one neuron,
describe it by the inequalities

    y <= Σ_{i in I} w_i (x_i − L̆_i) + ℓ(I) / (Ŭ_h − L̆_h) · (x_h − L̆_h),

``L̆_i``/``Ŭ_i`` the ends of ``x_i``'s interval where ``w_i x_i`` is smallest/largest,
``ℓ(I) = Σ_{i in I} w_i L̆_i + Σ_{i ∉ I} w_i Ŭ_i + b >= 0`` and ``ℓ(I ∪ {h}) < 0``; the most
violated one at a point is found in ``O(n log n)`` (sort the coordinates by how far ``x_i`` is
along its interval, fill the capacity ``ℓ(∅)`` greedily: ``h`` is the critical item).  Here
that separation runs in floats at HiGHS's LP point (:meth:`CutSeparator.separate`) and only
*proposes* ``(α, β)``; the right-hand side ``δ`` of the row ``α·x + β·y <= δ`` is computed
exactly by :func:`algebra.kernel.knapsack.relu_cut_rhs` (two fractional knapsacks over the
box), so every cut is valid by construction, and the checker re-proves it the same way
(:mod:`semialgebraic.verify.bab_cuts`; three-layer-fibers R30, R31).  That exact ``δ`` is made
on the cut's first exact use (:attr:`Cut.delta`: a non-zero ``ρ`` in an exact bound, or a
certificate); HiGHS's row meanwhile has a float guess of it (:data:`LAZY_DELTA`; most cuts a node
separates for its children are never used).  A child node keeps its
parent's cuts that the parent's LP used (``ρ > 0``), their ``δ`` recomputed on the child's
(smaller) box; the rows enter the Neumaier–Shcherbina bound with multipliers ``ρ >= 0``
(:func:`cut_terms`).  On a difference network ``a − b`` every neuron is a neuron of ``a`` or of
``b`` (its row has zeros on the other network's half), so these cuts are per network.

*Pair cuts* (a difference network of two networks of one shape, ``paired``): the convex hull of
the graph ``{(x, relu(z_a(x)), relu(z_b(x)))}`` of a neuron of ``a`` and its copy in ``b`` over
their common input box is much smaller than what the cuts of each neuron and the pair lines of
:mod:`.differential` describe (digits 64-32-10, root, objective −(a_4 − b_4), floats: that hull for
every pair gives 0.0548 where the triangle LP with pair lines gives 0.0894 and the single-neuron
cuts 0.0774; for the 8 pairs the LP point violates most, 0.0619 in 0.45 CPU s; measured
2026-12-02 by ``benchmarks/bench_bab.py --root``).  Its facets are many (separating them one at
a time from the LP point gained nothing in 448 cuts), so (with :data:`PAIR_CUTS`, off by default) at the root the LP is solved once with
Balas's extended formulation of that hull for the :data:`PAIR_HULL_PAIRS` pairs of largest
violation (:func:`add_input_hull`: one scaled copy of the inputs per sign region), and the row
of each pair that this LP's duals aggregate, ``α·x + β_a·h_a + β_b·h_b <= δ`` (both signs),
becomes a cut: ``α``, ``β`` rounded to a grid, ``δ`` exact by
:func:`algebra.kernel.knapsack.pair_cut_rhs` with a multiplier ``μ >= 0`` per sign region (that
LP's dual of the region's row of the second neuron, :data:`PAIR_DUAL_MU`; else the dual of a
float LP of that region), which the cut carries so that the checker re-proves it the same way
(three-layer-fibers R32); of the two signs only the row tight at that LP's point is kept.  That
LP is solved by HiGHS's interior point method (:data:`PAIR_HIGHS`: 3.7× faster than the dual
simplex on it).  The children inherit the cuts as any cut; with :data:`PAIR_DEPTH` > 0 the
nodes of at most that many splits separate pair cuts too.
"""

from __future__ import annotations

import math
import time

import numpy as np

from algebra.kernel.knapsack import PAIR_REGIONS, pair_cut_rhs, pair_region_max, relu_cut_rhs
from algebra.rationals import Q

from ..budget import checkpoint
from .relaxation import build_lp, float_duals

__all__ = ["Cut", "CutSeparator", "cut_terms", "cut_json", "ROOT_ROUNDS", "NODE_ROUNDS", "PER_ROUND", "NODE_PER_ROUND"]

ROOT_ROUNDS = 4       # separation rounds at the root (each: separate, re-solve)
NODE_ROUNDS = 0       # at other nodes (after the inherited cuts): none, FORWARD instead
PER_ROUND = 32        # at most this many new cuts per round at the root, the most violated first
NODE_PER_ROUND = 8    # at other nodes
FORWARD = True        # a node (not the root) separates at its final LP point for its children
# cuts below the root only for an objective whose root rounds lowered its LP value by this
# share: measured 2026-12-02 (root, 4 rounds, every objective): digits 64-32-10 13–16 % (cuts
# pay: 1.83x -> 1.77x side by side at 9 CPU s), 64-32-16-10 3–4 % (they did not: 4.61x ->
# 5.07x, half the nodes)
PAY_GAIN = 0.08
# a single-neuron cut's exact δ computed only when an exact bound gives it ρ != 0 or a
# certificate holds it (HiGHS gets a float guess): of the ~14 cuts separated per node on digits
# 64-32-10 most are never used (30 s, load 4: 9 936 -> 2 155 exact right-hand sides, 2.0 -> 0.5
# of 26 CPU s; nodes per CPU s within run-to-run noise); False: every δ exact when made
LAZY_DELTA = True
_MIN_VIOLATION = 1e-7   # relative to the neuron's interval width
_ALPHA_GRID = 1 << 40   # the fractional coefficient rounded to this grid (δ stays exact)
_RHO_GRID = 1 << 60     # HiGHS's cut duals rounded as the other duals (.search._DUAL_GRID)
_ZERO = Q(0)
# pair cuts on a paired difference network (module docstring): off by default, measured
# 2026-12-02 on digits 64-32-10 side by side (bench_bab.py --pair-cuts): 60 s at load 7.9 (14 CPU
# s) 2.03x against 1.747x without; 600 s, 1 round of 4 pairs at load ~10 (89.6 CPU s) 1.392x
# against 1.443x, 2 rounds of 8 at load ~7 (111 CPU s) 1.464x against 1.409x: the root bound
# falls 9–30 %, the search does not gain (fewer nodes).  Why (2026-12-03, `bench_bab.py --root
# --root-depth 5`, the node 5 splits down the search's path of −(a_4 − b_4) / +(a_2 − b_2), floats
# unless said): triangle LP 0.0670 / 0.0686, single-neuron cuts 0.0570 / 0.0600 (exact), each
# neuron's own input-space hull 0.0560 / 0.0592, the (z_a, z_b) pair hull 0.0658 / 0.0675,
# NeuroDiff's rows 0.0670 / 0.0686, the input-space pair hull 0.0389 / 0.0405; pair cuts (exact)
# 1 round of 4 pairs 0.0541 / 0.0569, 4 rounds of 16 0.0397 / 0.0407 but 17 CPU s a node (a node
# of the search costs ~0.03 CPU s): the pair hull in the inputs is the relaxation that matters,
# and separating it by the extended formulation is far too slow for the nodes.  2026-12-03
# (`bench_bab.py`, load 3–7): one cut per pair at the LP point from a small
# cut-generating LP per pair (the point's L1 distance in (h_a, h_b) to the pair's input hull,
# ~10 ms a pair) gains nothing (root of −(a_4 − b_4): 1 round × 8 pairs 0.07719, 4 × 16 0.07733,
# single-neuron cuts 0.07741): the useful row is the one the objective's optimum over the hull
# supports, which the extended formulation's duals give; that LP by interior point instead of
# the dual simplex: 4 rounds × 8 pairs 0.0559 in 1.33 CPU s (simplex 0.0555 in 4.93), μ from its
# duals (2 × 8: 1.77 -> 1.65 CPU s).  Search, 60 s side by side (nodes, CPU s): off 1.409×
# (load 6.7, 1 080, 25.7), root 1 × 8 1.385× (load 5.2, 1 332, 33.9), root 2 × 8 1.438× (load
# 6.3), 1 × 4 to depth 2 1.502× (load 6.4, 328 nodes), 2 × 8 to depth 2 1.568× (40 nodes): the
# root's pair cuts are within run-to-run noise, those below the root cost more nodes than they save;
# root 4 × 8 1.567× (load 9.6, 22.1 CPU s, 263 nodes) against off 1.437× right after (load 8.9,
# 22.9, 792); 600 s root 1 × 8 1.265× (load 7.1, 163 CPU s, 6 846 nodes; off 1.26× on 2026-12-03)
PAIR_CUTS = False
PAIR_DUAL_MU = True     # each region's μ from the extended formulation's duals (False: one LP per region)
PAIR_HIGHS = {"solver": "ipm"}   # HiGHS options of the extended formulation's LP
PAIR_DEPTH = 0          # pair cuts at nodes of at most this many splits (0: the root only)
PAIR_HULL_ROUNDS = 1    # rounds that add pair cuts (at the root, and within PAIR_DEPTH)
PAIR_HULL_PAIRS = 4     # pairs in the root's extended formulation; digits 64-32-10 root, objective
# −(a_4 − b_4), load ~6 (floats, that LP alone: 4 pairs 0.0705 in 0.13 CPU s, 8 0.0619 in 0.45, 16
# 0.0570 in 3.8, all 32 0.0548 in 16.8); certified with the single-neuron cuts (0.0774 in 0.11 CPU
# s without pair cuts): 1 round of 4 pairs 0.0706 (0.33 CPU s), 1 of 8 0.0674 (0.70), 2 of 8 0.0596
# (2.3), 4 of 8 0.0554 (6.4); a 60 s budget at load 7 buys ~13 CPU s for 20 objectives


class Cut:
    """The row ``α·h_{l−1} + β·h_{l,j} <= δ`` of neuron ``at = (l, j)`` (``h_{−1}`` is the
    input ``x``): ``index`` (the ``k`` of non-zero ``α_k``), ``values`` (those ``α_k``, exact)
    and ``fvalues`` (floats, for HiGHS), ``beta``, ``delta`` (exact, valid on the box it was
    computed for), ``key`` (its identity, kept by a child's copy: HiGHS's warm start).  A pair
    cut has ``pair = (j2, β_2, μ)``: the row has ``+ β_2·h_{l,j2}`` too (the copy of neuron
    ``j`` in ``b``) and ``δ`` is :func:`pair_cut_rhs`'s with the four multipliers ``μ``."""

    __slots__ = ("at", "index", "values", "fvalues", "beta", "_delta", "fdelta", "_row", "key", "box", "_json",
                 "pair")

    def __init__(self, at, index, values, beta, delta, key, box=None, pair=None, row=None, fdelta=None):
        self.at, self.index, self.values = at, np.asarray(index, dtype=np.int64), list(values)
        self.fvalues = np.array([float(v) for v in self.values], dtype=float)
        self.beta, self._delta, self.key = beta, delta, key
        # δ deferred (*delta* None): the neuron's exact row ``(w, b)`` on *box*, made exact on
        # first use (:attr:`delta`: only cuts of non-zero ρ in an exact bound, or written to a
        # certificate); HiGHS meanwhile gets *fdelta*, a float guess of it (floats never decide)
        self._row = row
        self.fdelta = float(delta) if fdelta is None else fdelta
        self.box = box                # the input box δ was computed on
        self._json = None
        self.pair = pair              # None, or (j2, β_2, μ per sign region) of a pair cut

    @property
    def delta(self):
        """The exact right-hand side on :attr:`box` (:func:`relu_cut_rhs`, computed once)."""
        if self._delta is None:
            w, b = self._row
            self._delta = relu_cut_rhs(self.dense(len(self.box)), self.beta, w, b, self.box)
            self._row = None
        return self._delta

    def as_json(self) -> dict:
        """``{"at", "alpha": [[k, α_k], ...], "beta", "delta"}`` (one dict per cut, made once)."""
        if self._json is None:
            self._json = {"at": [int(self.at[0]), int(self.at[1])],
                          "alpha": [[int(k), v] for k, v in zip(self.index.tolist(), self.values)],
                          "beta": self.beta, "delta": self.delta}
            if self.pair is not None:
                j2, b2, mus = self.pair
                self._json["pair"] = [int(j2), b2]
                self._json["mu"] = list(mus)
        return self._json

    def dense(self, n):
        out = [_ZERO] * n
        for k, v in zip(self.index.tolist(), self.values):
            out[k] = v
        return out


def cut_json(cut: Cut, rho) -> dict:
    """A cut with its multiplier as a leaf of a ``bab_bound`` certificate holds it: ``{"cut":
    {"at", "alpha", "beta", "delta"}, "rho"}``, the inner dict one object per cut (the
    certificate's builder puts it in the table ``"cuts"`` once, by identity)."""
    return {"cut": cut.as_json(), "rho": rho}


def cut_terms(cuts, rho, d, widths):
    """``(Σ ρ δ, x coefficients, h coefficients per hidden layer)``: the part of ``c − Aᵀy``
    (and of the constant) of the cut rows with multipliers ``ρ >= 0``."""
    const = _ZERO
    cx = [_ZERO] * d
    ch = [[_ZERO] * n for n in widths]
    for cut, r in zip(cuts, rho):
        if r == 0:
            continue
        l, j = cut.at
        const += r * cut.delta
        tgt = cx if l == 0 else ch[l - 1]
        for k, v in zip(cut.index.tolist(), cut.values):
            tgt[k] -= r * v
        ch[l][j] -= r * cut.beta
        if cut.pair is not None:
            ch[l][cut.pair[0]] -= r * cut.pair[1]
    return const, cx, ch


class CutSeparator:
    """The cuts of one network (rows *Ws*, biases *bs*, exact): separation in floats, right-hand
    sides exact, and the LP solved with rounds of cuts (:meth:`solve`)."""

    def __init__(self, Ws, bs, root_rounds: int = ROOT_ROUNDS, node_rounds: int = NODE_ROUNDS,
                 per_round: int = PER_ROUND, per_round_node: int = NODE_PER_ROUND, paired: bool = False):
        self.Ws, self.bs = Ws, bs
        self.paired = paired and PAIR_CUTS   # pair cuts (a difference network of two networks of one shape)
        self.fW = [np.array([[float(v) for v in row] for row in W], dtype=float) for W in Ws]
        self.fb = [np.array([float(v) for v in b], dtype=float) for b in bs]
        self.root_rounds, self.node_rounds, self.per_round = root_rounds, node_rounds, per_round
        self.per_round_node = per_round_node
        self.forward = FORWARD
        self.pay_gain = PAY_GAIN
        self.pays: dict = {}          # objective -> its root's rounds paid (cuts below the root)
        self.widths = [len(W) for W in Ws[:-1]]
        self._serial = 0
        self.made = 0                 # cuts made (work done, for reports and tests)

    def input_box(self, box, ivs, l):
        """The exact box of neuron layer *l*'s inputs at a node."""
        if l == 0:
            return list(box)
        return [(max(lo, _ZERO), max(hi, _ZERO)) for lo, hi in ivs[l - 1]]

    def exact(self, at, index, values, beta, box, ivs, key=None, pair=None):
        """The cut ``(α, β)`` of neuron *at* (with *pair* ``(j2, β_2, μ)``: the pair cut) with its
        exact ``δ`` on the node's box."""
        l, j = at
        n = len(self.Ws[l][0])
        alpha = [_ZERO] * n
        for k, v in zip(index, values):
            alpha[k] = v
        inputs = self.input_box(box, ivs, l)
        row = fdelta = None
        if pair is None and LAZY_DELTA:
            delta, row = None, (self.Ws[l][j], self.bs[l][j])
            fdelta = _float_cut_rhs(np.array([float(v) for v in alpha]), float(beta), self.fW[l][j],
                                    self.fb[l][j], inputs)
        elif pair is None:
            delta = relu_cut_rhs(alpha, beta, self.Ws[l][j], self.bs[l][j], inputs)
        else:
            j2, b2, mus = pair
            delta = pair_cut_rhs(alpha, beta, b2, self.Ws[l][j], self.bs[l][j], self.Ws[l][j2], self.bs[l][j2],
                                 inputs, mus)
        if key is None:
            self._serial += 1
            key = (l, j, self._serial)
            self.made += 1
        return Cut(at, index, values, beta, delta, key, inputs, pair, row=row, fdelta=fdelta)

    def refresh(self, cuts, box, ivs):
        """*cuts* (a parent's) with ``δ`` recomputed on this node's box (valid by construction;
        the same cut when its input box is unchanged: a neuron split leaves the layers below)."""
        out = []
        for cut in cuts:
            checkpoint()
            if cut.box is not None and self.input_box(box, ivs, cut.at[0]) == cut.box:
                out.append(cut)
            else:
                out.append(self.exact(cut.at, cut.index.tolist(), cut.values, cut.beta, box, ivs, cut.key,
                                      cut.pair))
        return out

    def separate(self, box, ivs, cols, template, limit):
        """The most violated Anderson cuts at the LP point *cols* (floats), at most *limit*, of
        the unstable neurons of the node (exact ``δ``)."""
        t = template
        found = []
        for l, layer in enumerate(ivs[:-1]):
            unst = [j for j, (lo, hi) in enumerate(layer) if lo < 0 < hi]
            if not unst:
                continue
            if l == 0:
                L = np.array([float(lo) for lo, _ in box]); U = np.array([float(hi) for _, hi in box])
                xs = cols[:t.d]
            else:
                prev = ivs[l - 1]
                L = np.array([max(float(lo), 0.0) for lo, _ in prev]); U = np.array([max(float(hi), 0.0) for _, hi in prev])
                xs = cols[t.hoff[l - 1]:t.hoff[l - 1] + len(prev)]
            ys = cols[t.hoff[l]:t.hoff[l] + len(layer)]
            J = np.array(unst, dtype=np.int64)
            W = self.fW[l][J]                               # one row per unstable neuron
            b = self.fb[l][J]
            pos = W >= 0
            Lb, Ub = np.where(pos, L, U), np.where(pos, U, L)
            d = W * (Ub - Lb)                               # >= 0
            u = (W * Ub).sum(axis=1) + b                    # ℓ(∅): the largest z over the box
            low = (W * Lb).sum(axis=1) + b
            span = Ub - Lb
            with np.errstate(divide="ignore", invalid="ignore"):
                tt = np.where(d > 0, np.clip((xs[None, :] - Lb) / span, 0.0, 1.0), np.inf)
            order = np.argsort(tt, axis=1, kind="stable")   # items of d = 0 last (t = inf)
            ds = np.take_along_axis(d, order, axis=1)
            cum = np.cumsum(ds, axis=1)
            cross = (cum > u[:, None]).argmax(axis=1)       # the critical item h
            ok = (u > 0) & (low < 0) & (cum[:, -1] > u)
            rows = np.arange(len(J))
            ts = np.take_along_axis(np.where(np.isfinite(tt), tt, 0.0), order, axis=1)
            before = np.where(np.arange(ds.shape[1])[None, :] < cross[:, None], ds * ts, 0.0).sum(axis=1)
            ell = u - np.where(cross > 0, cum[rows, np.maximum(cross - 1, 0)], 0.0)
            env = before + ell * ts[rows, cross]
            width = np.array([float(layer[j][1] - layer[j][0]) for j in unst])
            viol = ys[J] - env
            for r in np.nonzero(ok & (viol > _MIN_VIOLATION * np.maximum(width, 1e-12)))[0]:
                k = int(cross[r])
                h = int(order[r, k])
                found.append((viol[r] / max(width[r], 1e-12), l, int(J[r]), order[r, :k], h,
                              ell[r] / (Ub[r, h] - Lb[r, h])))
        found.sort(key=lambda f: -f[0])
        out = []
        for _, l, j, I, h, slope in found[:limit]:
            checkpoint()
            row = self.Ws[l][j]
            idx = sorted(int(i) for i in I)
            vals = [-row[i] for i in idx]
            s = Q(round(slope * _ALPHA_GRID), _ALPHA_GRID)
            if s != 0:
                idx.append(h)
                vals.append(-s)
                order = sorted(range(len(idx)), key=idx.__getitem__)
                idx, vals = [idx[i] for i in order], [vals[i] for i in order]
            out.append(self.exact((l, j), idx, vals, Q(1), box, ivs))
        return out

    def pair_hull_cuts(self, box, ivs, c, cuts, cols, kw):
        """Pair cuts (module docstring) from one float LP: the node's (its cuts *cuts*, pair
        lines and half-spaces from *kw*) with the extended formulation of the input hull of the
        :data:`PAIR_HULL_PAIRS` pairs farthest from their graph at the LP point *cols*; per pair
        the aggregated row of both signs, exact."""
        from ..lp.floatlp import new_highs, run_highs
        t = kw["template"]
        cand = []
        xs_of, ys_of = {}, {}
        for l, layer in enumerate(ivs[:-1]):
            n = len(layer) // 2
            if n == 0 or 2 * n != len(layer):
                continue
            xs = cols[:t.d] if l == 0 else cols[t.hoff[l - 1]:t.hoff[l - 1] + len(ivs[l - 1])]
            ys = cols[t.hoff[l]:t.hoff[l] + len(layer)]
            xs_of[l], ys_of[l] = np.asarray(xs, dtype=float), np.asarray(ys, dtype=float)
            z = self.fW[l] @ xs + self.fb[l]
            gap = np.abs(ys - np.maximum(z, 0.0))
            for j in range(n):
                (la, ua), (lb, ub) = layer[j], layer[n + j]
                if la < 0 < ua or lb < 0 < ub:
                    cand.append((gap[j] + gap[n + j], l, j))
        cand.sort(key=lambda f: -f[0])
        chosen = [(l, j) for g, l, j in cand[:PAIR_HULL_PAIRS] if g > 0]
        if not chosen:
            return []
        lp, _ = build_lp(t, box, ivs, c, kw.get("pair_lines"), kw.get("halfspaces", ()), cuts=cuts)
        limit = kw.get("time_limit")
        h = new_highs(**PAIR_HIGHS) if limit is None else new_highs(time_limit=max(0.05, float(limit)), **PAIR_HIGHS)
        h.passModel(lp)
        where = [(l, j, add_input_hull(h, t, self.fW, self.fb, self.input_box(box, ivs, l), l, j))
                 for l, j in chosen]
        run_highs(h)
        if not str(h.getModelStatus()).endswith("kOptimal"):
            return []
        dual = np.asarray(h.getSolution().row_dual, dtype=float)
        at = np.asarray(h.getSolution().col_value, dtype=float)     # the point the rows support
        for l in xs_of:
            xs_of[l] = at[:t.d] if l == 0 else at[t.hoff[l - 1]:t.hoff[l - 1] + len(ivs[l - 1])]
            ys_of[l] = at[t.hoff[l]:t.hoff[l] + len(ivs[l])]
        out = []
        for l, j, (xrows, ha_row, hb_row, mu_rows) in where:
            checkpoint()
            n = len(ivs[l]) // 2
            a, ba, bb = dual[xrows], dual[ha_row], dual[hb_row]
            scale = max(abs(ba), abs(bb))
            if scale <= 1e-9:
                continue
            inputs = self.input_box(box, ivs, l)
            for sg in (1.0, -1.0):
                alpha, b1, b2 = sg * a / scale, sg * ba / scale, sg * bb / scale
                idx = [k for k in range(len(alpha)) if abs(alpha[k]) * _ALPHA_GRID >= 1]
                vals = [Q(round(alpha[k] * _ALPHA_GRID), _ALPHA_GRID) for k in idx]
                qa, qb = (Q(round(v * _ALPHA_GRID), _ALPHA_GRID) for v in (b1, b2))
                rows = (self.Ws[l][j], self.bs[l][j], self.Ws[l][n + j], self.bs[l][n + j])
                frows = (self.fW[l][j], self.fb[l][j], self.fW[l][n + j], self.fb[l][n + j])
                if PAIR_DUAL_MU:
                    # the duals of the regions' rows of the second neuron: its multipliers μ
                    mus = [max(Q(round(abs(dual[r]) / scale * _ALPHA_GRID), _ALPHA_GRID), _ZERO) for r in mu_rows]
                else:
                    mus = _region_mus(rows, frows, self.dense_alpha(idx, vals, len(inputs)), qa, qb, inputs)
                cut = self.exact((l, j), idx, vals, qa, box, ivs, pair=(n + j, qb, mus))
                if PAIR_DUAL_MU and float(np.dot(cut.fvalues, xs_of[l][cut.index]) + float(qa) * ys_of[l][j]
                                          + float(qb) * ys_of[l][n + j]) < cut.fdelta - 1e-7:
                    continue            # not tight where the hull LP stops: the other sign's row
                out.append(cut)
        return out

    @staticmethod
    def dense_alpha(idx, vals, n):
        out = [_ZERO] * n
        for k, v in zip(idx, vals):
            out[k] = v
        return out

    def solve(self, Ws, bs, box, ivs, c, *, root: bool, inherited=(), keep=None, lp=float_duals, depth=None, **kw):
        """HiGHS on the node's relaxation with cuts: the inherited ones (their ``δ`` made exact
        here), then rounds of separation and re-solving (:data:`ROOT_ROUNDS` at the root,
        :data:`NODE_ROUNDS` elsewhere; none at a node that inherits no cut, such as every node
        below the root of an objective whose root rounds lowered its LP value by less than
        :data:`PAY_GAIN`: that root hands its children a basis without cuts).  ``(status, x, duals, cuts, rho)`` (the last solve's
        :func:`.relaxation.float_duals` answer, its cuts and their float duals); with a list
        *keep*, the last basis is appended, holding the cuts of ``ρ != 0`` for the children;
        *lp* is :func:`.relaxation.float_duals` (the caller's, e.g. an instrumented one)."""
        t = kw["template"]
        key = tuple(c)
        if not root and not inherited:
            # below the root, cuts only on a path that carries them (the basis of the parent):
            # a pure function of the path, the same serially and in a distributed task
            # (:mod:`semialgebraic.distributed.tree`), which starts without a basis
            got = lp(Ws, bs, box, ivs, c, keep=keep, **kw)
            return (*got, [], [])
        cuts = self.refresh(inherited, box, ivs)
        # pair cuts at the root and at the nodes of at most PAIR_DEPTH splits that carry cuts
        # (a subtree's top: its cuts are inherited by the whole subtree)
        pairs_here = self.paired and (root or (depth is not None and depth <= PAIR_DEPTH))
        rounds = self.root_rounds if root else max(self.node_rounds, PAIR_HULL_ROUNDS if pairs_here else 0)
        got = None
        first = None
        t0, limit = time.monotonic(), kw.get("time_limit")
        for r in range(rounds + 1):
            info: dict = {}
            mine: list = []
            got = lp(Ws, bs, box, ivs, c, cuts=cuts, info=info, keep=mine, **kw)
            basis = mine[0] if mine else None
            if r == 0:
                plain = (basis, not cuts)     # the basis before any new cut (for children without cuts)
            if got[0] != "optimal" or info.get("cols") is None:
                break
            top = info["cols"][t.zoff[-1]:t.zoff[-1] + len(c)]
            value = float(np.dot(top, [float(v) for v in c]))
            if first is None:
                first = last = value
                if root:
                    self.pays[key] = False
            else:
                if root:
                    self.pays[key] = first - value >= self.pay_gain * abs(first)
                # rounds stop when one gains < 1 % (or the first < PAY_GAIN / 2: they will not
                # pay), or after a quarter of the node's time limit
                if (last - value < 0.01 * abs(first) or (r == 1 and first - value < self.pay_gain / 2 * abs(first))
                        or (limit is not None and time.monotonic() - t0 > limit / 4)):
                    break
                last = value
            if r == rounds:
                break
            new = self.separate(box, ivs, info["cols"], t, self.per_round if root else self.per_round_node)
            if r < PAIR_HULL_ROUNDS and pairs_here:
                new = new + self.pair_hull_cuts(box, ivs, c, cuts, info["cols"], kw)
            if not new:
                break
            kw["basis"] = basis
            cuts = cuts + new
        rho = info.get("rho", [0.0] * len(cuts))
        if keep is not None and root and not self.pays.get(key, True) and plain[1] and plain[0] is not None:
            keep.append(plain[0])             # the children solve without cuts: a basis without cut rows
            return (*got, cuts, rho)
        if keep is not None and basis is not None:
            basis.cuts = tuple(cut for cut, v in zip(cuts, rho) if abs(v) > 1e-12)
            if not root and self.forward and got[0] == "optimal" and info.get("cols") is not None:
                # cuts separated at this node's LP point, for its children only (no re-solve here)
                basis.cuts += tuple(self.separate(box, ivs, info["cols"], t, self.per_round_node))
            keep.append(basis)
        return (*got, cuts, rho)


def _float_box_halfspace(c, lo, hi, a, b):
    """``max c·x`` over ``{lo <= x <= hi, a·x + b <= 0}`` in floats (the greedy of
    :func:`algebra.kernel.knapsack.max_over_box_halfspace`), ``-inf`` when empty: a guess."""
    up = (c > 0) | ((c == 0) & (a < 0))
    x, other = np.where(up, hi, lo), np.where(up, lo, hi)
    total, row = float(c @ x), float(a @ x) + b
    if row <= 0:
        return total
    gain, cost = a * (x - other), np.abs(c * (x - other))
    keep = gain > 0
    gain, cost = gain[keep], cost[keep]
    order = np.argsort(cost / gain, kind="stable")
    gain, cost = gain[order], cost[order]
    cum = np.cumsum(gain)
    h = int(np.searchsorted(cum, row))           # the first item whose gain covers the excess
    if h >= len(gain):
        return -math.inf
    before = float(cost[:h].sum())
    rest = row - (float(cum[h - 1]) if h else 0.0)
    return total - before - cost[h] / gain[h] * rest


def _float_cut_rhs(alpha, beta, w, b, box):
    """A float guess of :func:`relu_cut_rhs` (HiGHS's right-hand side of a deferred cut)."""
    lo = np.array([float(v) for v, _ in box])
    hi = np.array([float(v) for _, v in box])
    off = _float_box_halfspace(alpha, lo, hi, w, b)
    on = _float_box_halfspace(alpha + beta * w, lo, hi, -w, -b) + beta * b
    return max(off, on)


def exact_rho(rho, sign):
    """The cut multipliers as exact rationals of the right sign (HiGHS's duals times *sign*,
    rounded to the grid ``2^-60``, negatives set to 0: any ``ρ >= 0`` is valid)."""
    out = []
    for v in rho:
        q = Q(round(sign * float(v) * _RHO_GRID), _RHO_GRID)
        out.append(q if q > 0 else _ZERO)
    return out


def add_input_hull(h, t, fW, fb, inputs, l, j):
    """Add to the HiGHS model *h* (columns of :class:`.relaxation.LPTemplate` *t* first) the
    extended formulation of the convex hull of the graph of the pair ``(j, n + j)`` of hidden
    layer *l* over the box *inputs* of ``h_{l−1}`` (``x`` for ``l = 0``), floats *fW*, *fb*:
    per sign region of :data:`PAIR_REGIONS` a copy ``y_k`` of the inputs and a weight ``λ_k``,
    ``Σ y_k = h_{l−1}``, ``Σ λ_k = 1``, ``y_k ∈ λ_k·box``, the region's signs on ``(y_k, λ_k)``,
    and ``h_{l,j}``, ``h_{l,n+j}`` the sums of the active pieces (Balas 1985).  Returns the
    rows ``(Σ y_k = h_{l−1} rows, the h_{l,j} row, the h_{l,n+j} row)``."""
    from highspy import _core as hc
    inf = hc.kHighsInf
    n = len(fW[l]) // 2
    lo = np.array([float(v) for v, _ in inputs]); hi = np.array([float(v) for _, v in inputs])
    d = len(lo)
    xcol = np.arange(d) if l == 0 else t.hoff[l - 1] + np.arange(d)
    wa, ba, wb, bb = fW[l][j], fb[l][j], fW[l][n + j], fb[l][n + j]
    K = len(PAIR_REGIONS)
    base = h.getNumCol()
    h.addCols(K * (d + 1), np.zeros(K * (d + 1)), np.array(([-inf] * d + [0.0]) * K),
              np.array(([inf] * d + [1.0]) * K), 0, np.array([], dtype=np.int32), np.array([], dtype=np.int32),
              np.array([]))
    ys = [base + k * (d + 1) + np.arange(d) for k in range(K)]
    lam = [base + k * (d + 1) + d for k in range(K)]
    rows = [(0.0, 0.0, [int(y[i]) for y in ys] + [int(xcol[i])], [1.0] * K + [-1.0]) for i in range(d)]
    rows.append((1.0, 1.0, lam, [1.0] * K))
    mu_rows = []
    for k, (sa, sb) in enumerate(PAIR_REGIONS):
        for i in range(d):
            rows.append((0.0, inf, [int(ys[k][i]), lam[k]], [1.0, -lo[i]]))
            rows.append((-inf, 0.0, [int(ys[k][i]), lam[k]], [1.0, -hi[i]]))
        for w, bias, side in ((wa, ba, sa), (wb, bb, sb)):
            if w is wb:
                mu_rows.append(len(rows))
            rows.append((0.0, inf, [*map(int, ys[k]), lam[k]], [*w, bias]) if side else
                        (-inf, 0.0, [*map(int, ys[k]), lam[k]], [*w, bias]))
    for w, bias, col, side in ((wa, ba, t.hoff[l] + j, 0), (wb, bb, t.hoff[l] + n + j, 1)):
        cols, vals = [int(col)], [-1.0]
        for k, reg in enumerate(PAIR_REGIONS):
            if reg[side]:
                cols += [*map(int, ys[k]), lam[k]]
                vals += [*w, bias]
        rows.append((0.0, 0.0, cols, vals))
    first = h.getNumRow()
    starts = np.cumsum([0] + [len(r[2]) for r in rows[:-1]]).astype(np.int32)
    h.addRows(len(rows), np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
              int(sum(len(r[2]) for r in rows)), starts,
              np.concatenate([np.asarray(r[2], dtype=np.int32) for r in rows]),
              np.concatenate([np.asarray(r[3], dtype=float) for r in rows]))
    last = first + len(rows)
    return np.arange(first, first + d), last - 2, last - 1, [first + r for r in mu_rows]


def _region_mus(rows, frows, alpha, beta_a, beta_b, inputs):
    """Per sign region of :data:`PAIR_REGIONS` a multiplier ``μ >= 0`` of the second neuron's
    half-space for :func:`pair_cut_rhs` (exact, on a grid): the dual of that row in the float
    LP ``max`` of the row's left side over the region; for a region HiGHS finds empty, the one
    of ``s·4^e`` (``e = 0 … 12``, ``s`` the row's scale) of least exact bound
    (:func:`algebra.kernel.knapsack.pair_region_max`).  *rows* ``(w_a, b_a, w_b, b_b)`` exact,
    *frows* the same in floats, *alpha* exact (dense), *beta_a*, *beta_b* exact."""
    from highspy import _core as hc
    from ..lp.floatlp import new_highs, run_highs
    from .relaxation import set_rowwise
    inf = hc.kHighsInf
    wa, ba, wb, bb = frows
    fa = np.array([float(v) for v in alpha])
    lo = np.array([float(v) for v, _ in inputs]); hi = np.array([float(v) for _, v in inputs])
    d = len(lo)
    out = []
    for region in PAIR_REGIONS:
        act_a, act_b = region
        sa, sb = (-1.0 if act_a else 1.0), (-1.0 if act_b else 1.0)
        lp = hc.HighsLp()
        lp.num_col_, lp.num_row_ = d, 2
        lp.col_cost_ = fa + float(beta_a) * act_a * wa + float(beta_b) * act_b * wb
        lp.col_lower_, lp.col_upper_ = lo, hi
        lp.row_lower_, lp.row_upper_ = np.array([-inf, -inf]), np.array([-sa * ba, -sb * bb])
        lp.sense_ = hc.ObjSense.kMaximize
        set_rowwise(lp, [{k: sa * wa[k] for k in range(d) if wa[k]}, {k: sb * wb[k] for k in range(d) if wb[k]}], d)
        h = new_highs()
        h.passModel(lp)
        run_highs(h)
        if str(h.getModelStatus()).endswith("kOptimal"):
            mu = abs(float(np.asarray(h.getSolution().row_dual, dtype=float)[1]))
            out.append(max(Q(round(mu * _ALPHA_GRID), _ALPHA_GRID), _ZERO))
            continue
        scale = float(np.abs(fa).sum() + abs(float(beta_a)) * np.abs(wa).sum() + abs(float(beta_b)) * np.abs(wb).sum())
        scale = Q(max(1, round(scale / max(float(np.abs(wb).sum()), 1e-12))))
        best = None
        for e in range(13):
            m = scale * 4 ** e
            got = pair_region_max(alpha, beta_a, beta_b, *rows, inputs, region, m)
            if got is None:
                best = (None, _ZERO)
                break
            if best is None or got < best[0]:
                best = (got, m)
        out.append(best[1])
    return out

