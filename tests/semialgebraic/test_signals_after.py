"""``signals_after``: a Ctrl-C or an alarm inside the block is delivered when it ends (s44: a
Ctrl-C raised inside numpy's object-array matmul, in the middle of its C loop, preceded two
crashes of a corrupted small-object heap; the exact product is now never cut there)."""

import os
import signal
import threading
import time

import numpy as np
import pytest

from semialgebraic.budget import signals_after
from semialgebraic.regions.integer import int_matmul


class Rang(Exception):
    pass


def _ring(signum, frame):
    raise Rang(signum)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="main thread")
def test_a_signal_inside_is_delivered_at_the_end_and_the_handlers_come_back():
    old_alrm = signal.signal(signal.SIGALRM, _ring)
    old_int = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        done = []
        with pytest.raises(Rang):
            with signals_after():
                os.kill(os.getpid(), signal.SIGALRM)
                done.append(sum(range(10 ** 5)))      # bytecode runs: the signal is held
                done.append("end")
        assert done == [sum(range(10 ** 5)), "end"]
        assert signal.getsignal(signal.SIGALRM) is _ring
        with pytest.raises(KeyboardInterrupt):
            with signals_after():
                os.kill(os.getpid(), signal.SIGINT)
                done.append("after ctrl-c")
        assert done[-1] == "after ctrl-c" and signal.getsignal(signal.SIGINT) is signal.default_int_handler
        with signals_after():                          # nothing held: nothing raised
            done.append("quiet")
    finally:
        signal.signal(signal.SIGALRM, old_alrm)
        signal.signal(signal.SIGINT, old_int)


def test_the_object_matmul_finishes_before_a_ctrl_c_and_is_exact():
    """A Ctrl-C sent while ``int_matmul`` multiplies big integers (numpy object arrays) is
    raised after the product, never inside numpy's loop; the product is exact."""
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    rng = np.random.default_rng(1)
    A = np.array([[int(v) * 10 ** 40 for v in row] for row in rng.integers(-9, 9, (60, 60))], dtype=object)
    B = np.array([[int(v) * 10 ** 40 + 1 for v in row] for row in rng.integers(-9, 9, (60, 60))], dtype=object)
    want = [[sum(int(A[i, k]) * int(B[k, j]) for k in range(60)) for j in range(60)] for i in range(60)]
    timer = threading.Timer(0.001, lambda: os.kill(os.getpid(), signal.SIGINT))
    try:
        got = None
        end = time.monotonic() + 60
        try:                                           # (s53: under load the Ctrl-C landed in
            timer.start()                              # timer.start() or after 200 products,
            while time.monotonic() < end:              # outside this try, and ended pytest's
                got = int_matmul(A, B)                 # worker; the products run until it comes)
        except KeyboardInterrupt:
            pass
        assert got is None or [[int(v) for v in row] for row in got] == want
        assert [[int(v) for v in row] for row in int_matmul(A, B)] == want
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)

