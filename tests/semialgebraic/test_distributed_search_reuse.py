"""The distributed walk keeps the cells' work (issue 19, part 3): a region that meets no cell
boundary inside the box carries its certificate piece from its cell's walk, and only the regions
cut by a cell boundary are recomputed on the box.  Oracles: the regions found by two or more
cells (exactly the ones a boundary cuts), the piece of the same region walked on the whole box,
and the full ``region_cover`` checker."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from algebra.network import Network
from semialgebraic.distributed import cover, distributed_regions, search
from semialgebraic.distributed.cluster import SerialExecutor
from semialgebraic.verify import verify


def _net(seed, widths):
    rng = random.Random(seed)
    W = [[[rng.randint(-3, 3) for _ in range(widths[l])] for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)]
    b = [[rng.randint(-2, 2) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network.from_rows(W, b)


class Recording(SerialExecutor):
    """Serial, recording the cells' results and the patterns recomputed on the box."""

    def __init__(self):
        self.cells, self.recomputed = [], []

    def map_unordered(self, fn, calls):
        calls = list(calls)
        if fn is cover.piece:
            self.recomputed += [tuple(p) for _, args in calls for p, _ in args[3]]
        for key, res in super().map_unordered(fn, calls):
            if fn is search.regions_cell:
                self.cells.append(res)
            yield key, res


@pytest.mark.parametrize("seed,widths,lo,hi,cells", [
    (1, (2, 4, 3, 1), -2, 2, 4),
    (2, (2, 5, 1), -1, 3, 3),
])
def test_only_the_regions_cut_by_a_cell_boundary_are_recomputed(seed, widths, lo, hi, cells):
    net = _net(seed, widths)
    ex = Recording()
    r = distributed_regions(net, [(lo, hi)] * widths[0], cells=cells, executor=ex)
    _check_kept(net, r, ex, lo, hi)


def test_only_the_regions_cut_by_a_cell_boundary_are_recomputed_3d(eight):
    _check_kept(*eight, -2, 2)


def _check_kept(net, r, ex, lo, hi):
    assert r.complete and r.verified and verify(r.certificate)[0]
    found = {}
    for c in ex.cells:
        for reg in c["regions"]:
            found[tuple(reg["pattern"])] = found.get(tuple(reg["pattern"]), 0) + 1
    shared = sorted(p for p, k in found.items() if k > 1)
    assert sorted(ex.recomputed) == shared and len(shared) < len(found)
    kept = [reg for c in ex.cells for reg in c["regions"] if "piece" in reg]
    assert sorted(tuple(reg["pattern"]) for reg in kept) == sorted(p for p, k in found.items() if k == 1)
    # a kept piece is the region on the whole box: rows, facets, neighbours as walked there
    nj = net.to_dict()
    lo_hi = (str(lo), str(hi))
    for reg in kept[:6]:
        [box] = cover.piece(nj, *lo_hi, [[reg["pattern"], reg["point"]]])
        mine = reg["piece"]
        assert mine["inequalities"] == box["inequalities"]
        assert mine["facets"] == box["facets"] and mine["across"] == box["across"]
        assert set(mine["redundant"]) == set(box["redundant"])


@pytest.fixture(scope="module")
def eight():
    """A 3-4-3-1 network on [-2, 2]^3 walked in 8 cells."""
    net, ex = _net(3, (3, 4, 3, 1)), Recording()
    return net, distributed_regions(net, [(-2, 2)] * 3, cells=8, executor=ex), ex


def test_one_cell_recomputes_nothing_and_certifies_the_same_regions(eight):
    net, eight, _ = eight
    ex1 = Recording()
    one = distributed_regions(net, [(-2, 2)] * 3, cells=1, executor=ex1)
    assert ex1.recomputed == [] and one.verified and eight.verified
    key = [(g["pattern"], g["facets"], g["neighbours"]) for g in one.certificate["regions"]]
    assert key == [(g["pattern"], g["facets"], g["neighbours"]) for g in eight.certificate["regions"]]


def test_a_kept_piece_with_a_wrong_shift_is_refused(eight):
    """The client trusts no piece: a multiplier λ_0 of a box row left at the cell's value (the
    shift forgotten) fails the checker."""
    net, r, _ = eight
    n = net.n_hidden
    cert = r.certificate
    for reg in cert["regions"]:
        boxrows = [k for k in reg["redundant"] if int(k) >= 2 * n]
        if boxrows:
            k = boxrows[0]
            bad = {**reg, "redundant": {**reg["redundant"], k: ["0", reg["redundant"][k][1]]}}
            if Fraction(reg["redundant"][k][0]) > 0:
                break
    else:
        pytest.fail("no redundant box row with a positive constant")
    regs = [bad if g is reg else g for g in cert["regions"]]
    assert not verify({**cert, "regions": regs})[0]
