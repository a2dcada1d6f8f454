"""Upper-bound checks of ``functional_dimension`` certificates (see
:mod:`semialgebraic.verify.functional_dimension` for the schema): the vectors of the
``upper_directions`` entries, each re-derived from θ (:func:`_upper_vectors`), the exact rank on
the ``upper_regions`` (:func:`_regions_rank`) and the one-point box (:func:`_one_point_upper`).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import parse_vector
from algebra.kernel import domain_from_json, interval_bounds, is_zero_neuron, parameter_places
from algebra.kernel.differentiability import kink_witness, vanishing_on_path
from algebra.linalg import QMatrix
from algebra.linalg.gfp import exact_rank, pivot_columns
from algebra.rationals import Q

from .exercise import _check_refutation, check_proof, run_deep
from .functional_dimension_emptiness import check_bab_empty, is_bab_proof
from .region_cover import _check_cover

__all__: list[str] = []


def _one_point_upper(net, lo_hi, upper, lower, why) -> tuple[bool, str]:
    """``upper_one_point``: the domain is the single input x0 = (v, …, v), θ ↦ f_θ(x0) is
    differentiable there (no zero pre-activation but of identically zero neurons), so the
    functional dimension is the exact rank of the m rows ∂f_o(x0)/∂θ, recomputed here."""
    if not (isinstance(lo_hi, tuple) and lo_hi[0] == lo_hi[1]):
        return False, "upper_one_point needs a one-point box domain"
    if not isinstance(upper, int) or isinstance(upper, bool):
        raise InputError("upper must be an integer")
    x0 = [lo_hi[0]] * net.n_inputs
    masks = _masks(net, [x0])
    if isinstance(masks, str):
        return False, f"upper_one_point: {masks}"
    rows = _masked_rows(net, x0, [m[0] for m in masks])
    # (exact_rank: its blocks of rows are where the command's alarm stops the check; one
    # FLINT rank of 30 x 1 080 rows of 1 000-digit products ran minutes past it: s54)
    rank = exact_rank(QMatrix.from_rows(rows, ncols=net.n_parameters), check=_between) if rows else 0
    if rank != upper:
        return False, f"the exact rank of the Jacobian at the single input is {rank}, not the claimed upper {upper}"
    if upper < lower:
        return False, f"contradiction: certified upper {upper} < certified lower {lower}"
    return True, why + (f"; upper bound certified: the domain is one point and the Jacobian there has "
                        f"exact rank {rank}" + (f"; exact: {upper}" if upper == lower else ""))


def _upper_vectors(net, dirs, lo_hi, shared=None) -> list | str:
    """The vectors named by the ``upper_directions`` entries (sparse: dicts ``{parameter index:
    value}``, flat parameter order; a 24-24-6000-2 net's 6 000 dense ones were 16 GB), or the
    reason an entry is not justified.  Facts first (dead / always active, from interval bounds
    and the ``dead_proof`` / ``active_proof`` entries), then each entry's vectors.  *shared*: the
    certificate's table of shared proofs (:class:`~.functional_dimension_emptiness.SharedProofs`)."""
    if not isinstance(dirs, list):
        raise InputError("upper_directions must be a list")
    N = net.n_parameters
    offsets = _param_offsets(net)
    bounds = interval_bounds([w.to_rows() for w in net.weights], [list(c) for c in net.biases],
                             net.n_inputs, lo_hi)
    dead = {(l, i) for l in range(net.depth - 1) for i, (_, hi) in enumerate(bounds[l])
            if hi is not None and hi <= 0}
    active = {(l, i) for l in range(net.depth - 1) for i, (lo, _) in enumerate(bounds[l])
              if lo is not None and lo >= 0} - dead     # (a zero neuron is dead: [0, 0])
    for e in dirs:
        _shape(net, e)
    if isinstance(lo_hi, tuple) and lo_hi[0] == lo_hi[1] and any(
            e[0] in ("free", "dead_proof", "active_proof", "masked", "incoming", "fixed_successors") for e in dirs):
        # the proofs refute strict systems over the open box, which is empty here
        return "proofs over the open box say nothing on a one-point box"
    for e in dirs:                              # facts proven by search, with their proofs
        if e[0] in ("dead_proof", "active_proof"):
            _, l, i, proof = e
            s = 1 if e[0] == "dead_proof" else -1
            if not _check_empty(net, proof, lo_hi, {(l, i): s}, shared=shared):
                return (f"the proof that neuron ({l}, {i}) is never "
                        f"{'active' if s > 0 else 'inactive'} does not check")
            (dead if s > 0 else active).add((l, i))
    for e in dirs:                              # dead at every differentiable input, in order
        if e[0] in ("dead_inputs", "unseen"):
            why = _check_inputs_dead(net, e, dead)
            if why:
                return why
            dead.add((e[1], e[2]))
            dead.update((e[1] + 1, j) for j in (e[3] if e[0] == "unseen" else ()))
    active -= dead               # both: z = 0 at every input (no differentiable one): not used
    silent = _silent(net, dead)
    masked: set = set()                         # neurons of the masked entries checked so far
    out = []
    for e in dirs:
        kind = e[0]
        if kind == "masked_pair":
            vs = _masked_pair(net, offsets, e[1], e[2], active, masked, dead)
            if isinstance(vs, str):
                return vs
            out.extend(vs)
            continue
        if kind == "free":
            k, proof = e[1], e[2]
            if is_bab_proof(proof):            # never co-active: W_l[i,k] is never exercised
                pair = _coactive(net, offsets, k)
                if pair is None or not check_bab_empty(net, proof, lo_hi, pair, shared):
                    return f"the proof that parameter {k} is never exercised does not check"
                out.append(_unit(N, k))
                continue
            if not check_proof(net, proof, lo_hi):
                return f"the proof that parameter {k} is never exercised does not check"
            cache: dict = {}
            if any(vanishing_on_path(net, tuple(tuple(v) for v in r.get("path", ())), cache) is not None
                   for r in proof.get("refuted", ())):
                return (f"the proof that parameter {k} is never exercised branches on a neuron whose "
                        "pre-activation vanishes identically on a branch (it says nothing there)")
            out.append(_unit(N, k))
            continue
        if kind == "block_kernel":
            # always active: D = 1 on the block at every differentiable input (R34 (f))
            lazy = [i for i in e[2] if (e[1], i) not in active]
            if lazy:
                return f"neuron ({e[1]}, {lazy[0]}) of the block is not proven always active"
            out.extend(_one_mask_vectors(net, offsets, e[1], e[2]))
            continue
        if kind in ("duplicate", "opposite"):
            vs = (_duplicate if kind == "duplicate" else _opposite)(net, offsets, e[1], e[2])
            if isinstance(vs, str):
                return vs
            out.extend(vs)
            continue
        l, i = e[1], e[2]
        W, b = net.layer(l)
        V, _ = net.layer(l + 1)
        rows = [offsets[l] + i * W.ncols + j for j in range(W.ncols)] if kind != "block" else []
        bias = offsets[l] + W.nrows * W.ncols + i if kind != "block" else None
        if kind == "scale":
            v = {}
            for j, w in enumerate(W.row_at(i)):
                v[rows[j]] = w
            v[bias] = b[i]
            for o, w in enumerate(V.col_at(i)):
                v[offsets[l + 1] + o * V.ncols + i] = -w
            out.append(v)
        elif kind in ("dead", "dead_proof", "dead_inputs"):
            if kind == "dead" and not _interval_dead(bounds, l, i):
                return f"neuron ({l}, {i}) is not dead on the domain by interval bounds"
            ks = rows + [bias] + [offsets[l + 1] + o * V.ncols + i for o in range(V.nrows)]
            out.extend(_unit(N, k) for k in ks)
        elif kind == "unseen":
            # z_l[i] = 0 at every differentiable input (checked above), so by the rule of
            # algebra.kernel.differentiability e_l[i] = Σ_j W_{l+1}[j,i] δ_{l+1}[j] = 0 there
            # (three-layer-fibers R35)
            U, _ = net.layer(l + 2)
            for c in range(V.ncols + 1):
                v = {}
                for j in range(V.nrows):
                    k = offsets[l + 1] + (j * V.ncols + c if c < V.ncols else V.nrows * V.ncols + j)
                    v[k] = V[j, i]
                out.append(v)
            for j in e[3]:                          # the successors inactive there: dead
                W1, _ = net.layer(l + 1)
                ks = [offsets[l + 1] + j * W1.ncols + c for c in range(W1.ncols)] + [
                    offsets[l + 1] + W1.nrows * W1.ncols + j] + [offsets[l + 2] + o * U.ncols + j
                                                                 for o in range(U.nrows)]
                out.extend(_unit(N, k) for k in ks)
        elif kind in ("active", "active_proof", "masked"):
            if kind == "active" and not (bounds[l][i][0] is not None and bounds[l][i][0] >= 0
                                         and (l, i) in active):
                return f"neuron ({l}, {i}) is not always active on the domain by interval bounds"
            if kind == "active_proof" and (l, i) not in active:
                return f"neuron ({l}, {i}) is proven dead too: it is not always active"
            if kind == "masked":
                why = _check_masked(net, lo_hi, l, i, e[3], dead, shared)
                if why:
                    return why
                masked.add((l, i))
            v = {}
            v[bias] = Q(1)
            for o, w in enumerate(V.col_at(i)):
                v[offsets[l + 1] + V.nrows * V.ncols + o] = -w
            out.append(v)
        elif kind == "constant":
            # z_l[i] = b_l[i] > 0 at every differentiable input (the other inputs are dead, h = 0
            # there), so h_l[i] = b_l[i] and ∂f/∂W_{l+1}[k,i] = b_l[i]·∂f/∂b_{l+1}[k] (R34 (e))
            if not (b[i] > 0 and all(w == 0 or l and (l - 1, c) in dead for c, w in enumerate(W.row_at(i)))):
                return (f"neuron ({l}, {i}) is not constant (a positive bias and inputs only from dead "
                        "neurons)")
            for o in range(V.nrows):
                v = {}
                v[offsets[l + 1] + o * V.ncols + i] = Q(1)
                v[offsets[l + 1] + V.nrows * V.ncols + o] = -b[i]
                out.append(v)
        elif kind == "silent":
            if (l, i) not in silent:
                return f"neuron ({l}, {i}) is not silent (dead, or reaching the output only through " \
                       "zero weights or silent neurons)"
            out.extend(_unit(N, k) for k in rows + [bias])
        elif kind == "block":
            block = e[2]
            for i in block:
                if (l, i) not in active:
                    return f"neuron ({l}, {i}) of the block is not proven always active"
            for i in block:
                for i2 in block:
                    if i != i2:
                        out.append(_gl_direction(N, offsets, l, W, b, V, i, i2))
        elif kind == "fixed_successors":
            ts = _fixed_successors(net, lo_hi, l, i, e[3], e[4], shared)
            if isinstance(ts, str):
                return ts
            W1 = net.weights[l + 1]
            for t in ts:
                v = {}
                for j, w in t.items():
                    v[offsets[l + 1] + j * W1.ncols + i] = w
                out.append(v)
        elif kind == "incoming":
            cs = _incoming_perp(net, lo_hi, l, i, e[3])
            if isinstance(cs, str):
                return cs
            for c in cs:
                v = {}
                for k, w in zip(rows + [bias], c):
                    v[k] = w
                out.append(v)
    return out


def _regions_rank(net, regions, lo_hi, vectors=None, p=None) -> int | str:
    """Exact rank of every Jacobian row at every differentiable input of the domain, from a list
    of linear regions in the ``region_cover`` format (cover re-checked by
    :func:`semialgebraic.verify.region_cover._check_cover`), or the reason it is rejected.

    On a region (pattern fixed) the rows are affine in x, so their span is that of the rows at
    the region's point x0 and at x0 + e_k (k < d) computed with the region's masks (the affine
    continuation).  A region where a neuron that is not identically zero has sign 0 holds no
    differentiable input and is skipped; every differentiable input lies in the closure of a
    listed region, hence (its pre-activations being non-zero) in the open region itself.

    With *vectors* (proven kernel directions, already checked: r·v = 0 for every row at a
    differentiable input, so for the rows here, combinations of such rows), only the columns off
    their :func:`~algebra.linalg.gfp.pivot_columns` mod *p* are computed and ranked: on the
    vectors' pivot block (invertible over Q) a row orthogonal to them is determined by its
    other entries, so those columns have the rows' rank.  Columns zero in every row (a dead
    neuron's parameters) are left out of the rank (a 16-60-60-8 net on a ball: 1 861 of 5 168
    columns live, 9.8 s where all took 49 s); the rank is :func:`~algebra.linalg.gfp.exact_rank`'s
    (a maximal minor found mod p and its vanishing Schur complement, checked exactly: 8.4 s
    where the elimination over Q took 18 s on the same 3 128 rows)."""
    if not isinstance(regions, list):
        raise InputError("upper_regions must be a list of regions")
    if isinstance(lo_hi, tuple) and lo_hi[0] == lo_hi[1]:
        return "upper_regions: a one-point box is not covered by regions"
    ok, why = _check_cover(net, regions, lo_hi, _any_value)
    if not ok:
        return f"upper_regions: {why}"
    d, L = net.n_inputs, net.depth
    cols = None
    if vectors:
        piv = pivot_columns(vectors, p)
        if piv is not None:
            taken = set(piv)
            cols = [c for c in range(net.n_parameters) if c not in taken]
    rows, where = [], None if cols is None else parameter_places(net, cols)
    for reg in regions:
        pat, k, masks = reg["pattern"], 0, []
        for l in range(L - 1):
            w = net.widths[l + 1]
            masks.append([1 if s > 0 else 0 for s in pat[k:k + w]])
            k += w
        if kink_witness(net, [(s > 0) - (s < 0) for s in pat]) is not None:
            continue                            # no differentiable input on this region
        x0 = parse_vector(reg["point"], "upper_regions.point", length=d)
        for c in range(-1, d):
            rows += _masked_rows(net, [v + (1 if t == c else 0) for t, v in enumerate(x0)], masks, where)
    if not rows:
        return ("upper_regions: no listed region holds a differentiable input (theta is "
                "non-generic: the functional dimension is not defined)")
    live = [c for c in range(len(rows[0])) if any(r[c] for r in rows)]   # zero columns: no rank
    if not live:
        return 0
    return exact_rank(QMatrix.from_rows([[r[c] for c in live] for r in rows], ncols=len(live)))


def _any_value(net, r, reg, pat, oriented, facets) -> tuple[bool, str]:
    return True, "ok"


def _masked_rows(net, x, masks, where=None) -> list:
    """Exact Jacobian rows ∂f_o/∂θ at *x* with the hidden 0/1 *masks* held fixed (only the
    parameters *where* names, :func:`~algebra.kernel.parameter_places`, when given: W_l[i, k] is δ_l[i] h_{l-1}[k],
    b_l[i] δ_l[i])."""
    hs = [list(x)]
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        hs.append([(z + bb) * mk for z, bb, mk in zip(W.apply(hs[-1]), b, masks[l])])
    out = []
    for o in range(net.n_outputs):
        delta = [Q(1) if j == o else Q(0) for j in range(net.n_outputs)]
        blocks, deltas = [], [None] * net.depth
        for l in range(net.depth - 1, -1, -1):
            deltas[l] = delta
            if where is None:
                blocks.append([dv * hv for dv in delta for hv in hs[l]] + delta)
            if l:
                delta = [v * mk for v, mk in zip(net.weights[l].T.apply(delta), masks[l - 1])]
        if where is None:
            out.append([v for blk in reversed(blocks) for v in blk])
        else:
            out.append([deltas[l][i] * hs[l][k] if k is not None else deltas[l][i] for l, i, k in where])
    return out




def _shape(net, e) -> None:
    """Raise InputError unless *e* is a well-formed ``upper_directions`` entry about *net*."""
    kinds3 = ("scale", "dead", "active", "silent", "constant", "dead_inputs")
    kinds4 = ("dead_proof", "active_proof", "masked", "incoming", "unseen")
    kinds = kinds3 + kinds4 + ("free", "block", "block_kernel", "duplicate", "opposite", "fixed_successors",
                               "masked_pair")
    if not isinstance(e, list) or not e or e[0] not in kinds:
        raise InputError(f"upper_directions entry {str(e)[:60]} is not one of {', '.join(kinds)}")
    if len(e) != (4 if e[0] in kinds4 else 5 if e[0] == "fixed_successors" else 3) or not _is_int(e[1]):
        raise InputError(f"upper_directions entry {str(e)[:60]}: wrong length or index")
    if e[0] == "free":
        if not isinstance(e[2], dict) or e[2].get("parameter") != e[1] or not 0 <= e[1] < net.n_parameters:
            raise InputError(f"upper_directions ['free', {e[1]}, ...]: the proof must be about "
                             "parameter k of the network")
        return
    l = e[1]
    if not 0 <= l < net.depth - 1:
        raise InputError(f"upper_directions entry {str(e)[:60]} names no hidden layer")
    width = net.widths[l + 1]
    if e[0] in ("block", "block_kernel", "duplicate", "opposite", "masked_pair"):
        if (not isinstance(e[2], list) or len(e[2]) < 2 or not all(_is_int(i) and 0 <= i < width for i in e[2])
                or len(set(e[2])) != len(e[2]) or e[0] in ("opposite", "masked_pair") and len(e[2]) != 2):
            raise InputError(f"upper_directions entry {str(e)[:60]}: a {e[0]} lists >= 2 distinct "
                             "neurons of the layer")
        return
    if not _is_int(e[2]) or not 0 <= e[2] < width:
        raise InputError(f"upper_directions entry {str(e)[:60]} names no hidden neuron")
    if e[0] == "fixed_successors":
        if l + 1 >= net.depth - 1:
            raise InputError(f"upper_directions entry {str(e)[:60]}: the successors of a neuron of the "
                             "last hidden layer are outputs, not neurons")
        signs = e[3]
        if (not isinstance(signs, list) or len(signs) != net.widths[l + 2]
                or not all(_is_int(s) and s in (-1, 0, 1) for s in signs) or not any(signs)):
            raise InputError(f"upper_directions entry {str(e)[:60]}: the signs are one of -1, 0, 1 per "
                             "neuron of the next layer, not all 0")
        if not isinstance(e[4], dict) or set(e[4]) != {"shared"}:
            raise InputError("a fixed_successors entry refers to its proof as {'shared': i}")
    if e[0] == "unseen" and (not isinstance(e[3], list) or l + 1 >= net.depth - 1 or len(set(e[3])) != len(e[3])
                             or not all(_is_int(j) and 0 <= j < net.widths[l + 2] for j in e[3])):
        raise InputError(f"upper_directions entry {str(e)[:60]}: an unseen entry names a neuron below a "
                         "hidden layer and a list of distinct neurons of that layer")
    if e[0] == "masked" and not isinstance(e[3], list):
        raise InputError("a masked entry carries a list of proofs")
    if e[0] in ("dead_proof", "active_proof", "incoming") and not isinstance(e[3], dict):
        raise InputError(f"a {e[0]} entry carries a proof object")


def _coactive(net, offsets, k) -> dict | None:
    """For a weight W_l[i,c] between hidden layers (0-based weight matrix l, 1 <= l <= L-2):
    ``{(l-1, c): 1, (l, i): 1}``; its column δ_l[i] h_{l-1}[c] vanishes wherever the two
    neurons are not both active (at a differentiable input a kink gets either mask)."""
    for l in range(1, net.depth - 1):
        W = net.weights[l]
        if offsets[l] <= k < offsets[l] + W.nrows * W.ncols:
            i, c = divmod(k - offsets[l], W.ncols)
            return {(l - 1, c): 1, (l, i): 1}
    return None


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _unit(N, k) -> dict:
    return {k: Q(1)} if 0 <= k < N else {}


_ZERO = Q(0)


def _param_offsets(net) -> list:
    offsets, k = [], 0
    for W, b in zip(net.weights, net.biases):
        offsets.append(k)
        k += W.nrows * W.ncols + len(b)
    return offsets


def _interval_dead(bounds, l, i) -> bool:
    hi = bounds[l][i][1]
    return hi is not None and hi <= 0


def _silent(net, dead) -> set:
    """Neurons with δ ≡ 0 at differentiable inputs: dead ones, then from the last hidden layer
    down those whose output column is zero (last hidden layer) or whose every successor j with
    W_{l+1}[j, i] != 0 is silent."""
    L = net.depth
    out = set(dead)
    for l in range(L - 2, -1, -1):
        V = net.weights[l + 1]
        for i in range(net.widths[l + 1]):
            succ = [j for j in range(V.nrows) if V[j, i] != 0]
            if l == L - 2 and not succ or l < L - 2 and all((l + 1, j) in out for j in succ):
                out.add((l, i))
    return out


def _check_inputs_dead(net, e, dead) -> str | None:
    """None when the fact of a ``dead_inputs`` / ``unseen`` entry holds given the neurons *dead*
    so far (dead at every differentiable input), else the reason.  ``dead_inputs``: b_l[i] <= 0
    and every W_l[i,c] != 0 has (l-1, c) dead (none for l = 0): at a differentiable input
    z_l[i] = b_l[i] <= 0, so D = 0 and h = 0 (a kink: h = 0, δ = 0).  ``unseen``: the same with
    b_l[i] = 0 and layer l+1 hidden (z_l[i] = 0 there: a kink, unseen by the rule of
    :mod:`algebra.kernel.differentiability`); each listed successor j of the last hidden layer
    has, for some output o, c_j = W_{l+1}[j,i]·W_L[o,j] != 0 with every non-zero c_k (k of layer
    l+1) of one sign: e_l[i] = Σ_k c_k D_{l+1}[k] = 0 forces D_{l+1}[j] = 0 (three-layer-fibers R35)."""
    kind, l, i = e[0], e[1], e[2]
    W, b = net.layer(l)
    if b[i] > 0 or kind == "unseen" and b[i] != 0:
        return f"neuron ({l}, {i}) has bias {b[i]}: not {'zero' if kind == 'unseen' else '<= 0'}"
    if any(w != 0 and not (l and (l - 1, c) in dead) for c, w in enumerate(W.row_at(i))):
        return f"neuron ({l}, {i}) has an input that is not proven dead"
    if kind == "dead_inputs":
        return None
    if l + 1 >= net.depth - 1:
        return f"neuron ({l}, {i}) is in the last hidden layer: nothing above it but the outputs"
    if e[3] and l + 2 != net.depth - 1:
        return f"neuron ({l}, {i}): only successors in the last hidden layer are derived inactive"
    V, U = net.weights[l + 1], net.weights[l + 2] if l + 2 < net.depth else None
    for j in e[3]:
        if not any(V[j, i] * U[o, j] != 0 and all(V[k, i] * U[o, k] * (V[j, i] * U[o, j]) >= 0
                                                  for k in range(V.nrows)) for o in range(U.nrows)):
            return (f"neuron ({l + 1}, {j}): no output sees every successor of the zero neuron ({l}, {i}) "
                    "with one sign")
    return None


def _masked_pair(net, offsets, l, pair, active, masked, dead) -> list | str:
    """The GL direction of a ``masked_pair`` entry ``[i, i2]`` (row i += row i2, column i2 −=
    column i), or the reason it is not justified: i and i2 always active or masked (a masked
    entry earlier in the list), and i2 always active or every live successor of i (non-zero
    weight, not dead) a live successor of i2, so that wherever a live successor of i is active
    z_l[i] >= 0 and z_l[i2] >= 0 (three-layer-fibers R35 (e))."""
    i, i2 = pair
    for m in pair:
        if (l, m) not in active and (l, m) not in masked:
            return f"neuron ({l}, {m}) of a masked pair is neither always active nor masked by an earlier entry"
    V = net.weights[l + 1]

    def live(m):
        return {k for k in range(V.nrows) if V[k, m] != 0 and (l + 1, k) not in dead}
    if (l, i2) not in active and not live(i) <= live(i2):
        return (f"neuron ({l}, {i}) has a live successor that the masked entry of ({l}, {i2}) does not "
                "cover")
    W, b = net.layer(l)
    return [_gl_direction(net.n_parameters, offsets, l, W, b, V, i, i2)]


def _gl_direction(N, offsets, l, W, b, V, i, i2) -> dict:
    """The S4 (GL) direction of layer *l*: row i of [W | b] += row i2, column i2 of V −= column
    i (tangent to the fiber where both neurons are active)."""
    v = {}
    for c, w in enumerate(W.row_at(i2)):
        v[offsets[l] + i * W.ncols + c] = w
    v[offsets[l] + W.nrows * W.ncols + i] = b[i2]
    for o, w in enumerate(V.col_at(i)):
        v[offsets[l + 1] + o * V.ncols + i2] = -w
    return v


def _check_masked(net, lo_hi, l, i, proofs, dead, shared=None) -> str | None:
    """None when neuron (l, i) is masked: every successor j with W_{l+1}[j,i] != 0 is dead or has
    a proof that {z_l[i] < 0, z_{l+1}[j] > 0} is empty; else the reason."""
    if l + 1 >= net.depth - 1:
        return f"neuron ({l}, {i}) is in the last hidden layer: it cannot be masked"
    V = net.weights[l + 1]
    for j in range(V.nrows):
        if V[j, i] == 0 or (l + 1, j) in dead:
            continue
        want = {(l, i): -1, (l + 1, j): 1}
        if not any(isinstance(P, dict) and _check_empty(net, P, lo_hi, want, shared=shared) for P in proofs):
            return f"no valid proof that neuron ({l + 1}, {j}) is inactive wherever ({l}, {i}) is"
    return None


def _check_empty(net, proof, lo_hi, targets, leaves=None, shared=None) -> bool:
    """True when *proof* shows that no differentiable input of the domain *lo_hi* has
    sign(z_t[j]) = s for every ((t, j), s) in *targets* (with *leaves*, a set: the unrefuted
    full paths of the proof are collected there and allowed)."""
    try:
        if sorted(tuple(v) for v in proof["targets"]) != sorted((t, j, s) for (t, j), s in targets.items()):
            return False
        if any(is_zero_neuron(net, t, j) for t, j in targets):
            return False
        if is_bab_proof(proof):
            return leaves is None and check_bab_empty(net, proof, lo_hi, targets, shared)
        if domain_from_json(proof.get("domain"), net.n_inputs) != lo_hi:
            return False
        last = max(t for t, _ in targets)
        order = [tuple(v) for v in proof["order"]]
        need = [(t, j) for t in range(last + 1) for j in range(net.widths[t + 1])
                if not is_zero_neuron(net, t, j) and (t < last or (t, j) in targets)]
        if sorted(order) != sorted(need) or len(set(order)) != len(order):
            return False
        if any(a[0] > b[0] for a, b in zip(order, order[1:])):
            return False
        refuted = {tuple(tuple(v) for v in r["path"]): r for r in proof["refuted"]}
        allowed = set()
        if leaves is not None:
            allowed = {tuple(tuple(v) for v in p) for p in proof["leaves"]}
    except (KeyError, TypeError, ValueError, IndexError):
        return False

    cache: dict = {}

    def complete(prefix) -> bool:
        if prefix in refuted:
            if vanishing_on_path(net, prefix, cache) is not None:
                return False
            try:
                return _check_refutation(net, lo_hi, prefix, refuted[prefix], None, False, targets)
            except (KeyError, TypeError, ValueError, IndexError):
                return False
        if len(prefix) == len(order):
            if prefix in allowed and vanishing_on_path(net, prefix, cache) is None:
                leaves.add(prefix)
                return True
            return False
        t, j = order[len(prefix)]
        signs = [targets[(t, j)]] if (t, j) in targets else [1, -1]
        return all(complete(prefix + ((t, j, s),)) for s in signs)

    return run_deep(complete, (), len(order))


def _fixed_successors(net, lo_hi, l, i, signs, ref, shared) -> list | str:
    """The coefficient vectors ``t`` (``{successor j: t_j}``) of the directions
    ``Σ_j t_j e(W_{l+1}[j, i])`` of a ``fixed_successors`` entry (see
    :mod:`semialgebraic.verify.functional_dimension`: a basis of the kernel of
    ``C = W_{l+2}[:, F]·diag([s_j > 0])``, F the successors with a sign), after checking that the
    shared proof *ref* closes every pair (``z_l[i] > 0``, ``−s_j·z_{l+1}[j] > 0``), j in F; or
    the reason it does not."""
    F = [j for j, s in enumerate(signs) if s]
    for j in F:
        want = sorted([(l, i, 1), (l + 1, j, -signs[j])])
        if shared is None or not shared.proves(ref["shared"], want):
            return (f"the shared proof {ref['shared']!r} does not show that neuron ({l + 1}, {j}) has sign "
                    f"{signs[j]:+d} wherever neuron ({l}, {i}) is active")
    V = net.weights[l + 2]
    C = QMatrix.from_rows([[V[k, j] if signs[j] > 0 else _ZERO for j in F] for k in range(V.nrows)],
                          ncols=len(F))
    return [{j: w for j, w in zip(F, row) if w != 0} for row in C.nullspace().to_rows()]


def _duplicate(net, offsets, l, group) -> list | str:
    """The vectors of a ``duplicate`` entry (three-layer-fibers R34), or the reason it is rejected:
    every neuron m of *group* must have a non-zero row with ``(W_l[m, ·], b_l[m]) = c_m·(W_l[r, ·],
    b_l[r])``, c_m > 0, r = group[0] (checked exactly); then ``h_l[m] = c_m h_l[r]`` and the
    masks of the group agree at every input.  Vectors: ``c_m e(W_{l+1}[k, r]) − e(W_{l+1}[k, m])``
    (every m != r, every row k) and ``Σ_m t_m e(W_l[m, c])``, ``Σ_m t_m e(b_l[m])`` (every input c)
    for a basis t of the kernel of ``W_{l+1}[:, group]``."""
    W, b = net.layer(l)
    V = net.weights[l + 1]
    n_in, r = W.ncols, group[0]
    ref = list(W.row_at(r)) + [b[r]]
    piv = next((c for c in range(n_in) if ref[c] != 0), None)
    if piv is None:
        return f"neuron ({l}, {r}) has a zero row: a duplicate group needs non-zero rows"
    N, out, scale = net.n_parameters, [], {}
    for m in group[1:]:
        row = list(W.row_at(m)) + [b[m]]
        c = row[piv] / ref[piv]
        if c <= 0 or any(x != c * y for x, y in zip(row, ref)):
            return (f"neuron ({l}, {m}) is not a positive multiple of neuron ({l}, {r}) "
                    "(row and bias): not a duplicate")
        scale[m] = c
    for m in group[1:]:
        for k in range(V.nrows):
            v = {}
            v[offsets[l + 1] + k * V.ncols + r] = scale[m]
            v[offsets[l + 1] + k * V.ncols + m] = Q(-1)
            out.append(v)
    return out + _one_mask_vectors(net, offsets, l, group)


def _one_mask_vectors(net, offsets, l, group) -> list:
    """Neurons of *group* (hidden layer l) share one mask D at every differentiable input, so
    δ_l[m] = D·(W_{l+1}[:, m]ᵀ δ_{l+1}) and Σ_m t_m δ_l[m] = 0 for C t = 0, C = W_{l+1}[:, group]:
    the vectors ``Σ_m t_m e(W_l[m, c])`` (every c) and ``Σ_m t_m e(b_l[m])``, t a basis of ker C."""
    W = net.weights[l]
    V = net.weights[l + 1]
    N, n_in, out = net.n_parameters, W.ncols, []
    cols = QMatrix.from_rows([[V[k, m] for m in group] for k in range(V.nrows)], ncols=len(group))
    for t in cols.nullspace().to_rows():
        for c in range(n_in + 1):
            v = {}
            for m, w in zip(group, t):
                v[offsets[l] + (m * n_in + c if c < n_in else W.nrows * n_in + m)] = w
            out.append(v)
    return out


def _opposite(net, offsets, l, pair) -> list | str:
    """The vector (a list of one) of an ``opposite`` entry (three-layer-fibers R34 (d)), or the reason it is
    rejected: ``(W_l[m, ·], b_l[m]) = −c (W_l[r, ·], b_l[r])`` with c > 0 and ``W_l[r, ·] != 0``,
    and ``W_{l+1}[:, m] = μ W_{l+1}[:, r]`` with μ != 0 and ``W_{l+1}[:, r] != 0`` (checked
    exactly).  Then the masks of r and m are complementary off their common kinks (where both δ
    vanish at a differentiable input), so δ_l[r] + δ_l[m]/μ = W_{l+1}[:, r]ᵀ δ_{l+1}: the vector
    ``e(b_l[r]) + (1/μ) e(b_l[m]) − Σ_k W_{l+1}[k, r] e(b_{l+1}[k])``."""
    r, m = pair
    W, b = net.layer(l)
    V = net.weights[l + 1]
    zr, zm = list(W.row_at(r)) + [b[r]], list(W.row_at(m)) + [b[m]]
    j = next((c for c in range(W.ncols) if zr[c] != 0), None)
    if j is None or zm[j] / zr[j] >= 0 or any(y != zm[j] / zr[j] * x for x, y in zip(zr, zm)):
        return (f"neurons ({l}, {r}) and ({l}, {m}) do not have negatively parallel non-zero rows "
                "(row and bias): not an opposite pair")
    vr, vm = V.col_at(r), V.col_at(m)
    k0 = next((k for k in range(V.nrows) if vr[k] != 0), None)
    if k0 is None or vm[k0] == 0 or any(y != vm[k0] / vr[k0] * x for x, y in zip(vr, vm)):
        return (f"the outgoing columns of neurons ({l}, {r}) and ({l}, {m}) are not non-zero "
                "multiples of one another: not an opposite pair")
    v = {}
    bias = offsets[l] + W.nrows * W.ncols
    v[bias + r], v[bias + m] = Q(1), vr[k0] / vm[k0]
    for k in range(V.nrows):
        v[offsets[l + 1] + V.nrows * V.ncols + k] = -vr[k]
    return [v]


def _incoming_perp(net, lo_hi, l, i, proof) -> list | str:
    """The vectors c ⊥ every (h_{l-1}, 1) on the active set of neuron (l, i), from the complete
    enumeration *proof* (leaves: the full patterns of the layers below with z_l[i] > 0)."""
    leaves: set = set()
    if not _check_empty(net, proof, lo_hi, {(l, i): 1}, leaves=leaves):
        return f"the enumeration of the active set of neuron ({l}, {i}) does not check"
    d, n_in = net.n_inputs, net.widths[l]
    cols = []
    for path in leaves:
        on = {(t, j) for t, j, s in path if s > 0}
        M, m = QMatrix.identity(d), [Q(0)] * d
        for t in range(l):
            W, b = net.layer(t)
            Z = W @ M
            zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
            zero = tuple([Q(0)] * d)
            M = QMatrix.from_rows([Z.row_at(q) if (t, q) in on else zero for q in range(W.nrows)], ncols=d)
            m = [zc[q] if (t, q) in on else Q(0) for q in range(W.nrows)]
        for c in range(d):
            cols.append([M[q, c] for q in range(n_in)] + [Q(0)])
        cols.append(list(m) + [Q(1)])
    if not cols:
        return QMatrix.identity(n_in + 1).to_rows()
    return QMatrix.from_rows(cols, ncols=n_in + 1).nullspace().to_rows()


def _masks(net, X):
    """Exact 0/1 masks per hidden layer (lists of rows; a kink neuron gets 0), or the reason an
    input is rejected: θ ↦ f_θ(x) is not differentiable there (the rule of
    :mod:`algebra.kernel.differentiability`: a neuron with a zero pre-activation that the network
    above it sees, a zero row with a zero bias included)."""
    H = QMatrix.from_rows(X, ncols=net.n_inputs)
    masks, signs = [], [[] for _ in X]
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        Z = (H @ W.T).add_to_rows(b)
        rows = Z.to_rows()
        for t, r in enumerate(rows):
            signs[t] += [(v > 0) - (v < 0) for v in r]
        masks.append([[1 if v > 0 else 0 for v in r] for r in rows])
        H = Z.relu()
    for t, pat in enumerate(signs):
        if 0 in pat:
            kink = kink_witness(net, pat)
            if kink is not None:
                return (f"input {t}: theta -> f_theta(x) is not differentiable there (neuron {kink} "
                        "has a zero pre-activation and the network above it depends on its output)")
    return masks


def _between() -> None:
    """Called between blocks of rows of :func:`exact_rank`: Python code, where a pending alarm
    (``verify --timeout``, the command's in-process check) is raised."""
