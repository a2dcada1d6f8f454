"""Collision hunt for hidden symmetries of three-layer bottleneck nets d-n1-n2-1.

Draw many small nets (d ∈ {1, 2}, 1 ≤ n1 ≤ min(d, 3) — the bottleneck theory needs n1 ≤ d,
three-layer-fibers §3.1 —, n2 ∈ {1, 2, 3}) with small integer / half-integer weights (zeros and
equal values on purpose), compute an exact fingerprint of the *function* with plain
``fractions`` (shares nothing with netfibers), bucket by fingerprint, and for every bucket with two
nets that are not related by permutations and positive rescalings of hidden neurons (our own
normal form: each neuron's incoming row [w | b] scaled so its first non-zero is ±1, the scale
pushed into the outgoing column, then the minimum over all hidden permutations), check netfibers:

* ``identifiability`` must not answer True for either net (a wrong "identifiable" is a
  soundness bug);
* ``fiber`` of one (when it applies) must have a component containing the other up to
  permutation (components are closed under positive scaling), or carry notes saying it lists
  only some strata; a miss of a non-generic net (its own ``fiber`` raises NonGenericError) is
  counted apart, not a finding: the listed components describe the generic strata
  (three-layer-fibers R16, known gap iii);
* ``equivalent`` must not answer False (True, or None = undecided, which is counted).

Fingerprints: d = 1 — the exact piecewise-linear function (true breakpoints with their values,
the two end slopes); d = 2 — exact values on a fixed rational grid.  Every candidate pair is
confirmed by exact evaluation at many more rational points before it is checked.

Run by hand (``nice`` it)::

    nice -n 10 python -m tests.fuzz.collisions --seed 1 --count 3000 [--nonzero]

It prints one line per finding and a summary (nets, buckets, pairs, verdict counts, CPU s).

n1 = 1 (three-layer-fibers R16a: ``fiber`` lists every stratum): for every non-constant net with
n1 = 1 in a checked pair, and for random nets with ``--strata``, each listed stratum is sampled
from its label alone (:func:`sample_stratum`: orientation, visible or masked first-layer kink,
kink row types, numbers of linear and dead rows, with random positive fractions); the point must
compute the same function (exact evaluation at 200 rational points) and lie in the component::

    nice -n 10 python -m tests.fuzz.collisions --strata --seed 1 --count 300

n1 = 2 (three-layer-fibers R16c: dead and linear rows exchanged under S5): ``--strata --n1 2``
draws nets 2-2-n2-m and samples every R16c stratum from its label alone
(:func:`sample_pool_stratum`: scalings, flips, a random positive factorisation of the flipped
linear block solved in fractions, random dead rows), with the same two checks::

    nice -n 10 python -m tests.fuzz.collisions --strata --n1 2 --seed 1 --count 200
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections import Counter, defaultdict
from fractions import Fraction as F

from algebra.network import Network
from algebra.rationals import Q
from tests.fuzz.verdicts import scale_to_unit_lead

VALUES = [F(v, 2) for v in range(-4, 5)] + [F(-1), F(1), F(1), F(-1)]   # ±2, ±3/2, …, 0; ±1 weighted
GRID = [F(v, 2) for v in range(-7, 8, 2)] + [F(v) for v in (-50, -5, -2, 0, 1, 4, 37, 1000)]


# -- nets as Fraction layers [(W rows, b)] ----------------------------------------------------------
def evaluate_all(layers, x):
    """The output vector of a net given as Fraction layers at the point x (plain fractions)."""
    h = list(x)
    for k, (W, b) in enumerate(layers):
        z = [sum((w * v for w, v in zip(row, h)), F(0)) + bi for row, bi in zip(W, b)]
        h = z if k == len(layers) - 1 else [max(v, F(0)) for v in z]
    return tuple(h)


def evaluate(layers, x):
    return evaluate_all(layers, x)[0]


NONZERO = [v for v in VALUES if v != 0]


def random_net(rng, d, n1, n2, values=VALUES, m=1):
    def row(k):
        return [rng.choice(values) for _ in range(k)]
    return [([row(d) for _ in range(n1)], row(n1)), ([row(n1) for _ in range(n2)], row(n2)),
            ([row(n2) for _ in range(m)], row(m))]


def to_network(layers) -> Network:
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W] for W, _ in layers],
                             [[q(v) for v in b] for _, b in layers])


def permuted(layers, p1, p2):
    (W1, b1), (W2, b2), (W3, b3) = layers
    W1, b1 = [W1[i] for i in p1], [b1[i] for i in p1]
    W2 = [[W2[j][i] for i in p1] for j in p2]
    b2 = [b2[j] for j in p2]
    W3 = [[row[j] for j in p2] for row in W3]     # (every output: W3[0] alone broke m >= 2)
    return [(W1, b1), (W2, b2), (W3, b3)]


def _scaled(layers):
    """Each hidden neuron's [w | b] scaled to first non-zero ±1, the scale pushed downstream."""
    out = [([list(r) for r in W], list(b)) for W, b in layers]
    for k in range(len(out) - 1):
        scale_to_unit_lead(out[k][0], out[k][1], out[k + 1][0])
    return out


def normal_form(layers):
    n1, n2 = len(layers[0][1]), len(layers[1][1])
    best = None
    for p1 in itertools.permutations(range(n1)):
        for p2 in itertools.permutations(range(n2)):
            t = _scaled(permuted(layers, p1, p2))
            key = tuple((tuple(map(tuple, W)), tuple(b)) for W, b in t)
            best = key if best is None or key < best else best
    return best


# -- fingerprints ----------------------------------------------------------------------------------
def _breakpoints_1d(layers):
    """Candidate kinks of a d = 1 net: layer-1 kinks, then layer-2 zero crossings per piece."""
    (W1, b1), (W2, b2), _ = layers
    cand = {-b / W[0] for W, b in zip(W1, b1) if W[0] != 0}
    cuts = sorted(cand)
    probes = ([cuts[0] - 1] if cuts else [F(0)]) + [(a + c) / 2 for a, c in zip(cuts, cuts[1:])] \
        + ([cuts[-1] + 1] if cuts else [])
    for p in probes:                         # each piece: layer 1 is affine a x + c
        act = [W[0] * p + b > 0 for W, b in zip(W1, b1)]
        a = [W[0] if s else F(0) for W, s in zip(W1, act)]
        c = [b if s else F(0) for b, s in zip(b1, act)]
        for row, bj in zip(W2, b2):
            sl = sum((w * ai for w, ai in zip(row, a)), F(0))
            if sl != 0:
                cand.add(-(sum((w * ci for w, ci in zip(row, c)), F(0)) + bj) / sl)
    return sorted(cand)


def fingerprint(layers):
    d = len(layers[0][0][0])
    if d == 2:
        return (2, tuple(evaluate(layers, (x, y)) for x in GRID for y in GRID))
    pts = _breakpoints_1d(layers)
    f = lambda x: evaluate(layers, (x,))
    if not pts:
        return (1, (), f(F(1)) - f(F(0)), f(F(0)))
    xs = [pts[0] - 1] + pts + [pts[-1] + 1]
    slopes = [(f(b) - f(a)) / (b - a) for a, b in zip(xs, xs[1:])]
    kinks = tuple((p, f(p)) for k, p in enumerate(pts) if slopes[k] != slopes[k + 1])
    return (1, kinks, slopes[0], slopes[-1], () if kinks else f(F(0)))


def is_constant(layers):
    fp = fingerprint(layers)
    return len(set(fp[1])) == 1 if fp[0] == 2 else (fp[1] == () and fp[2] == 0)


def same_function(a, b, rng, n=300):
    """Exact equality at n points near the origin and n far out (the linear regions of d = 2
    nets with these weights are polyhedra of size ~10 or unbounded)."""
    d = len(a[0][0][0])
    for k in range(2 * n):
        scale = 60 if k < n else 5000
        x = [F(rng.randint(-scale, scale), rng.randint(1, 12)) for _ in range(d)]
        if evaluate_all(a, x) != evaluate_all(b, x):
            return False
    return True


# -- netfibers' verdicts on one pair ---------------------------------------------------------------
def _fiber_has(na, b_layers):
    """fiber(a): True (a component contains a permutation of b), "notes" (not found, but the
    fiber says it is partial), False (a missed component), or the exception's name."""
    from semialgebraic import fiber
    try:
        fb = fiber(na)
    except Exception as exc:                # NonGenericError / NotApplicableError: outside theory
        return type(exc).__name__
    n1, n2 = len(b_layers[0][1]), len(b_layers[1][1])
    for p1 in itertools.permutations(range(n1)):
        for p2 in itertools.permutations(range(n2)):
            nb = to_network(permuted(b_layers, p1, p2))
            if any(c.contains(nb.parameters()) for c in fb.components):
                return True
    return "notes" if fb.notes else False


# -- n1 = 1: random points of every listed stratum, built from its label alone ---------------------
def _line(layers):
    """(F, kinks, slopes) of a net with n1 = 1 along its own first-layer row a: F(t) = f(x) for
    a·x = t; kinks and slopes exact (F is constant for t ≤ −b1 and bends where rows switch)."""
    (W1, b1), (W2, b2), _ = layers
    a = W1[0]
    p = next(c for c in range(len(a)) if a[c] != 0)

    def Fn(t):
        x = [F(0)] * len(a)
        x[p] = t / a[p]
        return evaluate_all(layers, x)
    cand = {-b1[0]} | {-b1[0] - c / w[0] for w, c in zip(W2, b2) if w[0] != 0 and -c / w[0] > 0}
    cand = sorted(cand)
    ends = [cand[0] - 1] + cand + [cand[-1] + 1]
    sl = [tuple((v - u) / (y - x) for u, v in zip(Fn(x), Fn(y))) for x, y in zip(ends, ends[1:])]
    K, S = [], [sl[0]]
    for k, x in enumerate(cand):
        if sl[k + 1] != sl[k]:
            K.append(x)
            S.append(sl[k + 1])
    return Fn, K, S


def sample_stratum(layers, label, rng):
    """A random point (Fraction layers, rows: kink rows, linear, dead) of the stratum *label*
    (three-layer-fibers R16a) of the function of *layers* (n1 = 1), from the label alone."""
    Fn, K, S = _line(layers)
    m = len(S[0])
    eps = label["orientation"]
    Kt = sorted(eps * k for k in K)
    St = [tuple(eps * v for v in s) for s in (S if eps == 1 else S[::-1])]
    D = [tuple(y - x for x, y in zip(St[k], St[k + 1])) for k in range(len(Kt))]
    masked = label["first_layer_kink"] == "masked"
    pos = lambda: F(rng.randint(1, 9), rng.randint(1, 5))
    nz = lambda: pos() * rng.choice((-1, 1))
    lam = pos()
    p = Kt[0] - pos() if masked else Kt[0]
    a = layers[0][0][0]
    W1, b1 = [[eps * lam * v for v in a]], [-lam * p]
    carried = list(range(len(Kt))) if masked else list(range(1, len(Kt)))
    rows, V = [], []
    G = [F(0)] * m if masked else list(St[1])
    for k, t in zip(carried, label["kink_rows"]):
        w = pos() if t == "switching" else -pos()
        rows.append((w, -w * lam * (Kt[k] - p)))
        V.append([dk / (w * lam) * (1 if t == "switching" else -1) for dk in D[k]])
        if t == "clipped":
            G = [g + dk for g, dk in zip(G, D[k])]
    lin = [(pos(), pos()) for _ in range(label["linear"])]
    lin_V = [[nz() for _ in range(m)] for _ in lin[1:]]
    if lin:
        first = [(G[o] - sum(v[o] * w * lam for v, (w, _) in zip(lin_V, lin[1:]))) / (lin[0][0] * lam)
                 for o in range(m)]
        rows += lin
        V += [first] + lin_V
    for _ in range(label["dead"]):
        rows.append((-pos(), -pos()))
        V.append([nz() for _ in range(m)])
    left = Fn(eps * (Kt[0] - 1))
    b3 = [left[o] - sum(v[o] * c for v, (_, c) in zip(V, rows) if c > 0) for o in range(m)]
    W3 = [[V[j][o] for j in range(len(rows))] for o in range(m)]
    return [(W1, b1), ([[w] for w, _ in rows], [c for _, c in rows]), (W3, b3)]


def check_strata(layers, rng, per_stratum=2):
    """Findings for the listed strata of fiber(layers), n1 = 1: a random point of each (from its
    label) must compute the same function (exact, fractions) and lie in the component."""
    from semialgebraic import fiber
    try:
        fb = fiber(to_network(layers))
    except Exception as exc:                # R16a's own checks must never fail
        if "R16a" in str(exc):
            return [f"fiber: {exc}"], Counter({"fiber R16a error": 1})
        return [], Counter({f"fiber {type(exc).__name__}": 1})
    out, tally = [], Counter()
    for c in fb.components:
        lab = c.label.get("stratum")
        if lab is not None:
            _check_points(layers, c, lambda lab=lab: sample_stratum(layers, lab, rng), f"stratum {lab}",
                          per_stratum, rng, out, tally)
    return out, tally


def _check_points(layers, comp, draw, name, per_stratum, rng, out, tally) -> None:
    """Draw *per_stratum* points of component *comp* (``draw()``, None: not drawn); each must
    compute the same function as *layers* (exact, fractions) and lie in the component up to a
    permutation of the hidden neurons (``contains`` applies none, and the components are listed
    up to permutation: a draw whose dead row comes first is the component's point permuted; the
    session-26 audit's 30 findings at ``--seed 9002 --count 15000 --nonzero`` were all this)."""
    for _ in range(per_stratum):
        pt = draw()
        if pt is None:
            tally["strata points not drawn"] += 1
            continue
        tally["strata points"] += 1
        if not same_function(layers, pt, rng, n=100):
            out.append(f"{name}: a random point computes another function")
        elif not comp.contains(to_network(pt).parameters()):
            n1, n2 = len(pt[0][1]), len(pt[1][1])
            if not any(comp.contains(to_network(permuted(pt, p1, p2)).parameters())
                       for p1 in itertools.permutations(range(n1))
                       for p2 in itertools.permutations(range(n2))):
                out.append(f"{name}: a random point is not in the component (even up to permutation)")


# -- n1 ≥ 2: random points of the R16c strata (dead and linear rows exchanged under S5) -----------
def _solve(A, y):
    """x with x·A = y (A: k×n rows, rank k = len(A)), exact Gaussian elimination on fractions."""
    k, n = len(A), len(A[0])
    M = [[A[r][c] for r in range(k)] + [y[c]] for c in range(n)]     # Aᵀ x = y, n equations
    piv, row = [], 0
    for col in range(k):
        r = next((r for r in range(row, n) if M[r][col] != 0), None)
        if r is None:
            return None
        M[row], M[r] = M[r], M[row]
        M[row] = [v / M[row][col] for v in M[row]]
        for r2 in range(n):
            if r2 != row and M[r2][col] != 0:
                M[r2] = [a - M[r2][col] * b for a, b in zip(M[r2], M[row])]
        piv.append(col)
        row += 1
    if any(M[r][-1] != 0 for r in range(row, n)):
        return None
    return [M[r][-1] for r in range(k)]


def _rank(rows):
    M = [list(r) for r in rows]
    rank = 0
    for col in range(len(M[0]) if M else 0):
        r = next((r for r in range(rank, len(M)) if M[r][col] != 0), None)
        if r is None:
            continue
        M[rank], M[r] = M[r], M[rank]
        for r2 in range(rank + 1, len(M)):
            c = M[r2][col] / M[rank][col]
            M[r2] = [a - c * b for a, b in zip(M[r2], M[rank])]
        rank += 1
    return rank


def sample_pool_stratum(layers, label, rng, tries=200):
    """A random point (Fraction layers) of the stratum *label* = {flips F, linear n_L', dead n_D'}
    (three-layer-fibers R16c) of the net *layers* (n1 ≥ 2), from the label and θ's own rows
    alone: first-layer rows scaled by λ > 0, switching rows scaled by μ > 0 and negated on F, the
    pool (θ's linear rows, then its dead rows, in index order) with its first n_L' rows linear
    carrying Γ'_F = Σ_{linear ∪ F} V_j W2_j (a random positive U with V U = Γ'_F, solved here) and
    the rest random dead rows.  None when no positive U is found by random search."""
    (W1, b1), (W2, b2), (W3, b3) = layers
    n1, n2, m = len(b1), len(b2), len(b3)
    rows = [list(W2[j]) + [b2[j]] for j in range(n2)]
    V = [[W3[o][j] for o in range(m)] for j in range(n2)]
    kind = ["dead" if all(v < 0 for v in r) else "linear" if all(v > 0 for v in r) else "switching"
            for r in rows]
    Fl, nl = set(label["flips"]), label["linear"]
    pool = [j for j in range(n2) if kind[j] == "linear"] + [j for j in range(n2) if kind[j] == "dead"]
    G = [[sum((V[j][o] * rows[j][i] for j in range(n2) if kind[j] == "linear" or j in Fl), F(0))
          for i in range(n1)] for o in range(m)]
    gam = [b3[o] + sum((V[j][o] * rows[j][n1] for j in range(n2) if kind[j] == "linear" or j in Fl),
                       F(0)) for o in range(m)]
    pos = lambda: F(rng.randint(1, 9), rng.randint(1, 5))
    nz = lambda: pos() * rng.choice((-1, 1))
    U, VL = None, None                       # V_L U = Γ'_F (z coordinates), U > 0
    if nl:
        basis = [r for r in G if any(r)]
        rho = _rank(basis) if basis else 0
        for _ in range(tries):
            if nl >= n1:                     # U of full column rank: any Γ'_F
                U = [[pos() for _ in range(n1)] for _ in range(nl)]
                if _rank(U[:n1]) < n1:
                    continue
                need = n1
            else:                            # ρ = n_L' < n1: U's rows span the row space of Γ'
                C = [[nz() for _ in basis] for _ in range(nl)]
                U = [[sum((c * r[i] for c, r in zip(cr, basis)), F(0)) for i in range(n1)] for cr in C]
                if any(v <= 0 for r in U for v in r) or _rank(U) < rho:
                    continue
                need = nl
            extra = [[nz() for _ in range(nl - need)] for _ in range(m)]
            VL = []
            for o in range(m):
                rest = [G[o][i] - sum((e * U[need + k][i] for k, e in enumerate(extra[o])), F(0))
                        for i in range(n1)]
                x = _solve(U[:need], rest)
                if x is None:
                    break
                VL.append(x + extra[o])
            if len(VL) == m:
                break
            U = None
        if U is None:
            return None
    lam = [pos() for _ in range(n1)]
    W1n = [[lam[i] * v for v in W1[i]] for i in range(n1)]
    b1n = [lam[i] * b1[i] for i in range(n1)]
    new_rows, new_V = [None] * n2, [None] * n2
    for j in range(n2):
        if kind[j] == "switching":
            mu, e = pos(), (-1 if j in Fl else 1)
            new_rows[j] = [e * mu * rows[j][i] / lam[i] for i in range(n1)] + [e * mu * rows[j][n1]]
            new_V[j] = [v / mu for v in V[j]]
    bias = [pos() for _ in range(nl)]
    for k, j in enumerate(pool[:nl]):
        new_rows[j] = [U[k][i] / lam[i] for i in range(n1)] + [bias[k]]
        new_V[j] = [VL[o][k] for o in range(m)]
    for j in pool[nl:]:
        new_rows[j] = [-pos() for _ in range(n1 + 1)]
        new_V[j] = [nz() for _ in range(m)]
    b3n = [gam[o] - sum((VL[o][k] * bias[k] for k in range(nl)), F(0)) for o in range(m)]
    return [(W1n, b1n), ([r[:n1] for r in new_rows], [r[n1] for r in new_rows]),
            ([[new_V[j][o] for j in range(n2)] for o in range(m)], b3n)]


def check_pool_strata(layers, rng, per_stratum=2):
    """Findings for the R16c strata of fiber(layers), n1 ≥ 2: a random point of each (from its
    label) must compute the same function (exact, fractions) and lie in its component."""
    from semialgebraic import fiber
    try:
        fb = fiber(to_network(layers))
    except Exception as exc:
        if "R16c" in str(exc):
            return [f"fiber: {exc}"], Counter({"fiber R16c error": 1})
        return [], Counter({f"fiber {type(exc).__name__}": 1})
    out, tally = [], Counter()
    comps = [c for c in fb.components if "linear" in c.label]
    tally["nets with R16c strata" if comps else "nets without R16c strata"] += 1
    tally["partial" if fb.partial else "complete"] += 1
    for c in comps:
        _check_points(layers, c, lambda c=c: sample_pool_stratum(layers, c.label, rng),
                      f"R16c stratum {c.label}", per_stratum, rng, out, tally)
    return out, tally


def check_pair(a, b):
    """Return (findings, tallies) for two nets with the same function and different normal forms."""
    from semialgebraic import equivalent, identifiability
    findings, tally = [], Counter()
    na, nb = to_network(a), to_network(b)
    for name, n in (("a", na), ("b", nb)):
        try:
            v = identifiability(n).answer
        except Exception as exc:
            v = type(exc).__name__
        tally[f"identify {v}"] += 1
        if v is True:
            findings.append(f"identify({name}) = True")
    res = {name: _fiber_has(nx, y) for name, (x, y, nx) in (("a", (a, b, na)), ("b", (b, a, nb)))}
    for name, other in (("a", "b"), ("b", "a")):
        r = res[name]
        if r is False and res[other] == "NonGenericError":
            r = "misses a non-generic point"   # R16 describes the generic strata (known gap iii)
        tally[f"fiber {r}"] += 1
        if r is False:
            findings.append(f"fiber({name}) misses the other (generic), no notes")
    try:
        e = equivalent(na, nb).answer
    except Exception as exc:
        e = type(exc).__name__
    tally[f"equiv {e}"] += 1
    if e is False:
        findings.append("equivalent = False")
    return findings, tally


def hunt(seed, count, verbose=True, max_pairs_per_bucket=3, nonzero=False,
         skip_constant=False, n1=None):
    t0 = time.process_time()
    rng = random.Random(seed)
    buckets = defaultdict(dict)               # fingerprint -> {normal form: layers}
    shapes = [(1, 1, k) for k in (1, 2, 3)] + [(2, j, k) for j in (1, 2) for k in (1, 2, 3)]
    shapes = [s for s in shapes if n1 is None or s[1] == n1]
    for _ in range(count):
        net = random_net(rng, *rng.choice(shapes), values=NONZERO if nonzero else VALUES)
        key = (tuple(len(b) for _, b in net), fingerprint(net))
        buckets[key].setdefault(normal_form(net), net)
    multi = [list(v.values()) for v in buckets.values() if len(v) > 1]
    tally, findings, pairs, accidental = Counter(), [], 0, 0
    if skip_constant:
        multi = [nets for nets in multi if not is_constant(nets[0])]
    for nets in multi:
        for a, b in list(itertools.combinations(nets, 2))[:max_pairs_per_bucket]:
            if not same_function(a, b, rng):
                accidental += 1
                continue
            pairs += 1
            fs, t = check_pair(a, b)
            if len(a[0][1]) == 1 and not is_constant(a):
                fs2, t2 = check_strata(a, rng)
                fs, t = fs + fs2, t + t2
            const = is_constant(a)
            tally["pairs constant f" if const else "pairs non-constant f"] += 1
            tally.update(t)
            for f in fs:
                f = f + (" [constant f]" if const else "")
                findings.append((f, a, b))
                if verbose:
                    print(f"FINDING seed={seed}: {f}\n  a={a}\n  b={b}")
    kinds = Counter(f.split(" [")[0] + (" [constant f]" if "constant" in f else "") for f, _, _ in findings)
    stats = {"nets": count, "buckets": len(buckets), "multi_buckets": len(multi), "pairs": pairs,
             "accidental": accidental, "findings": len(findings),
             "cpu_s": round(time.process_time() - t0, 1)}
    if verbose:
        print(stats)
        for k, v in sorted(kinds.items()):
            print(f"  finding {k}: {v}")
        for k, v in sorted(tally.items()):
            print(f"  {k}: {v}")
    return findings, stats, tally


def strata_campaign(seed, count, verbose=True, n1=1):
    """Random nets d-1-n2-m (d ≤ 2, n2 ≤ 4, m ≤ 2, no zero weights, f not constant): every listed
    stratum sampled by :func:`sample_stratum` (no collision needed).  *n1* = 2: nets 2-2-n2-m
    (n2 ≤ 4, every row's W2 entries of one sign half the time, so that dead rows can absorb
    flips) and the R16c strata sampled by :func:`sample_pool_stratum`."""
    t0 = time.process_time()
    rng = random.Random(seed)
    findings, tally = [], Counter()
    for _ in range(count):
        if n1 == 1:
            net = random_net(rng, rng.choice((1, 2)), 1, rng.choice((1, 2, 3, 4)), values=NONZERO,
                             m=rng.choice((1, 1, 2)))
        else:
            net = random_net(rng, 2, n1, rng.choice((2, 3, 4)), values=NONZERO, m=rng.choice((1, 2)))
            if rng.random() < 0.5:           # one-sign W2 rows: (−,−|±), (+,+|±)
                W2 = [[abs(v) * s for v in r] for r, s in
                      zip(net[1][0], [rng.choice((-1, 1)) for _ in net[1][0]])]
                net[1] = (W2, net[1][1])
        if is_constant(net):
            continue
        fs, t = check_strata(net, rng) if n1 == 1 else check_pool_strata(net, rng)
        tally["nets"] += 1
        tally.update(t)
        for f in fs:
            findings.append((f, net, None))
            if verbose:
                print(f"FINDING seed={seed}: {f}\n  net={net}")
    if verbose:
        print(dict(tally, findings=len(findings), cpu_s=round(time.process_time() - t0, 1)))
    return findings, tally


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--pairs-per-bucket", type=int, default=3)
    ap.add_argument("--skip-constant", action="store_true",
                    help="check only buckets of non-constant functions")
    ap.add_argument("--n1", type=int, choices=(1, 2), help="only this first-layer width")
    ap.add_argument("--nonzero", action="store_true",
                    help="no zero weights (more generic nets; zeros are on by default)")
    ap.add_argument("--strata", action="store_true",
                    help="sample every listed stratum of random nets instead: n1 = 1 (R16a), "
                         "or with --n1 2 the strata of three-layer-fibers R16c")
    args = ap.parse_args(argv)
    if args.strata:
        return 1 if strata_campaign(args.seed, args.count, n1=args.n1 or 1)[0] else 0
    findings, _, _ = hunt(args.seed, args.count, max_pairs_per_bucket=args.pairs_per_bucket,
                          nonzero=args.nonzero, skip_constant=args.skip_constant, n1=args.n1)
    return 1 if findings else 0


if __name__ == "__main__":
    raise SystemExit(main())
