"""DefaultPreemption: make room for a pod by evicting lower-priority pods from one node.

k8s: pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go,
     pkg/scheduler/framework/preemption/preemption.go (Evaluator.Preempt, findCandidates,
     SelectVictimsOnNode, pickOneNodeForPreemption).

A node is a candidate when its Filter status is not UnschedulableAndUnresolvable and it runs
pods of lower priority whose removal lets the pod fit; victims are then reprieved, highest
priority first, while the pod still fits. Among candidates the node with the lowest highest
victim priority wins, then the lowest priority sum (each priority offset by MaxInt32+1), then
the fewest victims, then the latest earliest start of the highest-priority victims, then the
first in node order (see `rank`). kube-scheduler's DryRunPreemption stops after
max(10 % of the nodes, 100) candidates found from a random offset; drasim evaluates every node,
which only differs on clusters of more than 100 nodes. Victims get the
DisruptionTarget condition and are deleted; the pod is nominated to the node and tried again
once they are gone.

PodDisruptionBudgets (k8s: filterPodsWithPDBViolation): a victim whose budget (same namespace,
selector matching its labels; an empty selector matches nothing here, a pod without labels no
budget) has no disruptions left once the earlier victims are counted is a *violating* victim.
Violating victims are reprieved first; the candidate node with the fewest violating victims wins
before every other criterion. Preemption still deletes violating victims when it must: budgets
only order the choice (the eviction API is where they refuse).

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


# k8s pickOneNodeForPreemption adds MaxInt32+1 to every victim's priority before summing, so
# that all terms are positive: otherwise a node with more victims of a negative priority would
# win over one with fewer victims of the same priority.
PRIORITY_OFFSET = 2 ** 31


def _start_time(pod: dict, now: float) -> float:
    """k8s util.GetPodStartTime: status.startTime, or now for a pod that has not started."""
    stamp = (pod.get("status") or {}).get("startTime")
    return parse_time(stamp) if stamp else now


class DefaultPreemption:
    """PostFilter plugin. The scheduler hands it its node list, filters and eviction callback."""

    name = NAME

    def __init__(self, nodes: Callable[[], list[NodeInfo]], run_filters: Callable[..., Status | None],
                 evict: Callable[[dict, dict, str], None], nominate: Callable[[dict, str], None],
                 now: Callable[[], float] = lambda: 0.0, budgets: Callable[[], list[dict]] = lambda: []) -> None:
        self._now = now
        self._budgets = budgets
        self._nodes = nodes
        self._run_filters = run_filters
        self._evict = evict
        self._nominate = nominate

    def post_filter(self, state: CycleState, pod: dict, diagnosis: Diagnosis) -> Status | None:
        if (pod.get("spec") or {}).get("preemptionPolicy") == "Never":
            return Status(Code.UNSCHEDULABLE, ("preemption: not eligible due to preemptionPolicy=Never.",))
        nodes = self._nodes()
        pdbs = self._budgets()
        statuses: dict[str, Status] = {}
        candidates = []
        for node in nodes:
            status = diagnosis.node_to_status.get(node.name, diagnosis.absent_status)
            if status is None:
                continue   # the node passed Filter; it was not evaluated for the pod this cycle
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                statuses[node.name] = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NOT_HELPFUL,))
                continue
            victims, violating, why = self._select_victims(state, pod, node, pdbs)
            if victims is None:
                statuses[node.name] = why
            else:
                candidates.append((node, victims, violating))
        if not candidates:
            message = fit_error_message(len(nodes), Diagnosis(node_to_status=statuses))
            return Status(Code.UNSCHEDULABLE, (f"preemption: {message}",))
        now = self._now()
        node, victims, _ = min(candidates, key=lambda c: rank(c, now))
        for victim in victims:
            self._evict(victim, pod, node.name)
        self._nominate(pod, node.name)
        return Status(Code.SUCCESS)

    def _select_victims(self, state: CycleState, pod: dict, node: NodeInfo,
                        pdbs: list[dict] = ()) -> tuple[list[dict] | None, int, Status | None]:
        """k8s: SelectVictimsOnNode — remove every lower-priority pod, check the fit, reprieve the
        PDB-violating victims first, then the others; (victims, violating victims, why not)."""
        prio = priority(pod)
        potential = [p for p in node.pods.values() if priority(p) < prio]
        if not potential:
            return None, 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,))
        trial = NodeInfo(node.node)
        trial.position = node.position
        for p in node.pods.values():
            if priority(p) >= prio:
                trial.add_pod(p)
        status = self._run_filters(state, pod, trial)
        if status is not None:
            return None, 0, status
        # Reprieve as many as possible, most important first (k8s: MoreImportantPod), the
        # PDB-violating ones before the others.
        now = self._now()
        ordered = sorted(potential, key=lambda p: (-priority(p), _start_time(p, now)))
        violating, non_violating = split_by_pdb_violation(ordered, pdbs)
        victims = []
        violations = 0
        for group, counts in ((violating, True), (non_violating, False)):
            for p in group:
                trial.add_pod(p)
                if self._run_filters(state, pod, trial) is not None:
                    trial.remove_pod(p)
                    victims.append(p)
                    violations += counts
        return victims, violations, None


def split_by_pdb_violation(pods: list[dict], pdbs: list[dict]) -> tuple[list[dict], list[dict]]:
    """k8s: filterPodsWithPDBViolation — stable; each matching budget's disruptionsAllowed is spent
    by the pods in order (those already in its disruptedPods are not counted again)."""
    from drasim.api.labelselector import LabelSelectorError, compile_label_selector

    allowed = [int((b.get("status") or {}).get("disruptionsAllowed") or 0) for b in pdbs]
    selectors = []
    for b in pdbs:
        raw = (b.get("spec") or {}).get("selector")
        try:   # a nil or empty selector matches nothing here
            selectors.append(compile_label_selector(raw) if raw and (raw.get("matchLabels") or
                                                                     raw.get("matchExpressions")) else None)
        except LabelSelectorError:
            selectors.append(None)
    violating, non_violating = [], []
    for p in pods:
        md = p["metadata"]
        labels = md.get("labels") or {}
        violated = False
        if labels:
            for i, b in enumerate(pdbs):
                if b["metadata"].get("namespace") != md.get("namespace") or selectors[i] is None \
                        or not selectors[i].matches(labels):
                    continue
                if md["name"] in ((b.get("status") or {}).get("disruptedPods") or {}):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(p)
    return violating, non_violating



def rank(candidate: tuple[NodeInfo, list[dict], int], now: float) -> tuple:
    """k8s: pickOneNodeForPreemption's score functions in order, as one key where smaller is
    better: the fewest PDB-violating victims; the lowest highest victim priority; the lowest sum of priorities, each
    offset by MaxInt32+1; the fewest victims; the latest *earliest* start among the highest-
    priority victims (util.GetEarliestPodStartTime); then node order (kube-scheduler takes the
    first of its candidate list, which it fills in a random order)."""
    node, victims, violations = candidate
    top = max(priority(v) for v in victims)
    earliest = min(_start_time(v, now) for v in victims if priority(v) == top)
    return (violations, top, sum(priority(v) + PRIORITY_OFFSET for v in victims), len(victims), -earliest, node.position)
