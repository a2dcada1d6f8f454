"""The ``counterexample`` checker (``semialgebraic/verify/counterexample.py``) on box domains:
a malformed box is an InputError (CLI exit 2, one line naming the box), a point outside the box
is rejected with a reason."""

import copy
import json

import pytest

from algebra.exceptions import InputError
from semialgebraic import verify
from semialgebraic.cli import main
from tests.cases.certificates import EQUIVALENCE_CERTIFICATES


@pytest.mark.parametrize("box", [[0], [0, 1, 2], "0,1", 3, []])
def test_counterexample_malformed_box_is_input_error(box):
    """Bug (fixed in verify/counterexample.py): a box of the wrong length raised ValueError
    (CLI: internal error, exit 4) instead of a malformed-certificate InputError (exit 2)."""
    cert = copy.deepcopy(EQUIVALENCE_CERTIFICATES["cx_box"])
    cert["domain"]["box"] = box
    with pytest.raises(InputError):
        verify(cert)


def test_counterexample_malformed_box_cli_exit_2(tmp_path, capsys):
    cert = copy.deepcopy(EQUIVALENCE_CERTIFICATES["cx_box"])
    cert["domain"]["box"] = [-1, 2, 3]
    path = tmp_path / "c.json"
    path.write_text(json.dumps(cert))
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "box" in err


def test_counterexample_outside_box_rejected():
    cert = copy.deepcopy(EQUIVALENCE_CERTIFICATES["cx_box"])
    cert["domain"]["box"] = [5, 6]
    ok, why = verify(cert)
    assert ok is False and "outside" in why
