"""Answers of yes/no questions: :class:`Verdict` with checked hypotheses and a certificate.

A ``Verdict`` has ``answer`` (True, False or None = undecided), ``method`` (which procedure
decided), ``reason`` (one readable line), ``hypotheses`` (each checked condition with whether it
holds and a witness), ``certificate`` (a self-contained JSON-able dict with a ``type``, checked by
:func:`semialgebraic.verify.verify`) and ``details`` (method-specific extras).

>>> v = Verdict(True, "shallow-canonical", "canonical forms are equal",
...             (Hypothesis("one hidden layer", True),))
>>> v.to_json()["answer"], v.exit_code()
(True, 0)

``to_json`` (the ``--json`` output) does not expand large inputs: a network or block at or above
the certificate sidecar threshold is given as a summary (shape, parameter count, and for a
network its checkpoint digest, :func:`algebra.kernel.network_digest`) marked ``"summary":
true``; the full certificate is what ``--certificate FILE`` writes (with its binary sidecar).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from algebra.io.frameworks import roundings

from .certificates import jsonable
from .certificates import _json as _certjson

__all__ = ["Hypothesis", "Verdict", "reader_hypotheses", "with_reader_hypotheses", "witness_text"]


def witness_text(witness) -> str:
    """A hypothesis' witness for a sentence: ``{'rows': [0, 1]}`` -> ``rows [0, 1]`` (numbers
    exact, as in JSON; not Python's dict text).

    >>> witness_text({"rows": [0, 1], "entry": ["1/2", 3]})
    'rows [0, 1], entry [1/2, 3]'
    """
    def one(v):
        v = jsonable(v)
        if isinstance(v, list):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return str(v)
    if isinstance(witness, dict):
        return ", ".join(f"{k} {one(v)}" for k, v in witness.items())
    return one(witness)


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
    """Answer of a decision procedure, with its evidence (its repr leaves out the certificate and
    the details, which can be megabytes: ``v.certificate``, ``v.to_json()``)."""

    answer: bool | None
    method: str
    reason: str
    hypotheses: tuple[Hypothesis, ...] = ()
    certificate: dict | None = field(default=None, repr=False)
    details: dict = field(default_factory=dict, repr=False)

    def __bool__(self) -> bool:  # avoid silent truthiness of an undecided verdict
        raise TypeError("use verdict.answer (True/False/None), not bool(verdict)")

    def exit_code(self) -> int:
        """0 yes, 1 no, 3 undecided (ARCHITECTURE.md exit codes)."""
        return {True: 0, False: 1, None: 3}[self.answer]

    def to_json(self) -> dict:
        out = {"answer": self.answer, "method": self.method, "reason": self.reason,
               "hypotheses": [h.to_json() for h in self.hypotheses],
               "certificate": jsonable(_summarized(self.certificate))}
        for k, v in self.details.items():
            out.setdefault(k, jsonable(_summarized(v)))
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


def with_reader_hypotheses(v: Verdict, *nets, names=("a", "b")) -> Verdict:
    """*v* with the readers' roundings of *nets* (:func:`reader_hypotheses`) among its
    hypotheses, those it lacks appended (the s48 API audit: ``identify`` of a net read with a
    folded BatchNorm did not say it)."""
    import dataclasses
    extra = tuple(h for h in reader_hypotheses(*nets, names=names) if h not in v.hypotheses)
    return dataclasses.replace(v, hypotheses=tuple(v.hypotheses) + extra) if extra else v


def _summarized(obj: Any) -> Any:
    """*obj* with every large Network / Block / BlockStack replaced by a small summary dict."""
    from algebra.network import Network
    if isinstance(obj, Network):
        n = sum(r * c for r, c in obj._shapes)
        if n < _certjson.SIDECAR_THRESHOLD:
            return obj
        from algebra.kernel import network_digest
        return {"format": "netfibers.network", "summary": True, "widths": list(obj.widths),
                "parameters": n + sum(r for r, _ in obj._shapes), "digest": network_digest(obj)}
    if _certjson._block_entries(obj) >= _certjson.SIDECAR_THRESHOLD:
        out = {"format": "netfibers.block", "summary": True, "d": obj.d,
               "matrix_entries": _certjson._block_entries(obj)}
        if hasattr(obj, "k"):
            out.update(k=obj.k, activation=obj.activation.name)
        else:
            out["depth"] = obj.depth
        return out
    if isinstance(obj, dict):
        return {k: _summarized(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)) and any(isinstance(v, (dict, list, tuple, Network)) or
                                              _certjson._block_entries(v) for v in obj):
        return [_summarized(v) for v in obj]
    return obj
