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
  ‖incoming weights and bias‖² − ‖outgoing weights‖² (R23, global); per layer, for two neurons
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
from typing import Iterable, Mapping, NamedTuple, Sequence

from .exceptions import DimensionMismatchError, InputError
from .matrices import QMatrix, nmod_rref, residues
from .network import Network
from .polynomials import Polynomial, Ring, number_of_terms
from .rationals import Q, q_str, to_q

__all__ = ["Sample", "Law", "Laws", "samples_from_points", "samples_from_patterns",
           "explicit_laws", "verify_law", "conservation_laws", "field_values",
           "is_tangent", "symmetry_without_law", "parameter_ring_of"]


# ------------------------------------------------------------------------------------------
# samples
# ------------------------------------------------------------------------------------------
class Sample(NamedTuple):
    """One activation pattern and the inputs it is used with.

    ``pattern``: one entry per hidden neuron in layer order, > 0 meaning active.
    ``points``: tuple of exact inputs (data mode), or ``None`` (region mode: every x).
    """

    pattern: tuple[int, ...]
    points: tuple[tuple[Q, ...], ...] | None


def samples_from_points(net: Network, points: Iterable[Sequence[object]]) -> tuple[Sample, ...]:
    """Group data points by their activation pattern (exact evaluation).

    A zero pre-activation (the point lies on a bent hyperplane) is kept as 0 in the pattern and
    treated as inactive (σ'(0) = 0); :func:`conservation_laws` notes it, since the pattern is
    then not locally constant.

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> [s.pattern for s in samples_from_points(net, [[2], [3], [-5]])]
    [(1, -1), (-1, 1)]
    """
    groups: dict[tuple[int, ...], list] = {}
    for x in points:
        xq = tuple(to_q(v) for v in x)
        if len(xq) != net.n_inputs:
            raise DimensionMismatchError("samples_from_points", len(xq), net.n_inputs)
        groups.setdefault(net.activation_pattern(xq), []).append(xq)
    return tuple(Sample(p, tuple(pts)) for p, pts in groups.items())


def samples_from_patterns(patterns: Iterable[Sequence[int]]) -> tuple[Sample, ...]:
    """Region-mode samples (x symbolic) from activation patterns, duplicates removed.

    >>> samples_from_patterns([(1, -1), (1, -1), (-1, 1)])
    (Sample(pattern=(1, -1), points=None), Sample(pattern=(-1, 1), points=None))
    """
    seen: dict[tuple[int, ...], None] = {}
    for p in patterns:
        seen.setdefault(tuple(int(v) for v in p), None)
    return tuple(Sample(p, None) for p in seen)


def parameter_ring_of(net: Network) -> Ring:
    """The ring Q[θ] whose variables are ``net.parameter_names()``."""
    return Ring.get(net.parameter_names())


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

    def to_latex(self) -> str:
        return self.polynomial.to_latex()

    def to_sympy(self):
        return self.polynomial.to_sympy()

    def to_json(self) -> dict:
        return {"name": self.name, "polynomial": str(self.polynomial), "scope": self.scope,
                "kind": self.kind, "latex": self.polynomial.to_latex()}


@dataclass
class Laws:
    """Result of :func:`conservation_laws`.

    ``laws`` are verified explicit laws with independent gradients at θ (a basis of what the
    explicit families give); ``lower = len(laws) + implicit``; ``upper = N − lie_rank`` where
    ``lie_rank`` is the exact rank at θ of the fields of the Lie algebra evaluated so far.
    ``implicit`` counts laws whose existence is certified by Frobenius without a formula (the
    gradient fields span an involutive distribution of constant rank near θ, checked by exact
    polynomial identities; see :func:`_frobenius`).
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

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

    @property
    def number_of_laws(self) -> int | None:
        """The certified number of independent laws, or None when only bounds are known."""
        return self.lower if self.exact else None

    @property
    def fiber_dimension(self) -> int:
        """N − rank of the gradient fields at θ: the local dimension of the set of parameters
        with the same outputs on the samples (R22)."""
        return self.n_parameters - self.functional_rank

    def to_json(self) -> dict:
        d = {"number_of_laws": self.number_of_laws, "exact": self.exact,
             "laws": [law.to_json() for law in self.laws],
             "n_parameters": self.n_parameters, "functional_rank": self.functional_rank,
             "fiber_dimension": self.fiber_dimension, "lie_rank": self.lie_rank,
             "bracket_depth": self.bracket_depth, "brackets_tried": self.brackets_tried,
             "number_of_samples": self.number_of_samples,
             "redundant": [law.name for law in self.redundant],
             "rejected": [{"name": law.name, "reason": why} for law, why in self.rejected],
             "notes": list(self.notes), "reason": self.reason}
        if not self.exact:
            d["lower"], d["upper"] = self.lower, self.upper
        return d


def explicit_laws(net: Network, samples) -> list[Law]:
    """Candidate laws of the three explicit families (not yet verified).

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
            h = _sqnorm_in(R, l, i, widths) - _sqnorm_out(R, l, i, widths)
            laws.append(Law(f"Q{l}[{i}]", h,
                            f"global: every activation pattern (positive rescaling of neuron {i} "
                            f"of hidden layer {l}, R23)", "scaling"))
    # R24 generalised: pairs of neurons of one layer with the same activity on every sample
    # (both active or both inactive on each; always-active neurons are the linear block)
    for l in range(1, L):
        groups: dict[tuple, list[int]] = {}
        for i in range(widths[l]):
            key = tuple(_effective_masks(net, smp.pattern)[l - 1][i] for smp in samples)
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
            for smp in samples:
                if _effective_masks(net, smp.pattern)[0][i]:
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
    for k, why in _frozen_parameters(net, samples):
        name = names[k]
        laws.append(Law(f"frozen {name}", _gens(R)[name],
                        f"while the activation patterns on the data stay fixed: {why} (R25)",
                        "frozen"))
    return laws


def verify_law(net: Network, h: Polynomial, samples, *, method: str = "auto") -> tuple[bool, str]:
    """Decide exactly whether *h* is conserved: ⟨∇h, ∇_θ f_{p,o}(θ, x)⟩ ≡ 0 for every sample.

    The identity is checked as a polynomial identity in θ (and in x for region-mode samples),
    for every output o.  ``method="local"`` first tries a cheaper sufficient test when h only
    involves layers l and l + 1: the same identity with the signals entering layer l and the
    back-propagated signals leaving layer l + 1 replaced by free symbols (it implies the true
    identity by substitution); ``"auto"`` falls back to the full check when the local test does
    not apply or fails; ``"full"`` always builds the network polynomials.

    Returns ``(True, reason)`` or ``(False, reason)`` naming a failing pattern and output.

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> R = parameter_ring_of(net)
    >>> w, b, v = R.gen("W1[0,0]"), R.gen("b1[0]"), R.gen("W2[0,0]")
    >>> verify_law(net, w**2 + b**2 - v**2, [(1, -1), (-1, 1)])[0]
    True
    >>> ok, why = verify_law(net, w**2 + b**2 + v**2, [(1, -1)])
    >>> ok, why.split(":")[0]
    (False, 'not conserved on pattern (1, -1), output 0')
    """
    samples = _normalize(net, samples)
    if h.ring is not parameter_ring_of(net):
        raise InputError("the polynomial must live in the network's parameter ring")
    if method not in ("auto", "local", "full"):
        raise InputError(f"unknown method {method!r}; use auto, local or full")
    if method in ("auto", "local"):
        ok = _verify_local(net, h, samples)
        if ok is not None and ok[0]:
            return ok
        if method == "local":
            return ok if ok is not None else (False, "local test does not apply")
    return _verify_full(net, h, samples)


def field_values(net: Network, samples) -> QMatrix:
    """Exact values at θ of all gradient fields (one row per sample point and output).

    In region mode the points x = 0, e_1, …, e_d stand for the whole region (affine in x).

    >>> net = Network.from_rows([[[2]], [[3]]], [[1], [0]])
    >>> field_values(net, [(1,)])
    QMatrix([[0, 3, 1, 1], [3, 3, 3, 1]])
    """
    samples = _normalize(net, samples)
    blocks = [_field_block(net, s) for s in samples]
    return QMatrix.vstack(blocks) if blocks else QMatrix.zeros(0, net.n_parameters)


def conservation_laws(net: Network, samples, *, max_depth: int = 6, timeout: float | None = None,
                      patience: int = 6, seed: int = 0, complete: bool = True) -> Laws:
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
        Seconds; when reached the interval found so far is returned.
    patience : int
        Consecutive brackets without rank gain before moving to the next depth.
    seed : int
        Seed of the random rational combinations (the result is sound for any seed).
    complete : bool
        False when the samples may miss patterns of the data (e.g. a region enumeration cut by a
        budget): the upper bound stays valid (fewer fields), but only the global rescaling laws
        (R23, verified for both states of their neuron, hence for every pattern) count toward
        the lower bound.

    Returns
    -------
    Laws
        ``exact`` and ``number_of_laws`` when lower = upper, else ``lower``/``upper``.
    """
    return _count(net, samples, max_depth, timeout, patience, seed, complete)[0]


_LAW_SECONDS = 1.0
"""Seconds the explicit laws may always take to be verified, even under a smaller timeout
(small nets keep their laws; large ones stop early with a weaker, still valid, lower bound)."""


def _count(net, samples, max_depth, timeout, patience, seed, complete=True,
           poly_max_n=60, poly_seconds=10.0, exact_span=False):
    """The sandwich of :func:`conservation_laws`; also returns the span of the Lie trace."""
    t0 = time.monotonic()
    samples = _normalize(net, samples)
    N = net.n_parameters
    notes = []
    if any(v == 0 for s in samples for v in s.pattern):
        notes.append("a pattern has a zero entry (a data point on a bent hyperplane, or a "
                     "pre-activation identically 0 on a region): treated as inactive (σ'(0) = 0); "
                     "the pattern is not locally constant there")
    # lower bound: verified explicit laws with independent gradients at θ
    theta = net.parameters()
    kept, rejected = [], []
    candidates = explicit_laws(net, samples)
    check_on = samples
    if not complete:
        candidates = [law for law in candidates if law.kind == "scaling"]
        n = net.n_hidden
        check_on = samples_from_patterns([(1,) * n, (-1,) * n])  # both states of every neuron
        notes.append("incomplete set of patterns: only the global rescaling laws count toward "
                     "the lower bound")
    for k, law in enumerate(candidates):
        if timeout is not None and time.monotonic() - t0 > max(timeout, _LAW_SECONDS):
            # unverified candidates do not count: the lower bound stays valid, only weaker
            notes.append(f"timeout: {len(candidates) - k} candidate law(s) not verified")
            break
        ok, why = verify_law(net, law.polynomial, check_on, method="auto" if complete else "local")
        (kept if ok else rejected).append(law if ok else (law, why))
    grads = [_gradient_at(law.polynomial, theta) for law in kept]
    basis, redundant = _independent(kept, grads, N)
    lower = len(basis)
    # upper bound: ranks at θ of fields in the Lie algebra
    fields = field_values(net, samples)
    span = _Span(N) if exact_span else _ModSpan(N)
    span.add_matrix(fields)
    r0 = fields.rank()  # exact (the fiber dimension N - r0 is reported)
    # cross-check (bug detector): law gradients are orthogonal to every field value
    for law, g in zip(kept, grads):
        if fields.nrows and not (fields @ QMatrix.column(g)).is_zero():
            raise AssertionError(f"internal error: verified law {law.name} not orthogonal to a field")
    rng = random.Random(seed)
    depth, tried, reason = 0, 0, ""
    ctx = _JetNet(net, samples) if samples else None
    jet_depth = min(max_depth, 4)  # jets grow like 2^depth: deeper brackets go polynomial
    while N - span.rank > lower:
        if depth >= jet_depth:
            reason = f"max bracket depth {jet_depth} reached"
            break
        depth += 1
        fails = 0
        while N - span.rank > lower and fails < patience:
            if timeout is not None and time.monotonic() - t0 > timeout:
                reason = f"timeout of {timeout:g} s reached"
                break
            # a batch of as many brackets as the gap (amortises the exact span update)
            k = max(1, min(N - span.rank - lower, 16))
            vs = [ctx.value(ctx.random_bracket(depth, rng)) for _ in range(k)]
            tried += k
            for law, g in zip(kept, grads):
                for v in vs:
                    if _dot(g, v.entries()) != 0:
                        raise AssertionError(f"internal error: law {law.name} not orthogonal "
                                             "to a bracket")
            gain = span.add_matrix(QMatrix.vstack(vs))
            fails = 0 if gain else fails + k
        if reason:
            break
    if (N - span.rank > lower and N <= poly_max_n and complete and max_depth > 0
            and (timeout is None or time.monotonic() - t0 < timeout)):
        limit = poly_seconds if timeout is None else min(poly_seconds, timeout - (time.monotonic() - t0))
        pd = _poly_phase(net, samples, span, lower, rng, time.monotonic() + limit, max_depth)
        depth = max(depth, pd)
        if N - span.rank > lower and not reason.startswith("timeout"):
            reason = (f"brackets did not close the gap (jets to depth {jet_depth}, polynomial "
                      f"brackets to depth {pd} of max {max_depth}, within {limit:g} s)")
    implicit = 0
    if N - span.rank == lower:
        reason = ("closed at the generators" if depth == 0 else
                  f"closed with brackets up to depth {depth}")
    elif span.rank == r0 and complete and (timeout is None or time.monotonic() - t0 < timeout):
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
               brackets_tried=tried, elapsed=time.monotonic() - t0, implicit=implicit)
    return res, span


def is_tangent(net: Network, direction: Sequence[Polynomial], samples) -> tuple[bool, str]:
    """Whether the polynomial vector field *direction* is orthogonal to every gradient field
    (⟨X, ∇_θ f_{p,o}⟩ ≡ 0 exactly): then f is unchanged to first order along X on the samples,
    i.e. X is tangent to the fiber.

    >>> net = Network.from_rows([[[1]], [[1]], [[1]]], [[0], [-1], [0]])
    >>> R = parameter_ring_of(net)
    >>> X = [R.zero()] * 6
    >>> X[1], X[3] = R.constant(1), -R.gen("W2[0,0]")        # S6: b1 += t, b2 -= t W2
    >>> is_tangent(net, X, [(1, 1), (1, -1), (-1, -1)])
    (True, 'orthogonal to every gradient field on 3 samples')
    """
    samples = _normalize(net, samples)
    R = parameter_ring_of(net)
    if len(direction) != net.n_parameters:
        raise DimensionMismatchError("is_tangent", len(direction), net.n_parameters)
    for s in samples:
        ring, polys = _sample_polys(net, s)
        emb = _Embed(R, ring)
        for o in range(net.n_outputs):
            for pt, (hs, ds) in enumerate(polys):
                tot = ring.zero()
                for k, X_k in enumerate(direction):
                    if not X_k.is_zero():
                        comp = _component(net, k, hs, ds[o])
                        if comp is not None:
                            tot = tot + emb(X_k) * comp
                if not tot.is_zero():
                    return False, (f"not tangent on pattern {s.pattern}, output {o}: "
                                   f"⟨X, ∇f⟩ = {_short(tot)}")
    return True, f"orthogonal to every gradient field on {len(samples)} samples"


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
# private: samples and activity
# ------------------------------------------------------------------------------------------
def _normalize(net: Network, samples) -> tuple[Sample, ...]:
    if isinstance(samples, tuple) and all(isinstance(s, Sample) for s in samples):
        out = samples
    elif isinstance(samples, Mapping):
        out = tuple(Sample(tuple(int(v) for v in p),
                           None if pts is None else tuple(tuple(to_q(v) for v in x) for x in pts))
                    for p, pts in samples.items())
    else:
        out = []
        for s in samples:
            if isinstance(s, Sample):
                out.append(s)
            else:
                out.append(Sample(tuple(int(v) for v in s), None))
        out = tuple(out)
    for s in out:
        if len(s.pattern) != net.n_hidden:
            raise DimensionMismatchError("pattern", len(s.pattern), f"{net.n_hidden} hidden neurons")
        if s.points is not None:
            for x in s.points:
                if len(x) != net.n_inputs:
                    raise DimensionMismatchError("sample point", len(x), net.n_inputs)
    return out


def _masks(net: Network, pattern) -> list[list[int]]:
    out, k = [], 0
    for n in net.hidden_widths:
        out.append([1 if v > 0 else 0 for v in pattern[k:k + n]])
        k += n
    return out


def _effective_masks(net, pattern) -> list[list[int]]:
    """Masks with a neuron counted active only if it is active AND reaches an output through
    active neurons (otherwise every gradient component through it is the zero polynomial)."""
    D = _masks(net, pattern)
    widths, L = net.widths, net.depth
    reach = True  # some neuron of layer l + 1 reaches an output
    out = [None] * (L - 1)
    for l in range(L - 1, 0, -1):
        out[l - 1] = [1 if D[l - 1][i] and reach else 0 for i in range(widths[l])]
        reach = any(out[l - 1])
    return out


def _activity(net, samples):
    act = []
    for l, n in enumerate(net.hidden_widths):
        rows = [_masks(net, s.pattern)[l] for s in samples]
        act.append([(all(r[i] for r in rows) and bool(rows), not any(r[i] for r in rows))
                    for i in range(n)])
    return act


def _points(net, s: Sample):
    if s.points is not None:
        return s.points
    d = net.n_inputs
    zero = tuple(Q(0) for _ in range(d))
    return (zero,) + tuple(tuple(Q(1) if j == i else Q(0) for j in range(d)) for i in range(d))


def _offsets(widths):
    """Flat index of W_l[0,0] and b_l[0] for l = 1..L (lists indexed by l-1)."""
    offs, k = [], 0
    for l in range(1, len(widths)):
        wo = k
        k += widths[l] * widths[l - 1]
        offs.append((wo, k))
        k += widths[l]
    return offs


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
    for k in range(net.n_parameters):
        if not live[k]:
            out.append((k, _why_frozen(net, k, names_dead)))
    return out


def _why_frozen(net, k, act):
    l, kind, i, j = _layer_of(net.widths, k)
    if l < net.depth and act[l - 1][i][1]:
        return f"neuron {i} of hidden layer {l} is inactive on every sample"
    if kind == "W" and l > 1 and act[l - 2][j][1]:
        return f"neuron {j} of hidden layer {l - 1} is inactive on every sample"
    return ("no active path through this parameter to an output on any sample"
            + (" (or input coordinate j is 0 on every data point)".replace("j", str(j))
               if kind == "W" and l == 1 else ""))


# ------------------------------------------------------------------------------------------
# private: polynomial constructions of laws
# ------------------------------------------------------------------------------------------
_GENS: dict = {}


def _gens(ring: Ring) -> dict:
    """name -> generator polynomial (``Ring.gen`` rebuilds all generators on each call)."""
    g = _GENS.get(ring.names)
    if g is None:
        g = _GENS[ring.names] = dict(zip(ring.names, ring.gens()))
    return g


def _var(R, l, name, *idx):
    return _gens(R)[f"{name}{l}[{','.join(map(str, idx))}]"]


def _sqnorm_in(R, l, i, widths):
    h = _var(R, l, "b", i) ** 2
    for j in range(widths[l - 1]):
        h = h + _var(R, l, "W", i, j) ** 2
    return h


def _sqnorm_out(R, l, i, widths):
    h = R.zero()
    for k in range(widths[l + 1]):
        h = h + _var(R, l + 1, "W", k, i) ** 2
    return h


def _inner_in(R, l, i, j, widths):
    h = _var(R, l, "b", i) * _var(R, l, "b", j)
    for a in range(widths[l - 1]):
        h = h + _var(R, l, "W", i, a) * _var(R, l, "W", j, a)
    return h


def _inner_out(R, l, i, j, widths):
    h = R.zero()
    for k in range(widths[l + 1]):
        h = h + _var(R, l + 1, "W", k, i) * _var(R, l + 1, "W", k, j)
    return h


def _layer_of(widths, k):
    """(layer l 1-based, 'W' or 'b', i, j) of flat parameter index k."""
    for l, (wo, bo) in enumerate(_offsets(widths), start=1):
        if k < bo:
            i, j = divmod(k - wo, widths[l - 1])
            return l, "W", i, j
        if k < bo + widths[l]:
            return l, "b", k - bo, None
    raise IndexError(k)


class _Embed:
    """Map polynomials of the parameter ring into a ring whose names contain them."""

    def __init__(self, src: Ring, dst: Ring):
        self.src, self.dst = src, dst
        self.idx = [dst.names.index(n) if n in dst.names else -1 for n in src.names]

    def __call__(self, p: Polynomial) -> Polynomial:
        n = self.dst.nvars
        terms = {}
        for mon, c in p.terms().items():
            e = [0] * n
            for i, ei in enumerate(mon):
                if ei:
                    if self.idx[i] < 0:
                        raise KeyError(self.src.names[i])
                    e[self.idx[i]] = ei
            terms[tuple(e)] = c
        return self.dst.from_dict(terms)


def _verify_local(net, h, samples):
    """Sufficient test with free interface symbols; None when h spans more than 2 layers."""
    widths, L = net.widths, net.depth
    if L < 2:
        return None
    R = h.ring
    used = h.variables()
    if not used:
        return True, "constant"
    idx = [R.index(n) for n in used]
    layers = sorted({_layer_of(widths, k)[0] for k in idx})
    if layers[-1] - layers[0] > 1:
        return None
    l = layers[0] if layers[0] < L else L - 1  # hidden layer l, next layer l + 1
    if l < 1:
        return None
    n_in, n_l, n_out = widths[l - 1], widths[l], widths[l + 1]
    names = ([f"W{l}[{i},{j}]" for i in range(n_l) for j in range(n_in)] + [f"b{l}[{i}]" for i in range(n_l)]
             + [f"W{l + 1}[{k},{i}]" for k in range(n_out) for i in range(n_l)]
             + [f"b{l + 1}[{k}]" for k in range(n_out)]
             + [f"s[{j}]" for j in range(n_in)] + [f"u[{k}]" for k in range(n_out)])
    ring = Ring.get(names)
    emb = _Embed(R, ring)
    hh = emb(h)
    G = _gens(ring)
    W = [[G[f"W{l}[{i},{j}]"] for j in range(n_in)] for i in range(n_l)]
    b = [G[f"b{l}[{i}]"] for i in range(n_l)]
    V = [[G[f"W{l + 1}[{k},{i}]"] for i in range(n_l)] for k in range(n_out)]
    s = [G[f"s[{j}]"] for j in range(n_in)]
    u = [G[f"u[{k}]"] for k in range(n_out)]
    z = [sum((W[i][j] * s[j] for j in range(n_in)), b[i]) for i in range(n_l)]
    back = [sum((V[k][i] * u[k] for k in range(n_out)), ring.zero()) for i in range(n_l)]
    involved = sorted({_layer_of(widths, k)[2] for k in idx if _layer_of(widths, k)[0] == l}
                      | {_layer_of(widths, k)[3] for k in idx
                         if _layer_of(widths, k)[0] == l + 1 and _layer_of(widths, k)[1] == "W"})
    # effective masks: in a sample where no neuron of layer l + 1 reaches an output, δ_{l+1} ≡ 0
    # (path argument), the identity holds trivially there and the sample drops out
    masks = {tuple(_effective_masks(net, smp.pattern)[l - 1][i] for i in involved)
             for smp in samples}
    grads = {n: hh.diff(n) for n in names[:-(n_in + n_out)] if not hh.diff(n).is_zero()}
    for mk in masks:
        a = dict(zip(involved, mk))
        tot = ring.zero()
        for n, g in grads.items():
            ll, kind, i, j = _layer_of(widths, R.index(n))
            if ll == l:
                if not a.get(i, 0):
                    continue
                comp = back[i] * (s[j] if kind == "W" else 1)
            else:
                if kind == "b":
                    comp = u[i]
                else:
                    if not a.get(j, 0):
                        continue
                    comp = u[i] * z[j]
            tot = tot + g * comp
        if not tot.is_zero():
            return False, f"local test fails for mask {mk} of neurons {involved} in layer {l}"
    return True, (f"identity holds with free interface symbols for {len(masks)} mask(s) of "
                  f"hidden layer {l} (implies it for every sample)")


def _sample_polys(net, s: Sample, lo: int = 1, hi: int | None = None):
    """Ring (θ, and x in region mode) and, per point, forward signals h_0..h_{hi-1} and, per
    output, back signals δ_lo..δ_L (lists indexed by layer; others None)."""
    pnames = net.parameter_names()
    d = net.n_inputs
    widths, L = net.widths, net.depth
    hi = L if hi is None else hi
    if s.points is None:
        ring = Ring.get(pnames + tuple(f"x[{j}]" for j in range(d)))
        G = _gens(ring)
        pts = [[G[f"x[{j}]"] for j in range(d)]]
    else:
        ring = Ring.get(pnames)
        G = _gens(ring)
        pts = [[ring.constant(v) for v in x] for x in s.points]
    D = _masks(net, s.pattern)
    zero = ring.zero()
    Ws = [[[G[f"W{l}[{i},{j}]"] for j in range(widths[l - 1])] for i in range(widths[l])]
          for l in range(1, L + 1)]
    bs = [[G[f"b{l}[{i}]"] for i in range(widths[l])] for l in range(1, L + 1)]
    ds_all = []
    for o in range(widths[L]):  # back signals do not depend on x
        ds = [None] * (L + 1)
        ds[L] = [ring.constant(1 if k == o else 0) for k in range(widths[L])]
        for l in range(L - 1, max(lo, 1) - 1, -1):
            ds[l] = [sum((Ws[l][k][i] * ds[l + 1][k] for k in range(widths[l + 1])
                          if not ds[l + 1][k].is_zero()), zero) if D[l - 1][i] else zero
                     for i in range(widths[l])]
        ds_all.append(ds)
    out = []
    for x in pts:
        hs = [x]
        for l in range(1, hi):
            hprev = hs[-1]
            hs.append([sum((Ws[l - 1][i][j] * hprev[j] for j in range(widths[l - 1])
                            if not hprev[j].is_zero()), bs[l - 1][i]) if D[l - 1][i] else zero
                       for i in range(widths[l])])
        out.append((hs, ds_all))
    return ring, out


def _component(net, k, hs, ds):
    """Gradient component of flat parameter k: δ_l[i] h_{l-1}[j] (W) or δ_l[i] (b)."""
    l, kind, i, j = _layer_of(net.widths, k)
    if ds[l][i].is_zero():
        return None
    if kind == "b":
        return ds[l][i]
    if hs[l - 1][j].is_zero():
        return None
    return ds[l][i] * hs[l - 1][j]


def _verify_full(net, h, samples):
    R = h.ring
    used = [R.index(n) for n in h.variables()]
    grads = {k: h.diff(k) for k in used}
    if not used:
        return True, "constant"
    layers = [_layer_of(net.widths, k)[0] for k in used]
    for s in samples:
        ring, polys = _sample_polys(net, s, min(layers), max(layers))
        emb = _Embed(R, ring)
        eg = {k: emb(g) for k, g in grads.items()}
        for pt, (hs, ds_all) in enumerate(polys):
            for o, ds in enumerate(ds_all):
                tot = ring.zero()
                for k, g in eg.items():
                    comp = _component(net, k, hs, ds)
                    if comp is not None:
                        tot = tot + g * comp
                if not tot.is_zero():
                    where = "" if s.points is None else f", point {[q_str(v) for v in s.points[pt]]}"
                    return False, (f"not conserved on pattern {s.pattern}, output {o}{where}: "
                                   f"⟨∇h, ∇f⟩ = {_short(tot)}")
    return True, f"⟨∇h, ∇f⟩ ≡ 0 on all {len(samples)} samples and {net.n_outputs} outputs"


def _short(p: Polynomial, n: int = 160) -> str:
    s = str(p)
    return s if len(s) <= n else s[:n] + " …"


def _frobenius(net, samples, r_max: int = 4, n_max: int = 120) -> tuple[bool, str]:
    """Certificate that the gradient fields span an involutive distribution near θ.

    Pick generator fields F_1..F_r independent at θ (r = their rank at θ) and pivot
    coordinates S with det M(θ) ≠ 0, M = (F_i[S]).  If every generator Y and every bracket
    [F_i, F_j] satisfies the polynomial identity det(M)·Y − Σ_i F_i (adj(M) Y_S)_i ≡ 0, then near
    θ all generators lie in the C^∞-span Δ of F, Δ is involutive of constant rank r, so the Lie
    algebra's trace is Δ and (Frobenius; [MGP23]) there are exactly N − r independent laws.
    Exact polynomial arithmetic; only attempted for r <= r_max and N <= n_max (cost).
    """
    N = net.n_parameters
    if N > n_max:
        return False, f"Frobenius test skipped (N = {N} > {n_max})"
    theta = net.parameters()
    R = parameter_ring_of(net)
    gens = _generator_polys(net, samples)
    span = _Span(N)
    F = []
    for Y in gens:
        if span.add_vector([c(theta) for c in Y]):
            F.append(Y)
            if len(F) > r_max:
                return False, f"Frobenius test skipped (rank > {r_max})"
    r = len(F)
    if r == 0:
        if all(c.is_zero() for Y in gens for c in Y):
            return True, "every gradient field is identically zero: every parameter is conserved"
        return False, "Frobenius test failed: the fields vanish at θ but not identically"
    S = span.piv
    M = [[F[i][S[a]] for i in range(r)] for a in range(r)]
    det, adj = _det_adj(M, R)

    def in_span(Y):
        YS = [Y[S[a]] for a in range(r)]
        c = [sum((adj[i][a] * YS[a] for a in range(r)), R.zero()) for i in range(r)]
        return all((det * Y[k] - sum((F[i][k] * c[i] for i in range(r)), R.zero())).is_zero()
                   for k in range(N))

    for Y in gens:
        if not in_span(Y):
            return False, "Frobenius test failed: a generator leaves the span near θ"
    for i in range(r):
        for j in range(i + 1, r):
            if not in_span(_poly_bracket(F[i], F[j])):
                return False, "Frobenius test failed: the distribution is not involutive"
    return True, (f"closed by Frobenius: the {len(gens)} gradient fields span an involutive "
                  f"distribution of constant rank {r} near θ")


def _generator_polys(net, samples) -> list[list[Polynomial]]:
    """The gradient fields as vectors of polynomials in Q[θ] (points 0, e_j in region mode)."""
    N = net.n_parameters
    gens = []
    for smp in samples:
        ring, polys = _sample_polys(net, Sample(smp.pattern, _points(net, smp)))
        zero = ring.zero()
        for hs, ds_all in polys:
            for ds in ds_all:
                gens.append([_component(net, k, hs, ds) or zero for k in range(N)])
    return gens


def _poly_phase(net, samples, span, lower, rng, deadline, max_depth, patience=40, max_terms=30000):
    """Brackets formed as polynomial vector fields (small N): no jet blow-up with depth.

    Random constant-coefficient combinations X of the generators are bracketed with earlier
    accepted fields (right-normed growth); every field formed is in the Lie algebra, so the
    rank of their values at θ stays a valid lower bound of dim Lie(V)(θ).  Returns the largest
    depth reached.
    """
    N = net.n_parameters
    theta = net.parameters()
    gens = _generator_polys(net, samples)
    R = parameter_ring_of(net)
    if not gens:
        return 0

    def combo():
        out = [R.zero()] * N
        for Y in rng.sample(gens, min(len(gens), 6)):
            c = rng.randint(-3, 3)
            if c:
                out = [a + c * b for a, b in zip(out, Y)]
        return out

    pool = [(combo(), 0) for _ in range(2)]
    fails, depth = 0, 0
    while N - span.rank > lower and fails < patience and time.monotonic() < deadline:
        Y, dy = pool[-1] if rng.random() < 0.5 else rng.choice(pool)
        if dy >= max_depth:
            Y, dy = pool[0] if pool[0][1] < max_depth else (combo(), 0)
        Z = _poly_bracket(combo(), Y, deadline)
        if Z is None:
            break
        if span.add_vector([c(theta) for c in Z]):
            depth = max(depth, dy + 1)
            fails = 0
        else:
            fails += 1
        # kept even when its value at θ adds nothing: deeper brackets grow from it (unless huge)
        if sum(number_of_terms(c) for c in Z) <= max_terms:
            pool.append((Z, dy + 1))
            del pool[:-12]
    return depth


def _poly_bracket(X, Y, deadline=None):
    """[X, Y]_k = Σ_j X_j ∂_j Y_k − Y_j ∂_j X_k for polynomial vector fields (None once the
    monotonic *deadline* has passed)."""
    N = len(X)
    out = []
    for k in range(N):
        if deadline is not None and time.monotonic() > deadline:
            return None
        t = X[k].ring.zero()
        for j in range(N):
            if not X[j].is_zero():
                t = t + X[j] * Y[k].diff(j)
            if not Y[j].is_zero():
                t = t - Y[j] * X[k].diff(j)
        out.append(t)
    return out


def _det_adj(M, R):
    """Determinant and adjugate of a small square matrix of polynomials (cofactors)."""
    r = len(M)

    def det(A):
        if len(A) == 1:
            return A[0][0]
        return sum(((-1) ** j * A[0][j] * det([row[:j] + row[j + 1:] for row in A[1:]])
                    for j in range(len(A))), R.zero())

    if r == 1:
        return M[0][0], [[R.constant(1)]]
    adj = [[(-1) ** (i + j) * det([row[:i] + row[i + 1:] for k, row in enumerate(M) if k != j])
            for j in range(r)] for i in range(r)]
    return det(M), adj


# ------------------------------------------------------------------------------------------
# private: exact values at θ, spans
# ------------------------------------------------------------------------------------------
def _gradient_at(p: Polynomial, theta) -> list:
    g = [Q(0)] * len(theta)
    for name in p.variables():
        k = p.ring.index(name)
        g[k] = p.diff(k)(theta)
    return g


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b) if x != 0), Q(0))


def _independent(laws, grads, N):
    """Greedy maximal subset of laws whose gradients at θ are independent (exact)."""
    span = _Span(N)
    basis, redundant = [], []
    for law, g in zip(laws, grads):
        (basis if span.add_vector(g) else redundant).append(law)
    return basis, redundant


class _ModSpan:
    """Rank of accepted rows modulo the prime p = 2^61 − 1 (FLINT ``nmod_mat`` RREF).

    Sound for the upper bound: reducing mod p (after clearing denominators) can only lower
    the rank, so N − rank_p ≥ N − rank_Q ≥ the true number of laws.  Rows whose common
    denominator is divisible by p are skipped (again only loosening the bound).
    """

    P = (1 << 61) - 1

    def __init__(self, n: int):
        self.n = n
        self.rows: list[list[int]] = []
        self.piv: tuple[int, ...] = ()
        self.skipped = 0

    @property
    def rank(self) -> int:
        return len(self.piv)

    def add_matrix(self, M: QMatrix) -> int:
        if M.nrows == 0:
            return 0
        try:
            res = residues(M, self.P)
        except ZeroDivisionError:
            self.skipped += M.nrows
            return 0
        before = self.rank
        flat = [x for row in self.rows for x in row] + res
        self.piv, self.rows = nmod_rref(len(self.rows) + M.nrows, self.n, flat, self.P)
        return self.rank - before

    def add_vector(self, v) -> bool:
        row = v if isinstance(v, QMatrix) else QMatrix.from_flat(1, self.n, v)
        return self.add_matrix(row) > 0


class _Span:
    """Row space over Q kept in reduced row echelon form; membership by one product."""

    def __init__(self, n: int):
        self.n = n
        self.B = QMatrix.zeros(0, n)
        self.piv: list[int] = []

    @property
    def rank(self) -> int:
        return len(self.piv)

    def _reduce(self, M: QMatrix) -> QMatrix:
        if not self.piv or M.nrows == 0:
            return M
        return M - M.submatrix(cols=self.piv) @ self.B

    def add_matrix(self, M: QMatrix) -> int:
        if M.nrows == 0:
            return 0
        R = self._reduce(M)
        if R.is_zero():
            return 0
        E, piv = R.rref()
        E = E.submatrix(rows=range(len(piv)))
        if self.piv:
            self.B = self.B - self.B.submatrix(cols=piv) @ E
        B = QMatrix.vstack([self.B, E]) if self.piv else E
        allp = self.piv + list(piv)
        order = sorted(range(len(allp)), key=lambda t: allp[t])
        self.B = B.submatrix(rows=order)
        self.piv = [allp[t] for t in order]
        return len(piv)

    def add_vector(self, v) -> bool:
        row = v if isinstance(v, QMatrix) else QMatrix.from_flat(1, self.n, v)
        return self.add_matrix(row) > 0

    def contains(self, v) -> bool:
        row = v if isinstance(v, QMatrix) else QMatrix.from_flat(1, self.n, v)
        return self._reduce(row).is_zero()

    def orthogonal(self, g) -> bool:
        if not self.piv:
            return True
        return (self.B @ QMatrix.column(g)).is_zero()


def _field_block(net, s: Sample) -> QMatrix:
    """Rows ∇_θ f_o(θ, x) at θ for the sample's points (all outputs), whole-matrix ops."""
    widths, L = net.widths, net.depth
    D = _masks(net, s.pattern)
    pts = _points(net, s)
    X = QMatrix.from_rows(pts, ncols=widths[0])
    Hs = [X]
    H = X
    for l in range(L - 1):
        W, b = net.layer(l)
        H = (H @ W.T).add_to_rows(b) @ QMatrix.diagonal(D[l])
        Hs.append(H)
    # back signals δ_l (m x n_l)
    deltas = [None] * (L + 1)
    deltas[L] = QMatrix.identity(widths[L])
    for l in range(L - 1, 0, -1):
        deltas[l] = (deltas[l + 1] @ net.layer(l)[0]) @ QMatrix.diagonal(D[l - 1])
    ns = len(pts)
    ones = QMatrix.from_rows([[1]] * ns)
    rows_per_o = []
    for o in range(widths[L]):
        parts = []
        for l in range(1, L + 1):
            dl = deltas[l].row_at(o)
            Hp = Hs[l - 1]
            parts += [Hp.scale(c) if c != 0 else QMatrix.zeros(ns, widths[l - 1]) for c in dl]
            parts.append(ones @ QMatrix.row(dl))
        rows_per_o.append(QMatrix.hstack(parts))
    return QMatrix.vstack(rows_per_o)


# ------------------------------------------------------------------------------------------
# private: jets (Q[ε_1..ε_k]/(ε_i²) with matrix coefficients) and brackets at θ
# ------------------------------------------------------------------------------------------
def _jmul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, A in a.items():
        for mb, B in b.items():
            if ma & mb:
                continue
            P = A @ B
            m = ma | mb
            out[m] = out[m] + P if m in out else P
    return out


def _jadd(a: dict, b: dict, sign: int = 1) -> dict:
    out = dict(a)
    for m, B in b.items():
        if m in out:
            out[m] = out[m] + B if sign > 0 else out[m] - B
        else:
            out[m] = B if sign > 0 else -B
    return out


def _jT(a: dict) -> dict:
    return {m: A.T for m, A in a.items()}


def _jright(a: dict, M: QMatrix) -> dict:
    return {m: A @ M for m, A in a.items()}


def _jleft(M: QMatrix, a: dict) -> dict:
    return {m: M @ A for m, A in a.items()}


class _JetNet:
    """Evaluate generator combinations and their brackets at jet points."""

    def __init__(self, net: Network, samples, mix: int = 6):
        self.net, self.mix = net, mix
        self.widths, self.L = net.widths, net.depth
        self.samples = samples
        self.offs = _offsets(self.widths)
        self.X = [QMatrix.from_rows(_points(net, s), ncols=self.widths[0]) for s in samples]
        self.D = [[QMatrix.diagonal(m) for m in _masks(net, s.pattern)] for s in samples]
        theta = list(net.parameters())
        self.theta = {0: QMatrix.from_flat(1, len(theta), theta)}

    def random_bracket(self, depth: int, rng: random.Random):
        """Right-normed bracket [g_depth, [..., [g_1, g_0]]] of random one-pattern combinations."""
        P = len(self.samples)

        def gen():
            chosen = range(P) if P <= self.mix else rng.sample(range(P), self.mix)
            terms = []
            for p in chosen:
                ns = self.X[p].nrows
                A = QMatrix.from_rows([[rng.randint(-3, 3) for _ in range(self.widths[-1])]
                                       for _ in range(ns)])
                if not A.is_zero():
                    terms.append((p, A))
            return ("g", tuple(terms))
        e = gen()
        for _ in range(depth):
            e = ("b", gen(), e)
        return e

    def value(self, expr) -> QMatrix:
        out = self._eval(expr, self.theta, 0)
        return out.get(0, QMatrix.zeros(1, self.net.n_parameters))

    def _eval(self, expr, P: dict, nbits: int) -> dict:
        if expr[0] == "g":
            out: dict = {}
            for p, A in expr[1]:
                out = _jadd(out, self._gen(p, A, P))
            return out
        _, A, B = expr
        t = 1 << nbits
        a = self._eval(A, P, nbits)
        Bv = self._eval(B, _jadd(P, {m | t: v for m, v in a.items()}), nbits + 1)
        b = self._eval(B, P, nbits)
        Av = self._eval(A, _jadd(P, {m | t: v for m, v in b.items()}), nbits + 1)
        cb = {m & ~t: v for m, v in Bv.items() if m & t}
        ca = {m & ~t: v for m, v in Av.items() if m & t}
        return _jadd(cb, ca, -1)

    def _gen(self, p: int, A: QMatrix, P: dict) -> dict:
        widths, L = self.widths, self.L
        # split the point into layer jets
        layers = []
        for l in range(1, L + 1):
            wo, bo = self.offs[l - 1]
            Wj, bj = {}, {}
            for m, v in P.items():
                ent = v.entries()
                Wj[m] = QMatrix.from_flat(widths[l], widths[l - 1], ent[wo:bo])
                bj[m] = QMatrix.from_flat(1, widths[l], ent[bo:bo + widths[l]])
            layers.append((Wj, bj))
        X, D = self.X[p], self.D[p]
        ns = X.nrows
        ones = QMatrix.from_rows([[1]] * ns)
        H = {0: X}
        Hs = [H]
        for l in range(L - 1):
            Wj, bj = layers[l]
            Z = _jadd(_jmul(H, _jT(Wj)), _jleft(ones, bj))
            H = _jright(Z, D[l])
            Hs.append(H)
        Delta = {0: A}
        grads = [None] * L
        onesT = ones.T
        for l in range(L, 0, -1):
            gW = _jmul(_jT(Delta), Hs[l - 1])
            gb = _jleft(onesT, Delta)
            grads[l - 1] = (gW, gb)
            if l > 1:
                Delta = _jright(_jmul(Delta, layers[l - 1][0]), D[l - 2])
        out = {}
        masks = set()
        for gW, gb in grads:
            masks |= set(gW) | set(gb)
        N = self.net.n_parameters
        for m in masks:
            ent = []
            for l, (gW, gb) in enumerate(grads, start=1):
                ent += gW[m].entries() if m in gW else [Q(0)] * (widths[l] * widths[l - 1])
                ent += gb[m].entries() if m in gb else [Q(0)] * widths[l]
            out[m] = QMatrix.from_flat(1, N, ent)
        return out
