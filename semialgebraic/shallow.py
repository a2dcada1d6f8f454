r"""One hidden layer: canonical form, exact equivalence with certificates, positive factor rank.

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
from typing import Sequence

from algebra.matrices import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q
from algebra.symmetries import apply_path, path_to_json
from algebra.symmetries.generators import (LinearRefactor, Permute, Regroup, Scale,
                                           hidden_neurons)

from .certificates import CERTIFICATE_FORMAT, counterexample_certificate, jsonable
from . import lp
from .exceptions import CertificateError, NotApplicableError
from .verdict import Hypothesis, Verdict

__all__ = ["CanonicalForm", "canonical_form", "equivalent_shallow", "symmetry_path",
           "separating_point", "point_on_hyperplane", "positive_factor_rank", "neuron_types", "is_switching_on_orthant",
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
        out = list(a + c for a, c in zip(self.linear.apply(x), self.offset))
        for u, beta, K in self.kinks:
            h = sum((ui * xi for ui, xi in zip(u, x)), Q(0)) + beta
            if h > 0:
                out = [o + k * h for o, k in zip(out, K)]
        return tuple(out)

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
    rows, cols = W.to_rows(), V.T.to_rows()
    groups: dict[tuple, list[Q]] = {}
    full: list[int] = []              # neurons whose whole affine map h_i goes to the affine part
    offset = list(c)
    zero = Q(0)
    for i, (w, bi, v) in enumerate(zip(rows, b, cols)):
        if all(x == 0 for x in v):
            continue
        if orthant and not is_switching_on_orthant(w, bi):
            if bi >= 0 and all(x >= 0 for x in w):
                full.append(i)                          # linear on the orthant
            continue                                    # dead: contributes 0
        key = hyperplane_key(w, bi)
        if key is None:                                 # constant neuron V σ(b)
            if bi > 0:
                offset = [o + x * bi for o, x in zip(offset, v)]
            continue
        u, beta, lam = key
        if lam < 0:
            full.append(i)                              # σ(h) = σ(−h) + h
        s = abs(lam)
        k = (u, beta)
        acc = groups.get(k)
        if acc is None:
            groups[k] = [x * s for x in v]
        else:
            groups[k] = [a + x * s for a, x in zip(acc, v)]
    if full:
        Vf = V.submatrix(cols=full)
        A = Vf @ W.submatrix(rows=full)
        offset = [o + x for o, x in zip(offset, Vf.apply([b[i] for i in full]))]
    else:
        A = QMatrix.zeros(m, d)
    kinks = tuple(sorted((u, beta, tuple(K)) for (u, beta), K in groups.items()
                         if any(x != zero for x in K)))
    return CanonicalForm(d, m, "orthant" if orthant else "R^d", kinks, A, tuple(offset))


# -- equivalence with certificates -------------------------------------------------------------

def equivalent_shallow(a: Network, b: Network, *, orthant: bool = False) -> Verdict:
    """Decide whether two one-hidden-layer nets compute the same function (on R^d, or on the
    closed orthant), exactly, with a certificate.

    * equal canonical forms → ``answer=True`` with a ``symmetry_path`` certificate (steps from
      ``algebra.symmetries`` carrying *a* to the canonical representative, then the inverses of
      *b*'s steps);
    * different forms → ``answer=False`` with a ``counterexample`` certificate at an exact point
      built from the first difference (:func:`separating_point`; no sampling, so differences
      confined to thin slabs are found);
    * not one hidden layer each → ``answer=None`` with the failed hypothesis.

    >>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> b = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], [0]])
    >>> v = equivalent_shallow(a, b)
    >>> v.answer, v.certificate["type"]
    (True, 'symmetry_path')
    >>> w = equivalent_shallow(a, b.with_parameter("b2[0]", "1/1000000"))
    >>> w.answer, w.certificate["type"]
    (False, 'counterexample')
    """
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
        cert = {"format": CERTIFICATE_FORMAT, "type": "counterexample", "claim": "a(x) != b(x)",
                "a": a.to_dict(), "b": b.to_dict(), "x": [0] * a.n_inputs,
                "a_x": jsonable(list(a([0] * a.n_inputs))), "b_x": [0] * b.n_outputs}
        return Verdict(False, method, "the networks have different signatures", tuple(hyps), cert)
    ca, cb = canonical_form(a, orthant=orthant), canonical_form(b, orthant=orthant)
    details = {"fingerprint_a": ca.fingerprint(), "fingerprint_b": cb.fingerprint()}
    if ca == cb:
        cert = symmetry_path(a, b, orthant=orthant, forms=(ca, cb))
        return Verdict(True, method, "canonical forms are equal", tuple(hyps), cert, details)
    x = separating_point(ca, cb)
    cert = counterexample_certificate(a, b, x, domain={"orthant": True} if orthant else None)
    return Verdict(False, method, "canonical forms differ; the point separates the functions",
                   tuple(hyps), cert, details)


def symmetry_path(a: Network, b: Network, *, orthant: bool = False, forms=None) -> dict:
    """``symmetry_path`` certificate carrying *a* to *b* (their canonical forms must be equal).

    The path is *a* → canonical representative ← *b*: :func:`_path_to_representative` for
    both, then the inverses of *b*'s steps in reverse order.  The path is replayed here before it
    is returned (a failure raises :class:`CertificateError`: a bug).
    """
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
    if apply_path(a, steps) != b:  # pragma: no cover
        raise CertificateError("symmetry_path", "replaying the path does not give b")
    return {"format": CERTIFICATE_FORMAT, "type": "symmetry_path",
            "claim": "a and b compute the same function" + (" on the closed orthant" if orthant else ""),
            "domain": {"orthant": True} if orthant else None,
            "a": a.to_dict(), "b": b.to_dict(), "representative": rep.to_dict(),
            "steps": path_to_json(steps)}


def separating_point(ca: CanonicalForm, cb: CanonicalForm) -> tuple[Q, ...]:
    """An exact point (in the domain) where the functions of two different canonical forms
    differ.

    If the kink sets differ, let ``H`` be the first hyperplane whose kink vectors differ: pick
    ``x0`` on ``H`` (in the open orthant for the orthant form) off every other hyperplane, and
    ``x± = x0 ± ε e`` along the coordinate ``e`` with ``u·e = 1``, with ``ε`` so small that no other
    hyperplane (nor the orthant boundary) is crossed.  The difference ``D = f_a − f_b`` satisfies
    ``D(x+) + D(x−) − 2 D(x0) = ε ΔK ≠ 0``, so one of the three points separates.  If only the
    affine parts differ, ``D`` is affine on the domain and ``0`` or a unit vector separates.
    """
    if ca.n_inputs != cb.n_inputs or ca.domain != cb.domain:
        raise ValueError("forms of different input spaces")
    d = ca.n_inputs
    orthant = ca.domain == "orthant"
    ka = {(u, beta): K for u, beta, K in ca.kinks}
    kb = {(u, beta): K for u, beta, K in cb.kinks}
    diff = sorted(k for k in set(ka) | set(kb) if ka.get(k) != kb.get(k))
    cands: list[tuple[Q, ...]] = []
    if diff:
        u, beta = diff[0]
        others = [k for k in set(ka) | set(kb) if k != (u, beta)]
        x0 = point_on_hyperplane(u, beta, others, orthant)
        j = next(i for i, x in enumerate(u) if x != 0)
        eps = Q(1)
        for uo, bo in others:
            h = sum((p * q for p, q in zip(uo, x0)), Q(0)) + bo
            if uo[j] != 0:
                eps = min(eps, abs(h) / abs(uo[j]) / 2)
        if orthant:
            eps = min(eps, x0[j] / 2)
        xp = list(x0)
        xm = list(x0)
        xp[j] += eps
        xm[j] -= eps
        cands += [tuple(x0), tuple(xp), tuple(xm)]
    cands.append(tuple([Q(0)] * d))
    for j in range(d):
        e = [Q(0)] * d
        e[j] = Q(1)
        cands.append(tuple(e))
    for x in cands:
        if ca(x) != cb(x):
            return x
    raise AssertionError("no separating point found for different canonical forms")  # pragma: no cover


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
    factors = []
    for (w, bb, v), k in zip(neurons, kinky):
        lam = next((x for x in w if x != 0), None)
        factors.append(1 / abs(lam) if k else Q(1))
    if any(f != 1 for f in factors):
        s = Scale(0, factors)
        cur = s.apply(cur)
        steps.append(s)
    neurons, _ = hidden_neurons(cur, 0)
    groups: dict = {}
    for i, (w, bb, v) in enumerate(neurons):
        if kinky[i]:
            u, beta, lam = hyperplane_key(w, bb)
            groups.setdefault((u, beta), []).append((i, lam))
    regroups = []
    for (u, beta), members in sorted(groups.items()):
        if len(members) == 1 and members[0][1] > 0:
            continue
        K, M = [Q(0)] * m, [Q(0)] * m
        for i, t in members:
            v = neurons[i][2]
            K = [a + abs(t) * x for a, x in zip(K, v)]
            if t < 0:
                M = [a + abs(t) * x for a, x in zip(M, v)]
        new = []
        if any(x != 0 for x in K):
            new.append((Q(1), K))
        if any(x != 0 for x in M):
            new += [(Q(1), [-x for x in M]), (Q(-1), M)]
        regroups.append(([i for i, _ in members], u, beta, new))
    if regroups:
        s = Regroup(0, regroups)
        cur = s.apply(cur)
        steps.append(s)
    neurons, c = hidden_neurons(cur, 0)
    labels = _label_kinks(neurons, cf)
    others = [i for i, lab in enumerate(labels) if not lab]
    rep_neurons, rep_c = hidden_neurons(rep, 0)
    n_k = len(cf.kinks)
    new_aff = rep_neurons[n_k:]
    dc = [x - y for x, y in zip(rep_c, c)]
    if others or new_aff or any(x != 0 for x in dc):
        s = LinearRefactor(0, others, new_aff, dc, dom)
        cur = s.apply(cur)
        steps.append(s)
    neurons, _ = hidden_neurons(cur, 0)
    pos = {(w, bb): i for i, (w, bb, _) in enumerate(neurons[:n_k])}
    perm = [pos[(u, beta)] for u, beta, _ in cf.kinks] + list(range(n_k, len(neurons)))
    if perm != list(range(len(neurons))):
        s = Permute(0, perm)
        cur = s.apply(cur)
        steps.append(s)
    if cur != rep:  # pragma: no cover
        raise CertificateError("symmetry_path", "path does not reach the representative")
    return steps, rep


def _label_kinks(neurons, cf):
    """True for the neurons that are exactly a kink neuron of the representative; each kink is
    claimed once."""
    want = {(u, beta): K for u, beta, K in cf.kinks}
    seen = set()
    out = []
    for w, bb, v in neurons:
        key = (w, bb)
        if key in want and key not in seen and want[key] == v:
            seen.add(key)
            out.append(True)
        else:
            out.append(False)
    return out


def point_on_hyperplane(u, beta, others, orthant=False, *, seed=12345):
    """Exact point on ``u·x + β = 0`` (in the open orthant if asked) off every other hyperplane."""
    d = len(u)
    j = next(i for i, x in enumerate(u) if x != 0)
    rng = random.Random(seed)
    if orthant:
        x0 = _orthant_point(u, beta)
        basis = [e for e in QMatrix.row(list(u)).nullspace().to_rows()]
    for attempt in range(200):
        R = 10 ** (3 + attempt // 20)
        if orthant:
            if not basis:
                x = list(x0)
            else:
                coef = [Q(rng.randint(-R, R)) for _ in basis]
                y = [sum((a * e[k] for a, e in zip(coef, basis)), Q(0)) for k in range(d)]
                lim = min([x0[k] / (2 * abs(y[k])) for k in range(d) if y[k] != 0] + [Q(1)])
                tau = lim / (1 + attempt)
                x = [x0[k] + tau * y[k] for k in range(d)]
        else:
            x = [Q(rng.randint(-R, R)) for _ in range(d)]
            x[j] = Q(0)
            x[j] = -(sum((p * q for p, q in zip(u, x)), Q(0)) + beta) / u[j]
        if all(sum((p * q for p, q in zip(uo, x)), Q(0)) + bo != 0 for uo, bo in others):
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


# -- positive factor rank (R6) -----------------------------------------------------------------

def positive_factor_rank(Gamma: QMatrix) -> tuple[int, dict]:
    r"""κ₊(Γ): least k with ``Γ = V W``, ``W`` (k×n) entrywise > 0 (three-layer-fibers R6).

    ``κ₊(0) = 0``; otherwise ``κ₊ = ρ = rank Γ`` if the row space of Γ contains a vector with
    all coordinates > 0, else ``ρ + 1``.  Decided exactly by Gordan's alternative: the row space
    meets the open orthant iff there is no ``y ≥ 0, y ≠ 0`` with ``Γ y = 0``.

    Returns ``(k, witness)``; the witness holds ``rank``, either ``positive_vector`` (in the row
    space) or ``gordan_y`` (``y ≥ 0``, ``Σ y = 1``, ``Γ y = 0``), and an exact factorisation
    ``V`` (m×k), ``W`` (k×n, entries > 0) with ``V W = Γ``.

    >>> k, wit = positive_factor_rank(QMatrix.from_rows([[-2, 1]]))      # example T2
    >>> k, wit["gordan_y"]
    (2, (1/3, 2/3))
    >>> wit["V"] @ wit["W"] == QMatrix.from_rows([[-2, 1]])
    True
    >>> positive_factor_rank(QMatrix.from_rows([[4, 3]]))[0]
    1
    """
    m, n = Gamma.shape
    rho = Gamma.rank()
    if rho == 0:
        return 0, {"rank": 0, "positive_vector": None, "gordan_y": None,
                   "V": QMatrix.zeros(m, 0), "W": QMatrix.zeros(0, n)}
    R = Gamma.row_space()
    # Gordan: y >= 0, sum y = 1, Gamma y = 0 (exact LP) — else a positive vector c R > 0 exists
    gordan = lp.feasible(A_eq=QMatrix.vstack([Gamma, QMatrix.row([1] * n)]),
                         b_eq=[0] * m + [1], A_le=(-QMatrix.identity(n)), b_le=[0] * n, n=n)
    if gordan.feasible:
        y, p = gordan.point, None
        base, extra = [Q(1)] * n, True
    else:
        pos = lp.feasible(A_lt=-R.T, b_lt=[0] * n, n=rho)
        if not pos.feasible:  # pragma: no cover - Gordan's alternative
            raise NotApplicableError("positive_factor_rank", "Gordan's alternative failed")
        y, p = None, (QMatrix.row(list(pos.point)) @ R).row_at(0)
        base, extra = list(p), False
    # positive basis: p (or 1) together with R_t + λ p for the other rows
    basis_rows = R.to_rows()
    if not extra:
        coeffs = _coordinates(R, p)
        r = next(t for t, x in enumerate(coeffs) if x != 0)
        others = [basis_rows[t] for t in range(len(basis_rows)) if t != r]
    else:
        others = basis_rows
    Wrows = [base]
    for row in others:
        lam = max([(-x / pj) for x, pj in zip(row, base)] + [Q(0)]) + 1
        Wrows.append([x + lam * pj for x, pj in zip(row, base)])
    Wm = QMatrix.from_rows(Wrows)
    G = Wm @ Wm.T
    Vm = (G.solve(Wm @ Gamma.T)).T
    if Vm @ Wm != Gamma:  # pragma: no cover - internal consistency
        raise AssertionError("positive factorisation failed")
    k = rho + (1 if extra else 0)
    return k, {"rank": rho, "positive_vector": None if extra else tuple(p),
               "gordan_y": None if y is None else tuple(y), "V": Vm, "W": Wm}


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


def _coordinates(R: QMatrix, p: Sequence[Q]) -> list[Q]:
    """Coefficients c with ``c R = p`` (R with independent rows)."""
    sol = R.T.solve_general(list(p))
    if sol is None:  # pragma: no cover
        raise AssertionError("vector not in the row space")
    return list(sol[0])
