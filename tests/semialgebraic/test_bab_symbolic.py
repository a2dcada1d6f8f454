"""The symbolic intervals and differential bounds of a branch-and-bound node on int64 limbs
(issue 15): the same exact numbers as the definitions (a Fraction oracle of DeepPoly with the
2^-40 grid), as the checker's replay, and, bit for bit, as the former FLINT implementation
(frozen digests of its outputs on the digits classifier and a 5-50×6-5 network vs their float16
copies); degenerate rows (zero, duplicate, huge and tiny weights, non-dyadic denominators);
row chunks and the budget between them."""

from __future__ import annotations

import hashlib
import math
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from algebra.kernel import difference_network
from algebra.network import Network
from algebra.rationals import Q, from_float
from semialgebraic.bab import symbolic
from semialgebraic.bab.differential import DifferentialNet
from semialgebraic.bab.symbolic import SymbolicNet
from semialgebraic.verify.bab_replay import layer_intervals, paired_deltas

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
G = 2 ** 40


# -- the oracle: DeepPoly with the grid, in Fractions, one row at a time ----------------------------
def _f(q):
    return Fraction(int(q.p), int(q.q))


def _down(v):
    return Fraction(math.floor(v * G), G)


def _up(v):
    return Fraction(math.ceil(v * G), G)


def _line(lo, hi):
    """(su, tu, sl, cap) of a neuron with interval [lo, hi] (symbolic.py's module docstring)."""
    if lo >= 0:
        return 1, 0, 1, max(hi, 0)
    if hi <= 0:
        return 0, 0, 0, 0
    su = _up(hi / (hi - lo))
    return su, -su * lo, 1 if hi > -lo else 0, hi


def _bound(W, B, lines, box, top, lam, const):
    """max of lam · h_{top-1} + const over the relaxations of layers top-1 … 0 and the box."""
    for k in range(top - 1, -1, -1):
        mu = []
        for c, (su, tu, sl, _) in zip(lam, lines[k]):
            mu.append(c * su if c > 0 else c * sl)
            const += c * tu if c > 0 else 0
        const += sum(m * b for m, b in zip(mu, B[k]))
        nxt = [sum(m * row[t] for m, row in zip(mu, W[k])) for t in range(len(W[k][0]))]
        if k > 0:
            lam = [_down(v) for v in nxt]
            const += sum((v - r) * ln[3] for v, r, ln in zip(nxt, lam, lines[k - 1]))
        else:
            lam = nxt
    return const + sum(c * (hi if c > 0 else lo) for c, (lo, hi) in zip(lam, box))


def oracle_intervals(Ws, bs, box, splits):
    W = [[[_f(v) for v in row] for row in layer] for layer in Ws]
    B = [[_f(v) for v in b] for b in bs]
    box = [(_f(lo), _f(hi)) for lo, hi in box]
    L, ivs, lines = len(W), [], []
    for l in range(L):
        src = box if l == 0 else [(max(lo, 0), max(hi, 0)) for lo, hi in ivs[-1]]
        cur = [(_down(b + sum(min(w * a, w * c) for w, (a, c) in zip(row, src))),
                _up(b + sum(max(w * a, w * c) for w, (a, c) in zip(row, src)))) for row, b in zip(W[l], B[l])]
        if l > 0:
            for j, (lo, hi) in enumerate(cur):
                if l == L - 1 or lo < 0 < hi:
                    u = _bound(W, B, lines, box, l, W[l][j], B[l][j])
                    v = _bound(W, B, lines, box, l, [-w for w in W[l][j]], -B[l][j])
                    cur[j] = (max(lo, _down(-v)), min(hi, _up(u)))
        if l < L - 1:
            for j, (lo, hi) in enumerate(cur):
                side = splits.get((l, j))
                cur[j] = (max(lo, 0) if side == 1 else lo, min(hi, 0) if side == 0 else hi)
            if any(lo > hi for lo, hi in cur):
                return None
            lines.append([_line(lo, hi) for lo, hi in cur])
        ivs.append(cur)
    return ivs


def _as_fractions(ivs):
    return None if ivs is None else [[(_f(lo), _f(hi)) for lo, hi in layer] for layer in ivs]


# -- networks ---------------------------------------------------------------------------------------
def _weight(rng, kind):
    if kind == "huge":
        return Q(rng.choice([-1, 1]) * rng.randrange(1, 9) * 2 ** 90 + rng.randrange(7), 3)
    if kind == "tiny":
        return Q(rng.randrange(-9, 10), 2 ** 120)
    if kind == "third":
        return Q(rng.randrange(-9, 10), rng.choice([3, 7, 2 ** 30 * 3]))
    return Q(rng.randrange(-64, 65), 32)


def _net(rng, widths, kinds=("plain",)):
    Ws, bs = [], []
    for i in range(len(widths) - 1):
        W = [[_weight(rng, rng.choice(kinds)) for _ in range(widths[i])] for _ in range(widths[i + 1])]
        if len(W) > 2:
            W[1] = [Q(0)] * widths[i]                       # a zero row
            W[2] = list(W[0])                               # a duplicate row
        Ws.append(W)
        bs.append([_weight(rng, rng.choice(kinds)) / 4 for _ in range(widths[i + 1])])
    return Network.from_rows(Ws, bs)


def _layers(net):
    return [W.to_rows() for W in net.weights], [list(v) for v in net.biases]


def _float16(net):
    return Network.from_rows([[[from_float(np.float16(float(v))) for v in row] for row in W.to_rows()]
                              for W in net.weights],
                             [[from_float(np.float16(float(v))) for v in b] for b in net.biases])


CASES = [((2, 4, 3, 1), ("plain",)), ((3, 5, 4, 2), ("plain", "third")), ((2, 4, 4, 1), ("plain", "huge")),
         ((3, 3, 5, 3, 2), ("plain", "tiny", "third")), ((1, 4, 1), ("huge", "tiny"))]


@pytest.mark.parametrize("seed", range(len(CASES)))
def test_intervals_equal_the_fraction_oracle_and_the_replay(seed):
    rng = random.Random(seed)
    widths, kinds = CASES[seed]
    D = _net(rng, widths, kinds)
    Ws, bs = _layers(D)
    box = [(Q(-rng.randrange(1, 9), 4), Q(rng.randrange(1, 9), 3)) for _ in range(widths[0])]
    sym = SymbolicNet(Ws, bs)
    root = sym.intervals(box, {})
    assert _as_fractions(root) == oracle_intervals(Ws, bs, box, {})
    assert layer_intervals(list(D.weights), Ws, bs, box, {}) == root
    for l in range(len(Ws) - 1):
        for j in range(len(Ws[l])):
            for side in (0, 1):
                splits = {(l, j): side}
                child = sym.intervals(box, splits, parent=root, layer=l)
                assert child == sym.intervals(box, splits)                # the parent's layers reused
                assert _as_fractions(child) == oracle_intervals(Ws, bs, box, splits)
                assert layer_intervals(list(D.weights), Ws, bs, box, splits) == child


@pytest.mark.parametrize("seed", range(4))
def test_differential_bounds_of_float16_copies_equal_the_replay(seed):
    """a − b for a random net and its float16 copy (huge and tiny weights included): the δ of
    every layer equals the checker's, with and without the symbolic part."""
    rng = random.Random(100 + seed)
    widths = [(3, 5, 4, 2), (2, 6, 6, 1), (4, 3, 5, 3, 2), (2, 4, 3)][seed]
    a = _net(rng, widths, ("plain", "tiny") if seed % 2 else ("plain",))
    D = difference_network(a, _float16(a))
    Ws, bs = _layers(D)
    box = [(Q(-1), Q(1, 2))] * widths[0]
    ivs = SymbolicNet(Ws, bs).intervals(box, {})
    dn = DifferentialNet(Ws, bs)
    full = dn.state(box, ivs)
    assert full[0] == paired_deltas(Ws, bs, box, ivs, symbolic=True, every_layer=True)
    assert dn.deltas(box, ivs, symbolic=False) == paired_deltas(Ws, bs, box, ivs, every_layer=True)
    hidden = [(l, j) for l in range(len(Ws) - 1) for j in range(len(Ws[l])) if ivs[l][j][0] < 0 < ivs[l][j][1]]
    for l, j in hidden[:4]:
        splits = {(l, j): 1}
        child = SymbolicNet(Ws, bs).intervals(box, splits, parent=ivs, layer=l)
        if child is not None:
            again = dn.state(box, child, parent=full, layer=l)[0]
            assert again == dn.deltas(box, child)
            assert again == paired_deltas(Ws, bs, box, child, symbolic=True, every_layer=True)


def test_row_chunks_give_the_same_bounds_and_check_the_budget(monkeypatch):
    rng = random.Random(7)
    D = _net(rng, (3, 12, 12, 6), ("plain", "third"))
    Ws, bs = _layers(D)
    box = [(Q(-1), Q(1))] * 3
    whole = SymbolicNet(Ws, bs).intervals(box, {})
    monkeypatch.setattr(symbolic, "_CHUNK", 1)                  # 8 rows a chunk
    calls = []
    chunked = SymbolicNet(Ws, bs).intervals(box, {}, cancel=lambda: calls.append(1))
    assert chunked == whole
    monkeypatch.undo()
    calls_whole = []
    SymbolicNet(Ws, bs).intervals(box, {}, cancel=lambda: calls_whole.append(1))
    assert len(calls) > len(calls_whole)


# -- bit for bit with the former FLINT implementation (digests of its outputs) --------------------------
def _digits_pair(name):
    z = np.load(DATA / f"digits_{name}.npz")
    L = len([k for k in z.files if k.startswith("W")])
    nets = []
    for dtype in (np.float32, np.float16):
        nets.append(Network.from_rows([[[from_float(v) for v in row.astype(dtype)] for row in z[f"W{i}"]]
                                       for i in range(L)],
                                      [[from_float(v) for v in z[f"b{i}"].astype(dtype)] for i in range(L)]))
    return nets[0], nets[1], [(Q(0), Q(16))] * 64


def _he_pair():
    rng = np.random.default_rng(0)
    widths = [5] + [50] * 6 + [5]
    Ws, bs = [], []
    for i in range(len(widths) - 1):
        Ws.append(rng.normal(0, np.sqrt(2 / widths[i]), (widths[i + 1], widths[i])).astype(np.float32))
        bs.append((0.01 * rng.normal(size=widths[i + 1])).astype(np.float32))
    nets = [Network.from_rows([[[from_float(v) for v in row.astype(t)] for row in W] for W in Ws],
                              [[from_float(v) for v in b.astype(t)] for b in bs]) for t in (np.float32, np.float16)]
    rng = np.random.default_rng(1)
    centre = [Q(int(round(v * 1000)), 1000) for v in rng.uniform(-0.5, 0.5, 5)]
    return nets[0], nets[1], [(c - Q(1, 200), c + Q(1, 200)) for c in centre]


def node_trace(a, b, box, splits=3):
    """The intervals and δ of the root and of both children of the first *splits* unstable
    neurons (each from its parent), as one string."""
    D = difference_network(a, b)
    Ws, bs = _layers(D)
    sym, dn = SymbolicNet(Ws, bs), DifferentialNet(Ws, bs)
    ivs = sym.intervals(box, {})
    state = dn.state(box, ivs)
    out = [(ivs, state[0])]
    unstable = [(l, j) for l, layer in enumerate(ivs[:-1]) for j, (lo, hi) in enumerate(layer) if lo < 0 < hi]
    node = ({}, ivs, state)
    for l, j in unstable[:splits]:
        for side in (0, 1):
            sp = {**node[0], (l, j): side}
            child = sym.intervals(box, sp, parent=node[1], layer=l)
            cstate = None if child is None else dn.state(box, child, parent=node[2], layer=l)
            out.append((child, None if cstate is None else cstate[0]))
            if side == 1 and child is not None:
                node = (sp, child, cstate)
    return repr(out)


def _digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def test_digits_nodes_are_bit_identical_to_the_flint_implementation():
    a, b, box = _digits_pair("64-32-10")
    assert _digest(node_trace(a, b, box)) == "0d89d44833c021e1"     # the FLINT code's, at 14075e2


@pytest.mark.slow
def test_deeper_nodes_are_bit_identical_to_the_flint_implementation():
    a, b, box = _digits_pair("64-32-16-10")
    assert _digest(node_trace(a, b, box)) == "891881e948b2b767"
    a, b, box = _he_pair()
    assert _digest(node_trace(a, b, box)) == "0604c714f858f672"
