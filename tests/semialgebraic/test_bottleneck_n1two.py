"""Bottleneck nets with n1 ≥ 2 explored numerically (``tests/fuzz/fiber_explorer.py``): the
verdicts on the sign patterns the exploration targeted, and the negative control of the claim
that the kink swap S8 has no analogue for n1 ≥ 2 (three-layer-fibers R15, last paragraph)."""

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic import equivalent, fiber, identifiability, verify
from semialgebraic.bottleneck import dimension_formula, jacobian_dimension


def _net(W1, b1, W2, b2, W3, b3):
    return Network.from_rows([W1, W2, W3], [b1, b2, b3])


# f = σ(1 − σ(x1) − σ(x2)): n1 = 2, one row (− − | +), the pattern of S8 for n1 = 1
MP1 = _net([[1, 0], [0, 1]], [0, 0], [[-1, -1]], [1], [[1]], [0])
# the R15 map applied to each first-layer neuron (W1 → −W1, b1 → β − b1, V → −V, b3 → b3 + b V)
MP1_SWAPPED = _net([[-1, 0], [0, -1]], [1, 1], [[-1, -1]], [1], [[-1]], [1])


def test_kink_swap_does_not_extend_to_two_first_layer_neurons():
    assert MP1([Q(0), Q(0)]) == (Q(1),) == MP1_SWAPPED([Q(0), Q(0)])
    assert MP1([Q(1, 2), Q(0)]) == (Q(1, 2),)
    assert MP1_SWAPPED([Q(1, 2), Q(0)]) == (Q(1),)            # different functions
    v = identifiability(MP1)
    assert v.answer is True and verify(v.certificate)[0]
    assert equivalent(MP1, MP1_SWAPPED).answer is False


# one hand-made net per pattern the exploration targeted: identify, R17 = FIBDIM, symmetries
EXPLORED = [
    # every row (− − | +), n2 = 2, m = 2: identifiable (R18 item 4 is n1 = 1 only)
    (_net([[1, 2], [-1, 1]], [1, Q(-1, 2)], [[-1, -2], [Q(-3, 2), Q(-1, 2)]], [2, 3],
          [[1, -2], [Q(1, 2), 3]], [1, 0]), True, 4, ["S1", "S2"]),
    # every row (+ + | −): identifiable
    (_net([[1, 2, 0], [-1, 1, 1]], [1, 2], [[2, 1], [1, 3]], [-1, -2], [[1, -2]], [0]),
     True, 4, ["S1", "S2"]),
    # masked column 0 with two rows of equal ratio −1/2 (S7 flips neuron 1, R14) and S6
    (_net([[1, 2], [-1, 1]], [1, Q(-1, 2)], [[2, -1], [4, -2]], [-1, -3], [[1, -2]], [1]),
     False, 5, ["S1", "S2", "S6", "S7"]),
    # a linear row beside a switching row, m = 1 (S4; no S5: Γ + V_j W2_j = (3, −2) is mixed)
    (_net([[1, 2], [-1, 1]], [1, Q(-1, 2)], [[1, 2], [-1, 2]], [1, -1], [[1, -2]], [0]),
     False, 5, ["S1", "S2", "S4"]),
]


def test_explored_patterns_verdicts_and_dimension():
    for net, ident, dim, syms in EXPLORED:
        assert identifiability(net).answer is ident
        f = fiber(net)
        assert f.dimension.value == dimension_formula(net).value == jacobian_dimension(net)
        if dim is not None:
            assert f.dimension.value == dim
        if syms is not None:
            assert f.to_json()["symmetries"] == syms
        assert not f.partial


# Found by the explorer (seed 6, pattern minus_plus_dead): a dead neuron recruited as a linear
# neuron that absorbs an S5 flip (three-layer-fibers R12 with n_L = 0 < κ₊(Γ') = 1).  DEAD has
# rows (dead | − − + | − − +), n_L = 0; RECRUITED flips row 1 (σ(s) = s + σ(−s)) and carries its
# linear part in the old dead slot as the linear row (5/2, 3 | 2) with V = −1 and b3 + 3.
_W1, _b1 = [[-3, 2], [2, 1]], [-3, -1]
DEAD = _net(_W1, _b1, [[-2, Q(-4, 3)], [Q(-5, 2), -3], [Q(-1, 2), -1]], [Q(-3, 2), 1, Q(5, 2)],
            [[-2, 1, Q(-5, 2)]], [-1])
RECRUITED = _net(_W1, _b1, [[Q(5, 2), 3], [Q(5, 2), 3], [Q(-1, 2), -1]], [2, -1, Q(5, 2)],
                 [[-1, 1, Q(-5, 2)]], [2])


def _listed(f, other):
    import itertools
    (W1, b1), (W2, b2), (W3, b3) = [(other.layer(k)[0].to_rows(), list(other.layer(k)[1]))
                                    for k in range(3)]
    for p1 in itertools.permutations(range(len(b1))):
        for p2 in itertools.permutations(range(len(b2))):
            q = Network.from_rows(
                [[W1[i] for i in p1], [[W2[j][i] for i in p1] for j in p2],
                 [[r[j] for j in p2] for r in W3]],
                [[b1[i] for i in p1], [b2[j] for j in p2], list(b3)])
            if any(c.contains(q.parameters()) for c in f.components):
                return True
    return False


def test_dead_neuron_recruited_as_linear_for_an_s5_flip():
    for x in [(0, 0), (1, 0), (Q(1, 3), Q(-2, 5)), (-7, 3), (2, -1), (50, -40), (Q(9, 7), Q(1, 2))]:
        x = [Q(v) for v in x]
        assert DEAD(x) == RECRUITED(x)
    for net, dim in ((DEAD, 8), (RECRUITED, 6)):      # both generic, strata of different dimension
        assert dimension_formula(net).value == jacobian_dimension(net) == dim
        assert identifiability(net).answer is False
    v = equivalent(DEAD, RECRUITED)
    assert v.answer is True and verify(v.certificate)[0]
    # Three-layer-fibers R16c (gap iv closed): each listing contains the other's stratum, with
    # the stated dimensions 8 (one dead row, F = ∅) and 6 (row 1 flipped, the dead row linear)
    fd, fr = fiber(DEAD), fiber(RECRUITED)
    assert _listed(fd, RECRUITED) and _listed(fr, DEAD)
    assert not fd.partial and not fr.partial and fd.notes == fr.notes == []
    assert fd.dimension.value == fr.dimension.value == 8
    strata = {(tuple(c.label["flips"]), c.label["linear"], c.dimension.value) for c in fd.components}
    assert strata == {((), 0, 8), ((1,), 1, 6), ((2,), 1, 6), ((1, 2), 1, 6)}
    strata = {(tuple(c.label["flips"]), c.label["linear"], c.dimension.value) for c in fr.components}
    assert strata == {((), 1, 6), ((1,), 0, 8), ((2,), 1, 6), ((1, 2), 1, 6)}
    for f in (fd, fr):
        assert f.number_of_strata == 48 and f.components_exact is False
        for c in f.components:                 # each representative: same function, FIBDIM
            rep = c.representative if c.representative is not None else f.net
            assert c.contains(rep.parameters())
            assert jacobian_dimension(rep) == c.dimension.value == c.generator_rank
            assert equivalent(f.net, rep).answer is True


def test_fiber_cli_lists_the_recruited_strata(tmp_path, capsys):
    """`netfibers fiber` on the reproducer (three-layer-fibers R16c): text and --json."""
    import json
    from semialgebraic.cli import main
    path = tmp_path / "dead.json"
    path.write_text(json.dumps(DEAD.to_dict()))
    assert main(["fiber", str(path)]) == 0
    out = capsys.readouterr().out
    assert "fiber dimension: 8" in out and "number of strata (rows labelled): 48" in out
    assert "stratum 0 (0 linear, 1 dead): dimension 8" in out
    assert "stratum 1 (S5 flips [1], 1 linear, 0 dead): dimension 6" in out
    assert "note:" not in out
    assert main(["fiber", str(path), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["listing"] == "complete" and d["notes"] == [] and d["dimension"] == 8
    assert d["symmetries"] == ["S1", "S2", "S3", "S4", "S5"]
    assert d["number_of_strata"] == d["number_of_components"] == 48
    assert d["number_of_components_exact"] is False
    labs = sorted((c["label"]["flips"], c["label"]["linear"], c["label"]["dead"], c["dimension"])
                  for c in d["components"])
    assert labs == [([], 0, 1, 8), ([1], 1, 0, 6), ([1, 2], 1, 0, 6), ([2], 1, 0, 6)]
    rec = next(c for c in d["components"] if c["label"]["flips"] == [1])
    assert rec["sample"] == [-3, 2, 2, 1, -3, -1, 1, "6/5", "5/2", 3, "-1/2", -1, 1, -1, "5/2",
                             "-5/2", 1, "-5/2", "5/2"]
