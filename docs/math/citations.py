"""Where the code and the tests cite the numbered results of ``docs/math/``.

Scans ``algebra/``, ``semialgebraic/`` and ``tests/`` for citations of the two references,
``three-layer-fibers`` and ``skip-absorption``, and prints, per result, the files that cite it,
split into *code* (``algebra/``, ``semialgebraic/``), *tests* (``tests/``) and *data* (non-Python
files such as ``algebra/examples/*.json``).  It is the tool that keeps the "Implemented in" and
"Tested in" lines of ``docs/math/*.md`` true::

    python docs/math/citations.py                  # table, both references
    python docs/math/citations.py --ref skip-absorption R16
    python docs/math/citations.py --json           # machine-readable
    python docs/math/citations.py --check          # compare with the lines in docs/math/*.md

What counts as a citation (only comments and string literals of ``.py`` files are read, so a
variable named ``R2`` is not a citation; other files are read whole):

* explicit: ``three-layer-fibers R17``, ``skip-absorption.md §7.1``, ``three-layer-fibers §5,
  R8, R9``, ``three-layer-fibers R13–R15`` (ranges are expanded), ``skip-absorption §9 pitfall 1``;
* bare: ``R17``, ``S6``, ``T1``, ``G2``, ``P10``, ``§3.1``, ``pitfall 12``, ``example D`` and the
  paper's numbering of skip-absorption (``Theorem 8``, ``Prop. 5``, ``Cor. 11``, ``Lemma 4``).  A
  bare tag belongs to the reference named last before it in the same file; with none named
  before it, S/T/G/P tags (which only three-layer-fibers has) go to three-layer-fibers, and R/§
  tags go to skip-absorption in files whose path mentions absorption, blocks or activations and to
  three-layer-fibers otherwise.  ``--json`` marks these attributions ``"inferred": true``.

Identifiers: ``R17``, ``S6``, ``T1``, ``G2``, ``P10``, ``§7.1`` (a section, as cited), ``pitfall 12``,
``example D``.  The paper numbering of skip-absorption is reported under the R-number that restates
it (Lemma 4 → R3, Prop. 5 → R5, Prop. 6 → R6, Cor. 7 → R7, Theorems 8 and 10 → R8, Cor. 11 → R11).
Standard library only; run from the repository root (or pass ``--root``).
"""

from __future__ import annotations

import argparse
import io
import json
import re
import sys
import tokenize
from pathlib import Path

REFERENCES = ("three-layer-fibers", "skip-absorption")
SCANNED = ("algebra", "semialgebraic", "tests")
SUFFIXES = (".py", ".json", ".md", ".txt")
# the test of this scanner plants citations in strings: not citations of the project
EXCLUDED = {"tests/test_docs.py"}
# the CLI only presents results; --check does not ask for it under "Implemented in"
FRONT_ENDS = ("semialgebraic/commands/", "semialgebraic/cli.py",
              "semialgebraic/reproduce/")   # the reproduce registry runs every result's check
PAPER_NUMBERING = {("Lemma", 4): "R3", ("Prop", 5): "R5", ("Prop", 6): "R6", ("Cor", 7): "R7",
                   ("Theorem", 8): "R8", ("Theorem", 10): "R8", ("Cor", 11): "R11"}
_DASH = "[–-]"
# one tag: R17, S6, T10, G0, P16, §7.1, with an optional range R13–R15 / §2–§4 / S1-S8
_TAG = (rf"(?:(?P<kind>[RSTGP])(?P<a>\d{{1,2}})(?:{_DASH}(?P=kind)?(?P<b>\d{{1,2}}))?"
        rf"|§(?P<sa>\d{{1,2}}(?:\.\d{{1,2}})?)(?:{_DASH}§?(?P<sb>\d{{1,2}}))?)")
_TAG_RE = re.compile(rf"(?<![\w.\[/^])(?:{_TAG})(?![\w\[(^]|\.\d)")
_PITFALL_RE = re.compile(r"\bpitfall (\d{1,2})\b")
_EXAMPLE_RE = re.compile(r"\bexample ([A-K]\d?'?)(?![\w])")
_PAPER_RE = re.compile(r"\b(Lemma|Prop(?:osition)?|Cor(?:ollary)?|Theorem)\.? ?(\d{1,2})\b")
_REF_RE = re.compile(r"\b(three-layer-fibers|skip-absorption)(?:\.md)?\b")
_ABSORPTION_PATH = re.compile(r"absor|block|activation|find_s")


def _expand(m: re.Match) -> list[str]:
    """The identifiers a tag match stands for (ranges expanded)."""
    if m.group("kind"):
        k, a = m.group("kind"), int(m.group("a"))
        b = int(m.group("b")) if m.group("b") else a
        return [f"{k}{i}" for i in range(a, b + 1)] if a <= b <= a + 30 else [f"{k}{a}"]
    a = m.group("sa")
    if m.group("sb") and "." not in a and int(a) <= int(m.group("sb")) <= int(a) + 12:
        return [f"§{i}" for i in range(int(a), int(m.group("sb")) + 1)]
    return [f"§{a}"]


def _texts(path: Path) -> list[tuple[int, str]]:
    """(offset, text) of the comments and string literals of a .py file; the whole other file."""
    src = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix != ".py":
        return [(0, src)]
    out, lines = [], src.splitlines(keepends=True)
    starts = [0]
    for ln in lines:
        starts.append(starts[-1] + len(ln))
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type in (tokenize.COMMENT, tokenize.STRING) or tok.type == getattr(tokenize, "FSTRING_MIDDLE", -1):
                out.append((starts[tok.start[0] - 1] + tok.start[1], tok.string))
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return [(0, src)]
    return out


def _default_ref(kind: str, path: str, counts: dict[str, int]) -> tuple[str, bool]:
    """Reference of a bare tag: (reference, inferred from the path alone)."""
    if kind in "STGP":
        return "three-layer-fibers", False
    a, b = counts.get("three-layer-fibers", 0), counts.get("skip-absorption", 0)
    if a != b:
        return ("three-layer-fibers" if a > b else "skip-absorption"), False
    guess = "skip-absorption" if _ABSORPTION_PATH.search(path) else "three-layer-fibers"
    return guess, a == 0


_LIST_ITEM = re.compile(rf"(?:[\s,/]|\band\b|\.md\b)*(?:(?P<pit>pitfall (?P<n>\d{{1,2}}))|{_TAG})")


def _tags(text: str):
    """Every tag in *text* as (start, kind, identifier)."""
    for m in _TAG_RE.finditer(text):
        kind = m.group("kind") or "§"
        for ident in _expand(m):
            yield m.start(), kind, ident
    for m in _PITFALL_RE.finditer(text):
        yield m.start(), "pitfall", f"pitfall {m.group(1)}"
    for m in _EXAMPLE_RE.finditer(text):
        yield m.start(), "example", f"example {m.group(1)}"
    for m in _PAPER_RE.finditer(text):
        word = m.group(1)
        key = ("Prop" if word.startswith("Prop") else "Cor" if word.startswith("Cor") else word,
               int(m.group(2)))
        if key in PAPER_NUMBERING:
            yield m.start(), "paper", PAPER_NUMBERING[key]


def _pitfall_id(ref: str, ident: str) -> str:
    # three-layer-fibers numbers its pitfalls P1…P16, skip-absorption "pitfall 1"…"pitfall 12"
    return "P" + ident.split()[1] if ref == "three-layer-fibers" else ident


def citations_in_file(path: Path, rel: str) -> list[tuple[str, str, bool]]:
    """Every citation in one file as (reference, identifier, inferred).

    A reference name governs the list of tags right after it (``three-layer-fibers §5, R8, R9;``
    stops at the semicolon); every other tag is *bare* and goes to the reference the file names
    most often (S/T/G/P tags always to three-layer-fibers; skip-absorption's paper numbering,
    examples and ``pitfall N`` to skip-absorption unless the file names only three-layer-fibers).
    ``inferred`` is True when the file names no reference at all and the path decided.
    """
    texts = _texts(path)
    counts: dict[str, int] = {}
    for _, text in texts:
        for m in _REF_RE.finditer(text):
            counts[m.group(1)] = counts.get(m.group(1), 0) + 1
    found: list[tuple[str, str, bool]] = []
    for _, text in texts:
        explicit: set[int] = set()
        for m in _REF_RE.finditer(text):
            ref, pos = m.group(1), m.end()
            while True:
                item = _LIST_ITEM.match(text, pos)
                if not item:
                    break
                explicit.add(item.start("pit") if item.group("pit") else
                             item.start("kind") if item.group("kind") else item.start("sa") - 1)
                if item.group("pit"):
                    found.append((ref, _pitfall_id(ref, "pitfall " + item.group("n")), False))
                else:
                    found.extend((ref, ident, False) for ident in _expand(item))
                pos = item.end()
        for start, kind, ident in _tags(text):
            if start in explicit:
                continue
            if kind in ("paper", "example"):
                found.append(("skip-absorption", ident, not counts))
            elif kind == "pitfall":
                ref = ("three-layer-fibers" if counts and "skip-absorption" not in counts
                       else "skip-absorption")
                found.append((ref, _pitfall_id(ref, ident), not counts))
            else:
                ref, inferred = _default_ref(kind, rel, counts)
                found.append((ref, ident, inferred))
    return found


def scan(root: Path | str = ".") -> dict[tuple[str, str], dict[str, dict[str, bool]]]:
    """Map (reference, identifier) to {category: {file: inferred}}, category code/tests/data.

    ``inferred`` is True when every citation of that identifier in that file was attributed by
    the fallback rule (no reference named before it in the file).
    """
    root = Path(root)
    table: dict[tuple[str, str], dict[str, dict[str, bool]]] = {}
    for top in SCANNED:
        base = root / top
        if not base.is_dir():
            continue
        for path in sorted(base.rglob("*")):
            if path.suffix not in SUFFIXES or not path.is_file() or "__pycache__" in path.parts:
                continue
            rel = path.relative_to(root).as_posix()
            if rel in EXCLUDED:
                continue
            cat = "tests" if top == "tests" else ("code" if path.suffix == ".py" else "data")
            for ref, ident, inferred in citations_in_file(path, rel):
                files = table.setdefault((ref, ident), {}).setdefault(cat, {})
                files[rel] = files.get(rel, True) and inferred
    return table


def _order(ident: str) -> tuple:
    m = re.match(r"([A-Za-z§ ]+?)\s*([\d.]+)?(.*)$", ident)
    kind_rank = {"§": 0, "G": 1, "R": 2, "S": 3, "T": 4, "P": 5, "pitfall": 6, "example": 7}
    head = m.group(1).strip() if m else ident
    nums = tuple(int(x) for x in (m.group(2) or "").split(".") if x) if m else ()
    return (kind_rank.get(head, 9), nums, ident)


# --check: the "Implemented in (ID):" / "Tested in (ID):" lines of docs/math/<ref>.md -------------
_LINE_RE = re.compile(r"\*(?P<key>Implemented in|Tested in) \((?P<ids>[^)]+)\):\*(?P<rest>.*)$")
_PATH_RE = re.compile(r"`((?:algebra|semialgebraic|tests|benchmarks)/[\w/.]+?\.(?:py|json))(?:::\w+)?`")


def documented(doc: Path) -> dict[str, dict[str, set[str]]]:
    """{identifier: {"Implemented in": {paths}, "Tested in": {paths}}} read from a docs/math file.

    A line ``- *Implemented in (R17):* `semialgebraic/...py` (...)`` documents R17; ``(G0–G7)``
    documents each of G0 … G7.
    """
    out: dict[str, dict[str, set[str]]] = {}
    for line in doc.read_text(encoding="utf-8").splitlines():
        m = _LINE_RE.search(line)
        if not m:
            continue
        ids = m.group("ids")
        tag = _TAG_RE.fullmatch(ids)
        for ident in (_expand(tag) if tag else [ids]):
            entry = out.setdefault(ident, {"Implemented in": set(), "Tested in": set()})
            entry[m.group("key")] |= set(_PATH_RE.findall(m.group("rest")))
    return out


def check(root: Path, table) -> list[str]:
    """Lines naming every cited file missing from the docs, and every listed file that is absent."""
    problems = []
    for ref in REFERENCES:
        doc = root / "docs" / "math" / f"{ref}.md"
        if not doc.is_file():
            problems.append(f"{doc}: missing")
            continue
        listed = documented(doc)
        for (r, ident), cats in sorted(table.items(), key=lambda kv: _order(kv[0][1])):
            if r != ref or ident not in listed:
                continue
            for cat, key in (("code", "Implemented in"), ("tests", "Tested in")):
                missing = sorted(f for f in set(cats.get(cat, {})) - listed[ident][key]
                                 if not f.startswith(FRONT_ENDS))
                if missing:
                    problems.append(f"{ref} {ident}: cited but not under '{key}': {', '.join(missing)}")
        for ident, lines in sorted(listed.items(), key=lambda kv: _order(kv[0])):
            for key, paths in lines.items():
                for p in sorted(paths):
                    if "*" not in p and not (root / p).is_file():
                        problems.append(f"{ref} {ident}: '{key}' names {p}, which does not exist")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ids", nargs="*", help="only these identifiers (e.g. R17 S6 §7.1)")
    ap.add_argument("--ref", choices=REFERENCES, help="only this reference")
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[2]),
                    help="repository root (default: the one holding this script)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    ap.add_argument("--check", action="store_true",
                    help="compare with the 'Implemented in' / 'Tested in' lines of docs/math; "
                         "exit 1 when they disagree")
    args = ap.parse_args(argv)
    root = Path(args.root)
    table = scan(root)
    if args.check:
        problems = check(root, table)
        print("\n".join(problems) if problems else "docs/math agrees with the citations")
        return 1 if problems else 0
    rows = sorted(((r, i, c) for (r, i), c in table.items()
                   if (not args.ref or r == args.ref) and (not args.ids or i in args.ids)),
                  key=lambda t: (REFERENCES.index(t[0]), _order(t[1])))
    if args.json:
        print(json.dumps([{"reference": r, "id": i,
                           **{cat: [{"file": f, "inferred": inf} for f, inf in sorted(files.items())]
                              for cat, files in c.items()}} for r, i, c in rows],
                         ensure_ascii=False, indent=1))
        return 0
    ref = None
    for r, i, c in rows:
        if r != ref:
            print(f"{'' if ref is None else chr(10)}== {r}")
            ref = r
        print(f"{i}")
        for cat in ("code", "tests", "data"):
            if c.get(cat):
                print(f"    {cat:5}  " + ", ".join(f + ("?" if inf else "")
                                                   for f, inf in sorted(c[cat].items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
