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
stabilises neurons and tightens every later relaxation.

A record (kept by the certificate, re-checked by :mod:`semialgebraic.verify.bab_intermediate`)::

    {"at": [l, j], "hi": u, "upper": {"mu": [...per layer < l], "alpha": [...], "beta": [...]
                                      [, "kappa": [...]]},
                   "lo": v, "lower": {...}}          # either side may be absent

``u >= max z_{l,j}`` by the ``upper`` multipliers (objective ``+z``), ``v <= min z_{l,j}`` by
the ``lower`` ones (objective ``−z``).  Work is counted, not clocked: at most *cap* LPs per node
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
from .relaxation import LPTemplate, build_lp, candidates, exact_bound_int, read_duals
from .symbolic import GRID_BITS, down, up

__all__ = ["Tightener", "DEFAULT_CAP", "ROOT_FACTOR"]

DEFAULT_CAP = 16      # LPs per node (each side of a neuron is one LP)
ROOT_FACTOR = 4       # the root gets ROOT_FACTOR · cap LPs
_ZERO, _ONE = Q(0), Q(1)
_GRID = 1 << GRID_BITS


class _Cut:
    """The integer layers of :class:`.symbolic.IntLayers` cut at neuron ``(l, j)``: layers
    ``0 … l − 1`` and the single row ``j`` of layer ``l`` (what :func:`exact_bound_int` reads)."""

    def __init__(self, sym, l, j):
        self.L = l + 1
        self.Nrows = list(sym.Nrows[:l]) + [sym.Nrows[l][[j]]]
        self.den = list(sym.den[:l + 1])
        self.bnum = list(sym.bnum[:l]) + [sym.bnum[l][[j]]]
        self.bden = list(sym.bden[:l + 1])


class Tightener:
    """The LP-tightened intervals of one network (rows *Ws*, biases *bs*, its
    :class:`.symbolic.SymbolicNet` *sym*) on a domain with *halfspaces*; *cap* LPs per node."""

    def __init__(self, Ws, bs, sym, halfspaces=(), cap: int = DEFAULT_CAP):
        self.Ws, self.bs, self.sym = Ws, bs, sym
        self.halfspaces = tuple(halfspaces)
        self.cap = cap
        self._templates: dict = {}
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
        records = list(inherited) + [r for r in mine if (r["at"][0], r["at"][1]) not in
                                     {(q["at"][0], q["at"][1]) for q in inherited}]
        if layer is None:
            first = start = 0 if self.halfspaces else 1
            budget = self.cap * ROOT_FACTOR if not splits else self.cap
        else:
            first, start, budget = layer, layer + 1, self.cap
        budget -= 2 * len(tried)
        for l in range(first, L - 1):
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
            if any(lo > hi for lo, hi in ivs[l]):
                return None, records
            if changed and l + 1 < L:
                # layer l + 1 is recomputed from the tightened layer l (not reused)
                ivs = self.sym.intervals(box, splits, parent=ivs, layer=l + 1, reuse_layer=False)
                if ivs is None:
                    return None, records
        return ivs, records

    @staticmethod
    def _pick(layer, done, lps):
        """The unstable neurons of *layer* not in *done*, largest ``−lo·hi`` first, ``lps // 2``
        of them (two LPs each)."""
        cand = [(-lo * hi, j) for j, (lo, hi) in enumerate(layer) if lo < 0 < hi and j not in done]
        cand.sort(key=lambda t: (-t[0], t[1]))
        return [j for _, j in cand[:max(lps // 2, 0)]]

    def _solve(self, box, ivs, l, todo):
        """``(j, record or None)`` for the neurons *todo* of layer *l* (one HiGHS model, two
        objectives each; None: neither side beat the symbolic interval)."""
        if not todo:
            return
        t = self._template(l)
        n = len(ivs[l])
        top = ivs[:l] + [[(_ZERO, _ZERO)] * n]
        lp, tags = build_lp(t, box, top, [_ZERO] * n, None, self.halfspaces, free_top=True)
        h = new_highs()
        h.passModel(lp)
        cut_ivs = ivs[:l] + [[(_ZERO, _ZERO)]]
        for j in todo:
            rec = {"at": [l, j]}
            col = t.zoff[l] + j
            for sign, key in ((1, "upper"), (-1, "lower")):
                checkpoint()                 # the budget, between LPs
                h.changeColCost(col, float(sign))
                run_highs(h)
                self.lps += 1
                status, _, duals = read_duals(h, t, tags, None, self.halfspaces)
                if status != "optimal":
                    continue
                got = self._exact(box, cut_ivs, l, j, sign, duals)
                lo, hi = ivs[l][j]
                if sign == 1 and up(got[0]) < hi:
                    rec["hi"], rec["upper"] = up(got[0]), got[1]
                elif sign == -1 and down(-got[0]) > lo:
                    rec["lo"], rec["lower"] = down(-got[0]), got[1]
            h.changeColCost(col, 0.0)
            yield j, (rec if len(rec) > 1 else None)

    def _exact(self, box, cut_ivs, l, j, sign, duals):
        """The least exact bound of ``sign · z_{l,j}`` over the candidate multipliers of *duals*
        (their last layer replaced by the row's own ``sign``) and those multipliers."""
        cut = _Cut(self.sym, l, j)
        c = [Q(sign)]
        mu, al, be = duals[0], duals[1], duals[2]
        ka = duals[5] if len(duals) > 5 else None
        part = (mu[:l] + [[0.0]], al[:l], be[:l], None, None, ka)
        # HiGHS's multiplier of the neuron's own row is ±sign: it tells the convention (one
        # candidate, rounded to the grid; both signs when it is unclear)
        own = mu[l][j] * sign
        signs = (1,) if own > 0.5 else (-1,) if own < -0.5 else (1, -1)
        best = None
        for y in candidates(cut_ivs, part, dens=(_GRID,), signs=signs):
            ys = (y[0][:l] + [c], y[1], y[2])
            kappa = y[5] if len(y) > 5 else None
            val = exact_bound_int(cut, box, cut_ivs, c, *ys, kappa=kappa, halfspaces=self.halfspaces)
            if best is None or val < best[0]:
                mult = {"mu": ys[0][:l], "alpha": ys[1], "beta": ys[2]}
                if kappa is not None:
                    mult["kappa"] = kappa[0]
                best = (val, mult)
        return best


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
