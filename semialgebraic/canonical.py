"""The canonical-form protocol shared by the families that decide by a canonical form.

Three families compare two objects by computing an exact invariant of the function they realise
and testing it for equality:

* :class:`semialgebraic.shallow.ShallowCanonicalForm` — one hidden layer (kinks per hyperplane
  and the affine part, on R^d or on the orthant);
* :class:`semialgebraic.bottleneck.BottleneckCanon` — CANON of three-layer bottleneck networks
  (three-layer-fibers R20);
* :class:`semialgebraic.absorption.AbsorptionCanon` — the canonical form of a ReLU/GELU block
  (skip-absorption R14).

What they share is :class:`CanonicalForm`: equality (``==`` of two forms of the same kind is the
decision), ``to_json()`` (exact numbers as strings) and ``fingerprint()`` (the first 16 hex
digits of the SHA-256 of the canonical JSON, :func:`json_fingerprint`).  A *representative*
(a parameter realising the form) exists only for the one-hidden-layer form: CANON is an
invariant that need not be a parameter of the fiber (three-layer-fibers P16), and the
absorption form is one of a block with a skip, not a residual-free block.

>>> json_fingerprint({"b": ["1/2"], "a": 1}) == json_fingerprint({"a": 1, "b": ["1/2"]})
True
>>> len(json_fingerprint({}))
16
"""

from __future__ import annotations

import hashlib
import json
from typing import Protocol, runtime_checkable

__all__ = ["CanonicalForm", "json_fingerprint"]


@runtime_checkable
class CanonicalForm(Protocol):
    """An exact invariant of a realised function: equal forms ⇔ equal functions (within the
    family's hypotheses).  Implemented by ``ShallowCanonicalForm``, ``BottleneckCanon`` and
    ``AbsorptionCanon``."""

    def __eq__(self, other: object) -> bool:
        """Equality of two forms: the family's decision."""

    def to_json(self) -> dict:
        """The form as JSON data (exact numbers as strings)."""

    def fingerprint(self) -> str:
        """First 16 hex digits of the SHA-256 of the canonical JSON (stable across runs)."""


def json_fingerprint(data: dict) -> str:
    """First 16 hex digits of the SHA-256 of *data* as canonical JSON (sorted keys, no spaces).

    Parameters
    ----------
    data : dict
        JSON data (as returned by a ``to_json`` method).

    Returns
    -------
    str
        16 lowercase hex digits.
    """
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]
