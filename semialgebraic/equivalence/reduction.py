r"""Exact function-preserving reductions of networks and of the difference network a − b.

Steps 2 and 3 of the general equivalence method (:mod:`semialgebraic.equivalence.general`):

* hidden layers that are affine on the domain (every neuron provably always active or dead by
  exact interval bounds) are contracted into the next layer (:func:`contract_affine_layers`);
* the difference network D = a − b (a and b side by side, output W_a − W_b) is reduced by exact
  steps that keep its function: positively parallel neurons are merged, neurons without
  output and provably dead neurons (exact interval bounds over the domain) are zeroed
  (:func:`reduced_difference`); deeper neurons never active at sample points are proved dead
  on the domain by a small walk over the regions of the layers below them (an exact Farkas
  bound per region: ``dead_cover`` steps; on a domain with half-spaces first-layer neurons too,
  whose one "region" is the domain: interval bounds over a box miss the half-spaces' corners).  The steps are the ``contract`` and ``reduction``
  of a ``region_cover`` certificate, replayed by :mod:`semialgebraic.verify.region_cover`.

Also :func:`simplify` (an exactly equivalent network without provably dead, constant,
output-less or parallel hidden neurons) and :func:`preactivation_bounds` (sound exact interval
bounds of every pre-activation over the domain).
"""

from __future__ import annotations

import random
from typing import Any

from algebra.kernel import contract_layer, difference_network, interval_bounds, is_proportional
from algebra.kernel.domains import Domain
from algebra.linalg import QMatrix
from algebra.network import Network, guard_conversion
from algebra.rationals import Q

from .. import lp
from ..budget import Budget, checkpoint
from ..certificates import jsonable
from ..regions import joint_regions
from ..sets import normalize_domain, random_point

__all__ = ["simplify", "preactivation_bounds", "reduced_difference", "contract_affine_layers"]


def simplify(net: Network, *, domain: Any = None) -> tuple[Network, dict]:
    """An exactly equivalent (on *domain*) network without provably dead, constant,
    output-less or parallel hidden neurons, and a report of what was removed.

    Dead: the exact interval of the pre-activation over the domain (intervals propagated layer
    by layer, sound) is <= 0.  Parallel: rows (w, b) that are positive multiples of each other
    (merged, outgoing columns added with the factor).

    Parameters
    ----------
    net : Network
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]} or {"orthant": True}
        R^d (default), the closed orthant, or the box [lo, hi]^d.

    Returns
    -------
    (Network, dict)
        The simplified network and the counts ``{"dead", "constant", "no_output", "merged"}``.

    Raises
    ------
    InputError
        If the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [2], [0]], [[1, 1, 5]]], [[1, 2, -1], [0]])
    >>> s, report = simplify(net)
    >>> s.widths, report["merged"], report["dead"]
    ((1, 1, 1), 1, 1)
    """
    dom = normalize_domain(domain, net.n_inputs, polyhedral=True)
    Ws = [[list(r) for r in w.to_rows()] for w in net.weights]
    bs = [list(b) for b in net.biases]
    report = {"dead": 0, "constant": 0, "no_output": 0, "merged": 0}
    changed = True
    while changed:
        changed = False
        bounds = interval_bounds(Ws, bs, net.n_inputs, dom, check=checkpoint)
        for l in range(len(Ws) - 1):
            drop = []
            for i in range(len(Ws[l])):
                lo, hi = bounds[l][i]
                row = Ws[l][i]
                if hi is not None and hi <= 0:
                    report["dead"] += 1
                    drop.append(i)
                elif all(v == 0 for v in row):
                    c = bs[l][i]
                    for r in range(len(Ws[l + 1])):
                        bs[l + 1][r] += Ws[l + 1][r][i] * c
                    report["constant"] += 1
                    drop.append(i)
                elif all(Ws[l + 1][r][i] == 0 for r in range(len(Ws[l + 1]))):
                    report["no_output"] += 1
                    drop.append(i)
            if not drop:
                seen: list[int] = []
                for i in range(len(Ws[l])):
                    full_i = Ws[l][i] + [bs[l][i]]
                    for j in seen:
                        mu = _positive_multiple(full_i, Ws[l][j] + [bs[l][j]])
                        if mu is not None:
                            for r in range(len(Ws[l + 1])):
                                Ws[l + 1][r][j] += mu * Ws[l + 1][r][i]
                            report["merged"] += 1
                            drop.append(i)
                            break
                    else:
                        seen.append(i)
            if drop:
                keep = [i for i in range(len(Ws[l])) if i not in set(drop)]
                Ws[l] = [Ws[l][i] for i in keep]
                bs[l] = [bs[l][i] for i in keep]
                Ws[l + 1] = [[row[i] for i in keep] for row in Ws[l + 1]]
                changed = True
                break
    return _rebuild(Ws, bs, net.n_inputs), report


def preactivation_bounds(net: Network, *, domain: Any = None) -> list:
    """Sound exact bounds ``(lo, hi)`` (None = unbounded) of every pre-activation over the
    domain, layer by layer (exact interval arithmetic; ReLU outputs in ``[max(lo,0), max(hi,0)]``).

    Parameters
    ----------
    net : Network
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]} or {"orthant": True}
        R^d (default), the closed orthant, or the box [lo, hi]^d.

    Returns
    -------
    list of list of (Q or None, Q or None)
        One list per layer (the output layer included), one ``(lo, hi)`` per neuron.

    Raises
    ------
    InputError
        If the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> [[(str(lo), str(hi)) for lo, hi in layer] for layer in preactivation_bounds(net, domain=(0, 1))]
    [[('0', '1'), ('0', '1')], [('0', '2')]]
    """
    dom = normalize_domain(domain, net.n_inputs, polyhedral=True)
    guard_conversion(net.n_parameters, "the exact interval bounds' rows")   # (17 M: 6 s, s49)
    return interval_bounds([w.to_rows() for w in net.weights], [list(b) for b in net.biases],
                            net.n_inputs, dom, check=checkpoint)


def reduced_difference(a: Network, b: Network, *, domain: Any = None,
                       dead_cover: int = 0, budget: Budget | None = None) -> tuple[Network, list]:
    """The difference network D = a − b (a and b side by side, output W_a − W_b) after exact
    reduction steps (merge positively parallel neurons, zero neurons without output, fold a
    constant neuron — zero row, positive bias c: relu(c) = c — into the next layer's bias, zero
    provably dead neurons), and the steps (the ``reduction`` of a ``region_cover``
    certificate, replayed by :func:`semialgebraic.verify.region_cover.apply_reduction`).

    With ``dead_cover > 0``, neurons of the deeper hidden layers that are never active at
    sample points are then proved dead on the domain by a walk over the regions of the
    network below them (at most *dead_cover* regions per layer; an exact Farkas bound of the
    pre-activation per region), and the reduction starts again (``dead_cover`` steps).

    Parameters
    ----------
    a, b : Network
        Same signature and depth.
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]} or {"orthant": True}
        R^d (default), the closed orthant, or the box [lo, hi]^d.
    dead_cover : int
        Regions per layer of the ``dead_cover`` walks (0: none).
    budget : Budget, optional
        Stops the ``dead_cover`` walks.

    Returns
    -------
    (Network, list of dict)
        The reduced D (same function as a − b on the domain) and the steps in JSON form.

    Raises
    ------
    InputError
        If the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])
    >>> b = Network.from_rows([[[-2], [3]], [["1/2", "1/3"]]], [[0, 0], [0]])
    >>> D, steps = reduced_difference(a, b)
    >>> [st["step"] for st in steps], D.weights[0].is_zero()
    (['merge', 'merge', 'zero', 'zero', 'zero', 'zero'], True)
    """
    dom = normalize_domain(domain, a.n_inputs, polyhedral=True)
    D0 = difference_network(a, b)
    Ws = [w.to_rows() for w in D0.weights]
    bs = [list(v) for v in D0.biases]
    steps: list[dict] = []
    zero = Q(0)

    zeroed = [{i for i in range(len(W)) if not bs[l][i] and not any(W[i])        # (bool: no ordering
               and (l + 1 == len(Ws) or not any(row[i] for row in Ws[l + 1]))}  # tests); a zero
              for l, W in enumerate(Ws)]       # neuron the next layer reads is zeroed as dead

    cache: list = []                   # interval bounds of layers 0 .. len(cache) - 1, current

    def kill(l, i):
        Ws[l][i] = [zero] * len(Ws[l][i])
        bs[l][i] = zero
        zeroed[l].add(i)
        if len(cache) > l:
            cache[l][i] = (zero, zero)             # exact bounds of a zero row
        stale(l + 1)

    def stale(l):                      # layer l's rows changed: its bounds and later are stale
        del cache[l:]

    def bounds_upto(l):
        if len(cache) <= l:
            cache.extend(interval_bounds(Ws[len(cache):l + 1], bs[len(cache):l + 1], a.n_inputs, dom,
                                         start=cache[-1] if cache else None, check=checkpoint))
        return cache

    tried: set = set()                 # dead_cover attempts that failed (not repeated)
    changed = True
    while changed:
        if budget is not None and budget.exhausted():
            break                      # every step so far is exact: a less reduced D is still a - b
        checkpoint()
        changed = False
        for l in range(len(Ws) - 1):
            nxt = Ws[l + 1]
            silent = {j for j in range(len(Ws[l])) if not any(row[j] for row in nxt)}
            first: dict = {}          # rows up to a positive factor -> (first neuron, its scale)
            for j in range(len(Ws[l])):
                if j in zeroed[l] or j in silent:
                    continue
                full = Ws[l][j] + [bs[l][j]]
                sc = next((v for v in full if v), None)
                if sc is None:                     # cancelled to zero by earlier merges: σ(0) = 0;
                    if not any(row[j] for row in nxt):     # a column the next layer reads goes
                        zeroed[l].add(j)           # with a dead step below (else it blocks merges
                    continue                       # there: a planted zero neuron, 2026-12-05)
                sc = abs(sc)
                key = tuple((int(u.p), int(u.q)) for u in (v / sc for v in full))   # (fmpq hashes slowly)
                if key not in first:
                    first[key] = (j, sc)
                    continue
                i, si = first[key]
                mu = sc / si                                  # row_j = mu * row_i, mu > 0
                for row in nxt:
                    row[i] += mu * row[j]
                    row[j] = zero
                stale(l + 1)
                silent.add(j)
                steps.append({"step": "merge", "layer": l, "keep": i, "drop": j, "factor": mu})
                changed = True
            for i in sorted(silent - zeroed[l]):
                steps.append({"step": "zero", "layer": l, "neuron": i})
                kill(l, i)
                changed = True
            for i in range(len(Ws[l])):        # a zero row with a positive bias: the constant
                if i in zeroed[l] or bs[l][i] <= 0 or any(Ws[l][i]):   # relu(c) = c, folded into
                    continue                   # the next layer's bias
                c = bs[l][i]
                for r, row in enumerate(nxt):
                    bs[l + 1][r] += row[i] * c
                    row[i] = zero
                steps.append({"step": "constant", "layer": l, "neuron": i})
                kill(l, i)
                changed = True
            bounds = list(bounds_upto(l)[l])                                      # layers <= l
            for i in range(len(Ws[l])):
                if i in zeroed[l]:
                    continue
                if bounds[i][1] is not None and bounds[i][1] <= 0:
                    steps.append({"step": "dead", "layer": l, "neuron": i})
                    for row in nxt:
                        row[i] = zero
                    kill(l, i)          # (the bounds of layer l's other neurons do not change)
                    stale(l + 1)
                    changed = True
        if not changed and dead_cover:
            # layer 0 too on a polyhedron: interval bounds over its (bounding) box do not see the
            # half-spaces (a first-layer neuron active only beyond one; on a box they are exact)
            for l in range(0 if isinstance(dom, Domain) and dom.halfspaces else 1, len(Ws) - 1):
                st = _dead_cover(Ws, bs, l, zeroed[l], a.n_inputs, dom, dead_cover, budget, tried)
                if st is not None:
                    steps.append(st)
                    for i in st["neurons"]:
                        for row in Ws[l + 1]:
                            row[i] = zero
                        kill(l, i)
                    changed = True
                    break
    return _rebuild_exact(Ws, bs, a.n_inputs), jsonable(steps)


def contract_affine_layers(net: Network, *, domain: Any = None) -> tuple[Network, list[int]]:
    """Remove every hidden layer that is affine on the domain: each of its neurons is provably
    always active (exact interval lower bound >= 0: σ(z) = z) or dead (upper bound <= 0), so
    the layer is composed into the next one (same function on the domain).  Repeated until no
    layer qualifies (a contraction can tighten the bounds of later layers).

    Returns the contracted network and the contracted layer indices in order (each relative
    to the network after the earlier contractions; the ``contract`` steps of a
    ``region_cover`` certificate, checked by
    :func:`semialgebraic.verify.region_cover.apply_contractions`).

    Parameters
    ----------
    net : Network
    domain : None, "orthant", (lo, hi), {"box": [lo, hi]} or {"orthant": True}
        R^d (default), the closed orthant, or the box [lo, hi]^d.

    Returns
    -------
    (Network, list of int)
        The contracted network (*net* itself when no layer qualifies) and the layer indices.

    Raises
    ------
    InputError
        If the domain is unknown.

    Examples
    --------
    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1], [-1, 0]], [[2, 5]]], [[0, 0], [1, 0], [0]])
    >>> c, layers = contract_affine_layers(net)    # layer 2: relu(|x| + 1) active, relu(-relu(x)) dead
    >>> layers, c.widths, [c([v])[0] == net([v])[0] for v in (-3, 0, "5/2")]
    ([1], (1, 2, 1), [True, True, True])
    """
    dom = normalize_domain(domain, net.n_inputs, polyhedral=True)
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(v) for v in net.biases]
    done: list[int] = []
    while len(Ws) > 1:
        bounds = interval_bounds(Ws[:-1], bs[:-1], net.n_inputs, dom, check=checkpoint)   # hidden layers
        for l in range(len(Ws) - 1):
            if all((lo is not None and lo >= 0) or (hi is not None and hi <= 0) for lo, hi in bounds[l]):
                Ws, bs = contract_layer(Ws, bs, l, net.n_inputs, dom, bounds[l])
                done.append(l)
                break
        else:
            break
    if not done:
        return net, done
    return _rebuild_exact(Ws, bs, net.n_inputs), done


# ------------------------------------------------------------------------------------------------
# private
# ------------------------------------------------------------------------------------------------
def _dead_cover(Ws, bs, l, zeroed, d, dom, cap, budget, tried) -> dict | None:
    """A ``dead_cover`` step for the live neurons of hidden layer *l* that are never active at
    sample points and provably dead on the domain, or None.

    The prefix network (hidden layers < l, outputs = the candidates' pre-activations; for
    l = 0 no hidden layer, one region: the domain) is walked (at most *cap* regions); on each region an exact LP either finds a point of the
    closed region where a candidate is positive (it is alive: dropped) or Motzkin multipliers
    that give ``-p = μ_0 + Σ_f μ_f g_f`` with μ >= 0."""
    live = [i for i in range(len(Ws[l])) if i not in zeroed]
    if not live or (budget is not None and budget.exhausted()):
        return None

    def prefix(neurons):
        return Network([QMatrix.from_rows(W, ncols=(len(Ws[t - 1]) if t else d)) for t, W in enumerate(Ws[:l])]
                       + [QMatrix.from_rows([Ws[l][i] for i in neurons], ncols=len(Ws[l - 1]) if l else d)],
                       bs[:l] + [[bs[l][i] for i in neurons]])

    rng = random.Random(l)
    X = QMatrix.from_rows([random_point(rng, d, dom, small=True) for _ in range(64)], ncols=d)
    Z = prefix(live).evaluate_batch(X)
    cands = [i for k, i in enumerate(live) if all(v <= 0 for v in Z.col_at(k))]
    if not cands:
        return None
    P = prefix(cands)
    key = (l, tuple(cands), tuple(map(tuple, P.weights[-1].to_rows())), tuple(P.biases[-1]),
           tuple(tuple(map(tuple, w.to_rows())) for w in P.weights[:-1]))
    if key in tried:
        return None
    tried.add(key)
    state: dict = {}
    regs, bounds = [], []
    alive: set = set()
    local = Budget(timeout=None if budget is None else budget.remaining(),
                   max_regions=cap if budget is None or budget.max_regions is None else min(cap, budget.max_regions))
    for reg in joint_regions((P,), domain=dom, budget=local, state=state, multipliers=True):
        J, c = reg.region.jacobian, reg.region.offset
        F = [reg.inequalities[f] for f in reg.facets]
        bnd = {}
        for k, i in enumerate(cands):
            if i in alive:
                continue
            checkpoint()                        # one LP per candidate and region
            mu = _nonpositive_on_closure(J.row_at(k), c[k], F, d)
            if mu is None:
                alive.add(i)
            else:
                bnd[i] = mu
        if len(alive) == len(cands):
            return None
        regs.append(reg)
        bounds.append(bnd)
    if not state.get("complete"):
        if local.interrupted and budget is not None:
            budget.interrupt()                  # Ctrl-C: the main walk stops at once
        return None
    dead = [i for i in cands if i not in alive]
    regions = []
    for reg, bnd in zip(regs, bounds):
        js = reg.to_json()
        js["bounds"] = {str(i): [bnd[i][0], list(bnd[i][1])] for i in dead}
        regions.append(js)
    return {"step": "dead_cover", "layer": l, "neurons": dead, "regions": regions}


def _nonpositive_on_closure(Jk, ck, F, d):
    """``(μ_0, μ)`` >= 0 with ``-(Jk·x + ck) = μ_0 + Σ_f μ_f g_f(x)`` (g_f the rows *F*), or None
    when ``Jk·x + ck > 0`` somewhere on the closed region {g_f >= 0}."""
    zero = Q(0)
    if all(v == 0 for v in Jk):
        return (-ck, tuple(zero for _ in F)) if ck <= 0 else None
    res = lp.feasible(A_le=[[-v for v in g[:d]] for g in F] or None, b_le=[g[d] for g in F] or None,
                      A_lt=[[-v for v in Jk]], b_lt=[ck], n=d)
    if res.feasible:
        return None
    y_le, y_lt = res.certificate["y_le"], res.certificate["y_lt"]
    if not y_lt or y_lt[0] <= 0:
        return None
    mu = tuple(v / y_lt[0] for v in y_le) if F else ()
    mu0 = -(ck + sum((m * g[d] for m, g in zip(mu, F)), zero))
    return (mu0, mu) if mu0 >= 0 and all(m >= 0 for m in mu) else None


def _rebuild(Ws, bs, d) -> Network:
    if any(len(W) == 0 for W in Ws[:-1]):          # constant network
        widths = [d] + [1] * (len(Ws) - 1)
        x = [Q(0)] * d
        const = _eval_lists(Ws, bs, x)
        weights, biases = [], []
        for l in range(len(Ws) - 1):
            weights.append([[0] * widths[l]])
            biases.append([-1])
        weights.append([[0] for _ in const])
        biases.append(const)
        return Network(weights, biases)
    return Network([QMatrix.from_rows(W, ncols=(len(Ws[l - 1]) if l else d)) for l, W in enumerate(Ws)], bs)


def _rebuild_exact(Ws, bs, d) -> Network:
    return Network([QMatrix.from_rows(W, ncols=(len(Ws[l - 1]) if l else d)) for l, W in enumerate(Ws)], bs)


def _eval_lists(Ws, bs, x):
    h = list(x)
    for l, (W, b) in enumerate(zip(Ws, bs)):
        z = [sum((w * v for w, v in zip(row, h)), Q(0)) + c for row, c in zip(W, b)]
        h = z if l == len(Ws) - 1 else [max(v, Q(0)) for v in z]
    return h


def _positive_multiple(u, g):
    """μ > 0 with u = μ g, else None."""
    if all(v == 0 for v in g):
        return None
    mu = is_proportional(u, g)
    return mu if mu is not None and mu > 0 else None
