"""A batch: one question (*job*) over the items of a manifest, results as JSON Lines.

:func:`run_batch` reads the manifest, skips the items already in the output (resume), runs the
rest on an executor (:mod:`.cluster`) and appends one record per item as it finishes — one
``write`` of a whole line, then ``flush``, so an interrupted run leaves only complete lines (a
torn last line from a killed process is cut off on the next run) and a rerun resumes.  The
certificate of a record is written to ``<out>.certificates/`` and the record keeps its path.

``dedup``: the classes of a model zoo.  Per file, the exact values at fixed points (a function
invariant); files with different values are certainly different; within a group of equal
values each file is compared with the class representatives — a path on the integer arrays,
then the fingerprint of the fast path that applies (one hidden layer: the kink fingerprint;
bottleneck: CANON of the reduced network when generic), then :func:`semialgebraic.equivalent`
— and merged only on a checked certificate (one per merge, its files made on the worker).
Each file is parsed once per run (:func:`.jobs.dedup_chunk`).  An undecided pair keeps its two classes apart and the record names
the other class under ``undecided_with``.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path

from algebra.exceptions import InputError
from algebra.io.domain_text import names_a_file, parse_ball_text, parse_box_text, read_domain_data
from algebra.io.native import write_atomic

from ..budget import ctrl_c_count, shown
from ..certificates import write_certificate
from .cluster import executor as make_executor
from .jobs import (DEDUP_SIDECAR, DOMAIN_JOBS, PAIR_JOBS, certificate_stem,
                   classify_bucket, dedup_chunk, dedup_key, item_domain_spec, parse_epsilon,
                   run_item)
from .manifest import read_manifest

__all__ = ["run_batch", "read_records", "certificate_dir", "JOB_NAMES", "Progress", "LazyCluster",
           "map_calls"]

JOB_NAMES = ("dedup", "equiv", "dim", "identify", "absorb", "conserved", "diff")


def certificate_dir(out) -> Path:
    """``results.jsonl`` -> ``results.certificates/`` (next to the output)."""
    out = Path(out)
    return out.with_name(out.stem + ".certificates")


def read_records(out) -> list[dict]:
    """The complete records of *out*; a torn last line (no newline: a killed run) is cut off the
    file, with a note on stderr.  A complete line that is not a record (not JSON, or no ``id``)
    is an :class:`InputError` naming it, and nothing is changed: appending to a file that is
    not this run's results, or dropping the records after a damaged line, would lose data."""
    path = Path(out)
    if not path.parent.is_dir():
        raise InputError(f"--out: the directory {str(path.parent)!r} does not exist", source=str(out))
    if not path.exists():
        return []
    raw = path.read_bytes()
    records, good = [], 0
    for k, line in enumerate(raw.splitlines(keepends=True), 1):
        if not line.endswith(b"\n"):
            break
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError):
            rec = None
        if not (isinstance(rec, dict) and "id" in rec and "status" in rec):
            raise InputError(f"line {k} is not a batch record: --out must be a results file of "
                             "batch (to resume) or a new file", source=str(out))
        records.append(rec)
        good += len(line)
    if good < len(raw):
        with open(path, "r+b") as f:
            f.truncate(good)
        print(f"netfibers: note: {out}: a torn last line (an interrupted run) was cut off; its item "
              "runs again", file=sys.stderr)
    return records


class Progress:
    """``done/failed/remaining`` and the rate, on one stderr line (``\\r`` on a terminal)."""

    def __init__(self, total: int, enabled: bool = True, every: float = 1.0):
        self.total, self.done, self.failed = total, 0, 0
        self.t0 = time.perf_counter()
        self.enabled = enabled
        self.every = every if sys.stderr.isatty() else max(every, 5.0)
        self.last = 0.0

    def update(self, rec: dict) -> None:
        self.done += 1
        self.failed += rec.get("status") == "error"
        now = time.perf_counter()
        if self.enabled and (now - self.last >= self.every or self.done == self.total):
            self.last = now
            rate = self.done / max(now - self.t0, 1e-9)
            end = "\r" if sys.stderr.isatty() and self.done < self.total else "\n"
            print(f"batch: {self.done - self.failed} done, {self.failed} failed, "
                  f"{self.total - self.done} remaining, {rate:.1f} items/s", end=end,
                  file=sys.stderr, flush=True)
            shown()                 # (the heartbeat waits from here)


class _Writer:
    def __init__(self, out, job):
        self.out = Path(out)
        self.job = job
        self.certs = certificate_dir(out)
        self.f = open(self.out, "a", encoding="utf-8")

    def write(self, rec: dict) -> dict:
        per_block = rec.pop("block_certificates", None)
        if per_block:                     # absorb of a checkpoint: one certificate per block,
            stem = certificate_stem(self.job, rec["id"])          # <stem>.<k>.json, beside it
            for k, (b, cert) in enumerate(zip(rec.get("blocks", ()), per_block)):
                b["certificate"] = None
                if cert is not None:
                    self.certs.mkdir(parents=True, exist_ok=True)
                    path = self.certs / f"{stem}.{k}.json"
                    write_certificate(cert, path)
                    b["certificate"] = str(path)
        cert = rec.pop("certificate", None)
        if cert is not None:
            self.certs.mkdir(parents=True, exist_ok=True)
            if "$files" in cert:                 # made on the worker: sidecar first, JSON last
                for name, data in cert["$files"]:
                    path = self.certs / name
                    write_atomic(path, data)
            else:
                path = self.certs / f"{certificate_stem(self.job, rec['id'])}.json"
                write_certificate(cert, path, threshold=DEDUP_SIDECAR if self.job == "dedup" else None)
            rec["certificate"] = str(path)
        elif self.job == "dedup" or "certificate" not in rec:
            rec["certificate"] = None
        self.f.write(json.dumps(rec, default=str) + "\n")   # one write per record, then flush
        self.f.flush()
        return rec

    def close(self):
        self.f.close()


def _blobs(ex, item, scatter):
    if not scatter:
        return None
    return [ex.scatter(Path(p).read_bytes()) if Path(p).is_file() else None for p in item["paths"]]


def run_batch(job: str, manifest: str, out: str, *, workers: int | None = None,
              scheduler: str | None = None, timeout: float | None = None,
              memory_limit: str | None = None, box: str | None = None, scatter: bool = False,
              progress: bool = True, executor=None, start_cluster: bool = False,
              ball: str | None = None, orthant: bool = False, epsilon: str | None = None,
              activation: str | None = None) -> dict:
    """Run *job* over *manifest*, appending records to *out*; the summary (dict).

    The embedded cluster (no *executor*, no *scheduler*, *workers* not 0) is a
    :class:`LazyCluster`: started only when the estimated work is worth it, or with
    *start_cluster* at once, in the background, while the manifest is read and the first
    items run in this process.

    *box*, *ball*, *orthant*, *epsilon*: the domain of the items without their own columns (the
    grammar of the single commands, :mod:`algebra.io.domain_text`; jobs ``equiv``, ``dim``,
    ``diff``): each record states the domain it answers about (:func:`.jobs.run_item`).

    Raises :class:`InputError` for an unknown job, a bad manifest, a domain given to a job
    that takes none, or an *out* holding records of the same items on another domain (nothing
    is written)."""
    if job not in JOB_NAMES:
        raise InputError(f"unknown job {job!r}; choose one of {', '.join(JOB_NAMES)}")
    defaults = _defaults(job, box, ball, orthant, epsilon)
    t0 = time.perf_counter()
    early = None
    if start_cluster and executor is None and not scheduler and workers != 0:
        early = LazyCluster(lambda: make_executor(workers, scheduler, memory_limit), start=True)
    try:
        items = read_manifest(manifest, pairs=job in PAIR_JOBS)
        if job != "absorb" and (activation is not None or any("activation" in it for it in items)):
            raise InputError(f"{'--activation' if activation is not None else 'an activation column'} "
                             f"is for batch absorb (the MLP blocks of weight files), not {job}")
        for k, it in enumerate(items):
            it["index"] = k
            if (activation is not None and it.get("activation") in (None, "")
                    and not it["paths"][0].lower().endswith(".json")):
                it["activation"] = activation       # (an item's own column wins; a block JSON
                                                    # file says its own, a column overrides it)
        _check_domains(job, manifest, items, defaults)
        if os.path.lexists(out) and not os.path.isfile(out):     # (a FIFO blocked the resume read,
            raise InputError("--out must be a regular file (the JSON Lines of the results)",  # /dev/full
                             source=str(out))           # grew to 3.7 GB, a directory: exit 4; s48 B2)
        old = read_records(out)
        _check_resume(job, out, items, old, defaults)
    except BaseException:
        if early is not None:
            early.close()
        raise
    done = {r["id"] for r in old}
    todo = [it for it in items if it["id"] not in done]
    if job == "dedup" and _nnet_maps(items):
        print("netfibers: note: the zoo's .nnet files normalise differently: every .nnet file is "
              "compared as the map it defines (its normalisation composed in), against the other "
              "files too", file=sys.stderr)
    prog = Progress(len(todo), progress)
    new: list[dict] = []
    if executor is not None or not todo:
        ex = executor
        if early is not None:
            early.close()
    elif early is not None:
        ex = early
    elif scheduler or workers == 0:
        ex = make_executor(workers, scheduler, memory_limit)
    else:
        ex = LazyCluster(lambda: make_executor(workers, scheduler, memory_limit))
    writer = _Writer(out, job)
    try:
        if job == "dedup":
            _dedup(ex, items, todo, old, timeout, scatter, writer, prog, new)
        else:
            calls = [(it["id"], ("run", job, it, timeout, defaults, _blobs(ex, it, scatter)))
                     for it in todo]
            seen = ctrl_c_count()
            for _, rec in map_calls(ex, calls) if todo else ():
                if ctrl_c_count() != seen:   # Ctrl-C cut an item short (it returned its partial
                    raise KeyboardInterrupt  # answer): left out, for the rerun; the run stops
                new.append(writer.write(rec))
                prog.update(rec)
    finally:
        writer.close()
        if ex is not None and executor is None:
            ex.close()
    where = getattr(ex, "kind", "none")
    if isinstance(ex, LazyCluster) and ex.ran is None and ex.thread is not None:
        # asked for (--start-cluster) or started, but the work ended first (s38 tools audit:
        # "ran on serial (1 worker)" with no reason)
        where = ("serial: the cluster failed to start" if ex.error is not None else
                 "serial: the work ended before the cluster was up")
    return summary(job, old + new, len(items), len(old), time.perf_counter() - t0,
                   where, getattr(ex, "workers", 0))


def _nnet_maps(items: list) -> bool:
    """Whether a dedup reads its ``.nnet`` files as the maps they define: when they normalise
    differently (their raw weight networks act on different coordinates), so that classes stay
    classes; with one normalisation (or none) they are read as ``equiv`` reads them, as their raw
    weight networks (normalised units), which a ``.json`` copy of the weights equals (the
    session-38 review: a .nnet file and a .json file were one class by dedup and different by
    ``equiv``).  Sets ``item["nnet"]`` (``"map"`` or ``"weights"``) on the ``.nnet`` items."""
    from algebra import load
    from algebra.io.nnet import nnet_normalisation
    norms = {}
    for it in items:
        p = it["paths"][0]
        if str(p).lower().endswith(".nnet") and Path(p).is_file():
            try:
                norms[it["id"]] = repr(nnet_normalisation(load(p)))
            except Exception:       # noqa: BLE001 — the item's own load reports it
                pass
    maps = len(set(norms.values())) > 1
    for it in items:
        if it["id"] in norms:
            it["nnet"] = "map" if maps else "weights"
    return maps


def _defaults(job, box, ball, orthant, epsilon) -> dict:
    """The command-line domain of the items without their own (checked here: exit 2 before any
    work); a box file is read once, here, so that workers need not see it (``box_json``)."""
    given = {k: v for k, v in (("box", box), ("ball", ball), ("orthant", orthant),
                               ("epsilon", epsilon)) if v not in (None, False)}
    if given and job not in DOMAIN_JOBS:
        raise InputError(f"batch {job} takes no domain (--box, --ball, --orthant, --epsilon: "
                         "equiv, dim and diff)")
    if sum(k in given for k in ("box", "ball", "orthant")) > 1:
        raise InputError("give one domain: --box, --ball or --orthant")
    if "epsilon" in given:
        if job != "equiv":
            raise InputError("--epsilon is a question of batch equiv (max |a - b| <= E)")
        parse_epsilon(epsilon, "--epsilon", InputError)
    if box is not None and names_a_file(box):
        given["box_json"] = _domain_json_text(read_domain_data(box, "--box"))
    elif box is not None and box != "file" and not box.lstrip().startswith(("[", "{")):
        parse_box_text(box, box.count(",") + 1 if ":" in box else 1)   # its syntax, before any work
    if ball is not None:
        parse_ball_text(ball, ball.count(","), "--ball")
    return given


def _domain_json_text(data) -> str:
    """A domain file's JSON as text, numbers exact (a decimal as its string)."""
    return json.dumps(data, default=str)


def _check_domains(job, manifest, items, defaults) -> None:
    """A job that takes no domain refuses a manifest with domain columns (never ignored); a box
    column naming a file is read here (the worker gets its JSON, ``box_json``; a file that
    cannot be read stays a path: that item's error record names it)."""
    for it in items:
        own = set(item_domain_spec(it))
        if own and job not in DOMAIN_JOBS:
            raise InputError(f"item {it['id']!r} has a domain ({', '.join(sorted(own))}) but batch "
                             f"{job} takes none (equiv, dim and diff do)", source=manifest)
        if it.get("box") is not None and names_a_file(it["box"]):
            try:
                it["box_json"] = _domain_json_text(read_domain_data(it["box"], "box"))
            except InputError:
                pass
        elif it.get("box") is None and not own and "box_json" in defaults:
            it["box_json"] = defaults["box_json"]


def _check_resume(job, out, items, old, defaults) -> None:
    """Records of *out* answer the domain they state; a rerun asking another domain for the same
    item is refused (a results file never mixes two questions under one id).  Records written
    before records stated their domain answered R^d for equiv and dim.  Records of another job
    are refused too: counted as this job's finished items, they skipped its items and made
    the summary and exit code those of the other job (``batch dim`` then ``batch conserved``
    on one ``--out``: conserved ran nothing, exit 0).

    >>> _check_resume("dim", "r.jsonl", [], [{"id": "m", "job": "equiv"}], {})
    Traceback (most recent call last):
        ...
    algebra.exceptions.InputError: r.jsonl: holds records of the job equiv, this run is dim: write to another --out
    """
    for r in old:
        if r.get("job", job) != job:
            raise InputError(f"holds records of the job {r['job']}, this run is {job}: write to "
                             "another --out", source=str(out))
    if job == "absorb":               # another activation is another question (s44 rerun N3)
        acts = {it["id"]: it.get("activation") for it in items}
        for r in old:
            if r["id"] in acts and r.get("status") != "error" and r.get("activation") != acts[r["id"]]:
                raise InputError(f"holds a record of item {r['id']!r} for the activation "
                                 f"{r.get('activation') or 'of its file'}, this run asks "
                                 f"{acts[r['id']] or 'that of its file'}: write to another --out",
                                 source=str(out))
    if job not in DOMAIN_JOBS:
        return
    by_id = {it["id"]: item_domain_spec(it, defaults) for it in items}
    for r in old:
        want = by_id.get(r["id"])
        if want is None:
            continue
        had = r.get("asked", {} if job in ("equiv", "dim") else want)
        if had != want:
            raise InputError(f"holds a record of item {r['id']!r} for the domain {had or 'R^d'}, "
                             f"this run asks {want or 'R^d'}: write to another --out", source=str(out))


def _call(kind, *args):
    """The one task function (module level, so a worker imports it by name); ``"chunk"``: a
    list of ``(key, args)`` calls run in turn, their ``(key, result)`` pairs returned."""
    if kind == "chunk":
        return [(key, _call(*a)) for key, a in args[0]]
    if kind == "run":
        return run_item(*args)
    if kind == "key":
        return dedup_key(*args)
    if kind == "dedup_chunk":
        return dedup_chunk(*args)
    return classify_bucket(*args)


SIZED = ("dedup_chunk",)
"""Calls that are chunks of items already (one task each)."""

CHUNK_MAX = 32
"""At most this many items per Dask task (small items: one task each would cost more in
scheduling than in work)."""

START_COST = 5.0
"""Seconds of estimated remaining work below which :class:`LazyCluster` never starts a cluster
(starting one takes seconds: a batch of trivial items finishes sooner in this process)."""


def map_calls(ex, calls):
    """``(key, result)`` of ``_call(*args)`` for each ``(key, args)`` of *calls*, as they finish
    on the executor *ex*; on Dask, ``len(calls) / (4 × workers)`` calls (at most
    :data:`CHUNK_MAX`) go to one task."""
    calls = list(calls)
    if getattr(ex, "kind", "") != "dask" or isinstance(ex, LazyCluster):   # it chunks itself
        yield from ex.map_unordered(_call, calls)
        return
    sized = sum(args[0] in SIZED for _, args in calls)         # already chunks: one task each
    size = max(1, min(CHUNK_MAX, (len(calls) - sized) // (4 * max(1, ex.workers))))
    if size == 1:
        yield from ex.map_unordered(_call, calls)
        return
    chunks = [(k, ("chunk", calls[k:k + size])) for k in range(0, len(calls), size)]
    for _, pairs in ex.map_unordered(_call, chunks):
        yield from pairs


class LazyCluster:
    """The embedded cluster, started in the background while this process keeps working.
    Calls run in this process until the cluster is up; then the calls left go to the cluster
    (in chunks), and later calls (the next phase) too.  With *start* the cluster starts at
    once; otherwise only when the estimated remaining work (mean CPU time per call so far, the
    first call — imports, caches — left out, × calls left) exceeds :data:`START_COST`.  A
    cluster that fails to start leaves the work serial.  Results do not depend on where a call
    ran (every call is a pure function of its inputs)."""

    def __init__(self, make, start: bool = False):
        self.make, self.real, self.thread, self.error = make, None, None, None
        self.lock, self.closed, self.ran = threading.Lock(), False, None
        if start:
            self._start()

    @property
    def kind(self) -> str:
        """Where calls ran: ``"dask"`` once any went to the cluster, else ``"serial"``."""
        return self.ran.kind if self.ran is not None else "serial"

    @property
    def workers(self) -> int:
        return self.ran.workers if self.ran is not None else 1

    def _start(self):
        def run():
            try:
                real = self.make()
            except Exception as exc:        # noqa: BLE001 — the work goes on serially
                self.error = exc
                return
            with self.lock:
                if not self.closed:
                    self.real = real
                    return
            real.close()                    # closed while it was starting
        self.thread = threading.Thread(target=run, name="netfibers-cluster-start", daemon=True)
        self.thread.start()

    def scatter(self, data):
        return data if self.real is None else self.real.scatter(data)

    def map_unordered(self, fn, calls):
        calls = list(calls)
        spent, done, first = 0.0, 0, None
        while calls:
            if self.real is not None:
                self.ran = self.real
                yield from map_calls(self.real, calls)
                return
            key, args = calls.pop(0)
            t0 = time.process_time()             # CPU, not wall: a loaded machine inflates wall
            result = fn(*args)
            if first is None:                    # warm-up (imports): not in the estimate
                first = time.process_time() - t0
            else:
                spent, done = spent + time.process_time() - t0, done + 1
            yield key, result
            if self.thread is None and done and spent / done * len(calls) > START_COST:
                self._start()

    def close(self):
        if self.thread is not None:
            self.thread.join()
        with self.lock:
            self.closed = True
            real = self.real
        if real is not None:
            real.close()


def _seeds(items, old) -> dict:
    """class -> representative item, of the classes of an earlier run (resume)."""
    by_path = {it["paths"][0]: it for it in items}
    seeds: dict = {}
    for r in old:
        if r.get("class") is not None and r.get("representative") in by_path:
            seeds.setdefault(r["class"], by_path[r["representative"]])
    return seeds


def _dedup(ex, items, todo, old, timeout, scatter, writer, prog, new):
    """Phase 1: :func:`.jobs.dedup_chunk` on chunks of consecutive items (values and the classes
    inside each chunk, every file parsed once); phase 2: :func:`.jobs.classify_bucket` only for
    the buckets of equal values that span several chunks (the first chunk's classes as seeds: its
    records are final, since a bucket is classified in manifest order) or meet the classes of
    an earlier run."""
    if not todo:
        return
    by_id = {it["id"]: it for it in items}
    seeds = _seeds(items, old)
    todo_ids = {it["id"] for it in todo}
    extra = [it for it in seeds.values() if it["id"] not in todo_ids]
    blobs = {it["id"]: _blobs(ex, it, scatter) for it in todo + extra} if scatter else None

    def sub(members):
        return None if blobs is None else {m["id"]: blobs[m["id"]] for m in members}
    size = _chunk_size(len(todo), ex)
    chunks = [todo[k:k + size] for k in range(0, len(todo), size)]
    calls = [(("chunk", c), ("dedup_chunk", ch, timeout, sub(ch))) for c, ch in enumerate(chunks)]
    calls += [(("key", it["id"]), ("key", it, None if blobs is None else blobs[it["id"]]))
              for it in extra]
    keys, local, chunk_of = {}, {}, {}
    for (kind, tag), res in map_calls(ex, calls):
        if kind == "key":
            keys[tag] = res
            continue
        keys.update(res["keys"])
        for it in chunks[tag]:
            chunk_of[it["id"]] = tag
        for v, recs in res["local"].items():
            local[(tag, v)] = {r["id"]: r for r in recs}
    buckets: dict = {}
    for it in todo:
        k = keys[it["id"]]
        if k["status"] == "error":
            k.update(job="dedup", file=it["paths"][0], **{"class": None}, representative=None)
            new.append(writer.write(k))
            prog.update(k)
        else:
            buckets.setdefault(k["values"], []).append(it)
    seed_by_bucket: dict = {}
    for c, rep in sorted(seeds.items()):
        k = keys.get(rep["id"])
        if k is not None and k["status"] == "ok":
            seed_by_bucket.setdefault(k["values"], []).append((c, rep, k.get("fingerprint")))
    calls = []
    for v, members in buckets.items():
        if v in seed_by_bucket:
            first, rest, bucket_seeds = [], members, seed_by_bucket[v]
        else:
            c0 = chunk_of[members[0]["id"]]
            first = [m for m in members if chunk_of[m["id"]] == c0]
            rest = [m for m in members if chunk_of[m["id"]] != c0]
            recs = local[(c0, v)]
            bucket_seeds = [(recs[m["id"]]["class"], m, None) for m in first
                            if recs[m["id"]].get("class") == m["index"]]
            for m in first:
                rec = recs[m["id"]]
                rec["time"] = round(rec["time"] + keys[m["id"]]["time"], 4)
                _write_dedup(writer, prog, new, rec, by_id)
        if rest:
            calls.append((v, ("classify", rest, timeout, bucket_seeds,
                              sub(rest + [s[1] for s in bucket_seeds]))))
    for _, recs in map_calls(ex, calls):
        for rec in recs:
            _write_dedup(writer, prog, new, rec, by_id)


def _chunk_size(n: int, ex) -> int:
    """Items per dedup chunk: about four chunks per worker (at least two workers counted: a
    lazy executor may start a cluster), at most :data:`CHUNK_MAX`."""
    return max(1, min(CHUNK_MAX, n // (4 * max(2, getattr(ex, "workers", 1) or 1))))


def _write_dedup(writer, prog, new, rec, by_id):
    if rec.get("status") == "error":
        rec.update(job="dedup", file=by_id[rec["id"]]["paths"][0], **{"class": None},
                   representative=None)
    new.append(writer.write(rec))
    prog.update(rec)


def summary(job, records, total, resumed, seconds, where, workers) -> dict:
    """Counts per status and verdict of the records of this output (all runs)."""
    by_status: dict = {}
    by_verdict: dict = {}
    for r in records:
        by_status[r.get("status", "?")] = by_status.get(r.get("status", "?"), 0) + 1
        if r.get("status") != "error":
            v = str(r.get("verdict", ""))
            by_verdict[v] = by_verdict.get(v, 0) + 1
    out = {"job": job, "items": total, "finished": len(records), "resumed": resumed,
           "ok": by_status.get("ok", 0), "undecided": by_status.get("undecided", 0),
           "failed": by_status.get("error", 0), "seconds": round(seconds, 3),
           "rate": round((len(records) - resumed) / seconds, 3) if seconds > 0 else None,
           "where": where, "workers": workers}
    if job == "dedup":
        classes = {r.get("class") for r in records if r.get("class") is not None}
        out["classes"] = len(classes)
        out["merges"] = sum(1 for r in records if r.get("certificate"))
        out["undecided_pairs"] = sum(len(r.get("undecided_with") or ()) for r in records)
    else:
        out["verdicts"] = by_verdict
    return out
