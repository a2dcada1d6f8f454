"""Exact ``equiv`` on box ∩ half-spaces with and without the proved bounding box.

For a few polyhedra (a simplex, a box with one open side closed by a half-space, a thin slab cut
from a box by two half-spaces) and planted pairs (``tests/cases/general.planted_pair``, planted
on the polyhedron's bounding box), ``equivalent(a, b, domain=Domain)`` runs twice: with the
interval reductions over the box part only ("before": :func:`semialgebraic.sets.tighten`
replaced by the identity) and over the exact bounding box ("after").  Prints regions walked,
reduction steps, seconds and the verdicts, and compares the verdicts with z3
(``tests/oracles/z3.py``).

    python benchmarks/bench_polyhedron_bounds.py [SEEDS]
"""

import random
import sys
import time

from algebra.kernel.domains import Domain
from algebra.rationals import Q
from semialgebraic.equivalence import dispatch
from semialgebraic.equivalence.dispatch import equivalent
from algebra.network import Network
from semialgebraic.equivalence.reduction import preactivation_bounds
from semialgebraic.sets import tighten
from tests.cases.general import cut_cube_case, planted_pair, rational_net
from tests.oracles.z3 import z3_equivalent

TIGHTEN = dispatch.tighten


def polyhedra(d):
    one = [Q(1)] * d
    e0 = [Q(1)] + [Q(0)] * (d - 1)
    return {
        "simplex": (Domain([0] * d, [None] * d, [(one, 1)]), (Q(0), Q(1))),
        # x_d <= x_1 + ... + x_{d-1} - (d - 2): x_d's upper side open, closed at 1 by the cut
        "open side": (Domain([-1] * d, [1] * (d - 1) + [None], [([Q(-1)] * (d - 1) + [Q(1)], 2 - d)]),
                      (Q(-1), Q(1))),
        "thin slab": (Domain([-1] * d, [1] * d, [(e0, Q(1, 100)), ([-v for v in e0], 0)]), (Q(-1), Q(1))),
    }


def deep_dead(rng, a, dom):
    """b = a with one more neuron in its second hidden layer, dead on the polyhedron *dom*
    (bias below its interval bound over the exact bounding box) but not on the box part."""
    box = Domain.from_box(tighten(dom).intervals())
    hi = max(h for _, h in preactivation_bounds(a, domain=box)[0])
    Ws = [[list(r) for r in W.to_rows()] for W in a.weights]
    bs = [list(v) for v in a.biases]
    row = [Q(rng.choice([1, 2, 3])) for _ in Ws[1][0]]
    Ws[1].append(row)
    bs[1].append(-sum((w * max(hi, Q(0)) for w in row), Q(0)) - Q(1, 3))
    for r in Ws[2]:
        r.append(Q(rng.choice([-3, 1, 2])))
    return Network(Ws, bs), "deep dead"


def run(a, b, dom, tight):
    dispatch.tighten = TIGHTEN if tight else (lambda dm, budget=None: dm)
    t = time.perf_counter()
    v = equivalent(a, b, domain=dom, timeout=120)
    dispatch.tighten = TIGHTEN
    red = v.details.get("reduction", {})
    return v.answer, v.details.get("regions_checked", 0), red, time.perf_counter() - t, v.details.get("decided_by")


def wide():
    """Wider nets (a deep dead neuron whose proof by a ``dead_cover`` walk was needed before)."""
    for seed, widths in ((1, [2, 30, 30, 1]), (2, [2, 40, 20, 1]), (3, [3, 16, 16, 1])):
        a = rational_net(random.Random(seed), widths)
        for name, (dom, _) in polyhedra(a.n_inputs).items():
            b, _ = deep_dead(random.Random(100 + seed), a, dom)
            before, after = run(a, b, dom, False), run(a, b, dom, True)
            z = z3_equivalent(a, b, dom)
            assert before[0] == after[0] == z, (widths, name)
            print(f"{'-'.join(map(str, widths))} {name:10s} before: {before[1]} regions, dead "
                  f"{before[2].get('dead', 0)}, dead_cover {before[2].get('dead_cover', 0)}, "
                  f"{before[3]:.2f} s  after: {after[1]} regions, dead {after[2].get('dead', 0)}, "
                  f"dead_cover {after[2].get('dead_cover', 0)}, {after[3]:.2f} s  z3: {z}", flush=True)


def main(seeds=6):
    wide()
    rows = []
    for seed in range(seeds):
        rng = random.Random(seed)
        widths = [2, 8, 8, 1] if seed % 2 else [3, 6, 6, 1]
        a = rational_net(rng, widths)
        for name, (dom, cube) in polyhedra(a.n_inputs).items():
            b, kind = (planted_pair(random.Random(100 + seed), a, cube) if seed % 3 == 0
                       else deep_dead(random.Random(100 + seed), a, dom))
            before = run(a, b, dom, False)
            after = run(a, b, dom, True)
            z = z3_equivalent(a, b, dom)
            rows.append((seed, name, kind, before, after, z))
            print(f"{seed} {name:10s} {kind:6s} before: {before[0]!s:5s} {before[1]:4d} regions "
                  f"{before[3]:6.2f} s ({before[4]})  after: {after[0]!s:5s} {after[1]:4d} regions "
                  f"{after[3]:6.2f} s ({after[4]})  dead {before[2].get('dead', 0)}->{after[2].get('dead', 0)}"
                  f"  z3: {z}", flush=True)
            assert after[0] is None or z is None or after[0] == z, (seed, name)
            assert before[0] is None or z is None or before[0] == z, (seed, name)
    for seed in range(3 * seeds):
        a, b, dom, kind = cut_cube_case(seed, always_cut=True)
        before, after, z = run(a, b, dom, False), run(a, b, dom, True), z3_equivalent(a, b, dom)
        rows.append((seed, "cut cube", kind, before, after, z))
        assert after[0] is None or z is None or after[0] == z, (seed, "cut cube")
    print(f"cut_cube_case seeds 0..{3 * seeds - 1}: before {sum(r[3][1] for r in rows[-3 * seeds:])} regions, "
          f"after {sum(r[4][1] for r in rows[-3 * seeds:])} regions; verdicts equal to z3")
    tb = sum(r[3][3] for r in rows)
    ta = sum(r[4][3] for r in rows)
    rb = sum(r[3][1] for r in rows)
    ra = sum(r[4][1] for r in rows)
    print(f"total: before {rb} regions {tb:.1f} s, after {ra} regions {ta:.1f} s")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)
