"""SchedulingQueue.remove returns at once for a pod that is not queued (a pod bound on arrival, as
every pod of a loaded snapshot is). That is right only while every index of the queue holds
queued pods alone: random sequences of every queue operation — pods popped, removed while in
flight and then marked unschedulable, moved, backed off, gated — must leave each index a subset
of the queued pods, and a twin queue whose remove always clears every index must agree in
every index after every step.
"""
from __future__ import annotations

from hypothesis import given, settings, strategies as st

from drasim.scheduler.queue import Hint, SchedulingQueue
from drasim.sim.clock import Clock


class _FullRemove(SchedulingQueue):
    """remove() as it was: every index cleared whether or not the pod is queued."""

    def remove(self, uid: str) -> None:
        self._pods.pop(uid, None)
        self._unindex(uid)


def _pod(i: int, version: int) -> dict:
    claims = [{"name": "c", "resourceClaimName": f"claim-{(i + version) % 3}"}] if i % 2 else []
    return {"metadata": {"name": f"p{i}", "namespace": "default", "uid": f"u{i}"},
            "spec": {"priority": i % 3, "resourceClaims": claims}}


def _state(q: SchedulingQueue) -> tuple:
    return (set(q._pods), set(q._in_active), set(q._backoff), set(q._unschedulable),
            {k: set(v) for k, v in q._by_plugin.items() if v}, set(q._gated),
            {k: set(v) for k, v in q._by_claim.items()}, dict(q._claims_of))


def _invariant(q: SchedulingQueue) -> None:
    queued = set(q._pods)
    assert set(q._in_active) <= queued and q._backoff <= queued and set(q._unschedulable) <= queued
    assert q._gated <= queued and set(q._claims_of) <= queued
    for uids in list(q._by_plugin.values()) + list(q._by_claim.values()):
        assert uids <= queued


OPS = ("add", "add", "update", "pop", "pop_specific", "unschedulable", "gated", "move", "move_all",
       "remove", "done", "tick")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 5), st.integers(0, 3)), min_size=1, max_size=60))
def test_remove_of_a_pod_not_queued_changes_nothing(operations):
    clocks = (Clock(0), Clock(0))
    queues = (SchedulingQueue(clocks[0]), _FullRemove(clocks[1]))
    popped: list[list] = [[], []]   # infos in flight, per queue
    for op, i, k in operations:
        for q, clock, flight in zip(queues, clocks, popped):
            uid = f"u{i}"
            if op == "add":
                q.add(_pod(i, k))
            elif op == "update":
                q.update(_pod(i, k))
            elif op == "pop":
                info = q.pop()
                if info is not None:
                    flight.append(info)
            elif op == "pop_specific":
                info = q.pop_specific(uid)
                if info is not None:
                    flight.append(info)
            elif op in ("unschedulable", "gated") and flight:
                # also for an info whose pod was removed meanwhile (bound, deleted): must be ignored
                info = flight.pop(i % len(flight))
                q.mark_unschedulable(info, {("A", "B", "C")[k % 3]}, gated=op == "gated",
                                     gated_by=("A", "waiting") if op == "gated" else None)
            elif op == "move":
                q.move(Hint(pods=frozenset({uid}), plugins=frozenset({("A", "B", "C")[k % 3]}), gated=k == 0))
            elif op == "move_all":
                q.move(Hint(everything=True))
            elif op == "remove":
                q.remove(uid)
            elif op == "done":
                q.done(uid)
            elif op == "tick" and clock._queue:
                clock.fire_next()
            _invariant(q)
        assert _state(queues[0]) == _state(queues[1]), op
