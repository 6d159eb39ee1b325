"""The scheduling queue: activeQ, backoffQ and the unschedulable pool.

k8s: pkg/scheduler/backend/queue/scheduling_queue.go (PriorityQueue).

- activeQ is ordered by the default QueueSort plugin, PrioritySort: higher
  `spec.priority` first, then the earlier enqueue time.
- A pod that failed goes to the unschedulable pool, remembering which plugins
  rejected it. A cluster event moves it back only if one of those plugins
  registered for that event (the QueueingHint idea); it then waits out its
  backoff (1 s doubling to 10 s per attempt) in backoffQ on the virtual clock.
- kube-scheduler also flushes the unschedulable pool every 5 minutes. Retrying
  a pod in an unchanged cluster gives the same answer, so the simulator leaves
  that flush out: a pod that can never fit stays Pending and nothing loops.
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Callable, Iterable

from drasim.sim.clock import Clock

INITIAL_BACKOFF = 1.0   # k8s: podInitialBackoffSeconds
MAX_BACKOFF = 10.0      # k8s: podMaxBackoffSeconds


@dataclass(slots=True, eq=False)
class QueuedPod:
    uid: str
    key: str                       # namespace/name
    pod: dict
    timestamp: float               # first enqueue (PrioritySort tie-break)
    attempts: int = 0
    last_attempt: float = 0.0
    unschedulable_plugins: set[str] = field(default_factory=set)
    gated: bool = False            # rejected at PreEnqueue

    @property
    def priority(self) -> int:
        return int((self.pod.get("spec") or {}).get("priority") or 0)

    def backoff_expiry(self) -> float:
        if self.attempts == 0:
            return self.last_attempt
        duration = min(INITIAL_BACKOFF * (2 ** (self.attempts - 1)), MAX_BACKOFF)
        return self.last_attempt + duration


class SchedulingQueue:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._active: list[tuple[int, float, int, str]] = []
        self._in_active: set[str] = set()
        self._backoff: set[str] = set()
        self._unschedulable: dict[str, QueuedPod] = {}
        self._pods: dict[str, QueuedPod] = {}
        self._seq = itertools.count()

    # -- membership -----------------------------------------------------------
    def __contains__(self, uid: str) -> bool:
        return uid in self._pods

    def __len__(self) -> int:
        return len(self._pods)

    def get(self, uid: str) -> QueuedPod | None:
        return self._pods.get(uid)

    def pending_counts(self) -> dict[str, int]:
        """scheduler_pending_pods{queue}: active, backoff, unschedulable, gated."""
        gated = sum(1 for q in self._unschedulable.values() if q.gated)
        return {"active": len(self._in_active), "backoff": len(self._backoff),
                "unschedulable": len(self._unschedulable) - gated, "gated": gated}

    def has_active(self) -> bool:
        return bool(self._in_active)

    # -- transitions ----------------------------------------------------------
    def add(self, pod: dict) -> QueuedPod:
        md = pod["metadata"]
        uid = md["uid"]
        info = self._pods.get(uid)
        if info is None:
            info = QueuedPod(uid, f"{md.get('namespace')}/{md['name']}", pod, self.clock.now)
            self._pods[uid] = info
        else:
            info.pod = pod
        self._push_active(info)
        return info

    def update(self, pod: dict) -> None:
        info = self._pods.get(pod["metadata"]["uid"])
        if info is not None:
            info.pod = pod

    def remove(self, uid: str) -> None:
        self._pods.pop(uid, None)
        self._in_active.discard(uid)
        self._backoff.discard(uid)
        self._unschedulable.pop(uid, None)

    def _push_active(self, info: QueuedPod) -> None:
        self._unschedulable.pop(info.uid, None)
        self._backoff.discard(info.uid)
        if info.uid in self._in_active:
            return
        self._in_active.add(info.uid)
        heapq.heappush(self._active, (-info.priority, info.timestamp, next(self._seq), info.uid))

    def pop(self) -> QueuedPod | None:
        while self._active:
            _, _, _, uid = heapq.heappop(self._active)
            if uid in self._in_active:
                self._in_active.discard(uid)
                info = self._pods[uid]
                info.attempts += 1
                info.last_attempt = self.clock.now
                return info
        return None

    def mark_unschedulable(self, info: QueuedPod, plugins: Iterable[str], gated: bool = False) -> None:
        if info.uid not in self._pods:
            return
        info.unschedulable_plugins = set(plugins)
        info.gated = gated
        self._unschedulable[info.uid] = info

    def done(self, uid: str) -> None:
        """The pod was bound: it leaves the queue."""
        self.remove(uid)

    def move_for_event(self, interested: Callable[[QueuedPod], bool]) -> int:
        """Move unschedulable pods that the event may help to backoffQ or activeQ."""
        moved = 0
        for info in [q for q in self._unschedulable.values() if interested(q)]:
            self._unschedulable.pop(info.uid, None)
            moved += 1
            expiry = info.backoff_expiry() if not info.gated else self.clock.now
            if expiry <= self.clock.now:
                self._push_active(info)
            else:
                self._backoff.add(info.uid)
                self.clock.call_at(expiry, lambda uid=info.uid: self._backoff_done(uid))
        return moved

    def _backoff_done(self, uid: str) -> None:
        if uid in self._backoff:
            self._push_active(self._pods[uid])

    def unschedulable_pods(self) -> list[QueuedPod]:
        return list(self._unschedulable.values())
