"""Checker of ``on_box`` certificates: a(x) = b(x) on a box with its own sides per coordinate,
proved for the two networks read on the cube ``[-1, 1]^d`` (three-layer-fibers R36).

Schema (version 1; built by :func:`semialgebraic.certificates.on_box_certificate`)::

    {"format": "netfibers.certificate", "type": "on_box",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "a(x) == b(x) for all x in the box (read on the cube, three-layer-fibers R36)",
     "a": <network>, "b": <network>,        # the user's networks
     "box": [[lo_0, hi_0], ...],            # one exact interval per input, lo_i <= hi_i
     "inner": <certificate>}                # a region_cover (or symmetry_path) certificate

With ``c = (lo + hi)/2`` and ``s = (hi - lo)/2`` (per coordinate, exact) the map
``φ: u ↦ c + s ⊙ u`` sends ``[-1, 1]^d`` onto the box (a side of width 0 is the constant
``c_i``: φ is still onto the box, which is all that equality needs).  The checker recomposes
``a' = a∘φ`` and ``b' = b∘φ`` itself with :func:`algebra.kernel.compose_input_map` (first layer
``W1 diag(s)``, bias ``b1 + W1 c``), requires the inner certificate's ``a`` and ``b`` to be
exactly ``a'`` and ``b'``, its domain to contain the cube (a ``region_cover`` on ``{"box": [l,
h]}`` with ``l <= -1 <= 1 <= h`` or on R^d; a ``symmetry_path`` on R^d), and re-checks the inner
certificate with its own checker (:func:`semialgebraic.verify.verify`).  Then ``a'(u) = b'(u)``
for every u in the cube, i.e. ``a(x) = b(x)`` for every x in the box.  Every key is checked;
others are refused.  Imports ``algebra`` only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.kernel import compose_input_map
from algebra.kernel.certificate_schemas import check_header
from algebra.rationals import Q

from . import verify

__all__ = ["check", "read_box"]

_INNER = ("region_cover", "symmetry_path")


def read_box(box, d: int) -> list:
    """``[(lo_i, hi_i)]`` of a JSON box ``[[lo, hi], ...]`` with *d* intervals, exact, lo <= hi
    (:class:`InputError` otherwise: malformed)."""
    if not isinstance(box, list) or len(box) != d or \
            not all(isinstance(p, list) and len(p) == 2 for p in box):
        raise InputError(f"box must be a list of {d} intervals [lo, hi]")
    out = [(parse_number(p[0], "box"), parse_number(p[1], "box")) for p in box]
    for i, (lo, hi) in enumerate(out):
        if lo > hi:
            raise InputError(f"box: coordinate {i}: lower bound {lo} exceeds upper bound {hi}")
    return out


def read_halfspaces(items, d: int) -> list:
    """``[(a, b)]`` of JSON half-spaces ``[{"a": [...], "b": b}, ...]`` (a·x <= b, a of length
    *d*), exact (:class:`InputError` otherwise: malformed)."""
    if not isinstance(items, list):
        raise InputError("halfspaces must be a list")
    cuts = []
    for t, h in enumerate(items):
        if not isinstance(h, dict) or set(h) != {"a", "b"}:
            raise InputError(f"halfspaces[{t}] is {{a, b}}")
        cuts.append((parse_vector(h["a"], f"halfspaces[{t}].a", length=d),
                     parse_number(h["b"], f"halfspaces[{t}].b")))
    return cuts


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "on_box")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        return False, f"a and b have different signatures {a.signature} and {b.signature}"
    box = read_box(cert["box"], a.n_inputs)
    center = [(lo + hi) / 2 for lo, hi in box]
    scale = [(hi - lo) / 2 for lo, hi in box]
    a_u, b_u = compose_input_map(a, center, scale), compose_input_map(b, center, scale)
    inner = cert["inner"]
    if not isinstance(inner, dict) or inner.get("type") not in _INNER:
        raise InputError(f"inner must be a {' or '.join(_INNER)} certificate")
    for key in ("a", "b"):
        if key not in inner:
            raise InputError(f"the inner certificate lacks {key!r}")
    if network_from_dict(inner["a"], source="certificate[inner][a]") != a_u:
        return False, "the inner certificate's a is not a read on the cube (u -> a(c + s * u))"
    if network_from_dict(inner["b"], source="certificate[inner][b]") != b_u:
        return False, "the inner certificate's b is not b read on the cube (u -> b(c + s * u))"
    ok, why = _covers_cube(inner)
    if not ok:
        return False, why
    ok, why = verify(inner)
    if not ok:
        return False, f"the inner {inner['type']} certificate is invalid: {why}"
    return True, (f"{why}; the inner certificate is about a and b read on [-1, 1]^d by x = c + s * u, "
                  "which maps the cube onto the box: a = b on the box (three-layer-fibers R36)")


def _covers_cube(inner: dict) -> tuple[bool, str]:
    """Whether the inner certificate's domain contains ``[-1, 1]^d``."""
    dom = inner.get("domain")
    if dom is None:
        return True, "R^d"
    if inner["type"] == "region_cover" and isinstance(dom, dict) and set(dom) == {"box"} and \
            isinstance(dom["box"], list) and len(dom["box"]) == 2:
        lo, hi = (parse_number(v, "inner.domain.box") for v in dom["box"])
        if lo <= Q(-1) and Q(1) <= hi:
            return True, "a box containing the cube"
    return False, f"the inner certificate's domain {dom!r} does not contain the cube [-1, 1]^d"[:300]
