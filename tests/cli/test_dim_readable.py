"""``dim``'s text stays readable on large nets: a run of more than ``display.GROUPED`` deficit
lines of one kind is cut to three and a count, an evidence list to ``SHOWN`` neurons and a
count; ``--json`` keeps every line."""

import json

from algebra.network import Network
from semialgebraic.cli import main
from semialgebraic.commands.display import GROUPED, grouped_lines


def _many_dead(tmp_path, dead=20):
    rows = [[1, 0], [0, 1], [1, 1]] + [[0, 0]] * dead
    bias = [0, 0, -1] + [-1] * dead
    net = Network.from_rows([rows, [[1, 1, -1] + [2] * dead]], [bias, [0]])
    path = tmp_path / "n.json"
    path.write_text(json.dumps(net.to_dict()))
    return path


def test_a_run_of_dead_neurons_is_counted_and_json_keeps_them(tmp_path, capsys):
    path = _many_dead(tmp_path)
    assert main(["dim", str(path)]) == 0
    out = capsys.readouterr().out
    assert "dead neuron (1, 3): 4 parameters free" in out and "dead neuron (1, 5)" in out
    assert "dead neuron (1, 6)" not in out
    assert "... and 17 more like it (--json lists them all)" in out
    assert main(["dim", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    text = json.dumps(data)
    assert all(f"dead neuron (1, {i}): 4 parameters free" in text for i in range(3, 23))


def test_grouping_keeps_short_runs_and_the_order_of_kinds():
    lines = ([f"dead neuron (1, {i}): 9 parameters free" for i in range(GROUPED)]
             + ["layer 1: a note"] + [f"neuron (2, {i}) is always active: x" for i in range(GROUPED + 1)])
    out = grouped_lines(lines)
    assert out[:GROUPED + 1] == lines[:GROUPED + 1]              # a run of GROUPED: kept whole
    assert out[GROUPED + 1:] == lines[GROUPED + 1:GROUPED + 4] + [
        f"... and {GROUPED - 2} more like it (--json lists them all)"]


def test_analyze_counts_them_too(tmp_path, capsys):
    rows = [[1, 0, 1], [0, 1, -1], [1, 1, 1]] + [[0, 0, 0]] * 20
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], rows, [[1, 1, -1] + [2] * 20]],
                            [[0, 0, -1], [0, 0, -1] + [-1] * 20, [0]])
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(net.to_dict()))
    main(["analyze", str(path), "--timeout", "20"])
    out = capsys.readouterr().out
    assert "dead neuron (2, 5): 5 parameters free" in out and "dead neuron (2, 6)" not in out
    assert "... and 17 more like it (--json lists them all)" in out


def test_the_work_line_names_r39_for_split_neurons(tmp_path, monkeypatch, capsys):
    import semialgebraic.dimension.functional as fmod
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    net = Network.from_rows([[[1, 0], [2, 0], [1, 1]], [[1, 1, -1]]], [[1, 2, -1], [0]])   # a split neuron
    path = tmp_path / "split.json"
    path.write_text(json.dumps(net.to_dict()))
    assert main(["dim", str(path)]) == 0
    assert "classified exactly (three-layer-fibers R38, R39)" in capsys.readouterr().out
