"""Command ``analyze``: the main job — everything netfibers can say about one input.

``netfibers analyze [INPUT] [--json] [--certificate FILE] [--seed S]``.  With no argument it
analyses the bundled masked bottleneck example (three-layer-fibers T1) end to end:

1. structure: genericity G0–G8 with witnesses, neuron types, masked neuron, S6 interval, S7/S8,
   linear block and κ₊ (R3–R6, R13–R15);
2. identifiability (R18) with its certificate, verified;
3. symmetries and the symmetry graph (numbers of components and orbits);
4. fiber: components, dimension by R17 and by the exact Jacobian rank (R22) on small inputs;
5. equivalence: a copy transformed by random valid S1–S8 steps is proved equivalent (symmetry
   path, verified by ``semialgebraic.verify``), and a copy perturbed in one second-layer weight
   is proved different (exact counterexample, verified);
6. (bundled example only) non-localizability, R19: the blocks are identifiable, the composite
   is not.

A one-hidden-layer network goes to ``semialgebraic.shallow.analysis_shallow`` when available, a
block to ``semialgebraic.absorption.analysis_block``; anything else gets ``info``.  JSON keys
(bottleneck): ``input``, ``kind``, ``structure``, ``identifiability``, ``symmetries``, ``fiber``,
``equivalence`` (``transformed``: answer, steps, certificate_verified; ``perturbed``: answer,
point, certificate_verified).
"""

from __future__ import annotations

import sys
from importlib import resources

from algebra.io.frameworks import roundings
from algebra.network import Network

from ..bottleneck import (equivalent_bottleneck, fiber_bottleneck, identifiability, is_bottleneck,
                          non_localizability_example, random_symmetric_copy, structure)
from ..absorption import analysis_block
from ..budget import Budget, BudgetExhausted, alarm_at, checkpoint
from ..certificates import write_certificate
from ..dimension import functional_dimension
from ..equivalence import equivalent
from ..cli import emit
from ..exceptions import NonGenericError
from ..shallow import analysis_shallow
from ..symmetry_graph import graph_to_json
from ..verify import verify
from algebra.rationals import to_q, to_q_derived

from . import display
from .bottleneck import Timeout, component_label, deadline, identifiability_text, structure_text
from .help import describe
from .common import load_any, reading_notes, refuse_empty_layers
from .core import info_dict

__all__ = ["register", "default_example", "analysis_bottleneck"]


def default_example() -> str:
    return str(resources.files("algebra") / "examples" / "masked_bottleneck.json")


def register(sub, parent) -> None:
    p = sub.add_parser("analyze", parents=[parent],
                       help="analyse a network or block (a bundled example when none is given)",
                       **describe(
                           "Say everything netfibers can about NET, a summary in plain words "
                           "first: what kind of network it is, whether its weights are "
                           "determined by its function (identifiable) and if not why, its "
                           "symmetries, its functional dimension, and a demonstration of the "
                           "exact equivalence test on two copies of it. The technical sections "
                           "follow (structure G0-G8, identifiability R18, symmetries S1-S8, "
                           "fiber, equivalence R20); 'netfibers explain TERM' explains each "
                           "term. A three-layer bottleneck gets the full analysis, a "
                           "one-hidden-layer network its canonical form, an MLP block the "
                           "absorption decision, any other network its functional dimension. "
                           "Without NET, the bundled masked-bottleneck example "
                           "(three-layer-fibers T1) is analysed end to end.",
                           exits=["0  analysed",
                                  "3  --timeout reached (the sections done so far are printed), "
                                  "or only bounds on the functional dimension"],
                           examples=["netfibers analyze",
                                     "netfibers analyze net.json --timeout 60",
                                     "netfibers analyze algebra/examples/block_B.json --json"]))
    p.add_argument("input", nargs="?", metavar="NET",
                   help="network or block file (default: the bundled example)")
    p.add_argument("--certificate", metavar="FILE",
                   help="write the equivalence certificate of the transformed copy (bottleneck)")
    p.add_argument("--seed", type=int, default=1, metavar="SEED",
                   help="seed of the random symmetry steps of the equivalence demonstration")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS and print the sections done so far (exit 3)")
    p.set_defaults(func=cmd_analyze)


def analysis_bottleneck(net: Network, *, seed: int = 1, data: dict | None = None,
                        lines: list | None = None,
                        exact: bool = False) -> tuple[dict, list[str], dict | None]:
    """(JSON data, text lines, equivalence certificate) of the bottleneck analysis; *data* and
    *lines* are filled section by section (a timeout keeps the sections done)."""
    data = {} if data is None else data
    lines = [] if lines is None else lines
    data["kind"] = "three-layer bottleneck"
    s = structure(net)
    data["structure"] = s.to_json()
    lines += ["== structure (three-layer-fibers R3-R6, R13-R15)",
              "  G0-G8: the genericity conditions, checked exactly before any fast path; "
              "second-layer neurons are dead (always off), linear (always on) or switching; a "
              "masked first-layer neuron is one whose kink never shows in the output; Γ: the "
              "linear map carried by the linear neurons",
              structure_text(s, exact)]
    checkpoint()
    v = identifiability(net)
    ok = verify(v.certificate)[0] if v.certificate and v.certificate.get("type") == "symmetry_path" else None
    data["identifiability"] = {**v.to_json(), "certificate_verified": ok}
    lines += ["== identifiability (R18)", identifiability_text(v)]
    if ok is not None:
        lines.append(f"certificate: planted symmetric copy, symmetry path verified: {ok}")
    if not s.is_generic:
        return analysis_non_generic(net, s, data, lines, exact)
    checkpoint()
    try:
        F = fiber_bottleneck(net)
    except NonGenericError as exc:
        data["fiber"] = {"error": str(exc)}
        lines += ["== fiber", str(exc)]
        return data, lines, None
    fj = F.to_json()
    data["symmetries"] = {"generators": fj["symmetries"], "graph": graph_to_json(F.graph),
                          "number_of_components": F.number_of_components,
                          "number_of_orbits": F.number_of_orbits}
    lines += ["== symmetries",
              "  S1-S8: the weight changes that keep the function (S1 permute, S2 rescale, S3 "
              "dead neurons free, S4 refactor the linear block, S5 flip a switching neuron, "
              "S6 shift the masked neuron, S7 sign flips, S8 kink swap)",
              f"generators: {', '.join(fj['symmetries'])}",
              f"symmetry graph: {F.graph.number_of_nodes()} component(s) up to permutation, "
              f"{F.graph.number_of_edges()} discrete edge(s); topological components "
              f"{display.number(F.number_of_components, exact)}, orbits {display.number(F.number_of_orbits)}"]
    data["fiber"] = fj
    at = getattr(F, "at_theta", None)
    fj["dimension_at_theta"] = at
    lines += ["== fiber (R16, R17, R22)",
              (f"dimension {F.dimension.words()} (its largest stratum, R16)" if at is not None and
               F.dimension.value != at else f"dimension {F.dimension.words()} (R17 formula)")
              + (f"; at these weights {at} (R17)" if at is not None and F.dimension.value != at else "")
              + (f" = {F.fibdim} (exact Jacobian rank, R22)" if F.fibdim is not None else ""),
              f"{len(F.components)} component(s) up to permutation, each a basic semi-algebraic set"]
    for c in F.components:
        lines.append(f"  {component_label(c.label)}: {c.number_of_equalities} equalities, {c.number_of_inequalities} strict "
                     f"inequalities, generator span rank {c.generator_rank}")
    checkpoint()
    copy, steps = random_symmetric_copy(net, seed=seed, number_of_steps=5,
                                        first=("s6", "s7", "s8", "s5", "dead", "linear"))
    ve = equivalent_bottleneck(net, copy)
    okc = verify(ve.certificate)[0] if ve.certificate else False
    pert = _perturbed(net, s)
    vp = equivalent_bottleneck(net, pert) if pert is not None else None
    okp = verify(vp.certificate)[0] if vp is not None and vp.certificate else None
    data["equivalence"] = {
        "transformed": {"steps_applied": [st.to_json() for st in steps], "copy": copy.to_dict(),
                        "answer": ve.answer, "reason": ve.reason,
                        "certificate_type": (ve.certificate or {}).get("type"),
                        "certificate_verified": okc},
        "perturbed": None if vp is None else {
            "copy": pert.to_dict(), "answer": vp.answer, "reason": vp.reason,
            "point": (vp.certificate or {}).get("x"), "certificate_verified": okp}}
    lines += ["== equivalence (R20): a demonstration of the exact equivalence test on two "
              "copies of this network",
              f"copy transformed by {len(steps)} random valid symmetry steps "
              f"({', '.join(st.name for st in steps)}): equivalent = {ve.answer}; "
              f"{(ve.certificate or {}).get('type')} certificate verified: {okc}"]
    if vp is not None:
        x = (vp.certificate or {}).get("x")
        xs = display.point([to_q_derived(t) for t in x], exact) if x is not None else "none"
        lines.append(f"copy with one switching weight multiplied by 1 + 1/10^6: equivalent = "
                     f"{vp.answer}; counterexample x = {xs}, verified: {okp}")
    return data, lines, ve.certificate


# what a failed genericity condition means for the weights (the bottleneck theory is proved
# only where G0-G8 hold; three-layer-fibers §3.1)
_FAILS = {
    "G1": "the first-layer weight rows are linearly dependent, so more weight changes can keep "
          "the function than the theory counts",
    "G2": "a second-layer weight or bias is exactly zero, so the neuron types (dead, linear, "
          "switching) are not decided by signs alone",
    "G3": "a second-layer neuron feeds no output, so its incoming weights are free",
    "G4": "two first-layer neurons are proportional, so they can trade weight between them",
    "G5": "two second-layer neurons are proportional, so they can trade weight between them",
    "G6": "the always-on (linear) second-layer neurons carry a degenerate linear map Γ, whose "
          "factorisation has more freedom than the theory counts",
    "G7": "a first-layer neuron is invisible in the output, so its weights are partly free",
    "G8": "a first-layer neuron's kink cancels between the active second-layer neurons, so it is "
          "invisible and its weights are partly free",
}


def _rescaled_copy(net: Network) -> Network:
    """*net* with its hidden neurons permuted (reversed) and rescaled by 2 (in) and 1/2 (out):
    S1 and S2, which keep the function of every ReLU network."""
    Ws = [W.to_rows() for W in net.weights]
    bs = [list(b) for b in net.biases]
    for l in range(len(Ws) - 1):
        Ws[l] = [[2 * x for x in r] for r in Ws[l]][::-1]
        bs[l] = [2 * x for x in bs[l]][::-1]
        Ws[l + 1] = [[x / 2 for x in r][::-1] for r in Ws[l + 1]]
    return Network.from_rows(Ws, bs)


def _rescaling_dimension(net: Network) -> int:
    """The dimension of the S2 orbit of *net*: the rescaling of hidden neuron j moves row j of
    [W_l | b_l] and column j of W_{l+1} (disjoint supports), so each neuron with a non-zero
    entry there adds one independent direction."""
    n = 0
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        V = net.weights[l + 1]
        n += sum(1 for j in range(W.nrows) if any(x != 0 for x in W.to_rows()[j]) or b[j] != 0
                 or any(V[i, j] != 0 for i in range(V.nrows)))
    return n


def analysis_non_generic(net: Network, s, data: dict, lines: list, exact: bool = False,
                         seconds: float = 30.0) -> tuple[dict, list[str], dict | None]:
    """The analysis of a bottleneck on which a genericity condition fails: which one, what it
    means, and what holds for every ReLU network (S1, S2, the exact functional dimension and the
    fiber dimension it gives, exact equivalence by the general method)."""
    h = s.failed or next(x for x in s.hypotheses if x.holds is not True)
    key = h.name.split()[0]
    meaning = _FAILS.get(key, "a coincidence the theory excludes")
    d, n1, n2, m = net.widths
    data["non_generic"] = {"failed": h.name, "witness": h.witness, "means": meaning,
                           "theory": "the exact bottleneck theory (S3-S8, CANON, the fiber's "
                                     "components, R16-R22) is proved under G0-G8 and is not "
                                     "applied; the sections below hold for every ReLU network"}
    lines += ["== non-generic: " + h.name + " fails" + (f" at {h.witness}" if h.witness else ""),
              f"  what that means: {meaning}; the exact bottleneck theory (S3-S8, CANON, the "
              "fiber's components, R16-R22) is proved only where G0-G8 hold, so it is not applied "
              "here; what follows holds for every ReLU network"]
    checkpoint()
    orbit = _rescaling_dimension(net)
    data["symmetries"] = {"generators": ["S1", "S2"], "certified_orbit_dimension": orbit}
    lines += ["== symmetries (every ReLU network)",
              f"S1 (permute hidden neurons) and S2 (rescale a neuron by c > 0 in, 1/c out) keep "
              f"the function: the fiber contains their orbit, of dimension {orbit} (one per hidden "
              f"neuron with a non-zero weight, of n1 + n2 = {n1 + n2}; exact); further symmetries "
              "may exist and are not listed"]
    fd = functional_dimension(net, timeout=seconds)
    checkpoint()           # a Ctrl-C that the dimension's search kept as its partial result
    data["functional_dimension"] = fd.to_json()
    fib = fd.fiber_dimension
    data["fiber"] = {"dimension": fib.value, "lower": fib.lower, "upper": fib.upper}
    value = f"{fd.value}" if fd.exact else f"between {fd.lower} and {fd.upper}"
    fiber = (f"fiber dimension " + (f"{fib.value}" if fib.value is not None else
                                    f"between {fib.lower} and {fib.upper}" + (
                                        f" (N - {fd.value} can count directions the fiber does "
                                        f"not have: {fd.fiber_overcount})"
                                        if fd.exact else "")))
    lines += ["== functional dimension and fiber dimension (general exact method)",
              f"functional dimension {value} of {net.n_parameters} parameters ({fd.reason}); {fiber}"
              if fd.exact else
              f"functional dimension {value} of {net.n_parameters} parameters; {fiber}:\n"
              + display.clause_lines(fd.reason, fd.details.get("evidence_lines") or ())]
    lines += [f"  {line}" for line in display.grouped_lines(fd.deficits)]
    copy = _rescaled_copy(net)
    ve = equivalent(net, copy, timeout=seconds)
    checkpoint()
    okc = verify(ve.certificate)[0] if ve.certificate else False
    pert = net.with_parameter("b3[0]", net.biases[-1][0] + to_q("1/1000000"))
    vp = equivalent(net, pert, timeout=seconds)
    checkpoint()
    okp = verify(vp.certificate)[0] if vp.certificate else False
    data["equivalence"] = {
        "transformed": {"steps_applied": ["S1", "S2"], "copy": copy.to_dict(), "answer": ve.answer,
                        "reason": ve.reason, "method": ve.method,
                        "certificate_type": (ve.certificate or {}).get("type"),
                        "certificate_verified": okc},
        "perturbed": {"copy": pert.to_dict(), "answer": vp.answer, "reason": vp.reason,
                      "point": (vp.certificate or {}).get("x"), "certificate_verified": okp}}
    x = (vp.certificate or {}).get("x")
    lines += ["== equivalence: a demonstration of the exact general equivalence test on two "
              "copies of this network",
              f"copy with hidden neurons permuted and rescaled (S1, S2): equivalent = {ve.answer} "
              f"({ve.method}; {(ve.certificate or {}).get('type')} certificate verified: {okc})",
              f"copy with the output bias moved by 1/10^6: equivalent = {vp.answer}; "
              f"counterexample x = {display.point([to_q_derived(t) for t in x], exact) if x else 'none'}, "
              f"verified: {okp}"]
    return data, lines, ve.certificate


def _stopped(exc: BaseException, args) -> str:
    """Why the analysis stopped: the budget's reason, or Ctrl-C."""
    if not isinstance(exc, (Timeout, BudgetExhausted)) or str(exc).startswith("interrupted"):
        return "interrupted (Ctrl-C)"          # a Ctrl-C, or a budget that a Ctrl-C exhausted
    if args.timeout is not None:
        return f"timeout of {args.timeout:g} s reached"
    return str(exc) or "the budget ran out"


def _ctrl_c_seen(budget: Budget) -> bool:
    """A Ctrl-C came while the analysis ran but was kept by a search as its partial result (the
    functional dimension's, an equivalence's): the analysis is not whole (exit 3)."""
    return budget.exhausted() and budget.interrupted


def cmd_analyze(args) -> int:
    budget = Budget(timeout=args.timeout)          # loading NET counts too
    path = args.input or default_example()
    obj = load_any(path)
    if isinstance(obj, Network):
        refuse_empty_layers(obj, path)
        reading_notes(obj, path)
    # a hard stop just inside the allowance (1.05 T + 2 s) for the work that no budget check
    # reaches (the exact fiber of a wide one-hidden-layer net: 64-256-64 ran past 100 s at
    # --timeout 5); the budget itself stops the searches that keep a partial result
    end = None if args.timeout is None else budget.start + 1.03 * args.timeout + 0.5
    if isinstance(obj, Network) and is_bottleneck(obj):
        data, lines, code, cert = {"input": path}, [], 0, None
        try:
            with budget.active(), deadline(budget.remaining()):
                _, _, cert = analysis_bottleneck(obj, seed=args.seed, data=data, lines=lines,
                                                 exact=args.exact)
                if args.input is None:          # the bundled example is also R19's example
                    r = non_localizability_example()
                    data["non_localizability"] = {k: v for k, v in r.items() if k != "certificate"}
                    lines += ["== non-localizability (R19)",
                              f"tail f3∘f2 on R^2 identifiable: {r['tail_identifiable_on_R2']} "
                              f"(fiber dimension {r['tail_fiber_dimension_on_R2']} = n2); first "
                              f"layer identifiable: {r['first_layer_identifiable']}; composite "
                              f"identifiable: {r['composite_identifiable']}",
                              r["explanation"]]
                checkpoint()
        except (Timeout, KeyboardInterrupt) as exc:     # the deadline, or Ctrl-C: the sections done
            data["complete"] = False
            data["reason"] = _stopped(exc, args)
            lines.append(f"== {data['reason']}: partial result")
            code, cert = 3, None
        if code == 0 and _ctrl_c_seen(budget):
            data["complete"], data["reason"], code, cert = False, "interrupted (Ctrl-C)", 3, None
            lines.append("== interrupted (Ctrl-C): partial result")
        if args.certificate and cert is not None:
            write_certificate(cert, args.certificate)
        summary = summary_bottleneck(obj, data, bundled=args.input is None)
        data["summary"] = summary
        text = "\n".join([f"{path}: widths {'-'.join(map(str, obj.widths))}, {obj.n_parameters} "
                          "parameters", "== summary", *summary, "", "== details", *lines])
        if display.text_needs_note([text], args.exact):
            text += "\n" + display.EXACT_NOTE
        emit(args, data, display.with_roundings(data, text, obj))
        return code
    if args.certificate:                 # (silently ignored before: s38 tools audit)
        print(f"netfibers: note: analyze writes --certificate for a three-layer bottleneck only; "
              f"nothing written to {args.certificate} (`netfibers equiv`, `identify`, `dim` or "
              "`absorb` with --certificate certify this input's answers)", file=sys.stderr)
    if isinstance(obj, Network) and obj.depth == 2:
        d, code = {}, 0
        try:
            with budget.active(), alarm_at(end, "the analysis"):
                analysis_shallow(obj, out=d)
        except KeyboardInterrupt as exc:     # the budget (BudgetExhausted) or Ctrl-C
            d["complete"], d["reason"], code = False, _stopped(exc, args), 3
        if code == 0 and _ctrl_c_seen(budget):
            d["complete"], d["reason"], code = False, "interrupted (Ctrl-C)", 3
        d["input"] = path
        head = (f"what it is: a ReLU network with one hidden layer (widths "
                f"{'-'.join(map(str, obj.widths))}, {obj.n_parameters} parameters); netfibers "
                "computes its exact canonical form (kinks and affine part), which decides "
                "equivalence")
        body = list(d.get("text", []))
        if code:
            body.append(f"({d['reason']}: the analysis was cut short; the sections above are "
                        "those done)")
        emit(args, d, display.with_roundings(d, f"{path}:\n{head}\n" + "\n".join(body), obj))
        return code
    if not isinstance(obj, Network):
        try:
            with budget.active(), alarm_at(end, "the absorption decision"):
                d = analysis_block(obj, budget=budget)
        except KeyboardInterrupt as exc:     # the hard stop or Ctrl-C: nothing decided
            d = {"kind": type(obj).__name__, "complete": False, "reason": _stopped(exc, args),
                 "absorption": {"answer": None, "method": None,
                                "reason": f"undecided: {_stopped(exc, args)}"}}
        d["input"] = path
        emit(args, d, _block_text(path, d))
        return 0 if d["absorption"].get("answer") is not None and not _ctrl_c_seen(budget) else 3
    # any other network: architecture and the exact functional dimension (with a budget)
    d = info_dict(obj)
    d["input"] = path
    if args.timeout is None:             # the default budget of this section
        budget = Budget(timeout=60.0)
        end = budget.start + 1.03 * 60.0 + 0.5
    fd = None
    try:
        with budget.active(), alarm_at(end, "the functional dimension"):
            fd = functional_dimension(obj, timeout=budget.remaining(), budget=budget)
    except KeyboardInterrupt as exc:     # the hard stop or Ctrl-C before any bound came back
        reason = _stopped(exc, args)
    what = ("an affine map (no hidden layer): x -> W x + b determines W and b, so its fiber is "
            "the point itself" if not d["hidden_widths"] else
            f"a ReLU network with {len(d['hidden_widths'])} hidden layers, outside "
            "the exact symmetry theories of netfibers (one hidden layer, or a three-layer "
            "bottleneck)")
    text = (f"{path}: widths {'-'.join(map(str, d['widths']))}, {d['n_parameters']} parameters\n"
            f"what it is: {what}; netfibers computes its functional dimension exactly (how many "
            "parameters really matter)\n")
    if fd is None:
        d["functional_dimension"] = None
        d["complete"], d["reason"] = False, reason
        emit(args, d, display.with_roundings(d, text + f"functional dimension not computed "
                                             f"({reason})", obj))
        return 3
    d["functional_dimension"] = fd.to_json() if hasattr(fd, "to_json") else str(fd)
    if fd.exact or not hasattr(fd, "details"):
        value = (f"{fd.value}" if fd.exact else f"between {fd.lower} and {fd.upper}")
        text += f"functional dimension {value} ({fd.reason})"
    else:                            # the reason's clauses one per line, as ``dim`` prints them
        text += (f"functional dimension between {fd.lower} and {fd.upper} of {fd.n_parameters} "
                 "parameters:\n" + display.clause_lines(fd.reason, fd.details.get("evidence_lines") or ()))
    for line in display.grouped_lines(getattr(fd, "deficits", ())):
        text += f"\n  {line}"
    if d["hidden_widths"] and not budget.exhausted():   # a certified copy outside the orbit
        from ..deep import identifiability_deep
        try:
            with budget.active(), alarm_at(end, "identifiability"):
                iv = identifiability_deep(obj, budget=budget)
            d["identifiability"] = {"answer": iv.answer, "reason": iv.reason}
            text += ("\nidentifiable: no - " + iv.reason if iv.answer is False else
                     "\nidentifiable: undecided (no theorem covers these widths; no symmetry "
                     "beyond permutations and positive scalings was found)")
        except KeyboardInterrupt as exc:    # its deadline or Ctrl-C: the section says so (it
            why = (budget.reason if _ctrl_c_seen(budget) else     # was dropped without a word,
                   str(exc) or budget.reason or "stopped")         # exit 0: s45 swallowed-stop F5)
            d["identifiability"] = {"answer": None, "reason": f"undecided: {why} during the search"}
            text += f"\nidentifiable: undecided ({why} during the search for a copy outside the orbit)"
            if not _ctrl_c_seen(budget):
                d["complete"], d["reason"] = False, why
    if _ctrl_c_seen(budget):            # the dimension's search kept the Ctrl-C as its bounds
        d["complete"], d["reason"] = False, "interrupted (Ctrl-C)"
        text += "\n(interrupted (Ctrl-C): the bounds found so far)"
    emit(args, d, display.with_roundings(d, text, obj))
    return 0 if fd.exact and d.get("complete", True) is not False else 3


def _plural(n: int, word: str) -> str:
    """``1 orbit``, ``8 components``, ``≈5.5054e48 components`` (a long count as a decimal);
    a count left open: ``a number of components not determined``."""
    if n is None:
        return f"a number of {word}s not determined"
    return f"{display.numbers([n])} {word}{'' if n == 1 else 's'}"


def _cut_short(data: dict) -> str:
    """The summary's line of a stopped analysis (a Ctrl-C was said as "the timeout": s43
    budgets audit)."""
    why = "a Ctrl-C" if "Ctrl-C" in str(data.get("reason", "")) else "the timeout"
    return f"({why} cut the analysis short: the sections below are those done)"


def summary_bottleneck(net: Network, data: dict, bundled: bool = False) -> list[str]:
    """The plain-language summary of a bottleneck analysis (from the sections in *data*; a
    section cut short by the timeout is said to be missing)."""
    d, n1, n2, m = net.widths
    out = [f"what it is: a ReLU network with two hidden layers (widths {d}-{n1}-{n2}-{m}, "
           f"{net.n_parameters} parameters) whose first hidden layer is not wider than its input: "
           "a three-layer bottleneck, for which netfibers has an exact symmetry theory"]
    if roundings(net):
        out.append(f"read with {_plural(len(roundings(net)), 'rounding')} (a folded BatchNorm's "
                   "scale taken as the framework's float32): every answer below is exact for the "
                   "network as read (see 'hypothesis:' at the end)")
    st = data.get("structure") or {}
    if st and not st.get("generic"):
        return out + _summary_non_generic(net, data)
    ident = data.get("identifiability") or {}
    if ident:
        why = []
        types = st.get("types") or []
        dead = [j for j, t in enumerate(types) if t == "dead"]
        lin = [j for j, t in enumerate(types) if t == "linear"]
        if dead:
            why.append(f"second-layer neuron(s) {dead} are dead (never active), so their weights "
                       "are free (S3)")
        if lin:
            why.append(f"second-layer neuron(s) {lin} are linear (always active), so the linear "
                       "part can be refactored (S4)")
        if st.get("masked") is not None:
            why.append(f"first-layer neuron {st['masked']} is masked (its kink never shows in the "
                       "output), so its bias can shift (S6)")
        if st.get("s7_applies"):
            why.append("the live second-layer rows weigh the masked neuron and another "
                       "first-layer neuron in one ratio (or a single row is live), so first-layer "
                       "neurons can flip sign (S7)")
        if st.get("s8_applies"):
            why.append("the two sides of the only first-layer kink can swap (S8)")
        if ident.get("answer") is True:
            out.append("identifiable: yes - the function determines the weights up to permuting "
                       "neurons and rescaling a neuron's weights by c > 0 (in) and 1/c (out)")
        elif ident.get("answer") is False:
            out.append("identifiable: no - " + ("; ".join(why) if why else ident.get("reason", "")))
        else:
            out.append(f"identifiable: undecided ({ident.get('reason')})")
    fib = data.get("fiber") or {}
    sym = data.get("symmetries") or {}
    if fib.get("dimension") is not None:
        # near these weights (R17, = dim's value), not the largest stratum's (the math audit of
        # session 38: a 2-1-4-1 net read "functional dimension 9" where it is 10)
        fdim = fib.get("dimension_at_theta") if fib.get("dimension_at_theta") is not None else fib["dimension"]
        gens = sym.get("generators") or []
        extra = [g for g in gens if g not in ("S1", "S2")]
        out.append("symmetries: permuting and rescaling neurons (S1, S2)"
                   + (f", and also {', '.join(extra)}" if extra else ", and no others")
                   + f"; {_plural(sym.get('number_of_components', 0), 'component')} and "
                   + f"{_plural(sym.get('number_of_orbits', 0), 'orbit')} of equivalent weight "
                   + "settings" + (" among the strata listed (others are not: see the fiber's notes)"
                                   if fib.get("listing") == "partial" else ""))
        out.append(f"functional dimension {net.n_parameters - fdim} of {net.n_parameters} "
                   f"parameters: the weights can move in {fdim} independent directions without "
                   "changing the function (fiber dimension)")
    eq = data.get("equivalence") or {}
    if eq:
        t, p = eq.get("transformed") or {}, eq.get("perturbed")
        demo = (f"equivalence demo: a copy changed by {len(t.get('steps_applied', ()))} random "
                f"symmetry steps is proved {'equivalent' if t.get('answer') else 'NOT equivalent'}"
                f" (certificate re-checked: {t.get('certificate_verified')})")
        if p is not None:
            demo += (f"; a copy with one weight changed by one part in a million is proved "
                     f"{'different' if p.get('answer') is False else 'equivalent'} (exact "
                     f"counterexample re-checked: {p.get('certificate_verified')})")
        out.append(demo)
    if bundled and data.get("non_localizability"):
        out.append("non-localizability: each block of this example is identifiable on its own, "
                   "the whole network is not (three-layer-fibers R19)")
    if data.get("complete") is False:
        out.append(_cut_short(data))
    out.append("terms: 'netfibers explain TERM' (G1-G8, S1-S8, dead, linear, switching, masked, "
               "Gamma, fiber, ...)")
    return out


def _summary_non_generic(net: Network, data: dict) -> list[str]:
    """The summary lines of a non-generic bottleneck: what fails and means, then what holds."""
    ng = data.get("non_generic") or {}
    key = (ng.get("failed") or "?").split()[0]
    out = [f"generic: no - {ng.get('failed', '?')} fails: {ng.get('means', '')}; the exact "
           f"bottleneck theory is proved only for generic networks, so netfibers does not apply it "
           f"(see 'netfibers explain {key}')",
           "identifiable: undecided (the identifiability criterion R18 needs G0-G8)"]
    sym = data.get("symmetries") or {}
    if sym:
        out.append(f"symmetries: permuting and rescaling neurons (S1, S2), an orbit of dimension "
                   f"{sym.get('certified_orbit_dimension')} inside the fiber; others may exist")
    fd = data.get("functional_dimension") or {}
    fib = data.get("fiber") or {}
    if fd:
        n = net.n_parameters
        if fd.get("exact"):
            moves = (fib.get("dimension") if fib.get("dimension") is not None else
                     f"between {fib.get('lower')} and {fib.get('upper')}")
            out.append(f"functional dimension {fd['functional_dimension']} of {n} parameters: the "
                       f"weights can move in {moves} independent directions without "
                       "changing the function (fiber dimension, general exact method)")
        else:
            out.append(f"functional dimension between {fd.get('lower')} and {fd.get('upper')} of "
                       f"{n} parameters (fiber dimension between {fib.get('lower')} and "
                       f"{fib.get('upper')}; {fd.get('reason')})")
    eq = data.get("equivalence") or {}
    if eq:
        t, p = eq.get("transformed") or {}, eq.get("perturbed") or {}
        out.append(f"equivalence demo (general exact method): a permuted and rescaled copy is "
                   f"proved {'equivalent' if t.get('answer') else 'NOT equivalent' if t.get('answer') is False else 'undecided'}"
                   f" (certificate re-checked: {t.get('certificate_verified')}); a copy with the "
                   f"output bias moved by 1/10^6 is proved "
                   f"{'different' if p.get('answer') is False else 'equivalent' if p.get('answer') else 'undecided'}"
                   f" (re-checked: {p.get('certificate_verified')})")
    if data.get("complete") is False:
        out.append(_cut_short(data))
    return out


def _block_text(path: str, d: dict) -> str:
    v = d.get("absorption", {})
    answer = {True: "absorbable", False: "not absorbable", None: "undecided"}[v.get("answer")]
    lines = [f"{path}: block d={d.get('d')}, k={d.get('k')}, activation {d.get('activation')}, "
             f"skip {d.get('skip')}", f"absorption: {answer} [{v.get('method')}]: {v.get('reason')}"]
    return "\n".join(lines)


def _perturbed(net: Network, s):
    sw = [j for j, t in enumerate(s.types or ()) if t == "switching"]
    if not sw:
        return None
    j = sw[0]
    W2, _ = net.layer(1)
    return net.with_parameter(f"W2[{j},0]", W2[j, 0] * (1 + W2[j, 0].__class__(1, 10 ** 6)))


