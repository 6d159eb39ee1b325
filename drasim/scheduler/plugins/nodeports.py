"""NodePorts: a pod's host ports must be free on the node.

k8s: pkg/scheduler/framework/plugins/nodeports/node_ports.go,
     pkg/scheduler/util/utils.go (GetHostPorts),
     pkg/scheduler/framework/types.go (HostPortInfo.CheckConflict).

Host ports are those of regular containers and of sidecars (init containers
with restartPolicy Always), with hostPort > 0. An empty hostIP means 0.0.0.0
and an empty protocol TCP. 0.0.0.0 conflicts with the same protocol/port on
any IP, and any IP conflicts with the same protocol/port on 0.0.0.0.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from drasim.scheduler.framework import SKIP, CycleState, NodeInfo, Status, unschedulable
from drasim.scheduler.plugins.names import NODE_PORTS

__all__ = ["ERR_REASON", "NodePorts", "host_ports"]

# k8s: node_ports.go ErrReason. Unschedulable (not unresolvable): preempting the
# pod holding the port frees it.
ERR_REASON = "node(s) didn't have free ports for the requested pod ports"
_REJECTED = unschedulable(ERR_REASON)

_PRE_FILTER_KEY = "PreFilter" + NODE_PORTS
_ANY_IP = "0.0.0.0"

# (hostIP, protocol, hostPort), sanitised.
HostPort = tuple[str, str, int]


def host_ports(pod: dict) -> tuple[HostPort, ...]:
    """The host ports a pod occupies while it runs. k8s: util.GetHostPorts + HostPortInfo.sanitize."""
    spec = pod.get("spec") or {}
    containers = [c for c in spec.get("initContainers") or () if c.get("restartPolicy") == "Always"]
    containers += spec.get("containers") or ()
    out: list[HostPort] = []
    for c in containers:
        for p in c.get("ports") or ():
            port = int(p.get("hostPort") or 0)
            if port > 0:
                out.append((p.get("hostIP") or _ANY_IP, p.get("protocol") or "TCP", port))
    return tuple(out)


def _conflicts(wanted: tuple[HostPort, ...], used: dict[str, set[tuple[str, int]]]) -> bool:
    """k8s: HostPortInfo.CheckConflict for each wanted port."""
    for ip, protocol, port in wanted:
        pp = (protocol, port)
        if ip == _ANY_IP:
            if any(pp in ports for ports in used.values()):
                return True
        elif pp in used.get(_ANY_IP, ()) or pp in used.get(ip, ()):
            return True
    return False


@dataclass(slots=True)
class _UsedPorts:
    """Host ports in use on one node, valid for one NodeInfo generation."""

    info: NodeInfo
    generation: int
    by_ip: dict[str, set[tuple[str, int]]]


class NodePorts:
    """Rejects nodes where a requested host port is taken."""

    name: ClassVar[str] = NODE_PORTS

    def __init__(self) -> None:
        self._used: dict[str, _UsedPorts] = {}

    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[None, Status | None]:
        wanted = host_ports(pod)
        state[_PRE_FILTER_KEY] = wanted
        return None, (None if wanted else SKIP)

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        wanted = state.get(_PRE_FILTER_KEY)
        if wanted is None:
            wanted = state[_PRE_FILTER_KEY] = host_ports(pod)
        if not wanted:
            return None
        return _REJECTED if _conflicts(wanted, self._used_ports(node)) else None

    def _used_ports(self, node: NodeInfo) -> dict[str, set[tuple[str, int]]]:
        """The node's ports in use; rebuilt only when its pods changed (generation)."""
        entry = self._used.get(node.name)
        if entry is not None and entry.info is node and entry.generation == node.generation:
            return entry.by_ip
        by_ip: dict[str, set[tuple[str, int]]] = {}
        for pod in node.pods.values():
            for ip, protocol, port in host_ports(pod):
                by_ip.setdefault(ip, set()).add((protocol, port))
        self._used[node.name] = _UsedPorts(node, node.generation, by_ip)
        return by_ip
