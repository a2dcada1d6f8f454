"""Session 53: the public API's inputs and budgets (s53 API audit F3-F10)."""

import json

import numpy as np
import pytest

import netfibers as nf
from algebra.exceptions import InputError
from algebra.rationals import Q
from semialgebraic.exceptions import UndecidedError


def _net():
    return nf.Network.from_rows([[[1, 2], [3, -1]], [[1, -1]]], [[0, 1], [0]])


def test_a_network_without_outputs_is_refused_at_once():
    """F3: ``Network`` took a 0-output last layer; every analysis then failed with a bare
    ValueError and ``save`` wrote a file ``load`` refused."""
    with pytest.raises(InputError, match="at least one output"):
        nf.Network([[[1, 2]], np.zeros((0, 1), dtype=int)], [[0], []])


def test_a_constant_network_is_not_written_as_npz(tmp_path):
    """F9: a 0-width hidden layer was written to .npz, which ``load`` refused; it is refused at
    ``save`` (JSON keeps it)."""
    e = nf.Network([np.zeros((0, 1), dtype=int), np.zeros((1, 0), dtype=int)], [[], [5]])
    with pytest.raises(InputError, match="width 0"):
        nf.save(e, tmp_path / "e.npz")
    assert not (tmp_path / "e.npz").exists()
    nf.save(e, tmp_path / "e.json")
    assert nf.load(tmp_path / "e.json") == e


@pytest.mark.parametrize("samples, match", [("abc", "expected patterns"), (None, "expected patterns"),
                                            ([(2, 7)], "-1, 0 or 1"), ([("1", 1)], "-1, 0 or 1")])
def test_conservation_samples_are_checked(samples, match):
    """F4: a string gave a bare ValueError, None a TypeError, an entry 2 was read as active."""
    with pytest.raises(InputError, match=match):
        nf.conservation_laws(_net(), samples)
    assert nf.conservation_laws(_net(), [(1, 1)]).number_of_laws == 3


@pytest.mark.parametrize("call", [
    lambda n, T: nf.number_of_regions(n, timeout=T),
    lambda n, T: nf.functional_dimension(n, timeout=T),
    lambda n, T: nf.max_deviation(n, n, (-1, 1), timeout=T),
    lambda n, T: nf.diff_bounds(n, n, (-1, 1), timeout=T),
    lambda n, T: nf.equivalent(n, n, timeout=T)])
def test_a_timeout_that_is_no_number_is_an_input_error(call):
    """F5: a bare TypeError from the budget everywhere but ``equivalent``."""
    with pytest.raises(InputError, match="timeout must be a number"):
        call(_net(), "10")
    with pytest.raises(InputError, match="max_regions"):
        nf.number_of_regions(_net(), max_regions=-1)


def test_the_cube_shorthand_takes_half_spaces_too():
    """F8 (a): ``{"box": [lo, hi], "halfspaces": …}`` (README's form) said "an interval is not
    [lo, hi]" everywhere.  It is the cube cut by the half-spaces: the same answers as the
    per-coordinate spelling."""
    a = _net()
    b = a.with_parameter("W2[0,0]", 2)
    short = {"box": [-1, 1], "halfspaces": [{"a": [1, 1], "b": 0}]}
    long = {"box": [[-1, 1], [-1, 1]], "halfspaces": [{"a": [1, 1], "b": 0}]}
    r1, r2 = nf.diff_bounds(a, b, short), nf.diff_bounds(a, b, long)
    assert (r1.lower, r1.upper) == (r2.lower, r2.upper) and r1.complete
    # the truth: |a - b| = relu(x0 + 2 x1) on the cut, largest at (-1, 1): 1
    assert r1.lower == Q(1)
    assert nf.equivalent(a, b, domain=short).answer is False


def test_saving_a_float64_as_float32_names_the_dtype(tmp_path):
    """F8 (b): the refusal named float32 only; it says the value is a float64 and how to write it."""
    m = nf.Network.from_rows([[[nf.from_float(0.1)]], [[1]]], [[0], [0]])
    with pytest.raises(InputError, match="dtype='float64'"):
        nf.save(m, tmp_path / "m.npz")
    nf.save(m, tmp_path / "m.npz", dtype="float64")
    assert nf.load(tmp_path / "m.npz") == m


def test_undecided_is_said_once():
    """F8 (c): "undecided: undecided: timeout …"."""
    assert str(UndecidedError("undecided: timeout of 1 s reached")) == "undecided: timeout of 1 s reached"
    assert str(UndecidedError("timeout of 1 s reached")) == "undecided: timeout of 1 s reached"


def test_bad_points_and_sample_counts_are_refused():
    """F10: a point of another length was skipped without a word; ``samples=-1`` accepted."""
    a = _net()
    with pytest.raises(InputError, match="coordinates"):
        nf.diff_bounds(a, a, (-1, 1), points=[[1]])
    for bad in (-1, "3", 2.5):
        with pytest.raises(InputError, match="samples"):
            nf.could_be_equivalent(a, a, samples=bad)


def test_conservation_laws_of_a_wide_net_under_a_tiny_timeout_keep_the_rescaling_laws():
    """F6: 8-64-64-4 with ``timeout=0.01`` took 2.3-3.4 s (every generator lookup hashed the ring's
    4 996 names; now 1.25 s, measured by hand); the laws' own second remains, so the lower bound
    keeps the 128 rescaling laws (three-layer-fibers R23)."""
    import random
    rng = random.Random(3)
    widths = [8, 64, 64, 4]
    W = [[[Q(rng.randint(-9, 9), rng.randint(1, 7)) for _ in range(widths[i - 1])]
          for _ in range(widths[i])] for i in range(1, 4)]
    B = [[Q(rng.randint(-9, 9), rng.randint(1, 7)) for _ in range(widths[i])] for i in range(1, 4)]
    net = nf.Network.from_rows(W, B)
    pats = [tuple(rng.choice((0, 1)) for _ in range(128)) for _ in range(3)]
    r = nf.conservation_laws(net, pats, timeout=0.01)
    assert r.lower >= 128 and r.upper >= r.lower   # the rescaling laws (R23) of 128 neurons


# -- s53 deep audit -----------------------------------------------------------------------------

_TRADE = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["2", "-1/3", "3", "4"], ["5/4", "-6", "-1/2", "-3"], ["1/4", "-2", "-1", "-3/2"], ["1/2", "-1", "6/7", "-2/5"], ["-5", "1/4", "0", "1"], ["1", "0", "0", "0"]], "bias": ["0", "6/7", "-2/5", "-6", "3/5", "2"]}, {"weight": [["-6/5", "3/5", "5/2", "-6/7", "-3/2", "4"], ["-5/4", "-1", "-2/7", "-1/2", "6/5", "-3"]], "bias": ["4/3", "0"]}, {"weight": [["-2/7", "5/7"], ["5/3", "1"], ["1", "0"], ["2", "-3/4"], ["-3", "1/2"]], "bias": ["-1", "3/7", "4", "-3/2", "3"]}, {"weight": [["5/2", "2/7", "-1", "5/7", "5/2"], ["1/3", "-1/7", "2", "1/4", "-6/7"], ["-3/5", "-3/4", "1/2", "6/7", "-2"]], "bias": ["-5/2", "5/7", "5/2"]}, {"weight": [["5", "0", "0"], ["-1", "1", "5"]], "bias": ["6/5", "-3/2"]}]}
"""A 4-6-2-5-3-2 net (the deep audit's case 4134): its last first-layer neuron, x0 + 2, is active on
all of [-2, 2]^4 (three-layer-fibers S4: the linear block's bias can be traded into the next layer)."""


def _traded(net: dict) -> dict:
    """*net* with the always-active neuron's bias raised by 1 and the next layer's biases lowered by
    its outgoing weights: the same function on [-2, 2]^4, other parameters."""
    out = json.loads(json.dumps(net))
    first, second = out["layers"][0], out["layers"][1]
    first["bias"][5] = str(Q(first["bias"][5]) + 1)
    second["bias"] = [str(Q(c) - Q(row[5])) for c, row in zip(second["bias"], second["weight"])]
    return out


def test_diff_tries_exact_equality_on_a_cube_where_the_pair_agrees_at_samples(tmp_path, capsys):
    """s53 deep audit F1: an equal pair too large for the walk (32 hidden neurons in R^4) went to
    branch and bound alone, which stayed at [0, 116.8] after 20 s; ``equiv`` proves it in 2 s.  A
    pair that agrees at the sample points now gets exact equality first: [0, 0], exit 0."""
    from semialgebraic.cli import main
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(_TRADE))
    pb.write_text(json.dumps(_traded(_TRADE)))
    assert main(["diff", str(pa), str(pb), "--box", "-2,2", "--timeout", "60", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["lower"] == data["upper"] == "0" and data["method"].startswith("equality")
    a, b = nf.load(pa), nf.load(pb)
    assert a != b and nf.equivalent(a, b, domain=(-2, 2)).answer is True


_BUMP_A = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["1", "1/2"], ["3/2", "-1"], ["2", "-1/2"], ["1", "1"], ["1", "0"], ["-1", "0"], ["0", "1"], ["0", "-1"]], "bias": ["0", "3", "-3", "1", "-1", "1", "1", "-1"]}, {"weight": [["1", "0", "1", "3", "0", "0", "0", "0"], ["1", "-3/7", "0", "-3/2", "0", "0", "0", "0"], ["0", "0", "0", "0", "-1", "-1", "-1", "-1"]], "bias": ["5/3", "-5/4", "1/1000000"]}, {"weight": [["4", "0", "0"], ["5/7", "1", "0"], ["0", "0", "1"]], "bias": ["-5", "1/5", "0"]}, {"weight": [["-5/3", "-5/4", "0"], ["-4", "-5/2", "0"], ["0", "0", "1"]], "bias": ["-3/2", "5", "0"]}, {"weight": [["-1", "3/7", "0"]], "bias": ["-5/4"]}]}
_BUMP_B = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["1", "1/2"], ["3/2", "-1"], ["2", "-1/2"], ["1", "1"], ["1", "0"], ["-1", "0"], ["0", "1"], ["0", "-1"]], "bias": ["0", "3", "-3", "1", "-1", "1", "1", "-1"]}, {"weight": [["1", "0", "1", "3", "0", "0", "0", "0"], ["1", "-3/7", "0", "-3/2", "0", "0", "0", "0"], ["0", "0", "0", "0", "-1", "-1", "-1", "-1"]], "bias": ["5/3", "-5/4", "1/1000000"]}, {"weight": [["4", "0", "0"], ["5/7", "1", "0"], ["0", "0", "1"]], "bias": ["-5", "1/5", "0"]}, {"weight": [["-5/3", "-5/4", "0"], ["-4", "-5/2", "0"], ["0", "0", "1"]], "bias": ["-3/2", "5", "0"]}, {"weight": [["-1", "3/7", "3"]], "bias": ["-5/4"]}]}


def test_verify_states_the_lower_bound_an_epsilon_refutation_rests_on(tmp_path, capsys):
    """s53 deep audit F2: ``equiv --epsilon E`` on R^d refuted with a point where |a - b| = 3e-6 > E,
    and ``verify`` of its certificate stated only "<= 305.55" (the bound on all of R^d, R28), not
    the lower bound the verdict rests on, which it checks."""
    from semialgebraic.cli import main
    pa, pb, cert = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "c.json"
    pa.write_text(json.dumps(_BUMP_A))
    pb.write_text(json.dumps(_BUMP_B))
    assert main(["equiv", str(pa), str(pb), "--epsilon", "2999999999999999/1000000000000000000000",
                 "--certificate", str(cert)]) == 1
    capsys.readouterr()
    assert main(["verify", str(cert), "--exact"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("VALID") and "max |a - b| >= 3/1000000 (attained at the point)" in out
