"""Benchmark: exact LP feasibility, 50 variables x 200 constraints over Q.

Run by hand:  python benchmarks/bench_lp.py [--reps 11] [--exact-reps 1] [--exact-timeout 300]
              [--n 50] [--m 200]

Compares ``feasible(method="auto")`` (HiGHS guess, exact verification, exact fallback) with
``feasible(method="exact")`` (the exact simplex fallback alone) on random rational systems with
strict rows: feasible ones (a planted interior point) and infeasible ones (a planted
contradiction).  Every result is re-checked exactly (``check()``) and both methods must agree.
cdd (the reference baseline, 0.4-1.1 s) is not installable here (no Linux wheel).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import time

from algebra.linalg import QMatrix
from algebra.rationals import Q
from semialgebraic.lp import feasible


def instance(n: int, m: int, seed: int, infeasible: bool):
    rng = random.Random(seed)
    A = [[Q(rng.randint(-20, 20), rng.randint(1, 7)) for _ in range(n)] for _ in range(m)]
    x0 = [Q(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(n)]
    ax = QMatrix.from_rows(A).apply(x0)
    b = [v + Q(rng.randint(1, 9), rng.randint(1, 5)) for v in ax]
    if infeasible:   # the last row contradicts a positive combination of two others
        i, j = rng.sample(range(m - 1), 2)
        A[-1] = [-(u + 2 * v) for u, v in zip(A[i], A[j])]
        b[-1] = -(b[i] + 2 * b[j]) - Q(1, 3)
    return QMatrix.from_rows(A), b


def timed(A, b, method):
    t = time.perf_counter()
    r = feasible(A_lt=A, b_lt=b, method=method)
    dt = time.perf_counter() - t
    assert r.check()
    return dt, r


def _exact_worker(args, queue):
    n, m, seed, infeasible = args
    A, b = instance(n, m, seed, infeasible)
    dt, r = timed(A, b, "exact")
    queue.put((dt, r.feasible))


def timed_exact(n, m, seed, infeasible, timeout):
    """The exact fallback alone, in a subprocess (FLINT calls ignore signals); None on timeout."""
    queue = multiprocessing.Queue()
    proc = multiprocessing.Process(target=_exact_worker, args=((n, m, seed, infeasible), queue))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return None
    return queue.get()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--m", type=int, default=200)
    ap.add_argument("--reps", type=int, default=11)
    ap.add_argument("--exact-reps", type=int, default=1)
    ap.add_argument("--exact-timeout", type=float, default=300.0)
    args = ap.parse_args()
    feasible(A_lt=[[1]], b_lt=[1])  # warm up imports (highspy, numpy)
    print(f"exact LP feasibility, {args.n} variables x {args.m} strict rows, rational data")
    print(f"{'instances':<12}{'auto median':>14}{'auto max':>12}{'exact median':>15}{'ratio':>9}  verdict")
    for infeasible in (False, True):
        auto, exact, verdicts, methods = [], [], set(), set()
        for rep in range(args.reps):
            A, b = instance(args.n, args.m, 1000 + rep, infeasible)
            dt, r = timed(A, b, "auto")
            auto.append(dt)
            verdicts.add(r.feasible)
            methods.add(r.method)
            if rep < args.exact_reps:
                out = timed_exact(args.n, args.m, 1000 + rep, infeasible, args.exact_timeout)
                if out is None:
                    exact.append(float("inf"))
                else:
                    assert out[1] == r.feasible
                    exact.append(out[0])
        ma = statistics.median(auto)
        me = statistics.median(exact) if exact else float("nan")
        name = "infeasible" if infeasible else "feasible"
        shown = f">{args.exact_timeout:.0f} s" if me == float("inf") else f"{me * 1e3:.0f} ms"
        print(f"{name:<12}{ma * 1e3:>11.1f} ms{max(auto) * 1e3:>9.1f} ms{shown:>15}"
              f"{me / ma:>8.0f}x  {sorted(verdicts)} via {sorted(methods)}", flush=True)


if __name__ == "__main__":
    main()
