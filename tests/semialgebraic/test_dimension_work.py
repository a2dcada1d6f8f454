"""``dim`` sampling is deterministic given the seed and the work done (issue 15, part 3): no
sampling step reads the clock, the budget stops sampling between whole batches, and the result
states the work done."""

from __future__ import annotations

import random

import pytest
from fractions import Fraction

import semialgebraic.dimension.sampling as sampling
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.budget import Budget
from semialgebraic.dimension import functional_dimension


def _net(widths, seed) -> Network:
    rng = random.Random(seed)
    return Network.from_rows(
        [[[Fraction(rng.randint(-8, 8), 4) for _ in range(a)] for _ in range(b)] for a, b in zip(widths, widths[1:])],
        [[Fraction(rng.randint(-4, 4), 4) for _ in range(b)] for b in widths[1:]])


def test_sampling_reads_no_clock():
    assert not hasattr(sampling, "time") and sampling.WALK_STEPS > 0


def test_same_seed_same_work_same_result():
    net = _net([3, 6, 6, 1], 4)
    a = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=3)
    b = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=3, budget=Budget(None, None))
    assert a.work == b.work and (a.lower, a.upper) == (b.lower, b.upper) and a.inputs == b.inputs
    assert a.work["points"] == len(a.inputs) > 0 and a.work["batches"] >= 1
    # the inputs of each batch (above RANK_ONLY with a timeout the clock sizes them); witnesses
    # of the exact searches come on top
    assert len(a.work["batch_sizes"]) == a.work["batches"] and sum(a.work["batch_sizes"]) <= len(a.inputs)
    points = f"{a.work['points']:,}".replace(",", " ")
    assert a.work_text().startswith(f"{points} points in {a.work['batches']} batch")


def _signs(net, x) -> dict:
    """Exact signs of every hidden pre-activation at x (Fraction arithmetic, the oracle)."""
    h = [Fraction(str(v)) for v in x]
    out = {}
    for t, (W, b) in enumerate(zip(net.weights[:-1], net.biases[:-1])):
        z = [sum((Fraction(str(W[j, k])) * h[k] for k in range(len(h))), Fraction(0)) + Fraction(str(b[j]))
             for j in range(W.nrows)]
        out.update({(t, j): (v > 0) - (v < 0) for j, v in enumerate(z)})
        h = [max(v, Fraction(0)) for v in z]
    return out


def test_spread_points_stay_in_the_sign_set_and_spread():
    """From one exact witness of a rarely active layer-2 neuron (and of a pair), the seeded walk
    returns the asked number of inputs of the domain, every one with the target signs (exact,
    Fraction oracle), in several activation regions, the same on a second call."""
    net = _net([3, 8, 8, 1], 11)
    rng = random.Random(0)
    for dom, targets in [(None, {(1, 2): 1}), ((-1, 1), {(1, 2): 1}), (None, {(0, 1): 1, (1, 2): 1}),
                         ("orthant", {(1, 2): 1})]:
        lo, hi = (dom if isinstance(dom, tuple) else (0 if dom == "orthant" else -4, 4))
        witness = None
        for _ in range(4000):
            x = [Fraction(rng.randint(lo * 64, hi * 64), 64) for _ in range(3)]
            s = _signs(net, x)
            if all(s[k] == v for k, v in targets.items()):
                witness = x
                break
        assert witness is not None
        pts = sampling.spread_points(net, dom, witness, targets, count=20)
        assert len(pts) == 20 and pts == sampling.spread_points(net, dom, witness, targets, count=20)
        for p in pts:
            s = _signs(net, p)
            assert all(s[k] == v for k, v in targets.items())
            if dom == "orthant":
                assert min(p) >= 0
            elif dom is not None:
                assert all(lo <= v <= hi for v in p)
        assert len({tuple(sorted(_signs(net, p).items())) for p in pts}) >= 3
    off = next(x for x in ([Fraction(i, 4), 0, 0] for i in range(-16, 17)) if _signs(net, x)[(1, 2)] < 1)
    assert sampling.spread_points(net, None, off, {(1, 2): 1}) == []     # not a witness: nothing


def test_spread_count_is_a_count_of_work():
    """The inputs spread from each witness depend on the kernel's size and the timeout's value,
    never on the clock: SPREAD without a timeout; the same timeout gives the same count (one
    budget created 0.1 s later); a larger timeout or a smaller kernel never gives fewer; always
    between SPREAD and SPREAD_MAX, and the affordable count when that lies in between."""
    import time
    import numpy as np
    from semialgebraic.dimension import functional as fmod
    net = _net([8, 32, 32, 1], 1)
    counts = {}
    for T in (None, 10.0, 1000.0):
        for kdim in (40, 400, 4000):
            got = []
            for _ in range(2):
                s = fmod._Sandwich(net, None, Budget(T))
                s.kernel = (np.zeros((0, kdim)), np.arange(kdim), np.arange(0))   # (P, free, piv)
                got.append(s.spread_count())
                time.sleep(0.05)
            assert got[0] == got[1]
            counts[(T, kdim)] = got[0]
    assert all(fmod.SPREAD <= c <= fmod.SPREAD_MAX for c in counts.values())
    assert {counts[(None, k)] for k in (40, 400, 4000)} == {fmod.SPREAD}
    for kdim in (40, 400, 4000):
        assert counts[(None, kdim)] <= counts[(10.0, kdim)] <= counts[(1000.0, kdim)]
    for T in (10.0, 1000.0):
        assert counts[(T, 40)] >= counts[(T, 400)] >= counts[(T, 4000)]
    want = 1000.0 / 8 * fmod.ELIMINATION_RATE / (9 * net.n_parameters * 4000) / fmod.SPREAD_WITNESSES
    assert fmod.SPREAD < want < fmod.SPREAD_MAX and counts[(1000.0, 4000)] == int(want)
    assert counts[(1000.0, 40)] == fmod.SPREAD_MAX


def test_the_rank_of_the_proven_directions_stops_at_the_budget(monkeypatch):
    """ACAS Xu (13 305 parameters, 300 proven directions): the rank of their span is checked
    against the timeout between chunks (budget findings 2026-12-03: 4.4 s past ``dim --timeout
    3`` at load 10 in this one call).  Within the budget it is ``ProvenSpan.rank`` exactly; with
    the budget spent, the rank of the first chunk (a subset of the rows mod p: still a lower
    bound of the rank over Q), so ``N − it`` is a valid, looser upper bound."""
    from pathlib import Path
    from algebra.io import load
    from semialgebraic.dimension import functional as fmod, jacobian
    from semialgebraic.sets import normalize_domain
    net = load(Path(__file__).resolve().parents[2] / "benchmarks" / "data"
               / "ACASXU_run2a_1_1_batch_2000.nnet")
    dom = normalize_domain(None, net.n_inputs)
    full = fmod._Sandwich(net, dom, Budget(3600))
    full.symmetries()
    assert len(full.sym) == 300 and full.sym_rank == full.span.rank() == 300
    assert full.upper == 13005 and full.skipped == ""
    span = jacobian.ProvenSpan(full.sym, full.N, full.prime)
    assert span.rank(Budget(0)) == 300 and span.ranked == 300    # peeled: exact, no budget needed
    monkeypatch.setattr(jacobian, "PEEL_ENTRIES", -1)             # the chunks themselves
    span = jacobian.ProvenSpan(full.sym, full.N, full.prime)
    assert span.rank(Budget(0)) == jacobian.RANK_CHUNK == 32 and span.ranked == 32
    cut = fmod._Sandwich(net, dom, Budget(0))     # (built: within DIRECTIONS_FREE entries)
    cut.symmetries()
    assert cut.sym_rank == jacobian.RANK_CHUNK == 32 and cut.upper == 13305 - 32 >= full.upper
    assert cut.skipped == "the rank of 32 of the 300 proven directions (the budget ran out)"
    monkeypatch.setattr(fmod, "DIRECTIONS_FREE", 0)   # past it the building stops at the budget too
    stopped = fmod._Sandwich(net, dom, Budget(0))
    stopped.symmetries()
    assert stopped.upper == 13305 - stopped.sym_rank >= cut.upper and len(stopped.sym) < 300
    assert stopped.directions_note == f"only {len(stopped.sym)} proven symmetry directions were built " \
        f"({sum(map(len, stopped.sym))} entries; the budget ran out)"


def test_the_dense_elimination_of_the_proven_directions_stops_at_the_budget(monkeypatch):
    """The dense route of ``ProvenSpan.rank`` (the sparse form given up on fill-in) eliminated
    all its chunks in one uninterruptible call: a 16-200-8 net on a ball of radius 1/100 (4 600
    directions of 5 008 parameters) took 27 s there, and ``dim --timeout 5`` 29 s.  Now the
    budget is checked between the elimination's panels: stopped, the pivots found so far (a lower
    bound of the rank) and the budget marked interrupted."""
    import random as _random
    from semialgebraic.dimension import jacobian

    class Clock(Budget):                      # spent after a fixed number of checks
        def __init__(self, checks):
            super().__init__(3600)
            self.left = checks

        def exhausted(self):
            self.left -= 1
            return self.left < 0 or super().exhausted()

    rng = _random.Random(3)
    n, k = 300, 200
    vecs = [{c: Q(rng.randint(-3, 3)) for c in rng.sample(range(n), 60)} for _ in range(k)]
    monkeypatch.setattr(jacobian, "SPARSE_OPS", 0)         # the dense routes at once
    whole = jacobian.ProvenSpan(vecs, n, 1000003).rank(Budget(3600))
    assert whole == 200
    chunks = -(-k // jacobian.RANK_CHUNK)                    # every chunk built, then 2 panels
    budget = Clock(chunks + 2)
    span = jacobian.ProvenSpan(vecs, n, 1000003)
    got = span.rank(budget)
    assert 0 < got < whole and span.ranked == got and budget.interrupted is False
    assert budget.exhausted()


def test_reason_for_people_lists_guesses_under_their_header(monkeypatch):
    """An interval left open: the float evidence (a neuron never seen active, its weights never
    exercised) is in ``details["evidence_lines"]`` and ``dim`` prints it one line each under the
    header (``display.clause_lines``); once the neuron is proven dead it is a deficit line, not a
    guess (neither the neuron nor the weights it frees are listed)."""
    import semialgebraic.dimension.functional as fmod
    from semialgebraic.commands.display import clause_lines
    from tests.semialgebraic.test_dimension_rank_only import _hidden_dead_net
    net = _hidden_dead_net()                       # (2, 0) is never active, intervals do not see it
    monkeypatch.setattr(fmod, "prove_suspects", lambda *a, **k: ({}, [], []))   # nothing decided
    fd = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=1)
    assert fd.lower < fd.upper
    lines = fd.details["evidence_lines"]
    assert any(ln.startswith("neurons never active at the sampled inputs [(2, 0)]") for ln in lines), lines
    text = clause_lines(fd.reason, lines).splitlines()
    k = text.index("  evidence from the sampled inputs (float guesses, unproven):")
    assert text[k + 1].startswith("    neurons never active at the sampled inputs [(2, 0)]")
    assert text[0].startswith("  not closed: ") and all(t.startswith("  ") for t in text)
    monkeypatch.undo()
    proven = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=1)
    assert any(d.startswith("dead neuron (2, 0)") for d in proven.deficits)
    assert not any("(2, 0)" in ln or "W2[0," in ln for ln in proven.details["evidence_lines"])


def test_the_rref_of_the_proven_directions_keeps_to_its_share(monkeypatch):
    """REDUCE_SHARE: the RREF of the proven directions (a guide for the sampling: the missing
    directions) is not started when its estimate exceeds its share of the time left, and is
    stopped past that share; the sampling then gets the time (a 16-60-60-8 net on a small ball:
    [0, 604] after --timeout 10, the RREF taking it all).  The bounds stay valid: they hold the
    value found without a timeout."""
    import semialgebraic.dimension.functional as fmod
    from semialgebraic.dimension import jacobian
    net = Network.from_rows(
        [[[1, 2], [-1, 1], [2, -1], [1, 1]], [[1, -1, 2, 1], [2, 1, -1, 1], [1, 1, 1, -2]], [[1, 2, -1]]],
        [[0, 1, -1, 0], [1, 0, -1], [0]])
    want = functional_dimension(net, domain=(-1, 1))
    assert want.exact
    calls = []
    monkeypatch.setattr(jacobian, "missing_directions", lambda *a, **k: calls.append(1) or [])
    monkeypatch.setattr(fmod, "missing_directions", lambda *a, **k: calls.append(1) or [])
    monkeypatch.setattr(fmod, "SAMPLING_RATE", 1e-3)          # every RREF estimated too slow
    run = fmod._Sandwich(net, fmod.normalize_domain((-1, 1), 2), Budget(600))
    run.symmetries()
    assert run.rref_dropped and run.span._reduced is None and run.missing() == [] and not calls
    fd = functional_dimension(net, domain=(-1, 1), timeout=600)
    assert fd.lower <= want.value <= fd.upper
    monkeypatch.setattr(fmod, "SAMPLING_RATE", 4e9)           # started, stopped by its share
    monkeypatch.setattr(fmod, "REDUCE_SHARE", 0.0)
    run = fmod._Sandwich(net, fmod.normalize_domain((-1, 1), 2), Budget(600))
    run.symmetries()
    assert run.rref_dropped and not run.budget.exhausted()
    run = fmod._Sandwich(net, fmod.normalize_domain((-1, 1), 2), Budget(None))
    run.symmetries()                                          # no timeout: no share
    assert not run.rref_dropped and run.span._reduced is not None


def test_a_first_batch_stopped_by_the_budget_counts_as_a_batch(monkeypatch):
    """The first batch's elimination stopped by the budget keeps the rank found so far and its
    inputs (the lower bound); those inputs are a batch of the work done (``dim t60 --ball ...
    --timeout 3`` printed "103 points in 0 batches")."""
    import semialgebraic.dimension.functional as functional
    from semialgebraic.budget import BudgetExhausted

    now = [0.0]
    real = functional.kernel_rows_mod_p

    def stopped(R, p, check=None):
        K = real(R, p)
        now[0] = 1e9                          # the budget runs out during the elimination
        exc = BudgetExhausted("timeout")
        exc.partial_rank = R.shape[1] - len(K[1])
        raise exc

    monkeypatch.setattr(functional, "kernel_rows_mod_p", stopped)
    net = _net([3, 6, 6, 1], 4)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=0,
                              budget=Budget(100, clock=lambda: now[0]))
    full = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=0)
    assert not fd.exact and 0 < fd.lower <= full.lower
    assert fd.work["batches"] == 1 and fd.work["batch_sizes"] == [fd.work["points"]] == [len(fd.inputs)]
    assert fd.work_text().startswith(f"{fd.work['points']} points in 1 batch,")


def test_a_later_batch_goes_in_chunks_and_a_stop_keeps_the_chunks_done(monkeypatch):
    """A later batch's rows are built and added in chunks (ADD_CHUNK_ROWS), the budget checked
    between them: a stop keeps the chunks done, their inputs and the rank they give (one batch's
    Jacobian rows, which no budget stops, had taken 10.6 s on the digits 64-32-16-10 net)."""
    import numpy as np

    import semialgebraic.dimension.functional as functional
    from semialgebraic.budget import BudgetExhausted
    from semialgebraic.dimension.sampling import exact_masks

    net = _net([2, 5, 5, 1], 7)
    now = [0.0]
    run = functional._Sandwich(net, (Q(-1), Q(1)), Budget(100, clock=lambda: now[0]))
    rng = np.random.default_rng(3)
    pts = [[Q(int(v), 97) for v in rng.integers(-96, 97, 2)] for _ in range(12)]
    X, masks = exact_masks(net, pts)
    run.add_rows(X[:2], [M[:2] for M in masks])       # the first batch: the kernel
    first = run.N - len(run.kernel[1])
    monkeypatch.setattr(functional, "ADD_CHUNK_ROWS", 3)   # one output: chunks of 3 inputs
    real = functional.shrink_kernel_rows_mod_p
    calls = []

    def counted(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            now[0] = 1e9                            # the budget runs out in the second chunk
        return real(*a, **k)

    monkeypatch.setattr(functional, "shrink_kernel_rows_mod_p", counted)
    with pytest.raises(BudgetExhausted):
        run.add_rows(X[2:], [M[2:] for M in masks])
    assert len(calls) == 2 and len(run.all_X) == 2 + 3        # the first chunk of 3 inputs kept,
    whole = functional._Sandwich(net, (Q(-1), Q(1)), Budget(None))   # not the one stopped
    whole.add_rows(X[:5], [M[:5] for M in masks])
    assert run.rank == whole.N - len(whole.kernel[1]) >= first


def test_a_sampling_phase_again_doubles_its_batches_and_stops_after_two_stalls(monkeypatch):
    """``sample(again=True)`` (the phase after the suspects under a timeout): its batches double
    from the later rounds' size while they stall, and it stops after two stalled rounds of its
    own (a first phase stops at its first stalled round past the second)."""
    import semialgebraic.dimension.functional as functional

    net = _net([3, 6, 6, 1], 4)
    run = functional._Sandwich(net, (Q(-1), Q(1)), Budget(1000))
    run.walk(1000, 0, 0)
    run.sample(None, 0, functional.FIRST_ROUND, functional.COVER)
    rounds, sizes = run.rounds, []
    monkeypatch.setattr(run, "add_rows", lambda X, masks, first_rows=None: sizes.append(len(X)))
    monkeypatch.setattr(run, "refitted", lambda chosen, want, extra, m: chosen[:want])
    run.upper = run.rank + 5                        # open: nothing the stub adds can close it
    run.sample(None, 1, functional.FIRST_ROUND, functional.COVER, again=True)
    base = max(16, run.upper // 8)             # inputs asked (those at a kink are dropped)
    assert run.rounds == rounds + 2 and base - 2 <= sizes[0] <= base and 2 * base - 2 <= sizes[1] <= 2 * base
    assert run.fit_share == functional.AGAIN_SHARE


def test_no_sampling_phase_again_with_a_certificate_to_build(monkeypatch):
    """With ``reserve_for_certificate`` the phase after the suspects does not run: the
    certificate's rank calls need the time left (no budget stops them)."""
    import semialgebraic.dimension.functional as functional

    calls = []
    real = functional._Sandwich.sample

    def sample(self, *a, again=False, **k):
        calls.append(again)
        return real(self, *a, again=again, **k)

    monkeypatch.setattr(functional._Sandwich, "sample", sample)
    monkeypatch.setattr(functional._Sandwich, "decide_suspects", lambda self: None)
    net = _net([3, 6, 6, 1], 4)
    for reserve, want in ((False, [False, True]), (True, [False])):
        calls.clear()
        fd = functional_dimension(net, domain=(-1, 1), max_regions=0, samples=16, cover=0, timeout=1000,
                                  reserve_for_certificate=reserve)
        assert not fd.exact and calls == want
