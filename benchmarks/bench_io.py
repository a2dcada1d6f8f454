"""Benchmark: exact reading and exact batch evaluation of float32 safetensors models.

Creates 784-1024-1024-10 and 784-4096-4096-10 models with numpy random float32 weights in a
temporary directory, then times

* ``read``: ``algebra.load(path)`` (every float32 becomes its exact rational);
* ``exact cold``: the first ``Network.evaluate_batch`` of 1000 random float32 inputs (converted
  exactly beforehand, not timed), including the one-time integer form of the layers;
* ``exact warm``: the same call again (layers already in integer form);
* ``numpy``: float64 evaluation of the same batch (the baseline; best of 5);

and prints the ratios exact/numpy.  Targets for the first model: read <= 3 s, exact
batch evaluation <= 30x numpy.  Also checks that the exact outputs round to the numpy ones.

Run by hand: ``python benchmarks/bench_io.py [--hidden 1024 4096] [--batch 1000] [--flint]``
(``--flint`` also times the pure ``fmpz_mat`` back end, slow on the large model).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from safetensors.numpy import save_file

from algebra import load
from algebra.io.arrays import matrix_from_array


def make_model(path: Path, widths, seed=0):
    rng = np.random.default_rng(seed)
    tensors = {}
    for l, (a, b) in enumerate(zip(widths, widths[1:])):
        tensors[f"{2 * l}.weight"] = (rng.standard_normal((b, a)) / np.sqrt(a)).astype(np.float32)
        tensors[f"{2 * l}.bias"] = (rng.standard_normal(b) * 0.1).astype(np.float32)
    save_file(tensors, str(path))
    return tensors


def numpy_eval(tensors, X, depth):
    h = X
    for l in range(depth):
        h = h @ tensors[f"{2 * l}.weight"].T + tensors[f"{2 * l}.bias"]
        if l < depth - 1:
            h = np.maximum(h, 0.0)
    return h


def timed(f, repeat=1):
    """(best wall time, CPU time of that run, result); CPU time sums all threads, so the CPU
    ratio stays meaningful on a machine shared with other work."""
    best, cpu, out = float("inf"), float("inf"), None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = f()
        wall, used = time.perf_counter() - t, time.process_time() - c
        if wall < best:
            best, cpu = wall, used
    return best, cpu, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hidden", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--flint", action="store_true", help="also time method='flint'")
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for h in args.hidden:
            widths = (784, h, h, 10)
            path = Path(tmp) / f"m{h}.safetensors"
            tensors = make_model(path, widths)
            t_read, _, net = timed(lambda: load(path))
            rng = np.random.default_rng(1)
            Xf = rng.random((args.batch, 784)).astype(np.float32)
            X = matrix_from_array(Xf)
            tensors64 = {k: v.astype(np.float64) for k, v in tensors.items()}
            X64 = Xf.astype(np.float64)
            t_np, c_np, Y_np = timed(lambda: numpy_eval(tensors64, X64, 3), repeat=5)
            t_cold, c_cold, Y = timed(lambda: net.evaluate_batch(X))
            t_warm, c_warm, Y = timed(lambda: net.evaluate_batch(X))
            approx = np.array([[float(v) for v in r] for r in Y.to_rows()])
            assert np.allclose(approx, Y_np, rtol=1e-9, atol=1e-9), "exact and float64 outputs disagree"
            flint = None
            if args.flint:
                t_flint, c_flint, Y2 = timed(lambda: net.evaluate_batch(X, method="flint"))
                assert Y2 == Y
                flint = (t_flint, c_flint)
            rows.append(("-".join(map(str, widths)), t_read, (t_np, c_np), (t_cold, c_cold),
                         (t_warm, c_warm), flint))
            del net, tensors, tensors64
    print(f"batch of {args.batch} float32 inputs; exact = Network.evaluate_batch (method='auto'); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print("wall seconds (ratio to numpy wall) | CPU seconds, all threads (ratio to numpy CPU)")
    head = f"{'model':<18} {'read':>6} {'numpy':>14} {'exact cold':>22} {'exact warm':>22}"
    if args.flint:
        head += f" {'flint (warm)':>22}"
    print(head)

    def cell(t, base):
        return f"{t[0]:6.2f} ({t[0] / base[0]:4.1f}x) | {t[1]:5.1f} ({t[1] / base[1]:4.1f}x)"

    for name, t_read, t_np, cold, warm, flint in rows:
        line = f"{name:<18} {t_read:6.2f} {t_np[0]:6.3f} | {t_np[1]:5.2f} {cell(cold, t_np)} {cell(warm, t_np)}"
        if flint is not None:
            line += " " + cell(flint, t_np)
        print(line)

if __name__ == "__main__":
    main()
