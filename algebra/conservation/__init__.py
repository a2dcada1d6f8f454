"""Conservation laws of gradient flow for ReLU networks, exactly (three-layer-fibers §8).

* :mod:`algebra.conservation.laws` — explicit laws and the certified count
  (:func:`conservation_laws`, the method and references are documented there);
* :mod:`algebra.conservation.fields` — samples, activation masks and the gradient fields;
* :mod:`algebra.conservation.identities` — exact verification of a law and tangency;
* :mod:`algebra.conservation.spans` — exact and modular row spans;
* :mod:`algebra.conservation.jets`, :mod:`algebra.conservation.lie` — Lie brackets on jets and
  on polynomials, and the Frobenius certificate.
"""

from .fields import (Sample, field_values, parameter_ring_of, samples_from_patterns,
                     samples_from_points)
from .identities import is_tangent, verify_law
from .laws import Law, Laws, conservation_laws, explicit_laws, symmetry_without_law

__all__ = ["Sample", "Law", "Laws", "samples_from_points", "samples_from_patterns",
           "explicit_laws", "verify_law", "conservation_laws", "field_values",
           "is_tangent", "symmetry_without_law", "parameter_ring_of"]
