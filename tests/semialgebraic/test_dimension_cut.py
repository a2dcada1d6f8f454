"""``dim`` on a box cut by half-spaces (three-layer-fibers R37): the functional dimension only
grows with the domain, so it lies between the rank at inputs of the domain (those of runs on the
largest cube inside it and on the box) and the certified value on the box around it."""

import copy
import json
import random
import subprocess
import sys

import pytest

from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension
from semialgebraic.dimension.jacobian import exact_rank
from semialgebraic.dimension.sandwich import functional_dimension_on_cut, inscribed_cube, sandwich_certificate
from semialgebraic.verify import verify


def _net(widths, seed):
    rng = random.Random(seed)
    Ws = [[[Q(rng.randint(-8, 8), 8) for _ in range(widths[i])] for _ in range(widths[i + 1])]
          for i in range(len(widths) - 1)]
    bs = [[Q(rng.randint(-8, 8), 8) for _ in range(widths[i + 1])] for i in range(len(widths) - 1)]
    return Network(Ws, bs)


def _in(x, lo, hi, cuts):
    return all(a <= v <= b for v, a, b in zip(x, lo, hi)) and \
        all(sum((Q(ai) * v for ai, v in zip(a, x)), Q(0)) <= Q(b) for a, b in cuts)


def test_inscribed_cube_of_a_triangle_and_of_sets_without_interior():
    c, r = inscribed_cube([0, 0], [1, 1], [([1, 1], 1)])
    assert (c, r) == ([Q(1, 4), Q(1, 4)], Q(1, 4))
    assert inscribed_cube([0, 0], [1, 1], [([1, 1], 0)]) is None          # one point
    assert inscribed_cube([0, 0], [1, 1], [([1, 1], -1)]) is None         # empty
    c, r = inscribed_cube([-1, -1, -1], [1, 1, 1], [([1, -2, 3], Q(1, 3)), ([-1, 0, 0], 0)])
    assert r > 0 and all(_in([ci + s * r for ci, s in zip(c, signs)], [-1] * 3, [1] * 3,
                             [([1, -2, 3], Q(1, 3)), ([-1, 0, 0], 0)])
                         for signs in [(a, b, d) for a in (-1, 1) for b in (-1, 1) for d in (-1, 1)])


@pytest.mark.parametrize("seed", range(6))
def test_bounds_hold_and_the_certificate_verifies(seed):
    """Random nets, a random cut of a box: the lower bound is the exact rank over Q at inputs of
    the domain (recomputed here on the user's net), the upper bound at least the exact rank at
    80 random points of the domain, the certificate VALID."""
    rng = random.Random(100 + seed)
    net = _net([3, 5, 4, 2], seed)
    lo, hi = [Q(-1), Q(0), Q(-2)], [Q(1), Q(1), Q(2)]
    cuts = [([rng.randint(-3, 3) for _ in range(3)], Q(rng.randint(0, 4), 4)) for _ in range(2)]
    cut = functional_dimension_on_cut(net, lo, hi, cuts, timeout=60)
    if cut.inner is None:
        assert inscribed_cube(lo, hi, cuts) is None
        return
    X, _, p, rank = cut.pooled
    c = [(a + b) / 2 for a, b in zip(lo, hi)]
    s = [(b - a) / 2 for a, b in zip(lo, hi)]
    users = [[ci + si * u for ci, si, u in zip(c, s, x)] for x in X]
    assert all(_in(x, lo, hi, cuts) for x in users)
    assert exact_rank(net, users) >= cut.lower == max(rank, cut.inner.lower)
    pts = []
    while len(pts) < 80:
        x = [a + (b - a) * Q(rng.randint(0, 997), 997) for a, b in zip(lo, hi)]
        if _in(x, lo, hi, cuts):
            pts.append(x)
    assert exact_rank(net, pts) <= cut.upper
    on_box = functional_dimension(net, domain=Domain(lo, hi)).upper
    if cut.regions:          # a complete walk of the cut itself: its value, below the box's or not
        assert cut.upper == min(on_box, cut.regions[0]) and cut.exact
    else:
        assert cut.upper == on_box
    cert = json.loads(json.dumps(sandwich_certificate(net, cut)))
    ok, why = verify(cert)
    assert ok, why


def test_a_cut_that_changes_nothing_is_exact():
    """A half-space that keeps every region of a generic net: the value on the box."""
    net = _net([2, 4, 1], 7)
    box = functional_dimension(net, domain=(Q(-1), Q(1)))
    assert box.exact
    cut = functional_dimension_on_cut(net, [-1, -1], [1, 1], [([1, 1], Q(19, 10))])
    assert cut.exact and cut.value == box.value


def test_a_cut_that_kills_a_neuron_is_bracketed():
    """Neuron 0 is x0 − 1/2: alive on the box, dead where x0 <= 1/4.  The box's value is the
    sandwich's upper bound; the cut is itself a box there, whose exact value the lower bound
    reaches.  R39 read on the cut itself (one hidden layer) gives that value exactly, neuron 0
    proved dead there by the half-space's dual."""
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[Q(-1, 2), 0, 0], [0]])
    cut = functional_dimension_on_cut(net, [-1, -1], [1, 1], [([1, 0], Q(1, 4))], theorem=False,
                                      max_regions=2)     # the cut's own walk stopped
    on_p = functional_dimension(net, domain=Domain([-1, -1], [Q(1, 4), 1]))
    on_b = functional_dimension(net, domain=(Q(-1), Q(1)))
    assert on_p.exact and on_b.exact and on_p.value < on_b.value
    assert cut.lower == on_p.value and cut.upper == on_b.value and not cut.exact
    walked = functional_dimension_on_cut(net, [-1, -1], [1, 1], [([1, 0], Q(1, 4))], theorem=False)
    assert walked.exact and walked.value == on_p.value and walked.by_regions
    cert = json.loads(json.dumps(sandwich_certificate(net, walked)))
    assert cert["upper"] == on_p.value and "outer" not in cert and verify(cert)[0]
    by_theorem = functional_dimension_on_cut(net, [-1, -1], [1, 1], [([1, 0], Q(1, 4))])
    assert by_theorem.exact and by_theorem.value == on_p.value and by_theorem.theorem
    cert = sandwich_certificate(net, by_theorem)
    assert cert["type"] == "one_hidden_layer_dimension" and cert["evidence"]["0"] == {"dead": [1]}
    assert verify(cert)[0]


@pytest.fixture(scope="module")
def honest():
    net = _net([3, 5, 4, 2], 1)
    cut = functional_dimension_on_cut(net, [-1, 0, -2], [1, 1, 2], [([1, 1, 1], Q(1, 2))])
    cert = json.loads(json.dumps(sandwich_certificate(net, cut)))
    assert verify(cert)[0]
    return cert


def _mutated(cert, change):
    c = copy.deepcopy(cert)
    change(c)
    return c


@pytest.mark.parametrize("name,change", [
    ("lower + 1", lambda c: c.update(lower=c["lower"] + 1)),
    ("upper below the outer's", lambda c: c.update(upper=c["outer"]["upper"] - 1)),
    ("a tighter half-space", lambda c: c["domain"]["halfspaces"][0].update(b="-3")),
    ("the box shrunk away from the inputs", lambda c: c["domain"]["box"][0].__setitem__(0, "9/10")),
    ("an inner input moved out", lambda c: c["inner"]["inputs"][0].__setitem__(0, "7")),
    ("the outer read on a smaller box", lambda c: c["outer"]["domain"]["input_map"]["hi"].__setitem__(2, "1")),
    ("another network", lambda c: c["network"]["layers"][0]["bias"].__setitem__(0, "5")),
])
def test_false_claims_are_rejected(honest, name, change):
    _rejected(_mutated(honest, change), name)


def _rejected(cert, name) -> None:
    try:
        ok, _ = verify(cert)
    except Exception as exc:                 # malformed (InputError) is a rejection too
        assert type(exc).__name__ == "InputError", exc
        return
    assert not ok, name


# a 2-4-5-1 net whose value on the box [-1, 1]^2 is 19 and on its cut x0 + x1 <= 1/3 is 18 (the
# structure audit's poly_n1: 17 regions of the cut walked; found open as [18, 19] before the cut's
# own regions gave the upper bound)
POLY = Network.from_rows(
    [[["1/3", -1], ["3/2", -5], [2, "-5/2"], ["2/3", 2]],
     [[1, 1, 3, -6], ["-5/2", -2, -1, 2], [1, -2, -1, "-5/2"], [-2, -5, "1/3", -1], [6, 4, 5, -1]],
     [[4, 3, 0, -3, 1]]],
    [[-2, "4/3", -2, 1], [6, "3/2", 3, "-2/3", 0], ["-5/3"]])
POLY_CUT = [([1, 1], Q(1, 3))]


@pytest.fixture(scope="module")
def walked():
    cut = functional_dimension_on_cut(POLY, [-1, -1], [1, 1], POLY_CUT, timeout=60)
    assert cut.exact and cut.value == 18 and cut.by_regions and cut.regions == (18, 17)
    assert cut.outer.exact and cut.outer.value == 19
    cert = json.loads(json.dumps(sandwich_certificate(POLY, cut)))
    assert verify(cert)[0] and cert["lower"] == cert["upper"] == 18 and len(cert["upper_regions"]) == 17
    return cert


def test_the_cuts_own_regions_give_its_value(walked):
    """The exact rank over Q of the Jacobian rows at d + 1 points of each of the 17 regions of
    the cut (found by this test's own walk: 4 000 grid points of the cut, their exact patterns)
    is 18: the value, below the box's 19 (three-layer-fibers R37's sandwich closed by the cut's
    own complete walk)."""
    from semialgebraic.dimension.sampling import exact_masks
    pts = [[Q(i, 40) - 1, Q(j, 40) - 1] for i in range(81) for j in range(81)
           if Q(i, 40) + Q(j, 40) - 2 <= Q(1, 3)]
    X, _ = exact_masks(POLY, pts)
    assert exact_rank(POLY, X) == 18
    box = [[Q(i, 40) - 1, Q(j, 40) - 1] for i in range(81) for j in range(81)]
    assert exact_rank(POLY, exact_masks(POLY, box)[0]) == 19


@pytest.mark.parametrize("name,change", [
    ("upper - 1", lambda c: c.update(upper=17)),
    ("a region dropped", lambda c: c["upper_regions"].pop(3)),
    ("a wider half-space (the regions no longer cover it)", lambda c: c["domain"]["halfspaces"][0].update(b="1/2")),
    ("a region's pattern flipped", lambda c: c["upper_regions"][0]["pattern"].__setitem__(
        0, -c["upper_regions"][0]["pattern"][0] or 1)),
    ("a region's point moved out", lambda c: c["upper_regions"][1].update(point=["9/10", "9/10"])),
    ("another network", lambda c: c["network"]["layers"][1]["bias"].__setitem__(4, "1/7")),
    ("regions not a list", lambda c: c.update(upper_regions={"0": 1})),
])
def test_false_claims_by_the_cuts_regions_are_rejected(walked, name, change):
    _rejected(_mutated(walked, change), name)


def test_the_cli_decides_a_cut_by_its_own_regions(tmp_path):
    net, dom, cert = tmp_path / "n.json", tmp_path / "d.json", tmp_path / "c.json"
    net.write_text(json.dumps(POLY.to_dict()))
    dom.write_text(json.dumps({"box": [[-1, 1], [-1, 1]], "halfspaces": [{"a": [1, 1], "b": "1/3"}]}))
    run = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "dim", str(net), "--box", str(dom),
                          "--certificate", str(cert), "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["functional_dimension"] == 18 and out["exact"] and out["cut_regions"] == {"value": 18, "regions": 17}
    assert out["outer"]["functional_dimension"] == 19
    check = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(cert)],
                           capture_output=True, text=True)
    assert check.returncode == 0 and "17 listed regions cover the domain" in check.stdout


def test_the_cli_on_a_json_box_with_half_spaces(tmp_path):
    net = _net([3, 6, 3, 2], 2)
    (tmp_path / "n.json").write_text(json.dumps(net.to_dict()))
    (tmp_path / "d.json").write_text(json.dumps({"box": [[-1, 1], [0, 1], [-2, 2]],
                                                 "halfspaces": [{"a": [1, 1, 1], "b": "1/2"}]}))
    cert = tmp_path / "c.json"
    out = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "dim", str(tmp_path / "n.json"),
                          "--box", str(tmp_path / "d.json"), "--certificate", str(cert), "--json"],
                         capture_output=True, text=True)
    assert out.returncode in (0, 3), out.stderr
    data = json.loads(out.stdout)
    assert data["lower"] <= data["upper"] <= net.n_parameters
    assert (out.returncode == 0) == data["exact"] == (data["lower"] == data["upper"])
    got = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(cert)],
                         capture_output=True, text=True)
    assert got.returncode == 0 and got.stdout.startswith("VALID functional_dimension_sandwich"), got.stdout


def test_a_part_without_inputs_is_left_out(honest):
    """A budget spent before a run's first input: its part lists none and shows nothing (the
    functional_dimension checker refuses it: seen as an internal error, exit 4, for ACAS Xu with
    --timeout 5); it is left out and its bound is the trivial one, 0 below or N above."""
    N = sum(len(layer["weight"]) * (len(layer["weight"][0]) + 1) for layer in honest["network"]["layers"])
    no_outer = {k: v for k, v in honest.items() if k != "outer"}
    assert verify(dict(no_outer, upper=N))[0]
    assert verify(dict(no_outer, upper=N - 1))[0] is False
    no_inner = {k: v for k, v in honest.items() if k != "inner"}
    assert verify(dict(no_inner, lower=0))[0]
    assert verify(dict(no_inner, lower=1))[0] is False
    net = _net([3, 5, 4, 2], 1)
    cut = functional_dimension_on_cut(net, [-1, 0, -2], [1, 1, 2], [([1, 1, 1], Q(1, 2))], timeout=0)
    try:
        cert = json.loads(json.dumps(sandwich_certificate(net, cut)))
    except ValueError as exc:                  # nothing at all to show
        assert "no differentiable input" in str(exc)
    else:
        assert verify(cert)[0] and cert["lower"] <= cut.lower and cert["upper"] >= cut.upper


def test_a_pooled_rank_past_its_deadline_leaves_the_cubes_lower_end():
    import semialgebraic.dimension.sandwich as sw
    net = _net([3, 5, 4, 2], 1)
    lo, hi, cuts = [Q(-1), Q(0), Q(-2)], [Q(1), Q(1), Q(2)], [([1, 1, 1], Q(1, 2))]
    cut = functional_dimension_on_cut(net, lo, hi, cuts)
    assert cut.pooled and cut.pooled[0] and "inputs in the domain" in cut.reason
    on_cube, _ = sw._on_cube(net, lo, hi)
    stopped = sw._pooled(net, on_cube, lo, hi, cuts, inscribed_cube(lo, hi, cuts), cut.inner,
                         cut.outer, deadline=0.0)
    assert stopped == ()
    cut.pooled = stopped
    assert cut.lower == cut.inner.lower and "from the cube" in cut.reason
    assert verify(json.loads(json.dumps(sandwich_certificate(net, cut))))[0]


def test_inputs_in_every_region_of_the_cut_reach_its_value(monkeypatch):
    """The pooled rank also takes d + 1 inputs in each linear region of the cut domain itself (a
    walk over its regions, small nets): the session-26 audit's case, a 2-3-1 net on [-1/2, 1/2] x
    [0, 1] cut by 2 x0 + 3 x1 <= 3/2, whose value 4 (the exact region oracle) had the lower end 1
    (the cube inside the cut misses the region where neuron 0 is active).  Above RANK_ONLY the
    walk is not made (the cube's and the box's inputs only)."""
    import semialgebraic.dimension.functional as fmod
    net = Network.from_rows([[["3/4", 1], [0, 0], [-2, -3]], [["5/4", 2, 0]]], [["-1/2", -1, -4], [-4]])
    lo, hi, cuts = [Q(-1, 2), Q(0)], [Q(1, 2), Q(1)], [([2, 3], Q(3, 2))]
    cut = functional_dimension_on_cut(net, lo, hi, cuts, timeout=60, theorem=False)
    assert cut.exact and cut.value == 4
    cert = json.loads(json.dumps(sandwich_certificate(net, cut)))
    assert verify(cert)[0] and cert["lower"] == 4
    by_theorem = functional_dimension_on_cut(net, lo, hi, cuts, timeout=60)   # R39 on the cut
    assert by_theorem.theorem and by_theorem.value == 4
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    assert functional_dimension_on_cut(net, lo, hi, cuts, timeout=60, theorem=False).lower < 4


# -- one hidden layer: R38/R39 read on the cut itself --------------------------------------------
def _one_layer_case(seed):
    """A one-hidden-layer net with planted copies of rows (times t of either sign), constant
    neurons, neurons far from the box (dead or active on it), zero outgoing columns, on a box
    cut by 1-3 half-spaces through random points of it (campaign format: Fractions)."""
    from fractions import Fraction as F
    rng = random.Random(9100 + seed)
    d, n1, m = rng.randint(1, 3), rng.randint(2, 6), rng.randint(1, 3)
    lo, hi = F(rng.randint(-3, 0)), F(rng.randint(1, 3))
    r = lambda: F(rng.randint(-4, 4), rng.choice([1, 2, 3]))
    W, b = [[r() for _ in range(d)] for _ in range(n1)], [r() for _ in range(n1)]
    for i in range(1, n1):
        k = rng.random()
        if k < 0.2:
            j, t = rng.randrange(i), F(rng.choice([-2, -1, 1, 2, 3]), rng.choice([1, 2]))
            W[i], b[i] = [t * v for v in W[j]], t * b[j]
        elif k < 0.3:
            W[i], b[i] = [F(0)] * d, F(rng.choice([-1, 1]))
        elif k < 0.45:
            b[i] = F(rng.choice([-30, 30]))
    V = [[r() if rng.random() > 0.15 else F(0) for _ in range(n1)] for _ in range(m)]
    cuts = []
    for _ in range(rng.randint(1, 3)):
        a = [F(0)] * d
        while not any(a):
            a = [F(rng.randint(-3, 3)) for _ in range(d)]
        p = [lo + (hi - lo) * F(rng.randint(1, 7), 8) for _ in range(d)]
        cuts.append((a, sum(x * y for x, y in zip(a, p))))
    return [(W, b), (V, [r() for _ in range(m)])], lo, hi, cuts


@pytest.mark.parametrize("seed", range(40))
def test_one_hidden_layer_on_a_cut_is_exact_by_the_theorem(seed):
    """R39 read on the cut (neurons the box does not classify: points strictly inside the cut,
    exact LP duals) against the dim campaign's z3 region oracle on the cut, which shares no code
    with netfibers: equal; the certificate VALID, its value ±1 rejected."""
    pytest.importorskip("z3")
    from tests.fuzz.bab_fuzz import to_algebra
    from tests.fuzz.dim_campaign import oracle
    net, lo, hi, cuts = _one_layer_case(seed)
    d = len(net[0][0][0])
    q = lambda f: Q(f.numerator, f.denominator)
    A = to_algebra(net)
    cut = functional_dimension_on_cut(A, [q(lo)] * d, [q(hi)] * d, [([q(v) for v in a], q(c)) for a, c in cuts])
    truth = oracle(net, ("cut", [(lo, hi)] * d, cuts))
    if cut.inner is None:                    # no interior: no region either
        assert not truth["regions"]
        return
    assert cut.theorem and cut.exact and cut.value == truth["value"]
    cert = json.loads(json.dumps(sandwich_certificate(A, cut)))
    assert cert["type"] == "one_hidden_layer_dimension" and verify(cert)[0]
    for delta in (1, -1):
        assert verify(dict(cert, value=cert["value"] + delta))[0] is False


# neuron 0 (x0 + x1 - 1) dead on the cut x0 + x1 <= 1 only, neuron 1 (x0 + x1 + 1) active there
# only (x0 + x1 >= -1 is a second half-space), neuron 2 (x0 - x1) switching, neuron 3 (x1 - 5)
# dead on the box
CUT_ONE = Network.from_rows([[[1, 1], [1, 1], [1, -1], [0, 1]], [[1, 2, 1, 1]]], [[-1, 1, 0, -5], [0]])
CUT_ONE_P = ([-2, -2], [2, 2], [([1, 1], 1), ([-1, -1], 1)])


@pytest.fixture(scope="module")
def one_cut():
    cut = functional_dimension_on_cut(CUT_ONE, *CUT_ONE_P)
    cert = json.loads(json.dumps(sandwich_certificate(CUT_ONE, cut)))
    assert verify(cert)[0]
    return cut, cert


def test_the_theorem_on_a_cut_classifies_by_duals_and_inside_points(one_cut):
    """Neuron 0 dead and neuron 1 active by the half-spaces' duals, neuron 2 switching at two
    points strictly inside, neuron 3 dead by the box (no evidence).  Neurons 0 and 1 share their
    normal: with 1 active, the linear block has rank 1 in x, 1 in the output; the value agrees
    with the general method on the cut's regions."""
    cut, cert = one_cut
    ev = cert["evidence"]
    assert set(ev) == {"0", "1", "2"} and "dead" in ev["0"] and "active" in ev["1"] and "switching" in ev["2"]
    N = CUT_ONE.n_parameters
    # kernel: 2 dead (d + 1 + m = 4 each), 1 scaling, the block of one active neuron: 4 - (1 + 2 - 1)
    assert cut.value == N - (4 + 4 + 1 + (4 - 2)) == 6
    assert exact_rank(CUT_ONE, [(Q(-1, 2), Q(0)), (Q(0), Q(-1, 2)), (Q(1, 2), Q(-1, 4)), (Q(1, 4), Q(0)),
                                (Q(-1, 2), Q(1, 4)), (Q(0), Q(1, 2)), (Q(1, 3), Q(-1, 7))]) == 6


@pytest.mark.parametrize("name,change", [
    ("a dual made negative", lambda c: c["evidence"]["0"].update(dead=["-1", "0"])),
    ("dead claimed active", lambda c: c["evidence"].update({"0": {"active": ["0", "0"]}})),
    ("a dual too small", lambda c: c["evidence"]["0"].update(dead=["0", "0"])),
    ("a switching point moved out of the cut", lambda c: c["evidence"]["2"]["switching"][0].__setitem__(1, "-3")),
    ("a switching point on the wrong side", lambda c: c["evidence"]["2"]["switching"].reverse()),
    ("evidence left out", lambda c: c["evidence"].pop("2")),
    ("evidence for a neuron the box decides", lambda c: c["evidence"].update({"3": {"dead": ["0", "0"]}})),
    ("the interior point outside", lambda c: c["domain"].update(interior=["2", "2"])),
    ("a half-space dropped", lambda c: c["domain"]["halfspaces"].pop()),
    ("the half-spaces and interior dropped", lambda c: (c["domain"].pop("halfspaces"), c["domain"].pop("interior"))),
    ("the value", lambda c: c.update(value=c["value"] + 1)),
])
def test_false_theorem_claims_on_a_cut_are_rejected(one_cut, name, change):
    cert = _mutated(one_cut[1], change)
    try:
        ok, _ = verify(cert)
    except Exception as exc:                 # malformed (InputError) is a rejection too
        assert type(exc).__name__ == "InputError", exc
        return
    assert not ok, name


def test_the_theorem_on_a_cut_gives_way_to_the_sandwich_past_its_share_of_the_budget():
    """classify_on_cut's LPs check the deadline (THEOREM_SHARE of the timeout): at timeout 0 the
    sandwich answers, its bounds around the theorem's value."""
    cut = functional_dimension_on_cut(CUT_ONE, *CUT_ONE_P, timeout=0)
    assert not cut.theorem and cut.lower <= 6 <= cut.upper


def test_the_cli_decides_a_one_hidden_layer_net_on_a_cut(tmp_path):
    (tmp_path / "n.json").write_text(json.dumps(CUT_ONE.to_dict()))
    (tmp_path / "d.json").write_text(json.dumps({"box": [[-2, 2], [-2, 2]], "halfspaces": [
        {"a": [1, 1], "b": 1}, {"a": [-1, -1], "b": 1}]}))
    cert = tmp_path / "c.json"
    out = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "dim", str(tmp_path / "n.json"),
                          "--box", str(tmp_path / "d.json"), "--certificate", str(cert)],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "functional dimension 6 of 17 parameters" in out.stdout and "R39" in out.stdout
    got = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(cert)],
                         capture_output=True, text=True)
    assert got.returncode == 0 and got.stdout.startswith("VALID one_hidden_layer_dimension"), got.stdout


def test_the_exact_simplex_alone_classifies_as_highs_does(monkeypatch):
    """classify_on_cut's steps each decide exactly: with the float screening's points and
    HiGHS's optima switched off the exact simplex classifies alone, and the kinds, the value and
    the certificate's validity are the same on 30 planted cases."""
    from semialgebraic.dimension import one_layer
    from semialgebraic.dimension.sandwich import inscribed_cube
    from tests.fuzz.bab_fuzz import to_algebra
    q = lambda f: Q(f.numerator, f.denominator)
    for seed in range(30):
        net, lo, hi, cuts = _one_layer_case(seed)
        d = len(net[0][0][0])
        A = to_algebra(net)
        args = ([q(lo)] * d, [q(hi)] * d, [([q(v) for v in a], q(c)) for a, c in cuts])
        cube = inscribed_cube(*args)
        if cube is None:
            continue
        fast = one_layer.classify_on_cut(A, *args, cube)
        with monkeypatch.context() as m:
            m.setattr(one_layer._Cut, "_highs", lambda self, w, bi, sgn: None)
            m.setattr(one_layer._Cut, "screened", lambda self, W, b, rows: [(None, None)] * len(rows))
            slow = one_layer.classify_on_cut(A, *args, cube)
            cut = functional_dimension_on_cut(A, *args)
            assert verify(json.loads(json.dumps(sandwich_certificate(A, cut))))[0]
        assert fast[0] == slow[0], seed
        assert cut.value == functional_dimension_on_cut(A, *args).value
