"""Command ``plot``: pictures of regions, fibers, symmetry graphs and deviations.

``netfibers plot regions NET -o FILE [--box LO,HI] [--slice P,D1,D2] [--timeout S]
[--max-regions K]``, ``plot fiber NET -o FILE [--timeout S]``, ``plot symmetries NET -o FILE
[--timeout S]``, ``plot diff A B --box ... -o FILE [--timeout S]``: the scene is computed
exactly (:mod:`semialgebraic.plot`), drawn by matplotlib (optional extra ``[plot]``) in the
format of the suffix of ``-o`` (png, svg, pdf) and written atomically.  The suffix, the output
directory and matplotlib are checked before anything is computed; on any error nothing is
written.  A budget that cuts ``plot regions`` short writes the regions found, says "partial" in
the title, a note and one stderr line, and exits 3; ``plot fiber`` / ``plot symmetries`` past
their ``--timeout`` (or on Ctrl-C) write nothing, say in one line the phase and what was
established (the conditions G0-G8 decided, the components built; JSON ``checked``, ``found``,
``stopped_in``, ``progress``) and exit 3.  ``--json`` prints the scene with exact coordinates.
"""

from __future__ import annotations

import sys
import time

from algebra.exceptions import InputError
from algebra.rationals import to_q

from ..budget import Budget
from ..cli import emit, fail
from ..plot import diff_scene, fiber_scene, regions_scene, symmetry_scene
from ..plot.renderer import output_format, require_matplotlib, save
from ..plot.slicing import parse_slice
from . import display
from .bottleneck import fiber_in_time
from .common import load_network, load_pair, parse_box_domain
from .help import TIMEOUT_HELP, describe

__all__ = ["register", "cmd_plot", "diff_picture"]

_EXITS = ["0  picture written", "2  input error, unknown suffix or matplotlib missing (install "
          "with: pip install '.[plot]'); nothing is written"]


def register(sub, parent) -> None:
    p = sub.add_parser("plot", help="pictures: regions, fiber, symmetry graph, |a - b|",
                       **describe(
                           "Draw a picture computed exactly: the linear regions of a 2-D input "
                           "or slice with every bent hyperplane (dashed where it never bends), "
                           "a 2-D chart of the fiber along two symmetry directions with the exact "
                           "end points of the S6 interval, the symmetry graph, or |a - b| over a "
                           "2-D slice as a heat map. The format is the suffix of -o (png, svg, "
                           "pdf); the file is written atomically and needs matplotlib (the "
                           "optional extra plot). Run netfibers plot KIND --help for each kind.",
                           exits=["0  picture written", "3  a budget cut the computation "
                                  "short (plot regions and plot diff write a partial picture; "
                                  "plot fiber and plot symmetries write nothing)"],
                           examples=["netfibers plot regions algebra/examples/t1_masked.json "
                                     "--box -3,3 -o regions.png",
                                     "netfibers plot fiber algebra/examples/t1_masked.json -o fiber.svg"]))
    kinds = p.add_subparsers(dest="kind", metavar="KIND", required=True)

    r = kinds.add_parser("regions", parents=[parent], help="linear regions of a 2-D input or slice",
                         **describe(
                             "Colour the linear regions of NET (found by the exact region walk) "
                             "by activation pattern on a 2-D input or on the 2-D affine slice "
                             "POINT + s DIR1 + t DIR2, draw each hidden neuron's bent hyperplane "
                             "(solid where the network bends across it, dashed where it does "
                             "not) and name the dead and masked neurons.",
                             exits=_EXITS + ["3  --timeout or --max-regions cut the region "
                                             "walk short: the regions found are drawn, the "
                                             "title says the picture is partial, dead and "
                                             "masked neurons are not named"],
                             examples=["netfibers plot regions algebra/examples/t1_masked.json "
                                       "--box -3,3 -o regions.png",
                                       "netfibers plot regions net3d.json --slice 0,0,0,1,0,0,0,1,1 "
                                       "-o slice.pdf"]))
    r.add_argument("net", metavar="NET")
    _common(r, box_help="the window [LO, HI]^2 in input (or slice) coordinates, or "
            "lo1:hi1,lo2:hi2 (default -2,2)")
    r.add_argument("--slice", metavar="P,D1,D2", help="the plane P + s D1 + t D2 (3 d numbers, "
                   "or P;D1;D2) for a network with more than two inputs")
    r.add_argument("--max-regions", type=int, default=None, metavar="K",
                   help="stop the region walk after K regions (partial picture, exit 3)")
    r.set_defaults(func=cmd_plot)

    f = kinds.add_parser("fiber", parents=[parent], help="a 2-D chart of the fiber through theta",
                         **describe(
                             "Draw the fiber of NET (one or two hidden layers) along two symmetry "
                             "directions chosen from its generators: the S6 translation of the "
                             "masked neuron as a segment with its exact end points, a dead "
                             "neuron's free output weight as a free axis, positive rescalings as "
                             "half-lines; each component up to permutations (sign flips, S7, S8) "
                             "is a separate piece.",
                             exits=_EXITS + ["3  --timeout reached or Ctrl-C: nothing is "
                                             "written; one line says the phase and what was "
                                             "established (conditions checked, dimension, "
                                             "components built)"],
                             examples=["netfibers plot fiber algebra/examples/t1_masked.json "
                                       "-o fiber.png",
                                       "netfibers plot fiber net.json --axes S2 -o fiber.svg"]))
    f.add_argument("net", metavar="NET")
    _common(f)
    f.add_argument("--axes", metavar="KINDS", help="comma-separated preferred kinds of direction "
                   "among S6, S3, S2 (default: in that order)")
    f.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop computing the fiber after SECONDS: no picture, what was "
                        "established in one line, exit 3")
    f.set_defaults(func=cmd_plot)

    s = kinds.add_parser("symmetries", parents=[parent], help="the symmetry graph",
                         **describe(
                             "Draw the symmetry graph of the fiber of NET: one node per component "
                             "up to permutations, one edge per discrete generator (S5, S7, S8) "
                             "labelled with the step, nodes coloured by orbit.",
                             exits=_EXITS + ["3  --timeout reached or Ctrl-C: nothing is "
                                             "written; one line says the phase and what was "
                                             "established (conditions checked, dimension, "
                                             "components built)"],
                             examples=["netfibers plot symmetries algebra/examples/t1_masked.json "
                                       "-o graph.png"]))
    s.add_argument("net", metavar="NET")
    _common(s)
    s.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop computing the fiber after SECONDS: no picture, what was "
                        "established in one line, exit 3")
    s.set_defaults(func=cmd_plot)

    d = kinds.add_parser("diff", parents=[parent], help="|a - b| over a 2-D slice as a heat map",
                         **describe(
                             "Draw |a - b| (largest over the outputs) on a grid of a 2-D slice of "
                             "the box, evaluated exactly, with the grid's argmax and the "
                             "certified argmax (exact region walk on a cube, else branch and "
                             "bound) marked.",
                             exits=_EXITS + ["3  --timeout cut the certified maximum short "
                                             "(the heat map is written without it)"],
                             examples=["netfibers plot diff algebra/examples/t1_masked.json "
                                       "algebra/examples/t1_translated_2.json --box -3,3 -o diff.png"]))
    d.add_argument("a", metavar="A")
    d.add_argument("b", metavar="B")
    _common(d, box_help="the box: lo,hi (the cube), lo1:hi1,lo2:hi2,... or FILE.json (required)")
    d.add_argument("--slice", metavar="P,D1,D2", help="draw on the plane P + s D1 + t D2 instead "
                   "(--box then gives the window in s, t)")
    d.add_argument("--grid", type=int, default=41, metavar="N", help="N x N grid points "
                   "(default 41)")
    d.set_defaults(func=cmd_plot)


def _common(p, box_help=None) -> None:
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   help="the picture: .png, .svg or .pdf")
    if box_help:            # regions and diff: the computations with a budget
        p.add_argument("--box", metavar="LO,HI", help=box_help)
        p.add_argument("--timeout", type=float, metavar="SECONDS", help=TIMEOUT_HELP)


def _window(text, default="-2,2", net=None, sliced: bool = False):
    return _box(default if text is None else text, 2, net, sliced)


def _box(text, d, net, sliced: bool):
    """``--box`` of a picture; ``file`` is the ``.nnet`` input box of *net* (it was refused as
    "not read from a .nnet file" for a .nnet file: s43 docs audit), not a slice's window."""
    if text == "file" and sliced:
        fail("--box file: with --slice the window is in the slice's coordinates (s, t), not the "
             "network's inputs; give it as lo,hi or lo1:hi1,lo2:hi2")
    return parse_box_domain(text, d, net)


def cmd_plot(args) -> int:
    output_format(args.output)          # before any work: suffix, directory, matplotlib
    require_matplotlib()
    timeout = getattr(args, "timeout", None)
    if timeout is not None and timeout < 0:
        fail("--timeout must be non-negative")
    max_regions = getattr(args, "max_regions", None)
    if max_regions is not None and max_regions < 1:
        fail("--max-regions must be at least 1")
    budget = Budget(timeout=timeout, max_regions=max_regions)
    code = 0
    if args.kind == "regions":
        net = load_network(args.net, whole=True)
        try:                            # (the file named: a d = 1 net's line did not, s38 audit)
            sl = parse_slice(args.slice, net.n_inputs) if args.slice else None
            scene = regions_scene(net, _window(args.box, net=net, sliced=sl is not None),
                                  slice=sl, budget=budget)
        except InputError as exc:
            fail(str(exc) if exc.source else f"{args.net}: {exc.problem}")
        code = 0 if scene.data["complete"] else 3
        text = scene.title + "".join(f"; {n}" for n in scene.notes)
        if code:
            print(f"netfibers: partial picture ({scene.data['regions_drawn']} regions drawn): "
                  f"{scene.data['reason']}", file=sys.stderr)
    elif args.kind in ("fiber", "symmetries"):
        net = load_network(args.net, whole=True)
        # no partial picture: every piece of the chart (the S6 interval, the free S3 axes, the
        # components, the title's dimension) is a statement of three-layer-fibers R13-R17,
        # which hold for generic θ only, so nothing is drawn before G0-G8 are all checked, and
        # the components and the graph come last; one line says what was established
        if net.depth > 3:               # (the fiber's message named method 'fiber': s38 audit)
            fail(f"{args.net}: plot {args.kind} draws the fiber of one or two hidden layers, not "
                 f"{net.depth - 1}; `netfibers symmetries` and `netfibers dim` answer for any network")
        fib, stop = fiber_in_time(net, budget.remaining(), timeout, source=args.net)
        if stop is not None:
            msg = f"{stop[0]}; no picture written"
            emit(args, {"output": None, "complete": False, "reason": msg, **stop[1]}, msg)
            return 3
        if args.kind == "fiber":
            kinds = [k.strip() for k in args.axes.split(",")] if args.axes else None
            scene = fiber_scene(net, fib, kinds=kinds)
            text = scene.title + "; " + "; ".join(s.group + ": " + s.label for s in scene.segments)
        else:
            scene = symmetry_scene(fib)
            text = scene.title
    else:
        a, b = load_pair(args.a, args.b)     # .nnet files normalised differently: the first one's units
        if a.signature != b.signature:
            fail(f"{args.a}, {args.b}: the networks have (inputs, outputs) {a.signature} and "
                 f"{b.signature}")
        if not args.box:
            fail("plot diff needs --box")
        if args.grid < 2:                # (before the search, not after it)
            fail("--grid must be at least 2")
        sl = parse_slice(args.slice, a.n_inputs) if args.slice else None
        box = _box(args.box, 2 if sl else a.n_inputs, a, sl is not None)
        cert, code = (_certified(a, b, box, _search_share(a, b, box, args.grid, budget))
                      if sl is None else (None, 0))
        scene = diff_scene(a, b, box, slice=sl, grid=args.grid, certified=cert)
        ex = getattr(args, "exact", False)       # long rationals as ≈ decimals (new-user audit)
        text = f"{scene.title}: grid max {display.number(scene.data['grid_max'], ex)}" + (
            "" if scene.data["certified"] is None else
            f"; certified max {display.number(scene.data['certified'][1], ex)}")
        if display.text_needs_note([text], ex):
            text += f"\n{display.EXACT_NOTE}"
    save(scene, args.output)
    emit(args, {"output": args.output, "scene": scene.to_json(), "complete": code == 0},
         f"{text}\nwritten to {args.output}")
    return code


DRAW_SECONDS = 1.0
"""Seconds kept for drawing and writing the picture once the search is done (measured: 0.2-0.5 s
for a 41 x 41 heat map as PNG / SVG)."""


def _search_share(a, b, box, grid, budget) -> Budget:
    """The certified maximum's share of *budget*: the time left less the picture's, estimated as
    ``grid²`` exact evaluations of |a − b| (the fastest of three at the box's centre) plus
    :data:`DRAW_SECONDS` (digits 64-32-10 on [0, 16]^64, ``--timeout 20``: the search took the
    whole budget, then the 41 x 41 grid and the file ~1.5 s more: 22.5 s in all, limit 23)."""
    left = budget.remaining()
    if left is None:
        return budget
    from ..plot.diff import deviation
    centre = [(to_q(lo) + to_q(hi)) / 2 for lo, hi in box]
    times = []
    for _ in range(3):
        t0 = time.monotonic()
        deviation(a, b, centre)
        times.append(time.monotonic() - t0)
    picture = min(times) * grid ** 2 + DRAW_SECONDS
    return Budget(max(0.0, budget.remaining() - picture), budget.max_regions, clock=budget.clock)


def _certified(a, b, box, budget):
    """``((point, value), 0)`` of the exact maximum of |a − b| over *box*, or ``(None, 3)``."""
    from ..bab import diff_bounds
    from ..equivalence import max_deviation
    if len(set(box)) == 1 and a.n_hidden + b.n_hidden <= 12:
        dev = max_deviation(a, b, box[0], budget=budget, progress=False)
        return ((dev.point, dev.value), 0) if dev.complete and dev.point is not None else (None, 3)
    r = diff_bounds(a, b, box, budget=budget)
    return ((r.point, r.lower), 0) if r.complete and r.point is not None else (None, 3)


def diff_picture(path, a, b, box, point, value) -> None:
    """``netfibers diff --plot FILE``: draw |a − b| with the certified argmax (*point*, *value*;
    value None when the maximum is not certified); nothing when *path* is None."""
    if path is None:
        return
    output_format(path)
    require_matplotlib()
    cert = None if value is None or point is None else (point, value)
    save(diff_scene(a, b, box, certified=cert), path)
    print(f"picture written to {path}", file=sys.stderr)     # (silent before: s49 new-user F6)
