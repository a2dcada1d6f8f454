"""Benchmark of the exact branch and bound (issue 15): ``max |a − b|`` for a net and its float16
copy, one table.

Rows: the digits classifiers 64-32-10 and 64-32-16-10 (sklearn ``MLPClassifier``, relu, seed 0;
float32 weights in ``benchmarks/data/``, made by ``benchmarks/train_digits.py``) on
``[0, 16]^64``; a 5-50x6-5 network on boxes of width ``--width`` around ``--points`` fixed points
and on the full box: the ACAS Xu network of ``--nnet`` (default
``benchmarks/data/ACASXU_run2a_1_1_batch_2000.nnet``, read exactly; its full box is the file's
normalised input box, ``--box file``) and a generated one (He-normal weights, biases of scale
0.01, seeded, float32; full box ``[-1/2, 1/2]^5``).  Per row: the unstable neurons of ``a − b``
at the root (symbolic intervals), the certified interval on max |a − b| and its ratio, nodes,
search time (wall and CPU: on a shared machine the wall budget buys less CPU), the independent check of the certificate written to disk (JSON +
binary sidecar, read back through ``resolve_sidecar``: wall and CPU) and its size; a HiGHS MILP
(big-M from the same certified root intervals, one thread, ``mip_rel_gap=0``, floats, in a
child process, one MILP per output and sign, each an equal share of the row's budget;
``--no-milp`` skips it): its best incumbent and largest dual bound (floats, unverified), wall
and CPU time, status; ``--eps``:
ε-equivalence at 0.99× and 1.01× the certified maximum (when the row is exact); last, the
machine's 1-minute load average when the row ended.

    python benchmarks/bench_bab.py [--timeout 60] [--full-timeout 120] [--points 10]
                                   [--width 1/100] [--no-milp] [--eps]
                                   [--only digits|acas|he] [--nnet PATH] [--full-only]
                                   [--digits 64-32-10|64-32-16-10] [--no-cuts] [--pair-cuts R:P[:D]]
                                   [--boxes 0,3,5]

``--full-only`` runs the full-box rows of acas/he alone (e.g. ``--full-timeout 600``);
``--digits 64-32-10`` one digits row alone (e.g. ``--only digits --timeout 600``);
``--boxes 0,3,5`` runs those small boxes of acas/he alone (numbered as in the table; no
full-box row);
``--no-cuts`` turns the single-neuron cuts of ``semialgebraic/bab/cuts.py`` off (the triangle LP
alone), e.g. to run both side by side under the same load; ``--pair-cuts R:P[:D]`` sets the pair
cuts (R rounds of the P pairs farthest from their graph at the root and at the nodes of at most D
splits, default 0; ``0:0`` none).

``--root`` replaces the search by a report of root bounds (what each relaxation gives before any
split) on the objectives ``±(a_o − b_o)`` of largest differential bound (``--root-objectives``,
default 4): the differential δ bound of ``semialgebraic/bab/differential.py`` by interval rules
alone and with its back-substitution (the search's, exact); the certified root LP (triangle rows,
pair lines, LP-tightened intervals as the search's root; exact Neumaier–Shcherbina bound) without
and with the single-neuron cuts, and with the pair cuts too (``--pair-cuts``, default 1:4); and, in floats (HiGHS, unverified: what a stronger relaxation
*could* give), the same LP plus NeuroDiff's convex approximation of ``relu(z_a) − relu(z_b)`` in
``(z_b, δ)`` (every facet of the hull of its graph over the pair's polygon) and plus the exact
convex hull of ``{(z_a, z_b, relu z_a, relu z_b)}`` per pair (``z_a, z_b`` in their intervals,
``z_a − z_b`` in δ's; Qhull on the vertices of that polygon cut by ``z_a = 0``, ``z_b = 0``) and
plus the convex hull of each unstable neuron's own graph ``{(h_{l−1}, relu z)}`` over the box of
its inputs (what the single-neuron cuts approximate), plus the convex hull of each pair's graph
``{(h_{l−1}, relu z_a, relu z_b)}`` over the box of its inputs (Balas's extended formulation over the four sign regions; only when unstable neurons ×
input dimension <= ``--root-inputs-max``, 4096); last a float sample's max (a lower estimate).  With ``--root-width W`` the ACAS Xu rows are boxes of
width W around the sample maximiser of the full box (the full box too, unless ``--no-root-full``).

With ``--root-depth K`` each objective's row is at the node K splits below the root along the
search's own choice (the neuron of largest LP share, then the child of larger bound; the first
column the LP + cuts bound at each level).

    python benchmarks/bench_bab.py --root [--only digits|acas] [--root-width 1/16] [--no-root-full]
                                   [--root-depth 5]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import tempfile
import time
from pathlib import Path

import numpy as np

from algebra.io.nnet import load_nnet, nnet_input_box
from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q, from_float, to_q
from semialgebraic.bab import diff_bounds, epsilon_equivalent, search
from semialgebraic.bab.relaxation import set_rowwise
from semialgebraic.bab.symbolic import SymbolicNet
from semialgebraic.certificates import write_certificate
from semialgebraic.lp.floatlp import new_highs, run_highs
from semialgebraic.verify import resolve_sidecar, verify

DATA = Path(__file__).parent / "data"


def he_net(widths, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    Ws, bs = [], []
    for i in range(len(widths) - 1):
        W = rng.normal(0, np.sqrt(2 / widths[i]), (widths[i + 1], widths[i])).astype(dtype)
        b = (0.01 * rng.normal(size=widths[i + 1])).astype(dtype)
        Ws.append(W); bs.append(b)
    return Ws, bs


def to_net(Ws, bs, dtype):
    return Network.from_rows([[[from_float(v) for v in row.astype(dtype)] for row in W] for W in Ws],
                             [[from_float(v) for v in b.astype(dtype)] for b in bs])


def float16_copy(net: Network) -> Network:
    """*net* with every weight and bias rounded to the nearest float16 (exactly that value)."""
    return Network.from_rows([[[from_float(np.float16(float(v))) for v in row] for row in W.to_rows()]
                              for W in net.weights],
                             [[from_float(np.float16(float(v))) for v in b] for b in net.biases])


def digits(name):
    z = np.load(DATA / f"digits_{name}.npz")
    L = len([k for k in z.files if k.startswith("W")])
    return [z[f"W{i}"] for i in range(L)], [z[f"b{i}"] for i in range(L)]


def _milp_child(Ws, bs, box, ivs, timeout):
    """``max_o |D_o(x)|`` by a float big-M MILP per output and sign (one thread, gap 0; every
    ``M`` from the same certified root intervals), each given an equal share of *timeout* (it
    was the whole remaining time in turn, so the first objective took all of it and the
    incumbent was output 0's alone; one MILP of ``max t``, ``t <= s·z_o + M(1 − y_os)``, ``Σ y
    = 1``, found worse incumbents than the shares, tried 2026-12-02).  Returns ``(incumbent,
    bound, wall s, cpu s, status)``: the best incumbent and the largest dual bound of the
    objectives (floats, unverified), the status "optimal" when every objective was solved."""
    from highspy import _core as hc
    best, bound, t0, c0 = -np.inf, -np.inf, time.monotonic(), time.process_time()
    L = len(Ws)
    m = len(Ws[-1])
    status = "optimal"
    for k, (o, s) in enumerate((o, s) for o in range(m) for s in (1.0, -1.0)):
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            return best, np.inf, time.monotonic() - t0, time.process_time() - c0, "time limit"
        share = left / (2 * m - k)
        # a MILP: HiGHS's default presolve ("choose") back on
        h = new_highs(threads=1, presolve="choose", mip_rel_gap=0.0, time_limit=float(share))
        inf = hc.kHighsInf
        lo_c, hi_c, integ, rows = [], [], [], []

        def col(lo, hi, kind=0):
            lo_c.append(lo); hi_c.append(hi); integ.append(kind)
            return len(lo_c) - 1
        prev = [col(lo, hi) for lo, hi in box]
        for l in range(L):
            zc = [col(lo, hi) for lo, hi in ivs[l]]
            for j, row in enumerate(Ws[l]):
                ent = {zc[j]: 1.0}
                for i, w in enumerate(row):
                    if w != 0:
                        ent[prev[i]] = ent.get(prev[i], 0.0) - w
                rows.append((ent, bs[l][j], bs[l][j]))
            if l == L - 1:
                out = zc
                break
            hc_ = []
            for j, (lo, hi) in enumerate(ivs[l]):
                hj = col(max(lo, 0.0), max(hi, 0.0))
                hc_.append(hj)
                if lo >= 0:
                    rows.append(({hj: 1.0, zc[j]: -1.0}, 0.0, 0.0))
                elif hi <= 0:
                    pass                                # h is boxed to [0, 0]
                else:
                    dj = col(0.0, 1.0, 1)
                    rows.append(({hj: 1.0, zc[j]: -1.0}, 0.0, inf))
                    rows.append(({hj: 1.0, zc[j]: -1.0, dj: -lo}, -inf, -lo))
                    rows.append(({hj: 1.0, dj: -hi}, -inf, 0.0))
            prev = hc_
        lp = hc.HighsLp()
        n = len(lo_c)
        lp.num_col_, lp.num_row_ = n, len(rows)
        cost = np.zeros(n)
        cost[out[o]] = s
        lp.col_cost_ = cost
        lp.col_lower_ = np.array(lo_c)
        lp.col_upper_ = np.array(hi_c)
        lp.row_lower_ = np.array([r[1] for r in rows], dtype=float)
        lp.row_upper_ = np.array([r[2] for r in rows], dtype=float)
        lp.sense_ = hc.ObjSense.kMaximize
        set_rowwise(lp, [ent for ent, _, _ in rows], n)
        lp.integrality_ = [hc.HighsVarType.kInteger if t else hc.HighsVarType.kContinuous for t in integ]
        h.passModel(lp)
        run_highs(h)
        st = str(h.getModelStatus()).rsplit(".", 1)[-1]
        if st != "kOptimal":
            status = st
        info = h.getInfo()
        best = max(best, info.objective_function_value)
        bound = max(bound, info.mip_dual_bound)
    return best, bound, time.monotonic() - t0, time.process_time() - c0, status


def milp(D, box, ivs, timeout):
    Ws = [[[float(v) for v in row] for row in W.to_rows()] for W in D.weights]
    bs = [[float(v) for v in b] for b in D.biases]
    fb = [(float(lo), float(hi)) for lo, hi in box]
    fi = [[(float(lo), float(hi)) for lo, hi in layer] for layer in ivs]
    with mp.get_context("spawn").Pool(1) as pool:
        return pool.apply(_milp_child, (Ws, bs, fb, fi, timeout))


def check_written(cert):
    """Write *cert* (JSON + sidecar) to a temporary directory, read it back and check it:
    ``(ok, why, wall s, cpu s, bytes on disk)``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cert.json"
        write_certificate(cert, path)
        size = sum(p.stat().st_size for p in Path(tmp).iterdir())
        t, c = time.monotonic(), time.process_time()
        data = resolve_sidecar(json.loads(path.read_text()), path)
        ok, why = verify(data)
        return ok, why, time.monotonic() - t, time.process_time() - c, size


def row(name, a, b, box, args):
    D = difference_network(a, b)
    DW = [W.to_rows() for W in D.weights]
    Db = [list(v) for v in D.biases]
    ivs = SymbolicNet(DW, Db).intervals(box, {})
    unstable = sum(1 for layer in ivs[:-1] for lo, hi in layer if lo < 0 < hi)
    t, c = time.monotonic(), time.process_time()
    r = diff_bounds(a, b, box, timeout=args.timeout_now, verify=False)
    ts, cs = time.monotonic() - t, time.process_time() - c
    if r.upper is None:                    # no root bound within the budget: the lower bound only
        out = (f"| {name} | {unstable} | {float(r.lower):.4e} | none | — | no | {r.nodes} | "
               f"{ts:.1f} ({cs:.1f}) | — | — |")
    else:
        ok, why, tc, cc, size = check_written(r.certificate)
        assert ok, why
        ratio = float(r.upper / r.lower) if r.lower > 0 else float("inf")
        out = (f"| {name} | {unstable} | {float(r.lower):.4e} | {float(r.upper):.4e} | {ratio:.4g} | "
               f"{'yes' if r.complete else 'no'} | {r.nodes} | {ts:.1f} ({cs:.1f}) | {tc:.1f} ({cc:.1f}) | "
               f"{size / 1024:.0f} |")
    if args.milp:
        val, dual, tm, tc, st = milp(D, box, ivs, args.timeout_now)
        inc = f"{val:.4e}" if np.isfinite(val) else "none"
        out += f" [{inc}, {dual:.4e}] | {tm:.1f} ({tc:.1f}) | {st} |"
    if args.eps and r.complete and r.lower > 0:
        for f in (Q(99, 100), Q(101, 100)):
            t = time.monotonic()
            ans, _ = epsilon_equivalent(a, b, box, r.lower * f, timeout=args.timeout_now, verify=False)
            out += f" {ans} | {time.monotonic() - t:.1f} |"
    print(out + f" {os.getloadavg()[0]:.1f} |", flush=True)


def _pair_polygon(la, ua, lb, ub, dl, du):
    """Float vertices ``(z_a, z_b)`` of ``{z_a in [la, ua], z_b in [lb, ub], z_a − z_b in [dl,
    du]}`` cut by ``z_a = 0`` and ``z_b = 0`` (every pairwise crossing of those lines inside)."""
    lines = [(1, 0, la), (1, 0, ua), (0, 1, lb), (0, 1, ub), (1, -1, dl), (1, -1, du), (1, 0, 0), (0, 1, 0)]
    tol = 1e-12 * (1 + max(abs(la), abs(ua), abs(lb), abs(ub)))
    out = []
    for i, (a1, b1, c1) in enumerate(lines):
        for a2, b2, c2 in lines[i + 1:]:
            det = a1 * b2 - a2 * b1
            if det == 0:
                continue
            za, zb = (c1 * b2 - c2 * b1) / det, (a1 * c2 - a2 * c1) / det
            if la - tol <= za <= ua + tol and lb - tol <= zb <= ub + tol and dl - tol <= za - zb <= du + tol:
                out.append((za, zb))
    return out


def _facets(P):
    """Rows ``(a, r)``, ``a·p <= r``, of the convex hull of the float points *P* (Qhull on their
    affine hull, plus that hull's equations as two rows each)."""
    from scipy.spatial import ConvexHull
    P = np.unique(np.round(np.asarray(P, dtype=float), 14), axis=0)
    c = P.mean(0)
    _, S, Vt = np.linalg.svd(P - c)
    r = int((S > 1e-9 * max(1.0, S[0])).sum()) if len(S) else 0
    rows = []
    for v in Vt[r:]:
        rows += [(v, v @ c), (-v, -v @ c)]
    if r == 1:
        y = (P - c) @ Vt[0]
        rows += [(Vt[0], y.max() + Vt[0] @ c), (-Vt[0], -y.min() - Vt[0] @ c)]
    elif r > 1:
        B = Vt[:r]
        for eq in ConvexHull((P - c) @ B.T).equations:
            a = eq[:-1] @ B
            rows.append((a, a @ c - eq[-1]))
    return rows


def pair_rows(za, zb, d, kind):
    """Float rows ``a·(z_a, z_b, h_a, h_b) <= r`` of one pair of a difference network: *kind*
    "hull" (the convex hull of the pair's graph over its polygon) or "nd" (NeuroDiff: the hull of
    ``(z_b, δ, relu(z_a) − relu(z_b))``).  Empty when both neurons are stable."""
    (la, ua), (lb, ub), (dl, du) = [(float(p), float(q)) for p, q in (za, zb, d)]
    if not (la < 0 < ua or lb < 0 < ub):
        return []
    pts = _pair_polygon(la, ua, lb, ub, dl, du)
    if not pts:
        return []
    if kind == "hull":
        return _facets([(p, q, max(p, 0.0), max(q, 0.0)) for p, q in pts])
    out = []
    for a, r in _facets([(q, p - q, max(p, 0.0) - max(q, 0.0)) for p, q in pts]):
        if abs(a[2]) > 1e-12:            # (z_b, δ, Δh) -> (z_a, z_b, h_a, h_b)
            out.append((np.array([a[1], a[0] - a[1], a[2], -a[2]]), r))
    return out


def _add_input_hull(h, t, W, b, box, ivs, l, j, n, single=False):
    """Rows and columns making ``(h_{l−1}, h_{l,j}, h_{l,n+j})`` lie in the convex hull of the
    graph of the pair ``(relu(z_a), relu(z_b))`` over the box of their inputs (Balas's extended
    formulation: one scaled copy ``y_k`` of the inputs and a weight ``λ_k`` per sign region,
    ``Σ y_k = h_{l−1}``, ``Σ λ_k = 1``, ``y_k ∈ λ_k·box``, the signs of the region on ``y_k``, and
    ``h_{l,j}``, ``h_{l,n+j}`` the sums of the pieces), floats.  With *single* the hull of
    neuron ``j``'s graph alone (two sign regions), ``j`` any neuron of the layer."""
    from highspy import _core as hc
    inf = hc.kHighsInf
    if l == 0:
        lo = np.array([float(v) for v, _ in box]); hi = np.array([float(v) for _, v in box]); xcol = np.arange(t.d)
    else:
        lo = np.array([max(float(v), 0.0) for v, _ in ivs[l - 1]]); hi = np.array([max(float(v), 0.0) for _, v in ivs[l - 1]])
        xcol = t.hoff[l - 1] + np.arange(len(lo))
    d = len(lo)
    regions = [(1,), (0,)] if single else [(1, 1), (1, 0), (0, 1), (0, 0)]
    neurons = [(W[l][k], b[l][k], t.hoff[l] + k, side) for side, k in enumerate((j,) if single else (j, n + j))]
    base = h.getNumCol()
    K = len(regions)
    ncol = K * (d + 1)
    h.addCols(ncol, np.zeros(ncol), np.array(([-inf] * d + [0.0]) * K), np.array(([inf] * d + [1.0]) * K),
              0, np.array([], dtype=np.int32), np.array([], dtype=np.int32), np.array([]))
    y = lambda k: base + k * (d + 1) + np.arange(d)
    lam = lambda k: base + k * (d + 1) + d
    rows = []                     # (lower, upper, columns, values)
    for i in range(d):
        rows.append((0.0, 0.0, [int(y(k)[i]) for k in range(K)] + [int(xcol[i])], [1.0] * K + [-1.0]))
    rows.append((1.0, 1.0, [lam(k) for k in range(K)], [1.0] * K))
    for k, (sa, *rest) in enumerate(regions):
        sb = rest[0] if rest else None
        for i in range(d):
            rows.append((0.0, inf, [int(y(k)[i]), lam(k)], [1.0, -lo[i]]))
            rows.append((-inf, 0.0, [int(y(k)[i]), lam(k)], [1.0, -hi[i]]))
        for (w, bias, _, _), sg in zip(neurons, (sa, sb)[:len(neurons)]):
            rows.append((0.0, inf) if sg else (-inf, 0.0))
            rows[-1] = rows[-1] + ([*map(int, y(k)), lam(k)], [*w, bias])
    for w, bias, col, side in neurons:
        cols, vals = [col], [-1.0]
        for k, reg in enumerate(regions):
            if reg[side]:
                cols += [*map(int, y(k)), lam(k)]
                vals += [*w, bias]
        rows.append((0.0, 0.0, cols, vals))
    starts = np.cumsum([0] + [len(r[2]) for r in rows[:-1]]).astype(np.int32)
    h.addRows(len(rows), np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
              int(sum(len(r[2]) for r in rows)), starts,
              np.concatenate([np.asarray(r[2], dtype=np.int32) for r in rows]),
              np.concatenate([np.asarray(r[3], dtype=float) for r in rows]))
    return len(rows)


def _float_root_lp(eng, box, ivs, deltas, lines, c, kind):
    """The float optimum of the root LP (triangle rows and pair lines) alone (*kind* "none": the
    LP whose bound the "LP exact" column certifies) or plus the rows of :func:`pair_rows` of
    every pair (*kind* "hull" or "nd"), or (*kind* "inputs") the hull of each pair's graph over
    its input box (:func:`_add_input_hull`), and the number of rows added."""
    from highspy import _core as hc
    from semialgebraic.bab.relaxation import build_lp
    t = eng.template
    lp, _ = build_lp(t, box, ivs, c, lines)
    h = new_highs()
    h.passModel(lp)
    added = 0
    if kind == "none":         # the certified LP's own rows, nothing added (pair_rows would add NeuroDiff's)
        run_highs(h)
        return (h.getInfo().objective_function_value if str(h.getModelStatus()).endswith("kOptimal")
                else float("nan")), 0
    if kind in ("inputs", "single"):
        W = [np.array([[float(v) for v in r] for r in M]) for M in eng.Ws]
        b = [np.array([float(v) for v in r]) for r in eng.bs]
    for l in range(len(ivs) - 1):
        n = len(ivs[l]) // 2
        cols = np.array([0, n, 0, n], dtype=np.int32) + np.array([t.zoff[l]] * 2 + [t.hoff[l]] * 2, dtype=np.int32)
        for j in range(n):
            if kind == "single":
                for k in (j, n + j):
                    if ivs[l][k][0] < 0 < ivs[l][k][1]:
                        added += _add_input_hull(h, t, W, b, box, ivs, l, k, n, single=True)
                continue
            if kind == "inputs":
                (la, ua), (lb, ub) = ivs[l][j], ivs[l][n + j]
                if la < 0 < ua or lb < 0 < ub:
                    added += _add_input_hull(h, t, W, b, box, ivs, l, j, n)
                continue
            for a, r in pair_rows(ivs[l][j], ivs[l][n + j], deltas[l][j], kind):
                h.addRow(-hc.kHighsInf, float(r) + 1e-12 * (1 + abs(r)), 4, cols + j, np.asarray(a, dtype=float))
                added += 1
    run_highs(h)
    ok = str(h.getModelStatus()).endswith("kOptimal")
    return (h.getInfo().objective_function_value if ok else float("nan")), added


def _sample_max(D, box, n=200_000, seed=0):
    """Per output the float max and min of ``D`` over *n* uniform points of *box*, and the point
    of largest ``|D_o|`` (floats: a lower estimate)."""
    fW = [np.array([[float(v) for v in r] for r in W.to_rows()]) for W in D.weights]
    fb = [np.array([float(v) for v in b]) for b in D.biases]
    lo, hi = (np.array([float(v[k]) for v in box]) for k in (0, 1))
    X = lo + (hi - lo) * np.random.default_rng(seed).random((n, len(box)))
    H = X.T
    for l, (W, b) in enumerate(zip(fW, fb)):
        H = W @ H + b[:, None]
        if l < len(fW) - 1:
            H = np.maximum(H, 0.0)
    i = int(np.abs(H).max(0).argmax())
    return H.max(1), H.min(1), X[i]


def _descend(eng, box, c, depth, lp):
    """The splits of a node *depth* levels below the root along the search's own choice: at
    each level the neuron of largest LP share (``search._ranked`` on the multipliers of the
    node's certified LP with cuts, *lp*), then the child of larger certified bound; ``(splits,
    [bound at each level])``."""
    from semialgebraic.bab.search import _multipliers, _ranked
    splits, path = {}, []
    for _ in range(depth):
        ivs, _ = eng.node(box, splits)
        got = lp(ivs, splits)
        if not got or got[0] is None:
            break
        path.append(got[0])
        ranked = _ranked(ivs, _multipliers(got[1]), eng.pair_lines(box, splits))
        if not ranked:
            break
        at = ranked[0][1]
        kids = []
        for side in (0, 1):
            sp = {**splits, at: side}
            kivs, _ = eng.node(box, sp)
            kg = None if kivs is None else lp(kivs, sp)
            kids.append((Q(-1) if not kg or kg[0] is None else kg[0], side))
        splits = {**splits, at: max(kids)[1]}
    return splits, path


def root_report(name, a, b, box, args):
    """One block of ``--root``: per objective the root bounds of every relaxation (module
    docstring), with the CPU seconds of each column summed over the objectives; with
    ``--root-depth K`` the same at the node K splits below the root (:func:`_descend`)."""
    from semialgebraic.bab.search import Engine, _lp_bound
    D = difference_network(a, b)
    DW = [W.to_rows() for W in D.weights]
    Db = [list(v) for v in D.biases]
    cpu = {}

    def timed(key, f, *xs, **kw):
        c0 = time.process_time()
        out = f(*xs, **kw)
        cpu[key] = cpu.get(key, 0.0) + time.process_time() - c0
        return out

    from semialgebraic.bab import cuts as cuts_module
    was = cuts_module.PAIR_CUTS
    cuts_module.PAIR_CUTS = False              # the single-neuron cuts' column
    eng = timed("root", Engine, DW, Db, paired=True, cuts=True)
    cuts_module.PAIR_CUTS = True               # the pair cuts' own column (off by default in the search)
    paired_sep = cuts_module.CutSeparator(DW, Db, paired=True)
    cuts_module.PAIR_CUTS = was
    ivs, _ = timed("root", eng.node, box, {})
    state = eng._state[eng._key(box, {})][1]
    last = state[0][-1]
    hi_s, lo_s, _ = _sample_max(D, box)
    unstable = sum(1 for layer in ivs[:-1] for lo, hi in layer if lo < 0 < hi)
    objs = sorted(((last[o][1] if s > 0 else -last[o][0], o, s) for o in range(len(last)) for s in (1, -1)),
                  reverse=True)[:args.root_objectives]
    depth = args.root_depth
    print(f"\n{name}: {unstable} unstable at the root; load {os.getloadavg()[0]:.1f}"
          + (f"; each row at the node {depth} splits below the root" if depth else ""))
    head = ("| objective | interval δ | δ (search) | LP exact | LP + cuts exact | LP + cuts + pair cuts exact | LP float | LP + NeuroDiff float "
            "| LP + pair hull float | LP + single hulls in inputs float | LP + pair hull in inputs float | sample max |")
    if depth:
        head = "| path: LP + cuts bound per level | unstable " + head
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    for _, o, s in objs:
        c = [Q(0)] * len(last)
        c[o] = Q(s)
        splits, path = {}, []
        if depth:
            splits, path = timed("descend", _descend, eng, box, c, depth, lambda iv, sp: _lp_bound(
                DW, Db, box, iv, c, eng.sym, template=eng.template, lines=eng.pair_lines(box, sp),
                separator=eng.separator, root=True))
        ivs, _ = eng.node(box, splits)
        state = eng._state[eng._key(box, splits)][1]
        lines = eng.pair_lines(box, splits)
        plain = eng.diff.state(box, ivs, symbolic=False)[0][-1]
        here = state[0][-1]
        nu = sum(1 for layer in ivs[:-1] for lo, hi in layer if lo < 0 < hi)
        got = timed("LP", _lp_bound, DW, Db, box, ivs, c, eng.sym, template=eng.template, lines=lines)
        cut = timed("LP + cuts", _lp_bound, DW, Db, box, ivs, c, eng.sym, template=eng.template, lines=lines,
                    separator=eng.separator, root=True)
        pair = timed("LP + cuts + pair cuts", _lp_bound, DW, Db, box, ivs, c, eng.sym, template=eng.template,
                     lines=lines, separator=paired_sep, root=True)
        kinds = ("none", "nd", "hull") + (("single", "inputs") if nu * len(box) <= args.root_inputs_max else ())
        fl = {k: timed(k, _float_root_lp, eng, box, ivs, state[0], lines, c, k) for k in kinds}
        fl.setdefault("inputs", (float("nan"), 0))
        fl.setdefault("single", (float("nan"), 0))
        pre = (f"| {' → '.join(f'{float(v):.4g}' for v in path)} | {nu} " if depth else "")
        print(f"{pre}| {'+' if s > 0 else '−'}(a_{o} − b_{o}) | {float(plain[o][1] if s > 0 else -plain[o][0]):.4g} "
              f"| {float(here[o][1] if s > 0 else -here[o][0]):.4g} "
              f"| {float(got[0]) if got and got[0] is not None else float('nan'):.4g} "
              f"| {float(cut[0]) if cut and cut[0] is not None else float('nan'):.4g} "
              f"| {float(pair[0]) if pair and pair[0] is not None else float('nan'):.4g} "
              f"| {fl['none'][0]:.4g} | {fl['nd'][0]:.4g} ({fl['nd'][1]} rows) "
              f"| {fl['hull'][0]:.4g} ({fl['hull'][1]} rows) | {fl['single'][0]:.4g} ({fl['single'][1]} rows) "
              f"| {fl['inputs'][0]:.4g} ({fl['inputs'][1]} rows) "
              f"| {hi_s[o] if s > 0 else -lo_s[o]:.4g} |", flush=True)
    print("CPU s: " + ", ".join(f"{k} {v:.2f}" for k, v in cpu.items()))


def _boxes(rng, full, width, points):
    """*points* boxes of width *width* around fixed points of *full* (clipped to it)."""
    out = []
    for _ in range(points):
        centre = [lo + (hi - lo) * Q(int(rng.integers(0, 1001)), 1000) for lo, hi in full]
        out.append([(max(c - width / 2, lo), min(c + width / 2, hi)) for c, (lo, hi) in zip(centre, full)])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--width", default="1/100")
    ap.add_argument("--points", type=int, default=10)
    ap.add_argument("--timeout", type=float, default=60, help="budget of the digits and small-box rows")
    ap.add_argument("--full-timeout", type=float, default=120, help="budget of the full-box rows")
    ap.add_argument("--no-milp", dest="milp", action="store_false")
    ap.add_argument("--no-cuts", dest="cuts", action="store_false",
                    help="the triangle LP alone, no single-neuron cuts (semialgebraic/bab/cuts.py)")
    ap.add_argument("--eps", action="store_true")
    ap.add_argument("--only", choices=("digits", "acas", "he"))
    ap.add_argument("--digits", choices=("64-32-10", "64-32-16-10"), action="append",
                    help="the digits rows to run (repeatable; default both)")
    ap.add_argument("--nnet", default=str(DATA / "ACASXU_run2a_1_1_batch_2000.nnet"))
    ap.add_argument("--full-only", action="store_true", help="acas/he: the full-box rows only")
    ap.add_argument("--boxes", type=lambda t: {int(k) for k in t.split(",")},
                    help="acas/he: these small boxes only (e.g. 0,3,5), no full-box row")
    ap.add_argument("--pair-cuts", metavar="ROUNDS:PAIRS[:DEPTH]",
                    help="pair cuts (semialgebraic/bab/cuts.py): rounds and pairs per round at the root and at "
                         "the nodes of at most DEPTH splits (default 0: the root only); 0:0 none")
    ap.add_argument("--root", action="store_true", help="root bounds of every relaxation, no search")
    ap.add_argument("--root-objectives", type=int, default=4)
    ap.add_argument("--root-depth", type=int, default=0,
                    help="--root: each objective's row at the node this many splits below the root")
    ap.add_argument("--root-width", help="--root: ACAS Xu also on a box of this width around the sample maximiser")
    ap.add_argument("--no-root-full", dest="root_full", action="store_false",
                    help="--root: not ACAS Xu's full box (its float hull columns take minutes)")
    ap.add_argument("--root-inputs-max", type=int, default=4096,
                    help="--root: the input-space pair hull only when unstable neurons x input dimension <= this")
    args = ap.parse_args()
    if args.pair_cuts:
        from semialgebraic.bab import cuts
        parts = [int(v) for v in args.pair_cuts.split(":")]
        cuts.PAIR_HULL_ROUNDS, cuts.PAIR_HULL_PAIRS = parts[:2]
        if len(parts) > 2:
            cuts.PAIR_DEPTH = parts[2]
        cuts.PAIR_CUTS = cuts.PAIR_HULL_ROUNDS > 0 and cuts.PAIR_HULL_PAIRS > 0 and not args.root
    if args.root:
        return roots(args)
    search._CUTS = args.cuts
    head = ("| instance | unstable at root | lower | upper | upper/lower | exact | nodes | search s (cpu) "
            "| check s (cpu) | cert KB |")
    if args.milp:
        head += " MILP [incumbent, bound] | MILP s (cpu) | MILP |"
    if args.eps:
        head += " 0.99ε | s | 1.01ε | s |"
    head += " load |"
    print(f"a vs its float16 copy; budget {args.timeout:g} s (full box {args.full_timeout:g} s); "
          f"single-neuron cuts {'on' if args.cuts else 'off'}")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    args.timeout_now = args.timeout
    w = to_q(args.width)
    if args.only in (None, "digits"):
        for name in args.digits or ("64-32-10", "64-32-16-10"):
            Ws, bs = digits(name)
            a, b = to_net(Ws, bs, np.float32), to_net(Ws, bs, np.float16)
            row(f"digits {name}", a, b, [(Q(0), Q(16))] * 64, args)
    if args.only in (None, "acas") and args.nnet:
        a = load_nnet(args.nnet)
        b = float16_copy(a)
        full = nnet_input_box(a)
        for k, box in enumerate(_boxes(np.random.default_rng(1), full, w, 0 if args.full_only else args.points)):
            args.timeout_now = args.timeout
            if args.boxes is None or k in args.boxes:
                row(f"ACAS Xu box {k}", a, b, box, args)
        args.timeout_now = args.full_timeout
        if args.boxes is None:
            row("ACAS Xu full box", a, b, full, args)
    if args.only in (None, "he"):
        args.timeout_now = args.timeout
        widths = [5] + [50] * 6 + [5]
        Ws, bs = he_net(widths)
        a, b = to_net(Ws, bs, np.float32), to_net(Ws, bs, np.float16)
        rng = np.random.default_rng(1)
        for k in range(0 if args.full_only else args.points):
            centre = [Q(int(round(v * 1000)), 1000) for v in rng.uniform(-0.5, 0.5, 5)]
            if args.boxes is None or k in args.boxes:
                row(f"5-50x6-5 box {k}", a, b, [(c - w / 2, c + w / 2) for c in centre], args)
        args.timeout_now = args.full_timeout
        if args.boxes is None:
            row("5-50x6-5 full box", a, b, [(Q(-1, 2), Q(1, 2))] * 5, args)


def roots(args):
    """``--root``: :func:`root_report` on the digits rows and ACAS Xu's full box (and a box of
    width ``--root-width`` around its sample maximiser)."""
    if args.only in (None, "digits"):
        for name in args.digits or ("64-32-10", "64-32-16-10"):
            Ws, bs = digits(name)
            root_report(f"digits {name}", to_net(Ws, bs, np.float32), to_net(Ws, bs, np.float16),
                        [(Q(0), Q(16))] * 64, args)
    if args.only in (None, "acas") and args.nnet:
        a = load_nnet(args.nnet)
        b = float16_copy(a)
        full = nnet_input_box(a)
        if args.root_full:
            root_report("ACAS Xu full box", a, b, full, args)
        if args.root_width:
            w = to_q(args.root_width)
            p = _sample_max(difference_network(a, b), full)[2]
            centre = [Q(int(round(v * 10 ** 4)), 10 ** 4) for v in p]
            root_report(f"ACAS Xu box of width {args.root_width} around ({', '.join(f'{float(v):.4f}' for v in centre)})",
                        a, b, [(max(lo, v - w / 2), min(hi, v + w / 2)) for v, (lo, hi) in zip(centre, full)], args)


if __name__ == "__main__":
    main()
