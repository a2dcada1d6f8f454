r"""Exact facts about the parameter Jacobian of a ReLU network, from its weights and masks.

With ``δ_L = e_o`` and ``δ_l = D_l W_{l+1}ᵀ δ_{l+1}`` (``D_l`` the 0/1 mask of hidden layer l),
``∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k]`` and ``∂f/∂b_l[i] = δ_l[i]``.  These functions say which
signs a parameter's column needs to be non-zero and whether ``δ_l[i]`` vanishes under given
masks; no search.
"""

from __future__ import annotations

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from .networks import is_zero_neuron, parameter_offsets

__all__ = ["exercise_spec", "is_delta_zero"]


def exercise_spec(net: Network, parameter: int):
    """What parameter *parameter* (flat index) needs to be exercised (non-zero Jacobian column).

    Returns
    -------
    (targets, delta_of, last, full_last)
        ``targets``: ``{(t, j): +1}`` the hidden neurons (0-based layer t) that must be active:
        the input neuron ``h_{l-1}[k]`` of a weight ``W_l[i,k]`` (l >= 1) and the neuron (l, i)
        itself when it is hidden.  ``delta_of``: ``(l, i)`` when ``δ_l[i]`` depends on the masks
        of deeper hidden layers, ``None`` when it is constant (last two layers), ``"never"`` when
        the column is identically zero (a target is a zero neuron, or a last-hidden-layer neuron
        has zero outgoing weights).  ``last``: the last branched hidden layer (-1: none);
        ``full_last``: whether every neuron of that layer is branched.

    Examples
    --------
    >>> net = Network.from_rows([[[1], [-1]], [[1, 0]]], [[0, 0], [0]])
    >>> exercise_spec(net, net.parameter_names().index("W1[0,0]"))
    ({(0, 0): 1}, None, 0, False)
    >>> exercise_spec(net, net.parameter_names().index("b1[1]"))[1]
    'never'
    """
    offs = parameter_offsets(net)
    L = net.depth
    p_ = parameter
    l = max(t for t in range(L) if offs[t] <= p_)
    W = net.weights[l]
    q = p_ - offs[l]
    if q < W.nrows * W.ncols:
        i, k = divmod(q, W.ncols)
    else:
        i, k = q - W.nrows * W.ncols, None
    targets = {}
    if k is not None and l >= 1:
        targets[(l - 1, k)] = 1                       # h_{l-1}[k] > 0
    if l < L - 1:
        targets[(l, i)] = 1                           # δ_l[i] needs the mask D_l[i] = 1
    if any(is_zero_neuron(net, t, j) for t, j in targets):
        return targets, "never", -1, False            # a target is identically 0 (inactive)
    if l == L - 1:                                    # δ_L = e_o: only the input matters
        if not targets:
            return {}, None, -1, False
        return targets, None, l - 1, False
    Wn = net.weights[l + 1]
    if l == L - 2:                                    # δ_l[i] = W_L[:, i] (a constant)
        if all(Wn[o, i] == 0 for o in range(Wn.nrows)):
            return targets, "never", l, False
        return targets, None, l, False
    return targets, (l, i), L - 2, True


def is_delta_zero(net: Network, masks, t0: int, i: int) -> bool:
    """True when ``δ_{t0}[i] = 0`` for every output, from the 0/1 *masks* of hidden layers
    ``t0 … L−2`` (``masks[t][j]``; a missing entry means inactive).

    Examples
    --------
    >>> net = Network.from_rows([[[1]], [[1]], [[1]]], [[0], [0], [0]])
    >>> is_delta_zero(net, {0: {0: 1}, 1: {0: 1}}, 0, 0), is_delta_zero(net, {0: {0: 1}}, 0, 0)
    (False, True)
    """
    L = net.depth
    D = QMatrix.identity(net.n_outputs)               # δ_L (columns: outputs)
    for t in range(L - 2, t0 - 1, -1):
        Wn = net.weights[t + 1]
        on = masks.get(t, {})
        D = QMatrix.from_rows([row if on.get(q) else tuple([Q(0)] * net.n_outputs)
                               for q, row in enumerate((Wn.T @ D).to_rows())], ncols=net.n_outputs)
    return all(v == 0 for v in D.row_at(i))
