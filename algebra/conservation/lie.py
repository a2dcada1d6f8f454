r"""Polynomial vector fields: Lie brackets and the Frobenius certificate (three-layer-fibers §8).

The gradient fields are formed as vectors of polynomials in Q[θ]; brackets
[X, Y]_k = Σ_j X_j ∂_j Y_k − Y_j ∂_j X_k are formed exactly (small N: no jet blow-up with
depth), and :func:`_frobenius` certifies, by exact polynomial identities, that the fields span
an involutive distribution of constant rank near θ, so that (Frobenius; [MGP23] in
:mod:`algebra.conservation.laws`) the number of laws is N − rank.
"""

from __future__ import annotations

import time

from ..polynomials import number_of_terms
from .fields import _generator_polys, parameter_ring_of
from .spans import _Span

__all__: list[str] = []


def _frobenius(net, samples, r_max: int = 4, n_max: int = 120) -> tuple[bool, str]:
    """Certificate that the gradient fields span an involutive distribution near θ.

    Pick generator fields F_1..F_r independent at θ (r = their rank at θ) and pivot
    coordinates S with det M(θ) ≠ 0, M = (F_i[S]).  If every generator Y and every bracket
    [F_i, F_j] satisfies the polynomial identity det(M)·Y − Σ_i F_i (adj(M) Y_S)_i ≡ 0, then near
    θ all generators lie in the C^∞-span Δ of F, Δ is involutive of constant rank r, so the Lie
    algebra's trace is Δ and (Frobenius; [MGP23]) there are exactly N − r independent laws.
    Exact polynomial arithmetic; only attempted for r <= r_max and N <= n_max (cost).
    """
    N = net.n_parameters
    if N > n_max:
        return False, f"Frobenius test skipped (N = {N} > {n_max})"
    theta = net.parameters()
    R = parameter_ring_of(net)
    gens = _generator_polys(net, samples)
    span = _Span(N)
    F = []
    for Y in gens:
        if span.add_vector([c(theta) for c in Y]):
            F.append(Y)
            if len(F) > r_max:
                return False, f"Frobenius test skipped (rank > {r_max})"
    r = len(F)
    if r == 0:
        if all(c.is_zero() for Y in gens for c in Y):
            return True, "every gradient field is identically zero: every parameter is conserved"
        return False, "Frobenius test failed: the fields vanish at θ but not identically"
    S = span.piv
    M = [[F[i][S[a]] for i in range(r)] for a in range(r)]
    det, adj = _det_adj(M, R)

    def in_span(Y):
        YS = [Y[S[a]] for a in range(r)]
        c = [sum((adj[i][a] * YS[a] for a in range(r)), R.zero()) for i in range(r)]
        return all((det * Y[k] - sum((F[i][k] * c[i] for i in range(r)), R.zero())).is_zero()
                   for k in range(N))

    for Y in gens:
        if not in_span(Y):
            return False, "Frobenius test failed: a generator leaves the span near θ"
    for i in range(r):
        for j in range(i + 1, r):
            if not in_span(_poly_bracket(F[i], F[j])):
                return False, "Frobenius test failed: the distribution is not involutive"
    return True, (f"closed by Frobenius: the {len(gens)} gradient fields span an involutive "
                  f"distribution of constant rank {r} near θ")


def _poly_phase(net, samples, span, lower, rng, deadline, max_depth, patience=40, max_terms=30000):
    """Brackets formed as polynomial vector fields (small N): no jet blow-up with depth.

    Random constant-coefficient combinations X of the generators are bracketed with earlier
    accepted fields (right-normed growth); every field formed is in the Lie algebra, so the
    rank of their values at θ stays a valid lower bound of dim Lie(V)(θ).  Returns the largest
    depth reached.
    """
    N = net.n_parameters
    theta = net.parameters()
    gens = _generator_polys(net, samples)
    R = parameter_ring_of(net)
    if not gens:
        return 0

    def combo():
        out = [R.zero()] * N
        for Y in rng.sample(gens, min(len(gens), 6)):
            c = rng.randint(-3, 3)
            if c:
                out = [a + c * b for a, b in zip(out, Y)]
        return out

    pool = [(combo(), 0) for _ in range(2)]
    fails, depth = 0, 0
    while N - span.rank > lower and fails < patience and time.monotonic() < deadline:
        Y, dy = pool[-1] if rng.random() < 0.5 else rng.choice(pool)
        if dy >= max_depth:
            Y, dy = pool[0] if pool[0][1] < max_depth else (combo(), 0)
        Z = _poly_bracket(combo(), Y, deadline)
        if Z is None:
            break
        if span.add_vector([c(theta) for c in Z]):
            depth = max(depth, dy + 1)
            fails = 0
        else:
            fails += 1
        # kept even when its value at θ adds nothing: deeper brackets grow from it (unless huge)
        if sum(number_of_terms(c) for c in Z) <= max_terms:
            pool.append((Z, dy + 1))
            del pool[:-12]
    return depth


def _poly_bracket(X, Y, deadline=None):
    """[X, Y]_k = Σ_j X_j ∂_j Y_k − Y_j ∂_j X_k for polynomial vector fields (None once the
    monotonic *deadline* has passed)."""
    N = len(X)
    out = []
    for k in range(N):
        if deadline is not None and time.monotonic() > deadline:
            return None
        t = X[k].ring.zero()
        for j in range(N):
            if not X[j].is_zero():
                t = t + X[j] * Y[k].diff(j)
            if not Y[j].is_zero():
                t = t - Y[j] * X[k].diff(j)
        out.append(t)
    return out


def _det_adj(M, R):
    """Determinant and adjugate of a small square matrix of polynomials (cofactors)."""
    r = len(M)

    def det(A):
        if len(A) == 1:
            return A[0][0]
        return sum(((-1) ** j * A[0][j] * det([row[:j] + row[j + 1:] for row in A[1:]])
                    for j in range(len(A))), R.zero())

    if r == 1:
        return M[0][0], [[R.constant(1)]]
    adj = [[(-1) ** (i + j) * det([row[:i] + row[i + 1:] for k, row in enumerate(M) if k != j])
            for j in range(r)] for i in range(r)]
    return det(M), adj
