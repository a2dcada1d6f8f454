"""Command ``conserved``: quantities conserved by gradient flow, and their certified number.

``netfibers conserved NET [--data FILE.json | --box lo,hi] [--json | --latex] [--timeout S]
[--max-regions K] [--max-depth D]``

Where the activation patterns come from:

* ``--data FILE.json`` (``{"inputs": [[x1, …], …]}``): the training data; each point is
  evaluated exactly and the gradient fields are those at the data points (data mode);
* ``--box lo,hi``: every linear region of the network meeting the cube [lo, hi]^d, with x
  ranging over the region (region mode; ``semialgebraic.regions``); write ``--box=-1,1`` when
  lo is negative;
* neither (default): every linear region of the whole input space ℝ^d — the setting of
  three-layer-fibers T10 ("the training data cover all regions").

The explicit laws (rescaling per hidden neuron R23, linear blocks R24, frozen parameters R25)
are verified exactly and the count is certified by a sandwich against the Lie algebra generated
by the gradient fields (``algebra.conservation``).  JSON keys: ``number_of_laws`` (null when not
exact), ``exact``, ``laws`` (each ``name``, ``polynomial``, ``scope``, ``kind``, ``latex``),
``lower``/``upper`` when not exact, ``n_parameters``, ``functional_rank``, ``fiber_dimension``,
``lie_rank``, ``patterns``, ``source``, ``complete``.  Exit 0 when the count is exact, 3 when
only bounds are known (bracket or region budget), 2 on bad input.
"""

from __future__ import annotations

from algebra.conservation import conservation_laws, samples_from_patterns, samples_from_points

from ..budget import Budget
from ..cli import emit, fail
from ..sets import Polyhedron
from .common import load_data, load_network, parse_box

from ..regions import regions as _regions

__all__ = ["register", "cmd_conserved"]


def register(sub, parent) -> None:
    p = sub.add_parser("conserved", parents=[parent],
                       help="conservation laws of gradient flow and their certified number",
                       description=__doc__.split("\n\n")[0],
                       epilog="Without --data or --box the patterns are those of every linear "
                              "region of R^d (three-layer-fibers T10).  Exit 0: exact count; "
                              "3: only bounds (budget); 2: bad input.")
    p.add_argument("net", metavar="NET")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--data", metavar="FILE.json", help='training inputs {"inputs": [[...], ...]}')
    src.add_argument("--box", metavar="LO,HI", help="all regions meeting the cube [lo, hi]^d (write --box=-1,1 when lo < 0)")
    p.add_argument("--latex", action="store_true", help="print the laws as LaTeX")
    p.add_argument("--timeout", type=float, default=None, metavar="S",
                   help="seconds (regions and brackets); a partial result exits 3")
    p.add_argument("--max-regions", type=int, default=None, metavar="K",
                   help="stop the region enumeration after K regions (partial result, exit 3)")
    p.add_argument("--max-depth", type=int, default=6, metavar="D",
                   help="largest Lie-bracket depth tried (default 6)")
    p.set_defaults(func=cmd_conserved)


def cmd_conserved(args) -> int:
    net = load_network(args.net)
    if args.timeout is not None and args.timeout <= 0:
        fail("--timeout must be positive")
    if args.max_depth < 0:
        fail("--max-depth must be >= 0")
    if args.max_regions is not None and args.max_regions < 1:
        fail("--max-regions must be >= 1")
    budget = Budget(timeout=args.timeout, max_regions=args.max_regions)
    complete = True
    if args.data:
        points = load_data(args.data, net.n_inputs)
        if not points:
            fail(f"{args.data}: no inputs")
        samples = samples_from_points(net, points)
        source = f"data ({len(points)} points)"
    else:
        if args.box:
            lo, hi = parse_box(args.box)
            domain = Polyhedron.box(net.n_inputs, lo, hi)
            source = f"regions of the box [{args.box}]^{net.n_inputs}"
        else:
            domain = None
            source = f"regions of R^{net.n_inputs}"
        walk = _regions(net, domain=domain, budget=budget)
        patterns = [r.pattern for r in walk]
        complete = bool(getattr(walk, "complete", not budget.exhausted()))
        if not patterns and complete:
            fail("the domain contains no linear region with non-empty interior")
        # a budget that stops the walk before its first region leaves no pattern: the partial
        # result then rests on the global rescaling laws only (complete=False)
        samples = samples_from_patterns(patterns)
    remaining = budget.remaining()
    res = conservation_laws(net, samples, max_depth=args.max_depth, timeout=remaining,
                            complete=complete)
    data = res.to_json()
    if not res.exact:
        data["lower"], data["upper"] = res.lower, res.upper
    data.update({"patterns": len(samples), "source": source, "complete": complete})
    if not complete:
        data["reason"] = f"{budget.reason}; " + data["reason"]
    emit(args, data, _latex(res) if args.latex else _text(res, source, complete, budget))
    return 0 if res.exact and complete else 3


def _text(res, source: str, complete: bool, budget: Budget) -> str:
    head = (f"{res.number_of_laws} independent conservation laws (certified: explicit laws = "
            f"N − Lie rank = {res.n_parameters} − {res.lie_rank})" if res.exact else
            f"between {res.lower} and {res.upper} independent conservation laws "
            f"(not certified exact: {res.reason})")
    lines = [head, f"  patterns: {res.number_of_samples} from {source}"
             + ("" if complete else f" (incomplete: {budget.reason})"),
             f"  N = {res.n_parameters}, rank of gradient fields = {res.functional_rank} "
             f"(fiber dimension {res.fiber_dimension}), Lie rank = {res.lie_rank}, "
             f"bracket depth {res.bracket_depth}"]
    for law in res.laws:
        lines.append(f"  {law.name} = {law.polynomial}    [{law.scope}]")
    if res.redundant:
        lines.append("  also conserved (dependent on the above at θ): "
                     + ", ".join(law.name for law in res.redundant))
    for note in res.notes:
        lines.append(f"  note: {note}")
    return "\n".join(lines)


def _latex(res) -> str:
    rows = [f"  {_tex_name(law.name)} &= {law.to_latex()} \\\\" for law in res.laws]
    count = (f"% {res.number_of_laws} independent laws (exact)" if res.exact
             else f"% between {res.lower} and {res.upper} independent laws")
    return "\n".join([count, "\\begin{align*}", *rows, "\\end{align*}"])


def _tex_name(name: str) -> str:
    if name.startswith("frozen "):
        return "\\mathrm{frozen}\\;" + name[len("frozen "):].replace("[", "_{[").replace("]", "]}")
    head, _, rest = name.partition("[")
    return f"{head[0]}^{{({head[1:]})}}_{{{rest.rstrip(']')}}}"
