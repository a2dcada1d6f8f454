"""Session 51: two networks pruned at one hidden layer (each a constant) get an exact, certified
``max |a − b|`` on every domain: the ``constant`` claim of ``bab_recession`` certificates
(session 50 left the upper bound open: no certificate type had one for a layer of width 0)."""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction

import pytest

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.kernel.certificate_schemas import CLAIMS
from algebra.kernel.domains import Domain
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.verify import verify


def _pruned(rng: random.Random, d: int, layer: int, depth: int, m: int) -> dict:
    """A random ReLU network (JSON) of *depth* layers whose hidden layer *layer* has width 0."""
    widths = [d] + [0 if l == layer else rng.randint(1, 3) for l in range(1, depth)] + [m]

    def q():
        return str(Fraction(rng.randint(-9, 9), rng.randint(1, 5)))
    layers = [{"weight": [[q() for _ in range(widths[l])] for _ in range(widths[l + 1])],
               "bias": [q() for _ in range(widths[l + 1])]} for l in range(depth)]
    return {"format": "netfibers.network", "version": 1, "activation": "relu", "inputs": d,
            "layers": layers}


def _constant(net: dict, layer: int) -> list[Fraction]:
    """The network's constant by Fractions: the layers after the pruned one on its biases."""
    L = net["layers"]
    h = [Fraction(v) for v in L[layer]["bias"]]
    if layer < len(L) - 1:
        h = [max(v, Fraction(0)) for v in h]
    for l in range(layer + 1, len(L)):
        pre = [sum((Fraction(w) * x for w, x in zip(row, h)), Fraction(0)) + Fraction(c)
               for row, c in zip(L[l]["weight"], L[l]["bias"])]
        h = pre if l == len(L) - 1 else [max(v, Fraction(0)) for v in pre]
    return h


DOMAINS = [None, "orthant", [(-1, 2), (0, 1)], Domain.from_json(
    {"lo": [None, -1], "hi": [3, None], "halfspaces": [{"a": [1, 1], "b": 5}]})]


@pytest.mark.parametrize("seed", range(12))
def test_pruned_pairs_are_exact_and_certified_against_fractions(seed):
    """The constant claim: the value is the Fraction oracle's max |c_a − c_b|, lower = upper,
    and the certificate verifies, on R^d, the orthant, a box and an open box ∩ a half-space."""
    rng = random.Random(seed)
    depth, m = rng.randint(3, 5), rng.randint(1, 3)
    layer = rng.randint(1, depth - 1)
    ja, jb = _pruned(rng, 2, layer, depth, m), _pruned(rng, 2, layer, depth, m)
    want = max(abs(u - v) for u, v in zip(_constant(ja, layer), _constant(jb, layer)))
    a, b = network_from_dict(ja), network_from_dict(jb)
    for dom in DOMAINS:
        r = diff_bounds(a, b, dom, epsilon=None)
        assert r.complete and Fraction(str(r.lower)) == want == Fraction(str(r.upper)), (seed, dom)
        ok, why = verify(r.certificate)
        assert ok, why
        assert r.certificate["constant"] == {"layer": layer}


def _cert():
    rng = random.Random(3)
    ja, jb = _pruned(rng, 2, 2, 3, 2), _pruned(rng, 2, 2, 3, 2)
    r = diff_bounds(network_from_dict(ja), network_from_dict(jb), [(-1, 1), (-1, 1)])
    assert r.lower > 0 and verify(r.certificate)[0]
    return json.loads(json.dumps(r.certificate)), r


def test_a_lower_upper_in_the_constant_claim_is_broken():
    cert, r = _cert()
    cert["upper"] = str(r.upper - Q(1, 10**9))
    ok, why = verify(cert)
    assert not ok and "exceeds the claimed upper bound" in why, why
    cert["lower"] = cert["upper"]
    ok, why = verify(cert)
    assert not ok and "max |a - b| = " in why and "> upper" in why, why


def test_a_constant_claim_on_networks_with_neurons_is_broken():
    cert, _ = _cert()
    cert["constant"] = {"layer": 1}                   # a's layer 1 has neurons
    ok, why = verify(cert)
    assert not ok and "hidden layer 1 has" in why and "not 0" in why, why


@pytest.mark.parametrize("mutate,text", [
    (lambda c: c.update(constant={"layer": 3}), "not a hidden layer of both"),
    (lambda c: c.update(constant={"layer": 0}), "not a hidden layer of both"),
    (lambda c: c.update(constant={"layer": "2"}), "constant must be"),
    (lambda c: c.update(constant=2), "constant must be"),
    (lambda c: c.update(constant={"layer": 2, "x": 1}), "constant must be"),
    (lambda c: c.pop("upper"), "a constant claim holds"),
    (lambda c: (c.pop("point"), c.pop("lower"), c.pop("output")), "a constant claim holds lower"),
    (lambda c: c.update(cone={}), "no cone"),
    (lambda c: c.update(claim=CLAIMS["bab_recession"][2]), "only the upper-bound claim holds a"),
])
def test_malformed_constant_claims_are_refused(mutate, text):
    cert, _ = _cert()
    mutate(cert)
    with pytest.raises(InputError, match=text):
        verify(cert)


def test_a_point_outside_the_domain_or_a_wrong_value_is_caught():
    cert, r = _cert()
    bad = copy.deepcopy(cert)
    bad["point"] = ["2", "0"]
    assert verify(bad) == (False, "the point is outside the domain")
    bad = copy.deepcopy(cert)
    bad["lower"] = str(r.lower + 1)
    ok, why = verify(bad)
    assert not ok


def test_cli_diff_text_json_and_verify_epsilon(run, tmp_path):
    rng = random.Random(5)
    ja, jb = _pruned(rng, 3, 1, 3, 2), _pruned(rng, 3, 1, 3, 2)
    want = max(abs(u - v) for u, v in zip(_constant(ja, 1), _constant(jb, 1)))
    pa, pb, cert = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    pa.write_text(json.dumps(ja)); pb.write_text(json.dumps(jb))
    code, out, err = run("diff", pa, pb, "--orthant", "--json", "--certificate", cert)
    data = json.loads(out)
    assert code == 0 and data["complete"] and Fraction(data["lower"]) == Fraction(data["upper"]) == want
    assert "hidden layer 1 of width 0" in data["reason"]
    code, out, err = run("verify", cert, "--epsilon", str(want))
    assert code == 0 and "it proves max |a - b| <= " in out, (out, err)
    code, out, err = run("verify", cert, "--epsilon", str(want / 2))
    assert code == 1, (out, err)


# -- s51 audit F1: the exact simplex with redundant rows ------------------------------------------
def _redundant_lp(seed):
    """A feasible ``rows·x = rhs >= 0, x >= 0`` whose rows include combinations of others."""
    from algebra.rationals import Q as _Q
    rng = random.Random(seed)
    N, k = rng.randint(2, 6), rng.randint(1, 4)
    base = [[_Q(rng.randint(-3, 3)) for _ in range(N)] for _ in range(k)]
    x0 = [_Q(rng.randint(0, 2)) for _ in range(N)]
    rows = list(base)
    for _ in range(rng.randint(1, 3)):
        c = [rng.randint(-2, 2) for _ in range(k)]
        rows.append([sum((c[i] * base[i][j] for i in range(k)), _Q(0)) for j in range(N)])
    rng.shuffle(rows)
    rhs = [sum((r[j] * x0[j] for j in range(N)), _Q(0)) for r in rows]
    rows = [[-v for v in r] if b < 0 else r for r, b in zip(rows, rhs)]
    return rows, [abs(b) for b in rhs], [_Q(rng.randint(-3, 3)) for _ in range(N)]


@pytest.mark.parametrize("solver", ["revised", "tableau"])
def test_simplex_with_redundant_rows_is_exact_and_never_singular(solver):
    """Phase one may move an artificial to another row's position; the redundant row dropped was
    that position's, not the artificial's own: a singular basis (SingularMatrixError: a trained
    64-12-8-10 digits net crashed `regions` and `conserved` on R^64).  3 000 random LPs with
    dependent rows (15 crashed the revised solver, 8 the tableau's duals): every optimum primal
    feasible with duals y, yᵀA >= c, y·b = c·x (exact)."""
    from semialgebraic.lp import simplex as S
    zero = Q(0)
    for seed in range(3000):
        rows, rhs, cost = _redundant_lp(seed)
        m, N = len(rows), len(cost)
        if solver == "revised":
            st, x, y = S.revised_std(rows, rhs, cost, [None] * m)
        else:
            st, x, y = S.simplex_std(rows, rhs, cost, None, want_dual=True)
        assert st in ("optimal", "unbounded"), seed        # feasible by construction
        assert all(sum((r[j] * x[j] for j in range(N)), zero) == b for r, b in zip(rows, rhs))
        assert all(v >= 0 for v in x)
        if st == "optimal":
            assert all(sum((y[i] * rows[i][j] for i in range(m)), zero) >= cost[j] for j in range(N)), seed
            assert sum((y[i] * rhs[i] for i in range(m)), zero) == sum((c * v for c, v in zip(cost, x)), zero)


@pytest.mark.parametrize("debug", [[], ["--debug"]])
def test_an_internal_error_is_exit_4_with_or_without_debug(run, tmp_path, monkeypatch, debug):
    """s51 audit F2: with --debug the error was re-raised, and Python exited 1, which `equiv`
    and `verify` use for a verdict; now the traceback is printed and the exit is still 4."""
    from semialgebraic.commands import core

    def boom(*args, **kwargs):
        raise RuntimeError("planted bug")
    monkeypatch.setattr(core, "load_network", boom)
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"format": "netfibers.network", "version": 1, "inputs": 1,
                               "layers": [{"weight": [[1]], "bias": [0]}, {"weight": [[1]], "bias": [0]}]}))
    code, out, err = run(*debug, "eval", net, "--x", "1")
    assert code == 4 and out == "", (out, err)
    assert "netfibers: internal error (RuntimeError: planted bug)" in err
    assert ("Traceback" in err) == bool(debug)


# -- s51 audit F3, F4: a NaN or an infinity named by its index in the file's own tensor -----------
def _bad_layers(np):
    rng = np.random.default_rng(0)
    return [(rng.normal(size=(8, 4)).astype(np.float32), rng.normal(size=8).astype(np.float32)),
            (rng.normal(size=(3, 8)).astype(np.float32), rng.normal(size=3).astype(np.float32))]


def test_nan_in_an_sklearn_layout_npz_is_named_as_stored(run, tmp_path):
    import numpy as np
    (W1, b1), (W2, b2) = _bad_layers(np)
    c0 = np.ascontiguousarray(W1.T)             # sklearn's coefs_: (in, out) = (4, 8)
    c0[3, 5] = np.nan
    path = tmp_path / "sk.npz"
    np.savez(path, coefs_0=c0, intercepts_0=b1, coefs_1=np.ascontiguousarray(W2.T), intercepts_1=b2)
    code, out, err = run("info", path)
    assert code == 2 and err.strip().endswith("coefs_0: NaN at index [3,5] has no exact value"), err


def test_inf_in_a_torch_bias_is_named_by_its_1d_index(run, tmp_path):
    torch = pytest.importorskip("torch")
    import numpy as np
    (W1, b1), (W2, b2) = _bad_layers(np)
    b2 = b2.copy()
    b2[2] = np.inf
    sd = {"0.weight": torch.from_numpy(W1), "0.bias": torch.from_numpy(b1),
          "2.weight": torch.from_numpy(W2), "2.bias": torch.from_numpy(b2)}
    path = tmp_path / "m.pt"
    torch.save(sd, path)
    out_json = tmp_path / "x.json"
    code, out, err = run("convert", path, "-o", out_json)
    assert code == 2 and err.strip().endswith("2.bias: infinity at index [2] has no exact value"), err
    assert not out_json.exists()


def test_nan_in_a_keras_kernel_is_named_as_stored(run, tmp_path):
    h5py = pytest.importorskip("h5py")
    import numpy as np
    (W1, b1), (W2, b2) = _bad_layers(np)
    k1 = np.ascontiguousarray(W2.T)             # Keras kernels: (in, out) = (8, 3)
    k1[2, 1] = np.nan
    path = tmp_path / "m.h5"
    cfg = {"class_name": "Sequential", "config": {"name": "s", "layers": [
        {"class_name": "Dense", "config": {"name": "dense", "units": 8, "activation": "relu",
                                           "batch_input_shape": [None, 4]}},
        {"class_name": "Dense", "config": {"name": "dense_1", "units": 3, "activation": "linear"}}]}}
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps(cfg)
        g = f.create_group("model_weights")
        for name, (k, b) in (("dense", (np.ascontiguousarray(W1.T), b1)), ("dense_1", (k1, b2))):
            h = g.create_group(name).create_group(name)
            h["kernel:0"], h["bias:0"] = k, b
    code, out, err = run("info", path)
    assert code == 2, (code, out, err)
    assert err.strip().endswith("dense_1/kernel: NaN at index [2,1] has no exact value"), err


@pytest.mark.parametrize("style", ["gemm", "matmul"])
def test_nan_in_an_onnx_weight_is_named_by_the_files_tensor(run, tmp_path, style):
    import numpy as np
    from tests.algebra.test_io import onnx_model
    (W1, b1), (W2, b2) = _bad_layers(np)
    W2 = W2.copy()
    W2[1, 6] = np.nan                           # Gemm stores (out, in); MatMul (in, out)
    path = onnx_model(tmp_path / "m.onnx", [(W1, b1), (W2, b2)], style=style)
    code, out, err = run("info", path)
    want = "W1: NaN at index [1,6]" if style == "gemm" else "W1: NaN at index [6,1]"
    assert code == 2 and err.strip().endswith(f"{want} has no exact value"), err


# -- s51 audit 2 F2: diff --certificate on an equal pair of other shapes ---------------------------
EQ_A = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["-1", "3/2", "0"], ["-1/2", "-1", "-2"], ["3", "3", "-1/2"], ["-3/2", "1", "0"]], "bias": ["1/2", "-1/2", "2", "-2"]}, {"weight": [["1", "1/2", "-2", "3/2"], ["-1", "2", "0", "-2"], ["-2", "-1", "0", "1"]], "bias": ["0", "-1/2", "2"]}, {"weight": [["1", "-1", "-1"], ["-1", "-1", "3"], ["1", "-1", "1/2"]], "bias": ["-1", "-1/2", "1/2"]}, {"weight": [["-1", "0", "3/2"], ["1", "-1", "-2"], ["1", "1", "-2"]], "bias": ["1", "-1", "0"]}, {"weight": [["-1/2", "1/2", "-2"], ["1", "0", "0"]], "bias": ["0", "0"]}], "inputs": 3}
EQ_B = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["-1", "3/2", "0"], ["-1/2", "-1", "-2"], ["3", "3", "-1/2"], ["-3/2", "1", "0"], ["1", "0", "0"]], "bias": ["1/2", "-1/2", "2", "-2", "-999999999999/1000000000000"]}, {"weight": [["1", "1/2", "-2", "3/2", "1"], ["-1", "2", "0", "-2", "0"], ["-2", "-1", "0", "1", "0"]], "bias": ["0", "-1/2", "2"]}, {"weight": [["1", "-1", "-1"], ["-1", "-1", "3"], ["1", "-1", "1/2"], ["1", "-1", "-1"]], "bias": ["-1", "-1/2", "1/2", "-1"]}, {"weight": [["1/2", "0", "0", "1/2"], ["0", "1", "0", "0"], ["0", "0", "1", "0"]], "bias": ["0", "0", "0"]}, {"weight": [["-1", "0", "3/2"], ["1", "-1", "-2"], ["1", "1", "-2"]], "bias": ["1", "-1", "0"]}, {"weight": [["-1/2", "1/2", "-2"], ["1", "0", "0"]], "bias": ["0", "0"]}], "inputs": 3}
"""A 3-4-3-3-3-2 net and a copy with a duplicated neuron, an identity layer and a neuron dead on
[-1, 1]^3 (active only past x_0 = 1 - 1e-12: a sliver off the cube): equal on the cube."""


def test_diff_with_a_certificate_proves_an_equal_pair_by_exact_equality(run, tmp_path):
    """Branch and bound left [0, 0.82] after 40 s (its relaxations of the two shapes do not
    cancel); exact equality first (as equiv --epsilon) gives 0 with a region cover."""
    a, b, cert = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    a.write_text(json.dumps(EQ_A)); b.write_text(json.dumps(EQ_B))
    code, out, err = run("diff", a, b, "--box=-1,1", "--certificate", cert, "--timeout", "60")
    assert code == 0 and out.startswith("max |a - b| = 0 at x = "), (out, err)
    assert "[decided by exact equality: general" in out
    code, out, err = run("verify", cert, a, b, "--epsilon", "0")
    assert code == 0 and out.startswith("VALID region_cover certificate"), (out, err)
    code, out, err = run("diff", a, b, "--orthant", "--json")
    data = json.loads(out)       # the sliver neuron is live on the orthant: +inf by a ray there
    assert code == 0 and data["lower"] == "inf" and data["method"] == "branch and bound", data


# -- the facet LPs of a trained net on R^64 (an input that is always 0: tiny weights) ------------
def test_one_equality_is_pivoted_on_its_largest_coefficient():
    """x0 and N of a facet's hyperplane stay of the size of the row's ratios (a first pivot of
    9e-16 gave x0 ~1e27, which HiGHS could not solve: the cold exact simplex decided)."""
    from semialgebraic.lp.exact import _solve_equalities
    from semialgebraic.lp.certificates import lp_system
    S = lp_system([[Q(9, 10**16), Q(1), Q(-2)]], [Q(3)], None, None, None, None, 3)
    x0, N = _solve_equalities(S)
    assert sum(a * x for a, x in zip([Q(9, 10**16), Q(1), Q(-2)], x0)) == 3
    assert all(sum(a * v for a, v in zip([Q(9, 10**16), Q(1), Q(-2)], N.row_at(i))) == 0
               for i in range(N.nrows)) and N.nrows == 2 and N.rank() == 2
    assert max(abs(v) for v in x0) <= 3 and max(abs(v) for v in N.entries()) <= 2   # (1e15 before)


def test_a_point_is_guessed_without_the_tiny_columns():
    import numpy as np
    from algebra.linalg import QMatrix
    from semialgebraic.lp.floatlp import _point_without_tiny_columns
    G_lt = QMatrix.from_rows([[Q(1, 10**12), Q(1)], [Q(-1, 10**12), Q(-1)], [Q(1, 10**13), Q(0)]])
    h_lt = [Q(1), Q(1), Q(1)]
    A = np.array([[1e-12, 1.0], [-1e-12, -1.0], [1e-13, 0.0]])
    G = np.c_[A, np.linalg.norm(A, axis=1)]
    z = _point_without_tiny_columns(G_lt, h_lt, QMatrix.zeros(0, 2), [], np.zeros((0, 2)),
                                    np.zeros(0), G, np.array([1.0, 1.0, 1.0]), np.r_[0.0, 0.0, 1.0])
    assert z is not None and z[0] == 0
    assert all(sum(g * v for g, v in zip(G_lt.row_at(i), z)) < h_lt[i] for i in range(3))


def test_feasibility_with_one_equality_agrees_with_the_exact_method():
    """1 000 random systems (an equality with tiny, zero and moderate coefficients, strict and
    non-strict rows): auto (HiGHS guesses, checked exactly) and exact agree."""
    from semialgebraic.lp.exact import feasible
    for seed in range(1000):
        rng = random.Random(seed)
        n = rng.randint(1, 6)

        def q():
            r = rng.random()
            return (Fraction(rng.randint(-9, 9), 10 ** rng.randint(9, 20)) if r < 0.15 else
                    Fraction(0) if r < 0.25 else Fraction(rng.randint(-9, 9), rng.randint(1, 4)))
        A_lt = [[q() for _ in range(n)] for _ in range(rng.randint(0, 5))]
        A_le = [[q() for _ in range(n)] for _ in range(rng.randint(0, 3))]
        kw = dict(A_eq=[[q() for _ in range(n)]], b_eq=[q()], A_lt=A_lt or None,
                  b_lt=[q() for _ in A_lt] or None, A_le=A_le or None,
                  b_le=[q() for _ in A_le] or None, n=n)
        assert feasible(**kw).feasible == feasible(**kw, method="exact").feasible, seed


def test_fiber_of_a_net_identifiable_by_two_opposite_pairs_is_one_orbit(run, tmp_path):
    """s51 audit 4 F1: three-layer-fibers R42 with two pairs of neurons on shared hyperplanes
    (opposite orientations): `identify` proved one orbit, `fiber` said "not determined" and
    spoke of spare neurons (only the one-pair certificate was taken)."""
    net = tmp_path / "pairs.json"
    net.write_text(json.dumps({"format": "netfibers.network", "version": 1, "layers": [
        {"weight": [[1, 0], [-1, 0], [0, 1], [0, -1]], "bias": [0, 0, 0, 0]},
        {"weight": [[1, 1, 1, 1], [1, 2, 0, 0]], "bias": [0, 0]}]}))
    code, out, err = run("identify", net)
    assert code == 0 and out.startswith("identifiable up to permutation and positive scaling")
    code, out, err = run("fiber", net, "--json")
    data = json.loads(out)
    assert code == 0 and data["dimension"] == 4, data
    assert data["number_of_components"] == 24 and data["number_of_orbits"] == 1, data
