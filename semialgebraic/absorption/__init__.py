"""Skip absorption (skip-absorption.md): can ``x ↦ M x + W_down σ(W_up x)`` equal a residual-free
block of the same width?

Modules: :mod:`~semialgebraic.absorption.decide` (the dispatcher :func:`absorbable` of §7.1,
the nondegeneracy test, the flip block, the random experiment),
:mod:`~semialgebraic.absorption.canon` (the canonical form R14 and ABSORB-GENERAL R15) and
:mod:`~semialgebraic.absorption.find_s` (FIND-S, R16).  This ``__init__`` is the one place that
re-exports their public names.
"""

from .canon import MAX_BRUTE_SIGNS, AbsorptionCanon, absorb_general, canonical_form
from .decide import (absorbable, analysis_block, flip_block, nondegeneracy, random_block,
                     random_experiment, wilson_interval)
from .find_s import EXACT_LIMIT, FindS, find_s

__all__ = ["absorbable", "canonical_form", "AbsorptionCanon", "find_s", "FindS",
           "absorb_general", "nondegeneracy", "flip_block", "random_block", "random_experiment",
           "wilson_interval", "analysis_block", "EXACT_LIMIT", "MAX_BRUTE_SIGNS"]
