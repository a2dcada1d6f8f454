"""Command ``regions``: exact linear regions of a ReLU network.

``netfibers regions NET [--box lo,hi | --orthant] [--max-regions N] [--timeout S] [--json]``

JSON keys: ``regions`` (each: ``pattern`` (-1/0/1 per hidden neuron, layer order), ``point``
(exact interior point), ``jacobian``, ``offset``, ``facets``, ``neighbours``), ``number_of_regions``,
``complete`` (false when a budget cut the walk short: exit 3), ``reason``, ``domain``.
"""

from __future__ import annotations

import re

from algebra.rationals import q_str

from ..budget import Budget
from ..cli import emit, fail
from ..sets import Polyhedron
from ..regions import regions
from .common import load_network, parse_box

__all__ = ["register", "cmd_regions"]


def register(sub, parent) -> None:
    p = sub.add_parser("regions", parents=[parent], help="exact linear regions of a ReLU network",
                       description="Enumerate the linear regions of NET exactly (walk across "
                                   "facets with an exact LP): activation pattern, interior point "
                                   "and affine map of each. JSON keys: regions (pattern, point, "
                                   "jacobian, offset, facets, neighbours), number_of_regions, "
                                   "complete, reason, domain. Exit 3 when --max-regions or "
                                   "--timeout cut the walk short (partial result).")
    p.add_argument("net", metavar="NET")
    dom = p.add_mutually_exclusive_group()
    dom.add_argument("--box", metavar="LO,HI", help="restrict to the cube [LO, HI]^d")
    dom.add_argument("--orthant", action="store_true", help="restrict to the orthant x >= 0")
    p.add_argument("--max-regions", type=int, metavar="N", help="stop after N regions (exit 3)")
    p.add_argument("--timeout", type=float, metavar="S", help="stop after S seconds (exit 3)")
    p.set_defaults(func=cmd_regions)
    if hasattr(p, "_negative_number_matcher"):  # let "--box -1,1" through as a value
        p._negative_number_matcher = re.compile(r"^-\.?\d[\d,./eE+\- ]*$")


def cmd_regions(args) -> int:
    net = load_network(args.net)
    if args.max_regions is not None and args.max_regions < 0:
        fail("--max-regions must be non-negative")
    if args.timeout is not None and not args.timeout >= 0:
        fail("--timeout must be a non-negative number of seconds")
    d = net.n_inputs
    if args.box:
        lo, hi = parse_box(args.box)
        domain = Polyhedron.box(d, lo, hi)
        domain_json = {"type": "box", "lo": q_str(lo), "hi": q_str(hi)}
    elif args.orthant:
        domain = Polyhedron.orthant(d)
        domain_json = {"type": "orthant"}
    else:
        domain, domain_json = None, {"type": "whole"}
    budget = Budget(timeout=args.timeout, max_regions=args.max_regions)
    walk = regions(net, domain=domain, budget=budget)
    found = list(walk)
    complete = walk.complete
    reason = None if complete else (budget.reason or "stopped")
    data = {
        "regions": [{"pattern": list(r.pattern), "point": list(r.point), "jacobian": r.jacobian,
                     "offset": list(r.offset), "facets": list(r.facets),
                     "neighbours": [[i, None if q is None else list(q)] for i, q in r.neighbours]}
                    for r in found],
        "number_of_regions": len(found),
        "complete": complete,
        "reason": reason,
        "domain": domain_json,
    }
    lines = [f"{len(found)} linear region{'s' if len(found) != 1 else ''}"
             + ("" if complete else f" (partial: {reason})")]
    for r in found[:50]:
        pat = "".join("+" if s > 0 else "-" if s < 0 else "0" for s in r.pattern)
        lines.append(f"  {pat}  at ({', '.join(q_str(v) for v in r.point)})  "
                     f"J = {r.jacobian.to_json()}  c = [{', '.join(q_str(v) for v in r.offset)}]")
    if len(found) > 50:
        lines.append(f"  … {len(found) - 50} more (use --json)")
    emit(args, data, "\n".join(lines))
    return 0 if complete else 3
