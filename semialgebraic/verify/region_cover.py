r"""Checker of ``region_cover`` certificates: a(x) = b(x) for every x in a domain.

Schema
------
Version 1; built by :func:`semialgebraic.certificates.region_cover_certificate`::

    {"format": "netfibers.certificate", "type": "region_cover",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "a(x) == b(x) for all x in the domain",
     "a": <network>, "b": <network>,
     "domain": null | {"box": [lo, hi]} | {"orthant": true}
               | {"lo": [lo_i | null, ...], "hi": [hi_i | null, ...],      # a convex polyhedron
                  "halfspaces": [{"a": [a_0, ..., a_{d-1}], "b": b}, ...]},
     "bounds": [{"coordinate": k, "side": "lo" | "hi", "value": v,    # optional, polyhedral domain
                 "multipliers": [y_i per domain row]}, ...],         #   only: its bounding box
     "contract": [{"net": "a" | "b", "layer": l}, ...],     # optional, applied first
     "reduction": [{"step": "merge", "layer": l, "keep": i, "drop": j, "factor": μ},
                   {"step": "zero", "layer": l, "neuron": i},
                   {"step": "constant", "layer": l, "neuron": i},
                   {"step": "dead", "layer": l, "neuron": i},
                   {"step": "dead_cover", "layer": l, "neurons": [i, ...],
                    "regions": [<region as below, plus "bounds": {"i": [μ_0, [μ_f]]}>, ...]}, ...],
     "regions": [
       {"pattern": [s_0, ..., s_{n-1}],      # -1/0/1 per hidden neuron of D' (layer order)
        "point": [x_0, ..., x_{d-1}],        # exact interior point
        "inequalities": [[a_0..a_{d-1}, c], ...],   # g_k(x) = a.x + c > 0 on the region (see below)
        "facets": [k, ...],                  # indices into "inequalities": the region's facets
        "neighbours": [r, ...],              # aligned with "facets": region index across it,
                                             #   null for a facet of the domain
        "redundant": {"k": [l_0, [l_f for f in facets]]}  # every other inequality k (see below)
       }, ...]}

Contractions (optional, applied first, in order).  ``{"net": "a", "layer": l}`` replaces the
current network a (after the earlier contractions) by one with hidden layer l (0-based) removed:
every neuron i of that layer must be provably *affine* on the domain, i.e. its pre-activation
interval (exact interval bounds over the domain, propagated layer by layer through the current
network, recomputed by the checker) satisfies ``lo_i >= 0`` (always active: σ(z) = z) or
``hi_i <= 0`` (dead: σ(z) = 0).  With ``S = diag(1 if lo_i >= 0 else 0)`` the layer computes
``h_l = S (W_l h_{l-1} + b_l)`` on the domain, so the next layer becomes
``W_{l+1} S W_l``, bias ``W_{l+1} S b_l + b_{l+1}`` (:func:`algebra.kernel.contract_layer`): the same function
on the domain, one hidden layer less.  (A network without hidden layers is affine.)  Pairs that
users build, a network followed by an always-active identity layer, a layer split into two,
an inserted ``σ(h) - σ(-h)`` identity after a ReLU layer, collapse this way.

The difference network.  ``D = algebra.kernel.difference_network(a, b)`` puts a and b side by side: the first
layer is ``[W_a1; W_b1]``, hidden layers are block diagonal (a's neurons first, then b's), the
output layer is ``[W_aL, -W_bL]`` with bias ``b_aL - b_bL``; so ``D = a - b`` exactly.  The
``reduction`` steps rewrite D without changing its function (each is checked exactly, in order;
``layer`` is the 0-based hidden layer, neurons are indexed within it):

* ``merge``: rows (weights and bias) satisfy ``row_drop = factor * row_keep`` with factor > 0;
  then σ(row_drop·h) = factor σ(row_keep·h), so the outgoing column of ``keep`` gains
  ``factor *`` that of ``drop``, and the column of ``drop`` becomes zero;
* ``zero``: the neuron's outgoing column is zero; its row and bias are set to zero;
* ``constant``: the neuron's row is zero and its bias c > 0, so it outputs σ(c) = c at every
  input; the next layer's bias gains ``c *`` its outgoing column, which becomes zero, and its
  row and bias are set to zero;
* ``dead``: exact interval bounds over the domain (propagated layer by layer through the current
  network) show that the pre-activation is <= 0 everywhere; its outgoing column, row and bias
  are set to zero.

* ``dead_cover``: the listed neurons of layer l are dead on the domain although interval
  bounds cannot show it.  The *prefix network* P (the current hidden layers 0..l-1, output
  layer = the rows and biases of the listed neurons) gets its own list of regions, checked
  exactly like the main list below (rows, points, facets, neighbours, redundancy multipliers:
  they cover the domain), except that instead of "D' = 0" each region carries, for every
  listed neuron i with pre-activation p_i (affine on the region), multipliers ``μ_0 >= 0,
  μ_f >= 0`` (f over the region's facets) with ``-p_i = μ_0 + Σ_f μ_f g_f`` as affine
  functions: p_i <= 0 on the closed region, hence on the domain; the neurons' rows, biases
  and outgoing columns are set to zero.  For l = 0 (built on a domain with half-spaces, where
  interval bounds over the box part miss them) P has no hidden neuron: its one region, pattern
  ``[]``, is the domain's interior, its inequalities and facets are the domain rows.

A neuron with a zero row and zero bias is identically zero (sign 0 in every pattern).  The
regions below are those of the reduced network D', and the claim is D' = 0 on the domain.

Inequality ``k`` for ``k < n`` belongs to hidden neuron ``k`` of D': with the region's pattern
fixed, every pre-activation is an affine function
``p_k(x)`` (masked products of the weights); ``g_k = s_k p_k``.  A neuron with ``s_k = 0`` has
``p_k`` identically zero on the region and its row is ``[0, …, 0, 0]`` (it is not a constraint).
Rows ``k >= n`` are the domain's: for a box ``[lo, hi]^d``, ``x_i - lo`` then ``hi - x_i`` for
each i; for the orthant ``x_i``; none for R^d; for a polyhedron (a box with its own sides, null
for an open one, ∩ half-spaces ``a·x <= b``, the form of
:meth:`algebra.kernel.domains.Domain.to_json`, read strictly: these three keys, d bounds each,
d coefficients per half-space) ``x_i - lo_i`` then ``hi_i - x_i`` for each i, each only when
that side is given, then ``b - a·x`` per half-space in order
(:meth:`algebra.kernel.domains.Domain.rows`).

Interval bounds on a polyhedron (``dead`` steps, contractions) are those over its *box part*
``∏ [lo_i, hi_i]`` (an open side unbounded), the half-spaces left out, or, when the certificate
has ``bounds``, over its exact bounding box: ``bounds`` lists tightened sides
``{"coordinate": k, "side": "lo" | "hi", "value": v, "multipliers": [y_i]}``, one multiplier per
domain row (those above, in order), each ``y_i >= 0`` with ``Σ y_i a_i = e_k`` (lo) or
``-e_k`` (hi) for the rows ``a·x + c >= 0``; then ``±x_k + Σ y_i c_i >= 0`` on the domain, and
the side is accepted only when that bound is at least as tight as v
(:func:`algebra.kernel.domains.side_bound`, checked before any interval bound is taken).  The
box so proved contains the domain, so a pre-activation bounded above by 0 (or below by 0) over
it is so on the domain too, and every step keeps the function of D on the domain.  ``bounds``
is accepted only with a polyhedral domain; a certificate without it (older ones) is checked
over the box part.  The checker recomputes every row from the
networks and the pattern and rejects any difference.

What is checked (all exact, over Q; code imports ``algebra`` only)
------------------------------------------------------------------
0. The contractions, then the reduction steps are valid, in order (see above); D' is their
   result.
1. Each region: the rows are as recomputed; ``g_k(point) > 0`` for every non-zero row, so the
   point is interior and, layer by layer, the network's activation pattern at the point is the
   pattern (also re-evaluated directly); zero rows are identically zero.
2. D' is zero on each region: its affine map on the pattern (Network.affine_map) is zero.
3. Facet lists are complete: for every non-zero row k that is not a listed facet the certificate
   gives ``l_0 >= 0, l_f >= 0`` with ``g_k = l_0 + Σ_f l_f g_f`` as affine functions (Farkas);
   hence the closed region is ``{g_f >= 0 : f facet}``.  Facet rows have a non-zero normal.
4. Closure under crossing facets: for each facet f of a neuron, :func:`neighbour_pattern`
   computes the pattern just across the relative interior of the facet, and the listed
   neighbour region has exactly that pattern; a domain facet has neighbour null.

Why this proves a = b on the domain Ω (R^d, the closed orthant, a box with lo < hi, or a box
∩ half-spaces: convex and full-dimensional)
--------------------------------------------------------------------------------------------
Ω is the set where every domain row is >= 0: an intersection of closed half-spaces, so convex
and closed.  It is full-dimensional whenever the certificate lists a region: that region's point
satisfies every domain row strictly (step 1), so a small ball around it lies in Ω (a polyhedral
domain with an empty interior, e.g. two opposite half-spaces, has no such point and no such
certificate; its ``"regions": []`` is accepted only for a collapsed difference, which is zero on
all of R^d).  Let U be the union of the closures of the listed regions; D' = 0 on U (continuity), and
D' = D = a' − b' = a − b on Ω by step 0 (a', b' the contracted networks).  Suppose y ∈ Ω \ U.  Ω \ U is relatively open in Ω, so
y may be chosen generically, together with a generic x0 in the first region, such that the
segment [x0, y] ⊂ Ω meets no intersection of two
distinct hyperplanes among the (finitely many) hyperplanes {g = 0} of all listed rows, and no
set {g_k = 0} ∩ {g_f = 0} with g_k not proportional to g_f.  Let t* = sup{t : x0 + s(y − x0) ∈ U
for all s ≤ t} < 1 and z the point at t*; z ∈ cl(R) for a listed R.  If z were interior to
cl(R) the supremum would be larger, so some facet row g_f vanishes at z (by 3, cl(R) is cut out
by the facet rows), and by genericity z lies in the relative interior of that facet and on no
other hyperplane; the domain facets are excluded because the segment continues inside Ω: a
domain row g is > 0 at x0 and >= 0 on [x0, y] ⊂ Ω, so if the one hyperplane through z were
{g = 0}, the affine function t ↦ g(x0 + t(y − x0)) would vanish at t* < 1 after being positive,
and be negative just after it (a half-space row, a box side: all alike).
Every pre-activation is a continuous function of x.  At z each neuron k whose row on R is not
proportional to g_f is non-zero, so it keeps its sign s_k on a neighbourhood of z; a neuron
whose row on R is μ g_f (any real μ; μ = 0 for a zero row) vanishes on the facet, so on the far side
(where the earlier layers already have their new signs) its pre-activation is an affine function
ν g_f, with sign -sign(ν).  This is what :func:`neighbour_pattern` computes, layer by layer.  So
the points just beyond z have that pattern, hence lie in the listed neighbour region ⊂ U:
contradiction.  Therefore U = Ω and a = b on Ω.

Networks of different depths: the shallower one is first padded with layers computing
y = σ(y) − σ(−y) (exact), so that D is defined.

A box with lo = hi is the single point (lo, …, lo); the certificate then has ``"regions": []``
(and no contraction or reduction step: nothing there would be checked) and the checker
evaluates both networks there.

Keys: ``a``, ``b`` (native network dicts), ``regions`` (list) and ``claim`` (the text above) are
required; ``domain`` (null when absent), ``contract`` and ``reduction`` (empty lists when absent)
are optional; no other key is accepted.  Numbers are JSON integers or ``"p/q"`` strings; indices
are 0-based JSON integers.

A *collapsed* difference: when the reduction leaves every hidden neuron of D' with a zero row
and a zero bias, every hidden output is σ(0) = 0, layer after layer, so D' is the constant map
x ↦ b_L (its output bias) on all of R^d.  The certificate then has ``"regions": []`` and the
checker accepts exactly when that bias is zero (no walk needed: D' = D = a − b on the domain by
step 0).  With ``"regions": []`` and a live neuron left, the certificate is rejected.
"""

from __future__ import annotations

from typing import Sequence

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number, parse_vector
from algebra.kernel import contract_layer, difference_network, domain_rows, interval_bounds, is_proportional
from algebra.linalg import QMatrix
from algebra.kernel.certificate_schemas import check_header
from algebra.kernel.domains import Domain
from algebra.network import Network
from algebra.rationals import Q

__all__ = ["check", "neuron_rows", "directions", "neighbour_pattern", "apply_reduction",
           "apply_contractions", "is_collapsed"]

_ZERO, _ONE = Q(0), Q(1)
_TEXT = {str, int}                 # the JSON numbers :class:`_Numbers` remembers


def check(cert: dict) -> tuple[bool, str]:
    """Check a ``region_cover`` certificate; ``(ok, reason)``.

    Raises
    ------
    InputError
        If the certificate is malformed (missing keys, wrong lengths, non-numbers).
    """
    check_header(cert, "region_cover")
    a = network_from_dict(cert["a"], source="certificate[a]")
    b = network_from_dict(cert["b"], source="certificate[b]")
    if a.signature != b.signature:
        return False, f"the networks have different signatures {a.signature} and {b.signature}"
    d = a.n_inputs
    lo_hi = _parse_domain(cert.get("domain"), d)
    try:
        lo_hi = tightened_domain(cert, lo_hi)
    except InputError:
        raise                          # (an InputError is a ValueError: malformed, not broken)
    except ValueError as exc:
        return False, f"bounds: {exc}"
    if isinstance(lo_hi, tuple) and lo_hi[0] == lo_hi[1]:
        if cert["regions"] != [] or cert.get("contract", []) != [] or cert.get("reduction", []) != []:
            raise InputError("a one-point domain is checked by evaluation: no regions, contractions "
                             "or reduction steps")
        p = [lo_hi[0]] * d
        if a(p) != b(p):
            return False, "the domain is one point and a, b differ there"
        return True, "the domain is one point and a, b agree there"
    steps = cert.get("reduction", [])
    if not isinstance(steps, list):
        raise InputError("reduction must be a list of steps")
    contract = cert.get("contract", [])
    if not isinstance(contract, list):
        raise InputError("contract must be a list of steps")
    try:
        a, b = apply_contractions(a, b, contract, lo_hi)
    except InputError:
        raise                          # malformed (exit 2), not broken
    except ValueError as exc:
        return False, f"contract: {exc}"
    try:
        net = apply_reduction(difference_network(a, b), steps, lo_hi)
    except InputError:
        raise
    except ValueError as exc:
        return False, f"reduction: {exc}"
    regions = cert["regions"]
    where = domain_words(lo_hi, d)
    if isinstance(regions, list) and not regions and is_collapsed(net):
        if any(v != 0 for v in net.biases[-1]):
            return False, "a - b reduces to a non-zero constant"
        return True, (f"{len(contract)} contractions and {len(steps)} exact reduction steps reduce a - b to "
                      "a network whose hidden neurons are all zero and whose output bias is zero: "
                      f"a - b = 0 on the domain, {where}")
    ok, why = _check_cover(net, regions, lo_hi, _zero_map)
    if not ok:
        return False, why
    if a == b:                        # `search regions`: a cover of one network's regions
        return True, (f"{len(regions)} regions cover the domain, {where} (closed under facet crossing, "
                      "facet lists complete); a and b are the same network, so the certificate "
                      "is a region cover and claims no deviation")
    return True, (f"{len(contract)} contractions and {len(steps)} exact reduction steps, then {len(regions)} regions cover the "
                  f"domain, {where} (closed under facet crossing, facet lists complete) and a - b is zero "
                  "on each")


def domain_words(lo_hi, d: int) -> str:
    """The parsed domain (:func:`_parse_domain`) in words, for the reason of a valid check."""
    if isinstance(lo_hi, Domain):
        return lo_hi.describe()
    if lo_hi is None:
        return Domain.whole(d).describe()
    if lo_hi == "orthant":
        return Domain.orthant(d).describe()
    return Domain.cube(d, *lo_hi).describe()


def is_collapsed(net: Network) -> bool:
    """Every hidden neuron has a zero row and a zero bias, so every hidden output is
    relu(0) = 0 and the network is the constant map x ↦ b_L (its output bias).  Without a
    hidden layer (every layer contracted) the network is x ↦ W x + b_L: constant only when W = 0.

    >>> is_collapsed(Network.from_rows([[[2]]], [[0]]))      # x -> 2x is not constant
    False
    """
    if net.depth == 1:
        return net.weights[0].is_zero()
    return all(W.is_zero() and all(v == 0 for v in c) for W, c in zip(net.weights[:-1], net.biases[:-1]))


def apply_reduction(net: Network, steps, lo_hi=None) -> Network:
    """Apply and check reduction steps in order; ValueError (with the reason) on an invalid step."""
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(b) for b in net.biases]
    zero = Q(0)
    bounds, valid = None, -1           # interval bounds, current for layers 0..valid
    for k, st in enumerate(steps):
        if not isinstance(st, dict) or st.get("step") not in ("merge", "zero", "constant", "dead", "dead_cover"):
            raise InputError(f"reduction[{k}] is not a merge/zero/constant/dead/dead_cover step")
        l = st.get("layer")
        if not isinstance(l, int) or isinstance(l, bool) or not 0 <= l < len(Ws) - 1:
            raise InputError(f"reduction[{k}]: layer must be a hidden layer index")
        nxt = Ws[l + 1]
        width = len(Ws[l])
        if st["step"] == "dead_cover":
            neurons = st.get("neurons")
            if not isinstance(neurons, list) or not neurons or \
                    any(not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < width for i in neurons) \
                    or len(set(neurons)) != len(neurons):
                raise InputError(f"reduction[{k}]: neurons must be distinct neurons of layer {l}")
            prefix = Network([QMatrix.from_rows(W, ncols=(len(Ws[t - 1]) if t else net.n_inputs))
                              for t, W in enumerate(Ws[:l])]
                             + [QMatrix.from_rows([Ws[l][i] for i in neurons], ncols=len(Ws[l - 1]) if l else net.n_inputs)],
                             bs[:l] + [[bs[l][i] for i in neurons]])
            ok, why = _check_cover(prefix, st.get("regions"), lo_hi, _nonpositive_outputs(neurons))
            if not ok:
                raise ValueError(f"step {k}: neurons {neurons} of layer {l} are not proved dead: {why}")
            for i in neurons:
                for row in nxt:
                    row[i] = zero
                Ws[l][i] = [zero] * len(Ws[l][i])
                bs[l][i] = zero
            valid = min(valid, l - 1)
            continue
        if st["step"] == "merge":
            i, j = st.get("keep"), st.get("drop")
            if not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < width for v in (i, j)) or i == j:
                raise InputError(f"reduction[{k}]: keep/drop must be two neurons of layer {l}")
            mu = parse_number(st.get("factor"), f"reduction[{k}].factor")
            if mu <= 0:
                raise ValueError(f"step {k}: the factor must be positive")
            if Ws[l][j] + [bs[l][j]] != [mu * v for v in Ws[l][i] + [bs[l][i]]]:
                raise ValueError(f"step {k}: row {j} is not factor * row {i} in layer {l}")
            for row in nxt:
                row[i] += mu * row[j]
                row[j] = zero
            valid = min(valid, l)                          # layer l + 1 changed
        else:
            i = st.get("neuron")
            if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < width:
                raise InputError(f"reduction[{k}]: neuron must be a neuron of layer {l}")
            if st["step"] == "zero":
                if any(row[i] != 0 for row in nxt):
                    raise ValueError(f"step {k}: neuron {i} of layer {l} has a non-zero outgoing column")
            elif st["step"] == "constant":   # relu(0·h + c) = c > 0 everywhere: into the next bias
                c = bs[l][i]
                if any(v != 0 for v in Ws[l][i]) or not c > 0:
                    raise ValueError(f"step {k}: neuron {i} of layer {l} is not a zero row with a positive bias")
                for r, row in enumerate(nxt):
                    bs[l + 1][r] += row[i] * c
                    row[i] = zero
                valid = min(valid, l)                      # layer l + 1 changed
            else:
                if valid < l:
                    bounds, valid = interval_bounds(Ws, bs, net.n_inputs, lo_hi), len(Ws) - 1
                lo_, hi = bounds[l][i]
                if hi is None or hi > 0:
                    raise ValueError(f"step {k}: neuron {i} of layer {l} is not provably dead")
                for row in nxt:
                    row[i] = zero
                valid = min(valid, l)                      # layer l + 1 changed
            Ws[l][i] = [zero] * len(Ws[l][i])
            bs[l][i] = zero
            if bounds is not None and valid >= l:
                bounds[l][i] = (zero, zero)                # exact bounds of a zero row
    return Network([QMatrix.from_rows(W, ncols=(len(Ws[l - 1]) if l else net.n_inputs))
                    for l, W in enumerate(Ws)], bs)


def apply_contractions(a: Network, b: Network, steps, lo_hi=None) -> tuple[Network, Network]:
    """Apply and check ``contract`` steps in order (see the module docstring); the contracted
    ``(a', b')``.  ValueError (with the reason) on an invalid step.

    >>> a = Network.from_rows([[[1]], [[1]], [[2]]], [[0], [1], [-2]])   # 2 relu(relu(x) + 1) - 2
    >>> a2, _ = apply_contractions(a, a, [{"net": "a", "layer": 1}])
    >>> a2.widths, a2([-3]), a2([5]) == a([5])
    ((1, 1, 1), (0,), True)
    """
    nets = {"a": ([w.to_rows() for w in a.weights], [list(v) for v in a.biases]),
            "b": ([w.to_rows() for w in b.weights], [list(v) for v in b.biases])}
    d = a.n_inputs
    for k, st in enumerate(steps):
        if not isinstance(st, dict) or st.get("net") not in ("a", "b"):
            raise InputError(f"contract[{k}] must name the network 'a' or 'b'")
        Ws, bs = nets[st["net"]]
        l = st.get("layer")
        if not isinstance(l, int) or isinstance(l, bool) or not 0 <= l < len(Ws) - 1:
            raise InputError(f"contract[{k}]: layer must be a hidden layer index of {st['net']}")
        try:
            nets[st["net"]] = contract_layer(Ws, bs, l, d, lo_hi)
        except InputError:
            raise
        except ValueError as exc:
            raise ValueError(f"step {k} ({st['net']}): {exc}") from None
    return tuple(Network([QMatrix.from_rows(W, ncols=(len(Ws[l - 1]) if l else d))
                          for l, W in enumerate(Ws)], bs) for Ws, bs in (nets["a"], nets["b"]))


def neuron_rows(net: Network, pattern: Sequence[int], layers: list | None = None) -> list[tuple[Q, ...]]:
    """Affine pre-activation of every hidden neuron of *net* on the region of *pattern*.

    Row k is ``(a_0, …, a_{d-1}, c)`` with pre-activation ``a·x + c`` (unoriented); entries of
    *pattern* > 0 mean active.  *layers*: :func:`homogeneous_layers` of *net* when the caller
    has them (computed here otherwise).

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]], [[1]]], [[0, 1], [-1], [0]])
    >>> [tuple(map(str, r)) for r in neuron_rows(net, (1, -1, 1))]
    [('1', '0'), ('-1', '1'), ('1', '-1')]
    """
    layers = layers or homogeneous_layers(net)
    if not layers:                                  # no hidden layer
        return []
    cur = list(layers[0].to_tuples()[:-1])          # the first layer's rows are [W | b]
    rows, k = list(cur), 0
    for A in layers[1:]:
        nxt = _next_rows(A, cur, pattern[k:k + len(cur)])
        k += len(cur)
        cur = nxt
        rows.extend(cur)
    return rows


def _next_rows(A: QMatrix, rows: Sequence[tuple], signs: Sequence[int]) -> list:
    """The rows of the next layer (homogeneous matrix *A*) from the rows *rows* of a layer and
    its signs (an output is its row when active, zero otherwise)."""
    d1 = len(rows[0]) if rows else A.ncols
    zero = (_ZERO,) * d1
    out = [row if s > 0 else zero for row, s in zip(rows, signs)]
    out.append(zero[:-1] + (_ONE,))
    return list((A @ QMatrix.from_rows(out)).to_tuples()[:-1])


def homogeneous_layers(net: Network) -> list:
    """The hidden layers of *net* as ``[[W, b], [0, 1]]``: the affine forms of a layer's
    pre-activations (and the constant 1) from those of the layer below (:func:`neuron_rows`)."""
    out = []
    for l in range(net.depth - 1):
        W, bias = net.layer(l)
        out.append(QMatrix.vstack([QMatrix.hstack([W, QMatrix.column(bias)]),
                                   QMatrix.row([_ZERO] * W.ncols + [_ONE])]))
    return out


def directions(rows: Sequence[Sequence[Q]]) -> list:
    """Per row, None for a zero row, else the row divided by its first non-zero entry: two
    non-zero rows are proportional (``u = μ v``, any μ ≠ 0) exactly when their directions are
    equal (:func:`neighbour_pattern` compares a facet with every row this way).

    >>> directions([(Q(2), Q(-4)), (Q(0), Q(0)), (Q(-1), Q(2))])[0] == directions([(Q(-1), Q(2))])[0]
    True
    """
    out = []
    for row in rows:
        for v in row:
            if v:
                out.append(tuple(u / v for u in row))
                break
        else:
            out.append(None)
    return out


def neighbour_pattern(nets: Sequence[Network], pattern: Sequence[int], g: Sequence[Q],
                      old_rows: Sequence[Sequence[Q]], old_directions: list | None = None,
                      layers: list | None = None) -> tuple[int, ...]:
    """Pattern just across the relative interior of the facet ``g = 0`` (``g > 0`` on the region).

    *old_rows* are the unoriented neuron rows on the region (all networks, concatenated);
    *old_directions* their :func:`directions` (computed here when not given); *layers* the
    :func:`homogeneous_layers` of the one network of *nets*, when the caller has them.
    Neurons whose old row is not a multiple of g keep their sign; the others get the sign of
    their new row ``ν g`` on the far side, i.e. ``-sign(ν)``, layer by layer (see the module
    docstring): a layer's new rows are the old ones until a sign changes, then each next layer's
    are recomputed from the layer below with its new signs.  Raises ValueError when a new row
    is not a multiple of g (impossible for a facet of a true region).
    """
    dirs = directions(old_rows) if old_directions is None else old_directions
    here = directions([g])[0]
    if here is None:
        raise ValueError("zero facet row")
    new = list(pattern)
    off = 0
    for net in nets:
        As = layers if layers is not None and len(nets) == 1 else homogeneous_layers(net)
        k, cur = off, None              # cur: the layer's new rows once they differ from the old
        for l in range(net.depth - 1):
            width = net.widths[l + 1]
            rows = old_rows[k:k + width] if cur is None else cur
            changed = False
            for i in range(width):
                if dirs[k + i] is not None and dirs[k + i] != here:
                    continue            # not a multiple of g: keeps its sign
                row = rows[i]
                nu = is_proportional(row, g) if any(row) else _ZERO
                if nu is None:
                    raise ValueError(f"neuron {k + i}: row across the facet is not a multiple of it")
                s = -((nu > 0) - (nu < 0))
                if s != new[k + i]:
                    new[k + i], changed = s, True
            if l + 2 < net.depth and (changed or cur is not None):
                cur = _next_rows(As[l + 1], rows, new[k:k + width])
            k += width
        off += net.n_hidden
    return tuple(new)


# -- private --------------------------------------------------------------------------------
def tightened_domain(cert: dict, lo_hi):
    """The certificate's polyhedral domain *lo_hi* with the bounding box its ``bounds`` prove
    (:meth:`algebra.kernel.domains.Domain.tightened_from_certificate`: each side's multipliers
    checked exactly before the box is used); *lo_hi* itself without ``bounds``.  ValueError
    when a side is not proved, :class:`InputError` for a malformed one or ``bounds`` on a domain
    that is not polyhedral."""
    if "bounds" not in cert:
        return lo_hi
    if not isinstance(lo_hi, Domain):
        raise InputError("bounds are given only with a polyhedral domain (lo, hi, halfspaces)")
    return lo_hi.tightened_from_certificate(cert["bounds"])


def _parse_domain(dom, d: int | None = None):
    """The certificate's domain: None, ``"orthant"``, ``(lo, hi)`` or (the polyhedral form,
    *d* inputs) a :class:`~algebra.kernel.domains.Domain`."""
    if dom is None:
        return None
    if not isinstance(dom, dict):
        raise InputError("domain must be null or an object")
    if "lo" in dom or "hi" in dom or "halfspaces" in dom:
        return Domain.from_certificate(dom, d)
    if "box" in dom:
        box = dom["box"]
        if not isinstance(box, list) or len(box) != 2:
            raise InputError("domain.box must be [lo, hi]")
        lo, hi = (parse_number(v, "domain.box") for v in box)
        if lo > hi:
            raise InputError("domain.box has lo > hi")
        return (lo, hi)
    if dom.get("orthant") is True:
        return "orthant"
    raise InputError(f"unknown domain {dom!r}")


def _check_cover(net, regions, lo_hi, value) -> tuple[bool, str]:
    """Regions of *net* that cover the domain (steps 1-4 of the module docstring), with
    ``value(net, r, reg, pattern, oriented, facets)`` checking the claim on each region."""
    if not isinstance(regions, list):
        raise InputError("regions must be a list")
    if not regions:
        return False, "no regions listed"
    d = net.n_inputs
    dom = domain_rows(d, lo_hi)
    n = net.n_hidden
    patterns = []
    for r, reg in enumerate(regions):
        if not isinstance(reg, dict) or "pattern" not in reg or "point" not in reg:
            raise InputError(f"region {r} lacks 'pattern' or 'point'")
        pat = reg["pattern"]
        if not isinstance(pat, list) or len(pat) != n or any(type(s) is not int or s not in (-1, 0, 1) for s in pat):
            raise InputError(f"region {r}: pattern must list {n} entries in -1/0/1")
        patterns.append(tuple(pat))
    index = {p: i for i, p in enumerate(patterns)}
    if len(index) != len(patterns):
        return False, "a pattern is listed twice"
    numbers, layers = _Numbers(), homogeneous_layers(net)
    for r, reg in enumerate(regions):
        ok, why = _check_region(net, r, reg, patterns[r], dom, d, n, patterns, len(regions), value,
                                numbers, layers)
        if not ok:
            return False, f"region {r}: {why}"
    return True, "ok"


def _zero_map(net, r, reg, pat, oriented, facets) -> tuple[bool, str]:
    """D' is zero on the region: its affine map on the pattern is zero."""
    J, c = net.affine_map(pat)
    if not J.is_zero() or any(v != 0 for v in c):
        return False, "a - b is not zero on this region (affine maps differ)"
    return True, "ok"


def _nonpositive_outputs(neurons):
    """Value check of a ``dead`` cover: every output k of the prefix network (neuron
    ``neurons[k]``) satisfies ``-p_k = μ_0 + Σ_f μ_f g_f`` with μ >= 0 (so p_k <= 0 on the
    closed region), from ``reg["bounds"][str(neuron)] = [μ_0, [μ_f for f in facets]]``."""
    def value(net, r, reg, pat, oriented, facets) -> tuple[bool, str]:
        J, c = net.affine_map(pat)
        bounds = reg.get("bounds")
        if not isinstance(bounds, dict):
            raise InputError(f"regions[{r}].bounds must be an object")
        for k, i in enumerate(neurons):
            mu = bounds.get(str(i))
            if not isinstance(mu, list) or len(mu) != 2 or not isinstance(mu[1], list):
                return False, f"no bound for neuron {i}"
            why = _farkas(mu, oriented, facets, [-v for v in J.row_at(k)] + [-c[k]],
                          f"regions[{r}].bounds[{i}]")
            if why:
                return False, f"bound multipliers of neuron {i} {why} (target: minus its pre-activation)"
        return True, "ok"
    return value


class _Numbers:
    """The JSON numbers of one check, each text read once: :func:`parse_number`'s value of a
    JSON integer or string remembered by that text (a certificate repeats few distinct numbers
    over many rows); anything else (a bool, a float, a list) goes to :func:`parse_number`,
    which refuses it as before.  At most :data:`MEMO` texts are remembered (then forgotten
    all at once: the frequent ones come back at once), so the memory stays bounded."""

    __slots__ = ("memo",)
    MEMO = 1 << 16

    def __init__(self):
        self.memo: dict = {}

    def _read(self, x, where: str) -> Q:
        q = parse_number(x, where)
        if type(x) is str or type(x) is int:
            if len(self.memo) >= self.MEMO:
                self.memo.clear()
            self.memo[x] = q
        return q

    def number(self, x, where: str) -> Q:
        t = type(x)
        q = self.memo.get(x) if t is str or t is int else None
        return self._read(x, where) if q is None else q

    def vector(self, v, where: str, length: int) -> list:
        if type(v) is not list or len(v) != length:
            return parse_vector(v, where, length=length)       # raises
        memo = self.memo
        if set(map(type, v)) <= _TEXT:          # (a bool would find the int's entry)
            out = list(map(memo.get, v))
            if None not in out:
                return out
        out = []
        for i, x in enumerate(v):
            t = type(x)
            q = memo.get(x) if t is str or t is int else None
            out.append(self._read(x, f"{where}[{i}]") if q is None else q)
        return out


def _check_region(net, r, reg, pat, dom, d, n, patterns, count, value=_zero_map,
                  numbers: _Numbers | None = None, layers: list | None = None) -> tuple[bool, str]:
    read = numbers or _Numbers()
    layers = layers or homogeneous_layers(net)
    x = read.vector(reg["point"], f"regions[{r}].point", d)
    rows = neuron_rows(net, pat, layers)
    zero = tuple(Q(0) for _ in range(d + 1))
    oriented = [row if s > 0 else zero if s == 0 else tuple(-v for v in row)
                for s, row in zip(pat, rows)] + list(dom)
    claimed = reg.get("inequalities")
    if not isinstance(claimed, list) or len(claimed) != len(oriented):
        raise InputError(f"regions[{r}].inequalities must list {len(oriented)} rows")
    for k, row in enumerate(claimed):
        if tuple(read.vector(row, f"regions[{r}].inequalities[{k}]", d + 1)) != oriented[k]:
            return False, f"inequality {k} is not the one the networks give on this pattern"
    for k in range(n):
        if pat[k] == 0 and rows[k] != zero:
            return False, f"neuron {k} has sign 0 but its pre-activation is not identically zero"
    for k, g in enumerate(oriented):
        if k < n and pat[k] == 0:
            continue
        if _value(g, x) <= 0:
            return False, f"the point does not satisfy inequality {k} strictly"
    if tuple(net.activation_pattern(x)) != pat:
        return False, "the network's activation pattern at the point is not the pattern"
    facets, neigh = reg.get("facets"), reg.get("neighbours")
    if not isinstance(facets, list) or not isinstance(neigh, list) or len(facets) != len(neigh):
        raise InputError(f"regions[{r}]: facets and neighbours must be lists of equal length")
    if any(not isinstance(f, int) or isinstance(f, bool) or not 0 <= f < len(oriented) for f in facets) \
            or len(set(facets)) != len(facets):
        raise InputError(f"regions[{r}]: facets must be distinct inequality indices")
    dirs = None
    for f, nb in zip(facets, neigh):
        g = oriented[f]
        if all(v == 0 for v in g[:d]):
            return False, f"facet {f} has a zero normal"
        if f >= n:
            if nb is not None:
                return False, f"facet {f} is a domain facet but names a neighbour"
            continue
        if not isinstance(nb, int) or not 0 <= nb < count:
            return False, f"facet {f} has no valid neighbour"
        if dirs is None:
            dirs = directions(rows)
        try:
            across = neighbour_pattern((net,), pat, g, rows, dirs, layers)
        except ValueError as exc:
            return False, f"facet {f}: {exc}"
        if patterns[nb] != across:
            return False, f"the neighbour across facet {f} must have pattern {list(across)}"
    red = reg.get("redundant", {})
    if not isinstance(red, dict):
        raise InputError(f"regions[{r}].redundant must be an object")
    listed = set(facets)
    for k, g in enumerate(oriented):
        if k in listed or (k < n and pat[k] == 0):
            continue
        lam = red.get(str(k))
        if not isinstance(lam, list) or len(lam) != 2 or not isinstance(lam[1], list):
            return False, f"inequality {k} is neither a facet nor certified redundant"
        why = _farkas(lam, oriented, facets, g, f"regions[{r}].redundant[{k}]", read)
        if why:
            return False, f"redundancy multipliers of inequality {k} {why} (target: the inequality)"
    return value(net, r, reg, pat, oriented, facets)


def _value(g, x) -> Q:
    return sum((gi * xi for gi, xi in zip(g, x)), Q(0)) + g[-1]


def _farkas(mult, oriented, facets, target, where, numbers: _Numbers | None = None) -> str:
    """"" when ``mult = [m_0, [m_f for f in facets]]`` (all >= 0) gives
    ``target = m_0 + Σ_f m_f g_f`` as affine functions (rows ``oriented[f]``), else what fails
    ("are not all >= 0" / "do not reproduce the target")."""
    read = numbers or _Numbers()
    m0 = read.number(mult[0], where)
    ms = read.vector(mult[1], where, len(facets))
    if m0 < 0 or any(v < 0 for v in ms):
        return "are not all >= 0"
    comb = [Q(0)] * len(target)
    for v, f in zip(ms, facets):
        if v:                                   # a zero multiplier adds nothing
            comb = [c + v * gj for c, gj in zip(comb, oriented[f])]
    comb[-1] += m0
    return "" if tuple(comb) == tuple(target) else "do not reproduce the target"
