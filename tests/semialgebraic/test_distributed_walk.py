"""The distributed breadth-first region walk (issue 19, part 3; :mod:`semialgebraic.distributed.walk`),
serially: every region processed exactly once, the same regions and the same certified regions
(patterns, facets, neighbours) as the serial walk and as the cell mode, a certificate the full
checker accepts and refuses once altered, checkpoint and resume, a timeout's partial result.
Oracles: :func:`semialgebraic.regions.regions` on the whole box (its own queue), the cell mode
(:func:`semialgebraic.distributed.search.cell_regions`) and the full ``region_cover`` checker.
The 2-worker runs are in ``test_distributed_dask.py``."""

from __future__ import annotations

import json

import pytest

from algebra.exceptions import InputError
from algebra.network import Network
from semialgebraic.distributed import distributed_regions, walk
from semialgebraic.distributed.cover import expand
from semialgebraic.distributed.search import cell_regions
from semialgebraic.regions import RegionSteps, regions
from semialgebraic.sets import Polyhedron
from semialgebraic.verify import verify
from tests.semialgebraic.test_distributed_regions_cover import PLANTED, _net, region_hash
from tests.semialgebraic.test_distributed_search import ctrl_c_at_call


def walk_hash(cert) -> str:
    """:func:`region_hash` of the certified regions in pattern order, each neighbour named by
    its pattern: the same for the same regions, facets and neighbours in any order (the walk
    lists the regions in the order it found them, which depends on the workers)."""
    regs = cert["regions"]
    named = sorted((r["pattern"], r["facets"], [None if k is None else regs[k]["pattern"]
                                                for k in r["neighbours"]]) for r in regs)
    index = {tuple(p): k for k, (p, _, _) in enumerate(named)}
    return region_hash({"regions": [{"pattern": p, "facets": f,
                                     "neighbours": [None if q is None else index[tuple(q)] for q in nb]}
                                    for p, f, nb in named]})


def _serial(net, box):
    dom = Polyhedron([[-1 if j == i else 0 for j in range(len(box))] for i in range(len(box))]
                     + [[1 if j == i else 0 for j in range(len(box))] for i in range(len(box))],
                     [-lo for lo, _ in box] + [hi for _, hi in box], len(box))
    return sorted(list(r.pattern) for r in regions(net, domain=dom))


class _Counted:
    """Counts the regions :func:`walk.walk_batch` processes (monkeypatched in)."""

    def __init__(self, monkeypatch):
        self.items, self.calls, real = [], 0, walk.walk_batch

        def counted(*args):
            self.calls += 1
            items = json.loads(args[-1]) if isinstance(args[-1], str) else args[-1]
            self.items += [tuple(it[0]) for it in items]
            return real(*args)
        monkeypatch.setattr(walk, "walk_batch", counted)


@pytest.mark.parametrize("net,box", [
    (_net(1, (2, 4, 3, 1)), [(-2, 2)] * 2),
    (_net(2, (2, 5, 1)), [(-1, 3)] * 2),
    (PLANTED, [(-1, 1)] * 2),                     # a dead neuron, duplicate rows, two layers
    (_net(3, (3, 5, 4, 1)), [(-1, 1)] * 3),
    (_net(4, (1, 6, 1)), [(-3, 3)]),
])
def test_the_walk_processes_each_region_once_and_certifies_the_serial_regions(net, box, monkeypatch):
    counted = _Counted(monkeypatch)
    r = distributed_regions(net, box, workers=0)
    assert r.method == "walk" and r.complete and r.verified
    assert r.patterns == _serial(net, box)
    # every region processed exactly once (no region walked twice, none missed)
    assert sorted(map(list, counted.items)) == r.patterns and counted.calls == r.tasks
    cert = r.certificate
    assert verify(cert)[0]
    widths = list(net.widths[1:-1])
    assert sorted(g["pattern"] for g in cert["regions"]) == sorted(list(expand(widths, p)) for p in r.patterns)
    # the same certified regions as the cell mode (one cell, and cells cut by boundaries)
    for cells in (1, 3):
        c = cell_regions(net, box, cells=cells, workers=0)
        assert c.patterns == r.patterns and walk_hash(c.certificate) == walk_hash(cert)
    # every interior point is in its region: the network's pattern there is the region's
    for p, x in zip(r.patterns, r.points):
        assert list(net.activation_pattern(x)) == p


def test_batches_of_any_size_walk_the_same_regions(monkeypatch):
    net = _net(5, (2, 6, 4, 1))
    one = walk.distributed_walk(net, [(-2, 2)] * 2, workers=0, batch=1)
    many = walk.distributed_walk(net, [(-2, 2)] * 2, workers=0, batch=64)
    assert one.tasks == one.number_of_regions > many.tasks
    assert walk_hash(one.certificate) == walk_hash(many.certificate) and many.verified


def test_an_altered_walk_certificate_is_refused():
    r = distributed_regions(_net(1, (2, 4, 3, 1)), [(-2, 2)] * 2, workers=0)
    c = r.certificate
    assert verify(c)[0]
    dropped = dict(c, regions=c["regions"][1:])
    assert not verify(dropped)[0]
    regs = json.loads(json.dumps(c["regions"]))
    k = next(k for k, g in enumerate(regs) if any(v is not None for v in g["neighbours"]))
    j = next(j for j, v in enumerate(regs[k]["neighbours"]) if v is not None)
    regs[k]["neighbours"][j] = (regs[k]["neighbours"][j] + 1) % len(regs)
    assert not verify(dict(c, regions=regs))[0]
    regs = json.loads(json.dumps(c["regions"]))
    regs[0]["point"] = ["100"] * 2                       # outside the region (and the box)
    assert not verify(dict(c, regions=regs))[0]


def test_a_box_off_a_cube_is_certified_and_no_region_in_an_empty_interior():
    net = _net(1, (2, 4, 3, 1))
    r = distributed_regions(net, [(-2, 2), (-1, 1)], workers=0)
    assert r.complete and r.verified and r.patterns == _serial(net, [(-2, 2), (-1, 1)])
    assert r.certificate["domain"] == {"lo": ["-2", "-1"], "hi": ["2", "1"], "halfspaces": []}
    flat = distributed_regions(net, [(0, 0), (-1, 1)], workers=0)
    assert flat.complete and flat.patterns == [] and flat.certificate is None
    with pytest.raises(InputError):
        distributed_regions(net, [(1, 0), (-1, 1)], workers=0)
    with pytest.raises(InputError):
        distributed_regions(net, [(-1, 1)] * 2, workers=0, method="grid")


def test_checkpoint_resumes_with_the_unfinished_regions_only(tmp_path, monkeypatch):
    net, box, ck = _net(5, (2, 6, 4, 1)), [(-2, 2)] * 2, tmp_path / "walk.ckpt"
    full = walk.distributed_walk(net, box, workers=0, checkpoint=str(ck), batch=4)
    lines = ck.read_text().splitlines(keepends=True)
    assert json.loads(lines[0])["search"] and len(lines) == full.tasks + 1
    kept = lines[:4]
    done = {tuple(r["pattern"]) for line in kept[1:] for r in json.loads(line)["regions"]}
    ck.write_text("".join(kept) + lines[4][: len(lines[4]) // 2])      # a line cut by a kill
    counted = _Counted(monkeypatch)
    again = walk.distributed_walk(net, box, workers=0, checkpoint=str(ck), batch=4)
    assert again.verified and again.patterns == full.patterns
    assert walk_hash(again.certificate) == walk_hash(full.certificate)
    assert sorted(counted.items) == sorted(set(map(tuple, full.patterns)) - done)
    # a finished checkpoint: nothing to walk; another search's checkpoint is refused
    counted.items.clear()
    assert walk.distributed_walk(net, box, workers=0, checkpoint=str(ck)).patterns == full.patterns
    assert counted.items == []
    with pytest.raises(InputError, match="another search"):
        walk.distributed_walk(net, [(-1, 1)] * 2, workers=0, checkpoint=str(ck))


def test_a_timeout_gives_a_partial_walk_that_a_checkpoint_completes(tmp_path):
    net, box, ck = _net(5, (2, 6, 4, 1)), [(-2, 2)] * 2, tmp_path / "walk.ckpt"
    cut = walk.distributed_walk(net, box, workers=0, timeout=0, checkpoint=str(ck))
    assert not cut.complete and cut.certificate is None
    if cut.patterns:
        assert "timeout" in cut.reason
    else:           # a loaded machine: the alarm came before the first region (seen in CI, s51)
        assert cut.reason.startswith("the budget ran out during the ")
    assert set(map(tuple, cut.patterns)) <= set(map(tuple, _serial(net, box)))
    done = walk.distributed_walk(net, box, workers=0, checkpoint=str(ck))
    assert done.complete and done.verified and done.patterns == _serial(net, box)


def test_region_steps_is_the_walk_one_region_at_a_time():
    net = _net(3, (3, 5, 4, 1))
    dom = Polyhedron.box(3, -1, 1)
    steps = RegionSteps(net, dom)
    p, x = steps.start()
    seen, queue, found = {p}, [(p, x, [])], []
    while queue:
        p, x, bases = queue.pop()                  # depth first: another order than the walk's
        reg, nxt, bases = steps.region(p, x, bases)
        found.append(reg)
        for q, y in nxt:
            assert tuple(net.activation_pattern(y)) == q
            if q not in seen:
                seen.add(q)
                queue.append((q, y, bases))
    walked = {r.pattern: r for r in regions(net, domain=dom)}
    assert {r.pattern for r in found} == set(walked)
    for r in found:
        w = walked[r.pattern]
        assert (r.facets, r.neighbours, r.inequalities) == (w.facets, w.neighbours, w.inequalities)


def test_the_frontier_refills_a_slot_from_its_workers_queue_then_the_longest():
    f = walk._Frontier()
    for k in range(3):
        f.add(("a", k), "host:1")
    for k in range(5):
        f.add(("b", k), "host:2")
    f.add(("a", -1), "host:1", first=True)          # an item a task handed back comes first
    assert len(f) == 9
    assert f.take(2, "host:1") == ([("a", -1), ("a", 0)], "host:1")
    assert f.take(9, "host:1") == ([("a", 1), ("a", 2)], "host:1")
    assert f.take(2, "host:1") == ([("b", 0), ("b", 1)], "host:2")    # its queue is empty
    assert f.take(2, None) == ([("b", 2), ("b", 3)], "host:2") and len(f) == 1


@pytest.mark.parametrize("check", ["search", "walk"])
def test_the_check_in_parts_refuses_an_altered_region_in_any_part(check):
    from semialgebraic.distributed.cluster import SerialExecutor
    from semialgebraic.distributed import search
    check_region_cover = search.check_region_cover if check == "search" else walk.check_in_parts
    c = distributed_regions(_net(3, (2, 8, 6, 1)), [(-3, 3)] * 2, workers=0).certificate
    n = len(c["regions"])
    assert n > 2 * 16 and check_region_cover(c, SerialExecutor())[0]
    for r in (0, n // 2, n - 1):                    # the first, a middle and the last part
        regs = json.loads(json.dumps(c["regions"]))
        regs[r]["point"] = ["100", "100"]              # outside the region
        ok, why = check_region_cover(dict(c, regions=regs), SerialExecutor())
        assert not ok and f"region {r}" in why


def test_the_linked_texts_are_the_linked_entries_and_a_wrong_skeleton_is_refused():
    from semialgebraic.distributed import cover
    from semialgebraic.distributed.cluster import SerialExecutor
    net = _net(3, (2, 8, 6, 1))
    c = distributed_regions(net, [(-3, 3)] * 2, workers=0).certificate
    pieces = cover.piece(net.to_dict(), -3, 3, [(r["pattern"][:8] + r["pattern"][16:22], r["point"])
                                                 for r in c["regions"]])
    widths = [8, 6]
    pats = [p["pattern"] for p in pieces]
    index = {tuple(p): k for k, p in enumerate(pats)}
    texts = [cover.linked_text(cover.entry_text(p, widths),
                               [None if q is None else index[tuple(q)] for q in p["across"]])
             for p in pieces]
    entries = cover.linked([cover.region_entry(p, widths) for p in pieces], pats)
    assert [json.loads(t) for t in texts] == entries
    assert [(e["pattern"], e["facets"], e["neighbours"]) for e in entries] == \
        [(r["pattern"], r["facets"], r["neighbours"]) for r in c["regions"]]
    skeleton = dict(c, regions=[walk.slim(r) for r in c["regions"]])
    assert walk.await_parts(c, walk.submit_parts(skeleton, texts, SerialExecutor()), SerialExecutor())[0]
    wrong = json.loads(json.dumps(skeleton))
    wrong["regions"][3]["pattern"] = wrong["regions"][4]["pattern"]
    ok, why = walk.await_parts(c, walk.submit_parts(wrong, texts, SerialExecutor()), SerialExecutor())
    assert not ok and "other regions" in why


def test_ctrl_c_and_the_timeout_give_the_partial_walk_with_their_reason(monkeypatch):
    """``search regions`` (the walk): Ctrl-C in a task gives the regions found so far (each a
    serial region) with the reason "interrupted (Ctrl-C)", not only "netfibers: interrupted";
    the timeout's reason names its seconds like the other commands' (budget findings
    2026-12-03: "timeout reached")."""
    net, box = _net(5, (2, 6, 4, 1)), [(-2, 2)] * 2
    cut = walk.distributed_walk(net, box, workers=0, timeout=0)
    assert not cut.complete and cut.reason == "timeout of 0 s reached"
    calls = ctrl_c_at_call(monkeypatch, walk, "walk_batch", 2)
    r = walk.distributed_walk(net, box, workers=0)
    assert not r.complete and r.reason == "interrupted (Ctrl-C)" and r.certificate is None
    assert len(calls) == 2 and len(r.patterns) >= 2
    assert set(map(tuple, r.patterns)) < set(map(tuple, _serial(net, box)))


def test_ctrl_c_in_the_cells_method_gives_the_partial_regions(monkeypatch):
    """``search regions --method cells``: Ctrl-C in a cell's task gives the regions of the cells
    finished before it with the reason "interrupted (Ctrl-C)" (was one line); Ctrl-C inside a
    cell's walk in this process (the walk ends with its regions so far) stops the client too:
    no later cell runs, and the cut cell is not written to the checkpoint."""
    from semialgebraic.distributed import search
    net, box = _net(5, (2, 6, 4, 1)), [(-2, 2)] * 2
    serial = set(map(tuple, _serial(net, box)))
    calls = ctrl_c_at_call(monkeypatch, search, "regions_cell", 3)
    r = cell_regions(net, box, cells=4, workers=0)
    assert not r.complete and r.reason == "interrupted (Ctrl-C)" and r.certificate is None
    assert len(calls) == 3 and r.cells == 4
    monkeypatch.undo()
    first_two = set()                       # the regions of cells 0 and 1, each walked alone
    for part in search.split_box(box, 4)[:2]:
        first_two |= set(map(tuple, cell_regions(net, part, cells=1, workers=0).patterns))
    assert set(map(tuple, r.patterns)) == first_two and first_two < serial

    real_walk, walks = search.regions, []

    def cut_walk(net, domain=None, budget=None, **kw):   # Ctrl-C after 2 regions of cell 2
        walks.append(1)
        it = real_walk(net, domain=domain, budget=budget, **kw)
        if len(walks) != 2:
            return it

        class Cut:
            complete = False

            def __iter__(self):
                for k, reg in enumerate(it):
                    if k == 2:
                        budget.interrupt()
                        return
                    yield reg
        return Cut()
    monkeypatch.setattr(search, "regions", cut_walk)
    r = cell_regions(net, box, cells=4, workers=0)
    assert walks == [1, 1] and not r.complete and r.reason == "interrupted (Ctrl-C)"
    assert set(map(tuple, r.patterns)) < serial


def test_progress_lines_of_the_walk_run(monkeypatch, capsys):
    """The walk's progress line (every 2 s) called the heartbeat's `shown()`, shadowed by a local
    float of that name (a TypeError on the first line, missed because progress is off in tests)."""
    import itertools
    clock = itertools.count(0, 3.0)           # every reading 3 s later: a line each result
    monkeypatch.setattr(walk.time, "monotonic", lambda: next(clock))
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    r = walk.distributed_walk(net, [(-2, 2)] * 2, workers=0, batch=1, progress=True)
    assert r.complete and r.number_of_regions > 2
    assert "search regions:" in capsys.readouterr().err
