"""The batch and the distributed search on a 2-worker Dask LocalCluster: the same records and
verdicts as serially, single-threaded workers, scattered bytes, and a worker killed mid-batch
(issue 19).  Skipped when Dask is not installed (the ``distributed`` extra; CI installs it)."""

from __future__ import annotations

import os
import random
import signal

import pytest

from algebra import save
from algebra.network import Network
from semialgebraic.distributed import distributed_diff, distributed_regions, run_batch
from semialgebraic.distributed.batch import read_records
from semialgebraic.verify import verify
from tests.semialgebraic.test_distributed import (A2, B2, _net, _nudge, _same_partition, _strip,
                                                  _variant, planted_zoo)

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    from semialgebraic.distributed.cluster import THREAD_ENV
    import dask
    with dask.config.set({"distributed.nanny.pre-spawn-environ": dict(THREAD_ENV)}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40)
    c = distributed.Client(cluster)
    yield c
    c.close()
    cluster.close()


def _ex(client):
    from semialgebraic.distributed.cluster import DaskExecutor
    return DaskExecutor.from_client(client)


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
