"""Benchmark of ε-equivalence (issue 15): ``max_o max_{x in box} |a_o − b_o| <= ε`` decided
exactly, with a certificate re-checked in-process, against a HiGHS MILP and against z3.

Per instance, first the certified maximum (``diff_bounds``: ``[L, U]``; ε rows only when
``U <= 1.01·L``, then ``M = L``: exact, or a gap of dual rounding below 1%, so the answers at
``0.99·M`` (no, a point) and ``1.01·M`` (yes, a certificate) are known), then
``epsilon_equivalent`` at both, each timed (wall and CPU, the certificate's self-check
included).  Baselines, side by side:

* the HiGHS MILP of ``benchmarks/bench_bab.py`` (imported, not copied: big-M from the same
  certified root intervals, one thread, ``mip_rel_gap=0``, floats, in a child process) solving
  ``max |a − b|`` once per instance; its float value answers both ε questions;
* z3 (small pairs only: d <= 4, <= 40 ReLUs per network): ``∃x in box, o: |a_o(x) − b_o(x)| > ε``
  with the ReLUs as ``If`` terms, exact rationals (sat = not ε-equivalent).

Instances: the digits 64-32-10 classifier (float32) vs its float16 copy on sub-boxes of
``[0, 16]^64`` of width ``--digits-width`` around ``--digits-points`` fixed points; the generated
5-50x6-5 network of ``bench_bab.py`` (He-normal, biases 0.01, float32) vs its float16 copy on
boxes of width 1/100 around its ``--points`` fixed points; small pairs (2-10-10-1, 3-10-10-2,
4-10-10-1, 4-20-20-1 He-normal float32 nets) vs their float16 copies on ``[-1, 1]^d``.
Ratios: ``baseline s / ours s``, wall and (CPU) (``≥`` when the baseline hit its time limit),
targets ``>= 1/2`` against HiGHS and ``>= 10``
against z3; CPU seconds beside every time (z3 and the MILP included) and the 1-minute load
average at the end of each row: on a shared machine CPU seconds are the comparable figure.

    python benchmarks/bench_epsilon.py [--timeout 120] [--milp-timeout 120] [--z3-timeout 300]
                                       [--points 3] [--he-boxes 1,2] [--digits-points 2]
                                       [--digits-width 1/2]
                                       [--only digits|he|small] [--small 4-20-20-1,...]
                                       [--factors 0.99,1.01]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from bench_bab import digits, he_net, milp, to_net  # noqa: E402  (the MILP builder, reused)

from algebra.kernel import difference_network  # noqa: E402
from algebra.rationals import Q, to_q  # noqa: E402
from semialgebraic.bab import diff_bounds, epsilon_equivalent  # noqa: E402
from semialgebraic.bab.symbolic import SymbolicNet  # noqa: E402

SMALL = ([2, 10, 10, 1], [3, 10, 10, 2], [4, 10, 10, 1], [4, 20, 20, 1])


def _timed(fn, *args, **kw):
    t, c = time.monotonic(), time.process_time()
    out = fn(*args, **kw)
    return out, time.monotonic() - t, time.process_time() - c


def z3_exceeds(a, b, box, eps, timeout):
    """z3 on ``∃x in box, o: |a_o(x) − b_o(x)| > eps``: ``(answer, wall s, CPU s)``; answer True (sat:
    not ε-equivalent), False (unsat) or None (z3's timeout / unknown)."""
    import z3
    xs = [z3.Real(f"x{i}") for i in range(a.n_inputs)]

    def out(net):
        h = xs
        for l, (W, bias) in enumerate(zip(net.weights, net.biases)):
            z = [z3.Sum([z3.RealVal(str(w)) * v for w, v in zip(row, h) if w != 0] + [z3.RealVal(str(c))])
                 for row, c in zip(W.to_rows(), bias)]
            h = z if l == net.depth - 1 else [z3.If(v > 0, v, 0) for v in z]
        return h
    s = z3.Solver()
    s.set("timeout", int(timeout * 1000))
    for x, (lo, hi) in zip(xs, box):
        s.add(x >= z3.RealVal(str(lo)), x <= z3.RealVal(str(hi)))
    e = z3.RealVal(str(eps))
    s.add(z3.Or([z3.Or(p - q > e, q - p > e) for p, q in zip(out(a), out(b))]))
    t, c = time.monotonic(), time.process_time()
    res = s.check()
    ans = True if res == z3.sat else False if res == z3.unsat else None
    return ans, time.monotonic() - t, time.process_time() - c


def _answer(ans):
    return {True: "yes", False: "no", None: "budget"}[ans]


def instance(name, a, b, box, args, baseline):
    """One instance: the certified maximum, then the ε rows and the baseline's."""
    relus = sum(a.widths[1:-1])
    r, ts, cs = _timed(diff_bounds, a, b, box, timeout=args.timeout)
    up = "none" if r.upper is None else f"{float(r.upper):.4e}"
    head = f"| {name} | {a.n_inputs} | {relus} | [{float(r.lower):.4e}, {up}] | {ts:.1f} ({cs:.1f}) |"
    if r.upper is None or not (r.lower > 0 and r.upper <= r.lower * Q(101, 100)):
        print(head + " not within 1% within the budget: no ε rows | | | | | | |", flush=True)
        return
    M = r.lower              # exact, or the interval within 1%: both ε answers are still known
    mil = None
    if baseline == "milp":
        D = difference_network(a, b)
        ivs = SymbolicNet([W.to_rows() for W in D.weights], [list(v) for v in D.biases]).intervals(box, {})
        mil = milp(D, box, ivs, args.milp_timeout)   # (incumbent, bound, s, cpu s, status), in a child process
    for f in args.factors:
        eps = M * f
        (ans, rr), te, ce = _timed(epsilon_equivalent, a, b, box, eps, timeout=args.timeout)
        truth = f > 1
        if ans is not None and ans != truth:
            raise AssertionError(f"{name}: wrong ε answer at {f}·M")
        if baseline == "milp":
            val, _, tb, cb, st = mil
            bans = "yes" if val <= float(eps) else "no"
            base = f"HiGHS MILP: {bans} (max {val:.4e}, {st})"
        else:
            zans, tb, cb = z3_exceeds(a, b, box, eps, args.z3_timeout)
            bans = {True: "no", False: "yes", None: "timeout"}[zans]
            base = f"z3: {bans}"
        ratio = tb / te if te > 0 else float("inf")
        cratio = cb / ce if ce > 0 else float("inf")
        at_least = "≥ " if "timeout" in base or "time limit" in base.lower() else ""
        print(f"{head} {float(f):.2f} | {_answer(ans)} | {te:.2f} ({ce:.2f}) | {base} | {tb:.2f} ({cb:.2f}) "
              f"| {at_least}{ratio:.2f} ({at_least}{cratio:.2f}) | {os.getloadavg()[0]:.1f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--timeout", type=float, default=120, help="budget of each exact run (s)")
    ap.add_argument("--milp-timeout", type=float, default=120)
    ap.add_argument("--z3-timeout", type=float, default=300)
    ap.add_argument("--points", type=int, default=3, help="5-50x6-5 boxes")
    ap.add_argument("--he-boxes", default="", help="only these of the 5-50x6-5 boxes, e.g. 1,2")
    ap.add_argument("--digits-points", type=int, default=2)
    ap.add_argument("--digits-width", default="1/2")
    ap.add_argument("--only", choices=("digits", "he", "small"))
    ap.add_argument("--small", default="",
                    help="only these small pairs, e.g. 4-20-20-1 (comma-separated; default all)")
    ap.add_argument("--factors", default="0.99,1.01",
                    help="the ε rows, as multiples of M (default 0.99,1.01)")
    args = ap.parse_args()
    args.factors = [to_q(f) for f in args.factors.split(",")]
    print("ε-equivalence at 0.99·M and 1.01·M (M = L, the certified max |a - b| when U <= 1.01·L); "
          f"budget {args.timeout:g} s; "
          "times wall (CPU) s; ratio = baseline s / ours s, wall (CPU)")
    head = ("| instance | d | ReLUs | certified [L, U] | M in s (cpu) | ε/M | ours | ours s (cpu) "
            "| baseline | baseline s (cpu) | ratio | load |")
    print(head)
    print("|---" * (head.count("|") - 1) + "|")
    if args.only in (None, "digits"):
        Ws, bs = digits("64-32-10")
        a, b = to_net(Ws, bs, np.float32), to_net(Ws, bs, np.float16)
        w = to_q(args.digits_width)
        rng = np.random.default_rng(2)
        for k in range(args.digits_points):
            centre = [Q(int(v)) for v in rng.integers(1, 16, 64)]
            box = [(max(c - w / 2, Q(0)), min(c + w / 2, Q(16))) for c in centre]
            instance(f"digits 64-32-10 sub-box {k}", a, b, box, args, "milp")
    if args.only in (None, "he"):
        Ws, bs = he_net([5] + [50] * 6 + [5])
        a, b = to_net(Ws, bs, np.float32), to_net(Ws, bs, np.float16)
        rng = np.random.default_rng(1)                # the boxes of bench_bab.py
        w = Q(1, 100)
        for k in range(args.points):
            centre = [Q(int(round(v * 1000)), 1000) for v in rng.uniform(-0.5, 0.5, 5)]
            if args.he_boxes and str(k) not in args.he_boxes.split(","):
                continue
            instance(f"5-50x6-5 box {k}", a, b, [(c - w / 2, c + w / 2) for c in centre], args, "milp")
    if args.only in (None, "small"):
        for seed, widths in enumerate(SMALL):
            Ws, bs = he_net(widths, seed=seed)
            a, b = to_net(Ws, bs, np.float32), to_net(Ws, bs, np.float16)
            if args.small and "-".join(map(str, widths)) not in args.small.split(","):
                continue
            d = widths[0]
            instance(f"{'-'.join(map(str, widths))} vs float16", a, b, [(Q(-1), Q(1))] * d, args, "z3")


if __name__ == "__main__":
    main()
