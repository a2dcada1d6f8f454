"""``conserved --certificate FILE`` (session 39; the checker's tests are in
``tests/semialgebraic/verify/test_conservation_laws.py``)."""

from __future__ import annotations

import json


def test_frobenius_laws_are_outside_the_certificate(run, tmp_path):
    """9 laws, one by Frobenius only (no polynomial): the certificate certifies [8, 9] and the
    report says so."""
    from pathlib import Path
    cases = Path(__file__).resolve().parents[1] / "cases"
    path = tmp_path / "c.json"
    code, out, _ = run("conserved", cases / "conserved_frobenius_d2_112.json", "--data",
                       cases / "conserved_frobenius_d2_112_data.json", "--certificate", path)
    assert code == 0 and ("certificate written to " + str(path) + " (certifies [8, 9]; not in it: "
                          "the 1 law(s) certified by Frobenius without a formula)") in out
    code, out, _ = run("verify", path)
    assert code == 0 and "between 8 and 9 independent conservation laws" in out


def test_conserved_certificate_cli(run, tmp_path):
    path = tmp_path / "c.json"
    code, out, _ = run("conserved", "algebra/examples/t10_two_linear.json", "--certificate", path)
    assert code == 0 and out.rstrip().endswith(f"certificate written to {path} (certifies 4)")
    code, out, _ = run("verify", path)
    assert code == 0 and "VALID conservation_laws certificate: 4 independent" in out
    d = json.loads(path.read_text())
    d["lower"] = d["upper"] = 3           # (the true count is 4: at most 4 is all that shows)
    path.write_text(json.dumps(d))
    code, out, _ = run("verify", path)
    assert code == 1
    code, _, err = run("conserved", "algebra/examples/t10_two_linear.json", "--certificate",
                       tmp_path / "missing" / "c.json")
    assert code == 2 and "missing" in err
