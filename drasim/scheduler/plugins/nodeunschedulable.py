"""NodeUnschedulable: cordoned nodes take only pods that tolerate the cordon taint.

k8s: pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go
"""
from __future__ import annotations

from typing import ClassVar

from drasim.scheduler.framework import CycleState, NodeInfo, Status, unresolvable
from drasim.scheduler.plugins.names import NODE_UNSCHEDULABLE
from drasim.scheduler.plugins.tainttoleration import tolerations_tolerate

__all__ = ["ERR_REASON", "NodeUnschedulable", "UNSCHEDULABLE_TAINT"]

# k8s: node_unschedulable.go ErrReasonUnschedulable.
ERR_REASON = "node(s) were unschedulable"
_REJECTED = unresolvable(ERR_REASON)

# k8s: a pod that tolerates this taint also tolerates spec.unschedulable,
# whether or not the node controller has added the taint yet.
UNSCHEDULABLE_TAINT = {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}


class NodeUnschedulable:
    """Rejects nodes with spec.unschedulable unless the pod tolerates the cordon."""

    name: ClassVar[str] = NODE_UNSCHEDULABLE

    def filter(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        if not (node.node.get("spec") or {}).get("unschedulable"):
            return None
        tolerations = (pod.get("spec") or {}).get("tolerations")
        if tolerations and tolerations_tolerate(tolerations, UNSCHEDULABLE_TAINT):
            return None
        return _REJECTED
