"""The pictures embedded in the HTML report of ``netfibers reproduce`` (issue 18, part 3).

Each picture is drawn from the same exact scenes as ``netfibers plot``
(:mod:`semialgebraic.plot`) on a bundled example, rendered as PNG and embedded in the report as a
``data:`` URI, so the HTML file stands alone.  They need the optional matplotlib (``pip install
'.[plot]'``); without it the report has the table only and :func:`report_pictures` says why.
"""

from __future__ import annotations

import base64
from pathlib import Path

import algebra
from algebra.io import load

from algebra.exceptions import MissingDependencyError

__all__ = ["PICTURES", "report_pictures"]

_EXAMPLES = Path(algebra.__file__).resolve().parent / "examples"
_T1 = "t1_masked.json"          # three-layer-fibers T1: the masked neuron and its S6 interval


def _regions(net):
    from ..plot import regions_scene
    return regions_scene(net, window=((-3, 3), (-3, 3)))


def _fiber(net):
    from ..plot import fiber_scene
    return fiber_scene(net)


def _graph(net):
    from .._fiber import fiber
    from ..plot import symmetry_scene
    return symmetry_scene(fiber(net))


# (reference, item) -> (example file, scene builder, caption)
PICTURES = {
    ("three-layer-fibers", "R4"): (_T1, _regions, "T1's regions on [-3, 3]^2: the masked neuron's "
                                   "hyperplane (dashed) never bends the function"),
    ("three-layer-fibers", "S6"): (_T1, _fiber, "a 2-D chart of T1's fiber: the S6 interval with "
                                   "its exact end points"),
    ("three-layer-fibers", "R16"): (_T1, _graph, "T1's symmetry graph: components and the "
                                    "generators joining them"),
}


def report_pictures(rows) -> tuple[dict, str | None]:
    """``({(reference, item): data URI}, None)`` for the rows that have a picture, or ``({},
    reason)`` when matplotlib is missing.  A picture that cannot be drawn is left out (its
    row's verdict does not depend on it)."""
    try:
        from ..plot import render_bytes, require_matplotlib
        require_matplotlib()
    except MissingDependencyError as exc:
        return {}, str(exc)
    wanted = {(r.reference, r.id) for r in rows} & set(PICTURES)
    nets, out = {}, {}
    for key in sorted(wanted):
        name, build, _ = PICTURES[key]
        if name not in nets:
            nets[name] = load(str(_EXAMPLES / name))
        png = render_bytes(build(nets[name]), "png")
        out[key] = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return out, None
