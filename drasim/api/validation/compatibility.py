"""Validation of `consumesCounters[].compatibilityGroups` (KEP-5963, alpha gate DRADeviceCompatibilityGroups).

k8s: staging/src/k8s.io/api/resource/v1/types.go DeviceCounterConsumption.CompatibilityGroups, whose
rules are declarative (`+k8s:optional`, `+k8s:maxItems=2`, `+k8s:unique=set`,
`+k8s:eachVal=+k8s:format=k8s-short-name`; validation.go validateDeviceCounterConsumption says
"CompatibilityGroups is validated declaratively"). The field only reaches validation with the gate
on (or kept from an old slice): admission drops it first otherwise (disabledfields.py).
"""
from __future__ import annotations

from drasim.api.fielderrors import Path, too_many
from drasim.api.validation.common import Errors, get_list, string_list
from drasim.api.validation.resource import check_unique, validate_dns_label

MAX_COMPATIBILITY_GROUPS = 2


def validate_compatibility_groups(consumption: dict, path: Path, errs: Errors) -> None:
    """At most 2 names (the size check short-circuits), no repeats, each a DNS label (k8s-short-name)."""
    groups = get_list(consumption, "compatibilityGroups", path, errs)
    if not isinstance(groups, list):
        return
    gpath = path.child("compatibilityGroups")
    if len(groups) > MAX_COMPATIBILITY_GROUPS:
        errs.append(too_many(gpath, len(groups), MAX_COMPATIBILITY_GROUPS))
        return
    names = string_list(consumption, "compatibilityGroups", path, errs)
    check_unique(names, gpath, errs)
    for i, name in names:
        errs.extend(validate_dns_label(name, gpath.index(i)))
