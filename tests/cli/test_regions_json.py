"""``regions --json`` names each neighbour by its index in the list (issue 15, robust: on ACAS Xu
the neighbours' whole patterns made ~45 KB a region, 2.27 MB for 50 regions, against 386 KB);
``--full`` keeps the whole patterns; both carry the same information
(:func:`semialgebraic.commands.regions.neighbour_patterns` turns one into the other)."""

from __future__ import annotations

import json

from semialgebraic.commands.regions import neighbour_patterns

from .test_budgets import random_net


def _regions(run, path, *extra):
    code, out, _ = run("regions", path, "--box=-1,1", "--json", *extra)
    return code, json.loads(out)


def test_neighbours_are_indices_and_full_gives_the_same_patterns(run, tmp_path):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(random_net([3, 6, 6, 1], 2).to_dict()))
    code, compact = _regions(run, path)
    code_full, full = _regions(run, path, "--full")
    assert code == code_full == 0 and compact["complete"] and compact["neighbours_as"] == "indices"
    assert full["neighbours_as"] == "patterns"
    n = compact["number_of_regions"]
    assert n == full["number_of_regions"] == 62 == len(compact["regions"])
    entries = [q for r in compact["regions"] for _, q in r["neighbours"]]
    assert all(q is None or isinstance(q, int) and 0 <= q < n for q in entries)   # complete walk
    assert sum(q is None for q in entries) == 107 and len(entries) == 379   # 136 inner facets, twice
    assert neighbour_patterns(compact["regions"]) == [r["neighbours"] for r in full["regions"]]
    for k, r in enumerate(compact["regions"]):          # neighbourhood is symmetric
        for i, q in r["neighbours"]:
            if q is not None:
                assert k in [j for _, j in compact["regions"][q]["neighbours"]]
                assert [j for j, (u, v) in enumerate(zip(r["pattern"],
                        compact["regions"][q]["pattern"])) if u != v] == [i]
    assert len(json.dumps(compact)) < len(json.dumps(full))


def test_a_walk_cut_short_names_unlisted_neighbours_by_the_changed_neuron(run, tmp_path):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(random_net([3, 6, 6, 1], 2).to_dict()))
    code, compact = _regions(run, path, "--max-regions", "3")
    _, full = _regions(run, path, "--max-regions", "3", "--full")
    assert code == 3 and compact["number_of_regions"] == 3 and not compact["complete"]
    changed = [q for r in compact["regions"] for _, q in r["neighbours"] if isinstance(q, list)]
    assert changed and all(len(q) == 1 and q[0][1] in (-1, 1) for q in changed)
    for r in compact["regions"]:
        for i, q in r["neighbours"]:
            if isinstance(q, list):
                assert q[0][0] == i and r["pattern"][i] == -q[0][1]
    assert neighbour_patterns(compact["regions"]) == [r["neighbours"] for r in full["regions"]]
