"""Fuzzer of the verdicts: netfibers' answers against oracles written here, sharing no code with
the deciders (plain ``fractions.Fraction`` arithmetic; python-flint only for the rank of a
matrix in the dimension oracle).

Kinds:

* ``shallow``: one-hidden-layer ``equivalent`` on R^d for b built from a by permutations,
  scalings, twin neurons that cancel, a neuron split in two, dead / zero-output neurons, a
  flipped neuron paired with a linear block, zero / duplicate / parallel rows, float32 weights,
  then (half the time) one tiny perturbation.  Oracle: the kink decomposition of
  shallow-fibers (every hyperplane class's summed kink vector and the affine part; the functions
  relu(n·x + β) of distinct hyperplanes and the affine functions are linearly independent).
  Every certificate is re-checked (``verify``) and one random numeric leaf of it mutated: a
  mutated certificate the checker accepts must still make a true claim (oracle again).
* ``dim``: ``functional_dimension`` on small random nets against the exact rank of the parameter
  Jacobian stacked over many random inputs (a lower bound of the functional dimension, equal to
  it for enough generic inputs); the reported interval must contain it when complete, and its
  lower end must never exceed it.

Run by hand, at low priority::

    nice -n 15 python -m tests.fuzz.verdicts --seed 1 --count 200 --kind shallow

Prints one line per disagreement (with the seed and case index that reproduce it) and counts.
``tests/semialgebraic/test_fuzz_verdicts.py`` runs a bounded sample.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from fractions import Fraction

from algebra.network import Network
from algebra.rationals import Q

TIMEOUT = 20


# -- exact arithmetic of the oracles (Fractions only) ---------------------------------------------
def frac_layers(net: Network):
    """[(W rows, b)] as Fractions, from the network's JSON form (no netfibers arithmetic)."""
    data = net.to_dict()
    out = []
    for layer in data["layers"]:
        W = [[Fraction(str(v)) for v in row] for row in layer["weight"]]
        b = [Fraction(str(v)) for v in layer["bias"]]
        out.append((W, b))
    return out


def frac_eval(layers, x):
    h = [Fraction(v) for v in x]
    for k, (W, b) in enumerate(layers):
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        h = z if k == len(layers) - 1 else [max(v, Fraction(0)) for v in z]
    return h


def shallow_decomposition(net: Network):
    """f(x) = Σ_H relu(n_H·x + β_H) k_H + A x + c with distinct oriented hyperplanes H (n_H's first
    nonzero entry 1): {H: k_H}, A, c, kink vectors k_H ≠ 0 only."""
    (W1, b1), (W2, b2) = frac_layers(net)
    d, m = len(W1[0]) if W1 else net.n_inputs, len(b2)
    kinks: dict = {}
    A = [[Fraction(0)] * d for _ in range(m)]
    c = list(b2)
    for i, (row, bi) in enumerate(zip(W1, b1)):
        out = [W2[o][i] for o in range(m)]
        nz = next((v for v in row if v != 0), None)
        if nz is None:                                   # constant neuron relu(b)
            for o in range(m):
                c[o] += out[o] * max(bi, Fraction(0))
            continue
        s = abs(nz)
        key = tuple(v / nz for v in row) + (bi / nz,)   # oriented: first nonzero entry 1
        k = kinks.setdefault(key, [Fraction(0)] * m)
        if nz > 0:                                       # c relu(s u) = c s relu(u)
            for o in range(m):
                k[o] += out[o] * s
        else:                                            # c relu(-s u) = c s relu(u) - c s u
            for o in range(m):
                k[o] += out[o] * s
                for j in range(d):
                    A[o][j] -= out[o] * s * key[j]
                c[o] -= out[o] * s * key[d]
    kinks = {h: k for h, k in kinks.items() if any(v != 0 for v in k)}
    return kinks, A, c


def shallow_equivalent_oracle(a: Network, b: Network) -> bool:
    return shallow_decomposition(a) == shallow_decomposition(b)


# -- shallow cases ---------------------------------------------------------------------------------
def _rat(rng, den=(1, 2, 3, 4)):
    return Fraction(rng.randint(-4, 4), rng.choice(den))


def random_shallow(rng, d=None, n=None, m=None, float32=False):
    d = d or rng.randint(1, 3)
    n = n or rng.randint(1, 5)
    m = m or rng.randint(1, 2)
    if float32:
        import numpy as np
        f = lambda: Fraction(float(np.float32(rng.uniform(-2, 2))))
    else:
        f = lambda: _rat(rng)
    W1 = [[f() for _ in range(d)] for _ in range(n)]
    b1 = [f() for _ in range(n)]
    W2 = [[f() for _ in range(n)] for _ in range(m)]
    b2 = [f() for _ in range(m)]
    r = rng.random()
    if r < 0.15:
        W1[rng.randrange(n)] = [Fraction(0)] * d                      # a zero row
    elif r < 0.35 and n > 1:                                           # duplicate / parallel
        i, j = rng.sample(range(n), 2)
        s = rng.choice([Fraction(1), Fraction(2), Fraction(-1), Fraction(-1, 3)])
        W1[j], b1[j] = [s * v for v in W1[i]], s * b1[i]
    return W1, b1, W2, b2


def to_net(W1, b1, W2, b2) -> Network:
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W1], [[q(v) for v in r] for r in W2]],
                             [[q(v) for v in b1], [q(v) for v in b2]])


def planted_shallow(rng, W1, b1, W2, b2):
    """b's weights: a function-preserving move of a (named)."""
    W1, b1, W2, b2 = copy.deepcopy((W1, b1, W2, b2))
    n, m, d = len(W1), len(W2), len(W1[0])
    kind = rng.choice(["permute_scale", "twins", "split", "dead", "zero_out", "linear_block",
                       "flip"])
    if kind == "permute_scale":
        perm = list(range(n))
        rng.shuffle(perm)
        sc = [Fraction(rng.randint(1, 7), rng.randint(1, 7)) for _ in range(n)]
        W1 = [[v * sc[p] for v in W1[p]] for p in perm]
        b1 = [b1[p] * sc[p] for p in perm]
        W2 = [[row[p] / sc[p] for p in perm] for row in W2]
    elif kind == "twins":                       # c relu(z) and -c relu(s z): cancel
        row, bias = [_rat(rng) for _ in range(d)], _rat(rng)
        s = Fraction(rng.randint(1, 4), rng.randint(1, 4))
        out = [_rat(rng) for _ in range(m)]
        W1 += [row, [s * v for v in row]]
        b1 += [bias, s * bias]
        for o in range(m):
            W2[o] += [out[o], -out[o] / s]
    elif kind == "split":                       # c relu(z) = c t relu(z) + c (1-t)/s relu(s z)
        i = rng.randrange(n)
        s = Fraction(rng.randint(1, 4), rng.randint(1, 4))
        t = Fraction(rng.randint(0, 4), 4)
        W1.append([s * v for v in W1[i]])
        b1.append(s * b1[i])
        for o in range(m):
            v = W2[o][i]
            W2[o][i] = v * t
            W2[o].append(v * (1 - t) / s)
    elif kind == "dead":                        # relu(0·x - k) = 0 on R^d
        W1.append([Fraction(0)] * d)
        b1.append(-Fraction(rng.randint(0, 3), rng.randint(1, 3)))
        for o in range(m):
            W2[o].append(_rat(rng))
    elif kind == "zero_out":
        W1.append([_rat(rng) for _ in range(d)])
        b1.append(_rat(rng))
        for o in range(m):
            W2[o].append(Fraction(0))
    elif kind == "linear_block":                # relu(u) - relu(-u) + relu(v) - relu(-v) = u + v
        u = [_rat(rng) for _ in range(d + 1)]
        v = [_rat(rng) for _ in range(d + 1)]
        u2 = [_rat(rng) for _ in range(d + 1)]
        v2 = [x + y - z for x, y, z in zip(u, v, u2)]  # u2 + v2 = u + v
        out = [_rat(rng) for _ in range(m)]
        # a gets the (u, v) block, b the (u2, v2) block: built by the caller through "pair"
        return kind, (u, v, u2, v2, out)
    else:                                       # antiparallel twins c relu(-z) - c relu(-z)
        i = rng.randrange(n)
        W1.append([-v for v in W1[i]])
        b1.append(-b1[i])
        W1.append([-v for v in W1[i]])
        b1.append(-b1[i])
        for o in range(m):
            W2[o] += [W2[o][i], -W2[o][i]]
    return kind, (W1, b1, W2, b2)


def _with_block(W1, b1, W2, b2, p, q, out):
    W1, b1, W2, b2 = copy.deepcopy((W1, b1, W2, b2))
    d = len(W1[0])
    for r in (p, q):
        W1 += [r[:d], [-v for v in r[:d]]]
        b1 += [r[d], -r[d]]
    for o in range(len(W2)):
        W2[o] += [out[o], -out[o], out[o], -out[o]]
    return W1, b1, W2, b2


def perturb(rng, W1, b1, W2, b2):
    """One entry moved by a tiny amount (1e-9 … 1/8) or to 0: usually not equivalent."""
    W1, b1, W2, b2 = copy.deepcopy((W1, b1, W2, b2))
    delta = rng.choice([Fraction(1, 10 ** 9), Fraction(-1, 10 ** 6), Fraction(1, 8),
                        Fraction(1, 3)])
    which = rng.choice(["W1", "b1", "W2", "b2"])
    arr = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}[which]
    if which in ("W1", "W2"):
        i = rng.randrange(len(arr))
        j = rng.randrange(len(arr[i]))
        arr[i][j] = arr[i][j] + delta if rng.random() < 0.8 else Fraction(0)
    else:
        i = rng.randrange(len(arr))
        arr[i] += delta
    return (W1, b1, W2, b2), f"{which} moved by {delta}"


def shallow_case(rng):
    """(a, b, description)."""
    fl = rng.random() < 0.2
    w = random_shallow(rng, float32=fl)
    kind, res = planted_shallow(rng, *w)
    if kind == "linear_block":
        u, v, u2, v2, out = res
        wa, wb = _with_block(*w, u, v, out), _with_block(*w, u2, v2, out)
    else:
        wa, wb = w, res
    desc = kind + (" float32" if fl else "")
    if rng.random() < 0.5:
        wb, what = perturb(rng, *wb)
        desc += f"; {what}"
    return to_net(*wa), to_net(*wb), desc


def _mutate(rng, cert):
    """A deep copy with one numeric leaf (int, or a 'p/q' string) changed; None if none."""
    c = copy.deepcopy(cert)
    leaves = []

    def walk(obj, path):
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k not in ("format", "schema_version", "netfibers_version", "claim", "version"):
                    walk(v, path + (k,))
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, path + (i,))
        elif isinstance(obj, bool):
            leaves.append(path)
        elif isinstance(obj, (int, float)) or (isinstance(obj, str) and _is_num(obj)):
            leaves.append(path)
    walk(c, ())
    if not leaves:
        return None, None
    path = rng.choice(leaves)
    obj = c
    for k in path[:-1]:
        obj = obj[k]
    old = obj[path[-1]]
    if isinstance(old, bool):
        new = not old
    elif isinstance(old, int):
        new = old + rng.choice([1, -1, 2])
    else:
        new = str(Fraction(str(old)) + rng.choice([1, -1, Fraction(1, 2), Fraction(1, 10 ** 9)]))
    obj[path[-1]] = new
    return c, path


def _is_num(s):
    try:
        Fraction(s)
        return True
    except (ValueError, ZeroDivisionError):
        return False


def _claim_holds(cert) -> bool | None:
    """Whether a (mutated) certificate's claim is true by the oracles; None when not judged."""
    from algebra.io import network_from_dict
    try:
        a, b = network_from_dict(cert["a"]), network_from_dict(cert["b"])
    except Exception:
        return None
    if cert.get("type") == "counterexample":
        x = cert.get("x")
        try:
            return frac_eval(frac_layers(a), [Fraction(str(v)) for v in x]) != \
                frac_eval(frac_layers(b), [Fraction(str(v)) for v in x])
        except Exception:
            return None
    if cert.get("domain") in (None, "R^d") and a.depth == 2 and b.depth == 2:
        return shallow_equivalent_oracle(a, b)
    return None


def check_certificate(rng, v, stats, failures, tag, mutations=2):
    """verify() accepts the certificate; each mutation is rejected or still makes a true claim."""
    from algebra.exceptions import InputError
    from semialgebraic import verify
    if v.certificate is None:
        return
    ok, msg = verify(v.certificate)
    if not ok:
        failures.append(f"{tag}: certificate rejected: {msg}")
    for _ in range(mutations):
        mut, path = _mutate(rng, v.certificate)
        if mut is None:
            continue
        stats["mutations"] = stats.get("mutations", 0) + 1
        try:
            ok, msg = verify(mut)
        except InputError:                   # malformed: refused (verify's contract)
            continue
        except Exception as exc:             # the checker must answer, never crash
            failures.append(f"{tag}: checker crashed on mutation at {path}: "
                            f"{type(exc).__name__}: {exc}")
            continue
        if ok:
            holds = _claim_holds(mut)
            if holds is False:
                failures.append(f"{tag}: mutated certificate accepted with a false claim "
                                f"(at {path})")
            else:
                key = "mutations_accepted_" + ("true" if holds else "unjudged")
                stats[key] = stats.get(key, 0) + 1
                where = f"{v.certificate.get('type')}:{'.'.join(str(p) for p in path if isinstance(p, str))}"
                stats.setdefault("accepted_at", {}).setdefault(where, 0)
                stats["accepted_at"][where] += 1


def run_shallow(seed, count, verbose=True):
    from semialgebraic import equivalent
    rng = random.Random(seed)
    stats = {"cases": 0, "equivalent": 0, "not_equivalent": 0, "undecided": 0}
    failures = []
    for i in range(count):
        a, b, desc = shallow_case(rng)
        tag = f"shallow seed={seed} case={i} ({desc})"
        truth = shallow_equivalent_oracle(a, b)
        stats["cases"] += 1
        try:
            v = equivalent(a, b, timeout=TIMEOUT)
        except Exception as exc:
            failures.append(f"{tag}: raised {type(exc).__name__}: {exc}")
            continue
        if v.answer is None:
            stats["undecided"] += 1
        elif v.answer != truth:
            failures.append(f"{tag}: answer {v.answer}, oracle {truth} ({v.method}: {v.reason})")
        else:
            stats["equivalent" if truth else "not_equivalent"] += 1
        check_certificate(rng, v, stats, failures, tag)
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


# -- functional dimension --------------------------------------------------------------------------
def preactivations(layers, x):
    """The hidden pre-activations of every layer at x (Fractions)."""
    out, h = [], [Fraction(v) for v in x]
    for k, (W, b) in enumerate(layers[:-1]):
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        out.append(z)
        h = [max(v, Fraction(0)) for v in z]
    return out


def line_points(layers, p, q, offsets, rng):
    """Points along the segment p→q: the midpoint of every piece on which the network is affine
    (breakpoints found exactly, layer by layer), each also moved off the line by a few small
    steps (a thin region the segment crosses is then sampled with d + 1 points in general
    position, most of the time)."""
    d = len(p)
    at = lambda t: [pi + t * (qi - pi) for pi, qi in zip(p, q)]
    ts = [Fraction(0), Fraction(1)]
    for k in range(len(layers) - 1):
        new = []
        for t0, t1 in zip(ts, ts[1:]):
            z0, z1 = preactivations(layers, at(t0))[k], preactivations(layers, at(t1))[k]
            for a, b in zip(z0, z1):              # affine on [t0, t1]: below layer k no kink
                if (a < 0 < b) or (b < 0 < a):
                    new.append(t0 + (t1 - t0) * a / (a - b))
        ts = sorted(set(ts) | set(new))
    pts = []
    for t0, t1 in zip(ts, ts[1:]):
        mid = at((t0 + t1) / 2)
        pts.append(mid)
        span = (t1 - t0) * max((abs(qi - pi) for pi, qi in zip(p, q)), default=Fraction(1))
        for frac in offsets:
            for _ in range(d):
                pts.append([v + span * frac * Fraction(rng.randint(-8, 8), 8) for v in mid])
    return pts


def jacobian_row(layers, x):
    """The rows d f_o / d theta at x (one per output), or None where theta -> f(x) is not
    differentiable: a kink neuron (z = 0) gets mask 0 and the point is kept only when the network
    above sees no kink (e = d f / d h = 0 there; the rule of dim's docs, re-derived here)."""
    hs, masks, kinks = [list(x)], [], []
    h = list(x)
    for k, (W, b) in enumerate(layers):
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        if k < len(layers) - 1:
            masks.append([v > 0 for v in z])
            kinks.append([v == 0 for v in z])
            h = [max(v, Fraction(0)) for v in z]
            hs.append(h)
    m = len(layers[-1][1])
    G = [[Fraction(int(o == i)) for i in range(m)] for o in range(m)]     # d f / d z_k
    grads = [None] * len(layers)
    for k in range(len(layers) - 1, -1, -1):
        grads[k] = G
        if k > 0:
            W = layers[k][0]
            e = [[sum((G[o][i] * W[i][j] for i in range(len(W))), Fraction(0))
                  for j in range(len(W[0]))] for o in range(m)]
            if any(e[o][j] != 0 and kinks[k - 1][j] for o in range(m) for j in range(len(W[0]))):
                return None
            G = [[e[o][j] * (1 if masks[k - 1][j] else 0) for j in range(len(W[0]))]
                 for o in range(m)]
    rows = []
    for o in range(m):
        row = []
        for k, (W, b) in enumerate(layers):
            g, hin = grads[k][o], hs[k]
            row += [g[i] * hin[j] for i in range(len(W)) for j in range(len(W[0]))]
            row += [g[i] for i in range(len(b))]
        rows.append(row)
    return rows


def jacobian_rank(net: Network, rng, n_lines=12) -> int:
    """Exact rank of the parameter Jacobian of (f(x_1), …, f(x_k)) at inputs where θ ↦ f(x) is
    differentiable: a lower bound of the functional dimension on R^d.  Inputs: the pieces of
    *n_lines* random segments (scales 1 … 1000) and points moved off them (Fractions; flint only
    for the final rank)."""
    import flint
    layers = frac_layers(net)
    d = net.n_inputs
    P = sum(len(W) * (len(W[0]) if W else 0) + len(b) for W, b in layers)
    rows = []
    for _ in range(n_lines):
        scale = rng.choice([1, 10, 1000])
        p = [Fraction(rng.randint(-1000, 1000) * scale, 1000) for _ in range(d)]
        q = [Fraction(rng.randint(-1000, 1000) * scale, 1000) for _ in range(d)]
        if p == q:
            continue
        for x in line_points(layers, p, q, (Fraction(1, 10), Fraction(1, 1000)), rng):
            r = jacobian_row(layers, x)
            if r is not None:
                rows += r
    if not rows:
        return 0
    mat = flint.fmpq_mat(len(rows), P, [flint.fmpq(v.numerator, v.denominator)
                                        for r in rows for v in r])
    return mat.rank()


def random_deep(rng):
    d = rng.randint(1, 3)
    depth = rng.choice([2, 2, 3, 3, 4])
    widths = [d] + [rng.randint(1, 4) for _ in range(depth - 1)] + [rng.randint(1, 2)]
    Ws, bs = [], []
    for l in range(depth):
        W = [[_rat(rng) for _ in range(widths[l])] for _ in range(widths[l + 1])]
        b = [_rat(rng) for _ in range(widths[l + 1])]
        if rng.random() < 0.2:
            W[rng.randrange(len(W))] = [Fraction(0)] * widths[l]
        Ws.append(W)
        bs.append(b)
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W] for W in Ws],
                             [[q(v) for v in b] for b in bs])


def run_dim(seed, count, verbose=True):
    from semialgebraic import functional_dimension
    rng = random.Random(seed)
    stats = {"cases": 0, "exact": 0, "interval": 0}
    failures = []
    for i in range(count):
        net = random_deep(rng)
        tag = f"dim seed={seed} case={i} widths={net.widths}"
        stats["cases"] += 1
        try:
            r = functional_dimension(net, timeout=TIMEOUT)
        except Exception as exc:
            failures.append(f"{tag}: raised {type(exc).__name__}: {exc}")
            continue
        rank = jacobian_rank(net, rng)
        lo, hi = r.lower, r.upper
        if rank < lo:                              # our lines missed a thin region? look harder
            rank = max(rank, jacobian_rank(net, random.Random(f"{seed}-{i}"), n_lines=100))
        if hi is not None and rank > hi:
            failures.append(f"{tag}: sampled Jacobian rank {rank} > reported upper {hi} "
                            f"({r.reason})")
        if rank < lo:
            failures.append(f"{tag}: reported lower {lo} > sampled Jacobian rank {rank} on 112 "
                            f"lines (check by hand; {r.reason})")
        stats["exact" if lo == hi else "interval"] += 1
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


KINDS = {"shallow": run_shallow, "dim": run_dim}


def _main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--kind", choices=sorted(KINDS), action="append")
    args = ap.parse_args()
    bad = 0
    for kind in args.kind or sorted(KINDS):
        stats, failures = KINDS[kind](args.seed, args.count)
        bad += len(failures)
        print(f"{kind}: {json.dumps(stats)}; {len(failures)} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(_main())
