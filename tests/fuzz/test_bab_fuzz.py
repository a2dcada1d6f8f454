"""A bounded sample of the soundness fuzzer ``tests/fuzz/bab_fuzz.py`` (issue 15): planted pairs
and near misses through ``equiv`` (auto, general, box, orthant), ``equiv --epsilon``, ``diff``
(box, ball, orthant; certificates re-checked by ``verify``) and ``regions``, every verdict
compared with oracles that share no code with netfibers.  The oracles are tested first (they
must be able to say "wrong").  ``python -m tests.fuzz.bab_fuzz --seed S --count N`` runs more."""

from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("z3")

from tests.fuzz.bab_fuzz import (KINDS, Case, Runner, brute_force_max, evaluate,  # noqa: E402
                                 regions_oracle, run_case, z3_differ)

ABS = [([[F(1)], [F(-1)]], [F(0), F(0)]), ([[F(1), F(1)]], [F(0)])]           # |x|
HALF = [([[F(1)], [F(-1)]], [F(0), F(0)]), ([[F(1, 2), F(1)]], [F(0)])]       # |x| − relu(x)/2


def test_brute_force_max_is_exact_on_a_known_pair():
    # |ABS − HALF| = relu(x)/2: max 1 on [−1, 2], 0 on [−1, 0]
    assert brute_force_max(ABS, HALF, [(F(-1), F(2))]) == 1
    assert brute_force_max(ABS, HALF, [(F(-1), F(0))]) == 0
    # two inputs: |x| + |y| against 0 on [−1, 1/2]^2: 2 at (−1, −1)
    A2 = [([[F(1), F(0)], [F(-1), F(0)], [F(0), F(1)], [F(0), F(-1)]], [F(0)] * 4), ([[F(1)] * 4], [F(0)])]
    Z2 = [([[F(0), F(0)]], [F(0)]), ([[F(0)]], [F(0)])]
    assert brute_force_max(A2, Z2, [(F(-1), F(1, 2))] * 2) == 2


def test_z3_and_regions_oracles():
    assert z3_differ(ABS, HALF, ("box", [(F(-1), F(2))])) is True
    assert z3_differ(ABS, HALF, ("box", [(F(-1), F(0))])) is False
    assert z3_differ(ABS, HALF, ("box", [(F(-1), F(2))]), threshold=F(1)) is False      # max is 1
    assert z3_differ(ABS, HALF, ("box", [(F(-1), F(2))]), threshold=F(99, 100)) is True
    assert regions_oracle(ABS, [(F(-1), F(1))]) == {(1, 0), (0, 1)}
    assert regions_oracle(ABS, [(F(1, 2), F(1))]) == {(1, 0)}
    assert evaluate(HALF, [F(3)]) == [F(3, 2)]


class _Liar(Runner):
    """A runner whose every ``equiv`` says equivalent and whose ``diff`` claims [0, 0]."""

    def __call__(self, *argv):
        if argv[0] == "equiv" and "--epsilon" not in argv:
            return 0, '{"answer": true}', "", 0.0
        if argv[0] == "diff":
            return 0, '{"lower": "0", "upper": "0", "complete": true, "point": null}', "", 0.0
        return 0, "{}", "", 0.0


def test_the_checks_catch_false_claims(tmp_path):
    c = Case(5, "bias_1e-6", _Liar(False, 5), str(tmp_path), rng_formats=False, api=False)
    c.dom = ("box", [(F(-1), F(1))] * len(c.dom[1] if c.dom[0] == "box" else [0] * c.dom[1]))
    c.check_equiv(("R", len(c.a[0][0][0])))
    c.check_diff(c.dom, exact=F(1, 10**6), low=F(1, 10**6))
    what = " ".join(f[2] for f in c.findings)
    assert "UNSOUND equiv" in what and "UNSOUND diff: upper 0 < exact max" in what


def _no_findings(seed, kind):
    c = run_case(seed, Runner(False, 10), kind, small=True, log=lambda *_: None)
    assert not c.findings, c.findings


@settings(max_examples=2, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(KINDS))
def test_fuzz_sample_has_no_findings(seed, kind):
    _no_findings(seed, kind)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(0, 10**6), kind=st.sampled_from(KINDS))
def test_fuzz_sample_has_no_findings_slow(seed, kind):
    _no_findings(seed, kind)


@pytest.mark.parametrize("seed, kind", [(400, "ball_on_kink")])
def test_fuzz_regressions(seed, kind):
    """Cases that found bugs (regions on a 1e-6 box centred on a kink)."""
    c = run_case(seed, Runner(False, 10), kind, api=False, log=lambda *_: None)
    assert not c.findings, c.findings
