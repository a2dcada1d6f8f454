"""``symmetries --certificate FILE`` and ``fiber --certificate FILE``: the ``symmetry_report``
certificate (session 40: `symmetries` and `fiber` were the verdicts without one). Every listed
parameter (a component's representative, a symmetric copy) with a proof that it computes the
network's function, and identify's certificate where `symmetries` states identifiability."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from pathlib import Path

import pytest

from algebra.network import Network
from semialgebraic.verify import verify

EX = Path(__file__).resolve().parents[2] / "algebra" / "examples"


def _write(tmp_path, name, layers, d):
    p = tmp_path / name
    p.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                             "inputs": d, "layers": [{"weight": w, "bias": b} for w, b in layers]}))
    return p


DEEP = [([[1, 2], [3, -1], [0, 0]], [0, 1, -1]), ([[1, -1, 5], [2, 1, 1]], [1, 0]), ([[1, -3]], [2])]


@pytest.mark.parametrize("command,name,copies,ident", [
    ("symmetries", "shallow_flip_set", 2, True),     # a flip set: its FlipSet step; not identifiable
    ("symmetries", "masked_bottleneck", 2, True),    # S7: a SignFlip step; identify's too
    ("symmetries", "t6_flip_a", 2, True),            # S5: a TailRefactor
    ("symmetries", "t5_perm_scale_a", 1, True),
    ("fiber", "shallow_flip_set", 2, False),
    ("fiber", "masked_bottleneck", 2, False),
    ("fiber", "t9_three_masked", 1, False)])
def test_certificate_of_the_listing_verifies(run, tmp_path, command, name, copies, ident):
    net, path = EX / f"{name}.json", tmp_path / "c.json"
    code, out, _ = run(command, net, "--certificate", path)
    assert code == 0 and f"certificate written to {path} ({copies} listed parameter(s)" in out
    cert = json.loads(path.read_text())
    assert cert["type"] == "symmetry_report" and len(cert["copies"]) == copies
    assert (cert["identifiability"] is not None) is ident
    code, out, _ = run("verify", path, net)
    assert code == 0 and f"{copies} listed parameter(s) compute the network's function on R^d" in out
    code, _, err = run("verify", path, EX / "t2_control.json")     # another network: input error
    assert code == 2 and "not the network the certificate is about" in err


def test_deep_and_affine_reports(run, tmp_path):
    deep = _write(tmp_path, "deep.json", DEEP, 2)
    path = tmp_path / "c.json"
    code, out, _ = run("symmetries", deep, "--certificate", path)
    assert code == 0 and "identifiable up to S1 + S2: no" in out
    code, out, _ = run("verify", path, deep)
    assert code == 0 and "3 listed parameter(s) compute the network's function on R^d (3 of them " \
                         "proven outside its S1 + S2 orbit); identifiability:" in out
    aff = _write(tmp_path, "aff.json", [([[1, 2]], [3])], 2)
    for command in ("symmetries", "fiber"):
        code, out, _ = run(command, aff, "--certificate", path)
        assert code == 0
        code, out, _ = run("verify", path, aff)
        assert code == 0 and "identifiable: no hidden layer" in out
    code, out, _ = run("fiber", EX / "shallow_flip_set.json", "--orthant", "--certificate", path)
    assert code == 3 and "fiber dimension near this network: between 6 and 10" in out   # exit 3
    # (6 since session 47: the three bias trades, one-sided, z >= 0 on the orthant)
    code, out, _ = run("verify", path)
    assert code == 0 and "on the closed orthant" in out


def test_no_certificate_where_nothing_is_listed(run, tmp_path):
    """A non-generic bottleneck and a timeout: no file, the report says so, exit 3."""
    case = Path(__file__).resolve().parents[1] / "cases" / "nongeneric_bottleneck_b504.json"
    path = tmp_path / "c.json"
    code, out, _ = run("symmetries", case, "--certificate", path)
    assert code == 3 and "no certificate written: non-generic input" in out and not path.exists()
    code, out, _ = run("fiber", case, "--certificate", path)
    assert code == 3 and "no certificate written" in out and not path.exists()


def test_false_reports_are_rejected(tmp_path, run):
    path = tmp_path / "c.json"
    run("symmetries", EX / "shallow_flip_set.json", "--certificate", path)
    good = json.loads(path.read_text())
    assert verify(good)[0]
    other = json.loads((EX / "t2_control.json").read_text())
    # a copy's b moved (its steps no longer reach it)
    bad = json.loads(json.dumps(good))
    bad["copies"][1]["b"]["layers"][1]["bias"][0] = "7/3"
    ok, why = verify(bad)
    assert not ok and "copies[1]" in why
    # the report about another network than its copies
    bad = json.loads(json.dumps(good))
    bad["copies"][0]["a"] = bad["copies"][0]["b"] = other
    assert verify(bad) == (False, "copies[0]: its a is not the network")
    # the identifiability part about another network
    bad = json.loads(json.dumps(good))
    bad["identifiability"]["a"] = other
    assert not verify(bad)[0]
    # a copy proven on the orthant only, in a report on R^d
    bad = json.loads(json.dumps(good))
    bad["copies"][0]["domain"] = {"orthant": True}
    bad["copies"][0]["claim"] = "a and b compute the same function on the closed orthant"
    ok, why = verify(bad)
    assert not ok and "domain" in why
    # malformed: a counterexample among the copies, an unknown key
    from algebra.exceptions import InputError
    bad = json.loads(json.dumps(good))
    bad["copies"][0]["type"] = "counterexample"
    with pytest.raises(InputError):
        verify(bad)
    bad = json.loads(json.dumps(good))
    bad["extra"] = 1
    with pytest.raises(InputError):
        verify(bad)


def test_planted_flip_sets_on_random_nets(tmp_path, run):
    """Random one-hidden-layer nets with a planted flip set of three neurons (the kink matrices
    v_i w_i^T sum to 0: w_3 = -(v_1 w_1 + v_2 w_2)/v_3): the fiber lists the flipped component
    and the certificate carries it, VALID; the flipped copy is a's function at random points."""
    from semialgebraic import fiber
    from semialgebraic.certificates import jsonable, symmetry_report_certificate
    from semialgebraic.commands.report_certificate import component_copies
    for seed in range(6):
        rng = random.Random(seed)
        d = rng.randint(1, 3)
        r = lambda: Fraction(rng.choice([-1, 1]) * rng.randint(1, 9), rng.randint(1, 4))
        w = [[r() for _ in range(d)] for _ in range(2)]
        v = [r(), r(), r()]
        w.append([-(v[0] * w[0][k] + v[1] * w[1][k]) / v[2] for k in range(d)])
        extra = rng.randint(0, 2)
        w += [[r() for _ in range(d)] for _ in range(extra)]
        v += [r() for _ in range(extra)]
        b = [r() for _ in w]
        net = Network.from_rows([w, [v]], [b, [r()]])
        F = fiber(net)
        copies, reps, left = component_copies(net, F)
        assert left == 0 and len(copies) == reps >= 2
        flipped = [c for c in F.components if c.label.get("flipped_neurons")]
        assert any(set(c.label["flipped_neurons"]) >= {0, 1, 2} for c in flipped)
        cert = json.loads(json.dumps(jsonable(symmetry_report_certificate(net, copies))))
        ok, why = verify(cert)
        assert ok, why
        for c in F.components:
            rep = c.representative
            for _ in range(5):
                x = [Fraction(rng.randint(-50, 50), rng.randint(1, 7)) for _ in range(d)]
                assert rep(x) == net(x)
