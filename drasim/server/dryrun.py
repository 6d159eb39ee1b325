"""Dry-run updates and deletes (`?dryRun=All`, DeleteOptions.dryRun): every check, no write.

k8s: apiserver/pkg/registry/generic/registry/dryrun.go (DryRunnableStorage.GuaranteedUpdate and
Delete): admission, validation and the preconditions run as for a real request; nothing reaches
storage, and the answer is the object as it would be stored, at the resourceVersion it has now.
`kubectl diff`, `kubectl apply --dry-run=server` and `kubectl delete --dry-run=server` rely on it.
"""
from __future__ import annotations

from drasim import admission
from drasim.api.kinds import Kind
from drasim.controlplane import ControlPlane
from drasim.store import clone
from drasim.store.memory import conflict


def wants_dry_run(query_value: str | None, options: dict | None = None) -> bool:
    """dryRun=All in the query, or ["All"] in DeleteOptions (what kubectl sends)."""
    if query_value == "All":
        return True
    given = (options or {}).get("dryRun")
    return isinstance(given, list) and given == ["All"]


def updated(cp: ControlPlane, kind: Kind, obj: dict, old: dict, status_only: bool) -> dict:
    """The object a PUT/PATCH would store; raises InputError (invalid) or StoreError (conflict)."""
    if status_only and kind.kind == "Pod" and "spec" in old:   # as ControlPlane.update (podStatusStrategy)
        obj = dict(obj, spec=old["spec"])
    prepared = admission.prepare(cp.store, kind, obj, old, "", gates=cp.options.gates)
    rv = (prepared.get("metadata") or {}).get("resourceVersion")
    if rv and rv != old["metadata"]["resourceVersion"]:
        raise conflict(kind, old["metadata"]["name"])
    if status_only:   # the status subresource writes status only
        result = clone(old)
        if "status" in prepared:
            result["status"] = prepared["status"]
        else:
            result.pop("status", None)
        return result
    if kind.has_status:   # the main resource keeps the stored status (store.update does the same)
        if "status" in old:
            prepared["status"] = clone(old["status"])
        else:
            prepared.pop("status", None)
    prepared["metadata"]["resourceVersion"] = old["metadata"]["resourceVersion"]
    return prepared
