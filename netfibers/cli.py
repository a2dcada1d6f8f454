"""The ``netfibers`` console script's entry point: Ctrl-C is handled from its first moment.

The command itself is :func:`semialgebraic.cli.main`; importing it takes seconds (flint,
HiGHS, networkx, the command modules).  A Ctrl-C during those imports, or while the parser is
built, would print Python's traceback; :func:`main` turns it into the same one line and exit
code 3 as a Ctrl-C during a command (README, exit codes), and writes nothing.  This module and
``netfibers/__init__.py`` import nothing heavy, so the window left to Python is its own
start-up (the interpreter and ``site``, before any netfibers code runs).
"""

import os
import signal
import sys

__all__ = ["main"]

INTERRUPTED = 3        # the exit code of a command stopped by Ctrl-C (semialgebraic.cli)


def main(argv: list[str] | None = None) -> int:
    """Run ``netfibers`` (:func:`semialgebraic.cli.main`) with *argv*; the exit code.  Run as the
    process (*argv* None), a Ctrl-C before the command's own handler is in place ends the
    process at once with one line on stderr and exit 3."""
    try:
        from semialgebraic.cli import main as run
        code = run(argv)
    except KeyboardInterrupt:
        return _interrupted(argv)
    if argv is None:
        # the command is done and its report written: a Ctrl-C now would only interrupt the
        # interpreter's exit (seen: killed by SIGINT, exit -2, stdout's buffer possibly lost)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code


def _interrupted(argv) -> int:
    """A Ctrl-C during start-up: one line, exit 3 (a second Ctrl-C no longer interrupts it)."""
    if argv is not None:
        print("netfibers: interrupted (Ctrl-C)", file=sys.stderr)
        return INTERRUPTED
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        os.write(2, b"netfibers: interrupted (Ctrl-C)\n")
        sys.stdout.flush()
    finally:       # modules half imported: no clean-up at the interpreter's exit (it could hang)
        os._exit(INTERRUPTED)
