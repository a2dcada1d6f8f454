"""Ctrl-C during start-up (issue 15, robust): while the console script imports flint, HiGHS,
networkx and the command modules, before the command's own handler (``budget.ctrl_c``) is in
place, SIGINT gives the one line ``netfibers: interrupted (Ctrl-C)`` and exit 3 (the documented
code of a Ctrl-C, docs/architecture.md "Budgets and Ctrl-C"), no traceback, and writes nothing.

The children run the console script exactly as pip generates it from ``[project.scripts]``.
Moments are CPU seconds of the child (a wall-clock sleep on a loaded machine may end before the
interpreter has started, or after the command has): from the CPU of ``import netfibers.cli``
(Python's own start-up, ``site`` included, before any netfibers code runs: a Ctrl-C there is
Python's) to the CPU of the whole start-up of a command, measured now.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib

import pytest

from .test_budgets import ROOT, children_cpu, interrupt_after_cpu, random_net, sigint_default


def _entry() -> tuple[str, str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    module, func = meta["project"]["scripts"]["netfibers"].split(":")
    return module, func


def _script(*argv) -> list[str]:
    """The console script as pip writes it (``import re, sys; from M import f; sys.exit(f())``)."""
    module, func = _entry()
    code = f"import re\nimport sys\nfrom {module} import {func}\nsys.exit({func}())"
    return [sys.executable, "-c", code, *argv]


def _cpu_of(argv) -> float:
    c = children_cpu()
    subprocess.run(argv, capture_output=True, check=False, cwd=ROOT)
    return children_cpu() - c


def test_the_entry_point_is_light():
    """``netfibers.cli`` (the console script's module) imports nothing heavy: its Ctrl-C handler
    is in place within milliseconds of Python's start-up."""
    assert _entry() == ("netfibers.cli", "main")
    code = ("import sys, netfibers.cli; print(sorted(m for m in ('flint', 'highspy', 'networkx', "
            "'sympy', 'algebra', 'semialgebraic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=ROOT)
    assert out.stdout.strip() == "[]"


def _interrupted_at(tmp_path, fraction: float) -> tuple[int, str, str]:
    nets = []
    for seed in (1, 2):                   # two different nets: a diff that runs for minutes
        nets.append(tmp_path / f"n{seed}.json")
        nets[-1].write_text(json.dumps(random_net([6, 24, 24, 1], seed).to_dict()))
    floor = _cpu_of([sys.executable, "-c", "import netfibers.cli"])
    whole = _cpu_of(_script("explain"))                 # imports, parser: the whole start-up
    at = floor + fraction * max(0.0, whole - floor)
    cert = tmp_path / "cert.json"
    argv = ["diff", *map(str, nets), "--box=-1,1", "--certificate", str(cert), "--json"]
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        proc = subprocess.Popen(_script(*argv), stdout=out, stderr=err, cwd=ROOT,
                                preexec_fn=sigint_default)
        interrupt_after_cpu(proc, at)
        code = proc.wait(timeout=120)
    out, err = (tmp_path / "out").read_text(), (tmp_path / "err").read_text()
    assert out or not cert.exists()       # before the command's report, nothing is written
    return code, out, err


def test_ctrl_c_in_the_middle_of_start_up(tmp_path):
    """Halfway through the imports: the one line, exit 3, no output, no certificate file."""
    code, out, err = _interrupted_at(tmp_path, 0.5)
    assert (code, out, err) == (3, "", "netfibers: interrupted (Ctrl-C)\n")


@pytest.mark.slow
@pytest.mark.parametrize("fraction", [0.0, 0.1, 0.25, 0.75, 0.95])
def test_ctrl_c_at_any_moment_of_start_up(tmp_path, fraction):
    """From the entry point's first moment to the end of the start-up: exit 3, one line, no
    traceback (at the very end the command may have begun: its partial report, exit 3)."""
    code, out, err = _interrupted_at(tmp_path, fraction)
    assert code == 3, err
    assert "Traceback" not in err, err
    if out:                               # the command had begun: its partial report
        report = json.loads(out)
        assert report["complete"] is False and report["reason"].startswith("interrupted"), out
    else:
        assert err == "netfibers: interrupted (Ctrl-C)\n", err


def test_ctrl_c_in_process_start_up_returns_3(monkeypatch, capsys):
    """Called with *argv* (in-process), a KeyboardInterrupt while the command is being set up
    returns 3 with the one line (the process is not ended)."""
    import semialgebraic.cli
    from netfibers.cli import main

    def _interrupt():
        raise KeyboardInterrupt
    monkeypatch.setattr(semialgebraic.cli, "build_parser", _interrupt)
    assert main(["explain"]) == 3
    assert capsys.readouterr().err == "netfibers: interrupted (Ctrl-C)\n"


def test_a_finished_command_ignores_a_late_ctrl_c(monkeypatch, capsys):
    """Run as the process (*argv* None), once the command is done a Ctrl-C no longer interrupts
    the interpreter's exit (seen in a SIGINT sweep: killed by SIGINT, exit -2, right after the
    report)."""
    import signal
    from netfibers.cli import main
    before = signal.getsignal(signal.SIGINT)
    monkeypatch.setattr("sys.argv", ["netfibers", "explain", "generic"])
    try:
        assert main() == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert "generic" in capsys.readouterr().out


# A Ctrl-C whose KeyboardInterrupt is lost on its way.  Seen in a sweep of SIGINT moments over
# start-up: a diff that ran on for minutes (the exception swallowed during an import), a numpy
# traceback with exit 1 and an "internal error" with exit 4 (numpy's C init, interrupted while
# importing datetime, raises ImportError instead).  The console script counts every Ctrl-C.

_SWALLOW = """
import importlib.abc, os, signal, sys, time
class Hook(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name == {module!r} and not getattr(self, "done", False):
            self.done = True
            try:
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(1)
            except KeyboardInterrupt:
                {then}
        return None
from netfibers.cli import main
sys.meta_path.insert(0, Hook())
sys.argv = ["netfibers", "explain", "generic"]
sys.exit(main())
"""


@pytest.mark.parametrize("module", ["flint", "semialgebraic.cli", "semialgebraic.commands.explain"])
@pytest.mark.parametrize("then", ["pass", "raise ImportError('initialization failed')"])
def test_a_lost_ctrl_c_during_the_imports_still_ends_the_process(module, then):
    """The KeyboardInterrupt swallowed by an import, or turned into an ImportError: the one
    line and exit 3, the command never run (no output)."""
    code = _SWALLOW.format(module=module, then=then)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         timeout=120, preexec_fn=sigint_default)
    assert (out.returncode, out.stdout, out.stderr) == (3, "", "netfibers: interrupted (Ctrl-C)\n")


def test_a_counted_ctrl_c_before_the_command_stops_it(monkeypatch, capsys):
    """A Ctrl-C counted while the parser was built (its exception lost): the command is not
    run, exit 3."""
    import semialgebraic.cli
    from semialgebraic.budget import note_ctrl_c
    build = semialgebraic.cli.build_parser

    def _build():
        parser = build()
        note_ctrl_c()
        return parser
    monkeypatch.setattr(semialgebraic.cli, "build_parser", _build)
    assert semialgebraic.cli.main(["explain", "generic"]) == 3
    seen = capsys.readouterr()
    assert (seen.out, seen.err) == ("", "netfibers: interrupted (Ctrl-C)\n")


@pytest.mark.parametrize("error", [ImportError("initialization failed"), ValueError("x")])
def test_an_error_after_a_ctrl_c_is_the_interrupt(monkeypatch, capsys, error):
    """An exception from a command after a Ctrl-C (a lazy import it interrupted) reports the
    interrupt, exit 3, not an internal error (exit 4) or an install hint (exit 2)."""
    import semialgebraic.cli
    from semialgebraic.budget import note_ctrl_c
    parser = semialgebraic.cli.build_parser()
    ctrl_c = [True]

    def _run(args):
        if ctrl_c.pop():
            note_ctrl_c()
        ctrl_c.append(False)
        raise error
    monkeypatch.setattr(semialgebraic.cli, "build_parser", lambda: parser)
    sub = next(a for a in parser._actions if a.dest == "command")
    sub.choices["explain"].set_defaults(func=_run)
    assert semialgebraic.cli.main(["explain", "generic"]) == 3
    assert capsys.readouterr().err == "netfibers: interrupted (Ctrl-C)\n"
    # without a Ctrl-C the same error is what it is
    assert semialgebraic.cli.main(["explain", "generic"]) in (2, 4)


def test_a_ctrl_c_python_could_not_raise_prints_no_traceback():
    """A Ctrl-C landing in a callback Python cannot raise from (seen in CI: importlib's
    module-lock weakref callback) was reported as "Exception ignored in: ..." with a traceback
    before the one line; the console script's hook drops that report (the Ctrl-C is counted and
    the one line follows), and reports every other exception as Python does."""
    code = ("import sys, netfibers.cli as c\n"
            "sys.unraisablehook = c._quiet_ctrl_c\n"
            "class A:\n"
            "    def __init__(self, e): self.e = e\n"
            "    def __del__(self): raise self.e\n"
            "A(KeyboardInterrupt())\n"
            "A(ValueError('shown'))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert "KeyboardInterrupt" not in r.stderr and "ValueError: shown" in r.stderr


def test_an_import_failure_before_the_command_is_exit_4_never_exit_1():
    """A broken installation (here: ``semialgebraic.cli`` fails to import) ended with Python's
    traceback and exit 1, which `equiv` uses for "not equivalent" (an outside audit saw exit 1
    without a verdict while the tree was being updated, session 37): one line, exit 4."""
    code = ("import sys\nsys.modules['semialgebraic.cli'] = None\n"
            "from netfibers.cli import main\nsys.exit(main())")
    r = subprocess.run([sys.executable, "-c", code, "equiv", "a.json", "b.json"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 4 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and r.stderr.startswith("netfibers: internal error (ModuleNotFoundError")
    r = subprocess.run([sys.executable, "-c", code, "equiv", "a.json", "b.json", "--debug"],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert r.returncode == 4 and "Traceback" in r.stderr        # --debug: the traceback
    assert "netfibers: internal error (ModuleNotFoundError" in r.stderr     # (exit 1: s51 F2)
