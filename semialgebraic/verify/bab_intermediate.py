r"""Replay of a ``bab_bound`` leaf's LP-tightened intermediate bounds (its ``"tightened"`` key).

A leaf of a branch-and-bound tree may list records (inline, or as indices into the
certificate's ``"intermediate"`` table)::

    {"at": [l, j], "hi": u, "upper": {"mu", "alpha", "beta"[, "kappa"]},
                   "lo": v, "lower": {...}}          # either side may be absent

of hidden neurons ``(l, j)`` of the difference network, at most one per neuron.  While the
leaf's intervals are replayed (:func:`semialgebraic.verify.bab_replay.layer_intervals`), each
hidden layer ``l``'s intervals (after the splits) are intersected with its records' ``[v, u]``,
*after* every record of that layer is proved from the layers below, which are final by then:
the multipliers ``upper`` (``mu`` per layer ``< l``, ``alpha``, ``beta`` per layer ``< l``,
``kappa`` per half-space) bound ``z_{l,j}`` over the triangle relaxation of layers ``0 … l − 1``
(the rules of :mod:`semialgebraic.verify.bab_bound`) with the row ``z_{l,j} − W_l[j]·h_{l−1} =
b_l[j]`` weighted by exactly 1 (the checker's own number: the neuron's own interval never enters
its bound), and the exact Neumaier–Shcherbina bound must be ``<= u``; likewise ``lower`` with
weight ``−1`` must prove ``−z_{l,j} <= −v``.  ``u`` and ``v`` must be multiples of ``2^-40``.  A
record that fails makes the leaf (and the certificate) INVALID.

Imports ``algebra`` only (and its sibling checker modules).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.rationals import Q, to_q

from .bab_replay import GRID, layer_intervals

__all__ = ["leaf_intervals", "split_leaf"]

_Z = Q(0)
_KEYS = {"at", "lo", "hi", "lower", "upper"}


class _Refuted(Exception):
    """A record whose multipliers do not prove its bound (the reason is the message)."""


def split_leaf(node):
    """``(node without "tightened", its references or None)``."""
    if not isinstance(node, dict) or "tightened" not in node:
        return node, None
    refs = node["tightened"]
    if not isinstance(refs, list):
        raise InputError("a leaf's 'tightened' is a list of records or indices")
    return {k: v for k, v in node.items() if k != "tightened"}, refs


def _num(v, what):
    if isinstance(v, bool) or not isinstance(v, (int, str)):
        raise InputError(f"{what} must be an exact number (JSON integer or 'p/q' string)")
    return to_q(v)


def _record(rec, widths):
    """``(l, j, lo, hi, lower, upper)`` of a record (sides absent: None); InputError when
    malformed."""
    if not isinstance(rec, dict) or not set(rec) <= _KEYS or "at" not in rec:
        raise InputError("an intermediate-bound record holds 'at' and 'lo'/'lower', 'hi'/'upper'")
    at = rec["at"]
    if (not isinstance(at, list) or len(at) != 2 or not all(type(v) is int for v in at)
            or not 0 <= at[0] < len(widths) or not 0 <= at[1] < widths[at[0]]):
        raise InputError(f"intermediate-bound record at {at!r} is not a hidden neuron [layer, index]")
    out = [at[0], at[1]]
    for bound, mult in (("lo", "lower"), ("hi", "upper")):
        if (bound in rec) != (mult in rec):
            raise InputError(f"an intermediate-bound record's '{bound}' comes with its '{mult}' multipliers")
        if bound in rec:
            m = rec[mult]
            if not isinstance(m, dict) or not {"mu", "alpha", "beta"} <= set(m) <= {"mu", "alpha", "beta", "kappa"}:
                raise InputError("intermediate-bound multipliers hold 'mu', 'alpha', 'beta' [, 'kappa']")
            if not all(isinstance(m[k], list) for k in ("mu", "alpha", "beta")):
                raise InputError("intermediate-bound multipliers are lists")
            out.append((_num(rec[bound], bound), m))
        else:
            out.append(None)
    return tuple(out)


def _records(net, refs):
    """The parsed records a leaf refers to, by neuron (indices into the certificate's table)."""
    widths = [len(W) for W in net["rows"][:-1]]
    table = net.get("intermediate") or []
    parsed = net.setdefault("intermediate_parsed", {})
    out = {}
    for ref in refs:
        if type(ref) is int:
            if not 0 <= ref < len(table):
                raise InputError(f"intermediate-bound index {ref} is not in the table")
            if ref not in parsed:
                parsed[ref] = _record(table[ref], widths) + (ref,)
            rec = parsed[ref]
        else:
            rec = _record(ref, widths) + (None,)
        if (rec[0], rec[1]) in out:
            raise InputError(f"two intermediate-bound records of neuron {list(rec[:2])}")
        out[(rec[0], rec[1])] = rec
    return out


def _prove(net, box, below, rec, sign, leaf_value):
    """Check the record's side *sign* (its multipliers prove ``sign · z_{l,j} <= sign · value``
    over the relaxation of the layers *below*); a table record's proof is remembered for the
    same box and the same intervals below (the same numbers: the same proof)."""
    key = None
    if rec[4] is not None:
        key = (rec[4], sign, tuple(box), tuple(tuple(layer) for layer in below[:rec[0]]))
        if key in net.setdefault("intermediate_proved", set()):
            return
    _prove_once(net, box, below, rec, sign, leaf_value)
    if key is not None:
        net["intermediate_proved"].add(key)


def _prove_once(net, box, below, rec, sign, leaf_value):
    l, j = rec[0], rec[1]
    value, mult = rec[2] if sign < 0 else rec[3]
    if (value * 2 ** GRID).q != 1:
        raise _Refuted(f"the intermediate bound {value} of neuron ({l}, {j}) is not a multiple of 2^-{GRID}")
    if len(mult["mu"]) != l:
        raise InputError(f"intermediate-bound multipliers of neuron ({l}, {j}) need mu of {l} layers")
    Ws, bs = net["rows"], net["biases"]
    leaf = {"bound": 0, "mu": list(mult["mu"]) + [[sign]], "alpha": mult["alpha"], "beta": mult["beta"]}
    if "kappa" in mult:
        leaf["kappa"] = mult["kappa"]
    got = leaf_value(Ws[:l] + [[Ws[l][j]]], bs[:l] + [[bs[l][j]]], box, list(below[:l]) + [[(_Z, _Z)]],
                     [Q(sign)], leaf, None, net["halfspaces"])
    if isinstance(got, str):
        raise _Refuted(f"intermediate bound of neuron ({l}, {j}): {got}")
    if got > sign * value:
        side = "upper" if sign > 0 else "lower"
        raise _Refuted(f"the {side} intermediate bound {value} of neuron ({l}, {j}) is not proved "
                       f"by its multipliers (they give {sign * got})")


def leaf_intervals(net, box, path, refs, leaf_value):
    """The intervals of a leaf (None: empty) with its records *refs* proved and applied, or a
    reason string when a record is not proved.  *leaf_value* is the bound of a leaf's
    multipliers (:func:`semialgebraic.verify.bab_bound._leaf_value`)."""
    if not refs:
        return layer_intervals(net["mats"], net["rows"], net["biases"], box, path)
    recs = _records(net, refs)

    def adjust(l, cur, below):
        cur = list(cur)
        for (rl, j), rec in recs.items():
            if rl != l:
                continue
            lo, hi = cur[j]
            if rec[2] is not None:
                _prove(net, box, below, rec, -1, leaf_value)
                lo = max(lo, rec[2][0])
            if rec[3] is not None:
                _prove(net, box, below, rec, 1, leaf_value)
                hi = min(hi, rec[3][0])
            cur[j] = (lo, hi)
        return cur

    try:
        return layer_intervals(net["mats"], net["rows"], net["biases"], box, path, adjust=adjust)
    except _Refuted as e:
        return str(e)
