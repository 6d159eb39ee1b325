"""ImageLocality (k8s: imagelocality/image_locality.go)."""
import pytest

from drasim.controlplane import ControlPlane
from drasim.scheduler.framework import CycleState, NodeInfo
from drasim.scheduler.plugins.imagelocality import ImageLocality, normalized_image_name

MB = 1024 * 1024


def node(name, images):
    return {"metadata": {"name": name},
            "status": {"images": [{"names": names, "sizeBytes": size} for names, size in images]}}


@pytest.mark.parametrize(("image", "want"), [
    ("nginx", "nginx:latest"), ("nginx:1.25", "nginx:1.25"), ("registry:5000/app", "registry:5000/app:latest"),
    ("registry:5000/app:v1", "registry:5000/app:v1")])
def test_normalized_image_name(image, want):
    """An image without a tag is :latest (a port is not a tag)."""
    assert normalized_image_name(image) == want


def test_score_scales_by_spread_and_clamps():
    """Size × (nodes with it / nodes), clamped to 23..1000 MiB per container, mapped to 0..100."""
    spread = {"app:v1": 1, "big:v1": 2}
    plugin = ImageLocality(1, lambda image: spread.get(image, 0), lambda: 2)
    pod = {"spec": {"containers": [{"name": "c", "image": "app:v1"}]}}
    state = CycleState()
    assert plugin.pre_score(state, pod, []) is None
    with_image = NodeInfo(node("a", [(["app:v1"], 500 * MB)]))
    without = NodeInfo(node("b", []))
    assert plugin.score(state, pod, with_image) == 100 * (250 * MB - 23 * MB) // (977 * MB)   # 23
    assert plugin.score(state, pod, without) == 0
    huge = NodeInfo(node("c", [(["big:v1"], 5000 * MB)]))
    big_pod = {"spec": {"containers": [{"name": "c", "image": "big:v1"}]}}
    state2 = CycleState()
    plugin.pre_score(state2, big_pod, [])
    assert plugin.score(state2, big_pod, huge) == 100


def test_pod_lands_where_its_image_is():
    """In a snapshot with status.images, the node that has the image wins the tie."""
    cp = ControlPlane()
    for name, images in (("plain", []), ("cached", [{"names": ["trainer:1.0"], "sizeBytes": 800 * MB}])):
        cp.create({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
                   "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}, "images": images}})
    for seed_pod in range(4):
        cp.create({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{seed_pod}", "namespace": "default"},
                   "spec": {"containers": [{"name": "c", "image": "trainer:1.0"}]}})
        cp.settle()
    assert {p["spec"]["nodeName"] for p in cp.store.list("Pod")} == {"cached"}


def test_node_update_moves_image_counts_and_node_deletion_after_it():
    """Images a node gains or loses in a status update count towards the spread; deleting the
    node afterwards counts them down again (this used to compare the new node with itself,
    so updates were never counted and the deletion crashed)."""
    from drasim.scheduler.cache import SchedulerCache

    cache = SchedulerCache()
    bare = {"metadata": {"name": "n1"}, "status": {}}
    with_image = {"metadata": {"name": "n1"}, "status": {"images": [{"names": ["i:latest"], "sizeBytes": 10}]}}
    cache.set_node(bare)
    assert cache.nodes_with_image("i:latest") == 0
    epoch = cache.epoch
    cache.set_node(with_image)
    assert cache.nodes_with_image("i:latest") == 1
    assert cache.epoch > epoch
    cache.set_node(bare)
    assert cache.nodes_with_image("i:latest") == 0
    cache.set_node(with_image)
    cache.remove_node("n1")
    assert cache.nodes_with_image("i:latest") == 0
