"""The ``netfibers`` command.

Thin layer over the public functions.  Each command family lives in
``semialgebraic/commands/<family>.py`` and exposes ``register(subparsers, parent)``; this module
only builds the parser, runs the command and turns errors into one line on stderr:

* exit 2: usage or input error (bad file, wrong shape, NaN/Inf, unknown activation, …);
* exit 0/1/3: the command's answer (see ARCHITECTURE.md, exit codes);
* exit 4: an internal error (a bug in netfibers; ``--debug`` shows the traceback).

``netfibers --help`` imports no sympy and no optional package.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import sys
import time

from algebra import __version__
from algebra.exceptions import AlgebraError
from .budget import (BudgetExhausted, alarm_at, alarm_count, answer_kept, conversions_until,
                     ctrl_c, ctrl_c_count, ctrl_c_left, heartbeat, quiet)
from .certificates import jsonable
from .exceptions import BudgetExceededError, SemialgebraicError

__all__ = ["main", "COMMAND_MODULES", "emit", "fail", "STARTUP_MARK"]

# With the environment variable NETFIBERS_STARTUP_MARK=1, one line "STARTUP_MARK <t> <c>" goes
# to stderr once the imports are done and the arguments parsed, just before the command runs:
# <t> is time.monotonic() then (the system's monotonic clock, which every process shares on
# Linux and macOS), <c> the CPU seconds of start-up (time.process_time()).  Test harnesses read
# it to time a command after start-up (tests/fuzz/bab_fuzz.py).
STARTUP_MARK = "netfibers-startup-done"

COMMAND_MODULES = ("core", "regions", "shallow", "bottleneck", "absorb", "conserved", "general",
                   "analyze", "explain", "recover", "reproduce", "plot", "batch")


class CLIError(Exception):
    """A usage/input problem found by a command: printed as one line, exit 2."""


def fail(message: str) -> None:
    """Abort the current command with an input error (exit 2)."""
    raise CLIError(message)


def emit(args: argparse.Namespace, data: dict, text: str) -> None:
    """Print *data* as JSON with ``--json``, else *text*; a *text* that shows a ``≈`` decimal
    ends with the note saying how to get the exact rationals (once, whichever command printed
    it: README "Reading the answers")."""
    quiet()                                   # no heartbeat line inside the answer
    with answer_kept():
        _emit(args, data, text)


def _emit(args: argparse.Namespace, data: dict, text: str) -> None:
    if getattr(args, "json", False):
        _out(json.dumps(jsonable(data), indent=1))
    else:
        ball = getattr(args, "ball", None)
        if isinstance(ball, str) and text:          # what --ball means, said where it decided
            from .commands.display import EXACT_NOTE
            body, note = (text[:-len(EXACT_NOTE)].rstrip("\n"), f"\n{EXACT_NOTE}") \
                if text.endswith(EXACT_NOTE) else (text, "")
            lines = body.split("\n")
            at = next((k for k, line in enumerate(lines) if line.startswith("  domain: ")), None)
            if at is None:
                text = f"{body}\n  {_ball_line(ball)}{note}"
            else:                       # the command's own domain line says it as a ball
                lines[at] = f"  {_ball_line(ball)}"
                text = "\n".join(lines) + note
        _out(_with_exact_note(text, getattr(args, "exact", False)))


def _out(text: str) -> None:
    """Print the answer; a reader that closed the pipe (``| head -1``, ``| grep -q``) does not
    change the exit code: the rest goes nowhere and the command still exits with its verdict's
    code (it exited 0 for "not absorbable" or "not equivalent" under ``set -o pipefail``: s44
    blocks audit F10)."""
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except OSError:
            pass


def _ball_line(ball: str) -> str:
    """The line naming the domain of ``--ball X,R``: an L∞ ball, i.e. a cube (a new-user audit
    read "ball of radius 2.8" as a round one and took a point at distance 3.25 for a bug).

    >>> _ball_line("0,0,2.8")
    'domain: the L∞ ball of radius 2.8 around (0, 0), i.e. the cube of side 2 × 2.8 centred there (--ball)'
    """
    *centre, radius = [v.strip() for v in ball.split(",")]
    where = f"({', '.join(centre)})" if len(centre) > 1 else f"the point ({centre[0]}, …, {centre[0]})"
    return (f"domain: the L∞ ball of radius {radius} around {where}, i.e. the cube of side "
            f"2 × {radius} centred there (--ball)")


def _with_exact_note(text: str, exact: bool) -> str:
    """*text* followed by ``display.EXACT_NOTE`` when it shows a ``≈`` decimal and lacks the note.

    >>> _with_exact_note("max |a - b| = ≈ 1.7259e-4", False).splitlines()[-1]
    '(≈: decimal approximation; exact rationals in --json or with --exact)'
    >>> _with_exact_note("max |a - b| = 1/3", False)
    'max |a - b| = 1/3'
    """
    from .commands.display import EXACT_NOTE
    if exact or "≈" not in text or EXACT_NOTE in text:
        return text
    return f"{text}\n{EXACT_NOTE}"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2
        self.exit(2, f"netfibers: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="netfibers",
                     description="Exact fibers, symmetries, equivalence and skip absorption of "
                                 "ReLU networks, over the rationals, with certificates.")
    parser.add_argument("--version", action="version", version=f"netfibers {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    parser.add_argument("--exact", action="store_true", dest="exact_global",
                        help="print every rational exactly (default: long ones as ≈ decimals)")
    parent = _Parser(add_help=False)
    parent.add_argument("--json", action="store_true", help="machine-readable JSON output")
    parent.add_argument("--exact", action="store_true",
                        help="print every rational exactly (default: long ones as ≈ decimals; "
                             "--json is always exact)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(f"semialgebraic.commands.{name}")
        except ImportError as exc:  # a family not built yet must not break the others
            if getattr(exc, "name", "") and "semialgebraic.commands" in str(exc.name):
                continue
            raise
        if hasattr(module, "register"):
            module.register(sub, parent)
    return parser


NO_LIMIT = 1e9
"""A ``--timeout`` of this many seconds (about 32 years) or more, or ``inf``, is no limit: 1e10
made the deadline of identify/fiber/symmetries/analyze overflow (input audit, session 35)."""

# options naming a file (their argparse dest): an empty value is a usage error, not "no file"
FILE_OPTIONS = ("certificate", "output", "graphml", "form", "checkpoint", "data")

# options whose value may start with "-" (argparse would read "-1,1" as an option)
NEGATIVE_VALUE_OPTIONS = ("--box", "--x", "--ball", "--slice")
_NEGATIVE = re.compile(r"^-\.?\d[\d,./:;eE+\- ]*$")    # ":": per-coordinate lo:hi; ";": P;D1;D2


INPUT_DESTS = ("net", "a", "b", "block", "input", "inputs", "manifest", "nets", "steps", "data")
OUTPUT_DESTS = ("output", "form", "graphml", "plot", "out", "certificate")


def _output_clash(args) -> str | None:
    """An output file that is an input file, or two outputs that are one file: the input (a
    user's only copy of a network) would be replaced (input audit, session 35: `equiv A B
    --certificate A`, `convert X.npz -o X.npz --dtype float16`, `canon X -o X`)."""
    def paths(dests, skip=()):
        out = []
        for dest in dests:
            value = None if dest in skip else getattr(args, dest, None)
            for v in (value if isinstance(value, list) else [value]):
                if isinstance(v, str) and v and v != "-":
                    out.append((dest, v, os.path.realpath(os.path.expanduser(v))))
        return out
    reading_certificate = getattr(args, "command", None) == "verify"
    inputs = paths(INPUT_DESTS + (("certificate",) if reading_certificate else ()))
    outputs = paths(OUTPUT_DESTS, ("certificate",) if reading_certificate else ())
    seen: dict = {}
    for dest, text, real in outputs:
        flag = "-o" if dest == "output" else f"--{dest}"
        for _, inp, real_in in inputs:
            if real == real_in:
                return (f"{flag} {text} is the input file {inp}: writing it would destroy the "
                        "input; choose another output")
        if real in seen:
            return f"{flag} {text} is also the file of {seen[real]}: choose two different files"
        seen[real] = flag
    return None


def _join_negative_values(argv: list[str]) -> list[str]:
    """``--box -1,1`` -> ``--box=-1,1`` so that negative values need no ``=``."""
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok in NEGATIVE_VALUE_OPTIONS and i + 1 < len(argv) and _NEGATIVE.match(argv[i + 1]):
            out.append(f"{tok}={argv[i + 1]}")
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Run ``netfibers`` with *argv* (default: the process's arguments); the exit code.  Run as
    the process itself (*argv* None) and stopped by Ctrl-C, it ends the process as soon as the
    partial report is written (``os._exit`` after a flush): nothing that runs at the
    interpreter's exit (a native library's thread pool joined in its destructors) can then
    hang it."""
    seen = ctrl_c_count()
    code = _main(argv, seen)
    if argv is None and ctrl_c_count() != seen:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    return code


ALARMED = ("convert", "info", "eval", "apply", "explain")
"""Commands without a budget of their own: ``--timeout`` is an alarm around the whole command
(exit 3, nothing written: their outputs are atomic), so that a script can pass ``--timeout`` to
every command (a user audit, session 36)."""


def _main(argv: list[str] | None, seen: int) -> int:
    parser = build_parser()
    argv = _join_negative_values(list(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return 2
    args.exact = bool(getattr(args, "exact", False) or getattr(args, "exact_global", False))
    timeout = getattr(args, "timeout", None)
    if timeout is not None and not timeout >= 0:          # negative or NaN
        parser.error(f"--timeout must be a non-negative number of seconds, got {timeout}")
    if timeout is not None and timeout >= NO_LIMIT:        # no limit (an alarm cannot take inf,
        args.timeout = None                                # a deadline not 1e10 s: time_t)
    max_regions = getattr(args, "max_regions", None)
    if max_regions is not None and max_regions < 0:        # (dim takes 0: no walk, sampling)
        parser.error(f"--max-regions must be {'non-negative' if args.command == 'dim' else 'at least 1'}, "
                     f"got {max_regions}")
    workers = getattr(args, "workers", None)
    if workers is not None and workers < 0:        # (negative: Dask waited for ever)
        parser.error(f"--workers must be non-negative (0: in this process), got {workers}")
    max_nullity = getattr(args, "max_nullity", None)
    if max_nullity is not None and max_nullity < 0:
        parser.error(f"--max-nullity must be non-negative, got {max_nullity}")
    for dest in FILE_OPTIONS:              # "--certificate ''" (an unset variable): never silent
        if getattr(args, dest, None) == "":
            parser.error(f"--{dest}: empty file name")
    clash = _output_clash(args)
    if clash:
        parser.error(clash)
    if os.environ.get("NETFIBERS_STARTUP_MARK") == "1":
        print(f"{STARTUP_MARK} {time.monotonic():.6f} {time.process_time():.6f}", file=sys.stderr,
              flush=True)
    code = None
    alarms = alarm_count()
    try:
        with ctrl_c(), heartbeat(args.command, args.timeout if timeout is not None else None):
            # Ctrl-C: the partial report, or exit 3 within its grace; no silent long wait
            if ctrl_c_count() != seen:     # a Ctrl-C while the parser was built, swallowed
                raise KeyboardInterrupt
            end = (time.monotonic() + args.timeout if args.command in ALARMED
                   and getattr(args, "timeout", None) is not None else None)
            # every layer's exact matrix made under the command's --timeout is first costed
            # (budget.conversion_guard; batch's timeout is per item, its jobs' own budgets)
            whole = None if args.command == "batch" else getattr(args, "timeout", None)
            with alarm_at(end, f"netfibers {args.command} (--timeout {timeout:g} s)" if end else ""), \
                    conversions_until(whole):
                code = args.func(args)
    except KeyboardInterrupt as exc:          # BudgetExhausted carries the budget's reason
        ctrl_c_left()             # (its own exit may have been cut: its watchdog stopped)
        if code is not None:      # the command had returned, its answer written: a Ctrl-C while
            return int(code)      # the handlers were taken down changes nothing (s46 F-TAIL)
        if isinstance(exc, BudgetExhausted) and str(exc) and ctrl_c_count() == seen:
            # a budget that stopped the command before it held any partial result (a layer too
            # large for the time left): the answer's place says so too (a --json consumer had
            # an empty stdout: s49 huge audit F15)
            if getattr(args, "json", False):       # (plot: no picture, its "output" null)
                print(json.dumps({**({"output": None} if args.command == "plot" else {}),
                                  "complete": False, "answer": None, "reason": str(exc)}))
            else:
                print(f"not computed: {exc}")
        print(f"netfibers: {str(exc) or 'interrupted (Ctrl-C)'}", file=sys.stderr)
        return 3
    except Exception as exc:
        ctrl_c_left()
        if ctrl_c_count() != seen:
            # after a Ctrl-C any error is its echo: a C extension whose import it interrupted
            # raises ImportError (numpy: "initialization failed"; seen in a SIGINT sweep as an
            # internal error, exit 4), an optional format's import an install hint (exit 2)
            print("netfibers: interrupted (Ctrl-C)", file=sys.stderr)
            return 3
        if alarm_count() != alarms and isinstance(exc, ImportError):
            # the same for the --timeout alarm: `identify --timeout 1` gave "internal error
            # (ImportError: initialization failed)", exit 4, once in CI (s45, s46)
            print(f"netfibers: timeout of {args.timeout:g} s reached (an import it cut: {exc})"
                  if getattr(args, "timeout", None) is not None else
                  f"netfibers: stopped (an import its budget cut: {exc})", file=sys.stderr)
            return 3
        return _failed(args, exc)
    return int(code or 0)


def _failed(args, exc: Exception) -> int:
    """The exit code of a command that raised *exc* (called in an except): 2 for bad input, 3
    for a spent budget, 0 for a closed pipe, 4 for a bug."""
    if isinstance(exc, CLIError):
        print(f"netfibers: error: {exc}", file=sys.stderr)
        return 2
    if isinstance(exc, (AlgebraError, SemialgebraicError)):
        if isinstance(exc, BudgetExceededError):   # a TimeoutError (an OSError): exit 3, not 2
            print(f"netfibers: {exc}", file=sys.stderr)
            return 3
        if isinstance(exc, (ValueError, TypeError, ImportError, OSError)):
            print(f"netfibers: error: {exc}", file=sys.stderr)
            return 2
        # any other (a failed internal certificate check, ...) is a bug: exit 4 like the rest,
        # never a traceback with exit 1 (which `equiv` uses for "not equivalent")
        return _internal_error(args, exc)
    if isinstance(exc, BrokenPipeError):
        return 0
    if isinstance(exc, OverflowError) and not args.debug:
        # an exact weight beyond float64's range (a JSON "1e400" means that number) met a float
        # guess: the exact commands (eval, equiv, canon, fiber, identify) take it, this one not
        cmd = getattr(args, "command", None) or "this command"
        others = [c for c in ("eval", "equiv", "canon") if c != cmd]
        print(f"netfibers: error: a number beyond float64's range (about 1e±308) reached a "
              f"float-guided step of {cmd} ({exc}); {', '.join(others)} (and fiber and identify "
              "on one hidden layer) take such weights exactly; here rescale the network (a "
              "positive rescaling of a neuron keeps its function, S2) or the domain's "
              "half-spaces (a positive multiple of a·x <= b is the same half-space)",
              file=sys.stderr)
        return 2
    return _internal_error(args, exc)          # a bug: one line unless --debug


def _internal_error(args, exc) -> int:
    """A bug: one line on stderr and exit 4, with --debug the traceback too (called in an
    except; re-raising it made Python exit 1, which ``equiv`` and ``verify`` use for a verdict:
    s51 audit F2)."""
    if args.debug:
        import traceback
        traceback.print_exception(exc, file=sys.stderr)
    print(f"netfibers: internal error ({type(exc).__name__}: {exc}); rerun with --debug "
          "and report it", file=sys.stderr)
    return 4


if __name__ == "__main__":  # pragma: no cover
    # ``python -m semialgebraic.cli``: run the copy imported as ``semialgebraic.cli`` (the
    # commands import that one; this file's second copy has its own CLIError class)
    from semialgebraic.cli import main as _main
    sys.exit(_main())
