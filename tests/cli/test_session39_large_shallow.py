"""Session 39 (real material: a transformer-sized one-hidden-layer block, 768-3072-768):
``symmetries --timeout 20`` printed only "timeout of 20 s reached; no symmetry report" (the
whole report took 165 s). Now a stop still reports what holds without the fiber — the widths,
the neuron types when they were read, S1 + S2 — says what is not determined, exit 3; and the
fiber's canonical-form JSON and fingerprint (9 of 17 s of ``fiber_shallow`` on 256-1024-256),
which ``symmetries`` prints neither of, are made on first use."""

from __future__ import annotations

import json

import semialgebraic.commands.bottleneck as bottleneck
from algebra.network import Network
from semialgebraic.commands.bottleneck import Timeout
from semialgebraic.shallow.canonical import canonical_form
from semialgebraic.shallow.fiber import fiber_shallow

NET = Network.from_rows([[[1, 2], [-1, 3], [2, -1]], [[1, -2, 3], [0, 1, 1]]],
                        [[1, 0, -1], [0, 2]])


def _write(tmp_path):
    p = tmp_path / "net.json"
    p.write_text(json.dumps(NET.to_dict()))
    return p


def test_symmetries_stop_keeps_what_holds_without_the_fiber(tmp_path, run, monkeypatch):
    def slow(*a, **k):
        raise Timeout("timeout")             # the fiber does not finish in time
    monkeypatch.setattr(bottleneck, "fiber_of", slow)
    code, out, _ = run("symmetries", _write(tmp_path), "--timeout", 60)
    assert code == 3
    assert out.splitlines() == [
        "widths 2-3-2: one hidden layer, on R^d",
        "neuron types: 0:kink, 1:kink, 2:kink",
        "symmetries: S1 (permutations), S2 (positive scalings), and others not determined",
        "timeout of 60 s reached: flip sets, identifiability and the fiber not determined"]
    code, out, _ = run("symmetries", _write(tmp_path), "--timeout", 60, "--json")
    d = json.loads(out)
    assert code == 3 and d["complete"] is False and d["symmetries"] == ["S1", "S2"]
    assert d["neuron_types"] == ["kink"] * 3 and d["widths"] == [2, 3, 2]


def test_symmetries_timeout_zero_before_the_types(tmp_path, run):
    code, out, _ = run("symmetries", _write(tmp_path), "--timeout", 0, "--json")
    d = json.loads(out)
    assert code == 3 and d["neuron_types"] is None and d["symmetries"] == ["S1", "S2"]
    assert d["reason"] == "timeout of 0 s reached"


def test_symmetries_in_time_unchanged(tmp_path, run):
    code, out, _ = run("symmetries", _write(tmp_path), "--timeout", 60)
    assert code == 0 and "not determined" not in out
    assert "symmetries: S1 (permutations), S2 (positive scalings)" in out


def test_fiber_details_canonical_form_made_on_first_use():
    F = fiber_shallow(NET)
    cf = canonical_form(NET)
    assert "fingerprint" not in F.details           # not made yet
    assert F.details["fingerprint"] == cf.fingerprint()
    assert F.details["canonical_form"] == cf.to_json()
    G = fiber_shallow(NET)
    d = G.to_json()                                  # the JSON has them, as before
    assert d["fingerprint"] == cf.fingerprint() and d["canonical_form"] == cf.to_json()
    assert d["neuron_types"] == ["kink"] * 3


def test_info_of_a_tensor_file_says_the_activation_is_not_stored(tmp_path, run):
    """``info`` printed "activation relu" for a state_dict as if the file said so (a GELU
    768-3072-768 block's tensors read as a ReLU network)."""
    import numpy as np
    p = tmp_path / "w.npz"
    np.savez(p, **{"fc1.weight": np.array([[1.0, 2.0], [3.0, -1.0]]), "fc1.bias": np.zeros(2),
                   "fc2.weight": np.array([[1.0, 1.0]]), "fc2.bias": np.zeros(1)})
    code, out, _ = run("info", p)
    assert code == 0 and "activation relu" in out
    assert ("the file stores no activation: read as ReLU between layers (a GELU or SiLU model's "
            "tensors read this way compute another function") in out
    code, out, _ = run("info", _write(tmp_path))
    assert code == 0 and "stores no activation" not in out     # JSON says its activation


def _large_pair(seed=0):
    """A 100-150-100 net (30 250 parameters, above PRE_REFUTE_PARAMETERS) and a permuted, scaled
    copy (equivalent) and a copy with one weight moved (not equivalent)."""
    import random
    rng = random.Random(seed)
    d, n, m = 100, 150, 100
    W1 = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(n)]
    b1 = [rng.randint(-9, 9) for _ in range(n)]
    W2 = [[rng.randint(-9, 9) for _ in range(n)] for _ in range(m)]
    b2 = [rng.randint(-9, 9) for _ in range(m)]
    a = Network.from_rows([W1, W2], [b1, b2])
    perm = list(range(n))
    rng.shuffle(perm)
    c = [rng.randint(1, 3) for _ in range(n)]
    W1p = [[c[i] * v for v in W1[i]] for i in perm]
    b1p = [c[i] * b1[i] for i in perm]
    from fractions import Fraction
    W2p = [[Fraction(row[i], c[i]) for i in perm] for row in W2]
    same = Network.from_rows([W1p, W2p], [b1p, b2])
    W2m = [list(r) for r in W2]
    W2m[3][7] += Fraction(1, 10 ** 9)
    moved = Network.from_rows([W1, W2m], [b1, b2])
    return a, same, moved


def test_equiv_auto_refutes_large_pairs_at_random_points_first():
    """A 768-3072-768 block against its float16 copy: undecided at --timeout 20 (the shallow
    path's exact canonical forms, ~40 s); the random points refute it in ~3 s. Equivalent large
    pairs still go to the shallow path."""
    from semialgebraic.equivalence.dispatch import PRE_REFUTE_PARAMETERS, equivalent
    from semialgebraic.verify import verify
    a, same, moved = _large_pair()
    assert a.n_parameters > PRE_REFUTE_PARAMETERS
    v = equivalent(a, moved)
    assert v.answer is False and v.method == "general" and "cheap refutation" in v.reason
    x = v.details["point"]
    assert a(x) != moved(x) and verify(v.certificate)[0]
    w = equivalent(a, same)
    assert w.answer is True and w.method.startswith("shallow") and verify(w.certificate)[0]
    small = Network.from_rows([[[1, 2], [3, 1]], [[1, 1]]], [[0, 1], [0]])
    other = Network.from_rows([[[1, 2], [3, 1]], [[1, 2]]], [[0, 1], [0]])
    assert equivalent(small, other).method.startswith("shallow")    # small pairs: unchanged


def test_symmetries_graphml_on_a_non_generic_bottleneck_keeps_the_report(tmp_path, run):
    """It exited 2 ("error") with no report; without --graphml the same net prints the table of
    genericity conditions and exits 3 (session 39 conserved audit F1)."""
    from pathlib import Path
    case = Path(__file__).resolve().parents[1] / "cases" / "nongeneric_bottleneck_b504.json"
    g = tmp_path / "g.graphml"
    code, out, err = run("symmetries", case, "--graphml", g)
    assert code == 3 and not g.exists() and err == ""
    assert "rows of [W2 | b2] pairwise non-proportional: False at {'rows': [0, 1]}" in out
    assert out.rstrip().endswith("no GraphML written: non-generic input (no symmetry graph)")
    code2, out2, _ = run("symmetries", case)
    assert code2 == 3 and out2.splitlines() == out.splitlines()[:-1]


def test_conserved_says_how_many_laws_have_no_formula(run):
    """9 laws, 8 formulas: the text said so, --latex and --json did not (s39 conserved audit F2;
    the ninth, b3 − log(W3[0,1] + b2[1]), is not a polynomial)."""
    import json as _json
    from pathlib import Path
    cases = Path(__file__).resolve().parents[1] / "cases"
    net, data = cases / "conserved_frobenius_d2_112.json", cases / "conserved_frobenius_d2_112_data.json"
    code, out, _ = run("conserved", net, "--data", data, "--json")
    d = _json.loads(out)
    assert code == 0 and (d["number_of_laws"], d["explicit_laws"], d["laws_without_formula"]) == (9, 8, 1)
    assert len(d["laws"]) == 8
    code, out, _ = run("conserved", net, "--data", data, "--latex")
    assert code == 0 and out.splitlines()[0] == (
        "% 9 independent laws (exact); 8 given below, 1 more by Frobenius (no polynomial formula; "
        "`netfibers conserved` explains)")
    assert out.count("&=") == 8


def test_conserved_region_mode_frozen_scope_speaks_of_regions(run):
    """Region mode (no --data) said "on the data" and "input coordinate 0 is 0 on every data
    point" (s39 conserved audit F3)."""
    from pathlib import Path
    case = Path(__file__).resolve().parents[1] / "cases" / "conserved_frozen_r1_3.json"
    code, out, _ = run("conserved", case)
    frozen = [line for line in out.splitlines() if "frozen W1[0,0]" in line]
    assert frozen and "while the activation patterns of the sampled regions stay fixed" in frozen[0]
    assert "on every data point" not in out and "patterns on the data" not in out


def test_conserved_gap_reason_says_the_time_used_not_the_cap(run):
    """"within 10 s" was the polynomial phase's cap; the run ended in 3 s when brackets stopped
    gaining rank (s39 conserved audit F4). The interval [19, 20] is the audit's, sound."""
    import json as _json
    from pathlib import Path
    cases = Path(__file__).resolve().parents[1] / "cases"
    code, out, _ = run("conserved", cases / "conserved_gap_m216.json", "--data",
                       cases / "conserved_gap_m216_data.json", "--json")
    d = _json.loads(out)
    assert code == 3 and (d["lower"], d["upper"]) == (19, 20)
    assert "within 10 s" not in d["reason"]
    assert ("stopped after brackets gained no rank" in d["reason"]
            or "stopped at its cap of" in d["reason"])


def test_epsilon_refuted_on_rd_reason_is_the_point(run):
    """equiv --epsilon on R^d refuted through the |W| bound path: the JSON reason described the
    upper bound ("bounded (the biases-free a - b is 0 …) upper bound from the biases …") instead of
    why the claim fails (s39 near-miss audit F1). The pair differs by 2^-39 at most, on R^d."""
    import json as _json
    from pathlib import Path
    cases = Path(__file__).resolve().parents[1] / "cases"
    a, b = cases / "eps_refuted_rd_H0_a.json", cases / "eps_refuted_rd_H0_b.json"
    code, out, _ = run("equiv", a, b, "--epsilon", "1/549755813889", "--json")
    d = _json.loads(out)
    assert code == 1 and d["answer"] is False and d["reason"] == "a point above the threshold"
    assert d["lower"] == "1/549755813888"


def test_no_hidden_layer_is_identifiable_with_a_certificate(run, tmp_path):
    """identify and symmetries said "undecided" (and listed S1 + S2) for a network without hidden
    layers, whose fiber `fiber` calls the point itself (s39 conserved audit F5)."""
    import json as _json
    from pathlib import Path
    case = Path(__file__).resolve().parents[1] / "cases" / "no_hidden_layer_2_1.json"
    cert = tmp_path / "c.json"
    code, out, _ = run("identify", case, "--certificate", cert)
    assert code == 0 and "no hidden layer: x -> W x + b determines W and b" in out
    code, out, _ = run("verify", cert)
    assert code == 0 and out.startswith("VALID identifiability_hypotheses certificate")
    d = _json.loads(cert.read_text())
    d["fiber_dimension"] = 1
    cert.write_text(_json.dumps(d))
    assert run("verify", cert)[0] == 1
    code, out, _ = run("symmetries", case, "--json")
    d = _json.loads(out)
    assert code == 0 and d["symmetries"] == [] and d["identifiable"]["answer"] is True
    assert d["fiber_dimension"] == 0
    code, out, _ = run("identify", case)
    assert code == 0 and out.startswith("identifiable: no hidden layer")
    code, out, _ = run("fiber", case, "--json")              # (exit 2 "error" before)
    assert code == 0 and _json.loads(out)["fiber_dimension"] == 0


def test_the_affine_claim_on_a_network_with_hidden_layers_is_broken():
    from algebra.kernel.certificate_schemas import CLAIMS
    from semialgebraic.certificates import affine_identifiability_certificate
    from semialgebraic.verify import verify
    lin = Network.from_rows([[[1, 2]]], [[1]])
    cert = affine_identifiability_certificate(lin)
    assert verify(cert)[0]
    forged = {**cert, "network": NET.to_dict()}
    assert verify(forged)[0] is False
    assert CLAIMS["identifiability_hypotheses"][3] == cert["claim"]


def test_large_deep_pair_draws_the_random_points_once(monkeypatch):
    """A large pair that no fast path takes met the same random points twice: the dispatcher's
    first step, then the general method's own refutation (session 40). Now once, and the
    general method still decides it (here a permuted copy: reduction merges every neuron)."""
    from semialgebraic.equivalence import dispatch, general
    calls = []
    real = general.refute_random
    monkeypatch.setattr(general, "refute_random", lambda *a, **k: calls.append(1) or real(*a, **k))
    monkeypatch.setattr(dispatch, "PRE_REFUTE_PARAMETERS", 10)
    a = Network.from_rows([[[1, 2], [3, -1], [-2, 1]], [[1, -1, 2], [2, 1, 1]], [[1, -3]]],
                          [[0, 1, -1], [1, 0], [2]])
    b = Network.from_rows([[[3, -1], [1, 2], [-2, 1]], [[-1, 1, 2], [1, 2, 1]], [[1, -3]]],
                          [[1, 0, -1], [1, 0], [2]])
    v = dispatch.equivalent(a, b, method="general")     # (auto: the exact alignment, s49)
    assert v.answer is True and v.method == "general" and len(calls) == 1
    calls.clear()
    assert dispatch.equivalent(a, b).method == "symmetry" and len(calls) == 1
    calls.clear()
    c = Network.from_rows([[[3, -1], [1, 2], [-2, 1]], [[-1, 1, 2], [1, 2, 1]], [[1, -2]]],
                          [[1, 0, -1], [1, 0], [2]])
    w = dispatch.equivalent(a, c)
    assert w.answer is False and "cheap refutation" in w.reason and len(calls) == 1
