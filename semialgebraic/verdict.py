"""Answers of yes/no questions: :class:`Verdict` with checked hypotheses and a certificate.

A ``Verdict`` has ``answer`` (True, False or None = undecided), ``method`` (which procedure
decided), ``reason`` (one readable line), ``hypotheses`` (each checked condition with whether it
holds and a witness), ``certificate`` (a self-contained JSON-able dict with a ``type``, checked by
:func:`semialgebraic.verify.verify`) and ``details`` (method-specific extras).

>>> v = Verdict(True, "shallow-canonical", "canonical forms are equal",
...             (Hypothesis("one hidden layer", True),))
>>> v.to_json()["answer"], v.exit_code()
(True, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from algebra.io.frameworks import roundings

from .certificates import jsonable

__all__ = ["Hypothesis", "Verdict", "reader_hypotheses"]


@dataclass(frozen=True)
class Hypothesis:
    """A checked condition: ``holds`` is True/False (None when it could not be checked)."""

    name: str
    holds: bool | None
    witness: Any = None

    def to_json(self) -> dict:
        return {"name": self.name, "holds": self.holds, "witness": jsonable(self.witness)}


@dataclass(frozen=True)
class Verdict:
    """Answer of a decision procedure, with its evidence."""

    answer: bool | None
    method: str
    reason: str
    hypotheses: tuple[Hypothesis, ...] = ()
    certificate: dict | None = None
    details: dict = field(default_factory=dict)

    def __bool__(self) -> bool:  # avoid silent truthiness of an undecided verdict
        raise TypeError("use verdict.answer (True/False/None), not bool(verdict)")

    def exit_code(self) -> int:
        """0 yes, 1 no, 3 undecided (ARCHITECTURE.md exit codes)."""
        return {True: 0, False: 1, None: 3}[self.answer]

    def to_json(self) -> dict:
        out = {"answer": self.answer, "method": self.method, "reason": self.reason,
               "hypotheses": [h.to_json() for h in self.hypotheses],
               "certificate": jsonable(self.certificate)}
        for k, v in self.details.items():
            out.setdefault(k, jsonable(v))
        return out

    def _repr_html_(self) -> str:  # notebooks: semialgebraic/plot/notebook.py
        from .plot import notebook
        return notebook.verdict_html(self)

    def _repr_latex_(self) -> str:
        from .plot import notebook
        return notebook.verdict_latex(self)

def reader_hypotheses(*nets, names=("a", "b")) -> tuple[Hypothesis, ...]:
    """The roundings the readers made to build *nets* (a BatchNorm's scale γ/√(σ² + ε) taken as
    the float32 the framework computes), as hypotheses of a verdict about them: the verdict is
    exact for the networks as read, which are the frameworks' functions only with that rounding.

    >>> from algebra.network import Network
    >>> reader_hypotheses(Network.from_rows([[[1]], [[1]]], [[0], [0]]))
    ()
    """
    out = []
    for name, net in zip(names if len(nets) > 1 else ("",), nets):
        out += [Hypothesis(f"{name + ': ' if name else ''}read with a rounding: {note}", True,
                           {"kind": "reader rounding"}) for note in roundings(net)]
    return tuple(out)
