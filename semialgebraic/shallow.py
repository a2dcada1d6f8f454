r"""One hidden layer: canonical form and exact equivalence with certificates.

Contents: :func:`canonical_form` (R^d and orthant) and :class:`CanonicalForm`;
:func:`equivalent_shallow` (symmetry-path or counterexample certificates, :func:`symmetry_path`,
:func:`separating_point`; networks whose parameters are all float32 values are decided by the
exact float64 arithmetic of :mod:`semialgebraic.shallow_dyadic`).  Fibers, κ₊ (R6) and the
``netfibers analyze`` report of one-hidden-layer nets are in :mod:`semialgebraic.shallow_fiber`.

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

import hashlib
import json
import random
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

from algebra.kernel import network_digest
from algebra.linalg import IntegerImage, QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q
from algebra.symmetries import path_to_json
from algebra.symmetries.elementary import Permute, Scale
from algebra.symmetries.moves import LinearRefactor, Regroup
from algebra.symmetries.neurons import hidden_neurons

from .certificates import counterexample_certificate, symmetry_path_certificate
from .exceptions import CertificateError, NotApplicableError
from .shallow_dyadic import compare_float32
from .verdict import Hypothesis, Verdict
from .verify import verify as _verify

__all__ = ["CanonicalForm", "canonical_form", "equivalent_shallow", "symmetry_path",
           "separating_point", "point_on_hyperplane", "neuron_types", "is_switching_on_orthant",
           "hyperplane_key"]


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
    W, b, V, _ = _parts(net)
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
class CanonicalForm:
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
        return {"domain": self.domain, "n_inputs": self.n_inputs, "n_outputs": self.n_outputs,
                "kinks": [{"normal": [q_json(x) for x in u], "offset": q_json(beta),
                           "kink": [q_json(x) for x in K]} for u, beta, K in self.kinks],
                "linear": self.linear.to_json(), "bias": [q_json(x) for x in self.offset]}

    def fingerprint(self) -> str:
        """First 16 hex digits of the SHA-256 of the canonical JSON (stable across runs)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

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


def canonical_form(net: Network, *, orthant: bool = False) -> CanonicalForm:
    """Canonical form of a one-hidden-layer net on R^d, or on the closed orthant.

    Any rational weights are accepted (zero rows, zero output columns, parallel, antiparallel
    and duplicated neurons).  Two nets have equal forms iff they compute the same function on
    the domain (module docstring).

    Raises
    ------
    NotApplicableError
        If *net* does not have exactly one hidden layer.

    >>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, -1], [0]])
    >>> canonical_form(net, orthant=True).kinks       # x1 = 0 is a facet: linear on the orthant
    (((0, 1), -1, (1,)),)
    >>> canonical_form(net).kinks
    (((0, 1), -1, (1,)), ((1, 0), 0, (1,)))
    """
    W, b, V, c = _parts(net)
    d, m = net.n_inputs, net.n_outputs
    flat = W.entries()                    # one bulk export; rows are slices of it (no per-row lists)
    cols = V.T.to_rows()
    probe, probe0 = _probe(d)
    img = IntegerImage(W)                 # W = N / D once, shared by the two products below
    proj = img.apply(probe)               # exact W r: one FLINT product, keys for grouping
    buckets: dict[Q, list] = {}           # key -> [[u, beta, K], ...] (a list: collisions)
    full: list[int] = []                  # neurons whose whole affine map h_i goes to the affine part
    offset = list(c)
    zero = Q(0)
    for i, (bi, v) in enumerate(zip(b, cols)):
        if not any(v):
            continue
        start = i * d
        w = flat[start:start + d]
        if orthant and not is_switching_on_orthant(w, bi):
            if bi >= 0 and all(x >= 0 for x in w):
                full.append(i)                          # linear on the orthant
            continue                                    # dead: contributes 0
        lam = w[0] if w and w[0] else next((x for x in w if x != 0), None)
        if lam is None:                                 # constant neuron V σ(b)
            if bi > 0:
                offset = [o + x * bi for o, x in zip(offset, v)]
            continue
        if lam < 0:
            full.append(i)                              # σ(h) = σ(−h) + h
        s = abs(lam)
        inv = 1 / lam
        key = (proj[i] + bi * probe0) * inv             # equal hyperplanes => equal keys
        beta = bi * inv
        bucket = buckets.setdefault(key, [])
        for entry in bucket:                            # exact check inside a bucket
            if entry[1] == beta and all(x == y * lam for x, y in zip(w, entry[0])):
                entry[2] = [a + x * s for a, x in zip(entry[2], v)]
                break
        else:
            u = tuple(w) if lam == 1 else tuple(map(inv.__mul__, w))
            bucket.append([u, beta, list(map(s.__mul__, v))])
    if full:
        mask = set(full)
        Vf = QMatrix.from_rows([[x if j in mask else zero for j, x in enumerate(r)]
                                for r in V.to_rows()], ncols=V.ncols)
        A = img.left(Vf)                                # = Vf @ W
        offset = [o + x for o, x in zip(offset, Vf.apply(list(b)))]
    else:
        A = QMatrix.zeros(m, d)
    kinks = tuple(sorted((u, beta, tuple(K)) for bucket in buckets.values()
                         for u, beta, K in bucket if any(K)))
    return CanonicalForm(d, m, "orthant" if orthant else "R^d", kinks, A, tuple(offset))


def _probe(d: int):
    """Fixed positive integers ``r`` (length d) and ``r0``: grouping keys ``(w·r + b r0)/lead(w)``
    (equal hyperplanes have equal keys; buckets are checked exactly)."""
    vals = [Q((j * 2654435761 + 12345) % 1000003 + 1) for j in range(d + 1)]
    return vals[:d], vals[d]


# -- equivalence with certificates -------------------------------------------------------------

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

    >>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> b = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], [0]])
    >>> v = equivalent_shallow(a, b)
    >>> v.answer, v.certificate["type"]
    (True, 'symmetry_path')
    >>> w = equivalent_shallow(a, b.with_parameter("b2[0]", "1/1000000"))
    >>> w.answer, w.certificate["type"]
    (False, 'counterexample')
    """
    v = _equivalent_shallow(a, b, orthant, certify)
    if verify and v.certificate is not None:
        ok, why = _verify(v.certificate)
        if not ok:
            raise CertificateError(v.certificate["type"], why)
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
        fast = _float32_decision(a, b, hyps, certify)
        if fast is not None:
            return fast
    ca, cb = canonical_form(a, orthant=orthant), canonical_form(b, orthant=orthant)
    details = {}
    if ca == cb:
        cert = symmetry_path(a, b, orthant=orthant, forms=(ca, cb)) if certify else None
        return Verdict(True, method, "canonical forms are equal", tuple(hyps), cert, details)
    x = separating_point(ca, cb, nets=(a, b))
    details["point"] = x
    cert = (counterexample_certificate(a, b, x, domain={"orthant": True} if orthant else None)
            if certify else None)
    return Verdict(False, method, "canonical forms differ; the point separates the functions",
                   tuple(hyps), cert, details)


def _float32_decision(a: Network, b: Network, hyps: list, certify: bool) -> Verdict | None:
    """The decision of :mod:`semialgebraic.shallow_dyadic` (exact float64 arithmetic for float32
    parameters), as a verdict; None when its hypotheses fail or its separating candidates do not
    separate (then the FLINT canonical forms decide)."""
    r = compare_float32(a, b)
    if r.answer is None:
        return None
    method = "shallow-canonical"
    hyps = hyps + list(r.hypotheses)
    details = {"float32_path": r.details}
    if r.answer:
        cert = symmetry_path(a, b) if certify else None
        return Verdict(True, method, r.reason, tuple(hyps), cert, details)
    for x, fa, fb in _sparse_candidates(a, b, r.hyperplane):
        if fa != fb:                                      # exact values at x: the claim holds
            details["point"] = x
            cert = counterexample_certificate(a, b, x) if certify else None
            return Verdict(False, method, r.reason + "; the point separates the functions",
                           tuple(hyps), cert, details)
    return None  # pragma: no cover - the module docstring proves one candidate separates


def _sparse_candidates(a: Network, b: Network, hyperplane):
    """Exact candidate points ``x`` with few non-zero coordinates, and ``a(x)``, ``b(x)``
    (evaluated exactly from the few weight columns they touch).

    For a hyperplane ``H = (u, β)`` whose kinks differ (``u_j = 1`` at its lead coordinate j):
    ``x0 = r e_k − (β + u_k r) e_j`` lies on H; when no other neuron hyperplane of a or b passes
    through x0, ``x± = x0 ± ε e_j`` with ε below every other hyperplane's distance along e_j
    gives ``D(x+) + D(x−) − 2 D(x0) = ε ΔK ≠ 0`` for ``D = a − b`` (:func:`separating_point`), so
    one of the three separates.  Then ``0`` and the unit vectors (enough when only the affine
    parts differ)."""
    d = a.n_inputs
    cols = {}

    def column(net, i, j):
        key = (i, j)
        if key not in cols:
            cols[key] = net.weights[0].col_at(j)
        return cols[key]

    def hidden(net, i, x):                      # exact W x + b for a sparse x (dict j -> value)
        h = list(net.biases[0])
        for j, xj in x.items():
            if xj:
                h = [hv + w * xj for hv, w in zip(h, column(net, i, j))]
        return h

    def output(net, h):
        return net.weights[1].apply([v if v > 0 else Q(0) for v in h])

    def point(x):
        return tuple(x.get(j, Q(0)) for j in range(d))

    def value(net, i, x):
        return tuple(o + c for o, c in zip(output(net, hidden(net, i, x)), net.biases[1]))

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
            eps, ok = Q(1), True
            for i, net in enumerate((a, b)):
                W, bias = net.layer(0)
                for row, (hv, wj) in enumerate(zip(hidden(net, i, x0), column(net, i, j))):
                    if wj == 0:          # h is constant along e_j: never crossed (σ(0) = 0 if h = 0)
                        continue
                    if hv == 0:          # only neurons on H itself may kink at x0 along e_j
                        if bias[row] != wj * beta or any(
                                w != wj * uu for w, uu in zip(W.row_at(row), u)):
                            ok = False
                            break
                    else:
                        eps = min(eps, abs(hv) / abs(wj) / 2)
                if not ok:
                    break
            if not ok:
                continue
            xp, xm = dict(x0), dict(x0)
            xp[j] += eps
            xm[j] -= eps
            for x in (x0, xp, xm):
                yield point(x), value(a, 0, x), value(b, 1, x)
            break
    zero = {}
    yield point(zero), value(a, 0, zero), value(b, 1, zero)
    for j in range(d):
        e = {j: Q(1)}
        yield point(e), value(a, 0, e), value(b, 1, e)


def symmetry_path(a: Network, b: Network, *, orthant: bool = False, forms=None) -> dict:
    """``symmetry_path`` certificate carrying *a* to *b* (their canonical forms must be equal).

    The path is *a* → canonical representative ← *b*: :func:`_path_to_representative` for
    both, then the inverses of *b*'s steps in reverse order.  The path is replayed here before it
    is returned (a failure raises :class:`CertificateError`: a bug).
    """
    steps = _direct_path(a, b, orthant)      # replayed below: a wrong path raises, never passes
    rep = None
    if steps is None:
        ca, cb = forms or (canonical_form(a, orthant=orthant), canonical_form(b, orthant=orthant))
        if ca != cb:
            raise ValueError("the canonical forms differ: no symmetry path exists")
        steps_a, rep = _path_to_representative(a, ca)
        steps_b, rep_b = _path_to_representative(b, cb)
        if rep != rep_b:  # pragma: no cover
            raise CertificateError("symmetry_path", "representatives differ")
        inverses, cur = [], b
        for s in steps_b:
            inverses.append(s.inverse(cur))
            cur = s._apply(cur)
        steps = steps_a + list(reversed(inverses))
    checkpoints, cur = [], a
    for s in steps:
        cur = s.apply(cur)
        checkpoints.append(network_digest(cur))
    if cur != b:  # pragma: no cover
        raise CertificateError("symmetry_path", "replaying the path does not give b")
    return symmetry_path_certificate(a, b, path_to_json(steps), orthant=orthant,
                                     checkpoints=checkpoints)


def separating_point(ca: CanonicalForm, cb: CanonicalForm, *, nets=None) -> tuple[Q, ...]:
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
    probe, p0 = _probe(d)
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


# -- path to the canonical representative ------------------------------------------------------

def _path_to_representative(net: Network, cf: CanonicalForm):
    """Steps carrying *net* to ``cf.representative()``: S2 scaling to ``|lead(w)| = 1``, one
    ``regroup`` of every hyperplane not already holding a single positively oriented neuron into
    (kink neuron, antiparallel pair for the flip remainder), one ``linear_refactor`` of every
    non-kink neuron into the representative's affine neurons (output bias included), and one
    permutation into canonical order.  Returns ``(steps, representative)``."""
    orthant = cf.domain == "orthant"
    dom = "orthant" if orthant else None
    rep = cf.representative()
    steps = []
    cur = net
    neurons, _ = hidden_neurons(cur, 0)
    m = net.n_outputs

    def is_kinky(w, bb, v):
        if all(x == 0 for x in v) or all(x == 0 for x in w):
            return False
        return is_switching_on_orthant(w, bb) if orthant else True

    kinky = [is_kinky(*nu) for nu in neurons]
    leads = [next((x for x in w if x != 0), None) for w, _, _ in neurons]
    factors = [1 / abs(lam) if k else Q(1) for lam, k in zip(leads, kinky)]
    if any(f != 1 for f in factors):
        s = Scale(0, factors)
        cur = s.apply(cur)
        steps.append(s)
    neurons, _ = hidden_neurons(cur, 0)
    keys = _raw_keys(cur)
    buckets: dict = {}
    groups = []                                          # [(u, beta), [(i, t)]]
    for i, (w, bb, v) in enumerate(neurons):
        if not kinky[i]:
            continue
        lam = leads[i] * factors[i]                      # ±1 after scaling
        key = keys[i] * lam                              # (w·r + b r0)/lead: the hyperplane
        for g in buckets.setdefault(key, []):
            u, beta = g[0]
            if bb == lam * beta and all(x == lam * y for x, y in zip(w, u)):
                g[1].append((i, lam))
                break
        else:
            g = [(tuple(x * lam for x in w), bb * lam), [(i, lam)]]
            buckets[key].append(g)
            groups.append(g)
    labels = ["kink" if k else "other" for k in kinky]
    regroups = []
    for (u, beta), members in groups:
        if len(members) == 1 and members[0][1] > 0:
            continue
        K, M = [Q(0)] * m, [Q(0)] * m
        for i, t in members:
            v = neurons[i][2]
            K = [a + x for a, x in zip(K, v)]
            if t < 0:
                M = [a + x for a, x in zip(M, v)]
        new, lab = [], []
        if any(x != 0 for x in K):
            new.append((Q(1), K))
            lab.append("kink")
        if any(x != 0 for x in M):
            new += [(Q(1), [-x for x in M]), (Q(-1), M)]
            lab += ["other", "other"]
        regroups.append(([i for i, _ in members], u, beta, new, lab))
    if regroups:
        s = Regroup(0, [g[:4] for g in regroups])
        cur = s.apply(cur)
        steps.append(s)
        drop = {i for g in regroups for i in g[0]}
        labels = [lab for i, lab in enumerate(labels) if i not in drop]
        for g in regroups:
            labels += g[4]
    neurons, c = hidden_neurons(cur, 0)
    others = [i for i, lab in enumerate(labels) if lab != "kink"]
    rep_neurons, rep_c = hidden_neurons(rep, 0)
    n_k = len(cf.kinks)
    new_aff = rep_neurons[n_k:]
    dc = [x - y for x, y in zip(rep_c, c)]
    if others or new_aff or any(x != 0 for x in dc):
        s = LinearRefactor(0, others, new_aff, dc, dom)
        cur = s.apply(cur)
        steps.append(s)
    neurons, _ = hidden_neurons(cur, 0)
    order = sorted(range(n_k), key=lambda i: (neurons[i][0], neurons[i][1]))
    perm = order + list(range(n_k, len(neurons)))
    if perm != list(range(len(neurons))):
        s = Permute(0, perm)
        cur = s.apply(cur)
        steps.append(s)
    if cur != rep:  # pragma: no cover
        raise CertificateError("symmetry_path", "path does not reach the representative")
    return steps, rep


def _direct_path(a: Network, b: Network, orthant: bool):
    """``[S2, S1, S2]`` carrying *a* to *b* when, after scaling every neuron to ``|lead(w)| = 1``,
    the two nets have the same neurons up to order (the common case of a permuted and rescaled
    copy); None otherwise."""
    if a.widths != b.widths:
        return None
    sides = []
    for net in (a, b):
        neurons, _ = hidden_neurons(net, 0)
        leads = [next((x for x in w if x != 0), None) for w, _, _ in neurons]
        factors = [1 / abs(l) if l is not None else Q(1) for l in leads]
        keys = [k * f for k, f in zip(_raw_keys(net), factors)]
        normal = [(tuple(x * f for x in w), bb * f, tuple(x / f for x in v))
                  for (w, bb, v), f in zip(neurons, factors)]
        sides.append((factors, keys, normal))
    (fa, ka, na), (fb, kb, nb) = sides
    buckets: dict = {}
    for i, k in enumerate(ka):
        buckets.setdefault(k, []).append(i)
    perm = []
    for j, k in enumerate(kb):
        cand = buckets.get(k, [])
        hit = next((i for i in cand if na[i] == nb[j]), None)
        if hit is None:
            return None
        cand.remove(hit)
        perm.append(hit)
    if a.biases[1] != b.biases[1]:
        return None
    steps = []
    if any(f != 1 for f in fa):
        steps.append(Scale(0, fa))
    if perm != list(range(len(perm))):
        steps.append(Permute(0, perm))
    if any(f != 1 for f in fb):
        steps.append(Scale(0, [1 / f for f in fb]))
    return steps


def _raw_keys(net: Network):
    """``w_i·r + b_i r0`` for every hidden neuron (one exact FLINT product)."""
    W, b = net.layer(0)
    probe, p0 = _probe(net.n_inputs)
    return [p + bi * p0 for p, bi in zip(W.apply(probe), b)]


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


# -- private helpers ---------------------------------------------------------------------------

def _parts(net: Network):
    if net.depth != 2:
        raise NotApplicableError("shallow", f"needs exactly one hidden layer, got {net.depth - 1}")
    (W, b), (V, c) = net.layer(0), net.layer(1)
    return W, b, V, c


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
