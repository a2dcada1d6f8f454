"""``netfibers equiv``, ``diff``, ``dim``: exit codes, JSON keys, certificates written only when
decided, one-line input errors."""

import json

import pytest

from algebra.network import Network

A = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])                 # |x|
B = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])         # |x| again
C = Network.from_rows([[[1], [-1]], [[1, 2]]], [[0, 0], [0]])                 # differs for x < 0
DEEP = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, -1, 1], [-1, 1, 2]], [[1, 2]]],
                         [[0, -1, 1], [1, 0], [0]])
DEEP2 = Network.from_rows([[[0, 1], [1, 0], [2, 2]], [[-1, 1, "1/2"], [1, -1, "1/2"]], [[2, 1]]],
                          [[-1, 0, 2], [0, 1], [0]])
# equal, and the difference does not collapse (no layer of ALWAYS_A is provably affine:
# relu(h1 - h2 + 2) >= 1 always, but interval bounds cannot show it), so the walk is needed
ALWAYS_A = Network.from_rows([[[1, 0], [1, 0], [0, 1]], [[1, -1, 0], [0, 0, 1]], [[1, 1]]],
                             [[0, -1, 0], [2, 0], [-2]])
ALWAYS_B = Network.from_rows([[[1, 0], [1, 0], [0, 1]], [[1, -1, 1]]], [[0, -1, 0], [0]])
WIDE = Network.from_rows([[[1, 1]], [[1]]], [[0], [0]])


@pytest.fixture
def files(tmp_path):
    out = {}
    for name, net in {"a": A, "b": B, "c": C, "deep": DEEP, "deep2": DEEP2, "wide": WIDE,
                     "alw_a": ALWAYS_A, "alw_b": ALWAYS_B}.items():
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(net.to_dict()))
        out[name] = str(p)
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out["bad"] = str(bad)
    return out




def test_equiv_equivalent_with_certificate(files, tmp_path, capsys, run):
    cert = tmp_path / "cert.json"
    code, out, _ = run("equiv", files["a"], files["b"], "--method", "general",
                       "--certificate", cert, "--json")
    assert code == 0
    data = json.loads(out)
    assert data["answer"] is True and data["method"] == "general" and data["regions_checked"] == 0
    assert {"hypotheses", "reason", "certificate"} <= set(data)
    assert json.loads(cert.read_text())["type"] == "region_cover"
    code, out, _ = run("verify", cert)
    assert code == 0


def test_equiv_not_equivalent(files, tmp_path, capsys, run):
    cert = tmp_path / "cx.json"
    code, out, _ = run("equiv", files["a"], files["c"], "--certificate", cert)
    assert code == 1 and "not equivalent" in out
    c = json.loads(cert.read_text())
    assert c["type"] == "counterexample"
    assert run("verify", cert)[0] == 0


def test_equiv_deep_general_and_auto(files, capsys, run):
    code, out, _ = run("equiv", files["deep"], files["deep2"], "--json")
    data = json.loads(out)
    assert code == 1 and data["answer"] is False and data["method"] == "general"


def test_equiv_domains(files, capsys, run):
    code, out, _ = run("equiv", files["a"], files["c"], "--orthant", "--json")
    assert code == 0 and json.loads(out)["certificate"]["domain"] == {"orthant": True}
    code, out, _ = run("equiv", files["a"], files["c"], "--box=0,5", "--json")
    assert code == 0
    code, out, _ = run("equiv", files["a"], files["c"], "--box=-1,5", "--json")
    assert code == 1


def test_equiv_budget_undecided_writes_nothing(files, tmp_path, capsys, run):
    cert = tmp_path / "never.json"
    code, out, _ = run("equiv", files["alw_a"], files["alw_b"], "--method", "general",
                       "--max-regions", 1, "--certificate", cert, "--json")
    data = json.loads(out)
    assert code == 3 and data["answer"] is None and data["regions_checked"] == 1
    assert "no counterexample" in data["reason"]
    assert not cert.exists()


def test_equiv_method_not_applicable(files, capsys, run):
    code, out, _ = run("equiv", files["deep"], files["deep"], "--method", "shallow")
    assert code == 3 and "undecided" in out


@pytest.mark.parametrize("argv", [
    ["equiv", "{a}", "{wide}"],
    ["equiv", "{a}", "{bad}"],
    ["equiv", "{a}", "{b}", "--timeout", "-1"],
    ["equiv", "{a}", "{b}", "--max-regions", "0"],
    ["equiv", "{a}", "{b}", "--box=2,1"],
    ["equiv", "{a}", "{b}", "--method", "magic"],
    ["diff", "{a}", "{c}", "--box=0,1", "--orthant"],       # no domain at all: R^d (test_domains)
    ["diff", "{a}", "{wide}", "--box=0,1"],
    ["dim", "{bad}"],
])
def test_input_errors(files, tmp_path, capsys, argv, run):
    code, out, err = run(*[a.format(**files) for a in argv])
    assert code == 2 and err.startswith("netfibers: error") and "Traceback" not in err
    assert out == ""


def test_diff(files, capsys, run):
    code, out, _ = run("diff", files["a"], files["c"], "--box=-1,2", "--json")
    data = json.loads(out)
    assert code == 0
    assert (data["max_deviation"], data["point"], data["complete"]) == ("1", [-1], True)
    code, out, _ = run("diff", files["a"], files["b"], "--box=-3,3")
    assert code == 0 and out.startswith("max |a - b| = 0")


def test_diff_budget(files, capsys, run):
    code, out, _ = run("diff", files["deep"], files["deep2"], "--box=-5,5", "--max-regions", 1,
                       "--json")
    assert code == 3 and json.loads(out)["complete"] is False


def test_dim(files, capsys, run):
    code, out, _ = run("dim", files["deep"], "--json")
    data = json.loads(out)
    assert code == 0 and data["exact"] is True
    assert data["functional_dimension"] + data["fiber_dimension"] == DEEP.n_parameters
    assert data["functional_dimension"] <= DEEP.n_parameters - DEEP.n_hidden
    code, out, _ = run("dim", files["a"])
    assert code == 0 and out.startswith("functional dimension 4 of 7 parameters")
