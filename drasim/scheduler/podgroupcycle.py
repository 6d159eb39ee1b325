"""The pod group scheduling cycle: a gang's pending pods placed together, or none of them.

k8s: pkg/scheduler/schedule_one_podgroup.go (podGroupInfoForPod, podGroupSchedulingDefaultAlgorithm,
podGroupPodSchedulingAlgorithm, submitPodGroupAlgorithmResult, updatePodGroupCondition) with the
GangScheduling Permit rule (drasim/scheduler/plugins/gangscheduling.py).

1. The popped pod brings its group's other pending pods out of the queue (not those held at
   PreEnqueue), sorted by priority, then by when they were first queued.
2. Each pod in turn is filtered, scored, assumed and reserved, so the next one sees it in place (its
   devices included). A pod that fits nowhere is skipped; the group may still succeed.
3. Permit: the group succeeds once minCount of its pods are scheduled — placed in this cycle or
   already bound (a member that is deleted or evicted later does not undo that: the guarantee is
   for the initial placement).
4. Success: every placed pod is bound (PreBind writes its claims), the others stay Pending with their
   own reasons. Failure: every reservation is undone — no devices are held, no claim is written —
   the placed pods stay Pending with "waiting for minCount pods from a gang to be scheduled", the
   others with their own reasons.
5. The PodGroup gets condition PodGroupInitiallyScheduled (True/Scheduled, or False/Unschedulable;
   True is never taken back).

6. TopologyAwareWorkloadScheduling (alpha): with a topology constraint (`schedulingConstraints.topology[0].key`,
   a node label), the cycle is tried once per domain of that label (only the domain of members already
   bound, if any) and the feasible placement with the most pods placed is kept.

Not modelled: PostFilter in the group cycle (no preemption or claim deallocation for gang pods —
v1.37's workload-aware preemption is behind its own gate), the Permit wait of the pod-by-pod path (the
group cycle decides in one pass), v1.37's PlacementScore plugins (drasim: most pods placed, then domain
name; v1.37 breaks ties at random).
"""
from __future__ import annotations

from drasim.scheduler.framework import Code, CycleState, Status
from drasim.scheduler.plugins.gangscheduling import WAITING_FOR_SCHEDULED, gang_min_count, group_key
from drasim.scheduler.queue import QueuedPod

CONDITION = "PodGroupInitiallyScheduled"   # k8s: scheduling/v1beta1 PodGroupInitiallyScheduled


def _pending_members(sched, first: QueuedPod, key) -> list[QueuedPod]:
    infos = [first]
    for pod in sched.gang.members(key):
        uid = pod["metadata"]["uid"]
        if uid == first.uid or (pod.get("spec") or {}).get("nodeName"):
            continue
        info = sched.queue.pop_specific(uid)
        if info is not None:
            infos.append(info)
    # k8s: by priority, then InitialAttemptTimestamp
    return sorted(infos, key=lambda i: (-i.priority, i.timestamp, i.key))


def _attempt(sched, members: list[QueuedPod], placement: set[str] | None):
    """k8s: podGroupSchedulingDefaultAlgorithm — each member filtered, scored, assumed and reserved in
    turn (placement: only those nodes). Returns (placed, failed); placed pods stay assumed."""
    from drasim.scheduler.scheduler import PLACEMENT_NODES, SKIP_POST_FILTER, SchedulingFailure

    placed, failed = [], []
    for info in members:
        pod = info.pod
        state = CycleState()
        state[SKIP_POST_FILTER] = True
        if placement is not None:
            state[PLACEMENT_NODES] = placement
        sched.attempts += 1
        try:
            node_name = sched._schedule_pod(state, pod)
        except SchedulingFailure as failure:
            failed.append((info, pod, failure))
            continue
        reserved, refusal = sched.assume_and_reserve(state, pod, node_name)   # the next pods see it
        if refusal is not None:
            failed.append((info, pod, refusal))
            continue
        placed.append((info, pod, state, node_name, reserved))
    return placed, failed


def _undo(sched, placed) -> None:
    for info, pod, state, node_name, reserved in reversed(placed):   # most recent first
        sched._unwind(reserved, state, pod, node_name)


def _placements(sched, group: dict, key) -> list[tuple[str, set[str]]] | None:
    """TopologyAwareWorkloadScheduling (alpha): one placement per value of the group's topology key among
    the nodes, or only the domain of members already bound (k8s: TopologyPlacement.GeneratePlacements;
    the first constraint only). None: no topology constraint (the whole cluster)."""
    if not sched.topology_placements:
        return None
    topology = ((group.get("spec") or {}).get("schedulingConstraints") or {}).get("topology") or []
    topo_key = topology[0].get("key") if topology and isinstance(topology[0], dict) else None
    if not topo_key:
        return None
    domains: dict[str, set[str]] = {}
    for node in sched.cache.nodes():
        value = ((node.node.get("metadata") or {}).get("labels") or {}).get(topo_key)
        if value is not None:
            domains.setdefault(value, set()).add(node.name)
    bound = set()
    for pod in sched.gang.members(key):
        node_name = (pod.get("spec") or {}).get("nodeName")
        info = sched.cache.node(node_name) if node_name else None
        if info is not None:
            bound.add(((info.node.get("metadata") or {}).get("labels") or {}).get(topo_key))
    if bound:
        domains = {d: n for d, n in domains.items() if d in bound}
    return sorted(domains.items())


def schedule_pod_group(sched, first: QueuedPod) -> None:
    from drasim.scheduler.scheduler import SchedulingFailure

    key = group_key(first.pod)
    group = sched.store.get("PodGroup", *key)
    need = gang_min_count(group) or 1
    bound_already = sum(1 for p in sched.gang.members(key) if (p.get("spec") or {}).get("nodeName"))
    members = []
    for info in _pending_members(sched, first, key):
        md = info.pod["metadata"]
        pod = sched.store.get("Pod", md.get("namespace"), md["name"])
        if pod is None or pod["metadata"]["uid"] != info.uid or pod["spec"].get("nodeName") \
                or pod["metadata"].get("deletionTimestamp"):
            sched.queue.remove(info.uid)
            continue
        info.pod = pod
        members.append(info)
    placements = _placements(sched, group, key) if group is not None else None
    message = "pod group is unschedulable"
    if placements is None:
        placed, failed = _attempt(sched, members, None)
    else:
        # k8s: podGroupSchedulingPlacementAlgorithm — every placement tried on the same snapshot; the
        # feasible one with the most pods placed wins (drasim's stand-in for the PlacementScore plugins,
        # ties to the first domain in name order where v1.37 breaks ties at random)
        best, first_try = None, None
        for domain, nodes in placements:
            trial_placed, trial_failed = _attempt(sched, members, nodes)
            _undo(sched, trial_placed)
            if first_try is None:
                first_try = (nodes, trial_placed, trial_failed)
            if bound_already + len(trial_placed) >= need and (best is None or len(trial_placed) > best[0]):
                best = (len(trial_placed), nodes)
        if best is not None:
            placed, failed = _attempt(sched, members, best[1])
        else:
            placed, failed = _attempt(sched, members, first_try[0]) if first_try else ([], [])
            message = f"0/{len(placements)} placements are available, first placement status: {message}"
    feasible = bound_already + len(placed) >= need
    if not feasible:
        _undo(sched, placed)
    for info, pod, state, node_name, reserved in placed:
        if feasible:
            sched.pre_bind_and_bind(info, state, pod, node_name, reserved)
        else:
            sched._count_attempt("unschedulable")
            status = Status(Code.UNSCHEDULABLE, (WAITING_FOR_SCHEDULED,))
            sched._handle_failure(info, pod, SchedulingFailure(status, WAITING_FOR_SCHEDULED, set()))
    for info, pod, failure in failed:
        sched._count_attempt("error" if failure.status.code == Code.ERROR else "unschedulable")
        sched._handle_failure(info, pod, failure)
    if group is not None and (placed or failed):
        # k8s: the group status's message (errPodGroupUnschedulable on failure)
        _set_condition(sched, group, feasible, "" if feasible else message)


def _set_condition(sched, group: dict, scheduled: bool, message: str) -> None:
    """k8s: updatePodGroupCondition — never regress from True; observedGeneration of the group."""
    status = dict(group.get("status") or {})
    conditions = [dict(c) for c in status.get("conditions") or ()]
    existing = next((c for c in conditions if c.get("type") == CONDITION), None)
    if existing is not None and existing.get("status") == "True" and not scheduled:
        return
    new = {"type": CONDITION, "status": "True" if scheduled else "False",
           "reason": "Scheduled" if scheduled else "Unschedulable", "message": message,
           "observedGeneration": group["metadata"].get("generation") or 1,
           "lastTransitionTime": sched.clock.timestamp()}
    if existing is not None:
        if all(existing.get(k) == new[k] for k in ("status", "reason", "message")):
            return
        if existing.get("status") == new["status"]:
            new["lastTransitionTime"] = existing.get("lastTransitionTime")
        conditions[conditions.index(existing)] = new
    else:
        conditions.append(new)
    status["conditions"] = conditions
    sched.store.update_status(dict(group, status=status))
