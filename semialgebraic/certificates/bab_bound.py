"""Builder of ``bab_bound`` certificates (schema: :mod:`semialgebraic.verify.bab_bound`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS, header
from algebra.network import Network

from ..bab.symbolic import GRID_BITS
from ._json import SIDECAR_THRESHOLD_BY_TYPE, jsonable

__all__ = ["bab_bound_certificate", "BOUNDS"]

# how every leaf's intervals are computed (the checker refuses any other method)
BOUNDS = {"intervals": "symbolic", "grid_bits": GRID_BITS, "differential": "neurodiff"}


def _embed(net: Network):
    """The network's JSON dict, or the :class:`Network` itself when large (its exact arrays go
    to the binary sidecar in :func:`~semialgebraic.certificates.write_certificate`)."""
    if sum(r * c for r, c in net._shapes) >= SIDECAR_THRESHOLD_BY_TYPE["bab_bound"]:
        return net
    return net.to_dict()


def _hoist(tree, table, index, cuts=None):
    """A copy of *tree* whose leaves' ``"tightened"`` records (:mod:`..bab.tighten`, shared
    objects) are indices into *table* (each record once, by identity); with *cuts* ``(list,
    index)`` likewise the ``"cut"`` of every entry of a leaf's ``"cuts"`` (:mod:`..bab.cuts`)."""
    if not isinstance(tree, dict):
        return tree
    if "children" in tree:
        return {**tree, "children": [_hoist(ch, table, index, cuts) for ch in tree["children"]]}
    if cuts is not None and "cuts" in tree:
        ctab, cind = cuts
        ents = []
        for ent in tree["cuts"]:
            cut = ent["cut"]
            if isinstance(cut, dict):
                if id(cut) not in cind:
                    cind[id(cut)] = (len(ctab), cut)
                    ctab.append(cut)
                cut = cind[id(cut)][0]
            ents.append({**ent, "cut": cut})
        tree = {**tree, "cuts": ents}
    if "tightened" not in tree:
        return tree
    refs = []
    for rec in tree["tightened"]:
        if id(rec) not in index:
            index[id(rec)] = (len(table), rec)
            table.append(rec)
        refs.append(index[id(rec)][0])
    return {**tree, "tightened": refs}


def bab_bound_certificate(a: Network, b: Network, box, objectives, upper, lower=None, point=None,
                          output=None, *, epsilon=None, complete_cover: bool = True,
                          halfspaces=(), b_steps=(), reduction=()) -> dict:
    """Certificate of ``max_o max_{x in box} |a_o − b_o| <= upper`` (the branch-and-bound trees
    in *objectives*) and, with *point*, ``>= lower``; with ``complete_cover`` False only the
    lower bound is claimed (the point of a refuted ε-equivalence, or a search stopped before an
    upper bound): no ``upper`` is written then (it had been the threshold, or the lower bound,
    which a script could read as certified: s42 nearcopy audit), *upper* is ignored.
    *halfspaces* ``[(a, b)]`` (``a·x <= b``) cut the domain out of the box.  *b_steps* (S1/S2
    symmetry steps, :mod:`..bab.align`): the trees bound ``a − b'`` with ``b'`` = *b* after them.
    *reduction* (exact reduction steps of ``a − b'`` on the box, :func:`..bab.diff.reduced`): the
    trees bound the reduced difference network, which the checker rebuilds by replaying them."""
    cert = {**header("bab_bound"), "claim": CLAIMS["bab_bound"][0 if complete_cover else 1],
            "a": _embed(a), "b": _embed(b), "box": jsonable([[lo, hi] for lo, hi in box])}
    if complete_cover:
        cert["upper"] = jsonable(upper)
        cert["bounds"] = dict(BOUNDS)
        table: list = []
        cuts: list = []
        objectives = [{**ob, "tree": _hoist(ob["tree"], table, {}, (cuts, {}))}
                      if isinstance(ob, dict) and "tree" in ob else ob for ob in objectives]
        cert["objectives"] = jsonable(objectives)
        if table:
            cert["intermediate"] = jsonable(table)
        if cuts:
            cert["cuts"] = jsonable(cuts)
    if point is not None:
        cert.update({"lower": jsonable(lower), "point": jsonable(list(point))})
        if output is not None:
            cert["output"] = output
    if epsilon is not None:
        cert["epsilon"] = jsonable(epsilon)
    if b_steps and complete_cover:
        cert["b_aligned_by"] = [st.to_json() for st in b_steps]
    if reduction and complete_cover:
        cert["reduction"] = jsonable(list(reduction))
    if halfspaces:
        cert["halfspaces"] = [{"a": jsonable(list(a)), "b": jsonable(b)} for a, b in halfspaces]
    return cert
