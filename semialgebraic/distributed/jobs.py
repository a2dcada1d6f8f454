"""The questions of a batch, one pure function per item (what a Dask task runs on a worker).

Every function here takes plain data only — an *item* of :mod:`.manifest` (file paths), the
optional bytes of its files (scattered by the client), a timeout — loads the networks itself
through the public loaders and calls the public API of :mod:`semialgebraic`; it returns a
JSON-able record.  No Python object of the project crosses a process boundary, so a task is a
pure function of its inputs and Dask may rerun it on another worker after a worker is lost.

Records: ``{"id", "job", "status": "ok" | "undecided" | "error", "verdict", "time", ...}`` plus
the certificate as a dict under ``"certificate"`` (the client writes it to a file and keeps the
path).  A bad file or an exhausted budget is a record with ``"error"``, never an exception.

Deduplication (``dedup``) runs :func:`dedup_chunk` on chunks of consecutive files (each file
parsed once: the exact values at fixed rational points, a function invariant, and the classes
of the files of the chunk with equal values, decided by :func:`classify_bucket` on the networks
already loaded: merges found on the integer arrays, then the fast path's fingerprint — one
hidden layer, or CANON of a generic reduced bottleneck — then certified pairwise
:func:`~semialgebraic.equivalent`); :func:`classify_bucket` runs again only for a group of
equal values that spans several chunks.  :func:`dedup_key` is the per-file key alone.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

from algebra import load
from algebra.exceptions import AlgebraError, InputError
from algebra.io.domain_text import domain_from_data, parse_domain_text, read_domain_data
from algebra.kernel import box_input_map, compose_input_map, compose_slice_map
from algebra.kernel.domains import Domain
from algebra.io.nnet import nnet_common_units, nnet_normalisation, nnet_raw
from algebra.io.blocks import load_block
from algebra.array_replay import array_view, exact_row_dot
from algebra.network import Network
from algebra.rationals import Q, to_q
from algebra.conservation import conservation_laws, samples_from_patterns

from ..budget import Budget, BudgetExhausted, ConversionRefused, checkpoint, conversions_until
from ..exceptions import SemialgebraicError
from ..bab import diff_bounds, epsilon_equivalent
from ..deep import identifiability
from ..dimension import functional_dimension
from ..absorption import absorbable
from ..verdict import Verdict
from ..equivalence import equal_first, equivalent
from ..regions import regions
from ..shallow import canonical_form as shallow_canonical_form
from ..shallow.paths import symmetry_path as shallow_symmetry_path
from ..certificates import jsonable, require_valid
from ..certificates._json import pack_certificate
from ..verify import verify
from .merge import (array_merge_certificate, bottleneck_canon, bottleneck_merge_certificate,
                    fingerprint_shallow, reduce_view)

__all__ = ["JOBS", "PAIR_JOBS", "DOMAIN_JOBS", "DOMAIN_KEYS", "run_item", "item_domain_spec",
           "dedup_key", "dedup_chunk", "classify_bucket", "load_item", "certificate_stem",
           "certificate_files"]

PAIR_JOBS = ("equiv", "diff")
DOMAIN_JOBS = ("equiv", "dim", "diff")
"""The jobs that take a domain, as their single commands do: ``equiv`` (R^d, the orthant, a
box; ``epsilon``: any domain), ``dim`` (R^d, the orthant, a box or a ball), ``diff`` (any)."""
DOMAIN_KEYS = ("box", "ball", "orthant", "epsilon")
"""The domain of an item: its own columns, else the command-line ``--box/--ball/--orthant/--epsilon``."""
WORDS = {True: "equivalent", False: "not equivalent", None: "undecided"}


def load_item(item: dict, blobs=None, *, block: bool = False) -> list:
    """The objects of *item*: loaded from its paths, or from *blobs* (the files' bytes, scattered
    by the client) written to a temporary file with the same suffix."""
    out = []
    for k, path in enumerate(item["paths"]):
        if blobs is not None and blobs[k] is not None:
            with tempfile.TemporaryDirectory() as tmp:
                local = Path(tmp) / Path(path).name
                local.write_bytes(blobs[k])
                out.append(_load(str(local), block, path, cache=False))
        else:
            out.append(_load(path, block, path))
    return out


_CACHE: "OrderedDict[tuple, Network]" = OrderedDict()
CACHE_PARAMETERS = 20_000_000
"""Parameters of the networks a process keeps loaded (least recently used dropped first): a
dedup reads each file in its key task and again in its class task, often on the same worker."""


def _cached_load(path: str) -> Network:
    """``load(path)``, memoised per process by ``(path, size, mtime)`` (an immutable network;
    a file changed on disk is read again)."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_size, st.st_mtime_ns)
    net = _CACHE.get(key)
    if net is not None:
        _CACHE.move_to_end(key)
        return net
    net = load(path)
    if isinstance(net, Network):
        _CACHE[key] = net
        total = sum(n.n_parameters for n in _CACHE.values())
        while total > CACHE_PARAMETERS and len(_CACHE) > 1:
            total -= _CACHE.popitem(last=False)[1].n_parameters
    return net


def _load(path: str, block: bool, shown: str, cache: bool = True):
    try:
        obj = load_block(path) if block else _cached_load(path) if cache else load(path)
    except AlgebraError as exc:
        msg = str(exc).replace(path, shown)
        raise type(exc)(msg if shown in msg else f"{shown}: {msg}") from None
    if not block and not isinstance(obj, Network):
        raise SemialgebraicError(f"{shown}: expected a network, got a {type(obj).__name__}")
    return obj


def _verdict(v) -> dict:
    return {"status": "ok" if v.answer is not None else "undecided", "verdict": WORDS[v.answer],
            "answer": v.answer, "method": v.method, "reason": v.reason,
            "certificate": v.certificate}


def _pair(item, blobs) -> tuple:
    """The two networks of a pair job, in common units: two ``.nnet`` files that normalise
    differently are compared as the maps they define in the first one's normalised units
    (:func:`algebra.io.nnet.nnet_common_units`, as ``netfibers equiv``/``diff`` do; their raw
    weight networks act on different inputs)."""
    a, b = load_item(item, blobs)
    try:
        a, b, _ = nnet_common_units(a, b)
    except InputError as exc:
        raise SemialgebraicError(f"{item['paths'][0]} and {item['paths'][1]} {exc}") from None
    return a, b


def item_domain_spec(item: dict, defaults: dict | None = None) -> dict:
    """The domain *item* asks for, as text (the grammar of :mod:`algebra.io.domain_text`): the
    item's own ``box``/``ball``/``orthant`` columns when it has one, else the command-line
    defaults; its ``epsilon`` column, else ``--epsilon``.  Only the keys given ({} is R^d)."""
    defaults = defaults or {}
    own = {k: item[k] for k in ("box", "ball", "orthant") if _given(k, item.get(k))}
    spec = own or {k: defaults[k] for k in ("box", "ball", "orthant") if _given(k, defaults.get(k))}
    eps = item.get("epsilon") if item.get("epsilon") not in (None, "") else defaults.get("epsilon")
    if eps not in (None, ""):
        spec["epsilon"] = eps
    return spec


def _given(key: str, value) -> bool:
    """Whether the domain column *key* holds a value (an empty cell is none, and so is an
    ``orthant`` of false, no or 0; any other value is read, and refused if malformed)."""
    if value is None or value is False or value == "":
        return False
    return key != "orthant" or str(value).strip().lower() not in ("false", "no", "0")


def _flag(value) -> bool:
    """An ``orthant`` column: true/false, yes/no, 1/0 (a CSV cell is text)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "1"):
        return True
    if text in ("false", "no", "0", ""):
        return False
    raise SemialgebraicError(f"orthant: {value!r} is not true or false")


def _item_domain(item: dict, spec: dict, net: Network) -> Domain:
    """The exact :class:`Domain` of *spec* for the networks' ``n_inputs`` (:func:`parse_domain_text`,
    the grammar of ``--box``; a box file read by the client is in ``item["box_json"]``)."""
    d = net.n_inputs
    box = spec.get("box")
    if box is not None and item.get("box_json") is not None:
        if spec.get("ball") is not None or spec.get("orthant"):
            raise SemialgebraicError("give one domain: box, ball or orthant")
        return domain_from_data(read_domain_data(item["box_json"], "box"), d, str(box), "box")
    return parse_domain_text(d, box=None if box is None else str(box),
                             ball=None if spec.get("ball") is None else str(spec["ball"]),
                             orthant=_flag(spec.get("orthant", False)), net=net,
                             options=("box", "ball", "orthant"))


def parse_epsilon(text, option: str = "epsilon", error=SemialgebraicError) -> Q:
    """The exact ε >= 0 of an item (or of ``--epsilon``); *error* for a bad one."""
    try:
        eps = to_q(str(text).strip())
    except AlgebraError as exc:
        raise error(f"{option}: {exc}") from None
    if eps < 0:
        raise error(f"{option} must be >= 0")
    return eps


ON_BOX_NOTE = ("on the box, decided for a and b read on [-1, 1]^d (x = centre + half-width * u "
               "maps the cube onto the box; three-layer-fibers R36)")


def _equiv(item, blobs, timeout, spec):
    """Exact equality on any domain, as ``netfibers equiv`` decides it (:func:`equivalent` with
    the :class:`Domain`; a box with its own sides read on the cube, three-layer-fibers R36; box
    ∩ half-spaces or open sides by the region walk on it, then by branch and bound); with ``epsilon``, ``max |a - b| <= epsilon`` on any domain, as
    ``netfibers equiv --epsilon`` (:func:`epsilon_equivalent`, a ``bab_bound`` certificate)."""
    a, b = _pair(item, blobs)
    if a.signature != b.signature:
        raise SemialgebraicError(f"{item['paths'][0]} has (inputs, outputs) {a.signature} but "
                                 f"{item['paths'][1]} has {b.signature}")
    dom = _item_domain(item, spec, a)
    if spec.get("epsilon") is not None:
        eps = parse_epsilon(spec["epsilon"])
        start = time.monotonic()
        same = equal_first(a, b, dom, Budget(timeout=timeout))    # as `equiv --epsilon`
        if same is not None:
            return {"status": "ok", "verdict": f"max |a - b| <= {eps}", "answer": True,
                    "lower": "0", "upper": "0", "complete": True, "max_deviation": "0",
                    "method": f"equality ({same.method})", "reason": same.reason,
                    "epsilon": str(eps), "domain": dom.to_json(), "certificate": same.certificate}
        rest = None if timeout is None else max(0.0, timeout - (time.monotonic() - start))
        answer, r = epsilon_equivalent(a, b, dom, eps, timeout=rest, copies=True)
        word = {True: f"max |a - b| <= {eps}", False: f"max |a - b| > {eps}", None: "undecided"}
        return {**r.to_json(), "status": "ok" if answer is not None else "undecided",
                "verdict": word[answer], "answer": answer, "epsilon": str(eps),
                "domain": dom.to_json(), "certificate": r.certificate}
    # a ball is its box; half-spaces or open sides: the region walk on the domain, then branch
    # and bound (equivalence.dispatch._on_cut), as `netfibers equiv`
    v = equivalent(a, b, domain=dom, timeout=timeout, progress=False)
    rec = _verdict(v)
    rec["domain"] = dom.to_json()
    if dom.box is not None and dom.as_cube is None:
        rec["note"] = ON_BOX_NOTE
    for k in ("note", "decided_by", "point", "epsilon"):
        if k in v.details:
            rec[k] = v.details[k]
    return rec


def _identify(item, blobs, timeout, box):
    (net,) = load_item(item, blobs)
    budget = Budget(timeout=timeout)    # the item's budget (session-34 audit: it was not passed)
    try:
        with budget.active():           # R41/R42, a generic bottleneck (R18), planted copies
            v = identifiability(net, budget=budget)
    except BudgetExhausted as exc:
        return {"status": "undecided", "verdict": WORDS[None], "answer": None, "method": "identify",
                "reason": f"undecided: {exc or budget.reason}", "certificate": None}
    rec = _verdict(v)
    rec["verdict"] = {True: "identifiable", False: "not identifiable", None: "undecided"}[v.answer]
    return rec


_ABSORB_WORDS = {True: "absorbable", False: "not absorbable", None: "undecided"}


def _absorb(item, blobs, timeout, box):
    """A block file (netfibers.block JSON) decided whole; a weight file (a checkpoint) with the
    item's ``activation`` (its column, else ``batch --activation``): every MLP block in it, as
    ``netfibers absorb FILE --all`` (one shared budget; the record's verdict is absorbable when
    every block is, not absorbable when one is not, else undecided; ``blocks`` lists each
    block's verdict and its certificate, written beside the others)."""
    path = item["paths"][0]
    act = item.get("activation")
    if Path(path).suffix.lower() == ".json":
        (block,) = load_item(item, blobs, block=True)
        v = absorbable(block, timeout=timeout, activation=act or None)   # (a column overrides
        rec = _verdict(v)                                               # the file's, N4)
        rec["verdict"] = _ABSORB_WORDS[v.answer]
        if act:
            rec["activation"] = act
        return rec
    if act in (None, ""):
        raise SemialgebraicError(f"{path}: a weight file does not say its activation: pass "
                                 "batch --activation (e.g. relu, gelu, swiglu) or an activation "
                                 "column")
    if blobs is not None and blobs[0] is not None:
        with tempfile.TemporaryDirectory() as tmp:
            local = Path(tmp) / Path(path).name
            local.write_bytes(blobs[0])
            return _absorb_blocks(str(local), path, str(act), timeout)
    return _absorb_blocks(path, path, str(act), timeout)


def _absorb_blocks(local: str, shown: str, activation: str, timeout) -> dict:
    """The record of every MLP block of the weight file *local* (named *shown*)."""
    from algebra.io.blocks import checkpoint_blocks
    try:
        found = checkpoint_blocks(local, activation)
    except AlgebraError as exc:
        msg = str(exc).replace(local, shown)
        raise type(exc)(msg if shown in msg else f"{shown}: {msg}") from None
    from algebra.io.arrays import int_code_dtypes, int_codes_note
    small = int_code_dtypes(local, [b["prefix"] for b in found])
    budget = Budget(timeout=timeout)
    blocks, certs = [], []
    for b in found:
        if budget.exhausted():
            v = Verdict(None, "absorb", f"undecided: not started: {budget.reason}", ())
        else:
            try:
                block = load_block(local, activation=activation, prefix=b["prefix"])
            except AlgebraError as exc:
                raise type(exc)(str(exc).replace(local, shown)) from None
            v = absorbable(block, budget=budget)
        blocks.append({"prefix": b["prefix"], "verdict": _ABSORB_WORDS[v.answer],
                       "method": v.method, "reason": v.reason})
        certs.append(v.certificate)
    words = [x["verdict"] for x in blocks]
    answer = (False if "not absorbable" in words else True if all(w == "absorbable" for w in words)
              else None)
    reason = (f"{len(blocks)} MLP block{'s' if len(blocks) != 1 else ''} ({activation}): "
              f"{words.count('absorbable')} absorbable, {words.count('not absorbable')} not "
              f"absorbable, {words.count('undecided')} undecided"
              + (f" (stopped: {budget.reason})" if budget.reason else ""))
    rec = {"status": "ok" if answer is not None else "undecided", "verdict": _ABSORB_WORDS[answer],
           "answer": answer, "method": "absorb --all", "reason": reason, "activation": activation,
           "blocks": blocks, "certificate": None,
           "block_certificates": certs}
    if small:                         # (as absorb says it: s44 rerun N6)
        rec["notes"] = [int_codes_note(small, "block")]
    return rec


def _dim(item, blobs, timeout, spec):
    """``functional_dimension`` on R^d, the orthant, a cube, or (as ``netfibers dim``) a box with
    its own sides or a ball: the network read on [-1, 1]^d, the same functional dimension
    (three-layer-fibers R36)."""
    (net,) = load_item(item, blobs)
    if spec.get("epsilon") is not None:
        raise SemialgebraicError("dim takes no epsilon (a question of equiv)")
    dom = _item_domain(item, spec, net)
    note = None
    try:
        legacy = dom.legacy()
    except InputError as exc:
        if dom.halfspaces and None not in dom.lo + dom.hi:
            return _dim_on_cut(net, dom, timeout)
        cs = box_input_map(dom.lo, dom.hi) if not dom.halfspaces else None
        sliced = compose_slice_map(net, dom.lo, dom.hi) if cs is None and not dom.halfspaces else None
        if cs is None and sliced is None:
            raise SemialgebraicError(
                "dim takes R^d, the orthant, a box (a cube or its own sides per coordinate) or a "
                "box cut by half-spaces, not half-spaces with open sides" if dom.halfspaces
                else f"dim: {exc.problem}") from None
        if sliced is not None:           # some sides of width 0: a slice (R36 (b)), as `dim`
            r = functional_dimension(net, domain=dom, timeout=timeout)   # (the API folds and lifts)
            return _dim_record(r, dom, r.details["slice"]["note"])
        net, legacy, note = compose_input_map(net, *cs), (Q(-1), Q(1)), \
            "on the box, computed for the network read on [-1, 1]^d (three-layer-fibers R36)"
    return _dim_record(functional_dimension(net, domain=legacy, timeout=timeout), dom, note)


def _dim_record(r, dom, note) -> dict:
    """The batch record of a ``functional_dimension`` result *r* on *dom* (with *note*); a value
    only when *r* is exact (bounds met at a generic θ, as ``netfibers dim``)."""
    exact = r.exact
    rec = {"status": "ok" if exact else "undecided",
           "verdict": r.lower if exact else f"{r.lower}..{r.upper}", "lower": r.lower,
           "upper": r.upper, "n_parameters": r.n_parameters, "reason": r.reason,
           "domain": dom.to_json()}
    if note:
        rec["note"] = note
    return rec


def _dim_on_cut(net, dom, timeout) -> dict:
    """``dim`` on a box cut by half-spaces, as ``netfibers dim``: between the rank at inputs of
    the cut and the value on the box (three-layer-fibers R37)."""
    from ..dimension.sandwich import functional_dimension_on_cut
    r = functional_dimension_on_cut(net, dom.lo, dom.hi, list(dom.halfspaces), timeout=timeout)
    if r.inner is None:
        raise SemialgebraicError("dim: the box cut by the half-spaces has no interior")
    return {"status": "ok" if r.exact else "undecided",
            "verdict": r.lower if r.exact else f"{r.lower}..{r.upper}", "lower": r.lower,
            "upper": r.upper, "n_parameters": r.n_parameters, "reason": r.reason,
            "domain": dom.to_json(),
            "note": "between the rank at inputs of the cut and the value on the box around it "
                    "(three-layer-fibers R37)"}


def _conserved(item, blobs, timeout, box):
    (net,) = load_item(item, blobs)
    total = Budget(timeout=timeout)
    # as `netfibers conserved`: the walk gets 0.7 of the timeout, the fields and laws the rest
    # (with all of it, an item's laws ran past its timeout)
    budget = Budget(timeout=None if timeout is None else 0.7 * timeout)
    walk = regions(net, budget=budget)
    patterns = walk.patterns()
    complete = bool(getattr(walk, "complete", not budget.exhausted()))
    try:                             # (a layer too large for the time left: "out of memory"
        with conversions_until(total.remaining()):     # after 43 s on a file declaring 10^8
            res = conservation_laws(net, samples_from_patterns(patterns),   # weights, s49 F11)
                                    timeout=total.remaining(), complete=complete)
    except ConversionRefused as exc:   # the guard's stop, never a Ctrl-C: this item undecided
        n = net.n_parameters
        return {"status": "undecided", "verdict": f"0..{n}", "lower": 0, "upper": n,
                "regions": len(patterns), "complete": False, "reason": str(exc)}
    ok = res.exact and complete
    return {"status": "ok" if ok else "undecided",
            "verdict": res.number_of_laws if ok else f"{res.lower}..{res.upper}",
            "lower": res.lower, "upper": res.upper, "regions": len(patterns), "complete": complete}


def _diff(item, blobs, timeout, spec):
    """A certified interval on ``max |a - b|`` over any domain ``netfibers diff`` takes (R^d by
    default: the exact boundedness test first, :func:`diff_bounds`)."""
    a, b = _pair(item, blobs)
    if a.signature != b.signature:
        raise SemialgebraicError(f"{item['paths'][0]} has (inputs, outputs) {a.signature} but "
                                 f"{item['paths'][1]} has {b.signature}")
    if spec.get("epsilon") is not None:
        raise SemialgebraicError("diff takes no epsilon (batch equiv with an epsilon decides "
                                 "max |a - b| <= epsilon)")
    dom = _item_domain(item, spec, a)
    r = diff_bounds(a, b, dom, timeout=timeout, copies=True)
    data = r.to_json()
    if r.complete:
        verdict = f"max |a - b| = {data['lower']}"
    else:
        verdict = f"{data['lower']} <= max |a - b| <= {data['upper'] or '?'}"
    return {**data, "status": "ok" if r.complete else "undecided", "verdict": verdict,
            "domain": dom.to_json(), "certificate": r.certificate}


JOBS = {"equiv": _equiv, "diff": _diff, "dim": _dim, "identify": _identify, "absorb": _absorb,
        "conserved": _conserved}


def _guard(fn, item) -> dict:
    t0 = time.perf_counter()
    try:
        rec = fn()
    except (AlgebraError, SemialgebraicError, OSError, ValueError) as exc:
        rec = {"status": "error", "error": str(exc) or type(exc).__name__}
    except MemoryError:
        rec = {"status": "error", "error": "out of memory"}
    except OverflowError as exc:        # an exact number beyond float64's range met a float-guided
        rec = {"status": "error", "error": f"a number beyond float64's range (about 1e±308) "  # step
               f"reached a float-guided step ({exc}): rescale the network or the domain"}
    except Exception as exc:            # noqa: BLE001 — a bug on one item must not lose the run
        rec = {"status": "error", "error": f"internal error ({type(exc).__name__}: {exc}); "
                                            "please report it"}
    rec["id"] = item["id"]
    rec["time"] = round(time.perf_counter() - t0, 4)
    return rec


def run_item(job: str, item: dict, timeout: float | None = None, defaults=None,
             blobs=None) -> dict:
    """The record of one item of *job* (module docstring); never raises for a bad item.

    *defaults*: the command-line domain ``{"box", "ball", "orthant", "epsilon"}`` of items
    without their own columns (a string: the ``box`` alone).  A record of a domain job states
    the domain asked (``"asked"``: the text given, {} for R^d) and, once read, the exact
    ``"domain"`` (:meth:`Domain.to_json`); a domain that does not fit the job is an error
    record, never an answer about another domain."""
    if isinstance(defaults, str):
        defaults = {"box": defaults}
    spec = item_domain_spec(item, defaults)

    def one():
        if job not in DOMAIN_JOBS and spec:
            raise SemialgebraicError(f"batch {job} takes no domain ({', '.join(sorted(spec))} "
                                     "given; only equiv, dim and diff do)")
        return JOBS[job](item, blobs, timeout, spec)
    rec = _guard(one, item)
    rec["job"] = job
    if job in DOMAIN_JOBS:
        rec["asked"] = spec
    return rec


def _shallow_merge(rep: dict, net: Network):
    """The ``symmetry_path`` certificate carrying the representative ``rep["net"]`` to *net*
    (one hidden layer, equal fingerprints), built from the two canonical forms (each computed
    once per network and cached on the representative) and accepted by the independent checker
    (:func:`verify`, as :func:`equivalent` would); None when no path is built or the checker
    refuses it (then :func:`equivalent` decides the pair)."""
    try:
        if rep.get("form") is None:
            rep["form"] = shallow_canonical_form(rep["net"])
        cf = shallow_canonical_form(net)
        if cf != rep["form"]:                   # a fingerprint collision: the general route decides
            return None
        cert = shallow_symmetry_path(rep["net"], net, forms=(rep["form"], cf))
        checkpoint()                            # (the check is not interruptible)
        return require_valid(jsonable(cert, keep_networks=True), verify, "dedup merge")
    except (SemialgebraicError, AlgebraError, ValueError):
        return None


def _bottleneck_merge(rep: dict, mine: dict):
    """The certificate of :func:`.merge.bottleneck_merge_certificate` for two holders with equal
    CANON fingerprints, accepted by :func:`verify`; None when none is built or it is refused
    (then :func:`equivalent` decides the pair)."""
    for h in (rep, mine):
        if "canon" not in h:
            h["canon"] = bottleneck_canon(h["net"], _reduced(h))
    if rep["canon"] is None or mine["canon"] is None:
        return None
    try:
        cert = bottleneck_merge_certificate(rep["net"], mine["net"], (rep["canon"], mine["canon"]),
                                            (_reduced(rep), _reduced(mine)))
        return None if cert is None else require_valid(cert, verify, "dedup merge")
    except (SemialgebraicError, AlgebraError, ValueError, ZeroDivisionError):
        return None


# -- dedup -----------------------------------------------------------------------------------
PROBE_DEN = 64
DEDUP_SIDECAR = 1000
"""Merge certificates put networks with at least this many weights in the binary sidecar (a
zoo's networks are written once per merge: JSON numbers would dominate the run)."""


@functools.lru_cache(maxsize=64)
def _probe_points(d: int, n: int = 3) -> list:
    """*n* fixed points of Q^d with small generic-looking coordinates ``X / 64`` (seeded; one
    denominator, so the first layer is evaluated on the integer arrays)."""
    rng = random.Random(1729 + d)
    return [[Q(rng.randint(-997, 997), PROBE_DEN) for _ in range(d)] for _ in range(n)]


def exact_outputs(net: Network, view=None) -> list:
    """The exact outputs of *net* at :func:`_probe_points`: the first layer on the integer
    arrays (``N X`` summed exactly, :func:`algebra.array_replay.exact_row_dot`) when *view*
    (its :func:`~algebra.array_replay.array_view`) is given and the layer is wide, the rest
    with exact rationals."""
    out = []
    wide = view is not None and view.layers[0].r is None and view.layers[0].c is None \
        and view.layers[0].N.size >= 4096
    for x in _probe_points(net.n_inputs):
        if not wide:
            out.append(tuple(net.evaluate(x)))
            continue
        X = [int(v * PROBE_DEN) for v in x]
        L = view.layers[0]
        pos = exact_row_dot(L.N, [max(v, 0) for v in X])
        neg = exact_row_dot(L.N, [max(-v, 0) for v in X])
        h = [Q(p - q, L.D * PROBE_DEN) + b for p, q, b in zip(pos, neg, net.biases[0])]
        for l in range(1, net.depth):
            h = [max(v, Q(0)) for v in h]
            W, c = net.layer(l)
            h = [y + z for y, z in zip(W.apply(h), c)]
        out.append(tuple(h))
    return out


def _fingerprint(net: Network, view, red=None, holder=None) -> tuple[str, str]:
    """The fast-path family and its fingerprint (an exact function invariant: different
    fingerprints of one family prove different functions), or ``("general", "")``: one hidden
    layer, the kink fingerprint (:func:`.merge.fingerprint_shallow`); two hidden layers, CANON
    of the reduced network when it is generic (:func:`.merge.bottleneck_canon`, kept in
    *holder* for the merge).  The family is the fingerprint's prefix."""
    if len(net.hidden_widths) == 1:
        fp = fingerprint_shallow(view) if red is None else fingerprint_shallow(view, red)
        if fp is not None:
            return "shallow", "shallow:" + fp
    if len(net.hidden_widths) == 2:
        canon = bottleneck_canon(net, red)
        if holder is not None:
            holder["canon"] = canon
        if canon is not None:
            return "bottleneck", "bottleneck:" + canon[0]
    return "general", ""


def _prepared(item: dict, blobs=None) -> dict:
    """``{"net", "view"}`` of a one-network *item*: loaded once, with its integer array view.  A
    ``.nnet`` file of a zoo whose files normalise differently is its map on raw inputs and raw
    outputs (:func:`algebra.io.nnet.nnet_raw`, its normalisation composed in exactly): their raw
    weight networks act on different coordinates (the session-38 tools audit: one weight set
    with two normalisations was put in one class, with a certificate about the weights)."""
    (net,) = load_item(item, blobs)
    if item.get("nnet") == "map" and nnet_normalisation(net) is not None:
        net = nnet_raw(net)                 # (chosen per run: batch._nnet_maps)
    return {"net": net, "view": array_view(net, convert=net.n_parameters < 100_000)}


def _values(held: dict) -> str:
    """A hash of the signature and of the exact outputs at the fixed probe points."""
    net = held["net"]
    h = hashlib.sha256(repr(net.signature).encode())
    for ys in exact_outputs(net, held["view"]):
        h.update(",".join(str(y) for y in ys).encode() + b";")
    return h.hexdigest()[:32]


def dedup_key(item: dict, blobs=None) -> dict:
    """``{"id", "status", "values", "family", "fingerprint"}`` of one file: ``values`` is a hash of
    the exact outputs at fixed points (equal functions have equal values, so files with
    different values are certainly in different classes); ``fingerprint`` the fast path's."""
    def key():
        held = _prepared(item, blobs)
        family, fp = _fingerprint(held["net"], held["view"])
        return {"status": "ok", "values": _values(held), "family": family, "fingerprint": fp}
    return _guard(key, item)


def dedup_chunk(items: list, timeout: float | None = None, blobs=None) -> dict:
    """Both phases of a dedup on a chunk of items, each file parsed once: ``{"keys": {id:
    {"status", "values", "time"}}, "local": {values: classify_bucket records}}`` — the values of
    every item, and the classes of each group of items of this chunk with equal values,
    decided by :func:`classify_bucket` on the networks already loaded.  The client keeps a
    group's records when no other chunk has items with the same values (else it decides that
    bucket again, :func:`classify_bucket` with the first chunk's classes as seeds); the fast
    path's fingerprint is computed only when a pair is not merged on the arrays."""
    held: dict = {}

    def key(it):
        held[it["id"]] = _prepared(it, None if blobs is None else blobs.get(it["id"]))
        return {"status": "ok", "values": _values(held[it["id"]])}
    keys = {it["id"]: _guard(lambda it=it: key(it), it) for it in items}
    groups: dict = {}
    for it in items:
        if keys[it["id"]]["status"] == "ok":
            groups.setdefault(keys[it["id"]]["values"], []).append(it)
    local = {v: classify_bucket(members, timeout, held=held) for v, members in groups.items()}
    return {"keys": keys, "local": local}


def _reduced(holder: dict):
    """The :func:`.merge.reduce_view` of ``holder["view"]``, computed once per network."""
    if "reduced" not in holder:
        holder["reduced"] = None if holder["view"] is None else reduce_view(holder["view"])
    return holder["reduced"]


def _fp(holder: dict) -> str:
    """The fast path's fingerprint of ``holder["net"]`` ("" for none), computed once, lazily."""
    if holder.get("fingerprint") is None:
        holder["fingerprint"] = _fingerprint(holder["net"], holder["view"], _reduced(holder), holder)[1]
    return holder["fingerprint"]


def _merge(rep: dict, mine: dict, timeout):
    """``(answer, certificate)`` for the representative *rep* and *mine* (``{"net", "view"}``
    holders): a path found on the integer arrays (:func:`.merge.array_merge_certificate`); then
    different fast-path fingerprints prove different functions (no pairwise work); then the
    canonical paths of one hidden layer, then :func:`equivalent`; every certificate accepted
    only after :func:`verify`.  All of it under one budget of *timeout* seconds (the symmetry
    path of a 768-3072-768 pair took 39 s at --timeout 5): ``(None, None)`` when it runs out."""
    budget = Budget(timeout=timeout)
    try:
        with budget.active():
            return _merge_within(rep, mine, budget)
    except BudgetExhausted:
        return None, None


def _merge_within(rep: dict, mine: dict, budget: Budget):
    net = mine["net"]
    try:
        cert = array_merge_certificate(rep["net"], net, (rep["view"], mine["view"]),
                                       (_reduced(rep), _reduced(mine)))
    except (SemialgebraicError, AlgebraError, ValueError):
        cert = None
    if cert is not None:
        try:
            return True, require_valid(cert, verify, "dedup merge")
        except SemialgebraicError:
            pass
    fp_rep, fp = _fp(rep), _fp(mine)
    family = fp.split(":")[0]
    if fp and fp_rep.split(":")[0] == family and fp_rep != fp:
        return False, None                      # one fast path, different invariants
    if fp and fp_rep == fp:
        cert = _shallow_merge(rep, net) if family == "shallow" else _bottleneck_merge(rep, mine)
        if cert is not None:
            return True, cert
    v = equivalent(rep["net"], net, budget=budget, progress=False)
    return v.answer, v.certificate if v.answer else None


def certificate_stem(job: str, ident: str) -> str:
    """The file name (without suffix) of the certificate of item *ident* in ``<out>.certificates/``."""
    return f"{'merge' if job == 'dedup' else job}-{hashlib.sha256(ident.encode()).hexdigest()[:16]}"


def certificate_files(cert: dict, stem: str, threshold: int | None = None) -> dict:
    """``{"$files": [[name, bytes or text], ...]}``: the files of *cert* as
    :func:`~semialgebraic.certificates.write_certificate` lays them out (the binary sidecar
    first, then the JSON naming it with its SHA-256), made where the certificate was built (a
    worker), so the client only writes bytes, in this order."""
    body, data = pack_certificate(cert, threshold)["$packed"]
    files = []
    if data is not None:
        side = stem + ".payload.npz"
        files.append([side, data])
        body = {**body, "sidecar": {"file": side, "sha256": hashlib.sha256(data).hexdigest()}}
    files.append([stem + ".json", json.dumps(body) + "\n"])
    return {"$files": files}


def classify_bucket(members: list, timeout: float | None = None, seeds: list | None = None,
                    blobs=None, held: dict | None = None) -> list:
    """Classes of *members* (items whose values agree, in manifest order), decided against each
    class representative in turn by :func:`_merge`.  *seeds*: classes from an earlier run or
    another chunk, ``(class, representative item, fingerprint or None)``, tried first; *held*:
    ``{id: {"net", "view"}}`` of networks already loaded (:func:`dedup_chunk`).

    Returns one record per member: ``{"id", "class", "representative", "certificate" (the
    :func:`certificate_files` of the merge, or None for a representative), "undecided_with":
    [class, ...], "time"}``; a new class is numbered by its representative's ``index`` (its
    position in the manifest).  Each file is loaded at most once per task."""
    held = {} if held is None else held
    reps = [{"class": c, "item": it, "fingerprint": fp or None, "net": None}
            for c, it, fp in seeds or ()]
    out = []

    def loaded(it):
        if it["id"] not in held:
            held[it["id"]] = _prepared(it, None if blobs is None else blobs.get(it["id"]))
        return held[it["id"]]
    for m in members:
        def place(m=m):
            mine = {**loaded(m)}
            net = mine["net"]
            undecided, cert, found = [], None, None
            for r in reps:
                if r["net"] is None:
                    r.update(loaded(r["item"]))
                if r["net"].signature != net.signature:
                    continue
                answer, cert = _merge(r, mine, timeout)
                if answer is True:
                    found = r
                    break
                if answer is None:
                    undecided.append(r["class"])
            if found is None:
                cert = None
                found = {**mine, "class": m["index"], "item": m}
                reps.append(found)
            if cert is not None:             # plain data (JSON text + sidecar bytes) from here on
                cert = certificate_files(cert, certificate_stem("dedup", m["id"]), DEDUP_SIDECAR)
            return {"status": "ok" if not undecided else "undecided", "class": found["class"],
                    "representative": found["item"]["paths"][0], "certificate": cert,
                    "undecided_with": undecided, "file": m["paths"][0], "job": "dedup"}
        out.append(_guard(place, m))
    return out
