"""JSON form of exact objects, and the atomic certificate writer (shared by the builders)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from algebra.io.native import write_atomic
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json

__all__ = ["jsonable", "write_certificate"]


def jsonable(obj: Any) -> Any:
    """Convert exact objects (fmpq, Fraction, QMatrix, Network, tuples, objects with
    ``to_json``/``to_dict``) into JSON-able data; rationals become ints or ``"p/q"``."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, Q):
        return q_json(obj)
    if isinstance(obj, Fraction):
        return obj.numerator if obj.denominator == 1 else f"{obj.numerator}/{obj.denominator}"
    if isinstance(obj, QMatrix):
        return obj.to_json()
    if isinstance(obj, Network):
        return obj.to_dict()
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and all(type(v) is int or type(v) is str for v in obj):
        return list(obj)                  # rows of an already exported matrix: no recursion
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "to_json"):
        return jsonable(obj.to_json())
    if hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    if hasattr(obj, "__index__"):
        return int(obj)
    raise TypeError(f"cannot put a {type(obj).__name__} into JSON")


def write_certificate(cert: dict, path: str | Path) -> None:
    """Write a certificate atomically as JSON."""
    write_atomic(Path(path), json.dumps(jsonable(cert), indent=1) + "\n")
