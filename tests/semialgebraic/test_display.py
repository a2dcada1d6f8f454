"""Numbers for a person: exact when short, else correctly rounded decimals computed exactly."""

from decimal import Decimal, localcontext
from fractions import Fraction
import random

from flint import fmpq

from semialgebraic.commands import display


def _ref(p: int, q: int) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 120
        return Decimal(format(Decimal(p) / Decimal(q), ".4e"))


def test_small_rationals_stay_exact():
    assert display.number(fmpq(-7, 2)) == "-7/2"
    assert display.number(fmpq(123456, 7)) == "123456/7"          # 8 characters
    assert display.number(fmpq(10 ** 12 + 1, 3)) == "≈ 3.3333e11"
    assert display.number(fmpq(10 ** 12 + 1, 3), exact=True) == "1000000000001/3"


def test_correct_rounding_against_decimal():
    rng = random.Random(5)
    for _ in range(3000):
        p = rng.randint(-10 ** rng.randint(1, 30), 10 ** rng.randint(1, 30))
        q = rng.randint(1, 10 ** rng.randint(1, 30))
        s = display.approx(fmpq(p, q))
        assert (Decimal(s) == _ref(p, q)) if p else s == "0", (p, q, s)


def test_issue_example_ties_and_carry():
    assert display.approx(fmpq(12230, 10 ** 8)) == "1.2230e-4"
    assert display.approx(fmpq(123445, 10 ** 5)) == "1.2344"      # tie: half to even
    assert display.approx(fmpq(123455, 10 ** 5)) == "1.2346"
    assert display.approx(fmpq(999995, 10 ** 5)) == "10.000"      # carry into a new digit
    assert display.approx(fmpq(-1, 3)) == "-0.33333"
    assert display.approx(fmpq(1, 300)) == "3.3333e-3"
    assert display.approx(fmpq(2 * 10 ** 6, 3)) == "6.6667e5"


def test_huge_and_tiny_values_do_not_overflow():
    big = fmpq(10 ** 5000 + 7, 3)                 # float() overflows, str() refuses > 4300 digits
    assert display.number(big) == "≈ 3.3333e4999"
    assert display.number(fmpq(-1, 7 * 10 ** 5000)) == "≈ -1.4286e-5001"
    assert display.needs_note([big]) and not display.needs_note([big], exact=True)


def test_long_points_print_their_non_zero_coordinates():
    x = [fmpq(0)] * 64
    x[3], x[40] = fmpq(1, 8), fmpq(10 ** 20 + 1, 7)
    assert display.point(x) == "0 except x[3] = 1/8, x[40] = ≈1.4286e19"
    assert display.point([fmpq(1, 2), fmpq(-3)]) == "(1/2, -3)"
    assert display.point([fmpq(0)] * 20) == "0 (all 20 coordinates)"
    assert display.note(x) == "\n" + display.EXACT_NOTE and display.note([fmpq(1, 2)]) == ""
    assert Fraction(display.approx(x[40])) != Fraction(int(x[40].p), int(x[40].q))
