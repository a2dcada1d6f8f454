"""Command ``analyze``: the main job — everything netfibers can say about one input.

``netfibers analyze [INPUT] [--json] [--certificate FILE] [--seed S]``.  With no argument it
analyses the bundled masked bottleneck example (three-layer-fibers T1) end to end:

1. structure: genericity G0–G7 with witnesses, neuron types, masked neuron, S6 interval, S7/S8,
   linear block and κ₊ (R3–R6, R13–R15);
2. identifiability (R18) with its certificate, verified;
3. symmetries and the symmetry graph (numbers of components and orbits);
4. fiber: components, dimension by R17 and by the exact Jacobian rank (R22) on small inputs;
5. equivalence: a copy transformed by random valid S1–S8 steps is proved equivalent (symmetry
   path, verified by ``semialgebraic.verify``), and a copy perturbed in one second-layer weight
   is proved different (exact counterexample, verified);
6. (bundled example only) non-localizability, R19: the blocks are identifiable, the composite
   is not.

A one-hidden-layer network goes to ``semialgebraic.shallow.analysis_shallow`` when available, a
block to ``semialgebraic.absorption.analysis_block``; anything else gets ``info``.  JSON keys
(bottleneck): ``input``, ``kind``, ``structure``, ``identifiability``, ``symmetries``, ``fiber``,
``equivalence`` (``transformed``: answer, steps, certificate_verified; ``perturbed``: answer,
point, certificate_verified).
"""

from __future__ import annotations

from importlib import resources

from algebra.network import Network

from ..bottleneck import (equivalent_bottleneck, fiber_bottleneck, identifiability, is_bottleneck,
                          non_localizability_example, random_symmetric_copy, structure)
from ..absorption import analysis_block
from ..certificates import write_certificate
from ..dimension import functional_dimension
from ..cli import emit
from ..exceptions import NonGenericError
from ..shallow import analysis_shallow
from ..symmetry_graph import graph_to_json
from ..verify import verify
from .bottleneck import Timeout, deadline
from .common import load_any
from .core import info_dict

__all__ = ["register", "default_example", "analysis_bottleneck"]


def default_example() -> str:
    return str(resources.files("algebra") / "examples" / "masked_bottleneck.json")


def register(sub, parent) -> None:
    p = sub.add_parser("analyze", parents=[parent],
                       help="analyse a network or block (a bundled example when none is given)",
                       description=__doc__.split("\n\n")[1] if __doc__ else None)
    p.add_argument("input", nargs="?", help="network or block file")
    p.add_argument("--certificate", metavar="FILE",
                   help="write the equivalence certificate of the transformed copy (bottleneck)")
    p.add_argument("--seed", type=int, default=1, help="seed of the random transformation")
    p.add_argument("--timeout", type=float, metavar="SECONDS",
                   help="stop after SECONDS and print the sections done so far (exit 3)")
    p.set_defaults(func=cmd_analyze)


def analysis_bottleneck(net: Network, *, seed: int = 1, data: dict | None = None,
                        lines: list | None = None) -> tuple[dict, list[str], dict | None]:
    """(JSON data, text lines, equivalence certificate) of the bottleneck analysis; *data* and
    *lines* are filled section by section (a timeout keeps the sections done)."""
    data = {} if data is None else data
    lines = [] if lines is None else lines
    data["kind"] = "three-layer bottleneck"
    s = structure(net)
    data["structure"] = s.to_json()
    lines += ["== structure (three-layer-fibers R3-R6, R13-R15)", s.to_text()]
    v = identifiability(net)
    ok = verify(v.certificate)[0] if v.certificate and v.certificate.get("type") == "symmetry_path" else None
    data["identifiability"] = {**v.to_json(), "certificate_verified": ok}
    word = {True: "identifiable", False: "NOT identifiable", None: "undecided"}[v.answer]
    lines += ["== identifiability (R18)", f"{word} up to permutation and positive scaling: {v.reason}"]
    if ok is not None:
        lines.append(f"certificate: planted symmetric copy, symmetry path verified: {ok}")
    if not s.is_generic:
        lines.append("non-generic input: the bottleneck theory does not apply beyond this point")
        return data, lines, None
    try:
        F = fiber_bottleneck(net)
    except NonGenericError as exc:
        data["fiber"] = {"error": str(exc)}
        lines += ["== fiber", f"non-generic: {exc}"]
        return data, lines, None
    fj = F.to_json()
    data["symmetries"] = {"generators": fj["symmetries"], "graph": graph_to_json(F.graph),
                          "number_of_components": F.number_of_components,
                          "number_of_orbits": F.number_of_orbits}
    lines += ["== symmetries", f"generators: {', '.join(fj['symmetries'])}",
              f"symmetry graph: {F.graph.number_of_nodes()} component(s) up to permutation, "
              f"{F.graph.number_of_edges()} discrete edge(s); topological components "
              f"{F.number_of_components}, orbits {F.number_of_orbits}"]
    data["fiber"] = fj
    lines += ["== fiber (R16, R17, R22)",
              f"dimension {F.dimension.value} (R17 formula)"
              + (f" = {F.fibdim} (exact Jacobian rank, R22)" if F.fibdim is not None else ""),
              f"{len(F.components)} component(s) up to permutation, each a basic semi-algebraic set"]
    for c in F.components:
        lines.append(f"  {c.label}: {c.number_of_equalities} equalities, {c.number_of_inequalities} strict "
                     f"inequalities, generator span rank {c.generator_rank}")
    copy, steps = random_symmetric_copy(net, seed=seed, number_of_steps=5,
                                        first=("s6", "s7", "s8", "s5", "dead", "linear"))
    ve = equivalent_bottleneck(net, copy)
    okc = verify(ve.certificate)[0] if ve.certificate else False
    pert = _perturbed(net, s)
    vp = equivalent_bottleneck(net, pert) if pert is not None else None
    okp = verify(vp.certificate)[0] if vp is not None and vp.certificate else None
    data["equivalence"] = {
        "transformed": {"steps_applied": [st.to_json() for st in steps], "copy": copy.to_dict(),
                        "answer": ve.answer, "reason": ve.reason,
                        "certificate_type": (ve.certificate or {}).get("type"),
                        "certificate_verified": okc},
        "perturbed": None if vp is None else {
            "copy": pert.to_dict(), "answer": vp.answer, "reason": vp.reason,
            "point": (vp.certificate or {}).get("x"), "certificate_verified": okp}}
    lines += ["== equivalence (R20)",
              f"copy transformed by {len(steps)} random valid steps "
              f"({', '.join(st.name for st in steps)}): equivalent = {ve.answer}; "
              f"{(ve.certificate or {}).get('type')} certificate verified: {okc}"]
    if vp is not None:
        x = (vp.certificate or {}).get("x")
        lines.append(f"copy with one switching weight perturbed by 1/10^6: equivalent = {vp.answer}; "
                     f"counterexample x = {x}, verified: {okp}")
    return data, lines, ve.certificate


def cmd_analyze(args) -> int:
    path = args.input or default_example()
    obj = load_any(path)
    if isinstance(obj, Network) and is_bottleneck(obj):
        data, lines, code, cert = {"input": path}, [], 0, None
        try:
            with deadline(args.timeout):
                _, _, cert = analysis_bottleneck(obj, seed=args.seed, data=data, lines=lines)
                if args.input is None:          # the bundled example is also R19's example
                    r = non_localizability_example()
                    data["non_localizability"] = {k: v for k, v in r.items() if k != "certificate"}
                    lines += ["== non-localizability (R19)",
                              f"tail f3∘f2 on R^2 identifiable: {r['tail_identifiable_on_R2']} "
                              f"(fiber dimension {r['tail_fiber_dimension_on_R2']} = n2); first "
                              f"layer identifiable: {r['first_layer_identifiable']}; composite "
                              f"identifiable: {r['composite_identifiable']}",
                              r["explanation"]]
        except Timeout:
            data["complete"] = False
            lines.append(f"== timeout after {args.timeout} s: partial result")
            code = 3
        if args.certificate and cert is not None:
            write_certificate(cert, args.certificate)
        emit(args, data, f"{path}: widths {'-'.join(map(str, obj.widths))}, "
                         f"{obj.n_parameters} parameters\n" + "\n".join(lines))
        return code
    if isinstance(obj, Network) and obj.depth == 2:
        d = analysis_shallow(obj)
        d["input"] = path
        emit(args, d, f"{path}:\n" + "\n".join(d.get("text", [])))
        return 0
    if not isinstance(obj, Network):
        d = analysis_block(obj)
        d["input"] = path
        emit(args, d, _block_text(path, d))
        return 0
    # any other network: architecture and the exact functional dimension (with a budget)
    d = info_dict(obj)
    d["input"] = path
    fd = functional_dimension(obj, timeout=args.timeout or 60.0)
    d["functional_dimension"] = fd.to_json() if hasattr(fd, "to_json") else str(fd)
    value = (f"{fd.value}" if fd.exact else f"between {fd.lower} and {fd.upper}")
    text = (f"{path}: widths {'-'.join(map(str, d['widths']))}, {d['n_parameters']} parameters\n"
            f"functional dimension {value} ({fd.reason})")
    for line in getattr(fd, "deficits", ()):
        text += f"\n  {line}"
    emit(args, d, text)
    return 0 if fd.exact else 3


def _block_text(path: str, d: dict) -> str:
    v = d.get("absorption", {})
    answer = {True: "absorbable", False: "not absorbable", None: "undecided"}[v.get("answer")]
    lines = [f"{path}: block d={d.get('d')}, k={d.get('k')}, activation {d.get('activation')}, "
             f"skip {d.get('skip')}", f"absorption: {answer} [{v.get('method')}]: {v.get('reason')}"]
    return "\n".join(lines)


def _perturbed(net: Network, s):
    sw = [j for j, t in enumerate(s.types or ()) if t == "switching"]
    if not sw:
        return None
    j = sw[0]
    W2, _ = net.layer(1)
    return net.with_parameter(f"W2[{j},0]", W2[j, 0] * (1 + W2[j, 0].__class__(1, 10 ** 6)))


