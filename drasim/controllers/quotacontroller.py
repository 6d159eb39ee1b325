"""The ResourceQuota controller and quota admission, over the pure accounting in quota.py.

k8s: pkg/controller/resourcequota/resource_quota_controller.go (status.used),
     staging/src/k8s.io/apiserver/pkg/admission/plugin/resourcequota (admission).
"""
from __future__ import annotations

from drasim.controllers import quota
from drasim.store import MemoryStore, WatchEvent, clone

_RELEVANT = ("Pod", "ResourceClaim", "ResourceQuota", "DeviceClass")


class QuotaController:
    name = "resourcequota-controller"

    def __init__(self, store: MemoryStore, er_cache) -> None:
        self.store = store
        self.er_cache = er_cache
        self._dirty: set[str] = set()
        store.subscribe(self._on_event, kinds=_RELEVANT)

    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind not in _RELEVANT:
            return
        if ev.kind == "DeviceClass":
            self._dirty.update(q["metadata"]["namespace"] for q in self.store.list("ResourceQuota"))
        elif ev.kind == "ResourceQuota" and ev.old is not None and ev.old.get("spec") == ev.obj.get("spec"):
            return   # our own status write
        else:
            namespace = ev.obj["metadata"].get("namespace") or ""
            if ev.kind == "ResourceQuota" or self.store.any_in("ResourceQuota", namespace):
                self._dirty.add(namespace)   # a namespace without quotas has no status to keep

    def has_work(self) -> bool:
        return bool(self._dirty)

    def run_once(self) -> None:
        namespace = min(self._dirty)
        self._dirty.discard(namespace)
        quotas = self.store.list("ResourceQuota", namespace)
        if not quotas:
            return
        pods = self.store.list("Pod", namespace)
        claims = self.store.list("ResourceClaim", namespace)
        for q in quotas:
            used = quota.quota_used(q, pods, claims, self.er_cache)
            hard = (q.get("spec") or {}).get("hard") or {}
            status = {"hard": dict(hard), "used": used}
            if (q.get("status") or {}) != status:
                self.store.update_status(dict(q, status=clone(status)))


def admission_error_for(store: MemoryStore, er_cache, obj: dict, pending: list[dict] = ()) -> str | None:
    """The quota admission message for creating obj, or None when it fits every quota.

    `pending` are objects admitted earlier in the same request batch but not stored yet.
    """
    namespace = obj["metadata"].get("namespace")
    quotas = store.list("ResourceQuota", namespace)
    if not quotas:
        return None
    ahead = [o for o in pending if o["metadata"].get("namespace") == namespace]
    pods = store.list("Pod", namespace) + [o for o in ahead if o["kind"] == "Pod"]
    claims = store.list("ResourceClaim", namespace) + [o for o in ahead if o["kind"] == "ResourceClaim"]
    if obj["kind"] == "Pod":
        delta = quota.pod_usage(obj)
    else:
        delta = quota.claim_usage(obj, pods_by_uid={p["metadata"]["uid"]: p for p in pods},
                                  claims_in_namespace=claims, cache=er_cache)
    # Admission charges usage as it admits (k8s: the quota evaluator updates status.used
    # synchronously), so judge against usage recomputed now, not the controller's last write.
    fresh = [dict(q, status={"hard": dict((q.get("spec") or {}).get("hard") or {}),
                             "used": quota.quota_used(q, pods, claims, er_cache)}) for q in quotas]
    return quota.admission_error(fresh, namespace, delta)
