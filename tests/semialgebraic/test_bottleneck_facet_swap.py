"""three-layer-fibers R18.6 (session 36, an outside audit's counterexample): a bottleneck whose
every W2[j, i] < 0 and whose tail is constant on the facet u_i = 0 can trade a first-layer
hyperplane for a second-layer bend (a kink swap with n1 = 2).  `identify` said "identifiable"
(certificate VALID) and `fiber` "1 orbit, complete" on such nets; now undecided, the R18
certificate is rejected by the checker, and the fiber's listing is partial."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.bottleneck import identifiability
from semialgebraic.bottleneck._identifiability import constant_facet
from semialgebraic.certificates import identifiability_certificate, jsonable
from semialgebraic.cli import main
from semialgebraic.verify import verify
from semialgebraic.verify.identifiability import _constant_on_facet
from semialgebraic.verify.symmetry_path import outside_orbit

I2 = [[1, 0], [0, 1]]
F1A = Network.from_rows([I2, [[-1, -1], [-3, -2]], [[2, -1]]], [[0, 0], [1, 2], [0]])
SWAPPED = Network.from_rows([[[-1, 0], [1, "2/3"]], [["-3/2", "-3/2"], ["-1/2", "-3/2"]], [[-2, 2]]],
                            [[1, "-2/3"], ["1/2", "1/2"], [0]])


def _value(net, x):
    h = [Fraction(v) for v in x]
    for k, (W, b) in enumerate(zip(net.weights, net.biases)):
        z = [sum(Fraction(int(w.p), int(w.q)) * hi for w, hi in zip(W.row_at(i), h))
             + Fraction(int(b[i].p), int(b[i].q)) for i in range(W.nrows)]
        h = z if k == net.depth - 1 else [max(t, 0) for t in z]
    return h


def test_the_audit_net_has_a_copy_outside_the_orbit_and_is_undecided():
    """The audit's copy: equal at 3 000 exact points (a grid through every kink line and random
    points), outside the S1 + S2 orbit (other first-layer hyperplanes); `identify` undecided."""
    rng = random.Random(0)
    pts = [(Fraction(i, 6), Fraction(j, 6)) for i in range(-12, 13) for j in range(-12, 13)]
    pts += [(Fraction(rng.randint(-400, 400), 97), Fraction(rng.randint(-400, 400), 89)) for _ in range(2400)]
    assert all(_value(F1A, x) == _value(SWAPPED, x) for x in pts)
    assert outside_orbit(F1A, SWAPPED) == ""
    v = identifiability(F1A)
    assert v.answer is None and "R18.6" in v.reason and constant_facet(F1A) == 0
    assert [h for h in v.hypotheses if h.name.startswith("R18.6")][0].holds is False


def test_an_r18_certificate_of_the_audit_net_is_rejected():
    """The certificate `identify` wrote before the fix (R18.1-R18.5 shown) is BROKEN now."""
    cert = jsonable(identifiability_certificate(F1A, {"kind": "independent"}))
    ok, why = verify(cert)
    assert not ok and why.startswith("R18.6 fails: the tail is constant on the facet u_0 = 0")


def test_fiber_cli_names_r18_6(tmp_path, capsys):
    """`fiber` said "4 components, 1 orbit, listing complete"; now the counts are of the listed
    strata, with the R18.6 note."""
    p = tmp_path / "f1a.json"
    p.write_text(json.dumps(F1A.to_dict()))
    assert main(["fiber", str(p)]) == 3          # the dimension is a lower bound
    out = capsys.readouterr().out
    assert "number of orbits: 1 (of the listed strata only" in out and "R18.6" in out
    assert main(["identify", str(p)]) == 3
    assert "R18.6" in capsys.readouterr().out


def _family(rng):
    """The audit's family: rows (−a1, −a2 | a2 t), (−c1, −c2 | c2 t), V1 a2 + V2 c2 = 0."""
    t = Q(rng.randint(1, 3))
    a = [Q(rng.randint(1, 4)) for _ in range(4)]
    V1 = Q(rng.choice([1, 2, 3]))
    rows = [[-a[0], -a[1]], [-a[2], -a[3]]]
    return Network.from_rows([I2, rows, [[V1, -V1 * a[1] / a[3]]]], [[0, 0], [a[1] * t, a[3] * t], [0]])


def test_the_family_is_never_called_identifiable():
    """12 random members (the audit found a copy for each): undecided, or not identifiable by
    another condition; never identifiable."""
    rng = random.Random(1)
    for _ in range(12):
        net = _family(rng)
        v = identifiability(net)
        assert v.answer is not True, v.reason


@pytest.mark.parametrize("rows, b2, V, expect", [
    ([[-1, 1], [-2, 3]], [1, 1], [1, 2], True),          # facet tail affine, not constant
    ([[-1, 2], [-3, 1]], [1, 2], [1, -1], True),
    ([[-1, -1], [-3, -2], [1, -1]], [1, 2, -1], [2, -1, 1], None),   # W2[j, 1] < 0: refused
    ([[-1, -1], [-3, -2], [-1, 2]], [1, 2, 1], [2, -1, 1], True),    # facet tail affine
])
def test_controls_without_the_condition_keep_their_verdict(rows, b2, V, expect):
    """Nets next to the family where the audit's line search found no other frame: R18.6
    holds and the verdict stays identifiable; the third has a constant facet and an all-negative
    column 1 (the second audit's condition), so it is refused although no copy is known."""
    net = Network.from_rows([I2, rows, [V]], [[0, 0], b2, [0]])
    assert (constant_facet(net) is None) is (expect is True)
    assert identifiability(net).answer is expect


def test_decider_and_checker_agree_on_the_facet_condition():
    """The decider (shallow canonical form on the orthant) and the checker (R3's classification,
    `affine_contribution`) read R18.6 alike on 300 random n1 = 2, 3 tails, half of them with a
    constant facet planted (rows cutting the facet at one point with cancelling kinks, rows dead
    there, or rows linear there with cancelling slopes)."""
    rng = random.Random(2)
    seen = {True: 0, False: 0}
    for _ in range(300):
        n1 = rng.choice([2, 3])
        n2 = rng.randint(1, 4)
        rows = [[Q(rng.choice([-3, -2, -1, 1, 2])) for _ in range(n1)] for _ in range(n2)]
        b2 = [Q(rng.choice([-2, -1, 1, 2, 3])) for _ in range(n2)]
        V = [Q(rng.choice([-2, -1, 1, 2])) for _ in range(n2)]
        if rng.random() < 0.5 and n2 >= 2:
            for r in rows:
                r[0] = -abs(r[0])
            t = Q(rng.randint(1, 3))
            for r in rows[:2]:
                for k in range(1, n1):
                    r[k] = -abs(r[k]) if k == 1 else Q(0) - abs(rows[0][k]) * (1 if r is rows[0] else 2)
            b2[0], b2[1] = -rows[0][1] * t, -rows[1][1] * t
            V[1] = -V[0] * rows[0][1] / rows[1][1]
        W1 = [[Q(1) if i == k else Q(0) for k in range(n1)] for i in range(n1)]
        net = Network.from_rows([W1, rows, [V]], [[0] * n1, b2, [0]])
        got = constant_facet(net)
        rows2 = [list(r) + [c] for r, c in zip(rows, b2)]
        cols = [(v,) for v in V]
        negative = any(all(r[k] < 0 for r in rows2) for k in range(n1))
        mine = next((i for i in range(n1) if negative and _constant_on_facet(rows2, cols, i)), None)
        assert got == mine
        seen[got is not None] += 1
    assert seen[True] >= 30 and seen[False] >= 100, seen


def test_an_undecided_flip_set_search_is_an_undecided_verdict(monkeypatch):
    """R18.5 undecided (past the search's limits) returned a verdict built as tuple + list: a
    TypeError (exit 4) instead of "undecided"."""
    import semialgebraic.bottleneck._identifiability as mod
    net = Network.from_rows([I2, [[1, -2], [-2, -1]], [[1, 1]]], [[0, 0], [1, 3], [0]])
    assert identifiability(net).answer is True
    monkeypatch.setattr(mod, "flip_sets", lambda W2, W3: ("undecided", "nullity 99 > 16"))
    v = identifiability(net)
    assert v.answer is None and "nullity 99 > 16" in v.reason


E2 = Network.from_rows([I2, [[-1, -1], [1, -3]], [[3, -1]]], [[0, 0], [1, 3], [0]])
E2_COPY = Network.from_rows([[[1, 0], [1, 1]], [[1, -1], ["4/3", -1]], [[3, -3]]],
                            [[0, -1], [-1, 0], [0]])


def test_the_second_audit_net_constant_facet_and_another_negative_column(tmp_path, capsys):
    """Second escape audit: the facet u_0 = 0 has a constant tail and column 1 is all negative
    (column 0 mixed): a copy with the first-layer hyperplane u0 + u1 = 1, in a non-generic
    stratum of dimension 5.  `identify` said identifiable, `fiber` dimension 4, 1 orbit,
    complete; now undecided, and the fiber's dimension is at least 4 (exit 3)."""
    rng = random.Random(3)
    pts = [(Fraction(rng.randint(-400, 400), 97), Fraction(rng.randint(-400, 400), 89)) for _ in range(2000)]
    pts += [(Fraction(i, 4), Fraction(j, 4)) for i in range(-12, 13) for j in range(-12, 13)]
    assert all(_value(E2, x) == _value(E2_COPY, x) for x in pts)
    assert outside_orbit(E2, E2_COPY) == ""
    v = identifiability(E2)
    assert v.answer is None and "R18.6" in v.reason
    ok, why = verify(jsonable(identifiability_certificate(E2, {"kind": "independent"})))
    assert not ok and "R18.6" in why
    p = tmp_path / "e2.json"
    p.write_text(json.dumps(E2.to_dict()))
    assert main(["fiber", str(p)]) == 3
    assert capsys.readouterr().out.startswith("fiber dimension: at least 4 (")
