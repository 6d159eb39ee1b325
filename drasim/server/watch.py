"""The watch cache: recent events by resourceVersion, and the watchers they go to.

k8s: staging/src/k8s.io/apiserver/pkg/storage/cacher (watch_cache.go: a bounded window of
     events; a watch from a resourceVersion older than the window gets `too old resource
     version` 410 Expired as an ERROR event; cacher.go bookmarks).
Store notifications are synchronous and happen on the event loop's thread, so an event is
queued to every matching watcher before the write's response is sent.
"""
from __future__ import annotations

import asyncio
from collections import deque
from dataclasses import dataclass, field

from drasim.api import kinds
from drasim.store import DELETED, MemoryStore, WatchEvent

HISTORY = 100_000   # events kept (k8s sizes the window by time and count; drasim by count)


@dataclass(slots=True)
class Watcher:
    kind: str
    namespace: str | None
    accept: object            # callable(obj) -> bool (selectors)
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)


class WatchHub:
    def __init__(self, store: MemoryStore, history: int = HISTORY) -> None:
        self.store = store
        self.history: deque[tuple[int, str, str, dict]] = deque()
        self.limit = history
        self.floor = store.revision   # events at or below it are not in the window
        watched = [*kinds.ALL_KINDS, *kinds.SERVER_STORED_KINDS]   # the RBAC kinds too
        self.watchers: dict[str, list[Watcher]] = {k.kind: [] for k in watched}
        store.subscribe(self._on_event, kinds=[k.kind for k in watched])

    def preload(self, events: list[tuple[int, str, str, dict]], floor: int | None) -> None:
        """Events a journal kept from before a restart (drasim/store/sqlite.py history): watches from
        a resourceVersion inside them resume; older ones get 410 Expired."""
        if floor is None or self.history:
            return
        self.history.extend(events[-self.limit:])
        self.floor = self.history[0][0] - 1 if self.history else floor

    def _on_event(self, ev: WatchEvent) -> None:
        obj = ev.obj
        if ev.type == DELETED:   # the deletion has its own revision (etcd's delete revision)
            obj = dict(obj, metadata=dict(obj["metadata"], resourceVersion=str(self.store.revision)))
        rv = int(obj["metadata"]["resourceVersion"])
        self.history.append((rv, ev.kind, ev.type, obj))
        if len(self.history) > self.limit:
            self.floor = self.history.popleft()[0]
        for w in self.watchers.get(ev.kind, ()):
            self._offer(w, ev.type, obj)

    @staticmethod
    def _offer(w: Watcher, type_: str, obj: dict) -> None:
        md = obj["metadata"]
        if w.namespace is not None and (md.get("namespace") or "") != w.namespace:
            return
        if w.accept(obj):
            w.queue.put_nowait((type_, obj))

    def open(self, kind: str, namespace: str | None, accept, since: int | None,
             initial: list[dict] | None) -> Watcher:
        """Register a watcher; replay history after `since`, or the `initial` objects as ADDED.

        Raises ValueError(oldest) when `since` is older than the window."""
        if since is not None and since < self.floor:
            raise ValueError(self.floor + 1)
        w = Watcher(kind, namespace, accept)
        if initial is not None:
            for obj in initial:
                self._offer(w, "ADDED", obj)
        elif since is not None:
            for rv, k, type_, obj in self._after(since):
                if k == kind:
                    self._offer(w, type_, obj)
        self.watchers[kind].append(w)
        return w

    def _after(self, since: int):
        if not self.history or self.history[-1][0] <= since:
            return []
        # binary search on the (increasing) revisions
        lo, hi = 0, len(self.history)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.history[mid][0] <= since:
                lo = mid + 1
            else:
                hi = mid
        return [self.history[i] for i in range(lo, len(self.history))]

    def close(self, w: Watcher) -> None:
        try:
            self.watchers[w.kind].remove(w)
        except ValueError:
            pass
