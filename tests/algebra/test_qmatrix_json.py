"""QMatrix.to_json with entries of many unrelated denominators (a canonical form's): entry by
entry, the same values as the integer export, without numerators at the lcm's size."""

from fractions import Fraction

from algebra.linalg import QMatrix


def _primes(k):
    out, n = [], 2
    while len(out) < k:
        if all(n % p for p in out):
            out.append(n)
        n += 1
    return out


def test_many_denominators_are_exported_entry_by_entry():
    ps = _primes(300)                     # lcm far above 2^1024
    rows = [[f"{(i * 7 + j) % 13 - 6}/{ps[(i * 31 + j) % 300]}" for j in range(20)] for i in range(15)]
    M = QMatrix.from_rows(rows)
    assert not M._small_common_denominator()
    got = M.to_json()
    assert [[Fraction(str(x)) for x in r] for r in got] == [[Fraction(x) for x in r] for r in rows]
    assert all(isinstance(x, int) or len(x) < 12 for r in got for x in r)
    small = QMatrix.from_rows([[1, "1/2"], ["3/4", 2]])
    assert small._small_common_denominator() and small.to_json() == [[1, "1/2"], ["3/4", 2]]
