"""The scheduler's view of nodes and the pods placed on them (bound or assumed).

k8s: pkg/scheduler/backend/cache/cache.go and node_tree.go. Nodes are listed
zone by zone in round-robin, each zone in the order its nodes arrived, which
is the order kube-scheduler's snapshot walks them in.
"""
from __future__ import annotations

from drasim.scheduler.framework import NodeInfo

ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"


def _zone_key(node: dict) -> str:
    labels = (node.get("metadata") or {}).get("labels") or {}
    return f"{labels.get(REGION_LABEL, '')}:\x00:{labels.get(ZONE_LABEL, '')}"


class SchedulerCache:
    def __init__(self) -> None:
        self._nodes: dict[str, NodeInfo] = {}
        self._zones: dict[str, list[str]] = {}
        self._pod_node: dict[str, str] = {}      # pod uid -> node name (bound or assumed)
        self._orphans: dict[str, dict] = {}      # pods bound to a node not (yet) known
        self._ordered: list[NodeInfo] | None = None
        self.epoch = 0   # bumped when something every node's verdicts depend on changed

    def touch(self, name: str) -> None:
        """Something a Filter verdict on this node depends on changed (e.g. its devices' allocations)."""
        info = self._nodes.get(name)
        if info is not None:
            info.generation += 1

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
            self._ordered = None
            for uid, pod in list(self._orphans.items()):
                if pod["spec"].get("nodeName") == name:
                    info.add_pod(pod)
                    del self._orphans[uid]
        else:
            if _zone_key(info.node) != _zone_key(node):
                self._zones[_zone_key(info.node)].remove(name)
                self._zones.setdefault(_zone_key(node), []).append(name)
                self._ordered = None
            info.node = node
            info.generation += 1
        return info

    def remove_node(self, name: str) -> None:
        info = self._nodes.pop(name, None)
        if info is not None:
            self._zones[_zone_key(info.node)].remove(name)
            self._ordered = None

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
                info.pods[uid] = pod  # refresh the object, requests are unchanged
            return
        if current is not None:
            self.remove_pod(pod)
        self._pod_node[uid] = node_name
        info = self._nodes.get(node_name)
        if info is None:
            self._orphans[uid] = pod
        else:
            info.add_pod(pod)

    def remove_pod(self, pod: dict) -> None:
        uid = pod["metadata"]["uid"]
        node_name = self._pod_node.pop(uid, None)
        self._orphans.pop(uid, None)
        if node_name is not None and node_name in self._nodes:
            self._nodes[node_name].remove_pod(pod)

    def node_of(self, uid: str) -> str | None:
        return self._pod_node.get(uid)
