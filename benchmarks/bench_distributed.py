"""Benchmark of batch jobs and distributed searches on Dask (issue 19).  Run by hand:
``python benchmarks/bench_distributed.py [--scale 1.0] [--skip-search] [--skip-dedup]
[--diff-net 3-24-24-1] [--diff-box -1,1] [--walk-net 3-32-32-1] [--walk-box -1,1] [--walk-cells]
[--cells 8] [--nodes 400] [--only diff|regions] [--diff-split tree|cells] [--diff-pair float16|moved]
[--diff-seed 0] [--tree-nodes 48]``.

1. dedup of a generated zoo (``--scale 1``: 1 000 networks — 400 one-hidden-layer 784-64-10,
   300 bottleneck 8-6-16-2, 300 deep 4-12-12-12-1 — in 200 planted classes, members made by
   permutations and power-of-two scalings of every hidden layer, a neuron split in two halves
   and a dead neuron; plus 100 near-misses, a base network with one weight moved by 1e-9), as
   ``.npz`` weight files (float32 values, the near-misses float64), with 2 workers: every class
   compared with the planted truth, every merge certificate re-checked by ``verify``;
   networks/s (target >= 50).
2. ``search diff`` (default ``--diff-split tree``: the open nodes of one branch-and-bound tree
   as tasks, :func:`semialgebraic.distributed.tree.tree_diff`, ``--tree-nodes`` expansions per
   task, against the serial ``diff_bounds``, on 1 and ``--workers`` workers, the ``bab_bound``
   certificate checked in parts in the time; ``--diff-pair float16`` a generated net against
   its float16 copy; ``--diff-split cells``: the older mode, branch and bound whose open cells
   are tasks, split when over ``--nodes``, a half inheriting its parent's tree, as one serial
   search, the same cells serially in-process, and 2 workers); and ``search regions`` (the
   distributed breadth-first walk: batches of frontier regions as tasks, each region walked
   once, ``region_cover`` certificate checked in parts on the workers) serially in-process, on 1
   worker and on 2 workers (``--walk-cells``: also the cell mode it replaced).  Embedded
   LocalCluster started before the clock, certificate assembled and checked in the time: same
   certified answer (interval and cover; region hashes), wall, CPU seconds (client + workers;
   per process for the walk), speed-up and efficiency = serial wall / (workers x wall) (target
   >= 1.6x over one worker when the machine is idle at the start; else efficiency reported).
3. overhead: 100 trivial items (``dim`` of a 1-1-1 network) serially in-process vs 2 workers.

Reports wall time, task-seconds (the sum of the per-item times measured on the workers; the
CPU the tasks used), parallel efficiency = task-seconds / (wall x workers), and the load
average at the start.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from algebra.network import Network  # noqa: E402
from semialgebraic.distributed import distributed_diff, distributed_regions, run_batch  # noqa: E402
from semialgebraic.distributed.batch import read_records  # noqa: E402
from semialgebraic.distributed.cluster import DaskExecutor, SerialExecutor  # noqa: E402
from semialgebraic.verify import resolve_sidecar, verify  # noqa: E402


def _nonzero(rng, size, den):
    """Integers in [-9, 9] without 0 (generic networks: no zero weight or bias unless a dead
    neuron is planted), over *den*."""
    x = rng.integers(1, 10, size=size) * rng.choice(np.array([-1, 1]), size=size)
    return x.astype(np.float64) / den


def _layers(rng, widths, den=8):
    Ws = [_nonzero(rng, (b, a), den) for a, b in zip(widths, widths[1:])]
    bs = [_nonzero(rng, b, den) for b in widths[1:]]
    return Ws, bs


def _variant(rng, Ws, bs, kind):
    Ws, bs = [W.copy() for W in Ws], [b.copy() for b in bs]
    for l in range(len(Ws) - 1):
        n = Ws[l].shape[0]
        perm = rng.permutation(n)
        s = 2.0 ** rng.integers(-2, 3, size=n)
        Ws[l] = Ws[l][perm] * s[:, None]
        bs[l] = bs[l][perm] * s
        Ws[l + 1] = Ws[l + 1][:, perm] / s[None, :]
    if kind == "split":
        Ws[0] = np.vstack([Ws[0], Ws[0][:1]])
        bs[0] = np.append(bs[0], bs[0][0])
        col = Ws[1][:, :1] / 2
        Ws[1] = np.hstack([Ws[1][:, :1] / 2, Ws[1][:, 1:], col])
    elif kind == "dead":
        Ws[0] = np.vstack([Ws[0], np.zeros((1, Ws[0].shape[1]))])
        bs[0] = np.append(bs[0], -1.0)
        Ws[1] = np.hstack([Ws[1], np.full((Ws[1].shape[0], 1), 0.5)])
    return Ws, bs


def _save(path, Ws, bs, dtype=np.float32):
    arrays = {}
    for l, (W, b) in enumerate(zip(Ws, bs)):
        arrays[f"{2 * l}.weight"] = W.astype(dtype)
        arrays[f"{2 * l}.bias"] = b.astype(dtype)
    np.savez(path, **arrays)


def make_zoo(root: Path, scale: float, seed: int = 0):
    rng = np.random.default_rng(seed)
    fams = [((784, 64, 10), 400), ((8, 6, 16, 2), 300), ((4, 12, 12, 12, 1), 300)]
    files, truth, bases = [], [], []
    cls = 0
    for widths, count in fams:
        n = max(5, int(round(count * scale)))
        classes = max(1, n // 5)
        for c in range(classes):
            Ws, bs = _layers(rng, widths)
            bases.append((Ws, bs))
            for j in range(n // classes if c < classes - 1 else n - (n // classes) * (classes - 1)):
                kind = ("base", "perm", "split", "dead", "perm")[j % 5]
                V = (Ws, bs) if kind == "base" else _variant(rng, Ws, bs, kind)
                p = root / f"z{len(files):05d}.npz"
                _save(p, *V)
                files.append(str(p))
                truth.append(cls)
            cls += 1
    for k in range(max(1, int(round(100 * scale)))):
        Ws, bs = bases[k % len(bases)]
        Ws = [W.copy() for W in Ws]
        Ws[0][0, 0] += 1e-9
        p = root / f"z{len(files):05d}.npz"
        _save(p, Ws, bs, np.float64)
        files.append(str(p))
        truth.append(cls)
        cls += 1
    return files, truth


def _load():
    try:
        return os.getloadavg()[0]
    except OSError:
        return float("nan")


def _dask(workers):
    return DaskExecutor(workers=workers)


def _dedup_run(root, files, truth, ex, name):
    """One dedup of the zoo on *ex*: wall, client CPU, task-seconds; the partition is asserted
    equal to the planted truth and every merge certificate re-checked by ``verify``."""
    out = root / f"classes-{name}.jsonl"
    workers_cpu = _workers_cpu(ex)
    t, c = time.perf_counter(), time.process_time()
    s = run_batch("dedup", str(root / "z*.npz"), str(out), progress=False, executor=ex)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    workers_cpu = _workers_cpu(ex) - workers_cpu
    recs = read_records(out)
    cls = {r["file"]: r["class"] for r in recs}
    ok = all((cls[files[i]] == cls[files[j]]) == (truth[i] == truth[j])
             for i in range(len(files)) for j in range(i + 1, len(files)))
    t = time.perf_counter()
    certs = [r["certificate"] for r in recs if r.get("certificate")]
    checked = all(verify(resolve_sidecar(json.loads(Path(c).read_text()), c))[0] for c in certs)
    vt = time.perf_counter() - t
    busy = sum(r.get("time", 0) for r in recs)
    assert ok, "the classes differ from the planted truth"
    assert checked and s["merges"] == len(files) - len(set(truth)), "a merge is not certified"
    return {"wall": wall, "cpu": cpu, "busy": busy, "summary": s, "certs": len(certs), "verify": vt,
            "ok": ok, "checked": checked, "workers_cpu": workers_cpu}


def _workers_cpu(ex) -> float:
    """CPU seconds used so far by the worker processes of a Dask executor (0 serially)."""
    client = getattr(ex, "client", None)
    if client is None:
        return 0.0
    return sum(client.run(time.process_time).values())


def bench_dedup(scale, workers):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        t = time.perf_counter()
        files, truth = make_zoo(root, scale)
        gen = time.perf_counter() - t
        print(f"dedup: {len(files)} networks ({len(set(truth))} planted classes) generated in {gen:.1f} s; "
              f"load {_load():.2f}")
        rows = [("serial", 1, _dedup_run(root, files, truth, SerialExecutor(), "serial"))]
        t = time.perf_counter()
        ex = _dask(workers)
        start = time.perf_counter() - t
        print(f"  load before the {workers}-worker run: {_load():.2f}; cluster start {start:.1f} s (not in the row)")
        rows.append((f"{workers} workers", workers, _dedup_run(root, files, truth, ex, "dask")))
        ex.close()
        print("  | run | wall s | networks/s | task-seconds | efficiency | client CPU s | workers CPU s "
              "| networks per CPU-second | classes | merges | undecided | certificates re-checked (s) |")
        print("  |---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, w, r in rows:
            s = r["summary"]
            total = r["cpu"] + r["workers_cpu"]
            print(f"  | {name} | {r['wall']:.1f} | {len(files) / r['wall']:.1f} | {r['busy']:.1f} | "
                  f"{r['busy'] / (r['wall'] * w):.2f} | {r['cpu']:.1f} | {r['workers_cpu']:.1f} | "
                  f"{len(files) / total:.1f} | {s['classes']} | {s['merges']} | "
                  f"{s['undecided_pairs']} | {r['certs']} valid ({r['verify']:.1f}) |")
        print(f"  partition = planted truth in both runs; target >= 50 networks/s with {workers} workers: "
              f"{len(files) / rows[-1][2]['wall'] >= 50}")


def _pair(widths, seed=1):
    """A pair with the same architecture: random weights k/8, b = a with one weight of the
    second layer moved to k/7."""
    rng = random.Random(seed)

    def rows(a, b):
        return [[str(rng.randint(-8, 8)) + "/8" for _ in range(a)] for _ in range(b)]
    Ws = [rows(a, b) for a, b in zip(widths, widths[1:])]
    bs = [[str(rng.randint(-8, 8)) + "/8" for _ in range(n)] for n in widths[1:]]
    a = Network.from_rows(Ws, bs)
    Wb = [list(map(list, W)) for W in Ws]
    Wb[1][0][0] = str(rng.randint(-8, 8)) + "/7"
    return a, Network.from_rows(Wb, bs)


def _cpu(ex):
    """CPU seconds used so far by this process and the workers' processes."""
    own = time.process_time()
    if not isinstance(ex, DaskExecutor):
        return own
    return own + sum(ex.client.run(time.process_time).values())


def _timed(run, workers):
    """``(result, wall, cpu, load at start)`` of *run(ex)*, the cluster started beforehand."""
    load = _load()
    ex = SerialExecutor() if workers == 0 else _dask(workers)
    c0, t = _cpu(ex), time.perf_counter()
    try:
        r = run(ex)
        wall = time.perf_counter() - t
        cpu = _cpu(ex) - c0
    finally:
        ex.close()
    return r, wall, cpu, load


def _row(runs, same, workers):
    """One line per run (wall, CPU, load at start) and the speed-ups of the last run (the
    *workers*-worker one) over each serial one."""
    *serial, (_, w2, c2, l2, name2) = runs
    for _, w1, c1, l1, name in serial:
        print(f"  | {name} | {w1:.1f} | {c1:.1f} | {l1:.1f} | | |")
    for _, w1, _, _, name in serial:
        print(f"  | {name2} vs {name} | {w2:.1f} | {c2:.1f} | {l2:.1f} | {w1 / w2:.2f}x | "
              f"{w1 / (w2 * workers):.2f} |")
    print(f"  same certified answer: {same}; target 1.6x over one worker when the machine is idle "
          f"at the start (load < 0.5: {max(r[3] for r in runs) < 0.5}; else the efficiency is reported)")


def _header(title):
    print(title)
    print("  | run | wall s | CPU s (client + workers) | load at start | speed-up | efficiency |")
    print("  |---|---|---|---|---|---|")


def bench_search(diff_widths, walk_widths, walk_box, cells, nodes, workers, only=None, diff_box=None,
                 with_cells=False, **diff):
    """The two search rows: one serial search (``diff_bounds`` on the whole box / one cell's
    walk), the same cells serially in-process, and *workers* workers, each with the certificate
    assembled and checked (verification included in the time)."""
    if only != "regions" and diff.get("split") == "cells":
        bench_diff(diff_widths, cells, nodes, workers, diff_box)
    elif only != "regions":
        bench_tree_diff(diff_widths, diff.get("tree_nodes"), workers, diff_box, diff.get("pair", "moved"),
                        diff.get("seed", 0))
    if only != "diff":
        bench_walk(walk_widths, walk_box, cells, workers, with_cells)


def _float16_pair(widths, seed=0):
    """A generated net (He-normal weights, biases of scale 0.01, float32 values) and its float16
    copy, both read exactly (every float is the rational it denotes)."""
    rng = np.random.default_rng(seed)
    Ws = [(rng.standard_normal((m, n)) * np.sqrt(2 / n)).astype(np.float32)
          for n, m in zip(widths, widths[1:])]
    bs = [(0.01 * rng.standard_normal(m)).astype(np.float32) for m in widths[1:]]

    def net(dtype):
        def q(v):
            f = Fraction(float(dtype(v)))
            return f"{f.numerator}/{f.denominator}"
        return Network.from_rows([[[q(v) for v in row] for row in W] for W in Ws],
                                 [[q(v) for v in b] for b in bs])
    return net(np.float32), net(np.float16)


def bench_tree_diff(diff_widths, nodes, workers, lohi=None, kind="moved", seed=0):
    """The diff row: one serial search (``netfibers diff``: ``diff_bounds``, certificate checked)
    against the open nodes of one tree as tasks (``search diff``: :func:`tree_diff`, the
    ``bab_bound`` certificate checked in parts on the workers) on 1 and *workers* workers."""
    from semialgebraic.bab import diff_bounds
    from semialgebraic.distributed.tree import DEFAULT_NODES, tree_diff
    nodes = nodes or DEFAULT_NODES
    a, b = _pair(diff_widths) if kind == "moved" else _float16_pair(diff_widths, seed)
    d = diff_widths[0]
    lo, hi = lohi or (-1, 1)
    box = [(lo, hi)] * d
    name = "-".join(map(str, diff_widths))
    what = "one weight of layer 2 moved" if kind == "moved" else f"float16 copy, seed {seed}"
    _header(f"search diff {name} ({what}) on [{lo},{hi}]^{d}, open nodes of one tree as tasks, "
            f"{nodes} node expansions per task:")
    runs = [_timed(lambda ex: diff_bounds(a, b, box), 0) + ("netfibers diff (diff_bounds, checked)",)]
    _done(runs[-1])
    for w in (1, workers):
        runs.append(_timed(lambda ex: tree_diff(a, b, box, nodes=nodes, executor=ex), w)
                    + (f"tree, {w} worker{'s' if w > 1 else ''}",))
        _done(runs[-1])
    r0, r1, r2 = (r[0] for r in runs)
    same = ((r0.lower, r0.upper) == (r1.lower, r1.upper) == (r2.lower, r2.upper) and r0.checked
            and r1.verified and r2.verified
            and json.dumps(r1.certificate, sort_keys=True) == json.dumps(r2.certificate, sort_keys=True))
    splits = (r0.nodes - 2 * a.n_outputs) // 2       # a split opens 2 nodes, each root 1
    print(f"  max |a - b| = {r1.lower} (≈ {float(r1.lower):.6g}), upper {r1.upper}, complete "
          f"{r1.complete}; serial {r0.nodes} nodes ({splits} node expansions); tree {r1.expansions} node expansions in "
          f"{r1.tasks} tasks, certificate checked {r1.verified}, the same tree on 1 and {workers} "
          f"workers: {json.dumps(r1.certificate, sort_keys=True) == json.dumps(r2.certificate, sort_keys=True)}")
    _row(runs, same, workers)
    (_, _, c0, _, _), (_, _, c1, _, _), (_, _, c2, _, _) = runs
    print(f"  CPU s over the serial search's: tree on 1 worker {c1 / c0:.2f} (target <= 1.2: "
          f"{c1 / c0 <= 1.2}), on {workers} workers {c2 / c0:.2f} (the work the tasks add: the nodes a "
          f"task expands below the maximum before its wave is grafted, replays, engines per objective)")


def _done(run):
    """One line as a run of the diff row finishes (a long row shows its first runs)."""
    _, wall, cpu, load, name = run
    print(f"  ({name}: {wall:.1f} s wall, {cpu:.1f} CPU s, load at start {load:.1f})", flush=True)


def bench_diff(diff_widths, cells, nodes, workers, lohi=None):
    from semialgebraic.bab import diff_bounds
    a, b = _pair(diff_widths)
    d = diff_widths[0]
    lo, hi = lohi or (-1, 1)
    box = [(lo, hi)] * d
    name = "-".join(map(str, diff_widths))
    _header(f"search diff --split cells {name} (one weight of layer 2 moved) on [{lo},{hi}]^{d}, {cells} first "
            f"cells, {nodes} nodes per task:")
    runs = [_timed(lambda ex: diff_bounds(a, b, box), 0) + ("one search (diff_bounds, checked)",)]
    runs += [_timed(lambda ex: distributed_diff(a, b, box, cells=cells, nodes=nodes, executor=ex), w)
             + (f"{cells} cells, {'serial' if w == 0 else f'{w} workers'}",) for w in (0, workers)]
    r0, r1, r2 = (r[0] for r in runs)
    same = ((r0.lower, r0.upper) == (r1.lower, r1.upper) == (r2.lower, r2.upper)
            and r1.per_cell == r2.per_cell and r0.checked and r1.verified and r2.verified)
    print(f"  max |a - b| = {r1.lower} (≈ {float(r1.lower):.6g}), upper {r1.upper}, complete "
          f"{r1.complete}, {r1.tasks} tasks, cover of {r1.cells} cells, certificate checked {r1.verified}")
    _row(runs, same, workers)


def _per_process_cpu(ex):
    """``(client CPU s, [CPU s of each worker process])`` used so far."""
    own = time.process_time()
    if not isinstance(ex, DaskExecutor):
        return own, []
    return own, sorted(ex.client.run(time.process_time).values())


def _regions_by_pattern(cert):
    """The certified regions of *cert* (patterns, facets, the neighbours' patterns) in pattern
    order, as text: the same for the same regions in any order (the walk numbers the regions in
    the order it finds them, which depends on the workers)."""
    if not cert:
        return None
    regs = cert["regions"]
    return json.dumps(sorted((r["pattern"], r["facets"], [None if k is None else regs[k]["pattern"]
                                                          for k in r["neighbours"]]) for r in regs))


def bench_walk(walk_widths, walk_box, cells, workers, with_cells=False):
    """The walk row: the distributed breadth-first walk (``search regions``, the default) run
    serially in-process, on 1 worker and on *workers* workers (embedded LocalCluster started
    before the clock), the ``region_cover`` certificate assembled and checked part by part in
    the time; with *with_cells* also the cell mode (*cells* cells on *workers* workers) it
    replaces.  Same regions (patterns, facets, neighbours, compared by pattern:
    :func:`_regions_by_pattern`) in every run."""
    net, _ = _pair(walk_widths, seed=2)
    lo, hi = walk_box
    name = "-".join(map(str, walk_widths))
    _header(f"search regions {name} on [{lo},{hi}]^{walk_widths[0]}, distributed walk "
            "(region_cover certificate built and checked, parts on the workers):")
    box = [(lo, hi)] * walk_widths[0]
    runs, split = [], []
    for w in (0, 1, workers):
        load = _load()
        ex = SerialExecutor() if w == 0 else _dask(w)
        (c0, ws0), t = _per_process_cpu(ex), time.perf_counter()
        try:
            r = distributed_regions(net, box, executor=ex)
            wall = time.perf_counter() - t
            c1, ws1 = _per_process_cpu(ex)
        finally:
            ex.close()
        split.append((c1 - c0, [b - a for a, b in zip(ws0, ws1)]))
        runs.append((r, wall, c1 - c0 + sum(ws1) - sum(ws0), load,
                     "serial (in-process)" if w == 0 else f"{w} worker{'s' if w > 1 else ''}"))
    gs = [r[0] for r in runs]
    if with_cells:
        c, wall, cpu, load = _timed(lambda ex: distributed_regions(net, box, cells=cells, executor=ex),
                                    workers)
        print(f"  the cell mode it replaces, {cells} cells on {workers} workers: wall {wall:.1f} s, CPU "
              f"{cpu:.1f} s, load at start {load:.1f}, same regions {c.patterns == gs[0].patterns}")
        gs.append(c)
    hs = [_regions_by_pattern(g.certificate) for g in gs]
    same = all(g.patterns == gs[0].patterns and g.verified for g in gs) and len(set(hs)) == 1
    print(f"  {gs[0].number_of_regions} regions, complete {gs[0].complete}, region_cover checked "
          f"{gs[0].verified}; tasks {[g.tasks for g in gs]}")
    for (g, _, _, _, nm), (cc, wc) in zip(runs, split):
        print(f"  CPU s of {nm}: client {cc:.1f}, workers {', '.join(f'{v:.1f}' for v in wc) or '-'}; "
              f"in the walk's {g.tasks} tasks {g.task_cpu:.1f}")
    c0, c2 = runs[0][2], runs[-1][2]
    print(f"  CPU of {workers} workers / CPU serial: {c2 / c0:.2f} (work added by distributing); "
          f"serial CPU / (CPU of {workers} workers / {workers}): {c0 * workers / c2:.2f}x "
          "(the speed-up on idle cores if the work splits evenly)")
    _row(runs, same, workers)


def bench_overhead(n=100):
    """100 trivial items: serially in-process; ``run_batch(workers=2)`` as ``netfibers batch
    --workers 2`` runs it (the embedded cluster starts only when the estimated work exceeds
    ``START_COST``); ``start_cluster=True`` (the cluster started at once in the background while
    the manifest is read, the items running here until it is up, then on it; closed at the
    end); and a 2-worker cluster started first and waited for (start, run, close all timed)."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        net = Network.from_rows([[[1]], [[1]]], [[0], [0]])
        for k in range(n):
            (root / f"t{k:03d}.json").write_text(json.dumps(net.to_dict()))
        rows = {}
        for name, kw in (("serial", {"executor": SerialExecutor()}), ("workers=2 (lazy)", {"workers": 2}),
                         ("workers=2, cluster started at once", {"workers": 2, "start_cluster": True}),
                         ("2-worker cluster started and waited for", None)):
            load = _load()
            t, c = time.perf_counter(), time.process_time()
            ex = _dask(2) if kw is None else None
            s = run_batch("dim", str(root / "t*.json"), str(root / f"{len(rows)}.jsonl"), progress=False,
                          **(kw or {"executor": ex}))
            if ex is not None:
                ex.close()
            rows[name] = (time.perf_counter() - t, time.process_time() - c, s["where"], s["ok"], load)
        serial = rows["serial"][0]
        for name, (wall, cpu, where, ok, load) in rows.items():
            print(f"overhead: {n} trivial items, {name}: wall {wall:.2f} s, client CPU {cpu:.2f} s, "
                  f"ran {where}, {ok} ok, load at start {load:.1f}; within 5 s of serial: {wall - serial <= 5}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0, help="zoo size factor (1: 1 000 + 100)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--diff-net", default="3-24-24-1",
                    help="widths of the diff pair (default 3-24-24-1 against its float16 copy: a "
                         "serial netfibers diff of more than 60 s, the issue's size)")
    ap.add_argument("--walk-net", default="3-32-32-1", help="widths of the walked network (3-32-32-1: a serial walk and check of >= 60 s, the issue's size)")
    ap.add_argument("--walk-cells", action="store_true",
                    help="regions: also the cell mode (--cells cells) the walk replaces")
    ap.add_argument("--walk-box", default="-1,1", help="lo,hi of the walked cube")
    ap.add_argument("--cells", type=int, default=8)
    ap.add_argument("--nodes", type=int, default=400, help="diff: node expansions per task")
    ap.add_argument("--diff-box", default="-1,1", help="lo,hi of the diff's cube")
    ap.add_argument("--diff-split", choices=("tree", "cells"), default="tree",
                    help="diff: open nodes of one tree as tasks (default) or cells of the box")
    ap.add_argument("--diff-pair", choices=("moved", "float16"), default="float16",
                    help="diff: one weight of layer 2 moved, or a float16 copy of a generated net")
    ap.add_argument("--diff-seed", type=int, default=0, help="diff: seed of the float16 pair")
    ap.add_argument("--tree-nodes", type=int, default=None, help="diff: node expansions per task")
    ap.add_argument("--only", choices=("diff", "regions"), help="one search row")
    ap.add_argument("--skip-search", action="store_true")
    ap.add_argument("--skip-dedup", action="store_true")
    ap.add_argument("--skip-overhead", action="store_true")
    args = ap.parse_args()
    print(f"load average at start: {_load():.2f} on {os.cpu_count()} cores")
    if not args.skip_overhead:
        bench_overhead()
    if not args.skip_dedup:
        bench_dedup(args.scale, args.workers)
    if not args.skip_search:
        widths = [tuple(int(v) for v in w.split("-")) for w in (args.diff_net, args.walk_net)]
        bench_search(*widths, tuple(int(v) for v in args.walk_box.split(",")), args.cells,
                     args.nodes, args.workers, args.only,
                     tuple(int(v) for v in args.diff_box.split(",")), args.walk_cells,
                     split=args.diff_split, tree_nodes=args.tree_nodes, pair=args.diff_pair,
                     seed=args.diff_seed)


if __name__ == "__main__":
    main()
