"""Sparse proven symmetry directions: the same directions, rank and upper bound as the dense
route, a certificate that the checker accepts through the sparse route alone, and a wide net
(thousands of hidden neurons) whose directions take seconds, not gigabytes."""

from __future__ import annotations

import json

import pytest

from algebra.linalg import QMatrix
from algebra.linalg.gfp import SparseEchelon, sparse_rank_mod_p
from semialgebraic.budget import Budget
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate, symmetry_directions
from semialgebraic.dimension import jacobian
from semialgebraic.dimension.jacobian import ProvenSpan, network_prime
from semialgebraic.verify import functional_dimension as checker
from semialgebraic.verify import verify
from tests.cli.test_budgets import random_net

NETS = [([2, 4, 3, 1], 0, None), ([3, 5, 2], 1, None), ([2, 6, 4, 2], 2, (-1, 1)), ([3, 4, 4, 1], 3, (0, 1)),
        ([2, 3, 3, 3, 1], 4, None)]


def _dense(n, v) -> list:
    from algebra.rationals import Q
    out = [Q(0)] * n
    for k, w in v.items():
        out[k] = w
    return out


@pytest.mark.parametrize("widths, seed, domain", NETS)
def test_sparse_directions_are_the_dense_ones(widths, seed, domain):
    net = random_net(widths, seed)
    dense, dd = symmetry_directions(net, domain=domain)
    sparse, sd = symmetry_directions(net, domain=domain, sparse=True)
    assert dd == sd and [_dense(net.n_parameters, v) for v in sparse] == dense
    assert all(w != 0 for v in sparse for w in v.values())


@pytest.mark.parametrize("widths, seed, domain", NETS)
def test_sparse_rank_is_the_dense_rank(widths, seed, domain, monkeypatch):
    """The sparse echelon form, the dense routes (forced: SPARSE_OPS = 0) and the exact rank over
    Q agree (the prime divides no denominator; generic values)."""
    net = random_net(widths, seed)
    N, p = net.n_parameters, network_prime(net)
    vecs, _ = symmetry_directions(net, domain=domain, sparse=True)
    exact = QMatrix.from_rows([_dense(N, v) for v in vecs], ncols=N).rank() if vecs else 0
    sparse = ProvenSpan(vecs, N, p)
    assert sparse.rank() == sparse.rank(Budget(60)) == exact and sparse.ranked == len(vecs)
    monkeypatch.setattr(jacobian, "SPARSE_OPS", 0)
    forced = ProvenSpan(vecs, N, p)
    assert forced.rank(Budget(60)) == forced._dense_rank() == exact


def test_the_sparse_rank_stops_at_the_budget_with_a_subset(monkeypatch):
    monkeypatch.setattr(jacobian, "PEEL_ENTRIES", -1)      # the chunks themselves (no peeling)
    net = random_net([2, 40, 1], 5)
    vecs, _ = symmetry_directions(net, sparse=True)
    span = ProvenSpan(vecs, net.n_parameters, network_prime(net))
    assert len(vecs) > jacobian.RANK_CHUNK
    first = ProvenSpan(vecs[:jacobian.RANK_CHUNK], net.n_parameters, network_prime(net)).rank()
    assert span.rank(Budget(0)) == first and span.ranked == jacobian.RANK_CHUNK


def test_past_the_fill_in_and_the_dense_cap_the_rank_of_the_rows_taken(monkeypatch):
    """The sparse form given up and the dense routes too large: the rank of the rows added before
    (a subset), never more than the rank."""
    from algebra.rationals import Q
    vecs = [{0: Q(1), 1: Q(1)}, {2: Q(3)}, {0: Q(1), 1: Q(2)}, {1: Q(1), 3: Q(1)}]
    assert ProvenSpan(vecs, 4, 7).rank() == 4              # peeled: {2: 3}, then column 3
    monkeypatch.setattr(jacobian, "PEEL_ENTRIES", -1)
    assert ProvenSpan(vecs, 4, 7).rank() == 4
    monkeypatch.setattr(jacobian, "SPARSE_OPS", 0)         # the third one needs a reduction
    assert ProvenSpan(vecs, 4, 7).rank() == 4              # the dense routes
    monkeypatch.setattr(jacobian, "DENSE_BYTES", 0)
    span = ProvenSpan(vecs, 4, 7)
    assert span.rank() == 2 and span.ranked == 2


def test_sparse_echelon_rank_matches_sparse_rank_mod_p():
    rows = [{0: 1, 2: 2}, {1: 1}, {0: 2, 1: 3, 2: 4}, {2: 5}, {0: 3, 2: 6}]
    e = SparseEchelon(7)
    assert [e.add(r) for r in rows] == [True, True, False, True, False]
    assert e.rank == sparse_rank_mod_p(rows, 7) == 3
    e = SparseEchelon(7, max_ops=1)
    assert e.add(rows[0]) and e.add({0: 1, 2: 1}) is None and e.rank == 1     # left out, unchanged
    assert e.add({1: 1}) is None or e.rank == 2


@pytest.mark.parametrize("widths, seed, domain", NETS[:3])
def test_the_checker_accepts_through_the_sparse_route_alone(widths, seed, domain, monkeypatch):
    """With the exact and the dense fallbacks of the checker off, the certificate still verifies
    (N − rank mod p of the sparse vectors meets the claim), and a claim one lower is rejected."""
    net = random_net(widths, seed)
    fd = functional_dimension(net, domain=domain, max_regions=1)
    cert = json.loads(json.dumps(functional_dimension_certificate(net, fd, domain=domain)))
    assert "upper_directions" in cert and cert["upper"] == fd.upper < net.n_parameters
    monkeypatch.setattr(checker, "EXACT_ENTRIES", 0)
    monkeypatch.setattr(checker, "DENSE_BYTES", 0)
    ok, why = verify(cert)
    assert ok, why
    bad = dict(cert, upper=cert["upper"] - 1)
    if bad["upper"] >= bad["lower"]:
        ok, why = verify(bad)
        assert not ok and "N - rank of the listed directions" in why


def test_a_wide_net_gets_its_directions_in_seconds(monkeypatch):
    """600 hidden neurons in one layer (the 24-24-6000-2 bottleneck, narrower): dense directions
    were 16 bytes x N per neuron; sparse, no fill-in at all (every direction has a private
    leading column or is a dependent unit vector), the dense route's rank, in seconds."""
    import time
    net = random_net([2, 4, 600, 2], 7)
    N = net.n_parameters
    t0 = time.monotonic()
    vecs, _ = symmetry_directions(net, sparse=True)
    span = ProvenSpan(vecs, N, network_prime(net))
    r = span.rank(Budget(60))
    assert time.monotonic() - t0 < 10 and span.ranked == len(vecs)
    assert sum(1 for v in vecs if len(v) > 1) >= 500 and 500 <= r < N
    monkeypatch.setattr(jacobian, "SPARSE_OPS", 0)
    assert ProvenSpan(vecs, N, network_prime(net))._dense_rank() == r


def random_sparse_vectors(rng, n: int, count: int, units=(1, -2, 3), p: int | None = None) -> list:
    """*count* sparse rational vectors on *n* columns (dicts): unit vectors (values *units*),
    multiples of earlier ones, random supports of 1-4 entries in -3..3, and with *p* pairs
    whose one entry 1/p has no residue mod p."""
    from algebra.rationals import Q
    vecs = []
    for _ in range(count):
        kind = rng.random()
        if kind < 0.25:
            vecs.append({rng.randrange(n): Q(rng.choice(list(units)))})
        elif kind < 0.4 and vecs:
            vecs.append({c: 2 * v for c, v in rng.choice(vecs).items()})
        elif p is not None and kind < 0.5:
            vecs.append({rng.randrange(n): Q(1, p), rng.randrange(n): Q(1)})
        else:
            vecs.append({c: Q(rng.randint(-3, 3)) for c in rng.sample(range(n), rng.randint(1, min(n, 4)))})
    return vecs


@pytest.mark.parametrize("seed", range(40))
def test_peeling_keeps_the_rank(seed, monkeypatch):
    """``peel`` (unit vectors' columns dropped, then vectors with a private column removed one by
    one) is exact over Q: the peeled count plus the rest's rank is the rank of the whole, against
    the exact rank over Q, on random sparse sets with planted unit vectors, private columns,
    repeats and multiples."""
    import random
    from algebra.linalg import QMatrix
    from algebra.rationals import Q
    from semialgebraic.dimension.jacobian import peel
    rng = random.Random(seed)
    n = rng.randint(3, 14)
    vecs = random_sparse_vectors(rng, n, rng.randint(1, 16))
    dense = [[v.get(c, Q(0)) for c in range(n)] for v in vecs]
    want = QMatrix.from_rows(dense, ncols=n).rank()
    r, rest, ncols = peel(vecs)
    restrank = QMatrix.from_rows([[v.get(c, Q(0)) for c in range(ncols)] for v in rest], ncols=ncols).rank() \
        if rest else 0
    assert r + restrank == want
    assert ProvenSpan(vecs, n, 1000003).rank() == want


def test_directions_bound_past_the_fill_in_takes_the_proven_span_routes(monkeypatch):
    """``directions_bound`` (the fiber's floor, the certificate's upper entries) built a dense
    k x N int64 array when the sparse rank gave up: 2.86 TiB on a 384-1536-384 block on a small
    ball (an internal error).  Now the ProvenSpan routes (peeled, sparse, dense within their
    memory): the same bound on a small net when the sparse echelon form gives up at once."""
    import semialgebraic.dimension.jacobian as jac
    import semialgebraic.dimension.upper as up
    net = random_net([3, 6, 5, 2], 2)
    entries = [["scale", 0, i] for i in range(6)] + [["scale", 1, i] for i in range(5)]
    want = up.directions_bound(net, entries)
    monkeypatch.setattr(jac, "SPARSE_OPS", 0)
    monkeypatch.setattr(jac, "PEEL_ENTRIES", 0)
    assert up.directions_bound(net, entries) == want == net.n_parameters - 11
