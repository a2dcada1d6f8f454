"""The one grammar of input domains given as text (``--box``, ``--ball``, ``--orthant``), shared by
the commands and by the items of a batch.

Every function is pure and exact: it returns :class:`~algebra.kernel.domains.Domain` objects or
lists of exact ``(lo, hi)`` and raises :class:`~algebra.exceptions.InputError` whose message
starts with the option it reads (``--box: …``; a batch passes ``option="box"`` for its column).
The commands turn the error into their one-line exit 2; a batch item into an error record.

``--box`` takes

* ``lo,hi``: the cube ``[lo, hi]^d``;
* ``lo1:hi1,lo2:hi2,…``: a box with its own sides per coordinate;
* ``file``: the normalised input box of the ``.nnet`` file the network was read from;
* a JSON file (a name ending ``.json`` or an existing file) or inline JSON text (starting
  with ``[`` or ``{``): ``[[lo, hi], …]`` or ``{"box": [[lo, hi], …], "halfspaces": [{"a":
  [a1, …], "b": b}, …]}`` (half-spaces ``a·x <= b``); a side may be ``null`` (open) and
  ``"box"`` may be left out (all of R^d cut by the half-spaces).

``--ball X,R`` is the L∞ ball ``x1,…,xd,R`` (or ``x,R``: the point ``(x, …, x)``).

>>> parse_domain_text(2, box="0:1,-1:2").box
[(0, 1), (-1, 2)]
>>> parse_domain_text(2, box='{"box": [[0, 1], [0, null]], "halfspaces": [{"a": [1, 1], "b": 1}]}')
Domain(lo=['0', '0'], hi=['1', 'None'], halfspaces=1)
>>> parse_domain_text(1, box="2,1")
Traceback (most recent call last):
    ...
algebra.exceptions.InputError: --box: lower bound 2 exceeds upper bound 1
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from ..exceptions import AlgebraError, InputError
from ..kernel.domains import Domain
from ..rationals import to_q
from .native import parse_number, parse_vector, read_json_text
from .nnet import nnet_input_box

__all__ = ["parse_numbers", "parse_interval", "parse_box_text", "parse_ball_text", "domain_from_data",
           "read_domain_data", "parse_domain_text", "is_existing_file", "names_a_file"]


def is_existing_file(text: str) -> bool:
    """Whether *text* names an existing regular file; False for a name the system refuses (too
    long, …) instead of an OSError: option values such as ``--box lo,hi`` are tried as paths."""
    try:
        return Path(text).is_file()
    except OSError:
        return False


def names_a_file(text: str) -> bool:
    """Whether the ``--box`` value *text* is read as a JSON domain file (not ``file``, not inline
    JSON): a name ending ``.json`` or an existing file."""
    text = str(text)
    return text != "file" and not text.lstrip().startswith(("[", "{")) and (
        text.endswith(".json") or is_existing_file(text))


def parse_numbers(text: str, n: int | None = None, option: str = "--x") -> list:
    """``"1,1/2,-3"`` -> exact rationals (``n`` of them when given)."""
    try:
        vals = [to_q(t) for t in str(text).split(",")] if str(text).strip() else []
    except AlgebraError as exc:
        raise InputError(f"{option}: {exc}") from None
    if n is not None and len(vals) != n:
        raise InputError(f"{option}: expected {n} coordinates, got {len(vals)}")
    return vals


def parse_interval(text: str, option: str = "--box") -> tuple:
    """``"lo,hi"`` -> ``(lo, hi)`` with ``lo <= hi``."""
    lo, hi = parse_numbers(text, 2, option)
    if lo > hi:
        raise InputError(f"{option}: lower bound {lo} exceeds upper bound {hi}")
    return lo, hi


def parse_ball_text(text: str, d: int, option: str = "--ball") -> list:
    """``"x1,…,xd,R"`` (or ``"x,R"``: the point (x, …, x)) -> the L∞ ball as a box."""
    vals = parse_numbers(text, None, option)
    if len(vals) == 2 and d != 1:
        vals = [vals[0]] * d + [vals[1]]
    if len(vals) != d + 1:
        raise InputError(f"{option}: expected {d} coordinates and a radius, got {len(vals)} numbers")
    r = vals[-1]
    if r < 0:
        raise InputError(f"{option}: the radius must be >= 0")
    return [(v - r, v + r) for v in vals[:-1]]


def read_domain_data(text: str, option: str = "--box"):
    """The JSON of a domain file or of inline JSON text, numbers exact (float literals read as
    the decimals they spell)."""
    text = str(text)
    if not text.lstrip().startswith(("[", "{")):
        try:
            return read_json_text(Path(text))
        except AlgebraError as exc:
            raise InputError(f"{option}: {exc}") from None
    from .native import check_exponents
    try:
        check_exponents(text, option)
        return json.loads(text, parse_float=Decimal)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"{option}: {text!r} is not JSON ({getattr(exc, 'msg', exc)})") from None


def domain_from_data(data, d: int, source: str, option: str = "--box") -> Domain:
    """A domain from its JSON: ``[[lo, hi], …]`` or ``{"box": [[lo, hi], …], "halfspaces": [{"a":
    […], "b": b}, …]}`` (``a·x <= b``; ``"box": [lo, hi]``, two numbers, is the cube); a side may
    be ``null`` (open), ``"box"`` may be left out.
    The form netfibers writes (``{"lo": […], "hi": […], "halfspaces": […]}``, optionally
    ``"type": "polyhedron"``: ``Domain.to_json``, ``regions --json``) is read too; any other key
    is an error (a misspelt key must not leave the domain all of R^d).  *source* names the file
    (or the text) in messages."""
    if isinstance(data, dict):
        unknown = sorted(set(data) - {"box", "halfspaces", "lo", "hi", "type"})
        if unknown:
            raise InputError(f"{option}: {source}: unknown key(s) {', '.join(map(repr, unknown))} "
                             "(a domain file has 'box' or 'lo' and 'hi', and 'halfspaces')")
        if data.get("type", "polyhedron") != "polyhedron":
            raise InputError(f"{option}: {source}: 'type' is {data['type']!r}; a domain file is a "
                             "polyhedron")
        if "lo" in data or "hi" in data:
            if "box" in data or not all(isinstance(data.get(k), list) and len(data[k]) == d
                                        for k in ("lo", "hi")):
                raise InputError(f"{option}: {source}: 'lo' and 'hi' must be lists of {d} bounds "
                                 "(null: open), without 'box'")
            data = {**data, "box": [[lo, hi] for lo, hi in zip(data["lo"], data["hi"])]}
    if isinstance(data, dict) and "box" not in data:
        data = {**data, "box": [[None, None]] * d}
    box = data.get("box") if isinstance(data, dict) else data
    if isinstance(data, dict) and isinstance(box, list) and len(box) == 2 and \
            not any(isinstance(v, (list, dict)) for v in box):
        box = [list(box)] * d        # the cube [lo, hi]^d (README's {"box": [lo, hi], …}: it was
        #                              "an interval is not [lo, hi]" with half-spaces; s53 F8)
    if not isinstance(box, list) or len(box) != d:
        got = f", got {len(box)}" if isinstance(box, list) else ""
        raise InputError(f"{option}: {source}: expected {d} intervals [lo, hi]{got}")
    try:
        num = (lambda v: None if v is None else parse_number(v, "box", source))
        lo_hi = []
        for p in box:
            if not (isinstance(p, list) and len(p) == 2):
                raise InputError(f"{option}: {source}: an interval is not [lo, hi]")
            lo_hi.append((num(p[0]), num(p[1])))
        hs = data.get("halfspaces", []) if isinstance(data, dict) else []
        if not isinstance(hs, list) or not all(isinstance(h, dict) and isinstance(h.get("a"), list)
                                               and "b" in h for h in hs):
            raise InputError(f"{option}: {source}: 'halfspaces' must be a list of {{'a': [a1, …], "
                             "'b': b}} (a·x <= b)")
        halfspaces = [(parse_vector(h["a"], "halfspaces.a", source, d),
                       parse_number(h["b"], "halfspaces.b", source)) for h in hs]
        return Domain([lo for lo, _ in lo_hi], [hi for _, hi in lo_hi], halfspaces)
    except InputError as exc:
        if str(exc).startswith(option + ":"):
            raise
        raise InputError(f"{option}: {exc}") from None
    except AlgebraError as exc:
        raise InputError(f"{option}: {exc}") from None


def parse_box_text(text: str, d: int, net=None, option: str = "--box") -> list:
    """A bounded box, ``d`` exact ``(lo, hi)``, from any ``--box`` form of the module docstring;
    a domain with half-spaces or an open side is an :class:`InputError` (never dropped)."""
    text = str(text)
    if text == "file":
        box = nnet_input_box(net) if net is not None else None
        if box is None:
            raise InputError(f"{option} file: the network was not read from a .nnet file (no "
                             "input box in the file)")
    elif text.lstrip().startswith(("[", "{")) or names_a_file(text):
        dom = domain_from_data(read_domain_data(text, option), d, text, option)
        box = dom.box
        if box is None:
            raise InputError(f"{option}: {text}: " + ("has half-spaces" if dom.halfspaces else
                             "has an open side (null)") + "; a bounded box is expected here")
    elif ":" in text:
        box = []
        for part in text.split(","):
            bits = part.split(":")
            if len(bits) != 2:
                raise InputError(f"{option}: {part!r} is not lo:hi")
            try:
                box.append((to_q(bits[0]), to_q(bits[1])))
            except AlgebraError as exc:
                raise InputError(f"{option}: {exc}") from None
    else:
        box = [parse_interval(text, option)] * d
    if len(box) != d:
        raise InputError(f"{option}: expected {d} intervals, got {len(box)}")
    for lo, hi in box:
        if lo > hi:
            raise InputError(f"{option}: lower bound {lo} exceeds upper bound {hi}")
    return box


def parse_domain_text(d: int, *, box: str | None = None, ball: str | None = None,
                      orthant: bool = False, net=None, options=("--box", "--ball", "--orthant")) -> Domain:
    """The one exact :class:`Domain` of ``--box`` (any form of the module docstring; a JSON
    domain may add half-spaces and open sides), ``--ball X,R`` or ``--orthant``; all of R^d when
    none is given.  More than one is an :class:`InputError`; so is an empty value (never R^d)."""
    if sum(v is not None for v in (box, ball)) + bool(orthant) > 1:
        raise InputError(f"give one domain: {', '.join(options[:-1])} or {options[-1]}")
    if orthant:
        return Domain.orthant(d)
    if ball is not None:
        return Domain.from_box(parse_ball_text(ball, d, options[1]))
    if box is None:
        return Domain.whole(d)
    text = str(box)
    if text.lstrip().startswith(("[", "{")) or names_a_file(text):
        return domain_from_data(read_domain_data(text, options[0]), d, text, options[0])
    return Domain.from_box(parse_box_text(text, d, net, options[0]))
