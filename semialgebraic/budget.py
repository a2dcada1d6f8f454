"""Budgets and progress for long computations.

A :class:`Budget` carries a wall-clock ``timeout`` (seconds) and a ``max_regions`` count.
Long loops call :meth:`Budget.exhausted` (cheap) and stop with a *partial* result when it says
so; they never hang silently.  Inner loops that cannot return a partial result themselves (the
exact simplex, facet LPs, refutation, sampling) call :func:`checkpoint`: while a budget is
*active* (``with budget.active(): ...``, entered by the code that owns the partial result) and
exhausted, it raises :class:`BudgetExhausted`, a :class:`KeyboardInterrupt`, so that the handlers
that already turn Ctrl-C into a partial report turn a spent budget into one too (and no
``except Exception`` on the way swallows it).  :class:`Progress` prints a one-line progress bar to stderr when
stderr is a terminal (and nothing otherwise).
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

__all__ = ["Budget", "Progress", "BudgetExhausted", "checkpoint", "alarm_at"]

_ACTIVE: list["Budget"] = []


class BudgetExhausted(KeyboardInterrupt):
    """An active budget ran out inside a loop: unwinds to the owner of the partial result."""


def checkpoint() -> None:
    """Raise :class:`BudgetExhausted` when an active budget is exhausted (cheap: a clock read).

    >>> b = Budget(timeout=0)
    >>> with b.active():
    ...     try:
    ...         checkpoint()
    ...     except BudgetExhausted as exc:
    ...         print(exc)
    timeout of 0 s reached
    >>> checkpoint()          # no active budget: nothing happens
    """
    for b in _ACTIVE:
        if b.exhausted():
            raise BudgetExhausted(b.reason)


class Budget:
    """Time and size limits of one computation.

    *clock* measures the timeout: the wall clock by default (what a user waits for);
    ``time.process_time`` makes it seconds of this process's CPU, the measure of the *work* a
    budget buys whatever else the machine runs (tests that assert on that work use it).  Budgets
    made from another one (shares, slices) take its clock.

    >>> b = Budget(timeout=None, max_regions=2)
    >>> b.count(); b.count(); b.exhausted()
    True
    >>> c = Budget(timeout=10, clock=time.process_time)
    >>> c.clock is time.process_time and 0 <= c.elapsed() < 10 and not c.exhausted()
    True
    """

    __slots__ = ("timeout", "max_regions", "clock", "start", "regions", "reason", "interrupted")

    def __init__(self, timeout: float | None = None, max_regions: int | None = None, *,
                 clock=time.monotonic):
        self.timeout, self.max_regions = timeout, max_regions
        self.clock = clock
        self.start = clock()
        self.regions = 0
        self.reason: str | None = None
        self.interrupted = False

    def count(self, n: int = 1) -> None:
        self.regions += n

    def elapsed(self) -> float:
        return self.clock() - self.start

    def exhausted(self) -> bool:
        """True (and ``reason`` set) once a limit is reached."""
        if self.reason is not None:
            return True
        if self.max_regions is not None and self.regions >= self.max_regions:
            self.reason = f"max_regions={self.max_regions} reached"
        elif self.timeout is not None and self.elapsed() >= self.timeout:
            self.reason = f"timeout of {self.timeout:g} s reached"
        return self.reason is not None

    def interrupt(self) -> None:
        """Record a stop by Ctrl-C (or by :class:`BudgetExhausted`): the computation stops with
        its partial result.  A limit already reached keeps its own reason."""
        if self.exhausted():
            return
        if any(b is not self and b.exhausted() for b in _ACTIVE):
            self.reason = next(b.reason for b in _ACTIVE if b.reason is not None)
            return
        self.interrupted = True
        self.reason = "interrupted (Ctrl-C)"

    @contextmanager
    def active(self):
        """Make :func:`checkpoint` watch this budget inside the ``with`` block."""
        _ACTIVE.append(self)
        try:
            yield self
        finally:
            for i in range(len(_ACTIVE) - 1, -1, -1):
                if _ACTIVE[i] is self:
                    del _ACTIVE[i]
                    break

    def timer(self) -> "Budget":
        """This budget's timeout alone (same clock and start, no region limit): it watches the
        phases before a walk, which counts the regions of *this* budget.

        >>> t = Budget(timeout=0, max_regions=0).timer()
        >>> t.exhausted(), t.reason
        (True, 'timeout of 0 s reached')
        >>> Budget(timeout=None, max_regions=0).timer().exhausted()
        False
        """
        t = Budget(self.timeout, None, clock=self.clock)
        t.start = self.start
        return t

    def remaining(self) -> float | None:
        if self.timeout is None:
            return None
        return max(0.0, self.timeout - self.elapsed())


class Progress:
    """A minimal progress line on stderr, shown only when stderr is a terminal."""

    def __init__(self, label: str, total: int | None = None, enabled: bool | None = None):
        self.label, self.total, self.done = label, total, 0
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._last = 0.0

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < 0.1:
            return
        self._last = now
        tot = f"/{self.total}" if self.total else ""
        sys.stderr.write(f"\r{self.label}: {self.done}{tot} {note}\x1b[K")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


@contextmanager
def alarm_at(end, what: str = "the certificate's check", again: float = 0.25):
    """Inside the block, :class:`BudgetExhausted` is raised at *end* (``time.monotonic``) and
    again every *again* s until the block is left (a raise that lands where Python swallows it
    — a ``__del__``, a callback, an ``except`` of the code inside — is raised again): an
    in-process certificate check stops at the timeout (ACAS Xu ``search diff --timeout 30``: a
    12 s part took it to 39 s; digits: one alarm only let a 352 s check run whole).  Yields the
    list that records a fire (a check that saw one is never trusted).  Without *end*, or off the
    main thread: no alarm."""
    import signal
    import threading
    fired, armed = [], [True]
    if end is None or threading.current_thread() is not threading.main_thread():
        yield fired
        return

    def _alarm(signum, frame):
        if armed[0]:
            fired.append(True)
            raise BudgetExhausted(f"the budget ran out during {what}")
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        signal.setitimer(signal.ITIMER_REAL, max(1e-3, end - time.monotonic()), again)
        try:
            yield fired
        finally:
            armed[0] = False
            signal.setitimer(signal.ITIMER_REAL, 0)
    finally:
        signal.signal(signal.SIGALRM, old)
