"""Session 50: the budgets of two paths the s49 huge-input audit left open.

* F19: ``search diff --method cells`` read both networks from their JSON in every cell's task
  (2.8 s each for 784-1024-1024-10: 33 s at ``--timeout 10``) and prepared the search (the
  networks' JSON, a digest) with no budget watching; its text gave no point for the lower bound.
* F6: ``absorb`` of a 104 MB block JSON took 23 s at ``--timeout 10``: the exponent scan (a
  regex at every position), and the parse of 4.7 M decimals, which no budget saw.
"""

from __future__ import annotations

import json
import random
import time
from decimal import Decimal
from fractions import Fraction

import pytest

from algebra.io import native
from algebra.network import Network
from algebra.rationals import Q, to_q
from semialgebraic import budget as budget_mod
from semialgebraic.distributed import search


def _pair():
    a = Network.from_rows([[[1, -1], [2, 1]], [[1, 1]]], [[0, "1/3"], [0]])
    b = Network.from_rows([[[1, -1], [2, "101/100"]], [[1, 1]]], [[0, "1/3"], [0]])
    return a, b


# -- F19: search diff --method cells -------------------------------------------------------------
def test_cells_tasks_read_their_networks_once_per_search(monkeypatch):
    a, b = _pair()
    calls = []
    real = search.network_from_dict
    monkeypatch.setattr(search, "network_from_dict", lambda d: calls.append(1) or real(d))
    monkeypatch.setattr(search, "_PAIRS", {})
    cell = [["-1", "1"], ["-1", "1"]]
    first = search.diff_cell(a.to_dict(), b.to_dict(), 30, None, None, cell, "k1")
    again = search.diff_cell(a.to_dict(), b.to_dict(), 30, None, None, cell, "k1")
    assert len(calls) == 2 and first == again              # the pair read once for key k1
    search.diff_cell(a.to_dict(), b.to_dict(), 30, None, None, cell, "k2")
    assert len(calls) == 4 and list(search._PAIRS) == ["k2"]     # another search: read afresh
    search.diff_cell(a.to_dict(), b.to_dict(), 30, None, None, cell)
    assert len(calls) == 6                                  # no key: no cache


def test_serial_cells_search_reads_no_json(monkeypatch):
    a, b = _pair()
    monkeypatch.setattr(search, "network_from_dict",
                        lambda d: pytest.fail("a serial search read its networks' JSON"))
    r = search.distributed_diff(a, b, [(-1, 1), (-1, 1)], cells=2, workers=0)
    assert r.complete and r.verified and r.lower == r.upper
    assert r.lower == Q(1, 100)                            # |a - b| = x_1 relu(...)/100 at x_1 = 1
    x = r.point
    assert abs(a.evaluate(x)[0] - b.evaluate(x)[0]) == r.lower   # the point attains it


def test_cells_search_stopped_in_its_preparation_answers_the_centre(monkeypatch):
    a, b = _pair()
    from semialgebraic.distributed import tree
    monkeypatch.setattr(tree, "_ALARMED_PREP", 0)          # small pairs stand for large ones
    monkeypatch.setattr(search._Search, "start",
                        lambda self, a, b: time.sleep(5))   # a preparation past the deadline
    t = time.monotonic()
    r = search.distributed_diff(a, b, [(0, 2), (0, 2)], cells=2, workers=0, timeout=0.5)
    assert time.monotonic() - t < 3
    assert not r.complete and r.upper is None and r.certificate is None
    assert "before the cells were prepared" in r.reason
    assert r.point == (1, 1)                               # the box's centre, exactly
    assert r.lower == abs(a.evaluate([1, 1])[0] - b.evaluate([1, 1])[0]) == Q(1, 100)


def test_search_diff_cells_text_names_the_point(run, tmp_path):
    a, b = _pair()
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a.to_dict()))
    pb.write_text(json.dumps(b.to_dict()))
    code, out, err = run("search", "diff", pa, pb, "--box", "-1,1", "--method", "cells",
                         "--workers", "0")
    assert code == 0, (out, err)
    assert out.startswith("max |a - b| = 1/100 at x = (") and "output 0" in out
    assert "certificate checked: True" in out


# -- F6: reading large JSON -----------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(4))
def test_exponent_scan_finds_what_the_regex_finds(seed):
    rng = random.Random(seed)
    alphabet = '0123456789eE.+-_ a"x,[]'
    for _ in range(3000):
        t = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        t += " " * rng.choice([0, 3000])                   # sparse texts take the new scan
        assert native._exponents(t) == native._EXPONENT.findall(t), t
    long_run = "x" * 20000 + "1e5" + "ab1e7" * 3000       # a long run scanned back once
    assert native._exponents(long_run) == native._EXPONENT.findall(long_run)


@pytest.mark.parametrize("text", ["0.1", "-0.0123456789012345678", "1.5e-05", "-7.25E-2",
                                  "2.5E+3", "00.50", "-0.000", "12.5e-999", "1.0e999",
                                  "3.14159e0", "1" + "0" * 299 + ".5"])
def test_decimal_fast_path_is_the_decimal_spelled(text):
    want = Fraction(Decimal(text))
    assert to_q(text) == Q(want.numerator, want.denominator)
    assert to_q(Decimal(text)) == Q(want.numerator, want.denominator)


def test_large_matrices_are_read_in_parts_with_exact_messages(monkeypatch):
    monkeypatch.setattr(native, "_GUARDED", 10)              # parts of 10 entries (4 rows)
    rows = [[f"{i}.{j}5" for j in range(3)] for i in range(11)]
    got = native.parse_matrix(rows, "w_up")
    assert got == [[to_q(x) for x in r] for r in rows]
    rows[9][1] = "oops"
    with pytest.raises(native.InputError, match=r"w_up\[9,1\]"):
        native.parse_matrix(rows, "w_up")
    rows[9][1] = "1"
    rows[10] = ["1"]
    with pytest.raises(native.InputError, match="row 10 has 1 entries, expected 3"):
        native.parse_matrix(rows, "w_up")


def test_reading_a_large_block_stops_at_the_budget(run, tmp_path, monkeypatch):
    monkeypatch.setattr(native, "_GUARDED", 10)
    rng = random.Random(1)
    d, h = 8, 40
    block = {"format": "netfibers.block", "version": 1, "activation": "relu",
             "w_up": [[round(rng.gauss(0, 1), 6) for _ in range(d)] for _ in range(h)],
             "w_down": [[round(rng.gauss(0, 1), 6) for _ in range(h)] for _ in range(d)]}
    path = tmp_path / "block.json"
    path.write_text(json.dumps(block))
    seen = []
    real = budget_mod.conversion_guard

    def guard(entries, what):       # the deadline passes while w_up is read
        seen.append(what)
        if len(seen) == 3:
            time.sleep(1.2)
        real(max(entries, 100_000), what)
    monkeypatch.setattr(budget_mod, "conversion_guard", guard)
    from algebra import network
    monkeypatch.setattr(network, "CONVERSION_GUARDS", [guard])
    code, out, err = run("absorb", path, "--timeout", "1")
    assert code == 3, (out, err)
    assert out.startswith("not computed: making w_up's exact numbers from the file (rows ")
    assert len(seen) == 3                     # the part asked after the deadline: not read


# -- F10, F14: identify / symmetries on wide layers, diff on the orthant ---------------------------
def test_neuron_rows_of_a_wide_layer_are_costed_first(run, tmp_path, monkeypatch):
    """s49 huge F10: 16.7 M rationals of a 4096 x 4096 layer made as rows past --timeout."""
    import numpy as np
    rng = np.random.default_rng(0)
    path = tmp_path / "wide.npz"
    np.savez(path, W0=rng.standard_normal((400, 4)).astype(np.float32),
             b0=np.zeros(400, np.float32),
             W1=rng.standard_normal((400, 400)).astype(np.float32),
             b1=np.zeros(400, np.float32), W2=rng.standard_normal((1, 400)).astype(np.float32),
             b2=np.zeros(1, np.float32))
    seen = []
    real = budget_mod.conversion_guard

    def guard(entries, what):
        seen.append(what)
        if "neurons as rows" in what:
            monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)   # 160 000 rows: 160 s
        real(entries, what)
    from algebra import network
    monkeypatch.setattr(network, "CONVERSION_GUARDS", [guard])
    for command in ("identify", "symmetries"):
        code, out, err = run(command, path, "--timeout", "30")
        assert code == 3, (command, out, err)
        assert "hidden layer 1's neurons as rows" in out + err and "left of the budget" in out + err
        monkeypatch.setattr(budget_mod, "CONVERT_RATE", 2e6)


def test_ray_start_by_matrix_products_equals_the_rows_rule():
    """recession.ray_start now multiplies with FLINT; the rule it implements, by rows here."""
    from semialgebraic.bab.recession import ray_start
    rng = random.Random(5)
    for _ in range(20):
        widths = [rng.randint(1, 4) for _ in range(rng.randint(2, 4))]
        ws = [[[Q(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(m)] for _ in range(n)]
              for m, n in zip(widths, widths[1:])]
        bs = [[Q(rng.randint(-5, 5)) for _ in range(n)] for n in widths[1:]]
        D = Network.from_rows(ws, bs)
        x0 = [Q(rng.randint(-3, 3)) for _ in range(widths[0])]
        r = [Q(rng.randint(-3, 3)) for _ in range(widths[0])]
        t1, u, v = Q(0), list(x0), list(r)
        for l, (W, b) in enumerate(zip(ws, bs)):
            u = [sum((w * x for w, x in zip(row, u)), Q(0)) + bj for row, bj in zip(W, b)]
            v = [sum((w * x for w, x in zip(row, v)), Q(0)) for row in W]
            if l == len(ws) - 1:
                break
            for uj, vj in zip(u, v):
                if vj != 0:
                    t1 = max(t1, -uj / vj)
            on = [vj > 0 or (vj == 0 and uj >= 0) for uj, vj in zip(u, v)]
            u = [uj if o else Q(0) for uj, o in zip(u, on)]
            v = [vj if o else Q(0) for vj, o in zip(v, on)]
        assert ray_start(D, x0, r) == (t1, u, v)


# -- F18: one limit on declared entries ---------------------------------------------------------
def test_compressed_npz_members_count_against_the_entries_limit(run, tmp_path, monkeypatch):
    import numpy as np
    from algebra.io import exact
    assert exact.MAX_ENTRIES == 200_000_000
    path = tmp_path / "z.npz"
    np.savez_compressed(path, W0=np.zeros((30, 4), np.float32), b0=np.zeros(30, np.float32),
                        W1=np.ones((1, 30), np.float32), b1=np.zeros(1, np.float32))
    monkeypatch.setenv("NETFIBERS_MAX_ENTRIES", "150")
    code, out, err = run("info", path)
    assert code == 2                     # W0 and b0 hold 150, W1 30 more
    assert "W1: the compressed arrays declare 180 entries: more than netfibers reads (150" in err
    monkeypatch.setenv("NETFIBERS_MAX_ENTRIES", "200")
    code, out, err = run("eval", path, "--x", "1,1,1,1")
    assert code == 0 and out.strip() == "0", (out, err)
    stored = tmp_path / "s.npz"          # stored members are memory maps: not counted
    np.savez(stored, W0=np.zeros((30, 4), np.float32), b0=np.zeros(30, np.float32),
             W1=np.ones((1, 30), np.float32), b1=np.zeros(1, np.float32))
    monkeypatch.setenv("NETFIBERS_MAX_ENTRIES", "1")
    code, out, err = run("eval", stored, "--x", "1,1,1,1")
    assert code == 0 and out.strip() == "0", (out, err)


# -- F17: transformer MLP blocks are read as integer views ---------------------------------------
def _exact(arr):
    from algebra.rationals import from_float
    return [[from_float(x) for x in row] for row in arr.tolist()]


@pytest.mark.parametrize("layout", ["llama", "gpt2"])
def test_weight_file_blocks_keep_integer_views(tmp_path, layout):
    import numpy as np
    from safetensors.numpy import save_file
    from algebra.blocks import Block, IntegerArray
    from algebra.io.blocks import load_block
    rng = np.random.default_rng(3)
    d, k = 3, 5
    up = (rng.standard_normal((k, d)) * 0.3).astype(np.float16)
    down = (rng.standard_normal((d, k)) * 0.3).astype(np.float16)
    gate = (rng.standard_normal((k, d)) * 0.3).astype(np.float16)
    path = tmp_path / "m.safetensors"
    if layout == "llama":
        save_file({"mlp.up_proj.weight": up, "mlp.down_proj.weight": down,
                   "mlp.gate_proj.weight": gate}, str(path))
        block = load_block(path, activation="swiglu")
        want = Block("swiglu", _exact(up), _exact(down), w_gate=_exact(gate))
        held = ("w_up", "w_down", "w_gate")
    else:                                   # GPT-2's Conv1D: stored (in, out)
        save_file({"h.0.mlp.c_fc.weight": np.ascontiguousarray(up.T),     # (its bias tells
                   "h.0.mlp.c_fc.bias": np.zeros(k, np.float16),           # the layout)
                   "h.0.mlp.c_proj.weight": np.ascontiguousarray(down.T)}, str(path))
        block = load_block(path, activation="relu")
        want = Block("relu", _exact(up), _exact(down), b_up=[0] * k)
        held = ("w_up", "w_down")
    for name in held:                       # nothing rational made on reading
        assert getattr(block, "_" + name) is None and isinstance(block._ints[name], IntegerArray)
    assert block.gated == (layout == "llama")
    x = [Q(1, 3), Q(-2), Q(5, 7)]
    if layout == "gpt2":
        assert block(x) == want(x)
    assert block == want                    # the same exact matrices
    assert block.replace(skip="none").skip == "none"


def test_gated_block_decided_without_its_weights(run, tmp_path, monkeypatch):
    import numpy as np
    from safetensors.numpy import save_file
    from algebra.blocks import IntegerArray
    rng = np.random.default_rng(4)
    d, k = 4, 6
    path = tmp_path / "m.safetensors"
    save_file({"mlp.up_proj.weight": rng.standard_normal((k, d)).astype(np.float16),
               "mlp.down_proj.weight": rng.standard_normal((d, k)).astype(np.float16),
               "mlp.gate_proj.weight": rng.standard_normal((k, d)).astype(np.float16)}, str(path))
    made = []
    real = IntegerArray.to_qmatrix
    monkeypatch.setattr(IntegerArray, "to_qmatrix", lambda self, *a: made.append(1) or real(self, *a))
    from semialgebraic.certificates import _json
    monkeypatch.setattr(_json, "SIDECAR_THRESHOLD", 1)      # as a large block's: a sidecar
    cert = tmp_path / "c.json"
    code, out, err = run("absorb", path, "--activation", "swiglu", "--certificate", cert)
    assert code == 1 and "not absorbable [linearization (Prop. 6, " in out, (out, err)
    assert made == []              # skip-absorption R6 needs the activation and the skip only
    code, out, err = run("verify", cert)
    assert code == 0 and out.startswith("VALID absorption certificate"), (out, err)


# -- the Fiber protocol: both fibers say the same things --------------------------------------
def test_shallow_and_bottleneck_fibers_share_at_theta_and_components_exact():
    from semialgebraic import fiber
    from semialgebraic._fiber import Fiber
    shallow = fiber(Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]]))
    spare = fiber(Network.from_rows([[[1], [-1], [1]], [[1, 1, 1]]], [[0, 0, -1], [0]]))
    for F in (shallow, spare):
        assert isinstance(F, Fiber)
        assert F.at_theta == F.dimension.value == F.to_json()["dimension_at_theta"]
        assert F.components_exact == (F.number_of_components is not None) \
            == F.to_json()["number_of_components_exact"]
    assert shallow.components_exact
    from algebra.io import load
    from pathlib import Path
    import algebra
    ex = Path(algebra.__file__).parent / "examples" / "masked_bottleneck.json"
    B = fiber(load(ex))
    assert isinstance(B, Fiber) and isinstance(B.components_exact, bool) and B.at_theta is not None


# -- an unbounded domain: a probe of the recession cone before its search ------------------------
def test_cone_probe_decides_unbounded_pairs_without_the_cone_search(monkeypatch):
    """three-layer-fibers R28: f_0 (the biases-free a − b) not 0 on the cone C means +inf; a few exact evaluations
    find such a point of C at once (a 784-1024-1024-10 pair on the orthant ran > 100 s)."""
    from semialgebraic import diff_bounds, verify
    from semialgebraic.bab import recession
    a = Network.from_rows([[[1, -1], [2, 1]], [[1, 1]]], [[0, 1], [0]])
    b = Network.from_rows([[[1, -1], [2, "201/100"]], [[1, 1]]], [[0, 1], [0]])
    monkeypatch.setattr(recession, "bounded_diff",
                        lambda *a, **k: pytest.fail("the cone's search ran"))
    for dom in ("orthant", None):
        r = diff_bounds(a, b, dom)
        assert r.upper is None and r.unbounded and r.lower >= 1
        assert abs(a.evaluate(r.point)[0] - b.evaluate(r.point)[0]) == r.lower
        assert verify(r.certificate)[0] is True


def test_cone_probe_finds_nothing_where_the_recession_agrees():
    from semialgebraic.bab import recession
    from algebra.kernel.domains import Domain
    a = Network.from_rows([[[1, -1], [2, 1]], [[1, 1]]], [[0, 1], [0]])
    b = Network.from_rows([[[1, -1], [2, 1]], [[1, 1]]], [[5, -3], [2]])   # other biases only
    cone = recession.cone_domain(Domain.orthant(2))
    assert recession._cone_probe(recession.bias_free(a), recession.bias_free(b), cone,
                                 budget_mod.Budget()) is None
    bumped = Network.from_rows([[[1, -1], [2, 1]], [[1, "1000001/1000000"]]], [[0, 1], [0]])
    x = recession._cone_probe(recession.bias_free(a), recession.bias_free(bumped), cone,
                              budget_mod.Budget())
    assert x is not None and cone.contains(x)
    assert recession.bias_free(a).evaluate(x) != recession.bias_free(bumped).evaluate(x)


# -- s50 audit: pruned layers, an unchecked nullity, epsilon texts, open lower-dimensional domains --
def _net_file(tmp_path, name, layers, inputs=2):
    path = tmp_path / name
    path.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                                "inputs": inputs, "layers": layers}))
    return path


PRUNED = [{"weight": [], "bias": []}, {"weight": [[]], "bias": [3]}]              # the constant 3
CONST3 = [{"weight": [[0, 0]], "bias": [-1]}, {"weight": [[5]], "bias": [3]}]       # 3 too
PRUNED_DEEP = [{"weight": [[1, 1], [1, -1], [0, 1]], "bias": [0, 1, 2]},
               {"weight": [], "bias": []}, {"weight": [[]], "bias": [3]}]
PRUNED_MID = [{"weight": [[1, 1]], "bias": [0]}, {"weight": [], "bias": []},
              {"weight": [[]], "bias": [4]}]                                       # the constant 4


@pytest.mark.parametrize("pair,domain", [
    (("pruned", "pruned"), []), (("pruned", "pruned"), ["--orthant"]),
    (("pruned", "pruned"), ["--box=-1,1", "--method", "bab"]), (("mid", "mid"), []),
    (("pruned", "const3"), []), (("pruned", "const3"), ["--orthant"]),
    (("deep", "const3"), []), (("deep", "pruned"), []), (("pruned", "deep"), ["--orthant"])])
def test_diff_of_networks_with_a_pruned_layer(run, tmp_path, pair, domain):
    """s50 audit F1: exit 4 (an AxisError in the alignment, an IndexError in three-layer-fibers R29's stable cells,
    the checker's deepened network losing its inputs); every such pair is the constant 3."""
    files = {"pruned": PRUNED, "const3": CONST3, "deep": PRUNED_DEEP, "mid": PRUNED_MID}
    a, b = (_net_file(tmp_path, f"{k}{i}.json", files[k]) for i, k in enumerate(pair))
    cert = tmp_path / "c.json"
    code, out, err = run("diff", a, b, *domain, "--certificate", cert)
    assert code == 0 and out.startswith("max |a - b| = 0 at x = "), (out, err)
    code, out, err = run("verify", cert, a, b)
    assert code == 0 and out.startswith("VALID"), (out, err)


def test_diff_of_two_constants_pruned_at_one_layer_is_exact(run, tmp_path):
    """Both pruned at hidden layer 2: a − b = 3 − 4 everywhere, exactly 1 with its certificate
    on every domain (session 51: the upper bound was left open in session 50; the constant
    claim of ``bab_recession`` certifies it), and equiv --epsilon decided on both sides."""
    a = _net_file(tmp_path, "deep.json", PRUNED_DEEP)
    b = _net_file(tmp_path, "mid.json", PRUNED_MID)
    cert = tmp_path / "c.json"
    for domain in ([], ["--orthant"], ["--box=-1,1", "--method", "bab"], ["--ball", "1,1/2"]):
        code, out, err = run("diff", a, b, *domain, "--certificate", cert)
        assert code == 0 and out.startswith("max |a - b| = 1 at x = "), (out, err)
        assert "both networks have hidden layer 2 of width 0 (pruned)" in out
        assert "a - b = (-1) everywhere" in out
        code, out, err = run("verify", cert, a, b)
        assert code == 0 and out.startswith("VALID") and "= 1 <= 1" in out, (out, err)
    code, out, err = run("equiv", a, b, "--epsilon", "1/2")
    assert code == 1 and out.startswith("max |a - b| > 1/2"), (out, err)
    code, out, err = run("equiv", a, b, "--epsilon", "2")
    assert code == 0 and out.startswith("max |a - b| <= 2"), (out, err)
    code, out, err = run("equiv", a, b, "--epsilon", "1")
    assert code == 0 and out.startswith("max |a - b| <= 1"), (out, err)
    code, out, err = run("equiv", a, b)
    assert code == 1 and out.startswith("not equivalent"), (out, err)


def test_identifiability_certificate_nullity_is_checked(run, tmp_path):
    """s50 audit F2: flip_sets.nullity was never read (-7 and "junk" were VALID)."""
    net = _net_file(tmp_path, "s2.json", [           # 4 kink matrices in R^2: nullity 2
        {"weight": [[-1, -2], [0, 2], [-3, -3], [3, 1]], "bias": [-3, -1, 1, -3]},
        {"weight": [[1, -2, -3, -3]], "bias": [0]}])
    cert = tmp_path / "c.json"
    code, out, err = run("identify", net, "--certificate", cert)
    data = json.loads(cert.read_text())
    proof = data.get("flip_sets", {})
    assert proof == {"kind": "enumerated", "nullity": 2}
    code, out, err = run("verify", cert, net)
    assert code == 0, (out, err)
    for forged, want in ((proof["nullity"] + 1, 1), (-7, 2), ("junk", 2)):
        data["flip_sets"]["nullity"] = forged
        cert.write_text(json.dumps(data))
        code, out, err = run("verify", cert, net)
        assert code == want, (forged, out, err)


def test_verify_epsilon_prints_a_long_epsilon_apart_from_the_certified_number(run, tmp_path):
    a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1]], [[1]]], [[0], ["1/1000000000"]])     # |a - b| = 10^-9
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a.to_dict()))
    pb.write_text(json.dumps(b.to_dict()))
    cert = tmp_path / "c.json"
    code, out, err = run("diff", pa, pb, "--box", "-1,1", "--method", "bab", "--certificate", cert)
    assert code == 0, (out, err)
    eps = "999999999999999999999/1000000000000000000000000000000"     # 10^-9 - 10^-30
    code, out, err = run("verify", cert, "--epsilon", eps)
    assert code == 1, (out, err)
    assert "it proves max |a - b| > ≈ 9.99999999999999999999e-10:" in out
    assert "≈ 1.0000e-9" not in out


def test_an_open_lower_dimensional_domain_says_its_sides_are_open(run, tmp_path):
    a = _net_file(tmp_path, "a.json", CONST3)
    dom = tmp_path / "line.json"
    dom.write_text(json.dumps({"box": [[None, None], [None, None]], "halfspaces": [
        {"a": ["-1", "1"], "b": "-5/6"}, {"a": ["1", "-1"], "b": "5/6"}]}))   # a line
    b = _net_file(tmp_path, "b.json", PRUNED_MID)
    code, out, err = run("equiv", a, b, "--box", dom)
    assert code == 2 and "(here a side is open): bound it by a box" in err, (out, err)


def test_cells_search_on_dask_sends_the_pair_once_and_stops_waiting_at_the_deadline():
    """A 784-1024-1024-10 pair on 2 Dask workers: 74 s at --timeout 10 (the JSON of both
    networks sent with every task, the client waiting on tasks whose reading sees no budget)."""
    from semialgebraic.distributed import cluster
    a, b = _pair()

    class SlowDask(cluster.SerialExecutor):
        kind, wait, scattered = "dask", None, 0

        def scatter(self, data):
            self.scattered += 1
            return list(data)

        def map_unordered(self, fn, calls):
            calls = list(calls)
            if fn.__name__ != "diff_cell":                       # the certificate's parts
                yield from super().map_unordered(fn, calls)
                return
            assert self.wait is not None and self.wait <= 30     # the deadline, as the wait
            key, args = calls[0]
            yield key, fn(*args)
            raise TimeoutError                                   # the rest not back in time

    ex = SlowDask()
    r = search.distributed_diff(a, b, [(-1, 1), (-1, 1)], cells=4, executor=ex, timeout=30)
    assert ex.scattered == 1 and ex.wait is None                 # put back after each wave
    assert r.complete and r.lower == r.upper == Q(1, 100)        # the cells not back: again
    assert r.verified


def test_an_empty_block_matrix_in_a_weight_file_is_named(run, tmp_path):
    import numpy as np
    from safetensors.numpy import save_file
    path = tmp_path / "d0.safetensors"
    save_file({"mlp.up_proj.weight": np.zeros((4, 0), np.float16),
               "mlp.down_proj.weight": np.zeros((0, 4), np.float16),
               "mlp.gate_proj.weight": np.zeros((4, 0), np.float16)}, str(path))
    code, out, err = run("absorb", path, "--activation", "swiglu")
    assert code == 2 and "an empty matrix (shape (4, 0))" in err and "int64" not in err, err


@pytest.mark.parametrize("method", [[], ["--method", "cells"], ["--method", "cells", "--workers", "0"]])
def test_search_diff_refuses_two_pruned_constants_in_one_line(run, tmp_path, method):
    """s50 audit 2 F2, F3: the cells halved for ever (no cell could get an upper bound), the tree
    crashed in the engine's arrays."""
    a = _net_file(tmp_path, "deep.json", PRUNED_DEEP)
    b = _net_file(tmp_path, "mid.json", PRUNED_MID)
    code, out, err = run("search", "diff", a, b, "--box=-1,2", *method)
    assert code == 2 and "both networks have hidden layer 2 of width 0 (pruned)" in err, (out, err)
    assert "Traceback" not in err


def test_a_large_json_text_is_costed_before_it_is_parsed(run, tmp_path, monkeypatch):
    """s50 audit 2 F4: a 192 MB block of "3.78e-06"s: the scan and json.loads, 6.7 s of C work,
    ran past --timeout 3."""
    monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)    # 2 MB of JSON "takes" minutes
    text = ", ".join(["3.78e-06"] * 100)
    rows = "[" + ", ".join([f"[{text}]"] * 2000) + "]"           # 2000 x 100: 2 MB
    path = tmp_path / "block.json"
    path.write_text('{"format": "netfibers.block", "version": 1, "activation": "relu", '
                    f'"w_up": {rows}, "w_down": [[1]]}}')
    assert path.stat().st_size > native._GUARDED_TEXT
    t = time.monotonic()
    code, out, err = run("absorb", path, "--timeout", "30")
    assert code == 3 and out.startswith("not computed: making block.json's numbers (2 MB of JSON)"), (out, err)
    assert time.monotonic() - t < 10


def test_a_negative_entries_limit_is_not_taken(monkeypatch):
    from algebra.io import exact
    monkeypatch.setenv("NETFIBERS_MAX_ENTRIES", "-5")
    assert exact.max_entries() == exact.MAX_ENTRIES
    monkeypatch.setenv("NETFIBERS_MAX_ENTRIES", "0")
    assert exact.max_entries() == 0


def test_the_guard_writes_long_times_as_seconds():
    """".2g" wrote 100 s as "1e+02 s" (this session's change of the guard's sentence)."""
    for entries, said in ((10**6, "takes about 0.5 s"), (2 * 10**8, "takes about 100 s"),
                          (10**9, "takes about 500 s")):
        with budget_mod.Budget(timeout=0.1).active(), \
                pytest.raises(budget_mod.BudgetExhausted, match=said):
            budget_mod.conversion_guard(entries, "W1's exact matrix")
