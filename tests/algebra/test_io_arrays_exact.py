"""Issue 16 part 1: weights read from float files stay exact integer arrays; every lazy rational
view equals ``from_float`` of each entry (subnormals, ±0, extremes); NaN/Inf refused naming the
file and tensor; ``info`` bit sizes and ``convert`` work on the arrays and agree with the
entry-by-entry rational path."""

from __future__ import annotations

import struct

import zlib

import numpy as np
import pytest

from algebra import load, save
from algebra.dyadic import bit_lengths, dyadic_bit_sizes, network_bit_sizes
from algebra.exceptions import InputError
from algebra.io.arrays import read_safetensors, safetensors_header
from algebra.io.exact import dyadic_integer_array
from algebra.network import Network
from algebra.rationals import Q, bit_size, from_float



def _specials(dtype):
    fi = np.finfo(dtype)
    tiny_sub = np.array(fi.smallest_subnormal, dtype=dtype)
    return np.array([0.0, -0.0, fi.max, -fi.max, fi.tiny, -fi.tiny, tiny_sub, -tiny_sub,
                     tiny_sub * 3, 1.0, -1.5, fi.eps, 0.5],
                    dtype=dtype)


def _random_floats(rng, dtype, shape):
    """Random bit patterns (every finite value is possible: subnormals, extremes, ±0)."""
    size = np.dtype(dtype).itemsize
    u = {2: np.uint16, 4: np.uint32, 8: np.uint64}[size]
    bits = rng.integers(0, np.iinfo(u).max, size=shape, dtype=u, endpoint=True)
    a = bits.view(dtype)
    a[~np.isfinite(a)] = 0
    return a


def _exact_entries(arr):
    return [from_float(float(x)) for x in arr.reshape(-1).astype(np.float64)]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("mode", ["random", "specials", "narrow"])
def test_lazy_rational_view_equals_from_float(tmp_path, dtype, mode):
    rng = np.random.default_rng(zlib.crc32(f"{np.dtype(dtype).name}-{mode}".encode()))
    if mode == "random":
        W = _random_floats(rng, dtype, (6, 7))
    elif mode == "specials":
        W = np.resize(_specials(dtype), (3, 13)).astype(dtype)
    else:
        W = (rng.standard_normal((6, 7))).astype(dtype)
    b = np.resize(_specials(dtype), W.shape[0]).astype(dtype)
    path = tmp_path / "n.npz"
    np.savez(path, **{"0.weight": W, "0.bias": b})
    net = load(path)
    hint = net.integer_weights(0)
    if dtype == np.float16 or (mode == "narrow" and dtype == np.float32):
        # kept as integer arrays; float32/64 extremes span too far for int64, and so may normal
        # float64 samples (53-bit mantissas over several binades): those fall back to rationals
        assert hint is not None
    if hint is not None:
        assert net._wq[0] is None                      # no rational view made yet
        N, D = hint
        assert [Q(int(n), D) for n in N.reshape(-1).tolist()] == _exact_entries(W)
    assert net.layer(0)[0].entries() == _exact_entries(W)   # the lazy view, made on demand
    assert list(net.biases[0]) == _exact_entries(b)
    # reading again gives an equal network (array comparison) equal to the rational one
    again = load(path)
    assert again == net
    assert Network(net.weights, net.biases) == again


@pytest.mark.parametrize("chunk", [1, 5, 1 << 16])
def test_chunked_conversion_across_chunks(chunk):
    rng = np.random.default_rng(3)
    W = _random_floats(rng, np.float32, (9, 11))
    W[2, 3] = np.float32(2.0 ** -149)
    W[8, 10] = np.float32(3.0e38)
    got = dyadic_integer_array(W, "W", None, chunk=chunk)
    if got is not None:
        N, D = got
        assert [Q(int(n), D) for n in N.reshape(-1).tolist()] == _exact_entries(W)
    narrow = (rng.standard_normal((9, 11)) * 1e-3).astype(np.float32)
    N, D = dyadic_integer_array(narrow, "W", None, chunk=chunk)
    assert [Q(int(n), D) for n in N.reshape(-1).tolist()] == _exact_entries(narrow)
    assert D & (D - 1) == 0


def test_bfloat16_safetensors_stays_exact_arrays(tmp_path):
    rng = np.random.default_rng(5)
    top = rng.integers(0, 2 ** 16, size=(4, 5), dtype=np.uint32)
    top[(top >> 7 & 0xFF) == 0xFF] = 0                  # no NaN/Inf
    f32 = (top << 16).view(np.float32)
    raw = top.astype("<u2").tobytes()
    head = b'{"0.weight":{"dtype":"BF16","shape":[4,5],"data_offsets":[0,%d]}}' % len(raw)
    path = tmp_path / "bf.safetensors"
    path.write_bytes(struct.pack("<Q", len(head)) + head + raw)
    net = load(path)
    assert net.layer(0)[0].entries() == _exact_entries(f32)


@pytest.mark.parametrize("suffix", [".npz", ".safetensors"])
@pytest.mark.parametrize("value, word", [(np.nan, "NaN"), (np.inf, "infinity"), (-np.inf, "infinity")])
def test_nan_inf_refused_naming_file_and_tensor(tmp_path, suffix, value, word):
    W = np.ones((300, 300), dtype=np.float32)
    W[250, 7] = value
    path = tmp_path / f"bad{suffix}"
    tensors = {"0.weight": W, "0.bias": np.zeros(300, np.float32)}
    if suffix == ".npz":
        np.savez(path, **tensors)
    else:
        from safetensors.numpy import save_file
        save_file(tensors, str(path))
    with pytest.raises(InputError) as info:
        load(path)
    msg = str(info.value)
    assert "\n" not in msg
    assert str(path) in msg and "0.weight" in msg and word in msg and "[250,7]" in msg


def test_safetensors_header_reads_no_data(tmp_path):
    from safetensors.numpy import save_file
    path = tmp_path / "h.safetensors"
    save_file({"a": np.arange(6, dtype=np.float32).reshape(2, 3), "b": np.ones(4, np.float64)},
              str(path))
    getters = safetensors_header(path)
    assert sorted(getters) == ["a", "b"]
    arr = getters["a"]()
    assert not arr.flags.writeable and arr.tolist() == [[0, 1, 2], [3, 4, 5]]
    data = path.read_bytes()
    path.write_bytes(data[:-8])                          # truncated: the header check refuses
    with pytest.raises(InputError, match="truncated"):
        safetensors_header(path)
    assert read_safetensors is not None


def test_bit_lengths_and_bit_sizes_agree_with_rationals():
    rng = np.random.default_rng(7)
    vals = np.concatenate([rng.integers(-2 ** 62, 2 ** 62, 200), np.array([0, 1, -1, 2 ** 62,
                           -(2 ** 63), 2 ** 63 - 1, 3 << 40])]).astype(np.int64)
    assert bit_lengths(vals).tolist() == [abs(int(v)).bit_length() for v in vals]
    for k in (0, 1, 7, 40, 62, 63, 200):
        for sample in (vals, vals[:3], np.zeros(5, np.int64), np.array([8, -16, 0], np.int64),
                       rng.integers(-2 ** 20, 2 ** 20, 50) << 30):
            expect = [bit_size(Q(int(v), 2 ** k)) for v in sample]
            got = dyadic_bit_sizes(sample.reshape(1, -1), 2 ** k, chunk=4)
            assert got == (max(a for a, _ in expect), max(b for _, b in expect)), (k, sample)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_info_bits_on_arrays_equal_the_rational_path(tmp_path, dtype):
    rng = np.random.default_rng(11)
    tensors = {"0.weight": _random_floats(rng, dtype, (5, 4)) if dtype != np.float64
               else (rng.standard_normal((5, 4)) * 1e-5).astype(dtype),
               "0.bias": (rng.standard_normal(5)).astype(dtype),
               "2.weight": np.resize(_specials(dtype), (2, 5)).astype(dtype)}
    path = tmp_path / "m.npz"
    np.savez(path, **tensors)
    net = load(path)
    params = Network(net.weights, net.biases).parameters()
    expect = (max(bit_size(q)[0] for q in params), max(bit_size(q)[1] for q in params))
    assert network_bit_sizes(load(path)) == expect
    from semialgebraic.commands.core import info_dict
    d = info_dict(load(path))
    assert (d["max_numerator_bits"], d["max_denominator_bits"]) == expect


@pytest.mark.parametrize("src_dtype, out_dtype", [(np.float32, "float32"), (np.float16, "float32"),
                                                  (np.float32, "float64"), (np.float64, "float64")])
@pytest.mark.parametrize("suffix", [".npz", ".safetensors"])
def test_convert_on_arrays_is_exact(tmp_path, src_dtype, out_dtype, suffix):
    rng = np.random.default_rng(13)
    W = _random_floats(rng, src_dtype, (8, 3)) if src_dtype != np.float64 else \
        (rng.standard_normal((8, 3))).astype(src_dtype)
    src = tmp_path / "src.npz"
    np.savez(src, **{"0.weight": W, "0.bias": np.zeros(8, src_dtype)})
    net = load(src)
    out = tmp_path / f"out{suffix}"
    save(net, out, dtype=out_dtype)
    back = load(out)
    assert back == net
    assert back.layer(0)[0].entries() == _exact_entries(W)


def test_convert_refusal_still_names_the_entry(tmp_path):
    W = np.array([[1.0, 2.0 ** -30 + 1.0]], dtype=np.float64)   # not a float32
    src = tmp_path / "src.npz"
    np.savez(src, **{"0.weight": W, "0.bias": np.zeros(1)})
    net = load(src)
    with pytest.raises(InputError, match=r"W1\[0,1\] = .* is not exactly representable as float32"):
        save(net, tmp_path / "o.safetensors", dtype="float32")
    assert not (tmp_path / "o.safetensors").exists()
