"""``netfibers absorb``: exit codes 0/1/3/2, certificates written atomically and verified,
weight files with --activation/--skip/--prefix, and the measure-zero experiment."""

import json

import numpy as np
import pytest

from semialgebraic.cli import main
from semialgebraic.verify import verify


def _write(path, data):
    path.write_text(json.dumps({"format": "netfibers.block", "version": 1, **data}))
    return str(path)


@pytest.fixture
def blocks(tmp_path):
    return {
        "B": _write(tmp_path / "b.json", {"activation": "relu", "w_up": [[1, 0], [0, 1], [1, 1]],
                                          "w_down": [[-1, 0, 2], [0, -1, 3]]}),
        "C": _write(tmp_path / "c.json", {"activation": "gelu", "w_up": [[1, 0], [0, 1]],
                                          "w_down": [[1, 0], [0, 1]]}),
        "open": _write(tmp_path / "s.json", {"activation": "relu", "blocks": [
            {"w_up": [[1]], "w_down": [[1]]}, {"w_up": [[1]], "w_down": [[-1]]}]}),
        "glu": _write(tmp_path / "g.json", {"activation": "glu", "w_gate": [[1]], "w_up": [[1]], "w_down": [[1]]}),
    }


def test_exit_codes_and_certificate(blocks, tmp_path, capsys):
    cert = tmp_path / "cert.json"
    assert main(["absorb", blocks["B"], "--certificate", str(cert)]) == 0
    out = capsys.readouterr().out
    assert "absorbable" in out and "[[0, 1]]" in out
    assert verify(json.loads(cert.read_text())) == (True, "flip of S = [0, 1]: W_down[:,S] W_up[S,:] = -M (R9)")
    assert main(["absorb", blocks["C"], "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["answer"] is False and data["certificate"]["witness"]["kind"] == "linear_system"
    assert {h["name"] for h in data["hypotheses"]} >= {"(N1) no zero row of W_up", "d >= 2", "k >= d"}
    none = tmp_path / "none.json"
    assert main(["absorb", blocks["open"], "--certificate", str(none)]) == 3
    assert "open" in capsys.readouterr().out and not none.exists()
    assert main(["absorb", blocks["glu"]]) == 3
    assert "not covered" in capsys.readouterr().out
    # --activation overrides the file's; --skip none makes it residual-free
    assert main(["absorb", blocks["C"], "--activation", "relu^2", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["certificate"]["witness"]["kind"] == "degree"
    assert main(["absorb", blocks["C"], "--skip", "none"]) == 0


def test_input_errors_exit_2(blocks, tmp_path, capsys):
    cert = tmp_path / "never.json"
    assert main(["absorb", blocks["B"], "--activation", "softmax", "--certificate", str(cert)]) == 2
    err = capsys.readouterr().err
    assert "unknown activation 'softmax'" in err and err.count("\n") == 1 and not cert.exists()
    bad = _write(tmp_path / "bad.json", {"activation": "relu", "w_up": [[1, 0]], "w_down": [[1], [2], [3]]})
    assert main(["absorb", bad]) == 2
    assert "bad.json: w_down: expected 2 rows" in capsys.readouterr().err
    assert main(["absorb", str(tmp_path / "missing.json")]) == 2
    assert main(["absorb"]) == 2
    assert main(["absorb", "--random", "2"]) == 2


def test_weight_files_and_skip_file(tmp_path, capsys):
    npz = tmp_path / "mlp.npz"
    np.savez(npz, **{"layers.0.fc1.weight": np.array([[1, 0], [0, 1], [1, 1]], dtype=np.float32),
                     "layers.0.fc2.weight": np.array([[-2, 0, 4], [0, -2, 6]], dtype=np.float32),
                     "layers.1.fc1.weight": np.array([[1, 0], [0, 1]], dtype=np.float32),
                     "layers.1.fc2.weight": np.array([[1, 0], [0, 1]], dtype=np.float32)})
    assert main(["absorb", str(npz)]) == 2                                  # no --activation
    assert "--activation" in capsys.readouterr().err
    assert main(["absorb", str(npz), "--activation", "relu"]) == 2          # two blocks
    assert "--prefix" in capsys.readouterr().err
    assert main(["absorb", str(npz), "--activation", "relu", "--prefix", "layers.1."]) == 1
    skip = tmp_path / "skip.json"
    skip.write_text(json.dumps({"skip": [[2, 0], [0, 2]]}))
    # W_down = 2 * (B's W_down): with skip 2I the flip of S = {0, 1} absorbs it (Lemma 4)
    assert main(["absorb", str(npz), "--activation", "relu", "--prefix", "layers.0.", "--skip", str(skip)]) == 0
    assert main(["absorb", str(npz), "--activation", "relu", "--prefix", "layers.0."]) == 1


def test_random_experiment(capsys):
    assert main(["absorb", "--random", "2,3", "--trials", "12", "--seed", "4", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert (r["absorbable"], r["not_absorbable"], r["undecided"], r["fraction"]) == (0, 12, 0, 0)
    lo, hi = map(float, r["wilson_95"])
    assert lo == 0.0 and 0.2 < hi < 0.3
    assert main(["absorb", "--random", "1,2", "--trials", "6", "--activation", "relu"]) == 0
    assert "absorbable 6" in capsys.readouterr().out                         # R12: d = 1


def test_verify_checks_a_certificate_against_its_block_weight_file(tmp_path, capsys):
    """``verify CERT FILE`` with the weight file ``absorb`` read (an outsider's acceptance test,
    session 31): the fc1/fc2 ``.npz`` was read as a two-layer network and called different from
    the certificate (exit 1), an up_proj/down_proj file refused (exit 2).  The file is read as
    a block with the certificate's activation and skip; a changed weight is told apart."""
    torch = pytest.importorskip("torch")
    for name, (up, down) in {"fc": ("fc1.weight", "fc2.weight"),
                             "up": ("up_proj.weight", "down_proj.weight")}.items():
        arrays = {up: np.array([[1.0], [-2.0]], np.float32), down: np.array([[3.0, 5.0]], np.float32)}
        for suffix in (".npz", ".pt"):
            f, cert = tmp_path / f"{name}{suffix}", tmp_path / f"{name}{suffix}.cert.json"
            if suffix == ".npz":
                np.savez(f, **arrays)
            else:
                torch.save({k: torch.from_numpy(v) for k, v in arrays.items()}, f)
            assert main(["absorb", str(f), "--activation", "relu", "--certificate", str(cert)]) == 0
            assert main(["verify", str(cert), str(f)]) == 0, (name, suffix)
            assert "VALID" in capsys.readouterr().out
        other = tmp_path / f"{name}_other.npz"
        np.savez(other, **{up: np.array([[1.0], [-2.5]], np.float32), down: arrays[down]})
        assert main(["verify", str(tmp_path / f"{name}.npz.cert.json"), str(other)]) == 2
        assert f"{other}: not the network the certificate is about" in capsys.readouterr().err


def test_json_carries_the_absorbing_block_and_it_computes_the_same_function(blocks, tmp_path, capsys):
    """skip-absorption R1: an absorbable block's --json names the residual-free block, even when the
    certificate goes to a file; that block equals the given one exactly at random rational points."""
    from fractions import Fraction
    import random

    from algebra.io.blocks import block_from_dict, load_block
    cert = tmp_path / "cert.json"
    assert main(["absorb", blocks["B"], "--json", "--certificate", str(cert)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["certificate"] == str(cert)
    absorbing = block_from_dict(data["absorbing_block"])
    given = load_block(blocks["B"])
    assert data["absorbing_block"]["skip"] == "none"
    rng = random.Random(3)
    for _ in range(20):
        x = [Fraction(rng.randint(-50, 50), rng.randint(1, 9)) for _ in range(2)]
        assert tuple(absorbing(x)) == tuple(given(x))
    assert main(["absorb", blocks["B"]]) == 0
    assert "absorbing block (no skip): W_up' = [-1, 0; 0, -1; 1, 1]" in capsys.readouterr().out
    assert main(["absorb", blocks["C"], "--json"]) == 1                      # not absorbable: no key
    assert "absorbing_block" not in json.loads(capsys.readouterr().out)


def test_a_skip_file_of_the_wrong_shape_is_named(tmp_path, capsys):
    npz = tmp_path / "blk.npz"
    np.savez(npz, **{"fc1.weight": np.ones((3, 2), dtype=np.float32),
                     "fc2.weight": np.ones((2, 3), dtype=np.float32)})
    skip = tmp_path / "skip3.json"
    skip.write_text(json.dumps([[1, 0, 0], [0, 1, 0], [0, 0, 1]]))
    assert main(["absorb", str(npz), "--activation", "relu", "--skip", str(skip)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: error: {skip}: skip has shape 3x3") and "d = 2" in err
    assert err.count("\n") == 1


def test_activation_replaces_every_stack_members_and_prefix_is_refused_for_json(tmp_path, capsys):
    """The session-33 absorb audit: for a stack whose members name their activation,
    ``--activation tanh`` was ignored and the ReLU answer ("absorbable") given; it now replaces
    every member's, as for a single block (tanh, every skip the identity: R18's bounded argument,
    not absorbable).  ``--prefix`` on a JSON block was ignored; it is refused in one line."""
    stack = {"format": "netfibers.block", "version": 1, "blocks": [
        {"activation": "relu", "w_up": [[1, 0], [0, 1]], "w_down": [[-1, 0], [0, -1]]},
        {"activation": "relu", "w_up": [[1, 0], [0, 1], [1, 1]], "w_down": [[-1, 0, 2], [0, -1, 3]]}]}
    p = tmp_path / "stack.json"
    p.write_text(json.dumps(stack))
    assert main(["absorb", str(p)]) == 0
    capsys.readouterr()
    assert main(["absorb", str(p), "--activation", "tanh"]) == 1
    assert "R18" in capsys.readouterr().out
    assert main(["absorb", str(p), "--prefix", "mlp."]) == 2
    err = capsys.readouterr().err
    assert "--prefix" in err and len(err.strip().splitlines()) == 1


def test_absorbing_block_text_shows_long_rationals_as_decimals(tmp_path, capsys):
    """The absorbing block's entries were printed in full (a 400-digit number for a weight
    1e400): ≈ decimals, exact with --exact (absorb audit); the witness of a hypothesis as text."""
    p = tmp_path / "h.json"
    p.write_text(json.dumps({"format": "netfibers.block", "version": 1, "activation": "relu",
                             "w_up": [["1e400"]], "w_down": [["-1e-400"]]}))
    assert main(["absorb", str(p)]) == 0
    out = capsys.readouterr().out
    assert "W_up' = [≈ -1.0000e400]" in out and "(≈: decimal approximation" in out
    assert "hypothesis not met: d >= 2 (d 1)" in out
    assert main(["absorb", str(p), "--exact"]) == 0
    assert "1" + "0" * 400 in capsys.readouterr().out


def test_a_transposed_down_projection_names_the_shape_expected(tmp_path, capsys):
    np = pytest.importorskip("numpy")
    f = tmp_path / "w.npz"
    np.savez(f, **{"fc1.weight": np.ones((3, 2), np.float32), "fc2.weight": np.ones((3, 2), np.float32)})
    assert main(["absorb", str(f), "--activation", "relu"]) == 2
    assert "expected (2, 3) (out, in)" in capsys.readouterr().err


def test_two_layouts_under_one_prefix_are_named(tmp_path, capsys):
    """fc1/fc2 and up_proj/down_proj under one prefix: '--prefix' cannot choose, so the message
    names both layouts instead of asking for --prefix (absorb audit F5)."""
    np = pytest.importorskip("numpy")
    f = tmp_path / "w.npz"
    w = {f"mlp.{n}.weight": np.ones(s, np.float32) for n, s in
         (("fc1", (3, 2)), ("fc2", (2, 3)), ("up_proj", (3, 2)), ("down_proj", (2, 3)))}
    np.savez(f, **w)
    for extra in ([], ["--prefix", "mlp."]):
        assert main(["absorb", str(f), "--activation", "relu", *extra]) == 2
        err = capsys.readouterr().err
        assert "two MLP layouts under the prefix 'mlp.'" in err and "fc1/fc2" in err


def test_all_decides_every_block_of_a_checkpoint(tmp_path, capsys):
    """``absorb FILE --all`` (s44): every MLP block of a weight file (a transformer checkpoint
    holds one per layer; a single prefix had to be chosen, one run each), one line each and a
    summary; exit 0 only when all are absorbable, 1 when one is not, 3 otherwise; one
    certificate per block in the --certificate directory, each VALID and each the verdict's."""
    up, down = [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]          # block B: absorbable
    arrays = {"model.layers.0.mlp.up_proj.weight": up, "model.layers.0.mlp.down_proj.weight": down,
              "model.layers.1.mlp.up_proj.weight": [[1, 0], [0, 1]],          # 2x2 identity pair:
              "model.layers.1.mlp.down_proj.weight": [[1, 0], [0, 1]]}       # not absorbable
    path = tmp_path / "llama.npz"
    np.savez(path, **{k: np.array(v, dtype=np.float32) for k, v in arrays.items()})
    certs = tmp_path / "certs"
    assert main(["absorb", str(path), "--activation", "relu", "--all", "--certificate", str(certs)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{path}: 2 MLP blocks (relu): 1 absorbable, 1 not absorbable, 0 undecided"
    assert out[1].startswith("model.layers.0.mlp.: absorbable [")
    assert out[3] == f"  certificate: {certs / 'model.layers.0.mlp.json'}"     # (each block's file
    assert out[4].startswith("model.layers.1.mlp.: not absorbable [")          # named: s47 audit)
    assert out[-1] == (f"certificates: 2 in {certs}/ (one per decided block, named after its "
                       "prefix: each block's line names its file)")
    assert sorted(p.name for p in certs.iterdir()) == ["model.layers.0.mlp.json", "model.layers.1.mlp.json"]
    for name, claim in (("model.layers.0.mlp.json", "flip of S = [0, 1]"), ("model.layers.1.mlp.json", "")):
        ok, why = verify(json.loads((certs / name).read_text()))
        assert ok and why.startswith(claim)
    # the same blocks one by one agree
    assert main(["absorb", str(path), "--activation", "relu", "--prefix", "model.layers.0.mlp."]) == 0
    assert main(["absorb", str(path), "--activation", "relu", "--prefix", "model.layers.1.mlp."]) == 1
    capsys.readouterr()
    assert main(["absorb", str(path), "--activation", "relu", "--all", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert [(b["prefix"], b["verdict"], b["d"], b["k"]) for b in data["blocks"]] == [
        ("model.layers.0.mlp.", "absorbable", 2, 3), ("model.layers.1.mlp.", "not absorbable", 2, 2)]
    assert (data["absorbable"], data["not_absorbable"], data["undecided"], data["answer"]) == (1, 1, 0, False)
    js = _write(tmp_path / "b.json", {"activation": "relu", "w_up": up, "w_down": down})
    np.savez(path, **{k: np.array(v, dtype=np.float32) for k, v in arrays.items() if ".0." in k})
    assert main(["absorb", str(path), "--activation", "relu", "--all"]) == 0         # all absorbable
    capsys.readouterr()
    for argv, msg in ((["--all"], "pass --activation"),
                      (["--activation", "relu", "--all", "--prefix", "model.layers.0.mlp."], "--prefix chooses one"),
                      (["--activation", "relu", "--all", "--certificate", str(js)], "names a directory")):
        assert main(["absorb", str(path), *argv]) == 2
        err = capsys.readouterr().err
        assert msg in err and err.count("\n") == 1
    assert main(["absorb", js, "--all"]) == 2 and "leave --all out" in capsys.readouterr().err


def test_all_audit_fixes_fc3_collisions_int8_and_info(tmp_path, capsys):
    """s44 blocks audit: F0 fc1/fc2 beside an fc3 is a network, not a block (decided as the
    block fc1/fc2 before, fc3 dropped); F1 two prefixes with one certificate name ('' and
    'block.') keep two files; F8 int8 block weights get the quantised-codes note; F5/F6 info
    names unreadable blocks and the gate."""
    from algebra.io.blocks import find_blocks
    w = lambda *s: np.ones(s, dtype=np.float32)                           # noqa: E731
    fc3 = tmp_path / "fc3.npz"
    np.savez(fc3, **{"fc1.weight": w(5, 3), "fc2.weight": w(3, 5), "fc3.weight": w(2, 3)})
    assert main(["absorb", str(fc3), "--activation", "relu"]) == 2
    assert "no MLP block found" in capsys.readouterr().err
    assert main(["absorb", str(fc3), "--activation", "relu", "--all"]) == 2
    assert find_blocks({"fc1.weight": (5, 3), "fc2.weight": (3, 5), "fc3.weight": (2, 3)},
                       include_fc=True) == []
    up, down = [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]          # absorbable
    col = tmp_path / "col.npz"
    np.savez(col, **{"up_proj.weight": np.array(up, dtype=np.float32),
                     "down_proj.weight": np.array(down, dtype=np.float32),
                     "block.up_proj.weight": w(2, 2), "block.down_proj.weight": w(2, 2)})
    certs = tmp_path / "certs"
    main(["absorb", str(col), "--activation", "relu", "--all", "--certificate", str(certs), "--json"])
    rows = json.loads(capsys.readouterr().out)["blocks"]
    paths = [r["certificate"] for r in rows]
    assert len(set(paths)) == 2 and sorted(p.name for p in certs.iterdir()) == ["block.1.json", "block.json"]
    for r in rows:                  # each file is its own block's certificate, with its verdict
        cert = json.loads(open(r["certificate"]).read())
        assert verify(cert)[0] and (r["verdict"] == "absorbable") == ("flip" in verify(cert)[1])
    i8 = tmp_path / "i8.npz"
    np.savez(i8, **{"l.0.mlp.up_proj.weight": np.array(up, dtype=np.int8),
                    "l.0.mlp.down_proj.weight": np.array(down, dtype=np.int8)})
    assert main(["absorb", str(i8), "--activation", "relu", "--all"]) == 0
    assert "int8 tensors read as the integers stored" in capsys.readouterr().err
    assert main(["info", str(i8)]) == 0
    assert "note: int8 tensors read as the integers stored" in capsys.readouterr().out
    bad = tmp_path / "bad.npz"                       # a bias of the wrong length: unreadable
    np.savez(bad, **{"m.0.up_proj.weight": w(4, 2), "m.0.down_proj.weight": w(2, 4),
                     "m.1.up_proj.weight": w(4, 2), "m.1.down_proj.weight": w(2, 4),
                     "m.1.up_proj.bias": w(7)})
    assert main(["info", str(bad)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("2 MLP blocks, 1 of them unreadable (the reason beside each), the other read")
    assert out[2] == "  m.1.  up_proj/down_proj: m.1.up_proj.bias has shape (7,), expected (4,)"
    assert main(["absorb", str(bad), "--activation", "relu", "--all"]) == 2
    capsys.readouterr()
    t5 = tmp_path / "t5g.npz"
    p = "block.0.layer.1.DenseReluDense."
    np.savez(t5, **{p + "wi_0.weight": w(4, 2), p + "wi_1.weight": w(4, 2), p + "wo.weight": w(2, 4)})
    assert main(["info", str(t5)]) == 0
    out = capsys.readouterr().out
    assert "or, gated, x + W_down (g(W_gate x) ⊙ W_up x)" in out
    assert "DenseReluDense.wi_1/DenseReluDense.wi_0 (the gate)/DenseReluDense.wo" in out


def test_all_rerun_audit_named_first_last_layers_and_gates(tmp_path, capsys):
    """s44 blocks audit, second round: F0b fc1/fc2 or net.0/net.2 inside a network with a
    first or last layer named so (input, head, fc_out) is that network, not a block (its third
    layer was dropped without a word); numbered fc1/fc2 blocks beside a head stay blocks;
    F9 a gated block under an ungated --activation is refused before any block is decided."""
    from algebra.io.blocks import find_blocks
    w = lambda *s: np.ones(s, dtype=np.float32)                            # noqa: E731
    for keys in ({"fc1.weight": (5, 3), "fc2.weight": (3, 5), "head.weight": (2, 3)},
                 {"fc1.weight": (5, 3), "fc2.weight": (3, 5), "fc_out.weight": (2, 3)},
                 {"input.weight": (3, 3), "fc1.weight": (5, 3), "fc2.weight": (3, 5)},
                 {"net.0.weight": (5, 3), "net.2.weight": (3, 5), "head.weight": (2, 3)}):
        assert find_blocks(keys, include_fc=True) == []
        path = tmp_path / "n.npz"
        np.savez(path, **{k: w(*v) for k, v in keys.items()})
        assert main(["absorb", str(path), "--activation", "relu"]) == 2
        assert "no MLP block found" in capsys.readouterr().err
    keys = {"l.0.fc1.weight": (5, 3), "l.0.fc2.weight": (3, 5), "l.1.fc1.weight": (5, 3),
            "l.1.fc2.weight": (3, 5)}                       # numbered pairs alone: blocks
    assert [b["prefix"] for b in find_blocks(keys, include_fc=True)] == ["l.0.", "l.1."]
    keys["head.weight"] = (2, 3)      # with a head and nothing of a transformer: a network (N1)
    assert find_blocks(keys, include_fc=True) == []
    keys["l.0.self_attn.q_proj.weight"] = (3, 3)           # a transformer's: its MLP blocks
    assert [b["prefix"] for b in find_blocks(keys, include_fc=True)] == ["l.0.", "l.1."]
    for extra in ({"bn.weight": (3,), "bn.running_mean": (3,), "head.weight": (2, 3)},   # N1
                  {"scale": (1,), "out.weight": (2, 3)}, {"fc3.weight_orig": (2, 3), "fc3.weight_mask": (2, 3)},
                  {"conv.weight": (3, 1, 3, 3)}, {"linear.weight": (2, 3)}):
        keys = {"fc1.weight": (5, 3), "fc2.weight": (3, 5), **extra}
        assert find_blocks(keys, include_fc=True) == [], extra
    path = tmp_path / "n1.npz"
    np.savez(path, **{"fc1.weight": w(5, 3), "fc2.weight": w(3, 5), "out.weight": w(2, 3), "scale": w(1)})
    assert main(["absorb", str(path), "--activation", "relu", "--all"]) == 2
    assert ("fc1/fc2 are two layers of a network here, not a block: the file has other layers "
            "(out.weight)") in capsys.readouterr().err
    late = tmp_path / "late.npz"
    np.savez(late, **{"m.0.up_proj.weight": w(4, 2), "m.0.down_proj.weight": w(2, 4),
                      "m.1.up_proj.weight": w(4, 2), "m.1.gate_proj.weight": w(4, 2),
                      "m.1.down_proj.weight": w(2, 4)})
    certs = tmp_path / "c"
    assert main(["absorb", str(late), "--activation", "relu", "--all", "--certificate", str(certs)]) == 2
    err = capsys.readouterr().err
    assert "m.1.: a gated block (up_proj/gate_proj/down_proj): use a gated activation" in err
    assert not certs.exists()


def test_a_closed_stdout_keeps_the_verdicts_exit_code():
    """``netfibers absorb … | head -1`` under ``set -o pipefail`` (s44 blocks audit F10): a reader
    that closed the pipe made every command exit 0, even for "not absorbable"; the verdict's code
    stays, and nothing is said on stderr."""
    import subprocess
    import sys
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for block, code in (("block_P5b_reglu.json", 1), ("block_B.json", 0)):
        p = subprocess.Popen([sys.executable, "-m", "netfibers", "absorb",
                              str(root / "algebra" / "examples" / block), "--json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=root)
        p.stdout.close()                             # the reader is gone before the answer
        err = p.stderr.read().decode()
        assert p.wait() == code and err == ""
