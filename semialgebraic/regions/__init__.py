"""Linear regions of ReLU networks, enumerated exactly.

* :mod:`.walk` — the one region walk of the package: :func:`regions` (lazy, budgeted),
  :func:`region_at`, :func:`number_of_regions`, the :class:`Region` type, and
  :class:`RegionSteps` (one region at a time, for a driver holding the visited set);
* :mod:`.facets` — the exact facet tests of one region;
* :mod:`.redundancy` — exact Farkas multipliers proving that a region's facets cut it out;
* :mod:`.stacked` — the regions of several networks stacked side by side, in the form of a
  ``region_cover`` certificate (:func:`joint_regions`, :class:`JointRegion`).
"""

from .stacked import JointRegion, joint_regions
from .walk import Region, RegionSteps, RegionWalk, number_of_regions, region_at, regions

__all__ = ["Region", "RegionSteps", "RegionWalk", "regions", "region_at", "number_of_regions", "JointRegion", "joint_regions"]
