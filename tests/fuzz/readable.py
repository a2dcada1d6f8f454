"""Fuzzer of what a person reads: every human-facing command on networks whose parameters are
long rationals (12-digit numerators over 7-digit denominators, or products of such).

Each output (without ``--json``) must show no number of 16 or more digits (decimals first: long
rationals print as ≈ decimals) and no Python repr (``Dimension(``, ``Hypothesis(``, ``None``,
``fmpq``, ``Fraction(``); with ``--exact`` no ``≈`` may remain (the exact rationals are one flag
away).

Run by hand::

    nice -n 15 python -m tests.fuzz.readable --seed 1 --count 5

``tests/cli/test_fuzz_inputs.py`` runs one seed.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from pathlib import Path

from algebra.network import Network
from algebra.rationals import Q
from tests.fuzz.inputs import run_cli

LONG = re.compile(r"(?<![\w.])-?\d{16,}|\d+/\d{16,}")
REPRS = ("Dimension(", "Hypothesis(", "fmpq", "Fraction(", "Verdict(", " None", "<semialgebraic",
         "<algebra")


def _longq(rng):
    return Q(rng.randint(-10 ** 12, 10 ** 12), rng.randint(10 ** 6, 10 ** 7))


def cases(rng, root: Path):
    """(name, argv lists) over files written to *root*."""
    from tests.cases.bottleneck import planted
    from tests.cases.general import planted_copy
    d = rng.randint(1, 3)
    n = rng.randint(2, 4)
    a = Network.from_rows([[[_longq(rng) for _ in range(d)] for _ in range(n)],
                           [[_longq(rng) for _ in range(n)]]],
                          [[_longq(rng) for _ in range(n)], [_longq(rng)]])
    b = planted_copy(rng, a)
    c = a.with_parameter("b2[0]", a.parameters()[-1] + Q(1, 10 ** 9))
    bn = planted(rng, 2, 2, ["+-|-", "-+|+", rng.choice(["++|-", "+-|+", "--|-"])])
    s1, s2 = _longq(rng), _longq(rng)
    bn = Network.from_rows([[[v * (s1 if l == 0 else 1) for v in r] for r in bn.weights[l].to_rows()]
                            for l in range(3)],
                           [[v * (s1 if l == 0 else 1) for v in bn.biases[l]] for l in range(3)])
    bn2 = planted_copy(rng, bn)
    block = {"format": "netfibers.block", "version": 1, "activation": "relu",
             "w_up": [[str(_longq(rng)) for _ in range(2)] for _ in range(3)],
             "w_down": [[str(_longq(rng)) for _ in range(3)] for _ in range(2)]}
    files = {}
    for name, net in (("a", a), ("b", b), ("c", c), ("bn", bn), ("bn2", bn2)):
        p = root / f"{name}.json"
        p.write_text(json.dumps(net.to_dict()))
        files[name] = p
    (root / "blk.json").write_text(json.dumps(block))
    files["blk"] = root / "blk.json"
    x = ",".join(str(_longq(rng)) for _ in range(d))
    T = ["--timeout", "20"]
    f = files
    return [["info", f["a"]], ["eval", "--x", x, f["a"]], ["canon", f["a"]],
            ["equiv", f["a"], f["b"]], ["equiv", f["a"], f["c"]], ["fiber", f["a"], *T],
            ["dim", f["a"], *T], ["identify", f["bn"]], ["symmetries", f["bn"], *T],
            ["fiber", f["bn"], *T], ["equiv", f["bn"], f["bn2"], *T],
            ["conserved", f["a"], "--box", "0,1", *T], ["diff", f["a"], f["c"], "--box", "0,1", *T],
            ["absorb", f["blk"], *T], ["regions", f["a"], "--box", "0,1", *T],
            ["analyze", f["a"], *T], ["analyze", f["bn"], *T]]


def check_output(argv, exact=False) -> str | None:
    res = run_cli([*argv, "--exact"] if exact else argv, seconds=60)
    if res.code not in (0, 1, 3):
        return f"exit {res.code}: {res.err.strip()[:200]}"
    text = res.out
    problems = []
    if exact:
        if "≈" in text:
            problems.append("≈ left with --exact")
    else:
        long = LONG.findall(text)
        if long:
            problems.append(f"long numbers {long[:2]}")
    reprs = [r for r in REPRS if r in text]
    if reprs:
        problems.append(f"reprs {reprs}")
    return "; ".join(problems) or None


def fuzz(seed: int, count: int, verbose=True):
    rng = random.Random(seed)
    stats = {"outputs": 0}
    failures = []
    for i in range(count):
        with tempfile.TemporaryDirectory() as tmp:
            for argv in cases(rng, Path(tmp)):
                for exact in (False, True):
                    stats["outputs"] += 1
                    problem = check_output(argv, exact)
                    if problem:
                        shown = " ".join(Path(a).name if "/" in str(a) else str(a) for a in argv)
                        failures.append(f"readable seed={seed} case={i}: netfibers {shown}"
                                        f"{' --exact' if exact else ''} -> {problem}")
                        if verbose:
                            print(failures[-1], flush=True)
    return stats, failures


def _main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=3)
    args = ap.parse_args()
    stats, failures = fuzz(args.seed, args.count)
    print(f"{stats['outputs']} outputs, {len(failures)} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(_main())
