"""A bounded sample of the adversarial soundness campaign ``tests/fuzz/adversarial.py``: planted
near misses (bumps of radius 1e-3 ... 1e-6, slivers, faces), planted symmetries (awkward
rescalings, ±-scaled duplicates, skip connections) and degenerate cases (zero-width boxes, 1e6 /
1e-12 weights, float16 copies, one input) through ``equiv``, ``equiv --epsilon``, ``diff``,
``regions``, ``canon``, ``dim`` and ``verify`` (with mutated certificates that must be rejected),
every verdict against the truth known by construction and exact oracles.
``python -m tests.fuzz.adversarial --seed S --count N`` runs more."""

from fractions import Fraction as F

import pytest

from tests.fuzz.adversarial import (KINDS, Adversarial, brute_force_max, deviation, l1_ball, make_plan, plus,
                                    regions_1d, run_case, tent)
from tests.fuzz.bab_fuzz import Runner


def _quiet(*_):
    pass


@pytest.mark.parametrize("kind", KINDS)
def test_the_planted_truth_is_true(kind):
    """The generators' claims (max |a − b| on the box, equality) against exact evaluation and the
    exact vertex enumeration (when small enough)."""
    for seed in (1,):
        p = make_plan(seed, kind, small=True)
        if p.max_dom is not None:
            mx = brute_force_max(p.a, p.b, p.dom[1], limit=4000)
            assert mx is None or mx == p.max_dom, (seed, kind, mx, p.max_dom)
            for x in p.probes:
                if all(lo <= v <= hi for v, (lo, hi) in zip(x, p.dom[1])):
                    assert deviation(p.a, p.b, x)[0] <= p.max_dom


def test_planted_pieces():
    # an L1 ball of radius 1e-6 and height 3e-6 at 1/2 added to relu(x)
    a = [([[F(1)]], [F(0)]), ([[F(1)]], [F(0)])]
    b = plus(a, l1_ball([F(1, 2)], F(1, 10**6), F(-3), 1))
    assert brute_force_max(a, b, [(F(0), F(1))]) == F(3, 10**6)
    assert deviation(a, b, [F(1, 2)])[0] == F(3, 10**6)
    assert deviation(a, b, [F(1, 2) + F(1, 10**6)])[0] == 0
    # a tent of half-width 1e-4 peaking on x0 + x1 = 1
    a2 = [([[F(1), F(-1)]], [F(0)]), ([[F(1)]], [F(0)])]
    b = plus(a2, tent([F(1), F(1)], F(1) - F(1, 10**4), F(1, 10**4), F(2), 1))
    assert brute_force_max(a2, b, [(F(0), F(1))] * 2) == F(2, 10**4)
    assert deviation(a2, b, [F(1, 3), F(2, 3)])[0] == F(2, 10**4)


def test_regions_1d():
    two = [([[F(1)], [F(1)]], [F(0), F(-1, 2)]), ([[F(1), F(1)]], [F(0)])]
    assert regions_1d(two, F(0), F(1)) == {(1, 0), (1, 1)}
    assert regions_1d(two, F(-1), F(1)) == {(0, 0), (1, 0), (1, 1)}
    # a bump of radius 1e-6 at 1/3: relu(1e-6 - |x - 1/3|) adds two neurons and a second layer
    b = plus([([[F(1)]], [F(0)]), ([[F(1)]], [F(0)])], l1_ball([F(1, 3)], F(1, 10**6), F(1), 1))
    pats = regions_1d(b, F(0), F(1))
    assert len(pats) == 4          # left of the ball, its two halves, right of it
    assert all(p[0] == 1 for p in pats)


class _Liar(Runner):
    """Says 'equivalent' and [0, 0] to everything, and accepts every certificate."""

    def __call__(self, *argv):
        if argv[0] == "diff":
            return 0, '{"lower": "0", "upper": "0", "complete": true, "point": null}', "", 0.0
        if argv[0] == "verify":
            return 0, "", "", 0.0
        return 0, '{"answer": true}', "", 0.0


def test_the_checks_catch_false_claims(tmp_path):
    c = Adversarial(3, "ball_bump", _Liar(False, 5), str(tmp_path), small=True, api=False)
    exact, low = c.truth_max(c.dom)
    assert exact > 0
    c.check_equiv(c.dom)
    c.check_diff(c.dom, exact=exact, low=low)
    cert = tmp_path / "cert.json"
    cert.write_text('{"type": "bab_bound", "claim": "max_o max_x |a_o(x) - b_o(x)| <= upper on the box", '
                    '"upper": "1", "objectives": [], "b": {"layers": [{"bias": ["0"]}]}}')
    c.verify("diff", str(cert), "cmd")
    what = " ".join(f[2] for f in c.findings)
    assert "UNSOUND equiv" in what and "UNSOUND diff: upper 0 < exact max" in what
    assert "UNSOUND verify: accepts a diff certificate mutated" in what


@pytest.mark.parametrize("seed, kind", [(127, "ball_outside"), (143, "dim1"), (3, "sliver"), (8, "neg_dup"),
                                        (14, "zero_width"), (52, "orthant_masked")])
def test_adversarial_sample_has_no_findings(seed, kind):
    pytest.importorskip("z3")        # the inherited checks ask z3 where the plan leaves the truth open
    c = run_case(seed, Runner(False, 10), kind, small=True, api=False, log=_quiet)
    assert not c.findings, c.findings


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(100, 136))
def test_adversarial_sample_has_no_findings_slow(seed):
    pytest.importorskip("z3")
    c = run_case(seed, Runner(False, 10), KINDS[seed % len(KINDS)], small=seed % 2 == 0, log=_quiet)
    assert not c.findings, c.findings
