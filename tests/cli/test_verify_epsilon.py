"""``verify CERT --epsilon E``: does a valid certificate prove ``max |a − b| <= E`` on its domain?

Exit 0 when it does (a certified upper bound <= E under the upper-bound claim, or a certificate
of a = b), 1 when it shows a point above E (or is broken), 3 when its numbers leave E open; a
certificate not about two networks is refused (exit 2).  The answer comes from the certified
numbers only: an ``upper`` a lower-bound claim carries was never checked and proves nothing."""

import json
from fractions import Fraction

from hypothesis import given, settings, strategies as st

from semialgebraic.cli import main

A = {"format": "netfibers.network", "layers": [
    {"weight": [[1, -1], [2, 1]], "bias": [0, 1]}, {"weight": [[1, 1]], "bias": [0]}]}
B = {"format": "netfibers.network", "layers": [
    {"weight": [[1, -1], [2, 1]], "bias": [0, 1]}, {"weight": [[1, "1001/1000"]], "bias": [0]}]}
# on [0, 1]^2, a − b = −relu(2 x_1 + x_2 + 1) / 1000, largest at (1, 1): 4/1000 = 1/250


def _write(tmp_path, name, obj):
    p = tmp_path / name
    p.write_text(json.dumps(obj))
    return str(p)


def _verify(capsys, cert, eps, *more):
    capsys.readouterr()
    code = main(["verify", cert, "--epsilon", eps, "--json", *more])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip() else None)


def test_a_bound_certificate_answers_epsilon_by_its_certified_numbers(tmp_path, capsys):
    a, b = _write(tmp_path, "a.json", A), _write(tmp_path, "b.json", B)
    cert = str(tmp_path / "c.json")
    assert main(["diff", a, b, "--box", "0,1", "--certificate", cert]) == 0
    for eps, code, answer in (("0.01", 0, True), ("1/250", 0, True), ("0.004", 0, True),
                              ("0.003", 1, False), ("0", 1, False)):
        got, out = _verify(capsys, cert, eps)
        assert (got, out["epsilon_answer"], out["valid"]) == (code, answer, True), eps
        assert out["epsilon"] == str(Fraction(eps))
    # without its point the certificate proves only the upper bound: below it, E is left open
    c = json.loads(open(cert).read())
    for k in ("lower", "point", "output"):
        c.pop(k)
    bare = _write(tmp_path, "bare.json", c)
    assert _verify(capsys, bare, "0.01")[0] == 0
    got, out = _verify(capsys, bare, "0.003")
    assert got == 3 and out["epsilon_answer"] is None and "upper 1/250" in out["epsilon_reason"]


def test_an_unchecked_upper_proves_nothing(tmp_path, capsys):
    """A lower-bound claim's checker never looks at ``upper``: setting it to 0 must not make
    ``--epsilon`` say the bound holds."""
    a, b = _write(tmp_path, "a.json", A), _write(tmp_path, "b.json", B)
    cert = str(tmp_path / "c.json")
    assert main(["diff", a, b, "--box", "0,1", "--certificate", cert]) == 0
    c = json.loads(open(cert).read())
    c["claim"], c["upper"] = "max_o max_x |a_o(x) - b_o(x)| >= lower on the box", "0"
    c["lower"] = "1/1000"                      # still attained at the point (1/250 there)
    forged = _write(tmp_path, "lower.json", c)
    got, out = _verify(capsys, forged, "0.01")
    assert got == 3 and out["valid"] is True and out["epsilon_answer"] is None
    assert _verify(capsys, forged, "1/2000")[0] == 1      # its point does show 1/1000 > 1/2000
    # a broken certificate stays broken: exit 1, no epsilon answer
    c["lower"] = "1/100"                       # the point's deviation is 1/250 < 1/100
    got, out = _verify(capsys, _write(tmp_path, "bad.json", c), "1")
    assert got == 1 and out["valid"] is False and "epsilon_answer" not in out


def test_equality_and_counterexample_certificates(tmp_path, capsys):
    a, b = _write(tmp_path, "a.json", A), _write(tmp_path, "b.json", B)
    same, cex = str(tmp_path / "same.json"), str(tmp_path / "cex.json")
    assert main(["equiv", a, a, "--certificate", same]) == 0
    got, out = _verify(capsys, same, "0")
    assert got == 0 and out["epsilon_answer"] is True and "= 0" in out["epsilon_reason"]
    assert main(["equiv", a, b, "--certificate", cex]) == 1
    dev = max(abs(Fraction(u) - Fraction(v)) for u, v in
              zip(*(json.loads(open(cex).read())[k] for k in ("a_x", "b_x"))))
    assert dev > 0
    got, out = _verify(capsys, cex, "0")
    assert got == 1 and out["epsilon_answer"] is False
    got, out = _verify(capsys, cex, str(dev))              # |a - b| = dev there, not above
    assert got == 3 and out["epsilon_answer"] is None


def test_a_certificate_not_about_two_networks_and_bad_epsilons_are_refused(tmp_path, capsys):
    a = _write(tmp_path, "a.json", A)
    cert = str(tmp_path / "dim.json")
    assert main(["dim", a, "--certificate", cert]) == 0
    capsys.readouterr()
    assert main(["verify", cert, "--epsilon", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "not about two networks" in err and "\n" not in err and cert in err
    for bad in ("-1", "abc", "nan"):
        assert main(["verify", cert, "--epsilon", bad]) == 2
        assert "--epsilon" in capsys.readouterr().err


@settings(max_examples=12, deadline=None)
@given(w=st.lists(st.integers(-4, 4), min_size=6, max_size=6),
       delta=st.fractions(min_value=Fraction(-1, 100), max_value=Fraction(1, 100)).filter(bool),
       scale=st.sampled_from([Fraction(99, 100), Fraction(1), Fraction(101, 100)]))
def test_verify_epsilon_agrees_with_the_exact_maximum(tmp_path_factory, w, delta, scale):
    """Random 2-2-1 pairs (one weight moved by delta): ``diff`` is exact on [−1, 1]^2; ``verify
    --epsilon`` at 0.99×, 1× and 1.01× the maximum says <= exactly when it is."""
    import contextlib
    import io
    tmp = tmp_path_factory.mktemp("eps")
    a = {"format": "netfibers.network", "layers": [
        {"weight": [w[0:2], w[2:4]], "bias": [w[4], 1]}, {"weight": [[1, w[5]]], "bias": [0]}]}
    b = json.loads(json.dumps(a))
    b["layers"][1]["weight"][0][0] = str(1 + delta)
    pa, pb, cert = _write(tmp, "a.json", a), _write(tmp, "b.json", b), str(tmp / "c.json")
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(["diff", pa, pb, "--box", "-1,1", "--certificate", cert, "--json"]) == 0
    r = json.loads(out.getvalue())
    assert r["complete"] is True
    top = Fraction(r["upper"])
    eps = top * scale
    with contextlib.redirect_stdout(io.StringIO()) as out:
        code = main(["verify", cert, "--epsilon", f"{eps.numerator}/{eps.denominator}", "--json"])
    assert code == (0 if top <= eps else 1)
    assert json.loads(out.getvalue())["epsilon_answer"] is (top <= eps)


def test_a_refuted_epsilon_certificate_claims_no_upper_bound(tmp_path, capsys):
    """s42 nearcopy audit: the lower-bound certificate of a refuted ``equiv --epsilon E`` stored
    ``"upper": E`` (below its own lower bound), which a script could read as a certified upper
    bound.  It now has no ``upper``; ``verify`` reads an older one's and ignores it."""
    a, b = _write(tmp_path, "a.json", A), _write(tmp_path, "b.json", B)
    cert = str(tmp_path / "no.json")
    assert main(["equiv", a, b, "--box", "0,1", "--epsilon", "1/1000", "--certificate", cert]) == 1
    c = json.loads(open(cert).read())
    assert c["claim"].endswith(">= lower on the box") and "upper" not in c
    assert Fraction(c["lower"]) > Fraction(1, 1000) and c["epsilon"] == "1/1000"
    got, out = _verify(capsys, cert, "1/1000")
    assert got == 1 and out["valid"] is True
    c["upper"] = "1/1000"                      # as written before session 42: still VALID, unread
    assert _verify(capsys, _write(tmp_path, "old.json", c), "1")[0] == 3
