"""JSON form of exact objects, and the atomic certificate writer (shared by the builders).

**Sidecars.**  A certificate embedding a network with at least :data:`SIDECAR_THRESHOLD`
weights is written as two files: the JSON, and next to it ``<name>.payload.npz`` holding the
exact weight matrices of those networks as int64 arrays (``N`` with ``W == N / den``; ``den``
is written in the JSON as a decimal string, a power of two for weights read from float files).
The JSON names the sidecar and the SHA-256 of its bytes::

    "sidecar": {"file": "cert.payload.npz", "sha256": "<64 hex>"}

and each moved weight becomes ``{"$sidecar": "<array key>", "den": "<int>"}``.  ``netfibers
verify CERT`` reads the sidecar next to the JSON, checks the digest first and rebuilds the
networks exactly (:func:`semialgebraic.verify.resolve_sidecar`); a missing, truncated or altered
sidecar is a malformed certificate.  Smaller certificates stay one JSON file.  A weight matrix
whose integers do not fit in int64 stays in the JSON.

Blocks (``absorption`` certificates) use the same sidecar: a :class:`~algebra.blocks.Block` or
:class:`~algebra.blocks.BlockStack` with at least :data:`SIDECAR_THRESHOLD` matrix entries is
kept as the object by the builder (:func:`embed_block`), and each of its matrices (``w_up``,
``w_down``, ``w_gate``, a matrix ``skip``) becomes ``{"$sidecar": "<key>", "den": "<int>"}``
in the JSON; biases stay JSON numbers.  ``resolve_sidecar`` rebuilds the block exactly.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

from algebra.io.native import write_atomic
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q, q_json

__all__ = ["jsonable", "write_certificate", "pack_certificate", "embed_network", "embed_block", "SIDECAR_THRESHOLD"]

SIDECAR_THRESHOLD = 100_000
"""Networks with at least this many weight entries go to the binary sidecar."""

SIDECAR_THRESHOLD_BY_TYPE = {"bab_bound": 2_000}
"""Smaller thresholds per certificate type (``bab_bound``: its two networks are most of it)."""


def embed_network(net: Network):
    """What a builder puts in a certificate for *net*: its JSON dict, or for a network with at
    least :data:`SIDECAR_THRESHOLD` weights the :class:`Network` itself (its exact arrays go to
    the sidecar in :func:`write_certificate`; ``network_from_dict`` accepts it as it is)."""
    if sum(r * c for r, c in net._shapes) >= SIDECAR_THRESHOLD:
        return net
    return net.to_dict()


def _block_entries(block) -> int:
    """Number of matrix entries of a Block or BlockStack (0 for anything else)."""
    from algebra.blocks import Block, BlockStack
    if isinstance(block, BlockStack):
        return sum(_block_entries(b) for b in block.blocks)
    if not isinstance(block, Block):
        return 0
    n = 2 * block.d * block.k + (block.d * block.k if block.gated else 0)
    return n + (0 if isinstance(block.skip, str) else block.d * block.d)


def embed_block(block):
    """What a builder puts in a certificate for *block*: its JSON dict, or for a Block or
    BlockStack with at least :data:`SIDECAR_THRESHOLD` matrix entries the object itself (its
    matrices go to the sidecar in :func:`write_certificate`; the checker takes it as it is)."""
    if isinstance(block, dict) or _block_entries(block) < SIDECAR_THRESHOLD:
        return block if isinstance(block, dict) else block.to_dict()
    return block


def jsonable(obj: Any, keep_networks: bool = False) -> Any:
    """Convert exact objects (fmpq, Fraction, QMatrix, Network, tuples, objects with
    ``to_json``/``to_dict``) into JSON-able data; rationals become ints or ``"p/q"``.  With
    *keep_networks*, :class:`Network` objects are kept as they are (for an in-process check:
    ``network_from_dict`` takes them, and a large network is not written out and re-parsed)."""
    if keep_networks:
        return _keep(obj)
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, Q):
        return q_json(obj)
    if isinstance(obj, Fraction):
        return obj.numerator if obj.denominator == 1 else f"{obj.numerator}/{obj.denominator}"
    if isinstance(obj, QMatrix):
        return obj.to_json()
    if isinstance(obj, Network):
        return obj.to_dict()
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and all(type(v) is int or type(v) is str for v in obj):
        return list(obj)                  # rows of an already exported matrix: no recursion
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in obj]
    if hasattr(obj, "to_json"):
        return jsonable(obj.to_json())
    if hasattr(obj, "to_dict"):
        return jsonable(obj.to_dict())
    if hasattr(obj, "__index__"):
        return int(obj)
    raise TypeError(f"cannot put a {type(obj).__name__} into JSON")


def _keep(obj: Any) -> Any:
    if isinstance(obj, Network) or _block_entries(obj):
        return obj
    if isinstance(obj, dict):
        return {str(k): _keep(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and obj and any(isinstance(v, (Network, dict, list, tuple))
                                                      for v in obj):
        return [_keep(v) for v in obj]
    return jsonable(obj)


def write_certificate(cert: dict, path: str | Path, *, threshold: int | None = None) -> None:
    """Write a certificate atomically as JSON, with a binary sidecar for large networks (see the
    module docstring); the sidecar is written first, so the JSON never names a missing file.
    *threshold*: the number of weights from which a network object goes to the sidecar
    (default :data:`SIDECAR_THRESHOLD_BY_TYPE` of the type, else :data:`SIDECAR_THRESHOLD`; batch
    dedup uses a lower one).  *cert* may also be the
    :func:`pack_certificate` of a certificate (made where it was built, e.g. on a worker)."""
    path = Path(path)
    body, data = cert["$packed"] if "$packed" in cert else pack_certificate(cert, threshold)["$packed"]
    if data is not None:
        import hashlib
        name = path.name + ".payload.npz" if path.suffix.lower() != ".json" else \
            path.stem + ".payload.npz"
        write_atomic(path.with_name(name), data)
        body = {**body, "sidecar": {"file": name, "sha256": hashlib.sha256(data).hexdigest()}}
    write_atomic(path, json.dumps(body, indent=1) + "\n")


def pack_certificate(cert: dict, threshold: int | None = None) -> dict:
    """``{"$packed": (JSON body, sidecar bytes or None)}``: what :func:`write_certificate` writes,
    as plain data (a JSON-able body and the bytes of the ``.npz`` sidecar), so a certificate
    built on a Dask worker travels back without pickled networks."""
    if threshold is None:
        threshold = min(SIDECAR_THRESHOLD_BY_TYPE.get(cert.get("type"), SIDECAR_THRESHOLD),
                        SIDECAR_THRESHOLD)
    arrays: dict = {}
    body = jsonable(_split(cert, arrays, "", threshold))
    if not arrays:
        return {"$packed": (body, None)}
    import io
    import numpy as np
    buf = io.BytesIO()
    np.savez(buf, **arrays)
    return {"$packed": (body, buf.getvalue())}


def _split(obj: Any, arrays: dict, where: str, limit: int) -> Any:
    """*obj* with the weights of large networks replaced by sidecar references (into *arrays*)."""
    if isinstance(obj, Network):
        if sum(r * c for r, c in obj._shapes) < limit:
            return obj.to_dict()
        d = {"format": "netfibers.network", "version": 1, "activation": "relu",
             "inputs": obj.n_inputs, "layers": []}
        for l in range(obj.depth):
            key = f"{where or 'network'}.{l}"
            ref = _weight_arrays(obj, l)
            if ref is None:
                weight = obj.layer(l)[0].to_json()
            else:
                arrays[key] = ref[0]
                weight = {"$sidecar": key, "den": str(ref[1])}
            d["layers"].append({"weight": weight, "bias": [q_json(x) for x in obj.biases[l]]})
        return d
    if _block_entries(obj):
        return _split_block(obj, arrays, where or "block")
    if isinstance(obj, dict):
        if obj.get("format") == "netfibers.network" and isinstance(obj.get("layers"), list):
            n = sum(len(L.get("weight", [])) * len((L.get("weight") or [[]])[0])
                    for L in obj["layers"] if isinstance(L, dict) and isinstance(L.get("weight"), list))
            if n >= limit:
                try:
                    from algebra.io.native import network_from_dict
                    return _split(network_from_dict(obj), arrays, where, limit)
                except Exception:        # not a valid network: written as it is
                    return obj
        return {k: _split(v, arrays, f"{where}.{k}" if where else str(k), limit) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and obj and isinstance(obj[0], (dict, Network, list, tuple)):
        return [_split(v, arrays, f"{where}[{i}]", limit) for i, v in enumerate(obj)]
    return obj


def _split_block(block, arrays: dict, where: str) -> dict:
    """The JSON dict of a Block or BlockStack with its large matrices as sidecar references."""
    from algebra.blocks import BlockStack
    if isinstance(block, BlockStack):
        members = [_split_block(b, arrays, f"{where}.blocks[{i}]") for i, b in enumerate(block.blocks)]
        for m in members:
            del m["format"], m["version"]
        return {"format": "netfibers.block", "version": 1, "blocks": members}
    out = {"format": "netfibers.block", "version": 1, "activation": block.activation.name}
    for name in ("w_up", "w_down", "w_gate", "skip"):
        view = block.integer_matrix(name) if name in ("w_up", "w_down") or (
            name == "w_gate" and block.gated) else None
        if view is not None and view.N.size >= min(1024, SIDECAR_THRESHOLD):
            arrays[f"{where}.{name}"] = view.N     # the whole int64 array, no entry-by-entry pass
            out[name] = {"$sidecar": f"{where}.{name}", "den": str(view.den)}
            continue
        m = getattr(block, name)
        if m is None or isinstance(m, str):
            if m is not None:
                out[name] = m
            continue
        ref = _matrix_arrays(m) if m.nrows * m.ncols >= min(1024, SIDECAR_THRESHOLD) else None
        if ref is None:
            out[name] = m.to_json()
        else:
            arrays[f"{where}.{name}"] = ref[0]
            out[name] = {"$sidecar": f"{where}.{name}", "den": str(ref[1])}
    for name in ("b_up", "b_down", "b_gate"):
        v = getattr(block, name)
        if v is not None:
            out[name] = [q_json(x) for x in v]
    return out


def _matrix_arrays(m: QMatrix):
    """``(N int64 array, den)`` with ``m == N / den``, or None when the integers do not fit."""
    import numpy as np
    N, D = m.numer_denom()
    try:
        arr = np.array(N.tolist(), dtype=np.int64)
    except OverflowError:
        return None
    return arr.reshape(m.nrows, m.ncols), int(D)


def _weight_arrays(net: Network, l: int):
    """``(N int64 array, den)`` with ``W_l == N / den``, or None when the integers do not fit."""
    import numpy as np
    hint = net.integer_weights(l)
    if hint is not None:
        return np.ascontiguousarray(hint[0], dtype=np.int64), int(hint[1])
    N, D = net.layer(l)[0].numer_denom()
    rows = N.tolist()
    limit = 2 ** 63 - 1
    if any(abs(int(v)) > limit for r in rows for v in r):
        return None
    return np.array([[int(v) for v in r] for r in rows], dtype=np.int64).reshape(N.nrows(), N.ncols()), int(D)
