"""Torch ``state_dict`` files (``.pt``/``.pth``/``.bin``), read exactly.

Opened with ``torch.load(..., weights_only=True)``, so a pickled object is refused, never
executed; torch (extra ``netfibers[torch]``) is imported only when such a file is read.  The
tensors go through the exact conversion of :mod:`algebra.io.exact`.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from ..exceptions import InputError, MissingDependencyError
from .arrays import TensorDict, first_line
from .exact import check_dtype, numpy_or_error

__all__ = ["read_torch", "TORCH_SUFFIXES"]

TORCH_SUFFIXES = (".pt", ".pth", ".bin")


def read_torch(p: Path) -> dict:
    """``{name: numpy array}`` of a torch ``state_dict`` file (bfloat16 widened exactly)."""
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("torch", "torch", f"reading {p.name} (a torch file)") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            obj = torch.load(str(p), map_location="cpu", weights_only=True)
    except Exception as exc:  # weights_only refusals, truncated zips, not a torch file at all
        other = _other_format(p)
        if other:                # (it was called a refused pickle: s42 formats audit)
            raise InputError(f"not a torch file: {other}", source=str(p)) from None
        text = str(exc)
        if "WeightsUnpickler" in text or "Weights only load failed" in text:
            raise InputError(f"refused by torch.load(weights_only=True), nothing was executed: "
                             f"{torch_reason(exc)}; save model.state_dict() (a dict of tensors)",
                             source=str(p)) from None
        reason = torch_reason(exc).split(". ")[0]
        if isinstance(exc, KeyError) or len(reason) < 8:   # torch's legacy reader on foreign bytes: KeyError(101)
            reason = (f"neither a zip archive (torch.save) nor a legacy torch pickle "
                      f"({type(exc).__name__}: {reason or 'no message'})")
        raise InputError(f"not a readable torch file (truncated or corrupt?): {reason}",
                         source=str(p)) from None
    notes = []
    if isinstance(obj, dict) and not all(isinstance(t, torch.Tensor) for t in obj.values()):
        # a training checkpoint ({"model_state_dict": ..., "optimizer_state_dict": ..., "epoch":
        # ...}, any number of entries): its model's tensors (a 5-entry one was refused naming
        # model_state_dict as "not a tensor": s42 formats audit)
        inner = [k for k, v in obj.items() if isinstance(v, dict) and v
                 and all(isinstance(t, torch.Tensor) for t in v.values())]
        for key in ("state_dict", "model_state_dict", "model"):
            sub = obj.get(key)
            if isinstance(sub, dict) and sub and all(isinstance(t, torch.Tensor) for t in sub.values()):
                others = [k for k in inner if k != key]
                obj = sub
                if others:           # {"model": sd, "ema_model": sd_ema}: say which was read
                    many = len(others) > 1
                    notes.append(f"a checkpoint: its {key!r} entry read; its "
                                 f"{', '.join(map(repr, map(str, others)))} (also "
                                 f"{'state_dicts' if many else 'a state_dict'}) not read: save "
                                 f"{'one of them' if many else 'it'} alone to use it")
                break
        else:
            if len(inner) == 1:      # one dict of tensors under another name ({"net": sd, ...})
                obj = obj[inner[0]]
            elif len(inner) > 1:
                raise InputError(f"a checkpoint with several dicts of tensors ({', '.join(map(repr, inner))}) "
                                 "and none named state_dict, model_state_dict or model: save the "
                                 "one model's state_dict alone", source=str(p))
            else:                    # (a quantised model's packed entries are not tensors: read
                for key in ("state_dict", "model_state_dict", "model"):   # on, refused below)
                    if isinstance(obj.get(key), dict) and len(obj) <= 4:
                        obj = obj[key]
                        break
    if not isinstance(obj, dict):
        raise InputError(f"expected a state_dict (a dict of tensors), got a {type(obj).__name__}",
                         source=str(p))
    np = numpy_or_error()
    out = {}
    for name, t in obj.items():
        if "_packed_params" in str(name) or (isinstance(t, torch.Tensor) and t.is_quantized):
            raise InputError("a quantised state_dict (packed or quantised tensors, e.g. from "
                             "torch.ao.quantization.quantize_dynamic) is not read: save the float "
                             "model's state_dict, or dequantise its weights (w.dequantize()) first",
                             source=str(p), where=str(name))
        if not isinstance(t, torch.Tensor):
            raise InputError(f"expected a tensor, got a {type(t).__name__}", source=str(p),
                             where=str(name))
        if t.is_meta:                # torch.device("meta"): a shape without values
            raise InputError("a meta tensor (a shape without stored values: the model was built "
                             "on the meta device, or its weights were never loaded)",
                             source=str(p), where=str(name))
        try:
            t = t.detach().cpu()
        except (RuntimeError, NotImplementedError) as exc:
            raise InputError(f"unreadable tensor ({first_line(exc)})", source=str(p),
                             where=str(name)) from None
        if t.dtype == torch.bfloat16:
            t = t.to(torch.float32)  # exact widening
        if t.is_complex() or t.dtype == torch.bool or t.is_quantized:
            raise InputError(f"unsupported tensor dtype {t.dtype}", source=str(p), where=str(name))
        try:
            arr = t.contiguous().numpy()
        except (TypeError, RuntimeError, NotImplementedError) as exc:
            raise InputError(f"unsupported tensor ({first_line(exc)})", source=str(p),
                             where=str(name)) from None
        out[str(name)] = check_dtype(np, arr, str(name), str(p))
    return TensorDict(out, notes)


def _other_format(p: Path) -> str:
    """What *p* is when its first bytes say another format netfibers reads (safetensors, JSON,
    HDF5), with the suffix to give it; "" otherwise."""
    try:
        with open(p, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return ""
    if head.startswith(b"\x89HDF\r\n\x1a\n"):
        return "an HDF5 file (Keras .h5): rename it .h5"
    if len(head) >= 9 and head[8:9] == b"{" and 0 < int.from_bytes(head[:8], "little") < 1 << 32:
        return "a safetensors file: rename it .safetensors"
    if head.lstrip()[:1] in (b"{", b"["):
        return "a JSON file: rename it .json"
    return ""


def torch_reason(exc: BaseException) -> str:
    """The informative part of a ``torch.load`` error (its messages run over many lines)."""
    text = str(exc)
    m = re.search(r"WeightsUnpickler error:\s*(.+?)(?:\s+Please use|\n\s*\n\s*Check|$)", text, re.S)
    reason = (" ".join(m.group(1).split()) if m else first_line(exc)).rstrip(".")
    return reason if len(reason) <= 200 else reason[:197] + "..."
