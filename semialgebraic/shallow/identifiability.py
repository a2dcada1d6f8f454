r"""Identifiability of a one-hidden-layer ReLU network on R^d (three-layer-fibers R41).

``f(x) = Σ_i v_i σ(w_i·x + b_i) + c`` (widths d-n-m, ``v_i`` the column i of W2).  The network
is identifiable up to permutations and positive scalings (S1 + S2) iff its fiber is one orbit
of them.  R41 [derived]: that holds when

* I1 every neuron is read (``v_i ≠ 0``),
* I2 every neuron has a hyperplane (``w_i ≠ 0``),
* I3 no two rows of ``[W1 | b1]`` are proportional (each hyperplane carries one neuron), and
* I4 no flip set: no non-empty S with ``Σ_{i∈S} v_i w_iᵀ = 0``;

and each of I1, I2, I3 with the same orientation (positively proportional rows), a linear pair
on one hyperplane (``v_i + μ v_j = 0`` for row j = −μ row i) and a flip set gives a different
parameter with the same function (a planted copy, not in θ's S1 + S2 orbit, with a
``symmetry_path`` certificate of the shallow equivalence decision).  Two neurons on one
hyperplane with opposite orientations whose kinks add up (``|x| = σ(x) + σ(−x)``) are decided by
three-layer-fibers R42 (one such pair: one 0/1 problem per hyperplane; several: every placement
of the neurons, up to :data:`SEVERAL_MAX_CASES`).

I4 is decided, in this order, by the rank of the kink matrices ``vec(v_i w_iᵀ)`` (n
independent ones: only S = ∅; rank mod a prime of their pairings with random rank-one
functionals, :func:`~algebra.linalg.gfp.outer_products_rank`, then of the matrices themselves:
lower bounds of the rank over Q), by a
functional ``y`` with ``⟨y, v_i w_iᵀ⟩ ≥ 1`` for every i (exact LP: no non-empty S sums to 0),
by the enumeration of FIND-S (skip-absorption R16: the 0/1 points of the solution space,
2^nullity candidates, nullity at most ``max_nullity``), and, for at most
:data:`SPLIT_SUMS_MAX` neurons, by the sums of every subset of each half compared
(:func:`split_sums`, 2^(n/2) each: a one-input net 1-n-1 has nullity n − 1); beyond that the
answer is undecided.
The identifiable answer's certificate (``identifiability_hypotheses`` with a one-hidden-layer
network) names how I4 was shown; :mod:`semialgebraic.verify.identifiability` re-derives
I1–I4 on its own.
"""

from __future__ import annotations

from math import gcd

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.linalg import QMatrix
from algebra.linalg.gfp import outer_products_rank, outer_products_ranks_modulo, rank_lower_bound
from algebra.network import Network
from algebra.rationals import Q, q_json
from algebra.symmetries.neurons import hidden_neurons, with_hidden_neurons

from .. import lp
from ..absorption.find_s import find_s
from ..budget import Budget, checkpoint
from ..verdict import Hypothesis, Verdict, with_reader_hypotheses
from .equivalence import equivalent_shallow

__all__ = ["identifiability_shallow", "orbit_key", "symmetry_facts", "MAX_NULLITY"]

METHOD = "shallow-R41"
MAX_NULLITY = 16
"""Largest nullity of the kink matrices whose 0/1 points are enumerated (2^k candidates)."""

_NAMES = ("I1 every neuron is read (no zero column of W2)",
          "I2 every neuron has a hyperplane (no zero row of W1)",
          "I3 no two rows of [W1 | b1] are proportional",
          "I4 no flip set (no non-empty S with sum_{i in S} v_i w_i^T = 0)")


def identifiability_shallow(net: Network, *, verify: bool = True, max_nullity: int = MAX_NULLITY,
                            budget: Budget | None = None) -> Verdict:
    """Is the one-hidden-layer *net* identifiable up to permutations and positive scalings on
    R^d?  (three-layer-fibers R41, module docstring.)

    True: certificate ``identifiability_hypotheses`` (the network, the fiber dimension n and the
    proof of I4); False: a planted copy with the same function, outside θ's S1 + S2 orbit, with
    a ``symmetry_path`` certificate; None: a shared hyperplane with opposite orientations and
    added kinks, or a flip set search beyond *max_nullity* (the reason says which).

    >>> v = identifiability_shallow(Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 1], [0]]))
    >>> v.answer, v.certificate["fiber_dimension"], v.certificate["flip_sets"]["kind"]
    (True, 2, 'independent')
    >>> v = identifiability_shallow(Network.from_rows([[[1, 0], [1, 0]], [[1, -1]]], [[0, 1], [0]]))
    >>> v.answer, v.reason.startswith("flip set [0, 1]")
    (False, True)
    """
    if net.depth != 2:
        raise ValueError("R41 is about networks with one hidden layer")
    return with_reader_hypotheses(_identifiability_shallow(net, verify, max_nullity, budget or Budget()),
                                  net)


def _identifiability_shallow(net, verify, max_nullity, budget) -> Verdict:
    """:func:`identifiability_shallow`'s decision (the readers' roundings added by it)."""
    neurons, c = hidden_neurons(net, 0)
    n = len(neurons)
    unread = [i for i, (_, _, v) in enumerate(neurons) if all(x == 0 for x in v)]
    zero_row = [i for i, (w, _, _) in enumerate(neurons) if all(x == 0 for x in w) and i not in unread]
    hyps = [Hypothesis(_NAMES[0], not unread, unread or None),
            Hypothesis(_NAMES[1], not zero_row, zero_row or None)]
    if unread:
        i = unread[0]
        return _planted(net, hyps, f"neuron {i} is not read (zero column {i} of W2): its row is free",
                        _moved_rows(net, neurons, c, i), verify)
    if zero_row:
        i = zero_row[0]
        w, b, v = neurons[i]
        what = "constant" if b > 0 else "dead everywhere"
        new = list(neurons)
        new[i] = (w, b, tuple(-x for x in v))      # σ(b) v moves to the output bias
        c2 = tuple(ci + 2 * vi * max(b, Q(0)) for ci, vi in zip(c, v))
        how = ("its output column trades with the output bias" if b > 0 else
               "it outputs 0, so its output column is free")
        return _planted(net, hyps, f"neuron {i} has a zero row ({what}): {how}",
                        [with_hidden_neurons(net, 0, new, c2)], verify)
    pairs = _proportional_pairs(neurons)
    hyps.append(Hypothesis(_NAMES[2], not pairs, [list(p[:2]) for p in pairs[:4]] or None))
    for i, j, lam in pairs:
        if lam > 0:                                # one kink: move j's outgoing weight to i
            new = list(neurons)
            (wi, bi, vi), (wj, bj, vj) = neurons[i], neurons[j]
            new[i] = (wi, bi, tuple(a + lam * x for a, x in zip(vi, vj)))
            new[j] = (wj, bj, tuple(Q(0) for _ in vj))
            return _planted(net, hyps, f"neurons {i} and {j} share a hyperplane with the same "
                            "orientation: their outgoing weights trade", [with_hidden_neurons(net, 0, new, c)],
                            verify)
    for i, j, lam in pairs:
        mu = -lam
        (wi, bi, vi), (wj, bj, vj) = neurons[i], neurons[j]
        if all(a + mu * x == 0 for a, x in zip(vi, vj)):    # no kink: v_i (w·x + b), moved
            new = list(neurons)
            new[i] = (wi, bi + 1, vi)
            new[j] = (wj, bj - mu, vj)
            c2 = tuple(ci - a for ci, a in zip(c, vi))
            return _planted(net, hyps, f"neurons {i} and {j} share a hyperplane with opposite "
                            "orientations and cancelling kinks (a linear pair): it moves with the "
                            "output bias", [with_hidden_neurons(net, 0, new, c2)], verify)
    if pairs:                                      # opposite orientations, kinks that add
        return _opposite_pairs(net, neurons, c, pairs, hyps, verify, max_nullity, budget)
    # I4: no flip set (the kink matrices vec(v_i w_i^T))
    W1, _ = net.layer(0)
    W2, _ = net.layer(1)
    outcome, proof = flip_sets(W1, W2, max_nullity=max_nullity, budget=budget)
    if outcome == "undecided":
        hyps.append(Hypothesis(_NAMES[3], None))
        return Verdict(None, METHOD, f"undecided: flip sets not excluded ({proof})", tuple(hyps))
    if outcome == "found":
        S = proof
        new = [((tuple(-x for x in w), -b, v) if i in S else (w, b, v))
               for i, (w, b, v) in enumerate(neurons)]
        c2 = tuple(ci + sum((v[o] * b for i2, (w, b, v) in enumerate(neurons) if i2 in S), Q(0))
                   for o, ci in enumerate(c))        # σ(h) = σ(−h) + h: the constants to c
        hyps.append(Hypothesis(_NAMES[3], False, S))
        return _planted(net, hyps, f"flip set {S}: the sum of v_i w_i^T over it is 0, so "
                        "flipping those neurons keeps the function", [with_hidden_neurons(net, 0, new, c2)],
                        verify)
    hyps.append(Hypothesis(_NAMES[3], True, proof["kind"]))
    cert = {**header("identifiability_hypotheses"), "claim": CLAIMS["identifiability_hypotheses"][1],
            "network": net.to_dict(), "fiber_dimension": n, "flip_sets": proof}
    v = Verdict(True, METHOD, "identifiable up to permutation and positive scaling: every neuron is "
                "read and has its own hyperplane, and no flip set keeps the function "
                f"({_PROOF_TEXT[proof['kind']]})", tuple(hyps), cert, {"fiber_dimension": n, "derived": True})
    if verify:
        from ..certificates import require_valid
        from ..verify import verify as _verify
        require_valid(cert, _verify)
    return v


def flip_sets(Win: QMatrix, Wout: QMatrix, *, max_nullity: int = MAX_NULLITY, budget=None):
    """Is there a flip set: a non-empty S with ``Σ_{i∈S} v_i w_iᵀ = 0``, ``w_i`` the rows of *Win*
    (n × d), ``v_i`` the columns of *Wout* (m × n)?  (three-layer-fibers R41's I4, and R18.5 for
    the second layer of a bottleneck.)  ``("none", proof)`` with the proof a certificate's
    ``flip_sets`` holds (kinds ``independent``, ``positive_functional``, ``enumerated``,
    ``split_sums``), ``("found", S)`` (sorted indices) or ``("undecided", reason)``.

    >>> W = QMatrix.from_rows([[1, -2], [-2, 4], [1, 1]])
    >>> flip_sets(W, QMatrix.from_rows([[2, 1, 1]]))
    ('found', [0, 1])
    >>> flip_sets(W, QMatrix.from_rows([[2, -1, 1]]))[0]
    'none'
    """
    n = Win.nrows
    if n <= Win.ncols * Wout.nrows and outer_products_rank(Win, Wout) == n:
        return "none", {"kind": "independent"}
    rows, outs = Win.to_rows(), Wout.T.to_rows()
    cols = [[x * y for x in v for y in w] for w, v in zip(rows, outs)]
    A = QMatrix.from_rows(cols)                              # n x md, row i = vec(v_i w_i^T)
    r_low = rank_lower_bound(A)
    if n <= A.ncols and r_low == n:
        return "none", {"kind": "independent"}
    if n > ENUMERATE_FIRST_ABOVE and n - r_low <= ENUMERATE_FIRST_NULLITY:
        # a few dependencies among many neurons: their 0/1 points first (the positive
        # functional's exact LP on 500 kink matrices of dimension 630 ran > 15 min for a
        # 210-500-3 net with one planted flip set; session 40)
        answer, res = _enumerated(Win, Wout, max_nullity, budget)
        if answer is not None:
            return answer
    proof = _positive_functional(A)
    if proof is not None:
        return "none", proof
    answer, res = _enumerated(Win, Wout, max_nullity, budget)
    if answer is not None:
        return answer
    if n <= SPLIT_SUMS_MAX:                # every subset, as sums of two halves
        S = split_sums(cols)
        return ("found", S) if S else ("none", {"kind": "split_sums"})
    S = window_sums(cols, budget)
    if S:
        return "found", S
    return "undecided", (f"{res.reason}; more than {SPLIT_SUMS_MAX} neurons for the sums of two "
                         f"halves (and no flip set among {WINDOWS} windows of {WINDOW} neurons)")


def _enumerated(Win, Wout, max_nullity, budget):
    """``(answer or None, the FIND-S result)``: the 0/1 points of the kink matrices'
    dependencies (``("found", S)``, or ``("none", enumerated)`` when the search is complete)."""
    res = find_s(Win, Wout, QMatrix.zeros(Wout.nrows, Win.ncols), max_nullity=max_nullity,
                 budget=budget)
    found = [sorted(S) for S in res.subsets if S]
    if found:
        return ("found", found[0]), res
    if res.complete:
        return ("none", {"kind": "enumerated", "nullity": res.nullity}), res
    return None, res


_PROOF_TEXT = {"independent": "the kink matrices v_i w_i^T are linearly independent",
               "positive_functional": "a linear functional is positive on every kink matrix",
               "enumerated": "every 0/1 point of their dependencies enumerated",
               "split_sums": "every subset's sum compared, as the sums of two halves"}

ENUMERATE_FIRST_ABOVE, ENUMERATE_FIRST_NULLITY = 64, 8
"""Past this many neurons, a nullity of the kink matrices of at most this (from their rank mod
p, a lower bound: the nullity is at most n − it) is enumerated before the positive functional's
exact LP is tried."""

SPLIT_SUMS_MAX = 40
"""Most neurons whose 2^n subsets are compared as the 2^(n/2) sums of each half (a one-input
regression net 1-n-1 has n − 1 dependencies: FIND-S enumerates 2^(n−1))."""

WINDOW, WINDOWS = 30, 8
"""Past :data:`SPLIT_SUMS_MAX` neurons a flip set is still looked for (never ruled out) among
the subsets of *WINDOWS* windows of *WINDOW* neurons each (the first, the last, then seeded
random ones; the 2^30 subsets of each compared as two halves' 2^15 sums, ~0.1 s): small
integer weights have many
zero sums (a 2-50-1 net with weights up to 20 in size: ~2^50 subsets, ~10^8 sums)."""


def window_sums(vectors, budget=None, target=None) -> list | None:
    """A non-empty S with ``Σ_{i∈S} vectors[i] = 0`` (with *target*: ``= target``) (sorted)
    inside one of the windows of :data:`WINDOW` indices (:func:`split_sums` on each, exact), or
    None: a search, not a proof."""
    import random
    n = len(vectors)
    rng = random.Random(n)
    wins = [list(range(WINDOW)), list(range(n - WINDOW, n))]
    wins += [sorted(rng.sample(range(n), WINDOW)) for _ in range(WINDOWS - 2)]
    for win in wins:
        if budget is not None and budget.exhausted():
            return None
        S = split_sums([vectors[i] for i in win], target)
        if S:
            return sorted(win[i] for i in S)
    return None


_P61 = (1 << 61) - 1


def split_sums(vectors, target=None) -> list | None:
    """A non-empty S with ``Σ_{i∈S} vectors[i] = 0`` (sorted), or None; with *target*, an S with
    the sum equal to it (``recover``'s orientation: the affine remainder).  The subsets of each
    half are walked in Gray-code order, each sum hashed by a fixed linear form mod 2^61 − 1 (the
    hash is linear, so no solution is missed), every hash match re-checked exactly."""
    n = len(vectors)
    width = len(vectors[0]) if vectors else 0
    goal = list(target) if target is not None else [Q(0)] * width
    den = 1
    for v in list(vectors) + [goal]:
        for x in v:
            q = int(Q(x).q)
            den = den * q // gcd(den, q)
    ints = [[int((Q(x) * den).p) for x in v] for v in vectors]
    want = [int((Q(x) * den).p) for x in goal]
    coef = [pow(3, k + 1, _P61) for k in range(width)]
    hs = [sum(c * x for c, x in zip(coef, v)) % _P61 for v in ints]
    hg = sum(c * x for c, x in zip(coef, want)) % _P61
    half = n // 2
    left: dict = {}
    for mask, h in _gray_sums(hs[:half]):
        left.setdefault(h, []).append(mask)
    for mask_b, h in _gray_sums(hs[half:]):
        for mask_a in left.get((hg - h) % _P61, ()):
            if mask_a == 0 and mask_b == 0 and target is None:
                continue
            S = [i for i in range(half) if mask_a >> i & 1] + [half + i for i in range(n - half)
                                                                 if mask_b >> i & 1]
            if all(sum(ints[i][k] for i in S) == want[k] for k in range(width)):
                return S
    return None


def _gray_sums(hs):
    """``(mask, Σ_{i in mask} hs[i] mod 2^61 − 1)`` for every subset, in Gray-code order."""
    mask, h = 0, 0
    yield mask, h
    for step in range(1, 1 << len(hs)):
        k = (step & -step).bit_length() - 1
        mask ^= 1 << k
        h = (h + hs[k] if mask >> k & 1 else h - hs[k]) % _P61
        if step & 0xFFFF == 0:
            checkpoint()                 # the active budget (identify --timeout) or Ctrl-C
        yield mask, h


def symmetry_facts(net: Network) -> list[str]:
    """The symmetries of a one-hidden-layer *net* beyond S1 + S2 that its rows show, one
    sentence each (``netfibers symmetries``): unread neurons (rows free), zero rows (constant or
    dead: outgoing weights traded with the output bias), pairs on one hyperplane (same
    orientation: outgoing trade, and when the class's kinks cancel, its hyperplane free;
    opposite with cancelling kinks: a linear pair moving with the output bias; opposite with a
    kink: named only).  Flip sets come from the fiber's components.

    >>> symmetry_facts(Network.from_rows([[[1], [2], [0]], [[1, 1, 0]]], [[0, 0, 1], [0]]))
    ['neuron 2 is not read: its row and bias are free', 'neurons 0 and 1 lie on one hyperplane with the same orientation: their outgoing weights trade']
    """
    neurons, _ = hidden_neurons(net, 0)
    out = []
    for i, (w, b, v) in enumerate(neurons):
        if all(x == 0 for x in v):
            out.append(f"neuron {i} is not read: its row and bias are free")
        elif all(x == 0 for x in w):
            out.append(f"neuron {i} has a zero row (constant: it outputs σ(b) = b > 0): its "
                       "outgoing weights trade with the output bias" if b > 0 else
                       f"neuron {i} has a zero row (dead everywhere: it outputs 0): its outgoing "
                       "weights are free")
    for i, j, lam in _proportional_pairs(neurons):
        if lam > 0:
            out.append(f"neurons {i} and {j} lie on one hyperplane with the same orientation: their "
                       "outgoing weights trade")
        elif all(a - lam * x == 0 for a, x in zip(neurons[i][2], neurons[j][2])):
            out.append(f"neurons {i} and {j} are a linear pair (opposite orientations, cancelling "
                       "kinks): their hyperplane moves with the output bias")
        else:
            out.append(f"neurons {i} and {j} lie on one hyperplane with opposite orientations "
                       "(their kinks add, as |x| = σ(x) + σ(−x))")
    classes: dict = {}                  # same orientation: row m = λ_m row r, r the first
    for i, j, lam in _proportional_pairs(neurons):
        if lam > 0:
            r = next((k for k, g in classes.items() if i == k or i in g), i)
            classes.setdefault(r, {})[j] = lam * classes.get(r, {}).get(i, Q(1))
    for r, g in classes.items():
        if all(neurons[r][2][o] + sum((lam * neurons[m][2][o] for m, lam in g.items()), Q(0)) == 0
               for o in range(len(neurons[r][2]))):
            names = ", ".join(str(k) for k in [r, *g])
            out.append(f"neurons {names} cancel on their hyperplane (Σ λ_m v_m = 0: their sum is "
                       "0 wherever it lies): the hyperplane moves freely (three-layer-fibers R40)")
    return out


def orbit_key(net: Network) -> tuple:
    """The S1 + S2 orbit of a one-hidden-layer *net* as a hashable key: each neuron scaled so that
    the first non-zero entry of ``(w, b)`` has absolute value 1 (its output column scaled back;
    a zero row: the column scaled to a first entry of absolute value 1), sorted, with the output
    bias.  Two networks are in one orbit iff their keys are equal."""
    neurons, c = hidden_neurons(net, 0)
    out = []
    for w, b, v in neurons:
        lead = next((x for x in list(w) + [b] if x != 0), None)
        if lead is None:
            lv = next((x for x in v if x != 0), None)
            s = Q(1) if lv is None else abs(lv)
            out.append((tuple(w), b, tuple(x / s for x in v)))
        else:
            s = abs(lead)
            out.append((tuple(x / s for x in w), b / s, tuple(x * s for x in v)))
    return tuple(sorted(out)), tuple(c)


def _proportional_pairs(neurons) -> list:
    """``(i, j, λ)`` with row j of ``[W1 | b1]`` = λ row i (λ ≠ 0), rows non-zero, i < j: one
    dictionary entry per line through the origin."""
    seen: dict = {}
    out = []
    for j, (w, b, _) in enumerate(neurons):
        row = list(w) + [b]
        lead = next((x for x in row if x != 0), None)
        if lead is None:
            continue
        key = tuple((int(y.p), int(y.q)) for y in (x / lead for x in row))   # (fmpq hashes slowly)
        for i in seen.get(key, ()):
            li = next(x for x in list(neurons[i][0]) + [neurons[i][1]] if x != 0)
            out.append((i, j, lead / li))
        seen.setdefault(key, []).append(j)
    return out


def _positive_functional(A: QMatrix) -> dict | None:
    """``{"kind": "positive_functional", "y": […]}`` with ``A y ≥ 1`` row by row (exact LP), or
    None when there is none (then a non-negative combination of the rows vanishes)."""
    n, k = A.shape
    res = lp.feasible(A_le=-A, b_le=[Q(-1)] * n, n=k)
    if not res.feasible:
        return None
    y = list(res.point)
    if any(sum((A[i, t] * y[t] for t in range(k)), Q(0)) < 1 for i in range(n)):
        raise AssertionError("positive functional failed its exact check")  # pragma: no cover
    return {"kind": "positive_functional", "y": [q_json(x) for x in y]}


def _moved_rows(net: Network, neurons, c, i: int):
    """Copies of *net* with the row of the unread neuron *i* moved (a few tries, so that one is
    outside the orbit even when another neuron's row coincides), made one at a time (the first
    is almost always taken: all 3 (d + 1) of a 784-64-10 net took 18 s)."""
    d = len(neurons[i][0])
    w, b, v = neurons[i]
    for t in (1, 2, -1):
        for k in (d, *range(d)):         # the bias, or one weight, moved by t
            new = list(neurons)
            new[i] = (tuple(x + (t if q == k else 0) for q, x in enumerate(w)), b + (t if k == d else 0), v)
            yield with_hidden_neurons(net, 0, new, c)


def _planted(net: Network, hyps: list, reason: str, copies: list, verify: bool) -> Verdict:
    """Not identifiable: the first of *copies* outside θ's orbit, certified equal to θ by the
    shallow equivalence decision (a ``symmetry_path``)."""
    key = orbit_key(net)
    for other in copies:
        if orbit_key(other) == key:
            continue
        eq = equivalent_shallow(net, other, verify=verify)
        if eq.answer is None:               # (a budget stopped its certificate: identify
            return Verdict(None, METHOD, f"undecided: {reason}, but the planted copy's "  # --timeout
                           f"certificate was not completed ({eq.reason})", tuple(hyps))  # 2: s40)
        if eq.answer is not True:           # pragma: no cover - the moves keep the function
            raise AssertionError(f"planted copy changed the function: {eq.reason}")
        cert = dict(eq.certificate, claim=CLAIMS["symmetry_path"][2])   # and b outside the orbit
        if verify:
            from ..certificates import require_valid
            from ..verify import verify as _verify
            require_valid(cert, _verify)
        return Verdict(False, METHOD, reason, tuple(hyps), cert, {"planted_copy": other.to_dict()})
    return Verdict(None, METHOD, f"undecided: {reason}, but every planted copy tried is in the "  # pragma: no cover
                   "S1 + S2 orbit", tuple(hyps))


# ----------------------------------------------------------------------------------------------
# two neurons on one hyperplane with opposite orientations whose kinks add (three-layer-fibers R42)
# ----------------------------------------------------------------------------------------------
def _opposite_pairs(net: Network, neurons, c, pairs, hyps, verify, max_nullity, budget) -> Verdict:
    """I1, I2 hold, no pair shares a hyperplane with one orientation or cancels its kinks, and
    *pairs* lists the pairs with opposite orientations (row j = −μ row i, v_i + μ v_j ≠ 0).

    One pair (three-layer-fibers R42): another realisation exists iff (a) a non-empty flip set S
    of the other neurons has ``Σ_S v_k w_kᵀ ∈ R^m w_iᵀ`` (the pair's second neuron pays the
    remainder), or (b) for some other neuron q a set S of the remaining hyperplanes (the pair's
    counted once, kink ``K = v_i + μ v_j``) has ``Σ_S M_k − μ v_j w_iᵀ ∈ R^m w_qᵀ`` (the second
    neuron moves to q's hyperplane).  Each is a 0/1 problem on the kink matrices projected along
    ``w_q`` (:func:`pair_problems`), decided as I4 is.  Two or more pairs: a planted copy when
    their rows are linearly dependent or their linear remainder has rank ≤ 1 (a linear pair on a
    new hyperplane pays it), else every placement is tried (:func:`several_pairs_placements`,
    at most :data:`SEVERAL_MAX_CASES`)."""
    if len(pairs) > 1:
        copy, why = _pairs_copy(net, neurons, c, pairs)
        if copy is None:
            copy, why = _several_pairs_copy(net, neurons, c, pairs)
        if copy is not None:
            hyps.append(Hypothesis(_PAIR_NAME, False, [list(p[:2]) for p in pairs[:4]]))
            return _planted(net, hyps, why, [copy], verify)
        (i, j, _), k = pairs[0], len(pairs)
        if why:                                   # the enumeration did not run
            return Verdict(None, METHOD, f"non-generic: {k} pairs of neurons (the first: {i} and "
                           f"{j}) share a hyperplane with opposite orientations and a kink (as |x| = "
                           f"σ(x) + σ(−x)); three-layer-fibers R42 not decided: {why}", tuple(hyps))
        return _identifiable_pairs(net, hyps, pairs, verify)
    i, j, lam = pairs[0]
    open_ = []
    proven = independent_problems(neurons, i, j)
    for prob in pair_problems(neurons, i, j, -lam, skip=proven):
        checkpoint()
        S, how = _solve_problem(prob, max_nullity, budget)
        if S is not None:
            hyps.append(Hypothesis(_PAIR_NAME, False, {"hyperplane of": prob["q"], "S": S}))
            copy = _pair_copy(net, neurons, c, i, j, -lam, prob, S)
            where = ("the pair's second neuron pays the flips' linear part" if prob["q"] == i else
                     f"the pair's second neuron moves to neuron {prob['q']}'s hyperplane")
            flipped = [prob["members"][t] for t in S]
            return _planted(net, hyps, f"neurons {i} and {j} share a hyperplane with opposite "
                            f"orientations (their kinks add), and flipping {flipped} with {where} keeps "
                            "the function (three-layer-fibers R42)", [copy], verify)
        if how is not None:
            open_.append(f"neuron {prob['q']}'s hyperplane: {how}")
    if open_:
        hyps.append(Hypothesis(_PAIR_NAME, None))
        return Verdict(None, METHOD, f"undecided: neurons {i} and {j} share a hyperplane with "
                       f"opposite orientations; R42's 0/1 problems not all decided ({open_[0]})",
                       tuple(hyps))
    n = len(neurons)
    hyps.append(Hypothesis(_PAIR_NAME, True, [i, j]))
    proof = {"kind": "opposite_pair", "pair": [i, j]}
    cert = {**header("identifiability_hypotheses"), "claim": CLAIMS["identifiability_hypotheses"][2],
            "network": net.to_dict(), "fiber_dimension": n, "flip_sets": proof}
    v = Verdict(True, METHOD, f"identifiable up to permutation and positive scaling: neurons {i} "
                f"and {j} share a hyperplane with opposite orientations (their kinks add), and no "
                "flip of the other neurons, paid by the pair or by moving its second neuron, keeps "
                "the function (three-layer-fibers R42)", tuple(hyps), cert,
                {"fiber_dimension": n, "derived": True})
    if verify:
        from ..certificates import require_valid
        from ..verify import verify as _verify
        require_valid(cert, _verify)
    return v


_PAIR_NAME = "R42 no other realisation of a shared hyperplane with opposite orientations"

SEVERAL_MAX_CASES = 1 << 17
"""Most (Q, S) placements R42's enumeration for two or more pairs tries (each an exact rank)."""


def _identifiable_pairs(net, hyps, pairs, verify) -> Verdict:
    n = len(net.layer(0)[1])
    hyps.append(Hypothesis(_PAIR_NAME, True, [list(p[:2]) for p in pairs]))
    proof = {"kind": "opposite_pairs", "pairs": [[i, j] for i, j, _ in pairs]}
    cert = {**header("identifiability_hypotheses"), "claim": CLAIMS["identifiability_hypotheses"][2],
            "network": net.to_dict(), "fiber_dimension": n, "flip_sets": proof}
    v = Verdict(True, METHOD, f"identifiable up to permutation and positive scaling: {len(pairs)} "
                "pairs of neurons share hyperplanes with opposite orientations (their kinks add), "
                "and no other placement of the neurons (flips, doubled hyperplanes, linear pairs "
                "of spare neurons) matches the linear part (three-layer-fibers R42)", tuple(hyps),
                cert, {"fiber_dimension": n, "derived": True})
    if verify:
        from ..certificates import require_valid
        from ..verify import verify as _verify
        require_valid(cert, _verify)
    return v


def _hyperplanes(neurons, pairs):
    """``(hyper, P, T)``: one ``(w, b, K)`` per hyperplane (a pair counted once, K = v_i + μ v_j),
    the positions of the pairs' hyperplanes, and the linear remainder ``T = Σ μ v_j w_iᵀ``."""
    paired = {j for _, j, _ in pairs}
    first = {i: (j, -lam) for i, j, lam in pairs}
    hyper, P = [], []
    for k, (w, b, v) in enumerate(neurons):
        if k in paired:
            continue
        if k in first:
            j, mu = first[k]
            P.append(len(hyper))
            v = tuple(a + mu * x for a, x in zip(v, neurons[j][2]))
        hyper.append((w, b, v))
    m, d = len(neurons[0][2]), len(neurons[0][0])
    T = [[sum((mu * neurons[j][2][o] * neurons[i][0][t] for i, (j, mu) in first.items()), Q(0))
          for t in range(d)] for o in range(m)]
    return hyper, P, T


def _complement_projector(rows, d) -> QMatrix:
    """``I − Wᵀ (W Wᵀ)⁻¹ W`` for a row basis W of *rows*: ``M P = 0`` iff every row of M lies in
    their span."""
    if not rows:
        return QMatrix.identity(d)
    B = QMatrix.from_rows([list(r) for r in rows], ncols=d).row_space()
    return QMatrix.identity(d) - B.T @ (B @ B.T).solve(B)


def several_pairs_placements(hyper, P, T, p):
    """Every placement of R42 with p pairs other than θ's own, as ``(Q, S, ell, Y)`` with
    ``rank(Y) <= ell``: Q the hyperplanes carrying both orientations (|Q| <= p), ell =
    (p − |Q|) // 2 linear pairs of spare neurons, S the other hyperplanes flipped, and ``Y =
    (T − Σ_S K_k w_kᵀ) P_Q`` (P_Q: rows modulo span{w_k : k ∈ Q}).  A generator (stops at the
    first the caller takes)."""
    from itertools import combinations
    r = len(hyper)
    d = len(hyper[0][0]) if hyper else 0
    Tm = QMatrix.from_rows(T, ncols=d)
    kinks = [QMatrix.from_rows([[u * x for x in w] for u in K], ncols=d) for w, _, K in hyper]
    own = tuple(P)
    for size in range(p + 1):
        ell = (p - size) // 2
        for Qs in combinations(range(r), size):
            checkpoint()
            Pq = _complement_projector([hyper[k][0] for k in Qs], d)
            rest = [k for k in range(r) if k not in Qs]
            parts = [M @ Pq for M in (kinks[k] for k in rest)]
            Y = Tm @ Pq
            flips = [0] * len(rest)
            for step in range(1 << len(rest)):
                if step & 1023 == 1023:
                    checkpoint()
                if step:
                    t = (step & -step).bit_length() - 1      # Gray code: one flip changes
                    flips[t] ^= 1
                    Y = Y - parts[t] if flips[t] else Y + parts[t]
                if Qs == own and not any(flips):
                    continue
                if Y.rank() <= ell:
                    yield Qs, [rest[t] for t in range(len(rest)) if flips[t]], ell, Y


def several_pairs_cases(r, p) -> int:
    from math import comb
    return sum(comb(r, s) << (r - s) for s in range(p + 1))


def _several_pairs_copy(net, neurons, c, pairs) -> tuple[Network | None, str]:
    """Two or more pairs (three-layer-fibers R42): another placement, built as a network, or
    ``(None, "")`` when none exists, ``(None, why)`` when the enumeration is too large."""
    hyper, P, T = _hyperplanes(neurons, pairs)
    p, n = len(pairs), len(neurons)
    cases = several_pairs_cases(len(hyper), p)
    if cases > SEVERAL_MAX_CASES:
        shown = cases if cases < 10 ** 6 else f"≈ {float(cases):.1e}"
        return None, f"{shown} placements to try, more than {SEVERAL_MAX_CASES}"
    for Qs, S, ell, Y in several_pairs_placements(hyper, P, T, p):
        d = len(hyper[0][0])
        R = QMatrix.from_rows(T, ncols=d)
        for k in S:
            w, _, K = hyper[k]
            R = R - QMatrix.from_rows([[u * x for x in w] for u in K], ncols=d)
        X = R - Y                                           # rows in span{w_k : k in Q}
        new = []
        Bs = _row_coefficients(X, [hyper[k][0] for k in Qs])
        for k, (w, b, K) in enumerate(hyper):
            neg = (tuple(-x for x in w), -b)
            if k in Qs:
                B = Bs[Qs.index(k)]
                new += [(w, b, tuple(a - x for a, x in zip(K, B))), neg + (tuple(B),)]
            elif k in S:
                new.append(neg + (K,))
            else:
                new.append((w, b, K))
        F, piv = Y.rref()
        for g, col in enumerate(piv):                      # Y = C F: linear pairs −A σ(t·x) + A σ(−t·x)
            t = tuple(F[g, x] for x in range(d))
            A = tuple(Y[o, col] for o in range(Y.nrows))
            new += [(t, Q(0), tuple(-x for x in A)), (tuple(-x for x in t), Q(0), A)]
        w0, b0, _ = neurons[0]
        while len(new) < n:                                # spare neurons: unread
            new.append((w0, b0 + 1 + len(new), tuple(Q(0) for _ in neurons[0][2])))
        return (_with_constant(net, neurons, c, new),
                f"{p} pairs of neurons share hyperplanes with opposite orientations, and another "
                f"placement matches the linear part ({len(Qs)} hyperplane(s) with both orientations, "
                f"{len(S)} flipped, {len(piv)} linear pair(s) of spare neurons; three-layer-fibers R42)")
    return None, ""


def _row_coefficients(X: QMatrix, ws) -> list:
    """B_k (k over *ws*) with ``Σ_k B_k w_kᵀ = X`` (every row of X in their span)."""
    if not ws:
        return []
    d = len(ws[0])
    A = QMatrix.from_rows([list(w) for w in ws], ncols=d).T          # d x |Q|
    out = [[Q(0)] * X.nrows for _ in ws]
    for o in range(X.nrows):
        sol = A.solve_general(list(X.row_at(o)))
        if sol is None:                                                # pragma: no cover
            raise AssertionError("a row of X outside span{w_k}")
        for k, x in enumerate(sol[0]):
            out[k][o] = x
    return out


def independent_problems(neurons, i: int, j: int) -> set:
    """The hyperplanes q (neuron indices, i for the pair's) whose R42 problem has no solution
    because its vectors are independent: B = {v_k w_kᵀ : k ≠ i, j} ∪ {e_o w_iᵀ} independent
    (then (a) has none), and the m matrices e_o w_qᵀ of rank m − 1 modulo span B (then the
    members of (b) for q, {v_k w_kᵀ : k ≠ i, j, q} ∪ {e_o w_iᵀ} ∪ {e_o w_qᵀ}, are independent
    and K w_iᵀ, μ v_j w_iᵀ lie in span{e_o w_iᵀ}: only x_i K = μ v_j, i.e. v_i = 0 or v_j = 0,
    both excluded).  Ranks mod p of random rank-one pairings
    (:func:`~algebra.linalg.gfp.outer_products_ranks_modulo`): lower bounds, so each q returned
    is proven; the others go to the 0/1 problems."""
    others = [k for k in range(len(neurons)) if k not in (i, j)]
    wi, _, vi = neurons[i]
    m, d = len(vi), len(wi)
    if len(others) + m > m * d:
        return set()
    W = QMatrix.from_rows([list(neurons[k][0]) for k in others] + [list(wi)] * m, ncols=d)
    V = QMatrix.from_rows([[neurons[k][2][o] for k in others] + [int(o == t) for t in range(m)]
                           for o in range(m)], ncols=len(others) + m)
    U = QMatrix.from_rows([list(neurons[k][0]) for k in others], ncols=d)
    base, ranks = outer_products_ranks_modulo(W, V, U, check=checkpoint)
    if base < len(others) + m:
        return set()
    return {i} | {q for q, r in zip(others, ranks) if r >= m - 1}


PROBLEM_MAX_ENTRIES = 200_000
"""Largest R42 problem (members × m × d numbers) solved exactly; beyond, the problem is left
open (an exact elimination is one FLINT call, which no budget stops)."""


def pair_problems(neurons, i: int, j: int, mu, skip=()):
    """The 0/1 problems of three-layer-fibers R42 for the pair (i, j), row j = −μ row i, one
    at a time (those of the hyperplanes in *skip* left out).

    Hyperplanes: the pair's (neuron i, kink ``K = v_i + μ v_j``) and every other neuron's (kink
    ``v_k``).  For each hyperplane q, the kink matrices ``u_e w_eᵀ`` of the others projected by
    ``P_q = I − w_q w_qᵀ / (w_q·w_q)`` (``M P_q = 0`` iff ``M ∈ R^m w_qᵀ``) and the target: 0
    (non-empty S) for the pair's own hyperplane, ``μ v_j (P_q w_i)ᵀ`` for another.  Each problem:
    ``{"q", "members" (neuron indices, i for the pair), "rows" (P_q w_e), "cols" (u_e),
    "target" (m x d rows), "nonempty"}``."""
    wi, _, vi = neurons[i]
    _, _, vj = neurons[j]
    K = tuple(a + mu * b for a, b in zip(vi, vj))
    hyper = [(i, wi, K)] + [(k, w, v) for k, (w, _, v) in enumerate(neurons) if k not in (i, j)]
    for q, wq, _ in hyper:
        if q in skip:
            continue
        nq = sum((x * x for x in wq), Q(0))

        def proj(w):
            t = sum((a * b for a, b in zip(w, wq)), Q(0)) / nq
            return tuple(a - t * b for a, b in zip(w, wq))
        pi = proj(wi)
        target = ([[Q(0)] * len(wi) for _ in vi] if q == i else
                  [[mu * a * b for b in pi] for a in vj])
        members = [e for e in hyper if e[0] != q]
        size = len(members) * len(vi) * len(wi)
        yield {"q": q, "members": [e[0] for e in members], "rows": [proj(w) for _, w, _ in members],
               "cols": [u for _, _, u in members], "target": target, "nonempty": q == i,
               "too_large": size if size > PROBLEM_MAX_ENTRIES else 0}


def _solve_problem(prob, max_nullity, budget) -> tuple[list | None, str | None]:
    """``(S, None)``: positions in ``members`` of a solution; ``(None, None)``: none (decided);
    ``(None, why)``: not decided."""
    k = len(prob["members"])
    target = prob["target"]
    zero = all(x == 0 for r in target for x in r)
    if k == 0:
        return (None, None) if prob["nonempty"] or not zero else ([], None)
    S = _one_or_two(prob)                  # the common small solutions first, at any size
    if S is not None:
        return S, None
    if prob["too_large"]:
        return None, (f"{k} hyperplanes, {prob['too_large']} numbers: beyond the "
                      f"{PROBLEM_MAX_ENTRIES} solved exactly (no solution of one or two members)")
    m, d = len(target), len(target[0])
    W1 = QMatrix.from_rows([list(r) for r in prob["rows"]], ncols=d)
    W2 = QMatrix.from_rows([[u[o] for u in prob["cols"]] for o in range(m)], ncols=k)
    res = find_s(W1, W2, QMatrix.from_rows(target, ncols=d), max_nullity=max_nullity, budget=budget,
                 exact=True)
    found = [list(S) for S in res.subsets if S or not prob["nonempty"]]
    if found:
        return found[0], None
    if res.complete:
        return None, None
    vecs = [[a * b for a in u for b in w] for w, u in zip(prob["rows"], prob["cols"])]
    goal = None if prob["nonempty"] else [x for r in target for x in r]
    if k > SPLIT_SUMS_MAX:           # a solution in a window of members decides; none does not
        S = window_sums(vecs, budget, goal)
        if S:
            return S, None
        return None, (f"{res.reason}; more than {SPLIT_SUMS_MAX} hyperplanes for the sums of two "
                      f"halves (and no solution among {WINDOWS} windows of {WINDOW})")
    S = split_sums(vecs, goal)
    return S, None


def _one_or_two(prob) -> list | None:
    """A solution of *prob* with at most two members (positions), or None: each member's
    projected kink matrix keyed exactly, the target's complement looked up (one input: every
    projection is 0, so one member solves (a); a neuron parallel to the pair's hyperplane, a
    two-neuron flip set).  O(members · m · d) numbers."""
    target = [x for r in prob["target"] for x in r]
    if not prob["nonempty"] and all(x == 0 for x in target):
        return []

    def key(v):
        return tuple((int(x.p), int(x.q)) for x in v)
    seen: dict = {}
    want = key(target)
    for t, (w, u) in enumerate(zip(prob["rows"], prob["cols"])):
        vec = [a * b for a in u for b in w]
        kv = key(vec)
        if kv == want:
            return [t]
        other = seen.get(key([x - y for x, y in zip(target, vec)]))
        if other is not None:
            return [other, t]
        seen.setdefault(kv, t)
        if t & 63 == 63:
            checkpoint()
    return None


def _pair_copy(net, neurons, c, i, j, mu, prob, S) -> Network:
    """The other realisation of R42 for the solution *S* (positions in ``prob["members"]``)."""
    q, flip = prob["q"], {prob["members"][t] for t in S}
    wi, bi, vi = neurons[i]
    wj, bj, vj = neurons[j]
    m = len(vi)
    K = tuple(a + mu * b for a, b in zip(vi, vj))
    M = [[Q(0)] * len(wi) for _ in range(m)]                 # Σ_S M_e − target's matrix
    for k in flip:
        u, w = (K, wi) if k == i else (neurons[k][2], neurons[k][0])
        for o in range(m):
            for t, x in enumerate(w):
                M[o][t] += u[o] * x
    if q != i:
        for o in range(m):
            for t, x in enumerate(wi):
                M[o][t] -= mu * vj[o] * x
    wq = neurons[q][0]
    t0 = next(t for t, x in enumerate(wq) if x != 0)
    u = [M[o][t0] / wq[t0] for o in range(m)]                # M = u w_qᵀ
    new = list(neurons)
    for k in flip:
        if k != i:
            w, b, v = neurons[k]
            new[k] = (tuple(-x for x in w), -b, v)
    if q == i:                                                # the pair pays u h_i
        new[i] = (wi, bi, tuple(a + b for a, b in zip(vi, u)))
        new[j] = (wj, bj, tuple(a - b / mu for a, b in zip(vj, u)))
    else:                                                     # its second neuron goes to H_q
        new[i] = ((tuple(-x for x in wi), -bi, K) if i in flip else (wi, bi, K))
        w, b, v = neurons[q]
        new[q] = (w, b, tuple(a + x for a, x in zip(v, u)))
        new[j] = (tuple(-x for x in w), -b, tuple(-x for x in u))
    return _with_constant(net, neurons, c, new)


def _pairs_copy(net, neurons, c, pairs) -> tuple[Network | None, str]:
    """Two or more opposite pairs: another realisation when their rows w_i are linearly dependent
    (the pairs' linear parts trade) or the linear remainder ``T = Σ μ v_j w_iᵀ`` has rank ≤ 1
    (each hyperplane keeps one neuron, two spare ones form a linear pair ``u (t·x)``)."""
    m, d = len(c), len(neurons[0][0])
    mus = [-lam for _, _, lam in pairs]
    A = QMatrix.from_rows([list(neurons[i][0]) for i, _, _ in pairs], ncols=d)
    dep = A.T.nullspace()
    if dep.nrows:
        coef = dep.to_rows()[0]
        new = list(neurons)
        for (i, j, _), mu, ck in zip(pairs, mus, coef):
            wi, bi, vi = neurons[i]
            wj, bj, vj = neurons[j]
            new[i] = (wi, bi, tuple(a - (ck if o == 0 else 0) for o, a in enumerate(vi)))
            new[j] = (wj, bj, tuple(a + (ck / mu if o == 0 else 0) for o, a in enumerate(vj)))
        return (_with_constant(net, neurons, c, new), "the rows of the pairs sharing a hyperplane with "
                "opposite orientations are linearly dependent: their linear parts trade "
                "(three-layer-fibers R42)")
    T = [[sum((mu * neurons[j][2][o] * neurons[i][0][t] for (i, j, _), mu in zip(pairs, mus)), Q(0))
          for t in range(d)] for o in range(m)]
    if QMatrix.from_rows(T, ncols=d).rank() > 1:
        return None, ""
    o0 = next((o for o in range(m) if any(x != 0 for x in T[o])), None)
    new = list(neurons)
    for (i, j, _), mu in zip(pairs, mus):
        wi, bi, vi = neurons[i]
        wj, bj, vj = neurons[j]
        new[i] = (wi, bi, tuple(a + mu * b for a, b in zip(vi, vj)))
        new[j] = (wj, bj, tuple(Q(0) for _ in vj))
    if o0 is not None:                                        # T = u tᵀ: −u σ(t·x) + u σ(−t·x)
        t = T[o0]
        t0 = next(k for k, x in enumerate(t) if x != 0)
        u = tuple(T[o][t0] / t[t0] for o in range(m))
        (_, j1, _), (_, j2, _) = pairs[0], pairs[1]
        new[j1] = (tuple(t), Q(0), tuple(-x for x in u))
        new[j2] = (tuple(-x for x in t), Q(0), u)
    return (_with_constant(net, neurons, c, new), "every hyperplane shared with opposite orientations "
            "keeps one neuron, and two spare neurons form a linear pair paying the linear part "
            "(rank ≤ 1; three-layer-fibers R42)")


def _with_constant(net, neurons, c, new) -> Network:
    """*net* with hidden neurons *new*, the output bias moved so that both agree at x = 0 (the
    moves of R42 change the function by a constant only)."""
    def at0(ns):
        return [sum((v[o] * max(b, Q(0)) for _, b, v in ns), Q(0)) for o in range(len(c))]
    old0, new0 = at0(neurons), at0(new)
    return with_hidden_neurons(net, 0, new, tuple(ci + a - b for ci, a, b in zip(c, old0, new0)))
