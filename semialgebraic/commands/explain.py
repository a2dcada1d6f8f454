"""Command ``explain``: what a term printed by netfibers means (the glossary)."""

from __future__ import annotations

from ..cli import emit, fail
from .glossary import GLOSSARY, lookup, term_line

__all__ = ["register", "cmd_explain"]


def register(sub, parent) -> None:
    from .help import describe
    p = sub.add_parser("explain", parents=[parent], help="explain a term (G1, S3, masked, Γ, fiber, …)",
                       **describe(
                           "Explain a term that netfibers prints: the genericity conditions G0-G8, "
                           "the symmetries S1-S8, neuron types (dead, linear, switching, masked), "
                           "Γ, κ₊, fiber, functional dimension, linear region, absorbable.  Each "
                           "entry gives a plain reading and the definition quoted from the math "
                           "reference (docs/math/, cited by result number).  A result number "
                           "such as R38 gives the result's one-line statement (of both references "
                           "when both have one; a reference's name before it picks one). "
                           "Without TERM, list every term.",
                           exits=["0  explained (or the list of terms printed)",
                                  "2  unknown term (the message lists the known ones)"],
                           examples=["netfibers explain", "netfibers explain S6", "netfibers explain R38",
                                     "netfibers explain masked --json"]))
    p.add_argument("term", nargs="*", metavar="TERM", help="the term (e.g. G2, S3, masked, Gamma)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (exit 3, nothing written; reading the files counts)")
    p.set_defaults(func=cmd_explain)


def _results(term: str) -> list:
    """The numbered results *term* names: a number such as ``R38`` or ``r16`` (both references
    when both have it), or a reference's name and a number (that reference's only)."""
    import re
    from .results import RESULTS
    m = re.fullmatch(r"\s*(three-layer-fibers|skip-absorption)?\s*([Rr]\d+[a-c]?)\s*", term)
    if m is None:
        return []
    rid = "R" + m.group(2)[1:]
    return [(k, v) for k, v in RESULTS.items() if k[1] == rid and m.group(1) in (None, k[0])]


def cmd_explain(args) -> int:
    if not args.term:
        data = {"terms": [{"term": k, "plain": v[0], "source": f"{v[1][0]} {v[1][1]}"}
                          for k, v in GLOSSARY.items()]}
        emit(args, data, "terms (netfibers explain TERM for the definition):\n"
             + "\n".join("  " + term_line(k) for k in GLOSSARY))
        return 0
    term = " ".join(args.term)
    key = lookup(term)
    if key is None:
        found = _results(term)
        if found:
            emit(args, {"results": [{"reference": ref, "id": rid, "title": t, "tag": tag}
                                    for (ref, rid), (t, tag) in found]},
                 "\n".join(f"{ref} {rid}: {t} {tag}\n  full text: docs/math/{ref}.md, {rid}"
                           for (ref, rid), (t, tag) in found))
            return 0
        fail(f"unknown term {term!r}; known terms: {', '.join(GLOSSARY)}, or a result number "
             "such as R38")
    plain, (doc, result), quote = GLOSSARY[key]
    data = {"term": key, "plain": plain, "source": f"{doc} {result}", "definition": quote}
    emit(args, data, f"{key}: {plain}\n  definition ({doc} {result}): {quote}\n"
                     f"  full text: docs/math/{doc}.md, {result}")
    return 0
