"""Devices reachable from several nodes (nodeSelector / allNodes slices): allocation.nodeSelector
pins the pods that share the claim (allocator.md §5.2, §18.3, §19.2)."""
from drasim.controlplane import ControlPlane, Options


def run(filter_cache: bool) -> ControlPlane:
    cp = ControlPlane(Options(filter_cache=filter_cache))
    for i in range(4):
        cp.create({"apiVersion": "v1", "kind": "Node",
                   "metadata": {"name": f"n{i}", "labels": {"rack": "r1" if i < 2 else "r2"}},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "nic"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "nic.example.com"'}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "rack-r2"},
               "spec": {"driver": "nic.example.com",
                        "nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [
                            {"key": "rack", "operator": "In", "values": ["r2"]}]}]},
                        "pool": {"name": "rack-r2", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "switch-port-0"}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "fabric", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "nic"}}]}}})
    for i in range(3):
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "i", "resources": {
                       "requests": {"cpu": "3"}, "claims": [{"name": "x"}]}}],
                            "resourceClaims": [{"name": "x", "resourceClaimName": "fabric"}]}})
    cp.settle()
    return cp


def test_shared_network_device():
    """The claim is allocated on rack r2's pool; sharing pods land on r2 nodes only, one per node (cpu)."""
    cp = run(True)
    claim = cp.store.get("ResourceClaim", "default", "fabric")
    assert claim["status"]["allocation"]["nodeSelector"] == {"nodeSelectorTerms": [{"matchExpressions": [
        {"key": "rack", "operator": "In", "values": ["r2"]}]}]}
    nodes = {p["metadata"]["name"]: p["spec"].get("nodeName") for p in cp.store.list("Pod")}
    placed = sorted(n for n in nodes.values() if n)
    assert placed == ["n2", "n3"] and list(nodes.values()).count(None) == 1
    assert len(claim["status"]["reservedFor"]) == 2
    pending = next(p for p in cp.store.list("Pod") if not p["spec"].get("nodeName"))
    message = next(c["message"] for c in pending["status"]["conditions"] if c["type"] == "PodScheduled")
    assert message.startswith("0/4 nodes are available: 2 Insufficient cpu, 2 resourceclaim not available on the node.")
    other = run(False)
    assert {p["metadata"]["name"]: p["spec"].get("nodeName") for p in other.store.list("Pod")} == nodes
