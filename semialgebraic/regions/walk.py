r"""Linear regions of ReLU networks: exact enumeration by walking across facets.

A *region* is a full-dimensional connected set of inputs (inside the domain's interior) on which
every hidden neuron has a constant activation sign.  There, the network is the affine map
``x ↦ J x + c`` of :meth:`algebra.network.Network.affine_map`.

Walk.  Start from an interior point of the domain (perturbed off the hyperplanes), build its
region, find its facets, step across each facet to the neighbouring region and repeat (breadth
first, with a visited set of patterns).  All 2^n patterns are never enumerated.  For a region
with pattern p the pre-activation of neuron k (layer l) is an affine function of x (it depends
on the patterns of the layers below l only); orienting it by p_k gives one inequality
``a_k·x + c_k > 0`` per neuron, plus the domain's ``-A_i·x + b_i > 0``.

Facets (exact).  Inequalities that are positive multiples of each other define one hyperplane
(a *class*; the smallest index represents it).  A class is a facet iff its hyperplane meets the
closure of the region in a (d-1)-dimensional set, i.e. iff ``{ℓ_i = 0, ℓ_j > 0 for every other
class j}`` is feasible: decided by the exact LP of :mod:`semialgebraic.lp` (the foot of the
perpendicular from the interior point is tried first as an exact witness;
:mod:`semialgebraic.regions.facets`).  A witness point ``y`` in the facet's relative interior is
kept (``Region.facet_points``).

Neighbours (exact).  Across a facet only the neurons of the facet's class and the neurons that
are identically zero on the region can change (every other pre-activation is non-zero at y).
The neighbour's pattern q is the pattern at ``y' = y - ε a_i``; it is *proved* to be the region
across the facet by checking that q's own inequalities are strictly positive at y' and
non-negative at y (so the segment (y, y'] lies in q's region), dividing ε by 4 otherwise.  The
first step of every facet of a region is taken at once: one exact product for the step sizes,
a float forward pass guessing every q (a guess that passes the exact check *is* the pattern at
y': its consistent formulas hold with its own signs there, layer by layer), and one exact
batched forward pass for the guesses that fail.  The
neighbour may differ in several neurons (coinciding hyperplanes, or a deeper neuron whose
bent hyperplane continues the facet).

Speed.  Per pattern, the rows are computed once, on integers (the layers as integer matrices
over a common denominator; the rational rows only when the region is built), and so are the
classes (keyed by primitive integer vectors, from gcds of the integer rows).  One float convex
hull of the region's polar (:mod:`semialgebraic.regions.hull`, scipy's Qhull) guesses every
facet, a point inside each and the vertex basis of every closure proof, with no LP; the
points are checked exactly in one integer product and the proofs solved exactly; the float
step across every facet is checked by the exact neighbour proof below.  What the hull leaves
open goes to the paths below.  Every exact sign test of a region runs on the classes' integer
rows (:mod:`semialgebraic.regions.integer`: every perpendicular foot at once from the Gram
matrix, points and neighbour proofs by one integer product, closure proofs over a basis whose
exact inverse — in R^d, d <= 4, the integer adjugate in closed form — is cached by its
hyperplanes' keys up to order and orientation, so the regions around one vertex share it, and
the basis that proved a hyperplane redundant is tried first wherever it reappears); one HiGHS
instance, loaded with each region's model, gives every float guess (the centre, closure
supports, facet centres; :mod:`semialgebraic.regions.facets`).  Floats only
choose what to check; ``tests/semialgebraic/test_regions_fast_paths.py`` checks that the exact
paths alone walk the same regions.

Reuse between regions (``tests/semialgebraic/test_regions_reuse.py``: the same walk without
it).  A closure proof ``K_u = Σ μ_f K_f + μ_0`` is an identity between class keys, so it holds
in every region that has the classes of its basis: the hull's proofs are kept by class (integer
ids of the keys) and a class they cover needs no arithmetic.  When the proof that q lies across
the facet ``key`` of p also shows that exactly one class of q vanishes at the facet point y,
with key ``-key``, then y is a facet point of q and p lies across that facet of q (across a
facet the region is the same along all of its relative interior: only the facet's neurons
vanish there, and on the other side their forms stay multiples of the facet's), so the walk
does not step across it again from q (``_Engine.across``; the serial walk only).  Closure
proofs in R^d, d <= 4, run on Python integers, and the neighbour proofs' signs on int64 limbs
(:func:`~semialgebraic.regions.integer.int_signs`).  ``Region.inequalities`` (rational) is
built from the pattern's integer rows when first read, so a walk that only counts or hashes
regions never builds it.  ``benchmarks/bench_regions.py --before REV`` measures the
speed-up against an older revision.

Memory.  The forms of a pattern are kept while it can still be proved a neighbour: once the
walk reaches breadth-first layer k, the forms of the regions of layer k - 2 are dropped (a
region's neighbours lie at most one layer up when it is their neighbour too; one asked for
again is recomputed, identically), and a visited pattern keeps only its integer rows.  So the
walk holds about three layers of patterns, not every region it has seen.

Redundancy multipliers (``regions(..., multipliers=True)``).  For every inequality that is not
a facet, exact Farkas multipliers over the facets (``Region.redundant``,
:mod:`semialgebraic.regions.redundancy`): they prove that the closed region is cut out by its
facets.  Off by default (it may cost one LP per non-facet).

Pattern entries.  ``+1``/``-1``: the neuron's pre-activation is positive/negative on the region.
``0``: the pre-activation is *identically zero* on the region (e.g. a dead neuron, or a
second-layer neuron fed only by inactive neurons); its inequality is then the trivial
``0·x + 0`` and is never a facet.  This agrees with :meth:`Network.activation_pattern` at every
interior point of the region.

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]])
>>> rs = list(regions(net))
>>> len(rs), number_of_regions(net)          # 3 lines in general position: 1 + 3 + 3
(7, 7)
>>> all(r.jacobian.apply(r.point)[0] + r.offset[0] == net(r.point)[0] for r in rs)
True
>>> from semialgebraic.sets import Polyhedron
>>> number_of_regions(net, domain=Polyhedron.box(2, -1, 1))   # x + y = 1 cuts one quadrant
5
"""

from __future__ import annotations

import time
from collections import deque
from math import lcm
from dataclasses import dataclass, field
from collections.abc import Sequence as SequenceABC
from typing import Sequence

import numpy as np

from algebra.exceptions import DimensionMismatchError, InputError
from algebra.linalg.evaluation import row_gcds
from algebra.linalg import QMatrix
from algebra.network import Network, require_network
from algebra.rationals import Q, q_json, to_q

from ..budget import Budget, Progress, alarm_at, api_boundary, checkpoint
from ..exceptions import BudgetExceededError, CertificateError
from ..lp import FloatLP, dot, feasible
from ..lp.floatlp import new_highs
from ..sets import Polyhedron
from .facets import (centre_point, certify_with_basis, facet_lp, facet_point,
                     misses_closure, primitive_key)
from .hull import hull_pass
from .integer import _LIMIT, ClassInts, _as_object, _row_bound, int_matmul
from .redundancy import redundancy_multipliers

__all__ = ["Region", "RegionWalk", "RegionSteps", "regions", "region_at", "number_of_regions"]

_ZERO = Q(0)
_KEYS = 200000         # class keys given ids (and closure proofs kept) before both are dropped


def _alarm(budget: Budget):
    """An alarm at *budget*'s deadline (a wall-clock timeout; main thread only, else none) around
    one step of the walk, never across a ``yield``: the steps' exact work sees no check."""
    left = budget.remaining()
    end = None if left is None or budget.clock is not time.monotonic else time.monotonic() + left
    return alarm_at(end, "the region walk")


@dataclass(frozen=True)
class Region:
    """One linear region (open, full-dimensional) of a ReLU network.

    Attributes
    ----------
    pattern : tuple of int
        ±1 (or 0 for an identically-zero pre-activation) per hidden neuron, layer order.
    point : tuple of Q
        Exact interior point (every inequality strict).
    jacobian, offset : QMatrix (m x d), tuple of Q
        The network is ``x ↦ jacobian x + offset`` on the region.
    inequalities : tuple of (a, c)
        ``a·x + c > 0`` on the region: one per hidden neuron (layer order, oriented by the
        pattern; ``(0, 0)`` for pattern 0), then one per row of the domain.
    facets : tuple of int
        Indices into *inequalities* of the irredundant facets (one representative, the smallest
        index, per hyperplane).
    facet_classes : tuple of tuple of int
        For each facet, every inequality index defining the same hyperplane.
    facet_points : tuple of tuple of Q
        For each facet, an exact point in its relative interior (witness).
    neighbours : tuple of (int, tuple or None)
        ``(facet index, pattern of the region across it)``; None when the facet lies on the
        domain's boundary.
    n_hidden : int
        Number of hidden neurons (inequalities from index ``n_hidden`` on come from the domain).
    redundant : dict or None
        With ``multipliers=True``: ``{k: (λ_0, (λ_f for f in facets))}`` for every inequality
        k that is neither a facet nor ``0·x + 0``, exact, ``λ >= 0`` and
        ``ℓ_k = λ_0 + Σ λ_f ℓ_f`` (see the module docstring); None otherwise.
    """

    pattern: tuple
    point: tuple
    jacobian: QMatrix
    offset: tuple
    inequalities: tuple
    facets: tuple
    facet_classes: tuple = ()
    facet_points: tuple = ()
    neighbours: tuple = ()
    n_hidden: int = 0
    redundant: dict | None = field(default=None, compare=False)
    _A: QMatrix | None = field(default=None, repr=False, compare=False)

    def contains(self, x: Sequence[object]) -> bool:
        """True iff *x* is in the open region (every inequality strict)."""
        x = [to_q(v) for v in x]
        return all(dot(a, x) + c > 0 for a, c in self.inequalities if any(v != 0 for v in a) or c != 0)

    def value(self, x: Sequence[object]) -> tuple:
        """``jacobian x + offset`` (the network's value where *x* is in the region's closure)."""
        return tuple(v + c for v, c in zip(self.jacobian.apply([to_q(t) for t in x]), self.offset))

    def to_json(self) -> dict:
        return {
            "pattern": list(self.pattern),
            "point": [q_json(v) for v in self.point],
            "jacobian": self.jacobian.to_json(),
            "offset": [q_json(v) for v in self.offset],
            "inequalities": [{"a": [q_json(v) for v in a], "c": q_json(c)} for a, c in self.inequalities],
            "facets": list(self.facets),
            "facet_classes": [list(c) for c in self.facet_classes],
            "facet_points": [[q_json(v) for v in p] for p in self.facet_points],
            "neighbours": [[i, None if q is None else list(q)] for i, q in self.neighbours],
        }


class RegionWalk:
    """Lazy iterator over the regions (see :func:`regions`).

    ``complete`` is True once the walk has ended with every region visited; False while running
    or after a budget, ``max_regions`` or Ctrl-C cut it short (then ``budget.reason`` says why).
    """

    def __init__(self, net: Network, domain: Polyhedron | None, budget: Budget,
                 progress: bool | None, start: Sequence[object] | None,
                 multipliers: bool = False):
        self.net, self.domain, self.budget = net, domain, budget
        self.complete = False
        self.count = 0
        self._multipliers = multipliers
        self.keep_across = True
        self._engine = None            # made at the first step, under the budget (a 4000-4000-1
        self._progress = progress      # net's integer layers took 27 s)
        self._start = start
        self._prog = None
        self._gen = self._walk()

    def __iter__(self):
        # the generator itself, not this object: a for loop or list() resumes the walk's frame
        # directly, where a Ctrl-C is caught (a __next__ frame's entry is a place it can land)
        return self._gen

    def __next__(self) -> Region:
        try:
            return next(self._gen)
        except KeyboardInterrupt:
            # a Ctrl-C (or the budget's alarm) that landed in this frame, not in the walk's:
            # the walk ends as if it had landed there (s45: ~1 in 300 of a ``conserved`` walk's
            # Ctrl-Cs escaped the command with no partial report)
            self.stop()
            raise StopIteration from None

    def __repr__(self) -> str:
        state = ("complete" if self.complete else f"stopped: {self.budget.reason}"
                 if self.budget.reason else "not finished: iterate over it")
        widths = "-".join(map(str, self.net.widths))
        return f"<RegionWalk of a {widths} network: {self.count} region(s) walked, {state}>"

    def stop(self) -> None:
        """End the walk here (a Ctrl-C: ``budget.interrupt()``), its regions so far kept."""
        self.budget.interrupt()
        self._gen.close()

    def patterns(self) -> list:
        """The patterns of the regions walked, to the end or until the budget (or Ctrl-C) stops
        the walk: a Ctrl-C that lands in this loop, between two regions, ends the walk too (a
        comprehension over the walk let it escape)."""
        return [p for p, _ in self.patterns_and_points()]

    def patterns_and_points(self) -> list:
        """``(pattern, point)`` of the regions walked (a point of each region, exact), as
        :meth:`patterns` stops."""
        out: list = []
        try:
            for r in self:
                out.append((r.pattern, r.point))
        except KeyboardInterrupt:
            self.stop()
        return out

    def _walk(self):
        try:                           # (from the first line: a Ctrl-C may land on any)
            budget = self.budget
            prog = self._prog = Progress("regions", enabled=self._progress)
            with budget.active(), _alarm(budget):   # exact LPs inside stop via BudgetExhausted
                eng = self._engine = _Engine(self.net, self.domain, self._multipliers)
                # neighbours known from the other side (the walk cleans it; None: not kept)
                eng.across = {} if self.keep_across else None
                first = eng.start(self._start)
            if first is None:  # empty domain interior
                self.complete = True
                return
            queue = deque([(*first, 0)])
            seen = {first[0]}
            visited: dict = {}         # breadth-first depth -> patterns visited at it
            while queue:
                if budget.exhausted():
                    return
                pattern, point, depth = queue.popleft()
                if depth - 2 in visited:
                    # a region's neighbours lie at most one layer up (when it is their
                    # neighbour too), so the regions two layers up are (almost) never proved
                    # again: drop their forms from the cache (memory; one asked for again is
                    # recomputed, identically)
                    for p in visited.pop(depth - 2):
                        eng.cache.pop(p, None)
                        if eng.across is not None:
                            eng.across.pop(p, None)
                with budget.active(), _alarm(budget):   # (a region's exact steps see no
                    region = eng.region(pattern, point)    # check: 16 s at --timeout 10 on a
                    #                                        768-3072-768 block, s49)
                visited.setdefault(depth, []).append(pattern)
                budget.count()
                for _, q, y in eng.pending_neighbours:
                    if q is not None and q not in seen:
                        seen.add(q)
                        queue.append((q, y, depth + 1))
                        eng.inherited[q] = eng.bases
                self.count += 1
                prog.update(1, f"(queue {len(queue)})")
                yield region
            self.complete = True
        except KeyboardInterrupt:
            self.budget.interrupt()
        finally:
            if self._prog is not None:
                self._prog.close()


def regions(net: Network, *, domain: Polyhedron | None = None, max_regions: int | None = None,
            timeout: float | None = None, budget: Budget | None = None,
            progress: bool | None = None, start: Sequence[object] | None = None,
            multipliers: bool = False) -> RegionWalk:
    """Iterate lazily over the linear regions of *net* (inside *domain*'s interior).

    Parameters
    ----------
    net : Network
    domain : Polyhedron, optional
        Input domain (box, orthant, any polyhedron); all of Q^d when omitted.  Any other
        spelling of :func:`~semialgebraic.sets.api_domain` too (``(lo, hi)``, ``"orthant"``, …).
    max_regions, timeout : optional
        Budget (ignored when *budget* is given): the iterator then ends early, the returned
        walk has ``complete == False`` and ``budget.reason`` is set.  Ctrl-C ends it the same way.
    progress : bool, optional
        Progress line on stderr (default: when stderr is a terminal).
    start : point, optional
        Where to start the walk (perturbed if it lies on a hyperplane).
    multipliers : bool
        Also compute exact redundancy multipliers of every non-facet (``Region.redundant``).

    Returns
    -------
    RegionWalk
        An iterator of :class:`Region`; ``.complete`` tells whether every region was visited.

    Raises
    ------
    DimensionMismatchError
        If the domain's dimension is not the number of inputs of *net*.
    CertificateError
        (while iterating) If a step of the walk cannot be proved exactly.

    Examples
    --------
    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> walk = regions(net)
    >>> sorted(r.pattern for r in walk), walk.complete
    ([(-1, 1), (1, -1), (1, 1)], True)
    """
    domain = _polyhedron(net, domain, "regions")
    if domain is not None and domain.dim_ambient != net.n_inputs:
        raise DimensionMismatchError("regions: domain dimension", domain.dim_ambient, net.n_inputs)
    if budget is None:
        budget = Budget(timeout=timeout, max_regions=max_regions)
    return RegionWalk(net, domain, budget, progress, start, multipliers)


def region_at(net: Network, x: Sequence[object], *, domain: Polyhedron | None = None) -> Region:
    """The linear region of *net* whose interior contains the point *x*.

    Parameters
    ----------
    net : Network
    x : sequence of rationals
        A point (length ``net.n_inputs``).
    domain : Polyhedron, optional
        Input domain; all of Q^d when omitted (or any spelling of
        :func:`~semialgebraic.sets.api_domain`).

    Returns
    -------
    Region
        With its inequalities, facets and neighbours.

    Raises
    ------
    InputError
        If *x* lies on a region boundary or outside the domain's interior.
    DimensionMismatchError
        If *x* has the wrong length.

    Examples
    --------
    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> region_at(net, ["1/2"]).pattern
    (1, 1)
    """
    eng = _Engine(net, _polyhedron(net, domain, "region_at"))
    x = tuple(to_q(v) for v in x)
    if len(x) != net.n_inputs:
        raise DimensionMismatchError("region_at", len(x), net.n_inputs)
    p = eng.pattern_at(x)
    if p is None:
        raise InputError("the point lies on a region boundary (or outside the domain's interior)")
    return eng.region(p, x)


def _polyhedron(net, domain, what: str):
    """*domain* in any spelling the Python API takes (:func:`semialgebraic.sets.api_domain`:
    ``(lo, hi)``, ``"orthant"``, a Domain, …) as the walk's Polyhedron, None for R^d (the s48
    API audit: ``number_of_regions(net, domain=(-1, 1))`` raised a bare AttributeError)."""
    require_network(net, what)
    if domain is None or isinstance(domain, Polyhedron):
        return domain
    from ..sets.domains import polyhedron_of
    return polyhedron_of(domain, net.n_inputs)


@api_boundary
def number_of_regions(net: Network, *, domain: Polyhedron | None = None,
                      max_regions: int | None = None, timeout: float | None = None) -> int:
    """Exact number of linear regions of *net* inside *domain*'s interior.

    Parameters
    ----------
    net : Network
    domain : Polyhedron, optional
        Input domain; all of Q^d when omitted (or any spelling of
        :func:`~semialgebraic.sets.api_domain`).
    max_regions, timeout : optional
        Budget of the walk (:func:`regions`).

    Returns
    -------
    int

    Raises
    ------
    BudgetExceededError
        If the budget stopped the walk (with the partial count).

    Examples
    --------
    >>> from algebra.network import Network
    >>> number_of_regions(Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]]))
    3
    """
    walk = regions(net, domain=domain, max_regions=max_regions, timeout=timeout, progress=False)
    n = sum(1 for _ in walk)
    if not walk.complete:
        raise BudgetExceededError(walk.budget.reason or "budget", partial=n)
    return n


# ------------------------------------------------------------------------------------------------
# engine
# ------------------------------------------------------------------------------------------------
class _Scales:
    """The scales ``s_t`` of a pattern's classes (``K_t = s_t (a_t, c_t)``), as rationals built
    on first use: only the redundancy multipliers need them."""

    __slots__ = ("_src", "_vals")

    def __init__(self, firsts, hs, gs, nh):
        self._src = (firsts, hs, gs, nh)
        self._vals = None

    def _values(self):
        if self._vals is None:
            firsts, hs, gs, nh = self._src
            self._vals = [Q(int(hs[i]), int(gs[i])) if i < nh else gs[i] for i in firsts]
        return self._vals

    def __getitem__(self, t):
        return self._values()[t]

    def __len__(self):
        return len(self._src[0])

    def __iter__(self):
        return iter(self._values())


class _Inequalities(SequenceABC):
    """``Region.inequalities`` built on first use: the rational ``(a, c)`` of every row from the
    pattern's exact integer rows (row i is ``(H_i[:d], H_i[d]) / hs_i``), then the domain's.
    Behaves as the tuple it stands for (indexing, iteration, equality, hash; pickled as that
    tuple); a walk whose caller never reads the inequalities never builds them."""

    __slots__ = ("_src", "_t", "_n")

    def __init__(self, H, hs, dom_ineqs):
        self._src = (H, hs, dom_ineqs)
        self._n = H.shape[0] + len(dom_ineqs)
        self._t = None

    def _tuple(self) -> tuple:
        if self._t is None:
            H, hs, dom_ineqs = self._src
            self._t = _rational_rows(H, hs) + dom_ineqs
            self._src = None
        return self._t

    def __getitem__(self, i):
        return self._tuple()[i]

    def __len__(self) -> int:
        return self._n

    def __iter__(self):
        return iter(self._tuple())

    def __eq__(self, other):
        if isinstance(other, _Inequalities):
            other = other._tuple()
        return self._tuple() == other

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._tuple())

    def __repr__(self) -> str:
        return repr(self._tuple())

    def __reduce__(self):
        return (tuple, (self._tuple(),))


def _rational_rows(H, hs) -> tuple:
    """``((a_i, c_i), ...)`` with ``(a_i, c_i) = H_i / hs_i`` (exact rationals): one exact
    block per run of equal scales."""
    d = H.shape[1] - 1
    n = len(hs)
    out = []
    start = 0
    while start < n:
        s = hs[start]
        stop = start
        while stop < n and hs[stop] == s:
            stop += 1
        ents = QMatrix.from_integers(stop - start, d + 1, H[start:stop].ravel().tolist(),
                                     den=int(s)).entries()
        for r in range(0, (stop - start) * (d + 1), d + 1):
            out.append((tuple(ents[r:r + d]), ents[r + d]))
        start = stop
    return tuple(out)


class _Forms:
    """Inequalities of one pattern, ``a·x + c > 0`` (oriented by the pattern): from exact
    integer rows ``H`` (one per hidden neuron, then the domain's), row i being ``hs_i (a_i,
    c_i)`` with ``hs_i > 0`` an integer; the rational A (M x d), c, J and offset are built
    from them on first use."""

    __slots__ = ("H", "hs", "_Jint", "_sJ", "zero_rows", "consistent", "_rat", "_dom",
                 "_geometry", "_ints")

    def __init__(self, H, hs, Jint, sJ, zero_rows, consistent, dom):
        self.H, self.hs, self._Jint, self._sJ = H, hs, Jint, sJ
        self.zero_rows, self.consistent, self._dom = zero_rows, consistent, dom
        self._rat = None
        self._geometry = None
        self._ints = None

    def _rational(self):
        if self._rat is None:
            H, d = self.H, self.H.shape[1] - 1
            n = len(self.hs)
            blocks, consts = [], []
            start = 0
            while start < n:                 # one exact block per run of equal scales
                s = self.hs[start]
                stop = start
                while stop < n and self.hs[stop] == s:
                    stop += 1
                for lo in range(start, stop, 64):   # blocks of rows, the budget checked between
                    checkpoint()                    # (1 024 rows of 785 long integers: seconds)
                    hi = min(stop, lo + 64)
                    B = QMatrix.from_integers(hi - lo, d + 1, H[lo:hi].ravel().tolist(), den=int(s))
                    blocks.append(B.submatrix(cols=list(range(d))))
                    consts.extend(B.col_at(d))
                start = stop
            dom = self._dom
            if dom[0] is not None:
                blocks.append(dom[0])
                consts.extend(dom[1])
            A = QMatrix.vstack(blocks) if blocks else QMatrix.zeros(0, d)
            self._rat = (A, tuple(consts))
        return self._rat

    def affine(self):
        """``(J, offset)``: the network is ``x ↦ J x + offset`` on the region (exact)."""
        d = self.H.shape[1] - 1
        Jq = QMatrix.from_integers(self._Jint.shape[0], d + 1,
                                   self._Jint.ravel().tolist(), den=int(self._sJ))
        return Jq.submatrix(cols=list(range(d))), Jq.col_at(d)

    @property
    def A(self):
        return self._rational()[0]

    @property
    def c(self):
        return self._rational()[1]

    @property
    def J(self):
        return self.affine()[0]

    @property
    def offset(self):
        return self.affine()[1]

    def trim(self) -> None:
        """Once the region is built: keep only what proving it a neighbour needs (memory)."""
        self._rat = self._geometry = None          # (geometry() rebuilds both, and _ints)
        if self._ints is not None and self._ints[0] is not None:
            self._ints[0].trim()

    def ints(self):
        """``(ClassInts of the classes, scales s_t, constants_ok)``, computed once per pattern:
        the primitive integer rows ``K_t = s_t (a_t, c_t)`` of the classes (in class order), and
        whether every row with ``a = 0`` (a constant pre-activation) that is not a zero row of
        the pattern is a positive constant."""
        if self._ints is None:
            self._classes()
        return self._ints

    def _classes(self):
        """The classes of coinciding hyperplanes from the integer rows (key: the primitive
        integer vector of ``(a, c)``, keys in order of first index), their scales, and
        ``constants_ok``."""
        H, d = self.H, self.H.shape[1] - 1
        dom = self._dom
        M = H.shape[0] + (len(dom[2]) if dom[0] is not None else 0)
        if H.size and H.dtype == object and int(np.abs(H).max()) < 2 ** 62:
            H = H.astype(np.int64)
        elif H.dtype == np.int64 and H.size and int(np.abs(H).max()) >= 2 ** 62:
            H = H.astype(object)
        act = np.any(H[:, :d] != 0, axis=1) if H.size else np.zeros(0, dtype=bool)
        active = np.nonzero(act)[0].tolist()
        prim = None
        if active:
            Ha = H[act]
            g = row_gcds(Ha)
            prim = Ha // g[:, None]
            keys = list(map(tuple, prim.tolist()))
            g = g.tolist()
        else:
            keys, g = [], []
        rest = ~act
        if self.zero_rows:
            rest[list(self.zero_rows)] = False
        const_ok = bool(np.all(H[rest, d] > 0)) if H.size else True
        gs = dict(zip(active, g))
        if dom[0] is not None:
            base = H.shape[0]
            for j, (key, scale) in enumerate(dom[2]):
                if key is None:
                    const_ok = const_ok and dom[1][j] > 0
                else:
                    active.append(base + j)
                    keys.append(key)
                    gs[base + j] = scale
        classes: dict = {}
        order, firsts, pos = [], [], []
        for j, (i, key) in enumerate(zip(active, keys)):
            if key in classes:
                classes[key].append(i)
            else:
                classes[key] = [i]
                order.append(key)
                firsts.append(i)
                pos.append(j)
        arr = prim[pos] if prim is not None and pos and pos[-1] < len(prim) else None
        self._geometry = (M, active, classes, order)
        self._ints = (ClassInts(order, arr) if order else None,
                      _Scales(firsts, self.hs, gs, H.shape[0]), const_ok)

    def info(self):
        """``(M, active, classes, order)`` of :meth:`geometry`, without the rational rows (M:
        their number)."""
        if self._geometry is None:
            self._classes()
        g = self._geometry
        return (g[0] if isinstance(g[0], int) else len(g[0]),) + g[1:]

    def geometry(self):
        """``(rows, active, classes, order)``, computed once per pattern: the rows, the
        indices of the non-zero rows, and the classes of coinciding hyperplanes (key: the
        primitive integer vector of ``(a, c)``, a positive multiple; keys in order of first
        index)."""
        if self._geometry is None:
            self._classes()
        g = self._geometry
        if isinstance(g[0], int):
            self._geometry = g = (self.A.to_rows(),) + g[1:]
        return g


def _small(N):
    """*N* as int64 when every entry fits comfortably (else the object array).

    >>> _small(np.array([[1, -2]], dtype=object)).dtype, _small(np.array([[2 ** 40]], dtype=object)).dtype
    (dtype('int64'), dtype('O'))
    """
    if N.size and max(abs(int(N.max())), abs(int(N.min()))) < 2 ** 31:
        return N.astype(np.int64)
    return N


_CHUNK_WORK = 2 * 10 ** 8
"""Products of int64 arrays above this many multiply-adds go by blocks of rows, the active
budget checked between blocks (numpy's integer product has no BLAS: the first region's forms of
a 4000-4000-1 net, 6.4e10 of them, ran minutes past --timeout 5 in one call)."""


def _guess(v) -> float:
    """``float(v)`` for a float guess, ±inf past float64's range (a point 10^400 away: "integer
    division result too large for a float", exit 4, s53 delta audit); the guesses that meet an
    infinity are dropped (the exact proofs decide)."""
    try:
        return float(v)
    except OverflowError:
        return float("inf") if v > 0 else float("-inf")


def _int64_product(W, F):
    """``W @ F`` of int64 arrays (no entry can overflow: the caller's bound), by row blocks of
    about :data:`_CHUNK_WORK` multiply-adds with :func:`checkpoint` between them.

    >>> _int64_product(np.array([[1, 2], [3, 4]]), np.array([[5], [6]])).tolist()
    [[17], [39]]
    """
    n, work = W.shape[0], W.shape[1] * F.shape[1]
    if n * work <= _CHUNK_WORK:
        return W @ F
    step = max(1, _CHUNK_WORK // max(1, work))
    out = np.empty((n, F.shape[1]), dtype=np.int64)
    for r in range(0, n, step):
        checkpoint()
        out[r:r + step] = W[r:r + step] @ F
    return out


def _reduced_dyadic(N, D: int):
    """``(N', D')`` = ``N / D`` in lowest common terms (*N* int64, *D* a power of two): the
    denominator of :meth:`QMatrix.numer_denom`, from the array's common trailing zero bits.

    >>> N, D = _reduced_dyadic(np.array([[4, -8], [12, 0]]), 16)
    >>> N.tolist(), D
    ([[1, -2], [3, 0]], 4)
    """
    D = int(D)
    bits = int(np.bitwise_or.reduce(np.abs(N).ravel())) if N.size else 0
    shift = (D.bit_length() - 1) if bits == 0 else min((bits & -bits).bit_length() - 1,
                                                      D.bit_length() - 1)
    return (N >> shift if shift else N.copy()), D >> shift


def _int_layer(W, bias):
    """``(N, c, den)``: the layer ``W x + bias`` as integers ``(N x + c) / den`` (object arrays,
    den > 0, the least common denominator; one FLINT export of W: entry by entry, with the bias
    stacked on, a 4000-4000-1 net took 13 s).

    >>> N, c, den = _int_layer(QMatrix.from_rows([["1/2", 3], [-1, "1/3"]]), [Q(1, 4), Q(0)])
    >>> N.tolist(), c.tolist(), den
    ([[6, 36], [-12, 4]], [3, 0], 12)
    """
    if isinstance(W, tuple):           # (N, D) int64 over a power of two, kept by a reader
        N, dw = _reduced_dyadic(*W)
    else:
        Nf, dw = W.numer_denom()
        dw = int(dw)
        N = np.array([int(v) for v in Nf.entries()], dtype=object).reshape(W.nrows, W.ncols)
    den = lcm(dw, *(int(v.q) for v in bias))
    if den != dw:
        N = N.astype(object) * (den // dw)        # (int64 could overflow)
    c = np.array([int(v.p) * (den // int(v.q)) for v in bias], dtype=object)
    return N, c, den


FORMS_BYTES = 1 << 30
"""About how much memory the forms (:class:`_Forms`) the walk keeps may take; beyond it the
least recently used are dropped (one asked for again is recomputed, identically: ~11 ms with
its classes for the digits 64-32-10 net).  The breadth-first frontier alone holds ~16 patterns
per region walked, and a form with its classes ~0.4 MB there (float32 weights: integers of
hundreds of bits): the walk of that net had grown by ~7 MB a region (0.75 GB at 100 regions;
22 GB of 23 in an 18-minute `conserved`).  Measured on its first 300 regions: resident memory
flat at 1.26–1.28 GB from region 200 on (1.74 GB and +5 MB a region before), the same time
(80.2 s against 80.4 s at region 280)."""


FORMS_MIN = 64
"""The fewest forms kept, whatever their size."""


def _form_bytes(f) -> int:
    """A generous estimate of the memory of the form *f* once its classes are built: its
    integer rows (``H``, the Jacobian's) three times over (the rows, the classes' primitive
    keys, their integer copy), ~28 bytes a Python integer plus its digits."""
    total = 0
    for M in (f.H, f._Jint):
        if M.size == 0:
            continue
        if M.dtype == object:
            bits = sum(int(v).bit_length() for v in M.flat)
            total += 28 * M.size + bits // 8
        else:
            total += 36 * M.size
    return 3 * total + 1024


class _FormsCache(dict):
    """``pattern -> _Forms`` keeping the most recently used, within about :data:`FORMS_BYTES`
    (a number of forms fixed by the size of the first one)."""

    limit = None

    def get(self, key, default=None):
        f = dict.pop(self, key, None)
        if f is None:
            return default
        dict.__setitem__(self, key, f)       # the most recent, last
        return f

    def __setitem__(self, key, f):
        if self.limit is None:
            self.limit = max(FORMS_MIN, FORMS_BYTES // _form_bytes(f))
        dict.pop(self, key, None)
        dict.__setitem__(self, key, f)
        while len(self) > self.limit:
            dict.pop(self, next(iter(self)))


class _Engine:
    def __init__(self, net: Network, domain: Polyhedron | None, multipliers: bool = False):
        self.net = net
        self.multipliers = multipliers
        self.d = net.n_inputs
        self.n_hidden = net.n_hidden
        self.domain = domain
        if domain is not None and domain.A.nrows:
            self.dom_A = -domain.A
            self.dom_c = domain.b
        else:
            self.dom_A, self.dom_c = None, ()
        self._ilayers = []             # (W, b) of each layer as integers N / den
        for l in range(net.depth):
            checkpoint()               # (an active budget: the walk's; each step takes seconds
            hint = net.integer_weights(l)   # on a 4000-4000-1 net)
            W, bias = (hint, net.biases[l]) if hint is not None else net.layer(l)
            N, bias, den = _int_layer(W, bias)
            W = _small(N)
            self._ilayers.append((W, bias, den, _row_bound(W),
                                  max((abs(int(v)) for v in bias), default=0)))
        # the biases as int64 where they fit (forms() uses them only when no entry can overflow)
        self._bias64 = [b.astype(np.int64) if bmax <= _LIMIT else None
                        for _, b, _, _, bmax in self._ilayers]
        dom_keys = []
        if self.dom_A is not None:
            for row, cj in zip(self.dom_A.to_rows(), self.dom_c):
                if all(v == 0 for v in row):
                    dom_keys.append((None, None))
                    continue
                key = primitive_key((*row, cj))
                j = next(j for j, v in enumerate(row) if v != 0)
                dom_keys.append((key, Q(key[j]) / row[j]))
        self._dom = (self.dom_A, tuple(self.dom_c), dom_keys)
        self._dom_ineqs = tuple((tuple(row), cj) for row, cj in
                                zip(self.dom_A.to_rows(), self.dom_c)) if self.dom_A is not None else ()
        self.cache: dict = _FormsCache()
        self.pending_neighbours: list = []
        self._float_layers = None
        self._first = None             # the first layer's forms [W | b] (:meth:`_first_forms`)
        self.bases: list = []          # bases of the last region's closure proofs (class keys)
        self.inherited: dict = {}      # pattern -> bases of the region it was reached from
        self._highs = None             # one HiGHS instance, loaded with each region's model
        self.inverses: dict = {}       # basis rows (primitive integer keys) -> exact inverse
        # pattern q -> {key of a facet of q: (pattern across it, a point inside that region)},
        # from the neighbour proofs of regions already built (None: not kept; see _record)
        self.across: dict | None = None
        self.proved_by: dict = {}      # class key -> keys of the last basis that proved it
        self.hull_proofs: dict = {}    # class id -> ids of the bases of its latest proofs (hull)
        self.key_ids: dict = {}        # class key -> its id (for hull_proofs)

    # -- forms ------------------------------------------------------------------------------
    def forms(self, pattern) -> _Forms:
        f = self.cache.get(pattern)
        if f is not None:
            return f
        d = self.d
        F = np.eye(d, d + 1, dtype=np.int64)          # the input x, as integer rows (scale 1)
        bF = 1                                        # a bound on |F|
        s = 1
        blocks, hs, zero_rows = [], [], []
        consistent = True
        k = 0
        L = len(self._ilayers)
        has_zero = 0 in pattern
        pall = np.array(pattern, dtype=np.int64)
        live = None                                   # the rows of F not zeroed (active)
        for l, (W, b, den, rb, bmax) in enumerate(self._ilayers):
            if l == 0:
                # F is the identity (scale 1): Z = [W | b], the same for every pattern
                Z = self._first_forms()
            else:
                if live is not None and len(live) < F.shape[0]:
                    # the inactive neurons' rows of F are zero: only the active columns of W
                    # count (a region's product over its active neurons alone)
                    W, F = W[:, live], F[live]
                if (rb * bF + bmax * s <= _LIMIT and max(bF, s) <= _LIMIT
                        and W.dtype == np.int64):             # no entry can overflow
                    Z = _int64_product(W, F if F.dtype == np.int64 else F.astype(np.int64))
                    Z[:, d] += self._bias64[l] * s
                else:
                    Z = _as_object(int_matmul(W, _as_object(F), rb,
                                              big=rb * bF > _LIMIT or bF > _LIMIT))
                    Z[:, d] += b * s
            bF = rb * bF + bmax * s
            s *= den
            if l == L - 1:
                Jint, sJ = Z, s
                break
            n = Z.shape[0]
            pat = pall[k:k + n] if Z.dtype == np.int64 else \
                np.array(pattern[k:k + n], dtype=Z.dtype)
            if has_zero:
                zeros = np.nonzero(pat == 0)[0]
                if len(zeros):
                    zero_rows.extend(k + int(i) for i in zeros)
                    consistent = consistent and not np.any(Z[zeros] != 0)
            blocks.append(Z * pat[:, None])
            hs.extend([s] * n)
            F = Z * (pat > 0)[:, None]
            live = np.nonzero(pat > 0)[0]
            k += n
        if any(B.dtype == object for B in blocks):
            blocks = [_as_object(B) for B in blocks]
        H = np.vstack(blocks) if blocks else np.zeros((0, d + 1), dtype=np.int64)
        f = _Forms(H, hs, Jint, sJ, tuple(zero_rows), consistent, self._dom)
        self.cache[pattern] = f
        return f

    def _first_forms(self):
        """The first layer's integer forms ``[W | b]`` (its input is x itself), built once; a
        copy (a region's forms may be changed by their user)."""
        if self._first is None:
            W, b = self._ilayers[0][:2]
            if W.dtype == np.int64 and self._bias64[0] is not None:
                self._first = np.hstack([W, self._bias64[0][:, None]])
            else:
                self._first = np.hstack([_as_object(W), _as_object(b)[:, None]])
        return self._first.copy()

    def pattern_at(self, x):
        """Pattern of the region containing x in its interior, or None (x on a boundary)."""
        if self.domain is not None and not self.domain.contains_interior(x):
            return None
        p = tuple(self.net.activation_pattern(x))
        f = self.forms(p)
        if not f.consistent:  # a zero entry whose pre-activation is not identically zero
            self.cache.pop(p, None)
            return None
        return p

    def start(self, start):
        d = self.d
        if start is not None:
            x = tuple(to_q(v) for v in start)
        elif self.domain is not None:
            x = self.domain.interior_point()
            if x is None:
                return None
        else:
            x = (_ZERO,) * d
        p = self.pattern_at(x)
        step = Q(1, 7)
        tries = 0
        x0 = x
        while p is None:
            tries += 1
            if tries > 200:
                raise CertificateError("regions", "could not find a start point off the hyperplanes")
            # deterministic pseudo-random rational perturbation of the (interior) start point,
            # shrinking: from x0, not cumulative, so that a tiny domain (a ball of radius 1e-6
            # centred on a kink) is not left for good by the first, large steps
            x = tuple(v + step * Q((7 * i * i + 3 * tries * (i + 1)) % 11 - 5, 5 * tries)
                      for i, v in enumerate(x0))
            if tries % 5 == 0:
                step /= 4
            p = self.pattern_at(x)
        return p, x

    # -- one region -------------------------------------------------------------------------
    def region(self, pattern, point) -> Region:
        f = self.forms(pattern)
        M, active, classes, order = f.info()
        reps = [classes[k][0] for k in order]
        Areps = creps = None
        kints, scales, _ = f.ints()
        witnesses: dict = {}
        certified: dict = {}
        # one float hull of the region guesses every facet and closure basis (checked exactly)
        hulled = bool(reps) and hull_pass(point, kints, scales, witnesses, certified,
                                          self.multipliers, self.inverses,
                                          (self.hull_proofs, self._key_ids(order)))
        rows = A = c = None             # the rational rows: only off the hull's path
        if not hulled or self.multipliers:
            A, c = f.A, f.c
            rows = f.geometry()[0]
        flp = None
        if reps and not hulled:
            Areps, creps = A.submatrix(rows=reps), [c[i] for i in reps]
            flp = self._float_model(Areps, creps)
        # re-centre: well-inside point (Chebyshev-like, verified exactly)
        if not hulled and active and active[0] < self.n_hidden:   # (else the point is inside)
            point = centre_point(flp, kints)
            if point is None:                        # the guess failed: exact LP decides
                Aact = A.submatrix(rows=active)
                lp = feasible(A_lt=-Aact, b_lt=[c[i] for i in active], n=self.d)
                if not lp.feasible:
                    raise CertificateError("regions", f"region {pattern} has an empty interior")
                point = lp.point
        facets, facet_classes, facet_points, neighbours = [], [], [], []
        self.pending_neighbours = []
        undecided = [t for t in range(len(reps)) if t not in witnesses and t not in certified]
        inherited = self.inherited.pop(pattern, ())
        if undecided:
            if rows is None:
                A, c = f.A, f.c
                rows = f.geometry()[0]
            if Areps is None:
                Areps, creps = A.submatrix(rows=reps), [c[i] for i in reps]
            feet = kints.feet(point)
            for t in list(undecided):
                if feet[t] is not None:
                    witnesses[t] = feet[t]
                    undecided.remove(t)
            if undecided and flp is None and len(reps) > 1:
                flp = self._float_model(Areps, creps)
            # bases that certified classes of the region we came from, tried first (exact)
            where = {key: t for t, key in enumerate(order)}
            for keys in inherited:
                checkpoint()
                basis = [where.get(key) for key in keys]
                todo = [u for u in undecided if u not in certified and u not in basis]
                if not todo:
                    break
                if None in basis:
                    continue
                certify_with_basis(basis, kints, scales, todo, certified, self.multipliers,
                                   self.inverses)
            ints = (kints, scales, self.multipliers, self.inverses)
            for t in undecided:
                checkpoint()           # each class may need an exact facet LP
                if t in certified:
                    continue
                # the basis that proved this hyperplane in an earlier region, if all its
                # hyperplanes bound this one too (exact; no float model needed)
                keys = self.proved_by.get(order[t])
                if keys is not None:
                    basis = [where.get(key) for key in keys]
                    if None not in basis and t not in basis:
                        todo = [u for u in undecided if u not in certified and u not in basis]
                        certify_with_basis(basis, kints, scales, todo, certified, *ints[2:])
                        if t in certified:
                            continue
                i = reps[t]
                if len(reps) > 1 and misses_closure(t, rows[i], c[i], Areps, creps, flp,
                                                    undecided, certified, self.d, ints):
                    continue
                y = facet_point(flp, t, rows[i], c[i], kints) if len(reps) > 1 else None
                if y is None:          # no verified float guess: the exact facet LP decides
                    y = facet_lp(t, rows[i], c[i], Areps, creps, self.d)
                if y is not None:
                    witnesses[t] = y
        steps = []
        known = self.across.pop(tuple(pattern), None) if self.across is not None else None
        known_at = {}                  # facet position -> (pattern across, point inside it)
        for t, i in enumerate(reps):
            y = witnesses.get(t)
            if y is None:
                continue
            cls = tuple(classes[order[t]])
            facets.append(i)
            facet_classes.append(cls)
            facet_points.append(y)
            if not any(j >= self.n_hidden for j in cls):
                if known is not None and order[t] in known:
                    known_at[len(facets) - 1] = known[order[t]]      # proved from the other side
                    continue
                # across the facet along its normal (the class's key: a positive multiple)
                steps.append((len(facets) - 1, t, cls, order[t][:self.d], y))
        self.bases = []
        if undecided or not hulled:   # the bases of this region's closure proofs, for its neighbours
            self.bases = list({tuple(order[u] for u in proof[0]): None
                               for proof in certified.values() if len(proof[0]) == self.d})
            if len(self.proved_by) > 200000:
                self.proved_by.clear()
            for u, proof in certified.items():
                if len(proof[0]) == self.d:
                    self.proved_by[order[u]] = tuple(order[f] for f in proof[0])
        across = self._across_all(pattern, steps, kints, point, order)
        across.update(known_at)
        for pos, i in enumerate(facets):
            q, y2 = across.get(pos, (None, None))
            neighbours.append((i, q))
            self.pending_neighbours.append((i, q, y2))
        if rows is not None:
            ineqs = tuple((tuple(rows[i]), c[i]) for i in range(M))
        else:                          # built from the integer rows when first read
            ineqs = _Inequalities(f.H, f.hs, self._dom_ineqs)
        J, offset = f.affine()
        redundant = None
        if self.multipliers:
            known = {}                 # closure proofs of non-facets that use facets only
            if reps:
                fpos = {i: p for p, i in enumerate(facets)}
                for t, proof in certified.items():
                    if proof is not None and all(reps[f] in fpos for f in proof[0]):
                        lam = [_ZERO] * len(facets)
                        for u, v in zip(proof[0], proof[1]):
                            lam[fpos[reps[u]]] = v
                        known[reps[t]] = (proof[2], tuple(lam))
            redundant = redundancy_multipliers(rows, c, active, classes, order, facets, self.d,
                                               known)
        out = Region(pattern=tuple(pattern), point=tuple(point), jacobian=J, offset=offset,
                     inequalities=ineqs, facets=tuple(facets), facet_classes=tuple(facet_classes),
                     facet_points=tuple(facet_points), neighbours=tuple(neighbours),
                     n_hidden=self.n_hidden, redundant=redundant, _A=A)
        f.trim()
        return out

    def _key_ids(self, order) -> list:
        """An integer id per class key (the same in every region), for the closure proofs kept
        between regions (:func:`~semialgebraic.regions.hull.hull_pass`; bounded memory: both
        are dropped together)."""
        ids = self.key_ids
        if len(ids) > _KEYS:
            ids.clear()
            self.hull_proofs.clear()
        return [ids.setdefault(k, len(ids)) for k in order]

    def _float_model(self, Areps, creps):
        """One warm float model of the region (its centre, closure tests, facet centres)."""
        if self._highs is None:
            self._highs = new_highs()
        return FloatLP(-Areps, creps, centre=True, highs=self._highs)

    def patterns_at(self, points):
        """:meth:`pattern_at` of every point, the network evaluated on all of them at once
        (one exact matrix product per layer)."""
        net, k = self.net, len(points)
        H = QMatrix.from_rows([list(y) for y in points], ncols=self.d)
        pats = [[] for _ in range(k)]
        for l in range(net.depth - 1):
            W, b = net.layer(l)
            Z = (H @ W.T).add_to_rows(b)
            n = Z.ncols
            ents = Z.entries()
            for r in range(k):
                pats[r].extend((v > 0) - (v < 0) for v in ents[r * n:(r + 1) * n])
            H = Z.relu()
        out = []
        for y, p in zip(points, pats):
            p = tuple(p)
            if self.domain is not None and not self.domain.contains_interior(y):
                out.append(None)
                continue
            if not self.forms(p).consistent:   # a zero entry not identically zero
                self.cache.pop(p, None)
                out.append(None)
                continue
            out.append(p)
        return out

    def _proves(self, pattern, q, y, y2, record=None) -> bool:
        """Exactly: q differs from *pattern*, and q's live inequalities are > 0 at y2 and
        >= 0 at y (so the segment (y, y2] lies in q's region).

        *record*: ``(key, point)``, the key of the facet of *pattern* through y and a point
        inside *pattern*'s region.  When the proof holds and exactly one class of q vanishes at
        y, with the opposite key, then y is a point of q's facet on that hyperplane with every
        other class of q > 0 (a facet witness of q) and *pattern*'s region lies across it
        there; across a facet the region is the same all along it (only the neurons of the
        facet's class vanish on its relative interior, and their forms on the other side stay
        multiples of the facet's), so the walk notes that q's facet ``-key`` leads to
        *pattern* (``self.across``) and does not step across it again from q."""
        if q is None or q == pattern:
            return False
        f = self.forms(q)
        kints, _, const_ok = f.ints()   # rows of one class share their sign
        if not const_ok:
            return False
        if kints is None:
            return True
        S = kints.signs([y2, y])
        if not ((S[:, 0] > 0).all() and (S[:, 1] >= 0).all()):
            return False
        if record is not None and self.across is not None:
            zero = np.flatnonzero(S[:, 1] == 0)
            if len(zero) == 1:
                key = tuple(-v for v in record[0])
                if f.info()[3][int(zero[0])] == key:
                    self.across.setdefault(q, {})[key] = (tuple(pattern), record[1])
        return True

    def _across_all(self, pattern, steps, kints, point=None, order=None):
        """For every facet step ``(position, class t, cls, a, y)``: the pattern across the
        facet through y (proved) and a point inside it, ``{position: (q, y2)}``.  The first
        step of every facet is tried at once (one product for the steps, one batched forward
        pass for the patterns); a facet whose first step fails continues alone
        (:meth:`_across`, the same sequence of steps)."""
        if not steps:
            return {}
        d = self.d
        # largest step keeping every other class positive, guessed in floats (halved, rounded
        # down to a power of two): the exact proof below decides, smaller steps otherwise
        Kf = kints.Kf
        Y = np.array([[_guess(u) for u in st[4]] for st in steps])
        Adir = Kf[[st[1] for st in steps], :d]          # the steps' directions (keys)
        with np.errstate(all="ignore"):       # (a coordinate past 1e308: inf, no guess)
            vals = Kf[:, :d] @ Y.T + Kf[:, d:]
            slopes = Kf[:, :d] @ Adir.T
            ratio = np.where(slopes > 0, vals / np.where(slopes > 0, slopes, 1.0), np.inf)
        ratio[[st[1] for st in steps], np.arange(len(steps))] = np.inf
        best = ratio.min(axis=0)
        shift = kints.Kf_shift           # (rows past 2^500 scaled: the step's own row too)
        firsts = []
        for (_, t, _, a, y), r in zip(steps, best.tolist()):
            if r == np.inf:
                eps = Q(1)
            elif r > 0 and np.isfinite(r):
                e = int(np.floor(np.log2(r / 2))) - int(shift[t])
                eps = Q(2) ** e if e >= 0 else Q(1, 2 ** min(-e, 4000))
            else:                        # (no float guess: small against the step's length)
                eps = Q(1, 2 ** (40 + max(abs(v) for v in a).numerator.bit_length()))
            firsts.append((eps, tuple(u - eps * v for u, v in zip(y, a))))
        # candidate patterns from a float forward pass; a candidate that passes the exact
        # proof IS the pattern at y2 (its consistent formulas hold with its own signs there,
        # layer by layer); otherwise the exact forward pass decides
        guesses = self._float_patterns([y2 for _, y2 in firsts])
        out, redo = {}, []
        rec = (lambda t: (order[t], point)) if order is not None and point is not None else \
            (lambda t: None)
        for col, ((pos, t, _, _, y), (_, y2), q) in enumerate(zip(steps, firsts, guesses)):
            checkpoint()               # a facet's pattern and its exact proof (ACAS Xu: 1.3 s
            if q is not None and self.forms(q).consistent and \
                    self._proves(pattern, q, y, y2, rec(t)):
                out[pos] = (q, y2)
            else:
                redo.append(col)
        qs = self.patterns_at([firsts[col][1] for col in redo]) if redo else []
        for col, q in zip(redo, qs):   # past a 10 s budget at load 8 without these checks)
            checkpoint()
            pos, t, cls, a, y = steps[col]
            eps, y2 = firsts[col]
            if self._proves(pattern, q, y, y2, rec(t)):
                out[pos] = (q, y2)
            else:
                # 200 quarterings (4^-200): the first step is guessed in floats and may be
                # ~1e18 long where the normal is huge, and the region across may be ~1e-27
                # thin (dim campaign seed 7008: 63 failed on 3 of 6 start points)
                out[pos] = self._across(pattern, cls, a, y, eps / 4, 200, rec(t))
        return out

    def _float_patterns(self, points):
        """Sign patterns of the float forward pass at *points* (guesses only), or Nones."""
        import numpy as np
        if self._float_layers is None:
            self._float_layers = [
                (np.array([[_guess(v) for v in row] for row in W.to_rows()], dtype=float),
                 np.array([_guess(v) for v in b], dtype=float))
                for W, b in (self.net.layer(l) for l in range(self.net.depth - 1))]
        H = np.array([[_guess(v) for v in y] for y in points], dtype=float)
        signs = []
        for W, b in self._float_layers:
            with np.errstate(all="ignore"):    # (an infinite guess: dropped below)
                Z = H @ W.T + b
            if not np.all(np.isfinite(Z)):
                return [None] * len(points)
            signs.append(np.sign(Z).astype(int))
            H = np.maximum(Z, 0.0)
        if not signs:
            return [()] * len(points)
        P = np.hstack(signs)
        return list(map(tuple, P.tolist()))

    def _across(self, pattern, cls, a, y, eps, tries, record=None):
        """Pattern of the region across the facet through y (proved), and a point inside it:
        steps ``y - eps a``, *eps* divided by 4 after each failed proof."""
        for _ in range(tries):
            y2 = tuple(u - eps * v for u, v in zip(y, a))
            q = self.pattern_at(y2)
            if self._proves(pattern, q, y, y2, record):
                return q, y2
            eps /= 4
        # the float guess can be off by more than 4^tries where the weights span 10^±50 and the
        # point's coordinates 10^20 (its values cancel in floats: a first step 10^74 long, the
        # region across far thinner; s53 delta audit, 5 of 340 random nets): any step that
        # proves will do, so the exponent now doubles (2^-800, 2^-1600, … 2^-409600)
        for k in range(10):
            checkpoint()
            e = eps / Q(2) ** (800 << k)
            y2 = tuple(u - e * v for u, v in zip(y, a))
            q = self.pattern_at(y2)
            if self._proves(pattern, q, y, y2, record):
                return q, y2
        raise CertificateError("regions", f"could not step across facet {cls} of region {pattern}")


class RegionSteps:
    """The walk one region at a time, for a driver that keeps the visited patterns itself (the
    distributed walk, :mod:`semialgebraic.distributed.walk`): what :class:`RegionWalk` does per
    region, without its queue.

    :meth:`start` gives the first ``(pattern, point)`` (None for an empty interior);
    :meth:`region` builds the region of *pattern* from a *point* inside it and returns it with
    its neighbours to visit, ``(pattern, point)`` per facet off the domain's boundary (the point
    proved inside that neighbour), and the bases of its closure proofs for them.  The bases only
    choose which exact proofs are tried first: a region is the same whatever bases it is given.

    >>> from algebra.network import Network
    >>> steps = RegionSteps(Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]]))
    >>> p, x = steps.start()
    >>> r, nxt, _ = steps.region(p, x)
    >>> r.pattern, [q for q, _ in nxt]
    ((-1, 1), [(1, 1)])
    """

    def __init__(self, net: Network, domain: Polyhedron | None = None, multipliers: bool = False):
        self.net = net
        self._engine = _Engine(net, domain, multipliers)

    def start(self, start: Sequence[object] | None = None):
        return self._engine.start(start)

    def region(self, pattern, point, bases=()):
        eng = self._engine
        pattern = tuple(pattern)
        if bases:
            eng.inherited[pattern] = [tuple(tuple(k) for k in keys) for keys in bases]
        region = eng.region(pattern, tuple(to_q(v) for v in point))
        nxt = [(q, y) for _, q, y in eng.pending_neighbours if q is not None]
        return region, nxt, list(eng.bases)
