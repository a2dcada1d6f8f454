r"""Soundness campaign of ``dim`` (functional dimension) against an independent exact oracle.

Small ReLU networks (d <= 3, 1-3 hidden layers, <= 14 hidden neurons, 1-2 outputs) are built
with the degeneracies users hand to ``dim`` planted on purpose: dead neurons, duplicate and
negatively-scaled duplicate rows, zero rows (constant neurons, and z ≡ 0), zero columns, rarely
active neurons (a 1e-6 sliver of the box), pairs never active together and pairs co-active only
on a tiny region, masked neurons, always-on (linear) neurons, float16 weights; on a box, the
orthant or R^d.  Every answer of ``functional_dimension`` is compared with the oracle below:
exact must equal it, an interval must contain it, the certificate must pass ``verify`` (in
process, and ``netfibers verify`` for a sample with ``--cli``) and mutated certificates (lower
+1, upper −1, an upper direction naming a live neuron dead) must fail.

**The oracle** (shares no code with netfibers; the region enumerator is a depth-first search
over neurons in layer order with z3 for strict feasibility, a witness point reused when it
already decides a side).  An activation pattern has an interior in the domain D when the strict
system {s_j z_j(x) > 0} ∩ int D is feasible; a neuron whose pre-activation is the zero affine map
on the pattern's set (given the lower layers' pattern) is a *kink* of the whole region (sign 0,
h = 0).  On such a region r, f_θ(x) = A_r(θ) x + c_r(θ).  The Jacobian row at x is
J(x) = Σ_k x_k ∂A_r[:, k]/∂θ + ∂c_r/∂θ, so the span of {J(x) : x ∈ r} (r open) is the span of
the d + 1 coefficient rows ∂(A_r, c_r)/∂θ (take d + 1 affinely independent points of r).  The
functional dimension is the rank of the Jacobian of θ ↦ (f_θ(x))_x over the inputs x of D where
θ ↦ f_θ(x) is differentiable; in the interior of a region that holds exactly when every kink
neuron is unseen by the network above it (e = ∂f/∂h = 0 for every output, the rule stated in
netfibers' ``algebra/kernel/differentiability.py``: a standard argument — a kink neuron seen from
above gives different one-sided derivatives in its bias; re-derived here, not imported).  The
oracle is the rank of the stacked rows of the differentiable regions; "non-generic" when there
is none.  On a box the regions are those of the open box: the functional dimension as netfibers
documents it (``semialgebraic/dimension/functional.py``: the rank over the differentiable inputs
of the domain) also counts inputs on region boundaries and on the faces of the box; they change
nothing.

**Why the interiors suffice** (so the oracle *is* the documented definition, boundaries and box
faces included).  Let x be a differentiable input with kink set K_x and R any region whose
closure holds x.  Neurons outside K_x have the same strict sign on R; top-down, e = Wᵀδ is the
same at x and on R, and δ[j] = mask[j]·e[j] agrees too (outside K_x the masks agree, inside
e[j] = 0 by differentiability at x).  So the kinks of R (⊂ K_x) are unseen — R is differentiable
— and the row at x is the limit of R's rows (h is continuous): it lies in R's span.  Every input
of a box with an interior, of the orthant or of R^d is in the closure of a region with an
interior, so the rank over all differentiable inputs is the rank over the differentiable
regions, and "no differentiable region" is "non-generic".  Checked against netfibers' text: the
same rule (``algebra/kernel/differentiability.py``) and definition (``functional.py``): no
difference found.

Run by hand (``nice`` it)::

    nice -n 15 python -m tests.fuzz.dim_campaign --seed 0 --count 200 [--cli] [--timeout 30]

One line per case, ``FINDING`` lines with the rerun command, a table of kinds at the end.
``tests/fuzz/test_dim_campaign.py`` runs a small sample in the suite.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from fractions import Fraction as F

import numpy as np

from tests.fuzz.bab_fuzz import to_algebra, to_json

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SLIVER = F(1, 10**6)

KINDS = ["plain", "dead", "duplicate", "negdup", "zero_row", "zero_z", "zero_col", "rare",
         "never_pair", "tiny_pair", "masked", "linear", "relay", "near_masked", "near_linear",
         "near_zero", "block", "near_block", "gated", "float16", "combo", "wild"]
PLANTABLE = KINDS[1:19]

# -------------------------------------------------------------------------------------------------
# the oracle: regions with an interior, exact Jacobian coefficient rows, exact rank
# -------------------------------------------------------------------------------------------------


def _dot(u, v):
    return sum((a * b for a, b in zip(u, v)), F(0))


def _strict_ok(form, x):
    co, cc = form
    return _dot(co, x) + cc


class _Feasible:
    """Strict feasibility of a conjunction of strict affine inequalities (z3, incremental)."""

    def __init__(self, d, dom):
        import z3
        self.z3, self.d = z3, d
        self.xs = [z3.Real(f"x{i}") for i in range(d)]
        self.s = z3.Solver()
        self.s.set("timeout", 20000)
        if dom[0] == "box":
            lo, hi = dom[1]
            for x in self.xs:
                self.s.add(x > z3.RealVal(str(lo)), x < z3.RealVal(str(hi)))
        elif dom[0] == "boxes":                        # a box with its own sides per coordinate
            for x, (lo, hi) in zip(self.xs, dom[1]):
                self.s.add(x > z3.RealVal(str(lo)), x < z3.RealVal(str(hi)))
        elif dom[0] == "orthant":
            for x in self.xs:
                self.s.add(x > 0)
        elif dom[0] == "cut":                          # a box cut by half-spaces a.x <= b (R37)
            for x, (lo, hi) in zip(self.xs, dom[1]):
                self.s.add(x > z3.RealVal(str(lo)), x < z3.RealVal(str(hi)))
            for a, b in dom[2]:
                self.s.add(self.expr(([-v for v in a], b)) > 0)
        self.calls = 0

    def expr(self, form):
        co, cc = form
        z3 = self.z3
        return z3.Sum([z3.RealVal(str(cc))] + [z3.RealVal(str(v)) * x for v, x in zip(co, self.xs) if v != 0])

    def witness(self, form):
        """A point of the current system with form > 0, or None (infeasible)."""
        self.s.push()
        self.s.add(self.expr(form) > 0)
        self.calls += 1
        r = self.s.check()
        out = None
        if r == self.z3.sat:
            mdl = self.s.model()
            out = []
            for x in self.xs:
                v = mdl.eval(x, model_completion=True)
                out.append(F(v.numerator_as_long(), v.denominator_as_long()))
        elif r != self.z3.unsat:
            raise RuntimeError("z3 unknown")
        self.s.pop()
        return out

    def push(self, form, sign):
        self.s.push()
        co, cc = form
        self.s.add(self.expr(([sign * v for v in co], sign * cc)) > 0)

    def pop(self):
        self.s.pop()


def start_point(d, dom):
    if dom[0] == "box":
        return [(dom[1][0] + dom[1][1]) / 2] * d
    if dom[0] == "boxes":
        return [(lo + hi) / 2 for lo, hi in dom[1]]
    if dom[0] == "orthant":
        return [F(1)] * d
    return [F(0)] * d


def regions(net, dom, limit=5000):
    """Every activation pattern with an interior in the domain: a list of patterns (tuples of
    -1/0/1 per hidden neuron in layer order; 0 = the zero affine map on the region)."""
    d = len(net[0][0][0])
    feas = _Feasible(d, dom)
    hidden = net[:-1]
    out = []

    def layer_forms(t, h):
        W, b = hidden[t]
        return [([_dot(row, [hv[0][j] for hv in h]) for j in range(d)], c + _dot(row, [hv[1] for hv in h]))
                for row, c in zip(W, b)]

    def rec(t, j, forms, h_next, pattern, x):
        if len(out) > limit:
            raise RuntimeError("too many regions")
        if t == len(hidden):
            out.append(tuple(pattern))
            return
        if j == len(forms):
            nf = layer_forms(t + 1, h_next) if t + 1 < len(hidden) else None
            rec(t + 1, 0, nf, [], pattern, x)
            return
        co, cc = forms[j]
        zero = ([F(0)] * d, F(0))
        if all(v == 0 for v in co):
            s = 0 if cc == 0 else (1 if cc > 0 else -1)
            rec(t, j + 1, forms, h_next + [forms[j] if s > 0 else zero], pattern + [s], x)
            return
        for s in (1, -1):
            form = ([s * v for v in co], s * cc)
            y = x if _strict_ok(form, x) > 0 else feas.witness(form)
            if y is None:
                continue
            feas.push(forms[j], s)
            rec(t, j + 1, forms, h_next + [forms[j] if s > 0 else zero], pattern + [s], y)
            feas.pop()

    ident = [([F(int(i == j)) for j in range(d)], F(0)) for i in range(d)]
    # the start point must lie in the open domain: all constraints hold there before any neuron
    x0 = feas.witness(([F(0)] * d, F(1))) if dom[0] == "cut" else start_point(d, dom)
    if x0 is None:                                     # a cut without interior: no region
        return out, feas.calls
    rec(0, 0, layer_forms(0, ident), [], [], x0)
    return out, feas.calls


def region_rows(net, pattern):
    """(differentiable, rows): the coefficient rows ∂(A_r[o, k], c_r[o])/∂θ of every output o
    and coefficient k (x_1..x_d, 1) on the region of *pattern*; parameters ordered layer by
    layer, W row-major then b."""
    d = len(net[0][0][0])
    L = len(net)
    # forward: h_t as affine maps (M rows, m) of x, masks from the pattern
    H = [[([F(int(i == j)) for j in range(d)], F(0)) for i in range(d)]]     # H[0]: the input
    masks, k = [], 0
    for t in range(L - 1):
        W, b = net[t]
        z = [([_dot(row, [hv[0][j] for hv in H[-1]]) for j in range(d)], c + _dot(row, [hv[1] for hv in H[-1]]))
             for row, c in zip(W, b)]
        mk = pattern[k:k + len(W)]
        k += len(W)
        masks.append(mk)
        H.append([zz if s > 0 else ([F(0)] * d, F(0)) for zz, s in zip(z, mk)])
    m = len(net[-1][0])
    # backward: D[t][o][i] = ∂f_o/∂z_t[i] (t = L-1: the output layer)
    D = [None] * L
    D[L - 1] = [[F(int(o == i)) for i in range(m)] for o in range(m)]
    differentiable = True
    for t in range(L - 2, -1, -1):
        Wn = net[t + 1][0]
        E = [[sum((D[t + 1][o][q] * Wn[q][i] for q in range(len(Wn))), F(0)) for i in range(len(net[t][0]))]
             for o in range(m)]
        for i, s in enumerate(masks[t]):
            if s == 0 and any(E[o][i] != 0 for o in range(m)):
                differentiable = False
        D[t] = [[E[o][i] if masks[t][i] > 0 else F(0) for i in range(len(E[o]))] for o in range(m)]
    rows = []
    for o in range(m):
        for c in range(d + 1):               # c < d: coefficient of x_c; c == d: the constant
            row = []
            for t in range(L):
                W, b = net[t]
                for i in range(len(W)):
                    for q in range(len(W[i])):
                        hq = H[t][q]
                        row.append(D[t][o][i] * (hq[0][c] if c < d else hq[1]))
                for i in range(len(W)):
                    row.append(D[t][o][i] if c == d else F(0))
            rows.append(row)
    return differentiable, rows


def exact_rank(rows):
    """Rank over Q (python-flint, integer rows after clearing denominators)."""
    import flint
    seen, ints = set(), []
    for r in rows:
        if not any(r):
            continue
        den = math.lcm(*(v.denominator for v in r))
        ir = tuple(int(v * den) for v in r)
        if ir not in seen:
            seen.add(ir)
            ints.append(ir)
    if not ints:
        return 0
    return flint.fmpz_mat([list(r) for r in ints]).rank()


def oracle(net, dom):
    """{"value": rank or None (non-generic), "regions": n, "differentiable": n, "live": set of
    hidden neurons active on some differentiable region, "exercised": parameters (flat order:
    layer by layer, W row by row, then b) whose column is non-zero there, "calls": z3 calls}."""
    pats, calls = regions(net, dom)
    rows, ndiff, live, exercised = [], 0, set(), set()
    for p in pats:
        ok, rs = region_rows(net, p)
        if ok:
            ndiff += 1
            rows.extend(rs)
            live |= {i for i, s in enumerate(p) if s > 0}
            exercised |= {k for r in rs for k, v in enumerate(r) if v != 0}
    return {"value": exact_rank(rows) if ndiff else None, "regions": len(pats), "differentiable": ndiff,
            "live": live, "exercised": exercised, "calls": calls}


# -------------------------------------------------------------------------------------------------
# networks with planted degeneracies
# -------------------------------------------------------------------------------------------------
def _val(rng, style):
    if style == "f16":
        return F(float(np.float16(rng.gauss(0, 1))))
    if style == "wild":             # 1e-6 … 1e-12 entries, float16 subnormals, 12-digit numerators
        t = rng.random()
        if t < 0.15:
            return F(rng.choice([-1, 1]), 10 ** rng.randint(6, 12))
        if t < 0.3:
            return F(float(np.float16(rng.gauss(0, 1) * 1e-6)))
        if t < 0.4:
            return F(rng.randint(-10**12, 10**12), rng.randint(1, 10**6))
    if rng.random() < 0.1:
        return F(0)
    return F(rng.randint(-4, 4), rng.choice([1, 1, 2, 3]))


def _lo_hi(dom, d):
    """Lower/upper bound of each input on the domain (None: unbounded)."""
    if dom[0] == "box":
        return dom[1]
    if dom[0] == "orthant":
        return (F(0), None)
    return (None, None)


def plant(net, rng, kind, dom):
    """Plant one degeneracy of *kind* into the (mutable) net; returns a short description."""
    hidden = list(range(len(net) - 1))
    t = rng.choice(hidden)
    W, b = net[t]
    n_in = len(W[0])
    i = rng.randrange(len(W))
    lo, hi = _lo_hi(dom, n_in)
    if kind == "dead":
        W[i] = [F(0)] * n_in if t > 0 or dom[0] == "R" else [F(abs(v)) for v in W[i]]
        if dom[0] == "box" and t == 0:       # rows ≥ 0: max over the box at hi
            b[i] = -sum((v * max(abs(lo), abs(hi)) for v in W[i]), F(0)) - 1
        elif dom[0] == "orthant" and t == 0:
            W[i] = [-abs(v) for v in W[i]]
            b[i] = F(-1)
        else:
            b[i] = F(-rng.randint(1, 3))
        if t > 0 and rng.random() < 0.5:      # or dead through an all-negative row on h >= 0
            W[i] = [-abs(v) for v in W[i]]
            b[i] = F(-1, 2)
        return f"dead ({t},{i})"
    if kind in ("duplicate", "negdup") and len(W) > 1:
        j = rng.choice([q for q in range(len(W)) if q != i])
        s = F(rng.choice([1, 2, 3]), rng.choice([1, 2])) * (1 if kind == "duplicate" else -1)
        W[j], b[j] = [s * v for v in W[i]], s * b[i]
        return f"{kind} ({t},{j})={s}*({t},{i})"
    if kind == "zero_row":
        W[i] = [F(0)] * n_in
        b[i] = F(rng.choice([-2, -1, 1, 2]))
        return f"zero row ({t},{i}) bias {b[i]}"
    if kind == "zero_z":
        W[i], b[i] = [F(0)] * n_in, F(0)
        if rng.random() < 0.5:              # unseen half the time: a zero outgoing column
            for row in net[t + 1][0]:
                row[i] = F(0)
            return f"z≡0 ({t},{i}) unseen"
        return f"z≡0 ({t},{i})"
    if kind == "zero_col":
        for row in net[t + 1][0]:
            row[i] = F(0)
        return f"zero column ({t},{i})"
    if kind == "linear":
        if t == 0 and dom[0] == "box":
            W[i] = [F(abs(v)) for v in W[i]]
            b[i] = sum((v * max(abs(lo), abs(hi)) for v in W[i]), F(0)) + 1
        elif t == 0 and dom[0] == "orthant":
            W[i] = [F(abs(v)) for v in W[i]]
            b[i] = F(1)
        else:                                # on h >= 0 a row >= 0 and a positive bias
            W[i] = [F(abs(v)) for v in W[i]]
            b[i] = F(rng.randint(1, 3))
        return f"always on ({t},{i})"
    if kind == "rare" and t == 0:
        k = rng.randrange(n_in)
        W[i] = [F(int(q == k)) for q in range(n_in)]
        edge = hi if hi is not None else F(5)
        b[i] = -(edge - SLIVER)              # active on x_k > edge - 1e-6 (a sliver of the box)
        return f"rare ({t},{i}) x{k} > {float(edge - SLIVER)}"
    if kind in ("never_pair", "tiny_pair") and len(W) > 1:
        j = rng.choice([q for q in range(len(W)) if q != i])
        gap = -SLIVER if kind == "never_pair" else SLIVER
        W[j], b[j] = [-v for v in W[i]], -b[i] + gap
        return f"{kind} ({t},{i}),({t},{j}) gap {gap}"
    if kind == "masked" and t + 1 < len(net) - 1:
        Wn, bn = net[t + 1]
        for j in range(len(Wn)):            # successors of i: only i feeds them positively
            if Wn[j][i] != 0:
                Wn[j] = [F(abs(Wn[j][i])) if q == i else -abs(v) for q, v in enumerate(Wn[j])]
                bn[j] = -abs(bn[j]) - F(1, 4)
        return f"masked ({t},{i})"
    if kind == "near_masked" and t + 1 < len(net) - 1:
        Wn, bn = net[t + 1]
        for j in range(len(Wn)):            # masked but for a 1e-6 bias: active where i is off
            if Wn[j][i] != 0:
                Wn[j] = [F(abs(Wn[j][i])) if q == i else -abs(v) for q, v in enumerate(Wn[j])]
                bn[j] = SLIVER
        return f"near masked ({t},{i})"
    if kind == "near_linear":
        W[i] = [F(abs(v)) for v in W[i]]
        if t == 0 and dom[0] == "box":      # min over the box -1e-6: off on a tiny corner
            b[i] = -lo * sum(W[i], F(0)) - SLIVER
        else:                                # on h >= 0 (or the orthant): off only near h = 0
            b[i] = -SLIVER
        return f"near always on ({t},{i})"
    if kind == "relay" and t > 0:
        k = rng.randrange(n_in)              # z = c·h_{t-1}[k]: vanishes wherever that neuron is off
        W[i] = [F(rng.choice([1, 2])) if q == k else F(0) for q in range(n_in)]
        b[i] = F(0)
        return f"relay ({t},{i}) of ({t - 1},{k})"
    if kind == "near_zero":
        W[i], b[i] = [F(0)] * n_in, rng.choice([SLIVER, -SLIVER])
        return f"near z≡0 ({t},{i}) bias {b[i]}"
    if kind in ("block", "near_block") and len(W) > 1:
        js = rng.sample(range(len(W)), min(len(W), rng.randint(2, 3)))
        for j in js:                         # always on together (S4 GL block), or one off on a corner
            W[j] = [F(abs(v)) for v in W[j]]
            low = (lo * sum(W[j], F(0))) if (t == 0 and dom[0] == "box") else F(0)
            b[j] = -low + F(rng.randint(1, 2))
        if t == 0 and dom[0] == "R":
            for j in js:
                W[j] = [F(0)] * n_in         # on R^d only constant rows are always on
        if kind == "near_block":
            j = js[0]
            if t == 0 and dom[0] == "R":
                W[j] = [F(1)] + [F(0)] * (n_in - 1)
                b[j] = F(10**6)              # off only for x_0 < -1e6
            else:
                low = (lo * sum(W[j], F(0))) if (t == 0 and dom[0] == "box") else F(0)
                b[j] = -low - SLIVER
        return f"{kind} ({t},{js})"
    if kind == "gated" and t > 0 and n_in > 1:
        k, q = rng.sample(range(n_in), 2)    # active only where h_{t-1}[k] is (almost) 0
        W[i] = [F(0)] * n_in
        W[i][k], W[i][q] = F(-10), F(rng.choice([1, 2]))
        b[i] = rng.choice([F(-1, 2), -SLIVER, SLIVER])
        return f"gated ({t},{i}) by ({t - 1},{k}) bias {b[i]}"
    return f"nothing planted ({kind} at ({t},{i}))"


def make_case(seed, kind=None, large=False):
    rng = random.Random(seed)
    kind = kind or KINDS[seed % len(KINDS)]
    d = rng.randint(2, 3) if large else rng.randint(1, 3)
    depth = rng.randint(2, 3) if large else rng.randint(1, 3)
    cap = 14
    hidden = []
    for _ in range(depth):
        room = cap - sum(hidden) - 2 * (depth - len(hidden) - 1)
        top = 8 if large else 7 if depth == 1 else 5
        hidden.append(rng.randint(min(4 if large else 2, room), max(2, min(top, room))))
    m = rng.choice([1, 1, 2])
    style = "f16" if kind == "float16" or (kind == "combo" and rng.random() < 0.3) else \
        "wild" if kind == "wild" else "rat"
    sizes = [d] + hidden + [m]
    net = [([[_val(rng, style) for _ in range(sizes[l])] for _ in range(sizes[l + 1])],
            [_val(rng, style) for _ in range(sizes[l + 1])]) for l in range(len(sizes) - 1)]
    r = rng.random()
    dom = ("box", (F(-1), F(1))) if r < 0.35 else ("box", (F(-1, 3), F(5, 7))) if r < 0.45 else \
        ("box", (F(0), F(rng.choice([1, 2])))) if r < 0.6 else \
        ("orthant",) if r < 0.75 else ("R",)
    planted = []
    kinds = [kind] if kind not in ("plain", "float16", "combo") else \
        [] if kind != "combo" else rng.sample(PLANTABLE, rng.randint(2, 4))
    if kind == "wild":
        kinds = rng.sample(PLANTABLE, rng.randint(0, 2))
    for k in kinds:
        planted.append(plant(net, rng, k, dom))
    return kind, net, dom, planted


# -------------------------------------------------------------------------------------------------
# the checks
# -------------------------------------------------------------------------------------------------
def _api_domain(dom):
    if dom[0] == "boxes":
        from algebra.kernel.domains import Domain
        from algebra.rationals import Q
        return Domain([Q(str(lo)) for lo, _ in dom[1]], [Q(str(hi)) for _, hi in dom[1]])
    return None if dom[0] == "R" else "orthant" if dom[0] == "orthant" else (dom[1][0], dom[1][1])


def own_sides(seed, dom, d):
    """``--own-sides``: a cube case's box given its own sides per coordinate (three-layer-fibers
    R36), drawn from a generator of its own so that the case's network stays the seed's."""
    if dom[0] != "box":
        return dom
    rng = random.Random(seed * 7919 + 17)
    lo, hi = dom[1]
    sides = []
    for _ in range(d):
        a = lo + (hi - lo) * F(rng.randint(-3, 3), 8)
        sides.append((a, a + (hi - lo) * F(rng.randint(2, 12), 8)))
    return ("boxes", sides)


def cut_domain(seed, dom, d):
    """``--cut``: a cube case's box cut by one half-space a.x <= b through a random point of it
    (three-layer-fibers R37), from a generator of its own (the case's network stays the seed's)."""
    if dom[0] != "box":
        return dom
    rng = random.Random(seed * 104729 + 3)
    lo, hi = dom[1]
    a = [F(0)] * d
    while all(v == 0 for v in a):
        a = [F(rng.randint(-3, 3)) for _ in range(d)]
    p = [lo + (hi - lo) * F(rng.randint(1, 7), 8) for _ in range(d)]
    return ("cut", [(lo, hi)] * d, [(a, _dot(a, p))])


def _hidden_index(net, flat):
    k = flat
    for t, (W, _) in enumerate(net[:-1]):
        if k < len(W):
            return t, k
        k -= len(W)
    raise IndexError(flat)


def mutations(cert, net, truth):
    """(name, mutated certificate) pairs that every checker must reject."""
    out = []
    v = truth["value"]
    if v is not None and cert["lower"] + 1 > v:
        c = json.loads(json.dumps(cert))
        c["lower"] += 1
        out.append(("lower+1", c))
    if "upper" in cert and v is not None and cert["upper"] - 1 < v:
        c = json.loads(json.dumps(cert))
        c["upper"] -= 1
        out.append(("upper-1", c))
    ups = cert.get("upper_directions") or []
    live = sorted(truth["live"])
    if ups and live:
        for idx, e in enumerate(ups):
            if e[0] in ("dead", "scale", "silent", "active"):
                t, i = _hidden_index(net, live[0])
                c = json.loads(json.dumps(cert))
                c["upper_directions"][idx] = ["dead", t, i]
                out.append((f"direction {e[0]}({e[1]},{e[2]})->dead({t},{i})", c))
                break
    used = sorted(truth["exercised"])
    for idx, e in enumerate(ups):
        if e[0] == "free" and used:          # a unit vector of a parameter that is exercised
            c = json.loads(json.dumps(cert))
            c["upper_directions"][idx] = ["free", used[0]] + list(e[2:])
            out.append((f"free({e[1]})->free({used[0]})", c))
            break
    if len(cert.get("upper_regions") or []) > 1:
        c = json.loads(json.dumps(cert))
        c["upper_regions"].pop()
        out.append(("upper_regions minus one", c))
    return out


class Case:
    def __init__(self, seed, kind, timeout, cli, workdir, large=False, max_regions=None,
                 sides=False, cut=False):
        self.seed = seed
        self.kind, self.net, self.dom, self.planted = make_case(seed, kind, large)
        if sides:
            self.dom = own_sides(seed, self.dom, len(self.net[0][0][0]))
        if cut:
            self.dom = cut_domain(seed, self.dom, len(self.net[0][0][0]))
        # two cases in three without the region walk: the sampled sandwich, its exact decisions
        # (suspects) and its proven directions are what the walk would otherwise hide
        self.max_regions = (400 if seed % 3 == 0 else 0) if max_regions is None else max_regions
        self.timeout, self.cli, self.wd = timeout, cli, workdir
        self.findings = []
        self.truth = None
        self.answer = None
        self.checks = Counter()
        self.bounds = None

    def find(self, what):
        self.findings.append(what)

    def run(self):
        from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
        from semialgebraic.verify import verify
        try:
            self.truth = oracle(self.net, self.dom)
        except RuntimeError as e:
            self.answer = f"oracle gave up ({e})"
            return
        net = to_algebra(self.net)
        v = self.truth["value"]
        if self.dom[0] == "cut":
            return self.run_cut(net, v)
        dom = _api_domain(self.dom)
        try:
            fd = functional_dimension(net, domain=dom, timeout=self.timeout, max_regions=self.max_regions)
        except Exception as e:      # a crash is a finding
            self.find(f"functional_dimension raised {type(e).__name__}: {e}")
            return
        self.answer = f"[{fd.lower},{fd.upper}]" + (" non-generic" if fd.non_generic else "") + f" oracle {v}"
        self.bounds = (fd.lower, fd.upper, fd.non_generic)
        if v is None:               # not defined: an exact value is wrong, an interval says nothing
            if fd.exact:
                self.find(f"oracle: no differentiable region (non-generic); dim says exactly {fd.value}"
                          "")
            self.checks["non-generic said" if fd.non_generic else "non-generic, an interval"] += 1
            return
        if fd.non_generic:
            self.find(f"dim says non-generic; the oracle has {self.truth['differentiable']} differentiable regions, "
                      f"rank {v}")
            return
        if fd.exact and fd.value != v:
            self.find(f"WRONG EXACT: dim {fd.value}, oracle {v}")
        elif not fd.lower <= v <= fd.upper:
            self.find(f"interval [{fd.lower},{fd.upper}] misses the oracle {v}")
        if self.dom[0] == "boxes":  # its certificate is the CLI's (the box read on the cube)
            if self.cli:
                self.check_cli(v)
                self.checks["cli"] += 1
            return
        try:
            cert = functional_dimension_certificate(net, fd, domain=dom, verify=False)
        except Exception as e:
            self.find(f"certificate raised {type(e).__name__}: {e}")
            return
        if cert["type"] == "one_hidden_layer_dimension":      # by the theorem (R38; above
            self.check_theorem(cert, v)                        # RANK_ONLY, or RANK_ONLY patched)
            return
        if not cert["inputs"]:      # documented: no differentiable input found, nothing shown
            self.checks["certificate without inputs"] += 1
            if fd.lower != 0:
                self.find(f"a certificate without inputs for lower {fd.lower}")
            return
        ok, why = verify(cert)
        self.checks["certificates"] += 1
        self.checks["upper certified"] += "upper" in cert
        self.checks["upper by " + ("directions" if "upper_directions" in cert else "regions" if "upper_regions" in cert
                                   else "one point" if "upper_one_point" in cert else "nothing")] += 1
        if not ok:
            self.find(f"certificate rejected: {why}")
        if cert["lower"] > v or ("upper" in cert and cert["upper"] < v):
            self.find(f"certificate claims [{cert['lower']},{cert.get('upper')}] against the oracle {v}")
        for name, bad in mutations(cert, self.net, self.truth):
            try:
                ok, why = verify(bad)
            except Exception:       # an input error is a rejection too
                ok = False
            self.checks["mutations " + name.split("(")[0].split(" ")[0].split("-")[0]] += 1
            if ok:
                self.find(f"mutated certificate ({name}) accepted")
        if self.cli:
            self.check_cli(v)
            self.checks["cli"] += 1

    def check_theorem(self, cert, v):
        """A ``one_hidden_layer_dimension`` certificate (three-layer-fibers R38): VALID, its value
        the oracle's, and a value off by one either way rejected."""
        from semialgebraic.verify import verify
        self.checks["R38 certificates"] += 1
        ok, why = verify(cert)
        if not ok:
            self.find(f"R38 certificate rejected: {why}")
        if cert["value"] != v:
            self.find(f"R38 certificate claims {cert['value']} against the oracle {v}")
        for delta in (1, -1):
            bad = json.loads(json.dumps(cert))
            bad["value"] += delta
            try:
                ok, _ = verify(bad)
            except Exception:
                ok = False
            self.checks["R38 mutations"] += 1
            if ok:
                self.find(f"R38 certificate with value {bad['value']} accepted")

    def run_cut(self, net, v):
        """A box cut by a half-space (R37): the sandwich's bounds contain the oracle's rank on the
        cut, its certificate verifies, a claim past the oracle is rejected."""
        from semialgebraic.dimension.sandwich import functional_dimension_on_cut, sandwich_certificate
        from semialgebraic.verify import verify
        lo, hi = [l for l, _ in self.dom[1]], [h for _, h in self.dom[1]]
        try:
            cut = functional_dimension_on_cut(net, lo, hi, self.dom[2], timeout=self.timeout,
                                              max_regions=self.max_regions)
        except Exception as e:
            self.find(f"functional_dimension_on_cut raised {type(e).__name__}: {e}")
            return
        if cut.inner is None:
            self.answer = f"no interior, oracle {v} ({self.truth['regions']} regions)"
            if self.truth["regions"]:
                self.find("no cube inside the cut, but the oracle has regions in it")
            return
        self.answer = f"[{cut.lower},{cut.upper}] oracle {v}"
        self.bounds = (cut.lower, cut.upper, "")
        if v is None:
            if cut.exact:
                self.find(f"oracle: no differentiable region; the cut says exactly {cut.value}")
            return
        if not cut.lower <= v <= cut.upper:
            self.find(f"cut interval [{cut.lower},{cut.upper}] misses the oracle {v}")
        try:
            cert = sandwich_certificate(net, cut)
        except ValueError as e:
            self.checks["cut: no certificate"] += 1
            return
        except Exception as e:
            self.find(f"sandwich_certificate raised {type(e).__name__}: {e}")
            return
        ok, why = verify(cert)
        self.checks["cut certificates"] += 1
        if not ok:
            self.find(f"sandwich certificate rejected: {why}")
        if cert["type"] == "one_hidden_layer_dimension":   # R38/R39 on the cut itself: exact
            self.checks["cut: by the theorem"] += 1
            if not cut.exact:
                self.find("the theorem's certificate on the cut, but the cut is not exact")
            self.check_theorem(cert, v)
            if self.cli:
                self.check_cli(v)
                self.checks["cli"] += 1
            return
        for name, key, delta in (("lower+1", "lower", 1), ("upper-1", "upper", -1)):
            if (key == "lower" and cert["lower"] + 1 > v) or (key == "upper" and cert["upper"] - 1 < v):
                bad = json.loads(json.dumps(cert))
                bad[key] += delta
                try:
                    ok, _ = verify(bad)
                except Exception:
                    ok = False
                self.checks["cut mutations " + name] += 1
                if ok:
                    self.find(f"mutated sandwich certificate ({name}) accepted")
        if self.cli:
            self.check_cli(v)
            self.checks["cli"] += 1

    def check_cli(self, v):
        path = os.path.join(self.wd, f"dim{self.seed}.json")
        cpath = os.path.join(self.wd, f"dimcert{self.seed}.json")
        with open(path, "w") as fh:
            json.dump(to_json(self.net), fh)
        args = [sys.executable, "-m", "netfibers", "dim", path, "--json", "--certificate", cpath,
                "--timeout", str(self.timeout), "--max-regions", str(self.max_regions)]
        if self.dom[0] == "box":
            args += ["--box", f"{self.dom[1][0]},{self.dom[1][1]}"]
        elif self.dom[0] == "boxes":
            args += ["--box", ",".join(f"{lo}:{hi}" for lo, hi in self.dom[1])]
        elif self.dom[0] == "cut":
            dpath = os.path.join(self.wd, f"dimdom{self.seed}.json")
            with open(dpath, "w") as fh:
                json.dump({"box": [[str(lo), str(hi)] for lo, hi in self.dom[1]],
                           "halfspaces": [{"a": [str(v) for v in a], "b": str(b)} for a, b in self.dom[2]]}, fh)
            args += ["--box", dpath]
        elif self.dom[0] == "orthant":
            args += ["--orthant"]
        p = subprocess.run(args, capture_output=True, text=True, cwd=ROOT)
        if p.returncode not in (0, 3):
            self.find(f"CLI dim exit {p.returncode}: {p.stderr[-300:]}")
            return
        out = json.loads(p.stdout)
        lo = out.get("lower", out.get("functional_dimension"))
        hi = out.get("upper", out.get("functional_dimension"))
        if lo is None or not (lo <= v <= hi) or (out.get("exact") and out["functional_dimension"] != v):
            self.find(f"CLI dim says {out.get('functional_dimension')} [{lo},{hi}], oracle {v}")
        if os.path.exists(cpath):
            q = subprocess.run([sys.executable, "-m", "netfibers", "verify", cpath], capture_output=True,
                               text=True, cwd=ROOT)
            if q.returncode != 0:
                self.find(f"netfibers verify rejects the CLI certificate: {q.stdout[-200:]} {q.stderr[-200:]}")


def run_case(seed, kind=None, timeout=30, cli=False, large=False, max_regions=None, sides=False,
             cut=False):
    with tempfile.TemporaryDirectory() as wd:
        c = Case(seed, kind, timeout, cli, wd, large, max_regions, sides, cut)
        c.run()
        return c


def widths(net):
    return [len(net[0][0][0])] + [len(W) for W, _ in net]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--kind", choices=KINDS)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--cli", action="store_true", help="also run the CLI and `netfibers verify`")
    ap.add_argument("--large", action="store_true", help="d 2-3, two or three hidden layers, 14 neurons")
    ap.add_argument("--own-sides", action="store_true",
                    help="cube cases on a box with its own sides per coordinate (R36)")
    ap.add_argument("--cut", action="store_true",
                    help="cube cases on the box cut by a half-space (R37: dim between the rank at "
                         "inputs of the cut and the box's value)")
    ap.add_argument("--audit", type=int, metavar="N",
                    help="tightness audit without the region walk (max_regions 0): N seeds from --seed "
                         "for every kind (--kind: that one), per-kind exact / upper above the oracle / gap")
    args = ap.parse_args(argv)
    if args.audit:
        return audit(args.seed, args.audit, [args.kind] if args.kind else KINDS, args.timeout, args.large)
    per_kind, bad, checks = Counter(), defaultdict(list), Counter()
    t0 = time.time()
    for s in range(args.seed, args.seed + args.count):
        t = time.time()
        c = run_case(s, args.kind, args.timeout, args.cli, args.large, sides=args.own_sides, cut=args.cut)
        per_kind[c.kind] += 1
        checks.update(c.checks)
        checks["exact answers"] += bool(c.answer and c.answer.startswith("[") and
                                        c.answer.split(",")[0][1:] == c.answer.split(",")[1].split("]")[0])
        checks["non-generic (oracle)"] += bool(c.truth and c.truth["value"] is None)
        tr = c.truth or {}
        print(f"seed {s} {c.kind:10s} {c.dom[0]:7s} walk {c.max_regions:3d} widths {widths(c.net)} regions {tr.get('regions')} "
              f"diff {tr.get('differentiable')}: {c.answer}; {'; '.join(c.planted)} "
              f"({time.time() - t:.1f} s)", flush=True)
        for f in c.findings:
            print(f"FINDING seed={s} kind={c.kind}: {f}\n    (python -m tests.fuzz.dim_campaign --seed {s} "
                  f"--count 1{' --kind ' + args.kind if args.kind else ''}{' --large' if args.large else ''}"
                  f"{' --own-sides' if args.own_sides else ''}{' --cut' if args.cut else ''})",
                  flush=True)
        if c.findings:
            bad[c.kind].append(s)
    print(f"\n{sum(per_kind.values())} cases in {time.time() - t0:.0f} s, {time.process_time():.0f} CPU s")
    for k in sorted(checks):
        print(f"  {k:24s} {checks[k]:5d}")
    for k in KINDS:
        if per_kind[k]:
            print(f"  {k:12s} {per_kind[k]:4d} cases, findings in seeds {bad.get(k, [])}")
    return 1 if bad else 0


def audit(seed, per, kinds, timeout=30, large=False) -> int:
    """How tight ``dim`` is without the region walk (``max_regions=0``): *per* seeds from *seed*
    for each of *kinds*; per kind the cases, those with an oracle value, the exact answers, the
    answers whose upper bound is above the oracle and the mean gap ``upper − oracle`` (over the
    cases with a value).  Findings are printed as in :func:`main`; returns 1 when there is one."""
    rows, bad = [], 0
    t0, c0 = time.time(), time.process_time()
    for kind in kinds:
        n = valued = exact = above = gap = 0
        for s in range(seed, seed + per):
            t = time.time()
            c = run_case(s, kind, timeout, False, large, max_regions=0)
            n += 1
            v = c.truth["value"] if c.truth else None
            print(f"seed {s} {kind:11s} {c.dom[0]:7s} widths {widths(c.net)}: {c.answer}; "
                  f"{'; '.join(c.planted)} ({time.time() - t:.1f} s)", flush=True)
            for f in c.findings:
                bad += 1
                print(f"FINDING seed={s} kind={kind}: {f}\n    (python -m tests.fuzz.dim_campaign --seed {s} "
                      f"--count 1 --kind {kind})", flush=True)
            if v is None or c.bounds is None or c.bounds[2]:
                continue
            valued += 1
            exact += c.bounds[0] == c.bounds[1]
            above += c.bounds[1] > v
            gap += c.bounds[1] - v
        rows.append((kind, n, valued, exact, above, gap))
    print(f"\naudit without the walk: {sum(r[1] for r in rows)} cases in {time.time() - t0:.0f} s, "
          f"{time.process_time() - c0:.0f} CPU s, findings {bad}")
    print(f"  {'kind':12s} cases valued exact upper>oracle mean-gap")
    for kind, n, valued, exact, above, gap in rows + [("all", *[sum(r[k] for r in rows) for k in range(1, 6)])]:
        print(f"  {kind:12s} {n:5d} {valued:6d} {exact:5d} {above:12d} {gap / valued if valued else 0:8.2f}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
