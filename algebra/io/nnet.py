"""The NNet format (Julian et al.; the ACAS Xu networks and many verification benchmarks), read
exactly.

A ``.nnet`` file is text: ``//`` comment lines, then comma-separated records::

    numLayers, inputSize, outputSize, maxLayerSize,
    layerSizes (numLayers + 1 values),
    a flag (unused),
    input minima (inputSize), input maxima (inputSize),
    means (inputSize + 1: the inputs', then the output's),
    ranges (inputSize + 1: the inputs', then the output's),
    per layer: one line per row of W (layerSizes[k] values each), then one line per bias.

Every number is read as the exact rational its decimal text denotes (``0.1`` is 1/10, not the
nearest double).  The network returned is the raw weight network: it acts on *normalised*
inputs ``(x_raw − mean) / range`` and gives normalised outputs (``y_raw = y · range_out +
mean_out``).  The normalisation goes in the network's provenance (one sentence) and, exactly,
in :func:`nnet_normalisation`; :func:`nnet_input_box` is the normalised input box (the file's
input minima and maxima, normalised), the domain ``--box file``.  :func:`nnet_raw` is the map
the file defines on raw inputs and raw outputs (the normalisations composed in, exactly);
:func:`nnet_in_units_of` that map re-expressed in another file's normalisation: what two files with
different normalisations are compared as (in the first file's normalised units, the units of a pair
that normalises alike).

>>> import tempfile, os
>>> text = '''// a 2-2-1 net
... 2,2,1,2,
... 2,2,1,
... 0,
... -1,0,
... 1,4,
... 0,2,0,
... 2,4,1,
... 1,0.5,
... -1,0,
... 0.25,
... 0,
... 1,-1,
... 0.1,
... '''
>>> with tempfile.TemporaryDirectory() as d:
...     p = os.path.join(d, "t.nnet")
...     _ = open(p, "w").write(text)
...     net = load_nnet(p)
>>> net.widths, net.biases[0][0], net.biases[1][0]
((2, 2, 1), 1/4, 1/10)
>>> [[str(v) for v in b] for b in nnet_input_box(net)]
[['-1/2', '1/2'], ['-1/2', '1/2']]
"""

from __future__ import annotations

from pathlib import Path

from ..exceptions import InputError
from ..network import Network
from ..rationals import to_q

__all__ = ["load_nnet", "nnet_normalisation", "nnet_input_box", "nnet_raw", "nnet_in_units_of", "nnet_common_units"]

_KEY = "nnet_normalisation"
_MAX_COUNT = 10 ** 8     # a layer count or size above it is a malformed header, not a network


def load_nnet(path: str | Path, **options) -> Network:
    """The raw weight network of the ``.nnet`` file *path* (on normalised inputs), exactly.

    Raises
    ------
    InputError
        For a malformed file (wrong counts, a non-number, a zero range), naming the file and
        the line.
    """
    if options:
        raise InputError(f"options {sorted(options)} do not apply to .nnet files", source=str(path))
    src = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8-sig")   # a BOM (Excel, Notepad) is not data
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read: {exc}", source=src) from None
    lines = [(k + 1, ln) for k, ln in enumerate(text.splitlines())
             if ln.strip() and not ln.lstrip().startswith("//")]
    pos = 0
    raw: dict = {}                       # the decimal text of the normalisation, for people

    def record(what: str, n: int | None = None, integer: bool = False) -> list:
        nonlocal pos
        if pos >= len(lines):
            raise InputError(f"the file ends before the {what}", source=src)
        lineno, ln = lines[pos]
        pos += 1
        fields = [f.strip() for f in ln.split(",")]
        while fields and fields[-1] == "":
            fields.pop()
        if n is not None and len(fields) != n:
            raise InputError(f"line {lineno} ({what}): expected {n} values, got {len(fields)}", source=src)
        try:
            vals = [to_q(f) for f in fields]
        except Exception as exc:        # AlgebraError (bad number); one line naming the line
            raise InputError(f"line {lineno} ({what}): {exc}", source=src) from None
        if integer and any(v.q != 1 or v < 0 for v in vals):
            raise InputError(f"line {lineno} ({what}): expected non-negative integers", source=src)
        if integer and any(v > _MAX_COUNT for v in vals):     # "1e9999" is an integer too
            raise InputError(f"line {lineno} ({what}): a count above {_MAX_COUNT}", source=src)
        raw[what] = fields
        return vals

    head = record("header (numLayers, inputSize, outputSize, maxLayerSize)", 4, integer=True)
    n_layers, n_in, n_out, max_size = (int(v) for v in head)
    if n_layers < 1 or n_in < 1 or n_out < 1:
        raise InputError("the header needs at least one layer, one input and one output", source=src)
    sizes = [int(v) for v in record("layer sizes", n_layers + 1, integer=True)]
    if sizes[0] != n_in or sizes[-1] != n_out or min(sizes) < 1:
        raise InputError(f"layer sizes {sizes} do not match inputSize {n_in} and outputSize {n_out}",
                         source=src)
    if max_size != max(sizes):         # NNet's writers set it to the largest size, inputs included
        raise InputError(f"maxLayerSize {max_size} in the header is not the largest layer size "
                         f"{max(sizes)}", source=src)
    record("symmetric flag")
    mins = record("input minima", n_in)
    maxs = record("input maxima", n_in)
    means = record("means", n_in + 1)
    ranges = record("ranges", n_in + 1)
    if any(r == 0 for r in ranges):
        raise InputError("a range is zero (normalisation divides by it)", source=src)
    if any(lo > hi for lo, hi in zip(mins, maxs)):
        raise InputError("an input minimum exceeds its maximum", source=src)
    weights, biases = [], []
    for k in range(n_layers):
        weights.append([record(f"row {i} of W{k + 1}", sizes[k]) for i in range(sizes[k + 1])])
        biases.append([record(f"bias {i} of layer {k + 1}", 1)[0] for i in range(sizes[k + 1])])
    if pos != len(lines):
        raise InputError(f"line {lines[pos][0]}: unexpected data after the last layer", source=src)
    net = Network.from_rows(weights, biases)
    norm = {"input_minimums": tuple(mins), "input_maximums": tuple(maxs),
            "input_means": tuple(means[:n_in]), "input_ranges": tuple(ranges[:n_in]),
            "output_mean": means[n_in], "output_range": ranges[n_in]}
    net.derived(_KEY, lambda: norm)
    def text(what, k=slice(None)):       # the numbers as written in the file (exact decimals)
        return ", ".join(raw[what][k])
    sentence = (f"read from NNet file {Path(path).name}, every decimal exactly; the network acts on "
                "normalised inputs (x - mean) / range and gives normalised outputs "
                f"(y_raw = y * {raw['ranges'][n_in]} + {raw['means'][n_in]}); input means "
                f"({text('means', slice(n_in))}), ranges ({text('ranges', slice(n_in))}), "
                f"minima ({text('input minima')}), maxima ({text('input maxima')})")
    net.derived("provenance", lambda: (sentence,))
    return net


def nnet_normalisation(net: Network) -> dict | None:
    """The exact normalisation of a network read from a ``.nnet`` file (keys
    ``input_minimums``, ``input_maximums``, ``input_means``, ``input_ranges``, ``output_mean``,
    ``output_range``), or None for any other network."""
    return net.derived(_KEY, lambda: None)


def nnet_input_box(net: Network) -> list | None:
    """The file's input box in normalised coordinates: ``[((min_i − mean_i) / range_i,
    (max_i − mean_i) / range_i)]`` (ends swapped for a negative range), or None."""
    norm = nnet_normalisation(net)
    if norm is None:
        return None
    box = []
    for lo, hi, m, r in zip(norm["input_minimums"], norm["input_maximums"], norm["input_means"],
                            norm["input_ranges"]):
        a, b = (lo - m) / r, (hi - m) / r
        box.append((a, b) if a <= b else (b, a))
    return box


def nnet_raw(net: Network, box=None) -> Network:
    """The input-output map of the ``.nnet`` file *net* was read from, on raw inputs and raw
    outputs: its normalisation composed in exactly, ``W1 diag(1/range)`` and ``b1 − W1 (mean /
    range)`` in the first layer, ``range_out · W_L`` and ``range_out · b_L + mean_out`` in the
    last.  It equals the file's map on the raw input box (where the NNet reference code's clipping
    of the inputs to their minima and maxima does nothing); it does not clip outside it.  The
    result carries the identity normalisation with the raw input box *box* (default: the file's
    minima and maxima), so that ``--box file`` is that box.

    >>> import tempfile, os
    >>> lines = ["1,1,1,1,", "1,1,", "0,", "-1,", "3,", "1,10,", "2,4,", "3,", "1,"]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.nnet")
    ...     _ = open(p, "w").write("\\n".join(lines))
    ...     raw = nnet_raw(load_nnet(p))
    >>> raw.weights[0].to_rows(), raw.biases[0]     # 4 (3 (x - 1) / 2 + 1) + 10 = 6 x + 8
    ([[6]], (8,))
    >>> nnet_input_box(raw)
    [(-1, 3)]
    """
    norm = nnet_normalisation(net)
    if norm is None:
        raise InputError("not a network read from a .nnet file: no normalisation to apply")
    means, ranges = norm["input_means"], norm["input_ranges"]
    Ws = [W.to_rows() for W in net.weights]
    bs = [list(b) for b in net.biases]
    bs[0] = [b - sum(w * m / r for w, m, r in zip(row, means, ranges))
             for row, b in zip(Ws[0], bs[0])]
    Ws[0] = [[w / r for w, r in zip(row, ranges)] for row in Ws[0]]
    out_mean, out_range = norm["output_mean"], norm["output_range"]
    Ws[-1] = [[w * out_range for w in row] for row in Ws[-1]]
    bs[-1] = [b * out_range + out_mean for b in bs[-1]]
    raw = Network.from_rows(Ws, bs)
    if box is None:
        box = list(zip(norm["input_minimums"], norm["input_maximums"]))
    d = len(means)
    identity = {"input_minimums": tuple(lo for lo, _ in box),
                "input_maximums": tuple(hi for _, hi in box),
                "input_means": (to_q(0),) * d, "input_ranges": (to_q(1),) * d,
                "output_mean": to_q(0), "output_range": to_q(1)}
    raw.derived(_KEY, lambda: identity)
    raw.derived("provenance", lambda: (*net.provenance, "its normalisation composed in: the "
                                       "network acts on raw inputs and gives raw outputs"))
    return raw


def nnet_in_units_of(net: Network, norm: dict, raw_box=None) -> Network:
    """The map the ``.nnet`` file *net* was read from defines (:func:`nnet_raw`), re-expressed in
    the normalisation *norm* of another file: inputs ``x`` are that file's normalised inputs
    (``x_raw = x · range + mean``), outputs its normalised outputs (``(y_raw − mean_out) /
    range_out``), all composed in exactly.  For *norm* = the file's own normalisation this is the
    file's raw weight network again.  The result carries *norm* with the raw input bounds
    *raw_box* (default: *norm*'s), so that ``--box file`` is that box in *norm*'s normalised
    coordinates.

    >>> import tempfile, os
    >>> lines = ["1,1,1,1,", "1,1,", "0,", "-1,", "3,", "1,10,", "2,4,", "3,", "1,"]
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "t.nnet")
    ...     _ = open(p, "w").write("\\n".join(lines))
    ...     net = load_nnet(p)
    >>> norm = dict(nnet_normalisation(net), input_means=(to_q(0),), output_range=to_q(2))
    >>> other = nnet_in_units_of(net, norm)       # (6 (2 x) + 8 - 10) / 2 = 6 x - 1
    >>> other.weights[0].to_rows(), other.biases[0]
    ([[6]], (-1,))
    >>> same = nnet_in_units_of(net, nnet_normalisation(net))
    >>> same.weights[0].to_rows() == net.weights[0].to_rows() and same.biases == net.biases
    True
    """
    raw = nnet_raw(net)
    means, ranges = norm["input_means"], norm["input_ranges"]
    Ws = [W.to_rows() for W in raw.weights]
    bs = [list(b) for b in raw.biases]
    bs[0] = [b + sum(w * m for w, m in zip(row, means)) for row, b in zip(Ws[0], bs[0])]
    Ws[0] = [[w * r for w, r in zip(row, ranges)] for row in Ws[0]]
    out_mean, out_range = norm["output_mean"], norm["output_range"]
    Ws[-1] = [[w / out_range for w in row] for row in Ws[-1]]
    bs[-1] = [(b - out_mean) / out_range for b in bs[-1]]
    out = Network.from_rows(Ws, bs)
    carried = dict(norm)
    if raw_box is not None:
        carried["input_minimums"] = tuple(lo for lo, _ in raw_box)
        carried["input_maximums"] = tuple(hi for _, hi in raw_box)
    out.derived(_KEY, lambda: carried)
    out.derived("provenance", lambda: (*net.provenance, "its map re-expressed exactly in another "
                                       ".nnet file's normalisation (normalised inputs and outputs)"))
    return out


def nnet_common_units(a: Network, b: Network) -> tuple[Network, Network, str | None]:
    """Two networks to compare (``equiv``, ``diff``, ``batch``) and their units: *a*, *b* and None
    unless both were read from ``.nnet`` files with one input count; ``"normalised"`` when the two
    files normalise alike (their raw weight networks, on the same normalised inputs); else
    ``"normalised-first"``: the maps the two files define, both re-expressed in *a*'s
    normalisation (:func:`nnet_in_units_of`; the units of a pair that normalises alike, so that a
    deviation or an ε means the same whichever normalisation the second file uses), carrying the
    raw input box both files accept.  InputError when no raw input is valid for both."""
    na, nb = nnet_normalisation(a), nnet_normalisation(b)
    if na is None or nb is None:
        return a, b, None
    if na == nb:
        return a, b, "normalised"
    box = [(max(la, lb), min(ha, hb)) for la, lb, ha, hb in
           zip(na["input_minimums"], nb["input_minimums"], na["input_maximums"], nb["input_maximums"])]
    if len(box) != len(nb["input_minimums"]) or len(box) != a.n_inputs:
        return a, b, None               # other input counts: the signature check says so
    if any(lo > hi for lo, hi in box):
        raise InputError("normalise differently and their input bounds (.nnet minima and maxima) "
                         "do not meet: no raw input is valid for both")
    return nnet_in_units_of(a, na, box), nnet_in_units_of(b, na, box), "normalised-first"
