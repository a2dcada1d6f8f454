"""The picture of the linear regions of a network on a 2-D input (or a 2-D slice).

Every polygon is one region of the exact region walk (:mod:`semialgebraic.regions`) inside the
window, with its exact vertices and activation pattern.  Each hidden neuron's *bent hyperplane*
(the zero set of its pre-activation, a broken line for deeper layers) is the union of the
region edges whose facet class contains the neuron; an edge is drawn solid where the network
bends across it (the affine maps on its two sides differ, compared exactly) and dashed where it
does not.  A neuron that is never positive in the window is reported *dead*; a neuron with a
hyperplane in the window that bends nowhere is reported *masked* (drawn dashed throughout).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import to_q

from ..budget import Budget
from ..regions import regions
from ..sets import Polyhedron
from .geometry import on_line, polygon_vertices
from .scene import Polygon, Scene, Segment
from .slicing import Slice, slice_network

__all__ = ["regions_scene", "window_polyhedron", "neuron_names"]

WALK_SHARE = 0.7
"""Share of a timeout the region walk may use; building the polygons of the regions found
(and the command's drawing) get the rest."""


def window_polyhedron(window) -> Polyhedron:
    """``[[xlo, xhi], [ylo, yhi]]`` -> the closed rectangle (exact)."""
    (x0, x1), (y0, y1) = [(to_q(a), to_q(b)) for a, b in window]
    if x0 >= x1 or y0 >= y1:
        raise InputError("--box: the window must have positive width and height")
    return Polyhedron([[1, 0], [-1, 0], [0, 1], [0, -1]], [x1, -x0, y1, -y0], 2)


def neuron_names(net: Network) -> list[str]:
    """``L1[0]``, ``L1[1]``, …, ``L2[0]``, … for the hidden neurons in layer order."""
    return [f"L{l + 1}[{i}]" for l, n in enumerate(net.hidden_widths) for i in range(n)]


def regions_scene(net: Network, window=((-2, 2), (-2, 2)), *, slice: Slice | None = None,
                  budget: Budget | None = None) -> Scene:
    """The regions picture of *net* on *window* (slice coordinates when *slice* is given).

    ``scene.polygons`` has one polygon per region found; ``scene.data`` holds ``regions``,
    ``regions_drawn``, ``complete``, ``dead``, ``masked`` and ``never_bends`` (neuron names;
    None when a *budget* — its ``timeout`` or ``max_regions`` — cut the walk or the drawing
    short: from some regions only they would not be certified; ``reason`` then says why, and
    the title and a note say the picture is partial).

    Raises
    ------
    InputError
        If the input is not 2-D and no slice is given, or the window is empty.

    Examples
    --------
    >>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    >>> sc = regions_scene(net, ((-1, 1), (-1, 1)))
    >>> len(sc.polygons), sc.polygons[0].label, sc.polygons[0].vertices
    (4, '--', ((0, 0), (-1, 0), (-1, -1), (0, -1)))
    """
    if slice is not None:
        net2 = slice_network(net, slice)
    elif net.n_inputs == 1:
        raise InputError("the network has 1 input: a picture of regions needs 2 (its regions are "
                         "intervals: netfibers regions NET --box LO,HI lists them)")
    elif net.n_inputs != 2:
        raise InputError(f"the network has {net.n_inputs} inputs: give a 2-D --slice "
                         "POINT,DIR1,DIR2")
    else:
        net2 = net
    dom = window_polyhedron(window)
    budget = budget or Budget()
    # the walk gets WALK_SHARE of a timeout; the polygons of the regions found, the rest
    walk_budget = Budget(None if budget.timeout is None else WALK_SHARE * budget.remaining(),
                         budget.max_regions, clock=budget.clock)
    walk = regions(net2, domain=dom, budget=walk_budget, progress=False)
    found = list(walk)
    complete = bool(walk.complete)
    reason = "" if complete else (walk.budget.reason or "stopped")
    if not complete and reason.startswith("timeout") and budget.timeout is not None:
        reason = (f"timeout of {budget.timeout:g} s reached during the region walk (it had "
                  f"{walk_budget.timeout:.3g} s of it)")
    elif not complete and reason.startswith("max_regions"):
        reason = f"--max-regions {budget.max_regions} reached"
    names = neuron_names(net2)
    nh = net2.n_hidden
    by_pattern = {r.pattern: r for r in found}
    scene = Scene("regions", title="linear regions", xlabel="s" if slice else "x0",
                  ylabel="t" if slice else "x1", window=tuple(tuple(map(to_q, w)) for w in window))
    seen, bends_somewhere, has_segment = set(), set(), set()
    drawn = 0
    for r in found:
        # the timeout alone stops the drawing: after a Ctrl-C that ended the walk, the regions
        # it found are drawn (a blank picture said "timeout … reached while drawing" 7 s into
        # a 30 s budget: session 43's budgets audit); a second Ctrl-C still ends the process
        if budget.timeout is not None and budget.elapsed() >= budget.timeout:
            complete = False
            reason = (reason + "; " if reason else "") + (
                f"timeout of {budget.timeout:g} s reached while drawing: {drawn} of the "
                f"{len(found)} regions found drawn")
            break
        drawn += 1
        # the closed region is the intersection of its irredundant facets' half-planes: the
        # vertices from those alone (all 300 inequalities of an ACAS Xu slice made it O(300^3)
        # exact comparisons a region: ~415 s for the picture)
        ineqs = [r.inequalities[f] for f in r.facets] if r.facets else r.inequalities
        forms = [(a, c) for a, c in ineqs if any(v != 0 for v in a)]
        verts = polygon_vertices(forms, r.point)
        pat = "".join("+" if s > 0 else "-" if s < 0 else "0" for s in r.pattern)
        scene.polygons.append(Polygon(verts, tuple(r.pattern), pat))
        for (f, q), cls in zip(r.neighbours, r.facet_classes):
            neurons = [k for k in cls if k < nh]
            if not neurons:
                continue
            ends = [v for v in verts if on_line(r.inequalities[f], v)]
            if len(ends) != 2:
                continue
            other = by_pattern.get(q) if q is not None else None
            bends = None if other is None else not (
                r.jacobian == other.jacobian and tuple(r.offset) == tuple(other.offset))
            for k in neurons:
                key = (k, frozenset(ends))
                if key in seen:
                    continue
                seen.add(key)
                has_segment.add(k)
                if bends is not False:
                    bends_somewhere.add(k)
                scene.segments.append(Segment(ends[0], ends[1],
                                              "dashed" if bends is False else "solid", names[k]))
    if complete:
        dead = [names[k] for k in range(nh) if found and all(r.pattern[k] <= 0 for r in found)]
        never = [names[k] for k in sorted(has_segment - bends_somewhere)]
        first = net2.hidden_widths[0] if net2.hidden_widths else 0
        masked = [names[k] for k in sorted(has_segment - bends_somewhere) if k < first]
    else:       # from some of the regions only: "dead" or "never bends" would not be certified
        dead = masked = never = None
    scene.data = {"regions": len(found), "regions_drawn": drawn, "complete": complete,
                  "dead": dead, "masked": masked, "never_bends": never, "neurons": names}
    if dead:
        scene.notes.append("dead in the window: " + ", ".join(dead))
    if masked:
        scene.notes.append("masked (hyperplane never bends, dashed): " + ", ".join(masked))
    if not complete:
        scene.data["reason"] = reason
        scene.notes.append(f"partial picture: {reason}; dead and masked neurons not determined")
    n = drawn
    # the word of `netfibers regions`: an activation region has one on/off pattern (a linear
    # piece, adjacent regions with one affine map, may join several; new-user audit)
    scene.title = (f"{n} activation region{'s' if n != 1 else ''}" if complete else
                   f"{n} activation region{'s' if n != 1 else ''} drawn (partial: more may exist)")
    return scene
