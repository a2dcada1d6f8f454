"""Regression tests of session 41's findings (each names its finding)."""

import json
from dataclasses import replace

from semialgebraic.cli import main


NET = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
    {"weight": [[1, 2], [-1, 1], [3, -1], [1, 1]], "bias": [1, -2, "1/2", 0]},
    {"weight": [[1, -1, 2, 1], [2, 1, -1, 1], [-1, 1, 1, 2]], "bias": [1, "1/3", -1]},
    {"weight": [[1, 2, -1]], "bias": [0]}]}


def test_dim_says_the_tighter_upper_bound_its_certificate_proves(tmp_path, capsys, monkeypatch):
    """s40 dimscale audit: the run's rank of the proven directions stopped by its budget gave an
    upper bound (939) above the one its certificate proves (527), and dim printed the looser one.
    Simulated by a run whose upper bound is 3 too high: the certificate claims the bound it
    re-derives, and the result says it (here it meets the lower bound: exact, exit 0)."""
    import semialgebraic.commands.general as general
    real = general.functional_dimension

    def loose(*args, **kw):
        fd = real(*args, **kw)
        return replace(fd, upper=fd.upper + 3)
    monkeypatch.setattr(general, "functional_dimension", loose)
    net, cert = tmp_path / "n.json", tmp_path / "c.json"
    net.write_text(json.dumps(NET))
    code = main(["dim", str(net), "--certificate", str(cert), "--json"])
    out = json.loads(capsys.readouterr().out)
    from algebra.io import load
    true_value = real(load(str(net))).value
    assert out["functional_dimension"] == true_value and code == 0
    c = json.loads(cert.read_text())
    assert c["upper"] == c["lower"] == true_value
    assert main(["verify", str(cert)]) == 0


def test_verify_does_not_start_reading_what_cannot_be_read_in_time(tmp_path, capsys, monkeypatch):
    """s40 forge audit: a 177 MB certificate spent 11.3 s in its JSON parse (no alarm stops it)
    at --timeout 5.  A file whose reading at READ_RATE does not fit the timeout is not read:
    UNCHECKED, exit 3 at once; without --timeout it is read and checked."""
    import semialgebraic.commands.shallow as shallow
    net, cert = tmp_path / "n.json", tmp_path / "c.json"
    net.write_text(json.dumps(NET))
    assert main(["equiv", str(net), str(net), "--certificate", str(cert)]) == 0
    capsys.readouterr()
    monkeypatch.setattr(shallow, "READ_RATE", cert.stat().st_size / 4)    # 4 s to read it
    assert main(["verify", str(cert), "--timeout", "2", "--json"]) == 3
    out = json.loads(capsys.readouterr().out)
    assert out["valid"] is None and "past the timeout of 2 s" in out["reason"]
    assert main(["verify", str(cert), "--timeout", "8"]) == 0
    assert main(["verify", str(cert)]) == 0


def test_a_zero_skip_matrix_gives_the_block_without_it_as_the_absorbing_block(tmp_path, capsys):
    """s41 absorb audit: a block whose skip is the zero matrix was absorbable ("residual-free")
    without an ``absorbing_block`` key, which every other yes has: it is the block without its
    skip, equal to the block at every input."""
    from algebra.io.blocks import block_from_dict
    data = {"format": "netfibers.block", "version": 1, "activation": "relu",
            "w_up": [[1, -2], [3, 1]], "w_down": [[1, "1/2"], [-1, 2]], "skip": [[0, 0], [0, 0]]}
    p = tmp_path / "b.json"
    p.write_text(json.dumps(data))
    assert main(["absorb", str(p), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["answer"] is True and out["absorbing_block"]["skip"] == "none"
    given, absorbing = block_from_dict(data), block_from_dict(out["absorbing_block"])
    for x in ([1, 2], [-3, "1/2"], [0, 0], ["2/3", -5]):
        assert given(x) == absorbing(x)


def test_verify_says_what_an_epsilon_certificate_shows_of_its_epsilon(tmp_path, capsys):
    """s41 equivhunt audit: an `equiv --epsilon` certificate whose epsilon field was edited below
    the certified maximum stays VALID (its claim is its bound), with `answer` true, which a script
    could read as epsilon-equivalence.  verify's JSON now says what the certified numbers show of
    the epsilon: true (upper <= epsilon), false (an attained point above it), null (neither)."""
    def net(w):
        return {"format": "netfibers.network", "version": 1, "activation": "relu",
                "layers": [{"weight": [[1]], "bias": [0]}, {"weight": [[w]], "bias": [0]}]}
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(net(1)))
    b.write_text(json.dumps(net("1/2")))           # max |a - b| on [0, 1] is 1/2 (at x = 1)
    shown = {}
    for eps, code in (("1", 0), ("1/4", 1)):
        cert = tmp_path / f"c{code}.json"
        assert main(["equiv", str(a), str(b), "--box", "0,1", "--epsilon", eps,
                     "--certificate", str(cert)]) == code
        capsys.readouterr()
        assert main(["verify", str(cert), "--json"]) == 0
        shown[eps] = json.loads(capsys.readouterr().out)["epsilon_answer"]
    assert shown == {"1": True, "1/4": False}
    c = json.loads((tmp_path / "c0.json").read_text())
    c["epsilon"] = "1/4"                           # below the certified maximum 1/2
    for edit, want in (({}, False), ({"drop": ("lower", "point", "output")}, None)):
        d = {k: v for k, v in c.items() if k not in edit.get("drop", ())}
        (tmp_path / "edited.json").write_text(json.dumps(d))
        assert main(["verify", str(tmp_path / "edited.json"), "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert out["valid"] is True and out["epsilon_answer"] is want   # never true
        assert "does not show |a - b| <= epsilon" in out["reason"]


def _layers(*layers):
    return {"format": "netfibers.network", "version": 1, "activation": "relu",
            "layers": [{"weight": w, "bias": b} for w, b in layers]}


def _jacobian_rank(layers, points):
    """The rank over Q of the stacked Jacobians of the outputs with respect to every parameter at
    *points* (the test's own: the chain rule with Fractions, ReLU's derivative 1 where z > 0)."""
    from fractions import Fraction as F
    rows = []
    for x in points:
        hs, zs = [[F(v) for v in x]], []
        for k, (W, b) in enumerate(layers):
            z = [sum(F(w) * h for w, h in zip(r, hs[-1])) + F(c) for r, c in zip(W, b)]
            zs.append(z)
            hs.append(z if k == len(layers) - 1 else [max(v, 0) for v in z])
        for o in range(len(layers[-1][0])):
            g = [F(int(i == o)) for i in range(len(layers[-1][0]))]   # d out / d z of the top layer
            row = []
            for k in range(len(layers) - 1, -1, -1):
                W, _ = layers[k]
                row = [gi * h for gi in g for h in hs[k]] + list(g) + row      # dW_k, db_k
                if k:
                    g = [sum(F(W[i][j]) * g[i] for i in range(len(g))) * (zs[k - 1][j] > 0)
                         for j in range(len(W[0]))]
            rows.append(row)
    import sympy
    return sympy.Matrix(rows).rank()


def test_dim_on_a_domain_narrower_than_the_simplex_step(tmp_path, capsys):
    """s41 domains audit F1/F2: on a cube narrower than 2^-20 both steps x +- t e_k of the
    simplex points left the domain and were dropped, the region counted as holding d + 1 inputs:
    `dim` exact with the rank at one input (relu(x + 1) on [0, 1e-6]: 1, the value is 2), and on
    a slab of width 1e-9 an interval with lower > upper (an internal error with --certificate);
    a cube of width 1e-60 (below the smallest step) now starts the steps below its width.  The
    values against the test's own Jacobian rank at points of the domain."""
    from fractions import Fraction as F
    one = [([[1]], [1]), ([[1]], [0])]
    deep = [([[1, 2], [3, 1]], [1, 2]), ([[1, 1], [2, -1]], [1, 3]), ([[1, -2]], [0])]
    slab = {"box": [[0, 1], [0, 1]], "halfspaces": [{"a": [1, 1], "b": 1},
                                                   {"a": [-1, -1], "b": "-999999999/1000000000"}]}
    (tmp_path / "slab.json").write_text(json.dumps(slab))
    e = F(1, 10 ** 9)
    cases = [(one, ["--box", "0,1/1000000"], [[0], [F(1, 10 ** 6)]]),
             (one, ["--ball", "0,1/1000000000"], [[0], [e]]),
             (deep, ["--box", "0,1/1000000000"], [[0, 0], [e, 0], [0, e]]),
             (deep, ["--box", str(tmp_path / "slab.json")], [[1, 0], [1 - e, 0], [1 - e, e]]),
             (deep, ["--box", f"0,1/{10 ** 60}"], [[0, 0], [F(1, 10 ** 60), 0], [0, F(1, 10 ** 60)]])]
    for k, (layers, domain, points) in enumerate(cases):
        net, cert = tmp_path / f"n{k}.json", tmp_path / f"c{k}.json"
        net.write_text(json.dumps(_layers(*layers)))
        code = main(["dim", str(net), *domain, "--certificate", str(cert), "--json"])
        out = json.loads(capsys.readouterr().out)
        truth = _jacobian_rank(layers, points)
        assert (code, out["functional_dimension"]) == (0, truth), (domain, out)
        assert main(["verify", str(cert)]) == 0
        capsys.readouterr()


def test_the_fiber_floor_of_a_small_net_is_held_to_the_budget(monkeypatch):
    """Found trying `--timeout 2` on hard cases (session 41): below RANK_ONLY parameters the
    fiber's lower bound ran without a budget after the deadline (the moves of a 64-48-24-10 net
    on a cube of width 1e-6, most neurons always active: 4 s past `dim --timeout 2`).  It now
    gets the time left plus FIBER_GRACE; without a timeout, none."""
    import semialgebraic.dimension.directions as directions
    from semialgebraic.dimension import functional_dimension
    from semialgebraic.dimension.functional import FIBER_GRACE
    from algebra.io.native import network_from_dict
    seen = []
    real = directions.fiber_lower

    def spy(*args, **kw):
        seen.append(args[5] if len(args) > 5 else kw.get("budget"))
        return real(*args, **kw)
    monkeypatch.setattr(directions, "fiber_lower", spy)
    net = network_from_dict(NET)
    functional_dimension(net, timeout=30)
    functional_dimension(net)
    assert seen[0] is not None and seen[0].timeout <= 30 + FIBER_GRACE and seen[1] is None
