"""``netfibers reproduce`` (issue 18, part 3): the registry covers every numbered item of
docs/math (parsed from the headings), the absorption half runs in the fast suite, the whole
table in a slow test; reports are written atomically and refused on a bad suffix."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from semialgebraic.cli import main
from semialgebraic.reproduce import REGISTRY, run
from semialgebraic.reproduce.report import html_report

ROOT = Path(__file__).resolve().parents[2]


def _items(ref: str) -> set:
    """Every numbered item listed in docs/math/<ref>.md, from its tables and headings."""
    text = (ROOT / "docs" / "math" / f"{ref}.md").read_text(encoding="utf-8")
    ids = set(re.findall(r"^\| (R\d+|G\d) \|", text, re.M))
    if ref == "three-layer-fibers":
        ids |= set(re.findall(r"^\*\*R\d+ — (S\d)", text, re.M))
        ids |= set(re.findall(r"^\* \*\*(R\d+) —", text, re.M))          # §11: R28–R41
        ids |= set(re.findall(r"^\*\*(R\d+[a-c]) \(", text, re.M))       # R16a–c
        ids |= set(re.findall(r"^\*\*(T\d+) —", text, re.M))
        ids |= set(re.findall(r"^\* \*\*(P\d+) ", text, re.M))
    else:
        ids |= {f"example {x}" for x in re.findall(r"^\*\*([A-Z][\w'-]*)\*\* —", text, re.M)}
        sec9 = text[text.index("## 9."):text.index("## 10.")]
        ids |= {f"pitfall {n}" for n in re.findall(r"^(\d+)\. \*\*", sec9, re.M)}
    return ids


@pytest.mark.parametrize("ref, minimum", [("three-layer-fibers", 27 + 3 + 14 + 8 + 8 + 11 + 16),
                                          ("skip-absorption", 20 + 17 + 12)])
def test_registry_covers_every_numbered_item(ref, minimum):
    listed = _items(ref)
    assert len(listed) >= minimum                      # the parser sees the whole reference
    have = {e.id for e in REGISTRY if e.reference == ref}
    assert listed - have == set(), f"not in the registry: {sorted(listed - have)}"
    assert any(e.id == "Cor. 11 experiment" for e in REGISTRY)
    assert any(e.id.startswith("deviation") and e.reference == ref for e in REGISTRY)
    ids = [(e.reference, e.id) for e in REGISTRY]
    assert len(ids) == len(set(ids))


def test_absorption_half_reproduces(tmp_path, capsys):
    report = tmp_path / "table.md"
    assert main(["reproduce", "--only", "absorption", "--report", str(report), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = data["rows"]
    assert data["complete"] and {r["reference"] for r in rows} == {"skip-absorption"}
    assert {r["verdict"] for r in rows} <= {"reproduced", "context"}
    byid = {r["id"]: r for r in rows}
    assert byid["example C"]["verdict"] == "reproduced" and "False" in byid["example C"]["detail"]
    assert "0 absorbable" in byid["Cor. 11 experiment"]["detail"]
    assert byid["R10"]["detail"].endswith("[[0, 1], [2, 3]]")
    md = report.read_text()
    assert md.startswith("# netfibers reproduce") and md.count("\n| skip-absorption |") == len(rows)


def test_budget_and_bad_input(tmp_path, capsys):
    rows, complete = run(only="absorption", timeout=1e-9)
    assert not complete and rows[-1].verdict == "not run (budget)"
    bad = tmp_path / "table.txt"
    assert main(["reproduce", "--report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "table.txt" in err and "Traceback" not in err and not bad.exists()
    assert main(["reproduce", "--timeout", "0"]) == 2


def test_html_report_has_the_pictures_hook():
    rows, complete = run(ids={"example A"})
    page = html_report(rows, complete, pictures={"example A": "a.png"})
    assert '<img src="a.png" alt="example A">' in page and "reproduced" in page


@pytest.mark.slow
def test_full_reproduce(tmp_path, capsys):
    report = tmp_path / "table.html"
    assert main(["reproduce", "--report", str(report), "--json", "--timeout", "300"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] and len(data["rows"]) == len(REGISTRY)
    assert {r["verdict"] for r in data["rows"]} <= {"reproduced", "context"}
    assert sum(r["verdict"] == "context" for r in data["rows"]) <= 10
    assert report.read_text().count("<tr class=") == len(REGISTRY)


def test_html_report_embeds_the_pictures(tmp_path, capsys, monkeypatch):
    """Issue 18: the HTML report embeds the pictures (PNG data URIs drawn from the exact scenes)."""
    import base64

    from algebra.io import load
    from semialgebraic.regions import number_of_regions
    from semialgebraic.sets import Polyhedron
    from semialgebraic.reproduce.pictures import _EXAMPLES, PICTURES, report_pictures
    pytest.importorskip("matplotlib")
    rows, complete = run(ids={"R4", "S6", "R16"}, only="three-layer")
    pictures, why = report_pictures(rows)
    assert why is None and set(pictures) == {("three-layer-fibers", i) for i in ("R4", "S6", "R16")}
    for uri in pictures.values():
        assert base64.b64decode(uri.split(",", 1)[1])[:8] == b"\x89PNG\r\n\x1a\n"
    page = html_report(rows, complete, pictures)
    assert page.count('<img src="data:image/png;base64,') == 3
    # the regions picture is T1's region walk on [-3, 3]^2: one polygon per region
    name, build, _ = PICTURES[("three-layer-fibers", "R4")]
    net = load(str(_EXAMPLES / name))
    assert len(build(net).polygons) == number_of_regions(net, domain=Polyhedron.box(2, -3, 3))
    report = tmp_path / "t.html"
    assert main(["reproduce", "--only", "three-layer", "--report", str(report)]) in (0, 1)
    assert "pictures: 3 embedded" in capsys.readouterr().out
    assert report.read_text().count("data:image/png;base64,") == 3
    # without matplotlib: the table only, and the reason with the install hint
    import builtins
    real = builtins.__import__

    def no_mpl(name, *a, **k):
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", no_mpl)
    pictures, why = report_pictures(rows)
    assert pictures == {} and "[plot]" in why
