r"""Three-layer bottleneck networks with one first-layer neuron: every stratum of the fiber
(three-layer-fibers R16a).

For ``n1 = 1`` the function is ``f(x) = F(t)``, ``t = W1 x`` (the net's own first-layer row fixes
the direction), with ``F(t) = h(σ(t + b1))`` and ``h(z) = Σ_j V_j σ(w_j z + c_j) + b3`` on
``z ≥ 0``.  :func:`one_neuron_strata` reads the kinks ``K_1 < … < K_r`` and slopes of ``F``
exactly, and lists every stratum of R16a: an orientation ε (``F(ε s)`` must be constant for
``s → −∞``), a visible or masked first-layer kink, a type (switching (+|−) or clipped ramp (−|+))
per kink carried by a row, the numbers of linear and dead rows.  Each stratum is a basic set
(polynomial equalities and strict inequalities in the parameter names) with a representative
network whose function is checked exactly against the net's.  Components: classes of labelled
strata (rows assigned to roles) under the gluing moves g1–g3 of R16a.
"""

from __future__ import annotations

import json
from itertools import combinations, permutations, product
from math import factorial

import networkx as nx

from algebra.network import Network
from algebra.rationals import Q

SW, CLIP = "switching", "clipped"

__all__ = ["one_neuron_strata", "Stratum", "SW", "CLIP"]


class Stratum:
    """One stratum of R16a up to permutations of the second-layer rows: orientation ``eps``,
    ``masked`` (first-layer kink hidden) or visible, ``types`` (one per carried kink, in the
    order of the reflected kinks), ``n_linear``, ``n_dead``; ``dimension`` (R16a formula),
    ``engine_generic`` (False for the masked strata with a clipped row: a linear block cancels
    their slope at the first-layer kink; the row-type dimension formula fails there)."""

    def __init__(self, eps, masked, types, n_linear, n_dead, dimension):
        self.eps, self.masked, self.types = eps, masked, tuple(types)
        self.n_linear, self.n_dead, self.dimension = n_linear, n_dead, dimension
        self.engine_generic = not (masked and CLIP in self.types)
        self.representative = None
        self.equalities, self.positive = [], []

    @property
    def key(self):
        return (self.eps, self.masked, self.types, self.n_linear, self.n_dead)

    def label(self) -> dict:
        return {"orientation": self.eps, "first_layer_kink": "masked" if self.masked else "visible",
                "kink_rows": list(self.types), "linear": self.n_linear, "dead": self.n_dead}

    @property
    def copies(self) -> int:
        """Labelled copies (second-layer permutations that give another point set)."""
        n2 = len(self.types) + self.n_linear + self.n_dead
        return factorial(n2) // (factorial(self.n_linear) * factorial(self.n_dead))


# -- the function F(t) of a net with n1 = 1 --------------------------------------------------------
def _h(P, z):
    out = []
    for o in range(P.m):
        s = P.b3[o]
        for j in range(P.n2):
            w, c = P.R2[j][0], P.R2[j][1]
            s += P.V[j][o] * max(w * z + c, Q(0))
        out.append(s)
    return tuple(out)


def _F(P, t):
    return _h(P, max(t + P.R1[0][-1], Q(0)))


def kinks_and_slopes(P):
    """Exact kinks ``K`` (ascending) of ``F`` and the slopes ``σ_0 … σ_r`` (tuples in Q^m)."""
    b1 = P.R1[0][-1]
    cand = {-b1}
    for w, c in (r[:2] for r in P.R2):
        if w != 0 and -c / w > 0:
            cand.add(-b1 - c / w)
    cand = sorted(cand)

    def slope(a, b):
        fa, fb = _F(P, a), _F(P, b)
        return tuple((y - x) / (b - a) for x, y in zip(fa, fb))
    ends = [cand[0] - 1] + cand + [cand[-1] + 1]
    pieces = [slope(a, b) for a, b in zip(ends, ends[1:])]      # F is affine between candidates
    K, S = [], [pieces[0]]
    for k, x in enumerate(cand):
        if pieces[k + 1] != pieces[k]:
            K.append(x)
            S.append(pieces[k + 1])
    return K, S


def _sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def _add(a, b):
    return tuple(x + y for x, y in zip(a, b))


# -- enumeration (R16a) ----------------------------------------------------------------------------
def one_neuron_strata(net: Network, P, *, max_kinks: int = 10):
    """Every stratum of Fib(net) for n1 = 1 and non-constant f (R16a), or None when f has more than
    *max_kinks* kinks.  Returns ``(strata, kinks, slopes)``."""
    K, S = kinks_and_slopes(P)
    if not K or len(K) > max_kinks:
        return None
    zero = tuple(Q(0) for _ in range(P.m))
    n2, m = P.n2, P.m
    out = []
    for eps in (1, -1):
        Kt = sorted(eps * k for k in K)                   # reflected kinks, ascending
        St = [tuple(eps * v for v in s) for s in (S if eps == 1 else S[::-1])]
        if St[0] != zero:
            continue                                        # F(ε s) not constant on the left
        D = [_sub(St[k + 1], St[k]) for k in range(len(Kt))]
        r = len(Kt)
        for masked in (True, False):
            carried = list(range(r)) if masked else list(range(1, r))
            for types in product((SW, CLIP), repeat=len(carried)):
                G = zero if masked else St[1]
                for k, t in zip(carried, types):
                    if t == CLIP:
                        G = _add(G, D[k])
                nLs = [0] if G == zero else range(1, n2 - len(carried) + 1)
                for nL in nLs:
                    nD = n2 - len(carried) - nL
                    if nD < 0:
                        continue
                    dim = (2 if masked else 1) + len(carried) + nD * (2 + m) + \
                        (nL * (2 + m) - m if nL else 0)
                    st = Stratum(eps, masked, types, nL, nD, dim)
                    st.kinks, st.deltas, st.gamma, st.first_slope = Kt, D, G, St[1]
                    out.append(st)
    return out, K, S


def representative(net: Network, P, st: Stratum) -> Network:
    """A point of the stratum: λ = 1, rows ordered kink rows, linear rows, dead rows."""
    m, eps, Kt = P.m, st.eps, st.kinks
    a = [P.R1[0][c] for c in range(P.d)]
    b1 = -Kt[0] + (1 if st.masked else 0)                  # u = s + b1, s = ε t
    carried = list(range(len(Kt))) if st.masked else list(range(1, len(Kt)))
    rows, b2, V = [], [], []
    for k, t in zip(carried, st.types):
        z = Kt[k] + b1
        if t == SW:
            rows.append(Q(1)); b2.append(-z); V.append(st.deltas[k])
        else:
            rows.append(Q(-1)); b2.append(z); V.append(st.deltas[k])
    ones = tuple(Q(1) for _ in range(m))
    lin_V = [tuple(Q(e + 1) * v for v in ones) for e in range(st.n_linear - 1)]
    if st.n_linear:
        first = st.gamma
        for v in lin_V:
            first = _sub(first, v)
        while all(x == 0 for x in first):
            lin_V = [tuple(2 * x for x in v) for v in lin_V]
            first = st.gamma
            for v in lin_V:
                first = _sub(first, v)
        for e, v in enumerate([first] + lin_V):
            rows.append(Q(1)); b2.append(Q(e + 1)); V.append(v)
    for e in range(st.n_dead):
        rows.append(Q(-1)); b2.append(Q(-(e + 1))); V.append(ones)
    # the constant on the left: h(0) = Σ_{linear, clipped} V_j c_j + b3 = F(left)
    left = _F(P, eps * (Kt[0] - 1))
    b3 = list(left)
    for w, c, v in zip(rows, b2, V):
        if c > 0:
            b3 = [y - x * c for y, x in zip(b3, v)]
    W3 = [[V[j][o] for j in range(len(V))] for o in range(m)]
    return Network.from_rows([[[eps * x for x in a]], [[w] for w in rows], W3],
                             [[b1], b2, b3])


def system(ring_names, P, st: Stratum, poly):
    """(equalities, positives) of the stratum, rows ordered as in :func:`representative`;
    *poly* builds a variable from a name (the fiber module's sparse polynomials)."""
    g = {n: poly(n) for n in ring_names}
    d, m = P.d, P.m
    a = [P.R1[0][c] for c in range(d)]
    p0 = next(c for c in range(d) if a[c] != 0)
    eqs, pos = [], []
    W1 = [g[f"W1[0,{c}]"] for c in range(d)]
    b1 = g["b1[0]"]
    eqs += [W1[c] * a[p0] - W1[p0] * a[c] for c in range(d) if c != p0]
    lam = W1[p0] * Q(st.eps) / a[p0]                       # λ > 0
    pos.append(lam)
    Kt = st.kinks
    z1 = lam * Kt[0] + b1                                  # position of the first kink in z
    (pos if st.masked else eqs).append(z1)
    carried = list(range(len(Kt))) if st.masked else list(range(1, len(Kt)))
    j = 0
    w = lambda j: g[f"W2[{j},0]"]
    c = lambda j: g[f"b2[{j}]"]
    V = lambda o, j: g[f"W3[{o},{j}]"]
    const = [g[f"b3[{o}]"] for o in range(m)]
    for k, t in zip(carried, st.types):
        eqs.append(c(j) + w(j) * (lam * Kt[k] + b1))
        sgn = 1 if t == SW else -1
        pos.append(w(j) * sgn)
        eqs += [V(o, j) * w(j) * lam * sgn - st.deltas[k][o] for o in range(m)]
        if t == CLIP:
            const = [const[o] + V(o, j) * c(j) for o in range(m)]
        j += 1
    lin = list(range(j, j + st.n_linear))
    for jj in lin:
        pos += [w(jj), c(jj)]
        const = [const[o] + V(o, jj) * c(jj) for o in range(m)]
    if lin:
        for o in range(m):
            e = V(o, lin[0]) * w(lin[0]) * lam
            for jj in lin[1:]:
                e = e + V(o, jj) * w(jj) * lam
            eqs.append(e - st.gamma[o])
    for jj in range(j + st.n_linear, j + st.n_linear + st.n_dead):
        pos += [-w(jj), -c(jj)]
    left = _F(P, st.eps * (Kt[0] - 1))
    eqs += [const[o] - left[o] for o in range(m)]
    return [e for e in eqs if not e.is_zero()], pos


# -- components: labelled strata glued by g1–g3 (R16a) ------------------------------------------------
def _labelled(st: Stratum, n2: int):
    """Role tuples: ('k', i) for the row carrying the i-th carried kink, 'L', 'D'."""
    k = len(st.types)
    for kin in permutations(range(n2), k):
        rest = [j for j in range(n2) if j not in kin]
        for L in combinations(rest, st.n_linear):
            roles = ["D"] * n2
            for i, j in enumerate(kin):
                roles[j] = ("k", i)
            for j in L:
                roles[j] = "L"
            yield tuple(roles)


def _moves(key, roles):
    """The gluing moves g1–g3 of R16a from one labelled stratum: (target key, roles, name)."""
    eps, masked, types, nL, nD = key
    if masked:                                         # g1: p → K_1, the first kink row's bias → 0
        new = []
        for r in roles:
            if r == ("k", 0):
                new.append("L" if types[0] == SW else "D")
            elif isinstance(r, tuple):
                new.append(("k", r[1] - 1))
            else:
                new.append(r)
        yield (eps, False, types[1:], nL + (types[0] == SW), nD + (types[0] == CLIP)), tuple(new), "g1"
    if nL >= 1:
        for j, r in enumerate(roles):
            if r != "D":
                continue
            new = list(roles)                          # g2: a dead row becomes linear
            new[j] = "L"
            yield (eps, masked, types, nL + 1, nD - 1), tuple(new), "g2"
            for jj, rr in enumerate(roles):            # g3: a kink moves to the dead row, flipped
                if isinstance(rr, tuple):
                    i = rr[1]
                    t2 = types[:i] + ((CLIP if types[i] == SW else SW),) + types[i + 1:]
                    new = list(roles)
                    new[j], new[jj] = rr, "D"
                    yield (eps, masked, t2, nL, nD), tuple(new), "g3"


def glue_brute(strata, n2: int):
    """Classes of labelled strata under g1–g3 by enumerating every labelled stratum (the
    cross-check of :func:`glue` on small widths)."""
    by_key = {st.key for st in strata}
    nodes = [(st.key, roles) for st in strata for roles in _labelled(st, n2)]
    parent = {x: x for x in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for x in nodes:
        for tk, roles, _ in _moves(*x):
            if tk in by_key:
                parent[find(x)] = find((tk, roles))
    return len({find(x) for x in nodes})


def _canonical_roles(st: Stratum, n2: int) -> tuple:
    k = len(st.types)
    return tuple([("k", i) for i in range(k)] + ["L"] * st.n_linear + ["D"] * st.n_dead)


def _perm_to(base: tuple, roles: tuple) -> list:
    """π with roles[π(i)] = base[i] (linear and dead rows matched in order)."""
    where = {r: j for j, r in enumerate(roles) if isinstance(r, tuple)}
    L = iter(j for j, r in enumerate(roles) if r == "L")
    D = iter(j for j, r in enumerate(roles) if r == "D")
    return [where[r] if isinstance(r, tuple) else next(L if r == "L" else D) for r in base]


def _compose(a, b):                  # a ∘ b
    return [a[x] for x in b]


def _inverse(a):
    out = [0] * len(a)
    for i, x in enumerate(a):
        out[x] = i
    return out


def glue(strata, n2: int):
    """(number of glued components, number of labelled strata, stratum-level glue edges).

    The symmetric group S_{n2} permutes the rows of labelled strata and commutes with g1–g3, so
    over each connected piece C of the strata graph (edges: the moves) the classes are one
    S_{n2}-orbit: their number is n2! / |Stab|, the stabiliser of the class of a base labelled
    stratum generated (Schreier) by the loops of a spanning tree and the permutations of the
    linear rows and of the dead rows of each stratum (sympy's exact group order)."""
    from sympy.combinatorics import Permutation, PermutationGroup
    by_key = {st.key: st for st in strata}
    total = sum(st.copies for st in strata)
    base = {st.key: _canonical_roles(st, n2) for st in strata}
    out = {}                                       # key -> [(target key, σ, why)]
    edges = set()
    for key, r in base.items():
        out[key] = []
        for tk, roles, why in _moves(key, r):
            if tk in by_key:
                out[key].append((tk, _perm_to(base[tk], roles), why))
                edges.add((key, tk, why))
    adj = {}
    for key in base:                               # undirected: moves are paths both ways
        for tk, sig, _ in out[key]:
            adj.setdefault(key, []).append((tk, sig))
            adj.setdefault(tk, []).append((key, _inverse(sig)))
    seen, comps = set(), 0
    ident = list(range(n2))
    for root in base:
        if root in seen:
            continue
        g = {root: ident}
        gens, queue = [], [root]
        seen.add(root)
        while queue:
            x = queue.pop()
            for y, sig in adj.get(x, []):
                gy = _compose(g[x], sig)
                if y not in g:
                    g[y] = gy
                    seen.add(y)
                    queue.append(y)
                else:
                    gens.append(_compose(gy, _inverse(g[y])))
        for key, gx in g.items():                  # each stratum's own stabiliser, transported
            st = by_key[key]
            k = len(st.types)
            for lo, n in ((k, st.n_linear), (k + st.n_linear, st.n_dead)):
                for i in range(lo, lo + n - 1):
                    s = list(range(n2))
                    s[i], s[i + 1] = s[i + 1], s[i]
                    gens.append(_compose(_compose(gx, s), _inverse(gx)))
        gens = [p for p in gens if p != ident]
        order = PermutationGroup([Permutation(p) for p in gens]).order() if gens else 1
        comps += factorial(n2) // order
    return comps, total, edges


def strata_graph(strata, edges) -> nx.Graph:
    """Nodes: strata (index in *strata*); edges: g1–g3 gluings, S5 (one kink's type flipped, the
    same row counts), S8 (the kink swap: the opposite orientation, visible, every kink row clipped, no
    linear row) or "mirror" (the opposite orientation, the same kinds and counts: the strata of
    F(−s), no map between them claimed)."""
    G = nx.Graph()
    idx = {st.key: k for k, st in enumerate(strata)}
    for k, st in enumerate(strata):
        G.add_node(k, label=json.dumps(st.label()), dimension=st.dimension)
    for a, b, why in edges:
        if a != b:
            G.add_edge(idx[a], idx[b], step=why)
    for st in strata:
        eps, masked, types, nL, nD = st.key
        for i in range(len(types)):
            t2 = types[:i] + ((CLIP if types[i] == SW else SW),) + types[i + 1:]
            o = (eps, masked, t2, nL, nD)
            if o in idx and not G.has_edge(idx[st.key], idx[o]):
                G.add_edge(idx[st.key], idx[o], step="S5")
        o = (-eps, masked, types, nL, nD)
        if o in idx and not G.has_edge(idx[st.key], idx[o]):
            s8 = not masked and nL == 0 and set(types) <= {CLIP}     # the kink swap S8
            G.add_edge(idx[st.key], idx[o], step="S8" if s8 else "mirror")
    return G


def check_same_function(net: Network, rep: Network, P, K) -> bool:
    """Exact equality of the two functions (a proof, not a sample): *rep*'s first-layer row must
    be λ·(the net's), λ ≠ 0, so both depend on x only through t = W1 x; along t both are affine
    between the union of their kinks (the net's *K*, *rep*'s mapped by t = t'/λ), so equality
    at every point of that union and at one point beyond each end is equality everywhere."""
    from ._structure import Parts
    a = [P.R1[0][c] for c in range(P.d)]
    R = Parts.of(rep)
    a2 = [R.R1[0][c] for c in range(P.d)]
    p0 = next(c for c in range(P.d) if a[c] != 0)
    lam = a2[p0] / a[p0]
    if lam == 0 or any(a2[c] != lam * a[c] for c in range(P.d)):
        return False
    pts = sorted(set(K) | {k / lam for k in kinks_and_slopes(R)[0]})
    ts = pts + [pts[0] - 1, pts[-1] + 1] if pts else [Q(0), Q(1)]
    for t in ts:
        x = [Q(0)] * P.d
        x[p0] = t / a[p0]
        if net(x) != rep(x):
            return False
    return True
