"""NodeName: a pod that names its node only fits that node.

k8s: pkg/scheduler/framework/plugins/nodename/node_name.go
"""
from __future__ import annotations

from typing import ClassVar

from drasim.scheduler.framework import CycleState, NodeInfo, PreFilterResult, Status, unresolvable
from drasim.scheduler.plugins.names import NODE_NAME

__all__ = ["ERR_REASON", "NodeName"]

# k8s: node_name.go ErrReason. Unresolvable: preemption cannot rename a node.
ERR_REASON = "node(s) didn't match the requested node name"
_REJECTED = unresolvable(ERR_REASON)


class NodeName:
    """Filters nodes against pod.spec.nodeName."""

    name: ClassVar[str] = NODE_NAME

    def pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        # k8s: PreFilter narrows the cycle to the named node (PreFilterResult.NodeNames).
        wanted = (pod.get("spec") or {}).get("nodeName")
        return (PreFilterResult({wanted}) if wanted else None), None

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        wanted = (pod.get("spec") or {}).get("nodeName")
        if not wanted or wanted == node.name:
            return None
        return _REJECTED
