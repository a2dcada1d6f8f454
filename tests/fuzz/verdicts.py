"""Fuzzer of the verdicts: netfibers' answers against oracles written here, sharing no code with
the deciders (plain ``fractions.Fraction`` arithmetic; python-flint only for the rank of a
matrix in the dimension oracle).

Kinds:

* ``shallow``: one-hidden-layer ``equivalent`` on R^d for b built from a by permutations,
  scalings, twin neurons that cancel, a neuron split in two, dead / zero-output neurons, a
  flipped neuron paired with a linear block, zero / duplicate / parallel rows, float32 weights,
  then (half the time) one tiny perturbation.  Oracle: the kink decomposition of
  shallow-fibers (every hyperplane class's summed kink vector and the affine part; the functions
  relu(n·x + β) of distinct hyperplanes and the affine functions are linearly independent).
  Every certificate is re-checked (``verify``) and one random numeric leaf of it mutated: a
  mutated certificate the checker accepts must still make a true claim (oracle again).
* ``dim``: ``functional_dimension`` on small random nets against the exact rank of the parameter
  Jacobian stacked over many random inputs (a lower bound of the functional dimension, equal to
  it for enough generic inputs); the reported interval must contain it when complete, and its
  lower end must never exceed it.

Run by hand, at low priority::

    nice -n 15 python -m tests.fuzz.verdicts --seed 1 --count 200 --kind shallow

Prints one line per disagreement (with the seed and case index that reproduce it) and counts.
``tests/semialgebraic/test_fuzz_verdicts.py`` runs a bounded sample.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from fractions import Fraction

from algebra.network import Network
from algebra.rationals import Q
from tests.fuzz.inputs import _containers

TIMEOUT = 20


# -- exact arithmetic of the oracles (Fractions only) ---------------------------------------------
def frac_layers(net: Network):
    """[(W rows, b)] as Fractions, from the network's JSON form (no netfibers arithmetic)."""
    data = net.to_dict()
    out = []
    for layer in data["layers"]:
        W = [[Fraction(str(v)) for v in row] for row in layer["weight"]]
        b = [Fraction(str(v)) for v in layer["bias"]]
        out.append((W, b))
    return out


def frac_eval(layers, x):
    h = [Fraction(v) for v in x]
    for k, (W, b) in enumerate(layers):
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        h = z if k == len(layers) - 1 else [max(v, Fraction(0)) for v in z]
    return h


def shallow_decomposition(net: Network):
    """f(x) = Σ_H relu(n_H·x + β_H) k_H + A x + c with distinct oriented hyperplanes H (n_H's first
    nonzero entry 1): {H: k_H}, A, c, kink vectors k_H ≠ 0 only."""
    (W1, b1), (W2, b2) = frac_layers(net)
    d, m = len(W1[0]) if W1 else net.n_inputs, len(b2)
    kinks: dict = {}
    A = [[Fraction(0)] * d for _ in range(m)]
    c = list(b2)
    for i, (row, bi) in enumerate(zip(W1, b1)):
        out = [W2[o][i] for o in range(m)]
        nz = next((v for v in row if v != 0), None)
        if nz is None:                                   # constant neuron relu(b)
            for o in range(m):
                c[o] += out[o] * max(bi, Fraction(0))
            continue
        s = abs(nz)
        key = tuple(v / nz for v in row) + (bi / nz,)   # oriented: first nonzero entry 1
        k = kinks.setdefault(key, [Fraction(0)] * m)
        if nz > 0:                                       # c relu(s u) = c s relu(u)
            for o in range(m):
                k[o] += out[o] * s
        else:                                            # c relu(-s u) = c s relu(u) - c s u
            for o in range(m):
                k[o] += out[o] * s
                for j in range(d):
                    A[o][j] -= out[o] * s * key[j]
                c[o] -= out[o] * s * key[d]
    kinks = {h: k for h, k in kinks.items() if any(v != 0 for v in k)}
    return kinks, A, c


def shallow_equivalent_oracle(a: Network, b: Network) -> bool:
    return shallow_decomposition(a) == shallow_decomposition(b)


# -- shallow cases ---------------------------------------------------------------------------------
def _rat(rng, den=(1, 2, 3, 4)):
    return Fraction(rng.randint(-4, 4), rng.choice(den))


def random_shallow(rng, d=None, n=None, m=None, float32=False):
    d = d or rng.randint(1, 3)
    n = n or rng.randint(1, 5)
    m = m or rng.randint(1, 2)
    if float32 == "float64":
        f = lambda: Fraction(rng.uniform(-2, 2))
    elif float32:
        import numpy as np
        f = lambda: Fraction(float(np.float32(rng.uniform(-2, 2))))
    else:
        f = lambda: _rat(rng)
    W1 = [[f() for _ in range(d)] for _ in range(n)]
    b1 = [f() for _ in range(n)]
    W2 = [[f() for _ in range(n)] for _ in range(m)]
    b2 = [f() for _ in range(m)]
    r = rng.random()
    if r < 0.15:
        W1[rng.randrange(n)] = [Fraction(0)] * d                      # a zero row
    elif r < 0.35 and n > 1:                                           # duplicate / parallel
        i, j = rng.sample(range(n), 2)
        s = rng.choice([Fraction(1), Fraction(2), Fraction(-1), Fraction(-1, 3)])
        W1[j], b1[j] = [s * v for v in W1[i]], s * b1[i]
    return W1, b1, W2, b2


def to_net(W1, b1, W2, b2) -> Network:
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W1], [[q(v) for v in r] for r in W2]],
                             [[q(v) for v in b1], [q(v) for v in b2]])


def planted_shallow(rng, W1, b1, W2, b2, dyadic=False):
    """b's weights: a function-preserving move of a (named); *dyadic*: scalings by powers of two
    only (b keeps float32 weights: the float fast paths decide)."""
    W1, b1, W2, b2 = copy.deepcopy((W1, b1, W2, b2))
    n, m, d = len(W1), len(W2), len(W1[0])
    kind = rng.choice(["permute_scale", "twins", "split", "dead", "zero_out", "linear_block",
                       "flip"])
    if kind == "permute_scale":
        perm = list(range(n))
        rng.shuffle(perm)
        sc = [Fraction(2) ** rng.randint(-3, 3) if dyadic else
              Fraction(rng.randint(1, 7), rng.randint(1, 7)) for _ in range(n)]
        W1 = [[v * sc[p] for v in W1[p]] for p in perm]
        b1 = [b1[p] * sc[p] for p in perm]
        W2 = [[row[p] / sc[p] for p in perm] for row in W2]
    elif kind == "twins":                       # c relu(z) and -c relu(s z): cancel
        row, bias = [_rat(rng) for _ in range(d)], _rat(rng)
        s = Fraction(rng.randint(1, 4), rng.randint(1, 4))
        out = [_rat(rng) for _ in range(m)]
        W1 += [row, [s * v for v in row]]
        b1 += [bias, s * bias]
        for o in range(m):
            W2[o] += [out[o], -out[o] / s]
    elif kind == "split":                       # c relu(z) = c t relu(z) + c (1-t)/s relu(s z)
        i = rng.randrange(n)
        s = Fraction(rng.randint(1, 4), rng.randint(1, 4))
        t = Fraction(rng.randint(0, 4), 4)
        W1.append([s * v for v in W1[i]])
        b1.append(s * b1[i])
        for o in range(m):
            v = W2[o][i]
            W2[o][i] = v * t
            W2[o].append(v * (1 - t) / s)
    elif kind == "dead":                        # relu(0·x - k) = 0 on R^d
        W1.append([Fraction(0)] * d)
        b1.append(-Fraction(rng.randint(0, 3), rng.randint(1, 3)))
        for o in range(m):
            W2[o].append(_rat(rng))
    elif kind == "zero_out":
        W1.append([_rat(rng) for _ in range(d)])
        b1.append(_rat(rng))
        for o in range(m):
            W2[o].append(Fraction(0))
    elif kind == "linear_block":                # relu(u) - relu(-u) + relu(v) - relu(-v) = u + v
        u = [_rat(rng) for _ in range(d + 1)]
        v = [_rat(rng) for _ in range(d + 1)]
        u2 = [_rat(rng) for _ in range(d + 1)]
        v2 = [x + y - z for x, y, z in zip(u, v, u2)]  # u2 + v2 = u + v
        out = [_rat(rng) for _ in range(m)]
        # a gets the (u, v) block, b the (u2, v2) block: built by the caller through "pair"
        return kind, (u, v, u2, v2, out)
    else:                                       # antiparallel twins c relu(-z) - c relu(-z)
        i = rng.randrange(n)
        W1.append([-v for v in W1[i]])
        b1.append(-b1[i])
        W1.append([-v for v in W1[i]])
        b1.append(-b1[i])
        for o in range(m):
            W2[o] += [W2[o][i], -W2[o][i]]
    return kind, (W1, b1, W2, b2)


def _with_block(W1, b1, W2, b2, p, q, out):
    W1, b1, W2, b2 = copy.deepcopy((W1, b1, W2, b2))
    d = len(W1[0])
    for r in (p, q):
        W1 += [r[:d], [-v for v in r[:d]]]
        b1 += [r[d], -r[d]]
    for o in range(len(W2)):
        W2[o] += [out[o], -out[o], out[o], -out[o]]
    return W1, b1, W2, b2


def perturb(rng, W1, b1, W2, b2):
    """One entry moved by a tiny amount (1e-9 … 1/8) or to 0: usually not equivalent."""
    W1, b1, W2, b2 = copy.deepcopy((W1, b1, W2, b2))
    delta = rng.choice([Fraction(1, 10 ** 9), Fraction(-1, 10 ** 6), Fraction(1, 8),
                        Fraction(1, 3)])
    which = rng.choice(["W1", "b1", "W2", "b2"])
    arr = {"W1": W1, "b1": b1, "W2": W2, "b2": b2}[which]
    if which in ("W1", "W2"):
        i = rng.randrange(len(arr))
        j = rng.randrange(len(arr[i]))
        arr[i][j] = arr[i][j] + delta if rng.random() < 0.8 else Fraction(0)
    else:
        i = rng.randrange(len(arr))
        arr[i] += delta
    return (W1, b1, W2, b2), f"{which} moved by {delta}"


def shallow_case(rng):
    """(a, b, description)."""
    r = rng.random()
    fl = "float32" if r < 0.2 else "float64" if r < 0.3 else ""
    big = rng.random() < 0.15                  # wider nets: the fast paths' own territory
    w = random_shallow(rng, d=rng.randint(2, 8) if big else None,
                       n=rng.randint(10, 40) if big else None, float32=fl)
    kind, res = planted_shallow(rng, *w, dyadic=bool(fl))
    if kind == "linear_block":
        u, v, u2, v2, out = res
        wa, wb = _with_block(*w, u, v, out), _with_block(*w, u2, v2, out)
    else:
        wa, wb = w, res
    desc = kind + (f" {fl}" if fl else "")
    if rng.random() < 0.5:
        wb, what = perturb(rng, *wb)
        desc += f"; {what}"
    return to_net(*wa), to_net(*wb), desc


def _mutate(rng, cert):
    """A deep copy with one numeric leaf (int, or a 'p/q' string) changed, or (one time in four)
    one list of the certificate edited (an item dropped, repeated or two swapped); None if none."""
    c = copy.deepcopy(cert)
    if rng.random() < 0.25:
        lists = [(p, v) for p, v in _containers(c) if isinstance(v, list) and len(v) >= 2
                 and p and p[0] not in ("a", "b", "network", "block")]
        if lists:
            path, lst = rng.choice(lists)
            op = rng.choice(["drop", "repeat", "swap"])
            i, j = rng.sample(range(len(lst)), 2)
            if op == "drop":
                del lst[i]
            elif op == "repeat":
                lst.insert(i, copy.deepcopy(lst[j]))
            elif lst[i] != lst[j]:
                lst[i], lst[j] = lst[j], lst[i]
            else:
                return None, None
            return c, path + (op,)
    leaves = []

    def walk(obj, path):
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k not in ("format", "schema_version", "netfibers_version", "claim", "version"):
                    walk(v, path + (k,))
        elif isinstance(obj, list):
            for i, v in enumerate(obj):
                walk(v, path + (i,))
        elif isinstance(obj, bool):
            leaves.append(path)
        elif isinstance(obj, (int, float)) or (isinstance(obj, str) and _is_num(obj)):
            leaves.append(path)
    walk(c, ())
    if not leaves:
        return None, None
    path = rng.choice(leaves)
    obj = c
    for k in path[:-1]:
        obj = obj[k]
    old = obj[path[-1]]
    if isinstance(old, bool):
        new = not old
    elif isinstance(old, int):
        new = old + rng.choice([1, -1, 2])
    else:
        new = str(Fraction(str(old)) + rng.choice([1, -1, Fraction(1, 2), Fraction(1, 10 ** 9)]))
    obj[path[-1]] = new
    return c, path


def _is_num(s):
    """An exact number string ("-3", "7/2", "0.125"); not a hex digest such as "1234e56789"
    (Fraction would build 10^56789…)."""
    import re
    return re.fullmatch(r"-?\d+(/\d+|\.\d+)?", s) is not None and not s.endswith("/0")


def _claim_holds(cert) -> bool | None:
    """Whether a (mutated) certificate's claim is true by the oracles; None when not judged."""
    from algebra.io import network_from_dict
    kind = cert.get("type")
    if kind == "functional_dimension":
        try:
            net = network_from_dict(cert["network"])
            lo, hi = cert.get("lower"), cert.get("upper")
            dom = cert.get("domain")
            box = None
            if isinstance(dom, dict) and list(dom) == ["box"]:
                box = tuple(Fraction(str(v)) for v in dom["box"])
            elif dom is not None:
                return None
        except Exception:
            return None
        rank = jacobian_rank(net, random.Random(0), n_lines=40, box=box)
        if isinstance(hi, int) and rank > hi:
            return False
        if isinstance(lo, int):                 # the lower bound: our rank at its inputs
            try:
                pts = [[Fraction(str(t)) for t in x] for x in cert["inputs"]]
            except Exception:
                return None
            if rank_at(net, pts, box) < lo:
                return False
        return None                             # the upper bound's proof: not judged here
    if kind == "absorption":
        try:
            blk, w = cert["block"], cert["witness"]
            if blk.get("activation") != "relu" or blk.get("skip") != "identity" or \
                    any(blk.get(key) is not None for key in ("b_up", "b_down", "w_gate")):
                return None
            up, down = _frac_matrix(blk["w_up"]), _frac_matrix(blk["w_down"])
        except Exception:
            return None
        if cert.get("claim") == "absorbable":
            other = w.get("absorbing_block")
            if not other or other.get("skip") != "none" or len(other["w_up"]) != len(up):
                return None
            return block_decomposition(_frac_matrix(other["w_up"]), _frac_matrix(other["w_down"]),
                                       False) == block_decomposition(up, down, True)
        from itertools import combinations
        k, d = len(up), len(up[0])
        flips = any(all(sum((down[o][t] * up[t][j] for t in S), Fraction(0)) == -int(o == j)
                        for o in range(d) for j in range(d))
                    for r in range(1, k + 1) for S in combinations(range(k), r))
        return False if flips else None
    if kind == "identifiability_hypotheses":
        try:
            net = network_from_dict(cert["network"])
            (_, _), (W2, b2), _ = frac_layers(net)
        except Exception:
            return None
        mixed = all(any(v > 0 for v in r + [c]) and any(v < 0 for v in r + [c])
                    for r, c in zip(W2, b2))
        return None if (all(my_genericity(net).values()) and mixed) else False
    try:
        a, b = network_from_dict(cert["a"]), network_from_dict(cert["b"])
    except Exception:
        return None
    if kind == "counterexample":
        try:
            x = [Fraction(str(v)) for v in cert.get("x")]
            dom = cert.get("domain") or {}
            if dom.get("orthant") and any(t < 0 for t in x):
                return False
            if "box" in dom:
                lo, hi = (Fraction(str(v)) for v in dom["box"])
                if any(not lo <= t <= hi for t in x):
                    return False
            return frac_eval(frac_layers(a), x) != frac_eval(frac_layers(b), x)
        except Exception:
            return None
    dom = cert.get("domain")
    if dom in (None, "R^d"):
        if a.depth == 2 and b.depth == 2:
            return shallow_equivalent_oracle(a, b)
        z3dom = None
    elif isinstance(dom, dict) and dom.get("orthant") is True and len(dom) == 1:
        z3dom = "orthant"
    elif isinstance(dom, dict) and list(dom) == ["box"] and isinstance(dom["box"], list) \
            and len(dom["box"]) == 2 and all(isinstance(v, (int, str)) for v in dom["box"]):
        try:
            z3dom = tuple(Fraction(str(v)) for v in dom["box"])
        except (ValueError, ZeroDivisionError):
            return None
    else:
        return None
    if max(a.widths) <= 5 and max(b.widths) <= 5:
        from tests.oracles.z3 import z3_equivalent
        return z3_equivalent(a, b, domain=z3dom)
    return None


CLI_SHARE = 0.1
"""Share of the certificates also checked through ``netfibers verify FILE`` (a file, a process-free
CLI call: exit 0 valid, 1 broken, 2 malformed, never 4)."""


def _cli_verify(cert) -> int:
    import tempfile
    from pathlib import Path
    from tests.fuzz.inputs import run_cli
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "cert.json"
        p.write_text(json.dumps(cert))
        return run_cli(["verify", p]).code


def check_certificate(rng, v, stats, failures, tag, mutations=2):
    """verify() accepts the certificate; each mutation is rejected or still makes a true claim."""
    from algebra.exceptions import InputError
    from semialgebraic import verify
    if v.certificate is None:
        return
    ok, msg = verify(v.certificate)
    if not ok:
        failures.append(f"{tag}: certificate rejected: {msg}")
        if "network" in v.certificate:
            failures[-1] += f" (net {json.dumps(v.certificate['network'].get('layers'))})"
    cli = rng.random() < CLI_SHARE
    if cli:                                   # the same through `netfibers verify FILE`
        code = _cli_verify(v.certificate)
        stats["cli_verify"] = stats.get("cli_verify", 0) + 1
        if code != 0:
            failures.append(f"{tag}: netfibers verify exit {code} on the certificate")
    for _ in range(mutations):
        mut, path = _mutate(rng, v.certificate)
        if mut is None:
            continue
        stats["mutations"] = stats.get("mutations", 0) + 1
        if cli:
            code = _cli_verify(mut)
            if code not in (0, 1, 2):
                failures.append(f"{tag}: netfibers verify exit {code} on a mutation at {path}")
        try:
            ok, msg = verify(mut)
        except InputError:                   # malformed: refused (verify's contract)
            continue
        except Exception as exc:             # the checker must answer, never crash
            failures.append(f"{tag}: checker crashed on mutation at {path}: "
                            f"{type(exc).__name__}: {exc}")
            continue
        if ok:
            holds = _claim_holds(mut)
            if holds is False:
                failures.append(f"{tag}: mutated certificate accepted with a false claim "
                                f"(at {path})")
            else:
                key = "mutations_accepted_" + ("true" if holds else "unjudged")
                stats[key] = stats.get(key, 0) + 1
                where = f"{v.certificate.get('type')}:{'.'.join(str(p) for p in path if isinstance(p, str))}"
                stats.setdefault("accepted_at", {}).setdefault(where, 0)
                stats["accepted_at"][where] += 1


def _through_files(a, b, dtype):
    """a and b written to .npz files of *dtype* and read back (the float fast paths need the
    arrays a reader kept), or unchanged when a parameter is not representable."""
    import tempfile
    from pathlib import Path
    from algebra.exceptions import InputError
    from algebra.io import load, save_binary
    with tempfile.TemporaryDirectory() as tmp:
        try:
            out = []
            for name, net in (("a", a), ("b", b)):
                p = Path(tmp) / f"{name}.npz"
                save_binary(net, p, dtype=dtype)
                out.append(load(p))
        except InputError:
            return a, b, ""
    return out[0], out[1], f" via {dtype} .npz"


def run_shallow(seed, count, verbose=True):
    from semialgebraic import equivalent
    rng = random.Random(seed)
    stats = {"cases": 0, "equivalent": 0, "not_equivalent": 0, "undecided": 0}
    failures = []
    for i in range(count):
        a, b, desc = shallow_case(rng)
        tag = f"shallow seed={seed} case={i} ({desc})"
        truth = shallow_equivalent_oracle(a, b)
        stats["cases"] += 1
        if "float" in desc.split(";")[0] and rng.random() < 0.7:
            a, b, routed = _through_files(a, b, "float32" if "float32" in desc else "float64")
            desc += routed
            tag = f"shallow seed={seed} case={i} ({desc})"
        if verbose == "trace":
            print(tag, a.widths, flush=True)
        try:
            v = equivalent(a, b, timeout=TIMEOUT)
        except Exception as exc:
            failures.append(f"{tag}: raised {type(exc).__name__}: {exc}")
            continue
        path = next((k for k in (v.details or {}) if k.endswith("_path")), "canonical")
        stats[path] = stats.get(path, 0) + 1
        if v.answer is None:
            stats["undecided"] += 1
        elif v.answer != truth:
            failures.append(f"{tag}: answer {v.answer}, oracle {truth} ({v.method}, {path}: "
                            f"{v.reason})")
        else:
            stats["equivalent" if truth else "not_equivalent"] += 1
        check_certificate(rng, v, stats, failures, tag)
        if rng.random() < CLI_SHARE:
            problem = _cli_equiv(a, b, truth)
            stats["cli_equiv"] = stats.get("cli_equiv", 0) + 1
            if problem:
                failures.append(f"{tag}: netfibers equiv: {problem}")
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


def _cli_equiv(a, b, truth) -> str | None:
    """`netfibers equiv A B --json --certificate C` on files: the exit code says the answer
    (0 equivalent, 1 not, 3 undecided), the JSON answer is the oracle's, the certificate file is
    written exactly when decided and `netfibers verify C A B` accepts it."""
    import tempfile
    from pathlib import Path
    from tests.fuzz.inputs import run_cli
    with tempfile.TemporaryDirectory() as tmp:
        pa, pb, pc = Path(tmp) / "a.json", Path(tmp) / "b.json", Path(tmp) / "c.json"
        pa.write_text(json.dumps(a.to_dict()))
        pb.write_text(json.dumps(b.to_dict()))
        res = run_cli(["equiv", pa, pb, "--json", "--certificate", pc, "--timeout", str(TIMEOUT)])
        try:
            answer = json.loads(res.out)["answer"]
        except (ValueError, KeyError):
            return f"exit {res.code}, no JSON answer ({res.err.strip()[:200]})"
        want = {True: 0, False: 1, None: 3}[answer]
        if res.code != want:
            return f"exit {res.code} for answer {answer}"
        if answer is not None and answer != truth:
            return f"answer {answer}, oracle {truth}"
        if pc.exists() != (answer is not None):
            return f"certificate written: {pc.exists()}, answer {answer}"
        if pc.exists():
            code = run_cli(["verify", pc, pa, pb]).code
            if code != 0:
                return f"netfibers verify C A B exit {code}"
    return None


# -- functional dimension --------------------------------------------------------------------------
def preactivations(layers, x):
    """The hidden pre-activations of every layer at x (Fractions)."""
    out, h = [], [Fraction(v) for v in x]
    for k, (W, b) in enumerate(layers[:-1]):
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        out.append(z)
        h = [max(v, Fraction(0)) for v in z]
    return out


def line_points(layers, p, q, offsets, rng):
    """Points along the segment p→q: the midpoint of every piece on which the network is affine
    (breakpoints found exactly, layer by layer), each also moved off the line by a few small
    steps (a thin region the segment crosses is then sampled with d + 1 points in general
    position, most of the time)."""
    d = len(p)
    at = lambda t: [pi + t * (qi - pi) for pi, qi in zip(p, q)]
    ts = [Fraction(0), Fraction(1)]
    for k in range(len(layers) - 1):
        new = []
        for t0, t1 in zip(ts, ts[1:]):
            z0, z1 = preactivations(layers, at(t0))[k], preactivations(layers, at(t1))[k]
            for a, b in zip(z0, z1):              # affine on [t0, t1]: below layer k no kink
                if (a < 0 < b) or (b < 0 < a):
                    new.append(t0 + (t1 - t0) * a / (a - b))
        ts = sorted(set(ts) | set(new))
    pts = []
    for t0, t1 in zip(ts, ts[1:]):
        mid = at((t0 + t1) / 2)
        pts.append(mid)
        span = (t1 - t0) * max((abs(qi - pi) for pi, qi in zip(p, q)), default=Fraction(1))
        for frac in offsets:
            for _ in range(d):
                pts.append([v + span * frac * Fraction(rng.randint(-8, 8), 8) for v in mid])
    return pts


def jacobian_row(layers, x):
    """The rows d f_o / d theta at x (one per output), or None where theta -> f(x) is not
    differentiable: a kink neuron (z = 0) gets mask 0 and the point is kept only when the network
    above sees no kink (e = d f / d h = 0 there; the rule of dim's docs, re-derived here)."""
    hs, masks, kinks = [list(x)], [], []
    h = list(x)
    for k, (W, b) in enumerate(layers):
        z = [sum((w * v for w, v in zip(row, h)), Fraction(0)) + bi for row, bi in zip(W, b)]
        if k < len(layers) - 1:
            masks.append([v > 0 for v in z])
            kinks.append([v == 0 for v in z])
            h = [max(v, Fraction(0)) for v in z]
            hs.append(h)
    m = len(layers[-1][1])
    G = [[Fraction(int(o == i)) for i in range(m)] for o in range(m)]     # d f / d z_k
    grads = [None] * len(layers)
    for k in range(len(layers) - 1, -1, -1):
        grads[k] = G
        if k > 0:
            W = layers[k][0]
            e = [[sum((G[o][i] * W[i][j] for i in range(len(W))), Fraction(0))
                  for j in range(len(W[0]))] for o in range(m)]
            if any(e[o][j] != 0 and kinks[k - 1][j] for o in range(m) for j in range(len(W[0]))):
                return None
            G = [[e[o][j] * (1 if masks[k - 1][j] else 0) for j in range(len(W[0]))]
                 for o in range(m)]
    rows = []
    for o in range(m):
        row = []
        for k, (W, b) in enumerate(layers):
            g, hin = grads[k][o], hs[k]
            row += [g[i] * hin[j] for i in range(len(W)) for j in range(len(W[0]))]
            row += [g[i] for i in range(len(b))]
        rows.append(row)
    return rows


def jacobian_rank(net: Network, rng, n_lines=12, box=None) -> int:
    """Exact rank of the parameter Jacobian of (f(x_1), …, f(x_k)) at inputs where θ ↦ f(x) is
    differentiable: a lower bound of the functional dimension on R^d.  Inputs: the pieces of
    *n_lines* random segments (scales 1 … 1000) and points moved off them (Fractions; flint only
    for the final rank)."""
    import flint
    layers = frac_layers(net)
    d = net.n_inputs
    P = sum(len(W) * (len(W[0]) if W else 0) + len(b) for W, b in layers)
    rows = []
    for _ in range(n_lines):
        if box is None:
            scale = rng.choice([1, 10, 1000])
            p = [Fraction(rng.randint(-1000, 1000) * scale, 1000) for _ in range(d)]
            q = [Fraction(rng.randint(-1000, 1000) * scale, 1000) for _ in range(d)]
        else:                                  # segments inside the box [lo, hi]^d
            lo, hi = box
            p = [lo + (hi - lo) * Fraction(rng.randint(0, 1000), 1000) for _ in range(d)]
            q = [lo + (hi - lo) * Fraction(rng.randint(0, 1000), 1000) for _ in range(d)]
            if rng.random() < 0.5:             # from a vertex: thin regions sit in corners
                p = [rng.choice([lo, hi]) for _ in range(d)]
        if p == q:
            continue
        for x in line_points(layers, p, q, (Fraction(1, 10), Fraction(1, 1000)), rng):
            if box is not None and not all(box[0] < t < box[1] for t in x):
                continue                       # moved off the line out of the box
            r = jacobian_row(layers, x)
            if r is not None:
                rows += r
    if not rows:
        return 0
    mat = flint.fmpq_mat(len(rows), P, [flint.fmpq(v.numerator, v.denominator)
                                        for r in rows for v in r])
    return mat.rank()


def rank_at(net: Network, points, box=None) -> int:
    """Exact rank of our Jacobian rows at *points* that lie in the box (closed) and where
    θ ↦ f(x) is differentiable; the others are skipped."""
    import flint
    layers = frac_layers(net)
    rows = []
    for x in points:
        if box is not None and not all(box[0] <= t <= box[1] for t in x):
            continue
        r = jacobian_row(layers, x)
        if r is not None:
            rows += r
    if not rows:
        return 0
    return flint.fmpq_mat(len(rows), len(rows[0]), [flint.fmpq(v.numerator, v.denominator)
                                                    for r in rows for v in r]).rank()


def random_deep(rng):
    d = rng.randint(1, 3)
    depth = rng.choice([2, 2, 3, 3, 4])
    widths = [d] + [rng.randint(1, 4) for _ in range(depth - 1)] + [rng.randint(1, 2)]
    Ws, bs = [], []
    for l in range(depth):
        W = [[_rat(rng) for _ in range(widths[l])] for _ in range(widths[l + 1])]
        b = [_rat(rng) for _ in range(widths[l + 1])]
        if rng.random() < 0.2:
            W[rng.randrange(len(W))] = [Fraction(0)] * widths[l]
        Ws.append(W)
        bs.append(b)
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W] for W in Ws],
                             [[q(v) for v in b] for b in bs])


def run_dim(seed, count, verbose=True):
    from semialgebraic import functional_dimension
    rng = random.Random(seed)
    stats = {"cases": 0, "exact": 0, "interval": 0}
    failures = []
    for i in range(count):
        net = random_deep(rng)
        box = None
        if rng.random() < 0.4:                   # a box: the rank over its interior
            lo = Fraction(rng.randint(-3, 1), rng.randint(1, 2))
            box = (lo, lo + Fraction(rng.randint(1, 4), rng.randint(1, 3)))
        tag = f"dim seed={seed} case={i} widths={net.widths} box={box}"
        stats["cases"] += 1
        try:
            dom = None if box is None else tuple(Q(v.numerator, v.denominator) for v in box)
            r = functional_dimension(net, timeout=TIMEOUT, domain=dom)
        except Exception as exc:
            failures.append(f"{tag}: raised {type(exc).__name__}: {exc}")
            continue
        rank = jacobian_rank(net, rng, box=box)
        lo, hi = r.lower, r.upper
        if rank < lo:                              # our lines missed a thin region? look harder
            rank = max(rank, jacobian_rank(net, random.Random(f"{seed}-{i}"), n_lines=100,
                                           box=box))
        if hi is not None and rank > hi:
            failures.append(f"{tag}: sampled Jacobian rank {rank} > reported upper {hi} "
                            f"({r.reason})")
        if rank < lo:
            # our lines missed a thin region: the lower bound must then be the rank of OUR
            # Jacobian rows at the inputs dim reports (in the domain, differentiable there)
            stats["lower_checked_at_reported_inputs"] = \
                stats.get("lower_checked_at_reported_inputs", 0) + 1
            at = rank_at(net, [[Fraction(str(t)) for t in x] for x in r.inputs], box)
            if at < lo:
                failures.append(f"{tag}: reported lower {lo} > rank {at} of the Jacobian at its "
                                f"own inputs (and {rank} on 112 lines; {r.reason}; net "
                                f"{json.dumps(net.to_dict()['layers'])})")
        stats["exact" if lo == hi else "interval"] += 1
        if rng.random() < 0.5:                     # the certificate, verified and mutated
            from semialgebraic import functional_dimension_certificate

            class _V:
                certificate = None
            try:
                _V.certificate = functional_dimension_certificate(net, r, domain=dom, seconds=10)
            except Exception as exc:
                failures.append(f"{tag}: certificate raised {type(exc).__name__}: {exc}")
            if _V.certificate is not None and not _V.certificate["inputs"]:
                _V.certificate = None          # undefined at θ: documented as no certificate
            check_certificate(rng, _V, stats, failures, tag, mutations=2)
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures

# -- three-layer bottleneck: CANON, identify, hypotheses G1–G5 -----------------------------------
def my_genericity(net: Network) -> dict:
    """G1–G5 of three-layer-fibers §3.1 decided here (Fractions, flint rank): {name: bool}."""
    import flint
    (W1, b1), (W2, b2), (W3, b3) = frac_layers(net)
    n1, d = len(W1), len(W1[0])

    def rank(rows):
        return flint.fmpq_mat(len(rows), len(rows[0]), [flint.fmpq(v.numerator, v.denominator)
                                                        for r in rows for v in r]).rank()

    def proportional(r, s):
        return rank([r, s]) < 2
    A1 = [r + [c] for r, c in zip(W1, b1)]
    A2 = [r + [c] for r, c in zip(W2, b2)]
    return {"G1": n1 <= d and rank(W1) == n1,
            "G2": all(v != 0 for r in A2 for v in r),
            "G3": all(any(W3[o][j] != 0 for o in range(len(W3))) for j in range(len(W2))),
            "G4": not any(proportional(A1[i], A1[j]) for i in range(n1) for j in range(i)),
            "G5": not any(proportional(A2[i], A2[j]) for i in range(len(A2)) for j in range(i))}


def violate(rng, net: Network, which: str) -> Network:
    """*net* with exactly one of G1, G2, G3, G5 broken (as far as a single edit goes)."""
    (W1, b1), (W2, b2), (W3, b3) = [(copy.deepcopy(W), list(b)) for W, b in frac_layers(net)]
    if which == "G1":                 # a row of W1 proportional to another (bias kept): rank drops
        i, j = rng.sample(range(len(W1)), 2)
        W1[j] = [v * Fraction(rng.choice([2, 3, -1, Fraction(1, 2)])) for v in W1[i]]
    elif which == "G2":
        i = rng.randrange(len(W2))
        j = rng.randrange(len(W2[0]) + 1)
        if j < len(W2[0]):
            W2[i][j] = Fraction(0)
        else:
            b2[i] = Fraction(0)
    elif which == "G3":
        j = rng.randrange(len(W2))
        for row in W3:
            row[j] = Fraction(0)
    elif which == "G5":
        i, j = rng.sample(range(len(W2)), 2)
        s = Fraction(rng.choice([1, 2, 3]), rng.choice([1, 2]))
        W2[j], b2[j] = [s * v for v in W2[i]], s * b2[i]
    q = lambda v: Q(v.numerator, v.denominator)
    return Network.from_rows([[[q(v) for v in r] for r in W] for W in (W1, W2, W3)],
                             [[q(v) for v in b] for b in (b1, b2, b3)])


def scale_to_unit_lead(W, b, Wn) -> None:
    """In place: every row ``[W_i | b_i]`` scaled so that its first non-zero entry is ±1, the
    positive factor moved into column ``i`` of the next layer's *Wn* (S2; zero rows kept)."""
    for i in range(len(W)):
        nz = next((v for v in W[i] + [b[i]] if v != 0), None)
        if nz is None:
            continue
        s = abs(nz)
        W[i] = [v / s for v in W[i]]
        b[i] /= s
        for r in Wn:
            r[i] *= s


def s1s2_form(net: Network):
    """A normal form of a two-hidden-layer net under permutations and positive scalings of its
    hidden neurons (S1, S2): every hidden row [W | b] scaled so that its first non-zero entry is
    ±1 (the factor moved into the next layer's column), then each layer's neurons sorted (layer
    1 by its normalised rows with W2's columns permuted along; layer 2 by row and W3 column)."""
    (W1, b1), (W2, b2), (W3, b3) = [(copy.deepcopy(W), list(b)) for W, b in frac_layers(net)]

    scale_to_unit_lead(W1, b1, W2)
    o1 = sorted(range(len(W1)), key=lambda i: W1[i] + [b1[i]])
    W1, b1 = [W1[i] for i in o1], [b1[i] for i in o1]
    W2 = [[r[i] for i in o1] for r in W2]                 # columns in the sorted order first
    scale_to_unit_lead(W2, b2, W3)
    o2 = sorted(range(len(W2)), key=lambda i: W2[i] + [b2[i]] + [r[i] for r in W3])
    W2, b2 = [W2[i] for i in o2], [b2[i] for i in o2]
    W3 = [[r[i] for i in o2] for r in W3]
    return W1, b1, W2, b2, W3, b3


def my_structure(net: Network):
    """Second-layer neuron types (R3: all-negative row of [W2 | b2] dead, all-positive linear,
    else switching) and the masked column (R4: every non-dead row has the masking pattern for
    column i: W2[j, i] > 0, the other entries and the bias < 0), decided here."""
    (_, _), (W2, b2), _ = frac_layers(net)
    types = []
    for r, c in zip(W2, b2):
        row = r + [c]
        types.append("dead" if all(v < 0 for v in row) else
                     "linear" if all(v > 0 for v in row) else "switching")
    live = [j for j, t in enumerate(types) if t != "dead"]
    masked = [i for i in range(len(W2[0]))
              if live and all(W2[j][i] > 0 and b2[j] < 0 and
                              all(W2[j][k] < 0 for k in range(len(W2[0])) if k != i)
                              for j in live)]
    return tuple(types), (masked[0] if len(masked) == 1 else None if not masked else masked)


def random_bottleneck(rng):
    from tests.cases.bottleneck import planted
    n1 = rng.choice([1, 2, 2, 2, 3])
    d = rng.randint(n1, 3)
    n2 = rng.randint(2, 3)
    signs = lambda k: "".join(rng.choice("+-") for _ in range(k))
    rows = [signs(n1) + "|" + signs(1) for _ in range(n2)]
    return planted(rng, d, n1, rows, m=rng.choice([1, 1, 2]))


def run_bottleneck(seed, count, verbose=True):
    """Generic bottleneck pairs (planted S1/S2 copy, or a perturbed copy), and the same with one
    hypothesis broken: equiv (auto and --method bottleneck) against z3 / exact evaluation,
    identify never "identifiable" with a failed hypothesis, G1–G5 against our own check."""
    from semialgebraic import equivalent, identifiability
    from semialgebraic.bottleneck import genericity
    from tests.cases.general import planted_copy
    from tests.oracles.z3 import z3_equivalent
    rng = random.Random(seed)
    stats = {"cases": 0, "generic": 0, "violated": 0, "equivalent": 0, "not_equivalent": 0,
             "undecided": 0, "refused": 0, "identify_true": 0, "identify_false": 0,
             "identify_none": 0}
    failures = []
    for i in range(count):
        a = random_bottleneck(rng)
        which = rng.choice([None, None, "G1", "G2", "G3", "G5"])
        if which == "G1" and a.widths[1] < 2:
            which = "G2"
        if which:
            a = violate(rng, a, which)
        b = planted_copy(rng, a)
        desc = f"{which or 'generic'} widths={a.widths}"
        if rng.random() < 0.5:
            wb, what = perturb_deep(rng, b)
            b, desc = wb, desc + f"; {what}"
        tag = f"bottleneck seed={seed} case={i} ({desc})"
        stats["cases"] += 1
        stats["violated" if which else "generic"] += 1
        mine = my_genericity(a)
        theirs = {h.name.split()[0]: h.holds for h in genericity(a)}
        for g, ok in mine.items():
            if theirs.get(g) is not None and theirs[g] != ok:
                failures.append(f"{tag}: {g} reported {theirs[g]}, our check {ok}")
        if not which:                              # generic: the structure report
            from semialgebraic import structure
            st = structure(a)
            types, masked = my_structure(a)
            if tuple(st.types) != types or st.masked != masked:
                failures.append(f"{tag}: structure types {st.types} masked {st.masked}, ours "
                                f"{types} masked {masked}")
            stats["structures"] = stats.get("structures", 0) + 1
        truth = z3_equivalent(a, b)
        for method in ("auto", "bottleneck"):
            try:
                v = equivalent(a, b, method=method, timeout=TIMEOUT)
            except Exception as exc:
                name = type(exc).__name__
                if method == "bottleneck" and name in ("NonGenericError", "NotApplicableError"):
                    stats["refused"] += 1
                    continue
                failures.append(f"{tag}: {method} raised {name}: {exc}")
                continue
            if v.answer is None:
                stats["undecided"] += 1
            elif truth is not None and v.answer != truth:
                failures.append(f"{tag}: {method} answered {v.answer}, z3 {truth} "
                                f"({v.method}: {v.reason})")
            else:
                stats["equivalent" if v.answer else "not_equivalent"] += 1
            if v.answer is False and v.certificate and v.certificate.get("x") is not None:
                x = [Fraction(str(t)) for t in v.certificate["x"]]
                if frac_eval(frac_layers(a), x) == frac_eval(frac_layers(b), x):
                    failures.append(f"{tag}: counterexample x={x} does not separate a and b")
            check_certificate(rng, v, stats, failures, f"{tag} {method}", mutations=1)
        try:
            idv = identifiability(a)
        except Exception as exc:
            name = type(exc).__name__
            if name not in ("NonGenericError", "NotApplicableError"):
                failures.append(f"{tag}: identify raised {name}: {exc}")
            idv = None
        if idv is not None:
            stats[f"identify_{str(idv.answer).lower()}"] += 1
            failed = [h.name for h in idv.hypotheses if h.holds is False]
            if idv.answer is True and (failed or not all(mine.values())):
                failures.append(f"{tag}: identify True with failed hypotheses {failed} "
                                f"(ours {mine})")
            check_certificate(rng, idv, stats, failures, f"{tag} identify", mutations=1)
            cert = idv.certificate or {}
            if idv.answer is False and cert.get("type") == "symmetry_path":
                from algebra.io import network_from_dict
                ca, cb = network_from_dict(cert["a"]), network_from_dict(cert["b"])
                stats["identify_false_witnesses"] = stats.get("identify_false_witnesses", 0) + 1
                if s1s2_form(ca) == s1s2_form(cb):
                    failures.append(f"{tag}: 'not identifiable' witnessed by a copy that is only "
                                    f"permuted and rescaled")
                if z3_equivalent(ca, cb) is False:
                    failures.append(f"{tag}: the non-identifiability witness computes another "
                                    f"function")
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


def perturb_deep(rng, net: Network):
    """One parameter moved by 1e-9 … 1/3 (the parameter by name)."""
    name = rng.choice(net.parameter_names())
    delta = rng.choice([Q(1, 10 ** 9), Q(-1, 10 ** 6), Q(1, 8), Q(1, 3)])
    old = dict(zip(net.parameter_names(), net.parameters()))[name]
    return net.with_parameter(name, old + delta), f"{name} moved by {delta}"



# -- fiber: every sample computes the same function; no non-equivalent net is a member ------------
def run_fiber(seed, count, verbose=True):
    """``fiber`` of bottlenecks (generic or one hypothesis broken) and shallow nets: each
    component's sample and representative compute the net's function (z3 / the kink oracle),
    the net is a member of some component, a perturbed net that z3 separates is in none, and
    the fiber dimension plus our sampled Jacobian rank never exceed the parameter count."""
    from semialgebraic import fiber
    from tests.oracles.z3 import z3_equivalent
    rng = random.Random(seed)
    stats = {"cases": 0, "components": 0, "refused": 0, "members_checked": 0}
    failures = []
    for i in range(count):
        if rng.random() < 0.6:
            net = random_bottleneck(rng)
            which = rng.choice([None, None, "G1", "G2", "G3", "G5"])
            if which == "G1" and net.widths[1] < 2:
                which = None
            if which:
                net = violate(rng, net, which)
        else:
            which = "shallow"
            net = to_net(*random_shallow(rng))
        tag = f"fiber seed={seed} case={i} ({which or 'generic'} widths={net.widths})"
        stats["cases"] += 1
        same = (lambda a, b: shallow_equivalent_oracle(a, b)) if net.depth == 2 else z3_equivalent
        try:
            fib = fiber(net)
        except Exception as exc:
            name = type(exc).__name__
            if name in ("NonGenericError", "NotApplicableError", "UndecidedError"):
                stats["refused"] += 1
            else:
                failures.append(f"{tag}: raised {name}: {exc}")
                if verbose:
                    print(failures[-1], flush=True)
            continue
        comps = list(fib.components)
        stats["components"] += len(comps)
        params = list(net.parameters())
        if not any(c.contains(net) for c in comps):
            failures.append(f"{tag}: the net itself is in no component")
        for c in comps:
            for what in ("sample", "representative"):
                pt = getattr(c, what)
                pt = pt() if callable(pt) and not isinstance(pt, Network) else pt
                if pt is None:
                    continue
                other = pt if isinstance(pt, Network) else Network.from_parameters(net.widths, pt)
                stats["members_checked"] += 1
                if same(net, other) is False:
                    failures.append(f"{tag}: component {c.label!r} {what} computes another "
                                    f"function")
        bad, what = perturb_deep(rng, net)
        if same(net, bad) is False and any(c.contains(bad) for c in comps):
            failures.append(f"{tag}: a net that differs ({what}) is a member of the fiber")
        dim = fib.dimension
        dval = getattr(dim, "value", dim)
        if isinstance(dval, int):
            rank = jacobian_rank(net, rng, n_lines=8)
            if dval + rank > len(params):
                failures.append(f"{tag}: fiber dimension {dval} + sampled Jacobian rank {rank} > "
                                f"{len(params)} parameters")
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


# -- conservation laws: dQ/dt = ∇Q · J^T v = 0 along the gradient flow, at exact GD iterates -------
def _set_params(layers, theta):
    out, k = [], 0
    for W, b in layers:
        nW = [[theta[k + i * len(W[0]) + j] for j in range(len(W[0]))] for i in range(len(W))]
        k += len(W) * len(W[0])
        nb = list(theta[k:k + len(b)])
        k += len(b)
        out.append((nW, nb))
    return out


def _pattern(layers, x):
    return tuple(tuple((v > 0) - (v < 0) for v in z) for z in preactivations(layers, x))


def run_conserved(seed, count, verbose=True, steps=3):
    """``conservation_laws`` on random data: at θ and at a few exact gradient-descent iterates
    (squared loss, random targets, step 1/64, stopped when a data point changes pattern), every
    reported law Q has ∇Q · J_{x,o} = 0 exactly for every data point x and output o (our own
    Jacobian, sympy for ∇Q); the laws' gradients are independent; and the certified lower bound
    never exceeds N − rank of the fields J_{x,o} at θ."""
    import flint
    import sympy
    from algebra.conservation.fields import samples_from_points
    from algebra.conservation.laws import conservation_laws
    rng = random.Random(seed)
    stats = {"cases": 0, "laws": 0, "law_checks": 0, "iterates": 0, "exact": 0}
    failures = []
    for i in range(count):
        net = random_deep(rng)
        layers = frac_layers(net)
        d, m = net.n_inputs, net.n_outputs
        pts = [[Fraction(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(d)]
               for _ in range(rng.randint(2, 6))]
        ys = [[Fraction(rng.randint(-4, 4)) for _ in range(m)] for _ in pts]
        region_mode = rng.random() < 0.4
        if region_mode:
            # the laws of the regions meeting a box hold at every differentiable point of the box
            from algebra.conservation import samples_from_patterns
            from semialgebraic.regions import regions as walk_regions
            from semialgebraic.sets import Polyhedron
            lo = Fraction(rng.randint(-2, 0))
            hi = lo + Fraction(rng.randint(1, 2))
            walk = list(walk_regions(net, domain=Polyhedron.box(d, Q(lo.numerator),
                                                                Q(hi.numerator))))
            samples = samples_from_patterns([r.pattern for r in walk])
            pts = [[lo + (hi - lo) * Fraction(rng.randint(1, 999), 1000) for _ in range(d)]
                   for _ in range(12)]
            ys = [[Fraction(rng.randint(-4, 4)) for _ in range(m)] for _ in pts]
        tag = (f"conserved seed={seed} case={i} widths={net.widths} "
               + (f"box [{lo}, {hi}] ({len(samples)} patterns)" if region_mode
                  else f"points={len(pts)}"))
        stats["cases"] += 1
        try:
            if not region_mode:
                samples = samples_from_points(net, [[Q(v.numerator, v.denominator) for v in x]
                                                    for x in pts])
            L = conservation_laws(net, samples, timeout=TIMEOUT)
        except Exception as exc:
            failures.append(f"{tag}: raised {type(exc).__name__}: {exc}")
            if verbose:
                print(failures[-1], flush=True)
            continue
        stats["exact"] += L.lower == L.upper
        names = list(net.parameter_names())
        syms = {n: sympy.Symbol(n) for n in names}
        grads = []
        for law in L.laws:
            e = law.to_sympy()
            free = {str(f): f for f in e.free_symbols}
            grads.append([sympy.diff(e, free[n]) if n in free else sympy.Integer(0) for n in names])
        stats["laws"] += len(grads)
        theta = [Fraction(str(v)) for v in net.parameters()]
        pattern0 = [_pattern(layers, x) for x in pts]
        rows0 = None
        for step in range(steps + 1):
            cur = _set_params(layers, theta)
            if [_pattern(cur, x) for x in pts] != pattern0:
                break                               # a data point changed region: laws' scope
            rows, ok = [], True
            for x in pts:
                r = jacobian_row(cur, x)
                if r is None:
                    ok = False
                    break
                rows += r
            if not ok:
                break
            if rows0 is None:
                rows0 = rows
            stats["iterates"] += 1
            env = {n: sympy.Rational(v.numerator, v.denominator) for n, v in zip(names, theta)}
            for law, g in zip(L.laws, grads):
                gv = [Fraction(str(sympy.sympify(c).subs(env))) for c in g]
                stats["law_checks"] += 1
                for r in rows:
                    if sum((a * b for a, b in zip(gv, r)), Fraction(0)) != 0:
                        failures.append(f"{tag}: law {law.name} ({law.polynomial}) changes along "
                                        f"the gradient flow at iterate {step}")
                        break
            # one exact gradient step of the squared loss
            grad = [Fraction(0)] * len(theta)
            for x, y in zip(pts, ys):
                out = frac_eval(cur, x)
                for o, r in enumerate(jacobian_row(cur, x)):
                    res = out[o] - y[o]
                    grad = [g + res * v for g, v in zip(grad, r)]
            theta = [t - Fraction(1, 64) * g for t, g in zip(theta, grad)]
        N = len(theta)
        if grads:
            env = {n: sympy.Rational(str(v)) for n, v in zip(names, net.parameters())}
            G = [[Fraction(str(sympy.sympify(c).subs(env))) for c in g] for g in grads]
            rk = flint.fmpq_mat(len(G), N, [flint.fmpq(v.numerator, v.denominator)
                                            for r in G for v in r]).rank()
            if rk != len(G):
                failures.append(f"{tag}: the {len(G)} laws' gradients have rank {rk} at θ")
        if rows0:
            fr = flint.fmpq_mat(len(rows0), N, [flint.fmpq(v.numerator, v.denominator)
                                                for r in rows0 for v in r]).rank()
            if L.lower > N - fr:
                failures.append(f"{tag}: lower bound {L.lower} > N − rank(fields) = {N - fr}")
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


# -- skip absorption (ReLU blocks, no biases) -------------------------------------------------------
def block_decomposition(up, down, skip: bool):
    """x ↦ [x] + W_down relu(W_up x) as {oriented hyperplane through 0: kink vector} and the
    linear part (Fractions): the kink oracle of the shallow kind, without biases."""
    k, d = len(up), len(up[0])
    kinks: dict = {}
    A = [[Fraction(int(skip and o == j)) for j in range(d)] for o in range(d)]
    for i in range(k):
        row, out = up[i], [down[o][i] for o in range(d)]
        nz = next((v for v in row if v != 0), None)
        if nz is None:
            continue
        key = tuple(v / nz for v in row)
        kv = kinks.setdefault(key, [Fraction(0)] * d)
        s = abs(nz)
        for o in range(d):
            kv[o] += out[o] * s
            if nz < 0:
                for j in range(d):
                    A[o][j] -= out[o] * s * key[j]
    return {h: v for h, v in kinks.items() if any(v)}, A


def _frac_matrix(rows):
    return [[Fraction(str(v)) for v in r] for r in rows]


def random_block(rng):
    """(kind, w_up, w_down): planted absorbable (a flip set S with W_down[:,S] W_up[S,:] = -I),
    a near miss of it (one entry moved by 1e-9 … 1/8), degenerate (zero / duplicate / parallel
    units), or random."""
    import flint
    d = rng.randint(1, 3)
    k = rng.randint(d, d + 3)
    up = [[_rat(rng) for _ in range(d)] for _ in range(k)]
    down = [[_rat(rng) for _ in range(k)] for _ in range(d)]
    kind = rng.choice(["planted", "planted", "near", "degenerate", "random"])
    if kind in ("planted", "near"):
        S = rng.sample(range(k), d)
        while True:
            P = [[_rat(rng) for _ in range(d)] for _ in range(d)]
            M = flint.fmpq_mat(d, d, [flint.fmpq(v.numerator, v.denominator) for r in P for v in r])
            if M.rank() == d:
                break
        inv = M.inv()
        for a, i in enumerate(S):
            up[i] = P[a]
            for o in range(d):
                q = inv[o, a]
                down[o][i] = -Fraction(int(q.p), int(q.q))
        if kind == "near":
            o, a = rng.randrange(d), rng.randrange(d)
            down[o][S[a]] += rng.choice([Fraction(1, 10 ** 9), Fraction(-1, 10 ** 6),
                                         Fraction(1, 8)])
    elif kind == "degenerate":
        for _ in range(rng.randint(1, 2)):
            i = rng.randrange(k)
            op = rng.choice(["zero_up", "zero_down", "dup", "antiparallel"])
            if op == "zero_up":
                up[i] = [Fraction(0)] * d
            elif op == "zero_down":
                for o in range(d):
                    down[o][i] = Fraction(0)
            elif k > 1:
                j = rng.choice([t for t in range(k) if t != i])
                s = Fraction(rng.randint(1, 3)) * (1 if op == "dup" else -1)
                up[j] = [s * v for v in up[i]]
    return kind, up, down


def run_absorb(seed, count, verbose=True):
    """``absorbable`` on ReLU blocks: an "absorbable" answer's absorbing block is residual-free,
    of width k, and computes x + W_down relu(W_up x) exactly (our kink oracle); every flip set S
    with W_down[:,S] W_up[S,:] = -I (brute force over all S) forces "absorbable"; the
    certificates are verified and mutations rejected or true."""
    from itertools import combinations
    from algebra.blocks import Block
    from semialgebraic import absorbable
    rng = random.Random(seed)
    stats = {"cases": 0, "absorbable": 0, "not_absorbable": 0, "undecided": 0}
    failures = []
    for i in range(count):
        kind, up, down = random_block(rng)
        d, k = len(up[0]), len(up)
        tag = f"absorb seed={seed} case={i} ({kind} d={d} k={k})"
        stats["cases"] += 1
        s = lambda M: [[str(v) for v in r] for r in M]
        try:
            v = absorbable(Block("relu", s(up), s(down)), timeout=TIMEOUT)
        except Exception as exc:
            failures.append(f"{tag}: raised {type(exc).__name__}: {exc}")
            if verbose:
                print(failures[-1], flush=True)
            continue
        flips = [list(S) for r in range(1, k + 1) for S in combinations(range(k), r)
                 if all(sum((down[o][t] * up[t][j] for t in S), Fraction(0)) == -int(o == j)
                        for o in range(d) for j in range(d))]
        if v.answer is None:
            stats["undecided"] += 1
        else:
            stats["absorbable" if v.answer else "not_absorbable"] += 1
        if flips and v.answer is False:
            failures.append(f"{tag}: 'not absorbable' but S = {flips[0]} flips the skip away")
        if d == 1 and v.answer is not None:
            # exact on R: f = K relu(x) + A x; two units make any (K, A), one unit (α, 0) or (α, −α)
            kinks, A = block_decomposition(up, down, True)
            K = next(iter(kinks.values()))[0] if kinks else Fraction(0)
            a = A[0][0]
            truth = k >= 2 or a == 0 or a == -K
            if v.answer != truth:
                failures.append(f"{tag}: answered {v.answer}, the d = 1 oracle {truth}")
        if v.answer is True:
            w = v.certificate["witness"]
            blk = w.get("absorbing_block")
            if blk is None:
                failures.append(f"{tag}: absorbable without an absorbing block ({w.get('kind')})")
            else:
                up2, down2 = _frac_matrix(blk["w_up"]), _frac_matrix(blk["w_down"])
                if blk.get("skip") != "none" or len(up2) != k:
                    failures.append(f"{tag}: absorbing block has skip {blk.get('skip')!r} and "
                                    f"width {len(up2)} (k = {k})")
                elif block_decomposition(up2, down2, False) != block_decomposition(up, down, True):
                    failures.append(f"{tag}: the absorbing block computes another function")
            if "all_S" in w and sorted(map(sorted, w["all_S"])) != sorted(flips):
                failures.append(f"{tag}: all_S {w['all_S']} but brute force {flips}")
        check_certificate(rng, v, stats, failures, tag)
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


# -- shallow equivalence on the orthant and on boxes (z3 the oracle) -------------------------------
def orthant_move(rng, W1, b1, W2, b2):
    """A move valid on the orthant x >= 0 (not on R^d): a neuron dead there (w <= 0, b < 0)
    added, or one that is linear there (w >= 0, b > 0) replaced by its affine part through a
    pair relu(u) − relu(−u) of another direction ... kept simple: a dead neuron, or a neuron
    whose kink misses the orthant moved across to its flipped twin (relu(z) = z + relu(−z))."""
    W1, b1, W2, b2 = copy.deepcopy((W1, b1, W2, b2))
    d, m = len(W1[0]), len(W2)
    kind = rng.choice(["dead_orthant", "always_active"])
    if kind == "dead_orthant":
        W1.append([-Fraction(rng.randint(0, 3), rng.randint(1, 2)) for _ in range(d)])
        b1.append(-Fraction(rng.randint(1, 3), rng.randint(1, 3)))
        for o in range(m):
            W2[o].append(_rat(rng))
    else:
        # c relu(z) with z > 0 on the orthant = c z; written as c relu(z) + c' relu(y) − c' relu(y)
        # would be trivial, so add the pair relu(z) − relu(−z) for such a z with output weights
        # (c, 0): on the orthant relu(−z) = 0 there, so b = a + c relu(z) − c (z) needs z in the
        # affine part: use two such neurons z1 + z2 = z3 with all three positive on the orthant
        z1 = [Fraction(rng.randint(0, 3)) for _ in range(d)] + [Fraction(rng.randint(1, 3))]
        z2 = [Fraction(rng.randint(0, 3)) for _ in range(d)] + [Fraction(rng.randint(1, 3))]
        z3 = [u + v for u, v in zip(z1, z2)]
        c = [_rat(rng) for _ in range(m)]
        for z, sgn in ((z1, 1), (z2, 1), (z3, -1)):
            W1.append(z[:d])
            b1.append(z[d])
            for o in range(m):
                W2[o].append(sgn * c[o])
    return kind, (W1, b1, W2, b2)


def run_shallow_domains(seed, count, verbose=True):
    """One-hidden-layer ``equivalent`` on the orthant and on boxes, for pairs equal only there
    (a neuron dead on the orthant, always-active neurons whose sum is linear there) or perturbed,
    against z3 on the same domain; certificates verified and mutated."""
    from semialgebraic import equivalent
    from tests.oracles.z3 import z3_equivalent
    rng = random.Random(seed)
    stats = {"cases": 0, "equivalent": 0, "not_equivalent": 0, "undecided": 0}
    failures = []
    for i in range(count):
        w = random_shallow(rng, d=rng.randint(1, 2), n=rng.randint(1, 3))
        kind, wb = orthant_move(rng, *w)
        desc = kind
        if rng.random() < 0.5:
            wb, what = perturb(rng, *wb)
            desc += f"; {what}"
        a, b = to_net(*w), to_net(*wb)
        if rng.random() < 0.5:
            dom, z3dom = "orthant", "orthant"
        else:
            lo = Fraction(rng.randint(-3, 1), rng.randint(1, 2))
            hi = lo + Fraction(rng.randint(1, 4), rng.randint(1, 3))
            dom, z3dom = (Q(lo.numerator, lo.denominator), Q(hi.numerator, hi.denominator)), (lo, hi)
        tag = f"shallow_domains seed={seed} case={i} ({desc}; domain {dom})"
        stats["cases"] += 1
        truth = z3_equivalent(a, b, domain=z3dom)
        try:
            v = equivalent(a, b, domain=dom, timeout=TIMEOUT)
        except Exception as exc:
            failures.append(f"{tag}: raised {type(exc).__name__}: {exc}")
            if verbose:
                print(failures[-1], flush=True)
            continue
        if v.answer is None:
            stats["undecided"] += 1
        elif truth is not None and v.answer != truth:
            failures.append(f"{tag}: answered {v.answer}, z3 {truth} ({v.method}: {v.reason})")
        else:
            stats["equivalent" if v.answer else "not_equivalent"] += 1
        if v.answer is False and v.certificate and v.certificate.get("x") is not None:
            x = [Fraction(str(t)) for t in v.certificate["x"]]
            inside = all(t >= 0 for t in x) if dom == "orthant" else \
                all(z3dom[0] <= t <= z3dom[1] for t in x)
            if not inside or frac_eval(frac_layers(a), x) == frac_eval(frac_layers(b), x):
                failures.append(f"{tag}: counterexample {x} outside the domain or not separating")
        check_certificate(rng, v, stats, failures, tag, mutations=1)
        if verbose and failures and failures[-1].startswith(tag):
            print(failures[-1], flush=True)
    return stats, failures


KINDS = {"shallow_domains": run_shallow_domains, "absorb": run_absorb, "conserved": run_conserved, "fiber": run_fiber, "shallow": run_shallow, "dim": run_dim, "bottleneck": run_bottleneck}


def _main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--kind", choices=sorted(KINDS), action="append")
    ap.add_argument("--trace", action="store_true", help="print each case before running it")
    args = ap.parse_args()
    bad = 0
    for kind in args.kind or sorted(KINDS):
        stats, failures = KINDS[kind](args.seed, args.count,
                                      verbose="trace" if args.trace else True)
        bad += len(failures)
        print(f"{kind}: {json.dumps(stats)}; {len(failures)} failing")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(_main())
