r"""Exact decisions for what the sampled inputs of the functional dimension flag.

The float pool of :mod:`semialgebraic.dimension.sampling` names *suspects*: neurons never seen
active (dead?) or never seen inactive (always active?), weights never exercised, and kernel
directions mod p that the proven symmetries do not explain.  Each is decided exactly here, within
a time budget: :func:`prove_empty` (a sign condition on neurons has no differentiable input: the
phase search of :func:`~semialgebraic.dimension.jacobian_columns.phase_search` refutes every
branch), :func:`~semialgebraic.dimension.jacobian_columns.exercise` (a parameter's Jacobian column
is zero at every differentiable input, or an exact witness where it is not) and
:func:`~semialgebraic.dimension.jacobian_columns.incoming_directions` (the span of a neuron's
inputs on its active set).  The proven facts lower the upper bound (:func:`symmetry_directions
<semialgebraic.dimension.directions.symmetry_directions>`), the witnesses raise the lower bound.
"""

from __future__ import annotations

import time

from algebra.kernel import parameter_offsets
from algebra.network import Network

from .jacobian_columns import exercise, incoming_directions, phase_search

__all__ = ["prove_empty", "prove_suspects"]


def prove_empty(net: Network, dom, targets: dict, max_lps: int = 400, deadline: float | None = None):
    """Decide exactly whether no differentiable input of the domain has sign(z_t[j]) = s for
    every ((t, j), s) in *targets*: True (proven empty: every branch of the activation-pattern
    tree up to the deepest target is cut by an infeasible exact LP), False (an exact witness
    exists) or None (budget: *max_lps* LPs or the *deadline*; a one-point box, where strict
    systems say nothing; or a branch where a neuron's affine form vanishes identically, which
    proves nothing about the inputs there)."""
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        return None
    found = phase_search(net, dom, targets, None, max_lps=max_lps, deadline=deadline, record=False,
                         upto=max(t for t, _ in targets))[0]
    return None if found is None else not found


def prove_suspects(net: Network, dom, evidence: dict, budget, seconds: float = 3.0) -> tuple:
    """Exact decisions (within *seconds* and the budget) for what the sampled inputs flag:
    neurons never seen active / inactive (:func:`prove_empty`), parameters never exercised or
    alone in a missing kernel direction (:func:`exercise`), and directions inside one neuron's
    incoming parameters (:func:`incoming_directions`).

    Returns
    -------
    (proven, witnesses, proofs)
        Proven facts for :func:`symmetry_directions` (``"dead"``, ``"active"``: flat neuron
        indices; ``"free"``: parameter indices; ``"incoming"``: directions per neuron), exact
        witness inputs of exercised suspects, and the exercise proofs.
    """
    left = budget.remaining() if hasattr(budget, "remaining") else None
    # default: a few seconds; with an explicit timeout, up to half of what is left of it
    stop = time.monotonic() + (seconds if left is None else max(0.0, left) / 2)
    proven: dict = {"dead": set(), "active": set(), "free": set(), "incoming": {}}
    witnesses: list = []
    proofs: list = []
    open_tasks = _suspect_tasks(net, evidence)[:128]
    for max_lps in (300, 10**6):          # cheap decisions first, then the rest with the time left
        undecided = []
        for task in open_tasks:
            if time.monotonic() > stop:
                break
            if not _decide(net, dom, task, max_lps, stop, proven, witnesses, proofs):
                undecided.append(task)
        open_tasks = undecided
    return (proven if any(proven.values()) else {}), witnesses, proofs


def _suspect_tasks(net, evidence) -> list:
    """The tasks in order: parameters alone in a missing kernel direction (exactly the gap),
    other weights never exercised, neurons never seen on / off, then directions inside one
    neuron's incoming parameters."""
    import numpy as np
    names = [(l, i) for l, w in enumerate(net.widths[1:-1]) for i in range(w)]
    offs = parameter_offsets(net)
    params = [sup[0] for sup in evidence.get("missing") or [] if len(sup) == 1]
    for l, i, k in evidence.get("unexercised") or []:
        n_in = net.widths[l]
        params.append(offs[l] + (i * n_in + k if k < n_in else net.widths[l + 1] * n_in + i))
    tasks = [("free", p_, None) for p_ in dict.fromkeys(params)]
    for g in np.flatnonzero(evidence.get("never_on", [])):
        tasks.append(("dead", int(g), {names[g]: 1}))
    for g in np.flatnonzero(evidence.get("never_off", [])):
        tasks.append(("active", int(g), {names[g]: -1}))
    L = net.depth
    for sup in evidence.get("missing") or []:        # directions inside one neuron's incoming
        ls = {max(u for u in range(L) if offs[u] <= p_) for p_ in sup}
        l = ls.pop()
        if ls or not 1 <= l <= L - 2:
            continue
        n_in, n_out = net.widths[l], net.widths[l + 1]
        ii = {(p_ - offs[l]) // n_in if p_ - offs[l] < n_out * n_in else p_ - offs[l] - n_out * n_in
              for p_ in sup}
        task = ("incoming", (l, ii.pop()), None)
        if not ii and task not in tasks:
            tasks.append(task)
    return tasks


def _decide(net, dom, task, max_lps, stop, proven, witnesses, proofs) -> bool:
    """Run one task, recording its outcome; False when it stays undecided."""
    kind, key, targets = task
    if kind == "incoming":
        res = incoming_directions(net, key[0], key[1], domain=dom, max_lps=max_lps, deadline=stop)
        if res is None:
            return False
        dirs, pts = res
        if dirs:
            proven["incoming"][key] = dirs
        witnesses += list(pts)
        return True
    if kind != "free":
        r = prove_empty(net, dom, targets, max_lps=max_lps, deadline=stop)
        if r is True:
            proven[kind].add(key)
        return r is not None
    e = exercise(net, key, domain=dom, max_lps=max_lps, deadline=stop)
    if e.exercised is False:
        proven["free"].add(key)
        proofs.append(e.proof)
    elif e.exercised:
        witnesses.append(e.witness)
    return e.exercised is not None
