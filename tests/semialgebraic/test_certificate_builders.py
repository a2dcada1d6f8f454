"""Certificates built in one place per type (``semialgebraic.certificates``), versioned, and
verified by the deciders."""

from __future__ import annotations

import copy
import importlib

import pytest

import algebra
import semialgebraic.absorption.decide as absorption_mod
import semialgebraic.bottleneck.canon as canon_mod
import semialgebraic.equivalence.dispatch as dispatch_mod
import semialgebraic.equivalence.general as general_mod
import semialgebraic.shallow.equivalence as shallow_mod
from algebra.blocks import Block
from algebra.exceptions import InputError
from algebra.kernel.certificate_schemas import (CERTIFICATE_FORMAT, CLAIMS, COMPETITOR,
                                                SCHEMA_KEYS, SCHEMA_VERSIONS, check_header, header)
from algebra.network import Network
from semialgebraic.absorption import absorbable
from semialgebraic.bottleneck import equivalent_bottleneck, identifiability
from semialgebraic.certificates import (CERTIFICATE_TYPES, absorption_certificate,
                                        counterexample_certificate, dimension_bounds_certificate,
                                        identifiability_certificate, jsonable)
from semialgebraic.equivalence import equivalent
from semialgebraic.exceptions import CertificateError
from semialgebraic.shallow import equivalent_shallow
from semialgebraic.verify import CHECKERS, verify
from tests.semialgebraic.test_certificate_mutations import BUILDERS, IDENT

# the module, not the function: the package attribute ``identifiability`` is the re-exported function
bottleneck_mod = importlib.import_module("semialgebraic.bottleneck._identifiability")

KINDS = sorted(SCHEMA_VERSIONS)


@pytest.fixture(scope="module")
def certs():
    return {k: f() for k, f in BUILDERS.items()}


def _of_type(certs, kind):
    return certs["absorption" if kind == "absorption" else kind]


# -- one table ----------------------------------------------------------------------------------
def test_one_table_of_seven_types():
    assert len(KINDS) == 17         # seven + bab_bound (issue 15) + non_localizability, absorbing_blocks (issue 18) + bab_cover (issue 19) + bab_recession, on_box, functional_dimension_sandwich, one_hidden_layer_dimension (issue 15) + conservation_laws (session 39) + symmetry_report (session 40)
    assert sorted(CERTIFICATE_TYPES) == sorted(CHECKERS) == sorted(SCHEMA_KEYS) == sorted(CLAIMS) == KINDS
    for kind, (builder, checker, line) in CERTIFICATE_TYPES.items():
        assert CHECKERS[kind] == checker and line
        module = importlib.import_module(f"semialgebraic.verify.{checker}")
        doc = module.__doc__
        assert f"Schema (version {SCHEMA_VERSIONS[kind]}" in doc or \
            f"Version {SCHEMA_VERSIONS[kind]}" in doc, kind
        assert builder.__name__ in doc and "schema_version" in doc, kind
        for key in SCHEMA_KEYS[kind][0] + SCHEMA_KEYS[kind][1]:
            assert f'"{key}"' in doc, (kind, key)
        # the builder lives beside its checker, in a module of the same name
        assert builder.__module__ == f"semialgebraic.certificates.{checker}"


# -- headers ------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS)
def test_builders_write_the_header(certs, kind):
    c = _of_type(certs, kind)
    assert c["format"] == CERTIFICATE_FORMAT and c["type"] == kind
    assert c["schema_version"] == SCHEMA_VERSIONS[kind] == (2 if kind == "bab_bound" else 1)
    assert c["netfibers_version"] == algebra.__version__
    assert check_header(c, kind) == SCHEMA_VERSIONS[kind]


@pytest.mark.parametrize("kind", KINDS)
def test_missing_or_unknown_schema_version_is_malformed(certs, kind):
    c = _of_type(certs, kind)
    v = SCHEMA_VERSIONS[kind]
    for version in (v + 1, 0, str(v), float(v), None, True):
        bad = dict(c, schema_version=version)
        with pytest.raises(InputError, match="schema_version"):
            verify(bad)
    bad = dict(c)
    del bad["schema_version"]
    with pytest.raises(InputError, match="schema_version"):
        verify(bad)


@pytest.mark.parametrize("kind", KINDS)
def test_netfibers_version_is_a_string_and_unknown_keys_are_refused(certs, kind):
    c = _of_type(certs, kind)
    assert verify(dict(c, netfibers_version="9.9.9"))[0]          # informational only
    for bad in (dict(c, netfibers_version=1), {k: v for k, v in c.items() if k != "netfibers_version"}):
        with pytest.raises(InputError, match="netfibers_version"):
            verify(bad)
    with pytest.raises(InputError, match="does not define"):
        verify(dict(c, note="unchecked"))
    with pytest.raises(InputError, match="claim"):
        verify(dict(c, claim="something else"))


def test_counterexample_of_different_signatures_has_no_point():
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1, 1]], [[1]]], [[0], [0]])
    c = counterexample_certificate(a, b, [0])
    assert "x" not in c and c["claim"] == CLAIMS["counterexample"][1]
    assert verify(c)[0]
    with pytest.raises(InputError, match="no common input"):
        verify(dict(c, x=[0], a_x=[0], b_x=[5]))
    assert verify(dict(c, claim=CLAIMS["counterexample"][0]))[0] is False
    same = counterexample_certificate(a, a.with_parameter("b2[0]", 1), [1])
    assert verify(dict(same, claim=CLAIMS["counterexample"][1]))[0] is False
    v = equivalent_bottleneck(Network.from_rows([[[1]], [[1]], [[1]]], [[0], [0], [0]]),
                              Network.from_rows([[[1]], [[1]], [[1], [1]]], [[0], [0], [0, 0]]))
    assert v.answer is False and verify(v.certificate)[0] and "x" not in v.certificate


def test_identifiability_certificate_holds_only_checked_keys():
    c = identifiability_certificate(IDENT, {"kind": "independent"})
    assert set(c) == {"format", "type", "schema_version", "netfibers_version", "claim", "network",
                      "fiber_dimension", "flip_sets"}
    assert verify(c)[0]
    with pytest.raises(InputError):
        verify(dict(c, hypotheses=[{"name": "G1", "holds": False, "witness": None}]))
    with pytest.raises(InputError):
        verify(dict(c, fiber_dimension="4"))
    assert verify(dict(c, fiber_dimension=5))[0] is False


def test_functional_dimension_upper_only_when_certified(certs):
    c = certs["functional_dimension"]
    assert "upper_directions" in c or "upper_regions" in c
    bare = {k: v for k, v in c.items() if k not in ("upper_directions", "upper_regions")}
    with pytest.raises(InputError, match="upper"):
        verify(bare)                                   # an uncertified upper in the certificate
    bare = {k: v for k, v in bare.items() if k != "upper"}
    assert verify(bare)[0] is False                    # the claim still says "<= upper"
    bare["claim"] = CLAIMS["functional_dimension"][0]
    assert verify(bare)[0]
    net = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    c = dimension_bounds_certificate(net, prime=1000003, inputs=[[1]], lower=1, upper=2,
                                     uncertified_upper_reason="not searched")
    assert "upper" not in c and c["uncertified_upper_reason"] == "not searched" and verify(c)[0]


def test_absorption_competitor_is_checked():
    biased = Block("relu", [[1, 0], [0, 1]], [[-1, 0], [0, -1]], b_up=[1, -2])     # example A-bias
    v = absorbable(biased)
    assert v.answer is True and v.certificate["competitor"] != COMPETITOR
    bad = dict(v.certificate, competitor=COMPETITOR)
    ok, why = verify(bad)
    assert not ok and "biases" in why
    c = absorption_certificate(Block("relu", [[1]], [[1]], skip="none", b_up=[1]), "absorbable",
                               {"kind": "skip_zero"})
    assert verify(c)[0] is False                                  # the block itself has biases
    assert verify(absorption_certificate(Block("relu", [[1]], [[1]], skip="none", b_up=[1]),
                                         "absorbable", {"kind": "skip_zero"}, biases=True))[0]
    no = absorbable(Block("relu", [[1, 0], [0, 1]], [[1, 0], [0, 1]]))                # example C
    assert no.answer is False
    ok, why = verify(dict(no.certificate, competitor=absorption_certificate(
        Block("relu", [[1]], [[1]]), "absorbable", {"kind": "skip_zero"}, biases=True)["competitor"]))
    assert not ok and "biases" in why
    with pytest.raises(InputError, match="competitor"):
        verify(dict(no.certificate, competitor="any block"))


# -- deciders verify what they return -------------------------------------------------------------
class _Spy:
    def __init__(self, result=None):
        self.calls, self.result = [], result

    def __call__(self, cert):
        self.calls.append(cert["type"])
        return self.result if self.result is not None else verify(cert)


BLOCK = Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]])


def test_absorbable_runs_its_checker_by_default(monkeypatch):
    spy = _Spy()
    monkeypatch.setattr(absorption_mod, "_verify", spy)
    v = absorbable(BLOCK)
    assert v.answer is True and spy.calls == ["absorption"]
    spy.calls.clear()
    assert absorbable(BLOCK, verify=False).answer is True and spy.calls == []
    monkeypatch.setattr(absorption_mod, "_verify", _Spy((False, "planted failure")))
    with pytest.raises(CertificateError, match="planted failure"):
        absorbable(BLOCK)
    assert absorbable(BLOCK, verify=False).answer is True


A1 = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
B1 = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], [0]])


@pytest.mark.parametrize("module, call, kind", [
    (shallow_mod, lambda **kw: equivalent_shallow(A1, B1, **kw), "symmetry_path"),
    (general_mod, lambda **kw: equivalent(A1, B1, method="general", **kw), "region_cover"),
    (general_mod, lambda **kw: equivalent(A1, B1.with_parameter("b2[0]", 1), method="general", **kw),
     "counterexample"),
    (bottleneck_mod, lambda **kw: identifiability(IDENT, **kw), "identifiability_hypotheses"),
    (canon_mod, lambda **kw: equivalent_bottleneck(IDENT, IDENT.with_parameter("b3[0]", 1), **kw),
     "counterexample"),
])
def test_deciders_verify_by_default(monkeypatch, module, call, kind):
    name = "verify" if module is general_mod else "_verify"
    spy = _Spy()
    monkeypatch.setattr(module, name, spy)
    v = call()
    assert v.certificate["type"] == kind and spy.calls == [kind]
    spy.calls.clear()
    w = call(verify=False)
    assert spy.calls == [] and w.answer == v.answer
    monkeypatch.setattr(module, name, _Spy((False, "planted failure")))
    with pytest.raises(CertificateError):
        call()


def test_equivalent_verifies_fast_path_certificates_once(monkeypatch):
    spy = _Spy()
    monkeypatch.setattr(dispatch_mod, "verify", spy)
    shallow_spy = _Spy()
    monkeypatch.setattr(shallow_mod, "_verify", shallow_spy)
    v = equivalent(A1, B1)
    assert v.answer is True and spy.calls == ["symmetry_path"] and shallow_spy.calls == []
    spy.calls.clear()
    assert equivalent(A1, B1, verify=False).answer is True and spy.calls == []


def test_written_certificates_round_trip(tmp_path, certs):
    from semialgebraic.certificates import write_certificate
    import json
    for kind, c in certs.items():
        path = tmp_path / f"{kind}.json"
        write_certificate(c, path)
        again = json.loads(path.read_text())
        assert again == jsonable(c) and verify(again)[0]
        assert copy.deepcopy(again)["schema_version"] == SCHEMA_VERSIONS[c["type"]]
