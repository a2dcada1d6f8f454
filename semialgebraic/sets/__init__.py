"""Sets over Q: semi-algebraic sets with certified dimensions, convex polyhedra, input domains.

* :mod:`.basic` — :class:`BasicSet` (polynomial equalities and sign conditions), finite unions
  :class:`SemialgebraicSet`, and :class:`Dimension` (exact or bounds, with the reason);
* :mod:`.polyhedra` — :class:`Polyhedron` ``{x : A x <= b}`` (exact interior points by LP);
* :mod:`.domains` — the input domains of the deciders (R^d, orthant, box; a convex polyhedron
  for the general equivalence method): normalisation, membership, random rational points, JSON
  form.
"""

from .basic import GROEBNER_LIMITS, BasicSet, Dimension, SemialgebraicSet
from .domains import (DOMAIN_FORMS, api_domain, domain_spec, in_domain, interior_point, normalize_domain,
                      polyhedron_of, random_batch, random_point,
                      tighten)
from .polyhedra import Polyhedron

__all__ = ["BasicSet", "Dimension", "SemialgebraicSet", "GROEBNER_LIMITS", "Polyhedron",
           "api_domain", "polyhedron_of", "DOMAIN_FORMS", "normalize_domain", "in_domain", "random_point", "random_batch", "domain_spec", "interior_point", "tighten"]
