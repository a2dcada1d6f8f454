"""Exact equivalence on a box with its own sides per coordinate (three-layer-fibers R36): the
pair is decided read on the cube, ``a∘φ ≡ b∘φ`` on ``[-1, 1]^d`` with ``φ(u) = c + s ⊙ u`` onto
the box.  An "equivalent" carries an ``on_box`` certificate (the user's networks and box, the
inner certificate of the composed pair); a "not equivalent" an ordinary ``counterexample`` on
the user's networks at a point of the user's box.  Values, not "runs": the answers, the points
(inside the box, ``a(x) != b(x)`` exactly), certificates VALID, mutations INVALID, and agreement
with the exact branch and bound (``upper == 0`` iff equivalent)."""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel import compose_input_map
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q, to_q
from semialgebraic.bab import diff_bounds
from semialgebraic.certificates import jsonable, on_box_certificate
from semialgebraic.equivalence import equivalent
from semialgebraic.verify import verify

BOX = [(-1, 2), (0, 3)]


def _json(c):
    return json.loads(json.dumps(jsonable(c)))


def _random_net(rng, widths, lo=-3, hi=3):
    ws = [[[rng.randint(lo, hi) for _ in range(widths[l])] for _ in range(widths[l + 1])]
          for l in range(len(widths) - 1)]
    bs = [[rng.randint(lo, hi) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network.from_rows(ws, bs)


def _permuted_scaled(net, rng):
    """A planted copy: every hidden layer's neurons permuted and scaled by positive rationals
    (the incoming row and bias by c, the outgoing column by 1/c): the same function on R^d."""
    Ws = [[list(r) for r in W.to_rows()] for W in net.weights]
    bs = [list(b) for b in net.biases]
    for l in range(len(Ws) - 1):
        n = len(Ws[l])
        perm = list(range(n))
        rng.shuffle(perm)
        c = [Q(rng.randint(1, 5), rng.randint(1, 4)) for _ in range(n)]
        Ws[l] = [[v * c[i] for v in Ws[l][i]] for i in perm]
        bs[l] = [bs[l][i] * c[i] for i in perm]
        Ws[l + 1] = [[row[i] / c[i] for i in perm] for row in Ws[l + 1]]
    return Network.from_rows(Ws, bs)


def _inside(x, box):
    return all(Q(lo) <= to_q(v) <= Q(hi) for v, (lo, hi) in zip(x, box))


# -- planted copies --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(3))
def test_permuted_scaled_copies_are_equivalent_on_a_box(seed):
    rng = random.Random(seed)
    a = _random_net(rng, [2, 4, 3, 1])
    b = _permuted_scaled(a, rng)
    s = equivalent(a, b, domain=BOX)              # auto: the exact alignment (S1, S2) decides
    assert s.answer is True and s.method == "symmetry" and verify(_json(s.certificate))[0]
    assert _json(s.certificate)["inner"]["type"] == "symmetry_path"
    v = equivalent(a, b, domain=BOX, method="general")
    assert v.answer is True and v.method == "general"
    cert = _json(v.certificate)
    assert cert["type"] == "on_box" and cert["box"] == [[-1, 2], [0, 3]]
    assert cert["inner"]["type"] == "region_cover" and cert["inner"]["domain"] == {"box": [-1, 1]}
    assert network_from_dict(cert["a"]) == a and network_from_dict(cert["b"]) == b
    ok, why = verify(cert)
    assert ok and "R36" in why
    # the hypotheses speak of the user's box, never the cube
    boxes = [h.witness for h in s.hypotheses if isinstance(h.witness, dict) and "box" in h.witness]
    assert boxes and all(w == {"box": [[Q(-1), Q(2)], [Q(0), Q(3)]]} for w in boxes)
    assert v.details["box"] == [[Q(-1), Q(2)], [Q(0), Q(3)]]


# -- differs only outside the box ------------------------------------------------------------
# a = relu(x0) + relu(x1 - 2), b = relu(x0): equal exactly where x1 <= 2
A2 = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, -2], [0]])
B2 = Network.from_rows([[[1, 0]], [[1]]], [[0], [0]])


def test_a_pair_that_differs_only_outside_the_box_is_equivalent_there():
    v = equivalent(A2, B2, domain=[(-1, 1), (-1, 2)])
    assert v.answer is True and v.certificate["type"] == "on_box"
    # one hidden layer each: the shallow canonical form (R^d or the orthant) would say "not
    # equivalent"; its domain hypothesis is checked on the cube and fails, the general method decides
    shallow = [h for h in v.hypotheses if h.name.startswith("domain is R^d or the closed orthant")]
    assert [h.holds for h in shallow] == [False] and v.method == "general"
    assert equivalent(A2, B2).answer is False
    only = equivalent(A2, B2, domain=[(-1, 1), (-1, 2)], method="shallow")
    assert only.answer is None and only.certificate is None and only.reason == "the shallow method does not apply"
    assert verify(_json(v.certificate))[0]
    w = equivalent(A2, B2, domain=[(-1, 1), (-1, 3)])          # the larger box reaches x1 > 2
    assert w.answer is False
    cert = _json(w.certificate)
    assert cert["type"] == "counterexample" and cert["domain"] == {"box": [[-1, 1], [-1, 3]]}
    x = [to_q(t) for t in cert["x"]]
    assert _inside(x, [(-1, 1), (-1, 3)]) and x[1] > 2
    assert abs(A2(x)[0] - B2(x)[0]) > 0 and w.details["point"] == x
    assert verify(cert) == (True, "a(x) != b(x) at the given exact input in the domain")


# a = relu(relu(x0 - x1) - relu(x1 - x0)) + relu(x1) = relu(x0 - x1) + relu(x1) (needs the walk);
# b = relu(x0 - x1) + x1 (x1 = relu(x1) - relu(-x1)): equal exactly where x1 >= 0
A3 = Network.from_rows([[[1, -1], [-1, 1], [0, 1]], [[1, -1, 0], [0, 0, 1]], [[1, 1]]],
                       [[0, 0, 0], [0, 0], [0]])
B3 = Network.from_rows([[[2, -2], [0, 3], [0, -1]], [["1/2", "1/3", -1]]], [[0, 0, 0], [0]])


def test_a_pair_that_needs_the_region_walk_on_the_box():
    v = equivalent(A3, B3, domain=[(-1, 2), (0, 3)])
    cert = _json(v.certificate)
    assert v.answer is True and v.details["regions_checked"] == len(cert["inner"]["regions"]) == 2
    assert verify(cert)[0]
    w = equivalent(A3, B3, domain=[(-1, 2), ("-1/4", 3)])
    x = w.details["point"]
    assert w.answer is False and _inside(x, [(-1, 2), ("-1/4", 3)]) and x[1] < 0
    assert A3(x)[0] - B3(x)[0] == -x[1] and verify(_json(w.certificate))[0]


def test_a_pair_that_differs_in_a_tiny_region_inside_the_box_is_not_equivalent():
    # b = a + relu(d - |x0 - p0| - |x1 - p1|): a bump of L1 radius d = 1/1000 around p
    p, d = (Q(1, 3), Q(7, 5)), Q(1, 1000)
    a = _random_net(random.Random(7), [2, 3, 1])
    abs_rows = [[1, 0], [-1, 0], [0, 1], [0, -1]]
    abs_bias = [-p[0], p[0], -p[1], p[1]]
    Wa, ba = a.layer(0)
    W2a, b2a = a.layer(1)
    # b: a's hidden neurons beside the four |.| neurons, then a second layer that carries a's
    # output through relu(y) - relu(-y) and adds the bump
    n = Wa.nrows
    W1 = [list(r) for r in Wa.to_rows()] + abs_rows
    b1 = list(ba) + abs_bias
    y = list(W2a.to_rows()[0]) + [0] * 4
    W2 = [y, [-v for v in y], [0] * n + [-1, -1, -1, -1]]
    b2 = [b2a[0], -b2a[0], d]
    b = Network.from_rows([W1, W2, [[1, -1, 1]]], [b1, b2, [0]])
    box = [(-1, 2), (0, 3)]
    assert b(p)[0] - a(p)[0] == d                              # the bump's top
    v = equivalent(a, b, domain=box)
    assert v.answer is False
    cert = _json(v.certificate)
    x = [to_q(t) for t in cert["x"]]
    assert _inside(x, box) and abs(x[0] - p[0]) + abs(x[1] - p[1]) < d
    assert b(x)[0] - a(x)[0] > 0 and verify(cert)[0]


# -- degenerate sides, cubes, domains --------------------------------------------------------
def test_a_side_of_width_zero_is_decided_exactly():
    # on x1 = 2 exactly: relu(x1 - 2) = 0, a = b; on x1 = 5/2: not
    v = equivalent(A2, B2, domain=[(-1, 1), (2, 2)])
    assert v.answer is True and verify(_json(v.certificate))[0]
    w = equivalent(A2, B2, domain=[(-1, 1), ("5/2", "5/2")])
    x = [to_q(t) for t in w.certificate["x"]]
    assert w.answer is False and x[1] == Q(5, 2) and -1 <= x[0] <= 1
    assert verify(_json(w.certificate))[0]
    # a point (every side of width 0) with different coordinates
    assert equivalent(A2, B2, domain=[(0, 0), (3, 3)]).answer is False
    assert equivalent(A2, B2, domain=[(0, 0), (1, 1)]).answer is True


def test_a_cube_given_per_coordinate_is_the_cube():
    for dom in ([(-1, 3), (-1, 3)], {"box": [[-1, 3], [-1, 3]]}, Domain.cube(2, Q(-1), Q(3))):
        v = equivalent(A2, B2, domain=dom)
        u = equivalent(A2, B2, domain=(-1, 3))
        assert (v.answer, v.certificate) == (u.answer, u.certificate) == \
            (False, u.certificate) and u.certificate["domain"] == {"box": [-1, 3]}


def test_domain_objects_and_json_boxes_and_bad_boxes():
    v = equivalent(A2, B2, domain=Domain.from_box([(-1, 1), (-1, 2)]))
    assert v.answer is True and v.certificate["box"] == [[-1, 1], [-1, 2]]
    assert equivalent(A2, B2, domain={"box": [[-1, 1], [-1, 2]]}).answer is True
    assert equivalent(A2, B2, domain=Domain.orthant(2)).answer is False
    with pytest.raises(InputError, match="exceeds"):
        equivalent(A2, B2, domain=[(1, -1), (0, 1)])
    with pytest.raises(InputError, match="2 intervals"):
        equivalent(A2, B2, domain=[(0, 1), (0, 1), (0, 1)])
    with pytest.raises(InputError, match="half-spaces"):       # a fixed method: a box only
        equivalent(A2, B2, method="general",
                   domain=Domain.from_box([(0, 1), (0, 1)]).with_halfspaces([([1, 1], 1)]))


# -- the certificate: mutations --------------------------------------------------------------
@pytest.fixture(scope="module")
def honest():
    v = equivalent(A2, B2, domain=[(-1, 1), (-1, 2)])
    return _json(v.certificate)


def test_on_box_certificate_mutations_are_invalid(honest):
    assert verify(honest)[0]
    bad = copy.deepcopy(honest)
    bad["box"][1][1] = 3                      # a larger box: the inner cover is of other networks
    assert verify(bad)[0] is False
    bad = copy.deepcopy(honest)
    bad["box"][0][0] = "-1/2"                 # a smaller box: other networks read on the cube too
    assert verify(bad)[0] is False
    bad = copy.deepcopy(honest)
    bad["b"]["layers"][0]["bias"][0] = 1      # a changed user weight
    assert verify(bad)[0] is False
    bad = copy.deepcopy(honest)
    bad["box"][0] = [2, 1]                    # lo > hi: malformed
    with pytest.raises(InputError, match="exceeds"):
        verify(bad)
    # an inner certificate of other networks (honest in itself: a = a on the cube)
    other = equivalent(A2, A2, method="general", domain=(-1, 1)).certificate
    assert other["type"] == "region_cover" and verify(_json(other))[0]
    assert verify({**honest, "inner": _json(other)})[0] is False
    # the inner certificate of the right networks but on a domain smaller than the cube
    c, s = [Q(0), Q(1, 2)], [Q(1), Q(3, 2)]
    a_u, b_u = compose_input_map(A2, c, s), compose_input_map(B2, c, s)
    small = _json(equivalent(a_u, b_u, domain=(0, 1)).certificate)
    assert small["type"] == "region_cover" and verify(small)[0]
    assert verify({**honest, "inner": small})[0] is False
    # a nested or unknown inner type is malformed; the inner's own check must hold
    with pytest.raises(InputError, match="inner"):
        verify({**honest, "inner": honest})
    broken = copy.deepcopy(honest)
    broken["inner"]["reduction"] = broken["inner"]["reduction"][:-1]
    assert verify(broken)[0] is False


def test_the_builder_and_the_decider_agree():
    c, s = [Q(0), Q(1, 2)], [Q(1), Q(3, 2)]
    a_u, b_u = compose_input_map(A2, c, s), compose_input_map(B2, c, s)
    inner = equivalent(a_u, b_u, domain=(-1, 1)).certificate
    cert = on_box_certificate(A2, B2, [(-1, 1), (-1, 2)], inner)
    assert verify(_json(cert))[0]


def test_a_counterexample_with_its_own_sides_checks_the_point_in_the_box():
    w = equivalent(A2, B2, domain=[(-1, 1), (-1, 3)])
    cert = _json(w.certificate)
    assert verify(cert)[0]
    out = copy.deepcopy(cert)
    out["domain"]["box"][1] = [-1, 2]             # x1 > 2 lies outside
    assert verify(out) == (False, "x lies outside the claimed box")
    with pytest.raises(InputError, match="2 intervals"):
        verify({**cert, "domain": {"box": [[-1, 1], [-1, 3], [0, 1]]}})


# -- agreement with the exact branch and bound -----------------------------------------------
@st.composite
def _pairs(draw):
    seed = draw(st.integers(0, 10 ** 6))
    rng = random.Random(seed)
    a = _random_net(rng, [2, 3, 1], -2, 2)
    kind = draw(st.sampled_from(["copy", "weight", "bias"]))
    if kind == "copy":
        b = _permuted_scaled(a, rng)
    else:                                       # one parameter moved: equal on the box or not
        name = rng.choice(["W1[0,0]", "W1[1,1]", "W2[0,2]"] if kind == "weight" else
                          ["b1[0]", "b1[2]", "b2[0]"])
        value = dict(zip(a.parameter_names(), a.parameters()))[name]
        b = a.with_parameter(name, value + rng.choice([-1, 1]))
    box = []
    for _ in range(2):
        lo = draw(st.integers(-3, 2))
        box.append((lo, lo + draw(st.integers(0, 3))))         # width 0 too
    return a, b, box


@settings(max_examples=25, deadline=None)
@given(_pairs())
def test_equiv_on_a_box_agrees_with_branch_and_bound(pair):
    a, b, box = pair
    v = equivalent(a, b, domain=box)
    r = diff_bounds(a, b, box)
    assert r.complete and v.answer is (r.upper == 0)
    assert verify(_json(v.certificate))[0]
    if v.answer is False:
        x = v.details["point"]
        assert _inside(x, box) and a(x) != b(x)
