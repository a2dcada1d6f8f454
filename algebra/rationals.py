"""Exact rational numbers: the one door through which numbers enter netfibers (STYLE C2).

Scalars are ``flint.fmpq`` throughout the library.  :func:`to_q` parses every exact input
(int, Fraction, Decimal, fmpq, fmpz, ``"p/q"``, decimal strings such as ``"-2.5e-3"``) and
refuses floats; :func:`from_float` is used only by readers of binary weight files and returns the
exact rational a stored binary float denotes.

>>> to_q("0.1") + to_q(Fraction(1, 5))
3/10
>>> to_q("-2.5e-3")
-1/400
>>> from_float(0.1)
3602879701896397/36028797018963968
"""

from __future__ import annotations

import math
import operator
import re
import threading
from contextlib import contextmanager
from decimal import Decimal
from fractions import Fraction

from flint import fmpq, fmpz

from .exceptions import InexactInputError, ParseError

__all__ = [
    "Q",
    "flint_threads",
    "MAX_DIGITS",
    "CERTIFICATE_DIGITS",
    "digit_limit",
    "to_q_derived",
    "to_q",
    "to_q_vector",
    "from_float",
    "to_fraction",
    "q_str",
    "q_json",
    "q_latex",
    "is_q",
    "bit_size",
    "lead",
    "sign",
]

Q = fmpq
"""The scalar type of netfibers (``flint.fmpq``)."""

MAX_DIGITS = 10_000
"""Largest number of digits (and largest decimal exponent) accepted by :func:`to_q` (outside
:func:`digit_limit`)."""

CERTIFICATE_DIGITS = 1_000_000
"""The limit inside a certificate check (:func:`semialgebraic.verify.verify`): exact values
derived from weights of at most :data:`MAX_DIGITS` digits can be longer (a difference a − b at a
point of an 8-60x5-1 pair with 12-digit weights times 10^±25 has 20 000-digit terms, and its
own check called it malformed: s54).  FLINT reads a million digits in milliseconds."""

_LIMITS = threading.local()


def _max_digits() -> int:
    return getattr(_LIMITS, "digits", MAX_DIGITS)


@contextmanager
def digit_limit(digits: int):
    """Inside the block (this thread), :func:`to_q` accepts numbers of up to *digits* digits.

    >>> with digit_limit(CERTIFICATE_DIGITS):
    ...     len(str(to_q("1" * 20_000)))
    20000
    """
    old = _max_digits()
    _LIMITS.digits = int(digits)
    try:
        yield
    finally:
        _LIMITS.digits = old

_DECIMAL = re.compile(r"^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$", re.ASCII)
_RATIO = re.compile(r"^([+-]?\d+)\s*/\s*([+-]?\d+)$", re.ASCII)


def to_q(x: object) -> fmpq:
    """Return *x* as an exact rational ``fmpq``.

    Accepts int, Fraction, Decimal (finite), fmpq, fmpz and strings: integers (``"-3"``),
    ratios (``"p/q"``) and decimals with optional exponent (``"0.125"``, ``"1e-3"``), read as
    the exact decimal they spell.  Floats, bools, NaN/Inf, empty strings and numbers with more
    than :data:`MAX_DIGITS` digits are refused.

    Parameters
    ----------
    x : int, Fraction, Decimal, fmpq, fmpz or str
        The number; a string is parsed exactly (``"0.1"`` is 1/10).

    Returns
    -------
    fmpq
        The exact rational.

    Raises
    ------
    InexactInputError
        If *x* is a float (its meaning would be ambiguous: pass a string or a Fraction).
    ParseError
        If *x* is not a number, is a bool, NaN/Inf, empty, or too long.

    Examples
    --------
    >>> to_q(3), to_q("7/-14"), to_q(" 1.5 ")
    (3, -1/2, 3/2)
    >>> to_q(0.5)
    Traceback (most recent call last):
        ...
    algebra.exceptions.InexactInputError: 0.5 is a float, not an exact rational; pass "0.5" or Fraction(1, 2) for the decimal, or from_float(x) for the binary value it holds
    """
    if isinstance(x, fmpq):
        return x
    if type(x) is Decimal and x.is_finite():   # (a JSON file's decimals: first)
        return _parse_str(str(x))
    if isinstance(x, bool):
        raise ParseError(x, "a boolean is not a number")
    if isinstance(x, int):
        _check_digits(x, x)
        return fmpq(x)
    if isinstance(x, fmpz):
        _check_digits(int(x), x)
        return fmpq(x)
    if isinstance(x, Fraction):
        _check_digits(x.numerator, x)
        _check_digits(x.denominator, x)
        return fmpq(x.numerator, x.denominator)
    if isinstance(x, float) and type(x) is float:
        if math.isfinite(x):
            hint = (f'pass "{float(x)!r}" or {Fraction(x).limit_denominator(10**6)!r} for the '
                    f'decimal, or from_float(x) for the binary value it holds')
        else:
            hint = "NaN and infinities have no exact value"
        raise InexactInputError(x, hint)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ParseError(str(x), "NaN and infinities have no exact value")
        return _parse_str(str(x))
    if isinstance(x, str):
        return _parse_str(x)
    if isinstance(x, float) or type(x).__name__.startswith(("float", "bfloat", "longdouble")):
        if not math.isfinite(float(x)):
            raise InexactInputError(x, "NaN and infinities have no exact value")
        # one hint for every numpy float (float64 said 'pass "0.1"', another number than the
        # value the array holds; session 39 API audit)
        raise InexactInputError(x, "a numpy float holds a binary value: from_float(x) gives it "
                                   "exactly (algebra.io.network_from_tensors reads whole arrays "
                                   f"of them, as weight files are read); pass \"{float(x)!r}\" "
                                   "for the decimal it prints as")
    dtype = getattr(x, "dtype", None)      # a torch tensor, a 0-d numpy array (s48 API audit:
    if dtype is not None and ("float" in str(dtype) or getattr(dtype, "is_floating_point", False)):
        raise InexactInputError(x, "a tensor or array of floats holds binary values: "   # a bare
                                   "from_float(float(x)) gives one exactly; Network.from_torch "
                                   "reads a module, algebra.io.network_from_tensors whole "
                                   "arrays")                          # TypeError from torch)
    if dtype is not None and ("bool" in str(dtype) or getattr(x, "ndim", 0) > 0):
        raise ParseError(x, "a boolean is not a number" if "bool" in str(dtype) else
                         "an array is not a number (one entry of it is)")
    if hasattr(x, "__index__"):  # numpy integer scalars, integer tensors of one element
        try:
            i = operator.index(x)
        except TypeError:
            i = None
        if i is not None:
            return to_q(i)
    raise ParseError(x, f"cannot read a {type(x).__name__} as a rational number")


_LIMIT = 10 ** MAX_DIGITS


def _check_digits(n: int, shown: object) -> None:
    """Refuse integers with more than :data:`MAX_DIGITS` decimal digits (or the limit of an
    enclosing :func:`digit_limit`)."""
    if n.bit_length() > 33_000:            # 10**10000 has 33220 bits
        limit = _max_digits()
        if abs(n) >= (_LIMIT if limit == MAX_DIGITS else _power_of_ten(limit)):
            raise ParseError(f"<integer of {n.bit_length()} bits>", f"more than {limit} digits")


def to_q_derived(x: object) -> fmpq:
    """:func:`to_q` of a number netfibers derived itself (a certificate's or a report's value,
    read back to be printed or compared): the limit :data:`CERTIFICATE_DIGITS`, not the inputs'
    :data:`MAX_DIGITS` (``equiv`` of networks with 4 900-digit weights ended "more than 10000
    characters", exit 2, printing its own counterexample: s54)."""
    if isinstance(x, fmpq):
        return x
    with digit_limit(CERTIFICATE_DIGITS):
        return to_q(x)


_POWERS: dict = {}


def _power_of_ten(k: int) -> int:
    if k not in _POWERS:
        _POWERS.clear()
        _POWERS[k] = 10 ** k
    return _POWERS[k]


_CANONICAL = re.compile(r"(-?[0-9]{1,300})(?:/([0-9]{1,300}))?")  # what q_str writes
_SHORT_DECIMAL = re.compile(r"(-?)([0-9]{1,300})\.([0-9]{1,300})(?:[eE]([+-]?[0-9]{1,3}))?")
# (what float repr and Decimal print: "-0.0123", "1.5e-05", "2.5E+3"; the fast path of a JSON
# file of decimals: 2.9 µs a number went to 1 µs, a 104 MB block took 10 s to parse, s49 huge F6)


def _parse_str(s: str) -> fmpq:
    m = None if "." in s else _CANONICAL.fullmatch(s)
    if m:  # fast path for the canonical "p/q" and "-3" (the bulk of native JSON files)
        p, q = m.groups()
        if q is None:
            return fmpq(int(p))
        if q.strip("0"):
            return fmpq(int(p), int(q))
    m = _SHORT_DECIMAL.fullmatch(s)
    if m:  # at most 600 digits and |exponent| < 1000: within every limit below
        sgn, whole, frac, exp = m.groups()
        e = len(frac) - (int(exp) if exp else 0)
        n = int(sgn + whole + frac)
        return fmpq(n, 10 ** e) if e >= 0 else fmpq(n * 10 ** (-e))
    t = s.strip()
    limit = _max_digits()
    if not t:
        raise ParseError(s, "empty string is not a number")
    if len(t) > limit + 32:
        raise ParseError(s, f"more than {limit} characters")
    low = t.lower().lstrip("+-")
    if low in {"nan", "inf", "infinity", "snan"}:
        raise ParseError(s, "NaN and infinities have no exact value")
    m = _RATIO.match(t)
    if m:
        if max(len(m.group(1).lstrip("+-")), len(m.group(2).lstrip("+-"))) > limit:
            raise ParseError(s, f"more than {limit} digits")
        p, q = fmpz(m.group(1).lstrip("+")), fmpz(m.group(2).lstrip("+"))  # no str->int limit
        if q == 0:
            raise ParseError(s, "zero denominator")
        return fmpq(p, q)
    m = _DECIMAL.match(t)
    if not m or not (m.group(2) or m.group(3)):
        raise ParseError(s, "not a number (expected an integer, 'p/q' or a decimal like 0.125)")
    sgn, whole, frac, exp = m.group(1), m.group(2) or "", m.group(3) or "", m.group(4)
    if len(whole) + len(frac) > limit:
        raise ParseError(s, f"more than {limit} digits")
    if exp and len(exp.lstrip("+-")) > 6:
        raise ParseError(s, f"exponent larger than {limit}")
    e = int(exp) if exp else 0
    if abs(e) > limit:
        raise ParseError(s, f"exponent larger than {limit}")
    digits = fmpz(whole + frac) if (whole + frac) else fmpz(0)
    e -= len(frac)
    value = fmpq(digits) * fmpq(10) ** e if e >= 0 else fmpq(digits, 10 ** (-e))
    return -value if sgn == "-" else value


def to_q_vector(xs) -> tuple[fmpq, ...]:
    """Return a tuple of exact rationals, coercing each entry with :func:`to_q`."""
    return tuple(to_q(x) for x in xs)


def from_float(x: object) -> fmpq:
    """Return the exact rational denoted by a binary float value.

    Works for Python floats and numpy float16/float32/float64 scalars (and bfloat16 values
    already widened to float32).  Every such value is a dyadic rational; NaN and infinities are
    refused.

    Parameters
    ----------
    x : float or numpy floating scalar
        A binary floating-point value (as read from a weight file).

    Returns
    -------
    fmpq
        The dyadic rational the value denotes, exactly.

    Raises
    ------
    ParseError
        If *x* is NaN or infinite, or not a float.

    Examples
    --------
    >>> from_float(0.75), from_float(-1e-3) == to_q(Fraction(-1e-3))
    (3/4, True)
    """
    if isinstance(x, (str, bytes, bool)):
        # (a string read as the float nearest it: "0.1" is 1/10 everywhere else; API audit)
        raise ParseError(x, "not a floating-point value" + ("" if isinstance(x, bool) else
                            " (to_q reads a string as the decimal it spells)"))
    try:
        f = float(x)
    except (TypeError, ValueError):
        raise ParseError(x, "not a floating-point value") from None
    if not math.isfinite(f):
        raise ParseError(x, "NaN or infinity has no exact value")
    n, d = f.as_integer_ratio()
    return fmpq(n, d)


def to_fraction(q: fmpq) -> Fraction:
    """Return *q* as a ``fractions.Fraction`` (never compare fmpq with Fraction directly)."""
    q = to_q(q)
    return Fraction(int(q.p), int(q.q))


def q_str(q: fmpq) -> str:
    """Canonical text of a rational: ``"3"``, ``"-1/2"``.

    Parameters
    ----------
    q : anything :func:`to_q` accepts
        The rational.

    Returns
    -------
    str
        ``"p"`` for an integer, else ``"p/q"`` in lowest terms with a positive denominator.

    Examples
    --------
    >>> q_str("-2/4"), q_str(7)
    ('-1/2', '7')
    """
    q = to_q(q)
    return str(q.p) if q.q == 1 else f"{q.p}/{q.q}"


def q_json(q: fmpq) -> int | str:
    """JSON form of a rational: a JSON integer when integral, else the string ``"p/q"``.

    Integers of more than about 4200 digits are strings too (``json`` refuses to write them).

    Parameters
    ----------
    q : anything :func:`to_q` accepts
        The rational.

    Returns
    -------
    int or str
        ``p`` as a JSON integer when the rational is an integer, else ``"p/q"``.

    Examples
    --------
    >>> q_json(3), q_json("1/3")
    (3, '1/3')
    """
    q = to_q(q)
    if q.q == 1 and q.p.bit_length() < 14_000:  # json.dumps refuses ints of more than 4300 digits
        return int(q.p)
    return q_str(q)


def q_latex(q: fmpq) -> str:
    r"""LaTeX of a rational: ``3``, ``-\frac{1}{2}``."""
    q = to_q(q)
    if q.q == 1:
        return str(q.p)
    sgn = "-" if q < 0 else ""
    return rf"{sgn}\frac{{{abs(q.p)}}}{{{q.q}}}"


def is_q(x: object) -> bool:
    """True if *x* is already an ``fmpq``."""
    return isinstance(x, fmpq)


def bit_size(q: fmpq) -> tuple[int, int]:
    """Bits of numerator and denominator of *q*."""
    q = to_q(q)
    return int(q.p).bit_length(), int(q.q).bit_length()


def lead(vec) -> fmpq | None:
    """First non-zero entry of a vector, or None when the vector is zero."""
    for v in vec:
        if v != 0:
            return v
    return None


def sign(q: fmpq) -> int:
    """Sign of *q* as -1, 0 or 1."""
    return (q > 0) - (q < 0)


def flint_threads(n: int | None = None) -> int:
    """FLINT's thread count (python-flint's ``ctx.threads``), set to *n* first when given (a
    distributed worker sets 1 so that workers do not oversubscribe the cores)."""
    import flint
    if n is not None:
        flint.ctx.threads = n
    return flint.ctx.threads
