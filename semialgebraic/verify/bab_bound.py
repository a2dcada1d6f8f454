r"""Checker of ``bab_bound`` certificates: a certified bound on ``max_o max_{x in box} |a_o − b_o|``.

Schema (version 1; built by :func:`semialgebraic.certificates.bab_bound_certificate`)::

    {"format": "netfibers.certificate", "type": "bab_bound",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "max_o max_x |a_o(x) - b_o(x)| <= upper on the box"
              | "max_o max_x |a_o(x) - b_o(x)| >= lower on the box",
     "a": <network>, "b": <network>,
     "box": [[lo, hi], ...],                 # one exact interval per input
     "upper": u,                             # exact (the bound claim)
     "objectives": [{"output": o, "sign": 1 | -1, "upper": u_os, "tree": <node>}, ...],
     "lower": l, "point": [x...], "output": o,   # optional: a point attaining l
     "epsilon": e}                               # optional, informational (ε-equivalence)

A tree node is ``{"split": [l, j], "children": [<z_lj <= 0>, <z_lj >= 0>]}`` or a leaf:
``{"empty": "interval"}`` (the split intervals are empty), ``{"empty": "dual", "mu", "alpha",
"beta"}`` (multipliers whose bound of the zero objective is negative: the relaxation is empty) or ``{"bound": b, "mu": [[...] per
layer], "alpha": [[...] per hidden layer], "beta": [[...] per hidden layer]}``: exact multipliers
of the triangle relaxation (rows documented in :mod:`semialgebraic.bab.relaxation`).  The checker
replays each tree (every internal node has both sides, so the leaves cover the box), recomputes
each leaf's pre-activation intervals by exact interval propagation with the splits on its path,
checks the multipliers' signs (α, β ≥ 0 on unstable neurons, β = 0 on stable active, both 0 on
stable inactive), recomputes the Neumaier–Shcherbina bound ``μ·b − β·s·lo + Σ_v max_{v in box}
(c − Aᵀy)_v v`` exactly and checks it is ``<= b <=`` the objective's ``upper`` ``<= upper``.  The
objectives must be exactly ``± (a_o − b_o)`` for every output.  The point (when present) must lie
in the box with ``max_o |a_o − b_o| >= lower`` there, exactly.

Imports ``algebra`` only (the search is :mod:`semialgebraic.bab`; this is independent code).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel import difference_network
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.linalg import interval_image
from algebra.rationals import Q, to_q

__all__ = ["check"]

_Z = Q(0)


def _q(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise InputError(f"{what} must be an exact number (JSON integer or 'p/q' string)")
    return to_q(v)


def _qlist(v, n, what):
    if not isinstance(v, list) or len(v) != n:
        raise InputError(f"{what} must be a list of {n} exact numbers")
    return [_q(x, what) for x in v]


def _intervals(Ws, bs, box, path):
    cur, out = list(box), []
    for l in range(len(Ws)):
        lay = list(interval_image(Ws[l], cur, bs[l]))
        if l < len(Ws) - 1:
            for j in range(len(lay)):
                lo, hi = lay[j]
                s = path.get((l, j))
                if s == 1:
                    lo = max(lo, _Z)
                elif s == 0:
                    hi = min(hi, _Z)
                if lo > hi:
                    return None
                lay[j] = (lo, hi)
            cur = [(max(lo, _Z), max(hi, _Z)) for lo, hi in lay]
        out.append(lay)
    return out


def _leaf_value(Ws, bs, box, ivs, c, leaf):
    """Exact bound of the leaf's multipliers, or a reason string when they are malformed/wrong."""
    L = len(Ws)
    if set(leaf) != {"bound", "mu", "alpha", "beta"}:
        raise InputError("a leaf holds 'bound', 'mu', 'alpha', 'beta' (or 'empty')")
    for key, n in (("mu", L), ("alpha", L - 1), ("beta", L - 1)):
        if not isinstance(leaf[key], list) or len(leaf[key]) != n:
            raise InputError(f"leaf {key} must have {n} layers")
    mu = [_qlist(leaf["mu"][l], len(Ws[l]), "mu") for l in range(L)]
    al = [_qlist(leaf["alpha"][l], len(Ws[l]), "alpha") for l in range(L - 1)]
    be = [_qlist(leaf["beta"][l], len(Ws[l]), "beta") for l in range(L - 1)]
    const = sum((mu[l][j] * bs[l][j] for l in range(L) for j in range(len(Ws[l]))), _Z)
    # coefficient of every variable in c − Aᵀy, with its box
    terms = []
    xco = [_Z] * len(box)
    for j, row in enumerate(Ws[0]):
        for k, w in enumerate(row):
            xco[k] += mu[0][j] * w
    terms += [(xco[k], box[k]) for k in range(len(box))]
    for l in range(L):
        for j, (lo, hi) in enumerate(ivs[l]):
            zco = -mu[l][j] + (c[j] if l == L - 1 else _Z)
            if l < L - 1:
                a, b = al[l][j], be[l][j]
                if lo < 0 < hi:
                    if a < 0 or b < 0:
                        return f"negative triangle multiplier at neuron ({l}, {j})"
                    s = hi / (hi - lo)
                    zco += -a + s * b
                    const += -b * s * lo
                elif lo >= 0:
                    if b != 0:
                        return f"beta on the stable active neuron ({l}, {j})"
                    zco += -a
                elif a != 0 or b != 0:
                    return f"multiplier on the stable inactive neuron ({l}, {j})"
                hco = a - b + sum((mu[l + 1][i] * Ws[l + 1][i][j] for i in range(len(Ws[l + 1]))), _Z)
                terms.append((hco, (max(lo, _Z), max(hi, _Z))))
            terms.append((zco, (lo, hi)))
    total = const
    for co, (lo, hi) in terms:
        total += co * hi if co > 0 else co * lo
    return total


def _check_tree(Ws, bs, box, c, tree, bound):
    n_hidden = [len(W) for W in Ws[:-1]]
    stack = [(tree, {})]
    leaves = 0
    while stack:
        node, path = stack.pop()
        if not isinstance(node, dict):
            raise InputError("a tree node is an object")
        if "split" in node:
            if set(node) != {"split", "children"}:
                raise InputError("a split node holds 'split' and 'children' only")
            sp, ch = node["split"], node["children"]
            if (not isinstance(sp, list) or len(sp) != 2 or not all(type(v) is int for v in sp)
                    or not 0 <= sp[0] < len(n_hidden) or not 0 <= sp[1] < n_hidden[sp[0]]):
                raise InputError(f"split {sp!r} is not a hidden neuron [layer, index]")
            if (sp[0], sp[1]) in path:
                return False, f"neuron {sp} split twice on one path"
            if not isinstance(ch, list) or len(ch) != 2:
                return False, "a split node needs both children (z <= 0, z >= 0): the leaves do not cover the box"
            for side in (0, 1):
                stack.append((ch[side], {**path, (sp[0], sp[1]): side}))
            continue
        leaves += 1
        ivs = _intervals(Ws, bs, box, path)
        if "empty" in node:
            if node["empty"] == "interval" and set(node) == {"empty"}:
                if ivs is not None:
                    return False, "a leaf claimed empty has non-empty intervals"
                continue
            if node["empty"] != "dual" or set(node) != {"empty", "mu", "alpha", "beta"}:
                raise InputError("an empty leaf is {'empty': 'interval'} or {'empty': 'dual', mu, alpha, beta}")
            if ivs is None:
                continue
            val = _leaf_value(Ws, bs, box, ivs, [_Z] * len(c),
                              {"bound": 0, **{k: node[k] for k in ("mu", "alpha", "beta")}})
            if isinstance(val, str):
                return False, val
            if not val < 0:
                return False, "an empty leaf's multipliers do not prove it empty (bound of 0 is not negative)"
            continue
        if ivs is None:
            continue                           # the leaf is empty anyway
        val = _leaf_value(Ws, bs, box, ivs, c, node)
        if isinstance(val, str):
            return False, val
        claimed = _q(node["bound"], "leaf bound")
        if val > claimed:
            return False, f"a leaf's multipliers prove {val}, not its claimed bound {claimed}"
        if claimed > bound:
            return False, f"a leaf's bound {claimed} exceeds the objective's upper bound {bound}"
    return True, f"{leaves} leaves"


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "bab_bound")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        return False, "a and b have different signatures"
    d, m = a.n_inputs, a.n_outputs
    box = cert["box"]
    if not isinstance(box, list) or len(box) != d or not all(isinstance(p, list) and len(p) == 2 for p in box):
        raise InputError(f"box must be {d} pairs [lo, hi]")
    box = [(_q(lo, "box"), _q(hi, "box")) for lo, hi in box]
    if any(lo > hi for lo, hi in box):
        return False, "an empty box interval"
    upper = _q(cert["upper"], "upper")
    lower = None
    if "lower" in cert or "point" in cert:
        if "lower" not in cert or "point" not in cert:
            raise InputError("'lower' and 'point' come together")
        lower = _q(cert["lower"], "lower")
        x = _qlist(cert["point"], d, "point")
        if any(not lo <= v <= hi for v, (lo, hi) in zip(x, box)):
            return False, "the point is outside the box"
        dev = max(abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x)))
        if dev < lower:
            return False, f"|a - b| at the point is {dev}, below the claimed lower bound {lower}"
    if cert["claim"] == CLAIMS["bab_bound"][1]:
        if lower is None:
            raise InputError("a lower-bound claim needs 'lower' and 'point'")
        return True, f"max |a - b| >= {lower} (attained at the point)"
    if lower is not None and lower > upper:
        return False, f"the point's deviation exceeds the claimed upper bound {upper}"
    objs = cert.get("objectives")
    if not isinstance(objs, list):
        raise InputError("objectives must be a list")
    D = difference_network(a, b)
    Ws = [W.to_rows() for W in D.weights]
    bs = [list(v) for v in D.biases]
    seen = set()
    for ob in objs:
        if not isinstance(ob, dict) or set(ob) != {"output", "sign", "upper", "tree"}:
            raise InputError("an objective holds output, sign, upper, tree")
        o, s = ob["output"], ob["sign"]
        if type(o) is not int or not 0 <= o < m or s not in (1, -1) or type(s) is not int:
            raise InputError("objective output/sign out of range")
        if (o, s) in seen:
            raise InputError("objective listed twice")
        seen.add((o, s))
        ub = _q(ob["upper"], "objective upper")
        if ub > upper:
            return False, f"objective ({o}, {s}) bound {ub} exceeds the claimed upper {upper}"
        c = [_Z] * m
        c[o] = Q(s)
        ok, why = _check_tree(Ws, bs, box, c, ob["tree"], ub)
        if not ok:
            return False, f"objective ({o}, {s}): {why}"
    if seen != {(o, s) for o in range(m) for s in (1, -1)}:
        return False, "the objectives do not cover ± (a_o − b_o) for every output"
    return True, f"max_o max_x |a_o - b_o| <= {upper} on the box" + (
        f" (and >= {lower}, attained)" if lower is not None else "")
