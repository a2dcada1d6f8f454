"""Commands ``equiv``, ``diff`` and ``dim`` (general exact equivalence, deviation, dimension).

* ``netfibers equiv A B [--method auto|general|shallow|bottleneck] [--box lo,hi | --box
  lo1:hi1,... | --box FILE.json | --box file | --orthant] [--timeout S] [--max-regions N]
  [--certificate FILE] [--json]``: exit 0 equivalent, 1 not equivalent, 2 input error, 3
  undecided (budget, Ctrl-C, or the chosen method does not apply).  The certificate
  (``region_cover``, ``counterexample`` or a fast path's) is written atomically, only when the
  question was decided.  JSON keys: ``answer``, ``method``, ``reason``, ``hypotheses``,
  ``certificate``, ``regions_checked``.  A box with its own sides (not a cube) is decided for
  a, b read on the cube (three-layer-fibers R36): an ``on_box`` certificate, or a
  ``counterexample`` at the user's x in the user's box; JSON adds ``box`` and ``note``.
* ``netfibers diff A B [--box lo,hi | --box lo1:hi1,... | --box FILE.json | --box file |
  --ball X,R | --orthant] [--method auto|bab|walk] [--certificate FILE] [--exact] [--timeout S]
  [--max-regions N] [--json]``: a certified interval ``[lower, upper]`` on sup over the domain
  (all of R^d when none is given) of max over outputs of |a − b| (exact branch and bound,
  :mod:`semialgebraic.bab`; on an unbounded domain first the exact boundedness test of
  :mod:`semialgebraic.bab.recession`; the exact region walk first for small nets on a cube,
  handing over to branch and bound after 400 regions or 0.3 of ``--timeout``), the
  ``point`` and ``output`` attaining ``lower``, ``complete`` (lower = upper; exit 3 otherwise).
  JSON keys ``lower``, ``upper`` (exact strings; both ``"inf"`` when unbounded, with ``ray``;
  ``upper`` null when no upper bound was certified within the budget), ``complete`` (lower =
  upper), ``max_deviation`` (the same string as lower), ``point``, ``output``, ``per_output``
  (``[{lower, upper}]``; the region walk's per-output maxima too), ``nodes``, ``reason``,
  ``method`` (which method decided).
* ``netfibers equiv A B [DOMAIN as for diff] --epsilon E``: exit 0 with a ``bab_bound`` /
  ``bab_recession`` certificate that max |a − b| <= E, 1 with a point where |a − b| > E, 3 when
  the budget ran out.  JSON: ``answer``, ``decided`` (answer not null), ``epsilon`` and the keys
  of ``diff`` (``complete`` is lower = upper, which a decided answer need not reach).
* ``netfibers dim NET [--box lo,hi | --orthant] [--timeout S] [--max-regions N] [--json]``:
  ``functional_dimension``, ``fiber_dimension``, ``exact``, and ``lower``/``upper`` when not
  exact (exit 3 then).
"""

from __future__ import annotations

import time
from dataclasses import replace

from algebra.exceptions import AlgebraError, InputError
from algebra.kernel import box_input_map, compose_input_map, compose_slice_map
from algebra.kernel.domains import Domain
from algebra.rationals import Q, q_str, to_q, to_q_derived

from ..budget import Budget, answer_kept
from ..exceptions import SemialgebraicError
from ..certificates import write_certificate
from ..cli import emit, fail
from ..dimension.functional import on_slice
from ..dimension.result import MOVES
from ..bab import diff_bounds, epsilon_equivalent
from ..bab.diff import unprepared
from .plot import diff_picture
from ..dimension import functional_dimension, functional_dimension_certificate
from ..dimension.certificate import box_certificate
from ..equivalence import METHODS, equal_first, equivalent, max_deviation
from ..regions.hull import preload
from ..sets import interior_point
from ..verdict import Verdict
from . import display
from .common import (check_output_dir, is_existing_file, load_network, load_pair_in_units, parse_box,
                     parse_domain, units_report, with_domain,
                     domain_line)
from .help import describe

__all__ = ["register"]


def register(sub, parent) -> None:
    p = sub.add_parser("equiv", parents=[parent], help="decide exactly whether two networks are equivalent",
                       **describe(
                           "Decide exactly whether networks A and B compute the same function "
                           "(on R^d, a box, a ball, the orthant, or a box cut by half-spaces). "
                           "--method auto tries the fast paths (one hidden layer: canonical "
                           "form; three-layer bottleneck: CANON, three-layer-fibers R20), each "
                           "only after its hypotheses are checked exactly, then the general "
                           "exact method (a walk over the linear regions of a - b). The answer "
                           "names the method that decided; a counterexample prints x, a(x), "
                           "b(x) and a(x) - b(x) per output.",
                           exits=["0  equivalent", "1  not equivalent",
                                  "3  undecided (budget, Ctrl-C, or the chosen method does not "
                                  "apply)"],
                           examples=["netfibers equiv algebra/examples/t5_perm_scale_a.json "
                                     "algebra/examples/t5_perm_scale_b.json --certificate cert.json",
                                     "netfibers equiv a.json b.json --box -1,1 --timeout 60",
                                     "netfibers equiv a.nnet b.nnet --box file --certificate cert.json"]))
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help=f"decision method, one of {', '.join(METHODS)} (default auto)")
    _domain_args(p, box_help="LO,HI: the cube [lo, hi]^d; lo1:hi1,lo2:hi2: a box with its own sides "
                             "(decided for a, b read on the cube, three-layer-fibers R36); FILE.json "
                             "([[lo, hi], ...], or with half-spaces a.x <= b and open sides: "
                             "decided on that polyhedron itself, by the region walk, else as "
                             "max |a - b| <= 0 by branch and bound); 'file': a .nnet file's input "
                             "box (default: all of R^d)")
    _budget_args(p)
    p.add_argument("--certificate", metavar="FILE", help="write the certificate (exact equality: "
                   "only when decided; with --epsilon also the certified interval of a budget "
                   "that ran out)")
    p.add_argument("--epsilon", metavar="E", help="decide max |a - b| <= E on the domain (exact "
                   "branch and bound; --box in any form of diff, --ball, --orthant, or all of R^d): "
                   "exit 0 with a certificate, 1 with a point, 3 budget")
    p.add_argument("--ball", metavar="X,R", help="the L-infinity ball around X (x1,...,xd,R or "
                   "x,R; the box [X - R, X + R])")
    p.set_defaults(func=cmd_equiv)

    p = sub.add_parser("diff", parents=[parent],
                       help="certified interval on the maximum deviation |a - b| over a domain",
                       **describe(
                           "Bound max |a(x) - b(x)| over a domain (largest over the outputs too): "
                           "a box (a cube, per-coordinate bounds, a JSON file that may add "
                           "half-spaces a.x <= b and leave sides open with null, or a .nnet "
                           "file's input box), an L-infinity ball, the orthant, or all of R^d "
                           "when no domain is given. The answer is a certified interval [lower, "
                           "upper] with the point and output attaining the lower bound, exact "
                           "when lower = upper. On an unbounded domain it first decides exactly "
                           "whether |a - b| is bounded: +inf comes with a certified ray. Small "
                           "pairs on a cube are decided by the exact region walk, others by exact "
                           "branch and bound (--method). JSON keys: lower, upper (exact strings; "
                           "\"inf\" when unbounded, null when no upper bound was found within "
                           "the budget), complete, max_deviation (= lower), point, output, "
                           "per_output, nodes, reason, method.",
                           exits=["0  exact maximum (lower = upper; +inf with a certified ray)",
                                  "3  not closed (a budget, or a search that stopped: the reason says which): [lower, upper] is certified"],
                           examples=["netfibers diff algebra/examples/t1_masked.json "
                                     "algebra/examples/t1_translated_2.json --box -3,3",
                                     "netfibers diff A.json B.json --box=-1:1,0:2 --method bab "
                                     "--certificate cert.json",
                                     "netfibers diff A.json B.json --orthant --json"]))
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--box", metavar="LO,HI", help="the cube [lo, hi]^d; lo1:hi1,lo2:hi2 (one interval "
                   "per coordinate); FILE.json ({box, halfspaces}); or 'file' (a .nnet input box)")
    g.add_argument("--ball", metavar="X,R", help="the L-infinity ball of radius R around X (x1,...,xd,R; or x,R around (x, ..., x))")
    g.add_argument("--orthant", action="store_true", help="the closed orthant x >= 0 (unbounded)")
    p.add_argument("--method", choices=("auto", "bab", "walk"), default="auto",
                   help="bab: exact branch and bound; walk: exact region walk (small cases); "
                        "auto: the walk for small nets on a cube (then bab after 400 regions or "
                        "0.3 of --timeout), else bab, for small nets after exact equality on a "
                        "third of the budget (a = b proven: 0 with its certificate)")
    p.add_argument("--certificate", metavar="FILE", help="write the certificate (bab_bound, or the "
                   "equality's for an equal pair; auto then uses branch and bound; refused with "
                   "--method walk, which writes none)")
    p.add_argument("--plot", metavar="FILE", help="also draw |a - b| on a 2-D slice (.png, .svg, .pdf)")
    _budget_args(p)
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("dim", parents=[parent], help="exact functional dimension and fiber dimension",
                       **describe(
                           "Compute the functional dimension of NET (how many parameters really "
                           "matter) and its fiber dimension at NET's weights (how many directions "
                           "the weights can move near them without changing the function; the "
                           "fiber can have larger strata elsewhere, which `netfibers fiber` lists "
                           "for one hidden layer and three-layer bottlenecks), exactly when the "
                           "bounds meet: "
                           "lower bound from the exact rank of Jacobian rows sampled per "
                           "activation region, upper bound from the proven symmetry directions. "
                           "A parameter at which no input is a differentiable point is reported "
                           "non-generic, never given a value.",
                           exits=["0  exact value",
                                  "3  only bounds, or a non-generic parameter"],
                           examples=["netfibers dim algebra/examples/masked_bottleneck.json",
                                     "netfibers dim net.json --box -1,1 --certificate dim.json",
                                     "netfibers dim acas.nnet --box file --timeout 60"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--certificate", metavar="FILE",
                   help="write a certificate of the bounds (netfibers verify re-checks the lower bound, "
                        "and the upper bound when every direction it uses is re-derivable)")
    _domain_args(p, box_help="LO,HI: the cube [lo, hi]^d; lo1:hi1,lo2:hi2,…: a box; 'file': a .nnet "
                             "file's input box (a box is read on the cube); FILE.json: {box, "
                             "halfspaces}, a box cut by half-spaces a.x <= b (bounds between the "
                             "rank at inputs of the cut and the value on the box, three-layer-fibers "
                             "R37); default: all of R^d")
    p.add_argument("--ball", metavar="X,R", help="the L-infinity ball x,R (the box [x - R, x + R])")
    _budget_args(p)
    p.set_defaults(func=cmd_dim)


def cmd_equiv(args) -> int:
    check_output_dir(args.certificate)
    budget = _budget(args)                 # reading A and B counts too
    a, b, args.units = load_pair_in_units(args.a, args.b)
    if a.signature != b.signature:
        fail(f"{args.a} has (inputs, outputs) {a.signature} but {args.b} has {b.signature}")
    if args.epsilon is not None:
        return _cmd_equiv_epsilon(args, a, b, budget)
    if args.ball is not None:          # exact equality on the box [x - R, x + R]
        dom = parse_domain(args, a.n_inputs, a)
        domain = dom.as_cube or dom.box
    else:
        domain = _domain(args, a)
    if isinstance(domain, Domain) and args.method != "auto":
        # half-spaces or open sides: the region walk on the polyhedron, then branch and bound
        # (semialgebraic.equivalence.dispatch._on_cut)
        fail(f"--method {args.method} decides on a box, the orthant or R^d; on half-spaces or "
             "open sides exact equality is decided by --method auto (the region walk on the "
             "domain, then branch and bound)")
    try:
        # active: the fast paths' own loops (the exact facet-cell walks of the bottleneck
        # check on a trained 64-32-16-10 net: minutes) stop at the deadline too; a walk stopped
        # so leaves its hypothesis undecided (never assumed); the general method then reports
        # the budget
        with budget.active():
            v = equivalent(a, b, method=args.method, domain=domain, budget=budget)
    except KeyboardInterrupt as exc:       # a loop outside any walk, or a Ctrl-C between the
        # methods' own handlers (s45 swallowed-stop audit O1: one line): undecided, nothing proved
        why = str(exc) or (budget.reason if budget.exhausted() else None) or "interrupted (Ctrl-C)"
        v = Verdict(None, args.method, f"undecided: {why} before a method decided",
                    (), None, {"regions_checked": 0, "complete": False})
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 O2, F7)
        if args.certificate and v.answer is not None and v.certificate is not None:
            write_certificate(v.certificate, args.certificate)
        data = v.to_json() if getattr(args, "json", False) else {}    # large certificates: costly
        data.setdefault("regions_checked", v.details.get("regions_checked", 0))
        if data and v.answer is False and "point" not in data and \
                isinstance((v.certificate or {}).get("x"), list):    # every method's point at the top
            data["point"] = v.certificate["x"]                        # (new-user audit: not canon's)
        units, line = units_report(args.units, parse_domain(args, a.n_inputs, a), args.exact) if args.units \
            else ({}, "")
        data.update(units)
        note = ""
        if isinstance(domain, Domain):      # half-spaces or open sides (equivalence.dispatch._on_cut)
            note = f"\n  decided on the domain itself by the {v.details['decided_by']}" \
                if "decided_by" in v.details else ""
            pt = v.details.get("point")
            if v.answer is False and v.method == "branch and bound" and pt is not None:
                pt, o = [to_q_derived(t) for t in pt], v.details.get("output")
                gap = to_q_derived(v.details["lower"]) if v.details.get("lower") not in (None, "inf") else None
                note = (f"\n  x = {display.point(pt, args.exact)}"
                        + ("" if gap is None else f"\n  |a_{o}(x) - b_{o}(x)| = {display.number(gap, args.exact)}")
                        + note + display.note(pt + ([] if gap is None else [gap]), args.exact))
        if isinstance(domain, list):        # a box with its own sides, decided on the cube
            data.setdefault("box", [[str(lo), str(hi)] for lo, hi in domain])
            data["note"] = note = _ON_BOX_NOTE
            note = "\n  " + note
        text = equiv_text(v, exact=args.exact)
        note = domain_line(data, parse_domain(args, a.n_inputs, a), args.exact) + note
        legend = "\n" + display.EXACT_NOTE
        if text.endswith(legend):           # the notes first, the ≈ legend last
            text = text[:-len(legend)] + note + line + legend
        else:
            text += note + line
        emit(args, data, display.with_roundings(data, text, hypotheses=v.hypotheses))
        return v.exit_code()


_ON_BOX_NOTE = ("on the box, decided for a and b read on [-1, 1]^d (x = centre + half-width * u maps "
                "the cube onto the box; three-layer-fibers R36)")


_X_IN_REASON = "; a(x) != b(x) at x = ("


def decided_by(v) -> str:
    """The method that decided *v*: a fast path whose hypotheses fail and that still answers "not
    equivalent" did not decide; its exact counterexample did."""
    cert = v.certificate or {}
    own_failed = any(h.holds is False and h.name.startswith(("a: ", "b: ")) for h in v.hypotheses)
    if v.answer is False and cert.get("type") == "counterexample" and \
            (own_failed or v.reason.startswith("outside the")):
        return "exact counterexample"
    return v.method


def equiv_text(v, exact: bool = False) -> str:
    """The text of an equivalence verdict: the answer, the method that decided, the reason; a
    counterexample adds x, a(x), b(x) and a(x) - b(x) per output (decimals unless *exact*)."""
    word = {True: "equivalent", False: "not equivalent", None: "undecided"}[v.answer]
    reason = v.reason
    cert = v.certificate or {}
    is_cx = v.answer is False and cert.get("type") == "counterexample" and "x" in cert
    if is_cx and _X_IN_REASON in reason:          # the point is printed below, readably
        reason = reason[:reason.index(_X_IN_REASON)]
    if reason.startswith(word + ": "):            # "undecided (general): undecided: ..." read twice
        reason = reason[len(word) + 2:]
    text = f"{word} ({decided_by(v)}): {reason}"
    if is_cx:
        x = [to_q_derived(t) for t in cert["x"]]
        ax = [to_q_derived(t) for t in cert.get("a_x", ())]
        bx = [to_q_derived(t) for t in cert.get("b_x", ())]
        lines = [f"  x = {display.point(x, exact)}"]
        for o, (u, w) in enumerate(zip(ax, bx)):
            if u != w or len(ax) <= 4:
                # digits enough to tell a(x) from b(x) ("a(x) = 3, b(x) = ≈ 3.0000": s43 docs audit)
                su, sw = display.apart(u, w, exact, short=True)   # (a(x) − b(x) beside them)
                lines.append(f"  output {o}: a(x) = {su}, b(x) = {sw}, a(x) - b(x) = "
                             f"{display.number(u - w, exact)}")
        if len(ax) > 4 and sum(u == w for u, w in zip(ax, bx)):
            lines.append(f"  ({sum(u == w for u, w in zip(ax, bx))} other output(s) agree at x)")
        text += "\n" + "\n".join(lines) + display.note([*x, *ax, *bx, *(u - w for u, w in zip(ax, bx))], exact)
    return text


def _cmd_equiv_epsilon(args, a, b, budget: Budget) -> int:
    """``equiv --epsilon E``: decide ``max |a − b| <= E`` by exact branch and bound."""
    try:
        eps = to_q(args.epsilon)
    except AlgebraError as exc:
        fail(f"--epsilon: {exc}")
    if eps < 0:
        fail("--epsilon must be >= 0")
    dom = parse_domain(args, a.n_inputs, a)
    try:
        same = equal_first(a, b, dom, budget)
    except KeyboardInterrupt:       # (its certificate's assembly: s46 Ctrl-C audit F-EPS)
        budget.interrupt()
        same = None
    # a Ctrl-C the equality check kept or met: branch and bound answers from what it gets done
    # at once (its root bounds), and the answer says so (s46 Ctrl-C audit F-EPS-BAB)
    stopped_first = budget.exhausted() and budget.interrupted
    if same is not None:          # a = b on the domain, certified: max |a - b| = 0 <= E
        with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 O2, F7)
            if args.certificate:
                write_certificate(same.certificate, args.certificate)
            units, line = units_report(getattr(args, "units", None), dom, args.exact)
            data = {"answer": True, "epsilon": str(eps), "lower": "0", "upper": "0", "complete": True,
                    "max_deviation": "0", "method": f"equality ({same.method})", "reason": same.reason,
                    "decided": True, **units}
            checked = bool(same.details.get("certificate_checked"))
            data["certificate_checked"] = checked
            note = "" if checked else ("\n  certificate not re-checked in-process (budget)"
                                       + (f": run `netfibers verify {args.certificate}`"
                                          if args.certificate else ""))
            emit(args, data, with_domain(data, f"max |a - b| <= {_eps_text(args, eps)} (a and b are equal on the "
                                               f"domain, {same.method}: {same.reason})" + note + line,
                                         dom, args.exact))
            return 0
    try:
        answer, r = epsilon_equivalent(a, b, dom, eps, budget=budget, copies=True)
    except KeyboardInterrupt:       # a Ctrl-C between the search's own handlers (O1, as diff)
        budget.interrupt()
        r = unprepared(a, b, dom, budget, eps, when="before the search could report its bounds")
        answer = False if r.lower > eps else None
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 O2, F7)
        # undecided too: the certified interval so far (the bab_bound certificate `diff` writes)
        written = args.certificate if args.certificate and r.certificate is not None else None
        if written:
            write_certificate(r.certificate, written)
        units, line = units_report(getattr(args, "units", None), dom, args.exact)
        data = {"answer": answer, "epsilon": str(eps), **r.to_json(),
                "decided": answer is not None, **units}
        if stopped_first and same is None:
            data["reason"] = ("interrupted (Ctrl-C) during the exact equality check; decided by "
                              f"branch and bound from what it did at once: {data.get('reason')}"
                              if answer is not None else data.get("reason"))
        if answer is None:
            pass
        elif answer is True:
            text = f"max |a - b| <= {_eps_text(args, eps)} ({data['method']}, certified: upper bound {_num(r.upper, args)})"
        elif answer is False:
            text = (f"max |a - b| > {_eps_text(args, eps)}: |a_{r.output} - b_{r.output}| = "
                    f"{display.number_above(r.lower, eps, getattr(args, 'exact', False))} at "
                    f"x = {display.point(r.point, args.exact)}")
            if r.unbounded:
                text += f"\n  {r.reason}"
        if answer is None:
            text = (f"undecided: max |a - b| in [{_num(r.lower, args)}, {_upper(r, args)}] "
                    f"({r.reason})" if r.upper is not None else
                    f"undecided: max |a - b| >= {_num(r.lower, args)} ({r.reason})")
        if stopped_first and same is None and answer is not None:
            text += ("\n  (interrupted (Ctrl-C) during the exact equality check: decided by branch "
                     "and bound from what it did at once)")
        text += _checked_note(r, written)
        emit(args, data, with_domain(data, text + line, dom, args.exact))
        return {True: 0, False: 1, None: 3}[answer]


def _num(q, args) -> str:
    return display.number(q, getattr(args, "exact", False))


def _eps_text(args, eps) -> str:
    """ε exact when short (``1/1000``) or with --exact; else as the user typed it (``1e-300``:
    the 303 characters of 1/10^300 were printed, s54), or as a decimal when that is long too."""
    text = q_str(eps)
    if getattr(args, "exact", False) or len(text) <= 40:
        return text
    typed = str(getattr(args, "epsilon", "")).strip()
    return typed if 0 < len(typed) <= 40 else display.number(eps)


def _upper(r, args) -> str:
    return "+inf" if r.unbounded else _num(r.upper, args)


def _checked_note(r, path) -> str:
    """Whether the certificate was re-checked in-process; never claims a check that did not run."""
    if r.checked:
        return ""
    why = "Ctrl-C" if "interrupted" in (r.reason or "") else "budget"
    if path:
        return (f"\n  certificate written, not re-checked in-process ({why}): run "
                f"`netfibers verify {path}`")
    return (f"\n  the answer's certificate (kept in memory: --certificate FILE writes it) was not "
            f"re-checked in-process ({why})")


AUTO_WALK_REGIONS = 400
"""``diff --method auto``: regions the walk may take before branch and bound takes over."""

AUTO_WALK_SHARE = 0.3
"""``diff --method auto`` with ``--timeout``: the share of it the walk may use first."""


def _small(a, b) -> bool:
    """The region walk suits the pair: few hidden neurons, or few inputs (in R^d, d <= 3, the
    number of linear regions grows polynomially in the neurons, and the walk is exact)."""
    n = a.n_hidden + b.n_hidden
    return n <= 12 or (a.n_inputs <= 3 and n <= 64)


def _agree_at_samples(a, b, dom, budget: Budget) -> bool:
    """Do *a* and *b* agree at a few exact sample points of *dom* (corners, centre, 8 random
    points: :func:`~semialgebraic.equivalence.refutation.refute_random`, at most 2 s or a tenth
    of what is left; out of time: no)?  Then exact equality is worth its share of the budget even on a pair too
    large for the walk (a 4-6-2-5-3-2 pair, a bias traded into the next layer: [0, 116.8] after
    20 s that ``equiv`` proves in 2 s; s53 deep audit F1); a near copy differs at once."""
    from ..budget import alarm_at
    from ..equivalence.refutation import refute_random
    from ..sets import normalize_domain
    left = budget.remaining()
    seconds = 2.0 if left is None else min(2.0, left / 10)
    share = Budget(timeout=seconds)
    try:                             # (not could_be_equivalent: out of time it says True)
        with share.active(), alarm_at(time.monotonic() + seconds, "the sample points"):
            return refute_random(a, b, normalize_domain(dom, a.n_inputs, polyhedral=True),
                                 8, 0) is None
    except (KeyboardInterrupt, AlgebraError, SemialgebraicError):
        return False                 # (out of time, or no sample point: not tried)


def cmd_diff(args) -> int:
    if args.method == "walk" and args.certificate:      # (it was silently not written: s43 docs audit)
        fail("--certificate: --method walk writes no certificate; use --method bab (or auto, "
             "which takes branch and bound when a certificate is asked for)")
    check_output_dir(args.certificate)
    check_output_dir(args.plot, "--plot")
    budget = _budget(args)                 # reading A and B counts too
    a, b, units = load_pair_in_units(args.a, args.b)
    if a.signature != b.signature:
        fail(f"{args.a} has (inputs, outputs) {a.signature} but {args.b} has {b.signature}")
    d = a.n_inputs
    dom = parse_domain(args, d, a)
    box = dom.box
    cube = box is not None and len(set(box)) == 1
    method = args.method
    walk_dom = cube or (None not in dom.lo + dom.hi and (dom.halfspaces or box is not None))
    if method == "walk" and not walk_dom:
        fail("--method walk needs a bounded domain: a cube lo,hi, a box with its own sides or a "
             "bounded box cut by half-spaces")
    walk_first = False
    if method == "auto":
        method = ("walk" if cube and not args.certificate
                  and (args.max_regions is not None or _small(a, b)) else "bab")
        walk_first = method == "walk" and args.max_regions is None
    units, line = units_report(units, dom, args.exact)
    if method == "bab":
        same = None
        if args.method == "auto" and (_small(a, b) or _agree_at_samples(a, b, dom, budget)):
            # exact equality first (as equiv --epsilon), on a third of the budget: branch and
            # bound closes a − b <= 0 only where its relaxations cancel, so an equal pair of other
            # shapes (duplicated, dead, identity neurons) stayed [0, 0.82] after 40 s with
            # --certificate, which the walk's region cover proves in 2 s (s51 audit 2 F2)
            try:
                same = equal_first(a, b, dom, budget)
            except KeyboardInterrupt:
                budget.interrupt()
        return _cmd_diff_bab(args, a, b, dom, units, line, budget=budget, same=same)
    if not cube:                     # --method walk on a bounded polyhedron (its own sides, cuts)
        if args.plot is not None and box is None:
            fail("--plot needs a bounded box (--box or --ball) without half-spaces")
        return _cmd_diff_walk(args, a, b, dom, units, line, budget)
    box = box[0]
    if walk_first:
        # auto: the walk first, on its share; a walk it does not finish hands over to branch and
        # bound with the rest of the budget, which always holds an interval (a 3-12-12-2 pair and
        # its float16 copy: 300 regions of the walk in 5 s and no upper bound after 10 s; branch
        # and bound decided it with 564 nodes in 8 s)
        share = Budget(None if args.timeout is None else AUTO_WALK_SHARE * args.timeout,
                       AUTO_WALK_REGIONS)
        dev = max_deviation(a, b, box, budget=share)
        if not dev.complete and not share.interrupted and not budget.exhausted():
            same = None
            if dev.value == 0:
                # no difference in the regions walked: exact equality next (as on a ball or cut),
                # else an equal pair whose walk did not finish stayed [0, 116.8] after 20 s that
                # equiv proves in 3 s (s53 deep audit F1: a bias traded into the next layer)
                try:
                    same = equal_first(a, b, dom, budget)
                except KeyboardInterrupt:
                    budget.interrupt()
            # the user's budget, started before the walk: its reason names the user's timeout
            return _cmd_diff_bab(args, a, b, dom, units, line, budget=budget,
                                 points=[] if dev.point is None else [dev.point],
                                 walk=f"the region walk stopped after {dev.regions} regions "
                                      f"({share.reason}); "
                                      + ("exact equality decided" if same is not None else
                                         "branch and bound took over"), same=same)
    else:
        dev = max_deviation(a, b, box, budget=budget)
    if dev.point is None:  # the budget ran out before the first region: exact value at a corner
        corner = tuple([box[0]] * a.n_inputs)
        diffs = [abs(u - v) for u, v in zip(a(corner), b(corner))]
        o = max(range(len(diffs)), key=diffs.__getitem__)
        dev = replace(dev, value=diffs[o], point=corner, output=o, complete=False,
                      reason=f"{dev.reason}; no region walked, value at the corner x = lo")
    at = f"x = {display.point(dev.point, args.exact)}, output {dev.output}"
    text = ((f"max |a - b| = {display.number(dev.value, args.exact)} at {at}" if dev.complete else
             f"max |a - b| >= {display.number(dev.value, args.exact)}; lower bound attained at {at} "
             f"({dev.reason}; no upper bound from the walk)")   # as branch and bound says it
            + line + display.note([dev.value, *dev.point], args.exact))
    diff_picture(args.plot, a, b, [box] * d, dev.point, dev.value if dev.complete else None)
    # per output: the walk's largest |a_o - b_o| (exact when complete, else only a lower bound)
    data = {**dev.to_json(), **units}
    if not dev.complete:             # "inf" is reserved for a proved unbounded supremum
        data["reason"] = f"{dev.reason}; no upper bound within the budget"
    emit(args, data, with_domain(data, text, dom, args.exact))   # JSON "method": which decided
    return 0 if dev.complete else 3


def _cmd_diff_walk(args, a, b, dom, units: dict, line: str, budget: Budget) -> int:
    """``diff --method walk`` on a bounded polyhedron (a box with its own sides, box ∩
    half-spaces): the exact region walk of a − b inside it, one exact LP per region."""
    if interior_point(dom) is None:
        fail("--method walk needs a domain with an interior (use --method bab)")
    dev = max_deviation(a, b, dom, budget=budget)
    at = f"x = {display.point(dev.point, args.exact)}, output {dev.output}"
    text = ((f"max |a - b| = {display.number(dev.value, args.exact)} at {at}" if dev.complete else
             f"max |a - b| >= {display.number(dev.value, args.exact)}; lower bound attained at {at} "
             f"({dev.reason}; no upper bound from the walk)")
            + line + display.note([dev.value, *dev.point], args.exact))
    if dom.box is not None:
        diff_picture(args.plot, a, b, dom.box, dev.point, dev.value if dev.complete else None)
    data = {**dev.to_json(), **units}
    if not dev.complete:
        data["reason"] = f"{dev.reason}; no upper bound within the budget"
    emit(args, data, with_domain(data, text, dom, args.exact))
    return 0 if dev.complete else 3


def _equal_result(a, dom, same: Verdict):
    """max |a − b| = 0 on *dom*, exactly, with *same*'s certificate (re-checked in-process by
    ``equal_first`` when the budget left room) and a point of the domain."""
    from ..bab.diff import BabResult, domain_point
    z = Q(0)
    r = BabResult(z, z, domain_point(dom), 0, [(z, z)] * a.n_outputs, 0, True,
                  f"a = b on the domain ({same.method}: {same.reason})", same.certificate)
    r.checked = bool(same.details.get("certificate_checked"))
    return r


def _cmd_diff_bab(args, a, b, dom, units: dict, line: str, *, budget: Budget | None = None,
                  walk: str = "", points=(), same: Verdict | None = None) -> int:
    """``diff`` by branch and bound; with *same* (``equal_first``'s certified verdict that a = b
    on the domain) the exact 0 with that verdict's certificate instead."""
    if args.plot is not None and dom.box is None:
        fail("--plot needs a bounded box (--box or --ball) without half-spaces")
    # *points*: the walk's best point (walk-first auto) stays a candidate: its lower bound is kept
    budget = budget or _budget(args)
    try:
        r = (_equal_result(a, dom, same) if same is not None else
             diff_bounds(a, b, dom, budget=budget, points=points, copies=True))
    except KeyboardInterrupt:       # a Ctrl-C between the search's own handlers (s45 swallowed-
        budget.interrupt()          # stop audit O1: one line): the value at one point, certified
        r = unprepared(a, b, dom, budget, when="before the search could report its bounds")
    # a Ctrl-C the search or its self-check kept (the value stands, said not re-checked): exit 3,
    # as every Ctrl-C (dim and conserved alike, s45); one after the decision: the verdict's code
    code = 0 if r.complete and not (budget.exhausted() and budget.interrupted) else 3
    with answer_kept():     # decided: a first Ctrl-C no longer loses the answer (s45 O2, F7)
        diff_picture(args.plot, a, b, dom.box, r.point, r.lower if r.complete else None)
        if args.certificate:
            write_certificate(r.certificate, args.certificate)
        at = f" at x = {display.point(r.point, args.exact)}, output {r.output}"
        if r.unbounded:
            text = (f"max |a - b| = +inf: {r.reason}; |a_{r.output} - b_{r.output}| = "
                    f"{_num(r.lower, args)}{at}")
        elif r.upper is None:
            text = f"max |a - b| >= {_num(r.lower, args)}; lower bound attained{at} ({r.reason})"
        elif r.complete:
            text = f"max |a - b| = {_num(r.lower, args)}{at}"
        else:
            lo_text, hi_text = display.bounds(r.lower, r.upper, getattr(args, "exact", False))
            text = (f"max |a - b| \u2208 [{lo_text}, {hi_text}]; lower bound attained{at}"
                    f" ({r.reason})")
        if same is not None:
            text += f" [decided by exact equality: {same.method}, {same.reason}]"
        elif (r.certificate or {}).get("type") == "symmetry_path":   # (bab.diff._symmetric_copy)
            text += " [decided by symmetry: b is a with neurons permuted and rescaled, S1, S2]"
        elif "constant" in (r.certificate or {}):                  # (bab.diff._pruned_pair)
            text += f" [decided: {r.reason}]"
        else:
            text += f" [{'decided by ' if r.complete else ''}branch and bound, {r.nodes} node{'s' * (r.nodes != 1)}]"
        data = {**r.to_json(), **units}
        if same is not None:
            data["method"] = f"equality ({same.method})"
        if walk:
            text += f"\n  {walk}"
            data["walk"] = walk
        emit(args, data, with_domain(data, text + _checked_note(r, args.certificate) + line, dom,
                                     args.exact))
        return code


def cmd_dim(args) -> int:
    check_output_dir(args.certificate)
    net = load_network(args.net, parameters=True)
    user_net, box, sliced = net, None, None
    try:
        dom_obj = parse_domain(args, net.n_inputs, net)
        dom = dom_obj.legacy()
    except InputError as exc:
        if dom_obj.halfspaces and None not in dom_obj.lo + dom_obj.hi:
            return _dim_on_cut(args, net, dom_obj)      # a box cut by half-spaces (R37)
        cs = box_input_map(dom_obj.lo, dom_obj.hi) if not dom_obj.halfspaces else None
        sliced = (compose_slice_map(net, dom_obj.lo, dom_obj.hi)
                  if cs is None and not dom_obj.halfspaces else None)
        flat = [k for k, (lo, hi) in enumerate(zip(dom_obj.lo, dom_obj.hi))
                if lo is not None and lo == hi]
        if cs is None and sliced is None and len(flat) == net.n_inputs:   # one point
            fail("dim: the box has width 0 in every coordinate (lo = hi), a point given per "
                 "coordinate: give it as a cube --box v,v when all coordinates are equal, or fix "
                 "the inputs in the network")
        if cs is None and sliced is None:
            what = ("half-spaces with open sides" if dom_obj.halfspaces else "open sides"
                    if None in dom_obj.lo + dom_obj.hi else None)
            fail("dim: takes R^d, the orthant, a box (a cube or its own sides per coordinate) or a "
                 f"box cut by half-spaces, not {what}" if what else f"dim: {exc.problem}")
        # a box with different sides: the network read on the cube (three-layer-fibers R36); a
        # slice (some sides of width 0): the network of its free coordinates (R36 (b))
        box, dom = (dom_obj.lo, dom_obj.hi), (Q(-1), Q(1))
        net = compose_input_map(net, *cs) if cs is not None else sliced
    # with --certificate and --timeout, a fifth of the budget is kept for the certificate
    # (its ranks and re-check are not stopped by a timeout)
    timeout = args.timeout * 0.8 if args.certificate and args.timeout is not None else args.timeout
    start = time.monotonic()
    kw = {"budget": Budget(timeout)}
    if args.max_regions is not None:
        kw["max_regions"] = args.max_regions
    with kw["budget"].active():      # inner loops stop at the deadline (BudgetExhausted)
        fd = functional_dimension(net, domain=dom, timeout=timeout,
                                  reserve_for_certificate=bool(args.certificate), **kw)
    cert_text, cert_stopped, cert_weaker = "", False, {}   # the certificate's lines, after the result's
    if args.certificate and fd.non_generic:     # nothing to certify: no value at this theta
        cert_text += ("\n  no certificate written: the functional dimension is not defined at this theta "
                      "(each nearby value was certified by its own re-checked certificate)")
    elif args.certificate and not fd.inputs and fd.details.get("theorem") != "R38":
        cert_text += ("\n  no certificate written: no input was sampled within the budget, and a "
                      "certificate without a differentiable input shows nothing (a larger --timeout "
                      "samples some)")
    elif args.certificate and sliced is not None and fd.details.get("theorem") == "R38":
        cert_text += ("\n  no certificate written: decided by three-layer-fibers R38 (one hidden "
                      "layer), whose certificate takes a box with every side of width > 0, not a "
                      "slice")
    elif args.certificate:           # proof searches count their work; a timeout only stops them
        seconds = None if args.timeout is None else max(0.5, args.timeout - (time.monotonic() - start))
        report: dict = {}
        try:
            cert = (functional_dimension_certificate(net, fd, domain=dom, seconds=seconds, report=report)
                    if box is None else box_certificate(user_net, *box, fd, seconds=seconds, report=report))
            write_certificate(cert, args.certificate)       # (atomic: whole or not at all)
            cert_text += f"\n  certificate written to {args.certificate}"   # (s45 re-run N5)
        except KeyboardInterrupt:    # the answer stands; the file asked for is not written (it
            kw["budget"].interrupt()  # left with the report: s45 Ctrl-C audit F6), exit 3
            cert, cert_stopped = {}, True
            cert_text += (f"\n  no certificate written: {kw['budget'].reason or 'interrupted'} "
                          "while it was built")
        inner = cert.get("inner", cert)          # (on_box: the cube's certificate inside)
        if "lower" in inner and "upper" not in inner and fd.upper is not None and not fd.non_generic:
            # (a functional_dimension certificate; R38's one_hidden_layer_dimension holds a value)
            # the report's upper bound is the run's; the file certifies the lower one only (a
            # Ctrl-C in its cover walk, a budget: s45 Ctrl-C audit F3 — the report said nothing)
            why = inner.get("uncertified_upper_reason") or "not built"
            stopped = kw["budget"].exhausted() and kw["budget"].interrupted
            cert_text += (f"\n  the certificate certifies functional dimension >= {inner['lower']} "
                          f"only; the upper bound {fd.upper} is not in it ({why}"
                          + ("; interrupted (Ctrl-C)" if stopped else "") + ")")
            cert_weaker = {"certificate_lower": inner["lower"], "certificate_upper": None,
                           "certificate_note": why + ("; interrupted (Ctrl-C)" if stopped else "")}
            cert_stopped = cert_stopped or stopped    # a Ctrl-C cut the file short: exit 3
        if report.get("upper") is not None and fd.lower <= report["upper"] < fd.upper:
            # the certificate proves a tighter upper bound than the run's (its rank of the proven
            # directions stopped by the budget, or facts its own searches proved): the result
            # says the certified one (s40 dimscale audit: 939 printed, 527 proven)
            fd = replace(fd, upper=report["upper"], reason=(
                f"{fd.reason}; upper {report['upper']} (was {fd.upper}) by the certificate's "
                "proven directions, each fact re-derived and all of them ranked"))
        if "fiber_lower" in cert:                # the fiber's floor by moves (three-layer-fibers R40)
            k, top = cert["fiber_lower"], fd.n_parameters - fd.lower
            if (fd.fiber_floor or 0) < k <= top:  # the report never below its own certificate
                fd = replace(fd, fiber_floor=k)  # (its moves are not all `dim`'s: s46 audit)
            cert_text += (f"\n  certificate: fiber dimension {k} (the moves it lists reach N - the "
                          "functional dimension)" if k == top else
                          f"\n  certificate: fiber dimension between {k} (scalings, split, dead and "
                          f"unread neurons' moves) and {top} (N - the certified lower bound)")
        if "unchecked" in report:
            cert_text += (f"\n  certificate written, not re-checked here: {report['unchecked']}; "
                          f"`netfibers verify {args.certificate}` checks it")
    if sliced is not None:           # the result of the free coordinates' network, as the user's
        fd = on_slice(fd, user_net)
    if fd.non_generic:
        text = f"non-generic parameter: {fd.non_generic}"
        for e in fd.nearby:
            value = (f"functional dimension {e['dimension']} (certified)" if e["certified"] else
                     "non-generic too" if e["non_generic"] else
                     f"between {e['lower']} and {e['upper']} (not certified)")
            text += f"\n  nearby, theta with {e['change']}: {value}"
        if fd.local_upper is not None:
            text += f"\n  local upper value {fd.local_upper} (the largest certified nearby value)"
    elif fd.exact:
        fib = fd.fiber_dimension
        reading = fd.fiber_exact_by == "R22" and fib.exact
        text = (f"functional dimension {fd.value} of {fd.n_parameters} parameters; "
                + (f"fiber dimension {fib.value} ({fd.reason})"
                   + (f"\n  fiber dimension {fib.value} by {fib.reason} (certified: between "
                      f"{fd.fiber_floor or 0} and {fib.value})" if reading else "")
                   + ("" if fib.value == fd.n_parameters - fd.value else
                      f"\n  fiber dimension {fib.value} < N - {fd.value} = "
                      f"{fd.n_parameters - fd.value}: {fib.reason}") if fib.exact else
                   f"fiber dimension between {fib.lower} and {fib.upper} ({fd.reason}; "
                   + (f"N - {fd.value} = {fib.upper}" if fib.upper == fd.n_parameters - fd.value
                      else f"{fib.upper} (N - {fd.value} = {fd.n_parameters - fd.value}, less "
                           "directions proven not to be the fiber's)")       # (it printed
                   + f" can count directions the fiber does not have: {fd.fiber_overcount}; "  # N - 9 = 6
                   f"{fib.lower}: the moves proven to keep the function near theta — "
                   f"{MOVES})"))
    else:                            # the reason's clauses one per line (JSON: one string)
        text = (f"functional dimension between {fd.lower} and {fd.upper} of {fd.n_parameters} "
                f"parameters:\n" + display.clause_lines(fd.reason, fd.details.get("evidence_lines") or ()))
    deficits = fd.deficits
    if fd.exact and not fd.non_generic and fd.fiber_dimension.exact and \
            fd.fiber_dimension.value == fd.n_parameters - fd.value:
        # the fiber's moves explain them (e.g. opposite pairs traded against active neurons)
        deficits = tuple(x for x in deficits if "not explained by the known symmetries" not in x)
    for line in display.grouped_lines(deficits):
        text += f"\n  {line}"
    if fd.details.get("theorem") == "R38":      # no sampling: each neuron classified exactly
        kernel = fd.details["kernel"]           # R39: a linear block or neurons sharing a hyperplane
        text += ("\n  work done: none sampled; every neuron classified exactly (three-layer-fibers "
                 + ("R38, R39)" if kernel.get("active") or kernel.get("split") else "R38)"))
    else:
        text += f"\n  work done: {fd.work_text()} (deterministic given the seed and this work)"
    text += cert_text
    if sliced is not None:
        fixed = [f"x{k} = {display.number(lo, args.exact)}"      # 0-based, as `regions` says
                 for k, (lo, hi) in enumerate(zip(*box)) if lo == hi]   # a slice (s43 docs audit)
        text += (f"\n  on the slice {', '.join(fixed)} of the box, "
                 f"computed for the network of the {sliced.n_inputs} free coordinate(s) read on "
                 "[-1, 1]^d' (the fixed ones folded into the first layer's biases; the inputs, "
                 "neurons' parameters and deficits above are that network's): the same functional "
                 f"dimension, N and the fiber larger by the {fd.details['slice']['fixed_weights']} "
                 "weights of the fixed columns (three-layer-fibers R36 (b))")
    elif box is not None:
        text += ("\n  on the box, computed for the network read on [-1, 1]^d (x = centre + half-width * u: "
                 "the same functional dimension, three-layer-fibers R36)")
    data = fd.to_json()
    if sliced is not None:
        data["slice"] = {"fixed": [{"coordinate": k, "value": q_str(Q(lo))}     # 0-based
                                   for k, (lo, hi) in enumerate(zip(*box)) if lo == hi],
                         "fixed_weights": fd.details["slice"]["fixed_weights"],
                         "note": fd.details["slice"]["note"]}
    text = with_domain(data, text, dom_obj, args.exact)
    data.update(cert_weaker)
    if cert_stopped and not cert_weaker:
        data["certificate"] = None
    ctrl_c_seen = kw["budget"].exhausted() and kw["budget"].interrupted
    if ctrl_c_seen:                  # a Ctrl-C a search kept as its partial result (the nearby
        data["complete"] = False     # θ' check's walk: the fiber left open, exit 0 and no word:
        data.setdefault("interrupted", "interrupted (Ctrl-C): the bounds found so far")  # s45 N2)
        if "interrupted (Ctrl-C)" not in text:
            text += "\n  (interrupted (Ctrl-C): the bounds found so far)"
    emit(args, data, display.with_roundings(data, text, user_net))
    return 0 if fd.exact and not cert_stopped and not ctrl_c_seen else 3


def _dim_on_cut(args, net, dom_obj) -> int:
    """``dim`` on a box cut by half-spaces: between the certified values at inputs of the domain
    (those of runs on the largest cube inside it and on the box) and on the box around it
    (three-layer-fibers R37); exit 0 when they meet, 3 otherwise."""
    from ..dimension.sandwich import functional_dimension_on_cut, sandwich_certificate
    timeout = args.timeout * 0.8 if args.certificate and args.timeout is not None else args.timeout
    start = time.monotonic()
    with Budget(timeout).active():
        cut = functional_dimension_on_cut(net, dom_obj.lo, dom_obj.hi, list(dom_obj.halfspaces),
                                          timeout=timeout)
    if cut.inner is None:
        fail("dim: the box cut by the half-spaces has no interior (no cube fits inside it)")
    if cut.outer.non_generic:
        text = (f"non-generic parameter on the box around the domain: {cut.outer.non_generic} "
                f"(functional dimension between {cut.lower} and {cut.upper})")
    elif cut.exact:
        text = f"functional dimension {cut.value} of {cut.n_parameters} parameters"
    else:
        text = (f"functional dimension between {cut.lower} and {cut.upper} of {cut.n_parameters} "
                "parameters")
    text += f"\n  {cut.reason}"
    if cut.theorem:                               # R38/R39 on the cut: what the kernel holds
        text += "".join(f"\n  {line}" for line in cut.theorem[0].deficits)
    if args.certificate:
        seconds = None if args.timeout is None else max(0.5, args.timeout - (time.monotonic() - start))
        try:
            write_certificate(sandwich_certificate(net, cut, seconds=seconds), args.certificate)
        except ValueError as exc:                 # no differentiable input found in the domain
            text += f"\n  no certificate written: {exc}"
    data = cut.to_json()
    text = with_domain(data, text, dom_obj, args.exact)
    emit(args, data, display.with_roundings(data, text, net))
    return 0 if cut.exact else 3


# ------------------------------------------------------------------------------------------------
def _domain_args(p, box_help="the cube [lo, hi]^d (default: all of R^d)") -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--box", metavar="LO,HI", help=box_help)
    g.add_argument("--orthant", action="store_true", help="the closed orthant x >= 0")


def _budget_args(p) -> None:
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (undecided or partial answer, exit 3)")
    p.add_argument("--max-regions", type=int, metavar="N", help="linear regions to walk at most")


def _domain(args, net=None):
    """The domain of ``equiv`` (exact equality): None (R^d), ``"orthant"``, ``(lo, hi)`` (a
    cube), ``[(lo_i, hi_i)]`` (a box with its own sides, any form of ``diff --box`` without
    half-spaces or open sides; :func:`semialgebraic.equivalence.equivalent` reads it on the
    cube, three-layer-fibers R36), or a :class:`~algebra.kernel.domains.Domain` with half-spaces
    or open sides (decided as max |a − b| <= 0 by branch and bound)."""
    if getattr(args, "orthant", False):
        return "orthant"
    text = getattr(args, "box", None)
    if text is None:
        return None
    if net is not None and (text == "file" or ":" in text or text.endswith(".json")
                            or is_existing_file(text)):   # lo1:hi1,…, FILE.json, a .nnet box
        dom = parse_domain(args, net.n_inputs, net)
        if dom.box is None:
            legacy = dom.legacy_or_none()
            if legacy in (None, "orthant") and not dom.halfspaces:
                return legacy
            return dom      # half-spaces or open sides: max |a - b| = 0 by branch and bound
        return dom.as_cube or dom.box
    return parse_box(text)      # "--box ''" is an error, never R^d


def _budget(args) -> Budget:
    if args.timeout is not None and not args.timeout > 0:
        fail("--timeout must be a positive number of seconds")
    if args.max_regions is not None and args.max_regions < 1:
        fail("--max-regions must be at least 1")
    if args.timeout is not None:        # a one-time import, before the clock (not inside it)
        preload()
    return Budget(args.timeout, args.max_regions)
