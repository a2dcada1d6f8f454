"""Numerical fiber exploration of three-layer bottleneck nets with n1 ≥ 2 (hidden-symmetry hunt).

For a planted net θ (d ∈ {2, 3}, 2 ≤ n1 ≤ min(d, 3), n2 ∈ {1..4}, m ∈ {1, 2}; the rows of
[W2 | b2] get sign patterns chosen on purpose: every row (−,…,−|+), every row (+,…,+|−), mixed
rows, a masked column (equal ratios too), linear rows beside switching ones, a dead row, …), the
explorer minimises Σ_i |f_θ'(x_i) − f_θ(x_i)|² (points weighted by 1/max(1, |x_i|)) over θ'
with scipy's Levenberg–Marquardt and an analytic Jacobian, from random starts (a softplus
homotopy first) and from *sign-flipped* starts (θ with the incoming rows of a set of hidden
neurons negated, plus noise: where a hidden symmetry like S5, S7 or S8 would land).  Points:
dense in a box much larger than every kink, spread over the scales of the first-layer
pre-activations (thin strips), and far points; a second point set 1000× farther must agree too.
Every θ' of tiny loss is compared with θ through invariants of the known symmetries S1–S7 (own
code, shares nothing with netfibers' numerics):

* S1 + S2 orbit: rows scaled to unit norm, hidden neurons matched by permutation;
* first-layer hyperplanes (up to orientation) of the non-masked neurons are invariant under every
  known symmetry for n1 ≥ 2 (S6 and S7 move only the masked neuron); an orientation flip of
  a non-masked neuron needs S7 (a masked column, equal ratios);
* the switching rows (second-layer kinks, up to orientation, S5) are invariant once the first
  layer is aligned;
* and (with ``fib``) it must lie, up to permutations, within 1e-6 of a component listed by
  netfibers' ``fiber``: equalities ≈ 0, strict inequalities > −1e-6 (a non-generic θ' — a zero
  entry, a zero output column, proportional rows — is counted apart: the listing describes the
  generic strata only; since three-layer-fibers R16c the listing includes the strata where dead
  and linear rows exchange type under S5, so a recruited dead row is no longer a candidate).

A θ' that breaks one of these is a *candidate* (printed with its parameters).  The explorer
also measures the local fiber dimension N − rank J(θ) (J the Jacobian of the residuals at θ,
rank by SVD) against netfibers' formula (three-layer-fibers R17); a mismatch is re-asked to the
exact FIBDIM (R22), since sampling can miss thin regions.  Candidates are to be snapped to
rationals and confirmed exactly by hand (fractions), then checked against ``identifiability`` /
``fiber`` / ``equivalent``.

Run by hand (``nice`` it)::

    nice -n 15 python -m tests.fuzz.fiber_explorer --seed 1 --count 20 [--starts 4 --flipped 24]

It prints one line per net (pattern, R17 vs numerical dimension, outcome counts per kind of
start) and a summary with the CPU seconds.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time
from collections import Counter
from fractions import Fraction as F

import numpy as np

# -- the net as numpy arrays -----------------------------------------------------------------------

def shapes(d, n1, n2, m):
    return [(n1, d), (n1,), (n2, n1), (n2,), (m, n2), (m,)]


def unpack(vec, shp):
    out, k = [], 0
    for s in shp:
        size = int(np.prod(s))
        out.append(vec[k:k + size].reshape(s))
        k += size
    return out


def pack(parts):
    return np.concatenate([np.asarray(p, float).ravel() for p in parts])


def act(t, beta):
    """ReLU (beta None) or the softplus log(1 + e^{βt}) / β used to anneal, with its derivative."""
    if beta is None:
        a = (t > 0).astype(float)
        return t * a, a
    return np.logaddexp(0.0, beta * t) / beta, 0.5 * (1.0 + np.tanh(0.5 * beta * t))


def forward(vec, shp, X, beta=None):
    W1, b1, W2, b2, W3, b3 = unpack(vec, shp)
    z = act(X @ W1.T + b1, beta)[0]
    y = act(z @ W2.T + b2, beta)[0]
    return y @ W3.T + b3


def jacobian(vec, shp, X, beta=None):
    """d out[p, k] / d θ, shape (P·m, N), rows ordered (p, k)."""
    W1, b1, W2, b2, W3, b3 = unpack(vec, shp)
    P, m = X.shape[0], W3.shape[0]
    z, a1 = act(X @ W1.T + b1, beta)
    y, a2 = act(z @ W2.T + b2, beta)
    blocks = []
    g2 = W3[None, :, :] * a2[:, None, :]                   # (P, m, n2): d out_k / d v_j
    g1 = np.einsum("pkj,ji->pki", g2, W2) * a1[:, None, :]  # (P, m, n1): d out_k / d u_i
    blocks.append(np.einsum("pki,pl->pkil", g1, X).reshape(P, m, -1))   # W1
    blocks.append(g1)                                                    # b1
    blocks.append(np.einsum("pkj,pi->pkji", g2, z).reshape(P, m, -1))   # W2
    blocks.append(g2)                                                    # b2
    eye = np.eye(m)
    blocks.append(np.einsum("kq,pj->pkqj", eye, y).reshape(P, m, -1))   # W3
    blocks.append(np.broadcast_to(eye, (P, m, m)))                       # b3
    return np.concatenate(blocks, axis=2).reshape(P * m, -1)


def sample_points(rng, W1, b1, radius, n_box, n_far):
    """Points dense in a box of *radius*, points whose first-layer pre-activations u = W1 x + b1
    are spread over scales 10^-2 … 10^2 (the kinks of the second layer live in u-space, some in
    thin strips), and far points (5 … 50 radii)."""
    d = W1.shape[1]
    box = rng.uniform(-radius, radius, size=(n_box, d))
    u = rng.normal(size=(n_box, W1.shape[0])) * 10 ** rng.uniform(-2, 2, size=(n_box, 1))
    pinv = np.linalg.pinv(W1)
    null = np.eye(d) - pinv @ W1
    near = (u - b1) @ pinv.T + rng.normal(size=(n_box, d)) @ null.T * radius / 4
    far = rng.normal(size=(n_far, d))
    far *= rng.uniform(5, 50, size=(n_far, 1)) * radius / np.linalg.norm(far, axis=1, keepdims=True)
    return np.vstack([box, near, far])


# -- planted nets ----------------------------------------------------------------------------------

SMALL = [F(1), F(2), F(3), F(1, 2), F(3, 2), F(5, 2), F(4, 3)]


def _pos(rng):
    return rng.choice(SMALL)


def row_with_signs(rng, signs):
    return [s * _pos(rng) for s in signs]


TWO_ROWS = ("linear_mix", "dead_mix", "minus_plus_dead", "minus_plus_linear")   # need n2 ≥ 2
PATTERNS = ["minus_plus", "plus_minus", "mixed", "masked", "masked_equal_ratio", "linear_mix",
            "dead_mix", "minus_plus_dead", "minus_plus_linear", "random"]


def planted_signs(rng, pattern, n1, n2):
    """Sign patterns of the rows of [W2 | b2] (each row n1 + 1 signs, bias last)."""
    mixed = lambda: next(s for s in iter(lambda: [rng.choice((-1, 1)) for _ in range(n1 + 1)], None)
                         if len(set(s)) == 2)
    mp = [-1] * n1 + [1]
    if pattern == "minus_plus":
        return [mp] * n2
    if pattern == "plus_minus":
        return [[1] * n1 + [-1]] * n2
    if pattern == "mixed":
        return [mixed() for _ in range(n2)]
    if pattern in ("masked", "masked_equal_ratio"):
        i = rng.randrange(n1)
        return [[1 if k == i else -1 for k in range(n1)] + [-1]] * n2
    if pattern == "linear_mix":
        return [[1] * (n1 + 1)] + [mixed() for _ in range(n2 - 1)]
    if pattern == "dead_mix":
        return [[-1] * (n1 + 1)] + [mixed() for _ in range(n2 - 1)]
    if pattern == "minus_plus_dead":
        return [[-1] * (n1 + 1)] + [mp] * (n2 - 1)
    if pattern == "minus_plus_linear":
        return [[1] * (n1 + 1)] + [mp] * (n2 - 1)
    return [[rng.choice((-1, 1)) for _ in range(n1 + 1)] for _ in range(n2)]


def planted_net(rng, pattern, d, n1, n2, m):
    """Fraction layers [(W, b)] * 3 with first-layer rows of full rank."""
    while True:
        W1 = [[F(rng.randint(-3, 3)) for _ in range(d)] for _ in range(n1)]
        if np.linalg.matrix_rank(np.array(W1, float)) == n1:
            break
    b1 = [F(rng.choice((-1, 1)) * rng.randint(1, 4), rng.choice((1, 2))) for _ in range(n1)]
    rows = [row_with_signs(rng, s) for s in planted_signs(rng, pattern, n1, n2)]
    if pattern == "masked_equal_ratio" and n2 >= 2:
        for r in rows[1:]:                       # same ratios W2[j,k] / W2[j,i*], another bias
            c = _pos(rng)
            r[:n1] = [c * w for w in rows[0][:n1]]
    W2, b2 = [r[:n1] for r in rows], [r[n1] for r in rows]
    W3 = [[rng.choice((-1, 1)) * _pos(rng) for _ in range(n2)] for _ in range(m)]
    b3 = [F(rng.randint(-2, 2)) for _ in range(m)]
    return [(W1, b1), (W2, b2), (W3, b3)]


def layers_vec(layers):
    (W1, b1), (W2, b2), (W3, b3) = layers
    return pack([np.array(W1, float), np.array(b1, float), np.array(W2, float),
                 np.array(b2, float), np.array(W3, float), np.array(b3, float)])


def to_network(layers):
    from algebra.network import Network
    from algebra.rationals import Q
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W] for W, _ in layers],
                             [[q(v) for v in b] for _, b in layers])


# -- invariants of the known symmetries ------------------------------------------------------------

def normalised(vec, shp):
    """Rows of [W1|b1] and [W2|b2] scaled to unit norm (S2), factors pushed downstream."""
    W1, b1, W2, b2, W3, b3 = [p.copy() for p in unpack(vec, shp)]
    r1 = np.hstack([W1, b1[:, None]])
    s1 = np.linalg.norm(r1, axis=1)
    s1[s1 == 0] = 1
    r1 /= s1[:, None]
    W2 = W2 * s1[None, :]
    r2 = np.hstack([W2, b2[:, None]])
    s2 = np.linalg.norm(r2, axis=1)
    s2[s2 == 0] = 1
    r2 /= s2[:, None]
    return r1, r2, W3 * s2[None, :], b3


def row_types(r2, V3=None, tol=1e-6):
    """D / L / A per second-layer row; a row with a zero output column counts as dead (such a
    point of the fiber is non-generic: a known gap of the fiber listing)."""
    t = []
    for j, r in enumerate(r2):
        if np.all(r < 0) or (V3 is not None and np.abs(V3[:, j]).max() < tol):
            t.append("D")
        elif np.all(r > 0):
            t.append("L")
        else:
            t.append("A")
    return t


def masked_col(r2, n1):
    nd = [r for r in r2 if not np.all(r < 0)]
    for i in range(n1):
        if nd and all(r[i] > 0 and all(r[k] < 0 for k in range(n1 + 1) if k != i) for r in nd):
            return i
    return None


def nongeneric_point(nt, tol=1e-4):
    """Is the normalised point *nt* (numerically) non-generic: a zero entry of [W2 | b2], a
    zero output column, proportional rows of [W1 | b1] or of [W2 | b2], rank W1 < n1?  The fiber
    listing describes the generic strata only (its known gap iii)."""
    r1, r2, V3 = nt[0], nt[1], nt[2]
    if np.abs(r2).min() < tol or np.linalg.norm(V3, axis=0).min() < tol * np.abs(V3).max():
        return True
    if np.linalg.svd(r1[:, :-1], compute_uv=False).min() < tol:
        return True
    return any(min(np.abs(r[a] - r[b]).max(), np.abs(r[a] + r[b]).max()) < tol
               for r in (r1, r2) for a, b in itertools.combinations(range(r.shape[0]), 2))


def orbit_distance(a, b, n1, n2):
    """min over permutations of the distance of the S2-normalised nets (S1 + S2 orbit)."""
    r1a, r2a, V3a, c3a = a
    r1b, r2b, V3b, c3b = b
    best = np.inf
    for p1 in itertools.permutations(range(n1)):
        cols = list(p1) + [n1]
        d1 = np.abs(r1a[list(p1)] - r1b).max()
        if d1 > best:
            continue
        for p2 in itertools.permutations(range(n2)):
            d2 = max(np.abs(r2a[list(p2)][:, cols] - r2b).max(),
                     np.abs(V3a[:, list(p2)] - V3b).max(), np.abs(c3a - c3b).max())
            best = min(best, max(d1, d2))
    return best


def classify(theta, other, n1, n2, tol=1e-5):
    """'orbit', 'known' (explained by an invariant-preserving known move) or 'candidate: …'."""
    if orbit_distance(theta, other, n1, n2) < tol:
        return "orbit"
    r1a, r2a = theta[0], theta[1]
    r1b, r2b = other[0], other[1]
    ma, mb = masked_col(r2a, n1), masked_col(r2b, n1)
    # match every non-masked first-layer hyperplane of θ' to one of θ, up to orientation
    flips, match = [], {}
    for i in range(n1):
        if i == mb:
            continue
        hit = [(k, s) for k in range(n1) for s in (1, -1)
               if k != ma and np.abs(s * r1a[k] - r1b[i]).max() < tol]
        if not hit:
            return f"candidate: first-layer hyperplane {i} of θ' is new"
        k, s = hit[0]
        match[i] = k
        if s < 0:
            flips.append(i)
    if (ma is None) != (mb is None):
        return "candidate: masked column appears/disappears"
    if flips and mb is None:
        return f"candidate: first-layer flip {flips} without a masked column"
    ta, tb = row_types(r2a, theta[2]), row_types(r2b, other[2])
    if ta.count("A") != tb.count("A"):
        return f"candidate: switching rows {ta} -> {tb}"
    if not flips and mb is None:
        # first layer aligned (same orientation): switching rows equal up to orientation (S5)
        A = [r for r, t in zip(r2a, ta) if t == "A"]
        for r, t in zip(r2b, tb):
            if t == "A":
                rr = np.empty_like(r)
                for i in range(n1):
                    rr[match[i]] = r[i]
                rr[n1] = r[n1]
                if not any(np.abs(s * a - rr).max() < tol for a in A for s in (1, -1)):
                    return "candidate: new switching row"
    return "known"


ANNEAL = (16.0, 256.0, None)


def start_point(rng, theta, shp, flips=None):
    """A random start, or θ with the incoming rows [w | b] of the hidden neurons in *flips*
    (first layer, then second) negated (half the time with random biases instead) and
    multiplicative noise: a start in the sign pattern that a hidden symmetry like S5, S7 or S8
    would reach."""
    if flips is None:
        return rng.normal(size=theta.size) * rng.choice((0.5, 1.0, 2.0))
    W1, b1, W2, b2, W3, b3 = [p.copy() for p in unpack(theta, shp)]
    n1 = b1.size
    moved = rng.random() < 0.5            # S8 also moves the flipped biases (b1 → β − b1, R15)
    for k in flips:
        W, b = (W1, b1) if k < n1 else (W2, b2)
        i = k if k < n1 else k - n1
        W[i] *= -1
        b[i] = rng.normal() * (1 + abs(b[i])) if moved else -b[i]
    t = pack([W1, b1, W2, b2, W3, b3])
    return t * np.exp(rng.normal(size=t.size) * 0.05) + rng.normal(size=t.size) * 0.02


def flip_sets(rng, n1, n2, count):
    """The empty set (θ plus noise) and up to *count* − 1 non-empty subsets of the n1 + n2 hidden
    neurons (all of them when there are few)."""
    subsets = [c for r in range(1, n1 + n2 + 1) for c in itertools.combinations(range(n1 + n2), r)]
    rng.shuffle(subsets)
    return [()] + subsets[:count - 1]


def listed_numerically(fib, vec, shp, tol=1e-6):
    """Is the float point *vec* (up to permutations; components are closed under S2) within
    *tol* of a listed component of netfibers' fiber: every equality ≈ 0, every strict inequality
    > −tol (after the rows are scaled to unit norm)?"""
    from algebra.rationals import to_q
    r1, r2, V3, c3 = normalised(vec, shp)
    n1, n2 = r1.shape[0], r2.shape[0]
    for p1 in itertools.permutations(range(n1)):
        for p2 in itertools.permutations(range(n2)):
            a = r1[list(p1)]
            b = r2[list(p2)][:, list(p1) + [n1]]
            x = pack([a[:, :-1], a[:, -1], b[:, :-1], b[:, -1], V3[:, list(p2)], c3])
            for comp in fib.components:
                vals = dict(zip(comp.ring.names, (to_q(F(float(t))) for t in x)))
                if all(abs(float(e(vals))) < tol for e in comp.equalities) and \
                        all(float(q(vals)) > -tol for q in comp.positive):
                    return True
    return False


# -- the search ------------------------------------------------------------------------------------

def explore(layers, rng, starts=20, flipped=40, n_box=300, n_far=60, verbose=False, fib=None):
    """Least squares from *starts* random and *flipped* sign-flipped starts; returns the
    numerical fiber dimension, a Counter of outcomes and the candidates.  With *fib* (netfibers'
    fiber of the net) every converged non-orbit point is also checked against its components."""
    from scipy.optimize import least_squares
    d, n1 = len(layers[0][0][0]), len(layers[0][1])
    n2, m = len(layers[1][1]), len(layers[2][1])
    shp = shapes(d, n1, n2, m)
    theta = layers_vec(layers)
    W1, b1 = unpack(theta, shp)[:2]
    radius = 40.0 * (1.0 + np.abs(b1).max())
    X = sample_points(rng, W1, b1, radius, n_box, n_far)
    Xcheck = sample_points(rng, W1, b1, 1000 * radius, n_box, n_far)   # far-away kinks show here
    target = forward(theta, shp, X)
    w = 1.0 / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]       # far points do not dominate
    res = lambda t, beta=None: ((forward(t, shp, X, beta) - target) * w).ravel()
    jac = lambda t, beta=None: jacobian(t, shp, X, beta) * np.repeat(w.ravel(), m)[:, None]
    J = jac(theta)
    sv = np.linalg.svd(J, compute_uv=False)
    rank = int((sv > sv[0] * 1e-9).sum())
    num_dim = theta.size - rank
    scale = np.abs(target * w).max() + 1.0
    ref = normalised(theta, shp)
    out = Counter()
    cands = []
    plans = [None] * starts + flip_sets(rng, n1, n2, flipped)
    for plan in plans:
        t0 = start_point(rng, theta, shp, plan)
        try:
            for beta in ANNEAL if plan is None else (None,):   # softplus homotopy, then ReLU
                with np.errstate(all="ignore"):
                    sol = least_squares(res, t0, jac=jac, args=(beta,), method="lm",
                                        xtol=1e-15, ftol=1e-15, gtol=1e-15,
                                        max_nfev=(60 if beta is None else 15) * theta.size)
                t0 = sol.x
        except Exception:          # noqa: BLE001 - a failed start is just a failed start
            out["error"] += 1
            continue
        loss = np.sqrt(np.mean(sol.fun ** 2)) / scale
        far = np.abs(forward(sol.x, shp, Xcheck) - forward(theta, shp, Xcheck)).max()
        if loss > 1e-10 or far > 1e-7 * (1 + np.abs(forward(theta, shp, Xcheck)).max()):
            out["not converged"] += 1
            continue
        found = normalised(sol.x, shp)
        kind = "non-generic point" if nongeneric_point(found) else classify(ref, found, n1, n2)
        if kind == "known" and fib is not None and not listed_numerically(fib, sol.x, shp):
            kind = "candidate: not near a listed component of fiber" + (
                " (partial)" if fib.partial else "")
        out[kind.split(":")[0] + ("" if plan is None else " (flip start)")] += 1
        if kind.startswith("candidate"):
            cands.append((kind, sol.x))
            if verbose:
                print("   ", kind, np.round(sol.x, 4).tolist())
    return num_dim, out, cands


def netfibers_view(layers):
    """(generic?, failed condition, identifiable, R17 dimension) from netfibers."""
    from semialgebraic.bottleneck import dimension_formula, genericity, identifiability
    net = to_network(layers)
    failed = [h.name for h in genericity(net) if not h.holds]
    if failed:
        return False, failed[0], None, None
    return True, None, identifiability(net).answer, dimension_formula(net).value


def run(seed, count, starts, verbose=True, patterns=PATTERNS, flipped=40):
    rng = random.Random(seed)
    nrng = np.random.default_rng(seed)
    t0 = time.process_time()
    tally, findings = Counter(), []
    for k in range(count):
        d = rng.choice((2, 3))
        n1 = rng.randint(2, min(d, 3))
        pattern = patterns[k % len(patterns)]
        n2 = rng.randint(2 if pattern in TWO_ROWS else 1, 4)
        m = rng.choice((1, 2))
        layers = planted_net(rng, pattern, d, n1, n2, m)
        if all(v < 0 for row, b in zip(*layers[1]) for v in row + [b]):
            tally["constant (every row dead)"] += 1
            continue
        try:
            generic, failed, ident, r17 = netfibers_view(layers)
        except Exception as exc:   # noqa: BLE001 - non-generic / not applicable nets are skipped
            tally[f"skipped {type(exc).__name__}"] += 1
            continue
        if not generic:
            tally["non-generic"] += 1
            continue
        from semialgebraic import fiber
        num_dim, out, cands = explore(layers, nrng, starts=starts, flipped=flipped,
                                      fib=fiber(to_network(layers)))
        tally["nets"] += 1
        tally.update(out)
        line = (f"{pattern:20s} {d}-{n1}-{n2}-{m} identify={ident} R17={r17} numdim={num_dim} "
                + " ".join(f"{a}={b}" for a, b in sorted(out.items())))
        if num_dim != r17:          # sampling can miss thin regions: ask the exact FIBDIM
            from semialgebraic.bottleneck import jacobian_dimension
            exact = jacobian_dimension(to_network(layers))
            tally["numdim != R17, FIBDIM = R17" if exact == r17 else "numdim != R17 = FIBDIM"] += 1
            if exact != r17:
                findings.append(f"DIM {line} FIBDIM={exact} | θ={layers}")
        if cands and ident is True:
            findings.append("IDENT " + line)
        for kind, x in cands:
            findings.append(f"CAND {kind} | {line} | θ={layers} | θ'={np.round(x, 6).tolist()}")
        if verbose:
            print(line, flush=True)
    if verbose:
        for f in findings:
            print(f)
        print(f"seed {seed}: {dict(tally)} findings {len(findings)} "
              f"CPU {time.process_time() - t0:.1f} s")
    return findings, tally


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=20)
    p.add_argument("--starts", type=int, default=40)
    p.add_argument("--flipped", type=int, default=40, help="sign-flipped starts per net")
    p.add_argument("--pattern", action="append", choices=PATTERNS)
    a = p.parse_args(argv)
    run(a.seed, a.count, a.starts, patterns=a.pattern or PATTERNS, flipped=a.flipped)


if __name__ == "__main__":
    main()
