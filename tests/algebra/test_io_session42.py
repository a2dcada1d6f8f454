"""Readers: session 42's formats audit (each test names its finding)."""

import numpy as np
import pytest

from algebra.exceptions import InputError
from algebra.io import load
from tests.algebra.test_io import assert_net_equals_floats, one_line, random_layers


def test_onnx_transpose_of_an_initializer_is_applied_exactly(tmp_path):
    """F1: torch.onnx.export without constant folding writes a bias-free Linear as
    MatMul(x, Transpose(W)); it was refused as "not a chain".  The transposed initializer is
    the stored numbers permuted: read exactly, the network the floats say."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    layers = random_layers((3, 4, 2), seed=11, bias=False)
    (W0, _), (W1, _) = layers
    inits = [numpy_helper.from_array(W0, "W0"), numpy_helper.from_array(W1, "W1")]
    nodes = [helper.make_node("Transpose", ["W0"], ["W0t"]),          # perm omitted: reversed
             helper.make_node("MatMul", ["input", "W0t"], ["z0"]),
             helper.make_node("Relu", ["z0"], ["r0"]),
             helper.make_node("Transpose", ["W1"], ["W1t"], perm=[1, 0]),
             helper.make_node("MatMul", ["r0", "W1t"], ["z1"])]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [None, 3])],
                              [helper.make_tensor_value_info("z1", TensorProto.FLOAT, [None, 2])], inits)
    path = tmp_path / "t.onnx"
    onnx.save(helper.make_model(graph), str(path))
    assert_net_equals_floats(load(path), layers)
    bad = [helper.make_node("Transpose", ["W0"], ["W0t"], perm=[0, 0])] + nodes[1:]
    graph = helper.make_graph(bad, "net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [None, 3])],
                              [helper.make_tensor_value_info("z1", TensorProto.FLOAT, [None, 2])], inits)
    onnx.save(helper.make_model(graph), str(path))
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, "t.onnx", "perm")


def test_a_training_checkpoint_of_any_size_is_read(tmp_path):
    """F2: {"model_state_dict": ..., "optimizer_state_dict": ..., "epoch", "loss", "config"}
    (five entries) was refused naming model_state_dict "not a tensor"."""
    torch = pytest.importorskip("torch")
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    path = tmp_path / "ckpt.pt"
    torch.save({"model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
                "epoch": 3, "loss": 0.25, "config": {"lr": 0.1}}, path)
    layers = [(model[0].weight.detach().numpy(), model[0].bias.detach().numpy()),
              (model[2].weight.detach().numpy(), model[2].bias.detach().numpy())]
    assert_net_equals_floats(load(path), layers)
    torch.save({"net": model.state_dict(), "epoch": 3}, path)       # one dict of tensors, any name
    assert_net_equals_floats(load(path), layers)
    torch.save({"net": model.state_dict(), "ema": model.state_dict(), "epoch": 3}, path)
    with pytest.raises(InputError) as info:                          # two, none named: which?
        load(path)
    one_line(info, "ckpt.pt", "several dicts of tensors", "'net', 'ema'")


def save_arrays(path, arrays):
    """*arrays* (name -> numpy array) written to *path* in the format its suffix names (a torch
    state_dict, safetensors or npz); *path*."""
    fmt = path.suffix[1:]
    if fmt == "pt":
        torch = pytest.importorskip("torch")
        torch.save({k: torch.from_numpy(v) for k, v in arrays.items()}, path)
    elif fmt == "safetensors":
        pytest.importorskip("safetensors.numpy").save_file(arrays, str(path))
    else:
        np.savez(path, **arrays)
    return path


@pytest.mark.parametrize("fmt", ["pt", "safetensors", "npz"])
def test_adjacent_sequential_linears_are_refused_not_read_with_a_relu(tmp_path, fmt):
    """F3 (a silent mis-read): Sequential(Linear(3, 5), ReLU, Linear(5, 4), Linear(4, 2)) has
    keys 0, 2, 3: nothing sits between 2 and 3, yet a ReLU was read there (3-5-4-2, another
    function).  Refused in one line naming both layers; gaps all of 2 (a ReLU module each) or
    all of 1 (a ModuleList, activations in forward) are read as before."""
    rng = np.random.default_rng(3)
    arrays = {"0.weight": rng.standard_normal((5, 3)).astype(np.float32),
              "0.bias": rng.standard_normal(5).astype(np.float32),
              "2.weight": rng.standard_normal((4, 5)).astype(np.float32),
              "2.bias": rng.standard_normal(4).astype(np.float32),
              "3.weight": rng.standard_normal((2, 4)).astype(np.float32),
              "3.bias": rng.standard_normal(2).astype(np.float32)}
    path = save_arrays(tmp_path / f"consec.{fmt}", arrays)
    with pytest.raises(InputError) as info:
        load(path)
    one_line(info, path.name, "layers 2 and 3 are adjacent", "compose")
    ok = {k.replace("3.", "4.", 1) if k.startswith("3.") else k: v for k, v in arrays.items()}
    np.savez(tmp_path / "gaps2.npz", **ok)
    assert load(tmp_path / "gaps2.npz").widths == (3, 5, 4, 2)
    ml = {f"layers.{k[0] if k[0] != '2' else '1'}{k[1:]}".replace("layers.3", "layers.2"): v
          for k, v in arrays.items()}
    np.savez(tmp_path / "modulelist.npz", **ml)
    assert load(tmp_path / "modulelist.npz").widths == (3, 5, 4, 2)
    head = {("head" + k[1:]) if k.startswith("3.") else "body." + k: v for k, v in arrays.items()}
    head = {k.replace("body.2.", "body.3.").replace("body.0.", "body.2."): v for k, v in head.items()}
    head.update({"body.0.weight": rng.standard_normal((3, 3)).astype(np.float32)})
    np.savez(tmp_path / "head.npz", **head)       # body.0, body.2, body.3 and a head: refused
    with pytest.raises(InputError) as info:
        load(tmp_path / "head.npz")
    one_line(info, "layers body.2 and body.3 are adjacent")
    named = {k.replace("0.", "fc1.").replace("2.", "fc2.").replace("3.", "fc4."): v
             for k, v in arrays.items()}
    np.savez(tmp_path / "named.npz", **named)
    assert load(tmp_path / "named.npz").widths == (3, 5, 4, 2)      # fc numbers are names


def test_onnx_flatten_after_a_layer_is_the_identity(tmp_path):
    """F7: Flatten(axis=1) of a layer's output (one row per input already) was refused as
    'supported only first'; it changes nothing there."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    layers = random_layers((3, 4, 2), seed=12)
    (W0, c0), (W1, c1) = layers
    inits = [numpy_helper.from_array(a, n) for a, n in ((W0, "W0"), (c0, "c0"), (W1, "W1"), (c1, "c1"))]
    nodes = [helper.make_node("Flatten", ["input"], ["f0"], axis=1),
             helper.make_node("Gemm", ["f0", "W0", "c0"], ["z0"], transB=1),
             helper.make_node("Relu", ["z0"], ["r0"]),
             helper.make_node("Flatten", ["r0"], ["f1"], axis=1),
             helper.make_node("Gemm", ["f1", "W1", "c1"], ["z1"], transB=1)]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [None, 3])],
                              [helper.make_tensor_value_info("z1", TensorProto.FLOAT, [None, 2])], inits)
    path = tmp_path / "f.onnx"
    onnx.save(helper.make_model(graph), str(path))
    assert_net_equals_floats(load(path), layers)


def test_refusals_name_their_real_cause(tmp_path):
    """F7: a safetensors / JSON / HDF5 file named .pt was called a refused pickle; an empty
    .onnx "0 inputs and 0 outputs"; a Dropout in training mode "unsupported dtype bool"; a graph
    declaring 3 input features before a layer that takes 4 was read as a 4-input network."""
    pytest.importorskip("torch")
    st = tmp_path / "st.pt"
    pytest.importorskip("safetensors.numpy").save_file({"0.weight": np.ones((2, 2), np.float32)}, str(st))
    (tmp_path / "j.pt").write_text('{"format": "netfibers.network"}')
    (tmp_path / "h.pt").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(64))
    for name, words in (("st.pt", "a safetensors file"), ("j.pt", "a JSON file"), ("h.pt", "an HDF5 file")):
        with pytest.raises(InputError) as info:
            load(tmp_path / name)
        one_line(info, name, "not a torch file", words)
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    (tmp_path / "e.onnx").write_bytes(b"")
    with pytest.raises(InputError) as info:
        load(tmp_path / "e.onnx")
    one_line(info, "e.onnx", "empty file")
    (W0, c0), (W1, c1) = random_layers((4, 3, 2), seed=13)
    inits = [numpy_helper.from_array(a, n) for a, n in ((W0, "W0"), (c0, "c0"), (W1, "W1"), (c1, "c1"))]

    def save(nodes, extra=(), features=4, name="g.onnx"):
        graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("input", TensorProto.FLOAT, [None, features])],
                                  [helper.make_tensor_value_info("z1", TensorProto.FLOAT, [None, 2])],
                                  inits + list(extra))
        onnx.save(helper.make_model(graph), str(tmp_path / name))
        return tmp_path / name
    chain = [helper.make_node("Gemm", ["input", "W0", "c0"], ["z0"], transB=1),
             helper.make_node("Relu", ["z0"], ["r0"]),
             helper.make_node("Dropout", ["r0", "ratio", "tm"], ["d0"]),
             helper.make_node("Gemm", ["d0", "W1", "c1"], ["z1"], transB=1)]
    for mode, ok in ((True, False), (False, True)):
        extra = [numpy_helper.from_array(np.array(0.5, np.float32), "ratio"),
                 numpy_helper.from_array(np.array(mode), "tm")]
        path = save(chain, extra)
        if ok:
            assert_net_equals_floats(load(path), [(W0, c0), (W1, c1)])
        else:
            with pytest.raises(InputError) as info:
                load(path)
            one_line(info, "g.onnx", "Dropout in training mode")
    plain = [chain[0], chain[1], helper.make_node("Gemm", ["r0", "W1", "c1"], ["z1"], transB=1)]
    with pytest.raises(InputError) as info:
        load(save(plain, features=3))
    one_line(info, "g.onnx", "declared with 3 features but the first layer takes 4")
