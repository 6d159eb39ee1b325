"""validation/memo.py: remembering clean validation of repeated sub-objects changes no result.

Objects of a fleet's shapes are mutated at random (any field replaced, removed or added, with
values of any type), and validated in a sequence that first warms the memo with the valid
originals; every error list must be exactly what validation gives with the memo off. A memo key
that missed an input the result depends on (a field, the path, the ephemeral-containers rule's
status, a feature gate) lets a mutated object hit its valid original's entry and lose errors.
"""
import copy

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drasim.api.validation import memo, validate_object

POD = {
    "apiVersion": "v1", "kind": "Pod",
    "metadata": {"name": "p-1", "namespace": "fleet", "uid": "5f285bc1-7373-43c2-b93c-3ebb5a3f11e7",
                 "labels": {"app": "x"}},
    "spec": {
        "containers": [{"name": "inference", "image": "registry.example.com/inference:1.0",
                        "resources": {"limits": {"example.com/gpu": 1, "cpu": "1"}, "requests": {"example.com/gpu": 1},
                                      "claims": [{"name": "gpu"}]}}],
        "initContainers": [{"name": "init", "image": "busybox"}],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}],
        "restartPolicy": "Always", "schedulerName": "default-scheduler", "priority": 0,
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}}},
        "tolerations": [{"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute",
                         "tolerationSeconds": 300}],
        "nodeName": "gpu-node-1",
    },
    "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
}
CLAIM = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
    "metadata": {"name": "c-1", "namespace": "fleet", "uid": "e3d1fd74-6d07-46df-9a01-c7975317bab4"},
    "spec": {"devices": {
        "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount",
                                                 "count": 1, "selectors": [{"cel": {"expression": "device.driver == 'x'"}}]}},
                     {"name": "alt", "firstAvailable": [{"name": "a", "deviceClassName": "gpu.example.com"}]}],
        "constraints": [{"requests": ["gpu", "alt"], "matchAttribute": "gpu.example.com/model"}],
        "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"a": 1}}}]}},
}
SLICE = {
    "apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
    "metadata": {"name": "gpu-node-0-gpu.example.com", "uid": "f7c1bd87-4da5-4709-9471-3d60c8a70639"},
    "spec": {"driver": "gpu.example.com", "nodeName": "gpu-node-0",
             "pool": {"name": "gpu-node-0", "generation": 1, "resourceSliceCount": 1},
             "devices": [{"name": f"gpu-{i}", "attributes": {"model": {"string": "H100"},
                                                           "resource.kubernetes.io/numaNode": {"int": i % 2}},
                          "capacity": {"memory": {"value": "80Gi"}}} for i in range(3)]},
}
NODE = {
    "apiVersion": "v1", "kind": "Node", "metadata": {"name": "gpu-node-0", "labels": {"zone": "a"}},
    "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
    "status": {"capacity": {"cpu": "64", "memory": "512Gi", "example.com/gpu": "8", "pods": "110"},
               "allocatable": {"cpu": "63", "memory": "500Gi", "example.com/gpu": "8", "pods": 110}},
}
FIELDS = ["capacity", "allocatable", "cpu", "memory", "pods", "example.com/gpu", "name", "image", "nodeName", "ephemeralContainers", "containers", "resourceClaims", "claims", "limits",
          "operator", "effect", "key", "values", "count", "allocationMode", "requests", "exactly", "firstAvailable",
          "deviceClassName", "selectors", "expression", "matchAttribute", "driver", "conditions", "startTime",
          "tolerationSeconds", "affinity", "tolerations", "devices", "config", "opaque", "parameters", "adminAccess",
          "attributes", "capacity", "string", "int", "bool", "version", "value", "taints", "consumesCounters",
          "allowMultipleAllocations", "bindsToNode", "nodeSelector", "allNodes", "perDeviceNodeSelection"]
values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([1.5, 1e30, 2**40]),
              st.sampled_from(["", "x", "gpu", "alt", "a", "Exists", "Equal", "In", "NoExecute", "All", "UPPER",
                               "-x", "a/b", "example.com/gpu", "cpu", "1", "1.5", "nope!", "a" * 70,
                               "device.driver == 1", "gpu-template", "2026-01-01T00:00:00Z", "-1", "1Gi", "1e3", "0.5m",
                               'device.attributes["gpu.example.com"].roots.includes("c")', "gpu-0", "80Gi",
                               "1.0.0", "H100", "v1"]),
              st.text(max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(FIELDS), inner, max_size=3)),
    max_leaves=8)


def places(value, out=None):
    """(container, key) of every value inside."""
    out = [] if out is None else out
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        out.append((value, k))
        places(v, out)
    return out


@st.composite
def mutated(draw, base):
    obj = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        spec = obj.get("spec")
        spots = [(c, k) for c, k in places(obj) if not (c is obj and k in ("apiVersion", "kind"))]
        spots += [(obj, "spec")] + ([(spec, "nodeName")] if isinstance(spec, dict) else [])
        container, key = draw(st.sampled_from(spots))
        how = draw(st.sampled_from(["replace", "remove", "add"]))
        if how == "remove" and isinstance(container, dict):
            container.pop(key, None)
        elif how == "add" and isinstance(container, dict) and isinstance(container.get(key), dict):
            container[key][draw(st.sampled_from(FIELDS))] = draw(values)
        else:
            container[key] = draw(values)
    return obj


def errors(obj, old=None, gates=None) -> list[str]:
    return [str(e) for e in validate_object(copy.deepcopy(obj), old, gates)]


def with_memo(enabled: bool, fn):
    saved = memo.ENABLED
    memo.ENABLED = enabled
    memo.clear()
    try:
        return fn()
    finally:
        memo.ENABLED = saved
        memo.clear()


@settings(max_examples=600, deadline=None)
@given(st.data(), st.sampled_from([POD, CLAIM, SLICE, NODE]), st.booleans())
def test_mutated_objects_get_the_same_errors_with_the_memo_on_and_off(data, base, list_attributes):
    others = [data.draw(mutated(base)) for _ in range(3)]
    gates = {"DRAListTypeAttributes": list_attributes}
    # Each mutated object right after its valid original (which leaves a clean entry behind),
    # then again: a hit on anything that differs would drop errors.
    sequence = [(base, None)] + [(o, g) for o in others for g in (None, gates)] + [(base, gates)] + [(o, None) for o in others]
    on = with_memo(True, lambda: [errors(o, gates=g) for o, g in sequence])
    off = with_memo(False, lambda: [errors(o, gates=g) for o, g in sequence])
    assert on == off


@pytest.mark.parametrize("base", [POD, CLAIM, SLICE, NODE], ids=["pod", "claim", "slice", "node"])
def test_the_memo_is_used_and_forgets_nothing_that_matters(base):
    """Not vacuous: a valid original leaves clean entries that an equal object hits; a pod whose
    only difference is its status (ephemeral containers are allowed for a live pod only) or a
    different nodeName does not take the entries' answer for what differs."""
    def run():
        first = errors(base)
        entries = len(memo._clean)
        return first, entries, errors(base), len(memo._clean)
    first, entries, again, after = with_memo(True, run)
    assert first == again == [] and entries >= 1 and after == entries
    if base is POD:
        pod = copy.deepcopy(POD)
        pod["spec"]["ephemeralContainers"] = [{"name": "debug", "image": "busybox"}]
        not_live = copy.deepcopy(pod)
        del not_live["status"]
        bad_node = copy.deepcopy(POD)
        bad_node["spec"]["nodeName"] = "Bad_Node"
        got = with_memo(True, lambda: [errors(pod), errors(not_live), errors(bad_node)])
        assert got[0] == [] and got[1] == ["spec.ephemeralContainers: Forbidden: cannot be set on create"]
        assert got[2] and all("spec.nodeName" in e for e in got[2])


def test_a_feature_gate_the_checks_read_is_part_of_the_key():
    """A selector valid only with DRAListTypeAttributes on: a clean entry made with the gate on
    must not answer for the same claim with the gate off."""
    claim = copy.deepcopy(CLAIM)
    claim["spec"]["devices"]["requests"][0]["exactly"]["selectors"] = [
        {"cel": {"expression": 'device.attributes["gpu.example.com"].roots.includes("c")'}}]
    on = {"DRAListTypeAttributes": True}
    got = with_memo(True, lambda: [errors(claim, gates=on), errors(claim)])
    assert got == with_memo(False, lambda: [errors(claim, gates=on), errors(claim)])
    assert got[0] == [] and got[1]


def test_per_device_node_selection_is_part_of_a_device_key():
    """The same devices under perDeviceNodeSelection need a node selection each: entries left
    by the plain slice must not answer for them."""
    per_device = copy.deepcopy(SLICE)
    del per_device["spec"]["nodeName"]
    per_device["spec"]["perDeviceNodeSelection"] = True
    got = with_memo(True, lambda: [errors(SLICE), errors(per_device)])
    assert got == with_memo(False, lambda: [errors(SLICE), errors(per_device)])
    assert got[0] == [] and any("spec.devices[0]" in e for e in got[1])

