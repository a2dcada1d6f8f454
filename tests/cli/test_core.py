"""``netfibers convert``, ``info``, ``eval``: exact results, and every bad input gives one line on
stderr, exit 2, no traceback, nothing written."""

import json
import pickle
import struct
from decimal import Decimal
from fractions import Fraction

import pytest

from semialgebraic.cli import main

np = pytest.importorskip("numpy")
safetensors_numpy = pytest.importorskip("safetensors.numpy")




def assert_input_error(run, argv, *words):
    code, out, err = run(*argv)
    assert code == 2, (code, out, err)
    assert err.startswith("netfibers: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and out == ""
    for w in words:
        assert w in err, (w, err)
    return err


def float32_model(tmp_path, widths=(3, 4, 2), seed=0, name="m.safetensors"):
    rng = np.random.default_rng(seed)
    tensors = {}
    for l, (a, b) in enumerate(zip(widths, widths[1:])):
        tensors[f"{2 * l}.weight"] = (rng.standard_normal((b, a)) * 10.0 ** rng.integers(-5, 2, (b, a))).astype(np.float32)
        tensors[f"{2 * l}.bias"] = rng.standard_normal(b).astype(np.float32)
    path = tmp_path / name
    safetensors_numpy.save_file(tensors, str(path))
    return path, tensors


def as_fraction(x):
    assert not isinstance(x, float), x  # the JSON holds no binary float
    return Fraction(x)


# -- convert ------------------------------------------------------------------------------------------------
def test_convert_float32_safetensors_every_number_equals_its_float(tmp_path, capsys, run):
    path, tensors = float32_model(tmp_path)
    out = tmp_path / "m.json"
    code, stdout, err = run("convert", path, "-o", out, "--json")
    assert code == 0 and err == ""
    assert json.loads(stdout)["output"] == str(out)
    data = json.loads(out.read_text(), parse_float=Decimal)
    assert data["format"] == "netfibers.network" and data["activation"] == "relu"
    for l, layer in enumerate(data["layers"]):
        W, b = tensors[f"{2 * l}.weight"], tensors[f"{2 * l}.bias"]
        assert [[as_fraction(x) for x in r] for r in layer["weight"]] == [[Fraction(float(w)) for w in r] for r in W]
        assert [as_fraction(x) for x in layer["bias"]] == [Fraction(float(v)) for v in b]
    # and back to float32 losslessly
    back = tmp_path / "back.safetensors"
    assert run("convert", out, "-o", back)[0] == 0
    ref = safetensors_numpy.load_file(str(back))
    for key, arr in tensors.items():
        assert ref[key].dtype == np.float32 and np.array_equal(ref[key], arr)


def test_convert_refuses_inexact_float_output_and_writes_nothing(tmp_path, capsys, run):
    src = tmp_path / "n.json"
    src.write_text(json.dumps({"layers": [{"weight": [[1, "1/3"]], "bias": [0]}]}))
    err = assert_input_error(run, ["convert", src, "-o", tmp_path / "o.safetensors"],
                             "W1[0,1] = 1/3 is not exactly representable as float32")
    assert "o.safetensors" in err
    assert not (tmp_path / "o.safetensors").exists()
    assert run("convert", src, "-o", tmp_path / "o.json")[0] == 0


# -- info and eval --------------------------------------------------------------------------------------------
def test_info_values(tmp_path, capsys, run):
    src = tmp_path / "n.json"
    src.write_text(json.dumps({"layers": [{"weight": [[1, "-1/1024"], [3, 0]], "bias": [0, "255/7"]},
                                          {"weight": [[2, 1]]}]}))
    code, out, _ = run("info", src, "--json")
    assert code == 0
    assert json.loads(out) == {"widths": [2, 2, 1], "depth": 2, "hidden_widths": [2], "n_parameters": 9,
                               "activation": "relu", "max_numerator_bits": 8, "max_denominator_bits": 11}
    code, out, _ = run("info", src)
    assert code == 0 and out.startswith("widths 2-2-1 (depth 2, 9 parameters")


def test_eval_exact_values(tmp_path, capsys, run):
    path, tensors = float32_model(tmp_path)
    W1, b1 = [[Fraction(float(w)) for w in r] for r in tensors["0.weight"]], [Fraction(float(v)) for v in tensors["0.bias"]]
    W2, b2 = [[Fraction(float(w)) for w in r] for r in tensors["2.weight"]], [Fraction(float(v)) for v in tensors["2.bias"]]
    x = [Fraction(-1), Fraction(1, 3), Fraction(5, 2)]
    h = [max(sum(w * v for w, v in zip(r, x)) + c, 0) for r, c in zip(W1, b1)]
    y = [sum(w * v for w, v in zip(r, h)) + c for r, c in zip(W2, b2)]
    for spelled in ("-1,1/3,2.5", "[-1, 1/3, 25e-1]", "-1, 1/3, 5/2"):
        code, out, err = run("eval", path, "--x", spelled, "--json")
        assert code == 0, err
        data = json.loads(out)
        assert [Fraction(v) for v in data["x"]] == x
        assert [Fraction(v) for v in data["output"]] == y
    code, out, _ = run("eval", path, "--x=-1,1/3,5/2", "--exact")
    assert code == 0 and [Fraction(t) for t in out.strip().split(", ")] == y
    code, out, _ = run("--exact", "eval", path, "--x=-1,1/3,5/2")   # global form
    assert code == 0 and [Fraction(t) for t in out.strip().split(", ")] == y
    # without --exact: long rationals as correctly rounded decimals, marked, with the note
    code, out, _ = run("eval", path, "--x=-1,1/3,5/2")
    first, note = out.strip().split("\n")
    assert code == 0 and note.startswith("(≈: decimal approximation; exact rationals in --json")
    for t, v in zip(first.split(", "), y):
        if t.startswith("≈"):
            assert len(f"{v.numerator}/{v.denominator}") > 12
            exact = Fraction(v)
            assert abs(Fraction(Decimal(t[1:])) - exact) <= abs(exact) * Fraction(5, 10 ** 5)
        else:
            assert Fraction(t) == v
    data_file = tmp_path / "d.json"
    data_file.write_text(json.dumps({"inputs": [["-1", "1/3", 2.5], [0, 0, 0]]}))
    code, out, _ = run("eval", path, "--data", data_file, "--json")
    assert code == 0
    assert [Fraction(v) for v in json.loads(out)["outputs"][0]] == y


# -- every bad input: one line, exit 2, file named ----------------------------------------------------------------
def bad_files(tmp_path):
    """name -> (file, words expected in the message)."""
    files = {}

    def text(name, content, *words):
        p = tmp_path / name
        p.write_text(content)
        files[name] = (p, words)

    text("bad.json", '{"layers": [', "bad.json", "malformed JSON")
    text("shape.json", json.dumps({"layers": [{"weight": [[1, 2], [3]], "bias": [0, 0]}]}), "shape.json", "row 1 has 1 entries")
    text("chain.json", json.dumps({"layers": [{"weight": [[1, 2]]}, {"weight": [[1, 2]]}]}), "chain.json", "layer 2")
    text("nan.json", '{"layers": [{"weight": [[NaN]]}]}', "nan.json", "NaN")
    text("inf.json", json.dumps({"layers": [{"weight": [["inf"]]}]}), "inf.json", "infinit")
    text("act.json", json.dumps({"activation": "gelu", "layers": [{"weight": [[1]]}]}), "act.json", "unknown activation 'gelu'")
    text("word.json", json.dumps({"layers": [{"weight": [["one"]]}]}), "word.json", "not a number")
    text("empty.json", "", "empty.json", "malformed JSON")
    text("list.json", "[1, 2]", "list.json", "expected a JSON object")
    rng = np.random.default_rng(1)
    W = rng.standard_normal((2, 2)).astype(np.float32)
    W[1, 0] = np.nan
    p = tmp_path / "nan.safetensors"
    safetensors_numpy.save_file({"0.weight": W}, str(p))
    files["nan.safetensors"] = (p, ("nan.safetensors", "0.weight", "NaN", "[1,0]"))
    p = tmp_path / "shape.npz"
    np.savez(p, W1=np.ones((2, 3)), W2=np.ones((1, 3)))
    files["shape.npz"] = (p, ("shape.npz", "W2", "3 input columns"))
    good, _ = float32_model(tmp_path, name="good.safetensors")
    p = tmp_path / "trunc.safetensors"
    p.write_bytes(good.read_bytes()[:-9])
    files["trunc.safetensors"] = (p, ("trunc.safetensors", "truncated"))
    p = tmp_path / "trunc.npz"
    np.savez(p, W1=np.ones((2, 3)))
    p.write_bytes(p.read_bytes()[:50])
    files["trunc.npz"] = (p, ("trunc.npz", "not a readable .npz"))
    p = tmp_path / "header.safetensors"
    p.write_bytes(struct.pack("<Q", 5) + b"{oops")
    files["header.safetensors"] = (p, ("header.safetensors", "corrupt"))
    p = tmp_path / "pickled.pt"
    p.write_bytes(pickle.dumps({"0.weight": [[1.0]]}))
    files["pickled.pt"] = (p, ("pickled.pt",))
    p = tmp_path / "weights.pkl"
    p.write_bytes(b"x")
    files["weights.pkl"] = (p, ("weights.pkl", "unknown file type"))
    files["missing.json"] = (tmp_path / "missing.json", ("missing.json", "no such file"))
    return files


NAMES = ["bad.json", "shape.json", "chain.json", "nan.json", "inf.json", "act.json", "word.json", "empty.json",
         "list.json", "nan.safetensors", "shape.npz", "trunc.safetensors", "trunc.npz", "header.safetensors",
         "pickled.pt", "weights.pkl", "missing.json"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("command", ["convert", "info", "eval"])
def test_bad_inputs_exit_2_one_line_nothing_written(tmp_path, capsys, name, command, run):
    path, words = bad_files(tmp_path)[name]
    before = sorted(p.name for p in tmp_path.iterdir())
    argv = {"convert": ["convert", path, "-o", tmp_path / "out.json"],
            "info": ["info", path, "--json"],
            "eval": ["eval", path, "--x", "1"]}[command]
    assert_input_error(run, argv, *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_pickled_torch_module_is_refused(tmp_path, capsys, run):
    torch = pytest.importorskip("torch")
    path = tmp_path / "module.pt"
    torch.save(torch.nn.Sequential(torch.nn.Linear(2, 2)), path)
    assert_input_error(run, ["info", path], "module.pt", "weights_only=True", "nothing was executed")


@pytest.mark.parametrize("x, words", [
    ("1", ["--x", "expected 3 coordinates, got 1"]),
    ("1,2,3,4", ["expected 3 coordinates, got 4"]),
    ("1,abc,2", ["'abc'", "not a number"]),
    ("1,,2", ["empty string"]),
    ("1,nan,2", ["NaN"]),
    ("1,inf,2", ["infinit"]),
    ("1,1/0,2", ["zero denominator"]),
    ("", ["expected 3 coordinates, got 0"]),
    ("1;2;3", ["not a number"]),
])
def test_eval_bad_x(tmp_path, capsys, x, words, run):
    path, _ = float32_model(tmp_path)
    assert_input_error(run, ["eval", path, f"--x={x}"], *words)


def test_usage_errors(tmp_path, capsys, run):
    path, _ = float32_model(tmp_path)
    for argv in (["eval", path], ["eval", path, "--x"], ["convert", path], ["info"],
                 ["eval", path, "--x", "1,2,3", "--data", "d.json"], ["convert", path, "-o", tmp_path / "o.json", "--dtype", "int8"]):
        with pytest.raises(SystemExit) as info:
            main([str(a) for a in argv])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "error" in err, err
    assert_input_error(run, ["convert", path, "-o", tmp_path / "o.txt"], "o.txt", "convert writes")
    assert_input_error(run, ["convert", path, "-o", tmp_path], "is a directory")
    data = tmp_path / "d.json"
    data.write_text(json.dumps({"inputs": [[1, 2]]}))
    assert_input_error(run, ["eval", path, "--data", data], "d.json", "expected 3 entries")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.json", "m.safetensors"]


# -- issue 17: block files, layouts, messages ---------------------------------------------------
def _block_file(tmp_path, name="b.safetensors", prefixes=("",), names=("up_proj", "down_proj")):
    t = {}
    for p in prefixes:
        t[f"{p}{names[1]}.weight"] = np.ones((4, 16), np.float32)
        t[f"{p}{names[0]}.weight"] = np.ones((16, 4), np.float32)
        t[f"{p}{names[0]}.bias"] = np.ones(16, np.float32)
    path = tmp_path / name
    safetensors_numpy.save_file(t, str(path))
    return path


def test_info_on_an_up_down_file_says_block_and_convert_refuses(capsys, tmp_path, run):
    path = _block_file(tmp_path)
    code, out, err = run("info", path)
    assert code == 0 and err == ""
    assert out.splitlines()[0].startswith("1 MLP block, each read as one block")
    assert "(no prefix)  up_proj/down_proj: d=4, k=16, with biases" in out
    code, out, _ = run("info", path, "--json")
    assert json.loads(out)["blocks"][0]["d"] == 4 and json.loads(out)["blocks"][0]["k"] == 16
    assert_input_error(run, ["convert", path, "-o", tmp_path / "o.json"], "MLP block", "not a network")
    assert not (tmp_path / "o.json").exists()
    assert_input_error(run, ["eval", path, "--x", "1,2,3,4"], "MLP block")


def test_info_lists_the_blocks_of_a_transformer_checkpoint(capsys, tmp_path, run):
    path = _block_file(tmp_path, prefixes=[f"encoder.layer.{i}." for i in range(3)],
                       names=("intermediate.dense", "output.dense"))
    code, out, _ = run("info", path)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("3 MLP blocks") and "--prefix" in lines[0]
    assert lines[1:] == [f"  encoder.layer.{i}.  intermediate.dense/output.dense: d=4, k=16, with biases"
                         for i in range(3)]


def test_info_fc1_fc2_network_by_default_block_with_flag(capsys, tmp_path, run):
    path = _block_file(tmp_path, names=("fc1", "fc2"))
    code, out, _ = run("info", path)
    assert code == 0 and out.startswith("widths 4-16-4 ")
    assert "(out, in)" in out and "fc1.weight, fc2.weight" in out
    code, out, _ = run("info", path, "--block")
    assert code == 0 and "fc1/fc2: d=4, k=16" in out


def test_layer_order_refused_with_keys_and_sklearn_layout_read(capsys, tmp_path, run):
    path = tmp_path / "x.npz"
    np.savez(path, **{"hidden.weight": np.ones((2, 2), np.float32),
                      "final_layer.weight": np.ones((1, 2), np.float32)})
    assert_input_error(run, ["info", path], "cannot tell the order", "hidden.weight",
                       "final_layer.weight")
    path = tmp_path / "sk.npz"
    np.savez(path, W1=np.ones((64, 32), np.float32), b1=np.ones(32, np.float32),
             W2=np.ones((32, 10), np.float32), b2=np.ones(10, np.float32))
    code, out, _ = run("info", path)
    assert code == 0 and out.startswith("widths 64-32-10 ") and "(in, out)" in out


def test_json_nan_names_its_location(capsys, tmp_path, run):
    path = tmp_path / "n.json"
    path.write_text('{"layers": [{"weight": [[1, 2]]}, {"weight": [[1, NaN]]}]}')
    assert_input_error(run, ["info", path], "layers[1].weight[0][1]", "NaN")


def test_truncated_torch_file_is_one_line_without_state_dict_advice(capsys, tmp_path, run):
    torch = pytest.importorskip("torch")
    path = tmp_path / "t.pt"
    torch.save({"0.weight": torch.ones(2, 2)}, path)
    path.write_bytes(path.read_bytes()[:200])
    code, out, err = run("convert", path, "-o", tmp_path / "o.json")
    assert code == 2 and err.count("\n") == 1 and "truncated or corrupt" in err
    assert "state_dict" not in err and not (tmp_path / "o.json").exists()


# -- convert --dtype float16: the float16 copy every issue-15 benchmark compares with -------------
def test_convert_dtype_float16_rounds_as_numpy_and_diff_certifies_a_small_gap(tmp_path, run):
    """Each parameter of the copy is the exact rational of numpy.float16(the float32 value)
    (nearest, ties to even; subnormals, and exact float16 midpoints planted), in every output
    format; ``diff`` against the original certifies a small positive maximum."""
    path, tensors = float32_model(tmp_path, widths=(2, 5, 1), seed=3)
    w = tensors["0.weight"]
    w[0, 0] = np.float32(1 + 2 ** -11)            # a tie: rounds down to 1 (even significand)
    w[1, 0] = np.float32(1 + 3 * 2 ** -11)        # a tie: rounds up to 1 + 2^-9
    w[2, 0] = np.float32(3 * 2 ** -26)            # subnormal range: rounds to 2^-24
    w[3, 1] = np.float32(2 ** -26)                # below half the least subnormal: 0
    safetensors_numpy.save_file(tensors, str(path))
    out = tmp_path / "m16.json"
    code, text, _ = run("convert", str(path), "-o", str(out), "--dtype", "float16")
    assert code == 0 and "rounded to the nearest float16" in text
    layers = json.loads(out.read_text())["layers"]
    for l, layer in enumerate(layers):
        for key, got in (("weight", layer["weight"]), ("bias", [layer["bias"]])):
            want = tensors[f"{2 * l}.{key}"].reshape(len(got), -1).astype(np.float16)
            assert [[Fraction(v) for v in row] for row in got] == \
                [[Fraction(float(v)) for v in row] for row in want]
    assert [Fraction(v) for v in layers[0]["weight"][0][:1] + layers[0]["weight"][1][:1]] == \
        [1, 1 + Fraction(1, 2 ** 9)]
    assert Fraction(layers[0]["weight"][2][0]) == Fraction(1, 2 ** 24) and layers[0]["weight"][3][1] == 0
    for suffix in (".npz", ".safetensors"):       # stored as float16, read back to the same values
        binary = tmp_path / f"m16{suffix}"
        assert run("convert", str(path), "-o", str(binary), "--dtype", "float16")[0] == 0
        back = tmp_path / f"back{suffix}.json"
        assert run("convert", str(binary), "-o", str(back))[0] == 0
        assert json.loads(back.read_text())["layers"] == layers
    assert np.load(tmp_path / "m16.npz")["0.weight"].dtype == np.float16
    code, text, _ = run("diff", str(path), str(out), "--box=-1,1", "--json")
    data = json.loads(text)
    assert code == 0 and data["complete"] is True
    assert 0 < Fraction(data["lower"]) == Fraction(data["upper"]) < Fraction(1, 100)


def test_convert_dtype_float16_refuses_an_overflow_and_writes_nothing(tmp_path, run):
    net = tmp_path / "big.json"
    net.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                               "layers": [{"weight": [[65520]], "bias": [0]}]}))
    out = tmp_path / "big16.json"
    assert_input_error(run, ["convert", str(net), "-o", str(out), "--dtype", "float16"],
                       "overflows float16")
    assert not out.exists()
