"""The structured-parameters allocator of Kubernetes v1.37 (incubating variant), as a pure library.

It takes plain dicts (ResourceSlices, DeviceClasses, ResourceClaims, a Node) and an AllocatedState,
and returns `status.allocation` dicts or None. It never imports the scheduler, store, server or
controllers. Spec: allocator.md §5-§18, §21.
"""
from drasim.allocator.allocator import INVALID_POOLS, Allocator, NodeAllocationFailure
from drasim.allocator.features import Features
from drasim.allocator.state import AllocatedState

__all__ = ["INVALID_POOLS", "AllocatedState", "Allocator", "Features", "NodeAllocationFailure"]
