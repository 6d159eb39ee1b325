"""DynamicResources scores prioritized lists: a node offering an earlier subrequest wins (allocator.md §14.4)."""
import pytest

from drasim.controlplane import ControlPlane, Options


def run(seed: int) -> str | None:
    cp = ControlPlane(Options(seed=seed))
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
               "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}})
    for node, size in (("small-node", "small"), ("large-node", "large")):
        cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": node},
                   "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}}})
        cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": node},
                   "spec": {"driver": "gpu.example.com", "nodeName": node,
                            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
                            "devices": [{"name": "g0", "attributes": {"size": {"string": size}}}]}})
    cp.create({"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
               "metadata": {"name": "c", "namespace": "default"},
               "spec": {"devices": {"requests": [{"name": "gpu", "firstAvailable": [
                   {"name": "large", "deviceClassName": "gpu",
                    "selectors": [{"cel": {"expression": 'device.attributes["gpu.example.com"].size == "large"'}}]},
                   {"name": "small", "deviceClassName": "gpu"}]}]}}})
    cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
               "spec": {"containers": [{"name": "c", "image": "i", "resources": {"claims": [{"name": "g"}]}}],
                        "resourceClaims": [{"name": "g", "resourceClaimName": "c"}]}})
    cp.settle()
    claim = cp.store.get("ResourceClaim", "default", "c")
    assert claim["status"]["allocation"]["devices"]["results"][0]["request"] in ("gpu/large", "gpu/small")
    return cp.store.get("Pod", "default", "p")["spec"].get("nodeName")


@pytest.mark.parametrize("seed", range(6))
def test_first_choice_node_wins(seed):
    """Both nodes fit; only the large node satisfies the first subrequest, so it scores 100 vs 87."""
    assert run(seed) == "large-node"
