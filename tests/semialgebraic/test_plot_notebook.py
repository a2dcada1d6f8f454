"""Notebook forms: exact numbers in the LaTeX/HTML of networks, fibers, sets, verdicts and
certificates; PNG only with matplotlib (None when it is missing)."""

import sys

import pytest

from algebra.network import Network
from semialgebraic import fiber
from semialgebraic.plot import regions_scene
from semialgebraic.plot.notebook import show
from semialgebraic.verdict import Hypothesis, Verdict

NET = Network.from_rows([[[1, 0], [0, "-1/3"]], [[2, "5/7"]]], [[0, 1], ["1/2"]])


def test_network_latex_and_html_are_exact():
    tex = NET._repr_latex_()
    assert tex.startswith("$f(x) = W_{2}") and r"-\frac{1}{3}" in tex and r"\frac{5}{7}" in tex
    page = NET._repr_html_()
    assert "widths 2-2-1" in page and "-1/3" in page and "5/7" in page and "9 rational" in page


def test_verdict_set_and_certificate_forms():
    v = Verdict(None, "bab", "budget <reached>", (Hypothesis("one hidden layer", True),), {"type": "bab_bound"})
    page = v._repr_html_()
    assert "<b>undecided</b>" in page and "&lt;reached&gt;" in page and "bab_bound" in page
    assert v._repr_latex_().startswith(r"$\text{undecided}")
    comp = fiber(NET).components[0]
    assert comp.basic_set._repr_html_().startswith("<p><b>semi-algebraic set</b></p><pre>")
    view = show({"type": "symmetry_path", "steps": [{"step": "S1"}]})
    assert "symmetry_path" in view._repr_html_() and view._repr_png_() is None


def test_fiber_forms():
    F = fiber(NET)
    assert "dimension 2" in F._repr_html_() and F._repr_latex_().startswith("$")


def test_png_only_with_matplotlib(monkeypatch):
    pytest.importorskip("matplotlib")
    assert NET._repr_png_().startswith(b"\x89PNG")
    scene = regions_scene(NET, ((-1, 1), (-1, 1)))
    assert scene._repr_png_().startswith(b"\x89PNG")
    monkeypatch.setitem(sys.modules, "matplotlib", None)         # import now fails
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    assert NET._repr_png_() is None and scene._repr_png_() is None
    assert fiber(NET)._repr_png_() is None
