"""The first-layer keys that choose the suspects of the random refutation (session 43): on a
reader's large arrays they are floats (the exact keys of a 3072 x 768 layer took 5 s no budget
saw); they must still pair positively parallel rows and part the others, as the exact keys do."""

from __future__ import annotations

import numpy as np

from algebra.io import network_from_tensors
from semialgebraic.equivalence.refutation import _FLOAT_KEYS, _first_layer_keys, _ray_key


def _arrays(W1, b1, W2, b2):
    return network_from_tensors({"W1": W1, "b1": b1, "W2": W2, "b2": b2})


def test_float_keys_part_the_rows_as_the_exact_keys():
    rng = np.random.default_rng(3)
    n, d = 300, 256
    W1 = rng.standard_normal((n, d)).astype(np.float32)
    b1 = rng.standard_normal(n).astype(np.float32)
    W1[7] = 0; b1[7] = 0                                           # a zero row
    W1[9] = 4 * W1[3]; b1[9] = 4 * b1[3]                           # positively parallel to row 3
    W1[11] = -W1[3]; b1[11] = -b1[3]                               # opposite: not parallel
    W1[13] = W1[5]; b1[13] = b1[5] + np.float32(2 ** -20)          # a near miss
    W2 = rng.standard_normal((1, n)).astype(np.float32)
    b2 = np.zeros(1, np.float32)
    a = _arrays(W1, b1, W2, b2)
    assert n * d >= _FLOAT_KEYS and a.integer_weights(0) is not None
    keys, row = _first_layer_keys(a)
    assert keys[7] is None and keys[9] == keys[3] and keys[11] != keys[3] and keys[13] != keys[5]
    exact = [_ray_key(*row(i)) for i in range(n)]
    for i in range(n):                                             # the same partition
        for j in (3, 5, 9, 11, 13, (i * 7 + 1) % n):
            assert (keys[i] == keys[j]) == (exact[i] == exact[j]), (i, j)
    perm = rng.permutation(n)                                      # a permuted, rescaled copy
    s = (2.0 ** rng.integers(-3, 4, n)).astype(np.float32)
    b = _arrays(W1[perm] * s[perm, None], b1[perm] * s[perm], W2[:, perm] / s[perm], b2)
    kb, _ = _first_layer_keys(b)
    assert sorted(map(repr, kb)) == sorted(map(repr, keys))
    W1c = W1.copy(); W1c[20, 0] += np.float32(1e-3)                # one row moved: one suspect each
    kc, _ = _first_layer_keys(_arrays(W1c, b1, W2, b2))
    assert [i for i in range(n) if kc[i] not in set(keys)] == [20]
