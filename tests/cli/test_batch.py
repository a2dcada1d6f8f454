"""``netfibers batch`` and ``netfibers search`` (issue 19): JSON Lines records, summary, exit
codes, one-line input errors with nothing written, resume; the search's certificate."""

import json

import pytest

from algebra.network import Network
from semialgebraic.bab import diff_bounds
from semialgebraic.cli import main
from semialgebraic.dimension import functional_dimension
from semialgebraic.verify import verify

A = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])                 # |x|
B = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])         # |x| again
C = Network.from_rows([[[1], [-1]], [[1, 2]]], [[0, 0], [0]])                 # differs for x < 0


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, net in {"a": A, "b": B, "c": C}.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(net.to_dict()))
        out[name] = str(p)
    (tmp_path / "pairs.csv").write_text("a,b,box\na.json,b.json,-1:1\na.json,c.json,-1:1\n")
    out["pairs"] = str(tmp_path / "pairs.csv")
    return out


def run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_batch_dedup_json_summary_and_records(tmp_path, files, capsys):
    out = tmp_path / "classes.jsonl"
    code, text, err = run(capsys, "batch", "dedup", str(tmp_path / "*.json"), "--out", str(out),
                          "--workers", "0", "--json")
    assert code == 0 and not err
    s = json.loads(text)
    assert (s["items"], s["classes"], s["merges"], s["failed"]) == (3, 2, 1, 0)
    recs = [json.loads(l) for l in out.read_text().splitlines()]
    cls = {r["file"].rsplit("/", 1)[1]: r["class"] for r in recs}
    assert cls["a.json"] == cls["b.json"] != cls["c.json"]
    merge = next(r for r in recs if r["certificate"])
    assert merge["file"].endswith("b.json") and merge["representative"].endswith("a.json")
    assert verify(json.loads(open(merge["certificate"]).read()))[0]


def test_batch_diff_and_equiv_text_summary(tmp_path, files, capsys):
    out = tmp_path / "diff.jsonl"
    code, text, _ = run(capsys, "batch", "diff", files["pairs"], "--out", str(out), "--workers", "0",
                        "--quiet")
    assert code == 0 and "batch diff:" in text and "decided" in text
    recs = {r["id"].split(" | ")[1].rsplit("/", 1)[1]: r for r in map(json.loads, out.read_text().splitlines())}
    assert all(r["id"].endswith(" | box=-1:1") for r in recs.values())    # the item's domain named
    assert recs["b.json"]["upper"] == "0" and recs["c.json"]["lower"] == recs["c.json"]["upper"] == \
        str(diff_bounds(A, C, (-1, 1)).upper)
    code, text, _ = run(capsys, "batch", "equiv", files["pairs"], "--out", str(tmp_path / "e.jsonl"),
                        "--workers", "0", "--quiet", "--json")
    assert code == 0 and json.loads(text)["verdicts"] == {"equivalent": 1, "not equivalent": 1}


def test_batch_bad_input_one_line_exit_2_nothing_written(tmp_path, files, capsys):
    out = tmp_path / "r.jsonl"
    for argv in (["batch", "dedup", str(tmp_path / "none*.json")],
                 ["batch", "equiv", str(tmp_path)],                    # pairs need a CSV/JSONL
                 ["batch", "dim", str(tmp_path / "missing.csv")]):
        code, text, err = run(capsys, *argv, "--out", str(out), "--workers", "0")
        assert code == 2 and err.startswith("netfibers: error:") and len(err.strip().splitlines()) == 1
        assert "Traceback" not in err and not out.exists()


def test_batch_failed_item_is_a_record_exit_3(tmp_path, files, capsys):
    (tmp_path / "bad.json").write_text("{not json")
    out = tmp_path / "dim.jsonl"
    code, text, _ = run(capsys, "batch", "dim", str(tmp_path / "*.json"), "--out", str(out),
                        "--workers", "0", "--json")
    s = json.loads(text)
    assert code == 3 and s["failed"] == 1 and s["ok"] == 3
    bad = [r for r in map(json.loads, out.read_text().splitlines()) if r["status"] == "error"]
    assert len(bad) == 1 and "bad.json" in bad[0]["error"]
    got = {r["id"].rsplit("/", 1)[1]: r["verdict"] for r in map(json.loads, out.read_text().splitlines())
           if r["status"] == "ok"}
    assert got == {f"{k}.json": functional_dimension(n).value for k, n in (("a", A), ("b", B), ("c", C))}


def test_search_diff_certificate_and_regions(tmp_path, files, capsys):
    cert = tmp_path / "cover.json"
    code, text, _ = run(capsys, "search", "diff", files["a"], files["c"], "--box", "-1,1",
                        "--cells", "3", "--workers", "0", "--certificate", str(cert), "--json")
    data = json.loads(text)
    whole = diff_bounds(A, C, (-1, 1))
    assert code == 0 and data["lower"] == data["upper"] == str(whole.upper) and data["cells"] == 3
    c = json.loads(cert.read_text())
    assert c["type"] == "bab_cover" and verify(c)[0]
    code, text, _ = run(capsys, "search", "regions", files["c"], "--box", "-1,1", "--cells", "2",
                        "--workers", "0")
    assert code == 0 and text.startswith("2 activation regions")
    code, _, err = run(capsys, "search", "diff", files["a"], "--box", "-1,1", "--workers", "0")
    assert code == 2 and "takes 2 network files" in err
    code, _, err = run(capsys, "search", "diff", files["a"], files["c"], "--box", "-1,1",
                       "--method", "walk", "--workers", "0")
    assert code == 2 and "--method walk is a method of search regions" in err
    code, _, err = run(capsys, "search", "regions", files["c"], "--box", "-1,1",
                       "--method", "tree", "--workers", "0")
    assert code == 2 and "--method tree is a method of search diff" in err


def test_search_regions_walks_breadth_first_by_default(tmp_path, capsys):
    from semialgebraic.regions import number_of_regions
    from semialgebraic.sets import Polyhedron
    from tests.semialgebraic.test_distributed_regions_cover import _net
    from tests.semialgebraic.test_distributed_walk import walk_hash
    net = _net(5, (2, 6, 4, 1))
    path = tmp_path / "n.json"
    path.write_text(json.dumps(net.to_dict()))
    n = number_of_regions(net, domain=Polyhedron.box(2, -2, 2))
    cert, ck = tmp_path / "cover.json", tmp_path / "walk.ckpt"
    # --timeout 0: a partial walk, exit 3, nothing certified; the checkpoint then resumes it
    code, text, _ = run(capsys, "search", "regions", str(path), "--box=-2,2", "--workers", "0",
                        "--timeout", "0", "--checkpoint", str(ck))
    assert code == 3 and "(partial: timeout of 0 s reached; rerun with --checkpoint to resume)" in text
    code, text, _ = run(capsys, "search", "regions", str(path), "--box=-2,2", "--workers", "0",
                        "--checkpoint", str(ck), "--certificate", str(cert), "--json")
    data = json.loads(text)
    assert code == 0 and data["method"] == "walk" and data["complete"] and data["certificate_checked"]
    assert data["number_of_regions"] == n and data["certificate"] == str(cert)
    c = json.loads(cert.read_text())
    assert c["type"] == "region_cover" and verify(c)[0]
    code, text, _ = run(capsys, "search", "regions", str(path), "--box=-2,2", "--workers", "0",
                        "--method", "cells", "--certificate", str(tmp_path / "cells.json"))
    assert code == 0 and text.startswith(f"{n} activation regions") and "(8 cells, serial)" in text
    assert walk_hash(json.loads((tmp_path / "cells.json").read_text())) == walk_hash(c)


def test_ctrl_c_leaves_valid_json_lines_and_the_rerun_resumes(tmp_path):
    import os
    import random
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from algebra import save
    from tests.semialgebraic.test_distributed import _net, _variant

    rng = random.Random(23)
    rows = []
    for k in range(40):
        base = _net(rng, (3, 4, 4, 1))
        save(Network.from_rows(*base), str(tmp_path / f"a{k}.json"))
        save(Network.from_rows(*_variant(*base, rng, split=True)), str(tmp_path / f"b{k}.json"))
        rows.append(f"a{k}.json,b{k}.json")
    (tmp_path / "p.csv").write_text("a,b\n" + "\n".join(rows) + "\n")
    out = tmp_path / "r.jsonl"
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    argv = [sys.executable, "-m", "semialgebraic.cli", "batch", "equiv", str(tmp_path / "p.csv"),
            "--out", str(out), "--workers", "0", "--quiet"]
    proc = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()            # two items written (a count of work, not a time: a loaded
    while proc.poll() is None and time.monotonic() - t0 < 600 and \
            (not out.exists() or out.read_text().count("\n") < 2):   # machine may take minutes)
        time.sleep(0.02)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    lines = out.read_text().splitlines()
    assert proc.returncode == 3, err               # interrupted after two of the 40 items
    assert "interrupted" in err and "resume" in err and "Traceback" not in err
    assert 2 <= len(lines) < 40
    assert all(json.loads(line)["status"] == "ok" for line in lines)
    done = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(recs) == 40 == len({r["id"] for r in recs})
    assert {r["verdict"] for r in recs} == {"equivalent"}


def test_batch_start_cluster_flag_is_passed_and_checked(tmp_path, files, capsys, monkeypatch):
    from semialgebraic.distributed import batch as dbatch
    seen = {}

    def fake(job, manifest, out, **kw):
        seen.update(kw)
        return dbatch.summary(job, [], 0, 0, 0.0, "none", 0)
    monkeypatch.setattr(dbatch, "run_batch", fake)
    code, text, _ = run(capsys, "batch", "dim", files["a"], "--out", str(tmp_path / "r.jsonl"),
                        "--workers", "2", "--start-cluster", "--json")
    assert code == 0 and seen["start_cluster"] is True and seen["workers"] == 2
    code, _, _ = run(capsys, "batch", "dim", files["a"], "--out", str(tmp_path / "r.jsonl"), "--json")
    assert code == 0 and seen["start_cluster"] is False
    code, _, err = run(capsys, "batch", "dim", files["a"], "--out", str(tmp_path / "r.jsonl"),
                       "--workers", "0", "--start-cluster")     # nothing to start: an input error
    assert code == 2 and "--start-cluster" in err
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    assert "--start-cluster" in capsys.readouterr().out


def test_batch_conserved_item_gives_the_walk_a_share_and_stops_near_its_timeout(tmp_path):
    """A conserved item: the walk gets 0.7 of the timeout, the fields and laws the rest (with all
    of it, the laws ran past the item's timeout); complete items keep the exact count."""
    import time
    from semialgebraic.distributed.jobs import run_item
    from pathlib import Path
    from tests.cli.test_budgets_absorb_conserved import _torch_like
    ROOT = Path(__file__).resolve().parents[2]
    p = _torch_like(tmp_path, (3, 16, 16, 2))      # its walk alone: ~20 s
    t = time.monotonic()
    rec = run_item("conserved", {"id": "x", "paths": [str(p)]}, timeout=1.0)
    assert time.monotonic() - t <= 1.05 * 1.0 + 2 + 3                 # slack for a loaded runner
    assert rec["status"] == "undecided" and rec["complete"] is False
    assert 32 <= rec["lower"] <= rec["upper"] <= 370                   # 32 rescaling laws, N = 370
    rec = run_item("conserved", {"id": "y", "paths": [str(ROOT / "algebra/examples/t10_two_linear.json")]})
    assert (rec["status"], rec["verdict"], rec["complete"]) == ("ok", 4, True)


def test_batch_identify_one_hidden_layer(tmp_path, files, capsys):
    """three-layer-fibers R41 and R42 in batch: |x| (opposite orientations, one kink) is
    identifiable (R42), two such pairs whose remainder a linear pair pays are not, a flip set is
    not identifiable, distinct hyperplanes with independent kinks are identifiable."""
    flip = Network.from_rows([[[1, 0], [1, 0], [0, 1]], [[1, -1, 2]]], [[0, 1, 0], [0]])
    generic = Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 1], [0]])
    two = Network.from_rows([[[1, 0], [-1, 0], [0, 1], [0, -1]], [[1, 1, 1, 1], [1, 2, 3, 1]]],
                            [[0, 0, 0, 0], [0, 0]])
    d = tmp_path / "id"
    d.mkdir()
    for name, net in {"abs": A, "flip": flip, "generic": generic, "two": two}.items():
        (d / f"{name}.json").write_text(json.dumps(net.to_dict()))
    out = tmp_path / "id.jsonl"
    run(capsys, "batch", "identify", str(d / "*.json"), "--out", str(out), "--workers", "0", "--json")
    got = {r["id"].rsplit("/", 1)[1]: r["verdict"] for r in map(json.loads, out.read_text().splitlines())}
    assert got == {"abs.json": "identifiable", "flip.json": "not identifiable", "generic.json": "identifiable",
                   "two.json": "not identifiable"}


def test_ctrl_c_stops_the_batch_and_leaves_the_cut_item_for_the_rerun(tmp_path, files, capsys,
                                                                        monkeypatch):
    """An item cut short by Ctrl-C returns its partial answer; that record is not written, the run
    stops there, and the rerun decides the item (session 32: the run went on with every other
    item and the rerun took the cut one as done, undecided for good)."""
    from semialgebraic.budget import note_ctrl_c
    from semialgebraic.distributed import batch as jobs       # where the serial calls find run_item
    real = jobs.run_item
    calls = []

    def cut_second(*args, **kw):
        rec = real(*args, **kw)
        calls.append(1)
        if len(calls) == 2:
            note_ctrl_c()                # as if Ctrl-C arrived while the item ran
        return rec
    monkeypatch.setattr(jobs, "run_item", cut_second)
    for name in ("d", "e"):
        (tmp_path / f"{name}.json").write_text(json.dumps(A.to_dict()))
    out = tmp_path / "r.jsonl"
    code, _, err = run(capsys, "batch", "dim", str(tmp_path / "*.json"), "--out", str(out), "--workers", "0")
    assert code == 3 and "interrupted" in err
    assert len(out.read_text().splitlines()) == 1            # the first item only
    monkeypatch.setattr(jobs, "run_item", real)
    code, text, _ = run(capsys, "batch", "dim", str(tmp_path / "*.json"), "--out", str(out), "--workers", "0",
                        "--json")
    assert code == 0 and json.loads(text)["ok"] == 5
    assert len(out.read_text().splitlines()) == 5


def test_out_must_be_a_results_file_in_an_existing_directory(tmp_path, files, capsys):
    out = tmp_path / "r.jsonl"
    out.write_text('{"garbage": 1}\n')
    code, _, err = run(capsys, "batch", "dim", files["a"], "--out", str(out), "--workers", "0")
    assert code == 2 and "line 1 is not a batch record" in err and err.count("\n") == 1
    assert out.read_text() == '{"garbage": 1}\n'                # untouched
    code, _, err = run(capsys, "batch", "dim", files["a"], "--out", str(tmp_path / "no" / "r.jsonl"),
                       "--workers", "0")
    assert code == 2 and "does not exist" in err and err.count("\n") == 1


def test_a_malformed_global_domain_is_an_input_error_before_any_work(tmp_path, files, capsys):
    out = tmp_path / "r.jsonl"
    for opt in ("--box=1,a", "--ball=0,x"):
        code, _, err = run(capsys, "batch", "dim", files["a"], opt, "--out", str(out), "--workers", "0")
        assert code == 2 and err.count("\n") == 1 and "not a number" in err and not out.exists()


def test_batch_json_after_ctrl_c_prints_an_object(tmp_path, files, capsys):
    """s45 Ctrl-C audit F8: after a Ctrl-C, ``batch --json`` printed nothing on stdout (its
    'rerun to resume' line only on stderr): a --json reader had nothing to parse."""
    import signal
    import sys

    def tracer(frame, event, arg):          # the SIGINT handler at run_batch's first line
        if event == "line" and frame.f_code.co_name == "run_batch":
            sys.settrace(None)
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler):
                handler(signal.SIGINT, frame)
        return tracer
    out = tmp_path / "diff.jsonl"
    sys.settrace(tracer)
    try:
        code, text, err = run(capsys, "batch", "diff", files["pairs"], "--out", str(out),
                              "--workers", "0", "--json")
    finally:
        sys.settrace(None)
    assert code == 3 and "rerun the same command to resume" in err
    assert json.loads(text) == {"complete": False, "reason": "interrupted (Ctrl-C)",
                                "out": str(out), "resume": "rerun the same command"}
