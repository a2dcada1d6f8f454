"""`netfibers analyze` on every kind of input: bottleneck (default), one hidden layer, block,
deeper network; values asserted."""

import json

import pytest

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


@pytest.mark.parametrize("name, failed, fd", [("p5_rank1", "G6", 10), ("t1_endpoint_3_2", "G2", 7)])
def test_non_generic_bottleneck_still_reports_what_holds(run, name, failed, fd):
    from algebra import load
    from semialgebraic.dimension import functional_dimension
    net = load(EX + name + ".json")
    assert functional_dimension(net).value == fd                 # the general exact method
    code, out, _ = run("analyze", EX + name + ".json", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["non_generic"]["failed"].startswith(failed) and data["non_generic"]["means"]
    assert data["identifiability"]["answer"] is None
    assert data["symmetries"] == {"generators": ["S1", "S2"], "certified_orbit_dimension": 4}
    assert data["functional_dimension"]["functional_dimension"] == fd
    assert data["fiber"]["dimension"] == net.n_parameters - fd >= 4
    t, p = data["equivalence"]["transformed"], data["equivalence"]["perturbed"]
    assert t["answer"] is True and t["certificate_verified"] is True
    assert p["answer"] is False and p["certificate_verified"] is True
    ax, bx = load(EX + name + ".json"), json.loads(json.dumps(p["copy"]))
    from algebra.io import network_from_dict
    x = p["point"]
    assert ax(x) != network_from_dict(bx)(x)                      # the counterexample, re-evaluated
    code, out, _ = run("analyze", EX + name + ".json")
    summary = out.split("== details")[0]
    assert f"generic: no - {failed}" in summary and "what that means" in out
    assert f"functional dimension {fd} of {net.n_parameters}" in summary
    assert "identifiable: undecided" in summary and "proved equivalent" in summary


def test_deep_network_interval_is_printed_one_clause_per_line(tmp_path, run):
    """A deeper net whose functional dimension the budget leaves as an interval: the reason's
    clauses one per line under the interval, as ``dim`` prints them (it was one paragraph in
    brackets: ACAS Xu's ran to ~600 characters on one line)."""
    import random
    rng = random.Random(3)
    widths = [6, 24, 24, 24, 1]
    net = Network.from_rows([[[rng.randint(-4, 4) for _ in range(a)] for _ in range(b)]
                             for a, b in zip(widths, widths[1:])],
                            [[rng.randint(-2, 2) for _ in range(b)] for b in widths[1:]])
    save(net, tmp_path / "d.json")
    code, out, err = run("analyze", str(tmp_path / "d.json"), "--timeout", "2")
    head = next(line for line in out.splitlines() if line.startswith("functional dimension"))
    if head.startswith("functional dimension between"):
        assert code == 3 and head.endswith(" parameters:"), head
        after = out.split(head + "\n", 1)[1].splitlines()
        assert after[0].startswith("  not closed:") and "(not closed" not in out
    else:                                  # exact on this machine: the one-line form
        assert "between" not in head
