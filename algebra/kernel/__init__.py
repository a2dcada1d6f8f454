"""The trusted kernel: the small exact operations that deciders and certificate checkers share.

Rules (checked by ``tests/test_layering.py``):

* short, exact, over Q; no search, no heuristics, no budget, no randomness;
* each function is tested on its own against an independent oracle (``tests/algebra/test_kernel*.py``);
* ``semialgebraic/verify/`` may import this package (and the rest of ``algebra``) only; deciding
  modules may use it too, so decider and checker share only code that is small enough to read.
"""
