"""Readers and writers: every stored float is read back as exactly ``Fraction(float(w))``; every
malformed input is refused with one line naming the file (and tensor/index)."""

import json
import pickle
import struct
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from algebra import load, save
from algebra.exceptions import InputError, MissingDependencyError
from algebra.io.arrays import load_binary, read_tensors, save_binary
from algebra.io.exact import exact_qmatrix
from algebra.network import Network

np = pytest.importorskip("numpy")
safetensors_numpy = pytest.importorskip("safetensors.numpy")


def frac(q):
    return Fraction(int(q.p), int(q.q))


def random_layers(widths, dtype=np.float32, seed=0, bias=True):
    rng = np.random.default_rng(seed)
    layers = []
    for a, b in zip(widths, widths[1:]):
        W = (rng.standard_normal((b, a)) / np.sqrt(a)).astype(dtype)
        c = (rng.standard_normal(b) * 0.1).astype(dtype) if bias else None
        layers.append((W, c))
    return layers


def assert_net_equals_floats(net, layers):
    """Every weight equals Fraction(float(w)) of the stored value; a missing bias is zero."""
    assert net.depth == len(layers)
    for (W, c), Wq, bq in zip(layers, net.weights, net.biases):
        assert Wq.shape == W.shape
        assert [frac(x) for x in Wq.entries()] == [Fraction(float(w)) for w in W.reshape(-1)]
        expected_b = [Fraction(float(v)) for v in c] if c is not None else [Fraction(0)] * W.shape[0]
        assert [frac(x) for x in bq] == expected_b


def one_line(exc_info, *words):
    msg = str(exc_info.value)
    assert "\n" not in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


# -- readers: exact values ---------------------------------------------------------------------------------
def test_safetensors_sequential_float32(tmp_path):
    layers = random_layers((5, 4, 3, 2))
    tensors = {}
    for l, (W, c) in enumerate(layers):
        tensors[f"{2 * l}.weight"], tensors[f"{2 * l}.bias"] = W, c
    path = tmp_path / "m.safetensors"
    safetensors_numpy.save_file(tensors, str(path))
    net = load(path)
    assert net.widths == (5, 4, 3, 2)
    assert_net_equals_floats(net, layers)


def test_npz_named_layers_natural_order_and_missing_bias(tmp_path):
    layers = random_layers((3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2), seed=1)  # fc1 … fc11
    arrays = {f"fc{l + 1}.weight": W for l, (W, _) in enumerate(layers)}
    arrays.update({f"fc{l + 1}.bias": c for l, (_, c) in enumerate(layers) if l % 2 == 0})
    path = tmp_path / "m.npz"
    np.savez(path, **arrays)
    net = load(path)
    assert net.widths == (3,) + (4,) * 10 + (2,)  # fc10 after fc9, not after fc1
    assert_net_equals_floats(net, [(W, c if l % 2 == 0 else None) for l, (W, c) in enumerate(layers)])


@pytest.mark.parametrize("names", [
    ["layers.0", "layers.1", "layers.2"],
    ["net.0", "net.2", "net.4"],
    # numbers, not text (10 after 2); 11 after 10 would be two adjacent modules of a Sequential
    # whose other layers have one between them: refused since session 42 (test_io_session42.py)
    ["model.layers.2", "model.layers.10", "model.layers.12"],
])
def test_prefixed_layouts(tmp_path, names):
    layers = random_layers((2, 3, 3, 1), seed=2)
    tensors = {}
    for name, (W, c) in zip(names, layers):
        tensors[f"{name}.weight"], tensors[f"{name}.bias"] = W, c
    path = tmp_path / "m.safetensors"
    safetensors_numpy.save_file(tensors, str(path))
    assert_net_equals_floats(load(path), layers)


@pytest.mark.parametrize("start, wname, bname", [(1, "W", "b"), (0, "W", "b"), (1, "w", "B")])
def test_w1_b1_layout(tmp_path, start, wname, bname):
    layers = random_layers((3, 2, 2), dtype=np.float64, seed=3)
    arrays = {}
    for l, (W, c) in enumerate(layers, start=start):
        arrays[f"{wname}{l}"], arrays[f"{bname}{l}"] = W, c
    path = tmp_path / "m.npz"
    np.savez(path, **arrays)
    assert_net_equals_floats(load(path), layers)


def test_single_linear_layer_keys(tmp_path):
    (W, c), = random_layers((3, 2), seed=4)
    path = tmp_path / "lin.safetensors"
    safetensors_numpy.save_file({"weight": W, "bias": c}, str(path))
    assert_net_equals_floats(load(path), [(W, c)])


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int32, np.uint8, np.int64])
def test_every_dtype_is_exact(tmp_path, dtype):
    rng = np.random.default_rng(5)
    if np.dtype(dtype).kind == "f":
        W = (rng.standard_normal((3, 4)) * 10.0 ** rng.integers(-6, 4, (3, 4))).astype(dtype)
    else:
        info = np.iinfo(dtype)
        W = rng.integers(info.min, info.max, (3, 4), dtype=dtype, endpoint=True)
    path = tmp_path / "m.safetensors"
    safetensors_numpy.save_file({"0.weight": W}, str(path))
    net = load(path)
    assert [frac(x) for x in net.weights[0].entries()] == [Fraction(int(w)) if np.dtype(dtype).kind != "f"
                                                           else Fraction(float(w)) for w in W.reshape(-1)]


def test_bfloat16_safetensors_is_exact(tmp_path):
    bits = np.array([0x3FC0, 0xBF80, 0x0001, 0x7F7F, 0x0000, 0x8000, 0x3DCC], dtype=np.uint16)
    as_f32 = (bits.astype(np.uint32) << 16).view(np.float32)
    header = json.dumps({"0.weight": {"dtype": "BF16", "shape": [1, 7], "data_offsets": [0, 14]}}).encode()
    path = tmp_path / "bf.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + bits.astype("<u2").tobytes())
    net = load(path)
    assert [frac(x) for x in net.weights[0].entries()] == [Fraction(float(v)) for v in as_f32]
    assert frac(net.weights[0][0, 0]) == Fraction(3, 2) and frac(net.weights[0][0, 2]) == Fraction(1, 2 ** 133)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=30),
       st.sampled_from([np.float16, np.float32, np.float64]))
def test_exact_matrix_matches_from_float_on_any_values(values, dtype):
    # mixes of tiny, huge, subnormal and zero values: the fast decomposition equals Fraction(float(w))
    with np.errstate(over="ignore"):
        arr = np.array(values, dtype=np.float32).astype(dtype).reshape(1, -1)
    if not np.isfinite(arr).all():
        with pytest.raises(InputError, match="infinity"):
            exact_qmatrix(arr, "t", "f")
        return
    got = exact_qmatrix(arr, "t", "f").entries()
    assert [frac(x) for x in got] == [Fraction(float(v)) for v in arr.reshape(-1)]


def test_extreme_exponent_range_is_exact():
    arr = np.array([[np.finfo(np.float64).max, 5e-324, -1.0, 0.0, -0.0, 2.0 ** -1074 * 3]])
    assert [frac(x) for x in exact_qmatrix(arr, "t", "f").entries()] == [Fraction(float(v)) for v in arr[0]]


# -- ONNX -------------------------------------------------------------------------------------------------------
def onnx_model(path, layers, *, style="gemm", flatten=True, final_relu=False, extra=None):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    nodes, inits = [], []
    d = layers[0][0].shape[1]
    cur = "input"
    if flatten:
        nodes.append(helper.make_node("Flatten", [cur], ["flat"], axis=1))
        cur = "flat"
    for l, (W, c) in enumerate(layers):
        out = f"z{l}"
        if style == "gemm":
            inits.append(numpy_helper.from_array(W, f"W{l}"))
            ins = [cur, f"W{l}"]
            if c is not None:
                inits.append(numpy_helper.from_array(c, f"b{l}"))
                ins.append(f"b{l}")
            nodes.append(helper.make_node("Gemm", ins, [out], transB=1))
        else:  # MatMul with (in, out) weights, then Add
            inits.append(numpy_helper.from_array(np.ascontiguousarray(W.T), f"W{l}"))
            nodes.append(helper.make_node("MatMul", [cur, f"W{l}"], [f"m{l}"]))
            inits.append(numpy_helper.from_array(c, f"b{l}"))
            nodes.append(helper.make_node("Add", [f"m{l}", f"b{l}"], [out]))
        cur = out
        if l < len(layers) - 1 or final_relu:
            nodes.append(helper.make_node("Relu", [cur], [f"r{l}"]))
            cur = f"r{l}"
    if extra:
        nodes.append(helper.make_node(extra, [cur], ["extra"]))
        cur = "extra"
    m = layers[-1][0].shape[0]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [None, d])],
                              [helper.make_tensor_value_info(cur, TensorProto.FLOAT, [None, m])], inits)
    onnx.save(helper.make_model(graph), str(path))
    return path


@pytest.mark.parametrize("style", ["gemm", "matmul"])
def test_onnx_is_exact(tmp_path, style):
    layers = random_layers((4, 5, 3, 2), seed=6)
    net = load(onnx_model(tmp_path / "m.onnx", layers, style=style))
    assert_net_equals_floats(net, layers)
    tensors = read_tensors(tmp_path / "m.onnx")
    assert tensors["W0"][0] == ((4, 5) if style == "matmul" else (5, 4))


def test_onnx_gemm_without_bias(tmp_path):
    layers = random_layers((3, 2, 1), seed=7, bias=False)
    assert_net_equals_floats(load(onnx_model(tmp_path / "m.onnx", layers, flatten=False)), layers)


@pytest.mark.parametrize("kwargs, words", [
    ({"final_relu": True}, "must end with an affine layer"),
    ({"extra": "Sigmoid"}, "unsupported operator 'Sigmoid'"),
])
def test_onnx_refusals(tmp_path, kwargs, words):
    path = onnx_model(tmp_path / "m.onnx", random_layers((3, 2, 1)), **kwargs)
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "m.onnx", words)


def test_onnx_corrupt(tmp_path):
    pytest.importorskip("onnx")
    path = onnx_model(tmp_path / "m.onnx", random_layers((3, 2, 1)))
    path.write_bytes(path.read_bytes()[:40])
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "m.onnx", "not a readable ONNX model")


# -- torch ------------------------------------------------------------------------------------------------------
def test_torch_state_dict_is_exact(tmp_path):
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    path = tmp_path / "m.pt"
    torch.save(model.state_dict(), path)
    net = load(path)
    layers = [(model[0].weight.detach().numpy(), model[0].bias.detach().numpy()),
              (model[2].weight.detach().numpy(), model[2].bias.detach().numpy())]
    assert_net_equals_floats(net, layers)
    x = torch.tensor([[0.5, -1.0, 2.0]])
    assert abs(float(net([Fraction(1, 2), -1, 2])[0]) - float(model(x)[0, 0].detach())) < 1e-5
    # bfloat16 and a named-layer checkpoint under "state_dict"
    sd = {"fc1.weight": model[0].weight.detach().to(torch.bfloat16), "fc2.weight": model[2].weight.detach()}
    torch.save({"state_dict": sd, "epoch": 3}, tmp_path / "c.pth")
    net2 = load(tmp_path / "c.pth")
    assert [frac(x) for x in net2.weights[0].entries()] == [
        Fraction(float(v)) for v in sd["fc1.weight"].to(torch.float32).reshape(-1)]


def test_pickled_object_is_refused_never_executed(tmp_path):
    marker = tmp_path / "executed"

    class Evil:
        def __reduce__(self):
            return (open, (str(marker), "w"))

    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"0.weight": Evil()}))
    with pytest.raises((InputError, MissingDependencyError)) as info:
        load(path)
    one_line(info, "evil.pt")
    assert not marker.exists()
    if isinstance(info.value, InputError):
        one_line(info, "weights_only=True", "nothing was executed")


def test_pickled_module_is_refused(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "module.pt"
    torch.save(torch.nn.Linear(2, 1), path)
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "module.pt", "weights_only=True", "Linear")


def test_npz_object_array_is_refused(tmp_path):
    path = tmp_path / "obj.npz"
    np.savez(path, W1=np.array([[1, "x"]], dtype=object))
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "obj.npz", "W1", "unpickl")


# -- refusals ---------------------------------------------------------------------------------------------------
def write_st(path, tensors):
    safetensors_numpy.save_file(tensors, str(path))
    return path


@pytest.mark.parametrize("value, word", [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")])
def test_nan_inf_name_file_tensor_index(tmp_path, value, word):
    W = np.ones((3, 2), dtype=np.float32)
    W[2, 1] = value
    path = write_st(tmp_path / "bad.safetensors", {"0.weight": W})
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "bad.safetensors", "0.weight", word, "[2,1]")


@pytest.mark.parametrize("tensors, words", [
    ({"0.weight": np.ones((2, 3), np.float32), "2.weight": np.ones((1, 3), np.float32)}, ["2.weight", "3 input columns", "2 outputs"]),
    ({"0.weight": np.ones((2, 3), np.float32), "0.bias": np.ones(3, np.float32)}, ["0.bias", "(2,)"]),
    ({"0.weight": np.ones(3, np.float32)}, ["0.weight", "2-D"]),
    ({"0.weight": np.ones((2, 3, 1), np.float32)}, ["0.weight", "2-D"]),
    ({"0.bias": np.ones(3, np.float32)}, ["0.bias", "without its weight"]),
    ({"bn.running_mean": np.ones(3, np.float32), "0.weight": np.ones((1, 3), np.float32)}, ["bn.running_mean", "unsupported tensor"]),
    ({"W1": np.ones((2, 3), np.float32), "0.weight": np.ones((1, 2), np.float32)}, ["mixes W1/b1"]),
    ({"W1": np.ones((2, 3), np.float32), "W3": np.ones((1, 2), np.float32)}, ["consecutively"]),
    ({"0.weight": np.zeros((0, 3), np.float32)}, ["0.weight", "empty"]),
    ({"0.weight": np.ones((2, 2), np.bool_)}, ["unsupported dtype"]),
])
def test_shape_and_layout_errors_name_the_tensor(tmp_path, tensors, words):
    path = tmp_path / "m.npz"
    np.savez(path, **tensors)
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "m.npz", *words)


def test_empty_file_of_tensors(tmp_path):
    path = tmp_path / "e.npz"
    np.savez(path)
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "e.npz", "no tensors")


@pytest.mark.parametrize("suffix", [".safetensors", ".npz"])
@pytest.mark.parametrize("cut", [3, 20, -7])
def test_truncated_files(tmp_path, suffix, cut):
    layers = random_layers((3, 2, 1))
    net = Network([exact_qmatrix(W, "w", None) for W, _ in layers],
                  [exact_qmatrix(c.reshape(1, -1), "b", None).entries() for _, c in layers])
    path = tmp_path / f"m{suffix}"
    save_binary(net, path)
    data = path.read_bytes()
    path.write_bytes(data[:cut])
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, f"m{suffix}")


@pytest.mark.parametrize("header, words", [
    (b"{not json", "corrupt .safetensors header"),
    (json.dumps({"a": {"dtype": "F8_E4M3", "shape": [1], "data_offsets": [0, 1]}}).encode(), "unsupported dtype 'F8_E4M3'"),
    (json.dumps({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 4]}}).encode(), "do not fit shape"),
    (json.dumps({"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}).encode(), "truncated"),
    (json.dumps([1, 2]).encode(), "not a JSON object"),
])
def test_corrupt_safetensors_headers(tmp_path, header, words):
    path = tmp_path / "c.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header)
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "c.safetensors", words)


def test_huge_header_length_is_refused(tmp_path):
    path = tmp_path / "h.safetensors"
    path.write_bytes(struct.pack("<Q", 2 ** 60) + b"{}")
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "h.safetensors", "truncated")


def test_unknown_suffix_and_missing_file(tmp_path):
    with pytest.raises(InputError) as info:
        load(tmp_path / "nope.safetensors")
    one_line(info, "nope.safetensors", "no such file")
    (tmp_path / "m.pkl").write_bytes(b"x")
    with pytest.raises(InputError) as info:
        load(tmp_path / "m.pkl")
    one_line(info, "m.pkl", "unknown file type")


def test_missing_optional_package_gives_install_hint(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx -> ImportError
    (tmp_path / "m.onnx").write_bytes(b"x")
    with pytest.raises(MissingDependencyError) as info:
        load(tmp_path / "m.onnx")
    one_line(info, "pip install 'netfibers[io]'", "onnx")
    monkeypatch.setitem(sys.modules, "torch", None)
    (tmp_path / "m.pt").write_bytes(b"x")
    with pytest.raises(MissingDependencyError) as info:
        load(tmp_path / "m.pt")
    one_line(info, "pip install 'netfibers[torch]'")
    monkeypatch.setitem(sys.modules, "numpy", None)
    (tmp_path / "m.npz").write_bytes(b"x")
    with pytest.raises(MissingDependencyError) as info:
        load(tmp_path / "m.npz")
    one_line(info, "pip install 'netfibers[io]'", "numpy")


# -- read_tensors and writers -----------------------------------------------------------------------------------
def test_read_tensors_exact(tmp_path):
    a = np.array([[0.1, -2.5e-8, 3.0]], dtype=np.float32)
    path = write_st(tmp_path / "t.safetensors", {"a": a, "n": np.array([[-3, 7]], dtype=np.int16),
                                                 "s": np.array(np.float32(0.5)), "z": np.zeros((2, 0), np.float32)})
    t = read_tensors(path)
    assert t["a"][0] == (1, 3) and [frac(x) for x in t["a"][1]] == [Fraction(float(v)) for v in a[0]]
    assert t["n"] == ((1, 2), [-3, 7])
    assert t["s"][0] == () and [frac(x) for x in t["s"][1]] == [Fraction(1, 2)]
    assert t["z"] == ((2, 0), [])


@pytest.mark.parametrize("suffix", [".safetensors", ".npz"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_save_binary_roundtrip(tmp_path, suffix, dtype):
    net = Network.from_rows([[[1, "1/2"], ["-3/1024", 0]], [["-1/4", 2 ** 100]]], [[0, "1e3"], ["3/8"]])
    path = tmp_path / f"n{suffix}"
    save(net, path, dtype=dtype)
    assert load(path) == net
    if suffix == ".safetensors":  # readable by the reference implementation, with the right values
        ref = safetensors_numpy.load_file(str(path))
        assert ref["2.weight"].dtype == np.dtype(dtype)
        assert [Fraction(float(v)) for v in ref["0.weight"].reshape(-1)] == [1, Fraction(1, 2), Fraction(-3, 1024), 0]
    else:
        with np.load(path) as ref:
            assert sorted(ref.files) == ["0.bias", "0.weight", "2.bias", "2.weight"]


@pytest.mark.parametrize("suffix", [".safetensors", ".npz"])
@pytest.mark.parametrize("value, dtype, where", [
    ("1/3", "float32", "W2[0,1] = 1/3 is not exactly representable as float32"),
    ("1/3", "float64", "W2[0,1] = 1/3 is not exactly representable as float64"),
    (Fraction(2 ** 24 + 1), "float32", "W2[0,1] = 16777217 is not exactly representable as float32"),
    (2 ** 1024, "float64", "is not exactly representable as float64"),
    (Fraction(1, 2 ** 150), "float32", "is not exactly representable as float32"),
    ("0.1", "float64", "W2[0,1] = 1/10 is not"),
])
def test_save_binary_refuses_inexact_and_writes_nothing(tmp_path, suffix, value, dtype, where):
    net = Network.from_rows([[[1, 2], [3, 4]], [[1, 1]]], [[0, 0], [0]]).with_parameter("W2[0,1]", value)
    path = tmp_path / f"n{suffix}"
    with pytest.raises(InputError) as info:
        save_binary(net, path, dtype=dtype)
    one_line(info, f"n{suffix}", where)
    assert not path.exists() and list(tmp_path.iterdir()) == []


def test_save_binary_refusal_keeps_existing_file(tmp_path):
    path = tmp_path / "keep.npz"
    path.write_bytes(b"old")
    net = Network.from_rows([[["1/3"]]], [[0]])
    with pytest.raises(InputError, match=r"W1\[0,0\] = 1/3"):
        save(net, path)
    assert path.read_bytes() == b"old"
    with pytest.raises(InputError, match=r"b1\[0\] = 1/5"):
        save(Network.from_rows([[[1]]], [["1/5"]]), path)
    assert path.read_bytes() == b"old"


def test_json_roundtrip_exact(tmp_path):
    net = Network.from_rows([[[10 ** 100, "-1/3"]], [["2/7"]]], [["1e-3"], [0]])
    save(net, tmp_path / "n.json")
    assert load(tmp_path / "n.json") == net


def test_truncated_torch_file(tmp_path):
    torch = pytest.importorskip("torch")
    path = tmp_path / "t.pt"
    torch.save({"0.weight": torch.ones(2, 2)}, path)
    path.write_bytes(path.read_bytes()[:100])
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "t.pt", "truncated or corrupt", "failed finding central directory")
    assert "state_dict" not in str(info.value)      # the problem is the file, not what it holds


def test_onnx_add_order_row_bias_and_passthrough_nodes(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    (W0, c0), (W1, c1) = random_layers((3, 2, 1), seed=9)
    inits = [numpy_helper.from_array(np.ascontiguousarray(W0.T), "A"), numpy_helper.from_array(c0.reshape(1, -1), "c"),
             numpy_helper.from_array(W1, "B"), numpy_helper.from_array(c1.reshape(1, -1), "d")]
    nodes = [helper.make_node("MatMul", ["x", "A"], ["m"]), helper.make_node("Add", ["c", "m"], ["z"]),
             helper.make_node("Relu", ["z"], ["r"]), helper.make_node("Dropout", ["r"], ["r2"]),
             helper.make_node("Gemm", ["r2", "B", "d"], ["y0"], transB=1), helper.make_node("Identity", ["y0"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])], inits)
    path = tmp_path / "g.onnx"
    onnx.save(helper.make_model(graph), str(path))
    assert_net_equals_floats(load(path), [(W0, c0), (W1, c1)])


def test_onnx_branching_graph_is_refused(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    W = np.ones((2, 2), np.float32)
    nodes = [helper.make_node("Gemm", ["x", "W"], ["a"], transB=1), helper.make_node("Relu", ["a"], ["r"]),
             helper.make_node("Add", ["r", "x"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2])],
                              [numpy_helper.from_array(W, "W")])
    path = tmp_path / "skip.onnx"
    onnx.save(helper.make_model(graph), str(path))
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "skip.onnx", "Add")


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int16])
def test_batch_evaluation_of_a_loaded_network_uses_its_integers_exactly(tmp_path, dtype):
    # the reader hands its integer arrays to the batch path; results must not depend on it
    rng = np.random.default_rng(11)
    tensors = {"0.weight": (rng.standard_normal((40, 30)) * 4).astype(dtype),
               "0.bias": (rng.standard_normal(40)).astype(dtype),
               "2.weight": (rng.standard_normal((3, 40)) * 1e-3).astype(dtype)}
    if np.dtype(dtype).kind == "f":
        tensors["0.weight"][0, :3] = [1e-7, 0, -3e4]  # wide exponent range
    path = write_st(tmp_path / "m.safetensors", tensors)
    net = load(path)
    X = exact_qmatrix((rng.standard_normal((200, 30))).astype(np.float32), "x", None)
    fresh = Network.from_parameters(net.widths, net.parameters())  # no integer arrays kept
    expected = fresh.evaluate_batch(X, method="flint")
    assert net.evaluate_batch(X, method="limbs") == expected
    assert net.evaluate_batch(X, method="auto") == expected
    assert fresh.evaluate_batch(X, method="limbs") == expected
    assert [[frac(v) for v in r] for r in expected.to_rows()[:2]] == [
        [frac(v) for v in net(x)] for x in X.to_rows()[:2]]


def test_a_non_torch_file_named_pt_says_what_it_is_not(tmp_path):
    """torch's legacy reader raises KeyError(101) on foreign bytes; the one line says the file is
    neither a torch.save zip nor a legacy pickle (session 32: it read '… corrupt?): 101')."""
    pytest.importorskip("torch")
    path = tmp_path / "g.pt"
    path.write_bytes(b"hello world, not a torch file")
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "g.pt", "truncated or corrupt", "neither a zip archive (torch.save) nor a legacy torch pickle")
