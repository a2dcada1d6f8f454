"""Builder of ``counterexample`` certificates (schema: :mod:`semialgebraic.verify.counterexample`)."""

from __future__ import annotations

from typing import Any, Sequence

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ._json import embed_network, jsonable

__all__ = ["counterexample_certificate"]


def counterexample_certificate(a: Network, b: Network, x: Sequence[Any] | None = None, *,
                               domain: Any = None) -> dict:
    """Certificate that *a* and *b* differ at the exact input *x* (outputs recomputed here).

    If *domain* (a JSON-able description, e.g. ``{"box": ["-1", "1"]}``) is given, the point
    lies in it.  Networks with different signatures (inputs, outputs) differ everywhere: the
    certificate then holds the two networks only (no point, *x* is ignored).

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> c = counterexample_certificate(a, a.with_parameter("b2[0]", 1), [2])
    >>> c["x"], c["a_x"], c["b_x"], c["schema_version"]
    ([2], [2], [3], 1)
    """
    if a.signature != b.signature:
        return {**header("counterexample"), "claim": CLAIMS["counterexample"][1],
                "a": embed_network(a), "b": embed_network(b)}
    if x is None:
        raise ValueError("a counterexample of networks with equal signatures needs a point x")
    ax, bx = a(x), b(x)
    if ax == bx:
        raise ValueError("the networks agree at this point: not a counterexample")
    cert = {**header("counterexample"), "claim": CLAIMS["counterexample"][0],
            "a": embed_network(a), "b": embed_network(b),
            "x": jsonable(list(x)), "a_x": jsonable(list(ax)), "b_x": jsonable(list(bx))}
    if domain is not None:
        cert["domain"] = jsonable(domain)
    return cert
