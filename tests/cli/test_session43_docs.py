"""What the help, the JSON and the text say, held to what the commands do (session 43's docs and
less-used-commands audits; each test names its finding)."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "algebra" / "examples"


def _one_line(text: str) -> str:
    return " ".join(text.split())


def test_help_texts_say_what_the_commands_do(run):
    """F1: identify --help gave exit 2 for deeper nets (1 or 3 in fact); F3: equiv --help said a
    box cut by half-spaces is "decided on the enclosing box" (on the polyhedron itself); F5:
    search --help named bab_cover for diff (bab_bound, bab_cover only with --method cells) and
    carried batch's --workers and --timeout texts."""
    _, out, _ = run("identify", "--help")
    out = _one_line(out)
    assert "NET has more hidden layers" not in out
    assert "a deeper network or a wider bottleneck is not an error: exit 1 with a planted copy, else 3" in out
    _, out, _ = run("equiv", "--help")
    out = _one_line(out)
    assert "enclosing box" not in out and "decided on that polyhedron itself, by the region walk" in out
    _, out, _ = run("search", "--help")
    out = _one_line(out)
    assert "diff: bab_bound, or bab_cover with --method cells" in out
    assert "--start-cluster" not in out and "per item/cell" not in out and "finished cells" not in out


def test_diff_walk_refuses_a_certificate_it_would_not_write(tmp_path, run):
    """F2: `diff --method walk --certificate FILE` exited 0 with no file and no word."""
    cert = tmp_path / "c.json"
    code, out, err = run("diff", EX / "t1_masked.json", EX / "t1_translated_2.json", "--box=-3,3",
                         "--method", "walk", "--certificate", cert)
    assert code == 2 and not cert.exists() and out == ""
    assert err.strip() == ("netfibers: error: --certificate: --method walk writes no certificate; "
                           "use --method bab (or auto, which takes branch and bound when a "
                           "certificate is asked for)")
    code, _, _ = run("diff", EX / "t1_masked.json", EX / "t1_translated_2.json", "--box=-3,3",
                     "--certificate", cert)
    assert code == 0 and json.loads(cert.read_text())["type"] == "bab_bound"


def test_a_partial_fiber_listing_does_not_call_its_count_exact(run):
    """F4: the masked bottleneck's listing is partial (S5 strata with other numbers of linear and
    dead rows are left out) yet JSON said number_of_components_exact: true, and analyze's
    summary gave "8 components" without the caveat."""
    code, out, _ = run("fiber", EX / "masked_bottleneck.json", "--json")
    d = json.loads(out)
    assert d["listing"] == "partial" and d["number_of_components_exact"] is False
    code, out, _ = run("analyze", EX / "masked_bottleneck.json")
    line = next(s for s in out.splitlines() if s.startswith("symmetries: "))
    assert line.endswith("of equivalent weight settings among the strata listed (others are not: "
                         "see the fiber's notes)")


def test_counterexample_values_are_printed_apart(tmp_path, run):
    """F9: "a(x) = 3, b(x) = ≈ 3.0000, a(x) - b(x) = -1/1000000": enough digits to tell a(x)
    from b(x); and canon's "x + -1 = 0" reads "x - 1 = 0"."""
    a = {"format": "netfibers.network", "version": 1, "activation": "relu",
         "layers": [{"weight": [[1, 0], [0, 1], [1, 1]], "bias": [0, 0, -1]},
                    {"weight": [[1, 1, 1]], "bias": [3]}]}
    b = json.loads(json.dumps(a))
    b["layers"][1]["bias"] = ["3.000001"]
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    code, out, _ = run("equiv", tmp_path / "a.json", tmp_path / "b.json", "--box=-1,1")
    assert code == 1
    line = next(s for s in out.splitlines() if s.strip().startswith("output 0:"))
    assert line.strip() == "output 0: a(x) = 3, b(x) = ≈ 3.000001, a(x) - b(x) = -1/1000000"
    code, out, _ = run("canon", tmp_path / "a.json")
    assert code == 0 and "  kink on (1, 1) . x - 1 = 0 : [1]" in out.splitlines()
    assert "+ -" not in out


def test_explain_knows_r16a_to_c(run):
    """F6: `explain R16a` (cited by README and the fiber's notes) was an unknown term."""
    for rid, head in (("R16a", "n1 = 1: every stratum"), ("R16b", "constant f"),
                      ("R16c", "n1 ≥ 2: dead and linear rows exchanged under S5")):
        code, out, _ = run("explain", rid)
        assert code == 0 and out.startswith(f"three-layer-fibers {rid}: {head} [derived")


def test_analyze_says_a_ctrl_c_as_a_ctrl_c():
    """Budgets audit F5: after a Ctrl-C, analyze of a bottleneck said "the timeout cut the
    analysis short" 3 s into a 60 s budget."""
    from algebra.io import load
    from semialgebraic.commands.analyze import _summary_non_generic, summary_bottleneck
    net = load(EX / "masked_bottleneck.json")
    assert "(a Ctrl-C cut the analysis short: the sections below are those done)" in \
        summary_bottleneck(net, {"complete": False, "reason": "interrupted (Ctrl-C)"})
    assert "(the timeout cut the analysis short: the sections below are those done)" in \
        _summary_non_generic(net, {"complete": False, "reason": "timeout of 3 s reached"})


def test_plot_takes_a_nnet_files_own_box(tmp_path, run):
    """Docs audit F13: `plot regions|diff X.nnet --box file` was refused with "the network was
    not read from a .nnet file" for a 2-input .nnet file; it draws on the file's normalised
    input box, as `regions --box file` walks it."""
    import pytest
    pytest.importorskip("matplotlib")
    nnet = tmp_path / "small.nnet"          # 2-3-1, inputs in [-1, 3] x [0, 4]
    nnet.write_text('// tiny test net\n2,2,1,3,\n2,3,1,\n0,\n-1.0,0.0,\n3.0,4.0,\n1.0,2.0,0.0,\n2.0,4.0,1.0,\n1.0,0.0,\n0.0,1.0,\n1.0,1.0,\n0.0,\n0.0,\n-1.0,\n1.0,1.0,1.0,\n0.0,\n')
    code, out, err = run("plot", "regions", nnet, "--box", "file", "-o", tmp_path / "r.png")
    assert code == 0 and (tmp_path / "r.png").exists(), err
    code, walk, _ = run("regions", nnet, "--box", "file")
    assert code == 0 and out.split()[0] == walk.split()[0]              # the same number of regions
    code, out, err = run("plot", "diff", nnet, nnet, "--box", "file", "-o", tmp_path / "d.png")
    assert code == 0 and "certified max 0" in out
