"""Commands ``canon``, ``apply`` and ``verify`` (one hidden layer; symmetry steps; certificates).

* ``netfibers canon NET [--orthant] [--json] [-o OUT.json|OUT.npz|OUT.safetensors] [--form F]``: the
  canonical form of a one-hidden-layer net (kink hyperplanes with kink vectors, affine part) and
  its fingerprint; ``-o`` writes the canonical representative network (dedup of model zoos:
  equal fingerprints ⇔ equal functions).  The representative has one neuron per kink plus
  ± pairs realising the affine part, so it may be wider than the input (the JSON key
  ``representative_widths`` says so).  Binary writers refuse weights that are not exactly
  representable.  JSON keys: ``fingerprint``, ``domain``, ``canonical_form``,
  ``number_of_kinks``, ``linear_rank``, ``representative_widths``, ``output`` (and ``form``).
  A form of at least ``SIDECAR_THRESHOLD`` numbers (a 784-4096 net: 3.3 M, 84 MB of JSON) is
  given in ``--json`` as a summary, like :meth:`~semialgebraic.verdict.Verdict.to_json`
  (``"summary": true``, sizes, the ``sha256`` of its canonical JSON, whose first 16 hex digits
  are the fingerprint); ``--form F`` writes the full form (canonical JSON, any size).  The text
  output prints at most 20 kinks and the first entries of long vectors.
* ``netfibers apply STEPS.json NET -o OUT.json``: apply a JSON list of symmetry steps
  (``algebra.symmetries``), each checked first; an invalid step is an input error naming it.
* ``netfibers verify CERT [A [B]] [--json]``: re-check a certificate from its content alone (exit
  0 valid, 1 claim broken with the reason, 2 malformed); with A (and B) also check that the
  embedded inputs are exactly these files.
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from algebra import save
from algebra.exceptions import AlgebraError, InvalidStepError
from algebra.io.native import read_json_text, write_atomic
from algebra.symmetries import apply_path, path_from_json

from ..certificates._json import SIDECAR_THRESHOLD
from ..cli import emit, fail
from ..exceptions import NotApplicableError
from ..shallow import canonical_form
from ..shallow.canonical import _affine_neurons
from ..verify import check_inputs_match, resolve_sidecar, verify
from . import display
from .help import describe
from .common import check_output_dir, load_any, load_certificate, load_network
from ..budget import Budget, alarm_at, phase

__all__ = ["register"]


def register(sub, parent) -> None:
    p = sub.add_parser("canon", parents=[parent],
                       help="canonical form and fingerprint of a one-hidden-layer net",
                       **describe(
                           "Compute the canonical form of a one-hidden-layer network NET: its "
                           "kink hyperplanes with their kink vectors and its affine part, and a "
                           "fingerprint (equal fingerprints <=> equal functions, e.g. to "
                           "de-duplicate a model zoo). -o writes the canonical representative "
                           "network: one neuron per kink plus +/- pairs for the affine part, so "
                           "it may be wider than NET. JSON keys: fingerprint, domain, "
                           "canonical_form, number_of_kinks, linear_rank, representative_widths, "
                           "output; a large canonical_form is a summary with its sha256, and "
                           "--form FILE writes it in full (compact JSON with sorted keys, the "
                           "bytes hashed: sha256sum FILE gives the summary's sha256).",
                           exits=["0  computed", "2  also: NET does not have one hidden layer",
                                  "3  the timeout or Ctrl-C stopped it first (nothing written)"],
                           examples=["netfibers canon net.json",
                                     "netfibers canon net.json --orthant -o canonical.json",
                                     "netfibers canon big.safetensors --json --form form.json"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--orthant", action="store_true",
                   help="canonical form on the closed orthant (the tail of a bottleneck)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write the canonical representative (.json, .npz or .safetensors); one "
                        "neuron per kink plus ± pairs for the affine part, so it may be wider "
                        "than NET; its rows are scaled to a leading entry ±1, which float "
                        "weights rarely stay as floats: .json holds it exactly, a binary file "
                        "only when every number is a float of its dtype (else exit 2, nothing "
                        "written)")
    p.add_argument("--form", metavar="FILE",
                   help="write the full canonical form as JSON to FILE (--json gives a large "
                        "form as a summary with its sha256)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (exit 3, nothing written; reading NET counts)")
    p.set_defaults(func=cmd_canon)

    p = sub.add_parser("apply", parents=[parent], help="apply a JSON list of symmetry steps",
                       **describe(
                           "Apply the symmetry steps of STEPS (a JSON list, or an object with "
                           "'steps') to NET in order and write the result to OUT; each step's "
                           "hypotheses are checked exactly first, and an invalid step is refused "
                           "by name (nothing written).",
                           exits=["0  written", "2  also: a step is invalid for NET"],
                           examples=["netfibers apply steps.json net.json -o moved.json"]))
    p.add_argument("steps", metavar="STEPS")
    p.add_argument("net", metavar="NET")
    p.add_argument("-o", "--output", required=True, metavar="OUT", help="output network")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (exit 3, nothing written; reading the files counts)")
    p.set_defaults(func=cmd_apply)

    p = sub.add_parser("verify", parents=[parent], help="re-check a certificate",
                       **describe(
                           "Re-check the certificate CERT from its content alone, with code "
                           "independent of the code that produced it. With A (and B), also check "
                           "that the networks or block embedded in CERT are exactly these files.",
                           exits=["0  valid (with --epsilon E: and it proves max |a - b| <= E)",
                                  "1  the claim is broken (the reason is printed); with --epsilon "
                                  "E: or valid and it proves max |a - b| > E",
                                  "2  malformed certificate or input, or an input file that is "
                                  "not the network the certificate is about",
                                  "3  --timeout or Ctrl-C stopped the check (nothing decided); "
                                  "with --epsilon E: or valid and its numbers leave E open"],
                           examples=["netfibers verify cert.json",
                                     "netfibers verify cert.json a.json b.json",
                                     "netfibers verify diff_cert.json --epsilon 1e-3"]))
    p.add_argument("certificate", metavar="CERT")
    p.add_argument("inputs", nargs="*", metavar="A", help="A [B]: the original inputs (one or two files)")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop the check after SECONDS (exit 3, neither valid nor broken)")
    p.add_argument("--epsilon", metavar="E",
                   help="also ask whether the (valid) certificate proves max |a - b| <= E on its "
                        "domain, E exact as written (0.1 is 1/10): exit 0 it does (a bound <= E, "
                        "or a = b), 1 it shows a point above E, 3 its numbers leave E open")
    p.set_defaults(func=cmd_verify)


def cmd_canon(args) -> int:
    budget = Budget(timeout=args.timeout)          # reading NET counts too
    check_output_dir(args.output, "-o")            # before any work: nothing half-written
    check_output_dir(args.form, "--form")
    net = load_network(args.net)
    end = None if args.timeout is None else time.monotonic() + budget.remaining()
    try:
        # an alarm at the deadline (the form's export and the representative's writing are
        # long Python loops: 768-3072 takes 30 s): stopped, nothing is written (save is atomic;
        # the form, computed before, is written after the alarm)
        with budget.active(), alarm_at(end, "canon"):
            cf, form, text, digest = _canonical(net, args)
    except KeyboardInterrupt:                      # BudgetExhausted (the deadline) or Ctrl-C
        budget.exhausted()
        why = ("interrupted (Ctrl-C)" if budget.interrupted or args.timeout is None else
               budget.reason or f"timeout of {args.timeout:g} s reached")
        emit(args, {"fingerprint": None, "complete": False, "reason": why, "output": None},
             f"{why} before the canonical form was complete; nothing written")
        return 3
    fingerprint = digest[:16]             # = cf.fingerprint() (semialgebraic.canonical.json_fingerprint)
    widths = _representative_widths(cf)
    entries = cf.number_of_kinks * (cf.n_inputs + 1 + cf.n_outputs) + cf.n_outputs * (cf.n_inputs + 1)
    if entries >= SIDECAR_THRESHOLD:      # like Verdict.to_json: a summary, the full form on request
        shown_form = {"format": "netfibers.canonical_form", "summary": True, "domain": cf.domain,
                      "n_inputs": cf.n_inputs, "n_outputs": cf.n_outputs,
                      "number_of_kinks": cf.number_of_kinks, "numbers": entries,
                      "sha256": digest, "file": args.form}
    else:
        shown_form = form
    data = {"fingerprint": fingerprint, "domain": cf.domain, "canonical_form": shown_form,
            "number_of_kinks": cf.number_of_kinks, "linear_rank": cf.linear.rank(),
            "representative_widths": widths, "output": args.output}
    if args.form:
        data["form"] = args.form
    if args.form:
        try:
            write_atomic(args.form, text)     # (its bytes are what sha256 hashes: sha256sum
                                              # FILE gives the summary's; s52 docs audit F10)
        except AlgebraError as exc:
            fail(str(exc))
    lines = [f"fingerprint {fingerprint} ({cf.domain})",
             f"{cf.number_of_kinks} kink hyperplane(s); affine part of rank {cf.linear.rank()}"]
    ex, shown = args.exact, list(cf.offset)
    for u, beta, K in cf.kinks[:_SHOWN]:
        sign = "-" if beta < 0 else "+"          # ("… . x + -1 = 0": s43 docs audit)
        lines.append(f"  kink on {_form_dot(u, ex)} {sign} {display.number(abs(beta), ex)} = 0 : "
                     f"[{_vector(K, ex)}]")
        shown += [*u[:_SHOWN], beta, *K[:_SHOWN]]
    if cf.number_of_kinks > _SHOWN:
        lines.append(f"  … {cf.number_of_kinks - _SHOWN} more (--form FILE writes them all)")
    A = cf.linear.to_rows()
    shown += [v for row in A[:_SHOWN] for v in row[:_SHOWN]]
    if cf.n_inputs <= _SHOWN:                  # one line, as always for small nets
        atext = "[" + "; ".join(_vector(row, ex) for row in A[:_SHOWN]) + \
            (f"; … {len(A) - _SHOWN} more rows" if len(A) > _SHOWN else "") + "]"
        lines.append(f"affine part: A = {atext}, c = [{_vector(cf.offset, ex)}]")
    else:                                      # long rows: one line each
        lines.append("affine part: A x + c with rows of A")
        lines += [f"  [{_vector(row, ex)}]" for row in A[:_SHOWN]]
        if len(A) > _SHOWN:
            lines.append(f"  … {len(A) - _SHOWN} more rows")
        lines.append(f"  c = [{_vector(cf.offset, ex)}]")
    if args.output:
        lines.append(f"wrote the canonical representative (widths "
                     f"{'-'.join(map(str, widths))}) to {args.output}")
    if args.form:
        lines.append(f"wrote the canonical form ({entries} numbers, sha256 {digest[:16]}…) to "
                     f"{args.form}")
    from algebra.io.nnet import nnet_normalisation
    if nnet_normalisation(net) is not None:   # (two files of one weight set and different means
        data["input_space"] = "normalised"    # share a fingerprint: session-38 tools audit)
        lines.append("note: a .nnet file's raw weight network (normalised inputs and outputs): "
                     "files that normalise differently can share a fingerprint and define "
                     "different maps; `netfibers info` shows the normalisation")
    emit(args, data, display.with_roundings(data, "\n".join(lines) + display.note(shown, ex), net))
    return 0


_SHOWN = 20        # kinks, and entries of a vector, printed in the text output


def _canonical(net, args) -> tuple:
    """``(cf, form, text, digest)``: the canonical form, its JSON, canonical text and sha256;
    with ``-o``, the representative is written (atomically) too."""
    try:
        with phase("the canonical form"):
            cf = canonical_form(net, orthant=args.orthant)
    except NotApplicableError as exc:
        fail(f"{args.net}: {exc}")
    with phase("the canonical form's export and fingerprint"):
        form = cf.to_json()               # once: the fingerprint hashes it (3 M numbers at 784-4096)
        text = json.dumps(form, sort_keys=True, separators=(",", ":"))
        digest = hashlib.sha256(text.encode()).hexdigest()
    if args.output:
        try:
            with phase(f"writing {args.output}"):
                save(cf.representative(), args.output)
        except AlgebraError as exc:
            hint = ("; the representative's rows are scaled to a leading entry ±1, rarely a "
                    "binary float: write it as .json (exact rationals)"
                    if "is not exactly representable" in str(exc) else "")
            fail(str(exc) + hint)
    return cf, form, text, digest


def _vector(values, exact: bool) -> str:
    """``a, b, c`` (:func:`display.numbers`), or its first few entries and ``… (N entries)``."""
    if len(values) <= _SHOWN:
        return display.numbers(values, exact)
    return f"{display.numbers(values[:8], exact)}, … ({len(values)} entries)"


def _form_dot(u, exact: bool) -> str:
    """``u . x`` for a kink normal: :func:`display.dot` when short or sparse, else its first
    entries (a dense 784-vector of exact rationals is not readable)."""
    if len(u) <= _SHOWN or sum(1 for v in u if v != 0) <= _SHOWN:
        return display.dot(u, "x", exact)
    return f"u . x with u = ({_vector(u, exact)})"


def _representative_widths(cf) -> list:
    """Widths of ``cf.representative()`` without building it: one neuron per kink plus the
    affine neurons (at least one)."""
    hidden = cf.number_of_kinks + len(_affine_neurons(cf.linear, orthant=cf.domain == "orthant"))
    return [cf.n_inputs, max(hidden, 1), cf.n_outputs]


def cmd_apply(args) -> int:
    try:
        data = read_json_text(Path(args.steps))
    except AlgebraError as exc:
        fail(str(exc))
    if isinstance(data, dict) and "steps" in data:
        data = data["steps"]
    try:
        steps = path_from_json(data)
    except AlgebraError as exc:
        fail(f"{args.steps}: {exc}")
    net = load_network(args.net)
    try:
        out = apply_path(net, steps)
    except InvalidStepError as exc:
        fail(f"{args.steps}: {exc}")
    except AlgebraError as exc:
        fail(f"{args.steps}: {exc}")
    try:
        save(out, args.output)
    except AlgebraError as exc:
        fail(str(exc))
    orthant = _declares_orthant(data)
    emit(args, {"steps": len(steps), "output": args.output, "widths": list(out.widths),
                "domain": "orthant" if orthant else "R^d"},
         f"applied {len(steps)} step(s); wrote {args.output} (widths "
         f"{'-'.join(map(str, out.widths))})"
         + ("; it equals the input on the closed orthant only (a step at hidden layer 0 "
            "declares domain 'orthant')" if orthant else ""))
    return 0


def _declares_orthant(steps) -> bool:
    """True if a step (or a sub-step of a composite) acts at hidden layer 0 on the orthant only."""
    for s in steps if isinstance(steps, list) else ():
        if isinstance(s, dict) and ((s.get("domain") == "orthant" and s.get("layer", 0) == 0)
                                    or _declares_orthant(s.get("steps"))):
            return True
    return False


def _verify_input(cert: dict, key: str, path: str):
    """The file given for the certificate's embedded input *key*: a block's weight file (npz,
    safetensors, pt: no activation of its own) is read with the embedded block's activation and
    skip (the skip is the command's, not the file's), anything else by :func:`load_any`.  A
    binary fc1/fc2 block was read as a two-layer network and called different from its
    certificate (an outsider's acceptance test, session 31)."""
    emb = cert.get(key)
    if not (isinstance(emb, dict) and emb.get("format") == "netfibers.block") or \
            Path(path).suffix.lower() == ".json":
        return load_any(path)
    from algebra.blocks import Block
    from algebra.io.blocks import block_from_dict, load_block
    try:
        given = block_from_dict(emb, source=f"certificate[{key}]")
        obj = load_block(path, activation=emb.get("activation"), skip="identity")
    except AlgebraError as exc:
        msg = str(exc)
        fail(msg if str(path) in msg else f"{path}: {msg}")
    return obj.replace(skip=given.skip) if isinstance(obj, Block) and isinstance(given, Block) else obj


def _nnet_readings(objs: dict) -> list:
    """The readings of the given inputs a certificate may be about, ``(clause, {key: object})``:
    the files as read; a ``.nnet`` file also as the map it defines on raw inputs and outputs
    (its normalisation composed in: ``batch dedup``'s reading); two ``.nnet`` files that normalise
    differently as ``equiv`` reads them (the second's map in the first's normalised units) —
    and then never as their raw weight networks, which act on different coordinates (a
    certificate about one weight set was called VALID for two files of different maps: the
    session-38 tools audit)."""
    from algebra.io.nnet import nnet_common_units, nnet_normalisation, nnet_raw
    from algebra.network import Network
    norms = {k: nnet_normalisation(o) if isinstance(o, Network) else None for k, o in objs.items()}
    if not any(v is not None for v in norms.values()):
        return [("", objs)]
    both = len(objs) == 2 and None not in norms.values()
    out = [] if both and norms["a"] != norms["b"] else [
        ("; the .nnet file(s) read as raw weight networks (normalised inputs and outputs)", objs)]
    out.append(("; the .nnet files read as the maps they define (normalisation composed in)",
                {k: nnet_raw(o) if norms[k] is not None else o for k, o in objs.items()}))
    if both and norms["a"] != norms["b"]:
        a, b, _ = nnet_common_units(objs["a"], objs["b"])
        out.append(("; the .nnet files compared in the normalised units of the first", {"a": a, "b": b}))
    return out


READ_RATE = 10e6
"""Bytes a second at which ``verify`` is assumed to read a certificate's JSON (measured 11-15 MB/s
on a loaded machine, ~20 idle: integers, rationals, decimals).  The parse is one call no alarm
stops, so a file whose reading at this rate does not fit ``--timeout`` is not read: UNCHECKED,
exit 3 at once (a 177 MB certificate spent 11.3 s reading at ``--timeout 5``: s40 forge audit).
Conservative on purpose: the check of such a file takes longer than its reading anyway."""


def _unreadable_in_time(args) -> str | None:
    """Why the certificate cannot be read within ``--timeout`` (its size at :data:`READ_RATE`),
    or None."""
    try:
        size = Path(args.certificate).stat().st_size
    except OSError:
        return None                            # (load_certificate names the problem)
    if args.timeout is None or size / READ_RATE <= args.timeout:
        return None
    return (f"reading its {size / 1e6:.0f} MB takes about {size / READ_RATE:.0f} s (one call no "
            f"timeout stops), past the timeout of {args.timeout:g} s")


_EQUAL = {"symmetry_path", "region_cover", "on_box"}
"""Types whose every claim says a and b compute the same function on the certificate's domain
(its maximum deviation is 0 there)."""
_ABOUT_A_AND_B = _EQUAL | {"counterexample", "bab_bound", "bab_cover", "bab_recession"}
"""Types whose numbers may show something of ``max |a − b|`` (``verify --epsilon``)."""


def _epsilon_verdict(cert: dict, eps, pair=None) -> tuple[bool | None, str]:
    """What a VALID certificate shows of ``max_o max_x |a_o − b_o| <= eps`` on its domain: True
    (a = b there, or its certified upper bound is <= eps), False (a point it certifies, or its
    +inf claim, is above eps), None (its numbers show neither), with the sentence saying which
    number showed it.  From the certified numbers only: a bound certificate's ``upper`` counts
    only under its upper-bound claim, its ``lower`` only with the ``point`` the checker
    evaluated, a counterexample's deviation from the outputs ``a_x``, ``b_x`` it re-computed.
    *pair* writes a compared pair of numbers (default exact; the text uses digits that tell them
    apart: "≈5.0542e-5 > ≈5.0542e-5" was printed for 5.05422e-5 > 5.0542e-5, s48 realuse audit)."""
    from algebra.rationals import to_q
    pair = pair or (lambda u, w: (str(u), str(w)))
    kind, claim = cert.get("type"), str(cert.get("claim", ""))
    if kind in _EQUAL:
        return True, f"a = b on its domain ({claim}): max |a - b| = 0 <= {eps}"
    if kind == "counterexample":
        if "a_x" not in cert:
            return None, "a and b have different signatures: no deviation to compare"
        dev = max((abs(to_q(u) - to_q(v)) for u, v in zip(cert["a_x"], cert["b_x"])), default=None)
        if dev is not None and dev > eps:
            return False, "|a - b| = {} > {} at its point".format(*pair(dev, eps))
        return None, f"its point's deviation {dev} is <= {eps}: it shows nothing of the maximum"
    if kind not in _ABOUT_A_AND_B:
        return None, f"a {kind} certificate says nothing of max |a - b|"
    if "= +inf" in claim:
        return False, f"sup |a - b| = +inf > {eps} on its domain"
    lower = None if cert.get("point") is None or cert.get("lower") is None else to_q(cert["lower"])
    if lower is not None and lower > eps:
        return False, "max |a - b| >= {} > {} (attained at its point)".format(*pair(lower, eps))
    upper = (to_q(cert["upper"]) if "<= upper" in claim and cert.get("upper") not in (None, "inf")
             else None)
    if upper is not None and upper <= eps:
        return True, "max |a - b| <= {} <= {} on its domain".format(*pair(upper, eps))
    shown = [f"{n} {v}" for n, v in (("lower", lower), ("upper", upper)) if v is not None]
    verb = "leaves" if len(shown) == 1 else "leave"
    return None, f"its certified {' and '.join(shown) or 'numbers'} {verb} {eps} open"


def _epsilon_answer(cert: dict) -> bool | None:
    """What a valid certificate carrying the ε of ``equiv --epsilon`` (``epsilon``) shows of it
    (:func:`_epsilon_verdict`; an ε edited below the certified maximum left ``answer`` true, which
    a script could read as ε-equivalence: s41 equivhunt audit)."""
    from algebra.rationals import to_q
    try:
        return _epsilon_verdict(cert, to_q(cert["epsilon"]))[0]
    except (AlgebraError, TypeError, ValueError, KeyError):
        return None


def _malformed(exc) -> str:
    """``malformed certificate: <why>``, said once (``verify()`` already says it of a number
    that is not one: "malformed certificate: malformed certificate: 'inf' …", s42 forge5)."""
    text = str(exc)
    return text if text.startswith("malformed certificate") else f"malformed certificate: {text}"


def cmd_verify(args) -> int:
    from algebra.rationals import CERTIFICATE_DIGITS, digit_limit
    # the certificate's exact values, derived from the weights, can be longer than the weights'
    # own digit limit: read (checked, compared, printed) with the checker's (s54)
    with digit_limit(CERTIFICATE_DIGITS):
        return _cmd_verify(args)


def _cmd_verify(args) -> int:
    start = time.monotonic()                   # reading CERT counts too
    eps = None
    if getattr(args, "epsilon", None) is not None:
        from algebra.rationals import to_q
        try:
            eps = to_q(args.epsilon)
        except (AlgebraError, TypeError, ValueError) as exc:
            fail(f"--epsilon: {exc}")
        if eps < 0:
            fail("--epsilon must be >= 0")
    late = _unreadable_in_time(args)
    if late is not None:
        emit(args, {"answer": None, "valid": None, "reason": f"not read: {late}", "type": None,
                    "method": "verify", "hypotheses": [], "certificate": args.certificate},
             f"UNCHECKED certificate {args.certificate}: not read: {late}")
        return 3
    cert = load_certificate(args.certificate)
    if len(args.inputs) > 2:
        fail("verify takes at most two inputs (A B)")
    try:
        cert = resolve_sidecar(cert, args.certificate)   # the binary payload of a large one
    except AlgebraError as exc:
        fail(f"{args.certificate}: {_malformed(exc)}")
    if eps is not None and cert.get("type") not in _ABOUT_A_AND_B:
        fail(f"{args.certificate}: --epsilon asks about max |a - b|: a {cert.get('type')} "
             f"certificate is not about two networks a and b")
    end = None if args.timeout is None else start + args.timeout
    fired: list = []
    try:
        with phase(f"checking the {cert.get('type')} certificate"), \
                alarm_at(end, "the check") as fired:
            ok, why = verify(cert)
        if fired:                              # a check the alarm reached is never trusted
            raise KeyboardInterrupt
    except KeyboardInterrupt:                  # the alarm (BudgetExhausted) or Ctrl-C
        why = (f"timeout of {args.timeout:g} s reached" if fired or (
            end is not None and time.monotonic() >= end) else "interrupted (Ctrl-C)")
        emit(args, {"answer": None, "valid": None, "reason": f"{why} before the check ended",
                    "type": cert.get("type"), "method": "verify", "hypotheses": [],
                    "certificate": args.certificate},
             f"UNCHECKED {cert.get('type')} certificate: {why} before the check ended")
        return 3
    except AlgebraError as exc:
        fail(f"{args.certificate}: {_malformed(exc)}")
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        fail(f"{args.certificate}: malformed certificate: {type(exc).__name__}: {exc}")
    if ok and args.inputs:
        single = next((k for k in ("block", "network") if k in cert and "a" not in cert), None)
        if single is not None and len(args.inputs) != 1:
            fail(f"a {cert.get('type')} certificate embeds one input ({single!r}): give one file")
        keys = [single] if single is not None else ["a", "b"]
        objs = {k: _verify_input(cert, k, p) for k, p in zip(keys, args.inputs)}
        try:
            first = None               # the mismatch of the first reading (the files as read):
            for reading, given in _nnet_readings(objs):   # a later one's named the wrong file
                same, why2 = check_inputs_match(cert, given)   # (a with B wrong: s42 nearcopy)
                if same:
                    why += reading
                    break
                first = first or why2
            why2 = first if not same else why2
        except AlgebraError as exc:
            fail(f"{args.certificate}: {_malformed(exc)}")
        if not same:                   # a valid certificate about other files: an input problem
            path = dict(zip(keys, args.inputs)).get(why2.split("'")[1] if "'" in why2 else "", "")
            fail(f"{path or args.certificate}: not the network the certificate is about "
                 f"({why2}); the certificate itself is valid")
        if len(objs) < len(keys):      # one file for an a/b certificate: b is not compared
            why += f"; {args.inputs[0]} is its a (its b was not compared: give B too)"
    data = {"answer": ok, "valid": ok, "reason": why, "type": cert.get("type"),
            "method": "verify", "hypotheses": [], "certificate": args.certificate}
    if ok and cert.get("epsilon") is not None:
        data["epsilon_answer"] = _epsilon_answer(cert)
    shown = display.in_sentence(why, getattr(args, "exact", False))   # long rationals as ≈ decimals
    text = f"{'VALID' if ok else 'BROKEN'} {cert.get('type')} certificate: {shown}"
    code, abbreviated = (0 if ok else 1), shown != why
    if eps is not None and ok:                 # the question of --epsilon E, from certified numbers
        answer, how = _epsilon_verdict(cert, eps)
        data.update({"epsilon": str(eps), "epsilon_answer": answer, "epsilon_reason": how})
        code = {True: 0, False: 1, None: 3}[answer]
        typed = str(args.epsilon).strip()              # the user's spelling (25271/500000000 was
        if len(typed) > 40:                            # (a 10 000-digit E was echoed whole)
            # with the digits that tell it from the certified number compared ("max > ≈ 1.0000e-9"
            # beside "max <= 1/10^9" for E = 1/10^9 - 10^-30: s50 audit F3)
            ref = cert.get("lower") if answer is False else cert.get("upper") if answer else None
            try:
                ref = None if ref in (None, "inf") else to_q(ref)
            except AlgebraError:
                ref = None
            typed = (display.apart(ref, eps, getattr(args, "exact", False))[1]
                     if ref is not None and ref != eps else
                     display.number(eps, getattr(args, "exact", False)))
        said = {True: f"it proves max |a - b| <= {typed}",          # printed for 5.0542e-5)
                False: f"it proves max |a - b| > {typed}",
                None: f"it does not decide max |a - b| <= {typed}"}[answer]
        exact = getattr(args, "exact", False)
        shown2 = display.in_sentence(_epsilon_verdict(cert, eps, lambda u, w: display.apart(u, w, exact))[1],
                                     exact)
        text += f"\n{said}: {shown2}"
        abbreviated = abbreviated or shown2 != how
    emit(args, data, text + (f"\n{display.EXACT_NOTE}" if abbreviated else ""))
    return code
