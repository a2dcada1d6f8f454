"""One large search split into cells of a box, one task per cell (serially or on Dask).

* :func:`distributed_diff` — ``max_o max_{x in box} |a_o − b_o|`` by the exact branch and bound
  (:func:`semialgebraic.bab.diff_bounds`) on each cell; the certified intervals combine as
  (max of the lowers, max of the uppers) and the per-cell ``bab_bound`` certificates with the
  cover of the box form one ``bab_cover`` certificate, assembled here and checked part by part
  (:func:`semialgebraic.verify.verify_part`: the cover at the client, one task per cell).
* :func:`cell_regions` — the linear regions meeting the box: each cell's task walks the
  regions meeting its cell (:func:`semialgebraic.regions.regions` with the cell as domain); a
  region meets the box in an open set iff it meets some cell in an open set, so the union of
  the cells' regions, joined by activation pattern, is exactly the box's.  For the
  ``region_cover`` certificate the cells' walks keep their work: a region inside its cell
  comes back with its certificate piece; only the regions cut by a cell boundary are
  recomputed on the box (:mod:`.cover`).  The distributed breadth-first walk
  (:mod:`.walk`, the default of :func:`semialgebraic.distributed.distributed_regions`) does
  each region once and is faster; the cells are kept to measure against it.

Tasks receive networks as native JSON dicts and cells as exact strings (no pickled objects of
the project).  ``checkpoint``: a JSON Lines file — a header naming the search (a digest of the
networks, the box and the cells) and one line per finished cell, each one ``write`` + flush —
from which a rerun takes the finished cells.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q

from .checkpoints import refuse_foreign
from ..bab import diff_bounds
from ..budget import Budget, BudgetExhausted, alarm_at, answer_kept, shown
from ..certificates import jsonable
from ..bab.align import alignment
from ..certificates.bab_bound import bab_bound_certificate
from ..certificates.bab_cover import bab_cover_certificate
from ..exceptions import CertificateError
from ..regions import regions
from ..verify import verify_part
from . import cover
from .cluster import executor as make_executor

__all__ = ["split_box", "distributed_diff", "cell_regions", "check_region_cover", "DiffResult",
           "RegionsResult"]


MAX_CELLS = 100_000
"""The most cells a search splits its box into (100 000 take ~1.6 s to make; each is a task
with its own walk or tree: 10^6 took 19 s before any work, 10^11 never returned)."""


def split_box(box, cells: int) -> list:
    """*cells* boxes covering *box* with disjoint interiors: the widest cell is halved along its
    widest coordinate until there are *cells* (a coordinate of width 0 is never split).

    >>> [[(str(l), str(h)) for l, h in c] for c in split_box([(0, 1), (0, 2)], 3)]
    [[('0', '1/2'), ('0', '1')], [('1/2', '1'), ('0', '1')], [('0', '1'), ('1', '2')]]
    """
    # The widest cell, the first of the widest in the list, is halved in place.  A cell's place
    # in the list is that of its path in the tree of halvings (0 left, 1 right: no leaf's path
    # is a prefix of another's, so the paths' order is the list's), so a heap keyed by (-width,
    # path) picks the same cell as a scan of the list: O(K log K), not O(K^2) (--cells 10^6 ran
    # on past --timeout in the scan: s48 hostile audit S3).
    if not 1 <= cells <= MAX_CELLS:
        raise InputError(f"--cells must be between 1 and {MAX_CELLS}, got {cells}")
    first = [(to_q(lo), to_q(hi)) for lo, hi in box]
    heap = [(-max((hi - lo for lo, hi in first), default=Q(0)), (), first)]
    leaves = 1
    while leaves < cells:
        width, path, cell = heap[0]
        if width == 0:
            break
        left, right = _halve(cell)
        heapq.heapreplace(heap, _keyed(left, path + (0,)))
        heapq.heappush(heap, _keyed(right, path + (1,)))
        leaves += 1
    return [cell for _, _, cell in sorted(heap, key=lambda item: item[1])]


def _keyed(cell, path):
    return (-max(hi - lo for lo, hi in cell), path, cell)


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
        refuse_foreign(self.path)
        if self.path.exists():
            lines = self.path.read_bytes().splitlines(keepends=True)
            good = 0
            for k, line in enumerate(lines):
                try:
                    rec = json.loads(line) if line.endswith(b"\n") else None
                except (ValueError, RecursionError):   # (a 60 000-digit integer: exit 4, s48 S1)
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


def _progress(done: dict, n: int, pats: set, res: dict, shown: list) -> None:
    """One stderr line of the region walk (at most every 0.5 s, and at the last cell):
    finished and open cells, regions so far (*pats*, updated with the cell result *res*: a
    set made again from every cell at every cell was O(K^2), 100 000 cells ran for minutes)."""
    pats.update(tuple(r["pattern"]) for r in res.get("regions", ()))
    now = time.monotonic()
    if now - shown[0] < 0.5 and len(done) < n:
        return
    shown[0] = now
    print(f"search regions: {len(done)}/{n} cells done, {n - len(done)} open; {len(pats)} regions "
          "so far", file=sys.stderr, flush=True)


def _run_cells(fn, static, cells, workers, scheduler, memory_limit, checkpoint, key,
               executor=None, progress=False, after=(), timeout=None, start=None):
    """Run the unfinished *cells* as tasks: ``(done, ex, reason)``, *done* the results by cell,
    *reason* ``"interrupted (Ctrl-C)"`` when Ctrl-C stopped them (else ""): the cells finished
    so far are kept (and a cell whose in-process walk Ctrl-C cut, with its regions so far,
    ``"interrupted"`` in its result; never written to the checkpoint, so a rerun walks it)."""
    ck = _Checkpoint(checkpoint, key)
    todo = [k for k in range(len(cells)) if k not in ck.done]
    ex = executor or make_executor(workers, scheduler, memory_limit, timeout=timeout)
    try:
        calls = [(k, (*static, _cells_json([cells[k]])[0], *after)) for k in todo]
        end = None if timeout is None else (start or time.monotonic()) + timeout
        pats: set = set()
        for c in ck.done.values():
            pats.update(tuple(r["pattern"]) for r in c.get("regions", ()))
        shown = [0.0]
        wave = max(DEFAULT_WAVE, 16 * getattr(ex, "workers", 1))   # (submitting 10^5 cells
        try:                                       # to Dask at once took 40 s past --timeout 5)
            for w in range(0, len(calls), wave):
                for k, res in ex.map_unordered(fn, calls[w:w + wave]):
                    if res.get("interrupted"):      # in process: Ctrl-C ended the cell's walk
                        ck.done[k] = res
                        raise KeyboardInterrupt
                    ck.add(k, res)
                    if progress:
                        _progress(ck.done, len(cells), pats, res, shown)
                    if end is not None and time.monotonic() >= end and len(ck.done) < len(cells):
                        return ck.done, ex, f"timeout of {timeout:g} s reached"  # (each cell
        except KeyboardInterrupt:          # had the whole timeout, 10^5 cells ran on: s49)
            return ck.done, ex, "interrupted (Ctrl-C)"
        return ck.done, ex, ""
    except BaseException:
        if executor is None:
            ex.close()
        raise


# -- diff ------------------------------------------------------------------------------------
_UPPER_CLAIM = CLAIMS["bab_bound"][0]
DEFAULT_CELLS = 8          # first cells of the box (independent of the workers: same result)
DEFAULT_NODES = 400        # node expansions a task may spend before its cell splits
DEFAULT_WAVE = 64          # open cells submitted at once (the best first)
_MAX_DEPTH = 48            # a cell halved this often is kept as it is (its partial bound)


_PAIRS: dict = {}          # in each worker process: search key -> (a, b), the last pair only


def _pair(a_json: dict, b_json: dict, key):
    """The networks of a task, read once per process and search (*key*; None: read afresh).
    Reading a 784-1024-1024-10 pair from its JSON took ~2.8 s, and every cell paid it: a
    search of 8 cells ran 33 s at --timeout 10 (s49 huge audit F19)."""
    if key is None:
        return network_from_dict(a_json), network_from_dict(b_json)
    if key not in _PAIRS:
        _PAIRS.clear()
        _PAIRS[key] = network_from_dict(a_json), network_from_dict(b_json)
    return _PAIRS[key]


def diff_cell(a_json: dict, b_json: dict, nodes, deadline, threshold, cell, key=None) -> dict:
    """Task: ``diff_bounds`` on one cell within *nodes* node expansions (and until *deadline*,
    seconds since the epoch), its certificate unchecked (the client checks the cover's parts);
    *key* names the search, so that a process reads its networks once (:func:`_pair`).

    With *threshold* (a value attained elsewhere in the box), nodes bounded by it are closed
    first (``epsilon``): a cell whose maximum is at most the threshold closes without finding
    its own maximum; a cell with a point above it runs the plain search with the nodes left.
    ``upper`` is None when no certified upper bound was reached within the budget."""
    a, b = _pair(a_json, b_json, key)
    box = [(to_q(lo), to_q(hi)) for lo, hi in cell]
    budget = Budget(timeout=None if deadline is None else max(0.0, deadline - time.time()),
                    max_regions=nodes)
    eps = None if threshold is None else to_q(threshold)
    r = diff_bounds(a, b, box, verify=False, budget=budget, epsilon=eps)
    done = r.nodes
    if eps is not None and r.lower > eps and not budget.exhausted():
        r = diff_bounds(a, b, box, verify=False, budget=budget)
        done += r.nodes
    upper = r.upper if r.upper is not None and r.certificate.get("claim") == _UPPER_CLAIM else None
    closed = upper is not None and (upper == r.lower or (eps is not None and upper <= eps))
    return {"lower": q_json(r.lower), "upper": None if upper is None else q_json(upper),
            "point": [q_json(v) for v in r.point], "output": r.output, "nodes": done,
            "complete": closed, "reason": r.reason,
            "certificate": jsonable(r.certificate) if upper is not None else None}


def check_part(cert: dict, part) -> tuple:
    """Task: one part of a split certificate (:func:`semialgebraic.verify.verify_part`)."""
    return verify_part(cert, part)


def _halve(cell):
    """The two halves of *cell* along its widest coordinate (the first of equal widths)."""
    j = max(range(len(cell)), key=lambda i: (cell[i][1] - cell[i][0], -i))
    lo, hi = cell[j]
    mid = (lo + hi) / 2
    left, right = list(cell), list(cell)
    left[j], right[j] = (lo, mid), (mid, hi)
    return left, right


def _ancestors(path: str):
    while "." in path:
        path = path.rsplit(".", 1)[0]
        yield path


def _tree_upper(tree):
    """The largest leaf bound of a ``bab_bound`` tree (JSON), None for a tree without a bound
    (every leaf empty: the objective is bounded by anything)."""
    best, stack = None, [tree]
    while stack:
        node = stack.pop()
        if "split" in node:
            stack += node["children"]
        elif "bound" in node:
            v = to_q(node["bound"])
            best = v if best is None or v > best else best
    return best


def _resolved(tree, table, cuts=()):
    """A copy of the JSON *tree* whose leaves' ``"tightened"`` indices (into a certificate's
    ``"intermediate"`` table) are the records themselves, and whose cut indices (into its
    ``"cuts"`` table) the cuts, so the tree can go into another certificate (the builder makes
    new tables)."""
    if not isinstance(tree, dict):
        return tree
    if "children" in tree:
        return {**tree, "children": [_resolved(ch, table, cuts) for ch in tree["children"]]}
    if "cuts" in tree:
        tree = {**tree, "cuts": [{**e, "cut": cuts[e["cut"]]} if type(e["cut"]) is int else e
                                 for e in tree["cuts"]]}
    if "tightened" not in tree:
        return tree
    return {**tree, "tightened": [table[i] for i in tree["tightened"]]}


def _objectives_of(cert):
    """The objectives of a ``bab_bound`` certificate (JSON) with their records resolved."""
    table = cert.get("intermediate") or []
    cuts = cert.get("cuts") or []
    return [{**ob, "tree": _resolved(ob["tree"], table, cuts)} if "tree" in ob else ob
            for ob in cert["objectives"]]


def _inherited(objectives, cell, side):
    """The parent's proof restricted to its half *side*: when the root of every objective's tree
    is the input split that made the halves (``["x", j, mid]`` of :func:`_halve`), the subtree
    of that side is a branch-and-bound tree of the same objective on the half (the same node
    boxes, so the same bounds at every leaf); None otherwise."""
    j = max(range(len(cell)), key=lambda i: (cell[i][1] - cell[i][0], -i))
    mid = (cell[j][0] + cell[j][1]) / 2
    out = []
    for ob in objectives:
        tree = ob["tree"]
        sp = tree.get("split") if isinstance(tree, dict) else None
        if not (isinstance(sp, list) and len(sp) == 3 and sp[0] == "x" and sp[1] == j
                and to_q(sp[2]) == mid):
            return None
        sub = tree["children"][side]
        up = _tree_upper(sub)
        out.append({"output": ob["output"], "sign": ob["sign"],
                    "upper": q_json(up if up is not None else to_q(ob["upper"])), "tree": sub})
    return out


def _objectives_upper(objectives):
    return max(to_q(ob["upper"]) for ob in objectives)


def _with_inherited(a, b, box, res, inherited):
    """The task result *res* of a cell whose parent's proof restricted to it is *inherited*
    (:func:`_inherited`): per objective the tree of the smaller bound, so the parent's bound
    caps the cell's; a new ``bab_bound`` certificate of those trees (checked like any cell's).
    Without a certified upper bound of its own the cell takes the inherited trees whole."""
    cert = res.get("certificate")
    own = None if cert is None else {(ob["output"], ob["sign"]): ob for ob in _objectives_of(cert)}
    if own is not None and set(own) != {(ob["output"], ob["sign"]) for ob in inherited}:
        return res
    merged, taken = [], 0
    for ob in inherited:
        mine = None if own is None else own[(ob["output"], ob["sign"])]
        if mine is None or to_q(ob["upper"]) < to_q(mine["upper"]):
            merged.append(ob)
            taken += 1
        else:
            merged.append(mine)
    if not taken:
        return res
    upper = max(_objectives_upper(merged), to_q(res["lower"]))
    point = [to_q(v) for v in res["point"]]
    cert = jsonable(bab_bound_certificate(a, b, box, merged, upper, to_q(res["lower"]), point,
                                          res["output"], b_steps=alignment(a, b)))
    return {**res, "upper": q_json(upper), "certificate": cert, "inherited": taken,
            "complete": res["complete"] or upper == to_q(res["lower"])}


@dataclass
class DiffResult:
    """Certified ``lower <= max_o max_x |a_o − b_o| <= upper`` over the box (``upper`` None: no
    certified upper bound yet), from the B&B tasks of ``tasks`` cells; the certificate's cover
    has ``cells`` cells."""

    lower: Q
    upper: Q | None
    point: tuple
    output: int
    cells: int
    complete: bool
    verified: bool
    certificate: dict | None
    where: str = "serial"
    seconds: float = 0.0
    per_cell: list = field(default_factory=list)
    tasks: int = 0
    reason: str = ""

    def to_json(self) -> dict:
        return {"lower": str(self.lower), "upper": None if self.upper is None else str(self.upper),
                "max_deviation": str(self.lower), "point": [q_json(v) for v in self.point],
                "output": self.output, "cells": self.cells, "tasks": self.tasks,
                "complete": self.complete, "reason": self.reason,
                "verified": self.verified, "where": self.where, "seconds": round(self.seconds, 3),
                "per_cell": self.per_cell,
                "method": "branch and bound, open cells as tasks (split when over budget)"}


class _Search:
    """The client's state of a distributed branch and bound (see :func:`distributed_diff`)."""

    def __init__(self, parts, a=None, b=None):
        self.open = {str(k): (c, None) for k, c in enumerate(parts)}   # path -> (box, inherited upper)
        self.boxes = {str(k): c for k, c in enumerate(parts)}
        self.done: dict = {}            # path -> task result (with the parent's proof kept)
        self.leaves: list = []          # paths whose certificate is part of the cover
        self.proofs: dict = {}          # open path -> its parent's trees restricted to it
        self.lower, self.best = None, None
        self.a, self.b = a, b
        self.skipped = 0                # halves closed by their parent's proof, no task run

    def start(self, a, b):
        """The first lower bound: the best cell centre (exact; the same for every run)."""
        for p in sorted(self.open, key=_order):
            x = [(lo + hi) / 2 for lo, hi in self.boxes[p]]
            devs = [abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))]
            o = max(range(len(devs)), key=devs.__getitem__)
            if self.lower is None or devs[o] > self.lower:
                self.lower = devs[o]
                self.best = {"lower": q_json(devs[o]), "point": [q_json(v) for v in x],
                             "output": o}

    def upper(self):
        """The certified upper bound now (None: some open cell has none yet)."""
        ups = [to_q(self.done[p]["upper"]) for p in self.leaves]
        for p, (_, inh) in self.open.items():
            if inh is None:
                return None
            ups.append(inh)
        return max(ups) if ups else self.lower

    def wave(self, size):
        inf = [p for p, (_, inh) in self.open.items() if inh is None]
        rest = sorted((p for p, (_, inh) in self.open.items() if inh is not None),
                      key=lambda p: (-self.open[p][1], _order(p)))
        return sorted(inf, key=_order)[:size] + rest[:max(0, size - len(inf))]

    def take(self, results: dict):
        """The results of one wave: the lower bound first, then every cell (in path order)
        becomes a leaf (closed: its own lower = upper, or upper <= the global lower) or splits."""
        for p in sorted(results, key=_order):
            r = results[p]
            inh = self.proofs.pop(p, None)
            if inh is not None:
                r = _with_inherited(self.a, self.b, self.boxes[p], r, inh)
            self.done[p] = r
            lo = to_q(r["lower"])
            if self.lower is None or lo > self.lower:
                self.lower, self.best = lo, r
        for p in sorted(results, key=_order):
            r = self.done[p]                # (capped by the parent's proof)
            box, inh = self.open.pop(p)
            up = None if r["upper"] is None else to_q(r["upper"])
            if up is not None and (up <= self.lower or r["complete"] or p.count(".") >= _MAX_DEPTH):
                self.leaves.append(p)
                continue
            bound = up if inh is None else inh if up is None else min(up, inh)
            cert = r.get("certificate")
            for k, child in enumerate(_halve(box)):
                q = f"{p}.{k}"
                self.boxes[q] = child
                proof = None if cert is None else _inherited(_objectives_of(cert), box, k)
                if proof is None:
                    self.open[q] = (child, bound)
                    continue
                mine = _objectives_upper(proof)
                if mine <= self.lower:      # the parent's proof closes this half: no task
                    self._close(q, child, proof, mine)
                    continue
                self.proofs[q] = proof
                self.open[q] = (child, min(bound, mine))

    def _close(self, q, child, proof, upper):
        """Half *q* closed by its parent's trees *proof* (bound *upper* <= the lower bound)."""
        cert = jsonable(bab_bound_certificate(self.a, self.b, child, proof, upper,
                                              b_steps=alignment(self.a, self.b)))
        self.done[q] = {"lower": None, "upper": q_json(upper), "point": None, "output": None,
                        "nodes": 0, "complete": True, "reason": "closed by the parent's proof",
                        "certificate": cert, "inherited": len(proof)}
        self.leaves.append(q)
        self.skipped += 1

    def cover(self):
        """The cells of the certificate: the leaves, and for each open cell the ancestor with the
        least certified upper bound (the bound it inherited; it replaces its finished
        descendants); None when an open cell has no certified ancestor."""
        repl = set()
        for p in self.open:
            certified = [q for q in _ancestors(p) if self.done.get(q, {}).get("upper") is not None]
            if not certified:
                return None
            repl.add(min(certified, key=lambda q: to_q(self.done[q]["upper"])))  # the nearest of ties
        repl = {q for q in repl if not any(u in repl for u in _ancestors(q))}
        keep = [p for p in self.leaves if not any(u in repl for u in _ancestors(p))]
        return sorted(keep + list(repl), key=_order)


def _order(path: str):
    return tuple(int(v) for v in path.split("."))


def _refuse_pruned(a: Network, b: Network) -> None:
    """Two networks pruned at one hidden layer are two constants: no search of cells or nodes
    bounds their difference (the branch and bound has no layer of width 0: the cells halved for
    ever, the tree crashed; s50 audit F2, F3); ``netfibers diff`` gives it exactly, certified."""
    from ..bab.diff import pruned_layer
    layer = pruned_layer(a, b)
    if layer is not None:
        from ..exceptions import NotApplicableError
        raise NotApplicableError("search diff", (
            f"both networks have hidden layer {layer} of width 0 (pruned): each is a constant, "
            "and `netfibers diff` gives max |a - b| exactly, with a certificate (no search to "
            "distribute)"))


def distributed_diff(a: Network, b: Network, box, *, cells: int | None = None,
                     workers: int | None = None, scheduler: str | None = None,
                     memory_limit=None, timeout: float | None = None, checkpoint=None,
                     verify: bool = True, executor=None, progress: bool = False,
                     nodes: int | None = None, wave: int | None = None) -> DiffResult:
    """Certified interval on ``max_o max_{x in box} |a_o − b_o|``: a branch and bound whose open
    cells run as tasks.

    The box starts as *cells* cells (default 8).  A task runs :func:`semialgebraic.bab.diff_bounds`
    on its cell with *nodes* node expansions (default 400); a cell that does not close within them
    splits in two and its halves are resubmitted (a node that grows too big).  The client keeps
    the certified ``[lower, upper]``: ``lower`` the best value attained, ``upper`` the max over
    the closed cells' bounds and the open cells' inherited bounds; it submits the open cells in
    waves of at most *wave* (the highest inherited bound first) and closes a cell whose bound is
    at most ``lower``.  The decisions are taken per wave, in cell order, so the result (and the
    cover) is the same serially and on any number of workers, given the same inputs.  It stops
    when no cell is open (then ``lower = upper``) or at *timeout* (partial; the open cells are
    covered by their parents' certified bounds).  With *verify*, the ``bab_cover`` certificate is
    checked part by part, the cells on the workers (a failure raises :class:`CertificateError`).

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
    _refuse_pruned(a, b)
    t0 = time.perf_counter()
    from .tree import _ALARMED_PREP, _SEARCH_SHARE, _deferred_sigint
    # the cells' tasks get a share of the timeout, the certificate's check the rest (as tree_diff)
    deadline = None if timeout is None else time.time() + _SEARCH_SHARE * timeout
    end = None if timeout is None else time.monotonic() + timeout
    nodes = nodes or DEFAULT_NODES
    parts = split_box(box, cells or DEFAULT_CELLS)
    wave = wave or DEFAULT_WAVE
    st = _Search(parts, a, b)
    try:                # the networks' JSON for the tasks and the cells' centres: exact work
        with alarm_at(None if end is None or a.n_parameters < _ALARMED_PREP else  # that sees no
                      end - (1 - _SEARCH_SHARE) * timeout,                        # checkpoint (a
                      "the preparation of the cells"):                            # 768-3072-768
            aj, bj = jsonable(a.to_dict()), jsonable(b.to_dict())                 # pair: 17 s at
            key = _digest("diff", aj, bj, _cells_json(parts), nodes, wave)        # --timeout 10,
            ck = _Checkpoint(checkpoint, key)                                     # s49 huge F19)
            st.start(a, b)
    except KeyboardInterrupt as exc:
        why = (f"timeout of {timeout:g} s reached" if isinstance(exc, BudgetExhausted)
               and timeout is not None else "interrupted (Ctrl-C)")
        return _unprepared(st, a, b, box, why, t0)
    ex = executor or make_executor(workers, scheduler, memory_limit, timeout=timeout)
    if getattr(ex, "kind", None) == "serial":   # tasks in this process: the pair as it is
        _PAIRS.clear()                           # (reading its JSON again: 2 s of 784-1024-
        _PAIRS[key] = (a, b)                     # 1024-10 that no budget sees)
        wa, wb = aj, bj
    else:                   # the pair sent once, not with every task (a 784-1024-1024-10 pair
        wa, wb = ex.scatter([aj, bj])            # on 2 Dask workers: 74 s at --timeout 10)
    dask = getattr(ex, "kind", None) == "dask"
    tasks, reason = 0, ""
    try:
        try:
            while st.open:
                up = st.upper()
                if up is not None and st.lower is not None and up <= st.lower:
                    break               # every open cell's inherited bound is attained
                if deadline is not None and time.time() >= deadline:
                    reason = f"timeout of {timeout:g} s reached"
                    break
                batch = st.wave(wave)
                got = {p: ck.done[p] for p in batch if p in ck.done}
                lower = None if st.lower is None else q_json(st.lower)
                calls = [(p, (wa, wb, nodes, deadline, lower, _cells_json([st.boxes[p]])[0], key))
                         for p in batch if p not in got]
                waited = getattr(ex, "wait", None)
                if dask and deadline is not None:   # the wave's results until the deadline
                    ex.wait = max(0.5, deadline - time.time())   # (a worker reading the pair
                try:                                             # sees no budget): the cells
                    for p, res in ex.map_unordered(diff_cell, calls):   # not back stay open
                        ck.add(p, res)
                        got[p] = res
                except TimeoutError:        # (the deadline: said at the loop's top)
                    pass
                finally:
                    if dask:
                        ex.wait = waited
                with _deferred_sigint():    # a wave taken whole (its cells stay open else)
                    tasks += len(batch)
                    st.take(got)
                if progress:
                    _progress_diff(st, tasks)
        except KeyboardInterrupt:       # Ctrl-C: the cells so far, the open ones by their parents
            reason = "interrupted (Ctrl-C)"
        res = _assemble_diff(st, a, b, box, ex if verify and not reason.startswith("interrupted")
                             else None, end)
    finally:
        if executor is None:
            ex.close()
    cert, verified, cover = res
    upper = st.upper() if not st.open or cover is None else max(
        to_q(st.done[p]["upper"]) for p in cover)
    if upper is not None and st.lower is not None and upper < st.lower:
        raise AssertionError("certified upper below an attained value: a bug")
    best = st.best
    per_cell = [{"box": _cells_json([st.boxes[p]])[0], "lower": st.done[p]["lower"],
                 "upper": st.done[p]["upper"], "nodes": st.done[p]["nodes"]} for p in cover or ()]
    complete = upper is not None and upper == st.lower
    reason = "lower = upper" if complete else (reason or "open cells left")
    if verify and cert is not None and not verified and not reason.startswith("interrupted"):
        reason += "; the certificate not checked (no time left in the budget)"
    return DiffResult(st.lower, upper, tuple(to_q(v) for v in best["point"]), best["output"],
                      len(cover or ()), complete, verified, cert, getattr(ex, "kind", "serial"),
                      time.perf_counter() - t0, per_cell, tasks, reason)


def _unprepared(st, a, b, box, why: str, t0: float) -> DiffResult:
    """A search stopped before its cells were prepared: the best cell centre evaluated so far
    (else the box's centre, exactly: bounded work a Ctrl-C does not lose), no upper bound."""
    if st.lower is None:
        x = [(lo + hi) / 2 for lo, hi in box]
        with answer_kept():
            devs = [abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))]
        o = max(range(len(devs)), key=devs.__getitem__)
        st.lower, st.best = devs[o], {"point": [q_json(v) for v in x], "output": o}
    return DiffResult(st.lower, None, tuple(to_q(v) for v in st.best["point"]),
                      st.best["output"], 0, False, False, None, "serial",
                      time.perf_counter() - t0, [], 0,
                      f"{why} before the cells were prepared; no upper bound within the budget")


def _assemble_diff(st, a, b, box, ex, end=None):
    """The ``bab_cover`` certificate of the cover (None when there is none) and, with an
    executor *ex*, its check: the geometry here, one part per cell on the workers.  At *end*
    (``time.monotonic``: the timeout) the check stops between parts, the certificate unchecked
    (never a verdict on it)."""
    cover = st.cover()
    if cover is None:
        return None, False, None
    upper = max(to_q(st.done[p]["upper"]) for p in cover)
    best = st.best
    cert = bab_cover_certificate(a, b, box, [st.done[p]["certificate"] for p in cover], upper,
                                 st.lower, tuple(to_q(v) for v in best["point"]), best["output"])
    if ex is None or (end is not None and time.monotonic() >= end):
        return cert, False, cover
    try:
        with alarm_at(end) as fired:
            ok, why = verify_part(cert, "geometry")
            if ok:
                calls = [(k, ({**cert, "cells": [c]}, 0)) for k, c in enumerate(cert["cells"])]
                results = ex.map_unordered(check_part, calls)
                try:
                    for n, (k, (ok_k, why_k)) in enumerate(results, 1):
                        if not ok_k:
                            ok, why = False, f"cell {k}: {why_k}"
                            break
                        if end is not None and time.monotonic() >= end and n < len(calls):
                            return cert, False, cover
                finally:
                    close = getattr(results, "close", None)
                    if close is not None:
                        close()
    except KeyboardInterrupt:        # the alarm, or Ctrl-C in the check: unchecked
        return cert, False, cover
    if fired:                        # an alarm inside the checker: never trust its answer
        return cert, False, cover
    if not ok:
        raise CertificateError("bab_cover", why)
    return cert, True, cover


def _progress_diff(st, tasks) -> None:
    """One stderr line: the certified interval, open and closed cells, tasks run."""
    up = st.upper()
    hi = "not bounded yet" if up is None else f"{float(up):.6g}"
    print(f"search diff: max |a - b| in [{float(st.lower):.6g}, {hi}]; {len(st.open)} open "
          f"cells, {len(st.leaves)} closed, {tasks} tasks run", file=sys.stderr, flush=True)
    shown()                 # (the heartbeat waits from here)


# -- regions ---------------------------------------------------------------------------------
def regions_cell(net_json: dict, timeout, cell, box=None) -> dict:
    """Task: the activation patterns (and an interior point each) of the regions meeting *cell*.

    With *box* (``[lo, hi]`` of the cube ``[lo, hi]^d`` the cell is part of, as exact strings, or
    ``[[lo_i], [hi_i]]`` of a box with its own sides),
    the walk also proves each region's facets (with multipliers), and a region whose facets on
    the cell are its facets on the box (:func:`.cover.inside`: it meets no cell boundary inside
    the box) carries its certificate piece for the box (``piece``, :func:`.cover.as_piece`):
    the client recomputes only the regions cut by a cell boundary."""
    net = network_from_dict(net_json)
    budget = Budget(timeout=timeout)
    walk = regions(net, domain=cover.cell_domain(cell), budget=budget, multipliers=box is not None)
    shift = None if box is None else cover.shifts(net.n_hidden, cell, *box)
    found = []
    try:
        for r in walk:
            rec = {"pattern": list(r.pattern), "point": [q_json(v) for v in r.point]}
            if shift is not None and cover.inside(r, shift):
                rec["piece"] = cover.as_piece(r, net.n_hidden, net.n_inputs, shift)
            found.append(rec)
    except KeyboardInterrupt:       # landed in this loop, between two regions: the walk ends too
        walk.stop()
    if budget.interrupted:          # Ctrl-C in this process (serial): the client stops too
        return {"regions": found, "complete": False, "interrupted": True}
    return {"regions": found, "complete": bool(walk.complete)}


@dataclass
class RegionsResult:
    """The regions meeting the box (``patterns`` sorted, one interior point each) and, for a
    complete walk of a cube ``[lo, hi]^d``, their ``region_cover`` certificate (checked);
    ``method`` "walk" (:mod:`.walk`, ``tasks`` batches of regions, ``task_cpu`` the CPU
    seconds they spent) or "cells" (``cells`` walks)."""

    patterns: list
    points: list
    cells: int
    complete: bool
    where: str = "serial"
    seconds: float = 0.0
    certificate: dict | None = None
    verified: bool = False
    method: str = "cells"
    tasks: int = 0
    reason: str = ""
    task_cpu: float = 0.0

    @property
    def number_of_regions(self) -> int:
        return len(self.patterns)

    def to_json(self) -> dict:
        return {"number_of_regions": self.number_of_regions, "complete": self.complete,
                "method": self.method, "cells": self.cells, "tasks": self.tasks,
                "where": self.where, "seconds": round(self.seconds, 3),
                "certificate_checked": self.verified, "reason": self.reason,
                "regions": [{"pattern": p, "point": x} for p, x in zip(self.patterns, self.points)]}


def cell_regions(net: Network, box, *, cells: int | None = None,
                 workers: int | None = None, scheduler: str | None = None,
                 memory_limit=None, timeout: float | None = None, checkpoint=None,
                 executor=None, progress: bool = False, certify: bool = True,
                 verify: bool = True) -> RegionsResult:
    """The linear regions of *net* meeting *box* (module docstring), one walk per cell (the
    ``cells`` method of :func:`semialgebraic.distributed.distributed_regions`; a region cut
    by a cell boundary is walked by every cell it meets).

    With *certify* (and a complete walk of a box with an interior: a cube ``[lo, hi]^d`` or a
    box with its own sides), the ``region_cover``
    certificate of the regions is assembled (:mod:`.cover`: each region's facets, neighbours and
    multipliers on the box, one task per chunk of patterns) and, with *verify*, checked part by
    part on the workers (:func:`check_region_cover`; a failure raises
    :class:`CertificateError`: a bug).

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> r = cell_regions(net, [(-2, 2)], cells=4, workers=0)
    >>> r.patterns, r.verified, r.method
    ([[-1, 1], [1, -1], [1, 1]], True, 'cells')
    """
    box = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if len(box) != net.n_inputs or any(lo > hi for lo, hi in box):
        raise InputError(f"the box needs {net.n_inputs} intervals lo <= hi")
    t0, start = time.perf_counter(), time.monotonic()
    parts = split_box(box, cells or DEFAULT_CELLS)
    nj = jsonable(net.to_dict())
    cube = len({b for b in box}) == 1
    full = all(lo < hi for lo, hi in box)           # (the cover's argument needs an interior)
    whole = None if not (certify and full and net.depth > 1) else (
        [q_json(v) for v in box[0]] if cube else [[q_json(lo) for lo, _ in box], [q_json(hi) for _, hi in box]])
    key = _digest("regions", nj, _cells_json(parts), whole)
    done, ex, reason = _run_cells(regions_cell, (nj, timeout), parts, workers, scheduler,
                                  memory_limit, checkpoint, key, executor, progress, (whole,),
                                  timeout=timeout, start=start)
    try:
        seen: dict = {}
        pieces: dict = {}
        for k in sorted(done):
            for r in done[k]["regions"]:
                seen.setdefault(tuple(r["pattern"]), r["point"])
                if "piece" in r:
                    pieces.setdefault(tuple(r["pattern"]), r["piece"])
        pats = sorted(seen)
        complete = not reason and all(done[k]["complete"] for k in range(len(parts)))
        if not complete and not reason:
            reason = ("a cell was cut short" if timeout is None else
                      f"timeout of {timeout:g} s reached")
        cert, verified = None, False
        if whole is not None and complete:
            try:
                cert, verified = _certify_regions(net, nj, whole, pats, seen, pieces, ex, verify)
            except KeyboardInterrupt:   # Ctrl-C in the cover's check: every region, unchecked
                cert, complete = None, False
                reason = "interrupted (Ctrl-C) in the certificate's check"
    finally:
        if executor is None:
            ex.close()
    return RegionsResult([list(p) for p in pats], [seen[p] for p in pats], len(parts),
                         complete, getattr(ex, "kind", "serial"), time.perf_counter() - t0,
                         cert, verified, "cells", len(parts), reason)


def _certify_regions(net, nj, lohi, pats, seen, pieces, ex, verify):
    """The ``region_cover`` certificate of the joined walk and its check (parts on *ex*): the
    pieces the cells' walks returned, and the regions cut by a cell boundary recomputed on
    the box (one task per chunk; *lohi* ``[lo, hi]`` of the cube or ``[[lo_i], [hi_i]]``, exact
    strings)."""
    lo, hi = lohi
    items = [[list(p), seen[p]] for p in pats if p not in pieces]
    chunks = [items[k:k + cover.CHUNK] for k in range(0, len(items), cover.CHUNK)]
    got = dict(ex.map_unordered(cover.piece, [(k, (nj, lo, hi, c)) for k, c in enumerate(chunks)]))
    pieces = dict(pieces)
    for k in range(len(chunks)):
        pieces.update((tuple(p["pattern"]), p) for p in got[k])
    cert = cover.cover_certificate(net, lohi[0], lohi[1], [pieces[p] for p in pats])
    if cert is None:
        raise CertificateError("region_cover", "a neighbour's pattern is not among the walked "
                               "regions: the cells' walks missed a region")
    if not verify:
        return cert, False
    ok, why = check_region_cover(cert, ex)
    if not ok:
        raise CertificateError("region_cover", why)
    return cert, True


def check_region_cover(cert: dict, ex) -> tuple:
    """The check of a ``region_cover`` certificate part by part: chunks of regions (at least
    :data:`.cover.CHUNK`, two per worker: each part re-reads the networks and the patterns) on
    the executor *ex*, the certificate scattered to the workers once (not hashed: Dask's hash of
    a large certificate walks every entry in Python, seconds of the client's time), and the
    cover here while they run; ``(ok, why)``."""
    n = len(cert["regions"])
    size = max(cover.CHUNK, -(-n // (2 * max(1, getattr(ex, "workers", 1)))))
    spans = [[k, min(k + size, n)] for k in range(0, n, size)]
    client = getattr(ex, "client", None)
    if client is None:
        ok, why = verify_part(cert, "cover")
        for span in spans if ok else ():
            ok, why = check_part(cert, span)
            if not ok:
                break
        return ok, why if not ok else f"{n} regions in {len(spans)} parts"
    from distributed import as_completed
    whole = client.scatter([cert], hash=False)[0]       # sent once, not with every part
    futures = [client.submit(check_part, whole, span, pure=False) for span in spans]
    try:
        ok, why = verify_part(cert, "cover")
        for fut in as_completed(futures) if ok else ():
            ok, why = fut.result(timeout=getattr(ex, "wait", None))
            if not ok:
                break
    finally:
        client.cancel(futures)
    return ok, why if not ok else f"{n} regions in {len(spans)} parts"
