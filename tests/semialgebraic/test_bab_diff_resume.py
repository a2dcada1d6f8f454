"""Resumable objectives (issue 15): ``bound_objective(state=…)`` continues a cut search from its
open nodes, so a chain of tiny budgets grows exactly the tree of one long run, and ``diff``'s
rounds of slices give the sequential answer (the region walk's exact maximum)."""

from __future__ import annotations

import json

import pytest

from algebra.kernel import difference_network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab import diff as diff_mod
from semialgebraic.bab.search import Engine, bound_objective
from semialgebraic.budget import Budget
from semialgebraic.certificates import jsonable
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify

from .test_bab_budget import near_pair


def _objective(a, b, o, s):
    D = difference_network(a, b)
    Ws, bs = [W.to_rows() for W in D.weights], [list(v) for v in D.biases]
    c = [Q(0)] * a.n_outputs
    c[o] = Q(s)
    return D, Ws, bs, c, (lambda x: s * D.evaluate(x)[o])


@pytest.mark.parametrize("widths,seed,o,s", [([2, 4, 4, 1], 3, 0, -1), ([2, 5, 3, 2], 4, 1, 1),
                                             ([2, 4, 4, 2], 5, 0, 1)])
def test_a_chain_of_one_node_budgets_grows_the_tree_of_one_long_run(widths, seed, o, s):
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * 2
    _, Ws, bs, c, value = _objective(a, b, o, s)
    whole = bound_objective(Ws, bs, box, c, value, engine=Engine(Ws, bs, paired=True))
    assert whole.nodes > 3 and not whole.reason.startswith("max_regions")
    engine = Engine(Ws, bs, paired=True)
    ob = bound_objective(Ws, bs, box, c, value, engine=engine, budget=Budget(max_regions=1))
    uppers, calls = [ob.upper], 1
    while ob.reason.startswith("max_regions"):
        assert ob.reason.startswith("max_regions") and ob.upper is not None
        ob = bound_objective(Ws, bs, box, c, value, engine=engine, budget=Budget(max_regions=1),
                             state=ob.extra["state"])
        uppers.append(ob.upper)
        calls += 1
    assert calls > 2
    assert (ob.lower, ob.upper, ob.nodes) == (whole.lower, whole.upper, whole.nodes)
    assert ob.tree == whole.tree and ob.point == whole.point


def _tree_nodes(cert):
    """The number of nodes of every objective's tree in a ``bab_bound`` certificate."""
    count, stack = 0, [ob["tree"] for ob in cert["objectives"]]
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.get("children", ()))
    return count


class _NodeSlice(diff_mod._Slice):
    """A slice of one split (deterministic stand-in for ``_Slice``'s seconds; the rest is
    ``_Slice``'s own counting and outer-budget checks)."""

    __slots__ = ()

    def __init__(self, outer, seconds):  # pylint: disable=super-init-not-called
        Budget.__init__(self, None, 1)
        self.outer = outer


@pytest.mark.parametrize("widths,seed", [([2, 4, 4, 2], 5),
                                         pytest.param([2, 5, 3, 2], 4, marks=pytest.mark.slow)])
def test_rounds_of_one_split_slices_give_the_sequential_and_exact_answer(widths, seed, monkeypatch):
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * 2
    seq = diff_bounds(a, b, box, verify=False)
    exact = max_deviation(a, b, (Q(-1), Q(1)))
    calls = []
    real = diff_mod.bound_objective

    def spy(*args, **kw):
        calls.append(kw.get("state") is not None)
        return real(*args, **kw)
    monkeypatch.setattr(diff_mod, "_Slice", _NodeSlice)
    monkeypatch.setattr(diff_mod, "bound_objective", spy)
    sliced = diff_bounds(a, b, box, timeout=3600)
    assert exact.complete
    assert (sliced.lower, sliced.upper, sliced.complete) == (seq.lower, seq.upper, seq.complete)
    assert sliced.lower <= exact.value <= sliced.upper
    assert sliced.lower == exact.value or not seq.complete
    assert sum(calls) > 0 and len(calls) > 2 * a.n_outputs     # resumed runs happened
    # no node searched twice: the nodes counted are those of the trees (the two orders prune
    # at different best lower bounds of all objectives, so their trees may differ)
    assert sliced.nodes == _tree_nodes(sliced.certificate) and seq.nodes == _tree_nodes(seq.certificate)
    assert verify(json.loads(json.dumps(jsonable(sliced.certificate))))[0]


def test_a_resumed_run_whose_bound_rises_keeps_the_former_tree(monkeypatch):
    """A resumed run may end with a larger upper bound than the cut one had (a child's bound
    above its parent's); the former bound and a frozen copy of its tree stay the claim, and
    the certificate verifies."""
    a, b = near_pair([2, 4, 4, 2], 5)
    box = [(Q(-1), Q(1))] * 2
    real = diff_mod.bound_objective

    def raised(*args, **kw):
        ob = real(*args, **kw)
        if kw.get("state") is not None and not ob.complete:
            ob.upper = ob.upper + 1      # as if a child's bound rose (its leaves still valid)
            for leaf in ob.extra["state"]["leaves"]:
                leaf["bound"] = leaf["bound"] + 1
        return ob
    monkeypatch.setattr(diff_mod, "_Slice", _NodeSlice)
    monkeypatch.setattr(diff_mod, "bound_objective", raised)
    r = diff_bounds(a, b, box, budget=Budget(timeout=3600, max_regions=6), verify=False)
    assert r.upper is not None and not r.complete
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]
    exact = max_deviation(a, b, (Q(-1), Q(1))).value
    assert r.lower <= exact <= r.upper < exact + 1


def test_a_split_interrupted_between_its_children_resumes_to_the_same_tree():
    """A budget that ends inside a split (after the first child was opened and pushed): the
    node stays one open leaf, its first child leaves the heap too, and the resumed search
    grows the tree of one long run."""
    from semialgebraic.budget import BudgetExhausted
    a, b = near_pair([2, 4, 4, 1], 3)
    box = [(Q(-1), Q(1))] * 2
    _, Ws, bs, c, value = _objective(a, b, 0, -1)
    whole = bound_objective(Ws, bs, box, c, value, engine=Engine(Ws, bs, paired=True))

    class Stopping(Engine):
        calls = 0

        def node(self, *args, **kw):
            Stopping.calls += 1
            if Stopping.calls % 4 == 0:          # the second child of every other split
                raise BudgetExhausted("a slice ended")
            return super().node(*args, **kw)
    engine = Stopping(Ws, bs, paired=True)
    ob = bound_objective(Ws, bs, box, c, value, engine=engine, budget=Budget())
    stops = 0
    while ob.reason == "a slice ended" or ob.reason.startswith("interrupted"):
        stops += 1
        st = ob.extra["state"]
        assert all(any(lf is e[4] for lf in st["leaves"]) for e in st["heap"])   # open = leaves
        ob = bound_objective(Ws, bs, box, c, value, engine=engine, budget=Budget(),
                             state=ob.extra["state"])
    assert stops >= 2, ob.reason
    assert (ob.lower, ob.upper, ob.nodes, ob.tree) == (whole.lower, whole.upper, whole.nodes, whole.tree)


@pytest.mark.slow       # (15 CPU s)
def test_near_max_rounds_above_eight_inputs_keep_the_exact_answer(monkeypatch):
    """A 10-4-2 net and its float16 copy on [-1, 1]^10 in one-split slices: the objectives
    near the best lower bound get the wide walk (20 starts, 600 region LPs: ``primal_round``
    "near", only above 8 inputs), the interval holds the region walk's exact maximum and the
    certificate checks."""
    a, b = near_pair([10, 4, 2], 1)
    box = [(Q(-1), Q(1))] * 10
    exact = max_deviation(a, b, (Q(-1), Q(1)))
    assert exact.complete
    walks = []
    real = diff_mod.region_search

    def spy(*args, **kw):
        walks.append(kw.get("lps"))
        return real(*args, **kw)
    monkeypatch.setattr(diff_mod, "_Slice", _NodeSlice)
    monkeypatch.setattr(diff_mod, "region_search", spy)
    r = diff_bounds(a, b, box, timeout=3600)
    assert r.lower <= exact.value <= r.upper
    assert r.lower == exact.value                      # the walks find the exact maximum
    assert diff_mod._NEAR_LPS in walks                 # a near-max round ran
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]


def test_a_paused_run_resumes_to_the_tree_of_one_long_run():
    """``pause_at``: the run stops (``PAUSED``, not complete) once its largest open bound is at
    most the level and it split ``pause_after`` nodes; resumed with ``state`` it grows the tree
    and the answer of one long run (the exact maximum)."""
    from semialgebraic.bab.search import PAUSED
    a, b = near_pair([2, 4, 4, 1], 3)
    box = [(Q(-1), Q(1))] * 2
    _, Ws, bs, c, value = _objective(a, b, 0, -1)
    whole = bound_objective(Ws, bs, box, c, value, engine=Engine(Ws, bs, paired=True))
    engine = Engine(Ws, bs, paired=True)
    ob = bound_objective(Ws, bs, box, c, value, engine=engine, pause_at=whole.upper + 1, pause_after=1)
    pauses = 0
    while ob.reason == PAUSED:
        pauses += 1
        assert not ob.complete and ob.upper <= whole.upper + 1
        ob = bound_objective(Ws, bs, box, c, value, engine=engine, state=ob.extra["state"],
                             pause_at=whole.upper + 1, pause_after=1)
    assert pauses >= 2
    assert (ob.lower, ob.upper, ob.nodes, ob.complete) == (whole.lower, whole.upper, whole.nodes, whole.complete)
    assert ob.tree == whole.tree


def test_a_budget_spent_before_a_childs_lp_leaves_its_parent_a_leaf():
    """The budget ends after a split's first child, before the second child's LP: the split is
    undone (the parent keeps its LP bound) instead of a child with its symbolic bound, which
    held the upper bound at 1.28x its parent's on digits 64-32-10: the tree and bounds are
    those of a run of one split fewer."""
    a, b = near_pair([2, 4, 4, 1], 3)
    box = [(Q(-1), Q(1))] * 2
    _, Ws, bs, c, value = _objective(a, b, 0, -1)
    k = 3
    fewer = bound_objective(Ws, bs, box, c, value, engine=Engine(Ws, bs, paired=True),
                            budget=Budget(max_regions=k), input_splits=False)
    assert fewer.reason.startswith("max_regions") and fewer.nodes == 2 * k + 1
    budget = Budget()

    class Ending(Engine):
        calls = 0

        def node(self, *args, **kw):
            Ending.calls += 1
            if Ending.calls == 2 * k + 3:     # the second child of split k + 1: its LP is next
                budget.reason = "timeout of 1 s reached"
            return super().node(*args, **kw)
    ob = bound_objective(Ws, bs, box, c, value, engine=Ending(Ws, bs, paired=True), budget=budget,
                         input_splits=False)
    assert ob.reason.startswith("timeout") and not ob.complete
    assert (ob.lower, ob.upper, ob.nodes, ob.tree) == (fewer.lower, fewer.upper, fewer.nodes, fewer.tree)


@pytest.mark.slow       # (9 s at load 6)
def test_objective_scheduling_above_eight_inputs_gives_the_sequential_and_exact_answer(monkeypatch):
    """Above 8 inputs, after the first round only the objective of largest upper bound runs,
    paused below the next one's (one split per slice here): the answer is the sequential order's
    exact maximum, and the certificate checks."""
    from semialgebraic.bab.search import PAUSED
    a, b = near_pair([9, 8, 3], 2)
    box = [(Q(-1), Q(1))] * 9
    seq = diff_bounds(a, b, box, verify=False)
    assert seq.complete and seq.lower == seq.upper    # the exact maximum
    calls = []
    real = diff_mod.bound_objective

    def spy(*args, **kw):
        ob = real(*args, **kw)
        calls.append((kw.get("pause_at") is not None, ob.reason == PAUSED))
        return ob
    monkeypatch.setattr(diff_mod, "_Slice", _NodeSlice)
    monkeypatch.setattr(diff_mod, "bound_objective", spy)
    r = diff_bounds(a, b, box, timeout=3600)
    assert (r.lower, r.upper, r.complete) == (seq.lower, seq.upper, True)
    assert any(p for p, _ in calls)              # focused runs happened
    assert verify(json.loads(json.dumps(jsonable(r.certificate))))[0]
