"""Domains on the command line (issue 15): every form parsed into one exact domain, used by
``regions`` and ``dim``; a bad domain is one line on stderr, exit 2, nothing on stdout."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from algebra.network import Network
from semialgebraic.cli import main

NET = Network.from_rows([[[1, 0], [0, 1], [1, -1]], [[1, 1, 1]]], [[0, 0, 0], [0]])   # hyperplanes x=0, y=0, x=y


@pytest.fixture
def net(tmp_path):
    p = tmp_path / "net.json"
    p.write_text(json.dumps(NET.to_dict()))
    return str(p)


def _regions(capsys, net, *dom):
    code = main(["regions", net, *dom, "--json"])
    out = capsys.readouterr().out
    return code, json.loads(out)


def test_cube_box_per_coordinate_ball_and_halfspaces(capsys, net, tmp_path):
    code, data = _regions(capsys, net, "--box", "-1,1")
    assert code == 0 and data["number_of_regions"] == 6 and data["domain"]["type"] == "box"
    code, data = _regions(capsys, net, "--box", "1:2,-1:1")          # x > 0, x > y: only y = 0 cuts
    assert code == 0 and data["number_of_regions"] == 2
    assert data["domain"] == {"type": "polyhedron", "lo": ["1", "-1"], "hi": ["2", "1"], "halfspaces": []}
    code, data = _regions(capsys, net, "--ball", "3,1,1/2")          # away from every line
    assert code == 0 and data["number_of_regions"] == 1 and data["domain"]["lo"] == ["5/2", "1/2"]
    f = tmp_path / "dom.json"
    f.write_text(json.dumps({"box": [[-1, 1], [-1, 1]], "halfspaces": [{"a": [-1, 0], "b": "-1/2"}]}))
    code, data = _regions(capsys, net, "--box", str(f))               # x >= 1/2: y = 0 and x = y
    assert code == 0 and data["number_of_regions"] == 3
    assert all(Fraction(r["point"][0]) >= Fraction(1, 2) for r in data["regions"])
    code, data = _regions(capsys, net, "--orthant")
    assert code == 0 and data["number_of_regions"] == 2


@pytest.mark.parametrize("dom, problem", [
    (["--box", "2,1"], "exceeds"),
    (["--box", "0:1"], "expected 2 intervals"),
    (["--box", "0:1,a:2"], "--box"),
    (["--ball", "0,0,-1"], "radius"),
    (["--ball", "0,0,0,1"], "--ball"),
    (["--box", "missing.json"], "missing.json"),
])
def test_bad_domains_exit_2(capsys, net, dom, problem):
    assert main(["regions", net, *dom]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and problem in captured.err


def test_dim_takes_a_ball_and_refuses_a_non_cube_box(capsys, net):
    assert main(["dim", net, "--ball", "0,1", "--json"]) == 0          # the cube [-1, 1]^2
    ball = json.loads(capsys.readouterr().out)
    assert main(["dim", net, "--box", "-1,1", "--json"]) == 0
    cube = json.loads(capsys.readouterr().out)
    # 13 parameters minus one positive scaling per hidden neuron (all three are exercised)
    assert ball["functional_dimension"] == cube["functional_dimension"] == 13 - 3 and ball["exact"]
    assert main(["dim", net, "--box", "0:1,0:2"]) == 2
    assert "dim:" in capsys.readouterr().err
