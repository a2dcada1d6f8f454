"""A bounded sample of the input-layer fuzzer (``tests/fuzz/inputs.py``): hostile JSON, binary
weight files and option strings, each against one command chosen by the seed; every case must
exit 2 with one line naming the file or option, no traceback, nothing written."""

import pytest

from tests.fuzz.inputs import check, fuzz, run_cli


@pytest.mark.parametrize("seed", [11, 12])
def test_fuzz_inputs_sample(seed):
    stats, failures = fuzz(seed, 24, verbose=False, options=12)
    assert sum(n for n, _ in stats.values()) == 36
    assert failures == []


def test_the_checker_can_fail(tmp_path):
    """A valid call (exit 0, nothing on stderr) must be reported as a failing case."""
    from tests.fuzz.inputs import SHALLOW
    import json
    p = tmp_path / "good.json"
    p.write_text(json.dumps(SHALLOW))
    assert run_cli(["info", p]).code == 0
    problem = check(["info", p], p.name, tmp_path, tmp_path)
    assert problem is not None and "exit 0" in problem


def test_fuzz_readable_sample():
    """One seed of ``tests/fuzz/readable.py``: long rationals print as ≈ decimals, no reprs, and
    ``--exact`` leaves no ≈."""
    from tests.fuzz.readable import fuzz as fuzz_readable
    stats, failures = fuzz_readable(20261202, 1, verbose=False)
    assert stats["outputs"] == 34
    assert failures == []


def test_readable_checker_can_fail():
    from tests.fuzz.readable import LONG, REPRS
    assert LONG.findall("x = 12345678901234567/3") and not LONG.findall("≈1.2345e16")
    assert any(r in "fiber dimension Dimension(3: …)" for r in REPRS)
