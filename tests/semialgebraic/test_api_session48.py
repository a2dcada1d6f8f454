"""The Python API as a notebook user calls it (session 48 API audit, /work/scratch/s48/api):
one domain parser for every function (F1, F2), InputError for a wrong argument (F3, F4), budgets
of ``identifiability`` and ``could_be_equivalent`` (F8, F9), the readers' roundings among
``identifiability``'s hypotheses (F10), a certificate asked for on another domain than its
result's (F11), misspelt keys of a network's JSON, exact numbers and their conversion (F6)."""

import json
import random
from pathlib import Path
import time
from fractions import Fraction

import numpy as np
import pytest

import algebra
import netfibers as nf
from algebra.exceptions import InexactInputError, InputError
from semialgebraic.exceptions import NotApplicableError
from semialgebraic.sets import api_domain

A = nf.Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])                     # |x|-like, 1 input
B = nf.Network.from_rows([[[1, 0], [-1, 1], [1, 1]], [[1, 1, -2]]], [[0, 1, "-1/2"], [0]])   # 2 inputs
B2 = nf.Network.from_rows([[[1, 1], [-1, 1], [1, 0]], [[-2, 1, 1]]], [["-1/2", 1, 0], [0]])  # B permuted


CUBE_SPELLINGS = [(-1, 1), [-1, 1], ("-1", "1"), {"box": [-1, 1]}, np.array([-1, 1]), "-1,1",
                  "-1:1,-1:1", [(-1, 1), (-1, 1)], {"box": [[-1, 1], [-1, 1]]},
                  {"lo": [-1, -1], "hi": [1, 1]}, nf.Polyhedron.box(2, -1, 1),
                  nf.Domain.cube(2, -1, 1)]


@pytest.mark.parametrize("spelling", CUBE_SPELLINGS, ids=lambda s: type(s).__name__)
def test_every_spelling_of_the_cube_is_one_domain(spelling):
    assert api_domain(spelling, 2) == nf.Domain.cube(2, -1, 1)


@pytest.mark.parametrize("spelling", [None, "R^d", "R^2", "whole", nf.Polyhedron.whole(2),
                                      nf.Domain.whole(2)], ids=lambda s: type(s).__name__)
def test_spellings_of_r_d(spelling):
    assert api_domain(spelling, 2) == nf.Domain.whole(2)


def test_polyhedron_rows_become_sides_and_half_spaces():
    P = nf.Polyhedron([[1, 0], [0, -1], [1, 1], [-2, 0]], [3, 0, 4, 2], 2)   # x<=3, y>=0, x+y<=4, x>=-1
    D = api_domain(P, 2)
    assert (D.lo, D.hi) == ((-1, 0), (3, None))
    assert D.halfspaces == (((1, 1), 4),)
    with pytest.raises(InputError, match="empty"):
        api_domain(nf.Polyhedron([[1, 0], [-1, 0]], [0, -1], 2), 2)      # x <= 0, x >= 1


@pytest.mark.parametrize("bad", ["ball", "orthants", (1, 0), (0.5, 1), {"box": [-1, 1], "x": 1},
                                 [(-1, 1)], nf.Polyhedron.box(3, -1, 1), object()],
                         ids=lambda s: type(s).__name__)      # (no address in an id: xdist)
def test_unknown_or_wrong_domains_are_input_errors(bad):
    with pytest.raises((InputError, InexactInputError)):
        api_domain(bad, 2)


@pytest.mark.parametrize("spelling", [(-1, 1), "orthant", {"box": [-1, 1]}, "-1,1",
                                      nf.Polyhedron.box(1, -1, 1), nf.Domain.cube(1, -1, 1), None])
def test_regions_take_every_spelling(spelling):
    # (F1: a bare AttributeError for anything but a Polyhedron)
    expected = {None: 3, "orthant": 2}.get(spelling if isinstance(spelling, (str, type(None))) else "", 2)
    assert nf.number_of_regions(A, domain=spelling) == expected
    walk = nf.regions(A, domain=spelling)
    assert len(list(walk)) == expected and walk.complete


def test_regions_on_a_box_with_its_own_sides():
    # the lines x = 0, x = y, x + y = 1/2 inside [0, 1] x [-2, 2]
    by_poly = nf.number_of_regions(B, domain=nf.Polyhedron([[1, 0], [-1, 0], [0, 1], [0, -1]],
                                                           [1, 0, 2, 2], 2))
    assert nf.number_of_regions(B, domain=[(0, 1), (-2, 2)]) == by_poly
    assert nf.number_of_regions(B, domain="0:1,-2:2") == by_poly


def test_the_deciders_take_a_polyhedron_and_per_coordinate_boxes():
    P = nf.Polyhedron.box(2, -1, 1)
    assert nf.equivalent(B, B2, domain=P).answer is True
    assert nf.could_be_equivalent(B, B2, domain=P) is True
    assert nf.max_deviation(B, B2, P).value == 0
    assert nf.diff_bounds(B, B2, P).upper == 0
    C = B.with_parameter("b1[2]", "-1/3")
    assert nf.equivalent(B, C, domain=[(0, 1), (-1, 1)]).answer is False
    assert nf.could_be_equivalent(B, C, domain=[(0, 1), (-1, 1)]) is False
    dev = nf.max_deviation(B, C, [(0, 1), (-1, 1)])
    assert dev.complete and dev.value == nf.diff_bounds(B, C, [(0, 1), (-1, 1)]).upper
    assert dev.value == nf.Q(1, 3)        # -2 (relu(s - 1/2) - relu(s - 1/3)), s = x + y >= 1/2


def test_functional_dimension_on_a_box_with_its_own_sides_and_its_certificate():
    fd = nf.functional_dimension(B, domain=[(0, 1), (-2, 3)])
    ref = nf.functional_dimension(B, domain=nf.Domain.from_box([(0, 1), (-2, 3)]))
    assert (fd.lower, fd.upper) == (ref.lower, ref.upper)
    cert = nf.functional_dimension_certificate(B, fd, domain=[(0, 1), (-2, 3)])
    ok, why = nf.verify(json.loads(json.dumps(cert)))
    assert ok, why
    # F11: a result on one domain, its certificate asked for on another: the user's error
    with pytest.raises(InputError, match="pass the domain"):
        nf.functional_dimension_certificate(B, fd, domain=(-1, 1))
    whole = nf.functional_dimension(B)
    with pytest.raises(InputError, match="on R\\^2"):
        nf.functional_dimension_certificate(B, whole, domain="orthant")


def test_fiber_takes_spellings_of_r_d_and_the_orthant_only():
    assert nf.fiber(A, domain="R^d").dimension.value == nf.fiber(A).dimension.value
    assert nf.fiber(A, domain=nf.Polyhedron.orthant(1)).domain == "orthant"
    with pytest.raises(NotApplicableError, match="dim"):
        nf.fiber(A, domain=(-1, 1))


@pytest.mark.parametrize("call", [
    lambda: nf.fiber([1, 2]), lambda: nf.functional_dimension(None),
    lambda: nf.number_of_regions({}), lambda: nf.regions("net.json"),
    lambda: nf.canonical_form(None), lambda: nf.structure(3),
    lambda: nf.conservation_laws("net.json", []), lambda: nf.equivalent_shallow(A, None),
    lambda: nf.equivalent_bottleneck(None, A), lambda: nf.diff_bounds(A, "b.json", (-1, 1)),
    lambda: nf.max_deviation([], A, (-1, 1)), lambda: nf.could_be_equivalent(A, 1),
    lambda: nf.identifiability("net.json")])
def test_a_wrong_argument_is_an_input_error_naming_it(call):
    with pytest.raises(InputError, match="takes a Network, got"):
        call()


def test_points_and_vectors_must_be_sequences():
    # F4: net("12") was evaluated at (1, 2), net(1) and a scalar bias raised bare TypeErrors
    C = nf.Network.from_rows([[[1, 1]], [[1]]], [[0], [0]])
    for bad in ("12", 1, b"12"):
        with pytest.raises(InputError, match="a sequence of numbers"):
            C(bad)
    with pytest.raises(InputError, match="a sequence of numbers"):
        nf.Network.from_rows([[[1]], [[1]]], [0, [0]])
    assert C(["1/2", 3]) == (nf.Q(7, 2),)


def test_tensors_of_floats_are_refused_with_a_hint():
    torch = pytest.importorskip("torch")
    with pytest.raises(InexactInputError, match="from_float"):
        nf.Network.from_rows([torch.tensor([[1.0]]), torch.tensor([[2.0]])], [[0], [0]])
    with pytest.raises(InexactInputError, match="from_float"):
        nf.to_q(np.array(0.5))                       # a 0-d numpy array of a float
    net = nf.Network.from_rows([torch.tensor([[1]]), torch.tensor([[2]])], [[0], [0]])   # integers: exact
    assert net([3]) == (6,)


def test_network_json_typos_are_refused(tmp_path):
    body = {"format": "netfibers.network", "version": 1,
            "layers": [{"weight": [[1]], "bias": [1]}, {"weight": [[1]]}]}
    ok = tmp_path / "ok.json"
    ok.write_text(json.dumps({**body, "comment": "mine", "name": "n"}))
    assert nf.load(ok)([0]) == (1,)                 # the output layer's missing bias is 0
    for bad, what in ((dict(body, activaton="tanh"), "did you mean 'activation'"),
                      ({**body, "layers": [{"weight": [[1]], "biases": [5]}, {"weight": [[1]]}]},
                       "unknown key.*'biases'")):
        p = tmp_path / "bad.json"
        p.write_text(json.dumps(bad))
        with pytest.raises(InputError, match=what):
            nf.load(p)


def _wide(n=1024, d=32, seed=1):
    rng = random.Random(seed)
    W1 = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(n)]
    b1 = [rng.randint(-9, 9) for _ in range(n)]
    W2 = [[rng.randint(-9, 9) for _ in range(n)] for _ in range(4)]
    return W1, b1, W2


def test_identifiability_holds_its_timeout():
    # F8: identifiability(net, timeout=10) of a 32-1024-4 net ran > 120 s in one exact LP
    W1, b1, W2 = _wide()
    net = nf.Network.from_rows([W1, W2], [b1, [0] * 4])
    start = time.monotonic()
    v = nf.identifiability(net, timeout=1)
    took = time.monotonic() - start
    assert v.answer is None and "timeout" in v.reason
    assert took < 60                    # (a generous bound on a loaded machine: it was > 120 s)


def test_could_be_equivalent_holds_its_timeout():
    # F9: ~50 s on a permuted copy of a 32-1024-4 net, with no budget
    W1, b1, W2 = _wide(512)
    a = nf.Network.from_rows([W1, W2], [b1, [0] * 4])
    b = nf.Network.from_rows([W1[::-1], [r[::-1] for r in W2]], [b1[::-1], [0] * 4])
    start = time.monotonic()
    assert nf.could_be_equivalent(a, b, timeout=1) is True
    assert time.monotonic() - start < 30
    assert nf.could_be_equivalent(a, b.with_parameter("b2[0]", 1), timeout=30) is False


def test_identifiability_says_the_readers_rounding():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    bn = torch.nn.BatchNorm1d(3)
    bn.running_mean.copy_(torch.tensor([0.1, -0.2, 0.3]))
    bn.running_var.copy_(torch.tensor([1.3, 0.7, 2.1]))
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), bn, torch.nn.ReLU(), torch.nn.Linear(3, 1)).eval()
    net = nf.Network.from_torch(model)
    assert net.provenance
    v = nf.identifiability(net)
    assert any("read with a rounding" in h.name for h in v.hypotheses), v.hypotheses


def test_exact_numbers_and_their_conversion():
    r = nf.max_deviation(A, A.with_parameter("b2[0]", "1/1000"), (-1, 1))
    assert r.value == nf.Q(1, 1000) and nf.to_fraction(r.value) == Fraction(1, 1000)
    assert str(r.value) == "1/1000"


def test_region_walk_repr_says_its_state():
    w = nf.regions(A)
    assert "not finished" in repr(w)
    list(w)
    assert repr(w) == "<RegionWalk of a 1-2-1 network: 3 region(s) walked, complete>"


def test_conservation_laws_data_points_must_have_their_pattern():
    # (a point outside its pattern, or given as a string, was read: a count about no data)
    assert nf.conservation_laws(A, {(1, 1): [["1/2"]]}).samples[0].points == ((nf.Q(1, 2),),)
    with pytest.raises(InputError, match="does not have the pattern"):
        nf.conservation_laws(A, {(1, 1): [["-5"]]})
    with pytest.raises(InputError, match="a sequence of numbers"):
        nf.conservation_laws(A, {(1, 1): ["1/2"]})


def test_load_of_a_native_json_file_takes_no_options():
    # (load("net.json", activation="gelu") ignored the option; a weight file refuses unknown ones)
    with pytest.raises(InputError, match="unexpected option"):
        nf.load(Path(algebra.__file__).parent / "examples" / "t1_masked.json", activation="gelu")


def test_a_zero_row_of_a_domain_bounds_nothing():
    # (0·x <= 0 was read by the walk's strict rows as an empty interior: 0 regions; re-run N1)
    P = nf.Polyhedron([[0, 0], [1, 0]], [0, 1], 2)
    assert P.number_of_inequalities == 1
    assert nf.number_of_regions(B, domain=P) == nf.number_of_regions(B, domain=nf.Polyhedron([[1, 0]], [1], 2))
    assert nf.number_of_regions(A, domain=nf.Polyhedron([[0]], [0], 1)) == 3
    assert nf.number_of_regions(A, domain=nf.Polyhedron([[0]], [-1], 1)) == 0      # empty
    D = nf.Domain([-1, -1], [1, 1], [([0, 0], 0)])
    assert D == nf.Domain.cube(2, -1, 1) and D.box == [(-1, 1), (-1, 1)]


def test_functional_dimension_refuses_half_spaces_naming_the_cut_sandwich():
    with pytest.raises(InputError, match="functional_dimension_on_cut"):
        nf.functional_dimension(B, domain={"box": [[-1, 1], [-1, 1]],
                                           "halfspaces": [{"a": [1, 1], "b": 5}]})


def test_the_certificate_defaults_to_its_results_domain():
    fd = nf.functional_dimension(B, domain=[(0, 1), (-2, 3)])
    cert = nf.functional_dimension_certificate(B, fd)
    assert nf.verify(cert)[0] and cert["domain"]["input_map"]["hi"] == [1, 3]
    fd = nf.functional_dimension(B, domain=(0, 1))
    assert nf.functional_dimension_certificate(B, fd)["domain"] == {"box": [0, 1]}


@pytest.mark.parametrize("point", [np.array(3), {3: 1}, {3}], ids=["0-d", "dict", "set"])
def test_a_point_that_is_not_a_sequence(point):
    with pytest.raises(InputError, match="a sequence of numbers"):
        nf.Network.from_rows([[[1]], [[1]]], [[0], [0]])(point)


def test_arrays_and_booleans_are_not_numbers():
    from algebra.exceptions import ParseError
    for x in (np.array([3]), np.bool_(True)):
        with pytest.raises(ParseError):
            nf.to_q(x)
    assert nf.to_q(np.array(3)) == 3 and nf.to_q(np.int8(-3)) == -3


def test_a_comments_key_is_ignored_a_misspelt_format_is_not(tmp_path):
    p = tmp_path / "n.json"
    p.write_text(json.dumps({"comments": "mine", "layers": [{"weight": [[2]]}, {"weight": [[1]]}]}))
    assert nf.load(p)([1]) == (2,)
    p.write_text(json.dumps({"formats": "x", "layers": [{"weight": [[2]]}]}))
    with pytest.raises(InputError, match="did you mean 'format'"):
        nf.load(p)
