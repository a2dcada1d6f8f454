r"""Three-layer bottleneck networks: the fiber (three-layer-fibers R16, R17).

For ``f = W3 σ(W2 σ(W1 x + b1) + b2) + b3`` with ``n1 ≤ d`` (three-layer-fibers §5–§7), on top
of the genericity checks, structure and CANON of :mod:`semialgebraic.bottleneck._structure` and
:mod:`semialgebraic.bottleneck.canon`: :func:`fiber_bottleneck` — the fiber as components (basic
semi-algebraic sets up to the permutation action) with their dimensions, checked against R17 and
FIBDIM (:mod:`semialgebraic.bottleneck.fibdim`), and the networkx symmetry graph
(:class:`BottleneckFiber`, :class:`BottleneckFiberComponent`, which satisfy the
:class:`~semialgebraic._fiber.Fiber` / :class:`~semialgebraic._fiber.FiberComponent` protocols).
The discrete moves between components are in :mod:`semialgebraic.bottleneck.copies`.
"""

from __future__ import annotations

import json
from itertools import combinations

import networkx as nx

from algebra.linalg import QMatrix
from algebra.network import Network, as_parameter_point
from algebra.polynomials import Ring
from algebra.rationals import Q, q_str, to_q
from algebra.symmetries.bottleneck import TranslateMasked, masking_column, s7_flippable
from algebra.symmetries.bottleneck_paths import RescaleHidden, TailRefactor
from algebra.symmetries.step import InvalidStepError

from ..certificates import jsonable
from ..exceptions import NonGenericError
from ..sets import BasicSet, Dimension
from ..sets.basic import fiber_repr
from ..shallow import positive_factor_rank
from ..symmetry_graph import count_components, symmetry_graph
from .canon import equivalent_bottleneck
from .copies import discrete_move, flipped_gamma, positive_factorization
from .fibdim import jacobian_dimension
from .one_neuron import (check_same_function, glue, one_neuron_strata, representative,
                         strata_graph, system as one_neuron_system)
from ._structure import (DEAD, LINEAR, SWITCHING, Parts, Trace, dimension_formula, genericity,
                        is_generic, second_layer_types, structure)

__all__ = ["fiber_bottleneck", "BottleneckFiber", "BottleneckFiberComponent"]


# =============================================================================================
# explicit fiber (R16, R17)
# =============================================================================================

class BottleneckFiberComponent:
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

    def text_rows(self, cap: int | None = None) -> tuple[list, list, int, int]:
        """The first *cap* equalities (``p``) and inequalities (``q > 0``) as text, and how many
        of each there are (only what is shown is rendered: a 10-560-3 fiber rendered its 4 233
        equalities past `fiber --timeout 5`; session 40 fiber audit)."""
        return ([str(p) for p in self._eqs[:cap]], [f"{q} > 0" for q in self._pos[:cap]],
                len(self._eqs), len(self._pos))

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
    ``semialgebraic._fiber.Fiber`` protocol: components (up to permutations), dimension (R17, checked
    against FIBDIM where computed), numbers of components and orbits, symmetry graph,
    ``contains`` (CANON), JSON and LaTeX."""

    def __init__(self, net, components, dimension, number_of_components, number_of_orbits,
                 graph=None, fibdim=None, notes=(), membership=None):
        self.net, self.components, self.dimension = net, components, dimension
        self.domain = None                    # R^d: the theory of the family
        self.membership = membership
        self.number_of_components, self.number_of_orbits = number_of_components, number_of_orbits
        self.graph, self.fibdim, self.notes = graph, fibdim, list(notes)
        self.at_theta = None        # the dimension near θ itself (R17), set by fiber_bottleneck
        self.partial = False        # True: some components are left out (the notes say which)
        self.number_of_strata = None  # n1 = 1 (R16a): labelled strata, glued into the components
        self.components_exact = True  # False: number_of_components is an upper bound (R16a)

    def __repr__(self) -> str:
        return fiber_repr('BottleneckFiber', self)

    def contains(self, theta) -> bool:
        """Does *theta* (a Network of the same widths, or its parameter vector) realise the same
        function?  Generic θ': CANON equality (R20, with a verified certificate); otherwise
        ``membership`` (the exact equivalence dispatcher, given by
        :func:`semialgebraic._fiber.fiber`), else NonGenericError.  A network of other widths is
        not a point of this parameter space: False, as for one hidden layer (it said True for
        a copy with one more dead neuron; session 39 API audit)."""
        theta = as_parameter_point(self.net, theta)
        if theta.widths != self.net.widths:
            return False
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
                         "number_of_strata": self.number_of_strata,
                         # a partial listing counts the listed strata only (s43 docs audit)
                         "number_of_components_exact": self.components_exact and not self.partial,
                         "components": [c.to_json() for c in self.components],
                         "symmetries": _symmetry_names(self), "notes": self.notes,
                         "listing": "partial" if self.partial else "complete"})

    def to_latex(self) -> str:
        parts = [c.to_latex() for c in self.components]
        return (r"\mathrm{Fib}(\theta) = \bigcup_{\pi \in S} \pi\cdot\left(" + r" \cup ".join(parts)
                + r"\right)")

    def _repr_png_(self) -> bytes | None:  # notebooks: semialgebraic/plot/notebook.py
        from ..plot import notebook
        return notebook.fiber_png(self)

    def _repr_latex_(self) -> str | None:
        from ..plot import notebook
        return notebook.fiber_latex(self)

    def _repr_html_(self) -> str:
        from ..plot import notebook
        return notebook.fiber_html(self)


def fiber_bottleneck(net: Network, *, jacobian: bool | None = None,
                     max_enumerated_flips: int = 8,
                     generators: bool | None = None, membership=None,
                     trace: Trace | None = None) -> BottleneckFiber:
    """Explicit fiber of a generic three-layer bottleneck network (R16, R17).

    Components up to permutations are indexed by the discrete choices (S5 flip sets that the
    linear neurons can absorb, n_L ≥ κ₊(Γ'); S7 flip sets; S8).  Each is a basic semi-algebraic
    set given by polynomial equalities (first-layer directions, ridge directions and output
    weights up to S2, the linear block carrying (Γ', γ')) and strict sign conditions (positive
    scalings, dead cones, masking pattern = S6 interval, positive linear rows).  The dimension
    is R17; *jacobian* (default: when N ≤ 60) also computes FIBDIM (R22) and the two must agree,
    else NonGenericError (P5).  The rank of the span of the continuous generators (S2, S3, S4,
    S6) at the representative is computed exactly and must agree as well.  A *trace*
    (:class:`~._structure.Trace`) records what is established on the way (phases
    ``hypotheses``, ``dimension``, ``components`` k of K, ``graph``) for a caller stopped by a
    budget or Ctrl-C.
    """
    trace = Trace() if trace is None else trace
    hyps = genericity(net, trace)
    bad = next((h for h in hyps if not h.holds), None)
    if bad is not None:
        raise NonGenericError(bad.name, jsonable(bad.witness))
    trace.phase = "dimension"
    dim = dimension_formula(net, hyps)
    fd = None
    if jacobian is None:
        jacobian = net.n_parameters <= 60
    if jacobian:
        fd = jacobian_dimension(net)
        if fd != dim.value:
            raise NonGenericError("R17 formula = FIBDIM", {"formula": dim.value, "jacobian": fd})
    trace.dimension = dim.value                  # R17 (and FIBDIM, when computed, agrees)
    P = Parts.of(net)
    types = second_layer_types(P)
    ring = _ring(net)
    trace.phase = "components"
    labels, notes = _discrete_labels(net, P, types, max_enumerated_flips)
    if all(t == DEAD for t in types):        # R16b (constant f): the generic points are listed
        notes.append("constant function: the points that pass G0-G8 are exactly the stratum with "
                     "every second-layer row dead (R16b), listed; non-generic points (a zero "
                     "output column, rows constant on the first layer's image, a linear block "
                     "with Γ = 0, rank W1 < n1) realise it too and are left out")
    elif P.n1 == 1:                          # R16a: every stratum, glued components
        F = _fiber_one_neuron(net, P, dim, fd, membership, generators)
        if F is not None:
            F.at_theta = dim.value          # R17 at θ (F.dimension: the largest stratum)
            return F
        notes.append("n1 = 1 with more than 10 kinks: only the strata of S1-S8 are listed (R16a "
                     "not enumerated)")
    from ._identifiability import constant_facet
    facet = constant_facet(net)             # R18.6: components beyond S1-S8 may exist
    if facet is not None:
        notes.append(f"the tail is constant on the facet u_{facet} = 0 and a column of W2 is all "
                     "negative: a kink swap may give components beyond S1-S8, possibly in a "
                     "stratum of larger dimension, not listed (three-layer-fibers R18.6)")
    partial = bool(notes)       # so far every note leaves components out (S5/S7 sets, R16 gaps)
    pool = any("linear" in lab for lab in labels)     # R16c: strata with other n_L, n_D
    comps = []
    trace.components = (0, len(labels))
    for k, lab in enumerate(labels):
        trace.components = (k, len(labels))
        rep = _representative(net, lab) if "linear" not in lab else _pool_representative(net, P, lab)
        if rep is None and (lab["flips"] or lab["s7"] or lab["s8"] or "linear" in lab):
            notes.append(f"component {lab}: no explicit point constructed; left out")
            partial = True
            continue
        at = rep if rep is not None else net
        if rep is not None and not pool and rep != net:
            why = _unlike_theta(net, P, rep)
            if why:                 # (s40 fiber audit F1: an S5 flip of the rows that a masked
                notes.append(f"component {lab}: its representative {why}; left out")  # column
                partial = True      # masks was listed with θ's masking signs, points outside
                continue            # the fiber satisfying them)
        cdim = dim
        if pool:                                 # R16c: R17 at the stratum's own point
            cdim = dimension_formula(at)
            if cdim.value is None:
                notes.append(f"component {lab}: its representative is not generic; left out")
                partial = True
                continue
            if jacobian and at is not net and jacobian_dimension(at) != cdim.value:
                raise NonGenericError("R16c: R17 = FIBDIM at a stratum's representative",
                                      {"stratum": lab, "formula": cdim.value})
            cdim = Dimension.of(cdim.value, "three-layer-fibers R16c (R17 at the stratum)")
        eqs, pos = _component_system(ring, at, lab, P, second_layer_types(Parts.of(at)))
        if generators is None:
            generators = net.n_parameters <= 4000
        gens, grank = _generators(at) if generators else ({}, None)
        if grank is not None and grank != cdim.value:
            notes.append(f"component {lab}: generator span rank {grank} != {cdim.value}")
        comps.append(BottleneckFiberComponent(ring, eqs, pos, lab, cdim, rep, gens, grank))
    if pool and comps:
        top = max(c.dimension.value for c in comps)
        if top != dim.value:
            dim = Dimension.of(top, f"R16c: the largest stratum (R17 gives {dim.value} at this "
                                    "network)")
    if facet is not None and dim.exact:     # a swapped copy may lie in a larger stratum (R18.6)
        dim = Dimension.between(dim.value, None, f"at least {dim.value} ({dim.reason}); a kink "
                                "swap (R18.6) may reach a stratum of larger dimension")
    trace.components = (len(labels), len(labels))
    trace.phase = "graph"
    F = BottleneckFiber(net, comps, dim, 0, 0, None, fd, notes, membership)
    F.at_theta = trace.dimension            # R17 at θ (F.dimension: the largest stratum)
    F.partial = partial
    F.structure = structure(net)
    F.graph = symmetry_graph(F)
    F.number_of_components, F.number_of_orbits = count_components(F)
    if pool:      # labelled strata; glued through non-generic points (V_j = 0), not counted
        F.number_of_strata = _labelled_strata(P, comps)
        F.number_of_components = F.number_of_strata
        F.components_exact = len({c.label["linear"] for c in comps}) <= 1
    return F


def _fiber_one_neuron(net, P, dim, fd, membership, generators):
    """n1 = 1, f not constant: every stratum of R16a, each with a representative checked exactly
    against *net*; components are the classes of labelled strata glued by g1-g3 (R16a)."""
    res = one_neuron_strata(net, P)
    if res is None:
        return None
    strata, K, _ = res
    ring = _ring(net)
    comps = []
    for st in strata:
        rep = representative(net, P, st)
        if not check_same_function(net, rep, P, K):      # a bug in R16a's construction
            raise NonGenericError("R16a representative computes another function",
                                  {"stratum": st.label()})
        eqs, pos = one_neuron_system(ring.names, P, st, _Poly.var)
        if not all(p(dict(zip(ring.names, rep.parameters()))) == 0 for p in eqs) or \
                not all(q(dict(zip(ring.names, rep.parameters()))) > 0 for q in pos):
            raise NonGenericError("R16a representative outside its stratum", {"stratum": st.label()})
        use_gens = net.n_parameters <= 4000 if generators is None else generators
        gens, grank = (_generators(rep) if use_gens and st.engine_generic else ({}, None))
        if grank is not None and grank != st.dimension:
            raise NonGenericError("R16a dimension = rank of the S2-S6 generators",
                                  {"stratum": st.label(), "rank": grank, "formula": st.dimension})
        lab = {"flips": [], "s7": [], "s8": st.eps == -1, "stratum": st.label()}
        comps.append(BottleneckFiberComponent(ring, eqs, pos, lab,
                                              Dimension.of(st.dimension, "R16a"), rep, gens, grank))
    _own_order(net, P, strata, comps, ring)
    top = max(st.dimension for st in strata)
    fdim = dim if top == dim.value else Dimension.of(top, "R16a: the largest stratum (R17 gives "
                                                     f"{dim.value} at this network)")
    ncomp, nstrata, edges = glue(strata, P.n2)
    F = BottleneckFiber(net, comps, fdim, ncomp, 0, None, fd, [], membership)
    F.structure = structure(net)
    F.graph = strata_graph(strata, edges)
    for k, c in enumerate(comps):            # node data as in symmetry_graph (label as JSON)
        F.graph.nodes[k].update(label=json.dumps(jsonable(c.label)), generator_rank=c.generator_rank,
                                **{f"generators_{n}": len(v) for n, v in c.generators.items()})
    F.number_of_orbits = nx.number_connected_components(F.graph)
    F.number_of_strata = nstrata
    F.components_exact = ncomp == 1  # classes under g1-g3: other joins not excluded (R16a)
    F.partial = False
    return F


def _row_of(name: str):
    """The second-layer row a parameter name belongs to (``W2[j,0]``, ``b2[j]``, ``W3[o,j]``),
    else None."""
    if name.startswith(("W2[", "b2[")):
        return int(name[3:-1].split(",")[0])
    if name.startswith("W3["):
        return int(name[3:-1].split(",")[1])
    return None


def _renamed(name: str, pi) -> str:
    j = _row_of(name)
    if j is None:
        return name
    if name.startswith("W2["):
        return f"W2[{pi[j]},0]"
    if name.startswith("b2["):
        return f"b2[{pi[j]}]"
    return f"W3[{name[3:-1].split(',')[0]},{pi[j]}]"


def _own_order(net: Network, P, strata, comps, ring) -> None:
    """n1 = 1: R16a's strata put their rows in a fixed order (kink rows, linear, dead), so the
    user's network lies in its own stratum only up to a permutation of the second-layer rows.
    Find the stratum and the permutation π with π·net in it (rows matched by their row-local
    conditions, then the whole system checked exactly) and rewrite that one component in the
    network's own order, so that ``any(c.contains(net) for c in fiber.components)``."""
    if any(c.contains(net) for c in comps):
        return
    vals = dict(zip(ring.names, net.parameters()))
    n2 = P.n2
    for k, (st, c) in enumerate(zip(strata, comps)):
        eqs, pos = c._eqs, c._pos
        local = {j: [] for j in range(n2)}
        for f, is_eq in [(e, True) for e in eqs] + [(q, False) for q in pos]:
            rows = {_row_of(n) for mon in f.t for n in mon} - {None}
            if len(rows) == 1:
                local[rows.pop()].append((f, is_eq))

        def fits(j, r):                      # position j's own conditions on the net's row r
            pi = {j: r}
            v = {n: vals[_renamed(n, pi)] if _row_of(n) == j else vals[n] for n in ring.names}
            return all((f(v) == 0) if is_eq else (f(v) > 0) for f, is_eq in local[j])
        cand = {j: [r for r in range(n2) if fits(j, r)] for j in range(n2)}
        G = nx.Graph()
        G.add_nodes_from(("p", j) for j in range(n2))
        G.add_edges_from((("p", j), ("r", r)) for j in range(n2) for r in cand[j])
        match = nx.bipartite.hopcroft_karp_matching(G, top_nodes=[("p", j) for j in range(n2)])
        if sum(1 for u in match if u[0] == "p") < n2:
            continue
        pi = [match[("p", j)][1] for j in range(n2)]
        eqs2, pos2 = one_neuron_system(ring.names, P, st,
                                       lambda n, pi=pi: _Poly.var(_renamed(n, pi)))
        if not (all(e(vals) == 0 for e in eqs2) and all(q(vals) > 0 for q in pos2)):
            continue
        rep = c.representative
        rows, b2 = rep.weights[1].to_rows(), list(rep.biases[1])
        W3 = rep.weights[2].to_rows()
        inv = [pi.index(r) for r in range(n2)]
        rep2 = Network.from_rows([rep.weights[0].to_rows(), [rows[inv[r]] for r in range(n2)],
                                  [[row[inv[r]] for r in range(n2)] for row in W3]],
                                 [list(rep.biases[0]), [b2[inv[r]] for r in range(n2)],
                                  list(rep.biases[2])])
        gens, grank = _generators(rep2) if c.generators else ({}, c.generator_rank)
        comps[k] = BottleneckFiberComponent(ring, eqs2, pos2, c.label, c._dim, rep2, gens, grank)
        return


def _ring(net: Network):
    return Ring.get(net.parameter_names())


def _basic_set(ring, equalities, positive):
    return BasicSet(ring, equalities=tuple(equalities), positive=tuple(positive))


def _symmetry_names(F) -> list:
    s = structure(F.net)
    out = ["S1", "S2"]
    labs = [c.label for c in F.components]          # R16c strata: dead / linear rows elsewhere
    if s.count(DEAD) or any(lab.get("dead") for lab in labs):
        out.append("S3")
    if s.linear or any(lab.get("linear") for lab in labs):
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
    D0 = [j for j, t in enumerate(types) if t == DEAD]
    pool_done = False      # R16c evaluated: no stratum with other linear and dead counts
    if P.n1 >= 2 and s.masked is None and (D0 or L) and (A or L) and len(A) <= cap:
        # R16c's hypothesis "every H_i visible in f" is G8 with no masked column (§3.1), and
        # fiber_bottleneck refuses a net failing G8 before it gets here
        labels = _pool_labels(P, A, L, D0)
        if any(lab["linear"] != len(L) for lab in labels):
            return labels, notes
        pool_done = True
    flip_sets = [()]
    if A:           # S5 flips; without a linear row, those whose V_j W2_j sum to 0 (R18.5)
        if len(A) <= cap:
            flip_sets = []
            for k in range(len(A) + 1):
                for S in combinations(A, k):
                    G = flipped_gamma(P, L, S)[0]
                    if len(L) >= positive_factor_rank(G)[0]:
                        flip_sets.append(S)
        elif L or _zero_sum_flips(P, A) != "none":
            notes.append(f"{len(A)} switching neurons: S5 flip sets not enumerated")
    D = [j for j, t in enumerate(types) if t == DEAD]
    if P.n1 >= 2 and (A or L) and not pool_done and _other_block_sizes(P, L, D, A, flip_sets, cap):
        notes.append("a dead or a linear row can change type (three-layer-fibers, known gap (iv) "
                     "after R17: S5 with n_L + n_D neurons): the strata with another number of "
                     "linear and dead rows are not listed")
    s7_sets = [()]
    if s.s7_applies:
        nd = [j for j, t in enumerate(types) if t != DEAD]
        others = s7_flippable([P.R2[j] for j in nd], s.masked)      # R14, equal ratios
        s7_sets = [S for k in range(len(others) + 1) for S in combinations(others, k)]
        if len(s7_sets) > 2 ** cap:
            s7_sets = [()]
            notes.append("S7 flip sets not enumerated")
    s8 = [False, True] if s.s8_applies else [False]
    labels = [{"flips": list(f), "s7": list(g), "s8": h} for f in flip_sets for g in s7_sets for h in s8]
    return labels, notes


def _zero_sum_flips(P, A) -> str:
    """:func:`semialgebraic.shallow.identifiability.flip_sets` on the switching rows *A* (their
    W2 parts and output columns): ``"none"`` when no non-empty subset has Σ V_j W2_j = 0."""
    from algebra.linalg import QMatrix
    from ..shallow.identifiability import flip_sets
    rows = QMatrix.from_rows([list(P.R2[j][:-1]) for j in A])
    outs = QMatrix.from_rows([[P.V[j][o] for j in A] for o in range(P.m)])
    return flip_sets(rows, outs)[0]


def _other_block_sizes(P, L, D, A, flip_sets, cap) -> bool:
    """Known gap (iv) after three-layer-fibers R17 (found by ``tests/fuzz/fiber_explorer.py``):
    can the linear block after some S5 flip set F be carried by another number n_L' of linear
    neurons, the others dead?  Conservative: True when a dead row exists (a dead row becomes a
    linear one; with the flip of a switching row whose W2 entries have one sign it takes over the
    flip's linear part), or when some listed F has κ₊(Γ'_F) < n_L (a linear row can die), or
    when the flip sets were not enumerated."""
    if D:
        return True
    if not L:
        return False
    if len(A) > cap:
        return True
    return any(positive_factor_rank(flipped_gamma(P, L, S)[0])[0] < len(L) for S in flip_sets)


def _pool_labels(P, A, L, D) -> list:
    """Three-layer-fibers R16c: labels ``{flips: F, s7: [], s8: False, linear: n_L', dead: n_D'}``
    of the strata whose n_L + n_D non-switching rows split into n_L' linear and n_D' dead rows
    after the S5 flips F: n_L' ≥ κ₊(Γ'_F) and (G6 at the stratum) rank Γ'_F = min(n_L', n1, m)
    (a stratum failing G6 has no generic point: gap (iii) of R16, not listed)."""
    out = []
    pool = len(L) + len(D)
    for k in range(len(A) + 1):
        for F in combinations(A, k):
            G = flipped_gamma(P, L, F)[0]
            kap, rho = positive_factor_rank(G)[0], G.rank()
            for nl in range(pool + 1):
                if nl >= kap and rho == min(nl, P.n1, P.m):
                    out.append({"flips": list(F), "s7": [], "s8": False, "linear": nl,
                                "dead": pool - nl})
    return out


def _pool_representative(net: Network, P, lab: dict) -> Network | None:
    """An exact point of the R16c stratum *lab* (None when none is constructed): the flips F,
    the linear block Γ'_F carried by n_L' linear rows (the old linear rows first, then dead
    ones; an R6 positive factorisation, biases c·(1, 2, …) with c from a short list until the
    point passes G5), the other pool rows dead.  The step is
    a ``TailRefactor``, whose check is the exact proof that the tail's function on the orthant,
    hence f (the first layer is unchanged), is the same; the point must pass G0–G8."""
    types = second_layer_types(P)
    L = [j for j, t in enumerate(types) if t == LINEAR]
    D = [j for j, t in enumerate(types) if t == DEAD]
    F, nl = list(lab["flips"]), lab["linear"]
    if not F and nl == len(L):
        return net
    G, g = flipped_gamma(P, L, F)
    if nl:
        fac = positive_factorization(G, nl)
        if fac is None:
            return None
        Vn, Wn = fac
    elif any(x != 0 for r in G.to_rows() for x in r):
        return None
    else:
        Vn, Wn = [[] for _ in range(P.m)], []
    slots = L + D
    for c in (Q(1), Q(3, 2), Q(2, 3), Q(5, 2), Q(7, 3)):      # biases c·(k+1): avoid G5 ties
        rep = {j: (tuple(-x for x in P.R2[j]), P.V[j]) for j in F}
        for k, j in enumerate(slots[:nl]):
            rep[j] = (tuple(Wn[k]) + (c * (k + 1),), tuple(Vn[o][k] for o in range(P.m)))
        b3 = tuple(g[o] - sum((Vn[o][k] * c * (k + 1) for k in range(nl)), Q(0))
                   for o in range(P.m))
        for t, j in enumerate(slots[nl:]):
            if types[j] != DEAD:
                rep[j] = (tuple(-c * (1 + (i + 1) * (t + 2)) for i in range(P.n1 + 1)), P.V[j])
        try:
            out = TailRefactor(rep, b3).apply(net)
        except (InvalidStepError, ValueError):
            return None
        if is_generic(out):
            return out
    return None


def _labelled_strata(P, comps) -> int:
    """Labelled strata of R16c: each listed stratum up to S1 stands for n1! n2! / (n_L'! n_D'!)
    labelled ones (first-layer neurons and switching rows distinguishable)."""
    from math import factorial
    return sum(factorial(P.n1) * factorial(P.n2) // (factorial(c.label["linear"])
                                                      * factorial(c.label["dead"])) for c in comps)


def _unlike_theta(net: Network, P, rep: Network) -> str | None:
    """Why a component's representative *rep* does not have θ's generic structure (its
    masked column, G0-G8), so that the component's system — written with θ's masked column and
    sign conditions — would not describe it; None when it does.  (A flip set of the rows a
    masked column masks negates them: the column no longer masks them, and the flipped point
    fails G8: session 40 fiber audit F1.)"""
    istar, other = masking_column(P.R2), masking_column(Parts.of(rep).R2)
    if other != istar:
        return (f"has no masked first-layer column (θ's column {istar} is masked)" if other is None
                else f"masks first-layer column {other} (θ: {'none' if istar is None else istar})")
    bad = next((h for h in genericity(rep) if not h.holds), None)
    return None if bad is None else f"is not generic ({bad.name})"


def _representative(net: Network, lab: dict) -> Network | None:
    """A parameter in the component *lab* (S7/S8 moves, S5 flips with an explicit positive
    factorisation of the new linear block); None when no explicit point is constructed."""
    out = discrete_move(net, lab)
    return None if out is None else out[0]


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
    P = Parts.of(rep)
    g = {n: _Poly.var(n) for n in ring.names}
    zero = _Poly()
    n1, n2, m, d = P.n1, P.n2, P.m, P.d
    W1 = lambda i, c: g[f"W1[{i},{c}]"] if c < d else g[f"b1[{i}]"]
    W2 = lambda j, i: g[f"W2[{j},{i}]"] if i < n1 else g[f"b2[{j}]"]
    W3 = lambda o, j: g[f"W3[{o},{j}]"]
    b3 = lambda o: g[f"b3[{o}]"]
    eqs, pos = [], []
    istar = masking_column(P0.R2)
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
        G, gm = flipped_gamma(P, L, ())
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
    P = Parts.of(net)
    types = second_layer_types(P)
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
    istar = masking_column(P.R2)
    if istar is not None:
        gens["S6"] += TranslateMasked(istar, 0).generator(net)
    allv = [v for vs in gens.values() for v in vs]
    rank = QMatrix.from_rows(allv).rank() if allv else 0
    return gens, rank
