"""Builder of ``bab_cover`` certificates (schema: :mod:`semialgebraic.verify.bab_cover`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ._json import jsonable

__all__ = ["bab_cover_certificate"]


def bab_cover_certificate(a: Network, b: Network, box, cells, upper, lower=None, point=None,
                          output=None) -> dict:
    """Certificate of ``max_o max_{x in box} |a_o − b_o| <= upper`` from *cells*: ``bab_bound``
    certificates (upper-bound claims) whose boxes cover *box*; with *point*, also ``>= lower``.

    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> c = bab_cover_certificate(a, a, [(0, 1)], [], 0)
    >>> c["type"], c["box"], c["upper"]
    ('bab_cover', [[0, 1]], 0)
    """
    cert = {**header("bab_cover"), "claim": CLAIMS["bab_cover"][0],
            "a": a.to_dict(), "b": b.to_dict(), "box": jsonable([[lo, hi] for lo, hi in box]),
            "upper": jsonable(upper), "cells": list(cells)}
    if point is not None:
        cert.update({"lower": jsonable(lower), "point": jsonable(list(point))})
        if output is not None:
            cert["output"] = output
    return cert
