"""Checker of ``counterexample`` certificates: a(x) != b(x) at an exact input.

Schema (version 1; built by :func:`semialgebraic.certificates.counterexample_certificate`)::

    {"format": "netfibers.certificate", "type": "counterexample",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "a(x) != b(x)" | "a and b have different signatures",
     "a": <network>, "b": <network>,
     "x": [x_0, ..., x_{d-1}],          # exact input (JSON int or "p/q")
     "a_x": [..], "b_x": [..],          # the exact outputs a(x), b(x)
     "domain": {"box": [lo, hi]} | {"box": [[lo_0, hi_0], ...]} | {"orthant": true}
               | {"lo": [lo_i | null], "hi": [hi_i | null], "halfspaces": [{"a": [...], "b": b}]}
                                        (optional: x lies in it; the second form is a box
                                         with its own sides, one interval per input; the
                                         last a box with open sides ∩ {a·x <= b})}

``a``, ``b``: native network dicts.  With equal signatures (inputs, outputs) the claim is
``"a(x) != b(x)"``: the checker recomputes both outputs exactly, compares them with the claimed
``a_x``, ``b_x``, checks that they differ and that ``x`` lies in the domain when one is given.
With different signatures the networks differ as functions whatever the point: the claim is
``"a and b have different signatures"`` and ``x``, ``a_x``, ``b_x``, ``domain`` must be absent
(nothing there could be checked).  Every key is checked; others are refused.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.kernel.domains import Domain

__all__ = ["check"]


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "counterexample")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        extra = [k for k in ("x", "a_x", "b_x", "domain") if k in cert]
        if extra:
            raise InputError(f"networks with different signatures have no common input: "
                             f"{', '.join(extra)} cannot be checked")
        if cert["claim"] != CLAIMS["counterexample"][1]:
            return False, f"the claim {cert['claim']!r} is not the one of different signatures"
        return True, f"the networks have different signatures {a.signature} and {b.signature}"
    if cert["claim"] != CLAIMS["counterexample"][0]:
        return False, f"a and b have the same signature {a.signature}: the claim must be 'a(x) != b(x)'"
    for key in ("x", "a_x", "b_x"):
        if key not in cert:
            raise InputError(f"counterexample certificate lacks {key!r}")
    x = parse_vector(cert["x"], "x", length=a.n_inputs)
    ax = parse_vector(cert["a_x"], "a_x", length=a.n_outputs)
    bx = parse_vector(cert["b_x"], "b_x", length=b.n_outputs)
    where = ""
    if "domain" in cert and cert["domain"] is not None:
        ok, why = _in_domain(x, cert["domain"])
        if not ok:
            return False, why
        where = " in the domain"
    ra, rb = a(x), b(x)
    if list(ra) != ax:
        return False, "claimed a(x) is not the exact value of a at x"
    if list(rb) != bx:
        return False, "claimed b(x) is not the exact value of b at x"
    if ra == rb:
        return False, "a(x) equals b(x): not a counterexample"
    return True, f"a(x) != b(x) at the given exact input{where}"


def _in_domain(x, domain) -> tuple[bool, str]:
    if isinstance(domain, dict) and ("lo" in domain or "hi" in domain or "halfspaces" in domain):
        if Domain.from_certificate(domain, len(x)).contains(x):     # box ∩ half-spaces
            return True, "in the domain"
        return False, "x lies outside the claimed domain (its box or a half-space)"
    if not isinstance(domain, dict) or len(domain) != 1 or domain.get("orthant", True) is not True:
        raise InputError(f"domain must be {{'box': [lo, hi]}} or {{'orthant': true}}, got {domain!r}")
    if "box" in domain:
        box = domain["box"]
        if isinstance(box, list) and box and all(isinstance(p, list) for p in box):
            # a box with its own sides: one interval per coordinate
            if len(box) != len(x) or not all(len(p) == 2 for p in box):
                raise InputError(f"domain.box must hold {len(x)} intervals [lo, hi]")
            sides = [tuple(parse_number(v, "domain.box") for v in p) for p in box]
        elif not isinstance(box, list) or len(box) != 2:
            raise InputError(f"domain.box must be a list [lo, hi], got {box!r}")
        else:
            sides = [tuple(parse_number(v, "domain.box") for v in box)] * len(x)
        if all(lo <= v <= hi for v, (lo, hi) in zip(x, sides)):
            return True, "in box"
        return False, "x lies outside the claimed box"
    if domain.get("orthant"):
        if all(v >= 0 for v in x):
            return True, "in orthant"
        return False, "x lies outside the closed orthant"
    raise InputError(f"unknown domain {domain!r}")
