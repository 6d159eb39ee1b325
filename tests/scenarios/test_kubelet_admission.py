"""Kubelet admission for extended resources (extended-resources.md §9.1, §9.4)."""
from drasim.controlplane import ControlPlane

CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                  "extendedResourceName": "example.com/gpu"}}


def cluster(allocatable_gpu: str | None) -> ControlPlane:
    cp = ControlPlane()
    alloc = {"cpu": "8", "memory": "8Gi", "pods": "10"}
    if allocatable_gpu is not None:
        alloc["example.com/gpu"] = allocatable_gpu
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": alloc}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
               "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "g0"}]}})
    cp.create(CLASS)
    return cp


def pod(name: str, resource: str, node: str | None = None) -> dict:
    spec = {"containers": [{"name": "c", "image": "i", "resources": {"limits": {resource: "1"}}}]}
    if node:
        spec["nodeName"] = node
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def test_pod_bound_without_scheduler_is_rejected_for_implicit_name():
    """No scheduler, no claim: the implicit name is checked against allocatable and fails (§9.4)."""
    cp = cluster(None)
    cp.create(pod("preset", "deviceclass.resource.kubernetes.io/gpu", node="n1"))
    cp.settle()
    status = cp.store.get("Pod", "default", "preset")["status"]
    assert status["phase"] == "Failed"
    assert status["reason"] == "OutOfdeviceclass.resource.kubernetes.io/gpu"
    assert status["message"].startswith("Pod was rejected: Node didn't have enough resource: "
                                        "deviceclass.resource.kubernetes.io/gpu, requested: 1")


def test_explicit_name_missing_from_node_is_dropped():
    """An explicit extended name the node does not list is dropped: the pod starts, with no devices (§9.4)."""
    cp = cluster(None)
    cp.create(pod("preset", "example.com/gpu", node="n1"))
    cp.settle()
    assert cp.store.get("Pod", "default", "preset")["status"]["phase"] == "Running"


def test_scheduled_pod_is_admitted_through_its_claim():
    """Requests mapped by extendedResourceClaimStatus are served by the claim, not allocatable (§9.1)."""
    cp = cluster("0")
    cp.create(pod("scheduled", "example.com/gpu"))
    cp.settle()
    p = cp.store.get("Pod", "default", "scheduled")
    assert p["spec"]["nodeName"] == "n1" and p["status"]["phase"] == "Running"
    assert p["status"]["extendedResourceClaimStatus"]["requestMappings"][0]["resourceName"] == "example.com/gpu"


def test_usage_counts_running_pods_only_and_follows_deletions():
    """Admission compares against the node's Running pods: a rejected pod takes nothing, a deleted
    one gives its share back (the usage is kept from watch events, not summed per admission)."""
    cp = cluster("2")
    for name in ("p1", "p2", "p3"):
        cp.create(pod(name, "example.com/gpu", node="n1"))
    cp.settle()
    phases = {n: cp.store.get("Pod", "default", n)["status"]["phase"] for n in ("p1", "p2", "p3")}
    assert phases == {"p1": "Running", "p2": "Running", "p3": "Failed"}
    assert cp.store.get("Pod", "default", "p3")["status"]["message"] == (
        "Pod was rejected: Node didn't have enough resource: example.com/gpu, requested: 1, used: 2, capacity: 2")
    cp.store.delete("Pod", "default", "p1")
    cp.create(pod("p4", "example.com/gpu", node="n1"))
    cp.settle()
    assert cp.store.get("Pod", "default", "p4")["status"]["phase"] == "Running"
    cp.create(pod("p5", "example.com/gpu", node="n1"))
    cp.settle()
    assert cp.store.get("Pod", "default", "p5")["status"]["message"].endswith("used: 2, capacity: 2")
