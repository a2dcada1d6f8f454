"""Native JSON format ``netfibers.network`` (see ARCHITECTURE.md, Formats).

Numbers: JSON integers, strings ``"p/q"``/``"-3"``/``"0.125"``/``"1e-3"``, or JSON float literals,
which mean the exact decimal they spell (the parser keeps the literal's text).

Optional ``"inputs": d`` (written by :meth:`~algebra.network.Network.to_dict`) pins the input
width, so that a hidden layer without neurons (a fully pruned layer: ``"weight": []``; the
network is then constant) keeps its shape through a JSON round trip.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from decimal import Decimal
from pathlib import Path

from ..exceptions import AlgebraError, InputError
from ..linalg import QMatrix
from ..network import Network, guard_conversion
from ..rationals import Q as _Q, to_q

__all__ = ["save_json", "read_json_text", "network_from_dict", "network_to_dict",
           "parse_number", "parse_matrix", "parse_vector", "write_atomic"]

KNOWN_ACTIVATIONS_NETWORK = {"relu"}



MAX_INPUTS = 1 << 31
"""The largest ``"inputs"`` width a network file may declare (FLINT matrices take word-size
dimensions; a width pinned past it is a malformed file, session-38 forge F4)."""

def no_such_file(p: Path) -> InputError:
    """The error for a missing *p*; a README example path (``algebra/examples/…``) given outside
    the repository root names the installed copy (s49 new-user audit F5: "no such file", no
    hint, though ``pip install .`` installs the examples)."""
    parts = Path(p).parts
    if "examples" in parts and not Path(p).is_absolute():
        k = parts.index("examples")
        bundled = Path(__file__).resolve().parents[1].joinpath("examples", *parts[k + 1:])
        if k >= 1 and parts[k - 1] == "algebra" and bundled.is_file():
            return InputError(f"no such file here (README's examples are relative to the "
                              f"repository root; the installed copy is {bundled})", source=str(p))
    return InputError("no such file", source=str(p))


def require_regular_file(path, what: str = "a weight file") -> Path:
    """*path* as a Path, or InputError naming it: missing, a directory, a pipe or a device
    (reading could wait forever), or a name the system refuses (too long, …)."""
    p = Path(path)
    try:
        exists, is_dir, is_file = p.exists(), p.is_dir(), p.is_file()
    except OSError as exc:                 # e.g. a file name longer than the system allows
        raise InputError(f"cannot read: {exc.strerror or exc}", source=str(p)) from None
    if not exists:
        raise no_such_file(p)
    if is_dir:
        raise InputError(f"is a directory, not {what}", source=str(p))
    if not is_file:
        raise InputError("not a regular file (a pipe or a device?)", source=str(p))
    return p


def read_json_text(path: Path) -> object:
    """Parse a JSON file exactly: float literals become ``Decimal`` (their spelled value)."""
    try:
        p = Path(path)
        if p.exists() and not p.is_file() and not p.is_dir():   # a pipe would wait forever
            raise InputError("not a regular file (a pipe or a device?)", source=str(path))
        text = p.read_text(encoding="utf-8-sig")   # a BOM (Excel, Notepad) is not data
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", source=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror}", source=str(path)) from None
    if len(text) >= _GUARDED_TEXT:   # the scan and json.loads: C work no signal stops (a 192 MB
        guard_conversion(len(text) // 16,   # block of "3.78e-06"s: 6.7 s past --timeout 3, s50)
                         f"{Path(path).name}'s numbers ({len(text) / 1e6:.0f} MB of JSON)")
    check_exponents(text, str(path))
    try:
        return json.loads(text, parse_float=Decimal, parse_constant=_bad_constant,
                          parse_int=_parse_int, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise InputError(f"malformed JSON: the key {exc.args[0]!r} is given twice in one object "
                         "(which one is meant?)", source=str(path)) from None
    except _ConstantError as exc:
        where = _constant_location(text)
        raise InputError(f"{exc.args[0]} is not a number netfibers accepts (only finite numbers "
                         "have an exact value)", source=str(path), where=where) from None
    except RecursionError:
        raise InputError("malformed JSON: nested too deeply", source=str(path)) from None
    except json.JSONDecodeError as exc:
        raise InputError(f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}",
                         source=str(path)) from None


_GUARDED_TEXT = 1_600_000
"""JSON texts from this many characters are costed by :func:`~algebra.network.guard_conversion`
before they are scanned and parsed, as one entry for every 16 characters (a decimal and its
comma: ~6 MB/s at the guard's rate, about what the two steps take together)."""


class _ConstantError(ValueError):
    pass


MAX_EXPONENT_DIGITS = 10 ** 8
"""The most digits a JSON file's exponents may expand to in all: "1e9999" is 6 bytes of text and
a 10 000-digit number (about 8.5 kB in memory), so a 3.6 MB file of them took 3-6 GB before any
budget (input audit, session 35); at this limit about 85 MB."""

_EXPONENT = re.compile(r"(?<![0-9A-Za-z_.])(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE][+-]?([0-9]+)"
                       r"(?![0-9A-Za-z_.])")
# (one way to split a run of digits: "[0-9]+\.?[0-9]*" tried every split of a run without an
# exponent, quadratic in C where no budget reaches: 60 000 digits took 20-30 s, a 1 MB file
# hours; s48 hostile audit F1)


def check_exponents(text: str, source: str | None = None) -> None:
    """:class:`InputError` naming *source* when the numbers' exponents in the JSON *text* add up
    to more than :data:`MAX_EXPONENT_DIGITS` digits (every JSON text read: files, batch
    manifests, inline domains; s40 forge audit F1b)."""
    expanded = _exponent_digits(text)
    if expanded > MAX_EXPONENT_DIGITS:
        raise InputError(f"the numbers' exponents add up to {expanded} digits (more than "
                         f"{MAX_EXPONENT_DIGITS}: each \"1e9999\" is a 10 000-digit number)",
                         source=source)


def _exponent_digits(text: str) -> int:
    """The sum of |exponent| over the number literals of *text* written with one (an upper
    bound of the digits they add), each counted at most ``MAX_DIGITS`` + 1 (a larger one is
    refused when the number is read).  Only whole number tokens count (in strings too: "1e9999"
    is read as a number): a hex digest such as "73e865043098656c" in a symmetry path's
    checkpoints counted as 10^12 digits and made `verify` refuse a valid certificate (session 40
    equiv audit F1).

    >>> _exponent_digits('[1e9999, "2.5E-3", 7]')
    10002
    >>> _exponent_digits('["73e865043098656c", "ac5f1e63b34e9302", "sha e5", 1e99999999]')
    10001
    >>> _exponent_digits(r'["\\t1e9999", "1\\u00659999", "\\u0031e9999"]')
    29997
    """
    from algebra.rationals import MAX_DIGITS
    if "\\" in text:                # strings are read unescaped: "\t1e9999" and "1\u00659999"
        text = _ESCAPE.sub(_unescape, text)   # are 1e9999 (s40 forge audit F1)
    return sum(min(int(e), MAX_DIGITS + 1) if len(e) < 12 else MAX_DIGITS + 1
               for e in _exponents(text))


_TOKEN_CHARS = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_.")


def _exponents(text: str) -> list:
    """The exponents (digit strings) of ``_EXPONENT.findall(text)``, found from the letters
    e/E (``str.find``, C speed) rather than by the regex at every position: the scan of a
    104 MB block took 3.1 s that no budget sees (s49 huge audit F6).  A match starts where a
    run of ``[0-9A-Za-z_.]`` starts (the lookbehind) and holds exactly one e/E, so trying the
    regex once at the start of each run that holds an e/E finds the same matches; the run's
    start is found by scanning back, at most to the previous e/E of the same run (linear).
    A text dense in e/E (a file of "1.5e-05"s) takes the regex: ~1 µs a letter here."""
    if (text.count("e") + text.count("E")) * 64 > len(text):
        return _EXPONENT.findall(text)
    out = []
    nxt = {c: text.find(c) for c in "eE"}
    prev_i = prev_start = tried = -1
    while True:
        i = min((p for p in nxt.values() if p >= 0), default=-1)
        if i < 0:
            return out
        nxt[text[i]] = text.find(text[i], i + 1)
        s = i
        while s > 0 and text[s - 1] in _TOKEN_CHARS:
            s -= 1
            if s == prev_i:           # the run of the previous e/E: its start
                s = prev_start
                break
        prev_i, prev_start = i, s
        if s != tried and text[s] in "0123456789.":
            tried = s
            m = _EXPONENT.match(text, s)
            if m:
                out.append(m.group(1))


_ESCAPE = re.compile(r"\\(u[0-9A-Fa-f]{4}|.)", re.S)


def _unescape(m) -> str:
    """One JSON string escape as the character it stands for (controls as a space)."""
    e = m.group(1)
    c = chr(int(e[1:], 16)) if len(e) == 5 else {"n": " ", "t": " ", "r": " ", "b": " ",
                                                   "f": " "}.get(e, e)
    return " " if not c.isprintable() else c

class _DuplicateKey(ValueError):
    pass


def _unique_keys(pairs: list) -> dict:
    """A JSON object whose keys are all different (json keeps the last of repeated keys
    silently: two "weight" keys, or "tanh" then "relu" as activation, were read without a
    word; input audit, session 35).

    >>> _unique_keys([("a", 1), ("b", 2)])
    {'a': 1, 'b': 2}
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return out


class _Constant:
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


def _constant_location(text: str) -> str | None:
    """Where the first JSON literal NaN/Infinity/-Infinity stands, e.g. ``layers[1].weight[0][2]``
    (the text parsed again with the literals kept as markers), or None."""
    try:
        data = json.loads(text, parse_float=Decimal, parse_constant=_Constant, parse_int=_parse_int)
    except (ValueError, RecursionError):
        return None
    stack = [(data, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, _Constant):
            return path or None
        if isinstance(node, dict):
            items = [(v, f"{path}.{k}" if path else str(k)) for k, v in node.items()]
        elif isinstance(node, list):
            items = [(v, f"{path}[{i}]") for i, v in enumerate(node)]
        else:
            continue
        stack.extend(reversed(items))
    return None


def _bad_constant(name: str):
    raise _ConstantError(name)


def _parse_int(text: str):
    """A JSON integer; one too long for ``int`` (Python refuses more than 4300 digits) stays the
    digit string, which :func:`parse_number` reads exactly."""
    return int(text) if len(text) < 4000 else text


def parse_number(x: object, where: str, source: str | None = None):
    """One exact number from JSON (int, Decimal from a float literal, or string)."""
    if isinstance(x, bool) or not isinstance(x, (int, str, Decimal)):
        raise InputError(f"expected a number, got {type(x).__name__} {str(x)[:30]}", source, where)
    try:
        return to_q(x)
    except AlgebraError as exc:
        raise InputError(str(exc), source, where) from None


def parse_vector(v: object, where: str, source: str | None = None, length: int | None = None):
    if not isinstance(v, list):
        raise InputError("expected a list of numbers", source, where)
    if length is not None and len(v) != length:
        raise InputError(f"expected {length} entries, got {len(v)}", source, where)
    return [parse_number(x, f"{where}[{i}]", source) for i, x in enumerate(v)]


def parse_matrix(m: object, where: str, source: str | None = None, shape: tuple[int | None, int | None] = (None, None)):
    if not isinstance(m, list) or not all(isinstance(r, list) for r in m):
        raise InputError("expected a list of rows (a matrix)", source, where)
    if shape[0] is not None and len(m) != shape[0]:
        raise InputError(f"expected {shape[0]} rows, got {len(m)}", source, where)
    ncols = shape[1] if shape[1] is not None else (len(m[0]) if m else 0)
    step = max(len(m), 1) if len(m) * ncols < _GUARDED else -(-_GUARDED // max(ncols, 1))
    rows = []
    for start in range(0, len(m), step):
        part = m[start:start + step]
        if step < len(m):   # a large matrix in parts, each first costed against the budget's
            guard_conversion(len(part) * ncols,     # time (4.7 M decimals of a 104 MB block
                             f"{where}'s exact numbers from the file "  # took 10 s no budget saw:
                             f"(rows {start}-{start + len(part) - 1} of {len(m)})")  # s49 F6)
        canonical = _canonical_rows(part, ncols)
        if canonical is not None:
            rows += canonical
            continue
        for i, r in enumerate(part, start):
            if len(r) != ncols:
                raise InputError(f"row {i} has {len(r)} entries, expected {ncols}", source, where)
            rows.append([parse_number(x, f"{where}[{i},{j}]", source) for j, x in enumerate(r)])
    return rows


_GUARDED = 100_000
"""Entries from which :func:`parse_matrix` reads a matrix in parts of about this many, each
asked of :func:`algebra.network.guard_conversion` first (the guard's own threshold)."""


def _canonical_rows(m: list, ncols: int):
    """Rows of ``fmpq`` when every entry is a JSON integer or an ASCII ``"p/q"``/``"-3"`` string
    (what netfibers writes), else None (the caller then parses entry by entry, with exact error
    messages).  The fast path of large native files and certificates."""
    Q = _Q
    rows = []
    try:
        for r in m:
            if len(r) != ncols:
                return None
            row = []
            for x in r:
                t = type(x)
                if t is int:
                    row.append(Q(x))
                elif t is str and x.isascii() and "_" not in x and len(x) < 600:
                    a, _, b = x.partition("/")
                    row.append(Q(int(a), int(b)) if b else Q(int(a)))
                else:
                    return None
            rows.append(row)
    except (ValueError, ZeroDivisionError, TypeError):
        return None
    return rows


_MAX_DECIMAL_DIGITS = 18          # 10^18 < 2^63: the common denominator stays an int64-sized power


def _decimal_array(m: object, ncols: int | None):
    """``(N, 10^k)`` (N an int64 numpy array, ``W == N / 10^k`` exactly) for a non-empty
    rectangular matrix of JSON decimal literals (``Decimal``, e.g. ``0.1234``) and integers, with
    at most 18 fractional digits and numerators within int64; else None (the general parser
    then reads it, with its exact error messages).  Keeps JSON-decimal weights as integer arrays
    for the exact fast paths (no FLINT round trip)."""
    if not isinstance(m, list) or not m or not isinstance(m[0], list) or not m[0]:
        return None
    c = len(m[0])
    if (ncols is not None and c != ncols) or any(type(r) is not list or len(r) != c for r in m):
        return None
    try:
        import numpy as np
    except ImportError:
        return None
    k, seen = 0, False
    for r in m:
        for x in r:
            t = type(x)
            if t is Decimal:
                e = x.as_tuple().exponent
                if type(e) is not int or e > 18:      # NaN / Infinity: the general parser errs;
                    return None                       # 1e999999 was built whole (26 s) before
                                                      # int64 refused it (s48 hostile audit F7)
                if -e > k:
                    k = -e
                seen = True
            elif t is not int:
                return None
    if not seen or k > _MAX_DECIMAL_DIGITS:
        return None
    scale = Decimal(10) ** k
    try:
        N = np.array([[int(x * scale) if type(x) is Decimal else x * 10 ** k for x in r] for r in m],
                     dtype=np.int64)
    except OverflowError:
        return None
    if N.shape != (len(m), c):
        return None
    return N, 10 ** k


_NETWORK_KEYS = ("format", "version", "activation", "inputs", "layers", "comment")
"""The keys of a network's JSON; other keys (a "name", "comments") are ignored unless they look
like a misspelling of one of the first five, which have defaults (:func:`_close_key`)."""
_LAYER_KEYS = {"weight", "bias", "name", "comment"}


def _close_key(key, known) -> str | None:
    """The known key *key* most likely misspells (``activaton``, ``Layers``), or None."""
    import difflib
    k = str(key).lower()
    if k in known:
        return k
    m = difflib.get_close_matches(k, known, n=1, cutoff=0.75)
    return m[0] if m else None


def network_from_dict(data: object, source: str | None = None) -> Network:
    """Build a :class:`Network` from the native JSON structure, with exact error messages (a
    :class:`Network`, e.g. one rebuilt from a certificate's sidecar, is returned as it is)."""
    if isinstance(data, Network):
        return data
    if not isinstance(data, dict):
        raise InputError("expected a JSON object with 'layers'", source)
    fmt = data.get("format", "netfibers.network")
    if fmt != "netfibers.network":
        raise InputError(f"format is {fmt!r}, expected 'netfibers.network'", source)
    version = data.get("version", 1)
    if version != 1:
        raise InputError(f"unsupported version {version!r} (this netfibers reads version 1)", source)
    near = {k: _close_key(k, _NETWORK_KEYS[:5]) for k in data if k not in _NETWORK_KEYS}
    near = {k: m for k, m in near.items() if m}
    if near:                  # a misspelt key must not leave its default in place (s48 API audit:
        k, m = next(iter(near.items()))          # "activaton": "tanh" was read as a ReLU net)
        raise InputError(f"unknown key {k!r} (did you mean {m!r}?)", source)
    act = data.get("activation", "relu")
    if not isinstance(act, str):
        raise InputError(f"activation must be a string, got {type(act).__name__}", source)
    if act not in KNOWN_ACTIVATIONS_NETWORK:
        raise InputError(f"unknown activation {act!r} for a network (supported: relu)", source)
    layers = data.get("layers")
    if not isinstance(layers, list) or not layers:
        if "layers" not in data and any(str(k).endswith((".weight", ".bias")) for k in data):
            raise InputError("a JSON dump of a state_dict (tensor name -> nested lists) is not "
                             "the netfibers JSON format (README, 'File formats'): save the "
                             "state_dict with torch.save, safetensors or numpy .npz instead "
                             "(each is read exactly)", source)
        raise InputError("'layers' must be a non-empty list", source)
    inputs = data.get("inputs")
    if inputs is not None and (not isinstance(inputs, int) or isinstance(inputs, bool) or inputs < 1):
        raise InputError(f"'inputs' must be a positive integer, got {inputs!r}", source)
    if inputs is not None and inputs > MAX_INPUTS:     # (10^40 reached FLINT as a matrix width:
        raise InputError(f"'inputs' = {inputs} is not a width this tool can hold (at most "  # an
                         f"{MAX_INPUTS})", source)     # OverflowError read as a float overflow)
    ws, bs = [], []
    prev = inputs
    for l, layer in enumerate(layers, start=1):
        if not isinstance(layer, dict) or "weight" not in layer:
            raise InputError("each layer needs 'weight' (and optionally 'bias')", source, f"layer {l}")
        extra = sorted(set(layer) - _LAYER_KEYS, key=str)
        if extra:             # ("biases": [...] was ignored and the bias read as 0: s48 API audit)
            raise InputError(f"unknown key(s) {', '.join(map(repr, extra))} in a layer (a layer "
                             "has 'weight' and optionally 'bias'; a missing bias is 0)", source,
                             f"layer {l}")
        arr = _decimal_array(layer["weight"], prev)
        w = arr[0] if arr is not None else parse_matrix(layer["weight"], f"layer {l} weight",
                                                        source, (None, prev))
        ncols = (int(w.shape[1]) if arr is not None else len(w[0])) if len(w) else prev
        hidden = l < len(layers)
        # a hidden layer may have no neurons (a pruned layer: the net is constant) when its
        # column count is known: from 'inputs' for the first layer, else the previous width
        if (not len(w) and not (hidden and ncols is not None)) or (len(w) and ncols == 0 and prev != 0) \
                or (l == 1 and not ncols):
            raise InputError("empty weight matrix" + ("" if hidden else " (the output layer needs "
                             "rows)") + (" (give 'inputs' for a first layer without rows)"
                                         if l == 1 and not len(w) and hidden else ""),
                             source, f"layer {l} weight")
        b = parse_vector(layer.get("bias", [0] * len(w)), f"layer {l} bias", source, len(w))
        ws.append(arr if arr is not None else QMatrix.from_rows(w, ncols=ncols))
        bs.append(b)
        prev = len(w)
    try:
        if any(not isinstance(w, QMatrix) for w in ws):      # decimal layers kept as arrays
            return Network._from_integer_arrays(ws, bs, source)
        return Network(ws, bs)
    except InputError as exc:
        raise InputError(exc.problem, source, exc.where) from None


def network_to_dict(net: Network) -> dict:
    return net.to_dict()


def write_atomic(path: Path, text) -> None:
    """Write *text* (str, as UTF-8, or bytes, or a callable writing to a binary file object) to
    *path* atomically (nothing is left behind on failure).  A symbolic link is followed (its
    target is written, the link kept); an existing path that is not a regular file (a device,
    /dev/stdout, a directory) is refused: replacing it had turned /dev/full into a regular file
    and said "written" (s40 forge audit F2)."""
    path = Path(path)
    if path.is_symlink():
        path = path.resolve()
    if path.exists() and not path.is_file():
        raise InputError("cannot write: not a regular file (a device or a directory); give a "
                         "file path", source=str(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=str(path.parent or "."), prefix=".nf-", suffix=".tmp")
    except OSError as exc:
        raise InputError(f"cannot write: {exc.strerror}", source=str(path)) from None
    try:
        with (os.fdopen(fd, "w", encoding="utf-8") if isinstance(text, str)
              else os.fdopen(fd, "wb")) as fh:
            if callable(text):
                text(fh)                       # a writer streaming its own bytes
            else:
                fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600; give the usual permissions
        os.replace(tmp, path)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"cannot write: {exc.strerror or exc}", source=str(path)) from None
        raise


def save_json(obj, path: Path) -> None:
    """Write a Network (or any object with ``to_dict()``) as native JSON."""
    if not hasattr(obj, "to_dict"):
        raise InputError(f"cannot save a {type(obj).__name__}", source=str(path))
    write_atomic(Path(path), json.dumps(obj.to_dict(), indent=1) + "\n")
