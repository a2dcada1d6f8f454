"""CLI: identify, fiber, symmetries, analyze (three-layer bottleneck)."""

import json
import subprocess
import sys
from importlib import resources

import pytest

from semialgebraic.verify import verify


def ex(name):
    return str(resources.files("algebra") / "examples" / f"{name}.json")




def test_identify_codes_and_certificate(capsys, tmp_path, run):
    code, out, _ = run(["identify", ex("masked_bottleneck")])
    assert code == 1 and "masked" in out and "dead" in out
    code, out, _ = run(["identify", ex("t5_perm_scale_a")])
    assert code == 0 and out.startswith("identifiable")
    cert = tmp_path / "c.json"
    code, out, _ = run(["identify", ex("t3_dead_a"), "--json", "--certificate", str(cert)])
    d = json.loads(out)
    assert code == 1 and d["answer"] is False and d["hypotheses"][0]["holds"] is True
    assert verify(json.loads(cert.read_text()))[0]
    # p5 (G6 fails: non-generic): its second-layer rows are positive, so both neurons are
    # always active on the orthant: a bias trade is a certified copy (session 37; undecided
    # naming G6 before)
    code, out, _ = run(["identify", ex("p5_rank1")])
    assert code == 1 and "always active" in out and "S4" in out


def test_identify_bad_input(capsys, tmp_path, run):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    code, _, err = run(["identify", str(bad)])
    assert code == 2 and err.count("\n") == 1
    code, _, err = run(["identify", ex("t4_kink_a").replace("t4_kink_a", "nope")])
    assert code == 2


def test_fiber_text_json_latex(capsys, run):
    code, out, _ = run(["fiber", ex("masked_bottleneck")])
    assert code == 0 and "fiber dimension: 8" in out and "FIBDIM" in out
    code, out, _ = run(["fiber", ex("masked_bottleneck"), "--json"])
    d = json.loads(out)
    assert d["dimension"] == 8 and d["number_of_components"] == 8
    assert d["components"][0]["equalities"] and d["components"][0]["sample"]
    code, out, _ = run(["fiber", ex("t6_flip_a"), "--latex"])
    assert code == 0 and out.startswith(r"\mathrm{Fib}")
    code, out, _ = run(["fiber", ex("p5_rank1")])
    assert code == 3 and "non-generic" in out


def test_symmetries_graphml(capsys, tmp_path, run):
    g = tmp_path / "g.graphml"
    code, out, _ = run(["symmetries", ex("t7_signflip_a"), "--graphml", str(g)])
    assert code == 0 and "S7" in out and g.exists()
    code, out, _ = run(["symmetries", ex("t6_flip_a"), "--json"])
    d = json.loads(out)
    assert d["structure"]["kappa_plus"] == 1 and d["graph"]["edges"][0]["step"] == "S5"


def test_analyze_default_end_to_end(capsys, tmp_path, run):
    cert = tmp_path / "eq.json"
    code, out, _ = run(["analyze", "--json", "--certificate", str(cert)])
    d = json.loads(out)
    assert code == 0
    assert d["structure"]["masked"] == 0 and d["identifiability"]["answer"] is False
    assert d["identifiability"]["certificate_verified"] is True
    assert d["fiber"]["dimension"] == 8 and d["fiber"]["jacobian_dimension"] == 8
    assert d["equivalence"]["transformed"]["answer"] is True
    assert d["equivalence"]["transformed"]["certificate_verified"] is True
    assert any(s["step"] == "S6" for s in d["equivalence"]["transformed"]["steps_applied"])
    assert d["equivalence"]["perturbed"]["answer"] is False
    assert d["equivalence"]["perturbed"]["certificate_verified"] is True
    assert verify(json.loads(cert.read_text()))[0]
    code, out, _ = run(["analyze"])
    assert code == 0 and "== fiber" in out and "verified: True" in out


def test_verify_command_on_written_certificate(tmp_path, capsys, run):
    cert = tmp_path / "c.json"
    run(["identify", ex("t1_masked"), "--certificate", str(cert)])
    r = subprocess.run([sys.executable, "-m", "semialgebraic.cli", "verify", str(cert)],
                       capture_output=True, text=True)
    assert r.returncode in (0, 2)      # 2 only if the verify command is not registered yet


def test_analyze_timeout_partial(capsys, run):
    code, out, _ = run(["analyze", "--timeout", "0.001", "--json"])
    d = json.loads(out)
    assert code == 3 and d["complete"] is False


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the swallowed Timeout, on purpose
def test_deadline_is_not_lost_when_the_signal_lands_where_exceptions_are_swallowed():
    """A Timeout raised inside a gc callback or __del__ is swallowed by Python; the deadline
    must still end the block (a flaky 'analyze --timeout' exit 0 came from this)."""
    import time

    from semialgebraic.commands.bottleneck import Timeout, deadline

    class Swallow:
        def __del__(self):
            time.sleep(0.05)             # the alarm fires here; Python ignores the exception

    with pytest.raises(Timeout):
        with deadline(0.01):
            Swallow()                    # refcount 0 at once: __del__ runs and swallows it
            time.sleep(0.001)


def test_a_canonical_form_refutation_puts_its_point_at_the_top_of_the_json(tmp_path, capsys):
    """``equiv --json`` has a top-level ``point`` whichever method decided (bottleneck-canon kept
    it only inside the certificate: new-user audit); it is the certificate's x, where a and b
    differ."""
    import json as _json
    from algebra.io import load
    from algebra.rationals import to_q
    from semialgebraic.cli import main
    a_path = "algebra/examples/masked_bottleneck.json"
    a = load(a_path)
    b = a.with_parameter("W3[0,0]", a.weights[2].to_rows()[0][0] + 1)
    pb = tmp_path / "b.json"
    pb.write_text(_json.dumps(b.to_dict()))
    assert main(["equiv", a_path, str(pb), "--json"]) == 1
    d = _json.loads(capsys.readouterr().out)
    assert d["method"] == "bottleneck-canon" and d["point"] == d["certificate"]["x"]
    x = [to_q(v) for v in d["point"]]
    assert a.evaluate(x) != b.evaluate(x)
