"""`fiber` and `dim` name the same quantity alike (the session-37 counts audit, F1): on a 1-1-3-1
bottleneck whose fiber has a 6-dimensional stratum away from θ, `fiber`'s `fiber_dimension` is
the largest stratum's (6, three-layer-fibers R16a) and `dim`'s the dimension near θ (5: N − rank,
the rank locally constant); both commands give the latter as `fiber_dimension_at_theta`."""

from __future__ import annotations

import json

from algebra.network import Network
from semialgebraic.cli import main

E02 = Network.from_rows([[[3]], [[3], [2], [1]], [[-1, 3, -3]]], [[3], [-1, -3, 3], [3]])


def test_fiber_and_dim_name_the_dimension_at_theta_alike(tmp_path, capsys):
    p = tmp_path / "e02.json"
    p.write_text(json.dumps(E02.to_dict()))
    assert main(["fiber", str(p), "--json"]) == 0
    fib = json.loads(capsys.readouterr().out)
    assert fib["fiber_dimension"] == fib["dimension"] == 6 and fib["fiber_dimension_at_theta"] == 5
    assert main(["dim", str(p), "--json"]) == 0
    dim = json.loads(capsys.readouterr().out)
    assert dim["fiber_dimension"] == dim["fiber_dimension_at_theta"] == 5
    assert dim["functional_dimension"] == 12 - 5
    main(["fiber", str(p)])
    assert "6 is that of its largest stratum" in capsys.readouterr().out


def test_symmetries_json_has_common_keys_for_every_kind(tmp_path, capsys):
    """`symmetries --json` of one hidden layer, a bottleneck and a deeper net: each has kind,
    widths, symmetries, dimension and fiber_dimension (null where no theory gives it; a
    session-36 gap: each kind had its own keys)."""
    nets = {"one hidden layer": Network.from_rows([[[1, 2], [2, 4], [1, -1]], [[1, 1, 1]]],
                                                  [[1, 2, 0], [0]]),
            "three-layer bottleneck": Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-1, 2]],
                                                         [[1, -2]]], [[0, 0], [1, -1], [0]]),
            "no exact theory": Network.from_rows([[[1, -1], [2, 1], [-1, 3]],
                                                  [[1, 2, -1], [2, 4, -2]], [[1, 1]]],
                                                 [[0, 1, -1], [1, 2], [0]])}
    for kind, net in nets.items():
        p = tmp_path / "n.json"
        p.write_text(json.dumps(net.to_dict()))
        main(["symmetries", str(p), "--json"])
        d = json.loads(capsys.readouterr().out)
        assert d["kind"] == kind and d["widths"] == list(net.widths)
        assert {"symmetries", "dimension", "fiber_dimension"} <= set(d)
        assert d["dimension"] == d["fiber_dimension"]
        assert (d["dimension"] is None) == (kind == "no exact theory")
