"""Findings of the ``dim`` campaign ``tests/fuzz/dim_campaign.py`` (values against its exact
region oracle), minimised, each asserting the right value.

Seed 2105 (minimised to 1-2-1-1-2): a first-layer neuron with a zero weight row and bias 3/2
made the "typical kink distance" of the float pool |b| / ‖row‖ = 3/2 / 1e-300, so every sampled
input sat near |x| = 1e300, on the orthant in the region x > 3/2 where the relay neuron
z = h2 / 2 vanishes and is seen (no differentiable input there).  Without the region walk ``dim``
then had no Jacobian row at all: lower bound 0 (the value is 4), a certificate without inputs.
Not a soundness bug (0 <= 4 <= upper), a lower bound stuck at 0; fixed in
``semialgebraic/dimension/sampling.py`` (rows with a zero weight row have no kink and are left
out of that median).

Seed 7008 (``--kind wild``): the region walk stops on a steep first-layer kink (below, an xfail
naming semialgebraic/regions/walk.py, which this campaign does not own); dim stays sound.
"""

import pytest

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.verify import verify


def _net(layers):
    return Network.from_rows([[[Q(v) for v in r] for r in W] for W, _ in layers],
                             [[Q(v) for v in b] for _, b in layers])


# h1 = (3/2, relu(x)); z2 = 9/2 - 3e-6 - 3 relu(x); z3 = relu(z2) / 2; outputs (-1, -2/3 relu(z3))
CONSTANT_FIRST_ROW = _net([([["0"], ["1"]], ["3/2", "0"]), ([["3", "-3"]], ["-3/1000000"]),
                           ([["1/2"]], ["0"]), ([["0"], ["-2/3"]], ["-1", "0"])])


def test_a_constant_first_layer_neuron_keeps_the_samples_near_the_kinks():
    # oracle: on the orthant two regions, x < 3/2 - 1e-6 (differentiable, rank 4) and x beyond
    # (the relay z3 vanishes and is seen); R^d adds x < 0 (rank 6 in all)
    fd = functional_dimension(CONSTANT_FIRST_ROW, domain="orthant", max_regions=0)
    assert fd.lower == 4 and fd.upper >= 4 and fd.samples > 0      # was lower 0, no input
    cert = functional_dimension_certificate(CONSTANT_FIRST_ROW, fd, domain="orthant", verify=False)
    assert cert["inputs"] and cert["lower"] == 4 and verify(cert)[0]
    walked = functional_dimension(CONSTANT_FIRST_ROW, domain="orthant")
    assert walked.exact and walked.value == 4
    assert functional_dimension(CONSTANT_FIRST_ROW).value == 6


# Seed 7008 (--kind wild), minimised to 2-2-2-1-1: the region walk of ``dim``
# (``joint_regions``, seed 0) raises "could not step across facet (4,) of region
# (-1, 1, 1, 1, -1)" after a first-layer kink 996751.6…·x0 + x1 and a 13/16777216 weight; it
# stops with 0 regions and dim falls back to sampling: [5, 9] where the oracle (8 regions, all
# differentiable) says 8.  ``netfibers regions`` and ``joint_regions`` with seed 1 list the 8
# regions.  Sound (an interval holding 8); the walk lives in semialgebraic/regions/walk.py.
WALK_FAILS = _net([([["0", "1"], ["427544600937/428942", "1"]], ["0", "0"]),
                   ([["0", "4"], ["0", "13/16777216"]], ["-5/8388608", "0"]),
                   ([["-138281162455/1677", "3"]], ["0"]), ([["1"]], ["-2"])])


def test_a_failed_region_walk_leaves_a_sound_interval():
    fd = functional_dimension(WALK_FAILS, domain=(-1, 1))
    assert fd.lower <= 8 <= fd.upper
    cert = functional_dimension_certificate(WALK_FAILS, fd, domain=(-1, 1), verify=False)
    assert verify(cert)[0] and cert["lower"] <= 8 <= cert.get("upper", 8)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_region_walk_of_dim_completes_on_a_steep_kink(seed):
    # joint_regions (seeds 0, 2, 5) could not step across a facet of this net (found by
    # tests/fuzz/dim_campaign.py seed 7008): its first step, guessed in floats, was ~1e18 long
    # (the facet's normal ~4e30) and 63 quarterings did not reach the ~1e-27 thin region across;
    # now 200 (semialgebraic/regions/walk.py).  Then (lead, session 16) the
    # complete walk said EXACTLY 7 (the value is 8: the campaign's oracle, and an independent sympy
    # gradient rank at points of the six differentiable regions): one region is a strip
    # a/4 < h2 < K a/(4K - 3w) about 1e-21 wide in h2 (1e-27 in x0), where batch_simplex's steps
    # (down to 2^-80) all left the region, so it held one input instead of d + 1 and its rows did
    # not span the region's.  Now the steps go down to 2^-160 and a region left short keeps the
    # interval (test below).
    fd = functional_dimension(WALK_FAILS, domain=(-1, 1), seed=seed)
    assert fd.exact and fd.value == 8


def test_a_region_too_thin_for_d_plus_one_inputs_is_reported():
    from semialgebraic.dimension.sampling import batch_simplex
    # 1-2-1: regions x < 0, 0 < x < 1e-60 (thinner than every step 2^-20 ... 2^-160), x > 1e-60
    net = _net([([["1"], ["1"]], ["0", "-1/" + "1" + "0" * 60]), ([["1", "-2"]], ["0"])])
    thin = Q(1, 2 * 10 ** 60)
    missing = []
    pts = batch_simplex(net, [(Q(-1),), (thin,), (Q(1),)], (Q(-1), Q(1)), missing)
    assert missing == [1] and len(pts) == 5            # the thin region kept its base point only
    # the value is 5 (two rows per two-piece region, one on x < 0): without the thin region's
    # second input the rank is 4, and a complete walk used to call that exact; now an interval
    fd = functional_dimension(net, domain=(-1, 1))
    assert not fd.exact and (fd.lower, fd.upper) == (4, 5) and "too thin" in fd.reason


# Seed 5080 (--kind float16 --large), R^2, 2-8-4-2-1 float16 weights, 106 regions: the last
# hidden layer is active only far out (5 of 2000 normal points at scale 10 or 100).  Without the
# walk, 3427 sampled inputs reach rank 7 and the suspects add nothing (the same at --timeout 120):
# [7, 43] where the oracle says 22 (the default walk gives 22).  Sound, far from tight.
FLOAT16_RARE_DEEP = _net([
    ([["-697/512", "-1111/2048"], ["-1985/2048", "-1459/4096"], ["-757/512", "-745/2048"], ["-1705/4096", "1973/4096"], ["-1063/2048", "1523/32768"], ["-1457/2048", "1505/1024"], ["1033/512", "-1293/512"], ["411/256", "-1409/1024"]],
     ["1199/512", "1659/1024", "-1359/32768", "-1793/16384", "-1231/1024", "-561/512", "-1153/2048", "-833/2048"]),
    ([["1419/512", "-1085/512", "417/512", "-627/512", "559/4096", "1835/8192", "1439/1024", "1309/4096"], ["917/1024", "237/128", "-1339/1024", "-1165/4096", "-699/1024", "901/1024", "2009/524288", "739/4096"], ["-263/4096", "1249/512", "1013/1024", "399/512", "-1961/2048", "241/128", "-1161/2048", "-459/1024"], ["-261/1024", "-1117/2048", "-1815/2048", "-1205/32768", "-193/256", "-1951/4096", "-1621/4096", "621/1024"]],
     ["-1791/4096", "-1059/1024", "-193/256", "1745/16384"]),
    ([["-1301/2048", "147/128", "-1377/1024", "1749/2048"], ["-249/128", "529/512", "-71/128", "-605/1024"]],
     ["-725/1024", "-1541/4096"]),
    ([["1383/4096", "-1841/2048"]],
     ["1231/2048"]),
])


@pytest.mark.slow
def test_a_rarely_active_last_layer_is_walked_exactly():
    assert functional_dimension(FLOAT16_RARE_DEEP).value == 22
    fd = functional_dimension(FLOAT16_RARE_DEEP, max_regions=0, timeout=20)
    assert fd.lower <= 22 <= fd.upper


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason="without the walk the samples never reach the rare last "
                   "layer and the suspects find no witness (tests/fuzz/dim_campaign.py seed 5080)")
def test_a_rarely_active_last_layer_is_found_without_the_walk():
    assert functional_dimension(FLOAT16_RARE_DEEP, max_regions=0, timeout=20).lower == 22


def test_the_exact_rank_call_is_capped_without_a_timeout():
    # 2026-12-03 audit: `dim` of ACAS Xu without --timeout, Ctrl-C at 6 s, exit after 316 s: one
    # exact rational rank (FLINT, not interruptible) ran to its end.  Without a timeout the call is
    # now capped at EXACT_CALL_CAP seconds of estimated work, and skipped once the budget is spent.
    from semialgebraic.budget import Budget
    from semialgebraic.dimension.functional import EXACT_CALL_CAP, _Sandwich
    net = _net([([["1"], ["-1"]], ["0", "1"]), ([["1", "1"]], ["0"])])
    S = _Sandwich(net, None, Budget())
    assert S.exact_fits(10)
    assert not S.exact_fits(10 ** 7)                 # ~ 10^7 · 7 · 7 · 50 / 2e8 s ≫ the cap
    assert EXACT_CALL_CAP <= 60
    S.budget.reason = "interrupted (Ctrl-C)"
    assert not S.exact_fits(10)


@pytest.mark.parametrize("seed", range(6))
def test_the_region_walk_steps_into_a_region_1e_27_thin(seed):
    from semialgebraic.regions import joint_regions
    state = {}
    regs = list(joint_regions([WALK_FAILS], domain=(-1, 1), state=state, seed=seed, multipliers=False))
    assert state.get("complete") and len(regs) == 8            # was "could not step" on 0, 2, 5
