"""Why a pod is (not) placed: one scheduling cycle for it on the current state, node by node,
with nothing written.

It runs the scheduler's own PreEnqueue, PreFilter, Filter, PreScore and Score plugins — the
same code as a real cycle — but on every node (kube-scheduler stops once it has
numFeasibleNodesToFind feasible nodes, starting from a rotating index) and without the
verdict cache, PostFilter (which may deallocate or preempt), Reserve or binding.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from drasim.scheduler.framework import Code, CycleState, Diagnosis, Status, narrowed_message
from drasim.scheduler.scheduler import Scheduler, SchedulingFailure, _PreFilterRejected


@dataclass
class NodeVerdict:
    node: str
    status: Status | None                      # None: the node passes every Filter plugin
    scores: dict[str, int] = field(default_factory=dict)   # plugin -> weighted, normalized score
    total: int | None = None


@dataclass
class Explanation:
    gated: str | None = None                   # PreEnqueue reason (the pod is not tried at all)
    pre_filter: str | None = None              # PreFilter rejection, shared by every node
    error: str | None = None                   # a scheduler error (e.g. a CEL runtime error)
    nodes: list[NodeVerdict] = field(default_factory=list)


def explain(scheduler: Scheduler, pod: dict) -> Explanation:
    """A bound pod is evaluated as if it were being scheduled again: taken off its node for the
    what-if (its claims keep their allocations, so allocated claims still pin it)."""
    node_name = (pod.get("spec") or {}).get("nodeName")
    if not node_name:
        return _explain(scheduler, pod)
    unbound = dict(pod, spec={k: v for k, v in pod["spec"].items() if k != "nodeName"})
    scheduler.cache.remove_pod(pod)
    try:
        return _explain(scheduler, unbound)
    finally:
        scheduler.cache.add_pod(pod, node_name)


def _explain(scheduler: Scheduler, pod: dict) -> Explanation:
    out = Explanation()
    for plugin in scheduler.profile.pre_enqueue:
        status = plugin.pre_enqueue(pod)
        if status is not None:
            out.gated = f"{plugin.name}: {status.message()}"
            return out
    nodes = scheduler.cache.nodes()
    state = CycleState()
    diagnosis = Diagnosis()
    try:
        allowed, skip = scheduler._pre_filter(state, pod, nodes, diagnosis)
    except _PreFilterRejected:
        out.pre_filter = diagnosis.pre_filter_msg
        return out
    except SchedulingFailure as failure:
        out.error = failure.message
        return out
    filters = [p for p in scheduler.profile.filter if p.name not in skip]
    for node in nodes:
        if allowed is not None and node.name not in allowed:
            out.nodes.append(NodeVerdict(node.name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                           (narrowed_message(diagnosis),))))
            continue
        try:
            status = scheduler._run_filters(filters, state, pod, node)
        except SchedulingFailure as failure:
            out.error = failure.message
            return out
        out.nodes.append(NodeVerdict(node.name, status))
    feasible = [v for v in out.nodes if v.status is None]
    infos = {n.name: n for n in nodes}
    if len(feasible) < 2:
        return out   # kube-scheduler does not score a single feasible node
    plain, normalized = scheduler._pre_score(state, pod, [infos[v.node] for v in feasible])
    for plugin in plain + normalized:
        raw = [plugin.score(state, pod, infos[v.node]) for v in feasible]
        if plugin in normalized:
            plugin.normalize(state, pod, raw)
        for verdict, value in zip(feasible, raw):
            verdict.scores[plugin.name] = value * plugin.weight
    for verdict in feasible:
        verdict.total = sum(verdict.scores.values())
    return out
