"""Plugin names and the v1.37 default profile.

k8s: pkg/scheduler/framework/plugins/names/names.go,
     pkg/scheduler/apis/config/v1/default_plugins.go (getDefaultPlugins).

Names appear in statuses, events and configuration: keep them verbatim.
"""
from __future__ import annotations

from dataclasses import dataclass

SCHEDULING_GATES = "SchedulingGates"
PRIORITY_SORT = "PrioritySort"
NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_NAME = "NodeName"
TAINT_TOLERATION = "TaintToleration"
NODE_AFFINITY = "NodeAffinity"
NODE_PORTS = "NodePorts"
NODE_RESOURCES_FIT = "NodeResourcesFit"
VOLUME_RESTRICTIONS = "VolumeRestrictions"
NODE_VOLUME_LIMITS = "NodeVolumeLimits"
VOLUME_BINDING = "VolumeBinding"
VOLUME_ZONE = "VolumeZone"
POD_TOPOLOGY_SPREAD = "PodTopologySpread"
INTER_POD_AFFINITY = "InterPodAffinity"
DEFAULT_PREEMPTION = "DefaultPreemption"
NODE_RESOURCES_BALANCED_ALLOCATION = "NodeResourcesBalancedAllocation"
IMAGE_LOCALITY = "ImageLocality"
DEFAULT_BINDER = "DefaultBinder"
DYNAMIC_RESOURCES = "DynamicResources"


@dataclass(frozen=True, slots=True)
class ProfileEntry:
    """One MultiPoint entry of the default profile.

    `weight` is the Score weight (None: the plugin does not score, or scores
    with the framework's default of 1 only if it implements Score).
    `simulated` is False for plugins drasim does not model; the cycle treats
    them as always passing and scoring 0, which leaves rankings unchanged only
    while their inputs are absent (no images, no volumes).
    """

    name: str
    weight: int | None = None
    simulated: bool = True


# k8s: default_plugins.go, in order. Filter plugins run in this order and the
# first rejection ends a node's filtering, so the order decides which reason a
# node reports. applyFeatureGates (DRA is GA) inserts DynamicResources just
# before DefaultPreemption, so an idle claim is deallocated before any pod is
# preempted; the lead owns that plugin.
DEFAULT_PROFILE: tuple[ProfileEntry, ...] = (
    ProfileEntry(SCHEDULING_GATES),
    ProfileEntry(PRIORITY_SORT),
    ProfileEntry(NODE_UNSCHEDULABLE),
    ProfileEntry(NODE_NAME),
    ProfileEntry(TAINT_TOLERATION, 3),
    ProfileEntry(NODE_AFFINITY, 2),
    ProfileEntry(NODE_PORTS),
    ProfileEntry(NODE_RESOURCES_FIT, 1),
    ProfileEntry(VOLUME_RESTRICTIONS, simulated=False),   # no volumes in drasim
    ProfileEntry(NODE_VOLUME_LIMITS, simulated=False),
    ProfileEntry(VOLUME_BINDING, simulated=False),
    ProfileEntry(VOLUME_ZONE, simulated=False),
    ProfileEntry(POD_TOPOLOGY_SPREAD, 2),
    ProfileEntry(INTER_POD_AFFINITY, 2),
    ProfileEntry(DYNAMIC_RESOURCES),
    ProfileEntry(DEFAULT_PREEMPTION),
    ProfileEntry(NODE_RESOURCES_BALANCED_ALLOCATION, 1),
    ProfileEntry(IMAGE_LOCALITY, 1),   # scores nodes by status.images (snapshots of real clusters)
    ProfileEntry(DEFAULT_BINDER),
)

# Score weights of the default profile, for plugins that score.
SCORE_WEIGHTS: dict[str, int] = {e.name: e.weight for e in DEFAULT_PROFILE if e.weight is not None}
