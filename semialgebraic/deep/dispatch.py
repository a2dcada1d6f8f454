"""``identifiability`` for any ReLU network: the public entry point, dispatching as ``netfibers
identify`` does.

* one hidden layer: three-layer-fibers R41 and R42 (:func:`~semialgebraic.shallow.identifiability.identifiability_shallow`);
* a three-layer bottleneck (two hidden layers, ``n1 <= d``): R18
  (:func:`semialgebraic.bottleneck.identifiability`); when it is not generic (undecided), a
  planted copy may still show non-identifiability;
* anything else: planted copies (:func:`.planted.identifiability_deep`), else undecided.

A library user calling ``identifiability`` on a one-hidden-layer net got the bottleneck's
"non-generic" verdict of its first genericity condition (session 37).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.network import Network

from ..budget import api_boundary
from ..verdict import Verdict

__all__ = ["identifiability"]


@api_boundary
def identifiability(net: Network, *, verify: bool = True, trace=None, budget=None,
                    timeout: float | None = None) -> Verdict:
    """Is *net* identifiable up to permutations and positive scalings of its hidden neurons (S1 +
    S2)?  ``answer`` True / False with a certificate, or None (undecided: the reason says why).

    *verify*: re-check the certificate of a theory's verdict before returning it (the planted
    copies are always checked); *trace*: the bottleneck's :class:`~semialgebraic.bottleneck.Trace`
    (what was established, for a caller stopped by a budget); *budget*: a
    :class:`~semialgebraic.budget.Budget` for the searches that take one; *timeout*: seconds,
    the same as ``budget=Budget(timeout)`` (as ``equivalent`` takes it).

    >>> from algebra.network import Network
    >>> identifiability(Network.from_rows([[[1, 2], [2, 4], [1, -1]], [[1, 1, 1]]],
    ...                                   [[1, 2, 0], [0]])).answer      # a split neuron
    False
    """
    from ..budget import Budget
    if not isinstance(net, Network):         # (a Block gave an AttributeError: API audit)
        raise InputError(f"identifiability takes a Network, got {type(net).__name__}"
                         + (" (blocks: absorbable)" if type(net).__name__ == "Block" else ""))
    if timeout is not None and budget is None:
        budget = Budget(timeout)
    if budget is not None and budget.timeout is not None:
        # the budget watched (checkpoint) and an alarm at its deadline, as `identify --timeout`
        # runs it: a library call with timeout=10 on a 32-1024-4 net ran > 120 s inside the
        # exact LP of the flip sets' positive functional, which takes no budget (s48 API audit F8)
        import time
        from ..budget import BudgetExhausted, alarm_at
        try:
            with budget.active(), alarm_at(time.monotonic() + max(0.0, budget.remaining()),
                                           "identifiability"):
                return _identifiability(net, verify, trace, budget)
        except BudgetExhausted:
            return Verdict(None, "identifiability", "undecided: "
                           + (budget.reason or f"timeout of {budget.timeout:g} s reached"), ())
    return _identifiability(net, verify, trace, budget)


def _identifiability(net, verify, trace, budget) -> Verdict:
    from ..verdict import with_reader_hypotheses
    return with_reader_hypotheses(_decided(net, verify, trace, budget), net)


def _decided(net, verify, trace, budget) -> Verdict:
    from ..bottleneck import identifiability as bottleneck_identifiability, is_bottleneck
    from .planted import identifiability_deep
    if net.depth == 2:
        from ..shallow.identifiability import identifiability_shallow
        return identifiability_shallow(net, verify=verify, budget=budget)
    if not is_bottleneck(net):
        return identifiability_deep(net, budget=budget)
    v = bottleneck_identifiability(net, verify=verify, trace=trace)
    if v.answer is not None:
        return v
    w = identifiability_deep(net, budget=budget, context=v.reason.removeprefix("undecided: "))
    return w if w.answer is not None else v
