"""Command ``recover``: a network recovered from exact queries alone (three-layer-fibers R21).

``netfibers recover NET -o OUT.json [--json] [--seed N] [--lines K] [--timeout SECONDS]``

NET is used only as an opaque oracle (exact rational outputs at rational inputs, every query
counted): :func:`semialgebraic.recover.recover` finds the first-layer bend hyperplanes exactly
and, for a one-hidden-layer network, the whole network up to its function class, written to
OUT.json (atomically).  The recovered network is then certified equal to NET's file by the exact
equivalence decision.  JSON keys: ``hyperplanes`` (``w``, ``c`` with lead(w) = 1), ``alphas``,
``network``, ``first_layer``, ``queries``, ``complete``, ``notes``, ``equal_to_file`` (true / false / null), ``method``,
``output``.  Exit 0 recovered and certified equal, 1 recovered but different (a missed bend),
3 only the bends (not a one-hidden-layer network) or the comparison undecided, 2 bad input.
"""

from __future__ import annotations

from algebra.io.native import write_atomic
from algebra.rationals import Q, to_q

from ..budget import phase
from ..cli import emit, fail
from ..recover import NetworkOracle, recover
from .common import load_network
from .display import SIGNIFICANT, approx, is_small, note, number
from .help import TIMEOUT_HELP, describe

__all__ = ["register", "cmd_recover"]


def register(sub, parent) -> None:
    p = sub.add_parser("recover", parents=[parent],
                       help="recover a network from exact queries alone (R21)",
                       **describe(
                           "Treat NET as a black box that only answers exact queries f(x) at "
                           "rational inputs, recover its first-layer bend hyperplanes exactly "
                           "(three-layer-fibers R21) and, for a one-hidden-layer network, the "
                           "whole network up to its function class; write it to OUT.json, report "
                           "the number of queries and certify the result equal to NET's file "
                           "with the exact equivalence decision.",
                           exits=["0  recovered and certified equal to NET",
                                  "1  recovered network differs from NET (a bend was missed)",
                                  "3  only the bends were recovered (or the budget stopped the "
                                  "search), or the comparison is undecided"],
                           examples=["netfibers recover algebra/examples/r21_shallow.json -o rec.json",
                                     "netfibers recover net.json -o rec.json --json --seed 3"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("-o", "--output", required=True, metavar="OUT.json",
                   help="where to write the recovered network")
    p.add_argument("--seed", type=int, default=0, help="seed of the random lines (default 0)")
    p.add_argument("--lines", type=int, default=2, metavar="K",
                   help="random lines searched for bends (default 2)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help=TIMEOUT_HELP)
    p.set_defaults(func=cmd_recover)


def cmd_recover(args) -> int:
    from ..equivalence import equivalent
    net = load_network(args.net)
    if args.lines < 1:
        fail("--lines must be >= 1")
    if args.timeout is not None and args.timeout <= 0:
        fail(f"--timeout must be > 0 for {args.command} (0 s leaves it nothing to report)")
    oracle = NetworkOracle(net)
    with phase("probing the bends"):
        rec = recover(oracle, net.n_inputs, net.n_outputs, seed=args.seed, lines=args.lines,
                      timeout=args.timeout)
    data = rec.to_json()
    data.update({"equal_to_file": None, "method": None, "output": None})
    code = 3
    if rec.network is not None:
        with phase("deciding that the recovered network equals the file"):
            v = equivalent(rec.network, net)
        data["equal_to_file"], data["method"] = v.answer, v.method
        code = {True: 0, False: 1}.get(v.answer, 3)
        if v.answer is False:           # the probes missed a bend (a hat narrower than they are):
            data["complete"] = False    # the search ran to its end, the recovery is not complete
            data["notes"] = list(data["notes"]) + [
                "the recovered network differs from NET: the probes missed a bend (narrower than "
                "their spacing: more --lines or another --seed may find it; or farther out on "
                "the lines than 4^30 times the last bend seen)"]   # (s52 audit F3)
        elif v.answer is True:          # certified: a skipped break lost no bend (s52 audit F1)
            skipped = [n for n in data["notes"] if n.endswith("skipped")]
            if skipped:
                data["notes"] = [n for n in data["notes"] if not n.endswith("skipped")] + [
                    f"{len(skipped)} break(s) of the search had no clean jump up close and were "
                    "skipped; the network is certified equal to NET, so no bend was lost"]
        try:
            import json
            write_atomic(args.output, json.dumps(rec.network.to_dict(), indent=1) + "\n")
        except OSError as exc:
            fail(f"{args.output}: cannot write: {exc.strerror}")
        data["output"] = args.output
    exact = bool(getattr(args, "exact", False) or getattr(args, "exact_global", False))
    emit(args, data, _text(rec, data, exact))
    return code


_SHORT = 12        # coefficients written term by term; of longer normals the first six


def _shown_scale(w, c, exact: bool):
    """The bend ``w·x + c = 0`` as printed: exact (``--exact``) as recovered, with lead(w) = ±1
    (R21's normalisation, also in --json); else divided by its largest |coefficient|, the same
    hyperplane and side (a digits 64-32-10 net with an always-zero pixel has lead ~1e-37: its
    bends printed as 1.5 kB of ≈ 1e40 coefficients).

    >>> _shown_scale([Q(1), Q(10) ** 40], Q(-5), False)
    ([1/10000000000000000000000000000000000000000, 1], -1/2000000000000000000000000000000000000000)
    >>> _shown_scale([Q(-1), Q(2)], Q(3), True)
    ([-1, 2], 3)
    """
    if exact:
        return list(w), c
    big = max((abs(x) for x in w), default=Q(0))
    return (list(w), c) if big == 0 else ([x / big for x in w], c / big)


def _forms(shown, exact: bool) -> list:
    """The printed equations of the bends ``w·x + c = 0``, with the significant digits that tell
    them apart (up to 40, then exact): bends at x = 5 and 5 + 1e-9 both read
    ``(1)·x0 + (≈ -5.0000) = 0``.

    >>> _forms([([Q(1)], Q(-5)), ([Q(1)], Q(-5000000001, 10 ** 9))], False)
    ['(1)·x0 + (-5) = 0', '(1)·x0 + (≈ -5.000000001) = 0']
    """
    def num(x, k):                         # (k: significant digits, None: the usual, 0: exact)
        if k == 0:
            return number(x, True)
        return number(x, exact) if exact or is_small(x) or k is None else "≈ " + approx(x, k)

    def form(w, c, k):
        lhs = (" + ".join(f"({num(x, k)})·x{i}" for i, x in enumerate(w) if x != 0)
               if len(w) <= _SHORT else
               f"({', '.join(num(x, k) for x in w[:6])}, … ({len(w)} entries; all in "
               "--json)) . x")
        return lhs + f" + ({num(c, k)}) = 0"
    def read(w, c, k):                     # the numbers a reader sees ("≈ -5.0000" is -5)
        return tuple(to_q(num(x, k).removeprefix("≈ "))
                     for x in list(w if len(w) <= _SHORT else w[:6]) + [c])

    def apart(k):
        seen = [read(w, c, k) for w, c in shown]
        return len(set(seen)) == len(seen)
    k = next((k for k in [None] + list(range(SIGNIFICANT + 1, 41)) if apart(k)), False)
    if k is False:                         # the same to 40 digits: the exact rationals
        return [form(w, c, 0) for w, c in shown]
    return [form(w, c, k) for w, c in shown]


def _text(rec, data, exact: bool) -> str:
    lines = [f"{len(rec.hyperplanes)} bend hyperplane(s) recovered from {rec.queries} queries "
             "(three-layer-fibers R21)"]
    values = []
    shown = [_shown_scale(w, c, exact) for w, c in rec.hyperplanes]
    for w, c in shown:
        values += list(w) + [c]
    forms = _forms(shown, exact)
    for form, whole in zip(forms, rec.first_layer):
        lines.append("  " + form + "   "
                     + {True: "[a bend at every probe: a whole hyperplane, as a first layer's]",
                        False: "[local piece of a deeper bend]",
                        None: "[not classified]"}[whole])
    if rec.network is None:
        lines.append("  no one-hidden-layer network recovered; nothing written")
    else:
        verdict = {True: "certified equal to NET", False: "DIFFERENT from NET",
                   None: "comparison undecided"}[data["equal_to_file"]]
        lines.append(f"  network of width {rec.network.widths[1]} written to {data['output']}: "
                     f"{verdict} ({data['method']})")
    lines += [f"  note: {n}" for n in data.get("notes", rec.notes)]
    return "\n".join(lines) + note(values, exact)
