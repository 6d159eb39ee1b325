"""ResourceSlice validation (VALID; allocator.md §2-§3.8, device-taints.md §2.3-2.4)."""
import copy

import pytest

from drasim.api.validation import validate_object

ONE_OF = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
PER_DEVICE = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` "
              "is set to true in the ResourceSlice spec")


def slice_(*devices, name="s", **spec):
    body = {"driver": "gpu.example.com", "pool": {"name": "node-1", "generation": 0, "resourceSliceCount": 1}}
    if not any(k in spec for k in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")):
        body["nodeName"] = "node-1"
    body.update(spec)
    if devices:
        body["devices"] = list(devices)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": body}


def device(name="gpu-0", **kw):
    return {"name": name, **kw}


def shared(**policy):
    return device(allowMultipleAllocations=True, capacity={"mem": {"value": "8", "requestPolicy": policy}})


def messages(obj, old=None):
    return [str(e) for e in validate_object(obj, old)]


@pytest.mark.parametrize("obj", [
    pytest.param(slice_(device()), id="one-device"),
    pytest.param(slice_(device(attributes={"model": {"string": "a100"}, "gpu.example.com/v": {"version": "1.2.3-rc.1+b5"},
                                           "numa": {"int": 0}, "ok": {"bool": True}},
                               capacity={"memory": {"value": "80Gi"}})), id="attributes"),
    pytest.param(slice_(allNodes=True, nodeName=None), id="all-nodes"),
    pytest.param(slice_(nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}),
                 id="node-selector"),
    pytest.param(slice_(device(allNodes=True), perDeviceNodeSelection=True), id="per-device"),
    pytest.param(slice_(sharedCounters=[{"name": "set", "counters": {"mem": {"value": "8Gi"}}}]), id="counters"),
    pytest.param(slice_(shared(default="2", validRange={"min": "2", "max": "8", "step": "2"})), id="range-policy"),
    pytest.param(slice_(shared(default="4", validValues=["2", "4", "8"])), id="values-policy"),
    pytest.param(slice_(device(bindingConditions=["ready"], bindingFailureConditions=["failed"])), id="binding"),
    pytest.param(slice_(*[device(f"d{i}") for i in range(128)]), id="128-devices"),
])
def test_valid(obj):
    """Well-formed slices pass."""
    assert messages(obj) == []


@pytest.mark.parametrize(("obj", "want"), [
    pytest.param(slice_(nodeName=None), [f"spec: Required value: {ONE_OF}"], id="no-node-selection"),
    pytest.param(slice_(nodeName="node-1", allNodes=True),
                 [f'spec: Invalid value: "{{`nodeName`, `allNodes`}}": {ONE_OF}, but multiple fields are set'], id="two-set"),
    pytest.param(slice_(nodeName=None, allNodes=False),
                 ["spec.allNodes: Invalid value: false: must be either unset or set to true", f"spec: Required value: {ONE_OF}"],
                 id="all-nodes-false"),
    pytest.param(slice_(nodeName=""),
                 ['spec.nodeName: Invalid value: "": must be either unset or set to a non-empty string',
                  f"spec: Required value: {ONE_OF}"], id="node-name-empty"),
    pytest.param(slice_(nodeName=None, nodeSelector={"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "a", "operator": "Exists"}]}, {"matchExpressions": [{"key": "b", "operator": "Exists"}]}]}),
        ['spec.nodeSelector.nodeSelectorTerms: Invalid value: [{"matchExpressions":[{"key":"a","operator":"Exists"}]},'
         '{"matchExpressions":[{"key":"b","operator":"Exists"}]}]: must have exactly one node selector term'], id="two-terms"),
    pytest.param(slice_(device(), sharedCounters=[{"name": "s", "counters": {"c": {"value": "1"}}}]),
                 ['spec: Invalid value: "": only one of `sharedCounters` or `devices` is allowed'], id="counters-and-devices"),
    pytest.param(slice_(pool={"name": "p", "resourceSliceCount": 0, "generation": -1}),
                 ["spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero",
                  "spec.pool.generation: Invalid value: -1: must be greater than or equal to zero"], id="pool-numbers"),
    pytest.param(slice_(*[device(f"d{i}") for i in range(129)]),
                 ["spec.devices: Too many: 129: must have at most 128 items"], id="129-devices"),
    pytest.param(slice_(*[device(f"d{i}") for i in range(64)], device("t", taints=[{"key": "k", "effect": "NoSchedule"}])),
                 ["spec.devices: Too many: 65: must have at most 64 items"], id="65-devices-with-taints"),
    pytest.param(slice_(device(), device()), ['spec.devices[1]: Duplicate value: "gpu-0"'], id="duplicate-device"),
    pytest.param(slice_(device(taints=[{"key": "k", "effect": "NoSchedule"}] * 17)),
                 ["spec.devices[0].taints: Too many: 17: must have at most 16 items"], id="17-taints"),
    pytest.param(slice_(device(taints=[{"key": "k", "effect": "Bad"}])),
                 ['spec.devices[0].taints[0].effect: Unsupported value: "Bad": supported values: "NoExecute", "NoSchedule", "None"'],
                 id="taint-effect"),
    pytest.param(slice_(device(attributes={"a": {}})),
                 ['spec.devices[0].attributes[a]: Invalid value: "": exactly one value must be specified'], id="attr-none"),
    pytest.param(slice_(device(attributes={"a": {"int": 1, "bool": True}})),
                 ['spec.devices[0].attributes[a]: Invalid value: {"int":1,"bool":true}: exactly one value must be specified'],
                 id="attr-two"),
    pytest.param(slice_(device(attributes={"v": {"version": "v1.0.0"}})),
                 ['spec.devices[0].attributes[v].version: Invalid value: "v1.0.0": must be a string compatible with semver.org spec 2.0.0'],
                 id="semver"),
    pytest.param(slice_(device(attributes={"s": {"string": "x" * 65}})),
                 ["spec.devices[0].attributes[s].string: Too long: may not be more than 64 bytes"], id="string-too-long"),
    pytest.param(slice_(device(attributes={f"a{i}": {"int": i} for i in range(33)})),
                 ["spec.devices[0]: Invalid value: 33: the total number of attributes and capacities must not exceed 32"],
                 id="33-attributes"),
    pytest.param(slice_(device(attributes={"a/b/c": {"int": 1}})),
                 ['spec.devices[0].attributes: Invalid value: "a/b/c": must not contain more than one slash'], id="attr-key"),
    pytest.param(slice_(device(capacity={"mem": {"value": "8", "requestPolicy": {"default": "1"}}})),
                 ["spec.devices[0].capacity[mem].requestPolicy: Forbidden: allowMultipleAllocations must be true"],
                 id="policy-needs-multi"),
    pytest.param(slice_(shared(default="2", validValues=["2"], validRange={"min": "1"})),
                 ['spec.devices[0].capacity[mem].requestPolicy: Forbidden: exactly one policy can be specified, cannot '
                  'specify "validValues" and "validRange" at the same time'], id="policy-both"),
    pytest.param(slice_(shared(validValues=["2"])),
                 ["spec.devices[0].capacity[mem].requestPolicy.default: Required value: required when validValues is defined"],
                 id="values-need-default"),
    pytest.param(slice_(shared(default="3", validValues=["4", "2", "16"])),
                 ['spec.devices[0].capacity[mem].requestPolicy.validValues[1]: Invalid value: "2": values must be sorted in ascending order',
                  'spec.devices[0].capacity[mem].requestPolicy.validValues[2]: Invalid value: "16": option is larger than capacity value: 8',
                  'spec.devices[0].capacity[mem].requestPolicy.validValues: Invalid value: "3": default value is not valid according to the requestPolicy'],
                 id="values-rules"),
    pytest.param(slice_(shared(default="2", validRange={"max": "4"})),
                 ["spec.devices[0].capacity[mem].requestPolicy.validRange.min: Required value: required when validRange is defined"],
                 id="range-needs-min"),
    pytest.param(slice_(shared(default="3", validRange={"min": "2", "max": "8", "step": "2"})),
                 ['spec.devices[0].capacity[mem].requestPolicy.validRange.step: Invalid value: "3": value is not a multiple '
                  "of a given step (2) from (2)"], id="range-default-off-step"),
    pytest.param(slice_(shared(default="2", validRange={"min": "2", "step": "0"})),
                 ['spec.devices[0].capacity[mem].requestPolicy.validRange.step: Invalid value: "0": must be greater than zero'],
                 id="range-zero-step"),
    pytest.param(slice_(shared(default="1", validRange={"min": "2", "max": "9"})),
                 ['spec.devices[0].capacity[mem].requestPolicy.validRange.default: Invalid value: "1": default is less than min: 2',
                  'spec.devices[0].capacity[mem].requestPolicy.validRange.max: Invalid value: "9": max is larger than capacity value: 8'],
                 id="range-bounds"),
    pytest.param(slice_(device(nodeName="node-1")),
                 ["spec.devices[0]: Invalid value: null: `nodeName`, `nodeSelector` and `allNodes` can only be set if "
                  "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"], id="per-device-without-flag"),
    pytest.param(slice_(device(), perDeviceNodeSelection=True), [f"spec.devices[0]: Required value: {PER_DEVICE}"],
                 id="per-device-missing"),
    pytest.param(slice_(device(consumesCounters=[{"counterSet": "a", "counters": {"c": {"value": "1"}}}] * 3)),
                 ["spec.devices[0].consumesCounters: Too many: 3: must have at most 2 items"], id="3-consumptions"),
    pytest.param(slice_(sharedCounters=[{"name": "", "counters": {}}]),
                 ["spec.sharedCounters[0].name: Required value", "spec.sharedCounters[0].counters: Required value"],
                 id="counter-set-empty"),
    pytest.param(slice_(device(bindingConditions=["ready"])),
                 ["spec.devices[0].bindingFailureConditions: Invalid value: null: bindingFailureConditions are required "
                  "to use bindingConditions"], id="binding-needs-failure"),
    pytest.param(slice_(driver="", pool={"name": "", "resourceSliceCount": 1}),
                 ["spec.driver: Required value",
                  "spec.driver: Invalid value: \"\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                  "characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', "
                  "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
                  "spec.pool.name: Required value"], id="driver-pool-required"),
])
def test_invalid(obj, want):
    """Each bad slice yields exactly the API server's messages."""
    assert messages(obj) == want


def test_update_immutable_fields_and_unchanged_taints():
    """Pool name, driver and nodeName are immutable; unchanged taint lists are not re-validated."""
    old = slice_(device(taints=[{"key": "k", "effect": "Legacy"}]))
    same = copy.deepcopy(old)
    same["spec"]["pool"]["generation"] = 1
    assert messages(same, old) == []
    moved = copy.deepcopy(old)
    moved["spec"]["nodeName"] = "node-2"
    assert 'spec.nodeName: Invalid value: "node-2": field is immutable' in messages(moved, old)
