"""A new user's day (session 18 "usertour"): problems found by running the product on real
material, each pinned by its values.

* ``diff`` by branch and bound and ``equiv --epsilon`` printed ``≈`` decimals without the note
  that says where the exact rationals are (README "Reading the answers"); ``emit`` now appends
  it to any answer that shows a ``≈``, once, and never with ``--exact`` or ``--json``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from algebra.network import Network
from semialgebraic.commands.display import EXACT_NOTE

# a(x) = relu(x), b(x) = (1 + 7/30000000000001)·relu(x) on [0, 1]: max |a - b| = 7/30000000000001
# at x = 1, a rational too long to print (display.SMALL)
A = Network.from_rows([[[1]], [[1]]], [[0], [0]])
B = Network.from_rows([[[1]], [["30000000000008/30000000000001"]]], [[0], [0]])
MAX = Fraction(7, 30000000000001)


@pytest.fixture
def pair(tmp_path):
    paths = []
    for name, net in (("a", A), ("b", B)):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(net.to_dict()))
        paths.append(str(p))
    return paths


def test_diff_bab_prints_the_exact_note_once(run, pair, tmp_path):
    cert = tmp_path / "c.json"
    code, out, err = run("diff", *pair, "--box", "0,1", "--method", "bab", "--certificate", cert)
    assert code == 0 and err == ""
    lines = out.strip().splitlines()
    assert lines[0].startswith("max |a - b| = ≈ 2.3333e-13 at x = (1), output 0")
    assert lines[-1] == EXACT_NOTE and out.count(EXACT_NOTE) == 1
    code, out, _ = run("verify", cert)
    assert code == 0 and out.startswith("VALID bab_bound certificate") and out.count(EXACT_NOTE) == 1


def test_diff_bab_exact_and_json_have_no_note(run, pair):
    code, out, _ = run("diff", *pair, "--box", "0,1", "--method", "bab", "--exact")
    assert code == 0 and "≈" not in out and EXACT_NOTE not in out
    assert out.startswith(f"max |a - b| = {MAX} at x = (1), output 0")
    code, out, _ = run("diff", *pair, "--box", "0,1", "--method", "bab", "--json")
    data = json.loads(out)
    assert Fraction(data["lower"]) == Fraction(data["upper"]) == MAX and data["complete"] is True


def test_equiv_epsilon_prints_the_exact_note(run, pair):
    code, out, _ = run("equiv", *pair, "--epsilon", "1/1000", "--box", "0,1")
    assert code == 0
    assert out.splitlines()[0].startswith("max |a - b| <= 1/1000 (branch and bound, certified: "
                                          "upper bound ≈ 2.3333e-13")
    assert out.strip().splitlines()[-1] == EXACT_NOTE
    code, out, _ = run("equiv", *pair, "--epsilon", "1/10000000000000", "--box", "0,1")
    assert code == 1 and out.startswith("max |a - b| > 1/10000000000000: |a_0 - b_0| = ≈ 2.3333e-13 at x = (1)")
    assert out.strip().splitlines()[-1] == EXACT_NOTE
    code, out, _ = run("equiv", *pair, "--epsilon", "1/1000", "--box", "0,1", "--exact")
    assert code == 0 and EXACT_NOTE not in out and "≈" not in out


# ``--slice P,D1,D2`` (plot) took no negative first number ("expected one argument") while the
# other coordinate options do; eval's and conserved's help still told the user to write ``=``
def test_negative_values_join_for_every_coordinate_option():
    from semialgebraic.cli import _join_negative_values
    assert _join_negative_values(["--slice", "-1,0,1,0,0,1"]) == ["--slice=-1,0,1,0,0,1"]
    assert _join_negative_values(["--slice", "-1/2,0;1,0;0,1"]) == ["--slice=-1/2,0;1,0;0,1"]
    assert _join_negative_values(["--x", "-1,2", "--json"]) == ["--x=-1,2", "--json"]
    assert _join_negative_values(["--slice", "-v"]) == ["--slice", "-v"]     # an option stays one


def test_eval_negative_first_coordinate_and_help(run):
    code, out, err = run("eval", "algebra/examples/masked_bottleneck.json", "--x", "-1,2")
    assert (code, out.strip(), err) == (0, "0", "")
    code, out, _ = run("eval", "--help")
    assert code == 0 and "--x=" not in out
    code, out, _ = run("conserved", "--help")
    assert code == 0 and "--box=" not in out


# ``equiv --epsilon`` that ran out of time wrote no certificate although it printed a certified
# interval (``diff`` writes the same bab_bound certificate when it stops): now it is written
def test_equiv_epsilon_undecided_writes_the_partial_certificate(run, pair, tmp_path):
    cert = tmp_path / "c.json"
    code, out, err = run("equiv", *pair, "--epsilon", str(MAX), "--box", "0,1",
                         "--timeout", "1e-9", "--certificate", cert)
    assert code == 3 and err == "" and out.startswith("undecided: max |a - b|")
    assert cert.exists()
    data = json.loads(cert.read_text())
    assert data["type"] == "bab_bound"
    code, out, _ = run("verify", cert, *pair)
    assert code == 0 and out.startswith("VALID bab_bound certificate")


# ``equiv --timeout`` did not reach the bottleneck fast path: its facet check ("every unmasked
# first-layer neuron bends on its facet") walked the cells of each facet exactly (n1 >= 3) with
# no deadline, minutes on a trained 64-32-16-10 digits net. The check is now the exact jump rule
# of three-layer-fibers G8 (polynomial, no walk), so even a spent budget still decides it: the
# hypotheses are decided (never assumed) and the answer carries its verified certificate.
T9 = "algebra/examples/t9_three_masked.json"     # n1 = 3: G8 by the jump rule


def test_equiv_tiny_timeout_still_decides_the_polynomial_g8_check(run, tmp_path):
    cert = tmp_path / "c.json"
    code, out, err = run("equiv", T9, T9, "--timeout", "1e-9", "--json", "--certificate", str(cert))
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["answer"] is True and "canonical forms are equal" in data["reason"]
    facet = [h for h in data["hypotheses"] if "bends on its facet" in h["name"]]
    assert len(facet) == 2 and all(h["holds"] is True for h in facet)
    assert run("verify", str(cert))[0] == 0


def test_equiv_with_time_left_still_decides_by_canon(run):
    code, out, err = run("equiv", T9, T9, "--timeout", "600")
    assert (code, err) == (0, "")
    assert out.startswith("equivalent (bottleneck-canon): canonical forms are equal")


def test_fiber_outside_the_theory_says_non_generic_once_with_readable_witness(tmp_path):
    """`fiber` of a 3-8-8-2 net (n1 > d: outside the bottleneck theory): one readable line,
    no doubled prefix, no Python dict (user review, session 18)."""
    import json
    import subprocess
    import sys
    layers = [{"weight": [[str((i * 3 + j) % 7 - 3) for j in range(3)] for i in range(8)], "bias": ["1"] * 8},
              {"weight": [[str((i + 2 * j) % 5 - 2) for j in range(8)] for i in range(8)], "bias": ["0"] * 8},
              {"weight": [["1"] * 8, ["-1"] * 8], "bias": ["0", "1"]}]
    p = tmp_path / "small.json"
    p.write_text(json.dumps({"layers": layers}))
    r = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "fiber", str(p)],
                       capture_output=True, text=True)
    assert r.returncode == 3
    assert r.stdout.strip() == (
        "no exact fiber listing for widths 3-8-8-2: `fiber` lists the fibers of one hidden layer and "
        "of three-layer bottlenecks (n1 <= d) (non-generic: G0 two hidden layers, n1 <= d at n1 = 8, "
        "d = 3); `netfibers dim` gives the fiber's dimension near these weights, `netfibers "
        "symmetries` the symmetries they show")        # (what to run instead: session 37)
