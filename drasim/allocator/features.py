"""Allocator feature switches as a plain value (the package must not depend on feature-gate tables).

k8s: staging/src/k8s.io/dynamic-resource-allocation/structured/internal/types.go (Features).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Features:
    """Defaults are Kubernetes v1.37's gates, which select the incubating allocator (spec §1.3-1.4)."""

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = True
    device_taints: bool = True
    consumable_capacity: bool = True
    device_binding: bool = True
    compatibility_groups: bool = False  # alpha in v1.37 (KEP-5963)
    list_type_attributes: bool = False  # alpha in v1.37 (KEP-5491): selects the experimental allocator

    def gate_names(self) -> set[str]:
        """The enabled features by their Kubernetes names (Features.Set in Go)."""
        names = {
            "DRAAdminAccess": self.admin_access, "DRAPrioritizedList": self.prioritized_list,
            "DRAPartitionableDevices": self.partitionable_devices, "DRADeviceTaints": self.device_taints,
            "DRAConsumableCapacity": self.consumable_capacity,
            "DRADeviceBindingConditions+DRAResourceClaimDeviceStatus": self.device_binding,
            "DRADeviceCompatibilityGroups": self.compatibility_groups,
            "DRAListTypeAttributes": self.list_type_attributes,
        }
        return {name for name, on in names.items() if on}
