"""Builder of ``symmetry_path`` certificates (schema: :mod:`semialgebraic.verify.symmetry_path`)."""

from __future__ import annotations

from typing import Sequence

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network
from algebra.symmetries import path_to_json
from ._json import embed_network

__all__ = ["symmetry_path_certificate"]


def symmetry_path_certificate(a: Network, b: Network, steps: Sequence, *, orthant: bool = False,
                              checkpoints: Sequence[str] | None = None,
                              keep_networks: bool = False) -> dict:
    """Certificate that the symmetry *steps* (``algebra.symmetries`` step objects, or their JSON
    forms) carry *a* exactly to *b*, so that they compute the same function on R^d (or on the
    closed orthant with *orthant*).  *checkpoints*: the digest of the network after each step
    (:func:`semialgebraic.verify.symmetry_path.network_digest`), optional.  *keep_networks*:
    keep *a* and *b* as the :class:`Network` objects (an in-process check takes them as they
    are; :func:`write_certificate` puts their arrays in the binary sidecar) instead of their JSON.

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> c = symmetry_path_certificate(a, a, [])
    >>> c["claim"], c["domain"], c["steps"]
    ('a and b compute the same function', None, [])
    """
    steps = list(steps)
    js = steps if all(isinstance(s, dict) for s in steps) else path_to_json(steps)
    cert = {**header("symmetry_path"), "claim": CLAIMS["symmetry_path"][1 if orthant else 0],
            "domain": {"orthant": True} if orthant else None,
            "a": a if keep_networks else embed_network(a),
            "b": b if keep_networks else embed_network(b), "steps": js}
    if checkpoints is not None:
        cert["checkpoints"] = list(checkpoints)
    return cert
