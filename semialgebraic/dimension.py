r"""Exact functional dimension and local fiber dimension of a ReLU network of any depth.

The functional dimension of θ is the rank of the Jacobian of θ ↦ (f_θ(x))_x over all inputs x
where f is differentiable in θ (GLMW22; three-layer-fibers R22 FIBDIM, generalised to depth L);
the local fiber dimension is N − that rank where the rank is locally constant.

Method: a sandwich, both sides exact.

* **Lower bound**: the rank of stacked Jacobian rows at sampled inputs.  Rows are assembled in
  closed form by backpropagating the masked products: for output o, δ_L = e_o,
  δ_l = D_l W_{l+1}ᵀ δ_{l+1}, and ∂f_o/∂W_l[i,k] = δ_l[i] h_{l-1}[k], ∂f_o/∂b_l[i] = δ_l[i]
  (D_l the 0/1 activation mask, exact).  Inputs come per activation pattern: every sampled
  region contributes d + 1 affinely independent inputs of that region (the rows are affine in x
  on a region, so they then span the region's whole contribution; never one point per region).
  When the regions of the network can be walked completely within the budget, every region is
  sampled and the rank is the functional dimension itself.  The rank is computed over Z/p
  (p = 1048573) on the integer reduction of the exact rows: any non-zero minor mod p is a
  non-zero rational minor, so rank_p <= rank_Q is a certified lower bound; when it does not
  reach the upper bound and the matrix is small, the exact rational rank is computed with FLINT.
* **Upper bound**: N − rank of the span of known kernel directions at θ, each proved: positive
  scaling of every hidden neuron; all incoming and outgoing parameters of a dead neuron (never
  active on the domain); the bias trade e_{b_l[i]} − Σ_j W_{l+1}[j,i] e_{b_{l+1}[j]} of a neuron
  that is active wherever one of its live successors is (always-active neurons, masked neurons,
  three-layer-fibers R13 S6); the GL directions of blocks of always-active neurons of one layer
  (R11 S4).  Dead / active facts come from exact interval bounds over the domain or, when the
  region walk is complete, from the exact list of activation patterns.

Exact when the bounds meet; otherwise the interval and what would close it (more regions
sampled, or an unknown hidden symmetry).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 0], [0]])
>>> fd = functional_dimension(net)
>>> fd.value, fd.fiber_dimension.value, fd.exact
(7, 2, True)
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from algebra.matrices import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from .budget import Budget
from .equivalence import joint_regions, normalize_domain, preactivation_bounds
from .sets import Dimension

__all__ = ["FunctionalDimension", "functional_dimension", "jacobian_rows", "symmetry_directions",
           "PRIME"]

PRIME = 1048573
"""Prime of the modular rank (< 2^21, so float64 products of 64 reduced terms are exact)."""

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
        for reg in joint_regions([net], domain=dom, budget=walk_budget, state=state, seed=seed):
            regions.append(reg)
    complete = bool(state.get("complete"))
    patterns = [r.pattern for r in regions] if complete else None
    sym, deficits = symmetry_directions(net, domain=dom, patterns=patterns)
    sym_rank = QMatrix.from_rows(sym, ncols=N).rank() if sym else 0
    upper = N - sym_rank
    rng = random.Random(seed)
    points: list = []
    points += _batch_simplex(net, [reg.point for reg in regions])   # every walked region
    rank, npts, rounds = 0, 0, 0
    per_round = samples or max(8, -(-int(2 * upper) // max(1, net.n_outputs * (d + 1))))
    sketch = _Sketch(upper + 64, N, PRIME, seed)
    all_X: list = []
    new_points = points
    while True:
        try:
            if not complete and rounds:
                base = [_random_point(rng, d, dom) for _ in range(per_round)]
                new_points = _batch_simplex(net, base)
            elif not complete:
                base = [_random_point(rng, d, dom) for _ in range(per_round)]
                new_points = points + _batch_simplex(net, base)
            X, masks = _masks(net, new_points)
            all_X += X
            npts = len(all_X)
            if X:
                sketch.add(jacobian_rows(net, X, masks, PRIME))
            new_rank = _rank_mod_p(sketch.matrix(), PRIME) if npts else 0
            rounds += 1
            stalled = new_rank <= rank
            rank = max(rank, new_rank)
            if complete or rank >= upper or budget.exhausted() or (stalled and rounds >= 2) or rounds >= 4:
                break
        except KeyboardInterrupt:        # Ctrl-C: report the bounds established so far
            budget.interrupt()
            complete = False               # the rank of a partial sample is only a lower bound
            break
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
    return FunctionalDimension(N, lower, upper, reason, tuple(deficits), complete, npts,
                               {"symmetry_rank": sym_rank, "regions_walked": len(regions),
                                "rounds": rounds})


def symmetry_directions(net: Network, *, domain: Any = None, patterns=None) -> tuple[list, tuple]:
    """Proven kernel directions of every Jacobian row at θ, and one line per deficit source.

    *patterns*: the complete list of activation patterns of the regions (optional; otherwise
    dead / always-active facts come from exact interval bounds over the domain).

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
    vecs, deficits = [], []
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
                for p_ in win + wout:
                    v = [0] * N
                    v[p_] = 1
                    vecs.append(v)
                deficits.append(f"dead neuron ({l + 1}, {i}): {len(win) + len(wout)} parameters free")
                continue
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
    blocks_per_output = []
    for o in range(m):
        delta = np.zeros((n, m))
        delta[:, o] = 1.0
        blocks = []
        for l in range(L - 1, -1, -1):
            Hin = H[l]
            Wb = (delta[:, :, None] * Hin[:, None, :]).reshape(n, -1)
            blocks.append(np.hstack([np.mod(Wb, p), delta]))
            if l:
                delta = np.mod(delta @ Ws[l], p) * masks[l - 1]
        blocks_per_output.append(np.hstack(blocks[::-1]))
    R = np.stack(blocks_per_output, axis=1).reshape(n * m, -1)
    return R.astype(np.int64)


# ------------------------------------------------------------------------------------------------
def _offsets(net):
    offs, k = [], 0
    for w in net.weights:
        offs.append(k)
        k += w.nrows * (w.ncols + 1)
    return offs


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
    return int(v.p) % p * pow(int(v.q) % p, p - 2, p) % p


def _exact_rank(net, points) -> int:
    """Exact rational rank of the Jacobian rows at *points* (small cases)."""
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
    return QMatrix.from_rows(rows, ncols=net.n_parameters).rank() if rows else 0


def _rank_mod_p(A, p: int, block: int = 64) -> int:
    """Exact rank over Z/p of an integer matrix: blocked elimination, float64 BLAS products
    (exact: entries < p < 2^21, at most 64 products per sum)."""
    import numpy as np
    M = np.mod(np.asarray(A, dtype=np.int64), p).astype(np.float64)
    n, ncols = M.shape
    r = 0
    for c0 in range(0, ncols, block):
        if r >= n:
            break
        c1 = min(ncols, c0 + block)
        P = M[r:, c0:c1].copy()
        perm = np.arange(P.shape[0])
        k, piv = 0, []
        for j in range(c1 - c0):
            if k >= P.shape[0]:
                break
            col = np.mod(P[k:, j], p)
            P[k:, j] = col
            nz = np.flatnonzero(col)
            if nz.size == 0:
                continue
            i = k + nz[0]
            if i != k:
                P[[i, k]] = P[[k, i]]
                perm[[i, k]] = perm[[k, i]]
            row = np.mod(P[k], p)
            row = np.mod(row * pow(int(row[j]), p - 2, p), p)
            P[k] = row
            P[k + 1:] -= np.outer(P[k + 1:, j], row)
            piv.append(j)
            k += 1
        if k == 0:
            continue
        M[r:] = M[r:][perm]
        if r + k < n:
            cols = c0 + np.array(piv)
            C = _reduce(M[r + k:][:, cols] @ _inv_mod(M[r:r + k][:, cols], p), p)
            T = M[r + k:, c0:]
            T -= _reduce(C @ M[r:r + k, c0:], p)
            T[...] = _reduce(T, p)
        r += k
    return r


class _Sketch:
    """Rows of the Jacobian mod p, folded into k rows: the first k rows are kept as they are,
    later ones are added with a random sign to a random row (CountSketch).  Every row of the
    sketch is an integer combination of Jacobian rows, so its rank mod p is still a certified
    lower bound of the rational rank (and equal with high probability when k > rank)."""

    def __init__(self, k, ncols, p, seed):
        import numpy as np
        self.np, self.p = np, p
        self.M = np.zeros((k, ncols), dtype=np.float64)
        self.filled = 0
        self.rng = np.random.default_rng(seed)

    def add(self, A):
        np = self.np
        A = np.asarray(A, dtype=np.float64)
        k = self.M.shape[0]
        take = min(k - self.filled, A.shape[0])
        if take:
            self.M[self.filled:self.filled + take] = A[:take]
            self.filled += take
        rest = A[take:]
        if len(rest):
            rows = self.rng.integers(0, k, size=len(rest))
            signs = self.rng.choice((-1.0, 1.0), size=len(rest))
            np.add.at(self.M, rows, rest * signs[:, None])   # at most 2^31 terms < p: exact
            self.M = np.mod(self.M, self.p)

    def matrix(self):
        return self.M[:self.filled].astype(self.np.int64)


def _compress(A, k, p, seed):
    """S A mod p for a random k x n matrix S with entries in {-1, 0, 1} (exact in float64:
    |A| < p < 2^21, so sums of up to 2^31 terms are exact).  rank(S A) <= rank(A), so the rank of
    the compressed matrix is still a certified lower bound (and equal with high probability)."""
    import numpy as np
    n = A.shape[0]
    if n <= k:
        return A
    S = np.random.default_rng(seed).integers(-1, 2, size=(k, n)).astype(np.float64)
    return np.mod(S @ np.asarray(A, dtype=np.float64), p).astype(np.int64)


def _reduce(X, p):
    """An exact representative of X mod p with |entry| < 2p (one rounding; X integral, |X| < 2^52)."""
    import numpy as np
    return X - np.rint(X * (1.0 / p)) * p


def _inv_mod(S, p):
    import numpy as np
    k = S.shape[0]
    A = np.hstack([np.mod(S, p), np.eye(k)])
    for j in range(k):
        i = j + np.flatnonzero(A[j:, j])[0]
        if i != j:
            A[[i, j]] = A[[j, i]]
        A[j] = np.mod(A[j] * pow(int(A[j, j]), p - 2, p), p)
        col = A[:, j].copy()
        col[j] = 0
        A = np.mod(A - np.outer(col, A[j]), p)
    return A[:, k:]


def _random_point(rng, d, dom):
    if isinstance(dom, tuple):
        lo, hi = dom
        return [lo + (hi - lo) * Q(rng.randint(1, 9999), 10000) for _ in range(d)]
    lo = 1 if dom == "orthant" else -4000
    scale = rng.choice((1, 4, 16, 64))           # several scales: kinks cluster near the origin
    return [Q(rng.randint(lo, 4000) * 4, scale * rng.choice((97, 101, 103))) for _ in range(d)]
