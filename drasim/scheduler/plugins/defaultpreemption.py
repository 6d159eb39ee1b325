"""DefaultPreemption: make room for a pod by evicting lower-priority pods from one node.

k8s: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go,
     pkg/scheduler/framework/preemption/preemption.go (Evaluator.Preempt, findCandidates,
     SelectVictimsOnNode, pickOneNodeForPreemption).

A node is a candidate when its Filter status is not UnschedulableAndUnresolvable and it runs
pods of lower priority whose removal lets the pod fit; victims are then reprieved, highest
priority first, while the pod still fits. Among candidates the node with the lowest highest
victim priority wins, then the lowest priority sum, then the fewest victims, then the latest
start of the highest-priority victims, then the first in node order. Victims get the
DisruptionTarget condition and are deleted; the pod is nominated to the node and tried again
once they are gone. PodDisruptionBudgets are not simulated (drasim has no PDB kind).

Removing victims does not release their ResourceClaims during the what-if (DynamicResources
has no PreFilterExtensions), so pods that need devices only preempt for other resources — as
in kube-scheduler.
"""
from __future__ import annotations

from typing import Callable

from drasim.scheduler.framework import Code, CycleState, Diagnosis, NodeInfo, Status, fit_error_message
from drasim.sim.clock import parse_time

NAME = "DefaultPreemption"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"


def priority(pod: dict) -> int:
    return int((pod.get("spec") or {}).get("priority") or 0)


def _start_time(pod: dict) -> float:
    status = pod.get("status") or {}
    stamp = status.get("startTime") or pod["metadata"].get("creationTimestamp")
    return parse_time(stamp) if stamp else 0.0


class DefaultPreemption:
    """PostFilter plugin. The scheduler hands it its node list, filters and eviction callback."""

    name = NAME

    def __init__(self, nodes: Callable[[], list[NodeInfo]], run_filters: Callable[..., Status | None],
                 evict: Callable[[dict, dict, str], None], nominate: Callable[[dict, str], None]) -> None:
        self._nodes = nodes
        self._run_filters = run_filters
        self._evict = evict
        self._nominate = nominate

    def post_filter(self, state: CycleState, pod: dict, diagnosis: Diagnosis) -> Status | None:
        if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return Status(Code.UNSCHEDULABLE, ("preemption: not eligible due to preemptionPolicy=Never.",))
        nodes = self._nodes()
        statuses: dict[str, Status] = {}
        candidates = []
        for node in nodes:
            status = diagnosis.node_to_status.get(node.name, diagnosis.absent_status)
            if status is None:
                continue   # the node passed Filter; it was not evaluated for the pod this cycle
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                statuses[node.name] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,))
                continue
            victims, why = self._select_victims(state, pod, node)
            if victims is None:
                statuses[node.name] = why
            else:
                candidates.append((node, victims))
        if not candidates:
            message = fit_error_message(len(nodes), Diagnosis(node_to_status=statuses))
            return Status(Code.UNSCHEDULABLE, (f"preemption: {message}",))
        node, victims = min(candidates, key=lambda c: self._rank(c, nodes))
        for victim in victims:
            self._evict(victim, pod, node.name)
        self._nominate(pod, node.name)
        return Status(Code.SUCCESS)

    def _select_victims(self, state: CycleState, pod: dict, node: NodeInfo) -> tuple[list[dict] | None, Status | None]:
        """k8s: SelectVictimsOnNode — remove every lower-priority pod, check the fit, reprieve."""
        prio = priority(pod)
        potential = [p for p in node.pods.values() if priority(p) < prio]
        if not potential:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,))
        trial = NodeInfo(node.node)
        trial.position = node.position
        for p in node.pods.values():
            if priority(p) >= prio:
                trial.add_pod(p)
        status = self._run_filters(state, pod, trial)
        if status is not None:
            return None, status
        # Reprieve as many as possible, most important first (k8s: MoreImportantPod).
        victims = []
        for p in sorted(potential, key=lambda p: (-priority(p), _start_time(p))):
            trial.add_pod(p)
            if self._run_filters(state, pod, trial) is not None:
                trial.remove_pod(p)
                victims.append(p)
        return victims, None

    @staticmethod
    def _rank(candidate, nodes: list[NodeInfo]):
        """k8s: pickOneNodeForPreemption (no PDBs): smaller is better."""
        node, victims = candidate
        top = max(priority(v) for v in victims)
        latest_start = max(_start_time(v) for v in victims if priority(v) == top)
        # A later start of the most important victims is better (they have run less).
        return (top, sum(priority(v) for v in victims), len(victims), -latest_start, node.position)
