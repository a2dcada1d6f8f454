r"""The functional dimension of a one-hidden-layer network whose neurons each are dead on the
domain or switch inside it on a hyperplane of their own: by a theorem (three-layer-fibers R38)
instead of a rank.

For f(x) = V relu(W x + b) + c on an open convex domain D (R^d, the open orthant, the open
box), classify each hidden neuron i:

* *dead*: w_i·x + b_i <= 0 on D (b_i < 0 for a zero row): its d + 1 + m parameters are free;
* *switching*: w_i·x + b_i takes both signs on D, on a hyperplane H_i that no other switching
  neuron shares ((w_i, b_i) proportional to no other, with either sign): one scaling (S2) when
  its outgoing column is non-zero, its d + 1 incoming parameters otherwise.

When every neuron is one of these, the Jacobian's kernel is exactly those directions (the proof
is R38's), so the functional dimension is N minus their number.  A neuron active on the whole
domain (a linear block, S4), a zero row with b_i >= 0, or two switching neurons on one
hyperplane: not decided here (the general method).  Every test is an exact comparison:
:func:`one_layer_kernel` costs O(n1 (d + m)) operations, where the rank of the Jacobian rows
(ACAS Xu-size nets and above, ``RANK_ONLY``) costs minutes to hours and a 64-3072-64
transformer MLP block's (396 352 parameters) cannot be done at all.  The
``one_hidden_layer_dimension`` certificate names the network, the domain and the value; its
checker (:mod:`semialgebraic.verify.one_hidden_layer_dimension`) re-classifies the neurons.
"""

from __future__ import annotations

from algebra.network import Network
from algebra.rationals import Q

from .result import FunctionalDimension

__all__ = ["one_layer_kernel", "one_layer_hypotheses", "one_layer_value"]


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


def one_layer_kernel(net: Network, dom) -> tuple[int, dict] | str:
    """``(dimension of the kernel, counts)`` by R38 for the one-hidden-layer *net* on *dom*
    (None, ``"orthant"``, ``(lo, hi)`` a cube, or ``[(lo_k, hi_k)]`` a box), or the first
    hypothesis that fails, in words.  Each neuron is *dead* (its pre-activation <= 0 on the
    domain, negative if its row is zero: all its d + 1 + m parameters free), or *switching* (it
    takes both signs inside the domain) on a hyperplane no other switching neuron shares: one
    scaling, or its d + 1 incoming parameters when its outgoing column is zero.  A neuron active
    on the whole domain (a linear block), a zero row with bias >= 0, or two switching neurons on
    one hyperplane: not decided here.

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    >>> one_layer_kernel(net, None)[0], one_layer_kernel(net, (Q(2), Q(3)))
    (3, 'neuron 0 is active on the whole domain (a linear block)')
    """
    if net.depth != 2:
        return f"not one hidden layer ({net.depth - 1} hidden layers)"
    d, m = net.n_inputs, net.n_outputs
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
    counts = {"scalings": 0, "unseen": 0, "dead": 0}
    for i in range(W.nrows):
        w = W.row_at(i)
        k = next((k for k, v in enumerate(w) if v != 0), None)
        if k is None:
            if b[i] < 0:
                counts["dead"] += 1
                continue
            return f"neuron {i} has a zero row and bias {b[i]} >= 0"
        mn, mx = _sides(lo, hi, w, b[i])
        if mx is not None and mx <= 0:
            counts["dead"] += 1
            continue
        if mn is not None and mn >= 0:
            return f"neuron {i} is active on the whole domain (a linear block)"
        key = tuple(v / w[k] for v in w) + (b[i] / w[k],)     # the hyperplane, either sign
        if key in keys:
            return f"neurons {keys[key]} and {i} switch on one hyperplane (proportional rows)"
        keys[key] = i
        if all(V[o, i] == 0 for o in range(V.nrows)):
            counts["unseen"] += 1
        else:
            counts["scalings"] += 1
    kernel = counts["scalings"] + (d + 1) * counts["unseen"] + (d + 1 + m) * counts["dead"]
    return kernel, counts


def one_layer_hypotheses(net: Network, dom) -> str:
    """"" when R38 decides *net* on *dom* (:func:`one_layer_kernel`), else why not.

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    >>> one_layer_hypotheses(net, None), one_layer_hypotheses(net, (Q(2), Q(3)))
    ('', 'neuron 0 is active on the whole domain (a linear block)')
    """
    got = one_layer_kernel(net, dom)
    return got if isinstance(got, str) else ""


def one_layer_value(net: Network, dom) -> FunctionalDimension | None:
    """The exact functional dimension N − (kernel of :func:`one_layer_kernel`) of *net* on *dom*
    when R38 decides it, else None.  With every neuron switching and seen the kernel is the n1
    scalings, moves that keep the function: the fiber dimension is n1 too; with dead or unseen
    neurons the fiber's lower end is left to :func:`~semialgebraic.dimension.directions.
    fiber_lower` (a dead neuron's row is not free in the fiber on R^d).

    >>> net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])
    >>> fd = one_layer_value(net, None)
    >>> fd.value, fd.n_parameters, fd.fiber_dimension.value
    (10, 13, 3)
    """
    got = one_layer_kernel(net, dom)
    if isinstance(got, str):
        return None
    kernel, counts = got
    N, d, m = net.n_parameters, net.n_inputs, net.n_outputs
    deficits = []
    if counts["scalings"]:
        deficits.append(f"{counts['scalings']} positive scalings (S2), one per switching neuron")
    if counts["unseen"]:
        deficits.append(f"{counts['unseen']} switching neurons with a zero outgoing column: their "
                        f"{d + 1} incoming parameters each free")
    if counts["dead"]:
        deficits.append(f"{counts['dead']} neurons never active on the domain: their {d + 1 + m} "
                        "parameters each free")
    plain = counts["unseen"] == counts["dead"] == 0
    return FunctionalDimension(
        N, N - kernel, N - kernel,
        "one hidden layer, each neuron dead on the domain or switching inside it on a hyperplane "
        "of its own: the kernel is the scalings of the switching neurons seen by the output, the "
        "incoming parameters of those it does not see, and every parameter of the dead ones "
        "(three-layer-fibers R38)",
        deficits=tuple(deficits), details={"theorem": "R38", "kernel": dict(counts)},
        fiber_floor=kernel if plain else None, fiber_exact_by="moves" if plain else "")
