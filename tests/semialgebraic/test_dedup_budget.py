"""batch dedup's merge of two one-hidden-layer files runs under the item's budget: the kink
fingerprints and the canonical forms check it (budget audit H3 leftover, session 35: a
768-3072 pair in two formats took 33 s at --timeout 5, 18 s of it in the fingerprints and 14 s
in the canonical forms; now 10 s, the pair undecided, and merged at --timeout 90)."""

from __future__ import annotations

import pytest

from algebra.array_replay import array_view
from algebra.network import Network
from algebra.symmetries import Permute, Scale, apply_path
from semialgebraic.budget import Budget, BudgetExhausted
from semialgebraic.distributed import jobs
from semialgebraic.distributed.merge import fingerprint_shallow
from semialgebraic.shallow import canonical_form


def _pair():
    a = Network.from_rows([[[1, 2], [3, -1], ["1/3", 5]], [[1, -2, 4]]], [[1, 0, -2], [5]])
    b = apply_path(a, [Permute(0, (2, 0, 1)), Scale(0, (1, 3, "1/2"))])
    return a, b


def test_fingerprint_and_canonical_form_stop_at_a_spent_active_budget():
    a, b = _pair()
    fa, fb = (fingerprint_shallow(array_view(n, convert=True)) for n in (a, b))
    assert fa is not None and fa == fb                 # the same function, the same invariant
    assert canonical_form(a) == canonical_form(b)
    spent = Budget(timeout=0)
    with spent.active():
        with pytest.raises(BudgetExhausted):
            fingerprint_shallow(array_view(a, convert=True))
        with pytest.raises(BudgetExhausted):
            canonical_form(a)
    assert fingerprint_shallow(array_view(a, convert=True)) == fa   # no budget: as before


def test_a_merge_whose_budget_runs_out_is_undecided_never_merged(monkeypatch):
    a, b = _pair()
    holders = [{"net": n, "view": array_view(n, convert=True)} for n in (a, b)]
    monkeypatch.setattr(jobs, "array_merge_certificate", lambda *a, **k: None)   # the slow route
    answer, cert = jobs._merge(*[dict(h) for h in holders], None)
    assert answer is True and cert["type"] == "symmetry_path"
    assert jobs._merge(*[dict(h) for h in holders], 0) == (None, None)
