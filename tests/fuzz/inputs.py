"""Fuzzer of the input layer: hostile files and option strings against every ``netfibers`` command.

Every case must give exit 2, ONE line on stderr naming the file (or the option) and the problem,
no traceback, and nothing written (no ``--certificate`` / ``-o`` / ``--graphml`` file created).

Run by hand (at low priority; each call is in-process, its command bounded by ``--timeout`` where
it takes one and by an alarm otherwise)::

    nice -n 15 python -m tests.fuzz.inputs --seed 1 --count 300

It prints one line per failing case (the command to reproduce it) and a count per kind.
``tests/cli/test_fuzz_inputs.py`` runs a bounded sample of it.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import random
import signal
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from semialgebraic.cli import main

# -- good inputs ---------------------------------------------------------------------------------
SHALLOW = {"format": "netfibers.network", "version": 1, "activation": "relu",
           "layers": [{"weight": [[1, -1], [2, 1], [0, 1]], "bias": [0, 1, -1]},
                      {"weight": [[1, -2, "1/2"]], "bias": [1]}]}
# a generic three-layer bottleneck 2-2-2-1 (three-layer-fibers §9 style): identify/symmetries
BOTTLENECK = {"format": "netfibers.network", "version": 1, "activation": "relu",
              "layers": [{"weight": [[1, 2], [-1, 1]], "bias": [1, -1]},
                         {"weight": [[1, -2], [-3, 1]], "bias": [1, 2]},
                         {"weight": [[1, -1]], "bias": [5]}]}
BLOCK = {"format": "netfibers.block", "version": 1, "activation": "relu",
         "w_up": [[1, 0], [0, 1]], "w_down": [[-1, 0], [0, -1]]}


def _leaves(obj, path=()):
    """Every (path, value) of a JSON tree whose value is not a container."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))
    else:
        yield path, obj


def _containers(obj, path=()):
    if isinstance(obj, (dict, list)):
        yield path, obj
        items = obj.items() if isinstance(obj, dict) else enumerate(obj)
        for k, v in items:
            yield from _containers(v, path + (k,))


def _set(obj, path, value):
    for k in path[:-1]:
        obj = obj[k]
    obj[path[-1]] = value


BAD_NUMBERS = ["nan", "NaN", "inf", "-inf", "1/0", "0/0", "abc", "", " ", "1e999999999",
               "1/3/4", "0x10", "1_000", "--1", "1e", "∞", "½", True, None, {}, [], [[1]]]
BAD_LITERALS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"]


def json_cases(rng: random.Random, good: dict, n: int):
    """(kind, text) of *n* mutations of *good*: one leaf, one container, or the text itself."""
    out = []
    for _ in range(n):
        g = copy.deepcopy(good)
        kind = rng.choice(["leaf", "literal", "drop_key", "ragged", "truncate", "garble",
                           "container", "toplevel", "activation", "format", "extra_row"])
        if kind == "leaf":
            path, _ = rng.choice([p for p in _leaves(g) if p[-1] not in ("comment", "name")])
            _set(g, path, rng.choice(BAD_NUMBERS))
            text = json.dumps(g)
        elif kind == "literal":
            path, old = rng.choice([p for p in _leaves(g) if isinstance(p[1], (int, str))
                                    and p[0][-1] not in ("format", "version", "activation")])
            marker = "__MARK__"
            _set(g, path, marker)
            text = json.dumps(g).replace(f'"{marker}"', rng.choice(BAD_LITERALS), 1)
        elif kind == "drop_key":
            conts = [(p, c) for p, c in _containers(g) if isinstance(c, dict) and c]
            path, c = rng.choice(conts)
            key = rng.choice([k for k in c if k not in ("comment", "name")] or list(c))
            del c[key]
            text = json.dumps(g)
        elif kind == "ragged":
            lists = [(p, c) for p, c in _containers(g) if isinstance(c, list) and c
                     and all(isinstance(r, list) for r in c) and len(c) > 0]
            if not lists:
                continue
            path, c = rng.choice(lists)
            row = rng.randrange(len(c))
            c[row] = c[row][:-1] if rng.random() < 0.5 else c[row] + [1]
            text = json.dumps(g)
        elif kind == "truncate":
            t = json.dumps(g)
            text = t[:rng.randrange(len(t))]
        elif kind == "garble":
            t = bytearray(json.dumps(g).encode())
            for _ in range(rng.randint(1, 3)):
                t[rng.randrange(len(t))] = rng.randrange(256)
            text = bytes(t)
        elif kind == "container":
            conts = [(p, c) for p, c in _containers(g) if p]
            path, _ = rng.choice(conts)
            _set(g, path, rng.choice([[], {}, None, 1, "x", [[]], [[1, 2, 3, 4, 5]]]))
            text = json.dumps(g)
        elif kind == "toplevel":
            text = json.dumps(rng.choice([[], 1, "x", None, [g], {"layers": g}]))
        elif kind == "activation":
            g["activation"] = rng.choice(["tanhh", "", 1, None, ["relu"], "RELU ", "softmax"])
            text = json.dumps(g)
        elif kind == "format":
            key = rng.choice(["format", "version"])
            g[key] = rng.choice(["netfibers.network", "netfibers.block", "x", 99, -1, None])
            text = json.dumps(g)
        else:                                              # a layer whose widths do not chain
            layers = g.get("layers")
            if not layers:
                continue
            layers.insert(rng.randrange(len(layers) + 1),
                          {"weight": [[1] * rng.randint(1, 4)], "bias": [0]})
            text = json.dumps(g)
        out.append((f"json:{kind}", text))
    return out


def _npz(path, arrays):
    with open(path, "wb") as fh:
        np.savez(fh, **arrays)


def _safetensors_bytes(tensors: dict, header_extra=None, truncate=0):
    header, data = {}, b""
    for name, arr in tensors.items():
        raw = arr.tobytes()
        dt = {np.dtype("float32"): "F32", np.dtype("float64"): "F64", np.dtype("float16"): "F16",
              np.dtype("int32"): "I32", np.dtype("bool"): "BOOL"}[arr.dtype]
        header[name] = {"dtype": dt, "shape": list(arr.shape),
                        "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    if header_extra:
        header.update(header_extra)
    h = json.dumps(header).encode()
    blob = struct.pack("<Q", len(h)) + h + data
    return blob[:len(blob) - truncate] if truncate else blob


def binary_cases(rng: random.Random, tmp: Path, n: int):
    """(kind, path) of hostile binary files: .npz, .safetensors, .pt, .onnx, .nnet, .h5."""
    W1 = np.array([[1.0, -1.0], [2.0, 1.0], [0.0, 1.0]])
    b1 = np.array([0.0, 1.0, -1.0])
    W2 = np.array([[1.0, -2.0, 0.5]])
    b2 = np.array([1.0])
    good = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}
    makers = []

    def npz(kind):
        a = {k: v.copy() for k, v in good.items()}
        key = rng.choice(list(a))
        if kind == "nan":
            a[key].flat[rng.randrange(a[key].size)] = rng.choice([np.nan, np.inf, -np.inf])
        elif kind == "f16_nan":
            a = {k: v.astype(np.float16) for k, v in a.items()}
            a[key].flat[rng.randrange(a[key].size)] = rng.choice([np.nan, np.inf, -np.inf])
        elif kind == "missing":
            del a[key]
        elif kind == "shape":
            a[key] = rng.choice([np.ones((2, 5)), np.ones((1,)), np.ones((2, 2, 2)), np.ones(()),
                                 np.ones((0, 2)), np.ones((3, 0))])
        elif kind == "dtype":
            a[key] = rng.choice([a[key].astype(np.complex128), a[key].astype(str),
                                 a[key].astype(bool), np.array([[1.0]], dtype=object)])
        elif kind == "extra":
            a["W7"] = np.ones((4, 4))
        elif kind == "empty":
            a = {}
        return a

    for _ in range(n):
        fmt = rng.choice(["npz", "npz", "safetensors", "pt", "onnx", "nnet", "h5", "raw"])
        name = f"f{rng.randrange(10**9)}"
        if fmt == "npz":
            kind = rng.choice(["nan", "f16_nan", "missing", "shape", "dtype", "extra", "empty",
                               "truncated", "garbage"])
            p = tmp / f"{name}.npz"
            if kind in ("truncated", "garbage"):
                _npz(p, good)
                blob = p.read_bytes()
                blob = (blob[:rng.randrange(len(blob))] if kind == "truncated"
                        else bytes(rng.randrange(256) for _ in range(rng.randint(0, 64))))
                p.write_bytes(blob)
            else:
                try:
                    _npz(p, npz(kind))
                except Exception:                  # numpy refuses to write it: not a case
                    continue
            makers.append((f"npz:{kind}", p))
        elif fmt == "safetensors":
            kind = rng.choice(["nan", "f16_nan", "missing", "shape", "truncated", "header",
                               "offsets", "bool", "empty"])
            p = tmp / f"{name}.safetensors"
            t = {k: v.astype(np.float32) for k, v in good.items()}
            extra, trunc = None, 0
            key = rng.choice(list(t))
            if kind == "nan":
                t[key].flat[0] = np.nan
            elif kind == "f16_nan":
                t = {k: v.astype(np.float16) for k, v in t.items()}
                t[key].flat[0] = np.inf
            elif kind == "missing":
                del t[key]
            elif kind == "shape":
                t[key] = np.ones((2, 7), dtype=np.float32)
            elif kind == "truncated":
                trunc = rng.randint(1, 16)
            elif kind == "offsets":
                extra = {"W9": {"dtype": "F32", "shape": [2], "data_offsets": [0, 10**6]}}
            elif kind == "bool":
                t[key] = t[key].astype(bool)
            elif kind == "empty":
                t = {}
            if kind == "header":
                blob = struct.pack("<Q", 10**6) + b"{"
            else:
                blob = _safetensors_bytes(t, extra, trunc)
            p.write_bytes(blob)
            makers.append((f"safetensors:{kind}", p))
        elif fmt == "pt":
            try:
                import torch
            except ImportError:        # torch is an optional extra (CI has none): a garbage
                torch = None           # file, which must get the install hint, exit 2
            kind = rng.choice(["pickle_class", "truncated", "garbage", "tensor", "nonTensor",
                               "nan", "missing"]) if torch is not None else "garbage"
            p = tmp / f"{name}.pt"
            sd = {} if torch is None else {"0.weight": torch.tensor(W1), "0.bias": torch.tensor(b1),
                                           "2.weight": torch.tensor(W2), "2.bias": torch.tensor(b2)}
            if kind == "pickle_class":
                torch.save({"model": _Opaque()}, p)
            elif kind == "truncated":
                torch.save(sd, p)
                blob = p.read_bytes()
                p.write_bytes(blob[:rng.randrange(len(blob))])
            elif kind == "garbage":
                p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 200))))
            elif kind == "tensor":
                torch.save(torch.tensor(W1), p)
            elif kind == "nonTensor":
                torch.save({"0.weight": [[1, 2]], "0.bias": "x"}, p)
            elif kind == "nan":
                sd["2.bias"] = torch.tensor([float("nan")])
                torch.save(sd, p)
            else:
                del sd["0.bias"]
                sd["2.weight"] = torch.ones(1, 5)
                torch.save(sd, p)
            makers.append((f"pt:{kind}", p))
        elif fmt == "onnx":
            kind = rng.choice(["garbage", "missing_init", "op", "truncated", "nan"])
            p = tmp / f"{name}.onnx"
            if kind == "garbage":
                p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 200))))
            else:
                blob = _onnx_model(W1, b1, W2, b2, kind)
                if kind == "truncated":
                    blob = blob[:rng.randrange(len(blob))]
                p.write_bytes(blob)
            makers.append((f"onnx:{kind}", p))
        elif fmt == "nnet":
            kind = rng.choice(["truncated", "garbled", "counts", "nan", "empty", "negative"])
            p = tmp / f"{name}.nnet"
            lines = _nnet_lines()
            if kind == "truncated":
                lines = lines[:rng.randrange(len(lines))]
            elif kind == "garbled":
                i = rng.randrange(len(lines))
                lines[i] = lines[i].replace("1", rng.choice(["x", "1e", "--1", "1/0", ""]), 1)
            elif kind == "counts":
                lines[1] = rng.choice(["2,2,1,1,", "9,2,1,3,", "1,2,1,3,", "a,b,c,", ""])
            elif kind == "nan":
                lines[-1] = "nan,"
            elif kind == "negative":
                lines[2] = "2,-3,1,"
            else:
                lines = []
            p.write_text("\n".join(lines))
            makers.append((f"nnet:{kind}", p))
        elif fmt == "h5":
            p = tmp / f"{name}.h5"
            p.write_bytes(bytes(rng.randrange(256) for _ in range(rng.randint(0, 100))))
            makers.append(("h5:garbage", p))
        else:
            kind = rng.choice(["directory", "missing", "suffix", "nosuffix", "json_dir", "fifo",
                               "long_name"])
            if kind == "directory":
                p = tmp / f"{name}.json"
                p.mkdir()
            elif kind == "json_dir":
                p = tmp / f"{name}.npz"
                p.mkdir()
            elif kind == "missing":
                p = tmp / f"{name}.json"
            elif kind == "fifo":
                import os
                p = tmp / f"{name}.json"
                os.mkfifo(p)
            elif kind == "long_name":
                p = tmp / (name + "x" * 300 + ".json")
            elif kind == "suffix":
                p = tmp / f"{name}.txt"
                p.write_text(json.dumps(SHALLOW))
            else:
                p = tmp / name
                p.write_text(json.dumps(SHALLOW))
            makers.append((f"path:{kind}", p))
    return makers


class _Opaque:  # a pickled class that torch.load(weights_only=True) refuses
    pass


def _nnet_lines():
    """A valid 2-3-1 NNet file (ACAS Xu text format) as lines."""
    return ["// a tiny network", "2,2,1,3,", "2,3,1,", "0,", "-1,-1,", "1,1,", "0,0,0,", "1,1,1,",
            "1,-1,", "2,1,", "0,1,", "0,", "1,", "-1,", "1,-2,0.5,", "1,"]


def _onnx_model(W1, b1, W2, b2, kind):
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    inits = [numpy_helper.from_array(W1.T.astype(np.float32), "W1"),
             numpy_helper.from_array(b1.astype(np.float32), "b1"),
             numpy_helper.from_array(W2.T.astype(np.float32), "W2"),
             numpy_helper.from_array(b2.astype(np.float32), "b2")]
    if kind == "missing_init":
        inits = inits[:3]
    if kind == "nan":
        inits[1] = numpy_helper.from_array(np.array([np.nan, 0, 0], dtype=np.float32), "b1")
    relu = "Sigmoid" if kind == "op" else "Relu"
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["h0"]),
             helper.make_node("Add", ["h0", "b1"], ["h1"]),
             helper.make_node(relu, ["h1"], ["h2"]),
             helper.make_node("MatMul", ["h2", "W2"], ["h3"]),
             helper.make_node("Add", ["h3", "b2"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                          [1, 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1])],
                              inits)
    return helper.make_model(graph).SerializeToString()


# -- commands ------------------------------------------------------------------------------------
T = ["--timeout", "5"]


def file_argvs(bad: Path, good: Path, good_block: Path, out: Path):
    """argv lists in which *bad* is the one hostile input, for every command that reads a net."""
    return [["info", bad], ["info", "--json", bad], ["convert", bad, "-o", out / "c.json"],
            ["eval", "--x", "0,0", bad], ["regions", bad, "--box", "0,1", *T],
            ["canon", bad, "-o", out / "canon.json"], ["identify", bad, "--certificate",
                                                      out / "i.json"],
            ["fiber", bad, *T], ["symmetries", bad, "--graphml", out / "g.graphml", *T],
            ["conserved", bad, "--box", "0,1", *T], ["equiv", good, bad, "--certificate",
                                                     out / "e.json", *T],
            ["equiv", bad, good, "--json", *T],
            ["diff", bad, good, "--box", "0,1", "--certificate", out / "d.json", *T],
            ["dim", bad, "--certificate", out / "dim.json", *T],
            ["analyze", bad, "--certificate", out / "an.json", *T],
            ["recover", bad, "-o", out / "r.json", *T],
            ["apply", good_steps(out.parent), bad, "-o", out / "applied.json"],
            ["absorb", bad, "--certificate", out / "ab.json", *T],
            ["verify", bad], ["verify", bad, good],
            ["eval", "--data", bad, good]]


def good_steps(tmp: Path) -> Path:
    p = tmp / "steps.json"
    if not p.exists():
        p.write_text(json.dumps([{"step": "S1", "layer": 1, "perm": [1, 0, 2]}]))
    return p


OPTION_CASES = [
    # (option, values) for commands taking a domain; every value is malformed
    ("--box", ["x" * 300, "", "1", "0,1,2", "a,b", "1,0", "nan,1", "0,inf", "1/0,1", "0,,1", ",", "0;1",
               "0,1e999999999", "0x1,2", "-1,-2"]),
    ("--ball", ["", "0", "0,0,0,1", "a,b,c", "0,0,-1", "0,0,nan", "nan,0,1", "0,0,1/0"]),
    ("--x", ["", "0", "0,0,0", "a,b", "nan,0", "1/0,1", "inf,0", "0,,"]),
    ("--epsilon", ["-1", "nan", "abc", "1/0", "inf", ""]),
    ("--file", [""]),
]


def option_argvs(good: Path, bottleneck: Path, out: Path):
    res = []
    for opt, values in OPTION_CASES:
        for v in values:
            if opt == "--box":
                for cmd in (["regions", good], ["equiv", good, good, "--certificate",
                                                out / "e.json"],
                            ["diff", good, good, "--certificate", out / "d.json"],
                            ["dim", good, "--certificate", out / "dim.json"],
                            ["conserved", good]):
                    res.append((opt, v, [*cmd, opt, v, *T]))
            elif opt == "--ball":
                for cmd in (["regions", good], ["equiv", good, good, "--certificate",
                                                out / "e.json"],
                            ["diff", good, good], ["dim", good]):
                    res.append((opt, v, [*cmd, opt, v, *T]))
            elif opt == "--x":
                res.append((opt, v, ["eval", good, opt, v]))
            elif opt == "--file":              # an empty file name where a file is written/read
                for cmd, o in ((["equiv", good, good], "--certificate"),
                               (["dim", good], "--certificate"),
                               (["identify", bottleneck], "--certificate"),
                               (["symmetries", bottleneck], "--graphml"),
                               (["convert", good], "-o"), (["canon", good], "--form"),
                               (["eval", good], "--data"), (["conserved", good], "--data")):
                    res.append((o.lstrip("-") if o != "-o" else "--output", v,
                                [*cmd, o, v, *T] if cmd[0] not in ("convert", "canon", "eval",
                                                                   "identify")
                                else [*cmd, o, v]))
            else:
                res.append((opt, v, ["equiv", good, good, "--box", "0,1", opt, v,
                                     "--certificate", out / "e.json", *T]))
    return res


# -- running --------------------------------------------------------------------------------------
@dataclass
class Outcome:
    code: int
    out: str
    err: str


class _Alarm(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Alarm()


def run_cli(argv, seconds=30) -> Outcome:
    argv = [str(a) for a in argv]
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(seconds)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else 2
            except _Alarm:
                code = -1
            except BaseException as exc:          # a traceback would reach the user
                code = -2
                err.write(f"Traceback (escaped): {type(exc).__name__}: {exc}\n")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    return Outcome(code, out.getvalue(), err.getvalue())


def _files(root: Path):
    return {p for p in root.rglob("*")}


def check(argv, name_in_err, root: Path, outdir: Path) -> str | None:
    """None when the case behaves (exit 2, one line naming *name_in_err*, nothing written), else
    the problem."""
    before = _files(root)
    res = run_cli(argv)
    after = _files(root)
    written = sorted(str(p.relative_to(root)) for p in after - before)
    lines = res.err.strip().splitlines()
    problems = []
    if res.code == -1:
        problems.append("no answer within 30 s")
    if res.code != 2:
        problems.append(f"exit {res.code}")
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr")
    if "Traceback" in res.err or "internal error" in res.err:
        problems.append("traceback/internal error")
    if lines and name_in_err not in lines[0]:
        problems.append(f"{name_in_err!r} not named")
    if written:
        problems.append(f"wrote {written}")
    if not problems:
        return None
    return "; ".join(problems) + f" | stderr: {res.err.strip()[:300]!r}"


def fuzz(seed: int, count: int, commands=None, verbose=True, all_commands=False, options=None):
    """Run *count* hostile files (each against every command, or those named) and the malformed
    option strings (all, or a sample of *options* of them); return {kind: [cases, failures]} and
    the failure lines."""
    rng = random.Random(seed)
    stats: dict[str, list[int]] = {}
    failures = []
    with tempfile.TemporaryDirectory() as d:
        root = Path(d)
        out = root / "out"
        out.mkdir()
        good = root / "good.json"
        good.write_text(json.dumps(SHALLOW))
        goodb = root / "bottleneck.json"
        goodb.write_text(json.dumps(BOTTLENECK))
        block = root / "block.json"
        block.write_text(json.dumps(BLOCK))
        good_steps(root)
        n_json = count // 2
        cases = []
        for i, (kind, text) in enumerate(json_cases(rng, rng.choice([SHALLOW, BOTTLENECK, BLOCK]),
                                                    n_json)):
            p = root / f"bad{i}.json"
            (p.write_bytes if isinstance(text, bytes) else p.write_text)(text)
            cases.append((kind, p))
        cases += binary_cases(rng, root, count - n_json)
        for kind, p in cases:
            argvs = file_argvs(p, good, block, out)
            if commands:
                argvs = [a for a in argvs if a[0] in commands]
            # one command per case (chosen by the seed) keeps a run short; --all-commands for all
            picks = argvs if all_commands else [rng.choice(argvs)]
            for argv in picks:
                key = f"{kind} {argv[0]}"
                st = stats.setdefault(kind, [0, 0])
                st[0] += 1
                if _accepts(p, argv):
                    continue                      # a mutation that left the file valid
                problem = check(argv, p.name, root, out)
                if problem:
                    st[1] += 1
                    failures.append(f"{key}: netfibers {' '.join(map(str, argv))}  -> {problem}")
                    if verbose:
                        print(failures[-1], flush=True)
        if not commands or {"regions", "equiv", "diff", "dim", "conserved", "eval"} & set(commands):
            opts = option_argvs(good, goodb, out)
            if options is not None:
                opts = rng.sample(opts, min(options, len(opts)))
            for opt, v, argv in opts:
                st = stats.setdefault(f"option {opt}", [0, 0])
                st[0] += 1
                problem = check(argv, opt, root, out)
                if problem:
                    st[1] += 1
                    failures.append(f"option {opt}={v!r}: netfibers "
                                    f"{' '.join(map(str, argv))}  -> {problem}")
                    if verbose:
                        print(failures[-1], flush=True)
    return stats, failures


def _accepts(path: Path, argv) -> bool:
    """Whether the hostile file is in fact a valid input (a mutation may leave it valid): then
    the command may answer, and the case is skipped."""
    from algebra.exceptions import AlgebraError
    from algebra.io import load
    try:
        if path.suffix == ".json" and path.is_file():
            data = json.loads(path.read_text())
            if isinstance(data, dict) and data.get("type") and data.get("format") is None:
                return False
        load(path)
        return True
    except (AlgebraError, Exception):
        return False


def _main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--command", action="append", help="only these commands (repeat)")
    ap.add_argument("--all-commands", action="store_true", help="every command on every file")
    args = ap.parse_args()
    stats, failures = fuzz(args.seed, args.count, args.command, all_commands=args.all_commands)
    for kind, (n, bad) in sorted(stats.items()):
        print(f"{kind:28s} {n:5d} cases {bad:4d} failing")
    print(f"{sum(n for n, _ in stats.values())} cases, {len(failures)} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(_main())
