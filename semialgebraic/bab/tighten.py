r"""LP-tightened intermediate bounds, each certified by an exact dual vector.

At a node (box, splits) the symbolic intervals (:mod:`.symbolic`) of a hidden layer ``l`` are
intersected with the bounds of its unstable pre-activations over the triangle relaxation of the
layers below (:mod:`.relaxation`, the node's splits and the domain's half-spaces included):
``max ± z_{l,j}`` guessed by HiGHS (one model per layer, the objective changed per neuron: warm
starts) and made rigorous by the exact Neumaier–Shcherbina correction of
:func:`.relaxation.exact_bound_int` on the network cut at neuron ``(l, j)`` (the multipliers of
its own row fixed at ``±1``, so its own interval never enters its bound).  The bound is rounded
outward to the grid of :mod:`.symbolic`; a tightened layer is then fed back into the symbolic
bounds of the layers above (:meth:`.symbolic.SymbolicNet.intervals` with *parent*), which
stabilises neurons and tightens every later relaxation.  The recomputation is incremental: once
a layer changed, each layer above is recomputed once, from the final layers below it, just
before its own LPs (*upto*), and the output layer last — the same numbers as the checker's
replay, which recomputes every layer from the box with the records applied.

On a difference network of two networks of one shape the paired δ ``δ_{l,j} = z_{l,j} −
z_{l,n+j}`` of :mod:`.differential` are tightened the same way (:meth:`Tightener.deltas`):
``max ± δ_{l,j}`` over the triangle relaxation of the layers below *and their pair rows* (the
NeuroDiff lines of :func:`.differential.delta_lines`, from the final δ of those layers), made
rigorous on the network cut at the two rows.  Each layer's δ is final before the layer above
is computed (a hook of :meth:`.differential.DifferentialNet.state`), so nothing is recomputed.

A record (kept by the certificate, re-checked by :mod:`semialgebraic.verify.bab_intermediate`)::

    {"at": [l, j], "hi": u, "upper": {"mu": [...per layer < l], "alpha": [...], "beta": [...]
                                      [, "kappa": [...]]},
                   "lo": v, "lower": {...}}          # either side may be absent

    {"pair": [l, j], "hi": u, "upper": {"mu", "alpha", "beta", "gamma": [...per layer < l],
                                        "eta": [...][, "kappa"]}, "lo": v, "lower": {...}}

``u >= max z_{l,j}`` by the ``upper`` multipliers (objective ``+z``), ``v <= min z_{l,j}`` by
the ``lower`` ones (objective ``−z``); for a pair, of ``δ_{l,j}`` (the two rows weighted ``±1``,
``∓1``; ``gamma``, ``eta`` the pair rows' multipliers).  The δ LPs have their own cap
(``DELTA_CAP`` per node): the pairs of widest δ weighted by the next layer's ``|A|`` first.  Work is counted, not clocked: at most *cap* LPs per node
(the most unstable neurons first, largest ``−lo·hi``), the budget checked between LPs.  A child
of a neuron split at layer ``s`` keeps its parent's records of layers ``<= s`` (their
relaxations are the same numbers) and solves new LPs above ``s`` only.  A layer's new records
are kept only when they pay for the recomputation of the layers above (:func:`_pays`: a neuron
made stable, or a tenth of the layer's unstable width cut).
"""

from __future__ import annotations

from algebra.rationals import Q

from ..budget import checkpoint
from ..lp.floatlp import new_highs, run_highs
from .differential import _meet, delta_lines
from .relaxation import LPTemplate, build_lp, candidates, exact_bound_int, read_duals
from .symbolic import GRID_BITS, down, up

__all__ = ["Tightener", "DEFAULT_CAP", "DELTA_CAP", "ROOT_FACTOR", "layer_of"]

DEFAULT_CAP = 16      # LPs per node (each side of a neuron is one LP)
# δ LPs per node (each side of a pair is one LP); off by default: measured 2026-12-02 (load
# 9–11, CPU s) on ACAS Xu's 1/100 box 0, 90 nodes: upper 2.68375e-5 -> 2.68321e-5 (0.02 %) for
# 57 -> 95 CPU s; 5-50x6-5 full box root: last δ 5.774 -> 5.713 (1 %) for 4.6 -> 11.7 CPU s
# (the LP over the same pair lines gains 0–20 % per δ on layer 1, 1–3 % above)
DELTA_CAP = 0
ROOT_FACTOR = 4       # the root gets ROOT_FACTOR · cap LPs
_ZERO, _ONE = Q(0), Q(1)
_GRID = 1 << GRID_BITS


class _Cut:
    """The integer layers of :class:`.symbolic.IntLayers` cut at layer ``l``: layers ``0 … l −
    1`` and the rows *rows* of layer ``l`` (what :func:`exact_bound_int` reads)."""

    def __init__(self, sym, l, rows):
        self.L = l + 1
        self.Nrows = list(sym.Nrows[:l]) + [sym.Nrows[l][rows]]
        self.den = list(sym.den[:l + 1])
        self.bnum = list(sym.bnum[:l]) + [sym.bnum[l][rows]]
        self.bden = list(sym.bden[:l + 1])


class Tightener:
    """The LP-tightened intervals of one network (rows *Ws*, biases *bs*, its
    :class:`.symbolic.SymbolicNet` *sym*) on a domain with *halfspaces*; *cap* LPs per node."""

    def __init__(self, Ws, bs, sym, halfspaces=(), cap: int = DEFAULT_CAP, delta_cap: int | None = None):
        self.Ws, self.bs, self.sym = Ws, bs, sym
        self.halfspaces = tuple(halfspaces)
        self.cap = cap
        self.delta_cap = DELTA_CAP if delta_cap is None else delta_cap
        self._templates: dict = {}
        self._colw: dict = {}
        self.lps = 0                          # LPs solved (work done, for reports and tests)

    def _template(self, l):
        t = self._templates.get(l)
        if t is None:
            t = self._templates[l] = LPTemplate(self.Ws[:l + 1], self.bs[:l + 1])
        return t

    def node(self, box, splits, ivs, inherited=(), layer=None, memo=None):
        """``(intervals, records)`` of a node whose symbolic intervals are *ivs*; *inherited*
        (records of layers ``<= layer``, the split's layer, from the parent) are applied first,
        new LPs run on the layers above *layer* (every hidden layer from 1 without a parent;
        from 0 with half-spaces).  Intervals None: a tightened interval is empty.  *memo* (a
        dict kept by the caller per node) keeps the records and the neurons tried so far, so a
        node cut by the budget resumes where it stopped (work counted, not clocked)."""
        L = len(ivs)
        memo = {} if memo is None else memo
        tried = memo.setdefault("tried", set())
        mine = memo.setdefault("records", [])
        inherited = [r for r in inherited if "at" in r]       # a pair's records: :meth:`deltas`
        records = list(inherited) + [r for r in mine if (r["at"][0], r["at"][1]) not in
                                     {(q["at"][0], q["at"][1]) for q in inherited}]
        if layer is None:
            first = start = 0 if self.halfspaces else 1
            budget = self.cap * ROOT_FACTOR if not splits else self.cap
        else:
            first, start, budget = layer, layer + 1, self.cap
        budget -= 2 * len(tried)
        dirty = False               # a layer below changed: the layers above are recomputed
        for l in range(first, L - 1):
            if dirty:               # layer l from the final layers below it, once (incremental)
                ivs = self.sym.intervals(box, splits, parent=ivs, layer=l, reuse_layer=False, upto=l)
                if ivs is None:
                    return None, records
            changed = False
            for rec in records:
                if rec["at"][0] == l:
                    changed |= _apply(ivs[l], rec)
            if l >= start and budget > 0:
                done = {j for k, j in tried if k == l} | {r["at"][1] for r in records if r["at"][0] == l}
                todo = self._pick(ivs[l], done, -(-budget // (L - 1 - l)))
                new = []
                for j, rec in self._solve(box, ivs, l, todo):
                    budget -= 2
                    tried.add((l, j))
                    if rec is not None:
                        new.append(rec)
                if _pays(ivs[l], new):          # else dropped: no recomputation of the layers above
                    for rec in new:
                        mine.append(rec)
                        records.append(rec)
                        changed |= _apply(ivs[l], rec)
                    # a resumed node (*memo*) may hold records of the layers above, proved over
                    # this layer's wider intervals: the checker replays them over the narrowed
                    # ones (a neuron made stable refuses their multiplier), so they are dropped
                    # and their neurons may be solved again (bench_bab, ACAS Xu box 0, 2026-12-02)
                    stale = {id(r) for r in mine if r["at"][0] > l}
                    if stale:
                        mine[:] = [r for r in mine if id(r) not in stale]
                        records[:] = [r for r in records if id(r) not in stale]
                        tried -= {(k, j) for k, j in tried if k > l}
            if any(lo > hi for lo, hi in ivs[l]):
                return None, records
            dirty |= changed
        if dirty:                   # the output layer
            ivs = self.sym.intervals(box, splits, parent=ivs, layer=L - 1, reuse_layer=False, upto=L - 1)
        return ivs, records

    @staticmethod
    def _pick(layer, done, lps):
        """The unstable neurons of *layer* not in *done*, largest ``−lo·hi`` first, ``lps // 2``
        of them (two LPs each)."""
        cand = [(-lo * hi, j) for j, (lo, hi) in enumerate(layer) if lo < 0 < hi and j not in done]
        cand.sort(key=lambda t: (-t[0], t[1]))
        return [j for _, j in cand[:max(lps // 2, 0)]]

    def _solve(self, box, ivs, l, todo, current=None, pairs=None):
        """``(j, record or None)`` for the neurons *todo* of layer *l* (one HiGHS model, two
        objectives ``± z_{l,j}`` each) or, with *pairs* (the pair lines ``(su, tu, sl, tl)`` of
        the layers below, :func:`.differential.delta_lines`), for the pairs *todo* (objectives
        ``± δ_{l,j}``, the pair rows of the layers below in the model); None: neither side
        beat *current* (default: the layer's intervals)."""
        if not todo:
            return
        t = self._template(l)
        n = len(ivs[l])
        current = ivs[l] if current is None else current
        lp, tags = build_lp(t, box, ivs[:l] + [[(_ZERO, _ZERO)] * n], [_ZERO] * n, pairs,
                            self.halfspaces, free_top=True)
        h = new_highs()
        h.passModel(lp)
        for j in todo:
            rows = [j] if pairs is None else [j, n // 2 + j]
            cut_ivs = ivs[:l] + [[(_ZERO, _ZERO)] * len(rows)]
            rec = {"at" if pairs is None else "pair": [l, j]}
            for sign in (1, -1):
                checkpoint()                 # the budget, between LPs
                c = [Q(sign)] if pairs is None else [Q(sign), Q(-sign)]
                for r, cr in zip(rows, c):
                    h.changeColCost(t.zoff[l] + r, float(cr))
                run_highs(h)
                self.lps += 1
                status, _, duals = read_duals(h, t, tags, pairs, self.halfspaces)
                if status != "optimal":
                    continue
                got = self._exact(box, cut_ivs, l, rows, c, duals, pairs)
                lo, hi = current[j]
                if sign == 1 and up(got[0]) < hi:
                    rec["hi"], rec["upper"] = up(got[0]), got[1]
                elif sign == -1 and down(-got[0]) > lo:
                    rec["lo"], rec["lower"] = down(-got[0]), got[1]
            for r in rows:
                h.changeColCost(t.zoff[l] + r, 0.0)
            yield j, (rec if len(rec) > 1 else None)

    def _exact(self, box, cut_ivs, l, rows, c, duals, pairs=None):
        """The least exact bound of ``c · z_{l, rows}`` over the candidate multipliers of
        *duals* (their layer *l* replaced by *c*: the rows' own weights) and those multipliers
        (with *pairs*, the pair rows' ``gamma``, ``eta`` too)."""
        cut = _Cut(self.sym, l, rows)
        mu, al, be = duals[0], duals[1], duals[2]
        ga, et = (duals[3][:l], duals[4][:l]) if pairs is not None else (None, None)
        ka = duals[5] if len(duals) > 5 else None
        part = (mu[:l] + [[0.0] * len(rows)], al[:l], be[:l], ga, et, ka)
        # HiGHS's multiplier of the first row is ±c: it tells the convention (one candidate,
        # rounded to the grid; both signs when it is unclear)
        own = mu[l][rows[0]] * float(c[0])
        signs = (1,) if own > 0.5 else (-1,) if own < -0.5 else (1, -1)
        best = None
        for y in candidates(cut_ivs, part, dens=(_GRID,), signs=signs):
            ys = (y[0][:l] + [c], y[1], y[2])
            gamma, eta, kappa = (y[3], y[4], y[5]) if len(y) > 3 else (None, None, None)
            val = exact_bound_int(cut, box, cut_ivs, c, *ys, gamma=gamma, eta=eta, kappa=kappa,
                                  lines=pairs, halfspaces=self.halfspaces)
            if best is None or val < best[0]:
                mult = {"mu": ys[0][:l], "alpha": ys[1], "beta": ys[2]}
                if gamma is not None:
                    mult["gamma"], mult["eta"] = gamma, eta
                if kappa is not None:
                    mult["kappa"] = kappa[0]
                best = (val, mult)
        return best

    # -- the paired δ of a difference network ---------------------------------------------
    def deltas(self, diff, box, ivs, parent=None, layer=None, inherited=(), memo=None, root=False):
        """``(state, records)``: the :meth:`.differential.DifferentialNet.state` of a node
        whose final intervals are *ivs*, the δ of its hidden layers tightened by LPs: ``max ±
        δ_{l,j}`` (``δ = z_{l,j} − z_{l,n+j}``, neuron ``j`` of a and its copy in b) over the
        triangle relaxation of the layers below *with their pair rows* (the lines of
        :func:`.differential.delta_lines` from the final δ below), guessed by HiGHS, made
        rigorous exactly (:func:`.relaxation.exact_bound_int` on the network cut at the two
        rows, their multipliers fixed at ``±1``) and rounded outward to the grid: records
        ``{"pair": [l, j], "hi", "upper", "lo", "lower"}`` (multipliers with ``gamma``,
        ``eta``), re-proved by :mod:`semialgebraic.verify.bab_intermediate`.  Each layer's δ
        is final before the layer above is computed (:meth:`~.differential.DifferentialNet.
        state`'s hook), so nothing is recomputed.  *parent* (the parent's state) and *layer*
        (the split's layer) as in :meth:`node`: the parent's δ records of layers ``<= layer``
        (in *inherited*) apply, new LPs run above *layer* (from layer 1 without a parent);
        ``delta_cap`` LPs per node (``ROOT_FACTOR`` times that at a *root*), the pairs of
        widest δ weighted by the next layer's weights first, pairs whose neurons are both
        inactive skipped (their δ is unseen above).  *memo* as in :meth:`node`."""
        memo = {} if memo is None else memo
        known = memo.setdefault("pairs", {})      # (l, j) -> record or None: LPs done here
        mine = [r for r in inherited if "pair" in r]
        if self.delta_cap <= 0 and not mine and not any(known.values()):
            return diff.state(box, ivs, parent=parent, layer=layer or 0), []
        L = len(ivs)
        start = 1 if layer is None else layer + 1
        budget = [self.delta_cap * (ROOT_FACTOR if root else 1) - 2 * len(known)]
        below: list = []                          # pair lines of the layers below, exact
        records = list(mine)

        def hook(l, d, out):
            while len(below) < l:
                k = len(below)
                n = len(ivs[k]) // 2
                below.append([_line(delta_lines(ivs[k][j], ivs[k][n + j], out[k][j])) for j in range(n)])
            d = list(d)
            for rec in mine + [r for (k, _), r in known.items() if k == l and r is not None]:
                if rec["pair"][0] == l:
                    _apply_pair(d, rec)
            records.extend(r for (k, _), r in known.items() if k == l and r is not None)
            if l >= start and budget[0] > 0:
                done = {j for k, j in known if k == l}
                todo = self._pick_pairs(diff, ivs[l], d, l, done, -(-budget[0] // (L - 1 - l)))
                for j, rec in self._solve(box, ivs, l, todo, d, below[:l]):
                    budget[0] -= 2
                    known[(l, j)] = rec
                    if rec is not None:
                        records.append(rec)
                        _apply_pair(d, rec)
            return d

        state = diff.state(box, ivs, parent=parent, layer=layer or 0, hook=hook)
        return state, records

    def _pick_pairs(self, diff, layer, d, l, done, lps):
        """The pairs of layer *l* not in *done* whose δ (*d*) matters most above: width times
        the next layer's column sum of ``|A|`` (floats: they only choose), ``lps // 2`` of
        them; pairs with both neurons inactive (``Δh = 0``) are skipped."""
        w = self._colw.get(l)
        if w is None:
            nxt = diff.A[l + 1]
            w = self._colw[l] = [sum(abs(float(row[j])) for row in nxt) for j in range(len(d))]
        n = len(d)
        cand = []
        for j, (dl, du) in enumerate(d):
            if j in done or not dl < du or (layer[j][1] <= 0 and layer[n + j][1] <= 0):
                continue
            cand.append((float(du - dl) * w[j], j))
        cand.sort(key=lambda t: (-t[0], t[1]))
        return [j for _, j in cand[:max(lps // 2, 0)]]


def layer_of(rec):
    """The layer of an intermediate-bound record (a neuron's ``"at"`` or a pair's ``"pair"``)."""
    return (rec["at"] if "at" in rec else rec["pair"])[0]


def _line(lines):
    """``(su, tu, sl, tl)`` of :func:`.differential.delta_lines`' ``((su, tu), (sl, tl), …)``."""
    (su, tu), (sl, tl), _ = lines
    return su, tu, sl, tl


def _apply_pair(d, rec):
    """Intersect the δ of the record's pair in *d* (a layer, changed in place) with the
    record's bounds (kept when that would empty it, as :func:`.differential._meet`)."""
    j = rec["pair"][1]
    d[j] = _meet(d[j], rec.get("lo", d[j][0]), rec.get("hi", d[j][1]))


def _pays(row, new, share=Q(1, 10)):
    """Whether the new records of a layer are worth a recomputation of the layers above: one
    neuron at least made stable, or the unstable intervals' total width cut by *share*."""
    if not new:
        return False
    total = sum((hi - lo for lo, hi in row if lo < 0 < hi), _ZERO)
    cut = _ZERO
    for rec in new:
        lo, hi = row[rec["at"][1]]
        nlo, nhi = max(lo, rec.get("lo", lo)), min(hi, rec.get("hi", hi))
        if nlo >= 0 or nhi <= 0:
            return True
        cut += (hi - lo) - (nhi - nlo)
    return cut >= share * total


def _apply(row, rec):
    """Intersect the interval of the record's neuron in *row* (a layer, changed in place) with
    the record's bounds; whether it changed."""
    j = rec["at"][1]
    lo, hi = row[j]
    nlo, nhi = max(lo, rec.get("lo", lo)), min(hi, rec.get("hi", hi))
    row[j] = (nlo, nhi)
    return (nlo, nhi) != (lo, hi)
