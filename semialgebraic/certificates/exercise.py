"""Builder of ``exercise`` certificates (schema: :mod:`semialgebraic.verify.exercise`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ._json import jsonable

__all__ = ["exercise_certificate"]


def exercise_certificate(net: Network, proof: dict) -> dict:
    """Certificate that parameter ``proof["parameter"]`` of *net* is never exercised on the
    proof's domain: *proof* is the proof of :func:`semialgebraic.dimension.jacobian_columns.exercise`
    (``Exercise.proof``) or an ``["free", k, proof]`` entry's proof of a
    ``functional_dimension`` certificate.

    >>> net = Network.from_rows([[[1]], [[0]]], [[0], [0]])
    >>> c = exercise_certificate(net, {"parameter": 0, "trivial": "zero outgoing weights"})
    >>> c["type"], c["proof"]["parameter"]
    ('exercise', 0)
    """
    if not isinstance(proof, dict) or "parameter" not in proof:
        raise ValueError("the proof is a dict naming its 'parameter'")
    return {**header("exercise"), "claim": CLAIMS["exercise"][0], "network": net.to_dict(),
            "proof": jsonable(proof)}
