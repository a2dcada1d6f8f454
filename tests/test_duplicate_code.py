"""No accidental repeated block of code: pylint's duplicate-code check (R0801) over the packages,
with more than 8 similar lines (comments, docstrings and imports ignored), must report nothing.

A block that really must stand twice is not allowed to: extract it, or, if the repetition is the
algorithm's (two independent implementations kept apart on purpose, e.g. a checker that must not
call the decider), list the pair in ``INTENDED`` with the reason.

The check runs pylint's own similarity engine (``pylint.checkers.symilar``, what R0801 reports)
in-process. The import lines it ignores come from the standard ``ast`` module instead of a full
astroid build: the stripped lines are the same for every file (astroid builds its tree from
``ast``), and it takes ~1 s of CPU instead of ~11 s for ``python -m pylint``.
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INTENDED: dict[tuple[str, str], str] = {}


class _ImportLines:
    """What ``symilar.stripped_lines`` asks of a module tree when imports are ignored: every
    ``import``/``from … import`` node (with ``lineno``/``end_lineno``), nested ones included."""

    def __init__(self, text):
        self._module = ast.parse(text)

    def nodes_of_class(self, _classes):
        return [node for node in ast.walk(self._module)
                if isinstance(node, (ast.Import, ast.ImportFrom))]


def repeated_blocks(root, packages, min_lines=8):
    """``(pairs, report)``: the module pairs (dotted names, sorted) sharing a block of at least
    *min_lines* lines, comments, docstrings and imports ignored, and pylint's report of them."""
    symilar = pytest.importorskip("pylint.checkers.symilar")
    sim = symilar.Symilar(min_lines=min_lines, ignore_comments=True, ignore_docstrings=True,
                          ignore_imports=True)
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            name = ".".join(path.relative_to(root).with_suffix("").parts)
            with path.open(encoding="utf-8") as stream:
                try:
                    sim.append_stream(name, stream, tree=_ImportLines(text))
                except TypeError:   # a pylint without the ``tree`` argument parses it itself
                    stream.seek(0)
                    sim.append_stream(name, stream)
    sims = sim._compute_sims()
    pairs = [tuple(sorted(lines.name for lines, _, _ in couples))[:2] for _, couples in sims]
    return pairs, sim._get_similarity_report(sims)


def test_no_repeated_block():
    pairs, report = repeated_blocks(ROOT, ("algebra", "semialgebraic", "netfibers"))
    found = [pair for pair in pairs if pair not in INTENDED]
    assert found == [], report[-4000:]


BLOCK = """
def f(x, y):
    total = 0
    for k in range(x):
        total += k * y
        if total > 100:
            total -= 7
        else:
            total += 3
        total *= 2
    return total
"""


def test_the_check_finds_a_planted_block_and_ignores_imports_and_comments(tmp_path):
    """The check is not vacuous: the same 9 lines in two modules (their ``def`` lines differ) are
    reported, as one pair; 8 repeated import lines (some inside a function) and repeated
    comments are not."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    imports = "".join(f"import mod{k}\n" for k in range(4))
    nested = "def g():\n" + "".join(f"    from mod{k} import name{k}\n" for k in range(4))
    comments = "".join(f"# the same comment {k}\n" for k in range(10))
    (pkg / "a.py").write_text(imports + nested + comments + BLOCK)
    (pkg / "b.py").write_text(imports + nested + comments + "X = 1\n" + BLOCK.replace("f(", "h("))
    (pkg / "c.py").write_text(imports + nested + comments)
    pairs, report = repeated_blocks(tmp_path, ("pkg",))
    assert pairs == [("pkg.a", "pkg.b")], report
    assert "==pkg.a:[" in report and "total += k * y" in report
