"""kube-scheduler: one pod per cycle, through the framework's extension points.

k8s: pkg/scheduler/schedule_one.go (scheduleOne, schedulePod,
findNodesThatFitPod, prioritizeNodes, selectHost, handleSchedulingFailure),
pkg/scheduler/framework/runtime/framework.go (Run*Plugins).

The binding cycle runs right after the scheduling cycle (no goroutine): the
simulation is single-threaded, which is also what makes it deterministic.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Iterator

from drasim.store.events import NORMAL, WARNING, record_event
from drasim.errors import InternalError
from drasim.scheduler.cache import SchedulerCache
from drasim.scheduler.filtercache import FilterCache, pod_spec_signature
from drasim.scheduler.framework import (Code, CycleState, Diagnosis, FilterPlugin, NodeInfo, PostFilterPlugin,
                                        PreBindPlugin, PreEnqueuePlugin, PreFilterPlugin, ReservePlugin,
                                        ScorePlugin, Status, VERDICTS_KEY, fit_error_message, narrowed_message)
from drasim.scheduler.queue import Hint, QueuedPod, SchedulingQueue
from drasim.store import ADDED, DELETED, MemoryStore, WatchEvent, clone

SCHEDULER_NAME = "default-scheduler"
MIN_FEASIBLE_NODES_TO_FIND = 100            # k8s: minFeasibleNodesToFind
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5   # k8s: minFeasibleNodesPercentageToFind


def num_feasible_nodes_to_find(num_all_nodes: int, percentage: int = 0) -> int:
    """k8s: schedule_one.go numFeasibleNodesToFind (adaptive when percentageOfNodesToScore is unset)."""
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return num_all_nodes
    if percentage <= 0:
        percentage = 50 - num_all_nodes // 125
        if percentage < MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND:
            percentage = MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND
    num_nodes = num_all_nodes * percentage // 100
    if num_nodes < MIN_FEASIBLE_NODES_TO_FIND:
        return MIN_FEASIBLE_NODES_TO_FIND
    return num_nodes


@dataclass
class Profile:
    """The plugins of a scheduler profile, sorted into extension points once."""

    plugins: list
    pre_enqueue: list = field(init=False)
    pre_filter: list = field(init=False)
    filter: list = field(init=False)
    post_filter: list = field(init=False)
    score: list = field(init=False)
    reserve: list = field(init=False)
    pre_bind: list = field(init=False)

    def __post_init__(self) -> None:
        def having(proto):
            return [p for p in self.plugins if isinstance(p, proto)]
        self.pre_enqueue = having(PreEnqueuePlugin)
        self.pre_filter = having(PreFilterPlugin)
        self.filter = having(FilterPlugin)
        self.post_filter = having(PostFilterPlugin)
        self.score = [p for p in having(ScorePlugin) if getattr(p, "weight", 1) > 0]
        self.reserve = having(ReservePlugin)
        self.pre_bind = having(PreBindPlugin)


_FILTERS_KEY = "drasim/filters"
SKIP_POST_FILTER = "drasim/skip-post-filter"   # a pod group cycle: no preemption, no deallocation
PLACEMENT_NODES = "drasim/placement-nodes"     # a pod group placement: only these nodes are considered


class _PreFilterRejected(Exception):
    """A PreFilter plugin rejected the pod; the diagnosis says why."""


class SchedulingFailure(Exception):
    """A cycle that ended without a node: carries the status to report."""

    def __init__(self, status: Status, message: str, plugins: set[str]) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.plugins = plugins


class Scheduler:
    """A sim Component: schedules one pod per run_once()."""

    name = "kube-scheduler"

    def __init__(self, store: MemoryStore, plugins: list, *, seed: int = 0,
                 event_interest: Callable[[WatchEvent, SchedulingQueue], Hint | None] | None = None,
                 percentage_of_nodes_to_score: int = 0, metrics=None, filter_cache: bool = True,
                 lazy_in_flight_hints: bool = True) -> None:
        self.store = store
        self.clock = store.clock
        self.profile = Profile(plugins)
        self.cache = SchedulerCache()
        self.queue = SchedulingQueue(self.clock)
        self.rng = random.Random(seed)
        self.next_start_node_index = 0
        self.percentage = percentage_of_nodes_to_score
        self.event_interest = event_interest
        self.metrics = metrics
        self.attempts = 0
        self.filter_cache = FilterCache(enabled=filter_cache)
        self._in_flight: list[Hint | WatchEvent] | None = None   # seen during the current cycle
        self._lazy_in_flight = lazy_in_flight_hints   # off: every event's hint is asked at once
        self._signers = [p for p in self.profile.plugins if hasattr(p, "signature")]
        self._stashers = [p for p in self.profile.plugins if hasattr(p, "verdict_extra")]
        # Plugins whose answers for some pods depend on pods on other nodes (topology spread,
        # inter-pod affinity): such pods are scheduled without the verdict cache.
        self._global_plugins = [p for p in self.profile.plugins if hasattr(p, "depends_on_other_pods")]
        self.resource_alias: Callable[[str], str | None] | None = None   # see ControlPlane.resource_alias
        self.gang = None   # the GangScheduling plugin when GenericWorkload is on (drasim/scheduler/podgroupcycle.py)
        self.topology_placements = False   # TopologyAwareWorkloadScheduling (alpha)
        store.subscribe(self._on_event)

    # -- informer handlers ------------------------------------------------------
    def _responsible_for(self, pod: dict) -> bool:
        return (pod.get("spec") or {}).get("schedulerName", SCHEDULER_NAME) == SCHEDULER_NAME

    def _on_event(self, ev: WatchEvent) -> None:
        if ev.kind == "Pod":
            self._on_pod(ev)
        elif ev.kind == "Node":
            if ev.type == DELETED:
                self.cache.remove_node(ev.obj["metadata"]["name"])
            else:
                self.cache.set_node(ev.obj)
        if self.event_interest is not None and ev.kind != "Event":
            if not self.queue.has_unschedulable():   # no pod a hint could move now
                if self._in_flight is None:
                    return
                if self._lazy_in_flight:
                    # An event during a cycle is kept as it is: only a failure of the pod in
                    # flight asks about it (k8s, too, runs the queueing hints of in-flight events
                    # when the pod comes back unschedulable: scheduling_queue.go
                    # determineSchedulingHintForInFlightPod), and most cycles end in a binding.
                    self._in_flight.append(ev)
                    return
            hint = self.event_interest(ev, self.queue)
            if hint is not None:
                self.queue.move(hint)
                if self._in_flight is not None:
                    self._in_flight.append(hint)

    def _on_pod(self, ev: WatchEvent) -> None:
        pod = ev.obj
        uid = pod["metadata"]["uid"]
        node_name = (pod.get("spec") or {}).get("nodeName")
        if ev.type == DELETED:
            self.queue.remove(uid)
            self.cache.remove_pod(pod)
            return
        terminal = (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")
        if node_name:
            self.queue.remove(uid)
            if terminal:
                self.cache.remove_pod(pod)
            else:
                self.cache.add_pod(pod, node_name)
            return
        if terminal or not self._responsible_for(pod) or pod["metadata"].get("deletionTimestamp"):
            self.queue.remove(uid)
            return
        if ev.type == ADDED or uid not in self.queue:
            self.queue.add(pod)
        else:
            self.queue.update(pod)

    # -- component --------------------------------------------------------------
    def has_work(self) -> bool:
        return self.queue.has_active()

    def run_once(self) -> None:
        info = self.queue.pop()
        if info is None:
            return
        pod = self.store.get("Pod", info.pod["metadata"].get("namespace"), info.pod["metadata"]["name"])
        if pod is None or pod["metadata"]["uid"] != info.uid or pod["spec"].get("nodeName"):
            self.queue.remove(info.uid)
            return
        info.pod = pod
        self.schedule_one(info)

    def pre_enqueue_rejection(self, pod: dict) -> tuple[str, str] | None:
        """(plugin, message) of the PreEnqueue check holding this pod back, if one does.

        kube-scheduler v1.37 keeps this in its queue only (pod status and Events show nothing),
        so it is the only reason there is for, e.g., a pod whose ResourceClaim does not exist."""
        info = self.queue.get(pod["metadata"].get("uid"))
        return info.gated_by if info is not None and info.gated else None

    def export_pending(self, metrics) -> None:
        """scheduler_pending_pods{queue} from the queue as it stands."""
        for queue, n in self.queue.pending_counts().items():
            metrics.pending_pods.labels(queue=queue).set(n)

    def _count_attempt(self, result: str) -> None:
        if self.metrics is not None:
            self.metrics.attempt(result, SCHEDULER_NAME)

    # -- the scheduling cycle -----------------------------------------------------
    def schedule_one(self, info: QueuedPod) -> None:
        self._in_flight = []
        try:
            self._schedule_one(info)
        finally:
            self._in_flight = None

    def _schedule_one(self, info: QueuedPod) -> None:
        pod = info.pod
        self.attempts += 1
        for plugin in self.profile.pre_enqueue:
            status = plugin.pre_enqueue(pod)
            if status is not None:
                # k8s v1.37 writes nothing for this (no condition, no Event: PreEnqueue returns
                # only a Status, framework/interface.go; the queue just logs it and keeps the pod
                # gated, backend/queue/scheduling_queue.go runPreEnqueuePlugins). Kept for drasim's
                # own views (pre_enqueue_rejection).
                self.queue.mark_unschedulable(info, {plugin.name}, gated=True,
                                              gated_by=(plugin.name, status.message()))
                return
        if self.gang is not None and self.gang.min_count(pod) is not None:
            from drasim.scheduler.podgroupcycle import schedule_pod_group
            schedule_pod_group(self, info)
            return
        state = CycleState()
        try:
            node_name = self._schedule_pod(state, pod)
        except SchedulingFailure as failure:
            self._count_attempt("error" if failure.status.code == Code.ERROR else "unschedulable")
            self._handle_failure(info, pod, failure)
            return
        self._assume_and_bind(info, state, pod, node_name)

    def _schedule_pod(self, state: CycleState, pod: dict) -> str:
        """k8s: schedulePod — PreFilter, Filter up to numFeasibleNodesToFind, Score, selectHost."""
        nodes = self.cache.nodes()
        if not nodes:
            raise SchedulingFailure(Status(Code.UNSCHEDULABLE, ("no nodes available to schedule pods",)),
                                    "no nodes available to schedule pods", set())
        diagnosis = Diagnosis()
        try:
            allowed, skip = self._pre_filter(state, pod, nodes, diagnosis)
        except _PreFilterRejected:
            self._fail(state, pod, nodes, diagnosis)
        placement = state.get(PLACEMENT_NODES)
        if placement is not None:   # k8s: AssumePlacement narrows the snapshot to the placement's nodes
            allowed = placement if allowed is None else allowed & placement
        filters = [p for p in self.profile.filter if p.name not in skip]
        state[_FILTERS_KEY] = filters
        index = None
        if allowed is None and not any(p.depends_on_other_pods(pod) for p in self._global_plugins
                                       if p.name not in skip):
            index = self.filter_cache.index(self._signature(state, pod, skip), self.cache, len(nodes))
        state[VERDICTS_KEY] = index
        if index is not None:
            return self._schedule_indexed(state, pod, nodes, filters, index, diagnosis)
        feasible = self._find_nodes_that_fit(state, pod, nodes, allowed, filters, diagnosis)
        if not feasible:
            self._fail(state, pod, nodes, diagnosis)
        if len(feasible) == 1:
            return feasible[0].name   # k8s: with one feasible node, scoring is skipped
        plain, normalized = self._pre_score(state, pod, feasible)
        rows = [self._node_scores(plain, normalized, state, pod, n) for n in feasible]
        totals = self._totals(state, pod, normalized, [r[0] for r in rows], [r[1] for r in rows])
        return self._select_host(feasible, totals)

    def _pre_filter(self, state: CycleState, pod: dict, nodes: list[NodeInfo],
                    diagnosis: Diagnosis) -> tuple[set[str] | None, set[str]]:
        """Run PreFilter plugins: (node names they restrict the cycle to, plugins that skip Filter)."""
        allowed: set[str] | None = None
        skip: set[str] = set()
        for plugin in self.profile.pre_filter:
            result, status = plugin.pre_filter(state, pod, nodes)
            if status is not None and not status.is_skip:
                if status.code == Code.ERROR:
                    msg = f'running PreFilter plugin "{plugin.name}": {status.message()}'
                    raise SchedulingFailure(Status(Code.ERROR, (msg,), plugin.name), msg, {plugin.name})
                # k8s: findNodesThatFitPod — every node shares the PreFilter verdict (which
                # preemption sees too), its message replaces the per-node counts, and the
                # cycle goes on to PostFilter.
                diagnosis.pre_filter_msg = status.message()
                diagnosis.unschedulable_plugins.add(plugin.name)
                diagnosis.absent_status = status.with_plugin(plugin.name)
                raise _PreFilterRejected()
            if status is not None and status.is_skip:
                skip.add(plugin.name)
            if result is not None and result.node_names is not None:
                allowed = result.node_names if allowed is None else allowed & result.node_names
                diagnosis.narrowed_by.add(plugin.name)
        return allowed, skip

    def _fail(self, state: CycleState, pod: dict, nodes: list[NodeInfo], diagnosis: Diagnosis) -> None:
        """No node fits: PostFilter, then the FitError message."""
        message = fit_error_message(len(nodes), diagnosis)
        plugins = set(diagnosis.unschedulable_plugins)
        status = Status(Code.UNSCHEDULABLE, (message,))
        post = "" if state.get(SKIP_POST_FILTER) else self._run_post_filter(state, pod, diagnosis)
        if post:
            diagnosis.post_filter_msg = post
            message = fit_error_message(len(nodes), diagnosis)
        raise SchedulingFailure(status, message, plugins)

    def _find_nodes_that_fit(self, state: CycleState, pod: dict, nodes: list[NodeInfo], allowed: set[str] | None,
                             filters: list, diagnosis: Diagnosis) -> list[NodeInfo]:
        """k8s: findNodesThatPassFilters — from nextStartNodeIndex until enough feasible nodes."""
        if allowed is not None:
            candidates = [n for n in nodes if n.name in allowed]
            diagnosis.absent_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (narrowed_message(diagnosis),))
            start = 0
        else:
            candidates = nodes
            start = self.next_start_node_index % len(nodes)
        want = num_feasible_nodes_to_find(len(candidates), self.percentage)
        feasible: list[NodeInfo] = []
        rejected: list[tuple[NodeInfo, Status]] = []
        order = candidates[start:] + candidates[:start] if start else candidates
        for node in order:
            status = self._run_filters(filters, state, pod, node)
            if status is None:
                feasible.append(node)
                if len(feasible) >= want:
                    break
            else:
                rejected.append((node, status))
        if allowed is None:
            self.next_start_node_index = (start + len(feasible) + len(rejected)) % len(candidates)
        if not feasible:
            for node, status in rejected:
                diagnosis.node_to_status[node.name] = status
                diagnosis.unschedulable_plugins.add(status.plugin)
        return feasible

    def _schedule_indexed(self, state: CycleState, pod: dict, nodes: list[NodeInfo], filters: list,
                          index, diagnosis: Diagnosis) -> str:
        """The same cycle as above on a SignatureIndex: only changed nodes are evaluated again."""
        n = len(nodes)
        start = self.next_start_node_index % n
        want = num_feasible_nodes_to_find(n, self.percentage)
        plain, normalized = self._pre_score(state, pod, nodes)
        stashers = self._stashers
        run_filters = self._run_filters

        def resolve(pos: int) -> None:
            node = nodes[pos]
            status = run_filters(filters, state, pod, node)
            if status is not None:
                index.record(pos, status, 0, None, None)
                return
            extras = {p.name: p.verdict_extra(state, node) for p in stashers} if stashers else None
            plain_sum, raw = self._node_scores(plain, normalized, state, pod, node)
            index.record(pos, None, plain_sum, raw or None, extras)

        span, found = index.resolve_window(start, want, resolve)
        self.next_start_node_index = (start + span) % n
        if found == 0:
            for pos, node in enumerate(nodes):
                status = index.status[pos]
                diagnosis.node_to_status[node.name] = status
                diagnosis.unschedulable_plugins.add(status.plugin)
            self._fail(state, pod, nodes, diagnosis)
        ranges = index.window_ranges(start, span)
        if found == 1:
            return nodes[index.feasible_positions(ranges)[0]].name
        if index.normalized_constant(ranges):
            # Only the plain scores differ: the best of them, ties drawn as _select_host does.
            best, count = index.best_in(ranges)
            k = 0 if count == 1 else self.rng.randrange(count)
            return nodes[index.kth_best(ranges, best, k)].name
        positions = index.feasible_positions(ranges)
        totals = self._totals(state, pod, normalized, [index.plain[p] for p in positions],
                              [index.normalized[p] for p in positions])
        return self._select_host([nodes[p] for p in positions], totals)

    def _run_filters(self, filters: list, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        for plugin in filters:
            status = plugin.filter(state, pod, node)
            if status is None:
                continue
            if not status.rejected:   # k8s: framework.go RunFilterPlugins
                msg = f'running "{plugin.name}" filter plugin: {status.message()}'
                raise SchedulingFailure(Status(Code.ERROR, (msg,), plugin.name), msg, {plugin.name})
            return status.with_plugin(plugin.name)
        return None

    # -- what DefaultPreemption needs from the scheduler ------------------------------------
    def filters_fit(self, state: CycleState, pod: dict, node: NodeInfo) -> Status | None:
        """This cycle's Filter plugins on a what-if node (preemption); errors count as no fit."""
        try:
            return self._run_filters(state.get(_FILTERS_KEY, self.profile.filter), state, pod, node)
        except SchedulingFailure as failure:
            return failure.status

    def evict_for_preemption(self, victim: dict, preemptor: dict, node_name: str) -> None:
        """k8s: preemption prepareCandidate — DisruptionTarget condition, event, delete."""
        md = victim["metadata"]
        current = self.store.get("Pod", md.get("namespace"), md["name"])
        if current is None:
            return
        status = clone(current.get("status") or {})
        set_condition(status, {"type": "DisruptionTarget", "status": "True", "lastTransitionTime": self.clock.timestamp(),
                               "reason": "PreemptionByScheduler",
                               "message": f"{SCHEDULER_NAME}: preempting to accommodate a higher priority pod"})
        current = self.store.update_status(dict(current, status=status), copy=False)
        record_event(self.store, current, NORMAL, "Preempted",
                     f"Preempted by pod {preemptor['metadata']['uid']} on node {node_name}", SCHEDULER_NAME)
        self.store.delete("Pod", md.get("namespace"), md["name"], uid=md.get("uid"))

    def nominate(self, pod: dict, node_name: str) -> None:
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        if current is not None:
            status = dict(current.get("status") or {}, nominatedNodeName=node_name)
            self.store.update_status(dict(current, status=status), copy=False)

    def _run_post_filter(self, state: CycleState, pod: dict, diagnosis: Diagnosis) -> str:
        """k8s: RunPostFilterPlugins — in order; a success or an unresolvable status ends the
        run with that plugin's message, otherwise all reasons are joined with ", "."""
        reasons: list[str] = []
        for plugin in self.profile.post_filter:
            status = plugin.post_filter(state, pod, diagnosis)
            if status is None or status.code == Code.SUCCESS:
                return status.message() if status is not None else ""
            if status.code == Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return status.message()
            reasons.extend(status.reasons)
        return ", ".join(reasons)

    def _pre_score(self, state: CycleState, pod: dict, nodes: list[NodeInfo]) -> tuple[list, list]:
        """PreScore; returns the active Score plugins split into (no normalization, normalization)."""
        active = []
        for plugin in self.profile.score:
            pre = getattr(plugin, "pre_score", None)
            if pre is not None:
                status = pre(state, pod, nodes)
                if status is not None and status.is_skip:
                    continue
            active.append(plugin)
        return ([p for p in active if getattr(p, "normalize", None) is None],
                [p for p in active if getattr(p, "normalize", None) is not None])

    @staticmethod
    def _totals(state: CycleState, pod: dict, normalized: list, plain_sums: list, raws: list) -> list:
        """k8s: prioritizeNodes — plain weighted sums plus each normalized plugin, weighted."""
        totals = list(plain_sums)
        for i, plugin in enumerate(normalized):
            raw = [row[i] for row in raws]
            if min(raw) == max(raw):
                continue   # normalizes to one value for every node: no effect on the choice
            plugin.normalize(state, pod, raw)
            weight = plugin.weight
            for j, value in enumerate(raw):
                totals[j] += value * weight
        return totals

    @staticmethod
    def _node_scores(plain: list, normalized: list, state: CycleState, pod: dict,
                     node: NodeInfo) -> tuple[int, tuple[int, ...]]:
        """(weighted sum of the scores needing no normalization, raw scores of the others)."""
        return (sum(p.score(state, pod, node) * p.weight for p in plain),
                tuple(p.score(state, pod, node) for p in normalized))

    def _signature(self, state: CycleState, pod: dict, skipped: set[str]):
        """Everything about the pod that Filter and Score look at (see FilterCache)."""
        return (pod_spec_signature(pod, self.resource_alias), tuple(sorted(skipped)),
                *[p.signature(state, pod) for p in self._signers])

    def _select_host(self, nodes: list[NodeInfo], scores: list[int]) -> str:
        """k8s: selectHost — the highest total; among equal totals each node is equally likely.

        kube-scheduler reservoir-samples the ties (one random draw per tie); drawing
        once among them gives the same uniform choice, from a seeded generator.
        """
        top = max(scores)
        ties = [i for i, s in enumerate(scores) if s == top]
        pick = ties[0] if len(ties) == 1 else ties[self.rng.randrange(len(ties))]
        return nodes[pick].name

    # -- binding ------------------------------------------------------------------
    def _assume_and_bind(self, info: QueuedPod, state: CycleState, pod: dict, node_name: str) -> None:
        reserved, failure = self.assume_and_reserve(state, pod, node_name)
        if failure is not None:
            self._handle_failure(info, pod, failure)
            return
        self.pre_bind_and_bind(info, state, pod, node_name, reserved)

    def assume_and_reserve(self, state: CycleState, pod: dict, node_name: str) -> tuple[list, "SchedulingFailure | None"]:
        """Assume the pod on the node and run Reserve; a refusal is unwound. (the reserved plugins, failure)"""
        self.cache.add_pod(pod, node_name)   # assume
        reserved = []
        for plugin in self.profile.reserve:
            status = plugin.reserve(state, pod, node_name)
            reserved.append(plugin)
            if status is not None:
                self._unwind(reserved, state, pod, node_name)
                return reserved, SchedulingFailure(status, status.message(), {plugin.name})
        return reserved, None

    def pre_bind_and_bind(self, info: QueuedPod, state: CycleState, pod: dict, node_name: str, reserved: list) -> None:
        """PreBind (claims written), then the binding; a PreBind error unwinds and requeues."""
        for plugin in self.profile.pre_bind:
            status = plugin.pre_bind(state, pod, node_name)
            if status is not None:
                self._unwind(reserved, state, pod, node_name)
                msg = f'running PreBind plugin "{plugin.name}": {status.message()}'
                self._handle_failure(info, pod, SchedulingFailure(Status(Code.ERROR, (msg,)), msg, {plugin.name}))
                return
        self._bind(pod, node_name)
        self.queue.done(info.uid)
        self._count_attempt("scheduled")

    def _unwind(self, reserved: list, state: CycleState, pod: dict, node_name: str) -> None:
        for plugin in reversed(reserved):
            plugin.unreserve(state, pod, node_name)
        self.cache.remove_pod(pod)

    def _bind(self, pod: dict, node_name: str) -> None:
        """k8s: DefaultBinder → pods/binding, which sets spec.nodeName and PodScheduled=True in one write."""
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        if current is None:
            raise InternalError(f"pod {pod['metadata']['name']} vanished while binding")
        bound = dict(current, spec=dict(current["spec"], nodeName=node_name),
                     metadata=dict(current["metadata"]))
        status = dict(current.get("status") or {})
        status.pop("nominatedNodeName", None)   # k8s: cleared once the pod is bound
        status["conditions"] = [dict(c) for c in status.get("conditions") or ()]
        set_condition(status, {"type": "PodScheduled", "status": "True", "lastProbeTime": None,
                               "lastTransitionTime": self.clock.timestamp()})
        bound["status"] = status
        bound = self.store.replace(bound)
        ns = pod["metadata"].get("namespace")
        record_event(self.store, bound, NORMAL, "Scheduled",
                     f"Successfully assigned {ns}/{pod['metadata']['name']} to {node_name}", SCHEDULER_NAME)

    def _handle_failure(self, info: QueuedPod, pod: dict, failure: SchedulingFailure) -> None:
        """k8s: handleSchedulingFailure — condition, event, back to the queue."""
        reason = "SchedulerError" if failure.status.code == Code.ERROR else "Unschedulable"
        current = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"])
        if current is None:
            self.queue.remove(info.uid)
            return
        status = clone(current.get("status") or {})
        changed = set_condition(status, {"type": "PodScheduled", "status": "False", "lastProbeTime": None,
                                         "lastTransitionTime": self.clock.timestamp(),
                                         "reason": reason, "message": failure.message})
        if changed:
            self.store.update_status(dict(current, status=status), copy=False)
            record_event(self.store, current, WARNING, "FailedScheduling", failure.message, SCHEDULER_NAME)
        plugins = failure.plugins or {"_error"}
        info.pod = self.store.get("Pod", pod["metadata"].get("namespace"), pod["metadata"]["name"]) or pod
        self.queue.mark_unschedulable(info, plugins)
        # k8s: events that arrived while the pod was in flight (e.g. preemption victims
        # deleted in PostFilter) are replayed for it, so it is not parked past its chance.
        if any(self.queue.hint_matches(hint, info.uid) for hint in self._in_flight_hints()):
            self.queue.move(Hint(pods=frozenset((info.uid,))))

    def _in_flight_hints(self) -> Iterator[Hint]:
        """The hints of the events seen during this cycle; those kept as events are asked now.
        The answer for the pod in flight is the same as at the event: what a hint says of one
        pod (its claims, its group, the plugins that rejected it) does not change in its cycle."""
        for item in self._in_flight or ():
            if item.__class__ is Hint:
                yield item
            else:
                hint = self.event_interest(item, self.queue)
                if hint is not None:
                    yield hint


def set_condition(status: dict, condition: dict) -> bool:
    """Upsert a pod condition by type; keep lastTransitionTime when status is unchanged. True if changed."""
    conditions = status.setdefault("conditions", [])
    for i, existing in enumerate(conditions):
        if existing.get("type") == condition["type"]:
            if all(existing.get(k) == condition.get(k) for k in ("status", "reason", "message")):
                return False
            if existing.get("status") == condition.get("status"):
                condition = dict(condition, lastTransitionTime=existing.get("lastTransitionTime"))
            conditions[i] = condition
            return True
    conditions.append(condition)
    return True
