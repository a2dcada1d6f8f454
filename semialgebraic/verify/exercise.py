r"""Checker of ``exercise`` certificates: a parameter of a ReLU network is never exercised.

Parameter θ_p is *exercised* at an input x (with no zero pre-activation) when the Jacobian column
∂f/∂θ_p is non-zero there: for ``W_l[i,k]`` that needs ``h_{l-1}[k] > 0``, neuron (l, i) active
and its back-propagated ``δ_l[i] ≠ 0``.  A proof that θ_p is never exercised on a domain (made
by :func:`semialgebraic.dimension.jacobian_columns.exercise`) is a complete prefix tree of activation phases
(layer-ordered) in which every leaf is refuted: by a Motzkin certificate that the strict system
"domain rows, then the phases along the path" is infeasible (each pre-activation is affine in x
once the earlier layers are fixed), optionally with an affine upper bound of a target, or, at a
full pattern, by ``δ_l[i] = 0`` computed from the masks; no refuted path may hold a neuron whose
pre-activation is identically zero under it (:func:`algebra.kernel.differentiability.
vanishing_on_path`: '0 > 0' refutes both its signs while the inputs are there).  Then the unit
vector of θ_p lies in the kernel of every Jacobian row: a proven upper-bound direction of the
functional dimension.

Schema (version 1; built by :func:`semialgebraic.certificates.exercise_certificate`)::

    {"format": "netfibers.certificate", "type": "exercise",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "parameter p is never exercised on the domain",
     "network": <network>,
     "proof": {"parameter": p,                        # flat parameter index (JSON int)
               "domain": null | "orthant" | [lo, hi], # the domain of the claim
               "targets": [[t, j, s], ...],           # neurons whose sign s the parameter needs
               "delta_of": null | [l, i],             # the neuron whose δ must be non-zero
               "order": [[t, j], ...],                # the branching order (layer by layer)
               "refuted": [{"path": [[t, j, s], ...], "certificate": [y, ...],
                            "bound": true (optional)}, ...]}}

or, for a parameter that is trivially never exercised, ``"proof": {"parameter": p,
"trivial": "identically zero neuron" | "zero outgoing weights"}``.  ``targets``, ``delta_of`` and
``order`` must be exactly the ones the parameter needs (recomputed here); the refuted paths
must cover every branch; each refutation's Motzkin multipliers ``certificate`` (exact numbers)
are re-checked.  No other top-level key is accepted.

Imports ``algebra`` only (small independent code; the search lives in
:mod:`semialgebraic.dimension.jacobian_columns`).
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_vector
from algebra.kernel import (domain_from_json, domain_rows, exercise_spec, is_delta_zero, is_zero_neuron,
                            parameter_offsets)
from algebra.kernel.differentiability import vanishing_on_path
from algebra.linalg import QMatrix
from algebra.kernel.certificate_schemas import check_header
from algebra.network import Network
from algebra.rationals import Q

__all__ = ["check", "check_proof", "run_deep"]


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "exercise")
    if "network" not in cert or not isinstance(cert.get("proof"), dict):
        raise InputError("an exercise certificate needs 'network' and a 'proof' object")
    net = network_from_dict(cert["network"], source="certificate[network]")
    p = cert["proof"].get("parameter")
    if not isinstance(p, int) or isinstance(p, bool) or not 0 <= p < net.n_parameters:
        raise InputError("proof.parameter must be a parameter index of the network")
    if check_proof(net, cert["proof"]):
        return True, f"parameter {net.parameter_names()[p]} is never exercised on the proof's domain"
    return False, "the proof does not cover every activation phase or a refutation is invalid"


def check_proof(net: Network, proof: dict, domain="any") -> bool:
    """Re-check a proof of :func:`exercise` that a parameter is never exercised, with small
    independent code: (1) the targets, layers and δ condition are the ones the parameter needs;
    (2) the refuted partial patterns cover every sign assignment of the branching order (a
    complete prefix tree, the target signs fixed); (3) each refutation is valid: a Motzkin
    certificate (y >= 0, not all zero, Σ y_r·(row r) = 0 and Σ y_r·(rhs r) <= 0 for the strict
    system "domain rows, then s·z_t[j](x) > 0 along the path", z affine under the path's earlier
    phases), or, at a full pattern, δ_l[i] = 0 computed from the masks.  With *domain* (None,
    ``"orthant"`` or ``(lo, hi)``), the proof must also be about that domain (the claim is always
    "on the proof's domain")."""
    try:
        p_ = int(proof["parameter"])
        targets, delta_of, last, full_last = exercise_spec(net, p_)
        if delta_of == "never":
            if proof.get("trivial") == "identically zero neuron":
                return any(is_zero_neuron(net, t, j) for t, j in targets)
            W = net.weights[net.depth - 1]
            i = _exercise_target_neuron(net, p_)
            return proof.get("trivial") == "zero outgoing weights" and all(W[o, i] == 0 for o in range(W.nrows))
        if sorted([tuple(v) for v in proof["targets"]]) != sorted((t, j, s) for (t, j), s in targets.items()):
            return False
        if (tuple(proof["delta_of"]) if proof["delta_of"] else None) != delta_of:
            return False
        order = [tuple(v) for v in proof["order"]]
        need = [(t, j) for t in range(net.depth - 1) for j in range(net.widths[t + 1])
                if not is_zero_neuron(net, t, j)]
        if sorted(order) != sorted(need) or len(set(order)) != len(order):
            return False
        dom = domain_from_json(proof.get("domain"), net.n_inputs)
        if isinstance(dom, tuple) and dom[0] == dom[1]:
            return False        # the refuted strict systems live in the open box: empty here
        if domain != "any" and dom != domain:
            return False
        refuted = {tuple(tuple(v) for v in r["path"]): r for r in proof["refuted"]}
    except (KeyError, TypeError, ValueError, IndexError):
        return False

    cache: dict = {}

    def complete(prefix) -> bool:
        if prefix in refuted:
            # a neuron of the path identically zero under it ('0 > 0' refutes both its signs)
            # leaves an open set of inputs, differentiable where the network above does not see
            # it, that the proof says nothing of (the density argument of vanishing_on_path; the
            # session-33 dimension audit: a parameter exercised at every x > 0 was certified
            # 'never exercised')
            if vanishing_on_path(net, prefix, cache) is not None:
                return False
            return _check_refutation(net, dom, prefix, refuted[prefix], delta_of, len(prefix) == len(order),
                                     targets)
        if len(prefix) == len(order):
            return False
        t, j = order[len(prefix)]
        signs = [targets[(t, j)]] if (t, j) in targets else [1, -1]
        return all(complete(prefix + ((t, j, s),)) for s in signs)

    # the order must be layer-monotone (z_t[j] is affine once the layers below are fixed)
    if any(a[0] > b[0] for a, b in zip(order, order[1:])):
        return False
    return run_deep(complete, (), len(order))


def run_deep(fn, arg, depth: int):
    """``fn(arg)`` with the recursion limit raised for a recursion *depth* levels deep."""
    import sys
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 4 * depth + 100))
    try:
        return fn(arg)
    finally:
        sys.setrecursionlimit(old)


def _exercise_target_neuron(net, p_):
    offs = parameter_offsets(net)
    l = max(t for t in range(net.depth) if offs[t] <= p_)
    W = net.weights[l]
    q = p_ - offs[l]
    return q // W.ncols if q < W.nrows * W.ncols else q - W.nrows * W.ncols


def _path_rows(net, path):
    """Rows (a, c) with s·(a·x + c) > 0 for each (t, j, s) of a layer-ordered *path*, and the
    masks of the fully fixed layers (dict t -> {j: 0/1})."""
    d = net.n_inputs
    M, m = QMatrix.identity(d), [Q(0)] * d
    rows, masks = [], {}
    cur, Z, zc = -1, None, None
    for t, j, s in path:
        while cur < t:
            if cur >= 0:                           # advance: layer cur is fully fixed
                on = masks.get(cur, {})
                W = net.weights[cur]
                M = QMatrix.from_rows([Z.row_at(q) if on.get(q) else tuple([Q(0)] * d)
                                       for q in range(W.nrows)], ncols=d)
                m = [zc[q] if on.get(q) else Q(0) for q in range(W.nrows)]
            cur += 1
            W, b = net.layer(cur)
            Z = W @ M
            zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
        a = Z.row_at(j)
        rows.append((tuple(s * v for v in a), s * zc[j]))
        masks.setdefault(t, {})[j] = 1 if s > 0 else 0
    return rows, masks


def _bound_row(net, prefix, targets):
    """The affine upper bound of the first target (t, i) with sign +1 (t >= 1) at a node of
    layer t-1 whose every neuron k with W_t[i,k] > 0 is decided: Σ_{k on} W_t[i,k] z_{t-1,k}(x)
    + b_t[i] (undecided neurons have W_t[i,k] <= 0; h = relu(z) >= 0); None if not applicable."""
    pos_t = [(t, i) for (t, i), sg in targets.items() if sg > 0 and t >= 1]
    if not pos_t or not prefix:
        return None
    t, i = min(pos_t)
    if prefix[-1][0] != t - 1:
        return None
    W, b = net.layer(t)
    decided = {j: s for u, j, s in prefix if u == t - 1}
    if any(W[i, k] > 0 and k not in decided for k in range(W.ncols)):
        return None
    rows, _ = _path_rows(net, prefix)
    coef, const = [Q(0)] * net.n_inputs, b[i]
    for (a, c), (u, j, s) in zip(rows, prefix):
        if u == t - 1 and s > 0:                  # row = s·(a_z, c_z) with s = +1
            coef = [cv + W[i, j] * av for cv, av in zip(coef, a)]
            const += W[i, j] * c
    return tuple(coef), const


def _check_refutation(net, dom, prefix, entry, delta_of, full, targets=None) -> bool:
    if entry.get("delta_zero"):
        if not full or delta_of is None:
            return False
        _, masks = _path_rows(net, prefix)
        return is_delta_zero(net, masks, delta_of[0], delta_of[1])
    y = parse_vector(entry["certificate"], "refuted.certificate")     # (malformed: InputError)
    drows = domain_rows(net.n_inputs, dom)
    A0, c0 = [r[:-1] for r in drows], [r[-1] for r in drows]
    rows, _ = _path_rows(net, prefix)
    allrows = list(zip(A0, c0)) + rows
    if entry.get("bound"):
        b = _bound_row(net, prefix, targets or {})
        if b is None:
            return False
        allrows.append(b)
    if len(y) != len(allrows) or any(v < 0 for v in y) or all(v == 0 for v in y):
        return False
    d = net.n_inputs
    # the strict system is  -a·x < c  for each row (a, c);  Σ y (-a) = 0 and Σ y c <= 0 refute it
    if any(sum((yr * a[k] for yr, (a, _) in zip(y, allrows)), Q(0)) != 0 for k in range(d)):
        return False
    return sum((yr * c for yr, (_, c) in zip(y, allrows)), Q(0)) <= 0

