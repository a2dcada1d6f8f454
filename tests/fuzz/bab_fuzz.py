"""Soundness fuzzer of ``equiv`` / ``equiv --epsilon`` / ``diff`` / ``regions`` (issue 15).

Pairs of small ReLU networks are built the way users build them (random rational or float32 /
float16 weights, planted symmetries, near misses confined to tiny regions, degenerate rows), saved
as JSON / .npz / .pt / .safetensors / .nnet, and every verdict of the CLI (and of the Python API)
is compared with oracles written here that share no code with netfibers:

* exact evaluation with ``fractions.Fraction`` on a grid and at random rational points
  (refutes "equivalent", bounds a maximum from below, checks every claimed point exactly);
* z3 over the reals (ReLU as ``If``): equivalence and the maximum of ``|a − b|``;
* exact brute force over activation patterns for tiny nets: every vertex of every pattern's
  closed polyhedron (a small exact LP by vertex enumeration), which gives ``max |a − b|`` exactly,
  and the set of activation patterns with an interior (regions) by exact strict feasibility.

Run by hand (``nice`` it: others measure timings)::

    nice -n 15 python -m tests.fuzz.bab_fuzz --seed 0 --count 40 [--subprocess] [--timeout 20]

It prints one line per finding and a table of cases run per kind.  ``tests/fuzz/test_bab_fuzz.py``
runs a bounded hypothesis sample of the same cases in the suite.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import itertools
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from fractions import Fraction as F

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# -------------------------------------------------------------------------------------------------
# networks: [(W rows, b)] of Fractions; the activation acts between layers, never after the last
# -------------------------------------------------------------------------------------------------


def evaluate(net, x):
    h = [F(v) for v in x]
    for k, (W, b) in enumerate(net):
        h = [sum((w * v for w, v in zip(row, h)), F(0)) + c for row, c in zip(W, b)]
        if k < len(net) - 1:
            h = [v if v > 0 else F(0) for v in h]
    return h


def deviation(a, b, x):
    """max_o |a_o(x) − b_o(x)| and the output attaining it."""
    ya, yb = evaluate(a, x), evaluate(b, x)
    devs = [abs(u - v) for u, v in zip(ya, yb)]
    o = max(range(len(devs)), key=devs.__getitem__)
    return devs[o], o


def widths(net):
    return [len(net[0][0][0]) if net[0][0] else 0] + [len(W) for W, _ in net]


def n_hidden(net):
    return sum(len(W) for W, _ in net[:-1])


def copy(net):
    return [([list(r) for r in W], list(b)) for W, b in net]


def to_json(net):
    def s(v):
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    return {"format": "netfibers.network", "version": 1, "activation": "relu",
            "layers": [{"weight": [[s(v) for v in r] for r in W], "bias": [s(v) for v in b]}
                       for W, b in net]}


def to_algebra(net):
    from algebra.network import Network
    from algebra.rationals import Q
    return Network.from_rows([[[Q(v.numerator, v.denominator) for v in r] for r in W] for W, _ in net],
                             [[Q(v.numerator, v.denominator) for v in b] for _, b in net])


# -------------------------------------------------------------------------------------------------
# random networks
# -------------------------------------------------------------------------------------------------
def _value(rng, style):
    if style == "wild":            # 0, small integers, 1e-6..1e-12, 12-digit numerators
        t = rng.random()
        if t < 0.2:
            return F(0)
        if t < 0.6:
            return F(rng.randint(-3, 3))
        if t < 0.85:
            return F(rng.choice([-1, 1]), 10 ** rng.randint(6, 12))
        return F(rng.randint(-10**12, 10**12), rng.randint(1, 10**6))
    if style == "f16tiny":         # float16 values near and below the normal range (subnormals)
        return F(float(np.float16(rng.gauss(0, 1) * 10 ** rng.choice([0, -4, -6, -7]))))
    if style == "rat":
        if rng.random() < 0.15:
            return F(0)
        return F(rng.randint(-4, 4), rng.choice([1, 1, 2, 3, 4]))
    g = rng.gauss(0, 1)
    return F(float(np.float16(g) if style == "f16" else np.float32(g)))


def random_net(rng, d, hidden, m, style):
    sizes = [d] + hidden + [m]
    net = []
    for l in range(len(sizes) - 1):
        W = [[_value(rng, style) for _ in range(sizes[l])] for _ in range(sizes[l + 1])]
        b = [_value(rng, style) for _ in range(sizes[l + 1])]
        if l < len(sizes) - 2 and rng.random() < 0.2:            # a zero row (zero bias half the time)
            i = rng.randrange(len(W))
            W[i] = [F(0)] * sizes[l]
            if rng.random() < 0.5:
                b[i] = F(0)
        if l < len(sizes) - 2 and len(W) > 1 and rng.random() < 0.2:   # duplicate / parallel row
            i, j = rng.sample(range(len(W)), 2)
            s = rng.choice([F(1), F(2), F(1, 2), F(-1)])
            W[j], b[j] = [s * v for v in W[i]], s * b[i]
        if rng.random() < 0.15:                                    # zero biases
            b = [F(0)] * len(b)
        net.append((W, b))
    return net


# -------------------------------------------------------------------------------------------------
# planted transforms (exact; the same function unless said otherwise)
# -------------------------------------------------------------------------------------------------
def permute(net, rng):
    net = copy(net)
    for l in range(len(net) - 1):
        W, b = net[l]
        p = list(range(len(W)))
        rng.shuffle(p)
        net[l] = ([W[i] for i in p], [b[i] for i in p])
        W2, b2 = net[l + 1]
        net[l + 1] = ([[r[i] for i in p] for r in W2], b2)
    return net


def scale(net, rng, float_factors=False):
    net = copy(net)
    for l in range(len(net) - 1):
        W, b = net[l]
        W2, _ = net[l + 1]
        for i in range(len(W)):
            s = F(float(np.float32(rng.uniform(0.1, 10)))) if float_factors else \
                F(rng.randint(1, 6), rng.randint(1, 6))
            W[i] = [s * v for v in W[i]]
            b[i] *= s
            for r in W2:
                r[i] /= s
    return net


def split(net, rng):
    net = copy(net)
    l = rng.randrange(len(net) - 1)
    W, b = net[l]
    W2, _ = net[l + 1]
    i = rng.randrange(len(W))
    s1, s2, t = F(rng.randint(1, 4), rng.randint(1, 4)), F(rng.randint(1, 4), rng.randint(1, 4)), F(rng.randint(1, 3), 4)
    W.append([s2 * v for v in W[i]])
    b.append(s2 * b[i])
    W[i] = [s1 * v for v in W[i]]
    b[i] *= s1
    for r in W2:
        c = r[i]
        r[i] = c * t / s1
        r.append(c * (1 - t) / s2)
    return net


def box_max(row, bias, dom):
    """max over the box of row . x + bias (None on an unbounded domain)."""
    if dom[0] != "box":
        return None
    return bias + sum((max(w * lo, w * hi) for w, (lo, hi) in zip(row, dom[1])), F(0))


def add_dead(net, rng, dom, mode):
    """zero: a zero row (zero or negative bias); negbias: a first-layer neuron with a negative
    bias never active on the domain (the box; on R^d a zero row with bias -1); zero_out: a random
    neuron with zero outgoing weights.  Outgoing weights random unless zero_out."""
    net = copy(net)
    l = 0 if mode == "negbias" else rng.randrange(len(net) - 1)
    W, b = net[l]
    W2, _ = net[l + 1]
    n_in = len(W[0])
    if mode == "zero":
        W.append([F(0)] * n_in)
        b.append(rng.choice([F(0), F(-1, 3)]))
    elif mode == "negbias":
        row = [F(rng.randint(-2, 2)) for _ in range(n_in)]
        mx = box_max(row, F(0), dom)
        if mx is None:
            if dom[0] == "orthant":
                row = [-abs(v) for v in row]
                b.append(F(-1, 7))
            else:
                row = [F(0)] * n_in
                b.append(F(-1, 7))
        else:
            b.append(-mx - F(1, 7))
        W.append(row)
    else:
        W.append([_value(rng, "rat") for _ in range(n_in)])
        b.append(_value(rng, "rat"))
    for r in W2:
        r.append(F(0) if mode == "zero_out" else _value(rng, "rat") or F(1))
    return net


def identity_layer(net, rng):
    """relu(h) − relu(−h) = h inserted after layer l (any l: the identity on every h)."""
    net = copy(net)
    l = rng.randrange(len(net) - 1)
    n = len(net[l][0])
    I = [[F(int(i == j)) for j in range(n)] for i in range(n)]
    W, b = net[l + 1]
    net[l + 1:l + 2] = [(I + [[-v for v in r] for r in I], [F(0)] * (2 * n)),
                        ([r + [-v for v in r] for r in W], b)]
    return net


def parallel_sum(a, g):
    """The network a + g (g has at most as many hidden layers as a; its hidden values are >= 0,
    so extra layers pass them on by relu(h) = h)."""
    a, g = copy(a), copy(g)
    while len(g) < len(a):          # insert identity layer before g's output layer
        n = len(g[-2][0]) if len(g) > 1 else None
        Wn = [[F(int(i == j)) for j in range(n)] for i in range(n)]
        g.insert(len(g) - 1, (Wn, [F(0)] * n))
    out = []
    for l, ((Wa, ba), (Wg, bg)) in enumerate(zip(a, g)):
        na, ng = len(Wa[0]), len(Wg[0])
        if l == 0:
            W = Wa + Wg
            b = ba + bg
        elif l < len(a) - 1:
            W = [r + [F(0)] * ng for r in Wa] + [[F(0)] * na + r for r in Wg]
            b = ba + bg
        else:
            W = [ra + rg for ra, rg in zip(Wa, Wg)]
            b = [u + v for u, v in zip(ba, bg)]
        out.append((W, b))
    return out


def point_in(dom, rng):
    if dom[0] == "box":
        return [lo + (hi - lo) * F(rng.randint(1, 7), 8) for lo, hi in dom[1]]
    if dom[0] == "orthant":
        return [F(rng.randint(0, 8), 4) for _ in range(dom[1])]
    return [F(rng.randint(-8, 8), 4) for _ in range(dom[1])]


def bump(d, m, rng, dom, depth, r=F(1, 10**6)):
    """A network g >= 0, zero outside a tiny set around a point c of the domain, of height w·r:
    with two hidden layers, relu(r − Σ|x_i − c_i|) (an L1 ball of radius r); with one,
    relu(u·(x − c) + r) − relu(u·(x − c)) ... restricted: one hidden layer gives a neuron that
    switches on only within r of a face of the box (u·x > max − r)."""
    c = point_in(dom, rng)
    w = F(rng.choice([1, 2, -3]))
    if depth >= 3:
        W1, b1 = [], []
        for i in range(d):
            e = [F(int(j == i)) for j in range(d)]
            W1 += [e, [-v for v in e]]
            b1 += [-c[i], c[i]]
        return [(W1, b1), ([[F(-1)] * (2 * d)], [r]), ([[w] for _ in range(m)], [F(0)] * m)]
    u = [F(rng.choice([-1, 1])) for _ in range(d)]
    mx = box_max(u, F(0), dom)
    if mx is None:
        mx = sum((ui * ci for ui, ci in zip(u, c)), F(0))
    return [([u], [-mx + r]), ([[w] for _ in range(m)], [F(0)] * m)]


def outside(d, m, dom, gap=F(1)):
    """g = relu(x_0 − hi_0 − gap) (zero on the box, grows outside it)."""
    hi = dom[1][0][1] if dom[0] == "box" else F(0)
    return [([[F(1)] + [F(0)] * (d - 1)], [-hi - gap]), ([[F(1)] for _ in range(m)], [F(0)] * m)]


def ramp(d, m, bounded):
    """relu(x_0) (unbounded on the orthant) or relu(x_0) − relu(x_0 − 1) (bounded by 1)."""
    e = [F(1)] + [F(0)] * (d - 1)
    if bounded:
        return [([e, e], [F(0), F(-1)]), ([[F(1), F(-1)] for _ in range(m)], [F(0)] * m)]
    return [([e], [F(0)]), ([[F(1)] for _ in range(m)], [F(0)] * m)]


def nudge(net, rng, what):
    net = copy(net)
    l = rng.randrange(len(net))
    W, b = net[l]
    i = rng.randrange(len(W))
    if what == "weight":
        j = rng.randrange(len(W[i]))
        W[i][j] += F(1, 10**9)
    else:
        b[i] += F(1, 10**6)
    return net


def f32_round(net):
    return [([[F(float(np.float32(float(v)))) for v in r] for r in W], [F(float(np.float32(float(v)))) for v in b])
            for W, b in net]


KINDS = ["identical", "permuted", "scaled", "scaled_float", "split", "dead_zero", "dead_negbias",
         "dead_zero_out", "identity_layer", "dup_rows", "weight_1e-9", "bias_1e-6", "bump_1e-6",
         "outside_box", "outside_touch", "corner_bump", "ball_on_kink", "antiparallel", "constant", "orthant_unbounded", "orthant_bounded", "float32_rounded"]
EQUIVALENT_ON_R = {"identical", "permuted", "scaled", "scaled_float", "split", "dead_zero", "dead_zero_out",
                   "identity_layer", "dup_rows"}


def make_case(seed, kind=None, small=False, large=False):
    """(kind, a, b, dom, style) for *seed*; dom is ('box', [(lo, hi)]*d) / ('orthant', d) / ('R', d).
    *small*: d <= 2 and at most 4 hidden neurons per layer (the suite's sample)."""
    rng = random.Random(seed)
    kind = kind or rng.choice(KINDS)
    d = rng.randint(1, 4)
    nh = rng.choice([1, 1, 2, 2, 3])
    hidden = [rng.randint(1, 8 if nh == 1 else 5 if nh == 2 else 3) for _ in range(nh)]
    if small:
        d, hidden = min(d, 2), [min(h, 4) for h in hidden[:2]]
    if large:       # where branch and bound branches: 2-4 inputs, two hidden layers of 5-8
        d, hidden = rng.randint(2, 4), [rng.randint(5, 8), rng.randint(5, 8)]
    m = rng.choice([1, 1, 2])
    style = rng.choice(["rat", "rat", "f32", "f16", "wild", "f16tiny"])
    a = random_net(rng, d, hidden, m, style)
    if kind.startswith("orthant"):
        dom = ("orthant", d)
    elif kind in ("dead_negbias", "outside_box", "outside_touch", "corner_bump") or rng.random() < 0.8:
        lo = F(rng.randint(-4, 0), rng.choice([1, 2]))
        hi = lo + F(rng.randint(1, 6), rng.choice([1, 2, 4]))
        dom = ("box", [(lo, hi)] * d)
        if rng.random() < 0.3:        # per-coordinate intervals (equiv reads them on the cube, R36)
            dom = ("box", [(lo - i, hi + F(i, 3)) for i in range(d)])
    else:
        dom = ("R", d)
    if kind == "identical":
        b = copy(a)
    elif kind == "permuted":
        b = permute(a, rng)
    elif kind == "scaled":
        b = permute(scale(a, rng), rng)
    elif kind == "scaled_float":
        b = scale(a, rng, float_factors=True)
    elif kind == "split":
        b = permute(split(a, rng), rng)
    elif kind.startswith("dead"):
        b = permute(add_dead(a, rng, dom, kind[5:]), rng)
    elif kind == "identity_layer":
        b = identity_layer(a, rng)
    elif kind == "dup_rows":       # a gets duplicate and parallel rows, b the merged version's copy
        a = split(split(a, rng), rng)
        b = scale(permute(a, rng), rng)
    elif kind == "weight_1e-9":
        b = nudge(a, rng, "weight")
    elif kind == "bias_1e-6":
        b = nudge(a, rng, "bias")
    elif kind == "bump_1e-6":
        if dom[0] != "box":
            dom = ("box", [(F(-1), F(1))] * d)
        b = permute(parallel_sum(a, bump(d, m, rng, dom, len(a))), rng)
    elif kind == "ball_on_kink":      # a box of radius 1e-6 around a point of a first-layer kink
        W, bb = a[0]
        i = next((i for i, r in enumerate(W) if any(r)), None)
        x = [F(rng.randint(-4, 4), 2) for _ in range(d)]
        if i is not None:
            j = next(j for j, v in enumerate(W[i]) if v)
            x[j] -= (sum((w * v for w, v in zip(W[i], x)), F(0)) + bb[i]) / W[i][j]
        r = F(1, 10**6)
        dom = ("box", [(v - r, v + r) for v in x])
        b = nudge(permute(a, rng), rng, rng.choice(["weight", "bias"])) if rng.random() < 0.5 else permute(a, rng)
    elif kind == "antiparallel":      # rows w and −w (|w.x + b| pieces), b: scaled copy, one weight 1e-9 off
        W, bb = a[0]
        i = rng.randrange(len(W))
        W.append([-v for v in W[i]])
        bb.append(-bb[i])
        for r in a[1][0]:
            r.append(_value(rng, "rat"))
        b = scale(permute(a, rng), rng)
        if rng.random() < 0.5:
            b = nudge(b, rng, "weight")
    elif kind == "constant":          # a hidden layer of zero rows: a constant; b the same or 1e-6 off
        l = rng.randrange(len(a) - 1)
        a[l] = ([[F(0)] * len(r) for r in a[l][0]], [F(rng.choice([0, 0, 1, -1]))] * len(a[l][1]))
        b = permute(a, rng) if rng.random() < 0.5 else nudge(a, rng, "bias")
    elif kind == "outside_box":
        b = parallel_sum(a, outside(d, m, dom))
    elif kind == "outside_touch":     # relu(x_0 − hi): zero on the closed box, > 0 just outside
        b = parallel_sum(a, outside(d, m, dom, F(0)))
    elif kind == "corner_bump":       # a neuron on only within 1e-6 (L1) of a corner of the box
        u = [F(rng.choice([-1, 1])) for _ in range(d)]
        g = [([u], [-box_max(u, F(0), dom) + F(1, 10**6)]), ([[F(rng.choice([1, -2]))] for _ in range(m)], [F(0)] * m)]
        b = permute(parallel_sum(a, g), rng)
    elif kind == "orthant_unbounded":
        b = parallel_sum(a, ramp(d, m, False))
    elif kind == "orthant_bounded":
        b = parallel_sum(a, ramp(d, m, True))
    elif kind == "float32_rounded":
        b = f32_round(scale(a, rng, float_factors=True))
    else:
        raise ValueError(kind)
    return kind, a, b, dom, style


# -------------------------------------------------------------------------------------------------
# writing files (the readers must give back exactly these rationals)
# -------------------------------------------------------------------------------------------------
def _fits(net, dtype):
    def fits(v):
        with np.errstate(over="ignore"):
            f = float(dtype(float(v)))
        return np.isfinite(f) and F(f) == v
    return all(fits(v) for W, b in net for r in W + [b] for v in r)


def save(net, path_stem, fmt):
    """Write *net* as *fmt* (json, npz16, npz32, pt, safetensors, nnet); returns the path (JSON
    when the weights do not fit the format's dtype exactly)."""
    if fmt in ("npz16",) and not _fits(net, np.float16):
        fmt = "json"
    if fmt in ("npz32", "pt", "safetensors") and not _fits(net, np.float32):
        fmt = "json"
    if fmt == "nnet" and not all(v.denominator & (v.denominator - 1) == 0 for W, b in net for r in W + [b] for v in r):
        fmt = "json"
    if fmt == "json":
        p = path_stem + ".json"
        with open(p, "w") as f:
            json.dump(to_json(net), f)
        return p
    arrays = {}
    dt = np.float16 if fmt == "npz16" else np.float32
    for k, (W, b) in enumerate(net):
        arrays[k] = (np.array([[float(v) for v in r] for r in W], dtype=dt).reshape(len(W), -1),
                     np.array([float(v) for v in b], dtype=dt))
    if fmt.startswith("npz"):
        p = path_stem + ".npz"
        np.savez(p, **{f"{n}{k + 1}": a for k, (W, b) in arrays.items() for n, a in (("W", W), ("b", b))})
        return p
    if fmt == "pt":
        import torch
        p = path_stem + ".pt"
        torch.save({f"{2 * k}.{n}": torch.from_numpy(a) for k, (W, b) in arrays.items()
                    for n, a in (("weight", W), ("bias", b))}, p)
        return p
    if fmt == "safetensors":
        from safetensors.numpy import save_file
        p = path_stem + ".safetensors"
        save_file({f"fc{k + 1}.{n}": a for k, (W, b) in arrays.items() for n, a in (("weight", W), ("bias", b))}, p)
        return p
    # nnet: exact decimals (dyadic rationals have finite decimal expansions), no normalisation
    p = path_stem + ".nnet"
    sizes = widths(net)
    def dec(v):                # p / 2^k = p·5^k / 10^k, exactly (Decimal division would round)
        k = v.denominator.bit_length() - 1
        n = abs(v.numerator) * 5 ** k
        txt = str(n).rjust(k + 1, "0")
        return ("-" if v < 0 else "") + (txt[:-k] + "." + txt[-k:] if k else txt)
    lines = ["// fuzz", f"{len(net)},{sizes[0]},{sizes[-1]},{max(sizes)},", ",".join(map(str, sizes)) + ",", "0,",
             ",".join(["-1000"] * sizes[0]) + ",", ",".join(["1000"] * sizes[0]) + ",",
             ",".join(["0"] * (sizes[0] + 1)) + ",", ",".join(["1"] * (sizes[0] + 1)) + ","]
    for W, b in net:
        lines += [",".join(dec(v) for v in r) + "," for r in W] + [dec(v) + "," for v in b]
    with open(p, "w") as f:
        f.write("\n".join(lines) + "\n")
    return p


# -------------------------------------------------------------------------------------------------
# oracles
# -------------------------------------------------------------------------------------------------
def sample_points(dom, rng, k=40):
    d = dom[1] if dom[0] not in ("box", "poly") else len(dom[1])
    pts = []
    if dom[0] == "poly":                 # box ∩ half-spaces: the box's points inside them
        return [x for x in sample_points(("box", dom[1]), rng, 3 * k) if _in_halfspaces(dom[2], x)]
    if dom[0] == "box":
        g = 4 if d <= 2 else 2
        for idx in itertools.product(range(g + 1), repeat=d):
            pts.append([lo + (hi - lo) * F(i, g) for i, (lo, hi) in zip(idx, dom[1])])
        for _ in range(k):
            pts.append([lo + (hi - lo) * F(rng.randint(0, 10**6), 10**6) for lo, hi in dom[1]])
    else:
        for _ in range(k):
            pts.append([F(rng.randint(0 if dom[0] == "orthant" else -10**6, 10**6), rng.choice([10**5, 10**3, 10]))
                        for _ in range(d)])
    return pts


def _affine_layers(net, pattern_bits):
    """Per pattern: the constraints (sign, row, const) meaning sign * (row . x + const) >= 0 and the
    output affine maps, computed layer by layer (the pattern over every hidden neuron)."""
    d = len(net[0][0][0])
    # current h as affine maps of x: list of (coeffs, const)
    h = [([F(int(i == j)) for j in range(d)], F(0)) for i in range(d)]
    cons, k = [], 0
    for l, (W, b) in enumerate(net):
        z = []
        for row, c in zip(W, b):
            co = [sum((w * hv[0][j] for w, hv in zip(row, h)), F(0)) for j in range(d)]
            cc = c + sum((w * hv[1] for w, hv in zip(row, h)), F(0))
            z.append((co, cc))
        if l == len(net) - 1:
            return cons, z
        nh = []
        for co, cc in z:
            on = pattern_bits[k]
            k += 1
            cons.append((1 if on else -1, co, cc))
            nh.append((co, cc) if on else ([F(0)] * d, F(0)))
        h = nh


def _solve(A, y):
    """Exact Gaussian elimination; None when singular."""
    n = len(A)
    M = [list(r) + [v] for r, v in zip(A, y)]
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return None
        M[c], M[p] = M[p], M[c]
        for r in range(n):
            if r != c and M[r][c] != 0:
                f = M[r][c] / M[c][c]
                M[r] = [u - f * v for u, v in zip(M[r], M[c])]
    return [M[i][n] / M[i][i] for i in range(n)]


def brute_force_max(a, b, box, limit=30000):
    """Exact max over the box of max_o |a_o − b_o|: the vertices of every activation pattern's
    closed polyhedron (a pattern's affine map is the network's value on its closure), or None
    when there are more than *limit* pattern × vertex-candidate combinations."""
    na, nb = n_hidden(a), n_hidden(b)
    d = len(box)
    N = na + nb
    m_cons = N + 2 * d
    n_sub = 1
    for i in range(d):
        n_sub = n_sub * (m_cons - i) // (i + 1)
    if (2 ** N) * n_sub > limit:
        return None
    box_cons = [(1, e, -lo) for j, (lo, hi) in enumerate(box) for e in [[F(int(i == j)) for i in range(d)]]] + \
               [(1, [-v for v in e], hi) for j, (lo, hi) in enumerate(box) for e in [[F(int(i == j)) for i in range(d)]]]
    best = F(0)
    for bits in itertools.product((0, 1), repeat=N):
        ca, outa = _affine_layers(a, bits[:na])
        cb, outb = _affine_layers(b, bits[na:])
        cons = [(s, co, cc) for s, co, cc in ca + cb] + box_cons
        forms = [([s * v for v in co], s * cc) for s, co, cc in cons]      # form(x) >= 0
        for sub in itertools.combinations(range(len(forms)), d):
            x = _solve([forms[i][0] for i in sub], [-forms[i][1] for i in sub])
            if x is None:
                continue
            if any(sum((u * v for u, v in zip(co, x)), F(0)) + cc < 0 for co, cc in forms):
                continue
            for (pa, qa), (pb, qb) in zip(outa, outb):
                v = abs(sum(((u - w) * xi for u, w, xi in zip(pa, pb, x)), F(0)) + qa - qb)
                if v > best:
                    best = v
    return best


def _z3_outputs(z3, net, xs):
    h = xs
    for l, (W, b) in enumerate(net):
        z = [z3.Sum([z3.RealVal(str(c))] + [z3.RealVal(str(w)) * v for w, v in zip(row, h) if w != 0])
             for row, c in zip(W, b)]
        h = z if l == len(net) - 1 else [z3.If(v > 0, v, z3.RealVal(0)) for v in z]
    return h


def _in_halfspaces(hs, x):
    return all(sum((a * v for a, v in zip(w, x)), F(0)) <= c for w, c in hs)


def poly_domain(rng, box, workdir):
    """``("poly", box, halfspaces, path)``: *box* cut by one or two half-spaces ``w·x <= c``
    through random points of it (a JSON domain file at *path*, as users write it)."""
    d = len(box)
    hs = []
    for _ in range(rng.randint(1, 2)):
        w = [F(rng.randint(-3, 3)) for _ in range(d)]
        if not any(w):
            w[0] = F(1)
        p = [lo + (hi - lo) * F(rng.randint(1, 9), 10) for lo, hi in box]
        hs.append((w, sum((a * v for a, v in zip(w, p)), F(0))))
    path = os.path.join(workdir, "poly.json")
    with open(path, "w") as f:
        json.dump({"box": [[str(lo), str(hi)] for lo, hi in box],
                   "halfspaces": [{"a": [str(v) for v in w], "b": str(c)} for w, c in hs]}, f)
    return ("poly", box, hs, path)


def _z3_domain(z3, xs, dom):
    if dom[0] == "poly":
        return _z3_domain(z3, xs, ("box", dom[1])) + [
            z3.Sum([z3.RealVal(str(a)) * x for a, x in zip(w, xs)]) <= z3.RealVal(str(c)) for w, c in dom[2]]
    if dom[0] == "box":
        return [c for x, (lo, hi) in zip(xs, dom[1]) for c in (x >= z3.RealVal(str(lo)), x <= z3.RealVal(str(hi)))]
    if dom[0] == "orthant":
        return [x >= 0 for x in xs]
    return []


def z3_differ(a, b, dom, threshold=F(0), timeout_ms=20000):
    """True (a point with max_o |a_o − b_o| > threshold exists on the domain), False (none), or
    None (z3 unknown / timeout).  threshold 0: a and b differ somewhere."""
    import z3
    d = dom[1] if dom[0] not in ("box", "poly") else len(dom[1])
    xs = [z3.Real(f"x{i}") for i in range(d)]
    s = z3.Solver()
    s.set("timeout", timeout_ms)
    s.add(*_z3_domain(z3, xs, dom))
    t = z3.RealVal(str(threshold))
    s.add(z3.Or([z3.Or(p - q > t, q - p > t) for p, q in zip(_z3_outputs(z3, a, xs), _z3_outputs(z3, b, xs))]))
    r = s.check()
    return True if r == z3.sat else False if r == z3.unsat else None


def z3_max(a, b, box, timeout_ms=20000):
    """Exact max over the box of max_o |a_o − b_o| by z3's optimizer, or None (unknown)."""
    import z3
    xs = [z3.Real(f"x{i}") for i in range(len(box))]
    o = z3.Optimize()
    o.set("timeout", timeout_ms)
    o.add(*_z3_domain(z3, xs, ("box", box)))
    t = z3.Real("t")
    ya, yb = _z3_outputs(z3, a, xs), _z3_outputs(z3, b, xs)
    o.add(z3.Or([t == p - q for p, q in zip(ya, yb)] + [t == q - p for p, q in zip(ya, yb)]))
    h = o.maximize(t)
    if o.check() != z3.sat:
        return None
    v = o.upper(h)
    try:
        r = F(str(v))                    # an exact rational optimum ("1/2"; not "oo", "epsilon")
    except ValueError:
        return None
    return r if o.lower(h).eq(v) else None


def regions_oracle(net, box):
    """The set of activation patterns with an interior in the box (a neuron whose pre-activation
    is the zero affine map on the pattern's set counts as off), by exact strict feasibility (z3's
    linear real arithmetic); None when too large."""
    import z3
    N, d = n_hidden(net), len(box)
    if N > 9:
        return None
    out = set()
    xs = [z3.Real(f"x{i}") for i in range(d)]
    for bits in itertools.product((0, 1), repeat=N):
        cons, _ = _affine_layers(net, bits)
        s = z3.Solver()
        s.set("timeout", 5000)
        for x, (lo, hi) in zip(xs, box):
            s.add(x > z3.RealVal(str(lo)), x < z3.RealVal(str(hi)))
        ok = True
        for (sg, co, cc), bit in zip(cons, bits):
            if all(v == 0 for v in co) and cc == 0:
                if bit:
                    ok = False
                    break
                continue
            e = z3.Sum([z3.RealVal(str(cc))] + [z3.RealVal(str(v)) * x for v, x in zip(co, xs) if v != 0])
            s.add(e > 0 if sg > 0 else e < 0)
        if ok:
            r = s.check()
            if r == z3.unknown:
                return None
            if r == z3.sat:
                out.add(bits)
    return out


# -------------------------------------------------------------------------------------------------
# running the CLI
# -------------------------------------------------------------------------------------------------
STARTUP_MARK = "netfibers-startup-done"      # semialgebraic.cli.STARTUP_MARK (not imported:
                                            # the subprocess mode imports no netfibers code)


def split_startup_mark(err):
    """``(stderr without the start-up mark line, its wall time or None, its CPU time or None)``:
    the line ``netfibers-startup-done <t> <c>`` that the CLI prints with
    ``NETFIBERS_STARTUP_MARK=1`` once its imports are done, just before the command runs (*t*:
    its ``time.monotonic()``, *c*: its ``time.process_time()``, the CPU of start-up).

    >>> split_startup_mark("netfibers-startup-done 12.500000 2.25\\nnetfibers: error: x\\n")
    ('netfibers: error: x\\n', 12.5, 2.25)
    >>> split_startup_mark("hang")
    ('hang', None, None)
    """
    for line in err.splitlines(keepends=True):
        words = line.split()
        if words[:1] == [STARTUP_MARK] and len(words) in (2, 3):
            try:
                times = [float(w) for w in words[1:]]
            except ValueError:
                continue
            return err.replace(line, "", 1), times[0], (times[1] if len(times) > 1 else None)
    return err, None, None


def overrun(total, after, timeout, slack, cpu=None, past=None):
    """The finding's text when a command with ``--timeout`` *timeout* ran past its allowance
    after start-up, else None.  *after*: wall seconds after start-up (None when unknown: then
    *total*, the whole run); *cpu*: its CPU seconds after start-up; *past*: its CPU seconds
    after the deadline 1.05·T (all None when unknown).

    The allowance is 1.05·T + 2 s + *slack* of wall clock.  A run past it is an overrun when it
    *worked* past the deadline: more than 2 s + *slack* of CPU after it (*past*; on a loaded
    machine or under ``nice`` the same work takes longer on the wall clock, and that is not the
    budget's fault).  Without *past*, 2 s + *slack* is divided by the share of a CPU the command
    had (*cpu* / *after*), else the wall clock decides.  (An idle hang does no work: the
    subprocess mode's own timeout and ``budget.ctrl_c``'s watchdog are there for it.)  The
    text gives both times, the share and the CPU after the deadline.

    >>> overrun(8.0, 5.5, 4, 0.5) is None          # 5.5 <= 1.05 * 4 + 2 + 0.5 = 6.7
    True
    >>> overrun(9.0, 7.0, 4, 0.5)
    '7.0 s after start-up (9.0 s in all) past --timeout 4 (allowed 1.05·T + 2 s + 0.5 s slack = 6.7 s)'
    >>> overrun(9.0, 7.0, 4, 0.5, cpu=3.5) is None  # half a CPU: 1.05 * 4 + 2.5 / 0.5 = 9.2
    True
    >>> overrun(30.0, 28.0, 4, 0.5, cpu=14.0)
    '28.0 s after start-up (30.0 s in all, 50% of a CPU) past --timeout 4 (allowed 1.05·T + (2 s + 0.5 s slack) / 0.50 = 9.2 s)'
    >>> overrun(30.0, 28.0, 4, 0.5, cpu=14.0, past=1.5) is None      # 1.5 CPU s after 4.2 s
    True
    >>> overrun(30.0, 28.0, 4, 0.5, cpu=27.0, past=23.0)
    '28.0 s after start-up (30.0 s in all, 96% of a CPU, 23.0 CPU s after the deadline) past --timeout 4 (allowed 1.05·T + 2 s + 0.5 s slack = 6.7 s, and 2.5 CPU s after the deadline)'
    """
    T = float(timeout)
    limit = 1.05 * T + 2 + slack
    took = total if after is None else after
    if took <= limit:
        return None
    share = None if cpu is None or took <= 0 else max(0.05, min(1.0, cpu / took))
    rule = f"1.05·T + 2 s + {slack:g} s slack"
    if past is not None:
        if past <= 2 + slack:
            return None
        rule += f" = {limit:.1f} s, and {2 + slack:g} CPU s after the deadline"
    elif share is not None and share < 1:
        limit = 1.05 * T + (2 + slack) / share
        if took <= limit:
            return None
        rule = f"1.05·T + (2 s + {slack:g} s slack) / {share:.2f} = {limit:.1f} s"
    else:
        rule += f" = {limit:.1f} s"
    load = ("" if share is None else f", {share:.0%} of a CPU") + \
        ("" if past is None else f", {past:.1f} CPU s after the deadline")
    when = f"{total:.1f} s in all (start-up not marked{load})" if after is None else \
        f"{after:.1f} s after start-up ({total:.1f} s in all{load})"
    return f"{when} past --timeout {timeout} (allowed {rule})"


class Runner:
    """Runs ``netfibers *argv``: in this process, or (*subprocess_mode*) as a subprocess whose
    time after start-up is read from the CLI's start-up mark (``NETFIBERS_STARTUP_MARK=1``).
    A call returns ``(exit code, stdout, stderr, seconds in all)`` and sets ``self.after``,
    ``self.cpu`` and ``self.past``: the wall and CPU seconds after start-up (in-process: the
    whole call) and the CPU seconds after the deadline 1.05·T of its ``--timeout T`` (0 when
    it ended before; None when unknown: no mark, no ``--timeout``, no ``/proc``)."""

    def __init__(self, subprocess_mode, timeout, slack=None):
        self.subprocess_mode = subprocess_mode
        self.timeout = timeout
        self.after = self.cpu = self.past = None
        # in-process: the certificate re-check and the oracle's reading; as subprocesses only
        # the load of a shared machine (start-up is not counted)
        self.slack = slack if slack is not None else 1.0 if subprocess_mode else 3.0

    def __call__(self, *argv):
        argv = [str(v) for v in argv]
        self.after = self.cpu = self.past = None
        T = float(argv[argv.index("--timeout") + 1]) if "--timeout" in argv[:-1] else None
        if self.subprocess_mode:
            return self._subprocess(argv, T)
        from semialgebraic.cli import main
        out, err = io.StringIO(), io.StringIO()
        t0, cpu0 = time.perf_counter(), time.process_time()
        at_deadline = []                     # this process's CPU at the deadline 1.05·T
        timer = None
        if T is not None:
            timer = threading.Timer(1.05 * T, lambda: at_deadline.append(time.process_time()))
            timer.daemon = True
            timer.start()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:
                code = e.code
        dt, cpu = time.perf_counter() - t0, time.process_time()
        if timer is not None:
            timer.cancel()
            self.past = cpu - at_deadline[0] if at_deadline else 0.0 if dt < 1.05 * T else None
        self.after, self.cpu = dt, cpu - cpu0
        return code, out.getvalue(), split_startup_mark(err.getvalue())[0], dt

    def _subprocess(self, argv, T):
        env = dict(os.environ, PYTHONPATH=ROOT, NETFIBERS_STARTUP_MARK="1")
        wait = 3 * (T or self.timeout) + 30
        t0, cpu0 = time.perf_counter(), _children_cpu()
        p = subprocess.Popen([sys.executable, "-m", "semialgebraic.cli", *argv], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
        got, marked = {"err": [], "out": ""}, threading.Event()

        def read_err():                      # the mark as it comes (the deadline is read from it)
            for line in p.stderr:
                got["err"].append(line)
                if not marked.is_set() and line.startswith(STARTUP_MARK):
                    got["mark"] = split_startup_mark(line)[1]
                    marked.set()
            marked.set()
        readers = [threading.Thread(target=read_err, daemon=True),
                   threading.Thread(target=lambda: got.__setitem__("out", p.stdout.read()), daemon=True)]
        for r in readers:
            r.start()
        at_deadline, early = None, False
        try:
            marked.wait(wait)
            if T is not None and got.get("mark") is not None:
                try:                         # the child's CPU at the deadline 1.05·T
                    p.wait(timeout=max(0.0, got["mark"] + 1.05 * T - time.monotonic()))
                    early = True
                except subprocess.TimeoutExpired:
                    at_deadline = _proc_cpu(p.pid)
            p.wait(timeout=max(0.0, t0 + wait - time.perf_counter()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return 99, "", "hang", time.perf_counter() - t0
        end, cpu = time.monotonic(), _children_cpu() - cpu0
        for r in readers:
            r.join()
        err, mark, mark_cpu = split_startup_mark("".join(got["err"]))
        if mark is not None and mark <= end:
            self.after = end - mark
            self.cpu = None if mark_cpu is None else max(0.0, cpu - mark_cpu)
            self.past = 0.0 if early else None if at_deadline is None else max(0.0, cpu - at_deadline)
        return p.returncode, got["out"], err, time.perf_counter() - t0


def _proc_cpu(pid):
    """CPU seconds (user + system) the running process *pid* has used so far (``/proc``), or
    None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _children_cpu():
    """CPU seconds (user + system) of this process's finished children."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _box_arg(dom):
    lo, hi = dom[1][0]
    if all(iv == dom[1][0] for iv in dom[1]):
        return f"{lo},{hi}"
    return ",".join(f"{lo}:{hi}" for lo, hi in dom[1])


def _dom_args(dom):
    if dom[0] == "poly":
        return ["--box", dom[3]]
    if dom[0] == "box":
        return ["--box", _box_arg(dom)]
    if dom[0] == "orthant":
        return ["--orthant"]
    return []


def _ball(dom):
    """An L-infinity ball (centre, radius) of a box domain, or None when the box is not a cube."""
    (lo, hi) = dom[1][0]
    return [(lo + hi) / 2] * len(dom[1]), (hi - lo) / 2


def _q(s):
    return F(str(s))


class Case:
    def __init__(self, seed, kind=None, runner=None, workdir=None, rng_formats=True, api=True, small=False,
                 large=False):
        self.seed = seed
        self.kind, self.a, self.b, self.dom, self.style = make_case(seed, kind, small, large)
        self.rng = random.Random(seed * 7919 + 1)
        self.run = runner
        self.workdir = workdir
        self.findings = []
        self.calls = Counter()
        self.times = Counter()
        self.api = api
        fmts = ["json", "npz32", "npz16", "pt", "safetensors", "nnet"] if rng_formats else ["json"]
        self.pa = save(self.a, os.path.join(workdir, "a"), self.rng.choice(fmts))
        self.pb = save(self.b, os.path.join(workdir, "b"), self.rng.choice(fmts))

    def find(self, what, cmd=None):
        self.findings.append((self.kind, self.seed, what, cmd))

    # the truth ---------------------------------------------------------------------------------
    def truth_equal(self, dom):
        """True / False / None: a == b on the domain (sampling, then z3)."""
        for x in sample_points(dom, self.rng, 30):
            if deviation(self.a, self.b, x)[0] != 0:
                return False
        return None if (r := z3_differ(self.a, self.b, dom)) is None else not r

    def truth_max(self, dom):
        """Exact max |a − b| on a box domain (brute force, else z3 bisection is not attempted:
        None), and the best sampled lower bound."""
        low = max(deviation(self.a, self.b, x)[0] for x in sample_points(dom, self.rng, 60))
        t = time.perf_counter()
        exact = brute_force_max(self.a, self.b, dom[1]) if dom[0] == "box" and len(dom[1]) <= 3 else None
        self.times["oracle brute force"] += time.perf_counter() - t
        how = "brute force"
        if exact is None and dom[0] == "box":
            t = time.perf_counter()
            exact, how = z3_max(self.a, self.b, dom[1]), "z3 optimize"
            self.times["oracle z3 max"] += time.perf_counter() - t
        self.calls[f"oracle exact max by {how}" if exact is not None else "oracle no exact max"] += 1
        if exact is not None and exact < low:
            self.find(f"ORACLE disagreement: brute force {exact} < sampled {low}")
        return exact, low

    # the checks --------------------------------------------------------------------------------
    def _json(self, name, *argv, timeout=None):
        tmo = timeout or self.run.timeout
        argv = list(argv) + ["--json", "--timeout", tmo]
        code, out, err, dt = self.run(*argv)
        self.calls[name] += 1
        self.times[name] += dt
        self.calls[f"{name} exit {code}"] += 1
        cmd = "netfibers " + " ".join(map(str, argv))
        after, cpu, past = (getattr(self.run, k, None) for k in ("after", "cpu", "past"))
        late = overrun(dt, after, tmo, self.run.slack, cpu, past)
        if late:
            self.find(f"{name}: {late}", cmd)
        elif overrun(dt, after, tmo, self.run.slack):       # late on the wall clock only (load)
            self.calls[f"{name} late, without work past the deadline"] += 1
        return self._parsed(name, code, out, err, cmd)

    def _parsed(self, name, code, out, err, cmd):
        """``(code, the JSON on stdout or None, cmd)``; a finding for an exit other than 0, 1, 3
        or stdout that is not JSON."""
        if code not in (0, 1, 3):
            self.find(f"{name}: exit {code}: {err.strip()[-300:]}", cmd)
            return code, None, cmd
        try:
            return code, json.loads(out), cmd
        except ValueError:
            self.find(f"{name}: no JSON on stdout ({out[:200]!r})", cmd)
            return code, None, cmd

    def verify(self, name, cert, cmd):
        code, out, err, _ = self.run("verify", cert, self.pa, self.pb)
        self.calls["verify"] += 1
        if code != 0:
            self.find(f"{name}: verify rejects its certificate (exit {code}): {(out + err).strip()[-300:]}", cmd)

    def check_equiv(self, dom, method="auto"):
        cert = os.path.join(self.workdir, f"cert_eq_{method}_{dom[0]}.json")
        argv = ["equiv", self.pa, self.pb, "--method", method, *_dom_args(dom), "--certificate", cert]
        code, js, cmd = self._json(f"equiv[{method},{dom[0]}]", *argv)
        if js is None:
            return None
        ans = js.get("answer")
        if code == 3 or ans is None:
            return None
        t = time.perf_counter()
        truth = self.truth_equal(dom)
        self.times["oracle equal"] += time.perf_counter() - t
        self.calls[f"equiv answer {ans} oracle {truth}"] += 1
        if ans is True and truth is False:
            self.find(f"UNSOUND equiv[{method},{dom[0]}]: 'equivalent' but a and b differ", cmd)
        if ans is False:
            x = self._cex_point(js)
            if x is None or deviation(self.a, self.b, x)[0] == 0 or not self._in(dom, x):
                self.find(f"equiv[{method},{dom[0]}]: 'not equivalent' with a bad counterexample {x}", cmd)
        if ans is not None and truth is not None and ans != truth:
            self.find(f"equiv[{method},{dom[0]}] answered {ans}, oracle {truth}", cmd)
        if os.path.exists(cert):
            self.verify(f"equiv[{method},{dom[0]}]", cert, cmd)
        elif ans is not None:
            self.find(f"equiv[{method},{dom[0]}]: decided but no certificate written", cmd)
        return ans

    def _cex_point(self, js):
        c = js.get("counterexample") or {}
        x = c.get("x") or c.get("point") or js.get("x") or js.get("point")
        if x is None and isinstance(js.get("certificate"), dict):
            x = js["certificate"].get("x") or js["certificate"].get("point")
        return None if x is None else [_q(v) for v in x]

    def _in(self, dom, x):
        if dom[0] == "poly":
            return self._in(("box", dom[1]), x) and _in_halfspaces(dom[2], x)
        if dom[0] == "box":
            return all(lo <= v <= hi for v, (lo, hi) in zip(x, dom[1]))
        if dom[0] == "orthant":
            return all(v >= 0 for v in x)
        return True

    def check_diff(self, dom, ball=False, exact=None, low=F(0), method="bab"):
        cert = os.path.join(self.workdir, f"cert_diff_{dom[0]}_{int(ball)}_{method}.json")
        if ball:
            c, r = _ball(dom)
            dargs = ["--ball", ",".join(map(str, c + [r]))]
        else:
            dargs = _dom_args(dom)
        cargs = ["--certificate", cert] if method == "bab" else []
        code, js, cmd = self._json(f"diff {method}", "diff", self.pa, self.pb, *dargs, "--method", method, *cargs)
        if js is None:
            return None
        lo_s, up_s = js.get("lower"), js.get("upper")
        lower = _q(lo_s) if lo_s not in (None, "inf") else None
        upper = None if up_s in (None, "inf") else _q(up_s)
        if up_s == "inf":
            if dom[0] == "box":
                self.find("diff: +inf on a box", cmd)
            if self.kind == "orthant_bounded" or (dom[0] == "orthant" and self.kind in EQUIVALENT_ON_R):
                self.find("UNSOUND diff: +inf where |a - b| is bounded", cmd)
            elif z3_differ(self.a, self.b, dom, F(10**9)) is False:
                self.find("UNSOUND diff: +inf but z3 proves |a - b| <= 1e9", cmd)
        if upper is not None:
            if upper < low:
                self.find(f"UNSOUND diff: upper {upper} < a sampled |a - b| = {low}", cmd)
            if exact is not None and upper < exact:
                self.find(f"UNSOUND diff: upper {upper} < exact max {exact}", cmd)
            if exact is None and not ball:
                t = time.perf_counter()
                over = z3_differ(self.a, self.b, dom, upper)
                self.times["oracle z3 upper"] += time.perf_counter() - t
                self.calls[f"oracle z3 upper {over}"] += 1
                if over:
                    self.find(f"UNSOUND diff: z3 finds |a - b| > upper {upper}", cmd)
            if dom[0] == "orthant" and self.kind == "orthant_unbounded":
                self.find(f"UNSOUND diff: finite upper {upper} on an unbounded difference", cmd)
        if lower is not None:
            if exact is not None and lower > exact:
                self.find(f"UNSOUND diff: lower {lower} > exact max {exact}", cmd)
            pt = js.get("point")
            if pt is not None:
                x = [_q(v) for v in pt]
                dv, _ = deviation(self.a, self.b, x)
                if dv != lower or not self._in(dom, x) and not ball:
                    self.find(f"diff: point {pt} gives |a-b| = {dv}, lower {lower}", cmd)
        if js.get("complete") and exact is not None and lower != exact and up_s != "inf":
            self.find(f"diff complete at {lower} but exact max is {exact}", cmd)
        if code == 0 and not js.get("complete"):
            self.find("diff exit 0 without complete", cmd)
        if os.path.exists(cert):
            self.verify("diff", cert, cmd)
        return lower, upper, js.get("complete")

    def check_epsilon(self, dom, eps, truth_max, ball=False):
        cert = os.path.join(self.workdir, f"cert_eps.json")
        if os.path.exists(cert):
            os.remove(cert)
        if ball:
            c, r = _ball(dom)
            dargs = ["--ball", ",".join(map(str, c + [r]))]
        else:
            dargs = _dom_args(dom)
        code, js, cmd = self._json("equiv --epsilon", "equiv", self.pa, self.pb, *dargs, "--epsilon", eps,
                                   "--certificate", cert)
        if js is None:
            return None
        ans = js.get("answer")
        self.calls[f"epsilon answer {ans}"] += 1
        if ans is True:
            if truth_max is not None and truth_max > eps:
                self.find(f"UNSOUND equiv --epsilon {eps}: yes but max |a-b| = {truth_max}", cmd)
            elif truth_max is None and z3_differ(self.a, self.b, dom, eps):
                self.find(f"UNSOUND equiv --epsilon {eps}: yes but z3 finds |a-b| > eps", cmd)
        if ans is False:
            x = js.get("point")
            if x is None or deviation(self.a, self.b, [_q(v) for v in x])[0] <= eps:
                self.find(f"equiv --epsilon {eps}: no, with a point {x} where |a-b| <= eps", cmd)
        if ans is not None:
            if os.path.exists(cert):
                self.verify("equiv --epsilon", cert, cmd)
            else:
                self.find("equiv --epsilon: decided, no certificate", cmd)
        return ans

    def check_regions(self, net, path, dom):
        code, js, cmd = self._json("regions", "regions", path, *_dom_args(dom))
        if js is None or not js.get("complete"):
            return
        pats = [tuple(1 if v > 0 else 0 for v in r["pattern"]) for r in js["regions"]]
        if len(set(pats)) != len(pats):
            self.find("regions: a pattern listed twice", cmd)
        if js["number_of_regions"] != len(pats):
            self.find("regions: number_of_regions != len(regions)", cmd)
        for r in js["regions"]:
            x = [_q(v) for v in r["point"]]
            if not self._in(dom, x):
                self.find(f"regions: point {r['point']} outside the domain", cmd)
            y = evaluate(net, x)
            J = [[_q(v) for v in row] for row in r["jacobian"]]
            c = [_q(v) for v in r["offset"]]
            if [sum((u * v for u, v in zip(row, x)), F(0)) + ci for row, ci in zip(J, c)] != y:
                self.find(f"regions: J x + c != net(x) at {r['point']}", cmd)
        for x in sample_points(dom, self.rng, 30):
            bits, strict = self._pattern(net, x)
            if strict and bits not in set(pats):
                self.find(f"regions: the pattern at {[str(v) for v in x]} is not listed", cmd)
        if dom[0] == "box" and len(dom[1]) <= 2:
            want = regions_oracle(net, dom[1])
            if want is not None and want != set(pats):
                self.find(f"regions: {len(pats)} patterns, oracle {len(want)} "
                          f"(missing {sorted(want - set(pats))[:3]}, extra {sorted(set(pats) - want)[:3]})", cmd)
        if self.api:
            import semialgebraic
            from semialgebraic import Polyhedron
            lo, hi = dom[1][0] if dom[0] == "box" else (None, None)
            if dom[0] == "box" and all(iv == dom[1][0] for iv in dom[1]):
                n = semialgebraic.number_of_regions(to_algebra(net), domain=Polyhedron.box(len(dom[1]), lo, hi))
                self.calls["api regions"] += 1
                if n != len(pats):
                    self.find(f"API number_of_regions {n} != CLI {len(pats)}", cmd)

    def _pattern(self, net, x):
        h, bits, strict = [F(v) for v in x], [], True
        for k, (W, b) in enumerate(net[:-1]):
            z = [sum((w * v for w, v in zip(row, h)), F(0)) + c for row, c in zip(W, b)]
            for row, c, v in zip(W, b, z):
                if v == 0 and not (all(w == 0 for w in row) and c == 0):
                    strict = False
            bits += [int(v > 0) for v in z]
            h = [max(v, F(0)) for v in z]
        return tuple(bits), strict

    def check_api(self, dom, cli_equiv, cli_max):
        """The Python API gives the CLI's answers."""
        import semialgebraic
        from semialgebraic.bab import diff_bounds
        a, b = to_algebra(self.a), to_algebra(self.b)
        for which, net in (("a", a), ("b", b)):
            import algebra
            got = algebra.load(self.pa if which == "a" else self.pb)
            if [[list(map(F, map(str, r))) for r in W.to_rows()] for W in got.weights] != \
                    [[list(r) for r in W] for W, _ in (self.a if which == "a" else self.b)]:
                self.find(f"reader: {os.path.basename(self.pa if which == 'a' else self.pb)} not read exactly")
        domain = None if dom[0] == "R" else "orthant" if dom[0] == "orthant" else \
            (dom[1][0] if all(iv == dom[1][0] for iv in dom[1]) else None)
        if dom[0] == "box" and domain is None:
            return
        v = semialgebraic.equivalent(a, b, domain=domain, timeout=self.run.timeout)
        self.calls["api equivalent"] += 1
        if cli_equiv is not None and v.answer is not None and v.answer != cli_equiv:
            self.find(f"API equivalent {v.answer} != CLI {cli_equiv}")
        if dom[0] == "box":
            r = diff_bounds(a, b, dom[1], timeout=self.run.timeout)
            self.calls["api diff_bounds"] += 1
            lo, up = _q(r.lower), None if r.upper is None else _q(r.upper)
            if cli_max is not None and (lo > cli_max or (up is not None and up < cli_max)):
                self.find(f"API diff_bounds [{r.lower}, {r.upper}] misses the exact max {cli_max}")


def finish_case(c, api, dom, ans, exact, log, rerun, keep=None) -> None:
    """The end of a fuzz case (here and in :mod:`tests.fuzz.adversarial`): the Python API's
    answers checked when *api* (a crash of the API is a finding), the files kept in *keep*
    when there are findings (:func:`keep_files`), then every finding logged with the command
    that reruns it (``rerun(kind)``)."""
    if api:
        try:
            c.check_api(dom, ans, exact)
        except Exception as e:   # a crash of the API is a finding
            c.find(f"API raised {type(e).__name__}: {e}")
    kept = keep_files(c, keep)
    for f in c.findings:
        log(f"FINDING seed={c.seed} kind={f[0]}: {f[2]}\n    ({rerun(f[0])}"
            + (f"; kept in {kept}" if kept else "") + ")" + (f"\n    {f[3]}" if f[3] else ""))


def run_case(seed, runner, kind=None, formats=True, api=True, regions=True, log=print, small=False,
             large=False, keep=None):
    """Run the case of *seed* (and *kind*) through every check; the :class:`Case` with its
    findings.  With *keep* (a directory), a case with findings leaves its files (networks,
    certificates, ``findings.txt``) in ``keep/seed-<seed>-<kind>/``."""
    with tempfile.TemporaryDirectory() as wd:
        c = Case(seed, kind, runner, wd, formats, api, small, large)
        dom = c.dom
        # exact equality on R^d (auto) and on the domain (auto and general)
        c.check_equiv(("R", len(c.a[0][0][0])), "auto")
        ans = None
        # a box with its own sides too: read on the cube (three-layer-fibers R36)
        if dom[0] != "R":
            ans = c.check_equiv(dom, "auto")
        c.check_equiv(dom, "general")
        exact, low = (None, F(0))
        if dom[0] == "box":
            exact, low = c.truth_max(dom)
            got = c.check_diff(dom, exact=exact, low=low)
            if all(iv == dom[1][0] for iv in dom[1]):
                c.check_diff(dom, ball=True, exact=exact, low=low)
                c.check_diff(dom, exact=exact, low=low, method="walk")     # the walk takes cubes only
            ref = exact if exact is not None else (got[0] if got and got[2] else None)
            e0 = c.check_epsilon(dom, F(0), exact)            # --epsilon 0: exact equality by bab
            if e0 is not None and ans is not None and e0 != ans:
                c.find(f"equiv --epsilon 0 says {e0}, equiv says {ans}")
            # exact equality on the box cut by half-spaces (branch and bound, max |a - b| <= 0):
            # against z3 on that domain, and never "not equivalent" where the box says equivalent
            poly = poly_domain(c.rng, dom[1], c.workdir)
            if sample_points(poly, c.rng, 10):
                pa = c.check_equiv(poly, "auto")
                if pa is False and ans is True:
                    c.find("equiv on box ∩ half-spaces says not equivalent; on the box: equivalent")
            if ref is not None:
                c.check_epsilon(dom, ref, exact)
                if ref > 0:
                    c.check_epsilon(dom, ref * F(999, 1000), exact)
                    c.check_epsilon(dom, ref * F(999, 1000), exact, ball=all(iv == dom[1][0] for iv in dom[1]))
            else:
                c.check_epsilon(dom, F(1, 10**7), None)
        else:
            low = max(deviation(c.a, c.b, x)[0] for x in sample_points(dom, c.rng, 60))
            known = F(0) if c.kind in EQUIVALENT_ON_R else F(1) if c.kind == "orthant_bounded" else None
            c.check_diff(dom, exact=known, low=low)
            c.check_epsilon(dom, F(1, 10**3), known)
            if c.kind == "orthant_bounded":      # |a − b| = relu(x_0) − relu(x_0 − 1): sup 1, attained
                for eps in (F(1), 1 - F(1, 10**9)):
                    ans = c.check_epsilon(dom, eps, F(1))
                    if ans is not None and ans != (eps >= 1):
                        c.find(f"equiv --epsilon {eps} on {dom[0]} says {ans}; sup |a - b| = 1")
        if regions:
            c.check_regions(c.a, c.pa, dom)
        finish_case(c, api, dom, ans, exact, log, lambda kind: (
            f"python -m tests.fuzz.bab_fuzz --seed {seed} --count 1 --kind {kind}{' --small' if small else ''}"
            f"{' --large' if large else ''}; files: {os.path.basename(c.pa)}, {os.path.basename(c.pb)}"),
            keep=keep)
        return c


def keep_files(c, keep):
    """Copy the files of case *c* (its work directory: the networks, certificates) to
    ``keep/seed-<seed>-<kind>/`` with ``findings.txt`` (one finding and its command a line)
    when it has findings and *keep* is set; the directory, or None."""
    if not keep or not c.findings:
        return None
    dest = os.path.join(keep, f"seed-{c.seed}-{c.kind}")
    shutil.copytree(c.workdir, dest, dirs_exist_ok=True)
    with open(os.path.join(dest, "findings.txt"), "w") as f:
        for _, _, what, cmd in c.findings:
            f.write(f"{what}\n    {cmd or ''}\n")
    return dest


def main(argv=None):
    ap = fuzz_parser(__doc__)
    ap.add_argument("--kind", choices=KINDS)
    ap.add_argument("--keep", metavar="DIR", help="copy the files of each case with findings (networks, "
                    "certificates, findings.txt) to DIR/seed-S-KIND/")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else KINDS
    return run_seeds(args, KINDS, lambda s: args.kind or kinds[s % len(kinds)],
                     lambda s, runner, kind: run_case(s, runner, kind, small=args.small, large=args.large,
                                                      regions=not args.large, keep=args.keep),
                     lambda c: f"{c.style} {c.dom[0]}")


def fuzz_parser(doc) -> argparse.ArgumentParser:
    """The options every fuzz run takes (this one and :mod:`tests.fuzz.adversarial`)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--kinds", help="comma-separated kinds to cycle through (default: all)")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("--subprocess", action="store_true", help="run each command as a subprocess "
                    "(its time counted after start-up: the CLI marks it, NETFIBERS_STARTUP_MARK=1)")
    ap.add_argument("--slack", type=float, metavar="SECONDS", help="allowed beyond 1.05·T + 2 s before "
                    "a run counts as an overrun (default 1 with --subprocess, else 3)")
    ap.add_argument("--small", action="store_true", help="d <= 2, at most 4 neurons a layer (the suite's cases)")
    ap.add_argument("--large", action="store_true", help="d 2-4, two hidden layers of 5-8 (branch and bound branches)")
    return ap


def run_seeds(args, all_kinds, kind_of, run, describe, kind_width=18) -> int:
    """The loop of a fuzz run (this one and :mod:`tests.fuzz.adversarial`): the seeds
    ``args.seed …`` (+ ``args.count``), the kind *kind_of(seed)*, the case *run(seed, runner,
    kind)* (a :class:`Case`), a line per case (*describe(case)* and the widths), then
    :func:`report`."""
    runner = Runner(args.subprocess, args.timeout, getattr(args, "slack", None))
    per_kind, bad, calls, times = Counter(), defaultdict(list), Counter(), Counter()
    t0 = time.time()
    for s in range(args.seed, args.seed + args.count):
        kind = kind_of(s)
        t = time.time()
        c = run(s, runner, kind)
        per_kind[kind] += 1
        calls.update(c.calls)
        times.update(c.times)
        if c.findings:
            bad[kind].append(s)
        print(f"seed {s} {kind:{kind_width}s} {describe(c)} widths a {widths(c.a)} b {widths(c.b)} "
              f"{os.path.basename(c.pa)},{os.path.basename(c.pb)}: {len(c.findings)} findings ({time.time() - t:.1f} s)",
              flush=True)
    return report(t0, per_kind, calls, bad, all_kinds, times, kind_width=kind_width)


def report(t0, per_kind, calls, bad, kinds, times=(), width=40, kind_width=18) -> int:
    """The table that ends a fuzz run (this one and :mod:`tests.fuzz.bab_paths`): cases, wall
    and CPU seconds, the calls (and seconds) per route, the seeds with findings per kind; the
    exit status, 1 when a kind has findings."""
    times = dict(times)
    print(f"\n{sum(per_kind.values())} cases in {time.time() - t0:.0f} s, "
          f"{time.process_time():.0f} CPU s")
    for k in sorted(calls):
        print(f"  {k:{width}s} {calls[k]:5d}" + (f"  {times[k]:7.1f} s" if k in times else ""))
    for k in sorted(set(times) - set(calls)):
        print(f"  {k:{width}s}        {times[k]:7.1f} s")
    for k in kinds:
        if per_kind[k]:
            print(f"  {k:{kind_width}s} {per_kind[k]:4d} cases, findings in seeds {bad.get(k, [])}")
    return 1 if any(bad.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
