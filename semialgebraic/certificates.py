"""Certificates: self-contained JSON evidence for every verdict.

A certificate is a plain JSON-able ``dict`` with ``"format": "netfibers.certificate"``, a
``"type"``, the inputs embedded in full (networks as native JSON dicts, blocks as block dicts)
and every claimed value as exact numbers (JSON integers or ``"p/q"`` strings).
:func:`semialgebraic.verify.verify` re-checks it with small code that imports ``algebra`` only.

Types (each documented in the module that checks it, under ``semialgebraic/verify/``):

=====================  ===============================================================
``counterexample``     networks ``a``, ``b``, input ``x``, claimed outputs ``a_x``, ``b_x``
``symmetry_path``      networks ``a``, ``b`` and a list of symmetry ``steps`` carrying a to b
``region_cover``       networks ``a``, ``b``, regions of a − b with their facets (general)
``absorption``         block and the residual-free block / obstruction witness
=====================  ===============================================================
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any, Sequence

from algebra.io.native import write_atomic
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json

__all__ = ["CERTIFICATE_FORMAT", "jsonable", "write_certificate", "counterexample_certificate"]

CERTIFICATE_FORMAT = "netfibers.certificate"


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


def counterexample_certificate(a: Network, b: Network, x: Sequence[Any], *, domain: Any = None) -> dict:
    """Certificate that *a* and *b* differ at the exact input *x* (outputs recomputed here).

    If *domain* (a JSON-able description, e.g. ``{"box": ["-1", "1"]}``) is given, the point
    lies in it.
    """
    ax, bx = a(x), b(x)
    if ax == bx:
        raise ValueError("the networks agree at this point: not a counterexample")
    cert = {"format": CERTIFICATE_FORMAT, "type": "counterexample",
            "claim": "a(x) != b(x)", "a": a.to_dict(), "b": b.to_dict(),
            "x": jsonable(list(x)), "a_x": jsonable(list(ax)), "b_x": jsonable(list(bx))}
    if domain is not None:
        cert["domain"] = jsonable(domain)
    return cert
