"""Linear regions: Zaslavsky counts, brute force over sign patterns, affine maps, neighbours."""

import itertools
import random
from math import comb

import pytest
from hypothesis import given, settings, strategies as st

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.budget import Budget
from semialgebraic.exceptions import BudgetExceededError
from semialgebraic.lp import feasible
from semialgebraic.sets import Polyhedron
from semialgebraic.regions import number_of_regions, region_at, regions


# -- independent helpers ------------------------------------------------------------------------
def pattern_inequalities(net, pattern):
    """Oriented pre-activation forms (a, c) of every hidden neuron for a fixed pattern,
    written independently of regions.py (plain lists)."""
    d = net.n_inputs
    J = [[Q(int(i == j)) for j in range(d)] for i in range(d)]   # post-activation h = J x + c
    c = [Q(0)] * d
    out, k = [], 0
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        Wr = W.to_rows()
        P = [[sum((Wr[i][t] * J[t][j] for t in range(len(J))), Q(0)) for j in range(d)]
             for i in range(len(Wr))]
        q = [sum((Wr[i][t] * c[t] for t in range(len(c))), Q(0)) + b[i] for i in range(len(Wr))]
        for i in range(len(Wr)):
            s = pattern[k + i]
            out.append(([s * v for v in P[i]], s * q[i]))
        J = [P[i] if pattern[k + i] > 0 else [Q(0)] * d for i in range(len(Wr))]
        c = [q[i] if pattern[k + i] > 0 else Q(0) for i in range(len(Wr))]
        k += len(Wr)
    return out


def brute_force_patterns(net, domain=None):
    """All patterns whose region is non-empty (strict exact LP), by enumeration of 2^n sign
    patterns; a neuron whose form is identically zero gets 0 (and no inequality)."""
    found = set()
    for pattern in itertools.product((1, -1), repeat=net.n_hidden):
        ineq = pattern_inequalities(net, pattern)
        zero = [k for k, (a, c) in enumerate(ineq) if c == 0 and all(v == 0 for v in a)]
        pattern = tuple(0 if k in zero else v for k, v in enumerate(pattern))
        ineq = [f for k, f in enumerate(ineq) if k not in zero]
        A = [[-v for v in a] for a, _ in ineq]
        b = [c for _, c in ineq]
        if domain is not None:
            A += domain.A.to_rows()
            b += list(domain.b)
        if feasible(A_lt=A or None, b_lt=b or None, n=net.n_inputs).feasible:
            found.add(pattern)
    return found


def random_net(widths, rng, den=4, lo=-5, hi=5):
    Ws = [[[Q(rng.randint(lo, hi), rng.randint(1, den)) for _ in range(widths[l])]
           for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    bs = [[Q(rng.randint(lo, hi), rng.randint(1, den)) for _ in range(widths[l + 1])]
          for l in range(len(widths) - 1)]
    return Network(Ws, bs)


def in_general_position(net):
    """Every d x d minor of W1 and every (d+1) x (d+1) minor of [W1 | b1] is non-zero."""
    W, b = net.layer(0)
    d, n = W.ncols, W.nrows
    aug = QMatrix.hstack([W, QMatrix.column(b)])
    for k in range(1, d + 1):
        for rows in itertools.combinations(range(n), k):
            if W.submatrix(rows=rows).rank() < k:
                return False
    for rows in itertools.combinations(range(n), d + 1):
        if aug.submatrix(rows=rows).det() == 0:
            return False
    return True


def check_region(net, r):
    J, c = net.affine_map(r.pattern)
    assert r.jacobian == J and r.offset == c
    assert tuple(net.activation_pattern(r.point)) == r.pattern
    assert r.contains(r.point) and r.value(r.point) == net(r.point)
    # more points inside: midpoints between the interior point and facet witnesses
    for y in r.facet_points:
        z = tuple((u + v) / 2 for u, v in zip(r.point, y))
        assert r.contains(z) and r.value(z) == net(z)
        assert tuple(net.activation_pattern(z)) == r.pattern
    # facet witnesses: on the facet hyperplane, every other class strict
    for i, cls, y in zip(r.facets, r.facet_classes, r.facet_points):
        for j, (a, cj) in enumerate(r.inequalities):
            val = sum((u * v for u, v in zip(a, y)), Q(0)) + cj
            if j in cls:
                assert val == 0
            elif any(v != 0 for v in a):
                assert val > 0 or val == 0 and False, (i, j)


# -- tests ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("d,n,seed", [(1, 4, 0), (2, 5, 1), (2, 6, 2), (3, 5, 3), (3, 6, 4)])
def test_zaslavsky_count_one_hidden_layer(d, n, seed):
    rng = random.Random(seed)
    net = random_net((d, n, 1), rng)
    while not in_general_position(net):
        net = random_net((d, n, 1), rng)
    rs = list(regions(net))
    assert len(rs) == sum(comb(n, i) for i in range(d + 1))
    assert len({r.pattern for r in rs}) == len(rs)
    for r in rs:
        check_region(net, r)
        for i, q in r.neighbours:       # generic: a neighbour differs in exactly that neuron
            assert q is not None
            diff = [k for k in range(n) if q[k] != r.pattern[k]]
            assert diff == [i]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_box_count_matches_brute_force(seed):
    rng = random.Random(10 + seed)
    net = random_net((2, 5, 1), rng)
    box = Polyhedron.box(2, -1, 1)
    walk = regions(net, domain=box)
    rs = list(walk)
    assert walk.complete
    assert {r.pattern for r in rs} == brute_force_patterns(net, box)
    assert len(rs) <= sum(comb(5, i) for i in range(3))
    for r in rs:
        check_region(net, r)
        assert box.contains_interior(r.point)
        for i, q in r.neighbours:
            assert (q is None) == (i >= net.n_hidden)


@pytest.mark.parametrize("widths,seed", [((2, 3, 3, 1), 0), ((2, 4, 3, 1), 1), ((2, 3, 2, 2, 1), 2),
                                         ((3, 3, 3, 1), 3), ((1, 3, 3, 1), 4)])
def test_deep_nets_agree_with_brute_force(widths, seed):
    rng = random.Random(100 + seed)
    net = random_net(widths, rng)
    rs = list(regions(net))
    assert {r.pattern for r in rs} == brute_force_patterns(net)
    assert len(rs) == len({r.pattern for r in rs})
    by_pattern = {r.pattern: r for r in rs}
    for r in rs:
        check_region(net, r)
        for (i, q), y in zip(r.neighbours, r.facet_points):
            assert q in by_pattern and q != r.pattern
            assert r.pattern[i] != q[i]           # the facet's own neuron flips
            # the neighbour's closure contains the facet witness (continuity of the map)
            assert by_pattern[q].value(y) == r.value(y) == net(y)


def test_deep_nets_in_a_box_agree_with_brute_force():
    rng = random.Random(5)
    net = random_net((2, 3, 3, 1), rng)
    box = Polyhedron.box(2, 0, 2)
    assert {r.pattern for r in regions(net, domain=box)} == brute_force_patterns(net, box)


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10**6))
def test_random_small_deep_nets(seed):
    rng = random.Random(seed)
    widths = rng.choice([(2, 3, 2, 1), (2, 2, 3, 1), (1, 2, 2, 2, 1)])
    net = random_net(widths, rng, den=2, lo=-2, hi=2)   # small entries: degenerate cases occur
    pats = {r.pattern for r in regions(net)}
    assert pats == brute_force_patterns(net)


def test_coinciding_hyperplanes_and_dead_neuron():
    # neurons 0 and 1 share the hyperplane x = 1 (positive multiples), neuron 2 is dead
    net = Network.from_rows([[[1], [2], [0]], [[1, 1, 1]]], [[-1, -2, 0], [0]])
    rs = sorted(regions(net), key=lambda r: r.point)
    assert [r.pattern for r in rs] == [(-1, -1, 0), (1, 1, 0)]
    left = rs[0]
    assert left.facets == (0,) and left.facet_classes == ((0, 1),)
    assert left.neighbours == ((0, (1, 1, 0)),)
    assert left.inequalities[2] == ((0,), 0)


def test_bent_hyperplane_neighbour_differs_in_two_neurons():
    # layer-2 neuron relu(x) - 1 ... and one whose hyperplane continues a layer-1 hyperplane
    net = Network.from_rows([[[1]], [[1], [2]], [[1, 1]]], [[0], [-1, 0], [0]])
    rs = list(regions(net))
    pats = {r.pattern for r in rs}
    assert pats == {(-1, -1, 0), (1, -1, 1), (1, 1, 1)}
    for r in rs:
        check_region(net, r)
    r0 = next(r for r in rs if r.pattern == (-1, -1, 0))
    assert r0.neighbours == ((0, (1, -1, 1)),)


def test_orthant_domain():
    net = Network.from_rows([[[1, -1], [1, 1]], [[1, 1]]], [[0, -1], [0]])
    O = Polyhedron.orthant(2)
    rs = list(regions(net, domain=O))
    assert {r.pattern for r in rs} == brute_force_patterns(net, O)
    assert len(rs) == 4


def test_budgets_give_partial_results():
    rng = random.Random(3)
    net = random_net((2, 6, 1), rng)
    total = number_of_regions(net)
    walk = regions(net, max_regions=3)
    assert len(list(walk)) == 3 and not walk.complete
    assert walk.budget.reason and "max_regions" in walk.budget.reason
    b = Budget(timeout=0)
    walk = regions(net, budget=b)
    assert list(walk) == [] and not walk.complete and b.exhausted()
    walk = regions(net, max_regions=total)
    assert len(list(walk)) == total and walk.complete
    with pytest.raises(BudgetExceededError) as exc:
        number_of_regions(net, max_regions=2)
    assert exc.value.partial == 2


def test_keyboard_interrupt_stops_with_partial_result(monkeypatch):
    rng = random.Random(4)
    net = random_net((2, 5, 1), rng)
    walk = regions(net)
    first = next(walk)
    eng = walk._engine
    monkeypatch.setattr(eng, "region", lambda *a: (_ for _ in ()).throw(KeyboardInterrupt()))
    assert list(walk) == [] and not walk.complete and walk.budget.interrupted
    assert first.pattern


def test_region_at_and_json():
    net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    r = region_at(net, ["1/2", "-3"])
    assert r.pattern == (1, -1)
    data = r.to_json()
    assert data["pattern"] == [1, -1] and data["jacobian"] == [[1, 0]] and data["offset"] == [0]
    assert set(data) >= {"pattern", "point", "jacobian", "offset", "inequalities", "facets",
                         "neighbours"}
    with pytest.raises(Exception):
        region_at(net, [0, 1])


def test_empty_domain_interior():
    net = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    flat = Polyhedron([[1], [-1]], [0, 0])
    walk = regions(net, domain=flat)
    assert list(walk) == [] and walk.complete


def test_tiny_box_centred_on_a_kink():
    """Bug (found by tests/fuzz): on a box of radius 1e-6 whose centre lies on a hyperplane the
    walk's start-point search stepped from the centre by 1/7 and kept the step cumulatively, so
    it never came back into the box: CertificateError "could not find a start point"."""
    net = Network.from_rows([[[1, 1], [1, -1]], [[1, 2]]], [[-1, 0], [0]])   # kinks x+y=1, x=y
    r = Q(1, 10**6)
    box = [(Q(1, 2) - r, Q(1, 2) + r)] * 2                                  # centre on both kinks
    rs = list(regions(net, domain=Polyhedron.box(2, box[0][0], box[0][1])))
    assert sorted(tuple(x.pattern) for x in rs) == [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    for x in rs:                                                           # points in the box
        assert all(lo < v < hi for v, (lo, hi) in zip(x.point, box))


# -- CLI ------------------------------------------------------------------------------------------
def _cli(args, capsys):
    import json
    from semialgebraic.cli import main
    code = main(args)
    out = capsys.readouterr().out
    return code, (json.loads(out) if "--json" in args and out.strip() else out)


def test_cli_regions(tmp_path, capsys):
    from algebra import save
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    path = tmp_path / "n.json"
    save(net, str(path))
    code, data = _cli(["regions", str(path), "--json"], capsys)
    assert code == 0 and data["complete"] is True and len(data["regions"]) == 7
    for r in data["regions"]:
        x = [Q(v) if isinstance(v, int) else Q(*map(int, v.split("/"))) for v in r["point"]]
        J, c = net.affine_map(r["pattern"])
        assert r["jacobian"] == J.to_json() and tuple(net.activation_pattern(x)) == tuple(r["pattern"])
    code, data = _cli(["regions", str(path), "--box", "-1,1", "--json"], capsys)
    assert code == 0 and len(data["regions"]) == 5
    code, data = _cli(["regions", str(path), "--orthant", "--json"], capsys)
    assert code == 0 and len(data["regions"]) == 2
    code, data = _cli(["regions", str(path), "--max-regions", "2", "--json"], capsys)
    assert code == 3 and data["complete"] is False and len(data["regions"]) == 2
    code, data = _cli(["regions", str(path), "--timeout", "0", "--json"], capsys)
    assert code == 3 and data["complete"] is False
    assert _cli(["regions", str(path), "--box", "1,0"], capsys)[0] == 2
    assert _cli(["regions", str(tmp_path / "missing.json")], capsys)[0] == 2


def test_cli_regions_text_compacts_long_patterns_json_keeps_them(tmp_path, capsys):
    """Above 32 hidden neurons (ACAS Xu: 300) the text prints per layer the on/off counts and a
    short hash of the pattern instead of the whole sign string; ``--patterns`` prints it whole;
    the JSON is unchanged (whole patterns)."""
    import hashlib
    from algebra import save
    rng = random.Random(7)
    widths = (2, 20, 20, 1)
    ws = [[[rng.randint(-3, 3) for _ in range(a)] for _ in range(b)] for a, b in zip(widths, widths[1:])]
    bs = [[rng.randint(-2, 2) for _ in range(b)] for b in widths[1:]]
    path = tmp_path / "n.json"
    save(Network.from_rows(ws, bs), str(path))
    argv = ["regions", str(path), "--box", "-1,1", "--max-regions", "3"]
    code, data = _cli(argv + ["--json"], capsys)
    assert code == 3 and len(data["regions"]) == 3 and all(len(r["pattern"]) == 40 for r in data["regions"])
    code, text = _cli(argv, capsys)
    rows = [line for line in text.splitlines() if " piece " in line]
    assert code == 3 and len(rows) == 3
    for r, line in zip(data["regions"], rows):
        whole = "".join("+" if v > 0 else "-" if v < 0 else "0" for v in r["pattern"])
        layers = [r["pattern"][:20], r["pattern"][20:]]
        want = "|".join(f"{sum(v > 0 for v in p)}+ {sum(v < 0 for v in p)}-"
                        + (f" {p.count(0)} zero" if 0 in p else "") for p in layers)
        assert line.startswith(f"  [{want}] #{hashlib.sha1(whole.encode()).hexdigest()[:8]}  piece ")
        assert whole not in line and len(line.split("  piece ")[0]) < 40
    code, text = _cli(argv + ["--patterns"], capsys)
    rows = [line for line in text.splitlines() if " piece " in line]
    assert code == 3 and [line.split()[0] for line in rows] == \
        ["".join("+" if v > 0 else "-" if v < 0 else "0" for v in r["pattern"]) for r in data["regions"]]
    # a small net keeps its whole pattern by default
    save(Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]]), str(path))
    code, text = _cli(["regions", str(path), "--box", "-1,1"], capsys)
    assert code == 0 and "  +++  piece" in text and "#" not in text
