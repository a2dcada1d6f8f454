r"""The ``region_cover`` certificate of a distributed region walk (issue 19, part 3).

The walk of the cells (:func:`semialgebraic.distributed.distributed_regions`) finds every
activation pattern of a network N on the box ``[lo, hi]^d`` (or a box ``∏ [lo_i, hi_i]`` with
its own sides: *lo* and *hi* lists, the certificate's domain then the polyhedral form
``{"lo", "hi", "halfspaces": []}``, whose rows are the cube's in the same order) with an
interior point each.  The
certificate is assembled from them in the format of :mod:`semialgebraic.verify.region_cover`,
whose checker proves that the listed regions cover the domain (each region non-empty with its
facets complete, every facet crossed into a listed region):

* the pair is ``a = b = N`` and the reduction turns ``D = N − N`` into ``D'`` whose hidden
  neurons are N's: in each hidden layer (in order) every neuron of the b copy merges into its
  twin of the a copy (``merge``, factor 1: the rows are equal once the previous layer is
  merged) and is then zeroed (``zero``); D' has N's hidden layers, a zero output layer and
  zero rows for the b copies (sign 0);
* a region of D' is a region of N: the pattern ``p_l`` of each layer followed by ``n_l``
  zeros; its rows, facets, neighbours and Farkas multipliers are those of N's region on the box,
  renumbered into D's neuron order.  A region that meets no cell boundary inside the box is the
  same set in its cell and on the box: its cell's walk returns its piece (:func:`as_piece`, the
  box's rows being the cell's plus :func:`shifts`); only a region cut by a cell boundary (found
  by two cells or more) is walked again on the box (:func:`piece`, one task per chunk of
  patterns, a walk of one region started at the interior point, with multipliers).

So the checked claim ``a = b`` is trivial, and what the checker establishes is the cover of the
box by exactly these regions: the number of regions and their patterns (hashes) are certified.
"""

from __future__ import annotations

import json

from algebra.io.native import network_from_dict
from algebra.kernel import domain_rows
from algebra.kernel.domains import Domain
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json, to_q

from ..budget import Budget
from ..certificates import region_cover_certificate
from ..regions import regions
from ..sets import Polyhedron

__all__ = ["piece", "as_piece", "cell_domain", "shifts", "inside", "cover_certificate", "expand",
           "reduction_steps", "region_entry", "entry_text", "linked", "linked_text", "assembled",
           "sides", "box_domain", "CHUNK"]

CHUNK = 16                  # patterns per certificate task


def expand(widths, pattern) -> tuple:
    """N's pattern → D''s: each hidden layer's signs, then as many zeros (the b copy)."""
    out, k = [], 0
    for n in widths:
        out += list(pattern[k:k + n]) + [0] * n
        k += n
    return tuple(out)


def _renumber(widths):
    """N's inequality index → D''s (hidden neurons of layer l at 2·offset_l + i; domain rows
    after D''s 2n hidden rows)."""
    table, off = [], 0
    for n in widths:
        table += [2 * off + i for i in range(n)]
        off += n
    total = off

    def index(k):
        return table[k] if k < total else k + total
    return index


def reduction_steps(widths) -> list:
    """``merge`` each b neuron into its a twin, then ``zero`` it, layer after layer."""
    steps = []
    for l, n in enumerate(widths):
        steps += [{"step": "merge", "layer": l, "keep": i, "drop": n + i, "factor": 1}
                  for i in range(n)]
        steps += [{"step": "zero", "layer": l, "neuron": n + i} for i in range(n)]
    return steps


def sides(lo, hi, d: int) -> list:
    """``[(lo_i, hi_i)]`` of the cube ``[lo, hi]^d`` (*lo*, *hi* numbers) or of a box with its
    own sides (*lo*, *hi* lists of *d* numbers), exact.

    >>> sides(-1, 1, 2), sides([0, -1], ["1/2", 1], 2)
    ([(-1, 1), (-1, 1)], [(0, 1/2), (-1, 1)])
    """
    if isinstance(lo, (list, tuple)):
        return [(to_q(a), to_q(b)) for a, b in zip(lo, hi)]
    return [(to_q(lo), to_q(hi))] * d


def box_domain(lo, hi, d: int):
    """The certificate's domain of the box: ``{"box": [lo, hi]}`` for a cube, else the
    polyhedral form of :meth:`algebra.kernel.domains.Domain.to_json` (no half-space)."""
    box = sides(lo, hi, d)
    if len(set(box)) == 1:
        return {"box": list(box[0])}
    return Domain.from_box(box).to_json()


def piece(net_json: dict, lo, hi, items) -> list:
    """Task: for each ``(pattern, point)`` of *items*, N's region at the interior point on the box
    ``[lo, hi]^d`` (*lo*, *hi* lists: ``∏ [lo_i, hi_i]``) in certificate form (:func:`as_piece`),
    by a walk of one region started at the point."""
    net = network_from_dict(net_json)
    d, n = net.n_inputs, net.n_hidden
    rows = domain_rows(d, Domain.from_box(sides(lo, hi, d)))
    box = Polyhedron([[-v for v in g[:d]] for g in rows], [g[d] for g in rows], d)
    out = []
    for pattern, point in items:
        walk = regions(net, domain=box, budget=Budget(max_regions=1), progress=False,
                       start=[to_q(v) for v in point], multipliers=True)
        reg = next(iter(walk))
        if list(reg.pattern) != list(pattern):
            raise AssertionError(f"the region at {point} has another pattern: a bug")
        out.append(as_piece(reg, n, d))
    return out


def cell_domain(cell) -> Polyhedron:
    """The cell ``[(lo_i, hi_i)]`` as a domain whose rows are in the order of
    :func:`algebra.kernel.domain_rows` (``x_i − lo_i``, ``hi_i − x_i`` for each i), so that a
    region walked in the cell has the box's rows up to their constants (:func:`shifts`)."""
    d = len(cell)
    rows, rhs = [], []
    for i, (lo, hi) in enumerate(cell):
        e = [0] * d
        e[i] = 1
        rows += [[-v for v in e], e]
        rhs += [-to_q(lo), to_q(hi)]
    return Polyhedron(rows, rhs, d)


def shifts(n: int, cell, lo, hi) -> dict:
    """``{k: s}``: the box ``[lo, hi]^d``'s row k (index n + ... as in a region's inequalities,
    *n* hidden neurons; *lo*, *hi* lists: the box ``∏ [lo_i, hi_i]``) is the cell's row k plus
    ``s >= 0``; only the non-zero shifts."""
    out = {}
    for i, ((a, b), (lo_i, hi_i)) in enumerate(zip(cell, sides(lo, hi, len(cell)))):
        for k, s in ((n + 2 * i, to_q(a) - lo_i), (n + 2 * i + 1, hi_i - to_q(b))):
            if s != 0:
                out[k] = s
    return out


def inside(reg, shift: dict) -> bool:
    """True when a region walked in a cell (rows of :func:`cell_domain`) is the same set as on
    the box: none of its facets lies on a hyperplane of the cell that is not the box's (every
    facet class free of shifted rows).  Then its closure is cut out by the same facets on the
    box, the box's other rows are redundant, and its neighbours are those on the box."""
    return not any(j in shift for cls in reg.facet_classes for j in cls)


def as_piece(reg, n: int, d: int, shift: dict | None = None) -> dict:
    """A walked region in certificate form (N's numbering; :func:`cover_certificate`
    renumbers): ``inequalities`` (oriented rows, then the box's), ``facets`` (a domain row where
    the facet hyperplane is the box's), ``across`` (the neighbour pattern per facet, None on the
    box's boundary), ``redundant`` (exact Farkas multipliers of the other rows).

    *shift* (:func:`shifts`; the region walked in a cell and :func:`inside` it): the box's row
    k is the cell's plus ``s``, so its constant and its multiplier ``λ_0`` grow by ``s``."""
    shift = shift or {}
    ineq = [tuple(a) + (c + shift.get(k, 0),) for k, (a, c) in enumerate(reg.inequalities)]
    listed, scale = [], []
    for cls in reg.facet_classes:
        f = next((j for j in cls if j >= n), cls[0])     # the box's row when it is one
        ratio = Q(1) if f == cls[0] else next(
            u / v for u, v in zip(ineq[cls[0]][:d], ineq[f][:d]) if v != 0)
        listed.append(f)
        scale.append(ratio)
    redundant = {}
    for k, (l0, ls) in (reg.redundant or {}).items():
        if k not in listed:
            redundant[k] = [l0 + shift.get(k, 0), [v * s for v, s in zip(ls, scale)]]
    for p, (cls, f) in enumerate(zip(reg.facet_classes, listed)):
        if f != cls[0]:                                     # ℓ_rep = ratio · ℓ_f
            redundant[cls[0]] = [Q(0), [scale[p] if t == p else Q(0) for t in range(len(listed))]]
    keys = sorted(redundant)
    lams = _json_rows([[redundant[k][0], *redundant[k][1]] for k in keys], len(listed) + 1)
    return {"pattern": list(reg.pattern), "point": [q_json(v) for v in reg.point],
            "inequalities": _json_rows(ineq, d + 1),
            "facets": listed,
            "across": [None if q is None else list(q) for _, q in reg.neighbours],
            "redundant": {str(k): [lam[0], lam[1:]] for k, lam in zip(keys, lams)}}


def _json_rows(rows, width: int) -> list:
    """Rows of rationals in JSON form (:func:`algebra.rationals.q_json` of each entry), read out
    of one matrix at once (:meth:`algebra.linalg.QMatrix.to_json`)."""
    return QMatrix.from_rows(rows, ncols=width).to_json() if rows else []


def region_entry(piece: dict, widths) -> dict:
    """A :func:`as_piece` result as a region of D' (module docstring; N's hidden layers of
    *widths*), its neighbours still named by N's patterns (``across``): the part of the
    assembly a worker does (:func:`linked` puts in the indices)."""
    n = sum(widths)
    renum = _renumber(widths)
    ineq = [["0"] * (len(piece["point"]) + 1)] * (2 * n) + piece["inequalities"][n:]
    for k in range(n):
        ineq[renum(k)] = piece["inequalities"][k]
    return {"pattern": list(expand(widths, piece["pattern"])), "point": piece["point"],
            "inequalities": ineq, "facets": [renum(f) for f in piece["facets"]],
            "across": piece["across"],
            "redundant": {str(renum(int(k))): v for k, v in piece["redundant"].items()}}


def linked(entries: list, patterns: list) -> list | None:
    """The regions of the certificate: the :func:`region_entry` *entries* of N's *patterns*
    (in that order) with each ``across`` pattern replaced by its index (``neighbours``); None
    when a neighbour pattern is not among them (an incomplete walk)."""
    index = {tuple(p): r for r, p in enumerate(patterns)}
    out = []
    for e in entries:
        try:
            nb = [None if q is None else index[tuple(q)] for q in e["across"]]
        except KeyError:
            return None
        out.append({"pattern": e["pattern"], "point": e["point"], "inequalities": e["inequalities"],
                    "facets": e["facets"], "neighbours": nb, "redundant": e["redundant"]})
    return out


def assembled(net: Network, lo, hi, regs: list) -> dict:
    """The ``region_cover`` certificate of N on ``[lo, hi]^d`` (*lo*, *hi* lists: the box
    ``∏ [lo_i, hi_i]``, :func:`box_domain`) whose regions are *regs* (:func:`linked`; JSON data
    already, put in as they are)."""
    cert = region_cover_certificate(net, net, domain=box_domain(lo, hi, net.n_inputs),
                                    reduction=reduction_steps(list(net.widths[1:-1])))
    cert["regions"] = regs
    return cert


def cover_certificate(net: Network, lo, hi, pieces: list) -> dict | None:
    """The ``region_cover`` certificate (module docstring) from the :func:`piece` results of
    every pattern, in the order given; None when a neighbour pattern is not among them (an
    incomplete walk)."""
    widths = list(net.widths[1:-1])
    regs = linked([region_entry(p, widths) for p in pieces], [p["pattern"] for p in pieces])
    return None if regs is None else assembled(net, lo, hi, regs)


def entry_text(piece: dict, widths) -> str:
    """The :func:`region_entry` of a piece as JSON text without its ``across`` (the worker's
    part of the assembly; :func:`linked_text` appends the neighbours' indices)."""
    e = region_entry(piece, widths)
    del e["across"]
    return json.dumps(e)


def linked_text(text: str, neighbours: list) -> str:
    """An :func:`entry_text` with its ``neighbours`` (indices into the certificate's regions,
    None on the box's boundary): the region's JSON text in the certificate, by concatenation."""
    return f'{text[:-1]}, "neighbours": {json.dumps(neighbours)}}}'
