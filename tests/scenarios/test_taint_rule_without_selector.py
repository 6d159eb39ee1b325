"""A DeviceTaintRule without deviceSelector, as Kubernetes v1.37.0 treats it (kubernetes#141620).

The scheduler allocates from ResourceSlices patched by the ResourceSlice tracker, whose
applyPatches puts the taint of a rule without selector on every device; the eviction controller
and the rule status use ruleMatchesDevice, which selects no device without a selector. So such a
NoSchedule/NoExecute rule keeps every new claim from being allocated (unless tolerated) but
evicts nobody and reports nothing selected.
"""
from __future__ import annotations

from drasim.controlplane import ControlPlane

DRIVER = "gpu.example.com"
KEY = "example.com/no-selector"


def rule(name: str, effect: str, selector: dict | None = None) -> dict:
    spec: dict = {"taint": {"key": KEY, "value": "true", "effect": effect}}
    if selector is not None:
        spec["deviceSelector"] = selector
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceTaintRule", "metadata": {"name": name}, "spec": spec}


def claim_and_pod(cp: ControlPlane, name: str, tolerations: list | None = None) -> None:
    exactly: dict = {"deviceClassName": "gpu"}
    if tolerations:
        exactly["tolerations"] = tolerations
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": name, "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}})
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "gpu"}]}}],
                        "resourceClaims": [{"name": "gpu", "resourceClaimName": name}]}})


def cluster() -> ControlPlane:
    """One node with three GPUs in two slices of different drivers' pools; pod `running` has gpu-0."""
    cp = ControlPlane()
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}})
    for driver, devices in ((DRIVER, ["gpu-0", "gpu-1"]), ("other.example.com", ["gpu-2"])):
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"n1-{driver}"},
                   "spec": {"driver": driver, "nodeName": "n1",
                            "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                            "devices": [{"name": d} for d in devices]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver.endsWith(".example.com")'}}]}})
    claim_and_pod(cp, "running")
    cp.settle()
    assert node_of(cp, "running") == "n1"
    return cp


def node_of(cp: ControlPlane, pod: str) -> str | None:
    obj = cp.store.get("Pod", "default", pod)
    return None if obj is None else obj["spec"].get("nodeName")


def condition(cp: ControlPlane, name: str) -> tuple[str, str, str]:
    cond = next(c for c in cp.store.get("DeviceTaintRule", None, name)["status"]["conditions"]
                if c["type"] == "EvictionInProgress")
    return cond["status"], cond["reason"], cond["message"]


def test_noexecute_rule_without_selector_blocks_allocation_but_evicts_nobody():
    cp = cluster()
    cp.create(rule("no-selector", "NoExecute"))
    claim_and_pod(cp, "later")
    claim_and_pod(cp, "tolerant", tolerations=[{"key": KEY, "operator": "Exists"}])
    cp.settle()
    # eviction controller: ruleMatchesDevice(nil) is false
    assert node_of(cp, "running") == "n1"
    assert condition(cp, "no-selector") == ("False", "NotStarted", "")
    # scheduler: the tracker tainted every device of both drivers
    assert node_of(cp, "later") is None
    scheduled = next(c for c in cp.store.get("Pod", "default", "later")["status"]["conditions"]
                     if c["type"] == "PodScheduled")
    assert scheduled["message"].startswith("0/1 nodes are available: 1 cannot allocate all claims.")
    assert node_of(cp, "tolerant") == "n1"
    cp.store.delete("DeviceTaintRule", None, "no-selector")
    cp.settle()
    assert node_of(cp, "later") == "n1"


def test_noschedule_rule_without_selector_blocks_every_driver():
    cp = cluster()
    cp.create(rule("no-selector", "NoSchedule"))
    claim_and_pod(cp, "later")
    cp.settle()
    assert node_of(cp, "running") == "n1" and node_of(cp, "later") is None
    # A selector naming the other driver's devices taints only those: the scheduler then
    # allocates gpu-1 (driver gpu.example.com) again.
    cp.store.delete("DeviceTaintRule", None, "no-selector")
    cp.create(rule("other-driver", "NoSchedule", {"driver": "other.example.com"}))
    cp.settle()
    assert node_of(cp, "later") == "n1"
    devices = cp.store.get("ResourceClaim", "default", "later")["status"]["allocation"]["devices"]["results"]
    assert [(d["driver"], d["device"]) for d in devices] == [(DRIVER, "gpu-1")]


def test_none_rule_without_selector_reports_no_device():
    """The None dry run counts with ruleMatchesDevice too: nothing selected, nothing blocked."""
    cp = cluster()
    cp.create(rule("dry-run", "None"))
    claim_and_pod(cp, "later")
    cp.settle()
    assert node_of(cp, "later") == "n1"
    assert condition(cp, "dry-run") == (
        "False", "NoEffect",
        "0 published devices selected. 0 allocated devices selected. 0 pods would be evicted in 0 different "
        "namespaces if the effect was NoExecute. This information will not be updated again. Recreate the "
        "DeviceTaintRule to trigger an update.")
