"""The step protocol of symmetry generators (exact actions on networks; three-layer-fibers §5,
S1–S8, and the one-hidden-layer moves of R^d), the registry of steps and symmetry paths.

A :class:`Step` is a frozen value that carries every number it needs (its own witness), so
``check(net)`` is pure algebra, no LP.  Protocol of every step:

* ``apply(net) -> Network`` — exact; raises :class:`~algebra.exceptions.InvalidStepError` with
  the reason when ``check`` fails;
* ``check(net) -> (bool, reason)`` — validity of the step at *net*;
* ``inverse(net) -> Step`` — a step with ``inverse(net).apply(apply(net)) == net``;
* ``generator(net) -> list[tuple]`` — for continuous families, tangent vectors at *net* in the
  flat parameter order of :meth:`Network.parameters` (empty for discrete steps);
* ``to_json() / Step.from_json(d)`` — ``{"step": NAME, ...}`` with exact numbers.

Steps register themselves by name in :data:`STEPS` (with :func:`register_step`, when their
module is imported; importing :mod:`algebra.symmetries` imports every family);
:func:`step_from_json` and :func:`apply_path` use the registry.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

from ..exceptions import InputError, InvalidStepError
from ..network import Network

__all__ = ["Step", "STEPS", "register_step", "step_from_json", "apply_path", "path_to_json",
           "path_from_json"]

STEPS: dict[str, type["Step"]] = {}


def register_step(cls: type["Step"]) -> type["Step"]:
    """Class decorator: make a step type known to :func:`step_from_json`."""
    if cls.name in STEPS and STEPS[cls.name] is not cls:
        raise ValueError(f"step name {cls.name!r} registered twice")
    STEPS[cls.name] = cls
    return cls


class Step:
    """Base class of symmetry steps (see the module docstring for the protocol)."""

    name: ClassVar[str] = "step"
    continuous: ClassVar[bool] = False

    def check(self, net: Network) -> tuple[bool, str]:
        raise NotImplementedError

    def _apply(self, net: Network) -> Network:
        raise NotImplementedError

    def apply(self, net: Network) -> Network:
        ok, why = self.check(net)
        if not ok:
            raise InvalidStepError(self.name, why)
        return self._apply(net)

    def inverse(self, net: Network) -> "Step":
        raise NotImplementedError

    def generator(self, net: Network) -> list[tuple]:
        return []

    def to_json(self) -> dict:
        raise NotImplementedError

    @classmethod
    def from_json(cls, data: dict) -> "Step":
        raise NotImplementedError


def step_from_json(data: object) -> Step:
    """Rebuild a step from its JSON form (``{"step": NAME, …}``)."""
    if not isinstance(data, dict) or not isinstance(data.get("step"), str):
        raise InputError("a step is a JSON object with a 'step' name")
    cls = STEPS.get(data["step"])
    if cls is None:
        raise InputError(f"unknown step {data['step']!r} (known: {', '.join(sorted(STEPS))})")
    return cls.from_json(data)


def apply_path(net: Network, steps: Sequence[Step]) -> Network:
    """Apply steps in order; raises InvalidStepError naming the first invalid one."""
    for i, s in enumerate(steps):
        ok, why = s.check(net)
        if not ok:
            raise InvalidStepError(f"#{i} ({s.name})", why)
        net = s._apply(net)
    return net


def path_to_json(steps: Sequence[Step]) -> list[dict]:
    return [s.to_json() for s in steps]


def path_from_json(data: object) -> list[Step]:
    if not isinstance(data, list):
        raise InputError("a symmetry path is a JSON list of steps")
    return [step_from_json(d) for d in data]
