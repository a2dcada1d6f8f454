"""Budgets and honest partial answers in ``conserved``, ``identify`` and ``plot`` (issue 15
item 5): ``--timeout T`` returns within 1.05·T + 2 s after start-up with a partial, certified
answer and exit 3; a partial ``conserved`` gives certified bounds (``L ≤ fiber dimension ≤ U``,
laws between lower and upper) that contain the complete answer; the text lists 12 laws, each
cut to a few terms, unless ``--full``; ``identify --timeout`` is "undecided", nothing claimed;
``plot regions`` with a budget draws the regions found and says the picture is partial.

Times are measured after start-up (``_startup`` of test_budgets_absorb_conserved: the imports,
measured now on the shared machine)."""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from algebra.conservation import conservation_laws, samples_from_patterns
from algebra.conservation.fields import _rescaling_directions, field_values
from algebra.conservation.spans import _BlockSpan
from algebra.linalg import QMatrix
from semialgebraic.regions import regions
from tests.cli.test_budgets import random_net
from tests.cli.test_budgets_absorb_conserved import BOUND, _cli, _startup

ROOT = Path(__file__).resolve().parents[2]
DIGITS = ROOT / "benchmarks" / "data" / "digits_64-32-10.npz"
DIGITS_300 = ROOT / "tests" / "cli" / "data" / "digits_inputs_300.json"   # load_digits()[:300]
ACAS = ROOT / "benchmarks" / "data" / "ACASXU_run2a_1_1_batch_2000.nnet"
EX = ROOT / "algebra" / "examples"


def _timed(argv, timeout_s, slack=6.0):
    """Run ``netfibers *argv --timeout T``; assert 1.05·T + 2 s after start-up (+ *slack* for
    a loaded CI machine); return the process."""
    start = _startup()
    t = time.monotonic()
    r = subprocess.run(_cli(*argv, "--timeout", str(timeout_s)), capture_output=True, text=True,
                       timeout=120 + 2 * timeout_s, cwd=ROOT)
    took = time.monotonic() - t
    assert took - start <= BOUND(timeout_s, slack), (argv[0], took, start, r.stderr)
    return r


def _small(tmp_path) -> Path:
    """A 2-5-4-1 net (random_net seed 3): 42 regions of R^2, N = 44; complete answer 9 laws,
    fiber dimension 10 (one more than its 9 rescalings)."""
    p = tmp_path / "small.json"
    p.write_text(json.dumps(random_net((2, 5, 4, 1), 3).to_dict()))
    return p


# -- conserved: honest bounds -----------------------------------------------------------------
def test_partial_conserved_bounds_contain_the_complete_answer(tmp_path, run):
    p = _small(tmp_path)
    code, out, _ = run("conserved", p, "--json")
    full = json.loads(out)
    assert code == 0 and full["complete"] and full["patterns"] == full["patterns_used"] == 42
    laws, fd = full["number_of_laws"], full["fiber_dimension"]
    assert (laws, fd) == (9, 10) and "fiber_dimension_lower" not in full
    for k in (1, 2, 3):
        code, out, _ = run("conserved", p, "--json", "--max-regions", k)
        d = json.loads(out)
        assert code == 3 and d["complete"] is False and d["number_of_laws"] is None
        assert d["patterns"] == d["patterns_used"] == k
        assert d["fiber_dimension"] is None
        assert d["fiber_dimension_lower"] == 9 <= fd <= d["fiber_dimension_upper"] < 44
        assert d["lower"] <= laws <= d["upper"]
        assert d["reason"].startswith(f"max_regions={k} reached during the region walk ({k} region")
        code, out, _ = run("conserved", p, "--max-regions", k)
        assert code == 3 and (f"9 ≤ fiber dimension ≤ {d['fiber_dimension_upper']}, not "
                              "determined") in out
        assert f"  patterns: {k} from regions of R^2 (incomplete: max_regions={k} reached" in out
    code, out, _ = run("conserved", p)
    assert code == 0 and "(fiber dimension 10)" in out and "not determined" not in out


def test_rescaling_rank_is_a_lower_bound_of_every_fiber_dimension():
    for widths, seed in [((2, 5, 4, 1), 3), ((2, 6, 5, 2), 1), ((3, 4, 2), 5)]:
        net = random_net(widths, seed)
        pats = [r.pattern for r in regions(net)]
        res = conservation_laws(net, samples_from_patterns(pats))
        F = field_values(net, samples_from_patterns(pats))
        assert res.fiber_dimension == net.n_parameters - F.rank()           # determined
        assert _rescaling_directions(net).rank() <= res.fiber_dimension
        part = conservation_laws(net, samples_from_patterns(pats[:1]), complete=False)
        assert part.fiber_dimension_lower <= res.fiber_dimension <= part.fiber_dimension_upper


def test_fields_mod_p_are_the_residues_of_the_exact_fields():
    from algebra.conservation.fields import Sample, _field_block, _ModFields
    from algebra.linalg.gfp import PRIME, residues_array
    from algebra.rationals import Q
    net = random_net((3, 5, 4, 2), 7)
    mod = _ModFields(net, PRIME)
    rng = random.Random(1)
    pats = [tuple(rng.choice([1, -1]) for _ in range(9)) for _ in range(4)]
    pts = tuple(tuple(Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(3)) for _ in range(3))
    for s in [Sample(p, None) for p in pats] + [Sample(pats[0], pts)]:
        assert np.array_equal(np.vstack(list(mod.pieces(s))),
                              residues_array(_field_block(net, s), PRIME))


def test_block_span_is_the_rank_mod_p_whatever_the_batches():
    from algebra.linalg.gfp import PRIME, echelon_mod_p
    rng = np.random.default_rng(0)
    B = rng.integers(0, PRIME, (120, 300))
    A = (rng.integers(0, 5, (700, 120)) @ B) % PRIME              # rank 120 ...
    A[::7] = rng.integers(0, PRIME, (len(A[::7]), 300))          # ... and 100 more rows
    for step in (1000, 97, 256):
        span = _BlockSpan(300)
        gains = [span.add_residues(A[i:i + step]) for i in range(0, 700, step)]
        assert span.rank == sum(gains) == echelon_mod_p(A, PRIME)[0] == 220


def test_block_span_stops_between_panels_and_keeps_what_it_had():
    rng = random.Random(0)
    rows = [[rng.randint(-5, 5) for _ in range(200)] for _ in range(150)]
    M = QMatrix.from_rows(rows)
    calls = []

    def stop_at_third():
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("deadline")
    span = _BlockSpan(200, stop_at_third)
    assert span.add_matrix(QMatrix.from_rows(rows[:10])) == 10 and len(calls) == 1
    with pytest.raises(RuntimeError, match="deadline"):
        span.add_matrix(M)
    assert span.rank == 10 and span.E.shape == (10, 200)              # unchanged
    span.check = None
    assert span.add_matrix(M) == M.rank() - 10 and span.rank <= M.rank()


def test_text_lists_twelve_laws_cut_to_six_terms_unless_full(tmp_path, run):
    p = tmp_path / "n1881.json"                        # 1-8-8-1: 16 rescaling laws
    p.write_text(json.dumps(random_net((1, 8, 8, 1), 0).to_dict()))
    argv = ("conserved", p, "--max-regions", 3, "--max-depth", 0)
    code, out, _ = run(*argv)
    assert code == 3
    law_lines = [ln for ln in out.splitlines() if ln.startswith("  Q")]
    assert len(law_lines) == 12 and "  … 4 more; --full to list all" in out
    assert "… (4 more terms)" in law_lines[0]           # Q1: 1 + 1 + 8 = 10 terms
    code, out, _ = run(*argv, "--full")
    law_lines = [ln for ln in out.splitlines() if ln.startswith("  Q")]
    assert code == 3 and len(law_lines) == 16 and "more" not in out
    code, out, _ = run(*argv, "--json")
    d = json.loads(out)
    assert len(d["laws"]) == 16 and d["laws"][0]["polynomial"] in law_lines[0]
    assert d["laws"][0]["polynomial"].count(" - ") == 8


def test_conserved_digits_timeout_5_holds_with_certified_bounds():
    r = _timed(["conserved", str(DIGITS), "--json"], 5)
    assert r.returncode == 3, r.stderr
    d = json.loads(r.stdout)
    assert d["complete"] is False and d["number_of_laws"] is None and d["n_parameters"] == 2410
    assert d["fiber_dimension"] is None and d["fiber_dimension_lower"] == 32     # 32 rescalings
    assert 32 <= d["fiber_dimension_upper"] <= 2410 and 0 <= d["lower"] <= 32 <= d["upper"]
    assert d["reason"].startswith("timeout of 5 s reached during the region walk (")
    assert d["patterns"] >= d["patterns_used"] >= 0


def test_conserved_digits_300_data_points_timeout_10_holds():
    r = _timed(["conserved", str(DIGITS), "--data", str(DIGITS_300), "--json"], 10)
    assert r.returncode == 3, r.stderr          # the laws' verification alone takes minutes
    d = json.loads(r.stdout)
    assert d["complete"] is True and d["source"] == "data (300 points)" and d["patterns"] == 283
    assert "timeout of 10 s reached during the " in d["reason"]
    assert d["lower"] >= 0 and d["stopped_in"] in ("laws", "fields", "brackets")
    # the fields of all 283 patterns may enter in 10 s on an idle machine (99 of them loaded,
    # 2026-12-04): the fiber dimension is then determined, else honest bounds
    assert d["patterns_used"] <= 283
    if d["fiber_dimension"] is None:
        assert d["fiber_dimension_lower"] == 32 < d["fiber_dimension_upper"] <= 2410
        assert d["fiber_dimension_upper"] == 2410 - d["functional_rank"]
        assert d["functional_rank_exact"] is False
    else:
        assert d["patterns_used"] == 283 and 32 <= d["fiber_dimension"] <= 2410


@pytest.mark.slow
def test_conserved_digits_timeout_60_holds():
    r = _timed(["conserved", str(DIGITS), "--json"], 60)
    d = json.loads(r.stdout)
    assert r.returncode == 3 and d["complete"] is False
    # the fiber of this one-hidden-layer net is its 32 scalings: exact 32 when the sampled
    # patterns' fields reach rank N - 32 (session 41, near idle: 60 of 300 patterns, rank 2 378),
    # else the interval from 32 (before: [32, 1 321], this test's old expectation)
    assert d.get("fiber_dimension") == 32 or d["fiber_dimension_lower"] == 32 <= d["fiber_dimension_upper"]
    assert 1 <= d["functional_rank"] <= 2410 - 32


# -- identify -----------------------------------------------------------------------------------
def _bottleneck(tmp_path, n1=24, n2=1200, seed=0) -> Path:
    """d = n1, W1 = I, [W2 | b2] and W3 with random non-zero integers in [-9, 9] (every row mixed
    signs; second-layer flip sets not excluded, R18.5): ~2 s to answer at n1 = 24, n2 = 1200."""
    rng = random.Random(seed)

    def nz():
        return rng.choice([-1, 1]) * rng.randint(1, 9)
    layers = [{"weight": [[int(i == j) for j in range(n1)] for i in range(n1)], "bias": [0] * n1},
              {"weight": [[nz() for _ in range(n1)] for _ in range(n2)],
               "bias": [nz() for _ in range(n2)]},
              {"weight": [[nz() for _ in range(n2)] for _ in range(2)], "bias": [0, 0]}]
    p = tmp_path / f"bottleneck_{n1}_{n2}.json"
    p.write_text(json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                             "layers": layers}))
    return p


def test_identify_with_a_timeout_that_lasts_is_unchanged(run):
    for name, want in (("t5_perm_scale_a", 0), ("masked_bottleneck", 1)):
        code, out, _ = run("identify", EX / f"{name}.json")
        code_t, out_t, _ = run("identify", EX / f"{name}.json", "--timeout", 60)
        assert code == code_t == want and out == out_t


@pytest.mark.slow
def test_identify_of_the_large_bottleneck_without_timeout(tmp_path, run):
    """Returns in seconds without a timeout.  Since R18.5's second-layer flip sets are checked
    (session 39) the answer is undecided, said why: 1 200 rows of small random integers leave a
    null space of 1 152 dimensions, where flip sets (0/1 points) are to be expected, so the
    'identifiable' this test asked for before is not what a sound decision can say."""
    code, out, _ = run("identify", _bottleneck(tmp_path))
    assert code == 3 and out.startswith("undecided: second-layer flip sets not excluded")


# -- plot ---------------------------------------------------------------------------------------
def test_plot_regions_max_regions_draws_a_partial_picture(tmp_path, run):
    out_png = tmp_path / "r.png"
    code, out, _ = run("plot", "regions", EX / "t1_masked.json", "--box", "-3,3", "-o", out_png,
                       "--json")
    full = json.loads(out)["scene"]
    assert code == 0 and json.loads(out)["complete"] and len(full["polygons"]) == 6
    assert "partial" not in full["title"] and "dead in the window: L2[1]" in full["notes"]
    code, out, err = run("plot", "regions", EX / "t1_masked.json", "--box", "-3,3", "-o", out_png,
                         "--max-regions", 2, "--json")
    sc = json.loads(out)["scene"]
    assert code == 3 and out_png.exists() and len(sc["polygons"]) == 2
    assert json.loads(out)["complete"] is False
    assert sc["title"] == "2 activation regions drawn (partial: more may exist)"
    assert sc["notes"] == ["partial picture: --max-regions 2 reached; dead and masked neurons "
                           "not determined"]
    assert err.startswith("netfibers: partial picture (2 regions drawn): --max-regions 2")


def test_plot_regions_of_an_acas_slice_holds_its_timeout(tmp_path):
    out_png = tmp_path / "acas.png"
    r = _timed(["plot", "regions", str(ACAS), "--slice", "0,0,0,0,0,1,0,0,0,0,0,1,0,0,0",
                "--box", "-0.5,0.5", "-o", str(out_png), "--json"], 5)
    sc = json.loads(r.stdout)["scene"]
    assert r.returncode == 3 and out_png.exists() and out_png.stat().st_size > 1000
    assert json.loads(r.stdout)["complete"] is False and len(sc["polygons"]) >= 1
    assert sc["title"] == f"{len(sc['polygons'])} activation regions drawn (partial: more may exist)"
    assert sc["notes"][0].startswith("partial picture: timeout of 5 s reached during the region "
                                     "walk (it had ")
    assert r.stderr.startswith(f"netfibers: partial picture ({len(sc['polygons'])} regions drawn)")


# -- Ctrl-C ---------------------------------------------------------------------------------------
def _interrupted(tmp_path, argv, cpu):
    """Run ``netfibers *argv --json``, Ctrl-C once it has used the CPU of its start-up (read
    from its start-up mark) and *cpu* more seconds; return (exit code, JSON report, seconds
    from the signal to the end)."""
    from tests.cli.test_budgets import popen_after_startup
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        proc, _ = popen_after_startup([*argv, "--json"], out, err, tmp_path / "err", cpu)
        t = time.monotonic()
        code = proc.wait(timeout=120)
        after = time.monotonic() - t
    text = (tmp_path / "out").read_text()
    err = (tmp_path / "err").read_text()
    assert text.strip(), (code, err.split("\nExtension modules:")[0][-4000:])   # (say why, if empty:
    return code, json.loads(text), after                      # a crash's stacks, faulthandler's)


def test_ctrl_c_in_the_law_verification_gives_the_partial_report(tmp_path):
    code, d, after = _interrupted(tmp_path, ["conserved", str(DIGITS), "--data", str(DIGITS_300)],
                                  4.0)
    assert code == 3 and after <= 2 + 6, after
    assert d["reason"] == "interrupted (Ctrl-C) during the law verification"
    assert d["fiber_dimension"] is None and d["fiber_dimension_lower"] == 32
    assert d["stopped_in"] == "laws" and d["number_of_laws"] is None


def test_ctrl_c_in_plot_regions_draws_the_regions_found(tmp_path):
    """Ctrl-C in the walk of ``plot regions`` (an ACAS Xu slice, --timeout 60) wrote a blank
    picture that said "timeout of 60 s reached while drawing: 0 of the 346 regions found
    drawn" (session 43's budgets audit): the drawing stopped at the Ctrl-C too.  The regions
    found are drawn, the reason is the Ctrl-C alone."""
    out_png = tmp_path / "acas.png"
    code, d, after = _interrupted(tmp_path, ["plot", "regions", str(ACAS), "--slice",
                                             "0,0,0,0,0,1,0,0,0,0,0,1,0,0,0", "--box", "-0.5,0.5",
                                             "-o", str(out_png), "--timeout", "60"], 6.0)
    # (6 CPU s after start-up: at 3 the Ctrl-C could land in matplotlib's import, before any
    # region — "interrupted" and no report is right there; seen once in a loaded full run)
    sc = d["scene"]
    assert code == 3 and after <= 2 + 6, after
    assert out_png.exists() and d["complete"] is False and len(sc["polygons"]) >= 2
    assert sc["title"] == f"{len(sc['polygons'])} activation regions drawn (partial: more may exist)"
    assert sc["notes"][0].startswith("partial picture: interrupted (Ctrl-C)")
    assert "timeout" not in json.dumps(sc["notes"])


def test_ctrl_c_in_the_walk_gives_the_partial_report_at_once(tmp_path):
    """After a Ctrl-C in the walk the laws phase built and checked candidate laws for another
    second (a 2 410-variable ring, 5 of 32 laws verified, the rest not) before the report;
    now none is built and the 32 rescaling laws count by the rank of their gradients (R23), the
    report comes at once (0.04 s after the signal, was 1.2 s).  (This test's one CI failure, a
    segmentation fault inside that ring's creation after the Ctrl-C, s44, was not reproduced
    in ~800 tries; the child runs with faulthandler on, so a crash shows its stacks.)"""
    code, d, after = _interrupted(tmp_path, ["conserved", str(DIGITS)], 2.0)
    assert code == 3 and after <= 2 + 6, after
    assert d["reason"].startswith("interrupted (Ctrl-C) during the region walk (")
    assert d["reason"].endswith(" regions)") and "timeout" not in d["reason"]
    assert d["complete"] is False and d["fiber_dimension"] is None
    assert d["laws"] == [] and d["lower"] == 32 and d["upper"] == 2410
    assert "interrupted (Ctrl-C): the candidate laws not built" in d["notes"]
