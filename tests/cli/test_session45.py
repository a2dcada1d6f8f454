"""Session 45's audits (/work/scratch/s45: fibers, Ctrl-C sweep, swallowed stops): what an
answer says about where it holds, and what a Ctrl-C that lands at a given place leaves of it.

A Ctrl-C is simulated where a real one could land: a ``sys.settrace`` function runs the current
SIGINT handler (the command's ``_first``, which raises KeyboardInterrupt) at a chosen line — in a
walk after k regions, in the independent checker, in a named function."""

from __future__ import annotations

import json

import pytest

# 2-3-1: neuron 0 (x0 + x1 - 10) is dead on [-1, 1]^2, neuron 2 too; on R^2 all three bend
DEAD_ON_BOX = {"format": "netfibers.network", "version": 1, "activation": "relu",
               "layers": [{"weight": [[1, 1], [11, "29/2"], ["-8/7", "-13/7"]],
                           "bias": [-10, 8, "-13/2"]},
                          {"weight": [["-37/3", "2/7", "-28/5"]], "bias": [-5]}]}


@pytest.fixture
def dead(tmp_path):
    p = tmp_path / "dead_box.json"
    p.write_text(json.dumps(DEAD_ON_BOX))
    return p


def test_dim_names_the_domain_its_value_holds_on(dead, run):
    """F1: ``dim --box -1,1`` said "functional dimension 4" and the same net on R^2 "10", neither
    naming its domain, in the text or the JSON."""
    code, out, _ = run("dim", dead, "--box", "-1,1")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("functional dimension 4 of 13 parameters")
    assert lines[1] == "  domain: the cube [-1, 1]^2"
    code, out, _ = run("dim", dead)
    assert code == 0 and out.splitlines()[0].startswith("functional dimension 10 of 13")
    assert out.splitlines()[1] == "  domain: R^2"
    code, out, _ = run("dim", dead, "--box", "-1:1,0:1/3", "--json")
    d = json.loads(out)
    assert d["domain"] == {"text": "the box [-1, 1] x [0, 1/3]", "lo": ["-1", "0"],
                           "hi": ["1", "1/3"], "halfspaces": []}
    code, out, _ = run("dim", dead, "--orthant")
    assert out.splitlines()[1] == "  domain: the orthant x >= 0 of R^2"


def test_diff_and_equiv_name_the_domain(dead, tmp_path, run):
    other = dict(DEAD_ON_BOX, layers=[DEAD_ON_BOX["layers"][0],
                                      {"weight": [["-37/3", "2/7", "-28/5"]], "bias": [-4]}])
    b = tmp_path / "b.json"
    b.write_text(json.dumps(other))
    code, out, _ = run("diff", dead, b, "--box", "-1:1,0:2")
    lines = out.splitlines()         # (the output biases differ by 1: |a - b| = 1 everywhere)
    assert code == 0 and lines[0].startswith("max |a - b| = 1 at x = (")
    assert lines[1] == "  domain: the box [-1, 1] x [0, 2]"
    code, out, _ = run("equiv", dead, b, "--box", "0,1/10", "--epsilon", "2", "--json")
    d = json.loads(out)
    assert code == 0 and d["domain"]["text"] == "the cube [0, 1/10]^2"
    code, out, _ = run("equiv", dead, dead)
    assert code == 0 and "\n  domain: R^2" in out


class _InsideTheWalk:
    """A trace function: once the region walk has yielded *k* regions, its next line raises
    KeyboardInterrupt there (a Ctrl-C that landed inside the walk, which catches it and ends)."""

    def __init__(self, k: int):
        self.k, self.yields, self.fired = k, 0, False

    def __call__(self, frame, event, arg):
        if self.fired:
            return None
        code = frame.f_code
        if code.co_name == "_walk" and code.co_filename.endswith("walk.py"):
            if event == "return" and arg is not None:
                self.yields += 1
            elif event == "line" and self.yields >= self.k:
                self.fired = True
                raise KeyboardInterrupt
            return self
        return self


@pytest.mark.parametrize("k", [0, 3])
def test_fiber_stopped_inside_its_walk_reports_the_stop_not_a_dimension(k, run):
    """Ctrl-C audit F1: FIBDIM (R22) took the patterns of a walk a Ctrl-C had ended (complete
    False) as all of them, or none and sampled: ``fiber`` went on and exited 0 — a missed
    pattern makes N − rank too large (P10).  Now the stop goes on up: exit 3, interrupted."""
    import sys
    from pathlib import Path
    net = Path(__file__).resolve().parents[2] / "algebra" / "examples" / "t5_perm_scale_a.json"
    tracer = _InsideTheWalk(k)
    sys.settrace(tracer)
    try:
        code, out, err = run("fiber", net, "--json")
    finally:
        sys.settrace(None)
    assert tracer.fired
    d = json.loads(out)
    assert code == 3 and d["dimension"] is None, d
    assert "interrupted (Ctrl-C)" in d["reason"]


class _InTheChecker:
    """A trace function: the first line run inside the independent checker (semialgebraic/verify/)
    runs the SIGINT handler there (it raises KeyboardInterrupt): a Ctrl-C during a certificate's
    in-process self-check."""

    def __init__(self):
        self.fired = False

    def __call__(self, frame, event, arg):
        if self.fired:
            return None
        if event == "line" and "/semialgebraic/verify/" in frame.f_code.co_filename:
            self.fired = True
            import signal
            handler = signal.getsignal(signal.SIGINT)    # the command's Ctrl-C handler, as a
            if callable(handler):                        # real SIGINT would run it here
                handler(signal.SIGINT, frame)
            raise KeyboardInterrupt
        return self


def _traced_run(run, tracer, *argv):
    import sys
    sys.settrace(tracer)
    try:
        return run(*argv)
    finally:
        sys.settrace(None)


def test_a_ctrl_c_in_the_certificate_self_check_keeps_the_answer(dead, tmp_path, run):
    """Ctrl-C audit F6: a Ctrl-C while ``diff`` (or ``conserved``) re-checked its certificate
    in-process lost the finished answer (exit 3, one line).  The answer stands, the certificate
    is written and said not re-checked, because of the Ctrl-C (exit 3, as every Ctrl-C)."""
    other = dict(DEAD_ON_BOX, layers=[DEAD_ON_BOX["layers"][0],
                                      {"weight": [["-37/3", "2/7", "-28/5"]], "bias": [-4]}])
    b = tmp_path / "b.json"
    b.write_text(json.dumps(other))
    cert = tmp_path / "c.json"
    tracer = _InTheChecker()
    code, out, err = _traced_run(run, tracer, "diff", dead, b, "--box", "-1,1", "--certificate", cert)
    assert tracer.fired and code == 3, (out, err)            # (exit 3: every Ctrl-C)
    assert out.startswith("max |a - b| = 1 at x = (")
    assert f"certificate written, not re-checked in-process (Ctrl-C): run `netfibers verify {cert}`" in out
    assert run("verify", cert, dead, b)[0] == 0
    tracer = _InTheChecker()
    code, out, err = _traced_run(run, tracer, "conserved", dead, "--certificate", cert)
    assert tracer.fired and code == 3, (out, err)
    assert "not re-checked in-process: run `netfibers verify` on it" in out


def test_search_diff_says_a_ctrl_c_stopped_its_check_not_the_budget(dead, tmp_path, run):
    """Ctrl-C audit F4: ``search diff`` said "the certificate not checked (no time left in the
    budget)" after a Ctrl-C inside the check, 1 s into a 60 s budget."""
    tracer = _InTheChecker()
    code, out, err = _traced_run(run, tracer, "search", "diff", dead, dead, "--box", "-1,1",
                                 "--workers", "0", "--timeout", "60", "--json")
    assert tracer.fired, (out, err)
    d = json.loads(out)
    assert "no time left" not in d["reason"] and code == 3
    assert "the certificate not checked (interrupted (Ctrl-C))" in d["reason"]


def test_equiv_keeps_its_verdict_after_a_ctrl_c_in_its_self_check(dead, tmp_path, run):
    """Ctrl-C audit F6 (8): the general method's re-check without a timeout was not guarded."""
    c = json.loads(json.dumps(DEAD_ON_BOX))
    c["layers"][0]["weight"][1] = [22, 29]            # neuron 1 rescaled by 2, its out-weight / 2
    c["layers"][0]["bias"][1] = 16
    c["layers"][1]["weight"][0][1] = "1/7"
    b = tmp_path / "b.json"
    b.write_text(json.dumps(c))
    tracer = _InTheChecker()
    code, out, err = _traced_run(run, tracer, "equiv", dead, b, "--method", "general", "--json")
    d = json.loads(out)
    assert tracer.fired and code == 0 and d["answer"] is True, (out, err)
    assert "not re-checked in-process (Ctrl-C)" in d["reason"]


N2661 = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
    {"weight": [[-2, -2], [3, -1], [-3, -1], [1, 2], [-3, 0], [3, 0]], "bias": [2, 2, 2, -1, -1, 2]},
    {"weight": [[-3, -3, -2, 0, -1, -3], [-3, -3, -3, -1, 3, 3], [2, 2, -1, 0, -1, 1],
                [3, 0, -3, -1, -2, 0], [1, -3, -2, 3, -2, 2], [1, -1, -2, -3, 1, 3]],
     "bias": [1, -1, 2, -2, -2, 1]},
    {"weight": [[-2, -2, -3, -2, -2, -2]], "bias": [-2]}]}


class _InTheCoverWalk:
    """A trace function: the SIGINT handler runs inside the region walk of a certificate's cover
    (``cover_regions`` on the stack), after its first region."""

    def __init__(self):
        self.fired, self.yields = False, 0

    def __call__(self, frame, event, arg):
        if self.fired:
            return None
        code = frame.f_code
        if code.co_name == "_walk" and code.co_filename.endswith("walk.py"):
            f, names = frame, set()
            while f is not None:
                names.add(f.f_code.co_name)
                f = f.f_back
            if "cover_regions" in names:
                if event == "return" and arg is not None:
                    self.yields += 1
                elif event == "line" and self.yields >= 1:
                    self.fired = True
                    import signal
                    handler = signal.getsignal(signal.SIGINT)
                    if callable(handler):
                        handler(signal.SIGINT, frame)
                    raise KeyboardInterrupt
        return self


def test_dim_says_when_its_certificate_lost_the_upper_bound(tmp_path, run):
    """Ctrl-C audit F3: a Ctrl-C in the certificate's cover walk printed the same report as a full
    run (functional dimension 47, exact) while the file certified only >= 47."""
    net = tmp_path / "n2661.json"
    net.write_text(json.dumps(N2661))
    cert = tmp_path / "c.json"
    tracer = _InTheCoverWalk()
    code, out, err = _traced_run(run, tracer, "dim", net, "--certificate", cert)
    assert tracer.fired and code == 3, (out, err)           # (the file asked for is short)
    assert out.startswith("functional dimension 47 of 67 parameters")
    assert ("the certificate certifies functional dimension >= 47 only; the upper bound 47 is not "
            "in it (") in out and "interrupted (Ctrl-C))" in out
    c = json.loads(cert.read_text())
    assert c["lower"] == 47 and "upper" not in c
    tracer = _InTheCoverWalk()                                   # the JSON says it too (swallowed-
    code, out, err = _traced_run(run, tracer, "dim", net, "--certificate", cert, "--json")  # stop F6)
    d = json.loads(out)
    assert tracer.fired and code == 3 and d["functional_dimension"] == 47 and d["exact"] is True
    assert d["certificate_lower"] == 47 and d["certificate_upper"] is None and d["certificate_note"]
    code, out, _ = run("dim", net, "--certificate", cert)       # not stopped: the whole claim
    assert code == 0 and "certifies functional dimension >= 47 only" not in out
    assert json.loads(cert.read_text())["upper"] == 47


SPLIT = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
    {"weight": [[-3, "9/7"], [-6, "18/7"], ["25/3", 27]], "bias": ["17/5", "34/5", -36]},
    {"weight": [["-33/5", 28, -2]], "bias": [3]}]}          # neuron 1 = 2 x neuron 0
DEAD_ROW = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
    {"weight": [["-6/7", "-16/3"], [0, 0], [-38, "29/2"], ["-11/3", "23/2"]],
     "bias": [-6, -3, "4/3", 13]},
    {"weight": [[-6, "21/5", 7, "-32/5"]], "bias": ["13/5"]}]}   # neuron 1: zero row, bias -3


@pytest.mark.parametrize("net, fiber", [(SPLIT, 4), (DEAD_ROW, 5)])
def test_conserved_gives_the_fiber_dimension_dim_gives(net, fiber, tmp_path, run):
    """Fibers audit F3: on one hidden layer ``conserved`` said 4 <= fiber dimension <= 6 (a split
    neuron) and 5 <= ... <= 7 (a zero row on R^2) where ``dim`` and ``fiber`` say 4 and 5: it
    now caps N − rank as ``dim`` does (shared kinks stay shared; a zero row stays 0)."""
    p = tmp_path / "net.json"
    p.write_text(json.dumps(net))
    code, out, _ = run("conserved", p, "--json")
    d = json.loads(out)
    assert code == 0 and d["fiber_dimension"] == fiber
    assert any(n.startswith(f"fiber dimension <= {fiber} < N − rank = ") for n in d["notes"])
    code, out, _ = run("dim", p, "--json")
    assert json.loads(out)["fiber_dimension"] == fiber


class _InFunction:
    """A trace function: the SIGINT handler runs at the first line of the function *name*."""

    def __init__(self, name: str, k: int = 1):
        self.name, self.fired, self.k = name, False, k

    def __call__(self, frame, event, arg):
        if self.fired:
            return None
        if event == "line" and frame.f_code.co_name == self.name:
            self.k -= 1
            if self.k > 0:
                return self
            self.fired = True
            import signal
            handler = signal.getsignal(signal.SIGINT)
            if callable(handler):              # (it raises, or holds the Ctrl-C: as a signal)
                handler(signal.SIGINT, frame)
        return self


def test_dim_keeps_its_answer_when_a_ctrl_c_stops_its_certificate(tmp_path, run):
    """Ctrl-C audit F6: a Ctrl-C while ``dim --certificate`` built or wrote its certificate lost
    the answer (exit 3, one line).  The answer is printed, the file is not written, exit 3."""
    net = tmp_path / "n2661.json"
    net.write_text(json.dumps(N2661))
    cert = tmp_path / "c.json"
    tracer = _InFunction("write_certificate")
    code, out, err = _traced_run(run, tracer, "dim", net, "--certificate", cert, "--json")
    assert tracer.fired and code == 3, (out, err)
    d = json.loads(out)
    assert d["functional_dimension"] == 47 and d["certificate"] is None and not cert.exists()
    tracer = _InFunction("write_certificate")
    code, out, err = _traced_run(run, tracer, "dim", net, "--certificate", cert)
    assert out.rstrip().endswith("no certificate written: interrupted (Ctrl-C) while it was built")


def test_a_ctrl_c_while_the_answer_is_written_keeps_the_answer(dead, run):
    """Ctrl-C audit F7: a Ctrl-C inside the JSON encoder of a finished answer lost all of it
    (exit 3, one line: 19 trials of the sweep, in absorb, identify, symmetries).  The answer is
    written whole; a second Ctrl-C would kill as after any first one."""
    import signal
    tracer = _InFunction("_iterencode_dict")
    code, out, err = _traced_run(run, tracer, "dim", dead, "--box", "-1,1", "--json")
    assert tracer.fired and code == 0, (out, err)
    assert json.loads(out)["functional_dimension"] == 4
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler   # put back after


def test_conserved_keeps_its_laws_after_a_ctrl_c_in_the_fiber_check(tmp_path, run):
    """Ctrl-C audit F6 (1): a Ctrl-C in the nearby θ' rank of conserved's fiber check lost the
    report; the laws stand and the fiber dimension becomes an interval."""
    net = tmp_path / "n2661.json"
    net.write_text(json.dumps(N2661))
    tracer = _InFunction("_fiber_checked")
    code, out, err = _traced_run(run, tracer, "conserved", net, "--json")
    assert tracer.fired, (out, err)
    d = json.loads(out)
    assert d["number_of_laws"] is not None and d["fiber_dimension"] is None
    assert d["fiber_dimension_lower"] <= d["fiber_dimension_upper"]
    assert any("interrupted (Ctrl-C) while the fiber dimension was checked" in n for n in d["notes"])


COR11, OTHER = "R" "11", "R" "10"     # reproduce's row ids (the rows, not results cited here)


def test_reproduce_never_judges_an_item_on_a_stopped_computation():
    """Swallowed-stop audit F1: a Ctrl-C inside the random experiment of Corollary 11's row (which catches it and
    returns the trials run so far) left the row "reproduced" on 4 of its 20 trials.  The runner
    now marks an item during which a Ctrl-C came "not run (interrupted)", and skips the rest."""
    import sys
    from semialgebraic.budget import ctrl_c
    from semialgebraic.reproduce.runner import run as run_items
    tracer = _InFunction("random_experiment", 30)      # inside its trials, which catch it
    with ctrl_c():
        sys.settrace(tracer)
        try:
            rows, complete = run_items(only="absorption", ids={COR11, "Cor. 11 experiment", OTHER})
        except KeyboardInterrupt:   # (not raised on: it would end pytest's whole session)
            pytest.fail("the Ctrl-C escaped the runner")
        finally:
            sys.settrace(None)
    assert tracer.fired and not complete
    verdicts = {r.id: r.verdict for r in rows}
    assert verdicts[COR11] == "not run (interrupted)", rows
    assert all(v.startswith("not run") or k == OTHER for k, v in verdicts.items()), verdicts


def test_analyze_says_when_its_identifiability_search_was_stopped(tmp_path, run):
    """Swallowed-stop audit F5: a deadline inside analyze's search for a copy outside the orbit
    (a deep net) dropped the identifiability section without a word, exit 0."""
    import sys
    from semialgebraic.budget import BudgetExhausted
    net = {"format": "netfibers.network", "version": 1, "activation": "relu", "layers": [
        {"weight": [[1, 2], [-1, 1], [2, -1]], "bias": [0, 1, -1]},
        {"weight": [[1, -1, 1], [2, 1, -1]], "bias": [1, 0]},
        {"weight": [[1, -2]], "bias": [0]}]}
    p = tmp_path / "deep.json"
    p.write_text(json.dumps(net))

    def tracer(frame, event, arg):
        if event == "line" and frame.f_code.co_name == "identifiability_deep":
            sys.settrace(None)
            raise BudgetExhausted("the budget ran out during identifiability")
        return tracer
    sys.settrace(tracer)
    try:
        code, out, err = run("analyze", p, "--json")
    finally:
        sys.settrace(None)
    d = json.loads(out)
    assert code == 3 and d["complete"] is False, (out, err)
    assert d["identifiability"] == {"answer": None, "reason": "undecided: the budget ran out during "
                                    "identifiability during the search"}


@pytest.mark.parametrize("box", [[], ["--box", "0,16"], ["--box", "0:16,0:8" + ",0:16" * 62]])
def test_dim_certificate_of_a_one_hidden_layer_value(box, tmp_path, run):
    """The check of what a dim certificate certifies (above) read 'lower' from the one-hidden-
    layer theorem's one_hidden_layer_dimension certificate, which holds a value: an internal
    error on every one-hidden-layer net past the theorem's size (the --timeout 2 pass, digits)."""
    from pathlib import Path
    net = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "digits_64-32-10.npz"
    cert = tmp_path / "c.json"
    code, out, err = run("dim", net, *box, "--certificate", cert, "--json")
    d = json.loads(out)
    assert code == 0 and d["exact"] is True and "certificate_upper" not in d, (out, err)
    assert run("verify", cert)[0] == 0


@pytest.mark.parametrize("argv", [["diff", "--method", "bab"], ["equiv", "--epsilon", "1/2"],
                                  ["equiv", "--method", "general"]])
def test_a_ctrl_c_between_the_deciders_handlers_still_gives_a_report(argv, dead, tmp_path, run):
    """Swallowed-stop audit O1: a stop that lands on a statement of the deciders' own frames,
    outside their handlers (here: the first line of bounded_diff / the general method), gave one
    line.  ``diff`` and ``equiv --epsilon`` now give the value at one point (certified lower
    bound), ``equiv`` an undecided verdict."""
    other = dict(DEAD_ON_BOX, layers=[DEAD_ON_BOX["layers"][0],
                                      {"weight": [["-37/3", "2/7", "-28/5"]], "bias": [-4]}])
    b = tmp_path / "b.json"
    b.write_text(json.dumps(other))
    where = "bounded_diff" if argv[0] == "diff" or "--epsilon" in argv else "general_method"
    tracer = _InFunction(where)
    code, out, err = _traced_run(run, tracer, argv[0], dead, b, "--box", "-1,1", *argv[1:], "--json")
    assert tracer.fired, (out, err)
    d = json.loads(out)
    if argv[0] == "diff":
        assert code == 3 and d["lower"] == "1" and d["upper"] is None
        assert "interrupted (Ctrl-C) before the search could report its bounds" in d["reason"]
    elif "--epsilon" in argv:
        assert code == 1 and d["answer"] is False            # |a - b| = 1 > 1/2 at that point
    else:
        assert code == 3 and d["answer"] is None and "interrupted (Ctrl-C)" in d["reason"]


@pytest.mark.parametrize("item", ["R" "36", "R" "40"])
def test_reproduce_never_judges_an_interrupted_functional_dimension(item):
    """Re-run audit N1: a stop the functional dimension caught (its bounds returned) made the
    three-layer items that rank it FAILED, and one an internal error on a None value."""
    import sys
    from semialgebraic.reproduce.runner import run as run_items

    def tracer(frame, event, arg):      # a raw stop (an inner budget's, an API user's Ctrl-C)
        if event == "line" and frame.f_code.co_name == "sample":
            sys.settrace(None)
            raise KeyboardInterrupt
        return tracer
    sys.settrace(tracer)
    try:
        rows, complete = run_items(only="three-layer", ids={item})
    except KeyboardInterrupt:
        pytest.fail("the stop escaped the runner")
    finally:
        sys.settrace(None)
    assert [r.verdict for r in rows] == ["not run (interrupted)"] and not complete, rows


def test_a_ctrl_c_kept_by_a_search_still_ends_dim_and_conserved_with_exit_3(tmp_path, run):
    """Re-run audit N2/N3: a Ctrl-C in the nearby-theta check's walk (which keeps it as its partial
    result) left dim's fiber dimension open with exit 0 and no word; conserved's JSON did not say
    its certificate was not re-checked.  Both now say interrupted and exit 3."""
    net = tmp_path / "n2661.json"
    net.write_text(json.dumps(N2661))
    tracer = _InFunction("nearby_rank_jump")
    code, out, err = _traced_run(run, tracer, "dim", net, "--json")
    d = json.loads(out)
    assert tracer.fired and code == 3 and d["complete"] is False, (out, err)
    assert d["functional_dimension"] == 47 and d["interrupted"].startswith("interrupted (Ctrl-C)")
    cert = tmp_path / "c.json"
    tracer = _InTheChecker()
    code, out, err = _traced_run(run, tracer, "conserved", net, "--json", "--certificate", cert)
    d = json.loads(out)
    assert tracer.fired and code == 3 and d["certificate_checked"] is False and d["complete"] is False
    assert d["number_of_laws"] is not None and run("verify", cert)[0] == 0
