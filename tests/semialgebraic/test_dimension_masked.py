"""``dim`` without the region walk: masked neurons proven by branch-and-bound emptiness, and
neurons dead or unseen through dead inputs (three-layer-fibers R35).

The planted nets are dim-campaign cases (``tests/fuzz/dim_campaign.py``, kind masked / near_masked,
the seed named), written out here; their values are the campaign oracle's (z3 regions, its own
chain rule, rank over Q), recorded.  ``max_regions=0``: no walk, no pattern list.
"""

from __future__ import annotations

import copy

import pytest

from algebra.exceptions import InputError
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.dimension import functional_dimension, functional_dimension_certificate
from semialgebraic.dimension.upper import checked_directions_bound, inputs_dead_entries
from semialgebraic.sets import normalize_domain
from semialgebraic.verify import verify


def _net(layers) -> Network:
    return Network.from_rows([[[Q(v) for v in r] for r in W] for W, _ in layers],
                             [[Q(v) for v in b] for _, b in layers])


# (seed, domain, the planted masked neuron, the oracle's functional dimension, the layers)
PLANTED = [
    (5043, (Q(-1, 3), Q(5, 7)), (0, 1), 6,
     [([['2', '3/2'], ['3/2', '2']], ['-3', '-1']),
      ([['-1/3', '1'], ['-2', '1'], ['-1', '4']], ['-19/12', '-1/4', '-1/4']),
      ([['-1', '4/3', '-4']], ['0'])]),
    (5015, "orthant", (0, 1), 10,
     [([['0', '-1'], ['4', '-4']], ['-1/3', '-1']),
      ([['0', '1'], ['-3', '2'], ['-1/2', '1'], ['3/2', '0'], ['-4/3', '1']], ['-1/4', '-1/4', '-9/4', '-4/3', '-5/4']),
      ([['1', '1', '1', '0', '4']], ['1'])]),
    (5023, None, (0, 1), 43,
     [([['0', '3/2', '-2/3'], ['0', '0', '1'], ['-4/3', '1', '0'], ['0', '-1/3', '3/2']], ['-1', '0', '-1', '-2']),
      ([['-4', '2', '0', '-2/3'], ['0', '1/3', '-1', '-4'], ['0', '3', '-4', '-4/3'], ['-2', '3', '-1/2', '-2'],
        ['0', '4', '-3', '-3']], ['-9/4', '-5/4', '-1/4', '-1/4', '-9/4']),
      ([['3', '0', '1/2', '-3', '2'], ['1', '-4', '3', '4', '-2/3']], ['4/3', '-3'])]),
    (5102, (Q(-1), Q(1)), (0, 1), 5,
     [([['4'], ['-3/2']], ['0', '0']),
      ([['-3', '1'], ['-4', '2'], ['-2/3', '1'], ['-4/3', '2']], ['-13/4', '-5/4', '-7/4', '-9/4']),
      ([['0', '1', '1', '4'], ['1', '-4', '-2', '0']], ['2', '-1']),
      ([['1', '-1']], ['0'])]),
    (5100, None, (0, 1), 40,
     [([['-4', '3', '2'], ['-2', '-2', '-1'], ['3', '2', '2']], ['-2', '1/3', '1']),
      ([['0', '0', '2'], ['-3', '0', '3'], ['0', '3/2', '0'], ['2', '0', '-4'], ['0', '3', '0']],
       ['1', '1', '-17/4', '-4', '-5/4']),
      ([['3', '0', '4/3', '-3/2', '-1/2'], ['1', '1', '3/2', '0', '1'], ['0', '0', '-1', '1/2', '-4'],
        ['0', '2', '-2', '1', '-1']], ['1/3', '1', '0', '2']),
      ([['0', '3', '-4/3', '-2']], ['3/2'])]),
]

# dim campaign seed 5008, kind near_masked, on R: (0,0) dead, (1,0) = -1/2·h0[0] + 0 is zero,
# its successors (2,0), (2,1) seen by the output with one sign (R35 (c), (d)); oracle 1
SEED_5008 = [([['0'], ['-1'], ['2/3']], ['-2', '-3/2', '-3/2']),
             ([['-1/2', '0', '0'], ['3', '-2', '3'], ['-2', '-3/2', '-2/3'], ['3', '-2', '1']], ['0', '4', '1/2', '3']),
             ([['1', '0', '-3/2', '-2'], ['2/3', '-4', '-2', '0'], ['0', '-1', '-1', '-1']],
              ['1/1000000', '1/1000000', '-4/3']),
             ([['1/3', '3/2', '0']], ['2'])]


def _rejected(cert) -> bool:
    try:
        return not verify(cert)[0]
    except InputError:
        return True


def _deintern(cert) -> list:
    """The certificate's entries with their shared-proof references replaced by the objects."""
    table = cert.get("shared_proofs") or []

    def ref(P):
        return {**P, "shared": table[P["shared"]]} if isinstance(P, dict) and isinstance(P.get("shared"), int) else P
    out = []
    for e in cert["upper_directions"]:
        if e[0] == "free":
            e = [e[0], e[1], ref(e[2])]
        elif e[0] in ("dead_proof", "active_proof"):
            e = [*e[:3], ref(e[3])]
        elif e[0] == "masked":
            e = [*e[:3], [ref(P) for P in e[3]]]
        elif e[0] == "fixed_successors":
            e = [*e[:4], ref(e[4])]
        out.append(e)
    return out


@pytest.fixture(scope="module")
def planted():
    """(net, domain, masked neuron, oracle value, result, certificate) per planted case."""
    out = {}
    for seed, dom, neuron, value, layers in PLANTED:
        net = _net(layers)
        fd = functional_dimension(net, domain=dom, max_regions=0)
        cert = functional_dimension_certificate(net, fd, domain=dom)      # verified (require_valid)
        out[seed] = (net, dom, neuron, value, fd, cert)
    return out


@pytest.mark.parametrize("seed", [p[0] for p in PLANTED])
def test_planted_masked_exact_without_the_walk(planted, seed):
    """Three-layer-fibers R35 (a): the masked neuron is proven from emptiness questions alone
    (no pattern list), its bias trade closes the sandwich at the oracle's value, and the
    certificate's masked entry carries one branch-and-bound proof per live successor."""
    net, dom, neuron, value, fd, cert = planted[seed]
    assert fd.details.get("patterns") is None                    # no complete walk
    assert neuron in fd.details["proven"]["masked"]
    assert fd.exact and fd.value == value
    assert cert["upper"] == value and verify(cert)[0]
    entries = [e for e in cert["upper_directions"] if e[0] == "masked" and (e[1], e[2]) == neuron]
    assert len(entries) == 1
    V = net.weights[neuron[0] + 1]
    live = [j for j in range(V.nrows) if V[j, neuron[1]] != 0]
    targets = sorted(tuple(t for t in P["targets"] if t[0] == neuron[0] + 1)[0][1] for P in entries[0][3])
    assert set(targets) <= set(live) and all("bab_tree" in P or "shared" in P for P in entries[0][3])
    # the masked direction is needed: without it the certified bound is one more
    rest = [e for e in _deintern(cert) if e[0] != "masked"]
    assert checked_directions_bound(net, rest, normalize_domain(dom, net.n_inputs), fd.inputs[:1]) == value + 1


def test_masked_mutations_rejected(planted):
    """A masked entry whose emptiness proof is dropped, whose proof is about the wrong
    successor, or a neuron that is not masked claimed masked (with another neuron's proofs): the
    checker rejects each (R35 (a))."""
    net, dom, (l, i), value, fd, cert = planted[5043]
    k = next(n for n, e in enumerate(cert["upper_directions"]) if e[0] == "masked")
    proofs = cert["upper_directions"][k][3]
    # successor (1, 0) is dead (its dead_proof entry): one proof each for (1, 1), (1, 2)
    assert sorted(P["targets"][1][1] for P in proofs) == [1, 2] and verify(cert)[0]
    dropped = copy.deepcopy(cert)
    del dropped["upper_directions"][k][3][1]
    assert _rejected(dropped)
    none = copy.deepcopy(cert)
    none["upper_directions"][k][3] = []
    assert _rejected(none)
    wrong = copy.deepcopy(cert)                  # one successor's proof relabelled as the other's
    P = wrong["upper_directions"][k][3]
    P[1] = copy.deepcopy(P[0])
    P[1]["targets"] = [[l, i, -1], [l + 1, 3 - P[0]["targets"][1][1], 1]]
    assert _rejected(wrong)
    dup = copy.deepcopy(cert)                    # two copies of one successor's proof, one missing
    dup["upper_directions"][k][3][1] = copy.deepcopy(dup["upper_directions"][k][3][0])
    assert _rejected(dup)
    other = copy.deepcopy(cert)                  # neuron (0, 0) is not masked: (1, 1) is on where it is off
    other["upper_directions"][k] = ["masked", l, 0, copy.deepcopy(proofs)]
    assert _rejected(other)
    assert _rejected(dict(cert, upper=cert["upper"] - 1))


def test_zero_neuron_unseen_seed_5008():
    """Three-layer-fibers R35 (c), (d): [1, 14] without the walk before; exact 1 (the oracle's)
    now, certified by an ``unseen`` entry naming the two successors made inactive."""
    net = _net(SEED_5008)
    fd = functional_dimension(net, domain=None, max_regions=0)
    assert fd.details.get("patterns") is None
    assert fd.exact and fd.value == 1
    cert = functional_dimension_certificate(net, fd, domain=None)
    assert cert["upper"] == 1 and verify(cert)[0]
    unseen = [e for e in cert["upper_directions"] if e[0] == "unseen"]
    assert unseen == [["unseen", 1, 0, [0, 1]]]
    k = cert["upper_directions"].index(unseen[0])
    for bad in (["unseen", 1, 1, []],            # (1, 1) has live inputs
                ["unseen", 1, 0, [0, 1, 2]],     # (2, 2): zero weight from (1, 0), c = 0
                ["unseen", 2, 0, []],            # the last hidden layer: nothing above but outputs
                ["dead_inputs", 1, 1]):          # live inputs, positive bias
        mutated = copy.deepcopy(cert)
        mutated["upper_directions"][k] = bad
        assert _rejected(mutated), bad


def _gate(out_weights, bias1=0) -> Network:
    """d = 1; (0,0) = relu(-1) dead, (0,1) = relu(x); (1,0) = relu(h0[0] + bias1) (zero for
    bias1 = 0), (1,1) = relu(h0[1]); (2,0) = relu(h1[0] + h1[1] - 1), (2,1) = relu(2 h1[0] -
    h1[1] + 1/2); output weights *out_weights*.  Both of layer 2 are off at x = 3/4 (a
    differentiable input) and (2,0) or (2,1) is on elsewhere."""
    return _net([([['0'], ['1']], ['-1', '0']),
                 ([['1', '0'], ['0', '1']], [str(bias1), '0']),
                 ([['1', '1'], ['2', '-1']], ['-1', '1/2']),
                 ([out_weights], ['0'])])


def test_unseen_successors_need_one_sign():
    """R35 (d) needs one sign of c_j = W_{l+1}[j,i]·W_L[o,j] over the successors: with output
    weights (1, 2) both successors of the zero neuron (1, 0) are claimed dead (and the checker
    accepts); with (1, -2) none is, and a claim is rejected; the (c) directions stay valid."""
    same = _gate(['1', '2'])
    entries, dead = inputs_dead_entries(same, {(0, 0)})
    assert entries == [["unseen", 1, 0, [0, 1]]] and {(2, 0), (2, 1)} <= dead
    x = [(Q(3, 4),)]
    assert isinstance(checked_directions_bound(same, [["dead", 0, 0], *entries], None, x), int)
    mixed = _gate(['1', '-2'])
    entries, dead = inputs_dead_entries(mixed, {(0, 0)})
    assert entries == [["unseen", 1, 0, []]] and (2, 0) not in dead
    assert isinstance(checked_directions_bound(mixed, [["dead", 0, 0], *entries], None, x), int)
    assert isinstance(checked_directions_bound(mixed, [["dead", 0, 0], ["unseen", 1, 0, [0]]], None, x), str)
    # (1, 1) reads the live (0, 1): not zero, rejected
    assert isinstance(checked_directions_bound(same, [["unseen", 1, 1, []]], None, x), str)


def test_dead_through_inputs_negative_and_positive_bias():
    """R35 (b): bias -1 and only dead inputs: dead (accepted, the unit vectors of its rows);
    bias +1: a constant neuron, not dead: rejected."""
    neg, pos = _gate(['1', '2'], bias1=-1), _gate(['1', '2'], bias1=1)
    entries, dead = inputs_dead_entries(neg, {(0, 0)})
    assert entries == [["dead_inputs", 1, 0]] and (1, 0) in dead
    x = [(Q(3, 4),)]
    n_dead = checked_directions_bound(neg, [["dead", 0, 0], ["dead_inputs", 1, 0]], None, x)
    assert n_dead == neg.n_parameters - 8      # (0,0): W0[0,0], b0[0], W1[·,0]; (1,0): W1[0,1], b1[0], W2[·,0]
    assert inputs_dead_entries(pos, {(0, 0)})[0] == []
    assert isinstance(checked_directions_bound(pos, [["dead", 0, 0], ["dead_inputs", 1, 0]], None, x), str)


# dim campaign seeds 5001 (box [0, 2], widths 3-5-2-1) and 5040 (box [-1, 1], 3-2-5-2-1), kind
# masked: the masked neuron and always-active neurons of its layer are all active wherever the
# masked one's live successors are; oracle 13 and 17, both [., upper + 3 / + 1] before R35 (e)
PAIRS = [
    (5001, (Q(0), Q(2)), 13, [["masked_pair", 0, [0, 2]]],
     [([['-1/3', '-1/3', '-4/3'], ['4/3', '-1/2', '4'], ['1', '1', '4'], ['3', '-1/2', '0'], ['3', '0', '1/2']],
       ['3', '4', '-1', '1/2', '1']),
      ([['-1/2', '-2', '3', '-1/3', '-4'], ['-1', '0', '1', '-4/3', '-1']], ['-1/4', '-9/4']),
      ([['0', '-1']], ['-1/2'])]),
    (5040, (Q(-1), Q(1)), 17, [["masked_pair", 0, [1, 0]]],
     [([['-3', '3', '1/2'], ['0', '-2/3', '-1/2']], ['-1', '4/3']),
      ([['1', '-2/3'], ['1', '-3/2'], ['0', '2/3'], ['0', '-1'], ['3', '0']], ['-9/4', '-5/4', '-3', '1', '-5/4']),
      ([['3', '3/2', '0', '1', '2/3'], ['1', '4', '3/2', '-2/3', '-3']], ['-1/2', '0']),
      ([['-1', '4']], ['1'])]),
]


@pytest.mark.parametrize("seed,dom,value,bad,layers", PAIRS, ids=[str(p[0]) for p in PAIRS])
def test_masked_pairs_close_the_gap(seed, dom, value, bad, layers):
    """Three-layer-fibers R35 (e): GL directions between a masked neuron and the always-active
    (or masked) neurons active wherever its live successors are; exact at the oracle's value
    without the walk, the certificate verifies, each ``masked_pair`` is needed (dropping them
    raises the bound); a pair with a neuron neither always active nor masked (5001: (0, 0)) or
    whose first neuron has a live successor the masked second one's proofs do not cover (5040:
    the always-active (0, 1) feeds (1, 2), (1, 3), the masked (0, 0) does not), or a pair listed
    before the masked entry it relies on, is rejected."""
    net = _net(layers)
    fd = functional_dimension(net, domain=dom, max_regions=0)
    assert fd.details.get("patterns") is None and fd.exact and fd.value == value
    cert = functional_dimension_certificate(net, fd, domain=dom)
    assert cert["upper"] == value and verify(cert)[0]
    pairs = [e for e in cert["upper_directions"] if e[0] == "masked_pair"]
    assert pairs
    rest = [e for e in _deintern(cert) if e[0] != "masked_pair"]
    assert checked_directions_bound(net, rest, normalize_domain(dom, net.n_inputs), fd.inputs[:1]) > value
    for entry in bad:
        mutated = copy.deepcopy(cert)
        mutated["upper_directions"][mutated["upper_directions"].index(pairs[0])] = entry
        assert _rejected(mutated), entry
    moved = copy.deepcopy(cert)                  # a pair before the masked entry it relies on
    ups = moved["upper_directions"]
    ups.insert(0, ups.pop(ups.index(pairs[0])))
    assert _rejected(moved)
