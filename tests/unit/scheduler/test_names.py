"""Default profile, weights and registry (k8s: apis/config/v1/default_plugins.go, plugins/registry.go)."""
from __future__ import annotations

from drasim.api.extendedresource import ExtendedResourceCache
from drasim.scheduler.framework import FilterPlugin, PreEnqueuePlugin, ScorePlugin
from drasim.scheduler.plugins import names
from drasim.scheduler.plugins.registry import REGISTRY


def test_default_score_weights():
    """v1.37 default weights: TaintToleration 3, NodeAffinity 2, Fit 1, Balanced 1, ImageLocality 1, PTS 2, IPA 2."""
    assert names.SCORE_WEIGHTS == {
        "TaintToleration": 3, "NodeAffinity": 2, "NodeResourcesFit": 1, "PodTopologySpread": 2,
        "InterPodAffinity": 2, "NodeResourcesBalancedAllocation": 1, "ImageLocality": 1}


def test_default_profile_order():
    """Filter order of the default profile; DynamicResources sits right before DefaultPreemption."""
    order = [e.name for e in names.DEFAULT_PROFILE]
    assert order[:8] == ["SchedulingGates", "PrioritySort", "NodeUnschedulable", "NodeName", "TaintToleration",
                         "NodeAffinity", "NodePorts", "NodeResourcesFit"]
    assert order.index("DynamicResources") + 1 == order.index("DefaultPreemption")


class _Handle:
    def __init__(self) -> None:
        self.extended_resource_cache = ExtendedResourceCache()


def test_registry_builds_plugins_with_profile_weights():
    """Every registered factory builds a plugin named as registered; scorers get the default weights."""
    handle = _Handle()
    for name, factory in REGISTRY.items():
        plugin = factory(handle, None)
        assert plugin.name == name
        assert isinstance(plugin, (FilterPlugin, ScorePlugin, PreEnqueuePlugin))
        if isinstance(plugin, ScorePlugin):
            assert plugin.weight == names.SCORE_WEIGHTS[name]


def test_every_simulated_plugin_of_the_profile_is_built():
    """A plugin the profile marks simulated but nothing builds is silently skipped (SchedulingGates was:
    gated pods were scheduled at once). The queue sort and the binder are the scheduler's own code."""
    from drasim.controlplane import ControlPlane
    built = {p.name for p in ControlPlane().scheduler.profile.plugins}
    own = {names.PRIORITY_SORT, names.DEFAULT_BINDER}
    assert {e.name for e in names.DEFAULT_PROFILE if e.simulated} - own == built - {"GangScheduling"}
