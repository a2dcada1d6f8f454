"""``dim`` above ``RANK_ONLY`` parameters (ACAS Xu): the rows' rank mod p is grown batch by batch
in a stoppable :class:`~algebra.linalg.gfp.BlockSpan` (no time reserved for an uninterruptible
rank call), and with a timeout the time goes to sampling, then to the neurons never seen active,
then to sampling again.  The small networks here take that route by lowering ``RANK_ONLY``."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest

import semialgebraic.dimension.functional as fmod
import semialgebraic.dimension.suspects as smod
from algebra.linalg.gfp import PRIME, BlockSpan, echelon_mod_p
from algebra.network import Network
from semialgebraic.budget import Budget, BudgetExhausted
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.verify import verify


def _matrix(rows=700, cols=300, rank=120, seed=0):
    rng = np.random.default_rng(seed)
    B = rng.integers(0, PRIME, (rank, cols))
    A = (rng.integers(0, 5, (rows, rank)) @ B) % PRIME               # rank 120 ...
    A[::7] = rng.integers(0, PRIME, (len(A[::7]), cols))             # ... and 100 more rows
    return A


@pytest.mark.parametrize("step,group", [(13, 2), (13, 16), (97, 1), (700, 16)])
def test_block_span_rank_whatever_the_batches_and_groups(step, group):
    """Small batches make many blocks; GROUP = 1 or 2 makes many groups (the lazy reduction
    of every 8 groups runs): the rank is the one of a single elimination, 220."""
    A = _matrix()
    span = BlockSpan(300)
    span.GROUP = group
    gains = [span.add_residues(A[i:i + step]) for i in range(0, 700, step)]
    assert span.rank == sum(gains) == echelon_mod_p(A, PRIME)[0] == 220
    assert len(span.blocks) > (16 if step == 13 else 0)
    # the rows held span the rows added: every row reduces to zero
    assert not np.mod(span.reduce(np.asarray(A[:50], dtype=np.float64)), PRIME).any()


def test_block_span_stopped_keeps_what_it_had():
    A = _matrix(seed=1)
    calls = []

    def stop_at_fifth():
        calls.append(1)
        if len(calls) == 5:
            raise BudgetExhausted("deadline")
    span = BlockSpan(300, stop_at_fifth)
    span.add_residues(A[:40])
    rank, blocks = span.rank, len(span.blocks)
    assert rank == 40 and span.E.shape == (40, 300)
    with pytest.raises(BudgetExhausted):
        span.add_residues(A[40:])
    assert (span.rank, len(span.blocks), span.E.shape) == (rank, blocks, (40, 300))
    span.check = None
    assert span.add_residues(A[40:]) == 180 and span.rank == 220


def _net(widths, seed, dead=()) -> Network:
    rng = random.Random(seed)
    Ws = [[[Fraction(rng.randint(-8, 8), 4) for _ in range(a)] for _ in range(b)]
          for a, b in zip(widths, widths[1:])]
    bs = [[Fraction(rng.randint(-4, 4), 4) for _ in range(b)] for b in widths[1:]]
    for l, i in dead:                          # |W| <= 2 on [-1, 1]^d: bias -100 kills it
        bs[l][i] = Fraction(-100)
    return Network.from_rows(Ws, bs)


def test_rank_only_route_gives_the_kernel_route_value_and_a_valid_certificate(monkeypatch):
    net = _net([3, 6, 6, 1], 4)
    want = functional_dimension(net, domain=(-1, 1), seed=5)
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    for timeout in (None, 60):
        fd = functional_dimension(net, domain=(-1, 1), seed=5, timeout=timeout)
        assert (fd.lower, fd.upper) == (want.lower, want.upper) == (want.value, want.value)
        cert = functional_dimension_certificate(net, fd, domain=(-1, 1))
        assert verify(cert)[0] and cert["lower"] == want.value


def test_rank_only_batches_stay_within_rows_bytes(monkeypatch):
    """A batch's rows at most ROWS_BYTES (a 64-3072-64 net's first 16 inputs were 13.6 GB): here
    two inputs a batch (no walk), valid bounds, a valid certificate."""
    net = _net([3, 6, 6, 1], 4)
    want = functional_dimension(net, domain=(-1, 1), seed=5)
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    monkeypatch.setattr(fmod, "ROWS_BYTES", 8 * net.n_parameters * 2)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, timeout=60, max_regions=0)   # (a walk's
    assert fd.details["batch_sizes"] and max(fd.details["batch_sizes"]) <= 2          # d + 1 inputs
    assert 0 < fd.lower <= want.value <= fd.upper                                     # per region
    assert verify(functional_dimension_certificate(net, fd, domain=(-1, 1)))[0]       # are not cut)


def test_rank_only_first_batch_is_fitted_to_the_time_left(monkeypatch):
    """The first batch above RANK_ONLY is fitted at ROW_ENTRY_SECONDS per row entry (a 64-3072-64
    net's first batch had run 4.3 s past a 3 s timeout): at a prior of an hour per entry no batch
    starts and the reason says so; at 0 the first batch runs (the timeout unchanged)."""
    net = _net([3, 6, 6, 1], 4)
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    monkeypatch.setattr(fmod, "ROW_ENTRY_SECONDS", 3600.0)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, timeout=30, max_regions=0)
    assert fd.lower == 0 and not fd.details.get("batch_sizes") and "sampling stopped" in fd.reason
    monkeypatch.setattr(fmod, "ROW_ENTRY_SECONDS", 0.0)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, timeout=30, max_regions=0)
    assert fd.lower > 0 and fd.details["batch_sizes"]


def _hidden_dead_net() -> Network:
    """2-5-4-1: neuron (2, 0) is relu(x0) + relu(-x0) - 3/2 = |x0| - 3/2 < 0 on [-1, 1]^2, never
    active, which interval bounds do not see (they give <= 1/2) and the LP relaxation does."""
    net = _net([2, 5, 4, 1], 3)
    Ws, bs = [w.to_rows() for w in net.weights], [list(b) for b in net.biases]
    Ws[0][0], Ws[0][1], bs[0][0], bs[0][1] = [1, 0], [-1, 0], 0, 0
    Ws[1][0], bs[1][0] = [1, 1, 0, 0, 0], Fraction(-3, 2)
    return Network.from_rows(Ws, bs)


def test_rank_only_with_a_timeout_proves_the_hidden_dead_neuron(monkeypatch):
    """Phases: sampling stalls below the upper bound, the middle phase proves (2, 0) dead by
    branch and bound (its incoming parameters free), which closes the interval (the kernel
    route, without a timeout, proves the same in its suspects)."""
    net = _hidden_dead_net()
    want = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=1)
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    seen = []
    real = fmod._Sandwich.decide_neurons

    def spy(self, until):
        seen.append((self.upper, self.rounds))
        return real(self, until)
    monkeypatch.setattr(fmod._Sandwich, "decide_neurons", spy)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, timeout=60, max_regions=1)   # no walk
    assert seen and fd.upper < seen[0][0]
    assert any(line.startswith("dead neuron (2, 0)") for line in fd.deficits), fd.deficits
    assert fd.exact and (fd.lower, fd.upper) == (want.lower, want.upper)


def test_suspects_keep_what_was_decided_when_the_budget_runs_out(monkeypatch):
    net = _net([3, 6, 6, 1], 4, dead=[(0, 2), (0, 4)])
    ev = {"never_on": np.array([0, 0, 1, 0, 1, 0] + [0] * 6), "never_off": np.zeros(12, dtype=bool)}
    real = smod._Decider.decide
    calls = []

    def second_runs_out(self, task, cap):
        calls.append(task)
        if len(calls) == 2:
            raise BudgetExhausted("timeout")
        return real(self, task, cap)
    monkeypatch.setattr(smod._Decider, "decide", second_runs_out)
    proven, _, _ = smod.prove_suspects(net, (-1, 1), ev, Budget(None))
    assert proven["dead"] == {2}                                   # the first, whole; not the second


def test_a_partial_rank_of_more_directions_keeps_the_earlier_upper_bound():
    net = _net([3, 6, 6, 1], 4)
    run = fmod._Sandwich(net, (-1, 1), Budget(None))
    run.walk(None, 400, 0)
    upper, sym = run.upper, run.sym
    run._span_rank = lambda: 0                       # as if the budget stopped the rank at once
    run.symmetries()
    assert run.upper == upper and run.sym is sym


def test_certificate_under_a_timeout_keeps_the_runs_dead_neuron_proof(monkeypatch):
    """With ``reserve_for_certificate`` (``dim --certificate --timeout``) the middle phase still
    decides the neurons never seen active, and the certificate, built under a deadline, takes
    the run's branch-and-bound proof as it is (one check for all of them): its upper bound is
    the run's, the checker accepts it (before 2026-12-04 the phase was skipped and the
    certificate stayed at the bound of the known symmetries: ACAS Xu 12 950 against 12 455)."""
    net = _hidden_dead_net()
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    searched = []
    real = fmod.functional_dimension_certificate.__globals__["_UpperEntries"].search

    def spy(self, targets, leaves=False):
        searched.append(targets)
        return real(self, targets, leaves)
    monkeypatch.setattr(fmod.functional_dimension_certificate.__globals__["_UpperEntries"], "search", spy)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, timeout=60, max_regions=1,
                              reserve_for_certificate=True)
    assert any(line.startswith("dead neuron (2, 0)") for line in fd.deficits), fd.deficits
    cert = functional_dimension_certificate(net, fd, domain=(-1, 1), seconds=60)
    assert cert["upper"] == fd.upper and verify(cert)[0]
    assert any(e[:3] == ["dead_proof", 1, 0] for e in cert["upper_directions"])
    assert {(1, 0): 1} not in searched             # the run's proof, not a new phase search


def test_rank_only_without_a_timeout_decides_the_neurons_too(monkeypatch):
    """Without a timeout the rank-only route (no kernel) still decides the neurons never seen
    active (before 2026-12-04 it skipped them: ACAS Xu with no timeout stayed at <= 12 950 while
    --timeout 60 reached 12 455)."""
    net = _hidden_dead_net()
    want = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=1)
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, max_regions=1)
    assert any(line.startswith("dead neuron (2, 0)") for line in fd.deficits), fd.deficits
    assert fd.exact and (fd.lower, fd.upper) == (want.lower, want.upper)


def test_second_try_proves_a_neuron_the_first_pass_left_open(monkeypatch):
    """``prove_suspects`` gives the neuron questions its first pass leaves open (a certified bound
    > 0) a second branch-and-bound try of up to DEEPER_NODES nodes, smallest bound first: a
    3-6-6-1 net whose neuron (1, 2) (0-based hidden layer 1) needs 3 splits, first pass capped at
    2 -> proven dead by the second try (with its proof); without the second try it stays open."""
    rng = random.Random(16)
    Ws = [[[Fraction(rng.randint(-8, 8), 4) for _ in range(a)] for _ in range(b)]
          for a, b in zip([3, 6, 6], [6, 6, 1])]
    bs = [[Fraction(rng.randint(-8, 2), 4) for _ in range(b)] for b in (6, 6, 1)]
    net = Network.from_rows(Ws, bs)
    g = 6 + 2                                          # flat index of (1, 2)
    never_on = np.zeros(12, dtype=bool)
    never_on[g] = True

    def ask():
        ev = {"never_on": never_on, "never_off": np.zeros(12, dtype=bool)}
        proven, _, _ = smod.prove_suspects(net, (-1, 1), ev, Budget(None), lps=1, nodes=2,
                                           conditioned=0)   # (phase search: 1 LP, undecided)
        return proven, ev
    proven, ev = ask()
    assert proven["dead"] == {g} and ("dead", g) in proven["emptiness"]
    assert not ev.get("open_emptiness")
    monkeypatch.setattr(smod, "DEEPER_NODES_TOTAL", 0)
    proven, ev = ask()
    assert not proven.get("dead") and [t for t, _, _ in ev["open_emptiness"]] == [{(1, 2): 1}]


def test_a_bad_recorded_proof_is_left_out_of_the_certificate(monkeypatch):
    """The run's recorded neuron proofs go into a deadline certificate unchecked and are replayed
    with everything else; a bad one (here: a live neuron claimed dead with another neuron's
    proof, as a decider bug would) is left out, the certificate stays valid and says why its
    upper bound is not certified."""
    net = _hidden_dead_net()
    monkeypatch.setattr(fmod, "RANK_ONLY", 0)
    fd = functional_dimension(net, domain=(-1, 1), seed=5, timeout=60, max_regions=1,
                              reserve_for_certificate=True)
    proven = fd.details["proven"]
    (g,) = proven["dead"]
    live = next(h for h in range(5) if h != g)       # a neuron of the first hidden layer
    proven["dead"] = {g, live}
    proven["emptiness"][("dead", live)] = proven["emptiness"][("dead", g)]
    cert = functional_dimension_certificate(net, fd, domain=(-1, 1), seconds=60)
    assert verify(cert)[0]
    assert "recorded neuron proofs do not check" in cert.get("uncertified_upper_reason", "")
