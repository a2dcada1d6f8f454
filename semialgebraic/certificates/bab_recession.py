"""Builder of ``bab_recession`` certificates (schema: :mod:`semialgebraic.verify.bab_recession`):
``sup |a − b|`` on an unbounded domain is +∞ (a ray) or at most ``upper`` (three-layer-fibers
R28: the biases-free ``a − b`` is 0 on the recession cone, a ``bab_bound`` certificate; R29: a and
b of the same weights or stable tail cells, a ``bab_bound`` certificate on a body and a cover of the tail;
a and b pruned at one hidden layer: two constants)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ._json import embed_network, jsonable

__all__ = ["bab_recession_certificate"]


def bab_recession_certificate(a: Network, b: Network, domain, *, ray=None, cone=None,
                              decomposition=None, upper=None, lower=None, point=None,
                              output=None, body=None, tail=None, constant=None) -> dict:
    """With *ray* ``{"x0", "direction", "t1", "output"}``: the claim ``sup = +∞``; with *cone*
    (the ``bab_bound`` certificate of ``max |a_0 − b_0| <= 0`` on ``C ∩ [−1, 1]^d``),
    *decomposition* (the box ``B_q``) and *upper*: ``sup <= upper``; with *body* (the
    ``bab_bound`` certificate on the domain's part ``‖x‖∞ <= R``), *tail* (``{"radius": R,
    "faces": [...], "bound": t}``, R29: same weights, or stable cells; or three-layer-fibers
    R33's ``{"kind": "homogenised", "radius": R, "faces": [{"i", "sign", "M", "certificate"} |
    {"i", "sign", "empty"} |
    null], "bound": t}``) and *upper*: ``sup <=
    upper`` too; with *constant* (the hidden layer at which a and b both have width 0: each is
    a constant), *upper*, *lower* and *point*: ``sup <= upper`` too; otherwise only ``>= lower``
    at *point*.  *domain* is a :class:`~algebra.kernel.domains.Domain`."""
    claims = CLAIMS["bab_recession"]
    claim = claims[0] if ray is not None else claims[1] if (cone is not None or body is not None
                                                             or constant is not None) else claims[2]
    cert = {**header("bab_recession"), "claim": claim, "a": embed_network(a),
            "b": embed_network(b), "domain": domain.to_json()}   # (large: sidecar; to_dict took
    # 2.8 s of a 784-1024-1024-10 pair past diff --orthant's --timeout, s50)
    if ray is not None:
        cert["ray"] = jsonable(ray)
    if cone is not None:
        cert.update({"cone": cone, "decomposition": jsonable([[lo, hi] for lo, hi in decomposition]),
                     "upper": jsonable(upper)})
    if body is not None:
        cert.update({"body": body, "tail": jsonable(tail), "upper": jsonable(upper)})
    if constant is not None:
        cert.update({"constant": {"layer": constant}, "upper": jsonable(upper)})
    if point is not None:
        cert.update({"lower": jsonable(lower), "point": jsonable(list(point))})
        if output is not None:
            cert["output"] = output
    return cert
