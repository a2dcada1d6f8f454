r"""Exact verification of conservation laws and tangent fields (three-layer-fibers §8).

h is conserved iff ⟨∇h, ∇_θ f_{p,o}(θ, x)⟩ ≡ 0 for every sample pattern p and output o, as a
polynomial identity in θ (and in x for region-mode samples): no sampling.  A cheaper sufficient
test replaces the signals entering and leaving two adjacent layers by free symbols.  A vector
field X is tangent to the fiber iff ⟨X, ∇_θ f_{p,o}⟩ ≡ 0 in the same sense.
"""

from __future__ import annotations

from typing import Sequence

from ..exceptions import DimensionMismatchError, InputError
from ..network import Network
from ..polynomials import Polynomial, Ring
from ..rationals import q_str
from .fields import (_Embed, _component, _effective_masks, _gens, _layer_of, _normalize,
                     _sample_polys, parameter_ring_of)

__all__ = ["verify_law", "is_tangent"]


def verify_law(net: Network, h: Polynomial, samples, *, method: str = "auto",
               check=None) -> tuple[bool, str]:
    """Decide exactly whether *h* is conserved: ⟨∇h, ∇_θ f_{p,o}(θ, x)⟩ ≡ 0 for every sample.

    The identity is checked as a polynomial identity in θ (and in x for region-mode samples),
    for every output o.  ``method="local"`` first tries a cheaper sufficient test when h only
    involves layers l and l + 1: the same identity with the signals entering layer l and the
    back-propagated signals leaving layer l + 1 replaced by free symbols (it implies the true
    identity by substitution); ``"auto"`` falls back to the full check when the local test does
    not apply or fails; ``"full"`` always builds the network polynomials.

    Returns ``(True, reason)`` or ``(False, reason)`` naming a failing pattern and output.
    *check* (or None) is called before each sample's (or mask's) identity and may raise to
    stop a long verification (a deadline of the caller: nothing is decided then).

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> R = parameter_ring_of(net)
    >>> w, b, v = R.gen("W1[0,0]"), R.gen("b1[0]"), R.gen("W2[0,0]")
    >>> verify_law(net, w**2 + b**2 - v**2, [(1, -1), (-1, 1)])[0]
    True
    >>> ok, why = verify_law(net, w**2 + b**2 + v**2, [(1, -1)])
    >>> ok, why.split(":")[0]
    (False, 'not conserved on pattern (1, -1), output 0')
    """
    samples = _normalize(net, samples)
    if h.ring is not parameter_ring_of(net):
        raise InputError("the polynomial must live in the network's parameter ring")
    if method not in ("auto", "local", "full"):
        raise InputError(f"unknown method {method!r}; use auto, local or full")
    if method in ("auto", "local"):
        ok = _verify_local(net, h, samples, check)
        if ok is not None and ok[0]:
            return ok
        if method == "local":
            return ok if ok is not None else (False, "local test does not apply")
    return _verify_full(net, h, samples, check)


def is_tangent(net: Network, direction: Sequence[Polynomial], samples) -> tuple[bool, str]:
    """Whether the polynomial vector field *direction* is orthogonal to every gradient field
    (⟨X, ∇_θ f_{p,o}⟩ ≡ 0 exactly): then f is unchanged to first order along X on the samples,
    i.e. X is tangent to the fiber.

    >>> net = Network.from_rows([[[1]], [[1]], [[1]]], [[0], [-1], [0]])
    >>> R = parameter_ring_of(net)
    >>> X = [R.zero()] * 6
    >>> X[1], X[3] = R.constant(1), -R.gen("W2[0,0]")        # S6: b1 += t, b2 -= t W2
    >>> is_tangent(net, X, [(1, 1), (1, -1), (-1, -1)])
    (True, 'orthogonal to every gradient field on 3 samples')
    """
    samples = _normalize(net, samples)
    R = parameter_ring_of(net)
    if len(direction) != net.n_parameters:
        raise DimensionMismatchError("is_tangent", len(direction), net.n_parameters)
    for s in samples:
        ring, polys = _sample_polys(net, s)
        emb = _Embed(R, ring)
        for o in range(net.n_outputs):
            for pt, (hs, ds) in enumerate(polys):
                tot = ring.zero()
                for k, X_k in enumerate(direction):
                    if not X_k.is_zero():
                        comp = _component(net, k, hs, ds[o])
                        if comp is not None:
                            tot = tot + emb(X_k) * comp
                if not tot.is_zero():
                    return False, (f"not tangent on pattern {s.pattern}, output {o}: "
                                   f"⟨X, ∇f⟩ = {_short(tot)}")
    return True, f"orthogonal to every gradient field on {len(samples)} samples"


# ------------------------------------------------------------------------------------------
# private
# ------------------------------------------------------------------------------------------
def _verify_local(net, h, samples, check=None):
    """Sufficient test with free interface symbols; None when h spans more than 2 layers."""
    widths, L = net.widths, net.depth
    if L < 2:
        return None
    R = h.ring
    used = h.variables()
    if not used:
        return True, "constant"
    idx = [R.index(n) for n in used]
    layers = sorted({_layer_of(widths, k)[0] for k in idx})
    if layers[-1] - layers[0] > 1:
        return None
    l = layers[0] if layers[0] < L else L - 1  # hidden layer l, next layer l + 1
    if l < 1:
        return None
    n_in, n_l, n_out = widths[l - 1], widths[l], widths[l + 1]
    names = ([f"W{l}[{i},{j}]" for i in range(n_l) for j in range(n_in)] + [f"b{l}[{i}]" for i in range(n_l)]
             + [f"W{l + 1}[{k},{i}]" for k in range(n_out) for i in range(n_l)]
             + [f"b{l + 1}[{k}]" for k in range(n_out)]
             + [f"s[{j}]" for j in range(n_in)] + [f"u[{k}]" for k in range(n_out)])
    ring = Ring.get(names)
    emb = _Embed(R, ring)
    hh = emb(h)
    G = _gens(ring)
    W = [[G[f"W{l}[{i},{j}]"] for j in range(n_in)] for i in range(n_l)]
    b = [G[f"b{l}[{i}]"] for i in range(n_l)]
    V = [[G[f"W{l + 1}[{k},{i}]"] for i in range(n_l)] for k in range(n_out)]
    s = [G[f"s[{j}]"] for j in range(n_in)]
    u = [G[f"u[{k}]"] for k in range(n_out)]
    z = [sum((W[i][j] * s[j] for j in range(n_in)), b[i]) for i in range(n_l)]
    back = [sum((V[k][i] * u[k] for k in range(n_out)), ring.zero()) for i in range(n_l)]
    involved = sorted({_layer_of(widths, k)[2] for k in idx if _layer_of(widths, k)[0] == l}
                      | {_layer_of(widths, k)[3] for k in idx
                         if _layer_of(widths, k)[0] == l + 1 and _layer_of(widths, k)[1] == "W"})
    # effective masks: in a sample where no neuron of layer l + 1 reaches an output, δ_{l+1} ≡ 0
    # (path argument), the identity holds trivially there and the sample drops out
    masks = {tuple(_effective_masks(net, smp.pattern)[l - 1][i] for i in involved)
             for smp in samples}
    grads = {n: hh.diff(n) for n in names[:-(n_in + n_out)] if not hh.diff(n).is_zero()}
    for mk in masks:
        if check is not None:
            check()
        a = dict(zip(involved, mk))
        tot = ring.zero()
        for n, g in grads.items():
            ll, kind, i, j = _layer_of(widths, R.index(n))
            if ll == l:
                if not a.get(i, 0):
                    continue
                comp = back[i] * (s[j] if kind == "W" else 1)
            else:
                if kind == "b":
                    comp = u[i]
                else:
                    if not a.get(j, 0):
                        continue
                    comp = u[i] * z[j]
            tot = tot + g * comp
        if not tot.is_zero():
            return False, f"local test fails for mask {mk} of neurons {involved} in layer {l}"
    return True, (f"identity holds with free interface symbols for {len(masks)} mask(s) of "
                  f"hidden layer {l} (implies it for every sample)")


def _verify_full(net, h, samples, check=None):
    R = h.ring
    used = [R.index(n) for n in h.variables()]
    grads = {k: h.diff(k) for k in used}
    if not used:
        return True, "constant"
    layers = [_layer_of(net.widths, k)[0] for k in used]
    for s in samples:
        if check is not None:
            check()
        ring, polys = _sample_polys(net, s, min(layers), max(layers))
        emb = _Embed(R, ring)
        eg = {k: emb(g) for k, g in grads.items()}
        for pt, (hs, ds_all) in enumerate(polys):
            for o, ds in enumerate(ds_all):
                tot = ring.zero()
                for k, g in eg.items():
                    comp = _component(net, k, hs, ds)
                    if comp is not None:
                        tot = tot + g * comp
                if not tot.is_zero():
                    where = "" if s.points is None else f", point {[q_str(v) for v in s.points[pt]]}"
                    return False, (f"not conserved on pattern {s.pattern}, output {o}{where}: "
                                   f"⟨∇h, ∇f⟩ = {_short(tot)}")
    return True, f"⟨∇h, ∇f⟩ ≡ 0 on all {len(samples)} samples and {net.n_outputs} outputs"


def _short(p: Polynomial, n: int = 160) -> str:
    s = str(p)
    return s if len(s) <= n else s[:n] + " …"
