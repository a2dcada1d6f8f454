"""The ``symmetry_report`` certificate that ``symmetries --certificate`` and ``fiber
--certificate`` write: every parameter they list (a component's representative, a symmetric
copy) with a certificate that it computes the network's function, and identify's certificate
when there is one (schema: :mod:`semialgebraic.verify.symmetry_report`)."""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CLAIMS
from algebra.network import Network

from ..budget import checkpoint

__all__ = ["copy_certificate", "component_copies", "write_report_certificate"]


def copy_certificate(net: Network, rep: Network, steps=None, *, orthant: bool = False,
                     outside: bool = False, budget=None) -> dict | None:
    """A certificate that *rep* computes *net*'s function (on R^d, or the closed orthant): the
    symmetry *steps* when they carry *net* exactly to *rep* (each step's own check passing),
    else the exact equivalence decision's certificate (a ``symmetry_path`` or a
    ``region_cover``); None when neither proves it.  *outside*: claim *rep* outside *net*'s
    S1 + S2 orbit too (``symmetry_path`` only; the checker decides the orbit).  *budget*: the
    decision's time (its timeout: the seconds *budget* has left)."""
    from ..certificates import symmetry_path_certificate
    if rep == net:
        steps = []
    if steps is not None:
        try:                       # each step checked where it acts, the end compared with rep
            cur, ok = net, True
            for st in steps:
                ok = st.check(cur)[0]
                if not ok:
                    break
                cur = st.apply(cur)
            ok = ok and cur == rep
        except Exception:          # a step that does not apply here: the decision below
            ok = False
        if ok:
            cert = symmetry_path_certificate(net, rep, steps, orthant=orthant)
            if outside and not orthant:
                cert["claim"] = CLAIMS["symmetry_path"][2]
            return cert
    from ..equivalence.dispatch import equivalent
    left = None if budget is None else budget.remaining()
    if left is not None and left <= 0:
        return None
    v = equivalent(net, rep, domain="orthant" if orthant else None, verify=False, timeout=left,
                   progress=False)
    if v.answer is not True or v.certificate is None or \
            v.certificate.get("type") not in ("symmetry_path", "region_cover"):
        return None
    return v.certificate


def component_copies(net: Network, F, *, orthant: bool = False, limit: int = 64, budget=None):
    """The certificates of the representatives of fiber *F*'s components (at most *limit*):
    ``(certificates, components with a representative, left out)``; a component's own steps
    when its construction has them (a flip set, a bottleneck's discrete move), else the exact
    equivalence decision."""
    certs, reps, left = [], 0, 0
    for c in F.components:
        rep = getattr(c, "representative", None)
        if rep is None:
            continue
        reps += 1
        if len(certs) >= limit:
            left += 1
            continue
        checkpoint()
        cert = copy_certificate(net, rep, _component_steps(net, c.label, orthant), orthant=orthant,
                                budget=budget)
        if cert is None:
            left += 1
        else:
            certs.append(cert)
    return certs, reps, left


def flip_copy_certificate(net: Network, S, *, budget=None):
    """The certificate of the copy of *net* (one hidden layer, on R^d) with the flip set *S*
    flipped (R41's I4), by its one step; None when it is not made."""
    from algebra.symmetries.moves import FlipSet
    step = FlipSet(0, S)
    ok, _ = step.check(net)
    if not ok:
        return None
    checkpoint()
    return copy_certificate(net, step.apply(net), [step], budget=budget)


def _component_steps(net, label, orthant):
    """The symmetry steps from *net* to the component *label*'s representative, when known."""
    if not isinstance(label, dict):
        return None
    if "flipped_neurons" in label:          # one hidden layer: a flip set (R41's I4)
        S = label["flipped_neurons"] or []
        if not S or orthant:
            return [] if not S else None
        from algebra.symmetries.moves import FlipSet
        return [FlipSet(0, S)]
    if {"flips", "s7", "s8"} <= set(label) and "linear" not in label:
        from ..bottleneck.copies import discrete_move
        out = discrete_move(net, label)
        return None if out is None else list(out[1])
    return None


def write_report_certificate(net: Network, copies: list, path: str, budget, *,
                             identifiability: dict | None = None, orthant: bool = False,
                             total: int | None = None) -> str:
    """Write the ``symmetry_report`` certificate of *copies* (and *identifiability*) to *path*,
    re-checked in the time *budget* has left; the line the report adds.  *total*: the number
    of parameters listed (when some have no certificate)."""
    from ..budget import answer_kept
    from ..certificates import symmetry_report_certificate, valid_within, write_certificate
    with answer_kept():          # (bounded work: a first Ctrl-C no longer loses the answer)
        cert = symmetry_report_certificate(net, copies, identifiability=identifiability,
                                           orthant=orthant)
    checked = valid_within(cert, budget)        # (a Ctrl-C: not re-checked, the answer stands)
    with answer_kept():
        write_certificate(cert, path)
    what = f"{len(copies)} listed parameter(s)"
    if total is not None and total > len(copies):
        what += f" of {total}"
    what += " computing the network's function"
    if identifiability is not None:
        what += " and the identifiability verdict"
    return (f"certificate written to {path} ({what}"
            + ("" if checked else "; not re-checked in-process: run `netfibers verify` on it")
            + ")")
