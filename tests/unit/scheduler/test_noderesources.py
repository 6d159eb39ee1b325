"""NodeResourcesFit and NodeResourcesBalancedAllocation (k8s: plugins/noderesources; spec §3)."""
from __future__ import annotations

import pytest

from drasim.scheduler.framework import Code, CycleState
from drasim.scheduler.plugins.noderesources import (
    DEFAULT_MEMORY_REQUEST, BalancedAllocation, Fit, is_scalar_resource_name, non_zero_requests)
from plugin_builders import container, info, node, pod, run_scores

GPU = "example.com/gpu"
FPGA = "deviceclass.resource.kubernetes.io/fpga"
MAPPED = {GPU, FPGA}
Gi = 2**30


def fit(mapped=MAPPED, **kw):
    return Fit(lambda name: name in mapped, **kw)


def filter_once(plugin, p, ni):
    state = CycleState()
    plugin.pre_filter(state, p, [ni])
    return plugin.filter(state, p, ni)


U, R = Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE


@pytest.mark.parametrize(("requests", "allocatable", "existing", "want"), [
    pytest.param({"cpu": "1"}, {}, {}, None, id="fits"),
    pytest.param({"cpu": "3"}, {}, {"cpu": "2"}, (U, ("Insufficient cpu",)), id="cpu-used-up"),
    pytest.param({"cpu": "5"}, {}, {}, (R, ("Insufficient cpu",)), id="cpu-larger-than-node"),
    pytest.param({"cpu": "3", "memory": "7Gi"}, {}, {"cpu": "2", "memory": "2Gi"},
                 (U, ("Insufficient cpu", "Insufficient memory")), id="cpu-and-memory"),
    pytest.param({"ephemeral_storage": "200Gi"}, {}, {}, (R, ("Insufficient ephemeral-storage",)), id="ephemeral"),
    pytest.param({}, {"pods": "1"}, {"cpu": "1"}, (U, ("Too many pods",)), id="too-many-pods"),
    pytest.param({"cpu": "5"}, {"pods": "0"}, {}, (R, ("Too many pods", "Insufficient cpu")), id="pods-and-cpu"),
    pytest.param({GPU: "1"}, {GPU: "2"}, {}, None, id="device-plugin-fits"),
    pytest.param({GPU: "2"}, {GPU: "2"}, {GPU: "1"}, (U, (f"Insufficient {GPU}",)), id="device-plugin-used"),
    pytest.param({GPU: "3"}, {GPU: "2"}, {}, (R, (f"Insufficient {GPU}",)), id="device-plugin-too-small"),
    pytest.param({GPU: "1"}, {}, {}, None, id="dra-absent-delegated"),
    pytest.param({GPU: "1"}, {GPU: "0"}, {}, None, id="dra-zero-delegated"),
    pytest.param({FPGA: "2"}, {}, {}, None, id="dra-implicit-name-delegated"),
    pytest.param({"other.com/x": "1"}, {}, {}, (R, ("Insufficient other.com/x",)), id="unmapped-extended"),
    pytest.param({"hugepages-2Mi": "4Mi"}, {"hugepages-2Mi": "2Mi"}, {}, (R, ("Insufficient hugepages-2Mi",)),
                 id="hugepages"),
    pytest.param({"other.com/x": "0"}, {}, {}, None, id="zero-request-ignored"),
    pytest.param({"foo": "1"}, {}, {}, None, id="non-scalar-name-ignored"),
])
def test_filter(requests, allocatable, existing, want):
    """fitsRequest: request > allocatable - requested; DRA-mapped names without allocatable go to DRA (§3.1)."""
    ni = info(node(allocatable=allocatable), *([pod("old", [container(**existing)])] if existing else []))
    status = filter_once(fit(), pod(containers=[container(**requests)]), ni)
    if want is None:
        assert status is None
    else:
        assert (status.code, status.reasons) == want


def test_device_plugin_node_never_delegates():
    """§3.2: a node that advertises the name is a device-plugin node for it, even if DRA could serve it."""
    ni = info(node(allocatable={GPU: "1"}))
    assert filter_once(fit(), pod(containers=[container(**{GPU: "2"})]), ni).reasons == (f"Insufficient {GPU}",)


def test_class_mapping_asked_once_per_cycle():
    """The DeviceClass resolver is consulted in PreFilter, not per node."""
    calls = []
    pl = Fit(lambda name: calls.append(name) or True)
    p = pod(containers=[container(cpu="1", **{GPU: "1", "other.com/x": "1"})])
    state = CycleState()
    pl.pre_filter(state, p, [])
    for i in range(5):
        pl.filter(state, p, info(node(f"n{i}")))
    assert sorted(calls) == [GPU, "other.com/x"]


def test_ignored_resources():
    """ignoredResources / ignoredResourceGroups skip extended resources."""
    p = pod(containers=[container(**{"other.com/x": "1", "ignored.io/y": "1"})])
    pl = fit(ignored_resources=["other.com/x"], ignored_resource_groups=["ignored.io"])
    assert filter_once(pl, p, info(node())) is None


def test_filter_follows_node_updates():
    """Allocatable is re-read when the node object is replaced."""
    ni, p, pl = info(node()), pod(containers=[container(cpu="6")]), fit()
    assert filter_once(pl, p, ni).reasons == ("Insufficient cpu",)
    ni.node = node(allocatable={"cpu": "8"})
    assert filter_once(pl, p, ni) is None


@pytest.mark.parametrize(("name", "want"), [
    ("example.com/gpu", True), ("hugepages-1Gi", True), ("attachable-volumes-csi-x", True),
    (FPGA, True), ("cpu", False), ("foo", False), ("requests.example.com/gpu", False),
])
def test_is_scalar_resource_name(name, want):
    """Scalar resources: extended, hugepages, kubernetes.io-prefixed, attachable volumes."""
    assert is_scalar_resource_name(name) is want


@pytest.mark.parametrize(("p", "want"), [
    pytest.param(pod(containers=[container()]), (100, DEFAULT_MEMORY_REQUEST), id="defaults"),
    pytest.param(pod(containers=[container(cpu="0", memory="0")]), (0, 0), id="explicit-zero-kept"),
    pytest.param(pod(containers=[container(cpu="1"), container(memory="1Gi")]), (1100, DEFAULT_MEMORY_REQUEST + Gi),
                 id="per-container-defaults"),
    pytest.param(pod(containers=[container(cpu="1", memory="1Gi")], inits=[container(cpu="3", memory="1Gi")]),
                 (3000, Gi), id="init-max"),
    pytest.param(pod(containers=[container(cpu="1", memory="1Gi")],
                     inits=[container(cpu="1", memory="1Gi", sidecar=True), container(cpu="3", memory="1Gi")]),
                 (4000, 2 * Gi), id="sidecar-adds"),
    pytest.param(pod(containers=[container()], pod_requests={"cpu": "2"}), (2000, DEFAULT_MEMORY_REQUEST),
                 id="pod-level"),
    pytest.param(pod(containers=[container(cpu="1", memory="1Gi")], overhead={"cpu": "250m"}), (1250, Gi),
                 id="overhead"),
])
def test_non_zero_requests(p, want):
    """Missing cpu/memory requests count as 100m/200Mi for scoring (k8s NonMissingContainerRequests)."""
    assert non_zero_requests(p) == want


@pytest.mark.parametrize(("p", "existing", "want"), [
    pytest.param(pod(containers=[container(cpu="1", memory="2Gi")]), [], 75, id="quarter"),
    pytest.param(pod(containers=[container()]), [], 97, id="defaults-truncate"),
    pytest.param(pod(containers=[container(cpu="1", memory="2Gi")]),
                 [pod("old", [container(cpu="2", memory="4Gi")])], 25, id="with-existing"),
    pytest.param(pod(containers=[container(cpu="1", memory="2Gi")]),
                 [pod("be", [container()])], 72, id="existing-best-effort-counts-defaults"),
    pytest.param(pod(containers=[container(cpu="5", memory="2Gi")]), [], 37, id="over-capacity-scores-0"),
])
def test_fit_score_least_allocated(p, existing, want):
    """LeastAllocated: mean over cpu/memory of (alloc - requested) * 100 / alloc, non-zero defaults."""
    assert run_scores(fit(), p, [info(node(), *existing)]) == [want]


def test_fit_score_tracks_pods_added_and_removed():
    """NonZeroRequested follows the node's pods incrementally."""
    ni, pl, p = info(node()), fit(), pod(containers=[container(cpu="1", memory="2Gi")])
    assert run_scores(pl, p, [ni]) == [75]
    other = pod("o", [container(cpu="2", memory="4Gi")])
    ni.add_pod(other)
    assert run_scores(pl, p, [ni]) == [25]
    ni.remove_pod(other)
    assert run_scores(pl, p, [ni]) == [75]


@pytest.mark.parametrize(("p", "existing", "want"), [
    pytest.param(pod(containers=[container(cpu="1", memory="1Gi")]), [], [93], id="std-of-two"),
    pytest.param(pod(containers=[container(cpu="2", memory="4Gi")]), [], [100], id="balanced"),
    pytest.param(pod(containers=[container(cpu="8", memory="1Gi")]), [], [56], id="fraction-capped-at-1"),
    pytest.param(pod(containers=[container(cpu="1", memory="1Gi")]), [pod("be", [container()])], [93],
                 id="actual-requests-no-defaults"),
    pytest.param(pod(containers=[container()]), [], None, id="best-effort-skipped"),
])
def test_balanced_allocation(p, existing, want):
    """score = (1 - |cpuFraction - memFraction| / 2) * 100, truncated; best-effort pods skip."""
    assert run_scores(BalancedAllocation(), p, [info(node(), *existing)]) == want
