"""Session 52: ``symmetries`` of one hidden layer lists the flip sets (three-layer-fibers R41's
I4) of nets whose neurons share hyperplanes (s51 audit 4 F2: a 1-5-1 net with an opposite pair
printed ``"flip_sets": []`` though {1, 3}, {2, 3} and {0, 1, 2} keep the function)."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from itertools import combinations

import pytest

from algebra.io.native import network_from_dict
from semialgebraic.cli import main
from semialgebraic.shallow.fiber import kink_flip_sets
from semialgebraic.verify import verify

PAIR_FLIP = {"format": "netfibers.network", "version": 1, "activation": "relu",
             "layers": [{"weight": [[2], [1], [-1], [-1], [-2]], "bias": [3, 1, 3, 2, -2]},
                        {"weight": [[3, -3, 3, -3, -2]], "bias": [0]}]}


def _rows(net: dict):
    (l1, l2) = net["layers"]
    W = [[Fraction(x) for x in r] for r in l1["weight"]]
    b = [Fraction(x) for x in l1["bias"]]
    V = [[Fraction(x) for x in r] for r in l2["weight"]]
    c = [Fraction(x) for x in l2["bias"]]
    return W, b, V, c


def _eval(W, b, V, c, x):
    h = [max(Fraction(0), sum(wk * xk for wk, xk in zip(w, x)) + bi) for w, bi in zip(W, b)]
    return [sum(v * hi for v, hi in zip(row, h)) + co for row, co in zip(V, c)]


def _flipped(W, b, V, c, S):
    W2 = [[-x for x in w] if i in S else list(w) for i, w in enumerate(W)]
    b2 = [-x if i in S else x for i, x in enumerate(b)]
    c2 = [co + sum(V[o][i] * b[i] for i in S) for o, co in enumerate(c)]
    return W2, b2, V, c2


def _in_orbit(W, b, V, W2, b2, c, c2) -> bool:
    """Oracle: equal multisets of neurons up to positive scaling, equal output biases."""
    def key(w, bi, v):
        a = abs(next((x for x in (*w, bi) if x != 0), Fraction(1)))
        return (tuple(x / a for x in w), bi / a, tuple(x * a for x in v))
    cols = [[V[o][i] for o in range(len(V))] for i in range(len(W))]
    return c == c2 and sorted(map(key, W, b, cols)) == sorted(map(key, W2, b2, cols))


def _random_net(rng: random.Random) -> dict:
    """One hidden layer with planted flip sets, opposite pairs and duplicated hyperplanes."""
    d, m = rng.randint(1, 3), rng.randint(1, 2)
    W, b, V = [], [], []

    def q():
        return Fraction(rng.randint(-4, 4), rng.randint(1, 3))
    while len(W) < rng.randint(3, 8):
        kind = rng.random()
        w, bi, v = [q() for _ in range(d)], q(), [q() for _ in range(m)]
        if kind < 0.3 and W:                      # a neuron on another's hyperplane
            j = rng.randrange(len(W))
            lam = Fraction(rng.choice([-3, -2, -1, 1, 2])) / rng.randint(1, 2)
            w, bi = [lam * x for x in W[j]], lam * b[j]
        if kind > 0.7 and W:                      # a kink cancelling another's (a flip set)
            j = rng.randrange(len(W))
            lam = Fraction(rng.choice([-2, -1, 1, 3]))
            w = [lam * x for x in W[j]]
            if all(x == 0 for x in w):
                continue
            v = [-vo / lam for vo in V[j]]
        W.append(w), b.append(bi), V.append(v)
    return {"format": "netfibers.network", "version": 1, "activation": "relu",
            "layers": [{"weight": [[str(x) for x in w] for w in W], "bias": [str(x) for x in b]},
                       {"weight": [[str(V[i][o]) for i in range(len(W))] for o in range(m)],
                        "bias": [str(q()) for _ in range(m)]}]}


def test_kink_flip_sets_of_the_audit_net():
    """s51 audit 4 F2's net: kinks 6, −3, −3, 3, 4 (neurons 1 and 4 an opposite pair)."""
    net = network_from_dict(PAIR_FLIP)
    assert kink_flip_sets(net) == [[1, 3], [2, 3], [0, 1, 2]]


@pytest.mark.parametrize("seed", range(6))
def test_kink_flip_sets_against_fractions(seed):
    """Every listed set keeps the function (Fractions at 12 points) and is not a permutation
    and rescaling; every cancelling set of kink neurons that is not one is listed."""
    rng = random.Random(52_000 + seed)
    listed_total = 0
    for _ in range(25):
        data = _random_net(rng)
        W, b, V, c = _rows(data)
        m = len(V)
        cols = [[V[o][i] for o in range(m)] for i in range(len(W))]
        kink = [i for i in range(len(W)) if any(W[i]) and any(cols[i])]
        expected = []
        for r in range(1, len(kink) + 1):
            for S in combinations(kink, r):
                if all(sum(cols[i][o] * W[i][k] for i in S) == 0
                       for o in range(m) for k in range(len(W[0]))):
                    W2, b2, _, c2 = _flipped(W, b, V, c, set(S))
                    if not _in_orbit(W, b, V, W2, b2, c, c2):
                        expected.append(list(S))
        got = kink_flip_sets(network_from_dict(data))
        assert got == expected, data
        listed_total += len(got)
        for S in got:
            W2, b2, _, c2 = _flipped(W, b, V, c, set(S))
            for _ in range(12):
                x = [Fraction(rng.randint(-20, 20), rng.randint(1, 7)) for _ in range(len(W[0]))]
                assert _eval(W, b, V, c, x) == _eval(W2, b2, V, c2, x)
    assert listed_total > 0


def test_cli_symmetries_lists_flip_sets_beside_an_opposite_pair(tmp_path, capsys):
    """Text, JSON and a symmetry_report certificate with the three flipped copies."""
    path = tmp_path / "pair_flip.json"
    path.write_text(json.dumps(PAIR_FLIP))
    cert = tmp_path / "c.json"
    assert main(["symmetries", str(path), "--certificate", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "flip set [1, 3]; flip set [2, 3]; flip set [0, 1, 2]" in out
    assert "(three-layer-fibers R42): no" in out
    assert "4 listed parameter(s)" in out
    ok, why = verify(json.loads(cert.read_text()))
    assert ok, why
    assert main(["symmetries", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["flip_sets"] == [[1, 3], [2, 3], [0, 1, 2]]
    assert data["identifiable"]["answer"] is False


# -- the exact LP with fewer rows than variables ------------------------------------------------
def _motzkin_ok(S_eq, S_lt, S_le, cert) -> bool:
    """Fractions: y_lt, y_le >= 0, Σ y A = 0 on every column, y·b < 0, or y·b <= 0 with some
    y_lt > 0 (Motzkin's transposition theorem: no x satisfies the system)."""
    blocks = [(S_eq, cert["y_eq"], None), (S_lt, cert["y_lt"], 0), (S_le, cert["y_le"], 0)]
    k = len((S_eq or S_lt or S_le)[0][0])
    tot, beta = [Fraction(0)] * k, Fraction(0)
    for rows, ys, lo in blocks:
        for (a, bb), y in zip(rows, ys):
            y = Fraction(str(y))
            if lo is not None and y < lo:
                return False
            tot = [t + y * x for t, x in zip(tot, a)]
            beta += y * bb
    if any(tot):
        return False
    return beta < 0 or (beta <= 0 and any(Fraction(str(y)) > 0 for y in cert["y_lt"]))


def _point_ok(S_eq, S_lt, S_le, x) -> bool:
    x = [Fraction(str(v)) for v in x]
    val = lambda a: sum(ai * xi for ai, xi in zip(a, x))       # noqa: E731
    return (all(val(a) == bb for a, bb in S_eq) and all(val(a) < bb for a, bb in S_lt)
            and all(val(a) <= bb for a, bb in S_le))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_exact_lp_fewer_rows_than_variables(seed, method):
    """Rows of rank r < m < k (a facet LP of a region on R^64 has 19 rows in 63 variables): z on
    G's pivot columns; every answer re-checked with Fractions (a point, or a Motzkin certificate
    whose yᵀ G is 0 on every column, not only the pivots), feasible and infeasible both met."""
    from semialgebraic.lp.exact import feasible
    rng = random.Random(5200 + seed)
    seen = set()
    for _ in range(40):
        k = rng.randint(3, 14)
        m = rng.randint(1, k - 1)
        r = rng.randint(1, m)
        U = [[Fraction(rng.randint(-3, 3)) for _ in range(r)] for _ in range(m)]
        V = [[Fraction(rng.randint(-3, 3), rng.randint(1, 2)) for _ in range(k)] for _ in range(r)]
        G = [[sum(U[i][t] * V[t][j] for t in range(r)) for j in range(k)] for i in range(m)]
        h = [Fraction(rng.randint(-4, 4)) for _ in range(m)]
        if rng.random() < 0.5 and m >= 2:               # a contradiction on one direction
            i = rng.randrange(m - 1)
            G[i + 1] = [-x for x in G[i]]
            h[i + 1] = -h[i] - rng.choice([0, 1])
        split = rng.randint(0, m)
        S_lt = [(G[i], h[i]) for i in range(split)]
        S_le = [(G[i], h[i]) for i in range(split, m)]
        res = feasible(A_lt=[a for a, _ in S_lt] or None, b_lt=[b for _, b in S_lt] or None,
                       A_le=[a for a, _ in S_le] or None, b_le=[b for _, b in S_le] or None,
                       n=k, method=method)
        if res.feasible:
            assert _point_ok([], S_lt, S_le, res.point)
        else:
            assert _motzkin_ok([], S_lt, S_le, res.certificate)
        seen.add(res.feasible)
    assert seen == {True, False}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("method", ["exact", "auto"])
def test_exact_lp_non_strict_rows_alone(seed, method):
    """Non-strict rows alone (R41's positive functional: A y >= 1, 2 400 rows in 98 variables for
    a 48-2400-2 bottleneck, whose cold exact simplex ran > 5 min) are decided by max t with
    t >= 0 for feasible, warm-started from HiGHS's basis: answers re-checked with Fractions,
    feasible and infeasible both met, with more rows than variables and fewer."""
    from semialgebraic.lp.exact import feasible
    for b, want in ((0, True), (-1, False)):       # a zero row, fewer rows than variables
        assert feasible(A_le=[[0, 0, 0]], b_le=[b], method=method).feasible is want
    rng = random.Random(5300 + seed)
    seen = set()
    for _ in range(40):
        k = rng.randint(1, 8)
        m = rng.randint(1, 30)
        G = [[Fraction(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(k)] for _ in range(m)]
        h = [Fraction(rng.randint(-3, 6)) for _ in range(m)]
        if rng.random() < 0.3:                         # a positive functional's system
            h = [Fraction(-1)] * m
        if rng.random() < 0.3 and m >= 2:              # touching: feasible only on a face
            G[1] = [-x for x in G[0]]
            h[1] = -h[0]
        S_le = list(zip(G, h))
        res = feasible(A_le=G, b_le=h, method=method)
        if res.feasible:
            assert _point_ok([], [], S_le, res.point)
        else:
            assert _motzkin_ok([], [], S_le, res.certificate)
        seen.add(res.feasible)
    assert seen == {True, False}


# -- the s52 docs audit -------------------------------------------------------------------------
E_NET = json.loads(r'''{"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["-7/2", "-1"], ["1", "5"], ["-1/2", "2"], ["3", "-6/5"], ["1", "-9/4"], ["1", "-7/4"], ["0", "-3/2"], ["1", "1/4"]], "bias": ["-5/3", "6", "9", "0", "1", "7/4", "-4", "2"]}, {"weight": [["-1", "-5/3", "-6/5", "3/2", "-4/5", "3/2", "-7/4", "1"], ["-7", "-5/3", "-9", "-1/5", "5/4", "7", "-4", "-3/4"], ["-9/4", "7", "-1/5", "6/5", "-9", "-1", "7/4", "9/5"], ["9", "-3", "1", "1", "-9/2", "1/2", "0", "4"], ["1", "3/4", "-1", "-5/4", "2/3", "-9", "-1", "-7"], ["3", "2", "-3", "2", "5/2", "5/2", "-7/3", "-9"], ["-1", "-7/3", "-5/3", "1/2", "-5/3", "7/5", "-7/3", "-6"], ["1", "0", "6/5", "9/4", "-2/5", "-5/3", "-9/5", "-9/4"]], "bias": ["-5/2", "6", "-9", "-3/4", "-2/5", "-2/3", "-8/5", "-2"]}, {"weight": [["1", "-9/5", "0", "5", "-2", "9/5", "-1/5", "3/4"]], "bias": ["0"]}]}''')


def test_mixtral_experts_are_blocks_not_a_network(tmp_path, capsys):
    """F1: one Mixtral expert (experts.N.w1/w2/w3: generic names, a block only there) was read
    as a 3-layer ReLU network (eval, dim answered about it); now listed as a block, refused as a
    network; with two experts and the router both are listed."""
    np = pytest.importorskip("numpy")
    st = pytest.importorskip("safetensors.numpy")
    rng = np.random.default_rng(4)
    P = "model.layers.0.block_sparse_moe."
    one = {f"{P}experts.0.w1.weight": rng.standard_normal((5, 3)).astype(np.float32),
           f"{P}experts.0.w3.weight": rng.standard_normal((5, 3)).astype(np.float32),
           f"{P}experts.0.w2.weight": rng.standard_normal((3, 5)).astype(np.float32)}
    st.save_file(one, str(tmp_path / "one.safetensors"))
    two = {**one, **{k.replace("experts.0", "experts.1"): v for k, v in one.items()},
           f"{P}gate.weight": rng.standard_normal((2, 3)).astype(np.float32)}
    st.save_file(two, str(tmp_path / "two.safetensors"))
    assert main(["info", str(tmp_path / "one.safetensors")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 MLP block") and "w3/w1 (the gate)/w2: d=3, k=5, gated" in out
    assert main(["eval", str(tmp_path / "one.safetensors"), "--x", "1,1,1"]) == 2
    err = capsys.readouterr().err
    assert "an MLP block" in err and "experts.N.w1/w2/w3), not a network" in err
    assert main(["info", str(tmp_path / "two.safetensors")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 MLP blocks") and f"{P}experts.1." in out


def test_batch_refuses_a_weight_file_as_manifest(tmp_path, capsys):
    """F9: a raw codec error said nothing of what a manifest is; nothing is written."""
    net = tmp_path / "net.npz"
    net.write_bytes(b"PK\x03\x04\xf0\x9f binary")
    out = tmp_path / "o.jsonl"
    assert main(["batch", "identify", str(net), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "a weight file, not a manifest" in err and "a directory, a glob, a .csv or a .jsonl" in err
    assert not out.exists()


def test_canon_form_file_bytes_are_the_summary_sha256(tmp_path, capsys):
    """F10: `sha256sum FILE` of --form gives the sha256 canon hashes (a large form's summary
    shows it whole, the fingerprint is its first 16 hex digits; a trailing newline made the
    file's differ)."""
    import hashlib
    form = tmp_path / "form.json"
    assert main(["canon", "algebra/examples/r21_shallow.json", "--json", "--form", str(form)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert hashlib.sha256(form.read_bytes()).hexdigest()[:16] == data["fingerprint"]


def test_fiber_json_of_one_hidden_layer_has_number_of_strata(capsys):
    """F8: docs/architecture.md lists number_of_strata (null outside bottlenecks with n1 = 1)."""
    assert main(["fiber", "algebra/examples/r21_shallow.json", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert "number_of_strata" in data and data["number_of_strata"] is None


def test_dim_with_an_unused_timeout_is_unchanged(tmp_path, capsys):
    """F7: under --timeout the nearby θ' got only its modular rank, so a 2-8-8-1 net's fiber
    dimension (R22's reading, 36) became [33, 36] though the budget was not used up."""
    path = tmp_path / "e.json"
    path.write_text(json.dumps(E_NET))
    got = []
    for extra in ([], ["--timeout", "120"]):
        main(["dim", str(path), "--json", *extra])
        data = json.loads(capsys.readouterr().out)
        got.append((data["functional_dimension"], data.get("fiber_dimension"), data.get("fiber_lower"),
                    data.get("fiber_upper")))
    assert got[0] == got[1] and got[0][1] == 36


def test_citations_check_runs_from_any_directory(tmp_path):
    """F11: the script found docs/math only from the repository root."""
    import subprocess
    import sys
    from pathlib import Path
    script = Path(__file__).resolve().parents[2] / "docs" / "math" / "citations.py"
    r = subprocess.run([sys.executable, str(script), "--check"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "agrees" in r.stdout


def _net1(weights, biases, out):
    return {"format": "netfibers.network", "version": 1, "activation": "relu",
            "layers": [{"weight": [[w] for w in weights], "bias": biases},
                       {"weight": [out], "bias": [0]}]}


def test_recover_texts(tmp_path, capsys):
    """s52 audit of recover: a break with no jump up close beside a real bend is not reported as
    a lost bend once the network is certified equal (F1); a bend beyond the searched range is
    not only 'narrower than the probes' (F3)."""
    pair = tmp_path / "pair.json"
    pair.write_text(json.dumps(_net1([1, 1], [0, -10 ** 6], [1, -1])))
    assert main(["recover", str(pair), "-o", str(tmp_path / "r.json"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["equal_to_file"] is True and data["complete"] is True
    assert not any(n.endswith("skipped") for n in data["notes"])
    # (the search does skip breaks beside the bends on this net: the summary line says so)
    assert any("so no bend was lost" in n for n in data["notes"])
    far = tmp_path / "far.json"
    far.write_text(json.dumps(_net1([1], [10 ** 30], [1])))
    assert main(["recover", str(far), "-o", str(tmp_path / "r2.json"), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] is False
    assert any("farther out on the lines than 4^30 times" in n for n in data["notes"])


def test_an_ungated_expert_pair_stays_a_network(tmp_path, capsys):
    """s52 delta audit F2: experts.N.w1/w2 without w3 is no Mixtral block (the block reader needs
    all three): it is read as a network, as before the session."""
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(1)
    np.savez(tmp_path / "e.npz", **{"experts.0.w1.weight": rng.integers(-2, 3, (4, 3)).astype(np.float32),
                                   "experts.0.w1.bias": np.zeros(4, np.float32),
                                   "experts.0.w2.weight": rng.integers(-2, 3, (2, 4)).astype(np.float32),
                                   "experts.0.w2.bias": np.zeros(2, np.float32)})
    assert main(["info", str(tmp_path / "e.npz")]) == 0
    assert capsys.readouterr().out.startswith("widths 3-4-2")


def test_symmetries_says_when_flip_sets_were_not_enumerated(tmp_path, capsys):
    """s52 delta audit F1, F3: past 16 kink neurons beside a shared hyperplane no flip set is
    listed, and the text and JSON say they were not enumerated (not that there are none); a
    certificate holding only the first 64 of more listed sets says so."""
    rng = random.Random(17)
    W = [1, -1] + [rng.choice([1, 2, 3, -1, -2]) for _ in range(15)]
    b = [0, 0] + [rng.randint(-30, 30) for _ in range(15)]
    V = [1, 2] + [rng.choice([1, -1, 2, -2, 3]) for _ in range(15)]
    path = tmp_path / "n17.json"
    path.write_text(json.dumps(_net1(W, b, V)))
    main(["symmetries", str(path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["flip_sets"] == [] and data["flip_sets_enumerated"] is False
    main(["symmetries", str(path)])
    assert "flip sets not enumerated (more than 16 kink neurons)" in capsys.readouterr().out
    # 1-16-1 with kinks ±1 beside an opposite pair: many flip sets, the certificate takes 64
    W = [1, -1] + [1, -1] * 7
    b = [0, 0] + [k + 1 for k in range(14)]
    V = [1, 2] + [1] * 14
    path.write_text(json.dumps(_net1(W, b, V)))
    assert main(["symmetries", str(path), "--certificate", str(tmp_path / "c.json")]) in (0, 3)
    out = capsys.readouterr().out
    assert "the certificate holds the first 64 of the" in out


def test_lp_auto_with_numbers_beyond_float_range():
    """s52 delta audit F4: method "auto" raised OverflowError from the float guess on an entry of
    10^400; the guess now gives none and the exact method decides (as method "exact" did)."""
    from semialgebraic.lp.exact import feasible, optimize
    big = 10 ** 400
    for method in ("exact", "auto"):
        r = feasible(A_le=[[big, 1], [-1, 0]], b_le=[1, 0], method=method)
        assert r.feasible and r.check()
        o = optimize([1, 1], A_le=[[big, 1], [-1, 0], [0, 1]], b_le=[1, 0, 1], method=method)
        assert o.status == "optimal" and o.value == 1
        r = feasible(A_le=[[big, 0], [-big, 0]], b_le=[-1, -1], method=method)
        assert not r.feasible and r.check()
