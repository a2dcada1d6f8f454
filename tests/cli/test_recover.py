"""``netfibers recover`` (three-layer-fibers R21): exit codes 0/3/2, the recovered network written
atomically and certified equal to the file, the number of queries reported."""

import json
from pathlib import Path

from algebra.io.native import network_from_dict
from semialgebraic.cli import main
from semialgebraic.equivalence import equivalent

EX = Path(__file__).resolve().parents[2] / "algebra" / "examples"


def test_recover_one_hidden_layer(tmp_path, capsys):
    out = tmp_path / "rec.json"
    assert main(["recover", str(EX / "r21_shallow.json"), "-o", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["equal_to_file"] is True and data["queries"] > 0 and data["output"] == str(out)
    assert [h["w"] for h in data["hyperplanes"]] == [[1, -1], [1, "-1/3"], [1, 2]]
    assert [h["c"] for h in data["hyperplanes"]] == [-2, 0, 1] and all(data["first_layer"])
    rec = network_from_dict(json.loads(out.read_text()))
    orig = network_from_dict(json.loads((EX / "r21_shallow.json").read_text()))
    assert equivalent(rec, orig).answer is True
    assert main(["recover", str(EX / "r21_shallow.json"), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "3 bend hyperplane(s)" in text and "certified equal to NET" in text


def test_recover_deeper_network_only_bends_nothing_written(tmp_path, capsys):
    out = tmp_path / "rec.json"
    assert main(["recover", str(EX / "t1_masked.json"), "-o", str(out), "--json"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["network"] is None and data["output"] is None and not out.exists()


def test_recover_bad_input(tmp_path, capsys):
    out = tmp_path / "rec.json"
    assert main(["recover", str(tmp_path / "missing.json"), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "missing.json" in err and "Traceback" not in err and not out.exists()
    assert main(["recover", str(EX / "r21_shallow.json"), "-o", str(out), "--lines", "0"]) == 2
    assert not out.exists()


def test_recover_timeout_is_partial(tmp_path, capsys):
    out = tmp_path / "rec.json"
    assert main(["recover", str(EX / "r21_shallow.json"), "-o", str(out), "--json",
                 "--timeout", "1e-9"]) == 3
    data = json.loads(capsys.readouterr().out)
    assert data["complete"] is False and data["network"] is None and not out.exists()
    assert main(["recover", str(EX / "r21_shallow.json"), "-o", str(out), "--timeout", "0"]) == 2
