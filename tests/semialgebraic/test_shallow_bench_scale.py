"""benchmarks/bench_scale.py's measuring: the +MB column is the row's own peak above its
baseline even when this process holds far more (the bug: children inherited the parent's
ru_maxrss and printed 0), and the one-hidden-layer pairs it times have their planted answers."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import bench_scale  # noqa: E402

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")


def test_extra_mb_is_the_childs_own_peak_while_the_parent_is_large():
    big = bytearray(300 * 2 ** 20)
    big[::4096] = b"\x01" * len(big[::4096])            # resident: 300 MB in this process
    r = bench_scale.probe("x = bytearray(30 * 2 ** 20)",   # set-up: before the baseline
                          "y = bytearray(80 * 2 ** 20)\ny[::4096] = b'\\x01' * len(y[::4096])\n"
                          "result = len(y)")
    del big
    assert r["result"] == 80 * 2 ** 20
    assert 70 <= r["extra_mb"] <= 110, r                # not 0, not the parent's 300 MB
    assert r["peak_mb"] < 250 and r["cpu"] >= 0 and r["seconds"] > 0


@pytest.mark.parametrize("kind, answer, path", [
    ("decimals equivalent", True, "integer_path"), ("decimals b1 off 1e-9", False, "integer_path"),
    ("float64 equivalent", True, "float64_path"), ("float64 one ulp off", False, "float64_path")])
def test_shallow_pairs_have_their_planted_answers(kind, answer, path):
    from semialgebraic.shallow import canonical_form, equivalent_shallow
    from semialgebraic.verify import verify
    x, y, ax, ay = bench_scale.shallow_pair(kind, 24, d=9, m=3)
    v = equivalent_shallow(x, y)
    assert v.answer is answer and path in v.details and verify(v.certificate)[0]
    assert (canonical_form(x) == canonical_form(y)) is answer
    assert [a.shape for a in ax] == [a.shape for a in ay] == [(24, 9), (24,), (3, 24), (3,)]
