"""A Ctrl-C that lands between two regions of the walk, outside the walk's own frame.

The region walk is a generator that catches KeyboardInterrupt (the Ctrl-C, or the budget's
alarm) and ends with its regions so far.  A signal lands wherever the interpreter next checks
for one: while the walk runs, almost always inside it, but between a ``yield`` and the walk's
next resumption the consumer's frame runs (a comprehension over the walk, the walk object's
``__next__``).  A Ctrl-C there escaped the command: ``conserved`` exited 3 with
"interrupted (Ctrl-C)" and no partial report, ~1 in 300 of the Ctrl-Cs of a niced loop (s44's
open finding).  Here the signal is simulated exactly there: a trace function raises
KeyboardInterrupt at the first line any frame runs after the walk yielded its k-th region."""
from __future__ import annotations

import io
import json
import sys
from contextlib import redirect_stdout

import pytest

from algebra.network import Network
from semialgebraic.budget import Budget
from semialgebraic.regions import regions


def _net() -> Network:
    """2-4-4-1 with a few dozen regions on R^2."""
    W1 = [[1, 0], [0, 1], [1, -1], [1, 2]]
    W2 = [[1, -1, 1, 0], [0, 1, -1, 1], [1, 1, 0, -1], [-1, 0, 1, 1]]
    W3 = [[1, -1, 2, 1]]
    return Network.from_rows([W1, W2, W3], [[0, 1, -1, 2], [1, 0, -1, 0], [0]])


class _LandsAfterYield:
    """A trace function: after the walk's generator has yielded *k* regions, the next line run
    by any frame raises KeyboardInterrupt there (once)."""

    def __init__(self, k: int):
        self.k, self.yields, self.fired, self.where = k, 0, False, None

    def __call__(self, frame, event, arg):
        if self.fired:
            return None
        code = frame.f_code
        if code.co_name == "_walk" and code.co_filename.endswith("walk.py"):
            if event == "return" and arg is not None:     # a yield (the end returns None)
                self.yields += 1
            return self
        if event == "line" and self.yields >= self.k:
            self.fired, self.where = True, code.co_name
            raise KeyboardInterrupt
        return self


def _traced(fn, k):
    tracer = _LandsAfterYield(k)
    sys.settrace(tracer)
    try:
        return fn(), tracer
    except KeyboardInterrupt:        # (not raised on: it would end pytest's whole session)
        pytest.fail(f"the Ctrl-C escaped, from the frame {tracer.where}")
    finally:
        sys.settrace(None)


@pytest.mark.parametrize("consume", ["patterns", "list", "for"])
def test_a_ctrl_c_between_two_regions_ends_the_walk_with_its_regions(consume):
    total = len(list(regions(_net())))
    assert total >= 8
    walk = regions(_net(), budget=Budget())

    def run():
        if consume == "patterns":
            return walk.patterns()
        if consume == "list":
            return [r.pattern for r in list(walk)]
        out = []
        try:                 # a consumer's own loop must catch it: the walk cannot
            for r in walk:
                out.append(r.pattern)
        except KeyboardInterrupt:
            walk.stop()
        return out

    found, tracer = _traced(run, 3)
    assert tracer.fired
    assert 2 <= len(found) <= 3 < total          # the regions before the Ctrl-C
    assert walk.complete is False
    assert walk.budget.interrupted and walk.budget.reason == "interrupted (Ctrl-C)"
    assert list(walk) == []                      # the walk is over


def test_conserved_gives_its_partial_report_after_a_ctrl_c_between_two_regions(tmp_path):
    """The command level: before, the KeyboardInterrupt left ``cmd_conserved`` from its
    comprehension over the walk (exit 3, no report)."""
    from semialgebraic.cli import main
    path = tmp_path / "net.json"
    path.write_text(json.dumps(_net().to_dict()))
    out = io.StringIO()
    with redirect_stdout(out):
        code, tracer = _traced(lambda: main(["conserved", str(path), "--json"]), 4)
    assert tracer.fired
    d = json.loads(out.getvalue())
    assert code == 3
    assert d["complete"] is False
    assert d["reason"].startswith("interrupted (Ctrl-C) during the region walk (")
    assert d["patterns"] in (3, 4)
