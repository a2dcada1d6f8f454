"""Commands ``convert``, ``info``, ``eval``.

* ``netfibers convert IN -o OUT`` reads any supported weight file (JSON, ``.npz``,
  ``.safetensors``, torch, ONNX) exactly and writes native ``.json`` (every number the exact
  rational the stored float denotes) or, with ``-o OUT.npz``/``OUT.safetensors``, float weights
  (``--dtype float32|float64``) that represent the network exactly (else exit 2, naming the first
  parameter that is not representable; nothing written).
* ``netfibers info NET``: widths, depth, parameter count, largest numerator/denominator bits.
* ``netfibers eval NET --x 1,1/2,-3`` (or ``--data FILE.json``): exact outputs.
"""

from __future__ import annotations

import re
from pathlib import Path

from algebra import save
from algebra.exceptions import AlgebraError
from algebra.dyadic import network_bit_sizes
from algebra.rationals import q_json, q_str

from ..cli import emit, fail
from .common import load_any, load_data, load_network, parse_point

__all__ = ["register", "info_dict"]

_OUTPUT_SUFFIXES = (".json", ".npz", ".safetensors")


def register(sub, parent) -> None:
    p = sub.add_parser("convert", parents=[parent],
                       help="convert a weight file to exact JSON (or exactly representable floats)",
                       description="Read NET (.json, .npz, .safetensors, .pt/.pth/.bin, .onnx) "
                                   "exactly and write OUT: native .json, or .npz/.safetensors "
                                   "when every parameter is exactly representable in --dtype.")
    p.add_argument("input", metavar="IN")
    p.add_argument("-o", "--output", required=True, metavar="OUT",
                   help="output file: .json (exact), .npz or .safetensors")
    p.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                   help="float type of .npz/.safetensors output (default float32)")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("info", parents=[parent], help="architecture and sizes of a network",
                       description="Widths, depth, number of parameters and the largest "
                                   "numerator/denominator (in bits) among the parameters. JSON "
                                   "keys: widths, depth, hidden_widths, n_parameters, activation, "
                                   "max_numerator_bits, max_denominator_bits.")
    p.add_argument("net", metavar="NET")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("eval", parents=[parent], help="exact output at one input or a batch",
                       description="Exact output of NET. JSON keys: x and output (one input), or "
                                   "inputs and outputs (--data); rationals as \"p/q\" strings.")
    p.add_argument("net", metavar="NET")
    group = p.add_mutually_exclusive_group(required=True)
    group.add_argument("--x", metavar="X",
                       help="input, comma separated exact numbers, e.g. 1,1/2,-3e-2 (write "
                            "--x=-1,2 when the first coordinate is negative)")
    group.add_argument("--data", metavar="FILE",
                       help='batch of inputs: JSON {"inputs": [[x1, ...], ...]}')
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
    if out.is_dir():
        fail(f"{args.output}: is a directory")
    if out.suffix.lower() not in _OUTPUT_SUFFIXES:
        fail(f"{args.output}: convert writes {', '.join(_OUTPUT_SUFFIXES)}, not "
             f"{out.suffix or '(no suffix)'!r}")
    obj = load_any(args.input)
    options = {} if out.suffix.lower() == ".json" else {"dtype": args.dtype}
    try:
        save(obj, out, **options)
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(out) in msg else f"{out}: {msg}")
    data = {"input": args.input, "output": args.output}
    if hasattr(obj, "widths"):
        data.update(widths=list(obj.widths), n_parameters=obj.n_parameters)
    emit(args, data, f"wrote {args.output}")
    return 0


def cmd_info(args) -> int:
    net = load_network(args.net)
    d = info_dict(net)
    text = (f"widths {'-'.join(map(str, d['widths']))} (depth {d['depth']}, "
            f"{d['n_parameters']} parameters, activation {d['activation']}); "
            f"largest numerator {d['max_numerator_bits']} bits, denominator {d['max_denominator_bits']} bits")
    emit(args, d, text)
    return 0


def cmd_eval(args) -> int:
    net = load_network(args.net)
    if args.data is not None:
        xs = load_data(args.data, net.n_inputs)
        ys = net.evaluate_batch(xs).to_rows() if xs else []
        emit(args, {"inputs": [[q_json(v) for v in x] for x in xs],
                    "outputs": [[q_json(v) for v in y] for y in ys]},
             "\n".join(", ".join(q_str(v) for v in y) for y in ys))
        return 0
    text = args.x.strip()
    if len(text) >= 2 and text[0] + text[-1] in ("[]", "()"):
        text = text[1:-1]
    x = parse_point(text, net.n_inputs)
    y = net(x)
    emit(args, {"x": [q_json(v) for v in x], "output": [q_json(v) for v in y]},
         ", ".join(q_str(v) for v in y))
    return 0
