"""Session 54: networks of huge exact weights (s53 delta audit F1): budgets inside the limb
splitting, and certificates whose exact values are longer than the weights' digit limit."""

import json
import random
import threading
from pathlib import Path

import numpy as np
import pytest
from flint import fmpq, fmpz

from algebra.exceptions import ParseError
from algebra.kernel.limbs import LimbArith
from algebra.linalg.evaluation import _split_limbs
from algebra.rationals import CERTIFICATE_DIGITS, MAX_DIGITS, digit_limit, to_q


class _Stop(Exception):
    pass


def test_split_limbs_calls_its_check_before_each_limb():
    """F1: splitting 10^5-bit integers into int64 limbs ran minutes in numpy's C loops with no
    budget check (``diff --timeout 20`` took 232 s); *check* is now called per limb."""
    a = np.array([3 ** 20_000, -(5 ** 9_000), 7], dtype=object)
    calls = []
    limbs = _split_limbs(np, a, 20, lambda: calls.append(1))
    assert len(calls) == len(limbs) - 1 and len(limbs) == -(-(3 ** 20_000).bit_length() // 20)
    value = sum(int(l[0]) << (20 * k) for k, l in enumerate(limbs))
    assert value == 3 ** 20_000

    def stop_after(n):
        count = [0]

        def check():
            count[0] += 1
            if count[0] > n:
                raise _Stop
        return check
    with pytest.raises(_Stop):
        _split_limbs(np, a, 20, stop_after(3))


def test_limb_arithmetic_checks_its_budget_on_long_integers():
    """The kernel knows no budget: ``LimbArith(check=…)`` is called between limbs of a split, a
    product and a conversion back (the symbolic bounds pass ``checkpoint``)."""
    calls = []
    A = LimbArith(np, 4, lambda: calls.append(1))
    x = A.split(np.array([[2 ** 3000 + 1, -3, 5, 0]], dtype=object))
    n_split = len(calls)
    assert n_split == len(x) - 1
    y = A.prepare(A.split(np.array([[1], [2], [3], [2 ** 500]], dtype=object)))
    calls.clear()
    prod = A.matmul(x, y)
    assert calls and A.ints(prod).tolist() == [[2 ** 3000 + 1 - 6 + 15]]
    assert LimbArith(np, 4).check() is None            # default: no check


def test_digit_limit_widens_to_q_in_its_block_and_thread_only():
    long = "7" * 20_000 + "/" + "3" * 15_000
    with pytest.raises(ParseError, match=f"more than {MAX_DIGITS}"):
        to_q(long)
    with pytest.raises(ParseError, match="digits"):
        to_q(10 ** 15_000)
    seen = []
    with digit_limit(CERTIFICATE_DIGITS):
        assert to_q(long) == fmpq(fmpz("7" * 20_000), fmpz("3" * 15_000))
        assert to_q(10 ** 15_000) == 10 ** 15_000

        def other():                                   # another thread keeps the default
            try:
                to_q(long)
            except ParseError:
                seen.append("refused")
        t = threading.Thread(target=other)
        t.start()
        t.join()
        with pytest.raises(ParseError, match=f"more than {CERTIFICATE_DIGITS}"):
            to_q("1" * (CERTIFICATE_DIGITS + 1))
    assert seen == ["refused"]
    with pytest.raises(ParseError):                    # restored after the block
        to_q(long)


def _huge_pair(tmp_path):
    """1-1-1 networks whose weights have 4 900-digit numerators and denominators (each within
    the input limit); a − b at a point has about 9 800 digits in each, 19 600 characters."""
    rng = random.Random(54)
    big = lambda: str(fmpz(rng.randrange(10 ** 4899, 10 ** 4900)))   # noqa: E731  (no str limit)
    w1, w2 = f"{big()}/{big()}", f"{big()}/{big()}"
    a = {"format": "netfibers.network", "version": 1, "activation": "relu",
         "layers": [{"weight": [[w1]], "bias": ["0"]}, {"weight": [[w2]], "bias": ["0"]}]}
    b = json.loads(json.dumps(a))
    b["layers"][1]["weight"] = [["0"]]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    return pa, pb, to_q(w1) * to_q(w2)


def test_a_certificate_with_values_longer_than_the_weights_verifies(tmp_path, capsys):
    """s54: ``diff`` of a pair with 12-digit weights times 10^±25 ended "malformed certificate:
    … more than 10000 characters", exit 2: its own in-process check refused the exact lower
    bound (41 460 characters) it had just computed.  Certificates are now read with a wider
    limit (``CERTIFICATE_DIGITS``)."""
    from semialgebraic.cli import main
    pa, pb, slope = _huge_pair(tmp_path)
    cert = tmp_path / "c.json"
    assert main(["diff", str(pa), str(pb), "--box", "0,1/2", "--json", "--certificate",
                 str(cert), "--timeout", "120"]) == 0
    data = json.loads(capsys.readouterr().out)
    exact = slope / 2
    with digit_limit(CERTIFICATE_DIGITS):
        assert to_q(data["lower"]) == exact and to_q(data["upper"]) == exact
    assert len(data["lower"]) > MAX_DIGITS and data["complete"] is True
    assert main(["verify", str(cert)]) == 0
    # a forged lower bound above the value at the point is refused, not called malformed
    forged = json.loads(cert.read_text())
    with digit_limit(CERTIFICATE_DIGITS):
        forged["lower"] = str(to_q(forged["lower"]) + 1)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(forged))
    capsys.readouterr()
    assert main(["verify", str(bad)]) == 1
    assert "below the claimed lower bound" in capsys.readouterr().out


@pytest.mark.slow
def test_diff_of_huge_rational_networks_holds_its_timeout(tmp_path):
    """s53 delta audit F1: 8-60x5-1 with 12-digit rationals times 10^±25 (b = 3a):
    ``diff --timeout 20`` took 232 s inside the limb splitting; now ~1.05·T + 2 s, exit 3 with
    the lower bound."""
    from tests.cli.test_budgets import timed_run
    rng = random.Random(1)

    def num():
        p, q = rng.randint(10 ** 9, 10 ** 12), rng.randint(10 ** 9, 10 ** 12)
        s = rng.choice([-1, 1])
        e = rng.choice([-25, 0, 25])
        return f"{s * p * 10 ** max(e, 0)}/{q * 10 ** max(-e, 0)}"
    widths = [8, 60, 60, 60, 60, 60, 1]
    layers = [{"weight": [[num() for _ in range(m)] for _ in range(n)], "bias": [num() for _ in range(n)]}
              for m, n in zip(widths, widths[1:])]
    a = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": layers}
    b = json.loads(json.dumps(a))
    b["layers"][-1]["weight"] = [[str(3 * to_q(v)) for v in row] for row in b["layers"][-1]["weight"]]
    b["layers"][-1]["bias"] = [str(3 * to_q(v)) for v in b["layers"][-1]["bias"]]
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a))
    pb.write_text(json.dumps(b))
    r, _ = timed_run(["diff", str(pa), str(pb), "--box", "-1,1"], 5)
    assert r.returncode == 3, r.stderr
    assert "max |a - b| >=" in r.stdout


def _huge_box_rows(seed=3, n=200, c=30, bits=8_000):
    from algebra.rationals import Q
    rng = random.Random(seed)
    rows = [[Q(rng.randint(-99, 99), rng.randint(1, 99)) for _ in range(c)] for _ in range(n)]
    D = rng.getrandbits(bits) | 1                 # (one denominator: distinct ones make every sum
    box = [(Q(-rng.getrandbits(bits), D), Q(rng.getrandbits(bits), D))   # a 10^6-bit one, minutes)
           for _ in range(c)]
    box[3] = (None, box[3][1])                    # an unbounded side goes through the blocks too
    return rows, box, [Q(rng.randint(-5, 5)) for _ in range(n)]


def test_interval_image_in_blocks_under_a_check_is_the_same_image():
    """s54: one FLINT call on 60 rows against a box of 10^5-bit rationals took 2 s that no
    signal stops (``diff --method walk --timeout 5``: 14 s); with a check the rows go in blocks
    sized by the box's and the rows' digits, the check called between them."""
    from algebra.kernel.intervals import interval_bounds
    from algebra.linalg.intervals import interval_image
    rows, box, off = _huge_box_rows()
    calls = []
    blocked = interval_image(rows, box, off, lambda: calls.append(1))
    assert blocked == interval_image(rows, box, off) and len(calls) > 1
    small = [(lo, hi) for lo, hi in [(-1, 1)] * 30]
    calls.clear()
    assert interval_image(rows, small, off, lambda: calls.append(1)) == interval_image(rows, small, off)
    assert calls == []                            # small numbers: one product, as before
    with pytest.raises(_Stop):
        def stop():
            raise _Stop
        interval_bounds([rows], [off], 30, None, start=[(lo, hi) for lo, hi in box], check=stop)


def test_big_integer_products_go_to_flint_in_blocks_sized_by_their_digits():
    """s54: ``int_matmul`` sent 60 x 60 x 9 products of 10^5-bit integers to numpy's object
    loop, with signals held, because there were few of them (``regions --timeout 5``: 16 s)."""
    from semialgebraic.budget import Budget, BudgetExhausted
    from semialgebraic.regions.integer import int_matmul
    rng = random.Random(5)
    A = np.array([[rng.getrandbits(30_000) - (1 << 29_999) for _ in range(20)] for _ in range(12)], dtype=object)
    B = np.array([[rng.getrandbits(30_000) for _ in range(3)] for _ in range(20)], dtype=object)
    assert (int_matmul(A, B) == A @ B).all()
    with Budget(timeout=0).active(), pytest.raises(BudgetExhausted):
        int_matmul(A, B)                          # the blocks check the budget


def test_exact_masks_checks_the_budget_between_blocks_of_points():
    from algebra.linalg import QMatrix
    from semialgebraic.budget import Budget, BudgetExhausted
    from semialgebraic.dimension.sampling import _rows_times
    H = QMatrix.from_rows([[i, 1 - i, 2] for i in range(40)])
    M = QMatrix.from_rows([[1, 2], [3, 4], ["1/2", -1]])
    assert _rows_times(H, M) == H @ M
    with Budget(timeout=0).active(), pytest.raises(BudgetExhausted):
        _rows_times(H, M)


def _wide_range_case(key):
    from fractions import Fraction

    from algebra.network import Network
    data = json.loads((Path(__file__).resolve().parents[1] / "cases" / "wide_range_walks.json").read_text())[key]
    net = Network.from_rows([[[Fraction(v) for v in r] for r in L] for L in data["weights"]],
                            [[Fraction(v) for v in L] for L in data["biases"]])
    return net, data["domain"], data["regions"]


@pytest.mark.parametrize("key", ["2_5", "3_33", "3_37"])
def test_the_walk_steps_across_facets_of_nets_whose_weights_span_10_to_the_50(key):
    """s53 delta audit F2: random nets with weights of mixed scales (10^±20..10^±50) on R^d
    ended "could not step across facet", exit 4: the float guess of the first step cancelled
    (a step 10^74 long) and 200 quarterings did not reach the region across.  The step's
    exponent now doubles after them.  The counts are the auditor's exact oracle's."""
    from semialgebraic import number_of_regions
    net, domain, count = _wide_range_case(key)
    assert number_of_regions(net, domain=domain, timeout=120) == count


@pytest.mark.slow
def test_the_walk_takes_points_past_float64s_range():
    """s53 delta audit: a walk on R^4 whose points reach 10^400 ended "OverflowError: integer
    division result too large for a float" (the float guesses); such a guess is now dropped
    and the exact proofs decide.  867 is the walk's certified count (no oracle reached it)."""
    from semialgebraic import number_of_regions
    net, domain, count = _wide_range_case("4_14")
    assert number_of_regions(net, domain=domain, timeout=300) == count == 867


def test_a_pattern_with_no_points_is_an_input_error():
    """s53 API audit (left open): ``{pattern: []}`` ended in "matmul: incompatible shapes"."""
    from algebra.exceptions import InputError
    import netfibers as nf
    net = nf.Network.from_rows([[[1, 2], [3, -1]], [[1, -1]]], [[0, 1], [0]])
    with pytest.raises(InputError, match="has no points"):
        nf.conservation_laws(net, {(1, 1): []})
    assert nf.conservation_laws(net, {(1, 1): None}).number_of_laws == 3


def test_a_long_epsilon_is_echoed_as_typed(capsys):
    """s54: ``equiv --epsilon 1e-300`` printed ε as the 303 characters of 1/10^300; a short
    exact ε (1/1000) is still printed exactly, and --exact prints it whole."""
    from semialgebraic.cli import main
    net = str(Path(__file__).resolve().parents[2] / "algebra" / "examples" / "t1_masked.json")
    assert main(["equiv", net, net, "--box", "0,1", "--epsilon", "1e-300"]) == 0
    assert capsys.readouterr().out.startswith("max |a - b| <= 1e-300 (a and b are equal")
    assert main(["equiv", net, net, "--box", "0,1", "--epsilon", "0.001"]) == 0
    assert capsys.readouterr().out.startswith("max |a - b| <= 1/1000 (")
    assert main(["equiv", net, net, "--box", "0,1", "--epsilon", "1e-300", "--exact"]) == 0
    assert capsys.readouterr().out.startswith("max |a - b| <= 1/1" + "0" * 300 + " (")


@pytest.mark.parametrize("seed", range(3))
def test_exact_rank_with_rows_scaled_apart_is_the_same_rank(seed):
    """s54 audit: ``dim --box 1/3,1/3`` of a 4-30-30 net with 1 000-digit weights spent 11.9 s
    in one common denominator of its 30 x 1 080 Jacobian rows (``--timeout 5``: 15.7 s).  Under
    a check each block of rows gets its own denominator (1.6 s), the check between blocks; the
    rank is the same (row scaling), checked here against the rank over Q of FLINT."""
    from algebra.linalg import QMatrix
    from algebra.linalg.gfp import exact_rank
    from algebra.rationals import Q
    rng = random.Random(seed)
    n, c, r = rng.randint(6, 12), rng.randint(180, 240), rng.randint(1, 8)   # (n c > 1 024)
    big = lambda: Q(rng.randint(-10 ** 6, 10 ** 6), rng.randint(1, 10 ** 6))   # noqa: E731
    basis = [[big() for _ in range(c)] for _ in range(r)]
    coefficients = [[big() for _ in basis] for _ in range(n)]
    rows = [[sum((k * b[j] for k, b in zip(co, basis)), Q(0)) for j in range(c)] for co in coefficients]
    M = QMatrix.from_rows(rows, ncols=c)
    calls = []
    assert exact_rank(M, check=lambda: calls.append(1)) == exact_rank(M) == M.rank() == min(n, r)
    assert calls


def test_two_unequal_long_numbers_in_a_sentence_are_told_apart():
    """s54 audit F5: ``verify``'s BROKEN symmetry_path said "(≈-1.5638e50 != ≈-1.5638e50)"."""
    from algebra.rationals import Q
    from semialgebraic.commands.display import in_sentence
    a = Q(-15638) * Q(10) ** 46 + Q(1, 3)
    far = in_sentence(f"at W1[2,0] ({a} != {a * (1 + Q(1, 10 ** 5000))})")
    assert far == "at W1[2,0] (≈-1.5638e50 != ≈-1.5638e50 (the same to 40 digits))"
    near = in_sentence(f"at W1[2,0] ({a} != {a + 10 ** 20})")
    left, right = near[len("at W1[2,0] ("):-1].split(" != ")
    assert left != right and left.startswith("≈-1.5638") and right.startswith("≈-1.563")
    assert in_sentence("x (1/2 != 1/3)") == "x (1/2 != 1/3)"
