"""Exact linear algebra over Q (and modulo a prime), on FLINT.

* :mod:`algebra.linalg.qmatrix` — :class:`QMatrix`, the immutable matrix over Q, and helpers;
* :mod:`algebra.linalg.evaluation` — :class:`AffineReluChain`, exact batched evaluation of
  affine maps with ReLU between them;
* :mod:`algebra.linalg.intervals` — :class:`IntegerImage` (repeated products through one integer
  form) and :func:`interval_image` (exact image of a box);
* :mod:`algebra.linalg.gfp` — residues, rank, echelon forms and kernels modulo a prime (the one
  list of primes is documented there).

>>> QMatrix.from_rows([[1, 2], [2, 4]]).rank(), nmod_rank(2, 2, [1, 2, 2, 4], PRIME)
(1, 1)
"""

from .evaluation import AffineReluChain
from .gfp import (PRIME, PRIME_31, PRIME_61, PRIMES_24, echelon_mod_p, inverse_mod_p, is_prime,
                  kernel_mod_p, matmul_mod_p, nmod_left_kernel_vector, nmod_rank, nmod_rref,
                  prime_for, rank_lower_bound, rank_mod_p, reduce_mod_p, residue, residues,
                  shrink_kernel_mod_p)
from .intervals import IntegerImage, interval_image
from .qmatrix import IntMatrix, QMatrix, common_denominator, to_q_list

__all__ = [
    "QMatrix", "IntMatrix", "common_denominator", "to_q_list",
    "AffineReluChain",
    "IntegerImage", "interval_image",
    "PRIME", "PRIMES_24", "PRIME_31", "PRIME_61", "is_prime", "prime_for", "residue", "residues",
    "nmod_rank", "nmod_rref", "nmod_left_kernel_vector", "rank_lower_bound",
    "rank_mod_p", "echelon_mod_p", "kernel_mod_p", "shrink_kernel_mod_p", "matmul_mod_p",
    "inverse_mod_p", "reduce_mod_p",
]
