"""Benchmark of the exact branch and bound (issue 15): a − b for a net and its float16 copy.

A generated 5-50x6-5 network (He-normal weights, biases of scale 0.01, seeded, float32) against
its float16-rounded copy, on small boxes of width ``--width`` around fixed points; per row: the
unstable neurons of a − b at the root (interval propagation), the certified interval on
max |a − b|, nodes, search time and the time of the independent certificate check.

    python benchmarks/bench_bab.py [--width 1/100] [--points 3] [--timeout 60] [--depth 6]
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q, from_float, to_q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab.symbolic import SymbolicNet
from semialgebraic.verify import verify


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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--width", default="1/100")
    ap.add_argument("--points", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--depth", type=int, default=6, help="hidden layers of width 50")
    args = ap.parse_args()
    widths = [5] + [50] * args.depth + [5]
    Ws, bs = he_net(widths)
    a, b = to_net(Ws, bs, np.float32), to_net(Ws, bs, np.float16)
    D = difference_network(a, b)
    DW = [W.to_rows() for W in D.weights]
    Db = [list(v) for v in D.biases]
    w = to_q(args.width)
    rng = np.random.default_rng(1)
    print(f"net {'-'.join(map(str, widths))} vs float16 copy, boxes of width {args.width}, timeout {args.timeout:g} s")
    print(f"{'point':>5} {'unstable':>8} {'lower':>12} {'upper':>12} {'ratio':>8} {'nodes':>6} "
          f"{'search s':>9} {'check s':>8} {'cert KB':>8}")
    for k in range(args.points):
        centre = [Q(int(round(v * 1000)), 1000) for v in rng.uniform(-0.5, 0.5, 5)]
        box = [(c - w / 2, c + w / 2) for c in centre]
        ivs = SymbolicNet(DW, Db).intervals(box, {})
        unstable = sum(1 for layer in ivs[:-1] for lo, hi in layer if lo < 0 < hi)
        t = time.monotonic()
        r = diff_bounds(a, b, box, timeout=args.timeout, verify=False)
        ts = time.monotonic() - t
        t = time.monotonic()
        ok, why = verify(json.loads(json.dumps(r.certificate, default=str)))
        tc = time.monotonic() - t
        assert ok, why
        size = len(json.dumps(r.certificate, default=str)) / 1024
        ratio = float(r.upper / r.lower) if r.lower > 0 else float("inf")
        print(f"{k:>5} {unstable:>8} {float(r.lower):>12.4e} {float(r.upper):>12.4e} {ratio:>8.4f} "
              f"{r.nodes:>6} {ts:>9.2f} {tc:>8.2f} {size:>8.0f}")


if __name__ == "__main__":
    main()
