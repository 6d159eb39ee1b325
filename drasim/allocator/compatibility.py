"""Device compatibility groups (KEP-5963, alpha gate DRADeviceCompatibilityGroups).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/{incubating,experimental}/
compatibility_groups.go, as merged for v1.37 (PR #139795).

Each `consumesCounters[]` entry of a device may list opaque group names. Devices that draw
from one counter set may be allocated together only while the groups of all of them
intersect; a device that lists no groups only goes with devices that list none either.
The state per counter set is a rolling intersection:

  NO_MEMBERS      nothing placed yet: anything is admitted
  ALL_EMPTY       every device placed declared no groups: only such devices are admitted
  frozenset(...)  the intersection of the groups declared so far: a device is admitted
                  when its groups meet it, and the intersection narrows

Already allocated devices seed the state from the snapshot their allocation result recorded
(`results[].compatibilityGroups`, keyed by counter set), not from the slice, so later slice
edits do not change the verdict. Go keys this state by pool *name* alone, like counters.
"""
from __future__ import annotations

from typing import Union

NO_MEMBERS = None
ALL_EMPTY = "all-empty"

Intersection = Union[None, str, frozenset]


def admits(state: Intersection, groups: frozenset | None) -> bool:
    if state is NO_MEMBERS:
        return True
    if not groups:
        return state == ALL_EMPTY
    if state == ALL_EMPTY:
        return False
    return bool(state & groups)


def add(state: Intersection, groups: frozenset | None) -> Intersection:
    if state is NO_MEMBERS:
        return groups if groups else ALL_EMPTY
    if state == ALL_EMPTY or not groups:
        return state
    return state & groups


def baseline(devices, snapshot_of) -> dict[str, Intersection]:
    """Per counter set, the intersection over the allocated devices of a pool.

    *snapshot_of(device_id)* is the recorded snapshot (counter set -> groups) or None if the
    device is not allocated; a recorded allocation without an entry for a set declared none.
    """
    out: dict[str, Intersection] = {}
    for dev in devices:
        if not dev.consumes:
            continue
        snapshot = snapshot_of(dev.id)
        if snapshot is None:
            continue
        for set_name, _counters in dev.consumes:
            groups = snapshot.get(set_name)
            out[set_name] = add(out.get(set_name), frozenset(groups) if groups else None)
    return out

