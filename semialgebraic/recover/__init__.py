"""Black-box recovery (three-layer-fibers R21): a network known only through exact queries.

:func:`recover` takes an *oracle* — any callable returning the exact rational outputs at a
rational input, nothing else — and recovers the first-layer bend hyperplanes exactly and, for a
one-hidden-layer network, the whole network up to its function class (S1 + S2 and the flips a
linear remainder allows).  :class:`NetworkOracle` wraps a weight file as such a black box and
counts the queries.  Module: :mod:`semialgebraic.recover.bends`.
"""

from .bends import NetworkOracle, Recovery, recover

__all__ = ["recover", "Recovery", "NetworkOracle"]
