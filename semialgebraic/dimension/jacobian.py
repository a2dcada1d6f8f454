r"""Jacobian rows of θ ↦ f_θ(x), exact and modulo a prime, and the kernel directions they leave.

Rows are assembled in closed form by backpropagating the masked products: for output o,
δ_L = e_o, δ_l = D_l W_{l+1}ᵀ δ_{l+1}, and ∂f_o/∂W_l[i,k] = δ_l[i] h_{l-1}[k],
∂f_o/∂b_l[i] = δ_l[i] (D_l the 0/1 activation mask, computed exactly).  :func:`jacobian_rows`
reduces them mod a prime p dividing no denominator of θ (:func:`network_prime`; inputs are
dyadic): any non-zero minor mod p is a non-zero rational minor, so their rank mod p
(:func:`algebra.linalg.gfp.rank_mod_p`) is a certified lower bound of the rational rank
(three-layer-fibers R22 FIBDIM).  :func:`exact_jacobian_rows` / :func:`exact_rank` compute the
rows and their rank over Q.  :func:`missing_directions` lists the kernel directions mod p of the
rows so far that the proven symmetry directions do not explain (a guide for the sampling).

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
>>> exact_rank(net, [(2,), (3,)]), exact_rank(net, [(2,), (3,), (-1,), (-2,)]), network_prime(net)
(2, 4, 1048573)
"""

from __future__ import annotations

from algebra.kernel import parameter_offsets, parameter_places
from algebra.linalg import QMatrix
from algebra.linalg.gfp import (PRIME, SparseEchelon, echelon_mod_p, exact_rank as _exact_rank_q, matmul_mod_p, peel_columns, pivot_columns,
                                prime_for, rank_mod_p, rref_mod_p, reduce_mod_p, residue)
from algebra.network import Network, guard_conversion
from algebra.rationals import Q

from ..budget import BudgetExhausted, checkpoint

__all__ = ["jacobian_rows", "exact_jacobian_rows", "exact_rank", "network_prime", "ProvenSpan",
           "missing_directions"]


def network_prime(net: Network) -> int:
    """The largest prime p <= :data:`~algebra.linalg.gfp.PRIME` dividing no denominator of the
    parameters of *net*, so that every Jacobian row at a dyadic input reduces mod p (memoised
    on the immutable network)."""
    def prime():
        guard_conversion(net.n_parameters, "the parameters' denominators")   # (17 M: 4 s, s49)
        return prime_for(int(Q(v).q) for v in net.parameters())
    return net.derived(("dimension.network_prime", PRIME), prime)


def jacobian_rows(net: Network, X: list, masks: list, p: int):
    """Jacobian rows ∂f_o(x)/∂θ (o = 0..m-1 for each input) reduced mod p, as a numpy int64
    array (rows: input-major, then output), from exact inputs *X* and exact 0/1 *masks*
    (one array (n, n_l) per hidden layer).

    Raises ``ZeroDivisionError`` when p divides a denominator of θ or of an input."""
    import numpy as np
    n, L, m = len(X), net.depth, net.n_outputs
    Ws, bs = net.derived(("dimension.residues", p), lambda: _parameter_residues(net, p))
    H = [np.array([[residue(v, p) for v in x] for x in X], dtype=np.float64).reshape(n, net.n_inputs)]
    for l in range(L - 1):
        Z = np.mod(H[-1] @ Ws[l].T + bs[l], p)
        H.append(Z * masks[l])
    offs = parameter_offsets(net)
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


def _parameter_residues(net: Network, p: int) -> tuple:
    """The weights and biases of *net* mod p as float64 arrays (memoised on the network)."""
    import numpy as np
    Ws = [np.array([[residue(v, p) for v in row] for row in w.to_rows()], dtype=np.float64).reshape(w.nrows, w.ncols)
          for w in net.weights]
    bs = [np.array([residue(v, p) for v in b], dtype=np.float64) for b in net.biases]
    return Ws, bs


def exact_jacobian_rows(net: Network, points) -> list:
    """Exact rational Jacobian rows ∂f_o(x)/∂θ at *points* (no zero pre-activation assumed:
    a zero one gets the mask 0)."""
    rows = []
    L = net.depth
    for x in points:
        hs, deltas = _hidden_and_deltas(net, x)
        for o in range(net.n_outputs):
            checkpoint()             # (an active budget: a row of 1 000-digit products is ~0.04 s)
            blocks = [[dv * hv for dv in deltas[l][o] for hv in hs[l]] + list(deltas[l][o]) for l in range(L)]
            rows.append([v for blk in blocks for v in blk])
    return rows


def _hidden_and_deltas(net: Network, x) -> tuple[list, list]:
    """``(hs, deltas)`` at the input *x*: ``hs[l]`` the input of layer l (x, then the hidden
    values, a zero pre-activation masked to 0) and ``deltas[l][o]`` the row ∂f_o/∂z_l of layer
    l's pre-activations, the masks held fixed: δ_{l-1} = (δ_l W_l) ∘ mask_{l-1}, all outputs at
    once by FLINT products (the entry-by-entry sums took 9.5 s of ``rank_beside``'s 12 s on a
    16-60-60-8 net at 391 inputs)."""
    L, m = net.depth, net.n_outputs
    pre = net.preactivations(x)
    hs = [list(x)] + [[v if v > 0 else Q(0) for v in layer] for layer in pre[:-1]]
    deltas = [None] * L
    D = QMatrix.identity(m)
    for l in range(L - 1, -1, -1):
        deltas[l] = D.to_rows()
        if l:
            rows = (D @ net.weights[l]).to_rows()
            live = [v > 0 for v in pre[l - 1]]
            D = QMatrix.from_rows([[v if a else Q(0) for v, a in zip(r, live)] for r in rows],
                                  ncols=len(live))
    return hs, deltas


def exact_rank(net: Network, points) -> int:
    """Exact rational rank of the Jacobian rows at *points* (their columns zero in every row,
    a dead neuron's parameters, left out: no rank)."""
    rows = exact_jacobian_rows(net, points)
    return _live_rank(rows)


def _live_rank(rows) -> int:
    """The exact rank over Q of *rows* (lists of rationals), on their non-zero columns
    (:func:`~algebra.linalg.gfp.exact_rank`: a maximal minor found mod p, its Schur complement
    checked exactly)."""
    if not rows:
        return 0
    live = [c for c in range(len(rows[0])) if any(r[c] for r in rows)]
    return _exact_rank_q(QMatrix.from_rows([[r[c] for c in live] for r in rows], ncols=len(live)),
                         check=checkpoint) if live else 0


def exact_jacobian_columns(net: Network, points, cols) -> list:
    """The exact Jacobian rows of :func:`exact_jacobian_rows` restricted to the parameters
    *cols* (in that order), computed entry by entry: a weight W_l[i, k]'s entry is
    δ_l[i] h_{l-1}[k], a bias b_l[i]'s δ_l[i]."""
    where = parameter_places(net, cols)
    rows = []
    for x in points:
        hs, deltas = _hidden_and_deltas(net, x)
        for o in range(net.n_outputs):
            rows.append([deltas[l][o][i] * hs[l][k] if k is not None else deltas[l][o][i] for l, i, k in where])
    return rows


def rank_beside(net: Network, points, vectors, p: int) -> int | None:
    """The exact rank over Q of the Jacobian rows at *points* (differentiable inputs) when every
    one of *vectors* (proven kernel directions: r·v = 0 for every such row, exactly) is given:
    the rank of the rows' columns off :func:`~algebra.linalg.gfp.pivot_columns` of the vectors
    (the rows are determined by those columns), a matrix of N − rank(vectors) columns where the
    whole has N (a 16-60-60-8 net on a ball, the 3 128 rows of a complete walk: 343 of 5 168
    columns, 0.2 s where the whole took 49 s); None when p divides a denominator."""
    piv = pivot_columns(vectors, p)
    if piv is None:
        return None
    taken = set(piv)
    cols = [c for c in range(net.n_parameters) if c not in taken]
    if not cols:
        return 0
    return _live_rank(exact_jacobian_columns(net, points, cols))


RANK_CHUNK = 32
"""Proven directions reduced mod p (and projected) between two checks of the timeout in
:meth:`ProvenSpan.rank`."""

SPARSE_OPS = 3 * 10 ** 6
"""Entry updates of the sparse echelon form mod p (:class:`~algebra.linalg.gfp.SparseEchelon`)
of the proven directions before :meth:`ProvenSpan.rank` gives it up for the dense routes (about
1 s of Python at most between two checks of the timeout).  Scalings, bias trades and freed
parameters each have a private leading column: no update at all (24-24-6000-2: 6 024
directions, 0 updates)."""

DENSE_BYTES = 1 << 30
"""The dense routes of :meth:`ProvenSpan.rank` (int64 residues, k x N, and the random
projection, N x (k + 8)) are taken only within this many bytes; beyond it the rank of the
directions the sparse echelon form took (a subset: still a lower bound of the rank)."""


PEEL_ENTRIES = 2 * 10 ** 6
""":meth:`ProvenSpan.rank` peels the directions (:func:`peel`) first when they hold at most this
many non-zero entries (one pass over them, ~0.5 s at the limit)."""


def peel(vectors) -> tuple[int, list, int]:
    """``(r, rest, ncols)``: the rank over Q of *vectors* (dicts or lists) is exactly r plus the
    rank of *rest* (dicts on columns renumbered 0 .. ncols − 1).  Two exact steps: the columns
    F of the vectors with one non-zero entry are dropped from every other vector (rank(unit
    vectors on F ∪ R) = |F| + rank(R off F)); then, while some column is non-zero in exactly one
    remaining vector, that vector is independent of the others (rank + 1) and removed.  A
    16-60-60-8 net on a ball of radius 1/100: 3 116 of its 5 559 proven directions peeled in
    0.04 s, the rest (1 967 vectors on 1 828 columns) ranked in 1.9 s where the whole took 14.7 s.

    >>> peel([{0: 1}, {0: 2, 1: 3}, {1: 1, 2: 1}, {2: 1, 3: 1}])     # all peeled: rank 4
    (4, [], 0)
    >>> peel([{0: 1}, {0: 5, 2: 1, 3: 1}, {2: 2, 3: 2}])                # e_0, then two parallel
    (1, [{0: 1, 1: 1}, {0: 2, 1: 2}], 2)
    """
    pivots, rest, cols = peel_columns(vectors)
    return len(pivots), rest, len(cols)


class ProvenSpan:
    """The span of the proven symmetry directions, reduced mod p on first use (its RREF mod p:
    pivot columns and rows), for :func:`missing_directions` and the rank of the upper bound; one
    object per span.  Mod p throughout, never an exact RREF over Q: on a large network (13 305
    parameters) that is one FLINT call of minutes that no budget can stop.  *vectors*: dicts
    ``{parameter index: value}`` (:func:`~semialgebraic.dimension.directions.symmetry_directions`
    with ``sparse=True``) or lists of *n* rationals."""

    def __init__(self, vectors: list, n: int, p: int):
        self.vectors, self.n, self.p = vectors, n, p
        self._reduced = None
        self._residues = None
        self._peel = None

    def residues(self):
        """The vectors mod p (a dense int64 array, k x n), or None when p divides a denominator."""
        if self._residues is None:
            import numpy as np
            A = np.zeros((len(self.vectors), self.n), dtype=np.int64)
            try:
                for a, r in enumerate(self.vectors):
                    for c, v in _items(r):
                        A[a, c] = residue(v, self.p)
            except ZeroDivisionError:
                return None
            self._residues = A
        return self._residues

    def dense(self) -> list:
        """The vectors as lists of n rationals."""
        out = []
        for r in self.vectors:
            v = [Q(0)] * self.n
            for c, w in _items(r):
                v[c] = w
            out.append(v)
        return out

    def rank(self, budget=None) -> int:
        """A lower bound of the rank over Q of the vectors (the rank mod p; exact over Q when p
        divides a denominator and the vectors fit densely): N − this bound is still a valid upper
        bound of the functional dimension, never below the exact N − rank.  The sparse echelon
        form mod p first (:data:`SPARSE_OPS`); past it the dense routes (within
        :data:`DENSE_BYTES`).  With a *budget* that has a timeout, the vectors are reduced in
        chunks of :data:`RANK_CHUNK` with the timeout checked between them; at the budget (or
        Ctrl-C) the rank of the chunks done, a subset of the rows: still a lower bound
        (``ranked``: how many vectors it covers; a vector left out, too, when the fill-in or a
        residue stops it and the dense routes do not fit).  ACAS Xu, 300 directions of 13 305
        parameters: 4.4 s in one call at load 10 (dense); 24-24-6000-2, 6 024 directions of
        162 602 parameters: 0.1 s (sparse)."""
        k = len(self.vectors)
        self.ranked = k
        if not k:
            return 0
        if self._peel is None and sum(len(r) for r in self.vectors) <= PEEL_ENTRIES:
            peeled, rest, ncols = peel(self.vectors)
            self._peel = (peeled, rest, ncols)
            if peeled:                             # the rest, on its own columns
                sub = ProvenSpan(rest, ncols, self.p)
                sub._peel = (0, rest, ncols)
                r = sub.rank(budget)
                self.ranked = k - len(rest) + sub.ranked
                return peeled + r
        timed = budget is not None and budget.timeout is not None
        echelon, p = SparseEchelon(self.p, SPARSE_OPS), self.p
        done = left_out = 0                        # vectors reduced, and left out (no residue)
        try:
            for a in range(0, k, RANK_CHUNK):
                if a and timed and budget.exhausted():
                    break
                for r in self.vectors[a:a + RANK_CHUNK]:
                    try:
                        row = {c: residue(v, p) for c, v in _items(r) if v}
                    except ZeroDivisionError:       # p divides a denominator: the rank over Q decides
                        if self._fits(k):
                            return self._dense_rank(budget)
                        row = None
                    if row is not None and echelon.add(row) is None:    # much fill-in: the dense
                        if self._fits(k):                               # routes
                            return self._dense_rank(budget)
                        self.ranked = done - left_out
                        return echelon.rank
                    left_out += row is None
                    done += 1
        except KeyboardInterrupt:
            if budget is None:
                raise
            budget.interrupt()
        self.ranked = done - left_out
        return echelon.rank

    def _fits(self, k: int) -> bool:
        """Whether the dense routes for *k* vectors fit in :data:`DENSE_BYTES`."""
        return 8 * self.n * (2 * k + 8) <= DENSE_BYTES

    def _dense_rank(self, budget=None) -> int:
        """:meth:`rank` by the dense int64 residues (a random projection when wide)."""
        import numpy as np
        k = len(self.vectors)
        self.ranked = k
        wide = self.n > 4 * k + 64              # wide: rank(A R) <= rank(A) for a random R (seeded)
        R = np.random.default_rng(0).integers(0, self.p, (self.n, k + 8)) if wide else None
        if wide:                                # reduced once, not once per chunk
            R = reduce_mod_p(R.astype(np.float64), self.p)
        if budget is None or budget.timeout is None or k <= RANK_CHUNK or self._residues is not None:
            A = self.residues()
            if A is None:
                return QMatrix.from_rows(self.dense(), ncols=self.n).rank()
            return rank_mod_p(_sparse_times(A, R, self.p).astype(np.int64) if wide else A, self.p)
        done = []
        try:
            for a in range(0, k, RANK_CHUNK):
                if a and budget.exhausted():
                    break
                A = np.zeros((min(k, a + RANK_CHUNK) - a, self.n), dtype=np.int64)
                for i, r in enumerate(self.vectors[a:a + RANK_CHUNK]):
                    for c, v in _items(r):
                        A[i, c] = residue(v, self.p)
                done.append(_sparse_times(A, R, self.p).astype(np.int64) if wide else A)
        except ZeroDivisionError:               # p divides a denominator: the rank over Q decides
            return self._dense_rank() if not budget.exhausted() else 0
        except KeyboardInterrupt:
            budget.interrupt()
        self.ranked = min(k, len(done) * RANK_CHUNK)
        if not done:
            return 0

        def check():                            # between the elimination's panels: the
            if budget.exhausted():              # elimination of ~4 600 directions of 5 008
                raise BudgetExhausted(budget.reason)    # parameters is ~27 s in one call
        try:
            return echelon_mod_p(np.vstack(done), self.p, check=check)[0]
        except KeyboardInterrupt as exc:        # the pivots found: still a lower bound
            budget.interrupt()
            self.ranked = getattr(exc, "partial_rank", 0)
            return self.ranked

    def reduced(self, check=None) -> tuple:
        """(pivot columns, rows mod p as a float64 array) of the RREF mod p of the span;
        *check* (or None) is called between the elimination's panels and may raise to stop
        (nothing is kept then)."""
        if self._reduced is None:
            import numpy as np
            A = self.residues()
            if A is None:
                Sm = QMatrix.from_rows(self.dense(), ncols=self.n).rref()[0]
                rows = [r for r in Sm.to_rows() if any(v != 0 for v in r)]
                piv = [next(c for c, v in enumerate(r) if v != 0) for r in rows]
                Sp = np.array([[residue(v, self.p) if v != 0 else 0 for v in r] for r in rows],
                              dtype=np.float64).reshape(len(rows), self.n)
            else:
                piv, Sp = rref_mod_p(A, self.p, check=check)
                piv = piv.tolist()
            self._reduced = (piv, Sp)
        return self._reduced


def _items(r):
    """The non-zero ``(index, value)`` pairs of a direction (a dict or a dense list)."""
    return r.items() if isinstance(r, dict) else ((c, v) for c, v in enumerate(r) if v)


def _sparse_times(A, R, p: int):
    """``A @ R mod p`` for an integer array *A* with few non-zeros per row (proven directions:
    scalings, freed parameters), summed over the non-zeros only (entries reduced to |v| <= p/2:
    products < 2^38, at most 2^14 of them per row, sums < 2^52: exact in float64); a dense
    product (:func:`matmul_mod_p`) when a row has more."""
    import numpy as np
    rows, cols = np.nonzero(A)
    if not rows.size or np.bincount(rows).max() >= 1 << 14:
        return matmul_mod_p(A, R, p)
    vals = reduce_mod_p(A[rows, cols].astype(np.float64), p)
    Rr = R if _is_reduced(R, p) else reduce_mod_p(np.asarray(R, dtype=np.float64), p)
    out = np.zeros((A.shape[0], Rr.shape[1]))
    for s in range(0, rows.size, 4096):
        r = rows[s:s + 4096]
        uniq, first = np.unique(r, return_index=True)
        out[uniq] += np.add.reduceat(vals[s:s + 4096, None] * Rr[cols[s:s + 4096]], first, axis=0)
    return np.mod(out, p)


def _is_reduced(R, p: int) -> bool:
    """Whether *R* is already a float64 array of representatives with |entry| <= p/2 (checked:
    one pass of comparisons, cheaper than reducing again)."""
    import numpy as np
    return isinstance(R, np.ndarray) and R.dtype == np.float64 and bool(np.abs(R).max(initial=0) <= p / 2)


def missing_directions(K, span: ProvenSpan, limit: int = 12, check=None) -> list:
    """Kernel directions mod p of the Jacobian rows so far (the columns of the basis *K*, in the
    compact form ``(P, free, piv)`` of :func:`~algebra.linalg.gfp.kernel_rows_mod_p`, whose
    transpose is built here chunk by chunk) that the proven directions of *span* do not explain:
    a basis (as rows, block echelon mod p) of span(K) modulo the span, as lists of parameter
    indices (the support of each direction).  Only a guide for the sampling and for the reason
    text: the missing directions are either not exercised yet or an unproven symmetry.  *check*
    (or None) is called before the reduction and between the elimination's panels, and may
    raise to stop (a 4 865-parameter net with a 4 493-dimensional kernel: ~10 s in one piece
    before)."""
    import numpy as np
    p = span.p
    P, free, piv = K                         # K[free] the identity, K[piv] = P
    f, n = len(free), span.n
    if f == 0:
        return []
    if check is not None:
        check()
    T = np.empty((f, n))
    if span.vectors:
        piv_s, Sp = span.reduced(check)
    for a in range(0, f, 512):               # row chunks: the budget checked between them
        if check is not None and a:
            check()
        C = np.zeros((min(f, a + 512) - a, n))      # (entries in [0, p): exact)
        C[np.arange(C.shape[0]), free[a:a + 512]] = 1.0
        C[:, piv] = P[:, a:a + 512].T
        if span.vectors:
            C = np.mod(C - matmul_mod_p(C[:, piv_s], Sp, p), p)
        T[a:a + 512] = C
    _, E, _ = echelon_mod_p(T, p, check=check, overwrite=True)     # (T is ours: no copy)
    return [list(map(int, np.flatnonzero(row))) for row in E[:limit]]
