"""Sweep of ``diff`` on unbounded domains in d = 3 and 4 (issue 15; three-layer-fibers R28, R29,
R33), every answer compared with z3's optimum.

Pairs of networks with at most 30 hidden ReLUs in ``a`` (b may have more: a deepened copy
carries its output as a pair of ReLUs per extra layer) on R^d and on the orthant, of the kinds

* ``bias``: b has a's weights and shifted biases (R29: a − b bounded);
* ``f16``: a of float32 weights and biases whose weights are float16 numbers, b its float16
  copy (only the biases change: bounded);
* ``f16w``: a of float32 weights, b the float16 copy of everything (weights change: as a rule
  ``+∞``, R28's ray);
* ``perturb``: b = a with a few weights moved by 1/8 (as a rule ``+∞``);
* ``indep``: a and b independent (as a rule ``+∞``);
* ``deep``: b a deepened copy of a (output carried as ``relu(y + c) − relu(−y + c')``, one or
  two layers more, every bias shifted): bounded, a and b of different depths (R33's carried
  pair).

Per case: ``diff_bounds`` (its certificate re-checked by ``verify``, a ray's point evaluated
exactly) against z3's ``max ±(a_o − b_o)`` over the domain (``Optimize``, 60 s per case; ``oo``
when unbounded).  A finite interval must contain z3's optimum, a ``+∞`` must meet z3's ``oo``
(and a finite answer z3's finite one); any other outcome is printed as WRONG.

Run by hand (``nice`` it: others measure timings)::

    nice -n 15 python -m tests.fuzz.recession_sweep --seed 0 --count 24 [--timeout 30]

It prints one line per case and a table: how many exact, intervals, open (no upper bound),
``+∞`` (rays verified), z3 timeouts, and the CPU seconds.  ``tests/fuzz/test_recession_sweep.py``
runs a few cases in the suite.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import time
from collections import Counter
from fractions import Fraction as F

import numpy as np

from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.certificates import jsonable
from semialgebraic.verify import verify

KINDS = ("bias", "f16", "f16w", "perturb", "indep", "deep")
SHAPES = {3: [(4, 3), (6, 4), (8, 6), (10, 8), (12, 10, 8)], 4: [(4, 3), (6, 4), (8, 6), (10, 8), (12, 10, 8)]}


def evaluate(layers, x):
    """The network *layers* (``[(W, b), …]`` of fractions) at *x*, exactly."""
    h = [F(v) for v in x]
    for k, (W, b) in enumerate(layers):
        h = [sum((w * v for w, v in zip(row, h)), F(0)) + c for row, c in zip(W, b)]
        if k < len(layers) - 1:
            h = [max(v, F(0)) for v in h]
    return h


def _f16(v):
    return F(float(np.float16(float(v))))


def _f32(v):
    return F(float(np.float32(v)))


def _net(rng, widths, style):
    draw = {"rat": lambda: F(rng.randint(-8, 8), 4),
            "f32": lambda: _f32(rng.gauss(0, 1)),
            "f16w": lambda: _f16(rng.gauss(0, 1))}[style]
    return [([[draw() for _ in range(p)] for _ in range(q)],
             [(_f32(rng.gauss(0, 1)) if style != "rat" else F(rng.randint(-8, 8), 4)) for _ in range(q)])
            for p, q in zip(widths, widths[1:])]


def _deepened(rng, layers, extra):
    out = [([list(r) for r in W], [c + F(rng.randint(-4, 4), 8) for c in b]) for W, b in layers]
    for _ in range(extra):
        W, c = out.pop()
        m = len(W)
        out += [(W + [[-v for v in r] for r in W], c + [-v + F(rng.randint(-4, 4), 8) for v in c]),
                ([[F(1) if k == o else F(-1) if k == m + o else F(0) for k in range(2 * m)] for o in range(m)],
                 [F(rng.randint(-4, 4), 8) for _ in range(m)])]
    return out


def make_case(seed: int, hidden=None):
    """``(kind, d, domain name, a, b)`` of case *seed* (layers as fractions); *hidden*: a's
    hidden widths instead of a random choice of :data:`SHAPES`."""
    rng = random.Random(seed)
    kind = KINDS[seed % len(KINDS)]
    d = 3 + (seed // len(KINDS)) % 2
    dom = "whole" if (seed // (2 * len(KINDS))) % 2 == 0 else "orthant"
    shape = rng.choice(SHAPES[d])
    widths = (d, *(shape if hidden is None else hidden), 1)
    if kind == "bias":
        a = _net(rng, widths, "rat")
        b = [(W, [c + F(rng.randint(-4, 4), 4) for c in bv]) for W, bv in a]
    elif kind == "f16":
        a = [(W, [_f32(rng.gauss(0, 1)) for _ in bv]) for W, bv in _net(rng, widths, "f16w")]
        b = [(W, [_f16(c) for c in bv]) for W, bv in a]
    elif kind == "f16w":
        a = _net(rng, widths, "f32")
        b = [([[_f16(v) for v in r] for r in W], [_f16(c) for c in bv]) for W, bv in a]
    elif kind == "perturb":
        a = _net(rng, widths, "rat")
        b = [([list(r) for r in W], list(bv)) for W, bv in a]
        for _ in range(2):
            W = b[rng.randrange(len(b))][0]
            row = W[rng.randrange(len(W))]
            row[rng.randrange(len(row))] += F(rng.choice([-1, 1]), 8)
    elif kind == "indep":
        a, b = _net(rng, widths, "rat"), _net(rng, widths, "rat")
    else:
        a = _net(rng, widths, "rat")
        b = _deepened(rng, a, 1 + seed % 2)
    return kind, d, dom, a, b


def _network(layers):
    return Network.from_rows([W for W, _ in layers], [b for _, b in layers])


def z3_max(a, b, d, dom, timeout=60.0):
    """z3's ``max_o |a_o − b_o|`` over the domain: a Fraction, ``"inf"`` or None (timeout)."""
    import z3
    xs = [z3.Real(f"x{i}") for i in range(d)]

    def val(q):
        return z3.RealVal(f"{q.numerator}/{q.denominator}")

    def net(layers):
        h = xs
        for k, (W, b) in enumerate(layers):
            z = [sum((val(w) * v for w, v in zip(row, h) if w != 0), val(c)) for row, c in zip(W, b)]
            h = z if k == len(layers) - 1 else [z3.If(v > 0, v, z3.RealVal(0)) for v in z]
        return h
    best, end = None, time.monotonic() + timeout
    for fa, fb in zip(net(a), net(b)):
        for sg in (1, -1):
            left = end - time.monotonic()
            if left <= 0:
                return None
            opt = z3.Optimize()
            opt.set("timeout", max(1, int(left * 1000)))
            if dom == "orthant":
                opt.add(*[x >= 0 for x in xs])
            h = opt.maximize(sg * (fa - fb))
            if opt.check() != z3.sat:
                return None
            v = opt.upper(h)
            if z3.is_rational_value(v):
                got = F(str(v.as_fraction()))
            elif z3.is_int_value(v):
                got = F(v.as_long())
            elif "oo" in str(v):
                return "inf"
            else:
                return None
            best = got if best is None or got > best else best
    return best


def run_case(seed: int, timeout: float | None = 30.0, z3_timeout: float = 60.0, hidden=None) -> dict:
    """One case: netfibers' answer, its checks and z3's optimum; ``"verdict"`` is ``"exact"``,
    ``"interval"``, ``"open"`` or ``"inf"``, ``"wrong"`` lists what disagrees."""
    kind, d, dom_name, a_l, b_l = make_case(seed, hidden)
    a, b = _network(a_l), _network(b_l)
    dom = Domain.whole(d) if dom_name == "whole" else Domain.orthant(d)
    t0 = resource.getrusage(resource.RUSAGE_SELF).ru_utime
    r = diff_bounds(a, b, dom, timeout=timeout)
    cpu = resource.getrusage(resource.RUSAGE_SELF).ru_utime - t0
    cert = json.loads(json.dumps(jsonable(r.certificate)))
    wrong = []
    if not verify(cert)[0]:
        wrong.append("certificate refused")
    x = [F(str(v)) for v in r.point]
    dev = max(abs(p - q) for p, q in zip(evaluate(a_l, x), evaluate(b_l, x)))
    if dev < F(str(r.lower)):
        wrong.append(f"the point's deviation {dev} is below the lower bound {r.lower}")
    verdict = ("inf" if r.unbounded else "open" if r.upper is None else
               "exact" if r.lower == r.upper else "interval")
    t1 = time.process_time()
    z = z3_max(a_l, b_l, d, dom_name, z3_timeout)
    z3_cpu = time.process_time() - t1
    if z == "inf" and verdict in ("exact", "interval"):
        wrong.append("z3: unbounded, netfibers: a finite upper bound")
    if isinstance(z, F):
        if verdict == "inf":
            wrong.append(f"netfibers: +inf, z3: {z}")
        if Q(z.numerator, z.denominator) < r.lower or (r.upper is not None and Q(z.numerator, z.denominator) > r.upper):
            wrong.append(f"z3's optimum {z} outside [{r.lower}, {r.upper}]")
    return {"seed": seed, "kind": kind, "d": d, "domain": dom_name, "relus": (a.widths[1:-1], b.widths[1:-1]),
            "verdict": verdict, "lower": r.lower, "upper": r.upper, "z3": z, "cpu": cpu, "z3_cpu": z3_cpu,
            "wrong": wrong, "reason": r.reason, "tail": (cert.get("tail") or {}).get("kind", "cover" if "tail" in cert else None)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--z3-timeout", type=float, default=60.0)
    args = ap.parse_args(argv)
    tally, cpu, z3_cpu = Counter(), 0.0, 0.0
    for seed in range(args.seed, args.seed + args.count):
        c = run_case(seed, args.timeout, args.z3_timeout)
        tally[c["verdict"]] += 1
        tally["z3 timeout"] += c["z3"] is None
        tally["WRONG"] += bool(c["wrong"])
        cpu, z3_cpu = cpu + c["cpu"], z3_cpu + c["z3_cpu"]
        z = c["z3"] if c["z3"] is not None else "timeout"
        print(f"{seed:3d} {c['kind']:7s} d={c['d']} {c['domain']:7s} {c['relus']} {c['verdict']:8s} "
              f"[{c['lower']}, {c['upper']}] z3 {z} tail {c['tail']} {c['cpu']:.1f} s"
              + (f" WRONG {c['wrong']}" if c["wrong"] else "")
              + ("" if c["verdict"] in ("exact", "inf") else f" ({c['reason'][:160]})"), flush=True)
    print(dict(tally), f"netfibers {cpu:.1f} CPU s, z3 {z3_cpu:.1f} CPU s")


if __name__ == "__main__":
    main()
