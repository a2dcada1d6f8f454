"""Scenes: what a picture shows, as plain data with exact coordinates.

A :class:`Scene` is drawn by :mod:`semialgebraic.plot.renderer` (matplotlib) but is computed and
tested without it: polygons with their exact vertices and activation pattern, segments with
exact end points, points with labels, graph nodes and edges, and a heat map of exact values.
Floats appear only in the renderer (and in graph layouts, which decide nothing).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algebra.rationals import q_json

__all__ = ["Polygon", "Segment", "Marker", "Node", "Edge", "HeatMap", "Scene"]


@dataclass(frozen=True)
class Polygon:
    """A convex polygon: exact vertices in counter-clockwise order, with its pattern."""

    vertices: tuple
    pattern: tuple = ()
    label: str = ""

    def to_json(self) -> dict:
        return {"vertices": [[q_json(v) for v in p] for p in self.vertices],
                "pattern": list(self.pattern), "label": self.label}


@dataclass(frozen=True)
class Segment:
    """A segment between two exact points (an end point is None on an unbounded side: then
    ``direction`` gives the way it goes).  ``style``: ``"solid"``, ``"dashed"`` or ``"free"``
    (an unbounded free axis); ``group`` says which neuron / piece it belongs to."""

    start: tuple | None
    end: tuple | None
    style: str = "solid"
    group: str = ""
    label: str = ""
    direction: tuple | None = None
    closed: tuple = (True, True)

    def to_json(self) -> dict:
        pt = lambda p: None if p is None else [q_json(v) for v in p]
        return {"start": pt(self.start), "end": pt(self.end), "style": self.style,
                "group": self.group, "label": self.label, "direction": pt(self.direction),
                "closed": list(self.closed)}


@dataclass(frozen=True)
class Marker:
    """A labelled exact point."""

    point: tuple
    label: str = ""
    kind: str = "point"
    group: str = ""

    def to_json(self) -> dict:
        return {"point": [q_json(v) for v in self.point], "label": self.label, "kind": self.kind,
                "group": self.group}


@dataclass(frozen=True)
class Node:
    """A graph node; ``position`` is a float layout (drawing only; in JSON as 6-digit decimal
    strings, since no float goes into netfibers' JSON: ``plot symmetries --json`` failed on it
    with exit 4)."""

    id: object
    label: str
    component: int
    position: tuple = (0.0, 0.0)

    def to_json(self) -> dict:
        return {"id": self.id, "label": self.label, "component": self.component,
                "position": [f"{v:.6g}" for v in self.position]}


@dataclass(frozen=True)
class Edge:
    """A graph edge labelled with its generator."""

    source: object
    target: object
    label: str

    def to_json(self) -> dict:
        return {"source": self.source, "target": self.target, "label": self.label}


@dataclass(frozen=True)
class HeatMap:
    """Exact values on a grid: ``values[i][j]`` at ``(xs[j], ys[i])``."""

    xs: tuple
    ys: tuple
    values: tuple

    def to_json(self) -> dict:
        return {"xs": [q_json(v) for v in self.xs], "ys": [q_json(v) for v in self.ys],
                "values": [[q_json(v) for v in row] for row in self.values]}


@dataclass
class Scene:
    """Everything one picture shows (exact), plus titles and notes."""

    kind: str
    title: str = ""
    xlabel: str = ""
    ylabel: str = ""
    polygons: list = field(default_factory=list)
    segments: list = field(default_factory=list)
    markers: list = field(default_factory=list)
    nodes: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    heatmap: HeatMap | None = None
    window: tuple | None = None          # ((xlo, xhi), (ylo, yhi)) exact
    notes: list = field(default_factory=list)
    data: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        win = None if self.window is None else [[q_json(v) for v in w] for w in self.window]
        return {"kind": self.kind, "title": self.title, "xlabel": self.xlabel,
                "ylabel": self.ylabel, "window": win,
                "polygons": [p.to_json() for p in self.polygons],
                "segments": [s.to_json() for s in self.segments],
                "markers": [m.to_json() for m in self.markers],
                "nodes": [n.to_json() for n in self.nodes],
                "edges": [e.to_json() for e in self.edges],
                "heatmap": None if self.heatmap is None else self.heatmap.to_json(),
                "notes": list(self.notes)}

    def _repr_png_(self) -> bytes | None:
        """The picture in a notebook (None without matplotlib)."""
        from .notebook import scene_png
        return scene_png(self)
