"""KEP-5517 devices[].nodeAllocatableResources through the API server, off vs on.

Expected results from v1.37's source: off, resourceslice strategy dropDisabledFields removes the field
(its v1.37 name; nodeAllocatableResourceMappings is tombstoned in types.go); on, validation.go
validateNodeAllocatableResources checks it.
"""
import pytest

from drasim import featuregates
from drasim.controlplane import ControlPlane, options_for
from drasim.errors import InvalidObject

OFF = featuregates.DEFAULTS
ON = featuregates.from_flag("DRANodeAllocatableResources=true")
P = "spec.devices[0].nodeAllocatableResources"


def slice_with(mappings, capacity=None) -> dict:
    device = {"name": "cpu-0", "nodeAllocatableResources": mappings}
    if capacity:
        device["capacity"] = capacity
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": "cpu.example.com", "nodeName": "n1",
                     "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1}, "devices": [device]}}


def test_off_the_field_is_dropped():
    cp = ControlPlane(options_for(OFF))
    cp.create(slice_with({"cpu": {"mapping": {"deviceMultiplier": "8"}}}))
    assert "nodeAllocatableResources" not in cp.store.get("ResourceSlice", None, "s")["spec"]["devices"][0]


def test_on_a_valid_mapping_is_kept():
    cp = ControlPlane(options_for(ON))
    mappings = {"cpu": {"mapping": {"capacityKey": "cores", "capacityMultiplier": "2"}},
                "memory": {"overhead": {"perPod": "64Mi", "perContainer": "0"}},
                "hugepages-2Mi": {"mapping": {"deviceMultiplier": "1"}}}
    cp.create(slice_with(mappings, {"cores": {"value": "16"}}))
    assert cp.store.get("ResourceSlice", None, "s")["spec"]["devices"][0]["nodeAllocatableResources"] == mappings


@pytest.mark.parametrize("mappings, message", [
    ({"ephemeral-storage": {"mapping": {"deviceMultiplier": "1"}}},
     f'{P}[ephemeral-storage]: Invalid value: "ephemeral-storage": must be a node allocatable resource name'),
    ({"cpu": {}}, f"{P}[cpu]: Required value: at least one of mapping or overhead must be set"),
    ({"cpu": {"mapping": {"capacityKey": "threads", "capacityMultiplier": "1"}}},
     f'{P}[cpu].mapping.capacityKey: Not found: "threads"'),
    ({"cpu": {"mapping": {"capacityKey": "cores"}}},
     f"{P}[cpu].mapping.capacityMultiplier: Required value: capacityMultiplier is required when capacityKey is set"),
    ({"cpu": {"mapping": {"capacityMultiplier": "2"}}},
     f"{P}[cpu].mapping.capacityKey: Required value: capacityKey is required when capacityMultiplier is set"),
    ({"cpu": {"mapping": {"deviceMultiplier": "0"}}}, f'{P}[cpu].mapping.deviceMultiplier: Invalid value: "0": must be positive'),
    ({"memory": {"overhead": {}}}, f'{P}[memory].overhead: Invalid value: "": at least one of perPod or perContainer must be set'),
    ({"memory": {"overhead": {"perPod": "-1Mi"}}}, f'{P}[memory].overhead.perPod: Invalid value: "-1Mi": must be non-negative'),
])
def test_on_invalid_mappings_are_refused(mappings, message):
    cp = ControlPlane(options_for(ON))
    with pytest.raises(InvalidObject) as err:
        cp.create(slice_with(mappings, {"cores": {"value": "16"}}))
    assert message in str(err.value)
    assert cp.store.get("ResourceSlice", None, "s") is None
