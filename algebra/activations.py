"""Activation registry with the exact properties the skip-absorption theory uses.

Every activation (ungated σ, or gate g of a GLU-type block) is described by the facts the
decision procedures of ``skip-absorption.md`` rely on; nothing here is ever evaluated in floating
point.  Only the activations with ``is_rational`` True (ReLU, ReLU^p and the ReGLU / bilinear
gates) may be evaluated, exactly, over Q; GELU, SiLU, tanh and sigmoid are **never** evaluated in
a decision: their certificates use only the identities recorded here (skip-absorption §9 pitfall 1).

Properties (field names of :class:`Activation`):

* ``homogeneity`` — degree p of positive homogeneity of the *block* (B(tx) = t^p B(x), t > 0):
  ReLU 1, ReLU^p p, ReGLU 2, bilinear 2; None when not homogeneous (R5).
* ``is_odd_identity`` — σ(z) − σ(−z) = z (ReLU, GELU, SiLU, tanh-GELU): the flip certificate R9.
* ``is_gate_flat`` — gated, and the gate satisfies g(z) = O(|z|) near 0 with g(0) = 0 (SwiGLU,
  GeGLU: g(0) = 0, differentiable at 0; ReGLU and bilinear as well), so each unit is O(|x|²) and the
  block's Jacobian at 0 vanishes (R6, R7).  The sigmoid gate (GLU, g(0) = 1/2) is not covered.
* ``is_bounded`` — σ bounded on R (tanh, sigmoid): R18.
* ``is_rational`` — σ (or g) maps Q to Q and may be evaluated exactly.
* ``is_theorem_8_10`` — ReLU or GELU: the index-set criterion R8 (Theorems 8/10) applies.

>>> get_activation("relu").homogeneity, get_activation("relu^3").homogeneity
(1, 3)
>>> get_activation("swiglu").is_gate_flat, get_activation("glu").is_gate_flat
(True, False)
>>> get_activation("relu2").name
'relu^2'
>>> get_activation("relu2").evaluate(to_q(-3)), get_activation("relu2").evaluate(to_q("1/2"))
(0, 1/4)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .exceptions import InputError
from .rationals import Q, to_q

__all__ = ["Activation", "get_activation", "supported_activations", "canonical_activation_name"]


@dataclass(frozen=True)
class Activation:
    """Exact facts about one activation (ungated) or one gate (gated blocks)."""

    name: str
    is_gated: bool
    homogeneity: int | None
    is_odd_identity: bool
    is_gate_flat: bool
    is_bounded: bool
    is_rational: bool
    is_theorem_8_10: bool
    description: str

    def evaluate(self, z) -> Q:
        """σ(z) (ungated) or g(z) (gated: the gate), exactly; only when ``is_rational``.

        >>> get_activation("reglu").evaluate(to_q(-2)), get_activation("bilinear").evaluate(to_q(-2))
        (0, -2)
        """
        if not self.is_rational:
            raise InputError(f"activation {self.name!r} cannot be evaluated exactly over Q; "
                             "decisions about it use identities only")
        z = to_q(z)
        if self.name == "bilinear":
            return z
        r = z if z > 0 else Q(0)
        if self.name.startswith("relu^") and not self.is_gated:
            return r ** self.homogeneity
        return r


def _relu_power(p: int) -> Activation:
    return Activation(f"relu^{p}", False, p, False, False, False, True, False,
                      f"max(z, 0)^{p}: positively homogeneous of degree {p}")


_REGISTRY: dict[str, Activation] = {
    a.name: a for a in [
        Activation("relu", False, 1, True, False, False, True, True,
                   "max(z, 0): homogeneous of degree 1, relu(z) - relu(-z) = z"),
        Activation("gelu", False, None, True, False, False, False, True,
                   "z Phi(z): gelu(z) - gelu(-z) = z; never evaluated"),
        Activation("gelu_tanh", False, None, True, False, False, False, False,
                   "tanh approximation of GELU: odd part z/2; never evaluated"),
        Activation("silu", False, None, True, False, False, False, False,
                   "z / (1 + exp(-z)): silu(z) - silu(-z) = z; never evaluated"),
        Activation("tanh", False, None, False, False, True, False, False,
                   "tanh: bounded; never evaluated"),
        Activation("sigmoid", False, None, False, False, True, False, False,
                   "1 / (1 + exp(-z)): bounded; never evaluated"),
        Activation("reglu", True, 2, False, True, False, True, False,
                   "gate max(z, 0): block homogeneous of degree 2, g(z) = O(|z|)"),
        Activation("bilinear", True, 2, False, True, False, True, False,
                   "gate g(z) = z: block homogeneous of degree 2"),
        Activation("swiglu", True, None, False, True, False, False, False,
                   "gate silu: g(0) = 0, g'(0) = 1/2; never evaluated"),
        Activation("geglu", True, None, False, True, False, False, False,
                   "gate gelu: g(0) = 0, g'(0) = 1/2; never evaluated"),
        Activation("glu", True, None, False, False, False, False, False,
                   "gate sigmoid: g(0) = 1/2, not covered by the theory; never evaluated"),
    ]
}

_ALIASES = {"relu2": "relu^2", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
            "swish": "silu", "relu^1": "relu"}
_POWER = re.compile(r"^relu\^(\d+)$")


def supported_activations() -> tuple[str, ...]:
    """Names accepted by :func:`get_activation` (``relu^p`` stands for every integer p >= 2)."""
    return tuple(sorted(_REGISTRY)) + ("relu2", "relu^p")


def canonical_activation_name(name: object) -> str:
    """The registry name of *name* (``relu2`` -> ``relu^2``); InputError when unknown."""
    return get_activation(name).name


def get_activation(name: object) -> Activation:
    """Look up an activation by name (case-insensitive); unknown names list the supported ones.

    >>> get_activation("softplus")
    Traceback (most recent call last):
        ...
    algebra.exceptions.InputError: unknown activation 'softplus' (supported: bilinear, geglu, gelu, gelu_tanh, glu, reglu, relu, sigmoid, silu, swiglu, tanh, relu2, relu^p)
    """
    if not isinstance(name, str):
        raise InputError(f"activation must be a string, got {type(name).__name__}")
    key = name.strip().lower()
    key = _ALIASES.get(key, key)
    if key in _REGISTRY:
        return _REGISTRY[key]
    m = _POWER.match(key)
    if m:
        p = int(m.group(1))
        if p == 1:
            return _REGISTRY["relu"]
        if 2 <= p <= 64:
            return _relu_power(p)
        raise InputError(f"relu^p needs an integer 2 <= p <= 64, got {p}")
    raise InputError(f"unknown activation {name!r} (supported: {', '.join(supported_activations())})")
