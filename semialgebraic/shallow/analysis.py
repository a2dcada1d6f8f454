r"""One hidden layer: the report of ``netfibers analyze`` (:func:`analysis_shallow`)."""

from __future__ import annotations

import random

from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.neurons import hidden_neurons, with_hidden_neurons

from ..budget import checkpoint
from ..certificates import jsonable
from ..verify import verify
from .canonical import canonical_form
from .equivalence import equivalent_shallow
from .fiber import fiber_shallow

__all__ = ["analysis_shallow"]


def analysis_shallow(net: Network, *, seed: int = 1, out: dict | None = None) -> dict:
    """Report of ``netfibers analyze`` for a one-hidden-layer net: canonical forms on R^d and on
    the orthant (fingerprints), neuron types, fiber dimension / components / orbits on both
    domains, identifiability on R^d (three-layer-fibers R41), and an equivalence self-check (a planted symmetric copy proved equivalent, a copy
    with one output bias changed by 1/1000 proved different; both certificates verified).
    The key ``text`` holds readable lines.  *out* (a dict) is filled section by section, so that
    a budget or Ctrl-C that stops the analysis (``netfibers analyze --timeout``: a
    :class:`~semialgebraic.budget.BudgetExhausted` from ``alarm_at``) leaves the sections done;
    :func:`~semialgebraic.budget.checkpoint` is called between them.

    >>> net = Network.from_rows([[[1], [-1]], [[1, 1]]], [[0, 1], [0]])
    >>> r = analysis_shallow(net)
    >>> r["kind"], r["fiber"]["dimension"], r["equivalence"]["transformed"]["certificate_verified"]
    ('one hidden layer', 2, True)
    """
    out = {} if out is None else out
    lines = [f"one hidden layer, widths {'-'.join(map(str, net.widths))}"]
    out.update({"kind": "one hidden layer", "widths": list(net.widths), "text": lines})
    for orthant in (False, True):
        key = "orthant" if orthant else "R^d"
        checkpoint()
        cf = canonical_form(net, orthant=orthant)
        part = {"canonical_form": cf.to_json(), "fingerprint": cf.fingerprint()}
        if orthant:
            out["orthant"] = part
        else:
            out.update(part)
        lines.append(f"[{key}] {cf.summary()}")
        checkpoint()
        F = fiber_shallow(net, orthant=orthant)
        fj = {"dimension": F.dimension.value, "dimension_detail": F.dimension.to_json(),
              "number_of_components": F.number_of_components,
              "number_of_orbits": F.number_of_orbits, "notes": F.notes,
              "neuron_types": F.details["neuron_types"]}
        if orthant:
            fj.update({k: F.details.get(k) for k in ("positive_factor_rank", "linear_block_rank",
                                                     "r7_formula")})
            out["orthant"]["fiber"] = fj
        else:
            out["fiber"] = fj
        lines.append(f"[{key}] fiber dimension {_dimension_text(F.dimension)}; components "
                     f"{_count_text(F.number_of_components)}; orbits "
                     f"{_count_text(F.number_of_orbits)}; neuron types "
                     f"{', '.join(F.details['neuron_types'])}")
    checkpoint()
    from .identifiability import identifiability_shallow
    ident = identifiability_shallow(net)             # three-layer-fibers R41, certificate checked
    word = {True: "identifiable", False: "not identifiable", None: "undecided"}[ident.answer]
    out["identifiable"] = {"answer": ident.answer, "reason": ident.reason}
    why = ident.reason.removeprefix("identifiable up to permutation and positive scaling: ")
    which = "R42" if "R42" in ident.reason else "R41"
    lines.append(f"[R^d] {word} up to permutation and positive scaling ({which}): {why}")
    checkpoint()
    twin = _planted_copy(net, seed)
    v = equivalent_shallow(net, twin)
    ok = verify(v.certificate)[0]
    c = list(net.biases[1])
    c[0] += Q(1, 1000)
    other = net.replace_layer(1, bias=c)
    w = equivalent_shallow(net, other)
    ok2 = verify(w.certificate)[0]
    out["equivalence"] = {
        "transformed": {"answer": v.answer, "steps": len(v.certificate["steps"]),
                        "certificate_verified": ok},
        "perturbed": {"answer": w.answer, "point": jsonable(w.certificate.get("x")),
                      "certificate_verified": ok2}}
    lines.append(f"planted symmetric copy: equivalent={v.answer} ({len(v.certificate['steps'])} "
                 f"steps, certificate verified: {ok}); output bias + 1/1000: equivalent={w.answer}"
                 f" (counterexample verified: {ok2})")
    return out


def _planted_copy(net: Network, seed: int) -> Network:
    """Random permutation and positive scalings of the hidden neurons, plus one split of a
    neuron into two proportional copies (a width-changing R^d move)."""
    rng = random.Random(seed)
    neurons, c = hidden_neurons(net, 0)
    new = []
    for k, (w, b, v) in enumerate(neurons):
        lam = Q(rng.randint(1, 9), rng.randint(1, 9))
        if k == 0:
            new.append((tuple(x * 2 for x in w), b * 2, tuple(x / 4 for x in v)))
            new.append((tuple(x * 3 for x in w), b * 3, tuple(x / 6 for x in v)))
        else:
            new.append((tuple(x * lam for x in w), b * lam, tuple(x / lam for x in v)))
    rng.shuffle(new)
    return with_hidden_neurons(net, 0, new, c)


def _dimension_text(dim) -> str:
    """``3 (reason)`` or ``between 5 and 7 (reason)``: words for a person, not the repr."""
    value = dim.value if dim.exact else f"between {dim.lower} and {dim.upper}"
    return f"{value} ({dim.reason})" if dim.reason else f"{value}"


def _count_text(n) -> str:
    return "not computed" if n is None else str(n)
