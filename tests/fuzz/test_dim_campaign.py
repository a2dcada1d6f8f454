"""A bounded sample of the ``dim`` soundness campaign ``tests/fuzz/dim_campaign.py``: planted
degenerate networks (dead, duplicate, negatively scaled duplicate, zero rows and columns, z ≡ 0,
rare neurons, pairs never / barely co-active, masked and almost masked, always-on and almost
always-on, relays, float16) through ``functional_dimension`` with and without the region walk,
every value compared with an exact oracle that shares no code with netfibers, every
certificate re-checked and mutated.  The oracle is tested first (known values, and the campaign
must be able to say "wrong").  ``python -m tests.fuzz.dim_campaign --seed S --count N`` runs more."""

from fractions import Fraction as F

import pytest

pytest.importorskip("z3")

from tests.fuzz import dim_campaign as dc  # noqa: E402


def _net(layers):
    return [([[F(v) for v in r] for r in W], [F(v) for v in b]) for W, b in layers]


def test_oracle_known_values():
    # relu(x) + relu(-x + 1) on R: two neurons of 2 effective parameters each, one output bias
    assert dc.oracle(_net([([[1], [-1]], [0, 1]), ([[1, 1]], [0])]), ("R",))["value"] == 5
    # the docstring net of functional.py: x0 ⊕ x1 through the identity, 7 = N (two regions more)
    assert dc.oracle(_net([([[1, 0], [0, 1]], [0, 0]), ([[1, -1]], [0])]), ("R",))["value"] == 7
    # a dead neuron (bias -1, zero row): its 3 parameters are free
    assert dc.oracle(_net([([[1], [0]], [0, -1]), ([[1, 1]], [0])]), ("R",))["value"] == 3
    # on the box [1, 2] the first neuron is always on: relu(x) + relu(-x+1) is affine, rank 2
    assert dc.oracle(_net([([[1], [-1]], [0, 1]), ([[1, 1]], [0])]), ("box", (F(1), F(2))))["value"] == 2
    # a zero row with zero bias, seen by the output: no differentiable input (non-generic)
    assert dc.oracle(_net([([[0]], [0]), ([[3]], [5])]), ("R",))["value"] is None
    # ... unseen (zero outgoing weight): differentiable, only the output bias matters
    assert dc.oracle(_net([([[0]], [0]), ([[0]], [5])]), ("R",))["value"] == 1
    # a relay z2 = h1 vanishes where neuron 1 is off (x < 0) and is seen there: only x > 0 counts
    relay = dc.oracle(_net([([[1]], [0]), ([[1]], [0]), ([[1]], [0])]), ("R",))
    assert (relay["regions"], relay["differentiable"], relay["value"]) == (2, 1, 2)


def test_regions_are_exact_on_a_sliver():
    # a neuron active only on x > 1 - 1e-6 of [-1, 1]: two regions, both found
    net = _net([([[1], [1]], [F(-1) + dc.SLIVER, 0]), ([[1, 1]], [0])])
    pats, _ = dc.regions(net, ("box", (F(-1), F(1))))
    assert sorted(pats) == [(-1, -1), (-1, 1), (1, 1)]
    assert dc.oracle(net, ("box", (F(-1), F(1))))["value"] == 5


def test_the_campaign_says_wrong(monkeypatch):
    real = dc.oracle

    def off_by_one(net, dom):
        out = real(net, dom)
        if out["value"] is not None:
            out["value"] += 1
        return out

    monkeypatch.setattr(dc, "oracle", off_by_one)
    c = dc.run_case(2001, timeout=20)       # walked completely: dim is exact, the oracle lies
    assert any("WRONG EXACT" in f for f in c.findings), c.findings


def test_mutations_are_rejected_and_named():
    c = dc.run_case(2004, timeout=20)
    assert not c.findings, c.findings
    assert c.checks["certificates"] == 1 and c.checks["mutations lower+1"] == 1


@pytest.mark.parametrize("seed", [2000, 2001, 2002, 2004, 2005, 2009, 2012, 2013, 2017, 2050])
def test_sample_has_no_findings(seed):
    c = dc.run_case(seed, timeout=20)
    assert c.truth is not None and not c.findings, (seed, c.findings)


@pytest.mark.parametrize("seed", [31301, 31302])
def test_own_sides_sample_has_no_findings(seed):
    # a cube case's box given its own sides per coordinate (three-layer-fibers R36): the API on
    # the Domain and the CLI's `--box lo1:hi1,...` (its certificate re-checked) against the oracle
    c = dc.run_case(seed, timeout=20, cli=True, sides=True)
    assert c.dom[0] == "boxes" and c.truth is not None and not c.findings, (seed, c.findings)
    assert c.checks["cli"] == 1


def test_the_oracle_on_a_cut():
    """relu(x) + relu(-x + 1) on [-2, 2] cut by x <= 3/2: both neurons switch inside (rank 5, as
    on R); by x <= 1/2: the second is always on there (4); by x <= -1: the first is dead too (2)."""
    net = _net([([[1], [-1]], [0, 1]), ([[1, 1]], [0])])
    box = [(F(-2), F(2))]
    assert dc.oracle(net, ("cut", box, [([F(1)], F(3, 2))]))["value"] == 5
    assert dc.oracle(net, ("cut", box, [([F(1)], F(1, 2))]))["value"] == 4
    assert dc.oracle(net, ("cut", box, [([F(1)], F(-1))]))["value"] == 2
    assert dc.regions(net, ("cut", box, [([F(1)], F(-3))]))[0] == []          # no interior


@pytest.mark.parametrize("seed", [40000, 40004, 40012, 40026])
def test_cut_sample_has_no_findings(seed):
    # a cube case's box cut by a half-space (three-layer-fibers R37): the sandwich's bounds
    # against the oracle on the cut, its certificate verified and mutated, and the CLI on a JSON
    # box with half-spaces (its certificate re-checked by `netfibers verify`)
    c = dc.run_case(seed, timeout=20, cli=seed == 40012, cut=True)
    assert c.dom[0] == "cut" and c.truth is not None and not c.findings, (seed, c.findings)
