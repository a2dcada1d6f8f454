"""Symmetry graph of a three-layer bottleneck fiber (three-layer-fibers R16, §5).

Nodes are the fiber's components up to permutations (S1), labelled by their discrete data:
the set of switching neurons flipped by S5, the set of first-layer neurons flipped by S7, the
S8 choice, and for n1 ≥ 2 the number of linear rows (three-layer-fibers R16c).  Edges are single discrete generators (an S5 flip of one switching neuron, an S7
flip of one first-layer neuron, S8) between two nodes, labelled with the step.  Node data hold
the continuous generators (S2, S3, S4, S6: number of tangent vectors) and the exact rank of
their span, which equals the component's dimension (R17).

Counts (:func:`count_components`), [derived]:

* number of topological components = (number of nodes) · n1! · n2! / (n_D! n_L!): first-layer
  neurons and switching second-layer neurons are distinguishable, a permutation among dead (or
  among linear) neurons stays inside a component (the dead cones are convex; the linear block
  is assumed connected).  Exact Python integers, however large.
* number of orbits = number of connected components of the graph (orbits of the single
  discrete moves).

>>> from algebra.network import Network
>>> from semialgebraic.bottleneck import fiber_bottleneck
>>> F = fiber_bottleneck(Network.from_rows([[[1, 0], [0, 1]], [[2, -1]], [[1]]], [[0, 0], [-1], [0]]))
>>> F.graph.number_of_nodes(), F.number_of_components, F.number_of_orbits, F.dimension.value
(2, 4, 1, 4)
"""

from __future__ import annotations

import json
from math import factorial
from pathlib import Path

import networkx as nx

from algebra.io.native import write_atomic

__all__ = ["symmetry_graph", "count_components", "graph_to_json", "write_graphml"]


def symmetry_graph(fiber) -> nx.Graph:
    """The symmetry graph of a :class:`~semialgebraic.bottleneck.BottleneckFiber`."""
    G = nx.Graph()
    keys = {}
    for k, c in enumerate(fiber.components):
        lab = c.label
        key = (tuple(lab["flips"]), tuple(lab["s7"]), bool(lab["s8"]), lab.get("linear"))
        keys[key] = k
        G.add_node(k, label=json.dumps(lab), dimension=c.dimension.value,
                   generator_rank=c.generator_rank,
                   **{f"generators_{name}": len(v) for name, v in c.generators.items()})
    for key, k in keys.items():
        flips, s7, s8, nl = key       # nl: linear rows of an R16c stratum (None otherwise)
        for j in _all(keys, 0):
            other = (tuple(sorted(set(flips) ^ {j})), s7, s8, nl)
            if other in keys:
                G.add_edge(k, keys[other], step="S5", neuron=j)
            for o in keys:        # R16c: the flip of j re-types pool rows (one TailRefactor)
                if nl is not None and o[:3] == other[:3] and o[3] != nl:
                    G.add_edge(k, keys[o], step="S5", neuron=j)
        for i in _all(keys, 1):
            other = (flips, tuple(sorted(set(s7) ^ {i})), s8, nl)
            if other in keys:
                G.add_edge(k, keys[other], step="S7", neuron=i)
        other = (flips, s7, not s8, nl)
        if other in keys:
            G.add_edge(k, keys[other], step="S8")
    return G


def count_components(fiber) -> tuple[int | None, int]:
    """(number of topological components, number of orbits) — see the module docstring."""
    s = fiber.structure
    d, n1, n2, m = s.widths
    nD, nL = s.count("dead"), s.count("linear")
    G = fiber.graph
    nodes = G.number_of_nodes() if G is not None else len(fiber.components)
    if s.count("switching") + nL == 0:
        return 1, 1          # constant function: one convex-by-cones component (P12)
    if any("not enumerated" in n for n in fiber.notes):
        nA = s.count("switching")
        if nL >= min(n1, m) + 1:
            nodes = 2 ** nA * max(nodes, 1)
        else:
            return None, nx.number_connected_components(G) if G is not None else 1
    perms = factorial(n1) * factorial(n2) // (factorial(nD) * factorial(nL))
    orbits = nx.number_connected_components(G) if G is not None and nodes else 1
    return nodes * perms, orbits


def graph_to_json(G: nx.Graph) -> dict:
    """Node-link JSON of the graph."""
    return {"nodes": [{"id": n, **{k: (json.loads(v) if k == "label" else v) for k, v in d.items()}}
                      for n, d in G.nodes(data=True)],
            "edges": [{"source": u, "target": v, **d} for u, v, d in G.edges(data=True)]}


def write_graphml(G: nx.Graph, path: str | Path) -> None:
    """Write GraphML atomically (attributes are scalars; labels are JSON strings)."""
    H = nx.Graph()
    for n, d in G.nodes(data=True):
        H.add_node(n, **{k: v for k, v in d.items() if v is not None})
    for u, v, d in G.edges(data=True):
        H.add_edge(u, v, **d)
    text = "\n".join(nx.generate_graphml(H)) + "\n"
    write_atomic(Path(path), text)


def _all(keys, pos) -> set:
    out = set()
    for key in keys:
        out.update(key[pos])
    return out
