"""Command ``regions``: exact linear regions of a ReLU network.

``netfibers regions NET [--box lo,hi | --box lo1:hi1,… | --box FILE.json | --box file | --ball X,R |
--orthant] [--max-regions N] [--timeout S] [--json]``

JSON keys: ``regions`` (each: ``pattern`` (-1/0/1 per hidden neuron, layer order), ``point``
(exact interior point), ``jacobian``, ``offset``, ``facets``, ``neighbours``), ``number_of_regions``,
``complete`` (false when a budget cut the walk short: exit 3), ``reason``, ``domain``,
``neighbours_as``.  A neighbour is ``[facet, k]``: the region across the facet is ``regions[k]``
of the list; ``[facet, null]``: the facet lies on the domain's boundary; ``[facet, [[neuron,
sign], …]]``: a region not in the list (a walk cut short), this region's pattern with these
entries changed (crossing a facet changes the facet's neuron only, generically).
``--full`` writes every neighbour's whole pattern instead (``neighbours_as`` ``"patterns"``;
ACAS Xu, 300 neurons: ~45 KB a region against ~6 KB, measured 2026-12-03).  The text prints a
pattern whole up to 32 hidden neurons, else as on/off counts per layer and a short hash
(:func:`pattern_text`; ``--patterns``: whole); the JSON is the same either way.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import replace

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import q_str

from ..budget import Budget, conversions_until
from ..cli import emit, fail
from ..sets import Polyhedron
from ..regions import regions
from ..regions.hull import preload
from . import display
from .help import describe
from .common import load_network, parse_domain, walk_domain

__all__ = ["register", "cmd_regions", "linear_pieces", "neighbour_entries", "neighbour_patterns",
           "pattern_text"]

_WHOLE_PATTERN_UP_TO = 32        # hidden neurons: the text prints whole patterns up to this many


def linear_pieces(found) -> list[int]:
    """The linear piece of each region: regions are joined when they are neighbours (share a
    facet) and carry the same affine map (equal J and c, exactly); pieces numbered 0, 1, … in
    order of first region."""
    index = {tuple(r.pattern): k for k, r in enumerate(found)}
    parent = list(range(len(found)))

    def root(k):
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k
    for k, r in enumerate(found):
        for _, q in r.neighbours:
            j = index.get(tuple(q)) if q is not None else None
            if j is not None and j != k and r.jacobian == found[j].jacobian and \
                    list(r.offset) == list(found[j].offset):
                parent[root(j)] = root(k)
    label: dict[int, int] = {}
    return [label.setdefault(root(k), len(label)) for k in range(len(found))]


def neighbour_entries(found) -> list[list]:
    """The compact ``neighbours`` of each region of *found* (module docstring): an index into
    *found* where the neighbour is listed, else the entries of its pattern that differ.

    >>> from types import SimpleNamespace as R
    >>> a = R(pattern=(1, -1, 1), neighbours=((0, (-1, -1, 1)), (1, (1, 1, 1)), (3, None)))
    >>> b = R(pattern=(-1, -1, 1), neighbours=((0, (1, -1, 1)),))
    >>> neighbour_entries([a, b])
    [[[0, 1], [1, [[1, 1]]], [3, None]], [[0, 0]]]
    """
    index = {tuple(r.pattern): k for k, r in enumerate(found)}
    out = []
    for r in found:
        row = []
        for i, q in r.neighbours:
            if q is None:
                row.append([i, None])
            elif tuple(q) in index:
                row.append([i, index[tuple(q)]])
            else:
                row.append([i, [[j, v] for j, (u, v) in enumerate(zip(r.pattern, q)) if u != v]])
        out.append(row)
    return out


def neighbour_patterns(regions_json: list[dict]) -> list[list]:
    """The inverse of :func:`neighbour_entries` on the JSON ``regions`` list: each region's
    neighbours as ``[facet, pattern or None]`` (the ``--full`` form).

    >>> regs = [{"pattern": [1, -1, 1], "neighbours": [[0, 1], [1, [[1, 1]]], [3, None]]},
    ...         {"pattern": [-1, -1, 1], "neighbours": [[0, 0]]}]
    >>> neighbour_patterns(regs)
    [[[0, [-1, -1, 1]], [1, [1, 1, 1]], [3, None]], [[0, [1, -1, 1]]]]
    """
    out = []
    for r in regions_json:
        row = []
        for i, q in r["neighbours"]:
            if q is None or isinstance(q, int):
                row.append([i, None if q is None else list(regions_json[q]["pattern"])])
            else:
                pattern = list(r["pattern"])
                for j, v in q:
                    pattern[j] = v
                row.append([i, pattern])
        out.append(row)
    return out


def pattern_text(pattern, widths, whole: bool | None = None) -> str:
    """A region's sign pattern for the text output: whole (``+`` on, ``-`` off, ``0`` zero) when
    *whole* or, by default, at most ``_WHOLE_PATTERN_UP_TO`` hidden neurons; else per hidden
    layer the counts of on and off neurons (and of zero ones, when any) and a short hash of the
    whole pattern (the first 8 hex digits of its SHA-1: equal patterns, equal hashes).  The
    JSON always has the whole pattern.

    >>> pattern_text([1, -1, 1], [2, 1])
    '+-+'
    >>> pattern_text([1] * 20 + [-1] * 30 + [1, 0, -1], [50, 3])
    '[20+ 30-|1+ 1- 1 zero] #717a3fd8'
    """
    whole_text = "".join("+" if v > 0 else "-" if v < 0 else "0" for v in pattern)
    if whole or (whole is None and len(pattern) <= _WHOLE_PATTERN_UP_TO):
        return whole_text
    parts, k = [], 0
    for w in widths:
        layer = pattern[k:k + w]
        k += w
        on, off = sum(v > 0 for v in layer), sum(v < 0 for v in layer)
        zero = len(layer) - on - off
        parts.append(f"{on}+ {off}-" + (f" {zero} zero" if zero else ""))
    digest = hashlib.sha1(whole_text.encode()).hexdigest()[:8]
    return f"[{'|'.join(parts)}] #{digest}"


def register(sub, parent) -> None:
    p = sub.add_parser("regions", parents=[parent], help="exact linear regions of a ReLU network",
                       **describe(
                           "Enumerate the activation regions of NET exactly (a walk across facets "
                           "with an exact LP): for each, the on/off pattern of the hidden neurons "
                           "(+ on, - off), an interior point and the affine map x -> J x + c. "
                           "Adjacent regions with the same map are joined into linear pieces, "
                           "and both numbers are reported. JSON keys: regions (pattern, point, "
                           "jacobian, offset, facets, neighbours, linear_piece), "
                           "number_of_regions, number_of_linear_pieces, complete, reason, domain, "
                           "neighbours_as. A neighbour is [facet, k] (regions[k] of the list), "
                           "[facet, null] (the domain's boundary) or, for a region not listed "
                           "(a walk cut short), [facet, [[neuron, sign], ...]] (this region's "
                           "pattern with those entries changed); --full gives whole patterns. A "
                           "box of width 0 in some coordinates gives the regions of that slice "
                           "(JSON domain type 'slice', its fixed and free coordinates).",
                           exits=["0  every region found",
                                  "3  --max-regions or --timeout cut the walk short (partial "
                                  "result)"],
                           examples=["netfibers regions algebra/examples/t1_masked.json --box -1,1",
                                     "netfibers regions net.json --orthant --max-regions 1000 "
                                     "--json"]))
    p.add_argument("net", metavar="NET")
    dom = p.add_mutually_exclusive_group()
    dom.add_argument("--box", metavar="LO,HI", help="restrict to the cube [LO, HI]^d; lo1:hi1,lo2:hi2 (one interval per "
                     "coordinate); FILE.json ([[lo, hi], ...] or {\"box\": [[lo, hi], ...], "
                     "\"halfspaces\": [{\"a\": [a1, a2], \"b\": b}]} for box and a.x <= b); or 'file' "
                     "(the normalised input box of a .nnet file)")
    dom.add_argument("--ball", metavar="X,R", help="restrict to the L-infinity ball of radius R around X "
                     "(x1,...,xd,R; or x,R around (x, ..., x))")
    dom.add_argument("--orthant", action="store_true", help="restrict to the orthant x >= 0")
    p.add_argument("--max-regions", type=int, metavar="N", help="stop after N regions (exit 3)")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help="stop after SECONDS (exit 3)")
    p.add_argument("--full", action="store_true",
                   help="JSON: each neighbour's whole pattern (default: its index in the list)")
    p.add_argument("--patterns", action="store_true",
                   help=f"text: print each region's whole sign pattern (default: whole up to "
                        f"{_WHOLE_PATTERN_UP_TO} hidden neurons, else on/off counts per layer "
                        "and a short hash; the JSON always has whole patterns)")
    p.set_defaults(func=cmd_regions)
    if hasattr(p, "_negative_number_matcher"):  # let "--box -1,1" through as a value
        p._negative_number_matcher = re.compile(r"^-\.?\d[\d,./eE+\- ]*$")


def cmd_regions(args) -> int:
    net = load_network(args.net, whole=True)
    if args.max_regions is not None and args.max_regions < 1:     # (0 walked nothing, exit 3;
        fail("--max-regions must be at least 1")                  # diff refused it: input audit)
    if args.timeout is not None and not args.timeout >= 0:
        fail("--timeout must be a non-negative number of seconds")
    d = net.n_inputs
    dom = parse_domain(args, d, net)
    fixed = {i: lo for i, (lo, hi) in enumerate(zip(dom.lo, dom.hi))
             if lo is not None and hi is not None and lo == hi}
    if fixed:                      # a box of width 0 in some coordinates: regions of the slice
        return _slice_regions(args, net, dom.rows(), fixed)
    with conversions_until(args.timeout):   # (the dense rows of a 7000-cube: 7.8 GB, s49)
        domain = walk_domain(dom)
    if dom.as_cube is not None:
        lo, hi = dom.as_cube
        domain_json = {"type": "box", "lo": q_str(lo), "hi": q_str(hi)}
    elif dom.legacy_or_none() == "orthant":
        domain_json = {"type": "orthant"}
    elif domain is None:
        domain_json = {"type": "whole"}
    else:                          # a box with per-coordinate bounds, a ball, box ∩ half-spaces
        domain_json = {"type": "polyhedron", **dom.to_json()}
    if args.timeout is not None:        # a one-time import, before the clock (not inside it)
        preload()
    return _report(args, net, domain, domain_json)


def _slice_regions(args, net, rows, fixed) -> int:
    """``regions`` on a domain with coordinates fixed (a box of width 0 there): no region of R^d
    is full-dimensional in it, so the regions reported are those of the slice — the network
    with the fixed coordinates folded into its first biases, walked on the free coordinates
    (each row ``g·x + g0 >= 0`` of the domain restricted alike).  Points are given with every
    coordinate, the map ``x ↦ J x + c`` is the network's on the slice (zero columns of J at the
    fixed coordinates), and the JSON domain lists the fixed coordinates (``"fixed"``)."""
    d = net.n_inputs
    free = [i for i in range(d) if i not in fixed]
    if not free:
        fail("the domain is one point (every coordinate has width 0): activation regions are "
             "full-dimensional; evaluate the network at the point instead (netfibers eval)")
    W = net.weights[0].to_rows()
    b0 = [c + sum(w[i] * v for i, v in fixed.items()) for w, c in zip(W, net.biases[0])]
    sliced = Network.from_rows([[[w[i] for i in free] for w in W],
                                *(M.to_rows() for M in net.weights[1:])],
                               [b0, *(list(b) for b in net.biases[1:])])
    cut = []
    for g in rows:
        a = [g[i] for i in free]
        c = g[d] + sum(g[i] * v for i, v in fixed.items())
        if any(v != 0 for v in a) or c < 0:
            cut.append((a, c))
    domain = Polyhedron([[-v for v in a] for a, _ in cut], [c for _, c in cut], len(free))
    domain_json = {"type": "slice", "fixed": {str(i): q_str(v) for i, v in fixed.items()},
                   "free": free, "rows": [[*(q_str(v) for v in a), q_str(c)] for a, c in cut]}

    def widen(r):
        full = [None] * d
        for i, v in fixed.items():
            full[i] = v
        for i, v in zip(free, r.point):
            full[i] = v
        J = [[0] * d for _ in range(net.n_outputs)]
        for o, row in enumerate(r.jacobian.to_rows()):
            for i, v in zip(free, row):
                J[o][i] = v
        return replace(r, point=tuple(full), jacobian=QMatrix.from_rows(J, d))
    if args.timeout is not None:
        preload()
    return _report(args, sliced, domain, domain_json, widen=widen,
                   note=f"  (the slice {', '.join(f'x{i} = {q_str(v)}' for i, v in fixed.items())}: "
                        "the box has width 0 there; regions of the network on the free coordinates)")


def _report(args, net, domain, domain_json, widen=None, note=None) -> int:
    budget = Budget(timeout=args.timeout, max_regions=args.max_regions)
    walk = regions(net, domain=domain, budget=budget)
    found = list(walk)
    complete = walk.complete
    if widen is not None:
        found = [widen(r) for r in found]
    reason = None if complete else (budget.reason or "stopped")
    piece = linear_pieces(found)
    n_pieces = len(set(piece))
    neighbours = ([[[i, None if q is None else list(q)] for i, q in r.neighbours] for r in found]
                  if args.full else neighbour_entries(found))
    data = {
        "regions": [{"pattern": list(r.pattern), "point": list(r.point), "jacobian": r.jacobian,
                     "offset": list(r.offset), "facets": list(r.facets),
                     "neighbours": neighbours[k], "linear_piece": piece[k]}
                    for k, r in enumerate(found)],
        "number_of_regions": len(found),
        "number_of_linear_pieces": n_pieces,
        "complete": complete,
        "reason": reason,
        "domain": domain_json,
        "neighbours_as": "patterns" if args.full else "indices",
    }
    ex = args.exact
    lines = [f"{len(found)} activation region{'s' if len(found) != 1 else ''}, {n_pieces} linear "
             f"piece{'s' if n_pieces != 1 else ''}" + ("" if complete else f" (partial: {reason})"),
             "  (a region: one on/off pattern of the hidden neurons; a linear piece: adjacent "
             "regions on which the network is the same affine map x -> J x + c, joined)"]
    if note:
        lines.append(note)
    shown = []
    for k, r in enumerate(found[:50]):
        pat = pattern_text(r.pattern, net.hidden_widths, True if args.patterns else None)
        J = [list(row) for row in r.jacobian.to_rows()] if hasattr(r.jacobian, "to_rows") else None
        jtext = ("[" + "; ".join(display.numbers(row, ex) for row in J) + "]") if J is not None \
            else str(r.jacobian.to_json())
        lines.append(f"  {pat}  piece {piece[k]}  at {display.point(r.point, ex)}  J = {jtext}  "
                     f"c = [{display.numbers(r.offset, ex)}]")
        shown += [*r.point, *r.offset, *(v for row in (J or ()) for v in row)]
    if len(found) > 50:
        lines.append(f"  … {len(found) - 50} more (use --json)")
    emit(args, data, "\n".join(lines) + display.note(shown, ex))
    return 0 if complete else 3
