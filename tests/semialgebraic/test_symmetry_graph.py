"""Symmetry graph of bottleneck fibers: nodes, edges, counts, generator ranks, exports."""

import json

import networkx as nx

from algebra.network import Network
from semialgebraic.bottleneck import dimension_formula, fiber_bottleneck
from semialgebraic.symmetry_graph import graph_to_json, write_graphml

from tests.cases.bottleneck import T1, T2a, T4a, T6a, T7a, T11, T11p, T11pp


def test_T7_graph_S7_edge_and_counts():
    F = fiber_bottleneck(T7a)
    G = F.graph
    assert G.number_of_nodes() == 2 and G.number_of_edges() == 1
    (_, _, d), = G.edges(data=True)
    assert d["step"] == "S7" and d["neuron"] == 1
    assert F.number_of_components == 2 * 2 and F.number_of_orbits == 1
    for n, data in G.nodes(data=True):
        assert data["generator_rank"] == data["dimension"] == 4


def test_T4_graph_S8_edge():
    F = fiber_bottleneck(T4a)
    assert [d["step"] for _, _, d in F.graph.edges(data=True)] == ["S8"]
    assert F.number_of_components == 2 and F.dimension.value == 2


def test_T6_graph_S5_edge_and_components():
    F = fiber_bottleneck(T6a)
    steps = sorted(d["step"] for _, _, d in F.graph.edges(data=True))
    assert steps == ["S5"]
    # 2 flip choices x 2! first-layer orders x 2!/1! second-layer arrangements
    assert F.number_of_components == 8 and F.dimension.value == 5 == F.fibdim


def test_components_contain_their_representatives_and_fiber_contains_by_canon():
    for net in (T1, T2a, T6a, T7a, T11):
        F = fiber_bottleneck(net)
        for c in F.components:
            if c.representative is not None:
                assert c.contains(c.representative)
            assert c.generator_rank == dimension_formula(net).value
        assert F.components[0].contains(net)
    F = fiber_bottleneck(T11)
    assert F.contains(T11p) is True and F.contains(T11pp) is False
    assert F.components[0].contains(T11p) and not F.components[0].contains(T11pp)


def test_exports(tmp_path):
    F = fiber_bottleneck(T1)
    data = graph_to_json(F.graph)
    assert len(data["nodes"]) == 2 and data["nodes"][0]["label"]["s7"] == []
    json.dumps(data)
    p = tmp_path / "g.graphml"
    write_graphml(F.graph, p)
    H = nx.read_graphml(p)
    assert H.number_of_nodes() == 2 and H.number_of_edges() == 1
    j = F.to_json()
    assert j["dimension"] == 8 and j["number_of_components"] == 8 and "S6" in j["symmetries"]


def test_large_count_is_exact_integer():
    # 12 switching neurons, 3 first-layer neurons: 3! * 12! permutation copies, one node
    import random
    from tests.cases.bottleneck import planted
    rng = random.Random(4)
    rows = ["+-+|-", "-+-|+", "++-|-", "--+|+"] * 3
    net = planted(rng, 3, 3, rows)
    F = fiber_bottleneck(net, jacobian=False)
    assert F.number_of_components == 6 * 479001600
    assert F.dimension.value == 3 + 12
