"""Adversarial campaign on the symmetry commands: ``fiber``, ``symmetries``, ``identify``,
``absorb``, ``conserved``, ``apply`` (and the symmetry paths of ``equiv``), ``verify`` of their
certificates, and their CLI forms.

Every case is *planted*: its truth is known by construction, and the oracles share no code with
netfibers (plain ``fractions.Fraction`` arithmetic, our own application of symmetry steps, z3 on
small nets, a brute-force Jacobian rank):

``fiber_image``
  a net (generic bottleneck, one hypothesis broken, a dead / linear / masked second-layer
  neuron, a one-hidden-layer net with zero, duplicate, negatively-scaled duplicate rows, a dead
  or split neuron) and its image under permutations and positive rescalings by awkward factors
  (7/3, 1e-7, 1e6): ``fiber`` and ``symmetries`` must report the same dimension, numbers of
  components and orbits and symmetries for both; every component's sample computes the net's
  function (exact evaluation at many rational points); ``dimension + rank J <= N`` (our rank).
``paths``
  ``equiv`` of a net and a planted image (S1/S2 with awkward factors, plus S3 on a dead neuron's
  output column, the bias of a linear neuron traded against the output bias, S6 on a masked
  neuron): a ``symmetry_path`` certificate is applied step by step with our own code (S1, S2,
  bottleneck_* steps, S6, S7, S8), each intermediate net equals the original as a function, the
  end is the certificate's b; ``netfibers apply`` writes the same b; ``verify`` accepts it and
  rejects (or finds true) one-leaf mutations.
``identify``
  bottlenecks whose R18 verdict we decide ourselves (every row of [W2 | b2] mixed, no masked
  column, G1–G5 by our own ranks), and planted non-identifiable ones (a dead row, a linear row, a
  masked column, n1 = 1 with one non-dead row (- | +)) together with a witness θ' of ours: same
  function (exact evaluation, z3) and not an S1/S2 image (our normal form). "identifiable" for a
  witnessed net is a soundness bug; "not identifiable" needs a path that we re-apply.
``absorb``
  blocks x + B relu(Ax + a) (+ b_down) absorbable by construction (a flip set S: B_S = -P^{-1},
  A_S = P, with biases; the identity realised by relu(x) - relu(-x) in the width's slack) and
  near misses (one entry moved by 1e-9, a rank-one perturbation): "absorbable" must come with a
  residual-free block of the same width that we evaluate exactly equal to the block; "not
  absorbable" is never said for a planted absorbable block; every certificate verified/mutated.
``conserved``
  the laws checked along exact gradient-flow steps and their count against N − rank of the
  gradient fields (``tests.fuzz.verdicts.run_conserved``), plus one-hidden-layer nets whose
  neurons all switch: exactly one law per hidden neuron (R23).
``cli``
  the same questions through the CLI: JSON with decimal literals ("0.1"), ``--json``,
  ``--exact``, ``.nnet``; the JSON answers agree with the API; malformed inputs (truncated JSON,
  a NaN, a ragged row, a missing file, a bad option value) give one line on stderr, exit 2, no
  traceback, no file written.

Run by hand (``nice`` it, one process at a time)::

    nice -n 10 python -m tests.fuzz.symmetry_campaign --seed 1 --count 100 [--kinds fiber_image,paths]

It prints one line per finding (with the seed that reproduces it) and a table per kind.
``tests/semialgebraic/test_symmetry_campaign.py`` runs a bounded sample.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import os
import random
import sys
import tempfile
import time
from collections import Counter
from fractions import Fraction as F
from pathlib import Path

from algebra.network import Network
from algebra.rationals import Q
from tests.fuzz.adversarial import _decimal
from tests.fuzz.inputs import run_cli
from tests.fuzz.verdicts import (check_certificate, frac_eval, frac_layers, jacobian_rank,
                                 my_genericity, random_bottleneck, random_shallow, s1s2_form,
                                 to_net, violate)

KINDS = ["fiber_image", "paths", "identify", "absorb", "conserved", "cli", "recover", "apply_mutated"]
AWKWARD = [F(7, 3), F(1, 10 ** 7), F(10 ** 6), F(1, 3), F(5), F(2, 9)]
TIMEOUT = 20


# -- networks as Fraction layers [(W rows, b)] -------------------------------------------------------
def layers_of(net: Network):
    return frac_layers(net)


def net_of(layers) -> Network:
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W] for W, _ in layers],
                             [[q(v) for v in b] for _, b in layers])


def flat(layers):
    return [v for W, b in layers for v in [x for r in W for x in r] + list(b)]


def unflat(layers, theta):
    out, k = [], 0
    for W, b in layers:
        W2 = []
        for r in W:
            W2.append([F(theta[k + j]) for j in range(len(r))])
            k += len(r)
        b2 = [F(theta[k + j]) for j in range(len(b))]
        k += len(b)
        out.append((W2, b2))
    assert k == len(theta), (k, len(theta))
    return out


def points(rng, d, k=30, spread=6):
    """Rational points: small denominators, a few near 0 and huge."""
    pts = []
    for i in range(k):
        den = rng.choice([1, 2, 3, 7, 97, 10 ** 6])
        p = [F(rng.randint(-spread * den, spread * den), den) for _ in range(d)]
        if i % 10 == 9:
            p = [v * 10 ** 7 for v in p]
        pts.append(p)
    return pts


def same_function(la, lb, rng, k=40, z3=True):
    """False if an exact evaluation separates the nets, else z3's answer on small nets (True /
    None when z3 is not asked or unknown ... None means 'agreed at every point')."""
    d = len(la[0][0][0])
    for x in points(rng, d, k):
        if frac_eval(la, x) != frac_eval(lb, x):
            return False
    if z3 and max(len(W) for W, _ in la + lb) <= 6:
        from tests.oracles.z3 import z3_equivalent
        return z3_equivalent(net_of(la), net_of(lb))
    return None


# -- our own symmetry moves ------------------------------------------------------------------------
def perm_scale(layers, rng, awkward=True):
    """Every hidden layer permuted and rescaled (factors from AWKWARD or small rationals)."""
    L = copy.deepcopy(layers)
    for l in range(len(L) - 1):
        W, b = L[l]
        n = len(W)
        perm = list(range(n))
        rng.shuffle(perm)
        sc = [rng.choice(AWKWARD) if awkward else F(rng.randint(1, 5), rng.randint(1, 5))
              for _ in range(n)]
        W = [[v * sc[p] for v in W[p]] for p in perm]
        b = [b[p] * sc[p] for p in perm]
        Wn, bn = L[l + 1]
        Wn = [[r[p] / sc[p] for p in perm] for r in Wn]
        L[l], L[l + 1] = (W, b), (Wn, bn)
    return L


def _q(v):
    return F(str(v))


def apply_step(L, st):
    """Our application of one JSON symmetry step to Fraction layers; None for a step we do not
    model (its effect is then only checked through the function)."""
    L = copy.deepcopy(L)
    name = st.get("step")
    if name in ("S1", "bottleneck_permute"):
        l = st["layer"] - (1 if name == "bottleneck_permute" else 0)
        perm = st["perm"]
        W, b = L[l]
        Wn, bn = L[l + 1]
        L[l] = ([W[p] for p in perm], [b[p] for p in perm])
        L[l + 1] = ([[r[p] for p in perm] for r in Wn], bn)
        return L
    if name in ("S2", "bottleneck_rescale_layer", "bottleneck_rescale"):
        l = st["layer"] - (0 if name == "S2" else 1)
        W, b = L[l]
        if name == "bottleneck_rescale":
            fs = [F(1)] * len(W)
            fs[st["neuron"]] = _q(st["factor"])
        else:
            fs = [_q(v) for v in st["factors"]]
        if any(f <= 0 for f in fs):
            return "invalid: a factor <= 0"
        Wn, bn = L[l + 1]
        L[l] = ([[v * f for v in r] for r, f in zip(W, fs)], [c * f for c, f in zip(b, fs)])
        L[l + 1] = ([[v / f for v, f in zip(r, fs)] for r in Wn], bn)
        return L
    if name == "bottleneck_tail" and len(L) == 3:
        (W2, b2), (W3, b3) = L[1], L[2]
        for rep in st["replace"]:
            j = rep["neuron"]
            row = [_q(v) for v in rep["row"]]
            W2[j], b2[j] = row[:-1], row[-1]
            for o, v in enumerate(rep["out"]):
                W3[o][j] = _q(v)
        L[1], L[2] = (W2, b2), (W3, [_q(v) for v in st["b3"]])
        return L
    if name == "S6" and len(L) == 3:
        i, t = st["neuron"], _q(st["t"])
        (W1, b1), (W2, b2) = L[0], L[1]
        b1[i] += t
        L[1] = (W2, [c - t * r[i] for r, c in zip(W2, b2)])
        return L
    if name == "S8" and len(L) == 3:
        (W1, b1), (W2, b2), (W3, b3) = L
        live = [j for j, (r, c) in enumerate(zip(W2, b2)) if not all(v < 0 for v in r + [c])]
        if len(W1) != 1 or not live or any(not W2[j][0] < 0 < b2[j] for j in live):
            return "invalid: S8 needs n1 = 1 and every non-dead row (- | +)"
        # u -> relu(b_j - a_j relu(u)) = a_j (β_j - clamp(u, 0, β_j)); with u' = β - u this is
        # a_j min(relu(u' - k_j), β_j) = a_j (β_j + relu(k_j - t') - relu(β - t')), k_j = β - β_j
        beta, j0 = max((b2[j] / -W2[j][0], j) for j in live)
        tot = [sum((-W2[j][0] * W3[o][j] for j in live), F(0)) for o in range(len(W3))]
        b3 = [c + sum((b2[j] * W3[o][j] for j in live), F(0)) for o, c in enumerate(b3)]
        for j in live:
            if j != j0:
                b2[j] = -W2[j][0] * beta - b2[j]
        for o in range(len(W3)):
            W3[o][j0] = tot[o] / W2[j0][0]
        L[0] = ([[-x for x in W1[0]]], [beta - b1[0]])
        L[1], L[2] = (W2, b2), (W3, b3)
        return L
    if name == "S7" and len(L) == 3:
        (W1, b1), (W2, b2), _ = L
        live = [j for j, (r, c) in enumerate(zip(W2, b2)) if not all(v < 0 for v in r + [c])]
        i = st["masked"]
        if not live or any(len({W2[j][k] / W2[j][i] for j in live}) != 1 for k in st["flips"]):
            return "invalid: S7 needs equal ratios W2[j,k] / W2[j,i] over the non-dead rows"
        w = W2[live[0]]
        old = [(list(r), c) for r, c in zip(W1, b1)]
        for k in st["flips"]:
            W1[k], b1[k] = [-x for x in old[k][0]], -old[k][1]
            W1[i] = [x + w[k] / w[i] * y for x, y in zip(W1[i], old[k][0])]
            b1[i] += w[k] / w[i] * old[k][1]
        return L
    if name == "composite":
        for s in st["steps"]:
            L = apply_step(L, s)
            if L is None or isinstance(L, str):
                return L
        return L
    return None


def check_path(cert, rng, tag, stats, findings, cli=False):
    """Apply a symmetry_path certificate's steps with our code; every intermediate net computes
    a's function; the end is b exactly.  With *cli*, ``netfibers apply`` must write the same b."""
    from algebra.io import network_from_dict
    a, b = network_from_dict(cert["a"]), network_from_dict(cert["b"])
    La, Lb = layers_of(a), layers_of(b)
    L = La
    modelled = True
    orth = bool((cert.get("domain") or {}).get("orthant")) if isinstance(cert.get("domain"), dict) else False
    for n, st in enumerate(cert["steps"]):
        nxt = apply_step(L, st)
        stats["steps"] += 1
        if isinstance(nxt, str):
            findings.append(f"{tag}: step {n} {st.get('step')} {nxt}")
            return
        if nxt is None:
            modelled = False
            stats["steps_unmodelled"] += 1
            break
        if not orth and same_function(La, nxt, rng, k=20, z3=False) is False:
            findings.append(f"{tag}: after step {n} ({json.dumps(st)[:200]}) the net computes "
                            f"another function")
            return
        L = nxt
    if modelled and flat(L) != flat(Lb):
        findings.append(f"{tag}: our application of the {len(cert['steps'])} steps does not end "
                        f"at the certificate's b")
    if not orth and same_function(La, Lb, rng) is False:
        findings.append(f"{tag}: the path's b computes another function than a  (SOUNDNESS)")
    if cli:
        with tempfile.TemporaryDirectory() as tmp:
            pa, ps, po = Path(tmp) / "a.json", Path(tmp) / "steps.json", Path(tmp) / "out.json"
            pa.write_text(json.dumps(cert["a"]))
            ps.write_text(json.dumps(cert["steps"]))
            out = run_cli(["apply", ps, pa, "-o", po])
            stats["cli_apply"] += 1
            if out.code != 0:
                findings.append(f"{tag}: netfibers apply exit {out.code}: {out.err.strip()[:200]}")
            else:
                got = layers_of(network_from_dict(json.loads(po.read_text())))
                if flat(got) != flat(Lb):
                    findings.append(f"{tag}: netfibers apply wrote another net than the path's b")


# -- planted bottlenecks -----------------------------------------------------------------------------
def bottleneck_with(rng, pattern):
    """A planted bottleneck whose rows of [W2 | b2] follow *pattern*: 'mixed' (all switching,
    no masked column), 'dead' (one all-negative row), 'linear' (one all-positive row),
    'masked' (every row has the masking pattern for column 0), 's8' (n1 = 1, one row (- | +))."""
    from tests.cases.bottleneck import planted
    while True:
        if pattern == "s7_multi":            # masked column 0, two rows with equal ratios at k
            n1 = rng.randint(2, 3)
            d = rng.randint(n1, 3)
            k = rng.randrange(1, n1)
            pos = lambda: F(rng.randint(1, 9), rng.randint(1, 3))
            r1 = [pos()] + [-pos() for _ in range(n1 - 1)] + [-pos()]
            lam = pos()
            r2 = [-pos() for _ in range(n1)] + [-pos()]
            r2[0], r2[k] = lam * r1[0], lam * r1[k]
            L = [([[F(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(d)] for _ in range(n1)],
                  [F(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(n1)]),
                 ([r1[:-1], r2[:-1]], [r1[-1], r2[-1]]),
                 ([[pos() * rng.choice([-1, 1]) for _ in range(2)]], [F(rng.randint(-3, 3))])]
            from semialgebraic.bottleneck import is_generic
            net = net_of(L)
            if is_generic(net):
                return net
            continue
        if pattern in ("s8", "s8_multi"):
            d = rng.randint(1, 3)
            live = 1 if pattern == "s8" else rng.randint(2, 3)
            rows = ["-|+"] * live + ["-|-"] * rng.randint(0, 1)
            n1 = 1
        else:
            n1 = rng.choice([1, 2, 2, 3])
            d = rng.randint(n1, 3)
            n2 = rng.randint(2, 3)
            sg = lambda k: "".join(rng.choice("+-") for _ in range(k))
            if pattern == "masked":
                rows = ["".join("+" if c == 0 else "-" for c in range(n1)) + "|-"
                        for _ in range(n2)]
            else:
                rows = []
                for _ in range(n2):
                    while True:
                        r = sg(n1) + "|" + sg(1)
                        s = r.replace("|", "")
                        if "+" in s and "-" in s:
                            break
                    rows.append(r)
                if pattern == "dead":
                    rows[rng.randrange(n2)] = "-" * n1 + "|-"
                elif pattern == "linear":
                    rows[rng.randrange(n2)] = "+" * n1 + "|+"
        try:
            net = planted(rng, d, n1, rows, m=rng.choice([1, 1, 2]))
        except Exception:
            continue
        if pattern in ("mixed", "dead", "linear"):
            from algebra.symmetries.bottleneck import masked_column
            if masked_column(net) is not None and pattern == "mixed":
                continue
        return net


def witness(rng, L, pattern):
    """A θ' of ours computing the same function that is not an S1/S2 image of θ (the planted
    symmetry), or None."""
    (W1, b1), (W2, b2), (W3, b3) = copy.deepcopy(L)
    if pattern == "dead":
        j = next(j for j, (r, c) in enumerate(zip(W2, b2)) if all(v < 0 for v in r + [c]))
        for r in W3:
            r[j] += F(rng.randint(1, 5), rng.randint(1, 3))
    elif pattern == "linear":
        j = next(j for j, (r, c) in enumerate(zip(W2, b2)) if all(v > 0 for v in r + [c]))
        delta = b2[j] / 2                       # the row stays positive
        b2[j] += delta
        b3 = [c - r[j] * delta for c, r in zip(b3, W3)]
    elif pattern == "masked":
        # S6: b1[i] += t, b2 -= t W2[:, i]; every row keeps its signs for small t > 0
        n1 = len(W1)
        i = next(i for i in range(n1) if all(
            all(v < 0 for v in r + [c]) or (r[i] > 0 and c < 0 and
                                            all(r[k] < 0 for k in range(n1) if k != i))
            for r, c in zip(W2, b2)))
        t = min([abs(c / r[i]) for r, c in zip(W2, b2) if r[i] != 0] + [F(1)]) / 3
        b1[i] += t
        b2 = [c - t * r[i] for r, c in zip(W2, b2)]
    elif pattern == "s8_multi":
        return kink_swap_oracle(L)
    elif pattern == "s7_multi":               # flip a k with equal ratios, shear the masked i
        n1 = len(W1)
        i = next(i for i in range(n1) if all(r[i] > 0 for r in W2))
        ks = [k for k in range(n1) if k != i and len({r[k] / r[i] for r in W2}) == 1]
        return apply_step(L, {"step": "S7", "masked": i, "flips": ks[:1]})
    elif pattern == "s8":
        j0 = next(j for j, (r, c) in enumerate(zip(W2, b2)) if not all(v < 0 for v in r + [c]))
        a_, bb = -W2[j0][0], b2[j0]
        v = [r[j0] for r in W3]
        W1, b1 = [[-x for x in W1[0]]], [bb / a_ - b1[0]]
        W3 = [[(-x if j == j0 else x) for j, x in enumerate(r)] for r in W3]
        b3 = [c + vo * bb for c, vo in zip(b3, v)]
    else:
        return None
    return [(W1, b1), (W2, b2), (W3, b3)]


def kink_swap_oracle(L):
    """n1 = 1 and every non-dead row (−a_j | b_j): the net with first layer t' = relu(β − u)
    (u = W1 x + b1, β = max b_j / a_j) and rows relu(k − t') at the kinks k of the function in
    t', its output weights read off the slopes of the original function (our derivation from the
    picture, not the R15 formula): constant for u <= 0 and for u >= β."""
    (W1, b1), (W2, b2), (W3, b3) = L
    n2, m = len(W2), len(W3)
    live = [j for j in range(n2) if not (W2[j][0] < 0 and b2[j] < 0)]
    t = {j: b2[j] / -W2[j][0] for j in live}
    beta = max(t.values())
    j0 = max(live, key=lambda j: t[j])

    def f(u):                        # the output as a function of u
        tt = max(u, F(0))
        return [sum((W3[o][j] * max(F(0), W2[j][0] * tt + b2[j]) for j in range(n2)), F(0)) + b3[o]
                for o in range(m)]
    ks = sorted(beta - t[j] for j in live if j != j0) + [beta]
    c = {}
    for i in range(len(ks) - 1, -1, -1):     # slope of g(t') on (k_{i-1}, k_i) = −Σ_{k >= k_i} c_k
        lo = ks[i - 1] if i else F(0)
        y1, y2 = f(beta - (lo + (ks[i] - lo) / 4)), f(beta - (lo + 3 * (ks[i] - lo) / 4))
        slope = [(b_ - a_) / ((ks[i] - lo) / 2) for a_, b_ in zip(y1, y2)]
        c[ks[i]] = [-sl - sum((c[k][o] for k in ks[i + 1:]), F(0)) for o, sl in enumerate(slope)]
    dead = [j for j in range(n2) if j not in live]
    return [([[-v for v in W1[0]]], [beta - b1[0]]),
            ([[F(-1)] for _ in ks] + [W2[j] for j in dead], list(ks) + [b2[j] for j in dead]),
            ([[c[k][o] for k in ks] + [W3[o][j] for j in dead] for o in range(m)], f(F(-1)))]


def my_r18(L):
    """Our R18 reading: G1–G5 (our ranks), every row of [W2 | b2] mixed, no masked column,
    not n1 = 1 with a single non-dead row, and no set of rows whose V_j W2_j sum to 0 (R18.5,
    every subset); None when a hypothesis fails."""
    net = net_of(L)
    if not all(my_genericity(net).values()):
        return None
    (W1, _), (W2, b2), _ = L
    mixed = all(any(v > 0 for v in r + [c]) and any(v < 0 for v in r + [c]) for r, c in zip(W2, b2))
    n1 = len(W1)
    masked = any(all(r[i] > 0 and c < 0 and all(r[k] < 0 for k in range(n1) if k != i)
                     for r, c in zip(W2, b2)) for i in range(n1))
    s8 = n1 == 1 and all(r[0] < 0 < c for r, c in zip(W2, b2))     # every row (- | +)
    W3 = L[2][0]
    n2, m = len(W2), len(W3)
    flip = any(all(sum(W3[o][j] * W2[j][i] for j in S) == 0 for o in range(m) for i in range(n1))
               for k in range(1, n2 + 1) for S in itertools.combinations(range(n2), k))
    if mixed and not masked and not s8 and not flip and _my_facet_swap(W2, b2, W3):
        return None                  # R18.6: a kink swap in some u_i direction may exist
    return mixed and not masked and not s8 and not flip    # R18.5: no zero-sum flip set


def _my_facet_swap(W2, b2, W3) -> bool:
    """R18.6 read our way: a column k with every W2[j][k] < 0, and some i whose facet u_i = 0
    has a row not dead on it and the tail constant there (n1 = 2: the restriction, piecewise linear on [0, ∞), is compared at 0, at every
    breakpoint and past the last; n1 ≥ 3: algebra's affine_contribution on the orthant)."""
    n1, m = len(W2[0]), len(W3)
    if not any(all(r[k] < 0 for r in W2) for k in range(n1)):
        return False
    for i in range(n1 if n1 >= 2 else 0):
        rest = [[x for k, x in enumerate(r) if k != i] for r in W2]
        if all(all(x <= 0 for x in r) and c <= 0 for r, c in zip(rest, b2)):
            continue                 # every row dead on the facet: the masking pattern
        if n1 == 2:
            def g(y):
                return [sum(W3[o][j] * max(F(0), rest[j][0] * y + b2[j]) for j in range(len(W2)))
                        for o in range(m)]
            cuts = sorted({-c / r[0] for r, c in zip(rest, b2) if r[0] != 0 and -c / r[0] > 0})
            ys = [F(0)] + cuts + [(cuts[-1] if cuts else F(0)) + 1, (cuts[-1] if cuts else F(0)) + 2]
            if all(g(y) == g(F(0)) for y in ys):
                return True
        else:
            from algebra.rationals import Q
            from algebra.symmetries import affine_contribution

            def q(x):
                return Q(F(x).numerator, F(x).denominator)
            aff = affine_contribution([(tuple(map(q, r)), q(c), tuple(q(W3[o][j]) for o in range(m)))
                                       for j, (r, c) in enumerate(zip(rest, b2))], orthant=True)
            if aff is not None and all(x == 0 for row in aff[0] for x in row):
                return True
    return False


def extra_mutations(rng, cert, judge, tag, stats, findings, n=3):
    """*n* one-leaf mutations of *cert* (``tests.fuzz.verdicts._mutate``); one that ``verify``
    accepts must still make a claim that our *judge* (cert -> True / False / None) does not
    refute."""
    from algebra.exceptions import InputError
    from semialgebraic import verify
    from tests.fuzz.verdicts import _mutate
    for _ in range(n):
        mut, path = _mutate(rng, cert)
        if mut is None:
            continue
        stats["own_mutations"] += 1
        try:
            ok, _msg = verify(mut)
        except InputError:
            continue
        except Exception as exc:
            findings.append(f"{tag}: verify crashed on a mutation at {path}: {type(exc).__name__}")
            continue
        if ok:
            try:
                holds = judge(mut)
            except Exception:
                holds = None
            stats[f"own_mutations_accepted_{holds}"] += 1
            if holds is False:
                findings.append(f"{tag}: verify accepted a mutated certificate whose claim is "
                                f"false (at {path})  (SOUNDNESS of verify)")


def judge_identifiable(cert):
    from algebra.io import network_from_dict
    if cert.get("type") != "identifiability_hypotheses":
        return None
    return None if my_r18(layers_of(network_from_dict(cert["network"]))) else False


def judge_absorption(cert):
    if cert.get("type") != "absorption" or cert.get("claim") != "absorbable":
        return None
    blk, other = cert["block"], (cert.get("witness") or {}).get("absorbing_block")
    if not other or blk.get("activation") != "relu" or blk.get("skip") == "none" or \
            blk.get("w_gate") is not None or other.get("skip") not in ("none", None) or \
            len(other["w_up"]) != len(blk["w_up"]):
        return None
    rng = random.Random(0)
    d = len(blk["w_up"][0])
    return all(block_eval(other, x, skip=False) == block_eval(blk, x) for x in points(rng, d, 40))


# -- the kinds -----------------------------------------------------------------------------------------
class Result:
    def __init__(self, kind, seed):
        self.kind, self.seed, self.findings, self.stats, self.desc = kind, seed, [], Counter(), ""


def _shallow_degenerate(rng):
    W1, b1, W2, b2 = random_shallow(rng, n=rng.randint(2, 4))
    n, d = len(W1), len(W1[0])
    op = rng.choice(["zero_row", "dup", "negdup", "dead", "split", "plain"])
    i = rng.randrange(n)
    if op == "zero_row":
        W1[i] = [F(0)] * d
    elif op in ("dup", "negdup"):
        j = (i + 1) % n
        s = F(rng.choice([1, 2, 7]), 3) * (1 if op == "dup" else -1)
        W1[j], b1[j] = [s * v for v in W1[i]], s * b1[i]
    elif op == "dead":
        W1[i], b1[i] = [F(0)] * d, F(-1)
    elif op == "split":
        W1.append(list(W1[i]))
        b1.append(b1[i])
        for r in W2:                            # v relu(z) = v/3 relu(z) + 2v/3 relu(z)
            r[i] = r[i] / 3
            r.append(r[i] * 2)
    return op, [(W1, b1), (W2, b2)]


def shallow_witness(rng, L, op):
    """One-hidden-layer θ' of ours with the same function, not a permuted/rescaled copy: the
    output weights of two positively parallel neurons traded (``dup``, ``split``), the output
    column of a zero-row neuron traded against the output bias (``zero_row``, ``dead``)."""
    (W1, b1), (W2, b2) = copy.deepcopy(L)
    n = len(W1)
    if op in ("dup", "split"):
        for i in range(n):
            for j in range(n):
                if i == j or not any(W1[i]):
                    continue
                k = next(t for t, v in enumerate(W1[i]) if v != 0)
                sc = W1[j][k] / W1[i][k]
                if sc > 0 and [sc * v for v in W1[i]] == W1[j] and sc * b1[i] == b1[j]:
                    delta = F(rng.randint(1, 5), 7)          # v_i relu(z) + v_j relu(sc z)
                    for r in W2:
                        r[i] += sc * delta
                        r[j] -= delta
                    return [(W1, b1), (W2, b2)]
        return None
    if op in ("zero_row", "dead"):
        i = next((t for t in range(n) if not any(W1[t])), None)
        if i is None:
            return None
        delta = F(rng.randint(1, 5), 3)
        for o, r in enumerate(W2):
            r[i] += delta
            b2[o] -= delta * max(b1[i], F(0))
        return [(W1, b1), (W2, b2)]
    return None


def in_some_component(net, W):
    """Whether some permutation of the hidden layers of *W* lies in a component of fiber(net)
    (the components are listed up to permutations)."""
    from itertools import permutations, product
    from semialgebraic import fiber
    comps = fiber(net).components
    perms = [list(permutations(range(len(L[0])))) for L in W[:-1]]
    for choice in product(*perms):
        P = copy.deepcopy(W)
        for l, pm in enumerate(choice):
            Wl, bl = P[l]
            Wn, bn = P[l + 1]
            P[l] = ([Wl[p] for p in pm], [bl[p] for p in pm])
            P[l + 1] = ([[r[p] for p in pm] for r in Wn], bn)
        cand = net_of(P)
        if any(c.contains(cand) for c in comps):
            return True
    return False


_PLANTED = ("mixed", "mixed", "dead", "linear", "masked", "s8", "s8_multi", "s7_multi")


def _planted_bottleneck(rng, kinds, base):
    """One of *kinds*: a planted bottleneck net (:func:`bottleneck_with`) or, for a genericity
    condition ``G*``, a net from *base* made to violate it (G1 needs n1 >= 2, else G2)."""
    what = rng.choice(list(kinds))
    if what.startswith("G"):
        net = base(rng)
        if what == "G1" and net.widths[1] < 2:
            what = "G2"
        return what, violate(rng, net, what)
    return what, bottleneck_with(rng, what)


def run_fiber_image(seed):
    from algebra.exceptions import InputError
    from semialgebraic import fiber
    res = Result("fiber_image", seed)
    rng = random.Random(seed)
    if rng.random() < 0.65:
        what, net = _planted_bottleneck(rng, _PLANTED + ("G1", "G2", "G5"), random_bottleneck)
        La = layers_of(net)
    else:
        what, La = _shallow_degenerate(rng)
        what = "shallow_" + what
    Lb = perm_scale(La, rng)
    res.desc = f"{what} widths={net_of(La).widths}"
    Wit = witness(rng, La, what) if len(La) == 3 and what in ("dead", "linear", "masked", "s8",
                                                               "s8_multi", "s7_multi") else None
    if len(La) == 2:
        Wit = shallow_witness(rng, La, what[len("shallow_"):])
        if Wit is not None and (same_function(La, Wit, rng, z3=False) is False
                                or flat(Wit) == flat(La)):
            raise AssertionError(f"fiber_image seed={seed}: our shallow witness is wrong (campaign bug)")
    out = []
    for L in (La, Lb):
        try:
            out.append(fiber(net_of(L)).to_json())
        except Exception as exc:
            out.append(type(exc).__name__)
    res.stats["cases"] += 1
    if isinstance(out[0], str) or isinstance(out[1], str):
        if isinstance(out[0], str) != isinstance(out[1], str) or \
                (isinstance(out[0], str) and out[0] != out[1]):
            res.findings.append(f"fiber_image seed={seed} ({res.desc}): net answers "
                                f"{out[0] if isinstance(out[0], str) else 'a fiber'}, its image "
                                f"{out[1] if isinstance(out[1], str) else 'a fiber'}")
        elif out[0] not in ("NonGenericError", "NotApplicableError", "InputError"):
            res.findings.append(f"fiber_image seed={seed} ({res.desc}): raised {out[0]}")
        res.stats["refused"] += 1
        return res
    fa, fb = out
    for key in ("dimension", "number_of_components", "number_of_orbits", "symmetries",
                "jacobian_dimension"):
        if fa.get(key) != fb.get(key):
            res.findings.append(f"fiber_image seed={seed} ({res.desc}): {key} {fa.get(key)} for "
                                f"the net, {fb.get(key)} for its permuted/rescaled image")
    if len(fa["components"]) != len(fb["components"]):
        res.findings.append(f"fiber_image seed={seed} ({res.desc}): {len(fa['components'])} vs "
                            f"{len(fb['components'])} listed components")
    if sorted(c["dimension"] for c in fa["components"]) != sorted(c["dimension"] for c in fb["components"]):
        res.findings.append(f"fiber_image seed={seed} ({res.desc}): component dimensions differ")
    for L, fj, who in ((La, fa, "net"), (Lb, fb, "image")):
        for ci, c in enumerate(fj["components"]):
            s = c.get("sample")
            if s is None:
                continue
            res.stats["samples"] += 1
            Ls = unflat(L, [_q(v) for v in s])
            if same_function(L, Ls, rng, k=25, z3=False) is False:
                res.findings.append(f"fiber_image seed={seed} ({res.desc}): the sample of "
                                    f"component {ci} of the {who}'s fiber computes another "
                                    f"function  (SOUNDNESS)")
    if Wit is not None and fa.get("number_of_components") is None:
        res.stats["witness_unjudged"] += 1     # documented: only θ's strata listed, not all
    elif Wit is not None:                    # the planted θ' lies in a listed component
        res.stats["witness_membership"] += 1
        if not in_some_component(net_of(La), Wit):
            res.findings.append(f"fiber_image seed={seed} ({res.desc}): our planted θ' (same "
                                f"function) lies in no listed component, up to permutations "
                                f"(the fiber description is incomplete)")
    N = len(flat(La))
    dim = fa.get("dimension")
    if isinstance(dim, int) and max(len(W) for W, _ in La) <= 4:
        rk = jacobian_rank(net_of(La), rng, n_lines=8)
        res.stats["ranks"] += 1
        if dim + rk > N:
            res.findings.append(f"fiber_image seed={seed} ({res.desc}): fiber dimension {dim} + "
                                f"our Jacobian rank {rk} > N = {N}")
    if len(La) == 3:
        outs = [run_cli(["symmetries", "--json", _tmp_net(net_of(L))], seconds=60) for L in (La, Lb)]
        if outs[0].code != outs[1].code:
            res.findings.append(f"fiber_image seed={seed} ({res.desc}): symmetries exit "
                                f"{outs[0].code} for the net, {outs[1].code} for its image")
        elif outs[0].code not in (0, 2, 3):
            res.findings.append(f"fiber_image seed={seed} ({res.desc}): symmetries exit "
                                f"{outs[0].code}: {outs[0].err.strip()[:200]}")
        elif outs[0].code == 0:
            ga, gb = (json.loads(o.out) for o in outs)
            res.stats["symmetries"] += 1
            for key in ("symmetries", "number_of_components", "number_of_orbits", "dimension"):
                if ga.get(key) != gb.get(key):
                    res.findings.append(f"fiber_image seed={seed} ({res.desc}): symmetries "
                                        f"{key} {ga.get(key)} vs {gb.get(key)} for the image")
            if ga.get("dimension") != fa.get("dimension") or \
                    ga.get("number_of_components") != fa.get("number_of_components"):
                res.findings.append(f"fiber_image seed={seed} ({res.desc}): symmetries and fiber "
                                    f"disagree on dimension / number of components")
            na, nb = ga.get("graph", {}), gb.get("graph", {})
            if (len(na.get("nodes", [])), len(na.get("edges", []))) != \
                    (len(nb.get("nodes", [])), len(nb.get("edges", []))):
                res.findings.append(f"fiber_image seed={seed} ({res.desc}): symmetry graphs of "
                                    f"different sizes for the net and its image")
    return res


def run_paths(seed):
    from semialgebraic import equivalent
    res = Result("paths", seed)
    rng = random.Random(seed)
    if rng.random() < 0.7:
        what = rng.choice(["mixed", "dead", "linear", "masked", "s8", "s8_multi", "s7_multi"])
        La = layers_of(bottleneck_with(rng, what))
        Lw = witness(rng, La, what) or La
        Lb = perm_scale(Lw, rng, awkward=rng.random() < 0.5)
    else:
        what, La = _shallow_degenerate(rng)
        what = "shallow_" + what
        Lb = perm_scale(La, rng, awkward=rng.random() < 0.5)
    res.desc = f"{what} widths={net_of(La).widths}"
    tag = f"paths seed={seed} ({res.desc})"
    res.stats["cases"] += 1
    try:
        v = equivalent(net_of(La), net_of(Lb), timeout=TIMEOUT)
    except Exception as exc:
        res.findings.append(f"{tag}: equiv raised {type(exc).__name__}: {exc}")
        return res
    if v.answer is False:
        res.findings.append(f"{tag}: 'not equivalent' for a planted symmetric image  (SOUNDNESS)")
    elif v.answer is None:
        res.stats["undecided"] += 1
    cert = v.certificate or {}
    if cert.get("type") == "symmetry_path":
        res.stats["paths"] += 1
        check_path(cert, rng, tag, res.stats, res.findings, cli=rng.random() < 0.3)
    else:
        res.stats["cert:" + str(cert.get("type"))] += 1
    check_certificate(rng, v, res.stats, res.findings, tag, mutations=2)
    return res


def run_identify(seed):
    from semialgebraic import identifiability
    res = Result("identify", seed)
    rng = random.Random(seed)
    what, net = _planted_bottleneck(rng, _PLANTED + ("G1", "G2", "G3", "G5"),
                                    lambda r: bottleneck_with(r, "mixed"))
    L = layers_of(net)
    if rng.random() < 0.3:                       # an awkwardly rescaled copy: same verdict
        L = perm_scale(L, rng)
        net = net_of(L)
    res.desc = f"{what} widths={net.widths}"
    tag = f"identify seed={seed} ({res.desc})"
    res.stats["cases"] += 1
    W = witness(rng, L, what)
    if W is not None:
        if same_function(L, W, rng) is False:
            raise AssertionError(f"{tag}: our witness is wrong (campaign bug)")
        if s1s2_form(net_of(W)) == s1s2_form(net):
            W = None
    try:
        v = identifiability(net)
    except Exception as exc:
        if type(exc).__name__ not in ("NonGenericError", "NotApplicableError"):
            res.findings.append(f"{tag}: raised {type(exc).__name__}: {exc}")
        res.stats["refused"] += 1
        return res
    res.stats[f"answer_{v.answer}"] += 1
    if v.answer is True and W is not None:
        res.findings.append(f"{tag}: 'identifiable' but our planted θ' computes the same function "
                            f"and is not a permuted/rescaled copy  (SOUNDNESS)")
    mine = my_r18(L)
    if v.answer is True and mine is not True:
        res.findings.append(f"{tag}: 'identifiable' where our R18 reading says {mine}")
    if mine is True and v.answer is not True:
        res.findings.append(f"{tag}: answered {v.answer} where R18 (hypotheses hold, rows mixed, no "
                            f"masked column) gives identifiable ({v.reason})")
    cert = v.certificate or {}
    if v.answer is False:
        if cert.get("type") != "symmetry_path":
            res.findings.append(f"{tag}: 'not identifiable' without a symmetry path")
        else:
            check_path(cert, rng, tag, res.stats, res.findings, cli=rng.random() < 0.2)
            from algebra.io import network_from_dict
            if s1s2_form(network_from_dict(cert["a"])) == s1s2_form(network_from_dict(cert["b"])):
                res.findings.append(f"{tag}: the non-identifiability witness is only a "
                                    f"permuted/rescaled copy")
    check_certificate(rng, v, res.stats, res.findings, tag, mutations=2)
    return res


# -- absorption with biases ----------------------------------------------------------------------------
def block_eval(blk, x, skip=True):
    up, down = blk["w_up"], blk["w_down"]
    bu = blk.get("b_up") or [0] * len(up)
    bd = blk.get("b_down") or [0] * len(down)
    h = [max(F(0), sum((_q(w) * v for w, v in zip(r, x)), F(0)) + _q(c)) for r, c in zip(up, bu)]
    y = [sum((_q(w) * v for w, v in zip(r, h)), F(0)) + _q(c) for r, c in zip(down, bd)]
    S = blk.get("skip", "identity")
    if not skip or S == "none":
        return y
    if isinstance(S, list):                  # a linear skip x -> S x
        return [a + sum((_q(w) * v for w, v in zip(r, x)), F(0)) for a, r in zip(y, S)]
    return [a + b for a, b in zip(y, x)]


def planted_block(rng):
    """(kind, block dict, absorbable-by-construction?)."""
    import flint
    d = rng.randint(1, 3)
    k = rng.randint(d, d + 3)
    r = lambda: F(rng.randint(-4, 4), rng.choice([1, 2, 3]))
    up = [[r() for _ in range(d)] for _ in range(k)]
    down = [[r() for _ in range(k)] for _ in range(d)]
    bu = [r() for _ in range(k)]
    bd = [r() for _ in range(d)]
    kind = rng.choice(["flip", "flip", "pm_identity", "near_1e-9", "rank_one", "random",
                       "linear_skip"])
    Sk = None
    if kind == "linear_skip":                # skip x -> S x, flip set with B_S P = -S
        while True:
            Sk = [[r() for _ in range(d)] for _ in range(d)]
            if any(v != 0 for row in Sk for v in row):
                break
    if kind == "pm_identity" and k < 2 * d:
        kind = "flip"
    planted = False
    if kind in ("flip", "near_1e-9", "rank_one", "linear_skip"):
        S = rng.sample(range(k), d)
        while True:
            P = [[r() for _ in range(d)] for _ in range(d)]
            M = flint.fmpq_mat(d, d, [flint.fmpq(v.numerator, v.denominator) for row in P for v in row])
            if M.rank() == d:
                break
        inv = M.inv()
        inv = [[F(int(inv[o, a].p), int(inv[o, a].q)) for a in range(d)] for o in range(d)]
        if Sk is not None:                   # B_S = -S P^{-1}
            inv = [[sum((Sk[o][t] * inv[t][a] for t in range(d)), F(0)) for a in range(d)]
                   for o in range(d)]
        for a, i in enumerate(S):
            up[i] = P[a]
            for o in range(d):
                down[o][i] = -inv[o][a]
        planted = True
        if kind == "near_1e-9":
            o, a = rng.randrange(d), rng.randrange(d)
            down[o][S[a]] += F(1, 10 ** 9)
            planted = False
        elif kind == "rank_one":
            u = [r() or F(1) for _ in range(d)]
            w = [r() or F(1) for _ in range(d)]
            for o in range(d):
                for a in range(d):
                    down[o][S[a]] += u[o] * w[a] / 1000
            planted = False
    elif kind == "pm_identity":
        # x = relu(x) - relu(-x): units 2i, 2i+1 carry ±e_i; down cancels the skip with them
        for i in range(d):
            e = [F(int(j == i)) for j in range(d)]
            up[2 * i], up[2 * i + 1] = e, [-v for v in e]
            bu[2 * i] = bu[2 * i + 1] = F(0)
            for o in range(d):
                down[o][2 * i] = F(-int(o == i))
                down[o][2 * i + 1] = F(int(o == i))
        planted = True
    s = lambda M: [[str(v) for v in row] for row in M]
    blk = {"format": "netfibers.block", "version": 1, "activation": "relu", "w_up": s(up),
           "w_down": s(down), "skip": s(Sk) if Sk is not None else "identity",
           "b_up": [str(v) for v in bu], "b_down": [str(v) for v in bd]}
    return kind, blk, planted


def run_absorb(seed):
    from algebra.io import block_from_dict
    from semialgebraic import absorbable
    res = Result("absorb", seed)
    rng = random.Random(seed)
    kind, blk, planted = planted_block(rng)
    d, k = len(blk["w_up"][0]), len(blk["w_up"])
    res.desc = f"{kind} d={d} k={k}"
    tag = f"absorb seed={seed} ({res.desc})"
    res.stats["cases"] += 1
    try:
        v = absorbable(block_from_dict(blk), timeout=TIMEOUT)
    except Exception as exc:
        res.findings.append(f"{tag}: raised {type(exc).__name__}: {exc}")
        return res
    res.stats[f"answer_{v.answer}"] += 1
    res.stats[f"{kind}_{v.answer}"] += 1
    if planted and v.answer is False:
        res.findings.append(f"{tag}: 'not absorbable' for a block absorbable by construction  "
                            f"(SOUNDNESS) block={json.dumps(blk)}")
    if planted and v.answer is None:
        res.stats["planted_undecided"] += 1
    if v.answer is True:
        w = (v.certificate or {}).get("witness", {})
        other = w.get("absorbing_block")
        if other is None:
            res.findings.append(f"{tag}: absorbable without an absorbing block")
        else:
            if other.get("skip") not in ("none", None) or len(other["w_up"]) != k:
                res.findings.append(f"{tag}: absorbing block skip {other.get('skip')!r} width "
                                    f"{len(other['w_up'])} (k = {k})")
            for x in points(rng, d, 40):
                if block_eval(other, x, skip=False) != block_eval(blk, x):
                    res.findings.append(f"{tag}: the absorbing block differs from the block at "
                                        f"x = {[str(t) for t in x]}  (SOUNDNESS)")
                    break
            res.stats["absorbing_checked"] += 1
        extra_mutations(rng, v.certificate, judge_absorption, tag, res.stats, res.findings)
    check_certificate(rng, v, res.stats, res.findings, tag, mutations=2)
    return res


# -- conservation laws ---------------------------------------------------------------------------------
def run_conserved(seed):
    from tests.fuzz.verdicts import run_conserved as _rc
    res = Result("conserved", seed)
    rng = random.Random(seed)
    if rng.random() < 0.5:
        stats, fails = _rc(seed, 1, verbose=False)
        res.stats.update({k: v for k, v in stats.items() if isinstance(v, int)})
        res.findings += fails
        res.desc = "verdicts.run_conserved"
        return res
    # one hidden layer on R (d = 1), weights possibly zero (constant neurons): the number of
    # laws against our brute-force Lie algebra of the gradient fields (sympy brackets)
    n = rng.randint(1, 3)
    W1 = [[F(rng.choice([-3, -2, -1, 0, 1, 2, 3]), rng.randint(1, 3))] for _ in range(n)]
    b1 = [F(rng.randint(-3, 3), rng.randint(1, 3)) for _ in range(n)]
    W2 = [[F(rng.choice([-3, -2, -1, 1, 2, 3]), rng.randint(1, 2)) for _ in range(n)]]
    b2 = [F(rng.randint(-2, 2))]
    net = to_net(W1, b1, W2, b2)
    res.desc = f"shallow d=1 widths={net.widths}"
    tag = f"conserved seed={seed} ({res.desc})"
    res.stats["cases"] += 1
    out = run_cli(["conserved", "--json", _tmp_net(net)], seconds=60)
    if out.code not in (0, 3):
        res.findings.append(f"{tag}: conserved exit {out.code}: {out.err.strip()[:200]}")
        return res
    js = json.loads(out.out)
    mine, closed = lie_rank_1d(net, [(W1[i][0], b1[i]) for i in range(n)])
    N = len(net.parameter_names())
    res.stats["counted"] += 1
    if js.get("exact") and out.code == 0:
        if js["number_of_laws"] > N - mine:
            res.findings.append(f"{tag}: {js['number_of_laws']} laws > N − (our Lie rank {mine}) "
                                f"= {N - mine}")
        elif closed and js["number_of_laws"] != N - mine:
            res.findings.append(f"{tag}: {js['number_of_laws']} laws, our closed Lie algebra "
                                f"gives {N - mine}")
        else:
            res.stats["count_agrees"] += 1
    return res


def lie_rank_1d(net, units, depth=4):
    """Our rank near θ of the Lie algebra generated by the gradient fields of a one-hidden-layer
    net on R, over every activation pattern of R (d = 1: the pieces between the sorted kinks);
    ``(rank, closed)``, closed when a bracket level added nothing.  Each pattern P contributes
    ∇A_P and ∇B_P of f = A_P x + B_P (sympy, brackets [X, Y] = DY·X − DX·Y)."""
    import flint
    import sympy
    names = list(net.parameter_names())
    sy = sympy.symbols([f"p{i}" for i in range(len(names))])
    idx = {nm: sy[i] for i, nm in enumerate(names)}
    n = len(units)
    # the rank at a random point near θ (the fields are polynomials with the patterns fixed): the
    # local count is N − the largest rank near θ, which a special θ (a zero weight) can hide
    prng = random.Random(len(names))
    theta = {sy[i]: sympy.Rational(str(v)) + sympy.Rational(prng.randint(1, 999), 10 ** 5)
             for i, v in enumerate(net.parameters())}
    kinks = sorted({-b / w for w, b in units if w != 0})
    pts = ([kinks[0] - 1] + [(a + b) / 2 for a, b in zip(kinks, kinks[1:])] + [kinks[-1] + 1]
           if kinks else [F(0)])
    fields = []
    for x in pts:
        act = [i for i, (w, b) in enumerate(units) if w * x + b > 0]
        A = sum((idx[f"W2[0,{i}]"] * idx[f"W1[{i},0]"] for i in act), sympy.Integer(0))
        B = sum((idx[f"W2[0,{i}]"] * idx[f"b1[{i}]"] for i in act), sympy.Integer(0)) + idx["b2[0]"]
        for e in (A, B):
            fields.append([sympy.diff(e, v) for v in sy])

    def rank(fs):
        rows = [[F(str(sympy.sympify(c).subs(theta))) for c in f] for f in fs]
        if not rows:
            return 0
        return flint.fmpq_mat(len(rows), len(sy), [flint.fmpq(v.numerator, v.denominator)
                                                   for r in rows for v in r]).rank()

    def bracket(X, Y):
        return [sympy.expand(sum((sympy.diff(Y[i], sy[j]) * X[j] - sympy.diff(X[i], sy[j]) * Y[j]
                                  for j in range(len(sy))), sympy.Integer(0)))
                for i in range(len(sy))]
    allf, level = list(fields), list(fields)
    r = rank(allf)
    for _ in range(depth):
        new = [bracket(X, Y) for X in fields for Y in level]
        new = [f for f in new if any(c != 0 for c in f)]
        r2 = rank(allf + new)
        if r2 == r:
            return r, True
        allf, level, r = allf + new, new, r2
    return r, False


def _parallel(r, s):
    return all(r[i] * s[j] == r[j] * s[i] for i in range(len(r)) for j in range(len(r)))


def _count(js):
    for a, b in (("lower", "upper"), ("number_lower", "number_upper")):
        if a in js:
            return js[a], js[b]
    c = js.get("count") or js.get("number")
    if isinstance(c, dict):
        return c.get("lower"), c.get("upper")
    if isinstance(c, int):
        return c, c
    return None, None


_TMP = tempfile.mkdtemp(prefix="symcamp_")


def _tmp_net(net, decimal=False, name=None):
    from algebra.io import network_to_dict
    p = Path(_TMP) / (name or f"n{random.random():.12f}.json")
    data = network_to_dict(net)
    if decimal:
        for layer in data["layers"]:
            layer["weight"] = [[_decimal(F(str(v))) for v in r] for r in layer["weight"]]
            layer["bias"] = [_decimal(F(str(v))) for v in layer["bias"]]
    p.write_text(json.dumps(data))
    return p


# -- CLI forms and malformed inputs --------------------------------------------------------------------
def run_cli_forms(seed):
    res = Result("cli", seed)
    rng = random.Random(seed)
    net = bottleneck_with(rng, rng.choice(["mixed", "dead", "masked", "linear"]))
    res.desc = f"widths={net.widths}"
    tag = f"cli seed={seed} ({res.desc})"
    res.stats["cases"] += 1
    p = _tmp_net(net)
    pd = _tmp_net(net, decimal=True)
    answers = {}
    for cmd in ("fiber", "symmetries", "identify"):
        for path, form in ((p, "json"), (pd, "decimal")):
            for extra in ([], ["--exact"]):
                out = run_cli([cmd, "--json", path] + extra, seconds=60)
                res.stats[f"cli_{cmd}"] += 1
                if out.code not in (0, 1, 3):
                    res.findings.append(f"{tag}: {cmd} {form} {extra} exit {out.code}: "
                                        f"{out.err.strip()[:200]}")
                    continue
                try:
                    js = json.loads(out.out)
                except ValueError:
                    res.findings.append(f"{tag}: {cmd} --json printed no JSON")
                    continue
                answers.setdefault(cmd, set()).add(json.dumps(js, sort_keys=True))
                txt = run_cli([cmd, path] + extra, seconds=60)
                if txt.code != out.code:
                    res.findings.append(f"{tag}: {cmd} exit {txt.code} as text, {out.code} with --json")
    # .nnet (dyadic weights: a copy rounded to 1/64, signs and non-zeros kept) against its JSON
    from tests.fuzz.bab_fuzz import save

    def dy(v):
        r = F(round(v * 64), 64)
        return r if r != 0 and (r > 0) == (v > 0) else (F(1, 64) if v > 0 else F(-1, 64)) if v else F(0)
    Ld = [([[dy(v) for v in r] for r in W], [dy(v) for v in b]) for W, b in layers_of(net)]
    with tempfile.TemporaryDirectory() as tmp:
        pn = save(Ld, str(Path(tmp) / "dy"), "nnet")
        pj = _tmp_net(net_of(Ld))
        for cmd in ("fiber", "identify", "symmetries"):
            a_, b_ = run_cli([cmd, "--json", pj], seconds=60), run_cli([cmd, "--json", pn], seconds=60)
            res.stats["cli_nnet"] += 1
            ja = json.loads(a_.out) if a_.code in (0, 1, 3) and a_.out.strip() else a_.code
            jb = json.loads(b_.out) if b_.code in (0, 1, 3) and b_.out.strip() else b_.code
            strip = lambda j: {k: v for k, v in j.items() if k not in ("network", "certificate", "structure")} \
                if isinstance(j, dict) else j
            if a_.code != b_.code or strip(ja) != strip(jb):
                res.findings.append(f"{tag}: {cmd} on .nnet (exit {b_.code}) and on the same net as "
                                    f"JSON (exit {a_.code}) disagree: {str(strip(jb))[:150]} vs "
                                    f"{str(strip(ja))[:150]}")
    for cmd, s in answers.items():
        if len(s) > 1:
            res.findings.append(f"{tag}: {cmd} answers differ between exact JSON and decimal "
                                f"literals / --exact")
    # malformed inputs: one line, exit 2, no traceback, nothing written
    good = json.loads(p.read_text())
    bad = []
    t = json.dumps(good)
    bad.append(("truncated", t[: len(t) // 2]))
    g = copy.deepcopy(good)
    g["layers"][0]["weight"][0][0] = "NaN"
    bad.append(("nan", json.dumps(g)))
    g = copy.deepcopy(good)
    g["layers"][1]["weight"][0] = g["layers"][1]["weight"][0][:-1] or [1, 2, 3]
    bad.append(("ragged", json.dumps(g)))
    g = copy.deepcopy(good)
    g["layers"][0]["bias"] = g["layers"][0]["bias"] + ["1"]
    bad.append(("bias_len", json.dumps(g)))
    g = copy.deepcopy(good)
    g["layers"][0]["weight"][0][0] = "1e999999"
    bad.append(("huge_exponent", json.dumps(g)))
    for name, text in bad:
        with tempfile.TemporaryDirectory() as tmp:
            f = Path(tmp) / "bad.json"
            f.write_text(text)
            outp = Path(tmp) / "out.json"
            cert = Path(tmp) / "cert.json"
            steps = Path(tmp) / "steps.json"
            steps.write_text("[]")
            argvs = [["fiber", f], ["symmetries", f, "--graphml", outp], ["identify", f, "--certificate", cert],
                     ["conserved", f], ["apply", steps, f, "-o", outp], ["recover", f, "-o", outp]]
            for argv in argvs:
                out = run_cli(argv, seconds=30)
                res.stats["malformed"] += 1
                lines = [ln for ln in out.err.strip().splitlines() if ln.strip()]
                written = sorted(x.name for x in Path(tmp).iterdir()) != ["bad.json", "steps.json"]
                if out.code != 2 or len(lines) != 1 or "Traceback" in out.err or written:
                    res.findings.append(f"{tag}: {argv[0]} on {name} input: exit {out.code}, "
                                        f"{len(lines)} stderr lines, written={written}: "
                                        f"{out.err.strip()[:160]!r}")
    for term in ("G2", "S6", "masked", "Gamma", "fiber", "absorbable"):
        out = run_cli(["explain", term, "--json"])
        res.stats["explain"] += 1
        if out.code != 0 or not out.out.strip():
            res.findings.append(f"{tag}: explain {term} exit {out.code}")
    for argv in (["explain", "no-such-term"], ["fiber", Path(_TMP) / "missing.json"], ["conserved", p, "--box", "1"],
                 ["conserved", p, "--max-depth", "-1"], ["fiber", p, "--timeout", "nan"],
                 ["absorb", p, "--max-nullity", "x"]):
        out = run_cli(argv, seconds=30)
        res.stats["bad_options"] += 1
        lines = [ln for ln in out.err.strip().splitlines() if ln.strip()]
        if out.code != 2 or len(lines) != 1 or "Traceback" in out.err:
            res.findings.append(f"{tag}: {' '.join(map(str, argv[:1] + argv[2:]))}: exit "
                                f"{out.code}, {len(lines)} stderr lines: {out.err.strip()[:160]!r}")
    return res


# -- recover and apply ------------------------------------------------------------------------------
def run_recover(seed):
    """``recover`` of a one-hidden-layer net (zero / duplicate / negatively-scaled duplicate
    rows, dead or split neurons, awkward rescalings): exit 0 means the written net computes
    NET's function (the kink oracle of ``tests.fuzz.verdicts``, exact evaluation); exit 1 means
    it does not."""
    from algebra.io import network_from_dict
    from tests.fuzz.verdicts import shallow_equivalent_oracle
    res = Result("recover", seed)
    rng = random.Random(seed)
    what, L = _shallow_degenerate(rng)
    if rng.random() < 0.4:
        L = perm_scale(L, rng)
    net = net_of(L)
    res.desc = f"{what} widths={net.widths}"
    tag = f"recover seed={seed} ({res.desc})"
    res.stats["cases"] += 1
    with tempfile.TemporaryDirectory() as tmp:
        p, o = _tmp_net(net), Path(tmp) / "rec.json"
        out = run_cli(["recover", p, "-o", o, "--json", "--seed", str(seed % 7)], seconds=60)
        res.stats[f"exit_{out.code}"] += 1
        if out.code not in (0, 1, 3):
            res.findings.append(f"{tag}: recover exit {out.code}: {out.err.strip()[:200]}")
            return res
        if out.code in (0, 1):
            if not o.exists():
                res.findings.append(f"{tag}: exit {out.code} but nothing written")
                return res
            rec = network_from_dict(json.loads(o.read_text()))
            truth = shallow_equivalent_oracle(net, rec) if rec.depth == 2 else \
                same_function(L, layers_of(rec), rng, z3=False) is not False
            if (out.code == 0) != truth:
                res.findings.append(f"{tag}: recover exit {out.code} but the written net "
                                    f"{'differs from' if not truth else 'equals'} NET"
                                    + ("  (SOUNDNESS)" if out.code == 0 else ""))
    return res


def run_apply_mutated(seed):
    """A valid symmetry path (from ``equiv`` of a planted pair or ``identify``) with one number
    moved or the steps shuffled, through ``netfibers apply``: a step it accepts must keep the
    function (exact evaluation); a refusal is exit 2, one line, nothing written."""
    from semialgebraic import equivalent, identifiability
    from tests.fuzz.verdicts import _mutate
    res = Result("apply_mutated", seed)
    rng = random.Random(seed)
    what = rng.choice(["mixed", "dead", "linear", "masked", "s8", "s8_multi", "s7_multi"])
    La = layers_of(bottleneck_with(rng, what))
    if rng.random() < 0.5:
        v = identifiability(net_of(La))
    else:
        Lb = perm_scale(witness(rng, La, what) or La, rng, awkward=rng.random() < 0.5)
        v = equivalent(net_of(La), net_of(Lb), timeout=TIMEOUT)
    cert = v.certificate or {}
    res.desc = f"{what} {cert.get('type')}"
    tag = f"apply_mutated seed={seed} ({res.desc})"
    res.stats["cases"] += 1
    if cert.get("type") != "symmetry_path" or not cert["steps"]:
        res.stats["no_path"] += 1
        return res
    for _ in range(3):
        steps, path = _mutate(rng, {"steps": cert["steps"]})
        if steps is None:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            pa, ps, po = Path(tmp) / "a.json", Path(tmp) / "s.json", Path(tmp) / "o.json"
            pa.write_text(json.dumps(cert["a"]))
            ps.write_text(json.dumps(steps["steps"]))
            out = run_cli(["apply", ps, pa, "-o", po], seconds=30)
            res.stats[f"exit_{out.code}"] += 1
            if out.code == 0:
                from algebra.io import network_from_dict
                got = layers_of(network_from_dict(json.loads(po.read_text())))
                if same_function(layers_of(_net_from(cert["a"])), got, rng, z3=False) is False:
                    res.findings.append(f"{tag}: apply accepted mutated steps (at {path}) and "
                                        f"wrote a net computing another function  (SOUNDNESS) "
                                        f"steps={json.dumps(steps['steps'])[:300]}")
            elif out.code == 2:
                lines = [ln for ln in out.err.strip().splitlines() if ln.strip()]
                if len(lines) != 1 or po.exists():
                    res.findings.append(f"{tag}: refusal with {len(lines)} lines, written="
                                        f"{po.exists()}")
            else:
                res.findings.append(f"{tag}: apply exit {out.code}: {out.err.strip()[:200]}")
    return res


def _net_from(d):
    from algebra.io import network_from_dict
    return network_from_dict(d)


RUN = {"fiber_image": run_fiber_image, "paths": run_paths, "identify": run_identify,
       "absorb": run_absorb, "conserved": run_conserved, "cli": run_cli_forms,
       "recover": run_recover, "apply_mutated": run_apply_mutated}


def run_case(seed, kind):
    try:
        return RUN[kind](seed)
    except Exception as exc:                              # the campaign itself must not stop
        import traceback
        r = Result(kind, seed)
        r.findings.append(f"{kind} seed={seed}: campaign raised {type(exc).__name__}: {exc} "
                          f"{traceback.format_exc(limit=3)[-400:]}")
        return r


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--kinds", help="comma-separated kinds (default: all): " + ",".join(KINDS))
    args = ap.parse_args(argv)
    kinds = args.kinds.split(",") if args.kinds else KINDS
    for k in kinds:
        if k not in RUN:
            ap.error(f"unknown kind {k!r} (known: {', '.join(KINDS)})")
    t0, c0 = time.time(), time.process_time()
    stats, bad = {k: Counter() for k in kinds}, {k: [] for k in kinds}
    for s in range(args.seed, args.seed + args.count):
        kind = kinds[s % len(kinds)]
        t = time.time()
        r = run_case(s, kind)
        stats[kind].update({a: b for a, b in r.stats.items() if isinstance(b, int)})
        for f in r.findings:
            print("FINDING", f, flush=True)
        if r.findings:
            bad[kind].append(s)
        print(f"seed {s} {kind:12s} {r.desc}: {len(r.findings)} findings ({time.time() - t:.1f} s)",
              flush=True)
    print(f"\n{args.count} cases in {time.time() - t0:.0f} s wall, {time.process_time() - c0:.0f} CPU s "
          f"(this process; CLI calls run in-process)")
    for k in kinds:
        st = {a: b for a, b in sorted(stats[k].items())}
        print(f"  {k:12s} findings in seeds {bad[k]}  {st}")
    return 1 if any(bad.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
