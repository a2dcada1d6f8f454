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

So a checked proof shows the closed statement "``g <= 0`` on the domain", which excludes every
input (differentiable or not) with all target signs strict.

Imports ``algebra`` and other ``verify`` modules only.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.linalg import QMatrix
from algebra.rationals import Q

from .bab_bound import _check_tree

__all__ = ["is_bab_proof", "check_bab_empty"]

_Z, _I = Q(0), Q(1)


def is_bab_proof(proof) -> bool:
    """Whether *proof* is in the branch-and-bound form (a ``bab_tree`` key)."""
    return isinstance(proof, dict) and "bab_tree" in proof


def check_bab_empty(net, proof, lo_hi, targets: dict) -> bool:
    """True when *proof* shows that no input of the domain *lo_hi* (None: R^d, ``"orthant"``,
    or ``(lo, hi)``) has ``s·z_t[j] > 0`` for every ``((t, j), s)`` of *targets*; False when it
    does not (wrong targets, a leaf bound above 0 or not recomputed).  Raises InputError when
    the tree is malformed."""
    want = sorted((t, j, s) for (t, j), s in targets.items())
    got = proof.get("targets")
    if not isinstance(got, list) or sorted(tuple(v) for v in got if isinstance(v, list)) != want \
            or len(got) != len(want):
        return False
    if not 1 <= len(want) <= 2 or (len(want) == 2 and want[0][0] == want[1][0]):
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
