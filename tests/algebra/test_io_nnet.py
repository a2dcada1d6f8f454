"""The NNet reader (issue 15 part 6): exact decimals, the raw weight network on normalised
inputs, the normalisation in the provenance and the normalised input box; bad files are one-line
input errors naming the file (exit 2 from the CLI)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from algebra import load
from algebra.exceptions import InputError
from algebra.io.nnet import nnet_input_box, nnet_normalisation
from semialgebraic.cli import main

ROOT = Path(__file__).resolve().parents[2]
ACAS = ROOT / "benchmarks" / "data" / "ACASXU_run2a_1_1_batch_2000.nnet"

SMALL = """// hand-written 2-3-1 network
// second comment line
2,2,1,3,
2,3,1,
0,
-1.5,0,
1.5,10,
0.5,5,1e-1,
3,10,2,
1,0.1,
-2,3e-2,
0.25,-0.75,
0.001,
-1,
0.5,
1,-2,1.25,
-0.1,
"""


def _write(tmp_path, text, name="net.nnet"):
    p = tmp_path / name
    p.write_text(text)
    return p


def _frac(s: str) -> Fraction:
    return Fraction(s)          # Fraction reads decimal text exactly: an independent oracle


def test_small_file_exact_weights_and_normalisation(tmp_path):
    net = load(_write(tmp_path, SMALL))
    assert net.widths == (2, 3, 1)
    W1 = [[Fraction(str(v)) for v in row] for row in net.weights[0].to_rows()]
    assert W1 == [[1, _frac("0.1")], [-2, _frac("3e-2")], [_frac("0.25"), _frac("-0.75")]]
    assert [Fraction(str(v)) for v in net.biases[0]] == [_frac("0.001"), -1, _frac("0.5")]
    assert [[Fraction(str(v)) for v in r] for r in net.weights[1].to_rows()] == [[1, -2, _frac("1.25")]]
    assert Fraction(str(net.biases[1][0])) == _frac("-0.1")
    norm = nnet_normalisation(net)
    assert [Fraction(str(v)) for v in norm["input_means"]] == [_frac("0.5"), 5]
    assert [Fraction(str(v)) for v in norm["input_ranges"]] == [3, 10]
    assert Fraction(str(norm["output_mean"])) == _frac("1e-1") and Fraction(str(norm["output_range"])) == 2
    box = [(Fraction(str(a)), Fraction(str(b))) for a, b in nnet_input_box(net)]
    assert box == [((_frac("-1.5") - _frac("0.5")) / 3, (_frac("1.5") - _frac("0.5")) / 3),
                   ((0 - 5) / Fraction(10), (10 - 5) / Fraction(10))]
    assert any("normalised inputs" in s and "ranges (3, 10)" in s for s in net.provenance)
    # value at a point against Fraction arithmetic (the raw network on normalised inputs)
    x = [Fraction(1, 3), Fraction(-2, 7)]
    h = [max(0, sum(w * v for w, v in zip(row, x)) + b)
         for row, b in zip(W1, [_frac("0.001"), -1, _frac("0.5")])]
    y = sum(w * v for w, v in zip([1, -2, _frac("1.25")], h)) + _frac("-0.1")
    assert Fraction(str(net([str(v) for v in x])[0])) == y


@pytest.mark.parametrize("text, problem", [
    (SMALL.replace("2,3,1,\n", "2,3,2,\n"), "layer sizes"),
    (SMALL.replace("0.25,-0.75,", "0.25,abc,"), "row 2 of W1"),
    (SMALL.replace("3,10,2,", "0,10,2,"), "range is zero"),
    (SMALL.rsplit("-0.1,", 1)[0], "ends before"),
    (SMALL + "1,\n", "unexpected data"),
    ("", "ends before the header"),
    (SMALL.replace("1,0.1,", "1,0.1,7,"), "expected 2 values"),
])
def test_bad_files_are_one_line_errors(tmp_path, capsys, text, problem):
    p = _write(tmp_path, text)
    with pytest.raises(InputError, match=problem):
        load(p)
    assert main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(p) in err and problem in err


def test_info_states_the_normalisation(tmp_path, capsys):
    p = _write(tmp_path, SMALL)
    assert main(["info", str(p)]) == 0
    out = capsys.readouterr().out
    assert "normalised inputs" in out and "ranges (3, 10)" in out


def test_box_file_is_the_normalised_input_box(tmp_path, capsys):
    p = _write(tmp_path, SMALL)
    assert main(["regions", str(p), "--box", "file", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["domain"]["lo"] == ["-2/3", "-1/2"] and data["domain"]["hi"] == ["1/3", "1/2"]
    assert data["complete"] and data["number_of_regions"] >= 1
    q = tmp_path / "plain.json"
    q.write_text(json.dumps(load(p).to_dict()))
    assert main(["regions", str(q), "--box", "file"]) == 2
    assert "not read from a .nnet file" in capsys.readouterr().err


def test_acas_xu_file_matches_a_float_evaluation():
    """The committed ACAS Xu network (5-50x6-5, Julian et al., CC BY 4.0) read exactly agrees with a
    float64 evaluation of the same decimals at a few normalised points."""
    net = load(ACAS)
    assert net.widths == (5, 50, 50, 50, 50, 50, 50, 5)
    lines = [ln for ln in ACAS.read_text().splitlines() if not ln.startswith("//")]
    vals = [float(t) for ln in lines[7:] for t in ln.split(",") if t.strip()]
    Ws, bs, k = [], [], 0
    for a, b in zip(net.widths, net.widths[1:]):
        Ws.append(np.array(vals[k:k + a * b]).reshape(b, a))
        k += a * b
        bs.append(np.array(vals[k:k + b]))
        k += b
    assert k == len(vals)
    box = nnet_input_box(net)
    mins, maxs, means, ranges = ([Fraction(t) for t in ln.split(",") if t.strip()] for ln in lines[3:7])
    assert [(Fraction(str(lo)), Fraction(str(hi))) for lo, hi in box] == \
        [((a - m) / r, (b - m) / r) for a, b, m, r in zip(mins, maxs, means, ranges)]
    assert mins[0] == 0 and means[0] == Fraction("19791.091") and ranges[0] == 60261
    rng = np.random.default_rng(0)
    for _ in range(4):
        x = [Fraction(int(rng.integers(-1000, 1000)), 2000) for _ in range(5)]
        h = np.array([float(v) for v in x])
        for W, b in zip(Ws[:-1], bs[:-1]):
            h = np.maximum(W @ h + b, 0)
        y = Ws[-1] @ h + bs[-1]
        exact = [float(Fraction(str(v))) for v in net([str(v) for v in x])]
        assert np.allclose(exact, y, rtol=1e-9, atol=1e-9)
