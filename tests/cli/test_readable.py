"""Answers a person can read (issue 17, parts 3-5): verdict labels name the deciding method, a
counterexample prints a(x), b(x) and a(x) - b(x), regions vs linear pieces, analyze's summary."""

import json
from fractions import Fraction

from flint import fmpq

from algebra import Network, save

EX = "algebra/examples/"




def test_equiv_outside_the_bottleneck_theory_is_labelled_by_its_counterexample(tmp_path, capsys, run):
    a = Network.from_rows([[[1, 0], [0, 1]], [[0, 1], [1, 1]], [[1, 1]]], [[0, 0], [1, -1], [0]])
    b = a.with_parameter("b3[0]", 1)                               # a - b = -1 everywhere
    save(a, tmp_path / "a.json"), save(b, tmp_path / "b.json")
    code, out, _ = run("equiv", tmp_path / "a.json", tmp_path / "b.json")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("not equivalent (exact counterexample): outside the bottleneck "
                               "theory (a: G2")
    assert "bottleneck-canon" not in lines[0] and "a(x) != b(x)" not in lines[0]
    code, js, _ = run("equiv", tmp_path / "a.json", tmp_path / "b.json", "--json")
    cert = json.loads(js)["certificate"]
    x = [Fraction(t) for t in cert["x"]]
    ax, bx = Fraction(cert["a_x"][0]), Fraction(cert["b_x"][0])
    assert ax - bx == -1
    assert lines[1] == f"  x = ({', '.join(str(v) for v in x)})"
    assert lines[2] == f"  output 0: a(x) = {ax}, b(x) = {bx}, a(x) - b(x) = -1"


def test_equiv_counterexample_with_long_rationals_prints_decimals(tmp_path, capsys, run):
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = a.with_parameter("W2[0,0]", fmpq(10 ** 15 + 1, 10 ** 15))
    save(a, tmp_path / "a.json"), save(b, tmp_path / "b.json")
    code, out, _ = run("equiv", tmp_path / "a.json", tmp_path / "b.json")
    assert code == 1
    row = next(line for line in out.splitlines() if line.startswith("  output 0:"))
    _, js, _ = run("equiv", tmp_path / "a.json", tmp_path / "b.json", "--json")
    cert = json.loads(js)["certificate"]
    d = Fraction(cert["a_x"][0]) - Fraction(cert["b_x"][0])
    assert d != 0 and "a(x) - b(x) = ≈ " in row
    shown = Fraction(row.split("a(x) - b(x) = ≈ ")[1])
    assert abs(shown - d) <= abs(d) / 10 ** 4
    assert out.rstrip().endswith("(≈: decimal approximation; exact rationals in --json or with "
                                 "--exact)")
    _, exact, _ = run("equiv", tmp_path / "a.json", tmp_path / "b.json", "--exact")
    assert f"a(x) - b(x) = {d}" in exact and "≈" not in exact


def test_regions_reports_regions_and_linear_pieces(tmp_path, capsys, run):
    code, out, _ = run("regions", EX + "t1_masked.json", "--box", "-1,1", "--json")
    data = json.loads(out)
    assert code == 0 and data["number_of_regions"] == 4 and data["number_of_linear_pieces"] == 1
    assert [r["linear_piece"] for r in data["regions"]] == [0, 0, 0, 0]
    code, out, _ = run("regions", EX + "t1_masked.json", "--box", "-1,1")
    assert out.splitlines()[0] == "4 activation regions, 1 linear piece"
    # |x| = relu(x) + relu(-x), plus a neuron off on the whole box: 2 regions, 2 pieces
    net = Network.from_rows([[[1], [-1], [1]], [[1, 1, 0]]], [[0, 0, -5], [0]])
    save(net, tmp_path / "n.json")
    code, out, _ = run("regions", tmp_path / "n.json", "--box", "-1,1", "--json")
    data = json.loads(out)
    assert data["number_of_regions"] == 2 and data["number_of_linear_pieces"] == 2
    # ... and with the third neuron's output weight 0 and its kink inside: 3 regions, 2 pieces
    net = Network.from_rows([[[1], [-1], [1]], [[1, 1, 0]]], [[0, 0, "-1/2"], [0]])
    save(net, tmp_path / "m.json")
    code, out, _ = run("regions", tmp_path / "m.json", "--box", "-1,1", "--json")
    data = json.loads(out)
    assert data["number_of_regions"] == 3 and data["number_of_linear_pieces"] == 2
    pieces = {tuple(r["point"]): r["linear_piece"] for r in data["regions"]}
    pos = [p for pt, p in pieces.items() if Fraction(pt[0]) > 0]
    assert len(set(pos)) == 1 and len(pos) == 2                     # the two x > 0 regions join


def test_analyze_summary_first_and_no_repeated_phrase(capsys, run):
    code, out, _ = run("analyze")
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "== summary"
    assert lines[2].startswith("what it is: a ReLU network with two hidden layers (widths 2-2-2-1, "
                               "15 parameters)")
    assert lines[3].startswith("identifiable: no - second-layer neuron(s) [1] are dead")
    assert "first-layer neuron 0 is masked" in lines[3]
    assert any(l.startswith("functional dimension 7 of 15 parameters: the weights can move in 8 ")
               for l in lines[:10])
    demo = next(l for l in lines[:10] if l.startswith("equivalence demo:"))
    assert "proved equivalent (certificate re-checked: True)" in demo
    assert "proved different (exact counterexample re-checked: True)" in demo
    assert "explain" in "\n".join(lines[:12])
    assert out.index("== summary") < out.index("== structure")
    assert "identifiable up to permutation and positive scaling: not identifiable" not in out
    assert out.count("up to permutation and positive scaling") == 1
    assert "== equivalence (R20): a demonstration of the exact equivalence test" in out


def test_identify_says_the_phrase_once(capsys, run):
    code, out, _ = run("identify", EX + "t5_perm_scale_a.json")
    assert code == 0
    assert out.strip() == ("identifiable up to permutation and positive scaling: every row of "
                           "[W2 | b2] has mixed signs, no column is masked, and no set of rows "
                           "flips together")
    code, out, _ = run("analyze", EX + "t5_perm_scale_a.json")
    assert "identifiable: yes - the function determines the weights up to permuting neurons" in out
    assert out.count("identifiable up to permutation and positive scaling") == 1


LONG = Network.from_rows([[["1234567/1000003", 0], [0, "7654321/999983"]],
                          [["1000033/999961", "-3333331/1000037"], [-2, -1]], [["5/3", 1]]],
                         [["1/7", "-22/13"], ["-1234577/999979", -3], [0]])


def test_fiber_and_symmetries_print_long_rationals_as_decimals(tmp_path, run):
    from semialgebraic.bottleneck import structure
    path = tmp_path / "long.json"
    save(LONG, path)
    lo, hi = structure(LONG).s6_interval
    assert str(lo) == "-1234528851497/1000011999307" and str(hi) == "3/2"   # the exact interval
    code, out, _ = run("symmetries", path)
    assert code == 0 and "S6 interval [≈-1.2345, 3/2]" in out and str(lo) not in out
    assert out.rstrip().endswith("exact rationals in --json or with --exact)")
    code, out, _ = run("symmetries", path, "--exact")
    assert f"S6 interval [{lo}, 3/2]" in out and "≈" not in out
    code, out, _ = run("fiber", path)
    assert code == 0 and "≈-1.6668 + ≈0.81000*W1[0,0]*W2[0,0]*W3[0,0] = 0" in out
    assert "5000165/2999883" not in out and "22/13*W1[1,1]" in out             # short ones stay exact
    code, out, _ = run("fiber", path, "--exact")
    assert "-5000165/2999883 + 1000003/1234567*W1[0,0]*W2[0,0]*W3[0,0] = 0" in out and "≈" not in out
    code, out, _ = run("analyze", path)
    assert "S6 interval [≈-1.2345, 3/2]" in out


def test_long_counts_labels_and_neuron_lists_read_well():
    from math import factorial
    from semialgebraic.bottleneck._structure import _grouped
    from semialgebraic.commands.analyze import _plural
    from semialgebraic.commands.bottleneck import component_label
    assert _plural(factorial(32) * factorial(16), "component") == "≈5.5054e48 components"
    assert _plural(1, "orbit") == "1 orbit" and _plural(8, "component") == "8 components"
    assert component_label({"flips": [], "s7": [], "s8": False}) == "(the component of the network itself)"
    assert component_label('{"flips": [0, 2], "s7": [1], "s8": true}') == "(S5 flips [0, 2], S7 on [1], S8)"
    # one hidden layer: a flipped component was labelled as the network's own (session 32)
    assert component_label({"flipped_neurons": []}) == "(the component of the network itself)"
    assert component_label({"flipped_neurons": [0, 1]}).startswith("(neurons [0, 1] flipped")
    assert _grouped(("switching",) * 16) == "all 16 switching"
    assert _grouped(("switching", "dead", "switching", "linear", "dead")) == \
        "switching [0, 2], dead [1, 4], linear [3]"
    assert _grouped(("switching", "dead")) == "0:switching, 1:dead"


def test_analyze_one_hidden_layer_prints_words_not_reprs(tmp_path, capsys, run):
    """Bug (fixed in semialgebraic/shallow/analysis.py; found by the readability fuzz): analyze
    on a one-hidden-layer net printed ``fiber dimension Dimension(3: irredundant: …)`` and
    ``components None; orbits None`` on the orthant."""
    net = Network.from_rows([[[1, 2], [-1, 1], [3, -1]], [[1, -2, 1]]], [[0, 1, -1], [2]])
    save(net, tmp_path / "a.json")
    code, out, _ = run("analyze", tmp_path / "a.json", "--timeout", "20")
    assert code == 0
    lines = [l for l in out.splitlines() if "fiber dimension" in l and l.startswith("[")]
    assert len(lines) == 2, out
    assert "Dimension(" not in out and "None" not in out
    assert lines[0].startswith("[R^d] fiber dimension 3 (")                # 3 scalings
