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

from algebra.kernel import parameter_offsets
from algebra.network import Network

from ..bab.emptiness import (CONDITIONED_LPS, SHARED_LPS, decide_empty, decide_shared, decide_shared_shallow,
                             shared_reference, walk_witness)
from ..bab.signwalk import WALK_LPS
from ..budget import BudgetExhausted
from .jacobian_columns import exercise, incoming_directions, phase_search
from .sampling import spread_points

__all__ = ["prove_empty", "prove_suspects", "masked_candidates", "MASKED_LIMIT", "SUSPECT_LPS", "SUSPECT_NODES", "SUSPECT_NODES_TOTAL",
           "SUSPECT_CONDITIONED_TOTAL", "SUSPECT_WALK_LPS", "SUSPECT_SHARED_LPS",
           "coactive_targets", "SPREAD_WITNESSES", "SUSPECT_FIXED_LPS", "fixed_successor_candidates"]

SUSPECT_LPS = 3000
"""Exact LPs of the phase searches of one :func:`prove_suspects` call (nets with at most 48
hidden neurons; a third of it above): a count of work, so that what is decided depends only on
the seed and the work, never on the clock (an explicit timeout only stops the searches)."""

SUSPECT_NODES = 48
"""Branch-and-bound splits per emptiness question (:func:`semialgebraic.bab.emptiness.decide_empty`)."""

SUSPECT_NODES_TOTAL = 256
"""Branch-and-bound splits of all the questions of one :func:`prove_suspects` call."""

DEEPER_NODES = 192
"""Node cap of the second branch-and-bound try of a neuron question (never active / never
inactive) left open by the first pass, smallest certified bound first (:meth:`_Decider.deeper`):
one proof frees a whole neuron's parameters.  ACAS Xu (``--box file``): (2, 25) stays open at
max z <= 0.0136 after 48 splits and is proven never active within 192 nodes (213 nodes, 1.4 s
CPU); (3, 47) / (4, 14) only creep (0.30 -> 0.14, 3.18 -> 1.73 at 768 nodes, 24 / 45 s)."""

DEEPER_NODES_TOTAL = 768
"""Nodes of all the second tries of one :func:`prove_suspects` call (a count of work)."""


SUSPECT_CONDITIONED_TOTAL = 8000
"""Float LPs of the conditioned bound tightening (:func:`semialgebraic.bab.emptiness.
decide_conditioned`) of all the questions of one :func:`prove_suspects` call (at most
:data:`semialgebraic.bab.emptiness.CONDITIONED_LPS` per question): a count of work."""


SUSPECT_SHARED_LPS = 24000
"""Float LPs of the shared conditioned trees (:func:`semialgebraic.bab.emptiness.decide_shared`)
of one :func:`prove_suspects` call, all groups together: a count of work.  Seed 5 of
``benchmarks/bench_general.py`` (ten layer-1 neurons never co-active with (2, 29)) takes ~15 000."""

SUSPECT_WALK_LPS = 6000
"""Region-walk LPs (:func:`semialgebraic.bab.emptiness.walk_witness`) of the questions asked
after the branch-and-bound splits (:data:`SUSPECT_NODES_TOTAL`) are spent, all together: a count
of work (8-32-32-32-1 normal seed 5 of ``benchmarks/bench_general.py``: (1, k) and (2, 29) are
co-active for 22 of the 32 k, found in 0.03-0.1 s each)."""


SPREAD_WITNESSES = 4
"""Witnesses of one :func:`prove_suspects` call spread into inputs of their sign set (the first
ones: neurons never seen active come first)."""


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


def prove_suspects(net: Network, dom, evidence: dict, budget, lps: int | None = None,
                   nodes: int = SUSPECT_NODES, spread: int | None = None,
                   conditioned: int = SUSPECT_CONDITIONED_TOTAL, found=None) -> tuple:
    """Exact decisions for what the sampled inputs flag: neurons never seen active / inactive
    (branch and bound, :func:`semialgebraic.bab.emptiness.decide_empty`, then
    :func:`prove_empty`), weights never exercised or alone in a missing kernel direction (never
    co-active neurons by branch and bound, then :func:`exercise`), and directions inside one
    neuron's incoming parameters (:func:`incoming_directions`).

    The work is counted, never timed: *nodes* branch-and-bound splits per question (at most
    :data:`SUSPECT_NODES_TOTAL` in all) and *lps*
    exact LPs for all the phase searches (default :data:`SUSPECT_LPS`, a third of it above 48
    hidden neurons); *conditioned* float LPs of conditioned bound tightening for the questions
    the branch and bound leaves open (:func:`semialgebraic.bab.emptiness.decide_conditioned`,
    at most :data:`~semialgebraic.bab.emptiness.CONDITIONED_LPS` each).  *budget* (its timeout)
    only stops the searches early.  The
    branch-and-bound questions left open are recorded in ``evidence["open_emptiness"]`` as
    ``(targets, upper, splits)``: the certified bound ``max G <= upper`` (> 0) reached, so that
    the reason of an open interval says how far each proof is.  When *budget* runs out
    (:class:`~semialgebraic.budget.BudgetExhausted`), what was decided until then is returned.  *spread*: inputs spread from
    each of the first :data:`SPREAD_WITNESSES` witnesses (default
    :data:`semialgebraic.dimension.sampling.SPREAD`).  *found*, when given, is called with the
    witnesses found since its last call whenever the first passes move to another kind of
    question and at their end (the caller adds their rows at once: ``dim`` of the digits
    64-32-16-10 net on [0, 16]^64 with ``--timeout 60`` had its four weights' witnesses after
    0.6 s, then spent the rest on in-neuron directions and added them past the deadline); when
    it returns True (the caller's question is settled) the searches stop there.  The witnesses
    returned are all of them, those handed to *found* included.

    Returns
    -------
    (proven, witnesses, proofs)
        Proven facts for :func:`symmetry_directions` (``"dead"``, ``"active"``: flat neuron
        indices; ``"free"``: parameter indices; ``"incoming"``: directions per neuron;
        ``"emptiness"``: ``{(kind, key): proof}`` of the branch-and-bound proofs of dead /
        always-active neurons), exact witness inputs of exercised suspects, and the proofs that
        parameters are never exercised (phase-search or branch-and-bound form).
    """
    if lps is None:
        lps = SUSPECT_LPS if net.n_hidden <= 48 else SUSPECT_LPS // 3
    run = _Decider(net, dom, budget, lps, nodes)
    run.conditioned_left = conditioned
    run.spread = spread
    try:                                 # a spent budget keeps what is decided (each fact whole)
        all_tasks = _suspect_tasks(net, evidence)[:128]
        open_tasks = all_tasks
        for max_lps in (300, None):          # cheap decisions first, then the rest with the LPs left
            undecided = []
            for k, task in enumerate(open_tasks):
                if run.stopped():
                    break
                if k and task[0] != open_tasks[k - 1][0] and run.hand(found):
                    raise _Settled
                if max_lps == 300 and _layer(task) > run.layer_done:   # a layer's neurons done:
                    run.deeper(all_tasks)      # their second tries before the (costlier) next layer
                    run.layer_done = _layer(task)
                if not run.decide(task, max_lps):
                    undecided.append(task)
            if run.hand(found):
                raise _Settled
            open_tasks = undecided
        run.deeper(all_tasks)              # (only the questions left open with a bound)
        for l, i in masked_candidates(net, evidence, run.proven)[:MASKED_LIMIT]:
            if run.point or hasattr(budget, "exhausted") and budget.exhausted():
                break
            run.masked(l, i)
        for task in all_tasks:               # the questions never asked: the region walk alone
            if hasattr(budget, "exhausted") and budget.exhausted() or run.walk_left <= 0:
                break
            run.walk_only(task)
        run.shared([t for t in all_tasks if t[0] == "free"])
        for l, i in fixed_successor_candidates(net, evidence):
            if run.point or run.fixed_left <= 0 or hasattr(budget, "exhausted") and budget.exhausted():
                break
            run.fixed_successors(l, i)
    except (BudgetExhausted, _Settled):
        pass
    if run.open_questions:
        evidence["open_emptiness"] = run.open_questions
    proven = run.proven
    for key in ("emptiness", "fixed_successors", "masked"):
        if not proven[key]:
            del proven[key]
    return (proven if any(proven.values()) else {}), run.witnesses, run.proofs


MASKED_LIMIT = 16
"""Masked suspects (:func:`masked_candidates`) decided by one :func:`prove_suspects` call: one
branch-and-bound emptiness question per successor, inside the call's split budget
(:data:`SUSPECT_NODES_TOTAL`, :data:`SUSPECT_CONDITIONED_TOTAL`): a count of work."""


def masked_candidates(net: Network, evidence: dict, proven: dict | None = None) -> list:
    """Hidden neurons (l, i), layer l + 1 hidden, that the sampled inputs saw inactive but never
    inactive while a successor j with ``W_{l+1}[j, i] != 0`` was active
    (``evidence["off_successors"]``, float guesses), and not proven dead or always active: each
    may be *masked* (active wherever such a successor is, the bias trade of S6 without the
    pattern list; three-layer-fibers R35), decided by :meth:`_Decider.masked`."""
    proven = proven or {}
    names = [(l, i) for l, w in enumerate(net.widths[1:-1]) for i in range(w)]
    skip = {names[g] for key in ("dead", "active") for g in proven.get(key, ())}
    out = []
    for (l, i), (n_off, ever) in sorted((evidence.get("off_successors") or {}).items()):
        if l + 2 >= net.depth or not n_off or (l, i) in skip:
            continue
        V = net.weights[l + 1]
        succ = [j for j in range(V.nrows) if V[j, i] != 0]
        if succ and not any(bool(ever[j]) for j in succ):
            out.append((l, i))
    return out


SUSPECT_FIXED_LPS = 6000
"""Float LPs of the fixed-successor trees and walks (:meth:`_Decider.fixed_successors`) of one
:func:`prove_suspects` call, all candidates together: a count of work.  Seed 5 of
``benchmarks/bench_general.py``: the tree of (2, 29) (1-based layer) against its 23 successors
of fixed float sign stays open on the face tau = 1 after 20 000 LPs (37 s CPU) and after 60 000
(137 s CPU), so a larger share would only slow ``dim`` down; the planted nets of the tests
need ~30."""

FIXED_SAMPLES = 64
"""Float inputs spread from each of the first witnesses of a rare neuron's active set, whose
next-layer signs propose the fixed successors (:meth:`_Decider.fixed_successors`)."""


FIXED_WALK_LPS = 200
"""Region-walk LPs per successor of :meth:`_Decider.fixed_successors` spent looking for an input
where the rare neuron is active and the successor has the other sign than the floats saw."""


def fixed_successor_candidates(net: Network, evidence: dict, limit: int = 4) -> list:
    """Up to *limit* neurons (l, i), layer l + 1 hidden, whose outgoing weights ``W_{l+1}[·, i]``
    hold two or more parameters of one missing kernel direction (``evidence["missing"]``, a
    support mod p; most such parameters first): their columns may be proportional wherever (l, i)
    is active (a rare neuron whose successors' signs are fixed there,
    :func:`semialgebraic.dimension.upper.fixed_successor_vectors`).  The supports are reduced
    modulo the proven directions (scalings mix in), so the column need not hold the whole
    support."""
    offs = parameter_offsets(net)
    count: dict = {}
    for sup in evidence.get("missing") or []:
        per: dict = {}
        for p_ in sup:
            m = max(t for t in range(net.depth) if offs[t] <= p_)
            n_in, n_out = net.widths[m], net.widths[m + 1]
            if 1 <= m <= net.depth - 2 and p_ < offs[m] + n_in * n_out:
                key = (m - 1, (p_ - offs[m]) % n_in)
                per[key] = per.get(key, 0) + 1
        for key, n in per.items():
            if n >= 2:
                count[key] = max(count.get(key, 0), n)
    out = sorted(count, key=lambda k: (-count[k], k))[:limit]
    for key in _pool_candidates(net, evidence.get("successors") or {}):
        if len(out) >= limit:
            break
        if key not in out:
            out.append(key)
    return out


def _pool_candidates(net: Network, seen: dict) -> list:
    """Neurons whose successors seen always on / never on where they were active (float pool,
    ``evidence["successors"]`` of :mod:`semialgebraic.dimension.sampling`) would give a
    direction other than unit vectors (two always-on successors whose outgoing columns are
    dependent, mod floats), the rarest first."""
    import numpy as np
    out = []
    for (l, i), (n, on, off) in seen.items():
        if l + 2 >= net.depth or not n:
            continue
        F = np.flatnonzero(on)
        if len(F) < 2:
            continue
        V = np.array([[float(v) for v in r] for r in net.weights[l + 2].to_rows()])[:, F]
        if np.linalg.matrix_rank(V) < len(F):
            out.append((n, l, i))
    return [(l, i) for _, l, i in sorted(out)]


def coactive_targets(net: Network, parameter: int) -> dict | None:
    """``{(l-1, k): 1, (l, i): 1}`` when *parameter* is a weight W_l[i,k] between two hidden
    layers (0-based weight index l, 1 <= l <= L-2): it is never exercised when the two neurons
    are never active together (∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k]); else None."""
    offs = parameter_offsets(net)
    l = max(t for t in range(net.depth) if offs[t] <= parameter)
    n_in, n_out = net.widths[l], net.widths[l + 1]
    q = parameter - offs[l]
    if not 1 <= l <= net.depth - 2 or q >= n_in * n_out:
        return None
    i, k = divmod(q, n_in)
    return {(l - 1, k): 1, (l, i): 1}


def _suspect_tasks(net, evidence) -> list:
    """The tasks in order: neurons never seen on / off (one decision settles all their
    parameters: a proof frees them, a witness and the inputs spread from it exercise them),
    parameters alone in a missing kernel direction (exactly the gap), other weights never
    exercised, then directions inside one neuron's incoming parameters."""
    import numpy as np
    names = [(l, i) for l, w in enumerate(net.widths[1:-1]) for i in range(w)]
    offs = parameter_offsets(net)
    params = [sup[0] for sup in evidence.get("missing") or [] if len(sup) == 1]
    for l, i, k in evidence.get("unexercised") or []:
        n_in = net.widths[l]
        params.append(offs[l] + (i * n_in + k if k < n_in else net.widths[l + 1] * n_in + i))
    tasks = [("dead", int(g), {names[g]: 1}) for g in np.flatnonzero(evidence.get("never_on", []))]
    tasks += [("active", int(g), {names[g]: -1}) for g in np.flatnonzero(evidence.get("never_off", []))]
    tasks += [("free", p_, None) for p_ in dict.fromkeys(params)]
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


def _layer(task) -> int:
    """The hidden layer of a neuron task (dead / active), -1 for the others."""
    kind, _, targets = task
    return next(iter(targets))[0] if kind in ("dead", "active") else -1


class _Settled(Exception):
    """The caller of :func:`prove_suspects` has its answer (its *found* returned True)."""


class _Decider:
    """The state of one :func:`prove_suspects` call: facts, witnesses, proofs, the work left."""

    def __init__(self, net, dom, budget, lps, nodes):
        self.net, self.dom, self.budget = net, dom, budget
        self.lps_left, self.nodes = lps, nodes
        self.nodes_left = max(nodes, SUSPECT_NODES_TOTAL)
        self.deadline = _deadline(budget)
        self.proven: dict = {"dead": set(), "active": set(), "free": set(), "incoming": {},
                             "emptiness": {}}
        self.witnesses: list = []
        self.handed = 0                      # witnesses given to prove_suspects' *found*
        self.proofs: list = []
        self.point = isinstance(dom, tuple) and dom[0] == dom[1]
        self.asked: set = set()              # branch-and-bound questions already asked
        self.open_questions: list = []       # (targets, certified upper > 0, splits) left open
        self.spread_left = SPREAD_WITNESSES  # witnesses spread into many inputs (the first ones)
        self.spread = None                   # inputs per spread witness (None: the default)
        self.conditioned_left = SUSPECT_CONDITIONED_TOTAL   # float LPs of conditioned tightening
        self.walk_left = SUSPECT_WALK_LPS    # region-walk LPs of the questions past the splits
        self.shared_left = SUSPECT_SHARED_LPS   # float LPs of the shared conditioned trees
        self.witnessed: set = set()          # questions with an exact witness
        self.fixed_left = SUSPECT_FIXED_LPS  # float LPs of the fixed-successor trees
        self.proven["fixed_successors"] = {}
        self.proven["masked"] = {}
        self.deeper_left = DEEPER_NODES_TOTAL   # nodes of the second tries (:meth:`deeper`)
        self.retried: set = set()            # neuron questions given their second try
        self.layer_done = 0                  # the first pass's neuron questions reached this layer

    def hand(self, found) -> bool:
        """Give the witnesses found since the last call to *found* (none: nothing to do);
        True when it says the caller is settled."""
        if found is None or len(self.witnesses) <= self.handed:
            return False
        new, self.handed = self.witnesses[self.handed:], len(self.witnesses)
        return bool(found(new))

    def stopped(self) -> bool:
        return self.lps_left <= 0 or (hasattr(self.budget, "exhausted") and self.budget.exhausted())

    def max_lps(self, cap) -> int:
        return max(0, self.lps_left if cap is None else min(cap, self.lps_left))

    def bab(self, targets):
        """Branch-and-bound emptiness of *targets* (once per question): True / False / None.
        When the splits are spent, the region walk alone (:func:`walk_witness`, within
        :data:`SUSPECT_WALK_LPS`) may still find a witness."""
        key = tuple(sorted(targets.items()))
        if self.point or key in self.asked:
            return None, None
        if self.nodes_left <= 0:
            if self.walk_left <= 0:
                return None, None
            self.asked.add(key)
            r, used = walk_witness(self.net, self.dom, targets, lps=min(WALK_LPS, self.walk_left))
            self.walk_left -= used
            if r is None:
                return None, None
            self.witness(r.witness, targets)
            return False, None
        self.asked.add(key)
        r = decide_empty(self.net, self.dom, targets, nodes=min(self.nodes, self.nodes_left),
                         budget=self.budget, conditioned=max(0, min(CONDITIONED_LPS, self.conditioned_left)))
        self.nodes_left -= max(0, r.nodes - 1) // 2       # splits done (two nodes each; 0: none)
        self.conditioned_left -= r.lps
        if r.empty is False:
            self.witness(r.witness, targets)
        elif r.empty is None and r.upper is not None:
            self.open_questions.append((dict(targets), r.upper, (r.nodes - 1) // 2))
        return r.empty, (r.proof(targets) if r.empty else None)

    def deeper(self, tasks) -> None:
        """A second branch-and-bound try, :data:`DEEPER_NODES` nodes each (:data:`DEEPER_NODES_TOTAL`
        in all), for the neuron questions of *tasks* (dead / always active) that the first pass
        left open with a certified bound and that had none yet, smallest bound first; a proof is
        recorded as in :meth:`decide`, a witness kept, a better open bound replaces the first
        one.  Called after each layer's first tries (a shallow neuron's second try comes before
        the costlier questions of the deeper layers) and at the end."""
        bounds = {tuple(sorted(t.items())): (u, k) for k, (t, u, _) in enumerate(self.open_questions)}
        tries = sorted((bounds[q][0], kind, key, targets) for kind, key, targets in tasks
                       if kind in ("dead", "active")
                       and (q := tuple(sorted(targets.items()))) in bounds and q not in self.retried)
        try:                             # (a spent budget raises: the list stays well formed)
            for _, kind, key, targets in tries:
                if (self.deeper_left < 3 or self.point
                        or hasattr(self.budget, "exhausted") and self.budget.exhausted()):
                    break                # (its own count of nodes: not the phase searches' LPs)
                self.retried.add(tuple(sorted(targets.items())))
                r = decide_empty(self.net, self.dom, targets, nodes=min(DEEPER_NODES, self.deeper_left),
                                 budget=self.budget, conditioned=0)
                self.deeper_left -= max(1, r.nodes)
                k = bounds[tuple(sorted(targets.items()))][1]
                if r.empty is False:
                    self.witness(r.witness, targets)
                elif r.empty:
                    self.proven[kind].add(key)
                    self.proven["emptiness"][(kind, key)] = r.proof(targets)
                if r.empty is not None:
                    self.open_questions[k] = None
                elif r.upper is not None and r.upper < self.open_questions[k][1]:
                    self.open_questions[k] = (dict(targets), r.upper, (r.nodes - 1) // 2)
        finally:
            self.open_questions = [q for q in self.open_questions if q is not None]

    def walk_only(self, task) -> None:
        """The region walk (:func:`walk_witness`) on the question of *task* when it was never
        asked: a witness is kept (with the inputs spread from it), nothing is proven."""
        kind, key, targets = task
        if kind == "free":
            targets = coactive_targets(self.net, key)
        if targets is None or kind == "incoming" or self.point:
            return
        qkey = tuple(sorted(targets.items()))
        if qkey in self.asked:
            return
        self.asked.add(qkey)
        r, used = walk_witness(self.net, self.dom, targets, lps=min(WALK_LPS, self.walk_left))
        self.walk_left -= used
        if r is not None:
            self.witness(r.witness, targets)

    def witness(self, x, targets) -> None:
        """Keep the exact witness *x* of *targets* and inputs spread over the same sign set
        (:func:`spread_points`): a rarely active neuron's parameters need rows at many of its
        inputs, not one region's."""
        self.witnesses.append(x)
        self.witnessed.add(tuple(sorted(targets.items())))
        if self.spread_left > 0:
            self.spread_left -= 1
            self.witnesses.extend(spread_points(self.net, self.dom, x, targets, count=self.spread))

    def decide(self, task, cap) -> bool:
        """Run one task, recording its outcome; False when it stays undecided."""
        net, dom = self.net, self.dom
        kind, key, targets = task
        if kind == "incoming":
            res = incoming_directions(net, key[0], key[1], domain=dom, max_lps=self.max_lps(cap),
                                      deadline=self.deadline)
            self.lps_left -= self.max_lps(cap) if res is None else 0
            if res is None:
                return False
            dirs, pts = res
            if dirs:
                self.proven["incoming"][key] = dirs
            self.witnesses.extend(pts)
            return True
        if kind != "free":
            empty, proof = self.bab(targets)
            if empty is not None:
                if empty:
                    self.proven[kind].add(key)
                    self.proven["emptiness"][(kind, key)] = proof
                return True
            found, w, _, _, used = phase_search(net, dom, targets, None, max_lps=self.max_lps(cap),
                                                deadline=self.deadline, record=False,
                                                upto=max(t for t, _ in targets))
            self.lps_left -= used
            if found and w is not None:
                self.witness(w, targets)
            if found is False and not self.point:
                self.proven[kind].add(key)
            return found is not None and not self.point
        pair = coactive_targets(net, key)
        if pair is not None:
            empty, proof = self.bab(pair)
            if empty:
                self.proven["free"].add(key)
                self.proofs.append({"parameter": key, **proof})
                return True
            if empty is False:
                return True
        e = exercise(net, key, domain=dom, max_lps=self.max_lps(cap), deadline=self.deadline)
        self.lps_left -= e.lps
        if e.exercised is False:
            self.proven["free"].add(key)
            self.proofs.append(e.proof)
        elif e.exercised:
            self.witness(e.witness, pair or {})
        return e.exercised is not None


    def masked(self, l: int, i: int) -> None:
        """Masked suspect (l, i): for every successor j with ``W_{l+1}[j, i] != 0`` not proven
        dead, the branch-and-bound emptiness of {z_l[i] < 0, z_{l+1}[j] > 0} (:meth:`bab`; a
        kink z_l[i] = 0 at a differentiable input is unseen from above, so the strict side
        suffices: three-layer-fibers R35).  All proven: ``proven["masked"][(l, i)]`` = the
        proofs (the bias trade of S6); a witness or an open question: nothing."""
        V = self.net.weights[l + 1]
        names = [(t, k) for t, w in enumerate(self.net.widths[1:-1]) for k in range(w)]
        dead = {names[g] for g in self.proven["dead"]}
        proofs = []
        for j in range(V.nrows):
            if V[j, i] == 0 or (l + 1, j) in dead:
                continue
            empty, proof = self.bab({(l, i): -1, (l + 1, j): 1})
            if not empty:
                return
            proofs.append(proof)
        if proofs:
            self.proven.setdefault("masked", {})[(l, i)] = proofs

    def fixed_successors(self, l: int, i: int) -> None:
        """Neuron (l, i) and its successors (layer l + 1): the float signs of the successors at
        inputs where (l, i) is active (the witnesses of that set, spread by
        :func:`spread_points`; a region walk when there is none) propose a fixed sign for some of
        them; one tree of :func:`semialgebraic.bab.emptiness.decide_shared_shallow` conditioned
        on ``z_l[i] >= 0`` alone, its outputs ``−s_j·z_{l+1}[j]``, proves them all (every leaf
        empty or every output ``<= 0``).  Proven: ``proven["fixed_successors"][(l, i)] =
        {"signs", "proof"}`` (0 for the successors left out)."""
        import numpy as np
        net, dom = self.net, self.dom
        Ws = [np.array([[float(v) for v in r] for r in W.to_rows()]).reshape(W.nrows, W.ncols) for W in net.weights]
        bs = [np.array([float(v) for v in b]) for b in net.biases]

        def pre(X):                             # float pre-activations of layers l and l + 1 (guesses)
            h = np.array([[float(v) for v in x] for x in X])
            for t in range(l + 2):
                z = h @ Ws[t].T + bs[t]
                if t == l:
                    zl = z[:, i]
                h = np.maximum(z, 0.0)
            return zl, z
        cand = [self.witnesses[k] for k in np.flatnonzero(pre(self.witnesses)[0] > 0)] if self.witnesses else []
        on = [x for x in cand if net.preactivations(x)[l][i] > 0][:SPREAD_WITNESSES]
        if not on:
            r, used = walk_witness(net, dom, {(l, i): 1}, lps=min(WALK_LPS, self.fixed_left))
            self.fixed_left -= used
            if r is None:
                return
            on = [r.witness]
        X = list(on)
        for x in on:
            X += spread_points(net, dom, x, {(l, i): 1}, count=FIXED_SAMPLES)
        zl, Z = pre(X)
        Z = Z[zl > 0]
        if not len(Z):
            return
        signs = [1 if (Z[:, j] > 0).all() else -1 if (Z[:, j] < 0).all() else 0 for j in range(Z.shape[1])]
        for j, s in enumerate(signs):           # a region walk to the other sign refutes a float guess
            if not s or self.fixed_left <= 0:
                continue
            r, used = walk_witness(net, dom, {(l, i): 1, (l + 1, j): -s}, lps=min(FIXED_WALK_LPS, self.fixed_left))
            self.fixed_left -= used
            if r is not None:                   # (l + 1, j) switches there
                signs[j] = 0
        if not any(signs):
            return
        try:
            res, used = decide_shared_shallow(net, dom, (l, i, 1), [(l + 1, j, -s) for j, s in enumerate(signs) if s],
                                              lps=min(SHARED_LPS, self.fixed_left))
        except BudgetExhausted:
            return
        self.fixed_left -= used
        if res is not None:
            self.proven["fixed_successors"][(l, i)] = {"signs": signs, "proof": res}

    def shared(self, tasks) -> None:
        """Never-co-active pairs left open that share their deeper neuron (two or more, the
        shallow ones in one layer), largest group first: one tree of
        :func:`semialgebraic.bab.emptiness.decide_shared` per group, within
        :data:`SUSPECT_SHARED_LPS` float LPs in all; a proved group frees every weight of it.  Then
        the mirror: the pairs left that share their *shallow* neuron (the deeper ones in one
        layer), one tree of :func:`semialgebraic.bab.emptiness.decide_shared_shallow` per group."""
        for mirror in (False, True):
            groups: dict = {}
            for _, key, _ in tasks:
                pair = coactive_targets(self.net, key)
                if key in self.proven["free"] or pair is None or tuple(sorted(pair.items())) in self.witnessed:
                    continue
                (a, sa), (c, sc) = sorted(pair.items())
                if mirror:                         # the shallow neuron shared: decide_shared_shallow
                    groups.setdefault((a, sa, c[0]), []).append((key, c, sc))
                else:
                    groups.setdefault((c, sc, a[0]), []).append((key, a, sa))
            for (c, sc, _), members in sorted(groups.items(), key=lambda kv: -len(kv[1])):
                if len(members) < 2 or self.point or self.shared_left <= 0 or (
                        hasattr(self.budget, "exhausted") and self.budget.exhausted()):
                    continue
                decide = decide_shared_shallow if mirror else decide_shared
                try:
                    res, used = decide(self.net, self.dom, (c[0], c[1], sc),
                                       [(a[0], a[1], sa) for _, a, sa in members],
                                       lps=min(SHARED_LPS, self.shared_left))
                except BudgetExhausted:
                    return
                self.shared_left -= used
                if res is None:
                    continue
                for key, a, sa in members:         # one shared proof object for the group
                    self.proven["free"].add(key)
                    self.proofs.append({"parameter": key, **shared_reference(res, (a[0], a[1], sa))})
                    self.open_questions = [q for q in self.open_questions
                                           if sorted(q[0].items()) != sorted({a: sa, c: sc}.items())]


def _deadline(budget) -> float | None:
    """The monotonic time at which *budget*'s timeout ends (a hard stop only), or None."""
    if getattr(budget, "timeout", None) is None:
        return None
    return budget.start + budget.timeout
