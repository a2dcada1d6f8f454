"""Key layouts of a dict of tensors: which keys are layers, in which order, stored which way.

:func:`layer_order` orders the layers by what the names mean (``nn.Sequential`` ``0.weight``,
named ``fc1.weight``, ``W1``/``b1``, sklearn ``coefs_0``, Keras ``dense/kernel:0``), never by
sorting text; :func:`orient_layers` decides between (out, in) and (in, out) from the naming and
the shapes; :func:`block_prefixes` finds MLP blocks (:data:`BLOCK_NAMES`), refused as a network
with :class:`BlockLayoutError`.  Used by :mod:`algebra.io.arrays` and :mod:`algebra.io.blocks`.
"""

from __future__ import annotations

import re

from ..exceptions import InputError

__all__ = ["layer_order", "orient_layers", "block_prefixes", "BlockLayoutError", "BLOCK_NAMES"]

_WB = re.compile(r"^([WwBb])_?(\d+)$")
_SKLEARN = re.compile(r"^(coefs|intercepts)_[./]?(\d+)$")
_WEIGHT_SUFFIXES = (".weight", "/kernel:0", "/kernel", ".kernel")   # kernel: Keras (in, out)
_BIAS_SUFFIXES = (".bias", "/bias:0", "/bias")
_BATCHNORM_SUFFIXES = ("running_mean", "running_var", "num_batches_tracked", "moving_mean",
                       "moving_variance")
BLOCK_NAMES = ("up_proj", "gate_proj", "down_proj", "intermediate.dense", "output.dense",
               "DenseReluDense.wi", "DenseReluDense.wi_0", "DenseReluDense.wi_1", "DenseReluDense.wo",
               "c_fc", "dense_h_to_4h", "dense_4h_to_h")   # (not c_proj: GPT-2's attention too)
"""Layer names that mean an MLP block (LLaMA ``up/gate/down``, BERT ``intermediate/output``)."""
_LAST_NAMES = {"out", "output", "head", "classifier", "final", "last", "fc_out", "out_layer"}
_FIRST_NAMES = {"input", "in", "first", "fc_in", "in_layer"}


class BlockLayoutError(InputError):
    """The keys are those of MLP blocks (``up_proj``/``down_proj``, ``intermediate``/``output``),
    not of a network; ``prefixes`` lists the block prefixes found."""

    def __init__(self, problem: str, source: str | None = None, prefixes=()):
        super().__init__(problem, source)
        self.prefixes = tuple(prefixes)


def _key_list(keys, limit: int = 12) -> str:
    keys = list(keys)
    shown = ", ".join(keys[:limit])
    return shown + (f", … ({len(keys)} keys)" if len(keys) > limit else "")


def _strip(key: str, suffixes) -> str | None:
    """The layer prefix of *key* when it ends in one of *suffixes* (or is the bare name)."""
    for suf in suffixes:
        bare = suf.lstrip("./")
        if key == bare:
            return ""
        if key.endswith(suf):
            return key[:-len(suf)]
    return None


def block_prefixes(keys) -> list[str]:
    """Prefixes P of the MLP blocks named in *keys* (``P`` + ``up_proj.weight``, …), in file order.

    >>> block_prefixes(["encoder.layer.0.intermediate.dense.weight", "encoder.layer.0.output.dense.bias",
    ...                 "encoder.layer.1.intermediate.dense.weight", "pooler.dense.weight"])
    ['encoder.layer.0.', 'encoder.layer.1.']
    >>> block_prefixes(["fc1.weight", "fc2.weight"])
    []

    Mixtral's experts (``w1``, ``w2``, ``w3``: generic names, a block only under ``experts.N.``;
    one expert alone was read as a 3-layer ReLU network: s52 docs audit F1):

    >>> block_prefixes(["m.experts.0.w1.weight", "m.experts.0.w2.weight", "m.experts.0.w3.weight",
    ...                 "w1.weight"])
    ['m.experts.0.']
    >>> block_prefixes(["m.experts.0.w1.weight", "m.experts.0.w2.weight"])
    []
    """
    out = []
    keys = list(keys)
    parts: dict = {}                   # experts.N. prefix -> the w1/w2/w3 weights it holds
    for k in keys:
        expert = re.fullmatch(r"((?:.*\.)?experts\.\d+\.)(w[123])\.weight", k)
        if expert:
            parts.setdefault(expert.group(1), set()).add(expert.group(2))
    for k in keys:                     # (all three, as the block reader needs: an expert-named
        expert = re.fullmatch(r"((?:.*\.)?experts\.\d+\.)w[123]\.(?:weight|bias)", k)
        if expert and parts.get(expert.group(1)) == {"w1", "w2", "w3"} \
                and expert.group(1) not in out:     # w1/w2 pair stays a network: s52 audit)
            out.append(expert.group(1))
        for name in BLOCK_NAMES:
            for suf in (".weight", ".bias"):
                tail = name + suf
                if k == tail or k.endswith("." + tail):
                    p = k[:-len(tail)]
                    if p not in out:
                        out.append(p)
    return out


def layer_order(keys: list[str], source: str | None = None, *, module_numbers: bool = True):
    """``([(weight_key, bias_key or None), …] in layer order, stored_in_by_out)``.

    The order comes from what the names mean, never from sorting text: ``W1, b1, W2, …``;
    sklearn ``coefs_0``/``intercepts_0``; ``.weight``/``.bias`` (and Keras ``/kernel``/``/bias``)
    layers whose prefixes differ only in numbers (``0``, ``2``, ``10`` as numbers; ``fc1``,
    ``fc2``; ``layers.0``, ``layers.1``; Keras ``dense``, ``dense_1``), optionally with one first
    (``input``) or last (``out``, ``head``, ``classifier``, …) layer named so.
    ``stored_in_by_out`` is True when the naming says weights are stored (in, out) (sklearn
    ``coefs_``, Keras ``kernel``).  *module_numbers*: numbered keys are a torch model's module
    indices, whose gaps tell where activations sit (False for a reader that numbers the layers
    it found itself: ONNX).

    Raises
    ------
    BlockLayoutError
        The keys name MLP blocks (``up_proj``/``gate_proj``/``down_proj``,
        ``intermediate.dense``/``output.dense``).
    InputError
        The order cannot be determined (the keys are listed), a BatchNorm's statistics (a
        state_dict does not store its eps), a bias without weight, any other tensor.

    >>> layer_order(["10.weight", "2.weight", "0.weight", "0.bias"])
    ([('0.weight', '0.bias'), ('2.weight', None), ('10.weight', None)], False)
    >>> layer_order(["hidden.weight", "final_layer.weight"])
    Traceback (most recent call last):
        ...
    algebra.exceptions.InputError: cannot tell the order of the layers from the key names (final_layer.weight, hidden.weight); name them 0.weight, 2.weight, … (nn.Sequential), fc1.weight, fc2.weight, … or W1, b1, W2, …
    """
    blocks = block_prefixes(keys)
    if blocks:
        where = ", ".join(repr(p) for p in blocks[:4]) + (", …" if len(blocks) > 4 else "")
        raise BlockLayoutError(
            f"{'an MLP block' if len(blocks) == 1 else f'{len(blocks)} MLP blocks'} (prefix "
            f"{where}: the weight names of a transformer MLP: up/gate/down, intermediate/output, "
            "wi/wo, dense_h_to_4h/dense_4h_to_h, c_fc/c_proj or experts.N.w1/w2/w3), not a "
            "network: read blocks with the block commands and --activation (netfibers info lists "
            "them)",
            source, blocks)
    bn = sorted(k for k in keys if k.rsplit(".", 1)[-1].split("/")[-1].split(":")[0]
                in _BATCHNORM_SUFFIXES)
    if bn:
        raise InputError("unsupported tensor: BatchNorm statistics in a state_dict cannot be folded exactly (the file "
                         "does not store eps); load the module with Network.from_torch(model.eval()), "
                         "which folds BatchNorm1d into the preceding Linear", source, bn[0])
    wb = [k for k in keys if _WB.match(k)]
    sk = [k for k in keys if _SKLEARN.match(k)]
    if wb or sk:
        pattern, wkind = (_WB, "Ww") if wb else (_SKLEARN, ("coefs",))
        other = [k for k in keys if not pattern.match(k)]
        if other:
            raise InputError(f"mixes {'W1/b1' if wb else 'coefs_/intercepts_'} keys with other "
                             f"keys ({_key_list(other)})", source, other[0])
        ws, bs = {}, {}
        for k in keys:
            m = pattern.match(k)
            (ws if m.group(1) in wkind else bs).setdefault(int(m.group(2)), []).append(k)
        dup = [v for d in (ws, bs) for v in d.values() if len(v) > 1]
        if dup:
            raise InputError(f"duplicate layer numbers ({', '.join(dup[0])})", source)
        ws = {i: v[0] for i, v in ws.items()}
        bs = {i: v[0] for i, v in bs.items()}
        for i, k in bs.items():
            if i not in ws:
                raise InputError("a bias without its weight", source, k)
        order = sorted(ws)
        if order != list(range(order[0], order[0] + len(order))) or order[0] not in (0, 1):
            raise InputError(f"weights must be numbered consecutively from 0 or 1, got "
                             f"{', '.join(ws[i] for i in order)}", source)
        return [(ws[i], bs.get(i)) for i in order], bool(sk)
    weights, biases, kernel = {}, {}, set()
    for k in keys:
        p = _strip(k, _WEIGHT_SUFFIXES)
        if p is not None:
            weights[p] = k
            if "kernel" in k[len(p):]:
                kernel.add(p)
            continue
        p = _strip(k, _BIAS_SUFFIXES)
        if p is None:
            raise InputError("unsupported tensor: expected the .weight/.bias of linear layers "
                             "(nn.Sequential '0.weight', named 'fc1.weight'), W1, b1, … or "
                             "sklearn coefs_0, intercepts_0, …", source, k)
        biases[p] = k
    for prefix, k in biases.items():
        if prefix not in weights:
            raise InputError("a bias without its weight", source, k)
    if not weights:
        raise InputError(f"no weight among the keys ({_key_list(keys)})", source)
    if kernel and len(kernel) != len(weights):
        raise InputError(f"mixes Keras kernel and torch weight keys ({_key_list(keys)})", source)
    order = _order_prefixes(list(weights), keys, source)
    if module_numbers:
        _refuse_adjacent_linears(order, source)
    return [(weights[p], biases.get(p)) for p in order], bool(kernel)


def _refuse_adjacent_linears(order: list[str], source) -> None:
    """``nn.Sequential`` indices (``0.``, ``2.``, ``3.``; ``net.0.``, …) number every module,
    parameter-free ones too: where consecutive layers are 2 or more apart a module (the
    activation) sits between them, so two layers only 1 apart in the same numbering have none —
    a Linear straight after a Linear, which reading ReLU between layers would change (a
    projection head ``Linear(3, 5), ReLU, Linear(5, 4), Linear(4, 2)`` was read as a 3-5-4-2
    ReLU network: s42 formats audit).  Refused, naming the layers.  Numbers all 1 apart are
    left alone: a ``ModuleList`` of Linears applies its activations in ``forward``."""
    # the numbered layers of one Sequential (a first/last layer named 'input', 'head', … aside)
    parts = [(p, re.fullmatch(r"((?:.*\.)?)(\d+)\.?", p)) for p in order]   # a whole dotted number
    parts = [(p, m) for p, m in parts if m is not None]
    if len(parts) < 2 or len({m.group(1) for _, m in parts}) != 1:
        return
    idx = [int(m.group(2)) for _, m in parts]
    gaps = [b - a for a, b in zip(idx, idx[1:])]
    if len(parts) == len(order) and parts[0][1].group(1) == "" and set(gaps) == {1}:
        # bare numbers 0., 1., …: the state_dict of a model that IS an nn.Sequential (a
        # ModuleList is an attribute, its keys prefixed: layers.0.), whose Linears follow each
        # other with no module between: an affine map, not the ReLU net read before (a gap
        # named in session 42's note)
        raise InputError(
            f"layers {', '.join(p.rstrip('.') for p, _ in parts)} are consecutive modules of an "
            "nn.Sequential (keys without a prefix): Linears with no activation between them "
            "compute an affine map, which reading ReLU between layers would change; compose them "
            "into one layer (W = W2 W1, b = W2 b1 + b2), or, if a forward applies ReLU between "
            "them (a ModuleList), name the keys with its prefix (layers.0.weight, …)", source)
    if 1 in gaps and any(g >= 2 for g in gaps):
        k = gaps.index(1)
        raise InputError(
            f"layers {parts[k][0].rstrip('.')} and {parts[k + 1][0].rstrip('.')} are adjacent modules of an "
            "nn.Sequential (other layers have a module, the activation, between them): a Linear "
            "straight after a Linear, which reading ReLU between layers would change; compose "
            "them into one layer (W = W2 W1, b = W2 b1 + b2) or load the module itself with "
            "Network.from_torch(model)", source)


def _order_prefixes(prefixes: list[str], keys, source) -> list[str]:
    """Layer prefixes in layer order, from the numbers in them (never by sorting text)."""
    if len(prefixes) == 1:
        return prefixes
    first = [p for p in prefixes if p.rstrip("./").rsplit(".", 1)[-1] in _FIRST_NAMES]
    last = [p for p in prefixes if p.rstrip("./").rsplit(".", 1)[-1] in _LAST_NAMES]
    middle = [p for p in prefixes if p not in first and p not in last]
    ordered = None
    if len(first) <= 1 and len(last) <= 1 and middle:
        stem = {}
        for p in middle:   # Keras: dense, dense_1, dense_2 (the first has no number)
            if not re.search(r"\d", p) and any(q.startswith(p + "_") for q in middle):
                stem[p] = p + "_0"
        skeletons = {re.sub(r"\d+", "#", stem.get(p, p)) for p in middle}
        numbers = {p: tuple(int(n) for n in re.findall(r"\d+", stem.get(p, p))) for p in middle}
        if len(skeletons) == 1 and len(set(numbers.values())) == len(middle) \
                and (len(middle) == 1 or "#" in next(iter(skeletons))):
            ordered = first + sorted(middle, key=numbers.__getitem__) + last
    if ordered is None:
        pairs = any(p.rstrip(".").endswith("fc1") for p in prefixes) and \
            any(p.rstrip(".").endswith("fc2") for p in prefixes) or \
            any(re.search(r"experts\.\d+\.w[123]$", p.rstrip(".")) for p in prefixes)
        raise InputError(f"cannot tell the order of the layers from the key names "
                         f"({_key_list(sorted(keys))}); name them 0.weight, 2.weight, … "
                         "(nn.Sequential), fc1.weight, fc2.weight, … or W1, b1, W2, …"
                         + ("; its fc1/fc2 (or experts' w1/w2/w3) as MLP blocks (a transformer's): netfibers info "
                            "--block FILE, netfibers absorb FILE --activation A --all" if pairs
                            else ""), source)
    return ordered


def orient_layers(shapes: list[tuple], bias_lengths: list, stored_in_by_out: bool,
                  source: str | None = None, keys=None, *, strict: bool = False,
                  bias_keys=None) -> tuple[bool, str]:
    """``(transpose, note)``: whether the stored weights must be transposed to (out, in), and a
    sentence saying which layout was read.

    The layout the naming says is taken when the shapes fit it (biases of length ``out``, each
    layer's ``in`` the previous ``out``); else the other layout when the shapes fit only that
    (sklearn ``coefs_``/Keras ``kernel`` are (in, out), torch ``weight`` and ``W1`` are
    (out, in)); else the shapes fit neither and the error says how to fix the file.  With
    *strict* (names whose framework fixes the layout: torch ``.weight``) the other layout is
    never taken.

    >>> orient_layers([(64, 32), (32, 10)], [32, 10], False)
    (True, 'weights read as (in, out) (the sklearn coefs_ / Keras kernel layout): only that layout fits the shapes')
    >>> orient_layers([(32, 64), (10, 32)], [32, 10], False)[0]
    False
    """
    keys = list(keys or [f"layer {i + 1}" for i in range(len(shapes))])

    def failure(t):
        """None when the shapes fit layout *t* (True: stored (in, out)), else the first misfit."""
        prev = None
        for i, (shape, nb) in enumerate(zip(shapes, bias_lengths)):
            n_out, n_in = (shape[1], shape[0]) if t else shape
            if nb is not None and nb != n_out:
                bk = bias_keys[i] if bias_keys else f"the bias of {keys[i]}"
                return f"{bk}: a bias of {keys[i]!r} must have shape ({n_out},), got ({nb},)"
            if prev is not None and n_in != prev:
                return (f"{keys[i]}: has {n_in} input columns but the previous layer "
                        f"{keys[i - 1]!r} has {prev} outputs")
            prev = n_out
        return None
    names = {False: "(out, in) (the torch nn.Linear layout)",
             True: "(in, out) (the sklearn coefs_ / Keras kernel layout)"}
    said = stored_in_by_out
    first = failure(said)
    if first is None:
        ambiguous = not strict and failure(not said) is None     # all-square layers, W1 names
        return said, f"weights read as {names[said]}" + (
            f"; {names[not said].split(' (')[0]} fits the shapes too: a file stored the other way "
            "is read transposed (name the weights coefs_0, … for (in, out))" if ambiguous else "")
    other_fits = failure(not said) is None
    if other_fits and strict:
        raise InputError(f"{first} (layers in the order {', '.join(keys)}); the shapes would fit "
                         "weights stored (in, out): a torch .weight is (out, in), so transpose "
                         "them, or name them coefs_0, intercepts_0, … (sklearn) or W1, b1, …",
                         source)
    if other_fits:
        return not said, f"weights read as {names[not said]}: only that layout fits the shapes"
    listing = ", ".join(f"{k} {tuple(s)}" + (f" bias ({b},)" if b is not None else "")
                        for k, s, b in zip(keys, shapes, bias_lengths))
    raise InputError(f"{first} (layers in the order {', '.join(keys)}); the shapes fit neither "
                     f"weight layout, (out, in) as torch nn.Linear nor (in, out) as sklearn "
                     f"coefs_ / Keras kernel: {listing}; store each weight as (out, in) (e.g. W.T "
                     "of a coefs_ matrix) with a bias of length out, in layer order", source)
