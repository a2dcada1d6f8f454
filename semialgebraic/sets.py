"""Semi-algebraic sets: polynomial equalities and sign conditions over Q (issue: sets).

This file is seeded with :class:`Dimension`, the value every dimension computation returns.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Dimension"]


@dataclass(frozen=True)
class Dimension:
    """A dimension that says whether it is exact.

    ``exact`` True: ``value`` is certified (``lower == upper == value``). Otherwise ``lower`` and
    ``upper`` bound it (either may be None when unknown) and ``value`` is None.  ``reason`` says how
    it was obtained (e.g. "n - rank of the Jacobian at a regular point").

    >>> Dimension.of(3, "regular point").to_json()
    {'dimension': 3, 'exact': True, 'lower': 3, 'upper': 3, 'reason': 'regular point'}
    >>> Dimension.between(2, 4, "sandwich did not close")
    Dimension(between 2 and 4: sandwich did not close)
    """

    lower: int | None
    upper: int | None
    reason: str = ""

    @classmethod
    def of(cls, value: int, reason: str = "") -> "Dimension":
        return cls(int(value), int(value), reason)

    @classmethod
    def between(cls, lower: int | None, upper: int | None, reason: str = "") -> "Dimension":
        if lower is not None and upper is not None and lower > upper:
            raise ValueError(f"lower bound {lower} exceeds upper bound {upper}")
        return cls(lower, upper, reason)

    @property
    def exact(self) -> bool:
        return self.lower is not None and self.lower == self.upper

    @property
    def value(self) -> int | None:
        return self.lower if self.exact else None

    def to_json(self) -> dict:
        return {"dimension": self.value, "exact": self.exact, "lower": self.lower,
                "upper": self.upper, "reason": self.reason}

    def __repr__(self) -> str:
        if self.exact:
            return f"Dimension({self.value}{': ' + self.reason if self.reason else ''})"
        return f"Dimension(between {self.lower} and {self.upper}: {self.reason})"
