"""Named bottleneck networks and planted sign patterns (three-layer-fibers §9), shared by the
bottleneck, symmetry-graph and cross-check tests."""

from __future__ import annotations

import random

from algebra.network import Network
from algebra.rationals import Q


def rq(rng: random.Random, lo: int = 1, hi: int = 9) -> Q:
    """A random positive rational."""
    return Q(rng.randint(lo, hi * 4), rng.randint(1, 4))


def signed(rng, s: int) -> Q:
    return rq(rng) * s


def row(rng, pattern: str) -> list:
    """Row of [W2 | b2] from a pattern like '+-|-'."""
    w, b = pattern.split("|")
    return [signed(rng, 1 if c == "+" else -1) for c in w + b]


def masked_row(rng, n1: int, i: int) -> str:
    return "".join("+" if k == i else "-" for k in range(n1)) + "|-"


def planted(rng: random.Random, d: int, n1: int, rows: list[str], m: int = 1) -> Network:
    """Random W1 (full rank with probability 1), rows of [W2 | b2] with the given patterns,
    random non-zero W3 and b3."""
    while True:
        W1 = [[Q(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(d)] for _ in range(n1)]
        b1 = [Q(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(n1)]
        R = [row(rng, p) for p in rows]
        W3 = [[signed(rng, rng.choice((-1, 1))) for _ in rows] for _ in range(m)]
        b3 = [Q(rng.randint(-9, 9), rng.randint(1, 3)) for _ in range(m)]
        net = Network.from_rows([W1, [r[:-1] for r in R], W3], [b1, [r[-1] for r in R], b3])
        from semialgebraic.bottleneck import is_generic
        if is_generic(net):
            return net


def N(W1, b1, W2, b2, W3, b3) -> Network:
    return Network.from_rows([W1, W2, W3], [b1, b2, b3])


T1 = N([[1, 0], [0, 1]], [0, 0], [[1, -1], [-2, -1]], [-1, -3], [[1, 1]], [0])


def T1_t(t) -> Network:
    t = Q(t) if not isinstance(t, Q) else t
    return N([[1, 0], [0, 1]], [t, 0], [[1, -1], [-2, -1]], [-1 - t, -3 + 2 * t], [[1, 1]], [0])


T2a = N([[1, 2], [-1, 1]], [1, 0], [[1, 2], [3, 1]], [1, 2], [[1, -1]], [5])
T2b = N([[1, 2], [-1, 1]], [1, 0], [[1, 1], [4, 1]], [1, 1], [[2, -1]], [3])
T2c = N([[1, 2], [-1, 1]], [1, 0], [[1, 1], [4, 1]], [1, 1], [[2, -1]], [4])
T3a = N([[1, 0], [0, 1]], [0, 0], [[1, -1], [-1, -2]], [-1, -1], [[1, 7]], [0])
T3b = N([[1, 0], [0, 1]], [0, 0], [[1, -1], [-5, "-1/3"]], [-1, -2], [[1, -100]], [0])
T3c = N([[1, 0], [0, 1]], [0, 0], [[1, -1], [-1, -2]], [-1, 1], [[1, 7]], [0])
T4a = N([[1]], [0], [[-2]], [3], [[1]], [0])
T4b = N([[-1]], ["3/2"], [[-2]], [3], [[-1]], [3])
T4va = N([[1]], [0], [[-2], [-1]], [3, -1], [[1, 5]], [0])
T4vb = N([[-1]], ["3/2"], [[-2], [-1]], [3, -1], [[-1, 5]], [3])
T4ca = N([[1]], [0], [[-2], [-1]], [3, 2], [[1, 5]], [0])
T4cb = N([[-1]], ["3/2"], [[-2], [-1]], [3, 2], [[-1, 5]], [3])
T5a = N([[1, 2], [-1, 1]], [1, -1], [[1, -2], [-3, 1]], [1, 2], [[1, -1]], [5])
T5b = N([["-1/3", "1/3"], [2, 4]], ["-1/3", 2], [[-30, "5/2"], ["3/7", "-3/14"]], [5, "2/7"],
        [["1/5", -7]], [5])
T6a = N([[1, 0], [0, 1]], [0, 0], [[1, -1], [3, 4]], [-1, 1], [[1, 1]], [0])
T6b = N([[1, 0], [0, 1]], [0, 0], [[-1, 1], [4, 3]], [1, 1], [[1, 1]], [-1])
T6c = N([[1, 0], [0, 1]], [0, 0], [[-1, 1], [4, 3]], [1, 1], [[1, 1]], ["-99/100"])
T7a = N([[1, 0], [0, 1]], [0, 0], [[2, -1]], [-1], [[1]], [0])
T7b = N([[1, "-1/2"], [0, -1]], [0, 0], [[2, -1]], [-1], [[1]], [0])
T7ctl_a = N([[1, 0], [0, -1]], [0, 0], [[2, -1]], [-1], [[1]], [0])
T7ctl_b1 = N([[1, 0], [0, 1]], [0, 0], [[2, -1], [3, -1]], [-1, -2], [[1, 1]], [0])
T7ctl_b2 = N([[1, "-1/2"], [0, -1]], [0, 0], [[2, -1], [3, -1]], [-1, -2], [[1, 1]], [0])
T7ctl_c1 = N([[1, 0], [0, 1]], [0, 0], [[2, -1], [-1, -3]], [-1, -2], [[1, 4]], [0])
T7ctl_c2 = N([[1, "-1/2"], [0, -1]], [0, 0], [[2, -1], [-1, -3]], [-1, -2], [[1, 4]], [0])
T11 = N([[1, 0], [0, 1]], [5, 0], [[1, -1]], [-1], [[1]], [0])
T11p = N([[1, 0], [0, 1]], ["9/2", 0], [[1, -1]], ["-1/2"], [[1]], [0])
T11pp = N([[1, 0], [0, 1]], [3, 0], [[1, -1]], [1], [[1]], [0])
P5_W1, P5_b1 = [[1, 2], [-1, 1]], [1, -1]
P5_rank1 = N(P5_W1, P5_b1, [[1, 2], [3, 1]], [1, 2], [[1, 2], [2, 4]], [0, 1])
P5_rank2 = N(P5_W1, P5_b1, [[1, 2], [3, 1]], [1, 2], [[1, 2], [3, -1]], [0, 1])

# T8 (d = n1 = 2, n2 = m = 1) and the n1 = 1 table, T9 (d = 3, n2 = 3, m = 1 unless stated)
T8 = [("++|+", 4), ("++|-", 3), ("+-|+", 3), ("+-|-", 4), ("-+|+", 3), ("-+|-", 4), ("-+|+", 3),
      ("--|+", 3), ("--|-", 10)]
T8_1 = [("+|+", 3), ("+|-", 3), ("-|+", 2), ("-|-", 5)]
T9 = [  # (n1, rows, m, expected)
    (2, ["+-|-", "-+|+", "++|-"], 1, 5),
    (2, ["+-|+", "-+|-", "--|-"], 1, 8),
    (2, ["++|+", "++|+", "+-|+"], 1, 9),
    (2, ["++|+", "++|+", "+-|+"], 2, 9),
    (2, ["+-|-", "+-|-", "--|-"], 1, 9),
    (3, ["+--|+", "-+-|-", "++-|-"], 1, 6),
    (3, ["+--|-", "+--|-", "---|-"], 1, 11),
    (3, ["+--|-", "+--|-", "+--|-"], 1, 7),
    (3, ["+++|+", "+--|+", "-+-|-"], 1, 7),
    (3, ["---|-", "---|-", "---|-"], 1, 27),
]
