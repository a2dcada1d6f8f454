r"""Three-layer bottleneck networks: the fiber (R16, R17), FIBDIM (R22), random symmetric copies.

For ``f = W3 σ(W2 σ(W1 x + b1) + b2) + b3`` with ``n1 ≤ d`` (three-layer-fibers §5–§8), on top
of the genericity checks, structure and CANON of :mod:`semialgebraic.bottleneck`:

* :func:`jacobian_dimension` — FIBDIM (R22): ``N − rank`` of the exact Jacobian at d + 1
  inputs per activation pattern;
* :func:`fiber_bottleneck` — the fiber as components (basic semi-algebraic sets up to the
  permutation action) with their dimensions, checked against R17 and FIBDIM, and the networkx
  symmetry graph (:class:`BottleneckFiber`, :class:`FiberComponent`);
* :func:`random_symmetric_copy` — a planted copy by random exact S1–S8 steps;
* :func:`non_localizability_example` — the R19 example.

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
...                         [[0, 0], [-1, -3], [0]])
>>> jacobian_dimension(net)
8
"""

from __future__ import annotations

import random
from itertools import combinations
from typing import Sequence

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.polynomials import Ring
from algebra.rationals import Q, q_str, to_q
from algebra.symmetries.bottleneck import (KinkSwap, PermuteHidden, RescaleHidden, SignFlip,
                                         TailRefactor, TranslateMasked)

from .bottleneck import identifiability
from .bottleneck_canon import equivalent_bottleneck
from .bottleneck_structure import (DEAD, LINEAR, SWITCHING, _Parts, _masked, _pinv_map,
                                   _proportional_pair, _types, dimension_formula, genericity,
                                   is_bottleneck, is_generic, structure)
from .certificates import jsonable
from .exceptions import NonGenericError
from .regions import regions as _regions      # one interior point per region, for FIBDIM
from .sets import BasicSet, Dimension
from .shallow import fiber_shallow, positive_factor_rank, positive_in_row_space
from .symmetry_graph import count_components, symmetry_graph

__all__ = ["jacobian_dimension", "fiber_bottleneck", "BottleneckFiber", "FiberComponent",
           "random_symmetric_copy", "non_localizability_example"]

def jacobian_dimension(net: Network, *, points_per_pattern: int | None = None,
                       samples: int = 2000, seed: int = 0) -> int:
    """FIBDIM (R22): ``N − rank`` of the exact Jacobian of θ ↦ (f_θ(x))_x.

    Inputs: one interior point per activation pattern (from ``semialgebraic.regions`` when
    available, else sampled in the first layer's pre-activation space), completed to d + 1
    affinely independent points of the same pattern (exact pattern checks).  Missing a region
    can only make the result too large (P10).
    """
    rng = random.Random(seed)
    if not is_bottleneck(net) or net.layer(0)[0].rank() != net.widths[1]:
        raise NonGenericError("G0/G1 (FIBDIM samples through a surjective first layer)",
                              {"widths": list(net.widths)})
    P = _Parts.of(net)
    pts = _pattern_points(net, P, rng, samples)
    rows = []
    for x in pts:
        rows += _jacobian_rows(P, x)
    if not rows:
        return net.n_parameters
    return net.n_parameters - QMatrix.from_rows(rows).rank()


# =============================================================================================
# explicit fiber (R16, R17)
# =============================================================================================

class FiberComponent:
    """One component of the fiber up to permutations (R16): a basic semi-algebraic set
    ``{θ' : p(θ') = 0 for p in equalities, q(θ') > 0 for q in positive}`` in the parameter ring
    (polynomials over Q in the names ``W1[0,0]``, …), with its discrete label (S5 flips, S7
    flips, S8 choice), the continuous generators at its representative and their span's rank.
    """

    def __init__(self, ring, equalities, positive, label, dimension, representative=None,
                 generators=None, generator_rank=None):
        self.ring, self._eqs, self._pos = ring, list(equalities), list(positive)
        self.label, self.representative = label, representative
        self._dim = dimension
        self.generators = generators or {}
        self.generator_rank = generator_rank
        self._polys = None

    def _materialise(self):
        if self._polys is None:
            self._polys = ([p.to_polynomial(self.ring) for p in self._eqs],
                           [q.to_polynomial(self.ring) for q in self._pos])
        return self._polys

    @property
    def equalities(self) -> list:
        """The equalities as :class:`~algebra.polynomials.Polynomial` (built on first use)."""
        return self._materialise()[0]

    @property
    def positive(self) -> list:
        return self._materialise()[1]

    @property
    def number_of_equalities(self) -> int:
        return len(self._eqs)

    @property
    def number_of_inequalities(self) -> int:
        return len(self._pos)

    @property
    def basic_set(self):
        """The sets helper's ``BasicSet`` of this component (None when unavailable)."""
        return _basic_set(self.ring, self.equalities, self.positive)

    @property
    def dimension(self) -> Dimension:
        return self._dim

    def contains(self, point) -> bool:
        """Exact membership of a parameter vector or a Network (no permutation applied)."""
        if isinstance(point, Network):
            point = point.parameters()
        vals = dict(zip(self.ring.names, (to_q(x) for x in point)))
        return all(p(vals) == 0 for p in self._eqs) and all(q(vals) > 0 for q in self._pos)

    def sample(self):
        return None if self.representative is None else self.representative.parameters()

    def to_json(self) -> dict:
        return jsonable({"label": self.label, "dimension": self._dim.value,
                         "equalities": [str(p) for p in self._eqs],
                         "inequalities": [f"{q} > 0" for q in self._pos],
                         "sample": None if self.representative is None else list(self.sample()),
                         "generators": {k: len(v) for k, v in self.generators.items()},
                         "generator_rank": self.generator_rank})

    def to_latex(self) -> str:
        eqs = [p.to_latex() + " = 0" for p in self.equalities]
        ins = [q.to_latex() + " > 0" for q in self.positive]
        return r"\left\{\theta : " + r",\ ".join(eqs + ins) + r"\right\}"


class BottleneckFiber:
    """The fiber of a generic three-layer bottleneck network (R16, R17); the interface of
    ``semialgebraic.fiber.Fiber``: components (up to permutations), dimension (R17, checked
    against FIBDIM where computed), numbers of components and orbits, symmetry graph,
    ``contains`` (CANON), JSON and LaTeX."""

    def __init__(self, net, components, dimension, number_of_components, number_of_orbits,
                 graph=None, fibdim=None, notes=(), membership=None):
        self.net, self.components, self.dimension = net, components, dimension
        self.membership = membership
        self.number_of_components, self.number_of_orbits = number_of_components, number_of_orbits
        self.graph, self.fibdim, self.notes = graph, fibdim, list(notes)

    def contains(self, theta: Network) -> bool:
        """Does *theta* realise the same function?  Generic θ': CANON equality (R20, with a
        verified certificate); otherwise ``membership`` (the exact equivalence dispatcher, given
        by :func:`semialgebraic.fiber.fiber`), else NonGenericError."""
        v = equivalent_bottleneck(self.net, theta)
        if v.answer is None and self.membership is not None:
            v = self.membership(self.net, theta)
        if v.answer is None:
            raise NonGenericError("fiber membership undecided", v.reason)
        return v.answer

    def to_json(self) -> dict:
        return jsonable({"network": self.net.to_dict(), "dimension": self.dimension.value,
                         "dimension_detail": self.dimension.to_json(),
                         "jacobian_dimension": self.fibdim,
                         "number_of_components": self.number_of_components,
                         "number_of_orbits": self.number_of_orbits,
                         "components": [c.to_json() for c in self.components],
                         "symmetries": _symmetry_names(self), "notes": self.notes})

    def to_latex(self) -> str:
        parts = [c.to_latex() for c in self.components]
        return (r"\mathrm{Fib}(\theta) = \bigcup_{\pi \in S} \pi\cdot\left(" + r" \cup ".join(parts)
                + r"\right)")


def fiber_bottleneck(net: Network, *, jacobian: bool | None = None,
                     max_enumerated_flips: int = 8,
                     generators: bool | None = None, membership=None) -> BottleneckFiber:
    """Explicit fiber of a generic three-layer bottleneck network (R16, R17).

    Components up to permutations are indexed by the discrete choices (S5 flip sets that the
    linear neurons can absorb, n_L ≥ κ₊(Γ'); S7 flip sets; S8).  Each is a basic semi-algebraic
    set given by polynomial equalities (first-layer directions, ridge directions and output
    weights up to S2, the linear block carrying (Γ', γ')) and strict sign conditions (positive
    scalings, dead cones, masking pattern = S6 interval, positive linear rows).  The dimension
    is R17; *jacobian* (default: when N ≤ 60) also computes FIBDIM (R22) and the two must agree,
    else NonGenericError (P5).  The rank of the span of the continuous generators (S2, S3, S4,
    S6) at the representative is computed exactly and must agree as well.
    """
    bad = next((h for h in genericity(net) if not h.holds), None)
    if bad is not None:
        raise NonGenericError(bad.name, jsonable(bad.witness))
    dim = dimension_formula(net)
    fd = None
    if jacobian is None:
        jacobian = net.n_parameters <= 60
    if jacobian:
        fd = jacobian_dimension(net)
        if fd != dim.value:
            raise NonGenericError("R17 formula = FIBDIM", {"formula": dim.value, "jacobian": fd})
    P = _Parts.of(net)
    types = _types(P)
    ring = _ring(net)
    labels, notes = _discrete_labels(net, P, types, max_enumerated_flips)
    comps = []
    for lab in labels:
        rep = _representative(net, lab)
        if rep is None and (lab["flips"] or lab["s7"] or lab["s8"]):
            notes.append(f"component {lab}: no explicit point constructed; left out")
            continue
        eqs, pos = _component_system(ring, rep if rep is not None else net, lab, P, types)
        if generators is None:
            generators = net.n_parameters <= 4000
        gens, grank = _generators(rep if rep is not None else net) if generators else ({}, None)
        if grank is not None and grank != dim.value:
            notes.append(f"component {lab}: generator span rank {grank} != {dim.value}")
        comps.append(FiberComponent(ring, eqs, pos, lab, dim, rep, gens, grank))
    F = BottleneckFiber(net, comps, dim, 0, 0, None, fd, notes, membership)
    F.structure = structure(net)
    F.graph = symmetry_graph(F)
    F.number_of_components, F.number_of_orbits = count_components(F)
    return F


def _ring(net: Network):
    return Ring.get(net.parameter_names())


def _basic_set(ring, equalities, positive):
    return BasicSet(ring, equalities=tuple(equalities), positive=tuple(positive))


def _symmetry_names(F) -> list:
    s = structure(F.net)
    out = ["S1", "S2"]
    if s.count(DEAD):
        out.append("S3")
    if s.linear:
        out.append("S4")
    if any(c.label.get("flips") for c in F.components):
        out.append("S5")
    if s.masked is not None:
        out.append("S6")
    if s.s7_applies:
        out.append("S7")
    if s.s8_applies:
        out.append("S8")
    return out


def _discrete_labels(net, P, types, cap) -> tuple[list, list]:
    """Labels {flips: S5 set, s7: S7 set, s8: bool} of the components up to permutation."""
    s = structure(net)
    notes = []
    A = [j for j, t in enumerate(types) if t == SWITCHING]
    L = list(s.linear)
    flip_sets = [()]
    if L and A:
        if len(A) <= cap:
            flip_sets = []
            for k in range(len(A) + 1):
                for S in combinations(A, k):
                    G = _flipped_gamma(P, L, S)[0]
                    if len(L) >= positive_factor_rank(G)[0]:
                        flip_sets.append(S)
        else:
            notes.append(f"{len(A)} switching neurons: S5 flip sets not enumerated")
    s7_sets = [()]
    if s.s7_applies:
        others = [k for k in range(P.n1) if k != s.masked]
        s7_sets = [S for k in range(len(others) + 1) for S in combinations(others, k)]
        if len(s7_sets) > 2 ** cap:
            s7_sets = [()]
            notes.append("S7 flip sets not enumerated")
    s8 = [False, True] if s.s8_applies else [False]
    labels = [{"flips": list(f), "s7": list(g), "s8": h} for f in flip_sets for g in s7_sets for h in s8]
    return labels, notes


def _flipped_gamma(P, L, S):
    rows = list(L) + list(S)
    if not rows:
        return QMatrix.zeros(P.m, P.n1), tuple(P.b3)
    VL = QMatrix.from_rows([P.V[j] for j in rows]).T
    WL = QMatrix.from_rows([P.R2[j] for j in rows])
    prod = VL @ WL
    return prod.submatrix(cols=range(P.n1)), tuple(P.b3[o] + prod[o, P.n1] for o in range(P.m))


def _representative(net: Network, lab: dict) -> Network | None:
    """A parameter in the component *lab* (S7/S8 moves, S5 flips with an explicit positive
    factorisation of the new linear block); None when no explicit point is constructed."""
    out = _discrete_move(net, lab)
    return None if out is None else out[0]


def _discrete_move(net: Network, lab: dict):
    """(network, steps) reaching the component *lab* from *net*, or None."""
    cur, steps = net, []
    s = structure(net)
    if lab["s7"]:
        steps.append(SignFlip(s.masked, lab["s7"]))
        cur = steps[-1].apply(cur)
    if lab["s8"]:
        steps.append(KinkSwap())
        cur = steps[-1].apply(cur)
    if lab["flips"]:
        P = _Parts.of(cur)
        L = list(s.linear)
        G, g = _flipped_gamma(P, L, lab["flips"])
        fac = _positive_factorization(G, len(L))
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
        P = _Parts.of(cur)
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
            others = [k for k in range(n1) if k != s.masked]
            st = [SignFlip(s.masked, rng.sample(others, rng.randint(1, len(others))))]
        elif mv == "s8":
            st = [KinkSwap()]
        else:
            mvd = _discrete_move(cur, {"flips": [rng.choice(sw)], "s7": [], "s8": False})
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


def _positive_factorization(G: QMatrix, nL: int):
    """Γ = V W with W > 0 entrywise and nL rows (R6 construction), or None."""
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


class _Poly:
    """Sparse polynomial over Q in named parameters: {sorted tuple of names: coefficient}.

    Used to build fiber systems in huge parameter rings (N ~ 10^5) where a dense-exponent
    ``fmpq_mpoly`` per equation would not fit; converted to :class:`Polynomial` on demand."""

    __slots__ = ("t",)

    def __init__(self, t=None):
        self.t = t or {}

    @staticmethod
    def var(name):
        return _Poly({(name,): Q(1)})

    def _c(self, o):
        return o if isinstance(o, _Poly) else _Poly({(): to_q(o)} if o != 0 else {})

    def __add__(self, o):
        o = self._c(o)
        t = dict(self.t)
        for k, v in o.t.items():
            x = t.get(k, 0) + v
            if x == 0:
                t.pop(k, None)
            else:
                t[k] = x
        return _Poly(t)

    __radd__ = __add__

    def __neg__(self):
        return _Poly({k: -v for k, v in self.t.items()})

    def __sub__(self, o):
        return self + (-self._c(o))

    def __rsub__(self, o):
        return self._c(o) - self

    def __mul__(self, o):
        o = self._c(o)
        t = {}
        for k1, v1 in self.t.items():
            for k2, v2 in o.t.items():
                k = tuple(sorted(k1 + k2))
                x = t.get(k, 0) + v1 * v2
                if x == 0:
                    t.pop(k, None)
                else:
                    t[k] = x
        return _Poly(t)

    __rmul__ = __mul__

    def __truediv__(self, c):
        c = to_q(c)
        return _Poly({k: v / c for k, v in self.t.items()})

    def is_zero(self):
        return not self.t

    def __call__(self, values: dict):
        tot = Q(0)
        for k, v in self.t.items():
            x = v
            for n in k:
                x = x * values[n]
            tot += x
        return tot

    def to_polynomial(self, ring):
        out = ring.zero()
        g = {}
        for k, v in self.t.items():
            term = ring.constant(v)
            for n in k:
                if n not in g:
                    g[n] = ring.gen(n)
                term = term * g[n]
            out = out + term
        return out

    def __str__(self):
        if not self.t:
            return "0"
        parts = []
        for k, v in sorted(self.t.items()):
            mon = "*".join(k)
            if not k:
                parts.append(q_str(v))
            elif v == 1:
                parts.append(mon)
            elif v == -1:
                parts.append("-" + mon)
            else:
                parts.append(f"{q_str(v)}*{mon}")
        return " + ".join(parts).replace("+ -", "- ")


def _component_system(ring, rep: Network, lab, P0, types):
    """Polynomial equalities and strict inequalities of one component around *rep*."""
    P = _Parts.of(rep)
    g = {n: _Poly.var(n) for n in ring.names}
    zero = _Poly()
    n1, n2, m, d = P.n1, P.n2, P.m, P.d
    W1 = lambda i, c: g[f"W1[{i},{c}]"] if c < d else g[f"b1[{i}]"]
    W2 = lambda j, i: g[f"W2[{j},{i}]"] if i < n1 else g[f"b2[{j}]"]
    W3 = lambda o, j: g[f"W3[{o},{j}]"]
    b3 = lambda o: g[f"b3[{o}]"]
    eqs, pos = [], []
    istar = _masked(P0, types)
    if all(t == DEAD for t in types):
        for j in range(n2):
            pos += [-W2(j, i) for i in range(n1 + 1)]
        eqs += [b3(o) - P.b3[o] for o in range(m)]
        return eqs, pos
    piv = []
    for i in range(n1):
        r = P.R1[i]
        p = next(c for c in range(d) if r[c] != 0)
        piv.append(p)
        cols = [c for c in range(d + 1) if c != p and (i != istar or c < d)]
        eqs += [W1(i, c) * r[p] - W1(i, p) * r[c] for c in cols]
        pos.append(W1(i, p) * (1 if r[p] > 0 else -1))
    lam = lambda i: W1(i, piv[i]) / P.R1[i][piv[i]]       # λ_i as a polynomial
    for j, t in enumerate(types):
        r, V = P.R2[j], P.V[j]
        if t == DEAD:
            pos += [-W2(j, i) for i in range(n1 + 1)]
        elif t == SWITCHING and istar is None:
            # μ_j = b2'_j / r_b ; W2'[j,i] λ_i = μ_j r_i ; V'_j μ_j = V_j
            eqs += [W2(j, i) * lam(i) * r[-1] - W2(j, n1) * r[i] for i in range(n1)]
            eqs += [W3(o, j) * W2(j, n1) - V[o] * r[-1] for o in range(m)]
            pos.append(W2(j, n1) * (1 if r[-1] > 0 else -1))
        elif t == SWITCHING:
            bt = r[-1] + r[istar] * P.R1[istar][-1]             # b̃2_j (invariant)
            mu = W2(j, istar) * lam(istar)                       # = μ_j r[istar]
            eqs += [W2(j, i) * lam(i) * r[istar] - mu * r[i] for i in range(n1) if i != istar]
            eqs.append((W2(j, n1) + W2(j, istar) * W1(istar, d)) * r[istar] - mu * bt)
            eqs += [W3(o, j) * mu - V[o] * r[istar] for o in range(m)]
            pos.append(W2(j, istar))
            pos.append(-W2(j, n1))
        else:
            pos += [W2(j, i) for i in range(n1 + 1)]
    L = [j for j, t in enumerate(types) if t == LINEAR]
    if istar is None:
        G, gm = _flipped_gamma(P, L, ())
        for o in range(m):
            for i in range(n1):
                e = sum((W3(o, j) * W2(j, i) for j in L), zero) * lam(i) - G[o, i]
                if L or G[o, i] != 0:
                    eqs.append(e)
            eqs.append(sum((W3(o, j) * W2(j, n1) for j in L), zero) + b3(o) - gm[o])
    else:
        eqs += [b3(o) - P.b3[o] for o in range(m)]
    return [e for e in eqs if not e.is_zero()], pos


def _generators(net: Network) -> tuple[dict, int]:
    """Tangent vectors of S2, S3, S4, S6 at *net* (flat order) and the exact rank of their span."""
    P = _Parts.of(net)
    types = _types(P)
    names = net.parameter_names()
    idx = {n: k for k, n in enumerate(names)}
    N = len(names)
    gens = {"S2": [], "S3": [], "S4": [], "S6": []}
    if all(t == DEAD for t in types):        # P12: constant function, the first layer is free
        for c in names:
            if c.startswith("W1[") or c.startswith("b1["):
                v = [Q(0)] * N
                v[idx[c]] = Q(1)
                gens["S3"].append(tuple(v))
    else:
        for i in range(P.n1):
            gens["S2"] += RescaleHidden(1, i, 2).generator(net)
    for j, t in enumerate(types):
        if t == SWITCHING:
            gens["S2"] += RescaleHidden(2, j, 2).generator(net)
        elif t == DEAD:
            for c in [f"W2[{j},{i}]" for i in range(P.n1)] + [f"b2[{j}]"] + \
                    [f"W3[{o},{j}]" for o in range(P.m)]:
                v = [Q(0)] * N
                v[idx[c]] = Q(1)
                gens["S3"].append(tuple(v))
    L = [j for j, t in enumerate(types) if t == LINEAR]
    if L:
        coords = [f"W2[{j},{i}]" for j in L for i in range(P.n1)] + [f"b2[{j}]" for j in L] + \
                 [f"W3[{o},{j}]" for o in range(P.m) for j in L] + [f"b3[{o}]" for o in range(P.m)]
        ring = _ring(net)
        g = {n: ring.gen(n) for n in coords}
        eqs = []
        for o in range(P.m):
            for i in range(P.n1):
                eqs.append(sum((g[f"W3[{o},{j}]"] * g[f"W2[{j},{i}]"] for j in L), ring.zero()))
            eqs.append(sum((g[f"W3[{o},{j}]"] * g[f"b2[{j}]"] for j in L), ring.zero()) + g[f"b3[{o}]"])
        pt = net.parameters()
        J = QMatrix.from_rows([[e.diff(c)(pt) for c in coords] for e in eqs])
        K = J.nullspace()
        for t in range(K.nrows):
            v = [Q(0)] * N
            for c, x in zip(coords, K.row_at(t)):
                v[idx[c]] = x
            gens["S4"].append(tuple(v))
    istar = _masked(P, types)
    if istar is not None:
        gens["S6"] += TranslateMasked(istar, 0).generator(net)
    allv = [v for vs in gens.values() for v in vs]
    rank = QMatrix.from_rows(allv).rank() if allv else 0
    return gens, rank


# =============================================================================================
# non-localizability (R19)
# =============================================================================================

def non_localizability_example() -> dict:
    """R19: blockwise identifiability does not give identifiability of f3∘f2∘f1.

    Builds the T1 weights, checks the blocks (f3∘f2 as a one-hidden-layer network on R²: two
    switching neurons with non-proportional rows; f1 alone: full-rank layer) and the composite
    (not identifiable: dead row 1, masked column 0), and explains the difference.
    """
    net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
                            [[0, 0], [-1, -3], [0]])
    W2, b2 = net.layer(1)
    rows = [tuple(W2.row_at(j)) + (b2[j],) for j in range(2)]
    tail_ok = _proportional_pair(rows) is None and all(any(x != 0 for x in r[:-1]) for r in rows)
    tail = Network([W2, net.layer(2)[0]], [b2, net.layer(2)[1]])
    tail_dim = fiber_shallow(tail).dimension.value
    f1_ok = net.layer(0)[0].rank() == 2
    comp = identifiability(net)
    return {"network": net.to_dict(),
            "tail_identifiable_on_R2": tail_ok,
            "tail_reason": "on all of R^2 both second-layer neurons have non-zero weights and "
                           "non-proportional rows: two visible ridges, identifiable up to S1 + S2 "
                           "[derived]",
            "tail_fiber_dimension_on_R2": tail_dim,
            "first_layer_identifiable": f1_ok,
            "first_layer_reason": "W1 = I has full rank; a single ReLU layer is identifiable up to "
                                  "S1 + S2 [derived, not checked]",
            "composite_identifiable": comp.answer,
            "composite_reason": comp.reason,
            "explanation": "f1 maps R^2 onto the closed orthant; on the orthant row 1 is dead (S3 "
                           "freedom) and column 0 is masked (S6 translation, t in [-1, 3/2]): the "
                           "image of f1 hides structure that neither block shows alone",
            "certificate": comp.certificate}



def _pattern_points(net: Network, P: _Parts, rng: random.Random, samples: int) -> list:
    """d + 1 affinely independent exact inputs per activation pattern found."""
    seeds = {}
    for reg in _regions(net):
        seeds.setdefault(tuple(reg.pattern), tuple(reg.point))
    if not seeds:
        x_of, _ = _pinv_map(P)
        W1 = P.W1
        kern = W1.nullspace()
        for t in range(samples):
            u = [Q(rng.choice((-1, 1)) * rng.randint(1, 64) * 2 ** rng.randint(0, 8), 16)
                 for _ in range(P.n1)]
            x = list(x_of(u))
            for kr in range(kern.nrows):
                c = Q(rng.randint(-8, 8), rng.randint(1, 4))
                x = [xi + c * ki for xi, ki in zip(x, kern.row_at(kr))]
            pat = net.activation_pattern(x)
            if 0 in pat:
                continue
            seeds.setdefault(pat, tuple(x))
    out = []
    d = net.n_inputs
    for pat, p in seeds.items():
        out.append(p)
        for k in range(d):
            eps = Q(1)
            for _ in range(80):
                q = list(p)
                q[k] = q[k] + eps
                if net.activation_pattern(q) == pat:
                    out.append(tuple(q))
                    break
                eps = eps / 4
    return out


def _jacobian_rows(P: _Parts, x) -> list:
    """Rows ∂f_o/∂θ at x (R22), flat parameter order."""
    n1, n2, m, d = P.n1, P.n2, P.m, P.d
    u = [sum((r[k] * x[k] for k in range(d)), r[-1]) for r in P.R1]
    z = [ui if ui > 0 else Q(0) for ui in u]
    a1 = [1 if ui > 0 else 0 for ui in u]
    v = [sum((r[k] * z[k] for k in range(n1)), r[-1]) for r in P.R2]
    y = [vi if vi > 0 else Q(0) for vi in v]
    a2 = [1 if vi > 0 else 0 for vi in v]
    rows = []
    for o in range(m):
        g = [a1[i] * sum((P.V[j][o] * a2[j] * P.R2[j][i] for j in range(n2)), Q(0)) for i in range(n1)]
        row = []
        for i in range(n1):
            row += [g[i] * x[k] for k in range(d)]
        row += g
        for j in range(n2):
            c = P.V[j][o] * a2[j]
            row += [c * z[i] for i in range(n1)]
        row += [P.V[j][o] * a2[j] for j in range(n2)]
        for oo in range(m):
            row += [y[j] if oo == o else Q(0) for j in range(n2)]
        row += [Q(1) if oo == o else Q(0) for oo in range(m)]
        rows.append(row)
    return rows
