"""API-server validation of the kinds drasim accepts.

Each validator takes the (defaulted) object and, for an update, the stored old one,
and returns FieldErrors in the API server's order and wording. Validators never
raise on malformed input: a value of the wrong JSON type is reported as a field error.

    validate_object(obj, old=None) -> list[FieldError]   dispatch on obj["kind"]
"""
from __future__ import annotations

from typing import Callable, Mapping

from drasim.api.fielderrors import FieldError, Path, invalid
from drasim.api.validation.apps import (validate_daemon_set, validate_deployment, validate_job,
                                         validate_replica_set, validate_stateful_set)
from drasim.api.validation.claim import validate_resource_claim, validate_resource_claim_template
from drasim.api.validation.core import validate_namespace, validate_node, validate_pod, validate_resource_quota
from drasim.api.validation.policy import validate_pod_disruption_budget
from drasim.api.validation.scheduling import validate_pod_group, validate_priority_class, validate_workload
from drasim.api.validation.resource import LIST_TYPE_ATTRIBUTES, validate_device_class, validate_device_taint_rule
from drasim.api.validation.slice import validate_resource_slice
from drasim.api.validation.status import DROPPED_ON_CREATE, validate_status

Validator = Callable[[dict, "dict | None"], list[FieldError]]

VALIDATORS: dict[str, Validator] = {
    "DeviceClass": validate_device_class,
    "ResourceSlice": validate_resource_slice,
    "ResourceClaim": validate_resource_claim,
    "ResourceClaimTemplate": validate_resource_claim_template,
    "DeviceTaintRule": validate_device_taint_rule,
    "Pod": validate_pod,
    "Node": validate_node,
    "Namespace": validate_namespace,
    "ResourceQuota": validate_resource_quota,
    "Deployment": validate_deployment,
    "ReplicaSet": validate_replica_set,
    "StatefulSet": validate_stateful_set,
    "DaemonSet": validate_daemon_set,
    "Job": validate_job,
    "PodDisruptionBudget": validate_pod_disruption_budget,
    "PodGroup": validate_pod_group,
    "Workload": validate_workload,
    "PriorityClass": validate_priority_class,
}


def validate_object(obj: object, old: object = None, gates: Mapping[str, bool] | None = None,
                    status_decoded: bool = False) -> list[FieldError]:
    """Validate a create (old is None) or an update; unknown kinds are not validated.
    *gates*: the API server's feature gates (None: v1.37's defaults). *status_decoded*: obj's
    body went through strict decoding (admission): a Pod's status shape checks then find
    nothing — every field they read is a string in the Go types, every list item an object or
    null (tests/unit/api/test_validation_status.py) — and are skipped; defaults only add strings."""
    if not isinstance(obj, dict):
        return [invalid(Path(), obj, "must be an object")]
    validator = VALIDATORS.get(obj.get("kind")) if isinstance(obj.get("kind"), str) else None
    if validator is None:
        return []
    list_types = bool((gates or {}).get("DRAListTypeAttributes", False))
    if LIST_TYPE_ATTRIBUTES.get() is list_types:   # as it is already (nearly always): no set and reset
        errors = validator(obj, old if isinstance(old, dict) else None)
    else:
        token = LIST_TYPE_ATTRIBUTES.set(list_types)
        try:
            errors = validator(obj, old if isinstance(old, dict) else None)
        finally:
            LIST_TYPE_ATTRIBUTES.reset(token)
    if old is None and "status" in obj and not (status_decoded and obj.get("kind") == "Pod"):
        errors.extend(validate_status(obj))
    return errors


__all__ = [
    "DROPPED_ON_CREATE",
    "VALIDATORS",
    "validate_daemon_set",
    "validate_job",
    "validate_stateful_set",
    "validate_device_class",
    "validate_device_taint_rule",
    "validate_namespace",
    "validate_node",
    "validate_object",
    "validate_pod",
    "validate_resource_claim",
    "validate_resource_claim_template",
    "validate_resource_quota",
    "validate_resource_slice",
]
