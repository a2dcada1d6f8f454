"""The decider's own vectors of ``upper_directions`` entries (semialgebraic.dimension.upper) agree
with the checker's (semialgebraic.verify.functional_dimension), and the decider asks the checker
only through verify()."""

import json

import pytest

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.dimension import (checked_directions_bound, directions_bound, entry_vectors,
                                           is_regions_rank)
from semialgebraic.verify.functional_dimension import _domain
from semialgebraic.verify.functional_dimension_emptiness import SharedProofs
from semialgebraic.verify.functional_dimension_upper import _upper_vectors

NETS = {   # planted nets of verify/test_functional_dimension_upper.py: every entry kind appears
    "zero_row": (Network.from_rows([[[1, 2], [0, 0], [1, -1]], [[1, 2, 1]]], [[0, 3, 1], [0]]), None, {}),
    "box_block": (Network.from_rows([[[1, 2], [-1, 1], [1, 1]], [[1, 2, -1]]], [[5, 4, 0], [0]]), (-1, 1), {}),
    "silent": (Network.from_rows([[[1, 2], [-1, 1], [1, -1]], [[1, 2, 0], [0, 0, -1]], [[1, 1]]],
                                 [[0, 1, 0], [0, -1], [0]]), None, {}),
    "dead_search": (Network.from_rows([[[1], [1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, -1], ["-1/2", 0], [0]]),
                    None, {"max_regions": 0}),
    "masked": (Network.from_rows([[[1], [1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, -1], ["-1/2", 0], [0]]),
               None, {}),
    "active_search": (Network.from_rows([[[1], [1]], [[1, -1], [1, 1]], [[1, 1]]], [[0, -1], [2, -1], [0]]),
                      None, {"max_regions": 0}),
    "incoming": (Network.from_rows([[[1], [-1], [1]], [[1, 0, 1]], [[1]]], [[0, 0, -1], [-3], [0]]),
                 None, {"max_regions": 0}),
}


def _rank(rows, n):
    """Exact rank of dense lists or sparse dicts (the checker's vectors) of length *n*."""
    dense = []
    for r in rows:
        if isinstance(r, dict):
            v = [Q(0)] * n
            for k, w in r.items():
                v[k] = w
            r = v
        dense.append(r)
    return QMatrix.from_rows(dense, ncols=n).rank() if dense else 0


@pytest.mark.parametrize("name", sorted(NETS))
def test_entry_vectors_span_the_checker_vectors(name):
    net, domain, kw = NETS[name]
    fd = functional_dimension(net, domain=domain, **kw)
    cert = json.loads(json.dumps(functional_dimension_certificate(net, fd, domain=domain)))
    entries = cert["upper_directions"]
    N = net.n_parameters
    mine = entry_vectors(net, entries)
    lo_hi = _domain(cert["domain"])
    theirs = _upper_vectors(net, entries, lo_hi, SharedProofs(net, lo_hi, cert.get("shared_proofs", [])))
    assert not isinstance(theirs, str)
    r = _rank(mine, N)
    assert r == _rank(theirs, N) == _rank(mine + theirs, N)             # the same span
    assert directions_bound(net, entries) == N - r == cert["upper"] == fd.upper
    for e in entries:                                                   # entry by entry too
        if e[0] not in ("masked", "masked_pair"):     # a masked pair needs its masked entries
            one = entry_vectors(net, [e])
            shared = SharedProofs(net, lo_hi, cert.get("shared_proofs", []))
            assert _rank(one + _upper_vectors(net, [e], lo_hi, shared), N) == _rank(one, N)


def test_checked_directions_bound_goes_through_the_checker():
    net, domain, kw = NETS["zero_row"]
    X = functional_dimension(net).inputs[:1]           # a differentiable input
    assert checked_directions_bound(net, [["active", 0, 1]], None, X) == net.n_parameters - 1
    assert "no inputs" in checked_directions_bound(net, [["active", 0, 1]], None, [])
    why = checked_directions_bound(net, [["active", 0, 0]], None, X)
    assert why == "neuron (0, 0) is not always active on the domain by interval bounds"
    assert directions_bound(net, [["active", 0, 0]]) == net.n_parameters - 1    # unchecked
    from algebra.exceptions import InputError
    with pytest.raises(InputError):
        checked_directions_bound(net, [["bias-trade", 0, 0]], None, X)


def test_is_regions_rank_goes_through_the_checker():
    net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    fd = functional_dimension(net)
    from semialgebraic.budget import Budget
    from semialgebraic.certificates import jsonable
    from semialgebraic.regions import joint_regions
    regs = jsonable([r.to_json() for r in joint_regions([net], domain=None, budget=Budget(10, 100),
                                                        state={}, multipliers=True)])
    X = fd.inputs[:1]
    assert is_regions_rank(net, regs, None, fd.upper, X)
    assert not is_regions_rank(net, regs, None, fd.upper, [])          # fd defined? no input says
    assert not is_regions_rank(net, regs, None, fd.upper - 1, X)
    assert not is_regions_rank(net, regs[1:], None, fd.upper, X)       # not a cover
