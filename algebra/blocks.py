"""Residual, gated, stacked and Hyper-Connection blocks: the inputs of skip absorption.

Conventions (skip-absorption.md §2): column vectors; ``w_up`` is k×d (row i = w_i, the input
weights of hidden unit i), ``w_down`` is d×k (column i = a_i), the skip M is d×d.

* :class:`Block` — x ↦ M x + W_down σ(W_up x + b_up) + b_down (ungated), or
  x ↦ M x + W_down (g(W_gate x + b_gate) ⊙ (W_up x + b_up)) + b_down (gated; ``activation``
  names the gated kind: reglu, geglu, swiglu, glu, bilinear).  M is the identity (``"identity"``),
  any d×d matrix, or absent (``"none"``: a residual-free block).
* :class:`BlockStack` — the composition f_L ∘ … ∘ f_1 of blocks of the same width d.
* :class:`HyperConnectionBlock` — n streams H ∈ R^{n×d} (R17, [Zhu25]):
  H ↦ A_rᵀ H + Bᵀ T((Hᵀ A_m)ᵀ) with A_r n×n, A_m ∈ R^n, B ∈ R^n and T the MLP
  (no skip of its own).  :meth:`HyperConnectionBlock.vectorized` gives the equivalent
  :class:`Block` on vec(H) ∈ R^{nd} (rows of H stacked): skip A_rᵀ ⊗ I_d, up-matrix
  W_up (A_mᵀ ⊗ I_d), down-matrix (B ⊗ I_d) W_down.

Native JSON (``"format": "netfibers.block"``, ``"version": 1``)::

    {"format": "netfibers.block", "version": 1, "activation": "relu",
     "w_up": [[..]], "w_down": [[..]],              # k×d and d×k
     "w_gate": [[..]],                              # gated activations only (k×d)
     "skip": "identity" | "none" | [[..]],          # default "identity"
     "b_up": [..], "b_down": [..], "b_gate": [..]}  # optional biases

    {"format": "netfibers.block", "version": 1, "activation": "relu",   # default for members
     "blocks": [{...block fields...}, ...]}                            # composition, first first

    {"format": "netfibers.block", "version": 1, "activation": "relu",
     "streams": n, "w_up": [[..]], "w_down": [[..]],                   # the MLP T (d -> d)
     "mix_residual": [[..]],        # A_r, n×n
     "mix_read": [..],              # A_m, n entries (stream weights of the MLP input)
     "mix_write": [..]}             # B, n entries (stream weights of the MLP output)

Binary weight files: :func:`block_from_tensors` / :func:`load_block` read the MLP layouts
``up_proj``/``down_proj``/``gate_proj`` (LLaMA: gated), ``fc1``/``fc2`` and
``intermediate.dense``/``output.dense`` (BERT), with their biases when present; the activation
and the skip are options (a state_dict does not say them).

>>> b = Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]])
>>> b.d, b.k, b([1, 2])
(2, 3, (6, 9))
>>> block_from_dict(b.to_dict()) == b
True
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

from .activations import Activation, get_activation
from .exceptions import InputError
from .io.native import parse_matrix, parse_vector, read_json_text
from .linalg import QMatrix
from .rationals import Q, q_json, to_q

__all__ = ["Block", "BlockStack", "HyperConnectionBlock", "block_from_dict", "block_from_tensors",
           "load_block", "BLOCK_FORMAT", "LAYOUTS"]

BLOCK_FORMAT = "netfibers.block"

LAYOUTS = (  # (up key, down key, gate key or None) relative to a common prefix
    ("up_proj", "down_proj", "gate_proj"),
    ("fc1", "fc2", None),
    ("intermediate.dense", "output.dense", None),
)

_BLOCK_KEYS = {"format", "version", "activation", "w_up", "w_down", "w_gate", "skip", "b_up",
               "b_down", "b_gate", "name"}
_HC_KEYS = _BLOCK_KEYS - {"skip"} | {"streams", "mix_residual", "mix_read", "mix_write"}


def _mjson(m: QMatrix) -> list:
    """Rows of JSON numbers (ints or reduced ``"p/q"``), fast for large matrices."""
    num, den = m.numer_denom()
    den = int(den)
    ints = [int(x) for x in num.entries()]
    out = []
    for n in ints:
        g = math.gcd(n, den)
        out.append(n // g if g == den else f"{n // g}/{den // g}")
    c = m.ncols
    return [out[i * c:(i + 1) * c] for i in range(m.nrows)]


def _matrix(m, where: str) -> QMatrix:
    if isinstance(m, QMatrix):
        return m
    rows = [[to_q(x) for x in r] for r in m]
    if not rows or not rows[0]:
        raise InputError("empty matrix", None, where)
    if any(len(r) != len(rows[0]) for r in rows):
        raise InputError("rows of different lengths", None, where)
    return QMatrix.from_rows(rows)


def _vector(v, n: int, where: str) -> tuple[Q, ...] | None:
    if v is None:
        return None
    v = tuple(to_q(x) for x in v)
    if len(v) != n:
        raise InputError(f"expected {n} entries, got {len(v)}", None, where)
    return v


class Block:
    """One block x ↦ M x + W_down σ(W_up x + b_up) + b_down (or its gated form); immutable.

    Parameters
    ----------
    activation : str
        A name of :func:`algebra.activations.get_activation`.
    w_up, w_down : matrices (k×d, d×k), QMatrix or rows of exact numbers.
    skip : ``"identity"`` (default), ``"none"`` or a d×d matrix M.
    w_gate : k×d matrix, required exactly for gated activations.
    b_up, b_down, b_gate : optional bias vectors (None = no bias, which is not the same
        claim as a zero bias only in what the JSON says; both compute the same function).
    """

    __slots__ = ("activation", "w_up", "w_down", "w_gate", "skip", "b_up", "b_down", "b_gate")

    def __init__(self, activation, w_up, w_down, *, skip="identity", w_gate=None, b_up=None,
                 b_down=None, b_gate=None):
        act = get_activation(activation) if not isinstance(activation, Activation) else activation
        w_up = _matrix(w_up, "w_up")
        w_down = _matrix(w_down, "w_down")
        k, d = w_up.shape
        if w_down.shape != (d, k):
            raise InputError(f"w_down has shape {w_down.shape[0]}x{w_down.shape[1]}, expected "
                             f"{d}x{k} (d x k, with w_up of shape {k}x{d})", None, "w_down")
        if act.is_gated:
            if w_gate is None:
                raise InputError(f"activation {act.name!r} is gated: 'w_gate' ({k}x{d}) is required",
                                 None, "w_gate")
            w_gate = _matrix(w_gate, "w_gate")
            if w_gate.shape != (k, d):
                raise InputError(f"w_gate has shape {w_gate.shape[0]}x{w_gate.shape[1]}, expected {k}x{d}",
                                 None, "w_gate")
        elif w_gate is not None:
            raise InputError(f"activation {act.name!r} is not gated but 'w_gate' is given "
                             "(gated: reglu, geglu, swiglu, glu, bilinear)", None, "w_gate")
        if isinstance(skip, str):
            if skip not in ("identity", "none"):
                raise InputError(f"skip must be 'identity', 'none' or a {d}x{d} matrix, got {skip!r}",
                                 None, "skip")
        else:
            skip = _matrix(skip, "skip")
            if skip.shape != (d, d):
                raise InputError(f"skip has shape {skip.shape[0]}x{skip.shape[1]}, expected {d}x{d}",
                                 None, "skip")
        self.activation = act
        self.w_up, self.w_down, self.w_gate, self.skip = w_up, w_down, w_gate, skip
        self.b_up = _vector(b_up, k, "b_up")
        self.b_down = _vector(b_down, d, "b_down")
        self.b_gate = _vector(b_gate, k, "b_gate") if act.is_gated else None
        if b_gate is not None and not act.is_gated:
            raise InputError("'b_gate' given for an ungated activation", None, "b_gate")

    # -- shape and derived data -------------------------------------------------------------
    @property
    def d(self) -> int:
        """Width of the residual stream (input and output dimension)."""
        return self.w_up.ncols

    @property
    def k(self) -> int:
        """Hidden width (number of units)."""
        return self.w_up.nrows

    number_of_units = k

    @property
    def skip_matrix(self) -> QMatrix:
        """M as a d×d matrix (identity, zero for ``"none"``, or the given matrix)."""
        if self.skip == "identity":
            return QMatrix.identity(self.d)
        if self.skip == "none":
            return QMatrix.zeros(self.d, self.d)
        return self.skip

    @property
    def has_biases(self) -> bool:
        """True when any bias vector is given (even an all-zero one)."""
        return any(b is not None for b in (self.b_up, self.b_down, self.b_gate))

    @property
    def has_nonzero_biases(self) -> bool:
        return any(b is not None and any(x != 0 for x in b) for b in (self.b_up, self.b_down, self.b_gate))

    def without_skip(self) -> "Block":
        """The same MLP with skip ``"none"``."""
        return self.replace(skip="none")

    def replace(self, **changes) -> "Block":
        """A copy with some fields replaced (``activation``, ``w_up``, ``skip``, ``b_up`` …)."""
        kw = dict(activation=self.activation, w_up=self.w_up, w_down=self.w_down, skip=self.skip,
                  w_gate=self.w_gate, b_up=self.b_up, b_down=self.b_down, b_gate=self.b_gate)
        kw.update(changes)
        act = kw.pop("activation")
        w_up, w_down = kw.pop("w_up"), kw.pop("w_down")
        return Block(act, w_up, w_down, **kw)

    # -- evaluation -------------------------------------------------------------------------
    def __call__(self, x: Sequence[object]) -> tuple[Q, ...]:
        """Exact value at a rational point (only for rational activations: ReLU, ReLU^p, ReGLU,
        bilinear)."""
        act = self.activation
        if not act.is_rational:
            raise InputError(f"activation {act.name!r} cannot be evaluated exactly; use the "
                             "identities of the theory instead")
        x = [to_q(v) for v in x]
        if len(x) != self.d:
            raise InputError(f"expected a point with {self.d} coordinates, got {len(x)}")
        z = list(self.w_up.apply(x))
        if self.b_up is not None:
            z = [a + b for a, b in zip(z, self.b_up)]
        if act.is_gated:
            g = list(self.w_gate.apply(x))
            if self.b_gate is not None:
                g = [a + b for a, b in zip(g, self.b_gate)]
            h = [act.evaluate(gi) * zi for gi, zi in zip(g, z)]
        else:
            h = [act.evaluate(zi) for zi in z]
        out = list(self.w_down.apply(h))
        mx = self.skip_matrix.apply(x)
        out = [a + b for a, b in zip(out, mx)]
        if self.b_down is not None:
            out = [a + b for a, b in zip(out, self.b_down)]
        return tuple(out)

    # -- JSON and identity ------------------------------------------------------------------
    def to_dict(self, *, header: bool = True) -> dict:
        out = {"format": BLOCK_FORMAT, "version": 1} if header else {}
        out["activation"] = self.activation.name
        out["w_up"] = _mjson(self.w_up)
        out["w_down"] = _mjson(self.w_down)
        if self.w_gate is not None:
            out["w_gate"] = _mjson(self.w_gate)
        out["skip"] = self.skip if isinstance(self.skip, str) else _mjson(self.skip)
        for name in ("b_up", "b_down", "b_gate"):
            v = getattr(self, name)
            if v is not None:
                out[name] = [q_json(x) for x in v]
        return out

    def _key(self):
        return (self.activation.name, self.w_up, self.w_down, self.w_gate,
                self.skip if isinstance(self.skip, str) else self.skip, self.b_up, self.b_down,
                self.b_gate)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Block):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        skip = self.skip if isinstance(self.skip, str) else "matrix"
        bias = ", biases" if self.has_biases else ""
        return f"Block({self.activation.name}, d={self.d}, k={self.k}, skip={skip}{bias})"


class BlockStack:
    """Composition f_L ∘ … ∘ f_1 of blocks (``blocks[0]`` is applied first)."""

    __slots__ = ("blocks",)

    def __init__(self, blocks: Sequence[Block]):
        blocks = tuple(blocks)
        if not blocks:
            raise InputError("'blocks' must be a non-empty list", None, "blocks")
        for i, b in enumerate(blocks):
            if not isinstance(b, Block):
                raise InputError(f"expected a block, got {type(b).__name__}", None, f"blocks[{i}]")
            if b.d != blocks[0].d:
                raise InputError(f"width d = {b.d} differs from blocks[0]'s d = {blocks[0].d}",
                                 None, f"blocks[{i}]")
        self.blocks = blocks

    @property
    def d(self) -> int:
        return self.blocks[0].d

    @property
    def depth(self) -> int:
        return len(self.blocks)

    def __call__(self, x):
        for b in self.blocks:
            x = b(x)
        return tuple(x)

    def to_dict(self) -> dict:
        return {"format": BLOCK_FORMAT, "version": 1,
                "blocks": [b.to_dict(header=False) for b in self.blocks]}

    def __eq__(self, other):
        if not isinstance(other, BlockStack):
            return NotImplemented
        return self.blocks == other.blocks

    def __hash__(self):
        return hash(self.blocks)

    def __repr__(self) -> str:
        return f"BlockStack(L={self.depth}, d={self.d})"


class HyperConnectionBlock:
    """Hyper-Connection block with n streams (R17); see the module docstring for the map."""

    __slots__ = ("mlp", "streams", "mix_residual", "mix_read", "mix_write")

    def __init__(self, mlp: Block, streams: int, mix_residual, mix_read, mix_write):
        if not isinstance(mlp, Block) or mlp.skip != "none":
            raise InputError("the MLP of a Hyper-Connection block has no skip of its own")
        if isinstance(streams, bool) or not isinstance(streams, int) or streams < 1:
            raise InputError(f"'streams' must be a positive integer, got {streams!r}", None, "streams")
        self.mlp, self.streams = mlp, streams
        self.mix_residual = _matrix(mix_residual, "mix_residual")
        if self.mix_residual.shape != (streams, streams):
            raise InputError(f"expected a {streams}x{streams} matrix", None, "mix_residual")
        self.mix_read = _vector(mix_read, streams, "mix_read")
        self.mix_write = _vector(mix_write, streams, "mix_write")

    @property
    def d(self) -> int:
        return self.mlp.d

    @property
    def k(self) -> int:
        return self.mlp.k

    def vectorized(self) -> Block:
        """The equivalent block on vec(H) ∈ R^{nd} (rows of H stacked), skip A_rᵀ ⊗ I_d."""
        n, d, k = self.streams, self.d, self.k
        ar = self.mix_residual
        skip = QMatrix.from_rows([[ar[t, s] if i == j else 0 for t in range(n) for j in range(d)]
                                  for s in range(n) for i in range(d)])
        up = self.mlp.w_up.to_rows()
        w_up = [[self.mix_read[s] * up[u][j] for s in range(n) for j in range(d)] for u in range(k)]
        down = self.mlp.w_down.to_rows()
        w_down = [[self.mix_write[s] * down[i][u] for u in range(k)] for s in range(n) for i in range(d)]
        m = self.mlp
        b_down = None if m.b_down is None else [self.mix_write[s] * x for s in range(n) for x in m.b_down]
        w_gate = None
        if m.w_gate is not None:
            g = m.w_gate.to_rows()
            w_gate = [[self.mix_read[s] * g[u][j] for s in range(n) for j in range(d)] for u in range(k)]
        return Block(m.activation, w_up, w_down, skip=skip, w_gate=w_gate, b_up=m.b_up,
                     b_down=b_down, b_gate=m.b_gate)

    def __call__(self, x):
        return self.vectorized()(x)

    def to_dict(self) -> dict:
        out = self.mlp.to_dict()
        del out["skip"]
        out["streams"] = self.streams
        out["mix_residual"] = self.mix_residual.to_json()
        out["mix_read"] = [q_json(x) for x in self.mix_read]
        out["mix_write"] = [q_json(x) for x in self.mix_write]
        return out

    def _key(self):
        return (self.mlp, self.streams, self.mix_residual, self.mix_read, self.mix_write)

    def __eq__(self, other):
        if not isinstance(other, HyperConnectionBlock):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self) -> str:
        return f"HyperConnectionBlock(n={self.streams}, d={self.d}, k={self.k})"


# -- native JSON --------------------------------------------------------------------------------
def block_from_dict(data: object, source: str | None = None, *, activation: str | None = None):
    """Build a block (Block, BlockStack or HyperConnectionBlock) from native block JSON.

    Errors are one-line :class:`InputError` naming the file (*source*) and the field/index.

    >>> block_from_dict({"format": "netfibers.block", "activation": "softmax", "w_up": [[1]],
    ...                  "w_down": [[1]]}, "b.json")
    Traceback (most recent call last):
        ...
    algebra.exceptions.InputError: b.json: activation: unknown activation 'softmax' (supported: bilinear, geglu, gelu, gelu_tanh, glu, reglu, relu, sigmoid, silu, swiglu, tanh, relu2, relu^p)
    """
    if not isinstance(data, dict):
        raise InputError("expected a JSON object (a netfibers.block)", source)
    fmt = data.get("format", BLOCK_FORMAT)
    if fmt != BLOCK_FORMAT:
        raise InputError(f"format is {fmt!r}, expected {BLOCK_FORMAT!r}", source, "format")
    if data.get("version", 1) != 1:
        raise InputError(f"unsupported version {data.get('version')!r} (this netfibers reads version 1)",
                         source, "version")
    if "blocks" in data:
        members = data["blocks"]
        extra = set(data) - {"format", "version", "activation", "blocks", "name"}
        if extra:
            raise InputError(f"unknown field(s) {', '.join(sorted(extra))} next to 'blocks'", source)
        if not isinstance(members, list) or not members:
            raise InputError("'blocks' must be a non-empty list of blocks", source, "blocks")
        default = activation or data.get("activation")
        out = []
        for i, m in enumerate(members):
            if not isinstance(m, dict):
                raise InputError("expected a block object", source, f"blocks[{i}]")
            if "blocks" in m or "streams" in m:
                raise InputError("members of 'blocks' must be plain blocks", source, f"blocks[{i}]")
            m = dict(m)
            if "activation" not in m and default is not None:
                m["activation"] = default
            try:
                out.append(_plain_block(m, source, f"blocks[{i}].", parse_matrix, parse_vector, None))
            except InputError as exc:
                raise InputError(exc.problem, source, exc.where) from None
        try:
            return BlockStack(out)
        except InputError as exc:
            raise InputError(exc.problem, source, exc.where) from None
    if "streams" in data:
        extra = set(data) - _HC_KEYS
        if extra:
            raise InputError(f"unknown field(s) {', '.join(sorted(extra))} in a Hyper-Connection block "
                             "('skip' is given by 'mix_residual')", source)
        d = dict(data)
        d["skip"] = "none"
        mlp = _plain_block(d, source, "", parse_matrix, parse_vector, activation)
        n = data["streams"]
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InputError(f"must be a positive integer, got {n!r}", source, "streams")
        for key in ("mix_residual", "mix_read", "mix_write"):
            if key not in data:
                raise InputError(f"missing field {key!r} of a Hyper-Connection block", source, key)
        ar = parse_matrix(data["mix_residual"], "mix_residual", source, (n, n))
        am = parse_vector(data["mix_read"], "mix_read", source, n)
        bw = parse_vector(data["mix_write"], "mix_write", source, n)
        return HyperConnectionBlock(mlp, n, ar, am, bw)
    extra = set(data) - _BLOCK_KEYS
    if extra:
        raise InputError(f"unknown field(s) {', '.join(sorted(extra))}", source)
    return _plain_block(data, source, "", parse_matrix, parse_vector, activation)


def _plain_block(data: dict, source, prefix: str, parse_matrix, parse_vector, activation) -> Block:
    act_name = activation or data.get("activation")
    if act_name is None:
        raise InputError("missing field 'activation'", source, f"{prefix}activation")
    try:
        act = get_activation(act_name)
    except InputError as exc:
        raise InputError(exc.problem, source, f"{prefix}activation") from None
    for key in ("w_up", "w_down"):
        if key not in data:
            raise InputError(f"missing field {key!r}", source, f"{prefix}{key}")
    w_up = parse_matrix(data["w_up"], f"{prefix}w_up", source)
    if not w_up or not w_up[0]:
        raise InputError("empty matrix", source, f"{prefix}w_up")
    k, d = len(w_up), len(w_up[0])
    w_down = parse_matrix(data["w_down"], f"{prefix}w_down", source, (d, k))
    w_gate = None
    if "w_gate" in data:
        w_gate = parse_matrix(data["w_gate"], f"{prefix}w_gate", source, (k, d))
    skip = data.get("skip", "identity")
    if not isinstance(skip, str):
        skip = parse_matrix(skip, f"{prefix}skip", source, (d, d))
    b_up = parse_vector(data["b_up"], f"{prefix}b_up", source, k) if "b_up" in data else None
    b_down = parse_vector(data["b_down"], f"{prefix}b_down", source, d) if "b_down" in data else None
    b_gate = parse_vector(data["b_gate"], f"{prefix}b_gate", source, k) if "b_gate" in data else None
    try:
        return Block(act, w_up, w_down, skip=skip, w_gate=w_gate, b_up=b_up, b_down=b_down, b_gate=b_gate)
    except InputError as exc:
        raise InputError(exc.problem, source, f"{prefix}{exc.where}" if exc.where else None) from None


# -- binary state_dicts ---------------------------------------------------------------------------
def block_from_tensors(tensors: dict, *, activation: str, skip="identity", prefix: str | None = None,
                       source: str | None = None) -> Block:
    """Block from a state_dict ``{name: (shape, flat list of exact values)}``.

    Recognised layouts (weights (out, in)): ``{P}up_proj/down_proj[/gate_proj]``,
    ``{P}fc1/fc2``, ``{P}intermediate.dense/output.dense``, each ``.weight`` with optional
    ``.bias``.  When several prefixes P match, *prefix* chooses one.

    >>> t = {"fc1.weight": ((2, 1), [to_q(1), to_q(-1)]), "fc2.weight": ((1, 2), [to_q(1), to_q(1)])}
    >>> block_from_tensors(t, activation="relu")
    Block(relu, d=1, k=2, skip=identity)
    """
    candidates = []
    for up, down, gate in LAYOUTS:
        suffix = f"{up}.weight"
        for name in tensors:
            if name.endswith(suffix) and (name == suffix or name[:-len(suffix)].endswith(".")):
                p = name[:-len(suffix)]
                if f"{p}{down}.weight" in tensors:
                    candidates.append((p, up, down, gate))
    if prefix is not None:
        candidates = [c for c in candidates if c[0] == prefix or c[0] == prefix + "."]
    if not candidates:
        known = ", ".join(f"{u}/{d}" for u, d, _ in LAYOUTS)
        what = f" with prefix {prefix!r}" if prefix is not None else ""
        raise InputError(f"no MLP block found{what} (expected weight pairs {known})", source)
    if len(candidates) > 1:
        shown = ", ".join(repr(c[0]) for c in candidates[:6])
        raise InputError(f"{len(candidates)} MLP blocks found (prefixes {shown}{', …' if len(candidates) > 6 else ''}); "
                         "choose one with --prefix", source)
    p, up, down, gate = candidates[0]
    act = get_activation(activation)

    def mat(name):
        shape, values = tensors[name]
        if len(shape) != 2:
            raise InputError(f"expected a 2-d weight, got shape {tuple(shape)}", source, name)
        return QMatrix.from_flat(shape[0], shape[1], values)

    def vec(name, n):
        if name not in tensors:
            return None
        shape, values = tensors[name]
        if tuple(shape) != (n,):
            raise InputError(f"expected shape ({n},), got {tuple(shape)}", source, name)
        return list(values)

    w_up, w_down = mat(f"{p}{up}.weight"), mat(f"{p}{down}.weight")
    k, d = w_up.shape
    if w_down.shape != (d, k):
        raise InputError(f"shape {w_down.shape} does not fit {p}{up}.weight of shape {(k, d)}",
                         source, f"{p}{down}.weight")
    w_gate = None
    gate_name = f"{p}{gate}.weight" if gate else None
    if gate_name and gate_name in tensors:
        if not act.is_gated:
            raise InputError(f"{gate_name} is present: use a gated activation (swiglu, geglu, reglu, "
                             f"glu, bilinear), not {act.name!r}", source)
        w_gate = mat(gate_name)
    elif act.is_gated:
        raise InputError(f"activation {act.name!r} is gated but the file has no gate weight", source)
    if not isinstance(skip, str):
        skip = _matrix(skip, "skip")
    try:
        return Block(act, w_up, w_down, skip=skip, w_gate=w_gate,
                     b_up=vec(f"{p}{up}.bias", k), b_down=vec(f"{p}{down}.bias", d),
                     b_gate=vec(f"{p}{gate}.bias", k) if w_gate is not None else None)
    except InputError as exc:
        raise InputError(exc.problem, source, exc.where) from None


def load_block(path, *, activation: str | None = None, skip="identity", prefix: str | None = None):
    """Read a block from native JSON or a binary state_dict (npz, safetensors, pt/pth/bin).

    For JSON, *activation* (when given) overrides the file's; *skip* is used only for binary
    files (JSON says its skip itself).
    """
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", str(p))
    if p.suffix.lower() == ".json":
        data = read_json_text(p)
        if isinstance(data, dict) and data.get("format") == BLOCK_FORMAT:
            return block_from_dict(data, str(p), activation=activation)
        raise InputError("not a netfibers.block file (its 'format' is not 'netfibers.block')", str(p))
    if activation is None:
        raise InputError("a weight file does not say its activation: pass --activation "
                         "(e.g. relu, gelu, swiglu)", str(p))
    from .io.binary import read_tensors
    return block_from_tensors(read_tensors(p), activation=activation, skip=skip, prefix=prefix,
                              source=str(p))
