"""The thin matplotlib renderer of :class:`~semialgebraic.plot.scene.Scene` (Agg, no pyplot).

The format is the suffix of the output file (``.png``, ``.svg``, ``.pdf``); the picture is
rendered in memory and written atomically (temp file + rename: nothing is left behind on
failure).  matplotlib is optional (``pip install '.[plot]'``); :func:`require_matplotlib`
raises a one-line :class:`~algebra.exceptions.MissingDependencyError` without it.  Coordinates
become floats here only, for drawing.
"""

from __future__ import annotations

import io
from pathlib import Path

from algebra.exceptions import InputError, MissingDependencyError
from algebra.io.native import write_atomic

from .scene import Scene

__all__ = ["FORMATS", "require_matplotlib", "output_format", "render", "render_bytes", "save"]

FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf"}
_COLOURS = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
            "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")
_LINES = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d", "#666666")


def require_matplotlib():
    """The ``matplotlib`` module, or a MissingDependencyError with the install hint."""
    try:
        import matplotlib
        from matplotlib.figure import Figure  # noqa: F401  (the Agg canvas comes with it)
    except ImportError:
        raise MissingDependencyError("matplotlib", "plot", "drawing pictures") from None
    return matplotlib


def output_format(path) -> str:
    """``png``/``svg``/``pdf`` from the suffix of *path*; InputError otherwise or when the
    directory does not exist."""
    p = Path(path)
    fmt = FORMATS.get(p.suffix.lower())
    if fmt is None:
        raise InputError(f"{path}: unknown picture format {p.suffix or '(no suffix)'!r}; "
                         "use .png, .svg or .pdf")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError(f"{path}: directory {parent} does not exist")
    return fmt


def _f(v) -> float:
    return float(v.p) / float(v.q) if hasattr(v, "p") else float(v)


def _pt(p) -> tuple:
    return tuple(_f(v) for v in p)


def _window(ax, scene: Scene):
    if scene.window is not None:
        (x0, x1), (y0, y1) = scene.window
        ax.set_xlim(_f(x0), _f(x1))
        ax.set_ylim(_f(y0), _f(y1))


def _draw_regions(fig, scene):
    # one collection for the polygons and one per (neuron, style) for the edges: an ACAS Xu
    # slice has hundreds of regions and thousands of edges, one artist each took seconds
    from matplotlib.collections import LineCollection, PolyCollection
    ax = fig.add_subplot(1, 1, 1)
    colours = {}
    verts, faces = [], []
    for poly in scene.polygons:
        c = colours.setdefault(poly.pattern, _COLOURS[len(colours) % len(_COLOURS)])
        xy = [_pt(v) for v in poly.vertices]
        verts.append(xy)
        faces.append(c)
        if len(scene.polygons) <= 40:
            cx = sum(p[0] for p in xy) / len(xy)
            cy = sum(p[1] for p in xy) / len(xy)
            ax.text(cx, cy, poly.label, ha="center", va="center", fontsize=7)
    if verts:
        ax.add_collection(PolyCollection(verts, facecolors=faces, alpha=0.8, linewidths=0))
    groups, lines = {}, {}
    for s in scene.segments:
        c = groups.setdefault(s.group, _LINES[len(groups) % len(_LINES)])
        lines.setdefault((s.group, s.style), []).append([_pt(s.start), _pt(s.end)])
    for (g, style), segs in lines.items():
        ax.add_collection(LineCollection(segs, colors=groups[g], linewidths=1.5,
                                         linestyles="--" if style == "dashed" else "-"))
    if groups and len(groups) <= _LEGEND_MAX:
        for g, c in groups.items():
            ax.plot([], [], color=c, label=g)
        ax.legend(fontsize=7, loc="upper right")
    ax.autoscale_view()
    _window(ax, scene)
    ax.set_aspect("equal", adjustable="box")


_LEGEND_MAX = 24
"""Neurons named in a regions picture's legend at most (an ACAS Xu slice has 300)."""


def _draw_fiber(fig, scene):
    groups = []
    for s in scene.segments:
        if s.group not in groups:
            groups.append(s.group)
    groups = groups or [""]
    for k, g in enumerate(groups):
        ax = fig.add_subplot(1, len(groups), k + 1)
        segs = [s for s in scene.segments if s.group == g]
        theta = _pt(next((m.point for m in scene.markers if m.kind == "theta" and m.group == g),
                         (0, 0)))
        ends = [_f(p[n]) - theta[n] for n, s in enumerate(segs) for p in (s.start, s.end)
                if p is not None]
        span = max([abs(v) for v in ends] + [1.0]) * 1.5
        lims = []
        for n, s in enumerate(segs):     # segment n runs along coordinate n; unbounded: ± span
            lo = _f(s.start[n]) if s.start is not None else theta[n] - span
            hi = _f(s.end[n]) if s.end is not None else theta[n] + span
            lims.append((lo, hi))
            xy = [list(theta), list(theta)]
            xy[0][n], xy[1][n] = lo, hi
            ax.plot([xy[0][0], xy[1][0]], [xy[0][1], xy[1][1]], linewidth=2.5, label=s.label,
                    linestyle=":" if s.style == "free" else "-")
        if len(lims) == 2:           # the piece's 2-D set: range_X × range_Y
            (x0, x1), (y0, y1) = lims
            ax.fill([x0, x1, x1, x0], [y0, y0, y1, y1], color="#80b1d3", alpha=0.25,
                    linewidth=0, label="fiber ∩ chart")
        ax.set_title(g, fontsize=8)
        if ax.get_legend_handles_labels()[0]:     # (an empty legend warned on stderr)
            ax.legend(fontsize=7)
        ax.set_xlabel(scene.xlabel, fontsize=7)
        if k == 0:
            ax.set_ylabel(scene.ylabel, fontsize=7)
    # markers: end points of the piece they lie on (drawn on every axis they belong to)
    for k, ax in enumerate(fig.axes):
        g = groups[k]
        pts = {tuple(p) for s in scene.segments if s.group == g for p in (s.start, s.end)
               if p is not None}
        for m in scene.markers:
            if m.kind == "theta" and m.group == g:
                x, y = _pt(m.point)
                ax.plot([x], [y], "D", color="red")
                ax.annotate(m.label, (x, y), textcoords="offset points", xytext=(4, -12), fontsize=8)
            elif tuple(m.point) in pts:
                x, y = _pt(m.point)
                ax.plot([x], [y], "o", color="black",
                        markerfacecolor="black" if m.kind == "end" else "white")
                ax.annotate(m.label, (x, y), textcoords="offset points", xytext=(3, 6), fontsize=7)


def _draw_symmetries(fig, scene):
    ax = fig.add_subplot(1, 1, 1)
    pos = {n.id: n.position for n in scene.nodes}
    for e in scene.edges:
        (x0, y0), (x1, y1) = pos[e.source], pos[e.target]
        ax.plot([x0, x1], [y0, y1], color="#888888", zorder=1)
        ax.text((x0 + x1) / 2, (y0 + y1) / 2, e.label, fontsize=7, ha="center",
                bbox={"facecolor": "white", "edgecolor": "none", "pad": 1})
    for n in scene.nodes:
        ax.scatter([n.position[0]], [n.position[1]], s=400, zorder=2,
                   color=_LINES[n.component % len(_LINES)])
        ax.annotate(f"{n.id}: {n.label}", n.position, textcoords="offset points",
                    xytext=(0, 14), ha="center", fontsize=7)
    ax.set_axis_off()
    ax.margins(0.25)


def _draw_diff(fig, scene):
    ax = fig.add_subplot(1, 1, 1)
    h = scene.heatmap
    data = [[_f(v) for v in row] for row in h.values]
    im = ax.imshow(data, origin="lower", aspect="auto", cmap="viridis",
                   extent=(_f(h.xs[0]), _f(h.xs[-1]), _f(h.ys[0]), _f(h.ys[-1])))
    fig.colorbar(im, ax=ax, label="|a − b|")
    for m in scene.markers:
        x, y = _pt(m.point)
        ax.plot([x], [y], "x" if m.kind == "grid_max" else "*", color="red", markersize=10)
        ax.annotate(m.label, (x, y), textcoords="offset points", fontsize=7, color="white",
                    xytext=(4, 4) if m.kind == "grid_max" else (4, -10))


_DRAW = {"regions": _draw_regions, "fiber": _draw_fiber, "symmetries": _draw_symmetries,
         "diff": _draw_diff}


def render(scene: Scene):
    """A matplotlib ``Figure`` of *scene* (no pyplot, no global state)."""
    require_matplotlib()
    from matplotlib.figure import Figure
    ncols = max(1, len({s.group for s in scene.segments})) if scene.kind == "fiber" else 1
    fig = Figure(figsize=(5.5 * ncols if ncols > 1 else 6.5, 5.5))
    _DRAW[scene.kind](fig, scene)
    title = scene.title + ("" if not scene.notes else "\n" + "; ".join(scene.notes))
    fig.suptitle(title, fontsize=9)
    if scene.kind != "fiber":
        ax = fig.axes[0]
        ax.set_xlabel(scene.xlabel)
        ax.set_ylabel(scene.ylabel)
    return fig


def render_bytes(scene: Scene, fmt: str = "png") -> bytes:
    """The picture as bytes in *fmt* (png, svg, pdf)."""
    fig = render(scene)
    buf = io.BytesIO()
    fig.savefig(buf, format=fmt, bbox_inches="tight", metadata=_metadata(fmt))
    return buf.getvalue()


def _metadata(fmt: str) -> dict:
    # reproducible files: no creation date in svg/pdf
    return {"Date": None} if fmt in ("svg", "pdf") else {}


def save(scene: Scene, path) -> Path:
    """Render *scene* to *path* (format by suffix), atomically."""
    fmt = output_format(path)
    require_matplotlib()
    write_atomic(Path(path), render_bytes(scene, fmt))
    return Path(path)
