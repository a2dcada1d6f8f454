"""Every leaf of a certificate is checked: a mutated bound field is rejected.

For one honest certificate of each of the seven types (small, built by the real deciders), every
leaf of the nested JSON (number, string, bool, null) is mutated (numbers: +1, ×2, negated,
+1/3; strings: another value; bools: flipped; null: 0) and every list loses an element.  Each
mutated certificate must be rejected by :func:`semialgebraic.verify.verify` (``(False, _)`` or
:class:`InputError`), or state a claim that is still true for its embedded inputs, judged by an
oracle written here: exact evaluation with ``Fraction`` (counterexamples, never-exercised
parameters, absorbing blocks) or the real decider re-run on the mutated inputs with
``verify=False`` (equivalence, absorption, identifiability, functional dimension).

The exhaustive run is ``@pytest.mark.slow``; the fast suite runs a seeded sample per type.
"""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import pytest

from algebra.blocks import Block, BlockStack
from algebra.io.blocks import block_from_dict
from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS, COMPETITOR_BIASES
from algebra.network import Network
from semialgebraic.absorption import absorbable
from tests.cases import bab_domains
from semialgebraic.bottleneck import identifiability
from semialgebraic.certificates import dimension_bounds_certificate, exercise_certificate, jsonable
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.equivalence import equivalent
from semialgebraic.dimension import exercise
from semialgebraic.shallow import equivalent_shallow
from semialgebraic.verify import verify

ABS = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])                  # |x|


# ------------------------------------------------------------------------------------------------
# honest certificates, one per type (built by the deciders)
# ------------------------------------------------------------------------------------------------
def _json(c):
    return json.loads(json.dumps(jsonable(c)))


def _counterexample():
    c = Network.from_rows([[[1], [-1]], [[1, 2]]], [[0, 0], [0]])
    v = equivalent(ABS, c, method="general", domain=(-1, 1))
    assert v.answer is False and v.certificate["type"] == "counterexample"
    return _json(v.certificate)


def _symmetry_path():
    a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    b = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], [0]])
    v = equivalent_shallow(a, b)
    assert v.answer is True and v.certificate["type"] == "symmetry_path"
    return _json(v.certificate)


def _region_cover():
    # relu(relu(x) - relu(-x)) = relu(x): the walk over a few regions is needed
    a = Network.from_rows([[[1], [-1]], [[1, -1]], [[1]]], [[0, 0], [0], [0]])
    b = Network.from_rows([[[2]], [["1/2"]]], [[0], [0]])
    v = equivalent(a, b, method="general", domain=(-1, 1))
    assert v.answer is True and v.certificate["type"] == "region_cover"
    assert v.certificate["regions"]
    return _json(v.certificate)


def _absorption():
    v = absorbable(Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]))
    assert v.answer is True and v.certificate["witness"]["all_S"] == [[0, 1]]
    return _json(v.certificate)


def _absorption_no():
    v = absorbable(Block("relu", [[1, 0], [0, 1], [1, 1]], [[1, 0, 1], [0, 1, 2]]))
    assert v.answer is False
    return _json(v.certificate)


IDENT = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-1, 2]], [[1, 1]]], [[0, 0], [1, -1], [0]])


def _identifiability():
    v = identifiability(IDENT)
    assert v.answer is True and v.certificate["type"] == "identifiability_hypotheses"
    return _json(v.certificate)


FDNET = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])


def _fd():
    fd = functional_dimension(FDNET, domain=(-2, 2))
    cert = functional_dimension_certificate(FDNET, fd, domain=(-2, 2))
    assert verify(cert)[0] and "upper" in cert
    return _json(cert)


EXNET = Network.from_rows([[[1], [1]], [[1, 1]], [[1]]], [[-1, 1], [0], [0]])


def _exercise():
    # W1[0,0]: neuron 0 of layer 1 (x - 1) is never active on [-1, 1]: never exercised
    r = exercise(EXNET, 0, domain=(-1, 1))
    assert r.exercised is False
    cert = exercise_certificate(EXNET, r.proof)
    assert verify(cert)[0]
    return _json(cert)


BABA = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
BABB = Network.from_rows([[[1], [-1]], [["1/2", 1]]], [[0, 0], [0]])


def _bab_bound():
    from semialgebraic.bab import diff_bounds
    r = diff_bounds(BABA, BABB, (-1, 2))
    assert r.complete and r.upper == 1
    return _json(r.certificate)


def _bab_bound_reduced():
    """a against a permuted, rescaled copy with a neuron more (other widths): the trees bound
    the reduced a − b (``reduction``)."""
    from semialgebraic.bab import diff_bounds
    a = Network.from_rows([[[1], [-1], ["1/2"]], [[1, 1, -2]]], [[0, 0, "-1/4"], [0]])
    b = Network.from_rows([[[1], [3], ["-1/2"], [1]], [[-1, "1/3", 2, 1]]],
                          [["-1/2", 0, 0, "-3/2"], [0]])        # + relu(x - 3/2): 1/2 at x = 2
    r = diff_bounds(a, b, (-1, 2))
    assert r.complete and str(r.upper) == "1/2" and r.certificate.get("reduction")
    return _json(r.certificate)


def _oracle_bab(c) -> bool:
    """The region walk's exact maximum: lower <= max <= upper."""
    from semialgebraic.equivalence import max_deviation
    a, b = network_from_dict(c["a"]), network_from_dict(c["b"])
    box = [tuple(Fraction(v) for v in p) for p in c["box"]]
    if len({p for p in box}) != 1:
        return False
    lo, hi = box[0]
    dev = max_deviation(a, b, (f"{lo.numerator}/{lo.denominator}", f"{hi.numerator}/{hi.denominator}")).value
    ok = Fraction(str(dev)) <= _frac(c["upper"]) or c["claim"].endswith(">= lower on the box")
    return ok and ("lower" not in c or Fraction(str(dev)) >= _frac(c["lower"]))


def _absorption_stack():
    # skip-absorption R20: a stack of absorbable blocks, the per-block flips composed
    a = Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]])
    v = absorbable(BlockStack([a, a]))
    assert v.answer is True and v.certificate["witness"]["kind"] == "per_block"
    return _json(v.certificate)


def _non_localizability():
    from semialgebraic.bottleneck.composition import paper_non_localizability_example
    r = paper_non_localizability_example()          # three-layer-fibers R19, the paper's reading
    assert r["certificate"] is not None
    return _json(r["certificate"])


def _absorbing_blocks():
    from semialgebraic.absorption.uniqueness import absorbing_blocks
    v = absorbing_blocks(Block("relu", [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]))
    assert v.answer is True and v.certificate["all_S"] == [[0, 1]]      # skip-absorption R10
    return _json(v.certificate)


def _bab_cover():
    from semialgebraic.distributed import distributed_diff
    r = distributed_diff(BABA, BABB, [(-1, 2)], cells=2, workers=0)
    assert r.complete and r.upper == 1 and r.verified
    return _json(r.certificate)


# relu(x0) + relu(x1 - 2) against relu(x0): equal exactly where x1 <= 2
ONBOX_A = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, -2], [0]])
ONBOX_B = Network.from_rows([[[1, 0]], [[1]]], [[0], [0]])


def _on_box():
    # a box with its own sides, decided for a, b read on the cube (three-layer-fibers R36)
    v = equivalent(ONBOX_A, ONBOX_B, domain=[(-1, 1), ("-1/2", 2)])
    assert v.answer is True and v.certificate["type"] == "on_box"
    return _json(v.certificate)


def _counterexample_box():
    v = equivalent(ONBOX_A, ONBOX_B, domain=[(-1, 1), ("-1/2", 3)])
    assert v.answer is False and v.certificate["domain"] == {"box": [[-1, 1], ["-1/2", 3]]}
    return _json(v.certificate)


# a box cut by half-spaces (three-layer-fibers R37): neuron 0, x0 - 1/2, dead where x0 <= 1/4
CUT_NET = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [["-1/2", 0, 0], [0]])


def _sandwich():
    from semialgebraic.dimension.sandwich import functional_dimension_on_cut, sandwich_certificate
    cut = functional_dimension_on_cut(CUT_NET, [-1, -1], [1, 1], [([1, 0], "1/4"), ([1, 1], 1)],
                                      theorem=False)
    return _json(sandwich_certificate(CUT_NET, cut))


# one hidden layer, every neuron switching on [-1, 1]^2 on its own line (three-layer-fibers R38)
ONE_NET = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, 1, -1]]], [[0, 0, -1], [0]])


def _one_layer():
    from semialgebraic.certificates import one_hidden_layer_dimension_certificate
    return _json(one_hidden_layer_dimension_certificate(ONE_NET, (-1, 1), ONE_NET.n_parameters - 3))


def _one_layer_cut():
    """R38/R39 read on a box cut by half-spaces: evidence of every kind (CUT_ONE of
    test_dimension_cut: dead and active by duals, switching at inside points, dead by the box)."""
    from semialgebraic.dimension.sandwich import functional_dimension_on_cut, sandwich_certificate
    net = Network.from_rows([[[1, 1], [1, 1], [1, -1], [0, 1]], [[1, 2, 1, 1]]], [[-1, 1, 0, -5], [0]])
    cut = functional_dimension_on_cut(net, [-2, -2], [2, 2], [([1, 1], 1), ([-1, -1], 1)])
    return _json(sandwich_certificate(net, cut))


def _conservation():
    """The two-linear-neurons net (4 laws, the Lie rank 5 needs brackets), on its two
    regions."""
    from algebra.conservation import conservation_laws
    from algebra.io import load
    from semialgebraic import regions
    from semialgebraic.certificates import conservation_laws_certificate
    net = load("algebra/examples/t10_two_linear.json")
    res = conservation_laws(net, [r.pattern for r in regions(net)])
    assert res.exact and res.brackets
    return _json(conservation_laws_certificate(net, res))


def _report(name, ident):
    """``symmetries --certificate``'s report on a bundled example: its components'
    representatives (a flip set / an S7 sign flip: their own steps) and, with *ident*, the
    identifiability certificate (one hidden layer: a flipped copy outside the orbit)."""
    from algebra.io import load
    from semialgebraic import fiber
    from semialgebraic.certificates import symmetry_report_certificate
    from semialgebraic.commands.report_certificate import component_copies
    from semialgebraic.shallow.identifiability import identifiability_shallow
    net = load(f"algebra/examples/{name}.json")
    copies, reps, left = component_copies(net, fiber(net))
    assert len(copies) == reps == 2 and left == 0
    inner = identifiability_shallow(net).certificate if ident else None
    return _json(symmetry_report_certificate(net, copies, identifiability=inner))


BUILDERS = {"symmetry_report": lambda: _report("shallow_flip_set", True),
            "symmetry_report_bottleneck": lambda: _report("masked_bottleneck", False),
            "conservation_laws": _conservation, "one_hidden_layer_dimension": _one_layer, "one_hidden_layer_dimension_cut": _one_layer_cut, "functional_dimension_sandwich": _sandwich, "bab_bound": _bab_bound, "bab_bound_reduced": _bab_bound_reduced, "on_box": _on_box, "counterexample_box": _counterexample_box, "bab_cover": _bab_cover, "counterexample": _counterexample, "symmetry_path": _symmetry_path,
            "region_cover": _region_cover, "absorption": _absorption,
            "absorption_no": _absorption_no, "identifiability_hypotheses": _identifiability,
            "functional_dimension": _fd, "exercise": _exercise,
            "absorption_stack": _absorption_stack, "non_localizability": _non_localizability,
            "absorbing_blocks": _absorbing_blocks, **bab_domains.BUILDERS}


@pytest.fixture(scope="module")
def honest():
    return {k: f() for k, f in BUILDERS.items()}


# ------------------------------------------------------------------------------------------------
# oracles (the claim of a certificate, judged without its checker)
# ------------------------------------------------------------------------------------------------
def _frac(v):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        return None
    try:
        return Fraction(v)
    except ValueError:
        return None


_eval = bab_domains._eval          # exact evaluation of a native network dict (Fractions)


def _points(d, lo=-3, hi=3, n=60, seed=1):
    rng = random.Random(seed)
    return [[Fraction(rng.randint(lo * 97, hi * 97), 97) for _ in range(d)] for _ in range(n)]


def _domain_args(dom):
    if dom is None:
        return None
    if dom.get("orthant"):
        return "orthant"
    return tuple(Fraction(v) for v in dom["box"])


def _same_function(c) -> bool:
    a, b = network_from_dict(c["a"]), network_from_dict(c["b"])
    if a.signature != b.signature:
        return False
    dom = _domain_args(c.get("domain"))
    lo, hi = (dom if isinstance(dom, tuple) else (0 if dom == "orthant" else -3, 3))
    for x in _points(a.n_inputs, int(lo), int(hi) if int(hi) > int(lo) else int(lo) + 1):
        if all(lo <= v <= hi for v in x) and _eval(c["a"], x) != _eval(c["b"], x):
            return False
    return equivalent(a, b, domain=dom, verify=False).answer is True


def _oracle_counterexample(c) -> bool:
    a, b = network_from_dict(c["a"]), network_from_dict(c["b"])
    if a.signature != b.signature:
        return c["claim"] == CLAIMS["counterexample"][1]
    x = [Fraction(v) for v in c["x"]]
    ax, bx = _eval(c["a"], x), _eval(c["b"], x)
    dom = c.get("domain")
    inside = True
    if dom is not None and not dom.get("orthant") and isinstance(dom["box"][0], list):
        inside = all(Fraction(lo) <= v <= Fraction(hi) for v, (lo, hi) in zip(x, dom["box"]))
    elif dom is not None:
        lo, hi = (Fraction(0), None) if dom.get("orthant") else tuple(Fraction(v) for v in dom["box"])
        inside = all(v >= lo and (hi is None or v <= hi) for v in x)
    return (inside and ax != bx and [Fraction(v) for v in c["a_x"]] == ax
            and [Fraction(v) for v in c["b_x"]] == bx)


def _oracle_absorption(c) -> bool:
    block = block_from_dict(c["block"])
    v = absorbable(block, verify=False)
    yes = c["claim"] == "absorbable"
    if v.answer is not yes:
        return False
    mine = v.certificate["competitor"]
    if yes:                        # a larger competitor class is a weaker "yes"
        ok = c["competitor"] == mine or c["competitor"] == COMPETITOR_BIASES
        g = c["witness"].get("absorbing_block")
        if g is not None and isinstance(block, Block):
            g = block_from_dict(g)
            ok = ok and all(block(x) == g(x) for x in _points(block.d, n=20))
        return ok
    return c["competitor"] == mine or mine == COMPETITOR_BIASES


def _oracle_identifiability(c) -> bool:
    net = network_from_dict(c["network"])
    if net.depth != 3:
        return False
    v = identifiability(net, verify=False)
    return v.answer is True and c["fiber_dimension"] == net.widths[1] + net.widths[2]


def _oracle_fd(c) -> bool:
    net = network_from_dict(c["network"])
    dom = _domain_args(c.get("domain"))
    fd = functional_dimension(net, domain=dom)
    if c["lower"] > fd.lower:          # (fd is exact for these small nets)
        return False
    return "upper" not in c or c["upper"] >= fd.upper


def _oracle_exercise(c) -> bool:
    """Brute force: the parameter never changes f (a tiny exact perturbation) at sample inputs."""
    net = network_from_dict(c["network"])
    p = c["proof"]["parameter"]
    dom = c["proof"].get("domain")
    lo, hi = (Fraction(-3), Fraction(3)) if dom in (None, "orthant") else tuple(Fraction(v) for v in dom)
    if dom == "orthant":
        lo = Fraction(0)
    new = Fraction(str(net.parameters()[p])) + Fraction(1, 10 ** 9)
    moved = net.with_parameter(p, f"{new.numerator}/{new.denominator}").to_dict()
    base = net.to_dict()
    pts = [x for x in _points(net.n_inputs, int(lo) - 1, int(hi) + 1, n=200) if all(lo < v < hi for v in x)]
    return all(_eval(base, x) == _eval(json.loads(json.dumps(jsonable(moved))), x) for x in pts)


def _oracle_non_localizability(c) -> bool:
    from semialgebraic.bottleneck.composition import first_two_identifiable, last_two_identifiable
    net = network_from_dict(c["network"])
    comp = c["composite"]
    if net.depth != 3 or comp.get("type") != "symmetry_path" or comp.get("domain") is not None:
        return False
    (W1, b1), (W2, b2), (W3, b3) = net.layer(0), net.layer(1), net.layer(2)
    b = network_from_dict(comp["b"])
    return (first_two_identifiable(W1, b1, W2, b2)[0] and last_two_identifiable(W2, b2, W3, b3)[0]
            and network_from_dict(comp["a"]) == net and b.layer(2)[1] != b3 and _same_function(comp))


def _oracle_absorbing_blocks(c) -> bool:
    """Brute force over every S with Fraction arithmetic; each listed block equal at points."""
    from itertools import combinations
    block = block_from_dict(c["block"])
    if not isinstance(block, Block) or block.activation.name not in ("relu", "gelu"):
        return False
    k, d = block.k, block.d
    U = [[Fraction(str(x)) for x in block.w_up.row_at(i)] for i in range(k)]
    V = [[Fraction(str(x)) for x in block.w_down.row_at(r)] for r in range(d)]
    M = [[Fraction(str(x)) for x in block.skip_matrix.row_at(r)] for r in range(d)]
    valid = {S for n in range(k + 1) for S in combinations(range(k), n)
             if all(sum((V[p][i] * U[i][q] for i in S), Fraction(0)) == -M[p][q]
                    for p in range(d) for q in range(d))}
    if {tuple(sorted(S)) for S in c["all_S"]} != valid or len(c["all_S"]) != len(valid):
        return False
    for g in c["absorbing_blocks"]:
        g = block_from_dict(g)
        if g.skip != "none" or not all(block(x) == g(x) for x in _points(d, n=20)):
            return False
    return True


def _oracle_on_box(c) -> bool:
    """The claim a = b on the user's box, judged by the decider on the box (which reads the pair
    on the cube) and by exact evaluation at points of the box."""
    a, b = network_from_dict(c["a"]), network_from_dict(c["b"])
    if a.signature != b.signature:
        return False
    box = [tuple(Fraction(v) for v in p) for p in c["box"]]
    pts = [[lo + (hi - lo) * Fraction(k, 7) for lo, hi in box] for k in range(8)]
    if any(_eval(c["a"], x) != _eval(c["b"], x) for x in pts):
        return False
    box = [(f"{lo.numerator}/{lo.denominator}", f"{hi.numerator}/{hi.denominator}") for lo, hi in box]
    return equivalent(a, b, domain=box, verify=False).answer is True


def _oracle_sandwich(c) -> bool:
    """lower <= (exact rank at 150 random points of the cut, its value w.h.p. on these tiny
    nets) <= upper, or no point of the cut found (a mutated empty domain: vacuous)."""
    from algebra.rationals import Q
    from semialgebraic.dimension.jacobian import exact_rank
    net = network_from_dict(c["network"])
    box = [(Fraction(str(a)), Fraction(str(b))) for a, b in c["domain"]["box"]]
    cuts = [([Fraction(str(v)) for v in h["a"]], Fraction(str(h["b"]))) for h in c["domain"]["halfspaces"]]
    rng = random.Random(5)
    pts = []
    for _ in range(20000):
        x = [a + (b - a) * Fraction(rng.randint(0, 1009), 1009) for a, b in box]
        if all(sum(ai * v for ai, v in zip(a, x)) <= b for a, b in cuts):
            pts.append([Q(v.numerator, v.denominator) for v in x])
            if len(pts) == 150:
                break
    if not pts:
        return True
    r = exact_rank(net, pts)
    return c["lower"] <= r <= c["upper"]


def _oracle_one_layer(c) -> bool:
    """The general exact method (these nets are small: Jacobian ranks over the regions); on a
    cut, the dim campaign's z3 region oracle (no code shared with netfibers)."""
    net = network_from_dict(c["network"])
    dom = c.get("domain")
    if dom is not None and "halfspaces" in dom:
        from tests.fuzz.dim_campaign import oracle
        F = lambda v: Fraction(str(v))
        camp = [([[F(v) for v in row] for row in layer["weight"]], [F(v) for v in layer["bias"]])
                for layer in c["network"]["layers"]]
        truth = oracle(camp, ("cut", [(F(a), F(z)) for a, z in dom["box"]],
                              [([F(v) for v in h["a"]], F(h["b"])) for h in dom["halfspaces"]]))
        return truth["value"] == c["value"]
    if dom is None:
        d = None
    elif dom.get("orthant") is True:
        d = "orthant"
    elif isinstance(dom["box"][0], list):
        from algebra.kernel.domains import Domain
        d = Domain([str(a) for a, _ in dom["box"]], [str(z) for _, z in dom["box"]])
    else:
        d = (str(dom["box"][0]), str(dom["box"][1]))
    fd = functional_dimension(net, domain=d)
    return fd.exact and fd.value == c["value"]


def _oracle_conservation(c) -> bool:
    """The decider re-run on the certificate's network and samples: the claim [lower, upper]
    must contain its interval (exact here: small nets)."""
    from algebra.conservation import Sample, conservation_laws
    from algebra.rationals import to_q
    net = network_from_dict(c["network"])
    samples = [tuple(s["pattern"]) if s["points"] is None else
               Sample(tuple(s["pattern"]), tuple(tuple(to_q(v) for v in x) for x in s["points"]))
               for s in c["samples"]]
    res = conservation_laws(net, samples)
    return c["lower"] <= res.lower and res.upper <= c["upper"]


def _oracle_report(c) -> bool:
    """Every copy's b computes the network's function (the decider, on the report's domain) and
    is outside the orbit when it says so (one hidden layer: the decider's orbit key); the
    identifiability part agrees with the decider re-run."""
    from semialgebraic.shallow.identifiability import identifiability_shallow, orbit_key
    net = network_from_dict(c["network"])
    dom = "orthant" if c["domain"] == {"orthant": True} else None
    for cp in c["copies"]:
        b = network_from_dict(cp["b"])
        if b.signature != net.signature or equivalent(net, b, domain=dom, verify=False).answer is not True:
            return False
        if cp.get("claim") == CLAIMS["symmetry_path"][2] and (net.depth != 2 or orbit_key(b) == orbit_key(net)):
            return False
    inner = c["identifiability"]
    if inner is not None:
        v = identifiability_shallow(net, verify=False) if net.depth == 2 else identifiability(net, verify=False)
        return v.answer is (inner["type"] == "identifiability_hypotheses")
    return True


ORACLES = {"symmetry_report": _oracle_report, "symmetry_report_bottleneck": _oracle_report,
           "conservation_laws": _oracle_conservation, "one_hidden_layer_dimension": _oracle_one_layer, "one_hidden_layer_dimension_cut": _oracle_one_layer, "functional_dimension_sandwich": _oracle_sandwich, "bab_bound": _oracle_bab, "bab_bound_reduced": _oracle_bab, "on_box": _oracle_on_box, "counterexample_box": _oracle_counterexample, "bab_cover": _oracle_bab, "counterexample": _oracle_counterexample, "symmetry_path": _same_function,
           "region_cover": _same_function, "absorption": _oracle_absorption,
           "absorption_no": _oracle_absorption, "identifiability_hypotheses": _oracle_identifiability,
           "functional_dimension": _oracle_fd, "exercise": _oracle_exercise,
           "absorption_stack": _oracle_absorption, "non_localizability": _oracle_non_localizability,
           "absorbing_blocks": _oracle_absorbing_blocks, **bab_domains.ORACLES}


# ------------------------------------------------------------------------------------------------
# mutations
# ------------------------------------------------------------------------------------------------
def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        yield path, obj                                   # the list itself: drop an element
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))
    else:
        yield path, obj


def _variants(value):
    if isinstance(value, list):
        return [("drop-first", value[1:]), ("drop-last", value[:-1])] if value else []
    if isinstance(value, bool):
        return [("flip", not value)]
    if value is None:
        return [("zero", 0)]
    q = _frac(value)
    if q is None:                                          # a non-numeric string
        return [("other", value + "x"), ("empty", "")]
    out = []
    for name, new in (("+1", q + 1), ("x2", 2 * q), ("neg", -q), ("+1/3", q + Fraction(1, 3))):
        if new != q:
            out.append((name, int(new) if new.denominator == 1 and isinstance(value, int)
                        else (int(new) if new.denominator == 1 else f"{new.numerator}/{new.denominator}")))
    return out


def _set(obj, path, value):
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


def mutations(cert):
    for path, value in _leaves(cert):
        if not path:
            continue
        for name, new in _variants(value):
            mut = copy.deepcopy(cert)
            _set(mut, path, new)
            yield path, name, mut


def _judge(kind, path, name, mut):
    try:
        ok, why = verify(mut)
    except InputError:
        return "malformed"
    if not ok:
        return "rejected"
    assert ORACLES[kind](mut), f"{kind}: mutation {name} at {path} accepted ({why}) but the claim is false"
    return "still true"


def _run(kind, cert, sample=None, seed=0):
    muts = list(mutations(cert))
    assert muts
    if sample is not None and len(muts) > sample:
        muts = random.Random(seed).sample(muts, sample)
    counts = {}
    for path, name, mut in muts:
        r = _judge(kind, path, name, mut)
        counts[r] = counts.get(r, 0) + 1
    return counts


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_honest_certificates_verify(honest, kind):
    ok, why = verify(honest[kind])
    assert ok, why


@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_sampled_leaf_mutations_are_rejected_or_harmless(honest, kind):
    counts = _run(kind, honest[kind], sample=40, seed=13)
    assert counts.get("rejected", 0) + counts.get("malformed", 0) > 0


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(BUILDERS))
def test_every_leaf_mutation_is_rejected_or_harmless(honest, kind):
    counts = _run(kind, honest[kind])
    assert counts.get("rejected", 0) + counts.get("malformed", 0) > 0


def test_all_s_mutations_are_rejected(honest):
    cert = honest["absorption"]
    for new in ([[0, 2]], [[1, 2]], [[0]], [[0, 1], [0, 1]], [[0, 1], [2]], [[0, 1], [0, 1, 2]]):
        mut = copy.deepcopy(cert)
        mut["witness"]["all_S"] = new
        assert verify(mut)[0] is False, new
    mut = copy.deepcopy(cert)
    mut["witness"]["all_S"][0][1] = 2                  # one index of one set changed
    assert verify(mut)[0] is False
    mut["witness"]["all_S"] = [[0, "1"]]
    with pytest.raises(InputError):
        verify(mut)
