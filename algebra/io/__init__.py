"""Reading and writing networks and blocks.

``load(path)`` picks the reader by file suffix: ``.json`` (native, exact), ``.npz``,
``.safetensors``, ``.pt``/``.pth``/``.bin`` (torch state_dict, ``weights_only=True``), ``.onnx``.
``save(obj, path)`` writes native JSON.  Every stored binary float becomes the exact rational it
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


def save(obj, path: str | Path) -> None:
    """Write *obj* (Network or block) as native JSON; nothing is written on failure."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".json":
        return save_json(obj, p)
    if suffix in {".npz", ".safetensors"}:
        from . import binary
        return binary.save_binary(obj, p)
    raise InputError(f"cannot write {suffix or '(no suffix)'!r}; use .json", source=str(p))
