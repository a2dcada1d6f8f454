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


def test_regions_on_a_box_of_width_zero_are_the_slices(run, tmp_path):
    """A box of width 0 in a coordinate has no full-dimensional region of R^d; ``regions`` used
    to say "0 regions, complete" (adversarial campaign).  It now walks the slice: n(x, 1) =
    relu(x + 1) + relu(5/2 - x) on x in [-3, 3] (by hand: x + 1 on (5/2, 3], 7/2 on (-1, 5/2),
    5/2 - x on [-3, -1)); a one-point box is refused (exit 2)."""
    net = tmp_path / "n.json"
    net.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                               "layers": [{"weight": [[1, 1], [-1, 2]], "bias": [0, "1/2"]},
                                          {"weight": [[1, 1]], "bias": [0]}]}))
    code, out, _ = run("regions", net, "--box=-3:3,1:1", "--json")
    js = json.loads(out)
    assert code == 0 and js["complete"] and (js["number_of_regions"], js["number_of_linear_pieces"]) == (3, 3)
    assert js["domain"]["fixed"] == {"1": "1"} and js["domain"]["free"] == [0]
    maps = sorted((r["pattern"], r["jacobian"], r["offset"]) for r in js["regions"])
    assert maps == [([-1, 1], [[-1, 0]], ["5/2"]), ([1, -1], [[1, 0]], [1]), ([1, 1], [[0, 0]], ["7/2"])]
    assert all(r["point"][1] == 1 for r in js["regions"])
    code, out, _ = run("regions", net, "--box", "0:1,1:1")
    assert code == 0 and out.startswith("1 activation region, 1 linear piece")
    code, _, err = run("regions", net, "--box", "1:1,1:1")
    assert code == 2 and "one point" in err
