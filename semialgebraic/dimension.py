r"""Exact functional dimension and local fiber dimension of a ReLU network of any depth.

The functional dimension of θ is the rank of the Jacobian of θ ↦ (f_θ(x))_x over all inputs x
where f is differentiable in θ (GLMW22; three-layer-fibers R22 FIBDIM, generalised to depth L);
the local fiber dimension is N − that rank where the rank is locally constant.

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
  inputs per region reached.
* **Exercise decisions** (:func:`exercise`): for a parameter never exercised by the samples, an
  exact depth-first search over activation phases (exact strict LPs) either finds an exact input
  where its Jacobian column δ·h is non-zero (added to the rows) or proves that no
  differentiable input does (Motzkin multipliers of every refuted partial pattern, or δ = 0 at
  a full pattern), re-checked by :func:`check_exercise_proof`; the unit vector then joins the
  upper bound.  Once every positive-weight input of a target neuron is decided, the affine
  upper bound Σ_{on} w_k z_k + b of its pre-activation must be positive too: that row prunes
  the tree (recorded, re-derived by the checker).  :func:`incoming_directions` enumerates the
  regions of a neuron's active set the same way: the kernel directions on its incoming
  parameters (its inputs span a proper subspace there) join the upper bound and the region
  points the rows.  Complete but exponential: without a timeout these searches get about one
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
  (:func:`_prove_empty`, budgeted: it succeeds on small nets only).

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

import math
import time
from dataclasses import dataclass, field
from typing import Any

from algebra.matrices import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json

from .budget import Budget
from .certificates import jsonable
from .domains import _dom_json, normalize_domain
from .joint import joint_regions
from .lp import feasible
from .reduction import preactivation_bounds
from .sets import Dimension
from .verify.exercise import (_delta_row_zero, _domain_json, _domain_rows, _exercise_spec,
                              _is_zero_neuron, _offsets, check_proof)

__all__ = ["FunctionalDimension", "functional_dimension", "jacobian_rows", "symmetry_directions",
           "Exercise", "exercise", "check_exercise_proof", "incoming_directions", "PRIME",
           "functional_dimension_certificate"]

PRIME = 1048573
"""Prime of the modular rank (< 2^21, so float64 products of 64 reduced terms are exact)."""

import os as _os
_DEBUG = bool(_os.environ.get("NETFIBERS_DIM_DEBUG"))
_FIRST = float(_os.environ.get('NETFIBERS_DIM_FIRST', 1.5))   # first-round inputs per rank unit
_COVER = int(_os.environ.get('NETFIBERS_DIM_COVER', 6))   # inputs wanted per weight (coverage)
_WALK_SECONDS = 1.0   # float walks towards never-exercised weights, per round
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

    @property
    def exact(self) -> bool:
        return self.lower == self.upper

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
        if not self.exact:
            out.update(lower=self.lower, upper=self.upper,
                       fiber_lower=self.n_parameters - self.upper,
                       fiber_upper=self.n_parameters - self.lower)
        return out


def functional_dimension(net: Network, *, domain: Any = None, timeout: float | None = None,
                         max_regions: int | None = 400, samples: int | None = None,
                         seed: int = 0, budget: Budget | None = None) -> FunctionalDimension:
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
    if rank < upper and not complete and not budget.exhausted() and kernel is not None:
        evidence["missing"] = _missing_directions(net, kernel, sym, prime)
        proven, witnesses, proofs = _prove_suspects(net, dom, evidence, budget, upper - rank,
                                                    seconds=3.0 if net.n_hidden <= 48 else 1.0)
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
    return FunctionalDimension(N, lower, upper, reason, tuple(deficits), complete, npts,
                               {"symmetry_rank": sym_rank, "regions_walked": len(regions),
                                "rounds": rounds, "exercise_proofs": proofs, "prime": prime},
                               tuple(tuple(x) for x in X))


def functional_dimension_certificate(net: Network, fd: FunctionalDimension, *,
                                     domain: Any = None) -> dict:
    """A ``functional_dimension`` certificate of ``fd.lower`` (checked by
    :mod:`semialgebraic.verify.functional_dimension`: the Jacobian rows at the listed inputs have
    rank >= lower mod a prime, hence over Q).  The upper bound and its reason are recorded, not
    certified.  The inputs are thinned to a prefix that already reaches the rank when one does.

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
    cert = {"format": "netfibers.certificate", "type": "functional_dimension",
            "claim": "rank of the Jacobian of theta -> (f_theta(x))_x >= lower",
            "network": net.to_dict(), "domain": jsonable(_dom_json(dom)), "prime": int(p),
            "inputs": [[q_json(v) for v in x] for x in X], "lower": int(fd.lower),
            "upper": int(fd.upper), "upper_reason": fd.reason}
    N = net.n_parameters
    dirs = [["scale", l, i] for l in range(net.depth - 1) for i in range(net.widths[l + 1])]
    vecs = _scaling_rows(net)
    units: set = set()
    bounds = preactivation_bounds(net, domain=dom)
    offs = _offsets(net)
    for l in range(net.depth - 1):                    # dead on the domain by interval bounds
        W, _ = net.layer(l)
        V, _ = net.layer(l + 1)
        for i, (_, hi) in enumerate(bounds[l]):
            if hi is not None and hi <= 0:
                dirs.append(["dead", l, i])
                units.update(offs[l] + i * W.ncols + j for j in range(W.ncols))
                units.add(offs[l] + W.nrows * W.ncols + i)
                units.update(offs[l + 1] + o * V.ncols + i for o in range(V.nrows))
    for proof in fd.details.get("exercise_proofs") or ():   # never exercised, with its proof
        dirs.append(["free", int(proof["parameter"]), proof])
        units.add(int(proof["parameter"]))
    zero, one = Q(0), Q(1)
    vecs += [[one if k == u else zero for k in range(N)] for u in sorted(units)]
    if vecs and N - QMatrix.from_rows(vecs, ncols=N).rank() == fd.upper:
        cert["upper_directions"] = jsonable(dirs)  # the upper bound is re-checkable: certified
        cert["claim"] = "lower <= functional dimension <= upper"
    return cert


def _scaling_rows(net: Network) -> list:
    """The S2 generator of every hidden neuron (flat parameter order)."""
    N, zero = net.n_parameters, Q(0)
    offs = _offsets(net)
    out = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        V, _ = net.layer(l + 1)
        for i in range(W.nrows):
            v = [zero] * N
            for j, w in enumerate(W.row_at(i)):
                v[offs[l] + i * W.ncols + j] = w
            v[offs[l] + W.nrows * W.ncols + i] = b[i]
            for o, w in enumerate(V.col_at(i)):
                v[offs[l + 1] + o * V.ncols + i] = -w
            out.append(v)
    return out


def symmetry_directions(net: Network, *, domain: Any = None, patterns=None, proven: dict | None = None
                        ) -> tuple[list, tuple]:
    """Proven kernel directions of every Jacobian row at θ, and one line per deficit source.

    *patterns*: the complete list of activation patterns of the regions (optional; otherwise
    dead / always-active facts come from exact interval bounds over the domain).  *proven*:
    facts established by :func:`_prove_empty` (``"dead"``, ``"active"``: flat neuron indices;
    ``"free"``: parameter indices).

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


@dataclass(frozen=True)
class Exercise:
    """Result of :func:`exercise`.  ``exercised``: True (``witness``: an exact input, every
    pre-activation non-zero, where ∂f/∂θ_p != 0), False (``proof``: the column of the Jacobian is
    zero at every differentiable input; re-checked by :func:`check_exercise_proof`) or None
    (budget)."""

    parameter: int
    exercised: bool | None
    witness: tuple | None = None
    proof: dict | None = None
    lps: int = 0


def exercise(net: Network, parameter: int, *, domain: Any = None, max_lps: int = 2000,
             deadline: float | None = None, record: bool = True) -> Exercise:
    """Decide exactly whether parameter *parameter* (flat index) is exercised somewhere.

    ∂f_o/∂W_l[i,k] = δ_l[i] h_{l-1}[k] and ∂f_o/∂b_l[i] = δ_l[i], with δ constant on each
    linear region (δ_{L} = e_o, δ_l = D_l W_{l+1}ᵀ δ_{l+1}).  So W_l[i,k] is exercised iff some
    region of the domain has neuron (l-1, k) active and δ_l[i] != 0 (for l = 1: δ_1[i] != 0, the
    input coordinate being non-zero on an open set); b_l[i] iff δ_l[i] != 0 somewhere.  Decided by
    a depth-first search over activation phases (layer order, the fixed target signs first), each
    partial pattern checked by an exact strict LP: a feasible full pattern with δ_l[i] != 0 gives
    an exact witness; otherwise every branch is refuted by a Motzkin certificate or, at a full
    pattern, by δ_l[i] = 0 -- the proof lists them (:func:`check_exercise_proof`).

    Examples
    --------
    >>> net = Network.from_rows([[[1], [-1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    >>> e = exercise(net, net.parameter_names().index("W2[0,0]"))
    >>> e.exercised, check_exercise_proof(net, e.proof)
    (False, True)
    >>> exercise(net, net.parameter_names().index("W2[1,0]")).exercised
    True
    """
    dom = normalize_domain(domain, net.n_inputs)
    spec = _exercise_spec(net, parameter)
    targets, delta_of, last, full_last = spec
    if delta_of == "never":
        proof = {"parameter": parameter, "targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
                 "trivial": "zero outgoing weights" if last >= 0 else "identically zero neuron",
                 "order": [], "refuted": []}
        return Exercise(parameter, False, None, proof if record else None, 0)
    res = _phase_search(net, dom, targets, delta_of, max_lps, deadline, record)
    found, witness, refuted, order, lps = res
    if found is None:
        return Exercise(parameter, None, None, None, lps)
    if found:
        return Exercise(parameter, True, witness, None, lps)
    proof = {"parameter": parameter, "domain": _domain_json(dom),
             "targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
             "delta_of": list(delta_of) if delta_of else None,
             "order": [[t, j] for t, j in order], "refuted": refuted}
    return Exercise(parameter, False, None, proof if record else None, lps)


def check_exercise_proof(net: Network, proof: dict, domain: Any = "any") -> bool:
    """Re-check a proof of :func:`exercise` that a parameter is never exercised (the independent
    checker :func:`semialgebraic.verify.exercise.check_proof`).  With *domain*, the proof must
    also be about that domain (the claim is always "on the proof's domain")."""
    return check_proof(net, proof, domain if domain == "any" else normalize_domain(domain, net.n_inputs))



def incoming_directions(net: Network, t: int, i: int, *, domain: Any = None, max_lps: int = 2000,
                        deadline: float | None = None):
    """Kernel directions of the Jacobian supported on the incoming parameters (W_t[i, :], b_t[i])
    of hidden neuron (t, i) (0-based layer t >= 1), from an exact enumeration of its active set.

    ∂f/∂W_t[i,k] = δ_t[i] h_{t-1}[k] and ∂f/∂b_t[i] = δ_t[i], with δ_t[i] = 0 where z_t[i] < 0.
    Every region of the layers below t meeting {z_t[i] > 0} is enumerated (exact phase search:
    full patterns of layers < t with z_t[i] > 0, each with an exact interior point); on region P,
    (h_{t-1}(x), 1) = [[M_P, m_P], [0, 1]] (x, 1), so (h_{t-1}, 1) stays in the span V of those
    matrices' columns, and every c ⊥ V gives J(x)·c = δ_t[i](x) c·(h_{t-1}(x), 1) = 0 at every
    differentiable input.  Returns (directions as full parameter vectors, region points) or None
    when the budget ends first.

    >>> net = Network.from_rows([[[1], [-1], [1]], [[1, 0, 1]], [[1]]], [[0, 0, -1], [-3], [0]])
    >>> dirs, pts = incoming_directions(net, 1, 0)
    >>> len(dirs), len(pts)        # only x > 2 activates (2, 0): h1_1 = 0 there, h1_0 - h1_2 = 1
    (2, 1)
    """
    dom = normalize_domain(domain, net.n_inputs)
    if t < 1 or _is_zero_neuron(net, t, i):
        return None
    leaves: list = []
    found, _, _, _, _ = _phase_search(net, dom, {(t, i): 1}, None, max_lps, deadline, False,
                                      upto=t, leaves=leaves)
    if found is None:
        return None
    d, n_in = net.n_inputs, net.widths[t]
    cols = []
    for path, _ in leaves:
        masks: dict = {}
        for u, j, sg in path:
            masks.setdefault(u, {})[j] = 1 if sg > 0 else 0
        M, m = _layer_map(net, masks, t - 1)
        for c in range(d):
            cols.append([M[q, c] for q in range(n_in)] + [Q(0)])
        cols.append(list(m) + [Q(1)])
    V = QMatrix.from_rows(cols, ncols=n_in + 1) if cols else QMatrix.from_rows([], ncols=n_in + 1)
    perp = V.nullspace() if cols else QMatrix.identity(n_in + 1)
    offs = _offsets(net)
    W = net.weights[t]
    out = []
    for c in perp.to_rows():
        v = [Q(0)] * net.n_parameters
        for k in range(n_in):
            v[offs[t] + i * n_in + k] = c[k]
        v[offs[t] + W.nrows * n_in + i] = c[n_in]
        out.append(v)
    return out, [x for _, x in leaves]


# ------------------------------------------------------------------------------------------------
# private helpers; the exercise / phase-search helpers are at the end
# ------------------------------------------------------------------------------------------------
def _np():
    import numpy
    return numpy


def _chosen_inputs(net, dom, nrng, want, pool, evidence, round_no) -> list:
    """About *want* exact inputs picked from *pool* float candidates: random ones, then for every
    weight (i, k) of layer l exercised fewer than twice (∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k] needs
    δ_l[i] != 0 and h_{l-1}[k] != 0 together), a candidate that exercises it.

    The float forward pass only *guesses* patterns; the returned points are exact dyadic
    rationals whose masks are recomputed exactly by :func:`_masks`, so the choice affects only
    how fast the certified lower bound grows, never its soundness.  *evidence* collects the
    neurons never seen active / inactive and the weights never exercised (hints for the reason).
    """
    np = _np()
    d, L = net.n_inputs, net.depth
    Ws = [np.array([[float(v) for v in r] for r in w.to_rows()]).reshape(w.nrows, w.ncols) for w in net.weights]
    bs = [np.array([float(v) for v in b]) for b in net.biases]
    typ = np.median(np.abs(bs[0]) / np.linalg.norm(Ws[0], axis=1).clip(1e-300)) if net.depth > 1 else 1.0
    typ = float(typ) if typ > 0 else 1.0
    lo_e, hi_e = (-12, 12) if round_no == 0 else (-20, 20)
    if isinstance(dom, tuple):
        U = nrng.random((pool, d))
        edge = nrng.random((pool, d)) < 0.1                # some coordinates pinned near the faces
        U = np.where(edge, np.round(U), U) * (1 - 2 ** -12) + 2 ** -13
        U = np.round(U * 2 ** 24) / 2 ** 24
    else:
        X = nrng.standard_normal((pool, d)) * (typ * 2.0 ** nrng.uniform(lo_e, hi_e, size=(pool, 1)))
        if dom == "orthant":
            X = np.abs(X)
        e = np.floor(np.log2(np.abs(X).max(axis=1, keepdims=True).clip(2.0 ** -900)))
        q = 2.0 ** (30 - e)
        X = np.round(X * q) / q                              # dyadic: exact in float and in Q
        U = X
    Xf = U if not isinstance(dom, tuple) else float(dom[0]) + (float(dom[1]) - float(dom[0])) * U
    # float forward / structural backward pass (guesses)
    A = []
    h = Xf
    hs = [np.hstack([np.abs(Xf) > 0, np.ones((pool, 1), dtype=bool)])]
    for l in range(L - 1):
        z = h @ Ws[l].T + bs[l]
        on = z > 0
        A.append(on)
        h = np.where(on, z, 0.0)
        hs.append(np.hstack([on, np.ones((pool, 1), dtype=bool)]))
    nz = [None] * L
    nz[L - 1] = np.ones((pool, net.n_outputs), dtype=bool)
    for l in range(L - 2, -1, -1):
        nz[l] = A[l] & ((nz[l + 1].astype(np.float64) @ (np.abs(Ws[l + 1]) > 0)) > 0)
    flat = np.hstack(A) if A else np.zeros((pool, 0), dtype=bool)
    on_any, off_any = flat.any(axis=0), (~flat).any(axis=0)
    evidence["never_on"] = evidence.get("never_on", ~on_any) & ~on_any
    evidence["never_off"] = evidence.get("never_off", ~off_any) & ~off_any
    # at most d + 1 inputs per (guessed) activation pattern: on one region the rows are affine in
    # x, so more cannot raise the rank; distinct patterns first, in random order
    keys = np.packbits(flat, axis=1) if flat.shape[1] else np.zeros((pool, 1), dtype=np.uint8)
    keys = np.ascontiguousarray(keys).view(np.dtype((np.void, keys.shape[1]))).ravel()
    order = nrng.permutation(pool)
    _, inv = np.unique(keys[order], return_inverse=True)
    occ = np.zeros(pool, dtype=np.int64)
    seen: dict = {}
    for t, g in enumerate(inv.tolist()):
        occ[t] = seen.get(g, 0)
        seen[g] = occ[t] + 1
    ranked = order[np.argsort(occ, kind="stable")]
    ranked = ranked[np.sort(occ)[: len(ranked)] <= d]
    chosen = list(ranked[:want])
    taken = np.zeros(pool, dtype=bool)
    taken[chosen] = True
    unexercised = []
    free = ~taken
    for l in range(L):
        aT = np.ascontiguousarray(nz[l].T)
        bT = np.ascontiguousarray(hs[l].T)
        cnt = aT[:, taken].astype(np.float32) @ bT[:, taken].T.astype(np.float32)
        for i, k in zip(*np.nonzero(cnt < _COVER)):
            if cnt[i, k] >= _COVER:
                continue
            cand = np.flatnonzero(aT[i] & bT[k] & free)
            if cand.size:
                pick = cand[: _COVER - int(cnt[i, k])]
                free[pick] = False
                chosen += list(pick)
                for t in pick:
                    cnt += np.outer(aT[:, t], bT[:, t])
            elif cnt[i, k] == 0 and not (aT[i] & bT[k]).any():
                unexercised.append((l, int(i), int(k)))
    if unexercised and not isinstance(dom, tuple):
        extra, unexercised = _walk_to_pairs(Ws, bs, Xf, A, nz, unexercised, dom,
                                            deadline=time.monotonic() + _WALK_SECONDS)
        if extra:
            U = np.vstack([U, np.array(extra)])
            chosen += list(range(pool, pool + len(extra)))
    evidence["unexercised"] = unexercised
    if evidence.get("missing") and not isinstance(dom, tuple):
        sign_targets = [T for sup in evidence["missing"][:24] for T in _direction_targets(net, sup)]
        extra = _walk_to_signs(Ws, bs, Xf, sign_targets, dom, time.monotonic() + _WALK_SECONDS)
        if _DEBUG:
            print("sign walks", len(sign_targets), "targets,", len(extra), "inputs", flush=True)
        if extra:
            U = np.vstack([U, np.array(extra)])
            chosen += list(range(len(U) - len(extra), len(U)))
    out = []
    if isinstance(dom, tuple):
        lo, hi = dom
        for t in chosen:
            out.append(tuple(lo + (hi - lo) * Q(*float(u).as_integer_ratio()) for u in U[t]))
    else:
        for t in chosen:
            out.append(tuple(Q(*float(v).as_integer_ratio()) for v in U[t]))
        walked = [out[c] for c, t in enumerate(chosen) if t >= pool]
        if walked:        # rare regions reached by a walk: d more inputs in each (rows affine in x)
            out += _batch_simplex(net, walked)[len(walked):]
    return out


def _prove_empty(net, dom, targets: dict, max_lps: int = 400, deadline: float | None = None):
    """Decide exactly whether no input of the domain with every pre-activation non-zero has
    sign(z_t[j]) = s for every ((t, j), s) in *targets*: True (proven empty: every branch of the
    activation-pattern tree is cut by an infeasible exact LP with a verified Farkas certificate),
    False (an exact witness exists) or None (budget: *max_lps* LPs or the *deadline*).

    Depth-first over the neurons of the layers up to the deepest target (on that layer only the
    targets); a child that agrees with the parent's exact witness point is feasible without an LP.
    """
    d = net.n_inputs
    last = max(t for t, _ in targets)
    A0, c0 = [], []                                 # open constraints a·x + c > 0
    if dom == "orthant":
        for k in range(d):
            A0.append([Q(1) if c == k else Q(0) for c in range(d)])
            c0.append(Q(0))
    elif isinstance(dom, tuple):
        lo, hi = dom
        if lo == hi:
            return None
        for k in range(d):
            A0.append([Q(1) if c == k else Q(0) for c in range(d)])
            c0.append(-lo)
            A0.append([Q(-1) if c == k else Q(0) for c in range(d)])
            c0.append(hi)
    count = [0]

    def lp(A, c):
        if count[0] >= max_lps or (deadline is not None and time.monotonic() > deadline):
            raise _Budget()
        count[0] += 1
        if not A:
            return tuple([Q(0)] * d)
        res = feasible(A_lt=[[-v for v in a] for a in A], b_lt=list(c), n=d)
        return res.point if res.feasible else None

    def rec(t, M, m, A, c, x):
        # M, m: h_{t-1} = M x + m on the current partial pattern (QMatrix d-columns, vector)
        W, b = net.layer(t)
        Z = W @ M
        zc = [sum((W[j, q] * m[q] for q in range(len(m))), Q(0)) + b[j] for j in range(W.nrows)]
        js = sorted((j for j in range(W.nrows) if t < last or (t, j) in targets),
                    key=lambda j: (t, j) not in targets)          # targets first: early cuts
        return branch(t, js, 0, Z, zc, [], A, c, x, M, m)

    def branch(t, js, pos, Z, zc, signs, A, c, x, M, m):
        if pos == len(js):
            if t == last:
                return False                         # x is an exact witness
            on = set(j for j, s in signs if s > 0)
            W = net.weights[t]
            rows = [Z.row_at(j) if j in on else tuple([Q(0)] * d) for j in range(W.nrows)]
            M2 = QMatrix.from_rows(rows, ncols=d)
            m2 = [zc[j] if j in on else Q(0) for j in range(W.nrows)]
            return rec(t + 1, M2, m2, A, c, x)
        j = js[pos]
        a = Z.row_at(j)
        val = sum((ai * xi for ai, xi in zip(a, x)), Q(0)) + zc[j]
        want = [targets[(t, j)]] if (t, j) in targets else [1, -1]
        if val != 0 and (val > 0) in [s > 0 for s in want]:
            want.sort(key=lambda s: (s > 0) != (val > 0))     # the witness's side first
        for s in want:
            A2 = A + [[s * v for v in a]]
            c2 = c + [s * zc[j]]
            if val != 0 and (val > 0) == (s > 0):
                y = x
            else:
                y = lp(A2, c2)
                if y is None:
                    continue
            r = branch(t, js, pos + 1, Z, zc, signs + [(j, s)], A2, c2, y, M, m)
            if r is not True:
                return r
        return True

    try:
        x0 = lp(A0, c0)
        if x0 is None:
            return True
        ident = QMatrix.identity(d)
        return rec(0, ident, [Q(0)] * d, A0, c0, x0)
    except _Budget:
        return None


def _prove_suspects(net, dom, evidence, budget, gap, seconds: float = 3.0):
    """Exact decisions (within *seconds* and the budget) for what the sampled inputs flag:
    neurons never seen active / inactive (:func:`_prove_empty`), and parameters never exercised
    or alone in a missing kernel direction (:func:`exercise`).  Returns (proven facts for
    :func:`symmetry_directions`, exact witness inputs of exercised suspects, exercise proofs)."""
    import time
    np = _np()
    starts, names = [], []
    for l, w in enumerate(net.widths[1:-1]):
        starts.append(len(names))
        names += [(l, i) for i in range(w)]
    left = budget.remaining() if hasattr(budget, "remaining") else None
    # default: a few seconds; with an explicit timeout, up to half of what is left of it
    stop = time.monotonic() + (seconds if left is None else max(0.0, left) / 2)
    proven: dict = {"dead": set(), "active": set(), "free": set()}
    offs = _offsets(net)
    # order: parameters alone in a missing kernel direction (exactly the gap), other weights
    # never exercised, neurons never seen on / off, then directions inside one neuron's incoming
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
    witnesses, proofs = [], []
    proven["incoming"] = {}
    open_tasks = tasks[:128]
    for max_lps in (300, 10**6):          # cheap decisions first, then the rest with the time left
        undecided = []
        for task in open_tasks:
            kind, key, targets = task
            if time.monotonic() > stop:
                break
            if kind == "incoming":
                res = incoming_directions(net, key[0], key[1], domain=dom, max_lps=max_lps, deadline=stop)
                if res is None:
                    undecided.append(task)
                    continue
                dirs, pts = res
                if dirs:
                    proven["incoming"][key] = dirs
                witnesses += list(pts)
            elif kind != "free":
                r = _prove_empty(net, dom, targets, max_lps=max_lps, deadline=stop)
                if r is True:
                    proven[kind].add(key)
                elif r is None:
                    undecided.append(task)
            else:
                e = exercise(net, key, domain=dom, max_lps=max_lps, deadline=stop)
                if e.exercised is False:
                    proven["free"].add(key)
                    proofs.append(e.proof)
                elif e.exercised:
                    witnesses.append(e.witness)
                else:
                    undecided.append(task)
        open_tasks = undecided
    return (proven if any(proven.values()) else {}), witnesses, proofs


class _Budget(Exception):
    pass


def _walk_to_pairs(Ws, bs, Xf, A, nz, pairs, dom, starts=32, steps=10, deadline=None):
    """Float guesses of inputs exercising weights (l, i, k) never exercised in the pool
    (δ_l[i] != 0 needs z_l[i] > 0, h_{l-1}[k] != 0 needs z_{l-1}[k] > 0): from the pool inputs
    with the largest min(z_{l-1}[k], z_l[i]), Gauss–Newton steps on the two linearised
    pre-activations (least-norm step to slightly positive values, overshoot growing); kept when
    the float pass says the pair is exercised.  Returns (dyadic float inputs, pairs not reached)."""
    np = _np()
    out, missing = [], []
    for l, i, k in pairs[:64]:
        if l == 0 or k >= Ws[l].shape[1] or (deadline is not None and time.monotonic() > deadline):
            missing.append((l, i, k))
            continue
        zs = _pre_all(Ws, bs, Xf, l)
        scale = 1.0 + np.abs(Xf).max(axis=1)
        score = np.minimum(zs[l - 1][:, k], zs[l][:, i]) / scale
        found = False
        for t in np.argsort(-score)[:starts]:
            x = Xf[t].copy()
            for it in range(steps):
                (zk, gk), (zi, gi) = _pre_and_grad(Ws, bs, x, l - 1, k), _pre_and_grad(Ws, bs, x, l, i)
                G = np.vstack([gk, gi])
                tgt = np.array([max(0.0, -zk), max(0.0, -zi)]) * (1.0 + 0.5 * it) \
                    + 1e-3 * (1.0 + np.abs(x).max())
                try:
                    step = G.T @ np.linalg.lstsq(G @ G.T, tgt, rcond=None)[0]
                except np.linalg.LinAlgError:
                    break
                x = x + step
                if dom == "orthant":
                    x = np.abs(x)
                if not np.isfinite(x).all() or not 2.0 ** -900 < np.abs(x).max() < 2.0 ** 900:
                    break
                e = np.floor(np.log2(np.abs(x).max()))
                x = np.round(x * 2.0 ** (30 - e)) / 2.0 ** (30 - e)
                if _exercises(Ws, bs, x, l, i, k):
                    out.append(x)
                    found = True
                    break
            if found:
                break
        if not found:
            missing.append((l, i, k))
    return out, missing + pairs[64:]


def _direction_targets(net, sup) -> list:
    """Sign targets [(hidden layer, neuron, ±1), ...] of inputs that could exercise a kernel
    direction mod p supported on the parameters *sup* (a guide for the float walks only):
    W_l[i,k] alone -> (l-1,k) and (l,i) active; several W_l[·,k] -> (l-1,k) active with two of
    the entered neurons in different phases (both ways); otherwise the first entered neuron."""
    offs, L = _offsets(net), net.depth
    dec = []
    for p_ in sup:
        l = max(t for t in range(L) if offs[t] <= p_)
        W = net.weights[l]
        q = p_ - offs[l]
        dec.append((l,) + (divmod(q, W.ncols) if q < W.nrows * W.ncols else (q - W.nrows * W.ncols, None)))
    l, i, k = dec[0]
    if l == L - 1:
        return [[(l - 1, k, 1)]] if k is not None else []
    if k is not None and l >= 1 and all(e[0] == l and e[2] == k for e in dec):
        if len(dec) == 1:
            return [[(l - 1, k, 1), (l, i, 1)]]
        i2 = dec[1][1]
        return [[(l - 1, k, 1), (l, i, 1), (l, i2, -1)], [(l - 1, k, 1), (l, i, -1), (l, i2, 1)]]
    if l < L - 1 and all(e[0] == l and e[1] == i for e in dec):   # incoming of one neuron
        ks = [e[2] for e in dec if e[2] is not None]
        ks = ks[:2] + ks[2::max(1, (len(ks) - 2) // 3)][:3]         # a few spread over the support
        if l >= 1:
            return [[(l, i, 1), (l - 1, k2, s2)] for k2 in ks for s2 in (1, -1)] or [[(l, i, 1)]]
    return [[(l, i, 1)]] if l < L - 1 else []


def _walk_to_signs(Ws, bs, Xf, target_sets, dom, deadline, starts=8, steps=12) -> list:
    """Float guesses (dyadic) of inputs with sign(z_t[j]) = s for every (t, j, s) of a target
    set: Gauss–Newton steps on the linearised pre-activations from the pool inputs that come
    closest (the same walk as :func:`_walk_to_pairs`, with signs).  Guesses only: the caller
    recomputes every pattern exactly."""
    np = _np()
    out = []
    for T in target_sets:
        if time.monotonic() > deadline:
            break
        top = max(t for t, _, _ in T)
        zs = _pre_all(Ws, bs, Xf, top)
        scale = 1.0 + np.abs(Xf).max(axis=1)
        score = np.min(np.vstack([s * zs[t][:, j] for t, j, s in T]), axis=0) / scale
        for t0 in np.argsort(-score)[:starts]:
            x = Xf[t0].copy()
            hit = False
            for it in range(steps):
                vals = [_pre_and_grad(Ws, bs, x, t, j) for t, j, _ in T]
                sz = np.array([s * z for (_, _, s), (z, _) in zip(T, vals)])
                if (sz > 0).all():
                    hit = True
                    break
                G = np.vstack([s * g for (_, _, s), (_, g) in zip(T, vals)])
                tgt = np.maximum(0.0, -sz) * (1.0 + 0.5 * it) + 1e-3 * (1.0 + np.abs(x).max())
                try:
                    x = x + G.T @ np.linalg.lstsq(G @ G.T, tgt, rcond=None)[0]
                except np.linalg.LinAlgError:
                    break
                if dom == "orthant":
                    x = np.abs(x)
                if not np.isfinite(x).all() or not 2.0 ** -900 < np.abs(x).max() < 2.0 ** 900:
                    break
                e = np.floor(np.log2(np.abs(x).max()))
                x = np.round(x * 2.0 ** (30 - e)) / 2.0 ** (30 - e)
            if hit:
                out.append(x)
                break
    return out


def _pre_all(Ws, bs, X, layer):
    np = _np()
    h, zs = X, []
    for l in range(layer + 1):
        z = h @ Ws[l].T + bs[l]
        zs.append(z)
        h = np.maximum(z, 0.0)
    return zs


def _pre(Ws, bs, X, layer):
    np = _np()
    h = X
    for l in range(layer + 1):
        z = h @ Ws[l].T + bs[l]
        h = np.maximum(z, 0.0)
    return z


def _pre_and_grad(Ws, bs, x, layer, k):
    np = _np()
    h, J = x, np.eye(len(x))
    for l in range(layer + 1):
        z = Ws[l] @ h + bs[l]
        Jz = Ws[l] @ J
        on = z > 0
        h, J = np.where(on, z, 0.0), Jz * on[:, None]
    return float(z[k]), Jz[k]


def _exercises(Ws, bs, x, l, i, k) -> bool:
    np = _np()
    h, masks = x, []
    for t in range(len(Ws) - 1):
        z = Ws[t] @ h + bs[t]
        masks.append(z > 0)
        h = np.where(z > 0, z, 0.0)
    if not masks[l - 1][k]:
        return False
    nzv = np.ones(Ws[-1].shape[0], dtype=bool)
    for t in range(len(Ws) - 2, l - 1, -1):
        nzv = masks[t] & ((np.abs(Ws[t + 1]) > 0).T.astype(float) @ nzv.astype(float) > 0)
    return bool(nzv[i])


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


def _batch_simplex(net, bases) -> list:
    """Each base point and d points x + t e_k of its region (patterns checked exactly, in batch;
    t = 2^-20, then 2^-40, …; points whose region cannot be matched are dropped)."""
    if not bases:
        return []
    d = net.n_inputs
    pats = _patterns(net, bases)
    out = list(map(tuple, bases))
    todo = [(i, k) for i in range(len(bases)) for k in range(d)]
    t = Q(1, 2**20)
    for _ in range(4):
        if not todo:
            break
        cand = []
        for i, k in todo:
            y = list(bases[i])
            y[k] += t
            cand.append(tuple(y))
        got = _patterns(net, cand)
        rest = []
        for (i, k), y, p in zip(todo, cand, got):
            if p == pats[i]:
                out.append(y)
            else:
                rest.append((i, k))
        todo, t = rest, t / 2**20
    return out


def _patterns(net, pts) -> list:
    """Exact activation patterns (-1/0/1) of many inputs: one FLINT product per layer."""
    H = QMatrix.from_rows(pts, ncols=net.n_inputs)
    cols = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        Z = (H @ W.T).add_to_rows(b)
        cols.append([tuple((v > 0) - (v < 0) for v in r) for r in Z.to_rows()])
        H = Z.relu()
    return [sum((layer[i] for layer in cols), ()) for i in range(len(pts))]


def _simplex_points(net, x, pat) -> list:
    """x and d points x + t e_k in the same region (t halved until the pattern is unchanged)."""
    pts = [tuple(x)]
    d = net.n_inputs
    for c in range(d):
        t = Q(1, 8)
        for _ in range(80):
            y = list(x)
            y[c] += t
            if net.activation_pattern(y) == tuple(pat):
                pts.append(tuple(y))
                break
            t /= 4
    return pts


def _masks(net, points):
    import numpy as np
    if not points:
        return [], [np.zeros((0, w)) for w in net.widths[1:-1]]
    H = QMatrix.from_rows(points, ncols=net.n_inputs)
    keep = [True] * len(points)
    raw, widths = [], []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        # a neuron whose whole incoming row is zero is identically zero: inactive, not a kink
        zero_row = [all(v == 0 for v in W.row_at(i)) and b[i] == 0 for i in range(W.nrows)]
        Z = (H @ W.T).add_to_rows(b)
        rows = Z.to_rows()
        raw.append([[1.0 if v > 0 else 0.0 for v in r] for r in rows])
        widths.append(W.nrows)
        for t, r in enumerate(rows):
            if any(v == 0 and not z for v, z in zip(r, zero_row)):
                keep[t] = False
        H = Z.relu()
    X = [p for p, k in zip(points, keep) if k]
    masks = [np.array([r for r, k in zip(layer, keep) if k], dtype=np.float64).reshape(len(X), w)
             for layer, w in zip(raw, widths)]
    return X, masks


def _modq(v, p) -> int:
    v = Q(v) if not isinstance(v, Q) else v
    if int(v.q) % p == 0:
        raise ValueError(f"denominator of {v} divisible by the prime {p}")
    return int(v.p) % p * pow(int(v.q) % p, p - 2, p) % p


def _prime_for(net) -> int:
    """The largest prime p < 2^20 + 2^18 (PRIME first) dividing no denominator of the parameters,
    so that every Jacobian row (inputs are dyadic) reduces mod p (primality by trial division)."""
    dens = {int(Q(v).q) for v in net.parameters()} - {1}
    cand = PRIME
    while True:
        if all(cand % q for q in range(2, int(cand ** 0.5) + 1)) and all(dn % cand for dn in dens):
            return cand
        cand -= 2


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


def _rank_mod_p(A, p: int, block: int = 64) -> int:
    """Exact rank over Z/p of an integer matrix (see :func:`_echelon_mod_p`)."""
    return _echelon_mod_p(A, p, block)[0]


def _echelon_mod_p(A, p: int, block: int = 64):
    """Blocked Gaussian elimination over Z/p with float64 BLAS products, all exact.

    Returns ``(rank, E, blocks)``: E (rank x ncols, entries in [0, p)) spans the row space mod p
    and is in block echelon form; *blocks* lists ``(row0, cols, inv)`` per elimination step: rows
    ``E[row0 : row0 + len(cols)]`` vanish mod p on the pivot columns of every earlier step, and
    ``inv`` is the inverse mod p of their square submatrix on *cols*.

    Exactness: every matrix product multiplies entries reduced to |v| <= p/2 (< 2^20) over at
    most *block* terms (< 2^38 * block); the trailing matrix is reduced lazily (only the panel
    columns and pivot rows before use, everything every 2^13 / block steps), so entries stay
    below 2^13 * 2^38 = 2^51 < 2^53 and every float64 operation is an exact integer operation.
    """
    import numpy as np
    M = np.mod(np.asarray(A, dtype=np.int64), p).astype(np.float64)
    n, ncols = M.shape
    r, steps = 0, 0
    E, blocks = [], []
    for c0 in range(0, ncols, block):
        if r >= n:
            break
        c1 = min(ncols, c0 + block)
        M[r:, c0:c1] = np.mod(M[r:, c0:c1], p)
        P = M[r:, c0:c1].copy()
        swaps = []
        k, piv = 0, []
        for j in range(c1 - c0):                   # panel: entries grow by < 2^39 per column
            if k >= P.shape[0]:
                break
            col = np.mod(P[k:, j], p)
            nz = np.flatnonzero(col)
            if nz.size == 0:
                continue
            i = k + nz[0]
            if i != k:
                P[[i, k]] = P[[k, i]]
                col[[i - k, 0]] = col[[0, i - k]]
                swaps.append((i, k))
            row = np.mod(P[k, j:], p)
            row = _reduce(np.mod(row * pow(int(row[0]), p - 2, p), p), p)
            P[k + 1:, j:] -= np.outer(col[1:], row)
            piv.append(j)
            k += 1
        if k == 0:
            continue
        for i, i2 in swaps:                        # the same row swaps on the full rows
            M[[r + i, r + i2]] = M[[r + i2, r + i]]
        cols = c0 + np.array(piv)
        pivrows = np.mod(M[r:r + k, c0:], p)
        M[r:r + k, c0:] = pivrows
        inv = _inv_mod(pivrows[:, piv], p)
        if r + k < n:
            C = _reduce(np.mod(_reduce(M[r + k:, cols], p) @ _reduce(inv, p), p), p)
            M[r + k:, c0:] -= C @ _reduce(pivrows, p)
            steps += 1
            if steps % max(1, 2 ** 13 // block) == 0:
                M[r + k:, c0:] = np.mod(M[r + k:, c0:], p)
        full = np.zeros((k, ncols))
        full[:, c0:] = pivrows
        E.append(full)
        blocks.append((r, cols, inv))
        r += k
    E = np.vstack(E) if E else np.zeros((0, ncols))
    return r, E, blocks


def _kernel_mod_p(A, p: int, block: int = 64):
    """Basis (columns, entries in [0, p)) of the right kernel mod p of the integer matrix *A*:
    an ``ncols x (ncols - rank)`` float64 array K with A K = 0 mod p (block back-substitution
    on :func:`_echelon_mod_p`)."""
    import numpy as np
    A = np.asarray(A)
    ncols = A.shape[1]
    r, E, blocks = _echelon_mod_p(A, p, block)
    pivots = np.concatenate([c for _, c, _ in blocks]) if blocks else np.zeros(0, dtype=np.int64)
    free = np.setdiff1d(np.arange(ncols), pivots)
    K = np.zeros((ncols, free.size))
    K[free, np.arange(free.size)] = 1.0
    for r0, cols, inv in reversed(blocks):          # E_b K = 0: K[cols] = -inv (E_b[rest] K[rest])
        rows = E[r0:r0 + len(cols)]                 # (K[cols] is still 0, and E_b vanishes left
        c0 = int(cols[0])                           # of its first pivot column)
        S = np.zeros((len(cols), K.shape[1]))
        for c in range(c0, ncols, 4096):            # entries in [0, p): sums of 4096 products < 2^52
            S = np.mod(S + rows[:, c:c + 4096] @ K[c:c + 4096], p)
        K[cols] = np.mod(-(inv @ S), p) if len(cols) <= 4096 else np.mod(-_matmul_mod(inv, S, p), p)
    return K


def _shrink_kernel(K, R, p: int):
    """Basis mod p of {v in span(K) : R v = 0 mod p} (K: ncols x f columns, R: new integer rows)."""
    import numpy as np
    if K.shape[1] == 0 or len(R) == 0:
        return K
    RK = _matmul_mod(R, K, p)
    if not RK.any():
        return K
    return _matmul_mod(K, _kernel_mod_p(RK.astype(np.int64), p), p)


def _layer_map(net, masks, t):
    """(M, m) with h_t = M x + m on the region of the 0/1 *masks* of layers 0..t."""
    d = net.n_inputs
    M, m = QMatrix.identity(d), [Q(0)] * d
    for u in range(t + 1):
        W, b = net.layer(u)
        Z = W @ M
        zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
        on = masks.get(u, {})
        M = QMatrix.from_rows([Z.row_at(q) if on.get(q) else tuple([Q(0)] * d) for q in range(W.nrows)], ncols=d)
        m = [zc[q] if on.get(q) else Q(0) for q in range(W.nrows)]
    return M, m


_SYM_CACHE: dict = {}       # RREF mod p of the last proven span (the same across rounds)


def _missing_directions(net, K, sym, p: int = PRIME, limit: int = 12) -> list:
    """Kernel directions mod p of the Jacobian rows so far that the proven directions *sym* do
    not explain: a basis (as rows, block echelon mod p) of span(K) modulo span(sym), as lists of
    parameter indices (the support of each direction).  Only a guide for the sampling and for the
    reason text: the missing directions are either not exercised yet or an unproven symmetry."""
    import numpy as np
    N = net.n_parameters
    T = np.ascontiguousarray(K.T)
    if T.shape[0] == 0:
        return []
    if sym:
        if _SYM_CACHE.get("sym") is not sym:        # the cache holds sym: identity is safe
            Sm = QMatrix.from_rows(sym, ncols=N).rref()[0]
            rows = [r for r in Sm.to_rows() if any(v != 0 for v in r)]
            piv = [next(c for c, v in enumerate(r) if v != 0) for r in rows]
            Sp = np.zeros((len(rows), N))
            for a, r in enumerate(rows):
                for c, v in enumerate(r):
                    if v != 0:
                        Sp[a, c] = _modq(v, p)
            _SYM_CACHE.clear()
            _SYM_CACHE.update(sym=sym, piv=piv, Sp=Sp)
        piv, Sp = _SYM_CACHE["piv"], _SYM_CACHE["Sp"]
        T = np.mod(T - _matmul_mod(T[:, piv], Sp, p), p)
    r, E, _ = _echelon_mod_p(T.astype(np.int64), p)
    return [list(map(int, np.flatnonzero(row))) for row in E[:limit]]


def _matmul_mod(A, B, p: int, chunk: int = 4096):
    """A @ B mod p, exact in float64: symmetric representatives (< 2^20) and sums of at most
    *chunk* products (< 2^52)."""
    import numpy as np
    A, B = _reduce(np.asarray(A, dtype=np.float64), p), _reduce(np.asarray(B, dtype=np.float64), p)
    out = np.zeros((A.shape[0], B.shape[1]))
    for c in range(0, A.shape[1], chunk):
        out = np.mod(out + A[:, c:c + chunk] @ B[c:c + chunk], p)
    return out


def _reduce(X, p):
    """An exact representative of X mod p with |entry| <= p/2 + 1 (X integral, |X| < 2^52: the
    float quotient is within 2^-20 of X/p, and X - q p is an exact integer subtraction)."""
    import numpy as np
    return X - np.rint(X * (1.0 / p)) * p


def _inv_mod(S, p):
    """Inverse mod p of an invertible square matrix (Gauss-Jordan; the pivot column and row are
    reduced before use, the rest lazily: entries grow by < 2^39 per step, k <= 2^12 steps)."""
    import numpy as np
    k = S.shape[0]
    A = np.hstack([np.mod(S, p), np.eye(k)])
    for j in range(k):
        col = np.mod(A[:, j], p)
        i = j + np.flatnonzero(col[j:])[0]
        if i != j:
            A[[i, j]] = A[[j, i]]
            col[[i, j]] = col[[j, i]]
        A[j] = _reduce(np.mod(np.mod(A[j], p) * pow(int(col[j]), p - 2, p), p), p)
        col[j] = 0
        A -= np.outer(col, A[j])
    return np.mod(A[:, k:], p)


def _random_point(rng, d, dom):
    if isinstance(dom, tuple):
        lo, hi = dom
        return [lo + (hi - lo) * Q(rng.randint(1, 9999), 10000) for _ in range(d)]
    lo = 1 if dom == "orthant" else -4000
    scale = rng.choice((1, 4, 16, 64))           # several scales: kinks cluster near the origin
    return [Q(rng.randint(lo, 4000) * 4, scale * rng.choice((97, 101, 103))) for _ in range(d)]


# ------------------------------------------------------------------------------------------------
# exercise decisions and phase search (helpers)
# ------------------------------------------------------------------------------------------------

def _phase_search(net, dom, targets, delta_of, max_lps, deadline, record, upto=None, leaves=None):
    """Depth-first search of :func:`exercise` over every hidden neuron (layer order, targets
    first in their layer; a leaf is a full activation pattern, so a witness has every
    pre-activation non-zero): (found, witness, refuted, order, lps).  With a list *leaves*,
    every feasible leaf (path, exact point) is collected instead of stopping at the first, and
    *upto* = t restricts the order to the layers below t and the targets of layer t."""
    d = net.n_inputs
    # bound pruning: for the first target (t, i) with sign +1 and t >= 1,
    # once every neuron k of layer t-1 with W_t[i,k] > 0 is decided (they come first in their
    # layer), z_t[i] <= Σ_{k decided on} W_t[i,k] z_{t-1,k}(x) + b_t[i] on the node (undecided
    # neurons have W_t[i,k] <= 0, decided-off ones contribute 0), so that affine bound must be > 0
    bound = None
    if True:
        pos_t = [(t, i) for (t, i), sg in targets.items() if sg > 0 and t >= 1]
        if pos_t:
            t_b, i_b = min(pos_t)
            Wt, bt = net.layer(t_b)
            bound = (t_b, i_b, {k for k in range(Wt.ncols) if Wt[i_b, k] > 0}, Wt, bt[i_b])
    order = []
    for t in range(net.depth - 1 if upto is None else upto + 1):
        js = [j for j in range(net.widths[t + 1]) if not _is_zero_neuron(net, t, j)
              and (upto is None or t < upto or (t, j) in targets)]
        first = bound[2] if bound is not None and t == bound[0] - 1 else set()
        order += sorted(((t, j) for j in js), key=lambda tj: (tj not in targets, tj[1] not in first))
    A0, c0 = _domain_rows(dom, d)
    count = [0]
    refuted = []

    def lp(rows):
        if count[0] >= max_lps or (deadline is not None and time.monotonic() > deadline):
            raise _Budget()
        count[0] += 1
        allrows = list(zip(A0, c0)) + rows
        if not allrows:
            return tuple([Q(0)] * d), None
        res = feasible(A_lt=[[-v for v in a] for a, _ in allrows], b_lt=[c for _, c in allrows], n=d)
        return (res.point, None) if res.feasible else (None, res.certificate)

    # incremental affine forms along the path (same as _path_rows, kept per layer on the stack)
    def forms(t, M, m):
        W, b = net.layer(t)
        Z = W @ M
        zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
        return Z, zc

    def dfs(pos, path, rows, x, t, Z, zc, M, m, on):
        if pos == len(order):
            if delta_of is not None:
                masks = {}
                for tt, j, s in path:
                    masks.setdefault(tt, {})[j] = 1 if s > 0 else 0
                if _delta_row_zero(net, masks, delta_of[0], delta_of[1]):
                    if record:
                        refuted.append({"path": [list(v) for v in path], "delta_zero": True})
                    return None
            if leaves is not None:
                leaves.append((tuple(path), tuple(x)))
                return None
            return x
        tt, j = order[pos]
        while t < tt:                                 # layer t complete: advance the affine map
            if t >= 0:                                # (layers without branched neurons: all off)
                W = net.weights[t]
                M = QMatrix.from_rows([Z.row_at(q) if q in on else tuple([Q(0)] * d)
                                       for q in range(W.nrows)], ncols=d)
                m = [zc[q] if q in on else Q(0) for q in range(W.nrows)]
            t += 1
            Z, zc = forms(t, M, m)
            on = set()
        a = Z.row_at(j)
        val = sum((ai * xi for ai, xi in zip(a, x)), Q(0)) + zc[j]
        signs = [targets[(tt, j)]] if (tt, j) in targets else [1, -1]
        if val != 0 and len(signs) == 2 and val < 0:
            signs = [-1, 1]                           # the witness's side first
        for s in signs:
            row = (tuple(s * v for v in a), s * zc[j])
            rows2 = rows + [row]
            path2 = path + [(tt, j, s)]
            brow = None
            if bound is not None and tt == bound[0] - 1:
                on2 = on | {j} if s > 0 else on
                decided = {jj for (t3, jj, _) in path2 if t3 == tt}
                if bound[2] <= decided:
                    Wt, i_b = bound[3], bound[1]
                    coef = [sum((Wt[i_b, k] * Z[k, c] for k in on2), Q(0)) for c in range(d)]
                    brow = (tuple(coef), sum((Wt[i_b, k] * zc[k] for k in on2), Q(0)) + bound[4])
            if val != 0 and (val > 0) == (s > 0) and (
                    brow is None or sum((ai * xi for ai, xi in zip(brow[0], x)), Q(0)) + brow[1] > 0):
                y = x
            else:
                y, cert = lp(rows2 + ([brow] if brow is not None else []))
                if y is None:
                    if record:
                        refuted.append({"path": [list(v) for v in path2],
                                        "certificate": [str(v) for v in cert["y_lt"]]})
                        if brow is not None:
                            refuted[-1]["bound"] = True
                    continue
            on2 = on | {j} if s > 0 else on
            r = dfs(pos + 1, path2, rows2, y, t, Z, zc, M, m, on2)
            if r is not None:
                return r
        return None

    import sys
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * len(order) + 200))
    try:
        x0, cert = lp([])
        if x0 is None:
            if record:
                refuted.append({"path": [], "certificate": [str(v) for v in cert["y_lt"]]})
            return False, None, refuted, order, count[0]
        w = dfs(0, [], [], x0, -1, None, None, QMatrix.identity(d), [Q(0)] * d, set())
    except _Budget:
        return None, None, refuted, order, count[0]
    finally:
        sys.setrecursionlimit(old)
    if w is not None:
        return True, tuple(w), refuted, order, count[0]
    return False, None, refuted, order, count[0]
