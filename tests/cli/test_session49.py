"""Session 49: a layer whose exact matrix the budget cannot pay for is not begun (s48 hostile
audit K2: a 12 kB Keras ``.h5`` declaring a 7000 x 7000 fill-value kernel was made 3.7 GB of
exact entries in one FLINT call that no signal stops: SIGABRT, or 32 s at ``--timeout 10``).

The Keras reader now keeps kernels as the float arrays they are (as the other readers do), and
``algebra.network.CONVERSION_GUARDS`` lets :func:`semialgebraic.budget.conversion_guard` refuse
a conversion whose expected time (``CONVERT_RATE``) exceeds what the budget has left.  The
rate is lowered here so that small files stand for large ones."""

from __future__ import annotations

import json
import time
from fractions import Fraction

import numpy as np
import pytest

from semialgebraic import budget as budget_mod

h5py = pytest.importorskip("h5py")

N = 400                     # 160 000 entries: past the guard's 100 000


def _fill_h5(path, n=N, fill=0.1):
    """A Keras Sequential .h5 whose first kernel (n x n) is stored as its fill value only."""
    with h5py.File(path, "w") as f:
        f.attrs["model_config"] = json.dumps({"class_name": "Sequential", "config": {
            "name": "s", "layers": [
                {"class_name": "Dense", "config": {"name": "d1", "units": n, "activation": "relu"}},
                {"class_name": "Dense", "config": {"name": "d2", "units": 1,
                                                   "activation": "linear"}}]}})
        f.attrs["keras_version"] = "2.15.0"
        g = f.create_group("model_weights")
        g.attrs["layer_names"] = [b"d1", b"d2"]
        for name, shape in (("d1", (n, n)), ("d2", (n, 1))):
            lg = g.create_group(name)
            lg.create_dataset(f"{name}/kernel:0", shape=shape, dtype="f4", fillvalue=fill,
                              chunks=True, compression="gzip")
            lg.create_dataset(f"{name}/bias:0", data=np.zeros(shape[1], np.float32))
            lg.attrs["weight_names"] = [f"{name}/kernel:0".encode(), f"{name}/bias:0".encode()]
    return path


def test_keras_kernels_stay_float_arrays(tmp_path):
    from algebra.io import load
    from algebra.rationals import Q
    net = load(_fill_h5(tmp_path / "k.h5", n=50))
    assert net._wq[0] is None and net._wq[1] is None          # nothing made rational on reading
    x = [Q(1, 2)] * 50
    f = Fraction(float(np.float32(0.1)))
    w = Q(f.numerator, f.denominator)                            # the exact float32 of 0.1
    assert net.evaluate(x) == (50 * w * (50 * w / 2),)
    assert net.layer(0)[0][3, 4] == w


@pytest.mark.parametrize("command", [["dim"], ["symmetries"], ["fiber"], ["canon"],
                                     ["regions", "--box", "0,1"]])
def test_a_conversion_the_budget_cannot_pay_for_is_not_begun(run, tmp_path, monkeypatch, command):
    path = _fill_h5(tmp_path / "k.h5")
    monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)      # 160 000 entries: 160 s
    t = time.monotonic()
    code, out, err = run(command[0], path, *command[1:], "--timeout", "20")
    assert code == 3, (out, err)
    assert time.monotonic() - t < 15
    assert "entries) takes about" in out + err and "left of the budget" in out + err


def test_without_a_budget_the_conversion_runs(tmp_path, monkeypatch):
    from algebra.io import load
    monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)
    net = load(_fill_h5(tmp_path / "k.h5"))
    assert net.layer(0)[0].shape == (N, N)                     # no active budget: no refusal


def test_the_guard_sees_active_budgets_and_deadlines(monkeypatch):
    monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)
    budget_mod.conversion_guard(10**6, "big")                 # nothing active: nothing said
    with budget_mod.conversions_until(None):
        budget_mod.conversion_guard(10**6, "big")
    with budget_mod.conversions_until(5000.0):
        budget_mod.conversion_guard(10**6, "big")             # 1000 s < 5000 s left
    with budget_mod.conversions_until(5.0), pytest.raises(budget_mod.BudgetExhausted,
                                                          match="big .1000000 entries"):
        budget_mod.conversion_guard(10**6, "big")
    b = budget_mod.Budget(timeout=5)
    with b.active(), pytest.raises(budget_mod.BudgetExhausted):
        budget_mod.conversion_guard(10**6, "big")
    assert b.exhausted() and "big" in b.reason                 # the budget says why it stopped


def test_the_guard_watches_memory(monkeypatch):
    monkeypatch.setattr(budget_mod, "CONVERT_BYTES", 10**9)   # 1 GB an entry
    with budget_mod.Budget(timeout=None).active(), pytest.raises(budget_mod.BudgetExhausted,
                                                                match="memory limit"):
        budget_mod.conversion_guard(10**6, "big")


def test_guard_registered_on_networks():
    assert budget_mod.conversion_guard in __import__("algebra.network").network.CONVERSION_GUARDS


NET_T10 = {"format": "netfibers.network", "version": 1, "activation": "relu",
           "layers": [{"weight": [[1]], "bias": [1]}, {"weight": [[2]], "bias": [-1]},
                      {"weight": [[3]], "bias": [0]}]}


def test_an_edited_search_checkpoint_is_an_input_error(run, tmp_path):
    """s48 hostile audit S2: two finished regions' patterns swapped in a ``search regions``
    checkpoint were caught by the final region_cover check (no false count) but reported as
    exit 4 "a bug"; now exit 2 naming the checkpoint.  An unedited one resumes (exit 0)."""
    net = tmp_path / "net.json"
    net.write_text(json.dumps(NET_T10))
    ck = tmp_path / "ck.json"
    argv = ("search", "regions", net, "--box", "-1,1", "--workers", "0", "--timeout", "30",
            "--checkpoint", ck)
    code, out, _ = run(*argv)
    assert code == 0 and out.startswith("2 activation regions")
    good = ck.read_text()
    lines = good.splitlines()
    recs = [json.loads(line) for line in lines[1:]]
    assert len(recs) == 2
    a, b = recs[0]["regions"][0]["pattern"], recs[1]["regions"][0]["pattern"]
    recs[0]["regions"][0]["pattern"], recs[1]["regions"][0]["pattern"] = b, a
    ck.write_text("\n".join([lines[0]] + [json.dumps(r) for r in recs]) + "\n")
    code, out, err = run(*argv)
    assert code == 2, (out, err)
    assert "do not agree with the network" in err and str(ck) in err and "a bug" not in err
    ck.write_text(good)
    code, out, _ = run(*argv)
    assert code == 0 and out.startswith("2 activation regions")
    recs = [json.loads(line) for line in good.splitlines()[1:]]
    recs[0]["regions"][0]["pattern"] = ["1", 2]              # not a record this code writes
    ck.write_text("\n".join([good.splitlines()[0]] + [json.dumps(r) for r in recs]) + "\n")
    code, out, _ = run(*argv)                                 # the rest dropped, walked again
    assert code == 0 and out.startswith("2 activation regions")


def _split_box_by_scan(box, cells):
    """The reference: the widest cell, the first of the widest in the list, halved in place."""
    from algebra.rationals import to_q
    from semialgebraic.distributed.search import _halve
    out = [[(to_q(lo), to_q(hi)) for lo, hi in box]]
    while len(out) < cells:
        k = max(range(len(out)), key=lambda i: (max(hi - lo for lo, hi in out[i]), -i))
        if all(lo == hi for lo, hi in out[k]):
            break
        out[k:k + 1] = list(_halve(out[k]))
    return out


def test_split_box_by_heap_is_the_scan():
    """s48 hostile audit S3: the scan was O(K^2) (--cells 10^6 ran past --timeout); the heap
    keyed by (-width, path in the tree of halvings) gives the same cells in the same order."""
    import random
    from algebra.rationals import Q
    from semialgebraic.distributed.search import split_box
    r = random.Random(49)
    for _ in range(200):
        box = []
        for _ in range(r.randint(1, 4)):
            lo = Q(r.randint(-5, 5), r.randint(1, 4))
            box.append((lo, lo + r.choice([0, 1, 2, Q(r.randint(1, 9), r.randint(1, 3))])))
        k = r.randint(1, 60)
        assert split_box(box, k) == _split_box_by_scan(box, k), (box, k)


def test_search_cells_are_bounded_and_timed(run, tmp_path):
    from semialgebraic.distributed.search import MAX_CELLS
    net = tmp_path / "net.json"
    net.write_text(json.dumps(NET_T10))
    code, _, err = run("search", "regions", net, "--box", "-1,1", "--workers", "0",
                       "--cells", MAX_CELLS + 1)
    assert code == 2 and f"between 1 and {MAX_CELLS}" in err
    t = time.monotonic()            # 5 000 one-dimensional cells, each its own walk: ~12 s
    code, out, _ = run("search", "regions", net, "--box", "-1,1", "--workers", "0",
                       "--cells", "5000", "--timeout", "1")
    assert code == 3 and "partial: timeout of 1 s reached" in out
    assert time.monotonic() - t < 8


def test_a_large_flip_set_is_summarised(run, tmp_path):
    """s48 hostile audit (cosmetic): a VALID absorption printed all of S (230 indices).  A
    block d = k = 14 with W_up = I and W_down = -I (skip I) is absorbed by flipping all 14."""
    from semialgebraic.verify import verify
    d = 14
    eye = [[int(i == j) for j in range(d)] for i in range(d)]
    block = tmp_path / "b.json"
    block.write_text(json.dumps({"format": "netfibers.block", "version": 1, "activation": "relu",
                                 "w_up": eye, "w_down": [[-v for v in r] for r in eye]}))
    cert = tmp_path / "cert.json"
    code, out, _ = run("absorb", block, "--certificate", cert)
    assert code == 0
    ok, why = verify(json.loads(cert.read_text()))
    assert ok and why.startswith("flip of S = [0, 1, 2, 3, 4, 5, …, 13] (14 indices")


def test_a_long_epsilon_is_not_echoed_whole(run, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(NET_T10))
    moved = json.loads(json.dumps(NET_T10))
    moved["layers"][2]["weight"] = [[4]]
    b.write_text(json.dumps(moved))
    cert = tmp_path / "c.json"
    code, out, _ = run("diff", a, b, "--box", "-1,1", "--certificate", cert)
    assert code == 0
    eps = "0." + "9" * 3000
    code, out, _ = run("verify", cert, "--epsilon", eps)
    assert code in (0, 1) and max(map(len, out.splitlines())) < 400 and "9" * 100 not in out


def test_budgets_are_per_thread():
    """A budget one thread makes active (``fiber(net, timeout=1)`` in a notebook's worker
    thread) never stops another thread's work: the active budgets are per thread (s49)."""
    import threading
    spent = budget_mod.Budget(timeout=0)
    seen = []

    def other():
        try:
            budget_mod.checkpoint()
            budget_mod.conversion_guard(10**9, "big")
            seen.append("free")
        except budget_mod.BudgetExhausted:
            seen.append("stopped")
    with spent.active(), budget_mod.conversions_until(0.0):
        t = threading.Thread(target=other)
        t.start()
        t.join()
        with pytest.raises(budget_mod.BudgetExhausted):
            budget_mod.checkpoint()
    assert seen == ["free"]


def _deep_pair(seed, moved=False):
    """A random 3-6-5-4-2 net and its copy with every hidden layer permuted and positively
    rescaled (exactly, over Q); *moved*: then one weight of the copy moved by 1e-9."""
    import random
    from fractions import Fraction as F
    from algebra.network import Network
    r = random.Random(seed)
    w = [3, 6, 5, 4, 2]
    Ws = [[[F(r.randint(-9, 9), r.randint(1, 4)) for _ in range(w[l])] for _ in range(w[l + 1])]
          for l in range(4)]
    bs = [[F(r.randint(-5, 5), r.randint(1, 3)) for _ in range(w[l + 1])] for l in range(4)]
    W2, b2 = [list(map(list, W)) for W in Ws], [list(b) for b in bs]
    for l in range(3):
        n = w[l + 1]
        perm = list(range(n))
        r.shuffle(perm)
        s = [F(r.randint(1, 7), r.randint(1, 5)) for _ in range(n)]
        W2[l] = [[x * s[j] for x in W2[l][perm[j]]] for j in range(n)]
        b2[l] = [b2[l][perm[j]] * s[j] for j in range(n)]
        W2[l + 1] = [[row[perm[j]] / s[j] for j in range(n)] for row in W2[l + 1]]
    if moved:
        W2[2][1][0] += F(1, 10**9)

    def net(W, b):
        return Network.from_rows([[[str(x) for x in row] for row in M] for M in W],
                                 [[str(x) for x in v] for v in b])
    return net(Ws, bs), net(W2, b2)


@pytest.mark.parametrize("seed", range(6))
def test_deep_permuted_copies_are_decided_by_the_alignment(seed):
    """equiv of a deep permuted and rescaled copy says so (S1, S2) with a symmetry_path
    certificate, on R^d and on a box (an on_box certificate around it); a copy with one weight
    moved by 1e-9 is never called a symmetric copy (s48 note: "72 exact reduction steps")."""
    from semialgebraic.equivalence import equivalent
    from semialgebraic.verify import verify
    from semialgebraic.certificates import jsonable
    a, b = _deep_pair(seed)
    for dom in (None, (-1, 1), [(-1, 2), (0, 1), (-3, 0)]):
        v = equivalent(a, b, domain=dom)
        assert v.answer is True and v.method == "symmetry", (dom, v)
        cert = jsonable(v.certificate, keep_networks=True)
        assert verify(cert)[0]
        assert (cert["inner"] if cert["type"] == "on_box" else cert)["type"] == "symmetry_path"
    a, c = _deep_pair(seed, moved=True)       # (the moved weight's neuron may be dead on the
    for dom in (None, (-1, 1)):               # box: then the general method proves equality)
        v = equivalent(a, c, domain=dom)
        assert v.method != "symmetry" and v.answer is not None
    g = equivalent(a, b, method="general")
    assert g.answer is True and g.method == "general"


def _net_file(tmp_path, name, layers):
    path = tmp_path / name
    path.write_text(json.dumps({"format": "netfibers.network", "version": 1, "layers": [
        {"weight": w, "bias": b} for w, b in layers]}))
    return path


def test_new_user_audit_wording(run, tmp_path, monkeypatch):
    """s49 new-user audit: F1 dim printed "N - 9 = 6" for N = 17 (the fiber's capped upper
    bound in place of N - rank); F2 verify's "3 proven kernel directions give <= 3" with N = 7
    (entries counted, not vectors); F5 a README example path outside the repository root got
    "no such file" without a hint; F6 diff --plot wrote its picture silently; F7 fiber's
    non-generic refusal did not say that the fiber is the function's."""
    linpair = _net_file(tmp_path, "linpair.json", [
        ([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0]), ([[1, 1, 1, -1]], [0])])
    code, out, _ = run("dim", linpair)
    assert "functional dimension 9 of 17" in out and "fiber dimension between 5 and 6" in out
    assert "N - 9 = 8" in out and "N - 9 = 6" not in out
    dead = _net_file(tmp_path, "dead.json", [([[1], [0]], [0, -1]), ([[1, 5]], [0])])
    cert = tmp_path / "dim.json"
    code, out, _ = run("dim", dead, "--certificate", cert)
    assert code == 0
    code, out, _ = run("verify", cert)
    assert code == 0 and "of rank 4 give <= N - 4 = 3" in out
    monkeypatch.chdir(tmp_path)
    code, _, err = run("eval", "algebra/examples/masked_bottleneck.json", "--x", "1,-1/2")
    assert code == 2 and "the installed copy is" in err and "masked_bottleneck.json" in err
    code, _, err = run("eval", "algebra/examples/none_such.json", "--x", "1")
    assert code == 2 and err.strip().endswith("no such file")
    minrelu = _net_file(tmp_path, "minrelu.json", [([[1]], [0]), ([[1], [1]], [0, -1]),
                                                   ([[1, -1]], [0])])
    code, out, _ = run("fiber", minrelu)
    assert code == 3 and "non-generic: G2" in out and "the fiber is a set of parameters of the " \
        "function" in out


def test_diff_plot_says_where_it_wrote(run, tmp_path):
    pytest.importorskip("matplotlib")
    a = _net_file(tmp_path, "a.json", [([[1, 0], [0, 1]], [0, 0]), ([[1, 1]], [0])])
    b = _net_file(tmp_path, "b.json", [([[1, 0], [0, 1]], [0, 0]), ([[1, 2]], [0])])
    png = tmp_path / "d.png"
    code, out, err = run("diff", a, b, "--box", "-1,1", "--plot", png)
    assert code == 0 and png.is_file() and f"picture written to {png}" in err


def test_could_be_equivalent_recognises_a_permuted_copy_at_once():
    """A permuted, rescaled copy: the alignment says True at once (random points could only
    fail to refute: ~50 s on 32-1024-4, s48 note); a moved bias is still refuted."""
    from algebra.io import network_from_tensors
    from semialgebraic import could_be_equivalent
    rng = np.random.default_rng(49)
    W1, b1 = rng.standard_normal((64, 8)).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    W2, b2 = rng.standard_normal((3, 64)).astype(np.float32), rng.standard_normal(3).astype(np.float32)
    a = network_from_tensors({"W1": W1, "b1": b1, "W2": W2, "b2": b2})
    p = rng.permutation(64)
    b = network_from_tensors({"W1": W1[p] * 4, "b1": b1[p] * 4, "W2": W2[:, p] / 4, "b2": b2})
    c = network_from_tensors({"W1": W1[p] * 4, "b1": b1[p] * 4, "W2": W2[:, p] / 4,
                              "b2": b2 + np.float32(1e-3)})
    assert could_be_equivalent(a, b) is True and could_be_equivalent(a, b, timeout=30) is True
    assert could_be_equivalent(a, c) is False


def test_every_command_costs_a_conversion_against_its_timeout(run, tmp_path, monkeypatch):
    """s49 huge audit F1, F2, F5, F7, F8: search regions and search diff (exit 4, MemoryError,
    60-74 s at --timeout 10), convert (16-17 s) and batch dim (30 s an item) made a declared
    10^8-entry layer exact whatever --timeout said; the CLI now watches every command's
    timeout (batch: each item's own), and functional_dimension its budget from the start."""
    path = _fill_h5(tmp_path / "k.h5")
    monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)      # 160 000 entries: 160 s
    for argv in (["search", "regions", path, "--box", "-1,1", "--workers", "0"],
                 ["convert", path, "-o", tmp_path / "out.json"]):
        t = time.monotonic()
        code, out, err = run(*argv, "--timeout", "20")
        assert code == 3 and "left of the budget" in out + err, (argv, out, err)
        assert time.monotonic() - t < 15
    assert not (tmp_path / "out.json").exists()
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"model\n{path}\n")
    code, out, err = run("batch", "dim", manifest, "--out", tmp_path / "r.jsonl", "--workers", "0",
                         "--timeout", "20")
    rec = json.loads((tmp_path / "r.jsonl").read_text().splitlines()[0])
    assert code == 3 and rec["status"] == "undecided" and "left of the budget" in rec["reason"]
    from semialgebraic.dimension import functional_dimension
    from algebra.io import load
    fd = functional_dimension(load(path), timeout=20)
    assert (fd.lower, fd.upper) == (0, fd.n_parameters) and "left of the budget" in fd.reason


@pytest.mark.parametrize("command", [["conserved"], ["regions", "--box", "0,1"], ["dim"]])
def test_a_guard_stop_still_answers_on_stdout(run, tmp_path, monkeypatch, command):
    """s49 huge audit F15: stopped by the conversion guard, dim / conserved / regions printed
    only a stderr line (a --json consumer got an empty stdout)."""
    path = _fill_h5(tmp_path / "k.h5")
    monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)
    code, out, err = run(command[0], path, *command[1:], "--timeout", "20", "--json")
    got = json.loads(out)
    assert code == 3 and got.get("complete", got.get("exact")) is False   # (dim: its own
    assert "left of the budget" in json.dumps(got)                        # partial [0, N])
    code, out, err = run(command[0], path, *command[1:], "--timeout", "20")
    assert code == 3 and "left of the budget" in out


def test_batch_conserved_item_stopped_by_the_guard_is_undecided(run, tmp_path, monkeypatch):
    """s49 huge audit F11: batch conserved on a file declaring 10^8 weights ended in an "out of
    memory" record after 43 s; the guard's stop is the item's undecided record (never read as
    the Ctrl-C that stops a batch: ConversionRefused)."""
    path, other = _fill_h5(tmp_path / "k.h5"), _fill_h5(tmp_path / "k2.h5", fill=0.25)
    monkeypatch.setattr(budget_mod, "CONVERT_RATE", 1000.0)
    manifest = tmp_path / "m.csv"
    manifest.write_text(f"model\n{path}\n{other}\n")
    code, out, err = run("batch", "conserved", manifest, "--out", tmp_path / "r.jsonl",
                         "--workers", "0", "--timeout", "20")
    recs = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert code == 3 and len(recs) == 2
    assert all(r["status"] == "undecided" and "left of the budget" in r["reason"] for r in recs)
    assert issubclass(budget_mod.ConversionRefused, budget_mod.BudgetExhausted)
