"""Identifiability of networks outside the exact theories (two or more hidden layers that are not
a three-layer bottleneck, or a bottleneck that is not generic): planted copies only.

No theorem says when such a network is identifiable, so the answer is either "not identifiable"
with a copy outside the S1 + S2 orbit reached by valid symmetry steps (a ``symmetry_path``
certificate whose claim includes "b outside a's orbit") or "undecided".

:func:`identifiability` (:mod:`.dispatch`) is the public entry point for any network: one hidden
layer (R41, R42), a bottleneck (R18), else the planted copies.
"""

from .dispatch import identifiability
from .planted import certified_copy, identifiability_deep, planted_copies, symmetry_facts_deep

__all__ = ["identifiability", "identifiability_deep", "planted_copies", "certified_copy",
           "symmetry_facts_deep"]
