"""The scheduling queue."""
from drasim.scheduler.queue import SchedulingQueue
from drasim.sim.clock import Clock


def pod(name, priority=0):
    return {"metadata": {"name": name, "namespace": "default", "uid": name}, "spec": {"priority": priority}}


def test_priority_then_fifo():
    """PrioritySort: higher priority first, then earlier enqueue time."""
    clock = Clock(0)
    q = SchedulingQueue(clock)
    q.add(pod("a"))
    clock.advance(1)
    q.add(pod("b", priority=10))
    clock.advance(1)
    q.add(pod("c"))
    assert [q.pop().uid for _ in range(3)] == ["b", "a", "c"]


def test_unschedulable_pod_moves_only_for_interesting_events_after_backoff():
    """A rejected pod waits for an event its plugins care about, then its backoff (1 s after one attempt)."""
    clock = Clock(0)
    q = SchedulingQueue(clock)
    q.add(pod("a"))
    info = q.pop()
    q.mark_unschedulable(info, {"DynamicResources"})
    assert q.move_for_event(lambda i: "NodeResourcesFit" in i.unschedulable_plugins) == 0
    assert q.move_for_event(lambda i: "DynamicResources" in i.unschedulable_plugins) == 1
    assert not q.has_active()
    clock.fire_next()
    assert clock.now == 1 and q.has_active()


def test_pending_counts():
    """scheduler_pending_pods buckets: active, backoff, unschedulable, gated."""
    q = SchedulingQueue(Clock(0))
    q.add(pod("a"))
    q.add(pod("b"))
    q.mark_unschedulable(q.pop(), {"X"}, gated=True)
    assert q.pending_counts() == {"active": 1, "backoff": 0, "unschedulable": 0, "gated": 1}
