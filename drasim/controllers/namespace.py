"""The namespace controller: empties a namespace being deleted, then finalizes it.

k8s: pkg/controller/namespace/deletion/namespaced_resources_deleter.go (Delete, deleteAllContent,
     finalizeNamespace, the NamespaceContentRemaining / NamespaceFinalizersRemaining conditions).

Every object in the namespace is deleted (Background). While some remain (finalizers, or
dependents still going), the namespace stays Terminating; once it is empty the `kubernetes`
finalizer is removed from spec.finalizers and the namespace goes.
"""
from __future__ import annotations

from collections import deque

from drasim.api.kinds import BY_KIND
from drasim.errors import InputError
from drasim.store import DELETED, MemoryStore, WatchEvent, clone

FINALIZER = "kubernetes"


class NamespaceController:
    name = "namespace-controller"

    def __init__(self, store: MemoryStore, delete) -> None:
        self.store = store
        self._delete = delete
        self._queue: deque[str] = deque()
        self._queued: set[str] = set()
        self._namespaced = [k for k in BY_KIND.values() if k.namespaced]
        store.subscribe(self._on_event)
        store.subscribe(self._on_event, kinds=("Event",))

    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind == "Namespace":
            if ev.type != DELETED and ev.obj["metadata"].get("deletionTimestamp"):
                self._enqueue(ev.obj["metadata"]["name"])
        elif ev.type == DELETED:
            ns = ev.obj["metadata"].get("namespace") or ""
            namespace = self.store.get("Namespace", None, ns) if ns else None
            if namespace is not None and namespace["metadata"].get("deletionTimestamp"):
                self._enqueue(ns)

    def _enqueue(self, name: str) -> None:
        if name not in self._queued:
            self._queued.add(name)
            self._queue.append(name)

    def has_work(self) -> bool:
        return bool(self._queue)

    def run_once(self) -> None:
        name = self._queue.popleft()
        self._queued.discard(name)
        namespace = self.store.get("Namespace", None, name)
        if namespace is None or not namespace["metadata"].get("deletionTimestamp"):
            return
        remaining = 0
        for kind in self._namespaced:
            for obj in self.store.list(kind.kind, name):
                remaining += 1
                if not obj["metadata"].get("deletionTimestamp"):
                    try:
                        self._delete(kind.kind, name, obj["metadata"]["name"])
                    except InputError:
                        pass
        if any(self.store.list(kind.kind, name) for kind in self._namespaced):
            return   # k8s: content remains; the namespace is tried again when it goes
        finalized = clone(namespace)
        finalizers = [f for f in (finalized.get("spec") or {}).get("finalizers") or () if f != FINALIZER]
        finalized.setdefault("spec", {})["finalizers"] = finalizers
        if not finalizers:
            del finalized["spec"]["finalizers"]
        self.store.replace(finalized)
