"""The throughput collector: scheduler_perf's 1 s sampling algorithm on synthetic timestamps."""
import pytest

from drasim.bench.collector import ThroughputCollector, summarize


def run_ticks(counts_at: list[tuple[float, int]], start: float = 0.0) -> ThroughputCollector:
    """Tick at each (time, cumulative scheduled count)."""
    c = ThroughputCollector(start)
    for now, count in counts_at:
        c.scheduled = count
        c.tick(now)
    return c


def test_first_tick_with_pods_is_only_a_baseline():
    """Ticks before any pod is scheduled do nothing; the first tick with pods records no sample."""
    c = run_ticks([(1.0, 0), (2.0, 50)])
    assert c.samples == []
    c.scheduled = 150
    c.tick(3.0)
    assert c.samples == [100.0]


def test_rate_uses_real_timestamps():
    """The rate divides by the real time since the last sample, not an assumed 1 s."""
    c = run_ticks([(1.0, 10), (2.5, 40)])
    assert c.samples == [20.0]


def test_skipped_ticks_repeat_the_next_rate():
    """A tick with no new pods is skipped; the next rate is appended skipped+1 times."""
    c = run_ticks([(1.0, 10), (2.0, 10), (3.0, 10), (4.0, 40)])
    assert c.samples == [10.0, 10.0, 10.0]


def test_pods_after_last_tick_are_not_counted():
    """Only ticks produce samples: pods scheduled after the last tick are lost."""
    c = run_ticks([(1.0, 10), (2.0, 20)])
    c.scheduled = 1000
    assert c.samples == [10.0]


def test_poll_drops_missed_ticks_like_a_go_ticker():
    """poll fires at most one tick per call and realigns to the 1 s grid."""
    c = ThroughputCollector(0.0)
    c.scheduled = 5
    c.poll(0.5)
    assert not c._started
    c.poll(3.7)              # ticks at 1, 2, 3 were due: one fires, the rest are dropped
    assert c._started and c.next_tick == 4.0


@pytest.mark.parametrize(("samples", "want"), [
    pytest.param([], None, id="no-samples-no-value"),
    pytest.param([5.0], {"Average": 5.0, "Perc50": 5.0, "Perc90": 5.0, "Perc95": 5.0, "Perc99": 5.0}, id="one"),
    pytest.param([float(x) for x in range(10, 0, -1)],
                 {"Average": 5.5, "Perc50": 5.0, "Perc90": 9.0, "Perc95": 10.0, "Perc99": 10.0}, id="ten"),
    pytest.param([1.0, 3.0, 2.0], {"Average": 2.0, "Perc50": 2.0, "Perc90": 3.0, "Perc95": 3.0, "Perc99": 3.0},
                 id="three"),
])
def test_summary(samples, want):
    """Average is the mean of the samples; PercNN is sorted[ceil(n*NN/100)-1]."""
    assert summarize(samples) == want
