r"""One hidden layer: the fiber on R^d and on the orthant, and κ₊ (three-layer-fibers R6).

Contents: :func:`positive_factor_rank` and :func:`positive_in_row_space` (R6, exact LP; also
used by the bottleneck family); :func:`fiber_shallow` with :class:`ShallowFiber` /
:class:`ShallowFiberComponent` (dispatched by :mod:`semialgebraic._fiber`, whose docstring
describes the fiber, and satisfying its :class:`~semialgebraic._fiber.Fiber` /
:class:`~semialgebraic._fiber.FiberComponent` protocols).  The two sides of the dimension check
are in :mod:`semialgebraic.shallow.dimension_bounds`, the ``netfibers analyze`` report in
:mod:`semialgebraic.shallow.analysis`; the canonical form and the equivalence decision the fiber
rests on in :mod:`semialgebraic.shallow.canonical` and :mod:`semialgebraic.shallow.equivalence`.
"""

from __future__ import annotations

from itertools import combinations
from math import factorial
from typing import Sequence

import networkx as nx

from algebra.linalg import QMatrix
from algebra.linalg.gfp import PRIME_61, outer_products_rank, rank_lower_bound
from algebra.network import Network, as_parameter_point
from algebra.polynomials import Ring
from algebra.rationals import Q
from algebra.symmetries.neurons import hidden_neurons, is_dead_row, with_hidden_neurons

from .. import lp
from ..budget import checkpoint
from ..certificates import jsonable
from ..exceptions import NotApplicableError
from ..sets import BasicSet, Dimension
from ..sets.basic import fiber_repr
from .canonical import canonical_form, hyperplane_key, is_switching_on_orthant, neuron_types, raw_keys
from .dimension_bounds import jacobian_rank_bound, symmetry_tangent_rank
from .equivalence import equivalent_shallow

__all__ = ["ShallowFiber", "ShallowFiberComponent", "fiber_shallow", "positive_factor_rank",
           "positive_in_row_space", "MAX_ENUMERATED_FLIPS", "kink_flip_sets"]


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
    bottleneck factorisation (:mod:`semialgebraic.bottleneck.fiber`) both call it.

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


# -- fibers (one hidden layer) ----------------------------------------------------------------

MAX_ENUMERATED_FLIPS = 16
"""Largest number of kink hyperplanes for which flip sets are enumerated (2^k rank checks)."""


class ShallowFiberComponent:
    """A basic semi-algebraic set ``{p = 0 for p in equalities, q > 0 for q in positive,
    r ≥ 0 for r in nonnegative}`` in the parameter ring, with a label, its dimension and a
    sample (a network in it)."""

    def __init__(self, ring, equalities, positive, nonnegative, label, dimension, sample):
        self.ring = ring
        self.equalities, self.positive = list(equalities), list(positive)
        self.nonnegative = list(nonnegative)
        self.label, self._dim, self.representative = label, dimension, sample
        self.basic_set = None if ring is None else BasicSet(ring, equalities=tuple(self.equalities),
                                                            positive=tuple(self.positive),
                                                            nonnegative=tuple(self.nonnegative))

    @property
    def dimension(self) -> Dimension:
        return self._dim

    def __repr__(self) -> str:
        dim = getattr(self._dim, "value", None)
        return (f"<ShallowFiberComponent {self.label}: dimension {self._dim if dim is None else dim}, "
                f"{len(self.equalities)} equalities, {len(self.positive)} strict and "
                f"{len(self.nonnegative)} weak inequalities>")

    def contains(self, point) -> bool:
        """Exact membership of a parameter vector or a Network (no permutation applied)."""
        if self.ring is None:
            raise NotApplicableError("contains", "the component's system was not built (a large "
                                     "network: fiber_shallow(systems=True) builds it)")
        if isinstance(point, Network):
            point = point.parameters()
        pt = list(point)
        return (all(p(pt) == 0 for p in self.equalities) and all(q(pt) > 0 for q in self.positive)
                and all(r(pt) >= 0 for r in self.nonnegative))

    def sample(self):
        return self.representative.parameters()

    def text_rows(self, cap: int | None = None) -> tuple[list, list, int, int]:
        """The first *cap* equalities and inequalities as text, and how many of each there are
        (only what is shown is rendered: a 10-560-3 fiber rendered its 4 233 equalities past
        `fiber --timeout 5`; session 40 fiber audit)."""
        ins = [(q, ">") for q in self.positive] + [(r, ">=") for r in self.nonnegative]
        return ([str(p) for p in self.equalities[:cap]], [f"{q} {op} 0" for q, op in ins[:cap]],
                len(self.equalities), len(ins))

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


class _Details(dict):
    """A fiber's ``details`` whose ``canonical_form`` (JSON) and ``fingerprint`` are made on first
    use (``details[key]``, :meth:`force`, the fiber's ``to_json``): on a 256-1024-256 net they
    were 9 of the 17 s of ``fiber_shallow``, which ``symmetries`` prints neither of (session 39,
    a 768-3072-768 block: 165 s)."""

    _LAZY = ("canonical_form", "fingerprint")

    def __init__(self, data, cf):
        super().__init__(data)
        self._cf = cf

    def __missing__(self, key):
        if key in self._LAZY and self._cf is not None:
            return self.force()[key]
        raise KeyError(key)

    def force(self) -> "_Details":
        """Make the lazy entries (once); returns self."""
        if self._cf is not None:
            cf, self._cf = self._cf, None
            self["canonical_form"], self["fingerprint"] = cf.to_json(), cf.fingerprint()
        return self


class ShallowFiber:
    """Fiber of a one-hidden-layer network: components (up to permutations), dimension, numbers
    of components and orbits (None when not determined, with the reason in ``notes``), symmetry
    graph, ``contains`` (= the exact equivalence decision), JSON and LaTeX."""

    def __init__(self, net, domain, components, dimension, number_of_components,
                 number_of_orbits, graph=None, notes=(), details=None):
        self.net, self.domain, self.components = net, domain, list(components)
        self.dimension = dimension
        self.number_of_components, self.number_of_orbits = number_of_components, number_of_orbits
        self.graph, self.notes = graph, list(notes)
        self.details = details if isinstance(details, _Details) else dict(details or {})
        # as BottleneckFiber (the Fiber protocol): the dimension near θ itself, and whether
        # number_of_components is the exact count (None here when spare neurons leave it open)
        self.at_theta = dimension.value
        self.components_exact = number_of_components is not None

    def __repr__(self) -> str:
        return fiber_repr('ShallowFiber', self)

    def contains(self, theta) -> bool:
        """True iff *theta* (a Network of the same widths, or its parameter vector) computes the
        same function on the domain; False for a network of other widths (not a point of this
        parameter space)."""
        theta = as_parameter_point(self.net, theta)
        if theta.widths != self.net.widths:
            return False
        return equivalent_shallow(self.net, theta, orthant=self.domain == "orthant").answer

    def to_json(self) -> dict:
        if isinstance(self.details, _Details):
            self.details.force()
        return jsonable({"network": self.net.to_dict(), "domain": self.domain or "R^d",
                         "dimension": self.dimension.value,
                         "dimension_detail": self.dimension.to_json(),
                         "number_of_components": self.number_of_components,
                         "number_of_components_exact": self.components_exact,
                         "number_of_orbits": self.number_of_orbits,
                         "number_of_strata": None,      # (R16a's strata: bottlenecks with n1 = 1)
                         "components": [c.to_json() for c in self.components],
                         "symmetries": self.details.get("symmetries", []),
                         "notes": self.notes,
                         # the components listed are θ's strata only when spare neurons leave the
                         # count open: the dimension is then that of θ's stratum, and another
                         # point of the fiber may lie in a larger one (σ(x) + σ(−x) + σ(x − 1):
                         # 3 here, 4 at 2σ(x) + σ(1 − x) − 1 with a zero-output row; s40 audit)
                         "listing": "complete" if self.number_of_components is not None else
                         self.details.get("listing", "strata of theta"),
                         "dimension_at_theta": self.dimension.value,
                         **{k: v for k, v in self.details.items()
                            if k not in ("symmetries", "listing")}})

    def to_latex(self) -> str:
        parts = [c.to_latex() for c in self.components]
        return (r"\mathrm{Fib}(\theta) \supseteq \bigcup_{\pi \in S_n} \pi\cdot\left("
                + r" \cup ".join(parts) + r"\right)")

    def _repr_html_(self) -> str:  # notebooks: semialgebraic/plot/notebook.py
        from ..plot import notebook
        return notebook.fiber_html(self)

    def _repr_latex_(self) -> str | None:
        from ..plot import notebook
        return notebook.fiber_latex(self)

    def _repr_png_(self) -> bytes | None:
        from ..plot import notebook
        return notebook.fiber_png(self)


SYSTEM_MAX_PARAMETERS = 8000
"""Most parameters for which the components' polynomial systems are built: a polynomial of
FLINT's ring stores dense exponent vectors of all N variables, and a system has about N
polynomials (784-64-10, N = 50 890: 58 666 equalities, 62 s and 22 GB; digits 64-32-10, N = 2 410:
0.9 s).  Past it the components are their labels and representatives (``systems=False``)."""


def _one_orbit_by_r42(net) -> bool:
    """Is *net* (one hidden layer, on R^d) identifiable by three-layer-fibers R42 (pairs of
    neurons on a hyperplane with opposite orientations; its certificate checked)?"""
    from .identifiability import _proportional_pairs, identifiability_shallow
    neurons, _ = hidden_neurons(net, 0)
    if not any(lam < 0 for _, _, lam in _proportional_pairs(neurons)):
        return False                      # no opposite pair: not R42's case (and no work)
    try:
        v = identifiability_shallow(net)
    except ValueError:
        return False
    # one pair or several ("opposite_pairs": every placement tried; the latter was left out, and
    # fiber said "not determined" where identify proved one orbit: s51 audit 4 F1)
    return v.answer is True and (v.certificate or {}).get("flip_sets", {}).get("kind") in (
        "opposite_pair", "opposite_pairs")


def fiber_shallow(net: Network, *, orthant: bool = False, systems: bool | None = None) -> ShallowFiber:
    """Explicit fiber of a one-hidden-layer net on R^d or on the closed orthant (module
    docstring).  *systems*: build each component's equalities and inequalities (default: when
    the network has at most :data:`SYSTEM_MAX_PARAMETERS` parameters; otherwise a note says
    they are left out, and each component is its label, dimension and representative).

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
    if systems is None:
        systems = net.n_parameters <= SYSTEM_MAX_PARAMETERS
    ring = Ring.get(net.parameter_names()) if systems else None
    notes: list[str] = []
    details: dict = _Details({"neuron_types": list(types), "n_parameters": net.n_parameters}, cf)
    lower = symmetry_tangent_rank(net, orthant=orthant)
    upper = jacobian_rank_bound(net, orthant=orthant)
    _, irredundant0 = _flip_sets(net, cf, orthant, types, [], enumerate_sets=False)
    if irredundant0 and (upper is None or upper == n):
        # every component is a product of n open half-lines (module docstring of fiber.py)
        dim = Dimension.of(n, "irredundant: each component is n open half-lines (positive "
                              "scalings)" + ("" if upper is None else "; = N - rank J"))
    elif upper is None:
        dim = Dimension.between(lower, net.n_parameters, "symmetry tangents (lower); at most the "
                                "number of parameters: the Jacobian skipped (large; netfibers dim "
                                "bounds the fiber more tightly)")
    elif lower == upper:
        dim = Dimension.of(lower, "symmetry tangents (lower) = N - rank J (upper)")
    else:
        dim = _with_dim(net, orthant, lower, upper) or Dimension.between(
            lower, upper, "symmetry tangents (lower) < N - rank J (upper): non-generic "
            "parameter, bounds not closed")
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
    if any(flip_sets):                  # (the JSON said S1, S2 only: s40 fiber audit)
        symmetries.append("flip sets")
    elif irredundant is None:
        symmetries.append("flip sets (not enumerated)")
    comps = []
    for S in flip_sets:
        rep = _flipped_representative(net, cf, S, orthant)
        eqs, pos, nonneg = _component_system(ring, rep, cf, orthant) if systems else ((), (), ())
        comps.append(ShallowFiberComponent(ring, eqs, pos, nonneg, {"flipped_neurons": sorted(S)},
                                    dim, rep))
    if not irredundant and not orthant and _one_orbit_by_r42(net):
        number, orbits = factorial(n), 1          # the fiber is θ's S1 + S2 orbit: n! copies
        dim = Dimension.of(n, "one S1 + S2 orbit: identifiable (three-layer-fibers R42)")
        comps = [ShallowFiberComponent(c.ring, c.equalities, c.positive, c.nonnegative, c.label, dim,
                                       c.representative) for c in comps[:1]]
        notes.append("neurons share hyperplanes in pairs with opposite orientations and the "
                     "network is identifiable (three-layer-fibers R42): the fiber is θ's orbit "
                     "under permutations and positive scalings")
    elif irredundant:
        number = factorial(n) * len(flip_sets)
        orbits = len(flip_sets)
    elif irredundant is None:           # no spare neuron: the dimension is the fiber's
        number = orbits = None
        details["listing"] = "flip sets not enumerated"
        notes.append("number of components not determined: the flip sets were not enumerated "
                     "(every neuron has its own hyperplane, so the fiber's dimension is θ's; "
                     "flipped components may be missing from the listing)")
    else:
        number = orbits = None
        details["listing"] = "strata of theta"
        notes.append("number of components not determined: spare neurons (zero output, constant, "
                     "dead, linear or several on one hyperplane) connect permutation copies; "
                     "components listed are the strata of θ up to permutations")
    if not systems:
        notes.append(f"the components' equalities and inequalities are not written out for "
                     f"{net.n_parameters} parameters (more than {SYSTEM_MAX_PARAMETERS}: about as "
                     "many polynomials, each over every parameter); each component is its label "
                     "and its representative (sample), up to permutations and positive scalings")
    G = nx.Graph()
    for k, comp in enumerate(comps):
        G.add_node(k, label=str(comp.label), dimension=dim.value)
    return ShallowFiber(net, "orthant" if orthant else None, comps, dim, number, orbits, G, notes, details)


# -- private helpers ---------------------------------------------------------------------------
def _cancelling_members(members, neurons, K, m: int) -> list:
    """The members ``(i, s, j0)`` of one hyperplane whose kinks cancel at θ and so move freely
    (:func:`_component_system`): all of them when the hyperplane's kink *K* is 0 (two or more),
    else the largest set of two or more of one orientation whose kinks sum to 0 (all of that
    orientation when they do; otherwise none), or []."""
    def kink(part):
        return [sum((s * neurons[i][0][j0] * neurons[i][2][o] for i, s, j0 in part), Q(0))
                for o in range(m)]
    if len(members) >= 2 and all(x == 0 for x in K):
        return list(members)
    for sign in (1, -1):
        part = [t for t in members if t[1] == sign]
        if 2 <= len(part) < len(members) and all(x == 0 for x in kink(part)):
            return part
    return []


def _with_dim(net: Network, orthant: bool, lower: int, upper: int) -> Dimension | None:
    """The fiber dimension of ``netfibers dim`` on the same domain where it narrows [lower,
    upper] (its moves and caps: parallel, constant and always-active neurons, the shared-kink
    cap; session 32's audit: |x| with a second kink was [2, 3] here and exactly 2 there), else
    None.  Small nets only."""
    if net.n_parameters > SYSTEM_MAX_PARAMETERS:
        return None
    from ..dimension import functional_dimension
    try:
        fd = functional_dimension(net, domain="orthant" if orthant else None)
    except Exception:               # noqa: BLE001 - a second opinion only; the interval stands
        return None
    # its proven ends only (never its reading of N − rank checked at a nearby θ' only): the
    # moves' rank below, N - its lower bound and, with one hidden layer, the shared-kink cap above
    lo = max(lower, fd.fiber_floor or 0)
    hi = min(upper, net.n_parameters - fd.lower)
    if fd.fiber_cap is not None and fd.exact:
        hi = min(hi, fd.fiber_cap)
    if (lo, hi) == (lower, upper) or lo > hi:
        return None
    why = ("the moves that keep the function near theta (below) and the shared-kink cap of "
           "netfibers dim (above, directions.shared_kink_cap)")
    return Dimension.of(lo, why) if lo == hi else Dimension.between(lo, hi, why)

def _coordinates(R: QMatrix, p: Sequence[Q]) -> list[Q]:
    """Coefficients c with ``c R = p`` (R with independent rows)."""
    sol = R.T.solve_general(list(p))
    if sol is None:  # pragma: no cover
        raise AssertionError("vector not in the row space")
    return list(sol[0])


def _distinct_hyperplanes(net, idx, neurons) -> bool:
    """True iff the neurons *idx* lie on pairwise distinct hyperplanes (probe keys, collisions
    checked exactly)."""
    raw = raw_keys(net)
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
    # a flip set keeps the affine part iff Σ_{i∈S} v_i w_iᵀ = 0 (the constant goes to c);
    # independent kink matrices first without forming them (784-1024-10: 8 M products)
    if kinky and k <= len(neurons[0][0]) * len(neurons[0][2]) and outer_products_rank(
            QMatrix.from_rows([list(neurons[i][0]) for i in kinky]),
            QMatrix.from_rows([[neurons[i][2][o] for i in kinky] for o in range(len(neurons[0][2]))])) == k:
        return [frozenset()], True
    mats = [[x * y for x in neurons[i][2] for y in neurons[i][0]] for i in kinky]
    M = QMatrix.from_rows(mats) if mats and mats[0] else None
    # full row rank certified mod p first (a non-zero k x k minor mod p is non-zero over Q): one
    # FLINT rank over Q of this k x md matrix took 80 s at 64-256-64, and no budget stops it
    # (no exact rank over Q when the rank mod p falls short: a dependency only sends the net to
    # the exact flip-set decisions below, which find no flip set when there is none; the rank
    # over Q of a 500 x 630 M held `symmetries --timeout 2` to 34 s: session 40)
    if M is None or rank_lower_bound(M) == k or rank_lower_bound(M, PRIME_61) == k:
        return [frozenset()], True
    if k > MAX_ENUMERATED_FLIPS:         # (irredundant, but the components are not all known:
        if not orthant:                  # None, not the spare neurons' False; s40 forge F5)
            # identify's decision of R41's I4 (independent, a positive functional, the 0/1
            # points of the dependencies, the sums of two halves): no flip set at all closes
            # the count, n! components in one orbit (the 4-20-1 nets of the s40 forge audit)
            from .identifiability import flip_sets as decide_flip_sets
            outcome, _ = decide_flip_sets(
                QMatrix.from_rows([list(w) for w, _, _ in neurons]),
                QMatrix.from_rows([[v[o] for _, _, v in neurons] for o in range(len(neurons[0][2]))]))
            if outcome == "none":
                return [frozenset()], True
        notes.append(f"{k} hyperplanes with dependent kink matrices: flip sets not enumerated")
        return [frozenset()], None
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


def kink_flip_sets(net: Network) -> list | None:
    """Every non-empty set S of kink neurons of one hidden layer on R^d with ``Σ_{i∈S} v_i w_iᵀ =
    0`` (three-layer-fibers R41's I4: flipping S keeps the function, whatever the other neurons
    are), as sorted lists; None when there are more than :data:`MAX_ENUMERATED_FLIPS` kink
    neurons.  For nets whose neurons share hyperplanes (spare neurons), where the fiber's
    components are not counted and :func:`fiber_shallow` lists θ's strata only, so that
    ``symmetries`` still shows the flips (s51 audit 4 F2: a 1-5-1 net with an opposite pair
    listed none, though {1, 3}, {2, 3} and {0, 1, 2} cancel).

    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[2], [1], [-1], [-1], [-2]], [[3, -3, 3, -3, -2]]],
    ...                         [[3, 1, 3, 2, -2], [0]])
    >>> kink_flip_sets(net)
    [[1, 3], [2, 3], [0, 1, 2]]

    A set whose flip only permutes and rescales the neurons (an opposite pair i, j with
    cancelling kinks: σ(h) and σ(−λh) trade places) is no symmetry beyond S1 + S2 and is left
    out:

    >>> kink_flip_sets(Network.from_rows([[[1], [-2]], [[2, 1]]], [[1, -2], [0]]))
    []
    """
    types = neuron_types(net)
    neurons, _ = hidden_neurons(net, 0)
    kinky = [i for i, t in enumerate(types) if t == "kink"]
    if len(kinky) > MAX_ENUMERATED_FLIPS:
        return None
    mats = {i: [x * y for x in neurons[i][2] for y in neurons[i][0]] for i in kinky}
    out = []
    for r in range(1, len(kinky) + 1):
        for S in combinations(kinky, r):
            checkpoint()
            if all(sum((mats[i][e] for i in S), Q(0)) == 0 for e in range(len(mats[S[0]]))) \
                    and not _flip_in_orbit(neurons, S):
                out.append(list(S))
    return out


def _flip_in_orbit(neurons, S) -> bool:
    """Is flipping the neurons *S* (kink matrices cancelling) a permutation and positive rescaling
    of one hidden layer?  Each neuron ``(w, b, v)`` read as ``(w, b)/|lead|, v·|lead|`` (lead:
    its first non-zero entry of (w, b)); the multisets before and after the flip must agree and
    the flip's constant ``Σ_S v_i b_i`` be 0 (the output bias unchanged)."""
    if any(sum((neurons[i][1] * neurons[i][2][o] for i in S), Q(0)) != 0
           for o in range(len(neurons[0][2]))):
        return False

    def key(w, b, v):
        lead = next((x for x in (*w, b) if x != 0), Q(1))
        a = lead if lead > 0 else -lead
        return (tuple(x / a for x in w), b / a, tuple(x * a for x in v))
    before = sorted(key(*t) for t in neurons)
    after = sorted(key(*((tuple(-x for x in w), -b, v) if i in S else (w, b, v)))
                   for i, (w, b, v) in enumerate(neurons))
    return before == after


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
        pos.append(s * W(i, j0))
        groups.setdefault((u, beta), []).append((i, s, j0))
        if s < 0:
            affine_terms.append(i)
    for key, members in groups.items():
        u, beta = key
        K = kinks.get(key, (Q(0),) * m)
        # members whose kinks cancel (two or more): their sum is affine wherever their common
        # hyperplane lies, so it moves (their rows proportional to the first's; the kink and
        # affine equations unchanged); a pinned hyperplane would list a smaller set than the
        # fiber near θ (a 3-4-1 net with 2 relu(z) − 4 relu(z/2): 5 pinned, 8 free).  The whole
        # group when its kink is 0, else a subset of one orientation whose kinks cancel (the
        # others keep the hyperplane and the kink)
        free = _cancelling_members(members, neurons, K, m)
        pinned = [t for t in members if t not in free]
        for part in ([free] if free else []):
            r, _, j0 = part[0]
            for i, _, _ in part[1:]:
                eqs += [W(i, k) * W(r, j0) - W(r, k) * W(i, j0) for k in range(d) if k != j0]
                eqs.append(B(i) * W(r, j0) - B(r) * W(i, j0))
            for o in range(m):
                eqs.append(sum((s * W(i, j0) * V(o, i) for i, s, j0 in part), ring.zero()))
        for i, _, j0 in pinned:
            eqs += [W(i, k) - W(i, j0) * u[k] for k in range(d) if k != j0]
            eqs.append(B(i) - W(i, j0) * beta)
        for o in range(m if pinned else 0):
            eqs.append(sum((s * W(i, j0) * V(o, i) for i, s, j0 in pinned), ring.zero()) - K[o])
    for o in range(m):
        for k in range(d):
            eqs.append(sum((V(o, i) * W(i, k) for i in affine_terms), ring.zero())
                       - cf.linear[o, k])
        eqs.append(C(o) + sum((V(o, i) * B(i) for i in affine_terms + const_terms), ring.zero())
                   - cf.offset[o])
    eqs = [p for p in eqs if not p.is_zero()]
    return eqs, pos, nonneg
