"""The picture of the symmetry graph (:mod:`semialgebraic.symmetry_graph`): nodes are the
fiber's components up to permutations, edges single discrete generators (S5, S7, S8) labelled
with the step, nodes coloured by connected component (orbit).  The layout is a float circle
(drawing only)."""

from __future__ import annotations

import ast
import json

import networkx as nx

from .fiber import component_name
from .scene import Edge, Node, Scene

__all__ = ["symmetry_scene"]


def symmetry_scene(fib) -> Scene:
    """Nodes (one per component up to permutations), labelled edges and the orbit of each node."""
    G = fib.graph
    if G is None:
        G = nx.Graph()
        G.add_nodes_from(range(len(fib.components)))
    comp = {}
    for c, nodes in enumerate(sorted(nx.connected_components(G), key=min)):
        for n in nodes:
            comp[n] = c
    pos = nx.circular_layout(sorted(G.nodes)) if G.number_of_nodes() > 1 else {n: (0.0, 0.0) for n in G}
    scene = Scene("symmetries", title=f"symmetry graph: {G.number_of_nodes()} node(s), "
                  f"{G.number_of_edges()} edge(s), {len(set(comp.values()))} orbit(s)")
    for n, d in sorted(G.nodes(data=True)):
        scene.nodes.append(Node(n, _node_label(d, n), comp[n], tuple(float(v) for v in pos[n])))
    for u, v, d in G.edges(data=True):
        lab = d.get("step", "")
        if d.get("step") == "S5":
            lab = f"S5 L2[{d['neuron']}]"
        elif d.get("step") == "S7":
            lab = f"S7 L1[{d['neuron']}]"
        scene.edges.append(Edge(u, v, lab))
    scene.data = {"orbits": len(set(comp.values())), "nodes": G.number_of_nodes(),
                  "edges": G.number_of_edges()}
    return scene


def _node_label(data: dict, k) -> str:
    raw = data.get("label", "{}")
    for parse in (json.loads, ast.literal_eval):     # bottleneck: JSON; shallow: a dict's repr
        try:
            return component_name(parse(raw))
        except (TypeError, ValueError, SyntaxError):
            pass
    return str(k)
