"""The identifiability certificate (three-layer-fibers R18) is re-checked independently."""

import copy
import json

import pytest

from algebra import load
from semialgebraic import identifiability, verify
from semialgebraic.cli import main
from tests.cases.certificates import EXAMPLES

EX = "algebra/examples/"


def _cert(path):
    v = identifiability(load(EX + path))
    assert v.answer is True
    return v.certificate


def test_identifiable_certificate_verifies():
    ok, why = verify(_cert("t5_perm_scale_a.json"))
    assert ok and "R18" in why


@pytest.mark.parametrize("mutation, expected", [
    (lambda c: (c["network"]["layers"][1]["bias"].__setitem__(0, -5),
                c["network"]["layers"][1]["weight"].__setitem__(0, [-1, -2])), "all-negative"),
    (lambda c: c["network"]["layers"][1]["weight"][0].__setitem__(0, 0), "G2"),
    (lambda c: c.__setitem__("fiber_dimension", 5), "fiber dimension"),
    (lambda c: c["network"]["layers"][0].__setitem__("weight", [[1, 2], [2, 4]]), "G1"),
    (lambda c: c["network"]["layers"][2]["weight"][0].__setitem__(1, 0), "G3"),
])
def test_mutated_identifiability_certificate_is_rejected(mutation, expected):
    cert = copy.deepcopy(_cert("t5_perm_scale_a.json"))
    mutation(cert)
    ok, why = verify(cert)
    assert not ok and expected in why


def test_not_identifiable_network_certificate_is_a_verified_path():
    v = identifiability(load(EX + "masked_bottleneck.json"))
    assert v.answer is False
    assert verify(v.certificate)[0]
    # the planted copy is a different parameter (with the same function, by the verified path)
    from algebra.io.native import network_from_dict
    assert network_from_dict(v.details["planted_copy"]) != load(EX + "masked_bottleneck.json")


# -- netfibers verify CERT NET for certificates that embed one input -----------------------------
def test_cli_verify_identifiability_certificate_against_its_network(tmp_path, capsys):
    """Bug (fixed in commands/shallow.py): ``netfibers verify id.json NET`` compared NET with a
    non-existent embedded 'a' and reported a valid identifiability certificate BROKEN (exit 1)."""
    from semialgebraic.bottleneck import identifiability
    from algebra.io import load
    net_path = EXAMPLES / "t5_perm_scale_a.json"
    v = identifiability(load(str(net_path)))
    assert v.answer is True and v.certificate["type"] == "identifiability_hypotheses"
    cert = tmp_path / "id.json"
    cert.write_text(json.dumps(v.certificate))
    assert main(["verify", str(cert), str(net_path)]) == 0
    assert main(["verify", str(cert), str(EXAMPLES / "t5_perm_scale_b.json")]) == 2   # another net
    assert main(["verify", str(cert), str(net_path), str(net_path)]) == 2
    capsys.readouterr()


def test_proportional_rows_found_by_one_key_per_row():
    """G4/G5 by the rows scaled by their first non-zero entry (one dictionary key per row, not a
    rank per pair: the 24-1200-2 certificate's check 15.6 s -> 0.9 s), against the pairwise ranks."""
    import random
    from algebra.linalg import QMatrix
    from algebra.rationals import Q
    from semialgebraic.verify.identifiability import _proportional_pair
    rng = random.Random(3)
    for _ in range(200):
        n, w = rng.randint(1, 7), rng.randint(1, 4)
        rows = [[Q(rng.randint(-2, 2), rng.randint(1, 3)) for _ in range(w)] for _ in range(n)]
        if n > 1 and rng.random() < 0.4:                  # a planted multiple (negative too)
            i, k = rng.sample(range(n), 2)
            rows[k] = [Q(rng.choice([-3, -1, 2]), rng.randint(1, 4)) * x for x in rows[i]]
        brute = [(i, k) for i in range(n) for k in range(i + 1, n)
                 if QMatrix.from_rows([rows[i], rows[k]]).rank() < 2]
        got = _proportional_pair(rows)
        assert (got is None) == (not brute)
        if got is not None:
            assert QMatrix.from_rows([rows[got[0]], rows[got[1]]]).rank() < 2 and got[0] != got[1]
