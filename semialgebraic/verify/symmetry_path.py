"""Checker of ``symmetry_path`` certificates: replay exact symmetry steps from a to b.

Schema (version 1; built by :func:`semialgebraic.certificates.symmetry_path_certificate`)::

    {"format": "netfibers.certificate", "type": "symmetry_path",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "a and b compute the same function [on the closed orthant]",
     "a": <network>, "b": <network>, "domain": null | {"orthant": true},
     "steps": [{"step": NAME, ...}, ...],            # algebra.symmetries JSON forms
     "checkpoints": ["<16 hex>", ...]                 (optional: digest after each step)}

``claim`` must match ``domain`` (" on the closed orthant" exactly when the domain is the
orthant).  Each step's fields (indices, factors, witnesses) are those of its
:mod:`algebra.symmetries` class and are all used by its ``check``/``apply``.  No other key is
accepted.

``checkpoints`` bind every step: after step k the intermediate network's digest
(:func:`algebra.kernel.network_digest`: first 16 hex digits of a SHA-256 of the widths, the biases
and fixed exact products ``W_l r``) must equal ``checkpoints[k]``, so a mutated step is rejected even when a later step would have absorbed
the change.

The checker rebuilds every step with :func:`algebra.symmetries.step_from_json`, replays the path
from ``a`` (each step's ``check`` must pass at its own intermediate network; the steps carry
their witnesses, so no LP is needed) and compares the result with ``b`` exactly.  A step that
claims the orthant domain at hidden layer 0 (valid on the orthant only) is refused unless the
certificate's domain is the orthant.  Imports ``algebra`` only.
"""

from __future__ import annotations

import itertools

from algebra.array_replay import replay_path, view_equals
from algebra.exceptions import InputError, InvalidStepError
from algebra.io.native import network_from_dict
from algebra.kernel import network_digest
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.symmetries import path_from_json

__all__ = ["check"]


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "symmetry_path")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    domain = cert.get("domain")
    if domain is not None and domain != {"orthant": True}:
        raise InputError(f"unknown domain {domain!r} (expected null or {{'orthant': true}})")
    orthant = domain is not None
    steps = path_from_json(cert["steps"])
    if not orthant:
        bad = _orthant_step(cert["steps"])
        if bad is not None:
            return False, (f"step {bad} is valid on the orthant only, but the certificate claims "
                           "equality on all of R^d")
    distinct = cert["claim"] == CLAIMS["symmetry_path"][2]     # identify's "not identifiable"
    if cert["claim"] != CLAIMS["symmetry_path"][1 if orthant else 0] and not (distinct and not orthant):
        return False, f"the claim {cert['claim']!r} does not match the domain {domain!r}"
    if distinct:
        why = outside_orbit(a, b)
        if why:
            return False, why
    if a.signature != b.signature:
        return False, f"a and b have different signatures {a.signature} and {b.signature}"
    checkpoints = cert.get("checkpoints")
    if checkpoints is not None:
        if not isinstance(checkpoints, list) or not all(isinstance(c, str) for c in checkpoints):
            raise InputError("checkpoints must be a list of digest strings")
        if len(checkpoints) != len(steps):
            return False, (f"{len(steps)} steps but {len(checkpoints)} checkpoints: a step was "
                           "added or removed")
    fast = _replay_on_arrays(a, b, steps, checkpoints, orthant)
    if fast is not None:
        return (fast[0], fast[1] + _DISTINCT) if distinct and fast[0] else fast
    end = a
    for k, step in enumerate(steps):
        try:
            ok, why = step.check(end)
            if not ok:
                return False, f"invalid step: step #{k} ({step.name}) is not valid here: {why}"
            end = step._apply(end)            # checked just above
        except InvalidStepError as exc:
            return False, f"invalid step: #{k}: {exc}"
        except (IndexError, ValueError, ZeroDivisionError) as exc:
            return False, f"step #{k} ({step.name}) cannot be applied: {exc}"
        if checkpoints is not None and network_digest(end) != checkpoints[k]:
            return False, (f"after step #{k} ({step.name}) the network differs from the "
                           "recorded checkpoint")
    if end != b:
        if end.widths != b.widths:
            return False, f"the path ends at widths {end.widths}, b has widths {b.widths}"
        names = end.parameter_names()
        for name, x, y in zip(names, end.parameters(), b.parameters()):
            if x != y:
                return False, f"the path ends at a network differing from b at {name} ({x} != {y})"
    return True, _valid(steps, orthant) + (_DISTINCT if distinct else "")


_DISTINCT = "; b is not a permutation and positive rescaling of a: a is not identifiable"


def outside_orbit(a, b) -> str:
    """"" when *b* is a parameter of *a*'s architecture (same widths) provably not *a* permuted
    and positively rescaled (S1 + S2), else why not (:func:`_orbit_match`)."""
    if a.widths != b.widths:              # identifiability is about the parameters of a's own
        return ("b has other widths than a: it is not a parameter of a's architecture, so it "
                "shows nothing about a's identifiability")   # widths (session-33 audit: an
    same = _orbit_match(a, b)                                 # inserted neuron was 'a witness')
    if same is None:
        return ("b is not shown outside a's orbit of permutations and positive rescalings: a "
                "neuron's row has its only non-zero entries where a zero neuron of the layer "
                "before feeds it, or too many equal rows to match, so the orbit test is open")
    if same:
        return "b is a permutation and positive rescaling of a: the path shows no non-identifiability"
    return ""


ORBIT_BRANCHES = 20000
"""Most matchings of equal rows :func:`_orbit_match` tries before it calls the test open."""

ORBIT_WORK = 2 * 10 ** 7
"""At most this many parameters copied over all matchings (each copies the network's later
layers): a wide network with a large class of equal rows is open rather than slow."""


def _orbit_match(a, b):
    """Is *b* (same widths) *a* with its hidden neurons permuted and positively rescaled?  True,
    False, or None (open).  Hidden layer by hidden layer from the input, each neuron's row and
    bias are divided by the absolute value of their first non-zero entry (its outgoing column
    multiplied by it), *a*'s rows read with their columns in the order of the neurons of *b*
    they were matched to; a's neurons must match b's with equal (row, bias) — in the last hidden
    layer (row, bias, outgoing column) — and the output biases must be equal.  Equal rows of an
    earlier layer (a split neuron) may match in several ways: each is tried, at most
    :data:`ORBIT_BRANCHES` in all, fewer on wide networks (:data:`ORBIT_WORK`; session 37:
    such copies were "open" before).  A zero neuron
    (row and bias 0) of an earlier layer outputs 0, so its outgoing column's scale is free: the
    next layer's rows take their lead among the other columns and the bias, then each such
    column is divided by the sum of its absolute values (an order-free normaliser); a row with
    no such lead but entries in a free column leaves the test open."""
    A = ([[list(r) for r in W.to_rows()] for W in a.weights], [list(v) for v in a.biases])
    B = ([[list(r) for r in W.to_rows()] for W in b.weights], [list(v) for v in b.biases])
    budget = [max(1, min(ORBIT_BRANCHES, ORBIT_WORK // max(1, a.n_parameters)))]
    return _match(0, A, B, budget, frozenset())


def _normalised(Ws, bs, l: int, free):
    """Layer *l*'s neurons of (Ws, bs) divided by the absolute value of their lead (in place;
    the outgoing columns multiplied), the columns *free* (zero neurons of layer l - 1) by the
    sum of their absolute values; the zero neurons of layer *l* (before the last hidden layer),
    or None when a row's lead would be in a free column (open)."""
    last = l == len(Ws) - 2
    nxt = Ws[l + 1]
    zero = []
    for i in range(len(Ws[l])):
        row = Ws[l][i]
        lead = next((x for c, x in enumerate(row) if x != 0 and c not in free), None)
        if lead is None and bs[l][i] != 0:
            lead = bs[l][i]
        if lead is None:
            if any(row[c] != 0 for c in free):
                return None
            if not last:
                zero.append(i)
                continue
            lead = next((r[i] for r in nxt if r[i] != 0), None)
            if lead is not None:         # a zero row's column: free in scale, normalised
                for r in nxt:            # (the output layer: rows in a fixed order)
                    r[i] /= abs(lead)
            continue
        s = abs(lead)
        Ws[l][i] = [x / s for x in row]
        bs[l][i] /= s
        for r in nxt:
            r[i] *= s
    for c in free:
        total = sum(abs(r[c]) for r in Ws[l])
        if total:
            for r in Ws[l]:
                r[c] /= total
    return zero


def _match(l: int, A, B, budget, free):
    (Wa, ba), (Wb, bb) = A, B
    if l == len(Wa) - 1:                      # no hidden layer: the affine maps themselves
        return Wa[l] == Wb[l] and ba[l] == bb[l]
    Wa, Wb = [[list(r) for r in W] for W in Wa], [[list(r) for r in W] for W in Wb]
    ba, bb = [list(v) for v in ba], [list(v) for v in bb]
    zero_a, zero_b = _normalised(Wa, ba, l, free), _normalised(Wb, bb, l, free)
    if zero_a is None or zero_b is None:
        return None
    last = l == len(Wa) - 2

    def key(W, bias, i):
        return tuple(_pair(x) for x in W[l][i] + [bias[l][i]]
                     + ([r[i] for r in W[l + 1]] if last else []))
    groups_a, groups_b = {}, {}
    for i in range(len(Wa[l])):
        groups_a.setdefault(key(Wa, ba, i), []).append(i)
        groups_b.setdefault(key(Wb, bb, i), []).append(i)
    if {k: len(v) for k, v in groups_a.items()} != {k: len(v) for k, v in groups_b.items()}:
        return False
    if last:                                  # equal keys are interchangeable: one matching
        return ba[l + 1] == bb[l + 1]
    ties = [(groups_a[k], groups_b[k]) for k in groups_a]
    open_ = False
    for choice in itertools.product(*(itertools.permutations(ia) for ia, _ in ties)):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        order = [0] * len(Wa[l])              # order[j]: the neuron of a matched to b's j
        for perm, (_, ib) in zip(choice, ties):
            for i, j in zip(perm, ib):
                order[j] = i
        Wa2 = [W if k not in (l, l + 1) else None for k, W in enumerate(Wa)]
        Wa2[l] = [Wa[l][i] for i in order]
        Wa2[l + 1] = [[r[i] for i in order] for r in Wa[l + 1]]
        ba2 = [list(v) for v in ba]
        ba2[l] = [ba[l][i] for i in order]
        got = _match(l + 1, (Wa2, ba2), (Wb, bb), budget, frozenset(zero_b))
        if got:
            return True
        open_ = open_ or got is None
    return None if open_ else False


def _pair(x) -> tuple:
    return (int(x.p), int(x.q))


def _valid(steps, orthant: bool) -> str:
    where = " on the closed orthant" if orthant else ""
    return f"{len(steps)} valid step(s) carry a exactly to b: same function{where}"


def _replay_on_arrays(a, b, steps, checkpoints, orthant):
    """The verdict of the replay of a path of S1/S2 steps on integer weight arrays
    (:func:`algebra.array_replay.replay_path`: the same checks, digests and final comparison
    as the FLINT replay, exact); None when the path or the networks are not representable
    there (then the FLINT replay decides)."""
    if not steps:
        return None
    replay = replay_path(a, steps, digests=checkpoints is not None)
    if replay is None:
        return None
    for k, (step, (ok, why, _, digest)) in enumerate(zip(steps, replay)):
        if not ok:
            return False, f"invalid step: step #{k} ({step.name}) is not valid here: {why}"
        if checkpoints is not None and digest != checkpoints[k]:
            return False, (f"after step #{k} ({step.name}) the network differs from the "
                           "recorded checkpoint")
    same = view_equals(replay[-1][2], b)
    if same is None:
        return None
    if not same:
        return False, "the path ends at a network differing from b (exact array comparison)"
    return True, _valid(steps, orthant)


def _orthant_step(steps, prefix=""):
    for k, s in enumerate(steps):
        if not isinstance(s, dict):
            continue
        if s.get("domain") == "orthant" and s.get("layer", 0) == 0:
            return f"#{prefix}{k} ({s.get('step')})"
        if isinstance(s.get("steps"), list):
            sub = _orthant_step(s["steps"], f"{prefix}{k}.")
            if sub is not None:
                return sub
    return None
