"""Benchmark: exact linear-region enumeration vs relucent (float, Gurobi LPs).

Run by hand:  python benchmarks/bench_regions.py [--nets 2-16-16-1,3-20-20-1,4-16-16-16-1]
              [--seeds 0] [--skip-relucent] [--relucent-verify] [--max-regions N]
              [--before REV] [--timeout SECONDS]

Random ReLU nets with fixed seeds: weights and biases are float64 standard normal draws rounded
to multiples of 1/64, so the float tool and the exact tool see *identical* numbers (every
value is a dyadic rational).  Both walk the whole input space R^d.  The region counts must
agree; a disagreement is printed as a finding (the exact count is proved: every region has an
exact interior point, and every facet's neighbour is certified).  Times are wall clock on the
same machine, one worker each (relucent ``nworkers=1``, ``verify=False`` unless
``--relucent-verify``).  With ``--max-regions N`` both tools stop after N regions (BFS from the
origin): a partial, time-only comparison for nets too large to enumerate here.

The exact walk's row keeps only each region's :func:`summary` (what the hash covers), so a
long walk holds no regions in memory.

``--before REV`` also runs the walk of git revision REV (checked out into a temporary
directory, run in a subprocess on the same net, in the same minute) and prints its CPU
seconds per region and the ratio before/after: the machine is shared, so the figures compared
are CPU seconds (``time.process_time``), not wall clock.  The region counts of both must agree,
and so must a hash of the certified output (every region's pattern, facets, facet classes and
neighbours: :func:`digest`).  The libraries either walk may load lazily (highspy, scipy's
Qhull: :func:`preload`, about 0.1 s and 0.6 s of CPU) are imported before the clock starts, in
both runs: a one-time cost, not a cost per region.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import OrderedDict

import numpy as np

from algebra.network import Network
from algebra.rationals import from_float
from semialgebraic.regions import regions


def weights(widths, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(len(widths) - 1):
        W = np.round(rng.standard_normal((widths[i + 1], widths[i])) * 64) / 64
        b = np.round(rng.standard_normal(widths[i + 1]) * 64) / 64
        out.append((W, b))
    return out


def exact_net(ws) -> Network:
    return Network([[[from_float(v) for v in row] for row in W] for W, _ in ws],
                   [[from_float(v) for v in b] for _, b in ws])


def digest(rs) -> str:
    """Hash of the certified output: every region's pattern, facets, facet classes and
    neighbours (sorted by pattern, so the visiting order does not matter)."""
    return digest_of(summary(r) for r in rs)


def summary(r) -> tuple:
    """What :func:`digest` hashes of one region (kept instead of the region: memory)."""
    return (r.pattern, r.facets, r.facet_classes, r.neighbours)


def digest_of(summaries) -> str:
    """:func:`digest` from the regions' :func:`summary` tuples."""
    h = hashlib.sha256()
    for item in sorted(summaries, key=lambda item: item[0]):
        h.update(repr(item).encode())
    return h.hexdigest()[:12]


_PRELOAD = ("import importlib\n"
            "for _m in ('highspy', 'scipy.spatial'):\n"
            "    try:\n"
            "        importlib.import_module(_m)\n"
            "    except ImportError:\n"
            "        pass\n")


def preload() -> None:
    """Import the libraries the walks load lazily (one-time costs, outside the clock)."""
    exec(_PRELOAD, {})          # noqa: S102 - a fixed string, shared with run_before


def run_exact(ws, max_regions=None, timeout=None, hashes=False):
    """(regions, wall seconds, CPU seconds, complete[, digest]) of the exact walk."""
    net = exact_net(ws)
    preload()
    t, c = time.perf_counter(), time.process_time()
    walk = regions(net, progress=False, max_regions=max_regions, timeout=timeout)
    rs = [summary(r) for r in walk] if hashes else None
    n = len(rs) if hashes else sum(1 for _ in walk)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    assert walk.complete or max_regions is not None or timeout is not None
    out = (n, dt, dc, walk.complete)
    return out + (digest_of(rs),) if hashes else out


def checkout(rev: str) -> str:
    """A temporary directory holding the tree of git revision *rev* (for ``--before``)."""
    root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True, cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    tmp = tempfile.mkdtemp(prefix="bench_regions_before_")
    archive = subprocess.run(["git", "archive", rev], capture_output=True, check=True, cwd=root).stdout
    subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
    return tmp


_DIGEST_SRC = ("(lambda rs: __import__('hashlib').sha256(''.join(repr((r.pattern, r.facets, "
               "r.facet_classes, r.neighbours)) for r in sorted(rs, key=lambda r: r.pattern))"
               ".encode()).hexdigest()[:12])")


def _has_digest(tree: str) -> bool:
    with open(os.path.join(tree, "benchmarks", "bench_regions.py"), encoding="utf-8") as fh:
        return "def digest(" in fh.read()


def run_before(tree: str, spec: str, seed: int, max_regions):
    """(regions, wall s, CPU s, digest) of the walk of the checked-out *tree*, in a
    subprocess (the digest as :func:`digest` computes it, inlined for older trees)."""
    code = (_PRELOAD +
            "import json, sys, time; sys.path.insert(0, 'benchmarks'); import bench_regions as b; "
            "from semialgebraic.regions import regions; "
            f"ws = b.weights({[int(v) for v in spec.split('-')]}, {seed}); c = time.process_time(); "
            f"t = time.perf_counter(); rs = list(regions(b.exact_net(ws), progress=False, "
            f"max_regions={max_regions!r})); dt = time.perf_counter() - t; "
            "dc = time.process_time() - c; "
            "print(json.dumps([len(rs), dt, dc, DIGEST(rs)]))")
    code = code.replace("DIGEST", "b.digest" if _has_digest(tree) else _DIGEST_SRC)
    env = dict(os.environ, PYTHONPATH=tree)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=tree, env=env).stdout
    return tuple(json.loads(out.strip().splitlines()[-1]))


def run_relucent(ws, verify, max_regions=None):
    import relucent
    from relucent.model.model import LinearLayer, ReLULayer, ReLUNetwork
    layers = OrderedDict()
    for i, (W, b) in enumerate(ws):
        layers[f"fc{i}"] = LinearLayer(weight=W.astype(np.float64), bias=b.astype(np.float64))
        if i < len(ws) - 1:
            layers[f"relu{i}"] = ReLULayer()
    net = ReLUNetwork(layers, input_shape=(ws[0][0].shape[1],))
    c = relucent.Complex(net)
    t = time.perf_counter()
    c.bfs(nworkers=1, verify=verify and max_regions is None, verbose=0,
          max_polys=float("inf") if max_regions is None else max_regions)
    dt = time.perf_counter() - t
    return len(c), dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nets", default="2-16-16-1,3-20-20-1,4-16-16-16-1")
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--skip-relucent", action="store_true")
    ap.add_argument("--relucent-verify", action="store_true")
    ap.add_argument("--max-regions", type=int, default=None)
    ap.add_argument("--before", metavar="REV", default=None,
                    help="also time the walk of git revision REV (CPU s/region and the ratio)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="stop the exact walk after SECONDS (the row is then marked partial)")
    args = ap.parse_args()
    tree = checkout(args.before) if args.before else None
    print(f"{'net':<16}{'seed':>5}{'regions':>9}{'exact s':>10}{'cpu s':>9}{'cpu ms/reg':>11}"
          f"{'hash':>14}" + (f"{'before':>11}{'speed-up':>9}  same" if tree else "")
          + ("" if args.skip_relucent else f"{'relucent':>10}{'relucent s':>12}{'ratio':>8}  agree"))
    for spec in args.nets.split(","):
        widths = [int(v) for v in spec.split("-")]
        for seed in (int(s) for s in args.seeds.split(",")):
            ws = weights(widths, seed)
            n, dt, dc, complete, h = run_exact(ws, args.max_regions, args.timeout, hashes=True)
            row = f"{spec:<16}{seed:>5}{n:>9}{dt:>10.2f}{dc:>9.1f}{1000 * dc / n:>11.2f}{h:>14}"
            if not complete and args.max_regions is None:
                row += "  (partial: --timeout)"
            if tree:
                bn, _, bc, bh = run_before(tree, spec, seed, args.max_regions)
                row += f"{1000 * bc / bn:>11.2f}{(bc / bn) / (dc / n):>8.2f}x"
                row += "  yes" if (bn, bh) == (n, h) else \
                    f"  NO: revision {args.before} gives {bn} regions, hash {bh} (finding)"
            if args.skip_relucent:
                print(row, flush=True)
                continue
            rn, rdt = run_relucent(ws, args.relucent_verify, args.max_regions)
            agree = "yes" if rn == n else f"NO: relucent reports {rn}, exact {n} (finding)"
            if args.max_regions is not None:
                agree = f"partial (first {args.max_regions} regions of each BFS)"
            print(f"{row}{rn:>10}{rdt:>12.2f}{dt / rdt:>7.2f}x  {agree}", flush=True)


if __name__ == "__main__":
    main()
