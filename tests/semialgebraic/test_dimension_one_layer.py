"""The functional dimension of a one-hidden-layer net by three-layer-fibers R38: N − n1 when every
neuron has a non-zero row and outgoing column and switches inside the domain on a hyperplane of
its own.  Cross-checked against the general exact method (Jacobian ranks over the regions) on
random small nets, the hypotheses' failures named, the certificate re-checked and refuted."""

import copy
import json
import random

import pytest

import semialgebraic.dimension.functional as fmod
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.dimension.certificate import box_certificate
from semialgebraic.dimension.one_layer import one_layer_hypotheses, one_layer_kernel, one_layer_value
from semialgebraic.verify import verify


def _net(d, n, m, seed, den=4):
    rng = random.Random(seed)
    W = [[Q(rng.randint(-6, 6), den) for _ in range(d)] for _ in range(n)]
    b = [Q(rng.randint(-6, 6), den) for _ in range(n)]
    V = [[Q(rng.randint(-6, 6), den) for _ in range(n)] for _ in range(m)]
    c = [Q(rng.randint(-6, 6), den) for _ in range(m)]
    return Network([W, V], [b, c])


DOMAINS = [None, "orthant", (Q(-1), Q(1)), (Q(0), Q(2))]


@pytest.mark.parametrize("seed", range(40))
def test_the_theorem_agrees_with_the_general_method(seed):
    """Random nets (d 1-3, 2-6 neurons, 1-2 outputs) on R^d, the orthant and two cubes: where the
    hypotheses hold, the general method's exact value is N − n1; where it is exact and differs,
    a hypothesis fails."""
    rng = random.Random(1000 + seed)
    net = _net(rng.randint(1, 3), rng.randint(2, 6), rng.randint(1, 2), seed)
    dom = DOMAINS[seed % len(DOMAINS)]
    general = functional_dimension(net, domain=dom, timeout=60)
    theorem = one_layer_value(net, dom)
    if theorem is not None:
        assert general.lower <= theorem.value <= general.upper
        if general.exact:
            assert general.value == theorem.value
    elif general.exact:
        assert one_layer_hypotheses(net, dom) != ""


def test_hypotheses_are_named_when_they_fail_and_the_kernel_counted():
    base = [[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]]
    assert one_layer_kernel(Network.from_rows(*base), None)[0] == 3          # three scalings
    zero_row = Network.from_rows([[[0, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[1, 0, -1], [0]])
    assert "zero row and bias 1" in one_layer_hypotheses(zero_row, None)     # constant: S4
    dead_row = Network.from_rows([[[0, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[-1, 0, -1], [0]])
    assert one_layer_kernel(dead_row, None) == (2 + 4, {"scalings": 2, "unseen": 0, "dead": 1})
    zero_col = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[0, 1, -1]]], [[0, 0, -1], [0]])
    assert one_layer_kernel(zero_col, None) == (2 + 3, {"scalings": 2, "unseen": 1, "dead": 0})
    opposite = Network.from_rows([[[1, 0], [-2, 0], [1, 1]], [[1, 1, -1]]], [[1, -2, -1], [0]])
    assert "proportional" in one_layer_hypotheses(opposite, None)       # one hyperplane, x0 = -1
    # on the orthant x0 + 1 is active everywhere (a linear block: not decided here)
    shifted = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[1, 0, -1], [0]])
    assert "neuron 0 is active on the whole domain" in one_layer_hypotheses(shifted, "orthant")
    assert one_layer_hypotheses(shifted, None) == ""
    assert "neuron 1 is active" in one_layer_hypotheses(shifted, [(Q(-2), Q(1)), (Q(1), Q(2))])
    # on x0 <= -1 neurons 0 and 2 are dead (max 0: their kinks only on the boundary)
    assert one_layer_kernel(shifted, [(Q(-2), Q(-1)), (Q(-1), Q(2))]) == \
        (1 + 4 + 4, {"scalings": 1, "unseen": 0, "dead": 2})
    two = Network.from_rows([[[1], [1]], [[1, 1]], [[1]]], [[0, 1], [0], [0]])
    assert "hidden layers" in one_layer_hypotheses(two, None)


@pytest.mark.parametrize("seed", range(30))
def test_dead_and_unseen_neurons_agree_with_the_general_method(seed):
    """Planted: neurons killed on the domain (their row made to keep one sign, a negative
    bias) and outgoing columns zeroed; the theorem's value where it decides equals the general
    method's exact value."""
    rng = random.Random(5000 + seed)
    d, n, m = rng.randint(1, 3), rng.randint(2, 6), rng.randint(1, 2)
    net = _net(d, n, m, 700 + seed)
    W = [list(r) for r in net.weights[0].to_rows()]
    b = list(net.biases[0])
    V = [list(r) for r in net.weights[1].to_rows()]
    dom = DOMAINS[seed % len(DOMAINS)]
    for i in rng.sample(range(n), rng.randint(1, n - 1)):
        if rng.random() < 0.5:                      # dead: |x| <= 2 on the cubes, >= 0 on the orthant
            W[i] = [-abs(v) for v in W[i]] if dom == "orthant" else ([Q(0)] * d if dom is None else W[i])
            b[i] = Q(-10)
        else:
            for o in range(m):
                V[o][i] = Q(0)
    net = Network([W, V], [b, list(net.biases[1])])
    general = functional_dimension(net, domain=dom, timeout=60)
    theorem = one_layer_value(net, dom)
    if theorem is not None:
        assert general.lower <= theorem.value <= general.upper
        if general.exact:
            assert general.value == theorem.value, (one_layer_kernel(net, dom), general.value)
    elif general.exact:
        assert one_layer_hypotheses(net, dom) != ""


def test_dim_uses_the_theorem_above_rank_only_with_a_valid_certificate(monkeypatch):
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1], [2, 0, 1]]], [[0, 0, -1], [0, 1]])
    want = functional_dimension(net, domain=(Q(-1), Q(1)))
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    fd = functional_dimension(net, domain=(Q(-1), Q(1)), timeout=5)
    assert fd.details["theorem"] == "R38" and fd.value == want.value == net.n_parameters - 3
    assert fd.fiber_dimension.value == 3
    cert = functional_dimension_certificate(net, fd, domain=(Q(-1), Q(1)))
    assert cert["type"] == "one_hidden_layer_dimension" and verify(cert)[0]
    box = Domain([Q(-1), Q(-1)], [Q(1), Q(3)])     # its own sides: read on the cube (R36)
    fd = functional_dimension(net, domain=box, timeout=5)
    assert fd.details["theorem"] == "R38"
    cert = box_certificate(net, [Q(-1), Q(-1)], [Q(1), Q(3)], fd)
    assert cert["domain"] == {"box": [[-1, 1], [-1, 3]]} and verify(cert)[0]


@pytest.fixture
def cert():
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    fd = one_layer_value(net, (Q(-1), Q(1)))
    return json.loads(json.dumps(functional_dimension_certificate(net, fd, domain=(Q(-1), Q(1)))))


@pytest.mark.parametrize("name,change", [
    ("value - 1", lambda c: c.update(value=c["value"] - 1)),
    ("value + 1", lambda c: c.update(value=c["value"] + 1)),
    ("a box where neuron 0 keeps its sign", lambda c: c.update(domain={"box": ["1/2", 1]})),
    ("a zero outgoing weight", lambda c: c["network"]["layers"][1]["weight"][0].__setitem__(0, 0)),
    ("neuron 0 dead", lambda c: c["network"]["layers"][0]["bias"].__setitem__(0, -5)),
    ("two rows on one hyperplane", lambda c: c["network"]["layers"][0]["weight"].__setitem__(1, [-2, 0])),
    ("a one-point box", lambda c: c.update(domain={"box": [0, 0]})),
])
def test_false_claims_are_rejected(cert, name, change):
    assert verify(cert)[0]
    bad = copy.deepcopy(cert)
    change(bad)
    assert verify(bad)[0] is False, name


def test_on_a_cut_and_near_a_non_generic_parameter_the_theorem_certifies_its_parts(monkeypatch):
    """Where the theorem decides the runs inside dim on a cut (R37) or the values near a
    non-generic θ, its certificates are parts of theirs: a sandwich with one_hidden_layer_dimension
    parts verifies (each part's box checked against the cut), and nearby values are certified
    (the first run of the campaign with the theorem raised KeyError on both)."""
    from semialgebraic.dimension.sandwich import functional_dimension_on_cut, sandwich_certificate
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    cut = functional_dimension_on_cut(net, [-1, -1], [1, 1], [([1, 0], Q(1, 2))])
    assert cut.inner.details["theorem"] == cut.outer.details["theorem"] == "R38"
    cert = json.loads(json.dumps(sandwich_certificate(net, cut)))
    assert cert["inner"]["type"] == "one_hidden_layer_dimension" and verify(cert)[0]
    assert cut.exact and cut.value == 10
    bad = copy.deepcopy(cert)                  # the inner box moved out of the half-space
    bad["inner"]["domain"]["box"][0] = [0, 1]
    assert verify(bad)[0] is False
    # a zero row with a zero bias seen by the output: non-generic; the values nearby by R38
    kink = Network.from_rows([[[1, 0], [0, 0]], [[1, 1]]], [[0, 0], [0]])
    fd = functional_dimension(kink, domain=(Q(-1), Q(1)))
    assert fd.non_generic and fd.nearby and all(e["certified"] for e in fd.nearby if not e["non_generic"])


def test_the_cli_says_the_theorem_decided(monkeypatch, capsys, tmp_path):
    from semialgebraic.cli import main
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    (tmp_path / "n.json").write_text(json.dumps(net.to_dict()))
    assert main(["dim", str(tmp_path / "n.json"), "--box", "-1,1"]) == 0
    out = capsys.readouterr().out
    assert "functional dimension 10 of 13 parameters" in out and "classified exactly" in out
