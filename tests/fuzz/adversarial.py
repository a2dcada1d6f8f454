"""Adversarial soundness campaign: pairs and nets built the way users build them, every verdict of
``equiv``, ``equiv --epsilon``, ``diff``, ``regions``, ``canon``, ``dim`` and ``verify`` checked
against an exact oracle that shares no code with netfibers.

Where :mod:`tests.fuzz.bab_fuzz` draws random pairs and leans on z3, every case here is *planted*:
its generator knows the truth by construction (equivalent on R^d or not, on the box or not, and
``max |a - b|`` on the box exactly), and the oracles are exact ``fractions.Fraction`` arithmetic:

* the planted truth (``max |a - b| = |w|·r`` for a bump of height ``|w|·r`` at a point of the box,
  0 for a symmetry, ...), cross-checked by evaluation at the bump's centre (the *probes*);
* exact evaluation at random rational points of the domain and at the probes (an "equivalent" or
  an upper bound must hold there; a returned point must attain the claimed lower bound exactly);
* the exact vertex enumeration of :func:`tests.fuzz.bab_fuzz.brute_force_max` on small pairs
  (the exact maximum), the exact 1-D cut of :func:`regions_1d` (every activation pattern of a
  one-input net, bumps 1e-6 wide included), and z3 (the checks inherited from ``bab_fuzz``
  ask it where the plan leaves the truth open);
* ``netfibers verify`` of every certificate, and mutated certificates whose claim is known to be
  false (an upper bound halved below the true maximum, the other network replaced by one that
  differs, a lower bound raised) that it must reject;
* ``canon`` fingerprints: equal iff the one-hidden-layer nets are equivalent on R^d;
  ``dim`` of a planted permuted / rescaled copy equals that of the original.

Kinds (``--kinds``, comma-separated; default all):

near misses
  ``ball_bump`` (an L1 ball of radius 1e-3 ... 1e-6 inside the box), ``ball_outside`` (centred
  just outside: it reaches in by r/2), ``ball_far`` (centred 2r outside: equivalent on the box,
  not on R^d), ``sliver`` (a tent between two parallel hyperplanes 2δ apart),
  ``near_parallel`` (two tents on near-parallel hyperplanes), ``face`` (a neuron on only within r
  of a face), ``weight_1e-9`` (one weight moved by 1e-9), ``outside`` (a ramp zero on the closed
  box)
planted symmetries (equivalent on R^d)
  ``awkward_scale`` (factors 7/3, 1e-7, 1e6), ``neg_dup`` (a neuron split into ±-scaled twins
  with a linear pair), ``skip`` (a skip connection x -> Ax through relu(x) - relu(-x), realised
  with different scalings), ``split_masked`` (a neuron split, plus a masked neuron dead on the box)
degenerate
  ``rank_deficient``, ``all_dead`` (a hidden layer dead on the box: constant on the box),
  ``zero_width`` (a box of width 0 in one coordinate, a bump off that slice), ``huge_tiny``
  (weights 1e6 and 1e-12), ``f16_copy`` (b = the float16 rounding of a), ``dim1``
  (one input, a bump of radius 1e-6), ``bottleneck`` (d-n1-n2-m with n1 <= d, rescaled and
  permuted, half the time one weight of layer 2 or 3 moved by 1e-9)

Run by hand (``nice`` it, one process at a time)::

    nice -n 10 python -m tests.fuzz.adversarial --seed 1 --count 100 [--kinds ball_bump,sliver]

It prints one line per finding (with the command that reproduces it) and a table of the calls.
``tests/semialgebraic/test_adversarial.py`` runs a bounded sample.
"""

from __future__ import annotations

import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from fractions import Fraction as F

import numpy as np

from tests.fuzz.bab_fuzz import (Case, Runner, _dom_args, brute_force_max, copy, deviation, evaluate, n_hidden,
                                 finish_case, fuzz_parser, parallel_sum, permute, random_net, run_seeds,
                                 sample_points)

R3 = [F(1, 10**3), F(1, 10**4), F(1, 10**5), F(1, 10**6)]

# -------------------------------------------------------------------------------------------------
# planted pieces: small networks g >= 0 added to a (parallel_sum), with their exact maximum
# -------------------------------------------------------------------------------------------------


def l1_ball(c, r, w, m):
    """g(x) = w·relu(r − Σ|x_i − c_i|) on every output (two hidden layers): max |w|·r at c, zero
    outside the L1 ball of radius r around c."""
    d = len(c)
    W1, b1 = [], []
    for i in range(d):
        e = [F(int(j == i)) for j in range(d)]
        W1 += [e, [-v for v in e]]
        b1 += [-c[i], c[i]]
    return [(W1, b1), ([[F(-1)] * (2 * d)], [r]), ([[w] for _ in range(m)], [F(0)] * m)]


def tent(u, t, delta, w, m):
    """g(x) = w·(relu(s) − 2 relu(s − δ) + relu(s − 2δ)), s = u·x − t: nonzero only on the sliver
    0 < s < 2δ, max |w|·δ on the hyperplane s = δ."""
    return [([list(u), list(u), list(u)], [-t, -t - delta, -t - 2 * delta]),
            ([[w, -2 * w, w] for _ in range(m)], [F(0)] * m)]


def deepen(net, depth):
    """*net* with identity layers inserted before its output layer until it has *depth* layers
    (hidden values are >= 0, so relu(h) = h: the same function)."""
    net = copy(net)
    while len(net) < depth:
        n = len(net[-1][0][0])
        net.insert(len(net) - 1, ([[F(int(i == j)) for j in range(n)] for i in range(n)], [F(0)] * n))
    return net


def plus(a, g):
    """The network a + g (parallel_sum after deepening the shallower of the two)."""
    k = max(len(a), len(g))
    return parallel_sum(deepen(a, k), deepen(g, k))


def rat_point(dom, rng, den=64):
    """A rational point strictly inside the box (each side split in *den*)."""
    return [lo + (hi - lo) * F(rng.randint(1, den - 1), den) for lo, hi in dom[1]]


def box_of(rng, d):
    lo = F(rng.randint(-4, 0), rng.choice([1, 2]))
    hi = lo + F(rng.randint(1, 6), rng.choice([1, 2, 4]))
    if rng.random() < 0.3:
        return ("box", [(lo - i, hi + F(i, 3)) for i in range(d)])
    return ("box", [(lo, hi)] * d)


def scale_neurons(net, factors):
    """Neuron i of hidden layer l scaled by factors(l, i) > 0 (incoming ×s, outgoing ÷s)."""
    net = copy(net)
    for l in range(len(net) - 1):
        W, b = net[l]
        W2, _ = net[l + 1]
        for i in range(len(W)):
            s = factors(l, i)
            W[i] = [s * v for v in W[i]]
            b[i] *= s
            for r in W2:
                r[i] /= s
    return net


def add_neurons(net, l, rows, biases, outs):
    """Append neurons (rows, biases) to hidden layer l with outgoing columns *outs* (one list of
    len(next layer) per neuron)."""
    net = copy(net)
    W, b = net[l]
    W2, _ = net[l + 1]
    for row, c, out in zip(rows, biases, outs):
        W.append(list(row))
        b.append(c)
        for r, v in zip(W2, out):
            r.append(v)
    return net


def regions_1d(net, lo, hi):
    """The activation patterns with an interior on [lo, hi] of a one-input network, exactly: the
    interval is cut at every zero of every pre-activation, layer by layer (on each piece the
    pre-activations of the next layer are affine, so their values at the ends give their zero);
    the pattern at each piece's midpoint (a neuron identically 0 there counts as off)."""
    cuts = [lo, hi]
    for k in range(len(net) - 1):
        new = set(cuts)
        for x0, x1 in zip(cuts, cuts[1:]):
            z0, z1 = _pre(net, x0, k), _pre(net, x1, k)
            for u, v in zip(z0, z1):
                if (u < 0 < v) or (v < 0 < u):
                    new.add(x0 + (x1 - x0) * u / (u - v))
        cuts = sorted(new)
    out = set()
    for x0, x1 in zip(cuts, cuts[1:]):
        xm = (x0 + x1) / 2
        out.add(tuple(int(v > 0) for k in range(len(net) - 1) for v in _pre(net, xm, k)))
    return out


def _pre(net, x, k):
    """The pre-activations of hidden layer k at the input x (one input)."""
    h = [F(x)]
    for l, (W, b) in enumerate(net[:k + 1]):
        z = [sum((w * v for w, v in zip(row, h)), F(0)) + c for row, c in zip(W, b)]
        h = [max(v, F(0)) for v in z]
    return z


def f16(v):
    return F(float(np.float16(float(v))))


# -------------------------------------------------------------------------------------------------
# the cases
# -------------------------------------------------------------------------------------------------
KINDS = ["ball_bump", "ball_outside", "ball_far", "sliver", "near_parallel", "face", "weight_1e-9", "outside",
         "awkward_scale", "neg_dup", "skip", "split_masked", "rank_deficient", "all_dead", "zero_width",
         "huge_tiny", "f16_copy", "dim1", "bottleneck", "const_neuron", "orthant_masked"]


class Plan:
    """A generated case: a, b, the domain, and what is known by construction: ``eq_R`` /
    ``eq_dom`` (True / False / None), ``max_dom`` (the exact max |a − b| on the box, or None) and
    ``probes`` (points where a planted difference is largest)."""

    def __init__(self, kind, a, b, dom, style, eq_R=None, eq_dom=None, max_dom=None, probes=()):
        self.kind, self.a, self.b, self.dom, self.style = kind, a, b, dom, style
        self.eq_R, self.eq_dom, self.max_dom, self.probes = eq_R, eq_dom, max_dom, list(probes)


def make_plan(seed, kind=None, small=False, large=False):
    """*small*: d <= 2, at most 4 neurons a layer (the suite's cases); *large*: d 2-4, two hidden
    layers of 5-8 (branch and bound branches; the exact max then comes from the plan alone)."""
    rng = random.Random(seed)
    kind = kind or rng.choice(KINDS)
    d = 1 if kind == "dim1" else rng.randint(1, 2 if small else 3)
    nh = rng.choice([1, 1, 2]) if small else rng.choice([1, 1, 2, 2, 3])
    hidden = [rng.randint(1, 4 if small else 6) for _ in range(nh)]
    if large:
        d = 1 if kind == "dim1" else rng.randint(2, 4)
        hidden = [rng.randint(5, 8), rng.randint(5, 8)]
    m = rng.choice([1, 1, 2])
    style = "huge" if kind == "huge_tiny" else rng.choice(["rat", "rat", "f32", "f16"])
    if style == "huge":
        a = random_net(rng, d, hidden, m, "rat")
        for W, b in a:
            for r in W:
                for j in range(len(r)):
                    if rng.random() < 0.3:
                        r[j] *= rng.choice([F(10**6), F(1, 10**12)])
    else:
        a = random_net(rng, d, hidden, m, style)
    dom = box_of(rng, d)
    w = F(rng.choice([1, 2, -3, F(1, 3)]))

    if kind in ("ball_bump", "ball_outside", "ball_far", "dim1"):
        r = rng.choice(R3) if kind != "dim1" else F(1, 10**6)
        c = rat_point(dom, rng)
        reach = r
        if kind in ("ball_outside", "ball_far"):
            gap = r / 2 if kind == "ball_outside" else 2 * r
            c[0] = dom[1][0][1] + gap
            reach = r - gap
        b = permute(plus(a, l1_ball(c, r, w, m)), rng)
        probe = list(c)
        if reach > 0:
            probe[0] = min(probe[0], dom[1][0][1])
        far = kind == "ball_far"
        return Plan(kind, a, b, dom, style, eq_R=False, eq_dom=far, max_dom=F(0) if far else abs(w) * reach,
                    probes=[probe, c])
    if kind in ("sliver", "near_parallel"):
        c = rat_point(dom, rng)
        u = [F(rng.choice([-2, -1, 1, 3])) for _ in range(d)]
        delta = rng.choice(R3)
        t = sum((x * y for x, y in zip(u, c)), F(0)) - delta        # s = δ at c
        g = tent(u, t, delta, w, m)
        if kind == "near_parallel":       # a second tent, −w, on u + η e_0 through c: |a − b| unknown in closed form
            u2 = list(u)
            u2[0] += F(1, 10**6)
            t2 = sum((x * y for x, y in zip(u2, c)), F(0)) - delta
            g2 = tent(u2, t2, delta, -w, m)
            g = [(W1 + W2_, b1 + b2_) if k == 0 else ([r1 + r2 for r1, r2 in zip(W1, W2_)], [p + q for p, q in zip(b1, b2_)])
                 for k, ((W1, b1), (W2_, b2_)) in enumerate(zip(g, g2))]
            b = permute(plus(a, g), rng)
            return Plan(kind, a, b, dom, style, eq_R=False, eq_dom=None, max_dom=None, probes=[c])
        b = permute(plus(a, g), rng)
        return Plan(kind, a, b, dom, style, eq_R=False, eq_dom=False, max_dom=abs(w) * delta, probes=[c])
    if kind == "face":
        r = rng.choice(R3)
        i = rng.randrange(d)
        hi = dom[1][i][1]
        e = [F(int(j == i)) for j in range(d)]
        g = [([e], [-hi + r]), ([[w] for _ in range(m)], [F(0)] * m)]
        b = permute(plus(a, g), rng)
        probe = rat_point(dom, rng)
        probe[i] = hi
        return Plan(kind, a, b, dom, style, eq_R=False, eq_dom=False, max_dom=abs(w) * r, probes=[probe])
    if kind == "outside":
        i = rng.randrange(d)
        hi = dom[1][i][1]
        e = [F(int(j == i)) for j in range(d)]
        g = [([e], [-hi]), ([[w] for _ in range(m)], [F(0)] * m)]
        b = permute(plus(a, g), rng)
        probe = rat_point(dom, rng)
        probe[i] = hi
        return Plan(kind, a, b, dom, style, eq_R=False, eq_dom=True, max_dom=F(0), probes=[probe])
    if kind == "weight_1e-9":
        b = copy(a)
        l = rng.randrange(len(b))
        W, _ = b[l]
        i, j = rng.randrange(len(W)), rng.randrange(len(W[0]))
        W[i][j] += F(1, 10**9)
        return Plan(kind, a, permute(b, rng), dom, style)
    if kind == "awkward_scale":
        fs = [F(7, 3), F(1, 10**7), F(10**6), F(3, 7)]
        b = permute(scale_neurons(a, lambda l, i: rng.choice(fs)), rng)
        return Plan(kind, a, b, dom, style, eq_R=True, eq_dom=True, max_dom=F(0))
    if kind == "neg_dup":
        # a: neuron (w, β) split into (2w, 2β) with out c/2 and (w/3, β/3) with out 3c/2 ... plus
        # the linear pair relu(z) − relu(−z) = z on both sides, scaled differently
        l = rng.randrange(len(a) - 1)
        W, bb = a[l]
        i = rng.randrange(len(W))
        row, beta = W[i], bb[i]
        outs = [r[i] for r in a[l + 1][0]]
        lin = [F(rng.randint(-2, 2)) for _ in outs]
        a2 = add_neurons(a, l, [row, [-v for v in row]], [beta, -beta], [lin, [-v for v in lin]])
        b = copy(a)
        b[l][0][i] = [2 * v for v in row]
        b[l][1][i] = 2 * beta
        for r in b[l + 1][0]:
            r[i] /= 4             # 2·(c/4) = c/2
        b = add_neurons(b, l, [[v / 3 for v in row], [-5 * v for v in row], [F(7, 3) * v for v in row]],
                        [beta / 3, -5 * beta, F(7, 3) * beta],
                        [[3 * c / 2 for c in outs], [-v / 5 for v in lin], [3 * v / 7 for v in lin]])
        return Plan(kind, a2, permute(b, rng), dom, style, eq_R=True, eq_dom=True, max_dom=F(0))
    if kind == "skip":
        # a + A·x through the pair relu(x_i) − relu(−x_i); b realises it with factors 2 and 1/3
        A = [[F(rng.randint(-2, 2)) for _ in range(d)] for _ in range(m)]
        def skip_net(s1, s2):
            W1, b1, W2 = [], [], [[] for _ in range(m)]
            for i in range(d):
                e = [F(int(j == i)) for j in range(d)]
                W1 += [[s1 * v for v in e], [-s2 * v for v in e]]
                b1 += [F(0), F(0)]
                for o in range(m):
                    W2[o] += [A[o][i] / s1, -A[o][i] / s2]
            return [(W1, b1), (W2, [F(0)] * m)]
        # the skip's hidden values are >= 0, so parallel_sum carries them through identity layers
        a2 = plus(a, skip_net(F(1), F(1)))
        b = permute(plus(a, skip_net(F(2), F(1, 3))), rng)
        return Plan(kind, a2, b, dom, style, eq_R=True, eq_dom=True, max_dom=F(0))
    if kind == "split_masked":
        l = rng.randrange(len(a) - 1)
        W, bb = a[l]
        i = rng.randrange(len(W))
        b = copy(a)
        outs = [r[i] for r in b[l + 1][0]]
        for r in b[l + 1][0]:
            r[i] *= F(2, 5)
        b = add_neurons(b, l, [[F(3) * v for v in W[i]]], [3 * bb[i]], [[F(1, 5) * c for c in outs]])
        # a masked first-layer neuron: u·x + β <= −1/7 on the box, active elsewhere
        u = [F(rng.randint(-2, 2)) or F(1) for _ in range(d)]
        mx = sum((max(x * lo, x * hi) for x, (lo, hi) in zip(u, dom[1])), F(0))
        b = add_neurons(b, 0, [u], [-mx - F(1, 7)], [[F(rng.choice([1, -2])) for _ in range(len(b[1][0]))]]) \
            if len(b) > 1 else b
        return Plan(kind, a, permute(b, rng), dom, style, eq_R=False if len(a) == 2 else None, eq_dom=True,
                    max_dom=F(0))
    if kind == "rank_deficient":
        W, bb = a[0]
        if len(W) >= 2:
            W[-1] = [x + 2 * y for x, y in zip(W[0], W[1])]
        W.append([-v for v in W[0]])
        bb.append(-bb[0])
        for r in a[1][0]:
            r.append(F(rng.randint(-2, 2)))
        b = permute(scale_neurons(a, lambda l, i: F(rng.randint(1, 9), rng.randint(1, 9))), rng)
        near = rng.random() < 0.5
        if near:
            b[-1][1][0] += F(1, 10**9)
        return Plan(kind, a, b, dom, style, eq_R=not near, eq_dom=not near, max_dom=F(1, 10**9) if near else F(0))
    if kind == "all_dead":
        l = rng.randrange(len(a) - 1)
        W, bb = a[l]
        # every neuron of layer l dead on the box: a bias below minus its interval bound
        lay = [list(lo_hi) for lo_hi in dom[1]]
        for k in range(l):                      # interval bounds of the layer's input
            Wk, bk = a[k]
            lay = [[max(F(0), c + sum((min(w * lo, w * hi) for w, (lo, hi) in zip(row, lay)), F(0))),
                    max(F(0), c + sum((max(w * lo, w * hi) for w, (lo, hi) in zip(row, lay)), F(0)))]
                   for row, c in zip(Wk, bk)]
        for i, row in enumerate(W):
            bb[i] = -sum((max(w * lo, w * hi) for w, (lo, hi) in zip(row, lay)), F(0)) - F(1, 10**6)
        b = copy(a)
        # b: other dead weights (rows scaled by 2, the layer after changed on the dead columns)
        b[l] = ([[2 * v for v in r] for r in W], [2 * c for c in bb])
        b[l + 1] = ([[v + 1 for v in r] for r in b[l + 1][0]], b[l + 1][1])
        return Plan(kind, a, permute(b, rng), dom, style, eq_R=None, eq_dom=True, max_dom=F(0))
    if kind == "zero_width":
        i = rng.randrange(d)
        lo, hi = dom[1][i]
        v = lo + (hi - lo) * F(rng.randint(0, 4), 4)
        box = list(dom[1])
        box[i] = (v, v)
        dom = ("box", box)
        c = rat_point(("box", [(x, y) if x != y else (x - 1, x + 1) for x, y in box]), rng)
        r = rng.choice(R3)
        inside = rng.random() < 0.5
        c[i] = v if inside else v + 2 * r
        b = permute(plus(a, l1_ball(c, r, w, m)), rng)
        return Plan(kind, a, b, dom, style, eq_R=False, eq_dom=not inside,
                    max_dom=abs(w) * r if inside else F(0), probes=[c])
    if kind == "huge_tiny":
        b = permute(scale_neurons(a, lambda l, i: rng.choice([F(10**6), F(1, 10**6), F(1)])), rng)
        near = rng.random() < 0.5
        if near:
            b[-1][1][0] += F(1, 10**12)
        return Plan(kind, a, b, dom, style, eq_R=not near, eq_dom=not near,
                    max_dom=F(1, 10**12) if near else F(0))
    if kind == "bottleneck":
        # d-n1-n2-m with n1 <= d (the bottleneck fast path of equiv): b a permuted,
        # rescaled copy, half the time with one deeper weight moved by 1e-9 (an output weight of a
        # neuron active somewhere: differs on R^d)
        d = max(d, 2)
        a = random_net(rng, d, [rng.randint(1, d), rng.randint(2, 5)], m, style)
        dom = box_of(rng, d)
        b = permute(scale_neurons(a, lambda l, i: rng.choice([F(7, 3), F(1, 10**7), F(2)])), rng)
        if rng.random() < 0.5:
            return Plan(kind, a, b, dom, style, eq_R=True, eq_dom=True, max_dom=F(0))
        l = rng.choice([0, 1, 2])
        W = b[l][0]
        i, j = rng.randrange(len(W)), rng.randrange(len(W[0]))
        W[i][j] += F(1, 10**9)
        return Plan(kind, a, b, dom, style)
    if kind == "const_neuron":
        # b: a with a constant neuron relu(0·x + β), β > 0, in hidden layer l, its value taken
        # out of the next layer's bias (equivalent on R^d); half the time 1e-9 left over
        l = rng.randrange(len(a) - 1)
        beta = F(rng.choice([1, 7, 1]), rng.choice([3, 10**7, 1]))
        outs = [F(rng.choice([1, -2, 5])) for _ in range(len(a[l + 1][0]))]
        b = add_neurons(a, l, [[F(0)] * len(a[l][0][0])], [beta], [outs])
        b[l + 1] = (b[l + 1][0], [c - o * beta for c, o in zip(b[l + 1][1], outs)])
        near = rng.random() < 0.5 and len(a) == 2
        if near:
            b[l + 1][1][0] += F(1, 10**9)
        return Plan(kind, a, permute(b, rng), dom, style, eq_R=not near, eq_dom=not near,
                    max_dom=F(1, 10**9) if near else F(0))
    if kind == "orthant_masked":
        # one hidden layer; b = a + a neuron with a row <= 0 and a bias <= 0 (dead on the closed
        # orthant, alive elsewhere), or (near miss) one weight of that row +1e-9 (alive on the
        # orthant where that coordinate dominates: not equivalent there, unbounded)
        a = random_net(rng, max(d, 2), [rng.randint(1, 4)], m, style)
        d = len(a[0][0][0])
        row = [-F(rng.randint(0, 3), rng.choice([1, 7])) for _ in range(d)]
        row[0] = -F(1)
        near = rng.random() < 0.5
        if near:
            row[1] = F(1, 10**9)
        b = permute(add_neurons(a, 0, [row], [-F(rng.randint(0, 2))], [[F(rng.choice([1, -3])) for _ in range(m)]]), rng)
        return Plan(kind, a, b, ("orthant", d), style, eq_R=False, eq_dom=not near)
    if kind == "f16_copy":
        b = [([[f16(v) for v in r] for r in W], [f16(v) for v in bb]) for W, bb in a]
        same = all(x == y for (W, bb), (W2, bb2) in zip(a, b) for r, r2 in zip(W + [bb], W2 + [bb2]) for x, y in zip(r, r2))
        return Plan(kind, a, b, dom, style, eq_R=True if same else None, eq_dom=True if same else None,
                    max_dom=F(0) if same else None)
    raise ValueError(kind)


# -------------------------------------------------------------------------------------------------
# writing files in the forms users write (decimal literals, .nnet, npz, ...)
# -------------------------------------------------------------------------------------------------
def _decimal(v):
    """'0.125'-style literal when v's denominator is 2^a·5^b, else 'p/q'."""
    den, k = v.denominator, 0
    while den % 2 == 0 or den % 5 == 0:
        den //= 2 if den % 2 == 0 else 5
    if den != 1 or v.denominator == 1:
        return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"
    while 10 ** k % v.denominator:
        k += 1
    n = abs(v.numerator) * (10 ** k // v.denominator)
    txt = str(n).rjust(k + 1, "0")
    return ("-" if v < 0 else "") + txt[:-k] + "." + txt[-k:]


def save_decimal_json(net, path):
    data = {"format": "netfibers.network", "version": 1, "activation": "relu",
            "layers": [{"weight": [[_decimal(v) for v in r] for r in W], "bias": [_decimal(v) for v in b]}
                       for W, b in net]}
    with open(path, "w") as f:
        json.dump(data, f)
    return path


# -------------------------------------------------------------------------------------------------
# the checks
# -------------------------------------------------------------------------------------------------
def _has_z3():
    try:
        import z3  # noqa: F401
        return True
    except ImportError:
        return False


HAS_Z3 = _has_z3()


class Adversarial(Case):
    """:class:`tests.fuzz.bab_fuzz.Case` on a planted :class:`Plan`, with oracles that need no z3."""

    def __init__(self, seed, kind, runner, workdir, small=False, api=True, large=False):
        p = make_plan(seed, kind, small, large)
        self.plan = p
        self.seed, self.kind, self.a, self.b, self.dom, self.style = seed, p.kind, p.a, p.b, p.dom, p.style
        self.rng = random.Random(seed * 7919 + 3)
        self.run, self.workdir, self.api = runner, workdir, api
        self.findings, self.calls, self.times = [], Counter(), Counter()
        self._brute = "unset"
        from tests.fuzz.bab_fuzz import save
        fmts = ["decimal", "decimal", "json", "npz32", "npz16", "nnet"]
        self.pa = self._save(self.a, "a", self.rng.choice(fmts), save)
        self.pb = self._save(self.b, "b", self.rng.choice(fmts), save)

    def _save(self, net, name, fmt, save):
        stem = os.path.join(self.workdir, name)
        if fmt == "decimal":
            return save_decimal_json(net, stem + ".json")
        return save(net, stem, fmt)

    # the truth, without z3 ----------------------------------------------------------------------
    def brute(self):
        if self._brute == "unset":
            t = time.perf_counter()
            self._brute = brute_force_max(self.a, self.b, self.dom[1], limit=60000) \
                if self.dom[0] == "box" and n_hidden(self.a) + n_hidden(self.b) <= 16 else None
            self.times["oracle brute force"] += time.perf_counter() - t
        return self._brute

    def points(self, dom, k=30):
        pts = sample_points(dom, self.rng, k) if dom[0] == "box" else sample_points(dom, self.rng, k)
        if dom[0] == "box":
            pts += [x for x in self.plan.probes if self._in(dom, x)]
        else:
            pts += self.plan.probes
        return pts

    def truth_equal(self, dom):
        for x in self.points(dom):
            if deviation(self.a, self.b, x)[0] != 0:
                return False
        known = self.plan.eq_R if dom[0] == "R" else self.plan.eq_dom if dom[0] == "box" else None
        if known is not None:
            return known
        if dom[0] == "box":
            mx = self.brute()
            if mx is not None:
                return mx == 0
        if HAS_Z3:
            from tests.fuzz.bab_fuzz import z3_differ
            r = z3_differ(self.a, self.b, dom)
            return None if r is None else not r
        return None

    def truth_max(self, dom):
        low = max(deviation(self.a, self.b, x)[0] for x in self.points(dom, 60))
        exact = self.brute()
        planted = self.plan.max_dom
        if exact is not None and planted is not None and exact != planted:
            self.find(f"ORACLE disagreement: brute force {exact} != planted {planted}")
        if exact is None:
            exact = planted
        if exact is None and HAS_Z3:
            from tests.fuzz.bab_fuzz import z3_max
            exact = z3_max(self.a, self.b, dom[1])
        if exact is not None and exact < low:
            self.find(f"ORACLE disagreement: exact max {exact} < sampled {low}")
        self.calls["oracle exact max" if exact is not None else "oracle no exact max"] += 1
        return exact, low

    # certificates: mutations whose claim is known false must be rejected -----------------------
    def verify_mutant(self, name, cert, mutant, why, cmd):
        path = cert + ".mut.json"
        with open(path, "w") as f:
            json.dump(mutant, f)
        code, out, err, _ = self.run("verify", path)
        self.calls[f"verify mutant ({why})"] += 1
        if code == 0:
            self.find(f"UNSOUND verify: accepts a {name} certificate mutated so its claim is false ({why})", cmd)

    def verify(self, name, cert, cmd):
        super().verify(name, cert, cmd)
        try:
            with open(cert) as f:
                c = json.load(f)
        except (OSError, ValueError):
            return
        exact = self.brute() if self.dom[0] == "box" else None
        if exact is None:
            exact = self.plan.max_dom
        claim = c.get("claim", "")
        if c.get("type") == "bab_bound" and "<= upper" in claim and exact is not None and exact > 0:
            m = json.loads(json.dumps(c))
            low = exact / 2
            m["upper"] = str(low)
            for o in m.get("objectives", []):
                o["upper"] = str(min(F(str(o["upper"])), low))
                if isinstance(o.get("tree"), dict) and "bound" in o["tree"]:
                    o["tree"]["bound"] = str(min(F(str(o["tree"]["bound"])), low))
            self.verify_mutant(name, cert, m, "upper halved below the exact max", cmd)
        if c.get("type") == "bab_bound" and ">= lower" in claim and exact is not None:
            m = json.loads(json.dumps(c))
            m["lower"] = str(exact + 1)
            self.verify_mutant(name, cert, m, "lower above the exact max", cmd)
        if isinstance(c.get("b"), dict) and c["b"].get("layers") and ("<= upper" in claim or "==" in claim):
            m = json.loads(json.dumps(c))
            last = m["b"]["layers"][-1]
            up = c.get("upper", 0) if "<= upper" in claim else 0
            shift = 2 * (F(str(up)) if up not in (None, "inf") else F(0)) + 1
            last["bias"][0] = str(F(str(last["bias"][0])) + shift)
            self.verify_mutant(name, cert, m, "b's output bias shifted past 2 upper", cmd)
        # a difference planted just outside the box: the same certificate on the box widened by 1
        # on both sides claims something false (when a point of the wider box shows it)
        planted_outside = self.kind in ("ball_far", "outside") or (self.kind == "split_masked" and len(self.a) == 2)
        if planted_outside and ("<= upper" in claim or "==" in claim):
            up = F(str(c.get("upper", 0))) if "<= upper" in claim and c.get("upper") not in (None, "inf") else F(0)
            m = json.loads(json.dumps(c))
            if isinstance(m.get("box"), list):
                m["box"] = [[str(F(str(lo)) - 1), str(F(str(hi)) + 1)] for lo, hi in m["box"]]
                wide = [(F(lo), F(hi)) for lo, hi in m["box"]]
            elif isinstance(m.get("domain"), dict) and isinstance(m["domain"].get("box"), list):
                lo, hi = m["domain"]["box"]
                m["domain"]["box"] = [str(F(str(lo)) - 1), str(F(str(hi)) + 1)]
                wide = [(F(m["domain"]["box"][0]), F(m["domain"]["box"][1]))] * len(self.dom[1])
            else:
                return
            pts = sample_points(("box", wide), self.rng, 200) + [
                [min(max(v, lo), hi) for v, (lo, hi) in zip(x, wide)] for x in self.plan.probes]
            if max(deviation(self.a, self.b, x)[0] for x in pts) > up:
                self.verify_mutant(name, cert, m, "box widened to reach a planted difference", cmd)

    def check_regions(self, net, path, dom):
        super().check_regions(net, path, dom)
        if len(dom[1]) != 1:
            return
        code, js, cmd = self._json("regions 1-D", "regions", path, *_dom_args(dom))
        if js is None or not js.get("complete"):
            return
        got = {tuple(1 if v > 0 else 0 for v in r["pattern"]) for r in js["regions"]}
        want = regions_1d(net, *dom[1][0])
        self.calls["regions 1-D oracle"] += 1
        if got != want:
            self.find(f"regions: {len(got)} patterns, the exact 1-D cut gives {len(want)} (missing "
                      f"{sorted(want - got)[:3]}, extra {sorted(got - want)[:3]})", cmd)

    # the closed orthant --------------------------------------------------------------------------
    def check_orthant(self):
        d = self.dom[1]
        dom = ("orthant", d)
        for method in ("auto", "general", "shallow"):
            ans = self.check_equiv(dom, method)
            if ans is not None and ans != self.plan.eq_dom:
                self.find(f"equiv --orthant --method {method} says {ans}, planted {self.plan.eq_dom}")
        ans = self.check_equiv(("R", d), "auto")
        if ans is True:
            self.find("UNSOUND equiv on R^d: 'equivalent' for a neuron alive off the orthant")
        fps = []
        for p in (self.pa, self.pb):
            code, js, cmd = self._json_plain("canon --orthant", "canon", p, "--orthant")
            if js is None:
                return
            fps.append(js.get("fingerprint"))
        if (fps[0] == fps[1]) != self.plan.eq_dom:
            self.find(f"canon --orthant: fingerprints {'equal' if fps[0] == fps[1] else 'differ'}, "
                      f"planted equivalent on the orthant: {self.plan.eq_dom}",
                      f"netfibers canon {self.pa} --orthant; netfibers canon {self.pb} --orthant")
        eps = F(1, 10**3)
        got = self.check_epsilon(dom, eps, F(0) if self.plan.eq_dom else None)
        if got is not None and got != self.plan.eq_dom:
            self.find(f"equiv --orthant --epsilon {eps} says {got}; |a - b| is "
                      f"{'0' if self.plan.eq_dom else 'unbounded'} on the orthant")

    # the same diff through another --box form and a short budget ------------------------------
    def check_diff_forms(self, dom, exact, low, got):
        """``--box FILE.json`` (the box as decimal literals) gives the same certified interval;
        ``--timeout 1`` gives an interval that still holds the truth (a budget makes the answer
        less complete, never different)."""
        path = os.path.join(self.workdir, "box.json")
        with open(path, "w") as f:
            json.dump({"box": [[_decimal(lo), _decimal(hi)] for lo, hi in dom[1]]}, f)
        code, js, cmd = self._json("diff --box FILE", "diff", self.pa, self.pb, "--box", path)
        if js is not None and got is not None and js.get("complete") and got[2] and \
                (F(str(js["lower"])) != got[0]):
            self.find(f"diff --box FILE: max {js['lower']}, --box LO,HI: {got[0]}", cmd)
        self._check_interval(js, exact, low, cmd, "diff --box FILE")
        code, js, cmd = self._json("diff --timeout 1", "diff", self.pa, self.pb, *_dom_args(dom), timeout=1)
        self._check_interval(js, exact, low, cmd, "diff --timeout 1")

    def _check_interval(self, js, exact, low, cmd, name):
        if js is None:
            return
        lo = None if js.get("lower") in (None, "inf") else F(str(js["lower"]))
        up = None if js.get("upper") in (None, "inf") else F(str(js["upper"]))
        truth = exact if exact is not None else None
        if up is not None and (up < low or (truth is not None and up < truth)):
            self.find(f"UNSOUND {name}: upper {up} below the truth ({truth}, sampled {low})", cmd)
        if lo is not None and truth is not None and lo > truth:
            self.find(f"UNSOUND {name}: lower {lo} above the exact max {truth}", cmd)
        pt = js.get("point")
        if lo is not None and pt is not None and deviation(self.a, self.b, [F(str(v)) for v in pt])[0] != lo:
            self.find(f"{name}: the point does not attain lower {lo}", cmd)

    # canon and dim ------------------------------------------------------------------------------
    def check_canon(self):
        if len(self.a) != 2 or len(self.b) != 2 or self.plan.eq_R is None:
            return
        fps = []
        for p in (self.pa, self.pb):
            code, js, cmd = self._json_plain("canon", "canon", p)
            if js is None:
                return
            fps.append(js.get("fingerprint"))
        same = fps[0] == fps[1]
        self.calls[f"canon same {same} eq_R {self.plan.eq_R}"] += 1
        if same and not self.plan.eq_R:
            self.find("UNSOUND canon: equal fingerprints for nets that differ on R^d",
                      f"netfibers canon {self.pa}; netfibers canon {self.pb}")
        if not same and self.plan.eq_R:
            self.find("canon: different fingerprints for equivalent nets",
                      f"netfibers canon {self.pa}; netfibers canon {self.pb}")

    def _json_plain(self, name, *argv):
        code, out, err, dt = self.run(*argv, "--json")
        self.calls[name] += 1
        self.times[name] += dt
        return self._parsed(name, code, out, err, "netfibers " + " ".join(map(str, argv)) + " --json")

    def check_dim(self):
        """dim is a property of the parameter point's fiber: a permuted / positively rescaled copy
        (same architecture) has the same functional dimension."""
        if self.kind not in ("awkward_scale", "huge_tiny", "bottleneck") or not self.plan.eq_R or n_hidden(self.a) > 8 \
                or any(iv != self.dom[1][0] for iv in self.dom[1]):
            return
        vals = []
        for p in (self.pa, self.pb):
            code, js, cmd = self._json("dim", "dim", p, *_dom_args(self.dom), timeout=10)
            if js is None:
                return
            fd = [js.get("functional_dimension"), js.get("fiber_dimension"), js.get("exact")]
            vals.append((code, json.dumps(fd) if code == 0 else None, js))
        if vals[0][0] == 0 and vals[1][0] == 0 and vals[0][1] != vals[1][1]:
            self.find(f"dim: {vals[0][1][:120]} for a, {vals[1][1][:120]} for its rescaled copy",
                      f"netfibers dim {self.pa}; netfibers dim {self.pb}")
        self.calls["dim pair"] += 1

    def check_s1s2_invariants(self):
        """b = a permuted and positively rescaled (S1/S2): ``identify`` (answer and which
        hypotheses hold) and ``fiber`` (its dimension) give the same for both."""
        if self.kind not in ("awkward_scale", "huge_tiny", "bottleneck") or not self.plan.eq_R or len(self.a) != 3 \
                or len(self.a[0][0]) > len(self.a[0][0][0]):      # identify / fiber need n1 <= d
            return
        for name, key in (("identify", lambda js: (js.get("answer"), [h.get("holds") for h in js.get("hypotheses", [])])),
                          ("fiber", lambda js: js.get("dimension"))):
            got = []
            for p in (self.pa, self.pb):
                code, js, cmd = self._json_plain(name, name, p)
                if js is None:
                    return
                got.append((code, key(js)))
            self.calls[f"{name} pair"] += 1
            if got[0] != got[1]:
                self.find(f"{name}: {got[0]} for a, {got[1]} for a permuted, rescaled copy",
                          f"netfibers {name} {self.pa}; netfibers {name} {self.pb}")


def run_case(seed, runner, kind=None, log=print, small=False, api=True, regions=True, large=False):
    with tempfile.TemporaryDirectory() as wd:
        c = Adversarial(seed, kind, runner, wd, small, api, large)
        if c.dom[0] == "orthant":
            c.check_orthant()
            for f in c.findings:
                log(f"FINDING seed={seed} kind={f[0]}: {f[2]}" + (f"\n    {f[3]}" if f[3] else ""))
            return c
        dom = c.dom
        d = len(dom[1])
        ans_R = c.check_equiv(("R", d), "auto")
        if c.plan.eq_R is not None and ans_R is not None and ans_R != c.plan.eq_R:
            c.find(f"equiv on R^d says {ans_R}, planted {c.plan.eq_R}")
        fast = "shallow" if len(c.a) == 2 and len(c.b) == 2 else "bottleneck" if len(c.a) == 3 and len(c.b) == 3 else None
        if fast:       # the fast path asked for by name: it decides only after checking its hypotheses
            got_fast = c.check_equiv(("R", d), fast)
            if c.plan.eq_R is not None and got_fast is not None and got_fast != c.plan.eq_R:
                c.find(f"equiv --method {fast} says {got_fast}, planted {c.plan.eq_R}")
        cube = all(iv == dom[1][0] for iv in dom[1])
        ans = None
        if cube:
            ans = c.check_equiv(dom, "auto")
            c.check_equiv(dom, "general")
        exact, low = c.truth_max(dom)
        got = c.check_diff(dom, exact=exact, low=low)
        if got and got[1] is not None:
            for x in c.plan.probes:
                if c._in(dom, x) and deviation(c.a, c.b, x)[0] > got[1]:
                    c.find(f"UNSOUND diff: upper {got[1]} below |a - b| at the planted point {[str(v) for v in x]}")
        c.check_diff_forms(dom, exact, low, got)
        if cube and d > 0 and dom[1][0][0] < dom[1][0][1]:
            c.check_diff(dom, ball=True, exact=exact, low=low)
            c.check_diff(dom, exact=exact, low=low, method="walk")
        ref = exact if exact is not None else (got[0] if got and got[2] else None)
        e0 = c.check_epsilon(dom, F(0), exact)
        if e0 is not None and ans is not None and e0 != ans:
            c.find(f"equiv --epsilon 0 says {e0}, equiv --box says {ans}")
        if ref is not None:
            c.check_epsilon(dom, ref, exact)
            if ref > 0:
                c.check_epsilon(dom, ref * (1 - F(1, 10**9)), exact)
        if regions and n_hidden(c.a) <= 8:
            if any(lo == hi for lo, hi in dom[1]):
                # a box of width 0 in some coordinates: the slice's regions (at least one, each
                # point on the slice), a one-point box refused (exit 2)
                point = all(lo == hi for lo, hi in dom[1])
                if point:
                    code = c.run("regions", c.pa, *_dom_args(dom), "--json")[0]
                    c.calls[f"regions on a one-point box: exit {code}"] += 1
                    if code != 2:
                        c.find(f"regions on a one-point box: exit {code}, want 2")
                    js = None
                else:
                    code, js, _ = c._json("regions", "regions", c.pa, *_dom_args(dom))
                if js is not None:
                    c.calls[f"regions on a degenerate box: {js.get('number_of_regions')} regions"] += 1
                    if point or js.get("number_of_regions", 0) < 1 or any(
                            F(str(r["point"][i])) != lo for r in js["regions"]
                            for i, (lo, hi) in enumerate(dom[1]) if lo == hi):
                        c.find(f"regions on a box of width 0: exit {code}, {js.get('number_of_regions')} "
                               "regions (want the slice's, >= 1, on the slice; exit 2 on one point)")

            else:
                c.check_regions(c.a, c.pa, dom)
                if d == 1 and n_hidden(c.b) <= 12:        # b's bump: regions 1e-6 wide
                    c.check_regions(c.b, c.pb, dom)
        c.check_canon()
        c.check_dim()
        c.check_s1s2_invariants()
        finish_case(c, api, dom, ans, exact, log, lambda kind: (
            f"python -m tests.fuzz.adversarial --seed {seed} --count 1 --kinds {kind}{' --small' if small else ''}"
            f"{' --large' if large else ''}"))
        return c


def main(argv=None):
    ap = fuzz_parser(__doc__)
    ap.add_argument("--no-api", action="store_true")
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else KINDS
    for k in kinds:
        if k not in KINDS:
            ap.error(f"unknown kind {k!r}; one of {', '.join(KINDS)}")
    return run_seeds(args, KINDS, lambda s: kinds[s % len(kinds)],
                     lambda s, runner, kind: run_case(s, runner, kind, small=args.small, api=not args.no_api,
                                                      large=args.large, regions=not args.large),
                     lambda c: c.style, kind_width=15)


if __name__ == "__main__":
    sys.exit(main())
