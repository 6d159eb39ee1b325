"""The virtual clock."""
from drasim.sim.clock import Clock, format_time, parse_time
from drasim.sim.loop import run_until_quiet


def test_timers_run_in_time_then_fifo_order():
    """Equal-time callbacks run in the order they were scheduled; time jumps to each timer."""
    clock = Clock(100)
    seen = []
    clock.call_at(105, lambda: seen.append(("b", clock.now)))
    clock.call_at(103, lambda: seen.append(("a", clock.now)))
    clock.call_at(105, lambda: seen.append(("c", clock.now)))
    while clock.fire_next():
        pass
    assert seen == [("a", 103), ("b", 105), ("c", 105)]


def test_past_timer_runs_now():
    """A timer scheduled in the past fires at the current time, not before it."""
    clock = Clock(100)
    clock.call_at(50, lambda: None)
    assert clock.next_timer() == 100


def test_rfc3339_round_trip():
    """Timestamps are RFC 3339 in whole seconds."""
    assert format_time(parse_time("2026-03-01T00:00:00Z")) == "2026-03-01T00:00:00Z"
    assert format_time(parse_time("2026-03-01T00:00:00.9Z")) == "2026-03-01T00:00:00Z"


class Counter:
    name = "counter"

    def __init__(self, n):
        self.n = n

    def has_work(self):
        return self.n > 0

    def run_once(self):
        self.n -= 1


def test_run_until_quiet_drains_components_and_timers():
    """The loop runs components until idle, then fast-forwards to the next timer."""
    clock = Clock(0)
    c = Counter(3)
    clock.call_at(60, lambda: setattr(c, "n", 2))
    run_until_quiet(clock, [c])
    assert c.n == 0 and clock.now == 60
