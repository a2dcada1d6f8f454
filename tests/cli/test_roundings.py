"""Issue 17 (8): a folded BatchNorm's scale γ/√(σ² + ε) is irrational in general and is read as
the float32 the framework computes; every verdict lists that rounding among its hypotheses (text
and --json): equiv, canon, identify, dim, analyze.  A network read exactly lists none."""

from fractions import Fraction

import pytest

from algebra import load
from algebra.io.frameworks import roundings
from semialgebraic import equivalent
from semialgebraic.bottleneck import identifiability

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx")

EX = "algebra/examples/"


def write_onnx(path, layers):
    """An ONNX graph of Gemm layers (W is (out, in)), a BatchNormalization (scale, B, mean, var)
    after each layer that has one, Relu between layers."""
    from onnx import TensorProto, helper, numpy_helper
    nodes, inits, x = [], [], "x"
    for l, (W, b, bn) in enumerate(layers):
        W, b = np.asarray(W, np.float32), np.asarray(b, np.float32)
        inits += [numpy_helper.from_array(W, f"W{l}"), numpy_helper.from_array(b, f"b{l}")]
        nodes.append(helper.make_node("Gemm", [x, f"W{l}", f"b{l}"], [f"h{l}"], transB=1))
        x = f"h{l}"
        if bn is not None:
            names = [f"{k}{l}" for k in ("s", "B", "m", "v")]
            inits += [numpy_helper.from_array(np.asarray(a, np.float32), n) for a, n in zip(bn, names)]
            nodes.append(helper.make_node("BatchNormalization", [x, *names], [f"n{l}"], epsilon=1e-5))
            x = f"n{l}"
        if l + 1 < len(layers):
            nodes.append(helper.make_node("Relu", [x], [f"r{l}"]))
            x = f"r{l}"
    d, m = len(layers[0][0][0]), len(layers[-1][0])
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, d])],
                              [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, m])], inits)
    onnx.save(helper.make_model(graph), path)
    return path


BN = ([1.5, 2.0], [0.0, 1.0], [0.5, 0.25], [2.0, 3.0])     # var 2, 3: √ irrational


@pytest.fixture
def bn_files(tmp_path):
    shallow = write_onnx(tmp_path / "shallow.onnx", [([[1, 2], [-1, 0.5]], [0.5, -1], BN),
                                                     ([[1, -1]], [0], None)])
    bottle = write_onnx(tmp_path / "bottle.onnx", [([[1, 0], [0, 1]], [0, 0], BN),
                                                   ([[1, -1], [-2, -1]], [-1, -3], None),
                                                   ([[1, 1]], [0], None)])
    return shallow, bottle


def test_the_reader_records_the_rounding_and_its_value(bn_files):
    net = load(bn_files[0])
    (note,) = roundings(net)
    assert "BatchNormalization" in note and "float32" in note
    s = np.float32(1.5) / np.sqrt(np.float32(2.0) + np.float32(1e-5))
    assert Fraction(float(s)) ** 2 != Fraction(9, 4) / (2 + Fraction(1, 10**5))   # it is a rounding
    w = net.weights[0][0, 0]
    assert Fraction(int(w.p), int(w.q)) == Fraction(float(s))       # the float32, exactly
    assert roundings(load(EX + "masked_bottleneck.json")) == ()


def test_verdicts_carry_the_rounding(bn_files):
    shallow, bottle = (load(p) for p in bn_files)
    v = equivalent(shallow, shallow)
    assert v.answer is True
    names = [h.name for h in v.hypotheses if "read with a rounding" in h.name]
    assert [n[:3] for n in names] == ["a: ", "b: "]
    w = identifiability(bottle)
    assert sum("read with a rounding" in h.name for h in w.hypotheses) == 1
    exact = load(EX + "masked_bottleneck.json")
    assert not any("rounding" in h.name for h in identifiability(exact).hypotheses)


@pytest.mark.parametrize("argv, which", [
    (["equiv", "{s}", "{s}"], 0), (["canon", "{s}"], 0), (["dim", "{s}"], 0),
    (["identify", "{b}"], 1), (["analyze", "{b}"], 1), (["analyze", "{s}"], 0),
])
def test_every_command_shows_the_rounding(bn_files, run, argv, which):
    s, b = bn_files
    args = [a.format(s=s, b=b) for a in argv]
    code, out, err = run(*args)
    assert code in (0, 1), err
    assert "hypothesis:" in out and "BatchNormalization" in out and "float32" in out
    code, out, _ = run(*args, "--json")
    import json
    hyps = json.loads(out)["hypotheses"]
    rounded = [h for h in hyps if "read with a rounding" in h["name"]]
    assert len(rounded) == (2 if argv[0] == "equiv" else 1)
    assert all(h["holds"] is True and h["witness"] == {"kind": "reader rounding"} for h in rounded)


def test_exact_inputs_show_no_rounding(run):
    code, out, _ = run("equiv", EX + "masked_bottleneck.json", EX + "masked_bottleneck.json")
    assert code == 0 and "hypothesis:" not in out
