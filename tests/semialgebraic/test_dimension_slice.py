"""`dim` on a slice of a box (some sides of width 0, not all: three-layer-fibers R36 (b)).

The network of the free coordinates (the fixed ones folded into the first layer's biases) read
on the cube has the functional dimension of the network on the slice; N and the fiber grow by
the weights of the fixed columns.  Checked against an oracle built here: the exact rank of the
Jacobian of θ ↦ (f_θ(x_t))_t over ALL N parameters at random points x_t of the slice (a
Fraction evaluator written for this test) equals the folded network's at the same points (the
lemma itself), and the value equals the dim campaign's z3 region oracle on the folded network
(its own folding, in Fractions here).  Certificates through ``verify``, mutations rejected."""

import json
import random
from fractions import Fraction as F

import pytest

from algebra.kernel import compose_slice_map
from algebra.kernel.domains import Domain
from algebra.rationals import Q
from semialgebraic.cli import main
from semialgebraic.dimension import functional_dimension
from semialgebraic.dimension.certificate import box_certificate
from semialgebraic.verify import verify
from tests.fuzz.bab_fuzz import to_algebra, to_json
from tests.fuzz.dim_campaign import oracle
from tests.semialgebraic.test_dimension_nongeneric import _rank   # exact Fraction rank


def _net(rng, d, widths):
    dims = [d] + widths + [rng.choice([1, 1, 2])]
    return [([[F(rng.randint(-4, 4), rng.choice([1, 2, 3])) for _ in range(dims[l])]
              for _ in range(dims[l + 1])],
             [F(rng.randint(-6, 6), rng.choice([1, 2])) for _ in range(dims[l + 1])])
            for l in range(len(dims) - 1)]


def _fold(raw, lo, hi):
    """The test's own folding: inputs k with lo_k = hi_k fixed, the others x = c + s u."""
    free = [i for i in range(len(lo)) if lo[i] < hi[i]]
    (W, b), rest = raw[0], raw[1:]
    c = [(a + z) / 2 for a, z in zip(lo, hi)]
    W1 = [[r[i] * (hi[i] - lo[i]) / 2 for i in free] for r in W]
    b1 = [bi + sum(w * ci for w, ci in zip(r, c)) for r, bi in zip(W, b)]
    return [(W1, b1)] + rest, free


def _jacobian_rows(raw, x):
    """Rows d f_o / d θ (every parameter: layer by layer, W row by row, then b) at x, or None
    when a hidden pre-activation is 0 there (not a differentiable point)."""
    hs, masks = [list(x)], []
    for W, b in raw[:-1]:
        z = [sum(w * h for w, h in zip(r, hs[-1])) + bi for r, bi in zip(W, b)]
        if any(v == 0 for v in z):
            return None
        masks.append([v > 0 for v in z])
        hs.append([v if v > 0 else F(0) for v in z])
    rows = []
    m = len(raw[-1][1])
    for o in range(m):
        delta = [F(int(i == o)) for i in range(m)]
        blocks = []
        for l in range(len(raw) - 1, -1, -1):
            W, _ = raw[l]
            blocks.append([dv * hv for dv in delta for hv in hs[l]] + list(delta))
            if l:
                back = [sum(delta[i] * W[i][k] for i in range(len(delta))) for k in range(len(hs[l]))]
                delta = [v if mk else F(0) for v, mk in zip(back, masks[l - 1])]
        rows.append([v for blk in reversed(blocks) for v in blk])
    return rows


def _slice(rng, d):
    lo, hi = [], []
    k = rng.randint(1, d - 1)
    fixed = set(rng.sample(range(d), k))
    for i in range(d):
        a = F(rng.randint(-6, 6), rng.choice([1, 2, 4]))
        lo.append(a)
        hi.append(a if i in fixed else a + F(rng.randint(1, 10), rng.choice([1, 2, 4])))
    return lo, hi


@pytest.mark.parametrize("seed", range(10))
def test_the_slice_read_on_its_free_coordinates_agrees_with_the_oracles(seed):
    rng = random.Random(4200 + seed)
    d = rng.choice([2, 3])
    raw = _net(rng, d, [rng.randint(2, 4)] + ([rng.randint(2, 3)] if rng.random() < 0.5 else []))
    lo, hi = _slice(rng, d)
    folded, free = _fold(raw, lo, hi)
    net = to_algebra(raw)
    N = net.n_parameters
    # the lemma at random points of the slice: the user's Jacobian (all N parameters) and the
    # folded network's have equal ranks
    full, short = [], []
    for _ in range(40):
        u = [F(rng.randint(-999, 999), 1000) for _ in free]
        x = list(lo)
        for i, ui in zip(free, u):
            x[i] = (lo[i] + hi[i]) / 2 + (hi[i] - lo[i]) / 2 * ui
        a, b = _jacobian_rows(raw, x), _jacobian_rows(folded, u)
        assert (a is None) == (b is None)
        if a is not None:
            full += a
            short += b
    sampled = _rank(full)
    assert sampled == _rank(short)
    truth = oracle(folded, ("boxes", [(F(-1), F(1))] * len(free)))["value"]
    fd = functional_dimension(net, domain=Domain([Q(v.numerator, v.denominator) for v in lo],
                                                 [Q(v.numerator, v.denominator) for v in hi]))
    assert fd.n_parameters == N
    if truth is None:
        assert not fd.exact or fd.non_generic
        return
    assert fd.lower <= truth <= fd.upper and sampled <= truth
    assert fd.exact and fd.value == truth
    fib = fd.fiber_dimension
    assert fib.upper == N - truth and fib.lower >= len(raw[0][0]) * (d - len(free))
    cert = box_certificate(net, [Q(v.numerator, v.denominator) for v in lo],
                           [Q(v.numerator, v.denominator) for v in hi], fd)
    ok, why = verify(cert)
    assert ok and "R36 (b)" in why and "fiber_moves" not in cert
    bad = json.loads(json.dumps(cert))
    bad["lower"] = truth + 1                                  # a false lower bound
    assert not verify(bad)[0]


def test_compose_slice_map_folds_the_fixed_coordinates():
    raw = [([[F(2), F(1), F(-3)]], [F(1)]), ([[F(1)]], [F(0)])]
    net = compose_slice_map(to_algebra(raw), [0, 3, -1], [2, 3, 5])
    assert net.weights[0].to_rows() == [[2, -9]] and list(net.biases[0]) == [Q(0)]   # 1 + 2 + 3 - 6
    assert compose_slice_map(to_algebra(raw), [0, 0, 0], [1, 1, 1]) is None     # no side fixed
    assert compose_slice_map(to_algebra(raw), [1, 3, 0], [1, 3, 0]) is None     # every side
    assert compose_slice_map(to_algebra(raw), [0, 3, 1], [2, 3, 0]) is None     # lo > hi
    assert compose_slice_map(to_algebra(raw), [0, None, 0], [2, 3, 1]) is None  # open side


def test_the_cli_answers_on_a_slice_and_verify_accepts(tmp_path, capsys):
    """relu(x1 - x2) + relu(2 x1 + x2 + 1) on the slice x2 = 1/2, x1 in [0, 1]: one kink and
    one always-active neuron, functional dimension 4 (a kink's slope and place, an affine
    part) of N = 9; the fiber 5 = 3 + the two weights of the fixed column."""
    raw = [([[F(1), F(-1)], [F(2), F(1)]], [F(0), F(1)]), ([[F(1), F(1)]], [F(0)])]
    net, cert = tmp_path / "n.json", tmp_path / "c.json"
    net.write_text(json.dumps(to_json(raw)))
    assert main(["dim", str(net), "--box", "0:1,1/2:1/2", "--certificate", str(cert)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("functional dimension 4 of 9 parameters; fiber dimension 5")
    assert "slice" in out and "R36 (b)" in out
    assert main(["verify", str(cert), str(net)]) == 0
    assert "VALID" in capsys.readouterr().out
    assert main(["dim", str(net), "--box", "0:1,1/2:1/2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["functional_dimension"] == 4 and data["n_parameters"] == 9
    assert data["fiber_dimension"] == 5
    assert data["slice"]["fixed"] == [{"coordinate": 1, "value": "1/2"}]      # 0-based, as regions
    assert data["slice"]["fixed_weights"] == 2
    # every side of width 0 (a point given per coordinate): refused in one line
    assert main(["dim", str(net), "--box", "0:0,1/2:1/2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "width 0 in every coordinate" in err
