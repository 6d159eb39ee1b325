"""Whole-cluster behaviour of each modelled DRA gate, off and on (v1.37 defaults otherwise).

Expected outcomes are read from the source, not from drasim: the ResourceSlice strategy's
dropDisabledFields (pkg/registry/resource/resourceslice/strategy.go), the scheduler's slice tracker
without rules when DRADeviceTaintRules is off (resourceslicetracker.Options.EnableDeviceTaintRules),
and kube-controller-manager running no device-taint-eviction controller without DRADeviceTaints.
"""
import pytest

from drasim import featuregates
from drasim.controlplane import ControlPlane, options_for

DRIVER = "gpu.example.com"
POOL = {"name": "n1", "generation": 1, "resourceSliceCount": 1}


def plane(flag: str = "") -> ControlPlane:
    cp = ControlPlane(options_for(featuregates.from_flag(flag)))
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]}})
    return cp


def slice_(cp, name, devices, pool=POOL, **spec):
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
               "spec": {"driver": DRIVER, "nodeName": "n1", "pool": pool, **({"devices": devices} if devices else {}),
                        **spec}})


def claim_pods(cp, *names):
    for name in names:
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                   "metadata": {"name": name, "namespace": "default"},
                   "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu"}}]}}})
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}],
                            "resourceClaims": [{"name": "x", "resourceClaimName": name}]}})
    cp.settle()


def node_of(cp, name):
    pod = cp.store.get("Pod", "default", name)
    return None if pod is None else pod["spec"].get("nodeName")


TAINTS_OFF = "DRADeviceTaints=false,DRADeviceTaintRules=false"


@pytest.mark.parametrize("flag, placed", [("", None), (TAINTS_OFF, "n1")])
def test_device_taints_gate(flag, placed):
    cp = plane(flag)
    slice_(cp, "s", [{"name": "gpu-0", "taints": [{"key": "broken", "effect": "NoSchedule"}]}])
    claim_pods(cp, "a")
    assert node_of(cp, "a") == placed
    stored = cp.store.get("ResourceSlice", None, "s")["spec"]["devices"][0]
    assert ("taints" in stored) == (flag == "")


def _rule(effect="NoExecute"):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": "maintenance"},
            "spec": {"deviceSelector": {"driver": DRIVER, "pool": "n1", "device": "gpu-0"},
                     "taint": {"key": "maintenance", "effect": effect}}}


@pytest.mark.parametrize("flag, evicted", [("", True), ("DRADeviceTaintRules=false", False), (TAINTS_OFF, False)])
def test_device_taint_rules_gate_evicts_only_when_on(flag, evicted):
    cp = plane(flag)
    slice_(cp, "s", [{"name": "gpu-0"}])
    claim_pods(cp, "a")
    assert node_of(cp, "a") == "n1"
    cp.create(_rule())
    cp.settle()
    assert (cp.store.get("Pod", "default", "a") is None) == evicted


@pytest.mark.parametrize("flag, placed", [("", None), ("DRADeviceTaintRules=false", "n1")])
def test_device_taint_rules_gate_in_the_scheduler(flag, placed):
    cp = plane(flag)
    slice_(cp, "s", [{"name": "gpu-0"}])
    cp.create(_rule("NoSchedule"))
    claim_pods(cp, "a")
    assert node_of(cp, "a") == placed


def _partitions(cp):
    pool = {"name": "n1", "generation": 1, "resourceSliceCount": 2}
    slice_(cp, "counters", [], pool=pool, sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}])
    slice_(cp, "parts", [{"name": f"half-{i}", "consumesCounters": [
        {"counterSet": "gpu-0", "counters": {"mem": {"value": "8"}}}]} for i in range(2)], pool=pool)


@pytest.mark.parametrize("flag, placed", [("", 1), ("DRAPartitionableDevices=false", 2)])
def test_partitionable_devices_gate(flag, placed):
    """Two partitions that each take the whole counter set: one fits with the gate on; with it off the
    API server drops sharedCounters and consumesCounters, and both are plain devices."""
    cp = plane(flag)
    _partitions(cp)
    claim_pods(cp, "a", "b")
    assert sum(node_of(cp, n) == "n1" for n in ("a", "b")) == placed


@pytest.mark.parametrize("flag, placed", [("", 2), ("DRAConsumableCapacity=false", 1)])
def test_consumable_capacity_gate(flag, placed):
    """allowMultipleAllocations lets two claims share the one device; dropped with the gate off."""
    cp = plane(flag)
    slice_(cp, "s", [{"name": "gpu-0", "allowMultipleAllocations": True}])
    claim_pods(cp, "a", "b")
    assert sum(node_of(cp, n) == "n1" for n in ("a", "b")) == placed


def test_an_update_keeps_fields_the_old_object_already_used():
    """Version skew (dropDisabled*Fields check the old object): a slice written while the gate was on
    keeps its taints through an update made with the gate off."""
    from drasim.disabledfields import drop_disabled_fields

    off = featuregates.from_flag(TAINTS_OFF)
    old = {"spec": {"devices": [{"name": "d", "taints": [{"key": "k", "effect": "NoSchedule"}]}]}}
    new = {"spec": {"devices": [{"name": "d", "taints": [{"key": "k2", "effect": "NoSchedule"}]}]}}
    drop_disabled_fields("ResourceSlice", new, old, off)
    assert new["spec"]["devices"][0]["taints"][0]["key"] == "k2"
    fresh = {"spec": {"devices": [{"name": "d", "taints": [{"key": "k", "effect": "NoSchedule"}]}]}}
    drop_disabled_fields("ResourceSlice", fresh, None, off)
    assert "taints" not in fresh["spec"]["devices"][0]


@pytest.mark.parametrize("flag, valid", [("", False), ("DRAListTypeAttributes=true", True)])
def test_list_attributes_gate(flag, valid):
    """With the alpha gate off a list value is dropped, which leaves the attribute with no value:
    validation then refuses the slice, as kube-apiserver would."""
    from drasim.errors import InputError

    cp = plane(flag)
    devices = [{"name": "gpu-0", "attributes": {"links": {"strings": ["a", "b"]}}}]
    if valid:
        slice_(cp, "s", devices)
        assert cp.store.get("ResourceSlice", None, "s")["spec"]["devices"][0]["attributes"]["links"]["strings"]
    else:
        with pytest.raises(InputError, match=r"attributes\[links\].*exactly one value must be specified"):
            slice_(cp, "s", devices)
