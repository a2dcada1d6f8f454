"""``diff --method auto`` on a small pair (issue 15, "anytime"): the region walk first, on its
share (400 regions, 0.3 of --timeout); a walk it does not finish hands over to branch and bound,
which holds an interval. Before, auto gave a 3-12-12-2 float16 pair only a lower bound with "no
upper bound from the walk" after 10 s, where branch and bound decided it in 8 s."""

from __future__ import annotations

import json

import numpy as np
import pytest


def _pair(tmp_path, widths, seed=7):
    """A random float32 net and its float16 copy (the user's rounding question)."""
    rng = np.random.default_rng(seed)
    d = {}
    for l, (m, n) in enumerate(zip(widths, widths[1:])):
        d[f"W{l}"] = rng.normal(0, 1 / np.sqrt(m), (n, m)).astype(np.float32)
        d[f"b{l}"] = rng.normal(0, 0.1, n).astype(np.float32)
    a, b = tmp_path / "a.npz", tmp_path / "b16.npz"
    np.savez(a, **d)
    np.savez(b, **{k: v.astype(np.float16).astype(np.float32) for k, v in d.items()})
    return a, b


def _json(run, *argv):
    code, out, err = run(*argv, "--json")
    return code, json.loads(out), err


def test_auto_hands_a_long_walk_to_branch_and_bound_with_the_walks_exact_value(run, tmp_path):
    a, b = _pair(tmp_path, [2, 10, 10, 1])               # 453 regions of a - b on the cube
    code, walk, _ = _json(run, "diff", a, b, "--box", "-1,1", "--method", "walk")
    assert code == 0 and walk["complete"] and walk["regions"] == 453
    code, auto, _ = _json(run, "diff", a, b, "--box", "-1,1")
    assert code == 0 and auto["complete"] and auto["method"] == "branch and bound"
    assert auto["lower"] == auto["upper"] == walk["lower"]          # the same exact maximum
    assert auto["walk"].startswith("the region walk stopped after 400 regions (max_regions=400")
    code, out, _ = run("diff", a, b, "--box", "-1,1")
    assert "branch and bound took over" in out and out.startswith("max |a - b| = ")


def test_auto_keeps_a_short_walk_and_the_users_max_regions(run, tmp_path):
    a, b = _pair(tmp_path, [2, 4, 1], seed=3)
    code, auto, _ = _json(run, "diff", a, b, "--box", "-1,1")
    assert code == 0 and auto["complete"] and auto["regions"] is not None and "walk" not in auto
    code, capped, _ = _json(run, "diff", a, b, "--box", "-1,1", "--max-regions", "1")
    assert code == 3 and capped["regions"] == 1 and capped["upper"] is None   # the user's cap
    assert "walk" not in capped


@pytest.mark.parametrize("timeout", ["2"])
def test_auto_with_a_timeout_names_the_users_timeout_and_holds_an_interval(run, tmp_path, timeout):
    a, b = _pair(tmp_path, [3, 12, 12, 2], seed=5)
    code, data, _ = _json(run, "diff", a, b, "--box", "-1,1", "--timeout", timeout)
    if code == 0:                                        # a fast machine: decided
        assert data["complete"] and data["lower"] == data["upper"]
        return
    assert code == 3 and data["upper"] is not None            # an interval, not only a lower bound
    from fractions import Fraction
    assert 0 < Fraction(data["lower"]) <= Fraction(data["upper"])
    assert "timeout of 2 s reached" in data["reason"] and data["walk"].startswith("the region walk")
