"""``benchmarks/probe_acas.py`` (issue 15): its float replay of the differential chain gives the
exact search's numbers, so its ceilings (α-CROWN slopes, ideal z bounds) measure the same bound.
Oracle: :meth:`semialgebraic.bab.search.Engine.node` (exact, no LP tightening)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from algebra.rationals import Q
from semialgebraic.bab.search import Engine

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.mark.slow
def test_the_float_probe_replays_the_exact_delta_chain_on_an_acas_cube():
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(BENCH))
    import probe_acas
    torch.set_default_dtype(torch.float64)
    P = probe_acas.Probe(torch)
    lo_x, hi_x = P.box(1 / 16)
    box = [(Q(int(u * 2**30), 2**30), Q(-int(-v * 2**30), 2**30)) for u, v in zip(lo_x.tolist(), hi_x.tolist())]
    lo_x = torch.tensor([float(u) for u, _ in box]); hi_x = torch.tensor([float(v) for _, v in box])
    ds = P.deltas(lo_x, hi_x, P.intervals(lo_x, hi_x))
    D = P.difference
    e = Engine([W.to_rows() for W in D.weights], [list(v) for v in D.biases], paired=True, tighten=0)
    _, last = e.node(box, {})
    exact = float(max(max(-lo, hi) for lo, hi in last))
    assert exact == pytest.approx(P.objective(ds), rel=1e-6)
    assert 2.5 < exact < 2.75          # 2.625 on the cube 1/16 around the maximiser (measured)
    # optimised lower slopes never loosen the bound (the start is DeepPoly's; the best kept)
    ds2 = P.deltas(lo_x, hi_x, P.intervals(lo_x, hi_x, 3), 3)
    assert P.objective(ds2) <= P.objective(ds) + 1e-9
