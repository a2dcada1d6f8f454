"""Checker of ``non_localizability`` certificates (three-layer-fibers R19, the paper's reading).

Schema (version 1; built by :func:`semialgebraic.certificates.non_localizability_certificate`)::

    {"format": "netfibers.certificate", "type": "non_localizability",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "f2∘f1 and f3∘f2 are identifiable, f3∘f2∘f1 is not (three-layer-fibers R19)",
     "network": <network>,          # native network dict, two hidden layers
     "composite": <symmetry_path certificate from the network to another parameter>}

Re-checked here, exactly and without the deciding code:

* f2∘f1 (a composition ending in σ; definition in three-layer-fibers §6, R19): rank W1 = n1,
  no two proportional rows of [W1 | b1], a row of [W2 | b2] with every entry > 0 and a positive
  entry in every row — the hypotheses of the [derived] sufficient criterion;
* f3∘f2 on all of ℝ^{n1}: every column of W3 and row of W2 non-zero, no two proportional rows
  of [W2 | b2], and for every non-empty set S of second-layer neurons Σ_{j∈S} V_j W2_j ≠ 0
  (the 0/1 points of their dependencies walked, at most 2^16, else every subset compared as
  the sums of two halves, at most 40 neurons: the R41 checker's own enumerations);
* f3∘f2∘f1 not identifiable: the embedded symmetry path is valid (checked by
  :mod:`semialgebraic.verify.symmetry_path`), starts at the network, and ends at a parameter
  whose output bias b3 differs — permutations and positive rescalings never change b3.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict
from algebra.linalg import QMatrix
from algebra.kernel.certificate_schemas import check_header

from . import identifiability, symmetry_path

__all__ = ["check"]


def _pair_of_proportional(rows) -> bool:
    n = len(rows)
    return any(QMatrix.from_rows([rows[a], rows[c]]).rank() != 2
               for a in range(n) for c in range(a + 1, n))


def _first_pair(net) -> str:
    (W1, b1), (W2, b2) = net.layer(0), net.layer(1)
    n1 = len(b1)
    if W1.rank() < n1:
        return "f2∘f1: rank W1 < n1"
    if _pair_of_proportional([list(W1.row_at(i)) + [b1[i]] for i in range(n1)]):
        return "f2∘f1: two rows of [W1 | b1] are proportional"
    signs = [[x > 0 for x in list(W2.row_at(j)) + [b2[j]]] for j in range(len(b2))]
    if not any(all(s) for s in signs):
        return "f2∘f1: no row of [W2 | b2] is all-positive"
    if not all(any(s) for s in signs):
        return "f2∘f1: a row of [W2 | b2] has no positive entry"
    return ""


def _last_pair(net) -> str:
    (W2, b2), (W3, _) = net.layer(1), net.layer(2)
    n2 = len(b2)
    for j in range(n2):
        if not any(W3.col_at(j)) or not any(W2.row_at(j)):
            return f"f3∘f2: neuron {j} has a zero output column or a zero weight row"
    if _pair_of_proportional([list(W2.row_at(j)) + [b2[j]] for j in range(n2)]):
        return "f3∘f2: two rows of [W2 | b2] are proportional"
    kinks = [[x * y for x in W3.col_at(j) for y in W2.row_at(j)] for j in range(n2)]
    S = identifiability._flip_set(kinks, n2)         # the 0/1 points of their dependencies
    if isinstance(S, str):
        S = identifiability._zero_sum(kinks)          # every subset, as sums of two halves
    if isinstance(S, str):
        raise InputError(f"f3∘f2: {n2} second-layer neurons with dependent products V_j W2_j: "
                         "more flip sets than this checker compares")
    return f"f3∘f2: the flip set {S} cancels" if S else ""


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "non_localizability")
    net = network_from_dict(cert["network"], source="certificate[network]")
    if net.depth != 3:
        return False, f"R19 is about two hidden layers; the network has {net.depth - 1}"
    comp = cert["composite"]
    if not isinstance(comp, dict) or comp.get("type") != "symmetry_path":
        raise InputError("composite must be a symmetry_path certificate")
    a = network_from_dict(comp.get("a"), source="certificate[composite.a]")   # cheap checks first
    b = network_from_dict(comp.get("b"), source="certificate[composite.b]")
    if a != net:
        return False, "composite: the path does not start at the network"
    if b.widths != net.widths:
        return False, "composite: the end point has other widths"
    if b.layer(2)[1] == net.layer(2)[1]:
        return False, "composite: b3 is unchanged, so the end point may be an S1 + S2 image"
    if comp.get("domain") is not None:
        return False, "composite: the path holds on a restricted domain only"
    ok, why = symmetry_path.check(comp)
    if not ok:
        return False, f"composite: {why}"
    for why in (_first_pair(net), _last_pair(net)):
        if why:
            return False, why
    return True, ("f2∘f1 and f3∘f2 meet their [derived] identifiability criteria; f3∘f2∘f1 has a "
                  "second parameter with another b3 (three-layer-fibers R19)")
