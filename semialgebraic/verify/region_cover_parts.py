r"""The check of a ``region_cover`` certificate split into independent parts (a distributed
walk checks them on its workers; :func:`semialgebraic.verify.verify_part`).

* ``"cover"`` — the header, the networks, the contractions and reduction steps, and the list of
  patterns (well formed, pairwise distinct); a certificate without regions to walk (a one-point
  domain, a collapsed difference) is checked whole here;
* ``[start, stop]`` — regions ``start .. stop-1``, each exactly as
  :mod:`semialgebraic.verify.region_cover` checks it (rows, interior point, facets complete,
  the neighbour across each facet listed with the right pattern, the value on the region).

The claim holds iff ``"cover"`` and the parts of a partition of the region indices all hold: the
union of the parts is the list of steps of :func:`semialgebraic.verify.region_cover.check`.
Imports ``algebra`` and that checker only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel import difference_network, domain_rows
from algebra.kernel.certificate_schemas import check_header

from . import region_cover as _rc

__all__ = ["check_cover", "check_regions"]

_INT, _SIGNS = frozenset((int,)), frozenset((-1, 0, 1))


def _prepared(cert: dict):
    """``(ok, why, net, lo_hi, patterns)``: D' after the contractions and reductions."""
    check_header(cert, "region_cover")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        return False, "the networks have different signatures", None, None, None
    lo_hi = _rc._parse_domain(cert.get("domain"), a.n_inputs)
    try:
        lo_hi = _rc.tightened_domain(cert, lo_hi)
    except InputError:
        raise
    except ValueError as exc:
        return False, f"bounds: {exc}", None, None, None
    try:
        a, b = _rc.apply_contractions(a, b, cert.get("contract", []), lo_hi)
        net = _rc.apply_reduction(difference_network(a, b), cert.get("reduction", []), lo_hi)
    except InputError:
        raise
    except ValueError as exc:
        return False, f"contract/reduction: {exc}", None, None, None
    regs = cert["regions"]
    if not isinstance(regs, list):
        raise InputError("regions must be a list")
    pats = []
    for r, reg in enumerate(regs):
        pat = reg.get("pattern") if isinstance(reg, dict) and "point" in reg else None
        # JSON integers -1, 0, 1 only (a bool's type is bool, a float's float), in C loops
        if not isinstance(pat, list) or len(pat) != net.n_hidden or \
                not set(map(type, pat)) <= _INT or not set(pat) <= _SIGNS:
            raise InputError(f"region {r}: a pattern of {net.n_hidden} entries in -1/0/1 and a point")
        pats.append(tuple(pat))
    return True, "ok", net, lo_hi, pats


def _whole(cert: dict) -> bool:
    """A certificate checked whole by the ``cover`` part: no regions, or a one-point box."""
    dom = cert.get("domain")
    box = dom.get("box") if isinstance(dom, dict) else None
    return cert.get("regions") == [] or (isinstance(box, list) and len(box) == 2 and box[0] == box[1])


def check_cover(cert: dict) -> tuple[bool, str]:
    """Part ``"cover"`` (module docstring)."""
    if _whole(cert):
        return _rc.check(cert)
    ok, why, _net, _dom, pats = _prepared(cert)
    if ok and len(set(pats)) != len(pats):
        return False, "a pattern is listed twice"
    return ok, why if not ok else f"{len(pats)} distinct patterns of the reduced difference network"


def check_regions(cert: dict, start: int, stop: int) -> tuple[bool, str]:
    """Part ``[start, stop]``: regions ``start <= r < stop`` (module docstring)."""
    if _whole(cert):
        return _rc.check(cert)
    ok, why, net, lo_hi, pats = _prepared(cert)
    if not ok:
        return False, why
    if not 0 <= start <= stop <= len(pats):
        raise InputError(f"no regions {start}..{stop - 1}")
    d = net.n_inputs
    dom = domain_rows(d, lo_hi)
    numbers, layers = _rc._Numbers(), _rc.homogeneous_layers(net)
    for r in range(start, stop):
        ok, why = _rc._check_region(net, r, cert["regions"][r], pats[r], dom, d, net.n_hidden,
                                    pats, len(pats), numbers=numbers, layers=layers)
        if not ok:
            return False, f"region {r}: {why}"
    return True, f"regions {start}..{stop - 1} hold"
