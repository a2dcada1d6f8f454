"""Builder of ``conservation_laws`` certificates (schema: :mod:`semialgebraic.verify.conservation_laws`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.linalg import PRIME_61
from algebra.network import Network

from ._json import embed_network, jsonable

__all__ = ["conservation_laws_certificate"]


def _expr(e):
    """A bracket expression of :mod:`algebra.conservation.jets` as JSON: ``{"g": [[p, rows], …]}``
    (a generator: Σ_p Σ_{i,o} rows[i][o] ∇θ f_o(x_i; θ) with the masks of sample p) or ``{"b":
    [X, E]}`` (the bracket [X, E])."""
    if e[0] == "g":
        return {"g": [[int(p), [[int(v) for v in r] for r in A.to_rows()]] for p, A in e[1]]}
    return {"b": [_expr(e[1]), _expr(e[2])]}


def conservation_laws_certificate(net: Network, res, witnesses: dict | None = None) -> dict | None:
    """Certificate of the interval [len(laws), upper] of a :class:`~algebra.conservation.Laws`
    *res* (None when its upper bound rests on brackets of the polynomial phase, which are not
    recorded): the samples, the listed laws (polynomials; their identities are re-derived), the
    prime and the jet brackets whose batches raised the rank at θ.  Laws certified by Frobenius
    without a formula (``res.implicit``) are not in it: the certified lower bound is the number
    of listed laws.  *witnesses*: a point of each region sample's region, by pattern (its
    ``witness``: the checker re-derives the pattern there, so that a sample is a region the
    network has, s47 conserved audit F1)."""
    if res.poly_brackets:
        return None
    samples = []
    for s in res.samples:
        e = {"pattern": [int(v) for v in s.pattern],
             "points": None if s.points is None else [[jsonable(v) for v in x] for x in s.points]}
        x = (witnesses or {}).get(tuple(int(v) for v in s.pattern)) if s.points is None else None
        if x is not None:
            e["witness"] = [jsonable(v) for v in x]
        samples.append(e)
    return {**header("conservation_laws"), "claim": CLAIMS["conservation_laws"][0],
            "network": embed_network(net), "samples": samples,
            "laws": [{"name": law.name, "polynomial": law.text} for law in res.laws],
            "prime": int(res.prime or PRIME_61), "lower": len(res.laws), "upper": int(res.upper),
            "brackets": [_expr(e) for e in res.brackets]}
