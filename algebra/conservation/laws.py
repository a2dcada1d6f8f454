r"""Conservation laws of gradient flow for ReLU networks, exactly (three-layer-fibers §8).

For a fixed activation pattern ``p`` (one on/off flag per hidden neuron) the output
$f_{p,\theta}(x)$ is a polynomial in the parameters θ (sums of products of weights along active
paths), affine in the input x.  Gradient flow of any loss over data whose patterns are ``p_1, …``
moves θ inside the span of the *gradient fields* $V_{p,o,x}(\theta) = \nabla_\theta f_{p,o}(\theta, x)$
(polynomial vector fields), as long as the patterns on the data stay fixed.  A function h is
conserved iff $\langle \nabla h, V_{p,o,x} \rangle = 0$ for every field; the number of independent
conserved functions near θ is $N - \dim \mathrm{Lie}(V)(\theta)$ (Marcotte, Gribonval, Peyré,
NeurIPS 2023 [MGP23]).

This module works from a given set of *samples*: an activation pattern together with either the
data points that have it (data mode) or ``None`` (region mode: every x of the open region, i.e.
x symbolic; since the fields are affine in x, their span equals the span at x = 0, e_1, …, e_d).
It never computes regions itself: ``semialgebraic`` does that and passes the patterns in.

Three things are computed, all over Q:

* **explicit laws** (:func:`explicit_laws`): per hidden neuron the rescaling law
  ‖incoming weights and bias‖² − ‖outgoing weights‖² (R23, global; three-layer-fibers P15: the
  bias is on the incoming side); per layer, for two neurons
  with the same *effective* activity on every sample (active with a path to an output — in
  particular two always-active neurons, the linear block of R24), ⟨w̃_i, w̃_j⟩ − ⟨v_i, v_j⟩
  (R24 generalised to any depth: w̃ = incoming weights with bias, v = outgoing weights to the
  next layer); every parameter whose gradient component is identically zero on every sample
  (R25 generalised: dead neurons, neurons without an active path to an output, inputs that are
  0 on all data); in data mode, ⟨(w_i, b_i), ν⟩ for a first-layer neuron i and ν orthogonal to
  the points (x, 1) where it is active [derived];
* **exact verification** (:func:`verify_law`): ⟨∇h, V⟩ ≡ 0 as a polynomial identity in θ (and x
  in region mode) for every sample pattern and output — no sampling;
* **a certified count** (:func:`conservation_laws`) by a sandwich: the verified explicit laws
  with independent gradients at θ give ``lower``; ``N − rank`` of exact values at θ of fields
  that belong to the Lie algebra (the generators, then brackets) gives ``upper``.  Brackets are
  added until ``lower == upper`` (then the count is exact) or a budget stops (the interval is
  reported).  Stabilisation of the rank is never taken as a proof.  When the brackets add
  nothing and the explicit laws fall short, a Frobenius certificate (exact polynomial
  identities: the generators span an involutive distribution of constant rank near θ) may
  still close the count; the missing laws are then certified to exist without a formula
  (``Laws.implicit``).

Soundness of the sandwich (derived).  If h_1..h_k are conserved near θ with independent
gradients at θ, then every ∇h_i(θ) is orthogonal to Lie(V)(θ) (if Xh = Yh = 0 identically then
[X, Y]h = X(Yh) − Y(Xh) = 0), so k ≤ N − dim Lie(V)(θ).  Any set of fields that *are* in the Lie
algebra spans a subspace of Lie(V)(θ), so N − (their rank at θ) ≥ N − dim Lie(V)(θ) ≥ the true
number.  Hence lower ≤ true ≤ upper whatever fields are tried: the choice of brackets (random
rational combinations of the fields of one or two patterns, right-normed brackets
[Z, [Y, X]]) and the pruning (a bracket whose value at θ is already in the span is dropped;
brackets are always re-formed from generators, never from the dropped field, so nothing that
is zero at θ but has non-zero brackets is lost for good — a later random combination can
reach it) only affect how fast the upper bound comes down, never its validity.

Brackets up to depth 4 are evaluated at θ without forming polynomials: a field is evaluated at
a point of Q[ε_1, …, ε_k]/(ε_i²) (a "jet"), and [X, Y](P) is the ε-coefficient of
Y(P + ε X(P)) − X(P + ε Y(P)); the network's forward/backward pass runs on jets with whole
matrix products (STYLE C15).  The fields are polynomial, so this is exact.  The values are
ranked modulo the prime 2^61 − 1 (FLINT ``nmod_mat``) after clearing denominators: that rank is
at most the rational rank, so ``upper`` stays a valid bound, and when ``lower == upper`` the
rational rank is pinned as well (``lie_rank`` is then exact).  Jets cost 2^depth,
so deeper brackets (small N only) are formed as polynomial vector fields.  Batches of as many
brackets as the gap are ranked at once (one exact RREF update per batch).  Pruning rule: a
bracket whose value at θ lies in the span is not counted; the jet phase always re-forms
brackets from generators, and the polynomial phase keeps such fields as stepping stones for
deeper brackets — so a field zero at θ with non-zero brackets is not lost for good; either way
the rule only affects tightness, never soundness.

Module layout: samples, masks and the gradient fields themselves are in
``algebra.conservation.fields``; exact verification of a law (and tangency) in
``algebra.conservation.identities``; exact spans and ranks in ``algebra.conservation.spans``;
brackets on jets in ``algebra.conservation.jets``; polynomial brackets and the Frobenius
certificate in ``algebra.conservation.lie``.  This module builds the explicit laws and runs
the sandwich.

References
----------
.. [MGP23] S. Marcotte, R. Gribonval, G. Peyré, "Abide by the law and follow the flow:
   conservation laws for gradient flows", NeurIPS 2023, arXiv:2307.00144.
.. [DHL18] S. S. Du, W. Hu, J. D. Lee, "Algorithmic regularization in learning deep homogeneous
   models: layers are automatically balanced", NeurIPS 2018.

Examples
--------
Two linear hidden neurons after one switching neuron (three-layer-fibers T10, first row):

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1]], [[1], [2]], [[1, 1]]], [[0], [1, 1], [0]])
>>> res = conservation_laws(net, [(1, 1, 1), (-1, 1, 1)])
>>> res.number_of_laws, res.exact, res.n_parameters, res.lie_rank
(4, True, 9, 5)
>>> [law.name for law in res.laws]
['Q1[0]', 'Q2[0]', 'Q2[1]', 'C2[0,1]']
>>> print(res.laws[3].polynomial)
W2[0,0]*W2[1,0] + b2[0]*b2[1] - W3[0,0]*W3[0,1]
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

from ..exceptions import DimensionMismatchError
from ..kernel.differentiability import kink_witness
from ..linalg import QMatrix
from ..network import Network, require_network
from ..polynomials import Polynomial, pairwise_sum
from .fields import (_ModFields, _effective_masks, _field_pieces, _gens, _layer_of, _masks,
                     _normalize, _offsets, _points, _rescaling_rank, parameter_ring_of,
                     samples_from_patterns)
from .identities import is_tangent, verify_law
from .jets import _JetNet
from .lie import _frobenius, _poly_phase
from .spans import _BlockSpan, _ModSpan, _Span, _dot, _gradient_at, _independent

__all__ = ["Law", "Laws", "explicit_laws", "conservation_laws", "symmetry_without_law"]


# ------------------------------------------------------------------------------------------
# laws
# ------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Law:
    """A candidate conserved quantity: a polynomial in Q[θ] with a name and a validity scope."""

    name: str
    polynomial: Polynomial
    scope: str
    kind: str  # "scaling" | "linear_block" | "frozen"

    @cached_property
    def text(self) -> str:
        """``str(self.polynomial)``, rendered once: 0.1 s for a 75-term law in 2 410 variables
        (digits 64-32-10), so :func:`conservation_laws` renders each kept law inside its
        budget and the report does not run past ``--timeout``."""
        return str(self.polynomial)

    @cached_property
    def latex_text(self) -> str:
        """``self.polynomial.to_latex()``, rendered once (as :attr:`text`)."""
        return self.polynomial.to_latex()

    def to_latex(self) -> str:
        return self.latex_text

    def to_sympy(self):
        return self.polynomial.to_sympy()

    def to_json(self) -> dict:
        return {"name": self.name, "polynomial": self.text, "scope": self.scope,
                "kind": self.kind, "latex": self.latex_text}


@dataclass
class Laws:
    """Result of :func:`conservation_laws`.

    ``laws`` are verified explicit laws with independent gradients at θ (a basis of what the
    explicit families give); ``lower = len(laws) + implicit``; ``upper = N − lie_rank`` where
    ``lie_rank`` is the exact rank at θ of the fields of the Lie algebra evaluated so far.
    ``implicit`` counts laws whose existence is certified by Frobenius without a formula (the
    gradient fields span an involutive distribution of constant rank near θ, checked by exact
    polynomial identities; see :func:`algebra.conservation.lie._frobenius`).
    """

    n_parameters: int
    laws: tuple[Law, ...]
    lower: int
    upper: int
    functional_rank: int
    lie_rank: int
    bracket_depth: int
    number_of_samples: int
    rejected: tuple[tuple[Law, str], ...] = ()
    redundant: tuple[Law, ...] = ()
    notes: tuple[str, ...] = ()
    reason: str = ""
    brackets_tried: int = 0
    elapsed: float = 0.0
    implicit: int = 0
    fiber_dimension_lower: int = 0
    fiber_dimension_upper: int = 0
    functional_rank_exact: bool = True
    stopped_in: str = ""
    samples_given: int = 0
    part_of_next: bool = False
    interrupted: bool = False
    brackets: tuple = ()          # the jet brackets whose batches raised the rank (certificate)
    samples: tuple = ()           # the samples (normalised) the count is about
    prime: int | None = None      # the prime of the span's rank (None: exact)
    poly_brackets: bool = False   # polynomial-phase brackets raised the rank (not recorded)

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def number_of_laws(self) -> int | None:
        """The certified number of independent laws, or None when only bounds are known."""
        return self.lower if self.exact else None

    @property
    def fiber_dimension(self) -> int | None:
        """N − rank of the gradient fields at θ: the local dimension of the set of parameters
        with the same outputs on the samples (R22); None when it is not determined (samples
        cut by a budget, or a rank only bounded mod p): then ``fiber_dimension_lower`` (the
        rank of the rescaling directions, S2) ≤ it ≤ ``fiber_dimension_upper`` (N − a
        certified lower bound of the rank of the fields of the samples that entered)."""
        if self.fiber_dimension_lower == self.fiber_dimension_upper:
            return self.fiber_dimension_upper
        return None

    def to_json(self) -> dict:
        d = {"number_of_laws": self.number_of_laws, "exact": self.exact,
             "laws": [law.to_json() for law in self.laws],
             "n_parameters": self.n_parameters, "functional_rank": self.functional_rank,
             "fiber_dimension": self.fiber_dimension,
             "functional_rank_exact": self.functional_rank_exact, "lie_rank": self.lie_rank,
             "bracket_depth": self.bracket_depth, "brackets_tried": self.brackets_tried,
             "number_of_samples": self.number_of_samples,
             "redundant": [law.name for law in self.redundant],
             "rejected": [{"name": law.name, "reason": why} for law, why in self.rejected],
             "notes": list(self.notes), "reason": self.reason}
        if not self.exact:
            d["lower"], d["upper"] = self.lower, self.upper
        if self.fiber_dimension is None:
            d["fiber_dimension_lower"] = self.fiber_dimension_lower
            d["fiber_dimension_upper"] = self.fiber_dimension_upper
        if self.stopped_in:
            d["stopped_in"] = self.stopped_in
        return d


def explicit_laws(net: Network, samples, *, scaling_only: bool = False, check=None) -> list[Law]:
    """Candidate laws of the three explicit families (not yet verified); *scaling_only*: the
    global rescaling laws (R23) alone (all an incomplete set of patterns can use).  *check*,
    when given, is called before each law is built (a budget's stop: its exception goes
    through; a 16-128-128-1 net's 256 rescaling polynomials in 18 817 variables take ~3 s).

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> [str(l.polynomial) for l in explicit_laws(net, [(1, 1)])]
    ['W1[0,0]^2 + b1[0]^2 - W2[0,0]^2', 'W1[1,0]^2 + b1[1]^2 - W2[0,1]^2', 'W1[0,0]*W1[1,0] + b1[0]*b1[1] - W2[0,0]*W2[0,1]']
    """
    samples = _normalize(net, samples)
    R = parameter_ring_of(net)
    widths = net.widths
    L = net.depth
    laws: list[Law] = []
    # R23: rescaling of each hidden neuron
    for l in range(1, L):
        for i in range(widths[l]):
            if check is not None:
                check()
            h = _sqnorm_in(R, l, i, widths) - _sqnorm_out(R, l, i, widths)
            laws.append(Law(f"Q{l}[{i}]", h,
                            f"global: every activation pattern (positive rescaling of neuron {i} "
                            f"of hidden layer {l}, R23)", "scaling"))
    if scaling_only:
        return laws
    masks = [_effective_masks(net, smp.pattern) for smp in samples]     # once per sample
    # R24 generalised: pairs of neurons of one layer with the same activity on every sample
    # (both active or both inactive on each; always-active neurons are the linear block)
    for l in range(1, L):
        groups: dict[tuple, list[int]] = {}
        for i in range(widths[l]):
            key = tuple(m[l - 1][i] for m in masks)
            if any(key):
                groups.setdefault(key, []).append(i)
        for key, members in groups.items():
            every = all(key)
            for a in range(len(members)):
                for b in range(a + 1, len(members)):
                    i, j = members[a], members[b]
                    h = _inner_in(R, l, i, j, widths) - _inner_out(R, l, i, j, widths)
                    scope = (f"while neurons {i} and {j} of hidden layer {l} are active on every "
                             f"sample (linear block, R24)" if every else
                             f"while neurons {i} and {j} of hidden layer {l} are active (with a path "
                             f"to the output) on exactly the same samples (R24 on each shared pattern)")
                    laws.append(Law(f"C{l}[{i},{j}]", h, scope, "linear_block" if every else "coactive"))
    # data-span laws (layer 1, data mode): the gradient of the incoming vector (w_i, b_i) of a
    # first-layer neuron is δ_i (x, 1), so <(w_i, b_i), ν> is conserved for every ν orthogonal
    # to the points (x, 1) where neuron i is active with a path to the output [derived]
    if L >= 2:
        d = widths[0]
        for i in range(widths[1]):
            rows = []
            for smp, m in zip(samples, masks):
                if m[0][i]:
                    rows += [list(x) + [1] for x in _points(net, smp)]
            if not rows:
                continue  # dead: covered by the frozen parameters
            null = QMatrix.from_rows(rows).nullspace()
            for k in range(null.nrows):
                nu = null.row_at(k)
                h = sum((c * _var(R, 1, "W", i, j) for j, c in enumerate(nu[:d]) if c != 0), R.zero())
                if nu[d] != 0:
                    h = h + nu[d] * _var(R, 1, "b", i)
                laws.append(Law(f"N1[{i};{k}]", h,
                                f"while the data points where neuron {i} of hidden layer 1 is active "
                                f"stay the same: its incoming vector only moves within their span",
                                "data_span"))
    # R25 generalised: parameters with an identically zero gradient component
    names = net.parameter_names()
    where = ("on the data" if any(getattr(s, "points", None) for s in samples) else
             "of the sampled regions")           # (region mode has no data: s39 audit F3)
    for k, why in _frozen_parameters(net, samples):
        name = names[k]
        laws.append(Law(f"frozen {name}", _gens(R)[name],
                        f"while the activation patterns {where} stay fixed: {why} (R25)",
                        "frozen"))
    return laws


def conservation_laws(net: Network, samples, *, max_depth: int = 6, timeout: float | None = None,
                      patience: int = 6, seed: int = 0, complete: bool = True,
                      at_once: bool = False) -> Laws:
    """Certified number of independent conservation laws near θ for the given samples.

    Parameters
    ----------
    net : Network
        θ is the network's parameter point.
    samples : samples
        A sequence of patterns (region mode), of :class:`Sample`, or a mapping
        ``pattern -> points`` (data mode); see :func:`samples_from_points`.
    max_depth : int
        Largest bracket depth tried (1 = [X, Y]); depths up to 4 are evaluated on jets at θ,
        deeper ones (small N only) as polynomial vector fields, within *timeout* and 10 s.
    timeout : float, optional
        Seconds; when reached the interval found so far is returned.  The explicit laws get at
        least :data:`_LAW_SECONDS` (1 s) to be verified even under a smaller timeout, so that
        small nets keep their lower bound.
    patience : int
        Consecutive brackets without rank gain before moving to the next depth.
    seed : int
        Seed of the random rational combinations (the result is sound for any seed).
    complete : bool
        False when the samples may miss patterns of the data (e.g. a region enumeration cut by a
        budget): the upper bound stays valid (fewer fields), but only the global rescaling laws
        (R23, verified for both states of their neuron, hence for every pattern) count toward
        the lower bound.
    at_once : bool
        A Ctrl-C already stopped the caller (its region walk): the partial answer at once — no
        candidate law is built (they take at least a second on a 2 410-parameter net and would
        not be verified), the rescaling laws count by the rank of their gradients (R23), and the
        upper bound is the trivial one.

    Returns
    -------
    Laws
        ``exact`` and ``number_of_laws`` when lower = upper, else ``lower``/``upper``.
    """
    require_network(net, "conservation_laws")
    return _count(net, samples, max_depth, timeout, patience, seed, complete, at_once=at_once)[0]


_LAW_SECONDS = 1.0
LAW_MAX_PARAMETERS = 30000
"""Most parameters for which the candidate laws are built as polynomials (FLINT keeps a term's
exponents of every variable: 16-128-128-1, 18 817 parameters, 256 laws in ~3 s; 784-1024-10,
814 090, ran out of 24 GB).  Past it the rescaling laws (R23) count by the rank of their
gradients at θ, without polynomials."""
"""Seconds the explicit laws may always take to be verified, even under a smaller timeout
(small nets keep their laws; large ones stop early with a weaker, still valid, lower bound).
Otherwise the laws get half of the timeout and the gradient fields the rest."""

_BLOCK_N = 400
"""From this many parameters on, the fields are ranked by :class:`_BlockSpan` (numpy, mod a
prime < 2^21, a deadline check between panels) instead of one FLINT RREF per batch (2.5-5 s a
call at N = 2 410, the digits 64-32-10 net, past any deadline)."""

_EXACT_WORK = 10 ** 8
"""rows · N · min(rows, N) of the field matrix above which its rank over Q is not computed
(one FLINT call: 107 s for 3 250 x 2 410 digits rows); the modular rank, a certified lower
bound, is used instead and the fiber dimension is then given by certified bounds."""


class _Stop(Exception):
    """A deadline passed inside a phase (internal: :func:`_count` keeps what it had)."""


def _phase(before: str, now: str, dl) -> str:
    """The phase a stop is reported in: the one running at the deadline (the laws stop at
    their own share first), or the one Ctrl-C landed in (every later phase stops at once)."""
    return before if dl.interrupted and before else now


def _stop_reason(dl, timeout) -> str:
    return "interrupted (Ctrl-C)" if dl.interrupted else f"timeout of {timeout:g} s reached"


class _Deadline:
    """A monotonic deadline the phases of :func:`_count` share; Ctrl-C (a KeyboardInterrupt
    caught in a phase) moves it to now, so that every later phase stops at once too and the
    partial result is reported."""

    def __init__(self, end):
        self.end, self.interrupted = end, False

    def passed(self) -> bool:
        return self.end is not None and time.monotonic() > self.end

    def left(self) -> float | None:
        return None if self.end is None else self.end - time.monotonic()

    def check(self) -> None:
        if self.passed():
            raise _Stop

    def stop_now(self) -> None:
        self.interrupted = True
        self.end = time.monotonic() - 1.0


def _count(net, samples, max_depth, timeout, patience, seed, complete=True,
           poly_max_n=60, poly_seconds=10.0, exact_span=False, at_once=False):
    """The sandwich of :func:`conservation_laws`; also returns the span of the Lie trace."""
    t0 = time.monotonic()
    dl = _Deadline(None if timeout is None else t0 + timeout)
    if at_once:
        dl.stop_now()
    samples = _normalize(net, samples)
    all_samples = samples          # (the certificate's samples; the upper bound may use fewer)
    given = len(samples)
    N = net.n_parameters
    notes = []
    stopped = ""          # the phase a deadline stopped: "laws", "fields" or "brackets"
    if any(v == 0 for s in samples for v in s.pattern):
        notes.append("a pattern has a zero entry (a data point on a bent hyperplane, or a "
                     "pre-activation identically 0 on a region): treated as inactive (σ'(0) = 0); "
                     "the pattern is not locally constant there")
    # lower bound: verified explicit laws with independent gradients at θ
    theta = net.parameters()
    kept, rejected, grads = [], [], []
    laws_cut = False      # the verification one by one stopped by the budget or Ctrl-C
    law_dl = _Deadline(None if timeout is None else t0 + max(_LAW_SECONDS, timeout / 2))
    try:
        if N > LAW_MAX_PARAMETERS:          # a polynomial over N variables stores N exponents a term
            notes.append(f"the candidate laws are not built as polynomials for {N} parameters "
                         f"(more than {LAW_MAX_PARAMETERS}: each term stores every variable's "
                         "exponent; a 784-1024-10 net ran out of 24 GB)")
            raise _Stop("large")
        if at_once:
            raise _Stop("at once")
        candidates = explicit_laws(net, samples, scaling_only=not complete, check=law_dl.check)
    except (_Stop, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            dl.stop_now()
        if str(exc) == "at once":
            notes.append("interrupted (Ctrl-C): the candidate laws not built")
        elif str(exc) != "large":
            notes.append(f"{'interrupted' if dl.interrupted else 'timeout'}: the candidate laws "
                         "not verified (their building stopped)")
        candidates, stopped, laws_cut = [], "laws", True
    check_on = samples
    if not complete:
        n = net.n_hidden
        check_on = samples_from_patterns([(1,) * n, (-1,) * n])  # both states of every neuron
        notes.append("incomplete set of patterns: only the global rescaling laws count toward "
                     "the lower bound")
    for k, law in enumerate(candidates):
        try:
            law_dl.check()
            ok, why = verify_law(net, law.polynomial, check_on,
                                 method="auto" if complete else "local", check=law_dl.check)
            if ok:                              # (inside the timed loop: 0.08 s a law at N = 1476)
                g = _gradient_at(law.polynomial, theta)
                law.text, law.latex_text        # rendered now, in the budget (see Law.text)
        except (_Stop, KeyboardInterrupt) as exc:
            if isinstance(exc, KeyboardInterrupt):
                dl.stop_now()
            # unverified candidates do not count: the lower bound stays valid, only weaker
            notes.append(f"{'interrupted' if dl.interrupted else 'timeout'}: "
                         f"{len(candidates) - k} candidate law(s) not verified")
            stopped, laws_cut = "laws", True
            break
        if ok:
            kept.append(law)
            grads.append(g)
        else:
            rejected.append((law, why))
    basis, redundant = _independent(kept, grads, N)
    lower = len(basis)
    # upper bound: ranks at θ of fields in the Lie algebra, sample by sample until the timeout
    # (issue 15: a budget that holds): the fields of fewer samples leave a valid, weaker, upper
    # bound, as a shorter region walk does
    check = dl.check
    rows = sum(len(_points(net, s)) for s in samples) * net.n_outputs
    keep = rows * N * min(rows, N) <= _EXACT_WORK
    span = _Span(N) if exact_span else _BlockSpan(N, check) if N >= _BLOCK_N else _ModSpan(N)
    fields, used = _fields_into(net, samples, span, dl, keep)
    part = bool(getattr(span, "part_of_next", False))
    if used < len(samples):
        notes.append(f"{'interrupted (Ctrl-C)' if dl.interrupted else 'timeout'}: the gradient "
                     f"fields of {used} of the {len(samples)} patterns "
                     + ("(and some of the next one's) " if part else "")
                     + "entered the upper bound")
        reason = _stop_reason(dl, timeout)
        stopped = _phase(stopped, "fields", dl)
        samples = samples[:used]
    elif not samples:
        # a budget that stopped the walk before its first region: no field, no bracket to take
        # (seen under load at --timeout 0.65: the bracket loop then ran on no samples)
        reason = "no pattern: the gradient fields were not taken"
    else:
        reason = ""
    if fields is not None:
        r0, r0_exact = fields.rank(), True     # exact (the fiber dimension N - r0 is reported)
    else:
        r0, r0_exact = span.rank, False        # mod p: a certified lower bound of the rank
        notes.append(f"rank of the gradient fields computed mod {span.P}, a certified lower "
                     f"bound (their rank over Q is not computed at {rows} x {N})")
    # fiber dimension (R22) of the samples' fields: N - rank; certified bounds when the rank is
    # only bounded below or the samples are not all in (fewer rows: a smaller rank)
    fd_lower = _rescaling_rank(net)          # (a lower bound: no exact rank no budget stops)
    fd_upper = N - r0
    kinked = [s for s in samples if any(v == 0 for v in s.pattern) and kink_witness(net, s.pattern)]
    if kinked:
        # θ ↦ f_θ(x) is not differentiable on these patterns (a kink the outputs see): their rows,
        # taken with σ'(0) = 0, are one-sided derivatives, and the fiber can leave θ on the other
        # side (the session-32 structure audit's k1); N − rank bounds the fiber dimension (R22)
        # by the rows of the differentiable patterns alone
        fd_upper = N - _rank_of_fields(net, [s for s in samples if s not in kinked], dl)
        notes.append(f"{len(kinked)} of the patterns {'holds' if len(kinked) == 1 else 'hold'} no "
                     "input where θ ↦ f_θ(x) is "
                     "differentiable (a kink the outputs see): the fiber dimension's upper bound "
                     f"takes the gradient fields of the other {len(samples) - len(kinked)} only")
    if laws_cut and lower < fd_lower:
        # R23: each hidden neuron's rescaling law is conserved on every pattern and its gradient
        # at θ is twice that neuron's rescaling direction, so the rank of the directions is a
        # lower bound of the number of laws, also where the budget stopped their verification
        # one by one (digits 64-32-10 at --timeout 5: 3 verified, 32 by R23)
        notes.append(f"the {fd_lower} rescaling laws (R23) count toward the lower bound by the "
                     f"rank of their gradients at θ; {lower} law(s) were verified one by one")
        lower = fd_lower
    if complete and used == given and not kinked and (r0_exact or fd_lower == fd_upper):
        r0_exact = True
        if fd_lower > fd_upper:
            raise AssertionError("internal error: the rescaling directions exceed the fiber dimension")
        fd_lower = fd_upper
    # cross-check (bug detector): law gradients are orthogonal to every field value
    for law, g in zip(kept, grads):
        if fields is not None and fields.nrows and not (fields @ QMatrix.column(g)).is_zero():
            raise AssertionError(f"internal error: verified law {law.name} not orthogonal to a field")
    rng = random.Random(seed)
    depth, tried = 0, 0
    recorded: list = []            # bracket expressions whose batch raised the span's rank
    jet_depth = min(max_depth, 4)  # jets grow like 2^depth: deeper brackets go polynomial
    try:
        ctx = _JetNet(net, samples, check=dl.check) if samples and N - span.rank > lower and not reason else None
        while N - span.rank > lower and not reason:
            if depth >= jet_depth:
                reason = f"max bracket depth {jet_depth} reached"
                break
            depth += 1
            fails = 0
            while N - span.rank > lower and fails < patience:
                dl.check()
                # a batch of as many brackets as the gap (amortises the exact span update)
                k = max(1, min(N - span.rank - lower, 16))
                vs, exprs = [], []
                for _ in range(k):
                    dl.check()
                    exprs.append(ctx.random_bracket(depth, rng))
                    vs.append(ctx.value(exprs[-1]))
                tried += k
                for law, g in zip(kept, grads):
                    for v in vs:
                        if _dot(g, v.entries()) != 0:
                            raise AssertionError(f"internal error: law {law.name} not orthogonal "
                                                 "to a bracket")
                gain = span.add_matrix(QMatrix.vstack(vs))
                if gain:                  # the certificate's brackets (a batch that raised it)
                    recorded.extend(exprs)
                fails = 0 if gain else fails + k
    except (_Stop, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            dl.stop_now()
        reason = _stop_reason(dl, timeout)
        stopped = _phase(stopped, "brackets", dl)
    poly_gain = False
    if (N - span.rank > lower and N <= poly_max_n and complete and max_depth > 0
            and (timeout is None or time.monotonic() - t0 < timeout) and not dl.interrupted):
        limit = poly_seconds if timeout is None else min(poly_seconds, timeout - (time.monotonic() - t0))
        t_poly = time.monotonic()
        before = span.rank
        pd = _poly_phase(net, samples, span, lower, rng, t_poly + limit, max_depth)
        poly_gain = span.rank > before         # (those brackets are not recorded)
        depth = max(depth, pd)
        if N - span.rank > lower and not reason.startswith(("timeout", "interrupted")):
            used = time.monotonic() - t_poly      # (the cap was printed as the time: s39 F4)
            how = (f"stopped at its cap of {limit:g} s" if used >= limit else
                   f"{used:.1f} s, stopped after brackets gained no rank")
            reason = (f"brackets did not close the gap (jets to depth {jet_depth}, polynomial "
                      f"brackets to depth {pd} of max {max_depth}; {how})")
    implicit = 0
    if N - span.rank == lower:
        reason = ("closed at the generators" if depth == 0 else
                  f"closed with brackets up to depth {depth}")
        stopped = ""
    elif span.rank == r0 and r0_exact and complete and not dl.interrupted and \
            not reason.startswith(("timeout", "interrupted")) and \
            (timeout is None or time.monotonic() - t0 < timeout):
        ok, why = _frobenius(net, samples)
        if ok:
            implicit = N - span.rank - lower
            lower = N - span.rank
            reason = why
            notes.append(f"{implicit} of the laws are not explicit: their existence is certified by "
                         "Frobenius (involutive distribution of constant rank near θ)")
        elif not reason:
            reason = "bracket budget exhausted; " + why
    elif not reason:
        reason = "bracket budget exhausted"
    res = Laws(n_parameters=N, laws=tuple(basis), lower=lower, upper=N - span.rank,
               functional_rank=r0, lie_rank=span.rank, bracket_depth=depth,
               number_of_samples=len(samples), rejected=tuple(rejected),
               redundant=tuple(redundant), notes=tuple(notes), reason=reason,
               brackets_tried=tried, elapsed=time.monotonic() - t0, implicit=implicit,
               fiber_dimension_lower=fd_lower, fiber_dimension_upper=fd_upper,
               functional_rank_exact=r0_exact, stopped_in=stopped, samples_given=given,
               part_of_next=part, interrupted=dl.interrupted,
               brackets=tuple(recorded), samples=tuple(all_samples),
               prime=getattr(span, "P", None), poly_brackets=poly_gain)
    return res, span


_FIELD_ROWS = 256
"""Rows of gradient fields added to the modular span at a time (one bounded FLINT call each,
between deadline checks)."""


_BLOCK_ROWS = 1024
"""Rows a :class:`_BlockSpan` takes at a time (reduced by the rows it holds, then the rest
eliminated).  The 3 000 field rows of 300 digits (N = 2 410) took 17.8 s in batches of 1 024,
56.7 s in batches of 256 (2026-12-04, load 3 on 2 cores): per-block costs dominate small
batches."""

_FLUSH_BEFORE = 1.0
"""Seconds before the deadline from which a :class:`_BlockSpan` takes each output's rows at
once (one elimination of ~1 300 x 2 410 rows: ~0.5 s) instead of batches of 256."""


def _rank_of_fields(net, samples, dl) -> int:
    """A lower bound of the rank of the gradient fields of *samples* at θ (mod p; the samples the
    deadline *dl* leaves; 0 for none)."""
    N = net.n_parameters
    span = _BlockSpan(N, dl.check) if N >= _BLOCK_N else _ModSpan(N)
    try:
        _fields_into(net, samples, span, dl, keep=False)
    except _Stop:
        pass
    return span.rank


def _fields_into(net, samples, span, dl, keep=True):
    """``(fields, used)``: the field values (:func:`field_values`) of the first *used* samples
    (None unless *keep*), all added to *span*; stops at the :class:`_Deadline` *dl* (or at
    Ctrl-C, which moves *dl* to now), between samples, and for a :class:`_BlockSpan` also
    between outputs and inside its elimination (rows of an unfinished sample may have entered
    *span*: they are field values all the same, so its rank stays a valid lower bound of the
    Lie trace's)."""
    block = isinstance(span, _BlockSpan)
    done, pending, used, finished = [], [], 0, 0
    mod = None
    if block and not keep:          # the rows mod p straight from the residues of θ
        try:
            mod = _ModFields(net, span.P)
        except ZeroDivisionError:   # p divides a denominator: residues of the exact rows
            mod = None
    entered = [0]                   # rows in span (of unfinished samples too)
    generated, through = 0, [0]     # rows made; rows made by the end of each finished sample

    def flush():
        if not pending:
            return
        if block:
            import numpy as np
            R = np.vstack(pending)
            span.add_residues(R)
            entered[0] += R.shape[0]
        else:
            M = QMatrix.vstack(pending)
            span.add_matrix(M)
            if keep:
                done.append(M)
        pending.clear()

    try:
        for s in samples:
            if dl.passed():
                break
            for piece in (mod.pieces(s) if mod is not None else _field_pieces(net, s)):
                if block:
                    dl.check()
                    if mod is not None:
                        r = piece
                    else:
                        if keep:
                            done.append(piece)
                        r = span.residues(piece)
                    if r is not None:
                        pending.append(r)
                        generated += r.shape[0]
                else:
                    pending.append(piece)
                if sum(p.shape[0] if block else p.nrows for p in pending) >= \
                        (_BLOCK_ROWS if block else _FIELD_ROWS) or \
                        (block and dl.end is not None and dl.left() < _FLUSH_BEFORE):
                    flush()             # (near the deadline: rows computed are not thrown away)
                    used = finished
            finished += 1
            through.append(generated)
        flush()
        used = finished
    except (_Stop, KeyboardInterrupt) as exc:
        if isinstance(exc, KeyboardInterrupt):
            dl.stop_now()               # Ctrl-C: the rows in span stand, the rest stops too
    span.part_of_next = block and used < len(samples) and entered[0] > through[used]
    if not keep or (block and used < len(samples)):   # stopped inside: the modular rank only
        return None, used
    return (QMatrix.vstack(done) if done else QMatrix.zeros(0, net.n_parameters)), used


def symmetry_without_law(net: Network, direction: Sequence[Polynomial], samples, *,
                         max_depth: int = 6, seed: int = 0) -> dict:
    """Show that a symmetry direction X gives no conservation law (three-layer-fibers R26).

    Returns a dict with

    * ``tangent``: X is orthogonal to every gradient field, exactly (:func:`is_tangent`);
    * ``is_gradient``: whether X = ∇h for some h (its Jacobian is symmetric, an exact polynomial
      test); a Noether law of a symmetry with generator X would have ∇h = X, so False means the
      symmetry has no Noether law;
    * ``fiber_dimension`` = N − rank of the fields at θ and ``number_of_laws`` (certified, or
      None with ``lower``/``upper``); ``unconstrained_directions`` = lie_rank − functional_rank
      = fiber_dimension − number_of_laws: the dimension of the fiber directions along which no
      conserved function varies (they lie in the Lie trace at θ);
    * ``in_lie_trace``: whether X(θ) itself lies in the Lie trace at θ (then no law varies along
      X at θ); ``law_derivatives``: ⟨∇h(θ), X(θ)⟩ for each law h.

    >>> net = Network.from_rows([[[1]], [["3/2"]], [[2]]], [["1/3"], [-1], [1]])
    >>> R = parameter_ring_of(net)
    >>> X = [R.zero()] * 6
    >>> X[1], X[3] = R.constant(1), -R.gen("W2[0,0]")        # S6 on the masked neuron
    >>> d = symmetry_without_law(net, X, [(1, 1), (1, -1), (-1, -1)])
    >>> d["tangent"], d["is_gradient"], d["fiber_dimension"], d["number_of_laws"]
    (True, False, 3, 2)
    """
    res, span = _count(net, samples, max_depth, None, 6, seed, exact_span=True)
    samples = _normalize(net, samples)
    if len(direction) != net.n_parameters:
        raise DimensionMismatchError("symmetry_without_law", len(direction), net.n_parameters)
    theta = net.parameters()
    xv = [p(theta) for p in direction]
    is_grad = all((direction[i].diff(j) - direction[j].diff(i)).is_zero()
                  for i in range(len(direction)) for j in range(i))
    tangent = is_tangent(net, direction, samples)
    return {"tangent": tangent[0], "tangent_reason": tangent[1], "is_gradient": is_grad,
            "fiber_dimension": res.fiber_dimension, "number_of_laws": res.number_of_laws,
            "lower": res.lower, "upper": res.upper, "exact": res.exact,
            "lie_rank": res.lie_rank, "functional_rank": res.functional_rank,
            "unconstrained_directions": res.lie_rank - res.functional_rank,
            "in_lie_trace": span.contains(xv),
            "law_derivatives": {law.name: _dot(_gradient_at(law.polynomial, theta), xv)
                                for law in res.laws}}


# ------------------------------------------------------------------------------------------
# private: frozen parameters
# ------------------------------------------------------------------------------------------
def _activity(net, samples):
    act = []
    for l, n in enumerate(net.hidden_widths):
        rows = [_masks(net, s.pattern)[l] for s in samples]
        act.append([(all(r[i] for r in rows) and bool(rows), not any(r[i] for r in rows))
                    for i in range(n)])
    return act


def _frozen_parameters(net, samples):
    """Parameters whose gradient component is the zero polynomial on every sample.

    Exact by path counting: the component of W_l[i,j] is δ_l[i]·h_{l-1}[j] and δ, h are sums
    over active paths of distinct monomials, so a component vanishes identically iff no active
    path reaches it (from a non-zero input coordinate or a bias) and leaves it (to an output).
    The laws are verified again by :func:`verify_law`.
    """
    widths, L = net.widths, net.depth
    offs = _offsets(widths)
    live = [False] * net.n_parameters
    for s in samples:
        D = _masks(net, s.pattern)
        # back[l-1][i]: neuron i of layer l (1..L) reaches an output through active neurons
        back = [None] * L
        back[L - 1] = [True] * widths[L]
        for l in range(L - 1, 0, -1):
            nxt = any(back[l])
            back[l - 1] = [bool(D[l - 1][i]) and nxt for i in range(widths[l])]
        pts = _points(net, s)
        xnz = [any(x[j] != 0 for x in pts) for j in range(widths[0])]
        for l in range(1, L + 1):
            wo, bo = offs[l - 1]
            n_in = widths[l - 1]
            src = xnz if l == 1 else [bool(v) for v in D[l - 2]]
            for i in range(widths[l]):
                if back[l - 1][i]:
                    live[bo + i] = True
                    for j in range(n_in):
                        if src[j]:
                            live[wo + i * n_in + j] = True
    out = []
    names_dead = _activity(net, samples)
    data = any(getattr(s, "points", None) for s in samples)   # region mode: no data points
    for k in range(net.n_parameters):
        if not live[k]:
            out.append((k, _why_frozen(net, k, names_dead, data)))
    return out


def _why_frozen(net, k, act, data: bool = True):
    l, kind, i, j = _layer_of(net.widths, k)
    if l < net.depth and act[l - 1][i][1]:
        return f"neuron {i} of hidden layer {l} is inactive on every sample"
    if kind == "W" and l > 1 and act[l - 2][j][1]:
        return f"neuron {j} of hidden layer {l - 1} is inactive on every sample"
    return ("no active path through this parameter to an output on any sample"
            + (" (or input coordinate j is 0 on every data point)".replace("j", str(j))
               if kind == "W" and l == 1 and data else ""))


# ------------------------------------------------------------------------------------------
# private: polynomial constructions of laws
# ------------------------------------------------------------------------------------------
def _var(R, l, name, *idx):
    return _gens(R)[f"{name}{l}[{','.join(map(str, idx))}]"]


def _tree_sum(R, terms: list):
    """Σ terms of the ring R, added pairwise (:func:`algebra.polynomials.pairwise_sum`)."""
    return pairwise_sum(terms, R.zero())


def _sqnorm_in(R, l, i, widths):
    return _tree_sum(R, [_var(R, l, "b", i) ** 2] + [_var(R, l, "W", i, j) ** 2 for j in range(widths[l - 1])])


def _sqnorm_out(R, l, i, widths):
    return _tree_sum(R, [_var(R, l + 1, "W", k, i) ** 2 for k in range(widths[l + 1])])


def _inner_in(R, l, i, j, widths):
    return _tree_sum(R, [_var(R, l, "b", i) * _var(R, l, "b", j)]
                     + [_var(R, l, "W", i, a) * _var(R, l, "W", j, a) for a in range(widths[l - 1])])


def _inner_out(R, l, i, j, widths):
    return _tree_sum(R, [_var(R, l + 1, "W", k, i) * _var(R, l + 1, "W", k, j) for k in range(widths[l + 1])])
