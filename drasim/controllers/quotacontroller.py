"""The ResourceQuota controller: `status.used` recalculated from every pod and claim of the
quota's namespace, but only when k8s recalculates it. Between recalculations admission keeps
`status.used` current by charging each create (quotaadmission.py).

k8s: pkg/controller/resourcequota/resource_quota_controller.go — a quota is synced when it is
added, when its spec.hard changes (status updates are ignored), on replenishment and on the
full resync (enqueueAll, every --resource-quota-sync-period, 5m by default);
resource_quota_monitor.go — replenishment on a deletion, or an update the UpdateFilter passes
(pkg/quota/v1/install/update_filter.go: a pod that stops being charged, QuotaV1Pod; nothing
for resourceclaims), for the quotas whose status.hard the kind's evaluator matches
(replenishQuota). Creates never trigger a recalculation.
"""
from __future__ import annotations

from functools import partial

from drasim.controllers import quota
from drasim.controllers.quotaadmission import admission_error_for
from drasim.store import ADDED, DELETED, MODIFIED, MemoryStore, WatchEvent, clone

__all__ = ["RESYNC_SECONDS", "QuotaController", "admission_error_for"]

_RELEVANT = ("Pod", "ResourceClaim", "ResourceQuota", "DeviceClass")
RESYNC_SECONDS = 300.0   # k8s: --resource-quota-sync-period default (kube-controller-manager)


def _hard_changed(old: dict, new: dict) -> bool:
    """k8s: !quota.Equals(old.Spec.Hard, cur.Spec.Hard) — same names, equal values."""
    if (old.get("spec") or {}).get("hard") == (new.get("spec") or {}).get("hard"):
        return False   # the usual case: a status write
    a = quota._parse_list((old.get("spec") or {}).get("hard"))
    b = quota._parse_list((new.get("spec") or {}).get("hard"))
    return a.keys() != b.keys() or any(a[k] != b[k] for k in a)


class QuotaController:
    name = "resourcequota-controller"

    def __init__(self, store: MemoryStore, er_cache) -> None:
        self.store = store
        self.er_cache = er_cache
        self._dirty: set[tuple[str, str]] = set()      # (namespace, quota name) to recalculate
        self._next_resync = store.clock.now + RESYNC_SECONDS
        store.subscribe(self._on_event, kinds=_RELEVANT)

    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind == "DeviceClass":
            # drasim: a class changes how claims count (the extended-resource cache); k8s picks that
            # up at the next resync, drasim at once, so usage never waits on a class.
            self._enqueue_all()
        elif ev.kind == "ResourceQuota":
            md = ev.obj["metadata"]
            if ev.type == ADDED or (ev.type == MODIFIED and _hard_changed(ev.old or {}, ev.obj)):
                self._dirty.add((md.get("namespace") or "", md["name"]))
        elif ev.kind == "Pod":
            if ev.type == DELETED or (ev.type == MODIFIED and quota.is_pod_charged(ev.old or {})
                                      and not quota.is_pod_charged(ev.obj)):
                self._replenish(ev.obj, quota.pod_matching_resources)
        elif ev.kind == "ResourceClaim" and ev.type == DELETED:
            self._replenish(ev.obj, partial(quota.claim_matching_resources, cache=self.er_cache))

    def _replenish(self, obj: dict, matching) -> None:
        """k8s: replenishQuota — the namespace's quotas tracking a resource of this kind."""
        namespace = obj["metadata"].get("namespace") or ""
        for q in self.store.list("ResourceQuota", namespace):
            if matching(list(((q.get("status") or {}).get("hard") or {}))):
                self._dirty.add((namespace, q["metadata"]["name"]))

    def _enqueue_all(self) -> None:
        for q in self.store.list("ResourceQuota"):
            self._dirty.add((q["metadata"].get("namespace") or "", q["metadata"]["name"]))

    def _resync_due(self) -> bool:
        return self.store.clock.now >= self._next_resync

    def has_work(self) -> bool:
        return bool(self._dirty) or self._resync_due()

    def run_once(self) -> None:
        if self._resync_due():
            # k8s: wait.Until(enqueueAll, resyncPeriod); drasim checks it when it next runs, so
            # the resync never keeps a quiet simulation going.
            self._next_resync = self.store.clock.now + RESYNC_SECONDS
            self._enqueue_all()
        if not self._dirty:
            return
        namespace = min(self._dirty)[0]
        names = sorted(n for ns, n in self._dirty if ns == namespace)
        self._dirty.difference_update((namespace, n) for n in names)
        pods = self.store.list("Pod", namespace)
        claims = self.store.list("ResourceClaim", namespace)
        for name in names:
            q = self.store.get("ResourceQuota", namespace, name)
            if q is not None:
                self._sync(q, pods, claims)

    def _sync(self, q: dict, pods: list[dict], claims: list[dict]) -> None:
        """k8s: syncResourceQuota — status.hard := spec.hard, status.used recalculated."""
        used = quota.quota_used(q, pods, claims, self.er_cache)
        hard = (q.get("spec") or {}).get("hard") or {}
        status = {"hard": dict(hard), "used": used}
        if (q.get("status") or {}) != status:
            self.store.update_status(dict(q, status=clone(status)))
