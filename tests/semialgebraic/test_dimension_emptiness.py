"""Never-active / never-co-active questions decided by branch and bound
(:mod:`semialgebraic.bab.emptiness`), their proofs in ``functional_dimension`` certificates
(:mod:`semialgebraic.verify.functional_dimension_emptiness`), and ``dim`` without a clock
(issue 15, part 3, ``dim``)."""

from __future__ import annotations

import copy
import json
import random
import time
from fractions import Fraction

import pytest

import semialgebraic.dimension.functional as functional_mod
from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab.emptiness import Emptiness, decide_empty, emptiness_network
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.dimension.jacobian_columns import phase_search
from semialgebraic.verify import verify
from semialgebraic.verify.functional_dimension_emptiness import check_bab_empty


def _net(widths, seed, den=4) -> Network:
    rng = random.Random(seed)
    return Network.from_rows(
        [[[Fraction(rng.randint(-8, 8), den) for _ in range(a)] for _ in range(b)] for a, b in zip(widths, widths[1:])],
        [[Fraction(rng.randint(-6, 6), den) for _ in range(b)] for b in widths[1:]])


def _signs(net, x) -> dict:
    """Exact signs of every hidden pre-activation at x (Fraction arithmetic, the oracle)."""
    h = [Fraction(str(v)) for v in x]
    out = {}
    for t in range(net.depth - 1):
        W, b = net.layer(t)
        z = [sum((Fraction(str(W[j, k])) * h[k] for k in range(len(h))), Fraction(0)) + Fraction(str(b[j]))
             for j in range(W.nrows)]
        for j, v in enumerate(z):
            out[(t, j)] = (v > 0) - (v < 0)
        h = [max(v, Fraction(0)) for v in z]
    return out


@pytest.mark.parametrize("dom", [None, (-1, 1), "orthant"])
def test_aux_network_is_the_min_of_the_target_forms(dom):
    """G = min(relu(s1 z1), s2 z2) (box) or its homogenised form at (x, 1) (R^d, orthant):
    checked against Fraction arithmetic at random inputs."""
    net = _net([2, 4, 3, 1], 7)
    targets = {(0, 1): -1, (1, 2): 1}
    G = emptiness_network(net, dom, targets)
    rng = random.Random(1)
    for _ in range(20):
        x = [Fraction(rng.randint(-8, 8), 8) for _ in range(2)]
        if dom == "orthant":
            x = [abs(v) for v in x]
        h = [Fraction(v) for v in x]
        zs = []
        for t in range(2):
            W, b = net.layer(t)
            z = [sum((Fraction(str(W[j, k])) * h[k] for k in range(len(h))), Fraction(0)) + Fraction(str(b[j]))
                 for j in range(W.nrows)]
            zs.append(z)
            h = [max(v, Fraction(0)) for v in z]
        want = min(max(-zs[0][1], Fraction(0)), zs[1][2])
        arg = x if isinstance(dom, tuple) else x + [1]
        assert Fraction(str(G.evaluate(arg)[0])) == want


def test_box_and_whole_space_answers_differ_where_they_must():
    """relu(x - 100): never active on [-1, 1] (a proof checked by the checker), active on R
    (a witness x >= 100, exact) and on the orthant."""
    net = Network.from_rows([[[1]], [[1]]], [[-100], [0]])
    box = decide_empty(net, (-1, 1), {(0, 0): 1})
    assert box.empty is True and box.upper <= 0
    assert check_bab_empty(net, box.proof({(0, 0): 1}), (Q(-1), Q(1)), {(0, 0): 1})
    for dom in (None, "orthant"):
        r = decide_empty(net, dom, {(0, 0): 1})
        assert r.empty is False and _signs(net, r.witness)[(0, 0)] == 1 and r.witness[0] > 100


@pytest.mark.parametrize("seed", range(6))
def test_emptiness_agrees_with_the_exact_phase_search(seed):
    """On small random nets, every decided pair question agrees with the exact phase search
    (the general exact method); witnesses have the target signs (Fraction oracle); proofs
    pass the independent checker."""
    net = _net([2, 4, 4, 1], 100 + seed)
    rng = random.Random(seed)
    decided = 0
    for _ in range(4):
        targets = {(0, rng.randrange(4)): rng.choice((1, -1)), (1, rng.randrange(4)): 1}
        r = decide_empty(net, None, targets, nodes=200)
        found = phase_search(net, None, targets, None, max_lps=5000, deadline=None, record=False)[0]
        if r.empty is None or found is None:
            continue
        decided += 1
        assert r.empty == (not found)
        if r.empty:
            assert check_bab_empty(net, r.proof(targets), None, targets)
        else:
            s = _signs(net, r.witness)
            assert all(s[k] == v for k, v in targets.items())
    assert decided >= 2


def test_mutated_emptiness_proofs_are_rejected():
    """A proof for other targets, another domain, a lowered leaf bound or a dropped child does
    not check."""
    net = Network([[[1], [-1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    targets = {(0, 0): 1, (1, 0): 1}             # relu(x) and -relu(x) + relu(-x) - 1: never both
    r = decide_empty(net, None, targets)
    assert r.empty is True
    proof = json.loads(json.dumps(r.proof(targets), default=str))
    assert check_bab_empty(net, proof, None, targets)
    assert not check_bab_empty(net, proof, None, {(0, 0): 1, (1, 1): 1})
    assert not check_bab_empty(net, proof, "orthant", {(0, 0): -1, (1, 0): 1})

    def leaves(node):
        if "children" in node:
            for ch in node["children"]:
                yield from leaves(ch)
        else:
            yield node
    bad = copy.deepcopy(proof)
    lf = next(lf for lf in leaves(bad["bab_tree"]) if "bound" in lf)
    lf["bound"] = "-1000"
    assert not check_bab_empty(net, bad, None, targets)
    if "children" in proof["bab_tree"]:
        bad = copy.deepcopy(proof)
        bad["bab_tree"]["children"] = bad["bab_tree"]["children"][:1]
        assert not check_bab_empty(net, bad, None, targets)
    with pytest.raises(InputError):
        check_bab_empty(net, {**proof, "extra": 1}, None, targets)
    # the auxiliary network is not a pair a - b: a differential leaf or pair-row multipliers
    # (whose replay would read its neurons as pairs) are refused, whatever their bound
    for forged in ({"bound": "-1000", "by": "differential"}, {**lf, "gamma": [[0]], "eta": [[0]]}):
        bad = copy.deepcopy(proof)
        bad["bab_tree"] = forged
        assert not check_bab_empty(net, bad, None, targets)


def test_never_coactive_weight_proof_in_the_certificate():
    """The never-co-active pair of test_dimension's net: the sandwich proves W2[0,0] free by
    branch and bound; the certificate carries that proof as a 'free' entry and the checker
    accepts it; a 'free' entry whose tree is for another weight is rejected."""
    net = Network([[[1], [-1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    fd = functional_dimension(net, max_regions=0)
    assert (fd.lower, fd.upper) == (7, 8)
    k = net.parameter_names().index("W2[0,0]")
    bab = [p for p in fd.details["exercise_proofs"] if "bab_tree" in p]
    assert [p["parameter"] for p in bab] == [k]
    cert = functional_dimension_certificate(net, fd)
    assert verify(cert)[0] and cert["upper"] == 8
    entry = next(e for e in cert["upper_directions"] if e[0] == "free")
    entry[2] = bab[0]          # the builder prefers the phase-search proof: put the tree in
    assert "bab_tree" in entry[2] and verify(cert)[0]
    bad = copy.deepcopy(cert)
    e2 = next(e for e in bad["upper_directions"] if e[0] == "free")
    k2 = net.parameter_names().index("W2[1,0]")
    e2[1] = e2[2]["parameter"] = k2
    assert not verify(bad)[0]


def test_dead_neuron_beyond_interval_bounds_is_proven_by_branch_and_bound():
    """Layer-2 neuron relu(h1_0 + h1_1 - 3/2) on [-1, 1]^2 with h1_0 = relu(x_0), h1_1 =
    relu(-x_0): h1_0 + h1_1 = |x_0| <= 1, so it is dead; interval bounds only give <= 1/2.
    Proven by branch and bound, certified with a dead_proof entry."""
    net = Network.from_rows([[[1, 0], [-1, 0], [0, 1]], [[1, 1, 0], [0, 0, 1]], [[1, 1]]],
                            [[0, 0, 0], ["-3/2", 0], [0]])
    fd = functional_dimension(net, domain=(-1, 1), max_regions=0)
    walk = functional_dimension(net, domain=(-1, 1))           # complete walk: the value
    assert walk.exact and fd.lower <= walk.value <= fd.upper
    cert = functional_dimension_certificate(net, fd, domain=(-1, 1))
    ok, why = verify(cert)
    assert ok and cert.get("upper") == fd.upper, why
    proofs = [e for e in cert["upper_directions"] if e[0] == "dead_proof"]
    assert [e[1:3] for e in proofs] == [[1, 0]]
    assert any("dead neuron (2, 0)" in s for s in fd.deficits)
    tree = fd.details["proven"]["emptiness"][("dead", 3)]
    proofs[0][3] = json.loads(json.dumps(tree))          # the branch-and-bound proof checks too
    assert "bab_tree" in proofs[0][3] and verify(cert)[0]
    proofs[0][3]["bab_tree"] = {"bound": "-1", "by": "symbolic"}   # a bound the data do not prove
    assert not verify(cert)[0]


def test_same_result_whatever_the_clock(monkeypatch):
    """No clock in dim: the same seed and work give the same JSON with two different timeouts
    that both suffice, the second with sleeps injected into the sampling."""
    net = _net([3, 5, 5, 1], 3)
    runs = [functional_dimension(net, seed=3, max_regions=0, timeout=500).to_json()]
    real = functional_mod.jacobian_rows

    def slow(*a, **k):
        time.sleep(0.05)
        return real(*a, **k)
    monkeypatch.setattr(functional_mod, "jacobian_rows", slow)
    runs.append(functional_dimension(net, seed=3, max_regions=0, timeout=600).to_json())
    assert all(r == runs[0] for r in runs[1:])
    assert runs[0]["work"]["points"] > 0


def test_same_certificate_whatever_the_clock(monkeypatch):
    """No clock in dim's certificate builder either: its proof searches count exact LPs, so two
    runs give identical certificates, the second with sleeps injected into every phase search
    and the builder's clock jumping 1000 s at each reading (a 10 s budget would have run out).
    The net needs a searched proof (a dead neuron beyond interval bounds) and its cover walk."""
    import semialgebraic.dimension.certificate as cert_mod
    net = Network.from_rows([[[1, 0], [-1, 0], [0, 1]], [[1, 1, 0], [0, 0, 1]], [[1, 1]]],
                            [[0, 0, 0], ["-3/2", 0], [0]])
    fd = functional_dimension(net, domain=(-1, 1), max_regions=0)
    first = json.dumps(functional_dimension_certificate(net, fd, domain=(-1, 1)), sort_keys=True)
    real_search = cert_mod.phase_search

    def slow_search(*a, **k):
        time.sleep(0.02)
        return real_search(*a, **k)

    class Jumping:
        now = 0.0

        def monotonic(self):
            Jumping.now += 1000.0
            return Jumping.now
    monkeypatch.setattr(cert_mod, "phase_search", slow_search)
    monkeypatch.setattr(cert_mod, "time", Jumping())
    second = json.dumps(functional_dimension_certificate(net, fd, domain=(-1, 1)), sort_keys=True)
    assert first == second
    cert = json.loads(first)
    assert verify(cert)[0] and cert["upper"] == fd.upper
    assert [e[1:3] for e in cert["upper_directions"] if e[0] == "dead_proof"] == [[1, 0]]


def test_certificate_work_cap_is_a_count():
    """The builder's phase searches are capped by a count of exact LPs: with none allowed, the
    dead neuron's proof is the decider's branch-and-bound tree (no search); with the default
    count, the phase-search proof (recorded by the search).  Both certify the same upper bound."""
    net = Network.from_rows([[[1, 0], [-1, 0], [0, 1]], [[1, 1, 0], [0, 0, 1]], [[1, 1]]],
                            [[0, 0, 0], ["-3/2", 0], [0]])
    fd = functional_dimension(net, domain=(-1, 1), max_regions=0)
    kinds = []
    for kw in ({"lps": 0}, {}):
        cert = functional_dimension_certificate(net, fd, domain=(-1, 1), **kw)
        # 5 (the oracle has 4): (0, 2) is masked by (1, 1), proven without the walk (R35); was 6
        assert verify(cert)[0] and cert["upper"] == fd.upper == 5
        kinds.append([sorted(e[3]) for e in cert["upper_directions"] if e[0] == "dead_proof"])
    assert kinds == [[["bab_tree", "targets"]], [["domain", "order", "refuted", "targets"]]]


def _g_homogenised(net, targets, point) -> Fraction:
    """``G(x, τ) = τ·min(relu(s1·z1), s2·z2)(x/τ)`` (one target: ``τ·s·z(x/τ)``) by Fraction
    arithmetic, for τ > 0 (the oracle of the bound an undecided search reports)."""
    *x, tau = [Fraction(str(v)) for v in point]
    s = _signs_values(net, [v / tau for v in x])
    tg = sorted(targets.items())
    if len(tg) == 1:
        (key, sg), = tg
        return tau * sg * s[key]
    (k1, s1), (k2, s2) = tg
    return tau * min(max(s1 * s[k1], Fraction(0)), s2 * s[k2])


def _signs_values(net, x) -> dict:
    """Exact pre-activation values of every hidden neuron at x (Fraction arithmetic)."""
    h, out = list(x), {}
    for t in range(net.depth - 1):
        W, b = net.layer(t)
        z = [sum((Fraction(str(W[j, k])) * h[k] for k in range(len(h))), Fraction(0)) + Fraction(str(b[j]))
             for j in range(W.nrows)]
        out.update({(t, j): v for j, v in enumerate(z)})
        h = [max(v, Fraction(0)) for v in z]
    return out


def test_undecided_questions_report_a_certified_bound():
    """A question the node budget leaves open carries the certified ``max G <= upper`` (> 0)
    of its search box: checked above G at random box points (Fraction oracle); the suspects'
    decider records it in the evidence and the open interval's reason names the question."""
    from semialgebraic.budget import Budget
    from semialgebraic.dimension.functional import _evidence_lines
    from semialgebraic.dimension.suspects import coactive_targets, prove_suspects
    rng = random.Random(5)
    opened = []
    for seed in range(6):
        net = _net([2, 5, 5, 1], 200 + seed)
        for k in range(net.n_parameters):
            targets = coactive_targets(net, k)
            if targets is None:
                continue
            r = decide_empty(net, None, targets, nodes=0, conditioned=0)
            if r.empty is not None:
                continue
            assert r.upper is not None and r.upper > 0 and r.tree is None
            for _ in range(40):
                p = [Fraction(rng.randint(-16, 16), 16) for _ in range(2)] + [Fraction(rng.randint(1, 16), 16)]
                assert _g_homogenised(net, targets, p) <= Fraction(str(r.upper))
            opened.append((net, k, targets))
    assert len(opened) >= 3
    net, k, targets = opened[0]
    evidence = {"missing": [[k]]}
    prove_suspects(net, None, evidence, Budget(), lps=1, nodes=0, conditioned=0)
    (got, upper, splits), = evidence["open_emptiness"]
    assert got == targets and upper > 0 and splits == 0
    lines = _evidence_lines(net, evidence)
    (t1, j1), (t2, j2) = sorted(targets)
    assert any(f"({t1 + 1}, {j1}) active and ({t2 + 1}, {j2}) active never together? undecided" in ln
               for ln in lines)


# -- conditioned bound tightening (decide_conditioned) --------------------------------------------
_COND_PAIRS = [{(0, 1): 1, (1, 3): 1}, {(0, 2): 1, (1, 3): 1}, {(0, 5): 1, (1, 3): 1}]


def test_conditioned_tightening_proves_what_the_root_bound_leaves_open():
    """A 2-6-6-1 net whose pairs (0, k)/(1, 3) are never co-active on R^2 (the exact phase
    search finds no input with both signs): the branch and bound at its root (no split) leaves
    each open; conditioned bound tightening (z_a >= 0 and z_c >= 0 added, every unstable interval
    tightened over that relaxation) proves each, and the independent checker accepts the proofs
    (5 pieces: tau = 1 and x_k = +-1)."""
    from semialgebraic.bab.emptiness import decide_conditioned
    net = _net([2, 6, 6, 1], 301)
    for targets in _COND_PAIRS:
        assert phase_search(net, None, targets, None, max_lps=5000, deadline=None, record=False)[0] is False
        assert decide_empty(net, None, targets, nodes=0, conditioned=0).empty is None
        pieces, used = decide_conditioned(net, None, targets)
        assert pieces is not None and len(pieces) == 5 and 0 < used <= 100
        r = decide_empty(net, None, targets, nodes=0)
        assert r.empty is True and r.pieces is not None and r.reason.startswith("conditioned")
        proof = json.loads(json.dumps(r.proof(targets)))
        assert "conditioned" in proof and check_bab_empty(net, proof, None, targets)


@pytest.mark.parametrize("seed", [0, 3, 4, 6])
def test_conditioned_decisions_agree_with_the_exact_phase_search(seed):
    """Soundness on small random nets (both signs of the shallower target, R^2 and a box): a
    conditioned proof is never given where the exact phase search finds an input with the
    target signs, and every proof checks."""
    from semialgebraic.bab.emptiness import decide_conditioned
    net = _net([2, 5, 5, 1], 400 + seed)
    rng = random.Random(seed)
    proved = 0
    for _ in range(6):
        targets = {(0, rng.randrange(5)): rng.choice((1, -1)), (1, rng.randrange(5)): 1}
        for dom in (None, (Q(-1), Q(1))):
            pieces, _ = decide_conditioned(net, dom, targets)
            if pieces is None:
                continue
            found = phase_search(net, dom, targets, None, max_lps=5000, deadline=None, record=False)[0]
            assert found is not True
            proof = json.loads(json.dumps(Emptiness(True, pieces=pieces).proof(targets)))
            assert check_bab_empty(net, proof, dom, targets)
            proved += 1
    assert proved >= 1


def test_mutated_conditioned_proofs_are_rejected():
    """Other targets, another domain, a dropped piece, a lowered step bound, a dropped last
    step, a zero Farkas vector, a negative triangle multiplier: not proved; unknown keys:
    InputError."""
    net = _net([2, 6, 6, 1], 301)
    targets = _COND_PAIRS[2]
    proof = json.loads(json.dumps(decide_empty(net, None, targets, nodes=0).proof(targets)))
    assert check_bab_empty(net, proof, None, targets)
    assert not check_bab_empty(net, proof, None, {(0, 5): 1, (1, 2): 1})
    assert not check_bab_empty(net, proof, "orthant", targets)
    bad = copy.deepcopy(proof)
    bad["conditioned"] = bad["conditioned"][1:]
    assert not check_bab_empty(net, bad, None, targets)
    k, piece = next((k, p) for k, p in enumerate(proof["conditioned"]) if p["steps"])
    bad = copy.deepcopy(proof)
    st = bad["conditioned"][k]["steps"][0]
    st["bound"] = str(Q(st["bound"]) - 1)
    assert not check_bab_empty(net, bad, None, targets)
    bad = copy.deepcopy(proof)
    bad["conditioned"][k]["steps"] = piece["steps"][:-1]
    assert not check_bab_empty(net, bad, None, targets)
    bad = copy.deepcopy(proof)
    st = piece["steps"][0]
    bad["conditioned"][k]["end"] = {"farkas": {key: [[0] * len(r) for r in st[key]] for key in ("mu", "alpha", "beta")}}
    bad["conditioned"][k]["steps"] = []
    assert not check_bab_empty(net, bad, None, targets)
    bad = copy.deepcopy(proof)
    st = bad["conditioned"][k]["steps"][0]
    st["alpha"] = [[-1] * len(r) for r in st["alpha"]]
    assert not check_bab_empty(net, bad, None, targets)
    with pytest.raises(InputError):
        check_bab_empty(net, {**proof, "extra": 1}, None, targets)
    bad = copy.deepcopy(proof)
    bad["conditioned"][k]["steps"][0]["extra"] = 1
    with pytest.raises(InputError):
        check_bab_empty(net, bad, None, targets)


def test_conditioned_proof_in_the_certificate():
    """The sandwich of the 2-6-6-1 net (no region walk) proves its three never-co-active weights
    free by conditioned tightening; each proof, put in the certificate's 'free' entry of its
    weight, is accepted; moved to another weight's entry, or with a zero Farkas vector, it is
    not."""
    net = _net([2, 6, 6, 1], 301)
    fd = functional_dimension(net, max_regions=0)
    assert fd.exact and fd.value == 51
    cond = [p for p in fd.details["exercise_proofs"] if "conditioned" in p]
    assert [p["parameter"] for p in cond] == [37, 38, 41]
    cert = functional_dimension_certificate(net, fd)
    assert verify(cert)[0] and cert["upper"] == 51
    for p in cond:
        entry = next(e for e in cert["upper_directions"] if e[0] == "free" and e[1] == p["parameter"])
        entry[2] = json.loads(json.dumps(p))
    assert verify(cert)[0]
    bad = copy.deepcopy(cert)
    e1, e2 = [e for e in bad["upper_directions"] if e[0] == "free" and e[1] in (37, 41)]
    e1[2], e2[2] = e2[2], e1[2]
    e1[2]["parameter"], e2[2]["parameter"] = 37, 41       # well formed, about other weights
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    e1 = next(e for e in bad["upper_directions"] if e[0] == "free" and e[1] == 37)
    piece = next(pc for pc in e1[2]["conditioned"] if "farkas" in pc["end"])
    fk = piece["end"]["farkas"]
    piece["end"]["farkas"] = {key: [[0] * len(r) for r in fk[key]] for key in fk}   # bound 0, not < 0
    assert not verify(bad)[0]


# -- conditioned tightening with neuron splits (a tree per piece) ---------------------------------
def _gauss_net(widths, seed) -> Network:
    """The ``normal_net`` weights of ``benchmarks/bench_general.py``: k/16 != 0, standard-normal
    like; biases of scale 0.1."""
    rng = random.Random(seed)

    def g(scale):
        v = 0
        while v == 0:
            v = round(rng.gauss(0, 1) * 16 * scale)
        return Fraction(v, 16)
    W = [[[g(1) for _ in range(a)] for _ in range(b)] for a, b in zip(widths, widths[1:])]
    return Network.from_rows(W, [[g(0.1) for _ in range(b)] for b in widths[1:]])


_SPLIT_NET, _SPLIT_PAIR = ((2, 5, 5, 5, 1), 9), {(1, 0): 1, (2, 2): 1}


def _split_count(node) -> int:
    return ("split" in node) + sum(_split_count(k) for k in node.get("children", []))


def test_split_conditioned_tightening_proves_what_tightening_alone_does_not():
    """A 2-5-5-5-1 net (``normal_net`` seed 9) whose neurons (2, 0) and (3, 2) are never active
    together on R^2 (the exact phase search, every activation pattern up to layer 3, finds no
    input; the complete exact region walk: 72 regions, (2, 0) active in 48, (3, 2) in 10, both in
    none): conditioned tightening without splits leaves the face tau = 1 open; with splits it
    splits one layer-1 neuron there, (1, 1) (both halves then empty), and proves the question; the
    independent checker accepts the tree."""
    from semialgebraic.bab.emptiness import decide_conditioned
    from semialgebraic.regions import regions
    net = _gauss_net(*_SPLIT_NET)
    assert phase_search(net, None, _SPLIT_PAIR, None, max_lps=20000, deadline=None, record=False)[0] is False
    walk = regions(net, max_regions=5000)              # brute force: every region of R^2, exactly
    pats = [r.pattern for r in walk]                   # flat neuron index: (2, 0) is 5, (3, 2) is 12
    assert walk.complete and len(pats) == 72
    assert (sum(p[5] > 0 for p in pats), sum(p[12] > 0 for p in pats)) == (48, 10)
    assert not any(p[5] > 0 and p[12] > 0 for p in pats)
    assert decide_conditioned(net, None, _SPLIT_PAIR, splits=0, lps=5000)[0] is None
    pieces, used = decide_conditioned(net, None, _SPLIT_PAIR, splits=40, lps=5000)
    assert pieces is not None and [_split_count(p) for p in pieces] == [1, 0, 0, 0, 0]
    assert pieces[0]["split"] == [0, 1] and 300 < used < 2000
    proof = json.loads(json.dumps(Emptiness(True, pieces=pieces).proof(_SPLIT_PAIR)))
    assert check_bab_empty(net, proof, None, _SPLIT_PAIR)


@pytest.mark.parametrize("seed", [2, 3, 4, 10])
def test_split_conditioned_decisions_agree_with_the_exact_phase_search(seed):
    """Soundness with splits on 2-4-4-4-1 nets (adjacent-layer pairs, R^2): a split proof is never
    given where the exact phase search finds an input with both signs, and every proof checks."""
    from semialgebraic.bab.emptiness import decide_conditioned
    net = _gauss_net((2, 4, 4, 4, 1), seed)
    rng = random.Random(seed)
    proved = 0
    for _ in range(5):
        t = rng.randrange(2)
        targets = {(t, rng.randrange(4)): 1, (t + 1, rng.randrange(4)): 1}
        pieces, _ = decide_conditioned(net, None, targets, splits=12, lps=1500)
        found = phase_search(net, None, targets, None, max_lps=5000, deadline=None, record=False)[0]
        if pieces is None:
            continue
        assert found is not True
        proof = json.loads(json.dumps(Emptiness(True, pieces=pieces).proof(targets)))
        assert check_bab_empty(net, proof, None, targets)
        proved += 1
    assert proved >= 1


def test_mutated_split_proofs_are_rejected():
    """The split tree of the planted pair: children swapped, a half claimed empty, one half
    dropped into a leaf, the split moved to another neuron: not proved; a split on the output or
    a third child: InputError."""
    from semialgebraic.bab.emptiness import decide_conditioned
    net = _gauss_net(*_SPLIT_NET)
    pieces, _ = decide_conditioned(net, None, _SPLIT_PAIR, splits=40, lps=5000)
    proof = json.loads(json.dumps(Emptiness(True, pieces=pieces).proof(_SPLIT_PAIR)))
    assert check_bab_empty(net, proof, None, _SPLIT_PAIR)
    bad = copy.deepcopy(proof)
    node = bad["conditioned"][0]
    node["children"] = node["children"][::-1]
    assert not check_bab_empty(net, bad, None, _SPLIT_PAIR)
    for k in (0, 1):
        bad = copy.deepcopy(proof)
        bad["conditioned"][0]["children"][k] = {"steps": [], "end": {"interval": None}}
        assert not check_bab_empty(net, bad, None, _SPLIT_PAIR)
    bad = copy.deepcopy(proof)
    node = bad["conditioned"][0]
    bad["conditioned"][0] = {"steps": node["steps"], "end": node["children"][1]["end"]}
    assert not check_bab_empty(net, bad, None, _SPLIT_PAIR)
    bad = copy.deepcopy(proof)
    bad["conditioned"][0]["split"] = [1, 3]
    assert not check_bab_empty(net, bad, None, _SPLIT_PAIR)
    bad = copy.deepcopy(proof)
    bad["conditioned"][0]["split"] = [2, 0]
    with pytest.raises(InputError):
        check_bab_empty(net, bad, None, _SPLIT_PAIR)
    bad = copy.deepcopy(proof)
    bad["conditioned"][0]["children"].append({"steps": [], "end": {"interval": None}})
    with pytest.raises(InputError):
        check_bab_empty(net, bad, None, _SPLIT_PAIR)


# -- the region walk: witnesses of rarely met sign sets (semialgebraic.bab.signwalk) -------------
_SEED3_PAIR = {(1, 25): 1, (2, 21): 1}


def test_region_walk_finds_the_rare_coactive_pair_of_seed_3():
    """8-32-32-32-1 ``normal_net`` seed 3 (``benchmarks/bench_general.py``): neurons (2, 25) and
    (3, 21) (1-based) are active together only where min(z_a, z_c) <= ~0.0035 (4 million float
    samples never saw it); the walk over linear regions finds an input there, the same one on
    every run, and ``decide_empty`` returns it as a witness (checked here by Fraction arithmetic)."""
    from semialgebraic.bab.signwalk import sign_walk
    net = _gauss_net((8, 32, 32, 32, 1), 3)
    first = sign_walk(net, None, _SEED3_PAIR)
    r = decide_empty(net, None, _SEED3_PAIR)
    assert len(first) == 1 and r.witness == first[0]
    assert r.empty is False and "region walk" in r.reason and r.nodes == 0
    signs = _signs(net, r.witness)
    assert signs[(1, 25)] == signs[(2, 21)] == 1


def test_region_walk_proposes_nothing_where_no_input_has_the_signs():
    """The never-co-active pair of the 2-5-5-5-1 net above (proved by the phase search and the
    complete walk there): the walk proposes nothing; on the box [1/2, 1]^2 every proposal for a
    one-target question of layer 1 lies in the box and has the sign (Fraction oracle), and the
    signs met on that box get one."""
    from semialgebraic.bab.signwalk import sign_walk
    net = _gauss_net(*_SPLIT_NET)
    assert sign_walk(net, None, _SPLIT_PAIR) == []
    corners = [_signs(net, [a, b]) for a in (Q(1, 2), Q(1)) for b in (Q(1, 2), Q(1))]
    for j in range(5):
        for s in (1, -1):
            found = sign_walk(net, (Q(1, 2), Q(1)), {(0, j): s})
            for x in found:
                assert all(Q(1, 2) <= v <= 1 for v in x) and _signs(net, x)[(0, j)] == s
            if any(c[(0, j)] == s for c in corners):      # the sign is met at a corner of the box
                assert found


@pytest.mark.slow
def test_seed_3_functional_dimension_is_exact():
    """The same net: exact 2337 = N - #hidden (it was [2336, 2337] before the walk), the lower
    bound certified by the checker (12-35 s CPU: slow)."""
    net = _gauss_net((8, 32, 32, 32, 1), 3)
    fd = functional_dimension(net)
    assert fd.exact and fd.value == net.n_parameters - net.n_hidden == 2337


# -- shared conditioning: several shallow neurons against one deeper neuron (decide_shared) --------
def _name_sign(node: dict, at: list) -> dict:
    """A copy of the tree *node* whose ``{"sign": None}`` ends name the neuron *at* (the per-pair
    form of the certificates written before the table of shared proofs)."""
    if "children" in node:
        return {**node, "children": [_name_sign(k, at) for k in node["children"]]}
    if node.get("end") == {"sign": None}:
        return {**node, "end": {"sign": list(at)}}
    return node


def _shared_proofs(net, deeper, shallows, **kw):
    """Each pair's proof in the per-pair ``"deeper_only"`` form (still read by the checker)."""
    from semialgebraic.bab.emptiness import decide_shared
    res, used = decide_shared(net, None, deeper, shallows, **kw)
    if res is None:
        return None, used
    assert res["deeper"] == list(deeper) and res["shallow"] == [list(v) for v in shallows]
    out = {}
    for t, j, s in shallows:
        tg = {(t, j): s, deeper[:2]: deeper[2]}
        pieces = [_name_sign(p, [t, j]) for p in res["conditioned"]]
        out[(t, j)] = (tg, json.loads(json.dumps({**Emptiness(True, pieces=pieces).proof(tg), "deeper_only": True})))
    return out, used


def test_shared_conditioning_proves_a_group_of_pairs_with_one_tree():
    """The three never-co-active pairs (0, k)/(1, 3), k = 1, 2, 5, of the 2-6-6-1 net (the exact
    phase search finds no input with both signs) proved by one tree per piece conditioned on
    z_c >= 0 alone: 5 pieces, pieces 2 and 3 (x_0 = +-1) end by the shallow neuron's sign (its
    interval <= 0), the others by a Farkas vector; each pair's proof checks."""
    net = _net([2, 6, 6, 1], 301)
    proofs, used = _shared_proofs(net, (1, 3, 1), [(0, 1, 1), (0, 2, 1), (0, 5, 1)])
    assert proofs is not None and sorted(proofs) == [(0, 1), (0, 2), (0, 5)] and 0 < used <= 100
    for a, (tg, proof) in proofs.items():
        assert phase_search(net, None, tg, None, max_lps=5000, deadline=None, record=False)[0] is False
        ends = [p["end"] for p in proof["conditioned"]]
        assert [next(iter(e)) for e in ends] == ["farkas", "farkas", "sign", "sign", "farkas"]
        assert ends[2] == {"sign": list(a)} and check_bab_empty(net, proof, None, tg)


def test_shared_conditioning_refuses_a_group_with_a_coactive_pair():
    """Add the co-active pair (0, 0)/(1, 3) (the phase search finds a witness) to the group: no
    tree closes, nothing is proved."""
    net = _net([2, 6, 6, 1], 301)
    assert phase_search(net, None, {(0, 0): 1, (1, 3): 1}, None, max_lps=5000, deadline=None,
                        record=False)[0] is True
    proofs, _ = _shared_proofs(net, (1, 3, 1), [(0, 0, 1), (0, 1, 1), (0, 2, 1)], splits=8, lps=2000)
    assert proofs is None


@pytest.mark.slow
@pytest.mark.parametrize("seed", [2, 3, 4, 10])
def test_shared_decisions_agree_with_the_exact_phase_search(seed):
    """Soundness on 2-4-4-4-1 nets, adjacent layers, both shallow signs: a group of all four
    shallow neurons is proved only when the exact phase search finds none of its pairs
    co-active; the group of the never-co-active ones is proved often; every proof checks."""
    net = _gauss_net((2, 4, 4, 4, 1), seed)
    proved = 0
    for t in (0, 1):
        for c in range(4):
            for s1 in (1, -1):
                never = [j for j in range(4) if phase_search(net, None, {(t, j): s1, (t + 1, c): 1}, None,
                                                             max_lps=5000, deadline=None, record=False)[0] is False]
                for group in ([(t, j, s1) for j in range(4)], [(t, j, s1) for j in never]):
                    proofs, _ = _shared_proofs(net, (t + 1, c, 1), group, splits=12, lps=1500)
                    if proofs is None:
                        continue
                    assert all(j in never for _, j, _ in group)
                    for tg, proof in proofs.values():
                        assert check_bab_empty(net, proof, None, tg)
                        proved += 1
    assert proved >= 2


def test_mutated_shared_proofs_are_rejected():
    """A sign end naming another neuron, a sign end where a Farkas vector was needed, a lowered
    interval claim, deeper_only on a one-target question or not a bool, the flag dropped where the
    steps then no longer replay: not proved; an unknown key: InputError."""
    net = _net([2, 6, 6, 1], 301)
    proofs, _ = _shared_proofs(net, (1, 3, 1), [(0, 1, 1), (0, 2, 1), (0, 5, 1)])
    tg, proof = proofs[(0, 1)]
    assert check_bab_empty(net, proof, None, tg)
    assert not check_bab_empty(net, proof, None, {(0, 0): 1, (1, 3): 1})
    bad = copy.deepcopy(proof)
    bad["conditioned"][2]["end"] = {"sign": [0, 2]}
    assert not check_bab_empty(net, bad, None, tg)
    bad = copy.deepcopy(proof)
    bad["conditioned"][0]["end"] = {"sign": [0, 1]}       # its interval is not <= 0 there
    assert not check_bab_empty(net, bad, None, tg)
    bad = copy.deepcopy(proof)
    bad["conditioned"][0]["end"] = {"sign": None}
    assert not check_bab_empty(net, bad, None, tg)
    for flag in ("yes", 1.5):
        assert not check_bab_empty(net, {**proof, "deeper_only": flag}, None, tg)
    one = {(1, 3): 1}
    assert not check_bab_empty(net, {**proof, "targets": [[1, 3, 1]]}, None, one)
    bad = copy.deepcopy(proof)
    fk = bad["conditioned"][0]["end"]["farkas"]
    bad["conditioned"][0]["end"]["farkas"] = {k: [[0] * len(r) for r in fk[k]] for k in fk}
    assert not check_bab_empty(net, bad, None, tg)
    with pytest.raises(InputError):
        check_bab_empty(net, {**proof, "extra": 1}, None, tg)


@pytest.mark.slow
def test_prove_suspects_frees_a_group_by_one_shared_tree():
    """With no branch-and-bound split and no per-pair conditioned LP, the three never-exercised
    weights W2[3, k] (k = 1, 2, 5: parameters 37, 38, 41) of the 2-6-6-1 net are freed by the
    shared pass; each proof refers to one shared proof object, and the functional-dimension
    certificate stores it once (``shared_proofs``), its three 'free' entries referring to index 0,
    and verifies."""
    from semialgebraic.budget import Budget
    from semialgebraic.dimension.suspects import prove_suspects
    net = _net([2, 6, 6, 1], 301)
    evidence = {"missing": [[37], [38], [41]]}
    proven, _, proofs = prove_suspects(net, None, evidence, Budget(), lps=1, nodes=0, conditioned=0)
    assert proven["free"] == {37, 38, 41}
    assert [p["parameter"] for p in proofs] == [37, 38, 41]
    assert all(p["shared"] is proofs[0]["shared"] for p in proofs)
    assert proofs[0]["shared"]["deeper"] == [1, 3, 1]
    from semialgebraic.dimension.upper import intern_shared
    fd = functional_dimension(net, max_regions=0)
    cert = functional_dimension_certificate(net, fd)
    by_key = {p["parameter"]: p for p in proofs}
    dirs = [["free", e[1], by_key[e[1]]] if e[0] == "free" and e[1] in by_key else e
            for e in cert["upper_directions"]]
    cert["upper_directions"], cert["shared_proofs"] = intern_shared(dirs)
    cert = json.loads(json.dumps(cert))
    assert len(cert["shared_proofs"]) == 1 and cert["upper"] == 51
    refs = [e[2] for e in cert["upper_directions"] if e[0] == "free" and "shared" in e[2]]
    assert sorted(r["parameter"] for r in refs) == [37, 38, 41] and {r["shared"] for r in refs} == {0}
    assert verify(cert)[0]


# -- the table of shared proofs of a functional_dimension certificate --------------------------------
_PARAMS = {(0, 1): 37, (0, 2): 38, (0, 5): 41}       # W2[3, k] of the 2-6-6-1 net: never exercised


def _table_certificate(shallows=((0, 1, 1), (0, 2, 1), (0, 5, 1))):
    """A certificate ``0 <= fd <= N - 3`` of the 2-6-6-1 net whose three 'free' entries refer to
    one shared proof (:func:`decide_shared` of (1, 3) against three layer-0 neurons)."""
    from semialgebraic.bab.emptiness import decide_shared, shared_reference
    from semialgebraic.certificates import dimension_bounds_certificate
    from semialgebraic.dimension.jacobian import network_prime
    from semialgebraic.dimension.upper import intern_shared
    net = _net([2, 6, 6, 1], 301)
    res, _ = decide_shared(net, None, (1, 3, 1), list(shallows))
    entries = [["free", _PARAMS[(t, j)], {"parameter": _PARAMS[(t, j)], **shared_reference(res, (t, j, s))}]
               for t, j, s in shallows]
    entries, table = intern_shared(entries)
    cert = dimension_bounds_certificate(net, prime=network_prime(net), inputs=[["1/3", "2/7"]], lower=0,
                                        upper=net.n_parameters - len(shallows), upper_directions=entries,
                                        shared_proofs=table)
    return net, json.loads(json.dumps(cert))


def test_a_shared_proof_is_stored_once_and_checked_once(monkeypatch):
    """Three pairs, one table entry of sign ends ``{"sign": null}``; the certificate checks, and
    the tree is replayed once (not once per pair)."""
    from semialgebraic.verify import functional_dimension_emptiness as emp
    net, cert = _table_certificate()
    assert len(cert["shared_proofs"]) == 1 and [e[2]["shared"] for e in cert["upper_directions"]] == [0, 0, 0]
    ends = [p["end"] for p in cert["shared_proofs"][0]["conditioned"]]
    assert ends[2] == ends[3] == {"sign": None}
    calls = []
    real = emp._check_piece
    monkeypatch.setattr(emp, "_check_piece", lambda *a, **k: calls.append(1) or real(*a, **k))
    ok, why = verify(cert)
    assert ok and cert["upper"] == net.n_parameters - 3 == 64, why
    assert len(calls) == 5                   # the five faces of the homogenised box, once


def test_mutated_shared_proof_tables_are_rejected():
    """A reference to a missing entry or not an index (malformed), to another entry (one whose
    shallow list lacks the pair's neuron, or another deeper neuron), a shared tree altered (a
    Farkas vector zeroed, a co-active shallow neuron (0, 0) added to its list), an entry nothing
    refers to (malformed), a table without upper_directions (malformed): rejected."""
    net, cert = _table_certificate()
    assert verify(cert)[0]
    for ref in (1, -1, "0", None):
        bad = copy.deepcopy(cert)
        bad["upper_directions"][0][2]["shared"] = ref
        with pytest.raises(InputError):
            verify(bad)
    other = copy.deepcopy(cert["shared_proofs"][0])
    other["shallow"] = [[0, 2, 1], [0, 5, 1]]            # still a valid tree, without (0, 1)
    bad = copy.deepcopy(cert)
    bad["shared_proofs"].append(other)
    bad["upper_directions"][0][2]["shared"] = 1
    assert not verify(bad)[0]
    bad["upper_directions"][1][2]["shared"] = 1           # (0, 2) is in it: only (0, 1) breaks
    assert not verify(bad)[0]
    bad["upper_directions"][0][2]["shared"] = 0
    assert verify(bad)[0]
    other = copy.deepcopy(cert["shared_proofs"][0])
    other["deeper"] = [1, 2, 1]
    bad = copy.deepcopy(cert)
    bad["shared_proofs"].append(other)
    bad["upper_directions"][2][2]["shared"] = 1
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    fk = bad["shared_proofs"][0]["conditioned"][0]["end"]["farkas"]
    bad["shared_proofs"][0]["conditioned"][0]["end"]["farkas"] = {k: [[0] * len(r) for r in fk[k]] for k in fk}
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["shared_proofs"][0]["shallow"].append([0, 0, 1])  # (0, 0) and (1, 3) are co-active
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["shared_proofs"].append(copy.deepcopy(cert["shared_proofs"][0]))
    with pytest.raises(InputError):
        verify(bad)
    bad = copy.deepcopy(cert)
    bad["shared_proofs"][0]["shallow"] = [[0, 1, 1], [0, 1, 1]]
    with pytest.raises(InputError):
        verify(bad)
    bad = copy.deepcopy(cert)
    bad["upper_directions"][0][2]["extra"] = 1
    with pytest.raises(InputError):
        verify(bad)


def test_a_shared_reference_needs_its_table():
    """check_bab_empty on a reference without the table: not proved."""
    net, cert = _table_certificate()
    proof = cert["upper_directions"][0][2]
    assert not check_bab_empty(net, proof, None, {(0, 1): 1, (1, 3): 1})


def test_the_result_json_lists_a_shared_proof_once():
    """FunctionalDimension.to_json: three proofs referring to one shared proof object give one
    ``shared_proofs`` entry and references by index; another proof is kept as it is."""
    from semialgebraic.dimension.result import FunctionalDimension
    tree = {"deeper": [1, 3, 1], "shallow": [[0, 1, 1], [0, 2, 1]], "conditioned": []}
    other = {"parameter": 5, "targets": [[0, 0, 1]], "bab_tree": {}}
    proofs = [{"parameter": 37, "shared": tree}, other, {"parameter": 38, "shared": tree}]
    out = FunctionalDimension(67, 50, 51, "", details={"exercise_proofs": proofs}).to_json()
    assert out["shared_proofs"] == [tree]
    assert out["exercise_proofs"] == [{"parameter": 37, "shared": 0}, other, {"parameter": 38, "shared": 0}]


def test_the_result_json_names_an_equal_proof_once():
    """FunctionalDimension.to_json: a proof equal to an earlier one but for its parameter (the
    weights of one neuron share their refutation) names that parameter instead; different
    proofs are kept whole."""
    from semialgebraic.dimension.result import FunctionalDimension
    body = {"targets": [[0, 5, 1]], "refuted": [{"path": [[0, 5, 1]], "certificate": ["1/3", "0"]}]}
    diff = {"targets": [[0, 6, 1]], "refuted": [{"path": [[0, 6, 1]], "certificate": ["1/3", "0"]}]}
    proofs = [{"parameter": 320, **body}, {"parameter": 321, **body}, {"parameter": 384, **diff},
              {"parameter": 322, **body}]
    out = FunctionalDimension(67, 50, 51, "", details={"exercise_proofs": proofs}).to_json()
    assert out["exercise_proofs"] == [{"parameter": 320, **body}, {"parameter": 321, "same_as": 320},
                                      {"parameter": 384, **diff}, {"parameter": 322, "same_as": 320}]


# -- the mirror: one shallow neuron against several deeper ones (decide_shared_shallow) -------------
def _rare_net() -> Network:
    """2-4-3-1: neuron (0, 0) = relu(x_0); each layer-1 neuron is ``-v·h_0 + u·h_1 - ... - b``
    with ``h_1 = relu(-x_0)`` and every other weight and bias <= 0, so it is active only where
    ``x_0 < 0``: the out-edges W2[k, 0] (parameters 12, 16, 20) are never exercised (planted),
    but the triangle relaxation (``h_0``, ``h_1`` both up to 1/2 at ``x_0 = 0``) does not see it."""
    W1 = [[1, 0], [-1, 0], [0, 1], [1, 1]]
    W2 = [[-1, 2, -1, -1], [-1, 3, -1, Fraction(-1, 2)], [-2, 2, Fraction(-1, 2), -1]]
    return Network.from_rows([W1, W2, [[1, 1, -1]]],
                             [[0, 0, 0, Fraction(-1, 2)], [Fraction(-1, 4), Fraction(-1, 4), Fraction(-1, 8)], [0]])


def _mirror_certificate():
    """A certificate ``0 <= fd <= N - 3`` of :func:`_rare_net` whose three 'free' entries refer to
    one shared proof conditioned on the shallow neuron (0, 0)."""
    from semialgebraic.bab.emptiness import decide_shared_shallow, shared_reference
    from semialgebraic.certificates import dimension_bounds_certificate
    from semialgebraic.dimension.jacobian import network_prime
    from semialgebraic.dimension.upper import intern_shared
    net = _rare_net()
    res, _ = decide_shared_shallow(net, None, (0, 0, 1), [(1, k, 1) for k in range(3)])
    entries = [["free", 12 + 4 * k, {"parameter": 12 + 4 * k, **shared_reference(res, (1, k, 1))}] for k in range(3)]
    entries, table = intern_shared(entries)
    cert = dimension_bounds_certificate(net, prime=network_prime(net), inputs=[["1/3", "2/7"]], lower=0,
                                        upper=net.n_parameters - 3, upper_directions=entries, shared_proofs=table)
    return net, json.loads(json.dumps(cert))


def _rejected(cert) -> bool:
    try:
        return not verify(cert)[0]
    except InputError:
        return True


def test_mirror_shared_tree_proves_a_planted_rare_neuron():
    """Planted: (0, 0) is never co-active with any layer-1 neuron (the exact phase search agrees);
    one tree per face conditioned on h_0's neuron >= 0 alone closes the three pairs (four faces by
    every output <= 0, the face x_0 = -1 empty), and prove_suspects (no per-pair work) frees
    the three weights by that one shared object (the deeper-shared groups have one pair each)."""
    from semialgebraic.bab.emptiness import decide_shared_shallow
    from semialgebraic.budget import Budget
    from semialgebraic.dimension.suspects import prove_suspects
    net = _rare_net()
    for k in range(3):
        assert phase_search(net, None, {(0, 0): 1, (1, k): 1}, None, max_lps=5000, deadline=None,
                            record=False)[0] is False
    res, used = decide_shared_shallow(net, None, (0, 0, 1), [(1, k, 1) for k in range(3)])
    assert res["conditioned_on"] == "shallow" and res["shallow"] == [0, 0, 1] and 0 < used <= 200
    assert res["deeper"] == [[1, 0, 1], [1, 1, 1], [1, 2, 1]]
    assert [p["end"] for p in res["conditioned"]] == [{"sign": None}] * 2 + [{"interval": None}] + [{"sign": None}] * 2
    proven, _, proofs = prove_suspects(net, None, {"missing": [[12], [16], [20]]}, Budget(), lps=1, nodes=0,
                                       conditioned=0)
    assert proven["free"] == {12, 16, 20} and [p["parameter"] for p in proofs] == [12, 16, 20]
    assert all(p["shared"] is proofs[0]["shared"] for p in proofs)
    assert proofs[0]["shared"]["conditioned_on"] == "shallow"
    assert [p["targets"] for p in proofs] == [[[0, 0, 1], [1, k, 1]] for k in range(3)]
    net, cert = _mirror_certificate()
    assert len(cert["shared_proofs"]) == 1 and [e[2]["shared"] for e in cert["upper_directions"]] == [0, 0, 0]
    ok, why = verify(cert)
    assert ok and cert["upper"] == net.n_parameters - 3 == 28, why


def test_mirror_shared_tree_refuses_a_coactive_deeper_neuron():
    """The 2-6-6-1 net's (0, 2) is co-active with some layer-1 neurons: the group of every layer-1
    neuron does not close."""
    from semialgebraic.bab.emptiness import decide_shared_shallow
    net = _net([2, 6, 6, 1], 301)
    assert phase_search(net, None, {(0, 2): 1, (1, 0): 1}, None, max_lps=5000, deadline=None,
                        record=False)[0] is True
    res, _ = decide_shared_shallow(net, None, (0, 2, 1), [(1, k, 1) for k in range(6)], splits=8, lps=2000)
    assert res is None


@pytest.mark.parametrize("seed", [3, 4, 10])
def test_mirror_shared_decisions_agree_with_the_exact_phase_search(seed):
    """Soundness on 2-4-4-4-1 nets: a group of all four deeper neurons is proved only when the
    exact phase search finds none of its pairs with the shallow neuron co-active; every proof's
    certificate entry checks (SharedProofs)."""
    from semialgebraic.bab.emptiness import decide_shared_shallow
    from semialgebraic.verify.functional_dimension_emptiness import SharedProofs
    net = _gauss_net((2, 4, 4, 4, 1), seed)
    proved = 0
    for t in (0, 1):
        for a in range(4):
            never = [c for c in range(4) if phase_search(net, None, {(t, a): 1, (t + 1, c): 1}, None,
                                                         max_lps=5000, deadline=None, record=False)[0] is False]
            for group in ([(t + 1, c, 1) for c in range(4)], [(t + 1, c, 1) for c in never]):
                if len(group) < 2:
                    continue
                res, _ = decide_shared_shallow(net, None, (t, a, 1), group, splits=12, lps=2000)
                if res is None:
                    continue
                assert all(c in never for _, c, _ in group)
                table = SharedProofs(net, None, [json.loads(json.dumps(res))])
                for _, c, _ in group:
                    assert table.proves(0, [(t, a, 1), (t + 1, c, 1)])
                    proved += 1
    assert proved >= {3: 12, 4: 3, 10: 4}[seed]


def test_mutated_mirror_shared_proofs_are_rejected():
    """A deeper target dropped or added (the outputs change: the tree no longer replays), the
    shallow or a deeper sign flipped, a sign end where the face was empty, a Farkas vector zeroed,
    a reference to another shared proof (a classic deeper_only entry of another pair, or a mirror
    entry without the pair), the marker changed, an unsorted deeper list: rejected."""
    net, cert = _mirror_certificate()
    assert verify(cert)[0]
    for mutate in (lambda e: e["deeper"].pop(),
                   lambda e: e["deeper"].pop(0),
                   lambda e: e["deeper"].append([1, 2, -1]),
                   lambda e: e.__setitem__("shallow", [0, 0, -1]),
                   lambda e: e["deeper"][1].__setitem__(2, -1),
                   lambda e: e["conditioned"][2].__setitem__("end", {"sign": None}),
                   lambda e: e["conditioned"][0].__setitem__("end", {"sign": [0, 0]}),
                   lambda e: e.__setitem__("conditioned_on", "deeper"),
                   lambda e: e.__setitem__("deeper", e["deeper"][::-1]),
                   lambda e: e["conditioned"].pop()):
        bad = copy.deepcopy(cert)
        mutate(bad["shared_proofs"][0])
        assert _rejected(bad), mutate
    # a Farkas vector zeroed: in a decided group of seed 4's net that ends by one
    from semialgebraic.bab.emptiness import decide_shared_shallow
    from semialgebraic.verify.functional_dimension_emptiness import SharedProofs
    g4 = _gauss_net((2, 4, 4, 4, 1), 4)
    res = json.loads(json.dumps(decide_shared_shallow(g4, None, (1, 2, 1), [(2, c, 1) for c in range(3)])[0]))
    assert [next(iter(p["end"])) for p in res["conditioned"]] == ["sign", "sign", "farkas", "sign", "sign"]
    assert SharedProofs(g4, None, [res]).proves(0, [(1, 2, 1), (2, 0, 1)])
    bad = copy.deepcopy(res)
    fk = bad["conditioned"][2]["end"]["farkas"]
    bad["conditioned"][2]["end"]["farkas"] = {k: [[0] * len(r) for r in fk[k]] for k in fk}
    assert not SharedProofs(g4, None, [bad]).proves(0, [(1, 2, 1), (2, 0, 1)])
    assert not SharedProofs(g4, None, [res]).proves(0, [(1, 2, 1), (2, 3, 1)])    # not in its list
    assert not SharedProofs(g4, None, [res]).proves(0, [(1, 1, 1), (2, 0, 1)])    # another shallow
    # a reference to another table entry: the same tree claimed for another shallow neuron
    bad = copy.deepcopy(cert)
    bad["shared_proofs"].append(copy.deepcopy(cert["shared_proofs"][0]))
    bad["shared_proofs"][1]["shallow"] = [0, 1, 1]
    bad["upper_directions"][2][2]["shared"] = 1
    assert _rejected(bad)
