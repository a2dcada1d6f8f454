"""`netfibers explain`: the glossary's definitions are quoted from docs/math (one source)."""

import json
import re
from pathlib import Path

import pytest

from semialgebraic.cli import main
from semialgebraic.commands.glossary import ALIASES, GLOSSARY, lookup

ROOT = Path(__file__).resolve().parents[2]


def _norm(text: str) -> str:
    text = text.replace("\\|", "|").replace("**", "")
    return " ".join(text.split())


@pytest.mark.parametrize("term", list(GLOSSARY))
def test_every_definition_is_quoted_from_its_math_file(term):
    plain, (doc, result), quote = GLOSSARY[term]
    source = _norm((ROOT / "docs" / "math" / f"{doc}.md").read_text())
    assert _norm(quote) in source, (term, quote)
    assert result.startswith("§") or re.search(rf"\b{re.escape(result)}\b", source)
    assert plain and not plain.endswith(".")


def test_every_term_printed_by_analyze_and_symmetries_has_an_entry():
    for t in ["G0", "G1", "G2", "G3", "G4", "G5", "G6", "G7", "S1", "S2", "S3", "S4", "S5", "S6",
              "S7", "S8", "dead", "linear", "switching", "masked", "Γ", "Gamma", "κ₊", "fiber",
              "functional dimension", "fiber dimension", "identifiable", "generic",
              "linear region", "linear piece", "activation region", "absorbable", "g2", "s6"]:
        assert lookup(t) in GLOSSARY, t
    assert all(v in GLOSSARY for v in ALIASES.values())
    assert lookup("softmax") is None


def test_explain_term(capsys):
    assert main(["explain", "S6"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "S6: shift the masked first-layer neuron's bias along an interval"
    assert "definition (three-layer-fibers R13): S6: translation of the masked neuron along an " \
           "interval" in out
    assert main(["explain", "Γ", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["term"] == "Gamma" and data["source"] == "three-layer-fibers §2"
    assert data["definition"].startswith("Γ := W3[:, L] W2[L, :]")
    assert main(["explain", "linear", "piece"]) == 0        # several words
    assert capsys.readouterr().out.startswith("linear piece: adjacent linear regions")
    for term in ("kink", "unread", "split", "non-generic", "orbit", "component"):   # printed by
        assert main(["explain", term]) == 0                 # symmetries/analyze/dim (session 36)
        capsys.readouterr()


def test_explain_lists_every_term_and_refuses_unknown(capsys):
    assert main(["explain", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [t["term"] for t in data["terms"]] == list(GLOSSARY)
    assert main(["explain"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 + len(GLOSSARY) and lines[2].startswith("  fiber: ")
    assert main(["explain", "softmax"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("netfibers: error: unknown term 'softmax'; known terms: bottleneck, ")


def _results_from_docs() -> dict:
    """Every numbered result's one line, read from docs/math: the map tables and the §11
    headings."""
    import re
    from pathlib import Path
    out = {}
    for ref in ("three-layer-fibers", "skip-absorption"):
        text = (Path(__file__).resolve().parents[2] / "docs" / "math" / f"{ref}.md").read_text(encoding="utf-8")
        for m in re.finditer(r"^\| (R\d+[a-c]?) \| (.+?) \| (.+?) \|$", text, re.M):
            out[(ref, m.group(1))] = (m.group(2).strip().replace("\\|", "|"), m.group(3).strip())
        for m in re.finditer(r"^\* \*\*(R\d+) — (.+?)\*\* (\[[^\]]*\])", text, re.M | re.S):
            out.setdefault((ref, m.group(1)), (" ".join(m.group(2).split()), " ".join(m.group(3).split())))
        for m in re.finditer(r"^\*\*(R\d+[a-c]) \((.+?)\)\*\* (\[[^\]]*\])", text, re.M | re.S):
            # R16a-c: results of their own inside R16's text (the outputs cite them; s43 docs audit)
            out.setdefault((ref, m.group(1)), (" ".join(m.group(2).split()), " ".join(m.group(3).split())))
    return out


def test_explain_a_result_number_reads_as_docs_math(capsys):
    """Outputs cite results by number, which explain did not know (session 32's audit); the
    package's table equals docs/math's, entry for entry."""
    from semialgebraic.commands.results import RESULTS
    assert RESULTS == _results_from_docs() and len(RESULTS) == 65
    assert main(["explain", "R41"]) == 0
    assert capsys.readouterr().out.startswith("three-layer-fibers R41: identifiability of one hidden layer")
    assert main(["explain", "r" + "16", "--json"]) == 0      # both references have one
    import json
    assert [r["reference"] for r in json.loads(capsys.readouterr().out)["results"]] == \
        ["three-layer-fibers", "skip-absorption"]
    assert main(["explain", "R" + "99"]) == 2
