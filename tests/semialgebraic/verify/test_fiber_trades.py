"""Opposite first-layer pairs traded against always-active neurons: a move of the fiber's floor
(three-layer-fibers R40, its ``opposite_trade`` entry; session-37 counts audit F3).  The trades,
applied after the other moves by finite steps (recomputed where those led), keep the function
(decided exactly); the floor never exceeds N − the certified functional dimension; the checker
accepts the builder's claim and rejects false ones."""
import copy
import json
import random
from fractions import Fraction as F

import pytest

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import jsonable
from semialgebraic.dimension import functional_dimension
from semialgebraic.dimension.certificate import functional_dimension_certificate
from semialgebraic.dimension.fiber_floor import certified_fiber_floor
from semialgebraic.dimension.trades import opposite_rows, opposite_trade
from semialgebraic.equivalence.dispatch import equivalent
from semialgebraic.verify import verify

from .test_fiber_floor import BOX, _moved

# the audit's net (nets/B10_dead.json): relu(2 − 3x) and relu(3x − 2) an opposite pair,
# relu(x + 3) always active on [−2, 2], relu(−2) dead; two outputs.  By hand the fiber has
# dimension 11 = N − 11: the pair's linear part (δ ∈ R², one per output) traded against the
# active neuron's outgoing weights
B10 = Network.from_rows([[[0], [-3], [1], [-2], [3]], [[-2, -2, -1, 1, -1], [-3, 2, -2, 3, 2]]],
                        [[-2, 2, 3, 2, -2], [3, -2]])
WIDE = (Q(-2), Q(2))


def test_the_audit_net_has_its_fiber_dimension_exact():
    fd = functional_dimension(B10, domain=WIDE)
    assert fd.lower == fd.upper == 11
    assert (fd.fiber_dimension.lower, fd.fiber_dimension.upper) == (11, 11)   # was [9, 11]
    cert = json.loads(json.dumps(jsonable(functional_dimension_certificate(B10, fd, domain=WIDE))))
    trade = [e for e in cert["fiber_moves"] if e[0] == "opposite_trade"]
    assert len(trade) == 1 and trade[0][2]["pairs"] == [[1, 4]] and trade[0][2]["block"] == [2]
    assert [[F(str(v)) for v in m] for m in trade[0][2]["moves"]] == [[1, 3]]
    assert cert["fiber_lower"] == 11
    ok, why = verify(cert)
    assert ok and "fiber dimension = 11" in why, why


def _cert(net=B10, dom=WIDE):
    fd = functional_dimension(net, domain=dom)
    return json.loads(json.dumps(jsonable(functional_dimension_certificate(net, fd, domain=dom))))


def _with_trade(cert, spec):
    bad = copy.deepcopy(cert)
    bad["fiber_moves"] = [e for e in bad["fiber_moves"] if e[0] != "opposite_trade"] + \
        [["opposite_trade", 0, spec]]
    return bad


@pytest.mark.parametrize("spec, why", [
    ({"pairs": [[1, 3]], "block": [2], "moves": [["1", "3/2"]]}, "opposite rows"),     # -3x+2, -2x+2
    ({"pairs": [[1, 4]], "block": [2], "moves": [["1", "2"]]}, "affine part"),          # not in the kernel
    ({"pairs": [[1, 4]], "block": [3], "moves": [["1", "-3/2"]]}, "not active"),        # -2x+2 switches
    ({"pairs": [[1, 4]], "block": [0], "moves": [["1", "0"]]}, "dead"),                 # the dead one
    ({"pairs": [[3, 4]], "block": [2], "moves": [["1", "2"]]}, "opposite rows"),
    ({"pairs": [[2, 4]], "block": [2], "moves": [["1", "1"]]}, "always active"),        # the block's member
])
def test_false_trades_are_rejected(spec, why):
    cert = _cert()
    assert verify(cert)[0]
    ok, msg = verify(_with_trade(cert, spec))
    assert not ok and why in msg, msg


def test_a_trade_of_rank_below_d_is_refused():
    # d = 2: the block's row (1, 0) and the pair's normal (2, 0) span a line only.  Moves exist at
    # θ (2·w_block − w_p = 0), but a small move of the block's row leaves the kernel empty: no floor
    net = Network.from_rows([[[1, 0], [2, 0], [-4, 0], [0, 1]], [[1, 1, 1, 1]]], [[5, 1, -2, 0], [0]])
    assert opposite_rows(net, 0, {0}) == [[1, 2]]
    assert opposite_trade(net, 0, [[1, 2]], [0]) is None
    cert = _cert(net, (Q(-1), Q(1)))
    assert not any(e[0] == "opposite_trade" for e in cert["fiber_moves"]) and verify(cert)[0]
    ok, msg = verify(_with_trade(cert, {"pairs": [[1, 2]], "block": [0], "moves": [["1", "-2"]]}))
    assert not ok and "rank below the input dimension" in msg


def test_a_trade_is_first_layer_only_and_not_on_r_d_with_a_block():
    from algebra.exceptions import InputError
    deep = Network.from_rows([[[1], [-1]], [[1, 1], [1, -1]], [[1, 1]]], [[0, 0], [0, 0], [0]])
    cert = _cert(deep, (Q(-1), Q(1)))
    bad = copy.deepcopy(cert)
    bad["fiber_moves"].append(["opposite_trade", 1, {"pairs": [[0, 1]], "block": [], "moves": [["1"]]}])
    ok, msg = verify(bad)
    assert not ok and "first hidden layer" in msg
    bad["fiber_moves"][-1][1] = 2                      # no such hidden layer: malformed
    with pytest.raises(InputError):
        verify(bad)
    net = Network.from_rows([[[1], [-3], [3]], [[1, 1, 1]]], [[3, 2, -2], [0]])     # on R
    cert = _cert(net, None)
    ok, msg = verify(_with_trade(cert, {"pairs": [[1, 2]], "block": [0], "moves": [["1", "3"]]}))
    assert not ok and "R^d" in msg


def test_two_opposite_pairs_trade_on_the_line_without_a_block():
    # d = 1: relu(x − 1) − relu(1 − x) and relu(2x + 1) − relu(−2x − 1) are affine; their linear
    # parts cancel with δ = (2, −1): one trade per output (R^d, no block needed)
    net = Network.from_rows([[[1], [-1], [2], [-2]], [[1, 2, -1, 3], [2, 1, 1, 1]]], [[-1, 1, 1, -1], [0, 0]])
    cert = _cert(net, None)
    trade = [e for e in cert["fiber_moves"] if e[0] == "opposite_trade"]
    assert len(trade) == 1 and trade[0][2]["block"] == [] and len(trade[0][2]["moves"]) == 1
    assert verify(cert)[0]
    moved = _moved(net, None, cert["fiber_moves"], random.Random(3))
    assert moved != net and equivalent(net, moved).answer is True


def _planted(seed: int):
    """1-2 inputs, one or two hidden layers; the first holds 1-2 opposite pairs (either
    orientation first, factors of either size) and, on a box, 1-2 neurons active on it (one may
    touch 0), on the orthant positive rows; some nets also a dead neuron and a split pair."""
    rng = random.Random(seed)
    d = rng.choice([1, 2])
    widths = [d] + [rng.randint(4, 6) for _ in range(rng.choice([1, 2]))] + [rng.choice([1, 2])]
    dom = rng.choice([BOX, BOX, "orthant", None])

    def q():
        return F(rng.choice([-1, 1]) * rng.randint(1, 9), rng.choice([3, 5, 7]))
    Ws = [[[q() for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    bs = [[q() for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    n = widths[1]
    idx = rng.sample(range(n), n)
    for _ in range(rng.choice([1, 2])):
        p, m = idx.pop(), idx.pop()
        s = rng.choice([F(1), F(2), F(1, 3)])
        Ws[0][m] = [-s * w for w in Ws[0][p]]
        bs[0][m] = -s * bs[0][p]
    for a in idx[:rng.choice([1, 2])]:
        if dom == BOX:
            bs[0][a] = sum(abs(w) for w in Ws[0][a]) + rng.choice([0, 1])
        elif dom == "orthant":
            Ws[0][a] = [abs(w) for w in Ws[0][a]]
            bs[0][a] = abs(bs[0][a])
    return Network.from_rows(Ws, bs), dom


@pytest.mark.parametrize("seed", range(30))
def test_planted_trades_keep_the_function_and_the_certificate_holds(seed):
    from tests.semialgebraic.verify.test_fiber_floor import moves_hold
    moves_hold(*_planted(seed), random.Random(seed + 500), moved=_moved)


def test_planted_trades_are_found():
    # a trade is listed on most planted nets (the rank condition and the pairs' facts allow it)
    found = sum(any(e[0] == "opposite_trade" for e in certified_fiber_floor(*_planted(s))[0])
                for s in range(30))
    assert found >= 12, found


def test_the_audit_net_through_the_cli(tmp_path, capsys):
    from semialgebraic.cli import main
    src = tmp_path / "b10.json"
    src.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
        {"weight": [[0], [-3], [1], [-2], [3]], "bias": [-2, 2, 3, 2, -2]},
        {"weight": [[-2, -2, -1, 1, -1], [-3, 2, -2, 3, 2]], "bias": [3, -2]}]}))
    assert main(["dim", str(src), "--box", "-2,2", "--timeout", "60"]) == 0
    text = capsys.readouterr().out
    assert "fiber dimension 11 " in text, text


# ---- neurons whose output reaches nobody (unseen): their rows move on any domain ----

# the counts audit's D16 (2-2-1-1-1, output weight 0, f = 1): every hidden neuron's output
# reaches only the unread last one, so all 11 hidden parameters move; the floor was 5 on R^2
D16 = Network.from_rows([[[1, 3], [0, 2]], [[-1, 2]], [[-1]], [[0]]], [[-3, -1], [-2], [3], [1]])


def test_unseen_neurons_free_their_rows_on_r_d():
    fd = functional_dimension(D16)
    assert fd.lower == fd.upper == 2
    assert (fd.fiber_dimension.lower, fd.fiber_dimension.upper) == (11, 11)     # was [5, 11]
    cert = json.loads(json.dumps(jsonable(functional_dimension_certificate(D16, fd))))
    assert ["unseen", 0, 0] in cert["fiber_moves"] and ["unseen", 1, 0] in cert["fiber_moves"]
    assert ["unread", 2, 0] in cert["fiber_moves"] and cert["fiber_lower"] == 11
    ok, why = verify(cert)
    assert ok and "fiber dimension = 11" in why, why
    moved = _moved(D16, None, cert["fiber_moves"], random.Random(1))
    assert moved != D16 and equivalent(D16, moved).answer is True


def test_false_unseen_entries_are_rejected():
    from algebra.exceptions import InputError
    # 1-2-1-1: neuron (0, 1) feeds the read neuron (1, 0); (1, 0) is read by the output
    net = Network.from_rows([[[1], [2]], [[1, 1]], [[1]]], [[0, 1], [-1], [0]])
    cert = _cert(net, (Q(-1), Q(1)))
    assert not any(e[0] == "unseen" for e in cert["fiber_moves"]) and verify(cert)[0]
    for entry, msg in ((["unseen", 0, 1], "reaches neuron (1, 0)"), (["unseen", 1, 0], "an output")):
        bad = copy.deepcopy(cert)
        bad["fiber_moves"].append(entry)
        ok, why = verify(bad)
        assert not ok and msg in why, why
    cert = _cert(D16, None)
    bad = copy.deepcopy(cert)
    bad["fiber_moves"].append(["unread", 1, 0])           # listed unseen already
    with pytest.raises(InputError):
        verify(bad)
    bad = copy.deepcopy(cert)                             # its successor not listed any more
    bad["fiber_moves"] = [e for e in bad["fiber_moves"] if e != ["unseen", 1, 0]]
    ok, why = verify(bad)
    assert not ok and "reaches neuron (1, 0)" in why, why


@pytest.mark.parametrize("seed", range(12))
def test_planted_unseen_chains_keep_the_function(seed):
    # a random 2-4-3-2-1 net on a box, the orthant or R^2 with neurons feeding only an unread one
    rng = random.Random(seed)
    dom = rng.choice([BOX, "orthant", None])

    def q():
        return F(rng.choice([-1, 1]) * rng.randint(1, 9), rng.choice([3, 5, 7]))
    widths = [2, 4, 3, 2, 1]
    Ws = [[[q() for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(4)]
    bs = [[q() for _ in range(widths[l + 1])] for l in range(4)]
    Ws[3][0][1] = F(0)                                    # (2, 1) unread
    Ws[2][0][2] = F(0)                                    # (1, 2) feeds only it
    if seed % 2:                                          # (0, 3) feeds only (1, 2)
        Ws[1][0][3] = Ws[1][1][3] = F(0)
    bs[2][1] = bs[1][2] = bs[0][3] = F(1000)              # none of them dead
    Ws[2][1] = [abs(w) for w in Ws[2][1]]
    Ws[1][2] = [abs(w) for w in Ws[1][2]]
    net = Network.from_rows(Ws, bs)
    entries, floor = certified_fiber_floor(net, dom)
    assert ["unread", 2, 1] in entries and ["unseen", 1, 2] in entries
    assert (["unseen", 0, 3] in entries) == bool(seed % 2)
    moved = _moved(net, dom, entries, random.Random(seed))
    assert equivalent(net, moved, domain=dom).answer is True
    fd = functional_dimension(net, domain=dom)
    assert floor <= net.n_parameters - fd.lower
    cert = json.loads(json.dumps(jsonable(functional_dimension_certificate(net, fd, domain=dom))))
    ok, why = verify(cert)
    assert ok and cert["fiber_lower"] == floor, why
