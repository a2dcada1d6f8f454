r"""Exact equivalence of one-hidden-layer nets with float32 weights, in float64 arithmetic that
is proven exact.

This is the decision of :func:`semialgebraic.shallow.canonical_form` (whose module proves
"equal forms ⇔ equal functions") computed on numpy arrays instead of FLINT rationals, for
networks whose parameters are all exactly float32 values — every network read from a float32,
float16 or bfloat16 weight file.  The hypotheses are checked exactly (:mod:`algebra.dyadic`):

* **H1** the weights are known as exact integer arrays (kept by the weight-file readers) and
  every parameter equals its float64 view;
* **H2** every parameter is exactly a float32.  Then a float64 product of two parameters is the
  exact rational product, and ``x*y == z*t`` decides ``x y = z t`` (:mod:`algebra.dyadic`).

With ``f(x) = V σ(W x + b) + c``, ``λ_i = lead(w_i)`` and ``(u_i, β_i) = (w_i, b_i)/λ_i``:

1. *Grouping.*  The float64 rows ``(w_i, b_i)/λ_i`` are correctly rounded quotients, so neurons on
   the same hyperplane get identical rows, and the candidate groups are the classes of identical
   rows (hashed bytes), so every hyperplane lies in exactly one group.  (A float collision of
   two different hyperplanes is harmless: step 2 proves every group, and a group that cannot be
   proven sends the whole decision back to the exact FLINT path.)
2. *Proof of each group.*  Every member ``(w, b)`` of a group with first member ``(w', b')`` is
   checked to be a multiple of it: ``w·λ' == w'·λ`` and ``b·λ' == b'·λ`` entrywise, exact
   products (H2).
3. *Kinks.*  The kink vector of a group is ``K = Σ_i |λ_i| V_i`` over its members in one net.  A
   group with one member in each net compares ``|λ| V`` entrywise as exact products; any other
   group is summed in exact rationals.
4. *Affine part.*  A neuron with ``λ < 0`` adds ``λ V_i (u·x + β)`` to the affine part, so the
   affine parts differ by ``Σ_G δ_G (u_G·x + β_G)`` with ``δ_G = Σ_{a, λ<0} λ V − Σ_{b, λ<0} λ V``
   over the group's members, plus ``c_a − c_b`` and the constant neurons (``w = 0``:
   ``V_i σ(b_i)``).  For a one-plus-one group with equal kinks and equal orientation,
   ``δ_G = 0`` exactly (``λ V = ±|λ| V``); the other groups, the constants and ``c`` are summed in
   exact rationals.

**Float64 parameters** (:func:`compare_float64`, a float64 file): the same steps, with every
exact product ``x*y`` replaced by its canonical pair of float64 limbs
(:func:`algebra.dyadic.two_product`: products of two float64 values do not fit a float64),
under H2': every non-zero parameter is a float64 of magnitude in ``[2^-450, 2^450]``.  Float
quotients of float64 rows may round two nearby hyperplanes to one key; such buckets are split
by exact comparisons.

The answer is one of: equal (the forms are equal: the functions are equal on R^d); the first
group whose kinks differ (an exact hyperplane, from which
:mod:`semialgebraic.shallow.equivalence` builds a separating point and checks it exactly); "affine parts differ" (kinks equal); or None with the
reason (a hypothesis fails or a group could not be proven) — never a guess.

>>> import numpy as np
>>> from algebra.io.arrays import network_from_tensors
>>> W = np.array([[1.0, 2.0], [-0.5, 0.25], [3.0, 0.0]], dtype=np.float32)
>>> a = network_from_tensors({"0.weight": W, "0.bias": np.array([0.5, 1.0, -1.0], np.float32),
...                           "2.weight": np.array([[1.0, -2.0, 0.5]], np.float32)})
>>> perm, lam = [2, 0, 1], np.array([2.0, 0.5, 4.0], np.float32)
>>> b = network_from_tensors({"0.weight": (W * lam[:, None])[perm],
...                           "0.bias": (np.array([0.5, 1.0, -1.0], np.float32) * lam)[perm],
...                           "2.weight": (np.array([[1.0, -2.0, 0.5]], np.float32) / lam)[:, perm]})
>>> compare_float32(a, b).answer
True
>>> c = network_from_tensors({"0.weight": W, "0.bias": np.array([0.5, 1.0, -1.0], np.float32),
...                           "2.weight": np.array([[1.0, -2.0, 0.75]], np.float32)})
>>> r = compare_float32(a, c)
>>> r.answer, r.hyperplane
(False, ((1, 0), -1/3))
"""

from __future__ import annotations

from dataclasses import dataclass, field

from algebra.dyadic import network_float32_layers, network_float64_layers, two_product
from algebra.network import Network
from algebra.rationals import Q, from_float

from ..budget import checkpoint
from ..verdict import Hypothesis

__all__ = ["Float32Comparison", "compare_float32", "compare_float64", "finish_exact", "row_ids",
           "constant_terms", "one_plus_one"]


@dataclass(frozen=True)
class Float32Comparison:
    """Outcome of :func:`compare_float32`.

    ``answer``: True (equal functions on R^d), False (different) or None (not decided here:
    ``reason`` says why; the caller uses the exact FLINT path).  When False, ``hyperplane`` is the
    exact ``(u, β)`` of a hyperplane whose kink vectors differ, or None when only the affine
    parts differ.
    """

    answer: bool | None
    reason: str
    hypotheses: tuple = ()
    hyperplane: tuple | None = None
    details: dict = field(default_factory=dict)


def compare_float32(a: Network, b: Network) -> Float32Comparison:
    """Decide on R^d whether two one-hidden-layer nets with float32 parameters compute the same
    function, with exact float64 arithmetic (module docstring); None when the hypotheses fail."""
    return _compare(a, b, network_float32_layers, _product32,
                    "H1+H2: every parameter of a and b is exactly a float32, weights kept as "
                    "exact integer arrays", "parameters are not all known float32 values",
                    "canonical forms are equal (float64 arithmetic, exact here: every parameter "
                    "is a float32, so each product of two is exactly a float64)")


def compare_float64(a: Network, b: Network) -> Float32Comparison:
    """The same decision for float64 parameters (a float64 file): every exact product of two
    parameters is the canonical limb pair of :func:`algebra.dyadic.two_product` (products of two
    float64 do not fit a float64), under its hypothesis (every non-zero parameter within
    ``2^±450``); None when the hypotheses fail."""
    return _compare(a, b, network_float64_layers, two_product,
                    "H1+H2': every parameter of a and b is exactly a float64 with magnitude in "
                    "[2^-450, 2^450] or 0, weights kept as exact arrays",
                    "parameters are not all known float64 values in range",
                    "canonical forms are equal (exact float64 limb arithmetic: every parameter "
                    "is a float64 within 2^±450, each product of two kept exactly as two float64 "
                    "limbs)")


def _product32(x, y):
    return x * y                       # exact for float32 values (H2)


def _compare(a, b, layers_of, prod, h_name, h_fails, equal_reason) -> Float32Comparison:
    if a.depth != 2 or b.depth != 2 or a.signature != b.signature:
        return Float32Comparison(None, "needs one hidden layer each and equal signatures")
    la, lb = layers_of(a), layers_of(b)
    h1 = Hypothesis(h_name, la is not None and lb is not None,
                    {"a": la is not None, "b": lb is not None})
    if not h1.holds:
        return Float32Comparison(None, h_fails, (h1,))
    import numpy as np
    parts = [_neurons(np, layers, prod) for layers in (la, lb)]
    hyps = (h1,)
    rows = np.vstack([p["rows"] for p in parts])
    lead = np.concatenate([p["lead"] for p in parts])
    kink = np.vstack([p["kink"] for p in parts])
    cols = np.vstack([p["cols"] for p in parts])           # the output columns V_i themselves
    src = np.concatenate([np.zeros(len(parts[0]["lead"]), np.int8), np.ones(len(parts[1]["lead"]), np.int8)])
    total = len(lead)
    if total:
        width = rows.shape[1]
        grouped = _groups(np, rows, lead, sorted({width - 1, width - 2, width // 2, width // 3}),
                          prod)
        if grouped is None:
            return Float32Comparison(None, "a float key collision: two hyperplanes share a "
                                     "rounded key", hyps)
        order, start, gid = grouped
        ngroups, pair, pa, pb = one_plus_one(np, order, start, gid, src)
    else:
        ngroups = 0
    special = []
    if ngroups:
        equal_kink = (kink[pa] == kink[pb]).all(axis=1)
        same_flip = (lead[pa] < 0) == (lead[pb] < 0)
        fast = pair & equal_kink & same_flip
        special = np.flatnonzero(~fast).tolist()
    # exact rational work for the special groups, the constant neurons and c
    members: dict[int, list[int]] = {}
    if special:
        want = set(special)
        for p_, g in enumerate(gid.tolist()):
            if g in want:
                members.setdefault(g, []).append(int(order[p_]))

    def neuron(i):
        lam = from_float(lead[i])
        return (int(src[i]), lam, [from_float(x) for x in cols[i].tolist()],
                tuple(from_float(x) / lam for x in rows[i, :-1].tolist()), from_float(rows[i, -1]) / lam)
    constants = [[v for _, v in constant_terms(net, part)] for net, part in zip((a, b), parts)]
    details = {"groups": ngroups, "exact_groups": len(special), "neurons": total}
    return finish_exact(a, b, special, members, neuron, constants, hyps, details, equal_reason)


def finish_exact(a, b, special, members, neuron, constants, hyps, details, equal_reason):
    """The exact end of a grouped comparison (module docstring, steps 3 and 4), shared with
    :mod:`semialgebraic.shallow.integer_exact`: kinks and flip remainders of the *special* groups
    (``members[g]``: neuron indices; ``neuron(i) = (side, λ, V_i, u, β)`` exact with
    ``λ (u, β) = (w_i, b_i)`` and one ``(u, β)`` per group), the constant neurons'
    ``V_i σ(b_i)`` (*constants*: one list per net) and ``c``.  Every other group must already be
    proven to contribute equal kinks and no affine difference."""
    m = a.n_outputs
    delta_A: list = []          # rows δ_G (m-vector) and the hyperplane (u, β) for the affine part
    first_diff = None
    for g in special:
        Ka, Kb, Da, Db = [Q(0)] * m, [Q(0)] * m, [Q(0)] * m, [Q(0)] * m
        for t, i in enumerate(members[g]):
            if t % 16 == 0:
                checkpoint()      # (an active budget: equiv --timeout; 8000 neurons on one
            side, lam, v, u, beta = neuron(i)          # hyperplane of a 4000-input net: 45 s)
            K_, D_ = (Ka, Da) if side == 0 else (Kb, Db)
            for o in range(m):
                K_[o] += abs(lam) * v[o]
                if lam < 0:
                    D_[o] += lam * v[o]
        if Ka != Kb:
            lu = next(x for x in u if x != 0)
            key = (tuple(x / lu for x in u), beta / lu)
            if first_diff is None or key < first_diff:
                first_diff = key
            continue
        dG = [x - y for x, y in zip(Da, Db)]
        if any(dG):
            delta_A.append((dG, u, beta))
    if first_diff is not None:
        return Float32Comparison(False, "the kink vectors differ on a hyperplane", hyps, first_diff,
                                 details)
    # affine parts: A_a − A_b = Σ δ_G u_Gᵀ, c'_a − c'_b = c_a − c_b + Σ δ_G β_G + constants
    dc = [x - y for x, y in zip(a.biases[1], b.biases[1])]
    for vs, sign in zip(constants, (1, -1)):
        for v in vs:
            for o in range(m):
                dc[o] += sign * v[o]
    dA = [[Q(0)] * a.n_inputs for _ in range(m)]
    for dG, u, beta in delta_A:
        for o in range(m):
            if dG[o]:
                row = dA[o]
                for j, uj in enumerate(u):
                    if uj:
                        row[j] += dG[o] * uj
                dc[o] += dG[o] * beta
    if any(any(r) for r in dA) or any(dc):
        return Float32Comparison(False, "the kinks agree but the affine parts differ", hyps, None,
                                 details)
    return Float32Comparison(True, equal_reason, hyps, None, details)


def one_plus_one(np, order, start, gid, src):
    """``(number of groups, pair, pa, pb)`` for a grouping (a sort *order* of the neurons, the
    first sorted position of each group, the group id per sorted position; *src* 0/1 per
    neuron): ``pair[g]`` when group g has one member from each net, then ``pa[g]``, ``pb[g]``
    are its member from a and from b."""
    total = len(order)
    ngroups = int(gid[-1]) + 1
    s_sorted = src[order]
    na = np.bincount(gid, weights=(s_sorted == 0), minlength=ngroups).astype(int)
    nb = np.bincount(gid, weights=(s_sorted == 1), minlength=ngroups).astype(int)
    pos = np.flatnonzero(start)
    nxt = order[np.minimum(pos + 1, total - 1)]
    pa = np.where(s_sorted[pos] == 0, order[pos], nxt)
    pb = np.where(s_sorted[pos] == 0, nxt, order[pos])
    return ngroups, (na == 1) & (nb == 1), pa, pb


def _groups(np, rows, lead, cols, prod):
    """Group the rows ``(w, b)`` by hyperplane: bucket by the float quotients ``row[cols]/λ``
    (equal hyperplanes have equal quotients), re-bucket the buckets that mix hyperplanes by the
    whole quotient row, split the buckets that still mix hyperplanes by exact comparisons
    (:func:`_split_exactly`), and prove every group exactly (each member an exact multiple of
    the group's first member; H2).  ``(order, start, gid)`` (a sort of the rows, the first position
    of each group, the group id per sorted position), or None when a group cannot be proven."""
    key_id = row_ids(np, rows[:, cols] / lead[:, None])
    for attempt in range(3):
        order = np.argsort(key_id, kind="stable")
        ids = key_id[order]
        start = np.concatenate([[True], ids[1:] != ids[:-1]])
        gid = np.cumsum(start) - 1
        first = np.flatnonzero(start)[gid]
        later = np.flatnonzero(~start)
        mem, rep = order[later], order[first[later]]
        bad = []
        for lo in range(0, len(mem), 2048):             # chunks bound the temporaries
            mm, rr = mem[lo:lo + 2048], rep[lo:lo + 2048]
            ok = (prod(rows[mm], lead[rr][:, None]) == prod(rows[rr], lead[mm][:, None])).all(axis=1)
            bad.append(mm[~ok])
        bad = np.concatenate(bad) if bad else np.zeros(0, dtype=np.int64)
        if not len(bad):
            return order, start, gid
        redo = np.flatnonzero(np.isin(key_id, key_id[bad]))
        key_id = key_id.copy()
        if attempt == 0:
            key_id[redo] = key_id.max() + 1 + row_ids(np, rows[redo] / lead[redo][:, None])
        elif attempt == 1:
            fresh = _split_exactly(np, rows, lead, key_id, redo, prod)
            if fresh is None:
                return None
            key_id[redo] = key_id.max() + 1 + fresh
    return None  # pragma: no cover


def _split_exactly(np, rows, lead, key_id, redo, prod, limit=64):
    """New ids for the rows *redo* whose buckets (by *key_id*) still mix hyperplanes: each row
    joins the first earlier row of its bucket that it is an exact multiple of (exact products),
    else starts a class.  None for a bucket larger than *limit* (quadratic work)."""
    out = np.zeros(len(redo), dtype=np.int64)
    reps: dict = {}
    for k, i in enumerate(redo.tolist()):
        bucket = reps.setdefault(int(key_id[i]), [])
        if len(bucket) > limit:
            return None
        for r, cls in bucket:
            if (prod(rows[i], lead[r]) == prod(rows[r], lead[i])).all():
                out[k] = cls
                break
        else:
            out[k] = k
            bucket.append((i, k))
    return out


def row_ids(np, P):
    """Ids of the distinct rows of the float or int64 array *P* (equal rows, equal ids;
    −0.0 = 0.0)."""
    P = np.ascontiguousarray(P) + (0.0 if P.dtype.kind == "f" else 0)
    raw, width = P.tobytes(), P.shape[1] * P.dtype.itemsize
    seen: dict[bytes, int] = {}
    return np.fromiter((seen.setdefault(raw[i * width:(i + 1) * width], len(seen))
                        for i in range(P.shape[0])), dtype=np.int64, count=P.shape[0])


def _neurons(np, layers, prod):
    """Per net: the neurons with a kink (w ≠ 0, V column ≠ 0): rows ``(w, b)``, leads λ, kink
    vectors ``|λ| V_i`` (exact products) and output columns ``V_i``; and the indices of the
    constant neurons (w = 0, V column ≠ 0)."""
    (W, b), (V, _) = layers
    live = (V != 0).any(axis=0)
    nz = W != 0
    has = nz.any(axis=1)
    lead_all = W[np.arange(W.shape[0]), nz.argmax(axis=1)]
    kinked = np.flatnonzero(live & has)
    rows = np.hstack([W[kinked], b[kinked, None]])
    lead = lead_all[kinked]
    kink = prod(V[:, kinked].T, np.abs(lead)[:, None])    # exact products (H2), as limbs
    return {"rows": rows, "lead": lead, "kink": np.ascontiguousarray(kink),
            "cols": np.ascontiguousarray(V[:, kinked].T), "constant": np.flatnonzero(live & ~has)}


def constant_terms(net, part):
    """``(i, V_i σ(b_i))`` exactly for the neurons with w = 0 and a non-zero output column."""
    V = net.layer(1)[0]
    for i in part["constant"].tolist():
        bi = net.biases[0][i]
        if bi > 0:
            yield i, [x * bi for x in V.col_at(i)]
