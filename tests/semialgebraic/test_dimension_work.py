"""``dim`` sampling is deterministic given the seed and the work done (issue 15, part 3): no
sampling step reads the clock, the budget stops sampling between whole batches, and the result
states the work done."""

from __future__ import annotations

import random
from fractions import Fraction

import semialgebraic.dimension.sampling as sampling
from algebra.network import Network
from semialgebraic.budget import Budget
from semialgebraic.dimension import functional_dimension


def _net(widths, seed) -> Network:
    rng = random.Random(seed)
    return Network.from_rows(
        [[[Fraction(rng.randint(-8, 8), 4) for _ in range(a)] for _ in range(b)] for a, b in zip(widths, widths[1:])],
        [[Fraction(rng.randint(-4, 4), 4) for _ in range(b)] for b in widths[1:]])


def test_sampling_reads_no_clock():
    assert not hasattr(sampling, "time") and sampling.WALK_STEPS > 0


def test_same_seed_same_work_same_result():
    net = _net([3, 6, 6, 1], 4)
    a = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=3)
    b = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=3, budget=Budget(None, None))
    assert a.work == b.work and (a.lower, a.upper) == (b.lower, b.upper) and a.inputs == b.inputs
    assert a.work["points"] == len(a.inputs) > 0 and a.work["batches"] >= 1
    assert a.work_text().startswith(f"{a.work['points']} points in {a.work['batches']} batch")
