"""Blocks: native JSON (round trip, one-line errors naming file/field/index), evaluation,
Hyper-Connection vectorization (skip-absorption §2.3) and state_dict readers."""

import json

import numpy as np
import pytest

from algebra import load
from algebra.blocks import Block, BlockStack, HyperConnectionBlock
from algebra.io.blocks import block_from_dict, block_from_tensors, load_block
from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.rationals import Q, from_float

B = {"format": "netfibers.block", "version": 1, "activation": "relu",
     "w_up": [[1, 0], [0, 1], [1, 1]], "w_down": [[-1, 0, 2], [0, -1, 3]], "skip": "identity"}


def test_round_trip_and_equality():
    b = block_from_dict(B)
    assert (b.d, b.k, b.skip) == (2, 3, "identity")
    assert block_from_dict(json.loads(json.dumps(b.to_dict()))) == b
    c = block_from_dict(dict(B, skip=[[1, "1/2"], [0, "0.25"]], b_up=[1, 2, "-1/3"], b_down=[0, 1]))
    assert c.skip_matrix == QMatrix.from_rows([[1, "1/2"], [0, "1/4"]])
    assert c.b_up == (1, 2, Q(-1, 3)) and c.has_nonzero_biases
    assert block_from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert c != b and hash(block_from_dict(B)) == hash(b)
    g = block_from_dict({"activation": "swiglu", "w_gate": [[1]], "w_up": [[2]], "w_down": [[3]]})
    assert g.w_gate == QMatrix.from_rows([[1]]) and block_from_dict(g.to_dict()) == g


def test_exact_evaluation():
    b = block_from_dict(B)
    # x + W_down relu(W_up x) at (1, -2): relu((1, -2, -1)) = (1, 0, 0)
    assert b([1, -2]) == (Q(0), Q(-2))
    r2 = Block("relu^2", [[1]], [[1]])
    assert r2([2]) == (6,) and r2([-1]) == (-1,)
    reglu = Block("reglu", [[1]], [[1]], w_gate=[[1]], b_down=["1/2"])
    assert reglu([3]) == (Q(25, 2),)
    with pytest.raises(InputError, match="cannot be evaluated exactly"):
        Block("gelu", [[1]], [[1]])([1])


def test_stack_and_activation_default():
    s = block_from_dict({"format": "netfibers.block", "activation": "relu",
                         "blocks": [{"w_up": [[1]], "w_down": [[1]]},
                                    {"activation": "relu^2", "w_up": [[1]], "w_down": [[1]], "skip": "none"}]})
    assert isinstance(s, BlockStack) and s.depth == 2
    assert [b.activation.name for b in s.blocks] == ["relu", "relu^2"]
    assert s([1]) == (Q(4),)            # 1 + 1 = 2, then 2^2 = 4
    assert block_from_dict(s.to_dict()) == s


def test_hyper_connection_vectorization():
    mlp = {"activation": "relu", "w_up": [[1, -1], [2, 1]], "w_down": [[1, 0], ["1/2", -1]]}
    hc = block_from_dict(dict(mlp, format="netfibers.block", streams=2, mix_residual=[[1, 2], [0, 1]],
                              mix_read=[1, "1/3"], mix_write=[2, -1]))
    assert isinstance(hc, HyperConnectionBlock) and block_from_dict(hc.to_dict()) == hc
    v = hc.vectorized()
    assert (v.d, v.k) == (4, 2)
    T = Block("relu", mlp["w_up"], mlp["w_down"], skip="none")
    Ar = [[1, 2], [0, 1]]
    H = [[Q(3), Q(-1)], [Q(1, 2), Q(2)]]                 # rows = streams
    inp = [H[0][j] + Q(1, 3) * H[1][j] for j in range(2)]   # Hᵀ A_m
    t = T(inp)
    new = [[sum(Ar[s][r] * H[s][j] for s in range(2)) + [2, -1][r] * t[j] for j in range(2)] for r in range(2)]
    assert v([H[0][0], H[0][1], H[1][0], H[1][1]]) == tuple(new[0] + new[1])


@pytest.mark.parametrize("patch,where,problem", [
    ({"activation": "softmax"}, "activation", "unknown activation 'softmax' (supported: "),
    ({"w_down": [[1, 0], [0, 1]]}, "w_down", "row 0 has 2 entries, expected 3"),
    ({"w_down": [[1, 0, 0]]}, "w_down", "expected 2 rows"),
    ({"w_down": [[1, 0, 0], [0, 1]]}, "w_down", "row 1 has 2 entries, expected 3"),
    ({"skip": [[1]]}, "skip", "expected 2 rows"),
    ({"skip": "eye"}, "skip", "skip must be 'identity', 'none'"),
    ({"b_up": [1, 2]}, "b_up", "expected 3 entries"),
    ({"w_up": [[1, 0], [0, "x"], [1, 1]]}, "w_up[1,1]", "not a number"),
    ({"w_gate": [[1, 0], [0, 1], [1, 1]]}, "w_gate", "not gated"),
    ({"color": 1}, None, "unknown field(s) color"),
])
def test_errors_name_file_and_field(patch, where, problem):
    with pytest.raises(InputError) as exc:
        block_from_dict(dict(B, **patch), "blk.json")
    msg = str(exc.value)
    assert "\n" not in msg and msg.startswith("blk.json: ")
    assert problem in msg
    if where:
        assert f": {where}" in msg


def test_errors_inside_stacks_and_gates():
    with pytest.raises(InputError, match=r"s.json: blocks\[1\].w_down"):
        block_from_dict({"blocks": [{"activation": "relu", "w_up": [[1]], "w_down": [[1]]},
                                    {"activation": "relu", "w_up": [[1]], "w_down": [[1, 2]]}]}, "s.json")
    with pytest.raises(InputError, match=r"w_gate.*required"):
        block_from_dict({"activation": "swiglu", "w_up": [[1]], "w_down": [[1]]}, "g.json")
    hc = {k: v for k, v in B.items() if k != "skip"}
    with pytest.raises(InputError, match="h.json: mix_read: missing field"):
        block_from_dict(dict(hc, streams=2, mix_residual=[[1, 0], [0, 1]], mix_write=[1, 1]), "h.json")
    with pytest.raises(InputError, match="h.json: mix_residual"):
        block_from_dict(dict(hc, streams=2, mix_residual=[[1, 0]], mix_read=[1, 1], mix_write=[1, 1]), "h.json")
    with pytest.raises(InputError, match="width d = 2 differs"):
        block_from_dict({"activation": "relu", "blocks": [{"w_up": [[1]], "w_down": [[1]]}, B]}, "s.json")


def _t(arr):
    arr = np.asarray(arr, dtype=np.float32)
    return tuple(arr.shape), [from_float(x) for x in arr.reshape(-1)]


def test_block_from_tensors_layouts():
    up, down = [[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]], [[-1.0, 0.0, 2.0], [0.0, -1.0, 3.0]]
    t = {"fc1.weight": _t(up), "fc1.bias": _t([1, 0, -0.5]), "fc2.weight": _t(down), "fc2.bias": _t([0, 1])}
    b = block_from_tensors(t, activation="relu")
    assert b.w_up == QMatrix.from_rows([["1/2", -1], [2, "1/4"], [1, 1]]) and b.b_up == (1, 0, Q(-1, 2))
    assert b.b_down == (0, 1) and b.skip == "identity"
    t2 = {"model.layers.0.mlp.up_proj.weight": _t(up), "model.layers.0.mlp.down_proj.weight": _t(down),
          "model.layers.0.mlp.gate_proj.weight": _t(up)}
    g = block_from_tensors(t2, activation="swiglu", skip="none")
    assert g.w_gate == g.w_up and g.skip == "none"
    with pytest.raises(InputError, match="gate_proj.weight is present"):
        block_from_tensors(t2, activation="silu")
    bert = {f"encoder.layer.{i}.{n}.weight": _t(w) for i in range(2)
            for n, w in (("intermediate.dense", up), ("output.dense", down), ("attention.output.dense", [[1, 0], [0, 1]]))}
    with pytest.raises(InputError, match="2 MLP blocks found"):
        block_from_tensors(bert, activation="gelu", source="m.safetensors")
    b1 = block_from_tensors(bert, activation="gelu", prefix="encoder.layer.1.")
    assert b1.k == 3 and b1.activation.name == "gelu"
    with pytest.raises(InputError, match="no MLP block found"):
        block_from_tensors({"x.weight": _t(up)}, activation="relu")



def test_t5_feed_forward_blocks_are_read_as_blocks(tmp_path):
    """T5DenseActDense, a feed-forward (``layer.1.DenseReluDense.wi``/``wo``: ReLU, no biases; T5DenseGatedActDense
    ``wi_0``/``wi_1``/``wo``, ``act(wi_0 x) * wi_1 x``) was refused as a network whose layer
    order the names do not tell (s44); now a block, like LLaMA's and BERT's, with the gate
    ``wi_0``, and the network readers point to the block commands."""
    up, down, gate = [[1.0, -1.0], [2.0, 0.5], [0.0, 1.0]], [[1.0, 0.0, -2.0], [0.5, 1.0, 1.0]], \
        [[-1.0, 1.0], [1.0, 1.0], [3.0, 0.0]]
    p = "encoder.block.0.layer.1.DenseReluDense."
    t5 = {p + "wi.weight": _t(up), p + "wo.weight": _t(down)}
    b = block_from_tensors(t5, activation="relu")
    assert b.w_up == QMatrix.from_rows([[1, -1], [2, "1/2"], [0, 1]]) and b.w_gate is None
    assert b.w_down == QMatrix.from_rows([[1, 0, -2], ["1/2", 1, 1]]) and b.b_up is None
    assert b.skip == "identity" and b.activation.name == "relu"
    v11 = {p + "wi_0.weight": _t(gate), p + "wi_1.weight": _t(up), p + "wo.weight": _t(down)}
    g = block_from_tensors(v11, activation="reglu")
    assert g.w_gate == QMatrix.from_rows([[-1, 1], [1, 1], [3, 0]]) and g.w_up == b.w_up
    assert g.w_down == b.w_down and g.activation.is_gated
    from algebra.io.layouts import BlockLayoutError, layer_order
    with pytest.raises(BlockLayoutError, match="an MLP block"):
        layer_order(list(t5), "t5.safetensors")
    path = tmp_path / "t5.npz"
    np.savez(path, **{k: np.asarray(v[1], dtype=float).reshape(v[0]) for k, v in v11.items()})
    assert load_block(path, activation="reglu") == g


def test_load_block_npz(tmp_path):
    path = tmp_path / "mlp.npz"
    np.savez(path, **{"fc1.weight": np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32),
                      "fc2.weight": np.array([[-1.0, 0.0], [0.0, -1.0]], dtype=np.float32)})
    b = load_block(path, activation="gelu")
    assert b == Block("gelu", [[1, 0], [0, 1]], [[-1, 0], [0, -1]])
    with pytest.raises(InputError, match="pass --activation"):
        load_block(path)
    js = tmp_path / "b.json"
    js.write_text(json.dumps(B))
    assert load(js) == block_from_dict(B)
    assert load_block(js, activation="gelu").activation.name == "gelu"


def test_gpt2_conv1d_and_gpt_neo_linear_mlps_are_read_the_way_their_bias_says(tmp_path):
    """``mlp.c_fc``/``mlp.c_proj``: GPT-2's Conv1D stores (in, out) (y = x W + b), GPT-Neo's
    nn.Linear (out, in), under the same names (s44: refused as a network whose layer order the
    names do not tell).  The bias of c_fc (length k) tells which; without it the pair is
    refused, naming both readings — never read one way when it may be the other."""
    from algebra.io.blocks import find_blocks
    from algebra.io.layouts import BlockLayoutError, layer_order
    safetensors = pytest.importorskip("safetensors.numpy")
    rng = np.random.default_rng(5)
    d, k = 3, 5
    w_fc, b_fc = rng.integers(-4, 5, (d, k)) / 4, rng.integers(-4, 5, k) / 8       # Conv1D (in, out)
    w_pr, b_pr = rng.integers(-4, 5, (k, d)) / 4, rng.integers(-4, 5, d) / 8
    gpt2 = {"h.0.mlp.c_fc.weight": w_fc, "h.0.mlp.c_fc.bias": b_fc, "h.0.mlp.c_proj.weight": w_pr,
            "h.0.mlp.c_proj.bias": b_pr, "h.0.attn.c_attn.weight": rng.standard_normal((d, 3 * d)),
            "h.0.attn.c_proj.weight": rng.standard_normal((d, d)), "h.0.ln_2.weight": np.ones(d)}
    path = tmp_path / "gpt2.safetensors"
    safetensors.save_file({n: np.ascontiguousarray(v, dtype=np.float32) for n, v in gpt2.items()}, str(path))
    b = load_block(path, activation="gelu")
    assert b.w_up == QMatrix.from_rows([[from_float(float(v)) for v in row] for row in w_fc.T])
    assert b.w_down == QMatrix.from_rows([[from_float(float(v)) for v in row] for row in w_pr.T])
    assert b.b_up == tuple(from_float(float(v)) for v in b_fc) and (b.d, b.k) == (d, k)
    shapes = {n: v.shape for n, v in gpt2.items()}
    assert [(x["prefix"], x["layout"], x["d"], x["k"], x["problem"]) for x in find_blocks(shapes)] == \
        [("h.0.mlp.", "c_fc/c_proj (Conv1D, stored (in, out))", d, k, None)]
    with pytest.raises(BlockLayoutError, match="prefix 'h.0.mlp.'"):
        layer_order(list(gpt2), str(path))
    neo = {"h.0.mlp.c_fc.weight": w_fc.T, "h.0.mlp.c_fc.bias": b_fc, "h.0.mlp.c_proj.weight": w_pr.T,
           "h.0.mlp.c_proj.bias": b_pr}                                 # nn.Linear (out, in)
    safetensors.save_file({n: np.ascontiguousarray(v, dtype=np.float32) for n, v in neo.items()}, str(path))
    assert load_block(path, activation="gelu") == b                     # the same block
    for bad in ({"h.0.mlp.c_fc.weight": w_fc, "h.0.mlp.c_proj.weight": w_pr},           # no bias
                {"h.0.mlp.c_fc.weight": np.eye(3), "h.0.mlp.c_fc.bias": np.ones(3),     # square
                 "h.0.mlp.c_proj.weight": np.eye(3)}):
        safetensors.save_file({n: np.ascontiguousarray(v, dtype=np.float32) for n, v in bad.items()}, str(path))
        with pytest.raises(InputError, match="stored \\(in, out\\) as GPT-2's Conv1D or \\(out, in\\)"):
            load_block(path, activation="gelu")
        assert find_blocks({n: v.shape for n, v in bad.items()})[0]["problem"].startswith(
            "h.0.mlp.c_fc.weight has shape")


def test_gpt_neox_bloom_falcon_mlps_are_read_as_blocks():
    """``mlp.dense_h_to_4h``/``dense_4h_to_h`` (GPT-NeoX/Pythia, BLOOM, Falcon: nn.Linear, (out,
    in)) were refused as a network of unknown layer order (s44)."""
    from algebra.io.blocks import find_blocks
    from algebra.io.layouts import BlockLayoutError, layer_order
    up, down = [[1.0, -1.0], [2.0, 0.5], [0.0, 1.0]], [[1.0, 0.0, -2.0], [0.5, 1.0, 1.0]]
    t = {f"gpt_neox.layers.{i}.mlp.{n}.{w}": _t(v) for i in (0, 1)
         for n, w, v in (("dense_h_to_4h", "weight", up), ("dense_h_to_4h", "bias", [1, 0, -1]),
                         ("dense_4h_to_h", "weight", down), ("dense_4h_to_h", "bias", [0, 2]))}
    b = block_from_tensors(t, activation="gelu", prefix="gpt_neox.layers.1.mlp.")
    assert b.w_up == QMatrix.from_rows([[1, -1], [2, "1/2"], [0, 1]]) and b.b_up == (1, 0, -1)
    assert b.w_down == QMatrix.from_rows([[1, 0, -2], ["1/2", 1, 1]]) and b.b_down == (0, 2)
    found = find_blocks({n: v[0] for n, v in t.items()})
    assert [(x["prefix"], x["layout"], x["d"], x["k"]) for x in found] == [
        (f"gpt_neox.layers.{i}.mlp.", "dense_h_to_4h/dense_4h_to_h", 2, 3) for i in (0, 1)]
    with pytest.raises(BlockLayoutError, match="2 MLP blocks"):
        layer_order(list(t))


def test_a_conv1d_pair_that_does_not_fit_names_the_shapes_stored():
    """s44 blocks audit F4: a Conv1D c_fc (3, 5) + bias (5,) beside a c_proj stored (3, 5) was
    refused naming the transposed shapes, "(5, 3) does not fit … (5, 3)", as if stored so."""
    from algebra.io.blocks import find_blocks
    t = {"h.0.mlp.c_fc.weight": _t(np.ones((3, 5))), "h.0.mlp.c_fc.bias": _t(np.ones(5)),
         "h.0.mlp.c_proj.weight": _t(np.ones((3, 5)))}
    with pytest.raises(InputError, match=r"shape \(3, 5\) does not fit h.0.mlp.c_fc.weight of "
                                         r"shape \(3, 5\): expected \(5, 3\) \(in, out, GPT-2's Conv1D\)"):
        block_from_tensors(t, activation="relu")
    (b,) = find_blocks({n: v[0] for n, v in t.items()})
    assert b["problem"] == ("h.0.mlp.c_proj.weight has shape (3, 5), h.0.mlp.c_fc.weight (3, 5) "
                            "(GPT-2's Conv1D, stored (in, out)): not a block")


def test_mixtral_experts_are_gated_blocks_and_generic_w1_w2_w3_are_not():
    """Mixtral's experts (``block_sparse_moe.experts.N.w1/w2/w3``: w2(act(w1 x) * w3 x), w1 the
    gate, s44) are read as gated blocks; the same names outside ``experts.N.`` are the usual
    names of a plain network's layers and are not taken as a block."""
    from algebra.io.blocks import find_blocks
    up, gate, down = [[1.0, -1.0], [2.0, 0.5], [0.0, 1.0]], [[-1.0, 1.0], [1.0, 1.0], [3.0, 0.0]], \
        [[1.0, 0.0, -2.0], [0.5, 1.0, 1.0]]
    p = "model.layers.0.block_sparse_moe.experts.1."
    t = {p + "w1.weight": _t(gate), p + "w3.weight": _t(up), p + "w2.weight": _t(down),
         "model.layers.0.block_sparse_moe.gate.weight": _t([[1.0, 0.0]])}
    b = block_from_tensors(t, activation="swiglu")
    assert b.w_gate == QMatrix.from_rows([[-1, 1], [1, 1], [3, 0]])
    assert b.w_up == QMatrix.from_rows([[1, -1], [2, "1/2"], [0, 1]])
    assert b.w_down == QMatrix.from_rows([[1, 0, -2], ["1/2", 1, 1]])
    (f,) = find_blocks({n: v[0] for n, v in t.items()})
    assert (f["prefix"], f["layout"], f["gated"]) == (p, "w3/w1 (the gate)/w2", True)
    plain = {"w1.weight": _t(gate), "w3.weight": _t(up), "w2.weight": _t(down)}
    assert find_blocks({n: v[0] for n, v in plain.items()}, include_fc=True) == []
    with pytest.raises(InputError, match="no MLP block found"):
        block_from_tensors(plain, activation="swiglu")
