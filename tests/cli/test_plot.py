"""``netfibers plot`` and ``netfibers diff --plot``: files in the format of the suffix, written
atomically, refused on bad input (exit 2, nothing written, an existing file untouched), a
one-line install hint without matplotlib, exit 3 on a budget, every kind's --help complete."""

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from semialgebraic.cli import _join_negative_values, build_parser, main

pytest.importorskip("matplotlib")

ROOT = Path(__file__).resolve().parents[2]
EX = ROOT / "algebra" / "examples"
T1 = str(EX / "t1_masked.json")
T1B = str(EX / "t1_translated_2.json")
MAGIC = {".png": b"\x89PNG", ".svg": b"<?xml", ".pdf": b"%PDF"}


def _leftovers(d: Path) -> list:
    return [p.name for p in d.iterdir() if p.name.startswith(".nf-")]


@pytest.mark.parametrize("suffix", [".png", ".svg", ".pdf"])
def test_regions_picture_in_each_format(tmp_path, capsys, suffix):
    out = tmp_path / f"r{suffix}"
    assert main(["plot", "regions", T1, "--box", "-3,3", "-o", str(out)]) == 0
    assert out.read_bytes().startswith(MAGIC[suffix])
    text = capsys.readouterr().out
    assert "6 activation regions" in text and "masked" in text and "L1[0]" in text
    assert not _leftovers(tmp_path)


def test_json_scene_has_exact_coordinates(tmp_path, capsys):
    out = tmp_path / "r.svg"
    assert main(["plot", "regions", T1, "--box", "-3,3", "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    scene = data["scene"]
    assert data["complete"] is True and len(scene["polygons"]) == 6
    assert [[0, 0], [-3, 0], [-3, -3], [0, -3]] in [p["vertices"] for p in scene["polygons"]]
    assert {s["style"] for s in scene["segments"] if s["group"] == "L1[0]"} == {"dashed"}


def test_fiber_symmetries_and_diff(tmp_path, capsys):
    assert main(["plot", "fiber", T1, "-o", str(tmp_path / "f.png"), "--json"]) == 0
    scene = json.loads(capsys.readouterr().out)["scene"]
    s6 = [s for s in scene["segments"] if s["label"].startswith("S6")]
    assert [(s["start"], s["end"]) for s in s6] == [([-1, 0], ["3/2", 0])] * 2
    assert main(["plot", "symmetries", T1, "-o", str(tmp_path / "s.pdf")]) == 0
    assert "2 node(s), 1 edge(s), 1 orbit(s)" in capsys.readouterr().out
    assert main(["plot", "diff", T1, T1B, "--box", "-3,3", "--grid", "5",
                 "-o", str(tmp_path / "d.png")]) == 0
    assert "grid max 1; certified max 1" in capsys.readouterr().out
    for name in ("f.png", "s.pdf", "d.png"):
        assert (tmp_path / name).stat().st_size > 1000


def test_diff_plot_flag(tmp_path, capsys):
    out = tmp_path / "d.svg"
    assert main(["diff", T1, T1B, "--box", "-3,3", "--plot", str(out)]) == 0
    assert "max |a - b| = 1" in capsys.readouterr().out
    assert out.read_bytes().startswith(b"<?xml")
    assert main(["diff", T1, T1B, "--box", "-3,3", "--plot", str(tmp_path / "d.gif")]) == 2
    assert not (tmp_path / "d.gif").exists()


@pytest.mark.parametrize("argv,message", [
    (["plot", "regions", T1, "-o", "{out}.jpg"], "unknown picture format '.jpg'"),
    (["plot", "regions", T1, "-o", "{tmp}/missing/r.png"], "does not exist"),
    (["plot", "regions", "{tmp}/nope.json", "-o", "{out}"], "nope.json"),
    (["plot", "regions", T1, "--box", "2,1", "-o", "{out}"], "exceeds"),
    (["plot", "regions", T1, "--slice", "0,0,1,1,2,2", "-o", "{out}"], "linearly dependent"),
    (["plot", "regions", str(EX / "t6_control.json"), "--box", "1,1", "-o", "{out}"], "positive"),
    (["plot", "diff", T1, T1B, "-o", "{out}"], "needs --box"),
    (["plot", "diff", T1, str(EX / "t10_linear.json"), "--box", "-1,1", "-o", "{out}"], ""),
])
def test_bad_input_exit_2_nothing_written(tmp_path, capsys, argv, message):
    out = tmp_path / "keep.png"
    out.write_bytes(b"old")
    argv = [a.format(tmp=tmp_path, out=out) for a in argv]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("netfibers: error:") and err.count("\n") == 1 and message in err
    assert out.read_bytes() == b"old" and not _leftovers(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.png"]


def test_timeout_writes_a_partial_picture(tmp_path, capsys):
    out = tmp_path / "r.png"
    assert main(["plot", "regions", T1, "--box", "-3,3", "--timeout", "0", "-o", str(out)]) == 3
    assert "partial" in capsys.readouterr().out and out.exists()


BLOCK_MPL = """
import sys
class _Blocked:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "matplotlib":
            raise ModuleNotFoundError("No module named 'matplotlib'", name=name)
sys.meta_path.insert(0, _Blocked())
from semialgebraic.cli import main
sys.exit(main())
"""


def test_without_matplotlib_one_line_install_hint(tmp_path):
    out = tmp_path / "r.png"
    r = subprocess.run([sys.executable, "-c", BLOCK_MPL, "plot", "regions", T1, "-o", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and "pip install '.[plot]'" in r.stderr
    assert not out.exists()


PARSER = build_parser()
PLOT = next(a for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)).choices["plot"]
KINDS = next(a for a in PLOT._actions if isinstance(a, argparse._SubParsersAction)).choices


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_has_a_complete_help(kind):
    p = KINDS[kind]
    assert len((p.description or "").split()) >= 12 and p.description.rstrip().endswith(".")
    epilog = p.epilog or ""
    assert epilog.startswith("exit codes:\n") and "  0 " in epilog and "  2 " in epilog
    examples = [e.strip() for e in epilog.split("\n\nexamples:\n")[1].splitlines()]
    assert examples and all(e.startswith(f"netfibers plot {kind}") for e in examples)
    for e in examples:
        args = PARSER.parse_args(_join_negative_values(shlex.split(e)[1:]))
        assert (args.command, args.kind) == ("plot", kind)


def test_plot_diff_keeps_time_for_the_picture(tmp_path):
    """``plot diff digits_64-32-10 <its float16 copy> --box 0,16 --timeout 20`` gave the whole
    budget to the certified maximum, then drew the 41 x 41 grid (~1.5 s more): 22.5 s wall, the
    limit 1.05·T + 2 = 23 s after start-up.  The search now gets the time left less the
    picture's estimate (grid² evaluations at the speed of one, plus DRAW_SECONDS)."""
    from semialgebraic.budget import Budget
    from semialgebraic.commands.common import load_network
    from semialgebraic.commands.plot import DRAW_SECONDS, _search_share
    from algebra.rationals import Q
    from tests.cli.test_timeout_overruns import timed
    a = load_network(str(ROOT / "benchmarks" / "data" / "digits_64-32-10.npz"))
    box = [(Q(0), Q(16))] * 64
    share = _search_share(a, a, box, 41, Budget(10))
    # the picture's estimate: 1 681 evaluations of ~0.6-2 ms and DRAW_SECONDS, never the budget
    assert 1 < share.timeout <= 10 - DRAW_SECONDS
    assert _search_share(a, a, box, 41, Budget()).timeout is None     # no timeout: the budget itself
    f16 = tmp_path / "d16.npz"
    assert main(["convert", str(ROOT / "benchmarks" / "data" / "digits_64-32-10.npz"),
                 "--dtype", "float16", "-o", str(f16)]) == 0
    out = tmp_path / "d.png"
    code, js, after, _ = timed("plot", "diff", str(ROOT / "benchmarks" / "data" / "digits_64-32-10.npz"),
                               str(f16), "--box", "0,16", "-o", str(out), timeout_s=4)
    assert code == 3 and out.read_bytes().startswith(MAGIC[".png"]) and js["complete"] is False


def test_regions_picture_of_a_one_input_net_says_what_to_do(tmp_path, capsys):
    """One input: no 2-D slice exists, so the message names the command that lists the
    intervals (it asked for a --slice before)."""
    from algebra.network import Network
    p = tmp_path / "one.json"
    p.write_text(json.dumps(Network.from_rows([[[1], [2]], [[1, 1]]], [[0, 1], [0]]).to_dict()))
    out = tmp_path / "r.png"
    assert main(["plot", "regions", str(p), "--box", "0,1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "needs 2" in err and "netfibers regions NET" in err and err.count("\n") == 1
    assert not out.exists()


def test_plot_diff_names_the_plane_of_more_than_two_inputs(tmp_path, capsys):
    """Without --slice a 3-input pair is drawn on the plane of x0, x1 (0-based) through the certified
    maximiser: the text and the picture's title say so (session 32's audit: it was unnamed)."""
    import json as _json
    from semialgebraic.cli import main as _main
    for name, c in (("a", 0), ("b", "-9/10")):
        (tmp_path / f"{name}.json").write_text(_json.dumps({
            "format": "netfibers.network", "version": 1, "activation": "relu",
            "layers": [{"weight": [[1, 0, 1], [0, 1, -1], [1, 1, 1]], "bias": [0, 0, c if c else -1]},
                       {"weight": [[1, -1, 2]], "bias": [0]}]}))
    out = tmp_path / "p.svg"
    assert _main(["plot", "diff", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--box", "-1,1",
                  "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "on the plane of x0, x1 with x2 fixed at the certified maximiser" in text and out.exists()


def test_plot_diff_prints_long_maxima_as_decimals(tmp_path, capsys):
    """plot diff printed its grid and certified maxima as exact fractions of 50 digits (new-user
    audit); they are ≈ decimals, as everywhere, exact with --exact."""
    from algebra.network import Network
    a = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    b = Network.from_rows([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], ["1/123456789013"]])
    pa, pb = tmp_path / "a.json", tmp_path / "b.json"
    pa.write_text(json.dumps(a.to_dict()))
    pb.write_text(json.dumps(b.to_dict()))
    assert main(["plot", "diff", str(pa), str(pb), "--box", "-1,1", "--grid", "5",
                 "-o", str(tmp_path / "d.png")]) == 0
    out = capsys.readouterr().out
    assert "grid max ≈ 8.1000e-12; certified max ≈ 8.1000e-12" in out and "(≈: decimal" in out
    assert main(["plot", "diff", str(pa), str(pb), "--box", "-1,1", "--grid", "5", "--exact",
                 "-o", str(tmp_path / "d.png")]) == 0
    assert "certified max 1/123456789013" in capsys.readouterr().out
