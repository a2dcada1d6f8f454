"""``functional_dimension`` certificates: the lower bound of the functional dimension (rank of
the Jacobian rows at exact inputs, mod a prime, hence over Q; three-layer-fibers R22) is
re-checked by semialgebraic.verify.functional_dimension, and tampering is rejected."""

import copy
import json
import random

import pytest

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.verify import verify


def _net(seed, widths):
    rng = random.Random(seed)
    return Network([[[Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(widths[l])]
                     for _ in range(widths[l + 1])] for l in range(len(widths) - 1)],
                   [[Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(widths[l + 1])]
                    for l in range(len(widths) - 1)])


@pytest.mark.parametrize("seed, widths, domain", [
    (1, (2, 3, 2, 1), None), (2, (3, 4, 3, 2), None), (3, (2, 4, 1), (-1, 1)), (4, (2, 3, 3, 1), "orthant")])
def test_certificate_verifies_after_json_round_trip(seed, widths, domain):
    net = _net(seed, widths)
    fd = functional_dimension(net, domain=domain)
    cert = json.loads(json.dumps(functional_dimension_certificate(net, fd, domain=domain)))
    ok, why = verify(cert)
    assert ok, why
    assert cert["lower"] == fd.lower and cert["upper"] == fd.upper
    assert fd.lower <= fd.upper <= net.n_parameters


def _cert():
    net = Network.from_rows([[[1, 2], [-1, 1], [2, -3]], [[1, -1, 2], [0, 1, 1]], [[1, 3]]],
                            [[0, 1, "1/2"], [1, -2], [0]])
    fd = functional_dimension(net)
    return net, fd, json.loads(json.dumps(functional_dimension_certificate(net, fd)))


def test_tampering_is_rejected():
    net, fd, cert = _cert()
    assert verify(cert)[0] and fd.value == 15
    bad = copy.deepcopy(cert)
    bad["lower"] = fd.lower + 1                               # more than the rows' rank
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["inputs"] = bad["inputs"][:3]                         # too few inputs for the rank
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["inputs"][0] = [0, 0]                                 # neuron (0, 0) has pre-activation 0
    ok, why = verify(bad)
    assert not ok and "zero" in why
    bad = copy.deepcopy(cert)
    bad["prime"] = 1048575                                    # not a prime
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["network"]["layers"][0]["weight"][0][0] = "1/1048573"  # the prime divides a denominator
    ok, why = verify(bad)
    assert not ok and "denominator" in why
    bad = copy.deepcopy(cert)
    bad["domain"] = {"box": [-1, 1]}
    bad["inputs"][0] = [5, 5]
    assert not verify(bad)[0]


def test_malformed_certificates_are_input_errors():
    _, _, cert = _cert()
    for key in ("network", "prime", "inputs", "lower"):
        bad = copy.deepcopy(cert)
        del bad[key]
        with pytest.raises(InputError):
            verify(bad)
    bad = copy.deepcopy(cert)
    bad["lower"] = "15"
    with pytest.raises(InputError):
        verify(bad)


def test_cli_dim_certificate(tmp_path):
    import subprocess
    import sys
    net, fd, _ = _cert()
    p = tmp_path / "net.json"
    p.write_text(json.dumps(net.to_dict()))
    c = tmp_path / "cert.json"
    run = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "dim", str(p), "--certificate", str(c)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    run = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(c), str(p)],
                         capture_output=True, text=True)
    assert run.returncode == 0 and "VALID" in run.stdout


def test_upper_bound_by_scalings_is_certified():
    net, fd, cert = _cert()
    assert fd.value == net.n_parameters - net.n_hidden            # 20 - 5: only scalings
    assert cert["upper_directions"] == [["scale", 0, 0], ["scale", 0, 1], ["scale", 0, 2],
                                        ["scale", 1, 0], ["scale", 1, 1]]
    ok, why = verify(cert)
    assert ok and "exact: 15" in why
    bad = copy.deepcopy(cert)
    bad["upper"] = 14                                           # not N - rank of the scalings
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["upper_directions"] = bad["upper_directions"][1:]       # one direction fewer: 16 != 15
    assert not verify(bad)[0]
    bad = copy.deepcopy(cert)
    bad["upper_directions"][0] = ["dead", 0, 0]                 # neuron (0, 0) is not dead
    ok, why = verify(bad)
    assert not ok and "not dead" in why
    bad = copy.deepcopy(cert)
    bad["upper_directions"][0] = ["bias-trade", 0, 0]
    with pytest.raises(InputError):
        verify(bad)


def test_dead_neuron_directions_are_certified():
    dead = Network.from_rows([[[1], [0]], [[1, 1]]], [[0, -1], [0]])    # neuron 1 is dead
    fd = functional_dimension(dead)
    cert = json.loads(json.dumps(functional_dimension_certificate(dead, fd)))
    assert fd.value == 3 and ["dead", 0, 1] in cert["upper_directions"]
    ok, why = verify(cert)
    assert ok and "exact: 3" in why
    alive = copy.deepcopy(cert)
    alive["network"]["layers"][0]["bias"][1] = "1/2"            # neuron 1 now always on
    assert not verify(alive)[0]


def test_never_exercised_weight_is_certified_with_its_proof():
    # W2[0,1] (parameter 5) needs x < 0 (h1 > 0) while z2[0] = x < 0: never exercised
    net = Network.from_rows([[[1], [-1]], [[1, -1], [1, 1]], [[1, 1]]], [[0, 0], [0, "-1/2"], [0]])
    fd = functional_dimension(net, max_regions=0)
    assert [p["parameter"] for p in fd.details["exercise_proofs"]] == [5]
    cert = json.loads(json.dumps(functional_dimension_certificate(net, fd)))
    free = [e for e in cert["upper_directions"] if e[0] == "free"]
    assert [e[1] for e in free] == [5]
    ok, why = verify(cert)
    assert ok and f"= {fd.upper}" in why
    bad = copy.deepcopy(cert)
    entry = next(e for e in bad["upper_directions"] if e[0] == "free")
    entry[2]["refuted"] = entry[2]["refuted"][1:]                # a branch left unrefuted
    ok, why = verify(bad)
    assert not ok and "does not check" in why
    exercise_cert = {**header("exercise"), "claim": CLAIMS["exercise"][0], "network": cert["network"],
                     "proof": free[0][2]}
    ok, why = verify(exercise_cert)
    assert ok and "W2[0,1]" in why


def test_certificate_is_verified_before_it_is_returned():
    """verify=True (default) runs the checker: a result whose lower bound the rows do not reach
    raises CertificateError; verify=False returns the (rejected) certificate unchecked."""
    from dataclasses import replace

    from semialgebraic.exceptions import CertificateError
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    fd = functional_dimension(net)
    assert fd.value == 5 and verify(functional_dimension_certificate(net, fd))[0]
    wrong = replace(fd, lower=6, upper=6)
    with pytest.raises(CertificateError, match="functional_dimension"):
        functional_dimension_certificate(net, wrong)
    cert = functional_dimension_certificate(net, wrong, verify=False)
    assert cert["lower"] == 6 and verify(cert)[0] is False
