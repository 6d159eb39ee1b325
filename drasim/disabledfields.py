"""Fields the API server drops when their feature gate is off (the strategies' dropDisabledFields).

k8s: pkg/registry/resource/resourceslice/strategy.go (dropDisabledFields and one helper per gate),
pkg/registry/resource/resourceclaim/strategy.go. Each rule keeps a field the old object already
used, so an update under a gate turned off does not wipe what was written while it was on
(version skew). Gates locked on in v1.37 (DRAPrioritizedList, DRAAdminAccess,
DRAResourceClaimDeviceStatus) can never be off, so their drops are not written here.
"""
from __future__ import annotations

from typing import Callable, Mapping

LIST_VALUES = ("bools", "ints", "strings", "versions")


def _dicts(value) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _spec(obj: dict | None) -> dict:
    spec = (obj or {}).get("spec")
    return spec if isinstance(spec, dict) else {}


def _devices(obj: dict | None) -> list[dict]:
    return _dicts(_spec(obj).get("devices"))


def _capacities(device: dict) -> list[dict]:
    cap = device.get("capacity")
    return [c for c in cap.values() if isinstance(c, dict)] if isinstance(cap, dict) else []


def _attributes(device: dict) -> list[dict]:
    attrs = device.get("attributes")
    return [a for a in attrs.values() if isinstance(a, dict)] if isinstance(attrs, dict) else []


def _counter_entries(device: dict) -> list[dict]:
    return _dicts(device.get("consumesCounters"))


# --- ResourceSlice: (gate(s), in use by the old slice?, drop from the new slice) -------------------

def _taints_used(s):
    return any(d.get("taints") for d in _devices(s))


def _drop_taints(s):
    for d in _devices(s):
        d.pop("taints", None)


_PER_DEVICE_NODE = ("nodeName", "nodeSelector", "allNodes")


def _partitionable_used(s):
    spec = _spec(s)
    return bool(spec.get("sharedCounters")) or spec.get("perDeviceNodeSelection") is not None or any(
        d.get("consumesCounters") or any(d.get(k) is not None for k in _PER_DEVICE_NODE) for d in _devices(s))


def _drop_partitionable(s):
    _spec(s).pop("sharedCounters", None)
    _spec(s).pop("perDeviceNodeSelection", None)
    for d in _devices(s):
        for key in ("consumesCounters", *_PER_DEVICE_NODE):
            d.pop(key, None)


_BINDING = ("bindingConditions", "bindingFailureConditions", "bindsToNode")


def _binding_used(s):
    return any(d.get("bindingConditions") or d.get("bindingFailureConditions") or d.get("bindsToNode") is not None
               for d in _devices(s))


def _drop_binding(s):
    for d in _devices(s):
        for key in _BINDING:
            d.pop(key, None)


def _consumable_used(s):
    return any(d.get("allowMultipleAllocations") is not None or any(c.get("requestPolicy") is not None
                                                                    for c in _capacities(d)) for d in _devices(s))


def _drop_consumable(s):
    for d in _devices(s):
        d.pop("allowMultipleAllocations", None)
        for c in _capacities(d):
            c.pop("requestPolicy", None)


def _node_allocatable_used(s):
    return any(d.get("nodeAllocatableResources") for d in _devices(s))


def _drop_node_allocatable(s):
    for d in _devices(s):
        d.pop("nodeAllocatableResources", None)   # the v1.37 name (nodeAllocatableResourceMappings is tombstoned)


def _list_attributes_used(s):
    return any(a.get(k) is not None for d in _devices(s) for a in _attributes(d) for k in LIST_VALUES)


def _drop_list_attributes(s):
    for d in _devices(s):
        for a in _attributes(d):
            for k in LIST_VALUES:
                a.pop(k, None)


def _pool_status_used(s):
    return _spec(s).get("partitionTypeAttribute") is not None


def _drop_pool_status(s):
    _spec(s).pop("partitionTypeAttribute", None)


def _groups_used(s):   # KEP-5963 (PR #139795), as the other rules
    return any(c.get("compatibilityGroups") for d in _devices(s) for c in _counter_entries(d))


def _drop_groups(s):
    for d in _devices(s):
        for c in _counter_entries(d):
            c.pop("compatibilityGroups", None)


Rule = tuple[tuple[str, ...], Callable[[dict | None], bool], Callable[[dict], None]]

SLICE_RULES: tuple[Rule, ...] = (
    (("DRADeviceTaints",), _taints_used, _drop_taints),
    (("DRAPartitionableDevices",), _partitionable_used, _drop_partitionable),
    # both gates must be on (DRAResourceClaimDeviceStatus is locked on in v1.37)
    (("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus"), _binding_used, _drop_binding),
    (("DRAConsumableCapacity",), _consumable_used, _drop_consumable),
    (("DRANodeAllocatableResources",), _node_allocatable_used, _drop_node_allocatable),
    (("DRAListTypeAttributes",), _list_attributes_used, _drop_list_attributes),
    (("DRAResourcePoolStatus",), _pool_status_used, _drop_pool_status),
    (("DRADeviceCompatibilityGroups",), _groups_used, _drop_groups),
)


# --- ResourceClaim: compatibility groups in allocation results (KEP-5963) --------------------------

def _results(c: dict | None) -> list[dict]:
    status = (c or {}).get("status")
    alloc = status.get("allocation") if isinstance(status, dict) else None
    devices = alloc.get("devices") if isinstance(alloc, dict) else None
    return _dicts(devices.get("results")) if isinstance(devices, dict) else []


def _claim_groups_used(c):
    return any(r.get("compatibilityGroups") for r in _results(c))


def _drop_claim_groups(c):
    for r in _results(c):
        r.pop("compatibilityGroups", None)


CLAIM_RULES: tuple[Rule, ...] = (
    (("DRADeviceCompatibilityGroups",), _claim_groups_used, _drop_claim_groups),
)

# --- Pod: spec.schedulingGroup (k8s: pkg/api/pod dropDisabledFields, GenericWorkload) ---------------

def _group_used(p):
    return bool(_spec(p).get("schedulingGroup"))


def _drop_group(p):
    _spec(p).pop("schedulingGroup", None)


POD_RULES: tuple[Rule, ...] = ((("GenericWorkload",), _group_used, _drop_group),)

# --- PodGroup (k8s: the podgroup strategy's dropDisabledPodGroupFields) --------------------------------

def _field_rule(gate: str, key: str) -> Rule:
    return ((gate,), lambda g: bool(_spec(g).get(key)), lambda g: _spec(g).pop(key, None))


POD_GROUP_RULES: tuple[Rule, ...] = (
    _field_rule("TopologyAwareWorkloadScheduling", "schedulingConstraints"),
    _field_rule("DRAWorkloadResourceClaims", "resourceClaims"),
)

RULES = {"ResourceSlice": SLICE_RULES, "ResourceClaim": CLAIM_RULES, "Pod": POD_RULES, "PodGroup": POD_GROUP_RULES}


def drop_disabled_fields(kind: str, obj: dict, old: dict | None, gates: Mapping[str, bool]) -> None:
    """Drop, in place, what obj sets under a gate that is off, unless old already used it."""
    rules = RULES.get(kind)
    if not rules:
        return
    names = _GATE_NAMES[kind]
    settings = tuple(map(gates.get, names, _NOT_SET[kind]))
    off = _OFF_RULES.get((kind, settings))
    if off is None:
        setting = dict(zip(names, settings))
        off = _OFF_RULES[(kind, settings)] = tuple(
            (used, drop) for needed, used, drop in rules if not all(setting[g] for g in needed))
    for used, drop in off:
        if old is None or not used(old):   # nothing is in use by no old object
            drop(obj)


# The rules whose gates are off, per kind and setting of the gates its rules name (a phase
# applies thousands of objects under one setting).
_GATE_NAMES = {kind: tuple(dict.fromkeys(g for needed, _, _ in rules for g in needed)) for kind, rules in RULES.items()}
_NOT_SET = {kind: (False,) * len(names) for kind, names in _GATE_NAMES.items()}   # gates.get's defaults
_OFF_RULES: dict[tuple, tuple] = {}
