"""Red team (session 2): certificates of every type survive a JSON round trip (in memory, via a
file and via ``netfibers verify``) and every mutation of a bound field is either refused as
malformed (InputError, CLI exit 2) or rejected with a reason (exit 1) — never a crash, and never
accepted while the mutated claim is false (oracle: z3 over exact reals)."""

import copy
import json
import random

import pytest

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import equivalent, verify
from semialgebraic.cli import main

from test_redteam_s2_oracle import z3_equivalent

SHALLOW_A = Network.from_rows([[[1, -1], [2, 1], [0, 1]], [[1, -2, "1/2"], [0, 1, 1]]],
                              [[0, 1, -1], [1, 0]])
SHALLOW_B = Network.from_rows([[[0, 3], [4, 2], [1, -1]], [["1/6", "-1", 1], ["1/3", "1/2", 0]]],
                              [[-3, 2, 0], [1, 0]])                      # permuted and rescaled
DEEP_A = Network.from_rows([[[1, 2], [-1, 1]], [[1, -2], [-3, 1]], [[1, -1]]],
                           [[1, -1], [1, 2], [5]])
DEEP_B = Network.from_rows([[[-1, 1], [2, 4]], [[3, "-9/2"], [-2, "1/2"]], [["-1/3", 1]]],
                           [[-1, 2], [6, 1], [5]])                       # S1 + S2 on both layers


def _certificates():
    out = {}
    v = equivalent(SHALLOW_A, SHALLOW_B)
    assert v.answer is True
    out["shallow_path"] = v.certificate
    v = equivalent(SHALLOW_A, SHALLOW_B, domain="orthant")
    assert v.answer is True
    out["shallow_orthant"] = v.certificate
    v = equivalent(DEEP_A, DEEP_B)
    assert v.answer is True
    out["deep_auto"] = v.certificate
    v = equivalent(DEEP_A, DEEP_B, method="general", refutation_samples=0)
    assert v.answer is True and v.certificate["type"] == "region_cover"
    out["deep_cover"] = v.certificate
    v = equivalent(DEEP_A, DEEP_B, method="general", domain=(-1, 2))
    assert v.answer is True
    out["deep_cover_box"] = v.certificate
    for name, (a, b, dom) in {"cx": (DEEP_A, DEEP_A.with_parameter("W2[1,0]", 2), None),
                              "cx_box": (SHALLOW_A, SHALLOW_A.with_parameter("b1[2]", 0), (-1, 2)),
                              "cx_orthant": (SHALLOW_A, SHALLOW_A.with_parameter("W1[0,0]", 3),
                                             "orthant")}.items():
        v = equivalent(a, b, domain=dom)
        assert v.answer is False and v.certificate["type"] == "counterexample"
        out[name] = v.certificate
    return out


CERTS = _certificates()


@pytest.mark.parametrize("name", sorted(CERTS))
def test_round_trip_in_memory_file_and_cli(name, tmp_path, capsys):
    cert = json.loads(json.dumps(CERTS[name]))
    assert verify(cert)[0] is True
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert))
    assert main(["verify", str(path)]) == 0
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(cert["a"]))
    b.write_text(json.dumps(cert["b"]))
    assert main(["verify", str(path), str(a), str(b)]) == 0
    assert main(["verify", str(path), str(b), str(a)]) == 1      # the inputs are bound in order
    capsys.readouterr()


# -- the counterexample box domain ------------------------------------------------------------
@pytest.mark.parametrize("box", [[0], [0, 1, 2], "0,1", 3, []])
def test_counterexample_malformed_box_is_input_error(box):
    """Bug (fixed in verify/counterexample.py): a box of the wrong length raised ValueError
    (CLI: internal error, exit 4) instead of a malformed-certificate InputError (exit 2)."""
    cert = copy.deepcopy(CERTS["cx_box"])
    cert["domain"]["box"] = box
    with pytest.raises(InputError):
        verify(cert)


def test_counterexample_malformed_box_cli_exit_2(tmp_path, capsys):
    cert = copy.deepcopy(CERTS["cx_box"])
    cert["domain"]["box"] = [-1, 2, 3]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "box" in err


def test_counterexample_outside_box_rejected():
    cert = copy.deepcopy(CERTS["cx_box"])
    cert["domain"]["box"] = [5, 6]
    ok, why = verify(cert)
    assert ok is False and "outside" in why


# -- exhaustive leaf mutations, z3 as the oracle for accepted ones -------------------------------
def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        yield path, obj
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))
    else:
        yield path, obj


def _mutants(v):
    if isinstance(v, bool):
        return [not v]
    if isinstance(v, int):
        return [v + 1, -v, 0, f"{v}/3"]
    if isinstance(v, str):
        try:
            q = Q(v)
        except Exception:
            return [v + "x"]
        return [str(q + 1), str(-q), "0"]
    if isinstance(v, list):
        return ["DROP", "DUP"] if v else []
    if v is None:
        return [{"orthant": True}, {"box": [0, 1]}]
    return []


def _mutate(cert, path, m):
    c = copy.deepcopy(cert)
    node = c
    for k in path[:-1]:
        node = node[k]
    if m in ("DROP", "DUP"):
        lst = node[path[-1]] if path else c
        lst.pop() if m == "DROP" else lst.append(copy.deepcopy(lst[-1]))
    else:
        node[path[-1]] = m
    return c


def _claim_holds(c):
    """The mutated claim, decided independently (None: not an equality/inequality claim)."""
    try:
        a, b = network_from_dict(c["a"]), network_from_dict(c["b"])
    except Exception:
        return None
    if a.signature != b.signature:
        return None
    if c["type"] == "counterexample":
        return a([Q(str(t)) for t in c["x"]]) != b([Q(str(t)) for t in c["x"]])
    dom = c.get("domain")
    if isinstance(dom, dict) and dom.get("orthant"):
        dom = "orthant"
    elif isinstance(dom, dict) and "box" in dom:
        dom = tuple(Q(str(t)) for t in dom["box"])
    return z3_equivalent(a, b, dom)


def _mutation_cases(limit_per_cert):
    rng = random.Random(2)
    cases = []
    for name in sorted(CERTS):
        muts = [(p, m) for p, v in _leaves(CERTS[name]) for m in _mutants(v)
                if p and p[0] not in ("claim", "representative")]
        rng.shuffle(muts)
        cases += [(name, p, m) for p, m in muts[:limit_per_cert]]
    return cases


def _check_mutation(name, path, m):
    c = _mutate(CERTS[name], path, m)
    try:
        ok, why = verify(c)
    except InputError:
        return
    assert isinstance(why, str) and why
    if ok:
        assert _claim_holds(c) is not False, (name, path, m, why)


@pytest.mark.parametrize("name, path, m", _mutation_cases(12))
def test_mutation_never_crashes_nor_accepts_a_false_claim(name, path, m):
    _check_mutation(name, path, m)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(CERTS))
def test_every_mutation_slow(name):
    for p, v in _leaves(CERTS[name]):
        if p and p[0] not in ("claim", "representative"):
            for m in _mutants(v):
                _check_mutation(name, p, m)


# -- absorption certificates: malformed witnesses are InputErrors ---------------------------------
EXAMPLES = __import__("pathlib").Path(__file__).resolve().parents[1] / "algebra" / "examples"


@pytest.mark.parametrize("example, path, value", [
    ("block_P6_swiglu_stack.json", ("witness", "entry"), [0, 0, 0]),
    ("block_P6_swiglu_stack.json", ("witness", "entry"), [0]),
    ("block_P6_swiglu_stack.json", ("witness", "entry"), "0,0"),
    ("block_F_prime.json", ("witness", "canonical_form", "linear"), [[7, 0], [7]]),
    ("block_F_prime.json", ("witness", "canonical_form", "linear"), [[7, 0, 1], [7, 3]]),
])
def test_absorption_malformed_witness_is_input_error(example, path, value, tmp_path, capsys):
    """Bug (fixed in verify/absorption.py): an ``entry`` that is not a pair raised ValueError
    (CLI exit 4) and a ragged recorded canonical form DimensionMismatchError, instead of a
    malformed-certificate InputError."""
    from algebra.io.blocks import load_block
    from semialgebraic import absorbable
    cert = absorbable(load_block(str(EXAMPLES / example))).certificate
    assert verify(json.loads(json.dumps(cert)))[0] is True
    node = cert
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(InputError):
        verify(cert)
    p = tmp_path / "c.json"
    p.write_text(json.dumps(cert))
    assert main(["verify", str(p)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "internal error" not in err


# -- wrong JSON types anywhere: InputError (exit 2), never TypeError / ParseError ---------------
WEIRD = [None, {}, [], "x", True, 10**30, 0.5, [[]], [None], {"a": 1}, "nan", "1/0"]


def _replace(cert, path, value):
    c = copy.deepcopy(cert)
    node = c
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = copy.deepcopy(value)
    return c


def _absorption_cert(example):
    from algebra.io.blocks import load_block
    from semialgebraic import absorbable
    return absorbable(load_block(str(EXAMPLES / example))).certificate


@pytest.mark.parametrize("case, path", [
    ("cert:shallow_path", ("type",)),
    ("cert:deep_cover", ("a", "activation")),
    ("cert:cx", ("b", "activation")),
    ("cert:shallow_path", ("steps", 0, "step")),
    ("block_A_bias.json", ("witness", "kind")),
    ("block_P5b_reglu.json", ("witness", "f_e")),
    ("block_F_prime.json", ("witness", "per_T", 2, "witness", "free")),
    ("block_F_prime.json", ("witness", "per_T", 2, "witness", "rejected")),
])
def test_wrong_json_types_are_input_errors(case, path):
    """Bugs (fixed in verify/__init__.py, verify/absorption.py, algebra/io/native.py,
    algebra/symmetries/__init__.py): a dict or list where a name was expected raised
    'unhashable type'; a non-list f_e or rejected 'is not iterable' (CLI: internal error)."""
    cert = CERTS[case[5:]] if case.startswith("cert:") else _absorption_cert(case)
    node = cert
    for k in path:
        node = node[k]                      # the path exists
    for value in WEIRD:
        c = _replace(cert, path, value)
        try:
            ok, why = verify(c)
        except InputError:
            continue
        assert isinstance(why, str)


def test_bad_number_in_a_step_is_input_error():
    """A step parameter that is not a number (ParseError / InexactInputError from the step
    parser) is a malformed certificate."""
    from semialgebraic.bottleneck import identifiability
    from algebra.io import load
    cert = identifiability(load(str(EXAMPLES / "t10_masked.json"))).certificate
    steps = [i for i, s in enumerate(cert.get("steps", [])) if "t" in s]
    assert cert["type"] == "symmetry_path" and steps
    for value in ("x", "1/0", "nan", 0.5, True, None, [1]):
        with pytest.raises(InputError):
            verify(_replace(cert, ("steps", steps[0], "t"), value))


def test_network_activation_of_wrong_type_cli(tmp_path, capsys):
    data = DEEP_A.to_dict()
    for value in ({}, ["relu"], 3):
        data["activation"] = value
        p = tmp_path / "n.json"
        p.write_text(json.dumps(data))
        assert main(["info", str(p)]) == 2
        err = capsys.readouterr().err
        assert "activation" in err and len(err.strip().splitlines()) == 1


def test_apply_step_name_of_wrong_type_cli(tmp_path, capsys):
    net = tmp_path / "n.json"
    net.write_text(json.dumps(DEEP_A.to_dict()))
    steps = tmp_path / "s.json"
    steps.write_text(json.dumps([{"step": {"S1": 1}, "layer": 0, "perm": [1, 0]}]))
    assert main(["apply", str(steps), str(net), "-o", str(tmp_path / "out.json")]) == 2
    assert not (tmp_path / "out.json").exists()
    capsys.readouterr()


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
    p.write_text(json.dumps(_replace(cert, ("regions", r, "facets", 0), {})))
    assert main(["verify", str(p)]) == 2
    assert "malformed" in capsys.readouterr().err


def test_region_cover_facet_of_wrong_type_is_input_error():
    cert, r = _cover_with_facets()
    with pytest.raises(InputError):
        verify(_replace(cert, ("regions", r, "facets", 0), {}))


# -- netfibers verify CERT NET for certificates that embed one input -----------------------------
def test_cli_verify_identifiability_certificate_against_its_network(tmp_path, capsys):
    """Bug (fixed in commands/shallow.py): ``netfibers verify id.json NET`` compared NET with a
    non-existent embedded 'a' and reported a valid identifiability certificate BROKEN (exit 1)."""
    from semialgebraic.bottleneck import identifiability
    from algebra.io import load
    net_path = EXAMPLES / "t5_perm_scale_a.json"
    v = identifiability(load(str(net_path)))
    assert v.answer is True and v.certificate["type"] == "identifiability_hypotheses"
    cert = tmp_path / "id.json"
    cert.write_text(json.dumps(v.certificate))
    assert main(["verify", str(cert), str(net_path)]) == 0
    assert main(["verify", str(cert), str(EXAMPLES / "t5_perm_scale_b.json")]) == 1
    assert main(["verify", str(cert), str(net_path), str(net_path)]) == 2
    capsys.readouterr()


def test_cli_verify_absorption_certificate_with_two_inputs_is_usage_error(tmp_path, capsys):
    from algebra.io.blocks import load_block
    from semialgebraic import absorbable
    block = EXAMPLES / "block_B.json"
    cert = tmp_path / "ab.json"
    cert.write_text(json.dumps(absorbable(load_block(str(block))).certificate))
    assert main(["verify", str(cert), str(block)]) == 0
    assert main(["verify", str(cert), str(EXAMPLES / "block_D.json")]) == 1
    assert main(["verify", str(cert), str(block), str(block)]) == 2
    capsys.readouterr()
