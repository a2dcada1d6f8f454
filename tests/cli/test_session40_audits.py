"""Regressions from the session-40 outside audits (equivbig, fiber, dimscale)."""

from __future__ import annotations

import json

from algebra.network import Network
from semialgebraic.cli import main


def test_hex_digests_are_not_number_exponents(tmp_path, capsys):
    """The JSON reader's pre-scan of exponents counted "73e865043098656c" (a symmetry path's
    checkpoint digest, or any hex in a comment) as a 10^12-digit exponent: `verify` refused a
    valid certificate that `equiv` had written, as malformed (equivbig audit F1)."""
    p = tmp_path / "n.json"
    p.write_text('{"format": "netfibers.network", "version": 1, "activation": "relu", "comment": '
                 '"sha 73e865043098656c", "layers": [{"weight": [[1]], "bias": [0]}, '
                 '{"weight": [[1]], "bias": [0]}]}')
    assert main(["info", str(p)]) == 0
    a = Network.from_rows([[[1], [2]], [[1, 1]]], [[0, 1], [0]])
    b = Network.from_rows([[[2], [2]], [["1/2", 1]]], [[0, 1], [0]])
    from semialgebraic.certificates import jsonable
    from semialgebraic.equivalence import equivalent
    cert = jsonable(equivalent(a, b).certificate)
    assert cert["type"] == "symmetry_path"
    cert["checkpoints"] = ["73e865043098656c"] * len(cert.get("checkpoints") or [])
    c = tmp_path / "c.json"
    c.write_text(json.dumps(cert))
    code = main(["verify", str(c)])
    err = capsys.readouterr().err
    assert "exponents add up" not in err and code in (0, 1)


F3 = [([["4/5", "-5/6", "7/5"], ["-5/7", "8", "-3/2"]], ["3/2", "5/2"]),
      ([["3/4", "-2/5"], ["3/4", "-2/5"]], ["-1", "-9/2"]),
      ([["-1/3", "1/3"], ["-2/3", "2/3"]], ["-2/5", "-1"])]


def test_flip_set_of_masked_rows_is_not_listed_with_the_masking_signs():
    """A 3-2-2-2 bottleneck (generic) whose two rows of [W2 | b2] both have column 0's
    masking pattern and form a flip set (V_0 = -V_1): the S5-flip components were listed with
    θ's masking sign conditions (W2[0,0] > 0, b2[0] < 0), which their own representatives
    violate, and a point satisfying them all computes another function (fiber audit F1).
    Now those components are left out, said, the listing partial."""
    from semialgebraic import fiber
    net = Network.from_rows([w for w, _ in F3], [b for _, b in F3])
    F = fiber(net)
    assert F.partial and F.number_of_components == 8
    assert sorted(str(c.label) for c in F.components) == [
        "{'flips': [], 's7': [1], 's8': False}", "{'flips': [], 's7': [], 's8': False}"]
    assert sum("its representative has no masked first-layer column" in n for n in F.notes) == 2
    for c in F.components:
        assert c.contains(c.representative)
    # the auditor's point: θ with W3 negated and b3 moved satisfies the old component's system
    P = Network.from_rows([w for w, _ in F3[:2]] + [[["1/3", "-1/3"], ["2/3", "-2/3"]]],
                          [b for _, b in F3[:2]] + [["-47/30", "-10/3"]])
    assert net([1, 0, 0]) != P([1, 0, 0])
    assert not any(c.contains(P) for c in F.components) and F.contains(P) is False


def test_listed_components_contain_their_representatives():
    """Every listed bottleneck component's system holds at its own representative (examples and
    random nets with planted masked columns and flip sets)."""
    import glob
    from algebra.io import load
    from semialgebraic import fiber
    from semialgebraic.exceptions import NonGenericError
    seen = 0
    for path in sorted(glob.glob("algebra/examples/*.json")):
        try:
            net = load(path)
        except Exception:
            continue
        if not isinstance(net, Network) or net.depth != 3 or net.widths[1] > net.n_inputs:
            continue
        try:
            F = fiber(net)
        except NonGenericError:
            continue
        for c in F.components:
            if c.representative is not None:
                assert c.contains(c.representative), (path, c.label)
                seen += 1
    assert seen >= 10


def test_a_count_left_open_is_said_not_determined(run):
    """A generic 2-2-10-1 bottleneck with nine switching rows and a linear row: `fiber` says the
    number of components is not determined; `symmetries` crashed on it as "input error" (exit 2,
    no file named: fiber audit F2)."""
    from pathlib import Path
    case = Path(__file__).resolve().parents[1] / "cases" / "count_open_2_2_10_1.json"
    code, out, err = run("symmetries", case)
    assert code == 0 and err == "" and "components not determined, orbits 1, dimension 13" in out
    code, out, _ = run("analyze", case)
    assert code == 0 and "a number of components not determined and 1 orbit" in out
    code, out, _ = run("fiber", case)
    assert code == 0 and "number of components: not determined" in out


def test_polynomials_of_large_rings_print_by_flint_and_read_back():
    """Rings past RENDER_BY_FLINT_ABOVE variables print by FLINT's writer (a 10-560-3 fiber's
    JSON took 35 s to text at `--timeout 5`: fiber audit): every printed polynomial reads back
    as itself, mixed degrees included."""
    import random
    from algebra.polynomials import RENDER_BY_FLINT_ABOVE, Ring
    names = [f"W1[{i},{j}]" for i in range(40) for j in range(15)] + ["b3[0]"]
    assert len(names) > RENDER_BY_FLINT_ABOVE
    R = Ring(names)
    g = R.gens() if hasattr(R, "gens") else [R.gen(n) for n in names]
    rng = random.Random(3)
    for _ in range(20):
        p = R.parse("0")
        for _ in range(rng.randint(1, 6)):
            t = R.parse(f"{rng.randint(-9, 9)}/{rng.randint(1, 9)}")
            for _ in range(rng.randint(0, 3)):
                t = t * g[rng.randrange(len(names))]
            p = p + t
        assert R.parse(str(p)) == p


def test_fiber_text_renders_only_the_rows_it_shows():
    from semialgebraic import fiber
    net = Network.from_rows([[[1, 2, 3], [2, -1, 1], [-1, 1, 2], [3, 1, -2]],
                             [[1, -2, 1, 3], [2, 1, -1, 1]]], [[1, 0, -1, 2], [0, 1]])
    c = fiber(net).components[0]
    eqs, ins, n_eq, n_in = c.text_rows(2)
    assert len(eqs) == 2 and n_eq > 2 and n_eq == len(c.equalities)
    assert eqs == [str(p) for p in c.equalities[:2]]


def test_one_hidden_layer_fiber_with_spare_neurons_says_near_this_network(run, tmp_path):
    """σ(x) + σ(−x) + σ(x − 1) and 2σ(x) + σ(1 − x) − 1 (a zero-output row) compute one function;
    `fiber` printed "fiber dimension: 3" and "4" (θ's stratum each): it now says "near this
    network", JSON listing "strata of theta" and fiber_dimension_at_theta (fiber audit)."""
    def net(w, b, v, c):
        p = tmp_path / f"n{len(list(tmp_path.iterdir()))}.json"
        p.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                                 "layers": [{"weight": [[x] for x in w], "bias": b},
                                            {"weight": [v], "bias": [c]}]}))
        return p
    a, b = net([1, -1, 1], [0, 0, -1], [1, 1, 1], 0), net([1, -1, 5], [0, 1, 3], [2, 1, 0], -1)
    assert run("equiv", a, b)[0] == 0
    for p, dim in ((a, 3), (b, 4)):
        code, out, _ = run("fiber", p)
        assert out.startswith(f"fiber dimension near this network: {dim} (its own stratum")
        code, out, _ = run("fiber", p, "--json")
        d = json.loads(out)
        assert d["listing"] == "strata of theta" and d["fiber_dimension_at_theta"] == dim


def test_large_non_generic_bottleneck_pair_goes_to_the_general_method(monkeypatch):
    """784-512-512-10 against a copy with dead zero rows (equivalent): the bottleneck path's
    exact rank of W1 and its targeted counterexample lines held --timeout 40 past 150 s; the
    general method decides it (equivbig audit F3). Large pairs (random points already tried)
    skip the bottleneck's counterexample search on non-generic input; W1's rank is decided by
    zero rows / rank mod p first."""
    from semialgebraic.bottleneck import canon
    from semialgebraic.equivalence import dispatch
    from semialgebraic.bottleneck._structure import full_row_rank
    assert not full_row_rank(Network.from_rows([[[1, 2], [0, 0]], [[1, 1]]], [[0, 0], [0]]).weights[0])
    assert full_row_rank(Network.from_rows([[[1, 2], [3, 1]], [[1, 1]]], [[0, 0], [0]]).weights[0])
    searched = []
    real = canon.counterexample
    monkeypatch.setattr(canon, "counterexample", lambda *a, **k: searched.append(1) or real(*a, **k))
    monkeypatch.setattr(dispatch, "PRE_REFUTE_PARAMETERS", 10)
    a = Network.from_rows([[[1, 2, 0], [0, 1, -1]], [[1, -1], [2, 1]], [[1, -3]]],
                          [[0, 1], [-1, 2], [2]])
    b = Network.from_rows([[[1, 2, 0], [0, 1, -1], [0, 0, 0]], [[1, -1, 4], [2, 1, -3]], [[1, -3]]],
                          [[0, 1, -1], [-1, 2], [2]])            # a dead zero row added
    v = dispatch.equivalent(a, b)
    assert v.answer is True and v.method == "general" and not searched


def test_a_difference_at_the_origin_or_a_corner_is_found_first():
    """b = a plus a neuron alive only within 2^-40 of the origin (on the orthant) or of the box
    corner (1, 1): random points with short denominators missed it and the walk was left to
    decide (deep pairs: undecided within the audit's budget; equivbig audit)."""
    from fractions import Fraction
    from semialgebraic.equivalence import equivalent
    eps = Fraction(1, 2 ** 40)
    W1, b1 = [[1, 2], [2, -1]], [1, 0]
    W2, b2 = [[1, -1], [2, 1]], [0, 1]
    a = Network.from_rows([W1, W2, [[1, -1]]], [b1, b2, [0]])
    bump = Network.from_rows([W1 + [[-1, -1]], [[1, -1, 0], [2, 1, 0], [0, 0, 1]], [[1, -1, 5]]],
                             [b1 + [eps], b2 + [0], [0]])
    from semialgebraic.equivalence.refutation import refute_random
    assert refute_random(a, bump, "orthant", 32, 0) == (0, 0)
    v = equivalent(a, bump, domain="orthant")
    assert v.answer is False and [str(x) for x in v.details["point"]] == ["0", "0"]
    corner = Network.from_rows([W1 + [[1, 1]], [[1, -1, 0], [2, 1, 0], [0, 0, 1]], [[1, -1, 5]]],
                               [b1 + [-2 + eps], b2 + [0], [0]])
    assert refute_random(a, corner, (0, 1), 32, 0) == (1, 1)
    v = equivalent(a, corner, domain=(0, 1))
    assert v.answer is False and [str(x) for x in v.details["point"]] == ["1", "1"]


def test_few_dependencies_among_many_neurons_are_enumerated_before_the_lp(monkeypatch):
    """A 30-70-3 net whose kink matrices have one dependency: the positive functional's exact LP
    (500 neurons: > 15 min) is not tried; the 0/1 points of the dependency decide: a planted
    flip set is found, a dependency with coefficients (1, 1, -1) is not a flip set."""
    import random
    from semialgebraic.shallow import identifiability as ident
    monkeypatch.setattr(ident, "_positive_functional",
                        lambda A: (_ for _ in ()).throw(AssertionError("the LP was tried")))
    rng = random.Random(4)
    d, n, m = 30, 70, 3
    for sign, expect in ((-1, "found"), (1, "none")):
        W1 = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(n)]
        W2 = [[rng.randint(-9, 9) for _ in range(n)] for _ in range(m)]
        W1[2] = [sign * (x + y) for x, y in zip(W1[0], W1[1])]   # w2 = ±(w0 + w1), v equal
        for row in W2:
            row[1] = row[2] = row[0]
        from algebra.linalg import QMatrix
        kind, what = ident.flip_sets(QMatrix.from_rows(W1), QMatrix.from_rows(W2))
        assert kind == expect
        assert what == [0, 1, 2] if kind == "found" else what == {"kind": "enumerated", "nullity": 1}


def test_escaped_exponents_count_toward_the_limit(tmp_path, capsys, monkeypatch):
    """"\\t1e9999" and "1\\u00659999" are read as 1e9999 after unescaping; the pre-scan saw no
    exponent in them (forge audit F1: a 664 kB file expanded to 6 x 10^8 digits, 570 MB)."""
    from algebra.io import native
    monkeypatch.setattr(native, "MAX_EXPONENT_DIGITS", 30000)
    for entry in ('"\\t1e9999"', '"1\\u00659999"', '"\\u0031e9999"'):
        p = tmp_path / "e.json"
        row = ", ".join([entry] * 4)
        p.write_text('{"format": "netfibers.network", "version": 1, "activation": "relu", '
                     f'"layers": [{{"weight": [[{row}]], "bias": [0]}}]}}')
        assert main(["info", str(p)]) == 2
        assert "the numbers' exponents add up to 39996 digits" in capsys.readouterr().err


def test_writing_through_a_symlink_keeps_the_link_and_refuses_devices(tmp_path, run):
    """`--certificate link.json` replaced the link by a regular file (its target untouched) and
    `--certificate /dev/full` replaced the device node, saying "written" (forge audit F2)."""
    import os
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("{}")
    os.symlink(target, link)
    code, out, _ = run("symmetries", "algebra/examples/shallow_flip_set.json", "--certificate", link)
    assert code == 0 and link.is_symlink() and json.loads(target.read_text())["type"] == "symmetry_report"
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, _, err = run("fiber", "algebra/examples/shallow_flip_set.json", "--certificate", fifo)
    assert code == 2 and "not a regular file" in err and not fifo.is_file()


def test_flip_sets_not_enumerated_is_not_blamed_on_spare_neurons(tmp_path, run, monkeypatch):
    """A random 4-20-1 net (every neuron its own hyperplane, 20 > 16 dependent kink matrices):
    the fiber said "spare neurons give the fiber other strata" (forge audit F5). Its dimension is
    the fiber's; the components are open because the flip sets were not enumerated."""
    import random
    rng = random.Random(121)
    W1 = [[rng.randint(-9, 9) or 1 for _ in range(4)] for _ in range(20)]
    net = Network.from_rows([W1, [[rng.randint(1, 9) for _ in range(20)]]],
                            [[rng.randint(-9, 9) for _ in range(20)], [0]])
    p = tmp_path / "n.json"
    p.write_text(json.dumps(net.to_dict()))
    # identify's decision of the flip sets closes the count: none, so 20! components, one orbit
    from math import factorial
    code, out, _ = run("fiber", p, "--json")
    d = json.loads(out)
    assert code == 0 and d["listing"] == "complete" and d["dimension"] == 20
    assert d["number_of_components"] == factorial(20) and d["number_of_orbits"] == 1
    # when that decision is open too, the listing says so (not spare neurons)
    from semialgebraic.shallow import identifiability
    monkeypatch.setattr(identifiability, "flip_sets", lambda *a, **k: ("undecided", "forced"))
    code, out, _ = run("fiber", p)
    assert out.startswith("fiber dimension: 20\n") and "spare neurons" not in out
    assert "the flip sets were not enumerated" in out
    code, out, _ = run("fiber", p, "--json")
    d = json.loads(out)
    assert d["listing"] == "flip sets not enumerated" and "flip sets (not enumerated)" in d["symmetries"]


def test_no_empty_symmetry_report(tmp_path, run):
    """A deeper net with no symmetric copy and identifiability undecided: `symmetries
    --certificate` wrote a report of 0 copies (VALID, certifying nothing; forge audit F3)."""
    import random
    rng = random.Random(3)
    net = Network.from_rows([[[rng.randint(-9, 9) for _ in range(4)] for _ in range(30)],
                             [[rng.randint(-9, 9) for _ in range(30)] for _ in range(30)],
                             [[rng.randint(-9, 9) for _ in range(30)] for _ in range(2)]],
                            [[rng.randint(-9, 9) for _ in range(30)],
                             [rng.randint(-9, 9) for _ in range(30)], [0, 0]])
    p, c = tmp_path / "n.json", tmp_path / "c.json"
    p.write_text(json.dumps(net.to_dict()))
    code, out, _ = run("symmetries", p, "--certificate", c)
    assert code == 3 and "no certificate written: nothing listed to certify" in out
    assert not c.exists()


def test_manifests_and_inline_domains_are_held_to_the_exponent_limit(tmp_path, capsys, monkeypatch):
    """A batch manifest row and an inline --box were read without the exponents' limit (a 259 kB
    row of 1e9999: 280 MB), and a half-space coefficient 1e400 in a row was recorded as an
    "internal error ... please report it" (forge audit F1b)."""
    from algebra.io import native
    monkeypatch.setattr(native, "MAX_EXPONENT_DIGITS", 30000)
    a = tmp_path / "a.json"
    a.write_text(json.dumps(Network.from_rows([[[1, 2], [2, -1]], [[1, 1]]], [[0, 1], [0]]).to_dict()))
    box = '{"box": [[0, 1], [0, 1]], "halfspaces": [' + ", ".join(
        ['{"a": [1e9999, 1], "b": 1}'] * 4) + ']}'
    assert main(["equiv", str(a), str(a), "--box", box]) == 2
    assert "exponents add up to 39996 digits" in capsys.readouterr().err
    m = tmp_path / "m.jsonl"
    m.write_text(json.dumps({"a": str(a), "b": str(a)})[:-1] + ', "box": ' + box + "}\n")
    assert main(["batch", "equiv", str(m), "--out", str(tmp_path / "o.jsonl")]) == 2
    assert "exponents add up to 39996 digits" in capsys.readouterr().err
    from semialgebraic.distributed.jobs import _guard
    rec = _guard(lambda: 10 ** 400 / 3, {"id": 0})
    assert rec["status"] == "error" and "float64's range" in rec["error"]
    assert "please report" not in rec["error"]


def test_identify_under_a_budget_with_an_unfinished_planted_certificate(monkeypatch):
    """A flip set found, but the budget stopped the planted copy's certificate: identify said
    "internal error (AssertionError: planted copy changed the function ...)", exit 4 (s40)."""
    from semialgebraic.shallow import identifiability as ident
    from semialgebraic.verdict import Verdict
    monkeypatch.setattr(ident, "equivalent_shallow",
                        lambda *a, **k: Verdict(None, "shallow", "undecided: budget", ()))
    from algebra.io import load
    v = ident.identifiability_shallow(load("algebra/examples/shallow_flip_set.json"))
    assert v.answer is None and "certificate was not completed" in v.reason


def test_a_certificate_into_a_missing_directory_fails_before_any_work(tmp_path, run):
    for cmd in ("fiber", "symmetries", "identify"):
        code, out, err = run(cmd, "algebra/examples/shallow_flip_set.json", "--certificate",
                             tmp_path / "missing" / "c.json")
        assert code == 2 and out == "" and "does not exist" in err and len(err.strip().splitlines()) == 1
