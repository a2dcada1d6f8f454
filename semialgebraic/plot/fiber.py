"""The picture of a fiber: a 2-D chart through θ along two symmetry directions.

The directions are chosen from the fiber's generators, in this order: the S6 translation of
the masked neuron (the closed interval of :func:`structure`, drawn as a
segment with its exact end points), the output weight of a dead second-layer neuron (S3, a free
axis: the whole line), and positive rescalings (S2, the open half-line ``λ > 0``).  The chart is
``(x, y) ↦ g_Y(y)·g_X(x)·θ``; since the second axis is a symmetry for every value in its range,
its points in the fiber are exactly ``range_X × range_Y`` (S6 and S3 are straight lines in
parameter space, so with those two the chart is the plane ``θ + x·u + y·v``).  Every component
of the fiber up to permutations (sign-flip components, S5/S7/S8) is a separate piece, drawn
around its own representative with the directions recomputed there.
"""

from __future__ import annotations

from dataclasses import dataclass

from algebra.network import Network
from algebra.rationals import Q, q_str
from algebra.symmetries.bottleneck import TranslateMasked
from algebra.symmetries.bottleneck_paths import RescaleHidden

from ..bottleneck._structure import DEAD, structure
from .scene import Marker, Scene, Segment

__all__ = ["Axis", "fiber_axes", "fiber_scene", "component_name"]


@dataclass(frozen=True)
class Axis:
    """One symmetry direction at a network: ``kind`` (S6, S3, S2), the neuron, the exact range
    ``[lo, hi]`` of its parameter (None = unbounded; ``closed`` per end) and the value at θ."""

    kind: str
    neuron: int
    lo: object
    hi: object
    closed: tuple
    base: object
    label: str

    def interval(self) -> str:
        """``L1[0] ∈ [-1, 3/2]``, ``L1[1] ∈ (0, ∞)``: the neuron and the exact range."""
        lo = "-∞" if self.lo is None else _num(self.lo)
        hi = "∞" if self.hi is None else _num(self.hi)
        layer = "L2" if self.kind == "S3" else "L1"
        return (f"{layer}[{self.neuron}] ∈ {'[' if self.closed[0] else '('}{lo}, {hi}"
                f"{']' if self.closed[1] else ')'}")

    def apply(self, net: Network, x) -> Network:
        """The network moved to parameter *x* along this direction."""
        if self.kind == "S2":
            return RescaleHidden(1, self.neuron, x).apply(net)
        if self.kind == "S6":
            return TranslateMasked(self.neuron, x)._apply(net)
        ws, bs = list(net.weights), [list(b) for b in net.biases]
        ws[-1] = ws[-1].with_entry(0, self.neuron, ws[-1][0, self.neuron] + x)
        return Network(ws, bs)


def fiber_axes(net: Network, kinds=None) -> list[Axis]:
    """The candidate directions at *net*, preferred first (see the module docstring)."""
    out = []
    if net.depth == 3:
        s = structure(net)
        if s.masked is not None and s.s6_interval is not None:
            lo, hi = s.s6_interval
            out.append(Axis("S6", s.masked, lo, hi, (lo is not None, hi is not None), Q(0),
                            f"S6: translate masked neuron L1[{s.masked}] by t"))
        for j, t in enumerate(s.types or ()):
            if t == DEAD:
                out.append(Axis("S3", j, None, None, (False, False), Q(0),
                                f"S3: output weight W3[0,{j}] of dead neuron L2[{j}] + w"))
    for i in range(net.widths[1]):
        out.append(Axis("S2", i, Q(0), None, (False, False), Q(1),
                        f"S2: rescale L1[{i}] by λ > 0"))
    if kinds:
        out = [a for a in out if a.kind in kinds] or out
    return out


def _num(v) -> str:
    return q_str(v)


def component_name(lab) -> str:
    """``θ`` for the component of θ, else its discrete moves: ``S5[0] S7[1] S8``."""
    if isinstance(lab, dict) and "flipped_neurons" in lab:      # one hidden layer
        return f"flip {lab['flipped_neurons']}" if lab["flipped_neurons"] else "θ"
    if not isinstance(lab, dict) or not {"flips", "s7", "s8"} & set(lab):
        return str(lab)
    bits = [f"S5{lab['flips']}" if lab.get("flips") else "",
            f"S7{lab['s7']}" if lab.get("s7") else "", "S8" if lab.get("s8") else ""]
    return " ".join(b for b in bits if b) or "θ"


def fiber_scene(net: Network, fib=None, *, kinds=None, max_pieces: int = 8) -> Scene:
    """The fiber picture of *net* (``fib``: its fiber, computed when omitted).

    Each piece (component up to permutations) gives a group of segments named by its label:
    the X range as a segment on ``y = base_Y`` (end points exact and labelled), the Y range as a
    segment (or free line) on ``x = base_X``, and a marker at the representative.

    Examples
    --------
    >>> net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
    ...                         [[0, 0], [-1, -3], [0]])             # masked, one dead neuron
    >>> sc = fiber_scene(net)
    >>> [(s.label, s.start, s.end) for s in sc.segments[:2]]
    [('S6 L1[0] ∈ [-1, 3/2]', (-1, 0), (3/2, 0)), ('S3 L2[1] ∈ (-∞, ∞)', None, None)]
    """
    if fib is None:
        from .._fiber import fiber
        fib = fiber(net)
    scene = Scene("fiber", title=f"fiber of θ: dimension {fib.dimension.words()}, "
                  f"{len(fib.components)} component(s) up to permutations")
    axes0 = fiber_axes(net, kinds)[:2]
    scene.xlabel = axes0[0].label if axes0 else ""
    scene.ylabel = axes0[1].label if len(axes0) > 1 else ""
    pieces = []
    for k, comp in enumerate(fib.components[:max_pieces]):
        rep = comp.representative if comp.representative is not None else net
        lab = getattr(comp, "label", k)
        name = f"component {k}: {component_name(lab)}"
        here = fiber_axes(rep, kinds)
        axes = [next((b for b in here if b.kind == a.kind
                      and (b.kind != "S2" or b.neuron == a.neuron)), None) for a in axes0]
        axes = [a for a in axes if a is not None]
        piece = {"label": str(lab), "axes": [], "representative": rep}
        base = tuple(a.base for a in axes) + (Q(0),) * (2 - len(axes))
        for n, a in enumerate(axes):
            piece["axes"].append(a)
            pt = lambda v, n=n: tuple(v if m == n else base[m] for m in range(2))
            direction = tuple(Q(1) if m == n else Q(0) for m in range(2))
            start = None if a.lo is None else pt(a.lo)
            end = None if a.hi is None else pt(a.hi)
            style = "free" if a.lo is None and a.hi is None else "solid"
            scene.segments.append(Segment(start, end, style, name, f"{a.kind} {a.interval()}",
                                          direction, a.closed))
            for v, c in ((a.lo, a.closed[0]), (a.hi, a.closed[1])):
                if v is not None:
                    scene.markers.append(Marker(pt(v), f"{a.kind} = {_num(v)}",
                                                "end" if c else "open end", name))
        scene.markers.append(Marker(base, "θ" if k == 0 else "representative", "theta", name))
        pieces.append(piece)
    scene.data = {"pieces": pieces, "axes": axes0, "components": len(fib.components),
                  "dimension": fib.dimension.value}
    if len(fib.components) > max_pieces:
        scene.notes.append(f"{len(fib.components) - max_pieces} more components not drawn")
    return scene
