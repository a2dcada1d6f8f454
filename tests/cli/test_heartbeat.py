"""No silent long waits (budget audit L1, session 34): while a command runs, a line on stderr
says it is still working, in which phase and how much of its budget is spent, whenever no
progress text was shown for a while (on a terminal; NETFIBERS_HEARTBEAT=SECONDS anywhere)."""

from __future__ import annotations

import io
import sys
import time

from semialgebraic import budget as budget_mod
from semialgebraic.budget import Budget, BudgetExhausted, Progress, heartbeat, phase, quiet
from semialgebraic.cli import main


def _run_in_heartbeat(monkeypatch, body, command="dim", timeout=None, period="0.2"):
    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setenv("NETFIBERS_HEARTBEAT", period)
    with heartbeat(command, timeout):
        body()
    time.sleep(0.3)                  # the thread has stopped: nothing more is written
    return err.getvalue()


def test_a_silent_phase_gets_heartbeat_lines_naming_it(monkeypatch):
    def body():
        with phase("reading big.pt"):
            time.sleep(0.7)
    text = _run_in_heartbeat(monkeypatch, body, timeout=60)
    lines = text.splitlines()
    assert len(lines) >= 2
    assert all(line.startswith("netfibers dim: still working (reading big.pt), ") for line in lines)
    assert all(line.endswith(" of the 60 s budget") for line in lines)
    after = _run_in_heartbeat(monkeypatch, lambda: None)
    assert after == ""               # a quick command says nothing


def test_progress_text_and_the_answer_silence_the_heartbeat(monkeypatch):
    def with_bar():
        bar = Progress("regions", enabled=True)
        for _ in range(8):           # a progress line every 0.1 s: no heartbeat needed
            time.sleep(0.1)
            bar._last = 0.0
            bar.update()
        bar.close()
    text = _run_in_heartbeat(monkeypatch, with_bar, period="0.5")
    assert "still working" not in text and "regions: 8" in text

    def answered():
        quiet()                      # cli.emit: the answer is printed, no line inside it
        time.sleep(0.6)
    assert _run_in_heartbeat(monkeypatch, answered) == ""


def test_cli_heartbeat_in_a_long_verify(tmp_path, capsys, monkeypatch):
    """`verify` of a large certificate was 30 s without a word: now it says it is checking."""
    import json
    from semialgebraic.commands import shallow
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps({"type": "symmetry_path"}))

    def slow(c):
        time.sleep(0.7)
        return True, "fine"
    monkeypatch.setattr(shallow, "verify", slow)
    monkeypatch.setenv("NETFIBERS_HEARTBEAT", "0.2")
    assert main(["verify", str(cert)]) == 0
    got = capsys.readouterr()
    assert got.out.startswith("VALID symmetry_path certificate: fine")
    assert "netfibers verify: still working (checking the symmetry_path certificate)" in got.err


def test_integer_layers_stop_at_the_budget():
    """diff --timeout 1 of a 100-1000-10 pair spent 3.3 s after reading the files, converting
    its layers to integers (large common denominators) without a budget check; now each step of
    the conversion checks it (the engine is then skipped and the partial answer returned)."""
    from algebra.rationals import Q
    from semialgebraic.bab.symbolic import IntLayers
    Ws = [[[Q(1, 3), Q(2)], [Q(-1), Q(1, 7)]], [[Q(1), Q(1)]]]
    bs = [[Q(0), Q(1)], [Q(0)]]
    assert IntLayers(Ws, bs).den == [21, 1]
    spent = Budget(timeout=0)
    with spent.active():
        try:
            IntLayers(Ws, bs)
        except BudgetExhausted as exc:
            assert str(exc) == "timeout of 0 s reached"
        else:
            raise AssertionError("no budget check")
    assert budget_mod.current_phase() is None


def test_canon_has_a_timeout_and_writes_nothing_when_stopped(tmp_path, capsys, monkeypatch):
    """Budget audit L4/H1 leftover: canon of a 768-3072 block took 33 s with no --timeout.  Now
    the timeout (or Ctrl-C) stops it with exit 3 and neither -o nor --form is written."""
    import json
    from algebra.network import Network
    from semialgebraic.commands import shallow
    net = Network.from_rows([[[1, 2], [3, -1]], [[1, -2]]], [[1, 0], [5]])
    src = tmp_path / "n.json"
    src.write_text(json.dumps(net.to_dict()))
    out, form = tmp_path / "c.json", tmp_path / "f.json"
    args = ["canon", str(src), "-o", str(out), "--form", str(form), "--timeout", "30"]
    assert main(args) == 0
    assert out.exists() and form.exists()
    out.unlink()
    form.unlink()
    capsys.readouterr()

    def slow(*a, **k):
        raise BudgetExhausted("timeout of 30 s reached")
    monkeypatch.setattr(shallow, "canonical_form", slow)
    assert main(args) == 3
    got = capsys.readouterr().out
    assert got.strip() == "timeout of 30 s reached before the canonical form was complete; nothing written"
    assert not out.exists() and not form.exists()
    assert main(args + ["--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["fingerprint"] is None and data["complete"] is False


def test_embedded_dask_workers_ignore_ctrl_c(monkeypatch):
    """Budget audit M3: Ctrl-C in a terminal reaches the Dask worker processes too, and each
    printed a KeyboardInterrupt traceback (about 60 lines) before the partial report.  The
    embedded cluster's workers now ignore SIGINT (the plugin, run in each worker's main
    thread); a worker of the user's own cluster (--scheduler) is left alone."""
    import signal
    pytest = __import__("pytest")
    pytest.importorskip("distributed")
    from semialgebraic.distributed import cluster
    from semialgebraic.distributed.worker_plugin import IgnoreCtrlC
    before = signal.getsignal(signal.SIGINT)
    try:
        IgnoreCtrlC().setup(None)
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    registered = []

    class FakeClient:
        def __init__(self, *a, **k):
            pass

        def register_plugin(self, plugin):
            registered.append(type(plugin).__name__)

        def scheduler_info(self):
            return {"workers": {"w": 1}}
    import distributed
    monkeypatch.setattr(distributed, "Client", FakeClient)
    cluster.DaskExecutor(scheduler="tcp://127.0.0.1:1")
    assert registered == ["SingleThreaded"]
    monkeypatch.setattr(distributed, "LocalCluster", lambda *a, **k: object())
    monkeypatch.setattr(cluster, "_fork_workers", lambda: None)
    registered.clear()
    cluster.DaskExecutor(workers=1)
    assert registered == ["SingleThreaded", "IgnoreCtrlC"]


def test_verify_has_a_timeout(tmp_path, capsys, monkeypatch):
    """Input audit L8 (session 35): verify had no --timeout (a 1.3 MB bab_bound took 20 s, a
    100 MB one would take 25 min).  Stopped, it says UNCHECKED and exits 3: neither valid nor
    broken."""
    import json
    from semialgebraic.commands import shallow
    cert = tmp_path / "c.json"
    cert.write_text(json.dumps({"type": "bab_bound"}))

    def slow(c):
        for _ in range(200):
            time.sleep(0.01)
        return True, "fine"
    monkeypatch.setattr(shallow, "verify", slow)
    assert main(["verify", str(cert), "--timeout", "0.3"]) == 3
    assert capsys.readouterr().out.startswith("UNCHECKED bab_bound certificate: timeout of 0.3 s")
    assert main(["verify", str(cert), "--timeout", "30"]) == 0
