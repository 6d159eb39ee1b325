"""SchedulingGates: a pod with spec.schedulingGates is held before the queue until they are all gone.

k8s: pkg/scheduler/framework/plugins/schedulinggates/scheduling_gates.go (PreEnqueue; the pod
comes back on UpdatePodSchedulingGatesEliminated, drasim.controlplane's Pod interest).
"""
from __future__ import annotations

from typing import ClassVar

from drasim.scheduler.framework import Status, unresolvable
from drasim.scheduler.plugins.names import SCHEDULING_GATES

__all__ = ["SchedulingGates", "gate_names"]


def gate_names(pod: dict) -> list[str]:
    gates = (pod.get("spec") or {}).get("schedulingGates")
    if not isinstance(gates, list):
        return []
    return [g.get("name") if isinstance(g, dict) else "" for g in gates]


class SchedulingGates:
    """PreEnqueue only: nothing to filter or score."""

    name: ClassVar[str] = SCHEDULING_GATES

    def pre_enqueue(self, pod: dict) -> Status | None:
        gates = gate_names(pod)
        if not gates:
            return None
        # Go's %v of a []string: "[a b]".
        return unresolvable(f"waiting for scheduling gates: [{' '.join(gates)}]")
