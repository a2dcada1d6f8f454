"""Exceptions of the ``algebra`` package: one rooted tree (STYLE C5).

Every leaf also inherits the builtin whose meaning it shares, stores its data in attributes,
builds its message in ``__str__`` and passes the *same* arguments to ``super().__init__`` so
that it pickles.
"""

__all__ = [
    "AlgebraError",
    "InexactInputError",
    "ParseError",
    "InputError",
    "DimensionMismatchError",
    "SingularMatrixError",
    "IncompatibleRingError",
    "MissingDependencyError",
    "InvalidStepError",
]


class AlgebraError(Exception):
    """Root of every error raised by ``algebra``."""


class InexactInputError(AlgebraError, TypeError):
    """A float (or another inexact value) was passed where an exact rational is required."""

    def __init__(self, value: object, hint: str | None = None):
        super().__init__(value, hint)
        self.value, self.hint = value, hint

    def __str__(self) -> str:
        msg = f"{self.value!r} is a {type(self.value).__name__}, not an exact rational"
        return f"{msg}; {self.hint}" if self.hint else msg


class ParseError(AlgebraError, ValueError):
    """A value could not be read as an exact rational number."""

    def __init__(self, value: object, problem: str):
        super().__init__(value, problem)
        self.value, self.problem = value, problem

    def __str__(self) -> str:
        shown = repr(self.value)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return f"{shown}: {self.problem}"


class InputError(AlgebraError, ValueError):
    """A file or object given by the user is malformed.

    Attributes: ``source`` (file name or None), ``where`` (tensor/layer/key or None),
    ``problem`` (str).
    """

    def __init__(self, problem: str, source: str | None = None, where: str | None = None):
        super().__init__(problem, source, where)
        self.problem, self.source, self.where = problem, source, where

    def __str__(self) -> str:
        parts = []
        if self.source:
            parts.append(str(self.source))
        if self.where:
            parts.append(str(self.where))
        prefix = ": ".join(parts)
        return f"{prefix}: {self.problem}" if prefix else self.problem


class DimensionMismatchError(AlgebraError, ValueError):
    """Shapes of operands do not fit the operation."""

    def __init__(self, operation: str, *shapes: object):
        super().__init__(operation, *shapes)
        self.operation, self.shapes = operation, shapes

    def __str__(self) -> str:
        return f"{self.operation}: incompatible shapes {', '.join(map(str, self.shapes))}"


class SingularMatrixError(AlgebraError, ZeroDivisionError):
    """A square system has no unique solution (the matrix is singular)."""

    def __init__(self, shape: tuple[int, int]):
        super().__init__(shape)
        self.shape = shape

    def __str__(self) -> str:
        return f"matrix of shape {self.shape} is singular"


class IncompatibleRingError(AlgebraError, TypeError):
    """Polynomials from different parameter rings were mixed."""

    def __init__(self, left: object, right: object):
        super().__init__(left, right)
        self.left, self.right = left, right

    def __str__(self) -> str:
        return f"polynomials live in different rings: {self.left} and {self.right}"


class MissingDependencyError(AlgebraError, ImportError):
    """An optional package is needed for this file format or feature."""

    def __init__(self, package: str, extra: str, purpose: str):
        super().__init__(package, extra, purpose)
        self.package, self.extra, self.purpose = package, extra, purpose

    def __str__(self) -> str:
        return (f"{self.purpose} needs the optional package {self.package!r}; "
                f"install it with: pip install 'netfibers[{self.extra}]' "
                f"(from a source checkout: pip install '.[{self.extra}]')")


class InvalidStepError(AlgebraError, ValueError):
    """A symmetry step does not apply to this network (its hypothesis fails)."""

    def __init__(self, step: str, reason: str):
        super().__init__(step, reason)
        self.step, self.reason = step, reason

    def __str__(self) -> str:
        return f"step {self.step} is not valid here: {self.reason}"
