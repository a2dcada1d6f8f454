"""docs/architecture.md and docs/math/ stay true: every module they name exists, every result the
code cites is in docs/math, and the README points at them.  Also the citation scanner itself
(docs/math/citations.py) on planted text."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "docs" / "architecture.md", *sorted((ROOT / "docs" / "math").glob("*.md"))]
LAYOUT = pytest.mark.skipif(not all((ROOT / "semialgebraic" / pkg).is_dir() for pkg in
                                    ("shallow", "bottleneck", "absorption", "sets", "lp", "regions",
                                     "equivalence", "dimension")),
                            reason="layout not landed (every family package)")

_spec = importlib.util.spec_from_file_location("docs_citations", ROOT / "docs" / "math" / "citations.py")
citations = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(citations)

_PATH = re.compile(r"(?<![\w/.])((?:algebra|semialgebraic|tests|benchmarks)/[\w/*.]*[\w*](?:\.py|\.json|/))")
_DOTTED = re.compile(r"(?<![\w/.])((?:algebra|semialgebraic)(?:\.[A-Za-z_]\w*)+)")


def _named(pattern, prefixes):
    out = set()
    for doc in DOCS:
        for m in pattern.finditer(doc.read_text(encoding="utf-8")):
            if m.group(1).startswith(prefixes):
                out.add((doc.relative_to(ROOT).as_posix(), m.group(1)))
    return sorted(out)


def _module_file(dotted):
    base = ROOT.joinpath(*dotted.split("."))
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _resolves(dotted):
    """A dotted name is a module, or a module followed by one name defined or imported in it."""
    if _module_file(dotted):
        return True
    head, _, attr = dotted.rpartition(".")
    mod = _module_file(head) if head else None
    if mod is None:
        return False
    return re.search(rf"^\s*(def|class)\s+{attr}\b|[\"']{attr}[\"']|^\s*{attr}\s*[:=]|\b{attr}\b.*\bimport\b|\bimport\b.*\b{attr}\b",
                     mod.read_text(encoding="utf-8"), re.M) is not None


@LAYOUT
def test_every_module_path_named_in_the_docs_exists():
    missing = []
    for doc, path in _named(_PATH, ("algebra/", "semialgebraic/")):
        p = ROOT / path
        ok = (any(ROOT.glob(path)) if "*" in path else p.is_dir() if path.endswith("/") else p.is_file())
        if not ok:
            missing.append(f"{doc}: {path}")
    assert not missing, "\n".join(missing)


@LAYOUT
def test_every_dotted_module_named_in_the_docs_exists():
    missing = [f"{doc}: {name}" for doc, name in _named(_DOTTED, ("algebra", "semialgebraic"))
               if not _resolves(name)]
    assert not missing, "\n".join(missing)


@LAYOUT
def test_every_test_and_benchmark_file_named_in_the_docs_exists():
    missing = [f"{doc}: {path}" for doc, path in _named(_PATH, ("tests/", "benchmarks/"))
               if not (ROOT / path).exists()]
    assert not missing, "\n".join(missing)


def _defined(ident, text):
    if ident.startswith("§"):
        num = ident[1:]
        return re.search(rf"^#+ {re.escape(num)}[. ]", text, re.M) is not None
    if ident.startswith("pitfall "):
        return re.search(rf"^\| {ident.split()[1]} \|", text, re.M) is not None
    if ident.startswith("example "):
        return f"**{ident.split(' ', 1)[1]}** —" in text
    return re.search(rf"(?<![\w]){re.escape(ident)}(?![\w])", text) is not None


@LAYOUT
def test_every_result_cited_in_the_code_is_in_docs_math():
    table = citations.scan(ROOT)
    assert table, "the scanner found no citation at all"
    missing = []
    for (ref, ident), cats in sorted(table.items()):
        text = (ROOT / "docs" / "math" / f"{ref}.md").read_text(encoding="utf-8")
        if not _defined(ident, text):
            where = sorted(f for files in cats.values() for f in files)
            missing.append(f"{ref} {ident} (cited in {', '.join(where)})")
    assert not missing, "\n".join(missing)


@LAYOUT
def test_every_citing_file_is_listed_under_its_results_implemented_and_tested_lines():
    """``docs/math/citations.py --check`` on the repository: a test file citing R38 that the
    'Tested in' line did not list went unnoticed for a session."""
    problems = citations.check(ROOT, citations.scan(ROOT))
    assert not problems, "\n".join(problems)


def test_readme_links_the_architecture_and_the_math_reference():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/architecture.md" in readme and "docs/math/" in readme


def test_docs_math_results_have_implemented_and_tested_lines():
    for ref, ids in (("three-layer-fibers", [f"R{i}" for i in range(1, 28)] + [f"G{i}" for i in range(8)]),
                     ("skip-absorption", [f"R{i}" for i in range(1, 21)])):
        listed = citations.documented(ROOT / "docs" / "math" / f"{ref}.md")
        for ident in ids:
            assert ident in listed, (ref, ident)


# -- the scanner on planted text -----------------------------------------------------------------
def _scan_text(tmp_path, rel, text):
    path = tmp_path / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return citations.scan(tmp_path)


def test_scanner_explicit_lists_ranges_and_sections(tmp_path):
    t = _scan_text(tmp_path, "semialgebraic/x.py",
                   '"""Moves (three-layer-fibers §5, R8–R10; skip-absorption §7.1, R16)."""\n')
    assert set(t) == {("three-layer-fibers", "§5"), ("three-layer-fibers", "R8"),
                      ("three-layer-fibers", "R9"), ("three-layer-fibers", "R10"),
                      ("skip-absorption", "§7.1"), ("skip-absorption", "R16")}
    assert t[("three-layer-fibers", "R9")] == {"code": {"semialgebraic/x.py": False}}


def test_scanner_reads_comments_and_strings_not_names(tmp_path):
    src = ("R2 = [1]  # S6 translation\nP0 = R2\nx = 'R17 formula'\n")
    t = _scan_text(tmp_path, "tests/test_x.py", src)
    assert set(t) == {("three-layer-fibers", "S6"), ("three-layer-fibers", "R17")}
    assert t[("three-layer-fibers", "R17")] == {"tests": {"tests/test_x.py": True}}   # inferred


def test_scanner_bare_tags_and_paper_numbering(tmp_path):
    src = ('"""Skip absorption (skip-absorption.md): Theorem 8, Prop. 5, example D, pitfall 12;\n'
           'bare R15 and G2."""\n')
    t = _scan_text(tmp_path, "semialgebraic/absorption/decide.py", src)
    assert set(t) == {("skip-absorption", "R8"), ("skip-absorption", "R5"),
                      ("skip-absorption", "example D"), ("skip-absorption", "pitfall 12"),
                      ("skip-absorption", "R15"), ("three-layer-fibers", "G2")}
