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

from algebra.network import Network
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
    assert Network._ARRAY_APPLY > 0
