"""The open nodes of one branch-and-bound tree as tasks on a 2-worker Dask LocalCluster (issue 19,
part 3): the same tree, interval and ``bab_bound`` certificate as serially, its parts checked on
the workers, and a worker killed mid-search changing nothing.  Skipped without Dask."""

from __future__ import annotations

import json

import pytest

from semialgebraic.distributed.tree import tree_diff
from semialgebraic.verify import verify
import os
import signal

from tests.semialgebraic.test_distributed_dask import _bounded, _ex, client  # noqa: F401
from tests.semialgebraic.test_distributed_diff_tree import A3, B3, BOX3, serial_tree

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def serial():
    return serial_tree()        # tree_diff(A3, B3, BOX3, workers=0, nodes=2), shared


def _killing(client, ex, after):  # noqa: F811
    """*ex* whose task streams SIGKILL one worker process after *after* results in all (the
    search submits a wave before it reads the one before: ``submit_unordered``)."""
    victim = sorted(client.run(os.getpid).values())[0]
    killed, real, seen = [], ex.submit_unordered, [0]

    def stream(it):
        for kv in it:
            seen[0] += 1
            if seen[0] > after and not killed:
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
            yield kv

    def killing(fn, calls):
        return stream(real(fn, calls))
    ex.submit_unordered = killing
    return killed


def _same(r, s):
    return json.dumps(r.certificate, sort_keys=True) == json.dumps(s.certificate, sort_keys=True)


def test_two_workers_build_the_serial_tree(client, serial):  # noqa: F811
    r = tree_diff(A3, B3, BOX3, nodes=2, executor=_ex(client))
    assert r.where == "dask" and r.verified and serial.verified and r.complete
    assert (r.lower, r.upper, r.tasks, r.expansions) == (serial.lower, serial.upper, serial.tasks,
                                                         serial.expansions)
    assert _same(r, serial) and verify(r.certificate)[0]


def test_a_killed_worker_does_not_change_the_tree(client, tmp_path, serial):  # noqa: F811
    ex = _ex(client)
    killed = _killing(client, ex, after=2)
    ck = tmp_path / "k.ckpt"
    r = tree_diff(A3, B3, BOX3, nodes=2, executor=ex, checkpoint=str(ck))
    assert killed and r.verified and _same(r, serial)
    client.wait_for_workers(2, timeout=60)
    again = tree_diff(A3, B3, BOX3, workers=0, nodes=2, checkpoint=str(ck))   # resumed: no task
    assert again.tasks == serial.tasks and _same(again, serial)
