"""Issue 17 (1, 2): the layer order of a weight file comes from what its key names mean, never
from sorting text; MLP-block names are read as blocks; sklearn/Keras (in, out) layouts are
recognised when the shapes leave no doubt.  Every naming scheme is checked against the shapes,
in .npz and .safetensors files built here, and every value read back is compared exactly."""

from fractions import Fraction

import pytest

from algebra import load
from algebra.exceptions import InputError
from algebra.io.arrays import read_shapes
from algebra.io.layouts import BlockLayoutError, layer_order, orient_layers
from algebra.io.blocks import find_blocks, load_block

np = pytest.importorskip("numpy")

SUFFIXES = (".npz", ".safetensors")


def write(path, tensors):
    tensors = {k: np.ascontiguousarray(v) for k, v in tensors.items()}
    if path.suffix == ".npz":
        np.savez(path, **tensors)
    else:
        from algebra.io.arrays import _safetensors_bytes
        path.write_bytes(_safetensors_bytes(tensors))
    return path


def chain(widths, seed=0):
    """Float32 weights (out, in) and biases of a net with these widths, with distinct values."""
    rng = np.random.default_rng(seed)
    ws = [(rng.integers(-40, 40, size=(n, m)) / 8).astype(np.float32)
          for m, n in zip(widths, widths[1:])]
    bs = [(rng.integers(-40, 40, size=n) / 4).astype(np.float32) for n in widths[1:]]
    return ws, bs


def assert_same(net, ws, bs):
    assert len(net.weights) == len(ws)
    for W, w, b, bias in zip(net.weights, ws, net.biases, bs):
        assert W.shape == w.shape
        assert [[Fraction(int(x.p), int(x.q)) for x in r] for r in W.to_rows()] == \
            [[Fraction(float(v)) for v in r] for r in w]
        assert [Fraction(int(x.p), int(x.q)) for x in b] == [Fraction(float(v)) for v in bias]


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("names", [
    [f"{2 * i}" for i in range(6)],                 # nn.Sequential 0, 2, …, 10: 10 after 8
    [f"net.{2 * i}" for i in range(6)],
    [f"fc{i + 1}" for i in range(6)],               # fc1 … fc6
    [f"layers.{i}" for i in range(6)],
    ["input"] + [f"hidden{i}" for i in range(1, 5)] + ["output"],
    [f"layers.{i}" for i in range(5)] + ["head"],
])
def test_numbered_names_give_the_numeric_order(tmp_path, suffix, names):
    widths = [3, 5, 4, 6, 2, 7, 2]
    ws, bs = chain(widths)
    tensors = {}
    for name, w, b in zip(reversed(names), reversed(ws), reversed(bs)):   # stored in reverse
        tensors[f"{name}.weight"] = w
        tensors[f"{name}.bias"] = b
    net = load(write(tmp_path / f"n{suffix}", tensors))
    assert net.widths == tuple(widths)
    assert_same(net, ws, bs)
    assert "(out, in)" in net.provenance[0]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_ten_layers_sequential_order_is_numeric_not_lexical(tmp_path, suffix):
    widths = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 1]
    ws, bs = chain(widths, 1)
    tensors = {f"{2 * i}.weight": w for i, w in enumerate(ws)}
    tensors.update({f"{2 * i}.bias": b for i, b in enumerate(bs)})
    net = load(write(tmp_path / f"n{suffix}", dict(sorted(tensors.items()))))   # "10" < "2"
    assert net.widths == tuple(widths)
    assert_same(net, ws, bs)


@pytest.mark.parametrize("suffix", SUFFIXES)
@pytest.mark.parametrize("w, b", [("W", "b"), ("w", "b"), ("W_", "b_")])
def test_w1_b1_names(tmp_path, suffix, w, b):
    widths = [4, 3, 3, 2, 2, 2, 2, 2, 2, 2, 2, 3]   # 11 layers: W10, W11 after W9
    ws, bs = chain(widths, 2)
    tensors = {f"{w}{i + 1}": x for i, x in enumerate(ws)}
    tensors.update({f"{b}{i + 1}": x for i, x in enumerate(bs)})
    net = load(write(tmp_path / f"n{suffix}", dict(sorted(tensors.items()))))
    assert_same(net, ws, bs)


def test_lone_weight_and_keras_names(tmp_path):
    ws, bs = chain([3, 2], 3)
    net = load(write(tmp_path / "one.npz", {"weight": ws[0], "bias": bs[0]}))
    assert_same(net, ws, bs)
    # Keras: dense, dense_1, dense_2 with (in, out) kernels
    ws, bs = chain([3, 4, 5, 2], 4)
    tensors = {}
    for name, w, b in zip(["dense", "dense_1", "dense_2"], ws, bs):
        tensors[f"{name}/kernel:0"] = w.T
        tensors[f"{name}/bias:0"] = b
    net = load(write(tmp_path / "keras.safetensors", tensors))
    assert_same(net, ws, bs)
    assert "(in, out)" in net.provenance[0]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_sklearn_coefs_in_by_out(tmp_path, suffix):
    ws, bs = chain([64, 32, 16, 10], 5)
    tensors = {f"coefs_{i}": w.T for i, w in enumerate(ws)}
    tensors.update({f"intercepts_{i}": b for i, b in enumerate(bs)})
    net = load(write(tmp_path / f"sk{suffix}", tensors))
    assert net.widths == (64, 32, 16, 10)
    assert_same(net, ws, bs)
    assert "sklearn" in net.provenance[0]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_w1_b1_stored_in_by_out_is_recognised_from_the_shapes(tmp_path, suffix):
    ws, bs = chain([64, 32, 16, 10], 6)
    tensors = {f"W{i + 1}": w.T for i, w in enumerate(ws)}
    tensors.update({f"b{i + 1}": b for i, b in enumerate(bs)})
    net = load(write(tmp_path / f"t{suffix}", tensors))
    assert net.widths == (64, 32, 16, 10)
    assert_same(net, ws, bs)
    assert "only that layout fits the shapes" in net.provenance[0]


def test_shapes_that_fit_no_layout_say_how_to_fix(tmp_path):
    path = write(tmp_path / "bad.npz", {"W1": np.zeros((4, 3), np.float32),
                                         "b1": np.zeros(5, np.float32)})
    with pytest.raises(InputError, match=r"fit neither weight layout.*W1 \(4, 3\) bias \(5,\).*W\.T"):
        load(path)


def test_orient_prefers_the_naming_when_both_fit():
    assert orient_layers([(3, 3), (3, 3)], [3, 3], False)[0] is False
    assert orient_layers([(3, 3), (3, 3)], [3, 3], True)[0] is True


@pytest.mark.parametrize("keys", [
    ["hidden.weight", "final_layer.weight"],
    ["encoder.0.weight", "decoder.0.weight"],
    ["a.weight", "b.weight", "a.bias"],
])
def test_undeterminable_order_is_refused_with_the_keys(tmp_path, keys):
    with pytest.raises(InputError, match="cannot tell the order of the layers") as e:
        layer_order(keys, "f.npz")
    for k in keys:
        assert k in str(e.value)
    path = write(tmp_path / "x.npz", {k: np.ones((2, 2), np.float32) if k.endswith("weight")
                                      else np.ones(2, np.float32) for k in keys})
    with pytest.raises(InputError, match="cannot tell the order"):
        load(path)


def test_batchnorm_statistics_in_a_state_dict_are_refused(tmp_path):
    t = {"0.weight": np.ones((2, 2), np.float32), "1.weight": np.ones(2, np.float32),
         "1.bias": np.ones(2, np.float32), "1.running_mean": np.ones(2, np.float32),
         "1.running_var": np.ones(2, np.float32), "3.weight": np.ones((1, 2), np.float32)}
    with pytest.raises(InputError, match="BatchNorm.*from_torch"):
        load(write(tmp_path / "bn.npz", t))


# -- MLP blocks ------------------------------------------------------------------------------------
def block_tensors(d, k, prefix="", gated=False, bias=True, names=("up_proj", "down_proj", "gate_proj")):
    rng = np.random.default_rng(d * 100 + k)
    t = {f"{prefix}{names[0]}.weight": (rng.integers(-8, 8, (k, d)) / 4).astype(np.float32),
         f"{prefix}{names[1]}.weight": (rng.integers(-8, 8, (d, k)) / 4).astype(np.float32)}
    if gated:
        t[f"{prefix}{names[2]}.weight"] = (rng.integers(-8, 8, (k, d)) / 4).astype(np.float32)
    if bias:
        t[f"{prefix}{names[0]}.bias"] = (rng.integers(-8, 8, k) / 2).astype(np.float32)
        t[f"{prefix}{names[1]}.bias"] = (rng.integers(-8, 8, d) / 2).astype(np.float32)
    return t


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_up_down_file_is_a_block_not_a_network(tmp_path, suffix):
    t = block_tensors(6, 24)          # down_proj sorts before up_proj: once read as 24-6-24
    path = write(tmp_path / f"b{suffix}", t)
    with pytest.raises(BlockLayoutError, match="an MLP block.*not a network"):
        load(path)
    b = load_block(path, activation="gelu")
    assert (b.d, b.k) == (6, 24)
    x = b.w_up.to_rows()[0][0]
    assert Fraction(int(x.p), int(x.q)) == Fraction(float(t["up_proj.weight"][0, 0]))
    assert find_blocks(read_shapes(path)) == [
        {"prefix": "", "layout": "up_proj/down_proj", "d": 6, "k": 24, "gated": False, "bias": True,
         "problem": None}]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_gated_block_file(tmp_path, suffix):
    path = write(tmp_path / f"g{suffix}", block_tensors(4, 8, "model.mlp.", gated=True, bias=False))
    with pytest.raises(BlockLayoutError):
        load(path)
    b = load_block(path, activation="swiglu")
    assert (b.d, b.k, b.w_gate.shape) == (4, 8, (8, 4))
    assert find_blocks(read_shapes(path))[0]["layout"] == "up_proj/gate_proj/down_proj"


def test_transformer_checkpoint_lists_its_blocks(tmp_path):
    t = {"embeddings.word_embeddings.weight": np.zeros((30, 8), np.float32)}
    for i in range(3):
        p = f"encoder.layer.{i}."
        t[f"{p}attention.self.query.weight"] = np.zeros((8, 8), np.float32)
        t.update(block_tensors(8, 32, p, names=("intermediate.dense", "output.dense", None)))
        t[f"{p}output.LayerNorm.weight"] = np.ones(8, np.float32)
    path = write(tmp_path / "bert.safetensors", t)
    with pytest.raises(BlockLayoutError) as e:
        load(path)
    assert e.value.prefixes == ("encoder.layer.0.", "encoder.layer.1.", "encoder.layer.2.")
    found = find_blocks(read_shapes(path))
    assert [(b["prefix"], b["d"], b["k"], b["layout"]) for b in found] == [
        (f"encoder.layer.{i}.", 8, 32, "intermediate.dense/output.dense") for i in range(3)]
    b = load_block(path, activation="gelu", prefix="encoder.layer.1.")
    assert (b.d, b.k) == (8, 32)


def test_fc1_fc2_is_a_network_unless_asked_for_a_block(tmp_path):
    t = block_tensors(3, 7, names=("fc1", "fc2", None))
    path = write(tmp_path / "fc.npz", t)
    net = load(path)
    assert net.widths == (3, 7, 3)
    assert find_blocks(read_shapes(path)) == []
    assert find_blocks(read_shapes(path), include_fc=True)[0]["layout"] == "fc1/fc2"
    assert load_block(path, activation="relu").k == 7
