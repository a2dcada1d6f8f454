"""Independent checker of certificates: ``verify(cert) -> (ok, reason)``.

Rule: the modules of this package import ``algebra`` (and each other) only, never the modules
that decide (shallow, bottleneck, equivalence, absorption, …).  A test enforces it.  Each
certificate type has one checker module here; the dispatcher picks it by ``cert["type"]``.

Every certificate carries the common header of :mod:`algebra.kernel.certificate_schemas`
(``format``, ``type``, ``schema_version``, ``netfibers_version``); each checker refuses a missing or
unknown schema version and any key its schema does not define (malformed).  The builders are in
:mod:`semialgebraic.certificates` (one per type; the table of the types is there).

Malformed certificates raise :class:`algebra.exceptions.InputError` (CLI exit 2); a well-formed
certificate whose claim does not hold returns ``(False, reason)`` (exit 1).
"""

from __future__ import annotations

import importlib
from typing import Any

from algebra.exceptions import InexactInputError, InputError, ParseError

__all__ = ["verify", "CHECKERS", "check_inputs_match"]

# type -> module under semialgebraic.verify providing ``check(cert) -> (bool, str)``
CHECKERS = {
    "counterexample": "counterexample",
    "symmetry_path": "symmetry_path",
    "region_cover": "region_cover",
    "absorption": "absorption",
    "identifiability_hypotheses": "identifiability",
    "functional_dimension": "functional_dimension",
    "exercise": "exercise",
    "bab_bound": "bab_bound",
}


def verify(cert: Any) -> tuple[bool, str]:
    """Re-check a certificate from its content alone.

    Returns ``(True, reason)`` when the claim holds, ``(False, reason)`` when it is broken.
    """
    if not isinstance(cert, dict):
        raise InputError("a certificate is a JSON object")
    if cert.get("format", "netfibers.certificate") != "netfibers.certificate":
        raise InputError(f"format is {cert.get('format')!r}, expected 'netfibers.certificate'")
    kind = cert.get("type")
    if not isinstance(kind, str) or kind not in CHECKERS:
        raise InputError(f"unknown certificate type {kind!r} (known: {', '.join(sorted(CHECKERS))})")
    module = importlib.import_module(f"{__name__}.{CHECKERS[kind]}")
    try:
        return module.check(cert)
    except InputError:
        raise
    except (ParseError, InexactInputError) as exc:   # a number that is not one: malformed
        raise InputError(f"malformed certificate: {exc}") from None


def check_inputs_match(cert: dict, inputs: dict[str, Any]) -> tuple[bool, str]:
    """Check that the certificate's embedded inputs equal the given objects exactly.

    *inputs* maps certificate keys (e.g. ``"a"``, ``"b"``, ``"block"``) to loaded objects
    (Networks or blocks); each is compared with the embedded dict parsed the same way.
    """
    from algebra.io.native import network_from_dict
    for key, obj in inputs.items():
        if key not in cert:
            return False, f"certificate has no embedded input {key!r}"
        emb = cert[key]
        if isinstance(emb, dict) and emb.get("format") == "netfibers.block":
            from algebra.io.blocks import block_from_dict
            parsed = block_from_dict(emb, source=f"certificate[{key}]")
        else:
            parsed = network_from_dict(emb, source=f"certificate[{key}]")
        if parsed != obj:
            return False, f"embedded input {key!r} differs from the given file"
    return True, "embedded inputs equal the given files"
