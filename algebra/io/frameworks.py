"""Models held as Python objects: torch ``nn.Sequential`` / MLP block modules and scikit-learn
``MLPClassifier`` / ``MLPRegressor``, read exactly.

torch and scikit-learn stay optional: nothing here imports them; a module is recognised by its
class name and read through its tensors/arrays (``Tensor.numpy()``), every float32/float64 value
becoming the exact rational it denotes (:func:`algebra.io.exact.exact_qmatrix`).

Layers of a ``torch.nn.Sequential`` (nested ones are walked):

* ``Linear`` — an affine layer; ``ReLU`` between affine layers;
* ``BatchNorm1d`` in eval mode — the affine map ``x ↦ s·(x − μ) + β`` with ``s = γ/√(σ² + ε)``,
  folded into the adjacent ``Linear``.  ``s`` is irrational in general: it is taken as the float32
  (the module's dtype) that torch itself computes for ``weight / sqrt(running_var + eps)``, exactly;
  that rounding is listed in the network's :attr:`~algebra.network.Network.provenance` (the shift
  ``β − μ·s`` is then exact).  The value is read off torch's own kernel (its output at x = 1
  with mean and shift 0), which rounds 1/√(σ² + ε) and then the product with γ: it differs from
  the float32 of ``weight / sqrt(var + eps)`` in about a third of the entries;
* ``Dropout`` (any variant), ``Identity``, ``Flatten`` — the identity at inference, skipped;
* anything else is refused by name.
"""

from __future__ import annotations

from ..exceptions import InputError, MissingDependencyError
from ..linalg import QMatrix
from ..network import Network
from ..rationals import Q
from .arrays import missing_bias_sentence
from .exact import check_dtype, exact_qmatrix, numpy_or_error, refuse_nonfinite

__all__ = ["network_from_torch", "network_from_sklearn", "block_from_torch", "ROUNDINGS",
           "roundings"]

ROUNDINGS = "roundings"
"""The key (of :meth:`~algebra.network.Network.derived`) under which a reader lists the values it
had to round (a folded BatchNorm's irrational scale): sentences that every verdict about the
network carries as hypotheses (the verdict is exact for the rounded network)."""


def roundings(net: Network) -> tuple[str, ...]:
    """The roundings a reader made to build *net* (empty for a network read exactly).

    >>> roundings(Network.from_rows([[[1]], [[1]]], [[0], [0]]))
    ()
    """
    return tuple(net.derived(ROUNDINGS, tuple))

_SKIPPED = {"Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout",
            "Identity", "Flatten"}
_CONTAINERS = {"Sequential"}


def _torch():
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("torch", "torch", "reading a torch module") from None
    return torch


def _array(t, name: str):
    """The numpy array of a tensor or array (bfloat16/float16 widened exactly)."""
    np = numpy_or_error()
    if hasattr(t, "detach"):
        torch = _torch()
        t = t.detach().cpu()
        if t.dtype in (torch.bfloat16, torch.float16):
            t = t.to(torch.float32)   # exact widening
        t = t.numpy()
    arr = check_dtype(np, np.asarray(t), name, None)
    refuse_nonfinite(arr, name, None)     # as stored, before a .T or a reshape (s51 audit F3)
    return arr


def _matrix(t, name: str) -> QMatrix:
    arr = _array(t, name)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise InputError(f"expected a 2-D weight, got shape {tuple(arr.shape)}", where=name)
    return exact_qmatrix(arr, name, None)


def _vector(t, name: str) -> list:
    return exact_qmatrix(_array(t, name).reshape(1, -1), name, None).entries()


def _walk(module, prefix: str = ""):
    """``(name, layer)`` of the leaves of (nested) ``nn.Sequential`` containers, in order."""
    if type(module).__name__ in _CONTAINERS:
        for name, child in module.named_children():
            yield from _walk(child, f"{prefix}{name}.")
    else:
        yield prefix.rstrip(".") or type(module).__name__, module


def _batchnorm_affine(bn, name: str, notes: list):
    """``(diagonal scale s, shift)`` of an eval-mode ``BatchNorm1d`` (s rounded as torch does)."""
    torch = _torch()
    kind = type(bn).__name__
    if bn.training:
        raise InputError(f"{kind} is in training mode (it would use batch statistics): call "
                         "model.eval() first", where=name)
    if bn.running_mean is None or bn.running_var is None:
        raise InputError(f"{kind} without running statistics (track_running_stats=False) "
                         "normalises with batch statistics: not a fixed function", where=name)
    n = bn.running_var.shape[0]
    with torch.no_grad():
        var = bn.running_var.detach().cpu()
        gamma = bn.weight.detach().cpu() if bn.weight is not None else torch.ones_like(var)
        beta = bn.bias.detach().cpu() if bn.bias is not None else torch.zeros_like(var)
        if not torch.isfinite(var).all() or not torch.isfinite(gamma).all():
            raise InputError(f"{kind} has a NaN or infinite statistic or weight", where=name)
        # the scale torch itself applies (its kernel computes 1/√(σ²+ε), then ·γ, in its own
        # order of roundings): the output at x = 1 with mean 0 and shift 0 is exactly that scale
        scale = torch.nn.functional.batch_norm(
            torch.ones(1, n, dtype=var.dtype), torch.zeros_like(var), var, gamma,
            torch.zeros_like(var), False, 0.0, bn.eps)[0]
    s = _vector(scale, f"{name} scale")
    mean = _vector(bn.running_mean, f"{name}.running_mean")
    shift = [b - m * si for b, m, si in zip(_vector(beta, f"{name}.bias"), mean, s)]
    notes.append(f"{kind} {name!r} folded into the adjacent Linear: its scale γ/√(σ²+ε) "
                 f"(ε = {bn.eps}) is irrational in general and was taken as the {scale.dtype} "
                 "torch's kernel computes for it, exactly; the shift β − μ·scale is exact")
    return QMatrix.diagonal(s), shift, n


def network_from_torch(module) -> Network:
    """The exact ReLU network of a torch ``nn.Sequential`` (see the module docstring).

    Raises
    ------
    InputError
        A layer other than Linear, ReLU, BatchNorm1d (eval mode), Dropout, Identity, Flatten
        (named), a BatchNorm in training mode, two ReLUs or a ReLU first or last, NaN/infinity.
    MissingDependencyError
        torch is not installed.
    """
    _torch()
    if type(module).__name__ == "Linear":
        module = [("0", module)]
    elif type(module).__name__ in _CONTAINERS:
        module = list(_walk(module))
    else:
        raise InputError(f"expected a torch nn.Sequential of Linear/ReLU layers, got a "
                         f"{type(module).__name__}; for an MLP block use Block.from_torch")
    layers, notes = [], []
    current = None        # the affine map (A, c) since the last ReLU, or None
    linear_seen = False   # whether a Linear is part of it
    last_relu = None
    shifted, missing = False, []   # whether a bias or BatchNorm shift is part of it; layers without
    for name, layer in module:
        kind = type(layer).__name__
        if kind in _SKIPPED:
            continue
        if kind == "Linear":
            A = _matrix(layer.weight, f"{name}.weight")
            c = _vector(layer.bias, f"{name}.bias") if layer.bias is not None else [Q(0)] * A.nrows
            shifted = shifted or layer.bias is not None
        elif kind == "BatchNorm1d":
            shifted = True
            A, c, n = _batchnorm_affine(layer, name, notes)
            if current is None and not layers:
                raise InputError("BatchNorm1d before the first Linear is not supported (fold it "
                                 "into the inputs)", where=name)
        elif kind == "ReLU":
            if current is None:
                raise InputError("ReLU " + ("first" if not layers else "twice in a row") +
                                 ": a ReLU must follow an affine layer", where=name)
            if not shifted:
                missing.append(len(layers))
            layers.append(current)
            current, last_relu, shifted = None, name, False
            continue
        else:
            raise InputError(f"unsupported layer {kind} (supported: Linear, ReLU, BatchNorm1d in "
                             "eval mode; Dropout, Identity and Flatten are skipped)", where=name)
        if current is None:
            current, linear_seen = (A, list(c)), kind == "Linear"
        else:   # compose the affine maps exactly: A (A0 x + c0) + c
            A0, c0 = current
            if A.ncols != A0.nrows:
                raise InputError(f"{kind} takes {A.ncols} inputs but the previous layer has "
                                 f"{A0.nrows} outputs", where=name)
            c_new = (A @ QMatrix.column(c0)).col_at(0)
            current = (A @ A0, [x + y for x, y in zip(c_new, c)])
            if kind == "Linear" and linear_seen:
                notes.append(f"two Linear layers without a ReLU between them, composed exactly at {name!r}")
            linear_seen = linear_seen or kind == "Linear"
    if current is None:
        if last_relu is not None:
            raise InputError("the network ends with a ReLU; netfibers networks have no activation "
                             "after the last layer (drop it: the fibers of the pre-activation net "
                             "are what is decided)", where=last_relu)
        raise InputError("no Linear layer found")
    if not shifted:
        missing.append(len(layers))
    layers.append(current)
    net = Network([A for A, _ in layers], [c for _, c in layers])
    if missing:
        notes.append(missing_bias_sentence(missing))
    net.derived("provenance", lambda: tuple(["read from a torch nn.Sequential, every float exactly"] + notes))
    net.derived(ROUNDINGS, lambda: tuple(n for n in notes if " folded into " in n))
    net.derived("missing_biases", lambda: tuple(missing))
    return net


def network_from_sklearn(mlp) -> Network:
    """The exact ReLU network of a fitted scikit-learn ``MLPClassifier``/``MLPRegressor``.

    ``coefs_[i]`` is (in, out) and becomes ``W_{i+1} = coefs_[i].T``; ``intercepts_[i]`` the
    bias.  The network computes the last layer's pre-activation: a classifier's output function
    (softmax/logistic) is left out, its argmax unchanged (listed in the provenance).
    """
    kind = type(mlp).__name__
    if not hasattr(mlp, "coefs_") or not hasattr(mlp, "intercepts_"):
        raise InputError(f"expected a fitted scikit-learn MLPClassifier/MLPRegressor, got a {kind} "
                         "without coefs_/intercepts_ (call fit first)")
    act = getattr(mlp, "activation", "relu")
    if act != "relu":
        raise InputError(f"the {kind} has activation {act!r}; netfibers networks are ReLU networks")
    ws = [_matrix(_array(c, f"coefs_[{i}]").T, f"coefs_[{i}]") for i, c in enumerate(mlp.coefs_)]
    bs = [_vector(b, f"intercepts_[{i}]") for i, b in enumerate(mlp.intercepts_)]
    net = Network(ws, bs)
    notes = [f"read from a scikit-learn {kind}: W_l = coefs_[l-1].T, b_l = intercepts_[l-1], "
             "every float exactly"]
    out = getattr(mlp, "out_activation_", "identity")
    if out != "identity":
        notes.append(f"the output activation {out!r} is not part of the network: it computes the "
                     + ("logit (the predicted class, its sign, is the same)" if len(bs[-1]) == 1 else
                        "logits (the predicted class, their argmax, is the same)"))
    net.derived("provenance", lambda: tuple(notes))
    return net


_ACT_NAMES = {("ReLU", False): "relu", ("GELU", False): "gelu", ("SiLU", False): "silu",
              ("Tanh", False): "tanh", ("Sigmoid", False): "sigmoid", ("SiLU", True): "swiglu",
              ("GELU", True): "geglu", ("ReLU", True): "reglu", ("Sigmoid", True): "glu"}


def _activation_of(act, gated: bool) -> str | None:
    if act is None:
        return None
    kind = type(act).__name__
    if kind == "GELU" and getattr(act, "approximate", "none") == "tanh":
        return None if gated else "gelu_tanh"
    if kind in ("GELUActivation",):
        kind = "GELU"
    if kind in ("SiLUActivation",):
        kind = "SiLU"
    return _ACT_NAMES.get((kind, gated))


def block_from_torch(module, *, activation: str | None = None, skip="identity",
                     prefix: str | None = None):
    """An MLP block (:class:`~algebra.blocks.Block`) from a torch module, exactly.

    Accepted: ``nn.Sequential(Linear, activation, Linear)`` (Dropout/Identity skipped), or any
    module whose ``state_dict`` has a block layout (``up_proj``/``gate_proj``/``down_proj``,
    ``fc1``/``fc2``, ``intermediate.dense``/``output.dense``; *prefix* chooses among several).
    The activation is read from the module (``act_fn``/``activation``/``act`` or the middle layer
    of the Sequential) when it is one netfibers knows, else *activation* must say it; *skip* is
    the residual (``"identity"`` by default: ``x + down(σ(up x))``).
    """
    from .blocks import block_from_tensors
    from ..blocks import Block
    _torch()
    kind = type(module).__name__
    if kind in _CONTAINERS:
        parts = [(n, m) for n, m in _walk(module) if type(m).__name__ not in _SKIPPED]
        if len(parts) != 3 or type(parts[0][1]).__name__ != "Linear" \
                or type(parts[2][1]).__name__ != "Linear":
            raise InputError("an nn.Sequential block must be Linear, activation, Linear; got "
                             + ", ".join(type(m).__name__ for _, m in parts))
        found = _activation_of(parts[1][1], False)
        act = activation or found
        if act is None:
            raise InputError(f"unknown activation layer {type(parts[1][1]).__name__}: pass "
                             "activation=... (e.g. 'gelu')", where=parts[1][0])
        up, down = parts[0][1], parts[2][1]
        w_up, w_down = _matrix(up.weight, f"{parts[0][0]}.weight"), _matrix(down.weight, f"{parts[2][0]}.weight")
        return Block(act, w_up, w_down, skip=skip,
                     b_up=_vector(up.bias, "b_up") if up.bias is not None else None,
                     b_down=_vector(down.bias, "b_down") if down.bias is not None else None)
    tensors = {}
    for name, t in module.state_dict().items():
        arr = _array(t, name)
        flat = arr.reshape(1, -1) if arr.size else arr.reshape(0, 0)
        tensors[name] = (tuple(int(n) for n in arr.shape), exact_qmatrix(flat, name, None).entries())
    if activation is None:
        gated = any(k.endswith("gate_proj.weight") for k in tensors)
        for attr in ("act_fn", "activation", "act", "intermediate_act_fn"):
            found = _activation_of(getattr(module, attr, None), gated)
            if found:
                activation = found
                break
    if activation is None:
        raise InputError(f"cannot tell the activation of this {kind}: pass activation=... "
                         "(e.g. 'gelu', 'swiglu')")
    return block_from_tensors(tensors, activation=activation, skip=skip, prefix=prefix)
