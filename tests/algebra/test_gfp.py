"""algebra.linalg.gfp against independent oracles: Gauss-Jordan modulo p on Python integers
(written here), exact ranks over Q (``QMatrix.rank``) for random integer matrices and a large
prime, residues against ``fractions.Fraction``, primality against trial division."""

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from algebra.linalg import QMatrix
from algebra.linalg.gfp import (PRIME, PRIME_31, PRIME_61, PRIMES_24, echelon_mod_p, exact_rank, expand_kernel, inverse_mod_p,
                                kernel_rows_mod_p, shrink_kernel_rows_mod_p,
                                kernel_free_mod_p,
                                rref_mod_p,
                                is_prime, kernel_mod_p, matmul_mod_p, nmod_left_kernel_vector,
                                nmod_rank, nmod_rref, prime_for, rank_lower_bound, rank_mod_p,
                                residue, residues, shrink_kernel_free_mod_p,
                                shrink_kernel_mod_p)

FAST = settings(max_examples=60, deadline=None)


# -- independent oracle: Gauss-Jordan mod p on Python ints ------------------------------------------
def rref_oracle(rows, p):
    """(pivots, reduced non-zero rows) of the RREF mod p of a list of integer rows."""
    R = [[x % p for x in r] for r in rows]
    ncols = len(R[0]) if R else 0
    pivots, r = [], 0
    for c in range(ncols):
        k = next((i for i in range(r, len(R)) if R[i][c]), None)
        if k is None:
            continue
        R[r], R[k] = R[k], R[r]
        inv = pow(R[r][c], p - 2, p)
        R[r] = [x * inv % p for x in R[r]]
        for i in range(len(R)):
            if i != r and R[i][c]:
                f = R[i][c]
                R[i] = [(x - f * y) % p for x, y in zip(R[i], R[r])]
        pivots.append(c)
        r += 1
    return tuple(pivots), R[:r]


def rank_oracle(rows, p):
    return len(rref_oracle(rows, p)[0]) if rows else 0


def is_prime_oracle(n):
    return n >= 2 and all(n % k for k in range(2, int(n ** 0.5) + 1))


def low_rank(rng, n, m, r, lo=-3, hi=3):
    """An n x m integer matrix of rank at most r (product of random n x r and r x m factors)."""
    A = [[rng.randint(lo, hi) for _ in range(r)] for _ in range(n)]
    B = [[rng.randint(lo, hi) for _ in range(m)] for _ in range(r)]
    return [[sum(a * b for a, b in zip(row, col)) for col in zip(*B)] for row in A]


@st.composite
def int_matrices(draw, max_rows=7, max_cols=7):
    n = draw(st.integers(1, max_rows))
    m = draw(st.integers(1, max_cols))
    r = draw(st.integers(0, min(n, m)))
    seed = draw(st.integers(0, 10 ** 6))
    return low_rank(random.Random(seed), n, m, r, -9, 9)


SMALL_PRIMES = st.sampled_from([2, 3, 5, 7, 101, PRIME, PRIME_31, PRIME_61])


# -- FLINT nmod back end ------------------------------------------------------------------------------
@FAST
@given(int_matrices(), SMALL_PRIMES)
def test_nmod_rank_and_rref_match_the_oracle(A, p):
    n, m = len(A), len(A[0])
    flat = [x for r in A for x in r]
    piv, R = rref_oracle(A, p)
    assert nmod_rank(n, m, flat, p) == len(piv)
    assert nmod_rref(n, m, flat, p) == (piv, R)
    assert nmod_rref(n, m, flat, p, columns=[m - 1, 0]) == (piv, [[r[m - 1], r[0]] for r in R])
    free = [c for c in range(m) if c not in piv]
    assert nmod_rref(n, m, flat, p, columns="nonpivot") == (piv, [[r[c] for c in free] for r in R])


@FAST
@given(int_matrices(), SMALL_PRIMES, st.integers(0, 10 ** 6))
def test_nmod_left_kernel_vector_is_a_witness_exactly_when_rhs_is_outside_the_span(A, p, seed):
    n, m = len(A), len(A[0])
    rng = random.Random(seed)
    rhs = [rng.randint(-2, 2) for _ in range(n)] if seed % 3 else [sum(r) for r in A]
    y = nmod_left_kernel_vector(n, m, [x for r in A for x in r], p, rhs)
    in_span = rank_oracle([r + [b] for r, b in zip(A, rhs)], p) == rank_oracle(A, p)
    if in_span:
        assert y is None
    else:
        assert y is not None and len(y) == n
        assert all(sum(y[i] * A[i][j] for i in range(n)) % p == 0 for j in range(m))
        assert sum(a * b for a, b in zip(y, rhs)) % p != 0


def test_nmod_edge_shapes():
    assert nmod_rank(0, 3, [], 7) == 0 and nmod_rank(3, 0, [], 7) == 0
    assert nmod_rref(0, 2, [], 7) == ((), [])
    assert nmod_left_kernel_vector(0, 2, [], 7, []) is None
    assert nmod_left_kernel_vector(2, 0, [], 7, [0, 3]) == [0, 1]
    assert nmod_left_kernel_vector(2, 0, [], 7, [7, 14]) is None


# -- residues ----------------------------------------------------------------------------------------
@FAST
@given(st.lists(st.fractions(max_denominator=10 ** 6), min_size=1, max_size=12),
       st.sampled_from([5, 7, PRIME, PRIMES_24[0], PRIME_61]))
def test_residues_against_fractions(values, p):
    M = QMatrix.from_rows([[str(v) for v in values]])
    if any(v.denominator % p == 0 for v in values):
        with pytest.raises(ZeroDivisionError):
            residues(M, p)
        bad = next(v for v in values if v.denominator % p == 0)
        with pytest.raises(ZeroDivisionError):
            residue(str(bad), p)
        return
    res = residues(M, p)
    assert res == [residue(str(v), p) for v in values]
    for v, r in zip(values, res):
        assert 0 <= r < p and (r * v.denominator - v.numerator) % p == 0


def test_residue_refuses_a_float():
    with pytest.raises(TypeError):
        residue(0.5, 7)


# -- rank lower bound of a rational matrix: exact rank over Q for a large prime -----------------------
@pytest.mark.parametrize("seed", range(12))
def test_rank_lower_bound_equals_the_rational_rank_for_a_large_prime(seed):
    rng = random.Random(seed)
    n, m = rng.randint(1, 9), rng.randint(1, 9)
    A = low_rank(rng, n, m, rng.randint(0, min(n, m)), -50, 50)
    den = rng.choice([1, 2, 6, 7 ** 3])
    M = QMatrix.from_rows([[Fraction(x, den * (1 + (i + j) % 3)) for j, x in enumerate(r)]
                           for i, r in enumerate(A)])
    for p in (PRIME_31, PRIME_61):
        assert rank_lower_bound(M, p) == M.rank()
    for p in (2, 3, 7):                      # small primes: only a lower bound (7 divides den)
        assert rank_lower_bound(M, p) <= M.rank()


def test_rank_lower_bound_full_row_rank_and_drops():
    A = QMatrix.from_rows([[1, 0, 2], [0, 1, 3]])
    assert rank_lower_bound(A) == 2
    assert rank_lower_bound(QMatrix.from_rows([[2, 4], [1, 3]]), 2) == 1    # det 2: drops mod 2
    assert rank_lower_bound(QMatrix.zeros(0, 3)) == 0


# -- numpy float64 back end --------------------------------------------------------------------------
@FAST
@given(int_matrices(max_rows=9, max_cols=9), st.sampled_from([1, 2, 3, 64]),
       st.sampled_from([5, 101, PRIME, 1048571]))
def test_rank_and_echelon_mod_p_match_the_oracle(A, block, p):
    r, E, blocks = echelon_mod_p(A, p, block)
    assert r == rank_mod_p(A, p, block) == rank_oracle(A, p)
    assert E.shape == (r, len(A[0]))
    E_int = [[int(x) for x in row] for row in E]
    assert all(0 <= x < p for row in E_int for x in row)
    assert rref_oracle(E_int, p) == rref_oracle(A, p)   # same row space mod p
    assert sum(len(c) for _, c, _ in blocks) == r


@pytest.mark.parametrize("n, m, r, block", [(40, 30, 17, 8), (25, 60, 25, 16), (70, 50, 50, 64)])
def test_kernel_and_shrink_mod_p_match_the_oracle(n, m, r, block):
    rng = random.Random(n * m + r)
    p = PRIME
    A = low_rank(rng, n, m, r, -1000, 1000)
    rank = rank_oracle(A, p)
    assert rank_mod_p(A, p, block) == rank
    K = kernel_mod_p(A, p, block).astype(np.int64)
    assert K.shape == (m, m - rank)
    Kl = K.tolist()
    assert all(sum(a * Kl[j][c] for j, a in enumerate(row)) % p == 0
               for row in A for c in range(K.shape[1]))
    assert rank_oracle([list(col) for col in zip(*Kl)], p) == m - rank      # independent columns
    B = low_rank(rng, 6, m, 4, -1000, 1000)
    K2 = shrink_kernel_mod_p(K.astype(float), B, p).astype(np.int64)
    assert K2.shape[1] == m - rank_oracle(A + B, p)
    K2l = K2.tolist()
    assert all(sum(a * K2l[j][c] for j, a in enumerate(row)) % p == 0
               for row in A + B for c in range(K2.shape[1]))


@FAST
@given(int_matrices(max_rows=9, max_cols=12), st.lists(int_matrices(max_rows=4, max_cols=12), max_size=3),
       st.sampled_from([1, 3, 64]), st.sampled_from([5, 101, PRIME]))
def test_the_kernel_with_its_identity_rows_shrinks_like_the_stacked_matrix(A, batches, block, p):
    """shrink_kernel_free_mod_p batch by batch = the kernel of all rows stacked (the oracle's
    rank), K[free] stays the identity, and every column is in the kernel of every row so far."""
    m = len(A[0])
    K, free = kernel_free_mod_p(A, p, block)
    rows = [list(r) for r in A]
    for B in batches:
        B = [(list(r) + [0] * m)[:m] for r in B]
        K, free = shrink_kernel_free_mod_p(K, free, np.array(B, dtype=np.int64), p)
        rows += B
        Kl = K.astype(np.int64).tolist()
        assert K.shape == (m, m - rank_oracle(rows, p))
        assert list(free) == sorted(free) and K[free].tolist() == np.eye(len(free)).tolist()
        assert all(sum(a * Kl[j][c] for j, a in enumerate(row)) % p == 0
                   for row in rows for c in range(K.shape[1]))
        assert K.size == 0 or (0 <= K.min() and K.max() < p)


@FAST
@given(int_matrices(max_rows=9, max_cols=12), st.lists(int_matrices(max_rows=4, max_cols=12), max_size=3),
       st.sampled_from([1, 3, 64]), st.sampled_from([5, 101, PRIME]))
def test_the_compact_kernel_is_the_dense_kernel_without_its_identity_rows(A, batches, block, p):
    """kernel_rows_mod_p / shrink_kernel_rows_mod_p (the functional dimension's kernel: rank x f
    numbers, not ncols x f) expand to exactly kernel_free_mod_p / shrink_kernel_free_mod_p's
    basis, batch by batch; free and piv split the columns."""
    m = len(A[0])
    K, free = kernel_free_mod_p(A, p, block)
    C = kernel_rows_mod_p(A, p, block)
    for B in [None] + batches:
        if B is not None:
            B = np.array([(list(r) + [0] * m)[:m] for r in B], dtype=np.int64)
            K, free = shrink_kernel_free_mod_p(K, free, B, p)
            C = shrink_kernel_rows_mod_p(*C, B, p)
        P, free_c, piv = C
        assert free_c.tolist() == free.tolist()
        assert sorted(free_c.tolist() + piv.tolist()) == list(range(m))
        assert P.shape == (len(piv), len(free_c))
        assert expand_kernel(P, free_c, piv, m).tolist() == K.tolist()


@settings(max_examples=120, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 5), st.integers(0, 10 ** 6),
       st.sampled_from([2, 3, 5, 7, PRIME, PRIME_61]))
def test_the_exact_rank_through_a_minor_is_the_rank_over_q(n, c, r, seed, p):
    """exact_rank (a maximal minor found mod p, its Schur complement checked exactly) equals the
    elimination over Q on low-rank products of rational factors, with tiny primes that divide
    minors (the fallback) and rows or columns repeated or zero."""
    rng = random.Random(seed)
    r = min(r, n, c)
    U = [[Fraction(rng.randint(-4, 4), rng.choice([1, 2, 3, 7])) for _ in range(r)] for _ in range(n)]
    V = [[Fraction(rng.randint(-4, 4), rng.choice([1, 5])) for _ in range(c)] for _ in range(r)]
    rows = [[sum((U[i][k] * V[k][j] for k in range(r)), Fraction(0)) for j in range(c)] for i in range(n)]
    if rng.random() < 0.3:
        rows[rng.randrange(n)] = [x * p for x in rows[rng.randrange(n)]]
    M = QMatrix.from_rows([[str(x) for x in row] for row in rows], ncols=c)
    import algebra.linalg.gfp as gfp
    old, gfp.EXACT_RANK_DIRECT = gfp.EXACT_RANK_DIRECT, 0     # the minor's route on these small ones
    try:
        assert exact_rank(M, p) == M.rank()
    finally:
        gfp.EXACT_RANK_DIRECT = old


@pytest.mark.parametrize("n, c", [(12, 60), (60, 12)])
def test_the_exact_rank_solves_on_the_narrower_side(n, c):
    """Few extra rows and many extra columns (a Jacobian of rank close to its row count: the
    Schur check through Aᵀ with n − r right-hand sides) and the other way round, with a rank
    raised by one changed entry: the rank over Q either way."""
    rng = random.Random(n * c)
    r = min(n, c) - 2
    U = [[Fraction(rng.randint(-4, 4), rng.choice([1, 2, 3])) for _ in range(r)] for _ in range(n)]
    V = [[Fraction(rng.randint(-4, 4), rng.choice([1, 5])) for _ in range(c)] for _ in range(r)]
    rows = [[sum((U[i][k] * V[k][j] for k in range(r)), Fraction(0)) for j in range(c)] for i in range(n)]
    M = QMatrix.from_rows([[str(x) for x in row] for row in rows], ncols=c)
    assert exact_rank(M) == M.rank() == r
    rows[n - 1][c - 1] += 1
    M = QMatrix.from_rows([[str(x) for x in row] for row in rows], ncols=c)
    assert exact_rank(M) == M.rank() == r + 1


def test_matmul_and_inverse_mod_p_match_python():
    rng = random.Random(5)
    p = PRIME
    A = [[rng.randrange(p) for _ in range(9)] for _ in range(7)]
    B = [[rng.randrange(p) for _ in range(5)] for _ in range(9)]
    want = [[sum(a * b for a, b in zip(row, col)) % p for col in zip(*B)] for row in A]
    assert matmul_mod_p(np.array(A), np.array(B), p, chunk=4).astype(np.int64).tolist() == want
    S = [[rng.randrange(p) for _ in range(6)] for _ in range(6)]
    assert rank_oracle(S, p) == 6
    inv = inverse_mod_p(np.array(S, dtype=np.float64), p).astype(np.int64).tolist()
    prod = [[sum(a * b for a, b in zip(row, col)) % p for col in zip(*inv)] for row in S]
    assert prod == [[int(i == j) for j in range(6)] for i in range(6)]


def test_float64_route_refuses_what_it_cannot_do_exactly():
    with pytest.raises(ValueError, match="prime below 2"):
        rank_mod_p([[1, 2]], PRIME_31)
    with pytest.raises(ValueError, match="prime below 2"):
        rank_mod_p([[1, 2]], 1048575)                  # not prime
    with pytest.raises(ValueError, match="block size"):
        rank_mod_p([[1, 2]], PRIME, block=0)
    with pytest.raises(ValueError, match="block size"):
        matmul_mod_p([[1]], [[1]], PRIME, chunk=8192)


# -- primes ------------------------------------------------------------------------------------------
def test_primes_are_prime_and_documented_sizes_hold():
    assert all(is_prime(q) for q in (PRIME, PRIME_31, PRIME_61, *PRIMES_24))
    assert PRIME < 2 ** 20 and all(q < 2 ** 24 for q in PRIMES_24) and PRIME_31 == 2 ** 31 - 1
    assert list(PRIMES_24) == sorted(PRIMES_24, reverse=True)
    assert [n for n in range(2000) if is_prime(n)] == [n for n in range(2000) if is_prime_oracle(n)]
    assert [n for n in range(PRIME - 200, PRIME + 1) if is_prime(n)] == \
        [n for n in range(PRIME - 200, PRIME + 1) if is_prime_oracle(n)]


def test_prime_for_skips_divided_primes():
    assert prime_for([1, 4, 9]) == PRIME
    below = max(n for n in range(PRIME - 100, PRIME) if is_prime_oracle(n))
    assert prime_for([3 * PRIME]) == below
    assert prime_for([PRIME * below]) == max(n for n in range(PRIME - 200, below) if is_prime_oracle(n))
    assert prime_for([2, 10], start=6) == 3
    with pytest.raises(ValueError):
        prime_for([2, 3, 5], start=6)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10 ** 6), st.sampled_from([5, 7, PRIME]), st.sampled_from([1, 3, 8, 64]))
def test_rref_mod_p_is_flints_rref(seed, p, block):
    """rref_mod_p (numpy panels, the budget checked between them) gives FLINT's RREF mod p:
    low-rank products, zero columns, sparse rows, blocks of 1 to 64 columns."""
    from algebra.linalg.gfp import nmod_rref
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 50)), int(rng.integers(1, 140))
    r = int(rng.integers(0, min(n, m) + 1))
    A = rng.integers(-3, 4, (n, r)) @ rng.integers(-3, 4, (r, m))
    if rng.random() < 0.5:
        A[:, rng.integers(0, m, m // 2)] = 0
    piv, S = rref_mod_p(A, p, block=block)
    piv2, rows = nmod_rref(n, m, np.mod(A, p).ravel().tolist(), p)
    assert piv.tolist() == list(piv2) and S.astype(np.int64).tolist() == rows


def test_rref_mod_p_stops_at_the_check():
    calls = []

    def check():
        calls.append(1)
        if len(calls) > 3:
            raise TimeoutError("spent")
    A = np.random.default_rng(0).integers(0, 100, (200, 600))
    with pytest.raises(TimeoutError):
        rref_mod_p(A, PRIME, block=8, check=check)
    assert len(calls) == 4


def test_a_stopped_elimination_reports_the_rank_found_so_far():
    """The exception of a *check* that stops echelon_mod_p carries ``partial_rank``: the pivots
    found on the columns eliminated so far, a lower bound of the rank mod p."""
    rng = np.random.default_rng(3)
    A = rng.integers(0, 100, (300, 40)) @ rng.integers(0, 100, (40, 500))    # rank 40
    calls = []

    def check():
        calls.append(1)
        if len(calls) > 2:
            raise TimeoutError("spent")
    with pytest.raises(TimeoutError) as info:
        echelon_mod_p(A, PRIME, block=8, check=check)
    assert info.value.partial_rank == 16 <= rank_mod_p(A, PRIME) == 40       # 2 panels of 8
    calls.clear()

    def check_late():                  # 3 panels of echelon, then the back-substitution
        calls.append(1)
        if len(calls) > 4:
            raise TimeoutError("spent")
    with pytest.raises(TimeoutError) as info:
        kernel_mod_p(A[:, :24], PRIME, block=8, check=check_late)
    assert info.value.partial_rank == 24                 # stopped in the back-substitution


@pytest.mark.parametrize("top", [20, 21])
def test_the_kernel_back_substitution_stays_exact_for_primes_near_the_bound(top):
    """Sums of 4096 products of residues in [0, p) pass 2^53 when p is near 2^21: a kernel of a
    unit upper-triangular matrix (−2 above the diagonal) had 192 wrong entries of 2 300 at
    p = 2 097 143 (session-27 audit); symmetric representatives keep every sum below 2^52.  The
    float64 route now takes primes below 2^20 only (session-29 audit: below 2^21 a product of
    reduced entries reaches 2^40, and the lazily reduced trailing matrix 2^53): the largest
    prime below 2^20 is exact here, one below 2^21 refused."""
    p = (1 << top) - 1
    while not is_prime(p):
        p -= 1
    if top == 21:
        with pytest.raises(ValueError, match="below 2\\^20"):
            kernel_free_mod_p(np.eye(2, dtype=np.int64), p)
        return
    n = 2300
    U = np.eye(n, dtype=np.int64) + np.triu(np.full((n, n), -2, dtype=np.int64), 1)
    A = np.hstack([U, U @ np.full((n, 1), 2, dtype=np.int64)])     # kernel: (-2, ..., -2, 1)
    K, free = kernel_free_mod_p(A, p)
    assert free.tolist() == [n] and K.shape == (n + 1, 1)
    assert K[:n, 0].tolist() == [p - 2] * n and K[n, 0] == 1


def test_the_exact_rank_falls_back_when_the_prime_hides_a_minor(monkeypatch):
    """[[1, 0, 0], [0, 7, 0]] has rank 1 mod 7 (a non-zero Schur complement, 7): the rank over Q,
    2, comes from the fallback; mod a larger prime the minor is found directly."""
    import algebra.linalg.gfp as gfp
    monkeypatch.setattr(gfp, "EXACT_RANK_DIRECT", 0)
    M = QMatrix.from_rows([[1, 0, 0], [0, 7, 0]])
    assert exact_rank(M, 7) == exact_rank(M, PRIME) == 2
    assert exact_rank(QMatrix.from_rows([[1, 2, 3], [2, 4, 6], [0, 0, 7]]), 7) == 2


@FAST
@given(int_matrices(max_rows=9, max_cols=12), st.sampled_from([1, 3, 64]), st.sampled_from([5, 101, PRIME]))
def test_the_elimination_in_place_is_the_elimination_of_a_copy(A, block, p):
    """echelon_mod_p(..., overwrite=True) on a float64 array (missing_directions' own T: no
    second 183 MB copy) gives the same rank, echelon rows and blocks as on a copy."""
    r, E, blocks = echelon_mod_p(np.array(A, dtype=np.int64), p, block)
    F = np.array(A, dtype=np.float64)
    r2, E2, blocks2 = echelon_mod_p(F, p, block, overwrite=True)
    assert r2 == r and E2.tolist() == E.tolist()
    assert [(a, c.tolist(), i.tolist()) for a, c, i in blocks2] == [(a, c.tolist(), i.tolist()) for a, c, i in blocks]


def test_a_large_first_copy_is_checked_between_its_row_chunks():
    A = np.zeros((4100, 3), dtype=np.int64)
    A[0, 0] = A[1, 1] = 1
    calls = []
    r, _, _ = echelon_mod_p(A, PRIME, 64, check=lambda: calls.append(1))
    assert r == 2 and len(calls) == 2 + 1          # rows 2048 and 4096 of the copy, one panel


@FAST
@given(st.integers(1, 6), st.integers(1, 4), st.integers(1, 3), st.integers(0, 10 ** 6))
def test_outer_products_rank_is_a_lower_bound_equal_to_the_exact_rank_on_random_matrices(n, d, m, seed):
    """gfp.outer_products_rank never exceeds the exact rank over Q of the n matrices v_i w_iᵀ
    (formed here, ranked by QMatrix.rank), and equals it on these small random rational ones,
    planted dependencies included (a repeated or negated product)."""
    from algebra.linalg.gfp import outer_products_rank
    rng = random.Random(seed)
    W = [[Fraction(rng.randint(-4, 4), rng.randint(1, 3)) for _ in range(d)] for _ in range(n)]
    V = [[Fraction(rng.randint(-4, 4), rng.randint(1, 3)) for _ in range(n)] for _ in range(m)]
    if n >= 2 and rng.random() < 0.5:
        W[1] = list(W[0])
        for r in V:
            r[1] = -r[0] * rng.choice([1, 2])
    exact = QMatrix.from_rows([[V[o][i] * W[i][k] for o in range(m) for k in range(d)] for i in range(n)]).rank()
    got = outer_products_rank(QMatrix.from_rows(W), QMatrix.from_rows(V))
    assert got <= exact and got == exact


def test_outer_products_rank_large_route_equals_flint(monkeypatch):
    """Above _FLINT_RANK_MAX rows the rank is the blocked elimination's (interruptible: one flint
    call on 3072 x 3080 took 7-12 s and overran identify's --timeout by 4 s, session 39); both
    routes agree, on independent and on dependent kink matrices."""
    from algebra.linalg import gfp
    rng = random.Random(39)
    cases = [(600, 30, 30), (600, 20, 20), (530, 4, 200)]      # d * m >= n; 400 < n; 800 >= n
    for n, d, m in cases:
        W = QMatrix.from_rows([[rng.randint(-3, 3) for _ in range(d)] for _ in range(n)])
        V = QMatrix.from_rows([[rng.randint(-3, 3) for _ in range(n)] for _ in range(m)])
        big = gfp.outer_products_rank(W, V)
        monkeypatch.setattr(gfp, "_FLINT_RANK_MAX", 10 ** 9)
        assert gfp.outer_products_rank(W, V) == big == min(n, d * m)
        monkeypatch.setattr(gfp, "_FLINT_RANK_MAX", 512)
