r"""The functional dimension of a one-hidden-layer network whose neurons all switch inside the
domain on distinct hyperplanes: N − n1, by a theorem (three-layer-fibers R38) instead of a rank.

For f(x) = V relu(W x + b) + c on an open convex domain D (R^d, the open orthant, the open
box), when every hidden neuron i has

* a non-zero row w_i and a non-zero outgoing column V[:, i],
* a hyperplane H_i = {w_i·x + b_i = 0} that meets D (the neuron switches inside it),
* (w_i, b_i) proportional to no other neuron's (w_j, b_j), with either sign,

the directions that leave f unchanged to first order are exactly the n1 positive scalings, so
the functional dimension is N − n1 (the proof is R38's).  Every hypothesis is an exact
comparison: :func:`one_layer_value` checks them in O(n1 (d + m)) operations, where the rank of
the Jacobian rows (ACAS Xu-size nets and above, ``RANK_ONLY``) costs minutes to hours and a
64-3072-64 transformer MLP block's (396 352 parameters) cannot be done at all.  The
``one_hidden_layer_dimension`` certificate names the network and the domain; its checker
(:mod:`semialgebraic.verify.one_hidden_layer_dimension`) re-checks the hypotheses itself.
"""

from __future__ import annotations

from algebra.network import Network
from algebra.rationals import Q

from .result import FunctionalDimension

__all__ = ["one_layer_hypotheses", "one_layer_value"]


def _sides(lo, hi, w, b):
    """``(min, max)`` of ``w·x + b`` over the box ``∏ [lo_k, hi_k]`` (None: unbounded)."""
    mn = mx = b
    for wk, l, h in zip(w, lo, hi):
        if wk == 0:
            continue
        a, z = (l, h) if wk > 0 else (h, l)          # where w_k x_k is smallest, largest
        mn = None if mn is None or a is None else mn + wk * a
        mx = None if mx is None or z is None else mx + wk * z
    return mn, mx


def one_layer_hypotheses(net: Network, dom) -> str:
    """"" when R38's hypotheses hold for *net* on *dom* (None, ``"orthant"``, ``(lo, hi)`` a cube,
    or ``[(lo_k, hi_k)]`` a box), else the first one that fails, in words.

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    >>> one_layer_hypotheses(net, None), one_layer_hypotheses(net, (Q(2), Q(3)))
    ('', 'neuron 0 does not switch inside the domain (its pre-activation keeps one sign there)')
    """
    if net.depth != 2:
        return f"not one hidden layer ({net.depth - 1} hidden layers)"
    d = net.n_inputs
    W, b = net.layer(0)
    V = net.weights[1]
    if dom is None:
        lo = hi = [None] * d
    elif dom == "orthant":
        lo, hi = [Q(0)] * d, [None] * d
    elif isinstance(dom, tuple):
        lo, hi = [Q(dom[0])] * d, [Q(dom[1])] * d
    else:
        lo, hi = [Q(a) for a, _ in dom], [Q(z) for _, z in dom]
    if any(a is not None and z is not None and a >= z for a, z in zip(lo, hi)):
        return "the domain has no interior"
    keys: dict = {}
    for i in range(W.nrows):
        w = W.row_at(i)
        k = next((k for k, v in enumerate(w) if v != 0), None)
        if k is None:
            return f"neuron {i} has a zero row"
        if all(V[o, i] == 0 for o in range(V.nrows)):
            return f"neuron {i} has a zero outgoing column"
        mn, mx = _sides(lo, hi, w, b[i])
        if not ((mn is None or mn < 0) and (mx is None or mx > 0)):
            return f"neuron {i} does not switch inside the domain (its pre-activation keeps one sign there)"
        key = tuple(v / w[k] for v in w) + (b[i] / w[k],)     # the hyperplane, either sign
        if key in keys:
            return f"neurons {keys[key]} and {i} have proportional rows (one hyperplane)"
        keys[key] = i
    return ""


def one_layer_value(net: Network, dom) -> FunctionalDimension | None:
    """The exact functional dimension N − n1 of *net* on *dom* when R38's hypotheses hold (the
    n1 scalings are the whole kernel, and they are moves that keep the function: the fiber
    dimension is n1), else None.

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    >>> fd = one_layer_value(net, None)
    >>> fd.value, fd.n_parameters, fd.fiber_dimension.value
    (10, 13, 3)
    """
    if one_layer_hypotheses(net, dom):
        return None
    N, n1 = net.n_parameters, net.widths[1]
    return FunctionalDimension(
        N, N - n1, N - n1,
        f"one hidden layer whose {n1} neurons have non-zero rows and outgoing columns and switch "
        "inside the domain on {n1} distinct hyperplanes: the kernel is their scalings "
        "(three-layer-fibers R38)".replace("{n1}", str(n1)),
        deficits=(f"{n1} positive scalings (S2), one per hidden neuron",),
        details={"theorem": "R38"}, fiber_floor=n1, fiber_exact_by="moves")
