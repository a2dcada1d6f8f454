"""Regression tests from the session-34 outsider audits (reports in the session's scratch
folder): each builds the auditor's certificate and asserts the checker's answer."""

from __future__ import annotations

from semialgebraic.verify import verify


def _net(w1, b1, w2, b2):
    return {"format": "netfibers.network", "version": 1, "activation": "relu",
            "layers": [{"weight": w1, "bias": b1}, {"weight": w2, "bias": b2}]}


def test_bab_bound_with_numbers_of_thousands_of_digits_on_both_sides_is_checked():
    """Cuts audit F1: a box end of 10^2000 and a weight of 10^2000 met in the interval replay's
    limb products (both above MAX_TERMS limbs) and raised ValueError, exit 4.  The claim is true:
    a − b = (10^2000 − 1) relu(x), at most (10^2000 − 1)·10^2000 < 10^9000."""
    a = _net([["1"], ["-1"]], ["0", "0"], [["1e2000", "1"]], ["0"])
    b = _net([["1"], ["-1"]], ["0", "0"], [["1", "1"]], ["0"])
    leaf = {"bound": "1e9000", "by": "symbolic"}
    cert = {"format": "netfibers.certificate", "type": "bab_bound", "schema_version": 2,
            "netfibers_version": "0.1.0", "claim": "max_o max_x |a_o(x) - b_o(x)| <= upper on the box",
            "bounds": {"intervals": "symbolic", "grid_bits": 40, "differential": "neurodiff"},
            "a": a, "b": b, "box": [["-1e2000", "1e2000"]], "upper": "1e9000",
            "objectives": [{"output": 0, "sign": s, "upper": "1e9000", "tree": dict(leaf)} for s in (1, -1)]}
    ok, why = verify(cert)
    assert ok, why
    low = dict(cert, upper="1e3999", objectives=[dict(o, upper="1e3999", tree={"bound": "1e3999", "by": "symbolic"})
                                                 for o in cert["objectives"]])
    assert not verify(low)[0]                     # the truth is ~1e4000: a smaller bound is refused


_A = {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": 2,
      "layers": [{"weight": [[1, -1], [0, 1], [0, -1]], "bias": [0, 0, 0]},
                 {"weight": [[1, 1, -1], [-1, -1, 1]], "bias": ["-1/2", 1]}, {"weight": [[1, 2]], "bias": [0]}]}
_B = {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": 2,
      "layers": [{"weight": [[1, 0], [0, 1]], "bias": [5, 5]},
                 {"weight": [[1, -1], [0, 1], [0, -1]], "bias": [0, -5, 5]},
                 {"weight": [[1, 1, -1], [-1, -1, 1]], "bias": ["-1/2", 1]}, {"weight": [[1, 2]], "bias": [0]}]}


def _contracted(**edit):
    cert = {"format": "netfibers.certificate", "type": "region_cover", "schema_version": 1,
            "netfibers_version": "0.1.0", "claim": "a(x) == b(x) for all x in the domain", "a": _A, "b": _B,
            "domain": {"box": [-1, 1]}, "contract": [{"net": "b", "layer": 0}],
            "reduction": [{"step": "merge", "layer": 0, "keep": k, "drop": k + 3, "factor": 1} for k in range(3)]
            + [{"step": "zero", "layer": 0, "neuron": k} for k in (3, 4, 5)]
            + [{"step": "merge", "layer": 1, "keep": k, "drop": k + 2, "factor": 1} for k in range(2)]
            + [{"step": "zero", "layer": 1, "neuron": k} for k in (2, 3, 0, 1)]
            + [{"step": "zero", "layer": 0, "neuron": k} for k in (0, 1, 2)], "regions": []}
    cert.update(edit)
    return cert


def test_malformed_contraction_and_reduction_steps_are_malformed_not_broken():
    """Region audit F2/F3: an InputError inside the contractions or reduction steps became
    BROKEN (exit 1); a list as a dead_cover neuron a raw TypeError.  Now malformed (exit 2)."""
    import pytest
    from algebra.exceptions import InputError
    good = _contracted()
    assert verify(good)[0]                        # the genuine certificate (a = b on the cube)
    bad = [_contracted(contract=[{"net": "c", "layer": 0}]),
           _contracted(contract=[{"net": "b", "layer": 99}]),
           _contracted(reduction=[{"step": "merge", "layer": 0, "keep": 0, "drop": 3, "factor": "abc"}]),
           _contracted(reduction=[{"step": "frobnicate", "layer": 0}]),
           _contracted(reduction=[{"step": "dead_cover", "layer": 0, "neurons": [[0]], "regions": []}]),
           _contracted(regions={})]
    for cert in bad:
        with pytest.raises(InputError):
            verify(cert)


def test_non_localizability_checks_its_path_before_its_flip_sets():
    """Region audit F1: a 4 kB certificate with 18 second-layer neurons ran every one of the
    2^18 flip sets (> 60 s) before finding its composite malformed.  The path is read first, and
    the flip sets are the R41 checker's enumerations (dependencies' 0/1 points)."""
    import random
    import pytest
    from algebra.exceptions import InputError
    from semialgebraic.verify import non_localizability
    from algebra.io.native import network_from_dict
    rng = random.Random(1)
    n2, n1 = 18, 20
    net = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
        {"weight": [[int(i == j) for j in range(n1)] for i in range(n1)], "bias": [0] * n1},
        {"weight": [[rng.randint(1, 9) for _ in range(n1)] for _ in range(n2)],
         "bias": [rng.randint(1, 9) for _ in range(n2)]},
        {"weight": [[rng.randint(1, 9) for _ in range(n2)] for _ in range(n1)], "bias": [0] * n1}]}
    cert = {"format": "netfibers.certificate", "type": "non_localizability", "schema_version": 1,
            "netfibers_version": "0.1.0",
            "claim": "f2∘f1 and f3∘f2 are identifiable, f3∘f2∘f1 is not (three-layer-fibers R19)",
            "network": net, "composite": {"type": "symmetry_path"}}
    with pytest.raises(InputError):
        verify(cert)
    assert non_localizability._last_pair(network_from_dict(net)) == ""
    # a cancelling flip set among many neurons is still found: neurons 0 and 1 with V_1 W2_1 = −V_0 W2_0
    net["layers"][1]["weight"][1] = [-x for x in net["layers"][1]["weight"][0]]
    for row in net["layers"][2]["weight"]:
        row[1] = row[0]
    assert "flip set [0, 1] cancels" in non_localizability._last_pair(network_from_dict(net))


def test_a_neuron_listed_dead_and_unread_in_the_fiber_floor_is_refused():
    """Tools audit F1 (a false claim VALID): neuron 1 of relu(x0) + 0·relu(0·x − 1) listed both
    dead and unread on R^2 added its incoming weights (unread) to its bias and outgoing weight
    (dead): 'fiber dimension = 5' where it is 4 (v1 ≠ 0 with w1 ≠ 0 puts a kink at w1·x = 1)."""
    net = {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": 2,
           "layers": [{"weight": [[1, 0], [0, 0]], "bias": [0, -1]}, {"weight": [[1, 0]], "bias": [0]}]}
    cert = {"format": "netfibers.certificate", "type": "functional_dimension", "schema_version": 1,
            "netfibers_version": "0.1.0", "claim": "lower <= functional dimension <= upper", "network": net,
            "domain": None, "prime": 1048573,
            "inputs": [[1, 0], [-1, 0], ["1048577/1048576", 0], [1, "1/1048576"], ["-1048575/1048576", 0],
                       [-1, "1/1048576"]], "lower": 4, "upper": 4,
            "upper_reason": "rank mod p of the Jacobian rows (a lower bound of the rational rank) at d + 1 "
                            "inputs in each of the 2 linear regions (complete)",
            "upper_directions": [["scale", 0, 0], ["scale", 0, 1], ["dead", 0, 1]],
            "fiber_moves": [["scale", 0, 0], ["scale", 0, 1], ["dead", 0, 1]], "fiber_lower": 3}
    assert verify(cert)[0]                        # the genuine floor
    forged = dict(cert, fiber_moves=cert["fiber_moves"] + [["unread", 0, 1]], fiber_lower=5)
    ok, why = verify(forged)
    assert not ok and "dead and unread" in why
