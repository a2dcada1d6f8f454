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


# -- s53 delta audit: the region walk on weights of mixed huge scales --------------------------------

_WIDE = {"crash_step": [{"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["2776405648835863343047316/6368714734935700745492941"], ["-1499897264498093677905628/406503887678111148303283"]], "bias": ["9415344542185137069100354/7219520714709875079791941", "5826845223567418497361359/6975039350541784866770135"]}, {"weight": [["1132217691591029368681634/105006581558054698381167", "-7233867592185226456188050/4928023634618925770737227"], ["-4445609763343902866174422/8691782229825957346212029", "635263857905960859448687/6579059285734506526266461"], ["5818788647041456568649991/3851990419463490905831607", "-7778208199177164679499872/6646130186963363529064705"], ["5922240891790254781006199/5723519086445195899685485", "-9887139268020785287726946/2550512225318710436735557"]], "bias": ["792579053432033998982212/11153546210976327735351", "-8944020668714512071236999/7050619449733305404096203", "-7668773929217897688041123/4587082922017860095489759", "-5904387694450043917648718/4049419134732951769323389"]}, {"weight": [["-5835108335447445689568054/1911123692301401627524115", "2274398923467705070369881/3063715160316553107955349", "673833835132739140098213/509452817325910959051253", "7521641642782485071697946/9556112896377121493304217"]], "bias": ["-5036352818639519756576155/9142084840472016976643553"]}]}, {"box": [["-100000000000000000000/1", "200000000000000000000/1"]]}, 7], "crash_overflow": [{"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["681581030938070068529894/4970936636708291187523867"], ["-1409726946773465625938295/653673319870795172864977"], ["-9053556867971629860317051/8162719948935894667967451"], ["26439414784590414056406/180687008875576386823867"], ["8115120861305101315920405/6605733727374843252402743"]], "bias": ["1858285513615561622825251/5973794034295111258937731", "-3124955174155926138627837/3832870987189433986323653", "-7465677052128902904629537/5897184459086649126229741", "2949849794567854986411063/8641726198521998483835095", "4400185012929976993218686/5537718831533382008913915"]}, {"weight": [["7588843010514027551318284/3378321104827513546122105", "-2038314891557620368897074/3894030078109112876545009", "-6939939770285693315220942/2846332239593955168981923", "-7327223979869940375260917/3305905131854524392916599", "9923856702431006567939054/1771705305812825759015935"], ["4760429460201459105320775/5762523112734511204681069", "-7212846842235879777249219/2560805653043201093018123", "2809191868295942608317604/3813117644174660240275209", "9605703547326689733250869/8274334589670471073178545", "2033940138253095962419180/3719607620343600785673563"], ["-4323902864390395747270405/1953930583199556086675347", "-4896896262329857625087743/4657786666071672845048769", "6066216083675650946866098/3759716826799103207861129", "6616897280726126239360946/4880004582773820540353991", "1603260465043601306687803/1595392886245455742234573"]], "bias": ["-105823426820878380317673/5593859348119800546050021", "-65739265986770139363818/24221520817125972668805", "1588266619036457718633226/3176013964539527725777119"]}, {"weight": [["6647726116945710275933794/5574668859013803577661585", "4417780656769804813610583/9610331899111461766050203", "-9530962699462315895305515/276679993024585752603817"]], "bias": ["-3778353147481346376283217/9166828283764525323729577"]}]}, {"box": [[-3, 3]], "halfspaces": [{"a": ["-8/7"], "b": "1/1"}]}, 6], "crash_step_k1": [{"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [{"weight": [["-500000000000000000000000000000/3", "0/1"], ["-1600000000000000000000000000000/1", "-1000000000000000000000000000000/1"], ["-5000000000000000000000000000000/1", "1400000000000000000000000000000/1"], ["50000000000000000000/1", "300000000000000000000/1"]], "bias": ["-40000000000000000000/1", "-180000000000000000000/1", "-4000000000000000000000000000000/3", "-600000000000000000000/1"]}, {"weight": [["-200000000000000000000/1", "500000000000000000000/7", "-4000000000000000000000000000000/1", "50000000000000000000/1"], ["-7000000000000000000000000000000/1", "3500000000000000000000000000000/3", "-800000000000000000000000000000/1", "-100000000000000000000/1"], ["1000000000000000000000000000000/7", "100000000000000000000/1", "-2000000000000000000000000000000/1", "-1000000000000000000000000000000/1"], ["2000000000000000000000000000000/1", "300000000000000000000/1", "300000000000000000000/1", "-2000000000000000000000000000000/1"]], "bias": ["-25000000000000000000/1", "7000000000000000000000000000000/3", "3500000000000000000000000000000/1", "-3000000000000000000000000000000/7"]}, {"weight": [["1000000000000000000000000000000/7", "50000000000000000000/3", "400000000000000000000/1", "225000000000000000000/1"], ["-3500000000000000000000000000000/1", "-5000000000000000000000000000000/7", "2000000000000000000000000000000/1", "-40000000000000000000/1"]], "bias": ["-1000000000000000000000000000000/3", "-180000000000000000000/1"]}, {"weight": [["6000000000000000000000000000000/7", "1000000000000000000000000000000/1"]], "bias": ["800000000000000000000000000000/1"]}]}, {"box": [[-3, 2], [-3, 2]]}, 67]}
"""Three nets of the delta audit with their domains and region counts (its own exact oracle):
25-digit rationals (1-2-4-1 on [-1e20, 2e20]; 1-5-3-1 on [-3, 3] cut by a half-space) and small
rationals times 10^20 or 10^30 (2-4-4-2-1)."""


@pytest.mark.parametrize("name", sorted(_WIDE))
def test_regions_of_weights_of_mixed_huge_scales(name, tmp_path):
    """s53 delta audit F2 (older than the session): the walk stopped with "could not step across
    facet" or "OverflowError: int too large to convert to float" (its float guesses took rows past
    1e308, and a step guessed without them was 10^100 times too long).  Rows past 2^500 are
    scaled in floats by a power of two (the step's length scaled back), and a step without a
    guess starts small against its direction."""
    net, dom, want = _WIDE[name]
    (tmp_path / "n.json").write_text(json.dumps(net))
    (tmp_path / "d.json").write_text(json.dumps(dom))
    from semialgebraic.commands.common import load_network
    from algebra.io.domain_text import domain_from_data
    n = load_network(str(tmp_path / "n.json"))
    d = domain_from_data(dom, n.n_inputs, "d.json")
    assert nf.number_of_regions(n, domain=d) == want


def test_an_infinite_timeout_is_no_deadline():
    """s53 delta audit F3: ``timeout=float('inf')`` or ``1e300`` raised a bare OverflowError."""
    assert nf.number_of_regions(_net(), timeout=float("inf")) == nf.number_of_regions(_net())
    assert nf.number_of_regions(_net(), timeout=1e300) == nf.number_of_regions(_net())
