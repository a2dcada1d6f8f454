"""QMatrix against independent oracles: Gaussian elimination on ``fractions.Fraction`` (written
here) and sympy's DomainMatrix with ``SYMPY_GROUND_TYPES=python`` (in a subprocess, so that
sympy does not compute with flint)."""

import json
import os
import pickle
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from algebra.exceptions import DimensionMismatchError, SingularMatrixError
from algebra.linalg import AffineReluChain, QMatrix
from algebra.rationals import Q, q_str

FAST = settings(max_examples=60, deadline=None)


def frac(q):
    return Fraction(int(q.p), int(q.q))


def fr_rows(M):
    return [[frac(x) for x in r] for r in M.to_rows()]


# -- independent oracle: Gauss-Jordan over Fraction ----------------------------------------------------
def oracle_rref(rows, ncols):
    A = [list(r) for r in rows]
    pivots, r = [], 0
    for c in range(ncols):
        p = next((i for i in range(r, len(A)) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        piv = A[r][c]
        A[r] = [x / piv for x in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c] != 0:
                f = A[i][c]
                A[i] = [a - f * b for a, b in zip(A[i], A[r])]
        pivots.append(c)
        r += 1
    return A, pivots


def oracle_det(rows):
    n = len(rows)
    A = [list(r) for r in rows]
    det = Fraction(1)
    for c in range(n):
        p = next((i for i in range(c, n) if A[i][c] != 0), None)
        if p is None:
            return Fraction(0)
        if p != c:
            A[c], A[p] = A[p], A[c]
            det = -det
        det *= A[c][c]
        for i in range(c + 1, n):
            f = A[i][c] / A[c][c]
            A[i] = [a - f * b for a, b in zip(A[i], A[c])]
    return det


def oracle_nullspace(rows, ncols):
    R, piv = oracle_rref(rows, ncols)
    basis = []
    for f in [j for j in range(ncols) if j not in piv]:
        v = [Fraction(0)] * ncols
        v[f] = Fraction(1)
        for i, p in enumerate(piv):
            v[p] = -R[i][f]
        basis.append(v)
    R2, piv2 = oracle_rref(basis, ncols)  # canonical form: RREF of the basis
    return R2[:len(piv2)]


# -- strategies: small matrices with mixed entries, including 10**100 -------------------------------------
ENTRY = st.one_of(
    st.integers(-3, 3),
    st.fractions(min_value=-5, max_value=5, max_denominator=7),
    st.sampled_from([10 ** 100, -10 ** 100, Fraction(1, 10 ** 100), Fraction(-3, 10 ** 100 + 1)]),
)


@st.composite
def matrices(draw, max_rows=5, max_cols=5, square=False, rank_deficient=True):
    n = draw(st.integers(0, max_rows))
    m = n if square else draw(st.integers(0, max_cols))
    rows = [[Fraction(draw(ENTRY)) for _ in range(m)] for _ in range(n)]
    if rank_deficient and n >= 2 and draw(st.booleans()):  # plant a dependent row
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        c = Fraction(draw(st.integers(-3, 3)), draw(st.integers(1, 4)))
        rows[i] = [c * x for x in rows[j]]
    return rows, m


def qm(rows, m):
    return QMatrix.from_rows(rows, ncols=m)


# -- basic construction and arithmetic ------------------------------------------------------------------------
@FAST
@given(matrices())
def test_rows_roundtrip_and_repr(data):
    rows, m = data
    A = qm(rows, m)
    assert A.shape == (len(rows), m)
    assert fr_rows(A) == rows
    assert QMatrix.from_flat(len(rows), m, [x for r in rows for x in r]) == A
    assert pickle.loads(pickle.dumps(A)) == A
    assert hash(QMatrix.from_rows(rows, ncols=m)) == hash(A)


@FAST
@given(matrices(), st.data())
def test_products_sums_transpose(data, more):
    rows, m = data
    k = more.draw(st.integers(0, 4))
    B_rows = [[Fraction(more.draw(ENTRY)) for _ in range(k)] for _ in range(m)]
    A, B = qm(rows, m), qm(B_rows, k)
    expected = [[sum((rows[i][t] * B_rows[t][j] for t in range(m)), Fraction(0)) for j in range(k)]
                for i in range(len(rows))]
    assert fr_rows(A @ B) == expected
    assert (A @ B).shape == (len(rows), k)
    assert fr_rows(A.T) == [list(c) for c in zip(*rows)] if rows else A.T.shape == (m, 0)
    assert fr_rows(A + A) == [[2 * x for x in r] for r in rows]
    assert fr_rows(A - A.scale(Fraction(1, 3))) == [[x * Fraction(2, 3) for x in r] for r in rows]
    assert fr_rows(-A) == [[-x for x in r] for r in rows]
    vec = [Fraction(more.draw(ENTRY)) for _ in range(m)]
    assert [frac(x) for x in A.apply(vec)] == [sum((a * b for a, b in zip(r, vec)), Fraction(0)) for r in rows]
    assert fr_rows(A.add_to_rows(vec)) == [[x + v for x, v in zip(r, vec)] for r in rows]
    assert fr_rows(A.relu()) == [[max(x, 0) for x in r] for r in rows]


def test_repr_is_exact():
    assert repr(QMatrix.from_rows([[1, "-1/2"], [0, "3/4"]])) == "QMatrix([[1, -1/2], [0, 3/4]])"


def test_shape_errors():
    A = QMatrix.from_rows([[1, 2]])
    with pytest.raises(DimensionMismatchError):
        A @ A
    with pytest.raises(DimensionMismatchError):
        A + QMatrix.from_rows([[1], [2]])
    with pytest.raises(DimensionMismatchError):
        QMatrix.from_rows([[1, 2], [3]])
    with pytest.raises(DimensionMismatchError):
        A.det()
    with pytest.raises(DimensionMismatchError):
        A.apply([1])
    with pytest.raises(DimensionMismatchError):
        QMatrix.from_flat(2, 2, [1, 2, 3])
    with pytest.raises(DimensionMismatchError):
        QMatrix.from_integers(2, 2, [1, 2, 3])
    with pytest.raises(TypeError):  # floats never get in
        QMatrix.from_rows([[0.5]])


# -- linear algebra against the Fraction oracle ---------------------------------------------------------------
@FAST
@given(matrices())
def test_rank_rref_nullspace_match_fraction_oracle(data):
    rows, m = data
    A = qm(rows, m)
    R_exp, piv_exp = oracle_rref(rows, m)
    R, piv = A.rref()
    assert piv == tuple(piv_exp)
    assert A.rank() == len(piv_exp)
    if rows and m:
        assert fr_rows(R) == R_exp
    N = A.nullspace()
    assert N.shape == (m - len(piv_exp), m)
    assert fr_rows(N) == oracle_nullspace(rows, m)
    if rows and N.nrows:
        assert (A @ N.T).is_zero()
    L = A.left_nullspace()
    assert L.shape[0] == len(rows) - len(piv_exp)
    if L.nrows and m:
        assert (L @ A).is_zero()
    assert fr_rows(A.row_space()) == R_exp[:len(piv_exp)]


@FAST
@given(matrices(square=True))
def test_det_and_solve_match_fraction_oracle(data):
    rows, n = data
    A = qm(rows, n)
    d = oracle_det(rows)
    assert frac(A.det()) == d
    rhs = [[Fraction(i + 1, j + 2) for j in range(2)] for i in range(n)]
    if d == 0:
        with pytest.raises(SingularMatrixError):
            A.solve(qm(rhs, 2))
        with pytest.raises(ZeroDivisionError):
            A.inverse()
    else:
        X = A.solve(qm(rhs, 2))
        assert fr_rows(A @ X) == rhs
        if n:
            assert fr_rows(A @ A.inverse()) == fr_rows(QMatrix.identity(n))


@FAST
@given(matrices(), st.data())
def test_solve_general(data, more):
    rows, m = data
    A = qm(rows, m)
    consistent = more.draw(st.booleans())
    if consistent:
        x = [Fraction(more.draw(ENTRY)) for _ in range(m)]
        b = [sum((a * c for a, c in zip(r, x)), Fraction(0)) for r in rows]
    else:
        b = [Fraction(more.draw(st.integers(-3, 3))) for _ in rows]
    res = A.solve_general(b)
    aug_rank = len(oracle_rref([r + [bi] for r, bi in zip(rows, b)], m + 1)[1])
    if aug_rank != len(oracle_rref(rows, m)[1]):
        assert res is None
    else:
        assert res is not None
        x0, N = res
        assert [frac(v) for v in A.apply(x0)] == b
        assert N == A.nullspace()


ZERO_SIZE = [(0, 0), (0, 3), (3, 0), (1, 0)]


@pytest.mark.parametrize("n, m", ZERO_SIZE)
def test_zero_size(n, m):
    A = QMatrix.zeros(n, m)
    assert A.shape == (n, m) and A.rank() == 0
    assert A.rref() == (A, ())
    assert A.nullspace().shape == (m, m)
    assert A.nullspace() == QMatrix.identity(m)
    assert A.left_nullspace() == QMatrix.identity(n)
    assert (A @ QMatrix.zeros(m, 2)).shape == (n, 2)
    assert A.T.shape == (m, n)
    assert A.numer_denom()[0].nrows() == n
    if n == m:
        assert A.det() == 1
        assert A.solve(QMatrix.zeros(0, 2)).shape == (0, 2)
    assert QMatrix.from_integers(n, m, []) == A
    assert QMatrix.vstack([A, A]).shape == (2 * n, m)


def test_10_to_100_entries():
    big = 10 ** 100
    A = QMatrix.from_rows([[big, 1], [1, Fraction(1, big)]])
    assert A.det() == 0 and A.rank() == 1
    assert A.nullspace() == QMatrix.from_rows([[1, -big]])
    B = QMatrix.from_rows([[big, 1], [1, big]])
    assert frac(B.det()) == big * big - 1
    X = B.solve(QMatrix.column([1, 0]))
    assert [frac(v) for v in X.col_at(0)] == [Fraction(big, big * big - 1), Fraction(-1, big * big - 1)]


def test_from_integers_and_numer_denom():
    A = QMatrix.from_integers(2, 3, [1, -2, 3, 4, 0, 6], den=8)
    assert fr_rows(A) == [[Fraction(1, 8), Fraction(-1, 4), Fraction(3, 8)], [Fraction(1, 2), 0, Fraction(3, 4)]]
    N, D = A.numer_denom()
    assert int(D) == 8 and N.entries() == [1, -2, 3, 4, 0, 6]
    assert QMatrix.from_integers(1, 2, [10 ** 100, 3], den=10 ** 100) == QMatrix.from_rows([[1, Fraction(3, 10 ** 100)]])
    with pytest.raises(SingularMatrixError):
        QMatrix.from_integers(1, 1, [1], den=0)


# -- sympy DomainMatrix (SYMPY_GROUND_TYPES=python) as a second independent oracle ----------------------------
_SYMPY_SCRIPT = r"""
import json, sys
from fractions import Fraction
from sympy import QQ, Rational
from sympy.polys.matrices import DomainMatrix
from sympy.external.gmpy import GROUND_TYPES
assert GROUND_TYPES == "python", GROUND_TYPES
out = []
for n, m, flat in json.load(sys.stdin):
    vals = [Fraction(x) for x in flat]
    rows = [[QQ(v.numerator, v.denominator) for v in vals[i * m:(i + 1) * m]] for i in range(n)]
    M = DomainMatrix(rows, (n, m), QQ)
    R, piv = M.rref()
    res = {"rank": M.rank(), "pivots": list(piv),
           "rref": [str(x) for r in R.to_list() for x in r]}
    if n == m:
        res["det"] = str(M.det())
    out.append(res)
print(json.dumps(out))
"""


@settings(max_examples=1, deadline=None)
@given(st.lists(matrices(max_rows=6, max_cols=6), min_size=25, max_size=25))
def test_rank_rref_det_match_sympy_python_ground_types(cases):
    cases = [c for c in cases if c[0] and c[1]] + [([[Fraction(10 ** 100), 1], [2, Fraction(3, 10 ** 100)]], 2)]
    payload = [(len(rows), m, [str(x) for r in rows for x in r]) for rows, m in cases]
    env = dict(os.environ, SYMPY_GROUND_TYPES="python")
    proc = subprocess.run([sys.executable, "-c", _SYMPY_SCRIPT], input=json.dumps(payload),
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    for (rows, m), res in zip(cases, json.loads(proc.stdout)):
        A = qm(rows, m)
        R, piv = A.rref()
        assert A.rank() == res["rank"]
        assert list(piv) == res["pivots"]
        assert [q_str(x) for x in R.entries()] == [str(Fraction(x)) for x in res["rref"]]
        if "det" in res:
            assert frac(A.det()) == Fraction(res["det"])


# -- AffineReluChain: both integer back ends against Fractions ----------------------------------------------------
@st.composite
def chains(draw):
    widths = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4))
    entry = st.one_of(st.integers(-4, 4), st.fractions(-3, 3, max_denominator=9),
                      st.sampled_from([Fraction(1, 2 ** 40), 2 ** 70, Fraction(-(3 ** 50), 2 ** 30)]))
    layers = []
    for a, b in zip(widths, widths[1:]):
        W = [[Fraction(draw(entry)) for _ in range(a)] for _ in range(b)]
        bias = [Fraction(draw(entry)) for _ in range(b)]
        layers.append((W, bias))
    X = [[Fraction(draw(entry)) for _ in range(widths[0])] for _ in range(draw(st.integers(0, 5)))]
    return layers, X


def fraction_chain(layers, X, relu_last=False):
    out = []
    for x in X:
        h = x
        for l, (W, b) in enumerate(layers):
            h = [sum((w * v for w, v in zip(r, h)), Fraction(0)) + bi for r, bi in zip(W, b)]
            if l < len(layers) - 1 or relu_last:
                h = [max(v, 0) for v in h]
        out.append(h)
    return out


@FAST
@given(chains(), st.booleans())
def test_affine_relu_chain_back_ends_match_fractions(data, relu_last):
    layers, X = data
    chain = AffineReluChain([(QMatrix.from_rows(W), b) for W, b in layers])
    Xq = QMatrix.from_rows(X, ncols=len(layers[0][0][0]))
    expected = fraction_chain(layers, X, relu_last)
    for method in ("flint", "limbs", "auto"):
        Y = chain(Xq, method=method, relu_last=relu_last)
        assert Y.shape == (len(X), len(layers[-1][1]))
        assert fr_rows(Y) == expected, method


def test_affine_relu_chain_limbs_on_wide_layers_and_carries():
    # wide inner dimension (smaller limbs), huge entries (object-array path), sums that cancel
    import random
    rng = random.Random(5)
    n_in, n_hidden = 300, 7
    W1 = [[Fraction(rng.randint(-2 ** 80, 2 ** 80), 2 ** rng.randint(0, 60)) for _ in range(n_in)] for _ in range(n_hidden)]
    b1 = [Fraction(rng.randint(-10 ** 30, 10 ** 30), 3 ** 20) for _ in range(n_hidden)]
    W2 = [[Fraction(rng.randint(-5, 5)) for _ in range(n_hidden)]]
    X = [[Fraction(rng.randint(-2 ** 62, 2 ** 62), 2 ** 20) for _ in range(n_in)] for _ in range(6)]
    X.append([Fraction(0)] * n_in)
    X.append([-x for x in X[0]])
    chain = AffineReluChain([(QMatrix.from_rows(W1), b1), (QMatrix.from_rows(W2), [Fraction(1, 7)])])
    expected = fraction_chain([(W1, b1), (W2, [Fraction(1, 7)])], X)
    Xq = QMatrix.from_rows(X)
    assert fr_rows(chain(Xq, method="limbs")) == expected
    assert fr_rows(chain(Xq, method="flint")) == expected


def test_affine_relu_chain_errors():
    W = QMatrix.from_rows([[1, 2]])
    with pytest.raises(DimensionMismatchError):
        AffineReluChain([(W, [1, 2])])
    with pytest.raises(DimensionMismatchError):
        AffineReluChain([(W, [1]), (W, [1])])
    chain = AffineReluChain([(W, [1])])
    with pytest.raises(DimensionMismatchError):
        chain(QMatrix.from_rows([[1]]))
    with pytest.raises(ValueError, match="unknown method"):
        chain(QMatrix.from_rows([[1, 1]]), method="float")
    assert chain(QMatrix.zeros(0, 2)).shape == (0, 1)
