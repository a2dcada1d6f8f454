"""Session 47: the fiber's lower bound on a box with different bounds per coordinate (and on the
data points' box of ``conserved --data``) took its interval facts from the stand-in cube
[−1, 1]^d of :func:`semialgebraic.dimension.directions.fiber_moves`: a neuron switching inside
the real box, z = 2 − x on [0, 16] × [0, 1], was always active on the stand-in, and its bias
trade was counted as a move (three-layer-fibers R40): ``conserved`` said 5 <= fiber <= 6 where
the fiber is 4 (``dim``, which maps the box onto a cube, said 4).  And a neuron always active
only through weights that cancel on a split pair has its bias trade (``dim`` and its
certificate: 10, was [9, 10])."""

from __future__ import annotations

import json

import pytest

from semialgebraic.verify import verify

# relu(2 − x) + relu(x − 5) + relu(2x − 10): kinks at x = 2 and x = 5 inside [0, 16]; the last
# two a split neuron.  Fiber 4: three scalings and the split's trade.
PROXY = {"layers": [{"weight": [[-1, 0], [1, 0], [2, 0]], "bias": [2, -5, -10]},
                    {"weight": [[1, 1, 1]], "bias": [0]}]}

# a neuron split in two (layer 1), read by neuron (2, 0) with weights 1, −1: z = 2 h_3 + 1/5
SPLIT2 = {"layers": [{"weight": [[1, 2], [1, 2], [2, -1]], "bias": ["1/2", "1/2", "1/3"]},
                     {"weight": [[1, -1, 2], [-1, 1, 1]], "bias": ["1/5", "-1/7"]},
                     {"weight": [[1, 1]], "bias": [0]}]}


@pytest.fixture
def proxy(tmp_path):
    p = tmp_path / "proxy.json"
    p.write_text(json.dumps(PROXY))
    return p


def test_dim_on_the_box_gives_the_fiber(proxy, run):
    code, out, _ = run("dim", proxy, "--box", "0:16,0:1", "--json")
    got = json.loads(out)
    assert code == 0 and got["fiber_dimension"] == 4


@pytest.mark.parametrize("how", ["box", "data"])
def test_conserved_on_a_box_of_unequal_sides_keeps_the_fiber_floor_below_the_fiber(how, proxy,
                                                                                 tmp_path, run):
    """The floor is 4 (not 5: neuron (1, 0) switches at x = 2 inside the box, its bias trade
    moves the kink); on the box, read on the cube as `dim` does, exactly 4."""
    if how == "box":
        extra = ["--box", "0:16,0:1"]
    else:
        data = tmp_path / "points.json"
        data.write_text(json.dumps({"inputs": [[x, y] for x in range(0, 17, 2) for y in (0, 1)]}))
        extra = ["--data", data]
    code, out, _ = run("conserved", proxy, *extra, "--json")
    got = json.loads(out)
    assert code in (0, 3)
    if how == "box":            # read on the cube as `dim` does: the shared-kink cap closes it
        assert got["fiber_dimension"] == 4
    else:
        assert got["fiber_dimension_lower"] == 4 <= got["fiber_dimension_upper"]


def test_readme_split_before_a_second_hidden_layer(tmp_path, run):
    """README: a 2-3-2-1 net with a split neuron, fiber dimension 8 of N = 20 (the split's
    outgoing trades, the scalings and a positive neuron's bias trade reach N − rank)."""
    net = tmp_path / "split3.json"
    layers = json.loads(json.dumps(SPLIT2["layers"]))
    layers[1]["weight"] = [[1, 2, 2], [-1, 1, 1]]
    net.write_text(json.dumps({"layers": layers}))
    code, out, _ = run("dim", net, "--json")
    got = json.loads(out)
    assert code == 0 and got["fiber_dimension"] == 8 and got["functional_dimension"] == 12


def test_a_neuron_active_through_a_cancelling_split_pair_trades_its_bias(tmp_path, run):
    net = tmp_path / "split2.json"
    net.write_text(json.dumps(SPLIT2))
    cert = tmp_path / "c.json"
    code, out, _ = run("dim", net, "--json", "--certificate", cert)
    got = json.loads(out)
    assert code == 0 and got["fiber_dimension"] == 10
    c = json.loads(cert.read_text())
    assert ["bias_trade", 1, 0] in c["fiber_moves"] and c["fiber_lower"] == 10
    ok, why = verify(c)
    assert ok and "fiber dimension = 10" in why, why


# ---- the s47 outside audit of the less-used commands (/work/scratch/s47/shallow) -------------

def test_reproduce_rows_check_what_they_name():
    """F1/F2: the one-neuron strata row compared nothing (any listing was "reproduced"); the
    permutation, rescaling and normalisation rows reran one bundled pair that mixes permutations
    and scalings; the kernel-directions row only looked for a split entry; the odd/even split
    row sampled an identity.  Each row now checks its own claim, and a wrong move fails it."""
    from algebra.rationals import Q
    from semialgebraic.reproduce import registry as r
    ok, detail = r._r16a()
    assert ok and "each representative equivalent to" in detail and "(`dim`: 2)" in detail
    ok, detail = r._r34()
    assert ok and "floor 4" in detail
    assert r._equiv_moved("swapped", r._permuted)[0]
    assert r._equiv_moved("scaled", r._rescaled([2 ** 40, Q(1, 3 ** 20)]))[0]

    def off(Ws, bs):                       # one neuron scaled without its column: a new function
        Ws[0][0] = [2 * w for w in Ws[0][0]]
        bs[0][0] *= 2
        return Ws, bs
    ok, detail = r._equiv_moved("one row doubled", off)
    assert not ok and "False" in detail
    ok, detail = r._r13()
    assert ok and "both pieces" in detail


def test_canon_to_a_binary_file_says_to_write_json(tmp_path, run):
    """F3: the representative's rows are scaled to a leading entry ±1 (4/5 here), which no
    float32 holds: exit 2, nothing written, and the line says to write .json."""
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"layers": [{"weight": [[1, 2], [-5, 4]], "bias": [1, 0]},
                                          {"weight": [[1, 1]], "bias": [0]}]}))
    out = tmp_path / "rep.npz"
    code, _, err = run("canon", net, "-o", out)
    assert code == 2 and not out.exists()
    assert "not exactly representable as float32" in err and "write it as .json" in err
    code, _, _ = run("canon", net, "-o", tmp_path / "rep.json")
    assert code == 0 and (tmp_path / "rep.json").exists()


@pytest.mark.parametrize("command, least", [("regions", "at least 1"), ("equiv", "at least 1"),
                                            ("dim", "non-negative")])
def test_max_regions_below_zero_says_the_same_as_zero(command, least, tmp_path, run):
    """F4: --max-regions 0 said "at least 1", −1 "non-negative" (dim takes 0: sampling only)."""
    net = tmp_path / "n.json"
    net.write_text(json.dumps(PROXY))
    args = [net, net] if command == "equiv" else [net]
    code, _, err = run(command, *args, "--max-regions", "-1")
    assert code == 2 and f"--max-regions must be {least}, got -1" in err


# ---- the s47 outside audit of the deep deciders (/work/scratch/s47/equivhunt) ----------------

CASES = __import__("pathlib").Path(__file__).resolve().parents[1] / "cases"


def test_diff_on_rd_takes_the_cheap_refutation_as_its_lower_bound(run):
    """F2: a 4-9-3-3-1 pair differing on a sliver (a dead neuron alive on it, |a − b| <= 3^-12):
    on R^4 the recession cone's search spent the whole budget and `diff` said max >= 0 at x = 0,
    where `equiv` found a point at once.  The refutation's point is now the lower bound, and
    `equiv --epsilon` below the maximum answers with it without a search."""
    a, b = CASES / "sliver_rd_4_9_3_3_1_a.json", CASES / "sliver_rd_4_9_3_3_1_b.json"
    code, out, _ = run("diff", a, b, "--timeout", "2", "--json")
    got = json.loads(out)
    assert code == 3 and got["lower"] == "1/531441" and got["upper"] is None
    code, out, _ = run("equiv", a, b, "--epsilon", "1/1000000", "--json")
    got = json.loads(out)
    assert code == 1 and got["answer"] is False and got["lower"] == "1/531441"


def test_a_leaf_bound_a_hair_above_its_claim_says_by_how_much(tmp_path, run):
    """F3: "a leaf's data prove ≈-11.846, not its claimed bound ≈-11.846" (b's output bias moved
    by 1e-9): the line now gives the excess, which the decimals show."""
    a = tmp_path / "a.json"
    b = tmp_path / "b.json"
    net = {"layers": [{"weight": [[1], [-1], [2]], "bias": [0, "1/2", -1]},
                      {"weight": [[1, -2, 3]], "bias": ["1/2"]}]}
    a.write_text(json.dumps(net))
    net["layers"][1]["weight"][0][2] = "31/10"
    b.write_text(json.dumps(net))
    cert = tmp_path / "c.json"
    code, _, _ = run("diff", a, b, "--box", "0,1", "--method", "bab", "--certificate", cert)
    assert code == 0
    c = json.loads(cert.read_text())
    c["b"]["layers"][1]["bias"][0] = "500000001/1000000000"
    cert.write_text(json.dumps(c))
    code, out, _ = run("verify", cert)
    assert code == 1 and "BROKEN" in out
    assert "not its claimed bound" in out and "above it by" in out, out


# ---- the s47 outside audit of absorb (/work/scratch/s47/absorb) ------------------------------

def test_absorb_reason_says_the_timeout_cut_the_enumeration(run):
    """F2: a d = 2, k = 24 block whose FIND-S system has nullity 20 (a planted S with one entry
    moved by 1e-9): cut by --timeout, the reason read "…: no 0/1 solution(s)" as if all 2^20
    assignments had been tried; it now names the timeout and how many were."""
    code, out, _ = run("absorb", CASES / "absorb_nullity20_near.json", "--timeout", "1",
                       "--max-nullity", "20", "--json")
    got = json.loads(out)
    assert code == 3 and got["answer"] is None
    assert "timeout of 1 s reached" in got["reason"] and "enumerated" in got["reason"]


def test_absorb_self_check_stays_within_the_budget(monkeypatch):
    """F1: the decision took 7.5 s and the certificate's in-process re-check 128 s past a 30 s
    timeout.  With a timeout the re-check gets the time left; cut, the verdict stands, said
    not re-checked."""
    import time
    from algebra.blocks import Block
    from semialgebraic.absorption import decide
    from semialgebraic.budget import Budget

    def slow(cert):                      # a checker that would run far past the budget
        end = time.monotonic() + 30
        while time.monotonic() < end:
            sum(range(1000))
        return True, "slow"
    monkeypatch.setattr(decide, "_verify", slow)
    t = time.monotonic()
    v = decide.absorbable(Block("relu", [[1, 0], [0, 1]], [[1, 0], [0, 1]]), budget=Budget(timeout=1))
    assert time.monotonic() - t < 5
    assert v.answer is False and v.details.get("certificate_checked") is False


# ---- the s47 outside audit of conserved (/work/scratch/s47/conserved) ------------------------

def test_nearby_rank_check_takes_no_exact_rational_rank_under_a_timeout(monkeypatch):
    """F2: `conserved --timeout 10` on a 2-16-12-1 net ran 17 s: the R22 reading's check at a
    nearby θ' took an exact rational rank (one FLINT call no signal stops) of rows with θ''s long
    denominators, 25 s.  Under a timeout that check now keeps to the rank mod p."""
    from algebra.network import Network
    from semialgebraic.budget import Budget
    from semialgebraic.dimension import functional as F
    seen = []
    real = F.functional_dimension

    def spy(*args, **kw):
        seen.append(kw.get("rational_rank", True))
        return real(*args, **kw)
    monkeypatch.setattr(F, "functional_dimension", spy)
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    # (since session 52 a small net, at most NEARBY_EXACT_PARAMETERS, gets its exact rank when
    # 20 s are left: a timeout that lasts no longer changes R22's reading; the rest as before)
    monkeypatch.setattr(F, "NEARBY_EXACT_PARAMETERS", 0)
    F.nearby_rank_jump(net, None, 4, Budget(timeout=30))
    F.nearby_rank_jump(net, None, 4, None)
    assert seen and seen[0] is False and seen[-1] is True
    monkeypatch.setattr(F, "NEARBY_EXACT_PARAMETERS", 160)
    seen.clear()
    F.nearby_rank_jump(net, None, 4, Budget(timeout=30))
    F.nearby_rank_jump(net, None, 4, Budget(timeout=5))
    assert seen[0] is True and seen[-1] is False


def test_the_bracket_jets_see_the_deadline():
    """F2 (the other half): one depth-4 bracket evaluates 2^4 jets, over a second on that net,
    between two checks of the deadline; each generator's jet now checks it."""
    from algebra.conservation.jets import _JetNet
    from algebra.network import Network
    from algebra.conservation.laws import _Stop
    import random
    net = Network.from_rows([[[1, 2], [-1, 1]], [[1, 1]]], [[0, 1], [0]])

    class S:                                   # one sample: its points and pattern
        pattern = (1, 1)
        points = [[1, 1], [2, 1], [1, 3]]
    calls = []

    def check():
        calls.append(1)
        if len(calls) > 3:
            raise _Stop
    ctx = _JetNet(net, [S()], check=check)
    with pytest.raises(_Stop):
        ctx.value(ctx.random_bracket(4, random.Random(0)))
    assert len(calls) == 4


def test_absorb_falls_back_to_the_exact_route_when_no_prime_works(run):
    """s47 absorb audit F3: a d = 6, k = 30 block whose other weights' denominators are the six
    primes of the modular route answered "undecided: no prime with invertible denominators"; the
    exact route decides it (a planted S = {0, …, 5})."""
    code, out, _ = run("absorb", CASES / "absorb_prime_denominators_yes.json", "--json")
    got = json.loads(out)
    assert code == 0 and got["answer"] is True


def test_absorb_says_when_the_competitor_has_biases(tmp_path, run):
    """s47 absorb audit F5: a ReLU block with biases is compared with blocks with biases,
    which only the certificate's `competitor` said; the text and `explain` say it now."""
    blk = {"format": "netfibers.block", "version": 1, "activation": "relu",
           "w_up": [[1, 0], [0, 1], [1, 1], [1, -1], [1, 2]],
           "w_down": [[-1, 0, 1, 0, 1], [0, -1, 0, 1, 1]], "skip": "identity",
           "b_up": [0, 0, 0, 0, 0], "b_down": [1, 2]}
    p = tmp_path / "h.json"
    p.write_text(json.dumps(blk))
    code, out, _ = run("absorb", p)
    assert code == 0 and "compared with: residual-free blocks of the same width with biases" in out
    code, out, _ = run("explain", "absorbable")
    assert code == 0 and "with biases b'_up, b'_down" in out


def test_conservation_certificates_tie_their_region_samples_to_the_network(tmp_path, run):
    """s47 conserved audit F1: a region sample's pattern was never checked to be one the network
    has (an impossible pattern with 8 frozen-parameter laws was VALID, 4 being the count; no
    sample at all gave 9).  Each region sample now carries a witness point whose pattern the
    checker re-derives; without one (older certificates) the verdict says so."""
    net = __import__("pathlib").Path(__file__).resolve().parents[2] / "algebra" / "examples" / "t10_two_linear.json"
    cert = tmp_path / "c.json"
    code, out, _ = run("conserved", net, "--certificate", cert)
    assert code == 0 and "certifies 4" in out
    c = json.loads(cert.read_text())
    assert all("witness" in s for s in c["samples"] if s["points"] is None)
    code, out, _ = run("verify", cert)
    assert code == 0 and "VALID" in out and "without a witness" not in out
    bad = dict(c, samples=[dict(c["samples"][0], pattern=[1, -1, -1])] + c["samples"][1:])
    cert.write_text(json.dumps(bad))
    code, _, err = run("verify", cert)
    assert code == 2 and "witness point's activation pattern is not the sample's" in err
    old = dict(c, samples=[{k: v for k, v in s.items() if k != "witness"} for s in c["samples"]])
    cert.write_text(json.dumps(old))
    code, out, _ = run("verify", cert)
    assert code == 0 and "2 region sample(s) without a witness point" in out
    none = dict(c, samples=[], brackets=[], lower=len(c["laws"]), upper=9)   # (no field at all)
    cert.write_text(json.dumps(none))
    code, out, _ = run("verify", cert)
    assert code == 0 and "no sample: the count says nothing" in out


def test_conserved_on_a_slice_says_why_it_refuses(tmp_path, run):
    """s47 conserved audit F3: on a box with a side of width 0 it said only "contains no linear
    region with non-empty interior"; it now says the box is a slice and that `dim` takes slices."""
    net = tmp_path / "n.json"
    net.write_text(json.dumps(PROXY))
    code, out, err = run("conserved", net, "--box=-1:1,1/2:1/2")
    assert code == 2 and out == "" and err.count("\n") == 1 and "is a slice" in err
