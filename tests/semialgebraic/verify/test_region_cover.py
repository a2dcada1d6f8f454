"""The ``region_cover`` checker: valid certificates pass, every mutation is rejected with a reason."""

import copy
import json
import random

import pytest
from hypothesis import given, settings, strategies as st

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.certificates import region_cover_certificate
from semialgebraic.cli import main
from semialgebraic.equivalence import equivalent
from semialgebraic.verify import verify
from semialgebraic.verify.region_cover import is_collapsed, neighbour_pattern, neuron_rows
from tests.cases.certificates import replaced
from tests.cases.general import passthrough, planted_pair, small_net
from tests.oracles.z3 import z3_equivalent

ABS = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
ABS_B = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])
# a: three kinks, then always-active second-layer neurons that pass them through (+1, -1 biases);
# b: the same three kinks in one hidden layer.  Equal, but the difference does not collapse.
KINKS = [[1, 0], [0, 1], [1, -1]]
ALWAYS_A = Network.from_rows([KINKS, [[1, 0, 0], [0, 1, 1]], [[1, 1]]], [[0, 0, 0], [1, 1], [-2]])
ALWAYS_B = Network.from_rows([KINKS, [[1, 1, 1]]], [[0, 0, 0], [0]])
# a non-collapsing deep pair: a = relu(x) - relu(x-1) + relu(y) through a second layer whose first
# neuron relu(h1 - h2 + 2) is always active (>= 1) but interval bounds cannot show it on R^d
# (nor on [-3, 4]^2), so no layer contracts; b computes the same in one hidden layer.
NC_A = Network.from_rows([KINKS_NC := [[1, 0], [1, 0], [0, 1]], [[1, -1, 0], [0, 0, 1]], [[1, 1]]],
                         [[0, -1, 0], [2, 0], [-2]])
NC_B = Network.from_rows([KINKS_NC, [[1, -1, 1]]], [[0, -1, 0], [0]])
DEEP_A = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, -1, 1], [-1, 1, 2]], [[1, 2]]],
                           [[0, -1, 1], [1, 0], [0]])

DEEP_N = DEEP_A.with_parameter("W3[0,1]", -2)     # output unbounded below on R^2


def _swap(net):
    """Permute the two second-layer neurons and rescale them by 2 and 1/3."""
    (W1, b1), (W2, b2), (W3, b3) = (net.layer(l) for l in range(3))
    rows = W2.to_rows()
    W2n = [[Q(1, 3) * v for v in rows[1]], [2 * v for v in rows[0]]]
    b2n = [Q(1, 3) * b2[1], 2 * b2[0]]
    W3n = [[W3[0, 1] * 3, W3[0, 0] / 2]]
    return Network([W1, W2n, W3n], [b1, b2n, b3])


@pytest.fixture(scope="module")
def certs():
    out = {}
    for name, (a, b, dom) in {"abs": (ABS, ABS_B, None), "deep": (NC_A, NC_B, None),
                              "box": (NC_A, NC_B, (-3, 4)),
                              "orthant": (NC_A, NC_B, "orthant"),
                              "contract": (ALWAYS_A, ALWAYS_B, None),
                              "contract_box": (passthrough(DEEP_N, (-1, 2)), DEEP_N, (-1, 2)),
                              "collapse": (DEEP_A, _swap(DEEP_A), None)}.items():
        v = equivalent(a, b, method="general", domain=dom)
        assert v.answer is True
        out[name] = json.loads(json.dumps(v.certificate))
    return out


@pytest.mark.parametrize("name", ["abs", "deep", "box", "orthant", "collapse", "contract",
                                  "contract_box"])
def test_valid_certificates_pass(certs, name):
    ok, why = verify(certs[name])
    assert ok, why
    assert certs[name]["type"] == "region_cover"


def test_certificate_content(certs):
    c = certs["abs"]                      # |x| against a permuted, rescaled copy: collapses
    assert [st["step"] for st in c["reduction"]].count("merge") == 2
    assert c["regions"] == []                      # collapsed: no region walk
    c = certs["collapse"]
    assert c["regions"] == [] and len(c["reduction"]) >= 4
    c = certs["deep"]
    assert len(c["regions"]) == 6 and c["contract"] == []
    for r in c["regions"]:
        assert len(r["facets"]) >= 1 and all(nb is not None for nb in r["neighbours"])


def test_reduction_steps_are_checked(certs):
    for mutate, word in [(lambda st: st.__setitem__("factor", "-1"), "positive"),
                         (lambda st: st.__setitem__("factor", "7/5"), "is not factor"),
                         (lambda st: st.__setitem__("drop", st["keep"]), None)]:
        c = copy.deepcopy(certs["abs"])
        st = next(x for x in c["reduction"] if x["step"] == "merge")
        mutate(st)
        try:
            ok, why = verify(c)
        except InputError:
            continue
        assert not ok and (word is None or word in why)
    c = copy.deepcopy(certs["abs"])
    c["reduction"] = [st for st in c["reduction"] if st["step"] != "merge"]
    ok, why = verify(c)
    assert not ok and "non-zero outgoing column" in why
    c = copy.deepcopy(certs["deep"])
    c["reduction"].append({"step": "dead", "layer": 0, "neuron": 0})
    ok, why = verify(c)
    assert not ok and "not provably dead" in why
    c = copy.deepcopy(certs["box"])              # a dead step proved by the box bounds
    assert verify(c)[0]


def _first_with_facet(cert):
    for i, r in enumerate(cert["regions"]):
        if any(nb is not None for nb in r["neighbours"]):
            return i
    raise AssertionError


def _wrong_neighbour(c):
    r = c["regions"][_first_with_facet(c)]
    i = next(i for i, nb in enumerate(r["neighbours"]) if nb is not None)
    r["neighbours"][i] = (r["neighbours"][i] + 1) % len(c["regions"])
    if len(c["regions"]) == 1:
        c["regions"].clear()


MUTATIONS = {
    "flip a pattern entry": lambda c: c["regions"][0]["pattern"].__setitem__(0, -c["regions"][0]["pattern"][0]),
    "move the point to another region": lambda c: c["regions"][0].__setitem__("point", c["regions"][1]["point"]),
    "drop the last region": lambda c: c["regions"].pop(),
    "drop a facet": lambda c: (c["regions"][_first_with_facet(c)]["facets"].pop(),
                               c["regions"][_first_with_facet(c)]["neighbours"].pop()),
    "wrong neighbour": lambda c: _wrong_neighbour(c),
    "change an inequality": lambda c: c["regions"][0]["inequalities"][0].__setitem__(0, "7/3"),
    "change a network weight": lambda c: c["b"]["layers"][-1]["weight"][0].__setitem__(0, "5/7"),
    "change a bias of a": lambda c: c["a"]["layers"][0]["bias"].__setitem__(0, "1/1000"),
    "duplicate a region": lambda c: c["regions"].append(copy.deepcopy(c["regions"][0])),
    "empty region list": lambda c: c["regions"].clear(),
}


@pytest.mark.parametrize("name", ["deep", "box", "orthant"])
@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
def test_mutations_are_rejected(certs, name, mutation):
    c = copy.deepcopy(certs[name])
    MUTATIONS[mutation](c)
    try:
        ok, why = verify(c)
    except InputError as exc:   # malformed: also a rejection, with the reason
        assert str(exc)
        return
    assert not ok and why


def test_redundancy_multipliers_are_checked(certs):
    c = copy.deepcopy(certs["deep"])
    for r in c["regions"]:
        for k, (l0, ls) in r["redundant"].items():
            r["redundant"][k] = [str(Q(l0) + 1) if not isinstance(l0, str) else l0 + "+1", ls]
            break
        else:
            continue
        break
    else:
        pytest.skip("no redundant inequality")
    with pytest.raises(Exception):
        ok, _ = verify(c)
        assert ok is False
        raise ValueError


def test_missing_redundancy_is_rejected(certs):
    c = copy.deepcopy(certs["deep"])
    reg = next(r for r in c["regions"] if r["redundant"])
    k = next(iter(reg["redundant"]))
    del reg["redundant"][k]
    ok, why = verify(c)
    assert not ok and "neither a facet nor certified redundant" in why


def test_negative_multiplier_rejected(certs):
    c = copy.deepcopy(certs["deep"])
    reg = next(r for r in c["regions"] if any(ls for _, ls in r["redundant"].values()))
    k, (l0, ls) = next((k, v) for k, v in reg["redundant"].items() if v[1])
    ls = list(ls)
    ls[0] = "-1"
    reg["redundant"][k] = [l0, ls]
    ok, why = verify(c)
    assert not ok and "redundancy multipliers" in why


def test_inequivalent_networks_cannot_be_covered(certs):
    c = copy.deepcopy(certs["deep"])
    c["b"]["layers"][1]["bias"] = [1]
    ok, why = verify(c)
    assert not ok and why
    c = copy.deepcopy(certs["deep"])
    c["a"]["layers"][2]["bias"] = [-1]          # a changes by a constant: same regions
    ok, why = verify(c)
    assert not ok and "affine maps differ" in why


def test_domain_facet_with_neighbour_rejected(certs):
    c = copy.deepcopy(certs["box"])
    n = len(c["regions"][0]["pattern"])
    for r in c["regions"]:
        for i, f in enumerate(r["facets"]):
            if f >= n:
                r["neighbours"][i] = 0
                ok, why = verify(c)
                assert not ok and "domain facet" in why
                return
    pytest.fail("no domain facet in a box certificate")


def test_point_domain():
    c = region_cover_certificate(ABS, ABS_B, domain={"box": [1, 1]})
    assert verify(c)[0]
    c["b"] = ABS_B.with_parameter("b2[0]", 1).to_dict()
    assert not verify(c)[0]


def test_malformed():
    with pytest.raises(InputError):
        verify({**header("region_cover"), "claim": CLAIMS["region_cover"][0], "a": ABS.to_dict()})
    with pytest.raises(InputError):
        verify({**region_cover_certificate(ABS, ABS), "regions": [{"pattern": [2, 0], "point": [1]}]})


def test_difference_network():
    from algebra.kernel import difference_network
    D = difference_network(ALWAYS_A, ALWAYS_B)        # depths 3 and 2: b is padded
    for x in ([1, 2], [-3, 1], ["1/2", "-7/3"]):
        assert D([Q(v) for v in x]) == tuple(u - v for u, v in zip(ALWAYS_A([Q(t) for t in x]), ALWAYS_B([Q(t) for t in x])))


def test_neighbour_pattern_flips_proportional_neurons():
    # two copies of the same network: crossing x = 0 flips the neuron in both
    rows = neuron_rows(ABS, (1, -1)) + neuron_rows(ABS, (1, -1))
    g = (Q(1), Q(0))
    assert neighbour_pattern((ABS, ABS), (1, -1, 1, -1), g, rows) == (-1, 1, -1, 1)


def test_neighbour_pattern_deeper_zero_neuron():
    # layer-2 neuron reads only neuron 0 with zero bias: identically zero where neuron 0 is off
    net = Network.from_rows([[[1], [-1]], [[1, 0]], [[1]]], [[0, 0], [0], [0]])
    rows = neuron_rows(net, (-1, 1, 0))
    assert rows[2] == (Q(0), Q(0))
    g = tuple(-v for v in rows[0])            # neuron 0 is off: oriented row -x > 0
    assert neighbour_pattern((net,), (-1, 1, 0), g, rows) == (1, -1, 1)


# -- contractions (always-active / dead layers composed into the next layer) --------------------
def test_contraction_certificates_collapse(certs):
    c = certs["contract"]                 # ALWAYS_A's second layer: relu(h + 1) with h >= 0
    assert c["contract"] == [{"net": "a", "layer": 1}] and c["regions"] == []
    c = certs["contract_box"]             # a followed by relu(y + c) - c, always active on the box
    assert c["contract"] == [{"net": "a", "layer": 2}] and c["regions"] == []


CONTRACT_MUTATIONS = {
    "drop the contraction": lambda c: c["contract"].clear(),
    "contract the other network": lambda c: c["contract"][0].__setitem__("net", "b"),
    "contract a non-affine layer": lambda c: c["contract"][0].__setitem__("layer", 0),
    "contract twice": lambda c: c["contract"].append(dict(c["contract"][0])),
    "layer out of range": lambda c: c["contract"][0].__setitem__("layer", 7),
    "unknown network": lambda c: c["contract"][0].__setitem__("net", "c"),
    "not a list": lambda c: c.__setitem__("contract", {"net": "a", "layer": 1}),
    "bias makes the layer switch": lambda c: c["a"]["layers"][1].__setitem__(
        "bias", ["-1/1000"] * len(c["a"]["layers"][1]["bias"])),
}


@pytest.mark.parametrize("name", ["contract", "contract_box"])
@pytest.mark.parametrize("mutation", sorted(CONTRACT_MUTATIONS))
def test_contraction_mutations_are_rejected(certs, name, mutation):
    c = copy.deepcopy(certs[name])
    CONTRACT_MUTATIONS[mutation](c)
    try:
        ok, why = verify(c)
    except InputError as exc:
        assert str(exc)
        return
    assert not ok and why


def test_contraction_without_domain_bounds_is_rejected(certs):
    c = copy.deepcopy(certs["contract_box"])    # always active on [-1, 2]^2 only
    c["domain"] = None
    ok, why = verify(c)
    assert not ok and "neither provably always active nor provably dead" in why
    c = copy.deepcopy(certs["contract_box"])
    c["domain"] = {"box": [-50, 50]}
    ok, why = verify(c)
    assert not ok and why


# -- collapsed differences: no regions, the reduced a - b is the constant map x -> b_L ----------
@pytest.mark.parametrize("name", ["abs", "collapse", "contract", "contract_box"])
def test_collapsed_certificate_mutations_are_rejected(certs, name):
    c = certs[name]
    assert c["regions"] == [] and verify(c)[0]
    m = copy.deepcopy(c)                           # a - b becomes a non-zero constant
    m["b"]["layers"][-1]["bias"][0] = str(Q(str(m["b"]["layers"][-1]["bias"][0])) + Q(1, 10**9))
    ok, why = verify(m)
    assert not ok and "non-zero constant" in why
    if c["reduction"]:                             # a live neuron is left: regions are needed
        m = copy.deepcopy(c)
        m["reduction"].pop()
        ok, why = verify(m)
        assert not ok and "no regions" in why
    m = copy.deepcopy(c)                           # a weight changed: a step no longer checks
    m["a"]["layers"][0]["weight"][0][0] = "7/3"
    assert not verify(m)[0]


def test_collapsed_needs_every_hidden_neuron_zero():
    from semialgebraic.verify.region_cover import is_collapsed
    assert is_collapsed(Network.from_rows([[[0], [0]], [[5, 7]]], [[0, 0], [3]]))
    assert not is_collapsed(Network.from_rows([[[0], [0]], [[5, 7]]], [[0, 1], [3]]))   # relu(1) = 1
    assert not is_collapsed(Network.from_rows([[[0], [1]], [[0, 0]]], [[0, 0], [0]]))
    # a pair equal except for a constant: reduced to a constant, refuted with a point
    a = ABS
    b = ABS.with_parameter("b2[0]", Q(1, 10**12))
    v = equivalent(a, b, method="general")
    assert v.answer is False and verify(v.certificate)[0]


def _cover_with_facets():
    a = Network.from_rows([[[1], [-1]], [[1, -1]]], [[0, 0], [0]])          # x
    b = Network.from_rows([[[1], [-1]], [[1, -1]]], [[1, -1], [-1]])        # x, other kinks
    cert = equivalent(a, b, method="general").certificate
    assert cert["type"] == "region_cover" and verify(cert)[0] is True
    r = next(i for i, reg in enumerate(cert["regions"]) if reg["facets"])
    return cert, r


def test_region_cover_facet_of_wrong_type_cli_exit_2(tmp_path, capsys):
    cert, r = _cover_with_facets()
    p = tmp_path / "c.json"
    p.write_text(json.dumps(replaced(cert, ("regions", r, "facets", 0), {})))
    assert main(["verify", str(p)]) == 2
    assert "malformed" in capsys.readouterr().err


def test_region_cover_facet_of_wrong_type_is_input_error():
    cert, r = _cover_with_facets()
    with pytest.raises(InputError):
        verify(replaced(cert, ("regions", r, "facets", 0), {}))


# -- fully contracted pairs: the reduced difference is an affine map, not a constant ----------
# ``region_cover`` certificates with ``"regions": []`` (collapsed difference).
#
# Regression: when the contractions remove every hidden layer of a and b, the reduced difference
# D' has no hidden layer and is the affine map x ↦ W x + b_L, not the constant b_L.  The checker
# (``is_collapsed``) and the decider (``live_neurons == 0``) looked at the output bias only, so
# ``relu(x + 10)`` and ``relu(2x + 10)`` on [0, 1] (x + 10 versus 2x + 10) were certified equal,
# and ``equivalent(..., refutation_samples=0)`` answered True.
def _cert(a, b, domain, contract, reduction=()):
    return json.loads(json.dumps(region_cover_certificate(a, b, domain=domain, contract=contract,
                                                          reduction=list(reduction))))


A = Network.from_rows([[[1]], [[1]]], [[10], [0]])          # x + 10 on [0, 1]
B = Network.from_rows([[[2]], [[1]]], [[10], [0]])          # 2x + 10 on [0, 1]
C = Network.from_rows([[[1]], [[2]]], [[10], [-10]])        # 2(x + 10) - 10 = 2x + 10


def test_fully_contracted_pair_with_equal_bias_is_rejected():
    assert A([1]) != B([1])
    cert = _cert(A, B, {"box": [0, 1]}, [{"net": "a", "layer": 0}, {"net": "b", "layer": 0}])
    ok, why = verify(cert)
    assert ok is False


def test_fully_contracted_equal_pair_is_accepted():
    cert = _cert(B, C, {"box": [0, 1]}, [{"net": "a", "layer": 0}, {"net": "b", "layer": 0}])
    assert verify(cert)[0] is True


def test_is_collapsed_without_hidden_layer_needs_zero_weights():
    assert is_collapsed(Network.from_rows([[[2, 0]]], [[0]])) is False
    assert is_collapsed(Network.from_rows([[[0, 0]]], [[5]])) is True
    assert is_collapsed(Network.from_rows([[[0]], [[3]]], [[0], [1]])) is True     # relu(0): constant


@pytest.mark.parametrize("samples", [0, 32])
def test_equivalent_does_not_answer_true_on_different_affine_maps(samples):
    v = equivalent(A, B, method="general", domain=(0, 1), refutation_samples=samples)
    assert v.answer is False
    x = [Q(v) for v in v.certificate["point"]] if "point" in v.certificate else None
    assert verify(v.certificate)[0] is True
    if x is not None:
        assert A(x) != B(x)
    assert equivalent(B, C, method="general", domain=(0, 1), refutation_samples=samples).answer is True


def _affine_layer_net(rng, d, w, m):
    """A two-hidden-layer net whose hidden neurons are all always active on [0, 1] (large
    positive biases, non-negative first-layer weights): it contracts to an affine map."""
    W1 = [[Q(rng.randint(0, 3)) for _ in range(d)] for _ in range(w)]
    b1 = [Q(rng.randint(1, 3)) for _ in range(w)]
    W2 = [[Q(rng.randint(0, 2)) for _ in range(w)] for _ in range(w)]
    b2 = [Q(rng.randint(1, 3)) for _ in range(w)]
    W3 = [[Q(rng.randint(-2, 2)) for _ in range(w)] for _ in range(m)]
    b3 = [Q(rng.randint(-2, 2)) for _ in range(m)]
    return Network.from_rows([W1, W2, W3], [b1, b2, b3])


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_contracted_pairs_verdict_matches_affine_maps(seed):
    """Both nets contract to affine maps on [0, 1]^d; equivalent (with and without random
    refutation) answers exactly whether the affine maps agree, and the certificate checks."""
    rng = random.Random(seed)
    d, w, m = rng.randint(1, 2), rng.randint(1, 3), rng.randint(1, 2)
    a = _affine_layer_net(rng, d, w, m)
    b = _affine_layer_net(rng, d, w, m)
    if rng.random() < 0.7:             # plant equal constant terms: only the linear parts may differ
        _, ca = a.affine_map(tuple([1] * a.n_hidden))
        _, cb = b.affine_map(tuple([1] * b.n_hidden))
        b = Network([*b.weights], [*b.biases[:-1], [v + u - t for v, u, t in zip(b.biases[-1], ca, cb)]])
    Ja, ca = a.affine_map(tuple([1] * a.n_hidden))
    Jb, cb = b.affine_map(tuple([1] * b.n_hidden))
    truth = Ja == Jb and tuple(ca) == tuple(cb)
    for samples in (0, 32):
        v = equivalent(a, b, method="general", domain=(0, 1), refutation_samples=samples)
        assert v.answer is truth
        assert verify(v.certificate)[0] is True
    if not truth and tuple(ca) == tuple(cb):
        # the forged collapsed certificate (biases agree, linear parts differ) is rejected
        cert = _cert(a, b, {"box": [0, 1]}, [{"net": "a", "layer": 1}, {"net": "a", "layer": 0},
                                              {"net": "b", "layer": 1}, {"net": "b", "layer": 0}])
        assert verify(cert)[0] is False


def test_affine_networks_without_contraction():
    """Two networks without hidden layers (a - b = (W_a - W_b) x + (b_a - b_b)) and regions []."""
    a = Network.from_rows([[[2, 1]]], [[3]])
    b = Network.from_rows([[[3, 1]]], [[3]])
    for dom in (None, {"orthant": True}, {"box": [-1, 1]}):
        assert verify(_cert(a, b, dom, []))[0] is False
        assert verify(_cert(a, a, dom, []))[0] is True
        assert equivalent(a, b, method="general", domain=None if dom is None else
                          ("orthant" if "orthant" in dom else (-1, 1)), refutation_samples=0).answer is False


def _mutated(cert, rng):
    """The certificate with one weight or bias of a or b moved by 1, 1/7 or 1e-5."""
    c = json.loads(json.dumps(cert))
    layer = rng.choice(c[rng.choice(["a", "b"])]["layers"])
    delta = Q(1, rng.choice([1, 7, 10 ** 5]))
    if rng.random() < 0.5:
        W = layer["weight"]
        i, k = rng.randrange(len(W)), rng.randrange(len(W[0]))
        W[i][k] = str(Q(W[i][k]) + delta)
    else:
        i = rng.randrange(len(layer["bias"]))
        layer["bias"][i] = str(Q(layer["bias"][i]) + delta)
    return c


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_tampered_equal_certificates_are_accepted_only_for_equal_pairs(seed):
    """Honest 'equal' certificates of planted pairs (mostly collapsed, regions []) with one
    parameter tampered: the checker may accept only when the pair is still equal (z3)."""
    rng = random.Random(seed)
    a = small_net(rng)
    dom = rng.choice([None, "orthant", (Q(0), Q(1)), (Q(-1), Q(2))])
    b, _ = planted_pair(rng, a, dom)
    v = equivalent(a, b, method="general", domain=dom, timeout=30)
    if v.answer is not True:
        return
    for _ in range(4):
        c = _mutated(v.certificate, rng)
        try:
            ok = verify(c)[0]
        except Exception:                # malformed after tampering (e.g. a zero factor)
            continue
        if ok:
            assert z3_equivalent(network_from_dict(c["a"]), network_from_dict(c["b"]), dom) is True
