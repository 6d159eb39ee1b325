"""Validation of ResourceSlice `spec.partitionTypeAttribute` (alpha gate DRAResourcePoolStatus).

k8s: pkg/apis/resource/validation/validation.go validatePartitionTypeAttribute and
lookupQualifiedAttribute (called from validateResourceSliceSpec after the counter sets); the name's
format is a declarative rule (`k8s-resource-fully-qualified-name`), reported here with
validateFullyQualifiedName's messages. The field only reaches validation with the gate on (or kept
from an old slice): admission drops it first otherwise (disabledfields.py).
"""
from __future__ import annotations

from drasim.api.fielderrors import Path, invalid, required
from drasim.api.validation.common import Errors
from drasim.api.validation.resource import validate_fully_qualified_name


def _consumes_counters(device: object) -> bool:
    return isinstance(device, dict) and bool(device.get("consumesCounters"))


def validate_partition_type_attribute(spec: dict, path: Path, errs: Errors) -> None:
    name = spec.get("partitionTypeAttribute")
    if name is None:
        return
    fpath = path.child("partitionTypeAttribute")
    if not isinstance(name, str):
        errs.append(invalid(fpath, name, "must be a string"))
        return
    devices = spec.get("devices") if isinstance(spec.get("devices"), list) else []
    if not any(_consumes_counters(d) for d in devices):
        errs.append(invalid(fpath, name, "may only be set on a slice which declares devices that consume counters"))
        return
    format_errors = validate_fully_qualified_name(name, fpath)
    if format_errors:   # no device can carry a malformed name: report only the name
        errs.extend(format_errors)
        return
    driver = spec.get("driver") if isinstance(spec.get("driver"), str) else ""
    # An attribute in the driver's own domain may be declared bare (strings.CutPrefix).
    bare = name[len(driver) + 1:] if name.startswith(driver + "/") else name
    for i, device in enumerate(devices):
        if not _consumes_counters(device):
            continue   # devices that consume no counters are exempt
        attrs = device.get("attributes") if isinstance(device.get("attributes"), dict) else {}
        attr = attrs.get(name, attrs.get(bare))
        apath = path.child("devices").index(i).child("attributes").key(name)
        if attr is None:
            errs.append(required(apath, "device consumes counters and `partitionTypeAttribute` names this "
                                        "attribute, so it must be set"))
        elif not isinstance(attr, dict) or attr.get("string") is None:
            errs.append(invalid(apath, attr, "must be a string value because `partitionTypeAttribute` names this attribute"))
