"""Domains on the command line (issue 15): every form parsed into one exact domain, used by
``regions``, ``dim``, ``diff`` and ``equiv --epsilon`` (box ∩ half-spaces, open sides, the
orthant, all of R^d: unbounded ones decided by three-layer-fibers R28); a bad domain is one line
on stderr, exit 2, nothing on stdout."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from algebra.network import Network
from semialgebraic.cli import main

NET = Network.from_rows([[[1, 0], [0, 1], [1, -1]], [[1, 1, 1]]], [[0, 0, 0], [0]])   # hyperplanes x=0, y=0, x=y


@pytest.fixture
def net(tmp_path):
    p = tmp_path / "net.json"
    p.write_text(json.dumps(NET.to_dict()))
    return str(p)


def _regions(capsys, net, *dom):
    code = main(["regions", net, *dom, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_cube_box_per_coordinate_ball_and_halfspaces(capsys, net, tmp_path):
    code, data = _regions(capsys, net, "--box", "-1,1")
    assert code == 0 and data["number_of_regions"] == 6 and data["domain"]["type"] == "box"
    code, data = _regions(capsys, net, "--box", "1:2,-1:1")          # x > 0, x > y: only y = 0 cuts
    assert code == 0 and data["number_of_regions"] == 2
    assert data["domain"] == {"type": "polyhedron", "lo": ["1", "-1"], "hi": ["2", "1"], "halfspaces": []}
    code, data = _regions(capsys, net, "--ball", "3,1,1/2")          # away from every line
    assert code == 0 and data["number_of_regions"] == 1 and data["domain"]["lo"] == ["5/2", "1/2"]
    # a per-coordinate box whose first bound is negative needs no "=" (found by tests/fuzz)
    code, data = _regions(capsys, net, "--box", "-1/2:1,-1:1")
    assert code == 0 and data["number_of_regions"] == 6 and data["domain"]["lo"] == ["-1/2", "-1"]
    f = tmp_path / "dom.json"
    f.write_text(json.dumps({"box": [[-1, 1], [-1, 1]], "halfspaces": [{"a": [-1, 0], "b": "-1/2"}]}))
    code, data = _regions(capsys, net, "--box", str(f))               # x >= 1/2: y = 0 and x = y
    assert code == 0 and data["number_of_regions"] == 3
    assert all(Fraction(r["point"][0]) >= Fraction(1, 2) for r in data["regions"])
    code, data = _regions(capsys, net, "--orthant")
    assert code == 0 and data["number_of_regions"] == 2


@pytest.mark.parametrize("dom, problem", [
    (["--box", "2,1"], "exceeds"),
    (["--box", "0:1"], "expected 2 intervals"),
    (["--box", "0:1,a:2"], "--box"),
    (["--ball", "0,0,-1"], "radius"),
    (["--ball", "0,0,0,1"], "--ball"),
    (["--box", "missing.json"], "missing.json"),
])
def test_bad_domains_exit_2(capsys, net, dom, problem):
    assert main(["regions", net, *dom]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and problem in captured.err


def test_dim_takes_a_ball_and_a_box_with_its_own_sides(capsys, net, tmp_path):
    assert main(["dim", net, "--ball", "0,1", "--json"]) == 0          # the cube [-1, 1]^2
    ball = json.loads(capsys.readouterr().out)
    assert main(["dim", net, "--box", "-1,1", "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)
    # 13 parameters minus one positive scaling per hidden neuron (all three are exercised)
    assert ball["functional_dimension"] == cube["functional_dimension"] == 13 - 3 and ball["exact"]
    # a box with its own sides is the network read on the cube (three-layer-fibers R36): with
    # the origin inside, every neuron bends, so the same value as on the cube
    assert main(["dim", net, "--box", "-1:1,-1/2:2", "--json"]) == 0
    box = json.loads(capsys.readouterr().out)
    assert box["functional_dimension"] == 13 - 3 and box["exact"]
    # on [0, 1] x [0, 2] only x = y bends: an affine function (3) plus one kink (its line, 2, and
    # the size of its jump, 1) = 6
    assert main(["dim", net, "--box", "0:1,0:2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["functional_dimension"] == 6
    f = tmp_path / "dom.json"     # a box cut by a half-space (R37): here the cut is the box
    f.write_text(json.dumps({"box": [[-1, 1], [-1, 1]], "halfspaces": [{"a": [-1, 0], "b": "-1/2"}]}))
    assert main(["dim", net, "--box", "1/2:1,-1:1", "--json"]) == 0      # [1/2, 1] x [-1, 1]
    want = json.loads(capsys.readouterr().out)["functional_dimension"]
    code = main(["dim", net, "--box", str(f), "--json"])
    cut = json.loads(capsys.readouterr().out)
    assert cut["lower"] <= want <= cut["upper"] and (code == 0) == cut["exact"]
    if cut["exact"]:
        assert cut["functional_dimension"] == want
    f.write_text(json.dumps({"box": [[0, None], [-1, 1]], "halfspaces": [{"a": [-1, 0], "b": "-1/2"}]}))
    assert main(["dim", net, "--box", str(f)]) == 2                      # open sides: refused
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "dim:" in err and "not half-spaces with open sides" in err
    f.write_text(json.dumps({"box": [[0, None], [0, 1]]}))           # an open side: named as such
    assert main(["dim", net, "--box", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not open sides" in err and "its own sides per coordinate" in err
    # a side of width 0 (a slice): the network of the free coordinates (three-layer-fibers
    # R36 (b), session 42; refused before); every side of width 0, one point given per
    # coordinate: named as such (a cube of width 0 is one point, a reading of its own)
    assert main(["dim", net, "--box=-2:2,1/2:1/2"]) in (0, 3)
    assert "on the slice x1 = 1/2 of the box," in capsys.readouterr().out     # 0-based, as regions
    assert main(["dim", net, "--box=-2:-2,1/2:1/2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "width 0 in every coordinate" in err


# ------------------------------------------------------------------------------------------------
# diff and equiv --epsilon on every domain form (issue 15, part 1 and 3)
# ------------------------------------------------------------------------------------------------
DIFF_KEYS = {"lower", "upper", "complete", "max_deviation", "point", "output", "per_output", "nodes",
             "reason"}


@pytest.fixture
def pair(tmp_path):
    from tests.cases.bab_domains import ABS, HALF, SHIFT
    out = {}
    for name, n in (("abs", ABS), ("half", HALF), ("shift", SHIFT)):
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(json.dumps(n.to_dict()))
    for name, dom in (("hs", {"box": [[-1, 2]], "halfspaces": [{"a": [1], "b": 1}]}),
                      ("open", {"box": [[None, 0]]}),
                      ("hsonly", {"halfspaces": [{"a": [1], "b": -1}]}),
                      ("empty", {"box": [[0, 1]], "halfspaces": [{"a": [1], "b": -1}]})):
        out[name] = tmp_path / f"{name}.json"
        out[name].write_text(json.dumps(dom))
    return {k: str(v) for k, v in out.items()}


def _diff(capsys, *argv):
    code = main(["diff", *argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def test_diff_unbounded_orthant_is_inf_with_a_ray(capsys, pair, tmp_path):
    cert = tmp_path / "u.json"
    code, data = _diff(capsys, pair["abs"], pair["half"], "--orthant", "--certificate", str(cert))
    assert code == 0 and DIFF_KEYS <= set(data)
    assert (data["lower"], data["upper"], data["complete"], data["max_deviation"]) == ("inf", "inf", True, "inf")
    x = Fraction(data["point"][0])
    assert x >= 0 and Fraction(data["ray"]["slope"]) > 0
    assert main(["verify", str(cert)]) == 0 and "VALID bab_recession" in capsys.readouterr().out
    assert main(["diff", pair["abs"], pair["half"], "--orthant"]) == 0
    assert capsys.readouterr().out.startswith("max |a - b| = +inf: |a_0 - b_0| grows without bound")


def test_diff_bounded_on_R_and_on_open_or_halfspace_domains(capsys, pair):
    # the same weights: R29's body and tail give the exact sup 1 (R28's bias bound was 2)
    code, data = _diff(capsys, pair["abs"], pair["shift"])            # no domain: all of R^1
    assert code == 0 and (data["lower"], data["upper"], data["complete"]) == ("1", "1", True)
    assert Fraction(data["point"][0]) <= -1                          # |a - b| = 1 exactly there
    code, data = _diff(capsys, pair["abs"], pair["shift"], "--box", pair["hsonly"])   # x <= -1
    assert code == 0 and data["lower"] == "1" and data["upper"] == "1"
    code, data = _diff(capsys, pair["abs"], pair["half"], "--box", pair["open"])      # x <= 0
    assert code == 0 and (data["lower"], data["upper"]) == ("0", "0")
    code, data = _diff(capsys, pair["abs"], pair["half"], "--box", pair["hs"])        # [-1, 1]
    assert code == 0 and (data["lower"], data["upper"], data["point"]) == ("1/2", "1/2", [1])
    assert main(["diff", pair["abs"], pair["half"], "--box", pair["hs"]]) == 0
    assert capsys.readouterr().out.startswith("max |a - b| = 1/2 at x = (1)")


def test_diff_decimals_for_people_exact_with_a_flag(capsys, tmp_path):
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1]], [["99991/99992"]]], [[0], [0]])
    files = []
    for name, n in (("a", a), ("b", b)):
        files.append(tmp_path / f"{name}.json")
        files[-1].write_text(json.dumps(n.to_dict()))
    dom = tmp_path / "d.json"
    dom.write_text(json.dumps({"box": [[0, 1]], "halfspaces": [{"a": [1], "b": "12345/67891"}]}))
    assert main(["diff", str(files[0]), str(files[1]), "--box", str(dom)]) == 0
    assert "max |a - b| = ≈ 1.8185e-6" in capsys.readouterr().out    # 12345/6788556872
    assert main(["diff", str(files[0]), str(files[1]), "--box", str(dom), "--exact"]) == 0
    assert "max |a - b| = 12345/6788556872 at x = (12345/67891)" in capsys.readouterr().out


def test_equiv_epsilon_on_every_domain_exit_codes(capsys, pair, tmp_path):
    assert main(["equiv", pair["abs"], pair["half"], "--orthant", "--epsilon", "5"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("max |a - b| > 5")      # (since s47 by the cheap refutation's point,
    assert main(["diff", pair["abs"], pair["half"], "--orthant"]) == 0    # before the ray search)
    assert "grows without bound" in capsys.readouterr().out
    assert main(["equiv", pair["abs"], pair["shift"], "--epsilon", "2"]) == 0      # R^1, bounded
    capsys.readouterr()
    tight = tmp_path / "t.json"                  # at the exact sup 1 (R29; R28's bound 2 left it open)
    assert main(["equiv", pair["abs"], pair["shift"], "--epsilon", "1", "--certificate", str(tight)]) == 0
    capsys.readouterr()
    assert main(["verify", str(tight)]) == 0 and "R29" in capsys.readouterr().out
    assert main(["equiv", pair["abs"], pair["shift"], "--epsilon", "1/2", "--json"]) == 1
    assert Fraction(json.loads(capsys.readouterr().out)["point"][0]) < 0
    cert = tmp_path / "c.json"
    assert main(["equiv", pair["abs"], pair["half"], "--box", pair["hs"], "--epsilon", "1/2",
                 "--certificate", str(cert)]) == 0
    capsys.readouterr()
    assert main(["verify", str(cert)]) == 0
    assert "half-space" in capsys.readouterr().out
    assert main(["equiv", pair["abs"], pair["half"], "--ball", "0,1", "--epsilon", "1/2"]) == 0
    capsys.readouterr()
    assert main(["equiv", pair["abs"], pair["half"], "--box=-1:3", "--epsilon", "1"]) == 1


@pytest.mark.parametrize("argv, problem", [
    (["--box", "{empty}"], "empty"),
    (["--box", "{open}", "--plot", "x.png"], "--plot"),
])
def test_diff_bad_domains_exit_2(capsys, pair, argv, problem):
    assert main(["diff", pair["abs"], pair["half"], *[a.format(**pair) for a in argv]]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and problem in captured.err


def test_diff_method_walk_on_a_cut_box_and_a_box_with_its_own_sides(capsys, pair):
    """``diff --method walk`` walks a bounded polyhedron (before: a cube only): [-1, 2] ∩ {x <= 1}
    gives branch and bound's exact 1/2 at x = 1; an open side is refused in one line."""
    code, data = _diff(capsys, pair["abs"], pair["half"], "--box", pair["hs"], "--method", "walk")
    assert code == 0 and (data["lower"], data["upper"], data["method"]) == ("1/2", "1/2", "region walk")
    assert data["point"] == [1] and data["reason"] == "all regions of a - b in the domain"
    code, data = _diff(capsys, pair["abs"], pair["half"], "--box", pair["hs"], "--method", "bab")
    assert code == 0 and (data["lower"], data["upper"]) == ("1/2", "1/2")
    assert main(["diff", pair["abs"], pair["half"], "--box", pair["open"], "--method", "walk"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "bounded domain" in captured.err


def test_diff_budget_without_upper_bound_is_null_not_inf(capsys, pair):
    code, data = _diff(capsys, pair["abs"], pair["half"], "--box=-1,2", "--max-regions", "1",
                       "--method", "walk")
    assert code == 3 and data["upper"] is None and "no upper bound within the budget" in data["reason"]
    assert DIFF_KEYS <= set(data) and Fraction(data["lower"]) <= 1


def test_equiv_exact_equality_on_halfspaces_and_open_sides(capsys, pair, tmp_path):
    """Exact equality on a box ∩ half-spaces or a box with open sides (before, equiv refused such
    a domain): the region walk on the polyhedron itself (a ``region_cover`` certificate naming
    it, or a point of the domain), else max |a − b| <= 0 by branch and bound on the domain (a
    domain with an empty interior).  ABS − HALF = relu(x)/2: 0 on x <= 0, 1/2 at x = 1."""
    cert = tmp_path / "eq.json"
    # x <= 0 (open below): relu(x) is dead on the box part (-inf, 0]: the walk's reductions
    assert main(["equiv", pair["abs"], pair["half"], "--box", pair["open"], "--certificate",
                 str(cert)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("equivalent (general)") and "by the region walk" in out
    assert json.loads(open(cert).read())["domain"] == {"lo": [None], "hi": ["0"], "halfspaces": []}
    assert main(["verify", str(cert)]) == 0 and "VALID region_cover" in capsys.readouterr().out
    # [-1, 2] ∩ {x <= 1}: a point of the domain
    assert main(["equiv", pair["abs"], pair["half"], "--box", pair["hs"], "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] is False and data["decided_by"] == "region walk" and "decided_on" not in data
    x = Fraction(data["certificate"]["x"][0])
    assert 0 < x <= 1 and data["certificate"]["domain"]["halfspaces"] == [{"a": ["1"], "b": "1"}]
    # [-1, 2] ∩ {x <= 0}: a = b there, not on the box: the walk on the polyhedron decides
    cut = tmp_path / "cut.json"
    cut.write_text(json.dumps({"box": [[-1, 2]], "halfspaces": [{"a": [1], "b": 0}]}))
    assert main(["equiv", pair["abs"], pair["half"], "--box", str(cut), "--json", "--certificate",
                 str(cert)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] is True and data["method"] == "general" and data["decided_by"] == "region walk"
    assert main(["verify", str(cert)]) == 0
    capsys.readouterr()
    # {0} = [-1, 2] ∩ {x <= 0} ∩ {-x <= 0}: no interior, so no walk: branch and bound decides
    flat = tmp_path / "flat.json"
    flat.write_text(json.dumps({"box": [[-1, 2]], "halfspaces": [{"a": [1], "b": 0}, {"a": [-1], "b": 0}]}))
    assert main(["equiv", pair["abs"], pair["half"], "--box", str(flat), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] is True and data["method"] == "branch and bound" and data["epsilon"] == "0"
    assert data["decided_by"] == "branch and bound"
    # x <= -1: a != b (|a − b| = 1 on it): SHIFT differs from ABS
    assert main(["equiv", pair["abs"], pair["shift"], "--box", pair["hsonly"]]) == 1
    capsys.readouterr()
    # an equivalent pair on a cut box, its certificate checks
    assert main(["equiv", pair["abs"], pair["abs"], "--box", pair["hs"], "--certificate", str(cert)]) == 0
    assert "decided on the domain itself by the region walk" in capsys.readouterr().out
    assert main(["verify", str(cert)]) == 0
    capsys.readouterr()
    # a fixed method decides on a box, the orthant or R^d only: one line, exit 2
    assert main(["equiv", pair["abs"], pair["half"], "--box", pair["open"], "--method", "general"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "region walk" in captured.err


def test_equiv_exact_equality_on_a_ball(capsys, pair):
    assert main(["equiv", pair["abs"], pair["half"], "--ball", "-1,1"]) == 0      # [-2, 0]: a = b
    assert capsys.readouterr().out.startswith("equivalent")
    assert main(["equiv", pair["abs"], pair["half"], "--ball", "1,1/2"]) == 1     # [1/2, 3/2]
    assert capsys.readouterr().out.startswith("not equivalent")


def test_domain_file_in_the_form_netfibers_writes_and_unknown_keys(capsys, pair, tmp_path):
    """A domain as ``regions --json`` writes it (``lo``/``hi``) is read back; a misspelt key is an
    error (before, ``{"lo": …, "hi": …}`` was read as all of R^d without a word)."""
    f = tmp_path / "written.json"
    f.write_text(json.dumps({"type": "polyhedron", "lo": ["-1"], "hi": ["2"],
                             "halfspaces": [{"a": ["1"], "b": "1"}]}))
    code, data = _diff(capsys, pair["abs"], pair["half"], "--box", str(f))
    assert code == 0 and (data["lower"], data["upper"]) == ("1/2", "1/2")
    for bad, problem in (({"boxx": [[0, 1]]}, "unknown key"), ({"lo": [0], "hi": [1, 2]}, "'lo' and 'hi'"),
                         ({"type": "ball", "box": [[0, 1]]}, "'type'")):
        f.write_text(json.dumps(bad))
        assert main(["diff", pair["abs"], pair["half"], "--box", str(f)]) == 2
        captured = capsys.readouterr()
        assert captured.out == "" and captured.err.count("\n") == 1 and problem in captured.err


def _search_regions(capsys, net, *argv):
    code = main(["search", "regions", net, *argv, "--workers", "0", "--json"])
    return code, capsys.readouterr()


@pytest.mark.parametrize("method", ["walk", "cells"])
def test_search_regions_takes_every_bounded_box(capsys, net, tmp_path, method):
    """``search regions`` on a box with its own sides, a ball and a bounded JSON box: the regions
    of ``netfibers regions`` on the same box, certified (the polyhedral domain form, checked by
    ``netfibers verify``)."""
    f = tmp_path / "box.json"
    f.write_text(json.dumps({"box": [[-1, 1], ["-1/2", 2]]}))
    for dom, count in ((["--box", "1:2,-1:1"], 2), (["--ball", "3,1,1/2"], 1),
                       (["--box", "-1/2:1,-1:1"], 6), (["--box", str(f)], 6)):
        code, want = _regions(capsys, net, *dom)
        assert code == 0 and want["number_of_regions"] == count
        cert = tmp_path / "cover.json"
        code, cap = _search_regions(capsys, net, *dom, "--method", method, "--certificate", str(cert))
        data = json.loads(cap.out)
        assert code == 0 and data["complete"] and data["certificate_checked"] is True
        assert sorted(tuple(r["pattern"]) for r in data["regions"]) == \
            sorted(tuple(r["pattern"]) for r in want["regions"])
        c = json.loads(cert.read_text())
        if dom[0] == "--box" and "," in dom[1] and ":" not in dom[1]:
            assert "box" in c["domain"]
        else:
            assert c["domain"]["lo"] == want["domain"]["lo"] and c["domain"]["halfspaces"] == []
        assert main(["verify", str(cert)]) == 0
        capsys.readouterr()
    code = main(["search", "regions", net, "--box", "1:2,-1:1", "--workers", "0", "--method", method])
    assert code == 0 and "2 activation regions meet the box [1, 2] x [-1, 1]" in capsys.readouterr().out


def test_search_regions_takes_the_nnet_input_box(capsys, tmp_path):
    from fractions import Fraction as F

    from tests.fuzz.bab_paths import write_nnet
    p = tmp_path / "n.nnet"
    layers = [([[F(str(v)) for v in r] for r in W.to_rows()], [F(str(v)) for v in b])
              for W, b in zip(NET.weights, NET.biases)]
    write_nnet(p, layers, [F(0), F(-1)], [F(1), F(2)], [F(0)] * 3, [F(1)] * 3)
    code, want = _regions(capsys, str(p), "--box", "file")
    code2, cap = _search_regions(capsys, str(p), "--box", "file")
    data = json.loads(cap.out)
    assert code == code2 == 0 and data["number_of_regions"] == want["number_of_regions"] == 3     # x = 0 is a side


@pytest.mark.parametrize("dom, problem", [
    ({"box": [[-1, 1], [-1, 1]], "halfspaces": [{"a": [1, 1], "b": 0}]}, "not half-spaces"),
    ({"box": [[0, None], [0, 1]]}, "not open sides"),
    ("0:1,1:1", "x_1 is fixed at 1"),
])
def test_search_regions_refuses_what_it_cannot_walk_in_one_line(capsys, net, tmp_path, dom, problem):
    if isinstance(dom, dict):
        f = tmp_path / "dom.json"
        f.write_text(json.dumps(dom))
        argv = ["--box", str(f)]
    else:
        argv = [dom] if dom.startswith("--") else ["--box", dom]
    assert main(["search", "regions", net, *argv, "--workers", "0"]) == 2
    cap = capsys.readouterr()
    assert cap.out == "" and problem in cap.err
    assert len(cap.err.strip().splitlines()) == 1
    assert "lo1:hi1" in cap.err or "netfibers regions walks the slice" in cap.err


def test_a_text_answer_on_a_ball_names_its_domain(capsys, net):
    """``--ball X,R`` is the L∞ ball, a cube: the session-33 new-user audit read "ball of radius
    2.8" as a round one.  Every text answer on it says so in one line (before the ≈ note); the
    JSON answers are unchanged."""
    line = "domain: the L∞ ball of radius 1/2 around (3, 1), i.e. the cube of side 2 × 1/2 centred there (--ball)"
    for argv in (["regions", net, "--ball", "3,1,1/2"], ["dim", net, "--ball", "3,1,1/2"],
                 ["equiv", net, net, "--ball", "3,1,1/2"]):
        assert main(argv) == 0
        out = capsys.readouterr().out
        # (one line naming the domain: since session 45 dim and equiv name every domain, and a
        # ball's line takes the place of theirs)
        assert [s.strip() for s in out.splitlines()].count(line) == 1, out
        assert sum(s.startswith("  domain: ") for s in out.splitlines()) == 1, out
    assert main(["regions", net, "--ball", "3,1,1/2", "--json"]) == 0
    assert "L∞" not in capsys.readouterr().out
    assert main(["dim", net, "--ball", "0,1"]) == 0
    assert "around the point (0, …, 0)" in capsys.readouterr().out
