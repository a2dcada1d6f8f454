"""n1 = 1: the user's network lies in a listed component of its own fiber, as given (no
permutation applied) — three-layer-fibers R16a lists strata with rows in a fixed order (kink rows,
linear rows, dead rows); the component of the network's own stratum is rewritten in the network's
row order (`semialgebraic/bottleneck/fiber.py` `_own_order`).  Found by `tests.fuzz.verdicts`
seed 91000 (cases 35, 46, 51, 53, 61: "the net itself is in no component")."""

import random

import pytest

from algebra.network import Network
from semialgebraic import fiber
from tests.fuzz.verdicts import random_bottleneck

CASE35 = Network.from_rows([[["8/3", "-5"]], [["-8/3"], ["20/3"]], [["-26", "13/3"], ["34/3", "-7/4"]]],
                           [["-1/2"], ["8", "-31/3"], ["-2", "0"]])


def _swap_rows(net):
    W1, W2, W3 = (W.to_rows() for W in net.weights)
    b1, b2, b3 = (list(b) for b in net.biases)
    return Network.from_rows([W1, W2[::-1], [r[::-1] for r in W3]], [b1, b2[::-1], b3])


def test_the_case_found_by_the_fuzzer():
    f = fiber(CASE35)
    assert not f.partial and len(f.components) == 1 and f.number_of_components == 2
    (c,) = f.components
    assert c.contains(CASE35) and not c.contains(_swap_rows(CASE35))
    assert c.contains(c.representative) and c.dimension.value == f.dimension.value
    assert f.contains(_swap_rows(CASE35)) is True       # the fiber itself: up to permutation
    g = fiber(_swap_rows(CASE35))                         # the other order: its own component
    assert g.components[0].contains(_swap_rows(CASE35)) and not g.components[0].contains(CASE35)
    assert g.components[0].label == c.label


@pytest.mark.parametrize("seed", range(40))
def test_random_one_neuron_bottlenecks_lie_in_their_own_fiber(seed):
    rng = random.Random(7700 + seed)
    for _ in range(60):
        net = random_bottleneck(rng)
        if net.widths[1] == 1 and net.widths[2] >= 2:
            break
    else:
        pytest.skip("no n1 = 1 net drawn")
    try:
        f = fiber(net)
    except Exception as exc:                              # refused (non-generic): nothing listed
        assert type(exc).__name__ in ("NonGenericError", "NotApplicableError", "UndecidedError")
        return
    assert sum(c.contains(net) for c in f.components) == 1
    assert all(c.representative is None or c.contains(c.representative) for c in f.components)
    swapped = _swap_rows(net)
    assert any(c.contains(swapped) for c in fiber(swapped).components)
