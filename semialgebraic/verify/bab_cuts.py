r"""The cut rows of a ``bab_bound`` leaf: valid inequalities of single neurons, each re-proved.

A multiplier leaf (or an empty ``dual`` leaf) may hold ``"cuts"``: a list of
``{"cut": c, "rho": ρ}``, ``c`` an index into the certificate's table ``"cuts"`` (or the cut
inline), a cut being::

    {"at": [l, j], "alpha": [[k, a_k], ...], "beta": β, "delta": δ}

the row ``Σ_k a_k h_{l−1,k} + β h_{l,j} <= δ`` of hidden neuron ``(l, j)`` of the difference
network (``h_{−1}`` is the input ``x``; ``h_{l,j} = relu(z_{l,j})``, ``z_{l,j} = w·h_{l−1} + b``
with ``w``, ``b`` the network's own row) with its multiplier ``ρ >= 0``.  The checker proves
the row valid for every ``h_{l−1}`` in the leaf's box of it — the leaf's box for ``l = 0``,
else ``[max(lo, 0), max(hi, 0)]`` of the leaf's replayed (and tightened) intervals of layer
``l − 1`` — by computing the least valid right-hand side itself: the larger of ``max {α·x : x in
box, w·x + b <= 0}`` and ``max {(α + βw)·x + βb : x in box, w·x + b >= 0}``, two fractional
knapsacks (:func:`algebra.kernel.knapsack.relu_cut_rhs`, exact), which must be ``<= δ``.  Every
point of the leaf satisfies the row, so it may enter the Neumaier–Shcherbina bound: ``+ ρδ``
on the constant, ``− ρα`` on the coefficients of ``h_{l−1}`` (of ``x``), ``− ρβ`` on that of
``h_{l,j}``.  Where ``(α, β)`` came from is not trusted (the search separates Anderson et al.'s
convex-hull cuts in floats, Math. Prog. 2020; three-layer-fibers R30, R31).

A *pair cut* also holds ``"pair": [j2, β_2]`` and ``"mu": [μ_1, …, μ_4]``: the row has ``+ β_2
h_{l,j2}`` too (``j2`` another neuron of layer ``l``, ``j2 != j``) and is proved valid by
:func:`algebra.kernel.knapsack.pair_cut_rhs` with those multipliers (each ``>= 0``; any such
``μ`` gives an upper bound of the row on each sign region of the two neurons, three-layer-fibers
R32), which must be
``<= δ``; it adds ``− ρβ_2`` to the coefficient of ``h_{l,j2}``.

Imports ``algebra`` only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.kernel.knapsack import pair_cut_rhs, relu_cut_rhs
from algebra.rationals import Q, to_q

__all__ = ["cut_terms"]

_Z = Q(0)
_KEYS = {"at", "alpha", "beta", "delta"}
_PAIR_KEYS = _KEYS | {"pair", "mu"}


def _num(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise InputError(f"{what} must be an exact number (JSON integer or 'p/q' string)")
    return to_q(v)


def _parse(cut, widths, d):
    """``(l, j, alpha (dense), beta, delta, pair)`` of a cut (``pair`` None or ``(j2, β_2,
    μ)``); InputError when malformed."""
    if not isinstance(cut, dict) or set(cut) not in (_KEYS, _PAIR_KEYS):
        raise InputError("a cut holds 'at', 'alpha', 'beta', 'delta' (and a pair cut 'pair', 'mu')")
    at = cut["at"]
    if (not isinstance(at, list) or len(at) != 2 or not all(type(v) is int for v in at)
            or not 0 <= at[0] < len(widths) or not 0 <= at[1] < widths[at[0]]):
        raise InputError(f"cut at {at!r} is not a hidden neuron [layer, index]")
    l, j = at
    n = d if l == 0 else widths[l - 1]
    alpha = [_Z] * n
    seen = set()
    if not isinstance(cut["alpha"], list):
        raise InputError("a cut's alpha is a list of [index, value]")
    for ent in cut["alpha"]:
        if (not isinstance(ent, list) or len(ent) != 2 or type(ent[0]) is not int
                or not 0 <= ent[0] < n or ent[0] in seen):
            raise InputError(f"a cut's alpha entry {ent!r} is not [index, value] of a distinct input")
        seen.add(ent[0])
        alpha[ent[0]] = _num(ent[1], "cut alpha")
    pair = None
    if "pair" in cut:
        p, mu = cut["pair"], cut["mu"]
        if (not isinstance(p, list) or len(p) != 2 or type(p[0]) is not int or not 0 <= p[0] < widths[l]
                or p[0] == j):
            raise InputError(f"a pair cut's pair {p!r} is not [another neuron of layer {l}, beta]")
        if not isinstance(mu, list) or len(mu) != 4:
            raise InputError("a pair cut's mu is a list of four multipliers")
        pair = (p[0], _num(p[1], "pair cut beta"), [_num(v, "pair cut mu") for v in mu])
    return l, j, alpha, _num(cut["beta"], "cut beta"), _num(cut["delta"], "cut delta"), pair


def cut_terms(entries, Ws, bs, box, ivs, table=(), memo=None):
    """``(constant, x coefficients, h coefficients per hidden layer)`` of a leaf's cut
    *entries* (``{"cut": index into table | cut, "rho"}``) weighted by their ``rho``, every cut
    proved valid on the leaf (*box*, replayed intervals *ivs*), or a reason string; InputError
    when malformed.  *memo* (a dict living as long as the certificate's check, keyed by the
    cut's JSON object and the leaf's input box) keeps parsed cuts and proved validity."""
    if not isinstance(entries, list):
        raise InputError("a leaf's 'cuts' is a list")
    memo = {} if memo is None else memo
    widths = [len(W) for W in Ws[:-1]]
    const, cx, ch = _Z, [_Z] * len(box), [[_Z] * n for n in widths]
    for ent in entries:
        if not isinstance(ent, dict) or set(ent) != {"cut", "rho"}:
            raise InputError("a leaf's cut entry holds 'cut' (an index into 'cuts', or a cut) and 'rho'")
        cut = ent["cut"]
        if type(cut) is int:
            if not 0 <= cut < len(table):
                raise InputError(f"cut index {cut} is not in the certificate's table 'cuts'")
            cut = table[cut]
        key = id(cut)
        if key not in memo:
            memo[key] = (cut, _parse(cut, widths, len(box)))     # (holding the object: ids stay unique)
        l, j, alpha, beta, delta, pair = memo[key][1]
        rho = _num(ent["rho"], "cut rho")
        if rho < 0:
            return f"a negative cut multiplier at neuron ({l}, {j})"
        inputs = tuple(box) if l == 0 else tuple((max(lo, _Z), max(hi, _Z)) for lo, hi in ivs[l - 1])
        vkey = (key, inputs)
        if vkey not in memo:
            if pair is None:
                memo[vkey] = relu_cut_rhs(alpha, beta, Ws[l][j], bs[l][j], list(inputs))
            elif min(pair[2]) < 0:
                return f"a negative multiplier mu in the pair cut of neurons ({l}, {j}), ({l}, {pair[0]})"
            else:
                memo[vkey] = pair_cut_rhs(alpha, beta, pair[1], Ws[l][j], bs[l][j], Ws[l][pair[0]], bs[l][pair[0]],
                                          list(inputs), pair[2])
        least = memo[vkey]
        if least > delta:
            return (f"the cut of neuron ({l}, {j}) is not valid on the leaf: its right-hand side {delta} "
                    f"is below the least valid {least}")
        if rho == 0:
            continue
        const += rho * delta
        tgt = cx if l == 0 else ch[l - 1]
        for k, a in enumerate(alpha):
            if a != 0:
                tgt[k] -= rho * a
        ch[l][j] -= rho * beta
        if pair is not None:
            ch[l][pair[0]] -= rho * pair[1]
    return const, cx, ch
