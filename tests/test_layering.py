"""Layering rules of STYLE C1 and the verify rule of ARCHITECTURE.md, as tests."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOORS = {"algebra/rationals.py", "algebra/polynomials.py", "algebra/linalg/qmatrix.py",
         "algebra/linalg/evaluation.py", "algebra/linalg/intervals.py", "algebra/linalg/gfp.py"}
DECIDING = ("shallow", "bottleneck", "equivalence", "absorption", "fiber", "regions", "lp",
            "dimension", "symmetry_graph", "sets", "exercise", "modular", "dimension_sampling")


def _py(folder):
    return sorted((ROOT / folder).rglob("*.py"))


def test_only_the_doors_import_flint():
    for path in _py("algebra") + _py("semialgebraic"):
        rel = path.relative_to(ROOT).as_posix()
        if re.search(r"^\s*(from|import) flint\b", path.read_text(), re.M):
            assert rel in DOORS, rel


def test_algebra_never_imports_semialgebraic():
    for path in _py("algebra"):
        assert not re.search(r"^\s*(from|import) semialgebraic\b", path.read_text(), re.M), path


def test_verify_never_imports_deciding_modules():
    pattern = re.compile(r"^\s*(from|import)\s+(semialgebraic\.|\.\.)(%s)\b" % "|".join(DECIDING), re.M)
    for path in _py("semialgebraic/verify"):
        text = path.read_text()
        assert not pattern.search(text), path
        assert not re.search(r"^\s*from \.\. import", text, re.M), path


def test_help_does_not_import_sympy():
    code = ("import sys; from semialgebraic.cli import build_parser; build_parser(); "
            "print('sympy' in sys.modules, 'torch' in sys.modules, 'onnx' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False False False"
