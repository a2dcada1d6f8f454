"""CLI commands ``canon``, ``apply`` and ``verify`` (exit codes, JSON, nothing written on failure)."""

import json

import pytest

from algebra import load, save
from algebra.network import Network
from semialgebraic.certificates import write_certificate
from semialgebraic.shallow import canonical_form, equivalent_shallow

A = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
B = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], [0]])
C = Network.from_rows([[[2], ["-1/3"]], [["1/2", 3]]], [[0, "1/3"], ["1/1000"]])


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, net in (("a", A), ("b", B), ("c", C)):
        p = tmp_path / f"{name}.json"
        save(net, p)
        paths[name] = str(p)
    paths["dir"] = tmp_path
    return paths




def test_canon_fingerprints_and_json(files, capsys, run):
    code, out, _ = run(["canon", files["a"], "--json"])
    assert code == 0
    da = json.loads(out)
    assert da["fingerprint"] == canonical_form(A).fingerprint() and da["number_of_kinks"] == 2
    _, out, _ = run(["canon", files["b"], "--json"])
    assert json.loads(out)["fingerprint"] == da["fingerprint"]
    _, out, _ = run(["canon", files["c"], "--json"])
    assert json.loads(out)["fingerprint"] != da["fingerprint"]
    code, out, _ = run(["canon", files["a"], "--orthant"])
    assert code == 0 and "orthant" in out


def test_canon_writes_the_representative(files, capsys, run):
    out_path = files["dir"] / "rep.json"
    code, _, _ = run(["canon", files["b"], "-o", str(out_path)])
    assert code == 0
    rep = load(out_path)
    assert canonical_form(rep) == canonical_form(A)
    assert equivalent_shallow(rep, A).answer is True


def test_canon_binary_writer_refuses_inexact(files, capsys, run):
    pytest.importorskip("safetensors")
    pytest.importorskip("numpy")
    bad = files["dir"] / "rep.safetensors"
    third = files["dir"] / "third.json"
    save(Network.from_rows([[[1]], [["1/3"]]], [[0], [0]]), third)     # kink 1/3 stays
    code, _, err = run(["canon", str(third), "-o", str(bad)])
    assert code == 2 and not bad.exists() and err
    code, _, _ = run(["canon", files["a"], "-o", str(bad)])
    assert code == 0 and bad.exists()
    assert canonical_form(load(bad)) == canonical_form(A)


def test_canon_input_errors(files, capsys, run):
    deep = files["dir"] / "deep.json"
    save(Network.from_rows([[[1]], [[1]], [[1]]], [[0], [0], [0]]), deep)
    assert run(["canon", str(deep)])[0] == 2
    assert run(["canon", str(files["dir"] / "missing.json")])[0] == 2


def test_verify_exit_codes(files, capsys, run):
    cert = equivalent_shallow(A, B).certificate
    good = files["dir"] / "good.json"
    write_certificate(cert, good)
    code, out, _ = run(["verify", str(good)])
    assert code == 0 and "VALID" in out
    assert run(["verify", str(good), files["a"], files["b"]])[0] == 0
    code, out, err = run(["verify", str(good), files["b"], files["a"], "--json"])
    assert code == 2 and out == "" and "not the network the certificate is about" in err
    broken = json.loads(good.read_text())
    broken["b"]["layers"][1]["bias"][0] = 5
    bad = files["dir"] / "bad.json"
    bad.write_text(json.dumps(broken))
    code, out, _ = run(["verify", str(bad), "--json"])
    assert code == 1 and json.loads(out)["reason"]
    mal = files["dir"] / "mal.json"
    mal.write_text(json.dumps({"format": "netfibers.certificate", "type": "symmetry_path"}))
    assert run(["verify", str(mal)])[0] == 2
    mal.write_text("{not json")
    assert run(["verify", str(mal)])[0] == 2
    ce = equivalent_shallow(A, C).certificate
    cep = files["dir"] / "ce.json"
    write_certificate(ce, cep)
    assert run(["verify", str(cep), files["a"], files["c"]])[0] == 0


def test_apply_steps(files, capsys, run):
    cert = equivalent_shallow(A, B).certificate
    steps = files["dir"] / "steps.json"
    steps.write_text(json.dumps(cert["steps"]))
    out_path = files["dir"] / "out.json"
    code, _, _ = run(["apply", str(steps), files["a"], "-o", str(out_path)])
    assert code == 0 and load(out_path) == B
    steps.write_text(json.dumps({"steps": [{"step": "S2", "layer": 0, "factors": [1, -1]}]}))
    out2 = files["dir"] / "out2.json"
    code, _, err = run(["apply", str(steps), files["a"], "-o", str(out2)])
    assert code == 2 and "not > 0" in err and not out2.exists()
    steps.write_text(json.dumps([{"step": "unknown"}]))
    assert run(["apply", str(steps), files["a"], "-o", str(out2)])[0] == 2
    assert not out2.exists()


# -- canon on large nets: a summary in --json, the full form with --form ---------------------------

def _wide(seed=3, d=30, n=40, m=2):
    import random
    rng = random.Random(seed)
    q = lambda: f"{rng.randint(-99, 99)}/{rng.randint(1, 97)}"   # noqa: E731
    return Network.from_rows([[[q() for _ in range(d)] for _ in range(n)],
                              [[q() for _ in range(n)] for _ in range(m)]],
                             [[q() for _ in range(n)], [q() for _ in range(m)]])


def test_canon_small_json_keeps_the_whole_form(files, capsys, run):
    code, out, _ = run(["canon", files["b"], "--json"])
    data = json.loads(out)
    assert code == 0 and data["canonical_form"] == canonical_form(B).to_json()
    assert "form" not in data and data["representative_widths"] == list(
        canonical_form(B).representative().widths)


def test_canon_large_json_is_a_summary_and_form_writes_it_all(tmp_path, capsys, run, monkeypatch):
    import hashlib
    import semialgebraic.commands.shallow as cmd
    net = _wide()
    save(net, tmp_path / "w.json")
    cf = canonical_form(net)
    numbers = 40 * (30 + 1 + 2) + 2 * 31
    monkeypatch.setattr(cmd, "SIDECAR_THRESHOLD", numbers)       # this net counts as large
    form = tmp_path / "form.json"
    code, out, _ = run(["canon", tmp_path / "w.json", "--json", "--form", form])
    data = json.loads(out)
    s = data["canonical_form"]
    assert code == 0 and s["summary"] is True and s["numbers"] == numbers
    assert (s["n_inputs"], s["n_outputs"], s["number_of_kinks"]) == (30, 2, 40)
    assert data["fingerprint"] == cf.fingerprint() == s["sha256"][:16]
    full = json.loads(form.read_text())
    assert full == cf.to_json()                                   # the exact form, in full
    text = json.dumps(full, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(text.encode()).hexdigest() == s["sha256"] and s["file"] == str(form)
    assert data["representative_widths"] == list(cf.representative().widths) == [30, 44, 2]   # 40 kinks, rank-2 pairs
    monkeypatch.setattr(cmd, "SIDECAR_THRESHOLD", numbers + 1)   # one below: inline, unchanged
    code, out, _ = run(["canon", tmp_path / "w.json", "--json"])
    assert json.loads(out)["canonical_form"] == cf.to_json()


def test_canon_exact_text_of_long_vectors_is_readable(tmp_path, capsys, run):
    save(_wide(), tmp_path / "w.json")
    code, out, _ = run(["canon", tmp_path / "w.json", "--exact"])
    lines = out.splitlines()
    assert code == 0 and len(lines) <= 30 and max(map(len, lines)) < 800
    assert "… (30 entries)" in out and "… 20 more (--form FILE writes them all)" in out
    assert "≈" not in out                                         # --exact: no decimals


def test_canon_form_to_an_unwritable_place_is_an_input_error(files, capsys, run):
    code, _, err = run(["canon", files["a"], "--form", files["dir"] / "no" / "such" / "f.json"])
    assert code == 2 and "f.json" in err and "Traceback" not in err
    assert not (files["dir"] / "no").exists()
