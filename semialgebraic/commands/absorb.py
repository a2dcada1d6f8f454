"""Command ``absorb``: can a block absorb its skip connection (skip-absorption.md)?

``netfibers absorb BLOCK [--activation A] [--skip identity|none|FILE] [--prefix P] [--json]
[--certificate FILE] [--timeout T]`` decides; exit 0 absorbable, 1 not absorbable, 3 undecided /
outside the theory / open problem, 2 input error.

``netfibers absorb --random d,k --trials N --seed S [--activation relu|gelu]`` runs the
measure-zero experiment of Cor. 11 on random wide-range rational blocks and prints the fraction
absorbable with a 95% Wilson score interval.
"""

from __future__ import annotations

from pathlib import Path

from algebra.blocks import Block
from algebra.io.blocks import checkpoint_blocks, load_block
from algebra.exceptions import AlgebraError, InputError
from algebra.io.native import parse_matrix, read_json_text
from algebra.kernel.certificate_schemas import COMPETITOR_BIASES

from ..absorption import absorbable, random_experiment
from ..budget import Budget, answer_kept, ctrl_c_count, phase
from ..certificates import write_certificate
from algebra.activations import supported_activations

from ..cli import emit, fail
from ..verdict import Verdict, witness_text
from . import display
from .common import is_existing_file
from .help import describe

__all__ = ["register", "cmd_absorb"]


def register(sub, parent) -> None:
    p = sub.add_parser("absorb", parents=[parent],
                       help="decide whether a block equals a residual-free block of the same width",
                       **describe(
                           "Decide whether the MLP block BLOCK with its skip connection equals "
                           "exactly, on all inputs, a block of the same width and activation "
                           "without one (skip-absorption R1), with a certificate. With --random "
                           "d,k instead, run the measure-zero experiment on random blocks and "
                           "print the fraction absorbable with a 95% Wilson interval.",
                           exits=["0  absorbable (or the experiment ran)", "1  not absorbable",
                                  "3  undecided, outside the theory, or an open problem (also: "
                                  "--random cut short by --timeout or Ctrl-C: the trials run so "
                                  "far)"],
                           examples=["netfibers absorb algebra/examples/block_B.json",
                                     "netfibers absorb mlp.safetensors --activation gelu "
                                     "--prefix encoder.layer.0.",
                                     "netfibers absorb model.safetensors --activation relu --all",
                                     "netfibers absorb --random 4,8 --trials 100 --seed 1"]))
    p.add_argument("block", nargs="?", metavar="BLOCK", help="block file: netfibers.block JSON, or a state_dict "
                   "(.safetensors/.npz/.pt) with up_proj/down_proj[/gate_proj], fc1/fc2, "
                   "intermediate.dense/output.dense, dense_h_to_4h/dense_4h_to_h, DenseReluDense.wi/wo "
                   "(wi_0/wi_1/wo), c_fc/c_proj (GPT-2) or experts.N.w1/w2/w3 (Mixtral)")
    p.add_argument("--activation", metavar="NAME",
                   help=f"activation, one of {', '.join(supported_activations())} (relu^p: an "
                        "integer 1 <= p <= 64, relu^1 being relu); required for weight files")
    p.add_argument("--skip", help="'identity' (default for weight files), 'none', or a JSON file with "
                   "a d x d matrix (a list of rows or {\"skip\": rows})")
    p.add_argument("--prefix", help="state_dict key prefix choosing one MLP block (e.g. encoder.layer.0.)")
    p.add_argument("--all", action="store_true",
                   help="decide every MLP block of a weight file, in file order, one line each and a "
                        "summary (the --timeout is shared; exit 0 when every block is absorbable, 1 "
                        "when one is not, even in a run cut short, 3 otherwise); --certificate then names a directory, which "
                        "gets one certificate per decided block, PREFIX.json")
    p.add_argument("--certificate", metavar="FILE", help="write the certificate (JSON) here")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS: an unfinished search answers 'undecided' (exit 3)")
    p.add_argument("--max-nullity", type=int, default=16,
                   help="largest nullity r of FIND-S whose 2^r assignments are enumerated (default 16)")
    p.add_argument("--random", metavar="d,k", help="measure-zero experiment on random d x k blocks")
    p.add_argument("--trials", type=int, default=100, help="number of random blocks (with --random)")
    p.add_argument("--seed", type=int, default=0, help="random seed (with --random)")
    p.set_defaults(func=cmd_absorb)


def cmd_absorb(args) -> int:
    if args.random:
        return _cmd_random(args)
    if not args.block:
        fail("absorb needs a BLOCK file (or --random d,k)")
    if args.all:
        return _cmd_all(args)
    budget = Budget(timeout=args.timeout)          # reading BLOCK counts too
    block = _load(args)
    _int_codes(args.block, [args.prefix or ""])
    try:
        with phase("deciding absorption"):
            v = absorbable(block, budget=budget, max_nullity=args.max_nullity)
    except KeyboardInterrupt:                      # Ctrl-C: the partial answer, exit 3
        budget.interrupt()
        v = Verdict(None, "absorb", f"undecided: {budget.reason or 'interrupted (Ctrl-C)'} before a "
                    "decision", ())
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 O2, F7)
        if args.certificate and v.certificate is not None:
            try:
                write_certificate(v.certificate, args.certificate)
            except OSError as exc:
                fail(f"{args.certificate}: cannot write: {exc.strerror}")
        word = {True: "absorbable", False: "not absorbable", None: "undecided"}[v.answer]
        lines = [f"{args.block}: {word} [{v.method}]", f"  {v.reason}"]
        if (v.certificate or {}).get("competitor") == COMPETITOR_BIASES:     # (R1's class has
            lines.append("  compared with: residual-free blocks of the same width with biases "   # none:
                         "b'_up, b'_down (skip-absorption R19)")                    # s47 audit)
        all_s = v.details.get("all_S")
        if all_s:
            lines.append(f"  all S (0-based): {all_s}")
        failed = [h for h in v.hypotheses if h.holds is False]
        for h in failed:               # under a yes: the theorem's, which the construction used
            lines.append(f"  hypothesis not met: {h.name}"   # does not need (new-user audit)
                         + (f" ({witness_text(h.witness)})" if h.witness else "")
                         + (" - not needed by this construction" if v.answer is True else ""))
        unchecked = v.details.get("certificate_checked") is False
        if args.certificate:
            lines.append(f"  certificate: {args.certificate}" if v.certificate is not None
                         else "  no certificate (undecided); nothing written")
        if unchecked:
            lines.append("  (the certificate was not re-checked in-process: no time left in the "
                         "budget; run `netfibers verify` on it)")
        data = v.to_json()
        if unchecked:
            data["certificate_checked"] = False
        absorbing = _absorbing_blocks(v)
        if absorbing is not None:
            data["absorbing_block"] = absorbing
            shown = absorbing if isinstance(absorbing, dict) else None
            if shown is not None and len(shown.get("w_up", ())) * len(shown.get("w_down", ())) <= 64:
                ex = getattr(args, "exact", False)    # long rationals as ≈ decimals (absorb audit)
                lines.append(f"  absorbing block (no skip): W_up' = {_rows(shown['w_up'], ex)}, "
                             f"W_down' = {_rows(shown['w_down'], ex)}"
                             + "".join(f", {key}' = {_rows([shown[key]], ex)}" for key in ("b_up", "b_down")
                                       if key in shown))
                if display.text_needs_note(lines, ex):
                    lines.append(display.EXACT_NOTE)
            else:
                lines.append(f"  absorbing block{' (no skip)' if shown is not None else 's (one per block, no skip)'}: "
                             "--json key 'absorbing_block'"
                             + (" and the certificate" if args.certificate else ""))
        if v.certificate is not None and args.certificate:
            data["certificate"] = args.certificate
        emit(args, data, "\n".join(lines))
        return v.exit_code()


def _cmd_all(args) -> int:
    """``absorb FILE --all``: every MLP block of a weight file (a transformer checkpoint: one per
    layer), decided in file order under one shared budget; each block is read only when its
    turn comes (a large checkpoint is never held whole), the certificates are written at the
    end (nothing is written when a block cannot be read)."""
    path = args.block
    if Path(path).suffix.lower() == ".json":
        fail(f"{path}: --all reads the MLP blocks of a weight file (.safetensors/.npz/.pt); a "
             "netfibers.block JSON file is one block (or one stack): leave --all out")
    if args.prefix is not None:
        fail("--all decides every block; --prefix chooses one: pass one of them")
    if args.activation is None:
        fail(f"{path}: a weight file does not say its activation: pass --activation (e.g. relu, "
             "gelu, swiglu)")
    try:
        found = checkpoint_blocks(path, args.activation)
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(path) in msg else f"{path}: {msg}")
    if args.certificate and Path(args.certificate).exists() and not Path(args.certificate).is_dir():
        fail(f"{args.certificate}: with --all, --certificate names a directory (one certificate "
             "per block), and this is a file")
    _int_codes(path, [b["prefix"] for b in found])
    budget = Budget(timeout=args.timeout)
    seen = ctrl_c_count()
    rows, texts, certs, used = [], [], [], set()
    for b in found:
        prefix = b["prefix"]
        args.prefix = prefix
        if budget.exhausted():
            v = Verdict(None, "absorb", f"undecided: not started: {budget.reason}", ())
        else:
            try:
                block = _load(args)      # (one block's tensors; an unreadable one stops here)
                with phase(f"deciding absorption of {prefix or 'the block'}"):
                    v = absorbable(block, budget=budget, max_nullity=args.max_nullity)
            except KeyboardInterrupt:
                budget.interrupt()
                v = Verdict(None, "absorb", f"undecided: {budget.reason or 'interrupted (Ctrl-C)'} "
                            "before a decision", ())
            except Exception:
                # numpy turns a Ctrl-C in its Python callbacks into another error (a TypeError
                # from a structured-array comparison: s46 Ctrl-C audit F-NUMPY): after a Ctrl-C,
                # any error is its echo
                if ctrl_c_count() == seen:
                    raise
                budget.interrupt()
                v = Verdict(None, "absorb", "undecided: interrupted (Ctrl-C) before a decision", ())
        with answer_kept() as kept:   # this block's row whole; a Ctrl-C in it ends the loop
            word = {True: "absorbable", False: "not absorbable", None: "undecided"}[v.answer]
            stem = (prefix.rstrip('.') or 'block').replace('/', '_').replace('\\', '_')
            if stem in (".", "..") or stem.startswith(".") or len(stem.encode()) > 200:
                stem = f"block{len(rows)}"     # (a file name that cannot be: s44 rerun audit N5)
            name = f"{stem}.json"
            if name.lower() in used:        # two prefixes, one file name ('a/b.', 'a_b.'): the block's
                name = f"{stem}.{len(rows)}.json"                   # index keeps each its own file
            used.add(name.lower())
            if args.certificate and v.certificate is not None:
                certs.append((name, v.certificate))
            row = {"prefix": prefix, "layout": b["layout"], "d": b["d"], "k": b["k"], "verdict": word,
                   **v.to_json()}
            if args.certificate:
                row["certificate"] = str(Path(args.certificate) / name) if v.certificate is not None else None
            rows.append(row)
            texts.append(f"{prefix or '(no prefix)'}: {word} [{v.method}]\n  {v.reason}"
                         + (f"\n  certificate: {row['certificate']}" if args.certificate and
                            row["certificate"] else ""))
        if kept.ctrl_c:
            budget.interrupt()
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 O2, F7)
        args.prefix = None
        if certs:
            try:
                Path(args.certificate).mkdir(parents=True, exist_ok=True)
                for name, cert in certs:
                    write_certificate(cert, str(Path(args.certificate) / name))
            except OSError as exc:
                fail(f"{args.certificate}: cannot write: {exc.strerror}")
        count = {w: sum(r["verdict"] == w for r in rows) for w in ("absorbable", "not absorbable", "undecided")}
        head = (f"{path}: {len(rows)} MLP block{'s' if len(rows) != 1 else ''} ({args.activation}): "
                f"{count['absorbable']} absorbable, {count['not absorbable']} not absorbable, "
                f"{count['undecided']} undecided" + (f" (stopped: {budget.reason})" if budget.reason else ""))
        tail = ([f"certificates: {len(certs)} in {args.certificate}/ (one per decided block, named "
                 "after its prefix: each block's line names its file)"
                 if certs else "no certificate written (no block decided)"] if args.certificate else [])
        code = 1 if count["not absorbable"] else 0 if count["absorbable"] == len(rows) else 3
        data = {"file": str(path), "activation": args.activation, "blocks": rows,
                "absorbable": count["absorbable"], "not_absorbable": count["not absorbable"],
                "undecided": count["undecided"], "answer": {0: True, 1: False, 3: None}[code]}
        if budget.reason:
            data["reason"] = budget.reason
        emit(args, data, "\n".join([head, *texts, *tail]))
        return code


def _int_codes(path, prefixes) -> None:
    """The reading note of int8/uint8 block weights (quantised codes without their scales), on
    stderr, as the network readers give it (s44 blocks audit F8)."""
    import sys
    from algebra.io.arrays import int_code_dtypes, int_codes_note
    if Path(path).suffix.lower() == ".json":
        return
    dtypes = int_code_dtypes(path, prefixes)
    if dtypes:
        print(f"netfibers: note: {path}: {int_codes_note(dtypes, 'block')}", file=sys.stderr)


def _absorbing_blocks(v):
    """The residual-free block(s) equal to the given one, from the certificate's witness (a
    ``netfibers.block`` dict; a list of them, one per block, for a stack); None when not absorbable."""
    if v.answer is not True or v.certificate is None:
        return None
    witness = v.certificate.get("witness") or {}
    if "absorbing_block" in witness:
        return witness["absorbing_block"]
    blocks = [w.get("absorbing_block") for w in witness.get("blocks", ())]
    if blocks and all(b is not None for b in blocks):
        return blocks
    block = v.certificate.get("block")
    if isinstance(block, dict) and block.get("skip") == "none":
        return block   # already residual-free: the block itself
    if isinstance(block, dict) and witness.get("kind") == "skip_zero":
        return {**block, "skip": "none"}   # a zero skip matrix: the block without it (s41 absorb audit)
    return None


def _rows(matrix, exact: bool = True) -> str:
    return "[" + "; ".join(", ".join(display.number(x, exact) for x in row) for row in matrix) + "]"


def _load(args):
    path = args.block
    try:
        is_json = Path(path).suffix.lower() == ".json"
        skip = _parse_skip(args.skip) if args.skip else ("identity" if not is_json else None)
        matrix = skip is not None and not isinstance(skip, str)
        block = load_block(path, activation=args.activation,
                           skip="identity" if matrix or skip is None else skip, prefix=args.prefix)
        shape = (len(skip), len(skip[0]) if skip else 0) if matrix else None
        if matrix and isinstance(block, Block) and shape != (block.d, block.d):
            # name the --skip file, not the block, as the file with the wrong shape
            raise InputError(f"skip has shape {shape[0]}x{shape[1]}, but the block "
                             f"{Path(path).name} has d = {block.d} (expected {block.d}x{block.d})",
                             args.skip)
        if (is_json or matrix) and skip is not None:
            if not isinstance(block, Block):
                raise InputError("--skip applies to a single block, not to a stack or a "
                                 "Hyper-Connection block", path)
            block = block.replace(skip=skip)
        return block
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(path) in msg or (args.skip and args.skip in msg) else f"{path}: {msg}")


def _parse_skip(text: str):
    if text in ("identity", "none"):
        return text
    p = Path(text)
    if not is_existing_file(text):
        raise InputError("--skip is 'identity', 'none' or an existing JSON file with a matrix", text)
    data = read_json_text(p)
    if isinstance(data, dict):
        if "skip" not in data:
            raise InputError("expected a list of rows or an object with 'skip'", text)
        data = data["skip"]
    if isinstance(data, str) and data in ("identity", "none"):
        return data
    return parse_matrix(data, "skip", text)


def _cmd_random(args) -> int:
    try:
        d, k = (int(t) for t in args.random.split(","))
    except ValueError:
        fail(f"--random: expected d,k (two integers), got {args.random!r}")
    if d < 1 or k < 1:
        fail("--random: d and k must be positive")
    if args.trials < 1:
        fail("--trials must be positive")
    act = args.activation or "relu"
    if act not in ("relu", "gelu"):
        fail(f"--random supports --activation relu or gelu, not {act!r}")
    r = random_experiment(d, k, args.trials, args.seed, act, timeout=args.timeout)
    lo, hi = r["wilson_95"]
    frac = r["fraction"]
    text = (f"d={d}, k={k}, {act}, {args.trials} random blocks (seed {args.seed}; {r['distribution']}):\n"
            f"  absorbable {r['absorbable']}, not absorbable {r['not_absorbable']}, undecided {r['undecided']}\n"
            f"  fraction absorbable {frac if frac is not None else 'n/a'}"
            f" (95% Wilson interval [{lo}, {hi}])")
    if not r["complete"]:               # the budget or Ctrl-C: the trials decided so far
        text += (f"\n  partial: {r['trials_run']} of {args.trials} trials run ({r['reason']}); "
                 "the interval is over those")
    emit(args, r, text)
    return 0 if r["complete"] else 3
