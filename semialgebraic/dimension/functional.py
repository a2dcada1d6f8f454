r"""Exact functional dimension and local fiber dimension of a ReLU network of any depth.

The functional dimension of θ is the rank of the Jacobian of θ ↦ (f_θ(x))_x over all inputs x
where f is differentiable in θ (GLMW22; three-layer-fibers R22 FIBDIM, generalised to depth L);
the local fiber dimension is N − that rank where the rank is locally constant.  Which inputs are
differentiable is decided by the rule of :mod:`algebra.kernel.differentiability`; when no input
of the domain is, θ is *non-generic* (:mod:`semialgebraic.dimension.nongeneric`).

Method: a sandwich, both sides exact.

* **Lower bound**: the rank of stacked Jacobian rows at chosen inputs
  (:mod:`semialgebraic.dimension.jacobian`).  When the regions can be walked completely within
  the budget, every region contributes d + 1 affinely independent inputs (the rows are affine in
  x on a region) and the rank is the functional dimension itself.  Otherwise the inputs are
  *chosen* from a large float pool (:mod:`semialgebraic.dimension.sampling`): floats only
  choose inputs; each chosen input is an exact dyadic rational whose masks are recomputed
  exactly.  The rank is computed over Z/p (:mod:`algebra.linalg.gfp`) on the integer reduction
  of the exact rows: rank_p <= rank_Q is a certified lower bound; when it does not reach the
  upper bound and the matrix is small, the exact rational rank is computed.  The first
  ~1.3 x upper rows give a basis mod p of their common kernel; every later row only shrinks it,
  so the rank is N - dim(kernel), and the kernel directions outside the span of the proven
  symmetries name the parameters still missing: the next inputs are float walks to the sign
  conditions that would exercise them.
* **Exact decisions** (:mod:`semialgebraic.dimension.suspects`): for what the sampling flags
  (parameters never exercised, neurons never seen active or inactive, directions inside one
  neuron's incoming parameters), exact searches over activation phases
  (:mod:`semialgebraic.dimension.jacobian_columns`) either find exact inputs (added to the rows)
  or prove the fact (added to the upper bound).  First by branch and bound
  (:mod:`semialgebraic.bab.emptiness`: never active, never active together, a proof tree or an
  exact witness point, sought first by a float walk over linear regions,
  :mod:`semialgebraic.bab.signwalk`), then by the complete but exponential phase search.  The work of these
  searches is counted (branch-and-bound nodes, exact LPs), never timed, so the result depends
  only on the seed and the work; an explicit timeout only stops them.  Above
  :data:`RANK_ONLY` parameters with a timeout, the clock also sizes the sampling batches and
  the phases (:meth:`_Sandwich.phases`): the timeout is used to its end, a faster machine does
  more work, and the result states the work done (the size of every batch included).
* **Upper bound**: N − rank of the span of directions v with J(x) v = 0 at every differentiable
  input of the domain, each proved (:mod:`semialgebraic.dimension.directions`).

Exact when the bounds meet; otherwise the interval and what would close it (more regions
sampled, or an unknown hidden symmetry), with the supports of the kernel directions mod p that
the proven symmetries do not explain.

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 0], [0]])
>>> fd = functional_dimension(net)
>>> fd.value, fd.fiber_dimension.value, fd.exact
(7, 2, True)
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from algebra.exceptions import InputError
from algebra.kernel import box_input_map, compose_input_map, compose_slice_map
from algebra.kernel.differentiability import kink_witness
from algebra.kernel.domains import Domain
from algebra.linalg import QMatrix
from algebra.linalg.gfp import BlockSpan, kernel_rows_mod_p, shrink_kernel_rows_mod_p
from algebra.network import Network, require_network
from algebra.rationals import Q

from ..budget import Budget, BudgetExhausted, api_boundary, phased
from .one_layer import one_layer_value
from ..sets import api_domain, normalize_domain
from ..regions import joint_regions
from .certificate import functional_dimension_certificate
from .directions import symmetry_directions
from .jacobian import ProvenSpan, exact_rank, jacobian_rows, missing_directions, network_prime, rank_beside
from .nongeneric import neuron_list, non_generic, one_point, seen_zero_neurons, with_nearby, zero_neurons
from .result import FunctionalDimension
from .sampling import COVER, SPREAD, batch_simplex, chosen_inputs, exact_masks
from .suspects import SPREAD_WITNESSES, prove_suspects

__all__ = ["functional_dimension", "FIRST_ROUND", "EXACT_LIMIT", "EXACT_LIMIT_COMPLETE"]

FIRST_ROUND = 1.5
"""Inputs of the first sampling round per unit of the upper bound (per output)."""

EXACT_LIMIT = 250_000
"""Entries of the row matrix up to which the exact rational rank is computed."""

EXACT_LIMIT_COMPLETE = 2_000_000
"""The same when every region was sampled (then the rank is the value)."""

_log = logging.getLogger(__name__)

DIRECTIONS_ENTRIES = 5_000_000
"""At most about this many non-zero entries of proven symmetry directions are built (sparse
dicts, ~100 bytes an entry: ~0.5 GB); past it, and at the budget, the directions built so far
(a subset: N − their rank is still an upper bound).  A 24-24-6000-2 net (162 602 parameters,
6 024 live neurons) has ~163 thousand (dense vectors of N entries had needed ~16 GB and the OOM
killer); a linear block of b always-active neurons has b(b − 1) GL directions, the one source that
can pass it."""


DIRECTIONS_FREE = 100_000
"""Entries of proven directions built even when the budget is spent (well under 0.1 s: a small
net keeps its directions under any timeout, as when they were built before the budget was
checked)."""

RANK_ONLY = 8000
"""Above this many parameters the rows are only ranked mod p (no kernel basis: it would hold
about N^2 numbers), by a :class:`~algebra.linalg.gfp.BlockSpan` that each batch extends and a
budget check stops between panels (nothing partial kept): no time is reserved for it, a timeout
is used to its end.  The suspects that need the kernel (missing directions) are then not
searched; neurons never seen active / inactive are."""

ONE_LAYER_FROM = 2000
"""Above this many parameters a one-hidden-layer net is decided by three-layer-fibers R38/R39
when their hypotheses hold (each neuron dead, active or switching on a hyperplane of its own),
not by the rank of its Jacobian rows: a 16-200-8 net (5 008 parameters) on a ball of radius
1/100, 83 neurons always active, was [0, 4 752] after 5 s and [0, 424] after 30 s (the rank of
its ~4 600 proven directions alone: 27 s); by the theorem exact in well under a second.  Below
it the general method, whose certificate lists its inputs."""

FIBER_GRACE = 0.5
"""Seconds past the deadline the fiber's lower bound may take at most (at or below
:data:`RANK_ONLY` parameters, where it runs even when the budget is spent)."""

FIBER_SECONDS = 1e-5
"""Above :data:`RANK_ONLY` parameters the fiber's lower bound (:func:`~semialgebraic.dimension.
directions.fiber_lower`: the moves' rank, peeled, mostly not stoppable) starts only with at
least this many seconds a parameter left (measured 6e-6: 6.9 s on a 384-1536-384 block on a
ball of radius 1/100, where ``dim --timeout 2`` took 9 s)."""

REDUCE_SHARE = 0.25
"""Of the time left when the proven directions are known, the share their RREF mod p (for the
missing directions, :func:`~semialgebraic.dimension.jacobian.missing_directions`) may take at
the start: not started when k · N · min(k, N) / :data:`SAMPLING_RATE` seconds exceed it, stopped
when it runs past it; either way the missing directions are not searched (a guide for the
sampling only), and the sampling gets the time.  A 16-60-60-8 net on a ball of radius 1/100
(5 559 directions of 5 168 parameters): the RREF took the whole of ``--timeout 10`` (lower bound
0), and with ``--timeout 60`` 15 s at the start and 42 s again for the missing directions:
[178, 604] after one batch; without it [321, 343] after four batches."""

WALK_SKIP_ABOVE = 10 ** 12
"""With ``max_regions=None`` (the API; the CLI and the API default to 400, where the gate is
400), no walk when the first layer alone may cut the domain into more regions than this (a
784-512-512-10 net: 2^512; its walk spent 30 % of a 20 s budget on no region, and sampling got
nothing; session 39).  The 8-32-32-32-1 and 5-50x6-5 benchmarks (~1.6 x 10^7 and ~2.3 x 10^6)
walk there."""

WALK_SHARE = 0.3
"""Under a timeout, the share of the time left that the region walk may take (the inputs it
finds, d + 1 per region, are ranked in the rest)."""

RANK_PHASES = (0.3, 0.6)
"""Above :data:`RANK_ONLY` parameters with a timeout: sampling until this share of the time
left after the walk, then the neurons never seen active / inactive decided (branch and bound, a
count of work that the share only stops) until the second share, then sampling again to the end
(:meth:`_Sandwich.phases`)."""

ROW_ENTRY_SECONDS = 1e-7
"""The first batch above :data:`RANK_ONLY` is fitted to the time left at this many seconds per
row entry (rows and their first elimination; measured 1.7e-7 on a 64-3072-64 net, 64 rows of
396 352: an optimistic prior, so a batch is skipped only when it surely does not fit).  That
batch was never sized: started with 0.4 s left, it ran 4.3 s past a 3 s timeout."""

ROWS_BYTES = 1 << 27
"""Above :data:`RANK_ONLY` parameters: a sampling batch's float64 Jacobian rows (inputs x outputs
x N x 8 bytes) at most this many bytes, at least one input (its elimination holds a few copies);
the inputs around the witnesses of :meth:`_Sandwich.decide_neurons` too (a 24-24-6000-2 net's
had reached 4.6 GB).
A 64-3072-64 net's first batch of 16 inputs had been 1 024 rows x 396 352 parameters: 13.6 GB
resident and 74 s past ``--timeout 20``; now one input (64 rows) a batch."""

RANK_BATCH = 256
"""Inputs per sampling batch at most above :data:`RANK_ONLY` parameters (batches double from
16 up to it): a batch's rows are reduced by the rows held in one stoppable elimination."""

CERTIFICATE_RESERVE = 1.0
"""With ``reserve_for_certificate``, the seconds kept free per second of elimination mod p spent:
the certificate's checker re-ranks the rows at its inputs in one call no budget stops, by the
blocked float64 elimination (about the run's elimination time; ACAS Xu 2026-12-04: 17 s for 18 s;
3.0 when that call was FLINT's ``nmod_mat``, ~5x slower).  Above ``RANK_ONLY`` the inputs are
not thinned (their rows are far from saturated: a prefix's rank only cost time)."""

SPREAD_MAX = 256
"""At most this many inputs spread from one witness under a timeout (8-32-32-32-1 normal seed 5:
16 inputs give lower 2290, 256 give 2293, 1024 give 2294)."""

EXACT_SLOWDOWN = 50
"""How much slower the exact rational rank is than the elimination mod p (an estimate)."""

ELIMINATION_RATE = 2e8
"""Float64 operations per second assumed (very conservatively) by the estimates of the exact
rational rank (:meth:`_Sandwich.exact_fits`, with :data:`EXACT_SLOWDOWN`: a FLINT call no signal
stops) and of the spread inputs (:meth:`_Sandwich.spread_count`); the sampling batches use
:data:`SAMPLING_RATE`.  Above :data:`RANK_ONLY` the elimination is stoppable and nothing is
reserved (:meth:`_Sandwich.rank_batch`)."""

SAMPLING_RATE = 4e9
"""Float64 operations per second assumed when fitting a sampling batch's kernel elimination mod
p (one numpy call no budget stops, up to :data:`RANK_ONLY` parameters) to the timeout
(:meth:`_Sandwich.fitted`, :meth:`_Sandwich.affordable`).  Measured 2026-12-04 with the same
operation count, load ~1.6: 2e9 (480 x 2 410), 9.7e9 (3 720 x 2 410), 8.2e9 (2 000 x 4 801) per
second; with :data:`ELIMINATION_RATE` (2e8, 10-50x below) ``dim digits_64-32-10 --timeout 20``
sampled one batch of 48 inputs and stopped at [480, 2 378] in 3 s, where no timeout gives the
exact 2 378 (372 inputs, 2.6 s)."""

ADD_CHUNK_ROWS = 2048
"""A later sampling batch's rows are built and added in chunks of about this many rows
(:meth:`_Sandwich.add_rows`), the budget checked between them."""

AGAIN_SHARE = 0.6
"""Under a timeout (up to :data:`RANK_ONLY` parameters) the sampling batches' eliminations, all
phases together, are fitted to this share of the timeout's value in the sampling phase after the
suspects (:meth:`_Sandwich.sample_again`; the first phase: a quarter).  ``dim`` of the digits
64-32-16-10 net on [0, 16]^64 with ``--timeout 30`` had stopped at 18 s, its second batch of 56
inputs stalled, at [2 614, 2 730]."""

BESIDE_ENTRIES = 10 ** 7
"""The exact rows of :func:`~semialgebraic.dimension.jacobian.rank_beside` (on the columns the
proven directions leave) are built and ranked only up to this many entries."""

EXACT_CALL_CAP = 30.0
"""Estimated seconds of one exact rational rank call (FLINT: not interruptible) allowed when no
timeout is given; beyond it the modular rank's interval is reported (the reason says which)."""


@api_boundary
def functional_dimension(net: Network, *, domain: Any = None, timeout: float | None = None,
                         max_regions: int | None = 400, samples: int | None = None,
                         seed: int = 0, budget: Budget | None = None, nearby: bool = True,
                         cover: int = COVER, first_round: float = FIRST_ROUND,
                         reserve_for_certificate: bool = False,
                         fiber: bool = True, rational_rank: bool = True) -> FunctionalDimension:
    """Exact functional dimension of *net* on *domain* by the sandwich of the module docstring.

    Parameters
    ----------
    net : Network
    domain : None, "orthant", (lo, hi), [(lo_1, hi_1), ...], a Domain, or any other form of :func:`~semialgebraic.sets.api_domain`
        Half-spaces are not taken (:func:`~semialgebraic.dimension.sandwich.
        functional_dimension_on_cut` bounds the value on a box cut by them).
        A box with its own sides per coordinate is read on the cube ``[−1, 1]^d``
        (three-layer-fibers R36: the same functional dimension; ``fd``'s inputs are then points
        u of the cube, x = centre + half-width ⊙ u; certify with
        :func:`~semialgebraic.dimension.certificate.box_certificate`).
    timeout : float, optional
        Seconds for the whole computation (the bounds found so far are returned).
    max_regions : int, optional
        Regions walked before switching to random sampling (None: no limit).
    samples : int, optional
        Number of random base points per round (default from N).
    seed : int
        Seed of the random input pool (only the choice of inputs depends on it).
    budget : Budget, optional
        A shared budget instead of *timeout*.
    nearby : bool
        When θ is non-generic (no input of the domain is a differentiable point of
        θ ↦ f_θ(x), :mod:`algebra.kernel.differentiability`), compute and certify the values at
        explicit nearby parameters (``fd.nearby``, ``fd.local_upper``).
    cover : int
        Sampled inputs wanted per weight (coverage of the pool; default 6).
    first_round : float
        Inputs of the first sampling round per unit of the upper bound (default 1.5).
    reserve_for_certificate : bool
        Above :data:`RANK_ONLY` parameters with a timeout, stop sampling while the time left is
        :data:`CERTIFICATE_RESERVE` times the elimination time spent (a certificate is written
        next: the checker's re-rank of the rows, which no budget stops, costs about one such
        elimination; the neurons' proofs of the middle phase go in as recorded).
    fiber : bool
        Also bound the fiber's dimension (``fiber_floor``; False: the value only, as at the θ'
        of :func:`nearby_rank_jump`).
    rational_rank : bool
        Close the sandwich by an exact rational rank where the rank mod p does not (False: the
        modular bound only — :func:`nearby_rank_jump` under a timeout, where θ''s long
        denominators made one FLINT call run 25 s past a 10 s budget, s47 conserved audit F2).

    Returns
    -------
    FunctionalDimension
        ``lower <= value <= upper`` with the reason, deficits and the exact inputs of the rank;
        ``value`` when exact.  Debug lines (rank per round) go to the ``logging`` logger of
        this module.

    Examples
    --------
    >>> from algebra.network import Network
    >>> dead = Network.from_rows([[[1], [0]], [[1, 1]]], [[0, -1], [0]])   # neuron 1 is dead
    >>> fd = functional_dimension(dead)
    >>> fd.value, fd.n_parameters, fd.deficits[0]
    (3, 7, "dead neuron (1, 1): 3 parameters free in the Jacobian's kernel")
    """
    require_network(net, "functional_dimension")
    given = api_domain(domain, net.n_inputs)      # every spelling the API takes (s48 API audit),
    if given.halfspaces:
        raise InputError("functional_dimension takes R^d, the orthant or a box (its sides per "
                         "coordinate, some of width 0); on a box cut by half-spaces: "
                         "semialgebraic.dimension.sandwich.functional_dimension_on_cut(net, lo, "
                         "hi, halfspaces), as `netfibers dim --box FILE.json` runs it")
    kind = given.legacy_or_none()                 # in the older form where it has one
    domain = given if kind == "other" else kind
    budget = budget or Budget(timeout)
    try:                             # active: a layer's exact matrix the budget cannot pay for is
        with budget.active():        # not begun (budget.conversion_guard; batch dim on a file
            fd = _functional_dimension(   # declaring 10^8 weights ran 30 s at timeout 10: s49)
                net, domain=domain, timeout=timeout, max_regions=max_regions, samples=samples,
                seed=seed, budget=budget, nearby=nearby, cover=cover, first_round=first_round,
                reserve_for_certificate=reserve_for_certificate, fiber=fiber,
                rational_rank=rational_rank)
    except KeyboardInterrupt:        # the budget (or Ctrl-C) before any step kept its own
        budget.interrupt()           # partial result: the bounds [0, N]
        return FunctionalDimension(net.n_parameters, 0, net.n_parameters,
                                   f"not closed: {budget.reason} before the neurons were "
                                   "classified (nothing sampled)")
    # the fiber dimension's lower bound (0 without it, still valid): skipped on a large net once
    # the budget is spent (1.0-1.3 s past the deadline on a 64-3072-64 net) or when the time left
    # is below FIBER_SECONDS a parameter (a 384-1536-384 block on a small ball: 6.9 s)
    left = budget.remaining()
    if fiber and fd.fiber_floor is None and (net.n_parameters <= RANK_ONLY or not budget.exhausted()
                                   and (left is None or left > FIBER_SECONDS * net.n_parameters)):
        from dataclasses import replace
        from .directions import fiber_lower
        why: list = []
        # below RANK_ONLY it runs even past the deadline, within FIBER_GRACE seconds (stopped
        # there, the rank of the moves ranked so far: still a lower bound): the moves of a
        # 64-48-24-10 net on a cube of width 1e-6 (most neurons always active, GL moves) took 4 s
        # past `dim --timeout 2` (session 41)
        small = None if budget.timeout is None else Budget(max(0.0, left or 0.0) + FIBER_GRACE)
        floor, by, cap = 0, "", None
        try:                  # (a Ctrl-C here: the fiber's bounds without its moves' floor)
            floor, by = fiber_lower(net, domain, fd.details.get("patterns"), fd.details.get("proven"),
                                    net.n_parameters - fd.upper,
                                    budget if net.n_parameters > RANK_ONLY else small,
                                    generic=not (fd.details.get("kink_regions") or fd.details.get("kinks")),
                                    why=why)
            if by == "R22" and fd.exact:
                jump = nearby_rank_jump(net, domain, fd.value, budget, seed, fd.details.get("patterns"))
                if jump:
                    by, why = "", [jump]
            if not by and why and net.depth == 2:       # shared kinks stay shared (one hidden layer)
                from .directions import shared_kink_cap
                cap = shared_kink_cap(net, domain, budget)
        except KeyboardInterrupt:
            budget.interrupt()
            floor, by, cap = 0, "", None
            why = why or [f"{budget.reason or 'interrupted'} while the fiber's moves were ranked"]
        floor = max(floor, scaling_floor(net))    # (a search the budget cut short may give less)
        fd = replace(fd, fiber_floor=floor, fiber_exact_by=by, fiber_cap=cap,
                     details={**fd.details, "fiber_overcount": why} if why and not by else fd.details)
    elif fiber and fd.fiber_floor is None:
        from dataclasses import replace
        fd = replace(fd, fiber_floor=scaling_floor(net))
    import dataclasses
    return dataclasses.replace(fd, domain=given)


def on_slice(fd: FunctionalDimension, net: Network) -> FunctionalDimension:
    """*fd*, the result for :func:`~algebra.kernel.compose_slice_map` of *net* on the cube, as
    *net*'s on the slice (three-layer-fibers R36 (b)): the same functional dimension; N and the
    fiber's bounds grow by the weights of the fixed columns (n1 per fixed coordinate), each
    traded against its neuron's bias (``W1[j, k] += t``, ``b1[j] -= t x_k``: the function on the
    slice unchanged).  Its inputs, deficits and reasons are those of the network of the free
    coordinates (``details["slice"]`` says so)."""
    from dataclasses import replace
    extra = net.n_parameters - fd.n_parameters
    return replace(fd, n_parameters=net.n_parameters,
                   fiber_floor=(fd.fiber_floor or 0) + extra,
                   fiber_cap=None if fd.fiber_cap is None else fd.fiber_cap + extra,
                   details={**fd.details, "slice": {
                       "fixed_weights": extra,
                       "note": "computed for the network of the free coordinates on [-1, 1]^d' "
                               "(the fixed ones folded into the first layer's biases; inputs, "
                               "neurons' parameters and deficits are that network's): the same "
                               "functional dimension, N and the fiber's dimension larger by the "
                               f"{extra} weights of the fixed columns (three-layer-fibers R36 (b))"}})


def scaling_floor(net: Network) -> int:
    """The hidden neurons whose incoming weights or bias are not all 0: each one's positive
    scaling (S2) moves θ inside its fiber along coordinates no other one touches, so their
    number is a lower bound of the fiber's dimension at θ, computed in one pass (the floor when
    the moves' rank is skipped for the budget: `dim --timeout 30` on 784-1024-10 gave 32, a user
    audit, session 36).

    >>> scaling_floor(Network.from_rows([[[1], [0]], [[1, 1]]], [[0, 0], [0]]))
    1
    """
    count = 0
    for l in range(net.depth - 1):
        b = net.biases[l]
        hint = net.integer_weights(l)         # a reader's int64 array: no rationals built
        if hint is not None:
            nz = (hint[0] != 0).any(axis=1).tolist()
        else:
            nz = [any(x != 0 for x in r) for r in net.layer(l)[0].to_rows()]
        count += sum(1 for z, c in zip(nz, b) if z or c != 0)
    return count


NEARBY_SCALES = (2 ** 16, 2 ** 26)
""":func:`nearby_rank_jump` moves every non-zero parameter by at most 8 / scale of itself: the
first scale, then the second when the first lost rank (a region narrower than the step vanished:
θ' was too far)."""


def nearby_parameters(net: Network, seed: int, scale: int = NEARBY_SCALES[0]) -> Network:
    """θ' near θ, random (deterministic given *seed*): θ'_k = θ_k (1 + r_k / scale), r_k a
    non-zero integer in [−8, 8]; zeros stay 0 (a pruned weight is no coincidence to break, and
    moving it made the rank jump on sparse nets whose N − rank was right)."""
    import random
    rng = random.Random(7919 + seed)
    p = [v if v == 0 else v * (1 + Q(rng.choice([-1, 1]) * rng.randint(1, 8), scale))
         for v in net.parameters()]
    return Network.from_parameters(net.widths, p)


def with_margins(net: Network, patterns, t=Q(1, 2 ** 12)) -> Network:
    """The point of θ's fiber where every always-active neuron (active on every pattern) has
    its bias raised by *t* and the next layer's biases lowered by t times its outgoing column:
    the same function, each of them with a margin (so that θ' near it does not turn one off)."""
    if not patterns:
        return net
    Ws = [W.to_rows() for W in net.weights]
    bs = [list(b) for b in net.biases]
    g = 0
    for l in range(net.depth - 1):
        for i in range(net.widths[l + 1]):
            if all(p[g] > 0 for p in patterns):
                bs[l][i] += t
                for k in range(len(bs[l + 1])):
                    bs[l + 1][k] -= t * Ws[l + 1][k][i]
            g += 1
    return Network.from_rows(Ws, bs)


NEARBY_EXACT_PARAMETERS = 160
"""Under a timeout, the nearby θ''s exact rational rank is computed for nets of at most this many
parameters (its modular rank only above: its cost is unforeseeable there; 2026-12-07, random
nets on R^2: 105 parameters 0.3-0.7 s, 177: 0.5-0.8 s, 265: 8-11 s against 0.65 s mod p) ..."""

NEARBY_EXACT_SECONDS = 20
"""... and when at least this many seconds of the budget are left."""


def nearby_rank_jump(net: Network, domain: Any, value: int, budget: Budget, seed: int = 0,
                     patterns=None) -> str:
    """Three-layer-fibers R22's reading takes N − rank as the fiber's dimension where the rank
    is locally constant.  Before it is used (the moves that keep the function not reaching N −
    rank): the functional dimension at a random θ' near θ (:func:`nearby_parameters`; near the
    point of θ's fiber where the always-active neurons of *patterns* have a margin,
    :func:`with_margins`).  A higher one there says θ is not generic (the rank jumps nearby; two
    neurons of different layers making one kink, whose kernel direction moves the kinks apart: a
    1-2-2-1 net with relu(x − 1) and relu(relu(x) − 1) had N − rank = 9 reported, its fiber is
    8); a lower one, that θ' went too far (a narrow region vanished), so a smaller step is
    tried; a budget that runs out, or a step still too far, leaves the reading unchecked.  The
    check is evidence, not a proof (an audit's contrived nets with slivers narrower than the
    step had passed a coarser one).  Returns the reason, or "" when θ' has the same value."""
    base = with_margins(net, patterns)
    for scale in NEARBY_SCALES:
        if budget is not None and budget.exhausted():
            return "the rank at a nearby θ was not computed (the budget ran out): R22's reading unchecked"
        left = budget.remaining() if budget is not None else None
        # under a timeout the modular rank only, but on small nets: θ''s long denominators make
        # the exact rank's cost unforeseeable (one FLINT call, which no signal stops: 25 s past a
        # 10 s budget); on a 2-8-8-1 net the modular rank alone left the reading open, so a
        # --timeout 120 that ended in 3 s changed the fiber dimension (s52 docs audit F7)
        rational = (budget is None or budget.timeout is None
                    or (net.n_parameters <= NEARBY_EXACT_PARAMETERS
                        and budget.remaining() >= NEARBY_EXACT_SECONDS))
        try:
            near = functional_dimension(nearby_parameters(base, seed, scale), domain=domain,
                                        timeout=left, nearby=False, fiber=False,
                                        rational_rank=rational)
        except BudgetExhausted:
            near = None
        if near is None or not near.exact:
            if near is not None and not rational and not budget.exhausted():
                return ("the rank at a nearby θ was left open by its rank modulo a prime (under "
                        f"--timeout its exact rank is computed only up to {NEARBY_EXACT_PARAMETERS} "
                        "parameters): R22's reading (the rank locally constant) unchecked")
            return ("the rank at a nearby θ was not decided within the budget: R22's reading (the "
                    "rank locally constant) unchecked")
        if near.value > value:
            return (f"the functional dimension at a random θ' near θ is {near.value} > {value}: the "
                    "rank is not locally constant at θ, where N − rank can exceed the fiber's "
                    "dimension (three-layer-fibers R22)")
        if near.value == value:
            return ""
    return ("the functional dimension at every nearby θ' tried was below θ's (a region narrower "
            "than the step vanishes): R22's reading unchecked")


def _functional_dimension(net, *, domain, timeout, max_regions, samples, seed, budget, nearby,
                          cover, first_round, reserve_for_certificate,
                          fiber: bool = True, rational_rank: bool = True) -> FunctionalDimension:
    budget = budget or Budget(timeout)
    if isinstance(domain, Domain) and domain.legacy_or_none() != "other":
        domain = domain.legacy()
    elif isinstance(domain, Domain) and not domain.halfspaces:
        cs = box_input_map(domain.lo, domain.hi)
        sliced = None if cs is not None else compose_slice_map(net, domain.lo, domain.hi)
        if cs is not None or sliced is not None:   # a box with its own sides: read on the cube
            fd = functional_dimension(         # (R36), a slice's free coordinates only (R36 (b))
                compose_input_map(net, *cs) if cs is not None else sliced, domain=(Q(-1), Q(1)),
                timeout=timeout, max_regions=max_regions, samples=samples, seed=seed,
                budget=budget, nearby=nearby, cover=cover, first_round=first_round,
                reserve_for_certificate=reserve_for_certificate, fiber=fiber,
                rational_rank=rational_rank)
            return fd if cs is not None else on_slice(fd, net)
    dom = normalize_domain(domain, net.n_inputs)
    fd = _without_walk(net, dom, budget, nearby)
    if fd is not None:
        return fd
    if net.depth == 2 and net.n_parameters > min(RANK_ONLY, ONE_LAYER_FROM):   # the theorem,
        try:                                      # its hypotheses checked exactly (three-layer-
            with budget.active():                 # fibers R38, R39) where the rank is costly
                fd = one_layer_value(net, dom)
        except KeyboardInterrupt:                 # the budget or Ctrl-C: the partial answer
            budget.interrupt()
            fd = None
        if fd is not None:
            return fd
        if budget.exhausted() and net.n_parameters > SPENT_AT_ONCE:
            # the sandwich's set-up alone walks every parameter (a 4000-4000-1 net: a minute)
            return FunctionalDimension(net.n_parameters, 0, net.n_parameters,
                                       f"not closed: {budget.reason} while R38/R39 classified "
                                       "the neurons (nothing sampled)")
    run = _Sandwich(net, dom, budget)
    run.reserve = CERTIFICATE_RESERVE if reserve_for_certificate else 0.0
    run.rational = rational_rank
    with budget.active():              # every step counts its work; the timeout only stops
        stage = "walk"
        try:
            run.walk(timeout, max_regions, seed)
            stage = "sample"
            if run.N > RANK_ONLY and budget.timeout is not None:
                run.phases(samples, seed, first_round, cover)
            else:
                run.sample(samples, seed, first_round, cover)
                stage = "suspects"     # (the first round done: its rank stands as it was)
                run.decide_suspects()
                run.sample_again(samples, seed, first_round, cover)
        except KeyboardInterrupt:      # Ctrl-C, or BudgetExhausted inside an exact LP or at a
            budget.interrupt()         # check between the phases (it left the command with no
            if stage != "suspects":    # report: s45 Ctrl-C audit F6): the bounds so far; a walk
                run.complete = False   # or a first round cut anywhere never counts as complete
    fd = run.result()
    if fd.non_generic and nearby:      # (no walk: the neurons with zero row and bias, if any)
        kinks = sorted(set(run.kinks.values())) or zero_neurons(net)
        fd = _nearby(net, dom, fd, kinks, budget) if kinks else fd
    return fd


SPENT_AT_ONCE = 1_000_000
"""Above this many parameters a budget spent in the one-hidden-layer classification returns
bounds [0, N] at once: the sandwich's set-up (the Jacobian's structure, the first layer's kinks,
the symmetry directions) walks every parameter without a budget check."""


def _without_walk(net, dom, budget, nearby) -> FunctionalDimension | None:
    """The answer on a one-point domain, or when a zero neuron of the last hidden layer reaches
    the output (a kink at every input: non-generic); else None."""
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        point = one_point(net, dom[0])
        if point is not None:
            if point.non_generic and nearby:
                point = _nearby(net, dom, point, point.details["kinks"], budget)
            return point
    seen_zero = seen_zero_neurons(net)
    if not seen_zero:
        return None
    why = ("no input of the domain is a differentiable point of theta -> f_theta(x): neurons "
           f"{neuron_list(seen_zero)} of the last hidden layer have a zero row and a zero bias "
           "(a kink at every input) and a non-zero output column; the functional dimension is "
           "not defined at this theta")
    fd = non_generic(net, why, seen_zero)
    return _nearby(net, dom, fd, seen_zero, budget) if nearby else fd


def _nearby(net, dom, fd, kinks, budget) -> FunctionalDimension:
    """*fd* with the certified values at nearby parameters (:func:`with_nearby`)."""
    def solve(near, dom_, timeout):
        return functional_dimension(near, domain=dom_, timeout=timeout, nearby=False)

    def certify(near, sub, dom_):
        return functional_dimension_certificate(near, sub, domain=dom_, verify=False)

    return with_nearby(net, dom, fd, kinks, budget, solve, certify)


def _switching_first_layer(net, dom) -> int:
    """The first-layer neurons that can switch on *dom*: on a cube those whose pre-activation
    takes both signs on it (exact, at two vertices), elsewhere those with a non-zero row;
    neurons on one hyperplane (positive or negative multiples) counted once.  The first layer
    alone cuts the domain into at most Σ_{i <= min(n, d)} C(n, i) regions for n of them: the
    walk's gate (a 16-60-60-8 net on a ball of radius 1/100: 5 of 60 switch, 32 regions at most
    where all 60 gave ~10^14)."""
    if net.depth < 2:
        return 0
    W, b = net.layer(0)
    keys = set()
    for i in range(W.nrows):
        w = W.row_at(i)
        k = next((k for k, v in enumerate(w) if v != 0), None)
        if k is None:
            continue
        if isinstance(dom, tuple):
            lo, hi = dom
            mx = b[i] + sum((v * (hi if v > 0 else lo) for v in w), Q(0))
            mn = b[i] + sum((v * (lo if v > 0 else hi) for v in w), Q(0))
            if mx <= 0 or mn >= 0:
                continue
        keys.add(tuple(v / w[k] for v in w) + (b[i] / w[k],))
    return len(keys)


class _Sandwich:
    """The state of one :func:`functional_dimension` run: regions, proven directions (upper
    bound), Jacobian rows and their kernel mod p (lower bound), evidence from the samples."""

    def __init__(self, net, dom, budget):
        self.net, self.dom, self.budget = net, dom, budget
        self.N = net.n_parameters
        self.prime = network_prime(net)  # no denominator of θ divisible by it (reductions valid)
        self.regions: list = []
        self.complete, self.patterns, self.kinks = False, None, {}
        # the upper bound before any proven direction (a stop before :meth:`symmetries` ends)
        self.upper, self.sym, self.sym_rank, self.deficits, self.span = self.N, [], 0, (), None
        self.all_X: list = []
        self.rank, self.rounds, self.kernel = 0, 0, None  # kernel: basis mod p of every row's kernel,
                                         # compact: (P, free, piv) of gfp.kernel_rows_mod_p
        self.batch_sizes: list = []      # exact inputs per sampling batch (the clock may size them)
        self.fit_share = 0.25            # of the timeout's value for the sampling's eliminations
        self.kink_inputs = 0             # sampled inputs dropped: not differentiable points of θ
        self.evidence: dict = {}
        self.proofs: list = []
        self.proven: dict = {}
        self.skipped = ""                # why a sampling batch was not started (budget)
        self.directions_note = ""        # why only some proven directions were built (budget, memory)
        self.short: list = []            # walked regions without d + 1 inputs (batch_simplex)
        self.rows_done, self.done_cost = 0, 0.0   # rows eliminated, their estimated operations
        self._done_before = 0.0          # done_cost before the current batch was fitted
        self.rref_dropped = False                     # the span's RREF past REDUCE_SHARE
        self.row_span, self.rank_only = None, None    # N > RANK_ONLY: the rows' echelon form mod p, rank
        self.elim_seconds, self.reserve = 0.0, 0.0   # seconds of elimination (N > RANK_ONLY)
        self.round_cost = None           # (seconds, rows, rank before) of the last sampling round
        self.phase_end = None            # seconds of the budget at which the current phase stops
        self.rank_beside = False         # the exact rank taken off the proven directions' pivots
        self.rational = True             # an exact rational rank may close the sandwich
        self.span_seconds = 0.0          # the longest rank of the proven directions (seconds)

    @phased("walking regions")
    def walk(self, timeout, max_regions, seed) -> None:
        """Walk the linear regions (when the first layer alone allows it) and set the upper bound."""
        net, state = self.net, {}
        left = self.budget.remaining()     # a count of regions, and under a timeout a share of it
        walk_budget = Budget(None if left is None else WALK_SHARE * left, max_regions,
                             clock=self.budget.clock)
        n1, d = _switching_first_layer(net, self.dom), net.n_inputs
        first_layer_regions = sum(math.comb(n1, i) for i in range(min(n1, d) + 1))
        if first_layer_regions <= (WALK_SKIP_ABOVE if max_regions is None else max_regions):
            try:                        # the timeout (an active budget) only stops the walk
                for r in joint_regions([net], domain=self.dom, budget=walk_budget, state=state,
                                       seed=seed, multipliers=False):
                    self.regions.append(r)
            except KeyboardInterrupt:
                self.budget.interrupt()
                state["complete"] = False
        self.complete = bool(state.get("complete"))
        self.patterns = [r.pattern for r in self.regions] if self.complete else None
        # regions on which a neuron has sign 0 (its pre-activation vanishes on the whole region, a
        # zero row with a zero bias included) that the network above it sees: no input there is a
        # differentiable point of theta -> f_theta(x) (algebra.kernel.differentiability)
        for r in self.regions:
            if 0 in r.pattern:
                w = kink_witness(net, r.pattern)
                if w is not None:
                    self.kinks[r.pattern] = w
        self.symmetries()

    @phased("symmetry directions (the upper bound)")
    def symmetries(self) -> None:
        """The proven directions, their rank and the upper bound N − rank.  When the budget
        stops the rank of a larger set of directions below the rank found before (a partial
        rank), the earlier directions and bound are kept (both bounds are valid)."""
        before = getattr(self, "span", None) and (self.sym, self.deficits, self.span, self.sym_rank, self.upper)
        self.directions_note = ""
        self.sym, self.deficits = symmetry_directions(self.net, domain=self.dom, patterns=self.patterns,
                                                      proven=self.proven or None, sparse=True,
                                                      stop=self._directions_stop())
        self.span = ProvenSpan(self.sym, self.N, self.prime)
        self.sym_rank = self._span_rank()      # rank mod p <= rank over Q: the upper bound stays valid
        left, k = self.budget.remaining(), len(self.sym)
        if (not before and self.N <= RANK_ONLY and k and left is not None
                and k * self.N * min(k, self.N) / SAMPLING_RATE > REDUCE_SHARE * left):
            self.rref_dropped = True           # estimated past its share: not started
        elif (not before and self.N <= RANK_ONLY and self.sym and not self.complete   # (a complete
              and not self.budget.exhausted()):  # walk samples its regions alone: no missing directions)
            try:                       # paid at the start of the run, not when the sampling
                self.span.reduced(self._share_check(REDUCE_SHARE))   # needs it near the
            except BudgetExhausted:    # budget's end; stopped by the budget or its share
                self.rref_dropped = not self.budget.exhausted()   # past the share: not searched
        self.upper = self.N - self.sym_rank
        if before and before[3] > self.sym_rank:
            self.sym, self.deficits, self.span, self.sym_rank, self.upper = before

    def _directions_stop(self):
        """The *stop* of :func:`symmetry_directions`: the budget spent (past :data:`DIRECTIONS_FREE`
        entries) or :data:`DIRECTIONS_ENTRIES` passed (the entries counted once each); sets
        ``directions_note`` when it stops."""
        seen = [0, 0]                         # vectors counted, their entries

        def stop(vecs) -> bool:
            seen[1] += sum(len(v) for v in vecs[seen[0]:])
            seen[0] = len(vecs)
            why = ("the budget ran out" if seen[1] > DIRECTIONS_FREE and self.budget.exhausted() else
                   f"past {DIRECTIONS_ENTRIES} entries" if seen[1] > DIRECTIONS_ENTRIES else "")
            if why:
                self.directions_note = (f"only {len(vecs)} proven symmetry directions were built "
                                        f"({seen[1]} entries; {why})")
            return bool(why)
        return stop

    def _span_rank(self) -> int:
        """``ProvenSpan.rank`` under the budget (the partial sandwich when it runs out)."""
        k, t0 = len(self.span.vectors), time.monotonic()
        r = self.span.rank(self.budget)
        self.span_seconds = max(self.span_seconds, time.monotonic() - t0)
        if self.span.ranked < k and not self.skipped:
            self.skipped = f"the rank of {self.span.ranked} of the {k} proven directions (the budget ran out)"
        return r

    def add_rows(self, X, masks, first_rows=None) -> None:
        """Add the rows at the exact inputs *X* (their masks) to the kernel mod p and the rank.
        Above :data:`RANK_ONLY` parameters the elimination stops at the budget (BudgetExhausted)
        with the span, the rank and the inputs as they were.  A later batch (the kernel held) goes
        in chunks of about :data:`ADD_CHUNK_ROWS` rows, the budget checked between them: a stop
        keeps the chunks done, their inputs and the rank they give (its Jacobian rows, which no
        budget stops, took 10.6 s for one batch of the digits 64-32-16-10 net)."""
        if self.N <= RANK_ONLY and self.kernel is not None:
            step = max(1, ADD_CHUNK_ROWS // max(1, self.net.n_outputs))
            try:
                for c in range(0, len(X), step):
                    if c:
                        self._check()
                    R = jacobian_rows(self.net, X[c:c + step], [M[c:c + step] for M in masks], self.prime)
                    self.kernel = shrink_kernel_rows_mod_p(*self.kernel, R, self.prime, check=self._check)
                    self.all_X += X[c:c + step]
                    self.rows_done += len(R)
            except BudgetExhausted:      # the chunks done stay: their rank is a lower bound
                self.rank = max(self.rank, self.N - len(self.kernel[1]))
                raise
            return
        R = jacobian_rows(self.net, X, masks, self.prime)
        if self.N > RANK_ONLY:          # a kernel basis would hold ~N^2 entries: ranks only
            if self.row_span is None:
                self.row_span = BlockSpan(self.N, self._check, self.prime)
            t0 = time.monotonic()
            try:
                self.row_span.add_residues(R)
            finally:
                self.elim_seconds += time.monotonic() - t0
            self.rank_only = self.row_span.rank
        elif self.kernel is None:      # stopped by the budget between panels (a batch fitted
            K = None                   # to the time left ran 3.5 CPU s past it under load)
            try:
                K = kernel_rows_mod_p(R[:first_rows], self.prime, check=self._check)
                self.kernel = shrink_kernel_rows_mod_p(*K, R[first_rows:], self.prime, check=self._check)
            except BudgetExhausted as exc:   # the first batch: the rank found so far is kept
                found = self.N - len(K[1]) if K is not None else getattr(exc, "partial_rank", 0)
                if found > self.rank:        # (a lower bound of the rank mod p of the rows at
                    self.rank = found        # these inputs: the certificate lists them all)
                    self.all_X += X
                raise
        self.all_X += X
        self.rows_done += len(R)

    def _check(self) -> None:
        """Between two panels of an elimination: stop when the budget is spent."""
        if self.budget.exhausted():
            raise BudgetExhausted(self.budget.reason)

    def _share_check(self, share: float):
        """:meth:`_check`, and a stop (BudgetExhausted, the budget left as it is) once *share*
        of the time left now has passed."""
        left = self.budget.remaining()
        if left is None:
            return self._check
        end = self.budget.elapsed() + share * left

        def check() -> None:
            self._check()
            if self.budget.elapsed() >= end:
                raise BudgetExhausted(f"{share:g} of the time left")
        return check

    def walked_fitting(self, points: list, m: int) -> list:
        """The walked regions' inputs (:func:`batch_simplex`: every base, then the steps), cut
        under a timeout to the first ones whose elimination mod p fits a quarter of the timeout
        and half of the time left (all of them are one batch: one that does not fit was dropped
        whole, and a walk of many regions in 64 inputs left 0 inputs); a cut walk no longer
        gives the value (``complete`` False: sampling goes on)."""
        T, left = self.budget.timeout, self.budget.remaining()
        if T is None or left is None or not points:
            return points
        cap = min(T / 4, left / 2) * SAMPLING_RATE
        cost = lambda k: k * m * self.N * min(k * m, self.N, max(1, self.upper))
        k = len(points)
        while k and cost(k) > cap:
            k = k * 3 // 4
        if k < len(points):
            self.complete = False
            self.skipped = (f"the inputs of {len(points)} of the walked regions' points cut to {k} "
                            "(the elimination of them all would not fit the budget)")
        return points[:k]

    def rank_batch(self, want: int, m: int) -> int:
        """The next batch above :data:`RANK_ONLY` parameters: *want* inputs, at most
        :data:`RANK_BATCH`, fewer when the time left would not see it through (a batch stopped
        by the budget adds nothing): its seconds are estimated from the last round's, which grow
        like rows · (rank + rows) (the reduction by the rows held, then the elimination of the
        rest).  A certificate's reserve (:data:`CERTIFICATE_RESERVE` times the elimination time)
        is kept out of the time left.  At most :data:`ROWS_BYTES` of rows; 0 when not even 16
        inputs (or that many rows, if fewer) fit."""
        least = max(1, min(16, ROWS_BYTES // (8 * self.N * m)))
        want = min(want, RANK_BATCH, max(least, ROWS_BYTES // (8 * self.N * m)))
        total = left = self.budget.remaining()
        if left is not None and self.phase_end is not None:
            left = min(left, self.phase_end - self.budget.elapsed())
        if left is None:
            return want
        if self.round_cost is None:      # the first batch: the prior rate per row entry
            cost = lambda k: ROW_ENTRY_SECONDS * k * m * self.N
        else:
            seconds, rows, rank = self.round_cost
            per = seconds / max(1, rows * (rank + rows))
            cost = lambda k: per * k * m * (self.rank + k * m)
        # the batch must fit the phase; the certificate's reserve is kept out of the whole
        # budget, not of the phase's share (it shrank every batch of a phase: ACAS Xu `dim --box
        # file --timeout 40` lower 1 826 with --certificate, 3 807 without; s40 dimscale F2)
        while want >= least and (cost(want) > left or cost(want) + self.reserve * (
                self.elim_seconds + cost(want)) > total):
            want = want * 3 // 4 if want > least + 1 else want - 1
        if want < least:
            keep = self.reserve * (self.elim_seconds + cost(least))
            if self.phase_end is not None and self.phase_end < self.budget.timeout:
                return 0                 # the end of a phase, not of the sampling
            self.skipped = (f"sampling stopped with {left:.1f} s left: a batch of {least} more inputs "
                            f"would take about {cost(least):.1f} s" +
                            (f" and the certificate's rank calls, which cannot be stopped, about "
                             f"{keep:.1f} s" if self.reserve else ""))
            return 0
        return want

    def fitted(self, want: int, extra: int, m: int, least: int = 16) -> int:
        """*want* inputs, or fewer so that the batches' elimination (the estimate of
        :meth:`affordable`, all batches so far included) takes at most ``fit_share`` (a quarter;
        :data:`AGAIN_SHARE` in a later phase) of the *timeout* (its value, not the clock: the same
        timeout gives the same batches); 0 when not even *least* inputs fit."""
        T = self.budget.timeout
        if T is None:
            return want
        cap = T * self.fit_share * SAMPLING_RATE
        if self.rows_done:            # later batches shrink the kernel: ~ rows · N · dim(kernel)
            cost = lambda k: (extra + k) * m * self.N * max(1, self.kernel_dim()) + self.done_cost
        else:
            cost = lambda k: (extra + k) * m * self.N * min((extra + k) * m, self.N, max(1, self.upper)) + self.done_cost
        while want >= least and cost(want) > cap:
            want = max(least - 1, want * 3 // 4) if want > least else want - 1
        if want < least:
            return 0
        self.done_cost = cost(want)
        return want

    def refitted(self, chosen: list, want: int, extra: int, m: int) -> list:
        """*chosen* (the *want* inputs :meth:`fitted` allowed, plus the weight-cover inputs that
        :func:`chosen_inputs` adds) cut to what the timeout's estimate allows for the whole batch
        (at least the *want* first ones): the cover inputs were not in the estimate (``dim
        digits_64-32-10 --timeout 20``: 1 589 inputs for a fitted 29)."""
        if self.budget.timeout is None or len(chosen) <= want:
            return chosen
        before = self.done_cost
        self.done_cost = self._done_before
        k = self.fitted(len(chosen), extra, m, least=want)
        if not k:
            self.done_cost = before
            return chosen[:want]
        return chosen[:k]

    def exact_fits(self, npts: int) -> bool:
        """Whether the exact rational rank of the rows (one FLINT call no budget can stop, about
        EXACT_SLOWDOWN times the cost of the elimination mod p) fits a quarter of the *timeout*
        (its value, not the clock) and the budget is not spent.  Without a timeout the call is
        still capped at :data:`EXACT_CALL_CAP` seconds of estimated work, so that Ctrl-C is seen
        (2026-12-03 audit: ``dim`` of ACAS Xu, Ctrl-C at 6 s, exit after 316 s)."""
        T = self.budget.timeout
        rows = npts * max(1, self.net.n_outputs)
        cost = rows * self.N * min(rows, self.N) * EXACT_SLOWDOWN / ELIMINATION_RATE
        return cost <= (EXACT_CALL_CAP if T is None else T / 4) and not self.budget.exhausted()

    def beside_fits(self, npts: int) -> bool:
        """Whether :func:`~semialgebraic.dimension.jacobian.rank_beside` fits: the rows on the
        N − (symmetry rank) columns the proven directions leave, at most :data:`BESIDE_ENTRIES`
        entries, their exact rank (one FLINT call) within a quarter of the *timeout*'s value
        (:data:`EXACT_CALL_CAP` without one) at :data:`ELIMINATION_RATE`, and time left."""
        rows, cols = npts * max(1, self.net.n_outputs), max(1, self.N - self.sym_rank)
        T = self.budget.timeout
        cost = rows * cols * min(rows, cols) / ELIMINATION_RATE
        return (rows * cols <= BESIDE_ENTRIES and cost <= (EXACT_CALL_CAP if T is None else T / 4)
                and not self.budget.exhausted())

    def spread_count(self) -> int:
        """Inputs spread from each witness of a rarely met sign set (:func:`spread_points`):
        :data:`SPREAD` without a timeout; with one, as many as an eighth of the *timeout* (its
        value, not the clock) affords in the kernel's shrinking (about (d + 1) rows per input,
        each costing N · dim(kernel) operations at :data:`ELIMINATION_RATE`), between
        :data:`SPREAD` and :data:`SPREAD_MAX`: a count of work, so the same seed and timeout
        give the same inputs, and a larger budget buys more of them."""
        T = self.budget.timeout
        if T is None:
            return SPREAD
        per_input = (self.net.n_inputs + 1) * max(1, self.net.n_outputs) * self.N * max(1, self.kernel_dim())
        return int(min(SPREAD_MAX, max(SPREAD, T / 8 * ELIMINATION_RATE / per_input / SPREAD_WITNESSES)))

    def kernel_dim(self) -> int:
        return self.N if self.kernel is None else len(self.kernel[1])

    def affordable(self, rows: int) -> bool:
        """Whether a sampling batch of *rows* Jacobian rows fits the time left: its elimination
        mod p (about rows · N · min(rows, N, upper) float64 operations: the rank of the rows is at
        most the proven upper bound, and the elimination's work grows with it; at a conservative
        ``SAMPLING_RATE`` per second) is one numpy/FLINT call that no budget can stop, so a
        batch that does not fit is not started (the reason says so)."""
        left = self.budget.remaining()
        if left is None:
            return True
        seconds = rows * self.N * min(rows, self.N, max(1, self.upper)) / SAMPLING_RATE
        if seconds <= left:
            return True
        self.skipped = (f"a sampling batch of {rows} Jacobian rows (about {seconds:.0f} s of exact "
                        f"elimination mod p) does not fit the {left:.1f} s left of the budget")
        self.budget.reason = self.budget.reason or "timeout: " + self.skipped
        return False

    @phased("sampling inputs, exact Jacobian ranks")
    def sample(self, samples, seed, first_round, cover, again: bool = False) -> None:
        """Rounds of chosen inputs until the rank meets the upper bound, stalls or the budget ends.
        *again*: a later sampling phase under a timeout (:meth:`sample_again`): its batches double
        from the later rounds' size while they stall, within :data:`AGAIN_SHARE` of the timeout's
        value, and it stops after two stalled rounds of its own."""
        import numpy as np
        net, N, upper = self.net, self.N, self.upper
        start, stalls = self.rounds, 0
        self.fit_share = AGAIN_SHARE if again else 0.25
        nrng = np.random.default_rng(seed)
        m = max(1, net.n_outputs)
        first_rows = min(N + 64, int(1.3 * upper) + 64)   # eliminated once; later rows shrink the kernel
        short: list = []                 # regions that did not get d + 1 of the points
        new_points = [] if self.rounds else batch_simplex(net, [reg.point for reg in self.regions],
                                                          self.dom, short)
        if not self.rounds:
            self.short = [self.regions[i].pattern for i in short
                          if self.regions[i].pattern not in self.kinks]
            new_points = self.walked_fitting(new_points, m)
        while True:
            t0, rank0, held = time.monotonic(), self.rank, len(self.all_X)
            try:
                if not self.complete:
                    want = samples or (max(16, int(first_round * upper) // m + 16) if not self.rounds
                                       else max(16, upper // (8 * m)))
                    if again:
                        want = want << min(self.rounds - start, 6)
                    if N > RANK_ONLY:          # small batches first, doubling: each one that
                        want = self.rank_batch(min(want, 16 << self.rounds), m)   # finishes raises
                        if not want and not new_points:                       # the lower bound
                            break
                    else:
                        self._done_before = self.done_cost
                        want = self.fitted(want, len(new_points), m)
                        if new_points and not (want and self.affordable(len(new_points) * m + want * m)):
                            want = 0           # the walked regions' inputs alone (cut to fit)
                        elif not want or not self.affordable(len(new_points) * m + want * m):
                            break
                    if want:
                        if self.kernel is not None and self.rank < upper:
                            self.evidence["missing"] = self.missing(limit=24)
                        chosen = chosen_inputs(net, self.dom, nrng, want, 10 * want + 2000, self.evidence,
                                               self.rounds, cover=cover)
                        if N > RANK_ONLY:      # the weight-cover inputs too: at most `want` in all
                            chosen = chosen[:want]
                        else:
                            chosen = self.refitted(chosen, want, len(new_points), m)
                        new_points = new_points + chosen
                X, masks = exact_masks(net, new_points)
                self.kink_inputs += len(new_points) - len(X)
                new_points = []
                if X:
                    self.add_rows(X, masks, first_rows)
                    self.round_cost = (time.monotonic() - t0, len(X) * m, rank0)
                new_rank = (self.rank_only if self.rank_only is not None else
                            N - len(self.kernel[1]) if self.kernel is not None else 0)
                self.rounds += 1
                self.batch_sizes.append(len(X))
                stalled = new_rank <= self.rank
                stalls += stalled
                productive = new_rank >= self.rank + 4         # sampling still finds new directions
                self.rank = max(self.rank, new_rank)
                _log.debug("round %d points %d rank %d upper %d", self.rounds, len(self.all_X),
                           new_rank, upper)
                rank_only_open = N > RANK_ONLY and self.budget.timeout is not None
                if (self.complete or self.rank >= upper or self.budget.exhausted()
                        or (self.phase_end is not None and self.budget.elapsed() >= self.phase_end)
                        or (stalled and self.rounds >= 2 and not again) or stalls >= 2
                        or (not rank_only_open and not again and   # a timeout: batches until it is spent
                            self.rounds >= (6 if productive else 4) + (6 if N > RANK_ONLY else 0))):
                    break
            except KeyboardInterrupt:        # Ctrl-C: report the bounds established so far
                self.budget.interrupt()
                self.complete = False        # the rank of a partial sample is only a lower bound
                if len(self.all_X) > held:   # a first batch stopped with its rank so far kept:
                    self.rounds += 1         # its inputs count as a batch of the work done
                    self.batch_sizes.append(len(self.all_X) - held)
                break

    def sample_again(self, samples, seed, first_round, cover) -> None:
        """Under a timeout, up to :data:`RANK_ONLY` parameters, with the interval still open and
        time left after the suspects: another sampling phase (seed + 1: other inputs) whose
        batches double while they stall (rare regions need many inputs), within
        :data:`AGAIN_SHARE` of the timeout's value, until two of its rounds stall.  Not with a
        certificate to build (``reserve``): its rank calls, which no budget stops, need the time
        left (a phase run to the deadline would leave the upper bound uncertified)."""
        if (self.budget.timeout is None or self.N > RANK_ONLY or self.kernel is None or self.reserve
                or self.complete or self.rank >= self.upper or self.budget.exhausted()):
            return
        self.sample(samples, seed + 1, first_round, cover, again=True)

    def phases(self, samples, seed, first_round, cover) -> None:
        """Above :data:`RANK_ONLY` parameters with a timeout (:data:`RANK_PHASES`): sampling, the
        neurons never seen active / inactive, sampling again until the timeout (with a
        certificate's reserve too: under a deadline the certificate takes the run's proofs as
        recorded, one check for all, :meth:`certificate._UpperEntries.add_recorded`)."""
        t0, left = self.budget.elapsed(), self.budget.remaining()
        try:
            self.phase_end = t0 + RANK_PHASES[0] * left
            self.sample(samples, seed, first_round, cover)
            if not self.budget.exhausted() and self.rank < self.upper:
                self.decide_neurons(t0 + RANK_PHASES[1] * left)
            _log.debug("neurons decided at %.1f s: upper %d, rank %d, skipped %r",
                       self.budget.elapsed(), self.upper, self.rank, self.skipped)
            self.phase_end = None
            if not self.budget.exhausted() and self.rank < self.upper:
                self.sample(samples, seed + 1, first_round, cover)
        except KeyboardInterrupt:      # Ctrl-C or BudgetExhausted outside the sampling
            self.budget.interrupt()

    @phased("neurons never seen active, exactly")
    def decide_neurons(self, until: float) -> None:
        """The neurons never seen active / inactive among the sampled inputs, decided by
        :func:`prove_suspects` (no kernel here: no missing directions, no weights) until
        *until* seconds of the budget: proven dead / always-active neurons lower the upper
        bound, witnesses (and inputs spread from them) add rows.  *until* None: no time limit
        (the searches' work is counted; the run's budget still stops them)."""
        share = Budget(None if until is None else max(0.0, until - self.budget.elapsed()),
                       clock=self.budget.clock)
        evidence = {k: v for k, v in self.evidence.items() if k in ("never_on", "never_off")}
        with share.active():
            proven, witnesses, proofs = prove_suspects(self.net, self.dom, evidence, share,
                                                       spread=SPREAD)
        if evidence.get("open_emptiness"):
            self.evidence["open_emptiness"] = evidence["open_emptiness"]
        if proven:
            self.proven, self.proofs = proven, proofs
            self.symmetries()
        if witnesses and not self.budget.exhausted():
            cap = max(1, ROWS_BYTES // (8 * self.N * max(1, self.net.n_outputs)))   # d + 1 inputs
            Xw, masks = exact_masks(self.net, batch_simplex(self.net, witnesses, self.dom)[:cap])   # each
            if Xw:
                self.add_rows(Xw, masks)
                self.rank = max(self.rank, self.rank_only)

    @phased("what the samples flag, exactly")
    def decide_suspects(self) -> None:
        """Exact decisions for what the samples flag (:func:`prove_suspects`): witnesses raise
        the rank, proven facts lower the upper bound."""
        if self.rank >= self.upper or self.complete or self.budget.exhausted():
            return
        if self.kernel is None:          # above RANK_ONLY without a timeout: the neurons only
            if self.row_span is not None and "never_on" in self.evidence:
                self.decide_neurons(None)
            return
        net = self.net
        self.evidence["missing"] = self.missing()
        if self.budget.exhausted():
            return
        handed = [0]

        def found(new: list) -> bool:  # exact inputs where a suspect parameter is exercised:
            handed[0] += len(new)      # their rows at once (the rest of the searches may need
            self.witness_rows(new)     # the whole budget), and no further search once the
            return self.rank >= self.upper          # rank meets the upper bound

        self.proven, witnesses, self.proofs = prove_suspects(net, self.dom, self.evidence, self.budget,
                                                             spread=self.spread_count(), found=found)
        self.witness_rows(witnesses[handed[0]:])
        if self.proven:
            self.symmetries()
        if self.rank < self.upper:
            self.evidence["missing"] = self.missing()

    def witness_rows(self, witnesses: list) -> None:
        """Add the rows at d + 1 inputs around each exact witness (:func:`batch_simplex`) to the
        kernel mod p and the rank; nothing once the budget is spent (a later batch stopped adds
        nothing: its rows would only run past the deadline)."""
        if not witnesses or self.budget.exhausted():
            return
        Xw, masks = exact_masks(self.net, batch_simplex(self.net, witnesses, self.dom))
        if Xw:
            self.add_rows(Xw, masks)
            self.rank = max(self.rank, self.N - len(self.kernel[1]))

    def missing(self, limit: int = 12) -> list:
        """:func:`missing_directions` of the kernel so far, stopped by the budget (a guide for the
        sampling and the reason only: stopped, the directions found before are kept)."""
        if self.rref_dropped:          # the span's RREF did not fit its share (REDUCE_SHARE)
            return []
        try:
            return missing_directions(self.kernel, self.span, limit=limit, check=self._check)
        except BudgetExhausted:
            return self.evidence.get("missing") or []

    def result(self) -> FunctionalDimension:
        """The bounds, the reason and the deficits."""
        net, N, npts = self.net, self.N, len(self.all_X)
        lower, upper, deficits = self.rank, self.upper, self.deficits
        how = "rank mod p of the Jacobian rows (a lower bound of the rational rank)"
        exact, hints = False, []
        limit = EXACT_LIMIT_COMPLETE if self.complete else EXACT_LIMIT
        try:                 # (a Ctrl-C in these exact ranks, no budget stops: the bound mod p)
            if not self.rational:
                pass
            elif lower < upper and npts and npts * N <= limit and self.exact_fits(npts):
                lower, how, exact = exact_rank(net, self.all_X), "exact rational rank of the Jacobian rows", True
            elif lower < upper and self.complete and not self.short and npts and self.sym and self.beside_fits(npts):
                got = rank_beside(net, self.all_X, self.sym, self.prime)   # the rows are orthogonal
                if got is not None:                                        # to the proven directions
                    lower, exact, self.rank_beside = got, True, True
                    how = ("exact rational rank of the Jacobian rows (on the parameters the proven "
                           "directions' pivots leave)")
        except KeyboardInterrupt:
            self.budget.interrupt()
        # the rank is the value only when every differentiable region holds d + 1 affinely
        # independent inputs (its rows then span the region's); a modular bound keeps the interval
        complete = self.complete and not self.short and (lower >= upper or exact)
        if complete:
            upper_claim, upper = upper, lower   # every region sampled: the rank is the value
            reason = f"{how} at d + 1 inputs in each of the {len(self.regions)} linear regions (complete)"
            if lower < upper_claim:
                k = upper_claim - lower
                deficits = deficits + (f"{k} further dimension{'s' if k != 1 else ''} of the fiber "
                                       f"{'are' if k != 1 else 'is'} not explained by the known symmetries",)
        elif lower == upper:
            reason = f"{how} at {npts} inputs meets N - rank of the known symmetry directions"
        else:
            reason = (f"not closed: {how} at {npts} inputs gives {lower}, known symmetries give "
                      f"<= {upper}; to close it sample longer (--timeout; netfibers dim --max-regions K "
                      "walks the linear regions when the first layer cuts the domain into at "
                      "most K) or find the missing symmetry")
            hints = _evidence_lines(net, self.evidence, self.proven, deficits)
            if hints:
                reason += "; evidence from the sampled inputs (float guesses, unproven): " + "; ".join(hints)
        if self.skipped:
            reason += f"; {self.skipped}"
        if not complete and self.budget.interrupted:     # say what stopped it (budget audit L2)
            reason += "; interrupted (Ctrl-C)"
        if not npts and self.kink_inputs and not self.complete:
            reason += (f"; none of the {self.kink_inputs} sampled inputs is a differentiable point "
                       "of theta -> f_theta(x) (a neuron's pre-activation vanishes there and the "
                       "network above sees it): theta may be non-generic on the whole domain, "
                       "which a complete region walk decides (--max-regions)")
        if self.directions_note:
            reason += f"; {self.directions_note}"
        if self.complete and self.short:
            reason += (f"; {len(self.short)} of the walked regions are too thin for d + 1 inputs "
                       "at steps down to 2^-160, so their rank is not complete")
        deficits, non_gen, reason = self.vanishing_regions(tuple(deficits), reason)
        if not non_gen and upper == 0 < N and net.n_outputs:
            # every parameter is a proven kernel direction, the output biases included, whose
            # Jacobian entries are 1 at every differentiable input: so there is none (the
            # directions hold vacuously; dim_campaign seed 32629 without the walk said "exactly 0")
            non_gen = ("no input of the domain is a differentiable point of theta -> f_theta(x): the "
                       "proven kernel directions span every parameter, the output biases included, "
                       "whose Jacobian entries are 1 at any differentiable input; the functional "
                       "dimension is not defined at this theta")
            reason = "non-generic: " + non_gen
        return FunctionalDimension(N, lower, upper, reason, deficits, complete, npts,
                                   {"symmetry_rank": self.sym_rank, "regions_walked": len(self.regions),
                                    "evidence_lines": hints if lower < upper and not complete else [],
                                    "rounds": self.rounds, "batch_sizes": self.batch_sizes,
                                    "exercise_proofs": self.proofs,
                                    "prime": self.prime, "proven": self.proven, "patterns": self.patterns,
                                    "rank_beside": self.rank_beside,
                                    "directions_seconds": self.span_seconds,
                                    "kink_regions": self.informative_kinks(lower, complete and not non_gen)},
                                   tuple(tuple(x) for x in self.all_X), non_gen)

    def informative_kinks(self, value: int, exact: bool) -> int:
        """The regions holding no differentiable input (``kinks``), unless their inputs are known
        to add nothing: 0 when the exact rank of the rows at every region's inputs, the kink
        neurons masked 0 there (the one-sided rows of the moves that keep them off), is *value*
        (a complete walk's exact value): then θ is as generic as where no region is a kink
        region, for three-layer-fibers R22's reading of N − rank as the fiber's dimension.  A
        2-1-2-2 net whose kink region carries the constant of the function has rank 6 there
        against 5: its fiber (7) is below N − 5 = 8 (:func:`~.directions.fiber_lower`'s
        *generic*).  Without that check (no complete walk, or the rank does not fit the
        budget) the count of kink regions."""
        kinks = [r for r in self.regions if r.pattern in self.kinks]
        if not kinks or not exact:
            return len(kinks)
        extra = batch_simplex(self.net, [r.point for r in kinks], self.dom)
        pts = list(self.all_X) + extra
        if not extra or not self.exact_fits(len(pts)):
            return len(kinks)
        return 0 if exact_rank(self.net, pts) == value else len(kinks)

    def vanishing_regions(self, deficits, reason) -> tuple:
        """(deficits, non-generic reason, reason) with the regions that hold no differentiable
        input (a complete walk only)."""
        vanishing = [r for r in self.regions if r.pattern in self.kinks]
        if not vanishing or self.patterns is None:
            return deficits, "", reason
        named = sorted(set(self.kinks.values()))
        deficits = deficits + (
            f"{len(vanishing)} of the {len(self.regions)} linear regions hold no differentiable input (a "
            "neuron's pre-activation vanishes on the whole region and the network above it depends "
            f"on its output: neurons {neuron_list(named)}; theta is not generic there); inputs there "
            "are not counted",)
        if len(vanishing) < len(self.regions):
            return deficits, "", reason
        why = ("no input of the domain is a differentiable point of theta -> f_theta(x): "
               "on every linear region a neuron's pre-activation vanishes identically and "
               f"the network above it depends on its output ({neuron_list(named)}; theta "
               "lies on a kink of the parametrisation); the functional dimension is not "
               "defined at this theta")
        return deficits, why, "non-generic: " + why


SHOWN = 24
"""Neurons listed by name in one evidence line; the rest counted (a 64-3072-64 block listed
1 300 of them on one line)."""


def _some(named: list) -> str:
    """*named* as a list, or its first :data:`SHOWN` and a count of the rest.

    >>> _some([(1, 0), (1, 2)]), _some([(1, i) for i in range(30)]).endswith('(1, 23)] and 6 more')
    ('[(1, 0), (1, 2)]', True)
    """
    if len(named) <= SHOWN:
        return str(named)
    return f"{named[:SHOWN]} and {len(named) - SHOWN} more"


class _NameOf:
    """``pn[j]``: the name of parameter *j* as :meth:`Network.parameter_names` gives it, made
    for the few indices asked (layer by layer: ``W{l}[i,j]`` row by row, then ``b{l}[i]``).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1, 2], [3, 4]], [[1, 1]]], [[0, 0], [0]])
    >>> [_NameOf(net)[j] for j in range(net.n_parameters)] == list(net.parameter_names())
    True
    """

    def __init__(self, net):
        self.shapes = [(net.widths[l + 1], net.widths[l]) for l in range(net.depth)]

    def __getitem__(self, j: int) -> str:
        j = int(j)
        for l, (rows, cols) in enumerate(self.shapes, start=1):
            if j < rows * cols:
                return f"W{l}[{j // cols},{j % cols}]"
            j -= rows * cols
            if j < rows:
                return f"b{l}[{j}]"
            j -= rows
        raise IndexError("parameter index out of range")


def _evidence_lines(net, evidence, proven=None, deficits=()) -> list:
    """One line per kind of evidence from the samples (never active / inactive neurons, weights
    never exercised, kernel directions the proven symmetries do not explain).  Neurons *proven*
    dead / always active, and those of the ``dead neuron (l, i)`` *deficits* (dead by interval
    bounds too), are not listed again as guesses, nor the weights a dead neuron frees."""
    import re

    import numpy as np
    pn = _NameOf(net)                # (all 17 M names of a 64-4096-4096-1 net: 5 s, s49)
    names = []
    for l, w in enumerate(net.widths[1:-1]):
        names += [(l + 1, i) for i in range(w)]
    proven = proven or {}
    dead = {names[g] for g in proven.get("dead", ())} | {   # their weights are free, proven
        (int(m[1]), int(m[2])) for m in (re.match(r"dead neuron \((\d+), (\d+)\):", d) for d in deficits) if m}
    lines = []
    if "never_on" in evidence:
        never_on = [names[g] for g in np.flatnonzero(evidence["never_on"]) if names[g] not in dead]
        never_off = [names[g] for g in np.flatnonzero(evidence["never_off"])
                     if g not in proven.get("active", ())]
        if never_on:
            lines.append(f"neurons never active at the sampled inputs {_some(never_on)} (if "
                         "provably dead, their parameters are free)")
        if never_off:
            lines.append(f"neurons never inactive at the sampled inputs {_some(never_off)} (if "
                         "provably always active, bias trades / linear blocks apply)")
    un = [(l, i, k) for l, i, k in evidence.get("unexercised") or ()
          if (l + 1, i) not in dead and not (l and (l, k) in dead)]
    if un:
        lines.append(f"{len(un)} weights never exercised (delta and input never both non-zero), "
                     f"e.g. {['W%d[%d,%s]' % (l + 1, i, k) for l, i, k in un[:4]]}")
    for targets, upper, splits in (evidence.get("open_emptiness") or [])[:6]:
        lines.append(f"{_question_text(targets)}? undecided: branch and bound reached max G <= "
                     f"{float(upper):.3g} (not <= 0) after {splits} splits "
                     "(semialgebraic.bab.emptiness; G > 0 exactly where every sign holds)")
    miss = evidence.get("missing") or []
    if miss:
        shown = ["+".join(pn[j] for j in sup[:4]) + ("+..." if len(sup) > 4 else "") for sup in miss[:6]]
        lines.append(f"kernel directions mod p not explained by the proven symmetries (supports): "
                     f"{shown}; each is either exercised only on inputs not sampled yet or an "
                     "unproven symmetry (a proof that the parameters' Jacobian columns satisfy "
                     "that relation on every region closes the gap)")
    return lines


def _question_text(targets: dict) -> str:
    """``(2, 8) active and (3, 22) active never together`` / ``(2, 25) never active`` for a
    branch-and-bound emptiness question (1-based hidden layers, as in the evidence lines).

    >>> _question_text({(1, 8): 1, (2, 22): 1}), _question_text({(1, 25): 1}), _question_text({(0, 3): -1})
    ('(2, 8) active and (3, 22) active never together', '(2, 25) never active', '(1, 3) never inactive')
    """
    parts = [(f"({t + 1}, {j})", "active" if s > 0 else "inactive") for (t, j), s in sorted(targets.items())]
    if len(parts) == 1:
        return f"{parts[0][0]} never {parts[0][1]}"
    return " and ".join(f"{n} {w}" for n, w in parts) + " never together"
