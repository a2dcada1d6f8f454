r"""Checker of ``functional_dimension`` certificates: a certified *lower bound* of the functional
dimension (three-layer-fibers R22, any depth).

Format::

    {"format": "netfibers.certificate", "type": "functional_dimension",
     "claim": "rank of the Jacobian of theta -> (f_theta(x))_x >= lower",
     "network": <network>, "domain": null | {"box": [lo, hi]} | {"orthant": true},
     "prime": p, "inputs": [[x_0, ..., x_{d-1}], ...], "lower": r,
     "upper": u, "upper_reason": "...",
     "upper_directions": [["scale", l, i], ["dead", l, i], ["free", k, <proof>], ...]}
                                                   # optional: certifies upper = N - rank

What is checked (exact; imports ``algebra`` only):

1. every input lies in the domain, and at every input every hidden pre-activation is non-zero,
   except for neurons whose incoming row and bias are zero (identically zero: inactive), so the
   activation masks are constant near the input and ``theta -> f_theta(x)`` is polynomial there;
2. ``p`` is a prime dividing no denominator of a parameter or of an input;
3. the Jacobian rows ``∂f_o(x)/∂θ`` (closed form: ``∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k]``,
   ``∂f/∂b_l[i] = δ_l[i]``, ``δ`` back-propagated through the masks) reduced mod p have rank
   ``>= lower``.

4. when ``upper_directions`` is given, ``upper == N − rank`` (exact) of the vectors they name,
   built here from θ: ``["scale", l, i]`` the positive-scaling generator of hidden neuron i of
   hidden layer l (S2: ``+W_l[i,·]``, ``+b_l[i]``, ``−W_{l+1}[·,i]``); ``["dead", l, i]`` the unit
   vectors of that neuron's incoming row, bias and outgoing column, after re-deriving by exact
   interval bounds over the domain that its pre-activation is <= 0 there (then δ_l[i] = 0 and
   h_l[i] = 0 at every input); ``["free", k, proof]`` the unit vector of parameter k, after
   re-checking the proof that it is never exercised (:mod:`semialgebraic.verify.exercise`).

Why this proves ``functional dimension >= lower``: a non-zero r×r minor mod p of the reduced
rows is the reduction of the same minor over Q, which is then non-zero; so the rational rank
of the rows, and the functional dimension (the largest rank of such rows over finite input
sets), is at least r.  Why step 4 proves ``<= upper``: f is invariant under every positive
rescaling of one neuron, so each scaling generator is annihilated by every Jacobian row
(wherever θ ↦ f_θ(x) is differentiable), and the rank is at most N minus the rank of their
span; the same holds for the unit vectors of a dead neuron's parameters and of a never-exercised
parameter, whose Jacobian columns vanish at every input.  Without ``upper_directions`` (other
symmetries: bias trades, always-active blocks) the upper bound is reported, not re-checked.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.matrices import QMatrix, nmod_rank
from algebra.rationals import Q

from .exercise import check_proof
from .region_cover import interval_bounds

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
    why = (f"the Jacobian rows at {len(X)} inputs have rank {rank} >= {lower} mod {p}, hence over "
           f"Q: functional dimension >= {lower}")
    dirs = cert.get("upper_directions")
    if dirs is None:
        return True, why + " (the upper bound is not certified)"
    upper = cert.get("upper")
    if not isinstance(upper, int) or isinstance(upper, bool):
        raise InputError("upper must be an integer")
    vectors = _scaling_vectors(net, dirs, lo_hi)
    if isinstance(vectors, str):
        return False, vectors
    bound = net.n_parameters - (QMatrix.from_rows(vectors, ncols=net.n_parameters).rank() if vectors else 0)
    if bound != upper:
        return False, f"N - rank of the listed directions is {bound}, not the claimed upper {upper}"
    return True, why + (f"; proven kernel directions: <= {upper}" +
                        (f"; exact: {upper}" if upper == lower else ""))


def _scaling_vectors(net, dirs, lo_hi) -> list | str:
    """The vectors named by the ``upper_directions`` entries (flat parameter order), or the
    reason an entry is not justified."""
    if not isinstance(dirs, list):
        raise InputError("upper_directions must be a list")
    offsets, k = [], 0
    for W, b in zip(net.weights, net.biases):
        offsets.append(k)
        k += W.nrows * W.ncols + len(b)
    zero, one, N = Q(0), Q(1), net.n_parameters
    bounds = None
    out = []
    for e in dirs:
        if not isinstance(e, list) or len(e) != 3 or e[0] not in ("scale", "dead", "free") \
                or not isinstance(e[1], int) or isinstance(e[1], bool):
            raise InputError(f"upper_directions entry {str(e)[:60]} is not ['scale'|'dead', layer, "
                             "neuron] or ['free', parameter, proof]")
        if e[0] == "free":
            k, proof = e[1], e[2]
            if not isinstance(proof, dict) or proof.get("parameter") != k or not 0 <= k < N:
                raise InputError(f"upper_directions ['free', {k}, ...]: the proof must be about "
                                 "parameter k of the network")
            if not check_proof(net, proof, lo_hi):
                return f"the proof that parameter {k} is never exercised does not check"
            out.append([one if t == k else zero for t in range(N)])
            continue
        if not isinstance(e[2], int) or isinstance(e[2], bool):
            raise InputError(f"upper_directions entry {e!r}: neuron must be an integer")
        kind, l, i = e
        if not 0 <= l < net.depth - 1 or not 0 <= i < net.widths[l + 1]:
            raise InputError(f"upper_directions entry {e!r} names no hidden neuron")
        W, b = net.layer(l)
        V, _ = net.layer(l + 1)
        if kind == "dead":
            if bounds is None:
                bounds = interval_bounds([w.to_rows() for w in net.weights], [list(c) for c in net.biases],
                                         net.n_inputs, lo_hi)
            hi = bounds[l][i][1]
            if hi is None or hi > 0:
                return f"neuron ({l}, {i}) is not dead on the domain by interval bounds"
            ks = ([offsets[l] + i * W.ncols + j for j in range(W.ncols)] + [offsets[l] + W.nrows * W.ncols + i]
                  + [offsets[l + 1] + o * V.ncols + i for o in range(V.nrows)])
            out.extend([one if t == k else zero for t in range(N)] for k in ks)
            continue
        v = [zero] * net.n_parameters
        W, b = net.layer(l)
        V, _ = net.layer(l + 1)
        for j, w in enumerate(W.row_at(i)):
            v[offsets[l] + i * W.ncols + j] = w
        v[offsets[l] + W.nrows * W.ncols + i] = b[i]
        for o, w in enumerate(V.col_at(i)):
            v[offsets[l + 1] + o * V.ncols + i] = -w
        out.append(v)
    return out


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
