"""Session 51: two networks pruned at one hidden layer (each a constant) get an exact, certified
``max |a − b|`` on every domain: the ``constant`` claim of ``bab_recession`` certificates
(session 50 left the upper bound open: no certificate type had one for a layer of width 0)."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import pytest

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS
from algebra.kernel.domains import Domain
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.verify import verify


def _pruned(rng: random.Random, d: int, layer: int, depth: int, m: int) -> dict:
    """A random ReLU network (JSON) of *depth* layers whose hidden layer *layer* has width 0."""
    widths = [d] + [0 if l == layer else rng.randint(1, 3) for l in range(1, depth)] + [m]

    def q():
        return str(Fraction(rng.randint(-9, 9), rng.randint(1, 5)))
    layers = [{"weight": [[q() for _ in range(widths[l])] for _ in range(widths[l + 1])],
               "bias": [q() for _ in range(widths[l + 1])]} for l in range(depth)]
    return {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": d,
            "layers": layers}


def _constant(net: dict, layer: int) -> list[Fraction]:
    """The network's constant by Fractions: the layers after the pruned one on its biases."""
    L = net["layers"]
    h = [Fraction(v) for v in L[layer]["bias"]]
    if layer < len(L) - 1:
        h = [max(v, Fraction(0)) for v in h]
    for l in range(layer + 1, len(L)):
        pre = [sum((Fraction(w) * x for w, x in zip(row, h)), Fraction(0)) + Fraction(c)
               for row, c in zip(L[l]["weight"], L[l]["bias"])]
        h = pre if l == len(L) - 1 else [max(v, Fraction(0)) for v in pre]
    return h


DOMAINS = [None, "orthant", [(-1, 2), (0, 1)], Domain.from_json(
    {"lo": [None, -1], "hi": [3, None], "halfspaces": [{"a": [1, 1], "b": 5}]})]


@pytest.mark.parametrize("seed", range(12))
def test_pruned_pairs_are_exact_and_certified_against_fractions(seed):
    """The constant claim: the value is the Fraction oracle's max |c_a − c_b|, lower = upper,
    and the certificate verifies, on R^d, the orthant, a box and an open box ∩ a half-space."""
    rng = random.Random(seed)
    depth, m = rng.randint(3, 5), rng.randint(1, 3)
    layer = rng.randint(1, depth - 1)
    ja, jb = _pruned(rng, 2, layer, depth, m), _pruned(rng, 2, layer, depth, m)
    want = max(abs(u - v) for u, v in zip(_constant(ja, layer), _constant(jb, layer)))
    a, b = network_from_dict(ja), network_from_dict(jb)
    for dom in DOMAINS:
        r = diff_bounds(a, b, dom, epsilon=None)
        assert r.complete and Fraction(str(r.lower)) == want == Fraction(str(r.upper)), (seed, dom)
        ok, why = verify(r.certificate)
        assert ok, why
        assert r.certificate["constant"] == {"layer": layer}


def _cert():
    rng = random.Random(3)
    ja, jb = _pruned(rng, 2, 2, 3, 2), _pruned(rng, 2, 2, 3, 2)
    r = diff_bounds(network_from_dict(ja), network_from_dict(jb), [(-1, 1), (-1, 1)])
    assert r.lower > 0 and verify(r.certificate)[0]
    return json.loads(json.dumps(r.certificate)), r


def test_a_lower_upper_in_the_constant_claim_is_broken():
    cert, r = _cert()
    cert["upper"] = str(r.upper - Q(1, 10**9))
    ok, why = verify(cert)
    assert not ok and "exceeds the claimed upper bound" in why, why
    cert["lower"] = cert["upper"]
    ok, why = verify(cert)
    assert not ok and "max |a - b| = " in why and "> upper" in why, why


def test_a_constant_claim_on_networks_with_neurons_is_broken():
    cert, _ = _cert()
    cert["constant"] = {"layer": 1}                   # a's layer 1 has neurons
    ok, why = verify(cert)
    assert not ok and "hidden layer 1 has" in why and "not 0" in why, why


@pytest.mark.parametrize("mutate,text", [
    (lambda c: c.update(constant={"layer": 3}), "not a hidden layer of both"),
    (lambda c: c.update(constant={"layer": 0}), "not a hidden layer of both"),
    (lambda c: c.update(constant={"layer": "2"}), "constant must be"),
    (lambda c: c.update(constant=2), "constant must be"),
    (lambda c: c.update(constant={"layer": 2, "x": 1}), "constant must be"),
    (lambda c: c.pop("upper"), "a constant claim holds"),
    (lambda c: (c.pop("point"), c.pop("lower"), c.pop("output")), "a constant claim holds lower"),
    (lambda c: c.update(cone={}), "no cone"),
    (lambda c: c.update(claim=CLAIMS["bab_recession"][2]), "only the upper-bound claim holds a"),
])
def test_malformed_constant_claims_are_refused(mutate, text):
    cert, _ = _cert()
    mutate(cert)
    with pytest.raises(InputError, match=text):
        verify(cert)


def test_a_point_outside_the_domain_or_a_wrong_value_is_caught():
    cert, r = _cert()
    bad = copy.deepcopy(cert)
    bad["point"] = ["2", "0"]
    assert verify(bad) == (False, "the point is outside the domain")
    bad = copy.deepcopy(cert)
    bad["lower"] = str(r.lower + 1)
    ok, why = verify(bad)
    assert not ok


def test_cli_diff_text_json_and_verify_epsilon(run, tmp_path):
    rng = random.Random(5)
    ja, jb = _pruned(rng, 3, 1, 3, 2), _pruned(rng, 3, 1, 3, 2)
    want = max(abs(u - v) for u, v in zip(_constant(ja, 1), _constant(jb, 1)))
    pa, pb, cert = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    pa.write_text(json.dumps(ja)); pb.write_text(json.dumps(jb))
    code, out, err = run("diff", pa, pb, "--orthant", "--json", "--certificate", cert)
    data = json.loads(out)
    assert code == 0 and data["complete"] and Fraction(data["lower"]) == Fraction(data["upper"]) == want
    assert "hidden layer 1 of width 0" in data["reason"]
    code, out, err = run("verify", cert, "--epsilon", str(want))
    assert code == 0 and "it proves max |a - b| <= " in out, (out, err)
    code, out, err = run("verify", cert, "--epsilon", str(want / 2))
    assert code == 1, (out, err)
