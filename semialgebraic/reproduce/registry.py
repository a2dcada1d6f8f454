"""The registry of ``netfibers reproduce``: one entry per numbered item of docs/math.

Each :class:`Entry` names its reference and identifier (as in the headings of
``docs/math/three-layer-fibers.md`` and ``docs/math/skip-absorption.md``), the tag of the item
([paper], [derived], …), what is checked and how, and a ``check()`` that runs through the public
API on bundled examples (``algebra/examples/``) and returns ``(ok, detail)``: ``True`` the
documented value was obtained, ``False`` another one, ``None`` the item is not a computation
(context: the detail says what stands for it).  ``tests/semialgebraic/test_reproduce.py``
asserts that the registry covers every numbered item listed in docs/math.

Three-layer side: three-layer-fibers R1–R42 (R16a–c too), G0–G8, S1–S8 (= R8–R15), T1–T11, P1–P16.
Skip-absorption side: skip-absorption R1–R20, the examples A … P6, pitfalls 1–12, the Cor. 11
random experiment.  Documented deviations from the reference are the entries ``deviation …``.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from typing import Callable

import algebra
from algebra.blocks import Block, BlockStack
from algebra.io.blocks import block_from_dict
from algebra.io.native import network_from_dict
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

__all__ = ["Entry", "REGISTRY", "EXAMPLES"]

EXAMPLES = Path(algebra.__file__).resolve().parent / "examples"
TL, SA = "three-layer-fibers", "skip-absorption"


@dataclass(frozen=True)
class Entry:
    reference: str
    id: str
    tag: str
    what: str
    check: Callable[[], tuple]


def _json(name):
    return json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))


def _net(name) -> Network:
    return network_from_dict(_json(name), source=f"{name}.json")


def _blk(name):
    return block_from_dict(_json(name), source=f"{name}.json")


# ---------------------------------------------------------------------------------------------
# three-layer-fibers helpers
# ---------------------------------------------------------------------------------------------
def _equiv(a, b, expected=True):
    from ..bottleneck import equivalent_bottleneck
    from ..verify import verify
    v = equivalent_bottleneck(_net(a), _net(b))
    ok = v.answer is expected and v.certificate is not None and verify(v.certificate)[0]
    return ok, f"EQUIV({a}, {b}) = {v.answer} ({v.method}), certificate {v.certificate and v.certificate['type']} verified"


def _equiv_moved(what: str, move) -> tuple:
    """T5's first net against a copy made by *move* alone (a function of the layers' rows), the
    bottleneck decision and its certificate verified — one symmetry per row (s47 audit: S1, S2
    and P9 all reran the T5 pair, which mixes both)."""
    from ..bottleneck import equivalent_bottleneck
    from ..verify import verify
    a = _net("t5_perm_scale_a")
    Ws, bs = move([W.to_rows() for W in a.weights], [list(b) for b in a.biases])
    v = equivalent_bottleneck(a, Network.from_rows(Ws, bs))
    checked = v.certificate is not None and verify(v.certificate)[0]
    return (v.answer is True and checked,
            f"T5 against {what}: {v.answer} ({v.method}), certificate "
            f"{'verified' if checked else 'not verified'}")


def _permuted(Ws, bs):
    """Both hidden layers' neurons swapped (rows, biases and the next layer's columns)."""
    for l in (0, 1):
        Ws[l], bs[l] = Ws[l][::-1], bs[l][::-1]
        Ws[l + 1] = [row[::-1] for row in Ws[l + 1]]
    return Ws, bs


def _rescaled(factors):
    """Each hidden neuron (layer by layer) scaled by its positive factor, the next columns by
    the inverse."""
    def move(Ws, bs):
        k = 0
        for l in (0, 1):
            for i in range(len(Ws[l])):
                c = Q(factors[k % len(factors)])
                k += 1
                Ws[l][i] = [c * w for w in Ws[l][i]]
                bs[l][i] *= c
                for row in Ws[l + 1]:
                    row[i] /= c
        return Ws, bs
    return move


def _all(*checks):
    oks, details = zip(*checks)
    return all(oks), "; ".join(details)


def _struct(net_rows, bias_rows):
    from ..bottleneck import structure
    return structure(Network.from_rows(net_rows, bias_rows))


def _failed(net):
    from ..bottleneck import genericity
    return next((h for h in genericity(net) if h.holds is False), None)


def _sign_tables(table=None):
    cases = _json("t8_t9_sign_tables")["cases"]
    return [c for c in cases if table is None or c["table"].startswith(table)]


def _r17(table):
    from ..bottleneck import dimension_formula
    bad = []
    cases = _sign_tables(table)
    for c in cases:
        v = dimension_formula(network_from_dict(c["network"])).value
        if v != c["expected_dimension"]:
            bad.append((c["pattern"], v, c["expected_dimension"]))
    return not bad, f"R17 on the {len(cases)} fixed {table} draws (algebra/examples/t8_t9_sign_tables.json)" + (f": mismatches {bad}" if bad else ": all equal the table")


def _fibdim(table, limit=None):
    from ..bottleneck import jacobian_dimension
    cases = _sign_tables(table)[:limit]
    bad = [(c["pattern"], d) for c in cases
           if (d := jacobian_dimension(network_from_dict(c["network"]))) != c["expected_dimension"]]
    return not bad, f"FIBDIM (exact Jacobian rank) on {len(cases)} fixed {table} draws" + (f": mismatches {bad}" if bad else ": all equal the table")


def _r18():
    from ..bottleneck import identifiability
    from ..verify import verify
    bad = []
    cases = [c for c in _sign_tables("T8") if c["table"] == "T8"]
    for c in cases:
        net = network_from_dict(c["network"])
        v = identifiability(net)
        expect = c["expected_dimension"] == net.widths[1] + net.widths[2]
        if v.answer is not expect or not verify(v.certificate)[0]:
            bad.append(c["pattern"])
    return not bad, f"identifiable iff dim Fib = n1 + n2 on the 8 T8 sign patterns, certificates verified" + (f"; wrong: {bad}" if bad else "")


def _r5():
    rng_vals = itertools.cycle([1, 2, 3, 5, 4, 7])
    worst = 0
    for signs in itertools.product((-1, 1), repeat=8):
        rows = [[s * next(rng_vals) for s in signs[:4]], [s * next(rng_vals) for s in signs[4:]]]
        live = [r for r in rows if not all(x < 0 for x in r)]
        if not live:
            continue
        cols = [i for i in range(3) if all(r[3] < 0 and r[i] > 0 and all(r[k] < 0 for k in range(3) if k != i) for r in live)]
        worst = max(worst, len(cols))
        s = _struct([[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [r[:3] for r in rows], [[1, 2]]],
                    [[0, 0, 0], [r[3] for r in rows], [0]])
        if s.masked != (cols[0] if cols else None):
            return False, f"structure disagrees on {rows}"
    return worst == 1, f"all 256 sign patterns of [W2 | b2], n1 = 3, n2 = 2: at most {worst} masked column"


def _s6():
    from ..bottleneck import structure
    s = structure(_net("t1_masked"))
    ok = s.masked == 0 and tuple(s.s6_interval) == (Q(-1), Q(3, 2))
    eq, det = _all(_equiv("t1_masked", "t1_translated_7_5"), _equiv("t1_masked", "t1_translated_m9_10"))
    return ok and eq, f"T1: masked column 0, S6 interval {list(map(str, s.s6_interval))}; {det}"


def _conservation(name, laws, lie):
    from algebra.conservation import conservation_laws, samples_from_patterns
    from ..regions import regions
    net = _net(name)
    walk = regions(net)
    patterns = walk.patterns()
    if not walk.complete:           # stopped (Ctrl-C): a count from some regions is no verdict
        raise walk.budget.stop()
    res = conservation_laws(net, samples_from_patterns(patterns))
    if res.stopped_in:              # the laws' computation stopped (Ctrl-C): no verdict on it
        raise KeyboardInterrupt(f"the laws' computation was stopped ({res.stopped_in})")
    ok = res.exact and res.number_of_laws == laws and res.lie_rank == lie
    return ok, f"{name}: {res.number_of_laws} laws, Lie rank {res.lie_rank} (expected {laws}, {lie})"


def _t10():
    return _all(_conservation("t10_two_linear", 4, 5), _conservation("t10_masked", 2, 4),
                _conservation("t10_linear", 2, 4))


def _paper_r19():
    from ..bottleneck.composition import paper_non_localizability_example
    from ..bottleneck import non_localizability_example
    r = paper_non_localizability_example()
    t1 = non_localizability_example()
    ok = (r["f2_f1_identifiable"], r["f3_f2_identifiable"], r["composite_identifiable"]) == (True, True, False) \
        and r["certificate"] is not None and t1["composite_identifiable"] is False
    return ok, ("paper's reading (algebra/examples/r19_paper_reading.json): f2∘f1, f3∘f2 identifiable, "
                "composite not, non_localizability certificate verified; T1 reading: composite not identifiable")


def _r21():
    from ..equivalence import equivalent
    from ..recover import NetworkOracle, recover
    net = _net("r21_shallow")
    oracle = NetworkOracle(net)
    r = recover(oracle, 2, 1)
    if r.network is None and not r.complete:
        raise KeyboardInterrupt("the recovery was stopped before the network was recovered")
    ok = r.network is not None and equivalent(r.network, net).answer is True and len(r.hyperplanes) == 3
    return ok, (f"r21_shallow.json as a black box: {len(r.hyperplanes)} hyperplanes, "
                f"{'network certified equal' if ok else 'network not recovered equal'}, {oracle.queries} queries")


def _g(name_rows, expect):
    net = Network.from_rows(*name_rows)
    h = _failed(net)
    ok = (h is None and expect is None) or (h is not None and expect is not None and h.name.startswith(expect))
    return ok, f"first failing condition: {h.name if h else 'none'} (expected {expect or 'none'})"


G_NETS = {
    "G0": (([[[1], [2]], [[1, -1]], [[1]]], [[0, 0], [-1], [0]]), "G0"),
    "G1": (([[[1, 2], [2, 4]], [[1, -1]], [[1]]], [[0, 0], [-1], [0]]), "G1"),
    "G2": (([[[1, 0], [0, 1]], [[1, 0]], [[1]]], [[0, 0], [-1], [0]]), "G2"),
    "G3": (([[[1, 0], [0, 1]], [[1, -1], [2, -3]], [[1, 0]]], [[0, 0], [-1, 1], [0]]), "G3"),
    "G5": (([[[1, 0], [0, 1]], [[1, -1], [-2, 2]], [[1, 1]]], [[0, 0], [-1, 2], [0]]), "G5"),
    "G7": (([[[1, 0], [0, 1]], [[1, 1], [1, 2]], [[1, -1]]], [[0, 0], [1, 1], [0]]), "G7"),
    "G8": (([[[1, 0], [0, 1]], [[-1, -1], [-1, -2]], [[-1, "1/2"]]], [[0, 0], [1, 1], [0]]), "G8"),
}


def _g4():
    from ..bottleneck import genericity
    h = {x.name[:2]: x for x in genericity(Network.from_rows([[[1, 2], [2, 4]], [[1, -1], [-1, 2]], [[1, 1]]],
                                                             [[1, 2], [1, -1], [0]]))}
    ok = h["G1"].holds is False and h["G4"].holds is None
    h2 = {x.name[:2]: x for x in genericity(_net("t5_perm_scale_a"))}
    return ok and h2["G4"].holds is True, "proportional rows of [W1 | b1] fail G1 first (G4 implied by G1); T5: G4 holds"


def _g6():
    h = _failed(_net("p5_rank1"))
    return h is not None and h.name.startswith("G6"), f"p5_rank1.json: {h.name if h else None} (rank Γ = 1 < 2)"


def _g7():
    from ..bottleneck import jacobian_dimension
    ok, det = _g(*G_NETS["G7"])
    net = Network.from_rows(*G_NETS["G7"][0])
    fd = jacobian_dimension(net)
    return ok and fd == 10, f"{det}; two linear rows, Γ = (0, −1): R17 would say 8, FIBDIM {fd}"


def _g8():
    from ..bottleneck import jacobian_dimension
    ok, det = _g(*G_NETS["G8"])
    fd = jacobian_dimension(Network.from_rows(*G_NETS["G8"][0]))
    return ok and fd == 5, f"{det}; column 1's kink cancels on F_1: R17 would say 4, FIBDIM {fd}"


def _p12():
    from ..bottleneck import dimension_formula
    c = next(c for c in _sign_tables("T8") if c["pattern"] == ["--|-"])
    v = dimension_formula(network_from_dict(c["network"])).value
    return v == 10, f"row (−,−|−), f constant: dimension {v} = N − m = 11 − 1"


def _r16a():
    """The listing's claims checked by other means: every component's representative computes
    T4's function (the exact equivalence decision), and the listed dimension is the Jacobian's
    N − rank, which the moves close (`dim`, R22/R40) — not only that a listing exists (s47 audit)."""
    from .._fiber import fiber
    from ..dimension import functional_dimension
    from ..equivalence.dispatch import equivalent
    net = _net("t4_kink_a")
    F = fiber(net)
    strata = getattr(F, "number_of_strata", None)
    same = all(equivalent(net, c.representative).answer is True for c in F.components)
    fd = functional_dimension(net)
    agree = fd.fiber_dimension.exact and fd.fiber_dimension.value == F.dimension.value
    return (strata is not None and F.dimension.exact and same and agree,
            f"T4 (n1 = 1): {strata} strata, {F.number_of_components} components (each "
            f"representative {'equivalent' if same else 'NOT equivalent'} to T4), dimension "
            f"{F.dimension.value} (`dim`: {fd.fiber_dimension.value})")


def _r16c():
    from .._fiber import fiber
    # three linear rows, m = 1, Γ = (−1, 2) (κ₊ = 2): the strata n_L' = 3 and n_L' = 2 with one dead row
    net = Network.from_rows([[[1, 2], [-1, 1]], [[1, 2], [2, 1], [1, 1]], [[1, -2, 2]]], [[1, -1], [1, 2, 3], [0]])
    F = fiber(net)
    got = sorted((c.label["linear"], c.label["dead"], c.dimension.value) for c in F.components
                 if isinstance(c.label, dict) and "linear" in c.label)
    return got == [(2, 1, 12), (3, 0, 12)], f"three linear rows, Γ = (−1, 2): strata (linear, dead, dimension) {got}"


_ABS = ([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])                      # |x|


def _rd():
    from algebra.kernel.domains import Domain
    return Domain([None], [None])


def _r28():
    from ..bab import diff_bounds
    half = Network.from_rows([[[1], [-1]], [["1/2", 1]]], [[0, 0], [0]])   # |x| − relu(x)/2
    r = diff_bounds(Network.from_rows(*_ABS), half, _rd())
    return r.unbounded is True and r.complete, "|x| against |x| − relu(x)/2 on R: +inf, a certified ray"


def _r29():
    from ..bab import diff_bounds
    shift = Network.from_rows([[[1], [-1]], [[1, 1]]], [[1, 0], [-1]])    # the same weights
    r = diff_bounds(Network.from_rows(*_ABS), shift, _rd())
    return r.complete and r.upper == 1, f"|x| against relu(x + 1) + relu(−x) − 1 on R: sup |a − b| = {r.upper}"


def _r33():
    from ..bab import diff_bounds
    bump = Network.from_rows([[[1], [-1], [1], [1]], [[1, 1, -1, 1]]], [[0, 0, -1, -2], [0]])
    r = diff_bounds(Network.from_rows(*_ABS), bump, _rd())
    return r.complete and r.upper == 1, f"|x| against |x| − relu(x − 1) + relu(x − 2) on R (other weights): sup = {r.upper}"


def _dim(net, dom=None):
    from ..dimension import functional_dimension
    fd = functional_dimension(net, domain=dom)
    if not fd.exact and "interrupted" in (fd.reason or ""):
        # the sandwich caught a stop and gave its bounds: no item is judged on them (s45 re-run
        # audit N1: R36, R38-R40 'FAILED', R40 an internal error on a None value)
        raise KeyboardInterrupt("the functional dimension was interrupted before it closed")
    return fd


def _r34():
    from ..dimension.fiber_floor import certified_fiber_floor
    net = Network.from_rows([[[1], [2], [-1]], [[1, 1, 1]]], [[0, 0, 1], [0]])   # a neuron split in two
    entries, floor = certified_fiber_floor(net, None)
    # the floor: 3 scalings and the split's trade (the kink stays shared: R34 (b)'s kernel
    # direction is no move); the moved net computes the same function (exact decision)
    from ..equivalence.dispatch import equivalent
    moved = Network.from_rows([[[1], [2], [-1]], [["3/2", "3/4", 1]]], [[0, 0, 1], [0]])
    ok = any(e[0] == "split_out" for e in entries) and floor == 4 and \
        equivalent(net, moved).answer is True
    return ok, f"relu(x) + relu(2x) + relu(1 − x): the split's outgoing trade is a move (floor {floor} = 3 scalings + 1)"


def _r36():
    box = Network.from_rows([[[1], [-1], [2]], [[1, 1, -1]]], [[-1, "1/2", -3], [0]])
    cube = Network.from_rows([[[1], [-1], [2]], [[1, 1, -1]]], [[0, "-1/2", -1], [0]])   # u -> box(1 + u)
    a, b = _dim(box, (Q(0), Q(2))), _dim(cube, (Q(-1), Q(1)))
    return a.exact and b.exact and a.value == b.value, f"on [0, 2]: {a.value}; read on [−1, 1]: {b.value}"


def _r37():
    net = Network.from_rows([[[1], [-1], [2]], [[1, 1, -1]]], [[-1, "1/2", -3], [0]])
    v = [_dim(net, dom).value for dom in ((Q(0), Q(1)), (Q(-1), Q(2)), None)]
    if None in v:                       # (no budget here: only a stop leaves a value open)
        raise KeyboardInterrupt("a functional dimension was left open (stopped)")
    return v == sorted(v), f"[0, 1] → [−1, 2] → R: {v[0]} <= {v[1]} <= {v[2]}"


def _fd_certificate(net, dom, kind):
    """R38/R39's value (the theorem, its hypotheses checked exactly: ``one_layer_value``, which
    ``functional_dimension`` uses past a size) against the Jacobian's, and its certificate."""
    from ..dimension.certificate import functional_dimension_certificate
    from ..dimension.one_layer import one_layer_value
    from ..verify import verify
    fd = one_layer_value(net, dom)
    if fd is None:
        return False, "the theorem's hypotheses do not hold"
    cert = functional_dimension_certificate(net, fd, domain=dom)
    ok, why = verify(cert)
    rank = _dim(net, dom)
    return (ok and cert["type"] == kind and rank.exact and rank.value == fd.value,
            f"{fd.value} by the theorem, {rank.value} by the Jacobian's rank; {cert['type']} certificate: {why}")


def _r38():
    return _fd_certificate(_net("r21_shallow"), (Q(-4), Q(4)), "one_hidden_layer_dimension")


def _r39():
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, -1, 2]]], [[5, 0, 0], [0]])   # neuron 0 always on
    return _fd_certificate(net, (Q(-1), Q(1)), "one_hidden_layer_dimension")


def _r40():
    from ..dimension.certificate import functional_dimension_certificate
    from ..verify import verify
    net = Network.from_rows([[[1, 2], [3, -1], [-2, 1], [1, 1]], [[1, -2, 3, 1]]], [[1, -1, 2, "1/2"], [0]])
    fd = _dim(net)
    cert = functional_dimension_certificate(net, fd)
    ok, why = verify(cert)
    return ok and cert.get("fiber_lower") == net.n_parameters - fd.value == 4, f"2-4-1 on R^2: {why}"


def _r41():
    from ..shallow.identifiability import identifiability_shallow
    a, b = identifiability_shallow(_net("r21_shallow")), identifiability_shallow(_net("shallow_flip_set"))
    return a.answer is True and b.answer is False, f"r21_shallow: {a.reason}; shallow_flip_set: {b.reason}"


def _r42():
    from ..shallow.identifiability import identifiability_shallow
    from algebra.network import Network
    a = Network.from_rows([[[1, 0], [-1, 0], [0, 1]], [[1, 1, 1]]], [[0, 0, 0], [0]])   # |x1| + σ(x2)
    b = Network.from_rows([[[1], [-1], [1]], [[1, 1, 1]]], [[0, 0, -1], [0]])           # |x| + σ(x − 1)
    va, vb = identifiability_shallow(a), identifiability_shallow(b)
    return va.answer is True and vb.answer is False, f"|x1| + σ(x2): {va.reason}; |x| + σ(x − 1): {vb.reason}"


def _later_entries():
    """three-layer-fibers R28–R42 (§11): the results the engine added for branch and bound,
    functional dimension and identifiability."""
    ctx = lambda text: (lambda: (None, text))
    return [
        ("R28", "[derived]", "recession of a − b: +inf on R^d with a certified ray", _r28),
        ("R29", "[derived]", "a − b of networks with the same weights: bounded, body and tail", _r29),
        ("R30", "[literature: AHMTV20]", "the convex hull of one ReLU over a box",
         ctx("the cuts of the branch and bound; each cut's validity is re-checked by R31's knapsacks (verify/bab_cuts.py)")),
        ("R31", "[derived, checked]", "a cut's validity by two knapsacks",
         ctx("checked inside every bab_bound certificate that carries cuts (semialgebraic/verify/bab_cuts.py); tests/semialgebraic/test_bab_cuts.py")),
        ("R32", "[derived, checked]", "a pair cut by four knapsacks",
         ctx("checked inside bab_bound certificates with pair cuts (semialgebraic/verify/bab_cuts.py)")),
        ("R33", "[derived]", "the tail of a − b by branch and bound on the homogenised network", _r33),
        ("R34", "[derived, checked]", "kernel directions of parallel, constant and always-active neurons", _r34),
        ("R35", "[derived]", "masked neurons without the pattern list, masked pairs, dead inputs",
         ctx("the upper-bound entries masked / masked_pair / dead_inputs / unseen of functional_dimension certificates (verify/functional_dimension_upper.py)")),
        ("R36", "[derived]", "the functional dimension on a box is the network's, read on the cube", _r36),
        ("R37", "[derived]", "the functional dimension only grows with the domain", _r37),
        ("R38", "[derived]", "one hidden layer, each neuron dead or switching on its own hyperplane", _r38),
        ("R39", "[derived]", "the same with neurons active on the whole domain", _r39),
        ("R40", "[derived]", "a certified floor of the fiber's dimension: moves that compose", _r40),
        ("R41", "[derived]", "identifiability of one hidden layer on R^d", _r41),
        ("R42", "[derived]", "one hidden layer with one shared hyperplane of opposite orientations", _r42),
    ]


def _tl_entries():
    E = []
    add = lambda i, tag, what, fn: E.append(Entry(TL, i, tag, what, fn))
    add("R1", "[paper]", "the paper's claims as a whole", lambda: (None, "not one computation: reproduced through R16–R26 below"))
    add("R2", "[derived; literature: GLMW22]", "orthant reduction: the tail compared on the orthant (T2)", lambda: _equiv("t2_linear_a", "t2_linear_b"))
    add("R3", "[derived]", "neuron types from sign patterns", lambda: (list(_struct([[[1, 0], [0, 1]], [[-1, -2], [1, 2], [1, -1]], [[1, 1, 1]]], [[0, 0], [-1, 1, -1], [0]]).types) == ["dead", "linear", "switching"], "rows (−,−|−), (+,+|+), (+,−|−): dead, linear, switching"))
    add("R4", "[derived]", "masking criterion (T1: column 0 masked)", lambda: (_struct([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]], [[0, 0], [-1, -3], [0]]).masked == 0, "T1: masked column 0"))
    add("R5", "[derived, checked]", "at most one masked neuron (exhaustive)", _r5)
    add("R6", "[derived]", "κ₊ by one Gordan LP: κ₊((−2, 1)) = 2", lambda: (__import__("semialgebraic.shallow", fromlist=["x"]).positive_factor_rank(QMatrix.from_rows([[-2, 1]]))[0] == 2, "Gordan vector y = (1, 2): κ₊ = 2 (T2)"))
    add("R7", "[derived]", "tail fiber on the orthant (R7 formula 7)", lambda: (lambda F: (F.dimension.value == 7, f"fiber_shallow on the orthant: dimension {F.dimension.value}"))(__import__("semialgebraic.shallow", fromlist=["x"]).fiber_shallow(Network.from_rows([[[1, 1], [-1, -1], [1, -1]], [[1, 2, 3]]], [[1, -1, 0], [0]]), orthant=True)))
    sym = {"S1": ("R8", "permutations (T5's net, its neurons swapped)",
                  lambda: _equiv_moved("its neurons swapped", _permuted)),
           "S2": ("R9", "positive rescalings (T5's net, its neurons scaled)",
                  lambda: _equiv_moved("its neurons scaled by 3, 1/7, 5/2, 2", _rescaled([3, Q(1, 7), Q(5, 2), 2]))),
           "S3": ("R10", "dead neurons free (T3)", lambda: _equiv("t3_dead_a", "t3_dead_b")),
           "S4": ("R11", "linear block refactorisation (T2)", lambda: _equiv("t2_linear_a", "t2_linear_b")),
           "S5": ("R12", "flip absorbed by a linear neuron (T6)", lambda: _equiv("t6_flip_a", "t6_flip_b")),
           "S6": ("R13", "masked translation, interval [−1, 3/2] (T1)", _s6),
           "S7": ("R14", "sign flips with one non-dead neuron (T7)", lambda: _equiv("t7_signflip_a", "t7_signflip_b")),
           "S8": ("R15", "kink swap for n1 = 1 (T4)", lambda: _equiv("t4_kink_a", "t4_kink_b"))}
    for s, (r, what, fn) in sym.items():
        add(r, "[derived, checked]", f"{s}: {what}", fn)
    add("R16", "[paper] existence; [derived] form", "the listed fiber's dimension = R17 = FIBDIM on T8's draws (completeness itself is not one computation: R16a–c below, the collision hunts of tests/fuzz)", lambda: _all(_r17("T8"), _fibdim("T8", 3)))
    add("R17", "[derived, checked]", "fiber-dimension formula on the T8/T9 tables", lambda: _all(_r17("T8"), _r17("T9")))
    add("R18", "[derived, checked]", "identifiability criterion on the T8 sign table", _r18)
    add("R19", "[derived; the three claims certified]", "non-localizability, both readings", _paper_r19)
    add("R20", "[paper] existence; [derived, checked] algorithm", "CANON/EQUIV on T1–T7 and T11 pairs, certificates verified",
        lambda: _all(*[_equiv(a, b) for a, b in [("t1_masked", "t1_translated_7_5"), ("t4_variant_a", "t4_variant_b"), ("t11_large_bias", "t11_theta_prime")]],
                     *[_equiv(a, b, False) for a, b in [("t1_masked", "t1_translated_2"), ("t11_large_bias", "t11_theta_second")]]))
    add("R21", "[literature: GLMW22]", "black-box recovery of bends and of a one-hidden-layer network", _r21)
    add("R22", "[derived, checked]", "FIBDIM equals the T8 table", lambda: _fibdim("T8"))
    add("R23", "[literature: DHL18, MGP23]", "global rescaling laws (T10)", lambda: _conservation("t10_masked", 2, 4))
    add("R24", "[derived, checked; literature: MGP23]", "linear-block laws (T10, two linear neurons)", lambda: _conservation("t10_two_linear", 4, 5))
    add("R25", "[derived]", "dead neurons frozen", lambda: (None, "stated for gradient flow; the frozen-parameter laws are part of the T10 counts (R23, R24 rows)"))
    add("R26", "[derived, checked]", "no law from S6 / the bias trade (T10: laws = N − Lie rank)", lambda: _conservation("t10_linear", 2, 4))
    add("R27", "[literature: FGS25]", "hardness of general equivalence", lambda: (None, "context from the literature: why equivalence refutes cheaply first and walks regions last"))
    for s, (r, what, fn) in sym.items():
        add(s, "[derived, checked]", f"= {r}: {what}", fn)
    for g in ("G0", "G1", "G2", "G3", "G5"):
        add(g, "[derived]", f"genericity condition {g}: a witness network fails it first", (lambda g=g: _g(*G_NETS[g])))
    add("G4", "[derived]", "G4 implied by G1", _g4)
    add("G6", "[derived]", "generic linear block (P5 rank example)", _g6)
    add("G7", "[derived, project addition]", "no switching neuron: every column of Γ non-zero", _g7)
    add("G8", "[derived, project addition]", "every unmasked first-layer neuron bends on its facet", _g8)
    T = {"T1": lambda: _all(_s6(), _equiv("t1_masked", "t1_translated_2", False)),
         "T2": lambda: _equiv("t2_linear_a", "t2_linear_b"), "T3": lambda: _all(_equiv("t3_dead_a", "t3_dead_b"), _equiv("t3_dead_a", "t3_control", False)),
         "T4": lambda: _all(_equiv("t4_kink_a", "t4_kink_b"), _equiv("t4_variant_a", "t4_variant_b"), _equiv("t4_control_a", "t4_control_b", False)),
         "T5": lambda: _equiv("t5_perm_scale_a", "t5_perm_scale_b"), "T6": lambda: _all(_equiv("t6_flip_a", "t6_flip_b"), _equiv("t6_flip_a", "t6_control", False)),
         "T7": lambda: _all(_equiv("t7_signflip_a", "t7_signflip_b"), _equiv("t7_signflip_a", "t7_control_noshear", False)),
         "T8": lambda: _all(_r17("T8"), _fibdim("T8")), "T9": lambda: _r17("T9"), "T10": _t10,
         "T11": lambda: _all(_equiv("t11_large_bias", "t11_theta_prime"), _equiv("t11_large_bias", "t11_theta_second", False))}
    for t, fn in T.items():
        add(t, "[derived, checked]", f"acceptance example {t} (bundled files)", fn)
    P = {"P1": ("rank W1 checked first", lambda: _g(*G_NETS["G1"])),
         "P2": ("zero entries: non-generic, never ≤/≥", lambda: _g(*G_NETS["G2"])),
         "P3": ("strict sign conventions", lambda: (_struct([[[1, 0], [0, 1]], [[0, -1], [1, -1]], [[1, 1]]], [[0, 0], [-1, -1], [0]]).types is None, "a zero entry: no type assigned (refused)")),
         "P4": ("dead and linear neurons handled", lambda: (_struct([[[1, 0], [0, 1]], [[-1, -2], [1, 2], [1, -1]], [[1, 1, 1]]], [[0, 0], [-1, 1, -1], [0]]).types is not None, "dead + linear + switching network classified")),
         "P5": ("linear-block rank (rank Γ < min(n_L, n1, m) refused)", _g6),
         "P6": ("at most one masked neuron", _r5),
         "P7": ("end points of the S6 interval non-generic", lambda: (lambda v: (v.answer is None and "G2" in v.reason, f"T1 end point: {v.reason}"))(__import__("semialgebraic.bottleneck", fromlist=["x"]).equivalent_bottleneck(_net("t1_masked"), _net("t1_endpoint_3_2")))),
         "P8": ("S7 needs one non-dead neuron", lambda: _equiv("t7_control_two_a", "t7_control_two_b", False)),
         "P9": ("exact normalisation by |lead|", lambda: _equiv_moved(
             "its neurons scaled by 2^40, 3^-20 (floats would not normalise these exactly)",
             _rescaled([2 ** 40, Q(1, 3 ** 20)]))),
         "P10": ("evaluation only refutes", lambda: (None, "a design rule: every equal verdict above rests on canonical forms or region covers, never on sampling")),
         "P11": ("S5 is a statement about functions", lambda: _equiv("t6_flip_a", "t6_flip_b")),
         "P12": ("constant networks: N − m", _p12),
         "P13": ("proportional rows refused (G5)", lambda: _g(*G_NETS["G5"])),
         "P14": ("n1 = 1: S8 step", lambda: _equiv("t4_kink_a", "t4_kink_b")),
         "P15": ("bias on the incoming side of laws", lambda: (lambda laws: (laws[0] == "W1[0,0]^2 + W1[0,1]^2 + b1[0]^2 - W2[0,0]^2", laws[0]))([str(l.polynomial) for l in __import__("algebra.conservation", fromlist=["x"]).explicit_laws(Network.from_rows([[[1, 2]], [[3]]], [[5], [0]]), [(1,)])])),
         "P16": ("CANON output is not a parameter (T11)", lambda: _equiv("t11_large_bias", "t11_theta_second", False))}
    for p, (what, fn) in P.items():
        add(p, "[derived]", f"pitfall guard: {what}", fn)
    add("R16a", "[derived, checked]", "n1 = 1: the strata of T4's fiber, glued (g1–g3)", _r16a)
    add("R16b", "[derived]", "constant f", lambda: (None, "the fiber of a constant network: its dimension N − m is the P12 row"))
    add("R16c", "[derived, checked]", "n1 >= 2: dead and linear rows exchanged under S5 (T6's strata)", _r16c)
    for r, tag, what, fn in _later_entries():
        add(r, tag, what, fn)
    add("deviation R19 reading", "[derived]", "the bundled T1 example reads R19 as f1 and f3∘f2; the paper's pairwise reading has its own example", _paper_r19)
    add("deviation G0, G7", "[derived, project addition]", "G0 and G7 are project additions to G1–G6", _g7)
    return E


# ---------------------------------------------------------------------------------------------
# skip-absorption
# ---------------------------------------------------------------------------------------------
def _abs(name, expected, S=None, activation=None, method=None):
    from ..absorption import absorbable
    from ..verify import verify
    b = _blk(name)
    v = absorbable(b, activation=activation)
    ok = v.answer is expected
    if expected is not None:
        ok = ok and v.certificate is not None and verify(v.certificate)[0]
    if S is not None:
        ok = ok and (v.details or {}).get("all_S") == S
    if method is not None:
        ok = ok and method in v.method
    act = f" ({activation})" if activation else ""
    return ok, f"{name}{act}: {v.answer} via {v.method}" + (f", all S = {v.details.get('all_S')}" if v.details and v.details.get("all_S") is not None else "")


def _inline(block, expected, what, method=None):
    from ..absorption import absorbable
    v = absorbable(block)
    ok = v.answer is expected and (method is None or method in v.method)
    return ok, f"{what}: {v.answer} via {v.method}"


def _cor11():
    from ..absorption import random_experiment
    r = random_experiment(2, 3, 20, seed=11)
    if not r.get("complete", True):     # stopped after some of the 20 trials: no verdict on them
        raise KeyboardInterrupt(f"the random experiment was stopped after {r.get('trials_run')} of 20 trials")
    return r["absorbable"] == 0 and r["undecided"] == 0, (
        f"20 random ReLU blocks d = 2, k = 3 (seed 11): {r['absorbable']} absorbable, "
        f"{r['not_absorbable']} not; Wilson 95% {r['wilson_95']}")


def _r10():
    from ..absorption.uniqueness import absorbing_blocks
    b = Block("relu", [[1, 0], [0, 1], [1, 1], [1, -1]], [[-1, 0, Q(-1, 2), Q(-1, 2)], [0, -1, Q(-1, 2), Q(1, 2)]])
    v = absorbing_blocks(b)
    return v.answer is True and v.details["all_S"] == [[0, 1], [2, 3]], f"two flip sets, two absorbing blocks (certificate absorbing_blocks): {v.details.get('all_S')}"


def _r13():
    # σ(z) − σ(−z) = z proved piece by piece: on z >= 0 and z <= 0 each side is affine, given
    # by (slope, intercept): σ is (1, 0) then (0, 0), z ↦ σ(−z) is (0, 0) then (−1, 0) (not
    # sampled: an identity of two piecewise-affine functions with the breakpoint 0 holds iff it
    # holds on each piece, s47 audit)
    pieces = {"z >= 0": ((Q(1), Q(0)), (Q(0), Q(0))), "z <= 0": ((Q(0), Q(0)), (Q(-1), Q(0)))}
    ok = all((a[0] - b[0], a[1] - b[1]) == (Q(1), Q(0)) for a, b in pieces.values())
    return ok, "σ(z) − σ(−z) = z on both pieces z >= 0, z <= 0 (ReLU odd part z/2); lemmas (R)/(G) are [derived]"


def _r14():
    from ..absorption import canonical_form
    b = _blk("block_E")
    g = Block("relu", [[1, 0], [-1, 0], [0, -1]], [[2, 2, 0], [2, -1, -1]], skip="none")
    return canonical_form(b) == canonical_form(g), "example E and its absorbing block: equal canonical forms"


def _r20():
    return _all(_abs("block_relu_stack_open", None), _abs("block_relu_stack_flips", True))


def _sa_entries():
    E = []
    add = lambda i, tag, what, fn: E.append(Entry(SA, i, tag, what, fn))
    add("R1", "[paper; literature: K26]", "absorbable = equal to a residual-free block (A)", lambda: _abs("block_A", True))
    add("R2", "[literature: K26; derived]", "2d extra units represent the identity (K0, k = 2)", lambda: _abs("block_K0", True))
    add("R3", "[paper; literature: K26]", "Lemma 4: invertible skip (G, M = 2I)", lambda: _abs("block_G_skip", True))
    add("R4", "[derived]", "singular skip: criterion with −M", lambda: _inline(Block("relu", [[1, 2], [1, -1], [2, 1]], [[-1, 1, 1], [-2, 1, -1]], skip=[[1, 2], [2, 4]]), True, "rank-1 skip", "[derived]"))
    add("R5", "[paper; literature: K26]", "Prop. 5: degree p ≠ 1 never absorbable (P5a, P5b)", lambda: _all(_abs("block_P5a_relu2", False, method="degree"), _abs("block_P5b_reglu", False)))
    add("R6", "[paper; literature: K26]", "Prop. 6: flat gates never absorbable (one SwiGLU block)", lambda: _abs("block_P6_swiglu", False, method="Prop. 6"))
    add("R7", "[paper; literature: K26]", "Cor. 7: stacks of such blocks (P6 stack)", lambda: _abs("block_P6_swiglu_stack", False, method="Cor. 7"))
    add("R8", "[paper; hypotheses from literature: K26]", "Theorems 8/10: the index-set criterion (A, B, B2, C, C2, H)", lambda: _all(_abs("block_A", True, [[0, 1]]), _abs("block_B", True, [[0, 1]]), _abs("block_B2", True, [[0, 1, 2]]), _abs("block_C", False), _abs("block_C2", False), _abs("block_H", True, [[0, 1]]), _abs("block_B", True, [[0, 1]], activation="gelu")))
    add("R9", "[derived, checked]", "flip certificate (A)", lambda: _abs("block_A", True, [[0, 1]]))
    add("R10", "[derived]", "uniqueness: every absorbing block listed", _r10)
    add("R11", "[paper; literature: K26]", "Cor. 11: the absorbable set is null (random experiment)", _cor11)
    add("R12", "[derived, checked]", "d = 1: every ReLU block with k ≥ 2 absorbable (D1)", lambda: _abs("block_D1", True))
    add("R13", "[derived]", "odd/even split", _r13)
    add("R14", "[derived, checked]", "canonical form (E)", _r14)
    add("R15", "[derived, checked]", "ABSORB-GENERAL (D: ReLU yes, GELU no)", lambda: _all(_abs("block_D", True), _abs("block_D", False, activation="gelu")))
    add("R16", "[derived, checked]", "FIND-S with r > 0 (H)", lambda: _abs("block_H", True, [[0, 1]]))
    add("R17", "[derived]", "Hyper-Connections", lambda: _abs("block_hyper_connections", False))
    add("R18", "[derived]", "bounded activations never absorbable", lambda: _inline(Block("tanh", [[1]], [[1]]), False, "tanh block", "bounded"))
    add("R19", "[derived, checked]", "biases: flip with output-bias correction; ReLU with biases decided", lambda: _abs("block_A_bias", True))
    add("R20", "[paper] open; [derived] composition", "stacks: open in general, yes when every block absorbs", _r20)
    EX = {"A": lambda: _abs("block_A", True, [[0, 1]]), "B": lambda: _abs("block_B", True, [[0, 1]]),
          "B2": lambda: _abs("block_B2", True, [[0, 1, 2]]), "C": lambda: _abs("block_C", False),
          "C2": lambda: _abs("block_C2", False), "H": lambda: _abs("block_H", True, [[0, 1]]),
          "G": lambda: _abs("block_G_skip", True), "D": lambda: _all(_abs("block_D", True), _abs("block_D", False, activation="gelu")),
          "D1": lambda: _abs("block_D1", True), "E": lambda: _all(_abs("block_E", True), _abs("block_E", True, activation="gelu")),
          "F": lambda: _all(_abs("block_F", True), _abs("block_F", True, activation="gelu")), "F'": lambda: _abs("block_F_prime", False),
          "K0": lambda: _abs("block_K0", True), "A-bias": lambda: _abs("block_A_bias", True),
          "P5a": lambda: _abs("block_P5a_relu2", False), "P5b": lambda: _abs("block_P5b_reglu", False),
          "P6": lambda: _abs("block_P6_swiglu_stack", False)}
    for k, fn in EX.items():
        add(f"example {k}", "[derived, checked]", f"acceptance example {k} (bundled file)", fn)
    PIT = {1: ("GELU never evaluated: decided through the weights", lambda: _abs("block_B", True, activation="gelu")),
           2: ("ReLU vs GELU grouping (D)", lambda: _all(_abs("block_D", True), _abs("block_D", False, activation="gelu"))),
           3: ("degenerate weights: (N1)–(N3) before FIND-S (E, F, K0)", lambda: _all(_abs("block_E", True), _abs("block_F", True), _abs("block_K0", True))),
           4: ("k < d", lambda: _inline(Block("relu", [[1, 0]], [[-1], [0]]), False, "k = 1 < d = 2")),
           5: ("column convention", lambda: (None, "a convention of the readers (algebra/blocks.py); nothing to compute")),
           6: ("size of the search: FIND-S, not 2^k (H)", lambda: _abs("block_H", True, [[0, 1]])),
           7: ("exactness: exact det M (G)", lambda: _abs("block_G_skip", True)),
           8: ("biases (A-bias)", lambda: _abs("block_A_bias", True)),
           9: ("gates: sigmoid GLU not covered", lambda: _inline(Block("glu", [[1]], [[1]], w_gate=[[1]]), None, "GLU block")),
           10: ("depth: never chain unless every block absorbs", _r20),
           11: ("sampling is not proof: canonical forms decide", _r14),
           12: ("test generators: wide-range rational weights", _cor11)}
    for n, (what, fn) in PIT.items():
        add(f"pitfall {n}", "[derived]", what, fn)
    add("Cor. 11 experiment", "[paper; literature: K26]", "random experiment, Wilson interval", _cor11)
    add("deviation R20 stacks", "[derived]", "stacks of absorbable blocks answered yes (the reference dispatcher says open)", _r20)
    add("deviation R19 ReLU biases", "[derived]", "ReLU blocks with biases decided against biased competitors (the reference says not covered)", lambda: _abs("block_A_bias", True))
    return E


REGISTRY: tuple[Entry, ...] = tuple(_tl_entries() + _sa_entries())
