"""Regressions from the session-40 outside audits (equivbig, fiber, dimscale)."""

from __future__ import annotations

import json

from algebra.network import Network
from semialgebraic.cli import main


def test_hex_digests_are_not_number_exponents(tmp_path, capsys):
    """The JSON reader's pre-scan of exponents counted "73e865043098656c" (a symmetry path's
    checkpoint digest, or any hex in a comment) as a 10^12-digit exponent: `verify` refused a
    valid certificate that `equiv` had written, as malformed (equivbig audit F1)."""
    p = tmp_path / "n.json"
    p.write_text('{"format": "netfibers.network", "version": 1, "activation": "relu", "comment": '
                 '"sha 73e865043098656c", "layers": [{"weight": [[1]], "bias": [0]}, '
                 '{"weight": [[1]], "bias": [0]}]}')
    assert main(["info", str(p)]) == 0
    a = Network.from_rows([[[1], [2]], [[1, 1]]], [[0, 1], [0]])
    b = Network.from_rows([[[2], [2]], [["1/2", 1]]], [[0, 1], [0]])
    from semialgebraic.certificates import jsonable
    from semialgebraic.equivalence import equivalent
    cert = jsonable(equivalent(a, b).certificate)
    assert cert["type"] == "symmetry_path"
    cert["checkpoints"] = ["73e865043098656c"] * len(cert.get("checkpoints") or [])
    c = tmp_path / "c.json"
    c.write_text(json.dumps(cert))
    code = main(["verify", str(c)])
    err = capsys.readouterr().err
    assert "exponents add up" not in err and code in (0, 1)
