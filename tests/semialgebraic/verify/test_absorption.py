"""The absorption checker (``semialgebraic/verify/absorption.py``): malformed witnesses are
InputErrors (CLI exit 2, never an internal error), and ``netfibers verify CERT BLOCK`` binds the
certificate to its one input block."""

import copy
import json

import pytest

from algebra.blocks import Block
from algebra.exceptions import InputError
from semialgebraic import absorbable, verify
from semialgebraic.certificates import jsonable
from semialgebraic.cli import main
from tests.cases.certificates import EXAMPLES


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


def test_cli_verify_absorption_certificate_with_two_inputs_is_usage_error(tmp_path, capsys):
    from algebra.io.blocks import load_block
    from semialgebraic import absorbable
    block = EXAMPLES / "block_B.json"
    cert = tmp_path / "ab.json"
    cert.write_text(json.dumps(absorbable(load_block(str(block))).certificate))
    assert main(["verify", str(cert), str(block)]) == 0
    assert main(["verify", str(cert), str(EXAMPLES / "block_D.json")]) == 2   # another block
    assert main(["verify", str(cert), str(block), str(block)]) == 2
    capsys.readouterr()


# -- mutated certificates of every witness kind are rejected --------------------------------------
I2 = [[1, 0], [0, 1]]


def _cert(v):
    return json.loads(json.dumps(jsonable(v.certificate)))


def _examples():
    yield Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]])                 # flip
    yield Block("relu", I2, [[-1, 0], [0, -1]], b_up=[1, -2])                                # flip + bias
    yield Block("relu", I2, I2)                                                            # linear_system
    yield Block("gelu", I2, [[0, 1], [1, 0]])                                              # left_null
    yield Block("relu", [[1, 0], [-1, 0], [0, 1]], [[1, 3, 0], [2, -1, -1]])               # general
    yield Block("gelu", [[1, 0], [0, 1], [1, 1]], [[5, 0, 0], [7, 1, 0]])                  # exhausted
    yield Block("relu^2", [[1, 1]], [[1], [2]])                                            # degree
    yield Block("swiglu", I2, I2, w_gate=I2)                                               # jacobian
    yield Block("tanh", I2, I2)                                                            # bounded
    yield Block("relu", I2, I2, skip="none")                                               # skip_zero


def _mutations(c):
    w, kind = c["witness"], c["witness"]["kind"]
    out = []
    m = copy.deepcopy(c)
    m["claim"] = "absorbable" if c["claim"] == "not absorbable" else "not absorbable"
    out.append(("claim", m))
    if kind == "flip":
        m = copy.deepcopy(c); m["witness"]["S"] = w["S"][:-1]; out.append(("S", m))
        m = copy.deepcopy(c); m["witness"]["absorbing_block"]["w_up"][0][0] = 7; out.append(("w'_up", m))
        m = copy.deepcopy(c); m["block"]["w_down"][0][w["S"][0]] = 9; out.append(("block", m))
        if "b_up" in c["block"]:
            m = copy.deepcopy(c); m["witness"]["absorbing_block"]["b_down"][0] = 5; out.append(("b'_down", m))
    if kind == "left_null":
        m = copy.deepcopy(c); m["witness"]["Y"].append([1, 0, 1]); out.append(("Y", m))
        m = copy.deepcopy(c); m["block"]["w_down"] = [[-1, 0], [0, -1]]; out.append(("block", m))  # -> A
    if kind == "linear_system":
        m = copy.deepcopy(c); m["witness"]["x0"][0] = 5; out.append(("x0", m))
        m = copy.deepcopy(c); m["witness"]["rank"] = 1; out.append(("rank", m))
        m = copy.deepcopy(c); m["block"]["w_down"] = [[-1, 0], [0, -1]]; out.append(("block", m))
    if kind == "general":
        m = copy.deepcopy(c); m["witness"]["absorbing_block"]["w_down"][0][0] = 11; out.append(("w'_down", m))
        m = copy.deepcopy(c); m["block"]["w_down"][0][2] = 1; out.append(("block", m))
    if kind == "exhausted_search":
        m = copy.deepcopy(c); m["witness"]["canonical_form"]["linear"][0][0] = 8; out.append(("canon", m))
        m = copy.deepcopy(c); m["block"]["w_down"][1][1] = -1; out.append(("block", m))  # -> F: absorbable
    if kind == "degree":
        m = copy.deepcopy(c); m["witness"]["f_e"][0] = 3; out.append(("f_e", m))
        m = copy.deepcopy(c); m["witness"]["p"] = 3; out.append(("p", m))
        m = copy.deepcopy(c); m["block"]["activation"] = "relu"; out.append(("activation", m))
    if kind in ("jacobian", "bounded"):
        m = copy.deepcopy(c); m["witness"]["value"] = 2; out.append(("value", m))
        m = copy.deepcopy(c); m["block"]["skip"] = "none"; out.append(("skip", m))
        m = copy.deepcopy(c); m["block"]["activation"] = "glu" if kind == "jacobian" else "relu"
        if kind == "bounded":
            m["block"]["activation"] = "silu"
        out.append(("activation", m))
    if kind == "skip_zero":
        m = copy.deepcopy(c); m["block"]["skip"] = "identity"; out.append(("skip", m))
    return out


@pytest.mark.parametrize("block", list(_examples()), ids=lambda b: repr(b))
def test_every_mutation_rejected(block):
    c = _cert(absorbable(block))
    assert verify(c)[0]
    muts = _mutations(c)
    assert len(muts) >= 2
    for name, m in muts:
        try:
            ok, why = verify(m)
        except InputError as exc:          # malformed: also a rejection, with the reason
            ok, why = False, str(exc)
        assert ok is False, (name, why)
        assert why


def test_malformed_certificates():
    c = _cert(absorbable(Block("relu", I2, I2)))
    for bad in ({**c, "witness": {"kind": "magic"}}, {**c, "claim": "maybe"},
                {k: v for k, v in c.items() if k != "block"},
                {**c, "witness": {**c["witness"], "modulus": 15}}):
        with pytest.raises(InputError):
            verify(bad)
