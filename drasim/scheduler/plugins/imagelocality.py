"""ImageLocality: prefer nodes that already have the pod's images (weight 1 in the default profile).

k8s: pkg/scheduler/framework/plugins/imagelocality/image_locality.go. A node's score sums, for
each container image it holds (node status.images), the image size scaled by the share of
nodes that hold it, clamped between 23 MiB and 1000 MiB per container and mapped to 0..100.
Nodes of a cluster written by hand have no status.images: every node scores 0 and the plugin
changes nothing; on a snapshot of a real cluster it matters.
"""
from __future__ import annotations

from typing import Callable

from drasim.scheduler.framework import MAX_NODE_SCORE, SKIP, CycleState, NodeInfo, Status

NAME = "ImageLocality"
MB = 1024 * 1024
MIN_THRESHOLD = 23 * MB
MAX_CONTAINER_THRESHOLD = 1000 * MB
_STATE_KEY = "PreScore" + NAME


def normalized_image_name(name: str) -> str:
    """k8s: an image without a tag means :latest."""
    if name.rfind(":") <= name.rfind("/"):
        name += ":latest"
    return name


def node_images(node: dict) -> dict[str, int]:
    """Image name -> size in bytes, for every name listed in node.status.images."""
    out: dict[str, int] = {}
    for image in (node.get("status") or {}).get("images") or ():
        if not isinstance(image, dict):
            continue
        size = image.get("sizeBytes") or 0
        for name in image.get("names") or ():
            if isinstance(name, str):
                out[name] = int(size) if isinstance(size, int) else 0
    return out


class ImageLocality:
    name = NAME

    def __init__(self, weight: int, nodes_with_image: Callable[[str], int], num_nodes: Callable[[], int]) -> None:
        self.weight = weight
        self._nodes_with_image = nodes_with_image
        self._num_nodes = num_nodes

    def pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> Status | None:
        spec = pod.get("spec") or {}
        containers = [c for key in ("initContainers", "containers") for c in spec.get(key) or ()]
        images = [normalized_image_name(c.get("image") or "") for c in containers]
        if not any(self._nodes_with_image(i) for i in images):
            return SKIP   # no node has any of the images: every score would be 0
        state[_STATE_KEY] = (images, len(containers))
        return None

    def score(self, state: CycleState, pod: dict, node: NodeInfo) -> int:
        images, containers = state[_STATE_KEY]
        held = node_images(node.node)
        total = self._num_nodes() or 1
        summed = 0
        for image in images:
            size = held.get(image)
            if size is not None:
                summed += int(size * (self._nodes_with_image(image) / total))   # k8s: scaledImageScore
        max_threshold = MAX_CONTAINER_THRESHOLD * containers
        summed = min(max(summed, MIN_THRESHOLD), max_threshold)
        return MAX_NODE_SCORE * (summed - MIN_THRESHOLD) // (max_threshold - MIN_THRESHOLD)
