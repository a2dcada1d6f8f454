"""Batch jobs and distributed searches (issue 19), serially and on a 2-worker Dask LocalCluster.

Oracles: planted truth (zoos built by permutations, positive scalings, neuron splits and dead
neurons of known networks, near-misses one weight apart), the serial public functions
(``equivalent``, ``diff_bounds`` on the whole box, ``number_of_regions``) and the independent
checker for every certificate written.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from algebra import save
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.distributed import distributed_diff, distributed_regions, run_batch, split_box
from semialgebraic.distributed.batch import read_records
from semialgebraic.distributed.manifest import read_manifest
from semialgebraic.regions import number_of_regions
from semialgebraic.sets import Polyhedron
from semialgebraic.verify import verify, verify_part
from algebra.exceptions import InputError


# -- planted zoos ----------------------------------------------------------------------------
def _rq(rng):
    return Fraction(rng.randint(-9, 9) or 1, rng.randint(1, 5))


def _net(rng, widths):
    Ws, bs = [], []
    for a, b in zip(widths, widths[1:]):
        Ws.append([[str(_rq(rng)) for _ in range(a)] for _ in range(b)])
        bs.append([str(_rq(rng)) for _ in range(b)])
    return Ws, bs


def _variant(Ws, bs, rng, *, split=False, dead=False):
    """Same function: permute and positively rescale every hidden layer; optionally split the
    first neuron of layer 0 in two halves, or add a dead neuron (zero row, bias -1)."""
    Ws = [[list(r) for r in W] for W in Ws]
    bs = [list(b) for b in bs]
    for l in range(len(Ws) - 1):
        n = len(Ws[l])
        perm = list(range(n))
        rng.shuffle(perm)
        scale = [Fraction(rng.randint(1, 4), rng.randint(1, 3)) for _ in range(n)]
        Ws[l] = [[str(Fraction(x) * scale[i]) for x in Ws[l][i]] for i in perm]
        bs[l] = [str(Fraction(bs[l][i]) * scale[i]) for i in perm]
        Ws[l + 1] = [[str(Fraction(row[i]) / scale[i]) for i in perm] for row in Ws[l + 1]]
    if split:
        Ws[0].append(list(Ws[0][0]))
        bs[0].append(bs[0][0])
        for row in Ws[1]:
            half = Fraction(row[0]) / 2
            row[0] = str(half)
            row.append(str(half))
    if dead:
        Ws[0].append(["0"] * len(Ws[0][0]))
        bs[0].append("-1")
        for row in Ws[1]:
            row.append(str(rng.randint(-3, 3)))
    return Ws, bs


def _nudge(Ws, bs):
    Ws = [[list(r) for r in W] for W in Ws]
    Ws[0][0][0] = str(Fraction(Ws[0][0][0]) + Fraction(1, 10 ** 9))
    return Ws, bs


def planted_zoo(tmp_path, rng, families=(((2, 3, 1), 2), ((2, 2, 2, 1), 2)), members=3):
    """Files and their planted class (an index), near-misses in classes of their own."""
    files, truth, k = [], [], 0
    for widths, n_classes in families:
        for _ in range(n_classes):
            base = _net(rng, widths)
            cls = len({t for t in truth}) if truth else 0
            cls = max(truth, default=-1) + 1
            for j in range(members):
                Ws, bs = base if j == 0 else _variant(*base, rng, split=j == 1, dead=j == 2)
                p = tmp_path / f"m{k:03d}.json"
                save(Network.from_rows(Ws, bs), str(p))
                files.append(str(p))
                truth.append(cls)
                k += 1
            p = tmp_path / f"m{k:03d}.json"
            save(Network.from_rows(*_nudge(*base)), str(p))
            files.append(str(p))
            truth.append(max(truth) + 1)
            k += 1
    return files, truth


def _same_partition(records, files, truth):
    cls = {r["file"]: r["class"] for r in records}
    assert set(cls) == set(files)
    for i, f in enumerate(files):
        for j, g in enumerate(files):
            assert (cls[f] == cls[g]) == (truth[i] == truth[j]), (f, g)


def _dedup_is_planted(tmp_path, files, truth):
    """`batch dedup` of ``tmp_path/m*.json``: the planted partition *truth* of *files*, nothing
    failed or undecided, every merge certificate VALID."""
    out = tmp_path / "classes.jsonl"
    s = run_batch("dedup", str(tmp_path / "m*.json"), str(out), workers=0, progress=False)
    recs = read_records(out)
    _same_partition(recs, files, truth)
    assert s["failed"] == 0 and s["undecided"] == 0
    for r in recs:
        if r["certificate"]:
            assert verify(json.loads(open(r["certificate"]).read()))[0]


def _strip(records):
    return sorted((json.dumps({k: v for k, v in r.items() if k not in ("time", "certificate")},
                              sort_keys=True) for r in records))


# -- manifests -------------------------------------------------------------------------------
def test_manifest_forms(tmp_path):
    for name in ("b.json", "a.json", "notes.txt"):
        (tmp_path / name).write_text("{}")
    assert [i["paths"][0] for i in read_manifest(str(tmp_path))] == \
        [str(tmp_path / "a.json"), str(tmp_path / "b.json")]
    assert len(read_manifest(str(tmp_path / "*.json"))) == 2
    (tmp_path / "m.jsonl").write_text('"a.json"\n{"model": "b.json", "id": "B"}\n')
    items = read_manifest(str(tmp_path / "m.jsonl"))
    assert [i["id"] for i in items] == [str(tmp_path / "a.json"), "B"]
    (tmp_path / "p.csv").write_text("a,b,box\na.json,b.json,-1:1\n")
    (item,) = read_manifest(str(tmp_path / "p.csv"), pairs=True)
    assert item["paths"] == [str(tmp_path / "a.json"), str(tmp_path / "b.json")] and item["box"] == "-1:1"
    for bad, pairs in (("nothing/*.json", False), (str(tmp_path), True), (str(tmp_path / "notes.txt"), False)):
        with pytest.raises(InputError):
            read_manifest(bad, pairs=pairs)
    (tmp_path / "dup.csv").write_text("model\na.json\na.json\n")
    with pytest.raises(InputError, match="twice"):
        read_manifest(str(tmp_path / "dup.csv"))


# -- batch, serially ---------------------------------------------------------------------------
def test_dedup_serial_matches_planted_truth_and_every_merge_is_certified(tmp_path):
    files, truth = planted_zoo(tmp_path, random.Random(3))
    out = tmp_path / "classes.jsonl"
    s = run_batch("dedup", str(tmp_path / "m*.json"), str(out), workers=0, progress=False)
    recs = read_records(out)
    _same_partition(recs, files, truth)
    assert s["classes"] == len(set(truth)) and s["failed"] == 0 and s["undecided"] == 0
    merges = [r for r in recs if r["certificate"]]
    assert len(merges) == len(files) - len(set(truth)) == s["merges"]
    for r in recs:
        rep = next(x for x in recs if x["file"] == r["representative"])
        assert rep["class"] == r["class"] and rep["certificate"] is None
    for r in merges:
        cert = json.loads(open(r["certificate"]).read())
        assert verify(cert)[0] and cert["type"] in ("symmetry_path", "region_cover")


@pytest.mark.parametrize("chunk", [1, 3, 64])
def test_dedup_records_do_not_depend_on_the_chunks(tmp_path, monkeypatch, chunk):
    # chunk 1: every bucket of equal values spans several chunks (all decided in phase 2 with
    # the first chunk's classes as seeds); 64: one chunk, every bucket decided where the files
    # were parsed (phase 1); 3: both.  Same records, same partition as the planted truth.
    from semialgebraic.distributed import batch, jobs
    files, truth = planted_zoo(tmp_path, random.Random(3))
    loads = []
    real = jobs._prepared
    monkeypatch.setattr(jobs, "_prepared", lambda it, blobs=None: loads.append(it["id"]) or real(it, blobs))
    ref = tmp_path / "ref.jsonl"
    run_batch("dedup", str(tmp_path / "m*.json"), str(ref), workers=0, progress=False)
    monkeypatch.setattr(batch, "CHUNK_MAX", chunk)
    monkeypatch.setattr(batch, "_chunk_size", lambda n, ex: chunk)
    loads.clear()
    out = tmp_path / f"c{chunk}.jsonl"
    s = run_batch("dedup", str(tmp_path / "m*.json"), str(out), workers=0, progress=False)
    recs = read_records(out)
    _same_partition(recs, files, truth)
    assert _strip(recs) == _strip(read_records(ref)) and s["merges"] == len(files) - len(set(truth))
    if chunk == 64:
        assert sorted(loads) == sorted(files)           # every file parsed exactly once
    for r in recs:
        if r["certificate"]:
            assert verify(json.loads(open(r["certificate"]).read()))[0]


def test_dedup_bottleneck_canon_merges_what_the_array_route_cannot(tmp_path):
    # masked / linear second-layer neurons: copies by S5-S8 (sign flips, translations, tail
    # refactors) that no permutation/scaling/split path reaches; CANON of the (generic) reduced
    # networks merges them with a checked certificate, and a near-miss (one weight of W3 moved
    # by 1/1000) is a different class without any pairwise work.  Oracle: the planted truth and
    # equivalent_bottleneck.
    from fractions import Fraction
    from algebra.io.native import network_from_dict
    from semialgebraic.bottleneck import equivalent_bottleneck
    from semialgebraic.bottleneck.copies import random_symmetric_copy
    from semialgebraic.distributed.jobs import dedup_key
    from semialgebraic.distributed.merge import array_merge_certificate
    from tests.cases.bottleneck import masked_row, planted
    patterns = {"masked": lambda n1, rng: [masked_row(rng, n1, 0), masked_row(rng, n1, 0), "-" * n1 + "|-"],
                "linear": lambda n1, rng: ["+" * n1 + "|+", "+" * n1 + "|+", "-" * n1 + "|+",
                                           "+" + "-" * (n1 - 1) + "|-"]}
    files, truth, k = [], [], 0
    for cls, kind in enumerate(("masked", "linear")):
        rng = random.Random(1)
        n1 = rng.choice([2, 3])
        net = planted(rng, n1 + rng.choice([0, 1]), n1, patterns[kind](n1, rng), 2)
        img, _ = random_symmetric_copy(net, seed=1, number_of_steps=6, first=("s6", "s7", "s8", "s5"))
        assert array_merge_certificate(net, img) is None and equivalent_bottleneck(net, img).answer is True
        d = net.to_dict()
        d["layers"][2]["weight"][0][0] = str(Fraction(d["layers"][2]["weight"][0][0]) + Fraction(1, 1000))
        near = network_from_dict(d)
        assert equivalent_bottleneck(net, near).answer is False
        for n, t in ((net, 2 * cls), (img, 2 * cls), (near, 2 * cls + 1)):
            p = tmp_path / f"b{k:02d}.json"
            save(n, str(p))
            files.append(str(p))
            truth.append(t)
            k += 1
    keys = [dedup_key({"id": f, "paths": [f]}) for f in files]
    assert all(key["family"] == "bottleneck" for key in keys)
    assert keys[0]["fingerprint"] == keys[1]["fingerprint"] != keys[2]["fingerprint"]
    out = tmp_path / "b.jsonl"
    s = run_batch("dedup", str(tmp_path / "b*.json"), str(out), workers=0, progress=False)
    recs = read_records(out)
    _same_partition(recs, files, truth)
    assert s["merges"] == 2 and s["undecided"] == 0 and s["failed"] == 0
    for r in recs:
        if r["certificate"]:
            cert = json.loads(open(r["certificate"]).read())
            assert cert["type"] == "symmetry_path" and verify(cert)[0]


def test_dedup_fingerprint_collisions_never_merge_different_functions(tmp_path, monkeypatch):
    # every one-hidden-layer net gets the same fingerprint: the equal-fingerprint merge must
    # find no path between different functions and fall back, so the partition is still the
    # planted one
    from semialgebraic.distributed import jobs
    monkeypatch.setattr(jobs, "fingerprint_shallow", lambda view, red=None: "collision")
    files, truth = planted_zoo(tmp_path, random.Random(3))
    _dedup_is_planted(tmp_path, files, truth)
    # the merge itself, on a colliding pair: a different function is refused, a split copy merged
    base = _net(random.Random(4), (2, 3, 1))
    rep = {"net": Network.from_rows(*base)}
    assert jobs._shallow_merge(rep, Network.from_rows(*_nudge(*base))) is None
    cert = jobs._shallow_merge(rep, Network.from_rows(*_variant(*base, random.Random(5), split=True)))
    assert cert["type"] == "symmetry_path" and verify(cert)[0]


def test_equiv_batch_with_a_bad_file_and_resume_after_a_torn_line(tmp_path):
    rng = random.Random(5)
    rows = []
    expect = {}
    for k in range(4):
        base = _net(rng, (2, 3, 1))
        a = tmp_path / f"a{k}.json"
        b = tmp_path / f"b{k}.json"
        save(Network.from_rows(*base), str(a))
        other = _variant(*base, rng) if k % 2 == 0 else _nudge(*base)
        save(Network.from_rows(*other), str(b))
        rows.append(f"{a.name},{b.name}")
        expect[f"{a} | {b}"] = "equivalent" if k % 2 == 0 else "not equivalent"
    (tmp_path / "broken.json").write_text("{not json")
    rows.append("a0.json,broken.json")
    (tmp_path / "pairs.csv").write_text("a,b\n" + "\n".join(rows) + "\n")
    out = tmp_path / "eq.jsonl"
    s = run_batch("equiv", str(tmp_path / "pairs.csv"), str(out), workers=0, progress=False)
    recs = read_records(out)
    assert s["failed"] == 1 and s["ok"] == 4
    bad = next(r for r in recs if r["status"] == "error")
    assert "broken.json" in bad["error"] and bad["id"].endswith("broken.json")
    for r in recs:
        if r["status"] != "error":
            assert r["verdict"] == expect[r["id"]]
            assert verify(json.loads(open(r["certificate"]).read()))[0]
    # a run killed mid-write: two complete lines and a torn one; the rerun completes the rest
    lines = out.read_bytes().splitlines(keepends=True)
    out.write_bytes(b"".join(lines[:2]) + lines[2][:17])
    s2 = run_batch("equiv", str(tmp_path / "pairs.csv"), str(out), workers=0, progress=False)
    assert s2["resumed"] == 2 and s2["finished"] == 5
    recs2 = read_records(out)
    assert _strip(recs2) == _strip(recs)
    assert all(json.loads(line) for line in out.read_text().splitlines())
    # everything finished: a third run does nothing
    s3 = run_batch("equiv", str(tmp_path / "pairs.csv"), str(out), workers=0, progress=False)
    assert s3["resumed"] == 5 and len(read_records(out)) == 5


def test_dedup_resume_joins_new_files_to_old_classes(tmp_path):
    files, truth = planted_zoo(tmp_path, random.Random(11), families=(((2, 3, 1), 2),))
    out = tmp_path / "c.jsonl"
    run_batch("dedup", str(tmp_path / "m*.json"), str(out), workers=0, progress=False)
    lines = out.read_text().splitlines(keepends=True)
    keep = [l for l in lines if json.loads(l)["certificate"] is None]   # representatives only
    out.write_text("".join(keep))
    run_batch("dedup", str(tmp_path / "m*.json"), str(out), workers=0, progress=False)
    _same_partition(read_records(out), files, truth)
    s = run_batch("dedup", str(tmp_path / "m*.json"), str(out), workers=0, progress=False)
    assert s["resumed"] == s["finished"] == len(files) and len(read_records(out)) == len(files)


# -- search, serially ----------------------------------------------------------------------------
A2 = Network.from_rows([[[1, -1], [2, 1], [-1, 1]], [[1, 1, -1]]], [[0, -1, "1/2"], [0]])
B2 = Network.from_rows([[[1, -1], [2, 1], [-1, 1]], [[1, "1/2", -1]]], [[0, -1, "1/2"], ["1/4"]])


def test_split_box_covers_the_box():
    cells = split_box([(0, 1), (-1, 1), (2, 2)], 7)
    assert len(cells) == 7
    vol = sum((hi0 - lo0) * (hi1 - lo1) for (lo0, hi0), (lo1, hi1), _ in cells)
    assert vol == 2 and all(c[2] == (2, 2) for c in cells)


def test_distributed_diff_serial_equals_the_whole_box_and_certifies(tmp_path):
    whole = diff_bounds(A2, B2, [(-1, 1), (-1, 1)])
    r = distributed_diff(A2, B2, [(-1, 1), (-1, 1)], cells=3, workers=0)
    assert whole.complete and r.complete and r.lower == r.upper == whole.lower
    assert verify(r.certificate)[0] and r.certificate["type"] == "bab_cover"
    assert verify_part(r.certificate, "geometry")[0]
    assert all(verify_part(r.certificate, k)[0] for k in range(3))
    # a cover that misses a cell is refused
    bad = dict(r.certificate, cells=r.certificate["cells"][1:])
    assert not verify(bad)[0]
    # equal networks: upper 0 certifies equality on the box
    z = distributed_diff(A2, A2, [(-1, 1), (-1, 1)], cells=3, workers=0)
    assert z.upper == 0 and verify(z.certificate)[0]


def test_distributed_diff_checkpoint_resumes(tmp_path):
    ck = tmp_path / "diff.ckpt"
    r1 = distributed_diff(A2, B2, [(-1, 1), (-1, 1)], cells=4, workers=0, checkpoint=str(ck))
    lines = ck.read_text().splitlines(keepends=True)
    assert len(lines) == 5
    ck.write_text("".join(lines[:3]) + lines[3][:10])       # two cells kept, a torn line
    calls = []
    from semialgebraic.distributed import cluster

    class Counting(cluster.SerialExecutor):
        def map_unordered(self, fn, calls_):
            calls_ = list(calls_)
            calls.append(len(calls_))
            return super().map_unordered(fn, calls_)
    r2 = distributed_diff(A2, B2, [(-1, 1), (-1, 1)], cells=4, checkpoint=str(ck), executor=Counting())
    assert calls[0] == 2 and (r2.lower, r2.upper) == (r1.lower, r1.upper) and r2.verified
    with pytest.raises(InputError, match="another search"):
        distributed_diff(A2, A2, [(-1, 1), (-1, 1)], cells=4, workers=0, checkpoint=str(ck))


def test_distributed_regions_serial_equals_the_walk():
    for net, lo, hi, cells in ((A2, -2, 2, 6), (B2, -1, 3, 3)):
        r = distributed_regions(net, [(lo, hi)] * 2, cells=cells, workers=0)
        assert r.complete and r.number_of_regions == number_of_regions(net, domain=Polyhedron.box(2, lo, hi))
        for p, x in zip(r.patterns, r.points):
            assert all(lo <= Q(v) <= hi for v in x)


def test_bab_cover_mutations_specific_to_the_cover():
    import copy
    r = distributed_diff(A2, B2, [(-1, 1), (-1, 1)], cells=3, workers=0)
    c = r.certificate
    assert verify(c)[0]
    cells = c["cells"]
    muts = {
        "a cell twice, one missing": dict(c, cells=[cells[0], cells[0], cells[2]]),
        "an extra overlapping cell": dict(c, cells=cells + [cells[0]]),
        "upper below the true max": dict(c, upper=str(Fraction(str(r.upper)) - Fraction(1, 7))),
        "lower above the point's deviation": dict(c, lower=str(Fraction(str(r.lower)) + 1)),
        "a cell of other networks": dict(c, cells=[dict(cells[0], b=dict(cells[0]["a"]))] + cells[1:]),
        "a larger box than the cells": dict(c, box=[["-1", "2"], ["-1", "1"]]),
        "a point outside the box": dict(c, point=["2", "0"]),
    }
    for name, m in muts.items():
        ok = True
        try:
            ok = verify(copy.deepcopy(m))[0]
        except InputError:
            ok = False
        assert ok is False, name
    shrunk = copy.deepcopy(c)            # a cell box shrunk: no longer a cover
    shrunk["cells"][0]["box"][0][1] = str(Fraction(shrunk["cells"][0]["box"][0][1]) - Fraction(1, 3))
    assert not verify(shrunk)[0]


def test_dedup_key_names_the_fast_path_and_values_separate_near_misses(tmp_path):
    from semialgebraic.distributed.jobs import dedup_key
    from semialgebraic.shallow import canonical_form
    rng = random.Random(2)
    keys = {}
    for name, widths in (("s", (2, 3, 1)), ("d", (2, 2, 2, 2, 1))):
        base = _net(rng, widths)
        for tag, (Ws, bs) in (("", base), ("v", _variant(*base, rng)), ("n", _nudge(*base))):
            p = tmp_path / f"{name}{tag}.json"
            save(Network.from_rows(Ws, bs), str(p))
            keys[name + tag] = dedup_key({"id": str(p), "paths": [str(p)]})
    assert keys["s"]["family"] == "shallow" and keys["d"]["family"] == "general"
    # oracle: the exact canonical forms (equal for the variant, different for the near-miss)
    from algebra import load
    forms = {k: canonical_form(load(str(tmp_path / f"{k}.json"))) for k in ("s", "sv", "sn")}
    assert forms["s"] == forms["sv"] and keys["s"]["fingerprint"] == keys["sv"]["fingerprint"]
    assert forms["s"] != forms["sn"] and keys["sn"]["fingerprint"] != keys["s"]["fingerprint"]
    for name in ("s", "d"):
        assert keys[name]["values"] == keys[name + "v"]["values"] != keys[name + "n"]["values"]


# -- batch overhead: chunked tasks and the lazily started cluster ------------------------------
class _FakeDask:
    """A serial executor that says it is Dask (counts the tasks it is given)."""

    kind, workers = "dask", 2

    def __init__(self):
        self.tasks = 0

    def map_unordered(self, fn, calls):
        for key, args in calls:
            self.tasks += 1
            yield key, fn(*args)

    def scatter(self, data):
        return data

    def close(self):
        pass


def _trivial_calls(tmp_path, n):
    net = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    items = []
    for k in range(n):
        p = tmp_path / f"t{k:03d}.json"
        save(net, str(p))
        items.append({"id": str(p), "paths": [str(p)]})
    return [(it["id"], ("run", "dim", it, None, None, None)) for it in items]


def test_small_items_go_to_dask_in_chunks_with_the_same_records(tmp_path):
    from semialgebraic.distributed.batch import map_calls
    from semialgebraic.distributed.cluster import SerialExecutor
    calls = _trivial_calls(tmp_path, 100)
    fake = _FakeDask()
    chunked = dict(map_calls(fake, calls))
    serial = dict(map_calls(SerialExecutor(), calls))
    assert fake.tasks == 9                          # 100 // (4 * 2) = 12 calls a task
    assert chunked.keys() == serial.keys() and len(chunked) == 100
    assert all(chunked[k]["verdict"] == serial[k]["verdict"] == 3 for k in serial)   # R: w, b, v, c
    assert all(chunked[k]["status"] == "ok" for k in serial)


def test_lazy_cluster_starts_only_for_work_worth_it(tmp_path, monkeypatch):
    from semialgebraic.distributed import batch
    calls = _trivial_calls(tmp_path, 40)
    lazy = batch.LazyCluster(lambda: pytest.fail("trivial work must not start a cluster"))
    assert len(dict(lazy.map_unordered(batch._call, calls))) == 40 and lazy.thread is None
    lazy.close()
    monkeypatch.setattr(batch, "START_COST", 0.0)   # every estimate is worth a cluster
    fake = _FakeDask()
    lazy = batch.LazyCluster(lambda: fake)
    out = {}
    for key, rec in lazy.map_unordered(batch._call, calls):
        out[key] = rec
        if lazy.thread is not None:
            lazy.thread.join()                      # the cluster is up before the next call
    lazy.close()
    assert len(out) == 40 and all(r["verdict"] == 3 for r in out.values())
    assert lazy.kind == "dask" and 1 <= fake.tasks <= 10    # the 38 or 39 calls left, chunks of 4


def _affine_variant(Ws, bs, rng, kind):
    """The same function as the one-hidden-layer (Ws, bs) with neurons that carry only an affine
    part: ``pair`` adds σ(u·x + c) − σ(−u·x − c) (= u·x + c) and takes u·x + c off through a
    second pair of another hyperplane (σ(s) − σ(−s) = s); ``cancel`` adds σ(s) twice with
    outgoing weights v and −v."""
    Ws = [[list(r) for r in W] for W in Ws]
    bs = [list(b) for b in bs]
    d, m = len(Ws[0][0]), len(Ws[1])
    u = [Fraction(rng.randint(-3, 3) or 1) for _ in range(d)]
    c = Fraction(rng.randint(-3, 3))
    v = [Fraction(rng.randint(-3, 3) or 1) for _ in range(m)]
    if kind == "pair":                     # + v (u·x + c) - v (u·x + c), split over two scales
        rows = [(u, c, v), ([-x for x in u], -c, [-x for x in v]),
                ([2 * x for x in u], 2 * c, [-x / 2 for x in v]),
                ([-2 * x for x in u], -2 * c, [x / 2 for x in v])]
    else:
        rows = [(u, c, v), (u, c, [-x for x in v])]
    for w, b, out in rows:
        Ws[0].append([str(x) for x in w])
        bs[0].append(str(b))
        for k in range(m):
            Ws[1][k].append(str(out[k]))
    return Ws, bs


def test_dedup_merges_equal_nets_whose_extra_neurons_carry_only_an_affine_part(tmp_path):
    """An outside audit (session 37) found `batch dedup` splitting equal one-hidden-layer nets:
    σ(x) − σ(−x) and σ(x + 1) − σ(−x − 1) − 1 (both x) in two classes, "decided".  Its kink
    fingerprint hashed the reduced widths and one entry per neuron, so ± pairs and cancelling
    kinks changed it; it now sums the kinks per hyperplane (both orientations) and keeps the
    non-zero sums only.  Each base net with three affine-only variants and a near-miss: the
    planted partition, every merge certified."""
    from semialgebraic.distributed import jobs
    from semialgebraic.distributed.merge import fingerprint_shallow
    from algebra.array_replay import array_view
    x1 = Network.from_rows([[[1], [-1]], [[1, -1]]], [[0, 0], [0]])
    x2 = Network.from_rows([[[1], [-1]], [[1, -1]]], [[1, -1], [-1]])
    assert fingerprint_shallow(array_view(x1)) == fingerprint_shallow(array_view(x2))
    rng = random.Random(37)
    files, truth, k = [], [], 0
    for cls in range(4):
        base = _net(rng, (2, 3, 2))
        for j, kind in enumerate(("base", "pair", "cancel", "both", "nudge")):
            if kind == "base":
                Ws, bs = base
            elif kind == "nudge":
                Ws, bs = _nudge(*base)
            else:
                Ws, bs = _affine_variant(*base, rng, "pair" if kind != "cancel" else "cancel")
                if kind == "both":
                    Ws, bs = _affine_variant(Ws, bs, rng, "cancel")
                Ws, bs = _variant(Ws, bs, rng)
            p = tmp_path / f"m{k:03d}.json"
            save(Network.from_rows(Ws, bs), str(p))
            files.append(str(p))
            truth.append(10 * cls + (1 if kind == "nudge" else 0))
            k += 1
    _dedup_is_planted(tmp_path, files, truth)
    assert jobs.fingerprint_shallow is fingerprint_shallow


def test_batch_absorb_decides_every_block_of_weight_files(tmp_path):
    """``batch absorb --activation A`` (s44): a weight file's MLP blocks, every one, as
    ``absorb FILE --all`` (one record per file, its blocks and one certificate per block,
    each VALID); a netfibers.block JSON file as before; a weight file without an activation is
    that item's error; an item's activation column wins over --activation."""
    import numpy as np
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    up, down = [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]          # absorbable (flip)
    f32 = lambda v: np.array(v, dtype=np.float32)                          # noqa: E731
    np.savez(zoo / "two.npz", **{"m.0.mlp.up_proj.weight": f32(up), "m.0.mlp.down_proj.weight": f32(down),
                                 "m.1.mlp.up_proj.weight": f32(np.eye(2)),
                                 "m.1.mlp.down_proj.weight": f32(np.eye(2))})     # not absorbable
    np.savez(zoo / "one.npz", **{"m.0.mlp.up_proj.weight": f32(up), "m.0.mlp.down_proj.weight": f32(down)})
    (zoo / "b.json").write_text(json.dumps({"format": "netfibers.block", "version": 1,
                                            "activation": "relu", "w_up": up, "w_down": down}))
    out = tmp_path / "r.jsonl"
    s = run_batch("absorb", str(zoo), str(out), workers=0, progress=False, activation="relu")
    recs = {r["id"].rsplit("/", 1)[-1]: r for r in read_records(out)}
    assert s["failed"] == 0 and set(recs) == {"two.npz", "one.npz", "b.json"}
    two, one = recs["two.npz"], recs["one.npz"]
    assert (two["verdict"], one["verdict"], recs["b.json"]["verdict"]) == \
        ("not absorbable", "absorbable", "absorbable")
    assert [(b["prefix"], b["verdict"]) for b in two["blocks"]] == [
        ("m.0.mlp.", "absorbable"), ("m.1.mlp.", "not absorbable")]
    assert two["reason"] == "2 MLP blocks (relu): 1 absorbable, 1 not absorbable, 0 undecided"
    for b in two["blocks"] + one["blocks"]:
        ok, why = verify(json.loads(open(b["certificate"]).read()))
        assert ok and (b["verdict"] == "absorbable") == why.startswith("flip")
    out2 = tmp_path / "r2.jsonl"
    run_batch("absorb", str(zoo), str(out2), workers=0, progress=False)
    errs = {r["id"].rsplit("/", 1)[-1]: r.get("error", "") for r in read_records(out2)}
    assert "pass batch --activation" in errs["two.npz"] and errs["b.json"] == ""
    man = tmp_path / "m.csv"                          # the item's own column wins
    man.write_text(f"model,activation\n{zoo / 'one.npz'},relu^2\n")
    run_batch("absorb", str(man), str(tmp_path / "r3.jsonl"), workers=0, progress=False,
              activation="relu")
    (r,) = read_records(tmp_path / "r3.jsonl")
    assert r["verdict"] == "not absorbable" and r["reason"].startswith("1 MLP block (relu^2)")
    with pytest.raises(InputError, match="--activation is for batch absorb"):
        run_batch("dim", str(zoo), str(tmp_path / "r4.jsonl"), workers=0, progress=False,
                  activation="relu")


def test_batch_absorb_rerun_audit_activation_resume_json_column_and_int8(tmp_path):
    """s44 rerun audit: N3 a rerun with another activation reported the old verdicts (refused
    now: another question); N4 an activation column on a block JSON item was ignored (it
    overrides the file's, as absorb FILE.json --activation does); N6 int8 block weights get
    the quantised-codes note in the record too."""
    import numpy as np
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    up, down = [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]          # absorbable under ReLU
    np.savez(zoo / "i8.npz", **{"m.0.mlp.up_proj.weight": np.array(up, dtype=np.int8),
                                "m.0.mlp.down_proj.weight": np.array(down, dtype=np.int8)})
    out = tmp_path / "r.jsonl"
    run_batch("absorb", str(zoo), str(out), workers=0, progress=False, activation="relu")
    (r,) = read_records(out)
    assert r["verdict"] == "absorbable" and "int8 tensors read as the integers stored" in r["notes"][0]
    with pytest.raises(InputError, match="for the activation relu, this run asks tanh"):
        run_batch("absorb", str(zoo), str(out), workers=0, progress=False, activation="tanh")
    js = tmp_path / "b.json"
    js.write_text(json.dumps({"format": "netfibers.block", "version": 1, "activation": "relu",
                              "w_up": up, "w_down": down}))
    man = tmp_path / "m.csv"
    man.write_text(f"model,activation\n{js},\n")
    run_batch("absorb", str(man), str(tmp_path / "a.jsonl"), workers=0, progress=False,
              activation="tanh")                   # --activation: not for a JSON block file
    assert read_records(tmp_path / "a.jsonl")[0]["verdict"] == "absorbable"
    man.write_text(f"model,activation\n{js},tanh\n")  # its column overrides the file's
    run_batch("absorb", str(man), str(tmp_path / "b.jsonl"), workers=0, progress=False)
    (r,) = read_records(tmp_path / "b.jsonl")
    assert r["verdict"] == "not absorbable" and r["activation"] == "tanh"
