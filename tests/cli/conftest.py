"""The fixture the CLI tests share: ``run(*argv)`` runs ``netfibers`` in-process."""

from __future__ import annotations

import pytest

from semialgebraic.cli import main


@pytest.fixture
def run(capsys):
    """``run("equiv", a, b)`` (or ``run(["equiv", a, b])``) -> ``(exit code, stdout, stderr)``.

    Arguments are turned into strings (paths may be passed as they are); an argparse usage error
    (SystemExit) is returned as its exit code, like any other."""
    def _run(*argv):
        if len(argv) == 1 and isinstance(argv[0], (list, tuple)):
            argv = tuple(argv[0])
        try:
            code = main([str(a) for a in argv])
        except SystemExit as exc:
            code = exc.code
        out, err = capsys.readouterr()
        return code, out, err
    return _run
