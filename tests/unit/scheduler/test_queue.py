"""The scheduling queue."""
from drasim.scheduler.queue import Hint, SchedulingQueue
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
    assert q.move(Hint(plugins=frozenset({"NodeResourcesFit"}))) == 0
    assert q.move(Hint(plugins=frozenset({"DynamicResources"}))) == 1
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


def claim_pod(name, claim=None, status_claim=None):
    p = pod(name)
    p["spec"]["resourceClaims"] = [{"name": "c", "resourceClaimName": claim}] if claim else []
    if status_claim:
        p["status"] = {"resourceClaimStatuses": [{"name": "t", "resourceClaimName": status_claim}]}
    return p


def test_claim_index_moves_only_the_pods_naming_the_claim():
    """A claim event reaches the pods naming it, directly or through resourceClaimStatuses."""
    q = SchedulingQueue(Clock(0))
    q.add(claim_pod("a", claim="shared"))
    q.add(claim_pod("b", status_claim="b-t-xyz"))
    q.add(claim_pod("c", claim="other"))
    for _ in range(3):
        q.mark_unschedulable(q.pop(), {"DynamicResources"})
    assert q.pods_naming_claim("default", "shared") == {"a"}
    assert q.pods_naming_claim("default", "b-t-xyz") == {"b"}
    assert q.move(Hint(pods=q.pods_naming_claim("default", "shared"))) == 1
    q.remove("b")
    assert q.pods_naming_claim("default", "b-t-xyz") == frozenset()
