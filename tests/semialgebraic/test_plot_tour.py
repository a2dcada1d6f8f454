"""docs/tour.ipynb: a valid nbformat-4 notebook (fast), and it runs top to bottom (slow): each
code cell is executed in order with ``exec`` in one namespace, and the value of its last
expression is displayed the way Jupyter does (``_repr_html_`` / ``_repr_latex_`` /
``_repr_png_``), so the notebook forms run too."""

import ast
import json
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOUR = ROOT / "docs" / "tour.ipynb"


def _notebook() -> dict:
    return json.loads(TOUR.read_text(encoding="utf-8"))


def test_tour_is_a_valid_notebook_linked_from_the_readme():
    nb = _notebook()
    assert nb["nbformat"] == 4 and isinstance(nb["nbformat_minor"], int)
    assert nb["metadata"]["kernelspec"]["language"] == "python"
    kinds = [c["cell_type"] for c in nb["cells"]]
    assert set(kinds) == {"markdown", "code"} and kinds.count("code") >= 7
    ids = [c["id"] for c in nb["cells"]]
    assert len(set(ids)) == len(ids)
    for c in nb["cells"]:
        assert isinstance(c["source"], list) and isinstance(c["metadata"], dict)
        if c["cell_type"] == "code":
            assert c["outputs"] == [] and c["execution_count"] is None
            ast.parse("".join(c["source"]))                     # every code cell parses
    text = "".join("".join(c["source"]) for c in nb["cells"])
    for step in ("nf.load(", "nf.equivalent(", "nf.verify(", "nf.fiber(", "regions_scene(",
                 "nf.absorbable("):
        assert step in text, step
    assert "docs/tour.ipynb" in (ROOT / "README.md").read_text()


def _display(value) -> list:
    shown = []
    for name in ("_repr_html_", "_repr_latex_", "_repr_png_"):
        method = getattr(value, name, None)
        if method is not None:
            out = method()
            assert out is None or isinstance(out, (str, bytes)), name
            shown.append((name, out))
    return shown


@pytest.mark.slow
def test_tour_runs_top_to_bottom():
    ns: dict = {"__name__": "__tour__"}
    shown = []
    cwd = os.getcwd()
    os.chdir(ROOT / "docs")               # the notebook must not depend on the working directory
    try:
        for c in _notebook()["cells"]:
            if c["cell_type"] != "code":
                continue
            tree = ast.parse("".join(c["source"]))
            last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
            exec(compile(tree, "tour.ipynb", "exec"), ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), "tour.ipynb", "eval"), ns)
                shown += _display(value)
    finally:
        os.chdir(cwd)
    assert ns["verdict"].answer is True and ns["ok"] is True
    assert ns["F"].dimension.value == 8
    assert (ns["s6"].start, ns["s6"].end) == ((-1, 0), (ns["nf"].Q(3, 2), 0))
    assert ns["rscene"].data["regions"] == 6 and ns["rscene"].data["masked"] == ["L1[0]"]
    assert ns["dev"].value == 1 and ns["absorbed"].answer is True
    names = {n for n, out in shown if out}
    assert {"_repr_html_", "_repr_latex_"} <= names
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return
    assert sum(1 for n, out in shown if n == "_repr_png_" and out and out.startswith(b"\x89PNG")) >= 4
