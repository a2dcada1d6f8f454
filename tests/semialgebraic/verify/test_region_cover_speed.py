"""The faster ``region_cover`` checker computes what the plain one did: :func:`neighbour_pattern`
(rows recomputed only after a sign change, proportional rows found by direction) against the
plain rule written here (every layer's rows recomputed from the pattern so far, every neuron
tested with ``is_proportional``), on the regions of networks with two and three hidden layers;
JSON numbers read once per check (:class:`_Numbers`) refuse what ``parse_number`` refuses."""

import random
from fractions import Fraction

import pytest

from algebra.exceptions import InputError
from algebra.kernel import difference_network, is_proportional
from algebra.network import Network
from semialgebraic.distributed import distributed_regions
from semialgebraic.verify import verify
from semialgebraic.verify.region_cover import (_Numbers, apply_reduction, directions,
                                               neighbour_pattern, neuron_rows)


def _plain_neighbour(net, pattern, g, old_rows):
    """The rule of the module docstring, computed the plain way (the checker before the speed-up)."""
    sub, k = list(pattern), 0
    for l in range(net.depth - 1):
        width = net.widths[l + 1]
        rows = neuron_rows(net, sub) if l else None
        for i in range(width):
            if is_proportional(old_rows[k + i], g) is None:
                continue
            nu = is_proportional(old_rows[k + i] if l == 0 else rows[k + i], g)
            assert nu is not None
            sub[k + i] = -((nu > 0) - (nu < 0))
        k += width
    return tuple(sub)


def _net(widths, seed):
    rng = random.Random(seed)
    Ws = [[[f"{rng.randint(-8, 8)}/8" for _ in range(a)] for _ in range(b)] for a, b in zip(widths, widths[1:])]
    bs = [[f"{rng.randint(-8, 8)}/8" for _ in range(b)] for b in widths[1:]]
    return Network.from_rows(Ws, bs)


@pytest.mark.parametrize("widths, seed", [((2, 6, 5, 1), 0), ((2, 5, 4, 4, 1), 1), ((3, 4, 4, 3, 1), 2)])
def test_neighbour_pattern_is_the_plain_rule_on_every_facet(widths, seed):
    net = _net(widths, seed)
    r = distributed_regions(net, [(-1, 1)] * widths[0], workers=0)
    cert = r.certificate
    assert r.verified and verify(cert)[0] and len(cert["regions"]) > 10
    dprime = apply_reduction(difference_network(net, net), cert["reduction"])
    n, facets = dprime.n_hidden, 0
    for reg in cert["regions"]:
        pat = tuple(reg["pattern"])
        rows = neuron_rows(dprime, pat)
        dirs = directions(rows)
        for f in reg["facets"]:
            if f >= n:
                continue
            g = tuple(-v for v in rows[f]) if pat[f] < 0 else rows[f]
            fast = neighbour_pattern((dprime,), pat, g, rows, dirs)
            assert fast == neighbour_pattern((dprime,), pat, g, rows)     # directions computed inside
            assert fast == _plain_neighbour(dprime, pat, g, rows)
            assert list(fast) == cert["regions"][reg["neighbours"][reg["facets"].index(f)]]["pattern"]
            facets += 1
    assert facets > 20


def test_numbers_read_once_refuse_what_parse_number_refuses():
    read = _Numbers()
    assert read.vector([1, "1/2", "2/4", 0], "v", 4) == [1, read.number("1/2", "x"), read.number("1/2", "x"), 0]
    assert read.vector([1, "1/2"], "v", 2) == read.vector([1, "1/2"], "v", 2)     # remembered
    for bad in ([True, 1], [1, 1.5], [1, [2]], [1, "x"], [1, None]):
        with pytest.raises(InputError):
            read.vector(bad, "v", 2)
    with pytest.raises(InputError):
        read.vector([1, 2, 3], "v", 2)
    with pytest.raises(InputError):
        read.number(False, "x")


def test_numbers_remembered_stay_bounded(monkeypatch):
    monkeypatch.setattr(_Numbers, "MEMO", 4)
    read = _Numbers()
    values = read.vector([f"{k}/7" for k in range(10)], "v", 10)
    assert [str(v) for v in values] == [f"{k}/7" if k % 7 else str(k // 7) for k in range(10)]
    assert len(read.memo) <= 4 and read.number("3/7", "x") == values[3]


def test_rows_of_a_network_without_hidden_layer_and_of_deeper_ones():
    assert neuron_rows(Network.from_rows([[[1, 2]]], [[3]]), ()) == []
    net = _net((2, 3, 2, 2, 1), 5)
    for pattern in [(1, -1, 1, 1, 1, -1, 1), (-1, -1, -1, 1, -1, 1, -1), (1, 1, 1, 1, 1, 1, 1)]:
        rows = neuron_rows(net, pattern)
        x = [Fraction(1, 3), Fraction(-2, 5)]
        # the rows are the pre-activations wherever the network has this pattern: compare with
        # an evaluation that forces the pattern's masks
        h, k, pre = x, 0, []
        for l in range(net.depth - 1):
            W, b = net.layer(l)
            z = [sum((Fraction(str(W[i, j])) * h[j] for j in range(len(h))), Fraction(0)) + Fraction(str(b[i]))
                 for i in range(W.nrows)]
            pre += z
            h = [v if pattern[k + i] > 0 else Fraction(0) for i, v in enumerate(z)]
            k += W.nrows
        assert [Fraction(str(r[0])) * x[0] + Fraction(str(r[1])) * x[1] + Fraction(str(r[2])) for r in rows] == pre
