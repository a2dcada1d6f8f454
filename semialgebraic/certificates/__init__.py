"""Certificates: self-contained JSON evidence for every verdict, built in one place per type.

A certificate is a plain JSON-able ``dict``: the common header ``{"format":
"netfibers.certificate", "type": ..., "schema_version": n, "netfibers_version": "..."}``
(:func:`algebra.kernel.certificate_schemas.header`), the inputs embedded in full (networks as
native JSON dicts, blocks as block dicts) and every claimed value as exact numbers (JSON
integers or ``"p/q"`` strings).  :func:`semialgebraic.verify.verify` re-checks it with small code
that imports ``algebra`` only; every number in a certificate is checked by it (a key that the
schema of the type does not list is refused).

The one table of the certificate types.  Each type has one builder here (module named like its
checker) and one checker in ``semialgebraic/verify/``, whose module docstring documents the
schema (keys, types, meaning); the schema versions and the key lists are data in
:mod:`algebra.kernel.certificate_schemas`.

=================================  =================================================  ===========================================  ====  ==========================================================
type                               builder                                            checker                                      ver.  content
=================================  =================================================  ===========================================  ====  ==========================================================
``counterexample``                 :func:`counterexample_certificate`                 ``verify/counterexample.py``                 1     networks ``a``, ``b``; input ``x``, exact ``a_x``, ``b_x`` (optional domain)
``symmetry_path``                  :func:`symmetry_path_certificate`                  ``verify/symmetry_path.py``                  1     networks ``a``, ``b``; symmetry ``steps`` carrying a to b; checkpoints
``region_cover``                   :func:`region_cover_certificate`                   ``verify/region_cover.py``                   1     networks ``a``, ``b``; contractions, reductions, regions of a − b (zero on each)
``absorption``                     :func:`absorption_certificate`                     ``verify/absorption.py``                     1     block, competitor class, yes/no witness (flip set, canonical form, obstruction)
``identifiability_hypotheses``     :func:`identifiability_certificate`                ``verify/identifiability.py``                1     network; fiber dimension n1 + n2 (hypotheses of R18 re-derived)
``functional_dimension``           :func:`dimension_bounds_certificate`               ``verify/functional_dimension.py``           1     network, prime, inputs, lower bound; certified upper bound (optional)
``exercise``                       :func:`exercise_certificate`                       ``verify/exercise.py``                       1     network; proof that one parameter is never exercised on a domain
``bab_bound``                      :func:`bab_bound_certificate`                      ``verify/bab_bound.py``                      2     networks ``a``, ``b``; box; per ± output a branch-and-bound tree with exact dual multipliers per leaf
``non_localizability``             :func:`non_localizability_certificate`             ``verify/non_localizability.py``             1     network; hypotheses of f2∘f1 and f3∘f2; symmetry path of the composite changing b3 (three-layer-fibers R19)
``absorbing_blocks``               :func:`absorbing_blocks_certificate`               ``verify/absorbing_blocks.py``               1     block; every valid flip set S and its flip block (skip-absorption R10)
``bab_cover``                      :func:`bab_cover_certificate`                      ``verify/bab_cover.py``                      1     networks ``a``, ``b``; box; ``bab_bound`` certificates of cells covering the box
``bab_recession``                  :func:`bab_recession_certificate`                  ``verify/bab_recession.py``                  1     networks ``a``, ``b``; unbounded domain; a ray along which |a − b| grows, or a ``bab_bound`` proof that the biases-free a − b is 0 on the recession cone (R28)
``on_box``                         :func:`on_box_certificate`                         ``verify/on_box.py``                         1     networks ``a``, ``b``; a box with its own sides; the ``region_cover`` of a, b read on the cube (R36)
``functional_dimension_sandwich``  :func:`functional_dimension_sandwich_certificate`  ``verify/functional_dimension_sandwich.py``  1     network; box and half-spaces; ``functional_dimension`` certificates at inputs inside (lower) and on the box (upper) (R37)
``one_hidden_layer_dimension``     :func:`one_hidden_layer_dimension_certificate`     ``verify/one_hidden_layer_dimension.py``     1     network (one hidden layer); domain (a box cut by half-spaces: with an interior point and the neurons' evidence); value N - kernel, the hypotheses of R38/R39 re-checked
``conservation_laws``              :func:`conservation_laws_certificate`              ``verify/conservation_laws.py``              1     network; samples (patterns, points); laws (polynomials, identities re-derived); prime; jet brackets; [lower, upper] (R23-R26)
``symmetry_report``                :func:`symmetry_report_certificate`                ``verify/symmetry_report.py``                1     network; the listed copies / component representatives, each a ``symmetry_path`` or ``region_cover`` from it; identify's certificate
=================================  =================================================  ===========================================  ====  ==========================================================

``CERTIFICATE_TYPES`` holds the same table as data (checked against the checkers and the schema
versions by ``tests/semialgebraic/test_certificate_builders.py``).
"""

from __future__ import annotations

from algebra.kernel.certificate_schemas import CERTIFICATE_FORMAT, SCHEMA_VERSIONS, header

from ..exceptions import CertificateError
from ..verify import verify
from ._json import jsonable, write_certificate
from .absorbing_blocks import absorbing_blocks_certificate
from .absorption import absorption_certificate
from .bab_bound import bab_bound_certificate
from .bab_cover import bab_cover_certificate
from .bab_recession import bab_recession_certificate
from .conservation_laws import conservation_laws_certificate
from .counterexample import counterexample_certificate, shorter_point
from .exercise import exercise_certificate
from .functional_dimension import dimension_bounds_certificate
from .identifiability import affine_identifiability_certificate, identifiability_certificate
from .non_localizability import non_localizability_certificate
from .functional_dimension_sandwich import functional_dimension_sandwich_certificate
from .one_hidden_layer_dimension import one_hidden_layer_dimension_certificate
from .on_box import on_box_certificate
from .region_cover import region_cover_certificate
from .symmetry_path import symmetry_path_certificate
from .symmetry_report import symmetry_report_certificate

__all__ = ["CERTIFICATE_FORMAT", "CERTIFICATE_TYPES", "SCHEMA_VERSIONS", "header", "jsonable",
           "require_valid", "valid_within",
           "write_certificate", "counterexample_certificate", "shorter_point", "symmetry_path_certificate",
           "region_cover_certificate", "absorption_certificate", "identifiability_certificate",
           "dimension_bounds_certificate", "exercise_certificate", "bab_bound_certificate",
           "non_localizability_certificate", "absorbing_blocks_certificate", "bab_cover_certificate",
           "bab_recession_certificate", "on_box_certificate", "functional_dimension_sandwich_certificate",
           "one_hidden_layer_dimension_certificate", "conservation_laws_certificate",
           "affine_identifiability_certificate", "symmetry_report_certificate"]

# type -> (builder, checker module under semialgebraic.verify, one-line content)
CERTIFICATE_TYPES = {
    "counterexample": (counterexample_certificate, "counterexample",
                       "a(x) != b(x) at an exact input (or different signatures)"),
    "symmetry_path": (symmetry_path_certificate, "symmetry_path",
                      "exact symmetry steps carry a to b"),
    "region_cover": (region_cover_certificate, "region_cover",
                     "a - b, reduced, is zero on regions that cover the domain"),
    "absorption": (absorption_certificate, "absorption",
                   "a block is / is not a residual-free block of the same width"),
    "identifiability_hypotheses": (identifiability_certificate, "identifiability",
                                   "the hypotheses of the identifiability criterion R18 hold"),
    "functional_dimension": (dimension_bounds_certificate, "functional_dimension",
                             "lower (and certified upper) bounds of the functional dimension"),
    "exercise": (exercise_certificate, "exercise", "a parameter is never exercised on a domain"),
    "bab_bound": (bab_bound_certificate, "bab_bound", "branch-and-bound trees bound max |a - b| on a box"),
    "non_localizability": (non_localizability_certificate, "non_localizability",
                           "f2∘f1 and f3∘f2 identifiable, f3∘f2∘f1 not (three-layer-fibers R19)"),
    "absorbing_blocks": (absorbing_blocks_certificate, "absorbing_blocks",
                         "every absorbing block up to permutation and scaling (skip-absorption R10)"),
    "bab_cover": (bab_cover_certificate, "bab_cover",
                  "bab_bound certificates of cells covering a box bound max |a - b| on it"),
    "bab_recession": (bab_recession_certificate, "bab_recession",
                      "sup |a - b| on an unbounded domain: +inf along a ray, or bounded (R28)"),
    "on_box": (on_box_certificate, "on_box",
               "a = b on a box with its own sides, proved for a, b read on the cube (R36)"),
    "functional_dimension_sandwich": (functional_dimension_sandwich_certificate, "functional_dimension_sandwich",
                                      "functional dimension on a box cut by half-spaces, between a "
                                      "cube's inside and the box's (R37)"),
    "one_hidden_layer_dimension": (one_hidden_layer_dimension_certificate, "one_hidden_layer_dimension",
                                   "functional dimension N - kernel of a one-hidden-layer net (R38, R39)"),
    "conservation_laws": (conservation_laws_certificate, "conservation_laws",
                          "the number of conservation laws of gradient flow near theta lies in "
                          "[lower, upper] (R23-R26)"),
    "symmetry_report": (symmetry_report_certificate, "symmetry_report",
                        "the parameters symmetries/fiber list compute the network's function; "
                        "identify's certificate"),
}


def require_valid(certificate: dict, checker=None, kind: str | None = None) -> dict:
    """*certificate* after the independent checker accepted it; :class:`CertificateError` (a bug
    in the decider that built it) when the checker refuses it.

    The one place where a decider re-checks what it is about to return.  *checker* is
    :func:`semialgebraic.verify.verify` by default; the deciders pass the name they imported it
    under (so that a test can replace it there); *kind* names the certificate in the error when
    it has no ``type``.

    >>> from algebra.network import Network
    >>> a = Network.from_rows([[[1]], [[1]]], [[0], [0]])
    >>> b = Network.from_rows([[[1]], [[1]]], [[0], [1]])
    >>> require_valid(counterexample_certificate(a, b, [0]))["type"]
    'counterexample'
    >>> require_valid({"type": "counterexample"}, lambda c: (False, "planted"))
    Traceback (most recent call last):
        ...
    semialgebraic.exceptions.CertificateError: internal check of a counterexample certificate failed: planted
    """
    ok, why = (checker or verify)(certificate)
    if not ok:
        raise CertificateError(certificate.get("type", kind or "certificate"), why)
    return certificate


def valid_within(certificate: dict, budget, alarm_every: float = 0.25, checker=None):
    """Re-check *certificate* with the independent checker (through :func:`require_valid`) in
    the time *budget* has left: True (valid), None (not re-checked: no time, Ctrl-C, or the
    check did not finish in time; an alarm repeated every *alarm_every* s stops it); an invalid
    certificate raises :class:`CertificateError` (a bug of the decider).  A check the alarm cut
    is never trusted, whatever it returned.  *checker*: as for :func:`require_valid` (default
    :func:`semialgebraic.verify.verify`, looked up when called)."""
    try:                                  # (a Ctrl-C on its first lines too: s46 Ctrl-C audit)
        return _valid_within(certificate, budget, alarm_every, checker)
    except KeyboardInterrupt as exc:
        from ..budget import BudgetExhausted
        if isinstance(exc, BudgetExhausted):
            budget.exhausted()
        else:
            budget.interrupt()
        return None


def _valid_within(certificate: dict, budget, alarm_every: float, checker):
    import threading
    import time

    from ..budget import BudgetExhausted, alarm_at, ctrl_c_count
    from ..verify import verify as late   # looked up at each call (a test may replace it)
    checker = checker or late
    left = budget.remaining()
    if budget.interrupted:
        return None
    seen = ctrl_c_count()
    fired: list = []
    try:
        if left is None:
            require_valid(certificate, checker)
            return True
        if left <= 0.05 or threading.current_thread() is not threading.main_thread():
            return None
        with alarm_at(time.monotonic() + left, "the certificate's self-check", alarm_every) as fired:
            require_valid(certificate, checker)
    except (BudgetExhausted, CertificateError) as exc:
        # the alarm fired inside the checker (or, for a stop, a Ctrl-C met it): never trust its
        # answer; a refusal with neither is a decider's bug and goes up
        if fired or (isinstance(exc, BudgetExhausted) and ctrl_c_count() != seen):
            budget.exhausted()
            return None
        raise
    except KeyboardInterrupt:
        # a Ctrl-C during the check: the answer stands, not re-checked here (its report was lost
        # with it: s45 Ctrl-C audit F6); ``budget`` now says interrupted
        budget.interrupt()
        return None
    return None if fired else True
