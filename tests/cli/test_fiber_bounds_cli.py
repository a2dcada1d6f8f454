"""CLI side of tests/semialgebraic/test_fiber_bounds.py (three-layer-fibers R22): ``dim`` and
``conserved`` give the fiber dimension as an interval where a dead or unread neuron's kernel
directions exceed its moves in the fiber; ``fiber`` of the all-zero net is readable."""

import json

from tests.semialgebraic.test_fiber_bounds import ALL_ZERO, DEAD_FIRST


def test_cli_dim_and_conserved_say_the_interval(run, tmp_path):
    """``dim`` closes the interval [4, 6] (one hidden layer: the far kink a small w_0 of the dead
    neuron would make keeps w_0 = 0, session 30); ``conserved`` gave the interval, and since
    session 45 (fibers audit F3) closes it the same way."""
    p = tmp_path / "dead.json"
    p.write_text(json.dumps(DEAD_FIRST.to_dict()))
    code, out, _ = run("dim", str(p))
    assert code == 0 and "fiber dimension 4 " in out.splitlines()[0]
    code, out, _ = run("conserved", str(p), "--json")
    d = json.loads(out)
    assert d["fiber_dimension"] == 4 and "fiber_dimension_upper" not in d
    code, out, _ = run("conserved", str(p))
    assert "(fiber dimension 4)" in out and "note: fiber dimension <= 4 < N − rank = 6: " in out


def test_fiber_of_an_all_zero_net_is_readable(run, tmp_path):
    """``fiber`` of the all-zero one-hidden-layer net crashed in its text (the number of
    components is not determined: None read as a rational, exit 2 'input error')."""
    p = tmp_path / "z.json"
    p.write_text(json.dumps(ALL_ZERO.to_dict()))
    code, out, err = run("fiber", str(p))
    assert code == 3 and err == ""          # an interval: a partial answer (exit 3), as dim's
    assert "fiber dimension near this network: between 9 and 12" in out and "number of components: not determined" in out
    assert "Dimension(" not in out and "dimension None" not in out


def test_an_affine_map_is_named_and_its_fiber_is_the_point(run, tmp_path):
    """A network with no hidden layer: ``analyze`` called it 'a ReLU network with 0 hidden
    layers'; ``fiber`` said 'no fiber method for 0 hidden layers'.  Both now say what it is: x
    -> W x + b determines W and b (``dim``: functional dimension N, fiber dimension 0)."""
    from algebra.network import Network
    p = tmp_path / "lin.json"
    p.write_text(json.dumps(Network.from_rows([[[1, 2], [3, 4]]], [[0, 1]]).to_dict()))
    code, out, _ = run("analyze", str(p))
    assert code == 0 and "what it is: an affine map (no hidden layer)" in out
    code, out, err = run("fiber", str(p))      # (exit 2, an "error", until session 39)
    assert code == 0 and "the fiber is the point itself" in out and err == ""
    code, out, _ = run("dim", str(p), "--json")
    d = json.loads(out)
    assert (d["functional_dimension"], d["fiber_dimension"]) == (6, 0)


def test_cli_dim_of_a_split_neuron_says_the_value_or_the_interval_and_why(run, tmp_path):
    """A neuron split in two (session 30: printed "fiber dimension 6" as exact; it is 4): with
    one hidden layer its kink stays shared, exact 4; with two, exact 10 since session 47 (its
    halves cancel there: their common row moves, [9, 10] in session 46, [7, 10] before; and
    the neuron reading them with weights 1, −1 trades its bias)."""
    from tests.semialgebraic.test_fiber_moves import HAND
    p = tmp_path / "split.json"
    p.write_text(json.dumps(HAND["split neuron"][0].to_dict()))
    code, out, _ = run("dim", str(p), "--json")
    assert code == 0 and json.loads(out)["fiber_dimension"] == 4
    p.write_text(json.dumps(HAND["split neuron, two layers"][0].to_dict()))
    code, out, _ = run("dim", str(p))
    first = out.splitlines()[0]
    assert code == 0 and "fiber dimension 10 (" in first
    code, out, _ = run("dim", str(p), "--json")
    d = json.loads(out)
    assert d["fiber_dimension"] == 10 and "fiber_lower" not in d and d["exact"] is True


def test_cli_dim_certificate_states_the_certified_fiber_interval(run, tmp_path):
    """``dim --certificate`` says what the certificate proves of the fiber (three-layer-fibers
    R40): DEAD_FIRST between 4 (its moves) and N − 7; ``verify`` prints the same interval."""
    p, c = tmp_path / "dead.json", tmp_path / "c.json"
    p.write_text(json.dumps(DEAD_FIRST.to_dict()))
    code, out, _ = run("dim", str(p), "--certificate", str(c))
    assert code == 0 and "certificate: fiber dimension between 4 " in out and " and 6 " in out
    code, out, _ = run("verify", str(c))
    assert code == 0 and "fiber dimension in [4, 6]" in out


def test_fiber_with_an_interval_for_its_dimension_exits_3(run, tmp_path):
    """The session-32 structure audit's sh39 on the orthant: ``fiber`` said "between 6 and 7"
    with exit 0; an interval is a partial answer (exit 3, as ``dim``'s); an exact one exits 0."""
    p = tmp_path / "sh39.json"
    p.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                             "layers": [{"weight": [[-2], [0], [2]], "bias": [2, 2, 3]},
                                        {"weight": [[-1, -1, -3], [-1, 3, 3]], "bias": [1, -1]}]}))
    code, out, _ = run("fiber", str(p), "--orthant")
    assert code == 3 and "fiber dimension near this network: between 6 and 7" in out
    code, out, _ = run("fiber", "algebra/examples/masked_bottleneck.json")
    assert code == 0 and "fiber dimension: between" not in out


def test_fiber_text_lists_the_first_12_of_each_list_and_full_lists_all(run, tmp_path):
    """A 2-16-1 net: its component has more than 12 equalities; the text lists 12 and says how
    many more (a 64-32-16-10 net printed 2 783 lines: new-user audit), ``--full`` and ``--json``
    all of them."""
    import random
    rng = random.Random(3)
    layers = [{"weight": [[rng.randint(-9, 9) or 1, rng.randint(-9, 9) or 1] for _ in range(16)],
               "bias": [rng.randint(-9, 9) or 1 for _ in range(16)]},
              {"weight": [[rng.randint(-9, 9) or 1 for _ in range(16)]], "bias": [1]}]
    p = tmp_path / "n.json"
    p.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                             "layers": layers}))
    code, short, _ = run("fiber", str(p))
    assert code == 0 and "more equalities" in short and "--full lists them all" in short
    code, full, _ = run("fiber", str(p), "--full")
    code, js, _ = run("fiber", str(p), "--json")
    n_eq = len(json.loads(js)["components"][0]["equalities"])
    assert n_eq > 12 and f"... and {n_eq - 12} more equalities" in short
    assert sum(line.endswith(" = 0") for line in full.splitlines()) >= n_eq > \
        sum(line.endswith(" = 0") for line in short.splitlines())


def test_fiber_of_a_deeper_net_names_the_file_and_dim(run, tmp_path):
    """Three hidden layers: no fiber description; one line naming the file and pointing to
    ``dim`` (it named neither): ``plot fiber`` exit 2 (no picture); ``fiber`` exit 3 as for a
    bottleneck with n1 > d (it was 2, an "input error": session 40 fiber audit)."""
    from algebra.network import Network
    p = tmp_path / "deep.json"
    p.write_text(json.dumps(Network.from_rows([[[1]], [[1]], [[1]], [[1]]], [[0], [0], [0], [0]]).to_dict()))
    code, out, err = run("plot", "fiber", str(p), "-o", str(tmp_path / "f.png"))
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert str(p) in err and "netfibers dim" in err
    assert not (tmp_path / "f.png").exists()
    code, out, err = run("fiber", str(p))
    assert code == 3 and err == "" and len(out.strip().splitlines()) == 1
    assert str(p) in out and "netfibers dim" in out
