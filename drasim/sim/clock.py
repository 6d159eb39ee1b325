"""The virtual clock: the only notion of time in drasim.

Shaped like SimPy's Environment: only run() moves `now`; a sequence counter
makes callbacks scheduled for the same instant run first-in, first-out, so
every run is deterministic. Nothing outside drasim/sim reads the wall clock.
Time is seconds since the Unix epoch (float), rendered as RFC 3339.
"""
from __future__ import annotations

import heapq
import itertools
from datetime import datetime, timezone
from typing import Callable

DEFAULT_START = "2026-01-01T00:00:00Z"
# The end of time for the simulation: RFC 3339 cannot write later instants, and a timer set
# beyond them (tolerationSeconds near int64 max) never fires, as it would not in a cluster's life.
END_OF_TIME = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc).timestamp()


def parse_time(text: str) -> float:
    """RFC 3339 ("2026-03-01T00:00:00Z", fractional seconds allowed) → epoch seconds."""
    value = text.strip()
    if value.endswith("Z") or value.endswith("z"):
        value = value[:-1] + "+00:00"
    dt = datetime.fromisoformat(value)
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.timestamp()


def format_time(seconds: float) -> str:
    """Epoch seconds → RFC 3339 in whole seconds, as metav1.Time serialises."""
    return datetime.fromtimestamp(int(seconds), tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Clock:
    """A virtual clock with a timer queue."""

    def __init__(self, start: float | str = DEFAULT_START) -> None:
        self.now = parse_time(start) if isinstance(start, str) else float(start)
        self._queue: list[tuple[float, int, Callable[[], None]]] = []
        self._seq = itertools.count()
        self._cancelled: set[int] = set()
        self._stamp_second: int | None = None
        self._stamp = ""

    def call_at(self, when: float, fn: Callable[[], None]) -> int | None:
        """Run fn at virtual time `when` (now if it is already past; never after END_OF_TIME).

        Returns a handle for cancel()."""
        if when > END_OF_TIME:
            return None
        seq = next(self._seq)
        heapq.heappush(self._queue, (max(when, self.now), seq, fn))
        return seq

    def cancel(self, handle: int | None) -> None:
        """Forget a timer: it neither runs nor moves the clock (a requeue that is no longer needed)."""
        if handle is not None:
            self._cancelled.add(handle)

    def _drop_cancelled(self) -> None:
        while self._queue and self._queue[0][1] in self._cancelled:
            self._cancelled.discard(heapq.heappop(self._queue)[1])

    def call_later(self, delay: float, fn: Callable[[], None]) -> int | None:
        return self.call_at(self.now + delay, fn)

    def advance(self, seconds: float) -> None:
        """Move time forward without running timers (used while applying a phase)."""
        self.now += seconds

    def next_timer(self) -> float | None:
        self._drop_cancelled()
        return self._queue[0][0] if self._queue else None

    def fire_next(self) -> bool:
        """Advance to the earliest timer and run every callback due at that instant."""
        self._drop_cancelled()
        if not self._queue:
            return False
        when = self._queue[0][0]
        self.now = max(self.now, when)
        while self._queue and self._queue[0][0] <= when:
            _, seq, fn = heapq.heappop(self._queue)
            if seq in self._cancelled:
                self._cancelled.discard(seq)
                continue
            fn()
        return True

    def timestamp(self) -> str:
        second = int(self.now)
        if second != self._stamp_second:
            self._stamp_second, self._stamp = second, format_time(second)
        return self._stamp
