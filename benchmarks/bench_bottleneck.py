"""Benchmark: exact CANON equivalence of three-layer bottleneck networks vs the same algorithm in
float64 numpy (three-layer-fibers R20), plus fiber construction and the R17 dimension.

Run by hand: ``python benchmarks/bench_bottleneck.py [--d 512 --n1 256 --n2 1024 --m 10]``.
Prints a table of times and the exact/numpy ratio (target ≤ 10×).  Weights are small random
rationals p/q (|p| ≤ 9, q ≤ 4) with a planted sign pattern (switching, dead and linear rows);
the transformed copy applies a permutation of both hidden layers, positive rescalings of every
neuron of both layers (factors p/q) and an S3 move of every dead neuron.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries import apply_path
from algebra.symmetries.bottleneck_paths import PermuteHidden, RescaleLayer, TailRefactor
from semialgebraic.bottleneck import (canonical_form, dimension_formula, equivalent_bottleneck,
                                      fiber_bottleneck)


def planted(rng: random.Random, d: int, n1: int, n2: int, m: int) -> Network:
    def q(lo=1):
        return Q(rng.randint(lo, 9), rng.randint(1, 4))
    W1 = [[Q(rng.randint(-9, 9), rng.randint(1, 4)) or Q(1) for _ in range(d)] for _ in range(n1)]
    b1 = [Q(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n1)]
    rows = []
    for j in range(n2):
        kind = j % 8
        if kind == 0:      # dead
            rows.append([-q() for _ in range(n1 + 1)])
        elif kind == 1:    # linear
            rows.append([q() for _ in range(n1 + 1)])
        else:              # switching
            r = [q() * rng.choice((-1, 1)) for _ in range(n1 + 1)]
            r[0], r[1] = abs(r[0]), -abs(r[1])
            rows.append(r)
    W3 = [[q() * rng.choice((-1, 1)) for _ in range(n2)] for _ in range(m)]
    b3 = [Q(rng.randint(-9, 9)) for _ in range(m)]
    return Network.from_rows([W1, [r[:-1] for r in rows], W3], [b1, [r[-1] for r in rows], b3])


def transformed(net: Network, rng: random.Random) -> Network:
    d, n1, n2, m = net.widths
    p1, p2 = list(range(n1)), list(range(n2))
    rng.shuffle(p1)
    rng.shuffle(p2)
    steps = [PermuteHidden(1, p1), PermuteHidden(2, p2)]
    steps += [RescaleLayer(1, [Q(rng.randint(1, 5), rng.randint(1, 5)) for _ in range(n1)])]
    steps += [RescaleLayer(2, [Q(rng.randint(1, 5), rng.randint(1, 5)) for _ in range(n2)])]
    out = apply_path(net, steps)
    W2, b2 = out.layer(1)
    W3, b3 = out.layer(2)
    dead = {}
    for j in range(n2):
        row = tuple(W2.row_at(j)) + (b2[j],)
        if all(x < 0 for x in row):
            dead[j] = (tuple(2 * x for x in row), tuple(-v for v in W3.col_at(j)))
    return TailRefactor(dead, b3).apply(out)


# -- the same algorithm (CANON, R20 steps 1-9) in float64 numpy -----------------------------------

def canon_numpy(W1, b1, W2, b2, W3, b3):
    n1, d = W1.shape
    if np.linalg.matrix_rank(W1) != n1:
        return None
    R2 = np.hstack([W2, b2[:, None]])
    if (R2 == 0).any() or (np.abs(W3).sum(axis=0) == 0).any():
        return None
    dead = (R2 < 0).all(axis=1)
    lin = (R2 > 0).all(axis=1)
    sw = ~dead & ~lin
    R1 = np.hstack([W1, b1[:, None]])
    lead_idx = (R1[:, :d] != 0).argmax(axis=1)
    lam = np.abs(R1[np.arange(n1), lead_idx])
    R1 = R1 / lam[:, None]
    W2s = W2 * lam[None, :]
    order = np.lexsort(np.round(R1, 9).T[::-1])
    R1 = R1[order]
    W2s = W2s[:, order]
    G = W3[:, lin] @ W2s[lin]
    g = b3 + W3[:, lin] @ b2[lin]
    bs = b2[sw]
    Ws = W2s[sw]
    Vs = W3[:, sw]
    flip = bs > 0
    G = G + Vs[:, flip] @ Ws[flip]
    g = g + Vs[:, flip] @ bs[flip]
    sgn = np.where(flip, -1.0, 1.0)
    s = np.abs(bs)
    rows = np.hstack([Ws, bs[:, None]]) * (sgn / s)[:, None]
    outs = (Vs * s[None, :]).T
    vis = np.hstack([rows, outs])
    vis = vis[np.lexsort(np.round(vis, 9).T[::-1])]
    return R1, vis, G, g


def equal_numpy(ca, cb):
    return all(x.shape == y.shape and np.allclose(x, y, rtol=1e-9, atol=1e-9) for x, y in zip(ca, cb))


def to_numpy(net):
    out = []
    for l in range(3):
        W, b = net.layer(l)
        out.append(np.array([[float(x) for x in r] for r in W.to_rows()]))
        out.append(np.array([float(x) for x in b]))
    return out


def timed(fn, repeat=1):
    best = None
    for _ in range(repeat):
        t = time.perf_counter()
        val = fn()
        dt = time.perf_counter() - t
        best = dt if best is None else min(best, dt)
    return best, val


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=512)
    ap.add_argument("--n1", type=int, default=256)
    ap.add_argument("--n2", type=int, default=1024)
    ap.add_argument("--m", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--fiber", action="store_true", help="also build the explicit fiber")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    a = planted(rng, args.d, args.n1, args.n2, args.m)
    b = transformed(a, rng)
    print(f"(setup: planted network and transformed copy in {time.perf_counter() - t0:.1f} s)",
          flush=True)
    na, nb = to_numpy(a), to_numpy(b)
    rows = []
    t_exact, eq = timed(lambda: canonical_form(a) == canonical_form(b))
    t_np, eqn = timed(lambda: equal_numpy(canon_numpy(*na), canon_numpy(*nb)), repeat=3)
    rows.append(("CANON(a) == CANON(b), exact (flint)", t_exact, eq))
    rows.append(("same algorithm, float64 numpy", t_np, eqn))
    t_v, v = timed(lambda: equivalent_bottleneck(a, b))
    rows.append(("equivalent_bottleneck, certificate verified", t_v, v.answer))
    t_dim, dim = timed(lambda: dimension_formula(a))
    rows.append(("R17 dimension formula (incl. G1-G7)", t_dim, dim.value))
    if args.fiber:
        t_f, F = timed(lambda: fiber_bottleneck(a, jacobian=False))
        rows.append(("fiber construction (components, graph)", t_f, F.dimension.value))
    print(f"bottleneck benchmark: d={args.d} n1={args.n1} n2={args.n2} m={args.m} "
          f"(N = {a.n_parameters})")
    print(f"{'task':45s} {'seconds':>10s}  result")
    for name, t, val in rows:
        print(f"{name:45s} {t:10.3f}  {val}")
    print(f"{'ratio exact / numpy (CANON equality)':45s} {t_exact / t_np:10.1f}x  (target <= 10x)")


if __name__ == "__main__":
    main()
