"""What is already allocated in the cluster (spec §9).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/schedulerapi/types.go (AllocatedState),
pkg/scheduler/framework/plugins/dynamicresources/allocateddevices.go (foreachAllocatedDevice).

Kubernetes rebuilds this state from all claims each cycle; here it is kept incrementally with
reference counts, which gives the same answer as a rebuild after any sequence of add/remove.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable
from fractions import Fraction

from drasim.api.quantity import parse_quantity

_tokens = itertools.count(1)


class AllocatedState:
    """Exclusively allocated devices, shares of shareable devices and their aggregated consumed capacity."""

    __slots__ = ("consumable_capacity", "_exclusive", "_shares", "_capacity", "_capacity_refs", "token",
                 "serial", "pool_versions", "groups")

    def __init__(self, consumable_capacity: bool = True) -> None:
        # With DRAConsumableCapacity off, results with a shareID count as exclusive (as in Kubernetes).
        self.consumable_capacity = consumable_capacity
        self._exclusive: dict[str, int] = {}
        self._shares: dict[str, int] = {}
        self._capacity: dict[str, dict[str, Fraction]] = {}
        self._capacity_refs: dict[str, int] = {}
        self.token = next(_tokens)  # changes on every mutation; keys caches derived from this state
        self.serial = next(_tokens)  # identifies this state object for caches
        # pool name -> mutation count of allocations in that pool (keys per-node caches)
        self.pool_versions: dict[str, int] = {}
        # device id -> the compatibility-group snapshot its allocation recorded (KEP-5963;
        # Go: AllocatedState.AllocatedCompatibilityGroups, the last result seen wins)
        self.groups: dict[str, dict[str, list[str]]] = {}

    @classmethod
    def from_claims(cls, claims: Iterable[dict], consumable_capacity: bool = True) -> AllocatedState:
        """State of every claim that has `status.allocation`."""
        state = cls(consumable_capacity)
        for claim in claims:
            allocation = (claim.get("status") or {}).get("allocation")
            if allocation:
                state.add(allocation)
        return state

    def add(self, allocation: dict) -> None:
        """Record an allocation (a `status.allocation` dict) as taken."""
        self._apply(allocation, +1)

    def remove(self, allocation: dict) -> None:
        """Release an allocation previously added."""
        self._apply(allocation, -1)

    def copy(self) -> AllocatedState:
        other = AllocatedState(self.consumable_capacity)
        other._exclusive = dict(self._exclusive)
        other._shares = dict(self._shares)
        other._capacity = {k: dict(v) for k, v in self._capacity.items()}
        other._capacity_refs = dict(self._capacity_refs)
        other.pool_versions = dict(self.pool_versions)
        other.groups = dict(self.groups)
        return other

    def _apply(self, allocation: dict, sign: int) -> None:
        self.token = next(_tokens)
        versions = self.pool_versions
        exclusive = self._exclusive
        for result in (allocation.get("devices") or {}).get("results") or ():
            get = result.get
            pool = get("pool", "")
            versions[pool] = versions.get(pool, 0) + 1
            if get("adminAccess"):
                continue  # admin access never blocks anyone (§9.1)
            device_id = f"{get('driver', '')}/{pool}/{get('device', '')}"
            snapshot = get("compatibilityGroups")
            if snapshot and sign > 0:
                self.groups[device_id] = snapshot
            if self.consumable_capacity and get("shareID") is not None:
                _bump(self._shares, device_id, sign)
                consumed = get("consumedCapacity")
                if consumed is not None:
                    self._apply_capacity(device_id, consumed, sign)
                if sign < 0 and device_id in self.groups and not self.is_allocated(device_id):
                    del self.groups[device_id]
                continue
            if sign > 0:   # _bump inlined for the common case (a load counts every claim once)
                exclusive[device_id] = exclusive.get(device_id, 0) + 1
                continue
            _bump(exclusive, device_id, sign)
            if device_id in self.groups and not self.is_allocated(device_id):
                del self.groups[device_id]

    def _apply_capacity(self, device_id: str, consumed: dict, sign: int) -> None:
        agg = self._capacity.setdefault(device_id, {})
        for name, quantity in consumed.items():
            agg[name] = agg.get(name, 0) + sign * parse_quantity(quantity).value
        _bump(self._capacity_refs, device_id, sign)
        if device_id not in self._capacity_refs:
            del self._capacity[device_id]

    # --- queries used by the search -------------------------------------------------------------

    @property
    def exclusive_ids(self):
        """The exclusively allocated device ids (read-only): `id in state.exclusive_ids` is
        is_exclusive without a call, for the scans that ask it of every device of a node."""
        return self._exclusive

    def is_exclusive(self, device_id: str) -> bool:
        """Allocated without a share: never a candidate for a non-admin request (§9.2)."""
        return device_id in self._exclusive

    def consumed_capacity(self, device_id: str) -> dict[str, Fraction] | None:
        """Aggregated consumed capacity of a shared device, or None if no share recorded any."""
        return self._capacity.get(device_id)

    def is_allocated(self, device_id: str) -> bool:
        """Allocated in any way (exclusive or shared): its counters are consumed (§11.2)."""
        return device_id in self._exclusive or device_id in self._shares or device_id in self._capacity

    def group_snapshot(self, device_id: str) -> dict[str, list[str]] | None:
        """The recorded compatibility groups of an allocated device ({} if none), None if not allocated."""
        if not self.is_allocated(device_id):
            return None
        return self.groups.get(device_id, {})

    def exclusive_devices(self) -> set[str]:
        return set(self._exclusive)


def _bump(counts: dict[str, int], key: str, sign: int) -> None:
    n = counts.get(key, 0) + sign
    if n > 0:
        counts[key] = n
    else:
        counts.pop(key, None)
