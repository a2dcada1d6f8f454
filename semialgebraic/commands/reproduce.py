"""Command ``reproduce``: every numbered result of both references as one table.

``netfibers reproduce [--only three-layer|absorption] [--report FILE.md|FILE.html] [--json]
[--timeout SECONDS]``

Runs the registry of :mod:`semialgebraic.reproduce` (one check per numbered item of docs/math:
R, S, T, G items, the P pitfalls, the examples A … P6, the Cor. 11 random experiment and the
documented deviations) and prints one row per item: reference, identifier, tag, what was checked
and how, verdict, time.  ``--report`` writes the table as Markdown or HTML (by the suffix,
atomically).  JSON keys: ``rows`` (each ``reference``, ``id``, ``tag``, ``what``, ``verdict``,
``detail``, ``milliseconds``), ``complete``, ``summary``, ``report``.  Exit 0 every item reproduced
(or context), 1 some item FAILED, 3 the budget stopped the run (partial table), 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

from algebra.io.native import write_atomic

from ..cli import emit, fail
from .help import TIMEOUT_HELP, describe

__all__ = ["register", "cmd_reproduce"]


def register(sub, parent) -> None:
    p = sub.add_parser("reproduce", parents=[parent],
                       help="check every numbered result of both references, as one table",
                       **describe(
                           "Run one check per numbered item of the two references in docs/math "
                           "(results, symmetries, genericity conditions, acceptance examples, "
                           "pitfall guards, the Cor. 11 random experiment and the documented "
                           "deviations) through the public API on the bundled examples, and "
                           "print one table: the item, its tag ([paper] or [derived]), what was "
                           "checked and how, the verdict and the time.",
                           exits=["0  every item reproduced (or a context item)",
                                  "1  some item FAILED",
                                  "3  the budget stopped the run (partial table)"],
                           examples=["netfibers reproduce",
                                     "netfibers reproduce --only absorption --report table.md",
                                     "netfibers reproduce --report table.html --timeout 300"]))
    p.add_argument("--only", choices=("three-layer", "absorption"),
                   help="only the items of one reference")
    p.add_argument("--report", metavar="FILE.md|FILE.html",
                   help="also write the table as Markdown or HTML (by the suffix)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help=TIMEOUT_HELP)
    p.set_defaults(func=cmd_reproduce)


def cmd_reproduce(args) -> int:
    from ..reproduce import run
    from ..reproduce.report import html_report, markdown_report, summary, text_table
    if args.timeout is not None and args.timeout <= 0:
        fail(f"--timeout must be > 0 for {args.command} (0 s leaves it nothing to report)")
    suffix = Path(args.report).suffix.lower() if args.report else None
    if args.report and suffix not in (".md", ".html", ".htm"):
        fail(f"{args.report}: the report must end in .md or .html")
    rows, complete = run(only=args.only, timeout=args.timeout)
    note = ""
    if args.report:
        if suffix == ".md":
            text = markdown_report(rows, complete)
        else:                                   # the pictures of semialgebraic/reproduce/pictures.py
            from ..reproduce.pictures import report_pictures
            pictures, why = report_pictures(rows)
            text = html_report(rows, complete, pictures)
            note = f"\n  pictures: {len(pictures)} embedded" if why is None else f"\n  pictures: none ({why})"
        try:
            write_atomic(args.report, text)
        except OSError as exc:
            fail(f"{args.report}: cannot write: {exc.strerror}")
    data = {"rows": [r.to_json() for r in rows], "complete": complete,
            "summary": summary(rows, complete), "report": args.report}
    emit(args, data, text_table(rows, complete) + (f"\n  report: {args.report}" if args.report else "") + note)
    if not complete:
        return 3
    return 1 if any(r.verdict == "FAILED" for r in rows) else 0
