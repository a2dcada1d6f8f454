"""Issue 16 part 4, step 1: blocks held as exact integer views (``algebra.blocks.IntegerArray``,
``N / den`` int64 arrays, as read from float checkpoints): the views agree with the rational
matrices (Fraction oracle), the sidecar is written from the whole arrays and read back as arrays,
the decision and the independent checker (its nondegeneracy test and the residues of Y) give the
same verdicts on views as on rational matrices, and a view never turns a wrong claim valid."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from hypothesis import example, given, settings, strategies as st

from algebra.blocks import Block, IntegerArray
from algebra.exceptions import InputError
from algebra.io.arrays import matrix_from_array
from algebra.io.blocks import block_from_dict
from algebra.linalg import QMatrix
from algebra.linalg.gfp import residues_array
from semialgebraic.absorption import absorbable, nondegeneracy
from semialgebraic.certificates import _json as certjson
from semialgebraic.certificates import write_certificate
from semialgebraic.verify import resolve_sidecar, verify
from semialgebraic.verify import absorption_obstructions as obstructions

np = pytest.importorskip("numpy")


def _fractions(m: QMatrix):
    return [[Fraction(int(x.p), int(x.q)) for x in row] for row in m.to_rows()]


def _float_block(d, k, seed, *, planted=False):
    rng = np.random.default_rng(seed)
    up = rng.standard_normal((k, d)).astype(np.float32)
    down = rng.standard_normal((d, k)).astype(np.float32)
    if planted:                                  # W_down[:, :d] W_up[:d, :] = -I: S = {0..d-1}
        up[:d] = np.eye(d, dtype=np.float32)
        down[:, :d] = -np.eye(d, dtype=np.float32)
    return up, down


def test_integer_array_is_its_rational_matrix_and_compares_over_the_lcd():
    N = np.array([[6, -4, 0], [2, 10, -8]], dtype=np.int64)
    a = IntegerArray(N, 12)
    assert _fractions(a.to_qmatrix()) == [[Fraction(int(v), 12) for v in row] for row in N.tolist()]
    c = a.canonical()
    assert (c.den, c.N.tolist()) == (6, [[3, -2, 0], [1, 5, -4]])
    assert a == IntegerArray(N * 3, 36) and a != IntegerArray(N + 1, 12)
    assert not a.N.flags.writeable                  # a view cannot be edited after the fact
    N[0, 0] = 7
    assert a.N[0, 0] == 6
    for bad in (np.zeros((0, 2), dtype=np.int64), np.ones((2, 2)), np.ones(3, dtype=np.int64)):
        with pytest.raises(InputError):
            IntegerArray(bad, 1)
    with pytest.raises(InputError):
        IntegerArray(N, 0)


def test_block_from_arrays_equals_the_rational_block():
    up, down = _float_block(3, 7, 1)
    b = Block.from_arrays("relu", up, down)
    r = Block("relu", matrix_from_array(up), matrix_from_array(down))
    assert (b.d, b.k) == (3, 7)
    assert b == r and b.to_dict() == r.to_dict()
    for name, arr in (("w_up", up), ("w_down", down)):
        view = b.integer_matrix(name)
        assert [[Fraction(int(v), view.den) for v in row] for row in view.N.tolist()] == \
            [[Fraction(float(v)) for v in row] for row in arr.tolist()]
        assert r.integer_matrix(name) == view       # made from the QMatrix: the same matrix
    big = Block("relu", [[2 ** 70, 1]], [[1], [1]])
    assert big.integer_matrix("w_up") is None and big.integer_matrix("w_down") is not None


def test_residues_of_a_view_are_the_residues_of_the_matrix():
    up, _ = _float_block(5, 9, 2)
    b = Block.from_arrays("relu", up, up.T.copy())
    for p in (7, 1048573, 2147483647):
        expect = [[x.numerator * pow(x.denominator, -1, p) % p for x in row]
                  for row in _fractions(b.w_up)]
        assert residues_array(b.integer_matrix("w_up"), p).tolist() == expect
        assert residues_array(b.w_up, p).tolist() == expect
    with pytest.raises(ZeroDivisionError):
        residues_array(IntegerArray(np.array([[1, 2]], dtype=np.int64), 14), 7)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=2, max_size=8),
       st.integers(0, 7), st.sampled_from([-2, -1, 1, 3]), st.booleans())
@example([[1, 0, 0], [1, 0, 0], [0, 0, 0]], 0, 1, False)   # collinear row 1 before zero row 2: (N2)
def test_checker_nondegeneracy_on_views_agrees_with_its_loop(rows, src, factor, copy):
    """Zero rows, collinear rows (negative multiples too) and zero columns, on views and on the
    checker's Python loop (forced by hiding the views): the same verdict and message."""
    k = len(rows)
    if copy:                                        # plant a collinear pair
        rows[-1] = [factor * x for x in rows[src % (k - 1)]]
    down = [[(i + j) % 3 - 1 for i in range(k)] for j in range(3)]
    b = Block("relu", rows, down)
    with_views = obstructions._nondegenerate(b)
    loop_block = Block("relu", rows, down)
    loop_block._ints.update(w_up=None, w_down=None)  # integer_matrix() answers None: the loop
    assert obstructions._nondegenerate(loop_block) == with_views
    assert with_views[0] == all(h.holds for h in nondegeneracy(b))


@pytest.mark.parametrize("planted, answer, kind", [(False, False, "left_null"), (True, True, "flip")])
def test_views_decide_write_and_check_like_rational_blocks(tmp_path, monkeypatch, planted, answer, kind):
    monkeypatch.setattr(certjson, "SIDECAR_THRESHOLD", 100)
    up, down = _float_block(6, 24, 3, planted=planted)
    b = Block.from_arrays("relu", up, down)
    v = absorbable(b)
    vr = absorbable(Block("relu", matrix_from_array(up), matrix_from_array(down)))
    assert (v.answer, v.certificate["witness"]["kind"]) == (answer, kind)
    assert (vr.answer, vr.details["all_S"]) == (answer, v.details["all_S"])
    path = tmp_path / "c.json"
    write_certificate(v.certificate, path)
    body = json.loads(path.read_text())
    ref = body["block"]["w_up"]
    assert set(ref) == {"$sidecar", "den"}
    with np.load(tmp_path / "c.payload.npz") as npz:
        assert (npz[ref["$sidecar"]] == b.integer_matrix("w_up").N).all()
    cert = resolve_sidecar(body, path)
    back = cert["block"]
    assert isinstance(back.integer_matrix("w_up"), IntegerArray) and back == b
    assert verify(cert)[0] is True
    if planted:
        g = cert["witness"]["absorbing_block"]
        assert g.w_up == QMatrix.diagonal([-1] * 6 + [1] * 18) @ b.w_up


def test_flip_check_on_views_rejects_a_wrong_absorbing_block():
    up, down = _float_block(4, 12, 5, planted=True)
    b = Block.from_arrays("relu", up, down)
    v = absorbable(b)
    g = v.certificate["witness"]["absorbing_block"]
    g = block_from_dict(g) if isinstance(g, dict) else g
    N = g.integer_matrix("w_up").N.copy()
    N[5, 1] += 1                                    # one entry off, outside S
    bad = dict(v.certificate, witness=dict(v.certificate["witness"], absorbing_block=Block(
        "relu", IntegerArray(N, g.integer_matrix("w_up").den), g.integer_matrix("w_down"), skip="none")))
    ok, why = verify(bad)
    assert ok is False and "not the flip" in why
    same = Block("relu", IntegerArray(g.integer_matrix("w_up").N * 2, g.integer_matrix("w_up").den * 2),
                 g.w_down, skip="none")             # the same matrix over another denominator
    good = dict(v.certificate, witness=dict(v.certificate["witness"], absorbing_block=same))
    assert verify(good)[0] is True


def test_float64_views_over_the_finest_unit_are_exact():
    """Float64 weights (a float32 value plus a tiny one, integers, subnormal-free spreads up to
    2^60) become int64 views over one power of two, checked entry by entry with Fractions; a
    spread beyond int64 keeps the rational matrix."""
    from algebra.blocks import _tight_dyadic
    rng = np.random.default_rng(4)
    hits = 0
    for trial in range(60):
        a = rng.standard_normal((4, 6)).astype(np.float32) * 2.0 ** rng.integers(-6, 6, (4, 6))
        a[rng.random((4, 6)) < 0.25] = 0
        a[1] = a[1] + a[2] + 3                           # sums of float32 values, in float64
        hint = _tight_dyadic(a)
        if hint is None:
            continue
        hits += 1
        N, D = hint
        assert [Fraction(int(n), D) for n in N.ravel().tolist()] == [Fraction(x) for x in a.ravel().tolist()]
    assert hits >= 50
    assert _tight_dyadic(np.array([[2.0 ** 40, 2.0 ** -40 + 1]])) is None
    wide = np.array([[2.0 ** 40, 2.0 ** -40 + 1], [1.0, 0.5]])
    b = Block.from_arrays("relu", wide.T.copy(), wide)
    assert b.integer_matrix("w_down") is None and b.w_down == matrix_from_array(wide)


def test_views_report_the_first_failing_row_like_the_loop():
    """A collinear row before a zero row: both paths name (N2) at row 1, not (N1) at row 2."""
    b = Block("relu", [[1, 0, 0], [1, 0, 0], [0, 0, 0]], [[1, 1, 1]] * 3)
    assert obstructions._nondegenerate(b) == (False, "(N2) fails: row 1 of W_up is collinear with an earlier row")
