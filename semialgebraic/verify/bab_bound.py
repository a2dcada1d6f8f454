r"""Checker of ``bab_bound`` certificates: a certified bound on ``max_o max_{x in box} |a_o − b_o|``.

Schema (version 2; built by :func:`semialgebraic.certificates.bab_bound_certificate`)::

    {"format": "netfibers.certificate", "type": "bab_bound",
     "schema_version": 2, "netfibers_version": "<str, informational>",
     "claim": "max_o max_x |a_o(x) - b_o(x)| <= upper on the box"
              | "max_o max_x |a_o(x) - b_o(x)| >= lower on the box",
     "a": <network>, "b": <network>,
     "box": [[lo, hi], ...],                 # one exact interval per input
     "upper": u,                             # exact (the bound claim; absent from a lower-bound
                                             #   claim, which proves none: an older one's is ignored)
     "bounds": {"intervals": "symbolic", "grid_bits": 40,
                "differential": "paired" | "neurodiff"},
     "objectives": [{"output": o, "sign": 1 | -1, "upper": u_os, "tree": <node>}, ...],
     "lower": l, "point": [x...], "output": o,   # optional: a point attaining l
     "epsilon": e,                               # optional: the ε asked (equiv --epsilon); the
                                                 #   verdict says what the bounds show of it
     "halfspaces": [{"a": [a_1, ...], "b": b}, ...],  # optional: the domain is box ∩ {a·x <= b}
     "intermediate": [<record>, ...],                 # optional: LP-tightened intermediate bounds
     "b_aligned_by": [{"step": "S1" | "S2", ...}],    # optional: the trees bound a − b', b' = b
                                                      # after these symmetry steps (checked here)
     "reduction": [{"step": "merge" | "zero" | "dead", ...}],   # optional: the trees bound a − b'
                                                      # after these exact reduction steps on the
                                                      # box (replayed and checked here, as in a
                                                      # region_cover), then without the neurons
                                                      # of zero row and bias; the pairing is off
     "cuts": [<cut>, ...]}                            # optional: single-neuron cuts (bab_cuts.py)

A tree node is a neuron split ``{"split": [l, j], "children": [<z_lj <= 0>, <z_lj >= 0>]}`` of
the difference network ``D = a − b``, an input split ``{"split": ["x", k, mid], "children":
[<x_k <= mid>, <x_k >= mid>]}`` (``mid`` inside the node's interval of ``x_k``), or a leaf:
``{"empty": "interval"}`` (the intervals are empty: a split neuron's, or an output's two bounds
cross), ``{"empty": "dual", "mu", "alpha", "beta"}``
(multipliers whose bound of the zero objective is negative: the relaxation is empty), ``{"bound":
b, "by": "symbolic"}`` (the leaf's interval of the output bounds the objective), ``{"bound": b,
"by": "differential"}`` (the paired differential bound does) or ``{"bound": b, "mu": [[...] per
layer], "alpha": [[...] per hidden layer], "beta": [[...] per hidden layer]}``: exact multipliers
of the triangle relaxation (rows documented in :mod:`semialgebraic.bab.relaxation`), with
``"differential": "neurodiff"`` optionally also ``"gamma"``, ``"eta"`` (per hidden layer, one
per pair of neurons ``j`` of a and ``j`` of b, so only when a and b have one shape and no
``reduction``; also on ``{"empty": "dual", ...}`` leaves): the
multipliers (``>= 0``) of the pair rows ``h_a − h_b − su·(z_a − z_b) <= tu`` and ``−(h_a − h_b) +
sl·(z_a − z_b) <= −tl``, where ``(su, tu)``, ``(sl, tl)`` are the NeuroDiff lines of the pair at
the leaf (below: from the leaf's intervals and its symbolic δ of that layer).  With
``halfspaces``, a multiplier leaf (or an empty ``dual`` leaf) may add ``"kappa": [k_i, ...]``
(``k_i >= 0``, one per half-space): the rows ``a_i·x <= b_i`` then enter its bound (``+ k·b``,
``− Σ k_i a_i`` on the coefficients of ``x``); every other leaf bounds the objective over its whole
box, which contains the domain's part of it.

A multiplier leaf (or an empty ``dual`` leaf) may also hold ``"cuts"``: valid inequalities of
single neurons (indices into the certificate's optional table ``"cuts"``, or inline) with their
multipliers ``ρ >= 0``, each re-proved on the leaf's box by two exact knapsacks
(:mod:`semialgebraic.verify.bab_cuts`, three-layer-fibers R31).

Any leaf may also hold ``"tightened": [i, ...]`` (indices into ``intermediate``, or records
inline): intermediate bounds ``{"at": [l, j], "hi", "upper": {mu, alpha, beta[, kappa]}, "lo",
"lower": {...}}`` of hidden neurons, each proved from the layers below and intersected with the
replayed intervals, and (``"neurodiff"`` only) bounds ``{"pair": [l, j], ...}`` (multipliers with
``gamma``, ``eta``) of the paired ``δ_{l,j}``, each proved from the layers below and their pair
rows and intersected with the replayed δ (:mod:`semialgebraic.verify.bab_intermediate` states
the rules).

The checker replays each tree (every internal node has both sides, so the leaves cover the box)
and recomputes each leaf's intervals (:mod:`semialgebraic.verify.bab_replay`), from its box
and neuron splits:

* **symbolic intervals**: grid ``G = 2^-40``; layer 0 is the exact interval image of the box,
  rounded outward to G; layer ``l >= 1`` first the interval image of ``relu`` of layer ``l−1``
  (rounded outward), then for every neuron that is unstable there (every neuron of the output
  layer) the back-substitution of ``± z_l[j]`` through the relaxations of the layers below
  (active ``h = z``, inactive ``h = 0``, unstable ``sl·z <= h <= su·(z − lo)`` with ``su`` =
  ``hi/(hi−lo)`` rounded up to G and ``sl = 1`` when ``hi > −lo`` else 0; a positive
  coefficient takes the upper line, a negative one the lower), each coefficient on a ``h_k``
  (``k >= 0``, not the input) rounded down to G with ``(λ − λ')·max(hi_k, 0)`` added to the
  constant, maximised over the box, rounded outward to G and intersected with the interval
  image; then a neuron split clips its interval at 0 (empty: the leaf is empty);
* **paired differential bound** (:mod:`semialgebraic.bab.differential` states the rules): the
  interval of ``δ = z_a − z_b`` for each pair of neurons, layer by layer, rounded outward to G;
  the last δ bounds ``a − b``.  With ``"neurodiff"`` every layer ``l >= 1``'s δ interval is
  then intersected with the back-substitution (as above, same grid rounding) of ``± δ_l``
  through the network of ``(δ, z_b)``: ``δ_0 = (A_0 − B_0) x + α_0 − β_0``, ``z_{b,0} = B_0 x +
  β_0``, ``δ_l = A_l Δh + (A_l − B_l) h_b + α_l − β_l``, ``z_{b,l} = B_l h_b + β_l``, where
  ``h_b`` takes the DeepPoly lines of ``z_b`` and ``Δh = relu(z_a) − relu(z_b)`` the lines in δ
  of :func:`semialgebraic.bab.differential.delta_lines` (candidates: the constants of the
  paired interval rule; ``δ`` and ``δ + min(lb, 0)`` when ``la >= 0``; ``δ + max(−la, 0)`` and
  ``δ`` when ``lb >= 0``; the chords of ``max(0, δ)`` / ``min(0, δ)`` on ``[dl, du]``, slopes
  rounded up to G; the least upper / greatest lower line at the middle of ``[dl, du]``, the
  first on a tie); the cap of ``Δh`` in the coefficient rounding is the paired rule's upper
  end.  Each such δ is then met with the plain paired δ of its layer (the rules alone, from
  the plain δ below), or replaced by it when the two are disjoint (both enclose δ on the leaf,
  so the leaf is then empty): the neurodiff δ is never wider than the paired one.

It checks the multipliers' signs (α, β ≥ 0 on unstable neurons, β = 0 on stable active, both 0
on stable inactive), recomputes the Neumaier–Shcherbina bound ``μ·b − β·s·lo + Σ_v max_{v in
box} (c − Aᵀy)_v v`` (``s = hi/(hi − lo)`` exactly) or the symbolic or differential bound
exactly and checks it is ``<= b <=`` the objective's ``upper`` ``<= upper``.  The objectives must
be exactly ``± (a_o − b_o)`` for every output.  The point (when present) must lie in the box with
``max_o |a_o − b_o| >= lower`` there, exactly.

**Parts** (:func:`check_part`, through :func:`semialgebraic.verify.verify_part`): ``"claim"``
checks everything but the leaves (header, point, objectives, and every split of every tree, so
that the leaves cover the box); ``{"objective": k, "at": [side, ...]}`` the leaves of the
subtree of objective ``k`` reached by those child indices (a leaf's check depends on its box,
its splits and its own data only).  :func:`check` is ``"claim"`` and every root.

Imports ``algebra`` only (the search is :mod:`semialgebraic.bab`; this is independent code).
"""

from __future__ import annotations

from math import gcd

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel import difference_network, drop_zero_neurons
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.kernel.domains import Domain
from algebra.rationals import Q
from algebra.symmetries import step_from_json

from .bab_integers import IntVec, _int_rows_of, _lcm, _q, int_bias, int_matrix, max_over
from .bab_cuts import cut_terms
from .bab_intermediate import _records, leaf_deltas, leaf_intervals, split_leaf
from .bab_replay import GRID, _cached, _np, _obj, pair_rows, paired_deltas
from .region_cover import apply_reduction

__all__ = ["check", "check_part"]

_Z = Q(0)


def _qlist(v, n, what):
    if not isinstance(v, list) or len(v) != n:
        raise InputError(f"{what} must be a list of {n} exact numbers")
    return [_q(x, what) for x in v]


def _pair_part(leaf, ivs, rows):
    """The pair rows' constant and coefficient changes on ``z`` and ``h`` of a leaf with
    ``gamma``, ``eta`` (rows ``h_a − h_b − su·(z_a − z_b) <= tu`` and ``−(h_a − h_b) + sl·(z_a −
    z_b) <= −tl`` per pair, the lines *rows* replayed), or a reason string.  Exact integers:
    ``(constant, [zrow per hidden layer], [hrow per hidden layer])``, each an :class:`IntVec`."""
    depth = len(ivs)
    for key in ("gamma", "eta"):
        if not isinstance(leaf[key], list) or len(leaf[key]) != depth - 1:
            raise InputError(f"leaf {key} must have {depth - 1} layers")
    const, zc, hc = IntVec.zero(1), [], []
    for l in range(depth - 1):
        half = len(ivs[l]) // 2
        g = IntVec.parse(leaf["gamma"][l], half, "gamma")
        e = IntVec.parse(leaf["eta"][l], half, "eta")
        bad = _np().flatnonzero((g.num < 0) | (e.num < 0))
        if len(bad):
            return f"negative pair multiplier at ({l}, {int(bad[0])})"
        su, tu, sl, tl = (IntVec.of([r[i] for r in rows[l]]) for i in range(4))
        z = su.mul(g).sub(sl.mul(e))
        h = e.sub(g)
        part = tu.mul(g).sub(tl.mul(e))
        const = const.add(IntVec(_obj([part.num.sum()]), part.den))
        zc.append(z.concat(z.neg()))
        hc.append(h.concat(h.neg()))
    return const, zc, hc


def _kappa_terms(leaf, halfspaces, d):
    """``(−Σ k_i a_i, Σ k_i b_i)`` of a leaf's half-space multipliers (zeros without ``kappa``),
    or a reason string when one is negative."""
    xs, const = [_Z] * d, _Z
    if "kappa" not in leaf:
        return xs, const
    g = _qlist(leaf["kappa"], len(halfspaces), "kappa")
    for gi, (a, b) in zip(g, halfspaces):
        if gi < 0:
            return "a negative half-space multiplier"
        for k in range(d):
            xs[k] -= gi * a[k]
        const += gi * b
    return xs, const


def _mu_w(W, mu, n):
    """``Σ_i mu_i W[i][k]`` for every column ``k`` (exact; integer products, the rows' integer
    form made once per matrix)."""
    if not W:
        return [_Z] * n
    num, den = _cached(W, _int_rows_of)
    md = _lcm(mu)
    tot = _obj([int(v * md) for v in mu]).dot(num.reshape(len(W), -1))
    return [Q(int(t), md * den) for t in tot]


def _leaf_value(Ws, bs, box, ivs, c, leaf, pair_lines=None, halfspaces=(), cuts_of=None):
    """Exact bound of the leaf's multipliers, or a reason string when they are malformed/wrong.
    *pair_lines* (a callable giving the replayed pair lines) is needed by ``gamma``/``eta``,
    *halfspaces* (the certificate's ``[(a, b)]``) by ``kappa``, *cuts_of* (the certificate's
    table ``cuts`` and a memo for the check) by ``cuts``.

    The Neumaier–Shcherbina bound of the module docstring, on integers over one denominator
    per vector (:class:`IntVec`).  An unstable neuron's ``z`` term and its constant ``−β·s·lo``
    are added as one: with ``r`` the rest of its coefficient (``zco = r + s·β``, ``s = hi/(hi −
    lo)``), ``zco > 0`` iff ``r·(hi − lo) + β·hi > 0``, and then ``zco·hi − β·s·lo = (r + β)·hi``,
    else ``zco·lo − β·s·lo = r·lo`` — the same exact number, without the divisions by ``hi −
    lo``."""
    np = _np()
    L = len(Ws)
    keys = set(leaf) - {"kappa", "cuts"}
    if keys not in ({"bound", "mu", "alpha", "beta"}, {"bound", "mu", "alpha", "beta", "gamma", "eta"}) or (
            "kappa" in leaf and not halfspaces):
        raise InputError("a leaf holds 'bound', 'mu', 'alpha', 'beta' [, 'gamma', 'eta'] [, 'kappa' with "
                         "half-spaces] (or 'empty')")
    shift = _kappa_terms(leaf, halfspaces, len(box))
    if isinstance(shift, str):
        return shift
    for key, n in (("mu", L), ("alpha", L - 1), ("beta", L - 1)):
        if not isinstance(leaf[key], list) or len(leaf[key]) != n:
            raise InputError(f"leaf {key} must have {n} layers")
    mu = [IntVec.parse(leaf["mu"][l], len(Ws[l]), "mu") for l in range(L)]
    al = [IntVec.parse(leaf["alpha"][l], len(Ws[l]), "alpha") for l in range(L - 1)]
    be = [IntVec.parse(leaf["beta"][l], len(Ws[l]), "beta") for l in range(L - 1)]
    total = shift[1]
    for l in range(L):
        total += mu[l].mul(int_bias(bs[l])).value()
    cuts = None
    if "cuts" in leaf:                       # valid single-neuron rows (bab_cuts.py)
        table, memo = cuts_of if cuts_of is not None else ((), None)
        cuts = cut_terms(leaf["cuts"], Ws, bs, box, ivs, table, memo)
        if isinstance(cuts, str):
            return cuts
        total += cuts[0]
    zpair = hpair = None
    if "gamma" in keys:
        if pair_lines is None:
            return ("pair multipliers need the 'neurodiff' bounds of a difference of two networks "
                    "of one shape, paired neuron by neuron (no reduction)")
        part = _pair_part(leaf, ivs, pair_lines())
        if isinstance(part, str):
            return part
        extra, zpair, hpair = part
        total += extra.value()

    def mu_w(l, n):                                  # Σ_i mu_i W_l[i] (integers over mu.den · d)
        if not Ws[l]:
            return IntVec.zero(n)
        N, d = int_matrix(Ws[l])
        return IntVec(mu[l].num.dot(N.reshape(len(Ws[l]), -1)), mu[l].den * d)

    # the input's coefficients, over the box
    x = mu_w(0, len(box))
    if any(v != 0 for v in shift[0]):
        x = x.add(IntVec.of(shift[0]))
    if cuts is not None:
        x = x.add(IntVec.of(cuts[1]))
    total += max_over(x, IntVec.of([lo for lo, _ in box]), IntVec.of([hi for _, hi in box]))
    cvec = IntVec.of(c)
    for l in range(L):
        lo, hi = IntVec.of([v for v, _ in ivs[l]]), IntVec.of([v for _, v in ivs[l]])
        r = mu[l].neg()
        if l == L - 1:
            r = r.add(cvec)
            total += max_over(r, lo, hi)
            break
        a, b = al[l], be[l]
        unstable = (lo.num < 0) & (hi.num > 0)
        active = lo.num >= 0
        bad = np.where(unstable, (a.num < 0) | (b.num < 0),
                       np.where(active, b.num != 0, (a.num != 0) | (b.num != 0)))
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            if unstable[j]:
                return f"negative triangle multiplier at neuron ({l}, {j})"
            if active[j]:
                return f"beta on the stable active neuron ({l}, {j})"
            return f"multiplier on the stable inactive neuron ({l}, {j})"
        h = a.sub(b).add(mu_w(l + 1, len(ivs[l])))
        if cuts is not None:
            h = h.add(IntVec.of(cuts[2][l]))
        r = r.sub(a)
        if zpair is not None:
            r = r.add(zpair[l])
            h = h.add(hpair[l])
        total += max_over(h, IntVec(np.maximum(lo.num, 0), lo.den), IntVec(np.maximum(hi.num, 0), hi.den))
        # z: the unstable neurons' terms with their constants (docstring), the stable ones plain
        den = lo.den * hi.den // gcd(lo.den, hi.den)
        lo_n, hi_n = lo.to(den), hi.to(den)
        rden = r.den * b.den // gcd(r.den, b.den)
        rn, bn = r.to(rden), b.to(rden)
        up = np.where(unstable, rn * (hi_n - lo_n) + hi_n * bn > 0, rn > 0)
        term = np.where(up, (rn + np.where(unstable, bn, 0)) * hi_n, rn * lo_n)
        total += Q(int(term.sum()), rden * den)
    return total


def _affine_max(Ws, bs, box, ivs, c):
    """Exact maximum of ``c · D`` over a box on which no neuron is unstable (``D`` is affine
    there: inactive neurons (``hi <= 0 < lo`` fails, ``lo < 0``) output 0, the others ``z``)."""
    for l, layer in enumerate(ivs[:-1]):
        for j, (lo, hi) in enumerate(layer):
            if lo < _Z < hi:
                return f"an affine leaf has the unstable neuron ({l}, {j})"
    # forward: every pre-activation as (coefficients on x, constant)
    cur = [([Q(1) if i == k else _Z for i in range(len(box))], _Z) for k in range(len(box))]
    for l, (W, b) in enumerate(zip(Ws, bs)):
        nxt = []
        for row, bj in zip(W, b):
            co, cst = [_Z] * len(box), bj
            for w, (g, g0) in zip(row, cur):
                if w != _Z:
                    co = [u + w * v for u, v in zip(co, g)]
                    cst += w * g0
            nxt.append((co, cst))
        if l < len(Ws) - 1:
            nxt = [(g, g0) if ivs[l][j][0] >= _Z else ([_Z] * len(box), _Z) for j, (g, g0) in enumerate(nxt)]
        cur = nxt
    total = sum((cj * cur[o][1] for o, cj in enumerate(c) if cj != _Z), _Z)
    for k, (lo, hi) in enumerate(box):
        g = sum((cj * cur[o][0][k] for o, cj in enumerate(c) if cj != _Z), _Z)
        total += g * hi if g > _Z else g * lo
    return total


def _split_of(node, n_hidden, d, box_here, path):
    """The split of an internal node as ``("n", l, j)`` or ``("x", k, mid)`` (InputError when
    malformed; a reason string when it cannot split this node)."""
    if set(node) != {"split", "children"}:
        raise InputError("a split node holds 'split' and 'children' only")
    sp = node["split"]
    if isinstance(sp, list) and len(sp) == 3 and sp[0] == "x":
        k = sp[1]
        if type(k) is not int or not 0 <= k < d:
            raise InputError(f"split {sp!r} is not an input coordinate")
        mid = _q(sp[2], "split point")
        lo, hi = box_here[k]
        if not lo <= mid <= hi:
            return f"split point {mid} outside [{lo}, {hi}]: the children do not cover the node"
        return ("x", k, mid)
    if (not isinstance(sp, list) or len(sp) != 2 or not all(type(v) is int for v in sp)
            or not 0 <= sp[0] < len(n_hidden) or not 0 <= sp[1] < n_hidden[sp[0]]):
        raise InputError(f"split {sp!r} is not a hidden neuron [layer, index] or ['x', k, mid]")
    if (sp[0], sp[1]) in path:
        return f"neuron {sp} split twice on one path"
    return ("n", sp[0], sp[1])


def _pair_lines_of(net, key, here, ivs):
    """A callable giving the node's replayed pair lines (cached), or None without 'neurodiff' or
    when a and b are not of one shape paired neuron by neuron (the δ replay reads the
    difference network as two equal block-diagonal halves: on other networks its intervals,
    hence the pair rows, are not valid; session-33 bab audit: a false max |a − b| <= 0 on nets
    of different widths was VALID)."""
    if not net["neurodiff"] or not net["paired"] or len(net["rows"]) < 2:
        return None

    def lines():
        if key not in net["pairs"]:
            net["pairs"][key] = pair_rows(net["rows"], ivs, _deltas_of(net, key, here, ivs))
        return net["pairs"][key]
    return lines


def _deltas_of(net, key, here, ivs):
    """Every layer's δ of the node (cached): symbolic with 'neurodiff', else the interval rules;
    the leaf's pair records (its ``tightened`` refs, ``net["refs"][key]``; *key* names the
    leaf) proved and applied."""
    if key not in net["deltas"]:
        refs = net.get("refs", {}).get(key)
        if refs:
            net["deltas"][key] = leaf_deltas(net, here, ivs, refs, _leaf_value)
        else:
            net["deltas"][key] = paired_deltas(net["rows"], net["biases"], here, ivs,
                                               symbolic=net["neurodiff"], every_layer=True)
    got = net["deltas"][key]
    if isinstance(got, str):
        raise _PairRefuted(got)
    return got


class _PairRefuted(Exception):
    """A leaf's pair record is not proved by its multipliers (the reason is the message)."""


def _children(node, n_hidden, d, path, here):
    """``[(child, path, box)]`` of a split node (both sides), or a reason string."""
    sp = _split_of(node, n_hidden, d, here, path)
    if isinstance(sp, str):
        return sp
    ch = node["children"]
    if not isinstance(ch, list) or len(ch) != 2:
        return "a split node needs both children: the leaves do not cover the box"
    out = []
    for side in (0, 1):
        if sp[0] == "x":
            sub = list(here)
            lo, hi = here[sp[1]]
            sub[sp[1]] = (lo, sp[2]) if side == 0 else (sp[2], hi)
            out.append((ch[side], path, sub))
        else:
            out.append((ch[side], {**path, (sp[1], sp[2]): side}, here))
    return out


def _descend(net, box, tree, sides):
    """``(node, path, box)`` of the node of *tree* reached by the child indices *sides* (every
    split on the way checked), or a reason string."""
    n_hidden = [len(W) for W in net["rows"][:-1]]
    at = (tree, {}, list(box))
    for side in sides:
        if not isinstance(at[0], dict) or "split" not in at[0] or type(side) is not int or side not in (0, 1):
            raise InputError(f"the part's path {sides!r} is not a path of the tree")
        kids = _children(at[0], n_hidden, len(box), at[1], at[2])
        if isinstance(kids, str):
            return kids
        at = kids[side]
    return at


def _check_tree(net, box, c, tree, bound, start=None, leaves_too=True):
    """``(ok, reason)``: replay *tree* (or, with *start* ``(node, path, box)``, its subtree
    there), every leaf re-proved ``<= bound``; without *leaves_too* only its splits (the leaves
    counted, not checked)."""
    try:
        return _check_leaves(net, box, c, tree, bound, start, leaves_too)
    except _PairRefuted as e:
        return False, str(e)


def _check_leaves(net, box, c, tree, bound, start=None, leaves_too=True):
    Ws, bs = net["rows"], net["biases"]
    n_hidden = [len(W) for W in Ws[:-1]]
    d = len(box)
    stack = [start or (tree, {}, list(box))]
    leaves = 0
    while stack:
        node, path, here = stack.pop()
        if not isinstance(node, dict):
            raise InputError("a tree node is an object")
        if "split" in node:
            kids = _children(node, n_hidden, d, path, here)
            if isinstance(kids, str):
                return False, kids
            stack += kids
            continue
        leaves += 1
        if not leaves_too:
            continue
        node, refs = split_leaf(node)
        if refs and not (net["neurodiff"] and net["paired"]) and \
                any(k[0] == "pair" for k in _records(net, refs)):   # (unused ones too: bab audit)
            raise InputError("pair records need the 'neurodiff' bounds of a difference of two "
                             "networks of one shape")
        key = (tuple(here), tuple(sorted(path.items())), repr(refs))
        key = net.setdefault("leaf_keys", {}).setdefault(key, len(net["leaf_keys"]))   # hashed once
        net.setdefault("refs", {}).setdefault(key, refs)
        if key not in net["seen"]:              # objectives share nodes: replay each one once
            net["seen"][key] = leaf_intervals(net, here, path, refs, _leaf_value)
        ivs = net["seen"][key]
        if isinstance(ivs, str):
            return False, ivs
        if "empty" in node:
            if node["empty"] == "interval" and set(node) == {"empty"}:
                if ivs is not None:
                    return False, "a leaf claimed empty has non-empty intervals"
                continue
            if node["empty"] != "dual" or set(node) - {"kappa", "cuts"} not in (
                    {"empty", "mu", "alpha", "beta"}, {"empty", "mu", "alpha", "beta", "gamma", "eta"}):
                raise InputError("an empty leaf is {'empty': 'interval'} or {'empty': 'dual', mu, alpha, beta"
                                 "[, gamma, eta][, kappa]}")
            if ivs is None:
                continue
            val = _leaf_value(Ws, bs, here, ivs, [_Z] * len(c),
                              {"bound": 0, **{k: v for k, v in node.items() if k != "empty"}},
                              _pair_lines_of(net, key, here, ivs), net["halfspaces"],
                              net.setdefault("cuts", ((), {})))
            if isinstance(val, str):
                return False, val
            if not val < 0:
                return False, "an empty leaf's multipliers do not prove it empty (bound of 0 is not negative)"
            continue
        if "bound" not in node:
            raise InputError("a leaf holds 'bound' (or 'empty')")
        claimed = _q(node["bound"], "leaf bound")
        if ivs is None:
            val = None                         # the leaf is empty anyway
        elif "by" in node:
            if set(node) != {"bound", "by"} or node["by"] not in ("symbolic", "differential", "affine"):
                raise InputError("a leaf bound 'by' is 'symbolic', 'differential' or 'affine', with no other keys")
            if node["by"] == "affine":
                last = None
                val = _affine_max(Ws, bs, here, ivs, c)
                if isinstance(val, str):
                    return False, val
            elif node["by"] == "symbolic":
                last = ivs[-1]
            elif len(Ws) < 2:
                return False, "a differential bound needs hidden layers"
            elif not net["paired"]:
                return False, "a differential bound needs a and b of one shape (neurons paired)"
            else:
                last = _deltas_of(net, key, here, ivs)[-1]
            if last is not None:
                val = sum(((cj * hi if cj > 0 else cj * lo) for cj, (lo, hi) in zip(c, last) if cj != 0), _Z)
        else:
            val = _leaf_value(Ws, bs, here, ivs, c, node, _pair_lines_of(net, key, here, ivs),
                              net["halfspaces"], net.setdefault("cuts", ((), {})))
            if isinstance(val, str):
                return False, val
        if val is not None and val > claimed:
            return False, (f"a leaf's data prove {val}, not its claimed bound {claimed} (above it by "
                           f"{val - claimed})")
        if claimed > bound:
            return False, f"a leaf's bound {claimed} exceeds the objective's upper bound {bound}"
    return True, f"{leaves} leaves"


def _halfspaces(data, d):
    """The optional ``halfspaces`` of a certificate: ``[(a, b)]`` exact, ``a·x <= b``."""
    if not isinstance(data, list) or not all(isinstance(h, dict) and set(h) == {"a", "b"} for h in data):
        raise InputError("halfspaces must be a list of {'a': [...], 'b': b}")
    return [(_qlist(h["a"], d, "halfspaces.a"), _q(h["b"], "halfspaces.b")) for h in data]


def check(cert: dict) -> tuple[bool, str]:
    claim = _claim(cert)
    if isinstance(claim, tuple):
        return claim
    for o, s, ub, tree in claim["objectives"]:
        ok, why = _check_tree(claim["net"], claim["box"], _objective(claim, o, s), tree, ub)
        if not ok:
            return False, f"objective ({o}, {s}): {why}"
    return True, claim["message"]


def check_part(cert: dict, part) -> tuple[bool, str]:
    """One independent part of :func:`check` (the checker's split of an upper-bound claim):
    ``"claim"`` checks everything but the leaves (header, point, objectives, every split of
    every tree: the leaves cover the box); ``{"objective": k, "at": [side, ...]}`` checks the
    leaves of objective *k*'s subtree reached by those child indices from its root (and the
    splits on the way).  The claim holds iff ``"claim"`` holds and, per objective, the subtrees
    checked hold every leaf (e.g. the root, ``[]``; or both children of every node above
    them)."""
    claim = _claim(cert)
    if isinstance(claim, tuple):
        if part != "claim":
            raise InputError("a lower-bound claim has no trees: its one part is 'claim'")
        return claim
    if part == "claim":
        n = 0
        for o, s, ub, tree in claim["objectives"]:
            ok, why = _check_tree(claim["net"], claim["box"], None, tree, ub, leaves_too=False)
            if not ok:
                return False, f"objective ({o}, {s}): {why}"
            n += int(why.split()[0])
        return True, f"{claim['message']} once the {n} leaves are checked"
    if not isinstance(part, dict) or set(part) != {"objective", "at"} or type(part["objective"]) is not int \
            or not 0 <= part["objective"] < len(claim["objectives"]) or not isinstance(part["at"], list):
        raise InputError(f"unknown part {part!r} ('claim' or {{'objective': k, 'at': [sides]}})")
    o, s, ub, tree = claim["objectives"][part["objective"]]
    start = _descend(claim["net"], claim["box"], tree, part["at"])
    if isinstance(start, str):
        return False, f"objective ({o}, {s}): {start}"
    ok, why = _check_tree(claim["net"], claim["box"], _objective(claim, o, s), tree, ub, start)
    return ok, f"objective ({o}, {s}) at {part['at']}: {why}"


def _objective(claim, o, s):
    c = [_Z] * claim["m"]
    c[o] = Q(s)
    return c


def _aligned(b, data):
    """``b`` after the certificate's ``b_aligned_by`` steps: only S1 (a permutation of a hidden
    layer) and S2 (positive factors), symmetries of every ReLU network (three-layer-fibers R8,
    R9), each checked by its own ``check`` before it is applied; a message when one is invalid."""
    if not isinstance(data, list):
        raise InputError("b_aligned_by must be a list of S1/S2 steps")
    for i, item in enumerate(data):
        if not isinstance(item, dict) or item.get("step") not in ("S1", "S2"):
            raise InputError("b_aligned_by holds only S1 (permutation) and S2 (positive scaling) steps")
        st = step_from_json(item)
        ok, why = st.check(b)
        if not ok:
            return f"alignment step #{i} ({st.name}) is invalid: {why}"
        b = st.apply(b)
    return b


def _claim(cert: dict):
    """Everything of the check but the trees: ``(ok, reason)`` when that decides (a lower-bound
    claim, or a failure), else the parsed parts the trees are checked against."""
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
    lower_claim = cert["claim"] == CLAIMS["bab_bound"][1]
    if not lower_claim and "upper" not in cert:
        raise InputError("an upper-bound claim needs 'upper'")
    # a lower-bound claim proves no upper bound: its 'upper' (written as the ε threshold or the
    # lower bound before session 42, now absent) is never read
    upper = None if lower_claim else _q(cert["upper"], "upper")
    halfspaces = _halfspaces(cert.get("halfspaces", []), d)
    where = "on the box" + (f" ∩ {len(halfspaces)} half-space(s)" if halfspaces else "")
    lower = None
    if "lower" in cert or "point" in cert:
        if "lower" not in cert or "point" not in cert:
            raise InputError("'lower' and 'point' come together")
        lower = _q(cert["lower"], "lower")
        if lower < 0:           # (a -1 was VALID, "and >= -1, attained": s48 hostile audit F8)
            raise InputError("'lower' must be >= 0 (a lower bound of max |a - b|)")
        x = _qlist(cert["point"], d, "point")
        if any(not lo <= v <= hi for v, (lo, hi) in zip(x, box)):
            return False, "the point is outside the box"
        if any(sum((ai * xi for ai, xi in zip(a, x)), _Z) > b for a, b in halfspaces):
            return False, "the point is outside a half-space of the domain"
        bad = point_reason(cert, a, b, x, lower)
        if bad:
            return False, bad
    elif "output" in cert:
        raise InputError("'output' comes with 'lower' and 'point'")
    eps = None if cert.get("epsilon") is None else _q(cert["epsilon"], "epsilon")
    if eps is not None and eps < 0:
        raise InputError("epsilon must be >= 0")
    if cert["claim"] == CLAIMS["bab_bound"][1]:
        if lower is None:
            raise InputError("a lower-bound claim needs 'lower' and 'point'")
        return True, f"max |a - b| >= {lower} (attained at the point) {where}" + _versus(eps, lower, False)
    if lower is not None and lower > upper:
        return False, f"the point's deviation exceeds the claimed upper bound {upper}"
    objs = cert.get("objectives")
    if not isinstance(objs, list):
        raise InputError("objectives must be a list")
    bounds = cert.get("bounds")
    if bounds not in ({"intervals": "symbolic", "grid_bits": GRID, "differential": kind}
                      for kind in ("paired", "neurodiff")):
        raise InputError(f"bounds must be {{'intervals': 'symbolic', 'grid_bits': {GRID}, "
                         "'differential': 'paired' | 'neurodiff'}} (schema 2)")
    b = _aligned(b, cert.get("b_aligned_by", []))
    if isinstance(b, str):
        return False, b
    D = difference_network(a, b)
    reduction = cert.get("reduction", [])
    if not isinstance(reduction, list):
        raise InputError("reduction must be a list of reduction steps")
    if reduction:                    # D' = a − b on the box (each step checked by the replay)
        try:
            D = apply_reduction(D, reduction, Domain([lo for lo, _ in box], [hi for _, hi in box]))
        except ValueError as exc:
            return False, f"reduction: {exc}"
        D = drop_zero_neurons(D)     # the same function: relu(0) = 0
    net = {"rows": [W.to_rows() for W in D.weights], "biases": [list(v) for v in D.biases],
           "mats": list(D.weights), "seen": {}, "deltas": {}, "pairs": {},
           "neurodiff": bounds["differential"] == "neurodiff", "halfspaces": halfspaces,
           "paired": a.widths == b.widths and not reduction, "intermediate": cert.get("intermediate", []),
           "cuts": (cert.get("cuts", []), {})}
    if not isinstance(net["cuts"][0], list):
        raise InputError("cuts must be a list of single-neuron cuts")
    if not isinstance(net["intermediate"], list):
        raise InputError("intermediate must be a list of intermediate-bound records")
    seen, parsed = set(), []
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
        parsed.append((o, s, ub, ob["tree"]))
    if seen != {(o, s) for o in range(m) for s in (1, -1)}:
        return False, "the objectives do not cover ± (a_o − b_o) for every output"
    return {"net": net, "box": box, "m": m, "objectives": parsed,
            "message": f"max_o max_x |a_o - b_o| <= {upper} {where}" + (
                f" (and >= {lower}, attained)" if lower is not None else "") + _versus(eps, upper, True)
            + ("" if eps is None or lower is None or lower <= eps or upper <= eps else
               "; the point shows |a - b| > epsilon")}


def _versus(eps, value, upper: bool) -> str:
    """What the certified *value* (an upper bound, or an attained lower one) says of the
    certificate's ``epsilon`` (the question of ``equiv --epsilon``): the field is the ε asked,
    so the verdict is stated from the certified numbers, never taken from the field (an edited
    ε made a certificate read as a verdict it does not prove: an outsider's test, session 31)."""
    if eps is None:
        return ""
    if upper:
        return (f"; <= its epsilon = {eps}: |a - b| <= epsilon on the domain" if value <= eps else
                f"; above its epsilon = {eps}: this certificate does not show |a - b| <= epsilon")
    return (f"; > its epsilon = {eps}: |a - b| > epsilon at the point" if value > eps else
            f"; not above its epsilon = {eps}: this certificate does not show |a - b| > epsilon")


def point_reason(cert: dict, a, b, x, lower) -> str:
    """Why the point *x* does not attain ``lower`` (``max_o |a_o − b_o|`` below it, or below it
    at the named ``output``), or ''."""
    gaps = [abs(u - v) for u, v in zip(a.evaluate(x), b.evaluate(x))]
    if max(gaps) < lower:
        return f"|a - b| at the point is {max(gaps)}, below the claimed lower bound {lower}"
    return attaining_output(cert, gaps, lower)


def attaining_output(cert: dict, gaps: list, lower) -> str:
    """The optional ``output`` beside ``lower`` and ``point`` (*gaps*: ``|a_o − b_o|`` at the
    point, per output): an output index where the gap reaches ``lower``; the reason it is not,
    or ''."""
    if "output" not in cert:
        return ""
    o = cert["output"]
    if not isinstance(o, int) or isinstance(o, bool) or not 0 <= o < len(gaps):
        raise InputError(f"output must be an output index in [0, {len(gaps)})")
    if gaps[o] < lower:
        return f"|a_{o} - b_{o}| at the point is {gaps[o]}, below the claimed lower bound {lower}"
    return ""
