"""How the commands print numbers: one module, used by every command.

Every decision is exact; printing is for a person.  A rational that is *small* (its exact text
``"p/q"`` has at most :data:`SMALL` characters) is printed exactly; any other is printed as a
decimal approximation marked ``≈``, computed from the exact rational with integer arithmetic
(correctly rounded, half to even; no float conversion, so huge or tiny values neither overflow
nor underflow), followed once per answer by :data:`EXACT_NOTE`.  ``--exact`` (accepted by every
command, before or after its name) prints every rational exactly; ``--json`` always carries the
exact rationals.

>>> from flint import fmpq
>>> approx(fmpq(12230, 100000007))
'1.2230e-4'
>>> number(fmpq(1, 3)), number(fmpq(1, 3), exact=True), number(fmpq(-7, 2))
('1/3', '1/3', '-7/2')
>>> number(fmpq(10**30 + 1, 3))
'≈ 3.3333e29'
"""

from __future__ import annotations

import re

from algebra.rationals import Q, q_str, to_q_derived as to_q   # (its numbers are netfibers' own)

from ..verdict import reader_hypotheses

__all__ = ["SMALL", "SIGNIFICANT", "EXACT_NOTE", "approx", "is_small", "number", "numbers",
           "point", "dot", "needs_note", "note", "interval", "with_roundings", "in_text", "in_sentence", "text_needs_note"]

SMALL = 12          # characters of "p/q" printed exactly
SIGNIFICANT = 5     # significant digits of an approximation
EXACT_NOTE = "(≈: decimal approximation; exact rationals in --json or with --exact)"


def _digits_exponent(p: int, q: int) -> int:
    """The integer e with 10^e <= p/q < 10^(e+1) (p, q > 0), by exact integer comparisons."""
    e = ((p.bit_length() - q.bit_length()) * 30103) // 100000   # estimate; corrected below
    def ge(k: int) -> bool:            # p/q >= 10^k ?
        return p >= q * 10 ** k if k >= 0 else p * 10 ** (-k) >= q
    while not ge(e):
        e -= 1
    while ge(e + 1):
        e += 1
    return e


def approx(value, significant: int = SIGNIFICANT) -> str:
    """Decimal approximation of a rational, correctly rounded to *significant* digits (half to
    even), without the ``≈``: ``0.33333``, ``1.2230e-4``, ``-3.3333e29``.  Fixed notation for
    exponents -2..significant-1, scientific otherwise (exponent without padding)."""
    q = to_q(value)
    p, d = int(q.p), int(q.q)
    if p == 0:
        return "0"
    sign = "-" if p < 0 else ""
    p = abs(p)
    e = _digits_exponent(p, d)
    shift = significant - 1 - e                     # n ≈ (p/d)·10^shift, 10^(sig-1) <= n < 10^sig
    num, den = (p * 10 ** shift, d) if shift >= 0 else (p, d * 10 ** (-shift))
    n, r = divmod(num, den)
    if 2 * r > den or (2 * r == den and n % 2 == 1):
        n += 1
    if n == 10 ** significant:                      # rounding carried into a new digit
        n //= 10
        e += 1
    digits = str(n)
    if -2 <= e < significant:
        if e >= 0:
            whole, frac = digits[:e + 1], digits[e + 1:]
        else:
            whole, frac = "0", "0" * (-e - 1) + digits
        return sign + whole + ("." + frac if frac else "")
    return f"{sign}{digits[0]}" + (f".{digits[1:]}" if len(digits) > 1 else "") + f"e{e}"


def is_small(value) -> bool:
    """Is the exact text of *value* at most :data:`SMALL` characters (printed as it is)?"""
    q = to_q(value)
    if q.p.bit_length() + q.q.bit_length() > 4 * SMALL:   # cheap bound before str()
        return False
    return len(q_str(q)) <= SMALL


def number(value, exact: bool = False) -> str:
    """One rational for a person: exact when small or when *exact*, else ``≈ 1.2230e-4``;
    None (a count the budget or the theory left open) is "not determined" (`symmetries` of a
    bottleneck with more switching rows than it enumerates crashed on it: s40 fiber audit F2).

    >>> number(None), number(3)
    ('not determined', '3')
    """
    if value is None:
        return "not determined"
    q = to_q(value)
    if exact or is_small(q):
        return q_str(q)
    return "≈ " + approx(q)


def number_above(value, bound, exact: bool = False) -> str:
    """:func:`number` of *value* > *bound*, with the significant digits that show it above
    (``≈ 1.0000002`` for 1 + 2e-7 against 1, where ``≈ 1.0000`` hid the excess: an outsider's
    acceptance test, session 31); up to 40 digits, then the exact rational.

    >>> number_above(Q(5000001, 5000000), 1)
    '≈ 1.0000002'
    >>> number_above(Q(3, 2), 1)
    '3/2'
    """
    q, b = to_q(value), to_q(bound)
    if exact or is_small(q):
        return q_str(q)
    for k in range(SIGNIFICANT, 41):
        text = approx(q, k)
        if to_q(text) > b:            # (to_q reads a decimal exactly)
            return "≈ " + text
    return q_str(q)


def apart(u, w, exact: bool = False, short: bool = False) -> tuple[str, str]:
    """:func:`number` of two different values with the significant digits that tell them apart
    (up to 40; then the exact rationals, or with *short*, where the difference is printed beside
    them, the usual digits marked as equal that far): "a(x) = 3, b(x) = ≈ 3.0000" hid a
    difference of 1e-6 (session 43's docs audit); two 50-digit rationals for outputs 1e-46
    apart were unreadable (s48 realuse audit).

    >>> apart(3, Q(3000001, 1000000))
    ('3', '≈ 3.000001')
    >>> apart(Q(1, 3), Q(2, 3))
    ('1/3', '2/3')
    >>> apart(Q(1, 3), Q(1, 3) + Q(1, 10 ** 50), short=True)
    ('1/3', '≈ 0.33333 (the same to 40 digits)')
    """
    a, b = to_q(u), to_q(w)
    if exact or a == b:
        return number(a, exact), number(b, exact)
    for k in range(SIGNIFICANT, 41):
        da, db = approx(a, k), approx(b, k)
        if to_q(da) != to_q(db):
            return (q_str(a) if is_small(a) else "≈ " + da,
                    q_str(b) if is_small(b) else "≈ " + db)
    if short:
        return number(a), number(b) + " (the same to 40 digits)"
    return q_str(a), q_str(b)


def bounds(lo, hi, exact: bool = False) -> tuple[str, str]:
    """:func:`number` of the two ends of ``[lo, hi]`` (lo < hi) with the significant digits that
    tell them apart (up to 40; then the exact rationals): ``[≈ 0.055094, ≈ 0.055094]`` hid a gap
    of 7e-13 (new-user audit, session 36).

    >>> lo = Q(1, 3) + Q(1, 10 ** 30)
    >>> bounds(lo, lo + Q(1, 10 ** 9))
    ('≈ 0.333333333', '≈ 0.333333334')
    >>> bounds(lo, 2)
    ('≈ 0.33333', '2')
    >>> bounds(3, Q(3000001, 1000000))      # (was "[3, ≈ 3.0000]": the strings differed)
    ('3', '≈ 3.000001')
    """
    return apart(lo, hi, exact)


def numbers(values, exact: bool = False) -> str:
    """``a, b, c`` with :func:`number` (a bare ``≈`` list reads ``≈1.2, 3``)."""
    return ", ".join(_compact(v, exact) for v in values)


def _compact(value, exact: bool) -> str:
    s = number(value, exact)
    return "≈" + s[2:] if s.startswith("≈ ") else s


def point(values, exact: bool = False, long: int = 12, name: str = "x") -> str:
    """A point: ``(x1, …, xd)``; a point of more than *long* coordinates prints only its non-zero
    coordinates (``0 except x[3] = ≈0.125, x[7] = 2``; *name* instead of ``x``)."""
    vals = [to_q(v) for v in values]
    if len(vals) <= long:
        return f"({numbers(vals, exact)})"
    nonzero = [(i, v) for i, v in enumerate(vals) if v != 0]
    if not nonzero:
        return f"0 (all {len(vals)} coordinates)"
    if len(nonzero) > 3 * long:
        head = ", ".join(f"{name}[{i}] = {_compact(v, exact)}" for i, v in nonzero[:long])
        return (f"{len(nonzero)} of {len(vals)} coordinates non-zero: {head}, … "
                f"({len(nonzero) - long} more in --json)")
    shown = ", ".join(f"{name}[{i}] = {_compact(v, exact)}" for i, v in nonzero)
    return f"0 except {shown}" if len(nonzero) < len(vals) else f"({numbers(vals, exact)})"


def dot(values, var: str = "x", exact: bool = False, long: int = 12) -> str:
    """A linear form ``u . x``: ``(1, ≈-0.5) . x`` for a short *values*; for a long one,
    ``u . x with u = <point>`` (its non-zero coordinates named ``u[i]``).

    >>> dot([1, 2]), dot([0] * 20 + [3])
    ('(1, 2) . x', 'u . x with u = 0 except u[20] = 3')
    """
    if len(values) <= long:
        return f"{point(values, exact, long)} . {var}"
    return f"u . {var} with u = {point(values, exact, long, name='u')}"


def needs_note(values, exact: bool = False) -> bool:
    """Does printing *values* approximate anything (so :data:`EXACT_NOTE` must follow)?"""
    return not exact and any(not is_small(v) for v in values)


def note(values, exact: bool = False) -> str:
    """``"\\n" + EXACT_NOTE`` when some of *values* print approximately, else ``""``."""
    return ("\n" + EXACT_NOTE) if needs_note(values, exact) else ""


def interval(lo, hi, exact: bool = False) -> str:
    """An interval with open or infinite ends given as None: ``(≈-0.33333, 3/2)``, ``(-∞, 2)``.

    >>> from flint import fmpq
    >>> interval(fmpq(-10**20, 3), None), interval(None, fmpq(3, 2))
    ('(≈-3.3333e19, ∞)', '(-∞, 3/2)')
    """
    return (f"({'-∞' if lo is None else _compact(lo, exact)}, "
            f"{'∞' if hi is None else _compact(hi, exact)})")


def with_roundings(data: dict, text: str, *nets, hypotheses=()) -> str:
    """*text* followed by one line per rounding a reader made to build *nets* (a folded
    BatchNorm's scale taken as the framework's float32) or listed among the verdict
    *hypotheses*; they are added to ``data["hypotheses"]`` (the ``--json`` output) when missing.
    A network read exactly adds nothing.

    >>> from algebra.network import Network
    >>> d = {}
    >>> with_roundings(d, "answer", Network.from_rows([[[1]], [[1]]], [[0], [0]])), d
    ('answer', {})
    """
    found = [h for h in hypotheses if isinstance(h.witness, dict)
             and h.witness.get("kind") == "reader rounding"]
    found += [h for h in reader_hypotheses(*nets) if h not in found]
    if not found:
        return text
    listed = data.setdefault("hypotheses", [])
    listed += [h.to_json() for h in found if h.to_json() not in listed]
    return text + "".join(f"\nhypothesis: {h.name}" for h in found)


# an integer or p/q in a formula, not an index (W1[0,1]) nor a part of a name or a decimal
_RATIONAL = re.compile(r"(?<![\w\[,/.-])(-?\d+(?:/\d+)?)(?![\w\],/.])")


def in_text(text: str, exact: bool = False) -> str:
    """*text* (a polynomial, a formula) with each long rational in it printed as ``≈`` decimal
    (unchanged when *exact*): ``3333340999993/1234612678979*W1[0,0] = 0`` ->
    ``≈2.6999*W1[0,0] = 0``.

    >>> in_text("-22/13*W1[1,1] + 3333340999993/1234612678979*b1[0] > 0")
    '-22/13*W1[1,1] + ≈2.6999*b1[0] > 0'
    >>> in_text("-5000165/2999883 + W3[0,0] - 10000000000000 = 0")
    '≈-1.6668 + W3[0,0] - ≈1.0000e13 = 0'
    """
    if exact:
        return text
    return _RATIONAL.sub(lambda m: m.group(1) if is_small(m.group(1)) else "≈" + approx(m.group(1)),
                         text)


# a fraction p/q in a sentence ("<= p/q on the box (and >= p/q, attained)"): never an index
_FRACTION = re.compile(r"(?<![\w/.])(-?\d+/\d+)(?![\w/.])")


def in_sentence(text: str, exact: bool = False) -> str:
    """*text* (a checker's sentence) with each long integer or fraction in it printed as ``≈``
    decimal (unchanged when *exact*); unlike :func:`in_text`, a fraction before a comma too.

    >>> in_sentence("<= 99013906837109543631/1606938044258990275541 (and >= 11049545331/2993155353253689, x)")
    '<= ≈0.061617 (and >= ≈3.6916e-6, x)'
    >>> in_sentence("3 valid step(s), x = 1/2, 10 regions")
    '3 valid step(s), x = 1/2, 10 regions'
    """
    if exact:
        return text
    text = _UNEQUAL.sub(_apart_in_sentence, text)
    text = _FRACTION.sub(lambda m: m.group(1) if is_small(m.group(1)) else "≈" + approx(m.group(1)),
                         text)
    return in_text(text)


_UNEQUAL = re.compile(r"(?<![\w/.])(-?\d+(?:/\d+)?) != (-?\d+(?:/\d+)?)(?![\w/.])")


def _apart_in_sentence(m) -> str:
    """``u != w`` of a checker's sentence with the digits that tell them apart (each rounded
    alone, a BROKEN symmetry_path said "(≈-1.5638e50 != ≈-1.5638e50)": s54 audit F5).

    >>> in_sentence("at W1[2,0] (-156380000000000000000000000001/3 != -156380000000000000000000000002/3)")
    'at W1[2,0] (≈-52126666666666666666666666667.0 != ≈-52126666666666666666666666667.3)'
    """
    u, w = m.group(1), m.group(2)
    if is_small(u) and is_small(w):
        return m.group(0)
    su, sw = apart(u, w)
    if su.startswith("≈") and sw.startswith("≈"):
        return f"{su.replace('≈ ', '≈')} != {sw.replace('≈ ', '≈')}"
    if "(the same to 40 digits)" in sw:
        return f"{su.replace('≈ ', '≈')} != {sw.replace('≈ ', '≈')}"
    return f"≈{approx(u)} != ≈{approx(w)} (the same to 40 digits)"     # (apart: exact, long)


def text_needs_note(texts, exact: bool = False) -> bool:
    """Do *texts* (printed with :func:`number`, :func:`in_text`, …) show an approximation?"""
    return not exact and any("≈" in s for s in texts)


def clause_lines(reason: str, bullets=(), indent: str = "  ") -> str:
    """*reason* (clauses joined by ``"; "``) as one indented line per clause, for people: a
    clause is split only at a ``"; "`` outside brackets; the clauses listed in *bullets* (a
    result's evidence lines) go one level deeper, under the clause that introduces them.

    >>> print(clause_lines("not closed: 3 < 4 (a; b); evidence (guesses): x [1; 2]; y; skipped", ["x [1; 2]", "y"]))
      not closed: 3 < 4 (a; b)
      evidence (guesses):
        x [1; 2]
        y
      skipped
    """
    clauses, depth, start = [], 0, 0
    for i, ch in enumerate(reason):
        depth += (ch in "([{") - (ch in ")]}")
        if depth == 0 and reason.startswith("; ", i):
            clauses.append(reason[start:i])
            start = i + 2
    clauses.append(reason[start:])
    bullets = set(bullets)
    out = []
    for c in clauses:
        head = next((c[:-len(b)].rstrip() for b in bullets if c.endswith(b) and c != b), None)
        if head is not None and head.endswith(":"):
            out += [indent + head, indent * 2 + c[len(head):].lstrip()]
        else:
            out.append(indent * (2 if c in bullets else 1) + c)
    return "\n".join(out)


GROUPED = 8
"""Deficit lines of one kind (the same words around a neuron ``(layer, index)``) shown one by
one up to this many; past it the first three and a count (``--json`` lists them all)."""


def grouped_lines(lines) -> list:
    """*lines* with each run of a kind longer than :data:`GROUPED` cut to its first three and a
    count, in the order of each kind's first line (a 16-200-8 net on a small ball printed 105
    "dead neuron (1, i): 25 parameters free" lines and 83 "always active" lines).

    >>> out = grouped_lines([f"dead neuron (1, {i}): 9 parameters free" for i in range(20)] + ["x"])
    >>> out[2:]
    ['dead neuron (1, 2): 9 parameters free', '... and 17 more like it (--json lists them all)', 'x']
    """
    import re
    kinds: dict = {}
    for line in lines:
        m = re.match(r"^(.*?)\(\d+, \d+\)(.*)$", line)
        kinds.setdefault((m.group(1), m.group(2)) if m else line, []).append(line)
    out = []
    for group in kinds.values():
        if len(group) > GROUPED:
            out += group[:3] + [f"... and {len(group) - 3} more like it (--json lists them all)"]
        else:
            out += group
    return out
