r"""The gradient fields of a ReLU network for fixed activation patterns (three-layer-fibers §8).

For an activation pattern ``p`` the output $f_{p,\theta}(x)$ is a polynomial in θ, affine in x;
its gradient fields $V_{p,o,x}(\theta) = \nabla_\theta f_{p,o}(\theta, x)$ are what gradient flow
follows (see :mod:`algebra.conservation`).  This module holds the *samples* (a pattern with its
data points, or ``None`` for a whole region), the per-layer activity masks, the exact values of
the fields at θ (whole-matrix forward/backward pass, STYLE C15) and the fields as vectors of
polynomials in Q[θ] (and x in region mode).
"""

from __future__ import annotations

from typing import Iterable, Mapping, NamedTuple, Sequence

from ..exceptions import DimensionMismatchError, InputError
from ..linalg import QMatrix
from ..linalg.qmatrix import to_q_list
from ..network import Network
from ..polynomials import Polynomial, Ring
from ..rationals import Q, to_q

__all__ = ["Sample", "samples_from_points", "samples_from_patterns", "parameter_ring_of",
           "field_values"]


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


# ------------------------------------------------------------------------------------------
# private: samples and activity
# ------------------------------------------------------------------------------------------
def _pattern(p) -> tuple:
    """A pattern as given: a sequence of -1, 0, 1 (inactive, on its hyperplane, active), checked
    (a string gave a bare ValueError, an entry 2 was read as active; s53 API audit F4)."""
    import numbers
    if isinstance(p, (str, bytes)) or not hasattr(p, "__iter__"):
        raise InputError(f"samples: a pattern is a sequence of -1, 0, 1 (one per hidden neuron), "
                         f"got {p!r}")
    out = []
    for v in p:
        if isinstance(v, numbers.Integral) and int(v) in (-1, 0, 1):
            out.append(int(v))
        else:
            raise InputError(f"samples: a pattern's entries are -1, 0 or 1 (inactive, on the "
                             f"hyperplane, active), got {v!r}")
    return tuple(out)


def _normalize(net: Network, samples) -> tuple[Sample, ...]:
    given = isinstance(samples, Mapping)          # a user's pattern -> points: points checked
    if isinstance(samples, (str, bytes)) or not (given or hasattr(samples, "__iter__")):
        raise InputError("samples: expected patterns (a list of sequences of -1, 0, 1), a "
                         f"mapping pattern -> points, or samples_from_points(...); got {samples!r}")
    if isinstance(samples, tuple) and all(isinstance(s, Sample) for s in samples):
        out = samples                             # (samples_from_points made them: not again)
    elif given:
        out = tuple(Sample(_pattern(p),
                           None if pts is None else tuple(tuple(to_q_list(x)) for x in pts))
                    for p, pts in samples.items())
    else:
        out = []
        for s in samples:
            if isinstance(s, Sample):
                out.append(s)
            else:
                out.append(Sample(_pattern(s), None))
        out = tuple(out)
    for s in out:
        if len(s.pattern) != net.n_hidden:
            raise DimensionMismatchError("pattern", len(s.pattern), f"{net.n_hidden} hidden neurons")
        if s.points is not None:
            if not s.points:          # (a matrix-shape error from deep inside before: s53)
                raise InputError(f"samples: the pattern {list(s.pattern)} has no points; give "
                                 "at least one, or None for its whole field space")
            mask = [v > 0 for v in s.pattern]
            for x in s.points:
                if len(x) != net.n_inputs:
                    raise DimensionMismatchError("sample point", len(x), net.n_inputs)
                # the field at x is the gradient there only if x has the pattern's active set
                # (s48 API audit: a point outside its pattern gave a count about no data)
                if given and [v > 0 for v in net.activation_pattern(x)] != mask:
                    raise InputError(f"the point {[str(v) for v in x]} does not have the pattern "
                                     f"{list(s.pattern)} (its pattern is "
                                     f"{list(net.activation_pattern(x))}): group points by "
                                     "samples_from_points(net, points)")
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


def _layer_of(widths, k):
    """(layer l 1-based, 'W' or 'b', i, j) of flat parameter index k."""
    for l, (wo, bo) in enumerate(_offsets(widths), start=1):
        if k < bo:
            i, j = divmod(k - wo, widths[l - 1])
            return l, "W", i, j
        if k < bo + widths[l]:
            return l, "b", k - bo, None
    raise IndexError(k)


# ------------------------------------------------------------------------------------------
# private: polynomial forms of the fields
# ------------------------------------------------------------------------------------------
_GENS: dict = {}
_LAST: list = [None, None]     # (names, generators) of the last ring asked for


def _gens(ring: Ring) -> dict:
    """name -> generator polynomial (``Ring.gen`` rebuilds all generators on each call).  The
    last ring's are kept by identity: a dict lookup hashes the tuple of every name again (5 000
    names of an 8-64-64-4 net: 1.5 s of 2.2 in ``explicit_laws``, past ``timeout=0.01``; s53 API
    audit F6)."""
    names = ring.names
    if _LAST[0] is names:
        return _LAST[1]
    g = _GENS.get(names)
    if g is None:
        g = _GENS[names] = dict(zip(names, ring.gens()))
    _LAST[0], _LAST[1] = names, g
    return g


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


# ------------------------------------------------------------------------------------------
# private: exact values at θ
# ------------------------------------------------------------------------------------------
def _field_block(net, s: Sample) -> QMatrix:
    """Rows ∇_θ f_o(θ, x) at θ for the sample's points (all outputs), whole-matrix ops."""
    return QMatrix.vstack(list(_field_pieces(net, s)))


def _field_pieces(net, s: Sample):
    """The rows of :func:`_field_block`, one QMatrix per output o (lazily: a caller with a
    deadline checks it between outputs; ~0.1 s each on the digits 64-32-10 net)."""
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
    for o in range(widths[L]):
        parts = []
        for l in range(1, L + 1):
            dl = deltas[l].row_at(o)
            Hp = Hs[l - 1]
            parts += [Hp.scale(c) if c != 0 else QMatrix.zeros(ns, widths[l - 1]) for c in dl]
            parts.append(ones @ QMatrix.row(dl))
        yield QMatrix.hstack(parts)


def _rescaling_rank(net) -> int:
    """A certified lower bound of the rank of :func:`_rescaling_directions` (its exact value
    unless a prime divides every maximal minor of the rows left below), without an exact rank
    over Q that no budget or Ctrl-C stops (an 8-64-64-1 float32 net: 14.7 s of FLINT, a
    16-128-128-1 one still running at 150 s; outsider's audit 2026-12-05): a neuron with a
    non-zero bias has a column no other direction touches (its own bias), so its row is
    independent of the others and is counted at once; the rows left (zero biases) are ranked
    mod 2^31 − 1 (:func:`~algebra.linalg.gfp.rank_lower_bound`, a lower bound).

    >>> net = Network.from_rows([[[2], [1]], [[3, 1]]], [[1, 0], [0]])
    >>> _rescaling_rank(net), _rescaling_directions(net).rank()
    (2, 2)
    """
    from ..linalg.gfp import rank_lower_bound
    free, rest = 0, []
    for l in range(1, net.depth):
        bias = net.biases[l - 1]
        for i in range(net.widths[l]):
            if bias[i] != 0:
                free += 1
            else:
                rest.append((l, i))
    if not rest:
        return free
    D = _rescaling_directions(net)
    flat = [sum(net.widths[1:l]) + i for l, i in rest]
    return free + rank_lower_bound(QMatrix.from_rows([D.row_at(k) for k in flat], ncols=net.n_parameters))


def _rescaling_directions(net) -> QMatrix:
    """One row per hidden neuron: the velocity at θ of its positive rescaling (incoming weights
    and bias times t, outgoing weights divided by t, at t = 1: +incoming, −outgoing; S2).

    Every pattern's output polynomial f_p(θ, x) is invariant under these rescalings (each path
    through the neuron gets t · 1/t), so each row is orthogonal to every gradient field at θ:
    their rank is a certified *lower* bound of the fiber dimension N − rank(fields) (R22), for
    any set of samples.

    >>> net = Network.from_rows([[[2]], [[3]]], [[1], [0]])
    >>> _rescaling_directions(net)
    QMatrix([[2, 1, -3, 0]])
    """
    widths = net.widths
    offs = _offsets(widths)
    theta = net.parameters()
    rows = []
    for l in range(1, net.depth):
        wo, bo = offs[l - 1]
        wn, _ = offs[l]
        for i in range(widths[l]):
            v = [Q(0)] * net.n_parameters
            for j in range(widths[l - 1]):
                v[wo + i * widths[l - 1] + j] = theta[wo + i * widths[l - 1] + j]
            v[bo + i] = theta[bo + i]
            for k in range(widths[l + 1]):
                v[wn + k * widths[l] + i] = -theta[wn + k * widths[l] + i]
            rows.append(v)
    return QMatrix.from_rows(rows, ncols=net.n_parameters) if rows else \
        QMatrix.zeros(0, net.n_parameters)


class _ModFields:
    """The rows of :func:`_field_pieces` reduced mod a prime *p* < 2^21, computed by the same
    forward/backward pass on residues (numpy int64, exact: entries < 2^21, products < 2^42,
    sums of at most 2^21 of them).  Only ring operations are involved, and reduction mod p is a
    ring homomorphism on the rationals whose denominators p does not divide, so these are the
    residues of the exact rows (:func:`algebra.linalg.gfp.residues_array` of them) at a
    fraction of the cost (digits 64-32-10: 1.6 s of conversions a pattern).  Raises
    ``ZeroDivisionError`` (when made) if p divides a parameter's denominator.

    >>> net = Network.from_rows([[[2], ["1/3"]], [[3, -1]]], [[1, 0], [0]])
    >>> from algebra.linalg.gfp import residues_array
    >>> s = Sample((1, 1), None)
    >>> mod = [r.tolist() for r in _ModFields(net, 7).pieces(s)]
    >>> mod == [residues_array(_field_block(net, s), 7).tolist()]
    True
    """

    def __init__(self, net, p: int):
        import numpy as np
        from ..linalg.gfp import residues_array
        self.net, self.p, self.np = net, p, np
        self.W, self.b = [], []
        for l in range(net.depth):
            W, b = net.layer(l)
            self.W.append(residues_array(W, p))
            self.b.append(residues_array(QMatrix.from_rows([list(b)], ncols=W.nrows), p)[0])
        self.residues = residues_array

    def pieces(self, s: Sample):
        """One int64 array (rows x N, entries in [0, p)) per output, as :func:`_field_pieces`."""
        np, p = self.np, self.p
        widths, L = self.net.widths, self.net.depth
        D = [np.array(m, dtype=np.int64) for m in _masks(self.net, s.pattern)]
        pts = _points(self.net, s)
        X = self.residues(QMatrix.from_rows(pts, ncols=widths[0]), p)
        Hs, H = [X], X
        for l in range(L - 1):
            H = (H @ self.W[l].T + self.b[l]) % p * D[l]
            Hs.append(H)
        deltas = [None] * (L + 1)
        deltas[L] = np.eye(widths[L], dtype=np.int64)
        for l in range(L - 1, 0, -1):
            deltas[l] = (deltas[l + 1] @ self.W[l]) % p * D[l - 1]
        ns = X.shape[0]
        for o in range(widths[L]):
            parts = []
            for l in range(1, L + 1):
                dl = deltas[l][o]
                Hp = Hs[l - 1]
                parts.append((Hp[:, None, :] * dl[None, :, None]).reshape(ns, -1) % p)
                parts.append(np.tile(dl, (ns, 1)))
            yield np.hstack(parts)
