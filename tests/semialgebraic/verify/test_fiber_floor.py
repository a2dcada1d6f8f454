"""The certified floor of the fiber's dimension (three-layer-fibers R40): the ``fiber_moves`` of a
``functional_dimension`` certificate are moves that keep the function — applied one after the
other by finite steps to random nets with dead, unread and split neurons planted, on a box, the
orthant and R^d, the network computes the same function (decided exactly) —, the checker
accepts the builder's claim and rejects every false one."""
import copy
import json
import random
from fractions import Fraction as F

import pytest

from algebra.exceptions import InputError
from algebra.kernel import interval_bounds
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import jsonable
from semialgebraic.dimension import functional_dimension
from semialgebraic.dimension.certificate import functional_dimension_certificate
from semialgebraic.dimension.fiber_floor import certified_fiber_floor, fiber_floor_moves
from semialgebraic.equivalence.dispatch import equivalent
from semialgebraic.verify import verify

BOX = (Q(-1), Q(1))


def _planted(seed: int, cancel: bool = False, lone: bool = False):
    """A random net (1 or 2 hidden layers, 1-2 inputs) with a dead neuron, an unread one and a
    split pair planted (each with some chance), on a box, the orthant or R^d; with *cancel*, the
    split pair (or a triple) of one layer made to cancel, Σ c_m W_{l+1}[:, m] = 0; with *lone*
    (two hidden layers), a second-layer neuron always active only through weights that cancel
    on a split pair of the first (``bias_trade``: its row has a negative weight, so no block)."""
    rng = random.Random(seed)
    d = rng.choice([1, 2])
    widths = [d] + [rng.randint(3, 5) for _ in range(2 if lone else rng.choice([1, 2]))] + [rng.choice([1, 2])]
    dom = rng.choice([BOX, "orthant", None])

    def q():
        return F(rng.choice([-1, 1]) * rng.randint(1, 9), rng.choice([3, 5, 7]))
    Ws = [[[q() for _ in range(widths[l])] for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    bs = [[q() for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    for l in range(len(widths) - 2):
        n = widths[l + 1]
        r, m, k, u = rng.sample(range(n), 3) + [rng.randrange(n)]
        if rng.random() < 0.6:                       # split pair
            c = rng.choice([F(1), F(2), F(1, 3)])
            Ws[l][m] = [c * w for w in Ws[l][r]]
            bs[l][m] = c * bs[l][r]
        if rng.random() < 0.6:                       # dead (on R^d the first layer's w = 0)
            bs[l][k] = F(-100)
            if l > 0 or dom != BOX:
                Ws[l][k] = [-abs(w) for w in Ws[l][k]] if (l > 0 or dom == "orthant") else [F(0)] * widths[l]
        if rng.random() < 0.5:                       # unread
            for j in range(widths[l + 2]):
                Ws[l + 1][j][u] = F(0)
        if dom == BOX and rng.random() < 0.6:        # always active on the cube (one may touch 0)
            for a in rng.sample(range(n), 2):
                bs[l][a] = sum(abs(w) for w in Ws[l][a]) * (100 if l else 1) + rng.choice([0, 1])
        elif dom != BOX and (l > 0 or dom == "orthant") and rng.random() < 0.6:
            for a in rng.sample(range(n), 2):            # positive rows on inputs >= 0 (session 32)
                Ws[l][a] = [abs(w) for w in Ws[l][a]]
                bs[l][a] = abs(bs[l][a])
    if cancel:                                       # after the rest: the group keeps its rows
        l = rng.randrange(len(widths) - 2)
        g = rng.sample(range(widths[l + 1]), rng.choice([2, 2, 3]))
        cs = [F(1)] + [rng.choice([F(1), F(2), F(1, 3)]) for _ in g[1:]]
        Ws[l][g[0]] = [q() for _ in range(widths[l])]   # a fresh row (switching, read)
        bs[l][g[0]] = q()
        for k in range(widths[l + 2]):
            for m in g[:-1]:
                Ws[l + 1][k][m] = q()
        for m, c in zip(g[1:], cs[1:]):
            Ws[l][m] = [c * w for w in Ws[l][g[0]]]
            bs[l][m] = c * bs[l][g[0]]
        for k in range(widths[l + 2]):               # the last member's column closes the sum
            Ws[l + 1][k][g[-1]] = -sum(c * Ws[l + 1][k][m] for m, c in zip(g[:-1], cs[:-1])) / cs[-1]
    if lone:                                         # after the rest: its own split pair
        r, m = rng.sample(range(widths[1]), 2)
        c = rng.choice([F(1), F(2), F(1, 3)])
        Ws[0][r] = [q() for _ in range(d)]
        bs[0][r] = q()
        Ws[0][m] = [c * w for w in Ws[0][r]]
        bs[0][m] = c * bs[0][r]
        a = rng.randrange(widths[2])
        w = abs(q())
        Ws[1][a] = [abs(x) for x in Ws[1][a]]
        Ws[1][a][r], Ws[1][a][m] = w * c, -w  # c·w·h_r − w·h_m = 0
        bs[1][a] = abs(bs[1][a]) * rng.choice([0, 1])
    return Network.from_rows(Ws, bs), dom


def _moved(net: Network, dom, entries, rng) -> Network:
    """The moves applied one after the other by finite random steps: scalings by exact factors,
    split trades, a dead neuron's bias lowered by 1000 with its incoming weights shifted down
    (its incoming range lies in the orthant beyond the first layer: still dead) and its outgoing
    weights changed, an unread neuron's incoming weights and bias changed; the rows of split
    groups of the next layer left alone (as the certificate's vectors do)."""
    Ws = [[list(r) for r in W.to_rows()] for W in net.weights]
    bs = [list(b) for b in net.biases]
    split = {}
    for e in entries:
        if e[0] == "split_out":
            split.setdefault(e[1], set()).update(e[2])

    def step():
        return Q(rng.randint(-9, 9), rng.choice([7, 11, 13]))
    for e in entries:
        kind, l = e[0], e[1]
        free = [k for k in range(len(Ws[l + 1])) if k not in split.get(l + 1, ())]
        if kind == "scale":
            lam = Q(rng.randint(1, 9), rng.randint(1, 9))
            i = e[2]
            Ws[l][i] = [lam * a for a in Ws[l][i]]
            bs[l][i] *= lam
            for k in range(len(Ws[l + 1])):
                Ws[l + 1][k][i] /= lam
        elif kind == "split_out":
            g = e[2]
            r = g[0]
            lead = next(c for c, w in enumerate(Ws[l][r] + [bs[l][r]]) if w != 0)
            ref = (Ws[l][r] + [bs[l][r]])[lead]
            for m in g[1:]:
                cm = (Ws[l][m] + [bs[l][m]])[lead] / ref
                for k in free:
                    t = step()
                    Ws[l + 1][k][r] += cm * t
                    Ws[l + 1][k][m] -= t
        elif kind == "dead":
            i = e[2]
            bs[l][i] -= 1000
            if l == 0 and isinstance(dom, tuple):
                Ws[l][i] = [w + step() / 100 for w in Ws[l][i]]
            elif l == 0 and dom is None:        # w = 0 on R^d, and it stays
                pass
            else:
                Ws[l][i] = [w - abs(step()) for w in Ws[l][i]]
            for k in free:
                Ws[l + 1][k][i] += step()
        elif kind == "cancelling":               # the common row, by c_m (at this point) times δ
            g = e[2]
            r = g[0]
            lead = next(c for c, w in enumerate(Ws[l][r]) if w != 0)
            below = next((f[2] for f in entries if f[0] == "active_block" and f[1] == l - 1), [])
            delta = [step() for _ in range(len(Ws[l][r]) + 1)]
            cs = [Ws[l][m][lead] / Ws[l][r][lead] for m in g]
            for m, cm in zip(g, cs):
                Ws[l][m] = [w + (0 if c in below else cm * t) for c, (w, t) in enumerate(zip(Ws[l][m], delta))]
                bs[l][m] += cm * delta[-1]
        elif kind in ("unread", "unseen"):
            i = e[2]
            Ws[l][i] = [w + step() for w in Ws[l][i]]
            bs[l][i] += step()
        elif kind == "bias_trade":               # t >= 0 (z >= 0: one-sided), no margin needed
            i = e[2]
            t = Q(rng.randint(1, 9), rng.choice([2, 3, 7]))
            bs[l][i] += t
            for k in range(len(Ws[l + 1])):
                bs[l + 1][k] -= Ws[l + 1][k][i] * t
        elif kind == "active_block":             # bias trade (a margin), rows along ker V_B, GL
            B = e[2]
            for i in B:
                eps = Q(1, rng.choice([2, 3, 5]))
                bs[l][i] += eps
                for k in range(len(Ws[l + 1])):
                    bs[l + 1][k] -= Ws[l + 1][k][i] * eps
            # steps small against the margin: |z| <= top on the box, every z_i >= eps >= 1/5 now;
            # off the box, small against the members' smallest entry (their rows stay positive)
            if isinstance(dom, tuple):
                ivs = interval_bounds(Ws, bs, net.n_inputs, dom)
                top = max(max(abs(a), abs(b_)) for a, b_ in ivs[l]) + max(
                    (max(abs(a), abs(b_)) for a, b_ in (ivs[l - 1] if l else [(Q(1), Q(1))])), default=1)
                tiny = Q(1, 100) / ((1 + top) * len(B) * (1 + len(Ws[l][0])))
            else:
                ents = [x for i in B for x in Ws[l][i] + [bs[l][i]]]
                tiny = min(ents) / (100 * len(B) * (1 + max(ents)) * (1 + len(Ws[l][0])))
            C = QMatrix.from_rows([[Ws[l + 1][k][m] for m in B] for k in range(len(Ws[l + 1]))],
                                  ncols=len(B))
            for t in C.nullspace().to_rows():
                for c in range(len(Ws[l][0]) + 1):
                    s_ = step() * tiny / max(1, max(abs(w) for w in t))
                    for m, w in zip(B, t):
                        if c < len(Ws[l][0]):
                            Ws[l][m][c] += s_ * w
                        else:
                            bs[l][m] += s_ * w
            M = QMatrix.from_rows([[Q(int(a == b_)) + step() * tiny for b_ in range(len(B))]
                                   for a in range(len(B))], ncols=len(B))
            Mi = M.inverse()
            rows = [Ws[l][i] + [bs[l][i]] for i in B]
            new = [[sum(M[a, c] * rows[c][j] for c in range(len(B))) for j in range(len(rows[0]))]
                   for a in range(len(B))]
            for a, i in enumerate(B):
                Ws[l][i], bs[l][i] = new[a][:-1], new[a][-1]
            for k in range(len(Ws[l + 1])):
                col = [Ws[l + 1][k][i] for i in B]
                for a, i in enumerate(B):
                    Ws[l + 1][k][i] = sum(col[c] * Mi[c, a] for c in range(len(B)))
    for e in entries:
        if e[0] == "opposite_trade":             # last: recomputed where the others led
            from semialgebraic.dimension.trades import opposite_trade, trade_vectors
            here = Network.from_rows(Ws, bs)
            spec = opposite_trade(here, 0, e[2]["pairs"], e[2]["block"])
            assert spec is not None and len(spec["moves"]) == len(e[2]["moves"])
            free = [k for k in range(len(Ws[1])) if k not in split.get(1, ())]
            flat = [x for W, b in zip(Ws, bs) for x in [w for r in W for w in r] + list(b)]
            for v in trade_vectors(here, 0, spec, free):
                t = step()
                for k, w in v.items():
                    flat[k] += t * w
            return Network.from_parameters(net.widths, flat)
    return Network.from_rows(Ws, bs)


def moves_hold(net, dom, rng, moved=None) -> tuple:
    """The certificate's moves applied by finite steps (*moved*: the function doing it, default
    :func:`_moved`) keep the function (decided exactly), the floor is at most N − the functional
    dimension and at most `dim`'s upper end, the certificate holds it, VALID, and its claim + 1
    is rejected; ``(entries, floor, cert)``."""
    entries, floor = certified_fiber_floor(net, dom)
    got = equivalent(net, (moved or _moved)(net, dom, entries, rng), domain=dom)
    assert got.answer is True, (entries, got.reason)
    fd = functional_dimension(net, domain=dom)
    assert floor <= net.n_parameters - fd.lower and floor <= fd.fiber_dimension.upper
    assert fd.fiber_dimension.lower >= floor      # `dim` ranks the certificate's moves too (s47)
    cert = json.loads(json.dumps(jsonable(functional_dimension_certificate(net, fd, domain=dom))))
    assert cert["fiber_lower"] == floor
    ok, why = verify(cert)
    assert ok and "fiber dimension" in why, why
    bad = copy.deepcopy(cert)
    bad["fiber_lower"] = floor + 1
    assert not verify(bad)[0]
    return entries, floor, cert


@pytest.mark.parametrize("seed", range(24))
def test_the_moves_keep_the_function_and_the_certificate_holds(seed):
    net, dom = _planted(seed)
    entries, _, _ = moves_hold(net, dom, random.Random(seed + 1000))
    assert entries == fiber_floor_moves(net, dom)


def test_a_generic_net_has_its_fiber_dimension_certified_exactly():
    """1-hidden-layer 2-4-1 generic net on R^2: functional dimension N − 4, fiber 4 = its
    scalings; the certificate says so."""
    net = Network.from_rows([[[1, 2], [3, -1], [-2, 1], [1, 1]], [[1, -2, 3, 1]]],
                            [[1, -1, 2, "1/2"], [0]])
    fd = functional_dimension(net)
    cert = functional_dimension_certificate(net, fd)
    ok, why = verify(cert)
    assert ok and fd.exact and cert["fiber_lower"] == 4 == net.n_parameters - fd.value
    assert "fiber dimension = 4" in why


def test_a_split_and_a_dead_neuron_on_a_box():
    """relu(x) + relu(2x) + 0·relu(−x − 5) on [−1, 1]: 2 scalings, the trade, 3 of the dead one
    (its scaling among them): fiber >= 6, functional dimension 3 of 10 (so <= 7)."""
    net = Network.from_rows([[[1], [2], [-1]], [[1, 1, 0]]], [[0, 0, -5], [0]])
    fd = functional_dimension(net, domain=BOX)
    cert = functional_dimension_certificate(net, fd, domain=BOX)
    ok, why = verify(cert)
    assert ok and cert["fiber_lower"] == 6 and "fiber dimension in [6, 7]" in why


def _cert():
    net = Network.from_rows([[[1], [2], [-1], [3], [-2]], [[1, 1, 0, 2, 1]]], [[0, 0, -5, 1, 1], [0]])
    fd = functional_dimension(net, domain=BOX)
    return functional_dimension_certificate(net, fd, domain=BOX)


@pytest.mark.parametrize("entry, why", [
    (["dead", 0, 3], "not dead"),
    (["unread", 0, 3], "is read"),
    (["split_out", 0, [3, 4]], "not a positive multiple"),
    (["split_out", 0, [2, 3]], "dead or unread"),
    (["split_out", 0, [1, 3]], "two split_out groups"),
])
def test_false_moves_are_rejected(entry, why):
    cert = _cert()
    assert verify(cert)[0]
    bad = copy.deepcopy(cert)
    bad["fiber_moves"].append(entry)
    ok, msg = verify(bad)
    assert not ok and why in msg


def test_a_first_layer_neuron_dead_on_rd_moves_its_bias_not_its_weights():
    """0·x − 1 on R^2 is dead, and its w must stay 0 (session 23's overcount): its bias and
    outgoing weight move, not its incoming weights.  DEAD_FIRST: 2 scalings + those 2 = 4, the
    fiber's dimension, certified as the floor; on a box its incoming weights move too (6)."""
    from tests.semialgebraic.test_fiber_bounds import DEAD_FIRST
    fd = functional_dimension(DEAD_FIRST)
    cert = functional_dimension_certificate(DEAD_FIRST, fd)
    ok, why = verify(cert)
    assert ok and ["dead", 0, 0] in cert["fiber_moves"] and cert["fiber_lower"] == 4
    assert "fiber dimension in [4, 6]" in why      # (dim's shared-kink cap, 4, is not certified)
    assert certified_fiber_floor(DEAD_FIRST, BOX)[1] == 6


def test_malformed_fiber_entries_are_input_errors():
    cert = _cert()
    for moves in ([["scale", 5, 0]], [["scale", 0]], [["teleport", 0, 0]], [["split_out", 0, [1]]],
                  [["split_out", 0, [1, 1]]], [["scale", 0, 0], ["scale", 0, 0]], "scale"):
        bad = copy.deepcopy(cert)
        bad["fiber_moves"] = moves
        with pytest.raises(InputError):
            verify(bad)
    bad = copy.deepcopy(cert)
    del bad["fiber_lower"]
    with pytest.raises(InputError):
        verify(bad)


def test_an_always_active_block_on_a_box():
    """5 + x, 3 + 2x always active on [−1, 1], x switching: f = 3 − x + 2 relu(x) + ... has
    functional dimension 4 of 10 (an affine part, a kink's weight and place); the block's 6
    parameters and the output bias give the affine part (5 free), the switching neuron its
    scaling: fiber >= 6 = N − 4, exact."""
    net = Network.from_rows([[[1], [2], [1]], [[1, -1, 2]]], [[5, 3, 0], [1]])
    fd = functional_dimension(net, domain=BOX)
    cert = functional_dimension_certificate(net, fd, domain=BOX)
    ok, why = verify(cert)
    assert ["active_block", 0, [0, 1]] in cert["fiber_moves"]
    assert ok and cert["fiber_lower"] == net.n_parameters - fd.lower == 6 and "fiber dimension = 6" in why
    for entry, msg in ((["active_block", 0, [0, 1, 2]], "not always active"),
                       (["active_block", 0, [2]], "two active blocks")):
        bad = copy.deepcopy(cert)
        bad["fiber_moves"] = [e for e in bad["fiber_moves"] if e[0] != "active_block" or entry[2] == [2]] + [entry]
        ok, reason = verify(bad)
        assert not ok and msg in reason
    fd = functional_dimension(net)                       # on R^d no first-layer block
    cert = functional_dimension_certificate(net, fd)
    assert not any(e[0] == "active_block" for e in cert["fiber_moves"]) and verify(cert)[0]
    bad = copy.deepcopy(cert)
    bad["fiber_moves"].append(["active_block", 0, [0, 1]])
    ok, reason = verify(bad)
    assert not ok and "first layer on R^d" in reason
    # on the orthant the same two neurons have rows and biases > 0: a block
    fd = functional_dimension(net, domain="orthant")
    cert = functional_dimension_certificate(net, fd, domain="orthant")
    assert ["active_block", 0, [0, 1]] in cert["fiber_moves"] and verify(cert)[0]


def test_a_positive_block_on_r_d_from_the_second_layer():
    """Second-layer neurons with rows and biases > 0 read post-ReLU inputs >= 0: active at every
    input and every parameter near θ, so their block's moves count on R^d (session 32); a member
    with a zero weight (a small move could make it negative, and its input is unbounded) is
    refused."""
    net = Network.from_rows([[[1, 0], [0, 1], [1, -1]], [[1, 2, 1], [3, 1, 1], [1, -1, 2]], [[1, 1, -1]]],
                            [[0, 0, 1], [1, 2, -1], [0]])
    fd = functional_dimension(net)
    cert = functional_dimension_certificate(net, fd)
    assert ["active_block", 1, [0, 1]] in cert["fiber_moves"]
    ok, why = verify(cert)
    assert ok, why
    moved = _moved(net, None, cert["fiber_moves"], random.Random(5))
    assert equivalent(net, moved).answer is True
    bad = copy.deepcopy(cert)
    bad["network"]["layers"][1]["weight"][0][2] = 0
    ok, reason = verify(bad)
    assert not ok
    bad = copy.deepcopy(cert)
    bad["fiber_moves"] = [e if e[0] != "active_block" else ["active_block", 1, [0, 1, 2]]
                          for e in bad["fiber_moves"]]
    ok, reason = verify(bad)
    assert not ok and "needs a bias and incoming weights > 0" in reason


@pytest.mark.parametrize("seed", range(12))
def test_a_cancelling_group_moves_its_common_row(seed):
    """A split group whose contributions cancel (Σ c_m W_{l+1}[:, m] = 0) outputs 0 whatever its
    common row is: the ``cancelling`` entry moves that row (three-layer-fibers R40, session 46).
    Planted on random nets with the other structures: every move applied by finite steps keeps
    the function (decided exactly), the certificate is VALID and its claim + 1 rejected, the
    floor never above N − the functional dimension."""
    moves_hold(*_planted(seed, cancel=True), random.Random(seed + 2000))


def test_the_planted_cancelling_groups_are_found():
    found = sum(any(e[0] == "cancelling" for e in certified_fiber_floor(*_planted(s, cancel=True))[0])
                for s in range(12))
    assert found >= 7          # (on a cube the neuron is often in the active block or dead)


# a 3-4-1 net on R^3 whose neurons 2, 3 have rows (r, r/2) and outgoing weights 2, −4:
# 2 relu(z) − 4 relu(z/2) = 0, so their common hyperplane moves freely (the fiber audit of
# session 45: fiber 8, where the other moves gave 5 and `dim` the interval [5, 8])
PAIR = Network.from_rows(
    [[[-2, 1, -3], [4, -3, -2], [-5, -1, -1], [F(-5, 2), F(-1, 2), F(-1, 2)]], [[1, -1, 2, -4]]],
    [[-4, -5, 3, F(3, 2)], [-5]])


def test_a_cancelling_pair_closes_the_fiber():
    fd = functional_dimension(PAIR)
    assert fd.exact and fd.value == 13
    assert fd.fiber_dimension.exact and fd.fiber_dimension.value == 8
    cert = functional_dimension_certificate(PAIR, fd)
    assert ["cancelling", 0, [2, 3]] in cert["fiber_moves"]
    ok, why = verify(cert)
    assert ok and cert["fiber_lower"] == 8 and "fiber dimension = 8" in why


@pytest.mark.parametrize("edit, why", [
    (lambda c: c["network"]["layers"][1]["weight"][0].__setitem__(3, -3), "does not cancel"),
    (lambda c: c["fiber_moves"].append(["cancelling", 0, [3, 2]]), "listed twice"),
    (lambda c: c["fiber_moves"].append(["cancelling", 0, [0, 1]]), "not a split_out group"),
    (lambda c: c["fiber_moves"].remove(["split_out", 0, [2, 3]]), "not a split_out group"),
])
def test_false_cancelling_entries_are_rejected(edit, why):
    cert = functional_dimension_certificate(PAIR, functional_dimension(PAIR))
    bad = copy.deepcopy(cert)
    edit(bad)
    ok, msg = verify(bad)
    assert not ok and why in msg, msg


def test_a_cancelling_group_read_by_a_dead_neuron_is_refused():
    """Layer 2's neuron 0 reads the cancelling pair and is dead: its own moves (incoming weights
    free) would break the cancelling, so the builder lists no such entry and the checker refuses
    one."""
    net = Network.from_rows([[[1], [2], [-1]], [[1, F(-1, 2), 1], [1, F(-1, 2), 1]], [[1, 1]]],
                            [[0, 0, 1], [-100, -1], [0]])
    entries, _ = certified_fiber_floor(net, BOX)
    assert ["dead", 1, 0] in entries and ["split_out", 0, [0, 1]] in entries
    assert not any(e[0] == "cancelling" for e in entries)
    cert = functional_dimension_certificate(net, functional_dimension(net, domain=BOX), domain=BOX)
    bad = copy.deepcopy(cert)
    bad["fiber_moves"].append(["cancelling", 0, [0, 1]])
    ok, msg = verify(bad)
    assert not ok and "listed dead" in msg, msg


@pytest.mark.parametrize("seed", range(12))
def test_a_lone_always_active_neuron_has_its_bias_trade(seed):
    """A second-layer neuron always active only through weights that cancel on a split pair of
    the first layer: ``["bias_trade", 1, a]`` (z >= 0 by interval bounds with the pair merged;
    the move is one-sided, t >= 0, session 47).  Every move applied by finite steps keeps the
    function, the certificate is VALID and its claim + 1 rejected."""
    entries, _, _ = moves_hold(*_planted(seed, lone=True), random.Random(seed + 3000))
    assert entries == fiber_floor_moves(*_planted(seed, lone=True))


def test_the_planted_lone_neurons_get_a_bias_trade():
    found = sum(any(e[0] == "bias_trade" and e[1] == 1 for e in
                    certified_fiber_floor(*_planted(s, lone=True))[0]) for s in range(12))
    assert found >= 7          # (on a cube the neuron is often in the active block or dead)


SPLIT2 = Network.from_rows([[[1, 2], [1, 2], [2, -1]], [[1, -1, 2], [-1, 1, 1]], [[1, 1]]],
                           [["1/2", "1/2", "1/3"], ["1/5", "-1/7"], [0]])


def test_the_two_layer_split_neuron_is_certified_exactly():
    """Neuron (1, 0) reads the split pair with weights 1, −1: z = 2 h_2 + 1/5 > 0 on R^2, its
    row's signs show no margin; its bias trade closes the fiber at 10 (was [9, 10], session 46)."""
    fd = functional_dimension(SPLIT2)
    cert = json.loads(json.dumps(jsonable(functional_dimension_certificate(SPLIT2, fd))))
    assert ["bias_trade", 1, 0] in cert["fiber_moves"] and cert["fiber_lower"] == 10
    ok, why = verify(cert)
    assert ok and "fiber dimension = 10" in why, why


SPLIT2_BAD = {     # the pair no longer split: the weights 1, −1 do not cancel (z unbounded below)
    "pair apart": Network.from_rows([[[1, 2], [1, 2], [2, -1]], [[1, -1, 2], [-1, 1, 1]], [[1, 1]]],
                                    [["1/2", "1/3", "1/3"], ["1/5", "-1/7"], [0]]),
    # the neuron's own bias below 0: z = 2 h_2 − 1 takes −1 on R^2
    "bias below 0": Network.from_rows([[[1, 2], [1, 2], [2, -1]], [[1, -1, 2], [-1, 1, 1]], [[1, 1]]],
                                      [["1/2", "1/2", "1/3"], [-1, "-1/7"], [0]]),
}


@pytest.mark.parametrize("name", sorted(SPLIT2_BAD))
def test_a_bias_trade_of_a_neuron_not_shown_active_is_rejected(name):
    from semialgebraic.verify.functional_dimension_fiber import fiber_vectors
    moves = [["split_out", 0, [0, 1]], ["bias_trade", 1, 0]]
    assert isinstance(fiber_vectors(SPLIT2, moves, None), list)
    why = fiber_vectors(SPLIT2_BAD[name], moves, None)
    assert isinstance(why, str) and ("not shown active" in why or "positive multiple" in why), why
    # without the split_out entry the pair is not merged: not shown either
    why = fiber_vectors(SPLIT2, moves[1:], None)
    assert isinstance(why, str) and "not shown active" in why, why


@pytest.mark.parametrize("change, reason", [
    # a bias trade of the switching neuron (1, 1): z = h_2 − 1/7
    (lambda c: c["fiber_moves"].append(["bias_trade", 1, 1]), "not shown active"),
    # a member of the split pair: its bias would break the pair's rows
    (lambda c: c["fiber_moves"].append(["bias_trade", 0, 0]), "split"),
])
def test_false_bias_trades_are_rejected(change, reason):
    fd = functional_dimension(SPLIT2)
    cert = json.loads(json.dumps(jsonable(functional_dimension_certificate(SPLIT2, fd))))
    change(cert)
    ok, why = verify(cert)
    assert not ok and reason in why, why


def test_a_bias_trade_listed_twice_is_malformed():
    fd = functional_dimension(SPLIT2)
    cert = json.loads(json.dumps(jsonable(functional_dimension_certificate(SPLIT2, fd))))
    cert["fiber_moves"].append(["bias_trade", 1, 0])
    with pytest.raises(InputError, match="listed twice"):
        verify(cert)
