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
