"""Binary weight files: ``.npz``, ``.safetensors``, torch ``state_dict`` and ONNX (exact).

This module holds the ``.npz`` and ``.safetensors`` codecs, the key layouts, the exact conversion
of float arrays and the dispatch by suffix; the torch and ONNX readers are in
:mod:`algebra.io.torch` and :mod:`algebra.io.onnx`.

Every stored binary float (float16, bfloat16, float32, float64) becomes the exact rational it
denotes (a dyadic rational, see :func:`~algebra.rationals.from_float`); integer tensors are exact
integers.  NaN, infinities, malformed or truncated files, wrong shapes and anything that is not
plain tensor data are refused with one :class:`~algebra.exceptions.InputError` naming the file,
and where it applies the tensor and the index.

Key layouts of a dict of tensors (``.npz``, ``.safetensors``, ``.pt``/``.pth``/``.bin``):

* ``nn.Sequential``: ``0.weight``, ``0.bias``, ``2.weight``, … (any prefix, e.g. ``net.0.weight``);
* named layers: ``fc1.weight``, ``fc2.bias``, ``layers.0.weight``, … and a lone ``weight``/``bias``;
* ``W1, b1, W2, b2, …`` (also ``w1``/``B1``, numbered from 0 or 1).

* sklearn ``coefs_0``, ``intercepts_0``, … (stored (in, out)) and Keras ``dense/kernel:0``, ….

Layers are ordered by what the names mean (:func:`layer_order`: the numbers in the prefixes,
``10`` after ``2``), never by sorting text; a file whose order cannot be told is refused with its
keys.  ``up_proj``/``gate_proj``/``down_proj`` and ``intermediate.dense``/``output.dense`` name MLP
blocks, read by :mod:`algebra.io.blocks` (:class:`BlockLayoutError` here).  Weights have shape
(out, in) like ``torch.nn.Linear.weight``, or (in, out) when the naming says so or only that
layout fits the shapes (:func:`orient_layers`; the layout read is in the network's
``provenance``); a missing bias is zero; any other tensor is refused (it would change the
function).  ONNX graphs may be a chain of ``Gemm`` or
``MatMul`` (+ ``Add``) layers with ``Relu`` between them, optionally after a leading ``Flatten``.

The decoders of ``.safetensors`` (a JSON header followed by raw little-endian data) and
``.npz`` (``allow_pickle=False``) need only numpy; torch files are opened with
``torch.load(..., weights_only=True)``, so a pickled object is refused, never executed.

>>> import tempfile, pathlib
>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, "1/2"], [0, -3]], [["-1/4", 2]]], [[0, 1], [5]])
>>> path = pathlib.Path(tempfile.mkdtemp()) / "net.safetensors"
>>> save_binary(net, path)
>>> load_binary(path) == net
True
>>> sorted(read_tensors(path))
['0.bias', '0.weight', '2.bias', '2.weight']
>>> save_binary(net.with_parameter("W2[0,1]", "1/3"), path)
Traceback (most recent call last):
    ...
algebra.exceptions.InputError: ...net.safetensors: W2[0,1] = 1/3 is not exactly representable as float32
"""

from __future__ import annotations

import json
import math
import re
import struct
import zipfile
from pathlib import Path

from ..exceptions import InputError, MissingDependencyError
from ..linalg import QMatrix
from ..network import Network
from ..rationals import Q, q_str
from .native import write_atomic

__all__ = ["load_binary", "save_binary", "read_tensors", "network_from_tensors", "matrix_from_array",
           "BINARY_SUFFIXES", "WRITABLE_SUFFIXES", "ARRAY_READERS", "GRAPH_READERS", "read_npz",
           "read_safetensors", "safetensors_header", "dyadic_integer_array", "exact_qmatrix", "exact_parts", "check_dtype", "numpy_or_error",
           "first_line", "layer_order", "orient_layers", "block_prefixes",
           "read_shapes", "BlockLayoutError", "BLOCK_NAMES"]

BINARY_SUFFIXES = (".npz", ".safetensors", ".pt", ".pth", ".bin", ".onnx")
"""File suffixes read by :func:`load_binary`."""

WRITABLE_SUFFIXES = (".npz", ".safetensors")
"""File suffixes written by :func:`save_binary`."""

_MAX_HEADER = 100 * 2 ** 20  # largest safetensors JSON header accepted (the format's own limit)

ARRAY_READERS: dict = {}
"""``suffix -> reader(path) -> {name: numpy array}`` of the dict-of-tensors formats (``.npz`` and
``.safetensors`` here; :mod:`algebra.io` adds the readers of :mod:`algebra.io.torch` for
``.pt``/``.pth``/``.bin``).  Readers are called on an existing file."""

GRAPH_READERS: dict = {}
"""``suffix -> (load_network(path), read_initializers(path))`` of the graph formats
(:mod:`algebra.io` adds :mod:`algebra.io.onnx` for ``.onnx``)."""

_SAFETENSORS_DTYPES = {  # name -> (numpy dtype string, itemsize)
    "F64": ("<f8", 8), "F32": ("<f4", 4), "F16": ("<f2", 2), "BF16": ("<u2", 2),
    "I64": ("<i8", 8), "I32": ("<i4", 4), "I16": ("<i2", 2), "I8": ("i1", 1),
    "U64": ("<u8", 8), "U32": ("<u4", 4), "U16": ("<u2", 2), "U8": ("u1", 1),
}



def load_binary(path: str | Path, **options) -> Network:
    """Read a ReLU network from a ``.npz``, ``.safetensors``, torch or ``.onnx`` file, exactly.

    Parameters
    ----------
    path : str or Path
        The weight file; its suffix selects the reader.
    **options
        Reserved for block readers (``activation``, ``skip``, …); a network takes none.

    Returns
    -------
    Network
        Every weight is the exact rational the stored value denotes.

    Raises
    ------
    InputError
        Unknown suffix, unreadable/truncated/corrupt file, NaN or infinity (named with tensor and
        index), unsupported tensor or layout, shapes that do not chain, a torch file that
        ``weights_only=True`` refuses, an ONNX graph with other operators.
    MissingDependencyError
        numpy (``netfibers[io]``), onnx (``netfibers[io]``) or torch (``netfibers[torch]``) is
        not installed.
    """
    p = Path(path)
    if options:
        raise InputError(f"unexpected options {sorted(options)} for a network weight file",
                         source=str(p))
    suffix = p.suffix.lower()
    if suffix in GRAPH_READERS:
        return GRAPH_READERS[suffix][0](p)
    return network_from_tensors(_read_arrays(p), source=str(p))


def read_tensors(path: str | Path) -> dict[str, tuple[tuple[int, ...], list]]:
    """All tensors of a weight file as ``{name: (shape, flat row-major list of exact Q)}``.

    For ``.onnx`` files the initializers are returned.

    >>> import tempfile, pathlib, numpy as np
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.npz"
    >>> np.savez(path, a=np.array([[0.5, -0.1]], dtype=np.float32), n=np.array([3], dtype=np.int8))
    >>> t = read_tensors(path)
    >>> t["a"][0], t["a"][1][0], t["n"]
    ((1, 2), 1/2, ((1,), [3]))
    >>> t["a"][1][1] == Q(-13421773, 134217728)   # float32(-0.1), exactly
    True
    """
    p = Path(path)
    suffix = p.suffix.lower()
    arrays = GRAPH_READERS[suffix][1](p) if suffix in GRAPH_READERS else _read_arrays(p)
    out = {}
    for name, arr in arrays.items():
        shape = tuple(int(n) for n in arr.shape)
        flat = arr.reshape(1, -1) if arr.size else arr.reshape(0, 0)
        out[name] = (shape, exact_qmatrix(flat, name, str(p)).entries())
    return out


def network_from_tensors(arrays: dict, source: str | None = None) -> Network:
    """Build a :class:`Network` from a dict of numpy arrays in one of the supported key layouts.

    Raises
    ------
    InputError
        Unknown keys, a bias without weight, wrong ranks or shapes, layers that do not chain.
    """
    if not arrays:
        raise InputError("the file holds no tensors", source)
    layers, in_by_out = layer_order(list(arrays), source)
    strict = not in_by_out and not _WB.match(layers[0][0])   # torch .weight: always (out, in)
    for wkey, bkey in layers:
        if arrays[wkey].ndim != 2:
            raise InputError(f"a weight must be 2-D (out, in), got shape "
                             f"{tuple(arrays[wkey].shape)}", source, wkey)
    transpose, note = orient_layers(
        [tuple(int(n) for n in arrays[w].shape) for w, _ in layers],
        [int(arrays[b].shape[0]) if b is not None and arrays[b].ndim == 1 else None
         for _, b in layers], in_by_out, source, [w for w, _ in layers], strict=strict,
        bias_keys=[b for _, b in layers])
    ws, bs = [], []
    prev_out, prev_name = None, None
    for wkey, bkey in layers:
        w = arrays[wkey].T if transpose else arrays[wkey]
        n_out, n_in = (int(n) for n in w.shape)
        if n_out == 0 or n_in == 0:
            raise InputError(f"empty weight of shape {tuple(w.shape)}", source, wkey)
        if prev_out is not None and n_in != prev_out:
            raise InputError(f"has {n_in} input columns but the previous layer {prev_name!r} has "
                             f"{prev_out} outputs (layers are ordered by key: "
                             f"{', '.join(k for k, _ in layers)})", source, wkey)
        ints = dyadic_integer_array(w, wkey, source)   # exact N / D, kept as arrays
        W = ints if ints is not None else exact_parts(w, wkey, source)[0]
        if bkey is None:
            b = [Q(0)] * n_out
        else:
            bias = arrays[bkey]
            if bias.ndim != 1 or int(bias.shape[0]) != n_out:
                raise InputError(f"a bias of {wkey!r} must have shape ({n_out},), got "
                                 f"{tuple(bias.shape)}", source, bkey)
            b = exact_qmatrix(bias.reshape(1, -1), bkey, source).entries()
        ws.append(W)
        bs.append(b)
        prev_out, prev_name = n_out, wkey
    # the weights stay numpy integer arrays; a layer's QMatrix is made when an algorithm asks
    net = Network._from_integer_arrays(ws, bs, source)
    net.derived("provenance", lambda: (f"{note} (layers in the order "
                                       f"{', '.join(k for k, _ in layers)})",))
    return net


def save_binary(net: Network, path: str | Path, *, dtype: str = "float32") -> None:
    """Write *net* as ``.npz`` or ``.safetensors`` in the ``nn.Sequential`` layout.

    Keys are ``0.weight``, ``0.bias``, ``2.weight``, … (a ReLU sits at the odd indices), so the
    file loads into ``torch.nn.Sequential(Linear, ReLU, Linear, …)``.

    Parameters
    ----------
    net : Network
    path : str or Path
        Ends in ``.npz`` or ``.safetensors``.
    dtype : {"float32", "float64"}
        Every parameter must be exactly representable in it.

    Raises
    ------
    InputError
        A parameter is not exactly representable (the first one is named, e.g.
        ``W2[3,1] = 1/3 is not exactly representable as float32``), or the suffix/dtype is not
        supported.  Nothing is written then.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in WRITABLE_SUFFIXES:
        raise InputError(f"cannot write {suffix or '(no suffix)'!r} weights; use .npz or .safetensors",
                         source=str(p))
    if dtype not in ("float32", "float64"):
        raise InputError(f"unsupported dtype {dtype!r}; use float32 or float64", source=str(p))
    if not isinstance(net, Network):
        raise InputError(f"cannot write a {type(net).__name__} as weights", source=str(p))
    np = numpy_or_error()
    tensors = {}
    for l in range(net.depth):
        b = net.biases[l]
        W = _float_from_integers(np, net.integer_weights(l), dtype)   # the arrays, when kept
        if W is None:
            w = net.layer(l)[0]
            W = _float_array(np, w.entries(), w.shape, dtype, f"W{l + 1}", w.ncols, str(p))
        tensors[f"{2 * l}.weight"] = W
        tensors[f"{2 * l}.bias"] = _float_array(np, b, (len(b),), dtype, f"b{l + 1}", None, str(p))
    if suffix == ".npz":
        import io
        buf = io.BytesIO()
        np.savez(buf, **tensors)
        data = buf.getvalue()
    else:
        data = _safetensors_bytes(tensors)
    write_atomic(p, data)


def matrix_from_array(arr, name: str = "array") -> QMatrix:
    """The exact :class:`QMatrix` of a 1-D or 2-D numpy float/integer array (1-D: one row).

    >>> import numpy as np
    >>> matrix_from_array(np.array([[0.5, -3], [2 ** -20, 1e3]], dtype=np.float32))
    QMatrix([[1/2, -3], [1/1048576, 1000]])
    >>> matrix_from_array(np.array([1.0, np.nan]))
    Traceback (most recent call last):
        ...
    algebra.exceptions.InputError: array: NaN at index [0,1] has no exact value
    """
    np = numpy_or_error()
    arr = check_dtype(np, np.asarray(arr), name, None)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise InputError(f"expected a 1-D or 2-D array, got shape {tuple(arr.shape)}", where=name)
    return exact_qmatrix(arr, name, None)


# -- readers -------------------------------------------------------------------------------------
def _read_arrays(p: Path) -> dict:
    """``{name: numpy array}`` of a dict-of-tensors file (float arrays widened exactly)."""
    if not p.exists():
        raise InputError("no such file", source=str(p))
    suffix = p.suffix.lower()
    if suffix not in ARRAY_READERS:
        raise InputError(f"unknown weight file type {suffix or '(no suffix)'!r}; expected one of "
                         f"{', '.join(BINARY_SUFFIXES)}", source=str(p))
    return ARRAY_READERS[suffix](p)


def read_npz(p: Path) -> dict:
    np = numpy_or_error()
    try:
        data = np.load(p, allow_pickle=False)
        if not hasattr(data, "files"):
            raise InputError("a single array (.npy data), not an .npz archive of named arrays",
                             source=str(p))
        with data:
            out = {}
            for name in data.files:
                try:
                    arr = data[name]
                except ValueError as exc:  # object arrays need pickle: refused
                    raise InputError(f"cannot be read without unpickling ({first_line(exc)}); "
                                     "netfibers never unpickles", source=str(p), where=name) from None
                out[name] = check_dtype(np, arr, name, str(p))
            return out
    except InputError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, zipfile.LargeZipFile) as exc:
        raise InputError(f"not a readable .npz archive (truncated or corrupt?): {first_line(exc)}",
                         source=str(p)) from None


def read_safetensors(p: Path) -> dict:
    """``{name: array}`` of a ``.safetensors`` file: the JSON header is read and checked first;
    the arrays are read-only views of a memory map of the data (nothing is read until a tensor
    is used; bfloat16 is widened to float32 exactly when it is converted here)."""
    return {name: get() for name, get in safetensors_header(p).items()}


def safetensors_header(p: Path) -> dict:
    """``{name: get()}`` of a ``.safetensors`` file from its header alone: every entry is
    checked (dtype, shape, offsets inside the file) and ``get()`` returns the tensor as a
    read-only array viewing a memory map of the file."""
    np = numpy_or_error()
    src = str(p)
    try:
        size = p.stat().st_size
        with open(p, "rb") as fh:
            head = fh.read(8)
            if len(head) < 8:
                raise InputError("not a .safetensors file (shorter than its 8-byte header length)",
                                 source=src)
            (n,) = struct.unpack("<Q", head)
            if n > _MAX_HEADER or 8 + n > size:
                raise InputError(f"not a .safetensors file or truncated (header of {n} bytes, file "
                                 f"of {size} bytes)", source=src)
            text = fh.read(n)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source=src) from None
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:   # JSONDecodeError, int limit
        raise InputError(f"corrupt .safetensors header: {first_line(exc)}", source=src) from None
    if not isinstance(header, dict):
        raise InputError("corrupt .safetensors header: not a JSON object", source=src)
    data_len = size - 8 - n
    mapped = []                                            # one memory map, made on first use

    def data():
        if not mapped:
            try:
                mapped.append(np.memmap(p, dtype=np.uint8, mode="r", offset=8 + n, shape=(data_len,))
                              if data_len else np.zeros(0, dtype=np.uint8))
            except (OSError, ValueError) as exc:
                raise InputError(f"cannot read: {first_line(exc)}", source=src) from None
        return mapped[0]

    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        if not isinstance(info, dict) or not {"dtype", "shape", "data_offsets"} <= set(info):
            raise InputError("corrupt .safetensors header entry", source=src, where=name)
        dtype, shape, offsets = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in _SAFETENSORS_DTYPES:
            raise InputError(f"unsupported dtype {dtype!r} (supported: "
                             f"{', '.join(_SAFETENSORS_DTYPES)})", source=src, where=name)
        if (not isinstance(shape, list) or not all(type(s) is int and s >= 0 for s in shape)
                or not isinstance(offsets, list) or len(offsets) != 2
                or not all(type(o) is int for o in offsets)):
            raise InputError("corrupt .safetensors header entry (shape or data_offsets)",
                             source=src, where=name)
        npdtype, isize = _SAFETENSORS_DTYPES[dtype]
        begin, end = offsets
        count = math.prod(shape)
        if not 0 <= begin <= end or end - begin != count * isize:
            raise InputError(f"corrupt .safetensors header: data_offsets {offsets} do not fit shape "
                             f"{shape} of {dtype}", source=src, where=name)
        if end > data_len:
            raise InputError(f"truncated .safetensors file (tensor needs bytes up to {end}, the data "
                             f"section has {data_len})", source=src, where=name)

        def get(begin=begin, end=end, npdtype=npdtype, shape=tuple(shape), bf16=dtype == "BF16"):
            arr = data()[begin:end].view(npdtype).reshape(shape)
            if bf16:  # widen exactly: bfloat16 is the top half of a float32
                arr = (arr.astype(np.uint32) << 16).view(np.float32)
            return arr
        out[name] = get
    return out


# -- exact conversion ------------------------------------------------------------------------------
def check_dtype(np, arr, name: str, source: str):
    """Accept real float and integer arrays; bfloat16 (ml_dtypes) is widened to float32 exactly."""
    if arr.dtype.name == "bfloat16":
        arr = arr.astype(np.float32)
    if arr.dtype.kind not in "fiu" or arr.dtype.itemsize > 8:
        raise InputError(f"unsupported dtype {arr.dtype} (expected float16/32/64, bfloat16 or an "
                         "integer type)", source, name)
    return arr


def exact_qmatrix(arr, name: str, source: str | None) -> QMatrix:
    """The exact rational matrix of a 2-D float or integer array (no per-entry ``fmpq`` work)."""
    return exact_parts(arr, name, source)[0]


def exact_parts(arr, name: str, source: str | None):
    """``(QMatrix, (N, D) or None)``: the exact matrix and, when the integers fit in int64, a
    numpy integer array N and an int D with ``matrix == N / D``.

    A float array is split as ``M * 2**E`` with integer significands ``M`` read from its IEEE 754
    bit fields and rewritten over one power of two; the integers then go to FLINT in one call.
    """
    np = numpy_or_error()
    n, m = (int(s) for s in arr.shape)
    if arr.size == 0:
        return QMatrix.zeros(n, m), None
    kind = arr.dtype.kind
    if kind in "iu":
        hint = (arr.astype(np.int64), 1) if kind == "i" or arr.dtype.itemsize < 8 else None
        return QMatrix.from_integer_rows(arr.reshape(n, m).tolist(), m), hint
    if kind != "f":
        raise InputError(f"unsupported dtype {arr.dtype}", source, name)
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        value = arr[idx]
        raise InputError(f"{'NaN' if value != value else 'infinity'} at index "
                         f"[{','.join(map(str, idx))}] has no exact value", source, name)
    flat = np.ascontiguousarray(arr.reshape(-1)).astype(arr.dtype.newbyteorder("="), copy=False)
    M, E = _significands(np, flat)
    nonzero = M != 0
    if not nonzero.any():
        return QMatrix.zeros(n, m), (np.zeros((n, m), dtype=np.int64), 1)
    emin = int(E[nonzero].min())
    shift = np.where(nonzero, E - emin, 0)
    bits = int(np.abs(M).max()).bit_length()
    if int(shift.max()) + bits > 62:  # strip trailing zero bits (M & -M is the lowest set bit)
        low = np.frexp(np.where(nonzero, M & -M, 1).astype(np.float64))[1].astype(np.int64) - 1
        M, E = M >> low, E + low
        bits = int(np.abs(M).max()).bit_length()
        emin = int(E[nonzero].min())
        shift = np.where(nonzero, E - emin, 0)
    span = int(shift.max()) + bits
    if span <= 62:
        I = (M.astype(np.int64) << shift).reshape(n, m)
        ints = I.tolist()
    else:  # huge exponent range: Python integers
        flat = [int(a) << int(s) for a, s in zip(M.tolist(), shift.tolist())]
        ints = [flat[i * m:(i + 1) * m] for i in range(n)]
    if emin >= 0:
        hint = (I << emin, 1) if span + emin <= 62 else None
        return QMatrix.from_integer_rows([[v << emin for v in r] for r in ints], m), hint
    hint = (I, 1 << -emin) if span <= 62 else None
    return QMatrix.from_integer_rows(ints, m, den=1 << -emin), hint


def dyadic_integer_array(arr, name: str, source: str | None, *, chunk: int = 1 << 16):
    """``(N, D)``: an int64 array N of the shape of the 2-D float or integer array *arr* and an
    int D (a power of two) with ``arr == N / D`` exactly, or None when the integers would not
    fit in int64 (exponents spread too far; the caller falls back to rationals).

    Why it is exact: a non-zero binary float x is ``M * 2**E`` with an integer significand
    ``|M| < 2**(p)`` (p = 11, 24, 53 bits) and E its unit in the last place, which never
    decreases as ``|x|`` grows; so the smallest non-zero ``|x|`` has the smallest E, called e.
    With ``e0 = min(e, 0)`` and ``D = 2**-e0`` every ``x * D`` is an integer, of magnitude below
    ``2**(E_max - e0 + p)``, checked ``<= 2**62`` first.  Scaling a float by a power of two up
    (no overflow by that bound, subnormals included) is exact, and so is turning an integral float into
    an int64.  Work is done in chunks of *chunk* entries (little memory beyond N); NaN and
    infinities are refused, the first one named by its index.
    """
    np = numpy_or_error()
    if arr.ndim != 2:
        return None
    kind = arr.dtype.kind
    if kind in "iu":
        if kind == "u" and arr.dtype.itemsize == 8:
            return None
        return arr.astype(np.int64), 1
    if kind != "f" or arr.dtype.itemsize not in _IEEE:
        return None
    flat = arr.reshape(-1)
    if not arr.dtype.isnative:
        flat = flat.astype(arr.dtype.newbyteorder("="))
    work = np.float32 if flat.dtype.itemsize == 2 else flat.dtype.type   # float16 is widened
    total = flat.shape[0]
    amax, amin = 0.0, math.inf
    for s in range(0, total, chunk):
        c = flat[s:s + chunk]
        finite = np.isfinite(c)
        if not finite.all():
            k = s + int(np.argmin(finite))
            idx = np.unravel_index(k, arr.shape)
            value = flat[k]
            raise InputError(f"{'NaN' if value != value else 'infinity'} at index "
                             f"[{','.join(str(int(i)) for i in idx)}] has no exact value", source, name)
        mag = np.abs(c)
        amax = max(amax, float(mag.max()))
        mag[mag == 0] = np.inf
        amin = min(amin, float(mag.min()))
    N = np.zeros(arr.shape, dtype=np.int64)
    if amax == 0:
        return N, 1
    mb = _IEEE[flat.dtype.itemsize][0]
    e = _ulp_exponent(np, flat.dtype, amin)
    e0 = min(e, 0)
    if _ulp_exponent(np, flat.dtype, amax) - e0 + mb + 1 > 62:
        return None
    out = N.reshape(-1)
    factors, r = [], -e0                  # 2**-e0 as powers of two that are finite in *work*
    while r > 0:
        factors.append(work(2.0 ** min(r, 100)))
        r -= min(r, 100)
    for s in range(0, total, chunk):
        x = flat[s:s + chunk].astype(work, copy=False)
        for f in factors:
            x = x * f                     # exact: a power of two, no overflow by the bound
        out[s:s + chunk] = x              # integral floats below 2**62: exact as int64
    return N, 1 << -e0


def _ulp_exponent(np, dtype, value: float) -> int:
    """E of ``value = M * 2**E`` (the float's unit in the last place) for a positive finite
    *value* of float *dtype*, read from its IEEE 754 bit fields."""
    size = dtype.itemsize
    mb, eb = _IEEE[size]
    bits = int(np.array([value], dtype=dtype).view({2: np.uint16, 4: np.uint32, 8: np.uint64}[size])[0])
    field = (bits >> mb) & ((1 << eb) - 1)
    return max(field, 1) - (((1 << (eb - 1)) - 1) + mb)


_IEEE = {2: (10, 5), 4: (23, 8), 8: (52, 11)}  # float itemsize -> (mantissa bits, exponent bits)


def _significands(np, flat):
    """Integer significands M and exponents E (int64) with ``flat == M * 2**E`` exactly, read
    from the IEEE 754 bit fields (float16/32/64; bfloat16 arrives widened to float32)."""
    size = flat.dtype.itemsize
    if size not in _IEEE:
        raise InputError(f"unsupported float dtype {flat.dtype}")
    mb, eb = _IEEE[size]
    work = np.int64 if size == 8 else np.int32  # int32 halves the memory traffic for f16/f32
    bits = flat.view({2: np.uint16, 4: np.uint32, 8: np.uint64}[size])
    field = ((bits >> mb) & ((1 << eb) - 1)).astype(work)
    M = (bits & ((1 << mb) - 1)).astype(work)
    M |= (field != 0).astype(work) << mb  # the implicit leading bit of normal numbers
    E = np.maximum(field, 1) - (((1 << (eb - 1)) - 1) + mb)  # subnormals share exponent 1
    negative = (bits >> (8 * size - 1)).astype(bool)
    np.negative(M, out=M, where=negative)
    return M, E


def _float_from_integers(np, hint, dtype):
    """The float array of *dtype* equal to ``N / D`` for ``hint = (N, D)``, or None (no hint,
    or some entry not exactly representable: the caller then names it entry by entry).  The
    checks are exact (:mod:`algebra.dyadic`: a round trip through the integers, then through
    float32)."""
    from ..dyadic import exact_float64, is_float32_exact
    if hint is None:
        return None
    F = exact_float64(*hint)
    if F is None:
        return None
    if dtype == "float64":
        return F
    if not is_float32_exact(F):
        return None
    with np.errstate(over="ignore"):
        return F.astype(np.float32)


def _float_array(np, values, shape, dtype, label, ncols, source):
    """Numpy array of *values* in *dtype*, refusing (naming the entry) any inexact one."""
    target = np.float32 if dtype == "float32" else np.float64
    floats = []
    for k, q in enumerate(values):
        p_, d_ = int(q.p), int(q.q)
        ok = d_ & (d_ - 1) == 0  # a binary float is a dyadic rational
        f = 0.0
        if ok:
            try:
                f = p_ / d_  # correctly rounded
                ok = f.as_integer_ratio() == (p_, d_) and (dtype == "float64" or
                                                            float(np.float32(f)) == f)
            except OverflowError:
                ok = False
        if not ok:
            where = f"{label}[{k // ncols},{k % ncols}]" if ncols else f"{label}[{k}]"
            raise InputError(f"{where} = {q_str(q)} is not exactly representable as {dtype}",
                             source=source)
        floats.append(f)
    with np.errstate(over="ignore"):
        return np.array(floats, dtype=target).reshape(shape)


def _safetensors_bytes(tensors: dict) -> bytes:
    """The ``.safetensors`` encoding of float arrays (header padded to 8 bytes, as the reference)."""
    header, offset, chunks = {}, 0, []
    for name, arr in tensors.items():
        data = arr.astype(arr.dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": "F32" if arr.dtype.itemsize == 4 else "F64",
                        "shape": list(arr.shape), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        chunks.append(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(chunks)


# -- key layouts ------------------------------------------------------------------------------------
_WB = re.compile(r"^([WwBb])_?(\d+)$")
_SKLEARN = re.compile(r"^(coefs|intercepts)_[./]?(\d+)$")
_WEIGHT_SUFFIXES = (".weight", "/kernel:0", "/kernel", ".kernel")   # kernel: Keras (in, out)
_BIAS_SUFFIXES = (".bias", "/bias:0", "/bias")
_BATCHNORM_SUFFIXES = ("running_mean", "running_var", "num_batches_tracked", "moving_mean",
                       "moving_variance")
BLOCK_NAMES = ("up_proj", "gate_proj", "down_proj", "intermediate.dense", "output.dense")
"""Layer names that mean an MLP block (LLaMA ``up/gate/down``, BERT ``intermediate/output``)."""
_LAST_NAMES = {"out", "output", "head", "classifier", "final", "last", "fc_out", "out_layer"}
_FIRST_NAMES = {"input", "in", "first", "fc_in", "in_layer"}


class BlockLayoutError(InputError):
    """The keys are those of MLP blocks (``up_proj``/``down_proj``, ``intermediate``/``output``),
    not of a network; ``prefixes`` lists the block prefixes found."""

    def __init__(self, problem: str, source: str | None = None, prefixes=()):
        super().__init__(problem, source)
        self.prefixes = tuple(prefixes)


def _key_list(keys, limit: int = 12) -> str:
    keys = list(keys)
    shown = ", ".join(keys[:limit])
    return shown + (f", … ({len(keys)} keys)" if len(keys) > limit else "")


def _strip(key: str, suffixes) -> str | None:
    """The layer prefix of *key* when it ends in one of *suffixes* (or is the bare name)."""
    for suf in suffixes:
        bare = suf.lstrip("./")
        if key == bare:
            return ""
        if key.endswith(suf):
            return key[:-len(suf)]
    return None


def block_prefixes(keys) -> list[str]:
    """Prefixes P of the MLP blocks named in *keys* (``P`` + ``up_proj.weight``, …), in file order.

    >>> block_prefixes(["encoder.layer.0.intermediate.dense.weight", "encoder.layer.0.output.dense.bias",
    ...                 "encoder.layer.1.intermediate.dense.weight", "pooler.dense.weight"])
    ['encoder.layer.0.', 'encoder.layer.1.']
    >>> block_prefixes(["fc1.weight", "fc2.weight"])
    []
    """
    out = []
    for k in keys:
        for name in BLOCK_NAMES:
            for suf in (".weight", ".bias"):
                tail = name + suf
                if k == tail or k.endswith("." + tail):
                    p = k[:-len(tail)]
                    if p not in out:
                        out.append(p)
    return out


def layer_order(keys: list[str], source: str | None = None):
    """``([(weight_key, bias_key or None), …] in layer order, stored_in_by_out)``.

    The order comes from what the names mean, never from sorting text: ``W1, b1, W2, …``;
    sklearn ``coefs_0``/``intercepts_0``; ``.weight``/``.bias`` (and Keras ``/kernel``/``/bias``)
    layers whose prefixes differ only in numbers (``0``, ``2``, ``10`` as numbers; ``fc1``,
    ``fc2``; ``layers.0``, ``layers.1``; Keras ``dense``, ``dense_1``), optionally with one first
    (``input``) or last (``out``, ``head``, ``classifier``, …) layer named so.
    ``stored_in_by_out`` is True when the naming says weights are stored (in, out) (sklearn
    ``coefs_``, Keras ``kernel``).

    Raises
    ------
    BlockLayoutError
        The keys name MLP blocks (``up_proj``/``gate_proj``/``down_proj``,
        ``intermediate.dense``/``output.dense``).
    InputError
        The order cannot be determined (the keys are listed), a BatchNorm's statistics (a
        state_dict does not store its eps), a bias without weight, any other tensor.

    >>> layer_order(["10.weight", "2.weight", "0.weight", "0.bias"])
    ([('0.weight', '0.bias'), ('2.weight', None), ('10.weight', None)], False)
    >>> layer_order(["hidden.weight", "final_layer.weight"])
    Traceback (most recent call last):
        ...
    algebra.exceptions.InputError: cannot tell the order of the layers from the key names (final_layer.weight, hidden.weight); name them 0.weight, 2.weight, … (nn.Sequential), fc1.weight, fc2.weight, … or W1, b1, W2, …
    """
    blocks = block_prefixes(keys)
    if blocks:
        where = ", ".join(repr(p) for p in blocks[:4]) + (", …" if len(blocks) > 4 else "")
        raise BlockLayoutError(
            f"{'an MLP block' if len(blocks) == 1 else f'{len(blocks)} MLP blocks'} (prefix "
            f"{where}: up/gate/down or intermediate/output weights), not a network: read "
            "blocks with the block commands and --activation (netfibers info lists them)",
            source, blocks)
    bn = sorted(k for k in keys if k.rsplit(".", 1)[-1].split("/")[-1].split(":")[0]
                in _BATCHNORM_SUFFIXES)
    if bn:
        raise InputError("unsupported tensor: BatchNorm statistics in a state_dict cannot be folded exactly (the file "
                         "does not store eps); load the module with Network.from_torch(model.eval()), "
                         "which folds BatchNorm1d into the preceding Linear", source, bn[0])
    wb = [k for k in keys if _WB.match(k)]
    sk = [k for k in keys if _SKLEARN.match(k)]
    if wb or sk:
        pattern, wkind = (_WB, "Ww") if wb else (_SKLEARN, ("coefs",))
        other = [k for k in keys if not pattern.match(k)]
        if other:
            raise InputError(f"mixes {'W1/b1' if wb else 'coefs_/intercepts_'} keys with other "
                             f"keys ({_key_list(other)})", source, other[0])
        ws, bs = {}, {}
        for k in keys:
            m = pattern.match(k)
            (ws if m.group(1) in wkind else bs).setdefault(int(m.group(2)), []).append(k)
        dup = [v for d in (ws, bs) for v in d.values() if len(v) > 1]
        if dup:
            raise InputError(f"duplicate layer numbers ({', '.join(dup[0])})", source)
        ws = {i: v[0] for i, v in ws.items()}
        bs = {i: v[0] for i, v in bs.items()}
        for i, k in bs.items():
            if i not in ws:
                raise InputError("a bias without its weight", source, k)
        order = sorted(ws)
        if order != list(range(order[0], order[0] + len(order))) or order[0] not in (0, 1):
            raise InputError(f"weights must be numbered consecutively from 0 or 1, got "
                             f"{', '.join(ws[i] for i in order)}", source)
        return [(ws[i], bs.get(i)) for i in order], bool(sk)
    weights, biases, kernel = {}, {}, set()
    for k in keys:
        p = _strip(k, _WEIGHT_SUFFIXES)
        if p is not None:
            weights[p] = k
            if "kernel" in k[len(p):]:
                kernel.add(p)
            continue
        p = _strip(k, _BIAS_SUFFIXES)
        if p is None:
            raise InputError("unsupported tensor: expected the .weight/.bias of linear layers "
                             "(nn.Sequential '0.weight', named 'fc1.weight'), W1, b1, … or "
                             "sklearn coefs_0, intercepts_0, …", source, k)
        biases[p] = k
    for prefix, k in biases.items():
        if prefix not in weights:
            raise InputError("a bias without its weight", source, k)
    if not weights:
        raise InputError(f"no weight among the keys ({_key_list(keys)})", source)
    if kernel and len(kernel) != len(weights):
        raise InputError(f"mixes Keras kernel and torch weight keys ({_key_list(keys)})", source)
    order = _order_prefixes(list(weights), keys, source)
    return [(weights[p], biases.get(p)) for p in order], bool(kernel)


def _order_prefixes(prefixes: list[str], keys, source) -> list[str]:
    """Layer prefixes in layer order, from the numbers in them (never by sorting text)."""
    if len(prefixes) == 1:
        return prefixes
    first = [p for p in prefixes if p.rstrip("./").rsplit(".", 1)[-1] in _FIRST_NAMES]
    last = [p for p in prefixes if p.rstrip("./").rsplit(".", 1)[-1] in _LAST_NAMES]
    middle = [p for p in prefixes if p not in first and p not in last]
    ordered = None
    if len(first) <= 1 and len(last) <= 1 and middle:
        stem = {}
        for p in middle:   # Keras: dense, dense_1, dense_2 (the first has no number)
            if not re.search(r"\d", p) and any(q.startswith(p + "_") for q in middle):
                stem[p] = p + "_0"
        skeletons = {re.sub(r"\d+", "#", stem.get(p, p)) for p in middle}
        numbers = {p: tuple(int(n) for n in re.findall(r"\d+", stem.get(p, p))) for p in middle}
        if len(skeletons) == 1 and len(set(numbers.values())) == len(middle) \
                and (len(middle) == 1 or "#" in next(iter(skeletons))):
            ordered = first + sorted(middle, key=numbers.__getitem__) + last
    if ordered is None:
        raise InputError(f"cannot tell the order of the layers from the key names "
                         f"({_key_list(sorted(keys))}); name them 0.weight, 2.weight, … "
                         "(nn.Sequential), fc1.weight, fc2.weight, … or W1, b1, W2, …", source)
    return ordered


def orient_layers(shapes: list[tuple], bias_lengths: list, stored_in_by_out: bool,
                  source: str | None = None, keys=None, *, strict: bool = False,
                  bias_keys=None) -> tuple[bool, str]:
    """``(transpose, note)``: whether the stored weights must be transposed to (out, in), and a
    sentence saying which layout was read.

    The layout the naming says is taken when the shapes fit it (biases of length ``out``, each
    layer's ``in`` the previous ``out``); else the other layout when the shapes fit only that
    (sklearn ``coefs_``/Keras ``kernel`` are (in, out), torch ``weight`` and ``W1`` are
    (out, in)); else the shapes fit neither and the error says how to fix the file.  With
    *strict* (names whose framework fixes the layout: torch ``.weight``) the other layout is
    never taken.

    >>> orient_layers([(64, 32), (32, 10)], [32, 10], False)
    (True, 'weights read as (in, out) (the sklearn coefs_ / Keras kernel layout): only that layout fits the shapes')
    >>> orient_layers([(32, 64), (10, 32)], [32, 10], False)[0]
    False
    """
    keys = list(keys or [f"layer {i + 1}" for i in range(len(shapes))])

    def failure(t):
        """None when the shapes fit layout *t* (True: stored (in, out)), else the first misfit."""
        prev = None
        for i, (shape, nb) in enumerate(zip(shapes, bias_lengths)):
            n_out, n_in = (shape[1], shape[0]) if t else shape
            if nb is not None and nb != n_out:
                bk = bias_keys[i] if bias_keys else f"the bias of {keys[i]}"
                return f"{bk}: a bias of {keys[i]!r} must have shape ({n_out},), got ({nb},)"
            if prev is not None and n_in != prev:
                return (f"{keys[i]}: has {n_in} input columns but the previous layer "
                        f"{keys[i - 1]!r} has {prev} outputs")
            prev = n_out
        return None
    names = {False: "(out, in) (the torch nn.Linear layout)",
             True: "(in, out) (the sklearn coefs_ / Keras kernel layout)"}
    said = stored_in_by_out
    first = failure(said)
    if first is None:
        return said, f"weights read as {names[said]}"
    other_fits = failure(not said) is None
    if other_fits and strict:
        raise InputError(f"{first} (layers in the order {', '.join(keys)}); the shapes would fit "
                         "weights stored (in, out): a torch .weight is (out, in), so transpose "
                         "them, or name them coefs_0, intercepts_0, … (sklearn) or W1, b1, …",
                         source)
    if other_fits:
        return not said, f"weights read as {names[not said]}: only that layout fits the shapes"
    listing = ", ".join(f"{k} {tuple(s)}" + (f" bias ({b},)" if b is not None else "")
                        for k, s, b in zip(keys, shapes, bias_lengths))
    raise InputError(f"{first} (layers in the order {', '.join(keys)}); the shapes fit neither "
                     f"weight layout, (out, in) as torch nn.Linear nor (in, out) as sklearn "
                     f"coefs_ / Keras kernel: {listing}; store each weight as (out, in) (e.g. W.T "
                     "of a coefs_ matrix) with a bias of length out, in layer order", source)


def read_shapes(path: str | Path) -> dict[str, tuple[int, ...]]:
    """``{name: shape}`` of the tensors of a weight file (no values are converted)."""
    p = Path(path)
    suffix = p.suffix.lower()
    arrays = GRAPH_READERS[suffix][1](p) if suffix in GRAPH_READERS else _read_arrays(p)
    return {name: tuple(int(n) for n in arr.shape) for name, arr in arrays.items()}


ARRAY_READERS.update({".npz": read_npz, ".safetensors": read_safetensors})


# -- helpers ------------------------------------------------------------------------------------------
def numpy_or_error():
    try:
        import numpy
    except ImportError:
        raise MissingDependencyError("numpy", "io", "reading and writing binary weight files") from None
    return numpy


def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:197] + "..."
