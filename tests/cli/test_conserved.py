"""``netfibers conserved``: certified counts (T10), JSON keys, LaTeX, exit codes, bad inputs."""

import json
from pathlib import Path

import pytest

from semialgebraic.cli import main

EX = Path(__file__).resolve().parents[2] / "algebra" / "examples"




@pytest.fixture
def data1(tmp_path):
    """Inputs hitting every region of the T10 networks (d = 1), none on a bent hyperplane."""
    p = tmp_path / "data.json"
    p.write_text(json.dumps({"inputs": [[-3], ["-3/2"], ["-1/3"], ["1/2"], [1], [2], [5]]}))
    return p


@pytest.mark.parametrize("name, laws, lie, names", [
    ("t10_two_linear.json", 4, 5, ["Q1[0]", "Q2[0]", "Q2[1]", "C2[0,1]"]),
    ("t10_masked.json", 2, 4, ["Q1[0]", "Q2[0]"]),
    ("t10_linear.json", 2, 4, ["Q1[0]", "Q2[0]"]),
])
def test_t10_json(capsys, data1, name, laws, lie, names, run):
    code, out, err = run("conserved", EX / name, "--data", data1, "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["number_of_laws"] == laws and d["exact"] is True and d["lie_rank"] == lie
    assert [law["name"] for law in d["laws"]] == names
    assert all({"name", "polynomial", "scope"} <= set(law) for law in d["laws"])
    assert "lower" not in d and "upper" not in d
    assert d["complete"] is True and d["source"].startswith("data (7 points)")


def test_text_and_latex(capsys, data1, run):
    code, out, _ = run("conserved", EX / "t10_two_linear.json", "--data", data1)
    assert code == 0
    assert out.startswith("4 independent conservation laws (certified")
    assert "C2[0,1] = W2[0,0]*W2[1,0] + b2[0]*b2[1] - W3[0,0]*W3[0,1]" in out
    code, out, _ = run("conserved", EX / "t10_two_linear.json", "--data", data1, "--latex")
    assert code == 0
    assert "\\begin{align*}" in out and "C^{(2)}_{0,1} &= W^{(2)}_{0,0} W^{(2)}_{1,0}" in out


def test_budget_gives_bounds_and_exit_3(capsys, data1, run):
    code, out, _ = run("conserved", EX / "t10_two_linear.json", "--data", data1,
                       "--max-depth", "0", "--json")
    assert code == 3
    d = json.loads(out)
    assert (d["number_of_laws"], d["exact"], d["lower"], d["upper"]) == (None, False, 4, 6)


def test_data_on_a_bent_hyperplane_is_noted(capsys, tmp_path, run):
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"inputs": [[-1], [1], [3], [-4]]}))  # x = -1: u = W1 x + b1 = 0
    code, out, _ = run("conserved", EX / "t10_masked.json", "--data", p, "--json")
    d = json.loads(out)
    assert any("bent hyperplane" in n for n in d["notes"])
    assert d["number_of_laws"] == 2


def test_a_law_known_only_by_frobenius_is_counted_apart(tmp_path, run):
    """3-1-1-1 with two data points: 6 laws, 5 of them explicit, 1 certified by Frobenius; the
    head said "certified: explicit laws = N − Lie rank" above 5 listed laws (an outsider's
    acceptance test, session 31)."""
    net, data = tmp_path / "n.json", tmp_path / "d.json"
    net.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
        {"weight": [["-9/5", -8, "-5/4"]], "bias": ["2/5"]}, {"weight": [["2/5"]], "bias": [-1]},
        {"weight": [["-14/5"]], "bias": [1]}]}))
    data.write_text(json.dumps({"inputs": [[-15, 6, "-15/4"], [-10, "4/3", "9/4"]]}))
    code, out, _ = run("conserved", net, "--data", data)
    head = out.splitlines()[0]
    assert code == 0 and head.startswith("6 independent conservation laws")
    assert "5 explicit and 1 by Frobenius = N − Lie rank = 8 − 2" in head


@pytest.mark.parametrize("argv, words", [
    (["--data", "missing.json"], ["missing.json"]),
    (["--timeout", "0"], ["--timeout"]),
    (["--max-depth", "-1"], ["--max-depth"]),
    (["--box", "1,0"], ["--box"]),
    (["--data", "BAD"], ["inputs"]),
])
def test_bad_inputs_exit_2(capsys, tmp_path, argv, words, run):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"points": [[1]]}))
    argv = [str(bad) if a == "BAD" else a for a in argv]
    code, out, err = run("conserved", EX / "t10_masked.json", *argv)
    assert code == 2, (code, out, err)
    assert err.startswith("netfibers: error: ") and err.count("\n") == 1 and out == ""
    for w in words:
        assert w in err


def test_data_and_box_are_exclusive(capsys, data1):
    with pytest.raises(SystemExit) as e:
        main(["conserved", str(EX / "t10_masked.json"), "--data", str(data1), "--box", "-1,1"])
    assert e.value.code == 2


def test_wrong_input_dimension_exit_2(capsys, tmp_path, run):
    p = tmp_path / "d.json"
    p.write_text(json.dumps({"inputs": [[1, 2]]}))
    code, _, err = run("conserved", EX / "t10_masked.json", "--data", p)
    assert code == 2 and "expected 1 entries" in err


def test_box_and_default_regions(capsys, run):
    pytest.importorskip("semialgebraic.regions")
    code, out, err = run("conserved", EX / "t10_two_linear.json", "--box=-5,5", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["number_of_laws"] == 4 and d["exact"] and d["patterns"] == 2
    code, out, err = run("conserved", EX / "t10_masked.json", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["number_of_laws"] == 2 and d["patterns"] == 3 and d["source"] == "regions of R^1"


def test_region_budget_gives_partial_result(capsys, run):
    pytest.importorskip("semialgebraic.regions")
    code, out, err = run("conserved", EX / "t10_two_linear.json", "--max-regions", "1", "--json")
    assert code == 3, err
    d = json.loads(out)
    assert (d["complete"], d["exact"], d["number_of_laws"]) == (False, False, None)
    assert d["lower"] == 3 and d["upper"] >= 4 and d["patterns"] == 1
    assert d["reason"].startswith("max_regions=1 reached")


def test_large_networks_count_rescaling_laws_without_polynomials(monkeypatch, capsys):
    """Past LAW_MAX_PARAMETERS the candidate laws are not built as polynomials (a 784-1024-10
    net ran out of 24 GB): the rescaling laws count by the rank of their gradients at θ."""
    from algebra.conservation import laws
    from semialgebraic.cli import main
    monkeypatch.setattr(laws, "LAW_MAX_PARAMETERS", 5)
    main(["conserved", "algebra/examples/t5_perm_scale_a.json", "--json"])
    import json
    data = json.loads(capsys.readouterr().out)
    text = json.dumps(data)
    assert "not built as polynomials for 15 parameters" in text
    assert data["number_of_laws"] == 4 and any("count toward the lower bound" in n for n in data["notes"])


# the session-45 re-run audit's N4: a constant first-layer neuron on R^2 (one region holds no
# differentiable input: the fiber's upper bound takes the other regions' fields), and a
# first-layer neuron with a zero outgoing column (an R22 reading)
CONST_DEEP = {"layers": [{"weight": [[0, 0], [5, 2], [-4, -1]], "bias": [3, 3, 4]},
                         {"weight": [[2, -3, 5], [1, -4, -2], [5, 5, -5]], "bias": [5, -3, 5]},
                         {"weight": [[-3, -2, -5]], "bias": [-1]}]}
ZERO_COLUMN = {"layers": [{"weight": [[4, 5], [-3, -5], [3, 2]], "bias": [-4, -3, -2]},
                          {"weight": [[0, 2, -3], [0, -3, 4], [0, -5, -4]], "bias": [-2, -1, -2]},
                          {"weight": [[-1, -4, -4]], "bias": [1]}]}


def test_conserved_closes_the_fiber_where_the_moves_reach_the_bound(tmp_path, run):
    """conserved said 6 <= fiber dimension <= 12 where dim says 12: the moves that keep the
    function reach N − the rank of the other regions' fields."""
    p = tmp_path / "const_deep.json"
    p.write_text(json.dumps(CONST_DEEP))
    code, out, _ = run("conserved", str(p), "--json")
    d = json.loads(out)
    assert code == 0 and d["fiber_dimension"] == 12 and "fiber_lower" not in d
    code, out, _ = run("dim", str(p), "--json")
    assert json.loads(out)["fiber_dimension"] == 12
    code, out, _ = run("conserved", str(p))
    assert "(fiber dimension 12)" in out and "fiber dimension = 12: the moves" in out


def test_conserved_marks_an_r22_reading_as_dim_does(tmp_path, run):
    p = tmp_path / "zero_column.json"
    p.write_text(json.dumps(ZERO_COLUMN))
    code, out, _ = run("conserved", str(p), "--json")
    d = json.loads(out)
    code2, out2, _ = run("dim", str(p), "--json")
    e = json.loads(out2)
    keys = ("fiber_dimension", "fiber_dimension_by", "fiber_lower", "fiber_upper")
    assert code == code2 == 0 and [d[k] for k in keys] == [e[k] for k in keys] == \
        [13, "R22 reading (not certified)", 12, 13]
    code, out, _ = run("conserved", str(p))
    assert "fiber dimension 13 is three-layer-fibers R22's reading, not certified" in out
