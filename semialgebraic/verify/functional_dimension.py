r"""Checker of ``functional_dimension`` certificates: a certified *lower bound* of the functional
dimension (three-layer-fibers R22, any depth).

Format::

    {"format": "netfibers.certificate", "type": "functional_dimension",
     "claim": "rank of the Jacobian of theta -> (f_theta(x))_x >= lower",
     "network": <network>, "domain": null | {"box": [lo, hi]} | {"orthant": true},
     "prime": p, "inputs": [[x_0, ..., x_{d-1}], ...], "lower": r,
     "upper": u, "upper_reason": "..."}          # reported, not checked here

What is checked (exact; imports ``algebra`` only):

1. every input lies in the domain, and at every input every hidden pre-activation is non-zero,
   except for neurons whose incoming row and bias are zero (identically zero: inactive), so the
   activation masks are constant near the input and ``theta -> f_theta(x)`` is polynomial there;
2. ``p`` is a prime dividing no denominator of a parameter or of an input;
3. the Jacobian rows ``∂f_o(x)/∂θ`` (closed form: ``∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k]``,
   ``∂f/∂b_l[i] = δ_l[i]``, ``δ`` back-propagated through the masks) reduced mod p have rank
   ``>= lower``.

Why this proves ``functional dimension >= lower``: a non-zero r×r minor mod p of the reduced
rows is the reduction of the same minor over Q, which is then non-zero; so the rational rank
of the rows, and the functional dimension (the largest rank of such rows over finite input
sets), is at least r.  The upper bound (N − rank of proven symmetry directions) is reported
with its reason but not re-checked by this checker.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.matrices import QMatrix, nmod_rank

__all__ = ["check"]


def check(cert: dict) -> tuple[bool, str]:
    for key in ("network", "prime", "inputs", "lower"):
        if key not in cert:
            raise InputError(f"functional_dimension certificate lacks {key!r}")
    net = network_from_dict(cert["network"], source="certificate[network]")
    p, lower = cert["prime"], cert["lower"]
    if not isinstance(p, int) or isinstance(p, bool) or not isinstance(lower, int) or isinstance(lower, bool):
        raise InputError("prime and lower must be integers")
    if not 2 <= p < 2 ** 21:
        raise InputError("prime must lie in [2, 2^21)")
    if not _is_prime(p):
        return False, f"{p} is not a prime"
    inputs = cert["inputs"]
    if not isinstance(inputs, list):
        raise InputError("inputs must be a list of points")
    d = net.n_inputs
    X = [parse_vector(x, f"inputs[{t}]", length=d) for t, x in enumerate(inputs)]
    lo_hi = _domain(cert.get("domain"))
    for t, x in enumerate(X):
        if lo_hi == "orthant" and any(v < 0 for v in x):
            return False, f"input {t} is not in the closed orthant"
        if isinstance(lo_hi, tuple) and any(v < lo_hi[0] or v > lo_hi[1] for v in x):
            return False, f"input {t} is not in the box"
    values = list(net.parameters()) + [v for x in X for v in x]
    if any(int(v.q) % p == 0 for v in values):
        return False, f"the prime {p} divides a denominator of a parameter or an input"
    if lower <= 0:
        return True, "a rank is never negative"
    if not X:
        return False, "no inputs"
    masks = _masks(net, X)
    if isinstance(masks, str):
        return False, masks
    rank = _rank_mod_p(net, X, masks, p)
    if rank < lower:
        return False, f"the Jacobian rows at the {len(X)} inputs have rank {rank} mod {p} < {lower}"
    return True, (f"the Jacobian rows at {len(X)} inputs have rank {rank} >= {lower} mod {p}, hence "
                  f"over Q: functional dimension >= {lower}")


def _is_prime(p: int) -> bool:
    if p < 2:
        return False
    k = 2
    while k * k <= p:
        if p % k == 0:
            return False
        k += 1
    return True


def _domain(dom):
    if dom is None:
        return None
    if isinstance(dom, dict) and dom.get("orthant") is True:
        return "orthant"
    if isinstance(dom, dict) and isinstance(dom.get("box"), list) and len(dom["box"]) == 2:
        lo, hi = (parse_number(v, "domain.box") for v in dom["box"])
        if lo > hi:
            raise InputError("domain.box: lo > hi")
        return (lo, hi)
    raise InputError(f"unknown domain {dom!r}")


def _masks(net, X):
    """Exact 0/1 masks per hidden layer (lists of rows), or the reason an input is rejected."""
    H = QMatrix.from_rows(X, ncols=net.n_inputs)
    masks = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        silent = [b[i] == 0 and all(v == 0 for v in W.row_at(i)) for i in range(W.nrows)]
        Z = (H @ W.T).add_to_rows(b)
        rows = Z.to_rows()
        for t, r in enumerate(rows):
            for i, v in enumerate(r):
                if v == 0 and not silent[i]:
                    return f"input {t}: pre-activation of neuron ({l}, {i}) is zero"
        masks.append([[1 if v > 0 else 0 for v in r] for r in rows])
        H = Z.relu()
    return masks


def _rank_mod_p(net, X, masks, p: int) -> int:
    """Rank mod p of the Jacobian rows (Python integers mod p; input-major, then output)."""
    def red(v):
        return int(v.p) % p * pow(int(v.q) % p, -1, p) % p
    Ws = [[[red(v) for v in row] for row in w.to_rows()] for w in net.weights]
    bs = [[red(v) for v in b] for b in net.biases]
    m = net.n_outputs
    rows = []
    for t, x in enumerate(X):
        hs = [[red(v) for v in x]]
        for l in range(net.depth - 1):
            z = [(sum(a * c for a, c in zip(wr, hs[-1])) + bb) % p for wr, bb in zip(Ws[l], bs[l])]
            hs.append([v if mk else 0 for v, mk in zip(z, masks[l][t])])
        for o in range(m):
            delta = [1 if i == o else 0 for i in range(m)]
            blocks = []
            for l in range(net.depth - 1, -1, -1):
                hin = hs[l]
                blocks.append([dv * hv % p for dv in delta for hv in hin] + list(delta))
                if l:
                    back = [sum(delta[i] * Ws[l][i][k] for i in range(len(delta))) % p
                            for k in range(len(hin))]
                    delta = [v if mk else 0 for v, mk in zip(back, masks[l - 1][t])]
            for blk in reversed(blocks):
                rows.extend(blk)
    N = net.n_parameters
    return nmod_rank(len(X) * m, N, rows, p)
