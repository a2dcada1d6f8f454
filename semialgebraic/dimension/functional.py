r"""Exact functional dimension and local fiber dimension of a ReLU network of any depth.

The functional dimension of θ is the rank of the Jacobian of θ ↦ (f_θ(x))_x over all inputs x
where f is differentiable in θ (GLMW22; three-layer-fibers R22 FIBDIM, generalised to depth L);
the local fiber dimension is N − that rank where the rank is locally constant.  Which inputs are
differentiable is decided by the rule of :mod:`algebra.kernel.differentiability` (a neuron with a
zero pre-activation, a zero row with a zero bias included, must be unseen by the network above
it); when no input of the domain is, θ is *non-generic*: no value, but the values at explicit
nearby parameters, each certified (:func:`_nearby`), and their maximum (``local_upper``).

Method: a sandwich, both sides exact.

* **Lower bound**: the rank of stacked Jacobian rows at chosen inputs.  Rows are assembled in
  closed form by backpropagating the masked products: for output o, δ_L = e_o,
  δ_l = D_l W_{l+1}ᵀ δ_{l+1}, and ∂f_o/∂W_l[i,k] = δ_l[i] h_{l-1}[k], ∂f_o/∂b_l[i] = δ_l[i]
  (D_l the 0/1 activation mask, computed exactly).  When the regions can be walked completely
  within the budget, every region contributes d + 1 affinely independent inputs (the rows are
  affine in x on a region) and the rank is the functional dimension itself.  Otherwise the
  inputs are *chosen* from a large float pool (random directions at scales 2^-12 … 2^12 times
  the first-layer kink distance): at most d + 1 per guessed activation pattern, distinct patterns
  first; then inputs that exercise every weight W_l[i,k] (δ_l[i] and h_{l-1}[k] non-zero
  together) several times; weights never exercised in the pool get Gauss–Newton walks across
  the two kinks involved.  Floats only *choose* inputs: each chosen input is an exact dyadic
  rational whose masks are recomputed exactly (inputs with a zero pre-activation are dropped).
  The rank is computed over Z/p (p = 1048573, or the next prime below dividing no denominator
  of θ) on the integer reduction of the exact rows: any non-zero minor mod p is a non-zero
  rational minor, so rank_p <= rank_Q is a certified lower bound; when it does not reach the
  upper bound and the matrix is small, the exact rational rank is computed with FLINT.  The
  first ~1.3 x upper rows give a basis mod p of their common kernel (one blocked elimination,
  float64 BLAS, exact); every later row only shrinks it (a product with the ~100 kernel
  columns), so the rank is N - dim(kernel), and the kernel directions
  outside the span of the proven symmetries name the parameters still missing: the next inputs
  are float walks to the sign conditions that would exercise them (two entered neurons in
  different phases, a source neuron flipped inside a rarely active one, ...), d + 1 exact
  inputs per region reached.  The input choice lives in :mod:`semialgebraic.dimension.sampling`,
  the rank and kernels mod p in :mod:`semialgebraic.modular`.
* **Exercise decisions** (:func:`exercise`, in :mod:`semialgebraic.dimension.jacobian_columns`): for a parameter
  never exercised by the samples, an exact depth-first search over activation phases (exact strict
  LPs) either finds an exact input where its Jacobian column δ·h is non-zero (added to the rows)
  or proves that no differentiable input does (Motzkin multipliers of every refuted partial
  pattern, or δ = 0 at a full pattern), re-checked by :func:`check_exercise_proof`; the unit
  vector then joins the upper bound. Once every positive-weight input of a target neuron is
  decided, the affine upper bound Σ_{on} w_k z_k + b of its pre-activation must be positive too:
  that row prunes the tree (recorded, re-derived by the checker). :func:`incoming_directions`
  enumerates the regions of a neuron's active set the same way: the kernel directions on its
  incoming parameters (its inputs span a proper subspace there) join the upper bound and the
  region points the rows. Complete but exponential: without a timeout these searches get about one
  second on wide nets (half of what is left of an explicit timeout); 4-32-32-1 normal seed 1
  closes with ``timeout=60``, while on 8-32-32-32-1 weights exercised only on thin cones, or
  never, stay open.
* **Upper bound**: N − rank of the span of directions v with J(x) v = 0 at every differentiable
  input of the domain, each proved (see :func:`symmetry_directions`): positive scaling of every
  hidden neuron; unit vectors of the incoming parameters of *silent* neurons (δ ≡ 0: dead, or
  all outgoing weights zero or into dead / silent neurons) and of the outgoing weights of dead
  neurons; the unit vector of a weight W_l[i,k] whose two neurons are never active together;
  the bias trade of an always-active or masked neuron (three-layer-fibers R13 S6) and the GL
  directions of blocks of always-active neurons of one layer (R11 S4).  Dead / active facts come
  from exact interval bounds over the domain, from the exact list of activation patterns when
  the region walk is complete, or, for neurons / weights the sampling flags (never active, never
  inactive, never exercised), from an exhaustive exact-LP search of the activation-pattern tree
  (:func:`semialgebraic.dimension.jacobian_columns._prove_empty`, budgeted: it succeeds on small nets only).

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

import itertools
import math
import time
from dataclasses import dataclass, field, replace
from typing import Any

from algebra.kernel import domain_json as _domain_json, parameter_offsets as _offsets
from algebra.linalg import QMatrix
from algebra.kernel.differentiability import kink_witness, vanishing_on_path
from algebra.network import Network
from algebra.rationals import Q, q_json

from ..budget import Budget
from ..certificates import dimension_bounds_certificate, jsonable
from .sampling import _DEBUG, _batch_simplex, _chosen_inputs, _masks, _np
from .upper import checked_directions_bound, is_regions_rank
from ..domains import _dom_json, normalize_domain
from .jacobian_columns import (Exercise, _phase_search, _prove_suspects, check_exercise_proof, exercise,
                       incoming_directions)
from ..joint import joint_regions
from ..modular import (PRIME, _kernel_mod_p, _missing_directions, _modq, _prime_for, _rank_mod_p,
                      _shrink_kernel)
from ..reduction import preactivation_bounds
from ..sets import Dimension

__all__ = ["FunctionalDimension", "functional_dimension", "jacobian_rows", "symmetry_directions",
           "Exercise", "exercise", "check_exercise_proof", "incoming_directions", "PRIME",
           "functional_dimension_certificate"]

import os as _os
_FIRST = float(_os.environ.get('NETFIBERS_DIM_FIRST', 1.5))   # first-round inputs per rank unit
_EXACT_LIMIT = 250_000   # entries of the row matrix up to which the rational rank is computed
_EXACT_LIMIT_COMPLETE = 2_000_000   # the same when every region was sampled (then rank = value)


@dataclass(frozen=True)
class FunctionalDimension:
    """Result of :func:`functional_dimension`: ``lower <= value <= upper`` (exact when equal)."""

    n_parameters: int
    lower: int
    upper: int
    reason: str
    deficits: tuple = ()
    complete_regions: bool = False
    samples: int = 0
    details: dict = field(default_factory=dict)
    inputs: tuple = field(default=(), repr=False, compare=False)   # the exact inputs of the rank
    non_generic: str = ""      # why no input of the domain is a differentiable point (else "")
    nearby: tuple = ()         # non-generic: the values at explicit nearby parameters (dicts)
    local_upper: int | None = None   # non-generic: the largest certified nearby value

    @property
    def exact(self) -> bool:
        return self.lower == self.upper and not self.non_generic

    @property
    def value(self) -> int | None:
        return self.lower if self.exact else None

    @property
    def dimension(self) -> Dimension:
        return Dimension.between(self.lower, self.upper, self.reason)

    @property
    def fiber_dimension(self) -> Dimension:
        """Local fiber dimension N − rank (where the rank is locally constant)."""
        return Dimension.between(self.n_parameters - self.upper, self.n_parameters - self.lower,
                                 "N - functional dimension")

    def to_json(self) -> dict:
        out = {"functional_dimension": self.value, "fiber_dimension": self.fiber_dimension.value,
               "exact": self.exact, "n_parameters": self.n_parameters, "reason": self.reason,
               "deficits": list(self.deficits), "complete_regions": self.complete_regions,
               "samples": self.samples}
        if self.details.get("exercise_proofs"):
            out["exercise_proofs"] = self.details["exercise_proofs"]
        if self.non_generic:
            out["non_generic"] = self.non_generic
            out["nearby"] = [dict(v) for v in self.nearby]
            out["local_upper"] = self.local_upper
        if not self.exact:
            out.update(lower=self.lower, upper=self.upper,
                       fiber_lower=self.n_parameters - self.upper,
                       fiber_upper=self.n_parameters - self.lower)
        return out


def functional_dimension(net: Network, *, domain: Any = None, timeout: float | None = None,
                         max_regions: int | None = 400, samples: int | None = None,
                         seed: int = 0, budget: Budget | None = None,
                         nearby: bool = True) -> FunctionalDimension:
    """Exact functional dimension of *net* on *domain* by the sandwich of the module docstring.

    Parameters
    ----------
    net : Network
    domain : None, "orthant" or (lo, hi)
    timeout : float, optional
        Seconds for the whole computation (the bounds found so far are returned).
    max_regions : int, optional
        Regions walked before switching to random sampling (None: no limit).
    samples : int, optional
        Number of random base points per round (default from N).
    nearby : bool
        When θ is non-generic (no input of the domain is a differentiable point of
        θ ↦ f_θ(x), :mod:`algebra.kernel.differentiability`), compute and certify the values at
        explicit nearby parameters (:func:`_nearby`; ``fd.nearby``, ``fd.local_upper``).

    Examples
    --------
    >>> from algebra.network import Network
    >>> dead = Network.from_rows([[[1], [0]], [[1, 1]]], [[0, -1], [0]])   # neuron 1 is dead
    >>> fd = functional_dimension(dead)
    >>> fd.value, fd.n_parameters, fd.deficits[0]
    (3, 7, 'dead neuron (1, 1): 3 parameters free')
    """
    budget = budget or Budget(timeout)
    dom = normalize_domain(domain, net.n_inputs)
    N, d = net.n_parameters, net.n_inputs
    if isinstance(dom, tuple) and dom[0] == dom[1]:
        point = _one_point(net, dom[0])
        if point is not None:
            if point.non_generic and nearby:
                point = _with_nearby(net, dom, point, point.details["kinks"], budget)
            return point
    seen_zero = _seen_zero_neurons(net)
    if seen_zero:                      # a kink at every input, seen by the output: no walk needed
        why = ("no input of the domain is a differentiable point of theta -> f_theta(x): neurons "
               f"{_neuron_list(seen_zero)} of the last hidden layer have a zero row and a zero bias "
               "(a kink at every input) and a non-zero output column; the functional dimension is "
               "not defined at this theta")
        fd = _non_generic(net, why, seen_zero)
        return _with_nearby(net, dom, fd, seen_zero, budget) if nearby else fd
    state: dict = {}
    walk_budget = Budget(5.0 if timeout is None else min(5.0, timeout / 3), max_regions)
    regions = []
    n1 = net.widths[1] if net.depth > 1 else 0
    first_layer_regions = sum(math.comb(n1, i) for i in range(min(n1, d) + 1))
    if max_regions is None or first_layer_regions <= max_regions:
        for reg in joint_regions([net], domain=dom, budget=walk_budget, state=state, seed=seed,
                                 multipliers=False):
            regions.append(reg)
    complete = bool(state.get("complete"))
    patterns = [r.pattern for r in regions] if complete else None
    # regions on which a neuron has sign 0 (its pre-activation vanishes on the whole region, a
    # zero row with a zero bias included) that the network above it sees: no input there is a
    # differentiable point of theta -> f_theta(x) (algebra.kernel.differentiability)
    kinks = {}
    for r in regions:
        if 0 in r.pattern:
            w = kink_witness(net, r.pattern)
            if w is not None:
                kinks[r.pattern] = w
    vanishing = [r for r in regions if r.pattern in kinks]
    sym, deficits = symmetry_directions(net, domain=dom, patterns=patterns)
    sym_rank = QMatrix.from_rows(sym, ncols=N).rank() if sym else 0
    upper = N - sym_rank
    nrng = _np().random.default_rng(seed)
    prime = _prime_for(net)            # no denominator of θ divisible by it (reductions valid)
    first_rows = min(N + 64, int(1.3 * upper) + 64)   # eliminated once; later rows shrink the kernel
    all_X: list = []
    rank, npts, rounds = 0, 0, 0
    evidence: dict = {}
    kernel = None          # basis mod p of the common kernel of every Jacobian row so far
    new_points = _batch_simplex(net, [reg.point for reg in regions])   # every walked region
    while True:
        try:
            if not complete:
                # candidate inputs guessed in float, chosen to exercise every parameter; the
                # masks of the chosen inputs are then computed exactly (_masks)
                want = samples or (max(16, int(_FIRST * upper) // max(1, net.n_outputs) + 16) if not rounds
                                   else max(16, upper // (8 * max(1, net.n_outputs))))
                if kernel is not None and rank < upper:
                    evidence["missing"] = _missing_directions(net, kernel, sym, prime, limit=24)
                new_points = new_points + _chosen_inputs(net, dom, nrng, want, 10 * want + 2000,
                                                         evidence, rounds)
            X, masks = _masks(net, new_points)
            new_points = []
            all_X += X
            npts = len(all_X)
            if X:
                R = jacobian_rows(net, X, masks, prime)
                if kernel is None:
                    kernel = _shrink_kernel(_kernel_mod_p(R[:first_rows], prime), R[first_rows:], prime)
                else:
                    kernel = _shrink_kernel(kernel, R, prime)
            new_rank = N - kernel.shape[1] if kernel is not None else 0
            rounds += 1
            stalled = new_rank <= rank
            productive = new_rank >= rank + 4         # sampling still finds new directions
            rank = max(rank, new_rank)
            if _DEBUG:
                print("round", rounds, "points", npts, "rank", new_rank, "upper", upper, flush=True)
            if (complete or rank >= upper or budget.exhausted() or (stalled and rounds >= 2)
                    or rounds >= (6 if productive else 4)):
                break
        except KeyboardInterrupt:        # Ctrl-C: report the bounds established so far
            budget.interrupt()
            complete = False               # the rank of a partial sample is only a lower bound
            break
    proofs: list = []
    proven: dict = {}
    if rank < upper and not complete and not budget.exhausted() and kernel is not None:
        evidence["missing"] = _missing_directions(net, kernel, sym, prime)
        proven, witnesses, proofs = _prove_suspects(net, dom, evidence, budget, upper - rank,
                                                    seconds=3.0 if net.n_hidden <= 48 else 1.0)
        # a proof branching on a neuron whose pre-activation vanishes identically on a branch
        # says nothing there (differentiable inputs may lie there): not used (the checker's rule)
        cache: dict = {}
        vague = {int(p_["parameter"]) for p_ in proofs
                 if any(vanishing_on_path(net, tuple(tuple(v) for v in r.get("path", ())), cache)
                        is not None for r in p_.get("refuted", ()))}
        if vague:
            proofs = [p_ for p_ in proofs if int(p_["parameter"]) not in vague]
            proven["free"] = set(proven.get("free", ())) - vague
        if witnesses:                  # exact inputs where a suspect parameter is exercised
            Xw, masks = _masks(net, _batch_simplex(net, witnesses))
            if Xw:
                all_X += Xw
                npts = len(all_X)
                kernel = _shrink_kernel(kernel, jacobian_rows(net, Xw, masks, prime), prime)
                rank = max(rank, N - kernel.shape[1])
        if proven:
            sym, deficits = symmetry_directions(net, domain=dom, patterns=patterns, proven=proven)
            sym_rank = QMatrix.from_rows(sym, ncols=N).rank() if sym else 0
            upper = N - sym_rank
        if rank < upper:
            evidence["missing"] = _missing_directions(net, kernel, sym, prime)
    X = all_X
    lower, how = rank, "rank mod p of the Jacobian rows (a lower bound of the rational rank)"
    exact_rank = False
    if lower < upper and npts and npts * N <= (_EXACT_LIMIT_COMPLETE if complete else _EXACT_LIMIT):
        lower = _exact_rank(net, X)
        how = "exact rational rank of the Jacobian rows"
        exact_rank = True
    if complete and lower < upper and not exact_rank:
        complete = False       # only a modular lower bound of the complete rank: keep the interval
    if complete:
        upper_claim = upper
        upper = lower          # every region sampled: the rank is the functional dimension
        reason = (f"{how} at d + 1 inputs in each of the {len(regions)} linear regions (complete)")
        if lower < upper_claim:
            deficits = deficits + (f"{upper_claim - lower} further dimensions of the fiber are "
                                   "not explained by the known symmetries",)
    elif lower == upper:
        reason = f"{how} at {npts} inputs meets N - rank of the known symmetry directions"
    else:
        reason = (f"not closed: {how} at {npts} inputs gives {lower}, known symmetries give "
                  f"<= {upper}; to close it sample more regions (--max-regions, --timeout) or "
                  "find the missing symmetry")
        hints = _evidence_lines(net, evidence, lower, upper)
        if hints:
            reason += "; evidence from the sampled inputs (float guesses, unproven): " + "; ".join(hints)
    non_generic = ""
    if vanishing and patterns is not None:          # (the walk was complete)
        named = sorted(set(kinks.values()))
        deficits = tuple(deficits) + (
            f"{len(vanishing)} of the {len(regions)} linear regions hold no differentiable input (a "
            "neuron's pre-activation vanishes on the whole region and the network above it depends "
            f"on its output: neurons {_neuron_list(named)}; theta is not generic there); inputs there "
            "are not counted",)
        if len(vanishing) == len(regions):
            non_generic = ("no input of the domain is a differentiable point of theta -> f_theta(x): "
                           "on every linear region a neuron's pre-activation vanishes identically and "
                           f"the network above it depends on its output ({_neuron_list(named)}; theta "
                           "lies on a kink of the parametrisation); the functional dimension is not "
                           "defined at this theta")
            reason = "non-generic: " + non_generic
    fd = FunctionalDimension(N, lower, upper, reason, tuple(deficits), complete, npts,
                             {"symmetry_rank": sym_rank, "regions_walked": len(regions),
                              "rounds": rounds, "exercise_proofs": proofs, "prime": prime,
                              "proven": proven, "patterns": patterns},
                             tuple(tuple(x) for x in X), non_generic)
    if non_generic and nearby:
        fd = _with_nearby(net, dom, fd, sorted(set(kinks.values())), budget)
    return fd


def functional_dimension_certificate(net: Network, fd: FunctionalDimension, *,
                                     domain: Any = None, seconds: float = 10.0) -> dict:
    """A ``functional_dimension`` certificate of ``fd.lower`` (checked by
    :mod:`semialgebraic.verify.functional_dimension`: the Jacobian rows at the listed inputs have
    rank >= lower mod a prime, hence over Q).  The inputs are thinned to a prefix that already
    reaches the rank when one does.

    The upper bound is certified too (``upper_directions``, claim "lower <= functional
    dimension <= upper") when N − rank of the directions the checker can re-derive from θ equals
    ``fd.upper`` exactly: scalings, dead / silent / always-active neurons by interval bounds,
    GL blocks, never-exercised parameters with their proofs, and, searched again here with proofs
    recorded (at most *seconds*), neurons proven dead / always active / masked and the incoming
    directions of :func:`incoming_directions`.  When they do not reach ``fd.upper`` and the
    regions were walked completely (then ``fd.upper`` is the exact rank over every region), the
    regions are walked again with Farkas multipliers and listed (``upper_regions``: the checker
    re-checks that they cover the domain and recomputes the exact rank of the rows on them).
    Otherwise ``uncertified_upper_reason`` names what is missing.

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> fd = functional_dimension(net)
    >>> cert = functional_dimension_certificate(net, fd)
    >>> from semialgebraic.verify import verify
    >>> fd.value, cert["lower"], verify(cert)[0]
    (5, 5, True)
    """
    dom = normalize_domain(domain, net.n_inputs)
    p = fd.details.get("prime", PRIME)
    X = [list(x) for x in fd.inputs]
    if fd.lower > 0 and X:
        m = max(1, net.n_outputs)
        k = min(len(X), -(-fd.lower // m) + 16)
        while k < len(X):                          # shortest tried prefix reaching the rank
            Xk, masks = _masks(net, X[:k])
            if len(Xk) == k and _rank_mod_p(jacobian_rows(net, Xk, masks, p), p) >= fd.lower:
                X = X[:k]
                break
            k *= 2
    inputs = [[q_json(v) for v in x] for x in X]

    def certificate(**upper) -> dict:
        return dimension_bounds_certificate(net, prime=int(p), inputs=inputs, lower=int(fd.lower),
                                            domain=_dom_json(dom), upper_reason=fd.reason, **upper)

    if isinstance(dom, tuple) and dom[0] == dom[1] and fd.upper == fd.lower and len(X) == 1:
        return certificate(upper=int(fd.upper), upper_one_point=True)   # the rank at the input
    start = time.monotonic()
    dirs, bound, missing = _upper_certificate_entries(net, fd, dom, seconds)
    if bound == fd.upper:                          # the upper bound is re-checkable: certified
        return certificate(upper=int(fd.upper), upper_directions=dirs)
    regions = None
    if fd.complete_regions:        # the upper bound is the exact rank over every region
        regions = _cover_regions(net, fd, dom, max(1.0, seconds - (time.monotonic() - start)))
        if regions is None:
            missing.append(f"the upper bound {fd.upper} is the exact rank at every linear region of a "
                           "complete walk; the walk with Farkas multipliers (its cover certificate) "
                           "did not finish within the budget")
    if regions is not None:
        return certificate(upper=int(fd.upper), upper_regions=regions)
    return certificate(uncertified_upper_reason="; ".join(
        [f"N - rank of the certifiable directions is {bound}, not the reported upper {fd.upper}"]
        + missing))


def symmetry_directions(net: Network, *, domain: Any = None, patterns=None, proven: dict | None = None
                        ) -> tuple[list, tuple]:
    """Proven kernel directions of every Jacobian row at θ, and one line per deficit source.

    *patterns*: the complete list of activation patterns of the regions (optional; otherwise
    dead / always-active facts come from exact interval bounds over the domain).  *proven*:
    facts established by :func:`semialgebraic.dimension.jacobian_columns._prove_empty` (``"dead"``, ``"active"``:
    flat neuron indices; ``"free"``: parameter indices).

    Each direction v satisfies J(x) v = 0 for every input x of the domain with no zero
    pre-activation (so the rank is at most N − rank of the span).  With
    ∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k] and ∂f/∂b_l[i] = δ_l[i]:

    * unit vectors of W_l[i, ·], b_l[i] for a *silent* neuron i (δ_l[i] ≡ 0): dead (mask 0), or
      every successor j with W_{l+1}[j,i] != 0 silent, or (last hidden layer) W_L[:, i] = 0
      (δ_l[i] = D_l[i] Σ_j W_{l+1}[j,i] δ_{l+1}[j]);
    * unit vectors of W_{l+1}[·, k] for a dead neuron k (h_l[k] ≡ 0);
    * the unit vector of W_l[i,k] when no such x has z_{l-1,k}(x) > 0 and z_{l,i}(x) > 0
      (then h_{l-1}[k] = 0 or δ_l[i] = 0 at each x; proven by an exhaustive exact-LP search);
    * positive scaling of each live neuron (S2: f is invariant, so the derivative vanishes);
    * bias trade of an always-active or masked neuron and GL of an always-active block (S4, S6:
      exact symmetries of f on the domain near θ).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
    >>> len(symmetry_directions(net)[0])
    2
    """
    dom = normalize_domain(domain, net.n_inputs)
    N, widths = net.n_parameters, net.widths
    offs = _offsets(net)
    L = net.depth
    if patterns is not None:
        flat = list(zip(*patterns)) if patterns else []
        ever_on = [any(s > 0 for s in col) for col in flat]
        always_on = [all(s > 0 for s in col) for col in flat]
    else:
        bounds = preactivation_bounds(net, domain=dom)
        ever_on = [not (hi is not None and hi <= 0) for layer in bounds[:-1] for lo, hi in layer]
        always_on = [lo is not None and lo >= 0 for layer in bounds[:-1] for lo, hi in layer]
    proven = proven or {}
    for g in proven.get("dead", ()):
        ever_on[g] = False
    for g in proven.get("active", ()):
        always_on[g] = True
    vecs, deficits = [], []
    silent = _silent_neurons(net, ever_on)
    starts = [sum(widths[1:1 + l]) for l in range(L)]
    free = set()
    for l in range(L):                    # unit directions: δ_l[i] ≡ 0 or h_{l-1}[k] ≡ 0
        W = net.weights[l]
        n_in = widths[l]
        for i in range(W.nrows):
            if l < L - 1 and silent[starts[l] + i]:
                free.update(offs[l] + i * n_in + c for c in range(n_in))
                free.add(offs[l] + W.nrows * n_in + i)
            if l:
                free.update(offs[l] + i * n_in + c for c in range(n_in) if not ever_on[starts[l - 1] + c])
    extra = set(proven.get("free", ())) - free
    for p_ in sorted(extra):
        deficits.append(f"parameter {net.parameter_names()[p_]} is never exercised: its Jacobian column "
                        "(delta times input) is zero at every differentiable input (exact phase search)")
    free |= extra
    for (t_, i_), vs in sorted((proven.get("incoming") or {}).items()):
        vecs.extend(vs)
        deficits.append(f"neuron ({t_ + 1}, {i_}): on its active set its inputs and 1 span only "
                        f"{widths[t_] + 1 - len(vs)} of {widths[t_] + 1} dimensions (exact enumeration "
                        f"of the regions there): {len(vs)} incoming directions free")
    for p_ in sorted(free):
        v = [0] * N
        v[p_] = 1
        vecs.append(v)
    k = 0
    for l in range(L - 1):
        W, b = net.layer(l)
        Wn, bn = net.layer(l + 1)
        n_in = widths[l]
        block_on = []
        for i in range(W.nrows):
            g = k + i
            win = [offs[l] + i * n_in + c for c in range(n_in)] + [offs[l] + W.nrows * n_in + i]
            wout = [offs[l + 1] + j * W.nrows + i for j in range(Wn.nrows)]
            if not ever_on[g]:
                deficits.append(f"dead neuron ({l + 1}, {i}): {len(win) + len(wout)} parameters free")
                continue
            if silent[g]:
                deficits.append(f"neuron ({l + 1}, {i}) reaches the output only through zero weights "
                                f"or dead / silent neurons: its {len(win)} incoming parameters are free")
            v = [Q(0)] * N                                  # positive scaling (S2)
            for c in range(n_in):
                v[win[c]] = W[i, c]
            v[win[-1]] = b[i]
            for j in range(Wn.nrows):
                v[wout[j]] = -Wn[j, i]
            vecs.append(v)
            trade = always_on[g] or (patterns is not None and _is_masked(net, patterns, l, k, i))
            if trade:                                       # bias trade (S4 / S6)
                v = [Q(0)] * N
                v[win[-1]] = Q(1)
                for j in range(Wn.nrows):
                    v[offs[l + 1] + Wn.nrows * W.nrows + j] = -Wn[j, i]
                vecs.append(v)
                deficits.append(f"neuron ({l + 1}, {i}) is {'always active' if always_on[g] else 'masked'}:"
                                " bias trade with the next layer")
            if always_on[g]:
                block_on.append(i)
        for i in block_on:                                  # GL of the linear block (S4)
            for i2 in block_on:
                if i == i2:
                    continue
                v = [Q(0)] * N
                for c in range(n_in):
                    v[offs[l] + i * n_in + c] = W[i2, c]
                v[offs[l] + W.nrows * n_in + i] = b[i2]
                for j in range(Wn.nrows):
                    v[offs[l + 1] + j * W.nrows + i2] = -Wn[j, i]
                vecs.append(v)
        if len(block_on) > 1:
            deficits.append(f"layer {l + 1}: {len(block_on)} always-active neurons form a linear block")
        k += W.nrows
    return vecs, tuple(deficits)


def jacobian_rows(net: Network, X: list, masks: list, p: int):
    """Jacobian rows ∂f_o(x)/∂θ (o = 0..m-1 for each input) reduced mod p, as a numpy int64
    array (rows: input-major, then output), from exact inputs *X* and exact 0/1 *masks*
    (one array (n, n_l) per hidden layer)."""
    import numpy as np
    n, L, m = len(X), net.depth, net.n_outputs
    Ws = [np.array([[_modq(v, p) for v in row] for row in w.to_rows()], dtype=np.float64).reshape(w.nrows, w.ncols)
          for w in net.weights]
    bs = [np.array([_modq(v, p) for v in b], dtype=np.float64) for b in net.biases]
    H = [np.array([[_modq(v, p) for v in x] for x in X], dtype=np.float64).reshape(n, net.n_inputs)]
    for l in range(L - 1):
        Z = np.mod(H[-1] @ Ws[l].T + bs[l], p)
        H.append(Z * masks[l])
    offs = _offsets(net)
    R = np.empty((n, m, net.n_parameters))
    for o in range(m):
        delta = np.zeros((n, m))
        delta[:, o] = 1.0
        for l in range(L - 1, -1, -1):
            Hin = H[l]
            nw = Ws[l].shape[0] * Hin.shape[1]
            R[:, o, offs[l]:offs[l] + nw] = np.mod((delta[:, :, None] * Hin[:, None, :]).reshape(n, -1), p)
            R[:, o, offs[l] + nw:offs[l] + nw + delta.shape[1]] = delta
            if l:
                delta = np.mod(delta @ Ws[l], p) * masks[l - 1]
    R = R.reshape(n * m, -1)
    return R.astype(np.int64)


# ------------------------------------------------------------------------------------------------
# private helpers (the input choice is in dimension_sampling, the rank mod p in modular, the
# exercise decisions in exercise)
# ------------------------------------------------------------------------------------------------
def _evidence_lines(net, evidence, lower=None, upper=None) -> list:
    np = _np()
    pn = net.parameter_names()
    names = []
    for l, w in enumerate(net.widths[1:-1]):
        names += [(l + 1, i) for i in range(w)]
    lines = []
    if "never_on" in evidence:
        never_on = [names[g] for g in np.flatnonzero(evidence["never_on"])]
        never_off = [names[g] for g in np.flatnonzero(evidence["never_off"])]
        if never_on:
            lines.append(f"neurons never active at the sampled inputs {never_on} (if provably dead, "
                         "their parameters are free)")
        if never_off:
            lines.append(f"neurons never inactive at the sampled inputs {never_off} (if provably "
                         "always active, bias trades / linear blocks apply)")
    un = evidence.get("unexercised") or []
    if un:
        lines.append(f"{len(un)} weights never exercised (delta and input never both non-zero), "
                     f"e.g. {['W%d[%d,%s]' % (l + 1, i, k) for l, i, k in un[:4]]}")
    miss = evidence.get("missing") or []
    if miss:
        shown = ["+".join(pn[j] for j in sup[:4]) + ("+..." if len(sup) > 4 else "") for sup in miss[:6]]
        lines.append(f"kernel directions mod p not explained by the proven symmetries (supports): "
                     f"{shown}; each is either exercised only on inputs not sampled yet or an "
                     "unproven symmetry (a proof that the parameters' Jacobian columns satisfy "
                     "that relation on every region closes the gap)")
    return lines


def _silent_neurons(net, ever_on) -> list:
    """Hidden neurons (flat index) with δ ≡ 0 at every input where f is differentiable in θ:
    dead ones (mask 0), and, from the last hidden layer down, those whose every successor j with
    W_{l+1}[j, i] != 0 is silent (for the last hidden layer: the output column W_L[:, i] is zero).
    Proof: δ_l[i] = D_l[i] Σ_j W_{l+1}[j, i] δ_{l+1}[j] and δ_L = e_o."""
    widths, L = net.widths, net.depth
    starts = [sum(widths[1:1 + l]) for l in range(L)]
    silent = [not on for on in ever_on]
    for l in range(L - 2, -1, -1):
        Wn = net.weights[l + 1]
        for i in range(widths[l + 1]):
            g = starts[l] + i
            if silent[g]:
                continue
            succ = [j for j in range(Wn.nrows) if Wn[j, i] != 0]
            if l + 1 == L - 1:
                silent[g] = not succ
            else:
                silent[g] = all(silent[starts[l + 1] + j] for j in succ)
    return silent


def _is_masked(net, patterns, l, k, i) -> bool:
    """Neuron i of hidden layer l is active wherever a successor with W[j,i] != 0 is."""
    if l + 1 >= net.depth - 1:
        return False
    Wn = net.weights[l + 1]
    nxt = k + net.widths[l + 1]
    succ = [j for j in range(Wn.nrows) if Wn[j, i] != 0]
    return all(p[k + i] > 0 or all(p[nxt + j] <= 0 for j in succ) for p in patterns)


def _exact_rank(net, points) -> int:
    """Exact rational rank of the Jacobian rows at *points* (small cases)."""
    rows = _exact_rows(net, points)
    return QMatrix.from_rows(rows, ncols=net.n_parameters).rank() if rows else 0


def _exact_rows(net, points) -> list:
    """Exact rational Jacobian rows ∂f_o(x)/∂θ at *points* (no zero pre-activation assumed)."""
    rows = []
    L = net.depth
    for x in points:
        pre = net.preactivations(x)
        hs = [list(x)] + [[v if v > 0 else Q(0) for v in layer] for layer in pre[:-1]]
        masks = [[1 if v > 0 else 0 for v in layer] for layer in pre[:-1]]
        for o in range(net.n_outputs):
            delta = [Q(1) if j == o else Q(0) for j in range(net.n_outputs)]
            blocks = []
            for l in range(L - 1, -1, -1):
                blocks.append([dv * hv for dv in delta for hv in hs[l]] + list(delta))
                if l:
                    W = net.weights[l]
                    delta = [masks[l - 1][i] * sum((delta[j] * W[j, i] for j in range(W.nrows)), Q(0))
                             for i in range(W.ncols)]
            rows.append([v for blk in blocks[::-1] for v in blk])
    return rows


def _upper_certificate_entries(net, fd, dom, seconds) -> tuple[list, int, list]:
    """``upper_directions`` entries the checker re-derives from θ, N − rank of their vectors, and
    the facts behind ``fd.upper`` left without a certificate (one line each).

    Interval facts and exercise proofs first; then the facts of ``fd.details["proven"]`` (dead,
    always active, incoming) with emptiness / enumeration proofs searched again (recorded); then,
    when the complete activation-pattern list is known and the bound is still above
    ``fd.upper``, the pattern facts (dead, always active, masked) the same way.  Every entry is
    validated by the checker's own code before it is kept."""
    deadline = time.monotonic() + seconds
    N, L = net.n_parameters, net.depth
    names = [(l, i) for l in range(L - 1) for i in range(net.widths[l + 1])]
    bounds = preactivation_bounds(net, domain=dom)
    dead = {(l, i) for l, i in names if bounds[l][i][1] is not None and bounds[l][i][1] <= 0}
    active = {(l, i) for l, i in names if bounds[l][i][0] is not None and bounds[l][i][0] >= 0} - dead
    entries = [["scale", l, i] for l, i in names]
    entries += [["dead", l, i] for l, i in sorted(dead)]
    entries += [["active", l, i] for l, i in sorted(active)]
    missing: list = []
    point = isinstance(dom, tuple) and dom[0] == dom[1]     # proofs (open box) say nothing there

    def search(targets, leaves=False):
        """An emptiness (or, with *leaves*, enumeration) proof for *targets*, or None."""
        if point or time.monotonic() > deadline:
            return None
        lv: list | None = [] if leaves else None
        found, _, refuted, order, _ = _phase_search(net, dom, targets, None, 10 ** 6, deadline, True,
                                                    upto=max(t for t, _ in targets), leaves=lv)
        if found is not False:
            return None
        proof = {"targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
                 "domain": _domain_json(dom), "order": [[t, j] for t, j in order], "refuted": refuted}
        if leaves:
            proof["leaves"] = [[list(v) for v in path] for path, _ in lv]
        return proof

    def add(entry) -> bool:
        """Keep *entry* when the checker accepts it (with the dead-neuron proofs it may rely on)."""
        context = [e for e in entries if e[0] == "dead_proof"] if entry[0] == "masked" else []
        if isinstance(checked_directions_bound(net, context + [entry], dom, fd.inputs[:1]), str):
            return False
        entries.append(entry)
        return True

    def prove_neuron(l, i, s, why):
        if (l, i) in dead or (l, i) in active:     # (zero neurons are dead: interval [0, 0])
            return                  # (dead and active: z = 0 everywhere, no differentiable input)
        proof = search({(l, i): s})
        if proof is not None and add([("dead_proof" if s > 0 else "active_proof"), l, i, proof]):
            (dead if s > 0 else active).add((l, i))
        else:
            missing.append(f"neuron ({l}, {i}) is {'dead' if s > 0 else 'always active'} by {why}, "
                           "but no proof was recorded within the budget")

    def derived() -> list:
        """Silent neurons (from the dead ones) and the GL blocks of the always-active ones."""
        out = [["silent", l, i] for l, i in sorted(_silent_set(net, dead) - dead)]
        for l in range(L - 1):
            block = sorted(i for t, i in active if t == l)
            if len(block) > 1:
                out.append(["block", l, block])
        return out

    def bound() -> int:
        b = checked_directions_bound(net, entries + derived(), dom, fd.inputs[:1])
        if isinstance(b, str):          # not expected (every entry was validated): certify nothing
            missing.append(f"internal: the checker rejects the directions ({b})")
            return N
        return b

    for p_ in fd.details.get("exercise_proofs") or ():
        if not add(["free", int(p_["parameter"]), p_]):
            missing.append(f"the proof that parameter {int(p_['parameter'])} is never exercised does "
                           "not check" + (" (a one-point box)" if point else ""))
    proven = fd.details.get("proven") or {}
    for g in sorted(proven.get("dead", ())):
        prove_neuron(*names[g], 1, "an exact phase search")
    for g in sorted(proven.get("active", ())):
        prove_neuron(*names[g], -1, "an exact phase search")
    for (t, i), _ in sorted((proven.get("incoming") or {}).items()):
        proof = search({(t, i): 1}, leaves=True)
        if proof is None or not add(["incoming", t, i, proof]):
            missing.append(f"incoming directions of neuron ({t}, {i}): the enumeration of its active "
                           "set was not recorded within the budget")
    b = bound()
    patterns = fd.details.get("patterns")
    if b > fd.upper and patterns:
        flat = list(zip(*patterns))
        for g, (l, i) in enumerate(names):
            if not any(s > 0 for s in flat[g]):
                prove_neuron(l, i, 1, "the complete list of activation patterns")
            elif all(s > 0 for s in flat[g]):
                prove_neuron(l, i, -1, "the complete list of activation patterns")
        b = bound()
        k = 0
        for l in range(L - 1):
            for i in range(net.widths[l + 1]):
                if (b > fd.upper and (l, i) not in dead | active and l + 1 < L - 1
                        and _is_masked(net, patterns, l, k, i)):
                    V = net.weights[l + 1]
                    proofs = [search({(l, i): -1, (l + 1, j): 1}) for j in range(V.nrows)
                              if V[j, i] != 0 and (l + 1, j) not in dead]
                    if None in proofs or not add(["masked", l, i, proofs]):
                        missing.append(f"neuron ({l}, {i}) is masked by the complete list of "
                                       "activation patterns, but no proof was recorded within the budget")
                    else:
                        b = bound()
            k += net.widths[l + 1]
    return entries + derived(), b, missing


def _cover_regions(net, fd, dom, seconds) -> list | None:
    """The linear regions of *net* on *dom* in the ``region_cover`` format (with Farkas
    multipliers), when the walk completes within *seconds* and the checker's exact rank of the
    Jacobian rows on them is ``fd.upper``; else None."""
    state: dict = {}
    cap = len(fd.details.get("patterns") or ()) + 1
    regs = [r.to_json() for r in joint_regions([net], domain=dom, budget=Budget(seconds, cap),
                                               state=state, multipliers=True)]
    if not state.get("complete"):
        return None
    regs = jsonable(regs)
    return regs if is_regions_rank(net, regs, dom, fd.upper, fd.inputs[:1]) else None


def _silent_set(net, dead) -> set:
    """(layer, neuron) pairs with δ ≡ 0 given the *dead* ones (the rule of :func:`_silent_neurons`)."""
    flat = [(l, i) not in dead for l in range(net.depth - 1) for i in range(net.widths[l + 1])]
    silent = _silent_neurons(net, flat)
    names = [(l, i) for l in range(net.depth - 1) for i in range(net.widths[l + 1])]
    return {names[g] for g, s in enumerate(silent) if s}


def _one_point(net: Network, v) -> FunctionalDimension:
    """The domain is the single input x0 = (v, …, v): when θ ↦ f_θ(x0) is differentiable there
    (:mod:`algebra.kernel.differentiability`), the functional dimension is the exact rank of its
    m Jacobian rows; otherwise θ is non-generic (the functional dimension is not defined)."""
    x0 = [Q(v)] * net.n_inputs
    kink = kink_witness(net, net.activation_pattern(x0))
    if kink is not None:
        why = (f"the domain is one point x0 and theta -> f_theta(x0) is not differentiable there: "
               f"neuron {_neuron_list([kink])} has a zero pre-activation and the network above it "
               "depends on its output; the functional dimension is not defined at this theta")
        return _non_generic(net, why, [kink])
    X, masks = _masks(net, [x0])
    rank = _exact_rank(net, X)
    return FunctionalDimension(net.n_parameters, rank, rank,
                               "the domain is one point x0: the functional dimension is the exact "
                               "rank of the Jacobian of theta -> f_theta(x0)", (), True, 1,
                               {"symmetry_rank": None, "regions_walked": 1, "rounds": 0,
                                "exercise_proofs": [], "prime": _prime_for(net), "proven": {},
                                "patterns": None}, tuple(tuple(x) for x in X))



def _neuron_list(named) -> str:
    shown = ", ".join(f"({t + 1}, {j})" for t, j in named[:6])     # (layers 1-based, as deficits)
    return shown + (f" and {len(named) - 6} more" if len(named) > 6 else "")


def _with_nearby(net, dom, fd: FunctionalDimension, kinks: list, budget: Budget) -> FunctionalDimension:
    """*fd* (non-generic) with the values at explicit nearby parameters and their maximum."""
    near, top = _nearby(net, dom, kinks, budget)
    tail = ("; nearby: " + ", ".join(f"{e['change']}: " + (str(e["dimension"]) if e["certified"] else
                                                           "not certified")
                                     for e in near)
            + (f"; local upper value {top}" if top is not None else "")) if near else ""
    return replace(fd, nearby=tuple(near), local_upper=top, reason=fd.reason + tail)


def _nearby(net, dom, kinks: list, budget: Budget) -> tuple[list, int | None]:
    """The functional dimension at explicit parameters θ + Δ near a non-generic θ, each with its
    certificate re-checked, and the largest certified value (None if none).

    Δ moves the bias of each offending kink neuron (:func:`kink_witness` of the regions) by
    ±δ, every sign combination for at most two such neurons (else all + and all −), with δ a
    power of 2 at most 1/64 of the smallest non-zero |parameter| (and of 1).  For δ small enough
    these parameters lie in the open sets of parameters that touch θ where the kink neurons have
    a fixed sign; that smallness is *not* proven: what is reported is the value at the explicit
    θ + Δ, computed by :func:`functional_dimension` and certified by its own re-checked
    certificate (``certified``: the checker accepts the certificate and it closes the value),
    or the reason it is not (interval, non-generic too, or an unchecked upper bound)."""
    from ..verify import verify           # (the checker runs the certificate of each θ + Δ)
    kinks = sorted(kinks)
    nz = [abs(v) for v in net.parameters() if v != 0]
    delta = Q(1, 64)
    while nz and delta * 64 > min(nz):
        delta /= 2
    if len(kinks) <= 2:
        signs = list(itertools.product((1, -1), repeat=len(kinks)))
    else:
        signs = [(1,) * len(kinks), (-1,) * len(kinks)]
    names = net.parameter_names()
    offs = _offsets(net)
    out, top = [], None
    for sg in signs:
        if budget.exhausted():
            break
        theta = list(net.parameters())
        change = []
        for (t, j), s in zip(kinks, sg):
            k = offs[t] + net.widths[t + 1] * net.widths[t] + j
            theta[k] += s * delta
            change.append(f"{names[k]} {'+' if s > 0 else '-'}= {delta}")
        near = Network.from_parameters(net.widths, theta)
        left = budget.remaining()
        sub = functional_dimension(near, domain=dom, timeout=None if left is None else max(0.5, left / 2),
                                   nearby=False)
        entry = {"change": ", ".join(change), "parameters": [q_json(v) for v in theta],
                 "dimension": sub.value, "lower": sub.lower, "upper": sub.upper,
                 "non_generic": bool(sub.non_generic), "certified": False}
        if sub.non_generic:
            entry["why"] = "this parameter is non-generic too: " + sub.non_generic
        else:
            cert = functional_dimension_certificate(near, sub, domain=dom, seconds=5.0)
            ok, why = verify(cert)
            closed = ok and "uncertified_upper_reason" not in cert and cert["lower"] == cert["upper"]
            entry["certified"] = bool(closed and sub.exact)
            entry["why"] = why if ok else "the certificate does not check: " + why
            if entry["certified"]:
                top = sub.value if top is None else max(top, sub.value)
        out.append(entry)
    return out, top


def _non_generic(net, why: str, kinks: list) -> FunctionalDimension:
    """The answer at a θ where no input of the domain is a differentiable point (no value)."""
    return FunctionalDimension(net.n_parameters, 0, net.n_parameters, "non-generic: " + why, (),
                               True, 0, {"symmetry_rank": None, "regions_walked": 0, "rounds": 0,
                                         "exercise_proofs": [], "prime": _prime_for(net),
                                         "proven": {}, "patterns": None, "kinks": list(kinks)},
                               (), why)


def _seen_zero_neurons(net) -> list:
    """Neurons (t, j) of the last hidden layer with a zero row, a zero bias and a non-zero output
    column: a kink at every input that the output sees (e = the output column, whatever the
    pattern), so no input is a differentiable point (:mod:`algebra.kernel.differentiability`)."""
    if net.depth < 2:
        return []
    t = net.depth - 2
    W, b = net.layer(t)
    V = net.weights[t + 1]
    return [(t, j) for j in range(W.nrows)
            if b[j] == 0 and not any(W.row_at(j)) and any(v != 0 for v in V.col_at(j))]
