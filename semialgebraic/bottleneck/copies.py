r"""Three-layer bottleneck networks: discrete moves between fiber components and random
symmetric copies.

:func:`discrete_move` reaches the component of the fiber with a given label (S5 flip set with an
explicit positive factorisation of the new linear block, S7 flip set, S8 choice);
:func:`random_symmetric_copy` composes random valid S1–S8 steps (planted copies for tests and
the ``analyze`` report).
"""

from __future__ import annotations

import random
from typing import Sequence

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.bottleneck import KinkSwap, SignFlip, TranslateMasked, s7_flippable
from algebra.symmetries.bottleneck_paths import PermuteHidden, RescaleHidden, TailRefactor

from ..shallow import positive_in_row_space
from ._structure import DEAD, SWITCHING, Parts, is_generic, structure

__all__ = ["random_symmetric_copy", "discrete_move", "flipped_gamma", "positive_factorization"]


def flipped_gamma(P, L, S):
    """``(Γ', γ')``: the linear block of the linear neurons *L* after flipping the switching
    neurons *S* (they join the linear block, three-layer-fibers R12)."""
    rows = list(L) + list(S)
    if not rows:
        return QMatrix.zeros(P.m, P.n1), tuple(P.b3)
    VL = QMatrix.from_rows([P.V[j] for j in rows]).T
    WL = QMatrix.from_rows([P.R2[j] for j in rows])
    prod = VL @ WL
    return prod.submatrix(cols=range(P.n1)), tuple(P.b3[o] + prod[o, P.n1] for o in range(P.m))


def discrete_move(net: Network, lab: dict):
    """``(network, steps)`` reaching the component *lab* (``{"flips": S5 set, "s7": S7 set,
    "s8": bool}``) from *net*, or None when no explicit point is constructed."""
    cur, steps = net, []
    s = structure(net)
    if lab["s7"]:
        steps.append(SignFlip(s.masked, lab["s7"]))
        cur = steps[-1].apply(cur)
    if lab["s8"]:
        steps.append(KinkSwap())
        cur = steps[-1].apply(cur)
    if lab["flips"]:
        P = Parts.of(cur)
        L = list(s.linear)
        G, g = flipped_gamma(P, L, lab["flips"])
        if not L:            # no linear row: the flipped kink matrices sum to 0 (R18.5)
            if not G.is_zero():
                return None
            Vn, Wn = [[] for _ in range(P.m)], []
        else:
            fac = positive_factorization(G, len(L))
            if fac is None:
                return None
            Vn, Wn = fac
        rep = {j: (tuple(-x for x in P.R2[j]), P.V[j]) for j in lab["flips"]}
        for k, j in enumerate(L):
            row = tuple(Wn[k]) + (Q(1),)
            rep[j] = (row, tuple(Vn[o][k] for o in range(P.m)))
        b3 = tuple(g[o] - sum((Vn[o][k] for k in range(len(L))), Q(0)) for o in range(P.m))
        try:
            steps.append(TailRefactor(rep, b3))
            cur = steps[-1].apply(cur)
        except ValueError:
            return None
    return cur, steps


def random_symmetric_copy(net: Network, *, seed: int = 0, number_of_steps: int = 6,
                          first: Sequence[str] = ()):
    """A random composition of valid S1–S8 steps applied to a generic bottleneck *net*.

    Returns ``(copy, steps)``; every step is checked when applied.  Moves: permutations and
    positive rescalings of both hidden layers, S3 (new dead row and output column), S4 bias
    trade, S5 flip (when the linear neurons can absorb it), S6 (t strictly inside the
    interval), S7, S8.  *first*: moves to make first when they apply (names ``"s6"``,
    ``"s7"``, ``"s8"``, ``"s5"``, ``"dead"``, ``"linear"``, ``"perm1"``, …).
    """
    rng = random.Random(seed)
    cur, path = net, []
    forced = list(first)
    for _ in range(number_of_steps + len(forced)):
        s = structure(cur)
        if not s.is_generic:
            break
        d, n1, n2, m = s.widths
        P = Parts.of(cur)
        moves = ["perm1", "perm2", "scale1", "scale2"]
        dead = [j for j, t in enumerate(s.types) if t == DEAD]
        sw = [j for j, t in enumerate(s.types) if t == SWITCHING]
        moves += ["dead"] * bool(dead) + ["linear"] * bool(s.linear) + ["s6"] * (s.masked is not None)
        moves += ["s7"] * s.s7_applies + ["s8"] * s.s8_applies + ["s5"] * bool(s.linear and sw)
        mv = rng.choice(moves)
        while forced:
            f = forced.pop(0)
            if f in moves:
                mv = f
                break
        if mv in ("perm1", "perm2"):
            n = n1 if mv == "perm1" else n2
            perm = list(range(n))
            rng.shuffle(perm)
            st = [PermuteHidden(1 if mv == "perm1" else 2, perm)]
        elif mv in ("scale1", "scale2"):
            n = n1 if mv == "scale1" else n2
            st = [RescaleHidden(1 if mv == "scale1" else 2, rng.randrange(n),
                                Q(rng.randint(1, 9), rng.randint(1, 9)))]
        elif mv == "dead":
            j = rng.choice(dead)
            row = tuple(-Q(rng.randint(1, 9), rng.randint(1, 5)) for _ in range(n1 + 1))
            out = tuple(Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(m))
            st = [TailRefactor({j: (row, out)}, P.b3)]
        elif mv == "linear":
            j = rng.choice(list(s.linear))
            c = Q(rng.randint(1, 9), rng.randint(1, 9))
            row = P.R2[j][:-1] + (c * P.R2[j][-1],)
            b3 = tuple(x - v * (c - 1) * P.R2[j][-1] for x, v in zip(P.b3, P.V[j]))
            st = [TailRefactor({j: (row, P.V[j])}, b3)]
        elif mv == "s6":
            lo, hi = s.s6_interval
            u = Q(rng.randint(1, 99), 100)
            if hi is None:
                t = lo + u * (1 + abs(lo))
            else:
                t = lo + u * (hi - lo)
            st = [TranslateMasked(s.masked, t)]
        elif mv == "s7":
            others = s7_flippable([P.R2[j] for j, t in enumerate(s.types) if t != DEAD], s.masked)
            st = [SignFlip(s.masked, rng.sample(others, rng.randint(1, len(others))))]
        elif mv == "s8":
            st = [KinkSwap()]
        else:
            mvd = discrete_move(cur, {"flips": [rng.choice(sw)], "s7": [], "s8": False})
            if mvd is None:
                continue
            st = mvd[1]
        nxt = cur
        for step in st:
            nxt = step.apply(nxt)
        if is_generic(nxt):            # keep the copy inside the theory (e.g. no zero column)
            cur = nxt
            path += st
    return cur, path


def positive_factorization(G: QMatrix, nL: int):
    """``(V, W)`` with ``Γ = V W``, ``W > 0`` entrywise with *nL* rows (R6 construction), or None."""
    m, n1 = G.shape
    rho = G.rank()
    basis = G.row_space()
    p = None
    if rho:
        # a positive vector in the row space (exact LP, Gordan) or none (κ₊ = ρ + 1)
        p, _ = positive_in_row_space(G, basis)
    rows = [list(basis.row_at(t)) for t in range(rho)]
    extra = []
    if p is None:
        p = [Q(1)] * n1
        extra = [p]
    need = len(rows) + len(extra)
    if need > nL:
        return None
    W = []
    for r in rows:
        lam = max([Q(0)] + [(-x) / pi + 1 for x, pi in zip(r, p) if x <= 0])
        W.append([x + lam * pi for x, pi in zip(r, p)])
    W += extra
    while len(W) < nL:
        W.append([Q(1)] * n1)
    # solve V Wm = G for V (least structure: use the first `need` rows, others get 0)
    sub = QMatrix.from_rows(W[:need]) if need else None
    V = [[Q(0)] * nL for _ in range(m)]
    if need:
        for o in range(m):
            sol = sub.T.solve_general(list(G.row_at(o)))
            if sol is None:
                return None
            for k, x in enumerate(sol[0]):
                V[o][k] = x
    # extra rows: positive combinations of the used rows with small non-zero outputs,
    # compensated on the used rows (keeps V W = Γ, avoids zero output columns, P13)
    for e in range(need, nL):
        cs = [Q(k + 2, k + 3 + e) for k in range(need)]
        if not need:
            break
        W[e] = [sum((c * W[k][i] for k, c in enumerate(cs)), Q(0)) for i in range(n1)]
        ve = [Q(1, 7 + e + o) for o in range(m)]
        for o in range(m):
            V[o][e] = ve[o]
            for k, c in enumerate(cs):
                V[o][k] -= c * ve[o]
    if [[sum((V[o][k] * W[k][i] for k in range(nL)), Q(0)) for i in range(n1)] for o in range(m)] \
            != G.to_rows():
        return None
    return V, W
