"""README honesty: every command shown in README.md runs and prints what README shows.

The shown commands run in-process (``main(argv)`` in a folder holding ``algebra/``, as README's
``netfibers …`` does from the repository root); the ``python -m semialgebraic.cli`` start itself
is the last test's subprocess."""

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from semialgebraic.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def _blocks(lang: str = ""):
    return re.findall(r"```%s\n(.*?)```" % lang, README, re.S)


def _shell_examples():
    out = []
    for block in _blocks():
        cmd, expected = None, []
        for line in block.splitlines():
            if line.startswith("$ "):
                if cmd:
                    out.append((cmd, expected))
                cmd, expected = line[2:], []
            elif cmd is not None:
                expected.append(line)
        if cmd:
            out.append((cmd, expected))
    return out


EXAMPLES = _shell_examples()


def test_readme_has_the_two_one_line_commands_used_by_ci():
    blocks = [b.strip() for b in _blocks()]
    assert "pip install . && netfibers analyze" in blocks
    assert "pip install '.[test]' && pytest -n 2 --dist loadfile" in blocks   # CI's 2 cores
    ci = (ROOT / ".ci" / "run").read_text()
    assert "^pip install \\. && netfibers analyze" in ci
    assert "^pip install '.\\[test\\]' && " in ci
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    extras = extras["optional-dependencies"]
    assert any(r.startswith("pytest-xdist") for r in extras["test"])     # README's `-n 2`


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("readme")
    (d / "algebra").symlink_to(ROOT / "algebra")
    return d


@pytest.mark.parametrize("cmd, expected", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_readme_command_prints_what_readme_shows(cmd, expected, workdir, monkeypatch, capsys):
    args = shlex.split(cmd)
    assert args[0] == "netfibers"
    monkeypatch.chdir(workdir)
    try:
        code = main(args[1:])
    except SystemExit as exc:                      # an argparse error
        code = exc.code
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    lines = out.splitlines()
    assert lines[:len(expected)] == expected


def test_readme_python_example_runs():
    code = _blocks("python")[0]
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        exec(compile(code, "README.md", "exec"), namespace)
    finally:
        os.chdir(cwd)
    a = namespace["a"]
    semialgebraic = namespace["semialgebraic"]
    algebra = namespace["algebra"]
    assert namespace["v"].answer is True
    assert algebra.conservation_laws(a, namespace["patterns"]).number_of_laws == 4
    assert semialgebraic.number_of_regions(a, domain=semialgebraic.Polyhedron.box(2, -1, 1)) == 5
    assert (namespace["ok"], namespace["r"].lower, namespace["r"].upper) == (True, 0, 0)
    assert semialgebraic.verify(namespace["r"].certificate)[0]
    assert semialgebraic.max_deviation(a, namespace["b"], (-1, 1)).value == 0


def test_analyze_without_argument_runs_the_bundled_example():
    proc = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "analyze"], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert "identifiab" in proc.stdout and "fiber" in proc.stdout
