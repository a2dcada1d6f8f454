"""The reproduce table as text, Markdown or HTML.

:func:`html_report` takes an optional ``pictures`` mapping (entry id → image path or data URI):
the hook through which the ``plot`` command (issue 18, part 1) can embed pictures later; each
picture is shown under its row.
"""

from __future__ import annotations

import html

__all__ = ["text_table", "markdown_report", "html_report", "summary"]


def summary(rows, complete: bool) -> str:
    counts = {}
    for r in rows:
        counts[r.verdict] = counts.get(r.verdict, 0) + 1
    total = sum(r.seconds for r in rows)
    parts = ", ".join(f"{n} {v}" for v, n in sorted(counts.items()))
    stop = ("interrupted" if any(r.verdict == "not run (interrupted)" for r in rows) else
            "budget reached")
    return f"{len(rows)} numbered items: {parts}; {total:.1f} s" + ("" if complete else f" ({stop}: partial)")


def text_table(rows, complete: bool) -> str:
    lines = [summary(rows, complete)]
    for r in rows:
        ref = "3L" if r.reference == "three-layer-fibers" else "SA"
        lines.append(f"  {ref} {r.id:<28} {r.verdict:<17} {r.seconds:6.2f}s  {r.what}")
        if r.verdict not in ("reproduced", "context"):
            lines.append(f"      {r.detail}")
    return "\n".join(lines)


def _md(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_report(rows, complete: bool) -> str:
    out = ["# netfibers reproduce", "", summary(rows, complete), "",
           "| reference | item | tag | what is checked, and how | verdict | time (s) |",
           "|---|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r.reference} | {_md(r.id)} | {_md(r.tag)} | {_md(r.what)}: {_md(r.detail)} | "
                   f"{r.verdict} | {r.seconds:.2f} |")
    return "\n".join(out) + "\n"


def html_report(rows, complete: bool, pictures: dict | None = None) -> str:
    pictures = pictures or {}
    esc = html.escape
    body = [f"<p>{esc(summary(rows, complete))}</p>", "<table>",
            "<tr><th>reference</th><th>item</th><th>tag</th><th>what is checked, and how</th>"
            "<th>verdict</th><th>time (s)</th></tr>"]
    for r in rows:
        body.append(f"<tr class=\"{esc(r.verdict.split()[0])}\"><td>{esc(r.reference)}</td><td>{esc(r.id)}</td>"
                    f"<td>{esc(r.tag)}</td><td>{esc(r.what)}: {esc(r.detail)}</td>"
                    f"<td>{esc(r.verdict)}</td><td>{r.seconds:.2f}</td></tr>")
        if (r.reference, r.id) in pictures or r.id in pictures:
            src = pictures.get((r.reference, r.id), pictures.get(r.id))
            body.append(f"<tr><td colspan=\"6\"><img src=\"{esc(str(src))}\" alt=\"{esc(r.id)}\"></td></tr>")
    body.append("</table>")
    return ("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>netfibers reproduce</title>"
            "<style>table{border-collapse:collapse}td,th{border:1px solid #999;padding:2px 6px}"
            ".FAILED{background:#fdd}</style></head><body><h1>netfibers reproduce</h1>\n"
            + "\n".join(body) + "\n</body></html>\n")
