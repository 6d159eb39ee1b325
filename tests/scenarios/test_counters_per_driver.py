"""Shared counters belong to one driver's pool: two drivers publishing a pool of the same name
on a node keep their own counters (kubernetes#140435, in v1.37.0). Before, the second driver's
devices were checked against the first driver's counter sets."""
from drasim.controlplane import ControlPlane


def slice_pair(cp, driver, counter_value, device_use):
    """A counters slice and a devices slice of `driver`, both in pool `node-1` (named after the node)."""
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{driver}-counters"},
               "spec": {"driver": driver, "nodeName": "node-1",
                        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
                        "sharedCounters": [{"name": "chip", "counters": {"units": {"value": counter_value}}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": f"{driver}-devices"},
               "spec": {"driver": driver, "nodeName": "node-1",
                        "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
                        "devices": [{"name": f"part-{i}", "consumesCounters": [
                            {"counterSet": "chip", "counters": {"units": {"value": device_use}}}]} for i in range(2)]}})


def test_same_pool_name_two_drivers_keep_their_own_counters():
    """One claim asks for two partitions of each driver's chip. Driver a: 2 units, partitions of 1;
    driver b: 8 units, partitions of 4; both fit. Keyed by pool name alone, b's partitions were
    checked against a's 2 units (cached first under "node-1") and the claim could not be allocated."""
    cp = ControlPlane()
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
               "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
    slice_pair(cp, "a.example.com", "2", "1")
    slice_pair(cp, "b.example.com", "8", "4")
    for driver in ("a.example.com", "b.example.com"):
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": driver},
                   "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "both", "namespace": "default"},
               "spec": {"devices": {"requests": [
                   {"name": "a", "exactly": {"deviceClassName": "a.example.com", "count": 2}},
                   {"name": "b", "exactly": {"deviceClassName": "b.example.com", "count": 2}}]}}})
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": {"resourceClaims": [{"name": "r", "resourceClaimName": "both"}],
                        "containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "r"}]}}]}})
    cp.settle()
    claim = cp.store.get("ResourceClaim", "default", "both")
    assert sorted((r["driver"], r["device"]) for r in claim["status"]["allocation"]["devices"]["results"]) == [
        ("a.example.com", "part-0"), ("a.example.com", "part-1"), ("b.example.com", "part-0"), ("b.example.com", "part-1")]
    assert cp.store.get("Pod", "default", "p")["spec"].get("nodeName") == "node-1"
