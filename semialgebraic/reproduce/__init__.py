"""``netfibers reproduce``: every numbered result of both references as one table.

:data:`~semialgebraic.reproduce.registry.REGISTRY` holds one entry per numbered item of
``docs/math/three-layer-fibers.md`` (R1–R27, G0–G8, S1–S8, T1–T11, P1–P16) and
``docs/math/skip-absorption.md`` (R1–R20, the examples A … P6, pitfalls 1–12), the Cor. 11
random experiment and the documented deviations from the reference; each entry's check runs
through the public API on bundled examples (``algebra/examples/``) and returns a verdict and a
detail.  :func:`~semialgebraic.reproduce.runner.run` runs them under one budget;
:mod:`~semialgebraic.reproduce.report` writes the table (text, Markdown, HTML with a hook for
pictures).
"""

from .registry import REGISTRY, Entry
from .runner import Row, run

__all__ = ["REGISTRY", "Entry", "Row", "run"]
