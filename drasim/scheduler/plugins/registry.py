"""Plugin registry: name -> factory.

k8s: pkg/scheduler/framework/plugins/registry.go (NewInTreeRegistry).

A factory takes the shared handle and the plugin's args (the camelCase args
object of a KubeSchedulerConfiguration pluginConfig entry, or None) and returns
a plugin. Score weights come from the profile (names.DEFAULT_PROFILE), not args.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from drasim.scheduler.plugins import names
from drasim.scheduler.plugins.nodeaffinity import NodeAffinity
from drasim.scheduler.plugins.nodename import NodeName
from drasim.scheduler.plugins.nodeports import NodePorts
from drasim.scheduler.plugins.noderesources import BalancedAllocation, Fit
from drasim.scheduler.plugins.nodeunschedulable import NodeUnschedulable
from drasim.scheduler.plugins.tainttoleration import TaintToleration

if TYPE_CHECKING:
    from drasim.api.extendedresource import ExtendedResourceCache

__all__ = ["Handle", "PluginFactory", "REGISTRY"]


class Handle(Protocol):
    """What plugins may use from the scheduler (k8s: framework.Handle, trimmed)."""

    extended_resource_cache: "ExtendedResourceCache"


PluginFactory = Callable[[Handle, "dict | None"], Any]


def _fit(handle: Handle, args: dict | None) -> Fit:
    args = args or {}
    cache = handle.extended_resource_cache
    return Fit(lambda name: cache.class_for(name) is not None,
               weight=names.SCORE_WEIGHTS[names.NODE_RESOURCES_FIT],
               ignored_resources=args.get("ignoredResources") or (),
               ignored_resource_groups=args.get("ignoredResourceGroups") or ())


def _node_affinity(handle: Handle, args: dict | None) -> NodeAffinity:
    return NodeAffinity(weight=names.SCORE_WEIGHTS[names.NODE_AFFINITY],
                        added_affinity=(args or {}).get("addedAffinity"))


REGISTRY: dict[str, PluginFactory] = {
    names.NODE_UNSCHEDULABLE: lambda handle, args: NodeUnschedulable(),
    names.NODE_NAME: lambda handle, args: NodeName(),
    names.TAINT_TOLERATION: lambda handle, args: TaintToleration(
        weight=names.SCORE_WEIGHTS[names.TAINT_TOLERATION]),
    names.NODE_AFFINITY: _node_affinity,
    names.NODE_PORTS: lambda handle, args: NodePorts(),
    names.NODE_RESOURCES_FIT: _fit,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: lambda handle, args: BalancedAllocation(
        weight=names.SCORE_WEIGHTS[names.NODE_RESOURCES_BALANCED_ALLOCATION]),
    # names.DYNAMIC_RESOURCES: added by the lead.
}
