"""``conservation_laws`` certificates (session 39; the s39 conserved audit, F6: ``conserved`` had
no certificate, so its certified count could not be re-checked by ``netfibers verify``).

The certificate lists the samples, the verified laws (polynomials), the prime and the jet
brackets whose batches raised the rank at θ; the checker re-derives every law's identity against
every field (three-layer-fibers R23–R26), the rank of the laws' gradients (lower) and of the
fields and brackets at θ (upper).  Random nets in region and data mode: every certificate
VALID, every false claim (upper − 1, lower + 1, a law plus an output bias, a law dropped, a
point moved to another pattern, a bracket naming a missing sample, no prime) rejected."""

from __future__ import annotations

import copy
import json
import random

import pytest

from algebra.conservation import conservation_laws
from algebra.conservation.fields import samples_from_points
from algebra.exceptions import InputError
from algebra.io import load
from algebra.network import Network
from semialgebraic import regions
from semialgebraic.certificates import conservation_laws_certificate
from semialgebraic.verify import verify


def _rnd(widths, rng):
    W = [[[rng.randint(-3, 3) for _ in range(widths[l])] for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)]
    b = [[rng.randint(-2, 2) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network.from_rows(W, b)


def _certified(net, samples):
    res = conservation_laws(net, samples, timeout=60)
    cert = conservation_laws_certificate(net, res)
    return res, (None if cert is None else json.loads(json.dumps(cert)))


def test_two_linear_regions_example_is_certified_exactly():
    net = load("algebra/examples/t10_two_linear.json")
    res, cert = _certified(net, [r.pattern for r in regions(net)])
    assert res.exact and res.number_of_laws == 4 and len(res.brackets) > 0
    ok, why = verify(cert)
    assert ok and why.startswith("4 independent conservation laws near theta")
    no_brackets = {**cert, "brackets": []}
    ok, why = verify(no_brackets)         # the fields alone show rank 3: at most 6 laws
    assert not ok and "at most N - 3 = 6 independent laws" in why


@pytest.mark.parametrize("seed", range(12))
def test_random_nets_certificates_valid_and_false_claims_rejected(seed):
    rng = random.Random(3900 + seed)
    widths = rng.choice([(2, 3, 1), (1, 2, 2, 1), (2, 2, 2, 1), (2, 3, 2), (1, 3, 2, 1)])
    net = _rnd(widths, rng)
    if seed % 2:
        samples = [r.pattern for r in regions(net)]
    else:
        pts = [[rng.randint(-5, 5) for _ in range(widths[0])] for _ in range(rng.randint(2, 8))]
        samples = samples_from_points(net, pts)
    res, cert = _certified(net, samples)
    assert cert is not None
    ok, why = verify(cert)
    assert ok, why
    assert cert["lower"] == len(res.laws) and cert["upper"] == res.upper
    L = len(widths) - 1
    false = []
    if cert["upper"] - 1 >= cert["lower"]:
        false.append({**cert, "upper": cert["upper"] - 1})
    if cert["lower"] < cert["upper"]:
        false.append({**cert, "lower": cert["lower"] + 1})
    if cert["laws"]:
        m = copy.deepcopy(cert)
        m["laws"][0]["polynomial"] += f" + b{L}[0]"          # ∂f_0/∂b_L[0] = 1: not conserved
        false.append(m)
        if cert["lower"] > 0:
            false.append({**cert, "laws": cert["laws"][1:]})
    for m in false:
        assert verify(m)[0] is False


def test_malformed_certificates_are_input_errors():
    rng = random.Random(7)
    net = _rnd((2, 3, 1), rng)
    pts = [[1, 2], [-3, 1], [2, -2]]
    res, cert = _certified(net, samples_from_points(net, pts))
    assert verify(cert)[0]
    other = [x for x in ([a, b] for a in range(-4, 5) for b in range(-4, 5))
             if net.activation_pattern(x) != net.activation_pattern(cert["samples"][0]["points"][0])]
    m = copy.deepcopy(cert)
    m["samples"][0]["points"][0] = [str(v) for v in other[0]]
    with pytest.raises(InputError, match="activation pattern is not the sample's"):
        verify(m)
    m = copy.deepcopy(cert)
    m["brackets"] = [{"g": [[len(cert["samples"]), [[1]] * 3]]}]
    with pytest.raises(InputError, match="names sample"):
        verify(m)
    g = {"g": [[0, [[1]] * len(cert["samples"][0]["points"])]]}
    deep = g
    for _ in range(9):                       # jets cost 2^depth: past 8 levels, malformed
        deep = {"b": [g, deep]}
    with pytest.raises(InputError, match="more than 8 levels"):
        verify({**cert, "brackets": [deep]})
    for prime in (4, 1, "7"):
        with pytest.raises(InputError):
            verify({**cert, "prime": prime})
    with pytest.raises(InputError):
        verify({**cert, "lower": cert["upper"] + 1})
    with pytest.raises(InputError):
        verify({**cert, "extra": 1})


@pytest.mark.parametrize("seed", range(6))
def test_frozen_fast_path_agrees_with_the_polynomial_identity(seed):
    """The checker decides a law c·v (a frozen parameter, R25) structurally (a path of active
    neurons, a non-zero input coordinate); the same answer as expanding Σ ∂h/∂v ∂f/∂v."""
    from algebra.polynomials import Ring
    from semialgebraic.verify import conservation_laws as C
    rng = random.Random(77 + seed)
    widths = rng.choice([(2, 3, 1), (1, 2, 2, 1), (2, 2, 2, 2), (3, 2, 2, 1)])
    net = _rnd(widths, rng)
    raw = [{"pattern": [rng.choice([-1, 1]) for _ in range(net.n_hidden)], "points": None}
           for _ in range(2)]
    pts = [[rng.choice([0, 0, 1, -2]) for _ in range(widths[0])] for _ in range(3)]
    for x in pts:
        raw.append({"pattern": list(net.activation_pattern(x)), "points": [[str(v) for v in x]]})
    samples = C._samples(raw, net)
    R = Ring.get(net.parameter_names())
    for v in net.parameter_names():
        fast = C._moves(net, samples, v) is None
        slow = all(f.diff(v).is_zero() for masks, points in samples for x in points
                   for f in C._outputs(net, R, dict(zip(net.parameter_names(), R.gens())), masks, x))
        assert fast == slow, v


def test_a_live_parameter_claimed_frozen_is_rejected():
    net = Network.from_rows([[[1, 1], [-1, 2]], [[1, 1]]], [[-10, 0], [0]])    # neuron 0 dead here
    pts = [[1, 1], [0, 2], [-1, 3]]
    res, cert = _certified(net, samples_from_points(net, pts))
    names = [law["name"] for law in cert["laws"]]
    assert "frozen W1[0,0]" in names and verify(cert)[0]
    m = copy.deepcopy(cert)
    k = names.index("frozen W1[0,0]")
    m["laws"][k]["polynomial"] = "W1[1,0]"                           # neuron 1 is alive
    ok, why = verify(m)
    assert not ok and "law frozen W1[0,0] is not conserved" in why


def test_a_law_of_huge_degree_is_malformed_before_it_is_expanded():
    """A forged law (W1[0,0] + b1[0] + …)^400 ran out of memory inside one FLINT call, past any
    --timeout (s39 forge audit F1): laws past degree 8, or products that could pass 10^6 terms,
    are refused while parsing."""
    net = load("algebra/examples/t10_two_linear.json")
    _, cert = _certified(net, [r.pattern for r in regions(net)])
    s = "(W1[0,0] + b1[0] + W2[0,0] + W2[1,0] + b2[0])"
    for poly in (s + "^400", "*".join([s] * 9), "2^99999999 * W1[0,0]"):
        forged = copy.deepcopy(cert)
        forged["laws"].append({"name": "x", "polynomial": poly})
        with pytest.raises(InputError, match="more than 8|to the power"):
            verify(forged)
