"""Certificates of every type survive a JSON round trip (in memory, via a
file and via ``netfibers verify``) and every mutation of a bound field is either refused as
malformed (InputError, CLI exit 2) or rejected with a reason (exit 1) — never a crash, and never
accepted while the mutated claim is false (oracle: z3 over exact reals)."""

import copy
import json
import random

import pytest

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.rationals import Q
from semialgebraic import verify
from semialgebraic.cli import main
from tests.cases.certificates import EQUIVALENCE_CERTIFICATES, EXAMPLES, replaced
from tests.oracles.z3 import z3_equivalent


@pytest.mark.parametrize("name", sorted(EQUIVALENCE_CERTIFICATES))
def test_round_trip_in_memory_file_and_cli(name, tmp_path, capsys):
    cert = json.loads(json.dumps(EQUIVALENCE_CERTIFICATES[name]))
    assert verify(cert)[0] is True
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(cert))
    assert main(["verify", str(path)]) == 0
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(cert["a"]))
    b.write_text(json.dumps(cert["b"]))
    assert main(["verify", str(path), str(a), str(b)]) == 0
    assert main(["verify", str(path), str(b), str(a)]) == 2      # the inputs are bound in order
    capsys.readouterr()


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
    for name in sorted(EQUIVALENCE_CERTIFICATES):
        muts = [(p, m) for p, v in _leaves(EQUIVALENCE_CERTIFICATES[name]) for m in _mutants(v)
                if p and p[0] not in ("claim", "representative")]
        rng.shuffle(muts)
        cases += [(name, p, m) for p, m in muts[:limit_per_cert]]
    return cases


def _check_mutation(name, path, m):
    c = _mutate(EQUIVALENCE_CERTIFICATES[name], path, m)
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
@pytest.mark.parametrize("name", sorted(EQUIVALENCE_CERTIFICATES))
def test_every_mutation_slow(name):
    for p, v in _leaves(EQUIVALENCE_CERTIFICATES[name]):
        if p and p[0] not in ("claim", "representative"):
            for m in _mutants(v):
                _check_mutation(name, p, m)


# -- wrong JSON types anywhere: InputError (exit 2), never TypeError / ParseError ---------------
WEIRD = [None, {}, [], "x", True, 10**30, 0.5, [[]], [None], {"a": 1}, "nan", "1/0"]


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
    cert = EQUIVALENCE_CERTIFICATES[case[5:]] if case.startswith("cert:") else _absorption_cert(case)
    node = cert
    for k in path:
        node = node[k]                      # the path exists
    for value in WEIRD:
        c = replaced(cert, path, value)
        try:
            ok, why = verify(c)
        except InputError:
            continue
        assert isinstance(why, str)


