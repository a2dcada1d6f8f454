"""Exceptions of the ``semialgebraic`` package: one rooted tree (STYLE C5)."""

__all__ = [
    "SemialgebraicError",
    "NonGenericError",
    "InfeasibleError",
    "UnboundedError",
    "CertificateError",
    "UndecidedError",
    "BudgetExceededError",
    "NotApplicableError",
]


class SemialgebraicError(Exception):
    """Root of every error raised by ``semialgebraic``."""


class NonGenericError(SemialgebraicError, ValueError):
    """The input violates a genericity hypothesis the algorithm relies on.

    Attributes: ``condition`` (str), ``witness`` (where it fails), ``hint`` (str | None).
    """

    def __init__(self, condition: str, witness: object = None, hint: str | None = None):
        super().__init__(condition, witness, hint)
        self.condition, self.witness, self.hint = condition, witness, hint

    def __str__(self) -> str:
        msg = f"non-generic: {self.condition}"
        if isinstance(self.witness, dict) and self.witness and \
                all(isinstance(v, (int, str)) for v in self.witness.values()):
            msg += " at " + ", ".join(f"{k} = {v}" for k, v in self.witness.items())
        elif self.witness is not None:
            msg += f" at {self.witness}"
        return f"{msg}; {self.hint}" if self.hint else msg


class NotApplicableError(SemialgebraicError, ValueError):
    """A method was asked for on an input outside its scope (e.g. CANON on a deep network)."""

    def __init__(self, method: str, reason: str):
        super().__init__(method, reason)
        self.method, self.reason = method, reason

    def __str__(self) -> str:
        return f"method {self.method!r} does not apply: {self.reason}"


class InfeasibleError(SemialgebraicError, ValueError):
    """A linear program has no feasible point (networkx's name)."""

    def __init__(self, certificate: object = None):
        super().__init__(certificate)
        self.certificate = certificate

    def __str__(self) -> str:
        return "the system is infeasible"


class UnboundedError(SemialgebraicError, ValueError):
    """A linear program is unbounded (networkx's name)."""

    def __init__(self, direction: object = None):
        super().__init__(direction)
        self.direction = direction

    def __str__(self) -> str:
        return "the objective is unbounded"


class CertificateError(SemialgebraicError, AssertionError):
    """A certificate produced by this library failed its own check: a bug in netfibers."""

    def __init__(self, kind: str, reason: str):
        super().__init__(kind, reason)
        self.kind, self.reason = kind, reason

    def __str__(self) -> str:
        return f"internal check of a {self.kind} certificate failed: {self.reason}"


class UndecidedError(SemialgebraicError, RuntimeError):
    """A yes/no question could not be decided (budget, or no method applies)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        reason = str(self.reason)       # (a Verdict's reason already says so: "undecided:
        return reason if reason.startswith("undecided") else f"undecided: {reason}"   # undecided:")


class BudgetExceededError(SemialgebraicError, TimeoutError):
    """A time or size budget ran out; ``partial`` holds what was established."""

    def __init__(self, what: str, partial: object = None):
        super().__init__(what, partial)
        self.what, self.partial = what, partial

    def __str__(self) -> str:
        return f"budget exhausted: {self.what}"
