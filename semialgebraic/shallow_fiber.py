r"""One hidden layer: fibers on R^d and on the orthant, κ₊ (R6), dimension bounds, analysis.

Contents: :func:`positive_factor_rank` (three-layer-fibers R6, exact LP); :func:`fiber_shallow`
with :class:`Fiber` / :class:`FiberComponent` (re-exported and dispatched by
:mod:`semialgebraic.fiber`, whose docstring describes the fiber); :func:`symmetry_tangent_rank`
and :func:`jacobian_rank_bound` (the two sides of the dimension check); :func:`analysis_shallow`
(the ``netfibers analyze`` report).  The canonical form and the equivalence decision they rest
on are in :mod:`semialgebraic.shallow`.
"""

from __future__ import annotations

import random
from itertools import combinations
from math import factorial
from typing import Sequence

import networkx as nx

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.polynomials import Ring
from algebra.rationals import Q
from algebra.symmetries.neurons import (hidden_neurons, is_dead_row, is_linear_row,
                                        with_hidden_neurons)

from . import lp
from .certificates import jsonable
from .exceptions import NotApplicableError
from .sets import BasicSet, Dimension
from .shallow import (_raw_keys, canonical_form, equivalent_shallow, hyperplane_key,
                      is_switching_on_orthant, neuron_types, point_on_hyperplane)
from .verify import verify

__all__ = ["Fiber", "FiberComponent", "fiber_shallow", "analysis_shallow", "positive_factor_rank",
           "symmetry_tangent_rank", "jacobian_rank_bound"]


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
    p, y = positive_in_row_space(Gamma, R)
    if p is None:
        base, extra = [Q(1)] * n, True
    else:
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


def positive_in_row_space(A: QMatrix, R: QMatrix | None = None):
    r"""Gordan's alternative for the row space of *A*, decided by the exact LP.

    Returns ``(p, None)`` with ``p`` a vector of the row space whose coordinates are all > 0, or
    ``(None, y)`` with ``y ≥ 0``, ``Σ y = 1``, ``A y = 0`` (a proof that no such ``p`` exists);
    both are re-checked exactly here.  *R* is a basis of the row space (rows), computed when
    omitted.  The one implementation of this step: κ₊ (:func:`positive_factor_rank`) and the
    bottleneck factorisation (:mod:`semialgebraic.bottleneck_fiber`) both call it.

    >>> positive_in_row_space(QMatrix.from_rows([[-2, 1]]))
    (None, (1/3, 2/3))
    >>> p, y = positive_in_row_space(QMatrix.from_rows([[1, -1], [1, 1]]))
    >>> y is None and all(x > 0 for x in p)
    True
    """
    m, n = A.shape
    if R is None:
        R = A.row_space()
    # Gordan: y >= 0, sum y = 1, A y = 0 (exact LP) — else a positive vector c R > 0 exists
    gordan = lp.feasible(A_eq=QMatrix.vstack([A, QMatrix.row([1] * n)]),
                         b_eq=[0] * m + [1], A_le=(-QMatrix.identity(n)), b_le=[0] * n, n=n)
    if gordan.feasible:
        y = tuple(gordan.point)
        if any(v < 0 for v in y) or sum(y, Q(0)) != 1 or \
                any(x != 0 for x in (A @ QMatrix.from_rows([[v] for v in y])).entries()):
            raise AssertionError("Gordan certificate failed its exact check")  # pragma: no cover
        return None, y
    pos = lp.feasible(A_lt=-R.T, b_lt=[0] * n, n=R.nrows)
    if not pos.feasible:  # pragma: no cover - Gordan's alternative
        raise NotApplicableError("positive_factor_rank", "Gordan's alternative failed")
    p = (QMatrix.row(list(pos.point)) @ R).row_at(0)
    if not all(x > 0 for x in p):  # pragma: no cover - the LP point is verified exactly
        raise AssertionError("positive row-space vector failed its exact check")
    return p, None


# -- analysis report ---------------------------------------------------------------------------

def analysis_shallow(net: Network, *, seed: int = 1) -> dict:
    """Report of ``netfibers analyze`` for a one-hidden-layer net: canonical forms on R^d and on
    the orthant (fingerprints), neuron types, fiber dimension / components / orbits on both
    domains, and an equivalence self-check (a planted symmetric copy proved equivalent, a copy
    with one output bias changed by 1/1000 proved different; both certificates verified).
    The key ``text`` holds readable lines.

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> r = analysis_shallow(net)
    >>> r["kind"], r["fiber"]["dimension"], r["equivalence"]["transformed"]["certificate_verified"]
    ('one hidden layer', 2, True)
    """
    out: dict = {"kind": "one hidden layer", "widths": list(net.widths)}
    lines = [f"one hidden layer, widths {'-'.join(map(str, net.widths))}"]
    for orthant in (False, True):
        key = "orthant" if orthant else "R^d"
        cf = canonical_form(net, orthant=orthant)
        F = fiber_shallow(net, orthant=orthant)
        fj = {"dimension": F.dimension.value, "dimension_detail": F.dimension.to_json(),
              "number_of_components": F.number_of_components,
              "number_of_orbits": F.number_of_orbits, "notes": F.notes,
              "neuron_types": F.details["neuron_types"]}
        if orthant:
            fj.update({k: F.details.get(k) for k in ("positive_factor_rank", "linear_block_rank",
                                                     "r7_formula")})
            out["orthant"] = {"canonical_form": cf.to_json(), "fingerprint": cf.fingerprint(),
                              "fiber": fj}
        else:
            out["canonical_form"] = cf.to_json()
            out["fingerprint"] = cf.fingerprint()
            out["fiber"] = fj
        lines.append(f"[{key}] {cf.summary()}")
        lines.append(f"[{key}] fiber dimension {F.dimension}; components "
                     f"{F.number_of_components}; orbits {F.number_of_orbits}; neuron types "
                     f"{', '.join(F.details['neuron_types'])}")
    twin = _planted_copy(net, seed)
    v = equivalent_shallow(net, twin)
    ok = verify(v.certificate)[0]
    c = list(net.biases[1])
    c[0] += Q(1, 1000)
    other = net.replace_layer(1, bias=c)
    w = equivalent_shallow(net, other)
    ok2 = verify(w.certificate)[0]
    out["equivalence"] = {
        "transformed": {"answer": v.answer, "steps": len(v.certificate["steps"]),
                        "certificate_verified": ok},
        "perturbed": {"answer": w.answer, "point": jsonable(w.certificate.get("x")),
                      "certificate_verified": ok2}}
    lines.append(f"planted symmetric copy: equivalent={v.answer} ({len(v.certificate['steps'])} "
                 f"steps, certificate verified: {ok}); output bias + 1/1000: equivalent={w.answer}"
                 f" (counterexample verified: {ok2})")
    out["text"] = lines
    return out


def _planted_copy(net: Network, seed: int) -> Network:
    """Random permutation and positive scalings of the hidden neurons, plus one split of a
    neuron into two proportional copies (a width-changing R^d move)."""
    rng = random.Random(seed)
    neurons, c = hidden_neurons(net, 0)
    new = []
    for k, (w, b, v) in enumerate(neurons):
        lam = Q(rng.randint(1, 9), rng.randint(1, 9))
        if k == 0:
            new.append((tuple(x * 2 for x in w), b * 2, tuple(x / 4 for x in v)))
            new.append((tuple(x * 3 for x in w), b * 3, tuple(x / 6 for x in v)))
        else:
            new.append((tuple(x * lam for x in w), b * lam, tuple(x / lam for x in v)))
    rng.shuffle(new)
    return with_hidden_neurons(net, 0, new, c)


# -- fibers (one hidden layer) ----------------------------------------------------------------

MAX_ENUMERATED_FLIPS = 16
"""Largest number of kink hyperplanes for which flip sets are enumerated (2^k rank checks)."""


class FiberComponent:
    """A basic semi-algebraic set ``{p = 0 for p in equalities, q > 0 for q in positive,
    r ≥ 0 for r in nonnegative}`` in the parameter ring, with a label, its dimension and a
    sample (a network in it)."""

    def __init__(self, ring, equalities, positive, nonnegative, label, dimension, sample):
        self.ring = ring
        self.equalities, self.positive = list(equalities), list(positive)
        self.nonnegative = list(nonnegative)
        self.label, self._dim, self.representative = label, dimension, sample
        self.basic_set = BasicSet(ring, equalities=tuple(self.equalities),
                                  positive=tuple(self.positive),
                                  nonnegative=tuple(self.nonnegative))

    @property
    def dimension(self) -> Dimension:
        return self._dim

    def contains(self, point) -> bool:
        """Exact membership of a parameter vector or a Network (no permutation applied)."""
        if isinstance(point, Network):
            point = point.parameters()
        pt = list(point)
        return (all(p(pt) == 0 for p in self.equalities) and all(q(pt) > 0 for q in self.positive)
                and all(r(pt) >= 0 for r in self.nonnegative))

    def sample(self):
        return self.representative.parameters()

    def to_json(self) -> dict:
        return jsonable({"label": self.label, "dimension": self._dim.value,
                         "dimension_detail": self._dim.to_json(),
                         "equalities": [str(p) for p in self.equalities],
                         "inequalities": [f"{q} > 0" for q in self.positive]
                         + [f"{r} >= 0" for r in self.nonnegative],
                         "sample": list(self.sample())})

    def to_latex(self) -> str:
        parts = ([p.to_latex() + " = 0" for p in self.equalities]
                 + [q.to_latex() + " > 0" for q in self.positive]
                 + [r.to_latex() + r" \geq 0" for r in self.nonnegative])
        return r"\left\{\theta : " + r",\ ".join(parts) + r"\right\}"


class Fiber:
    """Fiber of a network: components (up to permutations), dimension, numbers of components
    and orbits (None when not determined, with the reason in ``notes``), symmetry graph,
    ``contains`` (= the exact equivalence decision), JSON and LaTeX."""

    def __init__(self, net, domain, components, dimension, number_of_components,
                 number_of_orbits, graph=None, notes=(), details=None):
        self.net, self.domain, self.components = net, domain, list(components)
        self.dimension = dimension
        self.number_of_components, self.number_of_orbits = number_of_components, number_of_orbits
        self.graph, self.notes, self.details = graph, list(notes), dict(details or {})

    def contains(self, theta: Network) -> bool:
        """True iff *theta* (same architecture) computes the same function on the domain."""
        if theta.widths != self.net.widths:
            return False
        return equivalent_shallow(self.net, theta, orthant=self.domain == "orthant").answer

    def to_json(self) -> dict:
        return jsonable({"network": self.net.to_dict(), "domain": self.domain or "R^d",
                         "dimension": self.dimension.value,
                         "dimension_detail": self.dimension.to_json(),
                         "number_of_components": self.number_of_components,
                         "number_of_orbits": self.number_of_orbits,
                         "components": [c.to_json() for c in self.components],
                         "symmetries": self.details.get("symmetries", []),
                         "notes": self.notes,
                         **{k: v for k, v in self.details.items() if k != "symmetries"}})

    def to_latex(self) -> str:
        parts = [c.to_latex() for c in self.components]
        return (r"\mathrm{Fib}(\theta) \supseteq \bigcup_{\pi \in S_n} \pi\cdot\left("
                + r" \cup ".join(parts) + r"\right)")


def fiber_shallow(net: Network, *, orthant: bool = False) -> Fiber:
    """Explicit fiber of a one-hidden-layer net on R^d or on the closed orthant (module
    docstring).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1, 1], [-1, -1], [1, -1]], [[1, 2, 3]]], [[1, -1, 0], [0]])
    >>> F = fiber_shallow(net, orthant=True)      # linear, dead, switching (R7: 1 + 4 + 4 - 2)
    >>> F.details["neuron_types"], F.dimension.value, F.details["r7_formula"]
    (['linear', 'dead', 'switching'], 7, 7)
    """
    cf = canonical_form(net, orthant=orthant)
    d, n, m = net.widths
    types = neuron_types(net, orthant=orthant)
    neurons, c = hidden_neurons(net, 0)
    ring = Ring.get(net.parameter_names())
    notes: list[str] = []
    details: dict = {"canonical_form": cf.to_json(), "fingerprint": cf.fingerprint(),
                     "neuron_types": list(types), "n_parameters": net.n_parameters}
    lower = symmetry_tangent_rank(net, orthant=orthant)
    upper = jacobian_rank_bound(net, orthant=orthant)
    _, irredundant0 = _flip_sets(net, cf, orthant, types, [], enumerate_sets=False)
    if irredundant0 and (upper is None or upper == n):
        # every component is a product of n open half-lines (module docstring of fiber.py)
        dim = Dimension.of(n, "irredundant: each component is n open half-lines (positive "
                              "scalings)" + ("" if upper is None else "; = N - rank J"))
    elif upper is None:
        dim = Dimension.between(lower, None, "symmetry tangents (lower); Jacobian skipped (large)")
    elif lower == upper:
        dim = Dimension.of(lower, "symmetry tangents (lower) = N - rank J (upper)")
    else:
        dim = Dimension.between(lower, upper, "symmetry tangents (lower) < N - rank J (upper): "
                                "non-generic parameter, bounds not closed")
    symmetries = ["S1", "S2"]
    if orthant:
        L = [i for i, t in enumerate(types) if t == "linear"]
        n_A = types.count("switching")
        n_D = types.count("dead")
        Gamma = QMatrix.from_rows([[sum((neurons[i][2][o] * neurons[i][0][k] for i in L), Q(0))
                                    for k in range(d)] for o in range(m)])
        rho = Gamma.rank()
        kappa, wit = positive_factor_rank(Gamma)
        details.update({"n_switching": n_A, "n_dead": n_D, "n_linear": len(L),
                        "linear_block_rank": rho, "positive_factor_rank": kappa,
                        "positive_factor_witness": wit})
        if rho == min(len(L), d, m):
            details["r7_formula"] = (n_A + n_D * (d + 1 + m) + len(L) * (d + m + 1)
                                     - rho * (d + m - rho))
        else:
            notes.append("rank Γ < min(n_L, d, m): the R7 formula does not apply (P5)")
        if n_D:
            symmetries.append("S3")
        if L:
            symmetries.append("S4")
    details["symmetries"] = symmetries
    flip_sets, irredundant = _flip_sets(net, cf, orthant, types, notes)
    comps = []
    for S in flip_sets:
        rep = _flipped_representative(net, cf, S, orthant)
        eqs, pos, nonneg = _component_system(ring, rep, cf, orthant)
        comps.append(FiberComponent(ring, eqs, pos, nonneg, {"flipped_neurons": sorted(S)},
                                    dim, rep))
    if irredundant:
        number = factorial(n) * len(flip_sets)
        orbits = len(flip_sets)
    else:
        number = orbits = None
        notes.append("number of components not determined: spare neurons (zero output, constant, "
                     "dead, linear or several on one hyperplane) connect permutation copies; "
                     "components listed are the strata of θ up to permutations")
    G = nx.Graph()
    for k, comp in enumerate(comps):
        G.add_node(k, label=str(comp.label), dimension=dim.value)
    return Fiber(net, "orthant" if orthant else None, comps, dim, number, orbits, G, notes, details)


# -- dimension bounds --------------------------------------------------------------------------

def symmetry_tangent_rank(net: Network, *, orthant: bool = False) -> int:
    """Exact rank of tangent vectors of explicit continuous symmetries at θ (a lower bound for
    the local fiber dimension): S2 scalings; free rows of zero-output neurons; constant neurons
    (``b`` free when ``b < 0``, traded with the output bias when ``b > 0``; outputs traded with the
    output bias); output transfers between same-orientation neurons on one hyperplane; on the
    orthant, dead neurons (row and outputs free) and the tangent space of the linear block
    ``{V_L W̃_L, c}`` when its weights are strictly positive (biases ≥ 0) and ``V_L``, ``W_L``
    have maximal rank."""
    d, n, m = net.widths
    N = net.n_parameters
    neurons, c = hidden_neurons(net, 0)
    iW = lambda i, j: i * d + j                          # noqa: E731
    ib = lambda i: n * d + i                             # noqa: E731
    iV = lambda o, i: n * (d + 1) + o * n + i            # noqa: E731
    ic = lambda o: n * (d + 1) + m * n + o               # noqa: E731
    vecs = []

    def unit(*pairs):
        v = [Q(0)] * N
        for k, x in pairs:
            v[k] += x
        vecs.append(v)

    groups: dict = {}
    for i, (w, b, v) in enumerate(neurons):
        unit(*[(iW(i, j), w[j]) for j in range(d)], (ib(i), b), *[(iV(o, i), -v[o]) for o in range(m)])
        zero_out = all(x == 0 for x in v)
        if zero_out:
            for j in range(d):
                unit((iW(i, j), Q(1)))
            unit((ib(i), Q(1)))
            continue
        if all(x == 0 for x in w):
            if b < 0 or (orthant and b <= 0):
                unit((ib(i), Q(1)))
            elif b > 0:
                unit((ib(i), Q(1)), *[(ic(o), -v[o]) for o in range(m)])
            for o in range(m):
                unit((iV(o, i), Q(1)), (ic(o), -b if b > 0 else Q(0)))
            continue
        if orthant and not is_switching_on_orthant(w, b):
            if is_dead_row(w, b):
                for j in range(d):
                    unit((iW(i, j), Q(1)))
                unit((ib(i), Q(1)))
                for o in range(m):
                    unit((iV(o, i), Q(1)))
            continue
        u, beta, lam = hyperplane_key(w, b)
        groups.setdefault((u, beta, lam > 0), []).append((i, abs(lam)))
    for members in groups.values():
        i0, s0 = members[0]
        for i, s in members[1:]:
            for o in range(m):
                unit((iV(o, i0), 1 / s0), (iV(o, i), -1 / s))
    if orthant:
        vecs += _linear_block_tangents(net, neurons, iW, ib, iV, ic)
    if not vecs:
        return 0
    return QMatrix.from_rows(vecs).rank()


def jacobian_rank_bound(net: Network, *, orthant: bool = False, max_parameters: int = 400,
                        seed: int = 0) -> int | None:
    """``N − rank J``: an upper bound of the local fiber dimension at θ (module docstring), or
    None when N exceeds *max_parameters*."""
    d, n, m = net.widths
    N = net.n_parameters
    if N > max_parameters:
        return None
    neurons, _ = hidden_neurons(net, 0)
    rng = random.Random(seed)
    hyper = [(w, b) for w, b, _ in neurons if any(x != 0 for x in w)]
    walls = list(hyper)
    if orthant:
        walls += [(tuple(Q(1) if k == j else Q(0) for k in range(d)), Q(0)) for j in range(d)]
    pts = []
    for w, b in hyper:
        x0 = _generic_point_on(w, b, walls, orthant, rng)
        if x0 is None:
            continue
        j = next(k for k, x in enumerate(w) if x != 0)
        for sgn in (1, -1):
            p = list(x0)
            eps = _margin(p, walls, exclude=(w, b)) / (abs(w[j]) + 1)
            p[j] += sgn * eps / 2
            pts += _simplex_around(p, walls)
    for _ in range(2 * (d + 1)):
        p = [Q(rng.randint(1 if orthant else -50, 50), rng.randint(1, 7)) for _ in range(d)]
        if all(_h(w, b, p) != 0 for w, b in walls):
            pts += _simplex_around(p, walls)
    rows = []
    for x in pts:
        for o in range(m):
            row = [Q(0)] * N
            for i, (w, b, v) in enumerate(neurons):
                h = _h(w, b, x)
                if h > 0:
                    for j in range(d):
                        row[i * d + j] = v[o] * x[j]
                    row[n * d + i] = v[o]
                    row[n * (d + 1) + o * n + i] = h
            row[n * (d + 1) + m * n + o] = Q(1)
            rows.append(row)
    return N - QMatrix.from_rows(rows).rank()


# -- private helpers ---------------------------------------------------------------------------

def _coordinates(R: QMatrix, p: Sequence[Q]) -> list[Q]:
    """Coefficients c with ``c R = p`` (R with independent rows)."""
    sol = R.T.solve_general(list(p))
    if sol is None:  # pragma: no cover
        raise AssertionError("vector not in the row space")
    return list(sol[0])


# -- private helpers of the fiber ------------------------------------------------------------

def _h(w, b, x):
    return sum((p * q for p, q in zip(w, x)), Q(0)) + b


def _margin(p, walls, exclude=None):
    """Half the smallest |h(p)| / (|w|_1 + 1) over walls (a ball that crosses none)."""
    vals = [abs(_h(w, b, p)) / (sum(abs(x) for x in w) + 1) for w, b in walls
            if (w, b) != exclude and _h(w, b, p) != 0]
    return min(vals + [Q(1)]) / 2


def _simplex_around(p, walls):
    """p and p + δ e_j (j < d): d + 1 affinely independent points in p's open region."""
    delta = _margin(p, walls)
    out = [tuple(p)]
    for j in range(len(p)):
        q = list(p)
        q[j] += delta
        out.append(tuple(q))
    return [x for x in out if all(_h(w, b, x) != 0 for w, b in walls)]


def _generic_point_on(w, b, walls, orthant, rng):
    """A point on ``w·x + b = 0`` (in the open orthant if asked) off every other wall."""
    if orthant and not is_switching_on_orthant(w, b):
        return None
    u, beta, _ = hyperplane_key(w, b)
    others = []
    for uw, cw in walls:
        key = hyperplane_key(uw, cw)
        if key is not None and key[:2] != (u, beta):
            others.append(key[:2])
    return list(point_on_hyperplane(u, beta, others, orthant, seed=rng.randint(0, 10 ** 6)))


def _linear_block_tangents(net, neurons, iW, ib, iV, ic):
    d, n, m = net.widths
    L = [i for i, (w, b, v) in enumerate(neurons)
         if any(x != 0 for x in v) and not is_switching_on_orthant(w, b) and is_linear_row(w, b)
         and not is_dead_row(w, b)]
    if not L:
        return []
    # weights strictly positive; a zero bias is fine: the bias trade (b_p += t, c -= t V_p) moves
    # into the open cone, so the solution manifold meets the interior arbitrarily close to θ
    if not all(all(x > 0 for x in neurons[i][0]) for i in L):
        return []
    VL = QMatrix.from_rows([[neurons[i][2][o] for i in L] for o in range(m)])
    WL = QMatrix.from_rows([list(neurons[i][0]) for i in L])
    nL = len(L)
    if VL.rank() != min(m, nL) or WL.rank() != min(nL, d):
        return []
    # variables: V_L (m × nL), W̃_L (nL × (d+1)), c (m); constraint G = (V_L W_L, V_L b_L + c)
    var = [("V", o, a) for o in range(m) for a in range(nL)] + \
          [("W", a, j) for a in range(nL) for j in range(d + 1)] + [("c", o, 0) for o in range(m)]
    rows = []
    for o in range(m):
        for k in range(d + 1):
            row = []
            for kind, p, q in var:
                if kind == "V":
                    i = L[q]
                    val = (neurons[i][0][k] if k < d else neurons[i][1]) if p == o else Q(0)
                elif kind == "W":
                    val = neurons[L[p]][2][o] if q == k else Q(0)
                else:
                    val = Q(1) if (k == d and p == o) else Q(0)
                row.append(val)
            rows.append(row)
    K = QMatrix.from_rows(rows).nullspace()
    out = []
    N = net.n_parameters
    for r in K.to_rows():
        v = [Q(0)] * N
        for (kind, p, q), x in zip(var, r):
            if kind == "V":
                v[iV(p, L[q])] += x
            elif kind == "W":
                v[iW(L[p], q) if q < d else ib(L[p])] += x
            else:
                v[ic(p)] += x
        out.append(v)
    return out


def _distinct_hyperplanes(net, idx, neurons) -> bool:
    """True iff the neurons *idx* lie on pairwise distinct hyperplanes (probe keys, collisions
    checked exactly)."""
    raw = _raw_keys(net)
    seen: dict = {}
    for i in idx:
        w, b, _ = neurons[i]
        lam = next(x for x in w if x != 0)
        key = raw[i] / lam
        for j in seen.get(key, []):
            wj, bj, _ = neurons[j]
            lj = next(x for x in wj if x != 0)
            if b * lj == bj * lam and all(x * lj == y * lam for x, y in zip(w, wj)):
                return False
        seen.setdefault(key, []).append(i)
    return True


def _flip_sets(net, cf, orthant, types, notes, *, enumerate_sets=True):
    """Flip sets S (as sets of neuron indices of θ to flip) giving the same affine part, and
    whether the net is irredundant (then they index the components up to permutation)."""
    neurons, _ = hidden_neurons(net, 0)
    kink_types = ("switching",) if orthant else ("kink",)
    kinky = [i for i, t in enumerate(types) if t in kink_types]
    irredundant = len(kinky) == len(neurons) and _distinct_hyperplanes(net, kinky, neurons)
    if not irredundant or not enumerate_sets:
        return [frozenset()], irredundant
    k = len(kinky)
    # flipping neuron i ((w, b) → −(w, b)) changes the function by −v_i h_i (σ(h) − σ(−h) = h):
    # a flip set keeps the affine part iff Σ_{i∈S} v_i w_iᵀ = 0 (the constant goes to c)
    mats = [[x * y for x in neurons[i][2] for y in neurons[i][0]] for i in kinky]
    M = QMatrix.from_rows(mats) if mats and mats[0] else None
    if M is None or M.rank() == k:
        return [frozenset()], True
    if k > MAX_ENUMERATED_FLIPS:
        notes.append(f"{k} hyperplanes with dependent kink matrices: flip sets not enumerated")
        return [frozenset()], False
    out = []
    zero = [Q(0)] * len(mats[0])
    for r in range(k + 1):
        for S in combinations(range(k), r):
            tot = list(zero)
            for s in S:
                tot = [a + x for a, x in zip(tot, mats[s])]
            if all(x == 0 for x in tot):
                out.append(frozenset(kinky[s] for s in S))
    return out, True


def _flipped_representative(net, cf, S, orthant):
    neurons, c = hidden_neurons(net, 0)
    new = [((tuple(-x for x in w), -b, v) if i in S else (w, b, v))
           for i, (w, b, v) in enumerate(neurons)]
    _with = with_hidden_neurons
    rep = _with(net, 0, new, c)
    off = canonical_form(rep, orthant=orthant).offset
    rep = _with(net, 0, new, tuple(ci + (a - b2) for ci, a, b2 in zip(c, cf.offset, off)))
    if canonical_form(rep, orthant=orthant) != cf:  # pragma: no cover
        raise AssertionError("flipped representative left the fiber")
    return rep


def _component_system(ring, rep, cf, orthant):
    """Equalities / strict / non-strict sign conditions of the stratum of *rep* (module
    docstring)."""
    d, n, m = rep.widths
    g = ring.gens()
    W = lambda i, j: g[i * d + j]                      # noqa: E731
    B = lambda i: g[n * d + i]                         # noqa: E731
    V = lambda o, i: g[n * (d + 1) + o * n + i]        # noqa: E731
    C = lambda o: g[n * (d + 1) + m * n + o]           # noqa: E731
    neurons, _ = hidden_neurons(rep, 0)
    eqs, pos, nonneg = [], [], []
    kinks = {(u, beta): K for u, beta, K in cf.kinks}
    groups: dict = {}
    affine_terms = []                                  # neurons whose whole affine map counts
    const_terms = []
    for i, (w, b, v) in enumerate(neurons):
        if all(x == 0 for x in v):
            eqs += [V(o, i) for o in range(m)]
            continue
        if orthant and not is_switching_on_orthant(w, b):
            if is_dead_row(w, b):
                nonneg += [-W(i, j) for j in range(d)] + [-B(i)]
            else:
                nonneg += [W(i, j) for j in range(d)] + [B(i)]
                affine_terms.append(i)
            continue
        key = hyperplane_key(w, b)
        if key is None:
            eqs += [W(i, j) for j in range(d)]
            if b > 0:
                pos.append(B(i))
                const_terms.append(i)
            elif b < 0:
                pos.append(-B(i))
            else:
                eqs.append(B(i))
            continue
        u, beta, lam = key
        j0 = next(k for k, x in enumerate(u) if x != 0)
        s = 1 if lam > 0 else -1
        eqs += [W(i, k) - W(i, j0) * u[k] for k in range(d) if k != j0]
        eqs.append(B(i) - W(i, j0) * beta)
        pos.append(s * W(i, j0))
        groups.setdefault((u, beta), []).append((i, s, j0))
        if s < 0:
            affine_terms.append(i)
    for key, members in groups.items():
        K = kinks.get(key, (Q(0),) * m)
        for o in range(m):
            eqs.append(sum((s * W(i, j0) * V(o, i) for i, s, j0 in members), ring.zero()) - K[o])
    for o in range(m):
        for k in range(d):
            eqs.append(sum((V(o, i) * W(i, k) for i in affine_terms), ring.zero())
                       - cf.linear[o, k])
        eqs.append(C(o) + sum((V(o, i) * B(i) for i in affine_terms + const_terms), ring.zero())
                   - cf.offset[o])
    eqs = [p for p in eqs if not p.is_zero()]
    return eqs, pos, nonneg
