"""``netfibers batch equiv|dim|diff`` take their domain as the single commands do (one grammar,
:mod:`algebra.io.domain_text`): per-item ``box``/``ball``/``orthant``/``epsilon`` columns or the
command-line default; a domain that does not fit the job is an error record, never an answer
about R^d; every record states the domain it answers about.  ``search diff`` refuses what it
cannot take instead of cutting it down to its box."""

import json

import pytest

from algebra.exceptions import InputError
from algebra.io.domain_text import parse_domain_text
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds, epsilon_equivalent
from semialgebraic.dimension import functional_dimension
from semialgebraic.distributed.jobs import run_item
from semialgebraic.equivalence import equivalent
from semialgebraic.verify import verify

# a = relu(x) + relu(y); b adds relu(-x - y - 1): dead on [0, 1]^2 (and on any box with
# x + y >= -1), alive at (-3, 0): equal on the box, not on R^2
A = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
B = Network.from_rows([[[1, 0], [0, 1], [-1, -1]], [[1, 1, 1]]], [[0, 0, -1], [0]])
HS = {"box": [[0, 1], [0, 1]], "halfspaces": [{"a": [1, 1], "b": 1}]}          # x + y <= 1


@pytest.fixture
def d(tmp_path):
    for name, net in (("a", A), ("b", B)):
        (tmp_path / f"{name}.json").write_text(json.dumps(net.to_dict()))
    (tmp_path / "hs.json").write_text(json.dumps(HS))
    return tmp_path


def records(path) -> dict:
    return {r["id"]: r for r in map(json.loads, path.read_text().splitlines())}


def test_batch_equiv_answers_on_the_box_as_netfibers_equiv(run, d):
    (d / "p.csv").write_text("a,b\na.json,b.json\n")
    code, out, _ = run("batch", "equiv", d / "p.csv", "--out", d / "box.jsonl", "--box", "0,1",
                       "--workers", "0", "--quiet", "--json")
    assert code == 0 and json.loads(out)["verdicts"] == {"equivalent": 1}
    code, out, _ = run("batch", "equiv", d / "p.csv", "--out", d / "rd.jsonl", "--workers", "0",
                       "--quiet", "--json")
    assert code == 0 and json.loads(out)["verdicts"] == {"not equivalent": 1}
    (on_box,), (on_rd,) = records(d / "box.jsonl").values(), records(d / "rd.jsonl").values()
    assert on_box["asked"] == {"box": "0,1"} and on_rd["asked"] == {}
    assert on_box["domain"] == Domain.cube(2, 0, 1).to_json() and on_rd["domain"] == Domain.whole(2).to_json()
    # the same answers as the single command, and the certificates pass the checker (CLI too)
    assert run("equiv", d / "a.json", d / "b.json", "--box", "0,1")[0] == 0
    assert run("equiv", d / "a.json", d / "b.json")[0] == 1
    for rec, kind in ((on_box, "region_cover"), (on_rd, "counterexample")):
        cert = json.loads(open(rec["certificate"]).read())
        assert cert["type"] == kind and verify(cert)[0]
        code, out, _ = run("verify", rec["certificate"])
        assert code == 0 and out.startswith(f"VALID {kind}")


def test_mixed_per_item_boxes_and_bad_boxes_are_error_records(run, d):
    (d / "p.csv").write_text(
        "id,a,b,box\n"
        "cube,a.json,b.json,\"0,1\"\n"             # equal
        "default,a.json,b.json,\n"                 # the --box below
        "sides,a.json,b.json,\"0:1,0:2\"\n"         # own sides: read on the cube (R36), equal
        "wide,a.json,b.json,\"-3:1,0:1\"\n"         # b's extra neuron alive at (-3, 0)
        "inline,a.json,b.json,\"[[0,1],[0,1]]\"\n"
        "malformed,a.json,b.json,\"0,1,2\"\n"
        "dimension,a.json,b.json,0:1\n"
        "reversed,a.json,b.json,\"2,1\"\n"
        "halfspaces,a.json,b.json,hs.json\n"        # equal on the domain (the region walk on it)
        "missing,a.json,b.json,nothere.json\n")
    code, out, _ = run("batch", "equiv", d / "p.csv", "--out", d / "r.jsonl", "--box", "-3,1",
                       "--workers", "0", "--quiet", "--json")
    s = json.loads(out)
    assert code == 3 and (s["ok"], s["failed"]) == (6, 4)
    r = records(d / "r.jsonl")
    assert {k: r[k]["verdict"] for k in ("cube", "default", "sides", "wide", "inline", "halfspaces")} == {
        "cube": "equivalent", "default": "not equivalent", "sides": "equivalent",
        "wide": "not equivalent", "inline": "equivalent", "halfspaces": "equivalent"}
    assert r["halfspaces"]["decided_by"] == "region walk"              # as `netfibers equiv`
    assert r["default"]["asked"] == {"box": "-3,1"} and r["default"]["domain"]["lo"] == ["-3", "-3"]
    assert r["sides"]["domain"] == {"lo": ["0", "0"], "hi": ["1", "2"], "halfspaces": []}
    assert "three-layer-fibers R36" in r["sides"]["note"]
    sides = json.loads(open(r["sides"]["certificate"]).read())
    assert sides["type"] == "on_box" and verify(sides)[0]
    wide = json.loads(open(r["wide"]["certificate"]).read())
    assert wide["type"] == "counterexample" and verify(wide)[0]
    assert equivalent(A, B, domain=[(-3, 1), (0, 1)]).answer is False        # as the record says
    errors = {k: r[k]["error"] for k in r if r[k]["status"] == "error"}
    assert errors == {
        "malformed": "box: expected 2 coordinates, got 3",
        "dimension": "box: expected 2 intervals, got 1",
        "reversed": "box: lower bound 2 exceeds upper bound 1",
        "missing": f"box: {d / 'nothere.json'}: cannot read: No such file or directory"}
    assert all(r[k]["asked"]["box"] and "domain" not in r[k] for k in errors)


def test_batch_equiv_epsilon_on_any_domain(run, d):
    (d / "p.jsonl").write_text("\n".join(json.dumps(x) for x in (
        {"id": "cube", "a": "a.json", "b": "b.json", "box": [[0, 1], [0, 1]]},
        {"id": "hs", "a": "a.json", "b": "b.json", "box": "hs.json", "epsilon": 0},
        {"id": "ball", "a": "a.json", "b": "b.json", "ball": [-1, -1, 1], "epsilon": 0.5},
        {"id": "rd", "a": "a.json", "b": "b.json"})) + "\n")
    code, out, _ = run("batch", "equiv", d / "p.jsonl", "--out", d / "e.jsonl", "--epsilon", "1/10",
                       "--workers", "0", "--quiet", "--json")
    assert code == 0
    r = records(d / "e.jsonl")
    assert {k: v["verdict"] for k, v in r.items()} == {
        "cube": "max |a - b| <= 1/10", "hs": "max |a - b| <= 0", "ball": "max |a - b| > 1/2",
        "rd": "max |a - b| > 1/10"}
    assert r["ball"]["epsilon"] == "1/2" and r["ball"]["domain"]["lo"] == ["-2", "-2"]   # 0.5 exact
    want, _ = epsilon_equivalent(A, B, Domain.ball([Q(-1), Q(-1)], Q(1)), Q(1, 2))
    assert want is False and r["ball"]["answer"] is False
    for rec in r.values():
        assert verify(json.loads(open(rec["certificate"]).read()))[0]
    # a ball without an epsilon: exact equality on its box [-1, 1]^2 (b's extra neuron is alive
    # at (-1, -1)), as `netfibers equiv --ball`
    rec = run_item("equiv", {"id": "x", "paths": [str(d / "a.json"), str(d / "b.json")]},
                   defaults={"ball": "0,1"})
    assert rec["status"] == "ok" and rec["answer"] is False
    assert verify(rec["certificate"])[0]
    assert run("equiv", d / "a.json", d / "b.json", "--ball", "0,1")[0] == 1


def test_batch_dim_on_the_box_as_netfibers_dim(run, d):
    (d / "m.csv").write_text("id,model,box,ball,orthant\n"
                             "cube,b.json,\"-3,1\",,\n"
                             "sides,b.json,\"-3:1,0:1\",,\n"
                             "ball,b.json,,\"0,0,1\",\n"
                             "orthant,b.json,,,true\n"
                             "rd,b.json,,,\n"
                             "hs,b.json,hs.json,,\n"
                             "slice,b.json,\"-3:1,1/2:1/2\",,\n"
                             "two,b.json,\"0,1\",\"0,0,1\",\n")
    code, out, _ = run("batch", "dim", d / "m.csv", "--out", d / "m.jsonl", "--workers", "0",
                       "--quiet", "--json")
    assert code == 3
    r = records(d / "m.jsonl")
    single = {}
    for k, opt in (("cube", "--box=-3,1"), ("sides", "--box=-3:1,0:1"), ("ball", "--ball=0,0,1"),
                   ("orthant", "--orthant"), ("rd", None), ("slice", "--box=-3:1,1/2:1/2")):
        code, out, _ = run("dim", d / "b.json", *([opt] if opt else []), "--json")
        single[k] = json.loads(out)["functional_dimension"]
    assert {k: r[k]["verdict"] for k in single} == single
    assert single["sides"] != single["cube"]          # the box is used, not R^d or the cube
    assert single["cube"] == functional_dimension(B, domain=(Q(-3), Q(1))).value
    assert "three-layer-fibers R36" in r["sides"]["note"]
    assert "R36 (b)" in r["slice"]["note"] and r["slice"]["n_parameters"] == B.n_parameters
    assert "R36 (b)" in r["slice"]["note"] and r["slice"]["n_parameters"] == B.n_parameters
    # a box cut by half-spaces: as `netfibers dim` (three-layer-fibers R37)
    code, out, _ = run("dim", d / "b.json", "--box", d / "hs.json", "--json")
    cut = json.loads(out)
    assert r["hs"]["lower"] == cut["lower"] and r["hs"]["upper"] == cut["upper"]
    assert r["hs"]["status"] == ("ok" if cut["exact"] else "undecided") and "R37" in r["hs"]["note"]
    assert r["two"]["error"] == "give one domain: box, ball or orthant"


def test_batch_diff_takes_any_domain_diff_takes(run, d):
    (d / "p.csv").write_text("id,a,b,box,ball\n"
                             "rd,a.json,b.json,,\n"
                             "hs,a.json,b.json,hs.json,\n"
                             "ball,a.json,b.json,,\"-1,1\"\n"
                             "sides,a.json,b.json,\"-3:1,0:1\",\n")
    code, out, _ = run("batch", "diff", d / "p.csv", "--out", d / "f.jsonl", "--workers", "0",
                       "--quiet")
    assert code == 0
    r = records(d / "f.jsonl")
    hs = Domain.from_box([(0, 1), (0, 1)]).with_halfspaces([([1, 1], 1)])
    want = {"rd": Domain.whole(2), "hs": hs, "ball": Domain.ball([Q(-1), Q(-1)], Q(1)),
            "sides": Domain.from_box([(-3, 1), (0, 1)])}
    for k, dom in want.items():
        w = diff_bounds(A, B, dom)
        assert (r[k]["lower"], r[k]["upper"]) == (w.to_json()["lower"], w.to_json()["upper"]), k
        assert Domain.from_json(r[k]["domain"]) == dom
        assert verify(json.loads(open(r[k]["certificate"]).read()))[0]
    assert r["rd"]["upper"] == "inf" and r["sides"]["lower"] == "2"


def test_domain_options_checked_before_any_work(run, d):
    (d / "p.csv").write_text("a,b\na.json,b.json\n")
    (d / "m.csv").write_text("model,box\na.json,\"0,1\"\n")
    out = d / "x.jsonl"
    cases = [(["batch", "dedup", d, "--box", "0,1"], "batch dedup takes no domain"),
             (["batch", "dim", d / "m.csv", "--epsilon", "1"], "--epsilon is a question of batch equiv"),
             (["batch", "equiv", d / "p.csv", "--epsilon", "-1"], "--epsilon must be >= 0"),
             (["batch", "equiv", d / "p.csv", "--epsilon", "x"], "--epsilon:"),
             (["batch", "equiv", d / "p.csv", "--box", d / "nothere.json"], "cannot read"),
             (["batch", "identify", d / "m.csv"], "batch identify takes none"),
             (["batch", "equiv", d / "p.csv", "--box", "0,1", "--orthant"], "not allowed with")]
    for argv, msg in cases:
        code, _, err = run(*argv, "--out", out, "--workers", "0")
        assert code == 2 and msg in err and len(err.strip().splitlines()) == 1, (argv, err)
        assert "Traceback" not in err and not out.exists()


def test_a_rerun_asking_another_domain_is_refused(run, d):
    (d / "p.csv").write_text("a,b\na.json,b.json\n")
    out = d / "r.jsonl"
    assert run("batch", "equiv", d / "p.csv", "--out", out, "--workers", "0", "--quiet")[0] == 0
    before = out.read_text()
    code, _, err = run("batch", "equiv", d / "p.csv", "--out", out, "--box", "0,1", "--workers", "0")
    assert code == 2 and "for the domain R^d, this run asks {'box': '0,1'}" in err
    assert out.read_text() == before
    code, text, _ = run("batch", "equiv", d / "p.csv", "--out", out, "--workers", "0", "--json")
    assert code == 0 and json.loads(text)["resumed"] == 1             # the same question resumes


def test_box_file_relative_to_the_manifest_read_by_the_client(run, d, tmp_path, monkeypatch):
    sub = d / "sub"
    sub.mkdir()
    (sub / "p.csv").write_text("a,b,box\n../a.json,../b.json,dom.json\n")
    (sub / "dom.json").write_text(json.dumps({"box": [[0, 1], [0, 2]]}))
    monkeypatch.chdir(tmp_path)                                     # not the manifest's directory
    code, _, _ = run("batch", "equiv", sub / "p.csv", "--out", d / "r.jsonl", "--workers", "0", "--quiet")
    (rec,) = records(d / "r.jsonl").values()
    assert code == 0 and rec["verdict"] == "equivalent" and rec["domain"]["hi"] == ["1", "2"]
    # the worker gets the file's JSON: a box file the worker cannot see still works
    rec = run_item("equiv", {"id": "y", "paths": [str(d / "a.json"), str(d / "b.json")],
                             "box": "/nowhere/dom.json", "box_json": '{"box": [[0, 1], [0, 2]]}'})
    assert rec["verdict"] == "equivalent"


def test_one_grammar_for_the_commands_and_the_batch():
    """The batch reads a domain with the parser the commands use: same Domain for every form."""
    from types import SimpleNamespace
    from semialgebraic.commands.common import parse_domain
    forms = [{"box": "0,1"}, {"box": "-1:1,0:2"}, {"box": '{"box": [[0, null], [0, 1]]}'},
             {"ball": "1,2,1/2"}, {"orthant": True}, {}]
    for f in forms:
        args = SimpleNamespace(box=f.get("box"), ball=f.get("ball"), orthant=f.get("orthant", False))
        assert parse_domain(args, 2) == parse_domain_text(2, **f)
    with pytest.raises(InputError, match="give one domain"):
        parse_domain_text(2, box="0,1", orthant=True)
    with pytest.raises(InputError, match=r"^box: 'x:1' is not|^box: "):
        parse_domain_text(2, box="x:1", options=("box", "ball", "orthant"))


def test_search_diff_domains(run, d):
    cert = d / "s.json"
    for opt in ("--box=-3:1,0:1", "--box=[[-3,1],[0,1]]"):
        code, out, _ = run("search", "diff", d / "a.json", d / "b.json", opt, "--workers", "0",
                           "--certificate", cert, "--json")
        assert code == 0 and json.loads(out)["upper"] == "2" and verify(json.loads(cert.read_text()))[0]
    code, out, _ = run("search", "diff", d / "a.json", d / "b.json", "--ball", "-1,1", "--workers",
                       "0", "--json")
    assert code == 0 and json.loads(out)["upper"] == str(diff_bounds(A, B, [(-2, 0)] * 2).upper)
    # half-spaces were dropped before (max 5 over the box where diff says 0 on the domain)
    (d / "hs2.json").write_text(json.dumps({"box": [[-3, 1], [-3, 1]],
                                            "halfspaces": [{"a": [-1, -1], "b": 0}]}))
    (d / "open.json").write_text(json.dumps({"box": [[0, None], [0, 1]]}))
    for f, what in (("hs2.json", "not half-spaces"), ("open.json", "not open sides")):
        code, _, err = run("search", "diff", d / "a.json", d / "b.json", "--box", d / f, "--workers", "0")
        assert code == 2 and what in err and "netfibers diff takes any domain" in err
    code, _, err = run("search", "regions", d / "b.json", "--box", d / "hs2.json", "--workers", "0")
    assert code == 2 and "not half-spaces" in err and "netfibers regions takes any domain" in err


def test_nnet_box_file_per_item_and_default(run, tmp_path):
    """``box`` = ``file``: the .nnet input box, as ``netfibers equiv --box file`` (here [0, 1] x
    [0, 2], a box with its own sides: read on the cube, R36)."""
    from fractions import Fraction as F
    from tests.fuzz.bab_paths import write_nnet
    a = [([[F(1), F(0)], [F(0), F(1)]], [F(0), F(0)]), ([[F(1), F(1)]], [F(0)])]
    b = [([[F(1), F(0)], [F(0), F(1)], [F(-1), F(-1)]], [F(0), F(0), F(-1)]), ([[F(1), F(1), F(1)]], [F(0)])]
    for name, net in (("a", a), ("b", b)):
        write_nnet(tmp_path / f"{name}.nnet", net, [F(0), F(0)], [F(1), F(2)], [F(0)] * 3, [F(1)] * 3)
    (tmp_path / "p.csv").write_text("id,a,b,box\nown,a.nnet,b.nnet,file\ndefault,a.nnet,b.nnet,\n")
    code, _, _ = run("batch", "equiv", tmp_path / "p.csv", "--out", tmp_path / "r.jsonl",
                     "--workers", "0", "--quiet")
    r = records(tmp_path / "r.jsonl")
    assert code == 0 and (r["own"]["verdict"], r["default"]["verdict"]) == ("equivalent", "not equivalent")
    assert r["own"]["domain"]["hi"] == ["1", "2"] and r["own"]["asked"] == {"box": "file"}
    assert run("equiv", tmp_path / "a.nnet", tmp_path / "b.nnet", "--box", "file")[0] == 0
    code, _, _ = run("batch", "equiv", tmp_path / "p.csv", "--out", tmp_path / "f.jsonl",
                     "--box", "file", "--workers", "0", "--quiet", "--json")
    assert code == 0 and {v["verdict"] for v in records(tmp_path / "f.jsonl").values()} == {"equivalent"}
    cert = json.loads(open(records(tmp_path / "f.jsonl")["default"]["certificate"]).read())
    assert cert["type"] == "on_box" and verify(cert)[0]


def test_orthant_column_values(d):
    item = {"id": "x", "paths": [str(d / "b.json")]}
    for value, want in ((True, 3), ("true", 3), ("yes", 3), ("false", 10), ("0", 10)):
        rec = run_item("dim", {**item, "orthant": value, "box": "-3,1" if want == 10 else None})
        assert rec["verdict"] == want, value
    rec = run_item("dim", {**item, "orthant": "maybe"})
    assert rec["status"] == "error" and rec["error"] == "orthant: 'maybe' is not true or false"
    rec = run_item("dim", {**item, "box": " "})                  # a blank box is an error, not R^d
    assert rec["status"] == "error" and "box" in rec["error"]


def test_one_pair_on_two_domains_is_two_items(run, d):
    """A pair listed once per domain (new-user audit: "listed twice" refused it): two items,
    each with its own answer; the same pair twice on the same domain is still refused."""
    (d / "p2.csv").write_text("a,b,box\na.json,b.json,\"0,1\"\na.json,b.json,\n")
    code, out, _ = run("batch", "equiv", d / "p2.csv", "--out", d / "two.jsonl", "--workers", "0",
                       "--quiet", "--json")
    assert json.loads(out)["verdicts"] == {"equivalent": 1, "not equivalent": 1}
    recs = records(d / "two.jsonl")
    assert len(recs) == 2 and {r["answer"] for r in recs.values()} == {True, False}
    assert any(k.endswith(" | box=0,1") for k in recs)
    (d / "p3.csv").write_text("a,b\na.json,b.json\na.json,b.json\n")
    code, _, err = run("batch", "equiv", d / "p3.csv", "--out", d / "three.jsonl", "--workers", "0",
                       "--quiet")
    assert code == 2 and "listed twice" in err
