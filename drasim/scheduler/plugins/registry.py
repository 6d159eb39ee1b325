"""Plugin registry: name -> factory.

k8s: pkg/scheduler/framework/plugins/registry.go (NewInTreeRegistry).

A factory takes the shared handle and the plugin's args (the camelCase args
object of a KubeSchedulerConfiguration pluginConfig entry, or None) and returns
a plugin. Score weights come from the profile (names.DEFAULT_PROFILE), not args.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Protocol

from drasim.scheduler.plugins import names
from drasim.scheduler.plugins.interpodaffinity import InterPodAffinity
from drasim.scheduler.plugins.nodeaffinity import NodeAffinity
from drasim.scheduler.plugins.nodename import NodeName
from drasim.scheduler.plugins.nodeports import NodePorts
from drasim.scheduler.plugins.noderesources import BalancedAllocation, Fit
from drasim.scheduler.plugins.nodeunschedulable import NodeUnschedulable
from drasim.scheduler.plugins.podtopologyspread import PodTopologySpread
from drasim.scheduler.plugins.schedulinggates import SchedulingGates
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


def _pod_topology_spread(handle: Handle, args: dict | None) -> PodTopologySpread:
    # PodTopologySpreadArgs (defaultConstraints, defaultingType) are accepted and unused:
    # default constraints need a Service/RC/RS/StatefulSet selecting the pod, and drasim
    # has none of these kinds (see podtopologyspread.py).
    return PodTopologySpread(weight=names.SCORE_WEIGHTS[names.POD_TOPOLOGY_SPREAD])


class _SchedulerCacheLog:
    """The scheduler cache's change log, looked up when used (plugins are built before it)."""

    def __init__(self, handle) -> None:
        self._handle = handle

    @property
    def _cache(self):
        return self._handle.scheduler.cache

    @property
    def epoch(self) -> int:
        return self._cache.epoch

    @property
    def change_count(self) -> int:
        return self._cache.change_count

    def changes_since(self, cursor: int) -> list:
        return self._cache.changes_since(cursor)


def _inter_pod_affinity(handle: Handle, args: dict | None) -> InterPodAffinity:
    """InterPodAffinityArgs: hardPodAffinityWeight (default 1), ignorePreferredTermsOfExistingPods.

    Namespace labels and the change log come from the handle when it has a store and a
    scheduler (the ControlPlane); otherwise namespaces have no labels and the plugin
    rescans node generations each cycle.
    """
    args = args or {}
    store = getattr(handle, "store", None)
    namespace_labels = None
    if store is not None:
        def namespace_labels(name: str) -> dict:
            ns = store.get("Namespace", None, name)
            return ((ns or {}).get("metadata") or {}).get("labels") or {}
    weight = args.get("hardPodAffinityWeight")
    return InterPodAffinity(weight=names.SCORE_WEIGHTS[names.INTER_POD_AFFINITY],
                            hard_pod_affinity_weight=1 if weight is None else int(weight),
                            ignore_preferred_terms_of_existing_pods=bool(
                                args.get("ignorePreferredTermsOfExistingPods")),
                            namespace_labels=namespace_labels,
                            change_log=_SchedulerCacheLog(handle) if store is not None else None)


REGISTRY: dict[str, PluginFactory] = {
    names.SCHEDULING_GATES: lambda handle, args: SchedulingGates(),
    names.NODE_UNSCHEDULABLE: lambda handle, args: NodeUnschedulable(),
    names.NODE_NAME: lambda handle, args: NodeName(),
    names.TAINT_TOLERATION: lambda handle, args: TaintToleration(
        weight=names.SCORE_WEIGHTS[names.TAINT_TOLERATION]),
    names.NODE_AFFINITY: _node_affinity,
    names.NODE_PORTS: lambda handle, args: NodePorts(),
    names.NODE_RESOURCES_FIT: _fit,
    names.NODE_RESOURCES_BALANCED_ALLOCATION: lambda handle, args: BalancedAllocation(
        weight=names.SCORE_WEIGHTS[names.NODE_RESOURCES_BALANCED_ALLOCATION]),
    names.POD_TOPOLOGY_SPREAD: _pod_topology_spread,
    names.INTER_POD_AFFINITY: _inter_pod_affinity,
    # names.DYNAMIC_RESOURCES: added by the lead.
}
