"""The ``bab_bound`` checker's fast paths (issue 15 part 2: the check at or below the search's
cost) agree with the plain definitions: a proof of a table record remembered in one context
(box, intervals below) is never reused in another."""

from __future__ import annotations

import json
import random

import pytest

from algebra.linalg import QMatrix
from algebra.rationals import Q
from semialgebraic.bab.symbolic import SymbolicNet
from semialgebraic.bab.tighten import Tightener
from semialgebraic.certificates import jsonable
from semialgebraic.verify.bab_bound import _leaf_value
from semialgebraic.verify.bab_intermediate import leaf_intervals


def _net(seed, widths=(2, 6, 6, 6, 1)):
    rng = random.Random(seed)
    Ws = [[[Q(rng.randint(-8, 8), 4) for _ in range(widths[i])] for _ in range(widths[i + 1])]
          for i in range(len(widths) - 1)]
    bs = [[Q(rng.randint(-4, 4), 8) for _ in range(widths[i + 1])] for i in range(len(widths) - 1)]
    return Ws, bs


def _net_dict(Ws, bs, table):
    return {"rows": Ws, "biases": bs, "mats": [QMatrix.from_rows(W, ncols=len(W[0])) for W in Ws],
            "halfspaces": [], "intermediate": table}


def test_record_proofs_are_not_reused_across_contexts():
    """Records proved on a small box, then referenced by a leaf on a larger box: the check
    that remembered the first proofs gives what a fresh check gives (here: refused, on most
    nets), never the remembered acceptance."""
    small, large = [(Q(-1, 4), Q(1, 4))] * 2, [(Q(-1), Q(1))] * 2
    refused = 0
    for seed in range(12):
        Ws, bs = _net(seed)
        sym = SymbolicNet(Ws, bs)
        tight, records = Tightener(Ws, bs, sym, cap=64).node(small, {}, sym.intervals(small, {}))
        if not records:
            continue
        table = json.loads(json.dumps(jsonable(records)))
        refs = list(range(len(table)))
        used = _net_dict(Ws, bs, table)
        assert leaf_intervals(used, small, {}, refs, _leaf_value) == tight     # proved, remembered
        again = leaf_intervals(used, large, {}, refs, _leaf_value)
        fresh = leaf_intervals(_net_dict(Ws, bs, table), large, {}, refs, _leaf_value)
        assert again == fresh
        refused += isinstance(fresh, str)
        assert leaf_intervals(used, small, {}, refs, _leaf_value) == tight     # and still accepted
    assert refused >= 3


if __name__ == "__main__":
    pytest.main([__file__])
