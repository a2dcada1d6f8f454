"""QMatrix.to_json with entries of many unrelated denominators (a canonical form's): entry by
entry, the same values as the integer export, without numerators at the lcm's size."""

from fractions import Fraction

from flint import fmpz

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


def test_numbers_past_python_digit_limit_are_written_exactly():
    """Input audit (session 35): a weight "1e5000" in JSON was read exactly, and then `convert`,
    `apply`, `equiv --certificate` failed with exit 4 (Python refuses str() of an integer of
    more than 4 300 digits); the export now writes such numbers through FLINT."""
    big = 10 ** 5000
    M = QMatrix.from_rows([[big, 1], [-big, "1/3"]])
    got = M.to_json()
    assert got[0][0] == "1" + "0" * 5000 and got[1][0] == "-1" + "0" * 5000 and got[1][1] == "1/3"
    N = QMatrix.from_rows([[Fraction(big + 1, 3), 0]])
    assert N.to_json() == [[f"{fmpz(big + 1)}/3", 0]]
    assert QMatrix.from_rows([[x for x in r] for r in got]) == M


def test_a_block_with_a_huge_entry_is_written_exactly():
    """absorb on a block with an entry "1e-9999" ended in exit 4 writing the certificate's block
    (algebra/blocks.py had its own export)."""
    from algebra.blocks import _mjson
    M = QMatrix.from_rows([[Fraction(1, 10 ** 5000), 1], [2, "1/3"]])
    got = _mjson(M)
    assert got[0][0] == "1/1" + "0" * 5000 and got[1] == [2, "1/3"]
