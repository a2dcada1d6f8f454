"""Benchmark: certified number of conservation laws for random ReLU networks.

Setting (after Marcotte, Gribonval, Peyré, NeurIPS 2023, whose SageMath code takes a float rank
at one random point, ~136 s per ReLU net of width <= 9 on 64 threads): 50 random networks with
2-4 affine layers, input and hidden widths 2-9, 1-2 outputs, small random rational weights;
data = 40 random rational points in [-2, 2]^d (they fall into several activation patterns).
For each net the script runs ``algebra.conservation.conservation_laws`` on one core and prints
N, the number of patterns, the explicit-law lower bound, the Lie upper bound, whether they meet
(certified exact), the bracket depth used and the time; then the median time.
Target: median <= 2 s per network, every count certified exact.

Run by hand:  python benchmarks/bench_conservation.py [n_nets] [seed] [regions|data]

Modes: ``regions`` (default; Marcotte's setting: the fields of every x in each activation region
hit by the data, x symbolic) and ``data`` (the fields at the 40 data points only).
Measured 2026-11-30 (one core, shared 2-core machine, seed 1, 50 nets): regions: median
0.15 s, max 1.1 s, 50/50 certified exact; data: median 0.31 s, max 2.7 s, 50/50 exact.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from fractions import Fraction

from algebra.conservation import conservation_laws, samples_from_patterns, samples_from_points

MODE = "regions"  # "regions": x symbolic on the regions hit by the data; "data": the points only
from algebra.network import Network


def random_net(rng: random.Random) -> Network:
    L = rng.randint(2, 4)
    widths = [rng.randint(2, 9) for _ in range(L)] + [rng.randint(1, 2)]
    ws, bs = [], []
    for l in range(L):
        ws.append([[str(Fraction(rng.randint(-8, 8), rng.randint(1, 4))) for _ in range(widths[l])]
                   for _ in range(widths[l + 1])])
        bs.append([str(Fraction(rng.randint(-8, 8), rng.randint(1, 4))) for _ in range(widths[l + 1])])
    return Network.from_rows(ws, bs)


def random_points(rng: random.Random, d: int, n: int):
    return [[Fraction(rng.randint(-16, 16), 8) + Fraction(1, rng.randint(9, 97)) for _ in range(d)]
            for _ in range(n)]


def main(n_nets: int = 50, seed: int = 1) -> None:
    rng = random.Random(seed)
    rows, times = [], []
    print(f"mode: {MODE}")
    print(f"{'#':>3} {'widths':<18} {'N':>4} {'pat':>4} {'lower':>5} {'upper':>5} {'exact':>5} "
          f"{'depth':>5} {'brk':>4} {'time s':>7}")
    for k in range(n_nets):
        net = random_net(rng)
        data = samples_from_points(net, [[str(v) for v in x] for x in random_points(rng, net.n_inputs, 40)])
        samples = data if MODE == "data" else samples_from_patterns(s.pattern for s in data)
        t = time.process_time()
        res = conservation_laws(net, samples, timeout=60)
        dt = time.process_time() - t
        times.append(dt)
        rows.append(res)
        print(f"{k:>3} {'-'.join(map(str, net.widths)):<18} {net.n_parameters:>4} {len(samples):>4} "
              f"{res.lower:>5} {res.upper:>5} {str(res.exact):>5} {res.bracket_depth:>5} "
              f"{res.brackets_tried:>4} {dt:>7.2f}", flush=True)
    n_exact = sum(r.exact for r in rows)
    print(f"\nmedian {statistics.median(times):.2f} s, mean {statistics.mean(times):.2f} s, "
          f"max {max(times):.2f} s; certified exact: {n_exact}/{len(rows)}")
    print("baseline (Marcotte et al. SageMath, float rank): ~136 s per net on 64 threads; "
          f"ratio of medians ~{136 / max(statistics.median(times), 1e-9):.0f}x")


if __name__ == "__main__":
    if len(sys.argv) > 3:
        MODE = sys.argv[3]
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50, int(sys.argv[2]) if len(sys.argv) > 2 else 1)
