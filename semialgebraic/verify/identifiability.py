"""Checker of ``identifiability_hypotheses`` certificates (three-layer-fibers R18; R41 for one
hidden layer).

Schema (version 1; built by :func:`semialgebraic.certificates.identifiability_certificate`, and
for one hidden layer by :func:`semialgebraic.shallow.identifiability.identifiability_shallow`)::

    {"format": "netfibers.certificate", "type": "identifiability_hypotheses",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "identifiable up to permutation and positive scaling (three-layer-fibers R18,
               a derived criterion)",   # or "(three-layer-fibers R41, one hidden layer, …)"
     "network": <network>,              # native network dict, two hidden layers (one for R41)
     "fiber_dimension": n1 + n2,        # JSON integer (n for R41)
     "flip_sets": {"kind": …}}          # how no flip set was shown: R41's I4 (_check_shallow),
                                        # R18.5 for the rows of [W2 | b2] (_flip_set_failure)

Nothing else: the hypotheses are re-derived here from the network (the decider's own list of
checked hypotheses, with witnesses, is in its verdict, not in the certificate).

The claim "identifiable up to permutation and positive scaling" rests on the [derived]
criterion R18 (three-layer-fibers §6).  This checker re-derives, independently and exactly, every
hypothesis the criterion needs from the embedded network: two hidden layers with n1 ≤ d; G1
rank W1 = n1; G2 no zero entry in [W2 | b2]; G3 no zero column of W3; G4/G5 no two proportional
rows of [W1 | b1] / [W2 | b2]; and the R18 sign conditions: every row of [W2 | b2] has mixed signs
(no dead, no linear neuron), no column i such that every row has the masking pattern for i, and
not (n1 = n2 = 1 with row (− | +)); G8 (every first-layer neuron bends on its facet: cells listed
exactly for n1 ≤ 2, the exact jump rule of §3.1 for n1 ≥ 3); R18.5, no non-empty set S of rows
with Σ_{j∈S} V_j W2_j = 0 (such rows flip together: an outside audit's counterexample to the
first four conditions alone, session 35), shown by ``flip_sets`` as for R41's I4.  It also checks the claimed fiber dimension n1 + n2.  The
reason returned says that validity is relative to R18.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.linalg import QMatrix
from algebra.linalg.gfp import PRIME_61, outer_products_rank, outer_products_ranks_modulo, rank_lower_bound
from algebra.rationals import to_q
from algebra.symmetries import affine_contribution

__all__ = ["check"]


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "identifiability_hypotheses")
    fd = cert["fiber_dimension"]
    if type(fd) is not int:
        raise InputError("fiber_dimension must be an integer")
    net = network_from_dict(cert["network"], source="certificate[network]")
    if cert["claim"] == CLAIMS["identifiability_hypotheses"][3] or net.depth == 1:
        # no hidden layer: f(0) = b and f(e_j) - f(0) = W[:, j], so f determines (W, b)
        if net.depth != 1 or cert["claim"] != CLAIMS["identifiability_hypotheses"][3]:
            return False, (f"the claim is about networks without hidden layers; the network has "
                           f"{net.depth - 1}" if net.depth != 1 else
                           "a network without hidden layers is identifiable by the affine claim only")
        if fd != 0 or "flip_sets" in cert:
            return False, "no hidden layer: the fiber dimension is 0 and there are no flip sets"
        return True, ("identifiable: no hidden layer (x -> W x + b determines W and b; the fiber "
                      "is the point itself)")
    if net.depth == 2:
        return _check_shallow(cert, net, fd)
    if cert["claim"] != CLAIMS["identifiability_hypotheses"][0]:
        return False, "the claim names R41 (one hidden layer), the network has two hidden layers"
    if net.depth != 3:
        return False, f"R18 is about two hidden layers; the network has {net.depth - 1}"
    d, n1, n2, m = net.widths
    if n1 > d:
        return False, f"not a bottleneck: n1 = {n1} > d = {d}"
    (W1, b1), (W2, b2), (W3, _) = net.layer(0), net.layer(1), net.layer(2)
    if W1.rank() != n1:
        return False, "G1 fails: rank W1 < n1"
    rows2 = [list(W2.row_at(j)) + [b2[j]] for j in range(n2)]
    if any(x == 0 for r in rows2 for x in r):
        return False, "G2 fails: [W2 | b2] has a zero entry"
    if any(all(x == 0 for x in W3.col_at(j)) for j in range(n2)):
        return False, "G3 fails: W3 has a zero column"
    rows1 = [list(W1.row_at(i)) + [b1[i]] for i in range(n1)]
    for name, rows in (("G4", rows1), ("G5", rows2)):
        pair = _proportional_pair(rows)
        if pair is not None:
            return False, f"{name} fails: rows {pair[0]} and {pair[1]} are proportional"
    for j, r in enumerate(rows2):
        if all(x < 0 for x in r):
            return False, f"row {j} of [W2 | b2] is all-negative (dead): not identifiable"
        if all(x > 0 for x in r):
            return False, f"row {j} of [W2 | b2] is all-positive (linear): not identifiable"
    for i in range(n1):
        if all(r[i] > 0 and r[-1] < 0 and all(r[k] < 0 for k in range(n1) if k != i) for r in rows2):
            return False, f"column {i} is masked: not identifiable"
    if n1 == 1 and all(r[0] < 0 < r[1] for r in rows2):
        return False, "n1 = 1 and every row (- | +): S8 kink swap (three-layer-fibers R15)"
    g8 = _g8_failure(rows2, [list(W3.col_at(j)) for j in range(n2)], n1)
    if g8 is not None:
        return False, g8
    if "flip_sets" not in cert:           # (certificates before session 35 lack it: R18.5 unshown)
        return False, ("R18.5 not shown: no flip_sets proof that no set of rows of [W2 | b2] "
                       "flips together (sum of V_j W2_j over it = 0)")
    why = _flip_set_failure(cert["flip_sets"], W2, W3, "R18.5")
    if why is not None:
        return False, why
    cols3 = [tuple(W3.col_at(j)) for j in range(n2)]
    negative = [k for k in range(n1) if all(r[k] < 0 for r in rows2)]
    for i in range(n1 if n1 >= 2 and negative else 0):   # R18.6 (n1 = 1: R18.4 above)
        if _constant_on_facet(rows2, cols3, i):
            return False, (f"R18.6 fails: the tail is constant on the facet u_{i} = 0 and every "
                           f"W2[j, {negative[0]}] < 0 (a kink swap): not shown identifiable")
    if fd != n1 + n2:
        return False, f"claimed fiber dimension {fd!r} != n1 + n2 = {n1 + n2}"
    return True, ("every hypothesis of the identifiability criterion holds exactly "
                  "(validity relative to three-layer-fibers R18, a [derived] result)")


MAX_ENUMERATED = 16
"""Largest nullity of the kink matrices whose 0/1 points this checker enumerates."""


def _constant_on_facet(rows2, cols3, i) -> bool:
    """Is ``Σ_j V_j σ(r_j · (u, 1))`` constant on the facet ``u_i = 0`` of the closed orthant
    with some row not dead there?  Its restriction is a one-hidden-layer net on the closed orthant of R^{n1−1}; constant iff its
    kinks cancel and its affine part has no linear term (R3's classification of rows on the
    orthant, :func:`algebra.symmetries.affine_contribution`)."""
    neurons = [(tuple(x for k, x in enumerate(r[:-1]) if k != i), r[-1], v)
               for r, v in zip(rows2, cols3)]
    if all(all(x <= 0 for x in w) and b <= 0 for w, b, _ in neurons):
        return False                     # every row dead there: the masking pattern (R18.3)
    aff = affine_contribution(neurons, orthant=True)
    return aff is not None and all(x == 0 for row in aff[0] for x in row)


def _check_shallow(cert: dict, net, fd) -> tuple[bool, str]:
    """One hidden layer (three-layer-fibers R41): I1 every column of W2 non-zero, I2 every row of
    W1 non-zero, I3 no two rows of [W1 | b1] proportional, I4 no non-empty S with
    Σ_{i∈S} v_i w_iᵀ = 0 shown as ``flip_sets`` says (``independent``: the n kink matrices have
    rank n — paired with random rank-one functionals mod a prime, else the matrices themselves mod
    a prime or over Q; ``positive_functional``: ``⟨y, v_i w_iᵀ⟩ > 0`` for every i;
    ``enumerated``: every 0/1 point of their dependencies, at most 2^16, re-enumerated here;
    ``split_sums``: every subset's sum, at most 40 neurons, compared here as the sums of two
    halves), and the fiber dimension n."""
    proof = cert.get("flip_sets")
    if not isinstance(proof, dict) or proof.get("kind") not in ("independent", "positive_functional",
                                                                 "enumerated", "split_sums", "opposite_pair",
                                                                 "opposite_pairs"):
        raise InputError("flip_sets must be an object of kind independent, positive_functional, "
                         "enumerated, split_sums, opposite_pair or opposite_pairs")
    kind = proof["kind"]
    if cert["claim"] != CLAIMS["identifiability_hypotheses"][2 if kind.startswith("opposite_pair") else 1]:
        return False, ("the claim names R18 (two hidden layers), the network has one hidden layer"
                       if cert["claim"] == CLAIMS["identifiability_hypotheses"][0] else
                       f"the claim does not match flip_sets of kind {kind} (R41: no shared hyperplane; "
                       "R42: one pair with opposite orientations)")
    d, n, m = net.widths
    (W1, b1), (W2, _) = net.layer(0), net.layer(1)
    rows = [list(W1.row_at(i)) for i in range(n)]
    cols = [list(W2.col_at(i)) for i in range(n)]
    for i in range(n):
        if all(x == 0 for x in cols[i]):
            return False, f"I1 fails: neuron {i} is not read (zero column of W2): its row is free"
        if all(x == 0 for x in rows[i]):
            return False, f"I2 fails: neuron {i} has a zero row (constant or dead): not identifiable"
    if kind == "opposite_pair":
        return _check_opposite_pair(proof, rows, list(b1), cols, fd)
    if kind == "opposite_pairs":
        return _check_opposite_pairs(proof, rows, list(b1), cols, fd)
    pair = _proportional_pair([r + [b1[i]] for i, r in enumerate(rows)])
    if pair is not None:
        return False, f"I3 fails: rows {pair[0]} and {pair[1]} of [W1 | b1] are proportional"
    why = _flip_set_failure(proof, W1, W2, "I4")
    if why is not None:
        return False, why
    if fd != n:
        return False, f"claimed fiber dimension {fd!r} != n = {n}"
    return True, ("every hypothesis of the identifiability criterion holds exactly "
                  "(validity relative to three-layer-fibers R41, a [derived] result)")


def _flip_set_failure(proof: dict, W1, W2, name: str) -> str | None:
    """Why *proof* does not show that no non-empty S has ``Σ_{i∈S} v_i w_iᵀ = 0`` (``w_i`` the
    rows of *W1*, ``v_i`` the columns of *W2*), or None when it does (R41's I4; R18.5 with the
    second layer's rows and the output columns): ``independent`` (rank n: random rank-one
    functionals mod a prime, else the kink matrices mod a prime or over Q), ``positive_functional``
    (⟨y, v_i w_iᵀ⟩ > 0 for every i), ``enumerated`` (every 0/1 point of their dependencies, at most
    2^16, re-enumerated here), ``split_sums`` (every subset's sum, at most 40 rows, compared as the
    sums of two halves)."""
    kind = proof.get("kind") if isinstance(proof, dict) else None
    if kind not in ("independent", "positive_functional", "enumerated", "split_sums"):
        raise InputError("flip_sets must be an object of kind independent, positive_functional, "
                         "enumerated or split_sums")
    n, d, m = W1.nrows, W1.ncols, W2.nrows
    rows = [list(W1.row_at(i)) for i in range(n)]
    cols = [list(W2.col_at(i)) for i in range(n)]
    if kind == "independent":
        if n > d * m:
            return f"{name} not shown: more neurons than entries of an m x d matrix"
        if outer_products_rank(W1, W2) < n:        # projected and mod p: a lower bound
            # the kink matrices mod two more primes (each rank a lower bound of the rank over
            # Q), never the exact rank: a forged claim on a 100-900-10 net with a planted flip
            # set made it run 156 s inside one FLINT call, past --timeout (session-38 forge F3)
            A = QMatrix.from_rows([[x * y for x in cols[i] for y in rows[i]] for i in range(n)])
            if rank_lower_bound(A) < n and rank_lower_bound(A, PRIME_61) < n:
                return (f"{name} not shown: the kink matrices v_i w_i^T have rank below n mod "
                        "two primes (linearly dependent, or write the flip sets' proof as "
                        "enumerated or split_sums)")
        return None
    kinks = [[x * y for x in cols[i] for y in rows[i]] for i in range(n)]
    if kind == "positive_functional":
        y = proof.get("y")
        if not isinstance(y, list) or len(y) != d * m:
            raise InputError(f"flip_sets.y must be a list of {d * m} numbers (an m x d matrix, row by row)")
        y = [to_q(v) for v in y]
        for i, k in enumerate(kinks):
            if sum((a * b for a, b in zip(k, y)), 0 * y[0]) <= 0:
                return f"{name} not shown: <y, v_{i} w_{i}^T> <= 0"
        return None
    claimed = proof.get("nullity")              # (its one number, checked: s50 audit F2)
    if kind == "enumerated" and claimed is not None and (type(claimed) is not int or claimed < 0):
        raise InputError("flip_sets.nullity must be a non-negative integer")
    S = _flip_set(kinks, n, claimed) if kind == "enumerated" else _zero_sum(kinks)
    if isinstance(S, str):
        return S
    if S:
        return f"{name} fails: flip set {S} (its kink matrices sum to 0): not identifiable"
    return None


def _check_opposite_pair(proof, rows, b1, cols, fd) -> tuple[bool, str]:
    """three-layer-fibers R42: exactly one pair of proportional rows of [W1 | b1], row j = −μ row i
    (μ > 0), with v_i + μ v_j ≠ 0 (the kinks add); and none of R42's 0/1 problems has a solution
    (re-derived here: for each hyperplane q — the pair's, kink K = v_i + μ v_j, and each other
    neuron's — the others' kink matrices times ``P_q = I − w_q w_qᵀ/(w_q·w_q)`` summing to 0 over
    a non-empty S for the pair's own, to ``μ v_j (P_q w_i)ᵀ`` for another q; every 0/1 point of
    the solutions enumerated, or every subset compared as the sums of two halves)."""
    n = len(rows)
    ext = [r + [b] for r, b in zip(rows, b1)]
    groups: dict = {}
    for k, r in enumerate(ext):
        lead = next(x for x in r if x != 0)
        groups.setdefault(_key([x / lead for x in r]), []).append(k)
    shared = [g for g in groups.values() if len(g) > 1]
    claimed = proof.get("pair")
    if not isinstance(claimed, list) or len(claimed) != 2 or any(type(x) is not int for x in claimed):
        raise InputError("flip_sets.pair must be a list of two neuron indices")
    if len(shared) != 1 or len(shared[0]) != 2:
        return False, (f"R42 needs exactly one pair of proportional rows of [W1 | b1]; there are "
                       f"{sum(len(g) - 1 for g in shared)} ({[g for g in shared][:3]})")
    i, j = shared[0]
    if sorted(claimed) != [i, j]:
        return False, f"the proportional rows are {i} and {j}, not {claimed}"
    kink = _pair_kink(ext, cols, i, j)
    if isinstance(kink, str):
        return False, kink
    mu, K = kink
    hyper = [(i, rows[i], K)] + [(k, rows[k], cols[k]) for k in range(n) if k not in (i, j)]
    zero = 0 * mu
    shown = _independent(rows, cols, i, j)
    for q, wq, _ in hyper:
        if q in shown:
            continue
        if (len(hyper) - 1) * len(K) * len(wq) > MAX_PROBLEM_ENTRIES:
            return False, (f"R42 not shown for neuron {q}'s hyperplane: its vectors are not "
                           "independent and the problem is too large to enumerate here")
        nq = sum((x * x for x in wq), zero)

        def proj(w):
            t = sum((a * b for a, b in zip(w, wq)), zero) / nq
            return [a - t * b for a, b in zip(w, wq)]
        vecs = [[a * b for a in u for b in proj(w)] for k, w, u in hyper if k != q]
        pi = proj(rows[i])
        target = [zero] * len(K) * len(pi) if q == i else [mu * a * b for a in cols[j] for b in pi]
        S = _subset_with_sum(vecs, target, nonempty=q == i)
        if isinstance(S, str):
            return False, f"R42 not shown for neuron {q}'s hyperplane: {S}"
        if S is not None:
            return False, (f"R42 fails: another realisation (hyperplane of neuron {q}, positions {S} "
                           "of the others flipped): not identifiable")
    if fd != n:
        return False, f"claimed fiber dimension {fd!r} != n = {n}"
    return True, ("every hypothesis of the identifiability criterion holds exactly "
                  "(validity relative to three-layer-fibers R42, a [derived] result)")


MAX_PLACEMENTS = 1 << 17
"""Most placements (Q, S) this checker tries for two or more pairs (R42)."""


def _pair_kink(ext, cols, i, j):
    """``(μ, K)`` for rows i, j of [W1 | b1] with row j = −μ row i, μ > 0, and the kink
    ``K = v_i + μ v_j ≠ 0`` they make together; else the reason (same orientation: a trade;
    K = 0: a linear pair)."""
    lead = next(t for t, x in enumerate(ext[i]) if x != 0)
    mu = -ext[j][lead] / ext[i][lead]
    if mu < 0:
        return f"I3 fails: rows {i} and {j} are proportional with the same orientation (a trade)"
    K = [a + mu * b for a, b in zip(cols[i], cols[j])]
    if all(x == 0 for x in K):
        return f"rows {i} and {j} are a linear pair (their kinks cancel): not identifiable"
    return mu, K


def _check_opposite_pairs(proof, rows, b1, cols, fd) -> tuple[bool, str]:
    """three-layer-fibers R42 with p >= 2 pairs: the proportional rows of [W1 | b1] are exactly
    the claimed pairs, each with opposite orientations and kinks that add; the pairs' rows w_i
    are linearly independent (their remainders do not trade); and no placement other than θ's
    own has rank((T − Σ_S K_k w_kᵀ) P_Q) <= (p − |Q|) // 2 — Q (|Q| <= p) the hyperplanes with
    both orientations, S the others flipped, P_Q the projector of rows modulo span{w_k : k ∈ Q},
    T = Σ μ v_j w_iᵀ — each tried here, exactly."""
    from itertools import combinations
    n, d, m = len(rows), len(rows[0]), len(cols[0])
    claimed = proof.get("pairs")
    if not isinstance(claimed, list) or len(claimed) < 2 or any(
            not isinstance(pr, list) or len(pr) != 2 or any(type(x) is not int for x in pr) for pr in claimed):
        raise InputError("flip_sets.pairs must list two or more pairs of neuron indices")
    ext = [r + [b] for r, b in zip(rows, b1)]
    groups: dict = {}
    for k, r in enumerate(ext):
        lead = next(x for x in r if x != 0)
        groups.setdefault(_key([x / lead for x in r]), []).append(k)
    shared = sorted(sorted(g) for g in groups.values() if len(g) > 1)
    if any(len(g) != 2 for g in shared) or shared != sorted(sorted(pr) for pr in claimed):
        return False, f"the proportional rows of [W1 | b1] are {shared[:4]}, not the claimed pairs"
    zero = 0 * ext[0][0]
    hyper, P, T = [], [], [[zero] * d for _ in range(m)]
    paired = {g[1] for g in shared}
    first = {g[0]: g[1] for g in shared}
    for k in range(n):
        if k in paired:
            continue
        K = list(cols[k])
        if k in first:
            j = first[k]
            kink = _pair_kink(ext, cols, k, j)
            if isinstance(kink, str):
                return False, kink
            mu, K = kink
            for o in range(m):
                for t in range(d):
                    T[o][t] += mu * cols[j][o] * rows[k][t]
            P.append(len(hyper))
        hyper.append((rows[k], K))
    p, r = len(P), len(hyper)
    if QMatrix.from_rows([hyper[k][0] for k in P], ncols=d).rank() < p:
        return False, "the pairs' rows are linearly dependent: their linear parts trade (not identifiable)"
    from math import comb
    cases = sum(comb(r, s) << (r - s) for s in range(p + 1))
    if cases > MAX_PLACEMENTS:
        shown = cases if cases < 10 ** 6 else f"≈ {float(cases):.1e}"
        return False, f"R42 not shown: {shown} placements, more than the {MAX_PLACEMENTS} this checker tries"
    Tm = QMatrix.from_rows(T, ncols=d)
    for size in range(p + 1):
        for Qs in combinations(range(r), size):
            if Qs:
                Bq = QMatrix.from_rows([hyper[k][0] for k in Qs], ncols=d).row_space()
                proj = QMatrix.identity(d) - Bq.T @ (Bq @ Bq.T).inverse() @ Bq
            else:
                proj = QMatrix.identity(d)
            rest = [k for k in range(r) if k not in Qs]
            terms = [QMatrix.from_rows([[u * x for x in hyper[k][0]] for u in hyper[k][1]], ncols=d) @ proj
                     for k in rest]
            Y, flips = Tm @ proj, [0] * len(rest)
            for step in range(1 << len(rest)):       # every S, one flip changing per step
                if step:
                    t = (step & -step).bit_length() - 1
                    flips[t] ^= 1
                    Y = Y - terms[t] if flips[t] else Y + terms[t]
                if list(Qs) == P and not any(flips):
                    continue                          # θ's own placement
                if Y.rank() <= (p - size) // 2:
                    return False, (f"R42 fails: another placement ({size} hyperplane(s) with both "
                                   f"orientations, {sum(flips)} flipped): not identifiable")
    if fd != n:
        return False, f"claimed fiber dimension {fd!r} != n = {n}"
    return True, ("every hypothesis of the identifiability criterion holds exactly "
                  "(validity relative to three-layer-fibers R42, a [derived] result)")


MAX_PROBLEM_ENTRIES = 200_000
"""Largest R42 problem (vectors × m × d numbers) this checker eliminates exactly."""


def _independent(rows, cols, i, j) -> set:
    """The hyperplanes whose R42 problem has independent vectors, hence no solution: the base
    {v_k w_kᵀ : k ≠ i, j} ∪ {e_o w_iᵀ} of full rank and, for q, the m matrices e_o w_qᵀ of rank
    m − 1 modulo it (ranks mod p of random rank-one pairings: lower bounds over Q).  The pair's
    own (i) with the base; the empty set when the base is dependent."""
    others = [k for k in range(len(rows)) if k not in (i, j)]
    m, d = len(cols[i]), len(rows[i])
    if len(others) + m > m * d:
        return set()
    W = QMatrix.from_rows([rows[k] for k in others] + [rows[i]] * m, ncols=d)
    V = QMatrix.from_rows([[cols[k][o] for k in others] + [int(o == t) for t in range(m)]
                           for o in range(m)], ncols=len(others) + m)
    base, ranks = outer_products_ranks_modulo(W, V, QMatrix.from_rows([rows[k] for k in others], ncols=d))
    if base < len(others) + m:
        return set()
    return {i} | {q for q, r in zip(others, ranks) if r >= m - 1}


def _subset_with_sum(vecs, target, nonempty) -> list | None | str:
    """A set S of positions (non-empty if *nonempty*) with ``Σ_S vecs = target``, None when there
    is none, a string when neither way here may decide: the 0/1 points of the affine solutions
    (at most 2^:data:`MAX_ENUMERATED`), else every subset as the sums of two halves (at most
    :data:`MAX_SPLIT` vectors)."""
    if not nonempty and _is_zero(target):
        return []
    k = len(vecs)
    if k == 0:
        return None
    R, piv = QMatrix.from_rows([list(c) + [t] for c, t in zip(zip(*vecs), target)], ncols=k + 1).rref()
    if k in piv:
        return None                                   # inconsistent over Q
    free = [f for f in range(k) if f not in piv]
    if len(free) <= MAX_ENUMERATED:
        return _flip_set_points(R, piv, free, k, nonempty)
    if k > MAX_SPLIT:
        return f"{len(free)} free coordinates and {k} vectors: beyond this checker's enumerations"
    return _zero_sum(vecs, target) or None


def _is_zero(v) -> bool:
    return all(x == 0 for x in v)


def _flip_set_points(R, piv, free, rhs, nonempty) -> list | None:
    """A 0/1 point of ``{t : R t = R[:, rhs]}`` (R in reduced echelon form; ``rhs`` the column of
    the right-hand side, or None for 0) as the sorted set of its 1s, non-empty if *nonempty*;
    None when there is none.  A Gray-code walk over the free coordinates' 0/1 values (integer
    rows: pivot ``t_r = rhs_r − Σ_f R[r, f] t_f`` must be 0 or 1)."""
    rows = []
    for r, p in enumerate(piv):
        vals = [R[r, f] for f in free] + ([R[r, rhs]] if rhs is not None else [])
        den = 1
        for x in vals:
            q = int(x.q)
            den = den * q // _gcd(den, q)
        rows.append((den, [int((R[r, f] * den).p) for f in free],
                     int((R[r, rhs] * den).p) if rhs is not None else 0))
    sums = [-b for _, _, b in rows]               # Σ_f R[r, f] t_f − rhs_r, scaled: 0 or −den
    t = [0] * len(free)

    def found():
        if all(s == 0 or s == -den for s, (den, _, _) in zip(sums, rows)):
            S = sorted([free[q] for q in range(len(free)) if t[q]] +
                       [piv[r] for r, (den, _, _) in enumerate(rows) if sums[r] == -den])
            if S or not nonempty:
                return S
        return None
    S = found()
    if S is not None:
        return S
    for step in range(1, 1 << len(free)):
        k = (step & -step).bit_length() - 1          # the bit that changes (Gray code)
        t[k] ^= 1
        sign = 1 if t[k] else -1
        for r, (_, ints, _) in enumerate(rows):
            sums[r] += sign * ints[k]
        S = found()
        if S is not None:
            return S
    return None


def _flip_set(kinks, n, nullity=None) -> list | str:
    """A non-empty S ⊆ range(n) whose kink vectors sum to 0 ([] when there is none), by
    :func:`_flip_set_points` on their dependencies; a string when there are too many, or when
    the certificate's *nullity* is not theirs."""
    R, piv = QMatrix.from_rows([list(c) for c in zip(*kinks)], ncols=n).rref()
    free = [j for j in range(n) if j not in piv]
    if nullity is not None and nullity != len(free):
        return f"flip_sets.nullity is {nullity}, but the kink matrices' nullity is {len(free)}"
    if len(free) > MAX_ENUMERATED:
        return (f"I4 not shown: {len(free)} free coordinates, more than the {MAX_ENUMERATED} this "
                "checker enumerates")
    return _flip_set_points(R, piv, free, None, True) or []


MAX_SPLIT = 40
"""Most neurons whose subsets this checker compares as the sums of two halves."""


def _zero_sum(kinks, target=None) -> list | str:
    """A non-empty S whose kink vectors sum to 0 (or to *target*; [] when none), by every subset
    of each half: the integer sums keyed by a linear form mod 2^61 − 1 (a zero sum gives 0), a
    match of the two halves re-checked exactly; a string when there are more than
    :data:`MAX_SPLIT`."""
    n = len(kinks)
    if n > MAX_SPLIT:
        return f"I4 not shown: {n} neurons, more than the {MAX_SPLIT} whose subsets this checker compares"
    if not kinks:
        return []
    goal = list(target) if target is not None else [0 * kinks[0][0]] * len(kinks[0])
    den = 1
    for v in list(kinks) + [goal]:
        for x in v:
            q = int(x.q)
            den = den * q // _gcd(den, q)
    ints = [[int((x * den).p) for x in v] for v in kinks]
    prime = (1 << 61) - 1
    keys = [sum(pow(5, k + 1, prime) * x for k, x in enumerate(v)) % prime for v in ints]
    want = [int((x * den).p) for x in goal]
    hw = sum(pow(5, k + 1, prime) * x for k, x in enumerate(want)) % prime

    def sums(part):
        out = {0: 0}
        for i in part:                      # every subset of part: (mask -> key), doubled per element
            out.update({m | (1 << i): (h + keys[i]) % prime for m, h in list(out.items())})
        return out
    first = sums(range(n // 2))
    index: dict = {}
    for m, h in first.items():
        index.setdefault(h, []).append(m)
    for mb, h in sums(range(n // 2, n)).items():
        for ma in index.get((hw - h) % prime, ()):
            S = [i for i in range(n) if (ma | mb) >> i & 1]
            if S and all(sum(ints[i][k] for i in S) == want[k] for k in range(len(ints[0]))):
                return S
    return []


def _gcd(a: int, b: int) -> int:
    while b:
        a, b = b, a % b
    return a


def _key(values) -> tuple:
    """Exact rationals as a hashable tuple of integer pairs (numerator, denominator)."""
    return tuple((int(v.p), int(v.q)) for v in values)


def _proportional_pair(rows) -> tuple | None:
    """Two rows of rank < 2 together (one zero, or one a multiple of the other), or None.  A
    non-zero row scaled by its first non-zero entry is the same for every non-zero multiple of
    it, so proportional rows meet in one dictionary entry (n rows: n keys, not n²/2 ranks)."""
    seen: dict = {}
    for i, r in enumerate(rows):
        lead = next((x for x in r if x != 0), None)
        if lead is None:
            if len(rows) > 1:
                return (0, 1) if i == 0 else (0, i)
            continue
        key = _key([x / lead for x in r])
        if key in seen:
            return seen[key], i
        seen[key] = i
    return None


def _g8_failure(rows2, cols3, n1) -> str | None:
    """G8 (three-layer-fibers §3.1), re-derived for an all-switching, unmasked ``[W2 | b2]``:
    every column i needs an open cell of the facet ``z_i = 0`` of the orthant on which the active
    rows S have ``Σ_{j∈S} V_j W2[j,i] ≠ 0``.  n1 ≤ 2: the facet is the point 0 or a ray, its
    cells are listed exactly.  n1 ≥ 3: :func:`_visible_on_facet` (exact, polynomial)."""
    def slope_zero(S, i):
        return all(sum((c[o] * rows2[j][i] for j, c in ((j, cols3[j]) for j in S)), 0 * rows2[0][0]) == 0
                   for o in range(len(cols3[0])))
    for i in range(n1):
        if n1 <= 2:
            if n1 == 1:
                samples = [[]]
                act = [[j for j, r in enumerate(rows2) if r[-1] > 0]]
            else:
                k = 1 - i
                cuts = sorted({-r[-1] / r[k] for r in rows2 if -r[-1] / r[k] > 0})
                ts = [c / 2 for c in cuts[:1]] + [(a + b) / 2 for a, b in zip(cuts, cuts[1:])]
                ts += [cuts[-1] + 1] if cuts else [1]
                act = [[j for j, r in enumerate(rows2) if r[k] * t + r[-1] > 0] for t in ts]
            if all(not S or slope_zero(S, i) for S in act):
                return f"G8 fails: first-layer neuron {i} shows no kink on its facet: not identifiable"
            continue
        if not _visible_on_facet(rows2, cols3, n1, i):
            return f"G8 fails: first-layer neuron {i} shows no kink on its facet: not identifiable"
    return None


def _visible_on_facet(rows2, cols3, n1, i) -> bool:
    """The jump rule (three-layer-fibers §3.1, G8), re-derived here: on the open facet
    ``{z_i = 0, z_c > 0}`` the slope ``g(z) = Σ_{j active} V_j W2[j,i]`` is piecewise constant.
    Rows proportional after deleting column i share one hyperplane, which meets the open facet
    iff a restricted weight has the sign opposite to the bias; crossing it ``g`` jumps by
    ``Σ_{b_j > 0} a_j − Σ_{b_j < 0} a_j``.  Visible iff some jump is non-zero, or all are zero
    and ``g`` is non-zero at one point off every hyperplane (``g`` is then constant)."""
    others = [c for c in range(n1) if c != i]
    m, zero = len(cols3[0]), 0 * rows2[0][0]
    slope = [[v * r[i] for v in cols3[j]] for j, r in enumerate(rows2)]
    jumps: dict = {}
    for j, r in enumerate(rows2):
        if any(r[c] * r[-1] < 0 for c in others):
            key = _key([r[c] / r[-1] for c in others])
            old = jumps.get(key, [zero] * m)
            jumps[key] = [x + (y if r[-1] > 0 else -y) for x, y in zip(old, slope[j])]
    if any(x != 0 for jump in jumps.values() for x in jump):
        return True
    for t in range(1, len(rows2) * (n1 - 1) + 2):
        vals = [sum((r[c] * t ** (k + 1) for k, c in enumerate(others)), r[-1]) for r in rows2]
        if all(v != 0 for v in vals):
            break
    g = [sum((slope[j][o] for j, v in enumerate(vals) if v > 0), zero) for o in range(m)]
    return any(x != 0 for x in g)
