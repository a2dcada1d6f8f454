r"""Proven kernel directions of every Jacobian row: the upper bound of the functional dimension.

Each direction v satisfies J(x) v = 0 at every differentiable input x of the domain, so the
functional dimension is at most N − rank of their span (three-layer-fibers R11 S2/S4, R13 S6,
R22 FIBDIM).  With ∂f/∂W_l[i,k] = δ_l[i] h_{l-1}[k] and ∂f/∂b_l[i] = δ_l[i]:

* unit vectors of W_l[i, ·], b_l[i] for a *silent* neuron i (δ_l[i] ≡ 0: dead, or every
  successor with a non-zero weight silent, or a zero output column; :func:`silent_neurons`);
* unit vectors of W_{l+1}[·, k] for a dead neuron k (h_l[k] ≡ 0);
* the unit vector of a parameter proven never exercised, the incoming directions of a
  neuron whose inputs span a proper subspace on its active set, and the outgoing directions of
  a rare neuron whose successors have fixed signs wherever it is active
  (:func:`~semialgebraic.dimension.upper.fixed_successor_vectors`; facts of
  :mod:`semialgebraic.dimension.suspects`);
* positive scaling of each live neuron (S2: f is invariant, so the derivative vanishes);
* for a group of positively parallel neurons of one layer (``h_l[m] = c_m h_l[r]``
  identically): the trade of their outgoing weights, and the incoming directions of the
  relations between their outgoing columns (three-layer-fibers R34;
  :func:`~semialgebraic.dimension.upper.duplicate_vectors`), and for a pair of negatively
  parallel neurons with parallel outgoing columns a bias direction (R34 (d)); the outgoing
  weights of a constant neuron against the next layer's biases (R34 (e)); a neuron with bias
  <= 0 and only dead inputs is dead, with bias 0 the layer above does not see it (R35,
  :func:`~semialgebraic.dimension.upper.inputs_dead_entries`); the incoming
  directions of the relations between the outgoing columns of always-active neurons (R34 (f));
* bias trade of an always-active or masked neuron (:func:`is_masked`) and GL of a block of
  always-active neurons of one layer (S4, S6: exact symmetries of f on the domain near θ).

Dead / always-active facts come from the complete list of activation patterns when the region
walk is complete, else from exact interval bounds over the domain, plus the proven facts.
"""

from __future__ import annotations

from typing import Any

from algebra.kernel import merged_lower, parameter_offsets, relu_box
from algebra.network import Network
from algebra.rationals import Q

from ..sets import normalize_domain
from .fiber_floor import unseen_neurons
from ..equivalence import preactivation_bounds
from .upper import (_ratio, constant_neurons, constant_vectors, duplicate_groups, duplicate_vectors, fixed_successor_vectors,
                    inputs_dead_entries, masked_pairs, opposite_pairs, opposite_vector,
                    proportional_groups, same_mask_vectors, sparse_entry_vectors, unseen_vectors)

__all__ = ["symmetry_directions", "silent_neurons", "silent_set", "is_masked", "fiber_floor", "fiber_lower",
           "fiber_moves", "shared_kink_cap"]


def symmetry_directions(net: Network, *, domain: Any = None, patterns=None, proven: dict | None = None,
                        sparse: bool = False, stop=None) -> tuple[list, tuple]:
    """Proven kernel directions of every Jacobian row at θ, and one line per deficit source.

    Parameters
    ----------
    net : Network
    domain : None, "orthant" or (lo, hi)
    patterns : list of tuples, optional
        The complete list of activation patterns of the regions; otherwise dead / always-active
        facts come from exact interval bounds over the domain.
    proven : dict, optional
        Facts established by :func:`semialgebraic.dimension.suspects.prove_suspects`
        (``"dead"``, ``"active"``: flat neuron indices; ``"free"``: parameter indices;
        ``"incoming"``: directions per neuron).
    sparse : bool
        Return each direction as a dict ``{parameter index: non-zero value}`` instead of a list
        of N rationals (a 24-24-6000-2 net: 163 thousand entries against 16 GB dense).
    stop : callable, optional
        ``stop(vectors so far)``, called between neurons (every 256) and between the sources;
        when it returns True the
        directions built so far are returned (each one proven: a subset, so N − their rank is
        still an upper bound; the deficit lines of the sources reached).

    Returns
    -------
    (vectors, deficits)
        Directions v with J(x) v = 0 at every differentiable input of the domain (the module
        docstring lists them), and one line per source of deficit.

    Examples
    --------
    >>> from algebra.network import Network
    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 0], [0]])   # |x|
    >>> len(symmetry_directions(net)[0])       # two scalings, the opposite pair's bias (R34 (d))
    3
    """
    N, dom = net.n_parameters, normalize_domain(domain, net.n_inputs)
    vecs, deficits = _sparse_directions(net, dom, patterns, proven or {}, stop or (lambda vs: False))
    return (vecs if sparse else [_dense(N, sv) for sv in vecs]), deficits


class _Stopped(Exception):
    """The *stop* callback of :func:`symmetry_directions` said stop."""


def _sparse_directions(net, dom, patterns, proven, stop) -> tuple[list, tuple]:
    """:func:`symmetry_directions` as dicts; stopped by *stop* with the directions so far."""
    vecs: list = []
    deficits: list = []
    try:
        _build(net, dom, patterns, proven, stop, vecs, deficits)
    except _Stopped:                     # (the caller's stop says why)
        pass
    return vecs, tuple(deficits)


def _build(net, dom, patterns, proven, stop, vecs, deficits) -> None:
    """The directions of :func:`symmetry_directions` (dicts), appended to *vecs* / *deficits*;
    raises _Stopped when *stop* (vecs) is true between two steps."""
    def check():
        if stop(vecs):
            raise _Stopped
    ever_on, always_on = _on_facts(net, dom, patterns, proven or {})
    names = [(l, i) for l in range(net.depth - 1) for i in range(net.widths[l + 1])]
    grown, dead = inputs_dead_entries(net, {nm for nm, on in zip(names, ever_on) if not on})   # R35
    ever_on = [nm not in dead for nm in names]
    silent = silent_neurons(net, ever_on)
    _unit_directions(net, ever_on, silent, proven, vecs, deficits)
    check()
    for e in grown:
        if e[0] == "unseen":
            vecs += unseen_vectors(net, e[1], e[2], e[3])
            deficits.append(f"neuron ({e[1] + 1}, {e[2]}) is zero at every differentiable input (bias 0, inputs "
                            "only from dead neurons), so the layer above does not see it"
                            + (f" and its successors {', '.join(f'({e[1] + 2}, {j})' for j in e[3])} are "
                               "inactive there" if e[3] else "") + " (three-layer-fibers R35)")
    masked = proven.get("masked") or {}
    k = 0
    for l in range(net.depth - 1):
        block_on = _neuron_directions(net, l, k, ever_on, always_on, silent, patterns, vecs, deficits, masked,
                                      check)
        if len(block_on) > 1:
            deficits.append(f"layer {l + 1}: {len(block_on)} always-active neurons form a linear block")
        _block_directions(net, l, block_on, vecs, check)
        if len(block_on) > 1:
            vecs += same_mask_vectors(net, l, block_on)     # R34 (f)
        check()
        k += net.widths[l + 1]
    if masked:                                                     # R35 (e)
        dead_set = {nm for nm, on in zip(names, ever_on) if not on}
        active_set = {nm for nm, on in zip(names, always_on) if on} - dead_set
        for l in sorted({t for t, _ in masked}):
            pairs = masked_pairs(net, l, active_set, set(masked), dead_set)
            vecs += sparse_entry_vectors(net, [["masked_pair", l, p_] for p_ in pairs])
            if pairs:
                deficits.append(f"layer {l + 1}: {len(pairs)} pairs of masked / always-active neurons, both active "
                                "wherever the first one's successors are: GL directions (three-layer-fibers R35 (e))")
    check()
    vecs += _duplicate_directions(net, deficits)
    for l, i in constant_neurons(net, {nm for nm, on in zip(names, ever_on) if not on}):
        vecs += constant_vectors(net, l, i)
        deficits.append(f"neuron ({l + 1}, {i}) is constant (a positive bias, inputs only from dead neurons): "
                        "its outgoing weights trade with the next layer's biases (three-layer-fibers R34 (e))")


def _duplicate_directions(net, deficits) -> list:
    """The directions of the groups of positively parallel neurons (three-layer-fibers R34), as
    dicts, with one deficit line per group."""
    out: list = []
    for l, group in duplicate_groups(net):
        vs = duplicate_vectors(net, l, group)
        out += vs
        deficits.append(f"neurons {', '.join(f'({l + 1}, {i})' for i in group)} are positive multiples of "
                        f"one another (rows and biases): {len(vs)} directions of their outgoing and "
                        "incoming weights (three-layer-fibers R34)")
    for l, (r, m) in opposite_pairs(net):
        out.append(opposite_vector(net, l, r, m))
        deficits.append(f"neurons ({l + 1}, {r}), ({l + 1}, {m}) have opposite rows and parallel outgoing "
                        "columns: a bias direction (three-layer-fibers R34 (d))")
    return out


def _dense(N, sv) -> list:
    """The sparse vector *sv* (``{index: value}``) as a list of N rationals."""
    v = [Q(0)] * N
    for k, w in sv.items():
        v[k] = w
    return v


def _sparse(v) -> dict:
    """The dense vector *v* as ``{index: value}`` (its non-zero entries)."""
    return {k: w for k, w in enumerate(v) if w != 0}


def _on_facts(net, dom, patterns, proven) -> tuple[list, list]:
    """Per hidden neuron (flat): ever active, always active (patterns or intervals, and *proven*)."""
    if patterns is not None:
        flat = list(zip(*patterns)) if patterns else []
        ever_on = [any(s > 0 for s in col) for col in flat]
        always_on = [all(s > 0 for s in col) for col in flat]
    else:
        bounds = preactivation_bounds(net, domain=dom)
        ever_on = [not (hi is not None and hi <= 0) for layer in bounds[:-1] for lo, hi in layer]
        always_on = [lo is not None and lo >= 0 for layer in bounds[:-1] for lo, hi in layer]
    for g in proven.get("dead", ()):
        ever_on[g] = False
    for g in proven.get("active", ()):
        always_on[g] = True
    return ever_on, always_on


def _unit_directions(net, ever_on, silent, proven, vecs, deficits) -> None:
    """Unit directions (δ_l[i] ≡ 0 or h_{l-1}[k] ≡ 0, or proven never exercised) and the proven
    incoming directions (dicts), appended to *vecs* with their deficit lines."""
    widths, L = net.widths, net.depth
    offs = parameter_offsets(net)
    starts = [sum(widths[1:1 + l]) for l in range(L)]
    free = set()
    for l in range(L):
        W = net.weights[l]
        n_in = widths[l]
        for i in range(W.nrows):
            if l < L - 1 and silent[starts[l] + i]:
                free.update(offs[l] + i * n_in + c for c in range(n_in))
                free.add(offs[l] + W.nrows * n_in + i)
            if l:
                free.update(offs[l] + i * n_in + c for c in range(n_in) if not ever_on[starts[l - 1] + c])
    extra = set(proven.get("free", ())) - free
    for p_ in sorted(extra):
        deficits.append(f"parameter {net.parameter_names()[p_]} is never exercised: its Jacobian column "
                        "(delta times input) is zero at every differentiable input (proved exactly: a phase "
                        "search, or an emptiness proof of its neurons' co-activity)")
    free |= extra
    for (t_, i_), vs in sorted((proven.get("incoming") or {}).items()):
        vecs.extend(v if isinstance(v, dict) else _sparse(v) for v in vs)
        deficits.append(f"neuron ({t_ + 1}, {i_}): on its active set its inputs and 1 span only "
                        f"{widths[t_] + 1 - len(vs)} of {widths[t_] + 1} dimensions (exact enumeration "
                        f"of the regions there): {len(vs)} incoming directions free")
    for (t_, i_), fact in sorted((proven.get("fixed_successors") or {}).items()):
        vs = fixed_successor_vectors(net, t_, i_, fact["signs"])
        vecs += vs
        fixed = sum(1 for s in fact["signs"] if s)
        deficits.append(f"neuron ({t_ + 1}, {i_}): {fixed} of its successors have a fixed sign wherever it "
                        f"is active (proved by one branch-and-bound tree): {len(vs)} directions of its "
                        "outgoing weights free")
    vecs += [{p_: Q(1)} for p_ in sorted(free)]


def _neuron_directions(net, l, k, ever_on, always_on, silent, patterns, vecs, deficits, masked=None,
                       check=None) -> list:
    """Scaling and bias-trade directions of the neurons of hidden layer *l* (flat start *k*),
    appended to *vecs* / *deficits*; returns the always-active neurons of the layer.  *masked*:
    the neurons ``(l, i)`` proven masked without the pattern list (``proven["masked"]`` of
    :func:`semialgebraic.dimension.suspects.prove_suspects`, emptiness proofs per successor);
    *check* (or None) is called every 256 neurons.  The directions are dicts."""
    n_in = net.widths[l]
    offs = parameter_offsets(net)
    W, b = net.layer(l)
    Wn = net.weights[l + 1]
    block_on = []
    for i in range(W.nrows):
        if check is not None and i % 256 == 255:
            check()
        g = k + i
        win = [offs[l] + i * n_in + c for c in range(n_in)] + [offs[l] + W.nrows * n_in + i]
        wout = [offs[l + 1] + j * W.nrows + i for j in range(Wn.nrows)]
        if not ever_on[g]:
            deficits.append(f"dead neuron ({l + 1}, {i}): {len(win) + len(wout)} parameters free "
                            "in the Jacobian's kernel")
            continue
        if silent[g]:
            deficits.append(f"neuron ({l + 1}, {i}) reaches the output only through zero weights "
                            f"or dead / silent neurons: its {len(win)} incoming parameters are free")
        row, col = W.row_at(i), Wn.col_at(i)                # positive scaling (S2)
        v = {win[c]: w for c, w in enumerate(row) if w != 0}
        if b[i] != 0:
            v[win[-1]] = b[i]
        v.update((wout[j], -w) for j, w in enumerate(col) if w != 0)
        vecs.append(v)
        if always_on[g] or (l, i) in (masked or {}) or (patterns is not None and is_masked(net, patterns, l, k, i)):
            v = {win[-1]: Q(1)}                         # bias trade (S4 / S6)
            v.update((offs[l + 1] + Wn.nrows * W.nrows + j, -w) for j, w in enumerate(col) if w != 0)
            vecs.append(v)
            deficits.append(f"neuron ({l + 1}, {i}) is {'always active' if always_on[g] else 'masked'}:"
                            " bias trade with the next layer")
        if always_on[g]:
            block_on.append(i)
    return block_on


def _block_directions(net, l, block_on, out, check=None) -> None:
    """GL directions (dicts) of the linear block of always-active neurons *block_on* of layer *l*
    (S4), appended to *out*; *check* (or None) is called before each neuron's."""
    n_in = net.widths[l]
    offs = parameter_offsets(net)
    W, b = net.layer(l)
    Wn = net.weights[l + 1]
    rows = {i: W.row_at(i) for i in block_on} if len(block_on) > 1 else {}
    cols = {i: Wn.col_at(i) for i in rows}
    for i in rows:
        if check is not None:
            check()
        for i2 in block_on:
            if i == i2:
                continue
            v = {offs[l] + i * n_in + c: w for c, w in enumerate(rows[i2]) if w != 0}
            if b[i2] != 0:
                v[offs[l] + W.nrows * n_in + i] = b[i2]
            v.update((offs[l + 1] + j * W.nrows + i2, -w) for j, w in enumerate(cols[i]) if w != 0)
            out.append(v)


def silent_neurons(net: Network, ever_on) -> list:
    """Hidden neurons (flat index) with δ ≡ 0 at every input where f is differentiable in θ:
    dead ones (mask 0), and, from the last hidden layer down, those whose every successor j with
    W_{l+1}[j, i] != 0 is silent (for the last hidden layer: the output column W_L[:, i] is zero).
    Proof: δ_l[i] = D_l[i] Σ_j W_{l+1}[j, i] δ_{l+1}[j] and δ_L = e_o."""
    widths, L = net.widths, net.depth
    starts = [sum(widths[1:1 + l]) for l in range(L)]
    silent = [not on for on in ever_on]
    for l in range(L - 2, -1, -1):
        Wn = net.weights[l + 1]
        for i in range(widths[l + 1]):
            g = starts[l] + i
            if silent[g]:
                continue
            succ = [j for j in range(Wn.nrows) if Wn[j, i] != 0]
            if l + 1 == L - 1:
                silent[g] = not succ
            else:
                silent[g] = all(silent[starts[l + 1] + j] for j in succ)
    return silent


def silent_set(net: Network, dead) -> set:
    """(layer, neuron) pairs with δ ≡ 0 given the *dead* ones (the rule of :func:`silent_neurons`)."""
    flat = [(l, i) not in dead for l in range(net.depth - 1) for i in range(net.widths[l + 1])]
    silent = silent_neurons(net, flat)
    names = [(l, i) for l in range(net.depth - 1) for i in range(net.widths[l + 1])]
    return {names[g] for g, s in enumerate(silent) if s}


def is_masked(net: Network, patterns, l: int, k: int, i: int) -> bool:
    """Neuron i of hidden layer l (flat start *k*) is active wherever a successor with
    W[j,i] != 0 is, on every pattern of *patterns*."""
    if l + 1 >= net.depth - 1:
        return False
    Wn = net.weights[l + 1]
    nxt = k + net.widths[l + 1]
    succ = [j for j in range(Wn.nrows) if Wn[j, i] != 0]
    return all(p[k + i] > 0 or all(p[nxt + j] <= 0 for j in succ) for p in patterns)


def fiber_floor(net: Network, domain: Any = None, patterns=None, proven: dict | None = None,
                overcounted: list | None = None, budget=None) -> int:
    """The rank of :func:`fiber_moves` (a certified lower bound of the fiber's dimension at θ).

    >>> dead_first = Network.from_rows([[[0, 0], [1, 2], [-1, 1]], [[1, 1, -1]]], [[-1, 1, 0], [0]])
    >>> fiber_floor(dead_first)        # 2 scalings + bias and output weight of the dead neuron
    4
    >>> fiber_floor(dead_first, (-1, 1))      # on a box its incoming weights move too
    6
    """
    from .upper import directions_bound
    return net.n_parameters - directions_bound(net, fiber_moves(net, domain, patterns, proven,
                                                                overcounted), budget)


def fiber_moves(net: Network, domain: Any = None, patterns=None, proven: dict | None = None,
                overcounted: list | None = None) -> list:
    """Entries (the format of :func:`~semialgebraic.dimension.upper.sparse_entry_vectors`) of
    moves that keep the function, whose rank (mod the network's prime, at most the rank over Q)
    is a certified lower bound of the dimension of the fiber at θ (R22's corank N − rank can
    exceed it where the rank is not locally constant).  Listed in an order in which they compose
    — each a move at every point the earlier ones reach, so that the fiber holds a family with
    all of them as tangents at θ (tested exactly, with the equivalence decision, on random nets
    with these structures planted together):

    * every hidden neuron's positive scaling (S2; the orbit lies in the fiber);
    * a dead neuron's incoming weights, bias and outgoing weights: the (w, b) keeping it dead,
      ``{w·h + b <= 0 for every h of its inputs' range}``, is convex with an interior when that
      range is bounded (a box) or pointed (the orthant, or post-ReLU inputs ``h >= 0`` from
      hidden layer 2 on: w < 0, b < 0 are inside), so it has full dimension at θ; and h ≡ 0 makes
      its outgoing weights free.  A first-layer neuron dead on R^d has w = 0: only its bias
      (b <= 0) and outgoing weights move;
    * a neuron whose outgoing weights are all 0: its incoming weights and bias (nobody reads
      it), those zeros kept but the ones into dead neurons (free among the dead neuron's own
      moves: with a margin it stays dead under small moves of its inputs' rows, as in the
      certificate's floor, three-layer-fibers R40) — for a dead one the larger of the two sets;
    * on a bounded domain, a silent neuron's incoming weights and bias (alive, read only by dead
      or silent neurons: its changes reach only dead neurons, kept dead by lowering their biases
      first — their own moves);
    * the moves of R34's structures (:func:`_structure_moves`): outgoing weight moved between
      positively parallel neurons, a linear neuron's bias trade, a constant neuron's outgoing
      weights traded with the next biases, and the bias trades, GL moves and (f) directions of
      always-active neurons that keep a margin under small moves of their rows.

    Dead neurons come from *patterns* (a complete walk) or interval bounds, and *proven*
    (:func:`semialgebraic.dimension.suspects.prove_suspects`), as in :func:`symmetry_directions`.
    *overcounted* (a list, filled when given): the neurons whose kernel directions are known to
    exceed their moves in the fiber (dead on R^d in the first layer: its w stays 0; with zero
    outgoing weights too it moves either w and b or b and v, where the kernel frees all three)
    and the structures whose kernel directions can leave the fiber, as sentences.
    """
    from algebra.kernel.domains import Domain
    # another Domain: (-1, 1) stands for "a bounded range", R^d for an unbounded one (fewer
    # moves); its interval facts still come from its own box, *real* (session 47: `conserved
    # --box 0:16,0:1` took the stand-in's, fiber >= 5 where it is 4)
    real = domain
    if isinstance(domain, Domain):
        if domain.legacy_or_none() != "other":
            domain = real = domain.legacy()
        else:
            domain = (Q(-1), Q(1)) if all(a is not None and b is not None
                                          for a, b in domain.intervals()) else None
    dom = normalize_domain(domain, net.n_inputs)
    if not isinstance(real, Domain):
        real = dom
    ever_on, always_on = _on_facts(net, real, patterns, proven or {})
    bounds = preactivation_bounds(net, domain=real)
    flat = [(lo, hi) for layer in bounds[:-1] for lo, hi in layer]
    if isinstance(dom, tuple) and patterns is not None:
        # on a cube, z >= 0 by interval bounds and not identically 0 is always active for the
        # moves even where z = 0 on a region (inactive in the patterns): its bias trade gives it
        # a margin (the certificate's active block, three-layer-fibers R40; `dim` had 6 where its
        # certificate said 7)
        always_on = [a or (lo is not None and lo >= 0 and hi is not None and hi > 0 and e)
                     for a, e, (lo, hi) in zip(always_on, ever_on, flat)]
    # z >= 0 by interval bounds in which each positively parallel group of the layer before
    # reads as one neuron (weights that cancel on a split pair count 0): always active for the
    # moves too, where ever active (on a cube as above; elsewhere :func:`_robust_active` decides
    # between its block's moves and its bias trade alone, session 47)
    starts = [sum(net.widths[1:1 + t]) for t in range(net.depth)]
    groups = {}
    for l, g in duplicate_groups(net):
        W, b = net.layer(l)
        ref = list(W.row_at(g[0])) + [b[g[0]]]
        groups.setdefault(l, []).append((g, [_ratio(ref, list(W.row_at(m)) + [b[m]]) for m in g]))
    for l in range(1, net.depth - 1):
        if not groups.get(l - 1):
            continue
        W, b = net.layer(l)
        box = relu_box(bounds[l - 1])
        for i in range(W.nrows):
            k = starts[l] + i
            if ever_on[k] and not always_on[k]:
                low = merged_lower(list(W.row_at(i)), b[i], box, groups[l - 1])
                always_on[k] = low is not None and low >= 0
    offs = parameter_offsets(net)
    entries: list = []
    fixed: set = set()
    free: set = set()
    overcount: list = [] if overcounted is None else overcounted
    g = 0
    starts = [sum(net.widths[1:1 + t]) for t in range(net.depth)]
    unseen = unseen_neurons(net, [[i for i in range(net.widths[t + 1]) if not ever_on[starts[t] + i]]
                                  for t in range(net.depth - 1)])
    for l in range(net.depth - 1):
        W, V, n_in = net.weights[l], net.weights[l + 1], net.widths[l]
        for i in range(W.nrows):
            win = [offs[l] + i * n_in + c for c in range(n_in)]
            bias = offs[l] + W.nrows * n_in + i
            wout = [offs[l + 1] + j * W.nrows + i for j in range(V.nrows)]
            entries.append(["scale", l, i])
            unread = all(V[j, i] == 0 for j in range(V.nrows)) or i in unseen[l]
            moves, keep = [], []
            if not ever_on[g]:
                if l == 0 and dom is None:          # dead on R^d: w = 0, b <= 0
                    moves, keep = [bias] + wout, win
                    overcount.append(f"neuron {(l + 1, i)} is dead on R^d: its incoming weights "
                                     "stay 0 in the fiber, the kernel frees them")
                else:
                    moves = win + [bias] + wout
            if unread and len(win) + 1 > len(moves):    # (unseen: its outgoing weights go only to
                nxt = set(unseen[l + 1]) if l + 2 < net.depth else set()   # unseen rows, free)
                if l + 2 < net.depth:       # and a dead successor's incoming weight from it is
                    nxt |= {j for j in range(V.nrows) if not ever_on[starts[l + 1] + j]}   # free
                moves, keep = win + [bias], [w for j, w in enumerate(wout) if j not in nxt]
            free.update(moves)
            fixed.update(keep)
            g += 1
    free_entries = [["free", p, {}] for p in sorted(free - fixed)]
    flags = silent_neurons(net, ever_on)            # dead, or read only by dead / silent ones
    structure = _structure_moves(net, dom, ever_on, always_on, flags, overcount)
    # silent neurons (alive, read only by dead or silent ones): on a bounded domain their rows
    # move once the dead ones below the margin their own moves give (after them)
    silent = []
    if dom is not None and dom != "orthant":
        g = 0
        for l in range(net.depth - 1):
            V = net.weights[l + 1]
            for i in range(net.widths[l + 1]):
                if flags[g] and ever_on[g] and any(V[k, i] != 0 for k in range(V.nrows)):
                    silent.append(["silent", l, i])
                g += 1
    # the order in which they compose (:func:`_structure_moves`); the free moves of dead and
    # unread neurons after them, then the silent rows, the opposite pairs' trades (they change
    # W_1[:, B], whose kernel a block's (f) directions need: .trades), the scalings (which act
    # on the whole fiber) last
    trades = [e for e in structure if e[0] == "opposite_trade"]
    structure = [e for e in structure if e[0] != "opposite_trade"]
    return structure + free_entries + silent + trades + entries


def _robust_active(net: Network, dom, l: int, i: int, ever_on, starts) -> bool:
    """Whether the moves of an always-active neuron (l, i) (z >= 0 on the domain) may be counted
    as if every (w, b) near its row kept it active.  On a bounded domain always: its bias trade
    (b + t, the next biases − t W_{l+1}[:, i], a move that keeps every structure of the next
    layer, proportional rows included) gives it the margin t at points of the fiber as near θ as
    one likes, and the fiber's dimension at θ is at least its dimension there (b = 0, w >= 0 on
    [0, 1]^2: two such neurons' block moves are moves at b = t; the fiber is 7 = N − rank).  On
    an unbounded one the bias trade gives the margin at finite inputs, and far away z grows like
    w · h^∞(r), h^∞ the network with every bias 0 (positively homogeneous: h(s r) = s h^∞(r) +
    O(1)): robust when w · h^∞(r) > 0 on every direction r of the domain where h^∞(r) != 0.
    Decided exactly with one or two inputs (:func:`_recession_points`; a 1-60-60-1 net on R had
    eight always-active second-layer neurons of mixed-sign rows, all growing both ways, and 3 of
    30 random 2-x-x-1 nets on R^2 such blocks); with more, shown by w > 0 on every input ever
    active (else not robust, the block listed).  A first-layer neuron
    always active on R^d has w = 0: never (a small w turns it off far away); on the orthant
    w > 0 and b > 0 (w · r > 0 on its directions)."""
    if dom is not None and dom != "orthant":
        return True
    W, b = net.layer(l)
    if l == 0:
        return dom == "orthant" and b[i] > 0 and all(W[i, c] > 0 for c in range(W.ncols))
    ins = [c for c in range(W.ncols) if ever_on[starts[l - 1] + c]]
    if all(W[i, c] > 0 for c in ins) and ins:
        return True
    if net.n_inputs > 2:
        return False
    rows = [w.to_rows() for w in net.weights[:l]]
    row = list(W.row_at(i))
    for h, z in _recession_points(rows, net.n_inputs, dom == "orthant"):
        if any(v != 0 for v in h) and z(row) <= 0:
            return False
    return True


def _recession_points(rows, d: int, orthant: bool):
    """``(h^∞(r), z)`` at the points r of the boundary of [−1, 1]^d ([0, 1]^d's far faces on
    the orthant) where the bias-free layers *rows* change pattern, and the ends of its edges:
    between two such points every bias-free pre-activation is affine along the edge, so a
    neuron's w · h^∞ is positive wherever h^∞ != 0 iff it is at these points (w · h^∞ and
    |h^∞|_1 both affine there, h^∞ >= 0).  d = 1: r = ±1; d = 2: the square's edges, their
    breakpoints found layer by layer exactly.  *z(row)* = row · h^∞(r)."""
    one, zero = Q(1), Q(0)

    def forward(x, upto=None):
        h = list(x)
        for Wt in rows[:upto]:
            h = [max(sum((a * v for a, v in zip(wr, h)), zero), zero) for wr in Wt]
        return h

    def pre(x, t):                       # pre-activations of bias-free layer t at x
        h = forward(x, t)
        return [sum((a * v for a, v in zip(wr, h)), zero) for wr in rows[t]]
    if d == 1:
        ends = [[one]] if orthant else [[one], [-one]]
        segments = []
    else:
        lo = zero if orthant else -one
        corners = [[one, lo], [one, one], [lo, one]] if orthant else \
            [[one, -one], [one, one], [-one, one], [-one, -one]]
        ends = corners
        segments = list(zip(corners, corners[1:])) if orthant else list(zip(corners, corners[1:] + corners[:1]))
    points = [list(e) for e in ends]
    for a, b in segments:
        ss = [zero, one]
        for t in range(len(rows)):
            new = []
            for s0, s1 in zip(ss, ss[1:]):
                x0 = [u + s0 * (v - u) for u, v in zip(a, b)]
                x1 = [u + s1 * (v - u) for u, v in zip(a, b)]
                for v0, v1 in zip(pre(x0, t), pre(x1, t)):
                    if v0 * v1 < 0:
                        new.append(s0 + (s1 - s0) * v0 / (v0 - v1))
            ss = sorted(set(ss) | set(new))
        points += [[u + s * (v - u) for u, v in zip(a, b)] for s in ss]
    for x in points:
        h = forward(x)
        yield h, (lambda row, h=h: sum((a * v for a, v in zip(row, h)), zero))


def _nongeneric_rows(net: Network, ever_on, read, starts, robust_blocks,
                     duplicate_ok, overcount) -> None:
    """R22's reading of N − rank as the fiber's dimension needs a generic θ.  Listed in
    *overcount* (unless a sentence there already names them): alive, read neurons of one layer
    whose hyperplanes are shared (rows and biases proportional, either sign; a split neuron
    whose outgoing columns are independent excepted, its fiber smooth), and alive,
    read neurons with a zero weight row that can turn off under small moves of it (a constant
    neuron on an unbounded domain).  Each is an equation on θ, where the fiber can be a union of
    pieces or have a singular point, and N − rank count the span of their tangents."""
    said = " ".join(overcount)
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        rows = []
        for i, row in enumerate(W.to_rows()):
            if not (ever_on[starts[l] + i] and read[l][i]):
                rows.append([])
                continue
            if all(v == 0 for v in row):
                if i not in robust_blocks[l] and str((l + 1, i)) not in said:
                    overcount.append(f"neuron {(l + 1, i)} has a zero weight row and can turn off "
                                     "under small moves of it (θ is not generic: R22's reading "
                                     "of N − rank needs a generic θ)")
                rows.append([])
                continue
            rows.append(row + [b[i]])   # shared hyperplanes: (row, bias) proportional
        for g in proportional_groups(rows):
            if (l, tuple(g)) in duplicate_ok:
                continue
            names = ", ".join(str((l + 1, i)) for i in g)
            if all(str((l + 1, i)) in said for i in g):
                continue
            overcount.append(f"neurons {names} share a hyperplane: θ is not generic, and R22's "
                             "reading of N − rank needs a generic θ")


def _structure_moves(net: Network, dom, ever_on, always_on, silent, overcount) -> list:
    """The moves of three-layer-fibers R34's structures that keep the function near θ, as
    entries (the format of :func:`~semialgebraic.dimension.upper.sparse_entry_vectors`, plus
    ``split_out``) in an order in which they compose: each is a move at every point the earlier
    ones reach (the fiber then holds a family with all of them as tangents, whose dimension is
    their rank).  And, in *overcount*, the structures whose kernel directions R34 shows the
    fiber does not have (so N − rank can exceed its dimension):

    * positively parallel rows (a duplicate group of neurons ever active with non-zero outgoing
      columns): (a), moving outgoing weight between them (``split_out``), is a move; (b), with a
      kernel of ``W_{l+1}[:, G]``, moves their rows apart, which the fiber does not (their
      common kink splits in two: a 2-3-1 net with a neuron split in two has N − rank = 6, fiber
      4); but when their contributions cancel, ``Σ_m c_m W_{l+1}[:, m] = 0`` with ``h_m = c_m
      h_r`` (:func:`~.upper.cancel_ratios`), the group's output is 0 whatever its common row is,
      and that row moves (``cancel``, an exact line in the fiber; none
      when a member is in a block with a margin or, in the first layer, in the opposite pairs' trade, and not over
      the columns of layer l − 1 that other moves need: a block's whose (f) directions need
      ``W_l[:, B]``, an opposite pair's, an unread or silent neuron's): a 3-4-1 net
      with 2 relu(z) − 4 relu(z/2) = 0 has the fiber 8 = N − rank, where the other moves give 5;
    * negatively parallel rows with parallel outgoing columns (R34 (d)): a linear neuron
      (μ = −1/c, relu(z) − relu(−z) = z) moves its bias with the next layer's (a move); any other
      μ (|x| = relu(x) + relu(−x)) would move the pair's kinks apart (kernel, not fiber);
    * constant neurons (R34 (e)): their outgoing weights trade with the next biases (moves);
    * always-active neurons (R34 (f), S4): when each keeps a margin under small moves of its row
      (:func:`_robust_active`: always on a bounded domain, through a bias trade), the bias
      trades, the GL moves of their linear block and (f)'s directions are moves; a block (two or
      more, read) with a member that does not (a first-layer neuron active on R^d has w = 0) is
      listed: its directions are two-sided in the kernel and can be one-sided or absent in the
      fiber (two constant first-layer neurons on R^2: N − rank 7, fiber 5); then its robust
      members' moves are used (a block of their own), and every other member trades its bias
      alone (one-sided: z + t >= 0, no margin needed);
    * first-layer neurons of opposite rows traded against the first layer's neurons active with
      a margin (:mod:`.trades`: outgoing weight moved so that the affine parts cancel, when the
      stacked rows have rank d), listed last and applied after every other move but the
      scalings (session-37 counts audit F3: a 1-5-2 net on a box, fiber [9, 11] where 11 is
      its value).

    The order: the cancelling groups' rows, from the first layer on (one of layer l changes rows
    of layer l only, which keep every fact of the groups of layer l + 1 and their cancelling; one
    of layer l + 1 changes columns of layer l, which would break it for layer l's, so those go
    first; each group's rows are still parallel as vectors when its move comes, which the splits
    of the layer before would break); the splits (they keep every pre-activation as a function;
    from the last layer back, so that each group's rows are still parallel, not only its
    functions), the linear
    neurons' trades, the constant neurons' trades (from the last layer back), then the moves of
    the blocks with a margin layer by layer from the input (always moves near θ; (f)'s needs
    the kernel of ``W_{l+1}[:, B]``, which only the layers before change).  Left out where a later move would need what an
    earlier one changes: the splits of a group with a member in a block of two or more (they
    change ``W_{l+1}[:, B]``), the trades of a linear neuron with a member in a duplicate group,
    and the trades of a constant neuron in a block of two or more (there they are in the span
    of the block's own moves: GL and bias trades) — blocks with a margin, whose moves are used.
    A constant neuron's bias trade is a move even without a margin (its row stays 0).
    """
    from .upper import cancel_ratios
    from .trades import opposite_rows, opposite_trade
    from algebra.linalg import QMatrix
    from algebra.linalg.gfp import rank_lower_bound
    starts = [sum(net.widths[1:1 + t]) for t in range(net.depth)]
    # "read": alive and seen by the outputs through alive neurons (a silent neuron is a free
    # row, not a member of any structure: moving outgoing weight to it would make it seen)
    read = [[not silent[starts[l] + i] for i in range(net.widths[l + 1])]
            for l in range(net.depth - 1)]
    blocks, robust_blocks = {}, {}
    for l in range(net.depth - 1):
        B = [i for i in range(net.widths[l + 1])
             if always_on[starts[l] + i] and ever_on[starts[l] + i] and read[l][i]]
        robust = [i for i in B if _robust_active(net, dom, l, i, ever_on, starts)]
        blocks[l] = B
        robust_blocks[l] = robust
        if len(B) >= 2 and len(robust) < len(B):
            loose = [i for i in B if i not in robust]
            rows = "their rows" if len(loose) > 1 else "its row"
            overcount.append(f"neurons {', '.join(str((l + 1, i)) for i in B)} form a linear block "
                             f"(always active), and {', '.join(str((l + 1, i)) for i in loose)} "
                             f"can turn off under small moves of {rows} (no margin shown): the "
                             "block's kernel directions can leave the fiber (three-layer-fibers "
                             "R34 (f))")
    for l in range(net.depth - 1):                 # unread neurons whose output the others span
        unread = [i for i in range(net.widths[l + 1])
                  if silent[starts[l] + i] and ever_on[starts[l] + i]]
        if not unread:
            continue
        W, b = net.layer(l)
        rows = [r + [b[i]] if ever_on[starts[l] + i] and any(v != 0 for v in r) else []
                for i, r in enumerate(W.to_rows())]
        mates = {i: [j for j in g if j != i] for g in proportional_groups(rows) for i in g}
        for i in unread:
            if mates.get(i) or always_on[starts[l] + i]:
                overcount.append(
                    f"neuron {(l + 1, i)} is unread (zero outgoing weights, or read only by dead "
                    "neurons) and its output is "
                    + (f"a multiple of that of {', '.join(str((l + 1, j)) for j in mates[i])} or of "
                       "its affine part" if mates.get(i) else "affine (always active)")
                    + ": the fiber meets two pieces there (its row free while it stays unread; "
                    "read, with its row tied), and the kernel spans both")
    # the blocks with a margin whose moves are used: the robust members of each layer's always-
    # active neurons (the others' rows stay: their z do not change under these moves, and they
    # trade their biases alone — as the certificate's active block of positive rows beside its
    # bias trades; a lone neuron beside a block of two had left `dim` 18 below its certificate's
    # 20, session 47)
    in_block = {(l, i) for l, R in robust_blocks.items() if len(R) >= 2 for i in R}
    splits, cancels, opposite, constant, robust_moves = [], [], [], [], []
    dup_members = set()
    duplicate_ok: set = set()
    for l, group in duplicate_groups(net):
        V = net.weights[l + 1]
        live = [m for m in group if ever_on[starts[l] + m] and read[l][m]]
        if len(live) < 2:
            continue
        dup_members.update((l, m) for m in live)
        if not any((l, m) in in_block for m in live):
            splits.append(["split_out", l, live])
        if not any((l, m) in in_block for m in live) and cancel_ratios(net, l, live):
            cancels.append(["cancel", l, live, []])    # (its skipped columns: below)
        C = QMatrix.from_rows([[V[k, m] for m in live] for k in range(V.nrows)], ncols=len(live))
        rc = rank_lower_bound(C)                    # mod p: at most the rank over Q
        if rc == len(live) and len(live) == len(group):
            duplicate_ok.add((l, tuple(group)))
        if rc < len(live):
            overcount.append(f"neurons {', '.join(str((l + 1, m)) for m in live)} have positively "
                             "parallel rows: the kernel moves them apart, the fiber keeps them "
                             "parallel (three-layer-fibers R34 (b))")
    for l, (r, m) in opposite_pairs(net):
        if not (ever_on[starts[l] + r] and ever_on[starts[l] + m]):
            continue
        W, b = net.layer(l)
        V = net.weights[l + 1]
        lam = _ratio(list(W.row_at(r)) + [b[r]], list(W.row_at(m)) + [b[m]])   # row_m = lam row_r
        mu = _ratio(list(V.col_at(r)), list(V.col_at(m)))                      # col_m = mu col_r
        if lam is not None and mu is not None and mu * lam == 1:
            if (l, r) not in dup_members and (l, m) not in dup_members:
                opposite.append(["opposite", l, [r, m]])
        else:
            overcount.append(f"neurons {(l + 1, r)}, {(l + 1, m)} have opposite rows whose kinks "
                             "the kernel moves apart (three-layer-fibers R34 (d))")
    for e in cancels:
        # the common row moves over the columns of layer l − 1 whose outgoing columns no other
        # move needs: not a block's whose (f) directions need W_l[:, B], not an opposite pair's
        # (parallel columns), not an unread or silent neuron's (columns that reach nobody)
        l = e[1]
        if l == 0:
            continue
        below = robust_blocks.get(l - 1, [])
        skip = set(below) if len(below) >= 2 else set()
        skip |= {i for t, pair in ((f[1], f[2]) for f in opposite) if t == l - 1 for i in pair}
        skip |= {i for i in range(net.widths[l]) if not read[l - 1][i]}
        e[3] = sorted(skip)
    dead = {(t, i) for t in range(net.depth - 1) for i in range(net.widths[t + 1])
            if not ever_on[starts[t] + i]}
    for l, i in constant_neurons(net, dead):      # (a silent one: its row moves instead)
        if read[l][i] and (l, i) not in in_block:
            constant.append(["constant", l, i])
            if i not in robust_blocks[l]:          # its bias trade (z = b + t stays > 0)
                constant.append(["active", l, i])
    for l in range(net.depth - 1):
        B = robust_blocks[l]
        robust_moves.extend(["active", l, i] for i in B)
        if len(B) >= 2:
            robust_moves += [["block", l, B], ["block_kernel", l, B]]
            W, b = net.layer(l)
            V = net.weights[l + 1]
            C = QMatrix.from_rows([[V[k, i] for i in B] for k in range(V.nrows)], ncols=len(B))
            A = QMatrix.from_rows([list(W.row_at(i)) + [b[i]] for i in B], ncols=W.ncols + 1)
            rc = rank_lower_bound(C)                # mod p: at most the rank (a lower one
            if rc < len(B) and rc < V.nrows and rank_lower_bound(A) < len(B):   # only flags more)
                overcount.append(
                    f"neurons {', '.join(str((l + 1, i)) for i in B)} form a linear block whose "
                    f"outgoing columns (rank {rc}) and rows (rank {rank_lower_bound(A)}) are both "
                    "deficient: the products C·A = M near θ form a singular set there, which the kernel "
                    "overcounts (three-layer-fibers R34 (f); a 2-3-2 net with two constant "
                    "neurons of opposite outgoing columns: N − rank = 9, fiber 8)")
    _nongeneric_rows(net, ever_on, read, starts, robust_blocks, duplicate_ok, overcount)
    splits.sort(key=lambda e: -e[1])          # deeper layers first: a split of layer l moves
    constant.sort(key=lambda e: -e[1])        # rows of layer l + 1 (keeping their functions)
    trade = []                                # opposite first-layer pairs against the neurons
    if net.depth > 1:                         # active with a margin (applied last: fiber_moves)
        off = {i for i in range(net.widths[1]) if not ever_on[i] or not read[0][i] or always_on[i]}
        got = opposite_trade(net, 0, opposite_rows(net, 0, off), robust_blocks[0])
        if got is not None:
            got["skip_rows"] = sorted(m for t, m in dup_members if t == 1)
            trade.append(["opposite_trade", 0, got])
            # a first-layer cancelling group with a member in the trade's pairs: the trade would
            # move that member's outgoing weight alone (as the certificate's rule)
            paired = {i for pq in got["pairs"] for i in pq}
            cancels = [e for e in cancels if e[1] != 0 or not paired & set(e[2])]
    # the bias trade alone of an always-active neuron with no margin shown (z >= 0 on the
    # domain, so z + t >= 0 for t >= 0: a one-sided move, which bounds the local dimension as
    # well): no other move changes z as a function but its own block's and its cancelling
    # group's (excluded: a member of a robust block already has it; a split member's bias would
    # break its group's rows), so it holds wherever they lead.  (A two-layer split neuron whose
    # halves cancel, read by neuron (1, 0) with weights 1, −1: z = 2 h_2 + 1/5 > 0 on R^2 but
    # no margin is shown by its row's signs: fiber 10, [9, 10] without it.)
    have = {(e[1], e[2]) for e in constant + robust_moves if e[0] == "active"}
    have |= {(l, i) for l, i in constant_neurons(net, dead)} | dup_members
    lone = [["active", l, i] for l in range(net.depth - 1) for i in blocks[l] if (l, i) not in have]
    cancels.sort(key=lambda e: e[1])          # the first layer first (module docstring)
    return cancels + splits + opposite + constant + robust_moves + lone + trade


BOTTLENECK_HIDDEN = 64
"""A three-layer bottleneck on R^d with at most this many hidden neurons has its fiber dimension
settled by three-layer-fibers R17 in :func:`fiber_lower` (the check of G0–G8 is not stopped by a
budget: G8 took 7 s on a 24-1 200-2 net)."""


def fiber_lower(net: Network, domain: Any, patterns, proven, corank: int | None,
                budget=None, generic: bool = True, why: list | None = None) -> tuple[int, str]:
    """``(lower bound of the fiber's dimension, how it meets corank)`` for the fiber dimension of a
    ``dim`` / ``conserved`` answer; *corank* = N − rank (N − the upper bound of the rank when it
    is not exact: then a lower end; None: not known).

    * ``"moves"``: :func:`fiber_floor` reaches *corank* (every kernel direction a move that keeps
      the function near θ: the rank is locally constant);
    * ``"R17"``: a three-layer bottleneck on R^d satisfying G0–G8 whose R17 value is *corank* (on
      the open set where G0–G8 hold, R17's value depends only on sign and type data fixed near θ);
    * ``"R22"``: no kernel direction is known to exceed the fiber: N − rank is three-layer-fibers
      R22's local fiber dimension, exact where the rank is locally constant (an open dense set of
      θ; a kernel direction left unexplained by the known symmetries is read so); the first
      value is then the moves' rank, and the caller checks the hypothesis at a random θ' near θ
      (:func:`semialgebraic.dimension.functional.nearby_rank_jump`) before reading N − rank so;
    * ``""``: a neuron's kernel directions are known to exceed its moves in the fiber (a
      first-layer neuron dead on R^d has w = 0 fixed; with zero outgoing weights too it moves
      either w and b or b and v, not all three), or θ is known not to be generic (*generic*
      False: a region of the domain holds no differentiable input, a neuron's pre-activation
      vanishing on it while the network above sees it; the rank can then jump at θ' near θ —
      a 2-1-2-2 net with such a neuron (bias 0, its input off on a region) has N − rank = 8
      and a fiber of dimension 7), or a structure of R34 whose kernel directions can leave the
      fiber is present (positively parallel rows with a kernel of their outgoing columns, an
      opposite pair that is not a linear neuron, a linear block of always-active neurons without
      a margin: :func:`_structure_moves`; session 30: a 2-3-1 net with a neuron split in two was
      reported fiber dimension 6 where it is 4, two constant neurons on R^2 7 where it is 5):
      only the bounds ``(fiber_floor, corank)`` hold.

    *why* (a list, filled when given): the structures that make N − rank an upper bound only.
    """
    from algebra.kernel.domains import Domain
    if isinstance(domain, Domain) and domain.legacy_or_none() != "other":
        domain = domain.legacy()
    over: list = [] if why is None else why
    floor = fiber_floor(net, domain, patterns, proven, over, budget)
    if (corank is None or floor < corank) and net.n_parameters <= CERT_FLOOR_PARAMETERS and \
            (domain is None or domain == "orthant" or isinstance(domain, tuple)) and \
            (budget is None or not budget.exhausted()):
        # the certificate's moves too (fiber_floor.py: their facts from θ alone, re-checked
        # whenever a certificate is written): the two sets differ (a silent neuron's row against
        # an active block, s46/s47 audits: `dim` 30 where its certificate said 32), and `dim`
        # without --certificate said less than with it
        from .fiber_floor import certified_fiber_floor
        floor = max(floor, certified_fiber_floor(net, normalize_domain(domain, net.n_inputs),
                                                 max_block_entries=CERT_FLOOR_BLOCK_ENTRIES)[1])
    if corank is None:
        return floor, ""
    if floor >= corank:              # (= corank when the rank is exact: floor <= N - rank)
        return floor, "moves"
    if (domain is None and net.depth == 3 and net.widths[1] <= net.widths[0]
            and net.n_hidden <= BOTTLENECK_HIDDEN):
        from ..bottleneck import dimension_formula
        r17 = dimension_formula(net)
        if r17.exact and r17.value == corank:
            return corank, "R17"
    if not over and generic:
        return floor, "R22"            # the value N − rank; the moves' rank kept (a checked reading)
    return floor, ""


CERT_FLOOR_PARAMETERS = 1500
CERT_FLOOR_BLOCK_ENTRIES = 5000
""":func:`fiber_lower` also ranks the certificate's moves (:func:`~.fiber_floor.certified_fiber_floor`)
on nets of at most this many parameters, their active blocks within this many vector entries
(about 0.5 s: :data:`~.fiber_floor.SECONDS_PER_ENTRY`), where its own moves stay below N − rank."""

KINK_CAP_PARAMETERS = 600
""":func:`shared_kink_cap` runs on one-hidden-layer nets of at most this many parameters (it walks
every region and takes the exact Jacobian rows there)."""
KINK_CAP_REGIONS = 400
KINK_CAP_CLASS = 10
"""Largest class of neurons on one hyperplane whose sub-sums :func:`shared_kink_cap` enumerates."""


def shared_kink_cap(net: Network, domain: Any = None, budget=None) -> int | None:
    """An upper bound of the fiber's dimension below N − rank for a one-hidden-layer net whose
    neurons share hyperplanes (split neurons, opposite pairs), or None (not one hidden layer,
    too large, a walk that did not complete, or no class it constrains).

    Neurons of one class (read, switching inside the domain, rows and biases proportional:
    row_m = λ_m row_r) put on their hyperplane H the kink |λ_m| V[:, m] ⊗ w each (the jump of
    the gradient across it).  Near θ a kink of the function stays where it is and nothing else
    can cancel one: another neuron's hyperplane stays near its own.  So if no proper, non-empty
    subset S of the class has Σ_S |λ_m| V[:, m] = 0, its members keep one common hyperplane in
    the whole fiber near θ (H itself, or any one near it when the class's total kink is 0):
    the fiber lies in P = {each class's rows proportional, with their signs}.  Its dimension is
    then at most that of ker J ∩ T_P, J the exact Jacobian rows at d + 1 inputs of every region
    (the tangent cone of the fiber of the evaluation map lies in ker J), taken with the rank
    mod p (at most the rank over Q: the bound only grows).  A neuron split in two beside one
    more (2-3-1): N − rank 6, this 4, the fiber 4; |x| = relu(x) + relu(−x): 3, this 2.

    On R^d a zero row with a bias b != 0 (a constant or dead neuron, read) puts, once its w
    leaves 0, a kink |b_m| V[:, m] ⊗ w' on a hyperplane far away, where only other zero rows can
    follow: when no non-empty set of them sums to 0, every such w stays 0 in the fiber (two
    constant first-layer neurons on R^2 beside one more: N − rank 7, this 5, the fiber 5)."""
    if net.depth != 2 or net.n_parameters > KINK_CAP_PARAMETERS:
        return None
    from algebra.kernel.domains import Domain
    from algebra.linalg.gfp import rank_lower_bound
    from ..regions import regions as walk_regions
    from ..sets import Polyhedron
    from .jacobian import exact_jacobian_rows
    from .sampling import simplex_points
    if isinstance(domain, Domain):
        if domain.legacy_or_none() == "other":
            return None
        domain = domain.legacy()
    d = net.n_inputs
    dom = normalize_domain(domain, d)
    poly = None if dom is None else Polyhedron.orthant(d) if dom == "orthant" else Polyhedron.box(d, *dom)
    walk = walk_regions(net, domain=poly, max_regions=KINK_CAP_REGIONS, progress=False,
                        timeout=None if budget is None else budget.remaining())
    regs = list(walk)
    if not walk.complete or not regs or budget is not None and budget.exhausted():
        return None
    W, b = net.layer(0)
    V = net.weights[1]
    n = W.nrows
    on = [any(r.pattern[i] > 0 for r in regs) for i in range(n)]
    off = [any(r.pattern[i] <= 0 for r in regs) for i in range(n)]
    cols = list(zip(*V.to_rows()))
    rows = [(r + [b[i]]) if on[i] and off[i] and any(v != 0 for v in cols[i]) and any(v != 0 for v in r)
            else [] for i, r in enumerate(W.to_rows())]
    from itertools import combinations
    offs = parameter_offsets(net)
    n_in = W.ncols

    def coords(i):
        return [offs[0] + i * n_in + c for c in range(n_in)] + [offs[0] + n * n_in + i]
    tied: dict = {}                    # member m -> (representative r, λ_m)
    for g in proportional_groups(rows):
        if len(g) > KINK_CAP_CLASS:
            continue
        r = g[0]
        piv = next(k for k, v in enumerate(rows[r]) if v != 0)
        lam = {m: rows[m][piv] / rows[r][piv] for m in g}
        jumps = {m: [abs(lam[m]) * v for v in cols[m]] for m in g}
        if any(all(sum((jumps[m][k] for m in S), Q(0)) == 0 for k in range(V.nrows))
               for size in range(1, len(g)) for S in combinations(g, size)):
            continue
        for m in g[1:]:
            tied[m] = (r, lam[m])
    zero_w: set = set()                # R^d: zero rows keep w = 0 (a far kink nothing cancels)
    if dom is None:
        Wrows = W.to_rows()
        Z = [i for i in range(n) if b[i] != 0 and all(v == 0 for v in Wrows[i])
             and any(v != 0 for v in cols[i])]
        if 0 < len(Z) <= KINK_CAP_CLASS and not any(
                all(sum((abs(b[m]) * cols[m][k] for m in S), Q(0)) == 0 for k in range(V.nrows))
                for size in range(1, len(Z) + 1) for S in combinations(Z, size)):
            zero_w = {p for m in Z for p in coords(m)[:-1]}
    if not tied and not zero_w:
        return None
    if budget is not None and budget.exhausted():
        return None
    N = net.n_parameters
    dropped = {p for m in tied for p in coords(m)} | zero_w
    basis: list[dict] = [{p: Q(1)} for p in range(N) if p not in dropped]
    reps = {r for r, _ in tied.values()}
    unit = {next(iter(e)): e for e in basis}
    for r in reps:                     # r's row moves carry its class along
        for k, p in enumerate(coords(r)):
            v = unit[p]
            for m, (r2, lam) in tied.items():
                if r2 == r:
                    v[coords(m)[k]] = lam
    for m, (r, _) in tied.items():     # and each member its own factor
        basis.append({p: rows[r][k] for k, p in enumerate(coords(m)) if rows[r][k] != 0})
    pts = [p for reg in regs for p in simplex_points(net, reg.point, reg.pattern, dom)]
    J = exact_jacobian_rows(net, pts)
    from algebra.linalg import QMatrix
    out = []
    for row in J:
        if budget is not None and budget.exhausted():
            return None
        out.append([sum((row[p] * w for p, w in v.items()), Q(0)) for v in basis])
    M = QMatrix.from_rows(out, ncols=len(basis))
    return len(basis) - rank_lower_bound(M)
