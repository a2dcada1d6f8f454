"""ReLU networks with rational parameters.

``f = A_L ∘ σ ∘ A_{L-1} ∘ … ∘ σ ∘ A_1`` with affine maps ``A_l(x) = W_l x + b_l`` over Q and
σ = ReLU applied entrywise between layers, never after the last.  Weights have shape (out, in)
like ``torch.nn.Linear.weight``.

Flat parameter order (documented once, used everywhere): for l = 1..L, the entries of ``W_l``
row by row, then ``b_l``.  Display names are ``W1[0,2]`` and ``b2[1]`` (layers counted from 1,
neurons and inputs from 0).

>>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
>>> net.widths, net.n_parameters
((1, 2, 1), 7)
>>> net([3]), net(["-1/2"])
((3,), (3/2,))
>>> net.parameter_names()[:3]
('W1[0,0]', 'W1[1,0]', 'b1[0]')
>>> net.activation_pattern([1])
(1, 0)
"""

from __future__ import annotations

import math
import operator

from typing import Iterable, Sequence

from .dyadic import FloatWeights
from .exceptions import DimensionMismatchError, InputError
from .linalg import AffineReluChain, QMatrix, to_q_list
from .rationals import Q as fmpq, q_json, q_str, to_q

__all__ = ["Network", "relu", "as_parameter_point", "require_network"]


def relu(q: fmpq) -> fmpq:
    """max(q, 0) for an exact rational."""
    return q if q > 0 else fmpq(0)


def _weight_matrix(w, l: int) -> QMatrix:
    """Layer *l*'s weight as a :class:`QMatrix`: a QMatrix, nested lists, or a 2-D numpy array
    (its column count kept when it has no rows: a (0, d) array was a (0, 0) matrix, and the
    network lost its d inputs; session 39 API audit); anything else an :class:`InputError`."""
    if isinstance(w, QMatrix):
        return w
    shape = getattr(w, "shape", None)
    if shape is not None and not isinstance(w, (list, tuple)):
        if len(shape) != 2:
            raise InputError(f"W{l} must be 2-D (out, in), got shape {tuple(shape)}",
                             where=f"layer {l}")
        return QMatrix.from_rows(w, ncols=int(shape[1]))
    if not isinstance(w, (list, tuple)) or any(
            isinstance(r, (str, bytes)) or not hasattr(r, "__iter__") or getattr(r, "ndim", 1) != 1
            for r in w):
        raise InputError(f"W{l} must be a matrix (a list of rows), got {type(w).__name__}"
                         + ("" if not isinstance(w, (list, tuple)) else " of non-rows"),
                         where=f"layer {l}")
    return QMatrix.from_rows(w)


CONVERSION_GUARDS: list = []
"""Callables ``guard(entries, what)`` called before a layer kept as arrays is made an exact
:class:`QMatrix` (one FLINT call that no signal interrupts: a 7000 x 7000 kernel took ~10 s and
3.7 GB).  :mod:`semialgebraic.budget` registers one that stops a computation whose budget
cannot pay for the conversion (algebra never imports semialgebraic)."""


def guard_conversion(entries: int, what: str) -> None:
    """Ask every :data:`CONVERSION_GUARDS` entry whether *entries* exact matrix entries (one
    FLINT call or one Python pass that no signal stops) may be made now for *what*."""
    for guard in CONVERSION_GUARDS:
        guard(entries, what)


class Network:
    """Immutable ReLU network with rational parameters.

    Parameters
    ----------
    weights : sequence of QMatrix or nested lists
        ``W_1 … W_L`` with shapes (n_l, n_{l-1}).
    biases : sequence of vectors
        ``b_1 … b_L`` with lengths n_l.
    """

    __slots__ = ("_wq", "_shapes", "_biases", "_hash", "_chain", "_integer_weights", "_derived")

    def __init__(self, weights: Sequence[object], biases: Sequence[Sequence[object]]):
        ws = tuple(_weight_matrix(w, l) for l, w in enumerate(weights, start=1))
        bs = tuple(tuple(to_q_list(b)) for b in biases)
        if len(ws) == 0:
            raise InputError("a network needs at least one layer")
        if ws[0].ncols == 0:            # (the readers refuse it too; session 39 API audit)
            raise InputError("a network needs at least one input (W1 has 0 columns)")
        if ws[-1].nrows == 0:           # (the readers refuse it too: every analysis failed on
            raise InputError(           # one with a bare ValueError; s53 API audit F3)
                f"a network needs at least one output (W{len(ws)} has 0 rows)")
        if len(ws) != len(bs):
            raise InputError(f"{len(ws)} weight matrices but {len(bs)} bias vectors")
        for l, (w, b) in enumerate(zip(ws, bs), start=1):
            if w.nrows != len(b):
                raise InputError(f"W{l} has {w.nrows} rows but b{l} has {len(b)} entries",
                                 where=f"layer {l}")
            if l > 1 and w.ncols != ws[l - 2].nrows:
                raise InputError(f"W{l} has {w.ncols} columns but layer {l - 1} has "
                                 f"{ws[l - 2].nrows} outputs", where=f"layer {l}")
        self._wq, self._biases, self._hash, self._chain = list(ws), bs, None, None
        self._shapes = tuple(w.shape for w in ws)
        self._integer_weights = None
        self._derived = None

    @classmethod
    def _from_integer_arrays(cls, integer_weights, biases, source: str | None = None) -> "Network":
        """A network whose weights are kept as exact numpy arrays: layer l is
        ``W_l == N_l / D_l`` for ``integer_weights[l] = (N_l, D_l)`` (N an int64 array of shape
        (out, in), D a positive int), the float array it was read as
        (:class:`~algebra.dyadic.FloatWeights`: its integers are made only when asked), or a
        :class:`QMatrix` (a layer the reader could not keep as arrays).  The rational :class:`QMatrix` of a layer is made only when something
        asks for it (:meth:`layer`, :attr:`weights`, …), once; fast paths read the arrays
        through :meth:`integer_weights` (:mod:`algebra.dyadic`).  The arrays are made read-only
        so the identity stays true."""
        layers = list(integer_weights)
        bs = tuple(tuple(to_q_list(b)) for b in biases)
        if not layers:
            raise InputError("a network needs at least one layer", source)
        if len(layers) != len(bs):
            raise InputError(f"{len(layers)} weight matrices but {len(bs)} bias vectors", source)
        self = cls.__new__(cls)
        wq, shapes, hints = [], [], []
        for l, item in enumerate(layers, start=1):
            if isinstance(item, QMatrix):
                wq.append(item)
                shapes.append(item.shape)
                hints.append(None)
                continue
            if isinstance(item, FloatWeights):
                wq.append(None)
                shapes.append(item.shape)
                hints.append(item)
                continue
            N, D = item
            D = int(D)
            if N.ndim != 2 or N.dtype.kind != "i" or D <= 0:
                raise InputError(f"layer {l}: integer weights must be a 2-D integer array over a "
                                 "positive denominator", source)
            N.flags.writeable = False
            wq.append(None)
            shapes.append((int(N.shape[0]), int(N.shape[1])))
            hints.append((N, D))
        if shapes[0][1] == 0:
            raise InputError("a network needs at least one input (W1 has 0 columns)", source)
        if shapes[-1][0] == 0:
            raise InputError(f"a network needs at least one output (W{len(shapes)} has 0 rows)",
                             source)
        for l, (shape, b) in enumerate(zip(shapes, bs), start=1):
            if shape[0] != len(b):
                raise InputError(f"W{l} has {shape[0]} rows but b{l} has {len(b)} entries",
                                 source, where=f"layer {l}")
            if l > 1 and shape[1] != shapes[l - 2][0]:
                raise InputError(f"W{l} has {shape[1]} columns but layer {l - 1} has "
                                 f"{shapes[l - 2][0]} outputs", source, where=f"layer {l}")
        self._wq, self._shapes, self._biases = wq, tuple(shapes), bs
        self._hash = self._chain = self._derived = None
        self._integer_weights = hints
        return self

    def _weight(self, l: int) -> QMatrix:
        """The rational matrix of layer *l*, made from the integer arrays on first use (after
        every :data:`CONVERSION_GUARDS` entry has seen its size)."""
        w = self._wq[l]
        if w is None:
            rows, cols = self._shapes[l]
            guard_conversion(rows * cols, f"W{l + 1}'s exact matrix")
            hint = self._integer_weights[l]
            if isinstance(hint, FloatWeights):
                w = hint.rational()
            else:
                N, D = hint
                w = QMatrix.from_integer_rows(N.tolist(), int(N.shape[1]), den=D)
            self._wq[l] = w
        return w

    @property
    def _weights(self) -> tuple[QMatrix, ...]:
        return tuple(self._weight(l) for l in range(len(self._wq)))

    @classmethod
    def from_rows(cls, weights: Sequence[Sequence[Sequence[object]]],
                  biases: Sequence[Sequence[object]]) -> "Network":
        """Build from nested lists (weights row by row)."""
        return cls(weights, biases)

    @classmethod
    def from_layers(cls, layers: Iterable[tuple[object, Sequence[object]]]) -> "Network":
        """Build from ``[(W1, b1), (W2, b2), …]``."""
        layers = list(layers)
        return cls([w for w, _ in layers], [b for _, b in layers])

    @classmethod
    def from_parameters(cls, widths: Sequence[int], params: Sequence[object]) -> "Network":
        """Inverse of :meth:`parameters` for the architecture *widths* = (d, n1, …, m)."""
        params = to_q_list(params)
        need = sum(widths[l + 1] * (widths[l] + 1) for l in range(len(widths) - 1))
        if len(params) != need:
            raise DimensionMismatchError("from_parameters", tuple(widths), len(params))
        ws, bs, k = [], [], 0
        for l in range(len(widths) - 1):
            n_in, n_out = widths[l], widths[l + 1]
            ws.append(QMatrix.from_flat(n_out, n_in, params[k:k + n_out * n_in]))
            k += n_out * n_in
            bs.append(params[k:k + n_out])
            k += n_out
        return cls(ws, bs)

    # -- architecture ------------------------------------------------------------------------
    @classmethod
    def from_torch(cls, module) -> "Network":
        """The exact network of a torch ``nn.Sequential`` (Linear/ReLU; BatchNorm1d in eval mode
        folded, Dropout/Identity/Flatten skipped): :func:`algebra.io.frameworks.network_from_torch`."""
        from .io.frameworks import network_from_torch
        return network_from_torch(module)

    @classmethod
    def from_sklearn(cls, mlp) -> "Network":
        """The exact network of a fitted ReLU ``MLPClassifier``/``MLPRegressor``:
        :func:`algebra.io.frameworks.network_from_sklearn`."""
        from .io.frameworks import network_from_sklearn
        return network_from_sklearn(mlp)

    @property
    def weights(self) -> tuple[QMatrix, ...]:
        return self._weights

    @property
    def biases(self) -> tuple[tuple[fmpq, ...], ...]:
        return self._biases

    @property
    def depth(self) -> int:
        """Number of affine layers L (hidden layers: L - 1)."""
        return len(self._shapes)

    @property
    def widths(self) -> tuple[int, ...]:
        """(d, n_1, …, n_{L-1}, m)."""
        return (self._shapes[0][1],) + tuple(s[0] for s in self._shapes)

    @property
    def hidden_widths(self) -> tuple[int, ...]:
        return self.widths[1:-1]

    @property
    def n_hidden(self) -> int:
        return sum(self.hidden_widths)

    @property
    def n_inputs(self) -> int:
        return self._shapes[0][1]

    @property
    def n_outputs(self) -> int:
        return self._shapes[-1][0]

    @property
    def signature(self) -> tuple[int, int]:
        return (self.n_inputs, self.n_outputs)

    @property
    def n_parameters(self) -> int:
        w = self.widths
        return sum(w[l + 1] * (w[l] + 1) for l in range(len(w) - 1))

    @property
    def activation(self) -> str:
        return "relu"

    def layer(self, l: int) -> tuple[QMatrix, tuple[fmpq, ...]]:
        """``(W, b)`` of affine layer *l* (0-based)."""
        return self._weight(l), self._biases[l]

    def parameter_names(self) -> tuple[str, ...]:
        names = []
        for l, (nrows, ncols) in enumerate(self._shapes, start=1):
            names += [f"W{l}[{i},{j}]" for i in range(nrows) for j in range(ncols)]
            names += [f"b{l}[{i}]" for i in range(nrows)]
        return tuple(names)

    def parameters(self) -> tuple[fmpq, ...]:
        """Flat parameter vector in the documented order."""
        out: list[fmpq] = []
        for w, b in zip(self._weights, self._biases):
            out += w.entries()
            out += b
        return tuple(out)

    def replace_layer(self, l: int, weight: object | None = None, bias: Sequence[object] | None = None) -> "Network":
        """A copy with layer *l* (0-based) replaced (None keeps the current part)."""
        ws, bs = list(self._weights), list(self._biases)
        if weight is not None:
            ws[l] = weight if isinstance(weight, QMatrix) else QMatrix.from_rows(weight)
        if bias is not None:
            bs[l] = bias
        return Network(ws, bs)

    def with_parameter(self, key: int | str, value: object) -> "Network":
        """A copy with one parameter (flat index or display name) replaced."""
        params = list(self.parameters())
        names = self.parameter_names()
        if isinstance(key, str):
            if key not in names:
                raise InputError(f"no parameter named {key!r} (names like {names[0]!r}; "
                                 "parameter_names() lists them)")
            idx = names.index(key)
        else:
            idx = operator.index(key)
            if not -len(params) <= idx < len(params):
                raise InputError(f"parameter index {idx} out of range (the network has "
                                 f"{len(params)} parameters)")
        params[idx] = to_q(value)
        return Network.from_parameters(self.widths, params)

    # -- evaluation --------------------------------------------------------------------------
    def _check_input(self, x: Sequence[object]) -> list[fmpq]:
        x = to_q_list(x)
        if len(x) != self.n_inputs:
            raise DimensionMismatchError("evaluate", f"input of length {len(x)}",
                                         f"network with {self.n_inputs} inputs")
        return x

    def preactivations(self, x: Sequence[object]) -> tuple[tuple[fmpq, ...], ...]:
        """Pre-activations of every layer (hidden layers, then the output) at *x*."""
        h = self._check_input(x)
        out = []
        L = self.depth
        for l, b in enumerate(self._biases):
            z = self._apply_arrays(l, h)
            if z is None:
                z = self._weight(l).apply(h)
            vals = tuple(zi + bi for zi, bi in zip(z, b))
            out.append(vals)
            if l < L - 1:
                h = [relu(v) for v in vals]
        return tuple(out)

    _ARRAY_APPLY = 1 << 14
    """Layers of at least this many weights kept as a reader's arrays, and not yet made a
    :class:`QMatrix`, are applied by :meth:`_apply_arrays` (its first ``_ARRAY_USES`` times)."""
    _ARRAY_USES = 2

    def _apply_arrays(self, l: int, h: list) -> list | None:
        """``W_l h`` exactly from layer *l*'s integer arrays ``N / D`` (``N`` as Python integers
        times the integer numerators of ``h`` over their common denominator), when the reader
        kept them, the layer is large and its :class:`QMatrix` is not made yet; else None.  One
        evaluation of a 768-3072-768 block no longer makes its two QMatrices first (2.6 s of a
        budget stopped before its search: session 43's budgets audit); the same numbers."""
        if self._wq[l] is not None or self._integer_weights[l] is None:
            return None
        rows, cols = self._shapes[l]
        if rows * cols < self._ARRAY_APPLY:
            return None
        uses = self.derived("array_applies", lambda: [0] * self.depth)
        if uses[l] >= self._ARRAY_USES:      # evaluated again and again: the QMatrix, made once
            return None                      # (0.2 s an evaluation after it, 0.7 s without)
        uses[l] += 1
        hint = self.integer_weights(l)
        if hint is None:                     # floats whose integers would not fit in int64
            return None
        N, D = hint
        q = 1
        for v in h:
            q = q * int(v.q) // math.gcd(q, int(v.q))
        import numpy as np
        ints = [int(v.p) * (q // int(v.q)) for v in h]
        den = int(D) * q
        big_p = max((abs(v) for v in ints), default=0)
        big_n = max(int(N.max()), -int(N.min())) if N.size else 0   # (Python ints: np.abs
        #                                  of an int64 -2**63 is -2**63, no bound at all)
        if big_p * big_n * max(cols, 1) < 1 << 62:     # every partial sum fits int64: exact
            return [fmpq(int(z), den) for z in N.dot(np.array(ints, dtype=np.int64))]
        p = np.array(ints, dtype=object)               # Python integers, a block of rows at a
        step = max(1, (1 << 20) // max(cols, 1))       # time (a 7000 x 7000 layer made whole
        out = []                                       # as objects took 2 GB)
        for r in range(0, rows, step):
            out += [fmpq(int(z), den) for z in N[r:r + step].astype(object).dot(p)]
        return out

    def evaluate(self, x: Sequence[object]) -> tuple[fmpq, ...]:
        """Exact output at one input."""
        return self.preactivations(x)[-1]

    __call__ = evaluate

    def evaluate_batch(self, X: QMatrix | Sequence[Sequence[object]], *,
                       method: str = "auto") -> QMatrix:
        """Exact outputs for a batch: rows of *X* are inputs; returns (batch x m).

        Each layer is one integer matrix product with one common denominator per layer, and
        ReLU is a sign test on integers (:class:`~algebra.linalg.AffineReluChain`; *method* is
        ``"auto"``, ``"flint"`` or ``"limbs"``, all exact).  The integer form of the layers is
        computed once per network and cached.

        >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
        >>> net.evaluate_batch([[3], ["-1/2"], [0]])
        QMatrix([[3], [3/2], [1]])
        """
        X = X if isinstance(X, QMatrix) else QMatrix.from_rows(X, ncols=self.n_inputs)
        if X.ncols != self.n_inputs:
            raise DimensionMismatchError("evaluate_batch", X.shape, f"{self.n_inputs} inputs")
        return self._integer_chain()(X, method=method)

    def _integer_chain(self) -> AffineReluChain:
        if self._chain is None:
            hints = (None if self._integer_weights is None
                     else [self.integer_weights(l) for l in range(self.depth)])
            self._chain = AffineReluChain(list(zip(self._weights, self._biases)),
                                          integer_weights=hints)
        return self._chain

    def derived(self, key, compute):
        """``compute()`` the first time *key* is asked for on this network, the stored value
        afterwards: a memo of values derived from the parameters, sound because a network is
        immutable (it lives as long as the network; the caller decides what is worth keeping).

        >>> net = Network.from_rows([[[1]], [[2]]], [[0], [0]])
        >>> net.derived("widths", lambda: net.widths), net.derived("widths", lambda: None)
        ((1, 1, 1), (1, 1, 1))
        """
        if self._derived is None:
            self._derived = {}
        if key not in self._derived:
            self._derived[key] = compute()
        return self._derived[key]

    @property
    def provenance(self) -> tuple[str, ...]:
        """Sentences saying how a reader built this network (layout read, BatchNorm folded with
        a float32 rounding, …); empty for a network built from exact numbers.  Not part of
        equality: two networks with the same parameters are equal."""
        return tuple((self._derived or {}).get("provenance", ()))

    @property
    def missing_biases(self) -> tuple[int, ...]:
        """The layers (0-based) whose bias the file read did not store, read as 0 (a torch
        ``Linear(bias=False)``, a MatMul without Add, a Dense without bias): the parameter
        counts of ``dim``, ``fiber``, ``conserved`` are then those of the architecture with
        biases, which the commands say.  Empty for a network built from numbers."""
        return tuple((self._derived or {}).get("missing_biases", ()))

    @property
    def reading_warnings(self) -> tuple[str, ...]:
        """Provenance sentences about what the file read cannot show (int8 codes without their
        scales; a residual block's skip), which the commands repeat as notes."""
        return tuple((self._derived or {}).get("reading_warnings", ()))

    def _keep_integer_weights(self, integer_weights) -> None:
        """Remember per-layer ``(N, D)`` numpy integer arrays with ``W_l == N / D`` exactly
        (set by the binary weight readers, which have them anyway), so that the first
        :meth:`evaluate_batch` does not extract FLINT integers entry by entry."""
        if len(integer_weights) != self.depth:
            raise DimensionMismatchError("integer weights", len(integer_weights), self.depth)
        for hint in integer_weights:
            if hint is not None:
                hint[0].flags.writeable = False     # the identity W == N / D must stay true
        self._integer_weights = list(integer_weights)

    def integer_weights(self, l: int):
        """``(N, D)`` with ``W_l == N / D`` exactly (N a numpy int64 array, D an int), when a weight
        file reader kept it, else None (no conversion is done here).  Used by exact fast paths
        that work on numpy arrays (:mod:`algebra.dyadic`)."""
        hints = self._integer_weights
        hint = None if hints is None else hints[l]
        return hint.integers() if isinstance(hint, FloatWeights) else hint

    def float_weights(self, l: int):
        """The :class:`~algebra.dyadic.FloatWeights` of layer *l* (the binary float array a
        reader kept, equal to ``W_l`` exactly), or None."""
        hints = self._integer_weights
        hint = None if hints is None else hints[l]
        return hint if isinstance(hint, FloatWeights) else None

    def activation_pattern(self, x: Sequence[object]) -> tuple[int, ...]:
        """Signs (-1/0/1) of all hidden pre-activations at *x*, in layer order."""
        pre = self.preactivations(x)[:-1]
        return tuple((v > 0) - (v < 0) for layer in pre for v in layer)

    def affine_map(self, pattern: Sequence[int]) -> tuple[QMatrix, tuple[fmpq, ...]]:
        """The affine map ``x ↦ J x + c`` computed on the region with this activation pattern.

        *pattern* has one entry per hidden neuron (layer order); entries > 0 mean active.
        """
        if len(pattern) != self.n_hidden:
            raise DimensionMismatchError("affine_map", len(pattern), f"{self.n_hidden} hidden neurons")
        J = QMatrix.identity(self.n_inputs)
        c = QMatrix.zeros(self.n_inputs, 1)
        k = 0
        L = self.depth
        for l, (w, b) in enumerate(zip(self._weights, self._biases)):
            J = w @ J
            c = w @ c + QMatrix.column(b)
            if l < L - 1:
                n = w.nrows
                D = QMatrix.diagonal([1 if pattern[k + i] > 0 else 0 for i in range(n)])
                k += n
                J, c = D @ J, D @ c
        return J, c.col_at(0)

    # -- identity ----------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Network):
            return NotImplemented
        if self is other:
            return True
        if self._shapes != other._shapes or self._biases != other._biases:
            return False
        for l in range(self.depth):
            fa, fb = self.float_weights(l), other.float_weights(l)
            if fa is not None and fb is not None:   # float == is exact equality of the values
                if not (fa.array == fb.array).all():
                    return False
                continue
            a, b = self.integer_weights(l), other.integer_weights(l)
            if a is not None and b is not None and a[1] == b[1]:   # same denominator: compare N
                if not (a[0] == b[0]).all():
                    return False
            elif self._weight(l) != other._weight(l):
                return False
        return True

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash((self._weights, self._biases))
        return self._hash

    def __repr__(self) -> str:
        ws = ", ".join(repr(w)[len("QMatrix("):-1] for w in self._weights)
        bs = ", ".join("[" + ", ".join(q_str(x) for x in b) + "]" for b in self._biases)
        return f"Network.from_rows([{ws}], [{bs}])"

    def __reduce__(self):
        return (Network.from_parameters, (self.widths, [q_str(x) for x in self.parameters()]))

    def to_dict(self) -> dict:
        """Native JSON form (``netfibers.network``, version 1)."""
        return {
            "format": "netfibers.network",
            "version": 1,
            "activation": "relu",
            "inputs": self.n_inputs,
            "layers": [{"weight": w.to_json(), "bias": [q_json(x) for x in b]}
                       for w, b in zip(self._weights, self._biases)],
        }

    # -- notebooks (algebra/display.py) ------------------------------------------------------
    def _repr_latex_(self) -> str:
        from .display import network_latex
        return network_latex(self)

    def _repr_html_(self) -> str:
        from .display import network_html
        return network_html(self)

    def _repr_png_(self) -> bytes | None:
        from .display import network_png
        return network_png(self)


def require_network(obj, what: str, name: str | None = None) -> None:
    """An :class:`InputError` unless *obj* is a :class:`Network`: *what* (a function) takes one
    (the s48 API audit: ``fiber([1, 2])``, ``functional_dimension(None)`` raised bare
    AttributeErrors from inside)."""
    if not isinstance(obj, Network):
        import os
        hint = " (netfibers.load reads a file)" if isinstance(obj, (str, os.PathLike)) else ""
        what = f"{what}'s {name}" if name else what
        raise InputError(f"{what} takes a Network, got {type(obj).__name__}{hint}")


def as_parameter_point(reference: Network, theta) -> Network:
    """*theta* as a Network: a Network as it is, or a parameter vector (``parameters()`` order) as
    the network of *reference*'s widths it denotes (the fibers' ``contains`` took only
    networks and raised AttributeError on a vector; session 39 API audit)."""
    if isinstance(theta, Network):
        return theta
    if isinstance(theta, (str, bytes, dict)) or not hasattr(theta, "__iter__"):
        raise InputError(f"expected a Network or a parameter vector, got {type(theta).__name__}")
    return Network.from_parameters(reference.widths, list(theta))
