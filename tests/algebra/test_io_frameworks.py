"""Issue 17 (8): ``Network.from_torch``, ``Network.from_sklearn``, ``Block.from_torch`` read the
models users hold as objects, exactly; BatchNorm1d folded with its float32 scale (listed in the
provenance); Dropout/Identity/Flatten skipped; anything else refused by name."""

from fractions import Fraction

import pytest

from algebra.blocks import Block
from algebra.exceptions import InputError
from algebra.network import Network

np = pytest.importorskip("numpy")


def fr(x):
    return Fraction(int(x.p), int(x.q))


def rows(M):
    return [[fr(x) for x in r] for r in M.to_rows()]


def exact_rows(t):
    return [[Fraction(float(v)) for v in r] for r in t.detach().double().numpy()]


def exact_vec(t):
    return [Fraction(float(v)) for v in t.detach().double().numpy().reshape(-1)]


@pytest.fixture
def torch():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    return torch


def test_from_torch_sequential_is_exact(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Flatten(), nn.Linear(3, 4), nn.ReLU(), nn.Dropout(0.5),
                          nn.Sequential(nn.Linear(4, 5), nn.ReLU(), nn.Identity()), nn.Linear(5, 2))
    net = Network.from_torch(model)
    assert net.widths == (3, 4, 5, 2)
    linears = [model[1], model[4][0], model[5]]
    for W, b, lin in zip(net.weights, net.biases, linears):
        assert rows(W) == exact_rows(lin.weight)
        assert [fr(x) for x in b] == exact_vec(lin.bias)
    # float64 modules too; 0.1 is taken as the double it denotes, not as 1/10
    lin = nn.Linear(1, 1, bias=False).double()
    with torch.no_grad():
        lin.weight.fill_(0.1)
    net = Network.from_torch(nn.Sequential(lin))
    assert fr(net.weights[0].to_rows()[0][0]) == Fraction(0.1) != Fraction(1, 10)


def test_from_torch_agrees_with_torch_in_float64(torch):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 6), nn.ReLU(), nn.Linear(6, 2)).double()
    net = Network.from_torch(model)
    x = [Fraction(1, 2), Fraction(-3, 4), Fraction(2)]
    with torch.no_grad():
        y = model(torch.tensor([[float(v) for v in x]], dtype=torch.float64))[0]
    exact = [fr(v) for v in net([str(v) for v in x])]
    assert all(abs(float(e) - float(t)) < 1e-12 for e, t in zip(exact, y))


def test_batchnorm_folded_with_its_float32_scale(torch):
    nn = torch.nn
    bn = nn.BatchNorm1d(3)
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([0.5, -1.0, 2.0]))
        bn.running_var.copy_(torch.tensor([2.0, 0.25, 3.0]))    # √(2 + ε) is irrational
        bn.weight.copy_(torch.tensor([1.5, -2.0, 0.75]))
        bn.bias.copy_(torch.tensor([0.25, 1.0, -0.5]))
    model = nn.Sequential(nn.Linear(2, 3), bn, nn.ReLU(), nn.Linear(3, 1)).eval()
    net = Network.from_torch(model)
    # the scale torch applies: y = s·(x − μ) + β at μ = 0, β = 0, x = 1 through the module itself
    probe = torch.nn.BatchNorm1d(3).eval()
    with torch.no_grad():
        probe.running_var.copy_(bn.running_var)
        probe.weight.copy_(bn.weight)
        probe.bias.zero_()
        scale = probe(torch.ones(2, 3))[0]
    assert scale.dtype == torch.float32
    s = exact_vec(scale)
    W = exact_rows(model[0].weight)
    b = exact_vec(model[0].bias)
    mean, beta = exact_vec(bn.running_mean), exact_vec(bn.bias)
    assert rows(net.weights[0]) == [[si * w for w in r] for si, r in zip(s, W)]
    assert [fr(x) for x in net.biases[0]] == [si * (bi - m) + be for si, bi, m, be in zip(s, b, mean, beta)]
    assert any("BatchNorm1d" in p and "float32" in p and "irrational" in p for p in net.provenance)
    # the folded net agrees with torch (float32) to float32 accuracy
    x = torch.tensor([[0.3, -0.7]])
    y = float(model(x)[0, 0].detach())
    assert abs(float(net([Fraction(float(v)) for v in x[0]])[0]) - y) < 1e-5


def test_batchnorm_scale_is_the_one_torch_applies_not_a_recomputation(torch):
    """σ² = 0.7, γ = 1.5: torch's kernel (1/√(σ²+ε), then ·γ) gives a float32 one ulp away from
    float32(γ/√(σ²+ε)); the folded network takes the kernel's value, the one torch computes with."""
    nn = torch.nn
    bn = nn.BatchNorm1d(1).eval()
    lin = nn.Linear(1, 1, bias=False)
    with torch.no_grad():
        bn.running_var.fill_(0.7)
        bn.weight.fill_(1.5)
        lin.weight.fill_(1.0)
        applied = Fraction(float(bn(torch.ones(1, 1))[0, 0]))
    naive = Fraction(float((bn.weight.detach() / torch.sqrt(bn.running_var + bn.eps))[0]))
    assert applied != naive
    net = Network.from_torch(nn.Sequential(lin, bn, nn.ReLU(), nn.Linear(1, 1)))
    assert fr(net.weights[0].to_rows()[0][0]) == applied


def test_batchnorm_in_training_mode_and_other_layers_are_refused(torch):
    nn = torch.nn
    with pytest.raises(InputError, match="training mode.*model.eval"):
        Network.from_torch(nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1)))
    with pytest.raises(InputError, match="unsupported layer Tanh") as e:
        Network.from_torch(nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)))
    assert e.value.where == "1"
    with pytest.raises(InputError, match="unsupported layer Conv1d"):
        Network.from_torch(nn.Sequential(nn.Conv1d(1, 1, 2)))
    with pytest.raises(InputError, match="ends with a ReLU"):
        Network.from_torch(nn.Sequential(nn.Linear(2, 3), nn.ReLU()))
    with pytest.raises(InputError, match="ReLU first"):
        Network.from_torch(nn.Sequential(nn.ReLU(), nn.Linear(2, 3)))
    with pytest.raises(InputError, match="nn.Sequential"):
        Network.from_torch(nn.LSTM(2, 2))


@pytest.mark.filterwarnings("ignore::Warning")   # sklearn: not converged (irrelevant here)
def test_from_sklearn_is_exact_and_notes_the_output_activation():
    pytest.importorskip("sklearn")
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 4))
    y = (X[:, 0] > 0).astype(int) + (X[:, 1] > 0)
    clf = MLPClassifier(hidden_layer_sizes=(5, 3), max_iter=30, random_state=0).fit(X, y)
    net = Network.from_sklearn(clf)
    assert net.widths == (4, 5, 3, 3)
    for W, b, c, i in zip(net.weights, net.biases, clf.coefs_, clf.intercepts_):
        assert rows(W) == [[Fraction(float(v)) for v in r] for r in c.T]
        assert [fr(x) for x in b] == [Fraction(float(v)) for v in i]
    assert any("softmax" in p for p in net.provenance)
    logits = [float(v) for v in net([Fraction(float(v)) for v in X[0]])]
    assert int(np.argmax(logits)) == int(clf.predict(X[:1])[0])
    reg = MLPRegressor(hidden_layer_sizes=(3,), max_iter=20, random_state=0).fit(X, X[:, 0])
    assert Network.from_sklearn(reg).widths == (4, 3, 1)
    with pytest.raises(InputError, match="activation 'tanh'"):
        Network.from_sklearn(MLPRegressor(hidden_layer_sizes=(3,), activation="tanh",
                                          max_iter=5).fit(X, X[:, 0]))
    with pytest.raises(InputError, match="call fit first"):
        Network.from_sklearn(MLPRegressor())


def test_block_from_torch(torch):
    nn = torch.nn
    seq = nn.Sequential(nn.Linear(3, 8), nn.GELU(), nn.Dropout(0.1), nn.Linear(8, 3))
    b = Block.from_torch(seq)
    assert (b.d, b.k, b.activation.name) == (3, 8, "gelu")
    assert rows(b.w_up) == exact_rows(seq[0].weight)
    assert [fr(x) for x in b.b_down] == exact_vec(seq[3].bias)

    class LlamaMLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.gate_proj = nn.Linear(4, 6, bias=False)
            self.up_proj = nn.Linear(4, 6, bias=False)
            self.down_proj = nn.Linear(6, 4, bias=False)
            self.act_fn = nn.SiLU()

    m = LlamaMLP()
    b = Block.from_torch(m)
    assert (b.d, b.k, b.activation.name) == (4, 6, "swiglu")
    assert rows(b.w_gate) == exact_rows(m.gate_proj.weight)
    assert rows(b.w_down) == exact_rows(m.down_proj.weight)
    with pytest.raises(InputError, match="Linear, activation, Linear"):
        Block.from_torch(nn.Sequential(nn.Linear(3, 3)))


def test_onnx_batchnorm_is_folded_exactly(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    from algebra import load
    W = np.array([[1.0, 2.0], [-1.0, 0.5], [0.25, 0.0]], np.float32)
    b = np.array([0.5, -1.0, 2.0], np.float32)
    scale, B = np.array([1.5, -2.0, 1.0], np.float32), np.array([0.0, 1.0, -0.5], np.float32)
    mean, var = np.array([0.5, 0.25, 0.0], np.float32), np.array([2.0, 1.0, 3.0], np.float32)
    W2 = np.array([[1.0, 1.0, -1.0]], np.float32)
    inits = [numpy_helper.from_array(a, n) for a, n in
             ((W, "W"), (b, "b"), (scale, "s"), (B, "B"), (mean, "m"), (var, "v"), (W2, "W2"))]
    nodes = [helper.make_node("Gemm", ["x", "W", "b"], ["h"], transB=1),
             helper.make_node("BatchNormalization", ["h", "s", "B", "m", "v"], ["n"], epsilon=1e-3),
             helper.make_node("Relu", ["n"], ["r"]),
             helper.make_node("MatMul", ["r", "W2t"], ["y"])]
    inits.append(numpy_helper.from_array(W2.T.copy(), "W2t"))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])], inits)
    path = tmp_path / "bn.onnx"
    onnx.save(helper.make_model(graph), path)
    net = load(path)
    eps = np.float32(1e-3)
    s = [Fraction(float(v)) for v in scale / np.sqrt(var + eps)]
    assert rows(net.weights[0]) == [[si * Fraction(float(w)) for w in r] for si, r in zip(s, W)]
    assert [fr(x) for x in net.biases[0]] == [si * (Fraction(float(bi)) - Fraction(float(m))) + Fraction(float(be))
                                              for si, bi, m, be in zip(s, b, mean, B)]
    assert any("BatchNormalization" in p and "float32" in p for p in net.provenance)


def test_torch_state_dict_files_skip_parameterless_layers_and_refuse_batchnorm(torch, tmp_path):
    from algebra import load
    nn = torch.nn
    model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Dropout(), nn.Identity(), nn.Linear(4, 5),
                          nn.ReLU(), nn.Linear(5, 2))   # keys 0, 4, 6 (not sorted as text: 0, 4, 6 ok)
    torch.save(model.state_dict(), tmp_path / "m.pt")
    assert load(tmp_path / "m.pt") == Network.from_torch(model)
    bn = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 1))
    torch.save(bn.state_dict(), tmp_path / "bn.pt")
    with pytest.raises(InputError, match="BatchNorm.*eps.*Network.from_torch"):
        load(tmp_path / "bn.pt")
    big = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(3, 3), nn.ReLU())], nn.Linear(3, 1))
    torch.save(big.state_dict(), tmp_path / "big.pt")      # 10.weight after 8.weight, not after 0
    assert load(tmp_path / "big.pt") == Network.from_torch(big)


@pytest.mark.filterwarnings("ignore::Warning")
def test_readme_framework_lines_run(torch):
    """The README's three lines (from_torch, from_sklearn, Block.from_torch) run as shown."""
    import re
    from pathlib import Path
    pytest.importorskip("sklearn")
    from sklearn.neural_network import MLPRegressor
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    block = [b for b in re.findall(r"```python\n(.*?)```", readme, re.S) if "from_sklearn" in b]
    assert len(block) == 1 and len(block[0].strip().splitlines()) == 4
    nn = torch.nn
    X = np.arange(12.0).reshape(6, 2)
    llama = nn.Module()
    llama.up_proj, llama.down_proj = nn.Linear(2, 4), nn.Linear(4, 2)
    llama.act_fn = nn.GELU()
    ns = {"model": nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1)),
          "mlp": MLPRegressor(hidden_layer_sizes=(3,), max_iter=5).fit(X, X[:, 0]),
          "llama_mlp": llama}
    exec(compile(block[0], "README.md", "exec"), ns)
    assert ns["net"].widths == (2, 3, 1) and ns["block"].activation.name == "gelu"


def test_batchnorm_after_relu_folds_into_the_next_linear(torch):
    nn = torch.nn
    bn = nn.BatchNorm1d(3).eval()
    with torch.no_grad():
        bn.running_mean.copy_(torch.tensor([1.0, -2.0, 0.5]))
        bn.running_var.copy_(torch.tensor([3.0, 1.0, 0.25]))
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), bn, nn.Linear(3, 1), nn.Linear(1, 2)).eval()
    net = Network.from_torch(model)
    assert net.widths == (2, 3, 2)
    notes = " ".join(net.provenance)
    assert "BatchNorm1d '2'" in notes and "two Linear layers" in notes and "'4'" in notes
    with torch.no_grad():
        x = torch.tensor([[0.5, -1.25]])
        y = model(x)[0]
    exact = net([Fraction(float(v)) for v in x[0]])
    assert all(abs(float(e) - float(t)) < 1e-5 for e, t in zip(exact, y))


def _onnx_chain(tmp_path, *, bias_shape=(2,), domain="", dup=False, constant=False):
    """x -> MatMul W1 -> Add b1 -> Relu -> MatMul W2 (2-2-1), with the given variations."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper, numpy_helper
    W1t = np.array([[1.0, -1.0], [2.0, 0.5]], np.float32)          # (in, out)
    b1 = np.array([0.5, -1.0], np.float32).reshape(bias_shape)
    W2t = np.array([[1.0], [3.0]], np.float32)
    inits = [numpy_helper.from_array(W1t, "W1"), numpy_helper.from_array(W2t, "W2")]
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["h"])]
    if constant:
        nodes.append(helper.make_node("Constant", [], ["b1"], value_floats=[0.5, -1.0]))
    else:
        inits.append(numpy_helper.from_array(b1, "b1"))
    nodes += [helper.make_node("Add", ["h", "b1"], ["a"]),
              helper.make_node("Relu", ["a"], ["r"], domain=domain),
              helper.make_node("MatMul", ["r", "W2"], ["y"])]
    if dup:
        inits.append(numpy_helper.from_array(W1t * 2, "W1"))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])], inits)
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(graph), path)
    return path


@pytest.mark.parametrize("variation, words", [
    ({"bias_shape": (2, 1)}, r"bias shape \(2, 1\) does not fit 2 outputs"),
    ({"domain": "com.evil"}, "operator 'Relu' of domain 'com.evil'"),
    ({"dup": True}, "two initializers or constants share this name"),
])
def test_onnx_graphs_that_would_be_misread_are_refused(tmp_path, variation, words):
    """Input audit (session 35): an Add bias of shape (2, 1) (it broadcasts to (2, 2)), a Relu of
    a custom domain, two initializers named W1 were read silently (exit 0)."""
    from algebra import load
    from algebra.exceptions import InputError
    assert load(_onnx_chain(tmp_path)).widths == (2, 2, 1)
    assert load(_onnx_chain(tmp_path, bias_shape=(1, 2))).widths == (2, 2, 1)
    with pytest.raises(InputError, match=words):
        load(_onnx_chain(tmp_path, **variation))


def test_onnx_constant_value_floats_is_a_bias(tmp_path):
    from algebra import load
    net = load(_onnx_chain(tmp_path, constant=True))
    assert [fr(v) for v in net.biases[0]] == [Fraction(1, 2), Fraction(-1)]
    assert net.evaluate([1, 0]) == load(_onnx_chain(tmp_path)).evaluate([1, 0])
