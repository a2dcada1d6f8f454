"""Builder of ``on_box`` certificates (schema: :mod:`semialgebraic.verify.on_box`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network
from algebra.rationals import to_q

from ._json import embed_network, jsonable

__all__ = ["on_box_certificate"]


def on_box_certificate(a: Network, b: Network, box, inner: dict) -> dict:
    """Certificate that *a* and *b* agree on the box ``∏ [lo_i, hi_i]`` (*box*: ``[(lo_i, hi_i)]``)
    from *inner*, a certificate that ``a∘φ = b∘φ`` on ``[-1, 1]^d`` with ``φ(u) = c + s ⊙ u``
    (c the centre, s the half-widths; three-layer-fibers R36).  The user's networks and box are
    embedded; the checker recomposes ``a∘φ`` and ``b∘φ`` and compares them with *inner*'s.

    >>> from algebra.kernel import compose_input_map
    >>> from semialgebraic.certificates import region_cover_certificate
    >>> a = Network.from_rows([[[1, 0]], [[1]]], [[0], [0]])
    >>> u = compose_input_map(a, [1, 0], [1, 2])                 # the box [0, 2] x [-2, 2]
    >>> c = on_box_certificate(a, a, [(0, 2), (-2, 2)], region_cover_certificate(u, u, domain={"box": [-1, 1]}))
    >>> c["type"], c["box"], c["inner"]["type"]
    ('on_box', [[0, 2], [-2, 2]], 'region_cover')
    """
    return {**header("on_box"), "claim": CLAIMS["on_box"][0],
            "a": embed_network(a), "b": embed_network(b),
            "box": [[jsonable(to_q(lo)), jsonable(to_q(hi))] for lo, hi in box],
            "inner": inner}
