"""Reading and writing networks and blocks.

``load(path)`` picks the reader by file suffix: ``.json`` (native, exact), ``.npz``,
``.safetensors``, ``.pt``/``.pth``/``.bin`` (torch state_dict, ``weights_only=True``), ``.onnx``.
``save(obj, path)`` writes native JSON, or (``.npz``/``.safetensors``) float weights that
represent the network exactly.  Every stored binary float becomes the exact rational it
denotes; a JSON number literal means the decimal it spells.

Modules: :mod:`~algebra.io.native` (network JSON and the exact number parsers),
:mod:`~algebra.io.blocks` (block JSON and block state_dicts), :mod:`~algebra.io.arrays`
(``.npz``/``.safetensors``), :mod:`~algebra.io.layouts` (key layouts), :mod:`~algebra.io.exact`
(the exact conversion of float arrays),
:mod:`~algebra.io.torch` and :mod:`~algebra.io.onnx` (their readers are added here to the tables
of :mod:`~algebra.io.arrays`).
"""

from __future__ import annotations

from pathlib import Path

from ..blocks import BLOCK_FORMAT
from ..exceptions import InputError
from .arrays import (ARRAY_READERS, BINARY_SUFFIXES, GRAPH_READERS, WRITABLE_SUFFIXES, load_binary,
                     matrix_from_array, network_from_tensors, read_tensors, save_binary)
from .blocks import block_from_dict, block_from_tensors, load_block
from .native import (network_from_dict, network_to_dict, parse_matrix, parse_number, parse_vector,
                     read_json_text, require_regular_file, save_json, write_atomic)
from .nnet import load_nnet
from .onnx import load_onnx, onnx_initializers
from .torch import TORCH_SUFFIXES, read_torch
from .keras import KERAS_SUFFIXES, keras_arrays, load_keras

__all__ = ["load", "save", "load_json", "save_json", "network_from_dict", "network_to_dict",
           "load_binary", "save_binary", "read_tensors", "network_from_tensors",
           "matrix_from_array", "block_from_dict", "block_from_tensors", "load_block",
           "read_json_text", "parse_number", "parse_vector", "parse_matrix", "write_atomic"]

# the optional formats (their libraries are imported only when such a file is read)
ARRAY_READERS.update(dict.fromkeys(TORCH_SUFFIXES, read_torch))
GRAPH_READERS[".onnx"] = (load_onnx, onnx_initializers)
GRAPH_READERS.update(dict.fromkeys(KERAS_SUFFIXES, (load_keras, keras_arrays)))


def load_json(path: str | Path, **options):
    """Read a native JSON file: a network, or (``format: netfibers.block``) a block.  It takes no
    options: its activation, skip and shapes are in the file (an option was ignored silently:
    s48 API audit)."""
    if options:
        raise InputError(f"{path}: unexpected option(s) {sorted(options)} for a native JSON file "
                         "(its activation, skip and shapes are in the file)")
    data = read_json_text(path)
    if isinstance(data, dict) and data.get("format") == BLOCK_FORMAT:
        return block_from_dict(data, source=str(path))
    return network_from_dict(data, source=str(path))


def load(path: str | Path, **options):
    """Read a network (or a block, for block JSON / block weight layouts) from *path*.

    Parameters
    ----------
    path : str or Path
        A native JSON file, or a weight file (``.npz``, ``.safetensors``, ``.pt``/``.pth``/``.bin``,
        ``.onnx``); every stored float becomes the exact rational it denotes.
    **options
        Reader options (e.g. ``activation=``, ``skip=`` for blocks).

    Returns
    -------
    Network or Block
        The exact object the file holds.

    Raises
    ------
    InputError
        For a missing, malformed or unsupported file; the message names the file and the
        problem.
    """
    if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        kind = type(path).__name__              # a model object, not a file (a user audit)
        hint = ("Network.from_torch(model.eval())" if "torch" in type(path).__module__ else
                "Network.from_sklearn(mlp)" if "sklearn" in type(path).__module__ else
                "Network.from_rows(weights, biases)")
        raise InputError(f"load takes a file path, got a {kind}; for a model object use {hint}")
    p = require_regular_file(path)
    suffix = p.suffix.lower()
    if suffix == ".json":
        return load_json(p, **options)
    if suffix in BINARY_SUFFIXES:
        return load_binary(p, **options)
    if suffix == ".nnet":                  # the NNet text format (ACAS Xu), exact decimals
        return load_nnet(p, **options)
    raise InputError(f"unknown file type {suffix or '(no suffix)'!r}; expected .json, .npz, "
                     ".safetensors, .pt/.pth/.bin, .onnx or .nnet", source=str(p))


def save(obj, path: str | Path, **options) -> None:
    """Write *obj* as native JSON (Network or block), or a Network as ``.npz``/``.safetensors``.

    Binary writers take ``dtype="float32"`` (default), ``"float64"`` or ``"float16"`` and refuse, naming the
    first offender, any parameter that is not exactly representable.  Nothing is written on
    failure.

    Parameters
    ----------
    obj : Network or Block
        What to write.
    path : str or Path
        ``.json`` (exact, any rational) or ``.npz`` / ``.safetensors`` (Networks only).
    **options
        ``dtype="float32"``, ``"float64"`` or ``"float16"`` for the binary formats.

    Raises
    ------
    InputError
        For an unknown suffix, options that do not apply, or a parameter that the binary dtype
        cannot hold exactly (named in the message).
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".json":
        if options:
            raise InputError(f"options {sorted(options)} do not apply to JSON", source=str(p))
        return save_json(obj, p)
    if suffix in WRITABLE_SUFFIXES:
        return save_binary(obj, p, **options)
    raise InputError(f"cannot write {suffix or '(no suffix)'!r}; use .json, .npz or .safetensors",
                     source=str(p))
