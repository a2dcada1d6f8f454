"""``identify`` on one hidden layer with two neurons on one hyperplane of opposite orientations
whose kinks add (three-layer-fibers R42): verdicts against the test's own enumeration of where
θ' can put its neurons, planted copies against exact evaluation, S1 + S2 keep the verdict, and
the certificate's checker with mutations."""

import copy
import json
import random
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given, settings, strategies as st

from algebra.io.native import network_from_dict
from algebra.network import Network
from semialgebraic.certificates import jsonable
from semialgebraic.shallow.identifiability import identifiability_shallow
from semialgebraic.verify import verify

F = Fraction


def _net(W1, b1, W2, b2=None):
    return Network.from_rows([W1, W2], [b1, b2 if b2 is not None else [0] * len(W2)])


def _eval(net, x):
    """f(x) with Fractions (the test's own evaluation)."""
    (W1, b1), (W2, b2) = net.layer(0), net.layer(1)
    h = [max(sum(F(str(w)) * xi for w, xi in zip(W1.row_at(i), x)) + F(str(b1[i])), 0)
         for i in range(W1.nrows)]
    return [sum(F(str(W2[o, i])) * h[i] for i in range(len(h))) + F(str(b2[o])) for o in range(W2.nrows)]


def _orbit(net):
    """The test's own S1 + S2 normal form: each neuron scaled by |first non-zero of (w, b)|."""
    (W1, b1), (W2, b2) = net.layer(0), net.layer(1)
    out = []
    for i in range(W1.nrows):
        row = [F(str(x)) for x in W1.row_at(i)] + [F(str(b1[i]))]
        v = [F(str(W2[o, i])) for o in range(W2.nrows)]
        lead = next((abs(x) for x in row if x != 0), None)
        if lead is None:
            lv = next((abs(x) for x in v if x != 0), F(1))
            out.append((tuple(row), tuple(x / lv for x in v)))
        else:
            out.append((tuple(x / lead for x in row), tuple(x * lead for x in v)))
    return sorted(out), [F(str(c)) for c in b2]


def _placements(W1, b1, W2):
    """The test's own decision for exactly one opposite pair (three-layer-fibers R42's proof,
    read directly): θ' has one neuron on each kink hyperplane and one spare.  Enumerate which
    hyperplane (or none) carries two neurons of opposite orientations (its linear part B free)
    and the orientation of every other (B = 0 or its kink); a placement matching the linear part
    T = μ v_j w_iᵀ other than θ's own means not identifiable."""
    n, m = len(W1), len(W2)
    W1 = [[F(x) for x in r] for r in W1]
    b1 = [F(x) for x in b1]
    V = [[F(W2[o][i]) for o in range(m)] for i in range(n)]
    ext = [r + [b] for r, b in zip(W1, b1)]
    pair = [(i, j) for i in range(n) for j in range(i + 1, n)
            if all(ext[i][a] * ext[j][c] == ext[i][c] * ext[j][a] for a in range(len(ext[i]))
                   for c in range(len(ext[i])))]
    assert len(pair) == 1
    i, j = pair[0]
    lead = next(t for t, x in enumerate(ext[i]) if x != 0)
    mu = -ext[j][lead] / ext[i][lead]
    assert mu > 0
    K = [a + mu * b for a, b in zip(V[i], V[j])]
    hyper = [(W1[i], K)] + [(W1[k], V[k]) for k in range(n) if k not in (i, j)]
    T = [[mu * a * b for b in W1[i]] for a in V[j]]
    r = len(hyper)
    for double in [None] + list(range(r)):
        for signs in product((0, 1), repeat=r):
            if double is not None and signs[double]:
                continue
            R = [[T[o][t] - sum((hyper[k][1][o] * hyper[k][0][t] for k in range(r) if signs[k]), F(0))
                  for t in range(len(W1[0]))] for o in range(m)]
            if double is None:
                ok = all(x == 0 for row in R for x in row)
            else:
                wq = hyper[double][0]
                ok = all(row[a] * wq[c] == row[c] * wq[a] for row in R for a in range(len(wq))
                         for c in range(len(wq)))
            if ok and not (double == 0 and not any(signs)):
                return False
    return True


def _frank(rows):
    """Rank of a list of Fraction rows (the test's own elimination)."""
    rows = [list(r) for r in rows if any(x != 0 for x in r)]
    rank, col = 0, 0
    while rows and rank < len(rows) and col < len(rows[0]):
        piv = next((r for r in range(rank, len(rows)) if rows[r][col] != 0), None)
        if piv is None:
            col += 1
            continue
        rows[rank], rows[piv] = rows[piv], rows[rank]
        for r in range(len(rows)):
            if r != rank and rows[r][col] != 0:
                f = rows[r][col] / rows[rank][col]
                rows[r] = [a - f * b for a, b in zip(rows[r], rows[rank])]
        rank, col = rank + 1, col + 1
    return rank


def _placements_general(W1, b1, W2):
    """The test's own decision for p >= 1 opposite pairs (R42's proof read directly, with ranks
    of stacked rows instead of projectors): θ' puts one neuron on each kink hyperplane, both
    orientations on a set Q (|Q| <= p, linear part free along span{w_k : k in Q}), the others
    flipped or not (S), and up to (p − |Q|) // 2 linear pairs of spare neurons (any rank-one
    linear part each): feasible iff rank of the rows of T − Σ_S K_k w_kᵀ modulo span{w_k : k in
    Q} is <= that; identifiable iff only θ's own placement is, and the pairs' rows are
    independent."""
    from itertools import combinations
    n, m, d = len(W1), len(W2), len(W1[0])
    W1 = [[F(x) for x in r] for r in W1]
    b1 = [F(x) for x in b1]
    V = [[F(W2[o][i]) for o in range(m)] for i in range(n)]
    ext = [r + [b] for r, b in zip(W1, b1)]
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)
             if _frank([ext[i], ext[j]]) == 1]
    seconds = {j for _, j in pairs}
    firsts = {i: j for i, j in pairs}
    hyper, P, T = [], [], [[F(0)] * d for _ in range(m)]
    for k in range(n):
        if k in seconds:
            continue
        K = V[k]
        if k in firsts:
            j = firsts[k]
            lead = next(t for t, x in enumerate(ext[k]) if x != 0)
            mu = -ext[j][lead] / ext[k][lead]
            K = [a + mu * b for a, b in zip(V[k], V[j])]
            T = [[T[o][t] + mu * V[j][o] * W1[k][t] for t in range(d)] for o in range(m)]
            P.append(len(hyper))
        hyper.append((W1[k], K))
    p, r = len(P), len(hyper)
    if _frank([hyper[k][0] for k in P]) < p:
        return False
    for size in range(p + 1):
        for Qs in combinations(range(r), size):
            base = _frank([hyper[k][0] for k in Qs])
            rest = [k for k in range(r) if k not in Qs]
            for signs in product((0, 1), repeat=len(rest)):
                if list(Qs) == P and not any(signs):
                    continue
                R = [[T[o][t] - sum((hyper[k][1][o] * hyper[k][0][t] for k, s_ in zip(rest, signs) if s_), F(0))
                      for t in range(d)] for o in range(m)]
                if _frank(R + [hyper[k][0] for k in Qs]) - base <= (p - size) // 2:
                    return False
    return True


def _random_pairs_net(rng, d, n, m, p):
    """A net with I1, I2 and p opposite pairs with adding kinks, no other shared hyperplane."""
    ws, bs = tuple(range(-2, 3)), (-1, 0, 1)
    while True:
        rows = []
        for _ in range(p):
            wi = [rng.choice(ws) for _ in range(d)]
            bi = rng.choice(bs)
            mu = rng.choice((F(1), F(2), F(1, 2)))
            rows += [wi + [bi], [-mu * x for x in wi] + [-mu * bi]]
        while len(rows) < n:
            rows.append([rng.choice(ws) for _ in range(d)] + [rng.choice(bs)])
        cols = [[rng.choice((-2, -1, 1, 2)) for _ in range(m)] for _ in range(n)]
        if any(not any(r[:d]) for r in rows):
            continue
        if any(not any(a + (-rows[2 * q + 1][next(t for t in range(d + 1) if rows[2 * q][t])]
                            / rows[2 * q][next(t for t in range(d + 1) if rows[2 * q][t])]) * b
                       for a, b in zip(cols[2 * q], cols[2 * q + 1])) for q in range(p)):
            continue                                   # a linear pair: another case of R41
        prop = [(a, b) for a in range(n) for b in range(a + 1, n) if _frank([rows[a], rows[b]]) == 1]
        if prop != [(2 * q, 2 * q + 1) for q in range(p)]:
            continue
        perm = list(range(n))
        rng.shuffle(perm)
        return ([[str(x) for x in rows[q][:d]] for q in perm], [str(rows[q][d]) for q in perm],
                [[str(cols[q][o]) for q in perm] for o in range(m)])


def _random_pair_net(rng, d, n, m):
    """A net with I1, I2 and one opposite pair with adding kinks (rows 0 and 1, then shuffled)."""
    ws = tuple(range(-2, 3)) if d > 1 else tuple(range(-4, 5))     # one input: enough distinct lines
    bs = (-1, 0, 1) if d > 1 else tuple(range(-3, 4))
    while True:
        vals = (-2, -1, 1, 2)
        wi = [rng.choice(ws) for _ in range(d)]
        if not any(wi):
            continue
        bi = rng.choice(bs)
        mu = rng.choice((F(1), F(2), F(1, 2)))
        rows = [wi + [bi], [-mu * x for x in wi] + [-mu * bi]]
        for _ in range(n - 2):
            rows.append([rng.choice(ws) for _ in range(d)] + [rng.choice(bs)])
        cols = [[rng.choice(vals) for _ in range(m)] for _ in range(n)]
        if any(not any(r[:d]) for r in rows):
            continue
        K = [a + mu * b for a, b in zip(cols[0], cols[1])]
        if not any(K):
            continue
        prop = [(a, b) for a in range(n) for b in range(a + 1, n)
                if all(rows[a][s] * rows[b][t] == rows[a][t] * rows[b][s]
                       for s in range(d + 1) for t in range(d + 1))]
        if prop != [(0, 1)]:
            continue
        perm = list(range(n))
        rng.shuffle(perm)
        W1 = [[str(x) for x in rows[p][:d]] for p in perm]
        b1 = [str(rows[p][d]) for p in perm]
        W2 = [[str(cols[p][o]) for p in perm] for o in range(m)]
        return W1, b1, W2


def _checked(net, v, rng, d):
    if v.answer is True:
        assert verify(jsonable(v.certificate))[0]
        assert v.certificate["fiber_dimension"] == net.widths[1]
        assert v.certificate["flip_sets"]["kind"] == "opposite_pair"
    elif v.answer is False:
        other = network_from_dict(v.details["planted_copy"])
        for _ in range(40):
            x = [F(rng.randint(-30, 30), rng.randint(1, 5)) for _ in range(d)]
            assert _eval(net, x) == _eval(other, x)
        assert _orbit(net) != _orbit(other)
        assert verify(jsonable(v.certificate))[0]


@pytest.mark.parametrize("seed", range(6))
def test_random_pairs_against_the_placements(seed):
    """Random nets with one planted opposite pair: every verdict is decided (one pair), agrees
    with the test's own enumeration of placements, and its evidence re-checks."""
    rng = random.Random(4200 + seed)
    counts = {True: 0, False: 0}
    for _ in range(30):
        d, m = rng.choice((1, 2, 2, 3)), rng.choice((1, 1, 2))
        n = rng.randint(2, 6)
        W1, b1, W2 = _random_pair_net(rng, d, n, m)
        net = _net(W1, b1, W2)
        v = identifiability_shallow(net)
        assert v.answer is _placements(W1, b1, W2), (W1, b1, W2, v.reason)
        counts[v.answer] += 1
        _checked(net, v, rng, d)
    assert counts[True] and counts[False]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_planted_permutation_and_scaling_keep_the_verdict(seed):
    rng = random.Random(seed)
    d, m, n = rng.choice((2, 3)), rng.choice((1, 2)), rng.randint(3, 5)
    W1, b1, W2 = _random_pair_net(rng, d, n, m)
    perm = list(range(n))
    rng.shuffle(perm)
    s = [F(rng.randint(1, 5), rng.randint(1, 3)) for _ in range(n)]
    W1b = [[str(F(x) * s[p]) for x in W1[p]] for p in perm]
    b1b = [str(F(b1[p]) * s[p]) for p in perm]
    W2b = [[str(F(r[p]) / s[p]) for p in perm] for r in W2]
    a, b = identifiability_shallow(_net(W1, b1, W2)), identifiability_shallow(_net(W1b, b1b, W2b))
    assert a.answer is b.answer is _placements(W1, b1, W2)


def test_examples_each_way():
    # |x1| + σ(x2): identifiable (the pair's linear part cannot move anywhere)
    v = identifiability_shallow(_net([[1, 0], [-1, 0], [0, 1]], [0, 0, 0], [[1, 1, 1]]))
    assert v.answer is True and "R42" in v.reason
    # |x| alone, two neurons: identifiable
    assert identifiability_shallow(_net([[1], [-1]], [0, 0], [[1, 1]])).answer is True
    # |x| + σ(x − 1) = 2σ(x) + σ(1 − x) − 1: not identifiable (one input: the pair's linear part
    # moves to any other hyperplane)
    v = identifiability_shallow(_net([[1], [-1], [1]], [0, 0, -1], [[1, 1, 1]]))
    assert v.answer is False
    other = network_from_dict(v.details["planted_copy"])
    for x in (-3, -1, 0, F(1, 2), 1, 2, 5):
        assert _eval(other, [x]) == _eval(_net([[1], [-1], [1]], [0, 0, -1], [[1, 1, 1]]), [x])
    # a parallel hyperplane (x1 = 1) takes the linear part too
    v = identifiability_shallow(_net([[1, 0], [-1, 0], [2, 0], [0, 1]], [0, 0, -2, 0], [[1, 1, 1, 1]]))
    assert v.answer is False
    # two pairs, one output: |x1| + |x2| = 2σ(x1) + 2σ(x2) − (x1 + x2), a linear pair pays it
    v = identifiability_shallow(_net([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0], [[1, 1, 1, 1]]))
    assert v.answer is False and "linear pair" in v.reason
    # two parallel pairs: |x| + |x − 1|, their linear parts trade
    v = identifiability_shallow(_net([[1], [-1], [1], [-1]], [0, 0, -1, 1], [[1, 1, 1, 1]]))
    assert v.answer is False and "linearly dependent" in v.reason
    # two pairs, two outputs, remainder T of rank 2; flipping the x1 hyperplane leaves
    # T − K w1ᵀ = [[-1, 1], [-1, 1]] of rank 1, which the two spare neurons pay as a linear pair
    v = identifiability_shallow(_net([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0],
                                     [[1, 1, 1, 1], [1, 2, 3, 1]]))
    assert v.answer is False and "1 linear pair(s)" in v.reason
    # two pairs and a third hyperplane in R^3, three outputs: identifiable
    v = identifiability_shallow(_net([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [1, 1, 1]],
                                     [0, 0, 0, 0, 0, 1], [[1, 1, 1, 1, 1, 2], [1, 2, 3, 1, -1, 1],
                                                          [0, 1, 2, 1, 1, 1]]))
    assert v.answer is True and v.certificate["flip_sets"]["kind"] == "opposite_pairs"
    # two pairs among 15 hyperplanes: more placements than enumerated, undecided
    rng = random.Random(5)
    W1 = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0]] + [[rng.randint(1, 9) for _ in range(3)] for _ in range(13)]
    W2 = [[1, 1, 1, 1] + [1] * 13, [1, 2, 3, 1] + [rng.randint(1, 5) for _ in range(13)]]
    v = identifiability_shallow(_net(W1, [0, 0, 0, 0] + list(range(1, 14)), W2))
    assert v.answer is None and "placements to try" in v.reason


def _identifiable_cert():
    v = identifiability_shallow(_net([[1, 0], [-1, 0], [0, 1], [1, 1]], [0, 0, 0, 1],
                                     [[1, 2, 1, 3], [2, 1, -1, 1]]))
    assert v.answer is True
    return jsonable(v.certificate)


def _rejecter(good):
    """``bad(edit)``: the certificate *good* edited by *edit* is refused (BROKEN or malformed)."""
    def bad(edit):
        c = copy.deepcopy(good)
        edit(c)
        try:
            return not verify(c)[0]
        except Exception:
            return True
    return bad


def test_mutated_certificates_are_rejected():
    good = _identifiable_cert()
    assert verify(good)[0]
    bad = _rejecter(good)
    assert bad(lambda c: c.update(fiber_dimension=3))
    assert bad(lambda c: c["flip_sets"].update(pair=[0, 2]))
    assert bad(lambda c: c.update(flip_sets={"kind": "split_sums"}))     # R41's proof: I3 fails
    assert bad(lambda c: c.update(claim=c["claim"].replace("R42", "R41")))
    # neuron 3 made parallel to the pair's hyperplane: (a) has a solution
    assert bad(lambda c: c["network"]["layers"][0]["weight"].__setitem__(3, [2, 0]))
    # the pair's kinks made to cancel (a linear pair): not identifiable
    assert bad(lambda c: c["network"]["layers"][1]["weight"].__setitem__(0, [1, -1, 1, 3]))
    # the pair with one orientation: a trade
    assert bad(lambda c: c["network"]["layers"][0]["weight"].__setitem__(1, [1, 0]))
    # a second opposite pair
    assert bad(lambda c: (c["network"]["layers"][0]["weight"].__setitem__(3, [0, -1]),
                          c["network"]["layers"][0]["bias"].__setitem__(3, 0)))


def test_cli_identify_an_abs_pair(tmp_path, capsys):
    from semialgebraic.cli import main
    path = tmp_path / "abs.json"
    path.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                                "layers": [{"weight": [[1, 0], [-1, 0], [0, 1]], "bias": [0, 0, 0]},
                                           {"weight": [[1, 1, 1]], "bias": [0]}]}))
    cert = tmp_path / "c.json"
    assert main(["identify", str(path), "--certificate", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "R42" in out
    assert main(["verify", str(cert)]) == 0
    capsys.readouterr()
    assert main(["symmetries", str(path)]) == 0
    out = capsys.readouterr().out
    assert "(three-layer-fibers R42): yes" in out and "components 6; orbits 1" in out
    assert main(["explain", "R42"]) == 0
    assert "one shared hyperplane of opposite orientations" in capsys.readouterr().out


@pytest.mark.parametrize("seed", range(3))
def test_the_independence_fast_path_agrees_with_the_problems(seed, monkeypatch):
    """independent_problems (ranks mod p of random pairings) proves hyperplanes without their
    0/1 problems: the verdicts with and without it agree, and with the placements."""
    from semialgebraic.shallow import identifiability as ident
    rng = random.Random(4300 + seed)
    nets = []
    for _ in range(25):
        d, m = rng.choice((2, 3, 4)), rng.choice((1, 2, 3))
        nets.append(_random_pair_net(rng, d, rng.randint(3, 7), m))
    fast = [identifiability_shallow(_net(*n)).answer for n in nets]
    used = sum(bool(ident.independent_problems(*_pair_of(n))) for n in nets)
    monkeypatch.setattr(ident, "independent_problems", lambda *a: set())
    slow = [identifiability_shallow(_net(*n), verify=False).answer for n in nets]
    assert fast == slow == [_placements(*n) for n in nets]
    assert used >= 3


def _pair_of(n):
    from algebra.symmetries.neurons import hidden_neurons
    from semialgebraic.shallow.identifiability import _proportional_pairs
    neurons, _ = hidden_neurons(_net(*n), 0)
    i, j, _ = _proportional_pairs(neurons)[0]
    return neurons, i, j


def test_a_wide_net_with_one_pair_is_decided_by_independence():
    """40-30-6 with one opposite pair: every hyperplane proven by the independence test (no 0/1
    problem solved; 784-64-10: 1.2 s, 100-500-10: 2.3 s), checked the same way."""
    rng = random.Random(7)
    d, n, m = 40, 30, 6
    W1 = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(n)]
    W1[1] = [-3 * x for x in W1[0]]
    b1 = [rng.randint(-3, 3) for _ in range(n)]
    b1[1] = -3 * b1[0]
    W2 = [[rng.choice((-2, -1, 1, 2)) for _ in range(n)] for _ in range(m)]
    from semialgebraic.shallow.identifiability import independent_problems
    neurons, i, j = _pair_of((W1, b1, W2))
    assert independent_problems(neurons, i, j) == {k for k in range(n) if k != j}   # all proven
    v = identifiability_shallow(_net(W1, b1, W2))
    assert v.answer is True and verify(jsonable(v.certificate))[0]
    # neuron 5 moved onto a hyperplane parallel to the pair's: (a) has a solution
    W1[5] = [2 * x for x in W1[0]]
    v = identifiability_shallow(_net(W1, b1, W2))
    assert v.answer is False and verify(jsonable(v.certificate))[0]


def test_fiber_of_an_identifiable_pair_net_is_one_orbit():
    """fiber on |x1| + σ(x2): R42 says identifiable, so the fiber is θ's S1 + S2 orbit, 3! copies
    of dimension 3 (it was 'components not determined'); |x| + σ(x − 1) (not identifiable)
    stays open."""
    from semialgebraic.shallow import fiber_shallow
    F = fiber_shallow(_net([[1, 0], [-1, 0], [0, 1]], [0, 0, 0], [[1, 1, 1]]))
    assert (F.number_of_components, F.number_of_orbits, F.dimension.value) == (6, 1, 3)
    assert "R42" in " ".join(F.notes)
    G = fiber_shallow(_net([[1], [-1], [1]], [0, 0, -1], [[1, 1, 1]]))
    assert G.number_of_orbits is None


@pytest.mark.parametrize("seed", range(4))
def test_two_or_three_pairs_against_the_placements(seed):
    """p = 2, 3 opposite pairs: every verdict agrees with the test's own placements (ranks of
    stacked rows, no projector), planted copies are exact and outside the orbit, certificates
    verify."""
    rng = random.Random(4400 + seed)
    counts = {True: 0, False: 0}
    for _ in range(15):
        d, m, p = rng.choice((2, 3)), rng.choice((1, 2, 3)), rng.choice((2, 2, 3))
        n = 2 * p + rng.randint(0, 3)
        W1, b1, W2 = _random_pairs_net(rng, d, n, m, p)
        net = _net(W1, b1, W2)
        v = identifiability_shallow(net)
        assert v.answer is _placements_general(W1, b1, W2), (W1, b1, W2, v.reason)
        counts[v.answer] += 1
        if v.answer is True:
            assert verify(jsonable(v.certificate))[0]
        else:
            _checked(net, v, rng, d)
    assert counts[False]


def test_the_general_placements_agree_with_one_pair():
    rng = random.Random(4500)
    for _ in range(40):
        W1, b1, W2 = _random_pair_net(rng, rng.choice((1, 2, 3)), rng.randint(2, 6), rng.choice((1, 2)))
        assert _placements_general(W1, b1, W2) is _placements(W1, b1, W2)


def test_mutated_several_pairs_certificates_are_rejected():
    v = identifiability_shallow(_net([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [1, 1, 1]],
                                     [0, 0, 0, 0, 0, 1], [[1, 1, 1, 1, 1, 2], [1, 2, 3, 1, -1, 1],
                                                          [0, 1, 2, 1, 1, 1]]))
    good = jsonable(v.certificate)
    assert verify(good)[0]
    bad = _rejecter(good)
    assert bad(lambda c: c["flip_sets"].update(pairs=[[0, 1]]))
    assert bad(lambda c: c.update(fiber_dimension=5))
    assert bad(lambda c: c.update(flip_sets={"kind": "opposite_pair", "pair": [0, 1]}))
    # one output: T has rank <= 1, a linear pair of spare neurons pays it
    assert bad(lambda c: c["network"]["layers"][1].update(weight=[[1, 1, 1, 1, 1, 2]], bias=[0]))
    # the pairs made parallel: their linear parts trade
    assert bad(lambda c: (c["network"]["layers"][0]["weight"].__setitem__(2, [2, 0, 0]),
                          c["network"]["layers"][0]["weight"].__setitem__(3, [-2, 0, 0]),
                          c["network"]["layers"][0]["bias"].__setitem__(2, 1),
                          c["network"]["layers"][0]["bias"].__setitem__(3, -1)))
