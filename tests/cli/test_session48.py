"""Session 48: ``conserved`` exits 0 when its count is exact although the region walk was cut
(s48 fibers audit F1: exit 3 beside "12 independent conservation laws (certified ...)").  With
an incomplete set of patterns the lower bound counts only the global rescaling laws
(three-layer-fibers R23: conserved on every pattern), and more patterns can only lower the
fields' upper bound, so lower = upper is the count on every region."""

from __future__ import annotations

import json
from pathlib import Path

NET = Path(__file__).resolve().parents[1] / "cases" / "conserved_bottleneck_4_4_8_2.json"


def test_an_exact_count_from_a_cut_walk_exits_0(run):
    code, out, _ = run("conserved", NET, "--max-regions", "40", "--json")
    got = json.loads(out)
    assert code == 0, out
    assert got["exact"] is True and got["number_of_laws"] == 12
    assert got["complete"] is False and got["exact_with_incomplete_patterns"] is True
    code, out, _ = run("conserved", NET, "--max-regions", "40")
    assert code == 0 and "exact although the region walk was cut" in out


def test_bounds_from_a_cut_walk_still_exit_3(run):
    code, out, _ = run("conserved", NET, "--max-regions", "5", "--json")
    got = json.loads(out)
    assert code == 3 and got["exact"] is False
    assert got["lower"] == 12 and got["upper"] > 12
    assert "exact_with_incomplete_patterns" not in got


def test_the_whole_walk_agrees(run):
    code, out, _ = run("conserved", NET, "--json")
    got = json.loads(out)
    assert code == 0 and got["complete"] is True and got["number_of_laws"] == 12
