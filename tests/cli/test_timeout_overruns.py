"""``--timeout T`` holds in ``diff --method walk`` (issue 15 item 5): the exact maximum deviation
(:func:`semialgebraic.equivalence.max_deviation`) runs each region's LPs as the walk yields it, so
the timeout bounds the walk and the LPs together (collecting the whole walk first took
``diff --method walk --timeout 20`` to 34-42 s after start-up, and with eight outputs a 3 s CPU
budget to 22 s).  The partial result is a certified lower bound, exit 3.  Times are measured
after start-up, read from the CLI's start-up mark (``NETFIBERS_STARTUP_MARK=1``), as the fuzz
campaign ``tests/fuzz/bab_fuzz.py`` does (its parser, its ``--keep`` are tested here too)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from fractions import Fraction as F
from pathlib import Path
from types import SimpleNamespace

import pytest

from algebra.network import Network
from semialgebraic.budget import Budget
from semialgebraic.cli import STARTUP_MARK
from semialgebraic.equivalence import max_deviation
from tests.fuzz.bab_fuzz import Runner, keep_files, overrun, split_startup_mark

ROOT = Path(__file__).resolve().parents[2]          # run this worktree's code in subprocesses
SLACK = 6.0                                         # a loaded, shared CI machine

# max |a - b| on [-1, 1]^3 of the pair pair((3, 16, 16, 1)): the whole walk (15581 regions,
# about 80 s here), checked by test_the_truth_of_the_walk_pair (slow)
TRUTH_3_16_16_1 = F(24081123607, 78783447040)


def layers(widths, seed, den=16):
    """Random layers ``[(W, b)]`` of Fractions (He-like scale, denominators *den*)."""
    rng = random.Random(seed)
    out = []
    for a, b in zip(widths, widths[1:]):
        s = max(1, round(den * (2 / a) ** 0.5))
        out.append(([[F(rng.randint(-2 * s, 2 * s), den) for _ in range(a)] for _ in range(b)],
                    [F(rng.randint(-den, den), den) for _ in range(b)]))
    return out


def perturbed(ls, seed, eps=F(1, 64)):
    """Every weight and bias moved by -eps, 0 or +eps."""
    rng = random.Random(seed)
    return [([[v + eps * rng.randint(-1, 1) for v in r] for r in W], [v + eps * rng.randint(-1, 1) for v in c])
            for W, c in ls]


def pair(widths, seed=1):
    """A random net (two hidden layers of 16: thousands of regions of a - b on the cube) and a
    perturbed copy, as layer lists."""
    a = layers(widths, seed)
    return a, perturbed(a, seed + 1000)


def network(ls) -> Network:
    return Network.from_rows([W for W, _ in ls], [c for _, c in ls])


def evaluate(ls, x):
    h = list(x)
    for k, (W, c) in enumerate(ls):
        h = [sum((w * v for w, v in zip(r, h)), F(0)) + ci for r, ci in zip(W, c)]
        if k < len(ls) - 1:
            h = [max(v, F(0)) for v in h]
    return h


def interval_bound(a, b, lo, hi):
    """An upper bound on max |a - b| over [lo, hi]^d by exact interval arithmetic (no code
    shared with netfibers)."""
    def bounds(ls):
        box = [(F(lo), F(hi))] * len(ls[0][0][0])
        for k, (W, c) in enumerate(ls):
            box = [(ci + sum((min(w * l, w * u) for w, (l, u) in zip(r, box)), F(0)),
                    ci + sum((max(w * l, w * u) for w, (l, u) in zip(r, box)), F(0))) for r, ci in zip(W, c)]
            if k < len(ls) - 1:
                box = [(max(l, F(0)), max(u, F(0))) for l, u in box]
        return box
    return max(max(ua - lb, ub - la) for (la, ua), (lb, ub) in zip(bounds(a), bounds(b)))


def write(tmp_path, a, b):
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(network(a).to_dict()))
    pb.write_text(json.dumps(network(b).to_dict()))
    return str(pa), str(pb)


def timed(*argv, timeout_s):
    """Run ``netfibers *argv --json --timeout T`` as the fuzz campaign's subprocess runner does
    (start-up mark, CPU after the deadline); ``(exit code, JSON, seconds after start-up, seconds
    in all)``; asserts the budget held: 1.05·T + 2 s after start-up, plus SLACK (or no more than
    2 s + SLACK of CPU after the deadline, on a loaded machine), and at most 3 CPU s after the
    deadline."""
    run = Runner(True, timeout_s, slack=SLACK)
    code, out, err, total = run(*argv, "--json", "--timeout", timeout_s)
    assert run.after is not None and 0 <= run.after <= total and run.past is not None, err
    late = overrun(total, run.after, timeout_s, SLACK, run.cpu, run.past)
    assert late is None, (argv[0], late, err)
    # CPU seconds do not stretch with the load: the work after the deadline (0.2-0.5 s here;
    # 8-13 s when the walk's LPs ran after it) is held to the 2 s of the rule, plus 1
    assert run.past <= 3, (argv[0], run.past, run.after, err)
    return code, json.loads(out), run.after, total


# ------------------------------------------------------------------------------------------------
# the fuzz campaign's timing: start-up mark, overrun message, --keep
# ------------------------------------------------------------------------------------------------
def test_the_fuzz_reads_the_start_up_mark_and_prints_both_times():
    import tests.fuzz.bab_fuzz as fuzz
    assert fuzz.STARTUP_MARK == STARTUP_MARK          # the fuzz imports no netfibers code for it
    got = split_startup_mark(f"warning\n{STARTUP_MARK} 100.25 3.5\nnetfibers: timeout of 2 s reached\n")
    assert got == ("warning\nnetfibers: timeout of 2 s reached\n", 100.25, 3.5)
    assert split_startup_mark(f"{STARTUP_MARK} 100.25\n") == ("", 100.25, None)
    assert split_startup_mark("netfibers: error: bad file\n") == ("netfibers: error: bad file\n", None, None)
    assert split_startup_mark(f"{STARTUP_MARK} x\n") == (f"{STARTUP_MARK} x\n", None, None)  # not a time
    # seed 94018 --large: 9 s in all, 5.5 s after a 3.5 s start-up: within 1.05·4 + 2 + 1
    assert overrun(9.0, 5.5, 4, 1.0) is None
    assert overrun(9.0, None, 4, 1.0) == ("9.0 s in all (start-up not marked) past --timeout 4 "
                                           "(allowed 1.05·T + 2 s + 1 s slack = 7.2 s)")
    assert overrun(12.0, 8.0, 4, 1.0) == ("8.0 s after start-up (12.0 s in all) past --timeout 4 "
                                           "(allowed 1.05·T + 2 s + 1 s slack = 7.2 s)")
    assert overrun(12.0, 8.0, 4, 1.0, cpu=8.5) is not None        # a whole CPU: no more allowance
    # nice 15 on a loaded machine: 26.9 s for --timeout 20 with a third of a CPU is in time ...
    assert overrun(26.9, 26.9, 20, 3.0, cpu=9.0) is None
    # ... but not 40 s (the walk that ran its LPs after the deadline), nor an idle hang after it
    assert "past --timeout 20" in overrun(40.0, 40.0, 20, 3.0, cpu=30.0)
    assert "50% of a CPU" in overrun(42.0, 42.0, 20, 3.0, cpu=21.0)
    # measured past the deadline: only work counts (1.3 CPU s, late by the load), 13 CPU s is not
    assert overrun(26.9, 26.9, 20, 3.0, cpu=20.0, past=1.3) is None
    assert "13.0 CPU s after the deadline" in overrun(15.6, 15.6, 2, 1.0, cpu=15.2, past=13.0)


def test_keep_copies_the_files_of_a_case_with_findings(tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "a.json").write_text("{}")
    (work / "cert_eps.json").write_text("{}")
    case = SimpleNamespace(seed=7, kind="bias_1e-6", workdir=str(work),
                           findings=[("bias_1e-6", 7, "diff: 9.0 s after start-up", "netfibers diff a b")])
    dest = keep_files(case, str(tmp_path / "keep"))
    assert dest == str(tmp_path / "keep" / "seed-7-bias_1e-6")
    assert sorted(os.listdir(dest)) == ["a.json", "cert_eps.json", "findings.txt"]
    assert (Path(dest) / "findings.txt").read_text() == "diff: 9.0 s after start-up\n    netfibers diff a b\n"
    assert keep_files(case, None) is None
    assert keep_files(SimpleNamespace(**{**vars(case), "findings": []}), str(tmp_path / "k2")) is None
    assert not (tmp_path / "k2").exists()


# ------------------------------------------------------------------------------------------------
# max_deviation: the LPs inside the budget
# ------------------------------------------------------------------------------------------------
def test_max_deviation_runs_its_lps_inside_a_cpu_budget():
    # eight outputs: 16 LPs a region; collecting the walk first took 22 CPU s on a 3 s budget
    a, b = pair((3, 16, 16, 8))
    na, nb = network(a), network(b)
    t = time.process_time()
    dev = max_deviation(na, nb, (-1, 1), budget=Budget(1, clock=time.process_time))
    cpu = time.process_time() - t
    assert cpu <= 1.05 * 1 + 2, cpu
    assert not dev.complete and dev.reason == "timeout of 1 s reached" and dev.regions >= 1
    x = [F(str(v)) for v in dev.point]
    assert all(-1 <= v <= 1 for v in x)
    value = F(str(dev.value))
    assert value == abs(evaluate(a, x)[dev.output] - evaluate(b, x)[dev.output]) > 0
    assert value <= interval_bound(a, b, -1, 1)
    assert dev.to_json()["upper"] is None


def test_max_deviation_max_regions_keeps_the_lps_of_its_regions():
    a, b = pair((3, 16, 16, 1))
    dev = max_deviation(network(a), network(b), (-1, 1), max_regions=5)
    assert (dev.regions, dev.complete, dev.reason) == (5, False, "max_regions=5 reached")
    assert 0 < F(str(dev.value)) <= TRUTH_3_16_16_1
    # a spent budget before the walk: the corner x = lo, no region
    dev = max_deviation(network(a), network(b), (-1, 1), budget=Budget(0))
    assert (dev.regions, dev.complete, dev.point) == (0, False, (-1, -1, -1))
    assert dev.reason == "timeout of 0 s reached"


# ------------------------------------------------------------------------------------------------
# the CLI: exit 3 and a certified partial result within 1.05·T + 2 s after start-up
# ------------------------------------------------------------------------------------------------
def test_diff_walk_returns_within_its_timeout(tmp_path):
    a, b = pair((3, 16, 16, 8))                       # minutes of walk and LPs
    pa, pb = write(tmp_path, a, b)
    code, js, after, total = timed("diff", pa, pb, "--box", "-1,1", "--method", "walk", timeout_s=2)
    assert code == 3 and js["complete"] is False and js["upper"] is None
    assert js["reason"].startswith("timeout of 2 s reached"), js["reason"]
    lower = F(js["lower"])
    x = [F(str(v)) for v in js["point"]]
    o = js["output"]
    assert lower == abs(evaluate(a, x)[o] - evaluate(b, x)[o]) > 0
    assert lower <= interval_bound(a, b, -1, 1)


def test_diff_walk_ctrl_c_gives_the_partial_report(tmp_path):
    # SIGINT in the middle of the walk and its LPs (a second after start-up): the same partial
    # report as a budget, exit 3 (before, a Ctrl-C during the LPs gave one line, no result)
    a, b = pair((3, 16, 16, 8))
    pa, pb = write(tmp_path, a, b)
    env = dict(os.environ, PYTHONPATH=str(ROOT), NETFIBERS_STARTUP_MARK="1")
    p = subprocess.Popen([sys.executable, "-m", "semialgebraic.cli", "diff", pa, pb, "--box", "-1,1",
                          "--method", "walk", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, env=env, cwd=ROOT)
    try:
        line = p.stderr.readline()                     # the start-up mark: the command begins
        assert line.startswith(STARTUP_MARK), line
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 3, err
    js = json.loads(out)
    assert js["complete"] is False and js["upper"] is None
    assert js["reason"].startswith("interrupted (Ctrl-C)"), js["reason"]
    x = [F(str(v)) for v in js["point"]]
    o = js["output"]
    assert F(js["lower"]) == abs(evaluate(a, x)[o] - evaluate(b, x)[o]) <= interval_bound(a, b, -1, 1)


def test_equiv_epsilon_returns_within_its_timeout(tmp_path):
    # epsilon just above the exact maximum: deciding it takes far longer than 2 s
    a, b = pair((3, 16, 16, 1))
    pa, pb = write(tmp_path, a, b)
    code, js, _, _ = timed("equiv", pa, pb, "--box", "-1,1", "--epsilon", "153/500", timeout_s=2)
    assert code == 3 and js["answer"] is None and js["complete"] is False
    assert F(js["lower"]) <= TRUTH_3_16_16_1 <= F(js["upper"])


@pytest.mark.slow
def test_diff_walk_timeout_20_on_the_walk_pair(tmp_path):
    # the case of the report: 34-42 s after start-up before the LPs ran inside the walk
    a, b = pair((3, 16, 16, 1))
    pa, pb = write(tmp_path, a, b)
    code, js, after, _ = timed("diff", pa, pb, "--box", "-1,1", "--method", "walk", timeout_s=20)
    assert code == 3 and js["upper"] is None and js["regions"] >= 100
    assert 0 < F(js["lower"]) <= TRUTH_3_16_16_1


@pytest.mark.slow
def test_the_truth_of_the_walk_pair():
    a, b = pair((3, 16, 16, 1))
    dev = max_deviation(network(a), network(b), (-1, 1))
    assert dev.complete and F(str(dev.value)) == TRUTH_3_16_16_1
