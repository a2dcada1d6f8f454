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
                                   [--digits 64-32-10|64-32-16-10] [--no-cuts] [--boxes 0,3,5]

``--full-only`` runs the full-box rows of acas/he alone (e.g. ``--full-timeout 600``);
``--digits 64-32-10`` one digits row alone (e.g. ``--only digits --timeout 600``);
``--boxes 0,3,5`` runs those small boxes of acas/he alone (numbered as in the table; no
full-box row); ``--no-cuts`` turns the single-neuron cuts of ``semialgebraic/bab/cuts.py`` off (the triangle LP
alone), e.g. to run both side by side under the same load.
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
