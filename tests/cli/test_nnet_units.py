"""Two ``.nnet`` files that normalise differently are compared as the maps they define, both in
the first file's normalised units (``algebra.io.nnet.nnet_in_units_of``): the units of a pair
that normalises alike, so that a deviation or an ε means the same whichever normalisation the
second file uses.  The report says in which units the point, the box and the deviation are: the
JSON keys ``input_space``, ``units_of`` and ``box``, a line of text (issue 15).
One weight set |x| with two normalisations: n1 identity on [-1, 1]; n2 x -> (x - 1) / 2 on [-4, 4].
By hand: n1's map is |x|, n2's |x - 1| / 2 (raw x).  In n2's units u = (x - 1) / 2: a = |u|,
b = |2u + 1|; the raw box both accept, [-1, 1], is u in [-1, 0], where max ||u| - |2u + 1|| = 1
at u = 0; on u in [-1, 1] it is 2 at u = 1.  In n1's units: |x| against |x - 1| / 2."""

from __future__ import annotations

import json
from pathlib import Path
from fractions import Fraction as F

import pytest

from tests.fuzz.bab_paths import write_nnet

ABS = [([[F(1)], [F(-1)]], [F(0), F(0)]), ([[F(1), F(1)]], [F(0)])]      # |x|
FIRST = ("in the normalised units of the first .nnet file (the second normalises differently: its "
         "map re-expressed exactly): x, ")
TAIL = " and |a - b| are normalised inputs (x - mean) / range and outputs"


@pytest.fixture
def pair(tmp_path):
    p1, p2 = tmp_path / "n1.nnet", tmp_path / "n2.nnet"
    write_nnet(p1, ABS, [F(-1)], [F(1)], [F(0), F(0)], [F(1), F(1)])
    write_nnet(p2, ABS, [F(-4)], [F(4)], [F(1), F(0)], [F(2), F(1)])     # x -> (x - 1) / 2
    return p1, p2


@pytest.mark.parametrize("method", ["walk", "bab"])
def test_diff_of_differently_normalised_files_is_in_the_first_files_units(run, pair, method):
    p1, p2 = pair
    code, out, err = run("diff", p2, p1, "--box", "file", "--method", method, "--json")
    js = json.loads(out)
    assert code == 0 and (js["lower"], js["upper"]) == ("1", "1")
    assert [F(str(v)) for v in js["point"]] == [0]                     # raw x = 1
    assert (js["input_space"], js["units_of"], js["box"]) == ("normalised", "a", [["-1", "0"]])
    assert "normalise differently" in err
    code, out, _ = run("diff", p2, p1, "--box", "file", "--method", method)
    assert code == 0 and out.startswith("max |a - b| = 1 at x = (0), output 0")
    assert f"  {FIRST}the box [-1, 0]^1{TAIL}" in out.splitlines()


def test_equiv_of_differently_normalised_files_is_in_the_first_files_units(run, pair):
    p1, p2 = pair
    code, out, _ = run("equiv", p1, p2, "--json")
    js = json.loads(out)
    assert code == 1 and js["input_space"] == "normalised" and js["box"] == [[None, None]]
    code, out, _ = run("equiv", p1, p2)
    assert out.splitlines()[-1] == f"  {FIRST}the domain R^d{TAIL}"
    code, out, _ = run("equiv", p2, p1, "--box", "file", "--epsilon", "1", "--json")
    js = json.loads(out)
    assert code == 0 and js["answer"] is True and js["units_of"] == "a"
    assert js["box"] == [["-1", "0"]]
    code, out, _ = run("equiv", p2, p1, "--box", "file", "--epsilon", "99/100", "--json")
    assert code == 1 and json.loads(out)["answer"] is False
    code, out, _ = run("equiv", p1, p2, "--box", "file")        # the raw box is a cube
    assert code == 1 and out.splitlines()[-1] == f"  {FIRST}the box [-1, 1]^1{TAIL}"


def test_files_that_normalise_alike_say_normalised_and_other_pairs_say_nothing(run, pair):
    p1, p2 = pair
    code, out, err = run("diff", p2, p2, "--box", "file", "--json")
    js = json.loads(out)
    assert code == 0 and js["lower"] == "0" and err == ""
    assert (js["input_space"], js["units_of"], js["box"]) == ("normalised", "both", [["-5/2", "3/2"]])
    code, out, _ = run("diff", p2, p2, "--box", "file")
    assert out.splitlines()[-1] == (
        "  in normalised units (both .nnet files normalise alike): x, the box [-5/2, 3/2]^1 and "
        "|a - b| are normalised inputs (x - mean) / range and outputs")
    net = Path(__file__).resolve().parents[2] / "algebra" / "examples" / "t1_masked.json"
    code, out, _ = run("diff", net, net, "--box=-1,1", "--json")
    assert code == 0 and "input_space" not in json.loads(out) and "box" not in json.loads(out)


def test_equiv_box_file_that_is_not_a_cube_is_decided_on_that_box(run, tmp_path):
    # (refused before 2026-12-04; now read on the cube, three-layer-fibers R36)
    p = tmp_path / "n.nnet"
    two = [([[F(1), F(0)], [F(0), F(1)]], [F(0), F(0)]), ([[F(1), F(1)]], [F(0)])]
    write_nnet(p, two, [F(0), F(0)], [F(1), F(2)], [F(0), F(0), F(0)], [F(1), F(1), F(1)])
    code, out, _ = run("equiv", p, p, "--box", "file", "--json")
    js = json.loads(out)
    assert code == 0 and js["certificate"]["type"] == "on_box"
    assert js["certificate"]["box"] == [[0, 1], [0, 2]] and js["box"] == [["0", "1"], ["0", "2"]]


def test_info_of_a_nnet_file_gives_its_units(run, pair):
    _, p2 = pair
    code, out, _ = run("info", p2, "--json")
    js = json.loads(out)
    assert code == 0 and js["input_space"] == "normalised" and js["input_box"] == [["-5/2", "3/2"]]
    assert js["normalisation"] == {"input_minimums": ["-4"], "input_maximums": ["4"],
                                   "input_means": ["1"], "input_ranges": ["2"],
                                   "output_mean": "0", "output_range": "1"}
    code, out, _ = run("info", p2)
    assert "  input 0: raw mean 1, range 2, bounds [-4, 4] -> normalised [-5/2, 3/2]" in \
        out.splitlines()
    net = Path(__file__).resolve().parents[2] / "algebra" / "examples" / "t1_masked.json"
    code, out, _ = run("info", net, "--json")
    assert code == 0 and "input_space" not in json.loads(out)


@pytest.mark.parametrize("method", ["tree", "cells"])
def test_search_diff_compares_the_files_maps(run, pair, method):
    """``search diff`` read the two files as their raw weight networks (|x| both: it said max
    |a - b| = 0 where the files' maps differ) and refused ``--box file``; now it compares
    the maps like ``diff``, and says so."""
    p1, p2 = pair
    extra = ["--method", "cells", "--cells", "2"] if method == "cells" else []
    code, out, err = run("search", "diff", p2, p1, "--box=-1,1", "--workers", "0", "--json", *extra)
    js = json.loads(out)
    assert code == 0 and (js["lower"], js["upper"]) == ("2", "2") and js["units_of"] == "a"
    assert "normalise differently" in err
    code, out, _ = run("search", "diff", p2, p1, "--box", "file", "--workers", "0", *extra)
    assert code == 0 and out.startswith("max |a - b| = 1") and \
        out.splitlines()[-1] == f"  {FIRST}the box [-1, 0]^1{TAIL}"


def test_batch_compares_the_files_maps_in_the_first_files_units(run, pair, tmp_path):
    """``batch diff`` / ``batch equiv`` loaded each file as its raw weight network (|x| both:
    "max |a - b| = 0", "equivalent", where the files' maps differ by 1, found by helper robust):
    they now pair the files like ``diff`` / ``equiv`` (values by hand, module docstring)."""
    p1, p2 = pair
    manifest = tmp_path / "m.csv"
    manifest.write_text(f'a,b,box\n{p2},{p1},"-1,0"\n{p1},{p2},"-1,1"\n')
    out = tmp_path / "r.jsonl"
    code, _, _ = run("batch", "diff", manifest, "--out", out, "--workers", "0")
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and [(r["lower"], r["upper"]) for r in rows] == [("1", "1"), ("1", "1")]
    assert [[F(str(v)) for v in r["point"]] for r in rows] == [[0], [1]]
    out = tmp_path / "e.jsonl"
    code, _, _ = run("batch", "equiv", manifest, "--out", out, "--workers", "0")
    assert code == 0 and [json.loads(line)["answer"] for line in out.read_text().splitlines()] == [False, False]


def test_the_units_line_prints_long_box_ends_as_decimals():
    """The box of the units line is for people: long rationals as ≈ decimals, exact with --exact
    (ACAS Xu's normalised box: x0 in [-19791091/60261000, 13656303/20087000])."""
    from algebra import load
    from algebra.io.nnet import nnet_input_box
    from algebra.kernel.domains import Domain
    from semialgebraic.commands.common import units_report
    acas = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "ACASXU_run2a_1_1_batch_2000.nnet"
    dom = Domain.from_box(nnet_input_box(load(str(acas))))
    js, line = units_report("normalised", dom)
    assert js["box"][0] == ["-19791091/60261000", "13656303/20087000"] and js["units_of"] == "both"
    assert "the box [≈-0.32842, ≈0.67986] x [≈-0.50000, ≈0.50000]" in line
    assert "the box [-19791091/60261000, 13656303/20087000] x " in units_report("normalised", dom, True)[1]


def test_eval_and_convert_of_a_nnet_file_say_its_units(tmp_path, capsys):
    """eval printed normalised outputs of normalised inputs without a word, and convert dropped
    the normalisation silently (session 32's audit)."""
    from semialgebraic.cli import main
    nnet = "benchmarks/data/ACASXU_run2a_1_1_batch_2000.nnet"
    assert main(["eval", nnet, "--x", "0,0,0,0,0"]) == 0
    assert "inputs normalised" in capsys.readouterr().out
    assert main(["convert", nnet, "-o", str(tmp_path / "a.json")]) == 0
    assert "normalisation (means, ranges, input box) is not kept" in capsys.readouterr().out


def test_batch_dedup_compares_nnet_files_as_the_maps_they_define(run, tmp_path):
    # session-38 tools audit: dedup compared the raw weight networks, so one weight set with two
    # normalisations (two different maps) was one class, with a merge certificate about the
    # weights that `verify CERT A B` called VALID for the two files.  n1: |x|; n2: the same
    # weights on (x - 1) / 2, the map |x - 1| / 2; n3: the same weights on x / 2 with outputs
    # times 2, the map 2 |x / 2| = |x|, n1's
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    write_nnet(zoo / "n1.nnet", ABS, [F(-1)], [F(1)], [F(0), F(0)], [F(1), F(1)])
    write_nnet(zoo / "n2.nnet", ABS, [F(-4)], [F(4)], [F(1), F(0)], [F(2), F(1)])
    write_nnet(zoo / "n3.nnet", ABS, [F(-2)], [F(2)], [F(0), F(0)], [F(2), F(2)])
    out = tmp_path / "d.jsonl"
    code, _, _ = run("batch", "dedup", zoo, "--out", out, "--workers", "0", "--timeout", "30", "--quiet")
    recs = {Path(r["file"]).name: r for r in map(json.loads, out.read_text().splitlines())}
    assert code == 0
    assert recs["n1.nnet"]["class"] == recs["n3.nnet"]["class"] != recs["n2.nnet"]["class"]
    cert = next((tmp_path / "d.certificates").glob("merge-*.json"))
    code, text, _ = run("verify", cert, zoo / "n1.nnet", zoo / "n3.nnet")
    assert code == 0 and "VALID" in text and "the maps they define" in text
    code, _, err = run("verify", cert, zoo / "n1.nnet", zoo / "n2.nnet")
    assert code == 2 and "not the network the certificate is about" in err
    # equiv's certificate of two files that normalise differently is about the first's units
    cert2 = tmp_path / "e.json"
    code, _, _ = run("equiv", zoo / "n1.nnet", zoo / "n3.nnet", "--certificate", cert2)
    assert code == 0
    code, text, _ = run("verify", cert2, zoo / "n1.nnet", zoo / "n3.nnet")
    assert code == 0 and "VALID" in text


def test_batch_dedup_of_one_normalisation_reads_nnet_files_as_equiv_does(run, tmp_path):
    # session-38 review: a .nnet file and two .json files, B its raw weights, C the map it
    # defines (output mean 3): equiv said A ~ B and A !~ C, dedup (maps) put A with C.  With one
    # normalisation in the zoo, dedup now reads the .nnet file as equiv does: A with B
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    W = [([[F(1), F(-1)], [F(2), F(1)]], [F(0), F(1)]), ([[F(1), F(-2)]], [F(0)])]
    write_nnet(zoo / "A.nnet", W, [F(-1), F(-1)], [F(1), F(1)], [F(0), F(0), F(3)], [F(1), F(1), F(1)])
    for name, c in (("B", 0), ("C", 3)):
        (zoo / f"{name}.json").write_text(json.dumps({"format": "netfibers.network", "version": 1,
            "activation": "relu", "layers": [{"weight": [[1, -1], [2, 1]], "bias": [0, 1]},
                                             {"weight": [[1, -2]], "bias": [c]}]}))
    code, _, err = run("equiv", zoo / "A.nnet", zoo / "B.json")
    assert code == 0 and "read as its raw weight network" in err
    assert run("equiv", zoo / "A.nnet", zoo / "C.json")[0] == 1
    out = tmp_path / "d.jsonl"
    code, _, err = run("batch", "dedup", zoo, "--out", out, "--workers", "0", "--timeout", "30", "--quiet")
    recs = {Path(r["file"]).name: r for r in map(json.loads, out.read_text().splitlines())}
    assert code == 0 and "normalise differently" not in err
    assert recs["A.nnet"]["class"] == recs["B.json"]["class"] != recs["C.json"]["class"]
