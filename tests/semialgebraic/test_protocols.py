"""The shared protocols: both fibers satisfy :class:`semialgebraic._fiber.Fiber` (and their
components :class:`~semialgebraic._fiber.FiberComponent`), the three canonical forms satisfy
:class:`semialgebraic.canonical.CanonicalForm`; no two of these classes share a name."""

from __future__ import annotations

import inspect

from algebra.blocks import Block
from algebra.network import Network
from semialgebraic import absorption, bottleneck, shallow
from semialgebraic.canonical import CanonicalForm, json_fingerprint
from semialgebraic._fiber import Fiber, FiberComponent, fiber

SHALLOW = Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 1], [0]])
BOTTLENECK = Network.from_rows([[[1, 0], [0, 1]], [[1, -1], [-2, -1]], [[1, 1]]],
                               [[0, 0], [-1, -3], [0]])        # T1: a dead row, a masked column


def _protocol_members(proto) -> set[str]:
    return {n for n in proto.__dict__ if not n.startswith("_")} | set(proto.__annotations__)


def test_both_fibers_satisfy_the_fiber_protocol():
    fibers = [fiber(SHALLOW), fiber(SHALLOW, domain="orthant"), fiber(BOTTLENECK)]
    assert [type(F).__name__ for F in fibers] == ["ShallowFiber", "ShallowFiber", "BottleneckFiber"]
    for F in fibers:
        assert isinstance(F, Fiber)
        assert all(hasattr(F, n) for n in _protocol_members(Fiber))
        assert F.components and all(isinstance(c, FiberComponent) for c in F.components)
        for c in F.components:
            assert all(hasattr(c, n) for n in _protocol_members(FiberComponent))
            assert c.contains(c.sample()) is True                # the sample lies in its component
            assert set(c.to_json()) >= {"label", "dimension", "equalities", "inequalities", "sample"}
        assert F.contains(F.net) is True
        data = F.to_json()
        assert data["dimension"] == F.dimension.value and len(data["components"]) == len(F.components)
        assert F.to_latex().startswith(r"\mathrm{Fib}(\theta)")
    assert [F.domain for F in fibers] == [None, "orthant", None]
    assert [F.dimension.value for F in fibers] == [2, None, 8]      # orthant: bounds 2..6, not closed


def test_the_protocol_methods_have_one_signature():
    for proto, classes in [(Fiber, [shallow.ShallowFiber, bottleneck.BottleneckFiber]),
                           (FiberComponent, [shallow.ShallowFiberComponent,
                                             bottleneck.BottleneckFiberComponent])]:
        for name in ("contains", "to_json", "to_latex"):
            want = list(inspect.signature(getattr(proto, name)).parameters)
            for cls in classes:
                got = list(inspect.signature(getattr(cls, name)).parameters)
                assert len(got) == len(want), (cls.__name__, name)


def test_the_three_canonical_forms_satisfy_one_protocol():
    forms = [(shallow.canonical_form(SHALLOW), shallow.canonical_form(SHALLOW.with_parameter("b2[0]", 1))),
             (bottleneck.canonical_form(BOTTLENECK),
              bottleneck.canonical_form(BOTTLENECK.with_parameter("b3[0]", 1))),
             (absorption.canonical_form(Block("relu", [[1], [2]], [[1, 1]])),
              absorption.canonical_form(Block("relu", [[1], [2]], [[1, 2]])))]
    names = [type(a).__name__ for a, _ in forms]
    assert names == ["ShallowCanonicalForm", "BottleneckCanon", "AbsorptionCanon"]
    for a, b in forms:
        assert isinstance(a, CanonicalForm) and isinstance(b, CanonicalForm)
        assert a == a and a != b
        fp = a.fingerprint()
        assert len(fp) == 16 and int(fp, 16) >= 0
        assert fp == json_fingerprint(a.to_json()) and fp != b.fingerprint()
    # equal functions, equal forms and fingerprints (a permuted, rescaled copy)
    twin = Network.from_rows([[[0, 2], [3, 0]], [["-1/2", "1/3"]]], [[2, 0], [0]])
    assert shallow.canonical_form(twin) == forms[0][0]
    assert shallow.canonical_form(twin).fingerprint() == forms[0][0].fingerprint()


def test_no_two_protocol_classes_share_a_name():
    classes = [shallow.ShallowFiber, shallow.ShallowFiberComponent, shallow.ShallowCanonicalForm,
               bottleneck.BottleneckFiber, bottleneck.BottleneckFiberComponent,
               bottleneck.BottleneckCanon, absorption.AbsorptionCanon, Fiber, FiberComponent,
               CanonicalForm]
    assert len({c.__name__ for c in classes}) == len(classes)
