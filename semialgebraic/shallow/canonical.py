r"""One hidden layer: the canonical form of the realised function, on R^d and on the orthant.

Contents: the neuron classification (:func:`neuron_types`, :func:`hyperplane_key`,
:func:`is_switching_on_orthant`), :func:`canonical_form` and :class:`ShallowCanonicalForm`
(which satisfies :class:`semialgebraic.canonical.CanonicalForm`) with its representative
network.  The equivalence decision built on it is in :mod:`semialgebraic.shallow.equivalence`,
the symmetry paths of its certificates in :mod:`semialgebraic.shallow.paths`.  Neurons are
merged by hyperplane by :func:`algebra.symmetries.neurons.merge_by_hyperplane` (the one
implementation, shared with the symmetry steps).

A one-hidden-layer ReLU network computes ``f(x) = V σ(W x + b) + c`` (``W`` is n×d, ``V`` is
m×n).  Write ``w_i`` for row *i* of ``W``, ``V_i`` for column *i* of ``V`` and
``h_i(x) = w_i·x + b_i``.

**Canonical form on R^d** (skip-absorption §6, with biases; three-layer-fibers §3.3).  Two
identities suffice: ``σ(s) = s + σ(−s)`` and ``σ(λ s) = λ σ(s)`` for ``λ > 0``.

* ``w_i = 0``: the neuron is the constant ``V_i σ(b_i)``; it goes to the affine part.
* ``w_i ≠ 0``: put ``λ = lead(w_i)`` (first non-zero entry) and ``(u, β) = (w_i, b_i)/λ``, so that
  ``lead(u) = 1`` (no square roots).  If ``λ > 0``: ``V_i σ(h_i) = λ V_i σ(u·x + β)``.  If
  ``λ < 0``: ``V_i σ(h_i) = |λ| V_i σ(u·x + β) + V_i h_i(x)`` (the flip remainder goes to the
  affine part).  Either way the neuron adds the *kink vector* ``|λ| V_i`` to hyperplane ``(u, β)``.
* Kink vectors are summed per hyperplane; hyperplanes whose total is 0 are dropped.

The canonical form is the sorted tuple of ``((u, β), K)`` with ``K ≠ 0`` plus the affine part
``(A, c')``, so that ``f(x) = Σ_k K_k σ(u_k·x + β_k) + A x + c'``.

**Theorem.** Two one-hidden-layer nets compute the same function on R^d iff their canonical
forms are equal.

*Proof.* "If": each form is obtained by identities, so it computes the net's function.  "Only
if": let ``f = Σ_k K_k σ(h_k) + A x + c'`` with pairwise distinct normalised hyperplanes
``H_k`` (distinct ``(u_k, β_k)`` with ``lead(u_k) = 1`` are distinct hyperplanes) and
``K_k ≠ 0``.  Off ``∪ H_k`` the function is locally affine, hence differentiable.  On ``H_k``,
pick ``x0`` on no other ``H_j`` (``H_k ∩ H_j`` is a proper affine subspace of ``H_k`` or empty,
and finitely many cannot cover ``H_k``); near ``x0`` only the term ``K_k σ(h_k)`` is not affine,
and the Jacobian jumps by ``K_k u_kᵀ ≠ 0`` across ``H_k``: f is not differentiable there.  So the
non-differentiability set of f is exactly ``∪ H_k``; a finite union of hyperplanes determines
its hyperplanes (a hyperplane inside a finite union of hyperplanes is one of them), the
normalisation then determines ``(u_k, β_k)``, and the jump ``K_k u_kᵀ`` read at the
coordinate ``lead(u_k) = 1`` determines ``K_k``.  Then ``f − Σ K_k σ(h_k) = A x + c'`` determines
``(A, c')``.  ∎

**Orthant variant** (three-layer-fibers R2, R3, R7): the domain is the closed orthant
``z ≥ 0``.  A neuron with ``h ≤ 0`` on it (``w ≤ 0`` and ``b ≤ 0`` entrywise) is *dead* (0); with
``h ≥ 0`` on it (``w ≥ 0``, ``b ≥ 0``) it is *linear* and adds ``V_i h_i`` to the affine part;
otherwise ``h`` takes both signs on the *open* orthant (exactly: ``(b > 0 or some w_j > 0)`` and
``(b < 0 or some w_j < 0)``) and the neuron is *switching* with a kink as above.  A hyperplane
touching the orthant only in its boundary (``w = (1, 0), b = 0``) is linear, not a kink.  The
same proof on the open orthant (open, connected; each switching hyperplane meets it in an open
piece of the hyperplane) shows: two nets agree on the closed orthant iff their orthant forms are
equal (continuity extends equality from the open to the closed orthant).

>>> from algebra.network import Network
>>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])      # σ(x) + σ(1 - x)
>>> cf = canonical_form(a)
>>> cf.kinks
(((1,), -1, (1,)), ((1,), 0, (1,)))
>>> cf.linear, cf.offset
(QMatrix([[-1]]), (1,))
>>> b = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], [0]])
>>> canonical_form(b) == cf
True
>>> len(cf.fingerprint())
16
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

from algebra.linalg import IntegerImage, QMatrix
from algebra.network import Network, require_network
from algebra.rationals import Q, q_json, to_q
from algebra.symmetries.neurons import merge_by_hyperplane, probe_vector

from ..budget import checkpoint
from ..canonical import json_fingerprint
from ..exceptions import NotApplicableError

__all__ = ["ShallowCanonicalForm", "canonical_form", "neuron_types", "is_switching_on_orthant",
           "hyperplane_key", "raw_keys", "network_parts"]


# -- neuron classification ---------------------------------------------------------------------

def hyperplane_key(w: Sequence[Q], b: Q) -> tuple[tuple[Q, ...], Q, Q] | None:
    """``(u, β, λ)`` with ``(u, β) = (w, b)/λ`` and ``λ = lead(w)``; None when ``w = 0``.

    >>> hyperplane_key([0, -2, 4], 6)
    ((0, 1, -2), -3, -2)
    """
    lam = next((x for x in w if x != 0), None)
    if lam is None:
        return None
    inv = 1 / Q(lam)
    return tuple(Q(x) * inv for x in w), Q(b) * inv, Q(lam)


def is_switching_on_orthant(w: Sequence[Q], b: Q) -> bool:
    """True iff ``h(z) = w·z + b`` is positive somewhere and negative somewhere on the open
    orthant ``z > 0`` (exact sign test, three-layer-fibers R3).

    >>> is_switching_on_orthant([1, 0], 0), is_switching_on_orthant([1, -1], 0)
    (False, True)
    >>> is_switching_on_orthant([1, 2], -1), is_switching_on_orthant([-1, -2], 1)
    (True, True)
    """
    pos = b > 0 or any(x > 0 for x in w)
    neg = b < 0 or any(x < 0 for x in w)
    return pos and neg


def neuron_types(net: Network, *, orthant: bool = False) -> tuple[str, ...]:
    """Type of every hidden neuron of a one-hidden-layer net.

    On R^d: ``"zero"`` (zero output column), ``"constant"`` (zero input row), ``"kink"``.
    On the orthant: ``"zero"``, ``"dead"`` (``w ≤ 0, b ≤ 0``), ``"linear"`` (``w ≥ 0, b ≥ 0``),
    ``"switching"`` (R3; exact sign tests, zero entries handled).

    >>> net = Network.from_rows([[[1, 1], [-1, -1], [1, -1], [0, 0]], [[1, 1, 1, 0]]],
    ...                         [[1, 0, 0, 2], [0]])
    >>> neuron_types(net, orthant=True)
    ('linear', 'dead', 'switching', 'zero')
    >>> neuron_types(net)
    ('kink', 'kink', 'kink', 'zero')
    """
    W, b, V, _ = network_parts(net)
    rows, cols = W.to_rows(), V.T.to_rows()
    out = []
    for w, bi, v in zip(rows, b, cols):
        if all(x == 0 for x in v):
            out.append("zero")
        elif not orthant:
            out.append("constant" if all(x == 0 for x in w) else "kink")
        elif is_switching_on_orthant(w, bi):
            out.append("switching")
        elif bi <= 0 and all(x <= 0 for x in w):
            out.append("dead")
        else:
            out.append("linear")
    return tuple(out)


# -- canonical form ----------------------------------------------------------------------------

@dataclass(frozen=True)
class ShallowCanonicalForm:
    """Canonical form of the function of a one-hidden-layer net (see the module docstring).

    ``kinks``: sorted tuple of ``(u, β, K)`` (``u`` with ``lead(u) = 1``, ``K ≠ 0`` in Q^m);
    ``linear``: ``A`` (m×d QMatrix); ``offset``: ``c'``; ``domain``: ``"R^d"`` or ``"orthant"``.
    ``f(x) = Σ K σ(u·x + β) + A x + c'`` on the domain.
    """

    n_inputs: int
    n_outputs: int
    domain: str
    kinks: tuple[tuple[tuple[Q, ...], Q, tuple[Q, ...]], ...]
    linear: QMatrix
    offset: tuple[Q, ...]

    @property
    def number_of_kinks(self) -> int:
        return len(self.kinks)

    def to_json(self) -> dict:
        """The form as JSON data (each normal converted from one integer export of the row,
        :func:`_row_json`; a 784-4096 form has 3.2 M numbers)."""
        return {"domain": self.domain, "n_inputs": self.n_inputs, "n_outputs": self.n_outputs,
                "kinks": [{"normal": _row_json(u), "offset": q_json(beta),
                           "kink": [q_json(x) for x in K]} for u, beta, K in self.kinks],
                "linear": _matrix_json(self.linear), "bias": [q_json(x) for x in self.offset]}

    def fingerprint(self) -> str:
        """First 16 hex digits of the SHA-256 of the canonical JSON (stable across runs)."""
        return self._fingerprint

    @cached_property
    def _fingerprint(self) -> str:
        return json_fingerprint(self.to_json())

    def __call__(self, x: Sequence[object]) -> tuple[Q, ...]:
        """Exact value ``Σ K σ(u·x + β) + A x + c'`` (equals the net on its domain)."""
        x = [to_q(v) for v in x]
        out = [a + c for a, c in zip(self.linear.apply(x), self.offset)]
        if self.kinks:
            U, betas, Kt = self._matrices
            h = [max(p + q, Q(0)) for p, q in zip(U.apply(x), betas)]
            out = [o + k for o, k in zip(out, Kt.apply(h))]
        return tuple(out)

    @cached_property
    def _matrices(self):
        U = QMatrix.from_rows([u for u, _, _ in self.kinks], ncols=self.n_inputs)
        Kt = QMatrix.from_rows([K for _, _, K in self.kinks], ncols=self.n_outputs).T
        return U, [beta for _, beta, _ in self.kinks], Kt

    def representative(self) -> Network:
        """The canonical representative network (one neuron per kink, then the affine part).

        R^d: ``A = C R`` (``R`` the non-zero rows of rref(A), ``C = A[:, pivots]``), each rank-one
        term ``C_r R_r x`` carried by the antiparallel pair ``(R_r, 0; C_r)``, ``(−R_r, 0; −C_r)``.
        Orthant: ``R_r = p − q`` with ``p, q ≥ 0``, carried by the linear neurons
        ``(p, 0; C_r)`` and ``(q, 0; −C_r)`` (linear on the orthant).  A net with nothing to carry
        gets one zero neuron (widths are ≥ 1).
        """
        rows, outs = [], []
        for u, beta, K in self.kinks:
            rows.append((list(u), beta))
            outs.append(list(K))
        for w, bb, v in _affine_neurons(self.linear, orthant=self.domain == "orthant"):
            rows.append((w, bb))
            outs.append(v)
        if not rows:
            rows.append(([Q(0)] * self.n_inputs, Q(0)))
            outs.append([Q(0)] * self.n_outputs)
        return _build(rows, outs, self.offset, self.n_inputs, self.n_outputs)

    def summary(self) -> str:
        return (f"{self.number_of_kinks} kink hyperplane(s), affine part of rank "
                f"{self.linear.rank()} on {self.domain}; fingerprint {self.fingerprint()}")


def canonical_form(net: Network, *, orthant: bool = False) -> ShallowCanonicalForm:
    """Canonical form of a one-hidden-layer net on R^d, or on the closed orthant.

    Any rational weights are accepted (zero rows, zero output columns, parallel, antiparallel
    and duplicated neurons).  Two nets have equal forms iff they compute the same function on
    the domain (module docstring).

    Parameters
    ----------
    net : Network
        A network with exactly one hidden layer.
    orthant : bool
        The closed orthant ``x ≥ 0`` as domain instead of R^d (three-layer-fibers R2, R3).

    Returns
    -------
    ShallowCanonicalForm
        The kinks per hyperplane and the affine part; ``==`` decides equality of the functions.

    Raises
    ------
    NotApplicableError
        If *net* does not have exactly one hidden layer.

    Examples
    --------
    >>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, -1], [0]])
    >>> canonical_form(net, orthant=True).kinks       # x1 = 0 is a facet: linear on the orthant
    (((0, 1), -1, (1,)),)
    >>> canonical_form(net).kinks
    (((0, 1), -1, (1,)), ((1, 0), 0, (1,)))
    """
    W, b, V, c = network_parts(net)
    d, m = net.n_inputs, net.n_outputs
    flat = W.entries()                    # one bulk export; rows are slices of it (no per-row lists)
    cols = V.T.to_rows()
    probe, probe0 = probe_vector(d)
    img = IntegerImage(W)                 # W = N / D once, shared by the two products below
    checkpoint()                          # (between the steps: a budget check, when one is
    proj = img.apply(probe)               # active; 768-3072: 6 s in all) exact W r: one FLINT
    keys = [p + bi * probe0 for p, bi in zip(proj, b)]        # product, keys for grouping
    checkpoint()
    neurons = ((flat[i * d:(i + 1) * d], bi, v) for i, (bi, v) in enumerate(zip(b, cols)))
    merged, full, const = merge_by_hyperplane(neurons, m, orthant=orthant, keys=keys)
    checkpoint()
    offset = [o + x for o, x in zip(c, const)]
    zero = Q(0)
    if full:
        mask = set(full)
        Vf = QMatrix.from_rows([[x if j in mask else zero for j, x in enumerate(r)]
                                for r in V.to_rows()], ncols=V.ncols)
        A = img.left(Vf)                                # = Vf @ W
        offset = [o + x for o, x in zip(offset, Vf.apply(list(b)))]
    else:
        A = QMatrix.zeros(m, d)
    kinks = tuple(sorted((u, beta, tuple(K)) for u, beta, K in merged if any(K)))
    return ShallowCanonicalForm(d, m, "orthant" if orthant else "R^d", kinks, A, tuple(offset))


def raw_keys(net: Network) -> list:
    """``w_i·r + b_i r0`` for every hidden neuron (one exact FLINT product; ``(r, r0)`` from
    :func:`algebra.symmetries.neurons.probe_vector`): divided by ``lead(w_i)``, equal
    hyperplanes get equal keys."""
    W, b = net.layer(0)
    probe, p0 = probe_vector(net.n_inputs)
    return [p + bi * p0 for p, bi in zip(W.apply(probe), b)]


# -- private helpers ---------------------------------------------------------------------------

def network_parts(net: Network):
    """``(W, b, V, c)`` of a one-hidden-layer network; NotApplicableError for other depths."""
    require_network(net, "the shallow canonical form")
    if net.depth != 2:
        raise NotApplicableError("shallow", f"needs exactly one hidden layer, got {net.depth - 1}")
    (W, b), (V, c) = net.layer(0), net.layer(1)
    return W, b, V, c


def _row_json(u) -> list:
    """``[q_json(x) for x in u]``, ~2× faster from one integer export of the row."""
    return _matrix_json(QMatrix.row(u))[0]


def _matrix_json(M: QMatrix) -> list:
    """:meth:`QMatrix.to_json`, or entry by entry with :func:`q_json` when a number has more
    digits than Python's int-to-text limit (``QMatrix.to_json`` raises ValueError there; q_json
    writes such numbers through FLINT)."""
    try:
        return M.to_json()
    except ValueError:
        return [[q_json(x) for x in row] for row in M.to_rows()]


def _build(rows, outs, offset, d, m) -> Network:
    W = QMatrix.from_rows([list(w) for w, _ in rows], ncols=d)
    bvec = [bb for _, bb in rows]
    V = QMatrix.from_rows(outs, ncols=m).T if outs else QMatrix.from_rows([[]] * m)
    return Network([W, V], [bvec, list(offset)])


def _affine_neurons(A: QMatrix, *, orthant: bool):
    """Neurons ``(w, b, v)`` carrying ``x ↦ A x`` (R^d pairs, or orthant linear neurons)."""
    if A.is_zero():
        return []
    R, piv = A.rref()
    C = A.submatrix(cols=piv)
    out = []
    for r in range(len(piv)):
        g = list(R.row_at(r))
        h = list(C.col_at(r))
        if not orthant:
            out.append((g, Q(0), h))
            out.append(([-x for x in g], Q(0), [-x for x in h]))
        else:
            p = [x if x > 0 else Q(0) for x in g]
            q = [-x if x < 0 else Q(0) for x in g]
            if any(x != 0 for x in p):
                out.append((p, Q(0), h))
            if any(x != 0 for x in q):
                out.append((q, Q(0), [-x for x in h]))
    return out
