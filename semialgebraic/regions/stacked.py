r"""Linear regions of a tuple of networks stacked side by side, in certificate form.

The networks are put side by side (one network: first layers stacked, hidden layers block
diagonal) and walked with :func:`semialgebraic.regions.walk.regions` (the one region walk of
the package); each region is viewed as a region of a ``region_cover`` certificate
(:class:`JointRegion`: oriented inequalities, facets, neighbours, exact Farkas multipliers of
the redundant inequalities; format: :mod:`semialgebraic.verify.region_cover`).  Used by the
general equivalence method (regions of a − b), the ``dead_cover`` proofs of
:mod:`semialgebraic.equivalence.reduction` and :mod:`semialgebraic.equivalence.deviation`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Iterator, Sequence

from algebra.exceptions import InputError
from algebra.kernel import domain_rows
from algebra.kernel.domains import Domain
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from ..budget import Budget
from ..exceptions import CertificateError
from ..sets import Polyhedron, interior_point, normalize_domain, random_point
from .walk import Region, regions

__all__ = ["JointRegion", "joint_regions"]


@dataclass
class JointRegion:
    """One linear region of the networks *nets* taken together (the regions of a − b), in the
    form of a ``region_cover`` certificate region; a view of a
    :class:`semialgebraic.regions.walk.Region` of the networks side by side.

    ``pattern``: -1/0/1 per hidden neuron (0: pre-activation identically zero on the region);
    ``point``: exact interior point; ``rows``: unoriented affine pre-activations ``(a, c)`` per
    neuron; ``inequalities``: oriented rows ``(a..., c)`` (> 0 on the region), then the
    domain's; ``facets`` (one inequality per facet hyperplane, a domain row when the hyperplane
    is the domain's), ``neighbours`` (aligned with ``facets``: index of the region across it
    in the walk order, None for a domain facet), ``redundant`` (exact Farkas multipliers
    ``(l0, [l_f for f in facets])`` of every other non-zero inequality; empty when the walk ran
    with ``multipliers=False``), ``witnesses`` (facet → exact point in its relative interior),
    ``region`` (the underlying Region, with its affine map).
    """

    index: int
    pattern: tuple[int, ...]
    point: tuple[Q, ...]
    rows: list
    inequalities: list
    facets: list = field(default_factory=list)
    neighbours: list = field(default_factory=list)
    redundant: dict = field(default_factory=dict)
    witnesses: dict = field(default_factory=dict)
    region: Region | None = field(default=None, repr=False, compare=False)

    def to_json(self) -> dict:
        return {"pattern": list(self.pattern), "point": list(self.point),
                "inequalities": [list(g) for g in self.inequalities],
                "facets": list(self.facets), "neighbours": list(self.neighbours),
                "redundant": {str(k): [l0, list(ls)] for k, (l0, ls) in sorted(self.redundant.items())}}


def joint_regions(nets: Sequence[Network], *, domain: Any = None, budget: Budget | None = None,
                  seed: int = 0, state: dict | None = None,
                  multipliers: bool = True) -> Iterator[JointRegion]:
    """Walk the linear regions of the networks *nets* (same input dimension and depth) on
    *domain*, with :func:`semialgebraic.regions.walk.regions` (the one region walk).

    Several networks are put side by side (one network: first layers stacked, hidden layers
    block diagonal); the pattern then lists the hidden neurons layer by layer.  The walk starts
    at a random point of the domain (*seed*).  Lazy: each region is yielded with its facets,
    neighbours and (*multipliers*) redundancy multipliers.  When *budget* stops the walk or a
    step of the walk cannot be proved exactly, the iterator ends early and
    ``state["complete"]`` is False (with ``state["reason"]``).

    Parameters
    ----------
    nets : sequence of Network
        Same input dimension and depth.
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]}, {"orthant": True} or Domain
        The input domain (:func:`semialgebraic.sets.normalize_domain` with ``polyhedral=True``:
        a :class:`~algebra.kernel.domains.Domain` is a convex polyhedron, its rows after the
        neurons' are :meth:`~algebra.kernel.domains.Domain.rows`).  A Domain with an empty
        interior yields nothing, ``state["complete"]`` False.
    budget : Budget, optional
        Stops the walk (unlimited when omitted).
    seed : int
        Seed of the random start point.
    state : dict, optional
        Filled with ``complete``, ``reason`` and the number of ``regions`` yielded.
    multipliers : bool
        Compute the redundancy multipliers (needed by ``region_cover`` certificates).

    Returns
    -------
    iterator of JointRegion

    Raises
    ------
    InputError
        If the networks differ in depth or inputs, or the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> sorted(r.pattern for r in joint_regions([net]))
    [(-1, 1), (1, -1), (1, 1)]
    """
    net = _side_by_side(nets)
    d = net.n_inputs
    dom = normalize_domain(domain, d, polyhedral=True)
    budget = budget or Budget()
    state = state if state is not None else {}
    state.update(complete=False, reason=None, regions=0)
    if isinstance(dom, Domain) and interior_point(dom) is None:
        state["reason"] = "the domain has an empty interior (no region to walk)"
        return
    drows = domain_rows(d, dom)
    poly = Polyhedron([[-v for v in g[:d]] for g in drows], [g[d] for g in drows], d) if drows else None
    start = random_point(random.Random(seed), d, dom)
    walk = regions(net, domain=poly, budget=budget, progress=False, start=start,
                   multipliers=multipliers)
    index: dict = {}
    n = net.n_hidden
    try:
        for reg in walk:
            index.setdefault(reg.pattern, len(index))
            for _, q in reg.neighbours:
                if q is not None:
                    index.setdefault(q, len(index))
            state["regions"] += 1
            yield _joint(reg, index, n, d)
    except CertificateError as exc:
        state["reason"] = str(exc)
        return
    if walk.complete:
        state["complete"] = True
    else:
        state["reason"] = budget.reason or "the walk stopped early"


# ------------------------------------------------------------------------------------------------
# private
# ------------------------------------------------------------------------------------------------
def _joint(reg: Region, index: dict, n: int, d: int) -> JointRegion:
    """The certificate view of a Region: a facet hyperplane shared with the domain is listed by
    its domain row (whose neighbour is null), multipliers rescaled accordingly."""
    ineq = [tuple(a) + (c,) for a, c in reg.inequalities]
    rows = [tuple(s * v for v in g) if s else g for s, g in zip(reg.pattern, ineq)]
    facets, neighbours, witnesses, scale = [], [], {}, []
    for p, (cls, (_, q), y) in enumerate(zip(reg.facet_classes, reg.neighbours, reg.facet_points)):
        f = next((j for j in cls if j >= n), cls[0])
        nu = Q(1)
        if f != cls[0]:                   # ℓ_rep = ν ℓ_f, ν > 0
            nu = next(u / v for u, v in zip(ineq[cls[0]][:d], ineq[f][:d]) if v != 0)
        scale.append(nu)
        facets.append(f)
        neighbours.append(None if q is None else index[q])
        witnesses[f] = y
    redundant = {}
    if reg.redundant is not None:
        listed = set(facets)
        for k, (l0, ls) in reg.redundant.items():
            if k not in listed:
                redundant[k] = (l0, [v * s for v, s in zip(ls, scale)])
        for p, (cls, f) in enumerate(zip(reg.facet_classes, facets)):
            if f != cls[0]:
                redundant[cls[0]] = (Q(0), [scale[p] if t == p else Q(0) for t in range(len(facets))])
    return JointRegion(index[reg.pattern], reg.pattern, reg.point, rows, ineq, facets, neighbours,
                       redundant, witnesses, reg)


def _side_by_side(nets: Sequence[Network]) -> Network:
    """One network whose hidden neurons are those of *nets* (same depth), layer by layer."""
    if len(nets) == 1:
        return nets[0]
    if len({net.depth for net in nets}) != 1 or len({net.n_inputs for net in nets}) != 1:
        raise InputError("joint_regions: the networks must have the same depth and inputs")
    ws, bs = [], []
    for l in range(nets[0].depth):
        layers = [net.layer(l) for net in nets]
        if l == 0:
            ws.append(QMatrix.vstack([W for W, _ in layers]))
        else:
            cols = [W.ncols for W, _ in layers]
            ws.append(QMatrix.vstack([QMatrix.hstack([QMatrix.zeros(W.nrows, cols[j]) if j != i else W
                                                      for j in range(len(layers))])
                                      for i, (W, _) in enumerate(layers)]))
        bs.append([v for _, b in layers for v in b])
    return Network(ws, bs)
