"""The scheduler's view of nodes and the pods placed on them (bound or assumed).

k8s: pkg/scheduler/backend/cache/cache.go and node_tree.go. Nodes are listed
zone by zone in round-robin, each zone in the order its nodes arrived, which
is the order kube-scheduler's snapshot walks them in.
"""
from __future__ import annotations

from drasim.api.extendedresource import is_dra_extended_resource_name
from drasim.scheduler.framework import NodeInfo
from drasim.scheduler.plugins.imagelocality import node_images

ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"


def _zone_key(node: dict) -> str:
    labels = (node.get("metadata") or {}).get("labels") or {}
    return f"{labels.get(REGION_LABEL, '')}:\x00:{labels.get(ZONE_LABEL, '')}"


def _advertised(node: dict) -> frozenset:
    """DRA-extended resource names the node's allocatable lists with a non-zero amount."""
    allocatable = (node.get("status") or {}).get("allocatable") or {}
    out = []
    for name, value in allocatable.items():
        if is_dra_extended_resource_name(name) and str(value) not in ("0", "0.0"):
            out.append(name)
    return frozenset(out)


class SchedulerCache:
    def __init__(self) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._zones: dict[str, list[str]] = {}
        self._pod_node: dict[str, str] = {}      # pod uid -> node name (bound or assumed)
        self._orphans: dict[str, dict] = {}      # pods bound to a node not (yet) known
        self._ordered: list[NodeInfo] | None = None
        # Change tracking for the scheduler's FilterCache: every generation bump is logged;
        # the epoch changes when every node's verdicts are stale or node positions moved.
        self.epoch = 0
        self._changes: list[NodeInfo] = []
        self._change_base = 0
        self._advertised: dict[str, int] = {}   # DRA-extended name -> nodes advertising it (> 0)
        self._image_nodes: dict[str, int] = {}  # image name -> nodes listing it (ImageLocality)

    @property
    def change_count(self) -> int:
        return self._change_base + len(self._changes)

    def changes_since(self, cursor: int) -> list[NodeInfo]:
        return self._changes[cursor - self._change_base:]

    def _changed(self, info: NodeInfo) -> None:
        info.generation += 1
        self._changes.append(info)
        if len(self._changes) > 1_000_000:
            self._changed_bound()

    def _changed_bound(self) -> None:
        """Keep the log bounded: start afresh."""
        self._change_base += len(self._changes)
        self._changes = []
        self.epoch += 1

    def nodes_with_image(self, image: str) -> int:
        return self._image_nodes.get(image, 0)

    def _images(self, old: dict | None, new: dict | None) -> None:
        before = set(node_images(old)) if old else set()
        after = set(node_images(new)) if new else set()
        if before == after:
            return
        for name in before - after:
            n = self._image_nodes[name] - 1
            if n:
                self._image_nodes[name] = n
            else:
                del self._image_nodes[name]
        for name in after - before:
            self._image_nodes[name] = self._image_nodes.get(name, 0) + 1
        self.epoch += 1   # image spread is cluster-wide: every node's ImageLocality score may change

    def advertises(self, resource: str) -> bool:
        """Whether any node lists this extended resource in its allocatable (non-zero)."""
        return resource in self._advertised

    def _advertise(self, old: frozenset, new: frozenset) -> None:
        if old == new:
            return
        before = set(self._advertised)
        for name in old - new:
            n = self._advertised[name] - 1
            if n:
                self._advertised[name] = n
            else:
                del self._advertised[name]
        for name in new - old:
            self._advertised[name] = self._advertised.get(name, 0) + 1
        if set(self._advertised) != before:
            self.epoch += 1   # signatures that alias unadvertised names are no longer equivalent

    def touch(self, name: str) -> None:
        """Something a Filter verdict on this node depends on changed (e.g. its devices' allocations)."""
        info = self._nodes.get(name)
        if info is not None:   # _changed, inlined: a load touches a node per claim
            info.generation += 1
            self._changes.append(info)
            if len(self._changes) > 1_000_000:
                self._changed_bound()

    def touch_all(self) -> None:
        self.epoch += 1

    # -- nodes ----------------------------------------------------------------
    def set_node(self, node: dict) -> NodeInfo:
        name = node["metadata"]["name"]
        info = self._nodes.get(name)
        if info is None:
            info = NodeInfo(node)
            self._nodes[name] = info
            self._zones.setdefault(_zone_key(node), []).append(name)
            self._reorder()
            info.advertised = _advertised(node)
            self._advertise(frozenset(), info.advertised)
            self._images(None, node)
            for uid, pod in list(self._orphans.items()):
                if pod["spec"].get("nodeName") == name:
                    info.add_pod(pod)
                    del self._orphans[uid]
        else:
            if _zone_key(info.node) != _zone_key(node):
                self._zones[_zone_key(info.node)].remove(name)
                self._zones.setdefault(_zone_key(node), []).append(name)
                self._reorder()
            self._images(info.node, node)   # before info.node is replaced: the old images count down
            info.node = node
            advertised = _advertised(node)
            self._advertise(info.advertised, advertised)
            info.advertised = advertised
            self._changed(info)
        return info

    def remove_node(self, name: str) -> None:
        info = self._nodes.pop(name, None)
        if info is not None:
            self._zones[_zone_key(info.node)].remove(name)
            self._advertise(info.advertised, frozenset())
            self._images(info.node, None)
            self._reorder()

    def _reorder(self) -> None:
        self._ordered = None
        self.epoch += 1   # node positions change: every signature index is rebuilt

    def node(self, name: str) -> NodeInfo | None:
        return self._nodes.get(name)

    def nodes(self) -> list[NodeInfo]:
        """All nodes in kube-scheduler's snapshot order (zones round-robin)."""
        if self._ordered is None:
            zones = [z for z in self._zones.values() if z]
            ordered: list[NodeInfo] = []
            i = 0
            while any(i < len(z) for z in zones):
                for z in zones:
                    if i < len(z):
                        ordered.append(self._nodes[z[i]])
                i += 1
            for position, info in enumerate(ordered):
                info.position = position
            self._ordered = ordered
        return self._ordered

    def __len__(self) -> int:
        return len(self._nodes)

    # -- pods -----------------------------------------------------------------
    def add_pod(self, pod: dict, node_name: str) -> None:
        """A pod bound (or assumed) to node_name."""
        uid = pod["metadata"]["uid"]
        current = self._pod_node.get(uid)
        if current == node_name:
            info = self._nodes.get(node_name)
            if info is not None:
                info.refresh_pod(pod)
            return
        if current is not None:
            self.remove_pod(pod)
        self._pod_node[uid] = node_name
        info = self._nodes.get(node_name)
        if info is None:
            self._orphans[uid] = pod
        else:
            info.add_pod(pod)
            self._changes.append(info)

    def remove_pod(self, pod: dict) -> None:
        uid = pod["metadata"]["uid"]
        node_name = self._pod_node.pop(uid, None)
        self._orphans.pop(uid, None)
        if node_name is not None and node_name in self._nodes:
            info = self._nodes[node_name]
            info.remove_pod(pod)
            self._changes.append(info)
