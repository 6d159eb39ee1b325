"""Strict decoding of resource.k8s.io/v1 kinds (types.go json tags; sigs.k8s.io/json paths)."""
import pytest

from drasim.api.schema import KINDS, unknown_fields


@pytest.mark.parametrize(("kind", "obj", "want"), [
    pytest.param("DeviceTaintRule", {"spec": {"deviceSelector": {"deviceClassName": "gpu", "driver": "d"}}},
                 ["spec.deviceSelector.deviceClassName"], id="tombstoned-deviceClassName"),
    pytest.param("DeviceTaintRule", {"spec": {"deviceSelector": {"selectors": []}, "taint": {"key": "k", "effect": "None"}}},
                 ["spec.deviceSelector.selectors"], id="tombstoned-selectors"),
    pytest.param("ResourceSlice", {"spec": {"devices": [{"name": "a"}, {"name": "b", "basic": {}}]}},
                 ["spec.devices[1].basic"], id="v1beta1-basic-in-list"),
    pytest.param("ResourceSlice", {"spec": {"devices": [{"attributes": {"x": {"int": 1, "value": 2}}}]}},
                 ["spec.devices[0].attributes.x.value"], id="map-key-joined-with-dot"),
    pytest.param("ResourceClaim", {"spec": {"devices": {"requests": [{"name": "r", "deviceClassName": "gpu"}]}}},
                 ["spec.devices.requests[0].deviceClassName"], id="v1beta1-flat-request"),
    pytest.param("DeviceClass", {"zeta": 1, "alpha": 2, "spec": {"suitableNodes": {}}},
                 ["alpha", "spec.suitableNodes", "zeta"], id="sorted-like-kubectl-json"),
    pytest.param("ResourceClaimTemplate", {"spec": {"metadata": {"labels": {"x": "y"}, "bogus": 1}, "spec": {"devices": {}}}},
                 ["spec.metadata.bogus"], id="template-metadata"),
    pytest.param("ResourceClaim", {"status": {"allocation": {"devices": {"results": [{"request": "r", "extra": 1}]}}}},
                 ["status.allocation.devices.results[0].extra"], id="claim-status"),
    pytest.param("DeviceTaintRule", {"status": {"conditions": [{"type": "EvictionInProgress", "status": "True", "x": 1}]}},
                 ["status.conditions[0].x"], id="rule-status"),
])
def test_unknown_fields(kind, obj, want):
    """Unknown names are reported with their strict-decoding path, in sorted key order."""
    assert unknown_fields(kind, obj) == want


@pytest.mark.parametrize(("kind", "obj"), [
    pytest.param("DeviceClass", {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
                                 "metadata": {"name": "gpu", "labels": {"a": "b"}, "annotations": {"x/y": "z"}},
                                 "spec": {"extendedResourceName": "example.com/gpu",
                                          "selectors": [{"cel": {"expression": "true"}}],
                                          "config": [{"opaque": {"driver": "d", "parameters": {"anything": {"goes": 1}}}}]}},
                 id="class"),
    pytest.param("ResourceSlice", {"spec": {"driver": "d", "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                                            "perDeviceNodeSelection": True, "sharedCounters": [{"name": "s", "counters": {"c": {"value": "1"}}}],
                                            "devices": [{"name": "g", "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                                                {"key": "metadata.name", "operator": "In", "values": ["n"]}]}]},
                                                "consumesCounters": [{"counterSet": "s", "counters": {"c": {"value": "1"}}}],
                                                "taints": [{"key": "k", "value": "v", "effect": "NoSchedule", "timeAdded": "t"}],
                                                "bindingConditions": ["a"], "bindingFailureConditions": ["b"], "bindsToNode": True,
                                                "allowMultipleAllocations": True,
                                                "capacity": {"m": {"value": "1", "requestPolicy": {"default": "1", "validValues": ["1"],
                                                                                                    "validRange": {"min": "1", "max": "2", "step": "1"}}}}}]}},
                 id="slice"),
    pytest.param("ResourceClaim", {"spec": {"devices": {
        "requests": [{"name": "r", "exactly": {"deviceClassName": "c", "selectors": [], "allocationMode": "All", "count": 0,
                                               "adminAccess": False, "tolerations": [{"key": "k", "operator": "Exists", "value": "",
                                                                                      "effect": "NoExecute", "tolerationSeconds": 5}],
                                               "capacity": {"requests": {"m": "1"}}}},
                     {"name": "s", "firstAvailable": [{"name": "a", "deviceClassName": "c", "count": 1, "capacity": {"requests": {}}}]}],
        "constraints": [{"requests": ["r"], "matchAttribute": "d/x", "distinctAttribute": "d/y"}],
        "config": [{"requests": ["r"], "opaque": {"driver": "d", "parameters": {}}}]}}}, id="claim"),
    pytest.param("DeviceTaintRule", {"spec": {"deviceSelector": {"driver": "d", "pool": "p", "device": "g"},
                                              "taint": {"key": "k", "effect": "None"}}}, id="rule"),
])
def test_known_fields_pass(kind, obj):
    """Every v1 field drasim reads is known."""
    assert unknown_fields(kind, obj) == []


@pytest.mark.parametrize(("kind", "obj", "want"), [
    pytest.param("Pod", {"spec": {"containers": [{"name": "c", "resources": {"claims": [{"name": "g", "requst": "r"}]}}]}},
                 ["spec.containers[0].resources.claims[0].requst"], id="pod-container-claim"),
    pytest.param("Pod", {"status": {"containerStatuses": [{"name": "c", "sate": {}}], "phase": "Running"}},
                 ["status.containerStatuses[0].sate"], id="pod-status"),
    pytest.param("Pod", {"spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In", "valeus": ["v"]}]}]}}}}},
                 ["spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]"
                  ".matchExpressions[0].valeus"], id="pod-affinity"),
    pytest.param("Node", {"status": {"capacity": {"cpu": "1"}, "nodeInfo": {"kubeletVersion": "v1", "os": "linux"}}},
                 ["status.nodeInfo.os"], id="node-status"),
    pytest.param("Namespace", {"spec": {"finalizers": ["kubernetes"], "x": 1}}, ["spec.x"], id="namespace-spec"),
    pytest.param("ResourceQuota", {"spec": {"hard": {"pods": "1"}, "scopeSelector": {"matchExpressions": [
        {"scopeName": "PriorityClass", "operator": "In", "values": ["a"], "y": 1}]}}},
                 ["spec.scopeSelector.matchExpressions[0].y"], id="quota-scope"),
    pytest.param("Deployment", {"spec": {"template": {"spec": {"containers": [{"nme": "c"}]}}}},
                 ["spec.template.spec.containers[0].nme"], id="deployment-template"),
    pytest.param("StatefulSet", {"spec": {"volumeClaimTemplates": [{"spec": {"resources": {"requests": {}, "x": 1}}}]}},
                 ["spec.volumeClaimTemplates[0].spec.resources.x"], id="statefulset-pvc"),
])
def test_core_and_workload_kinds_are_checked_at_every_depth(kind, obj, want):
    """Core and workload kinds: unknown fields are found in spec and status at any depth."""
    assert unknown_fields(kind, obj) == want


def test_unknown_kinds_not_checked():
    assert unknown_fields("Unknown", {"nonsense": True}) == []


def test_unknown_fields_alone_ignore_wrong_types():
    """unknown_fields reports names only; a value of the wrong type is the decoder's other error."""
    assert unknown_fields("ResourceSlice", {"spec": {"devices": {"x": 1}, "pool": [1]}}) == []
    assert unknown_fields("ResourceSlice", "not an object") == []


def test_every_input_kind_has_a_schema():
    """Every kind a manifest may hold is decoded with a typed schema, and so are the workload kinds."""
    from drasim.api import kinds
    from drasim.api.decode import kind_type

    for kind in kinds.INPUT_KINDS:
        assert kind.kind in KINDS and kind_type(kind.kind) is not None, kind.kind
    assert {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"} <= KINDS
