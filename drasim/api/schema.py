"""Strict decoding: which fields each resource.k8s.io/v1 kind knows.

k8s: staging/src/k8s.io/api/resource/v1/types.go (json tags, kubernetes/api 2026-07-24),
     sigs.k8s.io/json internal/golang/encoding/json (strict field paths).

kubectl's default field validation is Strict: the API server decodes with unknown
fields disallowed and answers `strict decoding error: unknown field "spec.x"`.
The path joins struct fields and map keys with "." and list indexes as "[i]"
(`spec.devices[0].attributes.gpu.foo`). kubectl sends JSON built from a map, so
keys arrive sorted; we walk them sorted too, which fixes the error order.

The table is declarative: a struct is a dict of field name -> type; `_list(T)`
and `_map(T)` wrap element types; ANY is a scalar or free-form value (not checked).
Core kinds (Pod, Node, Namespace, ResourceQuota) are checked at the top level and in
metadata only; their spec and status are not modelled.
"""
from __future__ import annotations

from typing import Any

ANY = None  # scalar or free-form JSON (RawExtension, labels, ...)


class _Quantity:  # noqa: N801
    """A resource.Quantity: decoding fails on a malformed string (k8s: Quantity.UnmarshalJSON)."""


QUANTITY = _Quantity()


class _list:  # noqa: N801 - reads like a type in the table
    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


class _map:  # noqa: N801
    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


def _struct(*names: str, **typed: Any) -> dict[str, Any]:
    fields = dict.fromkeys(names, ANY)
    fields.update(typed)
    return fields


# --- meta/v1 -------------------------------------------------------------------------------------
OWNER_REFERENCE = _struct("apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion")
MANAGED_FIELDS_ENTRY = _struct("manager", "operation", "apiVersion", "time", "fieldsType", "fieldsV1",
                               "subresource")
OBJECT_META = _struct(
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation",
    "creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
    "finalizers", ownerReferences=_list(OWNER_REFERENCE), managedFields=_list(MANAGED_FIELDS_ENTRY))
CONDITION = _struct("type", "status", "observedGeneration", "lastTransitionTime", "reason", "message")

# --- core/v1 NodeSelector ------------------------------------------------------------------------
_SELECTOR_REQUIREMENT = _struct("key", "operator", "values")
NODE_SELECTOR = _struct(nodeSelectorTerms=_list(_struct(matchExpressions=_list(_SELECTOR_REQUIREMENT),
                                                         matchFields=_list(_SELECTOR_REQUIREMENT))))

# --- resource.k8s.io/v1: shared pieces -----------------------------------------------------------
DEVICE_TAINT = _struct("key", "value", "effect", "timeAdded")
DEVICE_TOLERATION = _struct("key", "operator", "value", "effect", "tolerationSeconds")
DEVICE_SELECTOR = _struct(cel=_struct("expression"))
# DeviceConfiguration is embedded inline (json:""): its `opaque` sits next to `requests`.
OPAQUE = _struct("driver", "parameters")
DEVICE_CLASS_CONFIGURATION = _struct(opaque=OPAQUE)
DEVICE_CLAIM_CONFIGURATION = _struct("requests", opaque=OPAQUE)

# --- ResourceSlice -------------------------------------------------------------------------------
COUNTER = _struct(value=QUANTITY)
COUNTER_SET = _struct("name", counters=_map(COUNTER))
DEVICE_COUNTER_CONSUMPTION = _struct("counterSet", "compatibilityGroups", counters=_map(COUNTER))
DEVICE_ATTRIBUTE = _struct("int", "bool", "string", "version", "ints", "bools", "strings", "versions")
CAPACITY_REQUEST_POLICY = _struct(default=QUANTITY, validValues=_list(QUANTITY),
                                  validRange=_struct(min=QUANTITY, max=QUANTITY, step=QUANTITY))
DEVICE_CAPACITY = _struct(value=QUANTITY, requestPolicy=CAPACITY_REQUEST_POLICY)
NODE_ALLOCATABLE_RESOURCE = _struct(mapping=_struct("capacityKey", "capacityMultiplier", "deviceMultiplier"),
                                    overhead=_struct("perPod", "perContainer"))
DEVICE = _struct(
    "name", "nodeName", "allNodes", "bindsToNode", "bindingConditions", "bindingFailureConditions",
    "allowMultipleAllocations",
    attributes=_map(DEVICE_ATTRIBUTE), capacity=_map(DEVICE_CAPACITY),
    consumesCounters=_list(DEVICE_COUNTER_CONSUMPTION), nodeSelector=NODE_SELECTOR,
    taints=_list(DEVICE_TAINT), nodeAllocatableResources=_map(NODE_ALLOCATABLE_RESOURCE))
RESOURCE_SLICE_SPEC = _struct(
    "driver", "nodeName", "allNodes", "perDeviceNodeSelection", "partitionTypeAttribute",
    "skipNodeOperations",
    pool=_struct("name", "generation", "resourceSliceCount"), nodeSelector=NODE_SELECTOR,
    devices=_list(DEVICE), sharedCounters=_list(COUNTER_SET))

# --- ResourceClaim -------------------------------------------------------------------------------
CAPACITY_REQUIREMENTS = _struct(requests=_map(QUANTITY))
EXACT_DEVICE_REQUEST = _struct(
    "deviceClassName", "allocationMode", "count", "adminAccess",
    selectors=_list(DEVICE_SELECTOR), tolerations=_list(DEVICE_TOLERATION), capacity=CAPACITY_REQUIREMENTS)
DEVICE_SUB_REQUEST = _struct(
    "name", "deviceClassName", "allocationMode", "count",
    selectors=_list(DEVICE_SELECTOR), tolerations=_list(DEVICE_TOLERATION), capacity=CAPACITY_REQUIREMENTS)
DEVICE_REQUEST = _struct("name", exactly=EXACT_DEVICE_REQUEST, firstAvailable=_list(DEVICE_SUB_REQUEST))
DEVICE_CONSTRAINT = _struct("requests", "matchAttribute", "distinctAttribute")
RESOURCE_CLAIM_SPEC = _struct(devices=_struct(requests=_list(DEVICE_REQUEST),
                                              constraints=_list(DEVICE_CONSTRAINT),
                                              config=_list(DEVICE_CLAIM_CONFIGURATION)))
DEVICE_REQUEST_ALLOCATION_RESULT = _struct(
    "request", "driver", "pool", "device", "adminAccess", "bindingConditions", "bindingFailureConditions",
    "shareID", "skipNodeOperations", "compatibilityGroups", consumedCapacity=_map(QUANTITY),
    tolerations=_list(DEVICE_TOLERATION))
DEVICE_ALLOCATION_CONFIGURATION = _struct("source", "requests", opaque=OPAQUE)
ALLOCATION_RESULT = _struct(
    "allocationTimestamp", nodeSelector=NODE_SELECTOR,
    devices=_struct(results=_list(DEVICE_REQUEST_ALLOCATION_RESULT),
                    config=_list(DEVICE_ALLOCATION_CONFIGURATION)))
ALLOCATED_DEVICE_STATUS = _struct(
    "driver", "pool", "device", "shareID", "data", conditions=_list(CONDITION),
    networkData=_struct("interfaceName", "ips", "hardwareAddress"))
RESOURCE_CLAIM_STATUS = _struct(
    allocation=ALLOCATION_RESULT, reservedFor=_list(_struct("apiGroup", "resource", "name", "uid")),
    devices=_list(ALLOCATED_DEVICE_STATUS))

# --- DeviceClass, DeviceTaintRule ----------------------------------------------------------------
DEVICE_CLASS_SPEC = _struct("extendedResourceName", selectors=_list(DEVICE_SELECTOR),
                            config=_list(DEVICE_CLASS_CONFIGURATION))
# deviceSelector.deviceClassName and .selectors were removed in 1.35 (device-taints.md §2.9).
DEVICE_TAINT_RULE_SPEC = _struct(deviceSelector=_struct("driver", "pool", "device"), taint=DEVICE_TAINT)


def _kind(spec: Any, status: Any = None) -> dict[str, Any]:
    fields = _struct("apiVersion", "kind", metadata=OBJECT_META, spec=spec)
    if status is not None:
        fields["status"] = status
    return fields


KINDS: dict[str, dict[str, Any]] = {
    "DeviceClass": _kind(DEVICE_CLASS_SPEC),
    "ResourceSlice": _kind(RESOURCE_SLICE_SPEC),
    "ResourceClaim": _kind(RESOURCE_CLAIM_SPEC, RESOURCE_CLAIM_STATUS),
    "ResourceClaimTemplate": _kind(_struct(metadata=OBJECT_META, spec=RESOURCE_CLAIM_SPEC)),
    "DeviceTaintRule": _kind(DEVICE_TAINT_RULE_SPEC, _struct(conditions=_list(CONDITION))),
}


# Core kinds are not modelled field by field; only their quantity-valued fields are listed.
_RESOURCES = _struct(requests=_map(QUANTITY), limits=_map(QUANTITY))
_CONTAINER = {"resources": _RESOURCES}
_CORE_QUANTITIES: dict[str, Any] = {
    "Pod": {"spec": {"containers": _list(_CONTAINER), "initContainers": _list(_CONTAINER),
                     "ephemeralContainers": _list(_CONTAINER), "overhead": _map(QUANTITY),
                     "resources": _RESOURCES}},
    "Node": {"status": {"capacity": _map(QUANTITY), "allocatable": _map(QUANTITY)}},
    "ResourceQuota": {"spec": {"hard": _map(QUANTITY)},
                      "status": {"hard": _map(QUANTITY), "used": _map(QUANTITY)}},
}


def malformed_quantity(kind: str, obj: Any) -> tuple[str, Any] | None:
    """(path, value) of the first quantity-typed field holding a string that is not a quantity,
    in decoding order; None if all decode. The API server fails the whole decode on it."""
    from drasim.api.quantity import QuantityError, parse_quantity

    def walk(schema: Any, value: Any, path: str):
        if schema is QUANTITY:
            if isinstance(value, str):
                try:
                    parse_quantity(value)
                except (QuantityError, ValueError):
                    return path, value
            return None
        if isinstance(schema, _list):
            items = enumerate(value) if isinstance(value, list) else ()
            return next((hit for i, item in items if (hit := walk(schema.item, item, f"{path}[{i}]"))), None)
        if schema is ANY or not isinstance(value, dict):
            return None
        keys = sorted(value, key=str) if isinstance(schema, _map) else [k for k in sorted(value, key=str)
                                                                        if k in schema]
        for key in keys:
            hit = walk(schema.item if isinstance(schema, _map) else schema[key], value[key], _join(path, str(key)))
            if hit:
                return hit
        return None

    table = KINDS.get(kind) or _CORE_QUANTITIES.get(kind)
    return walk(table, obj, "") if table is not None else None


# Core kinds: only the top level and ObjectMeta are checked; spec and status are not modelled.
_CORE_KINDS: dict[str, dict[str, Any]] = {
    kind: _struct("apiVersion", "kind", "spec", "status", metadata=OBJECT_META)
    for kind in ("Pod", "Node", "Namespace", "ResourceQuota")
}


def unknown_fields(kind: str, obj: Any) -> list[str]:
    """Dotted paths of fields the kind does not define, in strict-decoding order.

    Core kinds are checked at the top level and in metadata. Values of the wrong JSON type
    are left to validation: strict decoding only reports unknown names.
    """
    table = KINDS.get(kind) or _CORE_KINDS.get(kind)
    if table is None:
        return []
    found: list[str] = []
    _walk(table, obj, "", found)
    return found


def _walk(schema: Any, value: Any, path: str, found: list[str]) -> None:
    if schema is ANY or schema is QUANTITY:
        return
    if isinstance(schema, _list):
        if isinstance(value, list):
            for i, item in enumerate(value):
                _walk(schema.item, item, f"{path}[{i}]", found)
        return
    if isinstance(schema, _map):
        if isinstance(value, dict):
            for key in sorted(value, key=str):
                _walk(schema.item, value[key], _join(path, str(key)), found)
        return
    if not isinstance(value, dict):
        return
    for key in sorted(value, key=str):
        sub = _join(path, str(key))
        if key not in schema:
            found.append(sub)
        else:
            _walk(schema[key], value[key], sub, found)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name
