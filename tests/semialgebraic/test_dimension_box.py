"""`dim` on a box with its own sides per coordinate (three-layer-fibers R36): the network read on
the cube, u ↦ net(c + s ⊙ u) on [−1, 1]^d, has the functional dimension of the network on the
box.  Checked against the dim campaign's independent oracle (z3 region enumeration on the box
itself, exact ranks), the certificate through `netfibers verify`, and mutations."""

import json
import random
import subprocess
import sys
from fractions import Fraction as F

import pytest

from algebra.kernel import box_input_map, compose_input_map
from algebra.linalg import QMatrix
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension
from semialgebraic.dimension.certificate import box_certificate
from semialgebraic.verify import verify
from tests.fuzz.bab_fuzz import to_algebra, to_json
from tests.fuzz.dim_campaign import oracle


def _net(rng, d, widths):
    dims = [d] + widths + [1]
    return [([[F(rng.randint(-4, 4), rng.choice([1, 2, 3])) for _ in range(dims[l])] for _ in range(dims[l + 1])],
             [F(rng.randint(-6, 6), rng.choice([1, 2])) for _ in range(dims[l + 1])]) for l in range(len(dims) - 1)]


def _box(rng, d):
    out = []
    for _ in range(d):
        lo = F(rng.randint(-8, 6), rng.choice([1, 2, 4]))
        out.append((lo, lo + F(rng.randint(1, 12), rng.choice([1, 4, 16]))))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_the_box_read_on_the_cube_agrees_with_the_oracle_on_the_box(seed):
    rng = random.Random(3600 + seed)
    d = rng.choice([1, 2])
    raw, box = _net(rng, d, [rng.randint(2, 4)] + ([rng.randint(2, 3)] if rng.random() < 0.5 else [])), _box(rng, d)
    truth = oracle(raw, ("boxes", box))["value"]
    net = to_algebra(raw)
    lo, hi = [Q(a.numerator, a.denominator) for a, _ in box], [Q(b.numerator, b.denominator) for _, b in box]
    fd = functional_dimension(compose_input_map(net, *box_input_map(lo, hi)), domain=(Q(-1), Q(1)))
    if truth is None:
        assert not fd.exact or fd.non_generic
        return
    assert fd.lower <= truth <= fd.upper
    assert fd.exact and fd.value == truth
    cert = box_certificate(net, lo, hi, fd)
    ok, why = verify(cert)
    assert ok and "R36" in why
    bad = json.loads(json.dumps(cert))
    bad["domain"]["input_map"]["hi"][0] = str(hi[0] + 7)     # another box: inputs may leave it
    bad["lower"] = truth + 1                                  # and a false lower bound
    assert not verify(bad)[0]


def test_the_cli_reads_a_box_with_different_sides_and_verify_accepts(tmp_path):
    raw = [([[F(1), F(2)], [F(-1), F(1, 2)], [F(3), F(-1)]], [F(-1), F(1, 3), F(2)]),
           ([[F(1), F(-2), F(1)]], [F(0)])]
    box = [(F(0), F(1)), (F(-3), F(5))]
    truth = oracle(raw, ("boxes", box))["value"]
    (tmp_path / "n.json").write_text(json.dumps(to_json(raw)))
    cert = tmp_path / "c.json"
    r = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "dim", str(tmp_path / "n.json"),
                        "--box", "0:1,-3:5", "--certificate", str(cert)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"functional dimension {truth} of 13 parameters")
    assert "R36" in r.stdout
    data = json.loads(cert.read_text())
    assert data["domain"]["input_map"] == {"lo": ["0", "-3"], "hi": ["1", "5"]} or \
        data["domain"]["input_map"] == {"lo": [0, -3], "hi": [1, 5]}
    assert to_algebra(raw).to_dict()["layers"] == data["network"]["layers"]   # the user's network
    v = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(cert)],
                       capture_output=True, text=True)
    assert v.returncode == 0 and v.stdout.startswith("VALID")
    data["domain"]["input_map"]["lo"][0] = "1"    # width 0: a slice (R36 (b)), one free input,
    data.pop("fiber_moves", None)                  # which the certificate's inputs do not fit
    data.pop("fiber_lower", None)                  # (fiber moves: refused on a slice first)
    cert.write_text(json.dumps(data))
    v = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(cert)],
                       capture_output=True, text=True)
    assert v.returncode == 2 and "inputs[0]: expected 1 entries, got 2" in v.stderr
    data["domain"]["input_map"]["hi"][1] = "-3"   # every side of width 0: refused
    cert.write_text(json.dumps(data))
    v = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(cert)],
                       capture_output=True, text=True)
    assert v.returncode == 2 and "input_map" in v.stderr


def test_a_box_with_every_side_of_width_zero_is_refused_clearly(tmp_path):
    """(Some sides of width 0, not all, are a slice: tests/semialgebraic/test_dimension_slice.py.)"""
    raw = [([[F(1), F(2)]], [F(0)]), ([[F(1)]], [F(0)])]
    (tmp_path / "n.json").write_text(json.dumps(to_json(raw)))
    r = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "dim", str(tmp_path / "n.json"),
                        "--box", "1:1,2:2"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "dim:" in r.stderr


def test_the_api_takes_a_domain_box_with_its_own_sides():
    from algebra.kernel.domains import Domain
    raw = [([[F(1), F(2)], [F(-1), F(1)]], [F(0), F(1)]), ([[F(1), F(-1)]], [F(0)])]
    net = to_algebra(raw)
    for lo, hi in [((0, -3), (1, 5)), ((-2, 0), (-1, 1)), ((0, 0), (1, 1))]:
        truth = oracle(raw, ("boxes", [(F(a), F(b)) for a, b in zip(lo, hi)]))["value"]
        fd = functional_dimension(net, domain=Domain(list(lo), list(hi)))
        assert fd.exact and fd.value == truth
    assert functional_dimension(net, domain=Domain.orthant(2)).value == oracle(raw, ("orthant",))["value"]


def test_a_first_batch_stopped_by_the_budget_keeps_the_rank_found_so_far(monkeypatch):
    """Under load the first sampling batch's elimination can outlast the budget; stopped between
    its panels, the pivots found so far are kept as the lower bound (was 0), the batch's inputs
    are listed, and the certificate checks the bound."""
    import semialgebraic.dimension.functional as F
    from algebra.linalg import gfp
    from semialgebraic.budget import BudgetExhausted
    from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
    from semialgebraic.verify import verify
    from tests.cli.test_budgets import random_net
    net = random_net([4, 24, 24, 1], 2)
    full = functional_dimension(net)
    calls = []

    def stopping_kernel(R, p, check=None):
        def check_few():
            calls.append(1)
            if len(calls) > 3:             # 3 panels of 64 columns, then the budget is spent
                raise BudgetExhausted("timeout of 1 s reached")
        return gfp.kernel_rows_mod_p(R, p, check=check_few)
    monkeypatch.setattr(F, "kernel_rows_mod_p", stopping_kernel)
    fd = functional_dimension(net)
    assert not fd.exact and 0 < fd.lower <= full.lower and fd.upper >= full.value
    assert fd.samples == len(fd.inputs) > 0
    ok, why = verify(functional_dimension_certificate(net, fd))
    assert ok, why


def test_a_net_past_the_directions_cap_keeps_the_directions_built(monkeypatch):
    """The proven directions are sparse dicts (a 24-24-6000-2 net: ~163 thousand entries; dense
    vectors of N entries had needed ~16 GB and the OOM killer).  Past DIRECTIONS_ENTRIES the
    building stops with the directions so far: a subset, so N − their rank is still an upper
    bound, between the full one and N; the reason says so and the certificate verifies."""
    import semialgebraic.dimension.functional as F
    from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
    from semialgebraic.verify import verify
    from tests.cli.test_budgets import random_net
    net = random_net([3, 6, 5, 1], 4)
    full = functional_dimension(net, max_regions=1)          # no complete walk: a sandwich
    assert full.upper < net.n_parameters
    monkeypatch.setattr(F, "DIRECTIONS_ENTRIES", 5)
    fd = functional_dimension(net, max_regions=1)
    assert full.upper < fd.upper < net.n_parameters and fd.lower == full.lower
    assert "proven symmetry directions were built" in fd.reason and "past 5 entries" in fd.reason
    ok, why = verify(functional_dimension_certificate(net, fd))
    assert ok, why


def _corner_net(seed, d=5):
    """Two first-layer neurons live only in opposite corners of [0, 1]^d (sum x > d − 1/10 and
    sum x < 1/10: volume 1e-7 / d!, which no uniform candidate reaches), the rest random."""
    from algebra.network import Network
    rng = random.Random(4700 + seed)
    r = lambda: Q(rng.randint(-9, 9), rng.randint(1, 5))
    W1 = [[Q(1)] * d, [Q(-1)] * d] + [[r() for _ in range(d)] for _ in range(6)]
    b1 = [Q(1, 10) - d, Q(1, 10)] + [r() for _ in range(6)]
    W2 = [[r() for _ in range(8)] for _ in range(6)]
    return Network.from_rows([W1, W2, [[r() for _ in range(6)]]], [b1, [r() for _ in range(6)], [r()]])


@pytest.mark.parametrize("seed", range(4))
def test_the_sampler_reaches_first_layer_neurons_live_only_in_a_corner(seed):
    """Sampling only (no region walk): the candidates added in the rare side of each
    first-layer neuron (sampling._first_layer_corners, from the vertex maximising it) give
    inputs where each corner neuron is active, exactly, d + 1 of them affinely independent, and
    the lower bound stays below the walk's exact value."""
    import numpy as np
    from semialgebraic.dimension.sampling import chosen_inputs
    net = _corner_net(seed)
    evidence = {}
    X = chosen_inputs(net, (Q(0), Q(1)), np.random.default_rng(seed), 40, 2000, evidence, 0)
    for j in (0, 1):                   # the float pool's candidates alone, exactly checked
        assert not evidence["never_on"][j]
        assert any(all(0 < v < 1 for v in x) and net.activation_pattern(x)[j] == 1 for x in X)
    full = functional_dimension(net, domain=(Q(0), Q(1)))
    fd = functional_dimension(net, domain=(Q(0), Q(1)), max_regions=0)
    assert full.exact and fd.lower <= full.value <= fd.upper
    for j in (0, 1):
        live = [x for x in fd.inputs if all(0 < v < 1 for v in x) and net.activation_pattern(x)[j] == 1]
        assert len(live) >= net.n_inputs + 1, j
        base = live[0]
        assert QMatrix.from_rows([[a - b for a, b in zip(x, base)] for x in live[1:]]).rank() == net.n_inputs


def test_the_float_walks_stay_inside_the_cube():
    """The Gauss–Newton walks (sampling._newton_step) are projected onto a cube domain, inside it
    by 2^-13 of its side, and their inputs map to the pool's unit coordinates inside (0, 1)."""
    import numpy as np
    from semialgebraic.dimension.sampling import _newton_step, _pool_coordinates
    dom = (Q(-1, 2), Q(3, 4))
    x = _newton_step(np, np.array([0.1, 0.2]), np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([5.0, -5.0]), dom)
    side = 1.25 * 2.0 ** -13
    assert -0.5 + side * 0.99 <= x.min() and x.max() <= 0.75 - side * 0.99
    U = _pool_coordinates(np, [x, [-7.0, 9.0]], dom)
    assert (U > 0).all() and (U < 1).all() and U[1].tolist() == [2.0 ** -13, 1 - 2.0 ** -13]


def test_candidates_are_spread_over_the_rare_side_of_a_deeper_neuron():
    """sampling._rare_sides: a second-layer neuron active at one pool candidate gets up to
    4 (d + 1) more candidates from it, each inside the cube and on its active side (floats),
    at most an eighth of the pool; a neuron met often gets none; on R^d nothing is added."""
    import numpy as np
    from semialgebraic.dimension.sampling import RARE_SHARE, _rare_sides
    rng = np.random.default_rng(3)
    d, n = 3, 400
    U = np.round(rng.random((n, d)) * 2 ** 24) / 2 ** 24
    U[0] = [0.97, 0.97, 0.97]                       # the one candidate in the corner
    Ws = [np.eye(d), np.array([[1.0, 1.0, 1.0], [1.0, -1.0, 0.0]]), np.array([[1.0, 1.0]])]
    bs = [np.zeros(d), np.array([-2.85, 0.0]), np.zeros(1)]
    U[1:, 0] = np.minimum(U[1:, 0], 0.5)            # nowhere else: x0 + x1 + x2 <= 2.5 < 2.85
    U2, X2 = _rare_sides((Q(0), Q(1)), np.random.default_rng(0), U, U.copy(), Ws, bs)
    new = X2[n:]
    assert 0 < len(new) <= min(n // RARE_SHARE, 4 * (d + 1)) and (U2[:n] == U).all()   # one start
    assert (new @ Ws[1][0] - 2.85 > 0).all() and (0 <= new).all() and (new <= 1).all()
    assert len(np.unique(new, axis=0)) > 1
    same, _ = _rare_sides(None, np.random.default_rng(0), U, U.copy(), Ws, bs)
    assert same is U
