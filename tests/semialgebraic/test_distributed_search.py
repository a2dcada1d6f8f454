"""The distributed branch and bound (issue 19, part 3): open cells as tasks that split when
they exceed their node budget, the certified interval kept at the client, the ``bab_cover``
certificate over the finished cells, determinism, partial results and checkpoint/resume.
Oracle: :func:`semialgebraic.bab.diff_bounds` on the whole box, and exact Fraction evaluation
of the networks at the certificate's point."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from algebra.network import Network
from semialgebraic.bab import diff_bounds
from semialgebraic.distributed import cluster, distributed_diff, search
from semialgebraic.verify import verify, verify_part


def _pair(seed=3, widths=(2, 5, 5, 1)):
    rng = random.Random(seed)

    def net():
        W = [[[rng.randint(-3, 3) for _ in range(widths[l])] for _ in range(widths[l + 1])]
             for l in range(len(widths) - 1)]
        b = [[rng.randint(-2, 2) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
        return W, b
    return net(), net()


ROWS_A, ROWS_B = _pair()
A, B = Network.from_rows(*ROWS_A), Network.from_rows(*ROWS_B)
BOX = [(-1, 1), (-1, 1)]


def ctrl_c_at_call(monkeypatch, module, name: str, n: int) -> list:
    """Monkeypatch ``module.name`` (a task function) to raise KeyboardInterrupt at its *n*-th
    call, as Ctrl-C in the client would; the list of the calls made (shared by the Ctrl-C tests
    of the distributed searches)."""
    real, calls = getattr(module, name), []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == n:
            raise KeyboardInterrupt
        return real(*args)
    monkeypatch.setattr(module, name, interrupted)
    return calls


def _frac_eval(W, b, x):
    """max |a - b| oracle: the networks evaluated in Fraction arithmetic."""
    h = [Fraction(v) for v in x]
    for l, (Wl, bl) in enumerate(zip(W, b)):
        h = [sum(Fraction(w) * v for w, v in zip(row, h)) + Fraction(c) for row, c in zip(Wl, bl)]
        if l < len(W) - 1:
            h = [max(v, Fraction(0)) for v in h]
    return h


@pytest.fixture(scope="module")
def whole():
    return diff_bounds(A, B, BOX)


@pytest.fixture(scope="module")
def split_run():
    return distributed_diff(A, B, BOX, cells=2, workers=0, nodes=3)


def test_cells_over_budget_split_and_the_cover_certifies_the_whole_box(whole, split_run):
    r = split_run
    assert whole.complete and r.complete and r.lower == r.upper == whole.lower
    assert r.tasks > 2 and r.cells > 2            # cells split and their halves ran as tasks
    cert = r.certificate
    assert cert["type"] == "bab_cover" and len(cert["cells"]) == r.cells and verify(cert)[0]
    assert all(verify_part(cert, k)[0] for k in range(r.cells))
    # the cover: cell volumes sum to the box's (Fraction oracle), every cell bound <= upper
    vol = sum((Fraction(str(c["box"][0][1])) - Fraction(str(c["box"][0][0])))
              * (Fraction(str(c["box"][1][1])) - Fraction(str(c["box"][1][0]))) for c in cert["cells"])
    assert vol == 4
    assert all(Fraction(str(c["upper"])) <= Fraction(str(r.upper)) for c in cert["cells"])
    # the lower bound is attained at the point (independent evaluation)
    x = [Fraction(str(v)) for v in cert["point"]]
    ya, yb = _frac_eval(*ROWS_A, x), _frac_eval(*ROWS_B, x)
    assert max(abs(u - v) for u, v in zip(ya, yb)) == Fraction(str(r.lower))


@pytest.mark.slow
def test_the_result_is_deterministic(split_run):
    again = distributed_diff(A, B, BOX, cells=2, workers=0, nodes=3)
    assert (again.lower, again.upper, again.tasks) == (split_run.lower, split_run.upper, split_run.tasks)
    assert again.per_cell == split_run.per_cell


def test_a_dropped_cell_or_a_lowered_bound_is_refused(split_run):
    cert = split_run.certificate
    assert not verify(dict(cert, cells=cert["cells"][1:]))[0]
    assert not verify(dict(cert, upper=str(Fraction(str(cert["upper"])) - Fraction(1, 3))))[0]


def test_a_timeout_gives_a_certified_partial_interval(whole):
    r = distributed_diff(A, B, BOX, cells=2, workers=0, nodes=1, timeout=0.01)
    assert r.lower <= whole.lower
    if r.upper is not None:
        assert whole.lower <= r.upper and verify(r.certificate)[0]
    assert not r.complete or r.lower == r.upper == whole.lower


def test_progress_shows_the_interval_and_open_cells(capsys):
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    b = Network.from_rows([[[1], [-1]], [[1, "1/2"]]], [[0, 1], [0]])
    r = distributed_diff(a, b, [(-2, 2)], cells=2, workers=0, nodes=1, progress=True)
    assert r.complete and str(r.lower) == str(r.upper) == "3/2"        # (1 - x)/2 at x = -2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines and all(ln.startswith("search diff: max |a - b| in [") for ln in lines)
    assert "open cells" in lines[0] and lines[-1].split("; ")[1].startswith("0 open cells")


class _Counting(cluster.SerialExecutor):
    def __init__(self):
        self.calls = 0

    def map_unordered(self, fn, calls):
        calls = list(calls)
        self.calls += len(calls) if fn.__name__ == "diff_cell" else 0
        return super().map_unordered(fn, calls)


def test_checkpoint_resumes_a_split_search(tmp_path, split_run):
    ck = tmp_path / "s.ckpt"
    r1 = distributed_diff(A, B, BOX, cells=2, workers=0, nodes=3, checkpoint=str(ck))
    lines = ck.read_text().splitlines(keepends=True)
    assert json.loads(lines[0])["search"] and len(lines) == 1 + r1.tasks
    keep = 1 + r1.tasks // 2
    ck.write_text("".join(lines[:keep]) + lines[keep][:7])       # half the tasks, a torn line
    ex = _Counting()
    r2 = distributed_diff(A, B, BOX, cells=2, nodes=3, checkpoint=str(ck), executor=ex)
    assert ex.calls == r1.tasks - (keep - 1)
    assert (r2.lower, r2.upper, r2.per_cell) == (r1.lower, r1.upper, r1.per_cell) and r2.verified
    ex = _Counting()                                            # complete checkpoint: no task runs
    r3 = distributed_diff(A, B, BOX, cells=2, nodes=3, checkpoint=str(ck), executor=ex)
    assert ex.calls == 0 and r3.per_cell == r1.per_cell


def test_ctrl_c_in_the_cells_gives_the_partial_interval(monkeypatch):
    """``search diff --cells`` (``distributed_diff``): Ctrl-C in a task gives the partial
    report (the cells done; the wave cut stays open), not only "netfibers: interrupted"."""
    whole = distributed_diff(A, B, BOX, cells=4, workers=0)
    ctrl_c_at_call(monkeypatch, search, "diff_cell", 3)
    r = distributed_diff(A, B, BOX, cells=4, workers=0)
    assert not r.complete and r.reason == "interrupted (Ctrl-C)" and not r.verified
    assert r.lower <= whole.lower and (r.upper is None or whole.upper <= r.upper)
