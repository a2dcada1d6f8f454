"""Helpers shared by the command modules: loading inputs, parsing points and boxes."""

from __future__ import annotations

import sys
from pathlib import Path

from algebra import load
from algebra.io.nnet import nnet_common_units, nnet_input_box, nnet_normalisation
from algebra.kernel.domains import Domain
from algebra.exceptions import AlgebraError, InputError
from algebra.io.native import parse_number, parse_vector, read_json_text
from algebra.network import Network
from algebra.rationals import to_q

from ..cli import fail

__all__ = ["check_output_dir", "load_network", "load_pair", "load_pair_in_units", "units_report", "load_any", "is_existing_file", "parse_point", "parse_box", "parse_box_domain", "parse_ball",
           "parse_domain", "load_data", "load_certificate"]


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


def load_pair(path_a: str, path_b: str) -> tuple[Network, Network]:
    """The two networks of ``equiv`` / ``diff`` (:func:`load_pair_in_units` without the units)."""
    a, b, _ = load_pair_in_units(path_a, path_b)
    return a, b


def load_pair_in_units(path_a: str, path_b: str) -> tuple[Network, Network, str | None]:
    """The two networks of ``equiv`` / ``diff`` and the units they act in: ``"normalised"`` or
    ``"normalised-first"`` (two ``.nnet`` files, see below) or None (any other pair).  Two ``.nnet`` files with the same
    normalisation are read as their raw weight networks (on normalised inputs,
    :mod:`algebra.io.nnet`): the same inputs for both.  When their normalisations differ (means,
    ranges or input bounds), their raw weight networks act on different coordinates, so what is
    compared is the two maps the files define, both expressed in the *first* file's normalised
    units (:func:`algebra.io.nnet.nnet_in_units_of`, exact): the units of a pair that normalises
    alike, so that a deviation or an ε means the same whichever normalisation the second file
    uses (the adversarial campaign found ``a ≈ b``, ``b == c`` but not ``a ≈ c`` when such pairs
    were compared in raw units).  ``--box file`` is the raw input box both files accept (the
    intersection of their minima and maxima, exit 2 when it is empty) in those units; a one-line
    note on stderr says so (the bab fuzz found two files with one weight set and different means
    reported 'equivalent' when the raw weight networks were compared)."""
    try:
        a, b, space = nnet_common_units(load_network(path_a), load_network(path_b))
    except InputError as exc:
        fail(f"{path_a} and {path_b} {exc}")
    if space == "normalised-first":
        print(f"netfibers: note: {path_a} and {path_b} normalise differently (.nnet means, ranges or "
              f"input bounds): the maps they define are compared in the normalised units of {path_a} "
              "(the second file's normalisation applied exactly; --box file is the raw input box both "
              "accept, normalised)", file=sys.stderr)
    return a, b, space


_UNITS = {"normalised": "normalised units (both .nnet files normalise alike)",
          "normalised-first": "the normalised units of the first .nnet file (the second normalises "
                              "differently: its map re-expressed exactly)"}


def units_report(space: str | None, domain: Domain, exact: bool = False) -> tuple[dict, str]:
    """What ``equiv`` / ``diff`` of a ``.nnet`` pair add to their report so that a user knows the
    units of the point, the box and the deviation: the JSON keys ``input_space`` (``"normalised"``) and ``box`` (``[[lo, hi], …]``, exact strings, null for an open side), and
    a line of text; nothing for any other pair (*space* None)."""
    if space is None:
        return {}, ""
    box = [[None if lo is None else str(lo), None if hi is None else str(hi)]
           for lo, hi in zip(domain.lo, domain.hi)]
    if all(lo is None and hi is None for lo, hi in box):
        where = "the domain R^d" if not domain.halfspaces else "the domain (half-spaces)"
    else:
        from .display import numbers        # long ends as ≈ decimals unless --exact
        side = [f"[{'-inf' if lo is None else numbers([lo], exact)}, {'inf' if hi is None else numbers([hi], exact)}]"
                for lo, hi in zip(domain.lo, domain.hi)]
        where = (f"the box {side[0]}^{len(box)}" if len(set(side)) == 1 else
                 "the box " + " x ".join(side)) + (" cut by half-spaces" if domain.halfspaces else "")
    return ({"input_space": "normalised", "units_of": "a" if space == "normalised-first" else "both",
             "box": box},
            f"\n  in {_UNITS[space]}: x, {where} and |a - b| are normalised inputs "
            "(x - mean) / range and outputs")


def is_existing_file(text: str) -> bool:
    """Whether *text* names an existing regular file; False for a name the system refuses (too
    long, …) instead of an OSError: option values such as ``--box lo,hi`` are tried as paths."""
    try:
        return Path(text).is_file()
    except OSError:
        return False


def parse_point(text: str, n: int | None = None, what: str = "--x") -> list:
    """``"1,1/2,-3"`` -> exact rationals."""
    try:
        vals = [to_q(t) for t in text.split(",")] if text.strip() else []
    except AlgebraError as exc:
        fail(f"{what}: {exc}")
    if n is not None and len(vals) != n:
        fail(f"{what}: expected {n} coordinates, got {len(vals)}")
    return vals


def check_output_dir(path: str | None, option: str = "--certificate") -> None:
    """Fail at once (exit 2, nothing computed) when the directory of an output file *path* does
    not exist: a long search must not end in "cannot write"."""
    if path is not None and not Path(path).expanduser().resolve().parent.is_dir():
        fail(f"{option} {path}: the directory {Path(path).parent} does not exist")


def parse_box(text: str) -> tuple:
    """``"lo,hi"`` -> (lo, hi) with lo <= hi."""
    vals = parse_point(text, 2, "--box")
    if vals[0] > vals[1]:
        fail(f"--box: lower bound {vals[0]} exceeds upper bound {vals[1]}")
    return vals[0], vals[1]


def parse_box_domain(text: str, d: int, net: Network | None = None) -> list:
    """A box with per-coordinate bounds: ``"lo,hi"`` (the cube), ``"lo1:hi1,lo2:hi2,…"``, a JSON
    file ``[[lo, hi], …]`` / ``{"box": [[lo, hi], …]}``, or ``"file"`` (the normalised input box
    of the ``.nnet`` file *net* was read from) -> list of ``d`` exact ``(lo, hi)``."""
    if text == "file":
        box = nnet_input_box(net) if net is not None else None
        if box is None:
            fail("--box file: the network was not read from a .nnet file (no input box in the file)")
    elif text.endswith(".json") or is_existing_file(text):
        box, _ = _box_file(text)
    elif ":" in text:
        box = []
        for part in text.split(","):
            bits = part.split(":")
            if len(bits) != 2:
                fail(f"--box: {part!r} is not lo:hi")
            try:
                box.append((to_q(bits[0]), to_q(bits[1])))
            except AlgebraError as exc:
                fail(f"--box: {exc}")
    else:
        lo, hi = parse_box(text)
        box = [(lo, hi)] * d
    if len(box) != d:
        fail(f"--box: expected {d} intervals, got {len(box)}")
    for lo, hi in box:
        if lo > hi:
            fail(f"--box: lower bound {lo} exceeds upper bound {hi}")
    return box


def parse_ball(text: str, d: int) -> list:
    """``"x1,…,xd,R"`` (or ``"x,R"``: the point (x, …, x)) -> the L∞ ball as a box."""
    vals = parse_point(text, None, "--ball")
    if len(vals) == 2 and d != 1:
        vals = [vals[0]] * d + [vals[1]]
    if len(vals) != d + 1:
        fail(f"--ball: expected {d} coordinates and a radius, got {len(vals)} numbers")
    r = vals[-1]
    if r < 0:
        fail("--ball: the radius must be >= 0")
    return [(v - r, v + r) for v in vals[:-1]]


def _box_file(text: str) -> tuple[list, list]:
    """``[[lo, hi], …]`` or ``{"box": [[lo, hi], …], "halfspaces": [{"a": [...], "b": ...}, …]}``
    (half-spaces ``a·x <= b``) -> (box, half-spaces)."""
    try:
        data = read_json_text(Path(text))
        hs = []
        if isinstance(data, dict):
            hs = data.get("halfspaces", [])
            data = data.get("box")
        if not isinstance(data, list) or not all(isinstance(p, list) and len(p) == 2 for p in data):
            raise InputError("expected [[lo, hi], …] or {'box': [[lo, hi], …]}", source=text)
        box = [(parse_number(lo, "box", text), parse_number(hi, "box", text)) for lo, hi in data]
        halfspaces = _halfspaces(hs, text, len(box))
    except AlgebraError as exc:
        fail(f"--box: {exc}")
    return box, halfspaces


def _halfspaces(hs, text: str, d: int) -> list:
    """``[{"a": [a1, …], "b": b}, …]`` (``a·x <= b``) -> ``[(a, b)]`` exact (InputError)."""
    if not isinstance(hs, list) or not all(isinstance(h, dict) and isinstance(h.get("a"), list)
                                           and "b" in h for h in hs):
        raise InputError("'halfspaces' must be a list of {'a': [a1, …], 'b': b} (a·x <= b)",
                         source=text)
    return [(parse_vector(h["a"], "halfspaces.a", text, d), parse_number(h["b"], "halfspaces.b", text))
            for h in hs]


def parse_domain(args, d: int, net: Network | None = None) -> Domain:
    """The one exact :class:`~algebra.kernel.Domain` of a command's options: ``--box`` (any form of
    :func:`parse_box_domain`; a JSON file may add ``"halfspaces"``, leave sides open with
    ``null`` and leave out ``"box"``), ``--ball X,R``, ``--orthant``, or all of R^d when none is
    given.  A bad domain is a one-line input error (exit 2)."""
    box_text, ball = getattr(args, "box", None), getattr(args, "ball", None)
    orthant = getattr(args, "orthant", False)
    # an empty value ("--box ''", an unset shell variable) is an error, never R^d
    if sum(v is not None for v in (box_text, ball)) + bool(orthant) > 1:
        fail("give one domain: --box, --ball or --orthant")
    if orthant:
        return Domain.orthant(d)
    if ball is not None:
        return Domain.from_box(parse_ball(ball, d))
    if box_text is None:
        return Domain.whole(d)
    try:
        if box_text != "file" and (box_text.endswith(".json") or is_existing_file(box_text)):
            return _domain_file(box_text, d)
        return Domain.from_box(parse_box_domain(box_text, d, net))
    except AlgebraError as exc:
        fail(f"--box: {exc}")


def _domain_file(text: str, d: int) -> Domain:
    """A domain file: ``[[lo, hi], …]`` or ``{"box": [[lo, hi], …], "halfspaces": [{"a": […],
    "b": b}, …]}`` (``a·x <= b``); a side may be ``null`` (open) and ``"box"`` may be left out
    (all of R^d cut by the half-spaces).  The form netfibers writes (``{"lo": […], "hi": […],
    "halfspaces": […]}``, optionally ``"type": "polyhedron"``) is read too; any other key is an
    error (a misspelt key must not leave the domain all of R^d)."""
    data = read_json_text(Path(text))
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"box", "halfspaces", "lo", "hi", "type"})
        if unknown:     # a misspelt key is an error, never a silently larger domain
            fail(f"--box: {text}: unknown key(s) {', '.join(map(repr, unknown))} (a domain file "
                 "has 'box' or 'lo' and 'hi', and 'halfspaces')")
        if data.get("type", "polyhedron") != "polyhedron":
            fail(f"--box: {text}: 'type' is {data['type']!r}; a domain file is a polyhedron")
        if "lo" in data or "hi" in data:   # the domain as netfibers writes it (Domain.to_json)
            if "box" in data or not all(isinstance(data.get(k), list) and len(data[k]) == d
                                        for k in ("lo", "hi")):
                fail(f"--box: {text}: 'lo' and 'hi' must be lists of {d} bounds (null: open), "
                     "without 'box'")
            data = {**data, "box": [[lo, hi] for lo, hi in zip(data["lo"], data["hi"])]}
        elif "box" not in data:
            data = {**data, "box": [[None, None]] * d}
    box = data.get("box") if isinstance(data, dict) else data
    if not isinstance(box, list) or len(box) != d:
        fail(f"--box: {text}: expected {d} intervals [lo, hi]")
    num = (lambda v: None if v is None else parse_number(v, "box", text))
    lo_hi = [(num(p[0]), num(p[1])) if isinstance(p, list) and len(p) == 2 else
             fail(f"--box: {text}: an interval is not [lo, hi]") for p in box]
    halfspaces = _halfspaces(data.get("halfspaces", []), text, d) if isinstance(data, dict) else []
    return Domain([lo for lo, _ in lo_hi], [hi for _, hi in lo_hi], halfspaces)


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
