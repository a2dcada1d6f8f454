"""Valid but odd networks through every command (session 23): a network with no hidden layer,
1-1-1, every parameter zero, a dead hidden layer, one input and a wide layer, several outputs,
duplicate / opposite rows, weights of 1e30 and 1e-30, deep one-input nets, identity layers, a
bottleneck with a zero row.  Each command must answer (exit 0, 1 or 3) or refuse in ONE line
(exit 2) with a reason that is not a crash in disguise (a Python repr such as ``None`` read as a
rational, or ``internal error``); nothing may escape as a traceback; every certificate written
must pass ``netfibers verify``.

Found this way: ``fiber`` of the all-zero 2-3-1 net and of a net with a dead layer ended in
"None: cannot read a NoneType as a rational number" (exit 2, an input error for a valid file),
and ``dim`` claimed "fiber dimension 6" for a first-layer neuron dead on R^2 (the fiber has
dimension 4; ``tests/semialgebraic/test_fiber_bounds.py``).

Run by hand (commands in-process, each bounded by ``--timeout`` and an alarm)::

    nice -n 15 python -m tests.fuzz.odd_nets --seed 1

``tests/fuzz/test_odd_nets.py`` runs a bounded sample.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from fractions import Fraction as F
from pathlib import Path

from algebra.network import Network
from tests.fuzz.inputs import run_cli

DISGUISED = ("NoneType", "cannot read a None", "internal error", "Traceback", "object has no attribute")
"""Words of a one-line exit-2 message that betray a crash, not a refusal."""

REFUSALS = ("has (inputs, outputs)", "needs two hidden layers", "give a 2-D --slice",
            "at least two inputs", "does not apply", "needs 2")
"""The refusals expected of odd nets (a theory that does not apply, a picture that needs two
inputs, networks of different signatures)."""


def odd_nets(seed: int) -> dict:
    """Name -> network (rational weights drawn from *seed* where a shape leaves them free)."""
    rng = random.Random(seed)

    def rnd(a, b, s=3):
        return [[F(rng.randint(-s, s), rng.randint(1, 3)) for _ in range(a)] for _ in range(b)]

    def rb(b, s=2):
        return [F(rng.randint(-s, s), rng.randint(1, 3)) for _ in range(b)]

    N = Network.from_rows
    return {
        "affine": N([rnd(3, 2)], [rb(2)]),
        "one_one_one": N([[[1]], [[1]]], [[0], [0]]),
        "all_zero": N([[[0, 0]] * 3, [[0, 0, 0]]], [[0, 0, 0], [0]]),
        "dead_layer": N([[[1, 1]] * 3, [[1, 1, 1]]], [[-100, -100, -100], [1]]),
        "wide": N([rnd(1, 24), rnd(24, 1)], [rb(24), rb(1)]),
        "multi_output": N([rnd(2, 3), rnd(3, 4)], [rb(3), rb(4)]),
        "dup_rows": N([[[1, 2], [1, 2], [2, 4], [-1, -2]], [[1, 1, 1, 1]]], [[1, 1, 2, -1], [0]]),
        "huge_tiny": N([[[F(10 ** 30), 1], [1, F(1, 10 ** 30)]], [[F(10 ** 20), -1]]],
                       [[F(10 ** 25), 0], [0]]),
        "deep_1d": N([rnd(1, 2), rnd(2, 2), rnd(2, 2), rnd(2, 1)], [rb(2), rb(2), rb(2), rb(1)]),
        "identity": N([[[1, 0], [0, 1]]] * 3, [[0, 0]] * 3),
        "bottleneck": N([rnd(2, 2), rnd(2, 3), rnd(3, 1)], [rb(2), rb(3), rb(1)]),
        "zero_row_bottleneck": N([[[0, 0], [1, 0]], [[0, 0], [0, 1], [1, 1]], [[1, -1, 0]]],
                                 [[0, 1], [0, 0, 0], [0]]),
        "dead_first_Rd": N([[[0, 0], [1, 2], [-1, 1]], [[1, 1, -1]]], [[-1, 1, 0], [0]]),
    }


def commands(f: str, other: str, d: int, tmp: Path, name: str, quick: bool = False) -> list:
    """The commands run on the net in file *f* (*other*: a net of another signature)."""
    T = ["--timeout", "10"]
    x = ",".join(["1/3"] * d)
    box = "0,1"
    cmds = [["info", f], ["eval", "--x", x, f], ["canon", f], ["equiv", f, f, *T],
            ["equiv", f, other, *T], ["fiber", f, *T], ["dim", f, *T], ["identify", f],
            ["conserved", f, "--box", box, *T], ["diff", f, f, "--box", box, *T],
            ["analyze", f, *T],
            ["dim", f, "--certificate", str(tmp / f"{name}_dim.json"), *T],
            ["equiv", f, f, "--certificate", str(tmp / f"{name}_eq.json"), *T]]
    if not quick:
        cmds += [["dim", f, "--box", box, *T], ["symmetries", f, *T],
                 ["equiv", f, f, "--box", box, "--epsilon", "1/100", *T],
                 ["regions", f, "--box", box, *T],
                 ["diff", f, f, "--box", box, "--certificate", str(tmp / f"{name}_diff.json"), *T]]
    return cmds


def check_net(name: str, net: Network, tmp: Path, quick: bool = False) -> list:
    """Findings (one line each) for one odd net."""
    f = tmp / f"{name}.json"
    f.write_text(json.dumps(net.to_dict()))
    other = tmp / "other.json"
    other.write_text(json.dumps(Network.from_rows([[[1]] * 2, [[1, 1]] * 5], [[0, 1], [0] * 5]).to_dict()))
    found = []
    for argv in commands(str(f), str(other), net.n_inputs, tmp, name, quick):
        res = run_cli(argv, seconds=60)
        lines = res.err.strip().splitlines()
        shown = " ".join(Path(a).name if "/" in a else a for a in map(str, argv))
        if res.code in (0, 1, 3):
            if any(w in res.err for w in ("Traceback", "internal error")):
                found.append(f"odd_nets {name}: netfibers {shown} -> exit {res.code} with {lines[-1:]}")
            continue
        if res.code == 2 and len(lines) == 1 and not any(w in lines[0] for w in DISGUISED):
            continue                                   # a one-line refusal
        found.append(f"odd_nets {name}: netfibers {shown} -> exit {res.code}: {res.err.strip()[-300:]}")
    for cert in sorted(tmp.glob(f"{name}_*.json")):
        res = run_cli(["verify", str(cert)], seconds=120)
        if res.code != 0:
            found.append(f"odd_nets {name}: netfibers verify {cert.name} -> exit {res.code}: "
                         f"{(res.out + res.err).strip()[-200:]}")
    return found


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="fewer commands per net")
    args = ap.parse_args(argv)
    findings = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, net in odd_nets(args.seed).items():
            got = check_net(name, net, Path(tmp), args.quick)
            for line in got:
                print(line, flush=True)
            findings += got
            print(f"{name}: {len(got)} findings", flush=True)
    print(f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
