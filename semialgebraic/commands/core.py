"""Commands ``convert``, ``info``, ``eval``."""

from __future__ import annotations

from algebra import save
from algebra.exceptions import AlgebraError
from algebra.rationals import bit_size, q_str

from ..cli import emit, fail
from .common import load_any, load_network, parse_point

__all__ = ["register"]


def register(sub, parent) -> None:
    p = sub.add_parser("convert", parents=[parent], help="convert a weight file to exact JSON")
    p.add_argument("input")
    p.add_argument("-o", "--output", required=True, help="output .json file")
    p.set_defaults(func=cmd_convert)

    p = sub.add_parser("info", parents=[parent], help="architecture and sizes of a network")
    p.add_argument("net")
    p.set_defaults(func=cmd_info)

    p = sub.add_parser("eval", parents=[parent], help="exact output at one input")
    p.add_argument("net")
    p.add_argument("--x", required=True, help="input, comma separated, e.g. 1,1/2,-3")
    p.set_defaults(func=cmd_eval)


def info_dict(net) -> dict:
    params = net.parameters()
    num = max((bit_size(q)[0] for q in params), default=0)
    den = max((bit_size(q)[1] for q in params), default=0)
    return {"widths": list(net.widths), "depth": net.depth, "hidden_widths": list(net.hidden_widths),
            "n_parameters": net.n_parameters, "activation": net.activation,
            "max_numerator_bits": num, "max_denominator_bits": den}


def cmd_convert(args) -> int:
    obj = load_any(args.input)
    if not args.output.lower().endswith(".json"):
        fail(f"{args.output}: convert writes native .json")
    try:
        save(obj, args.output)
    except AlgebraError as exc:
        fail(str(exc))
    emit(args, {"input": args.input, "output": args.output}, f"wrote {args.output}")
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
    x = parse_point(args.x, net.n_inputs)
    y = net(x)
    emit(args, {"x": list(x), "output": list(y)}, ", ".join(q_str(v) for v in y))
    return 0
