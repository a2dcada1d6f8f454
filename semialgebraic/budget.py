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

:func:`ctrl_c` (around every command of the CLI) makes Ctrl-C end the command by construction:
the first one raises :class:`KeyboardInterrupt` (the partial report), also exhausts every
budget made before it (a loop whose interrupt was swallowed — in a ``__del__``, a callback —
stops at its next budget check), and starts a watchdog that ends the process with exit 3 if
the report has not come within a grace period and the process sits idle; a second Ctrl-C
kills the process at once (the default action, which no long C call — flint, HiGHS — can
delay).
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
import time
from contextlib import contextmanager
from types import SimpleNamespace

__all__ = ["Budget", "Progress", "BudgetExhausted", "checkpoint", "api_boundary", "alarm_at", "conversion_guard", "conversions_until", "ConversionRefused", "ctrl_c", "signals_after", "answer_kept",
           "ctrl_c_count", "ctrl_c_left", "alarm_count", "note_ctrl_c", "heartbeat", "phase", "phased", "quiet", "shown", "memory_limit", "memory_reason", "resident_bytes", "MEMORY_SHARE"]

class _PerThread(threading.local):
    """The budgets a thread has made active (:meth:`Budget.active`) and its deadlines
    (:func:`conversions_until`): per thread, so that a budget one thread activates (an API
    call with ``timeout=`` in a notebook's worker thread) never stops another thread's work."""

    def __init__(self):
        self.active: list["Budget"] = []
        self.deadlines: list = []
        self.api_depth = 0             # public API calls open (:func:`api_boundary`)
        self.commands = 0              # :func:`ctrl_c` blocks open without its SIGINT handler


_THREAD = _PerThread()
_CTRL_C = [0]          # Ctrl-Cs seen by :func:`ctrl_c`: a budget made before one is exhausted
_PHASES: list[str] = []    # what the command is doing now (:func:`phase`), for :func:`heartbeat`
_SHOWN = [0.0]             # ``time.monotonic()`` of the last progress text on stderr
_QUIET = [False]           # the answer is being printed: no more heartbeat lines


MEMORY_SHARE = 0.8
"""Default memory limit: this share of the machine's memory (``NETFIBERS_MAX_MEMORY``, in GB,
sets another).  A walk of the digits 64-32-10 net's regions kept ~4 MB a region (its forms
are now bounded: ``regions.walk.FORMS_BYTES``): without a timeout it had taken 22 GB of 23 after
18 minutes, where the kernel's OOM killer ends it with nothing written; at the limit every budget is exhausted and the command returns its partial
result (exit 3) like at a timeout."""

_MEMORY: dict = {"limit": None, "next": 0.0, "hit": None}


def memory_limit() -> int | None:
    """The resident-memory limit in bytes (``NETFIBERS_MAX_MEMORY`` GB, else
    :data:`MEMORY_SHARE` of ``MemTotal``); None where ``/proc`` does not tell (no guard)."""
    if _MEMORY["limit"] is None:
        env = os.environ.get("NETFIBERS_MAX_MEMORY")
        try:
            if env:
                _MEMORY["limit"] = int(float(env) * 1e9)
            else:
                with open("/proc/meminfo") as fh:
                    kb = next(int(line.split()[1]) for line in fh if line.startswith("MemTotal:"))
                _MEMORY["limit"] = int(MEMORY_SHARE * kb * 1024)
        except (OSError, ValueError, StopIteration):
            _MEMORY["limit"] = 0
    return _MEMORY["limit"] or None


def resident_bytes() -> int | None:
    """This process's resident memory (``/proc/self/statm``), or None."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def memory_reason() -> str | None:
    """The reason to stop once this process's resident memory passed :func:`memory_limit`
    (read at most every 0.2 s; once passed, every budget stays exhausted), else None.

    >>> memory_reason() is None          # a doctest is far below any limit
    True
    """
    if _MEMORY["hit"] is not None:
        return _MEMORY["hit"]
    now = time.monotonic()
    if now < _MEMORY["next"]:
        return None
    _MEMORY["next"] = now + 0.2
    limit, rss = memory_limit(), resident_bytes()
    if limit is not None and rss is not None and rss >= limit:
        _MEMORY["hit"] = (f"memory limit of {limit / 1e9:.3g} GB reached ({rss / 1e9:.3g} GB "
                          "resident; NETFIBERS_MAX_MEMORY=GB sets the limit)")
    return _MEMORY["hit"]


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
    for b in _THREAD.active:
        if b.exhausted():
            raise BudgetExhausted(b.reason)


_WALL_CLOCKS = (time.monotonic, time.perf_counter, time.time)


def wall_seconds_left() -> float | None:
    """The fewest wall-clock seconds left to an active budget with a timeout (None: no such
    budget): the time limit handed to a single long library call that does not see signals or
    :func:`checkpoint` (a HiGHS LP: :func:`semialgebraic.lp.floatlp.run_highs`).  Budgets on
    another clock (CPU seconds) are not counted: their work must not depend on the machine's load.

    >>> wall_seconds_left() is None
    True
    >>> with Budget(timeout=100).active():
    ...     0 < wall_seconds_left() <= 100
    True
    """
    left = [b.timeout - b.elapsed() for b in _THREAD.active
            if b.timeout is not None and b.clock in _WALL_CLOCKS]
    return min(left) if left else None


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

    __slots__ = ("timeout", "max_regions", "clock", "start", "regions", "reason", "interrupted",
                 "_ctrl_c")

    def __init__(self, timeout: float | None = None, max_regions: int | None = None, *,
                 clock=time.monotonic):
        import numbers
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, numbers.Real)
                                    or timeout != timeout):
            from algebra.exceptions import InputError   # (a bare TypeError deep inside: s53 F5)
            raise InputError(f"timeout must be a number of seconds, got {timeout!r}")
        if max_regions is not None and (isinstance(max_regions, bool)
                                        or not isinstance(max_regions, numbers.Integral)
                                        or max_regions < 0):
            from algebra.exceptions import InputError
            raise InputError(f"max_regions must be a count >= 0, got {max_regions!r}")
        if timeout is not None and timeout > 1e9:
            timeout = None               # (inf, 1e300: no deadline; an alarm that far raised a
        self.timeout, self.max_regions = timeout, max_regions   # bare OverflowError: s53 F3)
        self.clock = clock
        self.start = clock()
        self.regions = 0
        self.reason: str | None = None
        self.interrupted = False
        self._ctrl_c = _CTRL_C[0]

    def count(self, n: int = 1) -> None:
        self.regions += n

    def elapsed(self) -> float:
        return self.clock() - self.start

    def exhausted(self) -> bool:
        """True (and ``reason`` set) once a limit is reached."""
        if self.reason is not None:
            return True
        if self._ctrl_c != _CTRL_C[0]:       # a Ctrl-C since this budget began (see ctrl_c)
            self.interrupted = True
            self.reason = "interrupted (Ctrl-C)"
        elif self.max_regions is not None and self.regions >= self.max_regions:
            self.reason = f"max_regions={self.max_regions} reached"
        elif self.timeout is not None and self.elapsed() >= self.timeout:
            self.reason = f"timeout of {self.timeout:g} s reached"
        else:
            self.reason = memory_reason()
        return self.reason is not None

    def interrupt(self) -> None:
        """Record a stop by Ctrl-C (or by :class:`BudgetExhausted`): the computation stops with
        its partial result.  A limit already reached keeps its own reason."""
        if self.exhausted():
            return
        if any(b is not self and b.exhausted() for b in _THREAD.active):
            self.reason = next(b.reason for b in _THREAD.active if b.reason is not None)
            return
        exc = sys.exc_info()[1]      # called in an except: a budget's stop is not a Ctrl-C
        if isinstance(exc, BudgetExhausted) and str(exc) and _CTRL_C[0] == self._ctrl_c:
            self.reason = str(exc)  # (an inner budget, left by now, or a limit inside an LP)
            return
        self.interrupted = True
        self.reason = "interrupted (Ctrl-C)"

    def stop(self) -> KeyboardInterrupt:
        """The exception that carries this budget's stop on up, for a caller that cannot use a
        partial result (a walk whose every region it needs): KeyboardInterrupt for a Ctrl-C,
        :class:`BudgetExhausted` with the reason for a limit.

        >>> b = Budget(max_regions=0); b.exhausted(); b.stop()
        True
        BudgetExhausted('max_regions=0 reached')
        """
        if self.interrupted or not self.exhausted():
            return KeyboardInterrupt()
        return BudgetExhausted(self.reason)

    @contextmanager
    def active(self):
        """Make :func:`checkpoint` watch this budget inside the ``with`` block."""
        _THREAD.active.append(self)
        try:
            yield self
        finally:
            for i in range(len(_THREAD.active) - 1, -1, -1):
                if _THREAD.active[i] is self:
                    del _THREAD.active[i]
                    break

    @contextmanager
    def paused(self):
        """Stop :func:`checkpoint` watching this budget inside the ``with`` block (work only worth
        having whole, under the budgets outside this one: they still stop it); watched again
        after it.

        >>> outer, inner = Budget(), Budget(timeout=0)
        >>> with outer.active(), inner.active():
        ...     with inner.paused():
        ...         checkpoint()              # inner is spent, but paused: nothing happens
        ...     try:
        ...         checkpoint()
        ...     except BudgetExhausted as exc:
        ...         print(exc)
        timeout of 0 s reached
        """
        where = [i for i, b in enumerate(_THREAD.active) if b is self]
        for i in reversed(where):
            del _THREAD.active[i]
        try:
            yield self
        finally:
            for i in where:
                _THREAD.active.insert(min(i, len(_THREAD.active)), self)

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
        t.start, t._ctrl_c = self.start, self._ctrl_c
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
        self._last = _SHOWN[0] = now
        tot = f"/{self.total}" if self.total else ""
        sys.stderr.write(f"\r{self.label}: {self.done}{tot} {note}\x1b[K")
        sys.stderr.flush()

    def close(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


@contextmanager
def phase(text: str):
    """Inside the block, :func:`heartbeat`'s lines say the command is *text* ("reading
    net.json", "walking the regions"); phases nest, the innermost is shown.

    >>> with phase("reading a.json"):
    ...     with phase("the canonical form"):
    ...         current_phase()
    'the canonical form'
    >>> current_phase() is None
    True
    """
    _PHASES.append(text)
    try:
        yield
    finally:
        _PHASES.pop()


def phased(text: str):
    """Decorator: the function runs inside :func:`phase` (*text*).

    >>> @phased("counting")
    ... def f():
    ...     return current_phase()
    >>> f()
    'counting'
    """
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            with phase(text):
                return fn(*args, **kwargs)
        return inner
    return wrap


def current_phase() -> str | None:
    return _PHASES[-1] if _PHASES else None


def shown() -> None:
    """Progress text was just written to stderr (a line of its own, not :class:`Progress`):
    :func:`heartbeat` waits its period from now."""
    _SHOWN[0] = time.monotonic()


def quiet() -> None:
    """No more :func:`heartbeat` lines: the command prints its answer (``cli.emit``)."""
    _QUIET[0] = True


HEARTBEAT = 5.0        # seconds without progress text on stderr before a heartbeat line


def heartbeat_line(command: str, elapsed: float, what: str | None,
                   timeout: float | None) -> str:
    """The text of one heartbeat line.

    >>> heartbeat_line("fiber", 12.3, "the canonical form", 60)
    'netfibers fiber: still working (the canonical form), 12 s of the 60 s budget'
    >>> heartbeat_line("dim", 7, None, None)
    'netfibers dim: still working, 7 s'
    """
    line = f"netfibers {command}: still working" + (f" ({what})" if what else "") + \
        f", {elapsed:.0f} s"
    return line + (f" of the {timeout:g} s budget" if timeout is not None else "")


@contextmanager
def heartbeat(command: str, timeout: float | None = None, every: float | None = None):
    """Inside the block, a daemon thread writes one line to stderr (``netfibers CMD: still
    working (PHASE), 12 s of the 60 s budget``; *timeout* is the command's ``--timeout``)
    whenever no progress text has been shown for *every* seconds (:data:`HEARTBEAT`): no long
    wait is silent, even in a phase
    without its own progress bar (reading a large file, a canonical form, exact ranks, a
    certificate's check).  Only when stderr is a terminal, like :class:`Progress`;
    ``NETFIBERS_HEARTBEAT=SECONDS`` turns it on anywhere with that period (tests).  A single
    long FLINT call that holds the interpreter delays the line until it returns."""
    env = os.environ.get("NETFIBERS_HEARTBEAT")
    try:
        every = float(env) if env else (every or HEARTBEAT)
    except ValueError:
        every = every or HEARTBEAT
    if not (env or sys.stderr.isatty()) or not every > 0:
        yield
        return
    stop, start = threading.Event(), time.monotonic()
    _QUIET[0] = False
    _SHOWN[0] = start

    def _beat():
        while not stop.wait(min(0.5, every / 2)):
            now = time.monotonic()
            if _QUIET[0] or now - _SHOWN[0] < every:
                continue
            _SHOWN[0] = now
            line = heartbeat_line(command, now - start, current_phase(), timeout)
            try:
                sys.stderr.write(f"\r\x1b[K{line}\n" if sys.stderr.isatty() else f"{line}\n")
                sys.stderr.flush()
            except (OSError, ValueError):       # stderr closed: nothing to say it on
                return

    thread = threading.Thread(target=_beat, name="netfibers-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()


def alarm_at(end, what: str = "the certificate's check", again: float = 0.25):
    """Inside the block, :class:`BudgetExhausted` is raised at *end* (``time.monotonic``) and
    again every *again* s until the block is left (a raise that lands where Python swallows it
    — a ``__del__``, a callback, an ``except`` of the code inside — is raised again): an
    in-process certificate check stops at the timeout (ACAS Xu ``search diff --timeout 30``: a
    12 s part took it to 39 s; digits: one alarm only let a 352 s check run whole).  The block
    yields the list that records a fire (a check that saw one is never trusted).  Without *end*,
    or off the main thread: no alarm.  Nested blocks share the process's one timer: an inner
    one never later than the enclosing one, which it puts back on the way out.

    >>> with alarm_at(time.monotonic() + 60) as fired:
    ...     pass
    >>> fired, signal.getitimer(signal.ITIMER_REAL)[0]
    ([], 0.0)
    """
    return _Alarm(end, what, again)


def _importing(frame) -> bool:
    """Is *frame* (where a signal landed) inside an import?  An exception raised there breaks
    the import off, and a C extension's module initialisation broken off stays broken for the
    process: an alarm during highspy's first import (``identifiability(net, timeout=1e-3)``)
    left every later LP with "ImportError: initialization failed" (s53 API audit F2).  Imports
    finish (a few tenths of a second the first time), then the alarm fires again."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


class _Alarm:
    """:func:`alarm_at`'s block, a class (not a generator context manager): its ``__exit__``
    is this code, which disarms first.  Signals run between any two bytecodes: with a generator
    block, an alarm due just as a Ctrl-C left the block was raised inside contextlib's
    ``__exit__``, before the generator's cleanup, which never ran — the timer went on firing
    in the caller's partial report and lost it (a Ctrl-C just before ``diff``'s deadline: s43
    budgets audit F7).  Now the alarm does not raise while a stop (a Ctrl-C or a spent budget)
    is already on its way out — it fires again 0.25 s later if the block is still running — and
    the cleanup is done whole even when a signal lands inside it."""

    def __init__(self, end, what, again):
        self.end, self.what, self.again = end, what, again
        self.fired: list = []
        self.armed = False
        self.live = end is not None and threading.current_thread() is threading.main_thread()

    def _alarm(self, signum, frame):
        if not self.armed:
            return
        if isinstance(sys.exc_info()[1], (KeyboardInterrupt, GeneratorExit)):
            # a stop already leaving, or a generator being closed (a region walk dropped
            # after its caller's budget ran out: raised in its ``finally``, Python printed
            # 'Exception ignored in RegionWalk._walk' with a traceback): not replaced (it
            # fires again 0.25 s later if the block is still running)
            return
        if _importing(frame):
            return                   # a module being imported: not broken off (fires again)
        self.fired.append(True)
        _ALARMS[0] += 1
        raise BudgetExhausted(f"the budget ran out during {self.what}")

    def __enter__(self):
        if not self.live:
            return self.fired
        # an enclosing alarm (analyze's, identify's, around a diff whose preparation has its
        # own): this block's timer is never later than it, and it is put back on the way out
        left, self.outer_again = signal.getitimer(signal.ITIMER_REAL)
        self.outer_end = time.monotonic() + left if left > 0 else None
        end = self.end if self.outer_end is None else min(self.end, self.outer_end)
        self.old = signal.getsignal(signal.SIGALRM)
        try:
            signal.signal(signal.SIGALRM, self._alarm)
            self.armed = True
            signal.setitimer(signal.ITIMER_REAL, max(1e-3, end - time.monotonic()), self.again)
        except BaseException:
            # the alarm (a timeout of 1e-4 s: due 1 ms after setitimer) or a Ctrl-C landed before
            # the block was entered, so no __exit__ would run: the timer stayed armed, repeating
            # every 0.25 s, and raised in the caller's own code after the call had returned
            # (s53 API audit F2); disarmed here, and the stop goes on
            self.__exit__(None, None, None)
            raise
        return self.fired

    def _cleanup(self):
        self.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.old)
        if self.outer_end is not None:
            signal.setitimer(signal.ITIMER_REAL, max(1e-3, self.outer_end - time.monotonic()),
                             self.outer_again)

    def __exit__(self, *exc):
        if not self.live:
            return False
        ctrl_c = None
        for _ in range(8):           # a Ctrl-C met here is raised once the cleanup is done
            try:
                self._cleanup()
                break
            except KeyboardInterrupt as err:
                if not isinstance(err, BudgetExhausted):
                    ctrl_c = err
        if ctrl_c is not None:
            raise ctrl_c
        return False


@contextmanager
def signals_after():
    """Inside the block, a Ctrl-C (SIGINT) or an alarm (SIGALRM) is held and delivered — its
    handler run, its exception raised — when the block ends.  For a short C loop that calls
    back into Python arithmetic: numpy's object-array matmul over Python integers lets the
    interpreter's signal check inside a big-integer product raise mid-loop (where ~60 % of the
    Ctrl-Cs of a ``conserved`` walk landed).  When it raises at the first product of an output
    element, numpy 2.4's ``OBJECT_matmul_inner_noblas`` decrefs the *previous* element's sum,
    already stored in the output (``Py_XDECREF(sum_of_products)`` on its error path, the variable
    not reset): that element is freed while the output still holds it, and freed again when
    the output is — a use-after-free that later crashed the process at an unrelated allocation
    (s44: twice in ~700 Ctrl-Cs, a core dump with a corrupted pymalloc free list; the freeing
    reproduced with a ``__mul__`` that raises).  Only on the main thread, and only for short
    work: a held signal waits for the block to end
    (tests/semialgebraic/test_signals_after.py)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list = []

    def hold(signum, frame):
        held.append((signum, frame))

    old = {}
    for sig in (signal.SIGINT, signal.SIGALRM):
        h = signal.getsignal(sig)
        if callable(h):                 # (ignored or default: nothing to hold)
            old[sig] = signal.signal(sig, hold)
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        for signum, frame in held:      # the first one's exception, if any, ends the caller
            old[signum](signum, frame)


@contextmanager
def answer_kept():
    """While a finished answer is written, a first Ctrl-C does not throw it away (the JSON encoder
    or the print cut by a KeyboardInterrupt lost the whole answer: s45 Ctrl-C audit F7): it is
    counted and gives SIGINT its default action back — a second Ctrl-C still kills at once, as
    after any first one — and the answer is written whole.  Commands hold it from their decision
    on (its certificate written, its JSON and text built: ``equiv``, ``diff``, ``absorb``; s45
    re-run audit O2, F7: the certificate on disk, then one line and exit 3); nested, the inner
    one changes nothing.  Yields an object whose ``ctrl_c`` says whether a Ctrl-C was counted
    (a loop over items then stops: ``absorb --all``)."""
    kept = SimpleNamespace(ctrl_c=False)      # (True once a Ctrl-C was counted here)
    if threading.current_thread() is not threading.main_thread() or \
            not callable(signal.getsignal(signal.SIGINT)):
        yield kept
        return

    def later(signum, frame):
        note_ctrl_c()
        kept.ctrl_c = True
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    old = signal.signal(signal.SIGINT, later)
    try:
        yield kept
    finally:
        if signal.getsignal(signal.SIGINT) is later:
            signal.signal(signal.SIGINT, old)


_OPEN: list = []       # (left, former handler) of the ctrl_c blocks not yet left, innermost last


def ctrl_c_left() -> None:
    """Leave every :func:`ctrl_c` block still open: stop its watchdog and put its former SIGINT
    handler back, innermost first.  Its own exit does this; a Ctrl-C that lands on that exit's
    first lines cuts it short, and the watchdog left running would end the process 5 s later
    once idle (a pytest worker, an API user), so :func:`semialgebraic.cli.main` calls it again
    (s46 Ctrl-C audit F-TAIL)."""
    while _OPEN:
        left, old = _OPEN[-1]
        left.set()
        signal.signal(signal.SIGINT, old)
        _OPEN.pop()


_ALARMS = [0]          # alarms raised by :func:`alarm_at` in this process


def alarm_count() -> int:
    """How many times an :func:`alarm_at` block raised its stop in this process (an error that
    follows one may be its echo: a C extension whose import it cut raises ImportError)."""
    return _ALARMS[0]


def api_boundary(fn):
    """The public API's last guard (``netfibers.diff_bounds``, ``equivalent``, …): a spent
    budget's :class:`BudgetExhausted` that no partial result inside caught is raised to the
    caller as the documented :class:`~semialgebraic.exceptions.BudgetExceededError`, never as
    the internal ``KeyboardInterrupt`` subclass (a notebook's ``except Exception`` missed it and
    Jupyter showed an interrupted cell: ``diff_bounds(timeout=0.0025)``, s53 API audit F1).  A
    real Ctrl-C (one seen by :func:`ctrl_c` during the call, or a plain ``KeyboardInterrupt``)
    goes on as it is, and so does a stop of a budget the caller made active itself
    (``with budget.active(): …``: the internal protocol, whose handlers are the caller's).

    >>> @api_boundary
    ... def spent():
    ...     raise BudgetExhausted("timeout of 0.01 s reached")
    >>> try:
    ...     spent()
    ... except Exception as exc:
    ...     print(type(exc).__name__, exc)
    BudgetExceededError budget exhausted: timeout of 0.01 s reached
    """
    @functools.wraps(fn)
    def guarded(*args, **kwargs):
        seen, depth = _CTRL_C[0], _THREAD.api_depth
        owned = bool(_THREAD.active)   # a budget the caller made active: its stops are theirs
        _THREAD.api_depth = depth + 1
        try:
            return fn(*args, **kwargs)
        except BudgetExhausted as exc:
            # only the outermost call of a caller's own (inside another API function, a command
            # or a caller's active budget, the enclosing handlers make their partial result)
            if depth or owned or _in_command() or _CTRL_C[0] != seen:
                raise
            from .exceptions import BudgetExceededError
            raise BudgetExceededError(str(exc) or "the budget ran out") from None
        finally:
            _THREAD.api_depth = depth
            if not depth and not owned and not _in_command():
                _disarm_stray_alarm()
    return guarded


def _in_command() -> bool:
    """Is a command of the CLI running (its :func:`ctrl_c` block open)?  The blocks' own record,
    which :func:`ctrl_c_left` empties even after a Ctrl-C cut an exit short, not a count kept in
    a ``finally`` that a Ctrl-C can skip (a test's Ctrl-C there left one behind, and later API
    calls of that process raised the internal interrupt); nor the Ctrl-C count of the process
    (a test's ``note_ctrl_c`` made every later API call of a pytest worker a command)."""
    if _THREAD.commands:               # (a command where SIGINT is ignored, or off the main thread)
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    # its ctrl_c block open (also after its Ctrl-C, SIGINT's own handler back; cli.main leaves
    # every block it left open: ctrl_c_left), or its handler on SIGINT
    return bool(_OPEN) or bool(getattr(signal.getsignal(signal.SIGINT), "netfibers_command", False))


def _disarm_stray_alarm() -> None:
    """After a public call: an :func:`alarm_at` timer still armed (its block left without its
    exit: s53 API audit F2, where it fired in the caller's code 0.25 s after the call) is
    disarmed and its handler put back."""
    if threading.current_thread() is not threading.main_thread():
        return
    for _ in range(8):                 # (nested blocks: each one's handler back in turn)
        alarm = getattr(signal.getsignal(signal.SIGALRM), "__self__", None)
        if not isinstance(alarm, _Alarm):
            return
        alarm.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, alarm.old if alarm.old is not None else signal.SIG_DFL)


def ctrl_c_count() -> int:
    """How many Ctrl-Cs :func:`ctrl_c` has seen in this process."""
    return _CTRL_C[0]


def note_ctrl_c() -> None:
    """Count a Ctrl-C seen outside :func:`ctrl_c`'s block (the console script's start-up handler,
    ``netfibers.cli``): :func:`semialgebraic.cli.main` then does not start the command even if
    the KeyboardInterrupt raised with it was swallowed on its way."""
    _CTRL_C[0] += 1


GRACE = 5.0            # seconds after Ctrl-C before an idle process is ended (exit 3)


@contextmanager
def ctrl_c(grace: float = GRACE):
    """Inside the block (the main thread; elsewhere nothing changes), Ctrl-C always ends the
    command: the first SIGINT raises :class:`KeyboardInterrupt` as usual and also

    * exhausts every :class:`Budget` made before it (:meth:`Budget.exhausted` says
      "interrupted (Ctrl-C)"), so that a loop whose KeyboardInterrupt landed where Python
      swallows it (a ``__del__``, a callback) stops at its next budget check with its partial
      result instead of running on;
    * gives SIGINT back its default action: a second Ctrl-C kills the process at once, even
      inside a long C call (flint, HiGHS) that does not see Python's signal handlers;
    * starts a watchdog (a daemon thread) that, if the block has not been left *grace* seconds
      later and the process then spends a second idle (less than 0.05 s of CPU: blocked on a
      lock, a queue, a future, not building a large report), says so on stderr and ends the
      process with exit 3 (``os._exit``: a hang after Ctrl-C cannot outlast it).

    Leaving the block stops the watchdog and puts the former handler back.  Where SIGINT is
    ignored (a background job, ``nohup``) nothing changes either.

    >>> before = signal.getsignal(signal.SIGINT)
    >>> with ctrl_c(grace=5):
    ...     signal.getsignal(signal.SIGINT).__name__ in ("_first", "SIG_IGN")
    True
    >>> signal.getsignal(signal.SIGINT) is before
    True
    """
    if threading.current_thread() is not threading.main_thread() or \
            signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        _THREAD.commands += 1          # (no Ctrl-C reaches here to skip the finally)
        try:
            yield
        finally:
            _THREAD.commands -= 1
        return
    left = threading.Event()

    def _watchdog():
        if left.wait(grace):
            return
        cpu = time.process_time()           # this process's CPU, all threads
        while not left.wait(1.0):
            now = time.process_time()
            if now - cpu < 0.05:            # idle: waiting for what will not come (a slow
                os.write(2, f"netfibers: no report {grace:g} s after Ctrl-C and the process "
                            "idle; stopped\n".encode())     # report keeps working: spared)
                os._exit(3)
            cpu = now

    def _first(signum, frame):
        _CTRL_C[0] += 1
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        threading.Thread(target=_watchdog, name="netfibers-ctrl-c", daemon=True).start()
        raise KeyboardInterrupt

    _first.netfibers_command = True    # (a command runs here: api_boundary leaves its stops be)
    old = signal.signal(signal.SIGINT, _first)
    _OPEN.append((left, old))
    try:
        yield
    finally:
        ctrl_c_left()


CONVERT_RATE = 2e6
"""Entries a second turned into an exact matrix, low (measured ~4e6 a second idle: a
5000 x 5000 float32 kernel in 6 s): the time :func:`conversion_guard` expects."""

CONVERT_BYTES = 80
"""Bytes a matrix entry takes while it is made exact (its Python int, FLINT's integer and
rational copies), high (a 7000 x 7000 kernel: 3.7 GB)."""


def conversion_guard(entries: int, what: str) -> None:
    """Before *what*'s exact matrix (*entries* of them) is made in one FLINT call: raise
    :class:`BudgetExhausted` (the active budget exhausted, with the reason) when the time it
    takes at :data:`CONVERT_RATE` exceeds what an active budget has left, or its memory at
    :data:`CONVERT_BYTES` would pass :func:`memory_limit` — the call itself cannot be stopped.

    >>> with Budget(timeout=1).active():
    ...     conversion_guard(10, "W1's exact matrix")   # small: nothing said
    ...     try:
    ...         conversion_guard(10**8, "W1's exact matrix")
    ...     except BudgetExhausted as exc:
    ...         print(str(exc)[:59])
    making W1's exact matrix (100000000 entries) takes about 50
    """
    if entries < 100_000 or not (_THREAD.active or _THREAD.deadlines):
        return
    seconds = entries / CONVERT_RATE
    limit, rss = memory_limit(), resident_bytes()
    reason = None
    now = time.monotonic()
    for left in [b.remaining() for b in _THREAD.active] + [end - now for end in _THREAD.deadlines]:
        if left is not None and seconds > left:
            took = f"{seconds:.2g}" if seconds < 10 else f"{seconds:.0f}"   # (.2g: 1e+02)
            reason = (f"making {what} ({entries} entries) takes about {took} s, more than the "
                      f"{max(left, 0):.1f} s left of the budget")
            break
    if reason is None and limit is not None and rss is not None \
            and rss + entries * CONVERT_BYTES > limit:
        reason = (f"making {what} ({entries} entries) needs about "
                  f"{entries * CONVERT_BYTES / 1e9:.2g} GB, past the memory limit of "
                  f"{limit / 1e9:.3g} GB (NETFIBERS_MAX_MEMORY=GB sets the limit)")
    if reason is None:
        return
    for b in _THREAD.active:
        if b.reason is None:
            b.reason = reason
    raise ConversionRefused(reason)


class ConversionRefused(BudgetExhausted):
    """:func:`conversion_guard`'s stop (never a Ctrl-C): code that must tell the two apart (a
    batch job, whose Ctrl-C stops the batch) catches this one."""


@contextmanager
def conversions_until(seconds: float | None):
    """Inside the block, :func:`conversion_guard` also watches a deadline *seconds* from now
    (code stopped by an alarm rather than an active budget: ``commands.bottleneck.deadline``)."""
    if seconds is None:
        yield
        return
    _THREAD.deadlines.append(time.monotonic() + seconds)
    try:
        yield
    finally:
        _THREAD.deadlines.pop()


def _register_conversion_guard() -> None:
    from algebra import network
    if conversion_guard not in network.CONVERSION_GUARDS:
        network.CONVERSION_GUARDS.append(conversion_guard)


_register_conversion_guard()
