"""``netfibers equiv A B --box lo1:hi1,...`` (and ``--box FILE.json``, ``--box file`` of a
``.nnet`` pair): exact equality on a box with its own sides, decided for a, b read on the cube
(three-layer-fibers R36).  The report speaks of the user's box and point (the cube only in one
note line); the ``on_box`` certificate and the counterexample verify; a mutated box is
INVALID; a cube given per coordinate answers as ``--box lo,hi``."""

from __future__ import annotations

import json
from fractions import Fraction as F

import pytest

from algebra.network import Network
from tests.fuzz.bab_paths import write_nnet

# relu(x0) + relu(x1 - 2) against relu(x0): equal exactly where x1 <= 2
A = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, -2], [0]])
B = Network.from_rows([[[1, 0]], [[1]]], [[0], [0]])
# relu(relu(x0 - x1) - relu(x1 - x0)) + relu(x1) against relu(x0 - x1) + x1: equal where x1 >= 0
A3 = Network.from_rows([[[1, -1], [-1, 1], [0, 1]], [[1, -1, 0], [0, 0, 1]], [[1, 1]]],
                       [[0, 0, 0], [0, 0], [0]])
B3 = Network.from_rows([[[2, -2], [0, 3], [0, -1]], [["1/2", "1/3", -1]]], [[0, 0, 0], [0]])
NOTE = ("  on the box, decided for a and b read on [-1, 1]^d (x = centre + half-width * u maps the "
        "cube onto the box; three-layer-fibers R36)")


@pytest.fixture
def nets(tmp_path):
    out = {}
    for name, net in (("a", A), ("b", B), ("a3", A3), ("b3", B3)):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(net.to_dict()))
        out[name] = str(p)
    return out


def test_equivalent_on_a_box_with_a_verified_on_box_certificate(nets, run, tmp_path):
    cert = tmp_path / "c.json"
    code, out, err = run("equiv", nets["a3"], nets["b3"], "--box=-1:2,0:3", "--certificate", cert)
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines == ["equivalent (general): a - b is zero on all 2 linear regions of the reduced "
                     "difference network (6 exact reduction steps), which cover the domain",
                     "  domain: the box [-1, 2] x [0, 3]", NOTE]
    c = json.loads(cert.read_text())
    assert c["type"] == "on_box" and c["box"] == [[-1, 2], [0, 3]] and len(c["inner"]["regions"]) == 2
    code, out, _ = run("verify", cert, nets["a3"], nets["b3"])
    assert code == 0 and out.startswith("VALID on_box certificate") and "R36" in out
    assert run("verify", cert, nets["a3"], nets["a3"])[0] == 2      # not the given b
    c["box"][1][0] = "-1/4"                                          # a larger box
    cert.write_text(json.dumps(c))
    code, out, _ = run("verify", cert)
    assert code == 1 and out.startswith("BROKEN on_box") and "is not a read on the cube" in out


def test_not_equivalent_prints_the_point_in_the_users_box(nets, run, tmp_path):
    cert = tmp_path / "c.json"
    code, out, _ = run("equiv", nets["a3"], nets["b3"], "--box=-1:2,-1/4:3", "--exact",
                       "--certificate", cert, "--json")
    js = json.loads(out)
    x = [F(v) for v in js["point"]]
    assert code == 1 and js["answer"] is False and js["box"] == [[-1, 2], ["-1/4", 3]]
    assert -1 <= x[0] <= 2 and F(-1, 4) <= x[1] < 0
    assert [F(v) for v in js["certificate"]["x"]] == x and js["note"] == NOTE.strip()
    # a3 - b3 = relu(x1) - x1 = -x1 > 0 at the point, exactly
    assert F(js["certificate"]["a_x"][0]) - F(js["certificate"]["b_x"][0]) == -x[1]
    code, out, _ = run("verify", cert, nets["a3"], nets["b3"])
    assert code == 0 and out.startswith("VALID counterexample certificate")
    c = json.loads(cert.read_text())
    assert c["domain"] == {"box": [[-1, 2], ["-1/4", 3]]}
    c["domain"]["box"][1][0] = 0                                   # the point is not in it
    cert.write_text(json.dumps(c))
    assert run("verify", cert)[0] == 1
    code, text, _ = run("equiv", nets["a3"], nets["b3"], "--box=-1:2,-1/4:3", "--exact")
    lines = text.splitlines()
    assert lines[0].startswith("not equivalent (general): ")
    assert lines[1] == f"  x = ({x[0]}, {x[1]})" and lines[-1] == NOTE
    assert sum("[-1, 1]" in line for line in lines) == 1            # the cube: the note only


def test_a_pair_that_differs_only_outside_the_box(nets, run, tmp_path):
    code, out, _ = run("equiv", nets["a"], nets["b"], "--box=-1:1,-1:2")
    assert code == 0 and out.startswith("equivalent (general): ")
    f = tmp_path / "box.json"
    f.write_text(json.dumps([[-1, 1], [-1, 3]]))                       # the larger box, as a file
    code, out, _ = run("equiv", nets["a"], nets["b"], "--box", f, "--json")
    js = json.loads(out)
    x = [F(v) for v in js["point"]]
    assert code == 1 and -1 <= x[0] <= 1 and 2 < x[1] <= 3
    assert F(js["certificate"]["a_x"][0]) - F(js["certificate"]["b_x"][0]) == x[1] - 2 > 0


@pytest.mark.parametrize("pair, cube", [(("a", "b"), "-1,3"), (("a", "b"), "-1,2"),
                                        (("a3", "b3"), "0,2"), (("a3", "b3"), "-1,1")])
def test_a_cube_given_per_coordinate_answers_as_the_cube(nets, run, pair, cube):
    lo, hi = cube.split(",")
    a, b = nets[pair[0]], nets[pair[1]]
    as_cube = run("equiv", a, b, f"--box={cube}", "--json")
    per_side = run("equiv", a, b, f"--box={lo}:{hi},{lo}:{hi}", "--json")
    assert as_cube == per_side and as_cube[0] == (0 if cube in ("-1,2", "0,2") else 1)
    assert "note" not in json.loads(as_cube[1])
    assert run("equiv", a, b, f"--box={cube}") == run("equiv", a, b, f"--box={lo}:{hi},{lo}:{hi}")


def test_a_side_of_width_zero_and_an_undecided_walk(nets, run):
    code, out, _ = run("equiv", nets["a"], nets["b"], "--box=-1:1,2:2")
    assert code == 0 and out.splitlines()[-1] == NOTE
    code, out, _ = run("equiv", nets["a"], nets["b"], "--box=-1:1,5/2:5/2", "--exact")
    assert code == 1 and ", 5/2)" in out.splitlines()[1]
    code, out, _ = run("equiv", nets["a3"], nets["b3"], "--box=-1:2,0:3", "--max-regions", "1")
    lines = out.splitlines()
    assert code == 3 and lines[0].startswith("undecided (general): ") and lines[-1] == NOTE


def test_nnet_pair_with_the_files_input_box(run, tmp_path):
    # normalisation identity, input box [0, 1] x [-1, 2] (not a cube): A and B as .nnet files
    pa, pb, pc = tmp_path / "a.nnet", tmp_path / "b.nnet", tmp_path / "c.nnet"
    two = [([[F(1), F(0)], [F(0), F(1)]], [F(0), F(-2)]), ([[F(1), F(1)]], [F(0)])]
    one = [([[F(1), F(0)]], [F(0)]), ([[F(1)]], [F(0)])]
    # a planted copy of `two`: neurons swapped, scaled by 2 and 1/2
    swapped = [([[F(0), F(1, 2)], [F(2), F(0)]], [F(-1), F(0)]), ([[F(2), F(1, 2)]], [F(0)])]
    norm = ([F(0), F(-1)], [F(1), F(2)], [F(0)] * 3, [F(1)] * 3)
    write_nnet(pa, two, *norm)
    write_nnet(pb, one, *norm)
    write_nnet(pc, swapped, *norm)
    cert = tmp_path / "c.json"
    code, out, _ = run("equiv", pa, pb, "--box", "file", "--certificate", cert)
    assert code == 0 and NOTE in out.splitlines()
    assert run("verify", cert, pa, pb)[0] == 0
    code, out, _ = run("equiv", pa, pc, "--box", "file", "--json")
    js = json.loads(out)
    assert code == 0 and js["certificate"]["type"] == "on_box" and js["input_space"] == "normalised"
    assert js["box"] == [["0", "1"], ["-1", "2"]]
    code, out, _ = run("equiv", pa, pb, "--box=0:1,-1:3", "--json")      # beyond the file's box
    x = [F(v) for v in json.loads(out)["point"]]
    assert code == 1 and 0 <= x[0] <= 1 and 2 < x[1] <= 3
