"""Checker of ``symmetry_report`` certificates: the parameters that ``symmetries`` and ``fiber``
list for a network (symmetric copies, the representatives of the fiber's components) compute
its function, and its identifiability verdict holds.

Schema (version 1; built by :func:`semialgebraic.certificates.symmetry_report_certificate`)::

    {"format": "netfibers.certificate", "type": "symmetry_report",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "every listed parameter computes the network's function ...",
     "network": <network>,
     "domain": null | {"orthant": true},     # R^d, or the closed orthant (`fiber --orthant`)
     "copies": [<certificate>, ...],          # one per listed parameter (b), a = network
     "identifiability": null | <certificate>} # identify's certificate of the same network

Each entry of ``copies`` is a ``symmetry_path`` certificate (any of its three claims: equality,
on the orthant, or equality with b outside a's S1 + S2 orbit) or a ``region_cover`` certificate,
whose ``a`` must be exactly ``network`` and whose domain must be ``domain`` (a ``region_cover``
on R^d or the orthant only: a box proves less than the fiber's equality). ``identifiability``, when
not null, is an ``identifiability_hypotheses`` certificate of ``network`` or a ``symmetry_path``
certificate of its third claim ("not identifiable") with ``a`` = ``network`` on R^d. Every inner
certificate is re-checked by its own checker (:func:`semialgebraic.verify.verify`). Then every
listed b computes the network's function on the domain, those claimed outside the S1 + S2 orbit
are outside it, and the identifiability claim holds (relative to the result its own claim names).

What it does not prove: that the listing is complete (no other component, no other symmetry):
that rests on the theorems the report cites (the fiber theorems of three-layer bottlenecks and
of one hidden layer, see docs/math), whose hypotheses the ``identifiability_hypotheses`` checker
re-derives. Every key is checked; others are
refused.  Imports ``algebra`` only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS, check_header

from . import verify

__all__ = ["check"]

_COPIES = ("symmetry_path", "region_cover")
_MAX_COPIES = 10_000


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "symmetry_report")
    net = network_from_dict(cert["network"], source="certificate[network]")
    domain = cert["domain"]
    if domain is not None and not (isinstance(domain, dict) and set(domain) == {"orthant"}
                                   and domain["orthant"] is True):
        raise InputError(f"unknown domain {domain!r} (expected null or {{'orthant': true}})"[:200])
    copies = cert["copies"]
    if not isinstance(copies, list) or len(copies) > _MAX_COPIES:
        raise InputError(f"copies must be a list of at most {_MAX_COPIES} certificates")
    outside = 0
    for k, inner in enumerate(copies):
        if not isinstance(inner, dict) or inner.get("type") not in _COPIES:
            raise InputError(f"copies[{k}] must be a {' or '.join(_COPIES)} certificate")
        if "a" not in inner or "b" not in inner:
            raise InputError(f"copies[{k}] lacks 'a' or 'b'")
        if network_from_dict(inner["a"], source=f"certificate[copies][{k}][a]") != net:
            return False, f"copies[{k}]: its a is not the network"
        if inner.get("domain") != domain:
            return False, (f"copies[{k}]: its domain {inner.get('domain')!r} is not the report's "
                           f"{domain!r}")[:300]
        ok, why = verify(inner)
        if not ok:
            return False, f"copies[{k}]: the {inner['type']} certificate is invalid: {why}"
        outside += inner["type"] == "symmetry_path" and inner["claim"] == CLAIMS["symmetry_path"][2]
    ident = cert["identifiability"]
    said = ""
    if ident is not None:
        ok, why = _identifiability(ident, net)
        if not ok:
            return False, why
        said = f"; identifiability: {why}"
    where = "on the closed orthant" if domain is not None else "on R^d"
    beyond = f" ({outside} of them proven outside its S1 + S2 orbit)" if outside else ""
    return True, (f"{len(copies)} listed parameter(s) compute the network's function {where}"
                  f"{beyond}{said}")


def _identifiability(inner, net) -> tuple[bool, str]:
    """The identifiability part: identify's certificate of *net*, re-checked."""
    kind = inner.get("type") if isinstance(inner, dict) else None
    if kind == "identifiability_hypotheses":
        if "network" not in inner:
            raise InputError("the identifiability certificate lacks 'network'")
        if network_from_dict(inner["network"], source="certificate[identifiability][network]") != net:
            return False, "the identifiability certificate is about another network"
    elif kind == "symmetry_path":
        if "a" not in inner:
            raise InputError("the identifiability certificate lacks 'a'")
        if inner.get("claim") != CLAIMS["symmetry_path"][2]:
            return False, ("the identifiability symmetry_path certificate does not claim 'not "
                           "identifiable'")
        if network_from_dict(inner["a"], source="certificate[identifiability][a]") != net:
            return False, "the identifiability certificate's a is not the network"
    else:
        raise InputError("identifiability must be null, an identifiability_hypotheses or a "
                         "symmetry_path certificate")
    ok, why = verify(inner)
    if not ok:
        return False, f"the identifiability certificate is invalid: {why}"
    return True, why
