"""The namespace controller: empties a namespace being deleted, then finalizes it.

k8s: pkg/controller/namespace/deletion/namespaced_resources_deleter.go (Delete, deleteAllContent,
     finalizeNamespace, the NamespaceContentRemaining / NamespaceFinalizersRemaining conditions).

Every object in the namespace is deleted (Background). While some remain (finalizers, or
dependents still going), the namespace stays Terminating with the deleter's conditions
(NamespaceContentRemaining, NamespaceFinalizersRemaining, …); once it is empty the `kubernetes`
finalizer is removed from spec.finalizers and the namespace goes.
"""
from __future__ import annotations

from collections import deque

from drasim.api.kinds import STORED_KINDS as BY_KIND   # RBAC kinds too: a namespace takes its Roles with it
from drasim.errors import InputError
from drasim.store import DELETED, MemoryStore, WatchEvent, clone

FINALIZER = "kubernetes"


def content_conditions(remaining: dict[str, list[dict]], now: str) -> list[dict]:
    """k8s: namespaced_resources_deleter.go updateNamespaceStatusFunc's five conditions, with the
    `<resource>.<group> has N resource instances` and `<finalizer> in N resource instances` texts."""
    resources = sorted(f"{BY_KIND[k].plural}.{BY_KIND[k].group} has {len(objs)} resource instances"
                       for k, objs in remaining.items())
    finalizers: dict[str, int] = {}
    for objs in remaining.values():
        for obj in objs:
            for f in obj["metadata"].get("finalizers") or ():
                finalizers[f] = finalizers.get(f, 0) + 1

    def cond(type_, status, reason, message):
        return {"type": type_, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}

    out = [cond("NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"),
           cond("NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions",
                "All legacy kube types successfully parsed"),
           cond("NamespaceDeletionContentFailure", "False", "ContentDeleted",
                "All content successfully deleted, may be waiting on finalization")]
    out.append(cond("NamespaceContentRemaining", "True", "SomeResourcesRemain",
                    "Some resources are remaining: " + ", ".join(resources)) if resources else
               cond("NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"))
    out.append(cond("NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
                    "Some content in the namespace has finalizers remaining: "
                    + ", ".join(f"{f} in {n} resource instances" for f, n in sorted(finalizers.items())))
               if finalizers else
               cond("NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers",
                    "All content-preserving finalizers finished"))
    return out


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
        for kind in self._namespaced:
            for obj in self.store.list(kind.kind, name):
                if not obj["metadata"].get("deletionTimestamp"):
                    try:
                        self._delete(kind.kind, name, obj["metadata"]["name"])
                    except InputError:
                        pass
        remaining = {k.kind: self.store.list(k.kind, name) for k in self._namespaced if self.store.list(k.kind, name)}
        if remaining:   # k8s: content remains; the namespace is tried again when some of it goes
            self._set_conditions(self.store.get("Namespace", None, name), remaining)
            return
        self._set_conditions(self.store.get("Namespace", None, name), {})
        namespace = self.store.get("Namespace", None, name)
        finalized = clone(namespace)
        finalizers = [f for f in (finalized.get("spec") or {}).get("finalizers") or () if f != FINALIZER]
        finalized.setdefault("spec", {})["finalizers"] = finalizers
        if not finalizers:
            del finalized["spec"]["finalizers"]
        self.store.replace(finalized)

    def _set_conditions(self, namespace: dict, remaining: dict[str, list[dict]]) -> None:
        old = (namespace.get("status") or {}).get("conditions") or []
        new = content_conditions(remaining, self.store.clock.timestamp())
        by_type = {c.get("type"): c for c in old}
        for c in new:   # the transition time moves only when the status does
            prev = by_type.get(c["type"])
            if prev is not None and prev.get("status") == c["status"]:
                c["lastTransitionTime"] = prev.get("lastTransitionTime")
        if new != old:
            self.store.update_status(dict(namespace, status=dict(namespace.get("status") or {}, conditions=new)),
                                     copy=False)
