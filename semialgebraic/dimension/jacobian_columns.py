r"""Exact decisions on Jacobian columns: is a parameter's column non-zero at some input?

For a parameter never exercised by the sampled inputs of
:func:`semialgebraic.dimension.functional_dimension` (three-layer-fibers R22 FIBDIM, generalised
to depth L), an exact depth-first search over activation phases (exact strict LPs,
:func:`phase_search`) either finds an exact input where its Jacobian column δ·h is non-zero
(added to the rows) or proves that no differentiable input does (Motzkin multipliers of every
refuted partial pattern, or δ = 0 at a full pattern), re-checked by :func:`check_exercise_proof`
(the independent checker :mod:`semialgebraic.verify.exercise`, through
:func:`semialgebraic.verify.verify`); the unit vector then joins the upper bound.  Once every
positive-weight input of a target neuron is decided, the affine upper bound Σ_{on} w_k z_k + b of
its pre-activation must be positive too: that row prunes the tree (recorded, re-derived by the
checker).  :func:`incoming_directions` enumerates the regions of a neuron's active set the same
way: the kernel directions on its incoming parameters (its inputs span a proper subspace there)
join the upper bound and the region points the rows.  Complete but exponential, hence budgeted
(*max_lps*, *deadline*).

A branch of the tree on which a branched neuron's affine form is identically zero says nothing
about the inputs there (both strict signs are infeasible for a reason that is no geometry, and
differentiable inputs may lie there: :func:`algebra.kernel.differentiability.vanishing_on_path`).
The search skips such a branch and then answers *undecided* unless it finds a witness elsewhere,
so no decision rests on it.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

from algebra.kernel import (domain_from_json, domain_json, domain_rows, exercise_spec, is_delta_zero,
                            is_zero_neuron, parameter_offsets)
from algebra.kernel.differentiability import layer_forms, vanishing_on_path
from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q

from ..sets import normalize_domain
from ..lp import feasible
from ..certificates import exercise_certificate
from ..verify import verify

__all__ = ["Exercise", "exercise", "check_exercise_proof", "incoming_directions", "phase_search",
           "layer_map", "active_span_perp"]


@dataclass(frozen=True)
class Exercise:
    """Result of :func:`exercise`.  ``exercised``: True (``witness``: an exact input, every
    pre-activation non-zero, where ∂f/∂θ_p != 0), False (``proof``: the column of the Jacobian is
    zero at every differentiable input; re-checked by :func:`check_exercise_proof`) or None
    (budget)."""

    parameter: int
    exercised: bool | None
    witness: tuple | None = None
    proof: dict | None = None
    lps: int = 0


def exercise(net: Network, parameter: int, *, domain: Any = None, max_lps: int = 2000,
             deadline: float | None = None, record: bool = True) -> Exercise:
    """Decide exactly whether parameter *parameter* (flat index) is exercised somewhere.

    ∂f_o/∂W_l[i,k] = δ_l[i] h_{l-1}[k] and ∂f_o/∂b_l[i] = δ_l[i], with δ constant on each
    linear region (δ_{L} = e_o, δ_l = D_l W_{l+1}ᵀ δ_{l+1}).  So W_l[i,k] is exercised iff some
    region of the domain has neuron (l-1, k) active and δ_l[i] != 0 (for l = 1: δ_1[i] != 0, the
    input coordinate being non-zero on an open set); b_l[i] iff δ_l[i] != 0 somewhere.  Decided by
    a depth-first search over activation phases (layer order, the fixed target signs first), each
    partial pattern checked by an exact strict LP: a feasible full pattern with δ_l[i] != 0 gives
    an exact witness; otherwise every branch is refuted by a Motzkin certificate or, at a full
    pattern, by δ_l[i] = 0 -- the proof lists them (:func:`check_exercise_proof`).

    Examples
    --------
    >>> net = Network.from_rows([[[1], [-1]], [[-1, 1], [1, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    >>> e = exercise(net, net.parameter_names().index("W2[0,0]"))
    >>> e.exercised, check_exercise_proof(net, e.proof)
    (False, True)
    >>> exercise(net, net.parameter_names().index("W2[1,0]")).exercised
    True
    """
    dom = normalize_domain(domain, net.n_inputs)
    spec = exercise_spec(net, parameter)
    targets, delta_of, last, full_last = spec
    if delta_of == "never":
        proof = {"parameter": parameter, "targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
                 "trivial": "zero outgoing weights" if last >= 0 else "identically zero neuron",
                 "order": [], "refuted": []}
        return Exercise(parameter, False, None, proof if record else None, 0)
    found, witness, refuted, order, lps = phase_search(net, dom, targets, delta_of, max_lps=max_lps,
                                                      deadline=deadline, record=record)
    if found is None:
        return Exercise(parameter, None, None, None, lps)
    if found:
        return Exercise(parameter, True, witness, None, lps)
    proof = {"parameter": parameter, "domain": domain_json(dom),
             "targets": [[t, j, s] for (t, j), s in sorted(targets.items())],
             "delta_of": list(delta_of) if delta_of else None,
             "order": [[t, j] for t, j in order], "refuted": refuted}
    return Exercise(parameter, False, None, proof if record else None, lps)


def check_exercise_proof(net: Network, proof: dict, domain: Any = "any") -> bool:
    """Re-check a proof of :func:`exercise` that a parameter is never exercised: the independent
    checker, through :func:`semialgebraic.verify.verify` on a full ``exercise`` certificate.
    With *domain*, the proof must also be about that domain (the claim is always "on the
    proof's domain").  False for a proof whose parameter is not a parameter index of *net*.

    Raises
    ------
    InputError
        If a refutation's multipliers are not exact numbers (a malformed proof).
    """
    dom = domain if domain == "any" else normalize_domain(domain, net.n_inputs)
    if not isinstance(proof, dict):
        return False
    p_ = proof.get("parameter")
    if not isinstance(p_, int) or isinstance(p_, bool) or not 0 <= p_ < net.n_parameters:
        return False
    if dom != "any":
        try:
            if domain_from_json(proof.get("domain"), net.n_inputs) != dom:
                return False
        except (KeyError, TypeError, ValueError, IndexError):
            return False
    return verify(exercise_certificate(net, proof))[0]


def incoming_directions(net: Network, t: int, i: int, *, domain: Any = None, max_lps: int = 2000,
                        deadline: float | None = None):
    """Kernel directions of the Jacobian supported on the incoming parameters (W_t[i, :], b_t[i])
    of hidden neuron (t, i) (0-based layer t >= 1), from an exact enumeration of its active set.

    ∂f/∂W_t[i,k] = δ_t[i] h_{t-1}[k] and ∂f/∂b_t[i] = δ_t[i], with δ_t[i] = 0 where z_t[i] < 0.
    Every region of the layers below t meeting {z_t[i] > 0} is enumerated (exact phase search:
    full patterns of layers < t with z_t[i] > 0, each with an exact interior point); on region P,
    (h_{t-1}(x), 1) = [[M_P, m_P], [0, 1]] (x, 1), so (h_{t-1}, 1) stays in the span V of those
    matrices' columns, and every c ⊥ V gives J(x)·c = δ_t[i](x) c·(h_{t-1}(x), 1) = 0 at every
    differentiable input.  Returns (directions as full parameter vectors, region points) or None
    when the budget ends first.

    >>> net = Network.from_rows([[[1], [-1], [1]], [[1, 0, 1]], [[1]]], [[0, 0, -1], [-3], [0]])
    >>> dirs, pts = incoming_directions(net, 1, 0)
    >>> len(dirs), len(pts)        # only x > 2 activates (2, 0): h1_1 = 0 there, h1_0 - h1_2 = 1
    (2, 1)
    """
    dom = normalize_domain(domain, net.n_inputs)
    if t < 1 or is_zero_neuron(net, t, i):
        return None
    leaves: list = []
    found, _, _, _, _ = phase_search(net, dom, {(t, i): 1}, None, max_lps=max_lps, deadline=deadline,
                                     record=False, upto=t, leaves=leaves)
    if found is None:
        return None
    n_in = net.widths[t]
    offs = parameter_offsets(net)
    W = net.weights[t]
    out = []
    for c in active_span_perp(net, t, [path for path, _ in leaves]):
        v = [Q(0)] * net.n_parameters
        for k in range(n_in):
            v[offs[t] + i * n_in + k] = c[k]
        v[offs[t] + W.nrows * n_in + i] = c[n_in]
        out.append(v)
    return out, [x for _, x in leaves]


def active_span_perp(net: Network, t: int, paths) -> list:
    """Vectors c ⊥ every (h_{t-1}(x), 1) on the regions of the full sign patterns *paths*
    (``[(u, j, ±1), ...]`` over the layers below t): on region P, (h_{t-1}, 1) =
    [[M_P, m_P], [0, 1]] (x, 1), so c is orthogonal to those matrices' columns."""
    d, n_in = net.n_inputs, net.widths[t]
    cols = []
    for path in paths:
        masks: dict = {}
        for u, j, sg in path:
            masks.setdefault(u, {})[j] = 1 if sg > 0 else 0
        M, m = layer_map(net, masks, t - 1)
        for c in range(d):
            cols.append([M[q, c] for q in range(n_in)] + [Q(0)])
        cols.append(list(m) + [Q(1)])
    if not cols:
        return QMatrix.identity(n_in + 1).to_rows()
    return QMatrix.from_rows(cols, ncols=n_in + 1).nullspace().to_rows()


def layer_map(net: Network, masks: dict, t: int) -> tuple:
    """(M, m) with h_t = M x + m on the region of the 0/1 *masks* of layers 0..t
    (``masks[u][j]``; a missing entry means inactive)."""
    on = {u: {j for j, v in layer.items() if v} for u, layer in masks.items()}
    Z, zc = layer_forms(net, t, on)
    act = on.get(t, set())
    zero = tuple([Q(0)] * net.n_inputs)
    M = QMatrix.from_rows([Z.row_at(q) if q in act else zero for q in range(Z.nrows)], ncols=net.n_inputs)
    return M, [zc[q] if q in act else Q(0) for q in range(Z.nrows)]


def phase_search(net: Network, dom, targets: dict, delta_of=None, *, max_lps: int, deadline: float | None,
                 record: bool, upto: int | None = None, leaves: list | None = None,
                 skip_vanishing: bool = True) -> tuple:
    """Depth-first search over the activation phases of every hidden neuron (layer order, the
    targets first in their layer; a leaf is a full activation pattern, so a witness has every
    branched pre-activation non-zero), each partial pattern checked by an exact strict LP.

    Parameters
    ----------
    targets : dict
        ``{(t, j): ±1}``: the fixed signs.
    delta_of : tuple or None
        ``(l, i)``: a leaf counts only where δ_l[i] != 0 (refuted with ``delta_zero`` otherwise).
    record : bool
        Keep the refutations (Motzkin multipliers) of the proof.
    upto : int, optional
        Restrict the order to the layers below *upto* and the targets of layer *upto*.
    leaves : list, optional
        Collect every feasible leaf ``(path, exact point)`` instead of stopping at the first.
    skip_vanishing : bool
        Skip a branch where a branched neuron's affine form is identically zero (the rule of
        :func:`~algebra.kernel.differentiability.vanishing_on_path`) and answer undecided (None)
        unless a witness is found; False keeps the raw search (its proofs are rejected by the
        checker: for tests of the checker only).

    Returns
    -------
    (found, witness, refuted, order, lps)
        *found*: True (an exact witness), False (every branch refuted, or with *leaves* the
        enumeration is complete) or None (budget, or a vanishing branch was skipped).
    """
    return _PhaseSearch(net, dom, targets, delta_of, max_lps, deadline, record, upto, leaves,
                        skip_vanishing).run()


class _Budget(Exception):
    pass


def _bound_spec(net, targets):
    """Bound pruning: for the first target (t, i) with sign +1 and t >= 1, once every neuron k
    of layer t-1 with W_t[i,k] > 0 is decided (they come first in their layer),
    z_t[i] <= Σ_{k decided on} W_t[i,k] z_{t-1,k}(x) + b_t[i] on the node (undecided neurons have
    W_t[i,k] <= 0, decided-off ones contribute 0), so that affine bound must be > 0."""
    pos_t = [(t, i) for (t, i), sg in targets.items() if sg > 0 and t >= 1]
    if not pos_t:
        return None
    t_b, i_b = min(pos_t)
    Wt, bt = net.layer(t_b)
    return (t_b, i_b, {k for k in range(Wt.ncols) if Wt[i_b, k] > 0}, Wt, bt[i_b])


def _search_order(net, targets, upto, bound) -> list:
    """The branched neurons: layer order, the targets first in their layer, then (on the layer
    below the bound's neuron) its positive-weight inputs; zero neurons are never branched."""
    order = []
    for t in range(net.depth - 1 if upto is None else upto + 1):
        js = [j for j in range(net.widths[t + 1]) if not is_zero_neuron(net, t, j)
              and (upto is None or t < upto or (t, j) in targets)]
        first = bound[2] if bound is not None and t == bound[0] - 1 else set()
        order += sorted(((t, j) for j in js), key=lambda tj: (tj not in targets, tj[1] not in first))
    return order


def _dot(a, x):
    return sum((ai * xi for ai, xi in zip(a, x)), Q(0))


class _PhaseSearch:
    """The state of one :func:`phase_search` (the affine forms are kept per layer on the stack,
    as the checker's path rows)."""

    def __init__(self, net, dom, targets, delta_of, max_lps, deadline, record, upto, leaves,
                 skip_vanishing):
        self.net, self.targets, self.delta_of = net, targets, delta_of
        self.max_lps, self.deadline, self.record, self.leaves = max_lps, deadline, record, leaves
        self.skip_vanishing = skip_vanishing
        self.d = net.n_inputs
        self.bound = _bound_spec(net, targets)
        self.order = _search_order(net, targets, upto, self.bound)
        drows = domain_rows(self.d, dom)
        self.A0, self.c0 = [r[:-1] for r in drows], [r[-1] for r in drows]
        self.count, self.refuted = 0, []
        self.vanished = False                  # a vanishing branch was skipped: no proof
        self.cache: dict = {}

    def run(self) -> tuple:
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 4 * len(self.order) + 200))
        try:
            x0, cert = self.lp([])
            if x0 is None:
                if self.record:
                    self.refuted.append({"path": [], "certificate": [str(v) for v in cert["y_lt"]]})
                return False, None, self.refuted, self.order, self.count
            w = self.dfs(0, [], [], x0, -1, None, None, QMatrix.identity(self.d), [Q(0)] * self.d, set())
        except _Budget:
            return None, None, self.refuted, self.order, self.count
        finally:
            sys.setrecursionlimit(old)
        if w is not None:
            return True, tuple(w), self.refuted, self.order, self.count
        return (None if self.vanished else False), None, self.refuted, self.order, self.count

    def lp(self, rows):
        if self.count >= self.max_lps or (self.deadline is not None and time.monotonic() > self.deadline):
            raise _Budget()
        self.count += 1
        allrows = list(zip(self.A0, self.c0)) + rows
        if not allrows:
            return tuple([Q(0)] * self.d), None
        res = feasible(A_lt=[[-v for v in a] for a, _ in allrows], b_lt=[c for _, c in allrows], n=self.d)
        return (res.point, None) if res.feasible else (None, res.certificate)

    def forms(self, t, M, m):
        W, b = self.net.layer(t)
        Z = W @ M
        zc = [sum((W[q, r] * m[r] for r in range(len(m))), Q(0)) + b[q] for q in range(W.nrows)]
        return Z, zc

    def leaf(self, path, x):
        """A full pattern: the witness *x*, or None (δ = 0 there, or collected as a leaf)."""
        if self.delta_of is not None:
            masks: dict = {}
            for tt, j, s in path:
                masks.setdefault(tt, {})[j] = 1 if s > 0 else 0
            if is_delta_zero(self.net, masks, self.delta_of[0], self.delta_of[1]):
                if self.record:
                    self.refuted.append({"path": [list(v) for v in path], "delta_zero": True})
                return None
        if self.leaves is not None:
            self.leaves.append((tuple(path), tuple(x)))
            return None
        return x

    def bound_row(self, tt, j, s, path2, on, Z, zc):
        """The bound row of :func:`_bound_spec` once its inputs are decided on this node, or None."""
        bound = self.bound
        if bound is None or tt != bound[0] - 1:
            return None
        on2 = on | {j} if s > 0 else on
        if not bound[2] <= {jj for (t3, jj, _) in path2 if t3 == tt}:
            return None
        Wt, i_b = bound[3], bound[1]
        coef = [sum((Wt[i_b, k] * Z[k, c] for k in on2), Q(0)) for c in range(self.d)]
        return tuple(coef), sum((Wt[i_b, k] * zc[k] for k in on2), Q(0)) + bound[4]

    def dfs(self, pos, path, rows, x, t, Z, zc, M, m, on):
        if pos == len(self.order):
            return self.leaf(path, x)
        tt, j = self.order[pos]
        while t < tt:                                 # layer t complete: advance the affine map
            if t >= 0:                                # (layers without branched neurons: all off)
                W = self.net.weights[t]
                M = QMatrix.from_rows([Z.row_at(q) if q in on else tuple([Q(0)] * self.d)
                                       for q in range(W.nrows)], ncols=self.d)
                m = [zc[q] if q in on else Q(0) for q in range(W.nrows)]
            t += 1
            Z, zc = self.forms(t, M, m)
            on = set()
        a = Z.row_at(j)
        if (self.skip_vanishing and zc[j] == 0 and not any(a)
                and vanishing_on_path(self.net, path + [(tt, j, 1)], self.cache) is not None):
            self.vanished = True                      # the form is 0 here: no fact from this branch
            return None
        val = _dot(a, x) + zc[j]
        signs = [self.targets[(tt, j)]] if (tt, j) in self.targets else [1, -1]
        if val != 0 and len(signs) == 2 and val < 0:
            signs = [-1, 1]                           # the witness's side first
        for s in signs:
            row = (tuple(s * v for v in a), s * zc[j])
            rows2, path2 = rows + [row], path + [(tt, j, s)]
            brow = self.bound_row(tt, j, s, path2, on, Z, zc)
            if val != 0 and (val > 0) == (s > 0) and (brow is None or _dot(brow[0], x) + brow[1] > 0):
                y = x
            else:
                y, cert = self.lp(rows2 + ([brow] if brow is not None else []))
                if y is None:
                    if self.record:
                        self.refuted.append({"path": [list(v) for v in path2],
                                             "certificate": [str(v) for v in cert["y_lt"]]})
                        if brow is not None:
                            self.refuted[-1]["bound"] = True
                    continue
            r = self.dfs(pos + 1, path2, rows2, y, t, Z, zc, M, m, on | {j} if s > 0 else on)
            if r is not None:
                return r
        return None
