"""Session 46: from its decision on, a command keeps its answer through a first Ctrl-C (the
session-45 re-run audit's O2: ``equiv --certificate`` wrote the file, then gave one line and
exit 3; F7: a Ctrl-C while the verdict was turned into JSON lost it), and ``dim --certificate``
names the file it wrote.

The Ctrl-C is simulated as in ``test_session45.py``: a trace function runs the SIGINT handler at
the first line of a named function, as a signal landing there would."""

from __future__ import annotations

import json
import signal

import numpy as np
import pytest

from semialgebraic.verify import verify
from tests.cli.test_session45 import DEAD_ON_BOX, _InFunction, _traced_run


class _InVerdictJson(_InFunction):
    """The SIGINT handler at the first line of ``Verdict.to_json`` (semialgebraic/verdict.py)."""

    def __init__(self):
        super().__init__("to_json")

    def __call__(self, frame, event, arg):
        if not self.fired and event == "line" and frame.f_code.co_name == "to_json" and \
                not frame.f_code.co_filename.endswith("verdict.py"):
            return self
        return super().__call__(frame, event, arg)


@pytest.fixture
def pair(tmp_path):
    a = tmp_path / "a.json"
    a.write_text(json.dumps(DEAD_ON_BOX))
    other = dict(DEAD_ON_BOX, layers=[DEAD_ON_BOX["layers"][0],
                                      {"weight": [["-37/3", "2/7", "-28/5"]], "bias": [-4]}])
    b = tmp_path / "b.json"
    b.write_text(json.dumps(other))
    return a, b


@pytest.mark.parametrize("argv, code, key, value", [
    (["equiv", "A", "A"], 0, "answer", True),
    (["equiv", "A", "B", "--box", "-1,1"], 1, "answer", False),
    (["equiv", "A", "B", "--box", "-1,1", "--epsilon", "2"], 0, "answer", True),
    (["equiv", "A", "A", "--box", "-1,1", "--epsilon", "1/2"], 0, "answer", True),
    (["diff", "A", "B", "--box", "-1,1", "--method", "bab"], 0, "lower", "1"),
])
def test_a_ctrl_c_while_the_certificate_is_written_keeps_the_answer(argv, code, key, value, pair,
                                                                     tmp_path, run):
    """The answer is printed whole with its verdict's exit code, and the certificate file is
    written whole (VALID), not left on disk beside a one-line error."""
    a, b = pair
    cert = tmp_path / "c.json"
    argv = [{"A": a, "B": b}.get(x, x) for x in argv]
    tracer = _InFunction("write_certificate")
    got, out, err = _traced_run(run, tracer, *argv, "--certificate", cert, "--json")
    assert tracer.fired and got == code, (out, err)
    assert json.loads(out)[key] == value
    assert verify(json.loads(cert.read_text()))[0]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler   # put back after


def test_a_ctrl_c_while_a_verdict_becomes_json_keeps_the_answer(pair, run):
    a, b = pair
    tracer = _InVerdictJson()
    got, out, err = _traced_run(run, tracer, "equiv", a, b, "--box", "-1,1", "--json")
    assert tracer.fired and got == 1, (out, err)
    assert json.loads(out)["answer"] is False


def test_absorb_all_stops_after_a_ctrl_c_in_a_row_and_keeps_the_rows(tmp_path, run):
    """``absorb --all``: a Ctrl-C while a decided block's row is built keeps that row and leaves
    the blocks after it undecided (not started), instead of losing the whole answer."""
    up, down = [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]          # absorbable
    arrays = {f"model.layers.{i}.mlp.{k}.weight": v for i in range(3)
              for k, v in (("up_proj", up), ("down_proj", down))}
    path = tmp_path / "llama.npz"
    np.savez(path, **{k: np.array(v, dtype=np.float32) for k, v in arrays.items()})
    tracer = _InVerdictJson()                     # the first block's verdict
    got, out, err = _traced_run(run, tracer, "absorb", path, "--activation", "relu", "--all", "--json")
    assert tracer.fired and got == 3, (out, err)
    d = json.loads(out)
    assert [blk["verdict"] for blk in d["blocks"]] == ["absorbable", "undecided", "undecided"]
    assert "not started" in d["blocks"][1]["reason"]


def test_dim_names_the_certificate_it_wrote(pair, tmp_path, run):
    a, _ = pair
    cert = tmp_path / "dim.json"
    got, out, _ = run("dim", a, "--box", "-1,1", "--certificate", cert)
    assert got == 0 and f"  certificate written to {cert}" in out.splitlines()
    assert verify(json.loads(cert.read_text()))[0]


@pytest.mark.parametrize("where", ["bab_bound_certificate", "write_certificate"])
def test_search_diff_keeps_its_answer_through_a_ctrl_c_in_its_certificate(where, pair, tmp_path, run):
    """``search diff``: a Ctrl-C while the tree's certificate was assembled (s45 Ctrl-C audit
    F6.10) or written gave one line.  The answer is printed; a Ctrl-C in the assembly leaves the
    certificate unchecked and says so (exit 3), one while it is written keeps the verdict's code."""
    a, b = pair
    cert = tmp_path / "s.json"
    tracer = _InFunction(where)
    got, out, err = _traced_run(run, tracer, "search", "diff", a, b, "--box", "-1,1", "--workers", "0",
                                "--certificate", cert, "--json")
    assert tracer.fired, (out, err)
    d = json.loads(out)
    assert d["lower"] == "1" and verify(json.loads(cert.read_text()))[0]
    if where == "bab_bound_certificate":
        assert got == 3 and "not checked (interrupted (Ctrl-C))" in d["reason"]
    else:
        assert got == 0


@pytest.mark.parametrize("tracer", [lambda: _InFunction("write_certificate"), _InVerdictJson])
def test_identify_keeps_its_answer_through_a_ctrl_c_once_decided(tracer, pair, tmp_path, run):
    a, _ = pair
    cert = tmp_path / "i.json"
    ref_code, ref, _ = run("identify", a, "--json")
    t = tracer()
    got, out, err = _traced_run(run, t, "identify", a, "--certificate", cert, "--json")
    assert t.fired and got == ref_code, (out, err)
    assert json.loads(out)["answer"] == json.loads(ref)["answer"]
    assert verify(json.loads(cert.read_text()))[0]


def test_symmetries_names_a_cancelling_group(tmp_path, run):
    """2 relu(z) − 4 relu(z/2) = 0: the two neurons' hyperplane moves freely (the fibers audit's
    par_pos2, whose fiber is 8); a group that does not cancel is not named so."""
    from algebra.network import Network
    from tests.semialgebraic.verify.test_fiber_floor import PAIR
    p = tmp_path / "pair.json"
    p.write_text(json.dumps(PAIR.to_dict()))
    code, out, _ = run("symmetries", p)
    assert code == 0 and "neurons 2, 3 cancel on their hyperplane" in out
    assert "fiber: dimension 8" in out
    other = Network.from_rows([[[1], [2], ["1/3"]], [[1, 1, -8]]], [[1, 2, "1/3"], [0]])
    p.write_text(json.dumps(other.to_dict()))
    code, out, _ = run("symmetries", p)
    assert "cancel on their hyperplane" not in out and "same orientation" in out


# the s46 cancelling audit's n4: on [-1, 1] the certificate's moves give the fiber 27, `dim`'s
# own 26 (they differ: the certificate counts a dead neuron's moves its way)
N4 = {"layers": [{"weight": [[-2], ["-7/3"], ["-4/3"]], "bias": ["5/3", -7, "4/5"]},
                 {"weight": [[0, 4, "5/2"], [0, 8, 5], [0, "-2/3", "-5/3"], [0, "7/5", "-4/3"],
                             [0, "-8/3", 3]], "bias": [1, 2, -100, 1, 5]},
                 {"weight": [["-2/5", "1/5", "-6/5", "9/2", 2], ["-5/2", "5/4", 8, -6, 6]],
                  "bias": ["4/5", -2]}]}


def test_dim_never_prints_a_fiber_below_its_own_certificate(tmp_path, run):
    p = tmp_path / "n4.json"
    p.write_text(json.dumps(N4))
    code, out, _ = run("dim", p, "--box", "-1,1", "--json")
    plain = json.loads(out)
    code, out, _ = run("dim", p, "--box", "-1,1", "--certificate", tmp_path / "c.json", "--json")
    d = json.loads(out)
    cert = json.loads((tmp_path / "c.json").read_text())
    assert d["fiber_lower"] == cert["fiber_lower"] == 27 and d["fiber_upper"] == 28
    assert plain["fiber_lower"] <= 27 and verify(cert)[0]


def test_conserved_keeps_its_answer_through_a_ctrl_c_in_its_certificate_write(pair, tmp_path, run):
    """The s46 Ctrl-C audit's F-CONS-WRITE: a Ctrl-C while `conserved` wrote its certificate gave
    one line; now the laws are printed and the file written whole (exit 0: they were certified)."""
    a, _ = pair
    cert = tmp_path / "laws.json"
    ref_code, ref, _ = run("conserved", a, "--json")
    tracer = _InFunction("write_certificate")
    got, out, err = _traced_run(run, tracer, "conserved", a, "--certificate", cert, "--json")
    assert tracer.fired and got == ref_code == 0, (out, err)
    assert json.loads(out)["number_of_laws"] == json.loads(ref)["number_of_laws"]
    assert verify(json.loads(cert.read_text()))[0]


def test_conserved_json_says_a_ctrl_c_cut_its_self_check(pair, tmp_path, run):
    """F-CONS-REASON: the JSON of a `conserved` run whose certificate check a Ctrl-C cut said
    complete false with the reason "closed at the generators" only (a setdefault that never
    set anything): it names the Ctrl-C now."""
    a, _ = pair
    tracer = _InFunction("_valid_within")
    got, out, err = _traced_run(run, tracer, "conserved", a, "--certificate", tmp_path / "c.json", "--json")
    d = json.loads(out)
    assert tracer.fired and got == 3 and d["complete"] is False, (out, err)
    assert "interrupted (Ctrl-C)" in d["reason"] and d["certificate_checked"] is False


class _AfterTheAnswer(_InFunction):
    """The SIGINT handler at the first line of ``budget.ctrl_c`` run after ``emit`` returned (the
    handlers being taken down once the command has returned)."""

    def __init__(self):
        super().__init__("ctrl_c")
        self.emitted = False

    def __call__(self, frame, event, arg):
        if event == "return" and frame.f_code.co_name == "emit":
            self.emitted = True
        if not self.emitted and event == "line" and frame.f_code.co_name == "ctrl_c":
            return self
        return super().__call__(frame, event, arg)


def test_a_ctrl_c_after_the_answer_keeps_its_exit_code(pair, tmp_path, run):
    """F-TAIL: a Ctrl-C after the answer was printed (while `cli` takes its handlers down) gave
    exit 3 and "interrupted" beside a complete answer and a VALID certificate."""
    a, b = pair
    cert = tmp_path / "c.json"
    tracer = _AfterTheAnswer()
    got, out, err = _traced_run(run, tracer, "equiv", a, b, "--box", "-1,1", "--certificate", cert, "--json")
    assert tracer.fired and got == 1 and err == "", (out, err)
    assert json.loads(out)["answer"] is False and verify(json.loads(cert.read_text()))[0]
    # the handlers were taken down all the same: SIGINT's own back, no watchdog left running
    # (one left in a pytest worker ended it 5 s later, once idle: os._exit)
    import threading
    import time
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    time.sleep(0.2)
    assert not any(t.name == "netfibers-ctrl-c" and t.is_alive() for t in threading.enumerate())


@pytest.mark.parametrize("where", ["region_cover_certificate"])
def test_equiv_epsilon_after_a_ctrl_c_in_its_equality_check(where, pair, tmp_path, run):
    """F-EPS / F-EPS-BAB: a Ctrl-C in the exact equality check that ``equiv --epsilon`` tries
    first (in its region walk, kept by the walk, or in its certificate's assembly: one line) —
    branch and bound then answers from what it does at once, and the answer says a Ctrl-C came.
    b differs from a only where neuron 0, dead on the box, is active: equal on [-1, 1]^2."""
    a, _ = pair
    c = tmp_path / "c.json"
    far = json.loads(json.dumps(DEAD_ON_BOX))
    far["layers"][1]["weight"][0][0] = "5"
    c.write_text(json.dumps(far))
    tracer = _InFunction(where)
    got, out, err = _traced_run(run, tracer, "equiv", a, c, "--box", "-1,1", "--epsilon", "1/2", "--json")
    assert tracer.fired, (out, err)
    d = json.loads(out)
    assert got in (0, 3) and d["answer"] in (True, None), (out, err)
    assert "interrupted (Ctrl-C)" in d["reason"]


class _EchoedAsTypeError(_InFunction):
    """The SIGINT handler at the first line of *name*, its KeyboardInterrupt turned into a
    TypeError there (what numpy does to a Ctrl-C in its Python callbacks: F-NUMPY)."""

    def __call__(self, frame, event, arg):
        if not self.fired and event == "line" and frame.f_code.co_name == self.name:
            self.fired = True
            try:
                signal.getsignal(signal.SIGINT)(signal.SIGINT, frame)
            except KeyboardInterrupt:
                raise TypeError("Cannot compare structured arrays unless they have a common dtype")
        return self


def test_absorb_all_reads_an_error_after_a_ctrl_c_as_the_ctrl_c(tmp_path, run):
    up, down = [[1, 0], [0, 1], [1, 1]], [[-1, 0, 2], [0, -1, 3]]
    arrays = {f"model.layers.{i}.mlp.{k}.weight": v for i in range(2)
              for k, v in (("up_proj", up), ("down_proj", down))}
    path = tmp_path / "llama.npz"
    np.savez(path, **{k: np.array(v, dtype=np.float32) for k, v in arrays.items()})
    tracer = _EchoedAsTypeError("absorbable")
    got, out, err = _traced_run(run, tracer, "absorb", path, "--activation", "relu", "--all", "--json")
    assert tracer.fired and got == 3, (out, err)
    d = json.loads(out)
    assert [b["verdict"] for b in d["blocks"]] == ["undecided", "undecided"]


def test_search_regions_keeps_the_regions_through_a_ctrl_c_in_its_check(pair, run):
    """F-SEARCH-REGIONS: a Ctrl-C while `search regions` checked its region_cover certificate in
    process gave one line and no JSON; now the regions are reported, the certificate said not
    checked because of the Ctrl-C, exit 3."""
    a, _ = pair
    ref_code, ref, _ = run("search", "regions", a, "--box", "-1,1", "--workers", "0", "--json")
    tracer = _InFunction("finish")
    got, out, err = _traced_run(run, tracer, "search", "regions", a, "--box", "-1,1", "--workers", "0",
                                "--json")
    assert tracer.fired and ref_code == 0 and got == 3, (out, err)
    d, r = json.loads(out), json.loads(ref)
    assert d["number_of_regions"] == r["number_of_regions"] and d["certificate_checked"] is False
    assert "the certificate not checked (interrupted (Ctrl-C))" in d["reason"]


def _t5(name="t5_perm_scale_a.json"):
    from pathlib import Path
    return Path(__file__).resolve().parents[2] / "algebra" / "examples" / name


@pytest.mark.parametrize("cmd", ["fiber", "symmetries"])
def test_fiber_and_symmetries_keep_their_answer_once_found(cmd, run):
    """F-BN-OUT: a Ctrl-C while `fiber` / `symmetries` turned the answer into JSON gave one line."""
    ref_code, ref, _ = run(cmd, _t5(), "--json")
    tracer = _InFunction("to_json")
    got, out, err = _traced_run(run, tracer, cmd, _t5(), "--json")
    assert tracer.fired and got == ref_code, (out, err)
    assert json.loads(out) == json.loads(ref)


@pytest.mark.parametrize("where, key", [("component_copies", "reason"), ("_valid_within", "certificate_checked")])
def test_symmetries_json_says_when_a_ctrl_c_stopped_its_certificate(where, key, tmp_path, run):
    """F-SYM-CERT / F-BN-SELFCHECK: a Ctrl-C while `symmetries --certificate` made its
    certificate (none written) or re-checked it (written, not re-checked): the JSON said
    neither; now `complete` false with the reason, or `certificate_checked` false; exit 3."""
    cert = tmp_path / "s.json"
    tracer = _InFunction(where)
    got, out, err = _traced_run(run, tracer, "symmetries", _t5(), "--certificate", cert, "--json")
    d = json.loads(out)
    assert tracer.fired and got == 3, (out, err)
    if key == "reason":
        assert d["complete"] is False and "interrupted (Ctrl-C)" in d["reason"] and not cert.exists()
    else:
        assert d["certificate_checked"] is False and verify(json.loads(cert.read_text()))[0]


class _ImportCutByTheAlarm(_InFunction):
    """At the first line of *name*: what the --timeout alarm does when it lands in the import of
    a C extension (numpy: ImportError "initialization failed"; once in CI, exit 4)."""

    def __call__(self, frame, event, arg):
        if not self.fired and event == "line" and frame.f_code.co_name == self.name:
            self.fired = True
            import semialgebraic.budget as budget
            budget._ALARMS[0] += 1
            raise ImportError("initialization failed")
        return self


def test_identify_reads_an_import_its_deadline_cut_as_the_deadline(tmp_path, run):
    from tests.cli.test_identify_plot_partial import _bottleneck
    p = _bottleneck(tmp_path, 6, 30)
    tracer = _ImportCutByTheAlarm("structure")
    got, out, err = _traced_run(run, tracer, "identify", p, "--json", "--timeout", "60")
    assert tracer.fired and got == 3, (out, err)
    d = json.loads(out)
    assert d["answer"] is None and d["complete"] is False and "timeout of 60 s" in d["reason"]
