"""Notebook forms (Jupyter ``_repr_*_``) of fibers, verdicts, semi-algebraic sets and
certificates.  The classes' ``_repr_html_`` / ``_repr_latex_`` / ``_repr_png_`` methods call
these functions; a PNG is drawn only when matplotlib is installed (None otherwise, and None when
there is no picture of the object).  Certificates are plain dicts: :func:`show` wraps one in a
:class:`CertificateView` that notebooks display.

>>> from semialgebraic.verdict import Verdict
>>> "equivalent" in verdict_html(Verdict(True, "shallow-canonical", "equivalent"))
True
>>> show({"type": "symmetry_path", "steps": []})._repr_html_().startswith("<p><b>certificate")
True
"""

from __future__ import annotations

import html
import json

__all__ = ["scene_png", "fiber_html", "fiber_latex", "fiber_png", "verdict_html", "verdict_latex",
           "set_html", "show", "CertificateView", "LATEX_LIMIT"]

LATEX_LIMIT = 20_000     # longer LaTeX is not rendered (None): notebooks choke on it


def _png(scene_of) -> bytes | None:
    from .renderer import render_bytes, require_matplotlib
    try:
        require_matplotlib()
    except ImportError:
        return None
    try:
        return render_bytes(scene_of(), "png")
    except (ValueError, ArithmeticError):      # no picture of this object (non-generic, …)
        return None


def scene_png(scene) -> bytes | None:
    """A scene as PNG bytes (None without matplotlib)."""
    return _png(lambda: scene)


def _esc(x) -> str:
    return html.escape(str(x))


def fiber_html(F) -> str:
    """Dimension, numbers of components and orbits, and the components' labels."""
    from .fiber import component_name
    rows = "".join(f"<li>{_esc(component_name(c.label))}: dimension {_esc(c.dimension.value)}</li>"
                   for c in F.components[:20])
    notes = "".join(f"<li><i>{_esc(n)}</i></li>" for n in F.notes)
    return (f"<p><b>fiber</b> of a network with widths {'-'.join(map(str, F.net.widths))}: "
            f"dimension {_esc(F.dimension.words())}, {_esc(_count(F.number_of_components))} "
            f"component(s), {_esc(_count(F.number_of_orbits))} orbit(s)</p><ul>{rows}{notes}</ul>")


def _count(n) -> str:
    return "not determined" if n is None else str(n)


def fiber_latex(F) -> str | None:
    text = F.to_latex()
    return None if len(text) > LATEX_LIMIT else f"${text}$"


def fiber_png(F) -> bytes | None:
    from .fiber import fiber_scene
    return _png(lambda: fiber_scene(F.net, F))


_ANSWER = {True: "yes", False: "no", None: "undecided"}


def verdict_html(v) -> str:
    """Answer, method, reason, the checked hypotheses and the certificate's type."""
    hyps = "".join(f"<li>{_esc(h.name)}: {_esc(h.holds)}</li>" for h in v.hypotheses)
    cert = "" if v.certificate is None else \
        f"<p>certificate: <code>{_esc(v.certificate.get('type'))}</code></p>"
    return (f"<p><b>{_ANSWER[v.answer]}</b> ({_esc(v.method)}): {_esc(v.reason)}</p>"
            + (f"<ul>{hyps}</ul>" if hyps else "") + cert)


def verdict_latex(v) -> str:
    reason = v.reason.replace("\\", "").replace("{", "").replace("}", "").replace("$", "")
    return rf"$\text{{{_ANSWER[v.answer]}}}\ (\text{{{v.method}}})$: {reason}"


def set_html(S) -> str:
    text = S.to_latex()
    body = _esc(text) if len(text) <= LATEX_LIMIT else f"{len(text)} characters of LaTeX"
    return f"<p><b>semi-algebraic set</b></p><pre>{body}</pre>"


class CertificateView:
    """A certificate (a JSON dict) as a notebook object: its type, its top-level keys, and the
    JSON (cut at 4000 characters)."""

    def __init__(self, certificate: dict):
        self.certificate = certificate

    def _repr_html_(self) -> str:
        text = json.dumps(self.certificate, indent=1, default=str)
        cut = text if len(text) <= 4000 else text[:4000] + "\n…"
        keys = ", ".join(_esc(k) for k in self.certificate)
        return (f"<p><b>certificate</b> <code>{_esc(self.certificate.get('type'))}</code> "
                f"(keys: {keys})</p><pre>{_esc(cut)}</pre>")

    def _repr_latex_(self) -> str:
        return rf"$\text{{certificate {self.certificate.get('type')}}}$"

    def _repr_png_(self) -> None:
        return None


def show(certificate: dict) -> CertificateView:
    """Wrap a certificate dict for display in a notebook."""
    return CertificateView(certificate)
