"""Run the registry's checks under one budget (``--timeout``): one :class:`Row` per entry."""

from __future__ import annotations

import time
from dataclasses import dataclass

from algebra.exceptions import AlgebraError

from ..budget import Budget, ctrl_c_count
from ..exceptions import SemialgebraicError
from .registry import REGISTRY

__all__ = ["Row", "run", "VERDICTS"]

VERDICTS = ("reproduced", "FAILED", "context", "not run (budget)", "not run (interrupted)")
"""reproduced: the check ran and gave the documented value; FAILED: it gave another value (or
raised); context: the item is not a computation (a claim as a whole, literature, vocabulary) and
the detail says what stands for it; not run (budget): ``--timeout`` was reached first; not run
(interrupted): a Ctrl-C came first, or during the item (its result is not judged)."""


@dataclass
class Row:
    reference: str
    id: str
    tag: str
    what: str
    verdict: str
    detail: str
    seconds: float

    def to_json(self) -> dict:
        return {"reference": self.reference, "id": self.id, "tag": self.tag, "what": self.what,
                "verdict": self.verdict, "detail": self.detail,
                "milliseconds": int(round(self.seconds * 1000))}


def run(only: str | None = None, timeout: float | None = None, ids=None) -> tuple[list[Row], bool]:
    """Run every entry (of one reference with *only* = ``"three-layer"`` / ``"absorption"``, or
    the identifiers *ids*); returns the rows and whether every selected entry ran."""
    budget = Budget(timeout=timeout)
    rows, complete = [], True
    for e in REGISTRY:
        if only == "three-layer" and e.reference != "three-layer-fibers":
            continue
        if only == "absorption" and e.reference != "skip-absorption":
            continue
        if ids is not None and e.id not in ids:
            continue
        if budget.exhausted():
            complete = False
            rows.append(Row(e.reference, e.id, e.tag, e.what,
                            "not run (interrupted)" if budget.interrupted else "not run (budget)",
                            budget.reason or "timeout", 0.0))
            continue
        t0, seen = time.perf_counter(), ctrl_c_count()
        try:
            ok, detail = e.check()
            verdict = "context" if ok is None else "reproduced" if ok else "FAILED"
        except (AlgebraError, SemialgebraicError, AssertionError, ValueError) as exc:
            verdict, detail = "FAILED", f"{type(exc).__name__}: {exc}"
        except KeyboardInterrupt as exc:       # a stop the item's computation did not swallow
            budget.interrupt()
            verdict, detail = "not run (interrupted)", str(exc) or budget.reason or "interrupted (Ctrl-C)"
        except Exception:                      # after a Ctrl-C, an error is its echo (a check on
            if ctrl_c_count() == seen:         # a value the stop left open); else a bug: up
                raise
            verdict, detail = "not run (interrupted)", "interrupted (Ctrl-C) during this item"
        if ctrl_c_count() != seen and not verdict.startswith("not run"):
            # a Ctrl-C the item's computation caught: its result may rest on part of the work
            # (a random experiment of 4 of its 20 trials, laws or a recovery stopped): never
            # "reproduced" or "FAILED" on it (s45 swallowed-stop audit F1-F4)
            budget.interrupt()
            verdict, detail = "not run (interrupted)", "interrupted (Ctrl-C) during this item"
        if verdict.startswith("not run"):
            complete = False
        rows.append(Row(e.reference, e.id, e.tag, e.what, verdict, detail, time.perf_counter() - t0))
    return rows, complete
