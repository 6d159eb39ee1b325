"""Shape checks for a `status` given in a manifest (a snapshot being restored).

The API server ignores status on create for most kinds; drasim keeps it for
Pods, Nodes and ResourceClaims so that `kubectl get -o yaml` output replays the
cluster as it was (bound pods, allocated claims). What is kept must have the
shape the components read; anything else is a field error, never a crash.
Status of ResourceQuota and DeviceTaintRule is computed by controllers and is
dropped on create (k8s: their strategies' PrepareForCreate).
"""
from __future__ import annotations

from drasim.api.fielderrors import Path, required
from drasim.api.validation.common import Errors, dict_items, get_dict, get_list, get_str

# k8s registry/apps/{deployment,replicaset,daemonset}/strategy.go PrepareForCreate reset status.
# StatefulSet and Job status is kept on create so a snapshot replays as the cluster had it.
DROPPED_ON_CREATE = ("ResourceQuota", "DeviceTaintRule", "Deployment", "ReplicaSet", "DaemonSet",
                     "PodDisruptionBudget", "PodGroup")   # k8s: their strategies' PrepareForCreate


def _strings(obj: dict, keys: tuple[str, ...], path: Path, errs: Errors) -> None:
    for key in keys:
        get_str(obj, key, path, errs)


def validate_status(obj: dict) -> Errors:
    """The status's shape errors. Almost every status is clean: a walk without field paths
    says so first (a snapshot has one status per pod and claim); the walk below finds and
    words the errors of the others."""
    if _clean(obj):
        return []
    return _status_errors(obj)


def _strings_ok(obj: dict, keys: tuple[str, ...]) -> bool:
    for key in keys:
        value = obj.get(key)
        if value is not None and not isinstance(value, str):
            return False
    return True


def _items_ok(items, keys: tuple[str, ...], none_ok: bool = True) -> bool:
    """A list (or absent) whose items are objects (or null, when `none_ok`) with string `keys`."""
    if items is None:
        return True
    if not isinstance(items, list):
        return False
    for item in items:
        if item is None:
            if none_ok:
                continue
            return False
        if not isinstance(item, dict) or not _strings_ok(item, keys):
            return False
    return True


def _clean(obj: dict) -> bool:
    """Whether _status_errors finds nothing (tests/unit/api/test_validation_status.py)."""
    status = obj.get("status")
    if status is None:
        return True
    if not isinstance(status, dict):
        return False
    kind = obj.get("kind")
    if kind == "Pod":
        if not _strings_ok(status, ("phase",)):
            return False
        for key in ("conditions", "resourceClaimStatuses", "containerStatuses"):
            if not _items_ok(status.get(key), ("type", "status", "name", "resourceClaimName")):
                return False
        ext = status.get("extendedResourceClaimStatus")
        if ext is None:
            return True
        return (isinstance(ext, dict) and _strings_ok(ext, ("resourceClaimName",))
                and _items_ok(ext.get("requestMappings"), ("containerName", "resourceName", "requestName")))
    if kind == "ResourceClaim":
        allocation = status.get("allocation")
        if allocation is not None:
            if not isinstance(allocation, dict):
                return False
            devices = allocation.get("devices")
            if devices is not None:
                if not isinstance(devices, dict):
                    return False
                results = devices.get("results")
                # A null result is an empty one: its request, driver, pool and device are missing.
                if not _items_ok(results, ("request", "driver", "pool", "device", "shareID"), none_ok=False):
                    return False
                for r in results or ():
                    if not (r.get("request") and r.get("driver") and r.get("pool") and r.get("device")):
                        return False
                    t, c = r.get("tolerations"), r.get("consumedCapacity")
                    if (t is not None and not isinstance(t, list)) or (c is not None and not isinstance(c, dict)):
                        return False
            selector = allocation.get("nodeSelector")
            if selector is not None and not isinstance(selector, dict):
                return False
        return _items_ok(status.get("reservedFor"), ("resource", "name", "uid", "apiGroup"))
    if kind == "Node":
        for key in ("capacity", "allocatable"):
            value = status.get(key)
            if value is not None and not isinstance(value, dict):
                return False
    return True


def _status_errors(obj: dict) -> Errors:
    errs: Errors = []
    status = get_dict(obj, "status", Path(), errs)
    if not isinstance(status, dict):
        return errs
    path = Path("status")
    kind = obj.get("kind")
    if kind == "Pod":
        _strings(status, ("phase",), path, errs)
        for key in ("conditions", "resourceClaimStatuses", "containerStatuses"):
            items = get_list(status, key, path, errs)
            for _, item, p in dict_items(items if isinstance(items, list) else [], path.child(key), errs):
                _strings(item, ("type", "status", "name", "resourceClaimName"), p, errs)
        ext = get_dict(status, "extendedResourceClaimStatus", path, errs)
        if isinstance(ext, dict):
            p = path.child("extendedResourceClaimStatus")
            _strings(ext, ("resourceClaimName",), p, errs)
            items = get_list(ext, "requestMappings", p, errs)
            for _, item, ip in dict_items(items if isinstance(items, list) else [], p.child("requestMappings"), errs):
                _strings(item, ("containerName", "resourceName", "requestName"), ip, errs)
    elif kind == "ResourceClaim":
        allocation = get_dict(status, "allocation", path, errs)
        if isinstance(allocation, dict):
            p = path.child("allocation")
            devices = get_dict(allocation, "devices", p, errs)
            if isinstance(devices, dict):
                results = get_list(devices, "results", p.child("devices"), errs)
                for _, r, rp in dict_items(results if isinstance(results, list) else [],
                                           p.child("devices", "results"), errs):
                    _strings(r, ("request", "driver", "pool", "device", "shareID"), rp, errs)
                    # k8s: validateDeviceRequestAllocationResult — request, driver, pool and device
                    # are required (a snapshot's allocation names the device it holds).
                    for key in ("request", "driver", "pool", "device"):
                        if isinstance(r, dict) and not r.get(key):
                            errs.append(required(rp.child(key)))
                    get_list(r, "tolerations", rp, errs)
                    get_dict(r, "consumedCapacity", rp, errs)
            get_dict(allocation, "nodeSelector", p, errs)
        items = get_list(status, "reservedFor", path, errs)
        for _, item, p in dict_items(items if isinstance(items, list) else [], path.child("reservedFor"), errs):
            _strings(item, ("resource", "name", "uid", "apiGroup"), p, errs)
    elif kind == "Node":
        for key in ("capacity", "allocatable"):
            get_dict(status, key, path, errs)
    return errs
