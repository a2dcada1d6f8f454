r"""One hidden layer: exact equivalence with certificates.

:func:`equivalent_shallow` compares the canonical forms of :mod:`semialgebraic.shallow.canonical`
(equal forms ⇔ equal functions, proved in that module's docstring) and returns a
``symmetry_path`` certificate (:func:`semialgebraic.shallow.paths.symmetry_path`) or a
``counterexample`` at an exact point built from the first difference (:func:`separating_point`;
no sampling, so differences confined to thin slabs are found).  Networks whose parameters are
all float32 values are decided by the exact float64 arithmetic of
:mod:`semialgebraic.shallow.float32_exact` when its hypotheses hold.
"""

from __future__ import annotations

import math
import random

from algebra.linalg import IntegerImage, QMatrix
from algebra.network import Network, require_network
from algebra.rationals import Q
from algebra.symmetries.neurons import probe_vector

from ..budget import BudgetExhausted
from ..certificates import counterexample_certificate, require_valid, shorter_point
from ..verdict import Hypothesis, Verdict
from ..verify import verify as _verify
from .canonical import ShallowCanonicalForm, canonical_form
from .float32_exact import compare_float32, compare_float64
from .integer_exact import compare_integer
from .paths import symmetry_path

__all__ = ["equivalent_shallow", "separating_point", "point_on_hyperplane"]


def equivalent_shallow(a: Network, b: Network, *, orthant: bool = False,
                       certify: bool = True, verify: bool = True) -> Verdict:
    """Decide whether two one-hidden-layer nets compute the same function (on R^d, or on the
    closed orthant), exactly, with a certificate.

    * equal canonical forms → ``answer=True`` with a ``symmetry_path`` certificate (steps from
      ``algebra.symmetries`` carrying *a* to the canonical representative, then the inverses of
      *b*'s steps);
    * different forms → ``answer=False`` with a ``counterexample`` certificate at an exact point
      built from the first difference (:func:`separating_point`; no sampling, so differences
      confined to thin slabs are found);
    * not one hidden layer each → ``answer=None`` with the failed hypothesis.

    The answer comes from the exact canonical forms alone; ``certify=False`` skips building the
    certificate (for large nets it costs more than the decision: the embedded JSON and the path).
    With ``verify=True`` (default) the certificate is re-checked by the independent checker
    before it is returned (:class:`CertificateError` if it fails: a bug); ``verify=False`` skips
    that check (benchmarks timing the decision).

    Parameters
    ----------
    a, b : Network
        The two networks (one hidden layer each for a decision).
    orthant : bool
        Decide on the closed orthant instead of R^d.
    certify : bool
        Build the certificate (default); False answers from the canonical forms alone.
    verify : bool
        Re-check the certificate with the independent checker before returning (default).

    Returns
    -------
    Verdict
        ``answer`` True / False, or None when a network does not have one hidden layer;
        ``certificate`` of type ``symmetry_path`` or ``counterexample`` (when *certify*).

    Raises
    ------
    CertificateError
        If *verify* and the certificate fails its check (a bug in netfibers).

    Examples
    --------
    >>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> b = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], [0]])
    >>> v = equivalent_shallow(a, b)
    >>> v.answer, v.certificate["type"]
    (True, 'symmetry_path')
    >>> w = equivalent_shallow(a, b.with_parameter("b2[0]", "1/1000000"))
    >>> w.answer, w.certificate["type"]
    (False, 'counterexample')
    """
    require_network(a, "equivalent_shallow", "a")
    require_network(b, "equivalent_shallow", "b")
    v = _equivalent_shallow(a, b, orthant, certify)
    if verify and v.certificate is not None:
        require_valid(v.certificate, _verify)
    return v


def _equivalent_shallow(a: Network, b: Network, orthant: bool, certify: bool) -> Verdict:
    method = "shallow-canonical" + ("-orthant" if orthant else "")
    hyps = [Hypothesis("a has one hidden layer", a.depth == 2, {"hidden_layers": a.depth - 1}),
            Hypothesis("b has one hidden layer", b.depth == 2, {"hidden_layers": b.depth - 1})]
    if a.depth != 2 or b.depth != 2:
        return Verdict(None, method, "the shallow method needs one hidden layer in both nets",
                       tuple(hyps))
    same = a.signature == b.signature
    hyps.append(Hypothesis("same input and output dimensions", same,
                           {"a": list(a.signature), "b": list(b.signature)}))
    if not same:
        cert = counterexample_certificate(a, b) if certify else None
        return Verdict(False, method, "the networks have different signatures", tuple(hyps), cert)
    if not orthant:
        for compare in (compare_float32, compare_float64, compare_integer):
            fast = _float32_decision(a, b, hyps, certify, compare)
            if fast is not None:
                return fast
    ca, cb = canonical_form(a, orthant=orthant), canonical_form(b, orthant=orthant)
    details = {}
    if ca == cb:
        try:
            cert = symmetry_path(a, b, orthant=orthant, forms=(ca, cb)) if certify else None
        except BudgetExhausted as exc:
            return _uncertified(method, "canonical forms are equal", hyps, details, exc)
        return Verdict(True, method, "canonical forms are equal", tuple(hyps), cert, details)
    x = shorter_point(a, b, separating_point(ca, cb, nets=(a, b)), "orthant" if orthant else None)
    details["point"] = x
    cert = (counterexample_certificate(a, b, x, domain={"orthant": True} if orthant else None)
            if certify else None)
    return Verdict(False, method, "canonical forms differ; the point separates the functions",
                   tuple(hyps), cert, details)


def _uncertified(method, reason, hyps, details, exc) -> Verdict:
    """Equal canonical forms whose ``symmetry_path`` certificate the budget stopped: no verdict
    without its certificate, so undecided (exit 3), saying what was found (``uncertified``: the
    dispatcher stops there rather than try the general method on a spent budget)."""
    return Verdict(None, method, f"undecided: {reason}, but {exc} before the symmetry path "
                   "certificate was built (a larger --timeout certifies it)", tuple(hyps), None,
                   {**details, "uncertified": True, "complete": False})


_PATHS = {compare_float32: "float32_path", compare_float64: "float64_path",
          compare_integer: "integer_path"}


def _float32_decision(a: Network, b: Network, hyps: list, certify: bool,
                      compare=compare_float32) -> Verdict | None:
    """The decision of :mod:`semialgebraic.shallow.float32_exact` (exact float64 arithmetic for float32
    parameters) or of :mod:`semialgebraic.shallow.integer_exact` (*compare*: exact int64
    arithmetic on integer rows), as a verdict; None when its hypotheses fail or its separating
    candidates do not separate (then the FLINT canonical forms decide)."""
    r = compare(a, b)
    if r.answer is None:
        return None
    method = "shallow-canonical"
    hyps = hyps + list(r.hypotheses)
    details = {_PATHS[compare]: r.details}
    if r.answer:
        try:
            cert = symmetry_path(a, b) if certify else None
        except BudgetExhausted as exc:        # decided, but its certificate not built in time
            return _uncertified(method, r.reason, hyps, details, exc)
        return Verdict(True, method, r.reason, tuple(hyps), cert, details)
    nets = (_SparseNet(a), _SparseNet(b))
    for x, fa, fb in _sparse_candidates(nets, a.n_inputs, r.hyperplane):
        if fa != fb:                                      # exact values at x: the claim holds
            x = _shorter_sparse(nets, x)
            x = tuple(x.get(j, Q(0)) for j in range(a.n_inputs))
            details["point"] = x
            cert = counterexample_certificate(a, b, x) if certify else None
            return Verdict(False, method, r.reason + "; the point separates the functions",
                           tuple(hyps), cert, details)
    return None  # pragma: no cover - the module docstring proves one candidate separates


class _SparseNet:
    """Exact values of a one-hidden-layer net at points with few non-zero coordinates, on
    integer arrays: ``W1 = N / D`` and ``V = M / E`` from the reader's int64 arrays
    (:meth:`~algebra.network.Network.integer_weights`; a layer without them gives its columns
    from the rational matrix), Python integers (numpy object arrays) for every sum, so nothing
    is rounded and the rational matrix of W1 is never made.  ``x`` is a dict ``j -> Q``."""

    def __init__(self, net: Network):
        import numpy as np
        self.np, self.net = np, net
        self.hint = net.integer_weights(0)
        bias = net.biases[0]
        self.bden = math.lcm(*(int(b.q) for b in bias)) if bias else 1
        self.bnum = np.array([int(b.p) * (self.bden // int(b.q)) for b in bias], dtype=object)
        out = net.integer_weights(1)
        if out is None:
            Mf, E = net.layer(1)[0].numer_denom()
            out = (np.array([int(v) for v in Mf.entries()], dtype=object)
                   .reshape(net._shapes[1]), int(E))
        self.M, self.E = out[0].astype(object), int(out[1])
        self.c = net.biases[1]
        self._cols: dict = {}

    def column(self, j: int):
        """``(numerators, denominator)`` of column *j* of W1 (numerators an object array)."""
        if j not in self._cols:
            if self.hint is not None:
                self._cols[j] = (self.hint[0][:, j].astype(object), int(self.hint[1]))
            else:
                col = self.net.layer(0)[0].col_at(j)
                den = math.lcm(*(int(x.q) for x in col)) if col else 1
                self._cols[j] = (self.np.array([int(x.p) * (den // int(x.q)) for x in col],
                                               dtype=object), den)
        return self._cols[j]

    def row(self, i: int) -> tuple:
        """Row *i* of W1 as rationals."""
        if self.hint is not None:
            return tuple(Q(int(v), int(self.hint[1])) for v in self.hint[0][i].tolist())
        return self.net.layer(0)[0].row_at(i)

    def hidden(self, x: dict):
        """``(H, T)`` with ``W1 x + b1 == H / T`` exactly (H an object array, T > 0)."""
        terms = [(self.column(j), v) for j, v in x.items() if v != 0]
        T = math.lcm(self.bden, *(den * int(v.q) for (_, den), v in terms))
        H = self.bnum * (T // self.bden)
        for (col, den), v in terms:
            H = H + col * (int(v.p) * (T // (den * int(v.q))))
        return H, T

    def __call__(self, x: dict) -> tuple:
        """The exact output ``V σ(W1 x + b1) + c`` at the sparse point *x*."""
        H, T = self.hidden(x)
        relu = self.np.where(H > 0, H, 0)
        y = self.M.dot(relu) if len(relu) else [0] * len(self.c)
        return tuple(Q(int(v), self.E * T) + c for v, c in zip(y, self.c))


def _sparse_candidates(nets, d: int, hyperplane):
    """Exact candidate points ``x`` with few non-zero coordinates, and ``a(x)``, ``b(x)``
    (evaluated exactly on integer arrays by the two :class:`_SparseNet` *nets*).

    For a hyperplane ``H = (u, β)`` whose kinks differ (``u_j = 1`` at its lead coordinate j):
    ``x0 = r e_k − (β + u_k r) e_j`` lies on H; when no other neuron hyperplane of a or b passes
    through x0, ``x± = x0 ± ε e_j`` with ``ε = 2^-e`` at most half of every other hyperplane's
    distance along e_j gives ``D(x+) + D(x−) − 2 D(x0) = ε ΔK ≠ 0`` for ``D = a − b``
    (:func:`separating_point`), so one of the three separates.  Then ``0`` and the unit vectors
    (enough when only the affine parts differ).  Points are yielded as dicts ``j -> Q``."""
    def values(x):
        return x, nets[0](x), nets[1](x)

    if hyperplane is not None:
        u, beta = hyperplane
        j = next(i for i, x in enumerate(u) if x != 0)
        rng = random.Random(20261130)
        for attempt in range(8):
            x0 = {}
            if d > 1:
                k = (j + 1 + attempt) % d
                if k == j:
                    k = (k + 1) % d
                x0[k] = Q(rng.randint(1, 97), rng.randint(1, 89))
                x0[j] = -(beta + u[k] * x0[k])
            else:
                x0[j] = -beta
            e = _epsilon_exponent(nets, x0, j, u, beta)
            if e is None:
                continue
            xp, xm = dict(x0), dict(x0)
            xp[j] += Q(1, 1 << e)
            xm[j] -= Q(1, 1 << e)
            for x in (x0, xp, xm):
                yield values(x)
            break
    yield values({})
    for j in range(d):
        yield values({j: Q(1)})


def _epsilon_exponent(nets, x0: dict, j: int, u, beta):
    """The least ``e ≥ 0`` with ``2^-e`` at most half the distance along ``e_j`` from *x0* to
    every neuron hyperplane of the *nets* that is not ``(u, β)`` and crosses that line; None
    when such a hyperplane passes through *x0* (then another x0 is tried).  Exact: with
    ``h_i = H_i / T`` and ``w_ij = N_ij / D`` the distance is ``|H_i| D / (T |N_ij|)``, and
    ``2^-e · 2 T |N_ij| ≤ |H_i| D`` holds once ``e ≥ bits(2 T |N_ij|) − bits(|H_i| D) + 1``."""
    e = 0
    for net in nets:
        H, T = net.hidden(x0)
        col, den = net.column(j)
        for i in net.np.flatnonzero(col != 0).tolist():
            h, w = int(H[i]), int(col[i])
            if h == 0:                   # only neurons on H itself may kink at x0 along e_j
                lam = Q(w, den)
                if net.net.biases[0][i] != lam * beta or any(
                        x != lam * y for x, y in zip(net.row(i), u)):
                    return None
                continue
            e = max(e, (2 * T * abs(w)).bit_length() - (abs(h) * den).bit_length() + 1)
    return e


def _shorter_sparse(nets, x: dict) -> dict:
    """:func:`~semialgebraic.certificates.shorter_point` for a sparse point (same roundings,
    same result): the first rounding of the non-zero coordinates to multiples of ``2^-k``
    (k = 4, 8, 16, …) that is shorter than *x* and where the nets still differ (evaluated on
    integer arrays); else *x*."""
    def size(p):
        return sum(v.p.bit_length() + v.q.bit_length() for v in p.values())

    k, full = 4, size(x)
    top = max((int(v.q) for v in x.values()), default=1)
    while (1 << k) < 4 * top and k <= 4096:
        s = 1 << k
        p = {j: Q((int(v.p) * s + int(v.q) // 2) // int(v.q), s) for j, v in x.items()}
        if size(p) >= full:
            break
        if nets[0](p) != nets[1](p):
            return p
        k *= 2
    return x



def separating_point(ca: ShallowCanonicalForm, cb: ShallowCanonicalForm, *, nets=None) -> tuple[Q, ...]:
    """An exact point (in the domain) where the functions of two different canonical forms
    differ.

    If the kink sets differ, let ``H`` be the first hyperplane whose kink vectors differ: pick
    ``x0`` on ``H`` (in the open orthant for the orthant form) off every other hyperplane, and
    ``x± = x0 ± ε e`` along the coordinate ``e`` with ``u·e = 1``, with ``ε`` so small that no other
    hyperplane (nor the orthant boundary) is crossed.  The difference ``D = f_a − f_b`` satisfies
    ``D(x+) + D(x−) − 2 D(x0) = ε ΔK ≠ 0``, so one of the three points separates.  If only the
    affine parts differ, ``D`` is affine on the domain and ``0`` or a unit vector separates.
    *nets* ``(a, b)``, when given, evaluates the candidates on the networks (same functions).
    """
    if ca.n_inputs != cb.n_inputs or ca.domain != cb.domain:
        raise ValueError("forms of different input spaces")
    d = ca.n_inputs
    orthant = ca.domain == "orthant"
    first, union = _first_difference(ca.kinks, cb.kinks)
    cands: list[tuple[Q, ...]] = []
    if first is not None:
        others = None if nets is not None else [k for k in union if k != first]
        cands += _points_across(first, d, orthant, nets=nets, others=others)
    cands.append(tuple([Q(0)] * d))
    for j in range(d):
        e = [Q(0)] * d
        e[j] = Q(1)
        cands.append(tuple(e))
    fa, fb = nets if nets is not None else (ca, cb)
    for x in cands:
        if fa(x) != fb(x):
            return x
    raise AssertionError("no separating point found for different canonical forms")  # pragma: no cover


def _points_across(first, d: int, orthant: bool, *, nets=None, others=None) -> list:
    """``[x0, x0 + ε e, x0 − ε e]`` for the hyperplane ``first = (u, β)`` (see
    :func:`separating_point`): ``x0`` on it and off every other hyperplane — the neurons of *nets*
    ``(a, b)`` or the hyperplanes *others* — and ``ε`` small enough to cross no other one."""
    u, beta = first
    j = next(i for i, x in enumerate(u) if x != 0)
    eps = Q(1)
    if nets is not None:        # walls: every neuron hyperplane of both nets except H
        walls = [_walls(net.layer(0)[0], net.layer(0)[1], u, beta) for net in nets]

        def off_walls(x):
            return all(all(h != 0 for h, keep in zip(_hvals(im, bv, x), mask) if keep)
                       for W, bv, mask, im in walls)
        x0 = point_on_hyperplane(u, beta, off_walls, orthant)
        for W, bv, mask, im in walls:
            for h, wj, keep in zip(_hvals(im, bv, x0), W.col_at(j), mask):
                if keep and wj != 0:
                    eps = min(eps, abs(h) / abs(wj) / 2)
    else:
        Uo = QMatrix.from_rows([uo for uo, _ in others], ncols=d) if others else None
        x0 = point_on_hyperplane(u, beta, (Uo, [bo for _, bo in others]), orthant)
        if others:
            hs = [p + bo for p, (_, bo) in zip(Uo.apply(x0), others)]
            for h, uj in zip(hs, Uo.col_at(j)):
                if uj != 0:
                    eps = min(eps, abs(h) / abs(uj) / 2)
    if orthant:
        eps = min(eps, x0[j] / 2)
    xp = list(x0)
    xm = list(x0)
    xp[j] += eps
    xm[j] -= eps
    return [tuple(x0), tuple(xp), tuple(xm)]


def _hvals(W, bv, x):
    return [p + q for p, q in zip(W.apply(x), bv)]


def _walls(W, bv, u, beta):
    """``(W, b, keep, image)``: keep[i] is False for rows with w = 0 and rows on the hyperplane
    ``(u, β)`` (found by probe keys, confirmed exactly); ``image`` is W's :class:`IntegerImage`
    (repeated products with W convert it once)."""
    d = W.ncols
    probe, p0 = probe_vector(d)
    key_h = sum((x * r for x, r in zip(u, probe)), Q(0)) + beta * p0
    img = IntegerImage(W)
    raw = [p + q * p0 for p, q in zip(img.apply(probe), bv)]
    col0 = W.col_at(0)
    keep = []
    for i, (k, l0) in enumerate(zip(raw, col0)):
        row = None
        lam = l0
        if lam == 0:
            row = W.row_at(i)
            lam = next((x for x in row if x != 0), None)
        if lam is None:
            keep.append(False)
            continue
        if k / lam == key_h:
            row = row or W.row_at(i)
            if bv[i] == lam * beta and all(x == lam * y for x, y in zip(row, u)):
                keep.append(False)
                continue
        keep.append(True)
    return W, bv, keep, img


def _first_difference(ka, kb):
    """First hyperplane (in sorted order) whose kink vectors differ between two sorted kink
    lists, and the union of all hyperplanes (merge walk: comparisons, no hashing)."""
    i = j = 0
    first, union = None, []
    na, nb = len(ka), len(kb)
    while i < na or j < nb:
        if i < na and j < nb:
            # one full comparison for equal keys (the common case), an early-exit one otherwise
            ki, kj = (ka[i][0], ka[i][1]), (kb[j][0], kb[j][1])
            if ki == kj:
                key, differ = ki, ka[i][2] != kb[j][2]
                i += 1
                j += 1
            elif ki < kj:
                key, differ = ki, True
                i += 1
            else:
                key, differ = kj, True
                j += 1
        elif i < na:
            key, differ = (ka[i][0], ka[i][1]), True
            i += 1
        else:
            key, differ = (kb[j][0], kb[j][1]), True
            j += 1
        union.append(key)
        if differ and first is None:
            first = key
    return first, union



def point_on_hyperplane(u, beta, others, orthant=False, *, seed=12345):
    """Exact point on ``u·x + β = 0`` (in the open orthant if asked) off every hyperplane
    ``(u', β')`` in *others* (each different from ``(u, β)``; a list of pairs, a pair
    ``(QMatrix of normals or None, offsets)``, or a predicate ``x ↦ bool`` "x avoids them")."""
    d = len(u)
    j = next(i for i, x in enumerate(u) if x != 0)
    rng = random.Random(seed)
    if callable(others):
        off = others
    else:
        if isinstance(others, tuple) and len(others) == 2 and (others[0] is None
                                                              or isinstance(others[0], QMatrix)):
            Uo, bo = others
        else:
            Uo = QMatrix.from_rows([uo for uo, _ in others], ncols=d) if others else None
            bo = [b for _, b in others]

        def off(x):
            return Uo is None or all(p + q != 0 for p, q in zip(Uo.apply(x), bo))
    if orthant:
        x0 = _orthant_point(u, beta)
        basis = QMatrix.row(list(u)).nullspace()
    for attempt in range(200):
        R = 10 ** (3 + attempt // 20)
        if orthant:
            if basis.nrows == 0:
                x = list(x0)
            else:
                coef = QMatrix.row([Q(rng.randint(-R, R)) for _ in range(basis.nrows)])
                y = (coef @ basis).row_at(0)
                lim = min([x0[k] / (2 * abs(y[k])) for k in range(d) if y[k] != 0] + [Q(1)])
                tau = lim / (1 + attempt)
                x = [x0[k] + tau * y[k] for k in range(d)]
        else:
            x = [Q(rng.randint(-R, R)) for _ in range(d)]
            x[j] = Q(0)
            x[j] = -(sum((p * q for p, q in zip(u, x)), Q(0)) + beta) / u[j]
        if off(x):
            return tuple(x)
    raise AssertionError("no generic point found on the hyperplane")  # pragma: no cover


def _orthant_point(u, beta):
    """A point z > 0 with ``u·z + β = 0`` (the hyperplane meets the open orthant)."""
    d = len(u)
    z = [Q(1)] * d
    v = sum(u, Q(0)) + beta
    P = [j for j in range(d) if u[j] > 0]
    N = [j for j in range(d) if u[j] < 0]
    if v > 0:
        if N:
            z[N[0]] += v / -u[N[0]]
        else:
            lam = -beta / sum((u[j] for j in P), Q(0))
            for j in P:
                z[j] = lam
    elif v < 0:
        if P:
            z[P[0]] += -v / u[P[0]]
        else:
            lam = beta / sum((-u[j] for j in N), Q(0))
            for j in N:
                z[j] = lam
    return z


