"""Run to quiescence: components take turns until none has work and no timer is due.

Components are informer-style: they subscribe to store events (which only
enqueue keys) and do their work in run_once(). The order of the component
list is the tie-break when several have work, so a run is deterministic.
"""
from __future__ import annotations

from typing import Protocol, Sequence

from drasim.errors import InternalError
from drasim.sim.clock import Clock


class Component(Protocol):
    name: str

    def has_work(self) -> bool: ...

    def run_once(self) -> None: ...


def run_until_quiet(clock: Clock, components: Sequence[Component], *, max_steps: int = 10_000_000,
                    until: float | None = None) -> int:
    """Run components and timers until nothing more happens (or virtual time `until`).

    Returns the number of steps taken. A runaway loop is a bug, reported as such.
    """
    steps = 0
    while True:
        for component in components:
            if component.has_work():
                component.run_once()
                break
        else:
            nxt = clock.next_timer()
            if nxt is None or (until is not None and nxt > until):
                return steps
            clock.fire_next()
        steps += 1
        if steps > max_steps:
            busy = [c.name for c in components if c.has_work()]
            raise InternalError(f"simulation did not settle after {max_steps} steps (busy: {busy})")
