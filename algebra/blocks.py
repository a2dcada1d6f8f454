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

Reading and writing blocks (native JSON, binary state_dicts with the MLP layouts of LLaMA, GPT
and BERT) is in :mod:`algebra.io.blocks`.

>>> b = Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]])
>>> b.d, b.k, b([1, 2])
(2, 3, (6, 9))
"""

from __future__ import annotations

import math
from typing import Sequence

from .activations import Activation, get_activation
from .exceptions import InputError
from .linalg import QMatrix
from .rationals import Q, q_json, to_q
from .network import guard_conversion

__all__ = ["Block", "BlockStack", "HyperConnectionBlock", "BLOCK_FORMAT", "exact_matrix", "IntegerArray"]

BLOCK_FORMAT = "netfibers.block"

def _mjson(m: QMatrix) -> list:
    """Rows of JSON numbers (ints or reduced ``"p/q"``): :meth:`QMatrix.to_json` (one integer
    export; integers past Python's 4 300-digit ``str`` limit as text through FLINT — a block
    entry "1e-9999" ended in exit 4 here: input audit, session 35)."""
    return m.to_json()


class IntegerArray:
    """An exact rational matrix ``N / den`` held as a read-only numpy int64 array *N* and a
    positive int *den* (the integer view of a block matrix: weights read from float files, or
    rebuilt from a certificate sidecar).  :meth:`to_qmatrix` is the rational matrix;
    :meth:`canonical` the same matrix over its least common denominator (so that two views of
    one matrix compare equal entry by entry).

    >>> import numpy as np
    >>> a = IntegerArray(np.array([[2, -4], [6, 0]]), 4)
    >>> a.to_qmatrix(), a.canonical().den, a.canonical().N.tolist()
    (QMatrix([[1/2, -1], [3/2, 0]]), 2, [[1, -2], [3, 0]])
    """

    __slots__ = ("N", "den", "_canonical")

    def __init__(self, N, den: int):
        import numpy as np
        N = np.asarray(N)
        if N.dtype != np.int64 or N.ndim != 2 or 0 in N.shape:
            raise InputError(f"an integer matrix is a non-empty 2-D int64 array, got {N.dtype} of "
                             f"shape {tuple(N.shape)}")
        den = int(den)
        if den <= 0:
            raise InputError(f"the denominator of an integer matrix must be positive, got {den}")
        if N.flags.writeable:
            N = N.copy()
            N.flags.writeable = False
        self.N, self.den, self._canonical = N, den, None

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.N.shape[0]), int(self.N.shape[1])

    @property
    def T(self) -> "IntegerArray":
        """The transpose (GPT-2's Conv1D stores its weights as (in, out))."""
        import numpy as np
        return IntegerArray(np.ascontiguousarray(self.N.T), self.den)

    def to_qmatrix(self, what: str = "a block matrix") -> QMatrix:
        """The exact rational matrix ``N / den`` (first costed: :func:`~algebra.network.guard_conversion`)."""
        guard_conversion(self.N.size, what)
        return QMatrix.from_integer_rows(self.N.tolist(), self.shape[1], self.den)

    def canonical(self) -> "IntegerArray":
        """``N' / den'`` with den' the least common denominator of the entries (unique)."""
        if self._canonical is None:
            from .linalg.evaluation import array_gcd
            g = math.gcd(array_gcd(self.N), self.den)
            self._canonical = self if g == 1 else IntegerArray(self.N // g, self.den // g)
        return self._canonical

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IntegerArray):
            return NotImplemented
        a, b = self.canonical(), other.canonical()
        return a.den == b.den and a.shape == b.shape and bool((a.N == b.N).all())

    __hash__ = None  # type: ignore[assignment]


def _integer_view(m: QMatrix) -> "IntegerArray | None":
    """The :class:`IntegerArray` of a rational matrix (one FLINT numerator/denominator split, one
    pass over the entries), or None when an integer does not fit in int64 or numpy is absent."""
    try:
        import numpy as np
    except ImportError:
        return None
    num, den = m.numer_denom()
    try:
        flat = np.fromiter(map(int, num.entries()), dtype=np.int64, count=m.nrows * m.ncols)
    except OverflowError:
        return None
    return IntegerArray(flat.reshape(m.nrows, m.ncols), int(den))


def _tight_dyadic(arr):
    """``(N, 2**e)`` with ``arr == N / 2**e`` exactly for a finite 2-D float64 array whose
    entries, over the finest unit in the last place among them, fit in int64 (the entry-wise
    bound: max |x| * 2**e < 2**62), else None.  Each x = m 2^(E-53) (frexp: 0.5 <= |m| < 1
    scaled to a 53-bit integer M) has its lowest set bit at L = E - 53 + tz(M); e = -min L."""
    import numpy as np
    arr = np.asarray(arr)
    if arr.ndim != 2 or arr.dtype != np.float64 or not np.isfinite(arr).all():
        return None
    nz = arr != 0
    if not nz.any():
        return np.zeros(arr.shape, dtype=np.int64), 1
    frac, E = np.frexp(arr)
    M = (frac * 2.0 ** 53).astype(np.int64)                     # exact: 53-bit significands
    low = np.where(nz, M & -M, 1)
    tz = np.frexp(low.astype(np.float64))[1] - 1                # trailing zero bits of M
    L = np.where(nz, E.astype(np.int64) - 53 + tz, 0)
    e = max(0, -int(L[nz].min()))
    if int(E[nz].max()) + e > 62:
        return None
    shift = np.where(nz, L + e, 0)                               # >= 0 on non-zero entries
    return (M >> tz) << shift, 1 << e


def array_view(arr, name: str, source: str | None = None):
    """A numpy float or integer array as a block matrix: its :class:`IntegerArray` view when the
    integers fit in int64 (nothing rational is made until a rational matrix is needed), else
    the exact rational matrix.  Used by :meth:`Block.from_arrays` and the weight-file readers
    (a LLaMA-7B MLP block, 1.4 x 10^8 float16 entries, was made rational on reading: 36 s and
    5.9 GB before a decision that reads no weight, s50)."""
    from .io.arrays import matrix_from_array
    from .io.exact import dyadic_integer_array, exact_parts
    if getattr(arr, "size", 1) == 0:
        raise InputError(f"an empty matrix (shape {tuple(arr.shape)}): a block needs d >= 1 "
                         "inputs and k >= 1 units", source, name)
    hint = dyadic_integer_array(arr, name, source)
    if hint is None:
        hint = _tight_dyadic(arr)
    if hint is None and getattr(arr, "ndim", 0) == 2:
        m, hint = exact_parts(arr, name, source)
        if hint is None:
            return m
    return IntegerArray(*hint) if hint is not None else matrix_from_array(arr, name)


def exact_matrix(m, where: str) -> QMatrix:
    """*m* (a QMatrix, or rows of exact numbers) as a non-empty QMatrix; errors name *where*."""
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

    __slots__ = ("activation", "_w_up", "_w_down", "_w_gate", "skip", "b_up", "b_down", "b_gate",
                 "_ints")

    @classmethod
    def from_torch(cls, module, *, activation=None, skip="identity", prefix=None) -> "Block":
        """The exact block of a torch MLP module (``nn.Sequential(Linear, act, Linear)``, or
        ``up/gate/down_proj``, ``fc1/fc2``, ``intermediate/output`` submodules):
        :func:`algebra.io.frameworks.block_from_torch`."""
        from .io.frameworks import block_from_torch
        return block_from_torch(module, activation=activation, skip=skip, prefix=prefix)

    @classmethod
    def from_arrays(cls, activation, w_up, w_down, **kwargs) -> "Block":
        """The exact block of numpy float or integer arrays *w_up* (k×d) and *w_down* (d×k),
        kept as :class:`IntegerArray` views (no rational matrix is built until one is needed)
        when the integers fit in int64, else as rational matrices.

        >>> import numpy as np
        >>> b = Block.from_arrays("relu", np.array([[0.5], [2.0]], dtype=np.float32),
        ...                       np.array([[1.0, -0.25]], dtype=np.float32))
        >>> up = b.integer_matrix("w_up").canonical()
        >>> up.N.tolist(), up.den, b.w_down
        ([[1], [4]], 2, QMatrix([[1, -1/4]]))
        """
        gate = kwargs.pop("w_gate", None)
        if gate is not None and hasattr(gate, "dtype"):
            gate = array_view(gate, "w_gate")
        return cls(activation, array_view(w_up, "w_up"), array_view(w_down, "w_down"),
                   w_gate=gate, **kwargs)

    def __init__(self, activation, w_up, w_down, *, skip="identity", w_gate=None, b_up=None,
                 b_down=None, b_gate=None):
        act = get_activation(activation) if not isinstance(activation, Activation) else activation
        self._ints = {}
        for name, m in (("w_up", w_up), ("w_down", w_down), ("w_gate", w_gate)):
            if isinstance(m, IntegerArray):
                self._ints[name] = m
        w_up = None if "w_up" in self._ints else exact_matrix(w_up, "w_up")
        w_down = None if "w_down" in self._ints else exact_matrix(w_down, "w_down")
        k, d = w_up.shape if w_up is not None else self._ints["w_up"].shape
        dshape = w_down.shape if w_down is not None else self._ints["w_down"].shape
        if dshape != (d, k):
            raise InputError(f"w_down has shape {dshape[0]}x{dshape[1]}, expected "
                             f"{d}x{k} (d x k, with w_up of shape {k}x{d})", None, "w_down")
        if act.is_gated:
            if w_gate is None:
                raise InputError(f"activation {act.name!r} is gated: 'w_gate' ({k}x{d}) is required",
                                 None, "w_gate")
            w_gate = None if "w_gate" in self._ints else exact_matrix(w_gate, "w_gate")
            gshape = w_gate.shape if w_gate is not None else self._ints["w_gate"].shape
            if gshape != (k, d):
                raise InputError(f"w_gate has shape {gshape[0]}x{gshape[1]}, expected {k}x{d}",
                                 None, "w_gate")
        elif w_gate is not None:
            raise InputError(f"activation {act.name!r} is not gated but 'w_gate' is given "
                             "(gated: reglu, geglu, swiglu, glu, bilinear)", None, "w_gate")
        if isinstance(skip, str):
            if skip not in ("identity", "none"):
                raise InputError(f"skip must be 'identity', 'none' or a {d}x{d} matrix, got {skip!r}",
                                 None, "skip")
        else:
            skip = exact_matrix(skip, "skip")
            if skip.shape != (d, d):
                raise InputError(f"skip has shape {skip.shape[0]}x{skip.shape[1]}, expected {d}x{d}",
                                 None, "skip")
        self.activation = act
        self._w_up, self._w_down, self._w_gate, self.skip = w_up, w_down, w_gate, skip
        self.b_up = _vector(b_up, k, "b_up")
        self.b_down = _vector(b_down, d, "b_down")
        self.b_gate = _vector(b_gate, k, "b_gate") if act.is_gated else None
        if b_gate is not None and not act.is_gated:
            raise InputError("'b_gate' given for an ungated activation", None, "b_gate")

    # -- shape and derived data -------------------------------------------------------------
    @property
    def w_up(self) -> QMatrix:
        """W_up (k×d), made from its integer view on first use when the block was built from one."""
        if self._w_up is None:
            self._w_up = self._ints["w_up"].to_qmatrix("the block's W_up")
        return self._w_up

    @property
    def w_down(self) -> QMatrix:
        """W_down (d×k), made from its integer view on first use when built from one."""
        if self._w_down is None:
            self._w_down = self._ints["w_down"].to_qmatrix("the block's W_down")
        return self._w_down

    @property
    def w_gate(self) -> QMatrix | None:
        """W_gate (k×d) of a gated activation, else None; made from its integer view on first
        use when built from one."""
        if self._w_gate is None and self._ints.get("w_gate") is not None:
            self._w_gate = self._ints["w_gate"].to_qmatrix("the block's W_gate")
        return self._w_gate

    @property
    def gated(self) -> bool:
        """Whether the block has a gate matrix (without making it rational)."""
        return self._w_gate is not None or self._ints.get("w_gate") is not None

    def _given(self, name: str):
        """The matrix *name* as held: its QMatrix, else its integer view (None: no such matrix)."""
        m = getattr(self, "_" + name)
        return m if m is not None else self._ints.get(name)

    def integer_matrix(self, name: str) -> "IntegerArray | None":
        """The :class:`IntegerArray` view of the matrix *name* (``w_up``, ``w_down``, ``w_gate``
        or a matrix ``skip``), kept from construction or made once and cached; None when it has
        no such matrix, an integer does not fit in int64, or numpy is absent.

        >>> Block("relu", [["1/2", 1]], [[3], [-1]]).integer_matrix("w_up").N.tolist()
        [[1, 2]]
        """
        if name not in self._ints:
            m = getattr(self, name)
            self._ints[name] = _integer_view(m) if isinstance(m, QMatrix) else None
        return self._ints[name]

    @property
    def d(self) -> int:
        """Width of the residual stream (input and output dimension)."""
        return self._w_up.ncols if self._w_up is not None else self._ints["w_up"].shape[1]

    @property
    def k(self) -> int:
        """Hidden width (number of units)."""
        return self._w_up.nrows if self._w_up is not None else self._ints["w_up"].shape[0]

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
        kw = dict(activation=self.activation, w_up=self._given("w_up"), w_down=self._given("w_down"),
                  skip=self.skip, w_gate=self._given("w_gate"), b_up=self.b_up, b_down=self.b_down,
                  b_gate=self.b_gate)
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
        if self.gated:
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
        self.mix_residual = exact_matrix(mix_residual, "mix_residual")
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
        if m.gated:
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
