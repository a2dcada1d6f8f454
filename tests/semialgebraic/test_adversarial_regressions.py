"""Findings of the adversarial campaign (``tests/fuzz/adversarial.py``), minimised, with the exact
values expected."""

import json

import pytest

from semialgebraic.cli import main


def _nnet(path, W1, b1, W2, b2, means, ranges):
    """A 1-2-1 .nnet file, input bounds [-1, 1]."""
    lines = ["// adversarial", "2,1,1,2,", "1,2,1,", "0,", "-1,", "1,", ",".join(means) + ",", ",".join(ranges) + ","]
    lines += [",".join(r) + "," for r in W1] + [v + "," for v in b1]
    lines += [",".join(r) + "," for r in W2] + [v + "," for v in b2]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _diff(capsys, *argv):
    capsys.readouterr()
    code = main(["diff", *argv, "--box", "file", "--json"])
    out = json.loads(capsys.readouterr().out)
    return code, out["lower"], out["upper"]


@pytest.fixture
def nnet_files(tmp_path):
    """a: relu(x) + relu(-x)/2 on normalised inputs, output range 10; b: a with the output bias
    + 1/1000 (normalised units: 1/100 in raw outputs); c: b's raw map written with input mean 1/2
    (first-layer biases ±1/2 absorb the shift)."""
    W1, W2 = [["1"], ["-1"]], [["1", "0.5"]]
    a = _nnet(tmp_path / "a.nnet", W1, ["0", "0"], W2, ["0"], ["0", "0"], ["1", "10"])
    b = _nnet(tmp_path / "b.nnet", W1, ["0", "0"], W2, ["0.001"], ["0", "0"], ["1", "10"])
    c = _nnet(tmp_path / "c.nnet", W1, ["0.5", "-0.5"], W2, ["0.001"], ["0.5", "0"], ["1", "10"])
    return a, b, c


def test_nnet_pairs_agree_on_units(nnet_files, capsys):
    """Adversarial finding (fixed): pairs that normalise alike were compared in normalised output
    units, pairs that normalise differently in raw ones (a ~ c gave 1/100, a ~ b 1/1000, b == c),
    so ``equiv --epsilon 0.005`` said a ~ b and b == c but not a ~ c.  Now both kinds are
    compared in the first file's normalised units: b and c define one map, a differs from both
    by the output bias 1/1000 (by hand)."""
    a, b, c = nnet_files
    assert _diff(capsys, b, c) == (0, "0", "0")
    assert _diff(capsys, a, c) == (0, "1/1000", "1/1000")
    assert _diff(capsys, a, b) == (0, "1/1000", "1/1000")
    for x, y in ((a, b), (b, c), (a, c)):
        capsys.readouterr()
        assert main(["equiv", x, y, "--box", "file", "--epsilon", "0.005"]) == 0


def test_regions_on_a_box_of_width_zero(tmp_path, capsys):
    """Adversarial finding (fixed): 0 regions, complete, on a nonempty domain; now the slice's
    regions (``regions`` walks the free coordinates)."""
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                               "layers": [{"weight": [[1, 1], [-1, 2]], "bias": [0, "1/2"]},
                                          {"weight": [[1, 1]], "bias": [0]}]}))
    capsys.readouterr()
    code = main(["regions", str(net), "--box", "0:1,1:1", "--json"])
    out = capsys.readouterr().out
    # on the segment [0, 1] x {1} both neurons are on (x + 1 > 0, 5/2 - x > 0): one region
    assert code == 0 and json.loads(out)["number_of_regions"] == 1
