"""The API server's delete path: propagation policy, finalizers, namespaces.

k8s: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Delete,
     updateForGracefulDeletionAndFinalizers, deletionFinalizersForGarbageCollection),
     pkg/registry/core/namespace/storage/storage.go (Delete: phase Terminating while
     spec.finalizers remain), staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle
     (immortal namespaces).

- Background (the default, `kubectl delete`): the object goes now (unless it has finalizers);
  the garbage collector then deletes its dependents.
- Foreground: the object gets the `foregroundDeletion` finalizer and a deletionTimestamp; the
  garbage collector deletes its dependents first, then removes the finalizer.
- Orphan: the `orphan` finalizer; the garbage collector removes the owner references to it from
  its dependents, then the finalizer.
Graceful termination is not modelled: a pod is gone at once.
"""
from __future__ import annotations

from drasim.api import kinds
from drasim.errors import InputError
from drasim.store import MemoryStore, clone

BACKGROUND, FOREGROUND, ORPHAN = "Background", "Foreground", "Orphan"
PROPAGATION_POLICIES = (ORPHAN, BACKGROUND, FOREGROUND)
FOREGROUND_FINALIZER = "foregroundDeletion"
ORPHAN_FINALIZER = "orphan"
# k8s: options.go of kube-apiserver's admission: NamespaceLifecycle's immortal namespaces.
IMMORTAL_NAMESPACES = ("default", "kube-system", "kube-public")


def delete(store: MemoryStore, kind_name: str, namespace: str | None, name: str,
           propagation: str | None = None) -> dict | None:
    """Delete as a client would; raises StoreError (NotFound) or InputError (Forbidden)."""
    kind = kinds.BY_KIND[kind_name]
    if kind_name == "Namespace" and name in IMMORTAL_NAMESPACES:
        raise InputError(f'namespaces "{name}" is forbidden: this namespace may not be deleted')
    obj = store.get(kind_name, namespace if kind.namespaced else None, name)
    finalizer = {FOREGROUND: FOREGROUND_FINALIZER, ORPHAN: ORPHAN_FINALIZER}.get(propagation or BACKGROUND)
    if obj is not None and finalizer and not obj["metadata"].get("deletionTimestamp") and \
            finalizer not in (obj["metadata"].get("finalizers") or ()):
        updated = clone(obj)
        updated["metadata"]["finalizers"] = [*(updated["metadata"].get("finalizers") or ()), finalizer]
        updated["metadata"].pop("resourceVersion", None)
        store.update(updated)
    return store.delete(kind_name, namespace, name)
