"""The batch and the distributed search on a 2-worker Dask LocalCluster: the same records and
verdicts as serially, single-threaded workers, scattered bytes, and a worker killed mid-batch
(issue 19).  Skipped when Dask is not installed (the ``distributed`` extra; CI installs it)."""

from __future__ import annotations

import os
import random
import signal
from contextlib import contextmanager

import pytest

from algebra import save
from algebra.network import Network
from semialgebraic.distributed import distributed_diff, distributed_regions, run_batch
from semialgebraic.distributed.batch import read_records
from semialgebraic.verify import verify
from tests.semialgebraic.test_distributed import (A2, B2, _net, _nudge, _same_partition, _strip,
                                                  _variant, planted_zoo)

distributed = pytest.importorskip("distributed")

# Every Dask wait is bounded: a test (with its share of the cluster's start) that runs longer
# than LIMIT seconds fails with a TimeoutError naming it (SIGALRM in the main thread, which is
# where the client waits), and an executor's map waits at most WAIT seconds for its tasks.  A
# loaded machine (load 20 on 2 cores) makes the tests slow, never stuck.
LIMIT, WAIT = 600, 300


@contextmanager
def bounded(what: str, seconds: int = LIMIT):
    def fail(signum, frame):
        raise TimeoutError(f"{what} took more than {seconds} s: a Dask wait hung")
    old = signal.signal(signal.SIGALRM, fail)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture(autouse=True)
def _bounded(request):
    with bounded(request.node.name):
        yield


@pytest.fixture(scope="module")
def client():
    from semialgebraic.distributed.cluster import THREAD_ENV
    import dask
    with bounded("starting the 2-worker LocalCluster"):
        with dask.config.set({"distributed.nanny.pre-spawn-environ": dict(THREAD_ENV)}):
            cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                               dashboard_address=None, silence_logs=40)
        c = distributed.Client(cluster, timeout=120)
        c.wait_for_workers(2, timeout=120)
    yield c
    with bounded("closing the LocalCluster"):
        c.close(timeout=60)
        cluster.close(timeout=60)


def _ex(client):
    from semialgebraic.distributed.cluster import DaskExecutor
    ex = DaskExecutor.from_client(client)
    ex.wait = WAIT
    return ex


def test_a_stalled_map_fails_instead_of_hanging(client):
    """An executor's wait is bounded: a task that never ends within it raises TimeoutError."""
    import time
    ex = _ex(client)
    ex.wait = 1
    with pytest.raises(TimeoutError):
        list(ex.map_unordered(time.sleep, [(0, (4,))]))


def test_workers_run_single_threaded(client):
    env = client.run(lambda: os.environ.get("OMP_NUM_THREADS"))
    assert set(env.values()) == {"1"} and len(env) == 2


def test_dedup_on_two_workers_equals_serial(tmp_path, client):
    files, truth = planted_zoo(tmp_path, random.Random(3))
    s = run_batch("dedup", str(tmp_path / "m*.json"), str(tmp_path / "d.jsonl"), progress=False,
                  executor=_ex(client))
    run_batch("dedup", str(tmp_path / "m*.json"), str(tmp_path / "s.jsonl"), workers=0, progress=False)
    assert s["where"] == "dask" and s["workers"] == 2
    d, ser = read_records(tmp_path / "d.jsonl"), read_records(tmp_path / "s.jsonl")
    _same_partition(d, files, truth)
    assert _strip(d) == _strip(ser)


@pytest.mark.slow
def test_scattered_bytes_give_the_same_records(tmp_path, client):
    files, truth = planted_zoo(tmp_path, random.Random(7), families=(((2, 3, 1), 2),))
    run_batch("dim", str(tmp_path / "m*.json"), str(tmp_path / "a.jsonl"), workers=0, progress=False)
    run_batch("dim", str(tmp_path / "m*.json"), str(tmp_path / "b.jsonl"), progress=False,
              scatter=True, executor=_ex(client))
    assert _strip(read_records(tmp_path / "a.jsonl")) == _strip(read_records(tmp_path / "b.jsonl"))


def test_a_killed_worker_does_not_change_the_results(tmp_path, client):
    rng = random.Random(17)
    rows = []
    for k in range(16):
        base = _net(rng, (2, 3, 3, 1))
        save(Network.from_rows(*base), str(tmp_path / f"a{k}.json"))
        save(Network.from_rows(*(_variant(*base, rng) if k % 2 else _nudge(*base))), str(tmp_path / f"b{k}.json"))
        rows.append(f"a{k}.json,b{k}.json")
    (tmp_path / "p.csv").write_text("a,b\n" + "\n".join(rows) + "\n")
    run_batch("equiv", str(tmp_path / "p.csv"), str(tmp_path / "serial.jsonl"), workers=0, progress=False)
    pids = client.run(os.getpid)
    victim = sorted(pids.values())[0]
    ex = _ex(client)
    killed = []
    real = ex.map_unordered

    def killing(fn, calls):
        for n, kv in enumerate(real(fn, calls)):
            if n == 1 and not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
            yield kv
    ex.map_unordered = killing
    s = run_batch("equiv", str(tmp_path / "p.csv"), str(tmp_path / "dask.jsonl"), progress=False, executor=ex)
    assert killed and s["finished"] == 16 and s["failed"] == 0
    assert _strip(read_records(tmp_path / "dask.jsonl")) == _strip(read_records(tmp_path / "serial.jsonl"))
    client.wait_for_workers(2, timeout=60)


def test_distributed_search_on_two_workers_equals_serial(client):
    r = distributed_diff(A2, B2, [(-1, 1), (-1, 1)], cells=3, executor=_ex(client))
    s = distributed_diff(A2, B2, [(-1, 1), (-1, 1)], cells=3, workers=0)
    assert r.where == "dask" and r.verified and (r.lower, r.upper) == (s.lower, s.upper)
    assert verify(r.certificate)[0]
    g = distributed_regions(A2, [(-2, 2)] * 2, cells=2, executor=_ex(client))
    assert g.patterns == distributed_regions(A2, [(-2, 2)] * 2, cells=2, workers=0).patterns


# -- the distributed search (issue 19, parts 3, 4, 6) -----------------------------------------------
def test_workers_limit_blas_and_flint_to_one_thread(client):
    _ex(client)                      # registers the worker plugin
    assert set(client.run(lambda: __import__("flint").ctx.threads).values()) == {1}
    tp = pytest.importorskip("threadpoolctl")
    counts = client.run(lambda: [i["num_threads"] for i in tp.threadpool_info()])
    assert all(set(c) <= {1} for c in counts.values())


def test_memory_limit_reaches_the_embedded_cluster_and_is_refused_for_a_scheduler(client, monkeypatch, capsys):
    from semialgebraic.distributed.cluster import DaskExecutor
    seen = {}

    class Stop(Exception):
        pass

    def fake(**kw):
        seen.update(kw)
        raise Stop
    monkeypatch.setattr(distributed, "LocalCluster", fake)
    with pytest.raises(Stop):
        DaskExecutor(2, None, "1GB")
    assert seen["memory_limit"] == "1GB" and seen["threads_per_worker"] == 1 and seen["n_workers"] == 2
    ex = DaskExecutor(None, client.scheduler.address, "1GB")
    try:
        assert ex.workers == 2
    finally:
        ex.client.close()
    assert "--memory-limit is not applied to an existing cluster" in capsys.readouterr().err


@pytest.fixture(scope="module")
def serial_split():
    from tests.semialgebraic.test_distributed_search import A, B, BOX
    return distributed_diff(A, B, BOX, cells=2, workers=0, nodes=3)


def test_split_search_on_two_workers_is_the_serial_one(client, serial_split):
    from tests.semialgebraic.test_distributed_search import A, B, BOX
    s = serial_split
    r = distributed_diff(A, B, BOX, cells=2, nodes=3, executor=_ex(client))
    assert r.where == "dask" and r.verified and s.verified and r.complete
    assert (r.lower, r.upper, r.tasks, r.per_cell) == (s.lower, s.upper, s.tasks, s.per_cell)
    assert verify(r.certificate)[0]


def test_region_cover_on_two_workers_is_the_serial_one(client):
    from tests.semialgebraic.test_distributed_regions_cover import _net, region_hash
    net = _net(1, (2, 4, 3, 1))
    s = distributed_regions(net, [(-2, 2)] * 2, cells=3, workers=0)
    r = distributed_regions(net, [(-2, 2)] * 2, cells=3, executor=_ex(client))
    assert r.where == "dask" and r.verified and s.verified and r.patterns == s.patterns
    assert region_hash(r.certificate) == region_hash(s.certificate) and verify(r.certificate)[0]


def _killing(client, ex, after=1):
    """*ex* whose task stream SIGKILLs one worker process after *after* results."""
    victim = sorted(client.run(os.getpid).values())[0]
    killed, real = [], ex.map_unordered

    def killing(fn, calls):
        for n, kv in enumerate(real(fn, calls)):
            if n == after and not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
            yield kv
    ex.map_unordered = killing
    return killed


def test_a_killed_worker_does_not_change_the_search(client, tmp_path, serial_split):
    from tests.semialgebraic.test_distributed_search import A, B, BOX
    s = serial_split
    ex = _ex(client)
    killed = _killing(client, ex)
    r = distributed_diff(A, B, BOX, cells=2, nodes=3, executor=ex, checkpoint=str(tmp_path / "k.ckpt"))
    assert killed and r.verified and (r.lower, r.upper, r.per_cell) == (s.lower, s.upper, s.per_cell)
    client.wait_for_workers(2, timeout=60)
    # the checkpoint of the run with the killed worker resumes without running a task
    again = distributed_diff(A, B, BOX, cells=2, workers=0, nodes=3, checkpoint=str(tmp_path / "k.ckpt"))
    assert again.per_cell == s.per_cell


# -- the distributed breadth-first walk (semialgebraic/distributed/walk.py) ----------------------
@pytest.fixture(scope="module")
def serial_walk():
    from tests.semialgebraic.test_distributed_regions_cover import _net
    net = _net(5, (2, 6, 4, 1))
    return net, distributed_regions(net, [(-2, 2)] * 2, workers=0)


def test_the_walk_on_two_workers_certifies_the_serial_regions(client, serial_walk):
    from tests.semialgebraic.test_distributed_walk import walk_hash as region_hash
    net, s = serial_walk
    r = distributed_regions(net, [(-2, 2)] * 2, executor=_ex(client))
    assert r.where == "dask" and r.method == "walk" and r.verified and s.verified
    assert r.patterns == s.patterns and region_hash(r.certificate) == region_hash(s.certificate)
    assert verify(r.certificate)[0]
    # the parts checked on the workers refuse an altered region
    from semialgebraic.distributed.search import check_region_cover
    from semialgebraic.distributed.walk import check_in_parts
    regs = [dict(g) for g in r.certificate["regions"]]
    regs[-1]["point"] = ["100", "100"]
    for check in (check_region_cover, check_in_parts):
        ok, why = check(dict(r.certificate, regions=regs), _ex(client))
        assert not ok and f"region {len(regs) - 1}" in why
    assert check_in_parts(r.certificate, _ex(client))[0]


def test_a_killed_worker_does_not_change_the_walk(client, serial_walk, tmp_path, monkeypatch):
    """One worker SIGKILLed after the first finished task: Dask reruns its tasks elsewhere, the
    walk ends with the serial regions, and its checkpoint resumes without a task."""
    from semialgebraic.distributed import walk
    from tests.semialgebraic.test_distributed_walk import walk_hash as region_hash
    net, s = serial_walk
    victim = sorted(client.run(os.getpid).values())[0]
    killed, real = [], walk._Futures.next

    def killing(self):
        out = real(self)
        if not killed:
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)
        return out
    monkeypatch.setattr(walk._Futures, "next", killing)
    ck = tmp_path / "walk.ckpt"
    r = distributed_regions(net, [(-2, 2)] * 2, executor=_ex(client), checkpoint=str(ck))
    assert killed and r.verified and r.patterns == s.patterns
    assert region_hash(r.certificate) == region_hash(s.certificate)
    client.wait_for_workers(2, timeout=60)
    monkeypatch.setattr(walk, "walk_batch", None)     # resumed: no region left to walk
    again = distributed_regions(net, [(-2, 2)] * 2, workers=0, checkpoint=str(ck))
    assert again.verified and region_hash(again.certificate) == region_hash(s.certificate)


def test_the_walk_checks_parts_while_it_runs_and_they_refuse_an_altered_region(client, serial_walk,
                                                                              monkeypatch):
    """Parts of STREAM = 5 regions start on the workers as soon as their regions are final (the
    regions numbered in the order found): the same certified regions as the serial walk, in
    more parts than the end alone would start; a region whose point a task moved out of it is
    refused by its part (the streamed check is the check)."""
    from semialgebraic.distributed import walk
    from semialgebraic.exceptions import CertificateError
    from tests.semialgebraic.test_distributed_walk import walk_hash
    net, s = serial_walk
    n = s.number_of_regions
    monkeypatch.setattr(walk, "STREAM", 5)
    early, finish = [], walk._Stream.finish

    def counted(self, cert):                   # the parts started before the walk ended
        early.append(len(self.parts))
        return finish(self, cert)
    monkeypatch.setattr(walk._Stream, "finish", counted)
    r = distributed_regions(net, [(-2, 2)] * 2, executor=_ex(client))
    assert early[0] >= 2
    assert r.verified and r.patterns == s.patterns and walk_hash(r.certificate) == walk_hash(s.certificate)
    assert verify(r.certificate)[0]
    assert n > 4 * 5, n                        # more regions than the streamed parts' size
    real = walk.walk_batch

    def moved(*args):                          # cloudpickled by value: runs on the workers
        import json as _json
        out = real(*args)
        for rec in out["regions"]:
            if rec["pattern"] == s.patterns[n // 2]:
                e = _json.loads(rec["region"])
                e["point"] = ["100", "100"]
                rec["region"] = _json.dumps(e)
        return out
    monkeypatch.setattr(walk, "walk_batch", moved)
    with pytest.raises(CertificateError, match="point"):
        distributed_regions(net, [(-2, 2)] * 2, executor=_ex(client))
