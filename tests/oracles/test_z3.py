"""Sanity tests of the z3 oracle (``tests/oracles/z3.py``) on pairs whose answer is known."""

from algebra.network import Network
from algebra.rationals import Q
from tests.oracles.z3 import z3_equivalent, z3_feasible, z3_witness


def test_oracle_on_known_pairs():
    absx = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
    same = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])
    assert z3_equivalent(absx, same) is True
    bump = Network.from_rows([[[1], [1], [1]], [[1, -2, 1]]],
                             [[Q(-1, 10**6), Q(-2, 10**6), Q(-3, 10**6)], [0]])
    zero = Network.from_rows([[[1]], [[0]]], [[0], [0]])
    assert z3_equivalent(bump, zero) is False
    x = z3_witness(bump, zero)
    assert bump(x) != zero(x)
    assert z3_equivalent(bump, zero, domain=(1, 2)) is True
    assert z3_equivalent(absx, Network.from_rows([[[1]], [[1]]], [[0], [0]]), "orthant") is True


def test_feasibility_oracle_on_known_systems():
    # x0 + x1 = 1, x0 < 0, x1 <= 0: infeasible;  with x1 <= 2: feasible
    assert z3_feasible([[1, 1]], [1], [[1, 0]], [0], [[0, 1]], [0], 2) is False
    assert z3_feasible([[1, 1]], [1], [[1, 0]], [0], [[0, 1]], [2], 2) is True
