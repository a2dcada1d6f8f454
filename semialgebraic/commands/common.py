"""Helpers shared by the command modules: loading inputs, parsing points and boxes."""

from __future__ import annotations

import sys
from pathlib import Path

from algebra import load
from algebra.io import domain_text
from algebra.io.nnet import nnet_common_units, nnet_normalisation
from algebra.kernel.domains import Domain
from algebra.exceptions import AlgebraError, InputError
from algebra.io.native import parse_vector, read_json_text
from algebra.network import Network

from ..budget import phase
from ..cli import fail

__all__ = ["bias_note", "check_output_dir", "load_network", "reading_notes", "refuse_empty_layers", "load_pair", "load_pair_in_units", "units_report", "load_any", "is_existing_file", "parse_point", "parse_box", "parse_box_domain", "parse_ball",
           "parse_domain", "load_data", "load_certificate"]


def load_any(path: str, **options):
    """Load a network or block; any problem becomes a one-line input error naming the file."""
    try:
        with phase(f"reading {Path(path).name}"):
            return load(path, **options)
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(path) in msg else f"{path}: {msg}")


def load_network(path: str, *, parameters: bool = False, whole: bool = False, **options) -> Network:
    """The network in *path*; with *parameters* (a command that counts parameters: ``dim``,
    ``fiber``, ``conserved``, ``identify``, ``symmetries``, ``analyze``), a one-line note on
    stderr when the file stores no bias for some layers (:func:`bias_note`); with *parameters* or
    *whole* (``regions``, ``plot``), a hidden layer of width 0 after the first is refused
    (:func:`refuse_empty_layers`)."""
    obj = load_any(path, **options)
    if not isinstance(obj, Network):
        fail(f"{path}: expected a network, got a {type(obj).__name__}")
    if parameters or whole:
        refuse_empty_layers(obj, path)
    reading_notes(obj, path, biases=parameters)   # every command: what the file cannot show
    return obj


def refuse_empty_layers(net: Network, path: str) -> None:
    """A hidden layer of width 0 after the first (fully pruned, which the readers keep): the
    network is the constant b_L and its earlier layers are unread; the commands that walk
    regions or count parameters refuse it in one line (they ended in exit 4, and `identify`
    in a failed internal check: input audit, session 35).  A first hidden layer of width 0 is
    handled everywhere."""
    widths = list(net.widths[2:-1])
    if 0 in widths:
        l = widths.index(0) + 2
        unread = "layer 1 is" if l == 2 else f"layers 1-{l - 1} are"
        fail(f"{path}: hidden layer {l} has width 0 (fully pruned): the network is the constant "
             f"output bias and {unread} never read; remove them (a network whose first hidden "
             "layer has width 0 is taken)")


def reading_notes(net: Network, path: str, biases: bool = True) -> None:
    """One ``netfibers: note:`` line on stderr per thing the file *path* cannot show: missing
    biases (:func:`bias_note`; with *biases*, for the commands that count parameters), then
    the reader's warnings (``Network.reading_warnings``: quantised codes, a residual module's
    skip, a layout that square layers leave open), for every command."""
    if biases and net.missing_biases:
        print(f"netfibers: note: {bias_note(net, path)}", file=sys.stderr)
    for w in net.reading_warnings:
        print(f"netfibers: note: {path}: {w}", file=sys.stderr)


def bias_note(net: Network, path: str) -> str:
    """What a file without some biases means for the parameter counts (a new-user audit: a
    bias-free torch model of 15 parameters was given "functional dimension 16 of 21 parameters"
    without a word): the biases are read as 0 and counted as free parameters."""
    missing = net.missing_biases
    k = sum(net.widths[l + 1] for l in missing)
    layers = ", ".join(str(l + 1) for l in missing)
    return (f"{path} stores no bias for layer{'s' if len(missing) > 1 else ''} {layers}: read as 0 "
            f"and counted as free parameters, so the {net.n_parameters} parameters are those of the "
            f"architecture with biases (without them: {net.n_parameters - k}; the bias-free "
            "architecture's fiber and dimension are not computed)")


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
    if space is None and any(nnet_normalisation(n) is not None for n in (a, b)):
        one = path_a if nnet_normalisation(a) is not None else path_b
        print(f"netfibers: note: {one} is read as its raw weight network (normalised inputs and "
              "outputs, as `eval` reads it), not as the map it defines on raw inputs; `netfibers "
              "info` shows its normalisation", file=sys.stderr)
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


def domain_words(domain: Domain, exact: bool = False) -> str:
    """The domain of a command's answer in words, long ends as ≈ decimals unless *exact*.

    >>> domain_words(Domain.cube(2, -1, 1)), domain_words(Domain.whole(3))
    ('the cube [-1, 1]^2', 'R^3')
    >>> domain_words(Domain.orthant(2)), domain_words(Domain([0, None], [1, 2], [([1, 1], 1)]))
    ('the orthant x >= 0 of R^2', 'the box [0, 1] x (-inf, 2] cut by 1 half-space')
    """
    from .display import numbers        # long ends as ≈ decimals unless --exact
    d, k = domain.dim, len(domain.halfspaces)
    cut = f" cut by {k} half-space{'s' * (k != 1)}" if k else ""
    if all(v is None for v in domain.lo + domain.hi):
        return f"R^{d}{cut}"
    if all(v == 0 for v in domain.lo) and all(v is None for v in domain.hi):
        return f"the orthant x >= 0 of R^{d}{cut}"
    side = [("(-inf" if lo is None else f"[{numbers([lo], exact)}") + ", "
            + ("inf)" if hi is None else f"{numbers([hi], exact)}]") for lo, hi in zip(domain.lo, domain.hi)]
    if len(set(side)) == 1:
        return f"the {'cube' if None not in domain.lo + domain.hi else 'box'} {side[0]}^{d}{cut}"
    return "the box " + " x ".join(side) + cut


def with_domain(data: dict, text: str, domain: Domain, exact: bool = False) -> str:
    """*text* with the line naming the domain of its answer after its first line, and *data* with
    the key ``domain`` (``text``, and the exact ``lo``, ``hi``, ``halfspaces``): an answer saved
    alone says where it holds (s45 fibers audit F1: ``dim --box`` gave 4 where R^2 gives 10, and
    neither said which)."""
    first, nl, rest = text.partition("\n")
    return f"{first}{domain_line(data, domain, exact)}{nl}{rest}"


def domain_line(data: dict, domain: Domain, exact: bool = False) -> str:
    """The line ``"\\n  domain: …"`` of :func:`with_domain` (and its JSON key set in *data*), for a
    report that places it itself (``equiv``: after the counterexample's lines)."""
    data.setdefault("domain", {"text": domain_words(domain, True), **domain.to_json()})
    return f"\n  domain: {domain_words(domain, exact)}"


def is_existing_file(text: str) -> bool:
    """Whether *text* names an existing regular file (:func:`algebra.io.domain_text.is_existing_file`)."""
    return domain_text.is_existing_file(text)


def parse_point(text: str, n: int | None = None, what: str = "--x") -> list:
    """``"1,1/2,-3"`` -> exact rationals."""
    return _one_line(domain_text.parse_numbers, text, n, what)


def check_output_dir(path: str | None, option: str = "--certificate") -> None:
    """Fail at once (exit 2, nothing computed) when the directory of an output file *path* does
    not exist: a long search must not end in "cannot write"."""
    if path is not None and not Path(path).expanduser().resolve().parent.is_dir():
        fail(f"{option} {path}: the directory {Path(path).parent} does not exist")


def _one_line(fn, *args, **kw):
    """*fn* of :mod:`algebra.io.domain_text` (the one grammar of domains), its
    :class:`InputError` as the one-line exit 2."""
    try:
        return fn(*args, **kw)
    except AlgebraError as exc:
        fail(str(exc))


def parse_box(text: str) -> tuple:
    """``"lo,hi"`` -> (lo, hi) with lo <= hi."""
    return _one_line(domain_text.parse_interval, text, "--box")


def parse_box_domain(text: str, d: int, net: Network | None = None) -> list:
    """A bounded box with per-coordinate bounds, ``d`` exact ``(lo, hi)``: ``"lo,hi"`` (the
    cube), ``"lo1:hi1,lo2:hi2,…"``, a JSON file or inline JSON ``[[lo, hi], …]`` / ``{"box":
    [[lo, hi], …]}``, or ``"file"`` (the normalised input box of the ``.nnet`` file *net* was
    read from) (:func:`algebra.io.domain_text.parse_box_text`; half-spaces or an open side are
    an error, never dropped)."""
    return _one_line(domain_text.parse_box_text, text, d, net)


def parse_ball(text: str, d: int) -> list:
    """``"x1,…,xd,R"`` (or ``"x,R"``: the point (x, …, x)) -> the L∞ ball as a box."""
    return _one_line(domain_text.parse_ball_text, text, d)


def parse_domain(args, d: int, net: Network | None = None) -> Domain:
    """The one exact :class:`~algebra.kernel.Domain` of a command's options: ``--box`` (any form of
    :mod:`algebra.io.domain_text`; a JSON file may add ``"halfspaces"``, leave sides open with
    ``null`` and leave out ``"box"``), ``--ball X,R``, ``--orthant``, or all of R^d when none is
    given.  A bad domain is a one-line input error (exit 2)."""
    box = getattr(args, "box", None)
    try:
        dom = domain_text.parse_domain_text(d, box=box, ball=getattr(args, "ball", None),
                                            orthant=getattr(args, "orthant", False), net=net)
        if dom.halfspaces:                  # an empty polyhedron is refused here, naming the file
            from ..bab.diff import domain_point
            domain_point(dom)
        return dom
    except AlgebraError as exc:
        msg = str(exc)          # a box file's problem names the file (input audit, session 35)
        if isinstance(box, str) and box.strip().endswith(".json") and box not in msg:
            msg = f"--box {box}: {msg[len('--box: '):] if msg.startswith('--box: ') else msg}"
        fail(msg)


def walk_domain(dom: Domain):
    """The :class:`~semialgebraic.sets.Polyhedron` a region walk takes for *dom* (None: R^d)."""
    from ..sets import Polyhedron
    d = dom.dim
    if dom.as_cube is not None:
        return Polyhedron.box(d, *dom.as_cube)
    if dom.legacy_or_none() == "orthant":
        return Polyhedron.orthant(d)
    rows = dom.rows()
    if not rows:
        return None
    return Polyhedron([[-v for v in g[:d]] for g in rows], [g[d] for g in rows], d)


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
        with phase(f"reading {Path(path).name}"):
            data = read_json_text(Path(path))
    except AlgebraError as exc:
        fail(str(exc))
    if not isinstance(data, dict):
        fail(f"{path}: a certificate is a JSON object")
    return data
