"""Pictures (issue 18): scenes with exact coordinates and a thin matplotlib renderer.

* :mod:`.scene` — the plain data a picture shows (:class:`Scene`: polygons with exact vertices
  and pattern, segments with exact end points, markers, graph nodes and edges, a heat map);
* :mod:`.regions` — linear regions of a 2-D input or slice, bent hyperplanes, dead and masked
  neurons (:func:`regions_scene`);
* :mod:`.fiber` — a 2-D chart of the fiber along two symmetry directions (:func:`fiber_scene`);
* :mod:`.graph` — the symmetry graph (:func:`symmetry_scene`);
* :mod:`.diff` — ``|a − b|`` on a grid of a 2-D slice (:func:`diff_scene`);
* :mod:`.slicing`, :mod:`.geometry` — exact 2-D slices and polygon vertices;
* :mod:`.renderer` — matplotlib (optional extra ``[plot]``), files written atomically;
* :mod:`.notebook` — HTML/LaTeX/PNG representations for Jupyter.

Scenes are computed and tested without matplotlib; only :mod:`.renderer` imports it (lazily).
"""

from .diff import diff_scene
from .fiber import fiber_scene
from .graph import symmetry_scene
from .regions import regions_scene
from .renderer import render, render_bytes, require_matplotlib, save
from .scene import Scene
from .slicing import Slice, parse_slice, slice_network

__all__ = ["Scene", "regions_scene", "fiber_scene", "symmetry_scene", "diff_scene", "render",
           "render_bytes", "save", "require_matplotlib", "Slice", "parse_slice", "slice_network"]
