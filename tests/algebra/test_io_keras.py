"""Issue 17 (2): Keras ``.h5`` files (Sequential of Dense, relu/linear) read exactly, written here
with h5py in the Keras layout (no TensorFlow): model_config JSON at the root, weights under
model_weights/<layer>/ with weight_names.  Values checked against Fraction arithmetic."""

import json
import sys
from fractions import Fraction

import pytest

from algebra import load
from algebra.exceptions import InputError, MissingDependencyError

np = pytest.importorskip("numpy")
h5py = pytest.importorskip("h5py")


def dense(name, units, activation="relu", **extra):
    return {"class_name": "Dense", "config": {"name": name, "units": units,
                                               "activation": activation, "use_bias": True, **extra}}


def write_keras(path, layers, weights, *, model="Sequential", keras3=False, config=True):
    """*layers*: Keras layer configs; *weights*: {layer name: (kernel (in, out), bias or None)}."""
    with h5py.File(path, "w") as f:
        if config:
            f.attrs["model_config"] = json.dumps({"class_name": model, "config": {
                "name": "sequential", "layers": layers}})
            f.attrs["keras_version"] = "3.0.0" if keras3 else "2.15.0"
            g = f.create_group("model_weights")
        else:
            g = f
        names = [l["config"]["name"] for l in layers]
        g.attrs["layer_names"] = [n.encode() for n in names]
        for n in names:
            lg = g.create_group(n)
            wn = []
            for kind, arr in zip(("kernel", "bias"), weights.get(n, ())):
                if arr is None:
                    continue
                key = f"sequential/{n}/{kind}" if keras3 else f"{n}/{kind}:0"
                lg.create_dataset(key, data=np.asarray(arr, np.float32))
                wn.append(key.encode())
            lg.attrs["weight_names"] = wn
    return path


def f32(x):
    return Fraction(float(np.float32(x)))


def frac_rows(M):
    return [[Fraction(int(x.p), int(x.q)) for x in r] for r in M.to_rows()]


K1 = [[0.1, -0.5, 2.0], [1.0, 0.3, -1.25]]          # (in=2, out=3)
B1 = [0.2, -0.7, 0.0]
K2 = [[1.5], [-0.1], [0.75]]                          # (in=3, out=1)
B2 = [0.05]


def oracle(x):
    """The Keras model at x, in Fraction arithmetic on the float32 values."""
    h = [max(Fraction(0), sum(f32(K1[i][j]) * x[i] for i in range(2)) + f32(B1[j])) for j in range(3)]
    return [sum(f32(K2[j][0]) * h[j] for j in range(3)) + f32(B2[0])]


@pytest.mark.parametrize("keras3", [False, True])
def test_dense_relu_model_is_read_exactly(tmp_path, keras3):
    path = write_keras(tmp_path / "m.h5", [{"class_name": "InputLayer", "config": {"name": "input"}},
                                           dense("dense", 3), {"class_name": "Dropout",
                                                               "config": {"name": "dropout", "rate": 0.5}},
                                           dense("dense_1", 1, "linear")],
                       {"dense": (K1, B1), "dense_1": (K2, B2)}, keras3=keras3)
    net = load(path)
    assert net.widths == (2, 3, 1)
    assert frac_rows(net.weights[0]) == [[f32(K1[i][j]) for i in range(2)] for j in range(3)]   # kernel.T
    assert frac_rows(net.weights[0])[0][0] != Fraction(1, 10)                                # float32(0.1)
    for x in ([Fraction(1), Fraction(-2, 3)], [Fraction(5, 7), Fraction(3)]):
        y = net([str(v) for v in x])
        assert [Fraction(int(v.p), int(v.q)) for v in y] == oracle(x)
    assert any("Keras" in p and "kernel.T" in p for p in net.provenance)


def test_activation_layers_linear_dense_and_softmax_output(tmp_path):
    path = write_keras(tmp_path / "m.h5",
                       [dense("a", 3, "linear"), {"class_name": "Activation",
                                                  "config": {"name": "act", "activation": "relu"}},
                        dense("lin", 2, "linear"), dense("out", 2, "softmax")],
                       {"a": (K1, B1), "lin": ([[1, 0], [0, 1], [1, 1]], [1, 0]),
                        "out": ([[2, 0], [1, -1]], None)})
    net = load(path)
    assert net.widths == (2, 3, 2)       # lin and out composed: one affine layer after the ReLU
    # out(lin(h)) = [[2, 1], [0, -1]] ([[1, 0, 1], [0, 1, 1]] h + [1, 0]), no bias on out
    assert frac_rows(net.weights[1]) == [[2, 1, 3], [0, -1, -1]]
    assert [Fraction(int(v.p), int(v.q)) for v in net.biases[1]] == [2, 0]
    assert any("softmax" in p for p in net.provenance)
    assert any("composed exactly" in p for p in net.provenance)


@pytest.mark.parametrize("layers, weights, words", [
    ([dense("d", 3), {"class_name": "Conv2D", "config": {"name": "conv"}}, dense("o", 1, "linear")],
     {"d": (K1, B1), "o": (K2, B2)}, ["unsupported layer Conv2D", "conv"]),
    ([dense("d", 3, "tanh"), dense("o", 1, "linear")], {"d": (K1, B1), "o": (K2, B2)},
     ["activation 'tanh'", "d"]),
    ([dense("d", 3), dense("o", 1, "relu")], {"d": (K1, B1), "o": (K2, B2)}, ["ends with a ReLU"]),
    ([dense("d", 3), dense("o", 1, "linear")], {"d": (K1, B1), "o": ([[1.0], [2.0]], B2)},
     ["takes 2 inputs", "3 outputs"]),
    ([dense("d", 3), dense("o", 1, "linear")], {"d": (K1, [float("nan"), 0, 0]), "o": (K2, B2)},
     ["NaN"]),
])
def test_refusals_name_the_layer(tmp_path, layers, weights, words):
    path = write_keras(tmp_path / "m.h5", layers, weights)
    with pytest.raises(InputError) as exc:
        load(path)
    for w in words:
        assert w in str(exc.value)
    assert "m.h5" in str(exc.value)


def test_weights_only_functional_and_not_hdf5(tmp_path):
    layers, weights = [dense("d", 3), dense("o", 1, "linear")], {"d": (K1, B1), "o": (K2, B2)}
    with pytest.raises(InputError, match="weights-only.*model.save"):
        load(write_keras(tmp_path / "w.h5", layers, weights, config=False))
    with pytest.raises(InputError, match="Functional model.*Sequential"):
        load(write_keras(tmp_path / "f.h5", layers, weights, model="Functional"))
    bad = tmp_path / "bad.h5"
    bad.write_bytes(b"not hdf5 at all")
    with pytest.raises(InputError, match="not a readable HDF5 file"):
        load(bad)


def test_missing_h5py_gives_the_install_hint(tmp_path, monkeypatch):
    path = write_keras(tmp_path / "m.h5", [dense("o", 1, "linear")], {"o": ([[1.0]], [0.0])})
    monkeypatch.setitem(sys.modules, "h5py", None)
    with pytest.raises(MissingDependencyError) as exc:
        load(path)
    assert "netfibers[keras]" in str(exc.value) and ".[keras]" in str(exc.value)


def test_cli_info_and_convert(tmp_path, capsys):
    from semialgebraic.cli import main
    path = write_keras(tmp_path / "m.h5", [dense("dense", 3), dense("dense_1", 1, "linear")],
                       {"dense": (K1, B1), "dense_1": (K2, B2)})
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "widths 2-3-1" in out and "Keras" in out
    assert main(["convert", str(path), "-o", str(tmp_path / "m.json")]) == 0
    capsys.readouterr()
    assert load(tmp_path / "m.json") == load(path)
    assert main(["info", str(tmp_path / "nothing.h5")]) == 2
    assert "nothing.h5" in capsys.readouterr().err


def test_dense_layers_without_bias_are_marked(tmp_path):
    """use_bias=False on a Dense layer (its bias read as 0) is marked as for torch files
    (``Network.missing_biases``, a provenance line): the parameter counts of ``dim`` and
    ``fiber`` are then the architecture's with biases; a layer composed with a biased Dense has
    its bias."""
    path = write_keras(tmp_path / "m.h5", [dense("a", 3, use_bias=False), dense("b", 1, "linear", use_bias=False)],
                       {"a": (K1, None), "b": (K2, None)})
    net = load(path)
    assert net.missing_biases == (0, 1)
    assert "no bias stored for layers 1, 2: read as 0" in net.provenance
    path = write_keras(tmp_path / "n.h5", [dense("a", 3), dense("b", 1, "linear", use_bias=False)],
                       {"a": (K1, B1), "b": (K2, None)})
    assert load(path).missing_biases == (1,)


def _raw_config(path, config, weights=None):
    """A file whose model_config is *config* (any JSON text) and whose weights are *weights*."""
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = config
        g = f.create_group("model_weights")
        for name, shape in (weights or {}).items():
            lg = g.create_group(name)
            lg.create_dataset(f"{name}/kernel:0", shape=shape, dtype="float64")   # unallocated
            lg.create_dataset(f"{name}/bias:0", data=np.zeros(shape[1], np.float32))
    return path


@pytest.mark.parametrize("config, words", [
    (json.dumps({"class_name": "Sequential", "config": {"layers": [
        {"class_name": "Dense", "config": {"name": "d", "activation": {"class_name": "ReLU"}}}]}}),
     "is not a name"),
    (json.dumps({"class_name": "Sequential", "config": {"layers": [
        {"class_name": "Dense", "config": {"name": "d", "activation": ["relu"]}}]}}),
     "is not a name"),
    (json.dumps({"class_name": "Sequential", "config": {"layers": [
        {"class_name": "Dense", "config": ["d"]}]}}), "no weights stored"),
    (json.dumps({"class_name": "Sequential", "config": {"layers": ["Dense"]}}), "has no class name"),
    ("[" * 100_000 + "]" * 100_000, "model_config is not valid JSON"),
    (json.dumps([1, 2]), "not a Keras Sequential model"),
])
def test_malformed_model_configs_are_input_errors(tmp_path, config, words):
    """Input audit (session 35): an activation given as a dict or a list, a layer config that is
    a list or a string, a config nested 10^5 deep ended in exit 4 (TypeError, AttributeError,
    RecursionError)."""
    with pytest.raises(InputError, match=words):
        load(_raw_config(tmp_path / "m.h5", config, {"d": (2, 2)}))


def test_a_declared_huge_kernel_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """A 4 kB file declaring a 200 000 x 200 000 kernel made h5py allocate 298 GB (exit 4,
    MemoryError), a 12 000 x 12 000 one ran for minutes; a stray huge dataset beside the kernel
    was read too.  Now only the layer's kernel and bias are read, after their shapes."""
    config = json.dumps({"class_name": "Sequential", "config": {"layers": [dense("d", 2, "linear")]}})
    path = _raw_config(tmp_path / "h.h5", config, {"d": (200_000, 200_000)})
    with pytest.raises(InputError, match=r"\(200000, 200000\) \(40000000000 entries\): more than"):
        load(path)
    monkeypatch.setenv("NETFIBERS_MAX_ENTRIES", "3")
    with pytest.raises(InputError, match=r"more than netfibers reads \(3;"):
        load(_raw_config(tmp_path / "s.h5", config, {"d": (2, 2)}))
    monkeypatch.delenv("NETFIBERS_MAX_ENTRIES")
    small = _raw_config(tmp_path / "s.h5", config, {"d": (2, 2)})
    with h5py.File(small, "a") as f:
        f["model_weights/d/d"].create_dataset("junk", shape=(200_000, 200_000), dtype="float64")
    assert load(small).widths == (2, 2)       # (zeros: the kernel was declared, not written)


def test_a_relu_with_options_names_the_option(tmp_path):
    layers = [dense("d", 2, "linear"),
              {"class_name": "ReLU", "config": {"name": "r", "max_value": 6.0}}, dense("e", 1, "linear")]
    path = write_keras(tmp_path / "r6.h5", layers, {"d": (np.eye(2), np.zeros(2)),
                                                    "e": (np.ones((2, 1)), np.zeros(1))})
    with pytest.raises(InputError, match=r"other than a plain ReLU \(max_value=6.0\)"):
        load(path)


def test_hostile_h5_files_are_input_errors(tmp_path, monkeypatch):
    # (s48 hostile audit K1-K4: external raw data read any local file, a FIFO blocked the reader,
    # link cycles and dangling links were exit 4, a 15 kB file declared 3 x 49M entries)
    layers = [dense("d1", 3), dense("d2", 1, "linear")]
    ok = write_keras(tmp_path / "ok.h5", layers, {"d1": (K1, B1), "d2": (K2, B2)})
    assert load(ok).widths == (2, 3, 1)
    (tmp_path / "raw.bin").write_bytes(np.asarray(K1, np.float32).tobytes())
    ext = tmp_path / "ext.h5"
    write_keras(ext, layers, {"d1": (None, B1), "d2": (K2, B2)})
    with h5py.File(ext, "a") as f:
        g = f["model_weights/d1"]
        g.create_dataset("d1/kernel:0", shape=(2, 3), dtype=np.float32,
                         external=[(str(tmp_path / "raw.bin"), 0, h5py.h5f.UNLIMITED)])
        g.attrs["weight_names"] = [b"d1/kernel:0", b"d1/bias:0"]
    with pytest.raises(InputError, match="stored outside the file"):
        load(ext)
    link = tmp_path / "link.h5"
    write_keras(link, layers, {"d1": (None, B1), "d2": (K2, B2)})
    with h5py.File(link, "a") as f:
        f["model_weights/d1/d1/kernel:0"] = h5py.ExternalLink(str(ok), "/model_weights/d1/d1/kernel:0")
        f["model_weights/d1"].attrs["weight_names"] = [b"d1/kernel:0", b"d1/bias:0"]
    with pytest.raises(InputError, match="external link"):
        load(link)
    loop = tmp_path / "loop.h5"
    write_keras(loop, layers, {"d1": (K1, B1), "d2": (K2, B2)})
    with h5py.File(loop, "a") as f:
        f["model_weights/d1/loop"] = h5py.SoftLink("/model_weights/d1")
    with pytest.raises(InputError, match="nested deeper"):
        load(loop)
    monkeypatch.setenv("NETFIBERS_MAX_ENTRIES", "8")       # the file's total, not one dataset's
    with pytest.raises(InputError, match="datasets read hold"):
        load(ok)
