r"""Branch-and-bound emptiness proofs inside ``functional_dimension`` certificates.

A proof ``{"targets": [[t, j, s], ...], "bab_tree": <tree>}`` (one target, or two in different
hidden layers) claims that no input of the domain has ``s·z_t[j] > 0`` for every target.  The
checker rebuilds, from θ and the domain alone, a one-output network ``G`` and a box ``B`` with
``max_B G <= 0  ⇒  the claim`` and replays the tree with the ``bab_bound`` tree checker
(:func:`semialgebraic.verify.bab_bound._check_tree`: every leaf's bound recomputed exactly, the
leaves cover the box), asking every leaf bound to be ``<= 0``.

``G`` (built here independently of :mod:`semialgebraic.bab.emptiness`):

* one target ``(t, j, s)``: the layers of θ up to ``t``, the last one reduced to the row
  ``s·(W_t[j], b_t[j])``: ``G = s·z_t[j]``;
* two targets ``(t1, j1, s1)``, ``(t2, j2, s2)``, ``t1 < t2``: layer ``t1`` gets one more neuron
  ``u = relu(s1·z_{t1}[j1])``, copied by a weight-1 neuron into every hidden layer up to
  ``t2 − 1`` (``relu(u) = u``); then a hidden layer ``(relu(u), relu(u − s2·z_{t2}[j2]))`` and the
  output ``G = u − relu(u − y) = min(u, y)``, ``y = s2·z_{t2}[j2]``.  ``G > 0`` exactly where every
  target sign holds;
* box domain ``[lo, hi]``: ``B = [lo, hi]^d``.  R^d (orthant): input ``(x, τ)``, ``B = [−1, 1]^d
  × [0, 1]`` (``[0, 1]^{d+1}``), every bias put on a weight-1 neuron ``τ`` carried through each
  hidden layer (``relu(τ) = τ``); ReLU is positively homogeneous, so ``G(x/r, 1/r) = g(x)/r`` for
  ``r = max(1, |x|_∞)``: ``G <= 0`` on ``B`` gives ``g <= 0`` at every input.

A conditioned proof ``{"targets", "conditioned": [piece, ...]}`` (:func:`check_conditioned`)
instead shows that the closed set ``{s·z_t[j] >= 0 for every target}`` is empty on every piece:
the domain box, or on R^d (orthant) the faces ``τ = 1`` and ``x_k = ±1`` (``x_k = 1``) of the
homogenised box, in that order, built here (every input with all target signs strict scales,
``(x, 1)/max(1, |x|_∞)``, onto one of them with the same signs).  The network is the one-target
``G`` of the deeper target (output ``s2·z_c``); each piece's steps are replayed in order
(:func:`_check_piece`), and a piece may split a hidden neuron into its halves ``z <= 0`` and
``z >= 0`` (a tree, :func:`_check_node`), each half replayed from its parent's intervals.
With ``"deeper_only": true`` (pairs only) the first target is not clipped: the pieces are
conditioned on ``s2·z_c >= 0`` alone, and a leaf may end ``{"sign": [t1, j1]}`` when its
interval of the first target is on the other side (``s1·z <= 0``): every point with both signs
strict lies in the conditioned set of some leaf, none of which has ``s1·z_{t1}[j1] > 0``.  One
tree of :func:`semialgebraic.bab.emptiness.decide_shared` so serves every shallow neuron it
closes.

A *shared proof* (a ``functional_dimension`` certificate's top-level table ``shared_proofs``,
:class:`SharedProofs`) ``{"deeper": [t2, j2, s2], "shallow": [[t1, j, s1], ...], "conditioned":
[piece, ...]}`` is one such ``deeper_only`` tree stored once for every pair ``(shallow_j,
deeper)`` it closes: its sign ends are ``{"sign": null}``, where *every* listed shallow target is
on its other side (``s1·z_{t1}[j] <= 0`` for each).  A pair's proof then only refers to it:
``{"targets": [[t1, j, s1], [t2, j2, s2]], "shared": i, "parameter"?}`` (``i`` an index into the
table; the pair's shallow target listed there, its deeper target the table entry's).  Each table
entry is replayed once, at its first reference, and its verdict reused; an entry no proof
refers to is malformed (every number of a certificate is checked).

The mirror (:func:`semialgebraic.bab.emptiness.decide_shared_shallow`): a table entry
``{"conditioned_on": "shallow", "shallow": [t1, j1, s1], "deeper": [[t2, j, s2], ...] (sorted,
one layer t2 > t1), "conditioned": [piece, ...]}`` closes every pair ``(shallow, deeper_j)``.
The checker rebuilds its network from θ and the entry (:func:`_mirror_network`: the layers of θ
up to ``t2``, homogenised as above, its outputs the rows ``y_j = s2·z_{t2}[j]`` of every listed
deeper target) and replays each piece with the shallow neuron clipped to ``s1·z_{t1}[j1] >= 0``
and *no* output clipped; a leaf is empty (interval, Farkas) or ends ``{"sign": null}`` with every
output interval ``hi <= 0``.  Soundness: a point of the domain with ``s1·z_{t1}[j1] > 0`` and
``y_j > 0`` maps (positive homogeneity, as above) to a point of some piece with the same strict
signs; it lies in the piece's conditioned set, so (the splits cover their node, every step is
valid on the node's part of that set) in some leaf; not an empty one, and a sign leaf has ``y_j
<= 0`` there: a contradiction.  So no input has both signs, for every listed ``j``.

So a checked tree proof shows the closed statement "``g <= 0`` on the domain", which excludes every
input (differentiable or not) with all target signs strict.

Imports ``algebra`` and other ``verify`` modules only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.linalg import QMatrix, interval_image
from algebra.rationals import Q, to_q

from .bab_bound import _check_tree, _mu_w

__all__ = ["is_bab_proof", "check_bab_empty", "check_conditioned", "SharedProofs"]

_Z, _I = Q(0), Q(1)


def is_bab_proof(proof) -> bool:
    """Whether *proof* is in the branch-and-bound form (a ``bab_tree`` key), the conditioned
    form (a ``conditioned`` key, :func:`check_conditioned`) or a reference to a shared proof (a
    ``shared`` key, :class:`SharedProofs`)."""
    return isinstance(proof, dict) and ("bab_tree" in proof or "conditioned" in proof or "shared" in proof)


def check_bab_empty(net, proof, lo_hi, targets: dict, shared: "SharedProofs | None" = None) -> bool:
    """True when *proof* shows that no input of the domain *lo_hi* (None: R^d, ``"orthant"``,
    or ``(lo, hi)``) has ``s·z_t[j] > 0`` for every ``((t, j), s)`` of *targets*; False when it
    does not (wrong targets, a leaf bound above 0 or not recomputed).  Raises InputError when
    the tree is malformed.  A conditioned proof goes to :func:`check_conditioned`; a reference
    ``{"targets", "shared": i}`` to the table *shared* (:class:`SharedProofs`; without a table:
    False)."""
    if "shared" in proof:
        return _check_reference(proof, targets, shared)
    if "conditioned" in proof:
        return check_conditioned(net, proof, lo_hi, targets)
    want = _targets(proof, targets)
    if want is None:
        return False
    if set(proof) - {"targets", "bab_tree", "parameter"}:
        raise InputError("a branch-and-bound emptiness proof holds 'targets' and 'bab_tree' only")
    rows, biases = _aux_network(net, lo_hi, want)
    d = net.n_inputs
    if isinstance(lo_hi, tuple):
        box = [(lo_hi[0], lo_hi[1]) for _ in range(d)]
    else:
        low = _Z if lo_hi == "orthant" else -_I
        box = [(low, _I) for _ in range(d)] + [(_Z, _I)]
    if _pair_leaf(proof["bab_tree"]):
        return False                   # the auxiliary network is not a pair a - b
    aux = {"rows": rows, "biases": biases, "mats": [QMatrix.from_rows(r, ncols=len(r[0])) for r in rows],
           "seen": {}, "deltas": {}, "pairs": {}, "neurodiff": False, "paired": False,
           "halfspaces": []}
    ok, _ = _check_tree(aux, box, [_I], proof["bab_tree"], _Z)
    return ok


def _pair_leaf(node) -> bool:
    """Whether a tree has a leaf that only a difference network a − b can prove (a differential
    bound, or pair-row multipliers): the auxiliary network has no neuron pairs."""
    if isinstance(node, dict):
        if node.get("by") == "differential" or "gamma" in node or "eta" in node:
            return True
        return any(_pair_leaf(ch) for ch in node.get("children", ()) or ())
    return isinstance(node, list) and any(_pair_leaf(ch) for ch in node)


def _targets(proof, targets: dict):
    """The sorted ``(t, j, s)`` of *targets* when the proof's ``targets`` list them exactly (one
    neuron, or two neurons of different layers), else None."""
    want = sorted((t, j, s) for (t, j), s in targets.items())
    got = proof.get("targets")
    if not isinstance(got, list) or len(got) != len(want) or not all(
            isinstance(v, list) and len(v) == 3 and all(type(x) is int for x in v) for v in got):
        return None                    # (entries of another shape: not these targets)
    if sorted(tuple(v) for v in got) != want:
        return None
    if not 1 <= len(want) <= 2 or (len(want) == 2 and want[0][0] == want[1][0]):
        return None
    return want


def _aux_network(net, lo_hi, want) -> tuple[list, list]:
    """Rows and biases of ``G`` (module docstring).  Units of a layer are named: ``("n", j)``
    the neurons of θ, ``"u"`` the carried first target, ``"tau"`` the homogenising input."""
    homog = not isinstance(lo_hi, tuple)
    prev = [("n", k) for k in range(net.n_inputs)] + (["tau"] if homog else [])
    first = want[0] if len(want) == 2 else None
    t_top, j_top, s_top = want[-1]
    rows, biases = [], []

    def affine(t, j, s) -> dict:
        """``s·z_t[j]`` over the units of the previous layer: {unit: coefficient}, constant."""
        W, b = net.layer(t)
        form = {("n", k): s * W[j, k] for k in range(W.ncols)}
        if homog:
            form["tau"] = s * b[j]
            return {"form": form, "const": _Z}
        return {"form": form, "const": s * b[j]}

    def emit(units):
        names = [nm for nm, _ in units]
        rows.append([[spec["form"].get(p, _Z) for p in prev] for _, spec in units])
        biases.append([spec["const"] for _, spec in units])
        return names

    for t in range(t_top):
        W, _ = net.layer(t)
        units = [(("n", j), affine(t, j, 1)) for j in range(W.nrows)]
        if first is not None and t == first[0]:
            units.append(("u", affine(t, first[1], first[2])))
        elif "u" in prev:
            units.append(("u", {"form": {"u": _I}, "const": _Z}))
        if homog:
            units.append(("tau", {"form": {"tau": _I}, "const": _Z}))
        prev = emit(units)
    y = affine(t_top, j_top, s_top)
    if first is None:
        emit([("g", y)])
        return rows, biases
    gap = {p: -c for p, c in y["form"].items()}
    gap["u"] = gap.get("u", _Z) + _I
    prev = emit([("keep", {"form": {"u": _I}, "const": _Z}), ("gap", {"form": gap, "const": -y["const"]})])
    emit([("g", {"form": {"keep": _I, "gap": -_I}, "const": _Z})])
    return rows, biases


# -- conditioned proofs: {s·z_t[j] >= 0 for every target} empty on every piece ----------------------
def check_conditioned(net, proof, lo_hi, targets: dict) -> bool:
    """True when the conditioned proof ``{"targets", "conditioned": [piece, ...]}`` shows that no
    input of the domain has ``s·z_t[j] > 0`` for every target (rules in the docstring of
    :func:`_check_piece`); False when it does not.  InputError when malformed."""
    want = _targets(proof, targets)
    if want is None:
        return False
    if set(proof) - {"targets", "conditioned", "parameter", "deeper_only"}:
        raise InputError("a conditioned emptiness proof holds 'targets', 'conditioned' and "
                         "'deeper_only' only")
    deeper_only = proof.get("deeper_only", False)
    if deeper_only not in (True, False) or (deeper_only and len(want) != 2):
        return False                   # conditioning on the deeper target alone needs a pair
    rows, biases = _aux_network(net, lo_hi, want[-1:])
    boxes = _pieces(lo_hi, net.n_inputs)
    pieces = proof["conditioned"]
    if not isinstance(pieces, list) or len(pieces) != len(boxes):
        return False                   # the pieces must be exactly the faces (the cover)
    first = want[0] if len(want) == 2 else None
    return all(_check_piece(rows, biases, box, first, piece, clip=not deeper_only)
               for box, piece in zip(boxes, pieces))


def _pieces(lo_hi, d):
    """The domain box, or the faces of the homogenised box every ray meets: ``τ = 1``, then
    ``x_k = 1``, ``x_k = −1`` per ``k`` (``x_k = 1`` only on the orthant).  A point ``x`` with
    every target sign strict gives ``(x, 1)/max(1, |x|_∞)`` on one of them with the same strict
    signs (positive homogeneity)."""
    if isinstance(lo_hi, tuple):
        return [[(lo_hi[0], lo_hi[1])] * d]
    low = _Z if lo_hi == "orthant" else -_I
    out = [[(low, _I)] * d + [(_I, _I)]]
    for k in range(d):
        for s in ((_I,) if lo_hi == "orthant" else (_I, -_I)):
            b = [(low, _I)] * d + [(_Z, _I)]
            b[k] = (s, s)
            out.append(b)
    return out


def _check_piece(rows, biases, box, first, piece, clip=True, mirror=False) -> bool:
    """One piece: the exact interval image of *box* layer by layer (``relu`` between layers),
    the first target's neuron clipped to its side (``s1 = 1``: ``lo := max(lo, 0)``; ``−1``:
    ``hi := min(hi, 0)``; not when *clip* is False: a ``"deeper_only"`` proof, conditioned on
    the deeper target alone) and the output ``s2·z_c`` to ``>= 0``: the conditioned set, which
    holds every point of the piece with every target sign strict.  Empty intervals: proved
    (the piece must then be ``{"steps": [], "end": {"interval": None}}``).  Then the piece's
    tree is replayed from those intervals (:func:`_check_node`).  With *mirror* (a shared proof
    conditioned on the shallow target, :class:`SharedProofs`) *first* is that target, clipped,
    no output is clipped (the outputs are the deeper targets' rows ``s2·z_{t2}[j]``), and a sign
    end must have every output ``<= 0``."""
    if not isinstance(piece, dict) or not isinstance(piece.get("steps"), list):
        raise InputError("a conditioned piece holds 'steps' (a list) and 'end', or 'split' and 'children'")
    ivs, cur = [], list(box)
    L = len(rows)
    for l in range(L):
        layer = list(interval_image(rows[l], cur, biases[l]))
        if clip and first is not None and l == first[0]:
            lo, hi = layer[first[1]]
            layer[first[1]] = (max(lo, _Z), hi) if first[2] > 0 else (lo, min(hi, _Z))
        if l == L - 1 and not mirror:
            layer = [(max(layer[0][0], _Z), layer[0][1])]
        if any(lo > hi for lo, hi in layer):
            return piece == {"steps": [], "end": {"interval": None}}
        ivs.append(layer)
        cur = [(max(lo, _Z), max(hi, _Z)) for lo, hi in layer]
    if mirror:                         # the sign end: every output (a deeper target) <= 0
        first = [(L - 1, k, 1) for k in range(len(rows[-1]))]
    return _check_node(rows, biases, box, ivs, piece, sum(len(r) for r in rows[:-1]), first)


def _check_node(rows, biases, box, ivs, node, depth, first=None) -> bool:
    """One node of a piece's tree over the intervals *ivs* (valid on the node's part of the
    conditioned set).  Each step ``{"at": [l, j], "side": ±1, "bound": v, "mu", "alpha",
    "beta"}`` must have multipliers of the right signs for the *current* intervals (α, β ≥ 0 on
    unstable neurons, β = 0 on stable active ones, both 0 on stable inactive ones) whose
    Neumaier–Shcherbina bound of ``side·z_{l,j}`` over the triangle relaxation of every layer
    (:func:`_relaxed_max`) is ``<= v``; the interval of ``(l, j)`` is then cut at ``side·z <=
    v``.  A leaf ``{"steps", "end"}`` is proved when ``"end"`` is ``{"interval": [l, j]}`` and
    the last step left that interval empty, or ``{"farkas": {"mu", "alpha", "beta"}}`` whose
    bound of the zero objective is ``< 0``, or ``{"sign": [t1, j1]}`` naming the first target
    *first* ``(t1, j1, s1)`` whose interval after the steps is on its other side (``s1 = 1``:
    ``hi <= 0``; ``−1``: ``lo >= 0``): no point of the node has ``s1·z_{t1}[j1] > 0`` (in a shared
    proof *first* is the list of its shallow targets and the end is ``{"sign": None}``: every one
    of them on its other side).  A split ``{"steps", "split": [l, j], "children":
    [c0, c1]}`` (``l`` a hidden layer) is proved when both halves are: ``c0`` with ``hi :=
    min(hi, 0)`` on ``(l, j)`` (the points with ``z_{l,j} <= 0``), ``c1`` with ``lo := max(lo,
    0)`` (``z_{l,j} >= 0``); the two halves cover the node.  A half whose interval is then empty
    must be ``{"steps": [], "end": {"interval": None}}``.  At most *depth* nested splits."""
    if not isinstance(node, dict) or set(node) not in ({"steps", "end"}, {"steps", "split", "children"}) \
            or not isinstance(node["steps"], list):
        raise InputError("a conditioned piece holds 'steps' (a list) and 'end', or 'split' and 'children'")
    L = len(rows)
    ivs = [list(layer) for layer in ivs]
    end = node.get("end")
    steps = node["steps"]
    for n, st in enumerate(steps):
        if not isinstance(st, dict) or set(st) != {"at", "side", "bound", "mu", "alpha", "beta"}:
            raise InputError("a conditioned step holds 'at', 'side', 'bound', 'mu', 'alpha', 'beta'")
        at, side = st["at"], st["side"]
        if (not isinstance(at, list) or len(at) != 2 or not all(type(v) is int for v in at)
                or not 0 <= at[0] < L or not 0 <= at[1] < len(ivs[at[0]]) or side not in (1, -1)):
            raise InputError(f"conditioned step at {at!r}, side {side!r} is not a neuron and a sign")
        v = to_q(st["bound"])
        got = _relaxed_max(rows, biases, box, ivs, {(at[0], at[1]): Q(side)},
                           {k: st[k] for k in ("mu", "alpha", "beta")})
        if got is None or got > v:
            return False
        l, j = at
        lo, hi = ivs[l][j]
        ivs[l][j] = (lo, min(hi, v)) if side > 0 else (max(lo, -v), hi)
        if ivs[l][j][0] > ivs[l][j][1]:
            return n == len(steps) - 1 and end == {"interval": [l, j]}
    if "split" in node:
        at, kids = node["split"], node["children"]
        if (not isinstance(at, list) or len(at) != 2 or not all(type(v) is int for v in at)
                or not 0 <= at[0] < L - 1 or not 0 <= at[1] < len(ivs[at[0]])
                or not isinstance(kids, list) or len(kids) != 2):
            raise InputError(f"conditioned split at {at!r} is not a hidden neuron with two children")
        if depth <= 0:
            return False
        l, j = at
        lo, hi = ivs[l][j]
        for half, kid in zip(((lo, min(hi, _Z)), (max(lo, _Z), hi)), kids):
            if half[0] > half[1]:
                if kid != {"steps": [], "end": {"interval": None}}:
                    return False
                continue
            sub = [list(layer) for layer in ivs]
            sub[l][j] = half
            if not _check_node(rows, biases, box, sub, kid, depth - 1, first):
                return False
        return True
    if isinstance(end, dict) and set(end) == {"sign"}:
        if isinstance(first, list):            # a shared proof: {"sign": null}, every shallow target
            if end["sign"] is not None or not first:
                return False
            named = first
        elif first is None or end["sign"] != [first[0], first[1]]:
            return False
        else:
            named = [first]
        return all(ivs[t][j][1] <= 0 if s > 0 else ivs[t][j][0] >= 0 for t, j, s in named)
    if not isinstance(end, dict) or set(end) != {"farkas"}:
        return False
    got = _relaxed_max(rows, biases, box, ivs, {}, end["farkas"])
    return got is not None and got < 0


def _relaxed_max(rows, biases, box, ivs, obj, mult):
    """The exact bound of ``Σ obj[(l, j)]·z_{l,j}`` by the multipliers *mult* (``mu`` per layer,
    ``alpha``, ``beta`` per hidden layer) over the triangle relaxation of *ivs* (rows ``z_l −
    W_l h_{l−1} = b_l``; unstable: ``z − h <= 0`` (α), ``h − s z <= −s lo``, ``s = hi/(hi −
    lo)`` (β); active ``z − h = 0``; inactive ``h = 0``), every variable in its interval; None
    when a multiplier has the wrong sign.  InputError when malformed."""
    L = len(rows)
    if not isinstance(mult, dict) or set(mult) != {"mu", "alpha", "beta"}:
        raise InputError("conditioned multipliers hold 'mu', 'alpha', 'beta'")
    for key, n in (("mu", L), ("alpha", L - 1), ("beta", L - 1)):
        if not isinstance(mult[key], list) or len(mult[key]) != n or not all(
                isinstance(r, list) and len(r) == len(rows[l]) for l, r in enumerate(mult[key])):
            raise InputError(f"conditioned multipliers: {key} must have {n} layers of the layer widths")
    mu = [[to_q(v) for v in r] for r in mult["mu"]]
    al = [[to_q(v) for v in r] for r in mult["alpha"]]
    be = [[to_q(v) for v in r] for r in mult["beta"]]
    total = sum((mu[l][j] * biases[l][j] for l in range(L) for j in range(len(rows[l]))), _Z)
    terms = list(zip(_mu_w(rows[0], mu[0], len(box)), box))
    for l in range(L):
        up = _mu_w(rows[l + 1], mu[l + 1], len(ivs[l])) if l < L - 1 else None
        for j, (lo, hi) in enumerate(ivs[l]):
            zco = obj.get((l, j), _Z) - mu[l][j]
            if l < L - 1:
                a, b = al[l][j], be[l][j]
                if lo < 0 < hi:
                    if a < 0 or b < 0:
                        return None
                    s = hi / (hi - lo)
                    zco += -a + s * b
                    total -= b * s * lo
                elif lo >= 0:
                    if b != 0:
                        return None
                    zco -= a
                elif a != 0 or b != 0:
                    return None
                terms.append((a - b + up[j], (max(lo, _Z), max(hi, _Z))))
            terms.append((zco, (lo, hi)))
    for co, (lo, hi) in terms:
        total += co * hi if co > 0 else co * lo
    return total


# -- shared proofs: one deeper_only tree stored once, referred to by index -------------------------
class SharedProofs:
    """The ``shared_proofs`` table of a certificate (module docstring): each entry checked at its
    first reference (:meth:`proves`), the verdict kept; :meth:`unreferenced` lists the entries no
    proof referred to.  InputError when the table or an entry is malformed."""

    def __init__(self, net, lo_hi, table):
        if not isinstance(table, list):
            raise InputError("shared_proofs must be a list")
        self.net, self.lo_hi, self.table = net, lo_hi, table
        self.verdicts: dict[int, bool] = {}

    def proves(self, i, want) -> bool:
        """True when entry *i* is a valid shared proof and the pair *want* (sorted ``(t, j, s)``:
        shallow, deeper) is one of the pairs it closes."""
        if type(i) is not int or not 0 <= i < len(self.table):
            raise InputError(f"a shared proof reference {i!r} is not an index of shared_proofs")
        entry = self.table[i]
        if isinstance(entry, dict) and "conditioned_on" in entry:
            shallow, deepers = self._mirror_shape(entry)
            if i not in self.verdicts:
                self.verdicts[i] = self._check_mirror(shallow, deepers, entry["conditioned"])
            return self.verdicts[i] and len(want) == 2 and want[0] == shallow and want[1] in deepers
        shallow, deeper = self._shape(entry)
        if i not in self.verdicts:
            self.verdicts[i] = self._check(shallow, deeper, entry["conditioned"])
        return self.verdicts[i] and len(want) == 2 and want[1] == deeper and want[0] in shallow

    def unreferenced(self) -> list[int]:
        return [i for i in range(len(self.table)) if i not in self.verdicts]

    def _target(self, v, what) -> tuple:
        net = self.net
        if (not isinstance(v, list) or len(v) != 3 or not all(type(a) is int for a in v)
                or v[2] not in (1, -1) or not 0 <= v[0] < net.depth - 1 or not 0 <= v[1] < net.widths[v[0] + 1]):
            raise InputError(f"a shared proof's {what} {v!r} is not [hidden layer, neuron, ±1]")
        return tuple(v)

    def _shape(self, entry) -> tuple[list, tuple]:
        if not isinstance(entry, dict) or set(entry) != {"deeper", "shallow", "conditioned"}:
            raise InputError("a shared proof holds 'deeper', 'shallow' and 'conditioned'")
        target = self._target
        deeper = target(entry["deeper"], "deeper target")
        if not isinstance(entry["shallow"], list) or not entry["shallow"]:
            raise InputError("a shared proof lists its shallow targets")
        shallow = [target(v, "shallow target") for v in entry["shallow"]]
        if len({(t, j) for t, j, _ in shallow}) != len(shallow) or \
                any(t != shallow[0][0] for t, _, _ in shallow) or shallow[0][0] >= deeper[0]:
            raise InputError("a shared proof's shallow targets are distinct neurons of one layer below the deeper one")
        return shallow, deeper

    def _mirror_shape(self, entry) -> tuple[tuple, list]:
        if set(entry) != {"conditioned_on", "shallow", "deeper", "conditioned"} or entry["conditioned_on"] != "shallow":
            raise InputError("a shared proof conditioned on its shallow target holds 'conditioned_on': "
                             "'shallow', 'shallow', 'deeper' and 'conditioned'")
        shallow = self._target(entry["shallow"], "shallow target")
        if not isinstance(entry["deeper"], list) or not entry["deeper"]:
            raise InputError("a shared proof lists its deeper targets")
        deepers = [self._target(v, "deeper target") for v in entry["deeper"]]
        if deepers != sorted(set(deepers)) or len({j for _, j, _ in deepers}) != len(deepers) or \
                any(t != deepers[0][0] for t, _, _ in deepers) or deepers[0][0] <= shallow[0]:
            raise InputError("a shared proof's deeper targets are distinct neurons of one layer above the "
                             "shallow one, sorted")
        return shallow, deepers

    def _check_mirror(self, shallow, deepers, pieces) -> bool:
        """The tree conditioned on the shallow target alone, over the network whose outputs are
        the deeper targets' rows (:func:`_mirror_network`), replayed once: every leaf empty or
        with every output ``<= 0``."""
        rows, biases = _mirror_network(self.net, self.lo_hi, deepers)
        boxes = _pieces(self.lo_hi, self.net.n_inputs)
        if not isinstance(pieces, list) or len(pieces) != len(boxes):
            return False
        return all(_check_piece(rows, biases, box, shallow, piece, clip=True, mirror=True)
                   for box, piece in zip(boxes, pieces))

    def _check(self, shallow, deeper, pieces) -> bool:
        """The tree conditioned on the deeper target alone, replayed once (:func:`_check_piece`,
        no clipping), its sign ends closed by every shallow target."""
        rows, biases = _aux_network(self.net, self.lo_hi, [deeper])
        boxes = _pieces(self.lo_hi, self.net.n_inputs)
        if not isinstance(pieces, list) or len(pieces) != len(boxes):
            return False
        return all(_check_piece(rows, biases, box, shallow, piece, clip=False) for box, piece in zip(boxes, pieces))


def _mirror_network(net, lo_hi, deepers) -> tuple[list, list]:
    """Rows and biases of the network of a shared proof conditioned on its shallow target: the
    one-target ``G`` of the first deeper target (:func:`_aux_network`), its output row replaced
    by the rows ``s2·z_{t2}[j]`` of every deeper target, in order (the layers below ``t2`` are
    those of θ, homogenised on R^d / the orthant, whatever the target)."""
    rows, biases = _aux_network(net, lo_hi, [deepers[0]])
    outs, obs = [], []
    for d in deepers:
        r, b = _aux_network(net, lo_hi, [d])
        outs.append(r[-1][0])
        obs.append(b[-1][0])
    rows[-1], biases[-1] = outs, obs
    return rows, biases


def _check_reference(proof, targets: dict, shared) -> bool:
    """A pair's proof ``{"targets", "shared": i[, "parameter"]}``: entry *i* of the table closes
    the pair (:meth:`SharedProofs.proves`)."""
    if set(proof) - {"targets", "shared", "parameter"}:
        raise InputError("a shared proof reference holds 'targets' and 'shared' only")
    want = _targets(proof, targets)
    if want is None or shared is None:
        return False
    return shared.proves(proof["shared"], want)
