"""Neuron access for the one-hidden-layer symmetry steps, and their shared private helpers.

Hidden layer ``layer`` of a network is read as neurons ``(w_i, b_i; v_i)`` (incoming row, bias,
outgoing column) plus the next layer's bias ``c`` (:func:`hidden_neurons`) and written back
(:func:`with_hidden_neurons`); rows dead or linear on the closed orthant (three-layer-fibers
R3, R10, R11) and the affine map of a set of neurons whose kinks cancel
(:func:`affine_contribution`) are what the steps of :mod:`algebra.symmetries`
check.  The private helpers (layer and orthant-hypothesis checks, JSON field readers, sums of
affine contributions) are shared by those steps.
"""

from __future__ import annotations

import math

from ..exceptions import InputError
from ..io.native import parse_number
from ..linalg import QMatrix
from ..network import Network, guard_conversion
from ..rationals import Q, to_q

__all__ = ["hidden_neurons", "with_hidden_neurons", "affine_contribution", "affine_parts",
           "same_linear_part", "merge_by_hyperplane",
           "probe_vector", "is_dead_row", "is_linear_row"]

ZERO = Q(0)


def hidden_neurons(net: Network, layer: int):
    """``([(w, b, v), …], c)`` for hidden layer *layer*: rows, biases, outgoing columns, and
    the next layer's bias ``c`` (a fresh list; memoised on the immutable network up to
    :data:`MEMO_MAX_PARAMETERS` parameters, since a path checks and applies each step on the
    same network)."""
    if net.n_parameters > MEMO_MAX_PARAMETERS:     # large nets: memory over speed
        neurons, c = _hidden_neurons(net, layer)
    else:
        neurons, c = net.derived(("hidden_neurons", layer), lambda: _hidden_neurons(net, layer))
    return list(neurons), c


MEMO_MAX_PARAMETERS = 500_000
"""Networks with more parameters do not keep their neuron lists (a copy of the weights)."""


def _hidden_neurons(net: Network, layer: int):
    _check_layer(net, layer)
    W, b = net.layer(layer)
    V, c = net.layer(layer + 1)
    # (rows of Python rationals: 16.7 M of a 4096 x 4096 layer took 2.3 s past identify's
    # --timeout, s49 huge audit F10; first costed like a conversion)
    guard_conversion(W.nrows * W.ncols + V.nrows * V.ncols, f"hidden layer {layer + 1}'s neurons as rows")
    rows = [tuple(r) for r in W.to_rows()]
    cols = [tuple(r) for r in V.T.to_rows()] if V.ncols else []
    return [(w, bi, v) for w, bi, v in zip(rows, b, cols)], tuple(c)


def with_hidden_neurons(net: Network, layer: int, neurons, c) -> Network:
    """A copy of *net* whose hidden layer *layer* is *neurons* (``(w, b, v)`` triples) and whose
    next bias is *c* (the width may change)."""
    W, _ = net.layer(layer)
    V, _ = net.layer(layer + 1)
    d, m = W.ncols, V.nrows
    Wn = QMatrix.from_rows([list(w) for w, _, _ in neurons], ncols=d)
    Vn = QMatrix.from_rows([list(v) for _, _, v in neurons], ncols=m).T if neurons \
        else QMatrix.from_rows([[]] * m)
    ws, bs = list(net.weights), list(net.biases)
    ws[layer], bs[layer] = Wn, tuple(bb for _, bb, _ in neurons)
    ws[layer + 1], bs[layer + 1] = Vn, tuple(c)
    return Network(ws, bs)


def is_dead_row(w, b) -> bool:
    """``w·z + b ≤ 0`` on the closed orthant: ``w ≤ 0`` and ``b ≤ 0`` entrywise."""
    return b <= 0 and all(x <= 0 for x in w)


def is_linear_row(w, b) -> bool:
    """``w·z + b ≥ 0`` on the closed orthant: ``w ≥ 0`` and ``b ≥ 0`` entrywise."""
    return b >= 0 and all(x >= 0 for x in w)


def probe_vector(d: int) -> tuple[list[Q], Q]:
    """Fixed positive integers ``r`` (length *d*) and ``r0``: the grouping key of a neuron
    ``(w, b)`` is ``(w·r + b r0) / lead(w)`` (equal hyperplanes have equal keys; a bucket of
    equal keys is checked exactly, so a collision costs time, never correctness).

    >>> probe_vector(2)
    ([12346, 440145], 867944)
    """
    vals = [Q((j * 2654435761 + 12345) % 1000003 + 1) for j in range(d + 1)]
    return vals[:d], vals[d]


def merge_by_hyperplane(neurons, m: int, *, orthant: bool = False, keys=None):
    """Merge one-hidden-layer neurons ``(w, b, v)`` by the hyperplane ``w·x + b = 0`` they kink on.

    The one implementation of neuron merging (the canonical form of
    :mod:`semialgebraic.shallow` and :func:`affine_contribution` both call it), by the identities
    ``σ(λ s) = λ σ(s)`` (λ > 0) and ``σ(s) = s + σ(−s)``: with ``λ = lead(w)`` and
    ``(u, β) = (w, b)/λ``, a neuron adds the kink vector ``|λ| v`` to hyperplane ``(u, β)``, and
    when ``λ < 0`` its whole affine map ``v (w·x + b)`` to the affine part.  Zero-output neurons
    are skipped; a constant neuron (``w = 0``) adds ``v σ(b)`` to the constant.  On the orthant
    (``orthant=True``, three-layer-fibers R3) a neuron that does not switch sign on the open
    orthant is dead (skipped) or linear (its whole affine map goes to the affine part).

    Parameters
    ----------
    neurons : iterable of (w, b, v)
        Incoming row, bias and outgoing column of each hidden neuron (exact rationals).
    m : int
        Number of outputs (length of every ``v``).
    orthant : bool
        Classify on the closed orthant instead of R^d.
    keys : sequence of Q, optional
        ``w_i·r + b_i r0`` for every neuron (:func:`probe_vector`), when the caller computed them
        in one product; computed here otherwise.

    Returns
    -------
    (kinks, full, constant)
        ``kinks``: a list of ``[u, β, K]`` (``K`` a list, possibly zero: kinks that cancel),
        one per hyperplane met, in order of first appearance; ``full``: the indices of the neurons
        whose whole affine map goes to the affine part; ``constant``: ``Σ v σ(b)`` over the
        constant neurons (a list of length *m*).

    >>> kinks, full, const = merge_by_hyperplane([((2,), 2, (1,)), ((-1,), -1, (1,))], 1)
    >>> kinks, full, const
    ([[(1,), 1, [3]]], [1], [0])
    """
    probe = None
    constant = [ZERO] * m
    full: list[int] = []
    buckets: dict = {}                              # key -> [[u, beta, K], ...] (collisions)
    kinks: list = []
    for i, (w, b, v) in enumerate(neurons):
        if not any(v):
            continue
        if orthant and not _switching(w, b):
            if is_linear_row(w, b):
                full.append(i)                      # linear on the orthant
            continue                                # dead: contributes 0
        lam = w[0] if w and w[0] else next((x for x in w if x != 0), None)
        if lam is None:                             # constant neuron v σ(b)
            if b > 0:
                constant = [c + x * b for c, x in zip(constant, v)]
            continue
        if lam < 0:
            full.append(i)                          # σ(h) = σ(−h) + h
        if not isinstance(lam, Q):
            lam = Q(lam)
        s = abs(lam)
        inv = 1 / lam
        if keys is not None:
            raw = keys[i]
        else:
            if probe is None:
                probe = probe_vector(len(w))
            raw = sum((x * r for x, r in zip(w, probe[0])), ZERO) + b * probe[1]
        key = raw * inv                             # equal hyperplanes => equal keys
        beta = b * inv
        bucket = buckets.setdefault(key, [])
        for entry in bucket:                        # exact check inside a bucket
            if entry[1] == beta and all(x == y * lam for x, y in zip(w, entry[0])):
                entry[2] = [a + x * s for a, x in zip(entry[2], v)]
                break
        else:
            u = tuple(w) if lam == 1 else tuple(map(inv.__mul__, w))
            entry = [u, beta, list(map(s.__mul__, v))]
            bucket.append(entry)
            kinks.append(entry)
    return kinks, full, constant


def affine_contribution(neurons, *, orthant: bool = False):
    """``(A, c)`` with ``Σ v σ(w·z + b) = A z + c`` when the neurons' kinks cancel on every
    hyperplane (on R^d, or on the orthant with R3's classification), else None.

    >>> affine_contribution([((1,), 0, (1,)), ((-1,), 0, (-1,))])        # σ(x) − σ(−x) = x
    (((1,),), (0,))
    >>> affine_contribution([((1,), 0, (1,))]) is None
    True
    >>> affine_contribution([((1,), 0, (1,))], orthant=True)
    (((1,),), (0,))
    """
    if not neurons:
        return (), ()
    d, m = len(neurons[0][0]), len(neurons[0][2])
    parts = affine_parts(neurons, orthant=orthant)
    if parts is None:
        return None
    full, c = parts
    if full:
        Vt = QMatrix.from_rows([v for _, _, v in full], ncols=m)
        A = _product_in_blocks(Vt.T, QMatrix.from_rows([w for w, _, _ in full], ncols=d))
        c = [ci + x for ci, x in zip(c, Vt.T.apply([b for _, b, _ in full]))]
    else:
        A = tuple((ZERO,) * d for _ in range(m))
    return A, tuple(c)


def affine_parts(neurons, *, orthant: bool = False):
    """``(full, c)`` when the neurons' kinks cancel on every hyperplane: their affine map is
    ``Σ_{(w, b, v) in full} v (w·z + b) + c`` (*full*: the neurons whose whole affine map it
    carries, a list of ``(w, b, v)``; *c*: the constants of the others), else None (the
    building block of :func:`affine_contribution`, without forming the linear part).

    >>> affine_parts([((1,), 0, (1,)), ((-1,), 0, (-1,))])
    ([((-1,), 0, (-1,))], [0])
    """
    if not neurons:
        return [], []
    m = len(neurons[0][2])
    kinks, full_idx, c = merge_by_hyperplane(neurons, m, orthant=orthant)
    if any(x != 0 for _, _, K in kinks for x in K):
        return None
    return [neurons[i] for i in full_idx], list(c)


def same_linear_part(full_a, full_b, d: int, m: int) -> bool:
    """Whether ``Σ_{full_a} v wᵀ = Σ_{full_b} v wᵀ`` (m x d), exactly: ``[V_a | −V_b] [W_a; W_b]
    = 0`` by :func:`algebra.linalg.gfp.product_is_zero` (exact modular products bounded by the
    Chinese remainder theorem; a 256-1024-256 network's linear refactor took minutes over Q).

    >>> same_linear_part([((1, 2), 0, (3,))], [((3, 6), 5, (1,))], 2, 1)
    True
    >>> same_linear_part([((1, 2), 0, (3,))], [((3, 6), 5, (2,))], 2, 1)
    False
    """
    from ..linalg.gfp import PRODUCT_PRIMES_MAX, _cleared_bits, product_is_zero
    terms = [(w, v) for w, _, v in full_a] + [(w, tuple(-x for x in v)) for w, _, v in full_b]
    if not terms:
        return True
    # each term v wᵀ as (v / r)(r w)ᵀ, r the lcm of w's denominators: a canonical form's rows
    # (w over its leading entry) and outputs (v times it) have large denominators whose
    # products cancel; the integer bound of product_is_zero then stays small
    vs, ws = [], []
    for w, v in terms:
        w, v = [to_q(x) for x in w], [to_q(x) for x in v]
        r = _lcm_den(w)
        v2 = [x / r for x in v]
        if r != 1 and (_lcm_den(v2) - 1).bit_length() < (_lcm_den(v) - 1).bit_length() + (r - 1).bit_length():
            w, v = [x * r for x in w], v2      # (only when it shortens the term's denominators:
        ws.append(w)                            # rows over distinct primes with integral outputs
        vs.append(v)                            # would only move them; s40 forge audit F4)
    V = QMatrix.from_rows(vs, ncols=m)
    W = QMatrix.from_rows(ws, ncols=d)
    cap = PRODUCT_PRIMES_MAX * 60
    if _cleared_bits(V, cap) is not None and _cleared_bits(W, cap) is not None:
        return product_is_zero(V.T, W)
    # denominators too diverse for the modular test (rows over distinct primes): the two linear
    # parts over Q, each its own product in blocks of rows, as before session 40 (one stacked
    # product let FLINT clear a common denominator per row: 1.3 GB on a 200 x 3 600 refactor)
    k = len(full_a)
    Va, Vb = QMatrix.from_rows(vs[:k], ncols=m), QMatrix.from_rows(vs[k:], ncols=m)
    Wa, Wb = QMatrix.from_rows(ws[:k], ncols=d), QMatrix.from_rows(ws[k:], ncols=d)
    A = _product_in_blocks(Va.T, Wa) if k else ((ZERO,) * d,) * m
    B = _product_in_blocks(Vb.T, Wb) if len(vs) > k else ((ZERO,) * d,) * m
    return all(x == -y for ra, rb in zip(A, B) for x, y in zip(ra, rb))


# -- private helpers ------------------------------------------------------------------------------

def _lcm_den(xs) -> int:
    """The lcm of the denominators of the rationals *xs*."""
    r = 1
    for x in xs:
        if x.q != 1:
            r = math.lcm(r, int(x.q))
    return r


PRODUCT_BLOCK = 2_000_000
"""Multiply-adds per FLINT product in :func:`_product_in_blocks` (FLINT does not see signals:
one 256 x 2048 by 2048 x 256 product of a 256-1024-256 canonical path's linear refactor held a
checker past its budget for 10-30 s; session 40 equivbig audit F2)."""


def _product_in_blocks(L: QMatrix, R: QMatrix) -> tuple:
    """The rows of ``L @ R`` as tuples, computed a block of rows of *L* at a time (so that an
    alarm, Ctrl-C or a budget stops it between blocks)."""
    per_row = max(1, L.ncols * R.ncols)
    step = max(1, PRODUCT_BLOCK // per_row)
    if L.nrows <= step:
        return (L @ R).to_tuples()
    rows = L.to_rows()
    out: list = []
    for k in range(0, len(rows), step):
        out.extend((QMatrix.from_rows(rows[k:k + step], ncols=L.ncols) @ R).to_tuples())
    return tuple(out)

def _check_layer(net, layer):
    if not 0 <= layer < net.depth - 1:
        raise InputError(f"hidden layer {layer} does not exist (the network has "
                         f"{net.depth - 1} hidden layers)")


def _layer_ok(net, layer):
    if not 0 <= layer < net.depth - 1:
        return False, f"hidden layer {layer} does not exist ({net.depth - 1} hidden layers)"
    return True, ""


def _orthant_ok(net, layer, domain):
    ok, why = _layer_ok(net, layer)
    if not ok:
        return ok, why
    if layer >= 1:
        return True, "the layer's input is a ReLU output, hence in the closed orthant"
    if domain == "orthant":
        return True, "domain declared: the closed orthant"
    return False, ("orthant hypothesis fails: layer 0 sees all of R^d (declare domain 'orthant' "
                   "to claim equality on the orthant only)")


def _removable(net, layer, neuron, domain):
    w, b, v = neuron
    if all(x == 0 for x in v):
        return True, "zero output column"
    if all(x == 0 for x in w):
        return True, "zero input row: the constant v σ(b) moves into the next bias"
    if is_dead_row(w, b):
        ok, why = _orthant_ok(net, layer, domain)
        if ok:
            return True, f"dead on the orthant ({why})"
        return False, f"the neuron is dead on the orthant only, but {why}"
    return False, "the neuron has a non-zero output, a non-zero row and is not dead"


def _switching(w, b):
    return (b > 0 or any(x > 0 for x in w)) and (b < 0 or any(x < 0 for x in w))


def _sum_affine(neurons, d, m):
    if not neurons:
        return [[ZERO] * d for _ in range(m)], [ZERO] * m
    Vt = QMatrix.from_rows([v for _, _, v in neurons], ncols=m)
    A = (Vt.T @ QMatrix.from_rows([w for w, _, _ in neurons], ncols=d)).to_rows()
    return A, list(Vt.T.apply([b for _, b, _ in neurons]))


def _km(K, M, t, v):
    s = abs(t)
    K = [a + s * x for a, x in zip(K, v)]
    if t < 0:
        M = [a + s * x for a, x in zip(M, v)]
    return K, M


def _flat(net, l, kind, i, j=None):
    off = 0
    for k in range(l):
        W = net.weights[k]
        off += W.nrows * (W.ncols + 1)
    W = net.weights[l]
    if kind == "W":
        return off + i * W.ncols + j
    return off + W.nrows * W.ncols + i


def _int(data, key):
    if not isinstance(data, dict) or key not in data:
        raise InputError(f"step lacks {key!r}")
    x = data[key]
    if isinstance(x, bool) or not isinstance(x, int):
        raise InputError(f"step field {key!r} must be an integer")
    return x


def _ints(data, key):
    x = data.get(key) if isinstance(data, dict) else None
    if not isinstance(x, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in x):
        raise InputError(f"step field {key!r} must be a list of integers")
    return x


def _num(data, key):
    if not isinstance(data, dict) or key not in data:
        raise InputError(f"step lacks {key!r}")
    return parse_number(data[key], f"step field {key}")


def _nums(data, key):
    x = data.get(key) if isinstance(data, dict) else None
    if not isinstance(x, list):
        raise InputError(f"step field {key!r} must be a list of numbers")
    return [parse_number(v, f"step field {key}") for v in x]


def _domain(data):
    dom = data.get("domain")
    if dom not in (None, "orthant"):
        raise InputError(f"step domain must be null or 'orthant', got {dom!r}")
    return dom
