"""No accidental repeated block of code: pylint's duplicate-code check (R0801) over the packages,
with at least 8 similar lines (comments, docstrings and imports ignored), must report nothing.

A block that really must stand twice is not allowed to: extract it, or, if the repetition is the
algorithm's (two independent implementations kept apart on purpose, e.g. a checker that must not
call the decider), list the pair in ``INTENDED`` with the reason.
"""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INTENDED: dict[tuple[str, str], str] = {}


def test_no_repeated_block():
    pytest.importorskip("pylint")
    run = subprocess.run(
        [sys.executable, "-m", "pylint", "--disable=all", "--enable=duplicate-code",
         "--min-similarity-lines=8", "--ignore-comments=yes", "--ignore-docstrings=yes",
         "--ignore-imports=yes", "--score=no", "algebra", "semialgebraic", "netfibers"],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    pairs, lines = [], run.stdout.splitlines()
    for k, line in enumerate(lines):
        if "R0801" in line:
            pair = tuple(sorted(ln[2:].split(":")[0] for ln in lines[k + 1:k + 3] if ln.startswith("==")))
            if pair not in INTENDED:
                pairs.append(pair)
    assert pairs == [], run.stdout[-4000:]
