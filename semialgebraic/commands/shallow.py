"""Commands ``canon``, ``apply`` and ``verify`` (one hidden layer; symmetry steps; certificates).

* ``netfibers canon NET [--orthant] [--json] [-o OUT.json|OUT.npz|OUT.safetensors]``: the
  canonical form of a one-hidden-layer net (kink hyperplanes with kink vectors, affine part) and
  its fingerprint; ``-o`` writes the canonical representative network (dedup of model zoos:
  equal fingerprints ⇔ equal functions).  The representative has one neuron per kink plus
  ± pairs realising the affine part, so it may be wider than the input (the JSON key
  ``representative_widths`` says so).  Binary writers refuse weights that are not exactly
  representable.  JSON keys: ``fingerprint``, ``domain``, ``canonical_form``,
  ``number_of_kinks``, ``linear_rank``, ``representative_widths``, ``output``.
* ``netfibers apply STEPS.json NET -o OUT.json``: apply a JSON list of symmetry steps
  (``algebra.symmetries``), each checked first; an invalid step is an input error naming it.
* ``netfibers verify CERT [A [B]] [--json]``: re-check a certificate from its content alone (exit
  0 valid, 1 claim broken with the reason, 2 malformed); with A (and B) also check that the
  embedded inputs are exactly these files.
"""

from __future__ import annotations

from pathlib import Path

from algebra import save
from algebra.exceptions import AlgebraError, InvalidStepError
from algebra.io.native import read_json_text
from algebra.symmetries import apply_path, path_from_json

from ..cli import emit, fail
from ..exceptions import NotApplicableError
from ..shallow import canonical_form
from ..verify import check_inputs_match, resolve_sidecar, verify
from . import display
from .help import describe
from .common import load_any, load_certificate, load_network

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
                           "output.",
                           exits=["0  computed", "2  also: NET does not have one hidden layer"],
                           examples=["netfibers canon net.json",
                                     "netfibers canon net.json --orthant -o canonical.json"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--orthant", action="store_true",
                   help="canonical form on the closed orthant (the tail of a bottleneck)")
    p.add_argument("-o", "--output", metavar="OUT",
                   help="write the canonical representative (.json, .npz or .safetensors); one "
                        "neuron per kink plus ± pairs for the affine part, so it may be wider "
                        "than NET")
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
    p.set_defaults(func=cmd_apply)

    p = sub.add_parser("verify", parents=[parent], help="re-check a certificate",
                       **describe(
                           "Re-check the certificate CERT from its content alone, with code "
                           "independent of the code that produced it. With A (and B), also check "
                           "that the networks or block embedded in CERT are exactly these files.",
                           exits=["0  valid", "1  the claim is broken (the reason is printed)",
                                  "2  malformed certificate or input"],
                           examples=["netfibers verify cert.json",
                                     "netfibers verify cert.json a.json b.json"]))
    p.add_argument("certificate", metavar="CERT")
    p.add_argument("inputs", nargs="*", metavar="A", help="A [B]: the original inputs (one or two files)")
    p.set_defaults(func=cmd_verify)


def cmd_canon(args) -> int:
    net = load_network(args.net)
    try:
        cf = canonical_form(net, orthant=args.orthant)
    except NotApplicableError as exc:
        fail(f"{args.net}: {exc}")
    rep = cf.representative()
    data = {"fingerprint": cf.fingerprint(), "domain": cf.domain, "canonical_form": cf.to_json(),
            "number_of_kinks": cf.number_of_kinks, "linear_rank": cf.linear.rank(),
            "representative_widths": list(rep.widths), "output": args.output}
    if args.output:
        try:
            save(rep, args.output)
        except AlgebraError as exc:
            fail(str(exc))
    lines = [f"fingerprint {cf.fingerprint()} ({cf.domain})",
             f"{cf.number_of_kinks} kink hyperplane(s); affine part of rank {cf.linear.rank()}"]
    ex, shown = args.exact, list(cf.offset)
    for u, beta, K in cf.kinks[:20]:
        lines.append(f"  kink on {display.dot(u, 'x', ex)} + {display.number(beta, ex)} = 0 : "
                     f"[{display.numbers(K, ex)}]")
        shown += [*u, beta, *K]
    if cf.number_of_kinks > 20:
        lines.append(f"  … {cf.number_of_kinks - 20} more (use --json)")
    A = cf.linear.to_rows() if hasattr(cf.linear, "to_rows") else None
    if A is not None:
        shown += [v for row in A for v in row]
        atext = "[" + "; ".join(display.numbers(row, ex) for row in A) + "]"
    else:
        atext = str(cf.linear.to_json())
    lines.append(f"affine part: A = {atext}, c = [{display.numbers(cf.offset, ex)}]")
    if args.output:
        lines.append(f"wrote the canonical representative (widths "
                     f"{'-'.join(map(str, rep.widths))}) to {args.output}")
    emit(args, data, display.with_roundings(data, "\n".join(lines) + display.note(shown, ex), net))
    return 0


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


def cmd_verify(args) -> int:
    cert = load_certificate(args.certificate)
    if len(args.inputs) > 2:
        fail("verify takes at most two inputs (A B)")
    try:
        cert = resolve_sidecar(cert, args.certificate)   # the binary payload of a large one
    except AlgebraError as exc:
        fail(f"{args.certificate}: malformed certificate: {exc}")
    try:
        ok, why = verify(cert)
    except AlgebraError as exc:
        fail(f"{args.certificate}: malformed certificate: {exc}")
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        fail(f"{args.certificate}: malformed certificate: {type(exc).__name__}: {exc}")
    if ok and args.inputs:
        single = next((k for k in ("block", "network") if k in cert and "a" not in cert), None)
        if single is not None and len(args.inputs) != 1:
            fail(f"a {cert.get('type')} certificate embeds one input ({single!r}): give one file")
        keys = [single] if single is not None else ["a", "b"]
        objs = {k: load_any(p) for k, p in zip(keys, args.inputs)}
        try:
            ok, why2 = check_inputs_match(cert, objs)
        except AlgebraError as exc:
            fail(f"{args.certificate}: malformed certificate: {exc}")
        why = why if ok else why2
    data = {"answer": ok, "valid": ok, "reason": why, "type": cert.get("type"),
            "method": "verify", "hypotheses": [], "certificate": args.certificate}
    emit(args, data, f"{'VALID' if ok else 'BROKEN'} {cert.get('type')} certificate: {why}")
    return 0 if ok else 1
