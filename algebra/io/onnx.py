"""ONNX models (``.onnx``), read exactly: a chain of ``Gemm`` or ``MatMul`` (+ ``Add``) layers
with ``Relu`` between them, optionally after a leading ``Flatten`` (one later changes nothing);
a ``Transpose`` of an initializer (an export without constant folding) is applied to the stored
numbers; ``BatchNormalization`` after an affine layer is folded into it (its scale rounded to
float32, a rounding listed in the network's provenance); ``Identity`` and ``Dropout`` are
skipped; the initializers go through the exact conversion of :mod:`algebra.io.exact`.  onnx
(extra ``netfibers[io]``) is imported only when such a file is read.
"""

from __future__ import annotations

from pathlib import Path

from ..exceptions import InputError, MissingDependencyError
from ..network import Network
from .arrays import first_line, missing_bias_sentence, network_from_tensors
from .exact import check_dtype, exact_qmatrix, numpy_or_error, refuse_nonfinite
from .native import no_such_file

__all__ = ["load_onnx", "onnx_initializers"]


def load_onnx(p: Path) -> Network:
    """The ReLU network of an ONNX file (exact)."""
    model = _onnx_model(p)
    src = str(p)
    graph = model.graph
    inits = onnx_initializers(p, model)
    names_init = set(inits)
    inputs = [i.name for i in graph.input if i.name not in names_init]
    if len(inputs) != 1 or len(graph.output) != 1:
        raise InputError(f"expected one graph input and one output, got {len(inputs)} inputs and "
                         f"{len(graph.output)} outputs", source=src)
    current = inputs[0]
    ws, bs, folds, wnames = [], [], [], []
    state = "start"  # start | flattened | affine (an affine layer just ended) | relu
    for node in graph.node:
        op = node.op_type
        label = f"node {node.name or op} ({op})"
        if node.domain not in ("", "ai.onnx"):     # a custom operator that shares a name
            raise InputError(f"operator {op!r} of domain {node.domain!r} (only the standard "
                             "ONNX operators are read)", source=src, where=label)
        if op == "Constant":
            continue
        if op == "Transpose" and len(node.input) == 1 and node.input[0] in names_init \
                and len(node.output) == 1:
            # a weight transposed in the graph (torch.onnx.export without constant folding of a
            # bias-free Linear: MatMul(x, Transpose(W)); it was refused as "not a chain": s42
            # formats audit): a permutation of the stored numbers, exact, kept as a constant
            perm = {a.name: _onnx_attr(a) for a in node.attribute}.get("perm")
            A = inits[node.input[0]]
            if perm is not None and sorted(perm) != list(range(A.ndim)):
                raise InputError(f"Transpose perm {list(perm)} does not fit a {A.ndim}-D initializer",
                                 source=src, where=label)
            inits[node.output[0]] = A.transpose(perm) if perm is not None else A.T
            names_init.add(node.output[0])
            continue
        data_inputs = [i for i in node.input if i and i not in names_init]
        if data_inputs != [current]:
            raise InputError("only a chain of layers is supported: this node does not take the "
                             "previous layer's output", source=src, where=label)
        attrs = {a.name: _onnx_attr(a) for a in node.attribute}
        if op == "Flatten":
            if attrs.get("axis", 1) != 1:
                raise InputError("Flatten is supported only with axis=1", source=src, where=label)
            # first: the input's features in one row; later: a layer's output is already one
            # row per input, Flatten(axis=1) leaves it as it is (it was refused there)
            state = "flattened" if state == "start" else state
        elif op in ("Gemm", "MatMul"):
            if state in ("affine", "bn"):
                raise InputError("two affine layers without a Relu between them", source=src, where=label)
            ws_, b_ = _onnx_affine(node, attrs, inits, src, label)
            wnames.append(node.input[1])
            ws.append(ws_)
            bs.append(b_)
            state = "affine"
        elif op == "Add":
            if state != "affine" or not ws or len(node.input) != 2:
                raise InputError("Add is supported only as the bias of a MatMul", source=src, where=label)
            bname = [i for i in node.input if i in names_init]
            if len(bname) != 1:
                raise InputError("Add needs one initializer (the bias)", source=src, where=label)
            C = inits[bname[0]]
            refuse_nonfinite(C, bname[0], src)            # (named as stored: s51 audit F4)
            fits = C.size == ws[-1].shape[0] and (C.ndim == 1 or (C.ndim == 2 and C.shape[0] == 1))
            bias = C.reshape(-1) if fits else None        # ((n, 1) broadcasts to (n, n))
            if bias is None:
                raise InputError(f"bias shape {tuple(inits[bname[0]].shape)} does not fit "
                                 f"{ws[-1].shape[0]} outputs", source=src, where=bname[0])
            if bs[-1] is not None:
                raise InputError("a second bias on the same layer", source=src, where=label)
            bs[-1] = bias
        elif op == "Relu":
            if state not in ("affine", "bn"):
                raise InputError("Relu must follow an affine layer", source=src, where=label)
            state = "relu"
        elif op == "BatchNormalization":
            if state not in ("affine", "bn"):
                raise InputError("BatchNormalization is supported only right after an affine "
                                 "layer (it is folded into it)", source=src, where=label)
            params = list(node.input[1:5])
            if len(params) != 4 or not all(q in inits for q in params) or len(node.output) != 1:
                raise InputError("BatchNormalization needs scale, B, mean and var initializers "
                                 "(inference mode)", source=src, where=label)
            folds.append((len(ws) - 1, label, [inits[q].reshape(-1) for q in params],
                          attrs.get("epsilon", 1e-5)))
            state = "bn"
        elif op in ("Identity", "Dropout"):
            pass
        else:
            raise InputError(f"unsupported operator {op!r} (supported: Flatten, Gemm, MatMul, Add, "
                             "Relu, BatchNormalization; Identity and Dropout are skipped)",
                             source=src, where=label)
        current = node.output[0]
    if current != graph.output[0].name:
        raise InputError("the graph output is not the end of the layer chain", source=src)
    declared = _declared_features(next(i for i in graph.input if i.name == inputs[0]))
    if declared is not None and ws and declared != ws[0].shape[1]:
        raise InputError(f"the graph input {inputs[0]!r} is declared with {declared} features but "
                         f"the first layer takes {ws[0].shape[1]}", source=src)
    if state not in ("affine", "bn"):
        raise InputError("the graph must end with an affine layer (Gemm or MatMul + Add), not "
                         f"{'Relu' if state == 'relu' else 'nothing'}", source=src)
    arrays, keys = {}, []
    for l, (w, b) in enumerate(zip(ws, bs)):
        arrays[f"{l}.weight"] = w
        keys.append(f"{l}.weight")
        if b is not None:
            arrays[f"{l}.bias"] = b
    # the graph names its layers and its Relu nodes: said so, not the tensor files' "no
    # activation stored" and internal key names (s42 formats audit)
    net = network_from_tensors(arrays, source=src, described_as=(
        f"an ONNX chain of {len(ws)} affine layers (weights {', '.join(wnames)}) with the graph's "
        "Relu nodes between them",))
    return _fold_batchnorms(net, folds, src) if folds else net


def _fold_batchnorms(net: Network, folds, src) -> Network:
    """Fold ``y = s·(x − mean) + B`` with ``s = scale/√(var + ε)`` into the preceding layer,
    exactly, ``s`` taken as the float32 (the tensors' dtype) that correctly rounded operations
    give (numpy: ε, then the sum, the root and the quotient each rounded); runtimes may differ in
    the last bit, so the rounding is listed in the provenance."""
    np = numpy_or_error()
    folded = {l for l, *_ in folds}               # a bias-free layer gets BatchNorm's shift
    missing = tuple(l for l in net.missing_biases if l not in folded)
    notes = [n for n in net.provenance if not n.startswith("no bias stored")]
    notes += [missing_bias_sentence(missing)] if missing else []
    for l, label, (scale, beta, mean, var), eps in folds:
        n = net.widths[l + 1]
        if not all(a.size == n for a in (scale, beta, mean, var)):
            raise InputError(f"BatchNormalization parameters do not have {n} entries",
                             source=src, where=label)
        dt = np.result_type(scale.dtype, var.dtype, np.float32)
        with np.errstate(all="ignore"):
            s_arr = scale.astype(dt) / np.sqrt(var.astype(dt) + dt.type(eps))
        s = exact_qmatrix(s_arr.reshape(1, -1), f"{label} scale", src).entries()
        mu = exact_qmatrix(mean.reshape(1, -1), f"{label} mean", src).entries()
        bb = exact_qmatrix(beta.reshape(1, -1), f"{label} B", src).entries()
        W, b = net.layer(l)
        rows = W.to_rows()
        net = net.replace_layer(l, [[si * x for x in r] for si, r in zip(s, rows)],
                                [si * (bi - m) + be for si, bi, m, be in zip(s, b, mu, bb)])
        notes.append(f"{label} folded into layer {l + 1}: its scale/√(var+ε) (ε = {eps}) is "
                     f"irrational in general and was taken as the {dt} of scale / sqrt(var + ε) "
                     "in correctly rounded operations, exactly (a runtime may round it "
                     "differently in the last bit); the shift is exact")
    net.derived("provenance", lambda: tuple(notes))
    net.derived("roundings", lambda: tuple(n for n in notes if " folded into " in n))   # frameworks.ROUNDINGS
    net.derived("missing_biases", lambda: missing)
    return net


def _declared_features(value_info) -> int | None:
    """The features per input the graph's input declares (the product of its dimensions after
    the batch's), or None when a dimension is symbolic or not given."""
    try:
        dims = [d.dim_value if d.HasField("dim_value") else None
                for d in value_info.type.tensor_type.shape.dim]
    except AttributeError:
        return None
    if len(dims) < 2 or any(v is None or v <= 0 for v in dims[1:]):
        return None
    out = 1
    for v in dims[1:]:
        out *= v
    return out


def _onnx_affine(node, attrs, inits, src, label):
    """(W as (out, in) numpy array, bias array or None) of a Gemm/MatMul node."""
    np = numpy_or_error()
    params = [i for i in node.input[1:] if i]
    if not params or params[0] not in inits:
        raise InputError("the weight must be an initializer", source=src, where=label)
    B = inits[params[0]]
    if B.ndim != 2:
        raise InputError(f"weight must be 2-D, got shape {tuple(B.shape)}", source=src, where=params[0])
    refuse_nonfinite(B, params[0], src)     # by the file's name and index (the reader's own
    #                                         "{l}.weight", transposed, was named: s51 audit F4)
    if node.op_type == "MatMul":
        if len(params) != 1:
            raise InputError("MatMul takes two inputs", source=src, where=label)
        return np.ascontiguousarray(B.T), None
    for key, want in (("alpha", 1.0), ("beta", 1.0), ("transA", 0)):
        if attrs.get(key, want) != want:
            raise InputError(f"Gemm with {key}={attrs[key]} is not supported (only alpha=beta=1, "
                             "transA=0)", source=src, where=label)
    W = B if attrs.get("transB", 0) else B.T
    bias = None
    if len(params) > 1:
        if params[1] not in inits:
            raise InputError("the bias must be an initializer", source=src, where=label)
        C = inits[params[1]]
        refuse_nonfinite(C, params[1], src)
        if C.size != W.shape[0] or (C.ndim == 2 and C.shape[0] != 1):
            raise InputError(f"bias shape {tuple(C.shape)} does not fit {W.shape[0]} outputs",
                             source=src, where=params[1])
        bias = C.reshape(-1)
    return np.ascontiguousarray(W), bias


def _onnx_attr(a):
    import onnx
    return onnx.helper.get_attribute_value(a)


def _onnx_model(p: Path):
    try:
        import onnx
    except ImportError:
        raise MissingDependencyError("onnx", "io", f"reading {p.name} (an ONNX file)") from None
    if not p.exists():
        raise no_such_file(p)
    if p.stat().st_size == 0:                # (onnx reads it as an empty model: "0 inputs")
        raise InputError("empty file (0 bytes): not an ONNX model", source=str(p))
    try:
        return onnx.load(str(p))
    except Exception as exc:  # protobuf DecodeError, missing external data, …
        raise InputError(f"not a readable ONNX model (truncated or corrupt?): {first_line(exc)}",
                         source=str(p)) from None


def onnx_initializers(p: Path, model=None) -> dict:
    """``{name: numpy array}`` of the initializers and ``Constant`` values of an ONNX file."""
    np = numpy_or_error()
    model = model if model is not None else _onnx_model(p)
    from onnx import numpy_helper
    out = {}
    tensors = [(t.name, t) for t in model.graph.initializer]
    for node in model.graph.node:
        if node.op_type == "Constant":
            for a in node.attribute:
                if a.name == "value":
                    tensors.append((node.output[0], a.t))
                elif a.name in ("value_float", "value_floats", "value_int", "value_ints"):
                    tensors.append((node.output[0], np.asarray(
                        a.f if a.name == "value_float" else list(a.floats) if a.name == "value_floats"
                        else a.i if a.name == "value_int" else list(a.ints),
                        dtype=np.float32 if "float" in a.name else np.int64)))
    # a Dropout's training_mode (bool): true makes the graph random at inference (refused as
    # such, not as "unsupported dtype bool": s42 formats audit); false is inference, skipped
    modes = {n.input[2]: n for n in model.graph.node if n.op_type == "Dropout" and len(n.input) > 2
             and n.input[2]}
    seen = set()
    for name, _ in tensors:
        if name in seen:                      # which one a runtime uses is not defined
            raise InputError("two initializers or constants share this name", source=str(p),
                             where=name)
        seen.add(name)
    for name, t in tensors:
        try:
            arr = t if isinstance(t, np.ndarray) else numpy_helper.to_array(t)
        except Exception as exc:
            raise InputError(f"unreadable initializer ({first_line(exc)})", source=str(p),
                             where=name) from None
        if arr.dtype.name == "bfloat16":
            arr = arr.astype(np.float32)
        if name in modes and np.asarray(arr).dtype == np.bool_:
            if np.asarray(arr).any():
                node = modes[name]
                raise InputError("a Dropout in training mode (random at inference): export the "
                                 "model in eval mode (model.eval())", source=str(p),
                                 where=f"node {node.name or 'Dropout'} (Dropout)")
            arr = np.asarray(arr, dtype=np.float32)         # inference: the node is skipped
        out[name] = check_dtype(np, np.asarray(arr), name, str(p))
    return out
