"""Budgets from the session-34 audit of real material: reading the files counts, and a decided
shallow equivalence whose certificate the budget stops is undecided (exit 3), not a late answer."""

from __future__ import annotations

import json

from algebra.network import Network
from semialgebraic.budget import BudgetExhausted
from semialgebraic.cli import main


def _write(path, net):
    path.write_text(json.dumps(net.to_dict()))
    return str(path)


def test_equal_forms_whose_path_the_budget_stops_are_undecided(tmp_path, capsys, monkeypatch):
    """equiv of two 768-3072-768 MLP blocks, --timeout 5: the canonical forms were equal after
    1.6 s and the symmetry path took 10 s more, answered at 15 s (exit 0).  Now the path stops at
    the budget: undecided, saying the forms are equal, exit 3."""
    from semialgebraic.shallow import paths
    a = Network.from_rows([[[1, 2], [3, -1]], [[1, -2]]], [[1, 0], [5]])
    b = Network.from_rows([[[3, -1], [2, 4]], [[-2, "1/2"]]], [[0, 2], [5]])
    pa, pb = _write(tmp_path / "a.json", a), _write(tmp_path / "b.json", b)
    assert main(["equiv", pa, pb]) == 0
    capsys.readouterr()

    def spent():
        raise BudgetExhausted("timeout of 5 s reached")
    monkeypatch.setattr(paths, "checkpoint", spent)
    assert main(["equiv", pa, pb, "--timeout", "5"]) == 3
    out = capsys.readouterr().out
    assert out.startswith("undecided") and "canonical forms are equal" in out
    assert "before the symmetry path certificate was built" in out


def test_ctrl_c_gives_absorb_and_recover_their_partial_report(tmp_path, capsys, monkeypatch):
    """Budget audit M4: Ctrl-C during absorb or recover printed only 'interrupted (Ctrl-C)';
    now the partial report, exit 3 (recover: the bends found so far)."""
    from semialgebraic.commands import absorb as absorb_cmd
    from semialgebraic.recover import bends
    block = tmp_path / "blk.json"
    block.write_text(json.dumps({"format": "netfibers.block", "version": 1, "activation": "relu",
                                 "w_up": [[1, 0], [0, 1]], "w_down": [[1, 0], [0, 1]]}))

    def interrupted(*a, **k):
        raise KeyboardInterrupt
    monkeypatch.setattr(absorb_cmd, "absorbable", interrupted)
    assert main(["absorb", str(block)]) == 3
    assert "undecided: interrupted (Ctrl-C)" in capsys.readouterr().out
    net = Network.from_rows([[[1, 2], [3, -1]], [[1, -2]]], [[1, 0], [5]])
    calls = [0]
    real = bends._Counted.__call__

    def counted(self, x):
        calls[0] += 1
        if calls[0] > 400:
            raise KeyboardInterrupt
        return real(self, x)
    monkeypatch.setattr(bends._Counted, "__call__", counted)
    r = bends.recover(bends.NetworkOracle(net), 2, 1)
    assert not r.complete and r.network is None and any("interrupted (Ctrl-C)" in n for n in r.notes)
