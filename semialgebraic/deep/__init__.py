"""Identifiability of networks outside the exact theories (two or more hidden layers that are not
a three-layer bottleneck, or a bottleneck that is not generic): planted copies only.

No theorem says when such a network is identifiable, so the answer is either "not identifiable"
with a copy outside the S1 + S2 orbit reached by valid symmetry steps (a ``symmetry_path``
certificate whose claim includes "b outside a's orbit") or "undecided".
"""

from .planted import certified_copy, identifiability_deep, planted_copies, symmetry_facts_deep

__all__ = ["identifiability_deep", "planted_copies", "certified_copy", "symmetry_facts_deep"]
