"""Commands ``batch`` (one question over a manifest of models or pairs) and ``search`` (one big
search as tasks: the open nodes of one tree, batches of regions, or cells), on Dask when it is
installed (:mod:`semialgebraic.distributed`).

``netfibers batch JOB MANIFEST --out RESULTS.jsonl [--workers N | --scheduler ADDRESS]
[--start-cluster] [--timeout S] [--memory-limit M] [--box B | --ball X,R | --orthant]
[--epsilon E] [--scatter] [--json]``: ``equiv``, ``dim`` and ``diff`` take their domain as the
single commands do (a per-item ``box``/``ball``/``orthant``/``epsilon`` column, else these
options, else R^d; :mod:`algebra.io.domain_text`).

``netfibers search diff A B (--box B | --ball X,R) [--method tree|cells] [--cells K] [--workers N | --scheduler ADDRESS]
[--checkpoint FILE] [--certificate FILE] [--timeout S] [--json]`` and
``netfibers search regions NET (--box B | --ball X,R) [--method walk|cells] [--cells K] …``
(both take a bounded box: ``lo,hi``, ``lo1:hi1,…``, ``file``, a JSON box or ``--ball``; half-spaces
and open sides are refused in one line)
"""

from __future__ import annotations

import json
import sys

from algebra.exceptions import AlgebraError
from algebra.kernel.domains import Domain
from algebra.rationals import q_str

from ..budget import BudgetExhausted, answer_kept
from ..certificates import write_certificate
from ..cli import fail
from . import display
from .common import load_network, load_pair_in_units, parse_domain, units_report
from .help import TIMEOUT_HELP, describe

__all__ = ["register", "cmd_batch", "cmd_search"]

JOBS = ("dedup", "equiv", "dim", "identify", "absorb", "conserved", "diff")


def _where_args(p, search: bool = False) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, metavar="N",
                       help="worker processes of the embedded Dask LocalCluster (default: one "
                            "per core; 0 runs serially in this process" + (")" if search else
                            "; the cluster starts when the estimated work is worth it, or at "
                            "once with --start-cluster)"))
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="use the running Dask cluster at ADDRESS (tcp://host:8786)")
    p.add_argument("--memory-limit", metavar="M", help="memory limit per worker, passed to Dask "
                   "(e.g. 2GB; a worker above it is restarted and its task retried)")
    p.add_argument("--timeout", type=float, metavar="SECONDS", help=TIMEOUT_HELP + (
        " (the whole search: its certified result so far)" if search else " (per item)"))


def register(sub, parent) -> None:
    p = sub.add_parser("batch", parents=[parent], help="one question over many models (Dask)",
                       **describe(
                           "Run JOB (dedup, equiv, dim, identify, absorb, conserved, diff) on "
                           "every model or pair of MANIFEST (a directory, a glob, or a CSV/JSON "
                           "Lines file with columns model, or a,b for pairs) and "
                           "append one JSON Lines record per item to --out as it finishes "
                           "(verdict, certificate path, time, the domain asked and read; dedup: "
                           "file, class, representative, certificate of the merge). equiv, dim "
                           "and diff take their domain as the single commands do: a box, ball, "
                           "orthant (and for equiv epsilon) column per item, else --box, --ball, "
                           "--orthant, --epsilon, else R^d; a domain the job does not take is "
                           "that item's error record. A rerun with the same "
                           "--out skips the finished items; a failed item is a record with its "
                           "error. Runs on an embedded Dask LocalCluster (one worker per core), "
                           "on --scheduler, or serially without Dask; a summary table ends the "
                           "run (--json: the summary as JSON).",
                           exits=["0  every item decided", "3  an item undecided or failed, or "
                                  "the run interrupted (rerun to resume)"],
                           examples=["netfibers batch dedup zoo/ --out classes.jsonl --workers 2",
                                     "netfibers batch equiv pairs.csv --out eq.jsonl --box 0,1 "
                                     "--epsilon 1/100",
                                     "netfibers batch equiv pairs.csv --out eq.jsonl --scheduler "
                                     "tcp://10.0.0.5:8786 --timeout 60"]))
    p.add_argument("job", choices=JOBS, metavar="JOB", help=f"one of {', '.join(JOBS)}")
    p.add_argument("manifest", metavar="MANIFEST")
    p.add_argument("--out", required=True, metavar="RESULTS.jsonl", help="JSON Lines output (appended; resumed)")
    _where_args(p)
    dom = p.add_mutually_exclusive_group()
    dom.add_argument("--box", metavar="BOX",
                     help="equiv, dim, diff: the domain of items without their own box/ball/orthant "
                          "column, as the single commands take it: lo,hi (the cube), "
                          "lo1:hi1,… (a box; equiv and dim read it on the cube, "
                          "three-layer-fibers R36), 'file' (a .nnet input box), FILE.json (a box, "
                          "open sides, half-spaces: diff and equiv --epsilon) (default: R^d)")
    dom.add_argument("--ball", metavar="X,R", help="the L-infinity ball x,R (dim, diff, equiv --epsilon)")
    dom.add_argument("--orthant", action="store_true", help="the closed orthant x >= 0")
    p.add_argument("--epsilon", metavar="E",
                   help="equiv: decide max |a - b| <= E on the domain (as netfibers equiv "
                        "--epsilon) for items without an epsilon column")
    p.add_argument("--activation", metavar="NAME",
                   help="absorb: the activation of the MLP blocks of weight files (.safetensors, "
                        ".npz, .pt: every block of a file is decided, as absorb --all; an item's "
                        "activation column wins); netfibers.block JSON files say their own")
    p.add_argument("--scatter", action="store_true",
                   help="send the files' bytes to the workers (workers without the file system)")
    p.add_argument("--start-cluster", action="store_true",
                   help="start the embedded LocalCluster at once, in the background while the "
                        "manifest is read (default: started only when the estimated work is "
                        "worth it; a batch of trivial items runs in this process)")
    p.add_argument("--quiet", action="store_true", help="no progress line")
    p.set_defaults(func=cmd_batch)

    p = sub.add_parser("search", parents=[parent],
                       help="one large search as tasks (Dask)",
                       **describe(
                           "Run one large search as tasks: 'diff A B' runs one exact "
                           "branch-and-bound tree whose open nodes are tasks (a task expands at "
                           "most --nodes nodes, its open leaves go back to the client's "
                           "best-first frontier; the subtrees are grafted into the bab_bound "
                           "certificate of 'netfibers diff', checked in parts on the workers; "
                           "--method cells runs the older mode: a whole search per cell of the "
                           "box, a cell over --nodes halved, a bab_cover certificate); "
                           "'regions NET' walks the linear regions that meet the box breadth "
                           "first, batches of regions as tasks (each region walked once; "
                           "--method cells: one walk per cell instead), and certifies that they "
                           "cover the box (region_cover, checked in parts on the workers). The "
                           "verdict is the same serially and distributed; --checkpoint FILE "
                           "keeps the finished tasks so that a rerun resumes.",
                           exits=["0  complete", "3  partial: --timeout reached (diff: the "
                                  "certified interval so far; regions: the regions walked so "
                                  "far), a cell cut short, or interrupted (rerun with the same "
                                  "--checkpoint to resume)"],
                           examples=["netfibers search diff a.json b.json --box -1,1 "
                                     "--workers 2 --certificate bound.json",
                                     "netfibers search regions net.json --box -2,2 --workers 2 "
                                     "--checkpoint walk.ckpt"]))
    p.add_argument("what", choices=("diff", "regions"), metavar="WHAT", help="diff or regions")
    p.add_argument("nets", nargs="+", metavar="NET", help="A B for diff, NET for regions")
    dom = p.add_mutually_exclusive_group(required=True)
    dom.add_argument("--box", metavar="BOX",
                     help="lo,hi (the cube), lo1:hi1,… (a box), 'file' (a .nnet input box) "
                          "or FILE.json (a bounded box; half-spaces and open sides: netfibers "
                          "diff, netfibers regions)")
    dom.add_argument("--ball", metavar="X,R", help="the L-infinity ball x,R (a box)")
    p.add_argument("--cells", type=int, default=None, metavar="K",
                   help="number of first cells (default 8; the same serially and distributed); "
                        "regions: implies --method cells")
    p.add_argument("--method", "--split", dest="method", choices=("tree", "walk", "cells"),
                   default=None,
                   help="diff: tree (default without --cells: the open nodes of one tree as "
                        "tasks) or cells (cells of the box); regions: walk (default: breadth "
                        "first, batches of regions as tasks) or cells (one walk per cell)")
    p.add_argument("--nodes", type=int, default=None, metavar="N",
                   help="diff: node expansions per task (default 48; --split cells: before its "
                        "cell splits in two, default 400)")
    _where_args(p, search=True)
    p.add_argument("--checkpoint", metavar="FILE", help="the finished tasks (JSON Lines: subtrees, "
                   "batches of regions, or cells); a rerun resumes from them")
    p.add_argument("--certificate", metavar="FILE",
                   help="write the certificate (diff: bab_bound, or bab_cover with --method "
                        "cells; regions: region_cover)")
    p.set_defaults(func=cmd_search)


def cmd_batch(args) -> int:
    from ..distributed.batch import run_batch
    if args.workers is not None and args.workers < 0:
        fail("--workers must be >= 0")
    if args.start_cluster and (args.scheduler or args.workers == 0):
        fail("--start-cluster starts the embedded cluster: not with --scheduler or --workers 0")
    try:
        s = run_batch(args.job, args.manifest, args.out, workers=args.workers,
                      scheduler=args.scheduler, timeout=args.timeout,
                      memory_limit=args.memory_limit, box=args.box, scatter=args.scatter,
                      progress=not args.quiet and not args.json,
                      start_cluster=args.start_cluster, ball=args.ball, orthant=args.orthant,
                      epsilon=args.epsilon, activation=args.activation)
    except AlgebraError as exc:
        fail(str(exc))
    except ImportError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        print(f"netfibers: interrupted; {args.out} holds the finished items; rerun the same "
              "command to resume", file=sys.stderr)
        if args.json:                   # a --json reader gets an object too (s45 Ctrl-C audit F8)
            print(json.dumps({"complete": False, "reason": "interrupted (Ctrl-C)",
                              "out": args.out, "resume": "rerun the same command"}, indent=1))
        return 3
    if args.json:                       # the summary holds float seconds: plain json, not emit
        print(json.dumps(s, indent=1))
    else:
        print(summary_text(s, getattr(args, "exact", False)))
    return 0 if s["ok"] == s["items"] else 3


def summary_text(s: dict, exact: bool = False) -> str:
    rows = [("items", s["items"]), ("finished", s["finished"]), ("  resumed", s["resumed"]),
            ("  decided", s["ok"]), ("  undecided", s["undecided"]), ("  failed", s["failed"])]
    if s["job"] == "dedup":
        rows += [("classes", s["classes"]), ("merges (certified)", s["merges"]),
                 ("undecided pairs", s["undecided_pairs"])]
    else:
        rows += [(f"  {display.in_text(str(v), exact)}", n) for v, n in sorted(s["verdicts"].items())]
    rows += [("seconds", s["seconds"]), ("items/s", s["rate"]),
             ("ran on", f"{s['where']} ({s['workers']} worker{'s' if s['workers'] != 1 else ''})")]
    w = max(len(k) for k, _ in rows)
    return f"batch {s['job']}:\n" + "\n".join(f"  {k:<{w}}  {v}" for k, v in rows)


def cmd_search(args) -> int:
    from ..distributed import distributed_regions, search
    if args.method == "tree" and args.what != "diff":
        fail("--method tree is a method of search diff (regions: walk or cells)")
    if args.method == "walk" and args.what != "regions":
        fail("--method walk is a method of search regions (diff: tree or cells)")
    need = 2 if args.what == "diff" else 1
    if len(args.nets) != need:
        fail(f"search {args.what} takes {need} network file{'s' if need > 1 else ''}")
    from ..distributed.search import MAX_CELLS
    if args.cells is not None and not 1 <= args.cells <= MAX_CELLS:
        fail(f"--cells must be between 1 and {MAX_CELLS} (got {args.cells})")
    if args.nodes is not None and args.nodes < 1:
        fail("--nodes must be >= 1")
    space = None                # .nnet pairs: the units of the report (equiv, diff)
    if args.what == "diff":
        *nets, space = load_pair_in_units(*args.nets)
    else:
        nets = [load_network(args.nets[0])]
    d = nets[0].n_inputs
    box = _search_box(args, d, nets[0])
    args.units = units_report(space, Domain.from_box(box), args.exact)
    from ..budget import ctrl_c_count
    seen = ctrl_c_count()           # (a Ctrl-C a search kept: exit 3, as every Ctrl-C)
    try:
        if args.what == "diff":
            if nets[0].signature != nets[1].signature:
                fail(f"{args.nets[0]} has (inputs, outputs) {nets[0].signature} but "
                     f"{args.nets[1]} has {nets[1].signature}")
            if (args.method or ("cells" if args.cells is not None else "tree")) == "tree":
                return _tree_diff(args, nets, box)
            r = search.distributed_diff(nets[0], nets[1], box, cells=args.cells,
                                        workers=args.workers, scheduler=args.scheduler,
                                        memory_limit=args.memory_limit, timeout=args.timeout,
                                        checkpoint=args.checkpoint, progress=not args.json,
                                        nodes=args.nodes)
        else:
            r = distributed_regions(nets[0], box, method=args.method, cells=args.cells,
                                    workers=args.workers, scheduler=args.scheduler,
                                    memory_limit=args.memory_limit, timeout=args.timeout,
                                    checkpoint=args.checkpoint, progress=not args.json)
    except AlgebraError as exc:
        fail(str(exc))
    except ImportError as exc:
        fail(str(exc))
    except KeyboardInterrupt as exc:     # the one handler of search (tree, cells and walk)
        method = args.method or ("cells" if args.cells is not None else
                                 ("tree" if args.what == "diff" else "walk"))
        done = {"walk": "regions", "tree": "tasks"}.get(method, "cells")
        why = str(exc) if isinstance(exc, BudgetExhausted) and str(exc) else "interrupted"
        print(f"netfibers: {why}" + (f"; {args.checkpoint} holds the finished {done}"
                                     if args.checkpoint else ""), file=sys.stderr)
        return 3
    code = 0 if r.complete and ctrl_c_count() == seen else 3
    with answer_kept():     # found: a first Ctrl-C no longer loses the answer (s45 F6, F7)
        data = {**r.to_json(), **args.units[0]}
        if args.certificate and r.certificate is not None:
            write_certificate(r.certificate, args.certificate)
            data["certificate"] = args.certificate
        if args.what == "diff":
            text = (f"max |a - b| {'=' if r.complete else 'in'} "
                    + (display.number(r.lower, args.exact) if r.complete else
                       f"[{display.number(r.lower, args.exact)}, "
                       + ("no certified upper bound yet" if r.upper is None else
                          display.number(r.upper, args.exact)) + "]")
                    + f" at x = {display.point(r.point, args.exact)}, output {r.output};"
                    + f" {r.cells} cells, {r.tasks} tasks ({r.where}); certificate checked: "
                    + f"{r.verified}" + ("" if r.complete else f" ({r.reason})")
                    + (f"; certificate written to {args.certificate}" if "certificate" in data else "")
                    + args.units[1]
                    + display.note([v for v in (r.lower, r.upper, *r.point) if v is not None],
                                   args.exact))
        else:
            how = (f"walk, {r.tasks} tasks" if r.method == "walk" else f"{r.cells} cells") + f", {r.where}"
            text = (f"{r.number_of_regions} activation regions meet the box "
                    f"{_box_text(box, args.exact)} ({how})"
                    + ("" if r.complete else f" (partial: {r.reason}; rerun with --checkpoint to resume)")
                    + (f"; region_cover certificate checked: {r.verified}" if r.complete else "")
                    + (f" ({r.reason})" if r.complete and not r.verified and r.reason else "")
                    + display.note([v for side in box for v in side], args.exact))
        if args.json:
            print(json.dumps(data, indent=1, default=str))
        else:
            print(text)
        return code


def _search_box(args, d, net) -> list:
    """The bounded box of a search, in the grammar of ``netfibers diff`` (:func:`parse_domain`):
    a cube, a box with its own sides, ``file`` (a ``.nnet`` input box), a JSON box or ``--ball``.
    A domain a search does not take (half-spaces, open sides; for regions also a side of width
    0, whose regions are those of a slice) is refused in one line, never cut down to its box."""
    dom = parse_domain(args, d, net)
    other = "netfibers diff" if args.what == "diff" else "netfibers regions"
    if dom.box is None:
        fail(f"search {args.what} takes a bounded box (lo,hi, lo1:hi1,..., file, a JSON box or "
             f"--ball), not {'half-spaces' if dom.halfspaces else 'open sides'}: {other} takes "
             "any domain")
    if args.what == "regions" and any(lo == hi for lo, hi in dom.box):
        k = next(i for i, (lo, hi) in enumerate(dom.box) if lo == hi)
        fail(f"search regions takes a box with lo < hi on every side (x_{k} is fixed at "
             f"{q_str(dom.box[k][0])}): netfibers regions walks the slice")
    return dom.box


def _box_text(box, exact: bool = False) -> str:
    """``[lo, hi]^d`` for a cube, else ``[lo_1, hi_1] x … x [lo_d, hi_d]``; long rationals as
    ``≈`` decimals unless *exact* (an ACAS Xu ``--box file`` printed ``-157079650000/314159265359``).

    >>> _box_text([(0, 1), (0, 1)])
    '[0, 1]^2'
    >>> _box_text([(0, 1), ("-157079650000/314159265359", "1/2")])
    '[0, 1] x [≈ -0.50000, 1/2]'
    """
    if len(set(box)) == 1:
        return f"[{display.number(box[0][0], exact)}, {display.number(box[0][1], exact)}]^{len(box)}"
    return " x ".join(f"[{display.number(lo, exact)}, {display.number(hi, exact)}]" for lo, hi in box)


def _tree_diff(args, nets, box) -> int:
    """``search diff`` with the open nodes of one tree as tasks (:mod:`..distributed.tree`);
    called inside :func:`cmd_search`'s handlers (errors, Ctrl-C)."""
    from ..budget import ctrl_c_count
    from ..distributed.tree import tree_diff
    seen = ctrl_c_count()
    r = tree_diff(nets[0], nets[1], box, workers=args.workers, scheduler=args.scheduler,
                  memory_limit=args.memory_limit, timeout=args.timeout,
                  checkpoint=args.checkpoint, progress=not args.json, nodes=args.nodes)
    with answer_kept():     # found: a first Ctrl-C no longer loses the answer (s45 F6, F7)
        code = 0 if r.complete and ctrl_c_count() == seen else 3    # (a Ctrl-C the check kept: 3)
        data = {**r.to_json(), **args.units[0]}
        if args.certificate and r.certificate is not None:
            write_certificate(r.certificate, args.certificate)
            data["certificate"] = args.certificate
        if args.json:
            print(json.dumps(data, indent=1, default=str))
            return code
        value = (display.number(r.lower, args.exact) if r.complete else
                 f"[{display.number(r.lower, args.exact)}, "
                 + ("no certified upper bound yet" if r.upper is None else display.number(r.upper, args.exact))
                 + "]")
        print(f"max |a - b| {'=' if r.complete else 'in'} {value} at x = {display.point(r.point, args.exact)}, "
              f"output {r.output}; "
              f"{r.expansions} node expansions in {r.tasks} tasks ({r.where}), {r.open_nodes} open "
              f"nodes; certificate checked: {r.verified}"
              + ("" if r.complete else f" ({r.reason})")
              + (f"; certificate written to {args.certificate}" if "certificate" in data else "")
              + args.units[1]
              + display.note([v for v in (r.lower, r.upper, *r.point) if v is not None], args.exact))
        return code
