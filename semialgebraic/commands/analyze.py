"""Command ``analyze``: the main job — everything netfibers can say about one input.

With no argument it analyses a bundled example.
"""

from __future__ import annotations

from importlib import resources

from ..cli import emit
from .common import load_any
from .core import info_dict

__all__ = ["register", "default_example"]


def default_example() -> str:
    return str(resources.files("algebra") / "examples" / "masked_bottleneck.json")


def register(sub, parent) -> None:
    p = sub.add_parser("analyze", parents=[parent],
                       help="analyse a network or block (a bundled example when none is given)")
    p.add_argument("input", nargs="?", help="network or block file")
    p.set_defaults(func=cmd_analyze)


def cmd_analyze(args) -> int:
    path = args.input or default_example()
    obj = load_any(path)
    d = info_dict(obj)
    d["input"] = path
    emit(args, d, f"{path}: widths {'-'.join(map(str, d['widths']))}, {d['n_parameters']} parameters")
    return 0
