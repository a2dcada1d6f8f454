"""Near copies split neurons, not inputs, once few neurons are unstable (issue 15, ACAS Xu rows;
small near copies instead split inputs above d kinks, ``_small_pair``):
a float16 copy's kinks nearly coincide with the original's, so each unstable neuron has an
unstable twin (:func:`semialgebraic.bab.diff._twin_split`), and the search then splits inputs
only at nodes with more than ``_TWIN_SPLIT`` unstable neurons.  Oracles: the region walk's exact
maximum (:func:`semialgebraic.equivalence.max_deviation`) and the certificate checker."""

from __future__ import annotations

import pytest

from algebra.kernel import difference_network
from algebra.rationals import Q
from semialgebraic.bab import diff_bounds
from semialgebraic.bab import diff
from semialgebraic.bab.diff import _TWIN_SPLIT, _twin_split
from semialgebraic.bab.search import Engine
from semialgebraic.equivalence import max_deviation
from semialgebraic.verify import verify

from .test_bab_budget import near_pair
from .test_distributed_search import A, B


def _root(a, b, box):
    D = difference_network(a, b)
    engine = Engine([W.to_rows() for W in D.weights], [list(v) for v in D.biases], paired=True)
    ivs, _ = engine.node(box, {})
    return ivs, engine._state[engine._key(box, {})][1]


def test_a_float16_copy_is_a_near_copy_and_two_unrelated_nets_are_not():
    a, b = near_pair([2, 6, 6, 1], 0)
    box = [(Q(-1), Q(1))] * 2
    ivs, state = _root(a, b, box)
    unstable = [(l, j) for l, layer in enumerate(ivs[:-1]) for j, (lo, hi) in enumerate(layer) if lo < 0 < hi]
    assert unstable and _twin_split(ivs, state) == _TWIN_SPLIT
    assert _twin_split(*_root(A, B, box)) is None                 # random integer nets: input splits
    assert _twin_split(None, state) is None                       # an empty root


def _kinds(cert):
    """The kinds of split ("x" or "neuron") in a certificate's trees."""
    out, stack = set(), [ob["tree"] for ob in cert["objectives"]]
    while stack:
        node = stack.pop()
        if "split" in node:
            out.add("x" if node["split"][0] == "x" else "neuron")
            stack.extend(node["children"])
    return out


@pytest.mark.parametrize("widths,seed", [([2, 6, 6, 1], 0),
                                         pytest.param([3, 6, 6, 2], 1, marks=pytest.mark.slow)])
def test_a_near_copy_searched_by_neuron_splits_is_exact_and_certified(widths, seed, monkeypatch):
    """The root of these pairs has fewer than ``_TWIN_SPLIT`` unstable neurons: without the
    small-pair rule (``_SMALL_RELUS`` 0 here) neuron splits only (no ``"x"`` split in any tree);
    with it (the default at this size) inputs split above d kinks and neurons below.  Both
    answers are the region walk's exact maximum, certified."""
    a, b = near_pair(widths, seed)
    box = [(Q(-1), Q(1))] * widths[0]
    exact = max_deviation(a, b, (Q(-1), Q(1))).value
    r = diff_bounds(a, b, box)
    assert r.complete and r.lower == r.upper == exact
    assert verify(r.certificate)[0] and _kinds(r.certificate) == {"x", "neuron"}
    monkeypatch.setattr(diff, "_SMALL_RELUS", 0)
    r = diff_bounds(a, b, box)
    assert r.complete and r.lower == r.upper == exact
    assert verify(r.certificate)[0] and _kinds(r.certificate) == {"neuron"}
