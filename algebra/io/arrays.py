"""Binary weight files: ``.npz``, ``.safetensors``, torch ``state_dict`` and ONNX (exact).

This module holds the ``.npz`` and ``.safetensors`` codecs and the dispatch by suffix; the key
layouts are in :mod:`algebra.io.layouts`, the exact conversion of float arrays in
:mod:`algebra.io.exact`, the torch and ONNX readers in :mod:`algebra.io.torch` and
:mod:`algebra.io.onnx`.

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
from collections.abc import Mapping
from pathlib import Path

from ..exceptions import InputError
from ..linalg import QMatrix
from ..dyadic import exact_float_array
from ..network import Network
from ..rationals import Q, q_str
from .exact import (check_dtype, exact_qmatrix, kept_weights, max_entries, numpy_or_error,
                    refuse_nonfinite)
from .layouts import _WB, layer_order, orient_layers
from .native import no_such_file, write_atomic

__all__ = ["load_binary", "save_binary", "read_tensors", "network_from_tensors", "matrix_from_array",
           "BINARY_SUFFIXES", "WRITABLE_SUFFIXES", "ARRAY_READERS", "GRAPH_READERS", "read_npz",
           "read_safetensors", "safetensors_header", "first_line", "read_shapes", "tensor_index",
           "safetensors_index", "npz_index", "LazyTensors"]

BINARY_SUFFIXES = (".npz", ".safetensors", ".pt", ".pth", ".bin", ".onnx", ".h5", ".hdf5")
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
    lazy = LazyTensors(path)
    return {name: lazy[name] for name in lazy}


class LazyTensors(Mapping):
    """``{name: (shape, flat row-major list of exact Q)}`` of a weight file, read from its header
    (:func:`tensor_index`); a tensor is read and converted exactly only when it is looked up
    (then kept), so taking one block out of a checkpoint touches only that block's tensors."""

    def __init__(self, path: str | Path):
        self._path = Path(path)
        self._index = tensor_index(self._path)
        self._done: dict = {}

    def __getitem__(self, name: str):
        if name not in self._done:
            shape, get = self._index[name]
            arr = get()
            refuse_nonfinite(arr, name, str(self._path))
            flat = arr.reshape(1, -1) if arr.size else arr.reshape(0, 0)
            self._done[name] = (shape, exact_qmatrix(flat, name, str(self._path)).entries())
        return self._done[name]

    def matrix(self, name: str) -> QMatrix:
        """The exact matrix of the 2-D tensor *name*, converted straight from its array (not
        kept: the caller keeps the matrix)."""
        if name in self._done:
            shape, values = self._done[name]
            return QMatrix.from_flat(shape[0], shape[1], values)
        shape, get = self._index[name]
        return exact_qmatrix(get(), name, str(self._path))

    def view(self, name: str):
        """The 2-D tensor *name* as a block matrix: its integer view when it fits in int64
        (:func:`algebra.blocks.array_view`: nothing rational made on reading), else exact."""
        if name in self._done:
            return self.matrix(name)
        from ..blocks import array_view
        return array_view(self._index[name][1](), name, str(self._path))

    def shape(self, name: str) -> tuple[int, ...]:
        return self._index[name][0]

    def __iter__(self):
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, name) -> bool:
        return name in self._index


class TensorDict(dict):
    """A reader's ``{name: array}`` with the *notes* of what it chose (e.g. which of a
    checkpoint's state_dicts it read), which :func:`network_from_tensors` makes reading
    warnings."""

    def __init__(self, arrays: dict, notes=()):
        super().__init__(arrays)
        self.notes = tuple(notes)


def network_from_tensors(arrays: dict, source: str | None = None, *,
                         described_as: tuple | None = None) -> Network:
    """Build a :class:`Network` from a dict of numpy arrays in one of the supported key layouts;
    *described_as*: the provenance's first lines instead of the layout read and
    :data:`NO_ACTIVATION_STORED` (a reader whose file does store its layers and activations:
    ONNX).

    Raises
    ------
    InputError
        Unknown keys, a bias without weight, wrong ranks or shapes, layers that do not chain.
    """
    if not arrays:
        raise InputError("the file holds no tensors", source)
    chosen = tuple(getattr(arrays, "notes", ()))
    arrays, pruned = _apply_pruning_masks(arrays, source)
    layers, in_by_out = layer_order(list(arrays), source, module_numbers=described_as is None)
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
        refuse_nonfinite(arrays[wkey], wkey, source)     # the index as stored (s51 audit F3)
        w = arrays[wkey].T if transpose else arrays[wkey]
        n_out, n_in = (int(n) for n in w.shape)
        if n_out == 0 or n_in == 0:
            raise InputError(f"empty weight of shape {tuple(w.shape)}", source, wkey)
        if prev_out is not None and n_in != prev_out:
            raise InputError(f"has {n_in} input columns but the previous layer {prev_name!r} has "
                             f"{prev_out} outputs (layers are ordered by key: "
                             f"{', '.join(k for k, _ in layers)})", source, wkey)
        W = kept_weights(w, wkey, source)     # the float array (or N / D), kept exactly
        if bkey is None:
            b = [Q(0)] * n_out
        else:
            bias = arrays[bkey]
            refuse_nonfinite(bias, bkey, source)
            if bias.ndim != 1 or int(bias.shape[0]) != n_out:
                raise InputError(f"a bias of {wkey!r} must have shape ({n_out},), got "
                                 f"{tuple(bias.shape)}", source, bkey)
            b = exact_qmatrix(bias.reshape(1, -1), bkey, source).entries()
        ws.append(W)
        bs.append(b)
        prev_out, prev_name = n_out, wkey
    # the weights stay numpy integer arrays; a layer's QMatrix is made when an algorithm asks
    net = Network._from_integer_arrays(ws, bs, source)
    missing = tuple(l for l, (_, bkey) in enumerate(layers) if bkey is None)
    warnings = chosen + _reading_warnings(arrays, layers, net)
    if "fits the shapes too" in note:     # square layers: every command says how it read them
        warnings = (note[:1].upper() + note[1:],) + warnings
    head = described_as if described_as is not None else (
        f"{note} (layers in the order {', '.join(k for k, _ in layers)})", NO_ACTIVATION_STORED)
    net.derived("provenance", lambda: tuple(head)
                + ((missing_bias_sentence(missing),) if missing else ())
                + ((f"torch.nn.utils.prune masks applied exactly: {', '.join(pruned)} = "
                    "*_orig * *_mask",) if pruned else ()) + warnings[("fits the shapes too" in note):])
    net.derived("missing_biases", lambda: missing)
    net.derived("reading_warnings", lambda: warnings)
    return net


NO_ACTIVATION_STORED = ("the file stores no activation: read as ReLU between layers (a GELU or "
                        "SiLU model's tensors read this way compute another function; MLP blocks "
                        "of other activations: 'netfibers absorb FILE --activation gelu')")
"""``info``'s line for a tensor file (state_dict, ``.npz``, ``.safetensors``): it printed
"activation relu" as if the file said so (session 39, a GELU 768-3072-768 block)."""

_BLOCK_NAMES = re.compile(r"(^|\.)(fc|mlp|ffn|dense|linear|lin)_?\d*\.", re.I)


def _reading_warnings(arrays, layers, net) -> tuple[str, ...]:
    """What a state_dict cannot show and the reading may miss (new-user audit): int8 tensors
    (read as the integers stored: quantised codes without their scales compute another
    function), and a one-hidden-layer R^d -> R^d map under MLP-block names (a residual module's
    skip, x + fc2(relu(fc1(x))), is not in its state_dict)."""
    out = []
    small = sorted({str(a.dtype) for a in arrays.values() if str(a.dtype) in ("int8", "uint8")})
    if small:
        out.append(int_codes_note(small, "network"))
    if net.depth == 2 and net.n_inputs == net.n_outputs and all(_BLOCK_NAMES.search(w) for w, _ in layers):
        out.append("a one-hidden-layer map from R^d to R^d under MLP-block names: if the module "
                   "adds its input (x + fc2(relu(fc1(x)))), that skip is not in a state_dict and "
                   "is not read, nor is its activation (read as ReLU; such blocks often use GELU); "
                   "'netfibers absorb FILE --activation relu' (or gelu, …) reads the file as a "
                   "residual block")
    blocks = _numbered_blocks([w for w, _ in layers])
    if blocks:
        out.append(f"the layers come in {len(blocks)} numbered blocks of several layers each "
                   f"({', '.join(blocks[:3])}{', …' if len(blocks) > 3 else ''}): read as one "
                   "chain with a ReLU between every two layers, from one block to the next too; "
                   "what a model does between its blocks (a skip connection, a normalisation, "
                   "attention in a transformer) is not in a state_dict, and a model that does "
                   "anything there computes another function (save one block alone to read it; "
                   "MLP blocks with a skip: 'netfibers absorb FILE --activation A --all')")
    return tuple(out)


def int_codes_note(dtypes, what: str = "network") -> str:
    """The reading note of int8/uint8 tensors (*dtypes*: their names), for a *what* read."""
    return (f"{'/'.join(dtypes)} tensors read as the integers stored: if they are quantised "
            f"codes, their scales and zero points are not in the file and the {what} read "
            "computes another function (dequantise before saving)")


def int_code_dtypes(path, prefixes=None) -> list[str]:
    """The int8/uint8 dtypes among the tensors of a ``.npz``/``.safetensors`` file whose names
    start with one of *prefixes* (all, when None), from the headers and memory maps; [] for the
    other formats (their readers hold the arrays themselves)."""
    p = Path(path)
    if p.suffix.lower() not in (".npz", ".safetensors"):
        return []
    found = set()
    for name, (_, get) in tensor_index(p).items():
        if prefixes is None or any(name.startswith(q) for q in prefixes):
            dt = str(get().dtype)
            if dt in ("int8", "uint8"):
                found.add(dt)
    return sorted(found)


def _numbered_blocks(weight_keys) -> list[str]:
    """The block prefixes when the layers are grouped by a container's index into two or more
    blocks, one of them with several layers (``layers.0.fc1``, ``layers.0.fc2``, ``layers.1.fc1``,
    …: the MLPs of a transformer's layers, or a ModuleList of Sequentials); [] otherwise.  A
    state_dict does not say what the model does between its blocks: read as one ReLU chain
    (s44: two OPT layers' fc1/fc2 were read as a 4-8-4-8-4 ReLU net without a word).

    >>> _numbered_blocks(["layers.0.fc1.weight", "layers.0.fc2.weight", "layers.1.fc1.weight"])
    ['layers.0.', 'layers.1.']
    >>> _numbered_blocks(["net.0.weight", "net.2.weight"]), _numbered_blocks(["fc1.weight", "fc2.weight"])
    ([], [])
    >>> _numbered_blocks(["stages.0.blocks.0.fc1.weight", "stages.0.blocks.0.fc2.weight",
    ...                   "stages.0.blocks.1.fc1.weight"])
    ['stages.0.blocks.0.', 'stages.0.blocks.1.']
    >>> _numbered_blocks(["layers.0.fc1.weight", "layers.0.fc2.weight", "layers.1.fc1.weight",
    ...                   "layers.1.fc2.weight", "head.weight"])
    ['layers.0.', 'layers.1.']
    """
    every = [k.split(".") for k in weight_keys]
    for i in range(max(len(p) for p in every) - 1):      # a container index, outermost first
        parts = [p for p in every if len(p) > i + 1 and p[i].isdigit()]
        if len(parts) < 2 or len(every) - len(parts) > 2:  # (a first and a last layer named
            continue                                       # so, input / head, may stand aside)
        groups: dict[str, int] = {}
        for p in parts:
            prefix = ".".join(p[:i + 1]) + "."
            groups[prefix] = groups.get(prefix, 0) + 1
        if len(groups) >= 2:               # (one value: a stage holding the blocks, look deeper:
            return list(groups) if max(groups.values()) >= 2 else []   # stages.0.blocks.N)
    return []


def _apply_pruning_masks(arrays: dict, source) -> tuple[dict, list]:
    """``(arrays, names)``: the tensors with each ``X_orig``/``X_mask`` pair of
    ``torch.nn.utils.prune`` (a state_dict saved before ``prune.remove``) replaced by ``X =
    X_orig * X_mask``, what the pruned model computes (exact: the mask must be 0/1, else refused),
    and the names so made."""
    origs = {k[:-len("_orig")] for k in arrays if k.endswith("_orig")}
    if not origs:
        return arrays, []
    np = numpy_or_error()
    out = {k: v for k, v in arrays.items()
           if not (k.endswith("_orig") and k[:-5] in origs) and not (k.endswith("_mask") and k[:-5] in origs)}
    for name in sorted(origs):
        orig, mask = arrays[f"{name}_orig"], arrays.get(f"{name}_mask")
        if mask is None or np.shape(mask) != np.shape(orig):
            raise InputError(f"{name}_orig without a {name}_mask of its shape (a torch pruning "
                             "pair): apply torch.nn.utils.prune.remove before saving", source, f"{name}_orig")
        m = np.asarray(mask)
        if not np.all((m == 0) | (m == 1)):
            raise InputError("a pruning mask with entries other than 0 and 1", source, f"{name}_mask")
        if name in out:
            raise InputError(f"both {name} and {name}_orig are stored", source, name)
        o = np.asarray(orig)
        out[name] = np.where(m == 1, o, np.zeros_like(o))      # exact: entries kept or set to 0
    return out, sorted(origs)


def missing_bias_sentence(missing) -> str:
    """The provenance sentence of the layers (0-based) *missing* whose bias the file lacks."""
    return (f"no bias stored for layer{'s' if len(missing) > 1 else ''} "
            f"{', '.join(str(l + 1) for l in missing)}: read as 0")


def save_binary(net: Network, path: str | Path, *, dtype: str = "float32") -> None:
    """Write *net* as ``.npz`` or ``.safetensors`` in the ``nn.Sequential`` layout.

    Keys are ``0.weight``, ``0.bias``, ``2.weight``, … (a ReLU sits at the odd indices), so the
    file loads into ``torch.nn.Sequential(Linear, ReLU, Linear, …)``.

    Parameters
    ----------
    net : Network
    path : str or Path
        Ends in ``.npz`` or ``.safetensors``.
    dtype : {"float32", "float64", "float16"}
        Every parameter must be exactly representable in it (round first for a float16 copy:
        :func:`algebra.io.exact.rounded_network`).

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
    if dtype not in ("float32", "float64", "float16"):
        raise InputError(f"unsupported dtype {dtype!r}; use float32, float64 or float16",
                         source=str(p))
    if not isinstance(net, Network):
        raise InputError(f"cannot write a {type(net).__name__} as weights", source=str(p))
    if 0 in net.widths:              # (an empty tensor, which every reader refuses: s53 API
        raise InputError(            # audit F9, a file written that load could not read)
            f"a hidden layer of width 0 (widths {'-'.join(map(str, net.widths))}: a constant "
            f"network) has empty weight tensors, which {suffix} readers refuse; write .json",
            source=str(p))
    np = numpy_or_error()
    tensors = {}
    for l in range(net.depth):
        b = net.biases[l]
        W = None if dtype == "float16" else exact_float_array(net, l, dtype)   # kept, checked exact
        if W is None:
            w = net.layer(l)[0]
            W = _float_array(np, w.entries(), w.shape, dtype, f"W{l + 1}", w.ncols, str(p))
        tensors[f"{2 * l}.weight"] = W
        tensors[f"{2 * l}.bias"] = _float_array(np, b, (len(b),), dtype, f"b{l + 1}", None, str(p))
    if suffix == ".npz":
        write_atomic(p, lambda fh: np.savez(fh, **tensors))     # streamed, no copy in memory
    else:
        write_atomic(p, lambda fh: _write_safetensors(fh, tensors))


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
        raise no_such_file(p)
    suffix = p.suffix.lower()
    if suffix not in ARRAY_READERS:
        raise InputError(f"unknown weight file type {suffix or '(no suffix)'!r}; expected one of "
                         f"{', '.join(BINARY_SUFFIXES)}", source=str(p))
    return ARRAY_READERS[suffix](p)


def read_npz(p: Path) -> dict:
    """``{name: array}`` of an ``.npz`` archive (``allow_pickle=False``): members stored without
    compression (what ``np.savez`` writes) are read-only memory maps, read only when used."""
    return {name: get() for name, (_, get) in npz_index(p).items()}


def npz_index(p: Path) -> dict:
    """``{name: (shape, get())}`` of an ``.npz`` archive from the zip directory and the ``.npy``
    headers alone; ``get()`` returns the array (a memory map of a stored member, else the member
    read and decompressed).  Object arrays, which need unpickling, are refused."""
    np = numpy_or_error()
    src = str(p)
    fmt = np.lib.format
    try:
        with open(p, "rb") as fh:
            if fh.read(6) == b"\x93NUMPY":
                raise InputError("a single array (.npy data), not an .npz archive of named arrays",
                                 source=src)
        size = p.stat().st_size
        out, packed = {}, 0
        with zipfile.ZipFile(p) as zf:
            for info in zf.infolist():
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                with zf.open(info) as member:
                    version = fmt.read_magic(member)
                    reader = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                    shape, fortran, dtype = reader(member)
                    data_start = member.tell()
                if dtype.hasobject:
                    raise InputError("cannot be read without unpickling (an object array); "
                                     "netfibers never unpickles", source=src, where=name)
                if info.compress_type != zipfile.ZIP_STORED or info.flag_bits & 1:
                    packed += math.prod(int(n) for n in shape)   # filled when read, unlike a
                    if packed > max_entries():                   # memory map (exact.MAX_ENTRIES)
                        raise InputError(f"the compressed arrays declare {packed} entries: more "
                                         f"than netfibers reads ({max_entries()}; "
                                         "NETFIBERS_MAX_ENTRIES sets another limit)",
                                         source=src, where=name)
                out[name] = (tuple(int(n) for n in shape),
                             _npz_getter(np, p, info, shape, fortran, dtype, data_start, size, name))
        return out
    except InputError:
        raise
    except (zipfile.BadZipFile, EOFError, OSError, ValueError, KeyError, zipfile.LargeZipFile,
            struct.error) as exc:
        raise InputError(f"not a readable .npz archive (truncated or corrupt?): {first_line(exc)}",
                         source=src) from None


def _npz_getter(np, p: Path, info, shape, fortran, dtype, data_start, size, name):
    src = str(p)

    def get():
        try:
            if info.compress_type == zipfile.ZIP_STORED and info.flag_bits & 1 == 0:
                with open(p, "rb") as fh:              # the member's local header: its data offset
                    fh.seek(info.header_offset)
                    local = fh.read(30)
                if len(local) < 30 or local[:4] != b"PK\x03\x04":
                    raise ValueError("bad local header")
                n_name, n_extra = struct.unpack("<HH", local[26:30])
                offset = info.header_offset + 30 + n_name + n_extra + data_start
                count = math.prod(shape)
                if offset + count * dtype.itemsize > size:
                    raise ValueError("member data past the end of the file")
                arr = (np.memmap(p, dtype=dtype, mode="r", offset=offset, shape=tuple(shape),
                                 order="F" if fortran else "C") if count
                       else np.zeros(shape, dtype=dtype))
            else:
                with zipfile.ZipFile(p) as zf, zf.open(info) as member:
                    arr = np.lib.format.read_array(member, allow_pickle=False)
        except (zipfile.BadZipFile, EOFError, OSError, ValueError, zipfile.LargeZipFile,
                struct.error) as exc:
            raise InputError(f"not a readable .npz archive (truncated or corrupt?): "
                             f"{first_line(exc)}", source=src, where=name) from None
        return check_dtype(np, arr, name, src)
    return get


def read_safetensors(p: Path) -> dict:
    """``{name: array}`` of a ``.safetensors`` file: the JSON header is read and checked first;
    the arrays are read-only views of a memory map of the data (nothing is read until a tensor
    is used; bfloat16 is widened to float32 exactly when it is converted here)."""
    return {name: get() for name, get in safetensors_header(p).items()}


def safetensors_header(p: Path) -> dict:
    """``{name: get()}`` of a ``.safetensors`` file from its header alone: every entry is
    checked (dtype, shape, offsets inside the file) and ``get()`` returns the tensor as a
    read-only array viewing a memory map of the file."""
    return {name: get for name, (_, get) in safetensors_index(p).items()}


def safetensors_index(p: Path) -> dict:
    """``{name: (shape, get())}`` of a ``.safetensors`` file from its header alone
    (:func:`safetensors_header`)."""
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

    out, spans = {}, []
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
        out[name] = (tuple(shape), get)
        spans.append((begin, end, name))
    _check_spans(spans, data_len, src)
    return out


def _check_spans(spans, data_len: int, src: str) -> None:
    """The tensors' byte ranges tile the data section, as the format requires (the reference
    library refuses anything else): sorted, each begins where the previous ends, the last ends
    at its end.  Overlapping offsets read one tensor's bytes as another's (input audit, session
    35: a verdict on a misread network).

    >>> _check_spans([(0, 8, "a"), (8, 12, "b")], 12, "f")
    >>> _check_spans([(0, 8, "a"), (4, 12, "b")], 12, "f")
    Traceback (most recent call last):
    ...
    algebra.exceptions.InputError: f: b: corrupt .safetensors header: data_offsets begin at 4, where the previous tensor ends at 8 (overlapping or with a gap)
    """
    at = 0
    for begin, end, name in sorted(spans):
        if begin != at:
            raise InputError(f"corrupt .safetensors header: data_offsets begin at {begin}, where "
                             f"the previous tensor ends at {at} (overlapping or with a gap)",
                             source=src, where=name)
        at = end
    if at != data_len:
        raise InputError(f"corrupt .safetensors header: the tensors end at byte {at} of a data "
                         f"section of {data_len}", source=src)


def _float_array(np, values, shape, dtype, label, ncols, source):
    """Numpy array of *values* in *dtype*, refusing (naming the entry) any inexact one."""
    target = {"float32": np.float32, "float16": np.float16}.get(dtype, np.float64)
    floats = []
    for k, q in enumerate(values):
        p_, d_ = int(q.p), int(q.q)
        ok = d_ & (d_ - 1) == 0  # a binary float is a dyadic rational
        f = 0.0
        double = False
        if ok:
            try:
                f = p_ / d_  # correctly rounded
                double = f.as_integer_ratio() == (p_, d_)
                ok = double and (dtype == "float64" or float(target(f)) == f)
            except OverflowError:
                ok = False
        if not ok:
            where = f"{label}[{k // ncols},{k % ncols}]" if ncols else f"{label}[{k}]"
            text = q_str(q)          # (a 5 001-digit number made a 5 kB one-line message)
            text = text if len(text) <= 60 else f"{text[:24]}… ({len(text)} characters)"
            hint = (" (it is a float64: write with dtype='float64', `--dtype float64` in "
                    "`netfibers convert`)" if double else "")   # (s53 API audit F8)
            raise InputError(f"{where} = {text} is not exactly representable as {dtype}{hint}",
                             source=source)
        floats.append(f)
    with np.errstate(over="ignore"):
        return np.array(floats, dtype=target).reshape(shape)


def _safetensors_bytes(tensors: dict) -> bytes:
    """The ``.safetensors`` encoding of float arrays, as bytes (:func:`_write_safetensors`)."""
    import io
    buf = io.BytesIO()
    _write_safetensors(buf, tensors)
    return buf.getvalue()


def _write_safetensors(fh, tensors: dict) -> None:
    """Write the ``.safetensors`` encoding of float arrays to the binary file *fh* (header padded
    to 8 bytes, as the reference), each array streamed in little-endian C order."""
    header, offset = {}, 0
    for name, arr in tensors.items():
        nbytes = int(arr.size) * arr.dtype.itemsize
        header[name] = {"dtype": {2: "F16", 4: "F32"}.get(arr.dtype.itemsize, "F64"),
                        "shape": list(arr.shape), "data_offsets": [offset, offset + nbytes]}
        offset += nbytes
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    fh.write(struct.pack("<Q", len(text)) + text)
    for arr in tensors.values():
        little = arr.dtype.newbyteorder("<")
        flat = arr.reshape(-1)
        for s in range(0, flat.shape[0], 1 << 22):      # bounded copies for byte order / layout
            fh.write(flat[s:s + (1 << 22)].astype(little, copy=False).tobytes())


def read_shapes(path: str | Path) -> dict[str, tuple[int, ...]]:
    """``{name: shape}`` of the tensors of a weight file (no values are converted; for
    ``.safetensors`` and ``.npz`` from the headers alone)."""
    return {name: shape for name, (shape, _) in tensor_index(path).items()}


def tensor_index(path: str | Path) -> dict:
    """``{name: (shape, get())}`` of a weight file: ``.safetensors`` and ``.npz`` from their
    headers (``get()`` reads one tensor, memory-mapped where the format allows); the other
    formats are read whole first."""
    p = Path(path)
    if not p.exists():
        raise no_such_file(p)
    suffix = p.suffix.lower()
    if suffix == ".safetensors":
        return safetensors_index(p)
    if suffix == ".npz":
        return npz_index(p)
    arrays = GRAPH_READERS[suffix][1](p) if suffix in GRAPH_READERS else _read_arrays(p)
    return {name: (tuple(int(n) for n in arr.shape), lambda arr=arr: arr)
            for name, arr in arrays.items()}


ARRAY_READERS.update({".npz": read_npz, ".safetensors": read_safetensors})


# -- helpers ------------------------------------------------------------------------------------------
def first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    return line if len(line) <= 200 else line[:197] + "..."
