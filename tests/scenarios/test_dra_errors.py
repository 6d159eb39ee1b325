"""DRA errors surface as kube-scheduler reports them (allocator.md §19.4, §14.3; cel.md §6.2)."""
from drasim.controlplane import ControlPlane


def cluster(selector: str | None = None, class_name: str = "gpu") -> ControlPlane:
    cp = ControlPlane()
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
               "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "g0", "attributes": {"model": {"string": "a"}}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    exactly = {"deviceClassName": class_name}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "c", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "r", "exactly": exactly}]}}})
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}],
                        "resourceClaims": [{"name": "x", "resourceClaimName": "c"}]}})
    cp.settle()
    return cp


def condition(cp: ControlPlane) -> dict:
    pod = cp.store.get("Pod", "default", "p")
    assert pod["spec"].get("nodeName") is None
    return next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")


def test_cel_runtime_error_is_a_scheduler_error():
    """A selector reading a missing attribute fails the whole attempt with kube-scheduler's text."""
    cond = condition(cluster('device.attributes["gpu.example.com"].vendor == "x"'))
    assert cond["reason"] == "SchedulerError"
    assert cond["message"] == (
        'running "DynamicResources" filter plugin: claim default/c: selector #0 on device '
        'gpu.example.com/n1/g0: CEL runtime error: no such key: vendor. consider using CEL optional chaining '
        '(.? followed by orValue()) or guarding the check with has() for optional fields')


def test_missing_class_is_reported_by_prefilter():
    """A request naming a class that does not exist: PreFilter's message for every node."""
    cond = condition(cluster(class_name="nope"))
    assert cond["reason"] == "Unschedulable"
    assert cond["message"].startswith("0/1 nodes are available: request r: device class nope does not exist.")


def test_class_created_later_unblocks_the_pod():
    """The pod is retried when the missing DeviceClass appears (DeviceClass events requeue)."""
    cp = cluster(class_name="late")
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "late"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    cp.settle()
    assert cp.store.get("Pod", "default", "p")["spec"]["nodeName"] == "n1"


def test_admin_access_needs_namespace_label():
    """adminAccess is Forbidden unless the namespace carries resource.kubernetes.io/admin-access: "true"."""
    import pytest
    from drasim.errors import InvalidObject
    cp = ControlPlane()
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "monitor", "namespace": "ops"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu", "adminAccess": True}}]}}}
    with pytest.raises(InvalidObject, match=r'ResourceClaim.resource.k8s.io "monitor" is invalid: '
                                            r'spec.devices.requests\[0\].exactly.adminAccess: Forbidden: admin access'):
        cp.create(claim)
    cp.create({"apiVersion": "v1", "kind": "Namespace",
               "metadata": {"name": "ops", "labels": {"resource.kubernetes.io/admin-access": "true"}}})
    assert cp.create(claim)["metadata"]["name"] == "monitor"


def test_admin_access_claim_shares_an_allocated_device():
    """An admin-access request may take a device another claim holds; its result says adminAccess."""
    cp = cluster()                                   # pod p holds g0 through claim c
    assert cp.store.get("Pod", "default", "p")["spec"]["nodeName"] == "n1"
    cp.create({"apiVersion": "v1", "kind": "Namespace",
               "metadata": {"name": "ops", "labels": {"resource.kubernetes.io/admin-access": "true"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "m", "namespace": "ops"},
               "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "gpu",
                                                                           "adminAccess": True}}]}}})
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "monitor", "namespace": "ops"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}],
                        "resourceClaims": [{"name": "x", "resourceClaimName": "m"}]}})
    cp.settle()
    result = cp.store.get("ResourceClaim", "ops", "m")["status"]["allocation"]["devices"]["results"][0]
    assert (result["device"], result.get("adminAccess")) == ("g0", True)
    assert cp.store.get("Pod", "ops", "monitor")["spec"]["nodeName"] == "n1"
