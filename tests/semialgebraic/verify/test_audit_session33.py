"""False claims the session-33 verify audit got accepted, now rejected (each built from genuine
certificates of the tool, edited the way the auditor did; the truth recomputed here)."""

from __future__ import annotations

import copy
import json

import pytest

from algebra.exceptions import InputError
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.certificates import header, one_hidden_layer_dimension_certificate
from semialgebraic.dimension import functional_dimension
from semialgebraic.verify import verify

# c - d is 0 on x0 + x1 <= 5 and 3 at (4, 4): c's third neuron x0 + x1 - 5 switches on there
C = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 3, -5], [0]])
D = Network.from_rows([[[1, 0], [0, 1], [0, -1]], [[1, 1, -1]]], [[0, 0, 0], [3]])
# a 2-3-1 net: value 10 on [-1, 1]^2, 7 where x0 + x1 <= 1/2 (neuron 1 dead there)
G = Network.from_rows([[[1, 0], [1, 1], [0, 1]], [[1, 1, -1]]], [[0, Q(-1, 2), 0], [0]])


def _json(c):
    return json.loads(json.dumps(c))


def test_a_cover_cell_bounded_on_a_cut_of_its_box_is_refused():
    """F1: a ``bab_bound`` proving |c - d| <= 0 on [-1, 4]^2 ∩ {x0 + x1 <= 5}, made the only cell
    of a cover of the whole box [-1, 4]^2, claimed max |c - d| <= 0 there: false (3 at (4, 4))."""
    assert C.evaluate([Q(4), Q(4)])[0] - D.evaluate([Q(4), Q(4)])[0] == 3
    cut = Domain([-1, -1], [4, 4], [([1, 1], 5)])
    r = diff_bounds(C, D, cut)
    assert r.complete and r.upper == 0
    cell = _json(r.certificate)
    assert cell["type"] == "bab_bound" and cell["halfspaces"] and verify(cell)[0]
    cover = {**header("bab_cover"), "claim": "max_o max_x |a_o(x) - b_o(x)| <= upper on the box",
             "a": cell["a"], "b": cell["b"], "box": [[-1, 4], [-1, 4]], "upper": cell["upper"],
             "cells": [cell]}
    ok, why = verify(cover)
    assert not ok and "half-spaces" in why
    assert diff_bounds(C, D, [(-1, 4), (-1, 4)]).upper == 3          # the truth on the box


def test_a_sandwich_whose_outer_part_holds_on_a_cut_only_is_refused():
    """F2: the value 7 of G on [-1, 1]^2 ∩ {x0 + x1 <= 1/2} (a genuine one-hidden-layer certificate) taken as
    the outer part of a sandwich on [-1, 1]^2 ∩ {x0 <= 5}, upper 7: false (10 there)."""
    on_box = functional_dimension(G, domain=(Q(-1), Q(1)))
    assert on_box.exact and on_box.value == 10
    from semialgebraic.dimension.sandwich import functional_dimension_on_cut, sandwich_certificate
    part = functional_dimension_on_cut(G, [-1, -1], [1, 1], [([1, 1], Q(1, 2))])
    assert part.exact and part.value == 7
    outer = _json(sandwich_certificate(G, part))
    assert outer["type"] == "one_hidden_layer_dimension" and outer["domain"]["halfspaces"]
    sandwich = {**header("functional_dimension_sandwich"),
                "claim": "lower <= functional dimension <= upper on the box cut by the half-spaces "
                         "(three-layer-fibers R37)",
                "network": outer["network"],
                "domain": {"box": [[-1, 1], [-1, 1]], "halfspaces": [{"a": [1, 0], "b": 5}]},
                "lower": 0, "upper": 7, "outer": outer}
    assert sandwich["claim"] == _claim("functional_dimension_sandwich")
    ok, why = verify(_json(sandwich))
    assert not ok and "cut by half-spaces" in why
    sandwich["domain"]["halfspaces"] = []
    assert not verify(_json(sandwich))[0]
    # a genuine outer part on the box itself still gives its bound
    box_part = _json(one_hidden_layer_dimension_certificate(G, (Q(-1), Q(1)), 10))
    sandwich.update(upper=10, outer=box_part)
    assert verify(_json(sandwich))[0]


def _claim(kind):
    from algebra.kernel.certificate_schemas import CLAIMS
    return CLAIMS[kind][0]


@pytest.fixture(scope="module")
def with_point():
    a = Network.from_rows([[[1, 0], [0, 1]], [[1, 0], [0, 1]]], [[0, 0], [0, 0]])
    b = Network.from_rows([[[1, 0], [0, 1]], [[1, 0], [0, Q(1, 2)]]], [[0, 0], [0, 0]])
    r = diff_bounds(a, b, (Q(-1), Q(1)))
    assert r.complete and r.upper == Q(1, 2)
    cert = _json(r.certificate)
    assert cert["output"] == 1 and verify(cert)[0]
    rec = diff_bounds(a, b, Domain.orthant(2))
    return cert, _json(rec.certificate)


@pytest.mark.parametrize("value", ["NaN", [], None, 2 ** 70, -1, 2, True])
def test_the_attaining_output_is_checked(with_point, value):
    """F3: the ``output`` beside ``lower`` and ``point`` was never read."""
    for cert in with_point:
        bad = copy.deepcopy(cert)
        if "output" not in bad:
            continue
        bad["output"] = value
        with pytest.raises(InputError):
            verify(bad)


def test_an_output_that_does_not_attain_the_lower_bound_is_refused(with_point):
    cert = copy.deepcopy(with_point[0])
    cert["output"] = 0               # |a_0 - b_0| = 0 everywhere
    ok, why = verify(cert)
    assert not ok and "a_0 - b_0" in why


def test_a_linear_system_witness_with_x0_shifted_along_the_kernel_is_refused():
    """The session-33 absorb audit: example H is absorbable (S = [0, 1]); a forged "not
    absorbable" certificate whose x0 is another point of the solution line (t = 1, not 0 on the
    free coordinate) enumerated ξ_4 in {1, 2} and missed the 0/1 solution: it was VALID."""
    from algebra.io.blocks import load_block
    from semialgebraic import absorbable
    block = load_block("algebra/examples/block_H.json")
    yes = absorbable(block)
    assert yes.answer is True and verify(_json(yes.certificate))[0]
    forged = {**_json(yes.certificate), "claim": "not absorbable",
              "witness": {"kind": "linear_system", "modulus": None, "rows": None, "rank": 4,
                          "free": [4], "x0": [0, 4, -2, -1, 1], "basis": [[-1, 3, -2, -1, 1]],
                          "rejected": []}}
    forged.pop("absorbing_block", None)
    ok, why = verify(_json(forged))
    assert not ok and "x0 is not 0 on the free coordinates" in why
    honest = copy.deepcopy(forged)                 # the t = 0 point: the enumeration finds S
    honest["witness"]["x0"] = [1, 1, 0, 0, 0]
    ok, why = verify(_json(honest))
    assert not ok and "S = [0, 1] solves the system" in why


def test_a_gelu_block_with_a_numerator_of_minus_two_to_the_63_is_decided():
    """The absorb audit: -2^63 has no int64 negation, so a GELU class took the wrong sign and the
    run stopped with an internal error (the re-check caught the certificate); such numerators now
    take the exact Python route: absorbable (the auditor's independent search: classes
    (-1, +1, 0)), the certificate VALID."""
    from algebra.io.blocks import block_from_dict
    from semialgebraic import absorbable
    block = block_from_dict({"format": "netfibers.block", "version": 1, "activation": "gelu",
                             "w_up": [["-9223372036854775808", -2], [2, 2], [2, 0], [-2, 1]],
                             "w_down": [[1, -2, 1, 0], [1, -2, -2, 0]], "skip": [[-1, 0], [1, 0]]})
    v = absorbable(block)
    assert v.answer is True and verify(_json(v.certificate))[0]


def test_pair_multipliers_on_networks_not_paired_are_refused():
    """The session-33 bab audit: with bounds.differential 'neurodiff', a leaf's pair multipliers
    (gamma, eta) were taken on a difference network whose halves do not pair a's neurons with
    b's (different widths): the δ replay reads two equal block-diagonal halves, so its pair rows
    were false, and "max |a − b| <= 0" (truth 1) was VALID."""
    a = Network.from_rows([[[1]], [[0]], [[0]]], [[0], [0], [0]])                 # a = 0, widths 1, 1
    b = Network.from_rows([[[1]], [[1], [0], [0]], [[1, 0, 0]]], [[0], [0, 0, 0], [0]])   # relu(relu(x))
    r = diff_bounds(a, b, (Q(-1), Q(1)))
    assert r.complete and r.upper == 1
    c = _json(r.certificate)
    assert c["bounds"]["differential"] == "neurodiff" and verify(c)[0]
    for k in ("lower", "point", "output"):
        c.pop(k, None)
    c["upper"] = 0
    c["objectives"] = [
        {"output": 0, "sign": 1, "upper": 0, "tree": {"bound": 0, "by": "symbolic"}},
        {"output": 0, "sign": -1, "upper": 0, "tree": {
            "bound": 0, "mu": [[0, 0], [0, 0, 0, 0], [-1]], "alpha": [[0, 0], [0, 0, 0, 0]],
            "beta": [[0, 0], [0, 0, 0, 0]], "gamma": [[0], [0, 1]], "eta": [[0], [0, 0]]}}]
    ok, why = verify(c)
    assert not ok and "of one shape, paired neuron by neuron" in why


def test_a_pair_record_on_networks_not_paired_is_refused_even_unused():
    """The bab audit's D9: an inline pair record on a leaf bounded 'by symbolic' of an unpaired
    certificate was accepted (never read: its claim stayed true); pair records are refused on
    networks not paired neuron by neuron, used or not."""
    a = Network.from_rows([[[1]], [[0]], [[0]]], [[0], [0], [0]])
    b = Network.from_rows([[[1]], [[1], [0], [0]], [[1, 0, 0]]], [[0], [0, 0, 0], [0]])
    c = _json(diff_bounds(a, b, (Q(-1), Q(1))).certificate)
    c["objectives"][0]["tree"] = {"bound": c["objectives"][0]["upper"], "by": "symbolic",
                                  "tightened": [{"pair": [0, 0], "hi": 0, "upper": {
                                      "mu": [], "alpha": [], "beta": [], "gamma": [], "eta": []}}]}
    with pytest.raises(InputError, match="pair records need"):
        verify(c)


def test_an_exercise_proof_refuting_a_vanishing_neuron_is_refused():
    """The session-33 dimension audit: h0 = h1 = relu(x), neuron (1, 0) = relu(h0 - h1) is 0 on
    the whole domain and unread; an ``exercise`` proof refuted both of its signs by '0 > 0' and
    certified W1[0,0] 'never exercised', while its Jacobian column is x at every x > 0 (θ ↦ f_θ(x)
    differentiable there).  A path with an identically zero neuron now refutes nothing
    (``vanishing_on_path``, as the other proofs)."""
    from semialgebraic.dimension.jacobian import exact_jacobian_rows
    net = Network.from_rows([[[1], [1]], [[1, -1], [1, 0]], [[0, 1]]], [[0, 0], [0, 0], [0]])
    assert exact_jacobian_rows(net, [[Q(2)]])[0][0] == 2          # dF/dW1[0,0] = x at x = 2
    proof = {"parameter": 0, "domain": None, "targets": [[0, 0, 1]], "delta_of": [0, 0],
             "order": [[0, 0], [0, 1], [1, 0], [1, 1]],
             "refuted": [{"path": [[0, 0, 1], [0, 1, -1]], "certificate": [1, 1]},
                         {"path": [[0, 0, 1], [0, 1, 1], [1, 0, 1]], "certificate": [0, 0, 1]},
                         {"path": [[0, 0, 1], [0, 1, 1], [1, 0, -1]], "certificate": [0, 0, 1]}]}
    cert = {**header("exercise"), "claim": "parameter p is never exercised on the domain",
            "network": net.to_dict(), "proof": proof}
    ok, _ = verify(_json(cert))
    assert not ok


def test_a_non_identifiability_witness_of_other_widths_is_refused():
    """The session-33 identifiability audit: a one-step insert_neuron path (an unread neuron
    added) made a 'not identifiable' claim VALID for an identifiable net, since b of other
    widths was taken as outside a's orbit; a witness must be a parameter of a's architecture."""
    a = {"format": "netfibers.network", "version": 1, "activation": "relu",
         "layers": [{"weight": [[1, 0], [0, 1], [1, 1]], "bias": [0, 0, 1]}, {"weight": [[1, 2, 3]], "bias": [0]}]}
    from semialgebraic.verify.symmetry_path import outside_orbit
    from algebra.io.native import network_from_dict
    na = network_from_dict(a)
    nb = network_from_dict({**a, "layers": [{"weight": [[1, 0], [0, 1], [1, 1], [5, 7]], "bias": [0, 0, 1, 1]},
                                            {"weight": [[1, 2, 3, 0]], "bias": [0]}]})
    assert na.evaluate([Q(1), Q(2)]) == nb.evaluate([Q(1), Q(2)])
    assert "other widths" in outside_orbit(na, nb)
    from algebra.kernel.certificate_schemas import CLAIMS
    cert = {**header("symmetry_path"), "claim": CLAIMS["symmetry_path"][2], "domain": None, "a": a,
            "b": nb.to_dict(), "steps": [{"step": "insert_neuron", "layer": 0, "position": 3, "weight": [5, 7],
                                          "bias": 1, "output": [0], "domain": None}]}
    ok, why = verify(_json(cert))
    assert not ok and "other widths" in why
