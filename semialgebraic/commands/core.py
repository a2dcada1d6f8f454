"""Commands ``convert``, ``info``, ``eval``.

* ``netfibers convert NET -o OUT`` reads any supported weight file (JSON, ``.npz``,
  ``.safetensors``, torch, ONNX) exactly and writes native ``.json`` (every number the exact
  rational the stored float denotes) or, with ``-o OUT.npz``/``OUT.safetensors``, float weights
  (``--dtype float32|float64``) that represent the network exactly (else exit 2, naming the first
  parameter that is not representable; nothing written).  ``--dtype float16`` makes the float16
  copy: every parameter rounded to the nearest float16 (ties to even, as numpy; exact, see
  :func:`algebra.io.exact.round_to_float`), written exactly in any of the three formats.
* ``netfibers info NET``: widths, depth, parameter count, largest numerator/denominator bits.
* ``netfibers eval NET --x 1,1/2,-3`` (or ``--data FILE.json``): exact outputs.
"""

from __future__ import annotations

import re
from pathlib import Path

from algebra import load, save
from algebra.exceptions import AlgebraError
from algebra.dyadic import network_bit_sizes
from algebra.io.arrays import read_shapes
from algebra.io.layouts import BlockLayoutError
from algebra.io.blocks import EXPECTED_PAIRS, find_blocks
from algebra.io.exact import rounded_network
from algebra.io.nnet import nnet_input_box, nnet_normalisation
from algebra.network import Network
from algebra.rationals import q_json

from ..cli import emit, fail
from . import display
from .help import describe
from .common import load_any, load_data, load_network, parse_point

__all__ = ["register", "info_dict"]

_OUTPUT_SUFFIXES = (".json", ".npz", ".safetensors")


def register(sub, parent) -> None:
    p = sub.add_parser("convert", parents=[parent],
                       help="convert a weight file to exact JSON (or exactly representable floats)",
                       **describe(
                           "Read NET (.json, .npz, .safetensors, .pt/.pth/.bin, .onnx) exactly - "
                           "every stored float becomes the rational it denotes - and write OUT: "
                           "native .json (exact), or .npz/.safetensors when every parameter is "
                           "exactly representable in --dtype (otherwise nothing is written and "
                           "the first parameter that is not representable is named). --dtype "
                           "float16 makes the float16 copy instead: every parameter rounded to "
                           "the nearest float16 (ties to even, as numpy does), the rounded values "
                           "written exactly (.json: their exact rationals).",
                           exits=["0  written"],
                           examples=["netfibers convert model.safetensors -o model.json",
                                     "netfibers convert net.json -o net.npz --dtype float64",
                                     "netfibers convert net.json -o net16.json --dtype float16"]))
    p.add_argument("input", metavar="NET", help="the weight file to read")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output file: .json (exact), .npz or .safetensors")
    p.add_argument("--dtype", choices=("float32", "float64", "float16"), default=None,
                   help="float type of .npz/.safetensors output (default float32; exact or "
                        "refused); float16: round every parameter to the nearest float16 first "
                        "(any output format)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (exit 3, nothing written; reading the files counts)")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("info", parents=[parent], help="architecture and sizes of a network",
                       **describe(
                           "Print the architecture of NET: widths, depth, number of parameters, "
                           "activation, and the size (in bits) of the largest numerator and "
                           "denominator among its exact parameters. JSON keys: widths, depth, "
                           "hidden_widths, n_parameters, activation, max_numerator_bits, "
                           "max_denominator_bits; for a .nnet file also input_space "
                           "(normalised), normalisation and input_box (--box file).",
                           exits=["0  printed"],
                           examples=["netfibers info algebra/examples/masked_bottleneck.json",
                                     "netfibers info model.safetensors --json"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--block", action="store_true",
                   help="read a weight file as MLP blocks (also fc1/fc2 pairs, which are "
                        "otherwise read as a two-layer network) and list them")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (exit 3, nothing written; reading the files counts)")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("eval", parents=[parent], help="exact output at one input or a batch",
                       **describe(
                           "Compute the output of NET exactly at one input (--x) or at every "
                           "input of a batch (--data). Long rationals print as decimals marked "
                           "≈ (--exact prints them exactly). JSON keys: x and output (one "
                           "input), or inputs and outputs (--data); rationals as \"p/q\" strings.",
                           exits=["0  computed"],
                           examples=["netfibers eval algebra/examples/masked_bottleneck.json "
                                     "--x 1,-1/2",
                                     "netfibers eval net.json --data inputs.json --json"]))
    p.add_argument("net", metavar="NET")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--x", metavar="X",
                       help="input, comma separated exact numbers, e.g. -1,1/2,-3e-2")
    group.add_argument("--data", metavar="FILE",
                       help='batch of inputs: JSON {"inputs": [[x1, ...], ...]}')
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (exit 3, nothing written; reading the files counts)")
    p.set_defaults(func=cmd_eval)
    if hasattr(p, "_negative_number_matcher"):  # let "--x -1,2" through as a value
        p._negative_number_matcher = re.compile(r"^-\.?\d[\d,./eE+\- ]*$")


def info_dict(net) -> dict:
    """The facts ``netfibers info`` prints."""
    num, den = network_bit_sizes(net)     # on the integer weight arrays when a reader kept them
    return {"widths": list(net.widths), "depth": net.depth, "hidden_widths": list(net.hidden_widths),
            "n_parameters": net.n_parameters, "activation": net.activation,
            "max_numerator_bits": num, "max_denominator_bits": den}


def cmd_convert(args) -> int:
    out = Path(args.output)
    try:
        is_dir = out.is_dir()
    except OSError as exc:                 # a name the system refuses (too long, …)
        fail(f"{args.output}: cannot write: {exc.strerror or exc}")
    if is_dir:
        fail(f"{args.output}: is a directory")
    if out.suffix.lower() not in _OUTPUT_SUFFIXES:
        fail(f"{args.output}: convert writes {', '.join(_OUTPUT_SUFFIXES)}, not "
             f"{out.suffix or '(no suffix)'!r}")
    obj = load_any(args.input)
    dtype = args.dtype or "float32"
    options = {} if out.suffix.lower() == ".json" else {"dtype": dtype}
    try:
        if dtype == "float16":
            if not isinstance(obj, Network):
                fail(f"{args.input}: --dtype float16 rounds a network, not a {type(obj).__name__}")
            try:                    # (the input named, not the output: s38 tools audit)
                obj = rounded_network(obj, "float16")
            except AlgebraError as exc:
                fail(f"{args.input}: cannot make a float16 copy: {exc}")
        save(obj, out, **options)
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(out) in msg else f"{out}: {msg}")
    data = {"input": args.input, "output": args.output}
    if hasattr(obj, "widths"):
        data.update(widths=list(obj.widths), n_parameters=obj.n_parameters)
    note = ""
    if dtype == "float16":
        data["rounded_to"] = "float16"
        note = " (every parameter rounded to the nearest float16)"
    if isinstance(obj, Network) and nnet_normalisation(obj) is not None:
        data["dropped"] = "nnet normalisation"
        note += ("\nnote: the .nnet file's normalisation (means, ranges, input box) is not kept: "
                 "the file written is the raw weight network on normalised inputs, and `--box "
                 "file` needs the .nnet file itself")
    emit(args, data, f"wrote {args.output}{note}")
    return 0


def cmd_info(args) -> int:
    if getattr(args, "block", False):
        return _info_blocks(args)
    try:
        net = load(args.net)
    except BlockLayoutError:    # up/gate/down or intermediate/output names: MLP blocks
        return _info_blocks(args)
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(args.net) in msg else f"{args.net}: {msg}")
    if not isinstance(net, Network):
        fail(f"{args.net}: expected a network, got a {type(net).__name__}")
    d = info_dict(net)
    text = (f"widths {'-'.join(map(str, d['widths']))} (depth {d['depth']}, "
            f"{d['n_parameters']} parameters, activation {d['activation']}); "
            f"largest numerator {d['max_numerator_bits']} bits, denominator {d['max_denominator_bits']} bits")
    if net.provenance:
        d["provenance"] = list(net.provenance)
        text += "".join(f"\n  {line}" for line in net.provenance)
    norm = nnet_normalisation(net)
    if norm is not None:
        more, lines = _nnet_units(net, norm, args.exact)
        d.update(more)
        text += lines
    emit(args, d, text)
    return 0


def _nnet_units(net, norm: dict, exact: bool) -> tuple[dict, str]:
    """What ``info`` adds for a ``.nnet`` file: the units its network acts in (JSON
    ``input_space`` ``"normalised"``, ``normalisation`` and ``input_box``, the ``--box file`` box,
    exact strings) and a table, one row per input (raw mean, range, bounds; normalised bounds)."""
    box = nnet_input_box(net)
    more = {"input_space": "normalised",
            "normalisation": {k: ([str(v) for v in val] if isinstance(val, tuple) else str(val))
                              for k, val in norm.items()},
            "input_box": [[str(lo), str(hi)] for lo, hi in box]}
    num = (lambda v: display.number(v, exact))
    rows = [f"  input {i}: raw mean {num(m)}, range {num(r)}, bounds [{num(lo)}, {num(hi)}] -> "
            f"normalised [{num(a)}, {num(b)}]"
            for i, (m, r, lo, hi, (a, b)) in enumerate(zip(
                norm["input_means"], norm["input_ranges"], norm["input_minimums"],
                norm["input_maximums"], box))]
    rows.append(f"  outputs: raw = normalised * {num(norm['output_range'])} + "
                f"{num(norm['output_mean'])}; --box file is the normalised box above (two files "
                "that normalise differently are compared by equiv/diff in the first one's normalised units)")
    return more, "\n" + "\n".join(rows)


def _info_blocks(args) -> int:
    """``info`` on a file of MLP blocks: each block's prefix, layout and widths (from the shapes;
    nothing is converted), or the block of a native block file."""
    path = Path(args.net)
    if path.suffix.lower() == ".json":
        obj = load_any(args.net)
        if isinstance(obj, Network):
            fail(f"{args.net}: a network, not a block (drop --block)")
        emit(args, {"kind": "block", "block": repr(obj)}, f"a block: {obj!r}")
        return 0
    try:
        blocks = find_blocks(read_shapes(path), include_fc=True)
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(args.net) in msg else f"{args.net}: {msg}")
    if not blocks:
        fail(f"{args.net}: no MLP block found (expected weight pairs {EXPECTED_PAIRS})")
    bias = any(b.get("bias") for b in blocks)      # (a user audit: biases were not in the form)
    form = ("x + W_down σ(W_up x + b_up) + b_down" if bias else "x + W_down σ(W_up x)")
    if any(b.get("gated") for b in blocks):         # (s44 blocks audit F6: the gate was not in it)
        form += (" or, gated, x + W_down (g(W_gate x + b_gate) ⊙ (W_up x + b_up)) + b_down" if bias
                 else " or, gated, x + W_down (g(W_gate x) ⊙ W_up x)")
    bad = sum(1 for b in blocks if b["problem"] is not None)
    each = ("each read as one block" if not bad else
            f"{bad} of them unreadable (the reason beside each), the "
            f"other{'s each' if len(blocks) - bad > 1 else ''} read as one block" if bad < len(blocks)
            else "unreadable (the reason beside it); a block is" if bad == 1
            else "none readable (the reason beside each); a block is")
    lines = [f"{len(blocks)} MLP block{'s' if len(blocks) > 1 else ''}, {each} "
             f"{form} (the file does not store the activation: pass --activation "
             "to the block commands" + (", and --prefix to choose a block, or absorb's --all "
                                        "for every one)" if len(blocks) > 1 else ")")]
    from algebra.io.arrays import int_code_dtypes, int_codes_note
    small = int_code_dtypes(path, [b["prefix"] for b in blocks])
    if small:                       # (as the network readers say it: s44 blocks audit F8)
        lines.append(f"  note: {int_codes_note(small, 'block')}")
    for b in blocks:
        desc = (f"d={b['d']}, k={b['k']}, {'gated, ' if b['gated'] else ''}"
                f"{'with' if b['bias'] else 'no'} biases" if b["problem"] is None else b["problem"])
        lines.append(f"  {b['prefix'] or '(no prefix)'}  {b['layout']}: {desc}")
    emit(args, {"kind": "blocks", "blocks": blocks}, "\n".join(lines))
    return 0


_NNET_EVAL_NOTE = ("\nnote: a .nnet file is read as its raw weight network: inputs normalised "
                   "((x − mean) / range) and outputs normalised too; `netfibers info` shows the "
                   "file's means and ranges")


def cmd_eval(args) -> int:
    net = load_network(args.net)
    units = _NNET_EVAL_NOTE if not args.json and nnet_normalisation(net) is not None else ""
    if args.data is not None:
        xs = load_data(args.data, net.n_inputs)
        ys = net.evaluate_batch(xs).to_rows() if xs else []
        emit(args, {"inputs": [[q_json(v) for v in x] for x in xs],
                    "outputs": [[q_json(v) for v in y] for y in ys]},
             "\n".join(display.numbers(y, args.exact) for y in ys)
             + display.note([v for y in ys for v in y], args.exact) + units)
        return 0
    text = args.x.strip()
    if len(text) >= 2 and text[0] + text[-1] in ("[]", "()"):
        text = text[1:-1]
    x = parse_point(text, net.n_inputs)
    y = net(x)
    emit(args, {"x": [q_json(v) for v in x], "output": [q_json(v) for v in y]},
         display.numbers(y, args.exact) + display.note(y, args.exact) + units)
    return 0
