"""Float probe of the bounds of ACAS Xu against its float16 copy (issue 15, the full box's upper
side): what optimised lower slopes, ideal intermediate bounds and other input-split rules *could*
give, measured in floats before anything is built exactly.  Nothing here is certified: torch
float64, the search's rules replayed (DeepPoly lines of ``D = a − b``, the δ chain of
``semialgebraic/bab/differential.py``: its lines of ``relu(z_a) − relu(z_b)`` in δ and DeepPoly on
``h_b``, back-substituted through the network of ``(δ, z_b)``; the plain interval-rule chain is
not met, so the root reads 155.8 where the exact search's reads ~98).

    python benchmarks/probe_acas.py slopes [--iters 60]   # DeepPoly vs α-CROWN slopes
    python benchmarks/probe_acas.py ideal                 # δ fed with sampled z ranges
    python benchmarks/probe_acas.py splits [--n 256] [--rules widest,smear,look]

``slopes``: per cube (the full box, then cubes of relative width 1/4, 1/16 around the float
maximiser) the objective ``max |a_o − b_o|`` and each layer's largest |δ| with DeepPoly's lower
slopes (0 or 1) and with α-CROWN's (any slope in [0, 1], one per neuron and bound target,
projected Adam on the sum of a layer's bounds) for the z intervals of ``D``, for ``h_b`` in the
δ network, or both; ``--shared`` also one slope per neuron shared by every target, optimised
end to end on the objective.  ``ideal`` (unsound, a ceiling): the δ chain fed with the sampled
ranges of ``z`` (200 000 points) instead of its symbolic intervals: how far any tightening of the
intermediate z bounds (α-CROWN, LP tightening) could take δ.  ``splits``: best-first input
splitting of the whole box on the float bound, the axis by the widest coordinate, the search's
smear, or a lookahead (the axis whose larger half has the least bound, 10 bounds a split).

Measured 2026-12-03 (load 4–6, 2 cores shared): see the module docstring of
``semialgebraic/bab/differential.py`` ("What does not bite").  torch is imported in ``main``.
"""

from __future__ import annotations

import argparse
import heapq
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from algebra.io.nnet import load_nnet, nnet_input_box   # noqa: E402
from algebra.kernel import difference_network          # noqa: E402
from algebra.rationals import Q                         # noqa: E402
from bench_bab import float16_copy                      # noqa: E402
from semialgebraic.bab.differential import DifferentialNet  # noqa: E402

NNET = Path(__file__).resolve().parent / "data" / "ACASXU_run2a_1_1_batch_2000.nnet"
POINT = [-0.3162, -0.2379, -0.3577, 0.4881, 0.4866]   # the float maximiser (differential.py)


class Probe:
    """Float copies of ``D = a − b`` and of its δ network, and their bounds over a box."""

    def __init__(self, torch, path=NNET):
        self.t = torch
        a = load_nnet(str(path))
        D = self.difference = difference_network(a, float16_copy(a))
        Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
        f = lambda M: torch.tensor([[float(v) for v in r] for r in M])   # noqa: E731
        g = lambda v: torch.tensor([float(x) for x in v])               # noqa: E731
        self.W, self.b = [f(W) for W in Ws], [g(v) for v in bs]
        T = DifferentialNet(Ws, bs).T
        self.TW, self.Tb = [f(W) for W in T.Ws], [g(v) for v in T.bs]
        self.L = len(self.W)
        self.full = nnet_input_box(a)

    def box(self, w=None):
        """``(lo, hi)`` of the full box, or of the cube of relative width *w* around POINT."""
        t = self.t
        lo = t.tensor([float(u) for u, _ in self.full]); hi = t.tensor([float(v) for _, v in self.full])
        if w is None:
            return lo, hi
        p, r = t.tensor(POINT), (hi - lo) * w / 2
        return t.maximum(lo, p - r), t.minimum(hi, p + r)

    # -- back-substitution with given lower slopes -------------------------------------------
    def _back(self, W, b, lines, l, lo_x, hi_x, alphas=None):
        """Upper bounds of ``±`` every row of layer *l*; ``lines[k] = (su, tu, sl, tl, free)``;
        *alphas[k]* (rows × neurons) replaces ``sl`` where *free*."""
        t = self.t
        n = W[l].shape[0]
        lam = t.cat([t.eye(n), -t.eye(n)])
        C, const = lam @ W[l], lam @ b[l]
        for k in range(l - 1, -1, -1):
            su, tu, sl, tl, free = lines[k]
            slm = sl.expand_as(C)
            if alphas is not None:
                slm = t.where(free.expand_as(C), alphas[k].clamp(0, 1), slm)
            pos = C > 0
            const = const + t.where(pos, C * tu, C * tl).sum(1)
            C = t.where(pos, C * su, C * slm)
            const = const + C @ b[k]
            C = C @ W[k]
        c, r = (lo_x + hi_x) / 2, (hi_x - lo_x) / 2
        return const + C @ c + C.abs() @ r

    def _optimised(self, W, b, lines, l, lo_x, hi_x, iters, lr=0.1):
        t = self.t
        ub = self._back(W, b, lines, l, lo_x, hi_x)
        if not iters:
            return ub
        rows = 2 * W[l].shape[0]
        al = [lines[k][2].expand(rows, -1).clone().requires_grad_(True) for k in range(l)]
        opt, best = t.optim.Adam(al, lr=lr), ub.detach().clone()
        for _ in range(iters):
            u = self._back(W, b, lines, l, lo_x, hi_x, al)
            best = t.minimum(best, u.detach())
            opt.zero_grad(); u.sum().backward(); opt.step()
            with t.no_grad():
                for x in al:
                    x.clamp_(0, 1)
        return best

    def _deeppoly(self, lo, hi):
        t = self.t
        uns, act = (lo < 0) & (hi > 0), lo >= 0
        su = t.where(act, 1.0, t.where(uns, hi / (hi - lo).clamp_min(1e-300), 0.0))
        sl = t.where(act, 1.0, t.where(uns & (hi > -lo), 1.0, 0.0))
        return su, t.where(uns, -su * lo, 0.0), sl, t.zeros_like(lo), uns

    def intervals(self, lo_x, hi_x, iters=0):
        """The pre-activation intervals of ``D`` (CROWN met with interval arithmetic)."""
        t, W, b = self.t, self.W, self.b
        c, r = (lo_x + hi_x) / 2, (hi_x - lo_x) / 2
        m, rad = W[0] @ c + b[0], W[0].abs() @ r
        ivs, lines = [(m - rad, m + rad)], []
        for l in range(1, self.L):
            lines.append(self._deeppoly(*ivs[-1]))
            n = W[l].shape[0]
            ub = self._optimised(W, b, lines, l, lo_x, hi_x, iters)
            hl, hh = ivs[-1][0].clamp_min(0), ivs[-1][1].clamp_min(0)
            m, rad = W[l] @ ((hl + hh) / 2) + b[l], W[l].abs() @ ((hh - hl) / 2)
            ivs.append((t.maximum(-ub[n:], m - rad), t.minimum(ub[:n], m + rad)))
        return ivs

    def deltas(self, lo_x, hi_x, ivs, iters=0):
        """Per layer the δ interval (the last: ``a − b``) by the δ network's back-substitution."""
        t, W, b, L = self.t, self.TW, self.Tb, self.L
        out, lines = [], []
        for l in range(L):
            lo, hi = ivs[l]
            n = len(lo) // 2 if l < L - 1 else len(lo)
            if l == 0:
                c, r = (lo_x + hi_x) / 2, (hi_x - lo_x) / 2
                m, rad = W[0] @ c + b[0], W[0].abs() @ r
                d = ((m - rad)[:n], (m + rad)[:n])
            else:
                ub = self._optimised(W, b, lines, l, lo_x, hi_x, iters)
                k = W[l].shape[0]
                d = (-ub[k:][:n], ub[:n])
            if l == L - 1:
                out.append((t.maximum(d[0], lo), t.minimum(d[1], hi)))
                break
            d = (t.maximum(d[0], lo[:n] - hi[n:]), t.minimum(d[1], hi[:n] - lo[n:]))
            out.append(d)
            (su, tu), (sl, tl) = _delta_lines(t, lo[:n], hi[:n], lo[n:], hi[n:], *d)
            sub, tub, slb, tlb, unsb = self._deeppoly(lo[n:], hi[n:])
            free = t.cat([t.zeros(n, dtype=t.bool), unsb])
            lines.append((t.cat([su, sub]), t.cat([tu, tub]), t.cat([sl, slb]), t.cat([tl, tlb]), free))
        return out

    def objective(self, ds):
        t = self.t
        return float(t.maximum(ds[-1][1], -ds[-1][0]).max())

    def sampled(self, lo_x, hi_x, N=200_000, seed=0):
        """Sampled ranges of z per layer and the sampled largest |δ| per layer."""
        t = self.t
        g = t.Generator().manual_seed(seed)
        h = lo_x + (hi_x - lo_x) * t.rand(N, len(lo_x), generator=g)
        ranges, dmax = [], []
        for l in range(self.L):
            z = h @ self.W[l].T + self.b[l]
            ranges.append((z.min(0).values, z.max(0).values))
            n = z.shape[1] // 2 if l < self.L - 1 else 0
            dmax.append(float((z[:, :n] - z[:, n:]).abs().max()) if n else float(z.abs().max()))
            h = z.clamp_min(0)
        return ranges, dmax


def _delta_lines(t, la, ua, lb, ub, dl, du):
    """:func:`semialgebraic.bab.differential.delta_lines` in floats, vectorised."""
    def meet(lo, hi, l2, h2, mask=None):
        nl, nh = t.maximum(lo, l2), t.minimum(hi, h2)
        ok = nl <= nh if mask is None else (nl <= nh) & mask
        return t.where(ok, nl, lo), t.where(ok, nh, hi)
    na, nb = (t.maximum(la, lb + dl), t.minimum(ua, ub + du)), (t.maximum(lb, la - du), t.minimum(ub, ua - dl))
    ok = (na[0] <= na[1]) & (nb[0] <= nb[1])
    la, ua, lb, ub = (t.where(ok, x, y) for x, y in ((na[0], la), (na[1], ua), (nb[0], lb), (nb[1], ub)))
    Z, O = t.zeros_like(dl), t.ones_like(dl)
    lo, hi = t.minimum(Z, dl), t.maximum(Z, du)
    lo, hi = meet(lo, hi, la.clamp_min(0) - ub.clamp_min(0), ua.clamp_min(0) - lb.clamp_min(0))
    lo, hi = meet(lo, hi, t.minimum(dl, la), t.minimum(du, ua), la >= 0)
    lo, hi = meet(lo, hi, t.maximum(dl, -ub), t.maximum(du, -lb), lb >= 0)
    big = t.full_like(dl, float("inf"))
    ups, lows = [(Z, hi)], [(Z, lo)]
    ups.append((O, t.where(la >= 0, Z, big))); lows.append((O, t.where(la >= 0, t.minimum(lb, Z), -big)))
    ups.append((O, t.where(lb >= 0, t.maximum(-la, Z), big))); lows.append((O, t.where(lb >= 0, Z, -big)))
    w = (du - dl).clamp_min(1e-300)
    pos, neg = dl >= 0, du <= 0
    mid = ~pos & ~neg
    su = t.where(pos, O, t.where(neg, Z, du / w)); sl = t.where(pos, Z, t.where(neg, O, -dl / w))
    ups.append((su, t.where(mid, -su * dl, Z))); lows.append((sl, t.where(mid, -sl * du, Z)))
    x = (dl + du) / 2

    def pick(cands, best):
        vals = t.stack([s * x + c for s, c in cands])
        i = (vals.argmin(0) if best == "min" else vals.argmax(0))[None]
        S = t.stack([s for s, _ in cands]).gather(0, i)[0]
        C = t.stack([t.where(t.isfinite(c), c, Z) for _, c in cands]).gather(0, i)[0]
        return S, C
    return pick(ups, "min"), pick(lows, "max")


def _fmt(ds):
    return "[" + ", ".join(f"{float(max(h.max(), -l.min())):.3g}" for l, h in ds) + "]"


def slopes(P, iters, shared):
    for w in (None, 1 / 4, 1 / 16):
        lo_x, hi_x = P.box(w)
        tag = "full box" if w is None else f"cube 1/{round(1 / w)}"
        for zi, di in ((0, 0), (iters, 0), (0, iters), (iters, iters)):
            t0 = time.process_time()
            ds = P.deltas(lo_x, hi_x, P.intervals(lo_x, hi_x, zi), di)
            print(f"{tag}: z slopes {'α' if zi else 'DeepPoly'}, h_b slopes {'α' if di else 'DeepPoly'}: "
                  f"objective {P.objective(ds):.4g}, |δ| per layer {_fmt(ds)}, "
                  f"{time.process_time() - t0:.1f} CPU s", flush=True)
        if shared:
            _shared(P, lo_x, hi_x, tag, iters)


def _shared(P, lo_x, hi_x, tag, iters):
    """One lower slope per neuron of D (every target alike), Adam on the objective end to end."""
    t = P.t
    ivs0 = P.intervals(lo_x, hi_x)
    al = [t.where(h > -l, 1.0, 0.0).clone().requires_grad_(True) for l, h in ivs0[:-1]]
    opt, vals, t0 = t.optim.Adam(al, lr=0.05), [], time.process_time()
    for _ in range(iters):
        c, r = (lo_x + hi_x) / 2, (hi_x - lo_x) / 2
        m, rad = P.W[0] @ c + P.b[0], P.W[0].abs() @ r
        ivs, lines = [(m - rad, m + rad)], []
        for l in range(1, P.L):
            su, tu, _, tl, free = P._deeppoly(*ivs[-1])
            lines.append((su, tu, t.where(free, al[l - 1].clamp(0, 1), su.detach() * 0 + (ivs[-1][0] >= 0)), tl, free))
            n = P.W[l].shape[0]
            ub = P._back(P.W, P.b, lines, l, lo_x, hi_x)
            ivs.append((-ub[n:], ub[:n]))
        ds = P.deltas(lo_x, hi_x, ivs)
        obj = t.maximum(ds[-1][1], -ds[-1][0]).max()
        vals.append(float(obj.detach()))
        opt.zero_grad(); obj.backward(); opt.step()
        with t.no_grad():
            for x in al:
                x.clamp_(0, 1)
    print(f"{tag}: one shared slope per neuron: objective {vals[0]:.4g} -> {min(vals):.4g} "
          f"({iters} steps, {time.process_time() - t0:.1f} CPU s)", flush=True)


def ideal(P):
    for w in (None, 1 / 4, 1 / 16):
        lo_x, hi_x = P.box(w)
        tag = "full box" if w is None else f"cube 1/{round(1 / w)}"
        ranges, dmax = P.sampled(lo_x, hi_x)
        for name, ivs in (("symbolic z", P.intervals(lo_x, hi_x)), ("sampled z (unsound)", ranges)):
            print(f"{tag}: δ from {name}: |δ| per layer {_fmt(P.deltas(lo_x, hi_x, ivs))}", flush=True)
        print(f"{tag}: sampled |δ| per layer [{', '.join(f'{v:.3g}' for v in dmax)}]", flush=True)


def splits(P, n, rules):
    t = P.t

    def bound(lo_x, hi_x):
        ivs = P.intervals(lo_x, hi_x)
        return P.objective(P.deltas(lo_x, hi_x, ivs)), ivs

    def halves(lo_x, hi_x, k):
        m = (lo_x[k] + hi_x[k]) / 2
        h1, l2 = hi_x.clone(), lo_x.clone()
        h1[k] = m; l2[k] = m
        return (lo_x, h1), (l2, hi_x)

    def smear(lo_x, hi_x, ivs):       # Engine.smear_axis (every output) in torch
        g_lo = g_hi = t.eye(P.W[-1].shape[0])
        for l in range(P.L - 1, -1, -1):
            Wp, Wn = P.W[l].clamp_min(0), P.W[l].clamp_max(0)
            g_lo, g_hi = Wp.T @ g_lo + Wn.T @ g_hi, Wp.T @ g_hi + Wn.T @ g_lo
            if l > 0:
                lo, hi = ivs[l - 1][0][:, None], ivs[l - 1][1][:, None]
                g_lo = t.where(lo >= 0, g_lo, t.where(hi <= 0, 0.0, g_lo.clamp_max(0)))
                g_hi = t.where(lo >= 0, g_hi, t.where(hi <= 0, 0.0, g_hi.clamp_min(0)))
        return int(((hi_x - lo_x) * t.maximum(g_lo.abs(), g_hi.abs()).max(1).values).argmax())

    for rule in rules:
        lo_x, hi_x = P.box()
        b0, ivs = bound(lo_x, hi_x)
        heap, count, evals, trace, t0 = [(-b0, 0, lo_x, hi_x, ivs)], 1, 1, [], time.process_time()
        for s in range(1, n + 1):
            _, _, lx, hx, ivs = heapq.heappop(heap)
            if rule == "widest":
                k = int((hx - lx).argmax())
            elif rule == "smear":
                k = smear(lx, hx, ivs)
            else:
                k = min(range(len(lx)), key=lambda j: max(bound(*h)[0] for h in halves(lx, hx, j)))
                evals += 2 * len(lx)
            for h in halves(lx, hx, k):
                bb, iv = bound(*h)
                heapq.heappush(heap, (-bb, count, h[0], h[1], iv)); count += 1; evals += 1
            if s in (16, 64, 256, 1024):
                trace.append(f"{s}: {-heap[0][0]:.4g}")
        print(f"splits by {rule}: largest leaf bound after {', '.join(trace)} splits (root {b0:.4g}); "
              f"{evals} bounds, {time.process_time() - t0:.0f} CPU s", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("slopes", "ideal", "splits"))
    ap.add_argument("--iters", type=int, default=60, help="slopes: projected Adam steps")
    ap.add_argument("--shared", action="store_true", help="slopes: one shared slope per neuron too")
    ap.add_argument("--n", type=int, default=256, help="splits: number of splits")
    ap.add_argument("--rules", default="widest,smear,look", help="splits: axis rules")
    args = ap.parse_args()
    import torch                       # optional: a measurement tool, not a dependency
    torch.set_default_dtype(torch.float64)
    P = Probe(torch)
    if args.what == "slopes":
        slopes(P, args.iters, args.shared)
    elif args.what == "ideal":
        ideal(P)
    else:
        splits(P, args.n, args.rules.split(","))


if __name__ == "__main__":
    main()
