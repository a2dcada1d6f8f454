r"""Notebook representations of exact objects: ``_repr_latex_``, ``_repr_html_`` and
``_repr_png_`` of :class:`~algebra.network.Network` call the functions here.

* :func:`network_latex` — ``f(x) = W_L σ(… σ(W_1 x + b_1) …) + b_L`` with every matrix written
  out exactly (``\frac{p}{q}``) when the network is small, the shapes otherwise;
* :func:`network_html` — a table of the layers (exact entries when small);
* :func:`network_png` — a layer diagram drawn by matplotlib (optional), None without it.

>>> from algebra.network import Network
>>> net = Network.from_rows([[[1], ["-1/2"]], [[1, 1]]], [[0, 1], [0]])
>>> network_latex(net)[:41]
'$f(x) = W_{2}\\,\\sigma\\left(W_{1} x + b_{1'
>>> "1/2" in network_html(net)
True
"""

from __future__ import annotations

import html
import io

from .rationals import q_latex, q_str

__all__ = ["network_latex", "network_html", "network_png", "SMALL"]

SMALL = 64          # write matrices out up to this many entries per layer


def _bmatrix(rows) -> str:
    return (r"\begin{bmatrix}" + r" \\ ".join(" & ".join(q_latex(v) for v in r) for r in rows)
            + r"\end{bmatrix}")


def network_latex(net) -> str:
    """The network as a LaTeX formula (``$…$``)."""
    L = net.depth
    expr = "x"
    for l in range(1, L + 1):
        inner = f"W_{{{l}}} {expr} + b_{{{l}}}" if l == 1 else f"W_{{{l}}}\\,{expr} + b_{{{l}}}"
        expr = inner if l == L else rf"\sigma\left({inner}\right)"
    parts = [f"f(x) = {expr}"]
    for l in range(L):
        W, b = net.layer(l)
        if W.nrows * (W.ncols + 1) <= SMALL:
            parts.append(f"W_{{{l + 1}}} = {_bmatrix(W.to_rows())},\\ "
                         f"b_{{{l + 1}}} = {_bmatrix([[v] for v in b])}")
        else:
            parts.append(rf"W_{{{l + 1}}} \in \mathbb{{Q}}^{{{W.nrows}\times{W.ncols}}}")
    return "$" + r",\quad ".join(parts) + "$"


def _cell(rows) -> str:
    return "<br>".join("[" + ", ".join(html.escape(q_str(v)) for v in r) + "]" for r in rows)


def network_html(net) -> str:
    """An HTML table: one row per layer (shape, and the exact weights and bias when small)."""
    head = (f"<p><b>ReLU network</b> widths {'-'.join(map(str, net.widths))}, "
            f"{net.n_parameters} rational parameters</p>")
    rows = []
    for l in range(net.depth):
        W, b = net.layer(l)
        small = W.nrows * (W.ncols + 1) <= SMALL
        rows.append(f"<tr><td>{l + 1}</td><td>{W.nrows}&times;{W.ncols}</td>"
                    f"<td>{_cell(W.to_rows()) if small else '&hellip;'}</td>"
                    f"<td>{_cell([b]) if small else '&hellip;'}</td></tr>")
    return (head + "<table><tr><th>layer</th><th>shape</th><th>W</th><th>b</th></tr>"
            + "".join(rows) + "</table>")


def network_png(net) -> bytes | None:
    """A PNG layer diagram (neurons as dots, edges coloured by sign, up to 24 neurons per
    layer); None when matplotlib is not installed."""
    try:
        from matplotlib.figure import Figure
    except ImportError:
        return None
    widths = net.widths
    fig = Figure(figsize=(1.6 * len(widths) + 1, 3.5))
    ax = fig.add_subplot(1, 1, 1)
    shown = [min(n, 24) for n in widths]
    ys = [[(i - (n - 1) / 2) for i in range(n)] for n in shown]
    for l in range(net.depth):
        W, _ = net.layer(l)
        for i in range(shown[l + 1]):
            for j in range(shown[l]):
                w = W[i, j]
                if w != 0:
                    ax.plot([l, l + 1], [ys[l][j], ys[l + 1][i]], linewidth=0.8,
                            color="#1b9e77" if w > 0 else "#d95f02", alpha=0.7)
    for l, n in enumerate(shown):
        ax.scatter([l] * n, ys[l], s=60, color="black", zorder=3)
        ax.annotate(str(widths[l]), (l, max(ys[l]) + 0.7), ha="center", fontsize=8)
    ax.set_axis_off()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", bbox_inches="tight")
    return buf.getvalue()
