"""Every CLI command works without the test-only and optional packages z3, torch and onnx.

Each subcommand of the ``netfibers`` parser (listed from ``build_parser()``, so a new subcommand
cannot be forgotten: it fails here until it has an invocation in ``INVOCATIONS``) runs on bundled
examples in a subprocess whose ``sys.meta_path`` refuses ``z3``, ``torch`` and ``onnx``
(ModuleNotFoundError, as on a plain ``pip install .``).  The answer must be a real one: exit code
0, 1 or 3, never 2 (input error) or 4 (internal error), and no traceback.

All invocations run one after the other in *one* such subprocess (``main(argv)`` per invocation,
its stdout and stderr captured): one interpreter start instead of ~30, for the fast suite's time.
The ``netfibers`` entry itself (``sys.exit(main())``) runs blocked in a process of its own in the
last test.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from semialgebraic.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
EX = ROOT / "algebra" / "examples"
BLOCKED = ("z3", "torch", "onnx")

# a finder in front of sys.meta_path: importing a blocked name (or a submodule) raises
BOOTSTRAP = f"""
import sys
class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in {BLOCKED!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked by the test)", name=name)
        return None
sys.meta_path.insert(0, _Blocked())
for _m in [m for m in sys.modules if m.partition(".")[0] in {BLOCKED!r}]:
    del sys.modules[_m]
"""
CLI = BOOTSTRAP + "from semialgebraic.cli import main\nsys.exit(main())\n"
# runs each argument list of the JSON file argv[1] through main() in this one blocked process;
# writes [{"code", "stdout", "stderr"}, ...] to argv[2] (an escaped exception: code "exception")
DRIVER = BOOTSTRAP + """
import contextlib, io, json, traceback
from semialgebraic.cli import main
with open(sys.argv[1]) as f:
    jobs = json.load(f)
results = []
for argv in jobs:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        except BaseException:
            code = "exception"
            traceback.print_exc()
    results.append({"code": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
with open(sys.argv[2], "w") as f:
    json.dump(results, f)
"""

SHALLOW = {"format": "netfibers.network", "version": 1, "activation": "relu",
           "layers": [{"weight": [[1], [-1]], "bias": [0, 1]}, {"weight": [[1, 1]], "bias": [0]}]}
STEPS = [{"step": "S1", "layer": 1, "perm": [1, 0]}]

# command -> (argument lists run in order, the last one is the command under test); "{tmp}"
# is the test's tmp dir.  Every command of the parser needs an entry.
INVOCATIONS = {
    "convert": [["convert", "-o", "{tmp}/converted.json", f"{EX}/t6_control.json"]],
    "info": [["info", f"{EX}/t6_control.json"]],
    "eval": [["eval", "--x", "1,2", f"{EX}/t6_control.json"]],
    "regions": [["regions", f"{EX}/t6_control.json"]],
    "canon": [["canon", "{tmp}/shallow.json"]],
    "apply": [["apply", "-o", "{tmp}/applied.json", "{tmp}/steps.json", f"{EX}/t6_control.json"]],
    "verify": [["equiv", "--certificate", "{tmp}/cert.json", f"{EX}/t6_flip_a.json",
                f"{EX}/t6_flip_b.json"],
               ["verify", "{tmp}/cert.json", f"{EX}/t6_flip_a.json", f"{EX}/t6_flip_b.json"]],
    "identify": [["identify", f"{EX}/t6_control.json"]],
    "fiber": [["fiber", "--timeout", "60", f"{EX}/t6_control.json"]],
    "symmetries": [["symmetries", "--timeout", "60", f"{EX}/t6_control.json"]],
    "absorb": [["absorb", "--timeout", "60", f"{EX}/block_B.json"]],
    "conserved": [["conserved", "--timeout", "60", f"{EX}/t6_control.json"]],
    "recover": [["recover", "-o", "{tmp}/recovered.json", f"{EX}/r21_shallow.json"]],
    "reproduce": [["reproduce", "--only", "absorption", "--timeout", "120"]],
    "equiv": [["equiv", "--timeout", "60", f"{EX}/t6_flip_a.json", f"{EX}/t6_flip_b.json"]],
    "diff": [["diff", "--box=-1,1", "--timeout", "60", f"{EX}/t6_control.json",
              f"{EX}/t6_flip_a.json"]],
    "dim": [["dim", "--timeout", "60", f"{EX}/t6_control.json"]],
    "analyze": [["analyze", "--timeout", "60"], ["analyze", "--timeout", "60", f"{EX}/t6_control.json"]],
    "explain": [["explain", "S6"]],
    "plot": [["plot", "regions", "--box=-1,1", "-o", "{tmp}/regions.png", f"{EX}/t1_masked.json"]],
    "batch": [["batch", "dim", f"{EX}/t6_c*.json", "--out", "{tmp}/dim.jsonl", "--workers", "0",
               "--timeout", "60"]],
    "search": [["search", "diff", f"{EX}/t6_control.json", f"{EX}/t6_flip_a.json", "--box=-1,1",
                "--cells", "2", "--workers", "0"],
               ["search", "diff", f"{EX}/t6_control.json", f"{EX}/t6_flip_a.json", "--box=-1,1",
                "--workers", "0"]],
}


def _commands() -> list[str]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sorted(sub.choices)


def _run_blocked(code: str, args: list[str], cwd: Path,
                 timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, env=env)


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    d = tmp_path_factory.mktemp("optional_deps")
    (d / "shallow.json").write_text(json.dumps(SHALLOW))
    (d / "steps.json").write_text(json.dumps(STEPS))
    return d


def test_the_blocker_refuses_the_blocked_packages(tmp):
    code = BOOTSTRAP + ("\nout = []\nfor name in %r:\n    try:\n        __import__(name)\n"
                        "    except ModuleNotFoundError as exc:\n        out.append(exc.name)\n"
                        "import algebra, semialgebraic\nprint(out)\n" % (BLOCKED,))
    proc = _run_blocked(code, [], tmp)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(list(BLOCKED))


def test_every_command_has_an_invocation():
    assert sorted(INVOCATIONS) == _commands(), "add an invocation for each new subcommand"


@pytest.fixture(scope="module")
def blocked_runs(tmp):
    """Every argument list of ``INVOCATIONS`` and of the tests below, run in one blocked
    subprocess: ``{key: [result per argument list]}``, a result a dict with ``code``, ``stdout``
    and ``stderr``."""
    (tmp / "m.onnx").write_bytes(b"x")
    jobs = {command: [[a.replace("{tmp}", str(tmp)) for a in args] for args in runs]
            for command, runs in INVOCATIONS.items()}
    jobs["fiber --json"] = [["fiber", "--json", f"{EX}/t6_control.json"]]
    jobs["info onnx"] = [["info", str(tmp / "m.onnx")]]
    flat = [(key, argv) for key, runs in jobs.items() for argv in runs]
    (tmp / "jobs.json").write_text(json.dumps([argv for _, argv in flat]))
    proc = _run_blocked(DRIVER, [str(tmp / "jobs.json"), str(tmp / "results.json")], ROOT,
                        timeout=600)
    assert proc.returncode == 0, proc.stderr
    results = json.loads((tmp / "results.json").read_text())
    assert len(results) == len(flat)
    out: dict[str, list[dict]] = {}
    for (key, argv), res in zip(flat, results):
        out.setdefault(key, []).append(dict(res, argv=argv))
    return out


@pytest.mark.parametrize("command", _commands())
def test_command_runs_without_optional_packages(command, blocked_runs):
    if command not in INVOCATIONS:
        pytest.fail(f"no invocation for the new subcommand {command!r}: add one to INVOCATIONS")
    for res in blocked_runs[command]:
        assert res["code"] in (0, 1, 3), (res["argv"], res["code"], res["stderr"])
        err = res["stderr"]
        assert "Traceback" not in err and "internal error" not in err, err
        assert res["stdout"].strip(), res["argv"]


def test_bottleneck_fiber_without_z3_gives_the_t6_fiber(blocked_runs):
    """Without z3, κ₊ of the bottleneck fiber still comes out: it is computed by the exact LP
    shared with the one-hidden-layer κ₊ (z3 is never needed for a verdict)."""
    [res] = blocked_runs["fiber --json"]
    assert res["code"] == 0, res["stderr"]
    out = json.loads(res["stdout"])
    assert (out["dimension"], out["jacobian_dimension"]) == (5, 5)
    assert (out["number_of_components"], out["number_of_orbits"]) == (8, 1)


def test_missing_optional_package_exits_2_with_install_hint(blocked_runs):
    """A file format that needs a blocked package is an input problem with the install hint."""
    [res] = blocked_runs["info onnx"]
    assert res["code"] == 2
    assert "pip install 'netfibers[io]'" in res["stderr"] and "pip install '.[io]'" in res["stderr"]
    assert "Traceback" not in res["stderr"] and len(res["stderr"].strip().splitlines()) == 1


def test_a_command_in_its_own_blocked_process_exits_and_prints(tmp):
    """The ``netfibers`` entry itself (``sys.exit(main())`` with the process's arguments) in a
    blocked subprocess of its own: an input error exits 2 with the install hint, a command
    exits 0."""
    (tmp / "m.onnx").write_bytes(b"x")
    proc = _run_blocked(CLI, ["info", str(tmp / "m.onnx")], ROOT)
    assert proc.returncode == 2 and "pip install 'netfibers[io]'" in proc.stderr
    proc = _run_blocked(CLI, ["eval", "--x", "1,2", f"{EX}/t6_control.json"], ROOT)
    assert proc.returncode == 0 and proc.stdout.strip() and not proc.stderr, proc.stderr
