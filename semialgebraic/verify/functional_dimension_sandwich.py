r"""Checker of ``functional_dimension_sandwich`` certificates: bounds of the functional dimension
on a box cut by half-spaces, from a cube inside it and the box around it (three-layer-fibers
R37).

Schema (version 1; built by :func:`semialgebraic.certificates.functional_dimension_sandwich_certificate`
through :func:`semialgebraic.dimension.sandwich.sandwich_certificate`)::

    {"format": "netfibers.certificate", "type": "functional_dimension_sandwich",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "lower <= functional dimension <= upper on the box cut by the half-spaces "
              "(three-layer-fibers R37)",
     "network": <network>,
     "domain": {"box": [[lo_0, hi_0], ...], "halfspaces": [{"a": [...], "b": b}, ...]},
     "lower": r, "upper": u,                    # JSON integers
     "inner": <functional_dimension certificate>,   # optional (left out: lower <= 0); its listed
                                                    # inputs all in the domain, or a
                                                    # one_hidden_layer_dimension one on a box in it
     "outer": <functional_dimension certificate>,   # optional (left out: upper >= N); (or
                                                    # one_hidden_layer_dimension) on a set of
                                                    # inputs containing the box
     "upper_regions": [<region>, ...]}              # optional: the linear regions of the cut
                                                    # domain itself (region_cover format)

What is checked (exact; imports ``algebra`` and other ``verify`` modules only):

1. both parts are ``functional_dimension`` certificates about the same network (the embedded
   networks equal ``network``), each valid by its own checker;
2. every input the inner part lists lies in the domain, read in the user's coordinates (``x =
   c + s ⊙ u`` when its ``domain.input_map`` names a box, the map its own checker composes the
   network with, three-layer-fibers R36): inside the box and ``a·x <= b`` for every half-space;
   an inner ``one_hidden_layer_dimension`` part (a value by R38 on a box) has its box inside
   the domain's box and ``max a·x <= b`` over it (taken at a vertex) for every half-space;
3. the inputs the outer part ranges over (a box, the orthant or R^d) contain the domain's box;
   an outer part on a box cut by half-spaces is refused (its value holds on the cut only, and
   the functional dimension grows with the domain: session-33 verify audit);
4. with ``upper_regions``: the listed regions cover the cut domain (box ∩ half-spaces; the
   code of ``region_cover``, no value claim), and the exact rational rank r of the Jacobian rows
   at every region's point x0 and at x0 + e_k (k < d), taken with the region's masks, over the
   regions that hold differentiable inputs (:func:`semialgebraic.verify.functional_dimension_upper.
   _regions_rank`, the ``upper_regions`` of a box);
5. ``lower <= `` the inner part's certified lower bound, ``upper >= `` the smaller of the outer
   part's certified upper bound (N when it certifies none) and r, ``lower <= upper``.

Why: the functional dimension on D is the largest rank of the Jacobian rows over finite sets
of differentiable inputs in D, so it only grows with D (R37); the inner part's rank is that of
the rows at inputs of the domain (R36 when read on the cube: the same rank), a lower bound; the
outer part bounds it from above on a superset.  On a region of the cut domain the rows are
affine in x, so the rows at x0 and x0 + e_k span every row at its inputs, and a differentiable
input on no open region has the rows of a region it borders: r is the value on the domain
itself.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.kernel.domains import Domain
from algebra.rationals import Q

from . import verify
from .functional_dimension_upper import _regions_rank
from .on_box import read_box, read_halfspaces

__all__ = ["check"]

_PARTS = ("functional_dimension", "one_hidden_layer_dimension")


def _ranged_over(part: dict, d: int):
    """The inputs a ``functional_dimension`` certificate ranges over, in the user's coordinates:
    ``[(lo_i, hi_i)]`` (a side None: open), or None for R^d."""
    dom = part.get("domain")
    if dom is None:
        return None
    if not isinstance(dom, dict):
        raise InputError("a part's domain must be null or an object")
    if dom.get("orthant") is True:
        return [(0, None)] * d
    if "input_map" in dom:                     # the part's checker reads it on the cube [-1, 1]
        imap = dom["input_map"]
        if not isinstance(imap, dict) or set(imap) != {"lo", "hi"}:
            raise InputError("a part's domain.input_map is {lo, hi}")
        lo = parse_vector(imap["lo"], "input_map.lo", length=d)
        hi = parse_vector(imap["hi"], "input_map.hi", length=d)
        return list(zip(lo, hi))
    box = dom.get("box")
    if isinstance(box, list) and len(box) == d and all(isinstance(s, list) for s in box):
        return read_box(box, d)                    # per coordinate (one_hidden_layer_dimension)
    if not isinstance(box, list) or len(box) != 2:
        raise InputError("a part's domain.box is [lo, hi]")
    lo, hi = (parse_number(v, "domain.box") for v in box)
    return [(lo, hi)] * d


def _user_inputs(part: dict, d: int):
    """The map from a part's inputs to the user's inputs: ``x = c + s ⊙ u`` (c, s the centre and
    half-widths of the box its ``domain.input_map`` names; its checker reads the network on the
    cube through the same map, three-layer-fibers R36), else the identity."""
    dom = part.get("domain")
    if isinstance(dom, dict) and "input_map" in dom:
        box = _ranged_over(part, d)
        c = [(lo + hi) / 2 for lo, hi in box]
        s = [(hi - lo) / 2 for lo, hi in box]
        return lambda u: [ci + si * ui for ci, si, ui in zip(c, s, u)]
    return lambda u: list(u)


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "functional_dimension_sandwich")
    if cert["claim"] != CLAIMS["functional_dimension_sandwich"][0]:
        return False, f"the claim {cert['claim']!r} is not this certificate's"
    net = network_from_dict(cert["network"], source="certificate[network]")
    d, N = net.n_inputs, net.n_parameters
    dom = cert["domain"]
    if not isinstance(dom, dict) or set(dom) != {"box", "halfspaces"}:
        raise InputError("domain is {box, halfspaces}")
    box = read_box(dom["box"], d)
    cuts = read_halfspaces(dom["halfspaces"], d)
    lower, upper = cert["lower"], cert["upper"]
    for v in (lower, upper):
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError("lower and upper must be integers")
    parts = {}
    for key in ("inner", "outer"):
        if key not in cert:                # left out: the trivial bound (0 below, N above)
            continue
        part = cert[key]
        if not isinstance(part, dict) or part.get("type") not in _PARTS:
            raise InputError(f"{key} must be a {' or '.join(_PARTS)} certificate")
        if "network" not in part:
            raise InputError(f"the {key} certificate lacks 'network'")
        if network_from_dict(part["network"], source=f"certificate[{key}][network]") != net:
            return False, f"the {key} certificate is about another network"
        parts[key] = _ranged_over(part, d)
    inner = cert.get("inner", {"type": None})
    if inner["type"] == "one_hidden_layer_dimension":   # a value on its box: the box in the domain
        ranged = parts["inner"]
        if ranged is None or any(a is None or z is None for a, z in ranged):
            return False, "the inner certificate's domain is unbounded, not inside the domain"
        if any(a < lo or z > hi for (a, z), (lo, hi) in zip(ranged, box)):
            return False, "the inner certificate's box leaves the domain's box"
        for k, (a, b) in enumerate(cuts):
            top = sum((max(ai * lo, ai * hi) for ai, (lo, hi) in zip(a, ranged)), Q(0))
            if top > b:
                return False, f"the inner certificate's box leaves half-space {k} (max a.x = {top} > {b})"
    elif inner["type"] is not None and not isinstance(inner.get("inputs"), list):
        raise InputError("the inner certificate's inputs must be a list")
    to_user = _user_inputs(inner, d)
    for t, u in enumerate(inner.get("inputs") if inner["type"] == "functional_dimension" else []):
        x = to_user(parse_vector(u, f"inner.inputs[{t}]", length=d))
        if any(v < lo or v > hi for v, (lo, hi) in zip(x, box)):
            return False, f"the inner certificate's input {t} is not in the domain's box"
        for k, (a, b) in enumerate(cuts):
            if sum((ai * v for ai, v in zip(a, x)), Q(0)) > b:
                return False, f"the inner certificate's input {t} is not in half-space {k}"
    outer_domain = cert["outer"].get("domain") if "outer" in cert else None
    if isinstance(outer_domain, dict) and outer_domain.get("halfspaces"):   # (its value grows
        return False, ("the outer certificate holds on its box cut by half-spaces, not on a set "
                       "containing the domain")
    outer = parts.get("outer")
    if outer is not None:
        for i, ((a, b), (lo, hi)) in enumerate(zip(outer, box)):
            if (a is not None and a > lo) or (b is not None and b < hi):
                return False, f"the outer certificate's inputs do not cover the box in coordinate {i}"
    why_in = why_out = "left out: the trivial bound"
    if "inner" in cert:
        ok, why_in = verify(cert["inner"])
        if not ok:
            return False, f"the inner certificate is invalid: {why_in}"
    if "outer" in cert:
        ok, why_out = verify(cert["outer"])
        if not ok:
            return False, f"the outer certificate is invalid: {why_out}"
    inner_lower = (0 if "inner" not in cert else inner["value"]
                   if inner["type"] == "one_hidden_layer_dimension" else inner["lower"])
    if lower > inner_lower:
        return False, f"lower {lower} exceeds the inner certificate's {inner_lower}"
    outer = cert.get("outer")
    certified = (N if outer is None else outer["value"]
                 if outer["type"] == "one_hidden_layer_dimension" else outer.get("upper", N))
    if "upper_regions" in cert:
        cut = Domain([lo for lo, _ in box], [hi for _, hi in box], cuts)
        rank = _regions_rank(net, cert["upper_regions"], cut)
        if isinstance(rank, str):
            return False, rank
        why_out = (f"the {len(cert['upper_regions'])} listed regions cover the domain and the Jacobian "
                   f"rows on them have exact rank {rank}" + ("" if outer is None else f"; {why_out}"))
        certified = min(certified, rank)
    if upper < certified:
        return False, f"upper {upper} is below the certified {certified}"
    if lower > upper:
        return False, f"contradiction: lower {lower} > upper {upper}"
    where = "on the domain's own regions" if "upper_regions" in cert else "on a set containing it"
    return True, (f"lower {lower} at inputs in the domain ({why_in}); upper {upper} {where} "
                  f"({why_out}); the functional dimension only grows with the domain "
                  "(three-layer-fibers R37)" + (f"; exact: {lower}" if lower == upper else ""))
