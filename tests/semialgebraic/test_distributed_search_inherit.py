"""A split cell of the distributed branch and bound keeps its parent's work (issue 19, part 3):
the parent's tree under the input split that made the halves is a tree of each half, so it caps
the half's bound (per objective, the smaller of the two trees) and closes a half whose bound is
already at most the lower bound, without a task.  Oracles: ``diff_bounds`` on the whole box and on
each half (the exact maximum), the ``bab_bound``/``bab_cover`` checkers, and a lowered leaf bound
refused."""

from __future__ import annotations

import json

import pytest

from algebra.rationals import to_q
from semialgebraic.bab import diff as bab_diff, diff_bounds
from semialgebraic.bab.align import alignment
from semialgebraic.distributed import search
from semialgebraic.verify import verify, verify_part
from tests.semialgebraic.test_distributed_search import A, B, BOX


@pytest.fixture(scope="module", autouse=True)
def input_splits():
    """Inputs split above d unstable neurons again (the rule before 2026-12-02's
    ``diff._PLAIN_SPLIT``): the cells' trees must split inputs for their halves to inherit."""
    plain = bab_diff._PLAIN_SPLIT
    bab_diff._PLAIN_SPLIT = 0
    yield
    bab_diff._PLAIN_SPLIT = plain


@pytest.fixture(scope="module")
def run(input_splits):
    """Two first cells, 8 nodes per task: halves inherit and one closes with no task (with LP
    tightening 10 nodes close both first cells, nothing is split; 6 and 8 split them)."""
    seen = {}
    real = search._Search.take

    def take(self, results):
        real(self, results)
        seen["search"] = self
    search._Search.take = take
    try:
        r = search.distributed_diff(A, B, BOX, cells=2, workers=0, nodes=8)
    finally:
        search._Search.take = real
    return r, seen["search"]


def test_halves_inherit_the_parent_proof_and_the_cover_certifies(run):
    r, st = run
    whole = diff_bounds(A, B, BOX)
    assert r.complete and r.verified and r.lower == r.upper == whole.lower == whole.upper
    inherited = [p for p, res in st.done.items() if res.get("inherited")]
    assert inherited and st.skipped >= 1
    assert r.tasks == len(st.done) - st.skipped          # a half closed by its parent ran no task
    cert = r.certificate
    assert verify(cert)[0] and all(verify_part(cert, k)[0] for k in range(len(cert["cells"])))
    for p in inherited:                                  # each inherited cell bounds its half
        box = st.boxes[p]
        exact = diff_bounds(A, B, box)
        assert exact.complete and exact.upper <= to_q(st.done[p]["upper"])
        assert verify(st.done[p]["certificate"])[0]


def test_inherited_subtrees_are_the_parent_tree_under_the_split():
    cell = [(to_q(-1), to_q(1)), (to_q(-1), to_q(1))]
    parent = search.diff_cell(A.to_dict(), B.to_dict(), 30, None, None, [["-1", "1"], ["-1", "1"]])
    objs = search._objectives_of(parent["certificate"])     # records resolved (LP-tightened leaves)
    assert all(ob["tree"]["split"][0] == "x" for ob in objs)
    for side, half in enumerate(search._halve(cell)):
        proof = search._inherited(objs, cell, side)
        assert proof is not None
        up = search._objectives_upper(proof)
        assert up <= to_q(parent["upper"]) and diff_bounds(A, B, half).upper <= up
        cert = json.loads(json.dumps(search.bab_bound_certificate(A, B, half, proof, up, b_steps=alignment(A, B)),
                                     default=str))
        assert verify(cert)[0]
    # another split than the halves' (a different midpoint): nothing is inherited
    moved = json.loads(json.dumps(objs))
    moved[0]["tree"]["split"][2] = "1/3"
    assert search._inherited(moved, cell, 0) is None


def test_a_lowered_inherited_bound_is_refused(run):
    r, st = run
    cert = json.loads(json.dumps(r.certificate))
    k = next(k for k, c in enumerate(cert["cells"]) if "lower" not in c)   # closed by its parent
    cell = cert["cells"][k]
    stack = [ob["tree"] for ob in cell["objectives"]]
    while stack:
        node = stack.pop()
        if "split" in node:
            stack += node["children"]
        elif "bound" in node:
            node["bound"] = str(to_q(node["bound"]) - 1)
            break
    assert not verify_part(cert, k)[0] and not verify(cert)[0]
