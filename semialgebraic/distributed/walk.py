r"""The distributed region walk (issue 19, part 3): breadth first over the linear regions of a
network meeting a box, the client holding the visited patterns and the workers the exact work.

The walk of :func:`semialgebraic.regions.regions` run as tasks: the client keeps the set of
activation patterns seen so far and a frontier of regions to visit (a pattern and a point
proved inside its region); a task (:func:`walk_batch`) takes a batch of frontier regions and,
for each, builds the region on the box (:class:`semialgebraic.regions.RegionSteps`: facets,
Farkas multipliers, the neighbour across every facet, proved), turns it into its piece of the
``region_cover`` certificate (:func:`.cover.as_piece`, renumbered by :func:`.cover.region_entry`)
and returns it with a point inside each neighbour; the client adds the neighbours it has not
seen to the frontier and submits new batches as tasks finish (at most two tasks per worker in
flight, no barrier between the levels of the walk).  Every region is processed exactly once, and
the patterns visited are those of the serial walk: the regions meeting the open box are
connected across their facets inside it (the box is convex), so the walk from any region
reaches all of them.

Each worker process builds the walk's engine once per search (:data:`_STEPS`) and keeps its
caches (pattern forms, inverses of closure bases) across the batches it runs; the bases that
proved a region's closure travel with its neighbours (they only choose which exact proof is
tried first).

The certificate is assembled and checked while the walk runs (:class:`_Stream`): a region's
index is the order in which its pattern was found, so when a task returns, the neighbours of
its regions have their indices already and each region's entry is final: the JSON text of its
certificate entry (:func:`.cover.entry_text`, made on the worker) with the indices of its
neighbours appended (:func:`.cover.linked_text`, string concatenation), read once by the client.
As soon as :data:`STREAM` consecutive regions are final, their part of the check
(:func:`check_stream`) starts on a worker, below the walk's tasks in priority, so the check
fills the workers while the walk's last waves run; at the end the client starts the rest,
checks the ``"cover"`` part and collects the verdicts.  The regions, facets and neighbours are
those of the serial walk, in another order (the order found depends on the workers; the tests
compare them by pattern); the interior points and multipliers may differ (they depend on where
a region was entered), and the checker proves them either way.

``checkpoint``: a JSON Lines file, a header naming the search (a digest of the network, the box
and the mode) and one line per finished task (its regions), each ``write`` + flush; a rerun
takes the finished regions and starts from their unvisited neighbours.  ``timeout``: the tasks
stop at the deadline, the client stops submitting, and the result is partial (``complete``
False; the checkpoint holds what was done).
"""

from __future__ import annotations

import gc
import hashlib
import json
import math
import os
import socket
import sys
import time
from collections import deque
from contextlib import contextmanager
from pathlib import Path

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.network import Network
from algebra.rationals import q_json, to_q

from .checkpoints import refuse_foreign
from ..budget import Budget, BudgetExhausted, alarm_at, answer_kept, shown
from ..certificates import jsonable
from ..exceptions import CertificateError
from ..regions import RegionSteps
from . import cover
from .cluster import executor as make_executor
from .search import RegionsResult, cell_regions, check_part

__all__ = ["distributed_regions", "distributed_walk", "walk_batch", "process_name", "check_in_parts",
           "submit_parts", "await_parts", "slim", "check_span", "check_stream", "BATCH", "SLOTS",
           "PARTS", "STREAM"]

BATCH = 32      # most regions per task (a task is then ~0.1-0.5 s of exact work)
SLOTS = 2       # tasks in flight per worker (one running, one waiting)
PARTS = 4       # check parts per worker (as_completed: the early finisher takes more)
STREAM = 512    # regions per check part started while the walk runs (:class:`_Stream`)
_STEPS: dict = {}   # per worker process: search key -> RegionSteps (the last few searches)


def _steps(key: str, net_json: dict, box_json: list, multipliers: bool) -> RegionSteps:
    st = _STEPS.get(key)
    if st is None:
        if len(_STEPS) >= 2:
            _STEPS.pop(next(iter(_STEPS)))
        net = network_from_dict(json.loads(net_json) if isinstance(net_json, str) else net_json)
        st = RegionSteps(net, cover.cell_domain(box_json), multipliers)
        _STEPS[key] = st
    return st


@contextmanager
def _collected_after():
    """Python's cyclic collector off for a burst of allocation whose objects mostly live on (a
    task's exact work beside the engine's caches, the regions the client reads): it runs once
    when the burst ends instead of every 700 new objects, each time walking the survivors
    (measured: 3-24-24-1 serially, 23.2 CPU s with the collector on, 20.1 off)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def walk_batch(key: str, net_json, box_json: list, multipliers: bool, deadline, items) -> dict:
    """:func:`_walk_batch` with the collector run once after it (:func:`_collected_after`)."""
    with _collected_after():
        return _walk_batch(key, net_json, box_json, multipliers, deadline, items)


def _walk_batch(key: str, net_json, box_json: list, multipliers: bool, deadline, items) -> dict:
    """Task: each ``[pattern, point, bases]`` of *items* (N's pattern, a point inside its
    region, closure bases to try first) → ``{"pattern", "point", "across", "next", "bases",
    "region"}``: the region's interior point, the pattern across each facet (None on the box's
    boundary) and a point inside that neighbour, the bases for the neighbours, and the region on
    the box in certificate form (:func:`.cover.region_entry`) as JSON text (the client reads it
    once, at the end: a string crosses the wire at no cost).  Also ``"cpu"`` (the task's CPU
    seconds) and ``"home"`` (:func:`process_name`).  At *deadline* (seconds since the epoch) it
    stops; the items not done come back in ``"left"``.  *net_json*: the network's native dict,
    or that dict as JSON text (what the client sends: Dask neither walks nor pickles a string's
    insides; it is read only when this process has no engine for *key* yet); *items* likewise
    a list or its JSON text."""
    c0 = time.process_time()
    items = json.loads(items) if isinstance(items, str) else items
    st = _steps(key, net_json, box_json, multipliers)
    widths = list(st.net.widths[1:-1])
    n, d = st.net.n_hidden, st.net.n_inputs
    out, left = [], []
    for k, (pattern, point, bases) in enumerate(items):
        budget = Budget(timeout=None if deadline is None else deadline - time.time())
        try:
            if budget.exhausted():
                raise BudgetExhausted(budget.reason)
            with budget.active():
                reg, nxt, bases = st.region(pattern, point, bases)
        except BudgetExhausted:
            left = items[k:]
            break
        ahead = dict((tuple(q), y) for q, y in nxt)
        piece = cover.as_piece(reg, n, d)
        out.append({"pattern": list(reg.pattern), "point": piece["point"],
                    "across": piece["across"],
                    "next": [None if q is None else [q_json(v) for v in ahead[tuple(q)]]
                             for q in piece["across"]],
                    "bases": [[list(key_) for key_ in basis] for basis in bases],
                    "region": cover.entry_text(piece, widths)})
    return {"regions": out, "left": left, "cpu": time.process_time() - c0, "home": process_name()}


def process_name() -> str:
    """``host:pid`` of this process (where a task ran; unique across the machines of a cluster)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _records_ok(rec) -> bool:
    """Whether a checkpoint line has the shape this module writes (a dict; its regions dicts
    with an integer pattern); what they say is checked by the final ``region_cover`` check."""
    if not isinstance(rec, dict) or not isinstance(rec.get("regions", []), list):
        return False
    return all(isinstance(r, dict) and isinstance(r.get("pattern"), list)
               and all(type(v) is int for v in r["pattern"]) for r in rec.get("regions", []))


class _Log:
    """The finished regions of one walk (JSON Lines; module docstring): ``regions`` maps each
    finished pattern to its task record, in the order written."""

    def __init__(self, path, key: str):
        self.path = None if path is None else Path(path)
        self.regions: dict = {}
        self.resumed = 0                    # finished regions read from the checkpoint
        if self.path is None:
            return
        refuse_foreign(self.path)
        good = []
        if self.path.exists():
            for k, line in enumerate(self.path.read_bytes().splitlines(keepends=True)):
                try:
                    rec = json.loads(line) if line.endswith(b"\n") else None
                except (ValueError, RecursionError):   # (a 60 000-digit integer: exit 4, s48 S1)
                    rec = None
                if rec is None:
                    break                   # a line cut short by a kill: dropped
                if k == 0 and rec.get("search") != key:
                    raise InputError("the checkpoint belongs to another search (other network, "
                                     "box or mode)", source=str(self.path))
                if not _records_ok(rec):
                    break                   # (not a record this code wrote: the rest dropped)
                for r in rec.get("regions", ()):
                    self.regions.setdefault(tuple(r["pattern"]), r)
                good.append(line)
        self.resumed = len(self.regions)
        if not good:
            good = [(json.dumps({"search": key}) + "\n").encode()]
        self.path.write_bytes(b"".join(good))

    def add(self, recs: list) -> None:
        for r in recs:
            self.regions.setdefault(tuple(r["pattern"]), r)
        if self.path is not None and recs:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"regions": recs}) + "\n")
                f.flush()


class _Frontier:
    """The regions to visit, one queue per worker process that found them (its *home*: that
    process holds their pattern forms already, so a batch goes back to it when it can)."""

    def __init__(self):
        self.queues: dict = {}

    def __len__(self):
        return sum(map(len, self.queues.values()))

    def add(self, item, home, first=False):
        q = self.queues.setdefault(home, deque())
        if first:
            q.appendleft(item)
        else:
            q.append(item)

    def take(self, size, home=None):
        """``(items, home)``: up to *size* items, from *home*'s queue when it has any, else
        from the longest queue (first in, first out)."""
        q = self.queues.get(home)
        if not q:
            home = max(self.queues, key=lambda h: len(self.queues[h]))
            q = self.queues[home]
        items = [q.popleft() for _ in range(min(size, len(q)))]
        if not q:
            del self.queues[home]
        return items, home


class _Inline:
    """Tasks run here, one at a time, in submission order (the serial executor)."""

    def __init__(self):
        self.queue = deque()

    def __len__(self):
        return len(self.queue)

    def submit(self, fn, args, tag, home=None):
        self.queue.append((fn, args, tag))

    def next(self):
        fn, args, tag = self.queue.popleft()
        return tag, fn(*args)

    def cancel(self):
        self.queue.clear()


class _Futures:
    """Tasks on a Dask client, results as they finish (Dask resubmits a task lost with its
    worker: a task is a pure function of its arguments)."""

    def __init__(self, client, wait=None):
        from distributed import as_completed
        self.client, self.wait = client, wait
        self.done = as_completed()
        self.tags: dict = {}
        self.address = {name: addr for addr, name in client.run(process_name).items()}

    def __len__(self):
        return len(self.tags)

    def submit(self, fn, args, tag, home=None):
        """*fn(*args)* as a task, preferably on the worker process *home*
        (:func:`process_name`; any worker when it is gone)."""
        where = self.address.get(home)
        place = {} if where is None else {"workers": [where], "allow_other_workers": True}
        fut = self.client.submit(fn, *args, pure=False, **place)
        self.tags[fut] = tag
        self.done.add(fut)

    def next(self):
        fut = next(self.done)
        return self.tags.pop(fut), fut.result(timeout=self.wait)

    def cancel(self):
        self.client.cancel(list(self.tags))
        self.tags.clear()


class _Stream:
    """The ``region_cover`` certificate of a walk, assembled and checked while the walk runs.

    A region's index in the certificate is the order in which its pattern was found
    (:meth:`found`), so a finished region's neighbours all have their indices when its task
    returns (:meth:`done`): its entry is final then (:func:`.cover.linked_text`, read once
    here).  As soon as regions ``sent .. sent + STREAM - 1`` are all final, their part of the
    check starts on a worker (:func:`check_stream`: their texts and the patterns of the regions
    their facets cross into, nothing else), so the check runs beside the walk's last waves
    instead of after them; :meth:`finish` starts the rest (:data:`PARTS` per worker), checks
    ``"cover"`` here and collects the verdicts.  Serially (no client) every part is checked
    here in :meth:`finish`."""

    def __init__(self, head: dict, widths: list, ex):
        self.head, self.widths, self.ex = head, widths, ex
        self.client = getattr(ex, "client", None)
        self.index: dict = {}       # N's pattern -> its index in the certificate
        self.order: list = []       # N's patterns by index
        self.regions: dict = {}     # index -> the region's certificate entry (final)
        self.texts: dict = {}       # index -> its JSON text, until its part starts
        self.ready = self.sent = 0  # regions < ready are final; regions < sent are in parts
        self.parts: list = []       # (start, stop, {index: N's pattern} it was sent)
        self.futures: list = []     # every future of the parts (the checks and their data)
        self.checks: list = []      # the parts' checks
        self.skel = None            # the head, on every worker
        self.frozen = False         # gc.freeze() called (undone by :meth:`cancel`)

    def found(self, p) -> None:
        self.index[p] = len(self.order)
        self.order.append(p)

    def done(self, recs) -> None:
        with _collected_after():
            for rec in recs:
                k = self.index[tuple(rec["pattern"])]
                try:
                    text = cover.linked_text(rec["region"], [None if q is None else self.index[tuple(q)]
                                                             for q in rec["across"]])
                except KeyError:
                    raise CertificateError("region_cover", "a neighbour's pattern was not found "
                                           "before its region finished: a bug") from None
                self.regions[k] = json.loads(text)
                if self.client is not None:
                    self.texts[k] = text
            gc.freeze()         # the entries live until the end: no collection walks them again
            self.frozen = True
        while self.ready in self.regions:
            self.ready += 1
        while self.client is not None and self.ready - self.sent >= STREAM:
            self._start(self.sent, self.sent + STREAM)

    def _start(self, a: int, b: int) -> None:
        """The part ``[a, b]`` on a worker: its texts and the patterns of its neighbours
        outside it (one string, scattered straight to a worker)."""
        names = {nb: self.order[nb] for k in range(a, b) for nb in self.regions[k]["neighbours"]
                 if nb is not None and not a <= nb < b}
        self.parts.append((a, b, names))
        client = self.client
        if self.skel is None:
            self.skel = client.scatter([self.head], broadcast=True, hash=False)[0]
            self.futures.append(self.skel)
        text = (f'[{json.dumps([[k, list(p)] for k, p in names.items()])}, '
                f'[{",".join(self.texts.pop(k) for k in range(a, b))}]]')
        data = client.scatter([text], hash=False)[0]
        self.checks.append(client.submit(check_stream, self.skel, a, data, self.widths,
                                         pure=False, priority=-1))
        self.futures += [self.checks[-1], data]
        self.sent = b

    def certificate(self) -> dict:
        n = len(self.order)
        if len(self.regions) != n:
            raise CertificateError("region_cover", "a region found was not walked: a bug")
        return dict(self.head, regions=[self.regions[k] for k in range(n)])

    def finish(self, cert: dict) -> tuple:
        """``(ok, why)`` of the check of *cert* (this walk's :meth:`certificate`): the parts
        not started yet, ``"cover"`` here, then every part's verdict.  The patterns each part
        was sent for the regions outside it must be *cert*'s (compared here: the parts then
        checked *cert* itself; their texts are those *cert* was read from)."""
        n = len(cert["regions"])
        if self.client is not None and self.sent < n:
            workers = max(1, getattr(self.ex, "workers", 1))
            size = max(cover.CHUNK, -(-(n - self.sent) // (PARTS * workers)))
            for a in range(self.sent, n, size):
                self._start(a, min(a + size, n))
        expanded = [list(cover.expand(self.widths, p)) for p in self.order]
        if n != len(expanded) or any(r["pattern"] != e for r, e in zip(cert["regions"], expanded)):
            return False, "the certificate's patterns are not those of the walk: a bug"
        ok, why = check_part(cert, "cover")
        if self.client is None:
            if ok:
                ok, why = check_part(cert, [0, n])
            return ok, why if not ok else f"{n} regions in 1 part"
        if ok and any(expanded[k] != list(cover.expand(self.widths, p))
                      for _, _, names in self.parts for k, p in names.items()):
            return False, "a part was sent other patterns than the certificate's: a bug"
        from distributed import as_completed
        for fut in as_completed(self.checks) if ok else ():
            ok, why = fut.result(timeout=getattr(self.ex, "wait", None))
            if not ok:
                break
        return ok, why if not ok else f"{n} regions in {len(self.parts)} parts"

    def cancel(self) -> None:
        if self.frozen:
            gc.unfreeze()
            self.frozen = False
        if self.client is not None and self.futures:
            self.client.cancel(self.futures)
        self.futures, self.checks = [], []


def check_stream(head: dict, start: int, payload: str, widths: list) -> tuple:
    """Task: the part ``[start, start + len(regions)]`` of the check of a walk's certificate
    (:class:`_Stream`) whose *head* is everything but the regions; *payload*: the JSON text
    ``[[[index, N's pattern], ...], [region, ...]]``, the patterns of the regions outside the
    part that its facets cross into, then its regions.  The check
    (:func:`.search.check_part`) reads of the other regions only those patterns; the others
    are put in as placeholders (a zero pattern)."""
    with _collected_after():
        return _check_stream(head, start, payload, widths)


def _check_stream(head: dict, start: int, payload: str, widths: list) -> tuple:
    names, regs = json.loads(payload)
    stop = start + len(regs)
    blank = {"pattern": [0] * (2 * sum(widths)), "point": []}
    whole = [blank] * max([stop] + [k + 1 for k, _ in names])
    for k, p in names:
        whole[k] = {"pattern": list(cover.expand(widths, p)), "point": []}
    whole[start:stop] = regs
    return check_part(dict(head, regions=whole), [start, stop])


def distributed_regions(net: Network, box, *, method: str | None = None,
                        cells: int | None = None, **kw) -> RegionsResult:
    """The linear regions of *net* meeting *box*, distributed: *method* "walk" (the default
    when *cells* is not given; :func:`distributed_walk`, every region processed once) or
    "cells" (the default when *cells* is given; :func:`.search.cell_regions`, one walk per
    cell of the box, a region cut by a cell boundary walked by every cell it meets: kept to
    measure against the walk).  The keywords *kw* (``workers``, ``scheduler``,
    ``memory_limit``, ``timeout``, ``checkpoint``, ``executor``, ``progress``, ``certify``,
    ``verify``) are those of both.

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> a = distributed_regions(net, [(-2, 2)], workers=0)
    >>> b = distributed_regions(net, [(-2, 2)], cells=4, workers=0)
    >>> (a.method, b.method), a.patterns == b.patterns, a.verified and b.verified
    (('walk', 'cells'), True, True)
    """
    method = method or ("cells" if cells is not None else "walk")
    if method == "cells":
        return cell_regions(net, box, cells=cells, **kw)
    if method != "walk":
        raise InputError(f"unknown method {method!r} (walk or cells)")
    return distributed_walk(net, box, **kw)


def distributed_walk(net: Network, box, *, workers: int | None = None,
                     scheduler: str | None = None, memory_limit=None,
                     timeout: float | None = None, checkpoint=None, executor=None,
                     progress: bool = False, certify: bool = True, verify: bool = True,
                     batch: int | None = None):
    """The linear regions of *net* meeting *box* by the distributed walk (module docstring).

    With *certify* (and a complete walk of a box with an interior: a cube ``[lo, hi]^d`` or a
    box with its own sides, depth > 1) the
    ``region_cover`` certificate is assembled and, with *verify*, checked part by part (the
    chunks on the workers; a failure raises :class:`CertificateError`: a bug).  Returns a
    :class:`semialgebraic.distributed.search.RegionsResult` (``method`` "walk", ``tasks``).

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> r = distributed_walk(net, [(-2, 2)], workers=0)
    >>> r.patterns, r.verified, r.tasks
    ([[-1, 1], [1, -1], [1, 1]], True, 3)
    """
    box = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if len(box) != net.n_inputs or any(lo > hi for lo, hi in box):
        raise InputError(f"the box needs {net.n_inputs} intervals lo <= hi")
    t0 = time.perf_counter()
    deadline = None if timeout is None else time.time() + timeout
    end = None if timeout is None else time.monotonic() + timeout
    whole = certify and all(lo < hi for lo, hi in box) and net.depth > 1

    def unprepared(exc):             # the preparation is one Python pass over every parameter
        return RegionsResult([], [], 1, False, "serial", time.perf_counter() - t0, None, False,
                             "walk", 0, str(exc) or "interrupted (Ctrl-C)", 0.0)
    try:                             # (twice 5 s on a 768-3072-768 block before the first
        with alarm_at(end, "the walk's preparation"):      # deadline check: 30 s at 10, s49)
            nj = jsonable(net.to_dict())
            bj = [[q_json(lo), q_json(hi)] for lo, hi in box]
            key = hashlib.sha256(json.dumps(["walk", 2, nj, bj, whole],
                                            sort_keys=True).encode()).hexdigest()[:32]
            log = _Log(checkpoint, key)
    except BudgetExhausted as exc:
        return unprepared(exc)
    ex = executor or make_executor(workers, scheduler, memory_limit, timeout=timeout)
    stream = None
    try:
        widths = list(net.widths[1:-1])
        try:
            with alarm_at(end, "the certificate's head"):
                head = (cover.assembled(net, [lo for lo, _ in box], [hi for _, hi in box], [])
                        if whole else None)
        except BudgetExhausted as exc:
            return unprepared(exc)
        stream = _Stream(head, widths, ex if verify else None) if whole else None
        res = _walk(net, box, nj, bj, whole, key, log, ex, deadline, progress, batch or BATCH,
                    stream, timeout)
        seen, complete, tasks, reason, cpu = res
        pats = sorted(log.regions) if complete else sorted(seen)
        cert, verified = None, False
        if whole and complete:
            with answer_kept():      # the walk is done: a first Ctrl-C no longer loses it
                cert = stream.certificate()
            if verify:
                try:
                    ok, why = stream.finish(cert)
                except KeyboardInterrupt as exc:   # the report, the certificate unchecked
                    ok = None                      # (s46 Ctrl-C audit F-SEARCH-REGIONS: one line)
                    cut = str(exc) if isinstance(exc, BudgetExhausted) and str(exc) else \
                        "interrupted (Ctrl-C)"
                    reason = (f"{reason}; " if reason else "") + f"the certificate not checked ({cut})"
                if ok is False and log.resumed:    # (an edited checkpoint: exit 4 "a bug",
                    raise InputError(                 # s48 hostile audit S2)
                        f"the checkpoint's finished regions do not agree with the network "
                        f"(edited or corrupted?): {why.removesuffix(': a bug')}; delete it "
                        "to start afresh",
                        source=str(checkpoint))
                if ok is False:
                    raise CertificateError("region_cover", why)
                verified = ok is True
    finally:
        if stream is not None:
            stream.cancel()
        if executor is None:
            ex.close()
    with answer_kept():
        points = [log.regions[p]["point"] if p in log.regions else seen[p] for p in pats]
    return RegionsResult([list(p) for p in pats], points, 1, complete, getattr(ex, "kind", "serial"),
                         time.perf_counter() - t0, cert, verified, "walk", tasks, reason, cpu)


def _walk(net, box, nj, bj, whole, key, log, ex, deadline, progress, most, stream=None,
          timeout=None):
    """The client's loop: ``(seen, complete, tasks, reason, cpu)``, *seen* mapping every
    pattern found (visited or in the frontier) to a point inside its region, *cpu* the CPU
    seconds the tasks spent.  *stream* (a :class:`_Stream`): told every pattern found, in
    order, and every finished region once its neighbours are found."""
    seen: dict = {}
    frontier = _Frontier()

    def see(p, y):
        seen[p] = y
        if stream is not None:
            stream.found(p)
    for p, rec in log.regions.items():          # resumed: the finished regions
        see(p, rec["point"])
    for p, rec in log.regions.items():
        for q, y in zip(rec["across"], rec["next"]):
            if q is not None and tuple(q) not in seen:
                see(tuple(q), y)
                frontier.add([list(q), y, rec["bases"]], None)
    if stream is not None:
        stream.done(list(log.regions.values()))
    if not log.regions:
        first = RegionSteps(net, cover.cell_domain(bj)).start()
        if first is None:                   # the box has no interior
            return seen, True, 0, "", 0.0
        p, x = first
        see(p, [q_json(v) for v in x])
        frontier.add([list(p), seen[p], []], None)
    client = getattr(ex, "client", None)
    pool = _Inline() if client is None else _Futures(client, getattr(ex, "wait", None))
    slots = 1 if client is None else SLOTS * max(1, getattr(ex, "workers", 1))
    tasks, reason, shown_at, cpu, free = 0, "", time.monotonic(), 0.0, None
    text = json.dumps(nj)
    try:
        while len(frontier) or len(pool):
            if deadline is not None and time.time() >= deadline:
                reason = f"timeout of {timeout:g} s reached"
                break
            while len(frontier) and len(pool) < slots:
                size = max(1, min(most, math.ceil(len(frontier) / slots)))
                items, home = frontier.take(size, free)
                pool.submit(walk_batch, (key, text, bj, whole, deadline, json.dumps(items)), tasks,
                            free if free is not None else home)
                free = None                 # the slot freed by the last result is refilled
                tasks += 1
            _, res = pool.next()
            cpu += res["cpu"]
            free = res["home"]
            log.add(res["regions"])
            for rec in res["regions"]:
                for q, y in zip(rec["across"], rec["next"]):
                    if q is not None and tuple(q) not in seen:
                        see(tuple(q), y)
                        frontier.add([q, y, rec["bases"]], free)
            if stream is not None:
                stream.done(res["regions"])
            for item in reversed(res["left"]):
                frontier.add(item, free, first=True)
            if progress and time.monotonic() - shown_at >= 2:
                shown_at = time.monotonic()
                print(f"search regions: {len(log.regions)} regions walked, {len(frontier)} in the "
                      f"frontier, {len(pool)} tasks running, {tasks} tasks run", file=sys.stderr,
                      flush=True)
                shown()                 # (the heartbeat waits from here)
        else:
            return seen, True, tasks, "", cpu
    except KeyboardInterrupt:           # Ctrl-C: the regions found so far (each with its point)
        reason = "interrupted (Ctrl-C)"
    finally:
        pool.cancel()
    return seen, False, tasks, reason, cpu


def check_in_parts(cert: dict, ex) -> tuple:
    """The check of a ``region_cover`` certificate part by part
    (:mod:`semialgebraic.verify.region_cover_parts`): :func:`submit_parts`, then
    :func:`await_parts`; ``(ok, why)``."""
    regs = cert["regions"]
    texts = [json.dumps(r) for r in regs] if getattr(ex, "client", None) is not None else None
    return await_parts(cert, submit_parts(dict(cert, regions=[slim(r) for r in regs]), texts, ex), ex)


def submit_parts(skeleton: dict, texts, ex):
    """Start the parts of a ``region_cover`` check on the executor *ex*: spans of regions,
    :data:`PARTS` per worker (at least :data:`.cover.CHUNK` regions each); the handle for
    :func:`await_parts`.

    *skeleton*: the certificate with each region cut to its pattern and point, which is all a
    part reads of the regions outside its span; *texts*: every region's JSON text.  On Dask
    the skeleton goes to every worker once (broadcast, not hashed: Dask's hash of a large
    object walks every entry in Python) and each span, as JSON text, to one worker (scattered
    round robin, straight to the worker, not through the scheduler in the task graph; a
    string crosses the wire as it is, where a list of dicts would be walked by Dask in search
    of futures and pickled); :func:`check_span` puts the span back in place.  Serially (no
    client) nothing starts here."""
    n = len(skeleton["regions"])
    workers = max(1, getattr(ex, "workers", 1))
    size = max(cover.CHUNK, -(-n // (PARTS * workers)))
    spans = [(k, min(k + size, n)) for k in range(0, n, size)]
    client = getattr(ex, "client", None)
    if client is None:
        return skeleton, spans, None
    skel = client.scatter([skeleton], broadcast=True, hash=False)[0]
    data = client.scatter([f"[{','.join(texts[a:b])}]" for a, b in spans], hash=False)
    futures = [client.submit(check_span, skel, a, text, pure=False)
               for (a, _), text in zip(spans, data)]
    return skeleton, spans, futures + data + [skel]


def await_parts(cert: dict, handle, ex) -> tuple:
    """The parts started by :func:`submit_parts` for *cert*: ``"cover"`` here (while the
    workers check the spans), then each span's verdict (serially: each span here);
    ``(ok, why)``.  The skeleton the parts received must be *cert*'s regions cut to their
    patterns and points (compared here: the parts then checked *cert* itself)."""
    skeleton, spans, futures = handle
    n = len(cert["regions"])
    try:
        if len(skeleton["regions"]) != n or any(
                s != slim(r) for s, r in zip(skeleton["regions"], cert["regions"])):
            return False, "the parts were sent other regions than the certificate's: a bug"
        ok, why = check_part(cert, "cover")
        if futures is None:
            for a, b in spans if ok else ():
                ok, why = check_part(cert, [a, b])
                if not ok:
                    break
        else:
            from distributed import as_completed
            for fut in as_completed(futures[:len(spans)]) if ok else ():
                ok, why = fut.result(timeout=getattr(ex, "wait", None))
                if not ok:
                    break
    finally:
        if futures is not None:
            ex.client.cancel(futures)
    return ok, why if not ok else f"{n} regions in {len(spans)} parts"


def slim(region):
    """A region of a certificate cut to its pattern and point (what a part of the check reads
    of the regions outside its span); anything else as it is."""
    if isinstance(region, dict) and "pattern" in region and "point" in region:
        return {"pattern": region["pattern"], "point": region["point"]}
    return region


def check_span(skeleton: dict, start: int, text: str) -> tuple:
    """Task: the part of the check of the certificate whose *skeleton* (:func:`submit_parts`)
    has in place ``start, start + 1, …`` the regions of the JSON *text*
    (:func:`.search.check_part`)."""
    regs = json.loads(text)
    whole = list(skeleton["regions"])
    whole[start:start + len(regs)] = regs
    return check_part(dict(skeleton, regions=whole), [start, start + len(regs)])
