"""Commands ``equiv``, ``diff`` and ``dim`` (general exact equivalence, deviation, dimension).

* ``netfibers equiv A B [--method auto|general|shallow|bottleneck] [--box lo,hi | --orthant]
  [--timeout S] [--max-regions N] [--certificate FILE] [--json]``: exit 0 equivalent, 1 not
  equivalent, 2 input error, 3 undecided (budget, Ctrl-C, or the chosen method does not apply).
  The certificate (``region_cover``, ``counterexample`` or a fast path's) is written atomically,
  only when the question was decided.  JSON keys: ``answer``, ``method``, ``reason``,
  ``hypotheses``, ``certificate``, ``regions_checked``.
* ``netfibers diff A B --box lo,hi [--timeout S] [--max-regions N] [--json]``: exact
  ``max_deviation`` = max over the box of max over outputs of |a − b|, the ``point`` and
  ``output`` attaining it, ``complete`` (exit 3 when a budget cut the walk short: the value is
  then a lower bound).
* ``netfibers dim NET [--box lo,hi | --orthant] [--timeout S] [--max-regions N] [--json]``:
  ``functional_dimension``, ``fiber_dimension``, ``exact``, and ``lower``/``upper`` when not
  exact (exit 3 then).
"""

from __future__ import annotations

from dataclasses import replace

from algebra.rationals import to_q

from ..budget import Budget
from ..certificates import write_certificate
from ..cli import emit, fail
from ..dimension import functional_dimension, functional_dimension_certificate
from ..equivalence import METHODS, equivalent, max_deviation
from . import display
from .common import load_network, parse_box
from .help import describe

__all__ = ["register"]


def register(sub, parent) -> None:
    p = sub.add_parser("equiv", parents=[parent], help="decide exactly whether two networks are equivalent",
                       **describe(
                           "Decide exactly whether networks A and B compute the same function "
                           "(on R^d, a box, or the orthant). --method auto tries the fast paths "
                           "(one hidden layer: canonical form; three-layer bottleneck: CANON, "
                           "three-layer-fibers R20), each only after its hypotheses are checked "
                           "exactly, then the general exact method (a walk over the linear "
                           "regions of a - b). The answer names the method that decided; a "
                           "counterexample prints x, a(x), b(x) and a(x) - b(x) per output.",
                           exits=["0  equivalent", "1  not equivalent",
                                  "3  undecided (budget, Ctrl-C, or the chosen method does not "
                                  "apply)"],
                           examples=["netfibers equiv algebra/examples/t5_perm_scale_a.json "
                                     "algebra/examples/t5_perm_scale_b.json --certificate cert.json",
                                     "netfibers equiv a.json b.json --box -1,1 --timeout 60"]))
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--method", choices=METHODS, default="auto",
                   help=f"decision method, one of {', '.join(METHODS)} (default auto)")
    _domain_args(p)
    _budget_args(p)
    p.add_argument("--certificate", metavar="FILE", help="write the certificate (only when decided)")
    p.set_defaults(func=cmd_equiv)

    p = sub.add_parser("diff", parents=[parent], help="exact maximum deviation |a - b| over a box",
                       **describe(
                           "Compute exactly the largest deviation max |a(x) - b(x)| of networks "
                           "A and B over the cube [LO, HI]^d (largest over the outputs too), the "
                           "point x and the output attaining it. JSON keys: max_deviation, "
                           "point, output, complete.",
                           exits=["0  exact maximum",
                                  "3  a budget cut the walk short: the value is a lower bound"],
                           examples=["netfibers diff algebra/examples/t1_masked.json "
                                     "algebra/examples/t1_translated_2.json --box -3,3"]))
    p.add_argument("a", metavar="A")
    p.add_argument("b", metavar="B")
    p.add_argument("--box", required=True, metavar="LO,HI", help="the cube [lo, hi]^d")
    _budget_args(p)
    p.set_defaults(func=cmd_diff)

    p = sub.add_parser("dim", parents=[parent], help="exact functional dimension and fiber dimension",
                       **describe(
                           "Compute the functional dimension of NET (how many parameters really "
                           "matter) and its fiber dimension (how many directions the weights can "
                           "move without changing the function), exactly when the bounds meet: "
                           "lower bound from the exact rank of Jacobian rows sampled per "
                           "activation region, upper bound from the proven symmetry directions. "
                           "A parameter at which no input is a differentiable point is reported "
                           "non-generic, never given a value.",
                           exits=["0  exact value",
                                  "3  only bounds, or a non-generic parameter"],
                           examples=["netfibers dim algebra/examples/masked_bottleneck.json",
                                     "netfibers dim net.json --box -1,1 --certificate dim.json"]))
    p.add_argument("net", metavar="NET")
    p.add_argument("--certificate", metavar="FILE",
                   help="write a certificate of the bounds (netfibers verify re-checks the lower bound, "
                        "and the upper bound when every direction it uses is re-derivable)")
    _domain_args(p)
    _budget_args(p)
    p.set_defaults(func=cmd_dim)


def cmd_equiv(args) -> int:
    a, b = load_network(args.a), load_network(args.b)
    if a.signature != b.signature:
        fail(f"{args.a} has (inputs, outputs) {a.signature} but {args.b} has {b.signature}")
    budget = _budget(args)
    v = equivalent(a, b, method=args.method, domain=_domain(args), budget=budget)
    if args.certificate and v.answer is not None and v.certificate is not None:
        write_certificate(v.certificate, args.certificate)
    data = v.to_json()
    data.setdefault("regions_checked", v.details.get("regions_checked", 0))
    emit(args, data, equiv_text(v, exact=args.exact))
    return v.exit_code()


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
    text = f"{word} ({decided_by(v)}): {reason}"
    if is_cx:
        x = [to_q(t) for t in cert["x"]]
        ax = [to_q(t) for t in cert.get("a_x", ())]
        bx = [to_q(t) for t in cert.get("b_x", ())]
        lines = [f"  x = {display.point(x, exact)}"]
        for o, (u, w) in enumerate(zip(ax, bx)):
            if u != w or len(ax) <= 4:
                lines.append(f"  output {o}: a(x) = {display.number(u, exact)}, b(x) = "
                             f"{display.number(w, exact)}, a(x) - b(x) = {display.number(u - w, exact)}")
        if len(ax) > 4 and sum(u == w for u, w in zip(ax, bx)):
            lines.append(f"  ({sum(u == w for u, w in zip(ax, bx))} other output(s) agree at x)")
        text += "\n" + "\n".join(lines) + display.note([*x, *ax, *bx], exact)
    return text


def cmd_diff(args) -> int:
    a, b = load_network(args.a), load_network(args.b)
    if a.signature != b.signature:
        fail(f"{args.a} has (inputs, outputs) {a.signature} but {args.b} has {b.signature}")
    box = parse_box(args.box)
    dev = max_deviation(a, b, box, budget=_budget(args))
    if dev.point is None:  # the budget ran out before the first region: exact value at a corner
        corner = tuple([box[0]] * a.n_inputs)
        diffs = [abs(u - v) for u, v in zip(a(corner), b(corner))]
        o = max(range(len(diffs)), key=diffs.__getitem__)
        dev = replace(dev, value=diffs[o], point=corner, output=o, complete=False,
                      reason=f"{dev.reason}; no region walked, value at the corner x = lo")
    text = (f"max |a - b| = {display.number(dev.value, args.exact)} at x = "
            f"{display.point(dev.point, args.exact)}, output {dev.output}"
            + ("" if dev.complete else f" (lower bound: {dev.reason})")
            + display.note([dev.value, *dev.point], args.exact))
    emit(args, dev.to_json(), text)
    return 0 if dev.complete else 3


def cmd_dim(args) -> int:
    net = load_network(args.net)
    kw = {"budget": Budget(args.timeout)}
    if args.max_regions is not None:
        kw["max_regions"] = args.max_regions
    fd = functional_dimension(net, domain=_domain(args), timeout=args.timeout, **kw)
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
        text = (f"functional dimension {fd.value} of {fd.n_parameters} parameters; "
                f"fiber dimension {fd.n_parameters - fd.value} ({fd.reason})")
    else:
        text = (f"functional dimension between {fd.lower} and {fd.upper} of {fd.n_parameters} "
                f"parameters ({fd.reason})")
    for line in fd.deficits:
        text += f"\n  {line}"
    if args.certificate and fd.non_generic:     # nothing to certify: no value at this theta
        text += ("\n  no certificate written: the functional dimension is not defined at this theta "
                 "(each nearby value was certified by its own re-checked certificate)")
    elif args.certificate:           # the proof searches of the upper bound share the budget
        left = kw["budget"].remaining()
        seconds = 10.0 if left is None else max(0.5, min(10.0, left))
        write_certificate(functional_dimension_certificate(net, fd, domain=_domain(args), seconds=seconds),
                          args.certificate)
    emit(args, fd.to_json(), text)
    return 0 if fd.exact else 3


# ------------------------------------------------------------------------------------------------
def _domain_args(p) -> None:
    g = p.add_mutually_exclusive_group()
    g.add_argument("--box", metavar="LO,HI", help="the cube [lo, hi]^d (default: all of R^d)")
    g.add_argument("--orthant", action="store_true", help="the closed orthant x >= 0")


def _budget_args(p) -> None:
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS (undecided or partial answer, exit 3)")
    p.add_argument("--max-regions", type=int, metavar="N", help="linear regions to walk at most")


def _domain(args):
    if getattr(args, "orthant", False):
        return "orthant"
    if getattr(args, "box", None):
        return parse_box(args.box)
    return None


def _budget(args) -> Budget:
    if args.timeout is not None and not args.timeout > 0:
        fail("--timeout must be a positive number of seconds")
    if args.max_regions is not None and args.max_regions < 1:
        fail("--max-regions must be at least 1")
    return Budget(args.timeout, args.max_regions)
