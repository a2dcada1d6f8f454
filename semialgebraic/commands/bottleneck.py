"""Commands ``identify``, ``fiber``, ``symmetries`` (three-layer-fibers R16–R18).

* ``netfibers identify NET [--certificate FILE] [--timeout S]``: identifiable up to permutation
  and positive scaling? (R18; exit 0 yes, 1 no, 3 non-generic/undecided, or ``--timeout``
  reached / Ctrl-C: "undecided: timeout of S s reached during PHASE" and what was established,
  no verdict claimed).  JSON keys: ``answer``, ``method``, ``hypotheses``, ``reason``,
  ``certificate``; stopped: ``complete`` false, ``checked``, ``found``, ``stopped_in``,
  ``progress`` (:func:`partial_state`).
* ``netfibers fiber NET [--orthant] [--latex | --json]``: the fiber (dispatch through
  ``semialgebraic._fiber.fiber`` when present).  JSON keys: ``dimension``,
  ``number_of_components``, ``number_of_orbits``, ``components`` (each: ``label``,
  ``dimension``, ``equalities``, ``inequalities``, ``sample``), ``symmetries``.
* ``netfibers symmetries NET [--graphml FILE] [--json]``: structure report, symmetry generators
  and the symmetry graph (nodes = components up to permutation, edges = discrete generators).

``fiber`` and ``symmetries`` stopped by ``--timeout`` or Ctrl-C say in one line the phase and
what was established (:func:`fiber_in_time`), exit 3.
"""

from __future__ import annotations

import json
import signal
import time
from contextlib import contextmanager

from algebra.network import Network

from ..budget import (Budget, BudgetExhausted, alarm_at, alarm_count, answer_kept,
                      conversions_until, phase)
from ..bottleneck import Trace, fiber_bottleneck, identifiability, is_bottleneck, structure
from ..certificates import jsonable, write_certificate
from ..equivalence import equivalent
from ..cli import emit, fail
from ..exceptions import NonGenericError, NotApplicableError
from .._fiber import fiber
from ..symmetry_graph import graph_to_json, write_graphml
from . import display
from .common import check_output_dir, load_network
from .help import describe

__all__ = ["register", "fiber_of", "fiber_text", "structure_text", "component_label", "deadline", "Timeout",
           "identifiability_text", "partial_state", "partial_text", "partial_summary", "PHASES",
           "fiber_in_time"]


class Timeout(BaseException):
    """The command's ``--timeout`` elapsed (partial result, exit 3).  A BaseException, like
    KeyboardInterrupt, so that no ``except Exception`` on the way swallows it."""


@contextmanager
def deadline(seconds: float | None):
    """Raise :class:`Timeout` in the main thread after *seconds* (None: no limit)."""
    if seconds is None or not hasattr(signal, "setitimer"):
        yield
        return
    if seconds <= 0:                 # setitimer(0) would disarm the timer: no time at all
        raise Timeout()

    fired = []

    def _handler(signum, frame):
        fired.append(True)
        raise Timeout()
    old = signal.signal(signal.SIGALRM, _handler)
    signal.setitimer(signal.ITIMER_REAL, float(seconds))
    try:
        with conversions_until(seconds):   # (a layer's exact matrix the time left cannot pay
            yield                          # for is not begun: s49)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    if fired:   # raised where Python swallows exceptions (a gc callback, a __del__): still over budget
        raise Timeout()


def register(sub, parent) -> None:
    p = sub.add_parser("identify", parents=[parent],
                       help="identifiability up to permutation and scaling (decided for one "
                            "hidden layer and three-layer bottlenecks; any network: 'not "
                            "identifiable' with a planted copy)",
                       **describe(
                           "Decide whether the weights of NET are determined by its function on "
                           "R^d up to permuting neurons and positive rescaling (S1, S2). One "
                           "hidden layer: every neuron read, with its own hyperplane, and no "
                           "flip set (three-layer-fibers R41). Two hidden layers, the first not "
                           "wider than the input: after checking the genericity conditions "
                           "G0-G8 exactly (three-layer-fibers R18). "
                           "When not, a planted symmetric copy is the certificate. Any other "
                           "network (deeper, or a bottleneck that is not generic): no theory "
                           "says 'identifiable', but a copy outside the orbit (unread, constant "
                           "or dead neurons, a flip set of any hidden layer) proves 'not "
                           "identifiable'; else undecided. See 'netfibers explain identifiable'.",
                           exits=["0  identifiable", "1  not identifiable",
                                  "3  non-generic input or undecided (also: --timeout reached "
                                  "or Ctrl-C: what was checked, the symmetry directions found "
                                  "and the phase, no verdict claimed)",
                                  "2  input error (unreadable file, bad options); a deeper "
                                  "network or a wider bottleneck is not an error: exit 1 with "
                                  "a planted copy, else 3"],
                           examples=["netfibers identify algebra/examples/t5_perm_scale_a.json",
                                     "netfibers identify net.json --certificate cert.json"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--certificate", metavar="FILE", help="write the certificate (JSON)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                   help="seconds for the whole decision (hypotheses, certificate and its "
                        "check): past it, 'undecided: timeout … during PHASE' with the "
                        "conditions checked and the symmetry directions found, exit 3, no "
                        "verdict claimed")
    p.set_defaults(func=cmd_identify)

    p = sub.add_parser("fiber", parents=[parent], help="explicit fiber: components and dimension",
                       **describe(
                           "Describe the fiber of NET - every parameter setting computing the "
                           "same function - as components (up to permutations), each a basic "
                           "semi-algebraic set in the parameters, with its dimension (by the "
                           "formula R17 and, on small inputs, by the exact Jacobian rank R22) "
                           "and the numbers of components and orbits.",
                           exits=["0  computed", "3  non-generic input, no listing for these "
                                  "widths (more hidden layers, n1 > d, a bottleneck on the "
                                  "orthant), the dimension only bounded (an interval), or "
                                  "--timeout reached"],
                           examples=["netfibers fiber algebra/examples/masked_bottleneck.json",
                                     "netfibers fiber net.json --latex",
                                     "netfibers fiber net.json --certificate cert.json"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--orthant", action="store_true",
                   help="one hidden layer: the fiber on the closed orthant")
    p.add_argument("--latex", action="store_true", help="print LaTeX")
    p.add_argument("--full", action="store_true",
                   help="list every component and every equality and inequality (the text shows "
                        "the first 12 of each; --json always has them all)")
    p.add_argument("--certificate", metavar="FILE",
                   help="write a symmetry_report certificate: each listed component's "
                        "representative with a proof that it computes NET's function")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS with a partial result (exit 3)")
    p.set_defaults(func=cmd_fiber)

    p = sub.add_parser("symmetries", parents=[parent],
                       help="structure, symmetry generators and the symmetry graph",
                       **describe(
                           "Report the structure of a three-layer bottleneck NET (neuron types "
                           "dead/linear/switching, the masked neuron and its S6 interval, "
                           "whether S7/S8 apply, the linear block Γ and its positive factor "
                           "rank), the symmetries S1-S8 that generate its fiber, and the "
                           "symmetry graph (nodes: components up to permutation; edges: discrete "
                           "symmetries). With one hidden layer: the neuron types, the symmetries "
                           "beyond S1 + S2 its rows show (free rows, trades, linear pairs, flip "
                           "sets), identifiability (R41) and the fiber's size, on R^d. Any "
                           "other network: S1 + S2 and the steps valid at any depth that its "
                           "weights show (unread, constant and dead neurons, flip sets of each "
                           "hidden layer). 'netfibers explain TERM' explains each term.",
                           exits=["0  computed", "3  non-generic input, or --timeout reached",
                                  "2  input error"],
                           examples=["netfibers symmetries algebra/examples/masked_bottleneck.json",
                                     "netfibers symmetries net.json --graphml graph.graphml",
                                     "netfibers symmetries net.json --certificate cert.json"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--graphml", metavar="FILE", help="write the symmetry graph as GraphML")
    p.add_argument("--certificate", metavar="FILE",
                   help="write a symmetry_report certificate: every listed component's "
                        "representative or symmetric copy with a proof that it computes NET's "
                        "function, and identify's certificate")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS with a partial result (exit 3)")
    p.set_defaults(func=cmd_symmetries)


def fiber_of(net: Network, *, orthant: bool = False, source: str | None = None):
    """The fiber through the dispatcher :func:`semialgebraic._fiber.fiber`; a network it does
    not describe is one line naming *source* (the file), exit 2."""
    try:
        return fiber(net, domain="orthant" if orthant else None)
    except NotApplicableError as exc:
        fail(f"{source}: {exc}" if source else str(exc))


FIBER_SHOWN = 12
"""Equalities and inequalities of a component, and components, the text of ``fiber`` lists
without ``--full`` (a 64-32-16-10 digits net printed 2 783 lines: new-user audit)."""


def fiber_text(F, exact: bool = False, full: bool = False) -> str:
    """The fiber for a person: dimension, components with their equalities and inequalities
    (long rational coefficients as ≈ decimals unless *exact*; the first :data:`FIBER_SHOWN`
    of each list unless *full*)."""
    cap = None if full else FIBER_SHOWN
    dim = F.dimension
    lines = [f"fiber dimension: {dim.value}" if dim.exact else
             f"fiber dimension: {dim.words()} ({dim.reason})"]
    from ..shallow.fiber import ShallowFiber
    if isinstance(F, ShallowFiber) and F.number_of_components is None and \
            F.details.get("listing", "strata of theta") == "strata of theta":
        # one hidden layer with spare neurons: θ's strata only (another point of the fiber may
        # lie in a larger stratum: s40 fiber audit)
        lines[0] = (lines[0].replace("fiber dimension:", "fiber dimension near this network:")
                    + " (its own stratum; spare neurons give the fiber other strata, possibly of "
                    "larger dimension, not listed)")
    fd = getattr(F, "fibdim", None)
    if fd is not None:
        lines.append(f"exact Jacobian rank check (FIBDIM, R22): {fd}" + (
            f" (the fiber's dimension near this network's own parameter, `netfibers dim`'s value; "
            f"{dim.value} is that of its largest stratum)" if dim.exact and fd != dim.value else ""))
    listed = (" (of the listed strata only: some are left out, see the notes)"
              if getattr(F, "partial", False) else "")
    bound = "" if getattr(F, "components_exact", True) else "at most "
    pool = any(isinstance(c.label, dict) and "linear" in c.label for c in F.components)  # R16c
    glued = ("" if getattr(F, "components_exact", True) else
             " (labelled strata, three-layer-fibers R16c; strata with other numbers of linear and "
             "dead rows meet at non-generic points, not counted)" if pool else
             " (strata glued along three-layer-fibers R16a g1-g3; other joins not excluded)")
    if F.number_of_components is None:      # (spare neurons: see the notes)
        lines.append("number of components: not determined (see the notes)")
    else:
        lines.append(f"number of components: {bound}"
                     f"{display.number(F.number_of_components, exact)}{listed}{glued}")
    orbits = getattr(F, "number_of_orbits", None)
    lines.append(f"number of orbits: {'not determined' if orbits is None else orbits}{listed}")
    strata = getattr(F, "number_of_strata", None)
    if strata is not None and pool:         # n1 >= 2 (three-layer-fibers R16c)
        lines.append(f"number of strata (rows labelled): {strata}; each stratum's own dimension "
                     "is R17 at its point, checked by FIBDIM (R16c)")
    elif strata is not None:                # n1 = 1 (three-layer-fibers R16a)
        lines.append(f"number of strata (rows labelled): {strata}, glued into the components "
                     "(R16a g1-g3); the Jacobian check is at the network's own stratum")
    hidden = 0
    for k, c in enumerate(F.components):
        if cap is not None and k == cap:
            lines.append(f"... and {len(F.components) - cap} more "
                         f"{'strata' if strata is not None else 'components'} (--full or --json lists them)")
            break
        cdim = c.dimension
        shown = (cdim.value if cdim.value is not None else
                 f"between {cdim.lower} and {cdim.upper}")
        lines.append(f"{'stratum' if strata is not None else 'component'} {k} "
                     f"{component_label(c.label if c.label is not None else '')}: dimension {shown}")
        eq_text, in_text, n_eq, n_in = c.text_rows(cap)     # (only the rows shown are rendered)
        eqs = [f"    {display.in_text(e, exact)} = 0" for e in eq_text]
        ins = [f"    {display.in_text(q, exact)}" for q in in_text]
        lines += eqs + ins
        more = n_eq - len(eqs), n_in - len(ins)
        if any(more):
            hidden += 1
            lines.append(f"    ... and {more[0]} more equalities, {more[1]} more inequalities")
    if hidden:
        lines.append("(the text lists the first 12 equalities and inequalities of each component: "
                     "--full lists them all, --json has them all)")
    for n in getattr(F, "notes", []):
        lines.append(f"note: {n}")
    if display.text_needs_note(lines, exact):
        lines.append(display.EXACT_NOTE)
    return "\n".join(lines)


def component_label(label) -> str:
    """A fiber component's discrete label for a person: ``flips [0, 2], S7 on [1], S8`` (or
    ``the component of the network itself`` when nothing is flipped); other labels as text."""
    if isinstance(label, str):
        try:
            label = json.loads(label)
        except ValueError:
            return label
    if not isinstance(label, dict):
        return str(label)
    st = label.get("stratum")
    if st:                                   # n1 = 1: a stratum of three-layer-fibers R16a
        return (f"(orientation {st['orientation']:+d}, {st['first_layer_kink']} first-layer kink, "
                f"kink rows {st['kink_rows']}, {st['linear']} linear, {st['dead']} dead)")
    if label.get("flipped_neurons"):         # one hidden layer: a flip set (σ(h) − σ(−h) = h)
        return (f"(neurons {label['flipped_neurons']} flipped, (w, b) → −(w, b), "
                "the output bias adjusted)")
    parts = ([f"S5 flips {label['flips']}"] if label.get("flips") else []) + \
            ([f"S7 on {label['s7']}"] if label.get("s7") else []) + (["S8"] if label.get("s8") else [])
    if "linear" in label:                    # n1 >= 2: three-layer-fibers R16c
        parts.append(f"{label['linear']} linear, {label['dead']} dead")
    return "(" + (", ".join(parts) if parts else "the component of the network itself") + ")"


def structure_text(s, exact: bool = False) -> str:
    """The structure report, long rationals (S6 interval, Γ, γ) as ≈ decimals unless *exact*."""
    return s.to_text(lambda q: display.numbers([q], exact))


_UP_TO = "up to permutation and positive scaling"


def identifiability_text(v, prefix: str = "") -> str:
    """``identifiable up to permutation and positive scaling: <why>``, the phrase said once (the
    reason may already start with it)."""
    word = {True: "identifiable", False: "not identifiable", None: "undecided"}[v.answer]
    reason = v.reason
    for lead in (f"{word} {_UP_TO}: ", f"{word} {_UP_TO}", f"{word}: "):
        if reason.startswith(lead):
            reason = reason[len(lead):]
            break
    head = f"{word} {_UP_TO}" if v.answer is not None and v.method != "affine" else word
    return f"{prefix}{head}: {reason}" if reason else f"{prefix}{head}"


PHASES = {"hypotheses": "the genericity conditions G0-G8",
          "structure": "the structure (neuron types, S6 interval, linear block and its LP)",
          "certificate": "building the certificate",
          "check": "the certificate's independent check",
          "dimension": "the fiber dimension (R17, FIBDIM R22)",
          "components": "the fiber's components (R16)",
          "graph": "the symmetry graph"}
"""What a partial ``identify`` / ``plot fiber`` says for :attr:`Trace.phase`."""


def partial_state(trace: Trace) -> dict:
    """The JSON keys of a stopped bottleneck decision: ``checked`` (the conditions decided,
    each ``name``, ``holds``, ``witness``), ``found`` (symmetry directions read off the signs of
    ``[W2 | b2]``), ``stopped_in`` (the phase), ``progress`` (inside G8: the columns decided;
    inside a fiber's components: how many are built) and ``dimension`` (a fiber's, once
    known)."""
    out = {"checked": [h.to_json() for h in trace.checked()], "found": list(trace.found),
           "stopped_in": trace.phase}
    if trace.dimension is not None:
        out["dimension"] = trace.dimension
    if trace.progress():
        out["progress"] = trace.progress()
    return out


def partial_text(trace: Trace) -> list[str]:
    """What a stopped bottleneck decision established, for a person (indented lines)."""
    hs = trace.checked()
    held = [h.name.split()[0] for h in hs if h.holds]
    lines = [f"  checked exactly: {', '.join(held)} {'holds' if len(held) == 1 else 'hold'}"
             if held else "  checked exactly: nothing yet"]
    lines += [f"  {h.name}: {h.holds} at {jsonable(h.witness)}" for h in hs if not h.holds]
    if trace.progress():
        lines.append(f"  {trace.progress()} (the rest not checked)")
    if trace.found:
        lines.append("  found: " + "; ".join(trace.found))
        if trace.phase == "hypotheses":
            lines.append("  (symmetry directions of R18: a verdict also needs every genericity "
                         "condition G0-G8)")
    if trace.phase in ("certificate", "check"):
        lines.append("  no verdict is claimed before its certificate passes the independent "
                     "check: give more time")
    return lines


def partial_summary(trace: Trace) -> str:
    """What a stopped bottleneck computation established, in one line: ``G0-G7 hold; G8: 3 of
    24 first-layer columns checked, …; found: …``."""
    hs = trace.checked()
    held = [h.name.split()[0] for h in hs if h.holds]
    parts = [(f"{held[0]}-{held[-1]}" if len(held) > 2 and held == [h.name.split()[0] for h in
                                                                     hs[:len(held)]] else
              ", ".join(held)) + (" holds" if len(held) == 1 else " hold")] if held else \
        ["nothing checked yet"]
    parts += [f"{h.name} fails" for h in hs if h.holds is False]
    if trace.dimension is not None:
        parts.append(f"fiber dimension {trace.dimension} (R17)")
    if trace.progress():
        parts.append(trace.progress())
    if trace.found:
        parts.append("found: " + "; ".join(trace.found))
    return "; ".join(parts)


def _stopped(why: str, trace: Trace) -> str:
    return f"{why} during {PHASES[trace.phase]}"


def cmd_identify(args) -> int:
    check_output_dir(args.certificate)
    if args.timeout is not None and args.timeout <= 0:
        fail(f"--timeout must be > 0 for {args.command} (0 s leaves it nothing to report)")
    budget = Budget(timeout=args.timeout)          # loading NET counts too
    net = load_network(args.net, parameters=True)
    end = None if args.timeout is None else time.monotonic() + budget.remaining()
    if net.depth == 2:
        return _identify_shallow(args, net, budget, end)
    if not is_bottleneck(net):
        return _identify_deep(args, net, budget, end)
    trace = Trace()
    alarms = alarm_count()
    try:
        # checkpoint() in the loops that have one (CANON's), and an alarm at the deadline for
        # the others (the G0-G8 checks, the certificate's check): stopped anywhere, the trace
        # says what was established and no verdict is claimed
        with budget.active(), alarm_at(end, "identify"), phase("identifiability (bottleneck)"):
            try:
                v = identifiability(net, trace=trace)
            except ImportError:         # the deadline cut an import (a C extension's: "initiali-
                if alarm_count() == alarms:     # zation failed"; exit 4 once in CI, s45/s46):
                    raise                       # the stop it echoes
                raise BudgetExhausted("the budget ran out during identify (an import)")
    except KeyboardInterrupt:           # BudgetExhausted (the deadline) or Ctrl-C
        if trace.verdict is None:
            budget.exhausted()          # marks a Ctrl-C since the budget began (budget.ctrl_c)
            why = ("interrupted (Ctrl-C)" if budget.interrupted or args.timeout is None else
                   f"timeout of {args.timeout:g} s reached")
            reason = f"undecided: {_stopped(why, trace)}"
            emit(args, {"answer": None, "method": "bottleneck-R18", "reason": reason,
                        "complete": False, "certificate": None, **partial_state(trace)},
                 "\n".join([reason] + partial_text(trace)))
            return 3
        v = trace.verdict               # decided and checked just before the stop: say it
    if v.answer is None and not budget.exhausted():   # not generic: a planted copy may still show
        return _identify_deep(args, net, budget, end, v)  # non-identifiability
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 F7)
        if args.certificate and v.certificate is not None:
            write_certificate(v.certificate, args.certificate)
        emit(args, data := v.to_json(), display.with_roundings(data, identifiability_text(v), hypotheses=v.hypotheses))
    return v.exit_code()


def _identify_deep(args, net: Network, budget: Budget, end, first=None) -> int:
    """``identify`` outside the exact theories (two or more hidden layers that are not a generic
    three-layer bottleneck; *first* the bottleneck's undecided verdict): a planted copy outside
    the S1 + S2 orbit, certified, or undecided (:mod:`semialgebraic.deep`)."""
    from ..deep import identifiability_deep
    context = "" if first is None else first.reason.removeprefix("undecided: ")
    try:
        with budget.active(), alarm_at(end, "identify"), phase("identifiability (planted copies)"):
            v = identifiability_deep(net, budget=budget, context=context)
    except KeyboardInterrupt:           # BudgetExhausted (the deadline) or Ctrl-C
        budget.exhausted()
        why = ("interrupted (Ctrl-C)" if budget.interrupted or args.timeout is None else
               budget.reason or f"timeout of {args.timeout:g} s reached")
        reason = f"undecided: {why} while looking for a planted copy" + (f" ({context})" if context else "")
        emit(args, {"answer": None, "method": "planted-copy", "reason": reason, "complete": False,
                    "certificate": None}, reason)
        return 3
    if first is not None and v.answer is None:
        v = first                      # the bottleneck's own reason says more
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 F7)
        if args.certificate and v.certificate is not None:
            write_certificate(v.certificate, args.certificate)
        emit(args, data := v.to_json(), display.with_roundings(data, identifiability_text(v), hypotheses=v.hypotheses))
    return v.exit_code()


def _identify_shallow(args, net: Network, budget: Budget, end) -> int:
    """``identify`` on one hidden layer (three-layer-fibers R41), under the same budget."""
    from ..shallow.identifiability import identifiability_shallow
    try:
        with budget.active(), alarm_at(end, "identify"), phase("identifiability (one hidden layer)"):
            v = identifiability_shallow(net, budget=budget)
    except KeyboardInterrupt:           # BudgetExhausted (the deadline) or Ctrl-C
        budget.exhausted()
        why = ("interrupted (Ctrl-C)" if budget.interrupted or args.timeout is None else
               budget.reason or f"timeout of {args.timeout:g} s reached")   # (the guard's: s49)
        reason = f"undecided: {why} (one hidden layer, three-layer-fibers R41)"
        emit(args, {"answer": None, "method": "shallow-R41", "reason": reason, "complete": False,
                    "certificate": None}, reason)
        return 3
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 F7)
        if args.certificate and v.certificate is not None:
            write_certificate(v.certificate, args.certificate)
        emit(args, data := v.to_json(), display.with_roundings(data, identifiability_text(v), hypotheses=v.hypotheses))
    return v.exit_code()


_CERTIFIED_FLIPS = 64
"""Most flip sets listed beside shared hyperplanes whose copies a ``symmetries --certificate``
holds."""


def _symmetries_shallow(args, net: Network, budget: Budget) -> int:
    """``symmetries`` of one hidden layer on R^d: neuron types, the symmetries beyond S1 + S2
    that the rows show, the flip sets (the fiber's components), identifiability (R41) and the
    fiber's size."""
    from ..shallow.canonical import neuron_types
    from ..shallow.fiber import MAX_ENUMERATED_FLIPS, kink_flip_sets
    from ..shallow.identifiability import identifiability_shallow, symmetry_facts
    types = None
    try:
        with deadline(budget.remaining()), phase("the fiber and identifiability"):
            types = neuron_types(net)   # (first: a partial report names them)
            F = fiber_of(net)           # one hidden layer: fiber_shallow on R^d
            v = identifiability_shallow(net, verify=False)
            # neurons sharing hyperplanes: the fiber lists θ's strata only, but flip sets are
            # symmetries whatever the other neurons are (s51 audit 4 F2: none were listed)
            spare_flips = (kink_flip_sets(net) if F.details.get("listing") == "strata of theta"
                           else [])
            unlisted = spare_flips is None     # more than MAX_ENUMERATED_FLIPS kink neurons
            spare_flips = spare_flips or []
    except (Timeout, KeyboardInterrupt) as exc:
        why = _stop_why(exc, args)
        # what holds without the fiber: S1 + S2 keep every network's function (a 768-3072-768
        # block printed only "no symmetry report" at --timeout 20: session 39)
        data = {"kind": "one hidden layer", "widths": list(net.widths),
                "neuron_types": None if types is None else list(types),
                "symmetries": ["S1", "S2"], "complete": False, "reason": why}
        text = [f"widths {'-'.join(map(str, net.widths))}: one hidden layer, on R^d"]
        if types is not None:
            text.append("neuron types: " + _type_runs(types))
        text.append("symmetries: S1 (permutations), S2 (positive scalings), and others not "
                    "determined")
        text.append(f"{why}: flip sets, identifiability and the fiber not determined")
        emit(args, data, "\n".join(text))
        return 3
    with answer_kept():     # found: a first Ctrl-C no longer loses the answer (s46 F-BN-OUT)
        facts = symmetry_facts(net)
        flips = [sorted(c.label.get("flipped_neurons") or []) for c in F.components
                 if isinstance(c.label, dict)]
        flips = [S for S in flips if S] or spare_flips
        types = F.details["neuron_types"]
        word = {True: "yes", False: "no", None: "undecided"}[v.answer]
        text = [f"widths {'-'.join(map(str, net.widths))}: one hidden layer, on R^d",
                "neuron types: " + _type_runs(types),
                "symmetries: S1 (permutations), S2 (positive scalings)"
                + "".join(f"; flip set {S}" for S in flips)]
        text += [f"  {f}" for f in facts]
        if flips:
            text.append("  a flip set S: (w_i, b_i) -> -(w_i, b_i) for i in S, the output bias + "
                        "sum v_i b_i, keeps the function since sum_S v_i w_i^T = 0 (σ(h) − σ(−h) = h)")
        unlisted = unlisted or F.details.get("listing") == "flip sets not enumerated"
        if unlisted:        # (none listed is not none found: s52 audit of this session's changes)
            text.append(f"  flip sets not enumerated (more than {MAX_ENUMERATED_FLIPS} kink "
                        "neurons): others than those listed may exist")
        if args.certificate and len(flips) > _CERTIFIED_FLIPS:
            text.append(f"  the certificate holds the first {_CERTIFIED_FLIPS} of the "
                        f"{len(flips)} flip sets listed")
        why = v.reason.removeprefix("identifiable up to permutation and positive scaling: ")
        which = "R42" if "R42" in v.reason else "R41"
        text.append(f"identifiable up to S1 + S2 (three-layer-fibers {which}): {word} ({why})")
        text.append(f"fiber: dimension {F.dimension.words()}"
                    f"; components {display.number(F.number_of_components, args.exact) if F.number_of_components is not None else 'not determined'}"
                    f"; orbits {F.number_of_orbits if F.number_of_orbits is not None else 'not determined'}")
        data = {"kind": "one hidden layer", "widths": list(net.widths), "neuron_types": list(types),
                "symmetries": ["S1", "S2"],
                "flip_sets": flips, "flip_sets_enumerated": not unlisted, "facts": facts,
                "identifiable": {"answer": v.answer, "reason": v.reason,
                                 "hypotheses": [h.to_json() for h in v.hypotheses]},
                "dimension": F.dimension.value, "fiber_dimension": F.dimension.value,
                "number_of_components": F.number_of_components,
                "number_of_orbits": F.number_of_orbits}
        if args.graphml:
            write_graphml(F.graph, args.graphml)
            text.append(f"GraphML written to {args.graphml}")

        if display.text_needs_note(text, args.exact):
            text.append(display.EXACT_NOTE)

    def make():
        from .report_certificate import component_copies, flip_copy_certificate
        certs, reps, _ = component_copies(net, F, budget=budget)
        for S in spare_flips[:_CERTIFIED_FLIPS]:    # the flip sets listed beside θ's strata
            cert = flip_copy_certificate(net, S, budget=budget)
            if cert is not None:
                certs.append(cert)
                reps += 1
        return certs, reps, v.certificate
    return _emit_with_certificate(args, net, budget, make, data, text)


def _stop_why(exc, args) -> str:
    """Why a command stopped: Ctrl-C, or its ``--timeout`` (a :class:`Timeout` *exc*)."""
    if isinstance(exc, BudgetExhausted) and str(exc):
        return str(exc)              # (a layer too large for the time left: budget.py)
    return ("interrupted (Ctrl-C)" if not isinstance(exc, Timeout) else
            f"timeout of {args.timeout:g} s reached")


def _report_certificate(args, net: Network, budget: Budget, make, *, orthant: bool = False):
    """``--certificate``: *make()* gives ``(copies, total, identifiability)`` (in the time
    *budget* has left), then the ``symmetry_report`` certificate is written and re-checked;
    ``(the line the report adds, the path written or None)``; (None, None) without the
    option."""
    if not getattr(args, "certificate", None):
        return None, None
    from .report_certificate import write_report_certificate
    try:
        with deadline(budget.remaining()), phase("the certificate (the listed parameters)"):
            copies, total, ident = make()
    except (Timeout, KeyboardInterrupt) as exc:
        return f"{_stop_why(exc, args)} making the certificate; no certificate written", None
    if not copies and ident is None:    # (an empty report certifies nothing: s40 forge audit F3)
        return ("no certificate written: nothing listed to certify (no symmetric copy, no "
                "identifiability verdict)"), None
    return write_report_certificate(net, copies, args.certificate, budget, identifiability=ident,
                                    orthant=orthant, total=total), args.certificate


def _type_runs(types) -> str:
    """``0:kink, 1:zero`` for a few neurons; runs of one type joined (``0-1023:kink``: a
    784-1024-10 net printed a 10 KB line, new-user audit, session 36).

    >>> _type_runs(["kink", "kink", "zero", "kink"])
    '0:kink, 1:kink, 2:zero, 3:kink'
    >>> _type_runs(["kink"] * 20 + ["zero"])
    '0-19:kink, 20:zero'
    """
    if len(types) <= 12:
        return ", ".join(f"{i}:{t}" for i, t in enumerate(types))
    runs, start = [], 0
    for i in range(1, len(types) + 1):
        if i == len(types) or types[i] != types[start]:
            runs.append(f"{start}:{types[start]}" if i - 1 == start else f"{start}-{i - 1}:{types[start]}")
            start = i
    return ", ".join(runs)


def _symmetries_deep(args, net: Network, budget: Budget) -> int:
    """``symmetries`` outside the exact theories: S1 + S2, and the symmetry steps valid at any
    depth that the weights show (unread, constant and dead neurons, flip sets of each hidden
    layer), each said to go beyond S1 + S2 when the checker proves its copy outside the orbit;
    identifiability follows (no when one does, else undecided)."""
    from ..deep import symmetry_facts_deep
    if net.depth == 1:                  # (s39 conserved audit F5: it listed S1 + S2, "undecided")
        why = "x -> W x + b determines W and b"
        text = [f"widths {'-'.join(map(str, net.widths))}: no hidden layer (an affine map)",
                "symmetries: none (no hidden neuron: the identity only)",
                f"identifiable: yes ({why})", "fiber: the point itself (dimension 0)"]
        if getattr(args, "graphml", None):
            text.append("no GraphML written: no hidden layer, no symmetry graph")
        data = {"kind": "no hidden layer", "widths": list(net.widths), "symmetries": [],
                "facts": [], "identifiable": {"answer": True, "reason": why},
                "dimension": 0, "fiber_dimension": 0}

        def make():
            from ..certificates import affine_identifiability_certificate
            return [], None, affine_identifiability_certificate(net)
        return _emit_with_certificate(args, net, budget, make, data, text)
    try:
        with deadline(budget.remaining()), phase("symmetry steps (planted copies)"):
            facts = symmetry_facts_deep(net, budget)
    except (Timeout, KeyboardInterrupt) as exc:
        why = _stop_why(exc, args)
        emit(args, {"kind": "no exact theory", "complete": False, "reason": why},
             f"{why}; no symmetry report")
        return 3
    beyond = [f for f in facts if f["beyond_s1_s2"]]
    text = [f"widths {'-'.join(map(str, net.widths))}: {net.depth - 1} hidden layers, outside the "
            "exact theories (one hidden layer: R41; two with n1 <= d: R18)",
            "symmetries: S1 (permutations), S2 (positive scalings)" +
            (f"; {len(beyond)} more shown by the weights" if beyond else "")]
    text += [f"  {f['reason']}" + ("" if f["beyond_s1_s2"] else " (its copy is not shown outside "
                                   "the S1 + S2 orbit)") for f in facts]
    word = "no" if beyond else "undecided"
    why = (beyond[0]["reason"] if beyond else
           f"{len(facts)} symmetry step(s) found, none proven to leave the S1 + S2 orbit (the "
           "checker's orbit test is open when an earlier layer has a zero row), and no "
           "theorem covers these widths" if facts else
           "no symmetry beyond S1 + S2 was found, and no theorem covers these widths")
    text.append(f"identifiable up to S1 + S2: {word} ({why})")
    text.append("fiber: `netfibers dim` bounds its dimension (N - the functional dimension)")
    data = {"kind": "no exact theory", "widths": list(net.widths), "symmetries": ["S1", "S2"],
            "facts": facts, "identifiable": {"answer": False if beyond else None, "reason": why},
            "dimension": None, "fiber_dimension": None}   # (the keys of the other kinds)
    if getattr(args, "graphml", None):
        text.append("no GraphML written: the symmetry graph is built for one hidden layer and "
                    "three-layer bottlenecks only")

    def make():
        from algebra.symmetries import apply_path, path_from_json
        from .report_certificate import copy_certificate
        certs, ident = [], None
        for f in facts:
            steps = path_from_json(f["steps"])
            cert = copy_certificate(net, apply_path(net, steps), steps,
                                    outside=f["beyond_s1_s2"], budget=budget)
            if cert is not None:
                certs.append(cert)
                if ident is None and f["beyond_s1_s2"]:
                    ident = cert            # identify's certificate: the first copy outside
        return certs, len(facts), ident
    return _emit_with_certificate(args, net, budget, make, data, text)


def _emit_with_certificate(args, net, budget, make, data, text, code: int = 0,
                           orthant: bool = False) -> int:
    """Emit the report with ``--certificate``'s line (:func:`_report_certificate`) and JSON key
    ``certificate`` (the path, or None when none was written: exit 3); *code* otherwise."""
    line, path = _report_certificate(args, net, budget, make, orthant=orthant)
    if line:
        text = [*text, line]
        data["certificate"] = path
        if path is None and "making the certificate" in line:   # stopped: the JSON says why
            data.update(complete=False, reason=line)             # (s46 Ctrl-C audit F-SYM-CERT)
        elif "not re-checked in-process" in line:                # (F-BN-SELFCHECK)
            data["certificate_checked"] = False
            if budget.exhausted() and budget.interrupted:       # a Ctrl-C cut it: exit 3
                code = 3
    emit(args, data, "\n".join(text))
    return code if not line or path else 3


def fiber_in_time(net: Network, seconds: float | None, timeout: float | None, *,
                  orthant: bool = False, trace: Trace | None = None, jacobian=None,
                  source: str | None = None):
    """``(fiber, None)``, or, stopped after *seconds* (the user's *timeout*, for the message)
    or by Ctrl-C, ``(None, (why, partial))``: *why* names the phase and what was established
    there (``fiber_bottleneck``'s :class:`Trace`: the conditions G0–G8 decided, the R17
    dimension, the components built), *partial* its JSON keys (:func:`partial_state`).
    *jacobian*: as in :func:`fiber_bottleneck` (FIBDIM, R22; default when N ≤ 60)."""
    trace = Trace() if trace is None else trace
    try:
        with deadline(seconds):
            if net.depth == 3 and not orthant:       # fiber()'s dispatch, with the trace
                return fiber_bottleneck(net, membership=equivalent, trace=trace,
                                        jacobian=jacobian), None
            return fiber_of(net, orthant=orthant, source=source), None
    except (Timeout, KeyboardInterrupt) as exc:
        why = (str(exc) if isinstance(exc, BudgetExhausted) and str(exc) else
               "interrupted (Ctrl-C)" if not isinstance(exc, Timeout) else
               f"timeout of {timeout:g} s reached")
    if net.depth != 3 or orthant:
        return None, (f"{why} computing the fiber", {})
    return None, (f"{why} during {PHASES[trace.phase]}; established: {partial_summary(trace)}",
                  partial_state(trace))


def cmd_fiber(args) -> int:
    check_output_dir(args.certificate)             # (before any work: not "cannot write" at the end)
    budget = Budget(timeout=args.timeout)          # loading NET counts too
    net = load_network(args.net, parameters=True)
    if net.depth == 1:      # (exit 2 "error" before: s39 forge audit F3)
        def make():
            from ..certificates import affine_identifiability_certificate
            return [], None, (None if args.orthant else affine_identifiability_certificate(net))
        return _emit_with_certificate(
            args, net, budget, make, {"kind": "no hidden layer", "dimension": 0,
                                      "fiber_dimension": 0, "number_of_components": 1,
                                      "number_of_orbits": 1},
            ["fiber dimension: 0 (no hidden layer: x -> W x + b determines W and b, so the "
             "fiber is the point itself)"], orthant=args.orthant)
    if net.depth > 3 or (net.depth == 3 and args.orthant):
        # no listing for these, as for n1 > d (exit 3), not an input error (exit 2 before: the
        # s40 fiber audit)
        text = (f"{args.net}: no exact fiber listing for widths {'-'.join(map(str, net.widths))}"
                f"{' on the orthant' if args.orthant else ''}: `fiber` lists the fibers of one "
                "hidden layer (R^d or the orthant) and of three-layer bottlenecks (n1 <= d, on "
                "R^d); `netfibers dim` gives the fiber's dimension near these weights, `netfibers "
                "symmetries` the symmetries they show"
                + ("\nno certificate written: no listing" if args.certificate else ""))
        emit(args, {"dimension": None, "reason": text}, text)
        return 3
    try:
        with phase("the fiber"):
            F, stop = fiber_in_time(net, budget.remaining(), args.timeout, orthant=args.orthant,
                                    source=args.net)
    except NonGenericError as exc:
        text = str(exc)
        if net.depth != 2 and not is_bottleneck(net):  # (a deep net got "non-generic: G0" only)
            text = (f"no exact fiber listing for widths {'-'.join(map(str, net.widths))}: `fiber` "
                    "lists the fibers of one hidden layer and of three-layer bottlenecks (n1 <= d) "
                    f"({exc}); `netfibers dim` gives the fiber's dimension near these weights, "
                    "`netfibers symmetries` the symmetries they show")
        else:                  # (the fiber is the function's: s49 new-user audit F7)
            text += ("\n  the fiber is a set of parameters of the function, the same from any "
                     "of its parameters: a generic parameter of the same function (e.g. without "
                     "the zero entry or coincidence the condition names, where the function "
                     "allows) gets the listing; `netfibers dim` gives its dimension near these "
                     "weights")
        if args.certificate:
            text += "\nno certificate written: no listing"
        emit(args, {"dimension": None, "reason": text}, text)
        return 3
    if stop is not None:
        why, partial = stop
        emit(args, {"dimension": partial.pop("dimension", None), "complete": False,
                    "reason": why, **partial}, f"{why}; no fiber computed"
             + ("; no certificate written" if args.certificate else ""))
        return 3
    # an interval for the dimension is a partial answer, as `dim`'s (the structure audit: exit 0
    # with "between 6 and 7")
    code = 0 if F.dimension.exact else 3
    def make():
        from .report_certificate import component_copies
        certs, reps, _ = component_copies(net, F, orthant=args.orthant, budget=budget)
        return certs, reps, None
    with answer_kept():     # found: a first Ctrl-C no longer loses the answer (s46 F-BN-OUT)
        if args.latex and not args.json:
            data, text = {}, [F.to_latex()]
        else:
            # only the form printed is rendered: a fiber's thousands of equalities take seconds
            # to write (digits 64-32-10: 3 050 polynomials, 2.5 s a form, the fiber itself 0.9 s)
            data = F.to_json() if args.json else {}
            if args.json:        # `dim`/`identify`/`conserved` name it fiber_dimension (a user audit)
                data["fiber_dimension"] = data.get("dimension")     # (of the largest stratum)
                if data.get("jacobian_dimension") is not None:     # `dim`'s value: near θ (an
                    data["fiber_dimension_at_theta"] = data["jacobian_dimension"]   # audit, s37)
                elif data.get("dimension_at_theta") is not None:  # one hidden layer (s40 audit)
                    data["fiber_dimension_at_theta"] = data["dimension_at_theta"]
            text = [] if args.json else [fiber_text(F, args.exact, args.full)]
    return _emit_with_certificate(args, net, budget, make, data, text, code, orthant=args.orthant)


def cmd_symmetries(args) -> int:
    check_output_dir(args.certificate)             # (before any work: not "cannot write" at the end)
    budget = Budget(timeout=args.timeout)          # loading NET counts too
    net = load_network(args.net, parameters=True)
    if net.depth == 2:
        return _symmetries_shallow(args, net, budget)
    if not is_bottleneck(net):
        return _symmetries_deep(args, net, budget)
    trace = Trace()
    try:
        with deadline(budget.remaining()), phase("the structure (bottleneck)"):
            s = structure(net, trace)
    except (Timeout, KeyboardInterrupt) as exc:
        why = _stop_why(exc, args)
        why = f"{why} during {PHASES[trace.phase]}; established: {partial_summary(trace)}"
        emit(args, {"structure": None, "complete": False, "reason": why, **partial_state(trace)},
             f"{why}; no structure report")
        return 3
    # the keys every kind of `symmetries --json` has: kind, widths, symmetries, dimension (and
    # fiber_dimension, as `dim` and `fiber` name it); identifiability is `identify`'s here
    with answer_kept():     # found: a first Ctrl-C no longer loses the answer (s46 F-BN-OUT)
        data = {"kind": "three-layer bottleneck", "widths": list(net.widths), "structure": s.to_json()}
        text = [structure_text(s, args.exact)]
    if s.is_generic:
        F, stop = fiber_in_time(net, budget.remaining(), args.timeout, trace=trace,
                                jacobian=False)
        if stop is not None:
            why, partial = stop
            data.update({"complete": False, "reason": why, **partial})
            emit(args, data, "\n".join(text + [f"{why}; no symmetry graph"]))
            return 3
        with answer_kept():     # found: a first Ctrl-C no longer loses the answer (s46 F-BN-OUT)
            G = F.graph
            data.update({"symmetries": F.to_json()["symmetries"], "graph": graph_to_json(G),
                         "number_of_components": F.number_of_components,
                         "number_of_orbits": F.number_of_orbits, "dimension": F.dimension.value,
                         "fiber_dimension": F.dimension.value,
                         "dimension_detail": F.dimension.to_json()})
            # flip sets left unenumerated qualify the line itself, not only a note at the end
            # (s52 audit: a 24-24-600-2 net printed "symmetries: S1, S2" unqualified)
            unlisted = [n for n in F.notes if "flip sets not enumerated" in n]
            data["flip_sets_enumerated"] = not unlisted
            text.append(f"symmetries: {', '.join(data['symmetries'])}"
                        + (f"; flip sets not enumerated ({'; '.join(unlisted)}): more may exist"
                           if unlisted else ""))
            text.append(f"symmetry graph: {G.number_of_nodes()} node(s), {G.number_of_edges()} "
                        f"edge(s); components {display.number(F.number_of_components, args.exact)}, orbits "
                        f"{display.number(F.number_of_orbits)}, dimension {F.dimension.words()}")
            for n, d in G.nodes(data=True):
                text.append(f"  node {n} {component_label(d['label'])}: generator span rank {d['generator_rank']}")
            for u, v, d in G.edges(data=True):
                text.append(f"  edge {u} -- {v}: {d['step']}" + (f" (neuron {d['neuron']})" if "neuron" in d else ""))
            if getattr(F, "partial", False):      # components left out: the counts are of the listed
                data.update({"listing": "partial", "notes": list(F.notes)})
                text.append("  (components and orbits of the listed strata only: some are left out)")
                text += [f"note: {n}" for n in F.notes]
            if args.graphml:
                write_graphml(G, args.graphml)
                text.append(f"GraphML written to {args.graphml}")
    elif args.graphml:              # the structure report stays, exit 3 as without --graphml
        text.append("no GraphML written: non-generic input (no symmetry graph)")   # (s39 audit:
        data["graphml"] = None      # exit 2 "error" and no report)
    if display.text_needs_note(text, args.exact):
        text.append(display.EXACT_NOTE)
    if not s.is_generic:
        if args.certificate:
            text.append("no certificate written: non-generic input (no listing)")
            data["certificate"] = None
        emit(args, data, "\n".join(text))
        return 3

    def make():
        from ..bottleneck import identifiability
        from .report_certificate import component_copies
        certs, reps, _ = component_copies(net, F, budget=budget)
        v = identifiability(net, verify=False)      # identify's verdict and certificate (R18)
        return certs, reps, (v.certificate if v.answer is not None else None)
    return _emit_with_certificate(args, net, budget, make, data, text)
