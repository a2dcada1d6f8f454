r"""Fibers of the realisation map: all parameters of one architecture that give the same function.

:func:`fiber` dispatches on the network and the domain (kept deliberately simple):

* one hidden layer, domain None (R^d) or ``"orthant"`` → :func:`fiber_shallow`;
* two hidden layers → :func:`semialgebraic.bottleneck.fiber_bottleneck` (three-layer-fibers
  R16/R17; owned by the bottleneck family);
* anything else → :class:`~semialgebraic.exceptions.NotApplicableError`.

Both fibers satisfy one protocol, :class:`Fiber` (``net``, ``domain``, ``components``,
``dimension``, ``number_of_components``, ``number_of_orbits``, ``graph``, ``notes``,
``contains``, ``to_json``, ``to_latex``), and their components :class:`FiberComponent` (``ring``,
``label``, ``representative``, ``equalities``, ``positive``, ``basic_set``, ``dimension``,
``contains``, ``sample``, ``to_json``, ``to_latex``).  They are two classes, not one: a
one-hidden-layer component also has non-strict sign conditions and holds its polynomials, a
bottleneck component builds them on demand (rings with ~10^5 names) and carries the continuous
generators at its representative.

**One hidden layer** (``f = V σ(W x + b) + c``, widths (d, n, m), N = n(d+1) + m(n+1)
parameters).  The fiber of θ is ``{θ' : canonical_form(θ') = canonical_form(θ)}``
(:mod:`semialgebraic.shallow.canonical`).  :func:`fiber_shallow` (:mod:`semialgebraic.shallow.fiber`)
reports:

* ``components``: the *stratum* of θ and its discrete copies up to permutations, each an explicit
  basic semi-algebraic set in the parameter ring (names ``W1[i,j]``, ``b1[i]``, ``W2[o,i]``,
  ``b2[o]``): every kink neuron stays on its hyperplane with its orientation
  (``W1[i,k] − W1[i,j]·u_k = 0``, ``b1[i] − W1[i,j]·β = 0``, ``s·W1[i,j] > 0``) — but the
  neurons of a hyperplane whose kinks cancel (two or more, total kink 0) keep only a common one,
  which moves (their rows proportional to the first's: the group's sum stays affine wherever it
  is, three-layer-fibers R40's cancelling groups) —, each hyperplane keeps its kink vector (``Σ s·W1[i,j]·W2[o,i] = K_o``), the affine part is kept (flip
  remainders and linear neurons: ``Σ W2[o,i]·W1[i,k] = A[o,k]``, the constants with ``b2``), zero
  / constant / dead / linear neurons keep their role (sign conditions);
* ``number_of_components`` and ``number_of_orbits`` — **exact only in the irredundant case**
  (every neuron carries a kink, on pairwise distinct hyperplanes; on the orthant: every neuron
  switching): then the fiber is the disjoint union over (assignment of neurons to hyperplanes,
  flip set S) of products of open half-lines (the positive scalings), so
  ``number_of_components = n! · #S`` and ``number_of_orbits = #S``, where S ranges over the sets
  of neurons whose orientation flip ``(w, b) → −(w, b)`` keeps the affine part, i.e.
  ``Σ_{i∈S} v_i w_iᵀ = 0`` (``σ(h) − σ(−h) = h``; the constant goes to ``c``), enumerated
  exactly (only S = ∅ when the matrices ``v_i w_iᵀ`` are linearly independent).  Spare neurons (zero outputs, constants, dead,
  linear, several neurons on one hyperplane) connect permutation copies through the larger
  strata; the count is then reported as None with the reason (not guessed);
* ``dimension`` — the local dimension at θ, exact when two independent bounds meet: the rank of
  the tangent vectors of explicit continuous symmetries at θ (a lower bound: their flows stay in
  the fiber) and ``N − rank J`` with J the exact Jacobian of θ ↦ (f_θ(x))_x over inputs sampled on
  both sides of every hyperplane of θ, d + 1 affinely independent points per side and none on a
  hyperplane (an upper bound: near θ the fiber lies in the fiber of this polynomial evaluation
  map, whose tangent cone lies in ker J; three-layer-fibers R22, P10).  At generic θ both equal n
  on R^d, and the R7 count on the orthant.  In the irredundant case the dimension is n by the
  structure above (the Jacobian bound, when computed, must agree).

>>> from algebra.network import Network
>>> F = fiber(Network.from_rows([[[1, 0], [0, 1]], [[1, -1]]], [[0, 1], [0]]))
>>> F.dimension.value, F.dimension.exact, F.number_of_components, F.number_of_orbits
(2, True, 2, 1)
>>> F.contains(Network.from_rows([[[0, 2], [3, 0]], [["-1/2", "1/3"]]], [[2, 0], [0]]))
True
"""

from __future__ import annotations

import time
from typing import Any, Protocol, runtime_checkable

from algebra.network import Network, require_network

from .budget import api_boundary
from .bottleneck import fiber_bottleneck
from .equivalence import equivalent
from .exceptions import BudgetExceededError, NotApplicableError
from .sets import Dimension, api_domain
from .shallow import fiber_shallow

__all__ = ["Fiber", "FiberComponent", "fiber"]


@runtime_checkable
class FiberComponent(Protocol):
    """One component of a fiber up to the permutation action: a basic semi-algebraic set in the
    parameter ring (``equalities`` = 0, ``positive`` > 0), with a label, its dimension and a
    sample.  Implemented by :class:`semialgebraic.shallow.ShallowFiberComponent` and
    :class:`semialgebraic.bottleneck.BottleneckFiberComponent`."""

    ring: Any
    label: Any
    representative: Network | None

    @property
    def equalities(self) -> list:
        """Polynomials that vanish on the component."""

    @property
    def positive(self) -> list:
        """Polynomials that are > 0 on the component."""

    @property
    def basic_set(self):
        """The component as a :class:`~semialgebraic.sets.BasicSet`."""

    @property
    def dimension(self) -> Dimension:
        """Dimension of the component."""

    def contains(self, point) -> bool:
        """Exact membership of a parameter vector or a Network (no permutation applied)."""

    def sample(self):
        """Parameters of a point of the component (None when none was constructed)."""

    def to_json(self) -> dict:
        """The component as JSON data."""

    def to_latex(self) -> str:
        """The component as a LaTeX set."""


@runtime_checkable
class Fiber(Protocol):
    """The fiber of a network: what :func:`fiber` returns.  Implemented by
    :class:`semialgebraic.shallow.ShallowFiber` and
    :class:`semialgebraic.bottleneck.BottleneckFiber`.

    ``number_of_components`` / ``number_of_orbits`` are None when not determined (the reason is
    in ``notes``); ``contains(θ)`` is the exact equivalence decision.
    """

    net: Network
    domain: str | None
    components: list
    dimension: Dimension
    number_of_components: int | None
    number_of_orbits: int | None
    components_exact: bool        # number_of_components is the exact count
    at_theta: int | None          # the fiber's dimension near the network's own parameters
    graph: Any
    notes: list

    def contains(self, theta: Network) -> bool:
        """True iff *theta* realises the same function on the domain."""

    def to_json(self) -> dict:
        """The fiber as JSON data."""

    def to_latex(self) -> str:
        """The fiber as a LaTeX union of components."""


@api_boundary
def fiber(net: Network, *, domain=None, timeout: float | None = None) -> Fiber:
    """Fiber of *net* (dispatcher; see the module docstring).

    Parameters
    ----------
    net : Network
        One hidden layer, or two hidden layers with ``n1 ≤ d`` (generic, three-layer-fibers
        §3.1).
    domain : None, "R^d" or "orthant"
        The input domain (any spelling of R^d or the orthant :func:`~semialgebraic.sets.
        api_domain` takes); the orthant for one hidden layer only.
    timeout : float, optional
        Seconds (as the CLI's ``fiber --timeout``; an alarm on the main thread, elsewhere
        only the budget checks inside the computation see it): past them
        :class:`~semialgebraic.exceptions.BudgetExceededError` is raised (session 39 API audit:
        the API had no budget for the fiber).

    Returns
    -------
    Fiber
        A :class:`~semialgebraic.shallow.ShallowFiber` or a
        :class:`~semialgebraic.bottleneck.BottleneckFiber`.

    Raises
    ------
    NotApplicableError
        For other depths or domains.
    NonGenericError
        For a bottleneck network outside the theory (a genericity condition fails).
    BudgetExceededError
        When *timeout* seconds pass first.
    """
    if timeout is not None:
        from .budget import Budget, BudgetExhausted, alarm_at
        if timeout <= 0:
            raise BudgetExceededError(f"timeout of {timeout:g} s reached before the fiber")
        try:                # the alarm (main thread); the budget's checks (any thread) and the
            with Budget(timeout).active(), \
                    alarm_at(time.monotonic() + timeout, "the fiber"):   # conversions it
                return fiber(net, domain=domain)                          # cannot pay for
        except BudgetExhausted:
            raise BudgetExceededError(f"timeout of {timeout:g} s reached computing the fiber") from None
    require_network(net, "fiber")
    if domain is not None and not (isinstance(domain, str) and domain == "orthant"):   # any
        # spelling of R^d or the orthant (an array's != is elementwise: isinstance first)
        kind = api_domain(domain, net.n_inputs).legacy_or_none()
        if kind not in (None, "orthant"):
            raise NotApplicableError("fiber", f"the domain {domain!r}: a fiber is described on R^d "
                                     "or the orthant (None or 'orthant'); `netfibers dim` gives "
                                     "the fiber's dimension on a box")
        domain = kind
    if net.depth == 2:
        return fiber_shallow(net, orthant=domain == "orthant")
    if net.depth == 3 and domain in (None, "R^d"):
        return fiber_bottleneck(net, membership=equivalent)
    if net.depth == 1:
        raise NotApplicableError("fiber", "the network has no hidden layer: x -> W x + b determines "
                                 "W and b, so its fiber is the point itself (dimension 0; "
                                 "netfibers dim says the same)")
    raise NotApplicableError("fiber", f"no fiber description for {net.depth - 1} hidden layers "
                             f"on domain {domain or 'R^d'} (one hidden layer, or two on R^d; "
                             "`netfibers dim` gives the fiber dimension of any network)")
