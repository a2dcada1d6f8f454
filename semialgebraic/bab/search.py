r"""Exact branch and bound on a linear objective of a ReLU network's output over a box.

Best-first on the certified upper bound of each open node.  A node's bound is the smallest of:
its symbolic output interval (:mod:`.symbolic`, DeepPoly/CROWN back-substitution, exact), the
paired differential bound when the network is ``a − b`` for two networks of one shape
(:mod:`.differential`), the exact affine maximum when no neuron is unstable, and the triangle LP
relaxation guessed by HiGHS and bounded exactly by the Neumaier–Shcherbina correction
(:mod:`.relaxation`).  Branching: for input dimension ``d <= 8`` and more than ``d`` unstable
neurons, an input coordinate at its midpoint (at most ``12·d`` such splits on a path): at the
root the widest, below it the one of largest smear (ReluVal: its width times the largest
``|∂(c·D)/∂x_k|`` of a float interval gradient over the node, :meth:`Engine.smear_axis`;
measured 2026-12-02 on ACAS Xu, 40 splits of one objective: full box upper 64.9 -> 55.4, 1/100
box 8 upper/lower 1.142 -> 1.018 for 44 -> 27 CPU s; since 2026-12-03 the largest over every
output ``|∂D_o/∂x_k|``, one axis for every objective, whose cells are then the engine's shared
cache: ACAS Xu's full box at 120 s side by side with the per-objective rule, load 8, 41 CPU s,
upper 67.6 against 68.8, 1/100 boxes 0 and 6 the same numbers; an axis chosen by a float
lookahead on the halves' δ bounds was no better at 6× the bounds, 2026-12-03: the module
docstring of :mod:`.differential`); a node with more than ``_LP_MAX`` unstable
neurons gets no LP and no LP tightening (:class:`Engine`'s *tighten_above*);
otherwise, at a leaf bounded by the LP, the unstable neuron whose triangle row weighs most in
its bound (multiplier times intercept, the BaBSR/FSB-style score; on a difference network the
pair ``(a_j, b_j)`` whose pair rows and two triangle rows weigh most together, split at the
one of the two with the larger own share: :func:`_ranked`), else the unstable neuron of
the earliest layer with the largest triangle area (children ``z <= 0`` then ``z >= 0``).  Every
node's hidden intervals are first tightened by LPs (:mod:`.tighten`, a counted cap per node).
HiGHS starts a child's LP from its parent's final basis (:class:`.relaxation.Basis`; measured
on digits 64-32-10: 13× fewer simplex iterations); floats still only propose the duals.
Scoring every split by a lookahead (FSB's strong branching: both children's LPs for the 3 or 6
best candidates) gave worse bounds per CPU second on digits 64-32-10 (2026-12-02); only when
no neuron's share reaches ``_LOOK_SHARE`` of the leaf's gap to close (a degenerate LP optimum:
on near copies every share is often 0, and the earliest layer's widest triangle rarely moves
the bound) the split is chosen by a float lookahead (:mod:`.lookahead`: the leaf's model
re-solved hot with each of its ``_LOOK_MAX`` widest unstable neurons fixed on either side).
Every LP also holds single-neuron cuts (:mod:`.cuts`, Anderson et al.'s convex-hull rows,
three-layer-fibers R30): rounds of them at the root and, for an objective whose root rounds
lowered its LP value by >= 8 %, each node's cuts separated at its LP point for its children
(which keep the parent's cuts of non-zero multiplier, right-hand sides recomputed on their
box); a neuron's cut multipliers add to its triangle row's in the branching score (not
measured apart); measured on digits (README).  The primal side evaluates candidate points exactly (box corners
and centres, LP solutions rounded into the box and the box vertex nearest them; an LP point
whose float value is below ``lower`` is skipped, a box centre evaluated once).  Anytime: the
certified interval ``[lower, upper]`` and a point attaining ``lower`` are known after every
node; a budget stop returns them with ``complete`` False.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from algebra.rationals import Q

from ..budget import Budget, BudgetExhausted
from .differential import DifferentialNet, delta_lines
from .cuts import CutSeparator, cut_json, cut_terms, exact_rho
from .exactleaf import exact_leaf, exact_region
from .lookahead import lookahead
from .relaxation import LPTemplate, candidates as _candidates, exact_bound_int, float_duals
from .symbolic import SymbolicNet, affine_bound
from .tighten import DEFAULT_CAP, Tightener, layer_of

__all__ = ["ObjectiveBound", "bound_objective", "Engine", "PAUSED"]

PAUSED = "paused below the next objective's bound"   # the reason of a run stopped by pause_at

_ZERO = Q(0)
_DUAL_GRID = 1 << 60  # HiGHS's duals rounded to multiples of 2^-60 (see _lp_bound)
_PAIR_SCORE = True    # experiments: False restores the triangle-only score
_WARM = True        # HiGHS warm-started from the parent's basis (experiments: False)
_SKIP = 1e-6        # an LP point whose float value is this far (relative) below lower is not evaluated
_CUT_SCORE = True     # a neuron's cut multipliers add to its triangle row's in the branching score
_CUTS = True          # single-neuron cuts in the node LPs (.cuts; experiments: False)
_XDEPTH = 12          # at most 12·d input splits on a path, then neuron splits (kinks stay unstable)
_SMEAR = True         # input splits on the coordinate of largest smear (False: the widest)
_SHARED_SMEAR = True  # ... the smear of every output at once, not of the objective's (Engine.smear_axis)
_LP_MAX = 64          # with input splits, a node with more unstable neurons gets no LP (nor LP tightening)
_LOOKAHEAD = True     # a float lookahead chooses the neuron when the LP's shares do not (.lookahead)
_LOOK_SHARE = Q(1, 10)  # ... i.e. when the best share is below this part of the leaf's gap to close
_LOOK_MAX = 24        # candidates of the lookahead: the unstable neurons of largest triangle area


@dataclass
class ObjectiveBound:
    """Certified ``lower <= max_{x in box} c·D(x) <= upper`` (``point`` attains ``lower``)."""

    lower: Q
    upper: Q
    point: tuple
    tree: dict
    nodes: int
    complete: bool
    reason: str = ""
    extra: dict = field(default_factory=dict)


def _zeros(Ws):
    return [[_ZERO] * len(W) for W in Ws]


def _lp_bound(Ws, bs, box, ivs, c, sym, time_limit=None, template=None, lines=None, halfspaces=(),
              bound=None, tight=False, memo=None, target=None, basis=None, keep=None,
              separator=None, root=False, depth=None):
    """(bound, (mu, alpha, beta[, gamma, eta, kappa]), float point) of the node's triangle LP
    (with the pair rows of *lines*, :func:`.relaxation.pair_terms`, and the rows of the domain's
    *halfspaces*, multipliers ``kappa``) made rigorous, or ``(None, y, None)`` when the
    multipliers *y* prove the node empty, or None (no LP answer).

    HiGHS's duals are rounded to the dyadic grid ``2^-60`` (exact for every dual above ``2^-8``
    in magnitude, and the common denominator of a leaf stays ``<= 2^60``: an exactly converted
    dual of ``1e-300`` made it ``2^1000``) and projected; the sign found
    right at the last node is tried first and the other only when the first does not improve on
    *bound* (the node's bound so far: a wrong sign gives a useless bound), so one exact
    correction per node is the rule (it was six: three roundings × two signs).  With *tight*
    (a leaf without unstable neurons, where the LP is the exact maximum of its region), or when
    the bound is within 0.1 % above *target* (the value the search must reach to close the
    node), the duals rounded to ``10^-6`` and the nearest fractions of small denominator are
    tried too: they recover the exact optimal duals of a tight LP.  *memo* (a dict kept by the caller, :attr:`Engine.lp_memo`) remembers the sign.
    *basis*, *keep*: HiGHS's warm start (:func:`.relaxation.float_duals`).  With *separator*
    (a :class:`.cuts.CutSeparator`) the LP has cut rows (inherited from *basis*, then rounds of
    separation, more at the *root*); their multipliers ``ρ`` enter every exact bound and the
    leaf (``y`` then has a 7th part: the cuts as :func:`.cuts.cut_json`)."""
    memo = {} if memo is None else memo
    cuts = ()
    if separator is None:
        status, x, duals = float_duals(Ws, bs, box, ivs, c, time_limit=time_limit, template=template,
                                       pair_lines=lines, halfspaces=halfspaces, basis=basis, keep=keep)
    else:
        status, x, duals, cuts, rho = separator.solve(
            Ws, bs, box, ivs, c, root=root, inherited=() if basis is None else basis.cuts, keep=keep, lp=float_duals,
            depth=depth,
            time_limit=time_limit, template=template, pair_lines=lines, halfspaces=halfspaces, basis=basis)

    def with_cuts(y, sg):
        """``(y with the cut part, the exact cut terms)`` for the sign *sg* of HiGHS's duals."""
        if not cuts:
            return y, None
        r = exact_rho(rho, sg)
        used = [(cut, v) for cut, v in zip(cuts, r) if v != 0]
        if not used:
            return y, None
        terms = cut_terms([u for u, _ in used], [v for _, v in used], len(box), separator.widths)
        return tuple(y) + (None,) * (6 - len(y)) + ([cut_json(u, v) for u, v in used],), terms

    first = memo.get("sign", 1)
    signs = (first, -first)
    if status == "infeasible" and duals is not None:
        zc = [_ZERO] * len(c)
        for sg in signs:
            for y in _candidates(ivs, duals, dens=(_DUAL_GRID, "cf"), signs=(sg,)):
                y, terms = with_cuts(y, sg)
                if exact_bound_int(sym, box, ivs, zc, *y[:6], lines=lines, halfspaces=halfspaces, cuts=terms) < 0:
                    return None, y, None          # the node is empty (Farkas-type proof)
        return None
    if status != "optimal":
        return None
    best = None
    for i, sg in enumerate(signs):
        y, terms = with_cuts(next(_candidates(ivs, duals, dens=(_DUAL_GRID,), signs=(sg,))), sg)
        val = exact_bound_int(sym, box, ivs, c, *y[:6], lines=lines, halfspaces=halfspaces, cuts=terms)
        if best is None or val < best[0]:
            best = (val, y)
        if bound is None or val < bound:
            memo["sign"] = sg
            break
    if tight or (target is not None and best[0] > target and best[0] - target <= abs(best[0]) / 1000):
        sg = memo.get("sign", 1)
        for y in _candidates(ivs, duals, dens=(10 ** 6, "cf"), signs=(sg,)):
            y, terms = with_cuts(y, sg)
            val = exact_bound_int(sym, box, ivs, c, *y[:6], lines=lines, halfspaces=halfspaces, cuts=terms)
            if val < best[0]:
                best = (val, y)
    return best[0], best[1], x


def _exact_leaf(Ws, bs, box, ivs, c, x, sym, value, holder, bnd):
    """A leaf without unstable neurons: the exact LP of its region from HiGHS's point *x*
    (:func:`.exactleaf.exact_leaf`): ``(bound, (value, point) or None)``; *holder* takes the
    exact multipliers when their bound is below *bnd*."""
    got = exact_leaf(Ws, bs, box, ivs, c, x)
    if got is None:
        return bnd, None
    mu, alpha, beta, p = got
    return _closed(sym, box, ivs, c, (mu, alpha, beta), p, value, holder, bnd)


def _closed(sym, box, ivs, c, y, p, value, holder, bnd, halfspaces=()):
    """``(bound, (value, point) or None)`` of exact multipliers *y* (``(mu, alpha, beta[,
    kappa])``, kappa weighing the domain's *halfspaces*) and optimal point *p* of a leaf's
    region; *holder* takes *y* when their bound is below *bnd*."""
    inside = all(lo <= v <= hi for v, (lo, hi) in zip(p, box)) and all(
        sum((u * v for u, v in zip(a, p)), _ZERO) <= b for a, b in halfspaces)
    found = (value(p), p) if inside else None
    kappa = y[3] if len(y) > 3 else None
    val = exact_bound_int(sym, box, ivs, c, *y[:3], kappa=kappa, halfspaces=halfspaces)
    if val < bnd:
        holder.clear()
        holder.update({"bound": val, "mu": y[0], "alpha": y[1], "beta": y[2]})
        if kappa is not None:
            holder["kappa"] = kappa[0]
        bnd = val
    return bnd, found


def _exact_region(Ws, bs, box, ivs, c, sym, value, holder, bnd, halfspaces=()):
    """:func:`.exactleaf.exact_region` at a leaf without unstable neurons: None when its
    multipliers prove the leaf empty (*holder* then an ``"empty": "dual"`` leaf), else
    ``(bound, (value, point) or None)`` as :func:`_exact_leaf`."""
    got = exact_region(Ws, bs, box, ivs, c, halfspaces)
    if got is None:
        return bnd, None
    kind, y, p = got
    mu, alpha, beta = y[:3]
    kappa = y[3] if len(y) > 3 else None
    if kind == "empty":
        if exact_bound_int(sym, box, ivs, [_ZERO] * len(c), mu, alpha, beta, kappa=kappa,
                           halfspaces=halfspaces) < 0:
            holder.clear()
            holder.update({"empty": "dual", "mu": mu, "alpha": alpha, "beta": beta})
            if kappa is not None:
                holder["kappa"] = kappa[0]
            return None
        return bnd, None
    return _closed(sym, box, ivs, c, y, p, value, holder, bnd, halfspaces)


def _multipliers(y):
    """A leaf's multiplier keys: ``mu``, ``alpha``, ``beta``; ``gamma``, ``eta`` (the pair rows,
    when present); ``kappa`` (the domain's half-spaces, when present: one list)."""
    out = {k: v for k, v in zip(("mu", "alpha", "beta", "gamma", "eta"), y) if v is not None}
    if len(y) > 5 and y[5] is not None:
        out["kappa"] = y[5][0]
    if len(y) > 6 and y[6]:
        out["cuts"] = y[6]
    return out


def _output_bound(ivs, c):
    return sum(((cj * hi if cj > 0 else cj * lo) for cj, (lo, hi) in zip(c, ivs[-1]) if cj != 0), _ZERO)


def _choose(ivs):
    for l, layer in enumerate(ivs[:-1]):
        best, arg = None, None
        for j, (lo, hi) in enumerate(layer):
            if lo < 0 < hi:
                score = -lo * hi / (hi - lo)
                if best is None or score > best:
                    best, arg = score, (l, j)
        if arg is not None:
            return arg
    return None


def _choose_by_duals(ivs, holder, lines=None):
    """The unstable neuron whose rows cost the leaf's LP bound most, or None without LP
    multipliers or when every share is 0.  A neuron's share is its upper triangle row's part of
    the Neumaier–Shcherbina constant, ``β_j · s_j · (−lo_j)`` (``s_j = hi/(hi − lo)``, the
    intercept score of BaBSR/FSB); with the pair rows of a difference network (*lines*, per
    hidden layer ``(su, tu, sl, tl)`` of :func:`.differential.delta_lines`, multipliers
    ``gamma``, ``eta``) the share of pair ``j`` — its rows' constant ``γ_j·tu_j − η_j·tl_j`` plus
    the triangle shares of ``a_j`` and ``b_j`` — goes to the unstable one of the two of larger
    triangle area (splitting either makes the pair's lines nearly exact: the other's interval
    is then narrowed to within ``δ`` of 0)."""
    ranked = _ranked(ivs, holder, lines)
    return ranked[0][1] if ranked else None


def _ranked(ivs, holder, lines=None):
    """The split candidates of :func:`_choose_by_duals` of positive share, ``(share, (l, j))``
    best first (empty without LP multipliers)."""
    beta = holder.get("beta")
    if beta is None:
        return []
    gamma, eta = holder.get("gamma"), holder.get("eta")
    extra: dict = {}                 # a neuron's cut rows (.cuts) count as its upper row (both have h's coefficient 1)
    if _CUT_SCORE:
        for ent in holder.get("cuts", ()):
            key = tuple(ent["cut"]["at"])
            extra[key] = extra.get(key, _ZERO) + ent["rho"] * ent["cut"]["beta"]
    out = []
    for l, layer in enumerate(ivs[:-1]):
        own = []
        for j, (lo, hi) in enumerate(layer):
            b = beta[l][j] + extra.get((l, j), _ZERO) if extra else beta[l][j]
            own.append(-b * hi * lo / (hi - lo) if lo < 0 < hi and b > 0 else _ZERO)
        if lines is None or gamma is None or not _PAIR_SCORE:
            out += [(score, (l, j)) for j, score in enumerate(own) if score > 0]
            continue
        n = len(layer) // 2
        for j in range(n):
            cand = [k for k in (j, n + j) if layer[k][0] < 0 < layer[k][1]]
            if not cand:
                continue
            _, tu, _, tl = lines[l][j]
            score = own[j] + own[n + j] + gamma[l][j] * tu - eta[l][j] * tl
            if score > 0:
                k = max(cand, key=lambda k: (own[k], -layer[k][0] * layer[k][1] / (layer[k][1] - layer[k][0])))
                out.append((score, (l, k)))
    out.sort(key=lambda t: (-t[0], t[1]))
    return out


def _unstable(ivs):
    return sum(1 for layer in ivs[:-1] for lo, hi in layer if lo < 0 < hi)


def _round_into(x, box):
    out = []
    for v, (lo, hi) in zip(x, box):
        fr = Fraction(v).limit_denominator(10 ** 6)
        q = Q(fr.numerator, fr.denominator)
        out.append(min(max(q, lo), hi))
    return tuple(out)


def _vertex(x, box):
    """The box vertex nearest the float point *x* (an affine objective's maximiser)."""
    return tuple(hi if v >= float((lo + hi) / 2) else lo for v, (lo, hi) in zip(x, box))


def _look(engine, box, splits, ivs, c, budget):
    """The neuron of :func:`.lookahead.lookahead` among the ``_LOOK_MAX`` unstable neurons of
    largest triangle area (floats choose; None: no choice)."""
    cands = [(-lo * hi / (hi - lo), (l, j)) for l, layer in enumerate(ivs[:-1])
             for j, (lo, hi) in enumerate(layer) if lo < 0 < hi]
    cands.sort(key=lambda t: (-t[0], t[1]))
    got = lookahead(engine.template, box, ivs, c, [a for _, a in cands[:_LOOK_MAX]],
                    engine.pair_lines(box, splits), engine.halfspaces, time_limit=budget.remaining())
    return None if got is None else got[0]


class Engine:
    """The bounds of one network ``D`` shared by every objective and node: symbolic intervals
    (:mod:`.symbolic`, cached per node), differential bounds when ``D`` is a difference of two
    networks of one shape (:mod:`.differential`), and the LP (:mod:`.relaxation`)."""

    def __init__(self, Ws, bs, *, paired: bool = False, lp: bool = True, halfspaces=(),
                 tighten: int | None = None, tighten_above: int | None = -1, cuts: bool | None = None):
        self.Ws, self.bs = Ws, bs
        # a node with more unstable neurons than this (symbolic intervals) is not LP-tightened:
        # on an input of dimension <= 8 it is split on an input coordinate without an LP
        # (``_LP_MAX``), and its tightening cost 10x its symbolic bound for nothing (measured
        # 2026-12-02 on ACAS Xu's full box, 584 unstable: 4.8 against 0.38 CPU s, the last δ
        # 97.67 both ways; at width 1/64, 148 unstable: 1.29 against 0.34 CPU s for 0.068 ->
        # 0.053, less than an input split gives); -1: that default, None: always tightened
        d = len(Ws[0][0]) if Ws and Ws[0] else 0
        self.tighten_above = (_LP_MAX if d <= 8 else None) if tighten_above == -1 else tighten_above
        self.halfspaces = tuple(halfspaces)    # the domain's a·x <= b rows (LP only)
        self.sym = SymbolicNet(Ws, bs)
        self.diff = DifferentialNet(Ws, bs) if paired else None
        if self.diff is not None and not self.diff.ok:
            self.diff = None
        self.lp = lp
        self.template = LPTemplate(Ws, bs) if lp else None
        # single-neuron cuts in the LP (.cuts; experiments: cuts=False)
        cuts = _CUTS if cuts is None else cuts
        self.separator = (CutSeparator(Ws, bs, paired=self.diff is not None)
                          if lp and cuts and len(Ws) > 1 else None)
        cap = DEFAULT_CAP if tighten is None else tighten     # LPs per node (0: none)
        self.tightener = Tightener(Ws, bs, self.sym, self.halfspaces, cap) if lp and cap > 0 else None
        self._cache: dict = {}
        self._state: dict = {}
        self._records: dict = {}
        self._memo: dict = {}                 # per node: LP-tightening work done so far
        self._lines: dict = {}                # per node: pair_lines (asked by the LP and the branching)
        self._boxes: dict = {}                # tuple(box) -> a number
        self._box_ids: dict = {}              # id(box) -> (box, its number)
        self.lp_memo: dict = {}               # the sign of HiGHS's duals that last gave a bound
        self._floats = None                   # float64 layers of float_value, made on first use

    def _key(self, box, splits):
        """The cache key of a node: a small number for its box (hashing a tuple of 2d rationals
        at every lookup cost 10 % of a digits node) and its sorted splits."""
        got = self._box_ids.get(id(box))
        if got is None or got[0] is not box:
            got = (box, self._boxes.setdefault(tuple(box), len(self._boxes)))
            self._box_ids[id(box)] = got     # (holding *box*: its id is not reused)
        return got[1], tuple(sorted(splits.items()))

    def node(self, box, splits, parent=None, layer=None):
        """``(intervals, last δ)`` of a node; with *parent* (the parent node's splits, the same
        box) the layers below *layer* (the new split's) are reused."""
        key = self._key(box, splits)
        hit = self._cache.get(key)
        if hit is None:
            pivs = pstate = None
            if parent is not None:
                pivs, pstate = self._state.get(self._key(box, parent), (None, None))
            ivs = self.sym.intervals(box, splits, parent=pivs, layer=layer)
            records, inherited = [], []
            if ivs is None and parent is not None:
                # the parent's layers up to *layer* were reused, LP-tightened: an empty node
                # is empty through the parent's records, which its leaf must carry (else the
                # checker replays the plain symbolic intervals and does not see it empty:
                # the d = 2 recession sweep's seed 0, face (1, -1), 2026-12-03)
                records = [r for r in self._records.get(self._key(box, parent), ())
                           if layer_of(r) <= layer]
            if ivs is not None and self.tightener is not None and (
                    self.tighten_above is None or _unstable(ivs) <= self.tighten_above):
                if parent is not None:
                    pkey = self._key(box, parent)
                    inherited = [r for r in self._records.get(pkey, ()) if layer_of(r) <= layer]
                ivs, records = self.tightener.node(box, splits, ivs, inherited,
                                                   layer if parent is not None else None,
                                                   self._memo.setdefault(key, {}))
            state = None
            if ivs is not None and self.diff is not None:
                if self.tightener is not None:     # the paired δ tightened too (tighten.py)
                    state, more = self.tightener.deltas(self.diff, box, ivs, pstate,
                                                        layer if parent is not None else None, inherited,
                                                        self._memo.setdefault(key, {}), root=not splits)
                    records = records + more
                else:
                    state = self.diff.state(box, ivs, parent=pstate, layer=layer or 0)
            self._records[key] = records
            self._state[key] = (ivs, state)
            hit = self._cache[key] = (ivs, None if state is None else state[0][-1])
        return hit

    def _float_layers(self):
        if self._floats is None:
            self._floats = ([np.array([[float(v) for v in row] for row in W], dtype=float) for W in self.Ws],
                            [np.array([float(v) for v in b], dtype=float) for b in self.bs])
        return self._floats

    def float_value(self, p, c) -> float:
        """``c · D(p)`` in floats (float64 weights, made once): a proposal's screen, the exact
        value (the caller's) alone counts."""
        fW, fb = self._float_layers()
        h = np.array([float(v) for v in p], dtype=float)
        for l, (W, b) in enumerate(zip(fW, fb)):
            h = W @ h + b
            if l < len(fW) - 1:
                h = np.maximum(h, 0.0)
        return float(np.dot(h, [float(v) for v in c]))

    def smear_axis(self, box, ivs, c):
        """The input coordinate of largest smear (ReluVal's choice for input splits): its width
        times the largest ``|∂(c·D)/∂x_k|`` over the node, from the interval gradient of ``c·D``
        (a neuron with ``lo < 0 < hi`` has a derivative in ``[0, 1]``), in floats: it only
        chooses which coordinate to split, every bound stays exact.  None when every smear is
        0 (e.g. every neuron inactive).  With ``_SHARED_SMEAR`` the largest over every output
        ``|∂D_o/∂x_k|`` instead (*c* unused): the objectives ``± D_o`` of one network then split
        their boxes alike, and a cell one of them opened is the engine's cached node for the
        others (:meth:`node`)."""
        fW, _ = self._float_layers()
        if _SHARED_SMEAR:
            g_lo = g_hi = np.eye(len(fW[-1]))
        else:
            g_lo = g_hi = np.array([float(v) for v in c], dtype=float)[:, None]
        for l in range(len(fW) - 1, -1, -1):
            W = fW[l]
            Wp, Wn = np.maximum(W, 0.0), np.minimum(W, 0.0)
            g_lo, g_hi = Wp.T @ g_lo + Wn.T @ g_hi, Wp.T @ g_hi + Wn.T @ g_lo
            if l > 0:
                lo = np.array([float(a) for a, _ in ivs[l - 1]])[:, None]
                hi = np.array([float(b) for _, b in ivs[l - 1]])[:, None]
                act, dead = lo >= 0, hi <= 0
                g_lo = np.where(act, g_lo, np.where(dead, 0.0, np.minimum(g_lo, 0.0)))
                g_hi = np.where(act, g_hi, np.where(dead, 0.0, np.maximum(g_hi, 0.0)))
        widths = np.array([float(b - a) for a, b in box])
        score = widths * np.maximum(np.abs(g_lo), np.abs(g_hi)).max(axis=1)
        k = int(np.argmax(score))
        return k if score[k] > 0 else None

    def fork(self) -> "Engine":
        """An engine sharing this one's network bounds (symbolic, differential, LP template,
        tightener) with empty node caches: one per objective, so that a node is only ever
        opened along its own tree's path (a distributed search's tasks give the same numbers
        whatever ran before them on a worker)."""
        out = object.__new__(Engine)
        out.__dict__.update(self.__dict__)
        out._cache, out._state, out._records, out._memo = {}, {}, {}, {}
        out._lines = {}
        out.lp_memo = {}
        return out

    def tightened(self, box, splits):
        """The LP-tightened interval records (:mod:`.tighten`) of a node opened by :meth:`node`
        (a list, empty when none was tighter than the symbolic bound)."""
        return self._records.get(self._key(box, splits), [])

    def pair_lines(self, box, splits):
        """Per hidden layer the lines ``(su, tu, sl, tl)`` of every pair at a node opened by
        :meth:`node` (:func:`.differential.delta_lines`), or None (not a paired network)."""
        key = self._key(box, splits)
        if key in self._lines:
            return self._lines[key]
        ivs, state = self._state.get(key, (None, None))
        if ivs is None or state is None:
            return None
        out = []
        for l in range(len(ivs) - 1):
            n = len(ivs[l]) // 2
            row = []
            for j in range(n):
                (su, tu), (sl, tl), _ = delta_lines(ivs[l][j], ivs[l][n + j], state[0][l][j])
                row.append((su, tu, sl, tl))
            out.append(row)
        self._lines[key] = out               # (complete: a budget stop above leaves no entry)
        return out


def bound_objective(Ws, bs, box, c, value, *, budget: Budget | None = None,
                    stop_above=None, prune_at=None, start=None, engine: Engine | None = None,
                    input_splits: bool | None = None, state: dict | None = None,
                    at: tuple | None = None, input_split_above: int | None = None,
                    split_count=None, plunge: bool = False, pause_at=None,
                    pause_after: int = 0) -> ObjectiveBound:
    """Certified bounds of ``max_{x in box} c · D(x)`` for the network ``D`` of layers *Ws*, *bs*.

    Parameters
    ----------
    Ws, bs : lists of rows (exact), lists of bias lists
    box : list of (lo, hi)
        Exact bounds per coordinate.
    c : list of Q
        Objective on the outputs of ``D``.
    value : callable
        ``value(x) -> c · D(x)`` exactly (the primal side's evaluation).
    budget : Budget, optional
        Checked at every node (and handed to HiGHS as its time limit).
    stop_above : Q, optional
        Stop as soon as ``lower > stop_above`` (a counterexample for ε-equivalence).
    prune_at : Q, optional
        Nodes whose bound is ``<= prune_at`` are closed even above ``lower`` (ε-equivalence).
    start : list of points, optional
        Extra candidate points for the lower bound.
    engine : Engine, optional
        Shared bounds (intervals cached across objectives); built from *Ws*, *bs* when absent.
    input_splits : bool, optional
        Branch on input coordinates (default: when the input dimension is at most 8).
    input_split_above : int, optional
        With input splits, a node is split on an input coordinate only when more than this many
        of its neurons are unstable (default: the input dimension ``d``); below, on a neuron.
    split_count : callable, optional
        ``split_count(intervals) -> int``, compared with *input_split_above* instead of the
        number of unstable neurons (e.g. :func:`.diff._kinks`: a twin pair counts once).
    plunge : bool, optional
        After a split, continue with the child of larger bound (while it is above the cut)
        instead of the best open node: a dive that reaches small nodes, and their LP points,
        early (ε-equivalence below the maximum: a point above ε ends the search; the set of
        nodes a proof must split does not depend on the order).  Default False: best-first.
    pause_at : Q, optional
        Stop (reason :data:`PAUSED`, not complete, resumable by *state*) once the largest open
        bound is ``<= pause_at`` and at least *pause_after* nodes were split in this call: the
        caller then works on another objective whose bound is larger (:func:`.diff._rounds`).
    state : dict, optional
        ``extra["state"]`` of an earlier call on the same objective, box and engine that stopped
        on its budget: the search continues from its open nodes (its tree grows in place).
    at : tuple, optional
        ``(node box, splits, xdepth, parent splits, layer)``: the search starts at this node of a
        larger tree of *box* (the returned tree is its subtree; a distributed search's task,
        :mod:`semialgebraic.distributed.tree`) instead of at the root; *parent* and *layer*
        (None for the root or an input split's child) are passed to :meth:`Engine.node`, whose
        parent node must be open on *engine* already.  The points evaluated for ``lower`` are
        then the node box's (*start* included: points of the node box only); below neuron splits
        such a point may lie outside the node's region, and ``upper < lower`` then just closes it.

    Returns
    -------
    ObjectiveBound
        ``upper`` and ``tree`` are None when the budget ran out (or Ctrl-C) before the root's
        bound; otherwise ``tree`` is nested ``{"split": [l, j], "children": [z <= 0, z >= 0]}`` and
        ``{"split": ["x", k, mid], "children": [x_k <= mid, x_k >= mid]}`` nodes and leaves
        ``{"bound": b, "by": "symbolic" | "differential"}``, ``{"bound": b, "mu", "alpha",
        "beta"}`` (LP multipliers) or ``{"empty": "interval"}`` / ``{"empty": "dual", ...}``;
        a leaf whose intervals were LP-tightened also holds ``"tightened"``: the records of
        :mod:`.tighten` (shared objects; the certificate builder puts them in one table).
        ``extra["state"]`` holds the open nodes for a later call with *state* (once the root
        is bounded).
    """
    budget = budget or Budget()
    engine = engine or Engine(Ws, bs)
    d = len(box)
    if input_splits is None:
        input_splits = d <= 8
    xmin = d if input_split_above is None else input_split_above
    cbox = box if at is None else at[0]
    cands = [tuple(lo for lo, _ in cbox), tuple((lo + hi) / 2 for lo, hi in cbox),
             tuple(hi for _, hi in cbox)] + [tuple(p) for p in (start or [])]
    lower, point = None, None
    for p in cands:
        v = value(p)
        if lower is None or v > lower:
            lower, point = v, p
    counter = 0
    centred: dict = {}                  # id -> box whose centre was evaluated (held: ids stay unique)
    bases: dict = {}                    # id(leaf holder) -> HiGHS's final basis at that leaf
    heap: list = []
    leaves: list = []
    pushed: dict = {}                   # (plunge) id(holder) -> its heap entry, this split's
    taken: set = set()                  # (plunge) counters of heap entries already split

    def cut():
        return lower if prune_at is None else max(lower, prune_at)

    def open_node(nbox, splits, holder, xdepth=0, parent=None, layer=None, warm=None):
        nonlocal lower, point, counter
        ivs, deltas = engine.node(nbox, splits, parent, layer)
        recs = engine.tightened(nbox, splits)
        if ivs is None:
            holder.update({"empty": "interval"})
            if recs:
                holder["tightened"] = recs
            return
        bnd, by = _output_bound(ivs, c), "symbolic"
        if deltas is not None:
            dv = _output_bound([deltas], c)
            if dv < bnd:
                bnd, by = dv, "differential"
        holder.update({"bound": bnd, "by": by})
        unstable = _unstable(ivs)
        if unstable == 0:
            ab, vertex = affine_bound(Ws, bs, nbox, ivs, c)
            if ab < bnd:
                bnd = ab
                holder.update({"bound": bnd, "by": "affine"})
            v = value(vertex)
            if v > lower:
                lower, point = v, vertex
        if nbox is not box and id(nbox) not in centred:   # once per box (a neuron split's
            centred[id(nbox)] = nbox                          # children share their parent's)
            centre = tuple((lo + hi) / 2 for lo, hi in nbox)
            v = value(centre)
            if v > lower:
                lower, point = v, centre
        wants_lp = (unstable or splits or engine.halfspaces) and bnd > cut() and engine.lp and (
            unstable <= 64 or not input_splits)
        spent = wants_lp and budget.exhausted()     # read once: a second reading could differ
        if spent and holder is not root:
            # a child whose LP the budget leaves out would keep its symbolic or differential
            # bound, up to 1.28x its parent's LP bound on digits 64-32-10, and hold the
            # objective's upper bound (each slice's last split, measured 2026-12-03): as a
            # budget stop inside the split, its parent stays a leaf instead
            raise BudgetExhausted(str(budget.reason))
        if wants_lp and not spent:
            keep: list | None = [] if _WARM else None
            got = _lp_bound(Ws, bs, nbox, ivs, c, engine.sym, time_limit=budget.remaining(),
                            template=engine.template, lines=engine.pair_lines(nbox, splits),
                            halfspaces=engine.halfspaces, bound=bnd, tight=unstable == 0, memo=engine.lp_memo,
                            target=cut(), basis=warm, keep=keep,
                            separator=engine.separator if unstable else None, root=not splits and xdepth == 0,
                            depth=len(splits) + xdepth)
            if keep:
                bases[id(holder)] = keep[0]      # the children's warm start
            if got is None and holder is not root and budget.exhausted():
                raise BudgetExhausted(str(budget.reason))   # HiGHS stopped at the time limit: as above
            if got is not None:
                lb, y, x = got
                if lb is None:
                    holder.clear()
                    holder.update({"empty": "dual", **_multipliers(y)})
                    if recs:
                        holder["tightened"] = recs
                    return
                if lb < bnd:
                    holder.clear()
                    holder.update({"bound": lb, **_multipliers(y)})
                    bnd = lb
                if x is not None:
                    for p in (_round_into(x, nbox), _vertex(x, nbox)):
                        if engine.float_value(p, c) < float(lower) - _SKIP * (1 + abs(float(lower))):
                            continue           # floats only skip a proposal, never decide
                        v = value(p)
                        if v > lower:
                            lower, point = v, p
                if x is not None and unstable == 0 and bnd > cut():
                    if engine.halfspaces:    # the region's exact LP with the domain's rows
                        fb = _exact_region(Ws, bs, nbox, ivs, c, engine.sym, value, holder, bnd,
                                           engine.halfspaces)
                        if fb is None:
                            if recs:
                                holder["tightened"] = recs
                            return
                        bnd = fb
                    else:
                        bnd = _exact_leaf(Ws, bs, nbox, ivs, c, x, engine.sym, value, holder, bnd)
                        if bnd[1] is None and bnd[0] > cut():
                            # no exact optimum from HiGHS's point: the region may be empty in
                            # exact arithmetic where HiGHS found a point (s37 eps audit O2: a
                            # face of the homogenised tail kept 2^-40 above its threshold 0, so `equiv
                            # --epsilon` was undecided at 1.01x the maximum, decided at 1x):
                            # the whole region's exact LP, with its Farkas proof
                            fb = _exact_region(Ws, bs, nbox, ivs, c, engine.sym, value, holder, bnd[0])
                            if fb is None:
                                if recs:
                                    holder["tightened"] = recs
                                return
                            bnd = fb
                    if bnd[1] is not None and bnd[1][0] > lower:
                        lower, point = bnd[1]
                    bnd = bnd[0]
            if (got is None or got[2] is None) and unstable == 0 and bnd > cut():
                # HiGHS gave no point at a leaf with nothing left to split (a thin region, or
                # one it calls infeasible without a usable proof): the region's exact LP decides
                # (found by a fuzz run 2026-12-02: a split-neuron pair kept 55/168 over 1.5e-9)
                # (with the domain's half-spaces too: fuzz 2026-12-03, a stable leaf of box ∩
                # {x >= 1} kept the affine bound of its whole box, 73 % above the exact max)
                fb = _exact_region(Ws, bs, nbox, ivs, c, engine.sym, value, holder, bnd, engine.halfspaces)
                if fb is None:
                    if recs:
                        holder["tightened"] = recs
                    return
                bnd, found = fb
                if found is not None and found[0] > lower:
                    lower, point = found
        if recs and unstable == 0 and bnd > cut() and engine.lp and not budget.exhausted():
            # no neuron left to split, but the tightened (grid) intervals keep the LP from
            # reaching the exact value: the LP on the symbolic intervals alone (a leaf without
            # records; its unstable neurons relaxed) recovers exact multipliers
            plain = engine.sym.intervals(nbox, splits)
            got = None if plain is None else _lp_bound(Ws, bs, nbox, plain, c, engine.sym,
                                                       time_limit=budget.remaining(),
                                                       template=engine.template, halfspaces=engine.halfspaces,
                                                       bound=bnd, tight=True, memo=engine.lp_memo)
            if got is not None and got[0] is not None and got[0] < bnd:
                bnd = got[0]
                holder.clear()
                holder.update({"bound": bnd, **_multipliers(got[1])})
                recs = []
        if recs:
            holder["tightened"] = recs
        leaves.append(holder)
        counter += 1
        new = (-bnd, counter, nbox, splits, holder, ivs, unstable, xdepth)
        heapq.heappush(heap, new)
        if plunge:
            pushed[id(holder)] = new

    root: dict = {}
    if state is not None:               # resume: the earlier call's open nodes and best point
        heap, leaves, root = state["heap"], state["leaves"], state["root"]
        bases, centred = state.get("bases", bases), state.get("centred", centred)
        counter, nodes = state["counter"], state["nodes"]
        if state["lower"] > lower:
            lower, point = state["lower"], state["point"]
    else:
        try:
            if at is None:
                open_node(list(box), {}, root)
            else:
                open_node(list(at[0]), dict(at[1]), root, at[2], at[3], at[4])
        except KeyboardInterrupt:       # budget or Ctrl-C before the root's bound: lower only
            budget.interrupt()
            return ObjectiveBound(lower, None, point, None, 0, False,
                                  f"{budget.reason} before the root's bound")
        nodes = 1
    reason, complete = "", False
    dive = None                         # (plunge) the children of the last split
    splits_here = 0
    while True:
        while taken and heap and heap[0][1] in taken:
            taken.discard(heapq.heappop(heap)[1])   # split by a plunge already
        if stop_above is not None and lower > stop_above:
            reason = "a point above the threshold"
            break
        if not heap:
            complete = True
            break
        neg, _, nbox, splits, holder, ivs, unstable, xdepth = heap[0]
        if -neg <= cut():
            complete = True
            break
        if pause_at is not None and -neg <= pause_at and splits_here >= pause_after:
            reason = PAUSED
            break
        if budget.exhausted():
            reason = str(budget.reason)
            break
        entry = None
        if plunge and dive:             # the larger child, taken out of the heap lazily
            kid = min((e for e in (pushed.get(id(k)) for k in dive) if e is not None),
                      key=lambda e: e[0], default=None)
            if kid is not None and -kid[0] > cut():
                entry = kid
                taken.add(kid[1])
                neg, _, nbox, splits, holder, ivs, unstable, xdepth = entry
        dive = None
        pushed.clear()
        if entry is None:
            entry = heapq.heappop(heap)
        arg = None
        if split_count is not None:
            unstable = split_count(ivs)
        widths = [hi - lo for lo, hi in nbox]
        k = max(range(d), key=lambda i: widths[i]) if d else None
        if _SMEAR and holder is not root and input_splits and unstable > xmin and widths[k] > 0 and xdepth < _XDEPTH * d:
            # (the root keeps the widest coordinate: a distributed search halves its cells there,
            # :func:`semialgebraic.distributed.search._halve`, and the halves inherit its subtrees)
            k = engine.smear_axis(nbox, ivs, c)
            k = max(range(d), key=lambda i: widths[i]) if k is None or widths[k] == 0 else k
        if input_splits and unstable > xmin and widths[k] > 0 and xdepth < _XDEPTH * d:
            mid = (nbox[k][0] + nbox[k][1]) / 2
            arg = ("x", k, mid)
        else:
            scored = _ranked(ivs, holder, engine.pair_lines(nbox, splits))
            arg = scored[0][1] if scored else _choose(ivs)
            if _LOOKAHEAD and engine.lp and unstable <= _LP_MAX and \
                    (not scored or scored[0][0] < _LOOK_SHARE * (-neg - cut())):
                arg = _look(engine, nbox, splits, ivs, c, budget) or arg
        if arg is None:
            continue                   # no unstable neuron: the leaf's LP is as tight as it gets
        kids, n_leaves = [{}, {}], len(leaves)
        warm = bases.pop(id(holder), None) if _WARM else None
        try:
            if arg[0] == "x":
                _, k, mid = arg
                for side in (0, 1):
                    child = list(nbox)
                    child[k] = (nbox[k][0], mid) if side == 0 else (mid, nbox[k][1])
                    open_node(child, splits, kids[side], xdepth + 1, warm=warm)
            else:
                for side in (0, 1):
                    open_node(nbox, {**splits, arg: side}, kids[side], xdepth, splits, arg[0], warm=warm)
        except KeyboardInterrupt:       # BudgetExhausted or Ctrl-C: the node stays a leaf
            budget.interrupt()          # with its own (valid) bound; the children are dropped
            del leaves[n_leaves:]
            heap[:] = [e for e in heap if e[4] is not kids[0] and e[4] is not kids[1]]
            heapq.heapify(heap)
            if entry[1] in taken:       # a plunge's child, still in the heap (taken lazily)
                taken.discard(entry[1])
            else:
                heapq.heappush(heap, entry)  # (and it stays open for a resumed call)
            for kd in kids:
                bases.pop(id(kd), None)
            if warm is not None:
                bases[id(holder)] = warm
            reason = str(budget.reason)
            break
        del leaves[next(i for i, lf in enumerate(leaves) if lf is holder)]   # by identity: equal leaves
        holder.clear()
        holder.update({"split": list(arg), "children": kids})
        dive = kids
        nodes += 2
        splits_here += 1
        budget.count()
    if taken:                           # (plunge) a resumed call sees only open nodes
        heap[:] = [e for e in heap if e[1] not in taken]
        heapq.heapify(heap)
    bounds = [lf["bound"] for lf in leaves]
    upper = max(bounds) if bounds else lower
    if upper < lower and (at is None or not at[1]):   # the point of a node with neuron splits
        raise AssertionError("certified upper below an attained value: a bug")   # may lie outside it
    if prune_at is None:
        complete = complete and upper == lower
    return ObjectiveBound(lower, upper, point, root, nodes, complete,
                          reason or ("lower = upper" if upper == lower else
                                     "leaves without unstable neurons left a gap of dual rounding"),
                          extra={"state": {"heap": heap, "leaves": leaves, "root": root, "lower": lower,
                                           "point": point, "counter": counter, "nodes": nodes,
                                           "bases": bases, "centred": centred}})

