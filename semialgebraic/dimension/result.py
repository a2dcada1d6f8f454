"""The result of :func:`semialgebraic.dimension.functional_dimension`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..sets import Dimension

__all__ = ["FunctionalDimension"]


MOVES = ("scalings, dead and unread neurons, outgoing weight moved between parallel neurons, bias "
         "trades of linear pairs, constant and always-active neurons, GL moves of linear blocks "
         "with a margin, opposite first-layer pairs traded against always-active neurons")
"""The kinds of move the fiber's lower end counts (:func:`~semialgebraic.dimension.directions.
fiber_moves`), as the reasons name them."""


@dataclass(frozen=True)
class FunctionalDimension:
    """Result of :func:`~semialgebraic.dimension.functional_dimension`:
    ``lower <= value <= upper`` (exact when equal and θ is generic)."""

    n_parameters: int
    lower: int
    upper: int
    reason: str
    deficits: tuple = ()
    complete_regions: bool = False
    samples: int = 0
    details: dict = field(default_factory=dict, repr=False)   # (patterns, proofs: large)
    inputs: tuple = field(default=(), repr=False, compare=False)   # the exact inputs of the rank
    non_generic: str = ""      # why no input of the domain is a differentiable point (else "")
    nearby: tuple = ()         # non-generic: the values at explicit nearby parameters (dicts)
    local_upper: int | None = None   # non-generic: the largest certified nearby value
    fiber_floor: int | None = None   # a certified lower bound of the fiber's dimension (robust moves)
    fiber_exact_by: str = ""         # "moves" / "R17" (a generic bottleneck): the rank locally constant
    fiber_cap: int | None = None     # an upper bound below N − rank (one hidden layer, shared kinks)
    domain: object = field(default=None, repr=False, compare=False)   # the Domain it is about

    @property
    def exact(self) -> bool:
        """Whether the bounds meet at a generic θ (then :attr:`value` is the functional dimension)."""
        return self.lower == self.upper and not self.non_generic

    @property
    def value(self) -> int | None:
        """The functional dimension when :attr:`exact`, else None."""
        return self.lower if self.exact else None

    @property
    def dimension(self) -> Dimension:
        """The functional dimension as a :class:`~semialgebraic.sets.Dimension` (bounds and reason)."""
        return Dimension.between(self.lower, self.upper, self.reason)

    @property
    def fiber_dimension(self) -> Dimension:
        """The local dimension of the fiber at θ (the parameters computing f_θ on the domain).
        N − rank (three-layer-fibers R22) is an upper bound: the fiber's tangent directions at its
        smooth points θ' near θ lie in the kernel of the Jacobian at θ', whose rank is >= the
        rank at θ; it is the fiber's dimension where the rank is locally constant.  It is given
        as the value (:attr:`fiber_exact_by`) when the moves that keep the function near θ reach
        it, on a generic three-layer bottleneck (R17), or when no kernel direction is known to
        exceed the fiber (R22's reading); otherwise — a first-layer neuron dead on R^d (its w is
        fixed at 0: a 2-input net's kernel frees 4 of its parameters, the fiber 2), a dead
        neuron with zero outgoing weights, a non-generic θ — the certified bounds
        [:attr:`fiber_floor`, N − rank] (:func:`semialgebraic.dimension.directions.fiber_lower`)."""
        N = self.n_parameters
        hi = N - self.lower
        if self.fiber_cap is not None and self.exact:
            hi = min(hi, self.fiber_cap)
        lo = 0 if self.fiber_floor is None else self.fiber_floor
        if self.fiber_exact_by:          # N - upper is a lower bound in R22's reading too
            lo = max(lo, N - self.upper)
        lo = min(lo, hi)
        if self.exact and lo == hi:
            why = {"moves": "every kernel direction a move that keeps the function near theta (the "
                            "rank is locally constant)",
                   "R17": "the Jacobian rank is locally constant (R17, a generic bottleneck)",
                   "R22": "three-layer-fibers R22's reading: the rank is locally constant at "
                          "theta, checked at a random theta' nearby, not proved; the moves found "
                          f"give at least {self.fiber_floor or 0}"}.get(self.fiber_exact_by, "")
            if self.fiber_cap is not None and self.fiber_cap < N - self.lower:
                return Dimension.of(hi, "the moves that keep the function near theta reach the "
                                        "kernel of the Jacobian once what the fiber keeps fixed "
                                        "is fixed (one hidden layer: neurons sharing a kink keep "
                                        "it shared, and on R^d a zero row stays 0, since moving "
                                        "it makes a kink nothing cancels; "
                                        "directions.shared_kink_cap)")
            return Dimension.of(hi, f"N - functional dimension ({why})" if why else
                                "N - functional dimension")
        if self.exact:
            return Dimension.between(lo, hi, "at least the moves that keep the function near theta "
                                             f"({MOVES}), at most N - "
                                             "functional dimension, which can count directions the "
                                             "fiber does not have (a first-layer neuron dead on R^d; "
                                             "parallel rows; a linear block without a margin; a "
                                             "non-generic theta, where the rank jumps nearby)")
        return Dimension.between(lo, hi, "N - the bounds of the functional dimension (the lower "
                                         "end the moves that keep the function near theta where "
                                         "N - rank is known to overcount)")

    @property
    def fiber_overcount(self) -> str:
        """Why N − rank may exceed the fiber's dimension, for an exact functional dimension whose
        fiber dimension is an interval: a non-generic θ (a region holding no differentiable
        input), else a dead or unread neuron's directions the fiber does not have."""
        if self.details.get("kink_regions") or self.details.get("kinks"):
            return ("theta is not generic (a neuron's pre-activation vanishes on a whole region "
                    "that the network above sees), so the rank can jump at parameters nearby")
        if self.details.get("fiber_overcount"):
            return "; ".join(self.details["fiber_overcount"])
        return ("a dead or unread neuron's directions the fiber does not have, e.g. the incoming "
                "weights of a first-layer neuron dead on R^d, which must stay 0")

    @property
    def work(self) -> dict:
        """The work done: exact points sampled, sampling batches (rounds), the inputs of each
        batch and regions walked.  Sampling is deterministic given the seed and this work (the
        budget stops it between whole batches; above ``RANK_ONLY`` parameters with a timeout the
        clock sizes the batches, hence their sizes here)."""
        return {"points": self.samples, "batches": int(self.details.get("rounds", 0)),
                "batch_sizes": [int(k) for k in self.details.get("batch_sizes") or ()],
                "regions_walked": int(self.details.get("regions_walked", 0))}

    def work_text(self) -> str:
        """``"12 000 points in 24 batches, 6 regions walked"`` (with the batches' sizes when they
        differ: ``"112 points in 3 batches (16 + 32 + 64), …"``).

        >>> FunctionalDimension(7, 3, 3, "", samples=12000, details={"rounds": 24, "regions_walked": 1}).work_text()
        '12 000 points in 24 batches, 1 region walked'
        """
        w = self.work
        points = f"{w['points']:,}".replace(",", " ")
        sizes = w["batch_sizes"]
        of = f" ({' + '.join(map(str, sizes))})" if 1 < len(sizes) <= 24 and len(set(sizes)) > 1 else ""
        return (f"{points} points in {w['batches']} batch{'es' if w['batches'] != 1 else ''}{of}, "
                f"{w['regions_walked']} region{'s' if w['regions_walked'] != 1 else ''} walked")

    def to_json(self) -> dict:
        """The JSON form of the result (what the CLI prints)."""
        out = {"functional_dimension": self.value, "fiber_dimension": self.fiber_dimension.value,
               # the dimension near θ; `fiber` names it alike beside its largest stratum's
               "fiber_dimension_at_theta": self.fiber_dimension.value,
               "exact": self.exact, "n_parameters": self.n_parameters, "reason": self.reason,
               "deficits": list(self.deficits), "complete_regions": self.complete_regions,
               "samples": self.samples, "work": self.work}
        if self.details.get("exercise_proofs"):     # a shared proof listed once, by index
            table: list = []
            index: dict = {}
            proofs = []
            seen: dict = {}
            for p in self.details["exercise_proofs"]:
                if isinstance(p.get("shared"), dict):
                    index.setdefault(id(p["shared"]), len(index))
                    if len(table) < len(index):
                        table.append(p["shared"])
                    p = {**p, "shared": index[id(p["shared"])]}
                # a proof equal to an earlier one but for its parameter (the weights of one
                # neuron share it: 93 of 6.8 KB each in an 812 KB `dim --json` of the digits
                # 64-32-16-10 ball) names that parameter instead
                key = json.dumps({k: v for k, v in p.items() if k != "parameter"}, sort_keys=True,
                                 default=str)
                if "parameter" in p and "shared" not in p and key in seen:
                    p = {"parameter": p["parameter"], "same_as": seen[key]}
                elif "parameter" in p and "shared" not in p:
                    seen[key] = p["parameter"]
                proofs.append(p)
            out["exercise_proofs"] = proofs
            if table:
                out["shared_proofs"] = table
        if self.non_generic:
            out["non_generic"] = self.non_generic
            out["nearby"] = [dict(v) for v in self.nearby]
            out["local_upper"] = self.local_upper
        if not self.exact:
            out.update(lower=self.lower, upper=self.upper)
        fib = self.fiber_dimension
        if not fib.exact:
            out.update(fiber_lower=fib.lower, fiber_upper=fib.upper)
        elif self.fiber_exact_by == "R22":   # a reading, not a proof: the certified floor beside it
            out.update(fiber_dimension_by="R22 reading (not certified)",
                       fiber_lower=self.fiber_floor or 0, fiber_upper=fib.value)
        return out
