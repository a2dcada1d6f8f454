"""Reading and writing networks and blocks.

``load(path)`` picks the reader by file suffix: ``.json`` (native, exact), ``.npz``,
``.safetensors``, ``.pt``/``.pth``/``.bin`` (torch state_dict, ``weights_only=True``), ``.onnx``.
``save(obj, path)`` writes native JSON, or (``.npz``/``.safetensors``) float weights that
represent the network exactly.  Every stored binary float becomes the exact rational it
denotes; a JSON number literal means the decimal it spells.
"""

from __future__ import annotations

from pathlib import Path

from ..exceptions import InputError
from .native import load_json, save_json, network_from_dict, network_to_dict

__all__ = ["load", "save", "load_json", "save_json", "network_from_dict", "network_to_dict"]

_BINARY = {".npz", ".safetensors", ".pt", ".pth", ".bin", ".onnx"}


def load(path: str | Path, **options):
    """Read a network (or a block, for block JSON / block weight layouts) from *path*.

    Raises
    ------
    InputError
        For a missing, malformed or unsupported file; the message names the file and the
        problem.
    """
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", source=str(p))
    if p.is_dir():
        raise InputError("is a directory, not a weight file", source=str(p))
    suffix = p.suffix.lower()
    if suffix == ".json":
        return load_json(p, **options)
    if suffix in _BINARY:
        from . import binary  # optional formats live there
        return binary.load_binary(p, **options)
    raise InputError(f"unknown file type {suffix or '(no suffix)'!r}; expected .json, .npz, "
                     ".safetensors, .pt/.pth/.bin or .onnx", source=str(p))


def save(obj, path: str | Path, **options) -> None:
    """Write *obj* as native JSON (Network or block), or a Network as ``.npz``/``.safetensors``.

    Binary writers take ``dtype="float32"`` (default) or ``"float64"`` and refuse, naming the
    first offender, any parameter that is not exactly representable.  Nothing is written on
    failure.
    """
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".json":
        if options:
            raise InputError(f"options {sorted(options)} do not apply to JSON", source=str(p))
        return save_json(obj, p)
    if suffix in {".npz", ".safetensors"}:
        from . import binary
        return binary.save_binary(obj, p, **options)
    raise InputError(f"cannot write {suffix or '(no suffix)'!r}; use .json, .npz or .safetensors",
                     source=str(p))
