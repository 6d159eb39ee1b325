"""SchedulingThroughput, sampled as scheduler_perf's throughputCollector does (README §5).

k8s: test/integration/scheduler_perf/util.go (throughputCollector run/collect).
Timestamps are passed in, so the algorithm runs on wall time in the runner and on
synthetic time in tests.
"""
from __future__ import annotations

import math

SAMPLE_INTERVAL = 1.0   # the ticker period, seconds
# drasim often finishes a scheduler_perf phase in a second or two, too short for two 1 s
# ticks; a second collector ticks this often so that every phase yields samples.
FINE_INTERVAL = 0.1
PERCENTILES = (50, 90, 95, 99)


class ThroughputCollector:
    """Counts pods that become bound and turns 1 s ticks into pods/s samples."""

    __slots__ = ("scheduled", "samples", "_started", "_last_count", "_last_time", "_skipped",
                 "start", "next_tick", "interval")

    def __init__(self, start: float, interval: float = SAMPLE_INTERVAL) -> None:
        self.start = start
        self.interval = interval
        self.next_tick = start + interval
        self.scheduled = 0          # pods seen going from no nodeName to nodeName (never decremented)
        self.samples: list[float] = []
        self._started = False
        self._last_count = 0
        self._last_time = start
        self._skipped = 0

    def tick(self, now: float) -> None:
        """One ticker firing at time *now*."""
        count = self.scheduled
        if not self._started:
            if count == 0:
                return
            self._started = True          # the first partial interval is only a baseline
            self._last_count, self._last_time = count, now
            return
        new = count - self._last_count
        if new == 0:
            self._skipped += 1
            return
        rate = new / (now - self._last_time)
        self.samples.extend([rate] * (self._skipped + 1))
        self._last_count, self._last_time, self._skipped = count, now, 0

    def poll(self, now: float) -> None:
        """Fire the ticks due by *now*; like time.Ticker, ticks missed while busy are dropped."""
        if now >= self.next_tick:
            self.tick(now)
            missed = int((now - self.next_tick) // self.interval)
            self.next_tick += (missed + 1) * self.interval

    def summary(self) -> dict[str, float] | None:
        """Average and PercNN (sorted[ceil(n*NN/100)-1]) in pods/s, or None without samples."""
        return summarize(self.samples)


def summarize(samples: list[float]) -> dict[str, float] | None:
    if not samples:
        return None
    ordered = sorted(samples)
    n = len(ordered)
    out = {"Average": sum(ordered) / n}
    for p in PERCENTILES:
        out[f"Perc{p}"] = ordered[math.ceil(n * p / 100) - 1]
    return out
