"""`netfibers analyze` on every kind of input: bottleneck (default), one hidden layer, block,
deeper network; values asserted."""

import json

from algebra import Network, save

EX = "algebra/examples/"




def test_default_example_is_the_masked_bottleneck(capsys, run):
    code, out, err = run("analyze", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["input"].endswith("masked_bottleneck.json")
    text = out
    assert "identifiab" in text


def test_one_hidden_layer(capsys, tmp_path, run):
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, -1, 2]]], [[0, 1, -1], [0]])
    save(net, tmp_path / "s.json")
    code, out, err = run("analyze", str(tmp_path / "s.json"))
    assert code == 0
    assert "3 kink hyperplane(s)" in out
    assert "equivalent=True" in out and "equivalent=False" in out


def test_block(capsys, run):
    code, out, err = run("analyze", EX + "block_B.json")
    assert code == 0
    assert "absorption: absorbable [find-s (Theorem 8)]" in out
    code, out, err = run("analyze", EX + "block_P5b_reglu.json", "--json")
    assert json.loads(out)["absorption"]["answer"] is False


def test_deep_network_reports_exact_functional_dimension(capsys, tmp_path, run):
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, -1, 2], [2, 1, -1]], [[1, -1], [1, 1]],
                             [[1, 1]]], [[0, 1, -1], [1, -1], [0, 1], [0]])
    save(net, tmp_path / "deep.json")
    code, out, err = run("analyze", str(tmp_path / "deep.json"), "--json")
    assert code == 0
    fd = json.loads(out)["functional_dimension"]
    assert fd["exact"] is True and fd["functional_dimension"] == 17 and fd["fiber_dimension"] == 9
