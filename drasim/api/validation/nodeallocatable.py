"""Validation of a device's `nodeAllocatableResources` (KEP-5517, alpha gate DRANodeAllocatableResources).

k8s: pkg/apis/resource/validation/validation.go validateNodeAllocatableResources,
validateNodeAllocatableMapping, validateNodeAllocatableOverheadMapping (called from validateDevice);
pkg/apis/core/helper IsNodeAllocatableResourceName (cpu, memory and hugepages-*; not
ephemeral-storage, as its test table says). The field only reaches validation with the gate on or
kept from an old slice; admission drops it first otherwise (disabledfields.py).
"""
from __future__ import annotations

from drasim.api.fielderrors import Path, invalid, not_found, required
from drasim.api.validation import common
from drasim.api.validation.common import Errors, get_dict, get_str


def is_node_allocatable_resource_name(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def validate_node_allocatable_resources(device: dict, path: Path, errs: Errors) -> None:
    mappings = get_dict(device, "nodeAllocatableResources", path, errs)
    if not isinstance(mappings, dict):
        return
    capacities = device.get("capacity") if isinstance(device.get("capacity"), dict) else {}
    base = path.child("nodeAllocatableResources")
    for name in sorted(mappings, key=str):   # Go walks a map; sorted keeps the message stable
        entry, key_path = mappings[name], base.key(str(name))
        if not is_node_allocatable_resource_name(str(name)):
            errs.append(invalid(key_path, name, "must be a node allocatable resource name"))
        if not isinstance(entry, dict):
            errs.append(common.type_error(key_path, entry, "an object"))
            continue
        mapping = get_dict(entry, "mapping", key_path, errs)
        overhead = get_dict(entry, "overhead", key_path, errs)
        if mapping is None and overhead is None:
            errs.append(required(key_path, "at least one of mapping or overhead must be set"))
        if isinstance(mapping, dict):
            _validate_mapping(mapping, capacities, key_path.child("mapping"), errs)
        if isinstance(overhead, dict):
            _validate_overhead(overhead, key_path.child("overhead"), errs)


def _quantity(obj: dict, key: str, path: Path, errs: Errors):
    value = obj.get(key)
    return None if value is None else common.get_quantity(value, path.child(key), errs)


def _validate_mapping(mapping: dict, capacities: dict, path: Path, errs: Errors) -> None:
    key = get_str(mapping, "capacityKey", path, errs)
    capacity_multiplier = _quantity(mapping, "capacityMultiplier", path, errs)
    if isinstance(key, str):
        if key == "":
            errs.append(invalid(path.child("capacityKey"), "", "capacityKey must not be an empty string"))
        elif key not in capacities:
            errs.append(not_found(path.child("capacityKey"), key))
        if mapping.get("capacityMultiplier") is None:
            errs.append(required(path.child("capacityMultiplier"), "capacityMultiplier is required when capacityKey is set"))
        elif capacity_multiplier is not None and capacity_multiplier.value <= 0:
            errs.append(invalid(path.child("capacityMultiplier"), str(capacity_multiplier), "must be positive"))
    device_multiplier = _quantity(mapping, "deviceMultiplier", path, errs)
    if device_multiplier is not None and device_multiplier.value <= 0:
        errs.append(invalid(path.child("deviceMultiplier"), str(device_multiplier), "must be positive"))
    if mapping.get("capacityMultiplier") is not None and mapping.get("capacityKey") is None:
        errs.append(required(path.child("capacityKey"), "capacityKey is required when capacityMultiplier is set"))


def _validate_overhead(overhead: dict, path: Path, errs: Errors) -> None:
    if overhead.get("perPod") is None and overhead.get("perContainer") is None:
        errs.append(invalid(path, "", "at least one of perPod or perContainer must be set"))
        return
    for key in ("perPod", "perContainer"):
        q = _quantity(overhead, key, path, errs)
        if q is not None and q.value < 0:
            errs.append(invalid(path.child(key), str(q), "must be non-negative"))
