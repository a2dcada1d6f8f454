"""Scenes of ``semialgebraic.plot`` checked against independent oracles: the polygons tile the
window (exact shoelace areas) and carry the pattern of their centroid (direct evaluation), a
dashed hyperplane is one the function does not bend across (second differences with exact
evaluation), the S6 segment's end points are the exact interval (the moved networks are
equivalent at the end points and differ just outside, by evaluation), the heat map's maximum
is the brute-force maximum."""

from fractions import Fraction
from pathlib import Path

import pytest

from algebra import load
from algebra.network import Network
from algebra.rationals import Q
from semialgebraic.equivalence import equivalent, max_deviation
from semialgebraic import fiber
from semialgebraic.plot import (Slice, diff_scene, fiber_scene, parse_slice, regions_scene,
                                symmetry_scene)
from semialgebraic.plot.fiber import fiber_axes
from semialgebraic.plot.slicing import slice_coordinates
from semialgebraic.regions import number_of_regions
from semialgebraic.sets import Polyhedron

EX = Path(__file__).resolve().parents[2] / "algebra" / "examples"
T1 = load(EX / "t1_masked.json")


def _area(verts) -> Fraction:
    pts = [(Fraction(int(x.p), int(x.q)), Fraction(int(y.p), int(y.q))) for x, y in verts]
    return sum(a[0] * b[1] - a[1] * b[0] for a, b in zip(pts, pts[1:] + pts[:1])) / 2


def _pattern(net, x):
    """Sign of every hidden pre-activation, by direct Fraction evaluation (no netfibers code)."""
    h = [Fraction(int(v.p), int(v.q)) for v in x]
    out = []
    for l in range(net.depth - 1):
        W, b = net.layer(l)
        z = [sum(Fraction(int(W[i, j].p), int(W[i, j].q)) * h[j] for j in range(len(h)))
             + Fraction(int(b[i].p), int(b[i].q)) for i in range(W.nrows)]
        out += [(v > 0) - (v < 0) for v in z]
        h = [max(v, 0) for v in z]
    return tuple(out)


@pytest.mark.parametrize("lo,hi", [(-3, 3), (-1, 1), ("-1/2", 2)])
def test_regions_polygons_tile_the_window(lo, hi):
    sc = regions_scene(T1, ((lo, hi), (lo, hi)))
    assert len(sc.polygons) == number_of_regions(T1, domain=Polyhedron.box(2, lo, hi))
    side = Fraction(str(hi)) - Fraction(str(lo))
    areas = [_area(p.vertices) for p in sc.polygons]
    assert all(a > 0 for a in areas)                     # counter-clockwise, non-degenerate
    assert sum(areas) == side * side                     # a tiling of the window
    for p in sc.polygons:
        n = len(p.vertices)
        centroid = (sum(v[0] for v in p.vertices) / n, sum(v[1] for v in p.vertices) / n)
        pat = _pattern(T1, centroid)
        assert all(s == q or q == 0 for s, q in zip(pat, p.pattern)), (pat, p.pattern)


def _value(net, x):
    return net([Q(v) if not hasattr(v, "p") else v for v in x])[0]


def test_masked_and_dead_neurons_of_t1():
    sc = regions_scene(T1, ((-3, 3), (-3, 3)))
    assert sc.data["masked"] == ["L1[0]"] and sc.data["dead"] == ["L2[1]"]
    assert sc.data["regions"] == 6
    masked = [s for s in sc.segments if s.group == "L1[0]"]
    assert masked and all(s.style == "dashed" for s in masked)
    eps = Q(1, 1000)
    for s in sc.segments:     # oracle: second difference across the segment's midpoint
        mid = tuple((u + v) / 2 for u, v in zip(s.start, s.end))
        dx, dy = s.end[0] - s.start[0], s.end[1] - s.start[1]
        nrm = (-dy * eps, dx * eps)
        plus = tuple(m + n for m, n in zip(mid, nrm))
        minus = tuple(m - n for m, n in zip(mid, nrm))
        second = _value(T1, plus) + _value(T1, minus) - 2 * _value(T1, mid)
        assert (second == 0) == (s.style == "dashed"), s


def test_slice_of_three_inputs_equals_the_planar_network():
    net3 = Network.from_rows([[[1, 0, 1], [0, 1, -1], [1, 1, 0]], [[1, -1, 2]]], [[0, 0, -1], [0]])
    sl = parse_slice("0,0,1/2;1,0,0;0,1,0", 3)
    sc = regions_scene(net3, ((-2, 2), (-2, 2)), slice=sl)
    # the plane x3 = 1/2 by hand: biases shift by W[:, 2] / 2
    net2 = Network.from_rows([[[1, 0], [0, 1], [1, 1]], [[1, -1, 2]]], [["1/2", "-1/2", -1], [0]])
    assert len(sc.polygons) == number_of_regions(net2, domain=Polyhedron.box(2, -2, 2)) == 7
    assert sum(_area(p.vertices) for p in sc.polygons) == 16
    assert slice_coordinates(sl, (Q(1), Q(-1), Q(1, 2))) == (1, -1)
    assert slice_coordinates(sl, (0, 0, 0)) is None
    with pytest.raises(ValueError, match="linearly dependent"):
        parse_slice("0,0,0,1,1,1,2,2,2", 3)
    with pytest.raises(ValueError, match="9 numbers"):
        parse_slice("0,0", 3)
    with pytest.raises(ValueError, match="slice"):
        regions_scene(net3, ((-1, 1), (-1, 1)))


def _differs(a, b) -> bool:
    grid = [Q(i, 2) for i in range(-8, 9)]
    return any(a([x, y]) != b([x, y]) for x in grid for y in grid)


def test_fiber_segment_end_points_are_the_exact_s6_interval():
    sc = fiber_scene(T1)
    s6 = [s for s in sc.segments if s.label.startswith("S6")]
    assert len(s6) == len(fiber(T1).components) == 2        # one piece per component
    assert all((s.start, s.end) == ((-1, 0), (Q(3, 2), 0)) for s in s6)
    assert {s.label for s in s6} == {"S6 L1[0] ∈ [-1, 3/2]"}
    free = [s for s in sc.segments if s.style == "free"]
    assert len(free) == 2 and all(s.start is None and s.end is None for s in free)
    axis = fiber_axes(T1)[0]
    assert axis.kind == "S6" and (axis.lo, axis.hi) == (-1, Q(3, 2))
    for t in (axis.lo, axis.hi, Q(1, 3)):
        assert equivalent(T1, axis.apply(T1, t)).answer is True
    for t in (axis.lo - Q(1, 4), axis.hi + Q(1, 4)):    # just outside: a point tells them apart
        assert _differs(T1, axis.apply(T1, t))
    w3 = fiber_axes(T1)[1]
    assert w3.kind == "S3" and not _differs(T1, w3.apply(T1, 17))
    labels = {m.label for m in sc.markers}
    assert {"S6 = -1", "S6 = 3/2", "θ"} <= labels


def test_fiber_of_a_shallow_network_uses_rescalings():
    net = Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 1], [0]])
    sc = fiber_scene(net)
    assert [s.label for s in sc.segments[:2]] == ["S2 L1[0] ∈ (0, ∞)", "S2 L1[1] ∈ (0, ∞)"]
    assert all(s.start is not None and s.start[k] == 0 and s.end is None and s.closed == (False, False)
               for k, s in enumerate(sc.segments[:2]))
    axis = fiber_axes(net)[0]
    assert not _differs(net, axis.apply(net, Q(7, 3)))
    assert [n.label for n in symmetry_scene(fiber(net)).nodes] == ["θ"]


def test_symmetry_scene_matches_the_graph():
    F = fiber(T1)
    sc = symmetry_scene(F)
    assert len(sc.nodes) == F.graph.number_of_nodes() == 2
    assert [(e.source, e.target, e.label) for e in sc.edges] == [(0, 1, "S7 L1[1]")]
    assert {n.label for n in sc.nodes} == {"θ", "S7[1]"} and sc.data["orbits"] == 1


def test_diff_heat_map_against_brute_force():
    b = load(EX / "t1_translated_2.json")
    dev = max_deviation(T1, b, (-3, 3))
    sc = diff_scene(T1, b, [(-3, 3), (-3, 3)], grid=7, certified=(dev.point, dev.value))
    xs = [Fraction(-3) + i for i in range(7)]
    brute = max(abs(Fraction(str(T1([x, y])[0])) - Fraction(str(b([x, y])[0])))
                for x in xs for y in xs)
    assert Fraction(str(sc.data["grid_max"])) == brute
    assert len(sc.heatmap.values) == 7 and all(len(r) == 7 for r in sc.heatmap.values)
    assert sc.data["certified"] == (tuple(dev.point), dev.value)
    assert [m.kind for m in sc.markers] == ["grid_max", "certified_max"]


def test_diff_scene_of_three_inputs_slices_through_the_certified_point():
    a = Network.from_rows([[[1, 0, 1]], [[1]]], [[0], [0]])
    b = Network.from_rows([[[1, 0, 0]], [[1]]], [[0], [0]])
    sc = diff_scene(a, b, [(-1, 1)] * 3, grid=3, certified=((1, 1, 1), 1))
    assert sc.data["certified"] == ((1, 1), 1)
    assert list(sc.heatmap.values[0]) == [0, 1, 1]     # x3 = 1: relu(x1 + 1) - relu(x1)
    with pytest.raises(ValueError):
        diff_scene(a, b, [(-1, 1)] * 3, grid=1)
