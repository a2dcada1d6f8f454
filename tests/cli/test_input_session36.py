"""Input handling of session 36: a byte-order mark is not data, a .nnet header whose
maxLayerSize contradicts its layer sizes is malformed, an empty polyhedron is refused naming
its file, `conserved --box` takes the domain grammar of the other commands, and an unreachable
`--scheduler` is waited for no longer than `--timeout`."""

from __future__ import annotations

import json
import time

import pytest

from algebra.exceptions import InputError
from algebra.io.nnet import load_nnet
from algebra.linalg import QMatrix
from algebra.network import Network
from semialgebraic.cli import main

NNET = "1,2,1,2,\n2,1,\n0,\n-1,0,\n1,4,\n0,2,0,\n2,4,1,\n1,0.5,\n0.25,\n"
NET2 = Network.from_rows([[[1, 2], [-1, 1], [2, -1]], [[1, 1, -1], [0, 1, 1]], [[1, -2]]],
                         [[0, 1, 0], [0, 1], [0]])


def test_a_byte_order_mark_is_not_data(tmp_path, capsys):
    """Excel and Notepad write a UTF-8 BOM: JSON, .nnet and CSV manifests were refused ("not a
    number" on the first field, "Unexpected UTF-8 BOM")."""
    (tmp_path / "a.nnet").write_bytes(b"\xef\xbb\xbf" + NNET.encode())
    assert load_nnet(tmp_path / "a.nnet").evaluate([2, 4]) == load_nnet(
        _write(tmp_path / "b.nnet", NNET)).evaluate([2, 4])
    (tmp_path / "a.json").write_bytes(b"\xef\xbb\xbf" + json.dumps(NET2.to_dict()).encode())
    assert main(["equiv", str(tmp_path / "a.json"), str(tmp_path / "a.json")]) == 0
    (tmp_path / "pairs.csv").write_bytes(b"\xef\xbb\xbfa,b\na.json,a.json\n")
    out = tmp_path / "r.jsonl"
    assert main(["batch", "equiv", str(tmp_path / "pairs.csv"), "--out", str(out),
                 "--workers", "0"]) == 0
    assert json.loads(out.read_text().splitlines()[0])["verdict"] == "equivalent"


def _write(p, text):
    p.write_text(text)
    return p


@pytest.mark.parametrize("size", ["1", "3"])
def test_nnet_max_layer_size_must_be_the_largest_layer(tmp_path, capsys, size):
    """NNet's writers set maxLayerSize to the largest layer size (inputs included); another
    value is a malformed header (the reference C reader sizes its buffers by it)."""
    p = _write(tmp_path / "m.nnet", NNET.replace("1,2,1,2,", f"1,2,1,{size},", 1))
    assert main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert err == (f"netfibers: error: {p}: maxLayerSize {size} in the header is not the largest "
                   "layer size 2\n")


@pytest.mark.parametrize("command", [["diff", "N", "N"], ["equiv", "N", "N"], ["regions", "N"],
                                     ["dim", "N"], ["conserved", "N"]])
def test_an_empty_polyhedron_is_refused_naming_its_file(tmp_path, capsys, command):
    """A box file whose half-spaces leave nothing: `regions` said "0 activation regions" (exit
    0), `dim` "no interior", `diff` "the domain is empty" without the file."""
    net = _write(tmp_path / "n.json", json.dumps(NET2.to_dict()))
    box = _write(tmp_path / "e.json", json.dumps({"box": [[-1, 1], [-1, 1]],
                                                  "halfspaces": [{"a": [1, 1], "b": -3}]}))
    args = [str(net) if c == "N" else c for c in command]
    assert main(args + ["--box", str(box)]) == 2
    assert capsys.readouterr().err == (f"netfibers: error: --box {box}: the domain is empty (its "
                                       "box and half-spaces have no common point)\n")


def test_conserved_takes_the_box_grammar_of_the_other_commands(tmp_path, capsys):
    """`conserved --box lo1:hi1,lo2:hi2` and a box file were refused ("not a number").  The laws
    on the box [-1, 1]^2 written three ways are the same; half-spaces give the laws of the cut
    (the fiber dimension then as bounds: R22's nearby reading takes boxes only)."""
    net = _write(tmp_path / "n.json", json.dumps(NET2.to_dict()))
    cube = _write(tmp_path / "c.json", json.dumps([[-1, 1], [-1, 1]]))
    half = _write(tmp_path / "h.json", json.dumps({"box": [[-1, 1], [-1, 1]],
                                                   "halfspaces": [{"a": [1, 1], "b": 0}]}))
    got = []
    for box in ["-1,1", "-1:1,-1:1", str(cube), str(half)]:
        assert main(["conserved", str(net), "--box", box, "--json"]) == 0
        got.append(json.loads(capsys.readouterr().out))
    laws = [g["number_of_laws"] for g in got]
    assert laws == [5, 5, 5, 5]
    assert [g["patterns"] for g in got] == [8, 8, 8, 5]
    assert got[0]["fiber_dimension"] == got[1]["fiber_dimension"] == 6
    assert (got[3]["fiber_dimension_lower"], got[3]["fiber_dimension_upper"]) == (6, 7)
    assert (got[3]["fiber_lower"], got[3]["fiber_upper"]) == (6, 7)      # dim's names, too


def test_an_unreachable_scheduler_is_waited_for_within_the_timeout(tmp_path, capsys):
    """`search … --scheduler ADDRESS --timeout 2` waited Dask's 10 s for a scheduler that is not
    there; the wait is now the shorter of the two (one second at least)."""
    pytest.importorskip("distributed")
    net = _write(tmp_path / "n.json", json.dumps(NET2.to_dict()))
    t0 = time.monotonic()
    assert main(["search", "regions", str(net), "--box", "-1,1", "--scheduler",
                 "tcp://127.0.0.1:1", "--timeout", "2"]) == 2
    assert time.monotonic() - t0 < 8
    assert "cannot connect" in capsys.readouterr().err


def test_identifiability_of_a_constant_bottleneck_is_an_input_error():
    """The library's `identifiability` on a second hidden layer of width 0 failed its own
    certificate check (CertificateError); the CLI refused it already (input audit, session 35)."""
    from netfibers import identifiability
    net = Network([QMatrix([[1, 2], [-1, 1]]), QMatrix.zeros(0, 2), QMatrix.zeros(1, 0)],
                  [[0, 1], [], [0]])
    with pytest.raises(InputError, match="hidden layer 2 has width 0"):
        identifiability(net)


def test_batch_on_a_directory_reads_nnet_files_and_names_what_it_leaves_out(tmp_path, capsys):
    """New-user audit (session 36, F2): `batch dedup DIR/` skipped .nnet files silently."""
    d = tmp_path / "zoo"
    d.mkdir()
    _write(d / "a.nnet", NNET)
    _write(d / "b.nnet", NNET)
    _write(d / "notes.txt", "hello")
    out = tmp_path / "d.jsonl"
    assert main(["batch", "dedup", str(d), "--out", str(out), "--workers", "0"]) == 0
    recs = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(recs) == 2
    err = capsys.readouterr().err
    assert "1 file without a model suffix" in err and "notes.txt" in err


def test_dim_says_when_the_fiber_dimension_is_r22s_reading(tmp_path, capsys):
    """New-user audit (session 36, F3): `dim` printed "fiber dimension 12" (JSON exact) where its
    own certificate proves [11, 12]: the value is R22's reading at a generic theta.  The text and
    the JSON now give the certified interval beside it."""
    from semialgebraic.dimension import functional_dimension
    rng = __import__("random").Random(5)
    for _ in range(40):
        W = [[[rng.choice([-2, -1, 1, 2]) for _ in range(2)] for _ in range(3)],
             [[rng.choice([-2, -1, 1, 2]) for _ in range(3)] for _ in range(3)],
             [[rng.choice([-2, -1, 1, 2]) for _ in range(3)]]]
        b = [[rng.randint(-2, 2) for _ in range(3)], [rng.randint(-2, 2) for _ in range(3)], [0]]
        net = Network.from_rows(W, b)
        fd = functional_dimension(net)
        if fd.exact and fd.fiber_exact_by == "R22" and (fd.fiber_floor or 0) < fd.fiber_dimension.value:
            break
    else:
        pytest.skip("no net with an R22 reading above the moves in this sample")
    p = _write(tmp_path / "n.json", json.dumps(net.to_dict()))
    main(["dim", str(p), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["fiber_dimension_by"] == "R22 reading (not certified)"
    assert data["fiber_lower"] == fd.fiber_floor < data["fiber_upper"] == data["fiber_dimension"]
    main(["dim", str(p)])
    assert "(certified: between" in capsys.readouterr().out


def test_an_open_layout_is_said_by_every_command(tmp_path, capsys):
    """New-user audit (session 36, F4): square layers under W1/b1 names fit both layouts; only
    `info` said which one was read, `eval` and `equiv` answered about it silently."""
    np = pytest.importorskip("numpy")
    p = tmp_path / "sq.npz"
    np.savez(p, W1=np.eye(2, dtype=np.float32), b1=np.zeros(2, np.float32),
             W2=np.array([[1, 2], [3, 4]], np.float32), b2=np.zeros(2, np.float32))
    assert main(["eval", str(p), "--x", "1,2"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: note: {p}: Weights read as (out, in)") and "fits the shapes too" in err


def test_epsilon_on_an_equal_pair_is_decided_by_equality(tmp_path, capsys):
    """Deep-net audit (session 36, F2): `equiv --epsilon` ran branch and bound to the timeout
    on pairs `equiv` proves equal in 2 s ([0, 3.6e28] after 30 s); exact equality is tried first
    on a third of the budget, its certificate written and valid."""
    from algebra.symmetries import random_permute_scale
    rng = __import__("random").Random(3)
    W = [[[rng.choice([-3, -2, -1, 1, 2, 3]) for _ in range(k)] for _ in range(n)]
         for k, n in [(2, 5), (5, 4), (4, 5), (5, 1)]]
    bs = [[rng.randint(-2, 2) for _ in range(n)] for n in (5, 4, 5, 1)]
    a = Network.from_rows(W, bs)
    b = random_permute_scale(a, rng)
    pa, pb = _write(tmp_path / "a.json", json.dumps(a.to_dict())), _write(tmp_path / "b.json", json.dumps(b.to_dict()))
    cert = tmp_path / "c.json"
    assert main(["equiv", str(pa), str(pb), "--epsilon", "0", "--timeout", "30", "--json",
                 "--certificate", str(cert)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] is True and data["upper"] == "0" and data["method"].startswith("equality")
    assert main(["verify", str(cert)]) == 0


def test_every_command_takes_timeout(tmp_path, capsys):
    """New-user audit (session 36, F10): `info`, `eval`, `convert`, `apply`, `explain` refused
    `--timeout` ("unrecognized arguments"): a script passing it to every command failed.  It is
    an alarm around the command: exit 3, nothing written."""
    p = _write(tmp_path / "n.json", json.dumps(NET2.to_dict()))
    assert main(["info", str(p), "--timeout", "60"]) == 0
    assert main(["eval", str(p), "--x", "1,2", "--timeout", "60"]) == 0
    assert main(["explain", "fiber", "--timeout", "60"]) == 0
    big = tmp_path / "big.npz"
    np = pytest.importorskip("numpy")
    rng = np.random.default_rng(0)
    np.savez(big, **{"0.weight": rng.standard_normal((300, 300)).astype(np.float32),
                     "0.bias": np.zeros(300, np.float32),
                     "2.weight": rng.standard_normal((2, 300)).astype(np.float32),
                     "2.bias": np.zeros(2, np.float32)})
    capsys.readouterr()
    out = tmp_path / "out.json"
    assert main(["convert", str(big), "-o", str(out), "--timeout", "0.001"]) == 3
    assert not out.exists() and "--timeout 0.001 s" in capsys.readouterr().err


def test_absorb_reads_a_two_layer_sequential_state_dict(tmp_path, capsys):
    """New-user audit (session 36, F10): `absorb` of nn.Sequential(Linear, GELU, Linear)'s
    state_dict (keys 0.*, 2.*) said "no MLP block found" although Block.from_torch reads the
    module; a deeper Sequential is still no block."""
    torch = pytest.importorskip("torch")
    from algebra.blocks import Block
    from algebra.io import load_block
    m = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    p = tmp_path / "seq.pt"
    torch.save(m.state_dict(), p)
    assert load_block(p, activation="relu") == Block.from_torch(m)
    assert main(["absorb", str(p), "--activation", "relu"]) in (0, 1, 3)    # a verdict, read
    deep = torch.nn.Sequential(torch.nn.Linear(2, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2),
                               torch.nn.ReLU(), torch.nn.Linear(2, 2))
    q = tmp_path / "deep.pt"
    torch.save(deep.state_dict(), q)
    capsys.readouterr()
    assert main(["absorb", str(q), "--activation", "relu"]) == 2
    assert "no MLP block found" in capsys.readouterr().err


def test_a_fiber_floor_is_at_least_the_scalings(tmp_path):
    """New-user audit (session 36, F6): `dim --timeout 30` on 784-1024-10 gave the fiber floor
    32 while listing 380 scalings: a move search cut short by the budget.  Every hidden neuron
    with a non-zero row or bias is a scaling direction of its own: the floor is at least their
    number, whatever the budget."""
    from semialgebraic.dimension import functional_dimension
    from semialgebraic.dimension.functional import scaling_floor
    net = Network.from_rows([[[1, 2], [0, 0], [-1, 1]], [[1, 1, 1]]], [[0, 0, 1], [0]])
    assert scaling_floor(net) == 2
    fd = functional_dimension(net)
    assert fd.fiber_dimension.lower >= 2
