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


@pytest.mark.parametrize("header", ["1e9999,2,1,2,", "1,1e9999,1,2,", "1,2,1,2,\n2,1e9999,"])
def test_nnet_counts_past_any_network_are_malformed(tmp_path, capsys, header):
    """A .nnet header "1e9999,…" is an integer: the reader went on and failed to print it
    (exit 4, Python's 4 300-digit str limit).  A count above 10^8 is now a malformed header."""
    p = tmp_path / "h.nnet"
    p.write_text(header + "\n2,2,1,\n0,\n-1,0,\n1,4,\n0,2,0,\n2,4,1,\n1,0.5,\n-1,0,\n0.25,\n")
    assert main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: error: {p}: line ") and "a count above 100000000" in err


def test_a_state_dict_of_meta_tensors_is_an_input_error(tmp_path, capsys):
    """A state_dict saved from a model on the meta device (shapes, no values) ended in exit 4
    (NotImplementedError: Cannot copy out of meta tensor)."""
    torch = pytest.importorskip("torch")
    p = tmp_path / "meta.pt"
    torch.save({"0.weight": torch.empty(2, 2, device="meta"), "0.bias": torch.zeros(2)}, p)
    assert main(["info", str(p)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: error: {p}: 0.weight: a meta tensor") and err.count("\n") == 1


def test_negative_workers_is_a_usage_error(pairs, tmp_path, capsys):
    """`search diff … --workers -3` waited for ever (a cluster of -3 workers)."""
    out = tmp_path / "r.jsonl"
    with pytest.raises(SystemExit) as stop:
        main(["batch", "equiv", str(pairs), "--out", str(out), "--workers", "-3"])
    assert stop.value.code == 2 and not out.exists()
    assert "--workers must be non-negative (0: in this process), got -3" in capsys.readouterr().err


def test_safetensors_offsets_must_tile_the_data(tmp_path, capsys):
    """Overlapping data_offsets (W1 pointed at W2's bytes), which the reference library refuses,
    were read and decided ("not equivalent", exit 1): a verdict on a misread network."""
    import struct
    import numpy as np
    W1, b1 = np.array([[1, 2], [3, 4]], np.float32), np.zeros(2, np.float32)
    W2, b2 = np.array([[5, 6]], np.float32), np.zeros(1, np.float32)
    blobs, header, at = [], {}, 0
    for name, arr in (("0.weight", W1), ("0.bias", b1), ("2.weight", W2), ("2.bias", b2)):
        raw = arr.tobytes()
        header[name] = {"dtype": "F32", "shape": list(arr.shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)

    def write(path, head):
        text = json.dumps(head).encode()
        text += b" " * (-len(text) % 8)
        path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
        return str(path)
    good = write(tmp_path / "good.safetensors", header)
    assert main(["info", good]) == 0
    capsys.readouterr()
    bad = json.loads(json.dumps(header))
    bad["0.weight"]["data_offsets"] = [16, 32]            # 2.weight's bytes and beyond
    path = write(tmp_path / "bad.safetensors", bad)
    assert main(["info", path]) == 2
    err = capsys.readouterr().err
    assert "corrupt .safetensors header: data_offsets begin at" in err and err.count("\n") == 1


@pytest.mark.parametrize("command", [["identify"], ["analyze"], ["regions", "--box=-1,1"], ["fiber"],
                                     ["dim"], ["conserved"], ["symmetries"]])
def test_a_fully_pruned_middle_layer_is_refused_in_one_line(tmp_path, capsys, command):
    """widths 2-2-0-1, which the reader keeps: regions/fiber/dim/conserved/plot ended in exit 4,
    identify and analyze in a failed internal certificate check."""
    p = tmp_path / "z.json"
    p.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                             "inputs": 2, "layers": [{"weight": [[1, 0], [0, 1]], "bias": [0, 0]},
                                                     {"weight": [], "bias": []},
                                                     {"weight": [[]], "bias": [3]}]}))
    assert main(["eval", str(p), "--x", "1,2"]) == 0          # it reads, and is the constant 3
    assert capsys.readouterr().out.strip().startswith("3")
    assert main([command[0], str(p), *command[1:]]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: error: {p}: hidden layer 2 has width 0 (fully pruned)")
    assert err.count("\n") == 1


def test_an_output_that_is_an_input_is_refused(tmp_path, capsys):
    """`equiv A B --certificate A` replaced network A by the certificate; `convert X.npz -o
    X.npz --dtype float16` replaced the only copy by a rounded one; `canon X -o X` too."""
    a = tmp_path / "a.json"
    a.write_text(json.dumps(A.to_dict()))
    before = a.read_text()
    for argv in (["equiv", str(a), str(a), "--certificate", str(a)],
                 ["canon", str(a), "-o", str(tmp_path / "." / "a.json")],
                 ["convert", str(a), "-o", str(a)]):
        with pytest.raises(SystemExit) as stop:
            main(argv)
        assert stop.value.code == 2
        assert "is the input file" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["canon", str(a), "-o", str(tmp_path / "c.json"), "--form", str(tmp_path / "c.json")])
    assert "is also the file of -o" in capsys.readouterr().err
    assert a.read_text() == before and not (tmp_path / "c.json").exists()


def test_search_checkpoint_refuses_a_file_that_is_not_one(tmp_path, capsys):
    """`search --checkpoint notes.txt` replaced the user's notes by checkpoint lines."""
    a = tmp_path / "a.json"
    a.write_text(json.dumps(A.to_dict()))
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n")
    assert main(["search", "diff", str(a), str(a), "--box=-1,1", "--workers", "0",
                 "--checkpoint", str(notes)]) == 2
    assert "not a netfibers checkpoint" in capsys.readouterr().err
    assert notes.read_text() == "my notes\n"


@pytest.mark.parametrize("name, text, words", [
    ("t.jsonl", '{"a": "a.json", "b": "a.json", "epsilom": "100"}\n', "unknown column/key 'epsilom'"),
    ("t.csv", "a,b,epsilom\na.json,a.json,100\n", "unknown column/key 'epsilom'"),
    ("d.csv", "a,b,a\na.json,a.json,a.json\n", "the header names column 'a' twice"),
    ("d.jsonl", '{"a": "a.json", "b": "a.json", "a": "a.json"}\n', "key 'a' given twice"),
])
def test_manifest_rows_with_unknown_or_repeated_keys_are_refused(tmp_path, capsys, name, text, words):
    """A misspelt 'epsilom' was ignored and an exact question decided on R^d (exit 0) where the
    user asked for ε = 100 on a box; a repeated column silently used its last value."""
    (tmp_path / "a.json").write_text(json.dumps(A.to_dict()))
    (tmp_path / name).write_text(text)
    out = tmp_path / "r.jsonl"
    assert main(["batch", "equiv", str(tmp_path / name), "--out", str(out), "--workers", "0"]) == 2
    assert words in capsys.readouterr().err and not out.exists()


@pytest.mark.parametrize("timeout", ["1e10", "9e15", "1e308"])
def test_a_huge_timeout_is_no_limit(tmp_path, capsys, timeout):
    """identify/fiber/symmetries/analyze --timeout 1e10 failed with a message about float-range
    weights (the deadline overflowed time_t)."""
    a = tmp_path / "a.json"
    a.write_text(json.dumps(A.to_dict()))
    assert main(["identify", str(a), "--timeout", timeout]) in (0, 1)
    assert "float64" not in capsys.readouterr().err


def test_bottleneck_steps_with_a_fractional_index_are_malformed(tmp_path, capsys):
    """A symmetry_path certificate with "layer": 1.5 or "perm": [1.5, 0] was VALID (int()
    truncated it); `apply` already refused such fields."""
    from algebra.symmetries import step_from_json
    from algebra.exceptions import InputError
    for bad in ({"step": "bottleneck_permute", "layer": 1.5, "perm": [1, 0]},
                {"step": "bottleneck_permute", "layer": 1, "perm": [1.5, 0]},
                {"step": "bottleneck_rescale_layer", "layer": 2.0, "factors": [1, 2]},
                {"step": "S6", "neuron": True, "t": 1}):
        with pytest.raises(InputError, match="must be an integer|must be a list of integers"):
            step_from_json(bad)
    assert step_from_json({"step": "bottleneck_permute", "layer": 1, "perm": [1, 0]}).perm == (1, 0)


def test_a_json_key_given_twice_is_malformed(tmp_path, capsys):
    """Two "weight" keys, or "tanh" then "relu" as the activation: json keeps the last silently."""
    p = tmp_path / "d.json"
    p.write_text('{"format": "netfibers.network", "version": 1, "activation": "tanh", '
                 '"activation": "relu", "layers": [{"weight": [[1]], "bias": [0]}]}')
    assert main(["info", str(p)]) == 2
    assert "the key 'activation' is given twice in one object" in capsys.readouterr().err


def test_json_exponents_that_expand_past_the_limit_are_refused(tmp_path, capsys, monkeypatch):
    """Each "1e9999" is 6 bytes of text and ~8.5 kB of memory: a 3.6 MB file took 3-6 GB before
    any budget.  The exponents' total is checked before parsing."""
    from algebra.io import native
    monkeypatch.setattr(native, "MAX_EXPONENT_DIGITS", 30000)
    p = tmp_path / "e.json"
    row = ", ".join(['"1e9999"'] * 4)
    p.write_text('{"format": "netfibers.network", "version": 1, "activation": "relu", '
                 f'"layers": [{{"weight": [[{row}]], "bias": [0]}}]}}')
    assert main(["info", str(p)]) == 2
    assert "the numbers' exponents add up to 39996 digits (more than 30000" in capsys.readouterr().err
    monkeypatch.setattr(native, "MAX_EXPONENT_DIGITS", 40000)
    assert main(["info", str(p)]) == 0


def test_a_bad_box_file_is_named(tmp_path, capsys):
    a = tmp_path / "a.json"
    a.write_text(json.dumps(A.to_dict()))
    box = tmp_path / "box.json"
    box.write_text('{"box": [[1, 0]]}')
    assert main(["diff", str(a), str(a), "--box", str(box)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"netfibers: error: --box {box}: ") and "exceeds upper bound" in err


def test_regions_max_regions_zero_is_a_usage_error_as_in_diff(tmp_path, capsys):
    a = tmp_path / "a.json"
    a.write_text(json.dumps(A.to_dict()))
    assert main(["regions", str(a), "--max-regions", "0"]) == 2
    assert "--max-regions must be at least 1" in capsys.readouterr().err
    assert main(["regions", str(a), "--max-regions", "1"]) == 3
