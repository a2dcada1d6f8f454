"""Named certificates for the checker tests: equivalence certificates of every kind built from
two shallow and two deep networks (computed once per test session), the example networks and
blocks of ``algebra/examples``, and ``replaced`` (a copy with one entry changed)."""

import copy
from pathlib import Path

from algebra.network import Network
from semialgebraic import equivalent


SHALLOW_A = Network.from_rows([[[1, -1], [2, 1], [0, 1]], [[1, -2, "1/2"], [0, 1, 1]]],
                              [[0, 1, -1], [1, 0]])
SHALLOW_B = Network.from_rows([[[0, 3], [4, 2], [1, -1]], [["1/6", "-1", 1], ["1/3", "1/2", 0]]],
                              [[-3, 2, 0], [1, 0]])                      # permuted and rescaled


DEEP_A = Network.from_rows([[[1, 2], [-1, 1]], [[1, -2], [-3, 1]], [[1, -1]]],
                           [[1, -1], [1, 2], [5]])
DEEP_B = Network.from_rows([[[-1, 1], [2, 4]], [[3, "-9/2"], [-2, "1/2"]], [["-1/3", 1]]],
                           [[-1, 2], [6, 1], [5]])                       # S1 + S2 on both layers


def _certificates():
    """Equivalence certificates of every kind: symmetry paths (R^d, orthant), region covers (R^d,
    box) and counterexamples (R^d, box, orthant), by name."""
    out = {}
    v = equivalent(SHALLOW_A, SHALLOW_B)
    assert v.answer is True
    out["shallow_path"] = v.certificate
    v = equivalent(SHALLOW_A, SHALLOW_B, domain="orthant")
    assert v.answer is True
    out["shallow_orthant"] = v.certificate
    v = equivalent(DEEP_A, DEEP_B)
    assert v.answer is True
    out["deep_auto"] = v.certificate
    v = equivalent(DEEP_A, DEEP_B, method="general", refutation_samples=0)
    assert v.answer is True and v.certificate["type"] == "region_cover"
    out["deep_cover"] = v.certificate
    v = equivalent(DEEP_A, DEEP_B, method="general", domain=(-1, 2))
    assert v.answer is True
    out["deep_cover_box"] = v.certificate
    for name, (a, b, dom) in {"cx": (DEEP_A, DEEP_A.with_parameter("W2[1,0]", 2), None),
                              "cx_box": (SHALLOW_A, SHALLOW_A.with_parameter("b1[2]", 0), (-1, 2)),
                              "cx_orthant": (SHALLOW_A, SHALLOW_A.with_parameter("W1[0,0]", 3),
                                             "orthant")}.items():
        v = equivalent(a, b, domain=dom)
        assert v.answer is False and v.certificate["type"] == "counterexample"
        out[name] = v.certificate
    return out


EQUIVALENCE_CERTIFICATES = _certificates()


EXAMPLES = Path(__file__).resolve().parents[2] / "algebra" / "examples"


def replaced(cert, path, value):
    """A deep copy of *cert* with the entry at *path* (keys and indices) set to *value*."""
    c = copy.deepcopy(cert)
    node = c
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = copy.deepcopy(value)
    return c
