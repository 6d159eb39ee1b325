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
from typing import Iterable

from drasim.sim.clock import Clock
from drasim.scheduler.plugins.names import SCHEDULING_GATES

_HELD_BY_GATES = {SCHEDULING_GATES}

INITIAL_BACKOFF = 1.0   # k8s: podInitialBackoffSeconds
MAX_BACKOFF = 10.0      # k8s: podMaxBackoffSeconds


@dataclass(frozen=True, slots=True)
class Hint:
    """Which unschedulable pods a cluster event may help (the QueueingHint idea).

    Indexed, so the work per event grows with the pods it moves, not with all pending pods:
    `pods` by uid (a claim event: the pods referencing that claim), `plugins` by the plugins
    that rejected them, `gated` for pods held at PreEnqueue, `everything` for node events.
    """

    pods: frozenset[str] = frozenset()
    plugins: frozenset[str] = frozenset()
    gated: bool = False
    everything: bool = False


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
    gated_by: tuple[str, str] | None = None   # (plugin, status message) of that rejection

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
        # Indexes of the unschedulable pool, and of pending pods by the claims they name.
        self._by_plugin: dict[str, set[str]] = {}
        self._gated: set[str] = set()
        self._by_claim: dict[tuple[str, str], set[str]] = {}
        self._claims_of: dict[str, tuple[tuple[str, str], ...]] = {}

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
        self._index_claims(info)
        self._push_active(info)
        return info

    def update(self, pod: dict) -> None:
        info = self._pods.get(pod["metadata"]["uid"])
        if info is not None:
            old, info.pod = info.pod, pod
            if (old.get("spec") or {}).get("resourceClaims") is not (pod.get("spec") or {}).get("resourceClaims") \
                    or (old.get("status") or {}).get("resourceClaimStatuses") is not \
                    (pod.get("status") or {}).get("resourceClaimStatuses"):
                self._index_claims(info)   # the same lists name the same claims: nothing to re-index

    def remove(self, uid: str) -> None:
        if self._pods.pop(uid, None) is None:
            # Every index holds queued pods only (add, update and mark_unschedulable check
            # membership first), so a pod not queued — one bound on arrival — has nothing to drop.
            return
        self._unindex(uid)

    def _unindex(self, uid: str) -> None:
        """Drop uid from every index but _pods."""
        self._in_active.discard(uid)
        self._backoff.discard(uid)
        self._leave_unschedulable(uid)
        for key in self._claims_of.pop(uid, ()):
            uids = self._by_claim.get(key)
            if uids is not None:
                uids.discard(uid)
                if not uids:
                    del self._by_claim[key]

    @staticmethod
    def _claim_keys(pod: dict) -> tuple[tuple[str, str], ...]:
        """Claims the pod names, directly or through status.resourceClaimStatuses."""
        ns = pod["metadata"].get("namespace") or ""
        names = {e.get("resourceClaimName") for e in (pod.get("spec") or {}).get("resourceClaims") or ()}
        names.update(s.get("resourceClaimName")
                     for s in (pod.get("status") or {}).get("resourceClaimStatuses") or ())
        names.discard(None)
        return tuple(sorted((ns, n) for n in names))

    def _index_claims(self, info: QueuedPod) -> None:
        keys = self._claim_keys(info.pod)
        old = self._claims_of.get(info.uid, ())
        if keys == old:
            return
        for key in old:
            self._by_claim.get(key, set()).discard(info.uid)
        for key in keys:
            self._by_claim.setdefault(key, set()).add(info.uid)
        self._claims_of[info.uid] = keys

    def pods_naming_claim(self, namespace: str, name: str) -> frozenset[str]:
        return frozenset(self._by_claim.get((namespace, name), ()))

    def pods_naming_claim_unindexed(self, namespace: str, name: str) -> frozenset[str]:
        """The same set found as v1.37 without SchedulerPreQueueingHints finds it: the claim event's
        QueueingHint asked about every queued pod in turn (kept to prove the index equal)."""
        key = (namespace, name)
        return frozenset(uid for uid, info in self._pods.items() if key in self._claim_keys(info.pod))

    def _leave_unschedulable(self, uid: str) -> QueuedPod | None:
        info = self._unschedulable.pop(uid, None)
        if info is not None:
            for plugin in info.unschedulable_plugins:
                uids = self._by_plugin.get(plugin)
                if uids is not None:
                    uids.discard(uid)
            self._gated.discard(uid)
        return info

    def _push_active(self, info: QueuedPod) -> None:
        self._leave_unschedulable(info.uid)
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

    def pop_specific(self, uid: str) -> QueuedPod | None:
        """k8s: PopSpecificPod — take a pod waiting in activeQ, backoffQ or the unschedulable pool (not
        one held at PreEnqueue) for the pod group cycle that schedules its group."""
        info = self._pods.get(uid)
        if info is None or info.gated:
            return None
        self._in_active.discard(uid)   # its heap entry is skipped by pop()
        self._backoff.discard(uid)
        self._leave_unschedulable(uid)
        info.attempts += 1
        info.last_attempt = self.clock.now
        return info

    def mark_unschedulable(self, info: QueuedPod, plugins: Iterable[str], gated: bool = False,
                           gated_by: tuple[str, str] | None = None) -> None:
        if info.uid not in self._pods:
            return
        self._leave_unschedulable(info.uid)
        info.unschedulable_plugins = set(plugins)
        info.gated = gated
        info.gated_by = gated_by if gated else None
        self._unschedulable[info.uid] = info
        for plugin in info.unschedulable_plugins:
            self._by_plugin.setdefault(plugin, set()).add(info.uid)
        if gated and info.unschedulable_plugins != _HELD_BY_GATES:
            # A pod held by its own schedulingGates comes back only when they are removed
            # (SchedulingGates registers for that pod update alone); a cluster event for the
            # other PreEnqueue plugins (Hint.gated) would only re-run it.
            self._gated.add(info.uid)

    def done(self, uid: str) -> None:
        """The pod was bound: it leaves the queue."""
        self.remove(uid)

    def hint_matches(self, hint: Hint, uid: str) -> bool:
        """Whether the hint would move this unschedulable pod."""
        info = self._unschedulable.get(uid)
        if info is None:
            return False
        return (hint.everything or uid in hint.pods or bool(hint.plugins & info.unschedulable_plugins)
                or (hint.gated and info.gated))

    def has_unschedulable(self) -> bool:
        """Pods in the unschedulable pool (gated ones included): the only pods a hint can move."""
        return bool(self._unschedulable)

    def move(self, hint: Hint) -> int:
        """Move the unschedulable pods the hint names to backoffQ or activeQ."""
        if hint.everything:
            uids = list(self._unschedulable)
        else:
            found: set[str] = set()
            for uid in hint.pods:
                if uid in self._unschedulable:
                    found.add(uid)
            for plugin in hint.plugins:
                found.update(self._by_plugin.get(plugin, ()))
            if hint.gated:
                found.update(self._gated)
            # by queue time, then name: never by set order, which follows Python's per-process hash seed
            uids = sorted(found, key=lambda u: (self._unschedulable[u].timestamp, self._unschedulable[u].key)) \
                if len(found) > 1 else list(found)
        for uid in uids:
            info = self._leave_unschedulable(uid)
            expiry = info.backoff_expiry() if not info.gated else self.clock.now
            if expiry <= self.clock.now:
                self._push_active(info)
            else:
                self._backoff.add(info.uid)
                self.clock.call_at(expiry, lambda uid=info.uid: self._backoff_done(uid))
        return len(uids)

    def _backoff_done(self, uid: str) -> None:
        if uid in self._backoff:
            self._push_active(self._pods[uid])
