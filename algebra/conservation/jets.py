r"""Lie brackets of the gradient fields evaluated at θ on jets (three-layer-fibers §8).

A field is evaluated at a point of Q[ε_1, …, ε_k]/(ε_i²) (a "jet", stored as a dict from the
bit mask of the ε's to a matrix coefficient), and [X, Y](P) is the ε-coefficient of
Y(P + ε X(P)) − X(P + ε Y(P)); the network's forward/backward pass runs on jets with whole
matrix products (STYLE C15).  The fields are polynomial, so this is exact.  Jets cost 2^depth.
Used by :func:`algebra.conservation.conservation_laws` for brackets up to depth 4.
"""

from __future__ import annotations

import random

from ..linalg import QMatrix
from ..network import Network
from ..rationals import Q
from .fields import _masks, _offsets, _points

__all__: list[str] = []


def _jmul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, A in a.items():
        for mb, B in b.items():
            if ma & mb:
                continue
            P = A @ B
            m = ma | mb
            out[m] = out[m] + P if m in out else P
    return out


def _jadd(a: dict, b: dict, sign: int = 1) -> dict:
    out = dict(a)
    for m, B in b.items():
        if m in out:
            out[m] = out[m] + B if sign > 0 else out[m] - B
        else:
            out[m] = B if sign > 0 else -B
    return out


def _jT(a: dict) -> dict:
    return {m: A.T for m, A in a.items()}


def _jright(a: dict, M: QMatrix) -> dict:
    return {m: A @ M for m, A in a.items()}


def _jleft(M: QMatrix, a: dict) -> dict:
    return {m: M @ A for m, A in a.items()}


class _JetNet:
    """Evaluate generator combinations and their brackets at jet points."""

    def __init__(self, net: Network, samples, mix: int = 6, check=None):
        self.net, self.mix = net, mix
        self.check = check      # called before each generator's jet (a deadline's: it may raise)
        self.widths, self.L = net.widths, net.depth
        self.samples = samples
        self.offs = _offsets(self.widths)
        self.X = [QMatrix.from_rows(_points(net, s), ncols=self.widths[0]) for s in samples]
        self.D = [[QMatrix.diagonal(m) for m in _masks(net, s.pattern)] for s in samples]
        theta = list(net.parameters())
        self.theta = {0: QMatrix.from_flat(1, len(theta), theta)}

    def random_bracket(self, depth: int, rng: random.Random):
        """Right-normed bracket [g_depth, [..., [g_1, g_0]]] of random one-pattern combinations."""
        P = len(self.samples)

        def gen():
            chosen = range(P) if P <= self.mix else rng.sample(range(P), self.mix)
            terms = []
            for p in chosen:
                ns = self.X[p].nrows
                A = QMatrix.from_rows([[rng.randint(-3, 3) for _ in range(self.widths[-1])]
                                       for _ in range(ns)])
                if not A.is_zero():
                    terms.append((p, A))
            return ("g", tuple(terms))
        e = gen()
        for _ in range(depth):
            e = ("b", gen(), e)
        return e

    def value(self, expr) -> QMatrix:
        out = self._eval(expr, self.theta, 0)
        return out.get(0, QMatrix.zeros(1, self.net.n_parameters))

    def _eval(self, expr, P: dict, nbits: int) -> dict:
        if expr[0] == "g":
            out: dict = {}
            for p, A in expr[1]:
                out = _jadd(out, self._gen(p, A, P))
            return out
        _, A, B = expr
        t = 1 << nbits
        a = self._eval(A, P, nbits)
        Bv = self._eval(B, _jadd(P, {m | t: v for m, v in a.items()}), nbits + 1)
        b = self._eval(B, P, nbits)
        Av = self._eval(A, _jadd(P, {m | t: v for m, v in b.items()}), nbits + 1)
        cb = {m & ~t: v for m, v in Bv.items() if m & t}
        ca = {m & ~t: v for m, v in Av.items() if m & t}
        return _jadd(cb, ca, -1)

    def _gen(self, p: int, A: QMatrix, P: dict) -> dict:
        if self.check is not None:       # (one depth-4 bracket: 2^4 jet evaluations, a second and
            self.check()                 # more on a 2-16-12-1 net: s47 conserved audit F2)
        widths, L = self.widths, self.L
        # split the point into layer jets
        layers = []
        for l in range(1, L + 1):
            wo, bo = self.offs[l - 1]
            Wj, bj = {}, {}
            for m, v in P.items():
                ent = v.entries()
                Wj[m] = QMatrix.from_flat(widths[l], widths[l - 1], ent[wo:bo])
                bj[m] = QMatrix.from_flat(1, widths[l], ent[bo:bo + widths[l]])
            layers.append((Wj, bj))
        X, D = self.X[p], self.D[p]
        ns = X.nrows
        ones = QMatrix.from_rows([[1]] * ns)
        H = {0: X}
        Hs = [H]
        for l in range(L - 1):
            Wj, bj = layers[l]
            Z = _jadd(_jmul(H, _jT(Wj)), _jleft(ones, bj))
            H = _jright(Z, D[l])
            Hs.append(H)
        Delta = {0: A}
        grads = [None] * L
        onesT = ones.T
        for l in range(L, 0, -1):
            gW = _jmul(_jT(Delta), Hs[l - 1])
            gb = _jleft(onesT, Delta)
            grads[l - 1] = (gW, gb)
            if l > 1:
                Delta = _jright(_jmul(Delta, layers[l - 1][0]), D[l - 2])
        out = {}
        masks = set()
        for gW, gb in grads:
            masks |= set(gW) | set(gb)
        N = self.net.n_parameters
        for m in masks:
            ent = []
            for l, (gW, gb) in enumerate(grads, start=1):
                ent += gW[m].entries() if m in gW else [Q(0)] * (widths[l] * widths[l - 1])
                ent += gb[m].entries() if m in gb else [Q(0)] * widths[l]
            out[m] = QMatrix.from_flat(1, N, ent)
        return out
