"""The distributed region walk's ``region_cover`` certificate (issue 19, part 3): regions joined
by pattern over the cells, the certificate assembled at the client (N against itself, the b copy
merged into the a copy), its check split into parts.  Oracle: the serial walk
(:func:`semialgebraic.regions.regions` on the whole box) and the full checker."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from algebra.network import Network
from semialgebraic.distributed import distributed_regions
from semialgebraic.distributed.cover import CHUNK, expand
from semialgebraic.regions import regions
from semialgebraic.sets import Polyhedron
from semialgebraic.verify import verify, verify_part


def _net(seed, widths):
    rng = random.Random(seed)
    W = [[[rng.randint(-3, 3) for _ in range(widths[l])] for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)]
    b = [[rng.randint(-2, 2) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network.from_rows(W, b)


def _serial(net, lo, hi):
    return sorted(list(r.pattern) for r in regions(net, domain=Polyhedron.box(net.n_inputs, lo, hi)))


def region_hash(cert) -> str:
    """Hash of the certified regions: patterns, facets and neighbours."""
    regs = [(r["pattern"], r["facets"], r["neighbours"]) for r in cert["regions"]]
    return hashlib.sha256(json.dumps(regs).encode()).hexdigest()


# a dead neuron (zero row), duplicate rows, two hidden layers
PLANTED = Network.from_rows([[[1, -1], [1, -1], [0, 0], [2, 1]], [[1, 0, 1, -1], [-1, 2, 0, 1]], [[1, -1]]],
                            [[0, 0, 0, -1], [1, 0], [0]])


@pytest.mark.parametrize("net,lo,hi,cells", [
    (_net(1, (2, 4, 3, 1)), -2, 2, 4),
    (_net(2, (2, 5, 1)), -1, 3, 3),
    (PLANTED, -1, 1, 2),
])
def test_distributed_walk_equals_the_serial_walk_and_certifies(net, lo, hi, cells):
    r = distributed_regions(net, [(lo, hi)] * 2, cells=cells, workers=0)
    assert r.complete and r.verified and r.patterns == _serial(net, lo, hi)
    cert = r.certificate
    assert cert["type"] == "region_cover" and verify(cert)[0]
    widths = list(net.widths[1:-1])
    assert [reg["pattern"] for reg in cert["regions"]] == [list(expand(widths, p)) for p in r.patterns]
    n = len(r.patterns)
    assert verify_part(cert, "cover")[0] and verify_part(cert, [0, n])[0]
    assert all(verify_part(cert, [k, min(n, k + 2)])[0] for k in range(0, n, 2))
    # the same certified regions from one cell
    one = distributed_regions(net, [(lo, hi)] * 2, cells=1, workers=0)
    assert region_hash(one.certificate) == region_hash(cert)


def test_a_missing_or_altered_region_is_refused():
    r = distributed_regions(_net(1, (2, 4, 3, 1)), [(-2, 2)] * 2, cells=4, workers=0)
    c = r.certificate
    n = len(c["regions"])
    dropped = dict(c, regions=c["regions"][:-1])
    assert not verify(dropped)[0]
    assert not all(verify_part(dropped, [k, k + 1])[0] for k in range(n - 1))
    flipped = json.loads(json.dumps(c))
    flipped["regions"][0]["pattern"][0] *= -1
    assert not verify(flipped)[0] and not verify_part(flipped, [0, 1])[0]
    twice = dict(c, regions=c["regions"] + c["regions"][:1])
    assert not verify_part(twice, "cover")[0]
    with pytest.raises(Exception):
        verify_part(c, [0, n + 1])


def test_many_regions_are_checked_in_chunks():
    net = _net(4, (2, 8, 1))
    r = distributed_regions(net, [(-3, 3)] * 2, cells=2, workers=0)
    assert r.verified and r.number_of_regions > CHUNK and r.patterns == _serial(net, -3, 3)


def test_a_box_that_is_not_a_cube_is_certified_on_its_own_sides():
    net = _net(1, (2, 4, 3, 1))
    r = distributed_regions(net, [(-2, 2), (-1, 1)], cells=2, workers=0)
    assert r.complete and r.verified and r.certificate["domain"]["lo"] == ["-2", "-1"]


def test_checkpoint_resumes_the_walk_and_certifies_the_same_regions(tmp_path):
    from semialgebraic.distributed import cluster

    class Counting(cluster.SerialExecutor):
        walks = 0

        def map_unordered(self, fn, calls):
            calls = list(calls)
            if fn.__name__ == "regions_cell":
                Counting.walks += len(calls)
            return super().map_unordered(fn, calls)
    net, ck = _net(2, (2, 5, 1)), tmp_path / "w.ckpt"
    r1 = distributed_regions(net, [(-1, 3)] * 2, cells=3, workers=0, checkpoint=str(ck))
    lines = ck.read_text().splitlines(keepends=True)
    ck.write_text("".join(lines[:2]))                       # one of the three cells kept
    r2 = distributed_regions(net, [(-1, 3)] * 2, cells=3, checkpoint=str(ck), executor=Counting())
    assert Counting.walks == 2 and r2.verified
    assert r2.patterns == r1.patterns and region_hash(r2.certificate) == region_hash(r1.certificate)
