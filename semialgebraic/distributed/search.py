"""One large search split into cells of a box, one task per cell (serially or on Dask).

* :func:`distributed_diff` — ``max_o max_{x in box} |a_o − b_o|`` by the exact branch and bound
  (:func:`semialgebraic.bab.diff_bounds`) on each cell; the certified intervals combine as
  (max of the lowers, max of the uppers) and the per-cell ``bab_bound`` certificates with the
  cover of the box form one ``bab_cover`` certificate, assembled here and checked part by part
  (:func:`semialgebraic.verify.verify_part`: the cover at the client, one task per cell).
* :func:`distributed_regions` — the linear regions meeting the box: each cell's task walks the
  regions meeting its cell (:func:`semialgebraic.regions.regions` with the cell as domain); a
  region meets the box in an open set iff it meets some cell in an open set, so the union of
  the cells' regions, joined by activation pattern, is exactly the box's.

Tasks receive networks as native JSON dicts and cells as exact strings (no pickled objects of
the project).  ``checkpoint``: a JSON Lines file — a header naming the search (a digest of the
networks, the box and the cells) and one line per finished cell, each one ``write`` + flush —
from which a rerun takes the finished cells.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q

from ..bab import diff_bounds
from ..budget import Budget
from ..certificates import jsonable
from ..certificates.bab_cover import bab_cover_certificate
from ..exceptions import CertificateError
from ..regions import regions
from ..sets import Polyhedron
from ..verify import verify_part
from .cluster import executor as make_executor

__all__ = ["split_box", "distributed_diff", "distributed_regions", "DiffResult", "RegionsResult"]


def split_box(box, cells: int) -> list:
    """*cells* boxes covering *box* with disjoint interiors: the widest cell is halved along its
    widest coordinate until there are *cells* (a coordinate of width 0 is never split).

    >>> [[(str(l), str(h)) for l, h in c] for c in split_box([(0, 1), (0, 2)], 3)]
    [[('0', '1/2'), ('0', '1')], [('1/2', '1'), ('0', '1')], [('0', '1'), ('1', '2')]]
    """
    out = [[(to_q(lo), to_q(hi)) for lo, hi in box]]
    while len(out) < cells:
        k = max(range(len(out)), key=lambda i: (max(hi - lo for lo, hi in out[i]), -i))
        cell = out[k]
        j = max(range(len(cell)), key=lambda i: (cell[i][1] - cell[i][0], -i))
        lo, hi = cell[j]
        if lo == hi:
            break
        mid = (lo + hi) / 2
        left, right = list(cell), list(cell)
        left[j], right[j] = (lo, mid), (mid, hi)
        out[k:k + 1] = [left, right]
    return out


def _cells_json(cells):
    return [[[q_json(lo), q_json(hi)] for lo, hi in c] for c in cells]


class _Checkpoint:
    """Finished cells of one search (JSON Lines; see the module docstring)."""

    def __init__(self, path, key: str):
        self.path = Path(path) if path else None
        self.key = key
        self.done: dict = {}
        if self.path is None:
            return
        if self.path.exists():
            lines = self.path.read_bytes().splitlines(keepends=True)
            good = 0
            for k, line in enumerate(lines):
                try:
                    rec = json.loads(line) if line.endswith(b"\n") else None
                except json.JSONDecodeError:
                    rec = None
                if rec is None:
                    break
                if k == 0:
                    if rec.get("search") != key:
                        raise InputError("the checkpoint belongs to another search (other "
                                         "networks, box or cells)", source=str(self.path))
                else:
                    self.done[rec["cell"]] = rec["result"]
                good += len(line)
            if good == 0:
                self.path.write_text(json.dumps({"search": key}) + "\n")
            elif good < sum(map(len, lines)):
                with open(self.path, "r+b") as f:
                    f.truncate(good)
        else:
            self.path.write_text(json.dumps({"search": key}) + "\n")

    def add(self, cell: int, result: dict) -> None:
        self.done[cell] = result
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"cell": cell, "result": result}) + "\n")
                f.flush()


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(jsonable(list(parts)), sort_keys=True).encode()).hexdigest()[:32]


def _progress(what, done: dict, n: int) -> None:
    """One stderr line: finished and open cells, and the current certified bound (diff)."""
    line = f"search {what}: {len(done)}/{n} cells done, {n - len(done)} open"
    if what == "diff" and done:
        lo = max(to_q(r["lower"]) for r in done.values())
        hi = max(to_q(r["upper"]) for r in done.values())
        line += f"; max |a - b| >= {float(lo):.6g} so far (cells done: <= {float(hi):.6g})"
    elif done:
        line += f"; {len({tuple(r['pattern']) for c in done.values() for r in c['regions']})} regions so far"
    print(line, file=sys.stderr, flush=True)


def _run_cells(what, fn, static, cells, workers, scheduler, memory_limit, checkpoint, key,
               executor=None, progress=False):
    ck = _Checkpoint(checkpoint, key)
    todo = [k for k in range(len(cells)) if k not in ck.done]
    ex = executor or make_executor(workers, scheduler, memory_limit)
    try:
        calls = [(k, (*static, _cells_json([cells[k]])[0])) for k in todo]
        for k, res in ex.map_unordered(fn, calls):
            ck.add(k, res)
            if progress:
                _progress(what, ck.done, len(cells))
        return ck.done, ex
    except BaseException:
        if executor is None:
            ex.close()
        raise


# -- diff ------------------------------------------------------------------------------------
def diff_cell(a_json: dict, b_json: dict, timeout, cell) -> dict:
    """Task: ``diff_bounds`` on one cell (its certificate unchecked: the client checks parts)."""
    a, b = network_from_dict(a_json), network_from_dict(b_json)
    r = diff_bounds(a, b, [(to_q(lo), to_q(hi)) for lo, hi in cell], timeout=timeout, verify=False)
    return {"lower": q_json(r.lower), "upper": q_json(r.upper),
            "point": [q_json(v) for v in r.point], "output": r.output, "nodes": r.nodes,
            "reason": r.reason, "certificate": jsonable(r.certificate)}


def check_part(cert: dict, part) -> tuple:
    """Task: one part of a ``bab_cover`` certificate (:func:`semialgebraic.verify.verify_part`)."""
    return verify_part(cert, part)


@dataclass
class DiffResult:
    """Certified ``lower <= max_o max_x |a_o − b_o| <= upper`` over the box, from *cells* cells."""

    lower: Q
    upper: Q
    point: tuple
    output: int
    cells: int
    complete: bool
    verified: bool
    certificate: dict | None
    where: str = "serial"
    seconds: float = 0.0
    per_cell: list = field(default_factory=list)

    def to_json(self) -> dict:
        return {"lower": str(self.lower), "upper": str(self.upper),
                "max_deviation": q_json(self.lower), "point": [q_json(v) for v in self.point],
                "output": self.output, "cells": self.cells, "complete": self.complete,
                "verified": self.verified, "where": self.where, "seconds": round(self.seconds, 3),
                "per_cell": self.per_cell, "method": "branch and bound, distributed by cells"}


def distributed_diff(a: Network, b: Network, box, *, cells: int | None = None,
                     workers: int | None = None, scheduler: str | None = None,
                     memory_limit=None, timeout: float | None = None, checkpoint=None,
                     verify: bool = True, executor=None, progress: bool = False) -> DiffResult:
    """Certified interval on ``max_o max_{x in box} |a_o − b_o|``, one branch and bound per cell.

    The same interval as :func:`semialgebraic.bab.diff_bounds` on the whole box whenever both
    are complete (the maximum over a union of cells is the maximum of the cells' maxima).
    *workers* 0 runs serially.  With *verify*, the ``bab_cover`` certificate is checked part by
    part (a failure raises :class:`CertificateError`: a bug).

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    >>> r = distributed_diff(a, b, [(-1, 2)], cells=3, workers=0)
    >>> r.lower, r.upper, r.complete, r.verified
    (1, 1, True, True)
    """
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures {a.signature} and {b.signature}")
    box = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if len(box) != a.n_inputs or any(lo > hi for lo, hi in box):
        raise InputError(f"the box needs {a.n_inputs} intervals lo <= hi")
    t0 = time.perf_counter()
    cells_n = cells or max(1, 4 * (workers or 2))
    parts = split_box(box, cells_n)
    aj, bj = jsonable(a.to_dict()), jsonable(b.to_dict())
    key = _digest("diff", aj, bj, _cells_json(parts))
    done, ex = _run_cells("diff", diff_cell, (aj, bj, timeout), parts, workers, scheduler,
                          memory_limit, checkpoint, key, executor, progress)
    try:
        res = [done[k] for k in range(len(parts))]
        lower_cell = max(range(len(res)), key=lambda k: (to_q(res[k]["lower"]), -k))
        lower = to_q(res[lower_cell]["lower"])
        upper = max(to_q(r["upper"]) for r in res)
        point = tuple(to_q(v) for v in res[lower_cell]["point"])
        output = res[lower_cell]["output"]
        cert = bab_cover_certificate(a, b, box, [r["certificate"] for r in res], upper, lower,
                                     point, output)
        verified = False
        if verify:
            ok, why = verify_part(cert, "geometry")
            if ok:
                calls = [(k, ({**cert, "cells": [c]}, 0)) for k, c in enumerate(cert["cells"])]
                for k, (ok_k, why_k) in ex.map_unordered(check_part, calls):
                    if not ok_k:
                        ok, why = False, f"cell {k}: {why_k}"
                        break
            if not ok:
                raise CertificateError("bab_cover", why)
            verified = True
    finally:
        if executor is None:
            ex.close()
    per_cell = [{"box": _cells_json([parts[k]])[0], "lower": r["lower"], "upper": r["upper"],
                 "nodes": r["nodes"]} for k, r in enumerate(res)]
    return DiffResult(lower, upper, point, output, len(parts), lower == upper, verified, cert,
                      getattr(ex, "kind", "serial"), time.perf_counter() - t0, per_cell)


# -- regions ---------------------------------------------------------------------------------
def regions_cell(net_json: dict, timeout, cell) -> dict:
    """Task: the activation patterns (and an interior point each) of the regions meeting *cell*."""
    net = network_from_dict(net_json)
    d = net.n_inputs
    rows, rhs = [], []
    for i, (lo, hi) in enumerate(cell):
        e = [0] * d
        e[i] = 1
        rows += [e, [-v for v in e]]
        rhs += [to_q(hi), -to_q(lo)]
    budget = Budget(timeout=timeout)
    walk = regions(net, domain=Polyhedron(rows, rhs, d), budget=budget)
    found = [{"pattern": list(r.pattern), "point": [q_json(v) for v in r.point]} for r in walk]
    return {"regions": found, "complete": bool(walk.complete)}


@dataclass
class RegionsResult:
    """The regions meeting the box (``patterns`` sorted, one interior point each)."""

    patterns: list
    points: list
    cells: int
    complete: bool
    where: str = "serial"
    seconds: float = 0.0

    @property
    def number_of_regions(self) -> int:
        return len(self.patterns)

    def to_json(self) -> dict:
        return {"number_of_regions": self.number_of_regions, "complete": self.complete,
                "cells": self.cells, "where": self.where, "seconds": round(self.seconds, 3),
                "regions": [{"pattern": p, "point": x} for p, x in zip(self.patterns, self.points)]}


def distributed_regions(net: Network, box, *, cells: int | None = None,
                        workers: int | None = None, scheduler: str | None = None,
                        memory_limit=None, timeout: float | None = None, checkpoint=None,
                        executor=None, progress: bool = False) -> RegionsResult:
    """The linear regions of *net* meeting *box* (module docstring), one walk per cell.

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> distributed_regions(net, [(-2, 2)], cells=4, workers=0).patterns
    [[-1, 1], [1, -1], [1, 1]]
    """
    box = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if len(box) != net.n_inputs or any(lo > hi for lo, hi in box):
        raise InputError(f"the box needs {net.n_inputs} intervals lo <= hi")
    t0 = time.perf_counter()
    parts = split_box(box, cells or max(1, 4 * (workers or 2)))
    nj = jsonable(net.to_dict())
    key = _digest("regions", nj, _cells_json(parts))
    done, ex = _run_cells("regions", regions_cell, (nj, timeout), parts, workers, scheduler,
                          memory_limit, checkpoint, key, executor, progress)
    if executor is None:
        ex.close()
    seen: dict = {}
    for k in range(len(parts)):
        for r in done[k]["regions"]:
            seen.setdefault(tuple(r["pattern"]), r["point"])
    pats = sorted(seen)
    return RegionsResult([list(p) for p in pats], [seen[p] for p in pats], len(parts),
                         all(done[k]["complete"] for k in range(len(parts))),
                         getattr(ex, "kind", "serial"), time.perf_counter() - t0)
