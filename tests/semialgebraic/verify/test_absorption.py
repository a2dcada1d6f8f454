"""The absorption checker (``semialgebraic/verify/absorption.py``): malformed witnesses are
InputErrors (CLI exit 2, never an internal error), and ``netfibers verify CERT BLOCK`` binds the
certificate to its one input block."""

import json

import pytest

from algebra.exceptions import InputError
from semialgebraic import verify
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
    assert main(["verify", str(cert), str(EXAMPLES / "block_D.json")]) == 1
    assert main(["verify", str(cert), str(block), str(block)]) == 2
    capsys.readouterr()
