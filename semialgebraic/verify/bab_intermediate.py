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

A pair record (``"differential": "neurodiff"``, a and b of one shape)::

    {"pair": [l, j], "hi": u, "upper": {"mu", "alpha", "beta", "gamma", "eta"[, "kappa"]},
                     "lo": v, "lower": {...}}

bounds ``δ_{l,j} = z_{l,j} − z_{l,n+j}`` (``n`` half the width of layer ``l``: neuron ``j`` of a
and its copy in b).  It is applied while the leaf's δ are replayed
(:func:`leaf_deltas`, :func:`semialgebraic.verify.bab_replay.paired_deltas`): after layer ``l``'s
δ (symbolic), each of its records is proved over the triangle relaxation of layers ``0 … l − 1``
(the leaf's final intervals) *with the pair rows* of those layers (the lines of
:func:`~semialgebraic.verify.bab_replay.pair_rows` from their final δ, multipliers ``gamma``,
``eta``) and the rows ``z_{l,j}``, ``z_{l,n+j}`` weighted by exactly ``1`` and ``−1`` (``−1`` and
``1`` for ``lower``); the δ is then intersected with ``[v, u]`` (kept when that would empty it,
as the replay's own intersections) before the layers above are replayed.

Imports ``algebra`` only (and its sibling checker modules).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.rationals import Q, to_q

from .bab_replay import GRID, layer_intervals, pair_rows, paired_deltas

__all__ = ["leaf_deltas", "leaf_intervals", "split_leaf"]

_Z = Q(0)
_KEYS = {"at", "lo", "hi", "lower", "upper"}
_PAIR_KEYS = {"pair", "lo", "hi", "lower", "upper"}
_MULT = {"mu", "alpha", "beta"}
_PAIR_MULT = {"mu", "alpha", "beta", "gamma", "eta"}


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
    """``(kind, l, j, lo, hi, lower, upper)`` of a record (kind ``"at"``: a neuron, ``"pair"``:
    the δ of a pair; sides absent: None); InputError when malformed."""
    if not isinstance(rec, dict) or "at" not in rec and "pair" not in rec:
        raise InputError("an intermediate-bound record holds 'at' (or 'pair') and 'lo'/'lower', 'hi'/'upper'")
    kind = "at" if "at" in rec else "pair"
    if not set(rec) <= (_KEYS if kind == "at" else _PAIR_KEYS):
        raise InputError("an intermediate-bound record holds 'at' (or 'pair') and 'lo'/'lower', 'hi'/'upper'")
    at = rec[kind]
    n = (lambda l: widths[l]) if kind == "at" else (lambda l: widths[l] // 2)
    if (not isinstance(at, list) or len(at) != 2 or not all(type(v) is int for v in at)
            or not 0 <= at[0] < len(widths) or not 0 <= at[1] < n(at[0])):
        what = "hidden neuron [layer, index]" if kind == "at" else "pair [layer, index of a's neuron]"
        raise InputError(f"intermediate-bound record at {at!r} is not a {what}")
    out = [kind, at[0], at[1]]
    need = _MULT if kind == "at" else _PAIR_MULT
    for bound, mult in (("lo", "lower"), ("hi", "upper")):
        if (bound in rec) != (mult in rec):
            raise InputError(f"an intermediate-bound record's '{bound}' comes with its '{mult}' multipliers")
        if bound in rec:
            m = rec[mult]
            if not isinstance(m, dict) or not need <= set(m) <= need | {"kappa"}:
                raise InputError(f"intermediate-bound multipliers hold {sorted(need)} [, 'kappa']")
            if not all(isinstance(m[k], list) for k in need):
                raise InputError("intermediate-bound multipliers are lists")
            out.append((_num(rec[bound], bound), m))
        else:
            out.append(None)
    return tuple(out)


def _records(net, refs):
    """The parsed records a leaf refers to, by ``(kind, layer, index)`` (indices into the
    certificate's table)."""
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
        if rec[:3] in out:
            raise InputError(f"two intermediate-bound records of {rec[0]} {list(rec[1:3])}")
        out[rec[:3]] = rec
    return out


def _context(net, box, below, l, deltas=None):
    """A small integer naming the box, the intervals of the layers below *l* and (pairs) their
    δ: interned in a table whose keys are those numbers (a dict compares its keys exactly, so
    equal integers mean equal numbers).  Made once per replayed layer, not per record: hashing
    the rationals was most of the check's time (64-32-16-10 digits, 2026-12-02)."""
    key = (tuple(box), tuple(tuple(layer) for layer in below[:l]),
           None if deltas is None else tuple(tuple(layer) for layer in deltas[:l]))
    table = net.setdefault("intermediate_contexts", {})
    return table.setdefault(key, len(table))


def _prove(net, box, below, rec, sign, leaf_value, deltas=None, context=None):
    """Check the record's side *sign* (its multipliers prove ``sign · z_{l,j} <= sign · value``,
    or of ``δ_{l,j}`` for a pair, over the relaxation of the layers *below*, with the pair rows
    of their δ, *deltas*, for a pair); a table record's proof is remembered for the same box,
    the same intervals below and the same δ below (the same numbers: the same proof), named by
    :func:`_context` (*context*: a callable giving it, computed once per layer by the caller)."""
    key = None
    l = rec[1]
    if rec[5] is not None:
        ctx = context() if context is not None else _context(net, box, below, l, deltas)
        key = (rec[5], sign, ctx)
        if key in net.setdefault("intermediate_proved", set()):
            return
    _prove_once(net, box, below, rec, sign, leaf_value, deltas)
    if key is not None:
        net["intermediate_proved"].add(key)


def _prove_once(net, box, below, rec, sign, leaf_value, deltas):
    kind, l, j = rec[0], rec[1], rec[2]
    what = f"neuron ({l}, {j})" if kind == "at" else f"the δ of pair ({l}, {j})"
    value, mult = rec[3] if sign < 0 else rec[4]
    if (value * 2 ** GRID).q != 1:
        raise _Refuted(f"the intermediate bound {value} of {what} is not a multiple of 2^-{GRID}")
    if len(mult["mu"]) != l:
        raise InputError(f"intermediate-bound multipliers of {what} need mu of {l} layers")
    Ws, bs = net["rows"], net["biases"]
    # the cut network: layers below l and the record's own rows, weighted by exactly ±1
    rows = [j] if kind == "at" else [j, len(Ws[l]) // 2 + j]
    own = [sign] if kind == "at" else [sign, -sign]          # JSON integers, as a leaf's
    c = [Q(v) for v in own]
    leaf = {"bound": 0, "mu": list(mult["mu"]) + [own], "alpha": mult["alpha"], "beta": mult["beta"]}
    for k in ("gamma", "eta", "kappa"):
        if k in mult:
            leaf[k] = mult[k]
    lines = None
    if kind == "pair":
        rows_below = pair_rows(Ws[:l + 1], below[:l], deltas[:l])
        lines = lambda: rows_below  # noqa: E731
    got = leaf_value(Ws[:l] + [[Ws[l][r] for r in rows]], bs[:l] + [[bs[l][r] for r in rows]], box,
                     list(below[:l]) + [[(_Z, _Z)] * len(rows)], c, leaf, lines, net["halfspaces"])
    if isinstance(got, str):
        raise _Refuted(f"intermediate bound of {what}: {got}")
    if got > sign * value:
        side = "upper" if sign > 0 else "lower"
        raise _Refuted(f"the {side} intermediate bound {value} of {what} is not proved "
                       f"by its multipliers (they give {sign * got})")


def _sides(net, box, below, rec, leaf_value, lo, hi, deltas=None, context=None):
    """``(lo, hi)`` intersected with the record's proved sides."""
    if rec[3] is not None:
        _prove(net, box, below, rec, -1, leaf_value, deltas, context)
        lo = max(lo, rec[3][0])
    if rec[4] is not None:
        _prove(net, box, below, rec, 1, leaf_value, deltas, context)
        hi = min(hi, rec[4][0])
    return lo, hi


def _once(make):
    """A callable returning ``make()``, computed on the first call only."""
    got = []

    def value():
        if not got:
            got.append(make())
        return got[0]
    return value


def leaf_intervals(net, box, path, refs, leaf_value):
    """The intervals of a leaf (None: empty) with its neuron records (``"at"``) among *refs*
    proved and applied, or a reason string when a record is not proved.  *leaf_value* is the
    bound of a leaf's multipliers (:func:`semialgebraic.verify.bab_bound._leaf_value`)."""
    recs = {} if not refs else {key[1:]: rec for key, rec in _records(net, refs).items() if key[0] == "at"}
    if not recs:
        return layer_intervals(net["mats"], net["rows"], net["biases"], box, path)

    def adjust(l, cur, below):
        cur = list(cur)
        context = _once(lambda: _context(net, box, below, l))
        for (rl, j), rec in recs.items():
            if rl == l:
                cur[j] = _sides(net, box, below, rec, leaf_value, *cur[j], context=context)
        return cur

    try:
        return layer_intervals(net["mats"], net["rows"], net["biases"], box, path, adjust=adjust)
    except _Refuted as e:
        return str(e)


def leaf_deltas(net, box, ivs, refs, leaf_value):
    """Every layer's δ of a leaf (:func:`semialgebraic.verify.bab_replay.paired_deltas`, symbolic
    with ``"neurodiff"``) with its pair records (``"pair"``) among *refs* proved and applied:
    after layer ``l``'s δ is replayed, each record of layer ``l`` is proved over the relaxation
    of the layers below (the leaf's final intervals *ivs*) with the pair rows of their final δ
    (the rules of :func:`~semialgebraic.verify.bab_replay.pair_rows`), its own rows ``z_{l,j}``
    and ``z_{l,n+j}`` weighted by exactly ``±1`` and ``∓1``, and intersected with the δ (kept
    when that would empty it, as the replay's own intersections).  A reason string when a
    record is not proved."""
    recs = {} if not refs else {key[1:]: rec for key, rec in _records(net, refs).items() if key[0] == "pair"}
    if recs and (not net["neurodiff"] or not net["paired"]):
        raise InputError("pair records need the 'neurodiff' bounds of a difference of two networks of one shape")

    def adjust(l, delta, below):
        delta = list(delta)
        context = _once(lambda: _context(net, box, ivs, l, below))
        for (rl, j), rec in recs.items():
            if rl == l:
                lo, hi = _sides(net, box, ivs, rec, leaf_value, *delta[j], deltas=below, context=context)
                if lo <= hi:
                    delta[j] = (lo, hi)
        return delta

    try:
        return paired_deltas(net["rows"], net["biases"], box, ivs, symbolic=net["neurodiff"],
                             every_layer=True, adjust=adjust if recs else None)
    except _Refuted as e:
        return str(e)
