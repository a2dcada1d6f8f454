"""Issue 16 part 1: weights kept as the float arrays read, headers read first, only the tensors
used converted.  Oracles: ``algebra.rationals.bit_size`` / ``from_float`` entry by entry (the
general exact path), and planted values."""

from __future__ import annotations

import zipfile
import zlib

import numpy as np
import pytest

from algebra.dyadic import FloatWeights, float_bit_sizes, network_bit_sizes
from algebra.exceptions import InputError
from algebra.io import load, save
from algebra.io.arrays import LazyTensors, npz_index, read_shapes, tensor_index
from algebra.io.blocks import load_block
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q, bit_size, from_float

safetensors = pytest.importorskip("safetensors.numpy")


def _oracle_bits(values) -> tuple[int, int]:
    sizes = [bit_size(from_float(float(v))) for v in values]
    return max(a for a, _ in sizes), max(b for _, b in sizes)


def _samples(dtype, seed):
    rng = np.random.default_rng(seed)
    info = np.finfo(dtype)
    parts = [rng.standard_normal(200), rng.integers(-1000, 1000, 50).astype(float),
             [0.0, -0.0, float(info.tiny), float(info.smallest_subnormal),
              -3 * float(info.smallest_subnormal), float(info.max), -float(info.max), 1.0, -0.5]]
    x = np.concatenate([np.asarray(p, dtype=np.float64) for p in parts])
    x = x * 2.0 ** rng.integers(-20, 20, x.shape[0])
    with np.errstate(over="ignore", under="ignore"):
        a = x.astype(dtype)
    return a[np.isfinite(a)]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("seed", [0, 1])
def test_float_bit_sizes_equal_bit_size_of_every_entry(dtype, seed):
    a = _samples(dtype, seed)
    assert float_bit_sizes(a, chunk=37) == _oracle_bits(a)
    big_endian = a.astype(np.dtype(dtype).newbyteorder(">"))
    assert float_bit_sizes(big_endian) == _oracle_bits(a)


def test_float_bit_sizes_edge_cases():
    assert float_bit_sizes(np.zeros(0, np.float32)) == (0, 0)
    assert float_bit_sizes(np.zeros(3, np.float32)) == (0, 1)
    assert float_bit_sizes(np.array([2.0 ** 100], np.float32)) == (101, 1)
    assert float_bit_sizes(np.array([-(2.0 ** -1074)])) == (1, 1075)
    assert float_bit_sizes(np.array([1.0, np.inf], np.float32)) is None
    assert float_bit_sizes(np.array([np.nan], np.float16)) is None


def _model(tmp_path, widths=(5, 7, 3), seed=0, dtype=np.float32, name="m.safetensors"):
    rng = np.random.default_rng(seed)
    t = {}
    for l, (a, b) in enumerate(zip(widths, widths[1:])):
        t[f"{2 * l}.weight"] = (rng.standard_normal((b, a)) * 2.0 ** rng.integers(-8, 8, (b, a))).astype(dtype)
        t[f"{2 * l}.bias"] = rng.standard_normal(b).astype(dtype)
    path = tmp_path / name
    if name.endswith(".npz"):
        np.savez(path, **t)
    else:
        safetensors.save_file(t, str(path))
    return path, t


def _oracle_network(t, depth):
    ws = [QMatrix.from_rows([[from_float(float(v)) for v in row] for row in t[f"{2 * l}.weight"]])
          for l in range(depth)]
    bs = [[from_float(float(v)) for v in t[f"{2 * l}.bias"]] for l in range(depth)]
    return Network(ws, bs)


@pytest.mark.parametrize("name", ["m.safetensors", "m.npz"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_network_keeps_float_arrays_and_equals_the_exact_network(tmp_path, name, dtype):
    path, t = _model(tmp_path, dtype=dtype, name=name)
    net = load(path)
    oracle = _oracle_network(t, 2)
    fw = net.float_weights(0)
    assert isinstance(fw, FloatWeights) and fw.array.dtype == np.dtype(dtype)
    assert fw._integers is None                      # no integer array made by reading
    assert network_bit_sizes(net) == network_bit_sizes(oracle) == _oracle_bits(
        np.concatenate([a.reshape(-1) for a in t.values()]))
    assert fw._integers is None                      # bit sizes read from the floats
    assert net == oracle and oracle == net
    assert net.weights == oracle.weights and net.parameters() == oracle.parameters()
    hint = net.integer_weights(1)          # float64: 53-bit significands may not fit int64
    assert hint is not None or dtype == np.float64
    if hint is not None:
        N, D = hint
        assert QMatrix.from_integer_rows(N.tolist(), N.shape[1], den=D) == oracle.weights[1]


def test_exponent_spread_falls_back_to_rationals(tmp_path):
    w = np.array([[2.0 ** -140, 2.0 ** 100], [1.0, -3.0]], dtype=np.float32)
    path = tmp_path / "wide.safetensors"
    safetensors.save_file({"weight": w, "bias": np.zeros(2, np.float32)}, str(path))
    net = load(path)
    assert net.integer_weights(0) is None           # too wide for int64
    assert net.weights[0] == QMatrix.from_rows([[Q(1, 2 ** 140), Q(2 ** 100)], [1, -3]])
    assert network_bit_sizes(net) == (101, 141)


@pytest.mark.parametrize("src", [np.float32, np.float64])
@pytest.mark.parametrize("out", ["c.npz", "c.safetensors"])
def test_convert_between_binary_formats_is_exact(tmp_path, src, out):
    path, t = _model(tmp_path, dtype=src, widths=(4, 6, 6, 2))
    net = load(path)
    save(net, tmp_path / out, dtype="float64")
    assert load(tmp_path / out) == _oracle_network(t, 3)
    if src == np.float32:
        save(net, tmp_path / out)                    # float32 out of float32: the same array
        back = load(tmp_path / out)
        assert back == net and back.float_weights(0).array.dtype == np.float32


def test_float64_weight_not_a_float32_is_named(tmp_path):
    path = tmp_path / "w.safetensors"
    w = np.array([[0.5, 0.1], [1.0, 2.0]])
    safetensors.save_file({"weight": w, "bias": np.zeros(2)}, str(path))
    with pytest.raises(InputError, match=r"W1\[0,1\] = 3602879701896397/36028797018963968 is "
                                         "not exactly representable as float32"):
        save(load(path), tmp_path / "o.npz")
    assert not (tmp_path / "o.npz").exists()


def test_nan_in_weights_named_with_index(tmp_path):
    path = tmp_path / "nan.safetensors"
    w = np.ones((3, 2), np.float32)
    w[2, 1] = np.nan
    safetensors.save_file({"weight": w, "bias": np.zeros(3, np.float32)}, str(path))
    with pytest.raises(InputError, match=r"NaN at index \[2,1\]"):
        load(path)


# -- .npz members lazily --------------------------------------------------------------------------
def test_npz_index_reads_headers_and_maps_stored_members(tmp_path):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    f = np.asfortranarray(np.arange(6, dtype=">f8").reshape(2, 3))
    np.savez(tmp_path / "s.npz", a=a, f=f, e=np.zeros((0, 3), np.float32))
    np.savez_compressed(tmp_path / "c.npz", a=a, f=f)
    for name in ("s.npz", "c.npz"):
        index = npz_index(tmp_path / name)
        assert index["a"][0] == (3, 4) and index["f"][0] == (2, 3)
        assert (index["a"][1]() == a).all() and (index["f"][1]() == f).all()
    assert isinstance(npz_index(tmp_path / "s.npz")["a"][1](), np.memmap)
    assert npz_index(tmp_path / "s.npz")["e"][1]().shape == (0, 3)
    assert read_shapes(tmp_path / "s.npz") == {"a": (3, 4), "f": (2, 3), "e": (0, 3)}


def test_npz_object_array_and_truncation_refused(tmp_path):
    np.savez(tmp_path / "o.npz", o=np.array([{"a": 1}], dtype=object))
    with pytest.raises(InputError, match="unpickling"):
        npz_index(tmp_path / "o.npz")
    path, _ = _model(tmp_path, name="t.npz")
    data = path.read_bytes()
    (tmp_path / "cut.npz").write_bytes(data[:len(data) // 2])
    with pytest.raises(InputError, match="truncated or corrupt"):
        load(tmp_path / "cut.npz")


# -- blocks of a checkpoint: the header, then only the tensors used ------------------------------------
def minilm_like(path, layers=3, d=12, k=48, vocab=100):
    """The synthetic MiniLM-shaped checkpoint of ``benchmarks/bench_scale.py``, small."""
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_scale import minilm_like as make
    return make(path, layers=layers, d=d, k=k, vocab=vocab)


def test_block_from_checkpoint_reads_only_its_tensors(tmp_path, monkeypatch):
    path = tmp_path / "bert.safetensors"
    t = minilm_like(path)
    read = []
    real = tensor_index

    def counting(p):
        return {n: (shape, (lambda n=n, g=g: (read.append(n), g())[1]))
                for n, (shape, g) in real(p).items()}
    monkeypatch.setattr("algebra.io.arrays.tensor_index", counting)
    block = load_block(path, activation="gelu", prefix="encoder.layer.1.")
    p = "encoder.layer.1."
    assert sorted(read) == sorted(p + n for n in ("intermediate.dense.weight", "intermediate.dense.bias",
                                                  "output.dense.weight", "output.dense.bias"))
    exact = lambda a: [from_float(float(v)) for v in a.reshape(-1)]   # noqa: E731
    assert block.w_up.entries() == exact(t[p + "intermediate.dense.weight"])
    assert block.w_down.entries() == exact(t[p + "output.dense.weight"])
    assert (block.w_up.shape, block.w_down.shape) == ((48, 12), (12, 48))
    assert list(block.b_down) == exact(t[p + "output.dense.bias"])


def test_lazy_tensors_mapping(tmp_path):
    path = tmp_path / "bert.safetensors"
    t = minilm_like(path, layers=1)
    lazy = LazyTensors(path)
    assert set(lazy) == set(t) and len(lazy) == len(t) and "nope" not in lazy
    name = "encoder.layer.0.output.dense.bias"
    assert lazy[name] == ((12,), [from_float(float(v)) for v in t[name]])
    w = "encoder.layer.0.intermediate.dense.weight"
    assert lazy.matrix(w) == QMatrix.from_rows([[from_float(float(v)) for v in r] for r in t[w]])
