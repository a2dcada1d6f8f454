"""FIND-S on numpy arrays modulo primes below 2^20 (issue 16 part 4): the modular route agrees
with the exact rational route on random and planted blocks, and every witness it returns is a
proof checked here with Fractions (an oracle that shares no code with netfibers)."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
from hypothesis import given, settings, strategies as st

from algebra.linalg import PRIME, QMatrix, is_prime
from algebra.linalg.gfp import kernel_free_mod_p, residues_array
from semialgebraic.absorption import absorbable, find_s
from semialgebraic.absorption.find_s import _float_route_primes


def _fractions(m: QMatrix):
    return [[Fraction(int(x.p), int(x.q)) for x in row] for row in m.to_rows()]


def _check_witness(r, w_up, w_down, target):
    """Y mod p with a_iᵀ Y w_i ≡ 0 for every unit i and ⟨Y, target⟩ ≢ 0 (Fractions)."""
    p = r.witness["modulus"]
    U, V, Z = _fractions(w_up), _fractions(w_down), _fractions(target)
    Y = r.witness["Y"]

    def mod(x: Fraction) -> int:
        return x.numerator * pow(x.denominator, -1, p) % p
    for i in range(len(U)):
        assert sum(y * mod(V[a][i] * U[i][b]) for a, b, y in Y) % p == 0
    assert sum(y * mod(Z[a][b]) for a, b, y in Y) % p != 0


def test_primes_of_the_float_route():
    primes = _float_route_primes()
    assert primes[0] == PRIME and len(primes) == 6 and all(is_prime(p) and p < 2 ** 20 for p in primes)
    assert list(primes) == sorted(primes, reverse=True)


def test_residues_array_and_kernel_free_against_fractions():
    rng = random.Random(3)
    rows = [[Fraction(rng.randint(-50, 50), rng.choice([1, 2, 3, 8])) for _ in range(5)] for _ in range(4)]
    m = QMatrix.from_rows([[f"{x.numerator}/{x.denominator}" for x in r] for r in rows])
    p = 1048571
    R = residues_array(m, p)
    assert R.tolist() == [[x.numerator * pow(x.denominator, -1, p) % p for x in r] for r in rows]
    A = np.array([[1, 2, 3, 4], [2, 4, 6, 9], [0, 0, 0, 1]])
    K, free = kernel_free_mod_p(A, 7)
    assert free.tolist() == [1, 2]
    assert not (A @ K.astype(np.int64) % 7).any() and (K[free] == np.eye(2)).all()


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3), st.integers(2, 7), st.integers(0, 2 ** 30), st.booleans())
def test_modular_find_s_agrees_with_exact(d, k, seed, plant):
    rng = random.Random(seed)
    up = [[rng.randint(-2, 2) for _ in range(d)] for _ in range(k)]
    down = [[rng.randint(-2, 2) for _ in range(k)] for _ in range(d)]
    w_up, w_down = QMatrix.from_rows(up), QMatrix.from_rows(down)
    if plant:                               # a planted S: target = W_down[:,S] W_up[S,:]
        S = sorted(rng.sample(range(k), rng.randint(1, k)))
        target = w_down.submatrix(cols=S) @ w_up.submatrix(rows=S)
    else:
        target = -QMatrix.identity(d)
    exact = find_s(w_up, w_down, target, exact=True)
    modular = find_s(w_up, w_down, target, exact=False)
    if exact.complete and modular.complete:
        assert modular.subsets == exact.subsets
    if plant and modular.complete:
        assert tuple(S) in modular.subsets
    for r in (modular,):
        if r.witness and r.witness["kind"] == "left_null":
            _check_witness(r, w_up, w_down, target)
            assert not exact.subsets


def test_generic_float_block_not_absorbable_with_checked_witness():
    rng = np.random.default_rng(5)
    from algebra.blocks import Block
    from algebra.io.arrays import matrix_from_array
    d, k = 12, 48
    up = matrix_from_array(rng.standard_normal((k, d)).astype(np.float32))
    down = matrix_from_array(rng.standard_normal((d, k)).astype(np.float32))
    r = find_s(up, down, -QMatrix.identity(d))
    assert r.subsets == [] and r.complete and r.witness["kind"] == "left_null"
    assert r.modulus in _float_route_primes()
    _check_witness(r, up, down, -QMatrix.identity(d))
    v = absorbable(Block("relu", up, down))          # the certificate passes the checker
    assert v.answer is False and v.certificate["witness"]["kind"] == "left_null"


def test_planted_float_block_found_with_every_candidate_checked():
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from bench_absorption import planted
    block, S = planted(10, 40, 3, seed=2)
    v = absorbable(block)
    assert v.answer is True and S in v.details["all_S"]
    exact_product = block.w_down.submatrix(cols=S) @ block.w_up.submatrix(rows=S)
    assert exact_product == -QMatrix.identity(10)
    assert v.details.get("nullity") == 3


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(1, 8), st.integers(0, 2 ** 30))
def test_degenerate_units_numpy_equals_python(d, k, seed):
    from semialgebraic.absorption.find_s import _degenerate_units_python, degenerate_units
    rng = random.Random(seed)
    rows = [[Fraction(rng.randint(-2, 2), rng.choice([1, 2])) for _ in range(d + 1)] for _ in range(k)]
    for _ in range(rng.randint(0, 2)):                     # plant collinear rows, also negative
        i, j = rng.randrange(k), rng.randrange(k)
        c = Fraction(rng.choice([-3, -1, 2, 5]), rng.choice([1, 4]))
        rows[j] = [c * x for x in rows[i]]
    up = QMatrix.from_rows([[f"{x.numerator}/{x.denominator}" for x in r] for r in rows])
    down = QMatrix.from_rows([[rng.randint(-1, 1) for _ in range(k)] for _ in range(d)])
    got = degenerate_units(up, down, d)
    assert got == _degenerate_units_python(up, down, d)
    zero_row, pair, zero_col = got                          # and against Fractions directly
    live = [i for i in range(k) if any(rows[i][:d])]
    assert zero_row == next((i for i in range(k) if i not in live), None)
    if pair is not None:
        j, i = pair
        ratio = next(rows[i][t] / rows[j][t] for t in range(d) if rows[j][t])
        assert ratio != 0 and [ratio * x for x in rows[j]] == rows[i]   # negative multiples too
