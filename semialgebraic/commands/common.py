"""Helpers shared by the command modules: loading inputs, parsing points and boxes."""

from __future__ import annotations

from pathlib import Path

from algebra import load
from algebra.exceptions import AlgebraError, InputError
from algebra.io.native import parse_vector, read_json_text
from algebra.network import Network
from algebra.rationals import to_q

from ..cli import fail

__all__ = ["load_network", "load_any", "parse_point", "parse_box", "load_data", "load_certificate"]


def load_any(path: str, **options):
    """Load a network or block; any problem becomes a one-line input error naming the file."""
    try:
        return load(path, **options)
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(path) in msg else f"{path}: {msg}")


def load_network(path: str, **options) -> Network:
    obj = load_any(path, **options)
    if not isinstance(obj, Network):
        fail(f"{path}: expected a network, got a {type(obj).__name__}")
    return obj


def parse_point(text: str, n: int | None = None, what: str = "--x") -> list:
    """``"1,1/2,-3"`` -> exact rationals."""
    try:
        vals = [to_q(t) for t in text.split(",")] if text.strip() else []
    except AlgebraError as exc:
        fail(f"{what}: {exc}")
    if n is not None and len(vals) != n:
        fail(f"{what}: expected {n} coordinates, got {len(vals)}")
    return vals


def parse_box(text: str) -> tuple:
    """``"lo,hi"`` -> (lo, hi) with lo <= hi."""
    vals = parse_point(text, 2, "--box")
    if vals[0] > vals[1]:
        fail(f"--box: lower bound {vals[0]} exceeds upper bound {vals[1]}")
    return vals[0], vals[1]


def load_data(path: str, n_inputs: int) -> list:
    """``{"inputs": [[x1, …], …]}`` -> list of exact points."""
    try:
        data = read_json_text(Path(path))
        if not isinstance(data, dict) or not isinstance(data.get("inputs"), list):
            raise InputError("expected an object with 'inputs': [[x1, …], …]", source=path)
        return [parse_vector(x, f"inputs[{i}]", path, n_inputs) for i, x in enumerate(data["inputs"])]
    except AlgebraError as exc:
        fail(str(exc))


def load_certificate(path: str) -> dict:
    try:
        data = read_json_text(Path(path))
    except AlgebraError as exc:
        fail(str(exc))
    if not isinstance(data, dict):
        fail(f"{path}: a certificate is a JSON object")
    return data
