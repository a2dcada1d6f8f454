"""The integer exact work of the region walk (:mod:`semialgebraic.regions.integer`).

Oracles: plain ``Fraction`` arithmetic written here (signs at points, feet of perpendiculars,
closure identities ``ℓ_u = Σ λ_f ℓ_f + λ_0``), the rational reference ``foot_witnesses`` of
:mod:`semialgebraic.regions.facets`, and for the walk itself the exact count of cells of a line
arrangement (one hidden layer in R^2: ``1 + L + Σ_p (m_p - 1)`` over the intersection points p
of the L distinct lines, m_p lines through p) on planted degenerate rows: duplicate rows, zero
rows, parallel and antiparallel hyperplanes, several lines through one point.  Entries up to
2^70 force the Python-integer route next to the int64 one.
"""

import itertools
import math
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.regions import number_of_regions, regions
from semialgebraic.regions.facets import foot_witnesses
from semialgebraic.regions.integer import ClassInts, int_matmul

import numpy as np

ints = st.one_of(st.integers(-6, 6), st.integers(-2 ** 70, 2 ** 70))
rats = st.builds(lambda p, q: Q(p, q), st.integers(-40, 40), st.integers(1, 9))


def _value(key, y):
    return sum((Fraction(k) * Fraction(int(v.p), int(v.q)) for k, v in zip(key, y)), Fraction(0)) \
        + key[-1]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.lists(ints, min_size=3, max_size=3), min_size=1, max_size=5),
       st.lists(rats, min_size=2, max_size=2))
def test_signs_at_a_point_are_the_fraction_signs(keys, y):
    keys = [k for k in keys if any(k[:2])]
    if not keys:
        return
    C = ClassInts(keys)
    vals = [_value(k, y) for k in keys]
    assert C.inside(y) == all(v > 0 for v in vals)
    assert C.nonneg(y) == all(v >= 0 for v in vals)
    assert C.inside(y, skip=0) == all(v > 0 for v in vals[1:])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(-2 ** 40, 2 ** 40), min_size=4, max_size=4), min_size=1,
                max_size=4),
       st.lists(st.lists(st.integers(-2 ** 40, 2 ** 40), min_size=4, max_size=4), min_size=1,
                max_size=3))
def test_int_matmul_is_exact_on_both_routes(A, B):
    A, B = np.array(A, dtype=object), np.array(B, dtype=object).T
    got = int_matmul(A, B)
    want = [[sum(int(a) * int(b) for a, b in zip(row, col)) for col in B.T] for row in A]
    assert [[int(v) for v in row] for row in got] == want


def _box_keys(extra):
    """Keys of a region of R^2: inside the box -1 < x, y < 1 (integer rows), plus *extra*."""
    return [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)] + extra


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5), st.integers(1, 12)),
                max_size=5))
def test_feet_agree_with_the_rational_reference(extra):
    keys = [k for k in _box_keys([list(e) for e in extra]) if any(k[:2])]
    keys = list(dict.fromkeys(tuple(k) for k in keys))
    point = (Q(0), Q(0))                 # inside: every constant is positive
    C = ClassInts(keys)
    A = QMatrix.from_rows([[Q(v) for v in k[:2]] for k in keys])
    assert C.feet(point) == foot_witnesses(point, A, [Q(k[2]) for k in keys])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5), st.integers(1, 12)),
                min_size=1, max_size=5), st.sampled_from([(0, 2), (1, 3), (0, 3), (1, 2)]))
def test_closure_proofs_are_exact_identities(extra, basis):
    keys = [tuple(k) for k in _box_keys([list(e) for e in extra]) if any(k[:2])]
    C = ClassInts(keys)
    todo = [u for u in range(len(keys)) if u not in basis]
    scales = [Q(1)] * len(keys)            # the rows are their own keys here
    got = C.certify(list(basis), todo, want_values=True, scales=scales)
    for u in todo:
        # the oracle: λ solving Σ λ_f a_f = a_u with Fractions (2 x 2, Cramer)
        (a, b), (c, d) = keys[basis[0]][:2], keys[basis[1]][:2]
        det = a * d - b * c
        x, y = keys[u][:2]
        lam = (Fraction(x * d - y * c, det), Fraction(a * y - b * x, det))
        lam0 = keys[u][2] - lam[0] * keys[basis[0]][2] - lam[1] * keys[basis[1]][2]
        proved = lam[0] >= 0 and lam[1] >= 0 and lam0 > 0
        assert (u in got) == proved
        if proved:
            assert [Fraction(int(v.p), int(v.q)) for v in got[u][0]] == list(lam)
            assert Fraction(int(got[u][1].p), int(got[u][1].q)) == lam0


def _arrangement_cells(lines):
    """Cells of an arrangement of lines a x + b y + c = 0 in R^2 (Fractions; duplicates and
    zero rows dropped): 1 + L + Σ over intersection points of (lines through it - 1)."""
    distinct = set()
    for a, b, c in lines:
        if a == 0 and b == 0:
            continue
        s = next(v for v in (a, b) if v != 0)
        distinct.add((Fraction(a, s), Fraction(b, s), Fraction(c, s)))
    distinct = list(distinct)
    points: dict = {}
    for (a1, b1, c1), (a2, b2, c2) in itertools.combinations(distinct, 2):
        det = a1 * b2 - a2 * b1
        if det == 0:
            continue
        p = ((b1 * c2 - b2 * c1) / det, (a2 * c1 - a1 * c2) / det)
        points.setdefault(p, set()).update({(a1, b1, c1), (a2, b2, c2)})
    return 1 + len(distinct) + sum(len(s) - 1 for s in points.values())


def _net(lines):
    return Network.from_rows([[[a, b] for a, b, _ in lines], [[1] * len(lines)]],
                             [[c for *_, c in lines], [0]])


PLANTED = {
    "duplicate rows": [(1, 2, 1), (1, 2, 1), (2, 4, 2), (3, -1, 0)],
    "zero rows": [(0, 0, 1), (1, 1, 0), (0, 0, -2), (1, -1, 1)],
    "parallel": [(1, 1, 0), (1, 1, 1), (-1, -1, 2), (2, 2, -3), (1, -1, 0)],
    "antiparallel copy": [(1, 2, 3), (-1, -2, -3), (2, -1, 1)],
    "three through a point": [(1, 0, 0), (0, 1, 0), (1, 1, 0), (1, -1, 0), (1, 2, -5)],
}


def test_planted_degenerate_rows_give_the_arrangement_count():
    for name, lines in PLANTED.items():
        net = _net(lines)
        rs = list(regions(net, progress=False))
        assert len(rs) == _arrangement_cells(lines), name
        assert number_of_regions(net) == len(rs), name
        for r in rs:           # every point is strictly inside its region, every pattern its own
            assert r.contains(r.point) and tuple(net.activation_pattern(r.point)) == r.pattern


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3)),
                min_size=1, max_size=6))
def test_random_line_arrangements_give_the_arrangement_count(lines):
    net = _net(lines)
    assert number_of_regions(net) == _arrangement_cells(lines)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(-9, 9), min_size=3, max_size=3), min_size=3, max_size=3),
       st.permutations([0, 1, 2]), st.lists(st.sampled_from([1, -1]), min_size=3, max_size=3))
def test_basis_inverse_shared_up_to_order_and_orientation(rows, perm, signs):
    """The inverse cached for one ordering/orientation of a basis serves every other one:
    each returned ``(P, den)`` satisfies ``Rᵀ P = den I`` exactly (Fractions), for the basis
    and its signed permutation, through one shared cache."""
    from semialgebraic.regions.integer import _inverse
    cache = {}
    K1 = np.array([r + [1] for r in rows], dtype=object)
    K2 = np.array([[signs[i] * v for v in rows[perm[i]]] + [1] for i in range(3)], dtype=object)
    for K in (K1, K2):
        got = _inverse(K, [0, 1, 2], cache)
        M = [[Fraction(int(K[j, i])) for j in range(3)] for i in range(3)]      # Rᵀ
        det = (M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1])
               - M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0])
               + M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]))
        if det == 0:
            assert got is None
            continue
        P, den, P64, _ = got
        assert den > 0
        for i in range(3):
            for j in range(3):
                assert sum(M[i][k] * int(P[k, j]) for k in range(3)) == (den if i == j else 0)
                if P64 is not None:
                    assert int(P64[i, j]) == int(P[i, j])
    assert len(cache) <= 1


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4).flatmap(
    lambda n: st.lists(st.lists(st.one_of(st.integers(-3, 3), st.integers(-2 ** 40, 2 ** 40)),
                                min_size=n, max_size=n), min_size=n, max_size=n)))
def test_small_inverse_is_the_rational_inverse(rows):
    """The closed-form integer inverse of R^d bases (d <= 4, cofactors) is, entry for entry,
    the lowest-terms integer form of flint's rational inverse (the route it replaces, kept for
    d > 4), and None exactly when the basis is singular; ``a · adj(a) = det(a) I``."""
    from semialgebraic.regions.integer import _adjugate, _small_inverse
    n = len(rows)
    adj, det = _adjugate(rows)
    for i in range(n):
        for j in range(n):
            assert sum(rows[i][k] * adj[k][j] for k in range(n)) == (det if i == j else 0)
    got = _small_inverse(rows)
    M = QMatrix.from_integer_rows(rows, ncols=n).T
    if M.rank() < n:
        assert got is None
        return
    ents = M.inverse().entries()
    P, den = got
    assert den > 0
    assert [Fraction(int(v), den) for v in P.flat] == [Fraction(int(e.p), int(e.q)) for e in ents]
    assert den == math.lcm(*(int(e.q) for e in ents))


def test_big_integer_products_go_to_flint_in_blocks_and_agree():
    """Past _FLINT_FROM products an object-array product is FLINT's, row block by row block (the
    first region of a 784-1024-10 net spent 48 s in one numpy object Gram product)."""
    import numpy as np
    from semialgebraic.regions import integer
    rng = np.random.default_rng(3)
    A = np.array([[int(x) * 10 ** 25 - 3 for x in row] for row in rng.integers(-9, 9, size=(130, 40))], dtype=object)
    assert (integer._flint_matmul(A, A.T) == A @ A.T).all()
    assert (integer.int_matmul(A, A.T) == A @ A.T).all()


# -- session 53: rows past int64 go to FLINT (signs, Gram matrix); a region's forms use its active
#    neurons only and the first layer once --------------------------------------------------------

mags = st.sampled_from([1, 2 ** 20, 2 ** 53, 2 ** 61, 2 ** 62, 2 ** 63, 2 ** 100])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(-9, 9), st.integers(-9, 9), st.integers(-9, 9), mags),
                min_size=1, max_size=8),
       st.lists(st.tuples(rats, rats), min_size=1, max_size=70))
def test_signs_and_gram_past_int64_are_the_fraction_ones(rows, points):
    """Keys of every size around the int64 limits (2^53 limbs, 2^62, 2^63, 2^100), at up to 70
    points at once (FLINT's blocks of 64 columns): each sign is the Fraction sign, the Gram matrix
    the Python one."""
    keys = [(a * m + 1, b * m - 1, c * m) for a, b, c, m in rows]
    C = ClassInts(keys)
    S = C.signs(points)
    for t, key in enumerate(keys):
        for j, y in enumerate(points):
            v = _value(key, y)
            assert S[t, j] == (v > 0) - (v < 0)
    G = C.gram()
    for s, ks in enumerate(keys):
        for t, kt in enumerate(keys):
            assert int(G[s, t]) == ks[0] * kt[0] + ks[1] * kt[1]


def _scaled(net, factors):
    """*net* with each first-layer neuron's row and bias multiplied by a positive factor and its
    outgoing weights divided by it (the rescaling symmetry S2: the same function and the same
    sign of every neuron at every input, so the same regions)."""
    W = [[v * f for v in row] for row, f in zip(net.weights[0].to_rows(), factors)]
    b = [v * f for v, f in zip(net.biases[0], factors)]
    W2 = [[v / f for v, f in zip(row, factors)] for row in net.weights[1].to_rows()]
    return Network([W, W2] + [m.to_rows() for m in net.weights[2:]], [b] + list(net.biases[1:]))


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_tiny_float32_like_weights_walk_the_same_regions(seed):
    """A trained float32 net has weights down to ~1e-45 (the digits classifier's rows are 150-bit
    integers): its region walk takes FLINT's route and must give the same regions as the same
    net with small integer rows (first-layer neurons rescaled by 2^-140 times odd factors)."""
    import random
    rnd = random.Random(seed)
    d, n1, n2 = 2, 5, 4
    W1 = [[rnd.randint(-5, 5) for _ in range(d)] for _ in range(n1)]
    for row in W1:
        if not any(row):
            row[0] = 1
    net = Network([W1, [[rnd.randint(-3, 3) for _ in range(n1)] for _ in range(n2)],
                   [[rnd.randint(-3, 3) for _ in range(n2)]]],
                  [[rnd.randint(-4, 4) for _ in range(n1)], [rnd.randint(-2, 2) for _ in range(n2)],
                   [0]])
    tiny = _scaled(net, [Q(2 * rnd.randint(1, 99) + 1, 2 ** 140) for _ in range(n1)])
    box = ((-3, 3),) * d
    plain = sorted(r.pattern for r in regions(net, domain=box, progress=False))
    small = sorted(r.pattern for r in regions(tiny, domain=box, progress=False))
    assert plain == small and len(plain) == number_of_regions(net, domain=box)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3),
                          st.integers(0, 140), st.integers(0, 140), st.integers(0, 140)),
                min_size=1, max_size=6))
def test_line_arrangements_with_float32_like_exponents_give_the_count(lines):
    """Lines whose coefficients carry exponents down to 2^-140 (a float32 row of mixed
    magnitudes: primitive integer keys of ~150 bits, the FLINT route of the signs and the Gram
    matrix): the walk's count is the arrangement's (Fractions)."""
    scaled = [(Fraction(a, 2 ** ea), Fraction(b, 2 ** eb), Fraction(c, 2 ** ec))
              for a, b, c, ea, eb, ec in lines]
    assert number_of_regions(_net(scaled)) == _arrangement_cells(scaled)
