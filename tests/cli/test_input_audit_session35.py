"""Regressions of the session-35 input audit (adversarial files and option values: one line,
exit 2, nothing written)."""

from __future__ import annotations

import json

import pytest

from algebra.network import Network
from semialgebraic.cli import main

A = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])


@pytest.fixture
def pairs(tmp_path):
    p = tmp_path / "a.json"
    p.write_text(json.dumps(A.to_dict()))
    (tmp_path / "pairs.csv").write_text("a,b\na.json,a.json\n")
    return tmp_path / "pairs.csv"


@pytest.mark.parametrize("address, words", [
    ("garbage", "missing port number"), ("xyz://a:b", "unknown address scheme")])
def test_a_bad_scheduler_address_is_an_input_error(pairs, tmp_path, capsys, address, words):
    """`batch --scheduler garbage` ended in exit 4 (ValueError), an unreachable one after 30 s."""
    pytest.importorskip("distributed")
    out = tmp_path / "r.jsonl"
    assert main(["batch", "equiv", str(pairs), "--out", str(out), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: error: --scheduler {address}: cannot connect (")
    assert words in err and err.count("\n") == 1 and not out.exists()
