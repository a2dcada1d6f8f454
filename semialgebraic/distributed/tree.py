"""The open nodes of ONE branch-and-bound tree as tasks (issue 19, part 3): ``search diff``.

:func:`tree_diff` bounds ``max_o max_{x in box} |a_o − b_o|`` with the search of
:func:`semialgebraic.bab.diff_bounds` (objectives ``c·D`` with ``c = ± e_o``, ``D = a − b``,
:func:`semialgebraic.bab.bound_objective`), but the open nodes of the search run as tasks:

* a **task** (:func:`expand`) is a pure function of JSON: the networks (native dicts), the box,
  a node (its objective ``(o, s)`` and its *steps* from the objective's root: ``[l, j, side]``
  neuron splits and ``["x", k, mid, side]`` input splits, exact strings), the global prune level
  and a budget of node expansions (never the clock: every run builds the same tree).  It opens
  the node along its path on the worker's engine (one :class:`~semialgebraic.bab.Engine` per
  network pair and objective, cached in the worker process: a node is only ever opened along
  its own path, so its numbers do not depend on what ran on the worker before), searches from
  it best-first (``bound_objective(at=…)``) and returns the subtree it built (the JSON of the
  serial certificate's trees, its LP-tightened records in a table), its best point and the
  still-open leaves as new nodes;
* the **client** keeps the global best-first frontier (the highest bound first, over all
  objectives), closes the nodes bounded by the global lower bound (the best ``|a_o − b_o|``
  attained), submits waves of at most *wave* nodes (a number independent of the workers; each
  task also stops once its open nodes are bounded by the bound of the next wave's last node,
  where the frontier has better nodes: global best-first, roughly),
  grafts the returned subtrees into one tree per objective and takes a wave's results in the
  wave's order; the next wave is formed once a wave is grafted (:data:`_PIPELINE` waves in
  flight, 1: its tasks close the nodes bounded by the latest lower bound, where with two waves
  in flight they had the lower bound of two waves before — 4-28-28-1: 304 node expansions with
  two waves in flight, 221 with one, 183 in the serial search; a wave's tasks still keep two
  workers busy: 1.89x on that run's task times), and the rule that forms them does not depend
  on the executor, so the tree, the interval and the certificate are the same serially
  (``workers=0``) and on any number of workers;
* the **certificate** is the ``bab_bound`` certificate of the serial ``netfibers diff``
  (:func:`semialgebraic.certificates.bab_bound_certificate`; the records interned by content so
  that the builder tables each once), checked in parts (:func:`semialgebraic.verify.verify_part`:
  the claim at the client, subtrees of at most :data:`PART_LEAVES` leaves on the workers);
* ``checkpoint``: JSON Lines, a header naming the search and one line per finished task; a
  rerun takes the recorded results instead of running their tasks (the same waves are formed);
* ``timeout``: the search stops submitting (and stops waiting for a wave) at 85 % of it and
  returns the certified interval of the tree so far (every open leaf keeps its certified bound).
"""

from __future__ import annotations

import hashlib
import heapq
import json
import signal
import sys
import threading
import time
from collections import OrderedDict, deque
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q

from .checkpoints import refuse_foreign
from ..bab import bound_objective
from ..bab.align import aligned
from ..bab.diff import split_threshold
from ..bab.primal import float_candidates, region_search
from ..bab.search import Engine, _output_bound
from ..budget import Budget, BudgetExhausted, alarm_at, answer_kept, ctrl_c_count, shown
from ..certificates import jsonable
from ..certificates.bab_bound import bab_bound_certificate
from ..exceptions import CertificateError
from ..verify import verify_part
from .cluster import executor as make_executor
from .search import _refuse_pruned, _tree_upper

__all__ = ["tree_diff", "TreeResult", "expand", "DEFAULT_NODES", "DEFAULT_WAVE", "PART_LEAVES"]

DEFAULT_NODES = 48     # node expansions per task before its open leaves go back to the client
DEFAULT_WAVE = 8       # nodes submitted at once (the best first; independent of the workers)
PART_LEAVES = 400      # leaves per verification part (a subtree checked on a worker)
_SEARCH_SHARE = 0.85   # of a timeout, for the search; the rest for the certificate's check
_STARTS = 8           # the gradient ascent's points a root's walk starts from (as bab.diff)
_PIPELINE = 1          # waves in flight (2: the next wave ran while the last tasks of one finished)
_ENGINES: OrderedDict = OrderedDict()   # in each worker process: (pair digest, o, s) -> engine
_NETS: OrderedDict = OrderedDict()      # pair digest -> (D, rows, biases, base engine)
MAX_PAIRS = 2          # network pairs a worker keeps (least recently used dropped first)
MAX_ENGINES = 16       # objective engines a worker keeps (least recently used dropped first)
MAX_CACHED_NODES = 4096   # nodes an objective engine keeps before it starts afresh


# -- the task ----------------------------------------------------------------------------------
def _engine(a_json, b_json, key, objective, box_json):
    """The worker's engine of one objective of the pair *key* (built once per process; the
    caches are least-recently-used with caps :data:`MAX_PAIRS`, :data:`MAX_ENGINES`, and an
    engine that holds more than :data:`MAX_CACHED_NODES` nodes is replaced by a fresh one: a
    node is only ever opened along its own path, from the last input split, so a task gives
    the same numbers on a fresh engine — the reason for one engine per objective)."""
    ek = (key, *objective)
    eng = _ENGINES.get(ek)
    if eng is not None and len(eng._cache) > MAX_CACHED_NODES:
        del _ENGINES[ek]
        eng = None
    if eng is not None:
        _ENGINES.move_to_end(ek)
        _NETS.move_to_end(key)
        eng.lp_memo.clear()     # the dual sign tried first: from this task's own nodes only
        return _NETS[key][:3] + (eng, _split(key, box_json))
    if key not in _NETS:
        while len(_NETS) >= MAX_PAIRS:
            old, _ = _NETS.popitem(last=False)
            for k in [k for k in _ENGINES if k[0] == old]:
                del _ENGINES[k]
        a, b = network_from_dict(a_json), network_from_dict(b_json)
        D = difference_network(a, b)
        Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
        _NETS[key] = (D, Ws, bs, Engine(Ws, bs, paired=a.widths == b.widths), {})
    _NETS.move_to_end(key)
    while len(_ENGINES) >= MAX_ENGINES:
        _ENGINES.popitem(last=False)
    split = _split(key, box_json)
    eng = _ENGINES[ek] = _NETS[key][3].fork()
    return _NETS[key][:3] + (eng, split)


def _split(key, box_json) -> int:
    """The serial diff's ``input_split_above`` on the box (:func:`~semialgebraic.bab.diff.split_threshold`,
    from the root's bounds on the pair's base engine), once per pair and box."""
    base, known = _NETS[key][3], _NETS[key][4]
    bk = tuple(map(tuple, box_json))
    if bk not in known:
        known[bk] = split_threshold(base, [(to_q(lo), to_q(hi)) for lo, hi in box_json])
    return known[bk]


def _path(box, steps):
    """The nodes along *steps* from the root: ``(box, splits, xdepth, parent, layer)`` each (the
    arguments :meth:`Engine.node` and ``bound_objective(at=…)`` take)."""
    out = [(list(box), {}, 0, None, None)]
    for st in steps:
        nbox, splits, xd = out[-1][:3]
        if st[0] == "x":
            _, k, mid, side = st
            mid = to_q(mid)
            lo, hi = nbox[k]
            if not lo <= mid <= hi:
                raise InputError(f"input split at {mid} outside [{lo}, {hi}]")
            child = list(nbox)
            child[k] = (lo, mid) if side == 0 else (mid, hi)
            out.append((child, splits, xd + 1, None, None))
        else:
            l, j, side = st
            out.append((nbox, {**splits, (l, j): side}, xd, splits, l))
    return out


def _step(split, side):
    if split[0] == "x":
        return ["x", split[1], q_json(split[2]), side]
    return [split[0], split[1], side]


def _hoisted(tree):
    """*tree* as JSON with its leaves' records (shared objects) as indices into a table."""
    table, index = [], {}

    def walk(node):
        if "children" in node:
            return {**node, "children": [walk(ch) for ch in node["children"]]}
        if "tightened" not in node:
            return node
        refs = []
        for rec in node["tightened"]:
            if id(rec) not in index:
                index[id(rec)] = len(table)
                table.append(rec)
            refs.append(index[id(rec)])
        return {**node, "tightened": refs}
    return jsonable(walk(tree)), jsonable(table)


def _starts(Ws, bs, box, o, s) -> list:
    """The start points of an objective's root, those of the serial ``diff``
    (:func:`semialgebraic.bab.diff.bounded_diff`): the gradient ascent's best 3 of
    :data:`_STARTS` and the best points of the float walk over regions from all of them (the
    tree's tasks then close the nodes the serial search closes from its start; it had the
    ascent's 3 points alone)."""
    seeds = float_candidates(Ws, bs, box, o, s, seed=o, keep=_STARTS)
    return seeds[:3] + region_search(Ws, bs, box, o, s, seeds)


def expand(a_json: dict, b_json: dict, key: str, box_json: list, node: dict, prune, nodes: int,
           stop=None, deadline=None) -> dict:
    """Task: the branch and bound of one objective from *node* (module docstring) within *nodes*
    node expansions, nodes bounded by *prune* (an attained value, or None) closed; with *stop*
    (above *prune*), the expansions also end when every open node is bounded by *stop* (the
    client's frontier holds a wave of nodes above it: global best-first, roughly).  With
    *deadline* (seconds since the epoch: the search's timeout), the task also stops there, in
    the middle of a node's LPs too (``Budget.active``): ``"cut": True``, a valid but partial
    subtree that the client grafts but does not checkpoint (``{"cut": True, "tree": None}``
    when the deadline came before the node's own bound: the node stays open).

    Returns ``{"tree", "records", "open": [{"steps", "bound"}], "closed", "lower", "point",
    "output", "expansions", "cut"}``: the subtree (the node as its root), its records' table,
    the open leaves (steps from the objective's root), the largest bound of a closed leaf (None:
    none), and ``max_o |a_o − b_o|`` at the best point of the objective found in the node's box."""
    o, s = node["objective"]
    steps = node["steps"]
    left = None if deadline is None else max(0.0, deadline - time.time())
    budget = Budget(timeout=left, max_regions=nodes)
    with budget.active():
        try:
            D, Ws, bs, eng, split_above = _engine(a_json, b_json, key, (o, s), box_json)
            box = [(to_q(lo), to_q(hi)) for lo, hi in box_json]
            path = _path(box, steps)
            first = max((i for i, st in enumerate(steps) if st[0] == "x"), default=-1) + 1
            for nbox, splits, _, parent, layer in path[first:-1]:   # the chain the node reuses
                eng.node(nbox, splits, parent, layer)
            c = [Q(0)] * len(bs[-1])
            c[o] = Q(s)
            start = _starts(Ws, bs, box, o, s) if not steps else []
        except BudgetExhausted:
            _ENGINES.pop((key, o, s), None)   # no node cut in its LPs stays cached half done
            return {"cut": True, "tree": None}
        cut_at = None if prune is None else to_q(prune)
        if stop is not None:
            cut_at = to_q(stop) if cut_at is None else max(cut_at, to_q(stop))
        ob = bound_objective(Ws, bs, box, c, lambda x: s * D.evaluate(x)[o], budget=budget,
                             prune_at=cut_at, start=start, engine=eng, at=path[-1],
                             input_split_above=split_above)
    late = deadline is not None and (time.time() >= deadline or (budget.reason or "").startswith("timeout"))
    if late or budget.interrupted:
        _ENGINES.pop((key, o, s), None)   # no node cut in its LPs stays cached half done
    if budget.interrupted and not late:
        raise KeyboardInterrupt        # Ctrl-C (a serial run): not a task's result
    if ob.tree is None:
        if late:
            return {"cut": True, "tree": None}
        raise RuntimeError(f"no bound at the node: {ob.reason}")
    where, stack = {}, [(ob.tree, [])]
    while stack:                                  # every node's steps from the task's node
        n, rel = stack.pop()
        where[id(n)] = rel
        if "children" in n:
            stack += [(ch, rel + [_step(n["split"], k)]) for k, ch in enumerate(n["children"])]
    cut = ob.lower if prune is None else max(ob.lower, to_q(prune))
    heap = ob.extra.get("state", {}).get("heap", [])
    open_ = sorted(((-e[0], where[id(e[4])]) for e in heap if -e[0] > cut), key=lambda t: t[1])
    still = {id(e[4]) for e in heap if -e[0] > cut}
    closed, stack = None, [ob.tree]
    while stack:
        n = stack.pop()
        if "children" in n:
            stack += n["children"]
        elif "bound" in n and id(n) not in still:
            closed = n["bound"] if closed is None or n["bound"] > closed else closed
    tree, records = _hoisted(ob.tree)
    devs = [abs(v) for v in D.evaluate(ob.point)]
    out = max(range(len(devs)), key=devs.__getitem__)
    return {"tree": tree, "records": records,
            "open": [{"steps": steps + rel, "bound": q_json(bnd)} for bnd, rel in open_],
            "closed": None if closed is None else q_json(closed),
            "lower": q_json(devs[out]), "point": [q_json(v) for v in ob.point], "output": out,
            "expansions": budget.regions, "cut": late}


# -- the client --------------------------------------------------------------------------------
@dataclass
class TreeResult:
    """Certified ``lower <= max_o max_x |a_o − b_o| <= upper`` (``upper`` None: some objective's
    root not bounded yet); ``point``/``output`` attain ``lower``; ``certificate`` the
    ``bab_bound`` certificate of the grafted trees (None without every root)."""

    lower: Q
    upper: Q | None
    point: tuple
    output: int
    complete: bool
    reason: str
    certificate: dict | None
    verified: bool
    tasks: int
    expansions: int
    open_nodes: int
    where: str = "serial"
    seconds: float = 0.0
    per_output: list | None = None

    def to_json(self) -> dict:
        return {"lower": str(self.lower), "upper": None if self.upper is None else str(self.upper),
                "complete": self.complete, "max_deviation": str(self.lower),
                "point": [q_json(v) for v in self.point], "output": self.output,
                "per_output": self.per_output or [],
                "nodes": self.expansions, "tasks": self.tasks, "open_nodes": self.open_nodes,
                "reason": self.reason, "verified": self.verified,
                "certificate_checked": self.verified, "where": self.where,
                "seconds": round(self.seconds, 3),
                "method": "branch and bound, open nodes of one tree as tasks"}


def _digest(*parts) -> str:
    return hashlib.sha256(json.dumps(jsonable(list(parts)), sort_keys=True).encode()).hexdigest()[:32]


class _Log:
    """The finished tasks of one search, as JSON Lines (module docstring)."""

    def __init__(self, path, key: str):
        self.path, self.done = (Path(path) if path else None), {}
        if self.path is None:
            return
        refuse_foreign(self.path)
        keep = 0
        if self.path.exists():
            raw = self.path.read_bytes()
            for line in raw.splitlines(keepends=True):
                try:
                    rec = json.loads(line) if line.endswith(b"\n") else None
                except (ValueError, RecursionError):   # (a 60 000-digit integer: exit 4, s48 S1)
                    rec = None
                if rec is None or (keep == 0 and rec.get("search") != key):
                    if keep == 0 and rec is not None:
                        raise InputError("the checkpoint belongs to another search (other networks, "
                                         "box or budgets)", source=str(self.path))
                    break
                if keep:
                    self.done[rec["node"]] = rec["result"]
                keep += len(line)
            if keep < len(raw):
                with open(self.path, "r+b") as f:      # a torn last line (killed mid-write)
                    f.truncate(keep)
        if keep == 0:
            self.path.write_text(json.dumps({"search": key}) + "\n")

    def add(self, name: str, result: dict) -> None:
        if self.path is not None:
            with open(self.path, "a", encoding="utf-8") as f:
                f.write(json.dumps({"node": name, "result": result}) + "\n")
                f.flush()


def _name(node) -> str:
    """A node's name: its objective and the sides of its steps (unique in the search)."""
    o, s = node["objective"]
    return f"{o}{'+' if s > 0 else '-'}" + "".join(str(st[-1]) for st in node["steps"])


class _Tree:
    """The client's state: one grafted tree per objective, the frontier, the best point."""

    def __init__(self, m: int):
        self.trees: dict = {}
        self.records: dict = {}        # canonical JSON -> the one shared record object
        self.frontier: list = []       # heap of (rank, name, node)
        self.closed = None             # the largest bound of a closed leaf
        self.lower, self.best = None, None
        self.flying: dict = {}         # name -> rank of the nodes submitted, not yet taken
        for o in range(m):
            for s in (1, -1):
                node = {"objective": [o, s], "steps": []}
                heapq.heappush(self.frontier, ((0, Q(0)), _name(node), node))

    def see(self, lower: Q, point, output) -> None:
        if self.lower is None or lower > self.lower:
            self.lower, self.best = lower, (tuple(point), output)

    def wave(self, size: int) -> list:
        """The next nodes to expand (the highest bound first; nodes bounded by lower closed);
        they count as open (:meth:`upper`) until their results are taken or they are pushed
        back."""
        out = []
        while self.frontier and len(out) < size:
            rank, name, node = heapq.heappop(self.frontier)
            if rank[0] == 1 and -rank[1] <= self.lower:
                self._close(-rank[1])
                continue
            out.append((rank, name, node))
            self.flying[name] = rank
        return out

    def floor(self, k: int):
        """The bound of the *k*-th best open node (None: fewer, or a root not bounded yet): a
        task stops expanding below it, where the next wave's nodes are better."""
        best = heapq.nsmallest(k, self.frontier)
        if len(best) < k or best[-1][0][0] == 0:
            return None
        return max(-best[-1][0][1], self.lower)

    def push(self, entry) -> None:
        """A node of a wave whose task did not finish: open again."""
        self.flying.pop(entry[1], None)
        heapq.heappush(self.frontier, entry)

    def bound_root(self, key, leaf: dict) -> None:
        """The objective *key*'s root, not bounded by a task, as the one-leaf tree *leaf* (its
        bound from the root's intervals, :func:`_root_bounds`): an open node of that bound."""
        node = {"objective": list(key), "steps": []}
        name = _name(node)
        self.frontier = [e for e in self.frontier if e[1] != name]
        heapq.heapify(self.frontier)
        self.flying.pop(name, None)
        self.trees[tuple(key)] = leaf
        heapq.heappush(self.frontier, ((1, -to_q(leaf["bound"])), name, node))

    def _close(self, bound: Q) -> None:
        if self.closed is None or bound > self.closed:
            self.closed = bound

    def upper(self):
        """The certified upper bound of the tree so far (None: a root not bounded yet)."""
        ups = [b for b in (self.closed, self.lower) if b is not None]
        for rank in [e[0] for e in self.frontier] + list(self.flying.values()):
            if rank[0] == 0:
                return None
            ups.append(-rank[1])
        return max(ups)

    def take(self, node, res) -> None:
        """Graft the task result *res* of *node* and push its open leaves."""
        self.flying.pop(_name(node), None)
        table = []
        for rec in res["records"]:
            k = json.dumps(rec, sort_keys=True)
            table.append(self.records.setdefault(k, rec))
        sub = _with_records(res["tree"], table)
        key = tuple(node["objective"])
        if not node["steps"]:
            self.trees[key] = sub
        else:
            at = self.trees[key]
            for st in node["steps"]:
                at = at["children"][st[-1]]
            if "children" in at:
                raise AssertionError("a node expanded twice: a bug")
            at.clear()
            at.update(sub)
        if res["closed"] is not None:
            self._close(to_q(res["closed"]))
        for leaf in res["open"]:
            child = {"objective": node["objective"], "steps": leaf["steps"]}
            heapq.heappush(self.frontier, ((1, -to_q(leaf["bound"])), _name(child), child))
        self.see(to_q(res["lower"]), [to_q(v) for v in res["point"]], res["output"])


@contextmanager
def _deferred_sigint():
    """Ctrl-C inside the block is held until its end (then raised): a wave's results are
    grafted whole or not at all (a graft cut halfway would lose open leaves: a wrong upper
    bound).  Only in the main thread (elsewhere there is no SIGINT to hold)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = []
    old = signal.signal(signal.SIGINT, lambda signum, frame: held.append(frame))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
    if held:                # the held Ctrl-C goes to the former handler (budget.ctrl_c's)
        if callable(old):
            old(signal.SIGINT, held[0])
        raise KeyboardInterrupt


def _root_bounds(a, b, box, deadline) -> dict:
    """``(o, s) -> one-leaf tree`` of every objective from the root's intervals (the symbolic or
    paired differential bound with the root's tightened records, as the serial search's root
    leaf, :func:`semialgebraic.bab.diff._root_leaf`), computed here once for all objectives
    before the tasks run: a search cut before a task bounded some root still has a certified
    upper bound.  ``{}`` when *deadline* (``time.monotonic``) comes first; Ctrl-C propagates."""
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    budget = Budget(timeout=None if deadline is None else max(0.0, deadline - time.monotonic()))
    with budget.active():
        try:
            eng = Engine(Ws, bs, paired=a.widths == b.widths)
            ivs, last = eng.node(list(box), {})
            recs = eng.tightened(list(box), {})
        except BudgetExhausted:
            return {}
    if ivs is None:
        return {}
    out = {}
    for o in range(a.n_outputs):
        for s in (1, -1):
            c = [Q(0)] * a.n_outputs
            c[o] = Q(s)
            bnd, by = _output_bound(ivs, c), "symbolic"
            if last is not None and _output_bound([last], c) < bnd:
                bnd, by = _output_bound([last], c), "differential"
            out[(o, s)] = {"bound": bnd, "by": by, **({"tightened": recs} if recs else {})}
    return out


def _with_records(tree, table):
    """*tree* (JSON) with its leaves' record indices replaced by the shared records of *table*."""
    if "children" in tree:
        return {**tree, "children": [_with_records(ch, table) for ch in tree["children"]]}
    if "tightened" in tree:
        return {**tree, "tightened": [table[i] for i in tree["tightened"]]}
    return tree


def tree_diff(a: Network, b: Network, box, *, workers: int | None = None,
              scheduler: str | None = None, memory_limit=None, timeout: float | None = None,
              checkpoint=None, verify: bool = True, executor=None, progress: bool = False,
              nodes: int | None = None, wave: int | None = None,
              max_tasks: int | None = None) -> TreeResult:
    """Certified interval on ``max_o max_{x in box} |a_o − b_o|``: one branch-and-bound tree
    whose open nodes run as tasks (module docstring) of *nodes* node expansions (default
    :data:`DEFAULT_NODES`; an eighth of it, at least 1, while the frontier holds fewer than a
    wave: the first tasks fan out), in waves of *wave* (default :data:`DEFAULT_WAVE`); *max_tasks*
    stops after that many tasks (a partial result, like *timeout*).  With *verify*, the
    ``bab_bound`` certificate is checked in parts, the subtrees on the workers (a failure raises
    :class:`CertificateError`: a bug).

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [["1/2"]]], [[0], [0]])
    >>> r = tree_diff(a, b, [(-1, 2)], workers=0)
    >>> r.lower, r.upper, r.complete, r.verified, r.certificate["type"]
    (1, 1, True, True, 'bab_bound')
    """
    if a.signature != b.signature:
        raise InputError(f"the networks have different signatures {a.signature} and {b.signature}")
    box = [(to_q(lo), to_q(hi)) for lo, hi in box]
    if len(box) != a.n_inputs or any(lo > hi for lo, hi in box):
        raise InputError(f"the box needs {a.n_inputs} intervals lo <= hi")
    _refuse_pruned(a, b)
    t0 = time.perf_counter()
    given = b                  # b's neurons paired with a's (S1/S2 steps, same function), as in diff
    deadline = None if timeout is None else time.monotonic() + _SEARCH_SHARE * timeout
    end = None if timeout is None else time.monotonic() + timeout    # of the check too
    until = None if timeout is None else time.time() + _SEARCH_SHARE * timeout   # the tasks'
    nodes, wave = nodes or DEFAULT_NODES, wave or DEFAULT_WAVE
    centre = [(lo + hi) / 2 for lo, hi in box]
    try:                       # the alignment and the networks' JSON for the tasks: exact work
        with alarm_at(deadline if a.n_parameters >= _ALARMED_PREP else None,  # over every
                      "the preparation of the tree"):                       # parameter that
            b, b_steps = aligned(a, given)                          # sees no checkpoint (a
            aj, bj = jsonable(a.to_dict()), jsonable(b.to_dict())   # 768-3072-768 pair: 20 s
            boxj = [[q_json(lo), q_json(hi)] for lo, hi in box]     # at --timeout 2; s43
            pair = _digest("pair", aj, bj)                          # budgets audit F8)
            log = _Log(checkpoint, _digest("tree diff", pair, boxj, nodes, wave))
    except KeyboardInterrupt as exc:
        why = (f"timeout of {timeout:g} s reached" if isinstance(exc, BudgetExhausted)
               and timeout is not None else "interrupted (Ctrl-C)")
        return _unprepared(a, given, box, centre, why, t0)
    st = _Tree(a.n_outputs)
    seen_ctrl_c = ctrl_c_count()
    devs = [abs(u - v) for u, v in zip(a.evaluate(centre), b.evaluate(centre))]
    st.see(max(devs), centre, devs.index(max(devs)))
    ex = executor or make_executor(workers, scheduler, memory_limit, timeout=timeout)
    tasks = expansions = submitted = 0
    reason = ""
    flying: deque = deque()              # waves submitted, not yet grafted (at most _PIPELINE)
    roots: dict = {}
    try:
        try:
            roots = _root_bounds(a, b, box, deadline)   # in case no task bounds a root
            while True:
                while len(flying) < _PIPELINE and not reason:
                    if deadline is not None and time.monotonic() >= deadline:
                        reason = f"timeout of {timeout:g} s reached"
                    elif max_tasks is not None and submitted >= max_tasks:
                        reason = f"max_tasks={max_tasks} reached"
                    if reason:
                        break
                    # a frontier smaller than a wave fans out first: tasks of an eighth of the budget
                    budget = nodes if len(st.frontier) >= wave else max(1, nodes // 8)
                    batch = st.wave(wave)
                    if not batch:
                        break
                    got = {name: log.done[name] for _, name, _ in batch if name in log.done}
                    prune, floor = q_json(st.lower), st.floor(wave)
                    calls = [(name, (aj, bj, pair, boxj, node, prune, budget,
                                     None if floor is None or rank[0] == 0 or -rank[1] <= floor
                                     else q_json(floor), until))
                             for rank, name, node in batch if name not in got]
                    flying.append((batch, got, ex.submit_unordered(expand, calls)))
                    submitted += len(batch)
                if not flying:
                    break
                batch, got, results = flying[0]
                late = False
                for name, res in results:
                    if res.get("tree") is None:      # the deadline before the node's bound: open
                        late = True
                        continue
                    if not res.get("cut"):           # a task cut by the deadline is not logged: a
                        log.add(name, res)           # resumed run expands its node whole
                    got[name] = res
                    late = late or bool(res.get("cut")) or (deadline is not None
                                                            and time.monotonic() >= deadline)
                    if late and len(got) < len(batch):
                        break                # the rest of the wave stays open (certified bounds)
                if late:
                    results.close()
                    late = True
                with _deferred_sigint():     # grafted whole (Ctrl-C after the wave)
                    flying.popleft()
                    for entry in batch:      # the wave's order: the same tree on any executor
                        rank, name, node = entry
                        if name in got:
                            st.take(node, got[name])
                            tasks += 1
                            expansions += got[name]["expansions"]
                        else:
                            st.push(entry)
                if late:
                    reason = f"timeout of {timeout:g} s reached"
                    for batch, _, results in flying:     # the next wave's nodes stay open too
                        results.close()
                        for entry in batch:
                            st.push(entry)
                    flying.clear()
                if progress:
                    _progress(st, tasks, expansions)
        except KeyboardInterrupt as exc:   # Ctrl-C (or a task's spent budget): the partial report
            reason = (str(exc) if isinstance(exc, BudgetExhausted) and str(exc)
                      else "interrupted (Ctrl-C)")
            for batch, _, results in flying:   # the waves not grafted stay open
                results.close()
                for entry in batch:
                    st.push(entry)
            flying.clear()
        for key, leaf in roots.items():    # roots no task bounded: the root intervals' bound
            if key not in st.trees:
                st.bound_root(key, leaf)
        stopped = reason.startswith("interrupted")
        cert, verified = _assemble(st, a, given, b_steps, box, aj,
                                   ex if verify and not stopped else None, end)
        if cert is None:           # a root not bounded: the attained lower bound, certified
            with answer_kept():
                cert = bab_bound_certificate(a, given, box, [], st.lower, st.lower, st.best[0],
                                             st.best[1], complete_cover=False)
        if verify and cert is not None and not verified:
            # (a Ctrl-C inside the check itself: not "no time left", s45 Ctrl-C audit F4)
            stopped = stopped or ctrl_c_count() != seen_ctrl_c
            reason += ("; " if reason else "") + "the certificate not checked (" + (
                "interrupted (Ctrl-C)" if stopped else "no time left in the budget") + ")"
    finally:
        if executor is None:
            ex.close()
    upper = st.upper()
    if upper is not None and upper < st.lower:
        raise AssertionError("certified upper below an attained value: a bug")
    complete = upper is not None and upper == st.lower
    if not reason:
        reason = ("lower = upper" if complete else
                  "leaves without unstable neurons left a gap of dual rounding")
    per_output = None
    if cert is not None and cert.get("objectives"):
        per_output = [{"upper": str(max(to_q(ob["upper"]) for ob in cert["objectives"]
                                        if ob["output"] == o))} for o in range(a.n_outputs)]
    return TreeResult(st.lower, upper, st.best[0], st.best[1], complete, reason, cert, verified,
                      tasks, expansions, len(st.frontier), getattr(ex, "kind", "serial"),
                      time.perf_counter() - t0, per_output)


_ALARMED_PREP = 1 << 17
"""Parameters of a from which the preparation runs under an alarm at the search's deadline (on
smaller pairs it takes milliseconds, and a run's checkpoint file is begun whatever the budget)."""


def _unprepared(a, b, box, centre, why: str, t0: float) -> TreeResult:
    """The result of a search stopped before its tree was prepared: ``|a − b|`` at the box's
    centre, exactly (a Ctrl-C meanwhile does not lose it: bounded work, a second one ends the
    process), a lower-bound certificate, no upper bound."""
    def evaluate():
        return [abs(u - v) for u, v in zip(a.evaluate(centre), b.evaluate(centre))]
    try:
        devs = evaluate()
    except KeyboardInterrupt:
        devs = evaluate()
    out = devs.index(max(devs))
    cert = bab_bound_certificate(a, b, box, [], devs[out], devs[out], centre, out,
                                 complete_cover=False)
    return TreeResult(devs[out], None, centre, out, False,
                      f"{why} before the tree was prepared; no upper bound within the budget",
                      cert, False, 0, 0, 0, "serial", time.perf_counter() - t0, None)


def _assemble(st: _Tree, a, b, b_steps, box, aj, ex, end=None):
    """The ``bab_bound`` certificate of the grafted trees (None before every root is bounded)
    and, with an executor *ex*, its check in parts: the claim here, the subtrees on *ex*.  *b*
    is the given ``b``; the trees bound ``a − b'`` with ``b'`` = *b* after *b_steps* (:mod:`..bab.align`).
    At *end* (``time.monotonic``: the timeout) the check stops between parts: ``(cert, False)``,
    the certificate not checked (never a verdict on it), the run within its budget."""
    m = a.n_outputs
    keys = [(o, s) for o in range(m) for s in (1, -1)]
    if any(k not in st.trees for k in keys):
        return None, False
    with answer_kept() as kept:      # the search is done: a first Ctrl-C no longer loses it
        objectives = []              # (s45 Ctrl-C audit F6, s46 F-SEARCH-ASM: one line)
        for o, s in keys:
            tree = st.trees[(o, s)]
            up = _tree_upper(tree)
            objectives.append({"output": o, "sign": s, "upper": st.lower if up is None else up,
                               "tree": tree})
        upper = max(max(ob["upper"] for ob in objectives), st.lower)
        cert = bab_bound_certificate(a, b, box, objectives, upper, st.lower, st.best[0], st.best[1],
                                     b_steps=b_steps)
    if ex is None or kept.ctrl_c:    # (a Ctrl-C here: the report, the certificate unchecked)
        return cert, False
    if end is not None and time.monotonic() >= end:
        return cert, False
    try:
        with alarm_at(end) as fired:
            ok, why = verify_part(cert, "claim")
            if ok:
                wire = ex.scatter([{**jsonable(cert), "a": aj, "b": jsonable(b.to_dict())}])[0]
                calls = [(k, (wire, part)) for k, part in enumerate(_parts(cert))]
                results = ex.map_unordered(check_part, calls)
                try:
                    for n, (_, (ok_k, why_k)) in enumerate(results, 1):
                        if not ok_k:
                            ok, why = False, why_k
                            break
                        if end is not None and time.monotonic() >= end and n < len(calls):
                            return cert, False
                finally:
                    results.close()
    except KeyboardInterrupt:        # the alarm, or Ctrl-C in the check: the report, unchecked
        return cert, False
    if fired:                        # an alarm inside the checker: never trust its answer
        return cert, False
    if not ok:
        raise CertificateError("bab_bound", why)
    return cert, True


def check_part(cert: dict, part) -> tuple:
    """Task: one part of the certificate's check (:func:`semialgebraic.verify.verify_part`)."""
    return verify_part(cert, part)


def _parts(cert) -> list:
    """Subtrees covering every leaf of every objective, each of at most :data:`PART_LEAVES`
    leaves where the tree allows: ``{"objective": k, "at": [sides]}``."""
    out = []
    for k, ob in enumerate(cert["objectives"]):
        sizes: dict = {}
        order, stack = [], [(ob["tree"], ())]
        while stack:
            n, at = stack.pop()
            order.append((n, at))
            if "children" in n:
                stack += [(ch, at + (i,)) for i, ch in enumerate(n["children"])]
        for n, at in reversed(order):    # children before parents
            sizes[at] = (sum(sizes[at + (i,)] for i in range(len(n["children"])))
                         if "children" in n else 1)
        stack = [(ob["tree"], ())]
        while stack:
            n, at = stack.pop()
            if sizes[at] <= PART_LEAVES or "children" not in n:
                out.append({"objective": k, "at": list(at)})
            else:
                stack += [(ch, at + (i,)) for i, ch in enumerate(n["children"])]
    return sorted(out, key=lambda p: (p["objective"], p["at"]))


def _progress(st: _Tree, tasks: int, expansions: int) -> None:
    """One stderr line: the certified interval and the open nodes."""
    up = st.upper()
    hi = "not bounded yet" if up is None else f"{float(up):.6g}"
    print(f"search diff: max |a - b| in [{float(st.lower):.6g}, {hi}]; {len(st.frontier)} open "
          f"nodes, {tasks} tasks, {expansions} node expansions", file=sys.stderr, flush=True)
    shown()                 # (the heartbeat waits from here)
