r"""Three-layer bottleneck networks ``f = W3 σ(W2 σ(W1 x + b1) + b2) + b3`` with ``n1 ≤ d``
(three-layer-fibers §2–§8): genericity, structure, identifiability, CANON, equivalence, fiber.

Every decision is exact over Q and runs only after its hypotheses G1–G6 (§3.1) are checked; an
input that fails one is answered "non-generic" with the failed condition and a witness (P1, P2,
P5, P13), never guessed.  Indices are 0-based (the reference counts from 1).

Modules: :mod:`~semialgebraic.bottleneck._structure` (G0–G8, neuron types, masked neuron, R17),
:mod:`~semialgebraic.bottleneck._identifiability` (R18, R19), :mod:`~semialgebraic.bottleneck.canon`
(CANON R20, equivalence with certificates, counterexamples), :mod:`~semialgebraic.bottleneck.fiber`
(the fiber, R16), :mod:`~semialgebraic.bottleneck.fibdim` (FIBDIM, R22) and
:mod:`~semialgebraic.bottleneck.copies` (discrete moves, random symmetric copies).  This
``__init__`` is the one place that re-exports their public names.

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
...                         [[0, 0], [-1, -3], [0]])
>>> s = structure(net)
>>> s.types, s.masked, s.s6_interval
(('switching', 'dead'), 0, (-1, 3/2))
>>> dimension_formula(net).value, jacobian_dimension(net)
(8, 8)
>>> identifiability(net).answer
False
"""

from .canon import (BottleneckCanon, canonical_form, counterexample, equivalent_bottleneck,
                    symmetry_path)
from .copies import random_symmetric_copy
from .fibdim import jacobian_dimension
from .fiber import BottleneckFiber, BottleneckFiberComponent, fiber_bottleneck
from ._identifiability import identifiability, non_localizability_example
from ._structure import (Structure, Trace, dimension_formula, genericity, is_bottleneck,
                         is_generic, structure)

__all__ = ["Structure", "Trace", "BottleneckCanon", "genericity", "is_generic", "structure",
           "identifiability", "canonical_form", "equivalent_bottleneck", "counterexample",
           "dimension_formula", "symmetry_path", "is_bottleneck",
           "jacobian_dimension", "fiber_bottleneck", "BottleneckFiber", "BottleneckFiberComponent",
           "random_symmetric_copy", "non_localizability_example"]
