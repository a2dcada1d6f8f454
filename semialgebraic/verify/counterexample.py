"""Checker of ``counterexample`` certificates: a(x) != b(x) at an exact input.

Format::

    {"format": "netfibers.certificate", "type": "counterexample", "claim": "a(x) != b(x)",
     "a": <network>, "b": <network>, "x": [..], "a_x": [..], "b_x": [..],
     "domain": {"box": [lo, hi]} | {"orthant": true}   (optional)}

The checker recomputes both outputs exactly, compares them with the claimed values, checks that
they differ and that x lies in the domain when one is given.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector

__all__ = ["check"]


def check(cert: dict) -> tuple[bool, str]:
    for key in ("a", "b", "x", "a_x", "b_x"):
        if key not in cert:
            raise InputError(f"counterexample certificate lacks {key!r}")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        return True, f"the networks have different signatures {a.signature} and {b.signature}"
    x = parse_vector(cert["x"], "x", length=a.n_inputs)
    ax = parse_vector(cert["a_x"], "a_x", length=a.n_outputs)
    bx = parse_vector(cert["b_x"], "b_x", length=b.n_outputs)
    if "domain" in cert and cert["domain"] is not None:
        ok, why = _in_domain(x, cert["domain"])
        if not ok:
            return False, why
    ra, rb = a(x), b(x)
    if list(ra) != ax:
        return False, "claimed a(x) is not the exact value of a at x"
    if list(rb) != bx:
        return False, "claimed b(x) is not the exact value of b at x"
    if ra == rb:
        return False, "a(x) equals b(x): not a counterexample"
    return True, "a(x) != b(x) at the given exact input"


def _in_domain(x, domain) -> tuple[bool, str]:
    if not isinstance(domain, dict):
        raise InputError("domain must be an object")
    if "box" in domain:
        box = domain["box"]
        if not isinstance(box, list) or len(box) != 2:
            raise InputError(f"domain.box must be a list [lo, hi], got {box!r}")
        lo, hi = (parse_number(v, "domain.box") for v in box)
        if all(lo <= v <= hi for v in x):
            return True, "in box"
        return False, "x lies outside the claimed box"
    if domain.get("orthant"):
        if all(v >= 0 for v in x):
            return True, "in orthant"
        return False, "x lies outside the closed orthant"
    raise InputError(f"unknown domain {domain!r}")
