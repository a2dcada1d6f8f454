"""Exact numbers: ``to_q`` parses exactly and refuses everything inexact or absurd;
``from_float`` gives the exact value of binary floats (float16/32/64, bfloat16)."""

import math
import pickle
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from algebra.exceptions import InexactInputError, ParseError
from algebra.rationals import (MAX_DIGITS, Q, bit_size, from_float, lead, q_json, q_latex, q_str,
                               sign, to_fraction, to_q)

np = pytest.importorskip("numpy")

FAST = settings(max_examples=150, deadline=None)


def frac(q):
    return Fraction(int(q.p), int(q.q))


# -- to_q: exact parsing ----------------------------------------------------------------------------
EXACT_CASES = [
    ("int", 3, Fraction(3)),
    ("negative int", -17, Fraction(-17)),
    ("fraction", Fraction(-6, 4), Fraction(-3, 2)),
    ("fmpq", Q(2, 6), Fraction(1, 3)),
    ("ratio", "7/-14", Fraction(-1, 2)),
    ("ratio spaces", " 3 / 9 ", Fraction(1, 3)),
    ("ratio signs", "+3/+4", Fraction(3, 4)),
    ("integer string", "-3", Fraction(-3)),
    ("decimal", "0.125", Fraction(1, 8)),
    ("decimal 0.1 is one tenth", "0.1", Fraction(1, 10)),
    ("exponent", "-2.5e-3", Fraction(-1, 400)),
    ("big exponent", "1E3", Fraction(1000)),
    ("leading dot", ".5", Fraction(1, 2)),
    ("trailing dot", "5.", Fraction(5)),
    ("plus sign", "+7", Fraction(7)),
    ("minus zero", "-0", Fraction(0)),
    ("whitespace", " 1.5 ", Fraction(3, 2)),
    ("decimal object", Decimal("-0.0625"), Fraction(-1, 16)),
    ("numpy int", np.int64(-5), Fraction(-5)),
    ("numpy uint8", np.uint8(200), Fraction(200)),
    ("10**100", 10 ** 100, Fraction(10 ** 100)),
    ("10**100 string ratio", f"1/{10 ** 100}", Fraction(1, 10 ** 100)),
    ("max digits", "9" * MAX_DIGITS, Fraction(10 ** MAX_DIGITS - 1)),
    ("max exponent", f"1e-{MAX_DIGITS}", Fraction(1, 10 ** MAX_DIGITS)),
]


@pytest.mark.parametrize("name, value, expected", EXACT_CASES, ids=[c[0] for c in EXACT_CASES])
def test_to_q_exact(name, value, expected):
    q = to_q(value)
    assert isinstance(q, Q)
    assert frac(q) == expected


@FAST
@given(st.fractions(max_denominator=10 ** 30))
def test_to_q_ratio_strings_roundtrip(f):
    assert frac(to_q(f"{f.numerator}/{f.denominator}")) == f
    assert frac(to_q(f)) == f
    assert frac(to_q(q_str(to_q(f)))) == f
    j = q_json(to_q(f))
    assert frac(to_q(j)) == f
    assert isinstance(j, int) == (f.denominator == 1)


@FAST
@given(st.decimals(allow_nan=False, allow_infinity=False, places=None))
def test_to_q_decimal_strings_are_the_decimal_they_spell(d):
    assert frac(to_q(str(d))) == Fraction(d)
    assert frac(to_q(d)) == Fraction(d)


REFUSALS = [
    ("float", 0.5, InexactInputError, "float"),
    ("float hint", 0.1, InexactInputError, '"0.1"'),
    ("float nan", float("nan"), InexactInputError, "NaN"),
    ("numpy float", np.float32(0.5), InexactInputError, "float"),
    ("bool", True, ParseError, "boolean"),
    ("nan string", "nan", ParseError, "NaN"),
    ("NaN string", " NaN ", ParseError, "NaN"),
    ("inf string", "inf", ParseError, "infinit"),
    ("-Infinity string", "-Infinity", ParseError, "infinit"),
    ("decimal nan", Decimal("NaN"), ParseError, "NaN"),
    ("decimal inf", Decimal("-Infinity"), ParseError, "infinit"),
    ("empty", "", ParseError, "empty"),
    ("blank", "   ", ParseError, "empty"),
    ("zero denominator", "1/0", ParseError, "zero denominator"),
    ("word", "abc", ParseError, "not a number"),
    ("two dots", "1.2.3", ParseError, "not a number"),
    ("two slashes", "1/2/3", ParseError, "not a number"),
    ("hex", "0x10", ParseError, "not a number"),
    ("double sign", "--1", ParseError, "not a number"),
    ("bare exponent", "e5", ParseError, "not a number"),
    ("bare dot", ".", ParseError, "not a number"),
    ("ratio of decimals", "1.5/2", ParseError, "not a number"),
    ("unicode digit", "\u0663", ParseError, "not a number"),
    ("underscore", "1_000", ParseError, "not a number"),
    ("too many digits", "1" * (MAX_DIGITS + 1), ParseError, "digits"),
    ("too many digits in ratio", "1/" + "3" * (MAX_DIGITS + 1), ParseError, "digits"),
    ("too many characters", "1" * (MAX_DIGITS + 100), ParseError, "characters"),
    ("int too big", 10 ** MAX_DIGITS, ParseError, "digits"),
    ("fraction too big", Fraction(1, 10 ** MAX_DIGITS), ParseError, "digits"),
    ("huge exponent", "1e10001", ParseError, "exponent"),
    ("huge negative exponent", "1e-10001", ParseError, "exponent"),
    ("absurd exponent", "1e99999999999999999999", ParseError, "exponent"),
    ("None", None, ParseError, "NoneType"),
    ("list", [1], ParseError, "list"),
    ("complex", 1j, ParseError, "complex"),
]


@pytest.mark.parametrize("name, value, error, words", REFUSALS, ids=[c[0] for c in REFUSALS])
def test_to_q_exceptions(name, value, error, words):
    with pytest.raises(error) as info:
        to_q(value)
    message = str(info.value)
    assert words in message
    assert "\n" not in message and len(message) < 300
    # errors pickle (STYLE C5)
    again = pickle.loads(pickle.dumps(info.value))
    assert str(again) == message


def test_inexact_input_is_a_type_error_and_parse_error_a_value_error():
    with pytest.raises(TypeError):
        to_q(1.5)
    with pytest.raises(ValueError):
        to_q("x")


# -- from_float: exact values of binary floats ---------------------------------------------------------
@FAST
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_from_float_float64(x):
    assert frac(from_float(x)) == Fraction(x)
    assert frac(from_float(np.float64(x))) == Fraction(x)


@FAST
@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
def test_from_float_float32(x):
    v = np.float32(x)
    assert frac(from_float(v)) == Fraction(float(v))


@FAST
@given(st.floats(width=16, allow_nan=False, allow_infinity=False))
def test_from_float_float16(x):
    v = np.float16(x)
    assert frac(from_float(v)) == Fraction(float(v))


@FAST
@given(st.integers(0, 2 ** 16 - 1))
def test_from_float_bfloat16_as_float32(bits):
    v = np.array([bits << 16], dtype=np.uint32).view(np.float32)[0]  # a bfloat16 widened exactly
    if not math.isfinite(float(v)):
        with pytest.raises(ParseError):
            from_float(v)
    else:
        assert frac(from_float(v)) == Fraction(float(v))
        # the value really is a bfloat16: at most 8 significant bits
        f = Fraction(float(v))
        assert f == 0 or (f.numerator // math.gcd(f.numerator, 2 ** 200)).bit_length() <= 8


def test_from_float_known_values():
    assert frac(from_float(0.1)) == Fraction(3602879701896397, 36028797018963968)
    assert frac(from_float(np.float32(0.1))) == Fraction(13421773, 134217728)
    assert frac(from_float(np.float16(0.1))) == Fraction(1638, 16384)
    assert frac(from_float(np.float32(1e-45))) == Fraction(1, 2 ** 149)  # smallest subnormal
    assert frac(from_float(np.float32(3.4028235e38))) == Fraction((2 ** 24 - 1) * 2 ** 104)
    assert frac(from_float(-0.0)) == 0


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -np.inf, np.float32("nan")])
def test_from_float_refuses_nan_and_inf(value):
    with pytest.raises(ParseError, match="NaN or infinity"):
        from_float(value)


def test_from_float_refuses_non_numbers():
    with pytest.raises(ParseError, match="not a floating-point value"):
        from_float("abc")


# -- formatting and small helpers ------------------------------------------------------------------------
def test_formatting():
    assert q_str(to_q("-1/2")) == "-1/2" and q_str(to_q(4)) == "4"
    assert q_json(to_q(4)) == 4 and q_json(to_q("3/6")) == "1/2"
    assert q_latex(to_q("-1/2")) == r"-\frac{1}{2}" and q_latex(to_q(7)) == "7"
    assert to_fraction(to_q("5/7")) == Fraction(5, 7)
    assert bit_size(to_q("-5/8")) == (3, 4)
    assert lead([Q(0), Q(-2), Q(3)]) == -2 and lead([Q(0)]) is None
    assert (sign(Q(-3)), sign(Q(0)), sign(Q(1, 9))) == (-1, 0, 1)


def test_huge_integers_format_without_python_digit_limits():
    big = to_q("7" * 5000)
    assert q_str(big) == "7" * 5000
    assert q_json(big) == "7" * 5000  # a string: json refuses ints of more than 4300 digits
    assert to_q(q_json(big)) == big
