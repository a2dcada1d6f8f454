"""The exact rank of Jacobian rows off the pivots of the proven kernel directions
(``algebra.linalg.gfp.pivot_columns``, ``semialgebraic.dimension.jacobian.rank_beside``): rows
orthogonal to the directions are determined by their other columns, so a complete walk's rows
are ranked exactly on N − rank(directions) columns (a 16-60-60-8 net on a ball of radius 1/100:
343 of 5 168, 0.2 s where the whole took 49 s), and the ``upper_regions`` checker does the same
with the directions beside the regions.  Also the walk's gate, which counts only the first-layer
neurons that switch on a cube."""

import copy
import json
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

import semialgebraic.dimension.functional as fmod
from algebra.kernel import box_input_map, compose_input_map
from algebra.linalg import QMatrix
from algebra.linalg.gfp import PRIME, peel_columns, pivot_columns
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension
from semialgebraic.dimension.certificate import box_certificate
from semialgebraic.dimension.directions import symmetry_directions
from semialgebraic.dimension.jacobian import exact_rank, rank_beside
from semialgebraic.verify import verify


@st.composite
def sparse_vectors(draw):
    n = draw(st.integers(2, 9))
    k = draw(st.integers(1, 8))
    out = []
    for _ in range(k):
        support = draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=3, unique=True))
        out.append({c: Q(draw(st.integers(-4, 4).filter(bool)), draw(st.integers(1, 3))) for c in support})
    if draw(st.booleans()) and len(out) > 1:           # a dependent one
        a, b = out[0], out[1]
        out.append({c: a.get(c, Q(0)) + 2 * b.get(c, Q(0)) for c in set(a) | set(b)})
    return n, out


@settings(max_examples=80, deadline=None)
@given(sparse_vectors())
def test_pivot_columns_carry_the_rank_and_rows_orthogonal_to_the_vectors_keep_theirs(case):
    """|P| is the rank (over Q: the oracle QMatrix.rank), the vectors restricted to P have full
    rank |P|, and rows orthogonal to the vectors (from the exact nullspace) have the same rank
    on the columns off P as on all."""
    n, vecs = case
    dense = [[v.get(c, Q(0)) for c in range(n)] for v in vecs]
    r = QMatrix.from_rows(dense, ncols=n).rank()
    P = pivot_columns(vecs, PRIME)
    assert len(P) == r == len(set(P))
    assert QMatrix.from_rows([[row[c] for c in P] for row in dense], ncols=len(P)).rank() == r if P else True
    pivots, rest, cols = peel_columns(vecs)
    assert len(pivots) + (QMatrix.from_rows([[row.get(c, Q(0)) for c in range(len(cols))] for row in rest],
                                            ncols=len(cols)).rank() if rest else 0) == r
    K = QMatrix.from_rows(dense, ncols=n).nullspace().to_rows()     # rows orthogonal to the vectors
    rng = random.Random(n * 31 + len(vecs))
    coef = [[rng.randint(-3, 3) for _ in K] for _ in range(len(K) + 2)]
    rows = [[sum((t * k[c] for t, k in zip(co, K)), Q(0)) for c in range(n)] for co in coef]
    off = [c for c in range(n) if c not in set(P)]
    full = QMatrix.from_rows(rows, ncols=n).rank() if rows else 0
    assert full == (QMatrix.from_rows([[row[c] for c in off] for row in rows], ncols=len(off)).rank()
                    if rows and off else 0)


def _net(seed, widths, scale=4):
    rng = random.Random(seed)
    Ws = [[[Q(rng.randint(-scale, scale), 4) for _ in range(widths[i])] for _ in range(widths[i + 1])]
          for i in range(len(widths) - 1)]
    bs = [[Q(rng.randint(-scale, scale), 8) for _ in range(widths[i + 1])] for i in range(len(widths) - 1)]
    return Network(Ws, bs)


@pytest.mark.parametrize("seed", range(6))
def test_rank_beside_the_proven_directions_is_the_exact_rank(seed):
    """On small nets after a complete walk: the rank on the columns off the proven directions'
    pivots equals the exact rank of the whole rows (the general method's value)."""
    net = _net(seed, [2, 5, 4, 2] if seed % 2 else [3, 6, 2])
    dom = (Q(-1), Q(1))
    fd = functional_dimension(net, domain=dom)
    assert fd.exact and fd.details["patterns"] is not None
    vecs, _ = symmetry_directions(net, domain=dom, patterns=fd.details["patterns"], sparse=True)
    got = rank_beside(net, fd.inputs, vecs, fd.details["prime"])
    assert got == exact_rank(net, fd.inputs) == fd.value


def _ball_case(seed):
    """A 3-8-8-2 net on a ball of radius 1/16 around a random point: few neurons switch."""
    net = _net(100 + seed, [3, 8, 8, 2], scale=8)
    rng = random.Random(seed)
    c = [Q(rng.randint(-4, 4), 4) for _ in range(3)]
    r = Q(1, 16)
    return net, [v - r for v in c], [v + r for v in c]


@pytest.mark.parametrize("seed", range(8))
def test_a_complete_walk_ranked_beside_the_directions_is_exact_and_certified(monkeypatch, seed):
    """With the whole rows' exact rank refused (EXACT_LIMIT_COMPLETE 0), a complete walk's rank
    is taken beside the proven directions: the value equals the z3 region oracle's on the box
    (no code shared), the certificate lists the regions with the directions beside them and
    verifies, and an upper or a lower off by one is rejected."""
    pytest.importorskip("z3")
    from tests.fuzz.bab_fuzz import to_json
    from tests.fuzz.dim_campaign import oracle
    net, lo, hi = _ball_case(seed)
    monkeypatch.setattr(fmod, "EXACT_LIMIT_COMPLETE", 0)
    monkeypatch.setattr(fmod, "EXACT_LIMIT", 0)
    cube = compose_input_map(net, *box_input_map(lo, hi))
    fd = functional_dimension(cube, domain=(Q(-1), Q(1)))
    camp = [([[Fraction(str(v)) for v in row] for row in W.to_rows()], [Fraction(str(v)) for v in b])
            for W, b in zip(net.weights, net.biases)]
    truth = oracle(camp, ("boxes", [(Fraction(str(a)), Fraction(str(z))) for a, z in zip(lo, hi)]))
    if truth["value"] is None:
        assert not fd.exact or fd.non_generic
        return
    assert fd.exact and fd.value == truth["value"]
    if not fd.details.get("rank_beside"):        # the symmetries met the modular rank already
        return
    cert = json.loads(json.dumps(box_certificate(net, lo, hi, fd)))
    assert "upper_regions" in cert and "upper_directions" in cert and verify(cert)[0]
    for key, delta in (("upper", -1), ("lower", 1)):
        bad = copy.deepcopy(cert)
        bad[key] += delta
        try:
            ok = verify(bad)[0]
        except Exception:
            ok = False
        assert not ok, key


def test_the_walk_gate_counts_the_first_layer_neurons_that_switch():
    """On a cube only the neurons taking both signs count (one per hyperplane): a 2-6-1 net
    whose neurons 0-3 cannot switch on [-1, 1]^2 and 4, 5 share a line counts 1."""
    net = Network.from_rows([[[1, 0], [0, 1], [1, 1], [-1, 0], [1, -1], [-2, 2]], [[1] * 6]],
                            [[5, -5, 3, 2, 0, 0], [0]])
    assert fmod._switching_first_layer(net, (Q(-1), Q(1))) == 1
    assert fmod._switching_first_layer(net, None) == 5            # on R^d every non-zero row


def test_a_complete_walk_does_not_reduce_the_span_it_will_not_use(monkeypatch):
    """After a complete walk only the walked regions are sampled, so the missing directions (the
    span's RREF mod p, computed eagerly otherwise) are never asked for: the RREF is skipped
    (16-60-60-8 on a ball without a timeout: 50 s of 75 s before, now 17 s in all), with the
    same exact value as a run that reduces it."""
    from semialgebraic.dimension.jacobian import ProvenSpan
    calls = []
    real = ProvenSpan.reduced
    monkeypatch.setattr(ProvenSpan, "reduced", lambda self, check=None: calls.append(1) or real(self, check))
    net, lo, hi = _ball_case(1)
    cube = compose_input_map(net, *box_input_map(lo, hi))
    fd = functional_dimension(cube, domain=(Q(-1), Q(1)))
    assert fd.complete_regions and fd.exact and calls == []
    fd_open = functional_dimension(cube, domain=(Q(-1), Q(1)), max_regions=1)     # walk cut: sampled
    assert not fd_open.complete_regions and fd_open.lower <= fd.value <= fd_open.upper


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10 ** 6))
def test_the_decider_jacobian_rows_and_columns_equal_the_checkers(seed):
    """exact_jacobian_rows / exact_jacobian_columns (deltas by FLINT products, all outputs at
    once) equal the checker's own rows (verify/functional_dimension_upper._masked_rows, entry by
    entry) at random exact inputs, on every column and on a random subset of columns."""
    from algebra.kernel import parameter_places
    from semialgebraic.dimension.jacobian import exact_jacobian_columns, exact_jacobian_rows
    from semialgebraic.verify.functional_dimension_upper import _masked_rows
    rng = random.Random(seed)
    widths = [rng.randint(1, 4) for _ in range(rng.randint(2, 4))] + [rng.randint(1, 3)]
    net = _net(seed, widths, scale=4)
    x = [Q(rng.randint(-8, 8), rng.choice([1, 3, 7])) for _ in range(widths[0])]
    pre = net.preactivations(x)
    masks = [[1 if v > 0 else 0 for v in layer] for layer in pre[:-1]]
    assert exact_jacobian_rows(net, [x]) == _masked_rows(net, x, masks)
    cols = sorted(rng.sample(range(net.n_parameters), rng.randint(1, net.n_parameters)))
    assert exact_jacobian_columns(net, [x], cols) == _masked_rows(net, x, masks, parameter_places(net, cols))
