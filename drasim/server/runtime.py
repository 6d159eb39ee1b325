"""The control plane running live: virtual time follows the wall clock (× speed).

drasim's components are informer-style (has_work / run_once) and its clock is virtual.
Here a background task maps wall time onto the virtual clock, runs components while they
have work in short slices (so requests are never held up for long), fires timers as they
fall due, and sleeps until the next timer or the next write, whichever comes first.
"""
from __future__ import annotations

import asyncio
import sys
import time

from drasim.controlplane import ControlPlane
from drasim.store.sqlite import StorageError

SLICE = 0.02       # seconds of component work before yielding to requests
MAX_SLEEP = 0.5    # wake up at least this often (the clock keeps moving)
RETRY_AFTER = 1.0  # seconds before components run again after a failed durable write


class LiveControlPlane:
    def __init__(self, cp: ControlPlane, speed: float = 1.0, wall=time.monotonic) -> None:
        self.cp = cp
        self.speed = speed
        self._wall = wall
        self._wall0 = wall()
        self._virtual0 = cp.clock.now
        self._wake = asyncio.Event()
        self.steps = 0

    def virtual_now(self) -> float:
        return self._virtual0 + (self._wall() - self._wall0) * self.speed

    def sync_clock(self) -> None:
        """Bring the virtual clock up to wall time (it never goes back)."""
        now = self.virtual_now()
        if now > self.cp.clock.now:
            self.cp.clock.now = now

    def poke(self) -> None:
        """A write happened: run the components soon."""
        self._wake.set()

    def run_slice(self, budget: float = SLICE) -> bool:
        """Run work and due timers for up to `budget` seconds; True when more work remains."""
        self.sync_clock()
        clock, components = self.cp.clock, self.cp.components
        deadline = time.monotonic() + budget
        while True:
            for component in components:
                if component.has_work():
                    component.run_once()
                    break
            else:
                nxt = clock.next_timer()
                if nxt is None or nxt > clock.now:
                    return False
                clock.fire_next()
            self.steps += 1
            if time.monotonic() > deadline:
                return True

    def idle(self) -> bool:
        return not any(c.has_work() for c in self.cp.components)

    async def run(self) -> None:
        while True:
            try:
                more = self.run_slice()
            except StorageError as e:
                # A component's write could not be made durable (full disk, etcd down): the store
                # is unchanged; say so once per failure and try again a little later.
                print(f"drasim serve: {e}", file=sys.stderr, flush=True)
                await asyncio.sleep(RETRY_AFTER)
                continue
            if more:
                await asyncio.sleep(0)
                continue
            nxt = self.cp.clock.next_timer()
            timeout = MAX_SLEEP if nxt is None else min(MAX_SLEEP, max(0.0, (nxt - self.virtual_now()) / self.speed))
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except asyncio.TimeoutError:
                pass
            self._wake.clear()
