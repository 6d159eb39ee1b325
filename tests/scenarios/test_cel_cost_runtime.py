"""A selector stopped at run time: the allocation fails as kube-scheduler reports a CEL
cost-limit overrun, the pod stays Pending, nothing exhausts memory (cel.md §5.5)."""
import time

from drasim.controlplane import ControlPlane

# Admitted (estimated cost 1 002: replace costs 0.2 per input character) but it builds a
# 20 000 000-character string, over drasim's memory guard (docs/cel.md).
BIG = '"' + "a" * 5000 + '".replace("a", "' + "b" * 4000 + '").size() > 0'


def cluster(selector: str) -> ControlPlane:
    cp = ControlPlane()
    cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"},
               "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
               "spec": {"driver": "gpu.example.com", "nodeName": "n1",
                        "pool": {"name": "n1", "generation": 1, "resourceSliceCount": 1},
                        "devices": [{"name": "g0", "attributes": {"model": {"string": "a"}}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "c", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                   "deviceClassName": "gpu", "selectors": [{"cel": {"expression": selector}}]}}]}}})
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "x"}]}}],
                        "resourceClaims": [{"name": "x", "resourceClaimName": "c"}]}})
    cp.settle()
    return cp


def test_cost_overrun_keeps_the_pod_pending():
    """The scheduler's message is the allocator's, wrapping cel-go's cost-limit error."""
    start = time.perf_counter()
    cp = cluster(BIG)
    assert time.perf_counter() - start < 10
    pod = cp.store.get("Pod", "default", "p")
    assert pod["spec"].get("nodeName") is None
    cond = next(c for c in pod["status"]["conditions"] if c["type"] == "PodScheduled")
    assert cond["reason"] == "SchedulerError"
    assert cond["message"] == ('running "DynamicResources" filter plugin: claim default/c: selector #0 on device '
                               "gpu.example.com/n1/g0: CEL runtime error: operation cancelled: actual cost limit "
                               "exceeded")


def test_growth_under_the_guard_is_evaluated():
    """A tenth of that (2 000 000 characters) runs and the pod is scheduled."""
    cp = cluster('"' + "a" * 500 + '".replace("a", "' + "b" * 4000 + '").size() == 2000000')
    assert cp.store.get("Pod", "default", "p")["spec"]["nodeName"] == "n1"
