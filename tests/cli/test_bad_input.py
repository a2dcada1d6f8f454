"""The CLI on hostile input and tiny budgets.

Every bad input gives one line on stderr naming the file and the problem, exit 2, no traceback,
nothing written; a budget that runs out gives a partial result and exit 3, never a crash.
"""

import json

import numpy as np
import pytest

from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.budget import Budget
from semialgebraic.cli import main
from semialgebraic.equivalence import max_deviation
from tests.cases.certificates import DEEP_A

# a dense 3-6-6-1 net: enough regions that a budget of 1e-9 s stops the walk before the first
DENSE = Network.from_rows(
    [[[(3 * i + 5 * j) % 7 - 3 + Q(1, i + j + 2) for j in range(3)] for i in range(6)],
     [[(2 * i + 3 * j) % 5 - 2 + Q(1, i + 2 * j + 3) for j in range(6)] for i in range(6)],
     [[Q((-1) ** j * (j + 1), 3) for j in range(6)]]],
    [[Q(i - 2, 3) for i in range(6)], [Q(1 - i, 2) for i in range(6)], [1]])
DENSE_B = DENSE.with_parameter("b3[0]", 2)          # differs everywhere by exactly 1




@pytest.fixture
def nets(tmp_path):
    paths = {}
    for name, net in (("a", DENSE), ("b", DENSE_B)):
        p = tmp_path / f"{name}.json"
        p.write_text(json.dumps(net.to_dict()))
        paths[name] = str(p)
    return paths


# -- diff with a budget that runs out before the first region -------------------------------------
def test_diff_exhausted_budget_is_partial_not_internal_error(nets, capsys, run):
    """Bug (fixed in commands/general.py): ``netfibers diff --timeout 0.001`` on a net whose walk
    had not reached its first region crashed with exit 4 ('NoneType' object is not iterable)."""
    code, out, err = run("diff", nets["a"], nets["b"], "--box", "-1,1", "--timeout", "1e-9",
                         "--json")
    assert code == 3, err
    data = json.loads(out)
    assert data["complete"] is False
    # the reported value is an exact lower bound attained at the reported point
    assert data["point"] == [-1, -1, -1] and data["max_deviation"] == "1"
    code, out, err = run("diff", nets["a"], nets["b"], "--box", "-1,1", "--timeout", "1e-9")
    assert code == 3 and "lower bound" in out and err == ""


def test_diff_complete_value(nets, capsys, run):
    code, out, _ = run("diff", nets["a"], nets["b"], "--box", "-1,1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["max_deviation"] == "1" and data["complete"] is True


def test_max_deviation_exhausted_budget_has_a_point():
    dev = max_deviation(DENSE, DENSE_B, (-1, 1), budget=Budget(max_regions=0))
    assert dev.complete is False
    assert dev.point is not None and dev.value >= 0


# -- hostile input files: one line, exit 2, nothing written -----------------------------------------
def _good():
    return DENSE.to_dict()


def _bad_files(tmp_path):
    files = {}
    g = _good()
    files["nan_literal"] = json.dumps(g).replace('"bias": [', '"bias": [NaN, ', 1)
    files["inf_literal"] = json.dumps(g).replace('"bias": [', '"bias": [Infinity, ', 1)
    g2 = _good(); g2["layers"][0]["weight"][0][0] = "nan"
    files["nan_string"] = json.dumps(g2)
    g2 = _good(); g2["activation"] = "tanhh"
    files["activation"] = json.dumps(g2)
    g2 = _good(); g2["layers"][1]["weight"][0] = g2["layers"][1]["weight"][0][:-1]
    files["ragged"] = json.dumps(g2)
    g2 = _good(); g2["layers"][2]["bias"] = [1, 2]
    files["bias_shape"] = json.dumps(g2)
    files["empty"] = ""
    files["truncated"] = json.dumps(g)[:-7]
    g2 = _good(); g2["layers"][0]["weight"][0][0] = True
    files["bool"] = json.dumps(g2)
    g2 = _good(); g2["layers"][0]["weight"][0][0] = "1/0"
    files["zero_denominator"] = json.dumps(g2)
    out = {}
    for name, text in files.items():
        p = tmp_path / f"{name}.json"
        p.write_text(text)
        out[name] = p
    np.savez(tmp_path / "nan.npz", W1=np.array([[1.0, np.nan]]), b1=np.zeros(1),
             W2=np.ones((1, 1)), b2=np.zeros(1))
    out["nan_npz"] = tmp_path / "nan.npz"
    np.savez(tmp_path / "inf.npz", W1=np.array([[1.0, 2.0]]), b1=np.array([np.inf]),
             W2=np.ones((1, 1)), b2=np.zeros(1))
    out["inf_npz"] = tmp_path / "inf.npz"
    np.savez(tmp_path / "object.npz", W1=np.array([[1.0, 2.0]], dtype=object), b1=np.zeros(1),
             W2=np.ones((1, 1)), b2=np.zeros(1))
    out["object_npz"] = tmp_path / "object.npz"
    (tmp_path / "garbage.npz").write_bytes(b"nonsense")
    out["garbage_npz"] = tmp_path / "garbage.npz"
    (tmp_path / "garbage.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{}")
    out["garbage_safetensors"] = tmp_path / "garbage.safetensors"
    (tmp_path / "adir").mkdir()
    out["directory"] = tmp_path / "adir"
    out["missing"] = tmp_path / "missing.json"
    return out


@pytest.mark.parametrize("command", ["info", "canon", "fiber", "dim", "equiv", "diff", "convert"])
def test_bad_inputs_one_line_exit_2_nothing_written(tmp_path, capsys, command, run):
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_good()))
    out_file = tmp_path / "out" / "x.json"
    for name, path in _bad_files(tmp_path).items():
        argv = {"info": ["info", path], "canon": ["canon", path], "fiber": ["fiber", path],
                "dim": ["dim", path], "equiv": ["equiv", good, path],
                "diff": ["diff", path, good, "--box", "0,1"],
                "convert": ["convert", path, "-o", tmp_path / "converted.json"]}[command]
        code, out, err = run(*argv)
        assert code == 2, (name, code, out, err)
        lines = err.strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in err, (name, err)
        assert path.name in lines[0], (name, err)
        assert not (tmp_path / "converted.json").exists() and not out_file.parent.exists()


def test_output_into_missing_directory_writes_nothing(tmp_path, capsys, nets, run):
    target = tmp_path / "nodir" / "cert.json"
    code, _, err = run("equiv", nets["a"], nets["a"], "--certificate", target)
    assert code == 2 and "nodir" in err and len(err.strip().splitlines()) == 1
    assert not target.parent.exists()


@pytest.mark.parametrize("argv, word", [
    (["--box", "0,1", "--orthant"], "not allowed"),
    (["--box", "1,0"], "exceeds"),
    (["--box", "0,nan"], "nan"),
    (["--timeout", "-1"], "--timeout"),
    (["--max-regions", "0"], "--max-regions"),
    (["--method", "magic"], "magic"),
])
def test_conflicting_or_bad_flags(nets, capsys, argv, word, run):
    code, out, err = run("equiv", nets["a"], nets["b"], *argv)
    assert code == 2 and word in err and out == ""
    assert len(err.strip().splitlines()) == 1


def test_equiv_tiny_timeout_is_undecided_exit_3(nets, capsys, tmp_path, run):
    cert = tmp_path / "c.json"
    same = tmp_path / "same.json"
    same.write_text(json.dumps(DENSE.to_dict()))
    code, out, _ = run("equiv", nets["a"], same, "--method", "general", "--timeout", "1e-9",
                       "--certificate", cert, "--json")
    data = json.loads(out)
    # identical nets may be decided by the exact reduction before the walk; otherwise undecided
    assert (code, data["answer"]) in ((0, True), (3, None))
    assert cert.exists() == (code == 0)


# -- pathological JSON: nesting and integers beyond Python's int-string limit -------------------
def test_deeply_nested_json_is_input_error(tmp_path, capsys, run):
    """Bug (fixed in algebra/io/native.py): 100 000 nested brackets raised RecursionError
    (internal error, exit 4)."""
    for name, text in {"deep.json": "[" * 100_000 + "]" * 100_000,
                       "deepobj.json": '{"format": "netfibers.network", "version": 1, "layers": '
                                       + "[" * 50_000 + "]" * 50_000 + "}"}.items():
        p = tmp_path / name
        p.write_text(text)
        for argv in (["info", p], ["verify", p], ["absorb", p]):
            code, out, err = run(*argv)
            assert code == 2 and "nested too deeply" in err and name in err, (argv, err)
            assert len(err.strip().splitlines()) == 1


def test_deeply_nested_safetensors_header_is_input_error(tmp_path, capsys, run):
    import struct
    header = ("[" * 100_000 + "]" * 100_000).encode()
    p = tmp_path / "deep.safetensors"
    p.write_bytes(struct.pack("<Q", len(header)) + header)
    code, _, err = run("info", p)
    assert code == 2 and "deep.safetensors" in err and len(err.strip().splitlines()) == 1


def test_json_integer_beyond_python_digit_limit_is_read_exactly(tmp_path, capsys, run):
    """Bug (fixed in algebra/io/native.py): a JSON integer literal of 5000 digits raised
    ValueError (Python's 4300-digit int limit; internal error, exit 4).  Exact numbers of any
    size are data: it is read exactly and written back (as a string) exactly."""
    big = "9" * 5000
    net = json.loads(json.dumps(DENSE.to_dict()))
    text = json.dumps(net).replace('"bias": [1]', f'"bias": [{big}]')
    assert big in text
    p = tmp_path / "big.json"
    p.write_text(text)
    code, out, err = run("eval", p, "--x", "0,0,0", "--json")
    assert code == 0, err
    from algebra.io import load
    loaded = load(str(p))
    assert loaded.biases[2][0] == Q(int(big[:4000])) * 10 ** 1000 + Q(int(big[4000:]))
    out_file = tmp_path / "back.json"
    assert run("convert", p, "-o", out_file)[0] == 0
    assert load(str(out_file)) == loaded


# -- conserved under a budget that stops the region walk at once ---------------------------------
def test_conserved_budget_before_first_region_is_partial_not_input_error(nets, capsys, run):
    """Bug (fixed in commands/conserved.py): when the timeout stopped the region walk before its
    first region, ``conserved`` said "the domain contains no linear region" with exit 2."""
    code, out, err = run("conserved", nets["a"], "--timeout", "1e-9", "--json")
    assert code == 3, err
    data = json.loads(out)
    assert data["complete"] is False and data["exact"] is False
    # the 12 global rescaling laws (one per hidden neuron, R23) are verified for every pattern
    assert data["lower"] == 12 and data["upper"] == DENSE.n_parameters
    assert {law["name"] for law in data["laws"]} == {f"Q{l}[{i}]" for l in (1, 2) for i in range(6)}


def test_conservation_law_verification_honours_the_timeout():
    """Bug (fixed in algebra/conservation/laws.py): the explicit laws were verified one by one with no
    look at the timeout (36 s for 8-32-32-32-1 under --timeout 0.001).  Now a candidate is only
    verified while the time (floor: _LAW_SECONDS) allows; unverified ones are not listed, and the
    lower bound is then the rank of the rescaling laws' gradients (R23), 12 here."""
    from algebra.conservation import conservation_laws, samples_from_patterns
    import algebra.conservation.laws as cons
    old = cons._LAW_SECONDS
    cons._LAW_SECONDS = 0.0
    try:
        res = conservation_laws(DENSE, samples_from_patterns([]), complete=False, timeout=0.0)
    finally:
        cons._LAW_SECONDS = old
    assert res.laws == () and res.lower == 12 and res.upper == DENSE.n_parameters
    assert not res.exact and any("not verified" in note for note in res.notes)
    res = conservation_laws(DENSE, samples_from_patterns([]), complete=False, timeout=0.0)
    assert res.lower == 12          # within the floor every global law is verified


# -- --timeout / --max-regions values on every command -----------------------------------------
@pytest.mark.parametrize("command", ["dim", "fiber", "analyze", "regions", "conserved", "absorb",
                                     "symmetries", "equiv", "diff"])
@pytest.mark.parametrize("value", ["-1", "nan"])
def test_negative_or_nan_timeout_is_usage_error(tmp_path, capsys, command, value, run):
    """Bug (fixed in cli.py): ``fiber/analyze --timeout -1`` crashed (itimer Errno 22, exit 4);
    ``absorb --timeout -1`` answered undecided; ``dim``/``conserved`` accepted NaN or -1."""
    net = tmp_path / "n.json"
    net.write_text(json.dumps(Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, 1]], [[1, 1]]],
                                                [[0, 0], [-1, 1], [0]]).to_dict()))
    block = tmp_path / "b.json"
    block.write_text(json.dumps({"format": "netfibers.block", "version": 1, "activation": "relu",
                                 "w_up": [[1, 0], [0, 1]], "w_down": [[-1, 0], [0, 1]]}))
    argv = {"absorb": ["absorb", block], "equiv": ["equiv", net, net],
            "diff": ["diff", net, net, "--box", "0,1"]}.get(command, [command, net])
    code, out, err = run(*argv, "--timeout", value)
    assert code == 2 and "--timeout" in err and "Traceback" not in err and out == ""
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", ["fiber", "analyze", "symmetries", "identify", "conserved"])
def test_timeout_inf_means_no_limit(command, run):
    """Bug (fixed in cli.py): ``fiber/analyze/symmetries/identify --timeout inf`` crashed (the
    alarm's OverflowError, exit 4); inf is no limit: the answer of the run without --timeout."""
    from pathlib import Path
    ex = Path(__file__).resolve().parents[2] / "algebra" / "examples"
    net = ex / ("t10_two_linear.json" if command == "conserved" else "t5_perm_scale_a.json")
    code, out, err = run(command, net)
    code_inf, out_inf, err_inf = run(command, net, "--timeout", "inf")
    assert code == code_inf == 0 and out_inf == out and "internal error" not in err_inf


def test_timeout_zero_means_no_time_not_no_limit(nets, capsys, run):
    """Bug (fixed in commands/bottleneck.py): ``deadline(0)`` disarmed the timer, so
    ``fiber --timeout 0`` ran without any limit; 0 now stops at once (partial, exit 3), as for
    ``regions --timeout 0``."""
    from semialgebraic.commands.bottleneck import Timeout, deadline
    with pytest.raises(Timeout):
        with deadline(0):
            pass
    code, out, _ = run("regions", nets["a"], "--timeout", "0", "--json")
    assert code == 3


@pytest.mark.parametrize("command", ["dim", "regions", "conserved"])
def test_negative_max_regions_is_usage_error(nets, capsys, command, run):
    code, out, err = run(command, nets["a"], "--max-regions", "-3")
    assert code == 2 and "--max-regions" in err and out == ""


def _dense(widths, seed):
    import random
    rng = random.Random(seed)
    return Network.from_rows(
        [[[Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(widths[l])]
          for _ in range(widths[l + 1])] for l in range(len(widths) - 1)],
        [[Q(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)])


@pytest.mark.slow
def test_functional_dimension_honours_a_tiny_timeout():
    """functional_dimension(timeout=0.001) on 8-32-32-32-1 took ~30 s (walks ignored the
    timeout); dimension.py now caps them (~10 s here, the exact rank of the sampled rows)."""
    import time
    from semialgebraic import functional_dimension
    net = _dense([8, 32, 32, 32, 1], 4)
    t0 = time.monotonic()
    fd = functional_dimension(net, timeout=0.001)
    assert fd.lower is not None and fd.lower <= fd.upper
    assert time.monotonic() - t0 < 30


def test_apply_says_when_the_result_equals_the_input_on_the_orthant_only(tmp_path, capsys, run):
    """UX gap (fixed in commands/shallow.py): ``apply`` of a step declared on the orthant at
    hidden layer 0 wrote a net that differs on R^d without saying so."""
    net = Network.from_rows([[[1, 0], [-1, -1]], [[1, 2]]], [[0, -1], [0]])
    src, out = tmp_path / "n.json", tmp_path / "o.json"
    src.write_text(json.dumps(net.to_dict()))
    steps = tmp_path / "s.json"
    steps.write_text(json.dumps([{"step": "S3", "layer": 0, "neuron": 1, "weight": [-5, 0],
                                  "bias": -2, "output": [7], "domain": "orthant"}]))
    code, text, _ = run("apply", steps, src, "-o", out, "--json")
    assert code == 0 and json.loads(text)["domain"] == "orthant"
    from algebra.io import load
    from semialgebraic import equivalent
    assert equivalent(net, load(str(out)), domain="orthant").answer is True
    assert equivalent(net, load(str(out))).answer is False
    steps.write_text(json.dumps([{"step": "S1", "layer": 0, "perm": [1, 0]}]))
    code, text, _ = run("apply", steps, src, "-o", out, "--json")
    assert code == 0 and json.loads(text)["domain"] == "R^d"


# -- wrong JSON types in a network or a step file: exit 2, nothing written ----------------------
def test_network_activation_of_wrong_type_cli(tmp_path, capsys):
    data = DEEP_A.to_dict()
    for value in ({}, ["relu"], 3):
        data["activation"] = value
        p = tmp_path / "n.json"
        p.write_text(json.dumps(data))
        assert main(["info", str(p)]) == 2
        err = capsys.readouterr().err
        assert "activation" in err and len(err.strip().splitlines()) == 1


def test_apply_step_name_of_wrong_type_cli(tmp_path, capsys):
    net = tmp_path / "n.json"
    net.write_text(json.dumps(DEEP_A.to_dict()))
    steps = tmp_path / "s.json"
    steps.write_text(json.dumps([{"step": {"S1": 1}, "layer": 0, "perm": [1, 0]}]))
    assert main(["apply", str(steps), str(net), "-o", str(tmp_path / "out.json")]) == 2
    assert not (tmp_path / "out.json").exists()
    capsys.readouterr()


# -- an empty domain value is an error, never all of R^d ---------------------------------------------
@pytest.mark.parametrize("argv", [
    ["regions", "A", "--box", ""], ["regions", "A", "--ball", ""], ["dim", "A", "--box", ""],
    ["dim", "A", "--ball", ""], ["equiv", "A", "B", "--box", ""], ["diff", "A", "B", "--box", ""],
    ["diff", "A", "B", "--ball", ""], ["conserved", "A", "--box", ""]])
def test_empty_box_or_ball_is_an_error_not_the_whole_space(nets, capsys, argv, run, tmp_path):
    """Bug (fixed in commands/common.py, conserved.py, general.py; found by tests/fuzz/inputs.py):
    ``--box ''`` (an unset shell variable) was read as "no domain": ``equiv`` answered over R^d
    and ``regions`` walked R^d, exit 0, with the user believing a box was used."""
    argv = [{"A": nets["a"], "B": nets["b"]}.get(a, a) for a in argv]
    code, out, err = run(*argv, "--timeout", "5")
    opt = "--box" if "--box" in argv else "--ball"
    assert code == 2 and out == "", (code, out, err)
    assert len(err.strip().splitlines()) == 1 and opt in err


@pytest.mark.parametrize("argv, option", [
    (["equiv", "A", "A", "--certificate", ""], "--certificate"),
    (["dim", "A", "--certificate", ""], "--certificate"),
    (["identify", "A", "--certificate", ""], "--certificate"),
    (["convert", "A", "-o", ""], "--output"),
    (["eval", "A", "--data", ""], "--data"),
    (["conserved", "A", "--data", ""], "--data")])
def test_empty_file_name_is_an_error_not_silence(nets, capsys, argv, option, run):
    """Bug (fixed in semialgebraic/cli.py; found by fuzzing the options): ``--certificate ''``
    exited 0 and wrote no certificate, without a word."""
    argv = [nets["a"] if a == "A" else a for a in argv]
    code, out, err = run(*argv)
    assert code == 2 and out == "" and f"{option}: empty file name" in err
    assert len(err.strip().splitlines()) == 1


def test_negative_max_nullity_is_usage_error(tmp_path, capsys, run):
    """``absorb --max-nullity -1`` answered "undecided" (exit 3) instead of refusing the option."""
    block = tmp_path / "b.json"
    block.write_text(json.dumps({"format": "netfibers.block", "version": 1, "activation": "relu",
                                 "w_up": [[1, 0], [0, 1]], "w_down": [[-1, 0], [0, -1]]}))
    code, out, err = run("absorb", block, "--max-nullity", "-1")
    assert code == 2 and "--max-nullity" in err and out == ""
    assert run("absorb", block, "--max-nullity", "0")[0] in (0, 3)


def test_file_name_too_long_and_pipe_are_input_errors(tmp_path, capsys, run):
    """Bugs (fixed in algebra/io/__init__.py and algebra/io/native.py; found by fuzzing the
    paths): a file name longer than the system allows was an internal error (exit 4, OSError
    from Path.exists), and a named pipe (FIFO) made ``info`` / ``verify`` wait forever."""
    import os
    long_name = tmp_path / ("x" * 300 + ".json")
    code, out, err = run("info", long_name)
    assert code == 2 and out == "" and "cannot read" in err and "internal" not in err
    if not hasattr(os, "mkfifo"):
        return
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    for argv in (["info", fifo], ["verify", fifo], ["eval", _dense_path(tmp_path), "--data", fifo]):
        code, out, err = run(*argv)
        assert code == 2 and "pipe.json: not a regular file" in err, (argv, err)
        assert len(err.strip().splitlines()) == 1


def _dense_path(tmp_path):
    p = tmp_path / "dense.json"
    p.write_text(json.dumps(DENSE.to_dict()))
    return p


@pytest.mark.parametrize("argv", [["regions", "A", "--box", "L"], ["dim", "A", "--box", "L"],
                                  ["convert", "A", "-o", "L.json"], ["absorb", "BLOCK", "--skip", "L"]])
def test_option_value_too_long_for_a_file_name_is_an_input_error(nets, tmp_path, capsys, argv,
                                                                 run):
    """Bug (fixed in commands/common.py, core.py, absorb.py; found by fuzzing the paths): an
    option value tried as a path (``--box``, ``--skip``, ``-o``) longer than a file name may be
    was an internal error (exit 4, OSError)."""
    block = tmp_path / "b.json"
    block.write_text(json.dumps({"format": "netfibers.block", "version": 1, "activation": "relu",
                                 "w_up": [[1, 0], [0, 1]], "w_down": [[-1, 0], [0, -1]]}))
    long = "x" * 300
    argv = [nets["a"] if a == "A" else block if a == "BLOCK" else a.replace("L", long)
            for a in argv]
    code, out, err = run(*argv)
    assert code == 2 and out == "" and "internal" not in err, err
    assert len(err.strip().splitlines()) == 1


def test_an_internal_certificate_failure_is_exit_4_not_1(nets, capsys, monkeypatch):
    """Bug (found by tests/fuzz): a CertificateError raised inside a command (here the region
    walk's start-point search) escaped ``main`` as a traceback with exit 1, which ``equiv`` uses
    for "not equivalent".  It is a bug in netfibers: one line, exit 4."""
    from semialgebraic.exceptions import CertificateError
    from semialgebraic.regions import walk

    def boom(self, start):
        raise CertificateError("regions", "could not find a start point off the hyperplanes")
    monkeypatch.setattr(walk._Engine, "start", boom)
    code = main(["regions", nets["a"], "--box", "-1,1"])
    err = capsys.readouterr().err
    assert code == 4 and "internal error (CertificateError" in err and err.count("\n") == 1



def test_a_budget_error_escaping_a_command_is_exit_3_not_2(capsys, monkeypatch):
    """``BudgetExceededError`` is a ``TimeoutError``, hence an ``OSError``: had one escaped a
    command, ``main`` reported it as bad input (exit 2); a budget is exit 3, "undecided"."""
    import argparse

    import semialgebraic.cli as cli
    from semialgebraic.exceptions import BudgetExceededError

    def boom(args):
        raise BudgetExceededError("timeout of 1 s reached")

    class Parser:
        def parse_args(self, argv):
            return argparse.Namespace(command="info", func=boom, debug=False)
    monkeypatch.setattr(cli, "build_parser", Parser)
    assert cli.main(["info", "x.json"]) == 3
    assert capsys.readouterr().err == "netfibers: budget exhausted: timeout of 1 s reached\n"


def test_weights_beyond_float64_range_are_one_line_not_an_internal_error(tmp_path, capsys):
    """An exact weight of 1e400 (a JSON literal means the number it spells) met a float guess in
    regions / dim / conserved: it was an internal error (exit 4); now one line, exit 2, naming
    the commands that take it exactly (session 32's audit)."""
    import json as _json
    from semialgebraic.cli import main as _main
    path = tmp_path / "huge.json"
    path.write_text(_json.dumps({"format": "netfibers.network", "version": 1, "activation": "relu",
                                 "layers": [{"weight": [["1e400", 1], [1, -1]], "bias": [0, 1]},
                                            {"weight": [[1, 1]], "bias": [0]}]}))
    for cmd in ("regions", "conserved"):
        assert _main([cmd, str(path)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "beyond float64's range" in err and "internal error" not in err
    assert _main(["eval", str(path), "--x", "1,1"]) == 0
    # dim's walk drops a float guess past float64's range since s54 (the exact steps decide):
    # 9 parameters, two positive rescalings (S2), both neurons switching: 7, certified
    capsys.readouterr()
    assert _main(["dim", str(path), "--json"]) == 0
    data = _json.loads(capsys.readouterr().out)
    assert (data["functional_dimension"], data["exact"], data["n_parameters"]) == (7, True, 9)


def test_python_m_netfibers_cli_runs_the_command():
    """``python -m netfibers.cli`` ran nothing, exit 0 (session 32's audit)."""
    import subprocess
    import sys as _sys
    r = subprocess.run([_sys.executable, "-m", "netfibers.cli", "info", "algebra/examples/r21_shallow.json"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.startswith("widths 2-3-1")
