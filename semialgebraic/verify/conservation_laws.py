r"""Checker of ``conservation_laws`` certificates: the number of independent conservation laws of
gradient flow near θ, for the gradient fields of some activation patterns, lies in [lower,
upper] (three-layer-fibers R23–R26).

Schema (version 1; built by :func:`semialgebraic.certificates.conservation_laws_certificate`)::

    {"format": "netfibers.certificate", "type": "conservation_laws",
     "schema_version": 1, "netfibers_version": "<str, informational>",
     "claim": "lower <= number of independent conservation laws ... <= upper (...)",
     "network": <network>,                                 # θ
     "samples": [{"pattern": [s_1, ...],                   # per hidden neuron -1, 0 or 1 (1 active)
                  "points": null | [[x_1, ...], ...],     # null: the region (x symbolic)
                  "witness": [x_1, ...]}, ...],           # optional, points null: a point of it
     "laws": [{"name": "...", "polynomial": "<a polynomial in the parameter names>"}, ...],
     "prime": p,                                           # a prime, 2 < p < 2^62
     "lower": l, "upper": u,                               # JSON integers, 0 <= l <= u <= N
     "brackets": [<expr>, ...]}                            # expr: {"g": [[k, A], ...]}
                                                           #    or {"b": [<expr>, <expr>]}

A region sample's ``witness`` is a point where the network has exactly the sample's pattern
(signs of the pre-activations, re-derived): the pattern is then a region the network has.
Without one (older certificates) the verdict says how many region samples are not so tied
(s47 conserved audit F1: an impossible pattern, or no sample at all, was accepted silently).

The fields.  A sample k fixes the masks of the hidden layers (neuron active iff its pattern entry
is > 0) and its points: the given data points (each must have exactly that activation pattern,
signs of the pre-activations) or, for ``null``, x = 0 and the unit vectors (the output is affine
in x on a pattern, so these span the same fields).  With the masks fixed, f_o(x; θ) is a
polynomial in θ and its gradient ∇θ f_o(x; θ) a polynomial vector field; the fields of the claim
are these, for every sample, point and output.  A generator ``{"g": [[k, A], ...]}`` is the field
Σ_k Σ_{i,o} A[i][o] ∇θ f_o(x_i; θ) (x_i the points of sample k, A integers), ``{"b": [X, E]}`` the
Lie bracket [X, E].

What is checked (exact; imports ``algebra`` only):

* every listed law h is conserved by every field: Σ_v ∂h/∂v · ∂f_o(x; θ)/∂v = 0 as a polynomial
  identity in θ, for every sample, point and output (so h is constant along the gradient flow of
  any loss of these outputs on these points, wherever the patterns hold) — a law equal to the
  rescaling polynomial ‖W_l[i, :]‖² + b_l[i]² − ‖W_{l+1}[:, i]‖² of a hidden neuron (R23) is
  conserved by every field of every pattern (Euler's identity for the masked polynomial, which
  is invariant under the neuron's rescaling), and is not re-expanded;
* ``lower`` <= the rank mod p of the laws' gradients at θ (independent laws near θ);
* N − ``upper`` <= the rank mod p of the listed brackets at θ together with the fields at θ,
  sample by sample until the rank is reached (evaluated on jets: [X, Y](P) is the ε-coefficient of Y(P + εX(P)) − X(P + εY(P))): the
  gradient of a conserved function is orthogonal to every field near θ, hence to their brackets,
  so at most N − rank of them are independent at θ (a rank mod p is at most the rank over Q).

Laws whose existence the decider certified by Frobenius without a formula are not listed: the
certified lower bound is then below the printed count, and ``verify`` says so.
"""

from __future__ import annotations

from algebra.exceptions import InputError
from algebra.io.native import network_from_dict, parse_number
from algebra.kernel.certificate_schemas import CLAIMS, check_header
from algebra.linalg import QMatrix, is_prime, nmod_rref, residues
from algebra.linalg.gfp import rank_lower_bound
from algebra.polynomials import Ring
from algebra.rationals import Q

__all__ = ["check"]

LAW_MAX_DEGREE = 8
"""A listed law of higher total degree is malformed (the decider's laws have degree 1 or 2)."""

LAW_MAX_TERMS = 10 ** 6
"""A product or power in a law that could have more terms than this is malformed."""


def check(cert: dict) -> tuple[bool, str]:
    check_header(cert, "conservation_laws")
    if cert["claim"] != CLAIMS["conservation_laws"][0]:
        raise InputError(f"unknown claim {cert['claim']!r}")
    net = network_from_dict(cert["network"], source="certificate[network]")
    N, L = net.n_parameters, net.depth
    lower, upper, p = cert["lower"], cert["upper"], cert["prime"]
    for key, v in (("lower", lower), ("upper", upper), ("prime", p)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise InputError(f"certificate[{key}] must be a JSON integer")
    if not (2 < p < 1 << 62 and is_prime(p)):
        raise InputError(f"certificate[prime] = {p} is not a prime in (2, 2^62)")
    if not 0 <= lower <= upper <= N:
        raise InputError(f"lower {lower} and upper {upper} must satisfy 0 <= lower <= upper <= N = {N}")
    samples = _samples(cert["samples"], net)
    laws = _laws(cert["laws"], net)
    brackets = cert["brackets"]
    if not isinstance(brackets, list):
        raise InputError("certificate[brackets] must be a list")
    for e in brackets:
        _check_expr(e, samples, net.n_outputs, 0)
    if L < 2 and (laws or brackets):
        raise InputError("a network without hidden layers has no laws or brackets to list")
    # 1. every law is conserved by every field (polynomial identities); a rescaling law (R23)
    # is by Euler's identity: with the masks fixed, f is invariant under (incoming row, bias) of
    # a hidden neuron times c and its outgoing column over c, whatever the pattern
    R = Ring.get(net.parameter_names())
    gens = dict(zip(net.parameter_names(), R.gens()))      # once: R.gen(name) makes all N
    for name, h in laws:
        if _is_rescaling_law(net, gens, h):
            continue
        frozen = _single_variable(h)
        if frozen is not None:
            where = _moves(net, samples, frozen)
            if where is not None:
                return False, f"law {name} is not conserved: {where}"
            continue
        for k, (masks, points) in enumerate(samples):
            for x in points:
                for o, f in enumerate(_outputs(net, R, gens, masks, x)):
                    s = R.zero()
                    for v in h.variables():
                        s = s + h.diff(v) * f.diff(v)
                    if not s.is_zero():
                        return False, (f"law {name} is not conserved: its gradient is not "
                                       f"orthogonal to the field of output {o} at point "
                                       f"{[str(t) for t in x]} of sample {k}")
    # 2. the laws' gradients at θ: rank mod p >= lower
    theta = net.parameters()
    point = dict(zip(net.parameter_names(), theta))
    index = {v: k for k, v in enumerate(net.parameter_names())}
    if lower:
        G = QMatrix.from_rows([_gradient_at(h, point, N, index) for _, h in laws],
                              ncols=N) if laws else QMatrix.zeros(0, N)
        r = _rank(G, p)
        if r < lower:
            return False, (f"the laws' gradients at theta have rank {r} (modulo the certificate's "
                           f"prime) < lower = {lower}")
    # 3. the brackets and the fields at θ: rank mod p >= N − upper (the fields sample by sample,
    # until the rank is reached: a walk of 33 266 regions needs a few hundred rows)
    span = _ModSpan(N, p)
    rows = []
    for e in brackets:
        v = _eval(e, net, samples, {0: QMatrix.from_flat(1, N, list(theta))}, 0)
        rows.append(v[0].entries() if 0 in v else [Q(0)] * N)
    span.add(rows)
    pending = []
    for masks, points in samples:
        if span.rank >= N - upper:
            break
        pending += _field_rows(net, masks, points)
        if len(pending) >= 256:             # one RREF per batch of rows, not per sample
            span.add(pending)
            pending = []
    if span.rank < N - upper:
        span.add(pending)
    r = span.rank
    if N - r > upper:
        return False, (f"the fields and brackets at theta have rank {r} (modulo the certificate's "
                       f"prime): at most "
                       f"N - {r} = {N - r} independent laws is all they show, not {upper}")
    what = (f"{lower} independent conservation laws" if lower == upper else
            f"between {lower} and {upper} independent conservation laws")
    loose = sum(1 for e in cert["samples"] if e.get("points") is None and "witness" not in e)
    tied = ("no sample: the count says nothing about the network's gradient flow; " if not samples
            else f"{loose} region sample(s) without a witness point, their patterns not shown to "
                 "be the network's; " if loose else "")
    return True, (f"{what} near theta for the gradient fields of the {len(samples)} sample(s) "
                  f"({tied}{len(laws)} listed law(s) conserved by every field, exact identities; rank of "
                  f"the fields and {len(brackets)} bracket(s) at theta modulo the certificate's "
                  f"prime: {r} of N = {N})")


def _rank(M: QMatrix, p: int) -> int:
    """The rank mod *p* (0 when p divides a denominator: a smaller rank, never a larger one)."""
    try:
        return rank_lower_bound(M, p) if M.nrows else 0
    except ZeroDivisionError:
        return 0


class _ModSpan:
    """The rows added so far, reduced mod *p* (an RREF kept between batches); a batch whose
    denominators p divides is left out (a smaller rank: a weaker, still valid, upper bound)."""

    def __init__(self, n: int, p: int):
        self.n, self.p, self.rows, self.rank = n, p, [], 0

    def add(self, rows: list) -> None:
        if not rows:
            return
        try:
            res = residues(QMatrix.from_rows(rows, ncols=self.n), self.p)
        except ZeroDivisionError:
            return
        flat = [x for row in self.rows for x in row] + list(res)
        piv, self.rows = nmod_rref(len(self.rows) + len(rows), self.n, flat, self.p)
        self.rank = len(piv)


def _gradient_at(h, point: dict, N: int, index: dict) -> list:
    """∇h at θ: only h's own variables (each derivative evaluated on its own variables: a full
    evaluation converts all N values, 77 laws of a 32-64-64-4 net took 73 s; s39 forge F2)."""
    g = [Q(0)] * N
    for v in h.variables():
        d = h.diff(v)
        g[index[v]] = d.subs({u: point[u] for u in d.variables()}).constant_value()
    return g


def _single_variable(h):
    """The parameter name v when *h* = c·v + constant (c != 0), else None."""
    names = h.variables()
    if len(names) != 1 or h.total_degree() != 1:
        return None
    return names[0]


def _moves(net, samples, v: str) -> str | None:
    """None when ∂f_o(x; θ)/∂v is the zero polynomial for every sample, point and output, else
    where it is not.  With the masks fixed, ∂f_o/∂W_l[i, j] = δ_{l,i} h_{l-1,j} and ∂f_o/∂b_l[i] =
    δ_{l,i}: δ_{l,i} is a sum of distinct monomials (one per path of active neurons from (l, i)
    to output o, each a product of distinct weight variables: no cancellation), non-zero iff such
    a path exists (a hidden neuron must itself be active); h_{l-1,j} is x_j for l = 1, and for a
    hidden neuron non-zero iff it is active (its bias is a variable)."""
    kind, rest = v[0], v[1:]
    l = int(rest[:rest.index("[")])
    idx = [int(t) for t in rest[rest.index("[") + 1:-1].split(",")]
    i, j = idx[0], (idx[1] if kind == "W" else None)
    widths, L = net.widths, net.depth
    for k, (masks, points) in enumerate(samples):
        for o in range(widths[-1]):
            reach = [o2 == o for o2 in range(widths[L])]          # layer L: the outputs
            for t in range(L - 1, l - 1, -1):                    # hidden layer t (1-based)
                onward = any(reach)                              # an edge to a reaching neuron
                reach = [bool(masks[t - 1][a]) and onward for a in range(widths[t])]
            if not reach[i]:
                continue
            if kind == "b":
                return f"∂f_{o}/∂{v} is not 0 on sample {k}"
            for x in points:
                if (x[j] != 0) if l == 1 else bool(masks[l - 2][j]):
                    return f"∂f_{o}/∂{v} is not 0 at point {[str(t) for t in x]} of sample {k}"
    return None


def _is_rescaling_law(net, gens: dict, h) -> bool:
    """Is *h* the rescaling law ‖W_l[i, :]‖² + b_l[i]² − ‖W_{l+1}[:, i]‖² of a hidden neuron
    (R23)?  Only the neurons whose bias *h* contains are tried (one polynomial each, not one per
    neuron of the net: the s39 forge audit's 32-64-64-4 net took 90 s before any law)."""
    if h.total_degree() != 2:
        return False
    widths = net.widths
    for v in h.variables():
        if not v.startswith("b"):
            continue
        l, i = int(v[1:v.index("[")]), int(v[v.index("[") + 1:-1])
        if l >= net.depth:                   # an output bias
            continue
        r = gens[v] ** 2
        for j in range(widths[l - 1]):
            r = r + gens[f"W{l}[{i},{j}]"] ** 2
        for k in range(widths[l + 1]):
            r = r - gens[f"W{l + 1}[{k},{i}]"] ** 2
        if h == r:
            return True
    return False


def _samples(data, net) -> list:
    """``[(masks per hidden layer, points)]``; data points must have the sample's pattern."""
    if not isinstance(data, list):
        raise InputError("certificate[samples] must be a list")
    n = net.n_hidden
    d = net.n_inputs
    out = []
    for k, s in enumerate(data):
        if not isinstance(s, dict) or set(s) - {"witness"} != {"pattern", "points"}:
            raise InputError(f"certificate[samples][{k}] must hold exactly 'pattern' and 'points' "
                             "(and a region sample's 'witness')")
        pat = s["pattern"]
        if (not isinstance(pat, list) or len(pat) != n
                or any(not isinstance(v, int) or isinstance(v, bool) or v not in (-1, 0, 1)
                       for v in pat)):       # (as conservation_laws reads a pattern: s53 F4)
            raise InputError(f"certificate[samples][{k}][pattern] must be {n} entries -1, 0 or 1")
        masks, j = [], 0
        for w in net.hidden_widths:
            masks.append([1 if v > 0 else 0 for v in pat[j:j + w]])
            j += w
        if s["points"] is None:
            zero = [Q(0)] * d
            points = [zero] + [[Q(int(i == c)) for c in range(d)] for i in range(d)]
            if "witness" in s:            # a point of the region: the pattern is the network's
                x = s["witness"]
                if not isinstance(x, list) or len(x) != d:
                    raise InputError(f"certificate[samples][{k}][witness] must be a point of {d} entries")
                got = net.activation_pattern([parse_number(v, f"certificate[samples][{k}][witness]")
                                              for v in x])
                if [(v > 0) - (v < 0) for v in got] != [(v > 0) - (v < 0) for v in pat]:
                    raise InputError(f"certificate[samples][{k}]: its witness point's activation "
                                     "pattern is not the sample's")
        elif "witness" in s:
            raise InputError(f"certificate[samples][{k}]: a witness is for a region sample (points null)")
        else:
            if not isinstance(s["points"], list) or not s["points"]:
                raise InputError(f"certificate[samples][{k}][points] must be null or a non-empty list")
            points = []
            for x in s["points"]:
                if not isinstance(x, list) or len(x) != d:
                    raise InputError(f"certificate[samples][{k}]: a point must have {d} entries")
                xq = [parse_number(v, f"certificate[samples][{k}][points]") for v in x]
                got = net.activation_pattern(xq)
                if [(v > 0) - (v < 0) for v in got] != [(v > 0) - (v < 0) for v in pat]:
                    raise InputError(f"certificate[samples][{k}]: a point's activation pattern is "
                                     "not the sample's")
                points.append(xq)
        out.append((masks, points))
    return out


def _laws(data, net) -> list:
    if not isinstance(data, list):
        raise InputError("certificate[laws] must be a list")
    R = Ring.get(net.parameter_names())
    out = []
    for k, law in enumerate(data):
        if not isinstance(law, dict) or set(law) != {"name", "polynomial"} or not all(
                isinstance(v, str) for v in law.values()):
            raise InputError(f"certificate[laws][{k}] must hold the strings 'name' and 'polynomial'")
        try:            # (laws of ReLU nets have degree <= 2: a (...)^400 forged law ran out of
                        # memory inside one FLINT call, session 39 forge audit F1)
            h = R.parse(law["polynomial"], max_degree=LAW_MAX_DEGREE, max_terms=LAW_MAX_TERMS)
        except Exception as exc:          # the parser's own error: malformed
            raise InputError(f"certificate[laws][{k}]: {exc}") from None
        out.append((law["name"], h))
    return out


def _check_expr(e, samples, m, depth) -> None:
    if depth > 8:                          # (jets cost 2^depth; the decider stops at 4)
        raise InputError("a bracket is nested more than 8 levels")
    if not isinstance(e, dict) or len(e) != 1:
        raise InputError("a bracket expression is {'g': [...]} or {'b': [X, E]}")
    if "b" in e:
        if not isinstance(e["b"], list) or len(e["b"]) != 2:
            raise InputError("{'b': [X, E]} holds two expressions")
        for f in e["b"]:
            _check_expr(f, samples, m, depth + 1)
        return
    if "g" not in e or not isinstance(e["g"], list):
        raise InputError("a bracket expression is {'g': [...]} or {'b': [X, E]}")
    for term in e["g"]:
        if not isinstance(term, list) or len(term) != 2:
            raise InputError("a generator term is [sample, rows]")
        k, A = term
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(samples):
            raise InputError(f"a generator names sample {k!r}, not one of the {len(samples)}")
        ns = len(samples[k][1])
        if (not isinstance(A, list) or len(A) != ns or any(
                not isinstance(r, list) or len(r) != m
                or any(not isinstance(v, int) or isinstance(v, bool) for v in r) for r in A)):
            raise InputError(f"a generator's rows for sample {k} must be {ns} x {m} integers")


# -- the fields, exactly ---------------------------------------------------------------------------
def _outputs(net, R, gen: dict, masks, x) -> list:
    """f_o(x; θ) for every output o, polynomials in θ with the hidden layers' *masks* fixed
    (*gen*: the ring's generators by name)."""
    h = [R.constant(v) for v in x]
    widths, L = net.widths, net.depth
    for l in range(1, L + 1):
        z = []
        for i in range(widths[l]):
            acc = gen[f"b{l}[{i}]"]
            for j in range(widths[l - 1]):
                if not h[j].is_zero():
                    acc = acc + gen[f"W{l}[{i},{j}]"] * h[j]
            z.append(acc)
        h = z if l == L else [zi if masks[l - 1][i] else R.zero() for i, zi in enumerate(z)]
    return h


def _field_rows(net, masks, points) -> list:
    """∇θ f_o(x; θ) at θ for every point x and output o (rows of N exact entries)."""
    widths, L = net.widths, net.depth
    Ws = [net.layer(l)[0] for l in range(L)]
    bs = [list(net.layer(l)[1]) for l in range(L)]
    rows = []
    for x in points:
        hs, h = [list(x)], list(x)
        for l in range(L - 1):
            z = [sum((Ws[l][i, j] * h[j] for j in range(widths[l])), Q(0)) + bs[l][i]
                 for i in range(widths[l + 1])]
            h = [zi if masks[l][i] else Q(0) for i, zi in enumerate(z)]
            hs.append(h)
        for o in range(widths[-1]):
            delta = [Q(int(i == o)) for i in range(widths[-1])]
            parts = [None] * L
            for l in range(L, 0, -1):
                hin = hs[l - 1]
                parts[l - 1] = [di * hj for di in delta for hj in hin] + list(delta)
                if l > 1:
                    delta = [sum((delta[i] * Ws[l - 1][i, j] for i in range(widths[l])), Q(0))
                             * masks[l - 2][j] for j in range(widths[l - 1])]
            rows.append([v for part in parts for v in part])
    return rows


# -- brackets on jets (dicts: bit mask of the ε's -> a QMatrix coefficient) -----------------------
def _mul(a: dict, b: dict) -> dict:
    out: dict = {}
    for ma, A in a.items():
        for mb, B in b.items():
            if not ma & mb:
                P = A @ B
                out[ma | mb] = out[ma | mb] + P if (ma | mb) in out else P
    return out


def _add(a: dict, b: dict, sign: int = 1) -> dict:
    out = dict(a)
    for m, B in b.items():
        B = B if sign > 0 else -B
        out[m] = out[m] + B if m in out else B
    return out


def _map(a: dict, f) -> dict:
    return {m: f(A) for m, A in a.items()}


def _eval(e, net, samples, P: dict, nbits: int) -> dict:
    """The expression *e* at the jet point *P* (1 x N coefficients)."""
    if "g" in e:
        out: dict = {}
        for k, A in e["g"]:
            out = _add(out, _generator(net, samples[k], QMatrix.from_rows(A), P))
        return out
    X, E = e["b"]
    t = 1 << nbits
    x = _eval(X, net, samples, P, nbits)
    y = _eval(E, net, samples, P, nbits)
    ey = _eval(E, net, samples, _add(P, {m | t: v for m, v in x.items()}), nbits + 1)
    xx = _eval(X, net, samples, _add(P, {m | t: v for m, v in y.items()}), nbits + 1)
    return _add({m & ~t: v for m, v in ey.items() if m & t},
                {m & ~t: v for m, v in xx.items() if m & t}, -1)


def _generator(net, sample, A: QMatrix, P: dict) -> dict:
    """Σ_{i,o} A[i][o] ∇θ f_o(x_i; θ) at the jet point *P*, by a forward and a backward pass."""
    masks, points = sample
    widths, L = net.widths, net.depth
    Wj, bj = [], []
    k = 0
    for l in range(1, L + 1):
        nw, nb = widths[l] * widths[l - 1], widths[l]
        Wj.append({m: QMatrix.from_flat(widths[l], widths[l - 1], v.entries()[k:k + nw])
                   for m, v in P.items()})
        bj.append({m: QMatrix.from_flat(1, nb, v.entries()[k + nw:k + nw + nb]) for m, v in P.items()})
        k += nw + nb
    X = QMatrix.from_rows(points, ncols=widths[0])
    ones = QMatrix.from_rows([[1]] * X.nrows)
    D = [QMatrix.diagonal(mk) for mk in masks]
    H = {0: X}
    Hs = [H]
    for l in range(L - 1):
        Z = _add(_mul(H, _map(Wj[l], lambda M: M.T)), _map(bj[l], lambda M: ones @ M))
        H = _map(Z, lambda M, l=l: M @ D[l])
        Hs.append(H)
    Delta = {0: A}
    grads = [None] * L
    for l in range(L, 0, -1):
        gW = _mul(_map(Delta, lambda M: M.T), Hs[l - 1])
        gb = _map(Delta, lambda M: ones.T @ M)
        grads[l - 1] = (gW, gb)
        if l > 1:
            Delta = _map(_mul(Delta, Wj[l - 1]), lambda M, l=l: M @ D[l - 2])
    blocks = [part for pair in grads for part in pair]          # W_1, b_1, W_2, b_2, …
    sizes = [n for l in range(1, L + 1) for n in (widths[l] * widths[l - 1], widths[l])]
    masks_used = set().union(*blocks)
    return {m: QMatrix.from_flat(1, net.n_parameters, [
        v for part, size in zip(blocks, sizes)
        for v in (part[m].entries() if m in part else [Q(0)] * size)]) for m in masks_used}
