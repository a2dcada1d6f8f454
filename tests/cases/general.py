"""Planted transforms and random networks for the equivalence tests and benchmarks.

Random networks: ``hostile_net`` (rationals of every size, zero rows, parallel copies),
``small_net`` (tiny entries, for z3 sweeps), ``rational_net`` (n/k entries, benchmark sizes).

Function-preserving transforms (the result computes the same function, on R^d or on the box
named): ``planted_copy`` / ``permute_scale`` (permutation and positive scaling of every hidden
layer), ``planted_width_depth_moves`` (dead neuron, zero-output neuron, neuron split, identity
layer), ``passthrough`` (an always-active identity layer on a box), ``identity_layer``
(relu(h) - relu(-h)), ``split_first_layer`` (an always-active invertible first layer),
``dead_neurons`` (neurons dead on a box).

Near misses and mixed kinds: ``bump_net`` (a bump on an L1 ball of radius eps),
``tiny_difference`` (a difference on a slab of width 1e-6), ``planted_pair`` (one of dead,
near-dead, split, identity layer, bump, nothing, after a permutation and scaling).

Every function consumes its ``random.Random`` in a fixed order: the cases a seed gives do not
change when the module is reorganised.
"""

from __future__ import annotations

from algebra.linalg import QMatrix
from algebra.network import Network
from algebra.rationals import Q
from algebra.symmetries.elementary import random_permute_scale
from semialgebraic.equivalence import preactivation_bounds


def wild_rational(rng):
    """0, small integers, small fractions, 1e-6..1e-12, or a 12-digit numerator over a 6-digit
    denominator."""
    t = rng.random()
    if t < 0.2:
        return Q(0)
    if t < 0.6:
        return Q(rng.randint(-3, 3))
    if t < 0.9:
        return Q(rng.randint(-5, 5), rng.randint(1, 4))
    if t < 0.95:
        return Q(rng.choice([-1, 1]), 10 ** rng.randint(6, 12))
    return Q(rng.randint(-10**12, 10**12), rng.randint(1, 10**6))


def hostile_net(rng, widths):
    """Random rationals of every size (``wild_rational``), a zero row and a parallel or
    antiparallel copy of a neuron now and then."""
    Ws, bs = [], []
    for l in range(len(widths) - 1):
        W = [[wild_rational(rng) for _ in range(widths[l])] for _ in range(widths[l + 1])]
        b = [wild_rational(rng) for _ in range(widths[l + 1])]
        if rng.random() < 0.25:                                   # a zero row
            W[rng.randrange(len(W))] = [Q(0)] * widths[l]
        if len(W) > 1 and rng.random() < 0.3:                     # parallel / antiparallel copy
            i, j = rng.sample(range(len(W)), 2)
            s = rng.choice([Q(1), Q(2), Q(-1), Q(-1, 3)])
            W[j], b[j] = [s * v for v in W[i]], s * b[i]
        Ws.append(W)
        bs.append(b)
    return Network.from_rows(Ws, bs)


def planted_copy(rng, net):
    """Permutation and positive scaling of every hidden layer: the same function."""
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(b) for b in net.biases]
    for l in range(net.depth - 1):
        n = len(Ws[l])
        perm = list(range(n))
        rng.shuffle(perm)
        sc = [Q(rng.randint(1, 5), rng.randint(1, 5)) for _ in range(n)]
        Ws[l] = [[v * sc[p] for v in Ws[l][p]] for p in perm]
        bs[l] = [bs[l][p] * sc[p] for p in perm]
        Ws[l + 1] = [[row[p] / sc[p] for p in perm] for row in Ws[l + 1]]
    return Network.from_rows(Ws, bs)


def bump_net(d, centre, eps, weight, m=1):
    """Two hidden layers: |x_i - c_i| per coordinate, then relu(eps - Σ|x_i - c_i|) (a bump on
    an L1 ball of radius eps) with output weight *weight*, plus Σ|x_i - c_i| (weight 1)."""
    W1, b1 = [], []
    for i in range(d):
        e = [Q(0)] * d
        e[i] = Q(1)
        W1 += [e, [-v for v in e]]
        b1 += [-centre[i], centre[i]]
    W2 = [[Q(-1)] * (2 * d), [Q(1)] * (2 * d)]
    return Network.from_rows([W1, W2, [[weight, Q(1)] for _ in range(m)]],
                             [b1, [eps, Q(0)], [Q(0)] * m])


def planted_width_depth_moves(rng, net):
    """Function-preserving moves that change the architecture: a dead neuron, a neuron with zero
    output, a split of a neuron into two positively proportional copies, an identity layer after
    a ReLU layer (its inputs are >= 0)."""
    Ws = [w.to_rows() for w in net.weights]
    bs = [list(b) for b in net.biases]
    for _ in range(rng.randint(1, 3)):
        L = len(Ws)
        if L < 2:
            break
        l = rng.randrange(L - 1)
        n_in = len(Ws[l][0])
        op = rng.choice(["dead", "zero_out", "split", "identity_layer"])
        if op == "dead":
            Ws[l].append([Q(0)] * n_in if l == 0 else [-abs(wild_rational(rng)) for _ in range(n_in)])
            bs[l].append(-Q(rng.randint(1, 3)))
            for r in Ws[l + 1]:
                r.append(wild_rational(rng))
        elif op == "zero_out":
            Ws[l].append([wild_rational(rng) for _ in range(n_in)])
            bs[l].append(wild_rational(rng))
            for r in Ws[l + 1]:
                r.append(Q(0))
        elif op == "split":
            i = rng.randrange(len(Ws[l]))
            s, t = Q(rng.randint(1, 4), rng.randint(1, 4)), Q(rng.randint(1, 3), 4)
            Ws[l].append([s * x for x in Ws[l][i]])
            bs[l].append(s * bs[l][i])
            for r in Ws[l + 1]:
                v = r[i]
                r[i] = v * (1 - t)
                r.append(v * t / s)
        else:
            n = len(Ws[l])
            Ws.insert(l + 1, [[Q(int(i == j)) for j in range(n)] for i in range(n)])
            bs.insert(l + 1, [Q(0)] * n)
    return Network.from_rows(Ws, bs)


# -- general equivalence versus z3 ---------------------------------------------------------------
def _rows_and_biases(net):
    return [w.to_rows() for w in net.weights], [list(b) for b in net.biases]


def small_net(rng):
    """d in {1, 2}, depth 2 or 3, widths 1-3, entries in {-2, -1, 0, 1, 2, 1/2}."""
    d = rng.choice([1, 2])
    depth = rng.choice([2, 3])
    widths = [d] + [rng.randint(1, 3) for _ in range(depth - 1)] + [1]
    vals = [-2, -1, 0, 1, 1, 2, Q(1, 2)]
    return Network.from_rows([[[Q(rng.choice(vals)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
                              for l in range(depth)],
                             [[Q(rng.choice(vals)) for _ in range(widths[l + 1])] for l in range(depth)])


def planted_pair(rng, a, dom):
    """b: a permuted and positively rescaled, then one of: a dead neuron added (exactly dead, or
    alive in a corner of width 1e-4), a neuron split in two, an identity layer, a bump of width
    2e-5 added, or nothing."""
    Ws, bs = _rows_and_biases(a)
    for l in range(a.depth - 1):
        perm = list(range(len(Ws[l])))
        rng.shuffle(perm)
        sc = [Q(rng.choice([1, 2, 3]), rng.choice([1, 2, 5])) for _ in perm]
        Ws[l] = [[v * sc[p] for v in Ws[l][p]] for p in perm]
        bs[l] = [bs[l][p] * sc[p] for p in perm]
        Ws[l + 1] = [[row[p] / sc[p] for p in perm] for row in Ws[l + 1]]
    kind = rng.choice(["dead", "near", "split", "ident", "bump", "none"])
    d = a.n_inputs
    if kind in ("dead", "near"):
        lo, hi = dom if isinstance(dom, tuple) else (Q(0), Q(0))
        row = [Q(rng.choice([-1, 1, 2])) for _ in range(d)]
        mx = sum((max(w * lo, w * hi) for w in row), Q(0)) if isinstance(dom, tuple) else None
        if mx is None:                       # R^d or the orthant: a constant neuron
            row = [Q(0)] * d
            mx = Q(0)
        Ws[0].append(row)
        bs[0].append(-mx + (Q(1, 10 ** 4) if kind == "near" else Q(-1, 3)))
        for r in Ws[1]:
            r.append(Q(rng.choice([-3, 1, 2])))
    elif kind == "split":
        l = rng.randrange(a.depth - 1)
        i = rng.randrange(len(Ws[l]))
        t = Q(rng.choice([1, 2, 3]), 4)
        Ws[l].append(list(Ws[l][i]))
        bs[l].append(bs[l][i])
        for r in Ws[l + 1]:
            r[i], v = r[i] * t, r[i]
            r.append(v * (1 - t))
    elif kind == "ident":
        W, b = Ws[-1], bs[-1]
        m = len(W)
        Ws = Ws[:-1] + [W + [[-v for v in r] for r in W],
                        [[Q(1) if j == i else Q(-1) if j == i + m else Q(0) for j in range(2 * m)] for i in range(m)]]
        bs = bs[:-1] + [b + [-v for v in b], [Q(0)] * m]
    elif kind == "bump":
        c = dom[0] + (dom[1] - dom[0]) * Q(rng.randint(1, 3), 4) if isinstance(dom, tuple) else Q(rng.randint(1, 4))
        e = Q(1, 10 ** 5)
        k = rng.randrange(d)
        for off in (0, 1, 2):
            Ws[0].append([Q(1) if j == k else Q(0) for j in range(d)])
            bs[0].append(-c - off * e)
            for r in Ws[1]:
                r.append(Q(0))
        Ws[1][0][-3:] = [Q(1), Q(-2), Q(1)]
    return Network.from_rows(Ws, bs), kind


def rational_net(rng, widths, den=4):
    """Entries n/k with n in [-9, 9], k in [1, den]."""
    W = [[[Q(rng.randint(-9, 9), rng.randint(1, den)) for _ in range(widths[l])] for _ in range(widths[l + 1])]
         for l in range(len(widths) - 1)]
    b = [[Q(rng.randint(-9, 9), rng.randint(1, den)) for _ in range(widths[l + 1])] for l in range(len(widths) - 1)]
    return Network(W, b)


def permute_scale(net, rng):
    """A random permutation and positive scaling of every hidden layer (the same function)."""
    return random_permute_scale(net, rng)


def passthrough(net, box, slack=Q(1)):
    """b = a followed by an always-active identity layer relu(y + c) - c on the box, c = slack -
    (exact interval lower bound of y): equivalent on the box; the difference network collapses
    only after the identity layer is contracted (exact interval proof that it is always active)."""
    lo = preactivation_bounds(net, domain=box)[-1]
    c = [(-l if l is not None and l < 0 else Q(0)) + slack for l, _ in lo]
    W, bias = net.layer(net.depth - 1)
    m = W.nrows
    ws = list(net.weights[:-1]) + [W, [[1 if i == j else 0 for j in range(m)] for i in range(m)]]
    bs = list(net.biases[:-1]) + [[v + ci for v, ci in zip(bias, c)], [-ci for ci in c]]
    return Network(ws, bs)


def identity_layer(net, l=1):
    """b = a with the identity relu(h) - relu(-h) inserted on the output h of hidden layer *l*
    (1-based; exact on R^d: h >= 0 there, so relu(-h) is dead and relu(h) always active).
    l = 0: on the input x (then no layer is affine: x changes sign)."""
    n = net.widths[l]
    I = QMatrix.identity(n)
    W, bias = net.layer(l)
    ws = list(net.weights[:l]) + [QMatrix.vstack([I, -I]), QMatrix.hstack([W, -W])] + list(net.weights[l + 1:])
    bs = list(net.biases[:l]) + [[0] * (2 * n), list(bias)] + list(net.biases[l + 1:])
    return Network(ws, bs)


def split_first_layer(net, rng, box, slack=Q(0)):
    """b = a with an always-active first layer relu(M x + c) (M invertible, c = slack - the exact
    lower bound of M x on the box) and a's first layer composed with M^-1 (shifted by c): a
    'layer split into two'."""
    d = net.n_inputs
    while True:
        M = QMatrix.from_rows([[rng.randint(-3, 3) for _ in range(d)] for _ in range(d)])
        if M.rank() == d:
            break
    lo = [sum((min(v * box[0], v * box[1]) for v in M.row_at(i)), Q(0)) for i in range(d)]
    c = [-v + slack for v in lo]
    W1, b1 = net.layer(0)
    Minv = M.inverse()
    W1n = W1 @ Minv
    b1n = [u - v for u, v in zip(b1, W1n.apply(c))]
    return Network([M, W1n] + list(net.weights[1:]), [c, b1n] + list(net.biases[1:]))


def dead_neurons(net, rng, box, k=2):
    """b = a permuted and rescaled, plus *k* first-layer neurons whose kink lies outside the box
    (dead there, random outgoing weights): equivalent on the box only."""
    b = permute_scale(net, rng)
    d = net.n_inputs
    rows = [[rng.randint(-5, 5) or 1 for _ in range(d)] for _ in range(k)]
    bias = [-(sum(abs(v) for v in r) * max(abs(box[0]), abs(box[1])) + 1) for r in rows]
    W1, b1 = b.layer(0)
    W2, b2 = b.layer(1)
    out = QMatrix.from_rows([[rng.randint(-5, 5) for _ in range(k)] for _ in range(W2.nrows)])
    return Network([QMatrix.vstack([W1, QMatrix.from_rows(rows)]), QMatrix.hstack([W2, out])]
                   + list(b.weights[2:]), [list(b1) + bias, list(b2)] + list(b.biases[2:]))


def tiny_difference(net, rng, box):
    """b = a plus relu(x_0 - t), t = hi - 1e-6, carried to the output by one extra neuron per
    hidden layer (relu of the previous one): a and b differ exactly on the slab x_0 > t of
    width 1e-6 at the box face (inequivalent)."""
    d = net.n_inputs
    t = box[1] - Q(1, 10**6)
    ws, bs = [], []
    for l in range(net.depth):
        W, bias = net.layer(l)
        if l == 0:
            ws.append(QMatrix.vstack([W, QMatrix.from_rows([[1] + [0] * (d - 1)])]))
            bs.append(list(bias) + [-t])
            continue
        col = QMatrix.from_rows([[1 if (l == net.depth - 1 and i == 0) else 0] for i in range(W.nrows)])
        W = QMatrix.hstack([W, col])
        if l < net.depth - 1:
            W = QMatrix.vstack([W, QMatrix.from_rows([[0] * (W.ncols - 1) + [1]])])
            bias = list(bias) + [0]
        ws.append(W)
        bs.append(list(bias))
    return Network(ws, bs)


def cut_cube_case(seed, always_cut: bool = False):
    """A planted pair (:func:`planted_pair`) of a random small net and a random cut of its cube:
    sometimes an open side, 0-2 half-spaces (at least one when a side is open, or always with
    *always_cut*: then ``Σx <= hi`` when the drawn ones vanish).  ``(a, b, Domain, kind)``; the
    cases of ``test_equiv_halfspaces`` (z3 oracle) and ``test_equiv_polytope_walk``."""
    import random

    from algebra.kernel.domains import Domain
    rng = random.Random(seed)
    a = small_net(rng) if seed % 2 else rational_net(rng, [2, 3, 3, 1])
    d = a.n_inputs
    lo, hi = Q(-rng.randint(1, 3)), Q(rng.randint(1, 3))
    b, kind = planted_pair(rng, a, (lo, hi))
    los, his = [lo] * d, [hi] * d
    if rng.random() < 0.3:                       # an open side
        (los if rng.random() < 0.5 else his)[rng.randrange(d)] = None
    n = rng.randint(1, 2) if always_cut else rng.randint(0 if None in los + his else 1, 2)
    cuts = [([Q(rng.randint(-3, 3)) for _ in range(d)], Q(rng.randint(-2, 4), rng.randint(1, 3)))
            for _ in range(n)]
    cuts = [(w, c) for w, c in cuts if any(w)]
    if always_cut and not cuts:
        cuts = [([Q(1)] * d, hi)]
    return a, b, Domain(los, his, cuts), kind
